/* tests/c/test_pointwise_ternary.c -- ct_addcmul / ct_addcdiv: values with
 * PyTorch's rounding (Note [addcmul rounding]), broadcasting, promotion,
 * the in-place and out= modes, and PyTorch's errors. */
#include <math.h>

#include "tests/c/test.h"

TEST_IMPL(ternary_values)
{
    ct_tensor *s = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){1, 2, 3});
    ct_tensor *c = ct_test_tensor(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 1},
                                  (double[]){2, 4});
    CT_ASSERT_OK(s);
    CT_ASSERT_OK(c);
    /* [3] + 2 * [3] * [2,1] */
    ct_tensor *r = ct_addcmul(s, s, c, ct_scalar_int(2), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 2, 3);
    CT_ASSERT_VALUES(r, 0, 5, 10, 15, 9, 18, 27);
    ct_tensor_decref(r);
    r = ct_addcdiv(s, s, c, ct_scalar_float(0.5), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 1.25, 2.5, 3.75, 1.125, 2.25, 3.375);
    ct_tensor_decref(r);

    /* one rounding: fma(value * t1, t2, self), as PyTorch's AVX2 kernel */
    float a = 1.0f + 0x1p-12f, v = 1.0f, base = -1.0f;
    ct_tensor *ta = ct_test_vec(CT_DTYPE_FLOAT32, 1, (double[]){a});
    ct_tensor *tb = ct_test_vec(CT_DTYPE_FLOAT32, 1, (double[]){base});
    CT_ASSERT_OK(ta);
    CT_ASSERT_OK(tb);
    r = ct_addcmul(tb, ta, ta, ct_scalar_float(v), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(*(float *)ct_tensor_data(r) == fmaf(v * a, a, base));
    CT_ASSERT_TRUE(*(float *)ct_tensor_data(r) != (v * a) * a + base);
    ct_tensor_decref(r);

    /* integers wrap; value converts to the integer type */
    ct_tensor *u = ct_test_vec(CT_DTYPE_UINT8, 3, (double[]){100, 2, 3});
    CT_ASSERT_OK(u);
    r = ct_addcmul(u, u, u, ct_scalar_int(3), NULL, CT_OUT_NEW);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_UINT8);
    CT_ASSERT_VALUES(r, 0, 148, 14, 30);
    ct_tensor_decref(r);

    ct_tensor_decref(u);
    ct_tensor_decref(ta);
    ct_tensor_decref(tb);
    ct_tensor_decref(s);
    ct_tensor_decref(c);
}

TEST_IMPL(ternary_modes_and_errors)
{
    ct_tensor *s = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){1, 2, 3});
    ct_tensor *i = ct_test_vec(CT_DTYPE_INT64, 3, (double[]){1, 2, 3});
    ct_tensor *x = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){1, 1, 1});
    CT_ASSERT_OK(s);
    CT_ASSERT_OK(i);
    CT_ASSERT_OK(x);
    /* in place: the result is x itself */
    ct_tensor *r = ct_addcmul(x, s, i, ct_scalar_float(0.5), x, CT_OUT_INPLACE);
    CT_ASSERT_TRUE(r == x);
    CT_ASSERT_VALUES(x, 0, 1.5, 3, 5.5);
    ct_tensor_decref(r);
    /* computed in float32, written to a float64 out */
    ct_tensor *o = ct_empty(1, (int64_t[]){3}, CT_DTYPE_FLOAT64, ct_device_cpu());
    CT_ASSERT_OK(o);
    r = ct_addcdiv(s, s, s, ct_scalar_int(1), o, CT_OUT_GIVEN);
    CT_ASSERT_TRUE(r == o);
    CT_ASSERT_VALUES(o, 0, 2, 3, 4);
    ct_tensor_decref(r);

    CT_ASSERT_TRUE(ct_addcdiv(s, i, i, ct_scalar_int(1), NULL, CT_OUT_NEW) == NULL);
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_RUNTIME);
    CT_ASSERT_TRUE(ct_addcmul(i, s, s, ct_scalar_int(1), i, CT_OUT_INPLACE) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "result type Float can't be cast to the desired "
                    "output type Long");
    ct_tensor *h = ct_to_dtype(s, CT_DTYPE_FLOAT16, false);
    CT_ASSERT_OK(h);
    CT_ASSERT_TRUE(ct_addcmul(h, h, h, ct_scalar_int(1), NULL, CT_OUT_NEW) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"addcmul_cpu_out\" not implemented for 'Half'");
    r = ct_addcmul(s, s, s, ct_scalar_float(1e40), NULL, CT_OUT_NEW);
    CT_ASSERT_TRUE(r == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "value cannot be converted to type float without "
                    "overflow");
    ct_tensor_decref(h);
    ct_tensor_decref(o);
    ct_tensor_decref(s);
    ct_tensor_decref(i);
    ct_tensor_decref(x);
}
