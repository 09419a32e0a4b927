/* tests/c/test_reduce.c -- the reduction engine through the C API
 * (include/ctorch/ops_reduce.h): dims, keepdim, result dtypes, empty
 * inputs, NaN, the two-result ops, scans, the threaded paths and errors. */
#include "tests/c/test.h"

/* Declared here as well as in test_list.h, so this file builds warning-free
 * before its entries are listed there. */
void test_reduce_sum_mean_dims(void);
void test_reduce_dtypes_and_empty(void);
void test_reduce_max_min_nan(void);
void test_reduce_var_norm(void);
void test_reduce_scans(void);
void test_reduce_large_threaded(void);
void test_reduce_errors(void);

TEST_IMPL(reduce_sum_mean_dims)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 3, (int64_t[]){2, 3, 4});
    CT_ASSERT_OK(a);
    ct_tensor *r = ct_sum(a, 0, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->ndim, 0);
    CT_ASSERT_VALUES(r, 0, 276);
    ct_tensor_decref(r);
    r = ct_sum(a, 2, (int64_t[]){0, -1}, true, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 3, 1, 3, 1);
    CT_ASSERT_VALUES(r, 0, 60, 92, 124);
    ct_tensor_decref(r);
    r = ct_mean(a, 1, (int64_t[]){1}, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 2, 4);
    CT_ASSERT_VALUES(r, 1e-6, 4, 5, 6, 7, 16, 17, 18, 19);
    ct_tensor_decref(r);
    ct_tensor *t = ct_transpose(a, 0, 2);                  /* [4, 3, 2] view */
    CT_ASSERT_OK(t);
    r = ct_sum(t, 1, (int64_t[]){2}, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 4, 3);
    CT_ASSERT_VALUES(r, 0, 12, 20, 28, 14, 22, 30, 16, 24, 32, 18, 26, 34);
    ct_tensor_decref(r);
    int64_t d = 2;
    r = ct_prod(a, &d, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 840, 7920, 32760, 93024, 212520);
    ct_tensor_decref(r);
    ct_tensor_decref(t);
    ct_tensor_decref(a);
}

TEST_IMPL(reduce_dtypes_and_empty)
{
    ct_tensor *b = ct_test_vec(CT_DTYPE_BOOL, 3, (double[]){1, 0, 1});
    ct_tensor *u = ct_test_vec(CT_DTYPE_UINT8, 2, (double[]){1, 2});
    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(u);
    CT_ASSERT_OK(e);
    ct_tensor *r = ct_sum(b, 0, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 2);
    ct_tensor_decref(r);
    r = ct_all(u, 0, NULL, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_UINT8);         /* as torch 1.13 */
    CT_ASSERT_VALUES(r, 0, 1);
    ct_tensor_decref(r);
    r = ct_any(b, 0, NULL, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_BOOL);
    ct_tensor_decref(r);
    r = ct_count_nonzero(b, 0, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 2);
    ct_tensor_decref(r);
    r = ct_sum(u, 0, NULL, false, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT64);
    ct_tensor_decref(r);
    r = ct_sum(e, 0, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0);
    ct_tensor_decref(r);
    r = ct_prod(e, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 1);
    ct_tensor_decref(r);
    r = ct_mean(e, 0, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, NAN);
    ct_tensor_decref(r);
    ct_tensor_decref(e);
    ct_tensor_decref(u);
    ct_tensor_decref(b);
}

TEST_IMPL(reduce_max_min_nan)
{
    ct_tensor *a = ct_test_tensor(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3},
                                  (double[]){1, 5, 3, 4, NAN, 6});
    CT_ASSERT_OK(a);
    ct_tensor *v = NULL, *i = NULL;
    CT_ASSERT_RC_OK(ct_max_dim(a, 1, false, &v, &i));
    CT_ASSERT_VALUES(v, 0, 5, NAN);
    CT_ASSERT_VALUES(i, 0, 1, 1);
    CT_ASSERT_EQ_INT(i->dtype, CT_DTYPE_INT64);
    ct_tensor_decref(v);
    ct_tensor_decref(i);
    CT_ASSERT_RC_OK(ct_min_dim(a, 0, true, &v, &i));
    CT_ASSERT_SHAPE(v, 2, 1, 3);
    CT_ASSERT_VALUES(v, 0, 1, NAN, 3);
    CT_ASSERT_VALUES(i, 0, 0, 1, 0);
    ct_tensor_decref(v);
    ct_tensor_decref(i);
    ct_tensor *r = ct_max(a);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, NAN);
    ct_tensor_decref(r);
    r = ct_argmin(a, NULL, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 4);
    ct_tensor_decref(r);
    r = ct_amax(a, 1, (int64_t[]){0}, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 4, NAN, 6);
    ct_tensor_decref(r);
    ct_tensor_decref(a);
}

