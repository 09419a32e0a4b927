/* tests/c/test_quantize.c -- quantize_per_tensor, int_repr, dequantize. */
#include "tests/c/test.h"

TEST_IMPL(quantize_round_trip)
{
    int64_t n = 6;
    ct_tensor *x = ct_test_tensor(CT_DTYPE_FLOAT32, 1, &n,
                                  (double[]){-1.0, 0.0, 0.5, 1.0, 2.0, 100.0});
    CT_ASSERT_OK(x);
    ct_tensor *q = ct_quantize_per_tensor(x, 0.1, 10, CT_DTYPE_QUINT8);
    CT_ASSERT_OK(q);
    CT_ASSERT_EQ_INT(q->dtype, CT_DTYPE_QUINT8);
    CT_ASSERT_NEAR(q->q_scale, 0.1, 0);
    CT_ASSERT_EQ_INT(q->q_zero_point, 10);
    CT_ASSERT_SHAPE(q, 1, 6);
    ct_tensor *r = ct_int_repr(q);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_UINT8);
    CT_ASSERT_TRUE(r->storage != q->storage);
    CT_ASSERT_VALUES(r, 0, 0, 10, 15, 20, 30, 255);       /* 100 clamps */
    ct_tensor *d = ct_dequantize(q);
    CT_ASSERT_OK(d);
    CT_ASSERT_EQ_INT(d->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_VALUES(d, 1e-6, -1.0, 0.0, 0.5, 1.0, 2.0, 24.5);
    /* quantizing the dequantized values gives the same integers */
    ct_tensor *q2 = ct_quantize_per_tensor(d, 0.1, 10, CT_DTYPE_QUINT8);
    CT_ASSERT_OK(q2);
    ct_tensor *r2 = ct_int_repr(q2);
    CT_ASSERT_OK(r2);
    CT_ASSERT_VALUES(r2, 0, 0, 10, 15, 20, 30, 255);
    ct_tensor_decref(r2);
    ct_tensor_decref(q2);

    /* a view of a quantized tensor keeps scale and zero point */
    ct_tensor *v = ct_narrow(q, 0, 2, 3);
    CT_ASSERT_OK(v);
    CT_ASSERT_EQ_INT(v->dtype, CT_DTYPE_QUINT8);
    CT_ASSERT_NEAR(v->q_scale, 0.1, 0);
    CT_ASSERT_EQ_INT(v->q_zero_point, 10);
    ct_tensor *dv = ct_dequantize(v);
    CT_ASSERT_OK(dv);
    CT_ASSERT_VALUES(dv, 1e-6, 0.5, 1.0, 2.0);
    ct_tensor_decref(dv);
    ct_tensor_decref(v);

    /* long enough for the vectorised dequantization path (32 per block) */
    int64_t m = 77;
    ct_tensor *big = ct_test_iota(CT_DTYPE_FLOAT32, 1, &m);
    CT_ASSERT_OK(big);
    ct_tensor *qb = ct_quantize_per_tensor(big, 0.5, -20, CT_DTYPE_QINT8);
    CT_ASSERT_OK(qb);
    ct_tensor *rb = ct_int_repr(qb);
    ct_tensor *db = ct_dequantize(qb);
    CT_ASSERT_OK(rb);
    CT_ASSERT_OK(db);
    for (int64_t i = 0; i < m; i++) {
        int64_t want = -20 + 2 * i > 127 ? 127 : -20 + 2 * i;
        CT_ASSERT_NEAR(ct_test_at(rb, i), want, 0);
        CT_ASSERT_NEAR(ct_test_at(db, i), (want + 20) * 0.5, 0);
    }
    ct_tensor_decref(db);
    ct_tensor_decref(rb);
    ct_tensor_decref(qb);
    ct_tensor_decref(big);

    /* dequantize of a float tensor is the tensor itself */
    ct_tensor *same = ct_dequantize(x);
    CT_ASSERT_TRUE(same == x);
    ct_tensor_decref(same);

    ct_tensor_decref(d);
    ct_tensor_decref(r);
    ct_tensor_decref(q);
    ct_tensor_decref(x);
}

