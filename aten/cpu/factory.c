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
#include "aten/cpu/cpu_impl.h"

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
ct_full_on(int ndim, const int64_t *sizes, ct_scalar value, ct_dtype dtype, ct_device device)
{
    if (device.type == CT_DEVICE_CPU) {
        return ct_full(ndim, sizes, value, dtype);
    }
    ct_tensor *t = ct_empty(ndim, sizes, dtype, device);
    if (t != NULL && ct_fill_(t, value) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

ct_tensor *
ct_zeros_on(int ndim, const int64_t *sizes, ct_dtype dtype, ct_device device)
{
    return device.type == CT_DEVICE_CPU
               ? ct_zeros(ndim, sizes, dtype)
               : ct_full_on(ndim, sizes, ct_scalar_int(0), dtype, device);
}

ct_tensor *
ct_ones(int ndim, const int64_t *sizes, ct_dtype dtype)
{
    return ct_full(ndim, sizes, ct_scalar_int(1), dtype);
}

/* Values are produced into a small buffer and written out in the tensor's
 * dtype a chunk at a time (ct__write_converted). */
#define BUF 256

typedef struct {
    ct_tensor *t;
    int64_t next;               /* first element not yet written */
    int n;
    bool from_float;
    union {
        double f[BUF];
        int64_t i[BUF];
    } v;
} range_writer;

static void
writer_flush(range_writer *w)
{
    int64_t item = (int64_t)ct_dtype_itemsize(w->t->dtype);
    ct__write_converted(w->t->dtype, ct_tensor_data(w->t) + w->next * item, item,
                        w->n, &w->v, w->from_float);
    w->next += w->n;
    w->n = 0;
}

static inline void
put_f64(range_writer *w, double v)
{
    w->v.f[w->n++] = v;
    if (w->n == BUF) {
        writer_flush(w);
    }
}

static inline void
put_i64(range_writer *w, int64_t v)
{
    w->v.i[w->n++] = v;
    if (w->n == BUF) {
        writer_flush(w);
    }
}

static double round_f32(double v) { return (float)v; }
static double round_f64(double v) { return v; }
static double round_f16(double v) { return ct_half_to_float(ct_float_to_half((float)v)); }
static double round_bf16(double v)
{
    return ct_bfloat16_to_float(ct_float_to_bfloat16((float)v));
}

/* The value a lane of dtype d holds for v: rounding to d and back. */
static double (*rounder(ct_dtype d))(double)
{
    switch (d) {
    case CT_DTYPE_FLOAT32:
        return round_f32;
    case CT_DTYPE_FLOAT16:
        return round_f16;
    case CT_DTYPE_BFLOAT16:
        return round_bf16;
    default:
        return round_f64;
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

/* The common float32/float64 ranges written directly.  fma() is an
 * instruction only where the CPU has FMA: target_clones builds these twice
 * and the loader picks the right copy (otherwise fma is a libm call per
 * element). */
#define ARANGE_KERNEL(NAME, T, LANES)                                         \
    __attribute__((target_clones("fma", "default"))) static void              \
    NAME(T *o, int64_t n, double xs, double xst)                              \
    {                                                                         \
        int64_t i = 0;                                                        \
        for (; i + 2 * LANES <= n; i += 2 * LANES) {                          \
            for (int64_t b = i; b < i + 2 * LANES; b += LANES) {              \
                double base = (T)fma(xst, (double)b, xs);                     \
                o[b] = (T)base;                                               \
                for (int64_t k = 1; k < LANES; k++) {                         \
                    o[b + k] = (T)fma((double)k, xst, base);                  \
                }                                                             \
            }                                                                 \
        }                                                                     \
        for (; i < n; i++) {                                                  \
            o[i] = (T)fma(xst, (double)i, xs);                                \
        }                                                                     \
    }
ARANGE_KERNEL(arange_f32, float, 8)
ARANGE_KERNEL(arange_f64, double, 4)
#undef ARANGE_KERNEL

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
    range_writer w = {.t = t, .from_float = !integral};
    if (integral) {
        int64_t s = ct_scalar_to_int(start), st = ct_scalar_to_int(step);
        for (int64_t i = 0; i < n; i++) {
            put_i64(&w, s + st * i);
        }
        writer_flush(&w);
        return t;
    }
    /* Note [Range arithmetic]; 16-bit floats accumulate in float */
    if (dtype == CT_DTYPE_FLOAT32) {
        arange_f32((float *)ct_tensor_data(t), n, xs, xst);
        return t;
    }
    if (dtype == CT_DTYPE_FLOAT64) {
        arange_f64((double *)ct_tensor_data(t), n, xs, xst);
        return t;
    }
    double (*rnd)(double) = rounder(dtype);
    bool half = ct_dtype_itemsize(dtype) == 2;
    if (half) {
        xs = (float)xs;
        xst = (float)xst;
    }
#define FMA_ACC(a, b, c) (half ? (double)fmaf((float)(a), (float)(b), (float)(c)) \
                               : fma((a), (b), (c)))
    int64_t lanes = vec_lanes(dtype), i = 0;
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
        for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
            double base = rnd(FMA_ACC(xst, (double)blk, xs));
            put_f64(&w, base);
            for (int64_t k = 1; k < lanes; k++) {
                /* 16-bit lanes: k * step and the sum each round to float */
                put_f64(&w, half ? (double)((float)base + (float)k * (float)xst)
                                 : FMA_ACC((double)k, xst, base));
            }
        }
    }
    for (; i < n; i++) {
        put_f64(&w, FMA_ACC(xst, (double)i, xs));
    }
#undef FMA_ACC
    writer_flush(&w);
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
    if (integral) {
        /* integer dtypes see the bounds as int64 */
        xs = (double)ct_scalar_to_int(start);
        xe = (double)ct_scalar_to_int(end);
        xst = (double)ct_scalar_to_int(step);
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
        ct_error(CT_ERR_RUNTIME, "upper bound and lower bound inconsistent "
                 "with step sign");
        return NULL;
    }
    int64_t n = integral ? (ct_scalar_to_int(end) - ct_scalar_to_int(start)) /
                               ct_scalar_to_int(step) + 1
                         : (int64_t)((xe - xs) / xst + 1);
    ct_tensor *t = ct_empty(1, &n, dtype, ct_device_cpu());
    if (t == NULL) {
        return NULL;
    }
    range_writer w = {.t = t, .from_float = !integral};
    for (int64_t i = 0; i < n; i++) {
        if (integral) {
            put_i64(&w, ct_scalar_to_int(start) + ct_scalar_to_int(step) * i);
        }
        else {
            put_f64(&w, xs + xst * (double)i);
        }
    }
    writer_flush(&w);
    return t;
}

