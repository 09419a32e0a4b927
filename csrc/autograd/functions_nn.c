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

/* torch's formula is grad * (or /) scalar_to_tensor(s): a 0-dim double
 * tensor (int64 for an integral s) that is no wrapped number, so a 0-dim
 * grad computes in double (a float s) before the cast back to the
 * input's dtype. */
static int
scalar_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    bool div = n->type == &scalar_types[1];
    ct_scalar s = n->s[0];
    ct_tensor *k = ct_full(0, NULL, s, s.kind == CT_SCALAR_FLOAT ? CT_DTYPE_FLOAT64
                                                                 : CT_DTYPE_INT64);
    ct_tensor *r = k == NULL ? NULL : div ? ctag_div(gi[0], k) : ctag_mul(gi[0], k);
    ct_tensor_decref(k);
    go[0] = ag_to_input(n, 0, r);
    return go[0] != NULL ? 0 : -1;
}

/* t * s (div: t / s) for a C number s (int or float), recorded as torch's
 * Scalar overload. */
static ct_tensor *
scalar_op(const ct_tensor *t, ct_scalar s, bool div)
{
    AG_NULL_IF_ANY(t);
    double v = s.kind == CT_SCALAR_FLOAT ? s.v.d : (double)s.v.i;
    ct_tensor *k = ag_scalar(v);
    ct_tensor *r = k != NULL ? (div ? ct_div(t, k) : ct_mul(t, k)) : NULL;
    ct_tensor_decref(k);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&scalar_types[div], 1, &t, 1, &r);
        if (n == NULL) {
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, t);
        n->s[0] = s;
    }
    return r;
}

/* --- pointwise losses ----------------------------------------------------- */

