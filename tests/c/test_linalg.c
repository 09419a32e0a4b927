/* tests/c/test_linalg.c -- the linear algebra ops through the C API:
 * products on BLAS and on the typed loops, matmul's rank rules, the add*
 * forms, tril / triu / diag / trace, einsum, singular values and matrix
 * norms, and PyTorch's error texts. */
#include "tests/c/test.h"

/* Also declared by test_list.h once its entries are added; declared here so
 * that this file builds warning-free (-Wmissing-prototypes) before that. */
void test_linalg_mm(void);
void test_linalg_matmul_ranks(void);
void test_linalg_errors(void);
void test_linalg_add_products(void);
void test_linalg_tri_diag_trace(void);
void test_linalg_einsum(void);
void test_linalg_svdvals_norms(void);

TEST_IMPL(linalg_mm)
{
    /* [[0 1 2] [3 4 5]] @ [[0 1] [2 3] [4 5]] in every computing dtype */
    const ct_dtype dts[] = {CT_DTYPE_FLOAT32, CT_DTYPE_FLOAT64, CT_DTYPE_INT32,
                            CT_DTYPE_INT64, CT_DTYPE_BFLOAT16, CT_DTYPE_FLOAT16,
                            CT_DTYPE_UINT8};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        ct_tensor *a = ct_test_iota(dts[i], 2, (int64_t[]){2, 3});
        ct_tensor *b = ct_test_iota(dts[i], 2, (int64_t[]){3, 2});
        CT_ASSERT_OK(a);
        CT_ASSERT_OK(b);
        ct_tensor *r = ct_mm(a, b, NULL);
        CT_ASSERT_OK(r);
        CT_ASSERT_EQ_INT(r->dtype, dts[i]);
        CT_ASSERT_SHAPE(r, 2, 2, 2);
        CT_ASSERT_STRIDES(r, 2, 2, 1);
        CT_ASSERT_VALUES(r, 0, 10, 13, 28, 40);
        /* b^T a^T through transposed views (BLAS transpose flags) */
        ct_tensor *at = ct_transpose(a, 0, 1), *bt = ct_transpose(b, 0, 1);
        CT_ASSERT_OK(at);
        CT_ASSERT_OK(bt);
        ct_tensor *r2 = ct_mm(bt, at, NULL);
        CT_ASSERT_OK(r2);
        CT_ASSERT_VALUES(r2, 0, 10, 28, 13, 40);
        ct_tensor_decref(r2);
        ct_tensor_decref(at);
        ct_tensor_decref(bt);
        ct_tensor_decref(r);
        ct_tensor_decref(a);
        ct_tensor_decref(b);
    }
}

TEST_IMPL(linalg_matmul_ranks)
{
    ct_tensor *v3 = ct_test_iota(CT_DTYPE_FLOAT32, 1, (int64_t[]){3});
    ct_tensor *m23 = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *m34 = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){3, 4});
    ct_tensor *b234 = ct_test_iota(CT_DTYPE_FLOAT32, 3, (int64_t[]){2, 3, 4});
    ct_tensor *c1 = ct_test_iota(CT_DTYPE_FLOAT32, 4, (int64_t[]){5, 1, 2, 3});
    CT_ASSERT_OK(v3);
    CT_ASSERT_OK(m23);
    CT_ASSERT_OK(m34);
    CT_ASSERT_OK(b234);
    CT_ASSERT_OK(c1);
    ct_tensor *r = ct_matmul(v3, v3, NULL);             /* dot */
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 0);
    CT_ASSERT_VALUES(r, 0, 5);
    ct_tensor_decref(r);
    r = ct_matmul(m23, v3, NULL);                       /* mv */
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 1, 2);
    CT_ASSERT_VALUES(r, 0, 5, 14);
    ct_tensor_decref(r);
    r = ct_matmul(v3, m34, NULL);                       /* row @ matrix */
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 1, 4);
    CT_ASSERT_VALUES(r, 0, 20, 23, 26, 29);
    ct_tensor_decref(r);
    r = ct_matmul(m23, b234, NULL);                     /* matrix @ batch */
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 3, 2, 2, 4);
    CT_ASSERT_STRIDES(r, 3, 8, 4, 1);
    ct_tensor_decref(r);
    r = ct_matmul(c1, b234, NULL);                      /* broadcast batch */
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 4, 5, 2, 2, 4);
    ct_tensor_decref(r);
    r = ct_matmul(b234, m34, NULL);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied "
                    "(6x4 and 3x4)");
    ct_tensor *s = ct_scalar_tensor(ct_scalar_float(1.0));
    CT_ASSERT_OK(s);
    CT_ASSERT_TRUE(ct_matmul(s, v3, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, "
                    "but they are 0D and 1D");
    ct_tensor_decref(s);
    ct_tensor_decref(v3);
    ct_tensor_decref(m23);
    ct_tensor_decref(m34);
    ct_tensor_decref(b234);
    ct_tensor_decref(c1);
}

