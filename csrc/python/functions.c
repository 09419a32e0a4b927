/* csrc/python/functions.c -- module-level torch functions implemented in
 * C: creation ops, arithmetic, dtype defaults, threads. */
#include "argparse.h"

#define FN(name) static PyObject *name(PyObject *self, PyObject *const *args, \
                                      Py_ssize_t nargs, PyObject *kwnames)
#define ENTRY(name, fn, doc) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}

/* See ctpy.h. */
PyObject *
ctpy_finish_factory(ct_tensor *t, const ctpy_arg *out, const ctpy_arg *device,
               const ctpy_arg *requires_grad)
{
    if (t == NULL) {
        return ctpy_raise();
    }
    if (device != NULL && !device->is_none && device->device.type != CT_DEVICE_CPU) {
        /* made on the host, then moved (zeros and ones could be filled
         * on the device instead) */
        ct_device d = device->device;
        ct_tensor *m = ctpy_device_ready(&d) < 0 ? NULL : ct_to_device(t, d);
        ct_tensor_decref(t);
        if (m == NULL) {
            return PyErr_Occurred() ? NULL : ctpy_raise();
        }
        t = m;
    }
    if (requires_grad != NULL && requires_grad->b) {
        /* the factories' wording (torch checks them in TensorOptions) */
        if (!ct_dtype_is_floating(t->dtype)) {
            ct_tensor_decref(t);
            PyErr_SetString(PyExc_RuntimeError, "Only Tensors of floating point and "
                            "complex dtype can require gradients");
            return NULL;
        }
        t->flags |= CT_TENSOR_REQUIRES_GRAD;
    }
    if (out != NULL && !out->is_none) {
        ct_tensor *o = out->t;
        int rc = ct_tensor_resize_(o, t->ndim, t->sizes);
        if (rc == 0) {
            rc = ct_copy_(o, t);
        }
        ct_tensor_decref(t);
        if (rc < 0) {
            return ctpy_raise();
        }
        ctpy_bump(o);
        return ctpy_wrap(o);
    }
    return ctpy_result(t);
}

static ct_dtype
dtype_or(const ctpy_arg *a, ct_dtype fallback)
{
    return a->is_none ? fallback : a->dtype;
}

/* See ctpy.h. */
ct_dtype
ctpy_factory_dtype(const ctpy_arg *out, const ctpy_arg *dtype, ct_dtype fallback)
{
    bool has_out = out != NULL && !out->is_none;
    if (!dtype->is_none) {
        if (has_out && out->t->dtype != dtype->dtype) {
            PyErr_Format(PyExc_RuntimeError, "dtype %s does not match dtype of out "
                         "parameter (%s)", ct_dtype_table[dtype->dtype].legacy,
                         ct_dtype_table[out->t->dtype].legacy);
            return CT_DTYPE_COUNT;
        }
        return dtype->dtype;
    }
    return has_out ? out->t->dtype : fallback;
}

#define FACTORY_TAIL "Tensor? out=None, ScalarType? dtype=None, object? layout=None, " \
                     "Device? device=None, bool pin_memory=False, " \
                     "bool requires_grad=False"

/* zeros(*size, ...) and ones(*size, ...): a filled factory */
static PyObject *
filled_factory(ctpy_sig *sig, int64_t fill, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    ctpy_arg v[7];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[1], &v[2], ct_default_dtype());
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    ct_tensor *t = fill == 0 ? ct_zeros(v[0].n, v[0].list, dtype)
                             : ct_full(v[0].n, v[0].list, ct_scalar_int(fill), dtype);
    return ctpy_finish_factory(t, &v[1], &v[4], &v[6]);
}

FN(fn_zeros)
{
    static ctpy_sig sig = CTPY_SIG("zeros(int[] size, *, " FACTORY_TAIL ")");
    (void)self;
    return filled_factory(&sig, 0, args, nargs, kwnames);
}

FN(fn_ones)
{
    static ctpy_sig sig = CTPY_SIG("ones(int[] size, *, " FACTORY_TAIL ")");
    (void)self;
    return filled_factory(&sig, 1, args, nargs, kwnames);
}

