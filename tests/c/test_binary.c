/* tests/c/test_binary.c -- ct_binary add/sub/mul/div: broadcasting, type
 * promotion, alpha, strided inputs and the threaded path (in-place and
 * out= modes are in test_binary_out.c). */
#include "tests/c/test.h"

TEST_IMPL(binary_broadcast)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    ct_tensor *b = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){10, 20, 30});
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    ct_tensor *r = ct_add(a, b, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_SHAPE(r, 2, 2, 3);
    CT_ASSERT_STRIDES(r, 2, 3, 1);
    CT_ASSERT_VALUES(r, 0, 10, 21, 32, 13, 24, 35);
    ct_tensor_decref(r);
    r = ct_sub(b, a, ct_scalar_int(1));                    /* [3] - [2,3] */
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 10, 19, 28, 7, 16, 25);
    ct_tensor_decref(r);

    ct_tensor *c = ct_test_tensor(CT_DTYPE_INT32, 2, (int64_t[]){2, 1},
                                  (double[]){1, 2});
    ct_tensor *d = ct_test_tensor(CT_DTYPE_INT32, 2, (int64_t[]){1, 3},
                                  (double[]){1, 2, 3});
    CT_ASSERT_OK(c);
    CT_ASSERT_OK(d);
    r = ct_mul(c, d);                                      /* outer product */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT32);
    CT_ASSERT_SHAPE(r, 2, 2, 3);
    CT_ASSERT_VALUES(r, 0, 1, 2, 3, 2, 4, 6);
    ct_tensor_decref(r);

    ct_tensor *s = ct_scalar_tensor(ct_scalar_int(5));
    CT_ASSERT_OK(s);
    CT_ASSERT_TRUE(s->flags & CT_TENSOR_WRAPPED_NUMBER);
    r = ct_mul(s, d);                                      /* 0-dim * [1,3] */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT32);
    CT_ASSERT_SHAPE(r, 2, 1, 3);
    CT_ASSERT_VALUES(r, 0, 5, 10, 15);
    ct_tensor_decref(r);

    ct_tensor *e = ct_empty(2, (int64_t[]){0, 3}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(e);
    r = ct_add(e, b, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 0, 3);
    ct_tensor_decref(r);

    ct_tensor *b2 = ct_test_vec(CT_DTYPE_FLOAT32, 2, (double[]){1, 2});
    CT_ASSERT_OK(b2);
    CT_ASSERT_TRUE(ct_add(a, b2, ct_scalar_int(1)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "The size of tensor a (3) must match the size of "
                    "tensor b (2) at non-singleton dimension 1");
    ct_tensor_decref(b2);
    ct_tensor_decref(e);
    ct_tensor_decref(s);
    ct_tensor_decref(d);
    ct_tensor_decref(c);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}

TEST_IMPL(binary_alpha_and_div)
{
    ct_tensor *a = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){10, 20, 30});
    ct_tensor *b = ct_test_vec(CT_DTYPE_FLOAT32, 3, (double[]){1, 2, 3});
    ct_tensor *i = ct_test_vec(CT_DTYPE_INT64, 3, (double[]){7, -7, 1});
    ct_tensor *j = ct_test_vec(CT_DTYPE_INT64, 3, (double[]){2, 2, 3});
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(i);
    CT_ASSERT_OK(j);
    ct_tensor *r = ct_sub(a, b, ct_scalar_int(2));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 8, 16, 24);
    ct_tensor_decref(r);
    r = ct_add(a, b, ct_scalar_float(0.5));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 10.5, 21, 31.5);
    ct_tensor_decref(r);
    r = ct_add(i, j, ct_scalar_int(3));
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT64);
    CT_ASSERT_VALUES(r, 0, 13, -1, 10);
    ct_tensor_decref(r);
    r = ct_sub(i, j, ct_scalar_int(-1));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 9, -5, 4);
    ct_tensor_decref(r);
    CT_ASSERT_TRUE(ct_add(i, j, ct_scalar_float(0.5)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "For integral input tensors, argument alpha must "
                    "not be a floating point number.");
    CT_ASSERT_TRUE(ct_add(a, b, ct_scalar_bool(true)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "Boolean alpha only supported for Boolean results.");

    /* true division: integers divide as the default float dtype */
    r = ct_div(i, j);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_VALUES(r, 0, 3.5, -3.5, (double)(1.0f / 3.0f));
    ct_tensor_decref(r);
    ct_tensor *z = ct_zeros(1, (int64_t[]){3}, CT_DTYPE_INT64);
    ct_tensor *num = ct_test_vec(CT_DTYPE_FLOAT64, 3, (double[]){1, -1, 0});
    CT_ASSERT_OK(z);
    CT_ASSERT_OK(num);
    r = ct_div(num, z);                     /* float64 / int64 -> float64 */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_VALUES(r, 0, INFINITY, -INFINITY, NAN);
    ct_tensor_decref(r);
    r = ct_div(j, z);                       /* integer / 0: inf, no error */
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, INFINITY, INFINITY, INFINITY);
    ct_tensor_decref(r);

    ct_tensor *h = ct_test_vec(CT_DTYPE_FLOAT16, 3, (double[]){0.5, 1.5, 0.1});
    ct_tensor *h2 = ct_test_vec(CT_DTYPE_FLOAT16, 3, (double[]){2, 3, 3});
    CT_ASSERT_OK(h);
    CT_ASSERT_OK(h2);
    r = ct_mul(h, h2);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT16);
    /* 0.0999755859375 * 3 = 0.2999267578125 rounds to half 0.29980468750 */
    CT_ASSERT_VALUES(r, 0, 1, 4.5, 0.2998046875);
    ct_tensor_decref(r);
    r = ct_div(h, h2);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT16);
    CT_ASSERT_VALUES(r, 0, 0.25, 0.5, 0.033325195312500);
    ct_tensor_decref(r);
    ct_tensor_decref(h2);
    ct_tensor_decref(h);
    ct_tensor_decref(num);
    ct_tensor_decref(z);
    ct_tensor_decref(j);
    ct_tensor_decref(i);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}

