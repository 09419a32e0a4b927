/* csrc/python/tensor_index.c -- t[index] and t[index] = value for basic
 * indices: ints, slices (positive steps), None, Ellipsis and tuples of
 * them.  Every basic index is a view.  Tensor and list indices (advanced
 * indexing) are not supported yet and raise NotImplementedError. */
#include "argparse.h"

static bool
is_basic_int(PyObject *o)
{
    return PyLong_Check(o) && !PyBool_Check(o);
}

/* Does item take up a dimension of the tensor? */
static int
consumes_dim(PyObject *o)
{
    return o != Py_None && o != Py_Ellipsis && !PyBool_Check(o);
}

/* A 0-d tensor of a (non-bool, non-uint8) integer dtype indexes like an int;
 * other tensors are masks or index lists (advanced indexing). */
static bool
is_int_tensor_index(PyObject *o)
{
    if (!ctpy_is_tensor(o)) {
        return false;
    }
    ct_tensor *t = ctpy_tensor(o);
    return t->ndim == 0 && ct_dtype_is_integral(t->dtype, false) &&
           t->dtype != CT_DTYPE_UINT8;
}

/* 0 when `it` is a basic index that takes up a dimension (an int, a slice,
 * a 0-d integer tensor, anything else with __index__); -1 with torch's
 * error otherwise.  Advanced indices raise NotImplementedError. */
static int
check_basic_index(PyObject *it)
{
    if (is_basic_int(it) || PySlice_Check(it) || is_int_tensor_index(it)) {
        return 0;
    }
    if (ctpy_is_tensor(it)) {
        if (!ct_dtype_is_integral(ctpy_tensor(it)->dtype, true)) {
            PyErr_SetString(PyExc_IndexError, "tensors used as indices must be long, "
                            "byte or bool tensors");
            return -1;
        }
    }
    else if (ctpy_is_ndarray(it)) {
        /* a 0-d integer array is an int, any other array an index tensor */
        PyObject *i = PyNumber_Index(it);
        if (i != NULL) {
            Py_DECREF(i);
            return 0;
        }
        PyErr_Clear();
    }
    else if (PyUnicode_Check(it) || PyBytes_Check(it)) {
        /* torch tries to make an index tensor of it */
        PyErr_Format(PyExc_TypeError, "new(): invalid data type '%s'",
                     Py_TYPE(it)->tp_name);
        return -1;
    }
    else if (!PySequence_Check(it)) {
        if (PyIndex_Check(it)) {
            return 0;
        }
        PyErr_Format(PyExc_IndexError, "only integers, slices (`:`), ellipsis (`...`), "
                     "None and long or byte Variables are valid indices (got %s)",
                     Py_TYPE(it)->tp_name);
        return -1;
    }
    PyErr_SetString(PyExc_NotImplementedError, "indexing with tensors, arrays or "
                    "lists (advanced indexing) is not supported yet");
    return -1;
}

/* The view that `index` selects; new reference, or NULL with an exception. */
static ct_tensor *
basic_view(ct_tensor *t, PyObject *index)
{
    PyObject *items;
    int dim = 0, consumed = 0, ellipsis = 0;

    if (PyTuple_Check(index)) {
        items = Py_NewRef(index);
    }
    else {
        items = PyTuple_Pack(1, index);
        if (items == NULL) {
            return NULL;
        }
    }
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        if (it == Py_Ellipsis) {
            if (++ellipsis > 1) {
                Py_DECREF(items);
                PyErr_SetString(PyExc_IndexError, "an index can only have a single "
                                "ellipsis ('...')");
                return NULL;
            }
        }
        else if (consumes_dim(it)) {
            if (check_basic_index(it) < 0) {
                Py_DECREF(items);
                return NULL;
            }
            consumed++;
        }
    }
    if (consumed > t->ndim) {
        Py_DECREF(items);
        if (t->ndim == 0) {
            PyErr_SetString(PyExc_IndexError, "invalid index of a 0-dim tensor. Use "
                            "`tensor.item()` in Python or `tensor.item<T>()` in C++ "
                            "to convert a 0-dim tensor to a number");
        }
        else {
            PyErr_Format(PyExc_IndexError, "too many indices for tensor of "
                         "dimension %d", t->ndim);
        }
        return NULL;
    }
    ct_tensor *cur = ct_tensor_view_of(t, t->offset, t->ndim, t->sizes, t->strides);
    if (cur == NULL) {
        Py_DECREF(items);
        return (ct_tensor *)ctpy_raise();
    }
    for (Py_ssize_t i = 0; i < n && cur != NULL; i++) {
        PyObject *it = PyTuple_GET_ITEM(items, i);
        ct_tensor *next = NULL;
        if (it == Py_None || PyBool_Check(it)) {
            next = ct_unsqueeze(cur, dim);
            if (next != NULL && it == Py_False) {
                ct_tensor *empty = ct_narrow(next, dim, 0, 0);
                ct_tensor_decref(next);
                next = empty;
            }
            dim++;
        }
        else if (it == Py_Ellipsis) {
            dim += t->ndim - consumed;
            continue;
        }
        else if (PySlice_Check(it)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(it, &start, &stop, &step) < 0) {
                ct_tensor_decref(cur);
                Py_DECREF(items);
                return NULL;
            }
            if (step <= 0) {
                ct_tensor_decref(cur);
                Py_DECREF(items);
                PyErr_SetString(PyExc_ValueError, "step must be greater than zero");
                return NULL;
            }
            next = ct_slice(cur, dim, start, stop, step);
            dim++;
        }
        else {
            int64_t idx;
            if (ctpy_to_int64(it, &idx) != 0) {
                ct_tensor_decref(cur);
                Py_DECREF(items);
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_IndexError, "only integers, slices (`:`), "
                                    "ellipsis (`...`), None and long or byte "
                                    "Variables are valid indices");
                }
                return NULL;
            }
            int64_t size = cur->sizes[dim];
            if (idx < -size || idx >= size) {
                PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for "
                             "dimension %d with size %lld", (long long)idx, dim,
                             (long long)size);
                ct_tensor_decref(cur);
                Py_DECREF(items);
                return NULL;
            }
            next = ct_select(cur, dim, idx);
        }
        ct_tensor_decref(cur);
        cur = next;
    }
    Py_DECREF(items);
    if (cur == NULL) {
        return (ct_tensor *)ctpy_raise();
    }
    return cur;
}

