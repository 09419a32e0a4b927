/* csrc/autograd/functions_nn.c -- the losses, normalization layers and
 * embedding of torch.nn with their derivatives (autograd_nn.h; see
 * functions.h for how formulas are written).
 *
 * Note [Fused and graph backwards]
 * A node's backward normally calls the fused kernel of ops_nn.h (one pass
 * over the data).  Under create_graph (grad mode on while the formula
 * runs) and when the incoming gradient or a saved input requires grad, it
 * computes the same gradient with ctag_ ops instead, so the result has a
 * history and can be differentiated again.
 */
#include "functions.h"

#include <math.h>
#include <string.h>

/* --- shared helpers ------------------------------------------------------- */

static bool
floating(ct_dtype dt)
{
    return ct_dtype_is_floating(dt);
}

/* torch's check that an input without a derivative formula does not
 * require grad (it applies whatever the grad mode). */
static int
check_no_grad(const ct_tensor *t, const char *arg, const char *fn)
{
    if (t != NULL && ct_requires_grad(t)) {
        return ct_error(CT_ERR_RUNTIME, "The function '%s' is not differentiable with "
                        "respect to argument '%s'. This input cannot have "
                        "requires_grad True.", fn, arg);
    }
    return 0;
}

/* The graph form of a backward is wanted (Note [Fused and graph
 * backwards]). */
static bool
want_graph(int n, const ct_tensor *const *ts)
{
    if (!ct_grad_enabled()) {
        return false;
    }
    for (int i = 0; i < n; i++) {
        if (ts[i] != NULL && ct_requires_grad(ts[i])) {
            return true;
        }
    }
    return false;
}

/* Unpack saved slot i into *t (NULL when None); false on error. */
static bool
unpack(ag_frame *f, ct_node *n, int i, ct_tensor **t)
{
    ct_error_clear();
    *t = ag_tmp(f, ct_node_unpack(n, i));
    return *t != NULL || ct_error_code() == CT_OK;
}

/* t * s, s optional (NULL: t itself); owned by f. */
static ct_tensor *
mul_opt(ag_frame *f, ct_tensor *t, const ct_tensor *s)
{
    return s == NULL ? t : ag_tmp(f, ctag_mul(t, s));
}

/* Note [Scalar overloads]
 * C++ composites in torch multiply and divide by C++ numbers, which
 * records the Scalar overloads MulBackward1 and DivBackward1 (a Python
 * number records MulBackward0); these two nodes give the composites here
 * the same names. */
static int scalar_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static const ct_node_type scalar_types[2] = {
    {"MulBackward1", scalar_apply, NULL},
    {"DivBackward1", scalar_apply, NULL},
};

static int
scalar_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    bool div = n->type == &scalar_types[1];
    go[0] = ag_to_input(n, 0, ag_mul_s(gi[0], div ? 1 / n->d[0] : n->d[0]));
    return go[0] != NULL ? 0 : -1;
}

/* t * s (div: t / s) for a C number s, recorded as torch's Scalar
 * overload. */
static ct_tensor *
scalar_op(const ct_tensor *t, double s, bool div)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *k = ag_scalar(s);
    ct_tensor *r = k != NULL ? (div ? ct_div(t, k) : ct_mul(t, k)) : NULL;
    ct_tensor_decref(k);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&scalar_types[div], 1, &t, 1, &r);
        if (n == NULL) {
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, t);
        n->d[0] = s;
    }
    return r;
}

/* --- pointwise losses ----------------------------------------------------- */

static int ploss_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type ploss_types[CT_PLOSS_COUNT] = {
    [CT_PLOSS_MSE] = {"MseLossBackward0", ploss_apply, NULL},
    [CT_PLOSS_SMOOTH_L1] = {"SmoothL1LossBackward0", ploss_apply, NULL},
    [CT_PLOSS_HUBER] = {"HuberLossBackward0", ploss_apply, NULL},
    [CT_PLOSS_BCE] = {"BinaryCrossEntropyBackward0", ploss_apply, NULL},
    [CT_PLOSS_BCE_LOGITS] = {"BinaryCrossEntropyWithLogitsBackward0", ploss_apply, NULL},
};