static int ploss_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type ploss_types[CT_PLOSS_COUNT] = {
    [CT_PLOSS_MSE] = { "MseLossBackward0", ploss_apply, NULL },
    [CT_PLOSS_SMOOTH_L1] = { "SmoothL1LossBackward0", ploss_apply, NULL },
    [CT_PLOSS_HUBER] = { "HuberLossBackward0", ploss_apply, NULL },
    [CT_PLOSS_BCE] = { "BinaryCrossEntropyBackward0", ploss_apply, NULL },
    [CT_PLOSS_BCE_LOGITS] = { "BinaryCrossEntropyWithLogitsBackward0", ploss_apply,
                              NULL },
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
        ct_node_save(n, 1, target, false) < 0 ||
        ct_node_save(n, 2, args->weight, false) < 0 ||
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
        ct_tensor *mlo = ag_tmp(
            f, ct_binary(CT_BINARY_LE, d, lo, ct_scalar_int(1), NULL, CT_OUT_NEW));
        ct_tensor *mhi = ag_tmp(
            f, ct_binary(CT_BINARY_GE, d, hi, ct_scalar_int(1), NULL, CT_OUT_NEW));
        /* beta == 0: every element is on one side (the middle would be 0/0) */
        const ct_tensor *mid = ag_tmp(f, ctag_mul(d, g));
        if (sl1) {
            mid = p == 0 ? g : ag_tmp(f, ag_mul_s(mid, 1 / p));
        }
        const ct_tensor *pos = sl1 ? g : ag_tmp(f, ag_mul_s(g, p));
        const ct_tensor *neg = sl1 ? ng : ag_tmp(f, ag_mul_s(ng, p));
        r = ag_tmp(f, ctag_where(mlo, neg, ag_tmp(f, ctag_where(mhi, pos, mid))));
        if (sl1 && p == 0 && r != NULL) {
            /* piecewise constant, but still a function of x (as in torch) */
            r = ag_tmp(f, ctag_add(r, ag_tmp(f, ag_mul_s(d, 0)), ct_scalar_int(1)));
        }
        break;
    }
    case CT_PLOSS_BCE: {
        ct_tensor *one_m_x = ag_tmp(f, ag_add_s(ag_tmp(f, ctag_neg(x)), 1));
        if (wrt_target) {
            /* -logit(x) * g */
            ct_tensor *l =
                ag_tmp(f, ag_unary(CT_UNARY_LOG, ag_tmp(f, ctag_div(x, one_m_x))));
            r = ag_tmp(f, ctag_mul(ag_tmp(f, ctag_neg(l)), g));
        }
        else {
            ct_tensor *eps = ag_tmp(f, ag_scalar(1e-12));
            ct_tensor *den = ag_tmp(f, ctag_clamp(ag_tmp(f, ctag_mul(one_m_x, x)), eps,
                                                  NULL, NULL, CT_OUT_NEW));
            ct_tensor *num =
                ag_tmp(f, ctag_mul(g, ag_tmp(f, ctag_sub(x, y, ct_scalar_int(1)))));
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
            ct_tensor *t =
                ploss_graph_grad(&f2, op, gi[0], x, y, w, q, n->d[0], k == 1);
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
    int rc =
        spatial
            ? ct_nll_loss2d(input, target, weight, reduction, ignore_index, &out, &tw)
            : ct_nll_loss(input, target, weight, reduction, ignore_index, &out, &tw);
    if (rc < 0) {
        return NULL;
    }
    if (ct_any_requires_grad(1, &input)) {
        ct_node *n = ct_record(&nll_types[spatial], 1, &input, 1, &out);
        if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
            ct_node_save(n, 1, target, false) < 0 ||
            ct_node_save(n, 2, weight, false) < 0 ||
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
ctag_nll_loss2d(const ct_tensor *input, const ct_tensor *target,
                const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index)
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
    const ct_tensor *deps[2] = {g, x};
    if (want_graph(2, deps)) {
        ct_tensor *ones = ag_tmp(&f, ct_full_on(g->ndim, g->sizes, ct_scalar_int(1), g->dtype,
                                                  ct_tensor_device(g)));
        ct_tensor *pat =
            ones ? ag_tmp(&f, ct_nll_loss_backward(ones, x, t, w, red, ignore, tw))
                 : NULL;
        const ct_tensor *gb = g;
        if (pat != NULL && red == CT_REDUCTION_NONE && g->ndim > 0) {
            gb = ag_tmp(&f, ctag_unsqueeze(g, 1));
        }
        r = pat != NULL && gb != NULL ? ag_tmp(&f, ctag_mul(pat, gb)) : NULL;
        /* torch's gradient depends on the input too (its derivative is
         * zero): keep it in the graph */
        r = r != NULL && ct_requires_grad(x)
                ? ag_tmp(&f, ctag_add(r, ag_tmp(&f, ag_mul_s(x, 0)), ct_scalar_int(1)))
                : r;
        if (r != NULL) {
            ct_tensor_incref(r);
        }
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
ctag_nll_loss_nd(const ct_tensor *input, const ct_tensor *target,
                 const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index)
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
    if (!same_sizes(target->ndim - 1, target->sizes + 1, input->ndim - 2,
                    input->sizes + 2)) {
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
        ct_error(
            CT_ERR_RUNTIME,
            "cross_entropy: weight tensor should be defined either "
            "for all %lld classes or no classes but got weight tensor of shape: %s",
            (long long)n_classes,
            ct_format_sizes(weight->ndim, weight->sizes, b, sizeof b));
        return NULL;
    }
    const ct_tensor *tgt = target;
    if (ls > 0) {
        if (ls > 1) {
            ct_error(CT_ERR_RUNTIME,
                     "label_smoothing must be between 0.0 and 1.0. Got: %g", ls);
            return NULL;
        }
        /* target * (1 - ls) + ls / n_classes */
        ct_tensor *m = ag_tmp(f, scalar_op(target, ct_scalar_float(1 - ls), false));
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
        return ag_tmp(
            f, ctag_neg(ag_tmp(f, ctag_sum(prod, 1, &dim, false, CT_DTYPE_COUNT))));
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
    return ag_tmp(f, scalar_op(s, ct_scalar_int(self->numel / n_classes), true));
}

/* torch's cross_entropy_loss_label_smoothing. */
static ct_tensor *
ce_label_smoothing(ag_frame *f, const ct_tensor *self, const ct_tensor *target,
                   const ct_tensor *weight, ct_reduction reduction,
                   int64_t ignore_index, double ls)
{
    int class_dim = self->ndim == 1 ? 0 : 1;
    int64_t cd = class_dim;
    ct_tensor *input = ag_tmp(f, ctag_log_softmax(self, class_dim, self->dtype));
    ct_tensor *nll = input ? ag_tmp(f, ctag_nll_loss_nd(input, target, weight,
                                                        reduction, ignore_index))
                           : NULL;
    if (nll == NULL) {
        return NULL;
    }
    int64_t n_classes = input->sizes[class_dim];
    ct_tensor *ig = ag_tmp(f, ct_scalar_tensor(ct_scalar_int(ignore_index)));
    ct_tensor *mask = ig ? ag_tmp(f, ct_binary(CT_BINARY_EQ, target, ig,
                                               ct_scalar_int(1), NULL, CT_OUT_NEW))
                         : NULL;
    ct_tensor *wv =
        weight != NULL ? ag_tmp(f, class_view(weight, input->ndim, class_dim)) : NULL;
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
        ct_tensor *keep =
            ag_tmp(f, ct_unary(CT_UNARY_LOGICAL_NOT, mask, NULL, CT_OUT_NEW));
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
    ct_tensor *a = ag_tmp(f, scalar_op(nll, ct_scalar_float(1 - ls), false));
    ct_scalar per_class = ct_scalar_float(ls / (double)n_classes);
    ct_tensor *b = ag_tmp(f, scalar_op(ret, per_class, false));
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
            ct_error(CT_ERR_RUNTIME,
                     "Expected floating point type for target with class "
                     "probabilities, got %s",
                     ct_dtype_table[target->dtype].legacy);
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
            ct_error(CT_ERR_RUNTIME,
                     "label_smoothing must be between 0.0 and 1.0. Got: %g",
                     label_smoothing);
            return NULL;
        }
        r = ce_label_smoothing(&f, input, target, weight, reduction, ignore_index,
                               label_smoothing);
    }
    else {
        int class_dim = input->ndim == 1 ? 0 : 1;
        ct_tensor *ls = ag_tmp(&f, ctag_log_softmax(input, class_dim, input->dtype));
        r = ls ? ag_tmp(&f,
                        ctag_nll_loss_nd(ls, target, weight, reduction, ignore_index))
               : NULL;
    }
    if (r != NULL) {
        ct_tensor_incref(r);
    }
    ag_end(&f);
    return r;
}

/* --- normalization layers ------------------------------------------------- */

static int bn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int ln_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int gn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type bn_type = {"NativeBatchNormBackward0", bn_apply, NULL};
static const ct_node_type ln_type = {"NativeLayerNormBackward0", ln_apply, NULL};
static const ct_node_type gn_type = {"NativeGroupNormBackward0", gn_apply, NULL};

/* Hand a several-result kernel's extra outputs to the caller (or drop
 * them). */
static void
hand_out(ct_tensor *t, ct_tensor **dst)
{
    if (dst != NULL) {
        *dst = t;
    }
    else {
        ct_tensor_decref(t);
    }
}

/* Record a normalization node over (input, weight, bias) with saved
 * input, weight, a, b; NULL when nothing needs recording; -1 on error. */
static int
record_norm(const ct_node_type *type, const ct_tensor *input, const ct_tensor *weight,
            const ct_tensor *bias, ct_tensor *out, const ct_tensor *a,
            const ct_tensor *b, ct_node **node)
{
    const ct_tensor *ins[3] = {input, weight, bias};
    *node = NULL;
    if (!floating(out->dtype) || !ct_any_requires_grad(3, ins)) {
        return 0;
    }
    ct_node *n = ct_record(type, 3, ins, 1, &out);
    if (n == NULL || ct_node_save(n, 0, input, false) < 0 ||
        ct_node_save(n, 1, weight, false) < 0 || ct_node_save(n, 2, a, false) < 0 ||
        ct_node_save(n, 3, b, false) < 0) {
        return -1;
    }
    ag_save_meta(n, 0, input);
    *node = n;
    return 0;
}

/* Slots: saved = input, weight, then save_mean / save_invstd (training)
 * or running_mean / running_var; s[0] training; d[0] eps. */
ct_tensor *
ctag_native_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                       const ct_tensor *bias, ct_tensor *running_mean,
                       ct_tensor *running_var, bool training, double momentum,
                       double eps, ct_tensor **save_mean, ct_tensor **save_invstd)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *out, *sm, *si;
    ct_node *n;
    if (ct_native_batch_norm(input, weight, bias, running_mean, running_var, training,
                             momentum, eps, &out, &sm, &si) < 0) {
        return NULL;
    }
    if (record_norm(&bn_type, input, weight, bias, out, training ? sm : running_mean,
                    training ? si : running_var, &n) < 0) {
        ct_tensor_decref(out);
        ct_tensor_decref(sm);
        ct_tensor_decref(si);
        return NULL;
    }
    if (n != NULL) {
        n->s[0] = ct_scalar_bool(training);
        n->d[0] = eps;
    }
    hand_out(sm, save_mean);
    hand_out(si, save_invstd);
    return out;
}

