/* aten/cpu/linalg_norm.c -- matrix norms: torch.linalg.matrix_norm and
 * torch.linalg.norm, and torch.norm's p="fro" / p="nuc" (frobenius_norm,
 * nuclear_norm).  Each is composed, as in torch, of existing ops:
 *   "fro"       the vector 2-norm over both dims
 *   "nuc", +-2  sum / max / min of the singular values (linalg_svd.c)
 *   +-1, +-inf  max / min over one dim of the vector 1-norm over the other
 * so the checks, the order they run in and the result layouts follow
 * torch 1.13's LinearAlgebra.cpp.
 *
 * Ownership as in ops.h.  Thread-safety: as the ops composed.
 */
#include "aten/device.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aten/cpu/loops.h"

typedef enum { SV_SUM, SV_MAX, SV_MIN } sv_reduce;

/* torch's check_linalg_norm_dtype: dtype= must be floating and must not
 * narrow the input's dtype (there are no complex dtypes to check). */
static int
check_norm_dtype(ct_dtype dtype, ct_dtype in, const char *name)
{
    if (dtype == CT_DTYPE_COUNT) {
        return 0;
    }
    if (!ct_dtype_is_floating(dtype)) {
        return ct_error(CT_ERR_RUNTIME, "%s: dtype should be floating point or complex, "
                        "but got %s", name, ct_dtype_table[dtype].legacy);
    }
    if (ct_dtype_promote(in, dtype) != dtype) {
        return ct_error(CT_ERR_RUNTIME, "%s: the dtype of the input (%s) should be "
                        "convertible without narrowing to the specified dtype (%s)",
                        name, ct_dtype_table[in].legacy, ct_dtype_table[dtype].legacy);
    }
    return 0;
}

/* Write a computed result into a given out= (dtype must match, resized
 * with torch's warning); drops `res`.  Returns a new reference to out, or
 * res itself when out is NULL. */
static ct_tensor *
finish_out(ct_tensor *res, ct_tensor *out, const char *name)
{
    if (res == NULL || out == NULL) {
        return res;
    }
    if (out->dtype != res->dtype) {
        ct_error(CT_ERR_RUNTIME, "%s expected out tensor dtype %s but got: %s", name,
                 ct_dtype_table[res->dtype].legacy, ct_dtype_table[out->dtype].legacy);
    }
    else if (ct_iter_check_out(out, CT_OUT_GIVEN, res->ndim, res->sizes, 0, NULL) == 0 &&
             ct_copy_(out, res) == 0) {
        ct_tensor_decref(res);
        ct_tensor_incref(out);
        return out;
    }
    ct_tensor_decref(res);
    return NULL;
}

/* Note [Norms from singular values]
 * torch moves the two matrix dims d0, d1 to the end (in that order), takes
 * svdvals and reduces its last dim; with keepdim the reduced dim and a new
 * one become the two size-1 dims and the inverse permutation puts them
 * back at d0 and d1.  Doing the same steps gives torch's values (the
 * matrices LAPACK sees are the same) and its result strides.  max / min of
 * an empty list of singular values is amax's error, which torch raises with
 * the dim it passed (-1). */
static ct_tensor *
singular_value_norm(const ct_tensor *A, int d0, int d1, bool keepdim, sv_reduce how)
{
    int nd = A->ndim, k = 0;
    int64_t perm[CT_MAX_DIMS], inv[CT_MAX_DIMS], last = -1;
    ct_tensor *p = NULL, *s = NULL, *r = NULL, *u = NULL, *res = NULL;

    for (int i = 0; i < nd; i++) {
        if (i != d0 && i != d1) {
            perm[k++] = i;
        }
    }
    perm[k++] = d0;
    perm[k++] = d1;
    if ((p = ct_permute(A, nd, perm)) == NULL || (s = ct_linalg_svdvals(p, NULL)) == NULL) {
        goto done;
    }
    if (how != SV_SUM && s->sizes[s->ndim - 1] == 0) {
        ct_error(CT_ERR_INDEX, "%s(): Expected reduction dim -1 to have non-zero size.",
                 how == SV_MAX ? "amax" : "amin");
        goto done;
    }
    r = how == SV_SUM   ? ct_sum(s, 1, &last, keepdim, CT_DTYPE_COUNT)
        : how == SV_MAX ? ct_amax(s, 1, &last, keepdim)
                        : ct_amin(s, 1, &last, keepdim);
    if (r == NULL || !keepdim) {
        res = r;
        r = NULL;
        goto done;
    }
    for (int i = 0; i < nd; i++) {
        inv[perm[i]] = i;
    }
    if ((u = ct_unsqueeze(r, -1)) != NULL) {
        res = ct_permute(u, nd, inv);
    }
done:
    ct_tensor_decref(u);
    ct_tensor_decref(r);
    ct_tensor_decref(s);
    ct_tensor_decref(p);
    return res;
}

