/* tests/c/test_sort.c -- sorting and selection through the C API: stable
 * sort with NaN and ties, argsort, topk on both selection paths,
 * kthvalue, unique (counting and sorting paths), searchsorted /
 * bucketize, histc, bincount, and PyTorch's error texts. */
#include "tests/c/test.h"

/* Also declared by test_list.h once its entries are added; declared here so
 * that this file builds warning-free (-Wmissing-prototypes) before that. */
void test_sort_stable_nan(void);
void test_sort_dims_and_topk(void);
void test_sort_kthvalue(void);
void test_sort_unique(void);
void test_sort_search_and_count(void);
void test_sort_errors(void);

TEST_IMPL(sort_stable_nan)
{
    const double v[] = {3, 1, NAN, 1, -INFINITY, 3};
    ct_tensor *t = ct_test_vec(CT_DTYPE_FLOAT32, 6, v);
    ct_tensor *vals = NULL, *idx = NULL;
    CT_ASSERT_OK(t);
    CT_ASSERT_RC_OK(ct_sort(t, -1, false, true, &vals, &idx));
    CT_ASSERT_VALUES(vals, 0, -INFINITY, 1, 1, 3, 3, NAN);
    CT_ASSERT_VALUES(idx, 0, 4, 1, 3, 0, 5, 2);
    CT_ASSERT_EQ_INT(idx->dtype, CT_DTYPE_INT64);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    CT_ASSERT_RC_OK(ct_sort(t, 0, true, false, &vals, &idx));
    CT_ASSERT_VALUES(idx, 0, 2, 0, 5, 1, 3, 4);     /* ties keep input order */
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    ct_tensor *a = ct_argsort(t, 0, false, true);
    CT_ASSERT_OK(a);
    CT_ASSERT_VALUES(a, 0, 4, 1, 3, 0, 5, 2);
    ct_tensor_decref(a);
    ct_tensor_decref(t);
}

TEST_IMPL(sort_dims_and_topk)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT32, 2, (int64_t[]){3, 4});
    ct_tensor *tt = ct_transpose(t, 0, 1);          /* [4, 3], non-contiguous */
    ct_tensor *vals = NULL, *idx = NULL;
    CT_ASSERT_OK(t);
    CT_ASSERT_OK(tt);
    CT_ASSERT_RC_OK(ct_sort(tt, 0, true, false, &vals, &idx));
    CT_ASSERT_SHAPE(vals, 2, 4, 3);
    CT_ASSERT_STRIDES(vals, 2, 1, 4);               /* laid out like the input */
    CT_ASSERT_VALUES(vals, 0, 3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8);
    CT_ASSERT_VALUES(idx, 0, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    CT_ASSERT_RC_OK(ct_topk(t, 2, 1, true, true, &vals, &idx));
    CT_ASSERT_SHAPE(vals, 2, 3, 2);
    CT_ASSERT_VALUES(vals, 0, 3, 2, 7, 6, 11, 10);
    CT_ASSERT_VALUES(idx, 0, 3, 2, 3, 2, 3, 2);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    ct_tensor_decref(tt);
    ct_tensor_decref(t);
    /* a long slice: the heap path (k small) and the radix path agree */
    ct_tensor *big = ct_test_iota(CT_DTYPE_FLOAT64, 1, (int64_t[]){5000});
    CT_ASSERT_OK(big);
    CT_ASSERT_RC_OK(ct_topk(big, 3, 0, false, true, &vals, &idx));
    CT_ASSERT_VALUES(vals, 0, 0, 1, 2);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    CT_ASSERT_RC_OK(ct_topk(big, 4000, 0, true, true, &vals, &idx));
    CT_ASSERT_EQ_INT(vals->numel, 4000);
    CT_ASSERT_NEAR(ct_test_at(vals, 0), 4999, 0);
    CT_ASSERT_NEAR(ct_test_at(idx, 3999), 1000, 0);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    ct_tensor_decref(big);
}

TEST_IMPL(sort_kthvalue)
{
    const double v[] = {5, 1, 4, 2, 3, 9};
    ct_tensor *t = ct_test_tensor(CT_DTYPE_INT64, 2, (int64_t[]){2, 3}, v);
    ct_tensor *vals = NULL, *idx = NULL;
    CT_ASSERT_OK(t);
    CT_ASSERT_RC_OK(ct_kthvalue(t, 2, -1, false, &vals, &idx));
    CT_ASSERT_SHAPE(vals, 1, 2);
    CT_ASSERT_VALUES(vals, 0, 4, 3);
    CT_ASSERT_VALUES(idx, 0, 2, 1);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    CT_ASSERT_RC_OK(ct_kthvalue(t, 1, 0, true, &vals, &idx));
    CT_ASSERT_SHAPE(vals, 2, 1, 3);
    CT_ASSERT_VALUES(vals, 0, 2, 1, 4);
    CT_ASSERT_VALUES(idx, 0, 1, 0, 0);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    ct_tensor_decref(t);
    /* large k on a long slice: quickselect */
    ct_tensor *big = ct_test_iota(CT_DTYPE_FLOAT32, 1, (int64_t[]){3000});
    CT_ASSERT_OK(big);
    CT_ASSERT_RC_OK(ct_kthvalue(big, 2000, 0, false, &vals, &idx));
    CT_ASSERT_VALUES(vals, 0, 1999);
    CT_ASSERT_VALUES(idx, 0, 1999);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    ct_tensor_decref(big);
}