/* Slots: saved[0..3] = input, target, weight, pos_weight; s[0] the
 * reduction; d[0] beta / delta; meta 0 / 1 input and target. */
ct_tensor *
ctag_pointwise_loss(ct_ploss_op op, const ct_tensor *input, const ct_tensor *target,
                    const ct_ploss_args *args, ct_reduction reduction)
{
    AG_NULL_IF_ANY(input, target);
    static const ct_ploss_args none = {NULL, NULL, 0};
    args = args != NULL ? args : &none;
    const char *name = ct_ploss_names[op];
    if (check_no_grad(args->weight, "weight", name) < 0 ||
        check_no_grad(args->pos_weight, "pos_weight", name) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_pointwise_loss(op, input, target, args, reduction);
    const ct_tensor *ins[2] = {input, target};
    if (r == NULL || !ct_any_requires_grad(2, ins)) {
        return r;
    }
    ct_node *n = ct_record(&ploss_types[op], 2, ins, 1, &r);
    if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
        ct_node_save(n, 1, target, false) < 0 || ct_node_save(n, 2, args->weight, false) < 0 ||
        ct_node_save(n, 3, args->pos_weight, false) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, input);
    ag_save_meta(n, 1, target);
    n->s[0] = ct_scalar_int(reduction);
    n->d[0] = args->param;
    return r;
}

/* clamp(z, max=0) - log1p(exp(-|z|)), owned by f. */
static ct_tensor *
log_sigmoid(ag_frame *f, const ct_tensor *z)
{
    ct_tensor *zero = ag_tmp(f, ag_scalar(0));
    ct_tensor *lo = ag_tmp(f, ctag_clamp(z, NULL, zero, NULL, CT_OUT_NEW));
    ct_tensor *e = ag_tmp(f, ag_unary(CT_UNARY_EXP, ag_tmp(f, ctag_neg(
                                  ag_tmp(f, ag_unary(CT_UNARY_ABS, z))))));
    return ag_tmp(f, ctag_sub(lo, ag_tmp(f, ag_unary(CT_UNARY_LOG1P, e)),
                              ct_scalar_int(1)));
}

/* The gradient of a pointwise loss with ctag_ ops (graph mode), before
 * the mean's division; owned by f. */