static int
check_features(const char *what, int64_t expected, const ct_tensor *t)
{
    if (t != NULL && t->numel != expected) {
        return ct_error(CT_ERR_RUNTIME, "%s should contain %lld elements not %lld",
                        what, (long long)expected, (long long)t->numel);
    }
    return 0;
}

ct_tensor *
ctag_batch_norm(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
                ct_tensor *running_mean, ct_tensor *running_var, bool training,
                double momentum, double eps)
{
    AG_NULL_IF_ANY(input);
    if (ct_wrap_dim(1, input->ndim) < 0) {
        return NULL;
    }
    int64_t C = input->sizes[1];
    if (input->numel == 0) {
        /* torch: a clone (times weight[0], plus bias[0]) keeps the graph */
        ag_frame f = {0};
        ct_tensor *out = ag_tmp(&f, ctag_clone(input));
        if (weight != NULL) {
            out = ag_tmp(&f, ctag_mul(out, ag_tmp(&f, ctag_select(weight, 0, 0))));
        }
        if (bias != NULL) {
            out = ag_tmp(&f, ctag_add(out, ag_tmp(&f, ctag_select(bias, 0, 0)),
                                      ct_scalar_int(1)));
        }
        if (out != NULL) {
            ct_tensor_incref(out);
        }
        ag_end(&f);
        return out;
    }
    if (check_features("running_mean", C, running_mean) < 0) {
        return NULL;
    }
    if (running_mean == NULL && !training) {
        ct_error(CT_ERR_RUNTIME, "running_mean must be defined in evaluation mode");
        return NULL;
    }
    if (check_features("running_var", C, running_var) < 0) {
        return NULL;
    }
    if (running_var == NULL && !training) {
        ct_error(CT_ERR_RUNTIME, "running_var must be defined in evaluation mode");
        return NULL;
    }
    if (check_features("weight", C, weight) < 0 ||
        check_features("bias", C, bias) < 0) {
        return NULL;
    }
    return ctag_native_batch_norm(input, weight, bias, running_mean, running_var,
                                  training, momentum, eps, NULL, NULL);
}

