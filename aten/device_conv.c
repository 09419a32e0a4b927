/* aten/device_conv.c -- convolution (forward and backward, 1 or 2 spatial
 * dims, groups, stride, padding, dilation) on a CUDA device, composed of
 * the device's gather, scatter_add and cuBLAS kernels until the part has
 * cuDNN.
 *
 * Note [Convolution on a device]
 * It is Note [Convolution as gemm] (conv.c) with the column matrix made by
 * a gather: the input is zero-padded into planes of (hp, wp), and an int64
 * table, built on the host once per call and copied over, names for each
 * column entry (channel c of a group, tap (a, b), output position (y, x))
 * the flat position c * hp * wp + (y * sh + a * dh) * wp + x * sw + b * dw
 * in a group's planes.  Then
 *   forward        y    = W[g] @ cols[n, g]          (+ bias)
 *   input grad     cols = W[g]^T @ dy[n, g], scatter-added back through
 *                  the table (overlapping windows add up), padding cut off
 *   weight grad    dW   = sum over n of dy[n, g] @ cols[n, g]^T
 *   bias grad      the sum of dy over n and the positions
 * as batched matrix products over (n, g).  The columns cost
 * cg * kh * kw * oh * ow elements per sample, as the CPU's im2col does.
 */
#include "aten/device_compose.h"
#include "aten/cpu/conv_impl.h"

#include <ctorch/ops_index.h>
#include <ctorch/ops_linalg.h>

/* The column table of Note [Convolution on a device], on dev: int64
 * [cg * kh * kw, oh * ow]. */
static ct_tensor *
column_table(const conv_geom *g, ct_device dev)
{
    int64_t hp = g->ih + 2 * g->ph, wp = g->iw + 2 * g->pw;
    int64_t sizes[2] = {g->cg * g->kh * g->kw, g->oh * g->ow};
    ct_tensor *host = ct_empty(2, sizes, CT_DTYPE_INT64, ct_device_cpu());
    if (host == NULL) {
        return NULL;
    }
    int64_t *p = (int64_t *)ct_tensor_data(host);
    for (int64_t c = 0; c < g->cg; c++) {
        for (int64_t a = 0; a < g->kh; a++) {
            for (int64_t b = 0; b < g->kw; b++) {
                for (int64_t y = 0; y < g->oh; y++) {
                    for (int64_t x = 0; x < g->ow; x++) {
                        *p++ = c * hp * wp + (y * g->sh + a * g->dh) * wp + x * g->sw +
                               b * g->dw;
                    }
                }
            }
        }
    }
    ct_tensor *t = ct_to_device(host, dev);
    ct_tensor_decref(host);
    return t;
}

/* The input's planes zero-padded, as [n * groups, cg * hp * wp]. */
static ct_tensor *
padded_planes(temps *s, const conv_geom *g, const ct_tensor *x4)
{
    int64_t hp = g->ih + 2 * g->ph, wp = g->iw + 2 * g->pw;
    int64_t flat[2] = {g->n * g->groups, g->cg * hp * wp};
    if (g->ph == 0 && g->pw == 0) {
        return shaped(s, x4, 2, flat);
    }
    int64_t psz[4] = {g->n, g->c, hp, wp};
    ct_tensor *xp = tmp(s, ct_zeros_on(4, psz, x4->dtype, ct_tensor_device(x4)));
    if (xp == NULL) {
        return NULL;
    }
    int64_t st[4] = {g->c * hp * wp, hp * wp, wp, 1};
    int64_t isz[4] = {g->n, g->c, g->ih, g->iw};
    ct_tensor *inner = tmp(s, ct_tensor_new(xp->storage, xp->offset + g->ph * wp + g->pw, 4,
                                            isz, st, xp->dtype));
    if (inner == NULL || ct_copy_(inner, x4) < 0) {
        return NULL;
    }
    return tmp(s, ct_view(xp, 2, flat));
}

/* The table expanded over the [n * groups] rows, flattened. */
static ct_tensor *
table_rows(temps *s, const conv_geom *g, const ct_tensor *table)
{
    int64_t one[2] = {1, table->numel};
    int64_t rows[2] = {g->n * g->groups, table->numel};
    ct_tensor *v = tmp(s, ct_view(table, 2, one));
    return v != NULL ? tmp(s, ct_expand(v, 2, rows)) : NULL;
}

/* cols [n, groups, cg * kh * kw, oh * ow] of the padded input. */
static ct_tensor *
columns(temps *s, const conv_geom *g, const ct_tensor *planes, const ct_tensor *idx)
{
    int64_t csz[4] = {g->n, g->groups, g->cg * g->kh * g->kw, g->oh * g->ow};
    ct_tensor *c = planes != NULL && idx != NULL ? tmp(s, ct_gather(planes, 1, idx)) : NULL;
    return c != NULL ? tmp(s, ct_view(c, 4, csz)) : NULL;
}

/* input / weight / grad viewed with two spatial dims (a 1-d convolution
 * has height 1). */
static ct_tensor *
four_d(temps *s, const ct_tensor *t)
{
    if (t->ndim == 4) {
        return (ct_tensor *)t;
    }
    int64_t sz[4] = {t->sizes[0], t->sizes[1], 1, t->sizes[2]};
    return shaped(s, t, 4, sz);
}