FN(fn_empty)
{
    static ctpy_sig sig = CTPY_SIG("empty(int[] size, *, " FACTORY_TAIL
                                   ", object? memory_format=None)");
    ctpy_arg v[8];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[1], &v[2], ct_default_dtype());
    ctpy_memfmt fmt;
    if (dtype == CT_DTYPE_COUNT ||
        ctpy_to_memory_format(v[7].obj, CTPY_MEMFMT_CONTIGUOUS, "empty", &fmt) < 0) {
        return NULL;
    }
    if (fmt == CTPY_MEMFMT_PRESERVE) {
        PyErr_SetString(PyExc_RuntimeError, "unsupported memory format Preserve");
        return NULL;
    }
    ct_tensor *t = ct_empty(v[0].n, v[0].list, dtype, ct_device_cpu());
    if (t != NULL && fmt == CTPY_MEMFMT_CHANNELS_LAST) {
        int64_t strides[CT_MAX_DIMS];
        if (ctpy_memfmt_strides(fmt, t, strides) < 0) {
            ct_tensor_decref(t);
            return NULL;
        }
        ct_tensor_decref(t);
        t = ct_empty_strided(v[0].n, v[0].list, strides, dtype, ct_device_cpu());
    }
    return ctpy_finish_factory(t, &v[1], &v[4], &v[6]);
}

FN(fn_empty_strided)
{
    static ctpy_sig sig = CTPY_SIG("empty_strided(int[] size, int[] stride, *, "
                                   "ScalarType? dtype=None, object? layout=None, "
                                   "Device? device=None, bool pin_memory=False, "
                                   "bool requires_grad=False)");
    ctpy_arg v[7];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[0].n != v[1].n) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    return ctpy_finish_factory(ct_empty_strided(v[0].n, v[0].list, v[1].list,
                                           dtype_or(&v[2], ct_default_dtype()),
                                           ct_device_cpu()),
                          NULL, &v[4], &v[6]);
}

/* full's dtype follows the fill value: bool, int64, or the default. */
static ct_dtype
dtype_of_scalar(ct_scalar s)
{
    return s.kind == CT_SCALAR_BOOL  ? CT_DTYPE_BOOL
           : s.kind == CT_SCALAR_INT ? CT_DTYPE_INT64
                                     : ct_default_dtype();
}

FN(fn_full)
{
    static ctpy_sig sig = CTPY_SIG("full(int[] size, Scalar fill_value, *, "
                                   FACTORY_TAIL ")");
    ctpy_arg v[8];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[2], &v[3], dtype_of_scalar(v[1].s));
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_full(v[0].n, v[0].list, v[1].s, dtype), &v[2], &v[5], &v[7]);
}

#define LIKE_TAIL "ScalarType? dtype=None, object? layout=None, Device? device=None, " \
                  "bool pin_memory=False, bool requires_grad=False, " \
                  "object? memory_format=None"