/* The dims other than 1 (batch norm's and group norm's reduction dims). */
static int
dims_but_channel(int ndim, int64_t *dims)
{
    int k = 0;
    for (int d = 0; d < ndim; d++) {
        if (d != 1) {
            dims[k++] = d;
        }
    }
    return k;
}

/* A per-channel vector viewed as [1, C, 1, ...] for an ndim-dim input. */
static ct_tensor *
channel_view(ag_frame *f, const ct_tensor *v, int ndim)
{
    return v != NULL ? ag_tmp(f, class_view(v, ndim, 1)) : NULL;
}

/* (g - mean(g) - xhat * mean(g * xhat)) over dims, owned by f: the
 * common core of the normalizations' input gradients. */
static ct_tensor *
norm_core(ag_frame *f, const ct_tensor *g, const ct_tensor *xhat, int nd,
          const int64_t *dims)
{
    ct_tensor *gm = ag_tmp(f, ctag_mean(g, nd, dims, true, CT_DTYPE_COUNT));
    ct_tensor *p = ag_tmp(f, ctag_mean(ag_tmp(f, ctag_mul(g, xhat)), nd, dims, true,
                                       CT_DTYPE_COUNT));
    ct_tensor *t = ag_tmp(f, ctag_sub(g, gm, ct_scalar_int(1)));
    return ag_tmp(f, ctag_sub(t, ag_tmp(f, ctag_mul(xhat, p)), ct_scalar_int(1)));
}

/* (x - mean) and rsqrt(var + eps) over dims with ctag_ ops, owned by f. */
static int
moments(ag_frame *f, const ct_tensor *x, int nd, const int64_t *dims, double eps,
        ct_tensor **xc, ct_tensor **rstd)
{
    ct_tensor *mean = ag_tmp(f, ctag_mean(x, nd, dims, true, CT_DTYPE_COUNT));
    *xc = ag_tmp(f, ctag_sub(x, mean, ct_scalar_int(1)));
    ct_tensor *var = ag_tmp(f, ctag_mean(ag_tmp(f, ctag_mul(*xc, *xc)), nd, dims, true,
                                         CT_DTYPE_COUNT));
    *rstd = ag_tmp(f, ag_unary(CT_UNARY_RSQRT, ag_tmp(f, ag_add_s(var, eps))));
    return *rstd != NULL ? 0 : -1;
}

/* Give the three gradients of a normalization node to go[] (cast to the
 * input's dtype for the input); consumes r[]. */
