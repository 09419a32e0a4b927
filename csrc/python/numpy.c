/* csrc/python/numpy.c -- NumPy interop through the NumPy C-API:
 * from_numpy and .numpy() share memory; torch.tensor(ndarray) copies.
 *
 * A tensor made from an array keeps the array alive through its storage's
 * deleter (which takes the GIL to drop the reference, since the last
 * tensor may die on any thread).  An array made from a tensor keeps the
 * tensor's Python object as its base. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL ctorch_ARRAY_API
#include "argparse.h"

#include <numpy/arrayobject.h>

/* NumPy is bound lazily: importing it costs more than importing ctorch,
 * and an object cannot be an ndarray before numpy is imported.  0: not
 * yet, 1: bound, -1: not installed. */
static int numpy_state;
static bool numpy_ok;

static bool
bind_numpy(bool force)
{
    if (numpy_state != 0) {
        return numpy_ok;
    }
    if (!force && PyDict_GetItemString(PyImport_GetModuleDict(), "numpy") == NULL) {
        return false;
    }
    if (_import_array() < 0) {
        PyErr_Clear();      /* ctorch works without NumPy; interop raises */
        numpy_state = -1;
        return false;
    }
    numpy_state = 1;
    numpy_ok = true;
    return true;
}

int
ctpy_numpy_init(void)
{
    return 0;
}

bool
ctpy_numpy_available(void)
{
    return bind_numpy(true);
}

bool
ctpy_is_ndarray(PyObject *o)
{
    return (numpy_ok || bind_numpy(false)) && PyArray_Check(o);
}

bool
ctpy_is_numpy_scalar(PyObject *o)
{
    return (numpy_ok || bind_numpy(false)) && PyArray_IsScalar(o, Generic);
}

static int
require_numpy(void)
{
    if (!numpy_ok && !bind_numpy(true)) {
        PyErr_SetString(PyExc_RuntimeError, "Numpy is not available");
        return -1;
    }
    return 0;
}

/* NumPy type number <-> ct dtype. */
static const struct {
    int npy;
    ct_dtype ct;
} type_map[] = {
    {NPY_FLOAT64, CT_DTYPE_FLOAT64}, {NPY_FLOAT32, CT_DTYPE_FLOAT32},
    {NPY_FLOAT16, CT_DTYPE_FLOAT16}, {NPY_INT64, CT_DTYPE_INT64},
    {NPY_INT32, CT_DTYPE_INT32},     {NPY_INT16, CT_DTYPE_INT16},
    {NPY_INT8, CT_DTYPE_INT8},       {NPY_UINT8, CT_DTYPE_UINT8},
    {NPY_BOOL, CT_DTYPE_BOOL},       {NPY_LONGLONG, CT_DTYPE_INT64},
};