/* zeros_like & co: 0 zeros, 1 ones, 2 empty, 3 full */
static PyObject *
like(int kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static ctpy_sig sigs[4] = {
        CTPY_SIG("zeros_like(Tensor input, *, " LIKE_TAIL ")"),
        CTPY_SIG("ones_like(Tensor input, *, " LIKE_TAIL ")"),
        CTPY_SIG("empty_like(Tensor input, *, " LIKE_TAIL ")"),
        CTPY_SIG("full_like(Tensor input, Scalar fill_value, *, " LIKE_TAIL ")"),
    };
    ctpy_arg v[8];
    ctpy_sig *sig = &sigs[kind];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    int k = kind == 3 ? 2 : 1;          /* index of dtype */
    ct_tensor *in = v[0].t;
    ct_dtype dtype = dtype_or(&v[k], in->dtype);
    ctpy_memfmt fmt;
    int64_t strides[CT_MAX_DIMS];
    /* like PyTorch: preserve_format keeps a dense input's layout */
    if (ctpy_to_memory_format(v[k + 5].obj, CTPY_MEMFMT_PRESERVE, sig->fname, &fmt) < 0 ||
        ctpy_memfmt_strides(fmt, in, strides) < 0) {
        return NULL;
    }
    if (kind == 0 && ct_dtype_table[in->dtype].is_quantized) {
        PyErr_SetString(PyExc_NotImplementedError, "Could not run 'aten::zero_' with "
                        "arguments from the 'QuantizedCPU' backend.");
        return NULL;
    }
    if (ct_dtype_table[dtype].is_quantized) {
        PyErr_SetString(PyExc_RuntimeError, "empty_strided not supported on quantized "
                        "tensors yet see https://github.com/pytorch/pytorch/issues/74540");
        return NULL;
    }
    /* on the input's device unless told otherwise, filled there */
    ct_device dev = v[k + 2].is_none ? ct_tensor_device(in) : v[k + 2].device;
    if (ctpy_device_ready(&dev) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty_strided(in->ndim, in->sizes, strides, dtype, dev);
    if (t != NULL && kind != 2) {
        ct_scalar val = kind == 0 ? ct_scalar_int(0) : kind == 1 ? ct_scalar_int(1) : v[1].s;
        if (ctag_fill_(t, val) < 0) {
            ct_tensor_decref(t);
            t = NULL;
        }
    }
    return ctpy_finish_factory(t, NULL, NULL, &v[k + 4]);
}

FN(fn_zeros_like) { (void)self; return like(0, args, nargs, kwnames); }
FN(fn_ones_like) { (void)self; return like(1, args, nargs, kwnames); }
FN(fn_empty_like) { (void)self; return like(2, args, nargs, kwnames); }
FN(fn_full_like) { (void)self; return like(3, args, nargs, kwnames); }

/* arange and range choose int64 unless a bound is floating */
static ct_dtype
range_dtype(const ctpy_arg *a, int n)
{
    for (int i = 0; i < n; i++) {
        if (!a[i].is_none && a[i].s.kind == CT_SCALAR_FLOAT) {
            return ct_default_dtype();
        }
    }
    return CT_DTYPE_INT64;
}

#define RANGE_TAIL "Tensor? out=None, ScalarType? dtype=None, object? layout=None, " \
                   "Device? device=None, bool pin_memory=False, bool requires_grad=False"

FN(fn_arange)
{
    static ctpy_sig s1 = CTPY_SIG("arange(Scalar end, *, " RANGE_TAIL ")");
    static ctpy_sig s2 = CTPY_SIG("arange(Scalar start, Scalar end, Scalar step=1, *, "
                                  RANGE_TAIL ")");
    static ctpy_sig *sigs[] = {&s1, &s2};
    ctpy_arg v[9];
    (void)self;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    ct_scalar start = ct_scalar_int(0), end, step = ct_scalar_int(1);
    int k;
    if (which == 0) {
        end = v[0].s;
        k = 1;
    }
    else {
        start = v[0].s;
        end = v[1].s;
        step = v[2].s;
        k = 3;
    }
    ctpy_arg bounds[3];
    bounds[0].is_none = false;
    bounds[0].s = start;
    bounds[1].is_none = false;
    bounds[1].s = end;
    bounds[2].is_none = false;
    bounds[2].s = step;
    ct_dtype dtype = ctpy_factory_dtype(&v[k], &v[k + 1], range_dtype(bounds, 3));
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_arange(start, end, step, dtype), &v[k], &v[k + 3], &v[k + 5]);
}

FN(fn_range)
{
    static ctpy_sig sig = CTPY_SIG("range(Scalar start, Scalar end, Scalar step=1, *, "
                                   RANGE_TAIL ")");
    ctpy_arg v[9];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (PyErr_WarnEx(PyExc_UserWarning, "torch.range is deprecated and will be removed "
                     "in a future release because its behavior is inconsistent with "
                     "Python's range builtin. Instead, use torch.arange, which produces "
                     "values in [start, end).", 1) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[3], &v[4], ct_default_dtype());
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_range(v[0].s, v[1].s, v[2].s, dtype), &v[3], &v[6], &v[8]);
}

FN(fn_linspace)
{
    static ctpy_sig sig = CTPY_SIG("linspace(Scalar start, Scalar end, int steps, *, "
                                   RANGE_TAIL ")");
    ctpy_arg v[9];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[3], &v[4], ct_default_dtype());
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_linspace(v[0].s, v[1].s, v[2].i, dtype), &v[3], &v[6], &v[8]);
}

