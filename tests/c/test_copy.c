/* tests/c/test_copy.c -- ct_copy_ between every pair of dtypes, the
 * float-to-integer rules, special values, broadcasting, ct_to_dtype,
 * ct_contiguous, ct_clone and ct_fill_. */
#include "tests/c/test.h"

static const ct_dtype numeric[] = {
    CT_DTYPE_UINT8, CT_DTYPE_INT8, CT_DTYPE_INT16, CT_DTYPE_INT32, CT_DTYPE_INT64,
    CT_DTYPE_FLOAT16, CT_DTYPE_FLOAT32, CT_DTYPE_FLOAT64, CT_DTYPE_BFLOAT16,
    CT_DTYPE_BOOL,
};
#define NNUMERIC ((int)(sizeof numeric / sizeof numeric[0]))

/* What an integral value v becomes in dtype d (C's modular conversion for
 * the narrow integers, != 0 for bool; the values used are exact in every
 * floating type). */
static double
expect_in(ct_dtype d, double v)
{
    int64_t i = (int64_t)v;
    switch (d) {
    case CT_DTYPE_BOOL:
        return v != 0;
    case CT_DTYPE_UINT8:
        return (uint8_t)i;
    case CT_DTYPE_INT8:
        return (int8_t)i;
    default:
        return v;
    }
}

TEST_IMPL(copy_all_dtype_pairs)
{
    static const double signed_vals[4] = {0, 1, 5, -3};
    static const double u8_vals[4] = {0, 1, 200, 7};
    static const double bool_vals[4] = {1, 0, 0, 1};
    int64_t n = 4;

    for (int i = 0; i < NNUMERIC; i++) {
        ct_dtype from = numeric[i];
        const double *vals = from == CT_DTYPE_BOOL    ? bool_vals
                             : from == CT_DTYPE_UINT8 ? u8_vals
                                                      : signed_vals;
        ct_tensor *src = ct_test_tensor(from, 1, &n, vals);
        CT_ASSERT_OK(src);
        /* the same values, read through a transposed 2x2 view */
        ct_tensor *sq = ct_view(src, 2, (int64_t[]){2, 2});
        CT_ASSERT_OK(sq);
        ct_tensor *srcT = ct_transpose(sq, 0, 1);
        CT_ASSERT_OK(srcT);
        for (int j = 0; j < NNUMERIC; j++) {
            ct_dtype to = numeric[j];
            ct_tensor *dst = ct_empty(1, &n, to, ct_device_cpu());
            CT_ASSERT_OK(dst);
            CT_ASSERT_RC_OK(ct_copy_(dst, src));
            ct_tensor *conv = ct_to_dtype(src, to, false);
            CT_ASSERT_OK(conv);
            CT_ASSERT_EQ_INT(conv->dtype, to);
            ct_tensor *dT = ct_empty(2, (int64_t[]){2, 2}, to, ct_device_cpu());
            CT_ASSERT_OK(dT);
            CT_ASSERT_RC_OK(ct_copy_(dT, srcT));
            for (int64_t k = 0; k < n; k++) {
                double want = expect_in(to, vals[k]);
                /* dT[r][c] = src[c * 2 + r] */
                double wantT = expect_in(to, vals[(k % 2) * 2 + k / 2]);
                if (ct_test_at(dst, k) != want || ct_test_at(conv, k) != want ||
                    ct_test_at(dT, k) != wantT) {
                    ct_test_fail(__FILE__, __LINE__, "%s -> %s: element %lld is "
                                 "%g / %g / %g, want %g / %g",
                                 ct_dtype_table[from].name, ct_dtype_table[to].name,
                                 (long long)k, ct_test_at(dst, k), ct_test_at(conv, k),
                                 ct_test_at(dT, k), want, wantT);
                }
            }
            ct_tensor_decref(dT);
            ct_tensor_decref(conv);
            ct_tensor_decref(dst);
        }
        ct_tensor_decref(srcT);
        ct_tensor_decref(sq);
        ct_tensor_decref(src);
    }
}

/* Float to integer truncates toward zero; narrow types keep the low bits
 * of the int32 conversion, as PyTorch's x86 build does. */