static int
give_three(ct_node *n, ct_tensor **r, ct_tensor **go)
{
    int rc = 0;
    for (int k = 0; k < 3; k++) {
        if (!ct_node_needs(n, k)) {
            ct_tensor_decref(r[k]);
            continue;
        }
        if (r[k] == NULL) {
            rc = -1;
            continue;
        }
        go[k] = r[k];
    }
    if (rc < 0) {
        for (int k = 0; k < 3; k++) {
            ct_tensor_decref(go[k]);
            go[k] = NULL;
        }
    }
    return rc;
}

static int
bn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *w, *a, *b, *r[3] = {NULL, NULL, NULL};
    bool training = n->s[0].v.b;
    double eps = n->d[0];
    bool mask[3] = {ct_node_needs(n, 0), ct_node_needs(n, 1), ct_node_needs(n, 2)};
    const ct_tensor *g = gi[0];

    if (!unpack(&f, n, 0, &x) || !unpack(&f, n, 1, &w) || !unpack(&f, n, 2, &a) ||
        !unpack(&f, n, 3, &b)) {
        ag_end(&f);
        return -1;
    }
    const ct_tensor *deps[3] = {g, x, w};
    if (!want_graph(3, deps)) {
        int rc = ct_native_batch_norm_backward(g, x, w, training ? NULL : a,
                                               training ? NULL : b, training ? a : NULL,
                                               training ? b : NULL, training, eps, mask,
                                               &r[0], &r[1], &r[2]);
        ag_end(&f);
        return rc < 0 ? -1 : give_three(n, r, go);
    }
    int64_t dims[CT_MAX_DIMS];
    int nd = dims_but_channel(x->ndim, dims);
    ct_tensor *xc, *invstd;
    if (training) {
        if (moments(&f, x, nd, dims, eps, &xc, &invstd) < 0) {
            goto fail;
        }
    }
    else {
        xc = ag_tmp(&f, ctag_sub(x, channel_view(&f, a, x->ndim), ct_scalar_int(1)));
        invstd = ag_tmp(&f, ag_unary(CT_UNARY_RSQRT, ag_tmp(&f, ag_add_s(
                                         channel_view(&f, b, x->ndim), eps))));
    }
    ct_tensor *xhat = ag_tmp(&f, ctag_mul(xc, invstd));
    if (mask[0]) {
        const ct_tensor *core = training ? norm_core(&f, g, xhat, nd, dims) : g;
        ct_tensor *t = ag_tmp(&f, ctag_mul(core, invstd));
        r[0] = w != NULL ? ctag_mul(t, channel_view(&f, w, x->ndim)) : t;
        if (w == NULL && r[0] != NULL) {
            ct_tensor_incref(r[0]);
        }
    }
    if (mask[1]) {
        r[1] = ctag_sum(ag_tmp(&f, ctag_mul(g, xhat)), nd, dims, false, CT_DTYPE_COUNT);
    }
    if (mask[2]) {
        r[2] = ctag_sum(g, nd, dims, false, CT_DTYPE_COUNT);
    }
    ag_end(&f);
    return give_three(n, r, go);
fail:
    ag_end(&f);
    return -1;
}

/* Slots: saved = input, weight, mean, rstd; ndim[1] and ints[CT_MAX_DIMS
 * ...] the normalized shape; d[0] eps. */
ct_tensor *
ctag_native_layer_norm(const ct_tensor *input, int nshape,
                       const int64_t *normalized_shape, const ct_tensor *weight,
                       const ct_tensor *bias, double eps, ct_tensor **mean,
                       ct_tensor **rstd)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *out, *mt, *rt;
    ct_node *n;
    if (nshape > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "layer_norm: too many dimensions");
        return NULL;
    }
    if (ct_native_layer_norm(input, nshape, normalized_shape, weight, bias, eps, &out,
                             &mt, &rt) < 0) {
        return NULL;
    }
    if (record_norm(&ln_type, input, weight, bias, out, mt, rt, &n) < 0) {
        ct_tensor_decref(out);
        ct_tensor_decref(mt);
        ct_tensor_decref(rt);
        return NULL;
    }
    if (n != NULL) {
        n->ndim[1] = nshape;
        memcpy(n->ints + CT_MAX_DIMS, normalized_shape,
               sizeof(int64_t) * (size_t)nshape);
        n->d[0] = eps;
    }
    hand_out(mt, mean);
    hand_out(rt, rstd);
    return out;
}

