/* aten/device_norm.c -- batch norm, layer norm and group norm (forward and
 * backward) on a CUDA device, composed of the device's pointwise and
 * reduction kernels until the part has fused ones.
 *
 * The CPU entry points (aten/cpu/norm_layers.c) make their argument checks
 * and branch here for device operands, so the errors are theirs.  Nothing
 * here reads device memory on the host.
 *
 * Every layer works on a view of the input that puts each normalized group
 * on its own dims: batch norm (N, C, S) reducing dims 0 and 2, layer norm
 * (M, N) reducing dim 1, group norm (N, G, D, HxW) reducing dims 2 and 3.
 * Half and bfloat16 are computed in float32 and rounded once at the end,
 * as PyTorch's CUDA kernels do.  The CPU rounds some intermediates to the
 * input dtype and sums in another order, so results agree with it to
 * rounding, not bit for bit.
 */
#include "aten/device_compose.h"

#include <ctorch/ops_nn.h>

/* A 0-dim CPU number. */
static ct_tensor *
num(temps *s, double v)
{
    return scalar(s, ct_scalar_float(v));
}

static ct_tensor *
add(temps *s, const ct_tensor *a, const ct_tensor *b)
{
    return bin(s, CT_BINARY_ADD, a, b);
}

static ct_tensor *
sub(temps *s, const ct_tensor *a, const ct_tensor *b)
{
    return bin(s, CT_BINARY_SUB, a, b);
}

static ct_tensor *
mul(temps *s, const ct_tensor *a, const ct_tensor *b)
{
    return bin(s, CT_BINARY_MUL, a, b);
}

static ct_tensor *
mean_over(temps *s, const ct_tensor *t, int nd, const int64_t *dims)
{
    return t != NULL ? tmp(s, ct_mean(t, nd, dims, true, CT_DTYPE_COUNT)) : NULL;
}

/* 1 / sqrt(var + eps) */
static ct_tensor *
inv_std(temps *s, const ct_tensor *var, double eps)
{
    return un(s, CT_UNARY_RSQRT, add(s, var, num(s, eps)));
}

/* x * weight + bias, weight and bias (either may be NULL: none) viewed
 * as sizes in dtype dt.  (Their conversions are checked here: a NULL
 * from them is an error, never a missing parameter.) */
static ct_tensor *
scale_shift(temps *s, const ct_tensor *x, const ct_tensor *weight, const ct_tensor *bias,
            ct_dtype dt, int nd, const int64_t *sizes)
{
    ct_tensor *y = (ct_tensor *)x;
    if (weight != NULL) {
        y = mul(s, y, shaped(s, in_dtype(s, weight, dt), nd, sizes));
    }
    if (bias != NULL) {
        y = add(s, y, shaped(s, in_dtype(s, bias, dt), nd, sizes));
    }
    return y;
}

/* rstd * (g - mean(g) - xhat * mean(g * xhat)) over dims: the input
 * gradient of a normalization whose statistics came from its input. */
static ct_tensor *
normalized_grad(temps *s, const ct_tensor *g, const ct_tensor *xhat, const ct_tensor *rstd,
                int nd, const int64_t *dims)
{
    ct_tensor *gm = mean_over(s, g, nd, dims);
    ct_tensor *p = mean_over(s, mul(s, g, xhat), nd, dims);
    return mul(s, rstd, sub(s, sub(s, g, gm), mul(s, xhat, p)));
}

/* --- batch norm --------------------------------------------------------------- */

/* r = momentum * v + (1 - momentum) * r in place, computed in float64 as
 * the CPU does and rounded once to r's dtype. */
static int
update_running(temps *s, ct_tensor *r, const ct_tensor *v, double momentum)
{
    ct_tensor *rd = in_dtype(s, r, CT_DTYPE_FLOAT64);
    ct_tensor *vd = shaped(s, in_dtype(s, v, CT_DTYPE_FLOAT64), r->ndim, r->sizes);
    ct_tensor *nv = add(s, mul(s, vd, num(s, momentum)), mul(s, rd, num(s, 1 - momentum)));
    return nv != NULL ? ct_copy_(r, nv) : -1;
}

