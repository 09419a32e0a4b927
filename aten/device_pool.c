/* aten/device_pool.c -- 2-d pooling (max, average, adaptive average and
 * adaptive max) forward and backward on a CUDA device, composed of the
 * device's gather, reduction, where and scatter_add kernels until the
 * part has pooling kernels.
 *
 * Each call builds on the host one table of its windows, the same for
 * every plane: window element k (row-major within the window, the CPU
 * loops' order) of output position o reads plane position pos[k][o]
 * (h * W + w of the unpadded plane).  Elements that fall in the padding
 * (or past an adaptive window's end, the table being as wide as the
 * widest window) are `invalid`: they read position 0 and where() replaces
 * them (-inf for max, 0 for sums).  So the input is never padded or
 * copied; a gather of the planes [P, H*W] through the table gives
 * [P, K, OL], reduced over K.
 *
 * Max takes the first maximum along K as the CPU does; its index is
 * map[k][o] gathered at the winner k: pos for a valid element, and the
 * CPU's default (its first valid element) for an invalid one, which wins
 * only when nothing beats -inf.  One difference: among several NaNs in a
 * window the device reports the first, the CPU the last.
 *
 * Sums run in the accumulate dtype (float for half and bfloat16) and
 * divide once (adaptive: by the window's height, then its width, as the
 * CPU).  int64 averages are refused, as PyTorch's CUDA refuses them.
 * Results agree with the CPU's to rounding.
 *
 * The entry points of aten/cpu/pool.c make their checks and branch here.
 */
#include "aten/device_compose.h"
#include "aten/cpu/pool_impl.h"

#include <math.h>
#include <string.h>

#include <ctorch/ops_conv.h>
#include <ctorch/ops_index.h>

/* Per output coordinate o along one axis: element i sits at start + i *
 * step and counts when in [lo, hi). */
typedef struct {
    int64_t start, step, lo, hi;
} axis_win;

typedef enum { WIN_POOL, WIN_ADAPTIVE } win_kind;

static axis_win
axis_at(win_kind kind, const ct_pool_params *p, int a, int64_t o, int64_t out, int64_t in)
{
    if (kind == WIN_ADAPTIVE) {
        int64_t s = start_index(o, out, in);
        return (axis_win){s, 1, s, end_index(o, out, in)};
    }
    return (axis_win){o * p->stride[a] - p->padding[a], p->dilation[a], 0, in};
}

/* The tables of one call, on the device (owned by the call's temps). */
typedef struct {
    int64_t kh, kw, oh, ow, ih, iw;
    ct_tensor *pos;     /* [K, OL] int64 */
    ct_tensor *valid;   /* [K, OL] bool; NULL when every element counts */
    ct_tensor *map;     /* [K, OL] int64: max's index for element k (max only) */
} win_table;

/* A host tensor of n elements of dt filled by the caller, then moved to
 * dev by to_dev. */
static ct_tensor *
host(temps *s, int ndim, const int64_t *sizes, ct_dtype dt)
{
    return tmp(s, ct_empty(ndim, sizes, dt, ct_device_cpu()));
}

static ct_tensor *
to_dev(temps *s, const ct_tensor *t, ct_device dev)
{
    return t != NULL ? tmp(s, ct_to_device(t, dev)) : NULL;
}

/* Builds w's tables for output (oh, ow) of an (ih, iw) plane; kh, kw the
 * table's window (for adaptive windows the widest).  with_map: max's
 * index table too. */