static ct_tensor *
ploss_graph_grad(ag_frame *f, ct_ploss_op op, const ct_tensor *g, ct_tensor *x,
                 ct_tensor *y, const ct_tensor *w, const ct_tensor *q, double p,
                 bool wrt_target)
{
    if (wrt_target && op != CT_PLOSS_BCE && op != CT_PLOSS_BCE_LOGITS) {
        ct_tensor *t = x;   /* torch: the input gradient, arguments swapped */
        x = y;
        y = t;
    }
    ct_tensor *d = op <= CT_PLOSS_HUBER ? ag_tmp(f, ctag_sub(x, y, ct_scalar_int(1)))
                                        : NULL;
    ct_tensor *ng = op <= CT_PLOSS_HUBER ? ag_tmp(f, ctag_neg(g)) : NULL;
    ct_tensor *r = NULL;
    switch (op) {
    case CT_PLOSS_MSE:
        r = ag_tmp(f, ag_mul_s(ag_tmp(f, ctag_mul(d, g)), 2));
        break;
    case CT_PLOSS_SMOOTH_L1:
    case CT_PLOSS_HUBER: {
        bool sl1 = op == CT_PLOSS_SMOOTH_L1;
        ct_tensor *lo = ag_tmp(f, ag_scalar(-p)), *hi = ag_tmp(f, ag_scalar(p));
        if (d == NULL || lo == NULL || hi == NULL) {
            return NULL;
        }
        ct_tensor *mlo = ag_tmp(f, ct_binary(CT_BINARY_LE, d, lo, ct_scalar_int(1), NULL,
                                             CT_OUT_NEW));
        ct_tensor *mhi = ag_tmp(f, ct_binary(CT_BINARY_GE, d, hi, ct_scalar_int(1), NULL,
                                             CT_OUT_NEW));
        /* beta == 0: every element is on one side (the middle would be 0/0) */
        const ct_tensor *mid = ag_tmp(f, ctag_mul(d, g));
        if (sl1) {
            mid = p == 0 ? g : ag_tmp(f, ag_mul_s(mid, 1 / p));
        }
        const ct_tensor *pos = sl1 ? g : ag_tmp(f, ag_mul_s(g, p));
        const ct_tensor *neg = sl1 ? ng : ag_tmp(f, ag_mul_s(ng, p));
        r = ag_tmp(f, ctag_where(mlo, neg, ag_tmp(f, ctag_where(mhi, pos, mid))));
        break;
    }
    case CT_PLOSS_BCE: {
        ct_tensor *one_m_x = ag_tmp(f, ag_add_s(ag_tmp(f, ctag_neg(x)), 1));
        if (wrt_target) {
            /* -logit(x) * g */
            ct_tensor *l = ag_tmp(f, ag_unary(CT_UNARY_LOG, ag_tmp(f, ctag_div(x, one_m_x))));
            r = ag_tmp(f, ctag_mul(ag_tmp(f, ctag_neg(l)), g));
        }
        else {
            ct_tensor *eps = ag_tmp(f, ag_scalar(1e-12));
            ct_tensor *den = ag_tmp(f, ctag_clamp(ag_tmp(f, ctag_mul(one_m_x, x)), eps, NULL,
                                                  NULL, CT_OUT_NEW));
            ct_tensor *num = ag_tmp(f, ctag_mul(g, ag_tmp(f, ctag_sub(x, y, ct_scalar_int(1)))));
            r = ag_tmp(f, ctag_div(num, den));
        }
        r = mul_opt(f, r, w);
        break;
    }
    case CT_PLOSS_BCE_LOGITS:
        if (wrt_target && q != NULL) {
            ct_tensor *a = log_sigmoid(f, ag_tmp(f, ctag_neg(x)));
            ct_tensor *b = ag_tmp(f, ctag_mul(log_sigmoid(f, x), q));
            r = ag_tmp(f, ctag_mul(ag_tmp(f, ctag_sub(a, b, ct_scalar_int(1))), g));
        }
        else if (wrt_target) {
            r = ag_tmp(f, ctag_mul(ag_tmp(f, ctag_neg(x)), g));
        }
        else {
            ct_tensor *s = ag_tmp(f, ag_unary(CT_UNARY_SIGMOID, x));
            if (q != NULL) {
                ct_tensor *t = ag_tmp(f, ctag_mul(q, y));
                ct_tensor *c = ag_tmp(f, ctag_sub(ag_tmp(f, ag_add_s(t, 1)), y,
                                                  ct_scalar_int(1)));
                s = ag_tmp(f, ctag_sub(ag_tmp(f, ctag_mul(c, s)), t, ct_scalar_int(1)));
            }
            else {
                s = ag_tmp(f, ctag_sub(s, y, ct_scalar_int(1)));
            }
            r = ag_tmp(f, ctag_mul(s, g));
        }
        r = mul_opt(f, r, w);
        break;
    default:
        break;
    }
    return r;
}

