/* csrc/python/tensor_new.c -- Python data to tensors and back: scalars,
 * nested sequences (torch.tensor's rules for shapes, dtype inference and
 * overflow), tolist(). */
#include "argparse.h"

#include <math.h>
#include <string.h>

#include "c10/convert.h"

int
ctpy_to_scalar(PyObject *o, ct_scalar *out)
{
    if (PyBool_Check(o)) {
        *out = ct_scalar_bool(o == Py_True);
        return 0;
    }
    if (PyLong_Check(o)) {
        int64_t v;
        if (ctpy_long_to_int64(o, &v) < 0) {
            return -1;
        }
        *out = ct_scalar_int(v);
        return 0;
    }
    if (PyFloat_Check(o)) {
        *out = ct_scalar_float(PyFloat_AS_DOUBLE(o));
        return 0;
    }
    if (ctpy_is_numpy_scalar(o)) {
        ct_dtype d;
        if (ctpy_numpy_dtype(o, &d) != 0) {
            PyErr_Clear();
            return 1;
        }
        if (d == CT_DTYPE_BOOL) {
            int b = PyObject_IsTrue(o);
            if (b < 0) {
                return -1;
            }
            *out = ct_scalar_bool(b);
        }
        else if (ct_dtype_is_floating(d)) {
            double v = PyFloat_AsDouble(o);
            if (v == -1.0 && PyErr_Occurred()) {
                return -1;
            }
            *out = ct_scalar_float(v);
        }
        else {
            PyObject *i = PyNumber_Index(o);
            if (i == NULL) {
                return -1;
            }
            int rc = ctpy_to_scalar(i, out);
            Py_DECREF(i);
            return rc;
        }
        return 0;
    }
    return 1;
}

PyObject *
ctpy_scalar_to_py(ct_scalar s)
{
    switch (s.kind) {
    case CT_SCALAR_BOOL:
        return PyBool_FromLong(s.v.b);
    case CT_SCALAR_INT:
        return PyLong_FromLongLong(s.v.i);
    default:
        return PyFloat_FromDouble(s.v.d);
    }
}