static int
win_build(temps *s, win_kind kind, const ct_pool_params *p, int64_t ih, int64_t iw,
          int64_t oh, int64_t ow, bool with_map, ct_device dev, win_table *w)
{
    int64_t kh = 0, kw = 0;
    if (kind == WIN_ADAPTIVE) {
        for (int64_t o = 0; o < oh; o++) {
            int64_t n = end_index(o, oh, ih) - start_index(o, oh, ih);
            kh = n > kh ? n : kh;
        }
        for (int64_t o = 0; o < ow; o++) {
            int64_t n = end_index(o, ow, iw) - start_index(o, ow, iw);
            kw = n > kw ? n : kw;
        }
    }
    else {
        kh = p->kernel[0];
        kw = p->kernel[1];
    }
    *w = (win_table){kh, kw, oh, ow, ih, iw, NULL, NULL, NULL};
    int64_t ol = oh * ow, sz[2] = {kh * kw, oh * ow};
    ct_tensor *pos = host(s, 2, sz, CT_DTYPE_INT64), *valid = host(s, 2, sz, CT_DTYPE_BOOL);
    ct_tensor *map = with_map ? host(s, 2, sz, CT_DTYPE_INT64) : NULL;
    if (pos == NULL || valid == NULL || (with_map && map == NULL)) {
        return -1;
    }
    int64_t *pp = (int64_t *)ct_tensor_data(pos);
    int64_t *mp = with_map ? (int64_t *)ct_tensor_data(map) : NULL;
    bool *vp = (bool *)ct_tensor_data(valid), masked = false;
    for (int64_t oy = 0; oy < oh; oy++) {
        axis_win ay = axis_at(kind, p, 0, oy, oh, ih);
        /* the CPU max loops' default index: the window's first row and
         * column in the plane (stepping over the padding) */
        int64_t y0 = ay.start;
        while (y0 < ay.lo) {
            y0 += ay.step;
        }
        for (int64_t ox = 0; ox < ow; ox++) {
            axis_win ax = axis_at(kind, p, 1, ox, ow, iw);
            int64_t x0 = ax.start;
            while (x0 < ax.lo) {
                x0 += ax.step;
            }
            int64_t o = oy * ow + ox;
            for (int64_t i = 0; i < kh; i++) {
                int64_t r = ay.start + i * ay.step;
                for (int64_t j = 0; j < kw; j++) {
                    int64_t c = ax.start + j * ax.step, e = (i * kw + j) * ol + o;
                    bool v = r >= ay.lo && r < ay.hi && c >= ax.lo && c < ax.hi;
                    pp[e] = v ? r * iw + c : 0;
                    vp[e] = v;
                    masked |= !v;
                    if (mp != NULL) {
                        mp[e] = v ? r * iw + c : y0 * iw + x0;
                    }
                }
            }
        }
    }
    w->pos = to_dev(s, pos, dev);
    w->valid = masked ? to_dev(s, valid, dev) : NULL;
    w->map = with_map ? to_dev(s, map, dev) : NULL;
    return w->pos == NULL || (masked && w->valid == NULL) || (with_map && w->map == NULL)
               ? -1 : 0;
}

/* A 0-dim v of dtype dt on dev (where()'s filler). */
static ct_tensor *
filler(temps *s, double v, ct_dtype dt, ct_device dev)
{
    ct_tensor *h = tmp(s, ct_full(0, NULL, ct_scalar_float(v), dt));
    return to_dev(s, h, dev);
}

/* t's sizes with its last two replaced by (h, w), into sizes. */
static void
plane_sizes(const ct_tensor *t, int64_t h, int64_t w, int64_t *sizes)
{
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sizes[t->ndim - 2] = h;
    sizes[t->ndim - 1] = w;
}

static int64_t
planes_of(const ct_tensor *t)
{
    int64_t p = 1;
    for (int d = 0; d < t->ndim - 2; d++) {
        p *= t->sizes[d];
    }
    return p;
}

/* The window elements of every plane of input: [P, K, OL], invalid ones
 * replaced by fill. */
static ct_tensor *
gather_windows(temps *s, const ct_tensor *input, const win_table *w, double fill)
{
    int64_t P = planes_of(input), K = w->kh * w->kw, OL = w->oh * w->ow;
    int64_t xs[2] = {P, w->ih * w->iw}, gs[2] = {P, K * OL}, one[2] = {1, K * OL};
    int64_t g3[3] = {P, K, OL};
    ct_tensor *x = tmp(s, ct_reshape(input, 2, xs));
    ct_tensor *pv = w->pos != NULL ? tmp(s, ct_view(w->pos, 2, one)) : NULL;
    ct_tensor *ix = pv != NULL ? tmp(s, ct_expand(pv, 2, gs)) : NULL;
    ct_tensor *g = tmp(s, ct_empty(2, gs, input->dtype, ct_tensor_device(input)));
    if (x == NULL || ix == NULL || g == NULL || ct__device_gather(g, x, ix, 1) < 0) {
        return NULL;
    }
    ct_tensor *r = tmp(s, ct_view(g, 3, g3));
    if (r != NULL && w->valid != NULL) {
        ct_tensor *f = filler(s, fill, input->dtype, ct_tensor_device(input));
        r = f != NULL ? tmp(s, ct_where(w->valid, r, f)) : NULL;
    }
    return r;
}