int
ct__device_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                      const ct_tensor *bias, ct_tensor *running_mean,
                      ct_tensor *running_var, bool training, double momentum, double eps,
                      ct_tensor **out, ct_tensor **save_mean, ct_tensor **save_invstd)
{
    temps s = {0};
    int rc = -1;
    *out = *save_mean = *save_invstd = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, weight, bias, running_mean,
                                                   running_var}, 5) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    int64_t N = input->sizes[0], C = input->sizes[1];
    int64_t S = N * C > 0 ? input->numel / (N * C) : 0;
    int64_t ncs[3] = {N, C, S}, chan[3] = {1, C, 1}, dims[2] = {0, 2}, zero = 0;
    double M = (double)(N * S);
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 3, ncs);
    ct_tensor *mean, *invstd;
    if (training) {
        mean = mean_over(&s, x, 2, dims);
        ct_tensor *xc = sub(&s, x, mean);
        ct_tensor *var_sum = sum_over(&s, mul(&s, xc, xc), 2, dims, true);
        ct_tensor *var = bin(&s, CT_BINARY_DIV, var_sum, num(&s, M));
        invstd = inv_std(&s, var, eps);
        if (eps == 0) {
            /* the CPU's invstd of a constant channel without eps is 0 */
            ct_tensor *flat = bin(&s, CT_BINARY_EQ, var, num(&s, 0));
            invstd = flat != NULL ? tmp(&s, ct_where(flat, num(&s, 0), invstd)) : NULL;
        }
        if (invstd == NULL) {
            goto done;
        }
        /* the running variance is the unbiased one */
        ct_tensor *unbiased =
            bin(&s, CT_BINARY_DIV, in_dtype(&s, var_sum, CT_DTYPE_FLOAT64), num(&s, M - 1));
        if ((running_mean != NULL && update_running(&s, running_mean, mean, momentum) < 0) ||
            (running_var != NULL && update_running(&s, running_var, unbiased, momentum) < 0)) {
            goto done;
        }
        *save_mean = result(&s, mean, dt, 1, &C);
        *save_invstd = result(&s, invstd, dt, 1, &C);
    }
    else {
        mean = shaped(&s, in_dtype(&s, running_mean, acc), 3, chan);
        invstd = inv_std(&s, shaped(&s, in_dtype(&s, running_var, acc), 3, chan), eps);
        *save_mean = ct_empty(1, &zero, dt, ct_tensor_device(input));
        *save_invstd = ct_empty(1, &zero, dt, ct_tensor_device(input));
    }
    if (*save_mean == NULL || *save_invstd == NULL) {
        goto done;
    }
    /* y = x * alpha + beta, alpha = invstd * w, beta = b - mean * alpha */
    ct_tensor *w = shaped(&s, in_dtype(&s, weight, acc), 3, chan);
    ct_tensor *b = shaped(&s, in_dtype(&s, bias, acc), 3, chan);
    ct_tensor *alpha = weight != NULL ? mul(&s, invstd, w) : invstd;
    ct_tensor *ma = mul(&s, mean, alpha);
    ct_tensor *beta = bias != NULL ? sub(&s, b, ma) : un(&s, CT_UNARY_NEG, ma);
    ct_tensor *y = add(&s, mul(&s, x, alpha), beta);
    if (y != NULL && (*out = result(&s, y, dt, input->ndim, input->sizes)) != NULL) {
        rc = 0;
    }
done:
    temps_free(&s);
    return settle(rc, out, save_mean, save_invstd);
}

int
ct__device_batch_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                               const ct_tensor *weight, const ct_tensor *running_mean,
                               const ct_tensor *running_var, const ct_tensor *save_mean,
                               const ct_tensor *save_invstd, bool training, double eps,
                               const bool mask[3], ct_tensor **grad_input,
                               ct_tensor **grad_weight, ct_tensor **grad_bias)
{
    temps s = {0};
    int rc = -1;
    *grad_input = *grad_weight = *grad_bias = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad_out, input, weight, running_mean,
                                                   running_var, save_mean, save_invstd},
                        7) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    ct_dtype pdt = weight != NULL ? weight->dtype : dt;
    int64_t N = input->sizes[0], C = input->sizes[1];
    int64_t S = N * C > 0 ? input->numel / (N * C) : 0;
    int64_t ncs[3] = {N, C, S}, chan[3] = {1, C, 1}, dims[2] = {0, 2};
    double M = (double)(N * S);
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 3, ncs);
    ct_tensor *g = shaped(&s, in_dtype(&s, grad_out, acc), 3, ncs);
    ct_tensor *mean, *invstd;
    if (training) {
        mean = shaped(&s, in_dtype(&s, save_mean, acc), 3, chan);
        invstd = shaped(&s, in_dtype(&s, save_invstd, acc), 3, chan);
    }
    else {
        mean = shaped(&s, in_dtype(&s, running_mean, acc), 3, chan);
        invstd = inv_std(&s, shaped(&s, in_dtype(&s, running_var, acc), 3, chan), eps);
    }
    ct_tensor *xc = sub(&s, x, mean);
    ct_tensor *sum_g = sum_over(&s, g, 2, dims, true);
    ct_tensor *dotp = sum_over(&s, mul(&s, g, xc), 2, dims, true);
    if (dotp == NULL || sum_g == NULL) {
        goto done;
    }
    if (mask[0]) {
        /* training: ((g - mean(g)) - xc * dotp * invstd^2 / M) * invstd * w;
         * eval: the statistics are constants, g * invstd * w */
        ct_tensor *t = g;
        if (training) {
            ct_tensor *k = bin(&s, CT_BINARY_DIV, mul(&s, mul(&s, dotp, invstd), invstd),
                               num(&s, M));
            ct_tensor *gmean = bin(&s, CT_BINARY_DIV, sum_g, num(&s, M));
            t = sub(&s, sub(&s, g, gmean), mul(&s, xc, k));
        }
        ct_tensor *gi = mul(&s, t, invstd);
        if (weight != NULL) {
            gi = mul(&s, gi, shaped(&s, in_dtype(&s, weight, acc), 3, chan));
        }
        if (gi == NULL ||
            (*grad_input = result(&s, gi, dt, input->ndim, input->sizes)) == NULL) {
            goto done;
        }
    }
    if (mask[1] &&
        (*grad_weight = result(&s, mul(&s, dotp, invstd), pdt, 1, &C)) == NULL) {
        goto done;
    }
    if (mask[2] && (*grad_bias = result(&s, sum_g, pdt, 1, &C)) == NULL) {
        goto done;
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, grad_input, grad_weight, grad_bias);
}