static int
ploss_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_ploss_op op = (ct_ploss_op)(n->type - ploss_types);
    ct_reduction red = (ct_reduction)n->s[0].v.i;
    ag_frame f = {0};
    ct_tensor *x, *y, *w, *q;
    int rc = -1;

    if (!unpack(&f, n, 0, &x) || !unpack(&f, n, 1, &y) || !unpack(&f, n, 2, &w) ||
        !unpack(&f, n, 3, &q)) {
        goto done;
    }
    ct_ploss_args args = {w, q, n->d[0]};
    const ct_tensor *deps[3] = {gi[0], x, y};
    bool graph = want_graph(3, deps);
    for (int k = 0; k < 2; k++) {
        if (!ct_node_needs(n, k)) {
            continue;
        }
        ct_tensor *r;
        if (graph) {
            ag_frame f2 = {0};
            ct_tensor *t = ploss_graph_grad(&f2, op, gi[0], x, y, w, q, n->d[0], k == 1);
            if (t != NULL && red == CT_REDUCTION_MEAN) {
                t = ag_tmp(&f2, ag_mul_s(t, 1.0 / (double)t->numel));
            }
            if (t != NULL) {
                ct_tensor_incref(t);
            }
            r = t;
            ag_end(&f2);
        }
        else {
            r = ct_pointwise_loss_backward(op, gi[0], x, y, &args, red, k == 1);
        }
        if ((go[k] = ag_to_input(n, k, r)) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

/* --- negative log likelihood ------------------------------------------- */

static int nll_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type nll_types[2] = {
    {"NllLossBackward0", nll_apply, NULL},
    {"NllLoss2DBackward0", nll_apply, NULL},
};

/* Slots: saved[0..3] = input, target, weight, total_weight; s[0] the
 * reduction, s[1] ignore_index. */
static ct_tensor *
nll_record(bool spatial, const ct_tensor *input, const ct_tensor *target,
           const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index)
{
    AG_NULL_IF_ANY(input, target);
    ct_tensor *out, *tw;
    if (check_no_grad(weight, "weight", spatial ? "nll_loss2d_forward"
                                                : "nll_loss_forward") < 0) {
        return NULL;
    }
    int rc = spatial ? ct_nll_loss2d(input, target, weight, reduction, ignore_index, &out, &tw)
                     : ct_nll_loss(input, target, weight, reduction, ignore_index, &out, &tw);
    if (rc < 0) {
        return NULL;
    }
    if (ct_any_requires_grad(1, &input)) {
        ct_node *n = ct_record(&nll_types[spatial], 1, &input, 1, &out);
        if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
            ct_node_save(n, 1, target, false) < 0 || ct_node_save(n, 2, weight, false) < 0 ||
            ct_node_save(n, 3, tw, false) < 0) {
            ct_tensor_decref(out);
            out = NULL;
        }
        else {
            ag_save_meta(n, 0, input);
            n->s[0] = ct_scalar_int(reduction);
            n->s[1] = ct_scalar_int(ignore_index);
        }
    }
    ct_tensor_decref(tw);
    return out;
}

ct_tensor *
ctag_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
              ct_reduction reduction, int64_t ignore_index)
{
    return nll_record(false, input, target, weight, reduction, ignore_index);
}

ct_tensor *
ctag_nll_loss2d(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                ct_reduction reduction, int64_t ignore_index)
{
    return nll_record(true, input, target, weight, reduction, ignore_index);
}

/* The gradient is linear in g: the kernel's gradient for a gradient of
 * ones, times g (unsqueezed at the class dim) -- so with create_graph it
 * is differentiable in g (the second derivative in input is zero). */
static int
nll_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *t, *w, *tw, *r = NULL;
    ct_reduction red = (ct_reduction)n->s[0].v.i;
    int64_t ignore = n->s[1].v.i;

    if (!unpack(&f, n, 0, &x) || !unpack(&f, n, 1, &t) || !unpack(&f, n, 2, &w) ||
        !unpack(&f, n, 3, &tw)) {
        goto done;
    }
    const ct_tensor *g = gi[0];
    if (want_graph(1, &g)) {
        ct_tensor *ones = ag_tmp(&f, ct_ones(g->ndim, g->sizes, g->dtype));
        ct_tensor *pat = ones ? ag_tmp(&f, ct_nll_loss_backward(ones, x, t, w, red, ignore,
                                                               tw))
                              : NULL;
        const ct_tensor *gb = g;
        if (pat != NULL && red == CT_REDUCTION_NONE && g->ndim > 0) {
            gb = ag_tmp(&f, ctag_unsqueeze(g, 1));
        }
        r = pat != NULL && gb != NULL ? ctag_mul(pat, gb) : NULL;
    }
    else {
        r = ct_nll_loss_backward(g, x, t, w, red, ignore, tw);
    }
    go[0] = ag_to_input(n, 0, r);