/* r ([P, OL], owned by s) as a new tensor shaped like `like` with planes
 * (oh, ow), in dt. */
static ct_tensor *
finish(temps *s, const ct_tensor *r, const ct_tensor *like, int64_t oh, int64_t ow,
       ct_dtype dt)
{
    int64_t sizes[CT_MAX_DIMS];
    plane_sizes(like, oh, ow, sizes);
    return result(s, r, dt, like->ndim, sizes);
}

static ct_tensor *
empty_planes(const ct_tensor *like, int64_t h, int64_t w, ct_dtype dt)
{
    int64_t sizes[CT_MAX_DIMS];
    plane_sizes(like, h, w, sizes);
    return ct_empty(like->ndim, sizes, dt, ct_tensor_device(like));
}

/* --- max ------------------------------------------------------------------ */

static int
max_common(win_kind kind, const ct_tensor *input, const ct_pool_params *p, int64_t oh,
           int64_t ow, ct_tensor **out, ct_tensor **indices)
{
    temps s = {0};
    win_table w;
    int rc = -1;
    ct_device dev = ct_tensor_device(input);
    int nd = input->ndim;
    *out = *indices = NULL;
    if (input->numel == 0 || oh * ow == 0) {
        *out = empty_planes(input, oh, ow, input->dtype);
        *indices = empty_planes(input, oh, ow, CT_DTYPE_INT64);
        rc = *out != NULL && *indices != NULL ? 0 : -1;
        goto done;
    }
    if (win_build(&s, kind, p, input->sizes[nd - 2], input->sizes[nd - 1], oh, ow, true,
                  dev, &w) < 0) {
        goto done;
    }
    ct_tensor *g = gather_windows(&s, input, &w, -INFINITY);
    ct_tensor *vals = NULL, *kidx = NULL;
    if (g == NULL || ct_max_dim(g, 1, true, &vals, &kidx) < 0) {
        goto done;
    }
    tmp(&s, vals);
    tmp(&s, kidx);
    /* the index: map[k][o] at the winning k, per plane */
    int64_t P = planes_of(input), K = w.kh * w.kw, OL = oh * ow;
    int64_t ms[3] = {1, K, OL}, me[3] = {P, K, OL}, is[3] = {P, 1, OL};
    ct_tensor *m = tmp(&s, ct_view(w.map, 3, ms));
    m = m != NULL ? tmp(&s, ct_expand(m, 3, me)) : NULL;
    ct_tensor *ix = tmp(&s, ct_empty(3, is, CT_DTYPE_INT64, dev));
    if (m == NULL || ix == NULL || ct__device_gather(ix, m, kidx, 1) < 0) {
        goto done;
    }
    *out = finish(&s, vals, input, oh, ow, input->dtype);
    *indices = *out != NULL ? finish(&s, ix, input, oh, ow, CT_DTYPE_INT64) : NULL;
    rc = *out != NULL && *indices != NULL ? 0 : -1;
done:
    temps_free(&s);
    return settle(rc, out, indices, NULL);
}

int
ct__device_max_pool2d(const ct_tensor *input, const ct_pool_params *p, int64_t oh,
                      int64_t ow, ct_tensor **out, ct_tensor **indices)
{
    return max_common(WIN_POOL, input, p, oh, ow, out, indices);
}

int
ct__device_adaptive_max_pool2d(const ct_tensor *input, int64_t oh, int64_t ow,
                               ct_tensor **out, ct_tensor **indices)
{
    return max_common(WIN_ADAPTIVE, input, NULL, oh, ow, out, indices);
}