/* --- layer norm --------------------------------------------------------------- */

/* The rows M (the dims before the normalized ones) and their length N. */
static void
ln_rows(const ct_tensor *input, int nshape, int64_t *M, int64_t *N)
{
    *M = *N = 1;
    for (int d = 0; d < input->ndim; d++) {
        *(d < input->ndim - nshape ? M : N) *= input->sizes[d];
    }
}

int
ct__device_layer_norm(const ct_tensor *input, int nshape, const ct_tensor *weight,
                      const ct_tensor *bias, double eps, ct_tensor **out, ct_tensor **mean,
                      ct_tensor **rstd)
{
    temps s = {0};
    int rc = -1;
    *out = *mean = *rstd = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, weight, bias}, 3) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    int64_t M, N, stat_shape[CT_MAX_DIMS];
    ln_rows(input, nshape, &M, &N);
    for (int d = 0; d < input->ndim; d++) {
        stat_shape[d] = d < input->ndim - nshape ? input->sizes[d] : 1;
    }
    int64_t rows[2] = {M, N}, row[2] = {1, N}, last = 1;
    /* a row of nothing has NaN moments, as the mean of nothing is */
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 2, rows);
    ct_tensor *mu = mean_over(&s, x, 1, &last);
    ct_tensor *xc = sub(&s, x, mu);
    ct_tensor *rs = inv_std(&s, mean_over(&s, mul(&s, xc, xc), 1, &last), eps);
    ct_tensor *y = scale_shift(&s, mul(&s, xc, rs), weight, bias, acc, 2, row);
    if (y != NULL && (*out = result(&s, y, dt, input->ndim, input->sizes)) != NULL &&
        (*mean = result(&s, mu, dt, input->ndim, stat_shape)) != NULL &&
        (*rstd = result(&s, rs, dt, input->ndim, stat_shape)) != NULL) {
        rc = 0;
    }
    temps_free(&s);
    return settle(rc, out, mean, rstd);
}

int
ct__device_layer_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                               int nshape, const int64_t *normalized_shape,
                               const ct_tensor *mean, const ct_tensor *rstd,
                               const ct_tensor *weight, const bool mask[3],
                               ct_tensor **grad_input, ct_tensor **grad_weight,
                               ct_tensor **grad_bias)
{
    temps s = {0};
    int rc = -1;
    *grad_input = *grad_weight = *grad_bias = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad_out, input, mean, rstd, weight}, 5) <
        0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    ct_dtype pdt = weight != NULL ? weight->dtype : dt;
    int64_t M, N;
    ln_rows(input, nshape, &M, &N);
    int64_t rows[2] = {M, N}, row[2] = {1, N}, col[2] = {M, 1}, first = 0, last = 1;
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 2, rows);
    ct_tensor *g = shaped(&s, in_dtype(&s, grad_out, acc), 2, rows);
    ct_tensor *mu = shaped(&s, in_dtype(&s, mean, acc), 2, col);
    ct_tensor *rs = shaped(&s, in_dtype(&s, rstd, acc), 2, col);
    ct_tensor *xhat = mul(&s, sub(&s, x, mu), rs);
    if (xhat == NULL || g == NULL) {
        goto done;
    }
    if (mask[0]) {
        ct_tensor *gg = scale_shift(&s, g, weight, NULL, acc, 2, row);
        ct_tensor *gi = normalized_grad(&s, gg, xhat, rs, 1, &last);
        if (gi == NULL ||
            (*grad_input = result(&s, gi, dt, input->ndim, input->sizes)) == NULL) {
            goto done;
        }
    }
    /* weight and bias: the per-element sums over the rows */
    if (mask[1] && (*grad_weight = result(&s, sum_over(&s, mul(&s, g, xhat), 1, &first, false),
                                          pdt, nshape, normalized_shape)) == NULL) {
        goto done;
    }
    if (mask[2] && (*grad_bias = result(&s, sum_over(&s, g, 1, &first, false), pdt, nshape,
                                        normalized_shape)) == NULL) {
        goto done;
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, grad_input, grad_weight, grad_bias);
}

