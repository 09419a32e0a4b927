/* csrc/python/nn_loss.c -- Python bindings of the losses of torch.nn
 * (include/ctorch/autograd_nn.h), merged into _C by module.c (Note [Method
 * tables]).
 *
 * torch keeps most of these in torch._C._nn; here they are private _C
 * functions (a leading underscore) that python/ctorch/nn/_functional_loss.py
 * calls, except binary_cross_entropy_with_logits and kl_div, which torch
 * also exports as torch functions.  Reductions are
 * torch's integers (F._Reduction.get_enum: 0 none, 1 mean, 2 sum).
 */
#include "argparse.h"

#define FASTCALL PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                 PyObject *kwnames

static const ct_tensor *
opt(const ctpy_arg *a)
{
    return a->is_none ? NULL : a->t;
}

/* The reduction argument as the C enum; -1 with ValueError. */
static int
reduction_of(const ctpy_arg *a, ct_reduction *out)
{
    if (a->i < CT_REDUCTION_NONE || a->i > CT_REDUCTION_SUM) {
        PyErr_Format(PyExc_ValueError, "%lld is not a valid value for reduction",
                     (long long)a->i);
        return -1;
    }
    *out = (ct_reduction)a->i;
    return 0;
}

/* _mse_loss / _smooth_l1_loss / _huber_loss / _binary_cross_entropy /
 * binary_cross_entropy_with_logits: one binding per op over
 * ctag_pointwise_loss, its signature in the table below. */
static PyObject *
ploss_call(ct_ploss_op op, ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs,
           PyObject *kwnames)
{
    ctpy_arg v[6];
    ct_reduction red;
    ct_ploss_args pa = {NULL, NULL, 0};
    int ired;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    switch (op) {
    case CT_PLOSS_MSE:
        ired = 2;
        break;
    case CT_PLOSS_SMOOTH_L1:
    case CT_PLOSS_HUBER:
        ired = 2;
        pa.param = v[3].d;
        break;
    case CT_PLOSS_BCE:
        pa.weight = opt(&v[2]);
        ired = 3;
        break;
    default:
        pa.weight = opt(&v[2]);
        pa.pos_weight = opt(&v[3]);
        ired = 4;
        break;
    }
    if (reduction_of(&v[ired], &red) < 0) {
        ctpy_release(sig, v);
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_pointwise_loss(op, v[0].t, v[1].t, &pa, red));
    ctpy_release(sig, v);
    return ctpy_result(r);
}

/* X(ENUM, binding name, signature) */
#define FORALL_PLOSS_BINDINGS(X)                                                 \
    X(CT_PLOSS_MSE, _mse_loss,                                                   \
      "_mse_loss(Tensor input, Tensor target, int reduction=1)")                 \
    X(CT_PLOSS_SMOOTH_L1, _smooth_l1_loss,                                       \
      "_smooth_l1_loss(Tensor input, Tensor target, int reduction=1, "           \
      "float beta=1.0)")                                                         \
    X(CT_PLOSS_HUBER, _huber_loss,                                               \
      "_huber_loss(Tensor input, Tensor target, int reduction=1, "               \
      "float delta=1.0)")                                                        \
    X(CT_PLOSS_BCE, _binary_cross_entropy,                                       \
      "_binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, " \
      "int reduction=1)")                                                        \
    X(CT_PLOSS_BCE_LOGITS, binary_cross_entropy_with_logits,                     \
      "binary_cross_entropy_with_logits(Tensor input, Tensor target, "           \
      "Tensor? weight=None, Tensor? pos_weight=None, int reduction=1)")

#define X(E, NAME, SIG)                                                          \
    static PyObject *fn_##NAME(FASTCALL)                                         \
    {                                                                            \
        static ctpy_sig sig = CTPY_SIG(SIG);                                     \
        (void)self;                                                              \
        return ploss_call(E, &sig, args, nargs, kwnames);                        \
    }
FORALL_PLOSS_BINDINGS(X)
#undef X

/* _nll_loss / _nll_loss2d / _nll_loss_nd */
typedef ct_tensor *(*nll_fn)(const ct_tensor *, const ct_tensor *, const ct_tensor *,
                             ct_reduction, int64_t);

static PyObject *
nll_call(nll_fn fn, ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs,
         PyObject *kwnames)
{
    ctpy_arg v[5];
    ct_reduction red;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (reduction_of(&v[3], &red) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = fn(v[0].t, v[1].t, opt(&v[2]), red, v[4].i));
    return ctpy_result(r);
}

#define NLL_ARGS                                                                       \
    "(Tensor input, Tensor target, Tensor? weight=None, int reduction=1, "             \
    "int ignore_index=-100)"

#define FORALL_NLL_BINDINGS(X)                          \
    X(_nll_loss, ctag_nll_loss)                         \
    X(_nll_loss2d, ctag_nll_loss2d)                     \
    X(_nll_loss_nd, ctag_nll_loss_nd)

#define X(NAME, FN)                                                              \
    static PyObject *fn_##NAME(FASTCALL)                                         \
    {                                                                            \
        static ctpy_sig sig = CTPY_SIG(#NAME NLL_ARGS);                          \
        (void)self;                                                              \
        return nll_call(FN, &sig, args, nargs, kwnames);                         \
    }
FORALL_NLL_BINDINGS(X)
#undef X

static PyObject *
fn__cross_entropy_loss(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "_cross_entropy_loss(Tensor input, Tensor target, Tensor? weight=None, "
        "int reduction=1, int ignore_index=-100, float label_smoothing=0.0)");
    ctpy_arg v[6];
    ct_reduction red;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        reduction_of(&v[3], &red) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_cross_entropy_loss(v[0].t, v[1].t, opt(&v[2]), red,
                                                        v[4].i, v[5].d));
    return ctpy_result(r);
}

static PyObject *
fn_kl_div(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("kl_div(Tensor input, Tensor target, int "
                                   "reduction=1, *, bool log_target=False)");
    ctpy_arg v[4];
    ct_reduction red;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        reduction_of(&v[2], &red) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_kl_div(v[0].t, v[1].t, red, v[3].b));
    return ctpy_result(r);
}

#define ENTRY(NAME) CTPY_METH(#NAME, fn_##NAME, NULL),

PyMethodDef ctpy_nn_loss_functions[] = {
#define X(E, NAME, SIG) ENTRY(NAME)
    FORALL_PLOSS_BINDINGS(X)
#undef X
#define X(NAME, FN) ENTRY(NAME)
    FORALL_NLL_BINDINGS(X)
#undef X
    ENTRY(_cross_entropy_loss)
    ENTRY(kl_div)
    {NULL, NULL, 0, NULL},
};
