/* aten/device_conv.c -- convolution and transposed convolution (forward
 * and backward, 1 or 2 spatial dims, groups, stride, padding, dilation) and
 * unfold / fold on a CUDA device, composed of the device's gather,
 * scatter_add and cuBLAS kernels until the part has cuDNN.
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
 * A transposed convolution reads the same products the other way (Note
 * [Convolution as gemm]): its forward is the input-grad product (plus
 * bias), its input gradient the forward product, its weight gradient the
 * weight product with the input as the narrow side and the output
 * gradient as the wide one.  unfold is the column gather alone (one
 * group), fold the scatter-add alone.  The scatter-adds sum overlapping
 * windows in no set order, so those results agree with the CPU's to
 * rounding; half and bfloat16 sum in float and round once.
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

/* cols [n, groups, cg * kh * kw, oh * ow] of the wide side (4-d). */
static ct_tensor *
columns(temps *s, const conv_geom *g, const ct_tensor *wide, const ct_tensor *idx)
{
    int64_t csz[4] = {g->n, g->groups, g->cg * g->kh * g->kw, g->oh * g->ow};
    ct_tensor *planes = wide != NULL ? padded_planes(s, g, wide) : NULL;
    ct_tensor *c = planes != NULL && idx != NULL ? tmp(s, ct_gather(planes, 1, idx)) : NULL;
    return c != NULL ? tmp(s, ct_view(c, 4, csz)) : NULL;
}

/* The wide side [n, c, ih, iw] (contiguous, in dt) of columns cols (any
 * shape of n * groups * cg * kh * kw * oh * ow elements): each added back
 * through the table (overlapping windows add up) in the accumulate dtype,
 * padding cut off. */
static ct_tensor *
col2im(temps *s, const conv_geom *g, const ct_tensor *cols, const ct_tensor *idx,
       ct_dtype dt)
{
    int64_t hp = g->ih + 2 * g->ph, wp = g->iw + 2 * g->pw;
    int64_t flat[2] = {g->n * g->groups, g->cg * g->kh * g->kw * g->oh * g->ow};
    int64_t psz[2] = {g->n * g->groups, g->cg * hp * wp};
    ct_dtype acc = accumulate_dtype(dt);
    ct_tensor *src = cols != NULL ? in_dtype(s, shaped(s, cols, 2, flat), acc) : NULL;
    ct_tensor *planes = src != NULL && idx != NULL
                            ? tmp(s, ct_zeros_on(2, psz, acc, ct_tensor_device(cols)))
                            : NULL;
    if (planes == NULL || ct__device_scatter_add(planes, idx, src, 1) < 0) {
        return NULL;
    }
    int64_t st[4] = {g->c * hp * wp, hp * wp, wp, 1};
    int64_t isz[4] = {g->n, g->c, g->ih, g->iw};
    ct_tensor *inner = tmp(s, ct_tensor_new(planes->storage, planes->offset + g->ph * wp +
                                            g->pw, 4, isz, st, planes->dtype));
    ct_tensor *c = in_dtype(s, inner, dt);
    return c != NULL ? tmp(s, ct_contiguous(c)) : NULL;
}

/* t viewed with two spatial dims (a 1-d convolution has height 1). */
static ct_tensor *
four_d(temps *s, const ct_tensor *t)
{
    if (t->ndim == 4) {
        return (ct_tensor *)t;
    }
    int64_t sz[4] = {t->sizes[0], t->sizes[1], 1, t->sizes[2]};
    return shaped(s, t, 4, sz);
}

/* The three products of Note [Convolution as gemm], each owned by s;
 * cols is columns() of the wide side.
 * forward: narrow [n, o, oh, ow] = W[g] @ cols[n, g]. */
static ct_tensor *
product_forward(temps *s, const conv_geom *g, const ct_tensor *cols, const ct_tensor *weight)
{
    int64_t wsz[3] = {g->groups, g->og, g->cg * g->kh * g->kw};
    int64_t osz[4] = {g->n, g->o, g->oh, g->ow};
    ct_tensor *w = shaped(s, weight, 3, wsz);
    ct_tensor *y = cols != NULL && w != NULL ? tmp(s, ct_matmul(w, cols, NULL)) : NULL;
    return y != NULL ? tmp(s, ct_view(y, 4, osz)) : NULL;
}

/* data: wide [n, c, ih, iw] = col2im(W[g]^T @ narrow[n, g]). */
static ct_tensor *
product_data(temps *s, const conv_geom *g, const ct_tensor *narrow, const ct_tensor *weight,
             const ct_tensor *idx)
{
    int64_t wsz[3] = {g->groups, g->og, g->cg * g->kh * g->kw};
    int64_t gsz[4] = {g->n, g->groups, g->og, g->oh * g->ow};
    ct_tensor *gy = shaped(s, narrow, 4, gsz);
    ct_tensor *w = shaped(s, weight, 3, wsz);
    ct_tensor *wt = w != NULL ? tmp(s, ct_transpose(w, 1, 2)) : NULL;
    ct_tensor *gc = wt != NULL && gy != NULL ? tmp(s, ct_matmul(wt, gy, NULL)) : NULL;
    return col2im(s, g, gc, idx, narrow->dtype);
}

/* weight: dW[g] = sum over n of narrow[n, g] @ cols[n, g]^T (cols: the
 * wide side's columns), shaped like weight. */