/* --- group norm --------------------------------------------------------------- */

/* input (N, C, *) as (N, G, D, HxW), D = C / G channels in each group. */
static void
gn_geometry(const ct_tensor *input, int64_t group, int64_t shape[4])
{
    int64_t hxw = 1;
    for (int d = 2; d < input->ndim; d++) {
        hxw *= input->sizes[d];
    }
    shape[0] = input->sizes[0];
    shape[1] = group;
    shape[2] = input->sizes[1] / group;
    shape[3] = hxw;
}

int
ct__device_group_norm(const ct_tensor *input, const ct_tensor *weight,
                      const ct_tensor *bias, int64_t group, double eps, ct_tensor **out,
                      ct_tensor **mean, ct_tensor **rstd)
{
    temps s = {0};
    int rc = -1;
    *out = *mean = *rstd = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, weight, bias}, 3) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    int64_t ngdh[4], chan[4] = {1, group, 0, 1}, stats[2], dims[2] = {2, 3};
    gn_geometry(input, group, ngdh);
    chan[2] = ngdh[2];
    stats[0] = ngdh[0];
    stats[1] = group;
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 4, ngdh);
    ct_tensor *mu = mean_over(&s, x, 2, dims);
    ct_tensor *xc = sub(&s, x, mu);
    ct_tensor *rs = inv_std(&s, mean_over(&s, mul(&s, xc, xc), 2, dims), eps);
    ct_tensor *y = scale_shift(&s, mul(&s, xc, rs), weight, bias, acc, 4, chan);
    if (y != NULL && (*out = result(&s, y, dt, input->ndim, input->sizes)) != NULL &&
        (*mean = result(&s, mu, dt, 2, stats)) != NULL &&
        (*rstd = result(&s, rs, dt, 2, stats)) != NULL) {
        rc = 0;
    }
    temps_free(&s);
    return settle(rc, out, mean, rstd);
}

int
ct__device_group_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                               const ct_tensor *mean, const ct_tensor *rstd,
                               const ct_tensor *weight, int64_t group, const bool mask[3],
                               ct_tensor **grad_input, ct_tensor **grad_weight,
                               ct_tensor **grad_bias)
{
    temps s = {0};
    int rc = -1;
    *grad_input = *grad_weight = *grad_bias = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad_out, input, mean, rstd, weight}, 5) <
        0) {
        return -1;
    }
    ct_dtype dt = input->dtype, acc = accumulate_dtype(dt);
    ct_dtype pdt = weight != NULL ? weight->dtype : dt;
    int64_t ngdh[4], chan[4] = {1, group, 0, 1}, stat4[4] = {0, group, 1, 1};
    int64_t dims[2] = {2, 3}, per_chan[2] = {0, 3}, C = input->sizes[1];
    gn_geometry(input, group, ngdh);
    chan[2] = ngdh[2];
    stat4[0] = ngdh[0];
    ct_tensor *x = shaped(&s, in_dtype(&s, input, acc), 4, ngdh);
    ct_tensor *g = shaped(&s, in_dtype(&s, grad_out, acc), 4, ngdh);
    ct_tensor *mu = shaped(&s, in_dtype(&s, mean, acc), 4, stat4);
    ct_tensor *rs = shaped(&s, in_dtype(&s, rstd, acc), 4, stat4);
    ct_tensor *xhat = mul(&s, sub(&s, x, mu), rs);
    if (xhat == NULL || g == NULL) {
        goto done;
    }
    if (mask[0]) {
        ct_tensor *gg = scale_shift(&s, g, weight, NULL, acc, 4, chan);
        ct_tensor *gi = normalized_grad(&s, gg, xhat, rs, 2, dims);
        if (gi == NULL ||
            (*grad_input = result(&s, gi, dt, input->ndim, input->sizes)) == NULL) {
            goto done;
        }
    }
    /* weight and bias: per channel, summed over the batch and the space */
    if (mask[1] && (*grad_weight = result(&s, sum_over(&s, mul(&s, g, xhat), 2, per_chan, false),
                                          pdt, 1, &C)) == NULL) {
        goto done;
    }
    if (mask[2] &&
        (*grad_bias = result(&s, sum_over(&s, g, 2, per_chan, false), pdt, 1, &C)) == NULL) {
        goto done;
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, grad_input, grad_weight, grad_bias);
}