PyObject *ctpy_tensor_getitem(PyObject *self, PyObject *index);
int ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value);

PyObject *
ctpy_tensor_getitem(PyObject *self, PyObject *index)
{
    ct_tensor *v = basic_view(ctpy_tensor(self), index);
    if (v == NULL) {
        return NULL;
    }
    PyObject *r = ctpy_wrap(v);
    ct_tensor_decref(v);
    return r;
}

/* torch's valueToTensor for a non-tensor value: ints (numpy's too) and
 * floats; anything else is "can't assign a list to a torch.FloatTensor".
 * 0, or -1 with an exception set. */
static int
setitem_scalar(PyObject *value, ct_dtype dtype, ct_scalar *out)
{
    ct_dtype nd;
    bool np_int = false;

    if (ctpy_is_numpy_scalar(value) && !PyFloat_Check(value)) {
        if (ctpy_numpy_dtype(value, &nd) == 0) {
            np_int = ct_dtype_is_integral(nd, false);
        }
        PyErr_Clear();
    }
    if (PyLong_Check(value) || np_int) {
        int64_t v;
        if (ctpy_long_to_int64(value, &v) < 0) {
            return -1;
        }
        *out = ct_scalar_int(v);
        return 0;
    }
    if (PyFloat_Check(value)) {
        *out = ct_scalar_float(PyFloat_AS_DOUBLE(value));
        return 0;
    }
    PyErr_Format(PyExc_TypeError, "can't assign a %s to a torch.%sTensor",
                 Py_TYPE(value)->tp_name, ct_dtype_table[dtype].legacy);
    return -1;
}

/* t[index] = tensor: the value loses its leading size-1 dims, then is
 * expanded to the destination's shape (torch's copy_to), so the errors
 * are expand's. */
static int
setitem_tensor(ct_tensor *dst, const ct_tensor *value)
{
    int skip = 0;
    while (skip < value->ndim && value->sizes[skip] == 1) {
        skip++;
    }
    ct_tensor *src = ct_tensor_view_of(value, value->offset, value->ndim - skip,
                                       value->sizes + skip, value->strides + skip);
    if (src == NULL) {
        return -1;
    }
    ct_tensor *e = ct_expand(src, dst->ndim, dst->sizes);
    ct_tensor_decref(src);
    if (e == NULL) {
        return -1;
    }
    int rc = ct_copy_(dst, e);
    ct_tensor_decref(e);
    return rc;
}

int
ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value)
{
    ct_scalar s;
    int rc;

    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    if (!ctpy_is_tensor(value) && setitem_scalar(value, ctpy_tensor(self)->dtype, &s) < 0) {
        return -1;
    }
    ct_tensor *v = basic_view(ctpy_tensor(self), index);
    if (v == NULL) {
        return -1;
    }
    if (ctpy_is_tensor(value)) {
        rc = setitem_tensor(v, ctpy_tensor(value));
    }
    else {
        rc = ct_fill_(v, s);
    }
    if (rc == 0) {
        ctpy_bump(v);
    }
    ct_tensor_decref(v);
    return rc < 0 ? ctpy_raise_int() : 0;
}