ct_tensor *
ct_linspace(ct_scalar start, ct_scalar end, int64_t steps, ct_dtype dtype)
{
    if (steps < 0) {
        ct_error(CT_ERR_RUNTIME, "number of steps must be non-negative");
        return NULL;
    }
    if (check_range_dtype("linspace", dtype) < 0 || ct_scalar_check(start, dtype) < 0 ||
        ct_scalar_check(end, dtype) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &steps, dtype, ct_device_cpu());
    if (t == NULL || steps == 0) {
        return t;
    }
    bool integral = ct_dtype_is_integral(dtype, false);
    double (*rnd)(double) = integral ? round_f64 : rounder(dtype);
    range_writer w = {.t = t, .from_float = true};
    /* start and end as the dtype holds them; the step in the dtype for
     * floating types, in double for integers */
    double s = integral ? (double)ct_scalar_to_int(start) : rnd(ct_scalar_to_double(start));
    double e = integral ? (double)ct_scalar_to_int(end) : rnd(ct_scalar_to_double(end));
    if (steps == 1) {
        put_f64(&w, s);
        writer_flush(&w);
        return t;
    }
    int64_t halfway = steps / 2, lanes = vec_lanes(dtype), i = 0;
    if (integral) {
        /* the step in double; lanes and elements truncate toward zero */
        double step = (e - s) / (double)(steps - 1);
        w.from_float = false;
#define LIN_INT(i) ((i) < halfway ? ct__trunc_i64(fma(step, (double)(i), s)) \
                    : ct__trunc_i64(fma(-step, (double)(steps - (i) - 1), e)))
        for (; i + 2 * lanes <= steps; i += 2 * lanes) {
            for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
                int64_t base = LIN_INT(blk);
                put_i64(&w, base);
                for (int64_t k = 1; k < lanes; k++) {
                    put_i64(&w, ct__trunc_i64((double)base + (double)k * step));
                }
            }
        }
        for (; i < steps; i++) {
            put_i64(&w, LIN_INT(i));
        }
