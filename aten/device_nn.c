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

#include <ctorch/ops_index.h>
#include <ctorch/ops_nn.h>

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
        r = result(&s, y, t->dtype, t->ndim, t->sizes);
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
        r = result(&s, gi, output->dtype, output->ndim, output->sizes);
    }
    temps_free(&s);
    return r;
}

/* --- nll_loss ---------------------------------------------------------------- */

/* The pieces both directions of nll_loss share, for input (C), (N, C) or
 * (N, C, H, W) with class dim cd and targets of its other dims: `kept`,
 * whether each target counts (not ignore_index); `index`, the targets
 * (ignored ones as class 0) with a 1 at the class dim, for gather and
 * scatter_add along it; `wsel`, each target's weight (1 without weight, 0
 * when ignored) in the input's dtype; `zero`, a 0-dim 0 there. */
typedef struct {
    int cd;
    ct_tensor *kept, *index, *wsel, *zero;
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
    int64_t C = input->sizes[p->cd], one = 1;
    ct_tensor *t = in_dtype(s, target, CT_DTYPE_INT64);
    if (t == NULL || nll_targets_ok(s, t, C, ignore) < 0) {
        return -1;
    }
    ct_tensor *z = scalar(s, ct_scalar_int(0));
    p->kept = bin(s, CT_BINARY_NE, t, scalar(s, ct_scalar_int(ignore)));
    ct_tensor *tk = p->kept != NULL && z != NULL ? tmp(s, ct_where(p->kept, t, z)) : NULL;
    p->index = tk == NULL ? NULL
               : input->ndim == 1 ? tmp(s, ct_view(tk, 1, &one))
                                  : tmp(s, ct_unsqueeze(tk, 1));
    p->zero = z != NULL ? in_dtype(s, tmp(s, ct_to_device(z, ct_tensor_device(input))),
                                   input->dtype)
                        : NULL;
    if (p->index == NULL || p->zero == NULL) {
        return -1;
    }
    if (weight != NULL) {
        /* weight[target], 0 where ignored */
        ct_tensor *flat = tmp(s, ct_reshape(tk, 1, &tk->numel));
        ct_tensor *w = flat != NULL ? tmp(s, ct_gather(weight, 0, flat)) : NULL;
        ct_tensor *wt = w != NULL ? tmp(s, ct_reshape(w, tk->ndim, tk->sizes)) : NULL;
        p->wsel = wt != NULL ? tmp(s, ct_where(p->kept, wt, p->zero)) : NULL;
    }
    else {
        p->wsel = in_dtype(s, p->kept, input->dtype);
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
    /* each target's -input[class] * weight[class], 0 when ignored (where,
     * not a product: an ignored row's class 0 may hold -inf) */
    ct_tensor *g = tmp(&s, ct_gather(input, p.cd, p.index));
    ct_tensor *gt = g != NULL ? tmp(&s, ct_reshape(g, p.kept->ndim, p.kept->sizes)) : NULL;
    ct_tensor *neg = un(&s, CT_UNARY_NEG, weight != NULL ? bin(&s, CT_BINARY_MUL, gt, p.wsel)
                                                         : gt);
    ct_tensor *loss = neg != NULL ? tmp(&s, ct_where(p.kept, neg, p.zero)) : NULL;
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
    rc = *output != NULL && *total_weight != NULL ? 0 : -1;
done:
    temps_free(&s);
    return settle(rc, output, total_weight, NULL);
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
    /* -weight[class] * g added at each counted target's class (one per
     * row, so no two additions meet), 0 elsewhere; g is the element's
     * gradient (none), or the one gradient over the total weight (mean) */
    ct_tensor *g = in_dtype(&s, grad, input->dtype);
    if (reduction == CT_REDUCTION_NONE && g != NULL && input->ndim > 1) {
        g = tmp(&s, ct_reshape(g, p.kept->ndim, p.kept->sizes));
    }
    else if (g != NULL) {
        g = tmp(&s, ct_reshape(g, 0, NULL));
        if (g != NULL && reduction == CT_REDUCTION_MEAN) {
            g = bin(&s, CT_BINARY_DIV, g, in_dtype(&s, total_weight, input->dtype));
        }
    }
    ct_tensor *v = un(&s, CT_UNARY_NEG, weight != NULL ? bin(&s, CT_BINARY_MUL, p.wsel, g) : g);
    ct_tensor *vk = v != NULL ? tmp(&s, ct_where(p.kept, v, p.zero)) : NULL;
    ct_tensor *src = vk != NULL ? tmp(&s, ct_reshape(vk, p.index->ndim, p.index->sizes)) : NULL;
    if (src != NULL) {
        r = ct_zeros_on(input->ndim, input->sizes, input->dtype, ct_tensor_device(input));
    }
    if (r != NULL && ct_scatter_(r, p.cd, p.index, src, ct_scalar_int(0), "add") < 0) {
        ct_tensor_decref(r);
        r = NULL;
    }
done:
    temps_free(&s);
    return r;
}