TEST_IMPL(sort_unique)
{
    const double v[] = {3, 1, 2, 3, 1, 5};
    const ct_dtype dts[] = {CT_DTYPE_INT64, CT_DTYPE_FLOAT32};   /* counting, sorting */
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        ct_tensor *t = ct_test_vec(dts[i], 6, v);
        ct_tensor *u = NULL, *inv = NULL, *cnt = NULL;
        CT_ASSERT_OK(t);
        CT_ASSERT_RC_OK(ct_unique(t, true, &u, &inv, &cnt));
        CT_ASSERT_EQ_INT(u->dtype, dts[i]);
        CT_ASSERT_VALUES(u, 0, 1, 2, 3, 5);
        CT_ASSERT_VALUES(inv, 0, 2, 0, 1, 2, 0, 3);
        CT_ASSERT_VALUES(cnt, 0, 2, 1, 2, 1);
        ct_tensor_decref(u);
        ct_tensor_decref(inv);
        ct_tensor_decref(cnt);
        CT_ASSERT_RC_OK(ct_unique(t, false, &u, NULL, NULL));
        CT_ASSERT_VALUES(u, 0, 1, 2, 3, 5);
        ct_tensor_decref(u);
        ct_tensor_decref(t);
    }
}

TEST_IMPL(sort_search_and_count)
{
    const double s[] = {1, 3, 5, 7}, q[] = {0, 3, 6, 9};
    ct_tensor *seq = ct_test_vec(CT_DTYPE_INT64, 4, s);
    ct_tensor *vals = ct_test_vec(CT_DTYPE_FLOAT32, 4, q);
    CT_ASSERT_OK(seq);
    CT_ASSERT_OK(vals);
    ct_tensor *r = ct_searchsorted(seq, vals, false, false, NULL);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 0, 1, 3, 4);
    ct_tensor_decref(r);
    r = ct_bucketize(vals, seq, true, true);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT32);
    CT_ASSERT_VALUES(r, 0, 0, 2, 3, 4);
    ct_tensor_decref(r);
    const double h[] = {1, 2, 1, 0.5, 3};
    ct_tensor *x = ct_test_vec(CT_DTYPE_FLOAT64, 5, h);
    CT_ASSERT_OK(x);
    r = ct_histc(x, 4, 0, 4);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_VALUES(r, 0, 1, 2, 1, 1);
    ct_tensor_decref(r);
    ct_tensor_decref(x);
    const double b[] = {1, 2, 1};
    ct_tensor *bi = ct_test_vec(CT_DTYPE_UINT8, 3, b);
    CT_ASSERT_OK(bi);
    r = ct_bincount(bi, NULL, 4);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 0, 2, 1, 0);
    ct_tensor_decref(r);
    const double w[] = {0.5, 1, 2};
    ct_tensor *wt = ct_test_vec(CT_DTYPE_FLOAT32, 3, w);
    CT_ASSERT_OK(wt);
    r = ct_bincount(bi, wt, 0);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_VALUES(r, 0, 0, 2.5, 1);
    ct_tensor_decref(r);
    ct_tensor_decref(wt);
    ct_tensor_decref(bi);
    ct_tensor_decref(seq);
    ct_tensor_decref(vals);
}

TEST_IMPL(sort_errors)
{
    const double v[] = {1, 2, 3};
    ct_tensor *t = ct_test_vec(CT_DTYPE_FLOAT32, 3, v);
    ct_tensor *b = ct_test_vec(CT_DTYPE_BOOL, 3, v);
    ct_tensor *vals = NULL, *idx = NULL;
    CT_ASSERT_OK(t);
    CT_ASSERT_OK(b);
    CT_ASSERT_EQ_INT(ct_topk(t, 4, 0, true, true, &vals, &idx), -1);
    CT_ASSERT_TRUE(vals == NULL && idx == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "selected index k out of range");
    CT_ASSERT_EQ_INT(ct_kthvalue(t, 0, 0, false, &vals, &idx), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "kthvalue(): selected number k out of range for "
                    "dimension 0");
    CT_ASSERT_EQ_INT(ct_sort(t, 1, false, false, &vals, &idx), -1);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range of "
                    "[-1, 0], but got 1)");
    CT_ASSERT_EQ_INT(ct_topk(b, 1, 0, true, true, &vals, &idx), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"topk_cpu\" not implemented for 'Bool'");
    CT_ASSERT_TRUE(ct_histc(b, 4, 0, 1) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"histogram_cpu\" not implemented for 'Bool'");
    CT_ASSERT_TRUE(ct_bincount(t, NULL, 0) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"bincount_cpu\" not implemented for 'Float'");
    ct_tensor_decref(t);
    ct_tensor_decref(b);
}