FN(fn_logspace)
{
    static ctpy_sig sig = CTPY_SIG("logspace(Scalar start, Scalar end, int steps, "
                                   "float base=10.0, *, " RANGE_TAIL ")");
    ctpy_arg v[10];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[4], &v[5], ct_default_dtype());
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_logspace(v[0].s, v[1].s, v[2].i, v[3].d, dtype), &v[4],
                          &v[7], &v[9]);
}

FN(fn_eye)
{
    static ctpy_sig sig = CTPY_SIG("eye(int n, int? m=None, *, " RANGE_TAIL ")");
    ctpy_arg v[8];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype dtype = ctpy_factory_dtype(&v[2], &v[3], ct_default_dtype());
    if (dtype == CT_DTYPE_COUNT) {
        return NULL;
    }
    return ctpy_finish_factory(ct_eye(v[0].i, v[1].is_none ? v[0].i : v[1].i, dtype), &v[2],
                          &v[5], &v[7]);
}

/* torch.tensor(data, *, dtype=None, device=None, requires_grad=False,
 * pin_memory=False): always a copy. */
FN(fn_tensor)
{
    static ctpy_sig sig = CTPY_SIG("tensor(object data, *, ScalarType? dtype=None, "
                                   "Device? device=None, bool requires_grad=False, "
                                   "bool pin_memory=False)");
    ctpy_arg v[5];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (ctpy_is_tensor(v[0].obj) &&
        PyErr_WarnEx(PyExc_UserWarning, "To copy construct from a tensor, it is "
                     "recommended to use sourceTensor.clone().detach() or "
                     "sourceTensor.clone().detach().requires_grad_(True), rather than "
                     "torch.tensor(sourceTensor).", 1) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor_from_data(v[0].obj, dtype_or(&v[1], CT_DTYPE_COUNT),
                                         true, true);
    if (t == NULL) {
        return NULL;
    }
    return ctpy_finish_factory(t, NULL, &v[2], &v[3]);
}

/* torch.as_tensor(data, dtype=None, device=None): shares memory with a
 * tensor or an ndarray of the same dtype, copies otherwise. */
FN(fn_as_tensor)
{
    static ctpy_sig sig = CTPY_SIG("as_tensor(object data, ScalarType? dtype=None, "
                                   "Device? device=None)");
    ctpy_arg v[3];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    PyObject *data = v[0].obj;
    if (ctpy_is_tensor(data) &&
        (v[1].is_none || v[1].dtype == ctpy_tensor(data)->dtype)) {
        return Py_NewRef(data);
    }
    ct_tensor *t = ctpy_is_ndarray(data)
                       ? ctpy_tensor_from_ndarray(data, dtype_or(&v[1], CT_DTYPE_COUNT), false)
                       : ctpy_tensor_from_data(data, dtype_or(&v[1], CT_DTYPE_COUNT),
                                               true, true);
    if (t == NULL) {
        return NULL;
    }
    return ctpy_finish_factory(t, NULL, &v[2], NULL);
}

FN(fn_quantize_per_tensor)
{
    static ctpy_sig sig = CTPY_SIG("quantize_per_tensor(Tensor input, float scale, "
                                   "int zero_point, ScalarType dtype)");
    ctpy_arg v[4];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ct_quantize_per_tensor(v[0].t, v[1].d, v[2].i, v[3].dtype));
}

/* torch.add(input, other, *, alpha=1, out=None) and friends */
static ctpy_sig binary_fn_sigs[CT_BINARY_COUNT] = {
    [CT_BINARY_ADD] = CTPY_SIG("add(TensorN input, TensorN other, *, Scalar alpha=1, "
                               "Tensor? out=None)"),
    [CT_BINARY_SUB] = CTPY_SIG("sub(TensorN input, TensorN other, *, Scalar alpha=1, "
                               "Tensor? out=None)"),
    [CT_BINARY_MUL] = CTPY_SIG("mul(TensorN input, TensorN other, *, Tensor? out=None)"),
    [CT_BINARY_DIV] = CTPY_SIG("div(TensorN input, TensorN other, *, "
                               "str? rounding_mode=None, Tensor? out=None)"),
};