TEST_IMPL(copy_float_to_int)
{
    int64_t n = 6;
    ct_tensor *f = ct_test_tensor(CT_DTYPE_FLOAT32, 1, &n,
                                  (double[]){2.7, -2.7, 300.0, 0.5, -0.5, 40000.0});
    CT_ASSERT_OK(f);
    struct {
        ct_dtype d;
        double want[6];
    } cases[] = {
        {CT_DTYPE_INT64, {2, -2, 300, 0, 0, 40000}},
        {CT_DTYPE_INT32, {2, -2, 300, 0, 0, 40000}},
        {CT_DTYPE_INT16, {2, -2, 300, 0, 0, -25536}},
        {CT_DTYPE_INT8, {2, -2, 44, 0, 0, 64}},
        {CT_DTYPE_UINT8, {2, 254, 44, 0, 0, 64}},
        {CT_DTYPE_BOOL, {1, 1, 1, 1, 1, 1}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        ct_tensor *r = ct_to_dtype(f, cases[c].d, false);
        CT_ASSERT_OK(r);
        for (int64_t i = 0; i < n; i++) {
            if (ct_test_at(r, i) != cases[c].want[i]) {
                ct_test_fail(__FILE__, __LINE__, "float32 -> %s: element %lld is "
                             "%g, want %g", ct_dtype_table[cases[c].d].name,
                             (long long)i, ct_test_at(r, i), cases[c].want[i]);
            }
        }
        ct_tensor_decref(r);
    }
    ct_tensor_decref(f);

    /* out of range and NaN: x86's "integer indefinite" */
    int64_t m = 3;
    ct_tensor *g = ct_test_tensor(CT_DTYPE_FLOAT64, 1, &m,
                                  (double[]){1e10, NAN, -1e19});
    CT_ASSERT_OK(g);
    ct_tensor *l = ct_to_dtype(g, CT_DTYPE_INT64, false);
    ct_tensor *i32 = ct_to_dtype(g, CT_DTYPE_INT32, false);
    CT_ASSERT_OK(l);
    CT_ASSERT_OK(i32);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(l, 0).v.i, 10000000000LL);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(l, 1).v.i, INT64_MIN);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(l, 2).v.i, INT64_MIN);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(i32, 0).v.i, INT32_MIN);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(i32, 1).v.i, INT32_MIN);
    ct_tensor_decref(i32);
    ct_tensor_decref(l);
    ct_tensor_decref(g);
}

