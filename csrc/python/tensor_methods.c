/* csrc/python/tensor_methods.c -- Tensor methods implemented in C: the
 * hot and the structural ones.  Thin conveniences live in
 * python/ctorch/_tensor.py.  Each method: parse, call the C core, wrap. */
#include "argparse.h"

#include <string.h>

#define SELF ctpy_tensor(self)
#define FASTCALL_ARGS CTPY_FASTCALL_ARGS
#define METH(name, fn, doc) CTPY_METH(name, fn, doc)
#define METH0(name, fn, doc) {name, (PyCFunction)fn, METH_NOARGS, doc}

/* Run f(t) with the GIL released when the tensor is large. */
#define RUN_OP(res, numel, call) CTPY_RUN(numel, res = (call))

/* Normalised dim for methods taking one; -1 with IndexError. */
static int
wrap_dim(int64_t dim, int ndim)
{
    int d = ct_wrap_dim(dim, ndim);
    return d < 0 ? ctpy_raise_int() : d;
}

/* size(d) and stride(d) do not accept a dim on a 0-d tensor (torch's
 * maybe_wrap_dim with wrap_scalar=false). */
static int
wrap_dim_no_scalar(int64_t dim, int ndim)
{
    if (ndim == 0) {
        PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no "
                     "dimensions", (long long)dim);
        return -1;
    }
    return wrap_dim(dim, ndim);
}

static PyObject *
t_size(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("size(int? dim=None)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[0].is_none) {
        return ctpy_size_new(SELF->ndim, SELF->sizes);
    }
    int d = wrap_dim_no_scalar(v[0].i, SELF->ndim);
    if (d < 0) {
        return NULL;
    }
    return PyLong_FromLongLong(SELF->sizes[d]);
}

static PyObject *
t_stride(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("stride(int? dim=None)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[0].is_none) {
        PyObject *r = PyTuple_New(SELF->ndim);
        for (int i = 0; r && i < SELF->ndim; i++) {
            PyTuple_SET_ITEM(r, i, PyLong_FromLongLong(SELF->strides[i]));
        }
        return r;
    }
    int d = wrap_dim_no_scalar(v[0].i, SELF->ndim);
    if (d < 0) {
        return NULL;
    }
    return PyLong_FromLongLong(SELF->strides[d]);
}

static PyObject *
t_dim(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(SELF->ndim);
}

static PyObject *
t_numel(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(SELF->numel);
}

static PyObject *
t_storage_offset(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLongLong(SELF->offset);
}

static PyObject *
t_is_contiguous(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("is_contiguous(*, object? memory_format=None)");
    ctpy_arg v[1];
    ctpy_memfmt fmt;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        ctpy_to_memory_format(v[0].obj, CTPY_MEMFMT_CONTIGUOUS, "is_contiguous",
                              &fmt) < 0) {
        return NULL;
    }
    if (fmt == CTPY_MEMFMT_CHANNELS_LAST) {
        return PyBool_FromLong(ctpy_is_channels_last(SELF));
    }
    return PyBool_FromLong(ct_tensor_is_contiguous(SELF));
}

static PyObject *
t_element_size(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromSize_t(ct_dtype_itemsize(SELF->dtype));
}

static PyObject *
t_data_ptr(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(SELF->numel || SELF->storage->nbytes
                                  ? ct_tensor_data(SELF) : NULL);
}

static PyObject *
t_is_floating_point(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(ct_dtype_is_floating(SELF->dtype));
}

static PyObject *
t_is_signed(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(ct_dtype_table[SELF->dtype].is_signed);
}

