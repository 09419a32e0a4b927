/* aten/device_nn.c -- softmax, log_softmax and nll_loss (forward and
 * backward) on a CUDA device, composed of the device's pointwise,
 * reduction and where kernels until the part has fused ones.
 *
 * The CPU entry points (reduce_scan.c, softmax.c, loss.c) make their
 * argument checks and branch here for device operands, so the errors are
 * theirs.  Everything runs in stream order on the device; the one host
 * read is nll_loss's target check (see nll_targets_ok).
 *
 * Half and bfloat16 inputs are computed in float32 and rounded once at the
 * end, as PyTorch's CUDA kernels accumulate in their accumulate type.
 * Sums are the device's, so results agree with the CPU's to rounding, not
 * bit for bit (PyTorch's CUDA and CPU results differ the same way).
 */
#include "aten/device_compose.h"

#include <ctorch/ops_nn.h>

/* t as a new reference owned by the caller (t owned by s). */
static ct_tensor *
give(ct_tensor *t)
{
    if (t != NULL) {
        ct_tensor_incref(t);
    }
    return t;
}

static ct_tensor *
sum_dim(temps *s, const ct_tensor *t, int64_t dim, bool keepdim)
{
    return sum_over(s, t, 1, &dim, keepdim);
}

/* t viewed as one dim when it has none, so that dim 0 exists. */
static ct_tensor *
at_least_1d(temps *s, const ct_tensor *t)
{
    int64_t one = 1;
    return t->ndim > 0 ? (ct_tensor *)t : tmp(s, ct_view(t, 1, &one));
}

/* The result r (owned by s) in dt, contiguous as PyTorch's softmax
 * outputs are, with like's sizes: a new reference. */
static ct_tensor *
finish(temps *s, const ct_tensor *r, ct_dtype dt, const ct_tensor *like)
{
    ct_tensor *c = in_dtype(s, r, dt);
    c = c != NULL ? tmp(s, ct_contiguous(c)) : NULL;
    return c != NULL ? ct_reshape(c, like->ndim, like->sizes) : NULL;
}