TEST_IMPL(copy_special_values)
{
    int64_t n = 5;
    ct_tensor *f = ct_test_tensor(CT_DTYPE_FLOAT32, 1, &n,
                                  (double[]){70000.0, 0.1, 1e-8, -1e-5, 65504.0});
    CT_ASSERT_OK(f);
    ct_tensor *h = ct_to_dtype(f, CT_DTYPE_FLOAT16, false);
    CT_ASSERT_OK(h);
    CT_ASSERT_VALUES(h, 0, INFINITY, 0.0999755859375, 0, -168 * 0x1p-24, 65504);
    ct_tensor *bf = ct_to_dtype(h, CT_DTYPE_BFLOAT16, false);
    CT_ASSERT_OK(bf);
    /* 65504 has 11 significant bits: bfloat16 rounds it up to 2^16 */
    CT_ASSERT_VALUES(bf, 0, INFINITY, 0.10009765625, 0, -1.0013580322265625e-05, 65536);
    ct_tensor_decref(bf);
    ct_tensor_decref(h);
    ct_tensor_decref(f);

    ct_tensor *d = ct_test_tensor(CT_DTYPE_FLOAT64, 1, (int64_t[]){3},
                                  (double[]){0.1, 1e40, -1e-50});
    CT_ASSERT_OK(d);
    ct_tensor *fd = ct_to_dtype(d, CT_DTYPE_FLOAT32, false);
    CT_ASSERT_OK(fd);
    CT_ASSERT_VALUES(fd, 0, (double)0.1f, INFINITY, 0);
    CT_ASSERT_TRUE(signbit(((const float *)ct_tensor_data(fd))[2]));
    ct_tensor_decref(fd);
    ct_tensor_decref(d);

    ct_tensor *l = ct_empty(1, (int64_t[]){4}, CT_DTYPE_INT64, ct_device_cpu());
    CT_ASSERT_OK(l);
    int64_t *pl = (int64_t *)ct_tensor_data(l);
    pl[0] = 16777217;
    pl[1] = (1LL << 53) + 1;
    pl[2] = 65519;
    pl[3] = 65520;
    ct_tensor *lf = ct_to_dtype(l, CT_DTYPE_FLOAT32, false);
    ct_tensor *ld = ct_to_dtype(l, CT_DTYPE_FLOAT64, false);
    ct_tensor *lh = ct_to_dtype(l, CT_DTYPE_FLOAT16, false);
    CT_ASSERT_OK(lf);
    CT_ASSERT_OK(ld);
    CT_ASSERT_OK(lh);
    CT_ASSERT_NEAR(ct_test_at(lf, 0), 16777216, 0);
    CT_ASSERT_NEAR(ct_test_at(ld, 1), 9007199254740992.0, 0);
    CT_ASSERT_NEAR(ct_test_at(lh, 2), 65504, 0);
    CT_ASSERT_NEAR(ct_test_at(lh, 3), INFINITY, 0);
    ct_tensor_decref(lh);
    ct_tensor_decref(ld);
    ct_tensor_decref(lf);
    ct_tensor_decref(l);

    /* to bool: any nonzero (NaN included) is true; -0.0 is false */
    ct_tensor *z = ct_test_tensor(CT_DTYPE_FLOAT32, 1, (int64_t[]){4},
                                  (double[]){0.1, -0.0, NAN, 0});
    ct_tensor *i16 = ct_test_tensor(CT_DTYPE_INT16, 1, (int64_t[]){3},
                                    (double[]){256, -1, 0});
    CT_ASSERT_OK(z);
    CT_ASSERT_OK(i16);
    ct_tensor *zb = ct_to_dtype(z, CT_DTYPE_BOOL, false);
    ct_tensor *ib = ct_to_dtype(i16, CT_DTYPE_BOOL, false);
    CT_ASSERT_OK(zb);
    CT_ASSERT_OK(ib);
    CT_ASSERT_VALUES(zb, 0, 1, 0, 1, 0);
    CT_ASSERT_VALUES(ib, 0, 1, 1, 0);
    ct_tensor *nb = ct_to_dtype(z, CT_DTYPE_FLOAT64, false);
    CT_ASSERT_OK(nb);
    CT_ASSERT_TRUE(isnan(ct_test_at(nb, 2)) && signbit(ct_test_at(nb, 1)));
    ct_tensor_decref(nb);
    ct_tensor_decref(ib);
    ct_tensor_decref(zb);
    ct_tensor_decref(i16);
    ct_tensor_decref(z);
}