static PyObject *
t_item(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_scalar s;
    if (SELF->numel != 1) {
        PyErr_SetString(PyExc_ValueError, "only one element tensors can be converted "
                        "to Python scalars");
        return NULL;
    }
    if (ct_dtype_table[SELF->dtype].is_quantized) {
        ct_tensor *d = ct_dequantize(SELF);
        if (d == NULL) {
            return ctpy_raise();
        }
        int rc = ct_tensor_item(d, &s);
        ct_tensor_decref(d);
        if (rc < 0) {
            return ctpy_raise();
        }
        return ctpy_scalar_to_py(s);
    }
    const ct_tensor *t = SELF;
    ct_tensor *h = NULL;
    if (ct_tensor_device(t).type != CT_DEVICE_CPU &&
        (t = h = ct_to_device(SELF, ct_device_cpu())) == NULL) {
        return ctpy_raise();
    }
    int rc = ct_tensor_item(t, &s);
    ct_tensor_decref(h);
    if (rc < 0) {
        return ctpy_raise();
    }
    return ctpy_scalar_to_py(s);
}

/* --- views ------------------------------------------------------------- */
/* t.view(dtype): the same bytes seen as another dtype (torch's view_dtype:
 * the last dimension absorbs a change of element size).  A new reference,
 * or NULL with the ct error set. */
static ct_tensor *
view_dtype(ct_tensor *t, ct_dtype dtype)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset = t->offset;
    int64_t from = (int64_t)ct_dtype_itemsize(t->dtype);
    int64_t to = (int64_t)ct_dtype_itemsize(dtype);
    const char *a = ct_dtype_table[t->dtype].legacy, *b = ct_dtype_table[dtype].legacy;
    int nd = t->ndim;

    if (dtype == t->dtype) {
        return ct_tensor_view_of(t, t->offset, nd, t->sizes, t->strides);
    }
    if (ct_dtype_table[dtype].is_quantized || ct_dtype_table[t->dtype].is_quantized) {
        ct_error(CT_ERR_RUNTIME, "view(dtype) is not supported for quantized tensors");
        return NULL;
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)nd);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)nd);
    if (from != to) {
        if (nd == 0) {
            ct_error(CT_ERR_RUNTIME, "self.dim() cannot be 0 to view %s as %s "
                     "(different element sizes)", a, b);
            return NULL;
        }
        if (strides[nd - 1] != 1) {
            ct_error(CT_ERR_RUNTIME, "self.stride(-1) must be 1 to view %s as %s "
                     "(different element sizes), but got %lld", a, b,
                     (long long)strides[nd - 1]);
            return NULL;
        }
    }
    if (from > to) {
        int64_t ratio = from / to;
        for (int i = 0; i < nd - 1; i++) {
            strides[i] *= ratio;
        }
        sizes[nd - 1] *= ratio;
        offset *= ratio;
    }
    else if (from < to) {
        int64_t ratio = to / from;
        if (sizes[nd - 1] % ratio != 0) {
            ct_error(CT_ERR_RUNTIME, "self.size(-1) must be divisible by %lld to view "
                     "%s as %s (different element sizes), but got %lld",
                     (long long)ratio, a, b, (long long)sizes[nd - 1]);
            return NULL;
        }
        if (offset % ratio != 0) {
            ct_error(CT_ERR_RUNTIME, "self.storage_offset() must be divisible by %lld "
                     "to view %s as %s (different element sizes), but got %lld",
                     (long long)ratio, a, b, (long long)offset);
            return NULL;
        }
        for (int i = 0; i < nd - 1; i++) {
            if (strides[i] % ratio != 0) {
                ct_error(CT_ERR_RUNTIME, "self.stride(%d) must be divisible by %lld to "
                         "view %s as %s (different element sizes), but got %lld", i,
                         (long long)ratio, a, b, (long long)strides[i]);
                return NULL;
            }
            strides[i] /= ratio;
        }
        sizes[nd - 1] /= ratio;
        offset /= ratio;
    }
    ct_tensor *r = ct_tensor_view_of(t, offset, nd, sizes, strides);
    if (r != NULL) {
        r->dtype = dtype;
    }
    return r;
}

static PyObject *
t_view(FASTCALL_ARGS)
{
    static ctpy_sig s_size = CTPY_SIG("view(int[] size)");
    static ctpy_sig s_dtype = CTPY_SIG("view(ScalarType dtype)");
    static ctpy_sig *sigs[] = {&s_size, &s_dtype};
    ctpy_arg v[1];
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 1) {
        return ctpy_result(view_dtype(SELF, v[0].dtype));
    }
    return ctpy_result(ctag_view(SELF, v[0].n, v[0].list));
}

