/* csrc/python/nn_activation.c -- bindings of the activations
 * (include/ctorch/ops_activation.h), merged into _C by module.c (Note
 * [Method tables] in ctpy.h).
 *
 * torch.nn.functional's wrappers (python/ctorch/nn/_functional_basic.py)
 * call one private entry, _C._activation(input, op, p0, p1, p2, inplace),
 * with op an index into _C._activation_ops(); the functions that torch
 * itself exports (torch.threshold, celu, selu, hardshrink and their
 * in-place forms, Tensor.hardshrink) have their own signatures here.
 * _C._linalg_qr (torch.linalg.qr, for nn.init.orthogonal_) lives here too.
 */
#include "argparse.h"

#include <string.h>

#define FASTCALL PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

/* SELU's constants (Klambauer et al.), as PyTorch spells them. */
#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946

/* Run op on t (in place when inplace) with the GIL released when large. */
static PyObject *
run(ct_act_op op, ct_tensor *t, const double *p, bool inplace)
{
    ct_tensor *r;
    CTPY_RUN(t->numel, r = ctag_activation(op, t, p, inplace ? t : NULL,
                                           inplace ? CT_OUT_INPLACE : CT_OUT_NEW));
    return ctpy_result(r);
}

static PyObject *
fn_activation(PyObject *mod, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("_activation(Tensor input, int op, float p0=0, "
                                   "float p1=0, float p2=0, bool inplace=False)");
    ctpy_arg v[6];
    (void)mod;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[1].i < 0 || v[1].i >= CT_ACT_COUNT) {
        PyErr_Format(PyExc_ValueError, "_activation: no activation %lld",
                     (long long)v[1].i);
        return NULL;
    }
    double p[CT_ACT_MAX_PARAMS] = {v[2].d, v[3].d, v[4].d};
    return run((ct_act_op)v[1].i, v[0].t, p, v[5].b);
}