static int
ln_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *w, *mean, *rstd, *r[3] = {NULL, NULL, NULL};
    bool mask[3] = {ct_node_needs(n, 0), ct_node_needs(n, 1), ct_node_needs(n, 2)};
    int nshape = n->ndim[1];
    const int64_t *shape = n->ints + CT_MAX_DIMS;
    const ct_tensor *g = gi[0];

    if (!unpack(&f, n, 0, &x) || !unpack(&f, n, 1, &w) || !unpack(&f, n, 2, &mean) ||
        !unpack(&f, n, 3, &rstd)) {
        ag_end(&f);
        return -1;
    }
    const ct_tensor *deps[3] = {g, x, w};
    if (!want_graph(3, deps)) {
        int rc = ct_native_layer_norm_backward(g, x, nshape, shape, mean, rstd, w, mask,
                                               &r[0], &r[1], &r[2]);
        ag_end(&f);
        return rc < 0 ? -1 : give_three(n, r, go);
    }
    int64_t axes[CT_MAX_DIMS], lead[CT_MAX_DIMS];
    int axis = x->ndim - nshape;
    for (int d = 0; d < x->ndim; d++) {
        if (d < axis) {
            lead[d] = d;
        }
        else {
            axes[d - axis] = d;
        }
    }
    ct_tensor *xc, *rs;
    if (moments(&f, x, nshape, axes, n->d[0], &xc, &rs) < 0) {
        ag_end(&f);
        return -1;
    }
    ct_tensor *xhat = ag_tmp(&f, ctag_mul(xc, rs));
    if (mask[0]) {
        const ct_tensor *gx = w != NULL ? ag_tmp(&f, ctag_mul(g, w)) : g;
        r[0] = ctag_mul(rs, norm_core(&f, gx, xhat, nshape, axes));
    }
    /* weight / bias: summed over the leading dims (none: as they are) */
    if (mask[1]) {
        ct_tensor *p = ag_tmp(&f, ctag_mul(g, xhat));
        r[1] =
            axis > 0 ? ctag_sum(p, axis, lead, false, CT_DTYPE_COUNT) : ctag_clone(p);
    }
    if (mask[2]) {
        r[2] =
            axis > 0 ? ctag_sum(g, axis, lead, false, CT_DTYPE_COUNT) : ctag_clone(g);
    }
    ag_end(&f);
    return give_three(n, r, go);
}

/* Slots: saved = input, weight, mean, rstd; ints[CT_MAX_DIMS] the group
 * count; d[0] eps. */
ct_tensor *
ctag_native_group_norm(const ct_tensor *input, const ct_tensor *weight,
                       const ct_tensor *bias, int64_t group, double eps,
                       ct_tensor **mean, ct_tensor **rstd)
{
    AG_NULL_IF_ANY(input);
    ct_tensor *out, *mt, *rt;
    ct_node *n;
    if (ct_native_group_norm(input, weight, bias, group, eps, &out, &mt, &rt) < 0) {
        return NULL;
    }
    if (record_norm(&gn_type, input, weight, bias, out, mt, rt, &n) < 0) {
        ct_tensor_decref(out);
        ct_tensor_decref(mt);
        ct_tensor_decref(rt);
        return NULL;
    }
    if (n != NULL) {
        n->ints[CT_MAX_DIMS] = group;
        n->d[0] = eps;
    }
    hand_out(mt, mean);
    hand_out(rt, rstd);
    return out;
}

ct_tensor *
ctag_group_norm(const ct_tensor *input, int64_t num_groups, const ct_tensor *weight,
                const ct_tensor *bias, double eps)
{
    AG_NULL_IF_ANY(input);
    if (ct_wrap_dim(1, input->ndim) < 0) {     /* torch reads input.size(1) first */
        return NULL;
    }
    return ctag_native_group_norm(input, weight, bias, num_groups, eps, NULL, NULL);
}

