/* aten/cpu/factory.c -- full, zeros, ones, arange, range, linspace,
 * logspace, eye.
 *
 * Note [Range arithmetic]
 * PyTorch's x86 build fills ranges with AVX2 vectors: blocks of 2 vectors
 * (8 floats or 4 doubles each) whose first lane is computed with a fused
 * multiply-add from the start, and whose other lanes add k * step to that
 * first lane; the tail after the last whole block is computed per element
 * with a fused multiply-add.  The low bits of the results depend on this
 * scheme, so it is reproduced here lane for lane (checked against torch
 * 1.13 on random ranges).  Integer ranges are exact either way.
 */
#include <math.h>
#include <string.h>

#include "aten/cpu/loops.h"

/* AVX2 lanes per vector for each dtype (32 bytes / itemsize). */
static int64_t
vec_lanes(ct_dtype d)
{
    return 32 / (int64_t)ct_dtype_itemsize(d);
}

ct_tensor *
ct_full(int ndim, const int64_t *sizes, ct_scalar value, ct_dtype dtype)
{
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t != NULL && ct_fill_(t, value) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

ct_tensor *
ct_zeros(int ndim, const int64_t *sizes, ct_dtype dtype)
{
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t != NULL) {
        memset(t->storage->data, 0, t->storage->nbytes);
    }
    return t;
}

ct_tensor *
ct_ones(int ndim, const int64_t *sizes, ct_dtype dtype)
{
    return ct_full(ndim, sizes, ct_scalar_int(1), dtype);
}

