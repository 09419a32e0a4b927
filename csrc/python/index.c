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
     ctag_index_select(a[0].t, a[1].i, a[2].t))
BOTH(masked_select, "masked_select(Tensor mask)",
     "masked_select(Tensor input, Tensor mask)", 1, ctag_masked_select(a[0].t, a[1].t))
BOTH(take, "take(Tensor index)", "take(Tensor input, Tensor index)", 1,
     ctag_take(a[0].t, a[1].t))
BOTH(gather, "gather(int dim, Tensor index, *, bool sparse_grad=False)",
     "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False)", 3,
     ctag_gather(a[0].t, a[1].i, a[2].t))
BOTH(masked_scatter, "masked_scatter(Tensor mask, Tensor source)",
     "masked_scatter(Tensor input, Tensor mask, Tensor source)", 2,
     ctag_masked_scatter(a[0].t, a[1].t, a[2].t))

/* An in-place op's result: self (the ctag_ op has bumped its version). */
static PyObject *
inplace_result(PyObject *self, int rc)
{
    return rc < 0 ? ctpy_raise() : Py_NewRef(self);
}

static PyObject *
t_masked_scatter_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("masked_scatter_(Tensor mask, Tensor source)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return inplace_result(self, ctag_masked_scatter_(ctpy_tensor(self), v[0].t, v[1].t));
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
    ct_tensor *t = ctpy_tensor(self);
    if (add) {
        return inplace ? inplace_result(self, ctag_scatter_add_(t, v[0].i, v[1].t, v[2].t))
                       : ctpy_result(ctag_scatter_add(t, v[0].i, v[1].t, v[2].t));
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
    const char *reduce = NULL;
    if (!v[3].is_none && (reduce = PyUnicode_AsUTF8(v[3].obj)) == NULL) {
        return NULL;
    }
    return inplace ? inplace_result(self, ctag_scatter_(t, v[0].i, v[1].t, src, value, reduce))
                   : ctpy_result(ctag_scatter(t, v[0].i, v[1].t, src, value, reduce));
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

/* index_add/copy/fill, in place and not */
enum { OP_INDEX_ADD, OP_INDEX_COPY, OP_INDEX_FILL };

static PyObject *
index_op(PyObject *self, int which, bool inplace, PyObject *const *args, Py_ssize_t nargs,
         PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[4];
    ct_scalar value = ct_scalar_int(0);
    const ct_tensor *value_t = NULL, *source = NULL;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (which == OP_INDEX_FILL) {
        if (ctpy_is_tensor(v[2].obj)) {
            value_t = ctpy_tensor(v[2].obj);
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
    else {
        source = ctpy_tensor(v[2].obj);
    }
    ct_tensor *t = ctpy_tensor(self);
    if (inplace) {
        int rc = which == OP_INDEX_ADD ? ctag_index_add_(t, v[0].i, v[1].t, source, v[3].s)
                 : which == OP_INDEX_COPY ? ctag_index_copy_(t, v[0].i, v[1].t, source)
                 : ctag_index_fill_(t, v[0].i, v[1].t, value_t, value);
        return inplace_result(self, rc);
    }
    return ctpy_result(which == OP_INDEX_ADD ? ctag_index_add(t, v[0].i, v[1].t, source, v[3].s)
                       : which == OP_INDEX_COPY ? ctag_index_copy(t, v[0].i, v[1].t, source)
                       : ctag_index_fill(t, v[0].i, v[1].t, value_t, value));
}

#define INDEX_OP(NAME, WHICH, INPLACE, SIGTEXT)                                   \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(SIGTEXT);                                  \
        return index_op(self, WHICH, INPLACE, args, nargs, kwnames, &sig);        \
    }
INDEX_OP(index_add, OP_INDEX_ADD, false,
         "index_add(int dim, Tensor index, object source, *, Scalar alpha=1)")
INDEX_OP(index_add_, OP_INDEX_ADD, true,
         "index_add_(int dim, Tensor index, object source, *, Scalar alpha=1)")
INDEX_OP(index_copy, OP_INDEX_COPY, false,
         "index_copy(int dim, Tensor index, object source, Scalar unused=0)")
INDEX_OP(index_copy_, OP_INDEX_COPY, true,
         "index_copy_(int dim, Tensor index, object source, Scalar unused=0)")
INDEX_OP(index_fill, OP_INDEX_FILL, false,
         "index_fill(int dim, Tensor index, object value, Scalar unused=0)")
INDEX_OP(index_fill_, OP_INDEX_FILL, true,
         "index_fill_(int dim, Tensor index, object value, Scalar unused=0)")
#undef INDEX_OP

/* index_put's indices: a tuple of tensors; a bool / uint8 mask stands for
 * the coordinates of its set elements, one index per dim it covers.  Fills
 * idx[0..*n-1] with new references. */
static int
put_indices(PyObject *obj, ct_tensor **idx, int *n)
{
    PyObject *seq = PySequence_Fast(obj, "index_put_(): indices must be a tuple");
    if (seq == NULL) {
        return -1;
    }
    int k = 0, rc = -1;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
        ct_tensor *x = ctpy_is_tensor(it) ? ctpy_tensor(it) : NULL;
        if (x == NULL) {
            /* torch 1.13's binding takes no None here either */
            PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument 0, "
                         "but got %s", i, Py_TYPE(it)->tp_name);
            goto done;
        }
        bool mask = x->dtype == CT_DTYPE_BOOL || x->dtype == CT_DTYPE_UINT8;
        int cover = mask ? (x->ndim ? x->ndim : 1) : 1;
        if (k + cover > CT_MAX_DIMS) {
            PyErr_SetString(PyExc_IndexError, "index_put_(): too many indices");
            goto done;
        }
        if (!mask) {
            ct_tensor_incref(x);
            idx[k++] = x;
            continue;
        }
        ct_tensor *nz = ct_nonzero(x);
        for (int c = 0; nz != NULL && c < x->ndim; c++) {
            if ((idx[k++] = ct_select(nz, 1, c)) == NULL) {
                ct_tensor_decref(nz);
                ctpy_raise();
                goto done;
            }
        }
        ct_tensor_decref(nz);
        if (nz == NULL) {
            ctpy_raise();
            goto done;
        }
    }
    rc = 0;
done:
    Py_DECREF(seq);
    *n = k;
    return rc;
}

static PyObject *
index_put(PyObject *self, bool inplace, PyObject *const *args, Py_ssize_t nargs,
          PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[3];
    ct_tensor *idx[CT_MAX_DIMS] = {NULL};
    int n = 0;
    PyObject *res = NULL;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (put_indices(v[0].obj, idx, &n) == 0) {
        ct_tensor *t = ctpy_tensor(self);
        res = inplace ? inplace_result(self, ctag_index_put_(t, n, idx, v[1].t, v[2].b))
                      : ctpy_result(ctag_index_put(t, n, idx, v[1].t, v[2].b));
    }
    for (int i = 0; i < n; i++) {
        ct_tensor_decref(idx[i]);
    }
    return res;
}

static PyObject *
t_index_put_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("index_put_(object indices, Tensor values, "
                                   "bool accumulate=False)");
    return index_put(self, true, args, nargs, kwnames, &sig);
}