/* result dtype of a OP b, or CT_DTYPE_COUNT on error */
static ct_dtype
add_dtype(const ct_tensor *a, const ct_tensor *b)
{
    ct_tensor *r = ct_add(a, b, ct_scalar_int(1));
    ct_dtype d = r ? r->dtype : CT_DTYPE_COUNT;
    ct_tensor_decref(r);
    return d;
}

TEST_IMPL(binary_promotion)
{
    int64_t n = 3;
    ct_tensor *i32 = ct_test_vec(CT_DTYPE_INT32, 3, (double[]){0, 1, 2});
    ct_tensor *wf = ct_scalar_tensor(ct_scalar_float(2.5));
    ct_tensor *wi = ct_scalar_tensor(ct_scalar_int(300));
    ct_tensor *wb = ct_scalar_tensor(ct_scalar_bool(true));
    ct_tensor *z64 = ct_full(0, NULL, ct_scalar_int(4), CT_DTYPE_INT64);
    ct_tensor *zf64 = ct_full(0, NULL, ct_scalar_float(0.25), CT_DTYPE_FLOAT64);
    ct_tensor *u8 = ct_test_vec(CT_DTYPE_UINT8, 3, (double[]){200, 250, 1});
    ct_tensor *i8 = ct_test_vec(CT_DTYPE_INT8, 3, (double[]){-100, 10, -1});
    ct_tensor *f16 = ct_ones(1, &n, CT_DTYPE_FLOAT16);
    ct_tensor *bf16 = ct_ones(1, &n, CT_DTYPE_BFLOAT16);
    ct_tensor *i64 = ct_ones(1, &n, CT_DTYPE_INT64);
    ct_tensor *b = ct_ones(1, &n, CT_DTYPE_BOOL);
    CT_ASSERT_OK(i32);
    CT_ASSERT_OK(wf);
    CT_ASSERT_OK(wi);
    CT_ASSERT_OK(wb);
    CT_ASSERT_OK(z64);
    CT_ASSERT_OK(zf64);
    CT_ASSERT_OK(u8);
    CT_ASSERT_OK(i8);
    CT_ASSERT_OK(f16);
    CT_ASSERT_OK(bf16);
    CT_ASSERT_OK(i64);
    CT_ASSERT_OK(b);
    CT_ASSERT_EQ_INT(wf->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_EQ_INT(wi->dtype, CT_DTYPE_INT64);

    /* int32 tensor + Python float -> the default dtype, float32 */
    ct_tensor *r = ct_add(i32, wf, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_VALUES(r, 0, 2.5, 3.5, 4.5);
    ct_tensor_decref(r);
    ct_dtype d;
    CT_ASSERT_RC_OK(ct_result_type(wf, i32, &d));
    CT_ASSERT_EQ_INT(d, CT_DTYPE_FLOAT32);
    CT_ASSERT_RC_OK(ct_set_default_dtype(CT_DTYPE_FLOAT64));
    CT_ASSERT_RC_OK(ct_result_type(i32, wf, &d));
    CT_ASSERT_RC_OK(ct_set_default_dtype(CT_DTYPE_FLOAT32));
    CT_ASSERT_EQ_INT(d, CT_DTYPE_FLOAT64);

    /* a 0-dim tensor of the same category does not promote */
    CT_ASSERT_EQ_INT(add_dtype(i32, z64), CT_DTYPE_INT32);
    CT_ASSERT_EQ_INT(add_dtype(i32, wi), CT_DTYPE_INT32);
    CT_ASSERT_EQ_INT(add_dtype(z64, i32), CT_DTYPE_INT32);
    /* but one of a higher category does, to its own dtype */
    CT_ASSERT_EQ_INT(add_dtype(i32, zf64), CT_DTYPE_FLOAT64);
    CT_ASSERT_EQ_INT(add_dtype(f16, zf64), CT_DTYPE_FLOAT16);
    CT_ASSERT_EQ_INT(add_dtype(z64, zf64), CT_DTYPE_FLOAT64);
    CT_ASSERT_EQ_INT(add_dtype(wi, wf), CT_DTYPE_FLOAT32);
    CT_ASSERT_EQ_INT(add_dtype(z64, wf), CT_DTYPE_FLOAT32);
    /* tensors with dims promote by the table */
    CT_ASSERT_EQ_INT(add_dtype(u8, i8), CT_DTYPE_INT16);
    CT_ASSERT_EQ_INT(add_dtype(f16, bf16), CT_DTYPE_FLOAT32);
    CT_ASSERT_EQ_INT(add_dtype(i64, f16), CT_DTYPE_FLOAT16);
    CT_ASSERT_EQ_INT(add_dtype(b, bf16), CT_DTYPE_BFLOAT16);
    /* bool tensors with Python numbers */
    CT_ASSERT_EQ_INT(add_dtype(b, wi), CT_DTYPE_INT64);
    CT_ASSERT_EQ_INT(add_dtype(b, wf), CT_DTYPE_FLOAT32);
    CT_ASSERT_EQ_INT(add_dtype(b, wb), CT_DTYPE_BOOL);
    CT_ASSERT_EQ_INT(add_dtype(i32, wb), CT_DTYPE_INT32);

    r = ct_add(u8, i8, ct_scalar_int(1));                  /* no wraparound */
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 100, 260, 0);
    ct_tensor_decref(r);
    r = ct_add(u8, wi, ct_scalar_int(1));                  /* 300 -> uint8 44 */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_UINT8);
    CT_ASSERT_VALUES(r, 0, 244, 38, 45);
    ct_tensor_decref(r);
    r = ct_mul(i32, zf64);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 0.25, 0.5);
    ct_tensor_decref(r);

    ct_tensor *f = ct_ones(1, &n, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(f);
    ct_tensor *q = ct_quantize_per_tensor(f, 0.5, 0, CT_DTYPE_QUINT8);
    CT_ASSERT_OK(q);
    CT_ASSERT_TRUE(ct_add(q, f, ct_scalar_int(1)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "promoteTypes with quantized numbers is not "
                    "handled yet; figure out what the correct rules should be, "
                    "offending types: QUInt8 Float");
    ct_tensor_decref(q);
    ct_tensor_decref(f);

    ct_tensor_decref(b);
    ct_tensor_decref(i64);
    ct_tensor_decref(bf16);
    ct_tensor_decref(f16);
    ct_tensor_decref(i8);
    ct_tensor_decref(u8);
    ct_tensor_decref(zf64);
    ct_tensor_decref(z64);
    ct_tensor_decref(wb);
    ct_tensor_decref(wi);
    ct_tensor_decref(wf);
    ct_tensor_decref(i32);
}

TEST_IMPL(binary_bool_and_overflow)
{
    ct_tensor *p = ct_test_vec(CT_DTYPE_BOOL, 4, (double[]){1, 1, 0, 0});
    ct_tensor *q = ct_test_vec(CT_DTYPE_BOOL, 4, (double[]){1, 0, 1, 0});
    CT_ASSERT_OK(p);
    CT_ASSERT_OK(q);
    ct_tensor *r = ct_add(p, q, ct_scalar_int(1));         /* or */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_BOOL);
    CT_ASSERT_VALUES(r, 0, 1, 1, 1, 0);
    CT_ASSERT_TRUE(((uint8_t *)ct_tensor_data(r))[0] == 1);   /* canonical true */
    ct_tensor_decref(r);
    r = ct_mul(p, q);                                      /* and */
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 1, 0, 0, 0);
    ct_tensor_decref(r);
    r = ct_div(p, q);                                      /* float32 */
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_FLOAT32);
    CT_ASSERT_VALUES(r, 0, 1, INFINITY, 0, NAN);
    ct_tensor_decref(r);
    CT_ASSERT_TRUE(ct_sub(p, q, ct_scalar_int(1)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with two bool "
                    "tensors is not supported. Use the `^` or `logical_xor()` "
                    "operator instead.");
    ct_tensor *w = ct_scalar_tensor(ct_scalar_int(1));
    CT_ASSERT_OK(w);
    CT_ASSERT_TRUE(ct_sub(w, p, ct_scalar_int(1)) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with a bool "
                    "tensor is not supported. If you are trying to invert a mask, "
                    "use the `~` or `logical_not()` operator instead.");
    ct_tensor_decref(w);

    ct_tensor *a8 = ct_test_vec(CT_DTYPE_INT8, 2, (double[]){100, -128});
    ct_tensor *b8 = ct_test_vec(CT_DTYPE_INT8, 2, (double[]){100, 1});
    CT_ASSERT_OK(a8);
    CT_ASSERT_OK(b8);
    r = ct_add(a8, b8, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, -56, -127);
    ct_tensor_decref(r);
    r = ct_sub(b8, a8, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, -127);        /* 1 - (-128) = 129 wraps */
    ct_tensor_decref(r);
    ct_tensor *u = ct_test_vec(CT_DTYPE_UINT8, 2, (double[]){0, 16});
    CT_ASSERT_OK(u);
    ct_tensor *one = ct_scalar_tensor(ct_scalar_int(1));
    CT_ASSERT_OK(one);
    r = ct_sub(u, one, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 255, 15);
    ct_tensor_decref(r);
    r = ct_mul(u, u);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 0);           /* 256 wraps to 0 */
    ct_tensor_decref(r);
    ct_tensor *big = ct_full(1, (int64_t[]){1}, ct_scalar_int(INT32_MAX),
                             CT_DTYPE_INT32);
    CT_ASSERT_OK(big);
    r = ct_add(big, one, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(r->dtype, CT_DTYPE_INT32);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(r, 0).v.i, INT32_MIN);
    ct_tensor_decref(r);
    ct_tensor *l = ct_full(1, (int64_t[]){1}, ct_scalar_int(3000000000LL),
                           CT_DTYPE_INT64);
    CT_ASSERT_OK(l);
    r = ct_mul(l, l);
    CT_ASSERT_OK(r);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(r, 0).v.i, 9000000000000000000LL);
    ct_tensor_decref(r);
    ct_tensor_decref(l);
    ct_tensor_decref(big);
    ct_tensor_decref(one);
    ct_tensor_decref(u);
    ct_tensor_decref(b8);
    ct_tensor_decref(a8);
    ct_tensor_decref(q);
    ct_tensor_decref(p);
}