ct_tensor *
ct__device_max_pool_backward(const ct_tensor *grad_out, const ct_tensor *input,
                             const ct_tensor *indices)
{
    temps s = {0};
    ct_tensor *r = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad_out, input, indices}, 3) < 0) {
        return NULL;
    }
    int nd = input->ndim;
    int64_t P = planes_of(input), ih = input->sizes[nd - 2], iw = input->sizes[nd - 1];
    int64_t xs[2] = {P, ih * iw}, os[2] = {P, grad_out->numel / (P > 0 ? P : 1)};
    if (input->numel == 0 || grad_out->numel == 0) {
        return ct_zeros_on(nd, input->sizes, input->dtype, ct_tensor_device(input));
    }
    /* grad_input[plane][indices] += grad_out, the indices checked by
     * scatter (an out-of-plane one raises its IndexError) */
    ct_tensor *g = in_dtype(&s, grad_out, input->dtype);
    g = g != NULL ? tmp(&s, ct_reshape(g, 2, os)) : NULL;
    ct_tensor *ix = tmp(&s, ct_reshape(indices, 2, os));
    ct_tensor *z = g != NULL && ix != NULL
                       ? tmp(&s, ct_zeros_on(2, xs, input->dtype, ct_tensor_device(input)))
                       : NULL;
    if (z != NULL && ct_scatter_(z, 1, ix, g, ct_scalar_int(0), "add") == 0) {
        r = ct_reshape(z, nd, input->sizes);
    }
    temps_free(&s);
    return r;
}

/* --- average -------------------------------------------------------------- */

/* The divisors of each output position in dt: avg_pool2d's (one table;
 * a window wholly in the padding divides by 1, its sum being 0) or the
 * adaptive windows' heights and widths (two). */
static int
divisors(temps *s, win_kind kind, const ct_pool_params *p, int64_t ih, int64_t iw,
         int64_t oh, int64_t ow, ct_dtype dt, ct_device dev, ct_tensor **d0, ct_tensor **d1)
{
    int64_t ol = oh * ow, two[2] = {2, ol};
    ct_tensor *h = host(s, 2, two, CT_DTYPE_FLOAT64);
    if (h == NULL) {
        return -1;
    }
    double *v = (double *)ct_tensor_data(h);
    for (int64_t oy = 0; oy < oh; oy++) {
        for (int64_t ox = 0; ox < ow; ox++) {
            int64_t o = oy * ow + ox;
            if (kind == WIN_ADAPTIVE) {
                v[o] = (double)(end_index(oy, oh, ih) - start_index(oy, oh, ih));
                v[ol + o] = (double)(end_index(ox, ow, iw) - start_index(ox, ow, iw));
                continue;
            }
            int64_t y0, y1, x0, x1, div;
            avg_window(p, oy, ox, ih, iw, &y0, &y1, &x0, &x1, &div);
            div = div == 0 ? 1 : div;   /* wholly in the padding: its sum is 0 */
            v[o] = (double)div;
        }
    }
    ct_tensor *hd = in_dtype(s, h, dt);
    ct_tensor *dd = to_dev(s, hd, dev);
    *d0 = dd != NULL ? tmp(s, ct_select(dd, 0, 0)) : NULL;
    *d1 = dd != NULL && kind == WIN_ADAPTIVE ? tmp(s, ct_select(dd, 0, 1)) : NULL;
    return *d0 != NULL && (kind != WIN_ADAPTIVE || *d1 != NULL) ? 0 : -1;
}

static ct_tensor *
divide(temps *s, const ct_tensor *t, const ct_tensor *d)
{
    return bin(s, CT_BINARY_DIV, t, d);
}

/* PyTorch's CUDA average pools take the floating types only (the CPU's
 * also int64); -1 with its error for the others. */
static int
floating_only(const char *name, ct_dtype dt)
{
    if (!ct_dtype_table[dt].is_floating) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[dt].legacy);
    }
    return 0;
}