done:
    ag_end(&f);
    return go[0] != NULL ? 0 : -1;
}

static bool
same_sizes(int na, const int64_t *a, int nb, const int64_t *b)
{
    return na == nb && memcmp(a, b, sizeof(int64_t) * (size_t)na) == 0;
}

ct_tensor *
ctag_nll_loss_nd(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                 ct_reduction reduction, int64_t ignore_index)
{
    AG_NULL_IF_ANY(input, target);
    char b1[256], b2[256];
    if (input->ndim < 1) {
        ct_error(CT_ERR_VALUE, "Expected 1 or more dimensions (got %d)", input->ndim);
        return NULL;
    }
    if (input->ndim != 1 &&
        (target->ndim == 0 || input->sizes[0] != target->sizes[0])) {
        ct_error(CT_ERR_VALUE, "Expected input batch_size (%lld) to match target "
                 "batch_size (%lld).", (long long)input->sizes[0],
                 (long long)(target->ndim > 0 ? target->sizes[0] : 1));
        return NULL;
    }
    if (input->ndim <= 2) {
        return ctag_nll_loss(input, target, weight, reduction, ignore_index);
    }
    if (input->ndim == 4) {
        return ctag_nll_loss2d(input, target, weight, reduction, ignore_index);
    }
    int64_t n = input->sizes[0], c = input->sizes[1];
    int64_t out_size[CT_MAX_DIMS];
    int nout = input->ndim - 1;
    out_size[0] = n;
    memcpy(out_size + 1, input->sizes + 2, sizeof(int64_t) * (size_t)(input->ndim - 2));
    if (!same_sizes(target->ndim - 1, target->sizes + 1, input->ndim - 2, input->sizes + 2)) {
        ct_error(CT_ERR_RUNTIME, "Expected target size %s, got %s",
                 ct_format_sizes(nout, out_size, b1, sizeof b1),
                 ct_format_sizes(target->ndim, target->sizes, b2, sizeof b2));
        return NULL;
    }
    ag_frame f = {0};
    int64_t isz[4] = {n, c, 1, input->numel > 0 ? -1 : 0};
    int64_t tsz[3] = {n, 1, target->numel > 0 ? -1 : 0};
    ct_tensor *in = ag_tmp(&f, input->numel > 0 ? ctag_view(input, 4, isz)
                                               : ctag_reshape(input, 4, isz));
    ct_tensor *tg = NULL;
    if (target->numel > 0) {
        ct_tensor *tc = ag_tmp(&f, ct_contiguous(target));
        tg = tc ? ag_tmp(&f, ct_view(tc, 3, tsz)) : NULL;
    }
    else {
        tg = ag_tmp(&f, ct_reshape(target, 3, tsz));
    }
    ct_tensor *r = in && tg ? ag_tmp(&f, ctag_nll_loss2d(in, tg, weight, reduction,
                                                         ignore_index))
                            : NULL;
    if (r != NULL && reduction == CT_REDUCTION_NONE) {
        r = ag_tmp(&f, ctag_view(r, nout, out_size));
    }
    if (r != NULL) {
        ct_tensor_incref(r);
    }
    ag_end(&f);
    return r;
}

/* --- cross entropy ------------------------------------------------------ */

/* weight viewed to broadcast along the class dim of an ndim-dim input. */
static ct_tensor *
class_view(const ct_tensor *weight, int ndim, int class_dim)
{
    int64_t shape[CT_MAX_DIMS];
    for (int d = 0; d < ndim; d++) {
        shape[d] = d == class_dim ? weight->numel : 1;
    }
    return ctag_view(weight, ndim, shape);
}