TEST_IMPL(copy_broadcast_and_errors)
{
    ct_tensor *dst = ct_zeros(2, (int64_t[]){2, 3}, CT_DTYPE_FLOAT64);
    ct_tensor *row = ct_test_tensor(CT_DTYPE_INT32, 1, (int64_t[]){3},
                                    (double[]){1, 2, 3});
    CT_ASSERT_OK(dst);
    CT_ASSERT_OK(row);
    CT_ASSERT_RC_OK(ct_copy_(dst, row));
    CT_ASSERT_VALUES(dst, 0, 1, 2, 3, 1, 2, 3);
    ct_tensor *s = ct_scalar_tensor(ct_scalar_float(-0.5));
    CT_ASSERT_OK(s);
    CT_ASSERT_RC_OK(ct_copy_(dst, s));
    CT_ASSERT_VALUES(dst, 0, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5);

    /* into a transposed destination */
    ct_tensor *base = ct_zeros(2, (int64_t[]){3, 2}, CT_DTYPE_INT16);
    CT_ASSERT_OK(base);
    ct_tensor *bt = ct_transpose(base, 0, 1);
    ct_tensor *src = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(bt);
    CT_ASSERT_OK(src);
    CT_ASSERT_RC_OK(ct_copy_(bt, src));
    CT_ASSERT_VALUES(base, 0, 0, 3, 1, 4, 2, 5);
    CT_ASSERT_RC_OK(ct_copy_(src, src));                   /* itself: no-op */
    CT_ASSERT_VALUES(src, 0, 0, 1, 2, 3, 4, 5);

    ct_tensor *two = ct_zeros(1, (int64_t[]){2}, CT_DTYPE_FLOAT32);
    ct_tensor *one = ct_zeros(1, (int64_t[]){1}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(two);
    CT_ASSERT_OK(one);
    CT_ASSERT_EQ_INT(ct_copy_(row, two), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "The size of tensor a (3) must match the size of "
                    "tensor b (2) at non-singleton dimension 0");
    CT_ASSERT_EQ_INT(ct_copy_(one, row), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "output with shape [1] doesn't match the "
                    "broadcast shape [3]");

    ct_tensor *f = ct_ones(1, (int64_t[]){3}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(f);
    ct_tensor *q = ct_quantize_per_tensor(f, 0.1, 0, CT_DTYPE_QINT8);
    CT_ASSERT_OK(q);
    ct_tensor *fo = ct_zeros(1, (int64_t[]){3}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(fo);
    CT_ASSERT_EQ_INT(ct_copy_(fo, q), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Copying from quantized Tensor to non-quantized "
                    "Tensor is not allowed, please use dequantize to get a float "
                    "Tensor from a quantized Tensor");
    CT_ASSERT_EQ_INT(ct_copy_(q, row), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Quantized copy only works with kFloat as "
                    "source Tensor");
    ct_tensor *q2 = ct_to_dtype(q, CT_DTYPE_QINT8, true);  /* quantized clone */
    CT_ASSERT_OK(q2);
    CT_ASSERT_TRUE(q2->storage != q->storage);
    CT_ASSERT_NEAR(q2->q_scale, 0.1, 0);
    ct_tensor *r2 = ct_int_repr(q2);
    CT_ASSERT_OK(r2);
    CT_ASSERT_VALUES(r2, 0, 10, 10, 10);
    ct_tensor_decref(r2);
    ct_tensor_decref(q2);
    ct_tensor_decref(fo);
    ct_tensor_decref(q);
    ct_tensor_decref(f);
    ct_tensor_decref(one);
    ct_tensor_decref(two);
    ct_tensor_decref(src);
    ct_tensor_decref(bt);
    ct_tensor_decref(base);
    ct_tensor_decref(s);
    ct_tensor_decref(row);
    ct_tensor_decref(dst);
}

TEST_IMPL(copy_to_dtype_contiguous_clone)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(t);
    ct_tensor *same = ct_to_dtype(t, CT_DTYPE_FLOAT32, false);
    CT_ASSERT_OK(same);
    CT_ASSERT_TRUE(same == t);
    CT_ASSERT_EQ_INT(atomic_load(&t->refcnt), 2);
    ct_tensor_decref(same);
    ct_tensor *copy = ct_to_dtype(t, CT_DTYPE_FLOAT32, true);
    CT_ASSERT_OK(copy);
    CT_ASSERT_TRUE(copy != t && copy->storage != t->storage);
    CT_ASSERT_VALUES(copy, 0, 0, 1, 2, 3, 4, 5);
    ct_tensor_decref(copy);
    CT_ASSERT_TRUE(ct_to_dtype(t, CT_DTYPE_QUINT8, false) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Quantized copy only works with kFloat as "
                    "source Tensor");

    ct_tensor *c = ct_contiguous(t);
    CT_ASSERT_OK(c);
    CT_ASSERT_TRUE(c == t);
    ct_tensor_decref(c);
    ct_tensor *tt = ct_transpose(t, 0, 1);                 /* [3, 2] */
    CT_ASSERT_OK(tt);
    c = ct_contiguous(tt);
    CT_ASSERT_OK(c);
    CT_ASSERT_TRUE(c->storage != t->storage);
    CT_ASSERT_STRIDES(c, 2, 2, 1);
    CT_ASSERT_TRUE(c->base == NULL);
    CT_ASSERT_VALUES(c, 0, 0, 3, 1, 4, 2, 5);
    ct_tensor_decref(c);

    /* to_dtype of a transposed tensor keeps its layout */
    ct_tensor *td = ct_to_dtype(tt, CT_DTYPE_INT64, false);
    CT_ASSERT_OK(td);
    CT_ASSERT_STRIDES(td, 2, 1, 3);
    CT_ASSERT_VALUES(td, 0, 0, 3, 1, 4, 2, 5);
    ct_tensor_decref(td);

    /* clone keeps a dense layout, but not a broadcast one */
    ct_tensor *cl = ct_clone(tt);
    CT_ASSERT_OK(cl);
    CT_ASSERT_TRUE(cl->storage != t->storage && cl->base == NULL);
    CT_ASSERT_STRIDES(cl, 2, 1, 3);
    CT_ASSERT_VALUES(cl, 0, 0, 3, 1, 4, 2, 5);
    ct_tensor_decref(cl);
    ct_tensor *col = ct_test_tensor(CT_DTYPE_INT8, 2, (int64_t[]){2, 1},
                                    (double[]){-1, 7});
    CT_ASSERT_OK(col);
    ct_tensor *ex = ct_expand(col, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(ex);
    cl = ct_clone(ex);
    CT_ASSERT_OK(cl);
    CT_ASSERT_STRIDES(cl, 2, 3, 1);
    CT_ASSERT_VALUES(cl, 0, -1, -1, -1, 7, 7, 7);
    ct_tensor_decref(cl);
    c = ct_contiguous(ex);
    CT_ASSERT_OK(c);
    CT_ASSERT_STRIDES(c, 2, 3, 1);
    CT_ASSERT_VALUES(c, 0, -1, -1, -1, 7, 7, 7);
    ct_tensor_decref(c);
    /* a stepped slice is not dense: clone makes it contiguous */
    ct_tensor *sl = ct_slice(t, 1, 0, 3, 2);
    CT_ASSERT_OK(sl);
    cl = ct_clone(sl);
    CT_ASSERT_OK(cl);
    CT_ASSERT_STRIDES(cl, 2, 2, 1);
    CT_ASSERT_VALUES(cl, 0, 0, 2, 3, 5);
    ct_tensor_decref(cl);
    ct_tensor_decref(sl);
    ct_tensor_decref(ex);
    ct_tensor_decref(col);
    ct_tensor_decref(tt);
    ct_tensor_decref(t);
}

TEST_IMPL(copy_fill)
{
    ct_tensor *t = ct_zeros(2, (int64_t[]){3, 4}, CT_DTYPE_INT32);
    CT_ASSERT_OK(t);
    ct_tensor *sl = ct_slice(t, 1, 1, 4, 2);               /* columns 1, 3 */
    CT_ASSERT_OK(sl);
    CT_ASSERT_RC_OK(ct_fill_(sl, ct_scalar_float(3.9)));   /* truncates */
    CT_ASSERT_VALUES(t, 0, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3);
    ct_tensor *r1 = ct_select(t, 0, 1);
    CT_ASSERT_OK(r1);
    CT_ASSERT_RC_OK(ct_fill_(r1, ct_scalar_int(-7)));
    CT_ASSERT_VALUES(t, 0, 0, 3, 0, 3, -7, -7, -7, -7, 0, 3, 0, 3);
    ct_tensor_decref(r1);
    ct_tensor_decref(sl);
    ct_tensor_decref(t);

    ct_tensor *b = ct_ones(1, (int64_t[]){2}, CT_DTYPE_BOOL);
    CT_ASSERT_OK(b);
    CT_ASSERT_RC_OK(ct_fill_(b, ct_scalar_float(0.0)));
    CT_ASSERT_VALUES(b, 0, 0, 0);
    CT_ASSERT_RC_OK(ct_fill_(b, ct_scalar_float(0.25)));
    CT_ASSERT_VALUES(b, 0, 1, 1);
    ct_tensor_decref(b);

    ct_tensor *h = ct_zeros(1, (int64_t[]){3}, CT_DTYPE_FLOAT16);
    CT_ASSERT_OK(h);
    CT_ASSERT_RC_OK(ct_fill_(h, ct_scalar_float(1.0 / 3.0)));
    CT_ASSERT_VALUES(h, 0, 0.333251953125, 0.333251953125, 0.333251953125);
    CT_ASSERT_EQ_INT(((ct_half *)ct_tensor_data(h))[2].x, 0x3555);
    CT_ASSERT_RC_OK(ct_fill_(h, ct_scalar_bool(true)));
    CT_ASSERT_VALUES(h, 0, 1, 1, 1);
    ct_tensor_decref(h);

    ct_tensor *d = ct_empty(1, (int64_t[]){5}, CT_DTYPE_FLOAT64, ct_device_cpu());
    CT_ASSERT_OK(d);
    CT_ASSERT_RC_OK(ct_fill_(d, ct_scalar_float(-INFINITY)));
    CT_ASSERT_VALUES(d, 0, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY);
    ct_tensor_decref(d);

    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(e);
    CT_ASSERT_RC_OK(ct_fill_(e, ct_scalar_int(1)));
    ct_tensor_decref(e);
}

TEST_IMPL(copy_large_threaded)
{
    int threads = ct_get_num_threads();
    ct_set_num_threads(4);
    int64_t n = 150001;
    ct_tensor *src = ct_test_iota(CT_DTYPE_FLOAT64, 1, &n);
    CT_ASSERT_OK(src);
    double *ps = (double *)ct_tensor_data(src);
    for (int64_t i = 0; i < n; i++) {
        ps[i] = (double)i * 0.25 - 1000.0;
    }
    ct_tensor *f = ct_to_dtype(src, CT_DTYPE_FLOAT32, false);
    ct_tensor *l = ct_to_dtype(src, CT_DTYPE_INT64, false);
    ct_tensor *h = ct_to_dtype(src, CT_DTYPE_FLOAT16, false);
    CT_ASSERT_OK(f);
    CT_ASSERT_OK(l);
    CT_ASSERT_OK(h);
    const float *pf = (const float *)ct_tensor_data(f);
    const int64_t *pl = (const int64_t *)ct_tensor_data(l);
    const ct_half *ph = (const ct_half *)ct_tensor_data(h);
    for (int64_t i = 0; i < n; i++) {
        if (pf[i] != (float)ps[i] || pl[i] != (int64_t)ps[i] ||
            ph[i].x != ct_float_to_half((float)ps[i]).x) {
            ct_test_fail(__FILE__, __LINE__, "element %lld", (long long)i);
            break;
        }
    }
    /* a strided copy of the whole: reversed rows of a [n/7, 7] view */
    ct_tensor *v = ct_view(f, 2, (int64_t[]){-1, 7});
    CT_ASSERT_TRUE(v == NULL);                             /* 150001 = 7 * 21428.7 */
    ct_error_clear();
    ct_tensor *w = ct_narrow(f, 0, 0, 150000);
    CT_ASSERT_OK(w);
    v = ct_view(w, 2, (int64_t[]){-1, 100});
    CT_ASSERT_OK(v);
    ct_tensor *vt = ct_transpose(v, 0, 1);                 /* [100, 1500] */
    CT_ASSERT_OK(vt);
    ct_tensor *c = ct_contiguous(vt);
    CT_ASSERT_OK(c);
    const float *pc = (const float *)ct_tensor_data(c);
    for (int64_t i = 0; i < 100; i++) {
        for (int64_t j = 0; j < 1500; j++) {
            if (pc[i * 1500 + j] != pf[j * 100 + i]) {
                ct_test_fail(__FILE__, __LINE__, "c[%lld, %lld]", (long long)i,
                             (long long)j);
                i = 100;
                break;
            }
        }
    }
    ct_tensor_decref(c);
    ct_tensor_decref(vt);
    ct_tensor_decref(v);
    ct_tensor_decref(w);
    ct_tensor_decref(h);
    ct_tensor_decref(l);
    ct_tensor_decref(f);
    ct_tensor_decref(src);
    ct_set_num_threads(threads);
}
