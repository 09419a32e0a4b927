/* ctorch/ops_linalg.h -- linear algebra: matrix products, the
 * triangular / diagonal helpers, singular values and matrix norms
 * (aten/cpu/matmul.c, linalg_tri.c, linalg_einsum.c, linalg_svd.c,
 * linalg_norm.c).
 *
 * Same conventions as ops.h: results are new references (or NULL with the
 * error set), tensor arguments are borrowed, and `out` may be NULL
 * (allocate) or a tensor written in place (CT_OUT_GIVEN: resized with
 * PyTorch's warning; CT_OUT_INPLACE: `out` is `self` of an in-place
 * method and its shape may not change); a given `out` is returned with a
 * new reference.  Operands of a product must share one dtype (PyTorch
 * does not promote here); float32 and float64 run on OpenBLAS, every
 * other numeric dtype on ctorch's own loops (float16 and bfloat16
 * accumulate in float).  Error texts follow PyTorch 1.13's.
 *
 * Thread-safety: as every op, safe on distinct outputs.
 */
#ifndef CTORCH_OPS_LINALG_H
#define CTORCH_OPS_LINALG_H

#include "ops.h"

/* torch.matmul: dot, mv, mm, or batched products with broadcast batch
 * dimensions, by the operands' ranks (Note [matmul ranks] in matmul.c). */
ct_tensor *ct_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
/* [n, k] @ [k, m] */
ct_tensor *ct_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
/* [B, n, k] @ [B, k, m] */
ct_tensor *ct_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
/* [n, k] @ [k] */
ct_tensor *ct_mv(const ct_tensor *mat, const ct_tensor *vec, ct_tensor *out);
/* 1-D . 1-D, a 0-dim result of the operands' dtype (vdot: the same for
 * real dtypes). */
ct_tensor *ct_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
ct_tensor *ct_vdot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);

/* beta * self + alpha * (product), self broadcast to the product's shape.
 * beta == 0 ignores self's values (NaN and inf in it do not propagate). */
ct_tensor *ct_addmm(const ct_tensor *self, const ct_tensor *mat1,
                    const ct_tensor *mat2, ct_scalar beta, ct_scalar alpha,
                    ct_tensor *out, ct_out_mode mode);
ct_tensor *ct_addmv(const ct_tensor *self, const ct_tensor *mat,
                    const ct_tensor *vec, ct_scalar beta, ct_scalar alpha,
                    ct_tensor *out, ct_out_mode mode);
ct_tensor *ct_baddbmm(const ct_tensor *self, const ct_tensor *batch1,
                      const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                      ct_tensor *out, ct_out_mode mode);
/* beta * self + alpha * sum over the batch of batch1[i] @ batch2[i] */
ct_tensor *ct_addbmm(const ct_tensor *self, const ct_tensor *batch1,
                     const ct_tensor *batch2, ct_scalar beta, ct_scalar alpha,
                     ct_tensor *out, ct_out_mode mode);

/* a[i] * b[j] with type promotion (torch.outer / torch.ger). */
ct_tensor *ct_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor *out);
/* beta * self + alpha * outer(vec1, vec2), pointwise: type promotion over
 * all three operands, bool operands allowed (torch.addr). */
ct_tensor *ct_addr(const ct_tensor *self, const ct_tensor *vec1, const ct_tensor *vec2,
                   ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode);

/* Lower (tril) / upper (triu) triangle of the last two dims; elements with
 * j - i > diagonal (tril) or j - i < diagonal (triu) become zero. */
ct_tensor *ct_tril(const ct_tensor *t, int64_t diagonal, ct_tensor *out,
                   ct_out_mode mode);
ct_tensor *ct_triu(const ct_tensor *t, int64_t diagonal, ct_tensor *out,
                   ct_out_mode mode);
/* 1-D -> square 2-D with t on the given diagonal; 2-D -> a copy of that
 * diagonal. */
ct_tensor *ct_diag(const ct_tensor *t, int64_t diagonal, ct_tensor *out);
/* Sum of the main diagonal of a 2-D tensor; integral inputs give int64. */
ct_tensor *ct_trace(const ct_tensor *t);

/* torch.einsum (aten/cpu/linalg_einsum.c, Note [einsum]): labels a-zA-Z,
 * one ellipsis per term, implicit or explicit ("->") output; at most
 * CT_EINSUM_MAX_OPERANDS operands.  The result may be a view of an operand
 * (a lone operand with nothing to sum), as in torch. */
#define CT_EINSUM_MAX_OPERANDS 64
ct_tensor *ct_einsum(const char *equation, int n, const ct_tensor *const *ops);

/* torch.linalg.svdvals: the singular values of the matrices in the last two
 * dims, [..., m, n] -> [..., min(m, n)], descending, by LAPACK's ?gesdd
 * (float32 / float64 only, as on torch's CPU).  A matrix with NaN, or one
 * ?gesdd cannot converge on, fails with CT_ERR_LINALG (torch's
 * LinAlgError).  A given `out` must have the result's dtype. */
ct_tensor *ct_linalg_svdvals(const ct_tensor *A, ct_tensor *out);

/* The order of a norm: a number, or when `str` is not NULL one of torch's
 * named orders ("fro", "nuc"). */
typedef struct {
    const char *str;
    double p;
} ct_norm_ord;

/* torch.linalg.matrix_norm over the two dims in `dims` (ndims must be 2):
 * ord "fro", "nuc", +-1, +-2 or +-INFINITY.  `dtype` is CT_DTYPE_COUNT or
 * the floating dtype to compute in; a given `out` must have the result's
 * dtype. */
ct_tensor *ct_linalg_matrix_norm(const ct_tensor *A, ct_norm_ord ord, int ndims,
                                 const int64_t *dims, bool keepdim, ct_dtype dtype,
                                 ct_tensor *out);
/* torch.linalg.norm: a matrix norm when ord is given and there are two dims
 * (dims given, or dims NULL and a 2-D input), else a vector norm (ord NULL:
 * the 2-norm).  dims NULL is torch's dim=None; ndims must then be 0. */
ct_tensor *ct_linalg_norm(const ct_tensor *A, const ct_norm_ord *ord, int ndims,
                          const int64_t *dims, bool keepdim, ct_dtype dtype,
                          ct_tensor *out);
/* torch.frobenius_norm (torch.norm's p="fro"): over at most two dims (none:
 * all of them); two dims are sqrt(sum(x * x)) as in torch. */
ct_tensor *ct_frobenius_norm(const ct_tensor *t, int ndims, const int64_t *dims,
                             bool keepdim);
/* torch.nuclear_norm (torch.norm's p="nuc"): over the two dims given, or
 * with dims NULL over the dims of a 2-D input. */
ct_tensor *ct_nuclear_norm(const ct_tensor *t, int ndims, const int64_t *dims,
                           bool keepdim);

#endif
