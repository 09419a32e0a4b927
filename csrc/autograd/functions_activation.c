/* csrc/autograd/functions_activation.c -- autograd for the activations of
 * ops_activation.h.
 *
 * Forward: <Name>Backward0 saves the input (a copy of it for the in-place
 * forms, taken before the write) and the parameters; its formula is the
 * fused kernel ct_activation_backward(g, x).  That formula is itself
 * recorded, as <Name>BackwardBackward0 with edges to g and x, when a
 * backward runs with create_graph: its gradient for g is the same backward
 * kernel (linear in g), for x it is gg * g * f''(x) (zero for the
 * piecewise linear functions), which is not recorded further.
 *
 * The three parameters live in the node's d[0], d[1] and s[0].
 */
#include "csrc/autograd/functions.h"

#include <ctorch/autograd_activation.h>

static int act_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int act_bb_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type act_types[CT_ACT_COUNT] = {
#define X(E, N, K, B, BI, BB) [E] = {B, act_apply, NULL},
    CT_FORALL_ACTIVATIONS(X)
#undef X
};

/* the in-place forms' nodes: the same formula (on a copy of the input taken
 * before the write) under the name PyTorch gives them */
static const ct_node_type act_inplace_types[CT_ACT_COUNT] = {
#define X(E, N, K, B, BI, BB) [E] = {BI, act_apply, NULL},
    CT_FORALL_ACTIVATIONS(X)
#undef X
};

static const ct_node_type act_bb_types[CT_ACT_COUNT] = {
#define X(E, N, K, B, BI, BB) [E] = {BB, act_bb_apply, NULL},
    CT_FORALL_ACTIVATIONS(X)
#undef X
};

static void
params_save(ct_node *n, const double *p)
{
    n->d[0] = p[0];
    n->d[1] = p[1];
    n->s[0] = ct_scalar_float(p[2]);
}

static void
params_load(const ct_node *n, double *p)
{
    p[0] = n->d[0];
    p[1] = n->d[1];
    p[2] = ct_scalar_to_double(n->s[0]);
}

ct_tensor *
ctag_activation(ct_act_op op, const ct_tensor *t, const double *p, ct_tensor *out,
                ct_out_mode mode)
{
    AG_NULL_IF_ANY(t);
    bool rec = ct_dtype_is_floating(t->dtype) && ct_any_requires_grad(1, &t);
    ct_tensor *orig = NULL;

    if (mode == CT_OUT_INPLACE) {
        if (ag_inplace_begin(out) < 0) {
            return NULL;
        }
        /* the formula needs the input as it was before the write */
        if (rec && (orig = ct_clone(t)) == NULL) {
            return NULL;
        }
    }
    ct_tensor *r = ct_activation(op, t, p, out, mode);
    if (r == NULL) {
        ct_tensor_decref(orig);
        return NULL;
    }
    if (mode == CT_OUT_INPLACE) {
        ct_tensor_bump_version(r);
    }
    if (rec) {
        ct_node *n = mode == CT_OUT_INPLACE
                         ? ct_record_inplace(&act_inplace_types[op], 1, &t, r)
                         : ct_record(&act_types[op], 1, &t, 1, &r);
        if (n != NULL) {
            params_save(n, p);
            if (ct_node_save(n, 0, orig != NULL ? orig : t, false) < 0) {
                ct_tensor_decref(orig);
                ct_tensor_decref(r);
                return NULL;
            }
        }
    }
    ct_tensor_decref(orig);
    return r;
}

ct_tensor *
ctag_activation_backward(ct_act_op op, const ct_tensor *grad, const ct_tensor *x,
                         const double *p)
{
    AG_NULL_IF_ANY(grad, x);
    ct_tensor *r = ct_activation_backward(op, grad, x, p);
    const ct_tensor *ins[2] = {grad, x};
    if (r != NULL && ct_grad_enabled() && ct_any_requires_grad(2, ins)) {
        ct_node *n = ct_record(&act_bb_types[op], 2, ins, 1, &r);
        if (n != NULL) {
            params_save(n, p);
            ag_save_meta(n, 0, grad);
            if (ct_node_save(n, 0, grad, false) < 0 ||
                ct_node_save(n, 1, x, false) < 0) {
                ct_tensor_decref(r);
                return NULL;
            }
        }
    }
    return r;
}

static int
act_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    bool inplace = n->type >= act_inplace_types &&
                   n->type < act_inplace_types + CT_ACT_COUNT;
    ct_act_op op = (ct_act_op)(n->type - (inplace ? act_inplace_types : act_types));
    double p[CT_ACT_MAX_PARAMS];
    ct_tensor *x = ct_node_unpack(n, 0);
    if (x == NULL) {
        return -1;
    }
    params_load(n, p);
    go[0] = ctag_activation_backward(op, gi[0], x, p);
    ct_tensor_decref(x);
    return go[0] != NULL ? 0 : -1;
}

static int
act_bb_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_act_op op = (ct_act_op)(n->type - act_bb_types);
    double p[CT_ACT_MAX_PARAMS];
    ct_tensor *g = ct_node_unpack(n, 0), *x = ct_node_unpack(n, 1);
    int rc = -1;

    if (g == NULL || x == NULL) {
        goto done;
    }
    params_load(n, p);
    if (ct_node_needs(n, 0)) {
        go[0] = ag_to_input(n, 0, ctag_activation_backward(op, gi[0], x, p));
        if (go[0] == NULL) {
            goto done;
        }
    }
    if (ct_node_needs(n, 1)) {
        ct_tensor *gg = ct_mul(gi[0], g);
        go[1] = gg != NULL ? ct_activation_backward2(op, gg, x, p) : NULL;
        ct_tensor_decref(gg);
        if (go[1] == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ct_tensor_decref(g);
    ct_tensor_decref(x);
    return rc;
}
