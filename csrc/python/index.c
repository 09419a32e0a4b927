/* csrc/python/index.c -- the indexing family's methods and functions:
 * nonzero/argwhere, index_select, masked_select, take, gather, scatter(_add),
 * index_add/copy/fill, index_put_.  (t[...] itself is tensor_index.c.) */
#include "argparse.h"

#define FASTCALL_ARGS CTPY_FASTCALL_ARGS
#define METH(name, fn) CTPY_METH(name, fn, NULL),

/* nonzero(as_tuple=False): (n, ndim) int64, or a tuple of ndim columns */
static PyObject *
nonzero(ct_tensor *t, bool as_tuple)
{
    ct_tensor *nz = ct_nonzero(t);
    if (nz == NULL || !as_tuple) {
        return ctpy_result(nz);
    }
    int cols = t->ndim ? t->ndim : 1;
    PyObject *tuple = PyTuple_New(cols);
    for (int k = 0; tuple != NULL && k < cols; k++) {
        ct_tensor *c = t->ndim ? ct_select(nz, 1, k) : ct_zeros(1, (int64_t[]){nz->sizes[0]},
                                                               CT_DTYPE_INT64);
        ct_tensor *cc = c ? ct_contiguous(c) : NULL;
        ct_tensor_decref(c);
        PyObject *o = ctpy_result(cc);
        if (o == NULL) {
            Py_CLEAR(tuple);
            break;
        }
        PyTuple_SET_ITEM(tuple, k, o);
    }
    ct_tensor_decref(nz);
    return tuple;
}

static PyObject *
t_nonzero(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("nonzero(*, bool as_tuple=False)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return nonzero(ctpy_tensor(self), v[0].b);
}

static PyObject *
fn_nonzero(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("nonzero(Tensor input, *, bool as_tuple=False)");
    ctpy_arg v[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return nonzero(v[0].t, v[1].b);
}

static PyObject *
t_argwhere(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_result(ct_nonzero(ctpy_tensor(self)));
}

static PyObject *
fn_argwhere(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!ctpy_is_tensor(arg)) {
        PyErr_Format(PyExc_TypeError, "argwhere(): argument 'input' (position 1) must be "
                     "Tensor, not %s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    return ctpy_result(ct_nonzero(ctpy_tensor(arg)));
}

/* Bind f(self, rest...) as both a method and a function taking input. */
#define BOTH(NAME, MSIG, FSIG, NARGS, CALL)                                       \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(MSIG);                                     \
        ctpy_arg a[NARGS + 1];                                                    \
        ctpy_arg *v = a + 1;                                                      \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                      \
            return NULL;                                                          \
        }                                                                         \
        a[0].t = ctpy_tensor(self);                                               \
        return ctpy_result(CALL);                                                 \
    }                                                                             \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                     \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(FSIG);                                     \
        ctpy_arg a[NARGS + 1];                                                    \
        (void)self;                                                               \
        if (ctpy_parse(&sig, args, nargs, kwnames, a) < 0) {                      \
            return NULL;                                                          \
        }                                                                         \
        return ctpy_result(CALL);                                                 \
    }

BOTH(index_select, "index_select(int dim, Tensor index)",
     "index_select(Tensor input, int dim, Tensor index)", 2,
     ct_index_select(a[0].t, a[1].i, a[2].t))
BOTH(masked_select, "masked_select(Tensor mask)",
     "masked_select(Tensor input, Tensor mask)", 1, ct_masked_select(a[0].t, a[1].t))
BOTH(take, "take(Tensor index)", "take(Tensor input, Tensor index)", 1,
     ct_take(a[0].t, a[1].t))
BOTH(gather, "gather(int dim, Tensor index, *, bool sparse_grad=False)",
     "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False)", 3,
     ct_gather(a[0].t, a[1].i, a[2].t))

/* In-place ops return self; the out-of-place forms work on a clone. */
static PyObject *
inplace_result(PyObject *self, ct_tensor *t, int rc, bool inplace)
{
    if (rc < 0) {
        if (!inplace) {
            ct_tensor_decref(t);
        }
        return ctpy_raise();
    }
    if (inplace) {
        ctpy_bump(t);
        return Py_NewRef(self);
    }
    return ctpy_result(t);
}

/* scatter(dim, index, src | value, *, reduce=None) */
static PyObject *
scatter(PyObject *self, bool inplace, bool add, PyObject *const *args, Py_ssize_t nargs,
        PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[4];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *src = NULL;
    ct_scalar value = ct_scalar_int(0);
    if (ctpy_is_tensor(v[2].obj)) {
        src = ctpy_tensor(v[2].obj);
    }
    else if (ctpy_to_scalar(v[2].obj, &value) != 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "scatter(): argument 'src' must be Tensor "
                            "or Number");
        }
        return NULL;
    }
    const char *reduce = add ? "add" : NULL;
    if (!add && sig->nparams > 3 && !v[3].is_none) {
        reduce = PyUnicode_AsUTF8(v[3].obj);
        if (reduce == NULL) {
            return NULL;
        }
    }
    ct_tensor *t = inplace ? ctpy_tensor(self) : ct_clone(ctpy_tensor(self));
    if (t == NULL) {
        return ctpy_raise();
    }
    return inplace_result(self, t, ct_scatter_(t, v[0].i, v[1].t, src, value, reduce),
                          inplace);
}

#define SCATTER(NAME, INPLACE, ADD, SIGTEXT)                                      \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(SIGTEXT);                                  \
        return scatter(self, INPLACE, ADD, args, nargs, kwnames, &sig);           \
    }