static PyObject *
binary_fn(ct_binary_op op, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    ctpy_sig *sig = &binary_fn_sigs[op];
    ctpy_arg v[4];
    ct_scalar alpha = ct_scalar_int(1);
    ct_tensor *r;

    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (op == CT_BINARY_ADD || op == CT_BINARY_SUB) {
        alpha = v[2].s;
    }
    else if (op == CT_BINARY_DIV && ctpy_div_op(v[2].obj, &op) < 0) {
        ctpy_release(sig, v);
        return NULL;
    }
    const ctpy_arg *o = &v[sig->nparams - 1];
    ct_tensor *out = o->is_none ? NULL : o->t;
    int64_t numel = v[0].t->numel + v[1].t->numel;
    if (numel > CTPY_GIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        r = ctag_binary(op, v[0].t, v[1].t, alpha, out, out ? CT_OUT_GIVEN : CT_OUT_NEW);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ctag_binary(op, v[0].t, v[1].t, alpha, out, out ? CT_OUT_GIVEN : CT_OUT_NEW);
    }
    ctpy_release(sig, v);
    return ctpy_result(r);      /* ctag_binary bumped an out= version */
}

FN(fn_add) { (void)self; return binary_fn(CT_BINARY_ADD, args, nargs, kwnames); }
FN(fn_sub) { (void)self; return binary_fn(CT_BINARY_SUB, args, nargs, kwnames); }
FN(fn_mul) { (void)self; return binary_fn(CT_BINARY_MUL, args, nargs, kwnames); }
FN(fn_div) { (void)self; return binary_fn(CT_BINARY_DIV, args, nargs, kwnames); }

