/* csrc/python/nn_norm.c -- Python bindings of the normalization layers
 * and embedding of torch.nn (include/ctorch/autograd_nn.h), merged into
 * _C by module.c (Note [Method tables]).  These are torch functions in
 * torch too (torch.batch_norm, torch.native_layer_norm, torch.embedding,
 * ...), so they are public names of _C and appear as ctorch.<name>. */
#include "argparse.h"

#define FASTCALL PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                 PyObject *kwnames

static ct_tensor *
opt(const ctpy_arg *a)
{
    return a->is_none ? NULL : a->t;
}

/* (a, b, c) of a three-result op; drops the references; NULL with the ct
 * error raised when rc < 0. */
static PyObject *
triple(int rc, ct_tensor *a, ct_tensor *b, ct_tensor *c)
{
    if (rc < 0 || a == NULL) {
        ct_tensor_decref(a);
        ct_tensor_decref(b);
        ct_tensor_decref(c);
        return ctpy_raise();
    }
    PyObject *pa = ctpy_result(a), *pb = ctpy_result(b), *pc = ctpy_result(c);
    if (pa == NULL || pb == NULL || pc == NULL) {
        Py_XDECREF(pa);
        Py_XDECREF(pb);
        Py_XDECREF(pc);
        return NULL;
    }
    PyObject *t = PyTuple_Pack(3, pa, pb, pc);
    Py_DECREF(pa);
    Py_DECREF(pb);
    Py_DECREF(pc);
    return t;
}

static PyObject *
fn_batch_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
        "Tensor? running_var, bool training, float momentum, float eps, "
        "bool cudnn_enabled)");
    ctpy_arg v[9];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel,
             r = ctag_batch_norm(v[0].t, opt(&v[1]), opt(&v[2]), opt(&v[3]), opt(&v[4]),
                                 v[5].b, v[6].d, v[7].d));
    return ctpy_result(r);
}

static PyObject *
fn_native_batch_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, "
        "Tensor? running_mean, Tensor? running_var, bool training, float momentum, "
        "float eps)");
    ctpy_arg v[8];
    ct_tensor *out = NULL, *m = NULL, *s = NULL;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    CTPY_RUN(v[0].t->numel,
             out = ctag_native_batch_norm(v[0].t, opt(&v[1]), opt(&v[2]), opt(&v[3]),
                                          opt(&v[4]), v[5].b, v[6].d, v[7].d, &m, &s));
    return triple(out != NULL ? 0 : -1, out, m, s);
}

static PyObject *
fn_layer_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
        "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True)");
    ctpy_arg v[6];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel,
             r = ctag_native_layer_norm(v[0].t, v[1].n, v[1].list, opt(&v[2]),
                                        opt(&v[3]), v[4].d, NULL, NULL));
    return ctpy_result(r);
}

static PyObject *
fn_native_layer_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, "
        "Tensor? bias, float eps)");
    ctpy_arg v[5];
    ct_tensor *out = NULL, *m = NULL, *s = NULL;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    CTPY_RUN(v[0].t->numel,
             out = ctag_native_layer_norm(v[0].t, v[1].n, v[1].list, opt(&v[2]),
                                          opt(&v[3]), v[4].d, &m, &s));
    return triple(out != NULL ? 0 : -1, out, m, s);
}

static PyObject *
fn_group_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("group_norm(Tensor input, int num_groups, Tensor? "
                                   "weight=None, Tensor? bias=None, "
                                   "float eps=1e-05, bool cudnn_enabled=True)");
    ctpy_arg v[6];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r;
    CTPY_RUN(v[0].t->numel, r = ctag_group_norm(v[0].t, v[1].i, opt(&v[2]), opt(&v[3]),
                                                v[4].d));
    return ctpy_result(r);
}

static PyObject *
fn_native_group_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, "
        "int HxW, int group, float eps)");
    ctpy_arg v[8];
    ct_tensor *out = NULL, *m = NULL, *s = NULL;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *x = v[0].t;
    if (x->ndim < 2 || x->sizes[0] != v[3].i || x->sizes[1] != v[4].i ||
        v[3].i * v[4].i * v[5].i != x->numel) {
        PyErr_Format(PyExc_RuntimeError,
                     "native_group_norm: N, C and HxW (%lld, %lld, %lld) "
                     "do not describe the input",
                     (long long)v[3].i, (long long)v[4].i, (long long)v[5].i);
        return NULL;
    }
    CTPY_RUN(x->numel, out = ctag_native_group_norm(x, opt(&v[1]), opt(&v[2]), v[6].i,
                                                    v[7].d, &m, &s));
    return triple(out != NULL ? 0 : -1, out, m, s);
}

static PyObject *
fn_embedding(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG(
        "embedding(Tensor weight, Tensor indices, int padding_idx=-1, "
        "bool scale_grad_by_freq=False, bool sparse=False)");
    ctpy_arg v[5];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    /* sparse gradients do not exist here: sparse=True gives the dense one */
    ct_tensor *r;
    CTPY_RUN(v[1].t->numel * (v[0].t->ndim == 2 ? v[0].t->sizes[1] : 1),
             r = ctag_embedding(v[0].t, v[1].t, v[2].i, v[3].b));
    return ctpy_result(r);
}

static PyObject *
fn_embedding_renorm_(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("embedding_renorm_(Tensor input, Tensor indices, "
                                   "float max_norm, float norm_type)");
    ctpy_arg v[4];
    int rc;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    CTPY_RUN(v[1].t->numel, rc = ct_embedding_renorm_(v[0].t, v[1].t, v[2].d, v[3].d));
    if (rc < 0) {
        return ctpy_raise();
    }
    ctpy_bump(v[0].t);
    return ctpy_wrap(v[0].t);
}

#define ENTRY(NAME) CTPY_METH(#NAME, fn_##NAME, NULL),

PyMethodDef ctpy_nn_norm_functions[] = {
    ENTRY(batch_norm)
    ENTRY(native_batch_norm)
    ENTRY(layer_norm)
    ENTRY(native_layer_norm)
    ENTRY(group_norm)
    ENTRY(native_group_norm)
    ENTRY(embedding)
    ENTRY(embedding_renorm_)
    {NULL, NULL, 0, NULL},
};
