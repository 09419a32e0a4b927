/* aten/device_upsample.c -- nearest and (bi)linear upsampling, forward and
 * backward, on a CUDA device, composed of the device's index_select,
 * pointwise and scatter_add kernels until the part has upsampling kernels.
 *
 * conv_upsample.c makes its checks and builds the per-axis tables (source
 * rows i0 / i1 and their weights l0 / l1, already rounded to the compute
 * type); they go to the device as small vectors, so the arithmetic is the
 * CPU loops' own, step for step:
 *   forward   t0 = x[h0, w0] l0w + x[h0, w1] l1w    (t1 likewise on row h1)
 *             y  = t0 l0h + t1 l1h                   (nearest: y = x[h0, w0])
 *   backward  gx[hi, wj] += (lih ljw) gy, four scatter_adds into the planes
 * in the compute dtype (float for half and bfloat16), rounded once at the
 * end.  The forward is the CPU's bit for bit; the backward's sums run in
 * another order (and, for bfloat16, in float rather than rounding after
 * every addition), so it agrees to rounding.
 */
#include "aten/device_compose.h"
#include "aten/cpu/upsample_impl.h"

#include <string.h>

#include <ctorch/ops_index.h>

/* n int64 values of a host array, as a device tensor. */
static ct_tensor *
table_i64(temps *s, const int64_t *v, int64_t n, ct_device dev)
{
    ct_tensor *h = tmp(s, ct_empty(1, &n, CT_DTYPE_INT64, ct_device_cpu()));
    if (h == NULL) {
        return NULL;
    }
    memcpy(ct_tensor_data(h), v, sizeof(int64_t) * (size_t)n);
    return tmp(s, ct_to_device(h, dev));
}

/* n double values of a host array, in dt on the device, viewed (nd, sizes). */
static ct_tensor *
table_f(temps *s, const double *v, int64_t n, int nd, const int64_t *sizes, ct_dtype dt,
        ct_device dev)
{
    ct_tensor *h = tmp(s, ct_empty(1, &n, CT_DTYPE_FLOAT64, ct_device_cpu()));
    if (h == NULL) {
        return NULL;
    }
    memcpy(ct_tensor_data(h), v, sizeof(double) * (size_t)n);
    ct_tensor *c = in_dtype(s, h, dt);
    ct_tensor *d = c != NULL ? tmp(s, ct_to_device(c, dev)) : NULL;
    return d != NULL ? tmp(s, ct_view(d, nd, sizes)) : NULL;
}

/* One axis's tables on the device: indices, and weights in dt shaped
 * (nd, sizes) to broadcast along their axis. */
typedef struct {
    ct_tensor *i0, *i1, *l0, *l1;
} axis_dev;

static int
axis_to_dev(temps *s, const axis_map *m, int64_t n, int nd, const int64_t *sizes,
            ct_dtype dt, ct_device dev, axis_dev *a)
{
    a->i0 = table_i64(s, m->i0, n, dev);
    a->i1 = table_i64(s, m->i1, n, dev);
    a->l0 = table_f(s, m->l0, n, nd, sizes, dt, dev);
    a->l1 = table_f(s, m->l1, n, nd, sizes, dt, dev);
    return a->i0 != NULL && a->i1 != NULL && a->l0 != NULL && a->l1 != NULL ? 0 : -1;
}

static ct_tensor *
pick(temps *s, const ct_tensor *t, int64_t dim, const ct_tensor *index)
{
    return t != NULL && index != NULL ? tmp(s, ct_index_select(t, dim, index)) : NULL;
}

/* a * wa + b * wb, the CPU loops' order. */
static ct_tensor *
mix(temps *s, const ct_tensor *a, const ct_tensor *wa, const ct_tensor *b,
    const ct_tensor *wb)
{
    return bin(s, CT_BINARY_ADD, bin(s, CT_BINARY_MUL, a, wa), bin(s, CT_BINARY_MUL, b, wb));
}

static ct_tensor *
up_forward(temps *s, const ct_tensor *x, bool nearest, const axis_dev *h, const axis_dev *w,
        ct_dtype acc)
{
    if (nearest) {
        return pick(s, pick(s, x, 1, h->i0), 2, w->i0);
    }
    ct_tensor *r0 = pick(s, x, 1, h->i0), *r1 = pick(s, x, 1, h->i1);
    ct_tensor *t0 = mix(s, in_dtype(s, pick(s, r0, 2, w->i0), acc), w->l0,
                        in_dtype(s, pick(s, r0, 2, w->i1), acc), w->l1);
    ct_tensor *t1 = mix(s, in_dtype(s, pick(s, r1, 2, w->i0), acc), w->l0,
                        in_dtype(s, pick(s, r1, 2, w->i1), acc), w->l1);
    return mix(s, t0, h->l0, t1, h->l1);
}