FN(fn_result_type)
{
    static ctpy_sig sig = CTPY_SIG("result_type(TensorN tensor, TensorN other)");
    ctpy_arg v[2];
    ct_dtype d;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    int rc = ct_result_type(v[0].t, v[1].t, &d);
    ctpy_release(&sig, v);
    if (rc < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(ctpy_dtype_obj(d));
}

FN(fn_promote_types)
{
    static ctpy_sig sig = CTPY_SIG("promote_types(ScalarType type1, ScalarType type2)");
    ctpy_arg v[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype d = ct_dtype_promote(v[0].dtype, v[1].dtype);
    if (d == CT_DTYPE_COUNT) {
        PyErr_Format(PyExc_RuntimeError, "promoteTypes with quantized numbers is not "
                     "handled yet; figure out what the correct rules should be, "
                     "offending types: %s %s", ct_dtype_table[v[0].dtype].legacy,
                     ct_dtype_table[v[1].dtype].legacy);
        return NULL;
    }
    return Py_NewRef(ctpy_dtype_obj(d));
}

FN(fn_can_cast)
{
    static ctpy_sig sig = CTPY_SIG("can_cast(ScalarType from_, ScalarType to)");
    ctpy_arg v[2];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return PyBool_FromLong(ct_dtype_can_cast(v[0].dtype, v[1].dtype));
}

static PyObject *
fn_get_default_dtype(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_NewRef(ctpy_dtype_obj(ct_default_dtype()));
}

static PyObject *
fn_set_default_dtype(PyObject *self, PyObject *arg)
{
    ct_dtype d;
    (void)self;
    if (!Py_IS_TYPE(arg, &CtDtype_Type) || ctpy_to_dtype(arg, &d) != 0) {
        PyErr_SetString(PyExc_TypeError, "invalid dtype object: only floating-point "
                        "types are supported as the default type");
        return NULL;
    }
    if (ct_set_default_dtype(d) < 0) {
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

static PyObject *
fn_set_tensor_class(PyObject *self, PyObject *cls)
{
    (void)self;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &CtTensor_Type)) {
        PyErr_SetString(PyExc_TypeError, "expected a Tensor subclass");
        return NULL;
    }
    Py_INCREF(cls);             /* kept for the life of the process */
    ctpy_tensor_class = (PyTypeObject *)cls;
    Py_RETURN_NONE;
}

static PyObject *
fn_get_num_threads(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(ct_get_num_threads());
}

static PyObject *
fn_set_num_threads(PyObject *self, PyObject *arg)
{
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (n <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "set_num_threads expects a positive integer");
        return NULL;
    }
    ct_set_num_threads((int)n);
    Py_RETURN_NONE;
}

static PyObject *
fn_live_counts(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return Py_BuildValue("(LLL)", (long long)ct_live_tensors(),
                         (long long)ct_live_storages(), (long long)ct_live_bytes());
}

static PyObject *
fn_empty_cache(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    ct_cpu_allocator_empty_cache();
    Py_RETURN_NONE;
}

/* Pickle's way back to a Size or a device (see ctpy_pickle_constructor). */
static PyObject *
fn_rebuild_size(PyObject *self, PyObject *arg)
{
    (void)self;
    return PyObject_CallOneArg((PyObject *)&CtSize_Type, arg);
}

static PyObject *
fn_rebuild_device(PyObject *self, PyObject *args)
{
    (void)self;
    return PyObject_Call((PyObject *)&CtDevice_Type, args, NULL);
}

PyMethodDef ctpy_functions[] = {
    ENTRY("zeros", fn_zeros, "zeros(*size, dtype=None, ...) -> Tensor"),
    ENTRY("ones", fn_ones, "ones(*size, dtype=None, ...) -> Tensor"),
    ENTRY("empty", fn_empty, "empty(*size, dtype=None, ...) -> Tensor"),
    ENTRY("empty_strided", fn_empty_strided, NULL),
    ENTRY("full", fn_full, "full(size, fill_value, dtype=None, ...) -> Tensor"),
    ENTRY("zeros_like", fn_zeros_like, NULL),
    ENTRY("ones_like", fn_ones_like, NULL),
    ENTRY("empty_like", fn_empty_like, NULL),
    ENTRY("full_like", fn_full_like, NULL),
    ENTRY("arange", fn_arange, "arange(start=0, end, step=1, ...) -> Tensor"),
    ENTRY("range", fn_range, "range(start, end, step=1, ...) -> Tensor (deprecated)"),
    ENTRY("linspace", fn_linspace, NULL),
    ENTRY("logspace", fn_logspace, NULL),
    ENTRY("eye", fn_eye, NULL),
    ENTRY("tensor", fn_tensor, "tensor(data, dtype=None, ...) -> Tensor (a copy)"),
    ENTRY("as_tensor", fn_as_tensor, NULL),
    ENTRY("quantize_per_tensor", fn_quantize_per_tensor, NULL),
    ENTRY("add", fn_add, NULL),
    ENTRY("sub", fn_sub, NULL),
    ENTRY("subtract", fn_sub, NULL),
    ENTRY("mul", fn_mul, NULL),
    ENTRY("multiply", fn_mul, NULL),
    ENTRY("div", fn_div, NULL),
    ENTRY("divide", fn_div, NULL),
    ENTRY("true_divide", fn_div, NULL),
    ENTRY("result_type", fn_result_type, NULL),
    ENTRY("promote_types", fn_promote_types, NULL),
    ENTRY("can_cast", fn_can_cast, NULL),
    {"from_numpy", (PyCFunction)ctpy_from_numpy, METH_O, "from_numpy(ndarray) -> Tensor"},
    {"_to_dlpack", (PyCFunction)ctpy_to_dlpack, METH_O, NULL},
    {"_from_dlpack_capsule", (PyCFunction)ctpy_from_dlpack_capsule, METH_O, NULL},
    {"get_default_dtype", fn_get_default_dtype, METH_NOARGS, NULL},
    {"_set_default_dtype", fn_set_default_dtype, METH_O, NULL},
    {"_set_tensor_class", fn_set_tensor_class, METH_O, NULL},
    {"get_num_threads", fn_get_num_threads, METH_NOARGS, NULL},
    {"set_num_threads", fn_set_num_threads, METH_O, NULL},
    {"_live_counts", fn_live_counts, METH_NOARGS, NULL},
    {"_rebuild_size", fn_rebuild_size, METH_O, NULL},
    {"_rebuild_device", fn_rebuild_device, METH_VARARGS, NULL},
    {"_legacy_new", (PyCFunction)(void (*)(void))ctpy_legacy_new_fn,
     METH_VARARGS | METH_KEYWORDS, NULL},
    {"_empty_cache", fn_empty_cache, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};
