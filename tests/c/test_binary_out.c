/* tests/c/test_binary_out.c -- ct_binary's in-place (CT_OUT_INPLACE) and
 * out= (CT_OUT_GIVEN) modes: casting rules, shape checks, resizing with
 * PyTorch's warning, strided outputs. */
#include "tests/c/test.h"

TEST_IMPL(binary_inplace)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){10, 20, 30});
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    void *data = a->storage->data;
    ct_tensor *r = ct_binary(CT_BINARY_ADD, a, b, ct_scalar_int(1), a, CT_OUT_INPLACE);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(r == a);
    CT_ASSERT_EQ_INT(atomic_load(&a->refcnt), 2);
    CT_ASSERT_TRUE(a->storage->data == data);
    CT_ASSERT_VALUES(a, 0, 10, 21, 32, 13, 24, 35);
    ct_tensor_decref(r);

    /* a float32 += int64 is fine; the int64 is converted */
    ct_tensor *l = ct_test_vec(CT_DTYPE_INT64, 3, (double[]){1, 2, 3});
    CT_ASSERT_OK(l);
    r = ct_binary(CT_BINARY_MUL, a, l, ct_scalar_int(1), a, CT_OUT_INPLACE);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(a, 0, 10, 42, 96, 13, 48, 105);
    ct_tensor_decref(r);

    /* int64 += float: the result type cannot be written back */
    r = ct_binary(CT_BINARY_ADD, l, b, ct_scalar_int(1), l, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Float can't be cast to the desired "
                    "output type Long");
    ct_tensor *wf = ct_scalar_tensor(ct_scalar_float(2.5));
    CT_ASSERT_OK(wf);
    r = ct_binary(CT_BINARY_ADD, l, wf, ct_scalar_int(1), l, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Float can't be cast to the desired "
                    "output type Long");
    r = ct_binary(CT_BINARY_DIV, l, l, ct_scalar_int(1), l, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == NULL);              /* true division of longs */
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Float can't be cast to the desired "
                    "output type Long");
    CT_ASSERT_VALUES(l, 0, 1, 2, 3);        /* untouched */

    /* the in-place operand cannot grow */
    r = ct_binary(CT_BINARY_ADD, b, a, ct_scalar_int(1), b, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "output with shape [3] doesn't match the "
                    "broadcast shape [2, 3]");

    ct_tensor *bo = ct_test_vec(CT_DTYPE_BOOL, 3, (double[]){1, 0, 1});
    CT_ASSERT_OK(bo);
    r = ct_binary(CT_BINARY_ADD, bo, l, ct_scalar_int(1), bo, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Long can't be cast to the desired "
                    "output type Bool");
    ct_tensor_decref(bo);

    /* a half += float32: computed in float32, written back as half */
    ct_tensor *h = ct_test_vec(CT_DTYPE_FLOAT16, 3, (double[]){1, 2, 2048});
    ct_tensor *x = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){0.5, 0.1, 1});
    CT_ASSERT_OK(h);
    CT_ASSERT_OK(x);
    r = ct_binary(CT_BINARY_ADD, h, x, ct_scalar_int(1), h, CT_OUT_INPLACE);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(h->dtype, CT_DTYPE_FLOAT16);
    CT_ASSERT_VALUES(h, 0, 1.5, 2.099609375, 2048);       /* 2049 ties to 2048 */
    ct_tensor_decref(r);
    ct_tensor_decref(x);
    ct_tensor_decref(h);

    /* in place on a strided view writes only the view's elements */
    ct_tensor *m = ct_zeros(2, (int64_t[]){3, 4}, CT_DTYPE_INT32);
    CT_ASSERT_OK(m);
    ct_tensor *col = ct_select(m, 1, 1);
    CT_ASSERT_OK(col);
    r = ct_binary(CT_BINARY_SUB, col, l, ct_scalar_int(2), col, CT_OUT_INPLACE);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(m, 0, 0, -2, 0, 0, 0, -4, 0, 0, 0, -6, 0, 0);
    ct_tensor_decref(r);
    ct_tensor_decref(col);
    ct_tensor_decref(m);

    ct_tensor_decref(wf);
    ct_tensor_decref(l);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}

TEST_IMPL(binary_out_resize)
{
    char w[1024];
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){10, 20, 30});
    ct_tensor *out = ct_ones(1, (int64_t[]){2}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(out);
    ct_tensor *r = ct_binary(CT_BINARY_ADD, a, b, ct_scalar_int(1), out, CT_OUT_GIVEN);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(r == out);
    CT_ASSERT_SHAPE(out, 2, 2, 3);
    CT_ASSERT_STRIDES(out, 2, 3, 1);
    CT_ASSERT_VALUES(out, 0, 10, 21, 32, 13, 24, 35);
    CT_ASSERT_TRUE(ct_warning_pop(w, sizeof w));
    CT_ASSERT_STR_EQ(w, "An output with one or more elements was resized since it "
                     "had shape [2], which does not match the required output "
                     "shape [2, 3]. This behavior is deprecated, and in a future "
                     "PyTorch release outputs will not be resized unless they have "
                     "zero elements. You can explicitly reuse an out tensor t by "
                     "resizing it, inplace, to zero elements with t.resize_(0).");
    CT_ASSERT_TRUE(!ct_warning_pop(w, sizeof w));
    ct_tensor_decref(r);

    /* the right shape already: no warning; a different dtype: converted */
    ct_tensor *o64 = ct_zeros(2, (int64_t[]){2, 3}, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(o64);
    r = ct_binary(CT_BINARY_MUL, a, b, ct_scalar_int(1), o64, CT_OUT_GIVEN);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(r == o64);
    CT_ASSERT_EQ_INT(o64->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_VALUES(o64, 0, 0, 20, 60, 30, 80, 150);
    CT_ASSERT_TRUE(!ct_warning_pending());
    ct_tensor_decref(r);
    ct_tensor_decref(o64);

    /* an empty out is resized silently */
    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(e);
    r = ct_binary(CT_BINARY_SUB, a, b, ct_scalar_int(1), e, CT_OUT_GIVEN);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(e, 2, 2, 3);
    CT_ASSERT_VALUES(e, 0, -10, -19, -28, -7, -16, -25);
    CT_ASSERT_TRUE(!ct_warning_pending());
    ct_tensor_decref(r);
    ct_tensor_decref(e);

    ct_tensor *oi = ct_zeros(2, (int64_t[]){2, 3}, CT_DTYPE_INT32);
    CT_ASSERT_OK(oi);
    CT_ASSERT_TRUE(ct_binary(CT_BINARY_ADD, a, b, ct_scalar_int(1), oi,
                             CT_OUT_GIVEN) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Float can't be cast to the desired "
                    "output type Int");
    ct_tensor_decref(oi);

    /* a transposed out keeps its strides */
    ct_tensor *base = ct_zeros(2, (int64_t[]){3, 2}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(base);
    ct_tensor *ot = ct_transpose(base, 0, 1);
    CT_ASSERT_OK(ot);
    r = ct_binary(CT_BINARY_ADD, a, b, ct_scalar_int(1), ot, CT_OUT_GIVEN);
    CT_ASSERT_OK(r);
    CT_ASSERT_STRIDES(ot, 2, 1, 2);
    CT_ASSERT_VALUES(base, 0, 10, 13, 21, 24, 32, 35);
    ct_tensor_decref(r);
    ct_tensor_decref(ot);
    ct_tensor_decref(base);

    ct_tensor_decref(out);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}