/* gx [P, ih * iw] += v [P, oh, ow] at rows hi, columns wj. */
static int
add_at(temps *s, ct_tensor *gx, const ct_tensor *v, const ct_tensor *hi,
       const ct_tensor *wj, const up_geom *g)
{
    int64_t hs[2] = {g->oh, 1}, ws[2] = {1, g->ow};
    int64_t flat[2] = {1, g->oh * g->ow}, rows[2] = {g->planes, g->oh * g->ow};
    ct_tensor *r = hi != NULL ? tmp(s, ct_view(hi, 2, hs)) : NULL;
    ct_tensor *c = wj != NULL ? tmp(s, ct_view(wj, 2, ws)) : NULL;
    ct_tensor *pos = bin(s, CT_BINARY_ADD,
                         bin(s, CT_BINARY_MUL, r, scalar(s, ct_scalar_int(g->iw))), c);
    ct_tensor *pf = pos != NULL ? shaped(s, pos, 2, flat) : NULL;
    ct_tensor *idx = pf != NULL ? tmp(s, ct_expand(pf, 2, rows)) : NULL;
    ct_tensor *src = v != NULL ? shaped(s, v, 2, rows) : NULL;
    if (idx == NULL || src == NULL) {
        return -1;
    }
    return ct__device_scatter_add(gx, idx, src, 1);
}

static ct_tensor *
up_backward(temps *s, const ct_tensor *gy, bool nearest, const axis_dev *h, const axis_dev *w,
         const up_geom *g, ct_dtype acc)
{
    int64_t psz[2] = {g->planes, g->ih * g->iw};
    ct_tensor *gx = tmp(s, ct_zeros_on(2, psz, acc, ct_tensor_device(gy)));
    ct_tensor *d = in_dtype(s, gy, acc);
    if (gx == NULL || d == NULL) {
        return NULL;
    }
    if (nearest) {
        return add_at(s, gx, d, h->i0, w->i0, g) < 0 ? NULL : gx;
    }
    /* (lh lw) gy, as the CPU's h0 * w0 * d */
    const ct_tensor *hl[2] = {h->l0, h->l1}, *hi[2] = {h->i0, h->i1};
    const ct_tensor *wl[2] = {w->l0, w->l1}, *wi[2] = {w->i0, w->i1};
    for (int a = 0; a < 2; a++) {
        for (int b = 0; b < 2; b++) {
            ct_tensor *v = bin(s, CT_BINARY_MUL, bin(s, CT_BINARY_MUL, hl[a], wl[b]), d);
            if (add_at(s, gx, v, hi[a], wi[b], g) < 0) {
                return NULL;
            }
        }
    }
    return gx;
}

ct_tensor *
ct__device_upsample(const ct_tensor *x, bool nearest, bool backward, const up_geom *g,
                    int nd, const int64_t *sizes)
{
    temps s = {0};
    ct_tensor *r = NULL;
    ct_device dev = ct_tensor_device(x);
    ct_dtype acc = accumulate_dtype(x->dtype);
    if (g->planes == 0) {
        return backward ? ct_zeros_on(nd, sizes, x->dtype, dev)
                        : ct_empty(nd, sizes, x->dtype, dev);
    }
    /* the weights of rows broadcast along columns: [oh, 1] and [ow] */
    int64_t hsz[2] = {g->oh, 1};
    axis_dev h, w;
    if (axis_to_dev(&s, &g->h, g->oh, 2, hsz, acc, dev, &h) < 0 ||
        axis_to_dev(&s, &g->w, g->ow, 1, &g->ow, acc, dev, &w) < 0) {
        goto done;
    }
    int64_t in3[3] = {g->planes, g->ih, g->iw}, out3[3] = {g->planes, g->oh, g->ow};
    ct_tensor *y = backward
                       ? up_backward(&s, shaped(&s, x, 3, out3), nearest, &h, &w, g, acc)
                       : up_forward(&s, shaped(&s, x, 3, in3), nearest, &h, &w, acc);
    if (y != NULL) {
        r = result(&s, y, x->dtype, nd, sizes);
    }
done:
    temps_free(&s);
    return r;
}