/* Write value v (double or int64 path) to element i of a 1-D tensor. */
static void
store_f64(ct_tensor *t, int64_t i, double v)
{
    char *p = ct_tensor_data(t) + i * (int64_t)ct_dtype_itemsize(t->dtype);
    switch (t->dtype) {
#define X(E, T, S, A)                                                         \
    case E: {                                                                 \
        T x = ct__##S##_from_f64(v);                                          \
        memcpy(p, &x, sizeof x);                                              \
        break;                                                                \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
}

static void
store_i64(ct_tensor *t, int64_t i, int64_t v)
{
    char *p = ct_tensor_data(t) + i * (int64_t)ct_dtype_itemsize(t->dtype);
    switch (t->dtype) {
#define X(E, T, S, A)                                                         \
    case E: {                                                                 \
        T x = ct__##S##_from_i64(v);                                          \
        memcpy(p, &x, sizeof x);                                              \
        break;                                                                \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* Round a double to the dtype and back (the value a lane holds). */
static double
round_to(ct_dtype d, double v)
{
    switch (d) {
    case CT_DTYPE_FLOAT32:
        return (float)v;
    case CT_DTYPE_FLOAT16:
        return ct_half_to_float(ct_float_to_half((float)v));
    case CT_DTYPE_BFLOAT16:
        return ct_bfloat16_to_float(ct_float_to_bfloat16((float)v));
    default:
        return v;
    }
}

static int
check_range_dtype(const char *op, ct_dtype dtype)
{
    if (dtype == CT_DTYPE_BOOL || ct_dtype_table[dtype].is_quantized) {
        return ct_error(CT_ERR_RUNTIME, "\"%s_cpu\" not implemented for '%s'", op,
                        ct_dtype_table[dtype].legacy);
    }
    return 0;
}

ct_tensor *
ct_arange(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool integral = ct_dtype_is_integral(dtype, false);
    double size_d;

    if (check_range_dtype("arange", dtype) < 0) {
        return NULL;
    }
    /* bounds as the accumulate type sees them: int64 for integer dtypes */
    double xs = integral ? (double)ct_scalar_to_int(start) : ct_scalar_to_double(start);
    double xe = integral ? (double)ct_scalar_to_int(end) : ct_scalar_to_double(end);
    double xst = integral ? (double)ct_scalar_to_int(step) : ct_scalar_to_double(step);
    if (!(xst > 0 || xst < 0)) {
        ct_error(CT_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if (!isfinite(xs) || !isfinite(xe)) {
        ct_error(CT_ERR_RUNTIME, "unsupported range: %g -> %g", xs, xe);
        return NULL;
    }
    if (!((xst > 0 && xe >= xs) || (xst < 0 && xe <= xs))) {
        ct_error(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent "
                 "with step sign");
        return NULL;
    }
    if (dtype == CT_DTYPE_INT64) {
        int64_t s = ct_scalar_to_int(start), e = ct_scalar_to_int(end);
        size_d = ceil((double)(e - s) / (double)ct_scalar_to_int(step));
    }
    else {
        size_d = ceil((ct_scalar_to_double(end) - ct_scalar_to_double(start)) /
                      ct_scalar_to_double(step));
    }
    if (!(size_d >= 0 && size_d <= 9223372036854775807.0)) {
        ct_error(CT_ERR_RUNTIME, "invalid size, possible overflow?");
        return NULL;
    }
    int64_t n = (int64_t)size_d;
    ct_tensor *t = ct_empty(1, &n, dtype, ct_device_cpu());
    if (t == NULL) {
        return NULL;
    }
    if (integral) {
        int64_t s = ct_scalar_to_int(start), st = ct_scalar_to_int(step);
        for (int64_t i = 0; i < n; i++) {
            store_i64(t, i, s + st * i);
        }
        return t;
    }
    /* Note [Range arithmetic] */
    int64_t lanes = vec_lanes(dtype), i = 0;
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
        for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
            double base = round_to(dtype, fma(xst, (double)blk, xs));
            store_f64(t, blk, base);
            for (int64_t k = 1; k < lanes; k++) {
                store_f64(t, blk + k, fma((double)k, xst, base));
            }
        }
    }
    for (; i < n; i++) {
        store_f64(t, i, fma(xst, (double)i, xs));
    }
    return t;
}

ct_tensor *
ct_range(ct_scalar start, ct_scalar end, ct_scalar step, ct_dtype dtype)
{
    bool integral = ct_dtype_is_integral(dtype, false);
    double xs = ct_scalar_to_double(start), xe = ct_scalar_to_double(end);
    double xst = ct_scalar_to_double(step);

    if (check_range_dtype("range", dtype) < 0) {
        return NULL;
    }
    if (!(xst > 0 || xst < 0)) {
        ct_error(CT_ERR_RUNTIME, "step must be nonzero");
        return NULL;
    }
    if (!isfinite(xs) || !isfinite(xe)) {
        ct_error(CT_ERR_RUNTIME, "unsupported range: %g -> %g", xs, xe);
        return NULL;
    }
    if (!((xst > 0 && xe >= xs) || (xst < 0 && xe <= xs))) {
        ct_error(CT_ERR_RUNTIME, "upper bound and larger bound inconsistent "
                 "with step sign");
        return NULL;
    }
    int64_t n = integral ? (ct_scalar_to_int(end) - ct_scalar_to_int(start)) /
                               ct_scalar_to_int(step) + 1
                         : (int64_t)((xe - xs) / xst + 1);
    ct_tensor *t = ct_empty(1, &n, dtype, ct_device_cpu());
    for (int64_t i = 0; t != NULL && i < n; i++) {
        if (integral) {
            store_i64(t, i, ct_scalar_to_int(start) + ct_scalar_to_int(step) * i);
        }
        else {
            store_f64(t, i, xs + xst * (double)i);
        }
    }
    return t;
}

ct_tensor *
ct_linspace(ct_scalar start, ct_scalar end, int64_t steps, ct_dtype dtype)
{
    if (steps < 0) {
        ct_error(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    if (check_range_dtype("linspace", dtype) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &steps, dtype, ct_device_cpu());
    if (t == NULL || steps == 0) {
        return t;
    }
    bool integral = ct_dtype_is_integral(dtype, false);
    /* start and end as the dtype holds them; the step in the dtype for
     * floating types, in double for integers */
    double s = integral ? (double)ct_scalar_to_int(start)
                        : round_to(dtype, ct_scalar_to_double(start));
    double e = integral ? (double)ct_scalar_to_int(end)
                        : round_to(dtype, ct_scalar_to_double(end));
    if (steps == 1) {
        store_f64(t, 0, s);
        return t;
    }
    double step = round_to(dtype, (e - s) / (double)(steps - 1));
    int64_t halfway = steps / 2;
    /* one element computed on its own: fused, from the nearer end */
    #define LIN_AT(i) ((i) < halfway ? round_to(dtype, fma(step, (double)(i), s)) \
                       : round_to(dtype, fma(-step, (double)(steps - (i) - 1), e)))
    int64_t lanes = vec_lanes(dtype), i = 0;
    for (; i + 2 * lanes <= steps; i += 2 * lanes) {
        for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
            double base = LIN_AT(blk);
            store_f64(t, blk, base);
            for (int64_t k = 1; k < lanes; k++) {
                /* lanes: base + k*step rounded twice, in the dtype */
                store_f64(t, blk + k, round_to(dtype, base +
                                               round_to(dtype, (double)k * step)));
            }
        }
    }
    for (; i < steps; i++) {
        store_f64(t, i, LIN_AT(i));
    }
    #undef LIN_AT
    return t;
}

ct_tensor *
ct_logspace(ct_scalar start, ct_scalar end, int64_t steps, double base,
            ct_dtype dtype)
{
    if (steps < 0) {
        ct_error(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    if (check_range_dtype("logspace", dtype) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &steps, dtype, ct_device_cpu());
    if (t == NULL || steps == 0) {
        return t;
    }
    bool integral = ct_dtype_is_integral(dtype, false);
    double s = integral ? (double)ct_scalar_to_int(start)
                        : round_to(dtype, ct_scalar_to_double(start));
    double e = integral ? (double)ct_scalar_to_int(end)
                        : round_to(dtype, ct_scalar_to_double(end));
    if (steps == 1) {
        store_f64(t, 0, pow(base, s));
        return t;
    }
    double step = (e - s) / (double)(steps - 1);
    int64_t halfway = steps / 2;
    for (int64_t i = 0; i < steps; i++) {
        double x = i < halfway ? fma(step, (double)i, s)
                               : e - step * (double)(steps - i - 1);
        store_f64(t, i, pow(base, x));
    }
    return t;
}

ct_tensor *
ct_eye(int64_t n, int64_t m, ct_dtype dtype)
{
    if (n < 0) {
        ct_error(CT_ERR_RUNTIME, "n must be greater or equal to 0, got %lld",
                 (long long)n);
        return NULL;
    }
    if (m < 0) {
        ct_error(CT_ERR_RUNTIME, "m must be greater or equal to 0, got %lld",
                 (long long)m);
        return NULL;
    }
    int64_t sizes[2] = {n, m};
    ct_tensor *t = ct_zeros(2, sizes, dtype);
    if (t == NULL) {
        return NULL;
    }
    ct_tensor *diag = ct_as_strided(t, 1, (int64_t[]){n < m ? n : m},
                                    (int64_t[]){m + 1}, 0);
    int rc = diag ? ct_fill_(diag, ct_scalar_int(1)) : -1;
    ct_tensor_decref(diag);
    if (rc < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}
