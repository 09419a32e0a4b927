/* aten/cpu/conv_upsample.c -- upsampling of the last one or two dims:
 * nearest and (bi)linear, forward and backward, with torch's index and
 * weight arithmetic (so results match it bit for bit).  Device tensors
 * go, after the checks and with the same tables, to
 * aten/device_upsample.c.
 *
 * Ownership as in ops.h.  Thread-safety: nothing shared; planes are split
 * across the pool of aten/parallel.h.
 */
#include "aten/device.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/loops.h"
#include "aten/cpu/upsample_impl.h"
#include "aten/parallel.h"

#define UPSAMPLE_FORALL_DTYPES(X)                    \
    X(CT_DTYPE_FLOAT32, float, f32, float)           \
    X(CT_DTYPE_FLOAT64, double, f64, double)         \
    X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)

/* torch's compute_scales_value / area_pixel_compute_scale. */
static double
linear_scale(int64_t in, int64_t out, bool align_corners, double scale, bool f32)
{
    if (align_corners) {
        if (out > 1) {
            return f32 ? (double)((float)(in - 1) / (float)(out - 1))
                       : (double)(in - 1) / (double)(out - 1);
        }
        return 0;
    }
    if (scale > 0) {
        return f32 ? (double)(float)(1.0 / scale) : 1.0 / scale;
    }
    return f32 ? (double)((float)in / (float)out) : (double)in / (double)out;
}

static int
axis_fill(axis_map *m, ct_upsample_mode mode, int64_t in, int64_t out,
          bool align_corners, double scale, bool f32)
{
    m->i0 = malloc(sizeof(int64_t) * (size_t)(2 * out + 1));
    m->l0 = malloc(sizeof(double) * (size_t)(2 * out + 1));
    if (m->i0 == NULL || m->l0 == NULL) {
        free(m->i0);
        free(m->l0);
        return ct_error(CT_ERR_NOMEM, "upsample: out of memory");
    }
    m->i1 = m->i0 + out;
    m->l1 = m->l0 + out;
    if (mode == CT_UPSAMPLE_NEAREST) {
        /* nearest_idx: the same size and doubling are exact; else
         * floorf(i * (float)scale), clamped */
        float s = scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
        for (int64_t i = 0; i < out; i++) {
            int64_t k;
            if (out == in) {
                k = i;
            }
            else if (out == 2 * in) {
                k = i >> 1;
            }
            else {
                k = (int64_t)floorf((float)i * s);
                k = k < in - 1 ? k : in - 1;
            }
            m->i0[i] = m->i1[i] = k;
            m->l0[i] = 1;
            m->l1[i] = 0;
        }
        return 0;
    }
    double s = linear_scale(in, out, align_corners, scale, f32);
    for (int64_t i = 0; i < out; i++) {
        if (out == in) {
            /* torch copies when the size does not change, whatever the
             * scale (and its backward is the adjoint of that copy) */
            m->i0[i] = m->i1[i] = i;
            m->l0[i] = 1;
            m->l1[i] = 0;
            continue;
        }
        double r;
        if (align_corners) {
            r = f32 ? (double)((float)s * (float)i) : s * (double)i;
        }
        else {
            /* scale * (i + 0.5) - 0.5 in double, then the compute type */
            r = s * ((double)i + 0.5) - 0.5;
            r = r < 0 ? 0 : r;
            r = f32 ? (double)(float)r : r;
        }
        int64_t k = (int64_t)r;
        m->i0[i] = k;
        m->i1[i] = k + (k < in - 1 ? 1 : 0);
        double l1 = r - (double)k;
        if (f32) {
            l1 = (double)((float)r - (float)k);
        }
        l1 = l1 < 0 ? 0 : (l1 > 1 ? 1 : l1);
        m->l1[i] = l1;
        m->l0[i] = f32 ? (double)(1.0f - (float)l1) : 1.0 - l1;
    }
    return 0;
}