static ct_tensor *
avg_common(win_kind kind, const ct_tensor *input, const ct_pool_params *p, int64_t oh,
           int64_t ow)
{
    temps s = {0};
    win_table w;
    ct_tensor *r = NULL, *d0, *d1;
    ct_device dev = ct_tensor_device(input);
    ct_dtype acc = accumulate_dtype(input->dtype);
    int nd = input->ndim;
    int64_t ih = input->sizes[nd - 2], iw = input->sizes[nd - 1];
    if (floating_only("avg_pool2d_out_cuda_frame", input->dtype) < 0) {
        return NULL;
    }
    if (input->numel == 0 || oh * ow == 0) {
        return empty_planes(input, oh, ow, input->dtype);
    }
    if (win_build(&s, kind, p, ih, iw, oh, ow, false, dev, &w) < 0 ||
        divisors(&s, kind, p, ih, iw, oh, ow, acc, dev, &d0, &d1) < 0) {
        goto done;
    }
    int64_t k = 1;
    ct_tensor *g = in_dtype(&s, gather_windows(&s, input, &w, 0), acc);
    ct_tensor *q = divide(&s, sum_over(&s, g, 1, &k, false), d0);
    if (kind == WIN_ADAPTIVE) {
        q = divide(&s, q, d1);
    }
    if (q != NULL) {
        r = finish(&s, q, input, oh, ow, input->dtype);
    }
done:
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_avg_pool2d(const ct_tensor *input, const ct_pool_params *p, int64_t oh,
                      int64_t ow)
{
    return avg_common(WIN_POOL, input, p, oh, ow);
}

ct_tensor *
ct__device_adaptive_avg_pool2d(const ct_tensor *input, int64_t oh, int64_t ow)
{
    return avg_common(WIN_ADAPTIVE, input, NULL, oh, ow);
}

/* Each output's gradient over its divisor(s), added at its window's
 * elements.  input gives only the shape (autograd passes a CPU one). */
static ct_tensor *
avg_backward(win_kind kind, const ct_tensor *grad_out, const ct_tensor *input,
             const ct_pool_params *p)
{
    temps s = {0};
    win_table w;
    ct_tensor *r = NULL, *d0, *d1;
    ct_device dev = ct_tensor_device(grad_out);
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    int nd = input->ndim;
    int64_t ih = input->sizes[nd - 2], iw = input->sizes[nd - 1];
    int64_t oh = grad_out->sizes[nd - 2], ow = grad_out->sizes[nd - 1];
    if (floating_only("avg_pool2d_backward_out_cuda_frame", dt) < 0) {
        return NULL;
    }
    if (input->numel == 0 || grad_out->numel == 0) {
        return ct_zeros_on(nd, input->sizes, dt, dev);
    }
    if (win_build(&s, kind, p, ih, iw, oh, ow, false, dev, &w) < 0 ||
        divisors(&s, kind, p, ih, iw, oh, ow, acc, dev, &d0, &d1) < 0) {
        goto done;
    }
    int64_t P = planes_of(input), K = w.kh * w.kw, OL = oh * ow;
    int64_t gs[3] = {P, 1, OL}, full[3] = {P, K, OL}, flat[2] = {P, K * OL},
            one[2] = {1, K * OL}, xs[2] = {P, ih * iw};
    ct_tensor *g = in_dtype(&s, grad_out, acc);
    g = g != NULL ? tmp(&s, ct_reshape(g, 3, gs)) : NULL;
    g = divide(&s, g, d0);
    if (kind == WIN_ADAPTIVE) {
        g = divide(&s, g, d1);
    }
    g = in_dtype(&s, g, dt);
    /* [P, K, OL]: the share of every window element, 0 for invalid ones
     * (which all add at position 0) */
    ct_tensor *src = NULL;
    if (g != NULL && w.valid != NULL) {
        src = tmp(&s, ct_where(w.valid, g, filler(&s, 0, dt, dev)));
    }
    else if (g != NULL) {
        src = tmp(&s, ct_expand(g, 3, full));
    }
    src = src != NULL ? tmp(&s, ct_reshape(src, 2, flat)) : NULL;
    ct_tensor *pv = tmp(&s, ct_view(w.pos, 2, one));
    ct_tensor *ix = pv != NULL ? tmp(&s, ct_expand(pv, 2, flat)) : NULL;
    ct_tensor *z = tmp(&s, ct_zeros_on(2, xs, dt, dev));
    if (src != NULL && ix != NULL && z != NULL && ct__device_scatter_add(z, ix, src, 1) == 0) {
        r = ct_reshape(z, nd, input->sizes);
    }
done:
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input,
                               const ct_pool_params *p)
{
    return avg_backward(WIN_POOL, grad_out, input, p);
}

ct_tensor *
ct__device_adaptive_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input)
{
    return avg_backward(WIN_ADAPTIVE, grad_out, input, NULL);
}