static PyObject *
t_index_put(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("index_put(object indices, Tensor values, "
                                   "bool accumulate=False)");
    return index_put(self, false, args, nargs, kwnames, &sig);
}

static PyObject *
put(PyObject *self, bool inplace, PyObject *const *args, Py_ssize_t nargs,
    PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[3];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    return inplace ? inplace_result(self, ctag_put_(t, v[0].t, v[1].t, v[2].b))
                   : ctpy_result(ctag_put(t, v[0].t, v[1].t, v[2].b));
}

static PyObject *
t_put_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("put_(Tensor index, Tensor source, bool accumulate=False)");
    return put(self, true, args, nargs, kwnames, &sig);
}

static PyObject *
t_put(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("put(Tensor index, Tensor source, bool accumulate=False)");
    return put(self, false, args, nargs, kwnames, &sig);
}

/* torch.f(input, ...) for the methods above: the method on input. */
#define FN_FROM_METHOD(NAME)                                                      \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                     \
    {                                                                             \
        (void)self;                                                               \
        if (nargs < 1 || !ctpy_is_tensor(args[0])) {                              \
            PyErr_SetString(PyExc_TypeError, #NAME "(): argument 'input' "        \
                            "(position 1) must be Tensor");                       \
            return NULL;                                                          \
        }                                                                         \
        return t_##NAME(args[0], args + 1, nargs - 1, kwnames);                   \
    }
FN_FROM_METHOD(scatter)
FN_FROM_METHOD(scatter_add)
FN_FROM_METHOD(index_add)
FN_FROM_METHOD(index_copy)
FN_FROM_METHOD(index_fill)
FN_FROM_METHOD(index_put)
FN_FROM_METHOD(index_put_)
FN_FROM_METHOD(put)
#undef FN_FROM_METHOD

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
    METH("index_put", t_index_put) METH("masked_scatter", t_masked_scatter)
    METH("masked_scatter_", t_masked_scatter_) METH("put", t_put) METH("put_", t_put_)
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_index_functions[] = {
    METH("nonzero", fn_nonzero)
    {"argwhere", (PyCFunction)fn_argwhere, METH_O, NULL},
    METH("index_select", fn_index_select) METH("masked_select", fn_masked_select)
    METH("take", fn_take) METH("gather", fn_gather) METH("scatter", fn_scatter)
    METH("scatter_add", fn_scatter_add) METH("index_add", fn_index_add)
    METH("index_copy", fn_index_copy) METH("index_fill", fn_index_fill)
    METH("index_put", fn_index_put) METH("index_put_", fn_index_put_)
    METH("masked_scatter", fn_masked_scatter) METH("put", fn_put)
    {NULL, NULL, 0, NULL},
};