static void
axis_free(axis_map *m)
{
    free(m->i0);
    free(m->l0);
}

typedef void (*up_loop)(const up_geom *g, const char *a, char *b, int64_t p0, int64_t p1);

/* forward: out = (x[h0,w0] w0 + x[h0,w1] w1) h0 + (x[h1,w0] w0 + x[h1,w1] w1) h1,
 * torch's nested interpolate; backward scatters grad * h * w to the four. */
#define UP_LOOPS(E, T, S, A)                                                     \
    static void up_fwd_##S(const up_geom *g, const char *pa, char *pb, int64_t p0, \
                           int64_t p1)                                         \
    {                                                                          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * g->ih * g->iw;                   \
            T *y = (T *)pb + pl * g->oh * g->ow;                               \
            for (int64_t oy = 0; oy < g->oh; oy++) {                           \
                const T *r0 = x + g->h.i0[oy] * g->iw, *r1 = x + g->h.i1[oy] * g->iw; \
                A h0 = (A)g->h.l0[oy], h1 = (A)g->h.l1[oy];                    \
                for (int64_t ox = 0; ox < g->ow; ox++) {                       \
                    int64_t a0 = g->w.i0[ox], a1 = g->w.i1[ox];                \
                    A w0 = (A)g->w.l0[ox], w1 = (A)g->w.l1[ox];                \
                    A t0 = ct__load_##S(r0 + a0) * w0 + ct__load_##S(r0 + a1) * w1; \
                    A t1 = ct__load_##S(r1 + a0) * w0 + ct__load_##S(r1 + a1) * w1; \
                    ct__store_##S(y + oy * g->ow + ox, t0 * h0 + t1 * h1);     \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void up_fwd_near_##S(const up_geom *g, const char *pa, char *pb,    \
                                int64_t p0, int64_t p1)                        \
    {                                                                          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *x = (const T *)pa + pl * g->ih * g->iw;                   \
            T *y = (T *)pb + pl * g->oh * g->ow;                               \
            for (int64_t oy = 0; oy < g->oh; oy++) {                           \
                const T *r = x + g->h.i0[oy] * g->iw;                          \
                for (int64_t ox = 0; ox < g->ow; ox++) {                       \
                    y[oy * g->ow + ox] = r[g->w.i0[ox]];                       \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void up_bwd_##S(const up_geom *g, const char *pa, char *pb, int64_t p0, \
                           int64_t p1)                                         \
    {                                                                          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *gy = (const T *)pa + pl * g->oh * g->ow;                  \
            T *gx = (T *)pb + pl * g->ih * g->iw;                              \
            for (int64_t oy = 0; oy < g->oh; oy++) {                           \
                T *r0 = gx + g->h.i0[oy] * g->iw, *r1 = gx + g->h.i1[oy] * g->iw; \
                A h0 = (A)g->h.l0[oy], h1 = (A)g->h.l1[oy];                    \
                for (int64_t ox = 0; ox < g->ow; ox++) {                       \
                    int64_t a0 = g->w.i0[ox], a1 = g->w.i1[ox];                \
                    A w0 = (A)g->w.l0[ox], w1 = (A)g->w.l1[ox];                \
                    A d = ct__load_##S(gy + oy * g->ow + ox);                  \
                    ct__store_##S(r0 + a0, ct__load_##S(r0 + a0) + h0 * w0 * d); \
                    ct__store_##S(r0 + a1, ct__load_##S(r0 + a1) + h0 * w1 * d); \
                    ct__store_##S(r1 + a0, ct__load_##S(r1 + a0) + h1 * w0 * d); \
                    ct__store_##S(r1 + a1, ct__load_##S(r1 + a1) + h1 * w1 * d); \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void up_bwd_near_##S(const up_geom *g, const char *pa, char *pb,    \
                                int64_t p0, int64_t p1)                        \
    {                                                                          \
        for (int64_t pl = p0; pl < p1; pl++) {                                 \
            const T *gy = (const T *)pa + pl * g->oh * g->ow;                  \
            T *gx = (T *)pb + pl * g->ih * g->iw;                              \
            for (int64_t oy = 0; oy < g->oh; oy++) {                           \
                T *r = gx + g->h.i0[oy] * g->iw;                               \
                for (int64_t ox = 0; ox < g->ow; ox++) {                       \
                    T *q = r + g->w.i0[ox];                                    \
                    ct__store_##S(q, ct__load_##S(q) + ct__load_##S(gy + oy * g->ow + ox)); \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }
UPSAMPLE_FORALL_DTYPES(UP_LOOPS)
#undef UP_LOOPS

enum { U_FWD, U_FWD_NEAR, U_BWD, U_BWD_NEAR, U_COUNT };

static const up_loop up_loops[U_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = up_fwd_##S,
    [U_FWD] = {UPSAMPLE_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, A) [E] = up_fwd_near_##S,
    [U_FWD_NEAR] = {UPSAMPLE_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, A) [E] = up_bwd_##S,
    [U_BWD] = {UPSAMPLE_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, A) [E] = up_bwd_near_##S,
    [U_BWD_NEAR] = {UPSAMPLE_FORALL_DTYPES(X)},
#undef X
};

typedef struct {
    up_loop fn;
    const up_geom *g;
    const char *a;
    char *b;
} up_job;

static void
up_part(void *ctx, int tid, int nthreads)
{
    up_job *j = ctx;
    int64_t lo = j->g->planes * tid / nthreads, hi = j->g->planes * (tid + 1) / nthreads;
    if (lo < hi) {
        j->fn(j->g, j->a, j->b, lo, hi);
    }
}

static const char *
op_name(ct_upsample_mode mode, int nsp, bool backward)
{
    static const char *const names[2][2][2] = {
        {{"upsample_nearest1d", "upsample_nearest1d_backward"},
         {"upsample_nearest2d", "upsample_nearest2d_backward"}},
        {{"upsample_linear1d", "upsample_linear1d_backward"},
         {"upsample_bilinear2d", "upsample_bilinear2d_backward"}},
    };
    return names[mode == CT_UPSAMPLE_LINEAR][nsp == 2][backward];
}

/* Shared by both directions: x has the input sizes, y the output sizes
 * (for the backward, a = grad_out, b = grad_in). */
static ct_tensor *
upsample_run(const ct_tensor *a, ct_upsample_mode mode, int nsp, const int64_t *in_sizes,
             const int64_t *out_sizes, bool align_corners, const double *scales,
             bool backward)
{
    int nd = nsp + 2;
    ct_dtype dt = a->dtype;
    int kind = (backward ? U_BWD : U_FWD) + (mode == CT_UPSAMPLE_NEAREST);
    /* a device takes float16 too, as PyTorch's CUDA upsampling does */
    bool device = ct__is_device(a);
    if (up_loops[kind][dt] == NULL && !(device && dt == CT_DTYPE_FLOAT16)) {
        ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                 op_name(mode, nsp, backward), ct_dtype_table[dt].legacy);
        return NULL;
    }
    up_geom g = {0};
    g.ih = nsp == 2 ? in_sizes[2] : 1;
    g.iw = in_sizes[nd - 1];
    g.oh = nsp == 2 ? out_sizes[2] : 1;
    g.ow = out_sizes[nd - 1];
    g.planes = in_sizes[0] * in_sizes[1];
    bool f32 = dt != CT_DTYPE_FLOAT64;
    double sh = nsp == 2 ? scales[0] : 0, sw = scales[nsp - 1];
    if (axis_fill(&g.h, mode, g.ih, g.oh, align_corners, sh, f32) < 0) {
        return NULL;
    }
    if (axis_fill(&g.w, mode, g.iw, g.ow, align_corners, sw, f32) < 0) {
        axis_free(&g.h);
        return NULL;
    }
    if (device) {
        ct_tensor *r = ct__device_upsample(a, mode == CT_UPSAMPLE_NEAREST, backward, &g, nd,
                                           backward ? in_sizes : out_sizes);
        axis_free(&g.h);
        axis_free(&g.w);
        return r;
    }
    ct_tensor *src = ct_contiguous(a), *dst = NULL;
    if (src != NULL) {
        dst = backward ? ct_zeros(nd, in_sizes, dt)
                       : ct_empty(nd, out_sizes, dt, ct_device_cpu());
    }
    if (dst != NULL && dst->numel > 0 && src->numel > 0) {
        up_job j = {up_loops[kind][dt], &g, ct_tensor_data(src), ct_tensor_data(dst)};
        int nthreads = ct__parallel_threads();
        int64_t work = src->numel + dst->numel;
        if (nthreads > g.planes) {
            nthreads = (int)g.planes;
        }
        if (nthreads > 1 && work >= 65536) {
            ct__parallel_run(nthreads, up_part, &j);
        }
        else {
            up_part(&j, 0, 1);
        }
    }
    ct_tensor_decref(src);
    axis_free(&g.h);
    axis_free(&g.w);
    return dst;
}

static int
check_sizes(int nsp, const int64_t *in, const int64_t *out)
{
    bool ok = true;
    for (int i = 2; i < nsp + 2; i++) {
        ok &= in[i] > 0 && out[i] > 0;
    }
    if (ok) {
        return 0;
    }
    if (nsp == 1) {
        return ct_error(CT_ERR_RUNTIME, "Input and output sizes should be greater than 0, "
                        "but got input (W: %lld) and output (W: %lld)", (long long)in[2],
                        (long long)out[2]);
    }
    return ct_error(CT_ERR_RUNTIME, "Input and output sizes should be greater than 0, but "
                    "got input (H: %lld, W: %lld) output (H: %lld, W: %lld)",
                    (long long)in[2], (long long)in[3], (long long)out[2],
                    (long long)out[3]);
}

ct_tensor *
ct_upsample(const ct_tensor *input, ct_upsample_mode mode, int nsp,
            const int64_t *output_size, bool align_corners, const double *scales)
{
    char b[160];
    int nd = nsp + 2;
    if (input->ndim != nd) {
        ct_error(CT_ERR_RUNTIME, "Expected %dD input tensor, but got %s", nd,
                 ct_format_sizes(input->ndim, input->sizes, b, sizeof b));
        return NULL;
    }
    int64_t out[4];
    out[0] = input->sizes[0];
    out[1] = input->sizes[1];
    for (int i = 0; i < nsp; i++) {
        out[2 + i] = output_size[i];
    }
    if (input->numel == 0 && input->sizes[1] == 0 && input->sizes[0] != 0) {
        ct_error(CT_ERR_RUNTIME, "Non-empty %dD data tensor expected but got a "
                 "tensor with sizes %s", nd,
                 ct_format_sizes(nd, input->sizes, b, sizeof b));
        return NULL;
    }
    if (check_sizes(nsp, input->sizes, out) < 0) {
        return NULL;
    }
    return upsample_run(input, mode, nsp, input->sizes, out, align_corners, scales,
                        false);
}

ct_tensor *
ct_upsample_backward(const ct_tensor *grad_out, ct_upsample_mode mode, int nsp,
                     const int64_t *input_sizes, bool align_corners, const double *scales)
{
    int nd = nsp + 2;
    if (grad_out->ndim != nd || grad_out->sizes[0] != input_sizes[0] ||
        grad_out->sizes[1] != input_sizes[1]) {
        ct_error(CT_ERR_RUNTIME, "%s: grad_output does not match the input",
                 op_name(mode, nsp, true));
        return NULL;
    }
    if (check_sizes(nsp, input_sizes, grad_out->sizes) < 0) {
        return NULL;
    }
    return upsample_run(grad_out, mode, nsp, input_sizes, grad_out->sizes, align_corners,
                        scales, true);
}