ct_tensor *
ct__device_softmax(const ct_tensor *t, int dim, bool log)
{
    temps s = {0};
    ct_tensor *r = NULL;
    if (t->numel == 0) {
        return ct_empty(t->ndim, t->sizes, t->dtype, ct_tensor_device(t));
    }
    /* softmax: e / sum e, log_softmax: (x - max) - log(sum e), with
     * e = exp(x - max) along dim */
    int64_t d = dim;
    ct_tensor *x = in_dtype(&s, at_least_1d(&s, t), accumulate_dtype(t->dtype));
    ct_tensor *m = x != NULL ? tmp(&s, ct_amax(x, 1, &d, true)) : NULL;
    ct_tensor *shifted = m != NULL ? tmp(&s, ct_sub(x, m, ct_scalar_int(1))) : NULL;
    ct_tensor *e = un(&s, CT_UNARY_EXP, shifted);
    ct_tensor *z = sum_dim(&s, e, d, true);
    ct_tensor *y = log ? bin(&s, CT_BINARY_SUB, shifted, un(&s, CT_UNARY_LOG, z))
                       : bin(&s, CT_BINARY_DIV, e, z);
    if (y != NULL) {
        r = finish(&s, y, t->dtype, t);
    }
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_softmax_backward(const ct_tensor *grad, const ct_tensor *output, int dim,
                            bool log)
{
    temps s = {0};
    ct_tensor *r = NULL;
    if (ct__same_device((const ct_tensor *const[]){grad, output}, 2) < 0) {
        return NULL;
    }
    if (output->numel == 0) {
        return ct_empty(output->ndim, output->sizes, output->dtype,
                        ct_tensor_device(output));
    }
    /* softmax: (g - sum(g y)) y; log_softmax: g - exp(y) sum(g) */
    int64_t d = dim;
    ct_dtype acc = accumulate_dtype(output->dtype);
    ct_tensor *g = in_dtype(&s, at_least_1d(&s, grad), acc);
    ct_tensor *y = in_dtype(&s, at_least_1d(&s, output), acc);
    ct_tensor *gi;
    if (log) {
        ct_tensor *p = un(&s, CT_UNARY_EXP, y);
        gi = bin(&s, CT_BINARY_SUB, g, bin(&s, CT_BINARY_MUL, p, sum_dim(&s, g, d, true)));
    }
    else {
        ct_tensor *dot = sum_dim(&s, bin(&s, CT_BINARY_MUL, g, y), d, true);
        gi = bin(&s, CT_BINARY_MUL, bin(&s, CT_BINARY_SUB, g, dot), y);
    }
    if (gi != NULL) {
        r = finish(&s, gi, output->dtype, output);
    }
    temps_free(&s);
    return r;
}

/* --- nll_loss ---------------------------------------------------------------- */

/* The pieces both directions of nll_loss share, for input (C), (N, C) or
 * (N, C, H, W) with class dim cd and target of its other dims:
 * `pick`, a bool tensor of input's shape, true at each counted target's
 * class (false along the whole class dim of an ignored target); `wsel`,
 * each target's weight (1 without weight, 0 when ignored) in the input's
 * dtype; `wb`, the weight viewed along the class dim (NULL without). */
typedef struct {
    int cd;
    ct_tensor *tb;      /* the targets (int64) with a 1 at the class dim */
    ct_tensor *pick, *wsel, *wb, *zero;
} nll_parts;

/* Whether every target is ignore_index or a class in [0, C): -1 with the
 * CPU's IndexError for the first that is not.  A device asserts instead
 * (PyTorch), which ends the process's CUDA context; reading back one flag
 * costs a synchronization and keeps the error catchable, as on the CPU. */
static int
nll_targets_ok(temps *s, const ct_tensor *t, int64_t C, int64_t ignore)
{
    /* ignored targets stand in as class 0 */
    ct_tensor *ig = bin(s, CT_BINARY_EQ, t, scalar(s, ct_scalar_int(ignore)));
    ct_tensor *zero = scalar(s, ct_scalar_int(0));
    ct_tensor *kept = ig != NULL && zero != NULL ? tmp(s, ct_where(ig, zero, t)) : NULL;
    bool bad = false;
    int64_t v = 0;
    if (kept == NULL || ct__device_index_check(kept, 0, C, &bad, &v) < 0) {
        return -1;
    }
    return bad ? ct_error(CT_ERR_INDEX, "Target %lld is out of bounds.", (long long)v) : 0;
}

static int
nll_prepare(temps *s, const ct_tensor *input, const ct_tensor *target,
            const ct_tensor *weight, int64_t ignore, nll_parts *p)
{
    p->cd = input->ndim == 1 ? 0 : 1;
    int64_t C = input->sizes[p->cd];
    ct_tensor *t = in_dtype(s, target, CT_DTYPE_INT64);
    if (t == NULL || nll_targets_ok(s, t, C, ignore) < 0) {
        return -1;
    }
    p->tb = input->ndim == 1 ? t : tmp(s, ct_unsqueeze(t, 1));
    /* the classes 0..C-1 along the class dim, broadcasting over the rest */
    int64_t shape[CT_MAX_DIMS];
    int nd = input->ndim - p->cd;
    for (int k = 0; k < nd; k++) {
        shape[k] = k == 0 ? C : 1;
    }
    ct_tensor *cls = tmp(s, ct_arange(ct_scalar_int(0), ct_scalar_int(C), ct_scalar_int(1),
                                      CT_DTYPE_INT64));
    ct_tensor *cd = cls != NULL ? tmp(s, ct_to_device(cls, ct_tensor_device(input))) : NULL;
    ct_tensor *cv = cd != NULL ? tmp(s, ct_view(cd, nd, shape)) : NULL;
    ct_tensor *kept = bin(s, CT_BINARY_NE, p->tb, scalar(s, ct_scalar_int(ignore)));
    p->pick = bin(s, CT_BINARY_LOGICAL_AND, bin(s, CT_BINARY_EQ, p->tb, cv), kept);
    ct_tensor *z = scalar(s, ct_scalar_int(0));
    p->zero = z != NULL ? in_dtype(s, tmp(s, ct_to_device(z, ct_tensor_device(input))),
                                   input->dtype)
                        : NULL;
    if (p->pick == NULL || p->zero == NULL) {
        return -1;
    }
    p->wb = NULL;
    if (weight != NULL) {
        p->wb = tmp(s, ct_view(weight, nd, shape));
        ct_tensor *sel = p->wb != NULL ? tmp(s, ct_where(p->pick, p->wb, p->zero)) : NULL;
        p->wsel = sum_dim(s, sel, p->cd, false);
    }
    else {
        int64_t one = 1;
        ct_tensor *k = input->ndim == 1 ? kept : tmp(s, ct_squeeze(kept, &one));
        p->wsel = in_dtype(s, k, input->dtype);
    }
    return p->wsel != NULL ? 0 : -1;
}

int
ct__device_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                    ct_reduction reduction, int64_t ignore_index, ct_tensor **output,
                    ct_tensor **total_weight)
{
    temps s = {0};
    nll_parts p;
    int rc = -1;
    *output = *total_weight = NULL;
    if (ct__same_device((const ct_tensor *const[]){input, target, weight}, 3) < 0 ||
        nll_prepare(&s, input, target, weight, ignore_index, &p) < 0) {
        goto done;
    }
    /* each target's -input[class] * weight[class], 0 when ignored */
    ct_tensor *x = tmp(&s, ct_where(p.pick, input, p.zero));
    ct_tensor *picked = sum_dim(&s, x, p.cd, false);
    ct_tensor *loss = un(&s, CT_UNARY_NEG,
                            weight != NULL ? bin(&s, CT_BINARY_MUL, picked, p.wsel)
                                           : picked);
    if (loss == NULL) {
        goto done;
    }
    if (reduction == CT_REDUCTION_NONE) {
        *output = give(loss);
        *total_weight = ct_to_dtype(p.zero, input->dtype, true);
    }
    else {
        ct_tensor *tw = tmp(&s, ct_sum(p.wsel, 0, NULL, false, CT_DTYPE_COUNT));
        ct_tensor *sum = tmp(&s, ct_sum(loss, 0, NULL, false, CT_DTYPE_COUNT));
        *output = give(reduction == CT_REDUCTION_MEAN ? bin(&s, CT_BINARY_DIV, sum, tw)
                                                      : sum);
        *total_weight = give(tw);
    }
    if (*output == NULL || *total_weight == NULL) {
        ct_tensor_decref(*output);
        ct_tensor_decref(*total_weight);
        *output = *total_weight = NULL;
        goto done;
    }
    rc = 0;
done:
    temps_free(&s);
    return rc;
}