static ct_tensor *
product_weight(temps *s, const conv_geom *g, const ct_tensor *cols, const ct_tensor *narrow,
               const ct_tensor *weight)
{
    int64_t gsz[4] = {g->n, g->groups, g->og, g->oh * g->ow}, zero = 0;
    ct_tensor *gy = shaped(s, narrow, 4, gsz);
    ct_tensor *ct = cols != NULL ? tmp(s, ct_transpose(cols, 2, 3)) : NULL;
    ct_tensor *prod = ct != NULL && gy != NULL ? tmp(s, ct_matmul(gy, ct, NULL)) : NULL;
    ct_tensor *sum = sum_over(s, prod, 1, &zero, false);
    return sum != NULL ? shaped(s, sum, weight->ndim, weight->sizes) : NULL;
}

ct_tensor *
ct__device_conv_forward(const conv_geom *g, bool transposed, const int64_t *osz,
                        const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias)
{
    temps s = {0};
    ct_tensor *r = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, weight, bias}, 3) < 0) {
        return NULL;
    }
    /* osz: the output's sizes, the narrow side (the wide one when
     * transposed) */
    int nd = input->ndim;
    ct_device dev = ct_tensor_device(input);
    ct_tensor *y;
    if (input->numel == 0 || weight->numel == 0) {
        /* no products to run (no input channels): zeros, plus the bias */
        ct_tensor *z = ct_zeros_on(nd, osz, input->dtype, dev);
        if (z == NULL || z->numel == 0) {
            return z;
        }
        y = four_d(&s, tmp(&s, z));
    }
    else {
        ct_tensor *table = tmp(&s, column_table(g, dev));
        ct_tensor *idx = table != NULL ? table_rows(&s, g, table) : NULL;
        y = transposed ? product_data(&s, g, input, weight, idx)
                       : product_forward(&s, g, columns(&s, g, four_d(&s, input), idx),
                                         weight);
    }
    if (y != NULL && bias != NULL) {
        int64_t bsz[4] = {1, osz[1], 1, 1};
        y = bin(&s, CT_BINARY_ADD, y, tmp(&s, ct_view(bias, 4, bsz)));
    }
    if (y != NULL) {
        r = result(&s, y, input->dtype, nd, osz);
    }
    temps_free(&s);
    return r;
}

int
ct__device_conv_backward(const conv_geom *g, bool transposed, const ct_tensor *grad_out,
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
    /* the sides of Note [Convolution as gemm] */
    const ct_tensor *wide = transposed ? grad_out : input;
    const ct_tensor *narrow = transposed ? input : grad_out;
    if (mask[2]) {
        /* the sum of grad_out over all but its channels */
        int64_t dims[3] = {0, 2, 3};
        ct_tensor *sum = sum_over(&s, four_d(&s, grad_out), 3, dims, false);
        if (sum == NULL || (*grad_bias = ct_to_dtype(sum, input->dtype, false)) == NULL) {
            goto done;
        }
    }
    if (input->numel == 0 || grad_out->numel == 0) {
        /* no products to run: zero gradients */
        if (mask[0] && (*grad_input = ct_zeros_on(input->ndim, input->sizes, input->dtype,
                                                  dev)) == NULL) {
            goto done;
        }
        if (mask[1] && (*grad_weight = ct_zeros_on(weight->ndim, weight->sizes,
                                                   weight->dtype, dev)) == NULL) {
            goto done;
        }
        rc = 0;
        goto done;
    }
    ct_tensor *table = tmp(&s, column_table(g, dev));
    ct_tensor *idx = table != NULL ? table_rows(&s, g, table) : NULL;
    if (idx == NULL) {
        goto done;
    }
    /* the wide side's columns, built once: the weight's product and a
     * transposed convolution's data product both read them (a failure
     * passes NULL on to them) */
    ct_tensor *cols = mask[1] || (mask[0] && transposed)
                          ? columns(&s, g, four_d(&s, wide), idx) : NULL;
    if (mask[1]) {
        ct_tensor *gw = product_weight(&s, g, cols, narrow, weight);
        if (gw == NULL || (*grad_weight = ct_contiguous(gw)) == NULL) {
            goto done;
        }
    }
    if (mask[0]) {
        ct_tensor *gi = transposed ? product_forward(&s, g, cols, weight)
                                   : product_data(&s, g, grad_out, weight, idx);
        if (gi == NULL ||
            (*grad_input = result(&s, gi, input->dtype, input->ndim, input->sizes)) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, grad_input, grad_weight, grad_bias);
}

/* --- unfold / fold ----------------------------------------------------------- */

ct_tensor *
ct__device_im2col(const conv_geom *g, const ct_tensor *input)
{
    temps s = {0};
    ct_tensor *r = NULL;
    int64_t K = g->c * g->kh * g->kw, osz[3] = {g->n, K, g->oh * g->ow};
    int64_t isz[4] = {g->n, g->c, g->ih, g->iw};
    if (g->n == 0) {
        return ct_empty(3, osz, input->dtype, ct_tensor_device(input));
    }
    ct_tensor *table = tmp(&s, column_table(g, ct_tensor_device(input)));
    ct_tensor *idx = table != NULL ? table_rows(&s, g, table) : NULL;
    ct_tensor *cols = columns(&s, g, shaped(&s, input, 4, isz), idx);
    if (cols != NULL) {
        r = result(&s, cols, input->dtype, 3, osz);
    }
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_col2im(const conv_geom *g, const ct_tensor *input)
{
    temps s = {0};
    ct_tensor *r = NULL;
    int64_t osz[4] = {g->n, g->c, g->ih, g->iw};
    if (g->n == 0) {
        return ct_zeros_on(4, osz, input->dtype, ct_tensor_device(input));
    }
    ct_tensor *table = tmp(&s, column_table(g, ct_tensor_device(input)));
    ct_tensor *idx = table != NULL ? table_rows(&s, g, table) : NULL;
    ct_tensor *x = col2im(&s, g, input, idx, input->dtype);
    if (x != NULL) {
        r = give(x);
    }
    temps_free(&s);
    return r;
}