/* max / min over d1 of the vector 1-norm over d0 (the 1-norms; inf-norms
 * swap the dims first). */
static ct_tensor *
abs_sum_norm(const ct_tensor *A, int d0, int d1, bool keepdim, bool max, ct_dtype dtype)
{
    int64_t first = d0, second = d1;
    if (!keepdim && d0 < d1) {
        second--;       /* the first reduction removed a dim before d1 */
    }
    ct_tensor *n1 = ct_vector_norm(A, 1, 1, &first, keepdim, dtype, "linalg.vector_norm");
    if (n1 == NULL) {
        return NULL;
    }
    ct_tensor *r = max ? ct_amax(n1, 1, &second, keepdim) : ct_amin(n1, 1, &second, keepdim);
    ct_tensor_decref(n1);
    return r;
}

/* "0 1 2": how torch prints the dims of a std::vector. */
static const char *
format_dim_words(int n, const int64_t *dims, char *buf, size_t size)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && pos < size; i++) {
        pos += (size_t)snprintf(buf + pos, size - pos, "%s%lld", i ? " " : "",
                                (long long)dims[i]);
    }
    return buf;
}

ct_tensor *
ct_linalg_matrix_norm(const ct_tensor *A, ct_norm_ord ord, int ndims, const int64_t *dims,
                      bool keepdim, ct_dtype dtype, ct_tensor *out)
{
    if (ct__host_only((const ct_tensor *const[]){A, out}, 2) < 0) {
        return NULL;
    }
    static const char name[] = "linalg.matrix_norm";
    double a = fabs(ord.p);
    bool fro = false, nuc = false;
    char buf[256];
    int d0, d1;
    ct_tensor *res, *conv = NULL;

    /* the order first: it decides whether half / bfloat16 are accepted */
    if (ord.str != NULL) {
        fro = strcmp(ord.str, "fro") == 0;
        nuc = strcmp(ord.str, "nuc") == 0;
        if (!fro && !nuc) {
            ct_error(CT_ERR_RUNTIME, "%s: Order %s not supported.", name, ord.str);
            return NULL;
        }
    }
    else if (a != 1 && a != 2 && a != INFINITY) {
        ct_error(CT_ERR_RUNTIME, "%s: Order %g not supported.", name, ord.p);
        return NULL;
    }
    if (A->ndim < 2) {
        ct_error(CT_ERR_RUNTIME, "%s: The input tensor A must have at least 2 "
                 "dimensions.", name);
        return NULL;
    }
    if (!ct_dtype_is_floating(A->dtype)) {
        ct_error(CT_ERR_RUNTIME, "%s: Expected a floating point or complex tensor as "
                 "input. Got %s", name, ct_dtype_table[A->dtype].legacy);
        return NULL;
    }
    /* the SVD has no half / bfloat16 kernel */
    if ((nuc || (ord.str == NULL && a == 2)) &&
        (A->dtype == CT_DTYPE_FLOAT16 || A->dtype == CT_DTYPE_BFLOAT16)) {
        ct_error(CT_ERR_RUNTIME, "%s: Low precision dtypes not supported. Got %s", name,
                 ct_dtype_table[A->dtype].legacy);
        return NULL;
    }
    if (ndims != 2) {
        ct_error(CT_ERR_RUNTIME, "%s: dim must be a 2-tuple. Got %s", name,
                 format_dim_words(ndims, dims, buf, sizeof buf));
        return NULL;
    }
    if ((d0 = ct_wrap_dim(dims[0], A->ndim)) < 0 || (d1 = ct_wrap_dim(dims[1], A->ndim)) < 0) {
        return NULL;
    }
    if (d0 == d1) {
        ct_error(CT_ERR_RUNTIME, "%s: dims must be different. Got (%d, %d)", name, d0, d1);
        return NULL;
    }
    if (check_norm_dtype(dtype, A->dtype, name) < 0) {
        return NULL;
    }

    if (fro) {
        int64_t wd[2] = {d0, d1};
        res = ct_vector_norm(A, 2, 2, wd, keepdim, dtype, "linalg.vector_norm");
    }
    else if (nuc || a == 2) {
        if (dtype != CT_DTYPE_COUNT && (conv = ct_to_dtype(A, dtype, false)) == NULL) {
            return NULL;
        }
        res = singular_value_norm(conv ? conv : A, d0, d1, keepdim,
                                  nuc ? SV_SUM : ord.p > 0 ? SV_MAX : SV_MIN);
        ct_tensor_decref(conv);
    }
    else if (a == 1) {
        res = abs_sum_norm(A, d0, d1, keepdim, ord.p > 0, dtype);
    }
    else {
        res = abs_sum_norm(A, d1, d0, keepdim, ord.p > 0, dtype);
    }
    return finish_out(res, out, name);
}

