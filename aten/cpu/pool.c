/* aten/cpu/pool.c -- 2-D pooling: max (with indices), average and the
 * adaptive forms, forward and backward (1-D pooling is the bindings'
 * unsqueeze around these, as in torch).
 *
 * Every loop works on whole planes ([H, W] of one sample and channel) and
 * visits a window in torch's order, with torch's accumulation type, so
 * results match bit for bit: max takes the first maximum and any NaN;
 * averages sum in the input's type (float for bfloat16) and divide once
 * (adaptive: by kh, then by kw).
 *
 * Ownership as in ops.h.  Thread-safety: nothing shared; planes are split
 * across the pool of aten/parallel.h.
 */
#include "aten/device.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aten/cpu/loops.h"
#include "aten/cpu/pool_impl.h"
#include "aten/parallel.h"

typedef struct {
    int64_t planes, ih, iw, oh, ow;
    const ct_pool_params *p;
} pool_geom;

/* One loop over planes [p0, p1): a is read, b written; idx is written by
 * the max forwards and read by the max backward. */
typedef void (*pool_loop)(const pool_geom *g, const char *a, char *b, int64_t *idx,
                          int64_t p0, int64_t p1);

/* The max loops run on floating types only. */
#define IS_NAN(v) ((v) != (v))

#define MAX_LOOPS(E, T, S, A)                                                   \
    static void maxpool_##S(const pool_geom *g, const char *pa, char *pb,      \
                            int64_t *idx, int64_t p0, int64_t p1)              \
    {                                                                          \
        const ct_pool_params *p = g->p;                                        \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * IH * IW;                         \
            T *y = (T *)pb + pl * OH * OW;                                     \
            int64_t *ix = idx + pl * OH * OW;                                  \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                int64_t y0 = oy * p->stride[0] - p->padding[0];                \
                int64_t y1 = y0 + (p->kernel[0] - 1) * p->dilation[0] + 1;     \
                y1 = y1 < IH ? y1 : IH;                                        \
                while (y0 < 0) {                                               \
                    y0 += p->dilation[0];                                      \
                }                                                              \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t x0 = ox * p->stride[1] - p->padding[1];            \
                    int64_t x1 = x0 + (p->kernel[1] - 1) * p->dilation[1] + 1; \
                    x1 = x1 < IW ? x1 : IW;                                    \
                    while (x0 < 0) {                                           \
                        x0 += p->dilation[1];                                  \
                    }                                                          \
                    int64_t mi = y0 * IW + x0;                                 \
                    A mv = (A)-INFINITY;                                       \
                    for (int64_t iy = y0; iy < y1; iy += p->dilation[0]) {     \
                        for (int64_t ixx = x0; ixx < x1; ixx += p->dilation[1]) { \
                            int64_t k = iy * IW + ixx;                         \
                            A v = ct__load_##S(x + k);                         \
                            /* branch-free (an indexed pair for the value):  \
                             * on random data a branch here mispredicts half  \
                             * the time */                                     \
                            int take = (v > mv) | IS_NAN(v);                   \
                            A pair[2] = {mv, v};                               \
                            mi = take ? k : mi;                                \
                            mv = pair[take];                                   \
                        }                                                      \
                    }                                                          \
                    ct__store_##S(y + oy * OW + ox, mv);                       \
                    ix[oy * OW + ox] = mi;                                     \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    /* grad_input[indices] += grad_out, plane by plane */                       \
    static void maxpool_bwd_##S(const pool_geom *g, const char *pa, char *pb,  \
                                int64_t *idx, int64_t p0, int64_t p1)          \
    {                                                                          \
        const int64_t in = g->ih * g->iw, out = g->oh * g->ow;                 \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *gy = (const T *)pa + pl * out;                            \
            T *gx = (T *)pb + pl * in;                                         \
            const int64_t *ix = idx + pl * out;                                \
            for (int64_t i = 0; i < out; i++) {                                \
                int64_t k = ix[i];                                             \
                if (k >= 0 && k < in) {                                        \
                    ct__store_##S(gx + k, (A)(ct__load_##S(gx + k) + ct__load_##S(gy + i))); \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void adaptive_avg_##S(const pool_geom *g, const char *pa, char *pb, \
                                 int64_t *idx, int64_t p0, int64_t p1)         \
    {                                                                          \
        (void)idx;                                                             \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * IH * IW;                         \
            T *y = (T *)pb + pl * OH * OW;                                     \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                int64_t y0 = start_index(oy, OH, IH), y1 = end_index(oy, OH, IH); \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t x0 = start_index(ox, OW, IW), x1 = end_index(ox, OW, IW); \
                    A s = 0;                                                   \
                    for (int64_t iy = y0; iy < y1; iy++) {                     \
                        for (int64_t ixx = x0; ixx < x1; ixx++) {              \
                            s = (A)(s + ct__load_##S(x + iy * IW + ixx));      \
                        }                                                      \
                    }                                                          \
                    ct__store_##S(y + oy * OW + ox, (A)((A)(s / (A)(y1 - y0)) / (A)(x1 - x0))); \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void adaptive_avg_bwd_##S(const pool_geom *g, const char *pa, char *pb, \
                                     int64_t *idx, int64_t p0, int64_t p1)     \
    {                                                                          \
        (void)idx;                                                             \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *gy = (const T *)pa + pl * OH * OW;                        \
            T *gx = (T *)pb + pl * IH * IW;                                    \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                int64_t y0 = start_index(oy, OH, IH), y1 = end_index(oy, OH, IH); \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t x0 = start_index(ox, OW, IW), x1 = end_index(ox, OW, IW); \
                    A d = (A)((A)(ct__load_##S(gy + oy * OW + ox) / (A)(y1 - y0)) / \
                              (A)(x1 - x0));                                   \
                    for (int64_t iy = y0; iy < y1; iy++) {                     \
                        for (int64_t ixx = x0; ixx < x1; ixx++) {              \
                            T *q = gx + iy * IW + ixx;                         \
                            ct__store_##S(q, (A)(ct__load_##S(q) + d));        \
                        }                                                      \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void adaptive_max_##S(const pool_geom *g, const char *pa, char *pb, \
                                 int64_t *idx, int64_t p0, int64_t p1)         \
    {                                                                          \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * IH * IW;                         \
            T *y = (T *)pb + pl * OH * OW;                                     \
            int64_t *ix = idx + pl * OH * OW;                                  \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                int64_t y0 = start_index(oy, OH, IH), y1 = end_index(oy, OH, IH); \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t x0 = start_index(ox, OW, IW), x1 = end_index(ox, OW, IW); \
                    int64_t mi = y0 * IW + x0;                                 \
                    A mv = (A)-INFINITY;                                       \
                    for (int64_t iy = y0; iy < y1; iy++) {                     \
                        for (int64_t ixx = x0; ixx < x1; ixx++) {              \
                            int64_t k = iy * IW + ixx;                         \
                            A v = ct__load_##S(x + k);                         \
                            /* branch-free (an indexed pair for the value):  \
                             * on random data a branch here mispredicts half  \
                             * the time */                                     \
                            int take = (v > mv) | IS_NAN(v);                   \
                            A pair[2] = {mv, v};                               \
                            mi = take ? k : mi;                                \
                            mv = pair[take];                                   \
                        }                                                      \
                    }                                                          \
                    ct__store_##S(y + oy * OW + ox, mv);                       \
                    ix[oy * OW + ox] = mi;                                     \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }

#define AVG_LOOPS(E, T, S, A)                                                    \
    static void avgpool_##S(const pool_geom *g, const char *pa, char *pb,      \
                            int64_t *idx, int64_t p0, int64_t p1)              \
    {                                                                          \
        (void)idx;                                                             \
        const ct_pool_params *p = g->p;                                        \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * IH * IW;                         \
            T *y = (T *)pb + pl * OH * OW;                                     \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t y0, y1, x0, x1, div;                               \
                    avg_window(p, oy, ox, IH, IW, &y0, &y1, &x0, &x1, &div);   \
                    A s = 0;                                                   \
                    for (int64_t iy = y0; iy < y1; iy++) {                     \
                        for (int64_t ixx = x0; ixx < x1; ixx++) {              \
                            s = (A)(s + ct__load_##S(x + iy * IW + ixx));      \
                        }                                                      \
                    }                                                          \
                    ct__store_##S(y + oy * OW + ox, div != 0 ? (A)(s / (A)div) : (A)0); \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void avgpool_bwd_##S(const pool_geom *g, const char *pa, char *pb,  \
                                int64_t *idx, int64_t p0, int64_t p1)          \
    {                                                                          \
        (void)idx;                                                             \
        const ct_pool_params *p = g->p;                                        \
        const int64_t IH = g->ih, IW = g->iw, OH = g->oh, OW = g->ow;          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *gy = (const T *)pa + pl * OH * OW;                        \
            T *gx = (T *)pb + pl * IH * IW;                                    \
            for (int64_t oy = 0; oy < OH; oy++) {                              \
                for (int64_t ox = 0; ox < OW; ox++) {                          \
                    int64_t y0, y1, x0, x1, div;                               \
                    avg_window(p, oy, ox, IH, IW, &y0, &y1, &x0, &x1, &div);   \
                    if (div == 0) {                                            \
                        continue;                                              \
                    }                                                          \
                    A d = (A)(ct__load_##S(gy + oy * OW + ox) / (A)div);       \
                    for (int64_t iy = y0; iy < y1; iy++) {                     \
                        for (int64_t ixx = x0; ixx < x1; ixx++) {              \
                            T *q = gx + iy * IW + ixx;                         \
                            ct__store_##S(q, (A)(ct__load_##S(q) + d));        \
                        }                                                      \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }

#define FLOAT_DTYPES(X)                              \
    X(CT_DTYPE_FLOAT32, float, f32, float)           \
    X(CT_DTYPE_FLOAT64, double, f64, double)         \
    X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
FLOAT_DTYPES(MAX_LOOPS)
FLOAT_DTYPES(AVG_LOOPS)
AVG_LOOPS(CT_DTYPE_INT64, int64_t, i64, int64_t)
#undef MAX_LOOPS
#undef AVG_LOOPS

enum { P_MAX, P_MAX_BWD, P_AVG, P_AVG_BWD, P_AAVG, P_AAVG_BWD, P_AMAX, P_COUNT };

static const char *const pool_names[P_COUNT] = {
    [P_MAX] = "max_pool2d", [P_MAX_BWD] = "max_pool2d_with_indices_backward",
    [P_AVG] = "avg_pool2d", [P_AVG_BWD] = "avg_pool2d_backward_out_frame",
    [P_AAVG] = "adaptive_avg_pool2d", [P_AAVG_BWD] = "adaptive_avg_pool2d_backward_cpu",
    [P_AMAX] = "adaptive_max_pool2d",
};

/* Which dtypes each loop takes: the floating ones but float16, and int64
 * for avg_pool2d (torch's dispatch lists). */
#define FLOAT_LOOPS(name)                                                        \
    {[CT_DTYPE_FLOAT32] = name##_f32, [CT_DTYPE_FLOAT64] = name##_f64,         \
     [CT_DTYPE_BFLOAT16] = name##_bf16}
#define ALL_LOOPS(name)                                                          \
    {[CT_DTYPE_FLOAT32] = name##_f32, [CT_DTYPE_FLOAT64] = name##_f64,         \
     [CT_DTYPE_BFLOAT16] = name##_bf16, [CT_DTYPE_INT64] = name##_i64}

static const pool_loop pool_loops[P_COUNT][CT_DTYPE_COUNT] = {
    [P_MAX] = FLOAT_LOOPS(maxpool),
    [P_MAX_BWD] = FLOAT_LOOPS(maxpool_bwd),
    [P_AVG] = ALL_LOOPS(avgpool),
    [P_AVG_BWD] = ALL_LOOPS(avgpool_bwd),
    [P_AAVG] = FLOAT_LOOPS(adaptive_avg),
    [P_AAVG_BWD] = FLOAT_LOOPS(adaptive_avg_bwd),
    [P_AMAX] = FLOAT_LOOPS(adaptive_max),
};

typedef struct {
    pool_loop fn;
    const pool_geom *g;
    const char *a;
    char *b;
    int64_t *idx;
} pool_job;

static void
pool_part(void *ctx, int tid, int nthreads)
{
    pool_job *j = ctx;
    int64_t lo = j->g->planes * tid / nthreads, hi = j->g->planes * (tid + 1) / nthreads;
    if (lo < hi) {
        j->fn(j->g, j->a, j->b, j->idx, lo, hi);
    }
}

/* Run loop `op` over every plane; `work` elements in all. */
static void
pool_run(int op, ct_dtype dtype, const pool_geom *g, const char *a, char *b,
         int64_t *idx, int64_t work)
{
    pool_job j = {pool_loops[op][dtype], g, a, b, idx};
    int nthreads = ct__parallel_threads();
    if (nthreads > g->planes) {
        nthreads = (int)g->planes;
    }
    if (nthreads > 1 && work >= 32768) {
        ct__parallel_run(nthreads, pool_part, &j);
    }
    else if (g->planes > 0) {
        pool_part(&j, 0, 1);
    }
}

static int
check_dtype(int op, ct_dtype d)
{
    if (pool_loops[op][d] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", pool_names[op],
                        ct_dtype_table[d].legacy);
    }
    return 0;
}

/* check_dtype for t, float16 taken on a device (PyTorch's CUDA pools take
 * it; aten/device_pool.c) */
static int
check_dtype_of(int op, const ct_tensor *t)
{
    return ct__is_device(t) && t->dtype == CT_DTYPE_FLOAT16 ? 0 : check_dtype(op, t->dtype);
}

/* torch's pooling_output_shape. */
static int64_t
pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode)
{
    int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    /* division rounding towards negative infinity */
    int64_t q = num / s;
    if ((num % s != 0) && ((num < 0) != (s < 0))) {
        q--;
    }
    int64_t out = q + 1;
    if (ceil_mode && (out - 1) * s >= in + pad) {
        out--;
    }
    return out;
}

static char *
sizes_str(const ct_tensor *t, char *buf, int n)
{
    return ct_format_sizes(t->ndim, t->sizes, buf, n);
}

/* Input [.., C, H, W] with 3 or 4 dims and non-zero non-batch dims. */
static int
check_input_planes(const ct_tensor *t)
{
    char b[160];
    bool bad = false;
    for (int i = t->ndim == 4 ? 1 : 0; i < t->ndim; i++) {
        bad |= t->sizes[i] == 0;
    }
    if (bad) {
        return ct_error(CT_ERR_RUNTIME, "Expected 3D or 4D (batch mode) tensor with "
                        "optional 0 dim batch size for input, but got:%s",
                        sizes_str(t, b, sizeof b));
    }
    return 0;
}

/* torch's pool2d_shape_check after the parameters are known; fills the
 * geometry. */
static int
pool_check(const ct_tensor *input, const ct_pool_params *p, pool_geom *g)
{
    if (input->ndim != 3 && input->ndim != 4) {
        return ct_error(CT_ERR_RUNTIME, "non-empty 3D or 4D (batch mode) tensor expected "
                        "for input");
    }
    if (p->stride[0] == 0 || p->stride[1] == 0) {
        return ct_error(CT_ERR_RUNTIME, "stride should not be zero");
    }
    if (p->padding[0] < 0 || p->padding[1] < 0) {
        return ct_error(CT_ERR_RUNTIME, "pad must be non-negative, but got pad: %lld",
                        (long long)(p->padding[0] < 0 ? p->padding[0] : p->padding[1]));
    }
    if (p->kernel[0] <= 0 || p->kernel[1] <= 0) {
        return ct_error(CT_ERR_RUNTIME, "kernel size should be greater than zero, but got "
                        "kH: %lld kW: %lld", (long long)p->kernel[0],
                        (long long)p->kernel[1]);
    }
    if (p->stride[0] < 0 || p->stride[1] < 0) {
        return ct_error(CT_ERR_RUNTIME, "stride should be greater than zero, but got dH: "
                        "%lld dW: %lld", (long long)p->stride[0], (long long)p->stride[1]);
    }
    if (p->dilation[0] <= 0 || p->dilation[1] <= 0) {
        return ct_error(CT_ERR_RUNTIME, "dilation should be greater than zero, but got "
                        "dilationH: %lld dilationW: %lld", (long long)p->dilation[0],
                        (long long)p->dilation[1]);
    }
    if (check_input_planes(input) < 0) {
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        if (p->kernel[i] / 2 < p->padding[i]) {
            return ct_error(CT_ERR_RUNTIME, "pad should be at most half of kernel size, "
                            "but got pad=%lld and kernel_size=%lld",
                            (long long)p->padding[i], (long long)p->kernel[i]);
        }
    }
    int nd = input->ndim;
    int64_t c = input->sizes[nd - 3], ih = input->sizes[nd - 2], iw = input->sizes[nd - 1];
    int64_t oh = pool_out_size(ih, p->kernel[0], p->padding[0], p->stride[0],
                               p->dilation[0], p->ceil_mode);
    int64_t ow = pool_out_size(iw, p->kernel[1], p->padding[1], p->stride[1],
                               p->dilation[1], p->ceil_mode);
    if (oh < 1 || ow < 1) {
        return ct_error(CT_ERR_RUNTIME, "Given input size: (%lldx%lldx%lld). Calculated "
                        "output size: (%lldx%lldx%lld). Output size is too small",
                        (long long)c, (long long)ih, (long long)iw, (long long)c,
                        (long long)oh, (long long)ow);
    }
    *g = (pool_geom){input->numel / (ih * iw > 0 ? ih * iw : 1), ih, iw, oh, ow, p};
    if (ih * iw == 0) {
        g->planes = 0;
    }
    return 0;
}

/* A new tensor shaped like input with the last two dims (h, w). */
static ct_tensor *
new_like_planes(const ct_tensor *input, int64_t h, int64_t w, ct_dtype dtype)
{
    int64_t sizes[4];
    int nd = input->ndim;
    memcpy(sizes, input->sizes, sizeof(int64_t) * (size_t)nd);
    sizes[nd - 2] = h;
    sizes[nd - 1] = w;
    return ct_empty(nd, sizes, dtype, ct_device_cpu());
}

int
ct_max_pool2d_with_indices(const ct_tensor *input, const ct_pool_params *p,
                           ct_tensor **out, ct_tensor **indices)
{
    pool_geom g;
    ct_tensor *x = NULL, *y = NULL, *ix = NULL;
    *out = *indices = NULL;
    if (pool_check(input, p, &g) < 0 || check_dtype_of(P_MAX, input) < 0) {
        return -1;
    }
    if (ct__is_device(input)) {
        return ct__device_max_pool2d(input, p, g.oh, g.ow, out, indices);
    }
    if ((x = ct_contiguous(input)) == NULL ||
        (y = new_like_planes(input, g.oh, g.ow, input->dtype)) == NULL ||
        (ix = new_like_planes(input, g.oh, g.ow, CT_DTYPE_INT64)) == NULL) {
        ct_tensor_decref(x);
        ct_tensor_decref(y);
        return -1;
    }
    pool_run(P_MAX, input->dtype, &g, ct_tensor_data(x), ct_tensor_data(y),
             (int64_t *)ct_tensor_data(ix), y->numel * p->kernel[0] * p->kernel[1]);
    ct_tensor_decref(x);
    *out = y;
    *indices = ix;
    return 0;
}

ct_tensor *
ct_max_pool_backward(const ct_tensor *grad_out, const ct_tensor *input,
                     const ct_tensor *indices)
{
    char b1[160], b2[160];
    int nd = input->ndim;
    if (nd < 3 || grad_out->ndim != nd || indices->ndim != nd ||
        indices->dtype != CT_DTYPE_INT64) {
        ct_error(CT_ERR_RUNTIME, "max_pool2d_with_indices_backward: expected "
                 "grad_output and indices shaped like the output");
        return NULL;
    }
    for (int i = 0; i < nd; i++) {
        if (grad_out->sizes[i] != indices->sizes[i] ||
            (i < nd - 2 && grad_out->sizes[i] != input->sizes[i])) {
            ct_error(CT_ERR_RUNTIME, "max_pool2d_with_indices_backward: grad_output %s "
                     "does not match indices %s", sizes_str(grad_out, b1, sizeof b1),
                     sizes_str(indices, b2, sizeof b2));
            return NULL;
        }
    }
    if (check_dtype_of(P_MAX_BWD, input) < 0) {
        return NULL;
    }
    if (ct__is_device(grad_out) || ct__is_device(input) || ct__is_device(indices)) {
        return ct__device_max_pool_backward(grad_out, input, indices);
    }
    pool_geom g = {0, input->sizes[nd - 2], input->sizes[nd - 1], grad_out->sizes[nd - 2],
                   grad_out->sizes[nd - 1], NULL};
    g.planes = g.ih * g.iw > 0 ? input->numel / (g.ih * g.iw) : 0;
    ct_tensor *gy = grad_out->dtype == input->dtype
                        ? ct_contiguous(grad_out)
                        : ct_to_dtype(grad_out, input->dtype, false);
    ct_tensor *ix = NULL, *gx = NULL;
    if (gy == NULL) {
        return NULL;
    }
    if ((ix = ct_contiguous(indices)) != NULL &&
        (gx = ct_zeros(nd, input->sizes, input->dtype)) != NULL) {
        pool_run(P_MAX_BWD, input->dtype, &g, ct_tensor_data(gy), ct_tensor_data(gx),
                 (int64_t *)ct_tensor_data(ix), grad_out->numel);
    }
    ct_tensor_decref(gy);
    ct_tensor_decref(ix);
    return gx;
}

ct_tensor *
ct_avg_pool2d(const ct_tensor *input, const ct_pool_params *p)
{
    pool_geom g;
    ct_pool_params q = *p;
    q.dilation[0] = q.dilation[1] = 1;
    if (pool_check(input, &q, &g) < 0 || check_dtype_of(P_AVG, input) < 0) {
        return NULL;
    }
    if (ct__is_device(input)) {
        return ct__device_avg_pool2d(input, &q, g.oh, g.ow);
    }
    ct_tensor *x = ct_contiguous(input), *y = NULL;
    if (x != NULL && (y = new_like_planes(input, g.oh, g.ow, input->dtype)) != NULL) {
        g.p = &q;
        pool_run(P_AVG, input->dtype, &g, ct_tensor_data(x), ct_tensor_data(y), NULL,
                 y->numel * q.kernel[0] * q.kernel[1]);
    }
    ct_tensor_decref(x);
    return y;
}

ct_tensor *
ct_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input,
                       const ct_pool_params *p)
{
    pool_geom g;
    ct_pool_params q = *p;
    q.dilation[0] = q.dilation[1] = 1;
    if (pool_check(input, &q, &g) < 0 ||
        check_dtype_of(P_AVG_BWD, ct__is_device(grad_out) ? grad_out : input) < 0) {
        return NULL;
    }
    int nd = input->ndim;
    if (grad_out->ndim != nd || grad_out->sizes[nd - 2] != g.oh ||
        grad_out->sizes[nd - 1] != g.ow || grad_out->dtype != input->dtype) {
        ct_error(CT_ERR_RUNTIME, "avg_pool2d_backward: grad_output has the wrong "
                 "shape or dtype");
        return NULL;
    }
    /* input gives only the shape: autograd passes a CPU one with a device
     * gradient */
    if (ct__is_device(input) &&
        ct__same_device((const ct_tensor *const[]){grad_out, input}, 2) < 0) {
        return NULL;
    }
    if (ct__is_device(grad_out)) {
        return ct__device_avg_pool2d_backward(grad_out, input, &q);
    }
    ct_tensor *gy = ct_contiguous(grad_out), *gx = NULL;
    if (gy != NULL && (gx = ct_zeros(nd, input->sizes, input->dtype)) != NULL) {
        g.p = &q;
        pool_run(P_AVG_BWD, input->dtype, &g, ct_tensor_data(gy), ct_tensor_data(gx), NULL,
                 gx->numel + gy->numel * q.kernel[0] * q.kernel[1]);
    }
    ct_tensor_decref(gy);
    return gx;
}

/* torch's adaptive pool checks ("adaptive_avg_pool2d" / "adaptive_max_pool2d"). */
static int
adaptive_check(const char *name, const ct_tensor *input, const int64_t *osz,
               pool_geom *g)
{
    char b[160];
    if ((osz[0] < 0 || osz[1] < 0) && strcmp(name, "adaptive_max_pool2d") == 0 &&
        (input->ndim == 3 || input->ndim == 4)) {
        /* torch's adaptive_max_pool2d allocates first and fails there */
        int64_t sizes[4];
        memcpy(sizes, input->sizes, sizeof(int64_t) * (size_t)input->ndim);
        sizes[input->ndim - 2] = osz[0];
        sizes[input->ndim - 1] = osz[1];
        return ct_error(CT_ERR_RUNTIME, "Trying to create tensor with negative dimension "
                        "%lld: %s", (long long)(osz[0] < 0 ? osz[0] : osz[1]),
                        ct_format_sizes(input->ndim, sizes, b, sizeof b));
    }
    if (osz[0] < 0 || osz[1] < 0) {
        return ct_error(CT_ERR_RUNTIME, "%s: elements of output_size must be greater than "
                        "or equal to 0 but received {%lld, %lld}", name, (long long)osz[0],
                        (long long)osz[1]);
    }
    if (input->ndim != 3 && input->ndim != 4) {
        return ct_error(CT_ERR_RUNTIME, "%s(): Expected 3D or 4D tensor, but got%s %s", name,
                        name[9] == 'm' ? ":" : "", sizes_str(input, b, sizeof b));
    }
    for (int i = input->ndim == 4 ? 1 : 0; i < input->ndim; i++) {
        if (input->sizes[i] == 0) {
            return ct_error(CT_ERR_RUNTIME, "%s(): Expected input to have non-zero size for "
                            "non-batch dimensions, but input has sizes %s with dimension "
                            "%d being empty", name, sizes_str(input, b, sizeof b), i);
        }
    }
    int nd = input->ndim;
    *g = (pool_geom){0, input->sizes[nd - 2], input->sizes[nd - 1], osz[0], osz[1], NULL};
    g->planes = input->numel / (g->ih * g->iw);
    return 0;
}

ct_tensor *
ct_adaptive_avg_pool2d(const ct_tensor *input, const int64_t *output_size)
{
    pool_geom g;
    if (adaptive_check("adaptive_avg_pool2d", input, output_size, &g) < 0 ||
        check_dtype_of(P_AAVG, input) < 0) {
        return NULL;
    }
    if (ct__is_device(input)) {
        return ct__device_adaptive_avg_pool2d(input, g.oh, g.ow);
    }
    ct_tensor *x = ct_contiguous(input), *y = NULL;
    if (x != NULL && (y = new_like_planes(input, g.oh, g.ow, input->dtype)) != NULL) {
        pool_run(P_AAVG, input->dtype, &g, ct_tensor_data(x), ct_tensor_data(y), NULL,
                 x->numel + y->numel);
    }
    ct_tensor_decref(x);
    return y;
}

ct_tensor *
ct_adaptive_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input)
{
    pool_geom g;
    int nd = grad_out->ndim;
    if (nd < 3 || input->ndim != nd || grad_out->dtype != input->dtype) {
        ct_error(CT_ERR_RUNTIME, "adaptive_avg_pool2d_backward: grad_output and "
                 "input do not match");
        return NULL;
    }
    int64_t osz[2] = {grad_out->sizes[nd - 2], grad_out->sizes[nd - 1]};
    if (adaptive_check("adaptive_avg_pool2d_backward", input, osz, &g) < 0 ||
        check_dtype_of(P_AAVG_BWD, ct__is_device(grad_out) ? grad_out : input) < 0) {
        return NULL;
    }
    /* input gives only the shape, as in ct_avg_pool2d_backward */
    if (ct__is_device(input) &&
        ct__same_device((const ct_tensor *const[]){grad_out, input}, 2) < 0) {
        return NULL;
    }
    if (ct__is_device(grad_out)) {
        return ct__device_adaptive_avg_pool2d_backward(grad_out, input);
    }
    ct_tensor *gy = ct_contiguous(grad_out), *gx = NULL;
    if (gy != NULL && (gx = ct_zeros(nd, input->sizes, input->dtype)) != NULL) {
        pool_run(P_AAVG_BWD, input->dtype, &g, ct_tensor_data(gy), ct_tensor_data(gx), NULL,
                 gx->numel + gy->numel);
    }
    ct_tensor_decref(gy);
    return gx;
}

int
ct_adaptive_max_pool2d(const ct_tensor *input, const int64_t *output_size,
                       ct_tensor **out, ct_tensor **indices)
{
    pool_geom g;
    ct_tensor *x = NULL, *y = NULL, *ix = NULL;
    *out = *indices = NULL;
    if (adaptive_check("adaptive_max_pool2d", input, output_size, &g) < 0 ||
        check_dtype_of(P_AMAX, input) < 0) {
        return -1;
    }
    if (ct__is_device(input)) {
        return ct__device_adaptive_max_pool2d(input, g.oh, g.ow, out, indices);
    }
    if ((x = ct_contiguous(input)) == NULL ||
        (y = new_like_planes(input, g.oh, g.ow, input->dtype)) == NULL ||
        (ix = new_like_planes(input, g.oh, g.ow, CT_DTYPE_INT64)) == NULL) {
        ct_tensor_decref(x);
        ct_tensor_decref(y);
        return -1;
    }
    pool_run(P_AMAX, input->dtype, &g, ct_tensor_data(x), ct_tensor_data(y),
             (int64_t *)ct_tensor_data(ix), x->numel + y->numel);
    ct_tensor_decref(x);
    *out = y;
    *indices = ix;
    return 0;
}