TEST_IMPL(quantize_rounding_and_clamp)
{
    int64_t n = 6;
    ct_tensor *x = ct_test_tensor(CT_DTYPE_FLOAT32, 1, &n,
                                  (double[]){2.5, 3.5, -2.5, 0.49, -1000, 1000});
    CT_ASSERT_OK(x);
    ct_tensor *q = ct_quantize_per_tensor(x, 1.0, 0, CT_DTYPE_QINT8);
    CT_ASSERT_OK(q);
    ct_tensor *r = ct_int_repr(q);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT8);
    CT_ASSERT_VALUES(r, 0, 2, 4, -2, 0, -128, 127);        /* half to even */
    ct_tensor_decref(r);
    ct_tensor_decref(q);

    q = ct_quantize_per_tensor(x, 0.5, 3, CT_DTYPE_QINT32);
    CT_ASSERT_OK(q);
    r = ct_int_repr(q);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT32);
    CT_ASSERT_VALUES(r, 0, 8, 10, -2, 4, -1997, 2003);
    ct_tensor *d = ct_dequantize(q);
    CT_ASSERT_OK(d);
    CT_ASSERT_VALUES(d, 0, 2.5, 3.5, -2.5, 0.5, -1000, 1000);
    ct_tensor_decref(d);
    ct_tensor_decref(r);
    ct_tensor_decref(q);

    /* quantizing a transposed tensor reads it in logical order */
    ct_tensor *m = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(m);
    ct_tensor *mt = ct_transpose(m, 0, 1);
    CT_ASSERT_OK(mt);
    q = ct_quantize_per_tensor(mt, 1.0, 100, CT_DTYPE_QUINT8);
    CT_ASSERT_OK(q);
    CT_ASSERT_SHAPE(q, 2, 3, 2);
    r = ct_int_repr(q);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 100, 103, 101, 104, 102, 105);
    d = ct_dequantize(q);
    CT_ASSERT_OK(d);
    CT_ASSERT_VALUES(d, 0, 0, 3, 1, 4, 2, 5);
    ct_tensor_decref(d);
    ct_tensor_decref(r);
    ct_tensor_decref(q);
    ct_tensor_decref(mt);
    ct_tensor_decref(m);
    ct_tensor_decref(x);
}

TEST_IMPL(quantize_errors)
{
    ct_tensor *i = ct_ones(1, (int64_t[]){2}, CT_DTYPE_INT32);
    ct_tensor *f = ct_ones(1, (int64_t[]){2}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(i);
    CT_ASSERT_OK(f);
    CT_ASSERT_TRUE(ct_quantize_per_tensor(i, 1.0, 0, CT_DTYPE_QINT8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Quantize only works on Float Tensor, got Int");
    CT_ASSERT_TRUE(ct_quantize_per_tensor(f, 1.0, 0, CT_DTYPE_INT8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Quantize: unsupported dtype Char; expected one "
                    "of QInt8, QUInt8, QInt32");
    CT_ASSERT_TRUE(ct_quantize_per_tensor(f, 1.0, 256, CT_DTYPE_QUINT8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "quantize_tensor_per_tensor_affine zero_point 256 "
                    "is above upper bound.");
    CT_ASSERT_TRUE(ct_quantize_per_tensor(f, 1.0, -129, CT_DTYPE_QINT8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "quantize_tensor_per_tensor_affine zero_point -129 "
                    "is below lower bound.");
    CT_ASSERT_TRUE(ct_int_repr(f) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "int_repr is only supported for quantized tensors");
    ct_tensor *q = ct_quantize_per_tensor(f, 1.0, 0, CT_DTYPE_QINT8);
    CT_ASSERT_OK(q);
    CT_ASSERT_EQ_INT(ct_fill_(q, ct_scalar_int(0)), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "fill_ is not supported for quantized tensors");
    CT_ASSERT_TRUE(ct_mul(q, q) == NULL);
    CT_ASSERT_TRUE(ct_error_occurred());
    ct_error_clear();
    ct_tensor_decref(q);
    ct_tensor_decref(f);
    ct_tensor_decref(i);
}