ct_tensor *
ct_linalg_norm(const ct_tensor *A, const ct_norm_ord *ord, int ndims, const int64_t *dims,
               bool keepdim, ct_dtype dtype, ct_tensor *out)
{
    if (ct__host_only((const ct_tensor *const[]){A, out}, 2) < 0) {
        return NULL;
    }
    static const int64_t both[2] = {0, 1};
    char buf[256];
    ct_tensor *res;

    if (dims != NULL && ndims != 1 && ndims != 2) {
        /* "mut" is torch 1.13's spelling in the string-ord overload */
        ct_error(CT_ERR_RUNTIME, "linalg.norm: If dim is specified, it %s be of length 1 "
                 "or 2. Got %s", ord != NULL && ord->str != NULL ? "mut" : "must",
                 ct_format_sizes(ndims, dims, buf, sizeof buf));
        return NULL;
    }
    if (dims == NULL && ord != NULL && A->ndim != 1 && A->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "linalg.norm: If dim is not specified but ord is, the "
                 "input must be 1D or 2D. Got %dD.", A->ndim);
        return NULL;
    }
    if (ord != NULL && (ord->str != NULL || (dims != NULL ? ndims == 2 : A->ndim == 2))) {
        res = ct_linalg_matrix_norm(A, *ord, dims != NULL ? ndims : 2,
                                    dims != NULL ? dims : both, keepdim, dtype, NULL);
    }
    else {
        res = ct_vector_norm(A, ord != NULL ? ord->p : 2, dims != NULL ? ndims : 0, dims,
                             keepdim, dtype, "linalg.vector_norm");
    }
    return finish_out(res, out, "linalg.norm");
}

ct_tensor *
ct_frobenius_norm(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    char buf[256];
    int64_t wd[2];
    ct_tensor *sq, *sum, *res;

    if (ndims > 2) {
        ct_error(CT_ERR_RUNTIME, "Expected at most 2 dimensions, but got %d dimensions "
                 "instead.", ndims);
        return NULL;
    }
    if (ndims < 2) {
        return ct_vector_norm(t, 2, ndims, dims, keepdim, CT_DTYPE_COUNT, "norm");
    }
    for (int i = 0; i < 2; i++) {
        if ((wd[i] = ct_wrap_dim(dims[i], t->ndim)) < 0) {
            return NULL;
        }
    }
    if (wd[0] == wd[1]) {
        ct_error(CT_ERR_RUNTIME, "Expected dims to be different, got %s instead",
                 ct_format_sizes(2, dims, buf, sizeof buf));
        return NULL;
    }
    /* torch 1.13 fails an internal assert on integers; say what norm() says */
    if (!ct_dtype_is_floating(t->dtype)) {
        ct_error(CT_ERR_RUNTIME, "norm(): input dtype should be either floating point or "
                 "complex. Got %s instead.", ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    /* sqrt(sum(t * t)) as torch computes it, not the vector norm's loop */
    if ((sq = ct_mul(t, t)) == NULL) {
        return NULL;
    }
    sum = ct_sum(sq, 2, wd, keepdim, CT_DTYPE_COUNT);
    ct_tensor_decref(sq);
    if (sum == NULL) {
        return NULL;
    }
    res = ct_unary(CT_UNARY_SQRT, sum, NULL, CT_OUT_NEW);
    ct_tensor_decref(sum);
    return res;
}

ct_tensor *
ct_nuclear_norm(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    int d0 = 0, d1 = 1;

    if (dims == NULL) {
        if (t->ndim != 2) {
            ct_error(CT_ERR_RUNTIME, "Expected a tensor with 2 dimensions, but got a "
                     "tensor with %d dimension%s instead.", t->ndim,
                     t->ndim == 1 ? "" : "s");
            return NULL;
        }
    }
    else {
        if (ndims != 2) {
            ct_error(CT_ERR_RUNTIME, "nuclear norm requires a 'dim' argument of size 2");
            return NULL;
        }
        if ((d0 = ct_wrap_dim(dims[0], t->ndim)) < 0 ||
            (d1 = ct_wrap_dim(dims[1], t->ndim)) < 0) {
            return NULL;
        }
        if (d0 == d1) {
            ct_error(CT_ERR_RUNTIME, "duplicate or invalid dimensions");
            return NULL;
        }
    }
    return singular_value_norm(t, d0, d1, keepdim, SV_SUM);
}