static PyObject *
t_view_as(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("view_as(Tensor other)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_view(SELF, v[0].t->ndim, v[0].t->sizes));
}

static PyObject *
t_reshape(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("reshape(int[] shape)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_reshape(SELF, v[0].n, v[0].list));
}

static PyObject *
t_reshape_as(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("reshape_as(Tensor other)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_reshape(SELF, v[0].t->ndim, v[0].t->sizes));
}

static PyObject *
t_narrow(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("narrow(int dim, int start, int length)");
    ctpy_arg v[3];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_narrow(SELF, v[0].i, v[1].i, v[2].i));
}

static PyObject *
t_select(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("select(int dim, int index)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_select(SELF, v[0].i, v[1].i));
}

static PyObject *
t_expand(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("expand(int[] size)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_expand(SELF, v[0].n, v[0].list));
}

static PyObject *
t_expand_as(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("expand_as(Tensor other)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_expand(SELF, v[0].t->ndim, v[0].t->sizes));
}

static PyObject *
t_permute(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("permute(int[] dims)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_permute(SELF, v[0].n, v[0].list));
}

static PyObject *
t_transpose(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("transpose(int dim0, int dim1)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_transpose(SELF, v[0].i, v[1].i));
}

static PyObject *
t_t(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (SELF->ndim > 2) {
        PyErr_Format(PyExc_RuntimeError, "t() expects a tensor with <= 2 dimensions, "
                     "but self is %dD", SELF->ndim);
        return NULL;
    }
    return ctpy_result(ctag_t(SELF));
}

static PyObject *
t_unsqueeze(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unsqueeze(int dim)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_unsqueeze(SELF, v[0].i));
}

static PyObject *
t_squeeze(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("squeeze(int? dim=None)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_squeeze(SELF, v[0].is_none ? NULL : &v[0].i));
}

static PyObject *
t_flatten(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("flatten(int start_dim=0, int end_dim=-1)");
    ctpy_arg v[2];
    int64_t sizes[CT_MAX_DIMS];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *t = SELF;
    int s = wrap_dim(v[0].i, t->ndim), e;
    if (s < 0 || (e = wrap_dim(v[1].i, t->ndim)) < 0) {
        return NULL;
    }
    if (t->ndim == 0) {
        int64_t one = 1;
        return ctpy_result(ctag_reshape(t, 1, &one));
    }
    if (s > e) {
        PyErr_SetString(PyExc_RuntimeError, "flatten() has invalid args: start_dim "
                        "cannot come after end_dim");
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < s; i++) {
        sizes[n++] = t->sizes[i];
    }
    int64_t prod = 1;
    for (int i = s; i <= e; i++) {
        prod *= t->sizes[i];
    }
    sizes[n++] = prod;
    for (int i = e + 1; i < t->ndim; i++) {
        sizes[n++] = t->sizes[i];
    }
    if (s == e) {
        return Py_NewRef(self);
    }
    return ctpy_result(ctag_reshape(t, n, sizes));
}

/* --- copies and conversions -------------------------------------------- */
/* A copy of t in dtype laid out with `strides` (from ctpy_memfmt_strides).
 * A new reference, or NULL with the ct error set. */
static ct_tensor *
copy_strided(const ct_tensor *t, ct_dtype dtype, const int64_t *strides)
{
    ct_tensor *r = ct_empty_strided(t->ndim, t->sizes, strides, dtype, ct_device_cpu());
    int rc;
    if (r == NULL) {
        return NULL;
    }
    RUN_OP(rc, t->numel, ct_copy_(r, t));
    if (rc < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

static PyObject *
t_contiguous(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("contiguous(*, object? memory_format=None)");
    ctpy_arg v[1];
    ctpy_memfmt fmt;
    int64_t strides[CT_MAX_DIMS];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        ctpy_to_memory_format(v[0].obj, CTPY_MEMFMT_CONTIGUOUS, "contiguous", &fmt) < 0) {
        return NULL;
    }
    if (fmt == CTPY_MEMFMT_PRESERVE) {
        if (ct_tensor_is_contiguous(SELF)) {
            return Py_NewRef(self);
        }
        PyErr_SetString(PyExc_RuntimeError, "preserve memory format is unsupported by "
                        "the contiguous operator");
        return NULL;
    }
    if (fmt == CTPY_MEMFMT_CHANNELS_LAST) {
        if (ctpy_memfmt_strides(fmt, SELF, strides) < 0) {
            return NULL;
        }
        if (ctpy_is_channels_last(SELF)) {
            return Py_NewRef(self);
        }
        return ctpy_result(copy_strided(SELF, SELF->dtype, strides));
    }
    if (ct_tensor_is_contiguous(SELF)) {
        return Py_NewRef(self);
    }
    ct_tensor *r;
    RUN_OP(r, SELF->numel, ctag_contiguous(SELF));
    return ctpy_result(r);
}

static PyObject *
t_clone(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("clone(*, object? memory_format=None)");
    ctpy_arg v[1];
    ctpy_memfmt fmt;
    int64_t strides[CT_MAX_DIMS];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        ctpy_to_memory_format(v[0].obj, CTPY_MEMFMT_PRESERVE, "clone", &fmt) < 0) {
        return NULL;
    }
    if (fmt == CTPY_MEMFMT_PRESERVE || ct_dtype_table[SELF->dtype].is_quantized) {
        RUN_OP(r, SELF->numel, ctag_clone(SELF));
    }
    else {
        if (ctpy_memfmt_strides(fmt, SELF, strides) < 0) {
            return NULL;
        }
        r = copy_strided(SELF, SELF->dtype, strides);
    }
    return ctpy_result(r);
}

static PyObject *
t_detach(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_result(ct_detach(SELF));
}

static PyObject *
t_detach_(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_detach_(SELF);
    return Py_NewRef(self);
}

static PyObject *
t_requires_grad_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("requires_grad_(bool requires_grad=True)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[0].b && !ct_dtype_is_floating(SELF->dtype)) {
        /* requires_grad_() words it differently from the setter */
        PyErr_SetString(PyExc_RuntimeError, "only Tensors of floating point dtype can "
                        "require gradients");
        return NULL;
    }
    if (ctpy_set_requires_grad(SELF, v[0].b) < 0) {
        return NULL;
    }
    return Py_NewRef(self);
}

/* t.to(dtype), t.to(device, dtype), t.to(other); non_blocking, copy,
 * memory_format keywords. */
static PyObject *
t_to(FASTCALL_ARGS)
{
    static ctpy_sig s1 = CTPY_SIG("to(ScalarType dtype, bool non_blocking=False, "
                                  "bool copy=False, *, object? memory_format=None)");
    static ctpy_sig s2 = CTPY_SIG("to(Device? device=None, ScalarType? dtype=None, "
                                  "bool non_blocking=False, bool copy=False, *, "
                                  "object? memory_format=None)");
    static ctpy_sig s3 = CTPY_SIG("to(Tensor other, bool non_blocking=False, "
                                  "bool copy=False, *, object? memory_format=None)");
    static ctpy_sig *sigs[] = {&s1, &s2, &s3};
    ctpy_arg v[5];
    ct_dtype dtype = SELF->dtype;
    ct_device device = ct_tensor_device(SELF);
    bool copy;
    ctpy_memfmt fmt;
    PyObject *fmt_obj;

    int which = ctpy_parse_overloads(sigs, 3, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 0) {
        dtype = v[0].dtype;
        copy = v[2].b;
        fmt_obj = v[3].obj;
    }
    else if (which == 1) {
        if (!v[0].is_none) {
            device = v[0].device;
        }
        if (!v[1].is_none) {
            dtype = v[1].dtype;
        }
        copy = v[3].b;
        fmt_obj = v[4].obj;
    }
    else {
        dtype = v[0].t->dtype;
        device = ct_tensor_device(v[0].t);
        copy = v[2].b;
        fmt_obj = v[3].obj;
    }
    if (ctpy_to_memory_format(fmt_obj, CTPY_MEMFMT_PRESERVE, "to", &fmt) < 0) {
        return NULL;
    }
    if (ctpy_device_ready(&device) < 0) {
        return NULL;
    }
    if (!ct_device_eq(device, ct_tensor_device(SELF))) {
        /* move, then convert on the new device (copy= is then moot) */
        ct_tensor *m;
        RUN_OP(m, SELF->numel, ctag_to_device(SELF, device));
        PyObject *moved = ctpy_result(m);
        if (moved == NULL || (dtype == m->dtype && fmt == CTPY_MEMFMT_PRESERVE)) {
            return moved;
        }
        PyObject *to = PyObject_GetAttrString(moved, "to");
        PyObject *a = Py_BuildValue("(O)", ctpy_dtype_obj(dtype));
        PyObject *kw = Py_BuildValue("{sO}", "memory_format",
                                     fmt_obj != NULL ? fmt_obj : Py_None);
        PyObject *r = to && a && kw ? PyObject_Call(to, a, kw) : NULL;
        Py_XDECREF(to);
        Py_XDECREF(a);
        Py_XDECREF(kw);
        Py_DECREF(moved);
        return r;
    }
    /* torch returns self unless something changes; a layout request counts
     * only when it differs from the suggested format (channels_last for a
     * 4-d tensor with channels-last strides, contiguous otherwise) */
    bool cl = ctpy_is_channels_last(SELF) && !ct_tensor_is_contiguous(SELF);
    ctpy_memfmt suggested = cl ? CTPY_MEMFMT_CHANNELS_LAST : CTPY_MEMFMT_CONTIGUOUS;
    if (dtype == SELF->dtype && !copy &&
        (fmt == CTPY_MEMFMT_PRESERVE || fmt == suggested)) {
        return Py_NewRef(self);
    }
    ct_tensor *r;
    if (fmt == CTPY_MEMFMT_PRESERVE) {
        RUN_OP(r, SELF->numel, ctag_to_dtype(SELF, dtype, true));
    }
    else {
        int64_t strides[CT_MAX_DIMS];
        if (ctpy_memfmt_strides(fmt, SELF, strides) < 0) {
            return NULL;
        }
        r = copy_strided(SELF, dtype, strides);
    }
    return ctpy_result(r);
}

/* .float(), .double(), ... : to(dtype) without the parsing */
static PyObject *
convert_to(PyObject *self, ct_dtype dtype)
{
    if (SELF->dtype == dtype) {
        return Py_NewRef(self);
    }
    ct_tensor *r;
    RUN_OP(r, SELF->numel, ctag_to_dtype(SELF, dtype, true));
    return ctpy_result(r);
}

#define CONVERSION(NAME, E)                                               \
    static PyObject *t_to_##NAME(PyObject *self, PyObject *const *args,   \
                                 Py_ssize_t nargs, PyObject *kwnames)     \
    {                                                                     \
        (void)args;                                                       \
        if (nargs != 0) {                                                 \
            PyErr_Format(PyExc_TypeError, #NAME "() takes 0 positional "    \
                         "arguments but %zd %s given", nargs,             \
                         nargs == 1 ? "was" : "were");                    \
            return NULL;                                                  \
        }                                                                 \
        (void)kwnames;                                                    \
        return convert_to(self, E);                                       \
    }
CONVERSION(float, CT_DTYPE_FLOAT32)
CONVERSION(double, CT_DTYPE_FLOAT64)
CONVERSION(half, CT_DTYPE_FLOAT16)
CONVERSION(bfloat16, CT_DTYPE_BFLOAT16)
CONVERSION(long, CT_DTYPE_INT64)
CONVERSION(int, CT_DTYPE_INT32)
CONVERSION(short, CT_DTYPE_INT16)
CONVERSION(char, CT_DTYPE_INT8)
CONVERSION(byte, CT_DTYPE_UINT8)
CONVERSION(bool, CT_DTYPE_BOOL)
#undef CONVERSION

static PyObject *
t_copy_(FASTCALL_ARGS)
{
    /* torch 1.13 names the source `other` and takes a number too */
    static ctpy_sig sig = CTPY_SIG("copy_(TensorN other, bool non_blocking=False)");
    ctpy_arg v[2];
    int rc;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(rc, SELF->numel, ctag_copy_(SELF, v[0].t));
    ctpy_release(&sig, v);
    if (rc < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

static PyObject *
t_fill_(FASTCALL_ARGS)
{
    static ctpy_sig s_tensor = CTPY_SIG("fill_(Tensor value)");
    static ctpy_sig s_scalar = CTPY_SIG("fill_(Number value)");
    static ctpy_sig *sigs[] = {&s_tensor, &s_scalar};
    ctpy_arg v[1];
    ct_scalar value;
    int rc;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 0) {
        if (v[0].t->ndim != 0) {
            PyErr_Format(PyExc_RuntimeError, "fill_ only supports 0-dimension value "
                         "tensor but got tensor with %d dimensions.", v[0].t->ndim);
            return NULL;
        }
        value = ct_tensor_item_at(v[0].t, 0);
    }
    else {
        value = v[0].s;
    }
    RUN_OP(rc, SELF->numel, ctag_fill_(SELF, value));
    if (rc < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

static PyObject *
t_zero_(PyObject *self, PyObject *unused)
{
    (void)unused;
    int rc;
    RUN_OP(rc, SELF->numel, ctag_fill_(SELF, ct_scalar_int(0)));
    if (rc < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

static PyObject *
t_resize_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("resize_(int[] size, *, object? memory_format=None)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (ct_tensor_resize_(SELF, v[0].n, v[0].list) < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

/* --- arithmetic ---------------------------------------------------------- */
/* One signature per op and form, so messages name the method. */
static ctpy_sig binary_sigs[CT_BINARY_COUNT][2] = {
    [CT_BINARY_ADD] = {CTPY_SIG("add(TensorN other, *, Scalar alpha=1, Tensor? out=None)"),
                       CTPY_SIG("add_(TensorN other, *, Scalar alpha=1)")},
    [CT_BINARY_SUB] = {CTPY_SIG("sub(TensorN other, *, Scalar alpha=1, Tensor? out=None)"),
                       CTPY_SIG("sub_(TensorN other, *, Scalar alpha=1)")},
    [CT_BINARY_MUL] = {CTPY_SIG("mul(TensorN other, *, Tensor? out=None)"),
                       CTPY_SIG("mul_(TensorN other)")},
    [CT_BINARY_DIV] = {CTPY_SIG("div(TensorN other, *, str? rounding_mode=None, "
                                "Tensor? out=None)"),
                       CTPY_SIG("div_(TensorN other, *, str? rounding_mode=None)")},
};

static PyObject *
binary_method(ct_binary_op op, bool inplace, PyObject *self, PyObject *const *args,
              Py_ssize_t nargs, PyObject *kwnames)
{
    ctpy_sig *sig = &binary_sigs[op][inplace];
    ctpy_arg v[3];
    ct_scalar alpha = ct_scalar_int(1);
    ct_tensor *out = NULL, *r;

    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (op == CT_BINARY_ADD || op == CT_BINARY_SUB) {
        alpha = v[1].s;
    }
    else if (op == CT_BINARY_DIV && ctpy_div_op(v[1].obj, &op) < 0) {
        ctpy_release(sig, v);
        return NULL;
    }
    /* out= is the last parameter of the out-of-place forms */
    ctpy_arg *o = &v[sig->nparams - 1];
    if (!inplace && !o->is_none) {
        out = o->t;
    }
    ct_out_mode mode = inplace ? CT_OUT_INPLACE : out ? CT_OUT_GIVEN : CT_OUT_NEW;
    if (inplace) {
        out = SELF;
    }
    RUN_OP(r, SELF->numel + v[0].t->numel, ctag_binary(op, SELF, v[0].t, alpha, out, mode));
    ctpy_release(sig, v);
    return ctpy_result(r);
}

#define BINARY_METHODS(NAME, OP)                                                \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                    \
    {                                                                           \
        return binary_method(OP, false, self, args, nargs, kwnames);           \
    }                                                                           \
    static PyObject *t_##NAME##_(FASTCALL_ARGS)                                 \
    {                                                                           \
        return binary_method(OP, true, self, args, nargs, kwnames);            \
    }
BINARY_METHODS(add, CT_BINARY_ADD)
BINARY_METHODS(sub, CT_BINARY_SUB)
BINARY_METHODS(mul, CT_BINARY_MUL)
BINARY_METHODS(div, CT_BINARY_DIV)
#undef BINARY_METHODS

/* --- quantization ---------------------------------------------------------- */
static PyObject *
t_dequantize(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_result(ct_dequantize(SELF));
}


static int
check_quantized(PyObject *self, const char *what)
{
    if (!ct_dtype_table[SELF->dtype].is_quantized) {
        PyErr_Format(PyExc_NotImplementedError, "Could not run 'aten::%s' with "
                     "arguments from the 'CPU' backend.", what);
        return -1;
    }
    return 0;
}

static PyObject *
t_int_repr(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (check_quantized(self, "int_repr") < 0) {
        return NULL;
    }
    return ctpy_result(ct_int_repr(SELF));
}

static PyObject *
t_q_scale(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (check_quantized(self, "q_scale") < 0) {
        return NULL;
    }
    return PyFloat_FromDouble(SELF->q_scale);
}

static PyObject *
t_q_zero_point(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (check_quantized(self, "q_zero_point") < 0) {
        return NULL;
    }
    return PyLong_FromLongLong(SELF->q_zero_point);
}

/* --- storage, subclassing, dlpack ------------------------------------------ */
static PyObject *
t_storage_ref(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_storage_new(SELF->storage);
}

/* Tensor._make_subclass(cls, data, require_grad=False): a detached alias of
 * data whose Python type is cls (how nn.Parameter is made). */
static PyObject *
t_make_subclass(PyObject *unused, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames)
{
    static ctpy_sig sig = CTPY_SIG("_make_subclass(object cls, Tensor data, "
                                   "bool require_grad=False)");
    ctpy_arg v[3];
    (void)unused;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (!PyType_Check(v[0].obj) ||
        !PyType_IsSubtype((PyTypeObject *)v[0].obj, &CtTensor_Type)) {
        PyErr_SetString(PyExc_TypeError, "cls must be a Tensor subclass");
        return NULL;
    }
    ct_tensor *t = ctpy_alias(v[1].t);
    if (t == NULL) {
        return ctpy_raise();
    }
    if (v[2].b && ctpy_set_requires_grad(t, true) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    PyObject *r = ctpy_wrap_as(t, (PyTypeObject *)v[0].obj);
    ct_tensor_decref(t);
    return r;
}

static PyObject *
t_dlpack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("__dlpack__(object? stream=None)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (SELF->flags & CT_TENSOR_REQUIRES_GRAD) {
        PyErr_SetString(PyExc_RuntimeError, "Can't export tensors that require "
                        "gradient, use tensor.detach()");
        return NULL;
    }
    return ctpy_to_dlpack(NULL, self);
}

static PyObject *
t_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_device d = ct_tensor_device(SELF);
    return Py_BuildValue("(ii)", d.type == CT_DEVICE_CUDA ? kDLCUDA : kDLCPU,
                         d.index < 0 ? 0 : d.index);
}

PyMethodDef ctpy_tensor_methods[] = {
    METH("size", t_size, "size(dim=None) -> torch.Size or int"),
    METH("stride", t_stride, "stride(dim=None) -> tuple or int"),
    METH0("dim", t_dim, "Number of dimensions."),
    METH0("ndimension", t_dim, "Alias for dim()."),
    METH0("numel", t_numel, "Number of elements."),
    METH0("nelement", t_numel, "Alias for numel()."),
    METH0("storage_offset", t_storage_offset, "Offset into the storage, in elements."),
    METH("is_contiguous", t_is_contiguous, "True if laid out in row-major order."),
    METH0("element_size", t_element_size, "Bytes per element."),
    METH0("data_ptr", t_data_ptr, "Address of the first element."),
    METH0("is_floating_point", t_is_floating_point, NULL),
    METH0("is_signed", t_is_signed, NULL),
    METH0("item", t_item, "The value of a one-element tensor as a Python number."),
    METH0("tolist", ctpy_tensor_tolist, "Nested lists of Python numbers."),
    METH("view", t_view, "view(*shape) -> Tensor sharing storage"),
    METH("view_as", t_view_as, NULL),
    METH("reshape", t_reshape, NULL),
    METH("reshape_as", t_reshape_as, NULL),
    METH("narrow", t_narrow, NULL),
    METH("select", t_select, NULL),
    METH("expand", t_expand, NULL),
    METH("expand_as", t_expand_as, NULL),
    METH("permute", t_permute, NULL),
    METH("transpose", t_transpose, NULL),
    METH("swapaxes", t_transpose, NULL),
    METH("swapdims", t_transpose, NULL),
    METH0("t", t_t, NULL),
    METH("unsqueeze", t_unsqueeze, NULL),
    METH("squeeze", t_squeeze, NULL),
    METH("flatten", t_flatten, NULL),
    METH("contiguous", t_contiguous, NULL),
    METH("clone", t_clone, NULL),
    METH0("detach", t_detach, NULL),
    METH0("detach_", t_detach_, NULL),
    METH("requires_grad_", t_requires_grad_, NULL),
    METH("to", t_to, "to(dtype) / to(device, dtype) / to(other)"),
    METH("float", t_to_float, NULL),
    METH("double", t_to_double, NULL),
    METH("half", t_to_half, NULL),
    METH("bfloat16", t_to_bfloat16, NULL),
    METH("long", t_to_long, NULL),
    METH("int", t_to_int, NULL),
    METH("short", t_to_short, NULL),
    METH("char", t_to_char, NULL),
    METH("byte", t_to_byte, NULL),
    METH("bool", t_to_bool, NULL),
    METH("copy_", t_copy_, NULL),
    METH("fill_", t_fill_, NULL),
    METH0("zero_", t_zero_, NULL),
    METH("resize_", t_resize_, NULL),
    METH("add", t_add, "add(other, *, alpha=1) -> Tensor"),
    METH("add_", t_add_, NULL),
    METH("sub", t_sub, "sub(other, *, alpha=1) -> Tensor"),
    METH("sub_", t_sub_, NULL),
    METH("subtract", t_sub, NULL),
    METH("mul", t_mul, NULL),
    METH("mul_", t_mul_, NULL),
    METH("multiply", t_mul, NULL),
    METH("div", t_div, NULL),
    METH("div_", t_div_, NULL),
    METH("divide", t_div, NULL),
    METH("true_divide", t_div, NULL),
    METH0("dequantize", t_dequantize, NULL),
    METH0("int_repr", t_int_repr, NULL),
    METH0("q_scale", t_q_scale, NULL),
    METH0("q_zero_point", t_q_zero_point, NULL),
    METH0("_storage_ref", t_storage_ref, NULL),
    METH("numpy", ctpy_tensor_numpy, "numpy(*, force=False) -> ndarray sharing memory"),
    METH("__dlpack__", t_dlpack, NULL),
    METH0("__dlpack_device__", t_dlpack_device, NULL),
    {"_make_subclass", (PyCFunction)(void (*)(void))t_make_subclass,
     METH_FASTCALL | METH_KEYWORDS | METH_STATIC, NULL},
    {NULL, NULL, 0, NULL},
};