TEST_IMPL(linalg_errors)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){4, 5});
    ct_tensor *d = ct_test_iota(CT_DTYPE_FLOAT64, 2, (int64_t[]){3, 4});
    ct_tensor *bl = ct_test_iota(CT_DTYPE_BOOL, 2, (int64_t[]){3, 4});
    ct_tensor *ab = ct_test_iota(CT_DTYPE_BOOL, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(d);
    CT_ASSERT_OK(bl);
    CT_ASSERT_OK(ab);
    CT_ASSERT_TRUE(ct_mm(a, b, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied "
                    "(2x3 and 4x5)");
    CT_ASSERT_TRUE(ct_mm(a, d, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "expected scalar type Float but found Double");
    CT_ASSERT_TRUE(ct_mm(ab, bl, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"addmm_impl_cpu_\" not implemented for 'Bool'");
    CT_ASSERT_TRUE(ct_bmm(a, b, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    CT_ASSERT_TRUE(ct_dot(a, a, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "1D tensors expected, but got 2D and 2D tensors");
    CT_ASSERT_TRUE(ct_trace(bl) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"trace\" not implemented for 'Bool'");
    ct_tensor *out = ct_empty(1, (int64_t[]){1}, CT_DTYPE_INT64, ct_device_cpu());
    CT_ASSERT_OK(out);
    CT_ASSERT_TRUE(ct_mm(a, a, out) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied "
                    "(2x3 and 2x3)");
    ct_tensor *at = ct_transpose(a, 0, 1);
    CT_ASSERT_OK(at);
    CT_ASSERT_TRUE(ct_mm(a, at, out) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Expected out tensor to have dtype float, but got "
                    "long int instead");
    ct_tensor_decref(at);
    ct_tensor_decref(out);
    ct_tensor_decref(a);
    ct_tensor_decref(b);
    ct_tensor_decref(d);
    ct_tensor_decref(bl);
    ct_tensor_decref(ab);
}

TEST_IMPL(linalg_add_products)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT64, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT64, 2, (int64_t[]){3, 2});
    ct_tensor *self = ct_test_vec(CT_DTYPE_FLOAT64, 2, (double[]){1, -1});
    ct_tensor *nan = ct_full(2, (int64_t[]){2, 2}, ct_scalar_float(NAN),
                             CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(self);
    CT_ASSERT_OK(nan);
    /* 2 * [1 -1] + 0.5 * [[10 13] [28 40]] */
    ct_tensor *r = ct_addmm(self, a, b, ct_scalar_int(2), ct_scalar_float(0.5), NULL,
                            CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 7, 4.5, 16, 18);
    ct_tensor_decref(r);
    r = ct_addmm(nan, a, b, ct_scalar_int(0), ct_scalar_int(1), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 10, 13, 28, 40);             /* beta 0 drops NaN */
    ct_tensor_decref(r);
    /* in place: nan is self, its values are ignored */
    r = ct_addmm(nan, a, b, ct_scalar_int(0), ct_scalar_int(-1), nan, CT_OUT_INPLACE);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(r == nan);
    CT_ASSERT_VALUES(nan, 0, -10, -13, -28, -40);
    ct_tensor_decref(r);
    ct_tensor *v = ct_test_vec(CT_DTYPE_FLOAT64, 3, (double[]){1, 1, 1});
    CT_ASSERT_OK(v);
    r = ct_addmv(self, a, v, ct_scalar_int(1), ct_scalar_int(1), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 4, 11);
    ct_tensor_decref(r);
    r = ct_outer(self, v, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 2, 3);
    CT_ASSERT_VALUES(r, 0, 1, 1, 1, -1, -1, -1);
    ct_tensor_decref(r);
    ct_tensor_decref(v);
    ct_tensor_decref(a);
    ct_tensor_decref(b);
    ct_tensor_decref(self);
    ct_tensor_decref(nan);
}

TEST_IMPL(linalg_tri_diag_trace)
{
    ct_tensor *m = ct_test_iota(CT_DTYPE_INT32, 2, (int64_t[]){3, 3});
    CT_ASSERT_OK(m);
    ct_tensor *r = ct_tril(m, 0, NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 0, 0, 3, 4, 0, 6, 7, 8);
    ct_tensor_decref(r);
    r = ct_triu(m, 1, NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 1, 2, 0, 0, 5, 0, 0, 0);
    ct_tensor_decref(r);
    r = ct_diag(m, -1, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 1, 2);
    CT_ASSERT_VALUES(r, 0, 3, 7);
    ct_tensor *sq = ct_diag(r, 1, NULL);
    CT_ASSERT_OK(sq);
    CT_ASSERT_SHAPE(sq, 2, 3, 3);
    CT_ASSERT_VALUES(sq, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0);
    ct_tensor_decref(sq);
    ct_tensor_decref(r);
    r = ct_trace(m);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 12);
    ct_tensor_decref(r);
    ct_tensor_decref(m);
}

TEST_IMPL(linalg_einsum)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){3, 2});
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    const ct_tensor *ab[2] = {a, b};
    ct_tensor *r = ct_einsum("ij,jk->ik", 2, ab);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 10, 13, 28, 40);
    ct_tensor_decref(r);
    r = ct_einsum("ij->ji", 1, ab);                     /* a view, as in torch */
    CT_ASSERT_OK(r);
    CT_ASSERT_STRIDES(r, 2, 1, 3);
    CT_ASSERT_TRUE(r->storage == a->storage);
    ct_tensor_decref(r);
    r = ct_einsum("ij->", 1, ab);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 15);
    ct_tensor_decref(r);
    CT_ASSERT_TRUE(ct_einsum("ij,jk->ik", 1, ab) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "einsum(): fewer operands were provided than "
                    "specified in the equation");
    const ct_tensor *aa[2] = {a, a};
    CT_ASSERT_TRUE(ct_einsum("ij,jk->ik", 2, aa) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "einsum(): subscript j has size 2 for operand 1 "
                    "which does not broadcast with previously seen size 3");
    ct_tensor_decref(a);
    ct_tensor_decref(b);
}