SCATTER(scatter, false, false, "scatter(int dim, Tensor index, object src, *, str? reduce=None)")
SCATTER(scatter_, true, false, "scatter_(int dim, Tensor index, object src, *, str? reduce=None)")
SCATTER(scatter_add, false, true, "scatter_add(int dim, Tensor index, Tensor src)")
SCATTER(scatter_add_, true, true, "scatter_add_(int dim, Tensor index, Tensor src)")
#undef SCATTER

static PyObject *
fn_scatter(FASTCALL_ARGS)
{
    (void)self;
    if (nargs < 1 || !ctpy_is_tensor(args[0])) {
        PyErr_SetString(PyExc_TypeError, "scatter(): argument 'input' (position 1) must "
                        "be Tensor");
        return NULL;
    }
    return t_scatter(args[0], args + 1, nargs - 1, kwnames);
}

static PyObject *
fn_scatter_add(FASTCALL_ARGS)
{
    (void)self;
    if (nargs < 1 || !ctpy_is_tensor(args[0])) {
        PyErr_SetString(PyExc_TypeError, "scatter_add(): argument 'input' (position 1) "
                        "must be Tensor");
        return NULL;
    }
    return t_scatter_add(args[0], args + 1, nargs - 1, kwnames);
}

/* index_add/copy/fill, in place and not */
static PyObject *
index_op(PyObject *self, int which, bool inplace, PyObject *const *args, Py_ssize_t nargs,
         PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[4];
    ct_scalar value = ct_scalar_int(0);
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (which == 2) {
        if (ctpy_is_tensor(v[2].obj)) {
            value = ct_tensor_item_at(ctpy_tensor(v[2].obj), 0);
        }
        else if (ctpy_to_scalar(v[2].obj, &value) != 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "index_fill(): argument 'value' must be "
                                "Number");
            }
            return NULL;
        }
    }
    else if (!ctpy_is_tensor(v[2].obj)) {
        PyErr_SetString(PyExc_TypeError, "argument 'source' must be Tensor");
        return NULL;
    }
    ct_tensor *t = inplace ? ctpy_tensor(self) : ct_clone(ctpy_tensor(self));
    if (t == NULL) {
        return ctpy_raise();
    }
    int rc = which == 0 ? ct_index_add_(t, v[0].i, v[1].t, ctpy_tensor(v[2].obj), v[3].s)
             : which == 1 ? ct_index_copy_(t, v[0].i, v[1].t, ctpy_tensor(v[2].obj))
                          : ct_index_fill_(t, v[0].i, v[1].t, value);
    return inplace_result(self, t, rc, inplace);
}

#define INDEX_OP(NAME, WHICH, INPLACE, SIGTEXT)                                   \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(SIGTEXT);                                  \
        return index_op(self, WHICH, INPLACE, args, nargs, kwnames, &sig);        \
    }
INDEX_OP(index_add, 0, false, "index_add(int dim, Tensor index, object source, *, Scalar alpha=1)")
INDEX_OP(index_add_, 0, true, "index_add_(int dim, Tensor index, object source, *, Scalar alpha=1)")
INDEX_OP(index_copy, 1, false, "index_copy(int dim, Tensor index, object source, Scalar unused=0)")
INDEX_OP(index_copy_, 1, true, "index_copy_(int dim, Tensor index, object source, Scalar unused=0)")
INDEX_OP(index_fill, 2, false, "index_fill(int dim, Tensor index, object value, Scalar unused=0)")
INDEX_OP(index_fill_, 2, true, "index_fill_(int dim, Tensor index, object value, Scalar unused=0)")
#undef INDEX_OP

static PyObject *
t_index_put_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("index_put_(object indices, Tensor values, "
                                   "bool accumulate=False)");
    ctpy_arg v[3];
    ct_tensor *idx[CT_MAX_DIMS] = {NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    PyObject *seq = PySequence_Fast(v[0].obj, "index_put_(): indices must be a tuple");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && i < CT_MAX_DIMS; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
        if (it != Py_None && !ctpy_is_tensor(it)) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_TypeError, "index_put_(): indices must be tensors");
            return NULL;
        }
        idx[i] = it == Py_None ? NULL : ctpy_tensor(it);
    }
    int rc = ct_index_put_(ctpy_tensor(self), (int)n, idx, v[1].t, v[2].b);
    Py_DECREF(seq);
    if (rc < 0) {
        return ctpy_raise();
    }
    ctpy_bump(ctpy_tensor(self));
    return Py_NewRef(self);
}

PyMethodDef ctpy_index_methods[] = {
    METH("nonzero", t_nonzero)
    {"argwhere", (PyCFunction)t_argwhere, METH_NOARGS, NULL},
    METH("index_select", t_index_select) METH("masked_select", t_masked_select)
    METH("take", t_take) METH("gather", t_gather) METH("scatter", t_scatter)
    METH("scatter_", t_scatter_) METH("scatter_add", t_scatter_add)
    METH("scatter_add_", t_scatter_add_) METH("index_add", t_index_add)
    METH("index_add_", t_index_add_) METH("index_copy", t_index_copy)
    METH("index_copy_", t_index_copy_) METH("index_fill", t_index_fill)
    METH("index_fill_", t_index_fill_) METH("index_put_", t_index_put_)
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_index_functions[] = {
    METH("nonzero", fn_nonzero)
    {"argwhere", (PyCFunction)fn_argwhere, METH_O, NULL},
    METH("index_select", fn_index_select) METH("masked_select", fn_masked_select)
    METH("take", fn_take) METH("gather", fn_gather) METH("scatter", fn_scatter)
    METH("scatter_add", fn_scatter_add)
    {NULL, NULL, 0, NULL},
};