#undef LIN_INT
    }
    else if (ct_dtype_itemsize(dtype) == 2) {
        /* float16 / bfloat16: every operation rounds to the dtype */
        double step = rnd(rnd(e - s) / rnd((double)(steps - 1)));
#define LIN_HALF(i) ((i) < halfway ? rnd(s + rnd(step * rnd((double)(i)))) \
                     : rnd(e - rnd(step * rnd((double)(steps - (i) - 1)))))
        for (; i + 2 * lanes <= steps; i += 2 * lanes) {
            for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
                double base = LIN_HALF(blk);
                put_f64(&w, base);
                for (int64_t k = 1; k < lanes; k++) {
                    put_f64(&w, rnd(base + rnd(rnd((double)k) * step)));
                }
            }
        }
        for (; i < steps; i++) {
            put_f64(&w, LIN_HALF(i));
        }
#undef LIN_HALF
    }
    else {
        /* float32 / float64: fused from the nearer end, as one element or
         * as the first lane of a block; other lanes add k * step */
        double step = rnd(rnd(e - s) / (double)(steps - 1));
#define LIN_AT(i) ((i) < halfway ? rnd(fma(step, (double)(i), s)) \
                   : rnd(fma(-step, (double)(steps - (i) - 1), e)))
        for (; i + 2 * lanes <= steps; i += 2 * lanes) {
            for (int64_t blk = i; blk < i + 2 * lanes; blk += lanes) {
                double base = LIN_AT(blk);
                put_f64(&w, base);
                for (int64_t k = 1; k < lanes; k++) {
                    put_f64(&w, rnd(base + rnd((double)k * step)));
                }
            }
        }
        for (; i < steps; i++) {
            put_f64(&w, LIN_AT(i));
        }
#undef LIN_AT
    }
    writer_flush(&w);
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
    /* torch 1.13 has no float16 logspace kernel (one step is a fill) */
    if (check_range_dtype("logspace", dtype) < 0 ||
        (dtype == CT_DTYPE_FLOAT16 && steps > 1 &&
         ct_error(CT_ERR_RUNTIME, "\"logspace_cpu\" not implemented for 'Half'") < 0)) {
        return NULL;
    }
    if (steps == 1) {
        ct_tensor *one = ct_empty(1, &steps, dtype, ct_device_cpu());
        if (one != NULL && ct_fill_(one, ct_scalar_float(pow(base, ct_scalar_to_double(start)))) < 0) {
            ct_tensor_decref(one);
            return NULL;
        }
        return one;
    }
    if (ct_scalar_check(start, dtype) < 0 || ct_scalar_check(end, dtype) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &steps, dtype, ct_device_cpu());
    if (t == NULL || steps == 0) {
        return t;
    }
    bool integral = ct_dtype_is_integral(dtype, false);
    double (*rnd)(double) = integral ? round_f64 : rounder(dtype);
    range_writer w = {.t = t, .from_float = true};
    double s = integral ? (double)ct_scalar_to_int(start) : rnd(ct_scalar_to_double(start));
    double e = integral ? (double)ct_scalar_to_int(end) : rnd(ct_scalar_to_double(end));
    /* the difference is taken in the dtype, the rest in double, unfused
     * (this kernel is not one of PyTorch's vectorized ones) */
    double step = steps > 1 ? rnd(e - s) / (double)(steps - 1) : 0.0;
    int64_t halfway = steps / 2;
    for (int64_t i = 0; i < steps; i++) {
        double x = steps == 1 ? s
                   : i < halfway ? s + step * (double)i
                                 : e - step * (double)(steps - i - 1);
        put_f64(&w, pow(base, x));
    }
    writer_flush(&w);
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
