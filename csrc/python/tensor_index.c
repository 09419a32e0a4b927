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
            if (!is_basic_int(it) && !PySlice_Check(it) && !PyIndex_Check(it)) {
                Py_DECREF(items);
                if (ctpy_is_tensor(it) || PyList_Check(it) || PyTuple_Check(it)) {
                    PyErr_SetString(PyExc_NotImplementedError, "indexing with tensors "
                                    "or lists (advanced indexing) is not supported "
                                    "yet");
                }
                else {
                    PyErr_SetString(PyExc_IndexError, "only integers, slices "
                                    "(`:`), ellipsis (`...`), None and long or byte "
                                    "Variables are valid indices (got str)");
                }
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

int
ctpy_tensor_setitem(PyObject *self, PyObject *index, PyObject *value)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_TypeError, "Tensor does not support deleting items");
        return -1;
    }
    ct_tensor *v = basic_view(ctpy_tensor(self), index);
    int rc;
    if (v == NULL) {
        return -1;
    }
    if (ctpy_is_tensor(value)) {
        rc = ct_copy_(v, ctpy_tensor(value));
    }
    else {
        ct_scalar s;
        rc = ctpy_to_scalar(value, &s);
        if (rc != 0) {
            ct_tensor_decref(v);
            if (rc > 0) {
                ct_tensor *src = ctpy_tensor_from_data(value, ctpy_tensor(self)->dtype,
                                                       true, false);
                if (src == NULL) {
                    return PyErr_Occurred() ? -1 : ctpy_raise_int();
                }
                v = basic_view(ctpy_tensor(self), index);
                rc = v ? ct_copy_(v, src) : -1;
                ct_tensor_decref(src);
                ct_tensor_decref(v);
                return rc < 0 && !PyErr_Occurred() ? ctpy_raise_int() : rc;
            }
            return -1;
        }
        rc = ct_fill_(v, s);
    }
    ct_tensor_decref(v);
    return rc < 0 ? ctpy_raise_int() : 0;
}