ct_tensor *
ct__device_conv_forward(const conv_geom *g, const ct_tensor *input, const ct_tensor *weight,
                        const ct_tensor *bias)
{
    temps s = {0};
    ct_tensor *r = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, weight, bias}, 3) < 0) {
        return NULL;
    }
    int64_t osz[4] = {g->n, g->o, g->oh, g->ow};
    if (g->n * g->o * g->oh * g->ow == 0) {
        r = ct_zeros_on(4, osz, input->dtype, ct_tensor_device(input));
        goto shape;
    }
    int64_t wsz[3] = {g->groups, g->og, g->cg * g->kh * g->kw};
    ct_tensor *table = tmp(&s, column_table(g, ct_tensor_device(input)));
    ct_tensor *cols = columns(&s, g, padded_planes(&s, g, four_d(&s, input)),
                              table != NULL ? table_rows(&s, g, table) : NULL);
    ct_tensor *w = shaped(&s, weight, 3, wsz);
    ct_tensor *y = cols != NULL && w != NULL ? tmp(&s, ct_matmul(w, cols, NULL)) : NULL;
    ct_tensor *y4 = y != NULL ? tmp(&s, ct_view(y, 4, osz)) : NULL;
    if (y4 != NULL && bias != NULL) {
        int64_t bsz[4] = {1, g->o, 1, 1};
        y4 = bin(&s, CT_BINARY_ADD, y4, tmp(&s, ct_view(bias, 4, bsz)));
    }
    r = y4 != NULL ? ct_contiguous(y4) : NULL;
shape:
    temps_free(&s);
    if (r != NULL && input->ndim == 3) {
        int64_t sz[3] = {g->n, g->o, g->ow};
        ct_tensor *v = ct_view(r, 3, sz);
        ct_tensor_decref(r);
        r = v;
    }
    return r;
}

int
ct__device_conv_backward(const conv_geom *g, const ct_tensor *grad_out,
                         const ct_tensor *input, const ct_tensor *weight, const bool mask[3],
                         ct_tensor **grad_input, ct_tensor **grad_weight,
                         ct_tensor **grad_bias)
{
    temps s = {0};
    int rc = -1;
    *grad_input = *grad_weight = *grad_bias = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad_out, input, weight}, 3) < 0) {
        return -1;
    }
    ct_device dev = ct_tensor_device(input);
    int64_t K = g->cg * g->kh * g->kw, L = g->oh * g->ow;
    int64_t gsz[4] = {g->n, g->groups, g->og, L};
    ct_tensor *gy = shaped(&s, grad_out, 4, gsz);
    ct_tensor *table = tmp(&s, column_table(g, dev));
    ct_tensor *idx = table != NULL ? table_rows(&s, g, table) : NULL;
    if (gy == NULL || idx == NULL) {
        goto done;
    }
    if (mask[2]) {
        int64_t dims[3] = {0, 2, 3};
        int64_t bsz[4] = {g->n, g->o, 1, L};
        ct_tensor *gb = shaped(&s, grad_out, 4, bsz);
        ct_tensor *sum = sum_over(&s, gb, 3, dims, false);
        if (sum == NULL || (*grad_bias = ct_to_dtype(sum, input->dtype, false)) == NULL) {
            goto done;
        }
    }
    if (mask[1]) {
        /* dW[g] = sum over n of dy[n, g] @ cols[n, g]^T */
        ct_tensor *cols = columns(&s, g, padded_planes(&s, g, four_d(&s, input)), idx);
        ct_tensor *ct = cols != NULL ? tmp(&s, ct_transpose(cols, 2, 3)) : NULL;
        ct_tensor *prod = ct != NULL ? tmp(&s, ct_matmul(gy, ct, NULL)) : NULL;
        int64_t zero = 0;
        ct_tensor *sum = sum_over(&s, prod, 1, &zero, false);
        ct_tensor *gw = sum != NULL ? shaped(&s, sum, weight->ndim, weight->sizes) : NULL;
        if (gw == NULL || (*grad_weight = ct_contiguous(gw)) == NULL) {
            goto done;
        }
    }
    if (mask[0]) {
        /* cols = W[g]^T @ dy[n, g], added back through the table */
        int64_t wsz[3] = {g->groups, g->og, K};
        int64_t hp = g->ih + 2 * g->ph, wp = g->iw + 2 * g->pw;
        int64_t flat[2] = {g->n * g->groups, K * L};
        int64_t psz[2] = {g->n * g->groups, g->cg * hp * wp};
        ct_tensor *w = shaped(&s, weight, 3, wsz);
        ct_tensor *wt = w != NULL ? tmp(&s, ct_transpose(w, 1, 2)) : NULL;
        ct_tensor *gc = wt != NULL ? tmp(&s, ct_matmul(wt, gy, NULL)) : NULL;
        ct_tensor *src = gc != NULL ? shaped(&s, gc, 2, flat) : NULL;
        ct_tensor *planes = src != NULL ? tmp(&s, ct_zeros_on(2, psz, input->dtype, dev))
                                        : NULL;
        if (planes == NULL || ct_scatter_(planes, 1, idx, src, ct_scalar_int(0), "add") < 0) {
            goto done;
        }
        int64_t st[4] = {g->c * hp * wp, hp * wp, wp, 1};
        int64_t isz[4] = {g->n, g->c, g->ih, g->iw};
        ct_tensor *inner = tmp(&s, ct_tensor_new(planes->storage, planes->offset +
                                                 g->ph * wp + g->pw, 4, isz, st,
                                                 planes->dtype));
        ct_tensor *gi = inner != NULL ? tmp(&s, ct_contiguous(inner)) : NULL;
        if (gi == NULL ||
            (*grad_input = ct_view(gi, input->ndim, input->sizes)) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, grad_input, grad_weight, grad_bias);
}