TEST_IMPL(reduce_var_norm)
{
    ct_tensor *a = ct_test_vec(CT_DTYPE_FLOAT64, 4, (double[]){1, 2, 3, 4});
    CT_ASSERT_OK(a);
    ct_tensor *r = ct_var(a, 0, NULL, 1, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 1e-12, 5.0 / 3.0);
    ct_tensor_decref(r);
    r = ct_std(a, 0, NULL, 0, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 1e-12, sqrt(1.25));
    ct_tensor_decref(r);
    ct_tensor *s = NULL, *m = NULL;
    CT_ASSERT_RC_OK(ct_var_mean(a, 0, NULL, 1, false, true, &s, &m));
    CT_ASSERT_VALUES(m, 0, 2.5);
    ct_tensor_decref(s);
    ct_tensor_decref(m);
    r = ct_vector_norm(a, 2, 0, NULL, false, CT_DTYPE_COUNT, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 1e-12, sqrt(30.0));
    ct_tensor_decref(r);
    r = ct_vector_norm(a, INFINITY, 0, NULL, false, CT_DTYPE_COUNT, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 4);
    ct_tensor_decref(r);
    r = ct_logsumexp(a, 1, (int64_t[]){0}, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 1e-12, log(exp(1) + exp(2) + exp(3) + exp(4)));
    ct_tensor_decref(r);
    ct_tensor_decref(a);
}

TEST_IMPL(reduce_scans)
{
    ct_tensor *a = ct_test_tensor(CT_DTYPE_INT32, 2, (int64_t[]){2, 3},
                                  (double[]){1, 3, 2, 4, 4, 1});
    CT_ASSERT_OK(a);
    ct_tensor *r = ct_cumsum(a, 1, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 1, 4, 6, 4, 8, 9);
    ct_tensor_decref(r);
    r = ct_cumprod(a, 0, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 1, 3, 2, 4, 12, 2);
    ct_tensor_decref(r);
    ct_tensor *v = NULL, *i = NULL;
    CT_ASSERT_RC_OK(ct_cummax(a, 1, &v, &i));
    CT_ASSERT_VALUES(v, 0, 1, 3, 3, 4, 4, 4);
    CT_ASSERT_VALUES(i, 0, 0, 1, 1, 0, 1, 1);
    ct_tensor_decref(v);
    ct_tensor_decref(i);
    CT_ASSERT_RC_OK(ct_median_dim(a, 1, false, &v, &i));
    CT_ASSERT_VALUES(v, 0, 2, 4);
    ct_tensor_decref(v);
    ct_tensor_decref(i);
    CT_ASSERT_RC_OK(ct_mode(a, 1, false, &v, &i));
    CT_ASSERT_VALUES(v, 0, 1, 4);
    CT_ASSERT_VALUES(i, 0, 0, 1);
    ct_tensor_decref(v);
    ct_tensor_decref(i);
    ct_tensor *f = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){1, 2, 3});
    CT_ASSERT_OK(f);
    r = ct_softmax(f, 0, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 1e-6, 0.09003057, 0.24472847, 0.66524096);
    ct_tensor_decref(r);
    r = ct_log_softmax(f, -1, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_VALUES(r, 1e-8, -2.40760596, -1.40760596, -0.40760596);
    ct_tensor_decref(r);
    ct_tensor_decref(f);
    ct_tensor_decref(a);
}

TEST_IMPL(reduce_large_threaded)
{
    int64_t n = 1 << 22;
    ct_tensor *a = ct_full(1, &n, ct_scalar_float(0.5), CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(a);
    ct_tensor *r = ct_sum(a, 0, NULL, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, (double)n / 2);
    ct_tensor_decref(r);
    ct_tensor *m = ct_reshape(a, 2, (int64_t[]){2048, 2048});
    CT_ASSERT_OK(m);
    r = ct_sum(m, 1, (int64_t[]){0}, false, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_NEAR(ct_test_at(r, 2047), 1024, 0);
    ct_tensor_decref(r);
    r = ct_amax(m, 1, (int64_t[]){-1}, false);
    CT_ASSERT_OK(r);
    CT_ASSERT_NEAR(ct_test_at(r, 5), 0.5, 0);
    ct_tensor_decref(r);
    r = ct_cumsum(a, 0, CT_DTYPE_COUNT);
    CT_ASSERT_OK(r);
    CT_ASSERT_NEAR(ct_test_at(r, n - 1), (double)n / 2, 0);
    ct_tensor_decref(r);
    ct_tensor_decref(m);
    ct_tensor_decref(a);
}

TEST_IMPL(reduce_errors)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_INT64, 2, (int64_t[]){2, 3});
    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(e);
    CT_ASSERT_TRUE(ct_sum(a, 1, (int64_t[]){2}, false, CT_DTYPE_COUNT) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-2, 1], but got 2)");
    CT_ASSERT_TRUE(ct_sum(a, 2, (int64_t[]){1, -1}, false, CT_DTYPE_COUNT) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "dim 1 appears multiple times in the list of dims");
    CT_ASSERT_TRUE(ct_mean(a, 0, NULL, false, CT_DTYPE_COUNT) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "mean(): could not infer output dtype. Input dtype "
                    "must be either a floating point or complex dtype. Got: Long");
    CT_ASSERT_TRUE(ct_max(e) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "max(): Expected reduction dim to be specified for "
                    "input.numel() == 0. Specify the reduction dim with the 'dim' "
                    "argument.");
    ct_tensor *v = NULL, *i = NULL;
    CT_ASSERT_TRUE(ct_max_dim(e, 0, false, &v, &i) < 0);
    CT_ASSERT_TRUE(v == NULL && i == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "max(): Expected reduction dim 0 to have non-zero "
                    "size.");
    CT_ASSERT_TRUE(ct_softmax(a, 1, CT_DTYPE_COUNT) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"softmax_lastdim_kernel_impl\" not implemented "
                    "for 'Long'");
    CT_ASSERT_TRUE(ct_var(a, 0, NULL, 1, false) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "std and var only support floating point and "
                    "complex dtypes");
    ct_tensor_decref(e);
    ct_tensor_decref(a);
}