TEST_IMPL(binary_noncontiguous)
{
    ct_tensor *base = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){3, 4});
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){4, 3});
    CT_ASSERT_OK(base);
    CT_ASSERT_OK(b);
    ct_tensor *at = ct_transpose(base, 0, 1);              /* [4, 3] */
    CT_ASSERT_OK(at);
    ct_tensor *r = ct_add(at, b, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 4, 3);
    for (int64_t i = 0; i < 4; i++) {
        for (int64_t j = 0; j < 3; j++) {
            CT_ASSERT_NEAR(ct_test_at(r, i * 3 + j), (4 * j + i) + (3 * i + j), 0);
        }
    }
    ct_tensor_decref(r);

    /* both transposed: the output follows their layout, as in PyTorch */
    r = ct_mul(at, at);
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 2, 4, 3);
    CT_ASSERT_STRIDES(r, 2, 1, 4);
    for (int64_t i = 0; i < 4; i++) {
        for (int64_t j = 0; j < 3; j++) {
            double v = (double)(4 * j + i);
            CT_ASSERT_NEAR(ct_test_at(r, i * 3 + j), v * v, 0);
        }
    }
    ct_tensor_decref(r);

    /* a stepped slice times an expanded column */
    ct_tensor *sl = ct_slice(base, 1, 0, 4, 2);            /* [3, 2] */
    ct_tensor *c = ct_test_tensor(CT_DTYPE_FLOAT32, 2, (int64_t[]){3, 1},
                                  (double[]){1, 10, 100});
    CT_ASSERT_OK(sl);
    CT_ASSERT_OK(c);
    ct_tensor *ce = ct_expand(c, 2, (int64_t[]){3, 2});
    CT_ASSERT_OK(ce);
    r = ct_mul(sl, ce);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 0, 2, 40, 60, 800, 1000);
    ct_tensor_decref(r);
    ct_tensor *dv = ct_div(ce, sl);
    CT_ASSERT_OK(dv);
    CT_ASSERT_VALUES(dv, 1e-6, INFINITY, 0.5, 2.5, 10.0 / 6.0, 12.5, 10);
    ct_tensor_decref(dv);

    /* a reversed-order 3-d permutation against a contiguous tensor */
    ct_tensor *t3 = ct_test_iota(CT_DTYPE_INT64, 3, (int64_t[]){2, 3, 4});
    CT_ASSERT_OK(t3);
    ct_tensor *p = ct_permute(t3, 3, (int64_t[]){2, 1, 0});  /* [4, 3, 2] */
    ct_tensor *q = ct_test_iota(CT_DTYPE_INT64, 3, (int64_t[]){4, 3, 2});
    CT_ASSERT_OK(p);
    CT_ASSERT_OK(q);
    r = ct_sub(p, q, ct_scalar_int(1));
    CT_ASSERT_OK(r);
    for (int64_t k = 0; k < 4; k++) {
        for (int64_t j = 0; j < 3; j++) {
            for (int64_t i = 0; i < 2; i++) {
                int64_t idx = k * 6 + j * 2 + i;
                CT_ASSERT_NEAR(ct_test_at(r, idx), (12 * i + 4 * j + k) - idx, 0);
            }
        }
    }
    ct_tensor_decref(r);
    ct_tensor_decref(q);
    ct_tensor_decref(p);
    ct_tensor_decref(t3);
    ct_tensor_decref(ce);
    ct_tensor_decref(c);
    ct_tensor_decref(sl);
    ct_tensor_decref(at);
    ct_tensor_decref(b);
    ct_tensor_decref(base);
}