static int
gn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *w, *mean, *rstd, *r[3] = {NULL, NULL, NULL};
    bool mask[3] = {ct_node_needs(n, 0), ct_node_needs(n, 1), ct_node_needs(n, 2)};
    int64_t group = n->ints[CT_MAX_DIMS];
    const ct_tensor *g = gi[0];

    if (!unpack(&f, n, 0, &x) || !unpack(&f, n, 1, &w) || !unpack(&f, n, 2, &mean) ||
        !unpack(&f, n, 3, &rstd)) {
        ag_end(&f);
        return -1;
    }
    const ct_tensor *deps[3] = {g, x, w};
    if (!want_graph(3, deps)) {
        int rc = ct_native_group_norm_backward(g, x, mean, rstd, w, group, mask, &r[0],
                                               &r[1], &r[2]);
        ag_end(&f);
        return rc < 0 ? -1 : give_three(n, r, go);
    }
    /* per (sample, group) statistics over x viewed as (N, G, -1) */
    int64_t gshape[3] = {x->sizes[0], group, -1}, last = 2;
    ct_tensor *xg = ag_tmp(&f, ctag_reshape(x, 3, gshape));
    ct_tensor *xc, *rs;
    if (xg == NULL || moments(&f, xg, 1, &last, n->d[0], &xc, &rs) < 0) {
        ag_end(&f);
        return -1;
    }
    ct_tensor *xhg = ag_tmp(&f, ctag_mul(xc, rs));
    ct_tensor *xhat = ag_tmp(&f, ctag_reshape(xhg, x->ndim, x->sizes));
    if (mask[0]) {
        const ct_tensor *gx =
            w != NULL ? ag_tmp(&f, ctag_mul(g, channel_view(&f, w, x->ndim))) : g;
        ct_tensor *gxg = ag_tmp(&f, ctag_reshape(gx, 3, gshape));
        ct_tensor *t = ag_tmp(&f, ctag_mul(rs, norm_core(&f, gxg, xhg, 1, &last)));
        r[0] = ctag_reshape(t, x->ndim, x->sizes);
    }
    int64_t dims[CT_MAX_DIMS];
    int nd = dims_but_channel(x->ndim, dims);
    if (mask[1]) {
        r[1] = ctag_sum(ag_tmp(&f, ctag_mul(g, xhat)), nd, dims, false, CT_DTYPE_COUNT);
    }
    if (mask[2]) {
        r[2] = ctag_sum(g, nd, dims, false, CT_DTYPE_COUNT);
    }
    ag_end(&f);
    return give_three(n, r, go);
}

/* --- embedding ------------------------------------------------------------ */

static int embedding_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static const ct_node_type embedding_type = { "EmbeddingBackward0", embedding_apply,
                                             NULL };

/* Slots: saved[0] = indices; s[0] num_weights, s[1] padding_idx; d[0]
 * scale_grad_by_freq; meta 0 the weight. */
ct_tensor *
ctag_embedding(const ct_tensor *weight, const ct_tensor *indices, int64_t padding_idx,
               bool scale_grad_by_freq)
{
    AG_NULL_IF_ANY(weight, indices);
    ct_tensor *r = ct_embedding(weight, indices);
    if (r == NULL || !floating(r->dtype) || !ct_any_requires_grad(1, &weight)) {
        return r;
    }
    ct_node *n = ct_record(&embedding_type, 1, &weight, 1, &r);
    if (n == NULL || ct_node_save(n, 0, indices, false) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, weight);
    n->s[0] = ct_scalar_int(weight->sizes[0]);
    n->s[1] = ct_scalar_int(padding_idx);
    n->d[0] = scale_grad_by_freq;
    return r;
}

/* Under create_graph: the gradient is linear in g, the rows of g scaled
 * (0 for padding_idx, 1 / count with scale_grad_by_freq) and added into
 * zeros with index_add. */
static ct_tensor *
embedding_graph_grad(ag_frame *f, const ct_tensor *g, const ct_tensor *indices,
                     int64_t num_weights, int64_t padding_idx, bool by_freq)
{
    int64_t K = indices->numel, D = g->ndim > 0 ? g->sizes[g->ndim - 1] : 1;
    ct_device dev = ct_tensor_device(g);
    ct_tensor *idx = ag_tmp(f, ct_to_dtype(indices, CT_DTYPE_INT64, false));
    idx = idx ? ag_tmp(f, ct_contiguous(idx)) : NULL;
    /* the coefficients are made on the host, from a host copy of device
     * indices, and moved to g's device */
    ct_tensor *hidx = idx ? ag_tmp(f, ct_to_device(idx, ct_device_cpu())) : NULL;
    int64_t kshape[2] = {K, 1}, gshape[2] = {K, D}, wshape[2] = {num_weights, D};
    ct_tensor *coef = ag_tmp(f, ct_ones(2, kshape, CT_DTYPE_FLOAT64));
    if (hidx == NULL || coef == NULL) {
        return NULL;
    }
    const int64_t *ip = (const int64_t *)ct_tensor_data(hidx);
    double *cp = (double *)ct_tensor_data(coef);
    for (int64_t k = 0; k < K; k++) {
        if (ip[k] < 0 || ip[k] >= num_weights) {
            ct_error(CT_ERR_INDEX, "index out of range in self");
            return NULL;
        }
        int64_t count = 0;
        for (int64_t i = 0; by_freq && i < K; i++) {
            count += ip[i] == ip[k];
        }
        cp[k] = ip[k] == padding_idx ? 0 : by_freq ? 1.0 / (double)count : 1.0;
    }
    int64_t flat = -1;
    ct_tensor *gf = ag_tmp(f, ctag_reshape(g, 2, gshape));
    ct_tensor *ch = ag_tmp(f, ct_to_dtype(coef, g->dtype, false));
    ct_tensor *c = ch ? ag_tmp(f, ct_to_device(ch, dev)) : NULL;
    ct_tensor *gs = gf && c ? ag_tmp(f, ctag_mul(gf, c)) : NULL;
    ct_tensor *zeros = ag_tmp(f, ct_zeros_on(2, wshape, g->dtype, dev));
    ct_tensor *iflat = ag_tmp(f, ct_reshape(idx, 1, &flat));
    return gs && zeros && iflat ? ag_tmp(f, ctag_index_add(zeros, 0, iflat, gs,
                                                           ct_scalar_int(1)))
                                : NULL;
}

