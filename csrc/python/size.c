/* csrc/python/size.c -- torch.Size, a tuple subclass of ints. */
#include "argparse.h"

PyObject *
ctpy_size_new(int ndim, const int64_t *sizes)
{
    PyObject *s = PyTuple_Type.tp_alloc(&CtSize_Type, ndim);
    if (s == NULL) {
        return NULL;
    }
    for (int i = 0; i < ndim; i++) {
        PyObject *v = PyLong_FromLongLong(sizes[i]);
        if (v == NULL) {
            Py_DECREF(s);
            return NULL;
        }
        PyTuple_SET_ITEM(s, i, v);
    }
    return s;
}

static PyObject *
size_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *seq = NULL;
    int64_t vals[CT_MAX_DIMS];

    (void)type;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        PyErr_SetString(PyExc_TypeError, "torch.Size() takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_UnpackTuple(args, "Size", 0, 1, &seq)) {
        return NULL;
    }
    if (seq == NULL) {
        return ctpy_size_new(0, NULL);
    }
    /* tuple(seq) first, so a non-iterable fails with tuple's message */
    PyObject *fast = PySequence_Tuple(seq);
    if (fast == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > CT_MAX_DIMS) {
        Py_DECREF(fast);
        PyErr_SetString(PyExc_ValueError, "torch.Size(): too many dimensions");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(fast, i);
        int rc = ctpy_to_int64(it, &vals[i]);
        if (rc != 0) {
            if (rc > 0) {
                PyErr_Format(PyExc_TypeError, "torch.Size() takes an iterable of "
                             "'int' (item %zd is '%s')", i, Py_TYPE(it)->tp_name);
            }
            Py_DECREF(fast);
            return NULL;
        }
    }
    Py_DECREF(fast);
    return ctpy_size_new((int)n, vals);
}

static PyObject *
size_repr(PyObject *self)
{
    PyObject *list = PySequence_List(self);
    if (list == NULL) {
        return NULL;
    }
    PyObject *r = PyUnicode_FromFormat("%s.Size(%R)", ctpy_name_prefix, list);
    Py_DECREF(list);
    return r;
}

static PyObject *
size_numel(PyObject *self, PyObject *unused)
{
    (void)unused;
    int64_t n = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); i++) {
        n *= PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
    }
    return PyLong_FromLongLong(n);
}

static PyObject *
size_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *t = PySequence_Tuple(self);
    if (t == NULL) {
        return NULL;
    }
    PyObject *ctor = ctpy_pickle_constructor(&CtSize_Type, "Size", "_rebuild_size");
    if (ctor == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    return Py_BuildValue("(N(N))", ctor, t);
}

/* A tuple result as a Size (new reference; steals nothing). */
static PyObject *
as_size(PyObject *tuple)
{
    if (tuple == NULL) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    PyObject *s = PyTuple_Type.tp_alloc(&CtSize_Type, n);
    if (s != NULL) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyTuple_SET_ITEM(s, i, Py_NewRef(PyTuple_GET_ITEM(tuple, i)));
        }
    }
    Py_DECREF(tuple);
    return s;
}

/* Size + tuple and Size * n are Sizes (torch.Size's sq_concat/sq_repeat);
 * tuple + Size stays a tuple. */
static PyObject *
size_concat(PyObject *self, PyObject *other)
{
    return as_size(PyTuple_Type.tp_as_sequence->sq_concat(self, other));
}

static PyObject *
size_repeat(PyObject *self, Py_ssize_t n)
{
    return as_size(PyTuple_Type.tp_as_sequence->sq_repeat(self, n));
}

static PySequenceMethods size_as_sequence = {
    .sq_concat = size_concat,
    .sq_repeat = size_repeat,
};

/* Slices of a Size are Sizes. */
static PyObject *
size_subscript(PyObject *self, PyObject *key)
{
    PyObject *r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
    if (r == NULL || !PySlice_Check(key)) {
        return r;
    }
    PyObject *s = PyTuple_Type.tp_alloc(&CtSize_Type, PyTuple_GET_SIZE(r));
    if (s != NULL) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(r); i++) {
            PyTuple_SET_ITEM(s, i, Py_NewRef(PyTuple_GET_ITEM(r, i)));
        }
    }
    Py_DECREF(r);
    return s;
}

static PyMappingMethods size_as_mapping = {
    .mp_subscript = size_subscript,
};

static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, "Number of elements a tensor of this size has."},
    {"__reduce__", size_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject CtSize_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch.Size",
    .tp_basicsize = 0,
    .tp_repr = size_repr,
    .tp_as_sequence = &size_as_sequence,
    .tp_as_mapping = &size_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_TUPLE_SUBCLASS,
    .tp_methods = size_methods,
    .tp_new = size_new,
};