/* {name: op index} for the Python wrappers. */
static PyObject *
fn_activation_ops(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    PyObject *d = PyDict_New();
    for (int k = 0; d != NULL && k < CT_ACT_COUNT; k++) {
        PyObject *i = PyLong_FromLong(k);
        if (i == NULL || PyDict_SetItemString(d, ct_act_names[k], i) < 0) {
            Py_XDECREF(i);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(i);
    }
    return d;
}

/* --- the functions torch exports ----------------------------------------- */

static PyObject *
impl_threshold(bool inplace, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("threshold(Tensor input, Scalar threshold, "
                                   "Scalar value)");
    static ctpy_sig sig_ = CTPY_SIG("threshold_(Tensor input, Scalar threshold, "
                                    "Scalar value)");
    ctpy_arg v[3];
    if (ctpy_parse(inplace ? &sig_ : &sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    double p[CT_ACT_MAX_PARAMS] = {ct_scalar_to_double(v[1].s),
                                   ct_scalar_to_double(v[2].s), 0};
    return run(CT_ACT_THRESHOLD, v[0].t, p, inplace);
}

static PyObject *
impl_celu(bool inplace, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("celu(Tensor input, Scalar alpha=1.0)");
    static ctpy_sig sig_ = CTPY_SIG("celu_(Tensor input, Scalar alpha=1.0)");
    ctpy_arg v[2];
    if (ctpy_parse(inplace ? &sig_ : &sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    double alpha = ct_scalar_to_double(v[1].s);
    if (alpha == 0) {
        PyErr_SetString(PyExc_RuntimeError,
                        "ZeroDivisionError: alpha cannot be 0 for CELU");
        return NULL;
    }
    double p[CT_ACT_MAX_PARAMS] = {alpha, 1.0, 1.0 / alpha};
    return run(CT_ACT_CELU, v[0].t, p, inplace);
}

static PyObject *
impl_selu(bool inplace, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("selu(Tensor input)");
    static ctpy_sig sig_ = CTPY_SIG("selu_(Tensor input)");
    ctpy_arg v[1];
    if (ctpy_parse(inplace ? &sig_ : &sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    double p[CT_ACT_MAX_PARAMS] = {SELU_ALPHA, SELU_SCALE, 1.0};
    return run(CT_ACT_ELU, v[0].t, p, inplace);
}

static PyObject *
impl_hardshrink(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("hardshrink(Tensor input, Scalar lambd=0.5)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    double p[CT_ACT_MAX_PARAMS] = {ct_scalar_to_double(v[1].s), 0, 0};
    return run(CT_ACT_HARDSHRINK, v[0].t, p, false);
}

/* linalg.qr(A, mode='reduced') -> (Q, R), a plain tuple; mode 'r' gives an
 * empty Q, as torch does.  No derivative: an input that requires grad is refused
 * rather than given a result without history. */
static PyObject *
fn_linalg_qr(PyObject *mod, FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("linalg_qr(Tensor A, str? mode=None)");
    ctpy_arg v[2];
    ct_tensor *q = NULL, *r = NULL;
    int mode, rc;
    (void)mod;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const char *m = v[1].is_none ? "reduced" : PyUnicode_AsUTF8(v[1].obj);
    if (m == NULL) {
        return NULL;
    }
    if (strcmp(m, "reduced") == 0) {
        mode = 0;
    }
    else if (strcmp(m, "complete") == 0) {
        mode = 1;
    }
    else if (strcmp(m, "r") == 0) {
        mode = 2;
    }
    else {
        PyErr_Format(PyExc_RuntimeError, "qr received unrecognized mode '%s' but "
                     "expected one of 'reduced' (default), 'r', or 'complete'", m);
        return NULL;
    }
    if (ct_grad_enabled() && ct_requires_grad(v[0].t)) {
        PyErr_SetString(PyExc_NotImplementedError,
                        "the derivative for 'linalg_qr' is not implemented.");
        return NULL;
    }
    CTPY_RUN(v[0].t->numel, rc = ct_linalg_qr(v[0].t, mode, &q, &r));
    if (rc < 0) {
        return ctpy_raise();
    }
    if (q == NULL) {
        int64_t zero = 0;
        q = ct_empty(1, &zero, r->dtype, ct_tensor_device(r));
        if (q == NULL) {
            ct_tensor_decref(r);
            return ctpy_raise();
        }
    }
    PyObject *pq = ctpy_result(q), *pr = ctpy_result(r);
    if (pq == NULL || pr == NULL) {
        Py_XDECREF(pq);
        Py_XDECREF(pr);
        return NULL;
    }
    return Py_BuildValue("(NN)", pq, pr);
}

#define FORALL_INPLACE_PAIRS(X) X(threshold) X(celu) X(selu)
#define X(N)                                                                  \
    static PyObject *fn_##N(PyObject *mod, FASTCALL)                          \
    {                                                                         \
        (void)mod;                                                            \
        return impl_##N(false, args, nargs, kwnames);                         \
    }                                                                         \
    static PyObject *fn_##N##_(PyObject *mod, FASTCALL)                       \
    {                                                                         \
        (void)mod;                                                            \
        return impl_##N(true, args, nargs, kwnames);                          \
    }
FORALL_INPLACE_PAIRS(X)
#undef X

static PyObject *
fn_hardshrink(PyObject *mod, FASTCALL)
{
    (void)mod;
    return impl_hardshrink(args, nargs, kwnames);
}

static PyObject *
t_hardshrink(PyObject *self, FASTCALL)
{
    return ctpy_with_self(impl_hardshrink, self, args, nargs, kwnames);
}

PyMethodDef ctpy_nn_activation_functions[] = {
    CTPY_METH("_activation", fn_activation, NULL),
    {"_activation_ops", (PyCFunction)fn_activation_ops, METH_NOARGS, NULL},
#define X(N) CTPY_METH(#N, fn_##N, NULL), CTPY_METH(#N "_", fn_##N##_, NULL),
    FORALL_INPLACE_PAIRS(X)
#undef X
    CTPY_METH("hardshrink", fn_hardshrink, NULL),
    CTPY_METH("_linalg_qr", fn_linalg_qr, NULL),
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_nn_activation_methods[] = {
    CTPY_METH("hardshrink", t_hardshrink, NULL),
    {NULL, NULL, 0, NULL},
};