TEST_IMPL(linalg_svdvals_norms)
{
    /* [[0 -4] [3 0]]: singular values 4 and 3, row sums 4 and 3, column
     * sums 3 and 4 */
    static const struct {
        const char *str;
        double p, want;
    } ords[] = {
        {"fro", 0, 5}, {"nuc", 0, 7}, {NULL, INFINITY, 4}, {NULL, -INFINITY, 3},
        {NULL, 1, 4},  {NULL, -1, 3}, {NULL, 2, 4},        {NULL, -2, 3},
    };
    static const int64_t last_two[2] = {-2, -1};
    const ct_dtype dts[] = {CT_DTYPE_FLOAT32, CT_DTYPE_FLOAT64};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        ct_tensor *a = ct_test_tensor(dts[i], 2, (int64_t[]){2, 2},
                                      (double[]){0, -4, 3, 0});
        CT_ASSERT_OK(a);
        ct_tensor *s = ct_linalg_svdvals(a, NULL);
        CT_ASSERT_OK(s);
        CT_ASSERT_EQ_INT(s->dtype, dts[i]);
        CT_ASSERT_VALUES(s, 1e-6, 4, 3);
        ct_tensor_decref(s);
        for (size_t k = 0; k < sizeof ords / sizeof ords[0]; k++) {
            ct_norm_ord ord = {ords[k].str, ords[k].p};
            ct_tensor *r = ct_linalg_matrix_norm(a, ord, 2, last_two, false,
                                                 CT_DTYPE_COUNT, NULL);
            CT_ASSERT_OK(r);
            CT_ASSERT_SHAPE(r, 0, 0);
            CT_ASSERT_VALUES(r, 1e-6, ords[k].want);
            ct_tensor_decref(r);
        }
        ct_tensor_decref(a);
    }
    /* a batch of two, one of them transposed through the dims */
    ct_tensor *b = ct_test_tensor(CT_DTYPE_FLOAT64, 3, (int64_t[]){2, 2, 2},
                                  (double[]){0, -4, 3, 0, 2, 0, 0, 1});
    CT_ASSERT_OK(b);
    ct_tensor *r = ct_linalg_svdvals(b, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 2, 2);
    CT_ASSERT_VALUES(r, 1e-12, 4, 3, 2, 1);
    ct_tensor_decref(r);
    r = ct_nuclear_norm(b, 2, (int64_t[]){2, 1}, true);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 3, 2, 1, 1);
    CT_ASSERT_VALUES(r, 1e-12, 7, 3);
    ct_tensor_decref(r);
    /* errors: dtype, order, rank, NaN (torch.linalg.LinAlgError) */
    ct_tensor *n = ct_test_tensor(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 2},
                                  (double[]){NAN, 1, 1, 1});
    ct_tensor *i = ct_test_iota(CT_DTYPE_INT32, 2, (int64_t[]){2, 2});
    CT_ASSERT_OK(n);
    CT_ASSERT_OK(i);
    CT_ASSERT_TRUE(ct_linalg_svdvals(i, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "linalg.svd: Expected a floating point or complex "
                    "tensor as input. Got Int");
    CT_ASSERT_TRUE(ct_linalg_matrix_norm(b, (ct_norm_ord){NULL, 3}, 2, last_two, false,
                                         CT_DTYPE_COUNT, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "linalg.matrix_norm: Order 3 not supported.");
    CT_ASSERT_TRUE(ct_nuclear_norm(b, 0, NULL, false) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Expected a tensor with 2 dimensions, but got a "
                    "tensor with 3 dimensions instead.");
    CT_ASSERT_TRUE(ct_linalg_svdvals(n, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_LINALG, "linalg.svd: The algorithm failed to converge "
                    "because the input matrix contained non-finite values.");
    ct_tensor_decref(i);
    ct_tensor_decref(n);
    ct_tensor_decref(b);
}