/* torch's cross_entropy_loss_prob_target. */
static ct_tensor *
ce_prob_target(ag_frame *f, const ct_tensor *self, const ct_tensor *target,
               const ct_tensor *weight, ct_reduction reduction, double ls)
{
    int class_dim = self->ndim == 1 ? 0 : 1;
    ct_tensor *input = ag_tmp(f, ctag_log_softmax(self, class_dim, self->dtype));
    if (input == NULL) {
        return NULL;
    }
    int64_t n_classes = self->sizes[class_dim];
    if (weight != NULL && (weight->ndim != 1 || weight->numel != n_classes)) {
        char b[256];
        ct_error(CT_ERR_RUNTIME, "cross_entropy: weight tensor should be defined either "
                 "for all %lld classes or no classes but got weight tensor of shape: %s",
                 (long long)n_classes, ct_format_sizes(weight->ndim, weight->sizes, b,
                                                       sizeof b));
        return NULL;
    }
    const ct_tensor *tgt = target;
    if (ls > 0) {
        if (ls > 1) {
            ct_error(CT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g",
                     ls);
            return NULL;
        }
        /* target * (1 - ls) + ls / n_classes */
        ct_tensor *m = ag_tmp(f, scalar_op(target, 1 - ls, false));
        ct_tensor *k = ag_tmp(f, ag_scalar(ls / (double)n_classes));
        tgt = m && k ? ag_tmp(f, ctag_add(m, k, ct_scalar_int(1))) : NULL;
    }
    ct_tensor *prod = ag_tmp(f, ctag_mul(input, tgt));
    if (weight != NULL) {
        const ct_tensor *wv = self->ndim > 1 ? ag_tmp(f, class_view(weight, self->ndim,
                                                                    class_dim))
                                             : weight;
        prod = ag_tmp(f, ctag_mul(prod, wv));
    }
    if (prod == NULL) {
        return NULL;
    }
    if (reduction == CT_REDUCTION_NONE) {
        int64_t dim = class_dim;
        return ag_tmp(f, ctag_neg(ag_tmp(f, ctag_sum(prod, 1, &dim, false, CT_DTYPE_COUNT))));
    }
    ct_tensor *s = ag_tmp(f, ctag_neg(ag_tmp(f, ctag_sum(prod, 0, NULL, false,
                                                         CT_DTYPE_COUNT))));
    if (reduction == CT_REDUCTION_SUM || s == NULL) {
        return s;
    }
    if (self->numel == 0) {
        /* torch: -(...).sum().fill_(NAN) */
        return ctag_fill_(s, ct_scalar_float(NAN)) < 0 ? NULL : s;
    }
    /* input.numel() / n_classes is an integer division in torch */
    return ag_tmp(f, scalar_op(s, (double)(self->numel / n_classes), true));
}