static int
npy_to_ct(PyArray_Descr *descr, ct_dtype *out)
{
    for (size_t i = 0; i < sizeof type_map / sizeof type_map[0]; i++) {
        if (descr->type_num == type_map[i].npy) {
            *out = type_map[i].ct;
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError, "can't convert np.ndarray of type %s. The only "
                 "supported types are: float64, float32, float16, complex64, "
                 "complex128, int64, int32, int16, int8, uint8, and bool.",
                 descr->typeobj->tp_name);
    return -1;
}

static int
ct_to_npy(ct_dtype d)
{
    for (size_t i = 0; i < sizeof type_map / sizeof type_map[0]; i++) {
        if (type_map[i].ct == d) {
            return type_map[i].npy;
        }
    }
    return -1;
}

int
ctpy_numpy_dtype(PyObject *o, ct_dtype *out)
{
    if (require_numpy() < 0) {
        return -1;
    }
    if (PyArray_Check(o)) {
        return npy_to_ct(PyArray_DESCR((PyArrayObject *)o), out);
    }
    PyArray_Descr *descr = PyArray_DescrFromScalar(o);
    if (descr == NULL) {
        return -1;
    }
    int rc = npy_to_ct(descr, out);
    Py_DECREF(descr);
    return rc;
}

static void
release_array(void *ctx)
{
    PyGILState_STATE st = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(st);
}

/* The array's memory as a tensor, without copying. */
static ct_tensor *
wrap_array(PyArrayObject *arr)
{
    ct_dtype dtype;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int nd = PyArray_NDIM(arr);

    if (npy_to_ct(PyArray_DESCR(arr), &dtype) < 0) {
        return NULL;
    }
    if (!PyArray_ISNOTSWAPPED(arr)) {
        PyErr_SetString(PyExc_ValueError, "given numpy array has byte order different "
                        "from the native byte order. Conversion between byte orders "
                        "is currently not supported.");
        return NULL;
    }
    if (nd > CT_MAX_DIMS) {
        PyErr_SetString(PyExc_ValueError, "too many dimensions");
        return NULL;
    }
    int64_t item = (int64_t)ct_dtype_itemsize(dtype);
    int64_t hi = 1;
    bool empty = PyArray_SIZE(arr) == 0;
    for (int i = 0; i < nd; i++) {
        npy_intp st = PyArray_STRIDES(arr)[i];
        if (st < 0) {
            PyErr_SetString(PyExc_ValueError, "At least one stride in the given numpy "
                            "array is negative, and tensors with negative strides are "
                            "not currently supported. (You can probably work around "
                            "this by making a copy of your array  with array.copy().) ");
            return NULL;
        }
        if (st % item != 0) {
            PyErr_SetString(PyExc_ValueError, "given numpy array strides not a "
                            "multiple of the element byte size. Copy the numpy array "
                            "to reallocate the memory.");
            return NULL;
        }
        sizes[i] = PyArray_DIMS(arr)[i];
        strides[i] = st / item;
        if (!empty) {
            hi += (sizes[i] - 1) * strides[i];
        }
    }
    Py_INCREF(arr);
    ct_storage *s = ct_storage_new_external(PyArray_DATA(arr),
                                            empty ? 0 : (size_t)(hi * item),
                                            ct_device_cpu(), release_array, arr);
    if (s == NULL) {
        Py_DECREF(arr);
        return (ct_tensor *)ctpy_raise();
    }
    ct_tensor *t = ct_tensor_new(s, 0, nd, sizes, strides, dtype);
    ct_storage_decref(s);       /* drops the array when t failed */
    return t != NULL ? t : (ct_tensor *)ctpy_raise();
}

/* Sharing a read-only array warns, once per process (TORCH_WARN_ONCE). */
static int
warn_if_not_writable(PyObject *arr)
{
    static bool warned;
    if (warned || PyArray_ISWRITEABLE((PyArrayObject *)arr)) {
        return 0;
    }
    warned = true;
    return PyErr_WarnEx(PyExc_UserWarning,
                        "The given NumPy array is not writable, and PyTorch does not "
                        "support non-writable tensors. This means writing to this "
                        "tensor will result in undefined behavior. You may want to copy "
                        "the array to protect its data or make it writable before "
                        "converting it to a tensor. This type of warning will be "
                        "suppressed for the rest of this program.", 1);
}

PyObject *
ctpy_from_numpy(PyObject *self, PyObject *arr)
{
    (void)self;
    if (require_numpy() < 0) {
        return NULL;
    }
    if (!PyArray_Check(arr)) {
        PyErr_Format(PyExc_TypeError, "expected np.ndarray (got %s)",
                     Py_TYPE(arr)->tp_name);
        return NULL;
    }
    if (warn_if_not_writable(arr) < 0) {
        return NULL;
    }
    ct_tensor *t = wrap_array((PyArrayObject *)arr);
    if (t == NULL) {
        return NULL;
    }
    PyObject *r = ctpy_wrap(t);
    ct_tensor_decref(t);
    return r;
}

ct_tensor *
ctpy_tensor_from_ndarray(PyObject *arr, ct_dtype dtype, bool copy)
{
    if (!copy && warn_if_not_writable(arr) < 0) {
        return NULL;
    }
    ct_tensor *view = wrap_array((PyArrayObject *)arr);
    if (view == NULL) {
        return NULL;
    }
    if (!copy && (dtype == CT_DTYPE_COUNT || dtype == view->dtype)) {
        return view;
    }
    ct_tensor *r = ct_to_dtype(view, dtype == CT_DTYPE_COUNT ? view->dtype : dtype, true);
    ct_tensor_decref(view);
    return r != NULL ? r : (ct_tensor *)ctpy_raise();
}

PyObject *
ctpy_tensor_numpy(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    static ctpy_sig sig = CTPY_SIG("numpy(*, bool force=False)");
    ctpy_arg v[1];
    npy_intp dims[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    ct_tensor *t = ctpy_tensor(self);

    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 || require_numpy() < 0) {
        return NULL;
    }
    if (ct_requires_grad(t) && !v[0].b) {
        PyErr_SetString(PyExc_RuntimeError, "Can't call numpy() on Tensor that "
                        "requires grad. Use tensor.detach().numpy() instead.");
        return NULL;
    }
    if (ct_tensor_device(t).type != CT_DEVICE_CPU) {
        PyErr_Format(PyExc_TypeError, "can't convert %s:%d device type tensor to "
                     "numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
                     ct_device_type_name(ct_tensor_device(t).type),
                     ct_tensor_device(t).index);
        return NULL;
    }
    int npy = ct_to_npy(t->dtype);
    if (npy < 0) {
        PyErr_Format(PyExc_TypeError, "Got unsupported ScalarType %s",
                     ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    int64_t item = (int64_t)ct_dtype_itemsize(t->dtype);
    for (int i = 0; i < t->ndim; i++) {
        dims[i] = (npy_intp)t->sizes[i];
        strides[i] = (npy_intp)(t->strides[i] * item);
    }
    PyObject *arr = PyArray_New(&PyArray_Type, t->ndim, dims, npy, strides,
                                ct_tensor_data(t), 0, NPY_ARRAY_ALIGNED | NPY_ARRAY_WRITEABLE,
                                NULL);
    if (arr == NULL) {
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)arr, Py_NewRef(self)) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}