static int
embedding_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *indices;
    int64_t nw = n->s[0].v.i, pad = n->s[1].v.i;
    bool by_freq = n->d[0] != 0;
    ct_tensor *r = NULL;
    const ct_tensor *g = gi[0];

    if (unpack(&f, n, 0, &indices) && indices != NULL) {
        if (want_graph(1, &g)) {
            r = embedding_graph_grad(&f, g, indices, nw, pad, by_freq);
            if (r != NULL) {
                ct_tensor_incref(r);
            }
        }
        else {
            r = ct_embedding_dense_backward(g, indices, nw, pad, by_freq);
        }
    }
    ag_end(&f);
    go[0] = ag_to_input(n, 0, r);
    return go[0] != NULL ? 0 : -1;
}

/* --- kl_div --------------------------------------------------------------- */

/* torch's kl_div, a composite: exp(target) * (target - input) for log
 * targets, else xlogy(target, target) - target * input (xlogy: 0 where
 * target is 0), then reduced. */
ct_tensor *
ctag_kl_div(const ct_tensor *input, const ct_tensor *target, ct_reduction reduction,
            bool log_target)
{
    AG_NULL_IF_ANY(input, target);
    if (!floating(input->dtype) || !floating(target->dtype)) {
        ct_error(CT_ERR_RUNTIME, "kl_div: Integral inputs not supported.");
        return NULL;
    }
    ag_frame f = {0};
    ct_tensor *out;
    if (log_target) {
        ct_tensor *e = ag_tmp(&f, ag_unary(CT_UNARY_EXP, target));
        out = ag_tmp(
            &f, ctag_mul(e, ag_tmp(&f, ctag_sub(target, input, ct_scalar_int(1)))));
    }
    else {
        ct_tensor *zero = ag_tmp(&f, ct_zeros(0, NULL, target->dtype));
        ct_tensor *one = ag_tmp(&f, ct_ones(0, NULL, target->dtype));
        ct_tensor *is0 = zero
                             ? ag_tmp(&f, ct_binary(CT_BINARY_EQ, target, zero,
                                                    ct_scalar_int(1), NULL, CT_OUT_NEW))
                             : NULL;
        ct_tensor *safe = is0 && one ? ag_tmp(&f, ctag_where(is0, one, target)) : NULL;
        ct_tensor *tl =
            ag_tmp(&f, ctag_mul(target, ag_tmp(&f, ag_unary(CT_UNARY_LOG, safe))));
        ct_tensor *xl = tl ? ag_tmp(&f, ctag_where(is0, zero, tl)) : NULL;
        out = ag_tmp(
            &f, ctag_sub(xl, ag_tmp(&f, ctag_mul(target, input)), ct_scalar_int(1)));
    }
    if (out != NULL && reduction == CT_REDUCTION_MEAN) {
        out = ag_tmp(&f, ctag_mean(out, 0, NULL, false, CT_DTYPE_COUNT));
    }
    else if (out != NULL && reduction == CT_REDUCTION_SUM) {
        out = ag_tmp(&f, ctag_sum(out, 0, NULL, false, CT_DTYPE_COUNT));
    }
    if (out != NULL) {
        ct_tensor_incref(out);
    }
    ag_end(&f);
    return out;
}
