/* aten/device_shape.c -- tril / triu, trace, nan_to_num and lerp on a CUDA
 * device, composed of the device's where, pointwise and reduction kernels.
 * The CPU entry points (aten/cpu/linalg_tri.c, select.c) make their
 * checks and branch here for device operands, so the errors are theirs.
 *
 * tril / triu and nan_to_num only select elements (where), so they match
 * the CPU bit for bit in every dtype.  trace sums in float64 (integers in
 * int64) as the CPU does, then rounds once.  lerp follows the CPU's
 * formula (Note [lerp on a device]).
 */
#include "aten/device_compose.h"

#include <math.h>

/* A 0-dim value v of dtype dt on the CPU, made in the dtype the CPU
 * kernels compute dt in first, so that it rounds as their (A)v does. */
static ct_tensor *
value_in(temps *s, double v, ct_dtype dt)
{
    ct_tensor *c = tmp(s, ct_full(0, NULL, ct_scalar_float(v), accumulate_dtype(dt)));
    return in_dtype(s, c, dt);
}

ct_tensor *
ct__device_triangle(const ct_tensor *t, int64_t diagonal, bool lower)
{
    temps s = {0};
    ct_tensor *r = NULL;
    ct_device dev = ct_tensor_device(t);
    int64_t rows = t->sizes[t->ndim - 2], cols = t->sizes[t->ndim - 1];
    int64_t rs[2] = {rows, 1}, cs[2] = {1, cols};
    /* element (i, j) is kept when j - i <= diagonal (lower), j - i >=
     * diagonal (upper): a [rows, cols] mask from two ranges, broadcast over
     * the batch */
    ct_tensor *i = shaped(&s, arange_on(&s, rows, dev), 2, rs);
    ct_tensor *j = shaped(&s, arange_on(&s, cols, dev), 2, cs);
    ct_tensor *keep = bin(&s, lower ? CT_BINARY_LE : CT_BINARY_GE, bin(&s, CT_BINARY_SUB, j, i),
                          scalar(&s, ct_scalar_int(diagonal)));
    ct_tensor *w = where3(&s, keep, t, tmp(&s, ct_zeros(0, NULL, t->dtype)));
    if (w != NULL) {
        r = ct_contiguous(w);
    }
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_trace(const ct_tensor *t)
{
    temps s = {0};
    ct_tensor *r = NULL;
    int64_t n = t->sizes[0] < t->sizes[1] ? t->sizes[0] : t->sizes[1];
    int64_t step = t->strides[0] + t->strides[1];
    bool floating = ct_dtype_is_floating(t->dtype);
    ct_tensor *d = tmp(&s, ct_as_strided(t, 1, &n, &step, t->offset));
    /* the CPU's accumulators: double for floating dtypes, int64 (wrapping)
     * for integral ones */
    ct_tensor *sum = d != NULL ? tmp(&s, ct_sum(d, 0, NULL, false,
                                                floating ? CT_DTYPE_FLOAT64 : CT_DTYPE_INT64))
                               : NULL;
    if (sum != NULL) {
        r = ct_to_dtype(sum, floating ? t->dtype : CT_DTYPE_INT64, true);
    }
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_nan_to_num(const ct_tensor *t, double nan, double posinf, double neginf)
{
    temps s = {0};
    ct_tensor *r = NULL;
    ct_tensor *inf = value_in(&s, INFINITY, t->dtype);
    ct_tensor *isnan = un(&s, CT_UNARY_ISNAN, t);
    ct_tensor *ispos = bin(&s, CT_BINARY_EQ, t, inf);
    ct_tensor *isneg = bin(&s, CT_BINARY_EQ, t, un(&s, CT_UNARY_NEG, inf));
    ct_tensor *a = where3(&s, isneg, value_in(&s, neginf, t->dtype), t);
    ct_tensor *b = where3(&s, ispos, value_in(&s, posinf, t->dtype), a);
    ct_tensor *c = where3(&s, isnan, value_in(&s, nan, t->dtype), b);
    if (c != NULL) {
        r = give(c);
    }
    temps_free(&s);
    return r;
}

/* Note [lerp on a device]
 * The CPU computes, in the compute type A (float for half and bfloat16),
 * d = e - s, then w < 0.5 && w > -0.5 ? fma(w, d, s) : fma(-d, 1 - w, e).
 * The device has no fused multiply-add kernel; for A = float the products
 * w * d and d * (1 - w) of two floats are exact in double, so the sum
 * taken in double and rounded to the result dtype is the fused result
 * (but for a rare double rounding).  float64 has no wider type: its
 * product is rounded before the sum, a difference of rounding. */
ct_tensor *
ct__device_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    temps s = {0};
    ct_tensor *r = NULL;
    ct_dtype dt = start->dtype, acc = accumulate_dtype(dt);
    ct_dtype wide = acc == CT_DTYPE_FLOAT32 ? CT_DTYPE_FLOAT64 : acc;
    ct_tensor *sa = in_dtype(&s, start, acc), *ea = in_dtype(&s, end, acc);
    ct_tensor *w = in_dtype(&s, weight, acc);
    ct_tensor *d = bin(&s, CT_BINARY_SUB, ea, sa);
    ct_tensor *half = scalar(&s, ct_scalar_float(0.5));
    ct_tensor *small = bin(&s, CT_BINARY_LOGICAL_AND, bin(&s, CT_BINARY_LT, w, half),
                           bin(&s, CT_BINARY_GT, w, un(&s, CT_UNARY_NEG, half)));
    ct_tensor *omw = bin(&s, CT_BINARY_SUB, scalar(&s, ct_scalar_int(1)), w);
    ct_tensor *dw = in_dtype(&s, d, wide);
    ct_tensor *near_s = bin(&s, CT_BINARY_ADD,
                            bin(&s, CT_BINARY_MUL, in_dtype(&s, w, wide), dw),
                            in_dtype(&s, sa, wide));
    ct_tensor *near_e = bin(&s, CT_BINARY_SUB, in_dtype(&s, ea, wide),
                            bin(&s, CT_BINARY_MUL, dw, in_dtype(&s, omw, wide)));
    ct_tensor *v = where3(&s, small, near_s, near_e);
    if (v != NULL) {
        r = ct_to_dtype(v, dt, true);
    }
    temps_free(&s);
    return r;
}