/* --- tolist ---------------------------------------------------------------- */
static PyObject *
element_to_py(const char *p, ct_dtype d)
{
    /* a bool view of other bytes (t.view(torch.bool)) may hold any byte:
     * read it as one, since loading 2 into a C bool is undefined */
    if (d == CT_DTYPE_BOOL) {
        return PyBool_FromLong(*(const unsigned char *)p != 0);
    }
    switch (d) {
#define X(E, T, S, A)                                  \
    case E: {                                          \
        T v;                                           \
        memcpy(&v, p, sizeof v);                       \
        return ctpy_scalar_to_py(ct__scalar_from_##S(v)); \
    }
        CT_FORALL_DTYPES(X)
#undef X
    default:
        Py_RETURN_NONE;
    }
}

static PyObject *
tolist_rec(const ct_tensor *t, const char *p, int dim)
{
    int64_t item = (int64_t)ct_dtype_itemsize(t->dtype);
    if (dim == t->ndim) {
        return element_to_py(p, t->dtype);
    }
    PyObject *list = PyList_New(t->sizes[dim]);
    if (list == NULL) {
        return NULL;
    }
    for (int64_t i = 0; i < t->sizes[dim]; i++) {
        PyObject *v = tolist_rec(t, p + i * t->strides[dim] * item, dim + 1);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

PyObject *
ctpy_tensor_tolist(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_tensor *t = ctpy_tensor(self);
    if (ct_tensor_device(t).type != CT_DEVICE_CPU) {
        /* read from a host copy */
        ct_tensor *h = ct_to_device(t, ct_device_cpu());
        if (h == NULL) {
            return ctpy_raise();
        }
        PyObject *hobj = ctpy_wrap(h);
        ct_tensor_decref(h);
        PyObject *r = hobj != NULL ? ctpy_tensor_tolist(hobj, NULL) : NULL;
        Py_XDECREF(hobj);
        return r;
    }
    if (ct_dtype_table[t->dtype].is_quantized) {
        ct_tensor *d = ct_dequantize(t);
        if (d == NULL) {
            return ctpy_raise();
        }
        PyObject *r = tolist_rec(d, ct_tensor_data(d), 0);
        ct_tensor_decref(d);
        return r;
    }
    return tolist_rec(t, ct_tensor_data(t), 0);
}

/* --- torch.tensor(data) --------------------------------------------------- *
 *
 * Note [tensor from data]
 * The steps and their order follow torch's internal_new_from_data, since
 * scripts observe which error comes first: a str is refused, a tensor is
 * converted, an ndarray is wrapped; otherwise the shape is read from the
 * first element at each level (compute_sizes: any sequence counts, str and
 * ndarray included), then the dtype is inferred when none was given, then
 * every leaf is stored with store_scalar's conversions and overflow checks.
 */

/* Does compute_sizes descend into o?  Any sequence but a tensor. */
static bool
is_data_sequence(PyObject *o)
{
    return PySequence_Check(o) && !ctpy_is_tensor(o);
}

/* torch's infer_scalar_type: the promoted dtype of everything in o. */
static int
infer_dtype(PyObject *o, ct_dtype *out)
{
    /* NumPy first: np.float64 is a float subclass but keeps its own dtype */
    if (ctpy_is_ndarray(o) || ctpy_is_numpy_scalar(o)) {
        return ctpy_numpy_dtype(o, out) == 0 ? 0 : -1;
    }
    if (PyFloat_Check(o)) {
        *out = ct_default_dtype();
        return 0;
    }
    if (PyBool_Check(o)) {
        *out = CT_DTYPE_BOOL;
        return 0;
    }
    if (PyLong_Check(o)) {
        *out = CT_DTYPE_INT64;
        return 0;
    }
    if (ctpy_is_tensor(o)) {
        *out = ctpy_tensor(o)->dtype;
        return 0;
    }
    if (PyUnicode_Check(o) || PyBytes_Check(o)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    if (PySequence_Check(o)) {
        Py_ssize_t n = PySequence_Length(o);
        ct_dtype acc = CT_DTYPE_COUNT;
        if (n < 0) {
            return -1;
        }
        if (n == 0) {
            *out = ct_default_dtype();
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *it = PySequence_GetItem(o, i);
            ct_dtype d;
            if (it == NULL) {
                return -1;
            }
            if (it == o) {
                Py_DECREF(it);
                PyErr_SetString(PyExc_TypeError, "new(): self-referential lists are "
                                "incompatible");
                return -1;
            }
            /* only the first element's depth is bounded (by compute_sizes) */
            int rc = -1;
            if (Py_EnterRecursiveCall(" while inferring the dtype of nested data") == 0) {
                rc = infer_dtype(it, &d);
                Py_LeaveRecursiveCall();
            }
            Py_DECREF(it);
            if (rc < 0) {
                return -1;
            }
            acc = acc == CT_DTYPE_COUNT ? d : ct_dtype_promote(acc, d);
        }
        *out = acc;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError, "Could not infer dtype of %s", Py_TYPE(o)->tp_name);
    return -1;
}

/* Sizes from the first element at each level (torch's compute_sizes). */
static int
compute_sizes(PyObject *o, int *ndim, int64_t *sizes)
{
    PyObject *cur = Py_NewRef(o);
    *ndim = 0;
    while (is_data_sequence(cur)) {
        Py_ssize_t n = PySequence_Length(cur);
        if (n < 0) {
            Py_DECREF(cur);
            return -1;
        }
        if (*ndim >= CT_MAX_DIMS) {
            PyErr_Format(PyExc_ValueError, "too many dimensions '%s'",
                         Py_TYPE(cur)->tp_name);
            Py_DECREF(cur);
            return -1;
        }
        sizes[(*ndim)++] = n;
        if (n == 0) {
            break;
        }
        PyObject *first = PySequence_GetItem(cur, 0);
        if (first == NULL) {
            PyErr_Format(PyExc_ValueError, "could not determine the shape of "
                         "object type '%s'", Py_TYPE(cur)->tp_name);
            Py_DECREF(cur);
            return -1;
        }
        Py_SETREF(cur, first);
    }
    Py_DECREF(cur);
    return 0;
}

/* torch's THPUtils_unpackLong: an int (or an object with __index__). */
static int
unpack_long(PyObject *o, int64_t *out)
{
    return ctpy_long_to_int64(o, out);
}

/* torch's THPUtils_unpackDouble: a float (or an object with __float__). */
static int
unpack_double(PyObject *o, double *out)
{
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) {
        return -1;
    }
    *out = v;
    return 0;
}

static int
overflow_error(ct_dtype d)
{
    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type %s without "
                 "overflow", ct_dtype_table[d].name);
    return -1;
}

/* The range c10's checked_convert allows for integer dtype d. */
static void
int_limits(ct_dtype d, double *lo, double *hi)
{
    static const double lim[][2] = {
        [CT_DTYPE_UINT8] = {0.0, 255.0},
        [CT_DTYPE_INT8] = {-128.0, 127.0},
        [CT_DTYPE_INT16] = {-32768.0, 32767.0},
        [CT_DTYPE_INT32] = {-2147483648.0, 2147483647.0},
        [CT_DTYPE_INT64] = {-9223372036854775808.0, 9223372036854775807.0},
    };
    *lo = lim[d][0];
    *hi = lim[d][1];
}

/* Store one Python value as dtype d at p: torch's store_scalar.  Integer
 * dtypes take floats through a checked double conversion and anything else
 * through __index__ (unsigned types let negative ints wrap, as c10's
 * checked_convert does); floating dtypes go through __float__; bool takes
 * any number's truth. */
static int
store_value(char *p, ct_dtype d, PyObject *o)
{
    ct_scalar s;

    if (ct_dtype_is_integral(d, false)) {
        double lo, hi;
        int_limits(d, &lo, &hi);
        if (PyFloat_Check(o)) {
            double v = PyFloat_AS_DOUBLE(o);
            if (isnan(v) || v < lo || v > hi) {
                return overflow_error(d);
            }
            s = ct_scalar_float(v);
        }
        else {
            int64_t v;
            if (unpack_long(o, &v) < 0) {
                return -1;
            }
            bool bad = d == CT_DTYPE_UINT8 ? (v > 255 || v < -255)
                       : d == CT_DTYPE_INT64 ? false
                                             : ((double)v < lo || (double)v > hi);
            if (bad) {
                return overflow_error(d);
            }
            s = ct_scalar_int(v);
        }
    }
    else if (d == CT_DTYPE_BOOL) {
        if (PyFloat_Check(o)) {
            s = ct_scalar_bool(PyFloat_AS_DOUBLE(o) != 0.0);
        }
        else {
            int overflow;
            long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
            if (v == -1 && PyErr_Occurred()) {
                return -1;
            }
            s = ct_scalar_bool(overflow != 0 || v != 0);
        }
    }
    else if (ct_dtype_is_floating(d)) {
        double v;
        if (unpack_double(o, &v) < 0) {
            return -1;
        }
        s = ct_scalar_float(v);
    }
    else {
        PyErr_SetString(PyExc_RuntimeError, "invalid type");
        return -1;
    }
    switch (d) {
#define X(E, T, S, A)                               \
    case E: {                                       \
        T v = CT_FROM_SCALAR(S, s);                 \
        memcpy(p, &v, sizeof v);                    \
        break;                                      \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
    return 0;
}

static int
store_rec(PyObject *o, const ct_tensor *t, char *p, int dim)
{
    static bool warned_ndarray;

    if (dim == t->ndim) {
        return store_value(p, t->dtype, o);
    }
    PyObject *seq = PySequence_Fast(o, "not a sequence");
    if (seq == NULL) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != t->sizes[dim]) {
        PyErr_Format(PyExc_ValueError, "expected sequence of length %lld at dim %d "
                     "(got %zd)", (long long)t->sizes[dim], dim, n);
        Py_DECREF(seq);
        return -1;
    }
    int64_t step = t->strides[dim] * (int64_t)ct_dtype_itemsize(t->dtype);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        /* torch warns once per process (TORCH_WARN_ONCE) */
        if (!warned_ndarray && ctpy_is_ndarray(items[i])) {
            warned_ndarray = true;
            if (PyErr_WarnEx(PyExc_UserWarning, "Creating a tensor from a list of "
                             "numpy.ndarrays is extremely slow. Please consider "
                             "converting the list to a single numpy.ndarray with "
                             "numpy.array() before converting to a tensor.", 1) < 0) {
                Py_DECREF(seq);
                return -1;
            }
        }
        if (store_rec(items[i], t, p + i * step, dim + 1) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* A new tensor holding the values of `data` (tensor, ndarray, number or
 * nested sequence), in `dtype` or, when dtype == CT_DTYPE_COUNT, the dtype
 * inferred from the data; see Note [tensor from data].  A tensor or an
 * ndarray of the same dtype is copied when copy_numpy, else shared.
 * Returns a new reference, or NULL with a Python exception set. */
ct_tensor *
ctpy_tensor_from_data(PyObject *data, ct_dtype dtype, bool copy_numpy,
                      bool infer_default_float)
{
    (void)infer_default_float;
    if (PyUnicode_Check(data) || PyBytes_Check(data)) {
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                     Py_TYPE(data)->tp_name);
        return NULL;
    }
    if (ctpy_is_tensor(data)) {
        ct_tensor *t = ctpy_tensor(data);
        ct_tensor *r = ct_to_dtype(t, dtype == CT_DTYPE_COUNT ? t->dtype : dtype, true);
        return r != NULL ? r : (ct_tensor *)ctpy_raise();
    }
    if (ctpy_is_ndarray(data)) {
        return ctpy_tensor_from_ndarray(data, dtype, copy_numpy);
    }
    int ndim;
    int64_t sizes[CT_MAX_DIMS];
    if (compute_sizes(data, &ndim, sizes) < 0) {
        return NULL;
    }
    if (dtype == CT_DTYPE_COUNT && infer_dtype(data, &dtype) < 0) {
        return NULL;
    }
    if (ct_dtype_table[dtype].is_quantized) {
        /* torch allocates and then fails in store_scalar */
        PyErr_SetString(PyExc_RuntimeError, "invalid type");
        return NULL;
    }
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t == NULL) {
        return (ct_tensor *)ctpy_raise();
    }
    if (t->numel > 0 && store_rec(data, t, ct_tensor_data(t), 0) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}