ct_tensor *
ct__device_nll_loss_backward(const ct_tensor *grad, const ct_tensor *input,
                             const ct_tensor *target, const ct_tensor *weight,
                             ct_reduction reduction, int64_t ignore_index,
                             const ct_tensor *total_weight)
{
    temps s = {0};
    nll_parts p;
    ct_tensor *r = NULL;
    ct_device dev;
    if (ct__same_device((const ct_tensor *const[]){input, target, weight}, 3) < 0 ||
        ct__op_device(5, 0, (const ct_tensor *const[]){input, grad, total_weight, target,
                                                        weight}, &dev) < 0 ||
        nll_prepare(&s, input, target, weight, ignore_index, &p) < 0) {
        goto done;
    }
    /* -weight[class] * g at each counted target's class, 0 elsewhere; g is
     * the element's gradient (none), or the one gradient over the total
     * weight (mean) */
    ct_tensor *g = in_dtype(&s, grad, input->dtype);
    if (reduction == CT_REDUCTION_NONE && g != NULL && input->ndim > 1) {
        g = tmp(&s, ct_unsqueeze(g, 1));
    }
    else if (g != NULL) {
        g = tmp(&s, ct_reshape(g, 0, NULL));
        if (g != NULL && reduction == CT_REDUCTION_MEAN) {
            g = bin(&s, CT_BINARY_DIV, g, in_dtype(&s, total_weight, input->dtype));
        }
    }
    ct_tensor *v = p.wb != NULL ? bin(&s, CT_BINARY_MUL, p.wb, g) : g;
    v = un(&s, CT_UNARY_NEG, v);
    if (v != NULL) {
        r = ct_where(p.pick, v, p.zero);
    }
done:
    temps_free(&s);
    return r;
}