/* Above the grain size the iterator splits the work across threads;
 * every element is checked. */
TEST_IMPL(binary_large_threaded)
{
    int threads = ct_get_num_threads();
    ct_set_num_threads(4);
    int64_t n = 200003;
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 1, &n);
    ct_tensor *h = ct_full(1, &n, ct_scalar_float(0.5), CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(h);
    ct_tensor *r = ct_mul(a, h);
    ct_tensor *s = ct_add(a, h, ct_scalar_int(2));
    ct_tensor *d = ct_div(a, h);
    CT_ASSERT_OK(r);
    CT_ASSERT_OK(s);
    CT_ASSERT_OK(d);
    const float *pr = (const float *)ct_tensor_data(r);
    const float *ps = (const float *)ct_tensor_data(s);
    const float *pd = (const float *)ct_tensor_data(d);
    for (int64_t i = 0; i < n; i++) {
        if (pr[i] != 0.5f * (float)i || ps[i] != (float)i + 1.0f ||
            pd[i] != 2.0f * (float)i) {
            ct_test_fail(__FILE__, __LINE__, "element %lld: %g %g %g", (long long)i,
                         (double)pr[i], (double)ps[i], (double)pd[i]);
            break;
        }
    }
    ct_tensor_decref(d);
    ct_tensor_decref(s);
    ct_tensor_decref(r);
    ct_tensor_decref(h);
    ct_tensor_decref(a);

    /* broadcast [1000, 257] + [257] in int64 */
    ct_tensor *m = ct_test_iota(CT_DTYPE_INT64, 2, (int64_t[]){1000, 257});
    ct_tensor *row = ct_test_iota(CT_DTYPE_INT64, 1, (int64_t[]){257});
    CT_ASSERT_OK(m);
    CT_ASSERT_OK(row);
    r = ct_add(m, row, ct_scalar_int(-3));
    CT_ASSERT_OK(r);
    const int64_t *pi = (const int64_t *)ct_tensor_data(r);
    for (int64_t i = 0; i < 1000 * 257; i++) {
        if (pi[i] != i - 3 * (i % 257)) {
            ct_test_fail(__FILE__, __LINE__, "element %lld: %lld", (long long)i,
                         (long long)pi[i]);
            break;
        }
    }
    ct_tensor_decref(r);
    ct_tensor_decref(row);
    ct_tensor_decref(m);

    /* transposed [400, 300] plus itself, and into a contiguous out */
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT64, 2, (int64_t[]){300, 400});
    CT_ASSERT_OK(t);
    ct_tensor *tt = ct_transpose(t, 0, 1);
    ct_tensor *out = ct_empty(2, (int64_t[]){400, 300}, CT_DTYPE_FLOAT64,
                              ct_device_cpu());
    CT_ASSERT_OK(tt);
    CT_ASSERT_OK(out);
    r = ct_binary(CT_BINARY_ADD, tt, tt, ct_scalar_int(1), out, CT_OUT_GIVEN);
    CT_ASSERT_OK(r);
    const double *po = (const double *)ct_tensor_data(out);
    for (int64_t i = 0; i < 400; i++) {
        for (int64_t j = 0; j < 300; j++) {
            if (po[i * 300 + j] != 2.0 * (double)(j * 400 + i)) {
                ct_test_fail(__FILE__, __LINE__, "out[%lld, %lld] = %g", (long long)i,
                             (long long)j, po[i * 300 + j]);
                i = 400;
                break;
            }
        }
    }
    ct_tensor_decref(r);
    ct_tensor_decref(out);
    ct_tensor_decref(tt);
    ct_tensor_decref(t);
    ct_set_num_threads(threads);
}