/* torch's cross_entropy_loss_label_smoothing. */
static ct_tensor *
ce_label_smoothing(ag_frame *f, const ct_tensor *self, const ct_tensor *target,
                   const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index,
                   double ls)
{
    int class_dim = self->ndim == 1 ? 0 : 1;
    int64_t cd = class_dim;
    ct_tensor *input = ag_tmp(f, ctag_log_softmax(self, class_dim, self->dtype));
    ct_tensor *nll = input ? ag_tmp(f, ctag_nll_loss_nd(input, target, weight, reduction,
                                                        ignore_index))
                           : NULL;
    if (nll == NULL) {
        return NULL;
    }
    int64_t n_classes = input->sizes[class_dim];
    ct_tensor *ig = ag_tmp(f, ct_scalar_tensor(ct_scalar_int(ignore_index)));
    ct_tensor *mask = ig ? ag_tmp(f, ct_binary(CT_BINARY_EQ, target, ig, ct_scalar_int(1),
                                               NULL, CT_OUT_NEW))
                         : NULL;
    ct_tensor *wv = weight != NULL ? ag_tmp(f, class_view(weight, input->ndim, class_dim))
                                   : NULL;
    if (mask == NULL || (weight != NULL && wv == NULL)) {
        return NULL;
    }
    ct_tensor *src = wv != NULL ? ag_tmp(f, ctag_mul(input, wv)) : input;
    ct_tensor *smooth = ag_tmp(f, ctag_neg(ag_tmp(f, ctag_sum(src, 1, &cd, false,
                                                              CT_DTYPE_COUNT))));
    if (smooth == NULL || ctag_masked_fill_(smooth, mask, ct_scalar_float(0)) < 0) {
        return NULL;
    }
    ct_tensor *ret = smooth;
    if (reduction != CT_REDUCTION_NONE) {
        ret = ag_tmp(f, ctag_sum(smooth, 0, NULL, false, CT_DTYPE_COUNT));
    }
    if (reduction == CT_REDUCTION_MEAN && ret != NULL) {
        ct_tensor *keep = ag_tmp(f, ct_unary(CT_UNARY_LOGICAL_NOT, mask, NULL, CT_OUT_NEW));
        ct_tensor *den = NULL;
        if (keep != NULL && weight != NULL) {
            ct_tensor *sel = ag_tmp(f, ct_masked_select(target, keep));
            ct_tensor *tw = sel ? ag_tmp(f, ctag_gather(weight, 0, sel)) : NULL;
            den = tw ? ag_tmp(f, ctag_sum(tw, 0, NULL, false, CT_DTYPE_COUNT)) : NULL;
        }
        else if (keep != NULL) {
            den = ag_tmp(f, ct_sum(keep, 0, NULL, false, CT_DTYPE_COUNT));
        }
        ret = den != NULL ? ag_tmp(f, ctag_div(ret, den)) : NULL;
    }
    if (ret == NULL) {
        return NULL;
    }
    ct_tensor *a = ag_tmp(f, scalar_op(nll, 1 - ls, false));
    ct_tensor *b = ag_tmp(f, scalar_op(ret, ls / (double)n_classes, false));
    return a && b ? ag_tmp(f, ctag_add(a, b, ct_scalar_int(1))) : NULL;
}

ct_tensor *
ctag_cross_entropy_loss(const ct_tensor *input, const ct_tensor *target,
                        const ct_tensor *weight, ct_reduction reduction,
                        int64_t ignore_index, double label_smoothing)
{
    AG_NULL_IF_ANY(input, target);
    ag_frame f = {0};
    ct_tensor *r;
    if (same_sizes(input->ndim, input->sizes, target->ndim, target->sizes)) {
        /* class probabilities */
        if (!floating(target->dtype)) {
            ct_error(CT_ERR_RUNTIME, "Expected floating point type for target with class "
                     "probabilities, got %s", ct_dtype_table[target->dtype].legacy);
            return NULL;
        }
        if (ignore_index >= 0) {
            ct_error(CT_ERR_RUNTIME, "ignore_index is not supported for floating point "
                     "target");
            return NULL;
        }
        r = ce_prob_target(&f, input, target, weight, reduction, label_smoothing);
    }
    else if (label_smoothing > 0) {
        if (label_smoothing > 1) {
            ct_error(CT_ERR_RUNTIME, "label_smoothing must be between 0.0 and 1.0. Got: %g",
                     label_smoothing);
            return NULL;
        }
        r = ce_label_smoothing(&f, input, target, weight, reduction, ignore_index,
                               label_smoothing);
    }
    else {
        int class_dim = input->ndim == 1 ? 0 : 1;
        ct_tensor *ls = ag_tmp(&f, ctag_log_softmax(input, class_dim, input->dtype));
        r = ls ? ag_tmp(&f, ctag_nll_loss_nd(ls, target, weight, reduction, ignore_index))
               : NULL;
    }
    if (r != NULL) {
        ct_tensor_incref(r);
    }
    ag_end(&f);
    return r;
}
