/* csrc/python/return_types.c -- torch.return_types.<op> named tuples
 * (values, indices) shared by the op families, and the method-from-function
 * adapter they use. */
#include "argparse.h"

#include <string.h>

#define MAX_TYPES 32

static struct {
    const char *name;
    PyTypeObject *type;         /* owned for the process */
} registry[MAX_TYPES];
static int registered;

static PyStructSequence_Field fields[] = {
    {"values", NULL},
    {"indices", NULL},
    {NULL, NULL},
};

/* torch's repr: name(\nvalues=...,\nindices=...) */
static PyObject *
pair_repr(PyObject *self)
{
    return PyUnicode_FromFormat("%s(\nvalues=%R,\nindices=%R)", Py_TYPE(self)->tp_name,
                                PyStructSequence_GET_ITEM(self, 0),
                                PyStructSequence_GET_ITEM(self, 1));
}

/* The named-tuple type called `name` ("torch.return_types.max"), made on
 * first use; borrowed. */
static PyTypeObject *
pair_type(const char *name)
{
    for (int i = 0; i < registered; i++) {
        if (strcmp(registry[i].name, name) == 0) {
            return registry[i].type;
        }
    }
    CT_ASSERT(registered < MAX_TYPES);
    PyStructSequence_Desc desc = {name, NULL, fields, 2};
    PyTypeObject *tp = PyStructSequence_NewType(&desc);
    if (tp == NULL) {
        return NULL;
    }
    tp->tp_repr = pair_repr;
    registry[registered].name = name;
    registry[registered].type = tp;
    registered++;
    return tp;
}

PyObject *
ctpy_return_pair(const char *name, int rc, ct_tensor *values, ct_tensor *indices)
{
    PyObject *r = NULL, *v = NULL, *i = NULL;
    PyTypeObject *tp;
    if (rc < 0) {
        return ctpy_raise();
    }
    if ((tp = pair_type(name)) == NULL || (v = ctpy_wrap(values)) == NULL ||
        (i = ctpy_wrap(indices)) == NULL || (r = PyStructSequence_New(tp)) == NULL) {
        goto done;
    }
    PyStructSequence_SET_ITEM(r, 0, v);
    PyStructSequence_SET_ITEM(r, 1, i);
    v = i = NULL;
done:
    Py_XDECREF(v);
    Py_XDECREF(i);
    ct_tensor_decref(values);
    ct_tensor_decref(indices);
    return r;
}

PyObject *
ctpy_with_self(ctpy_impl_fn impl, PyObject *self, PyObject *const *args,
               Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *buf[40];
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs + nkw + 1 > (Py_ssize_t)(sizeof buf / sizeof buf[0])) {
        PyErr_SetString(PyExc_TypeError, "too many arguments");
        return NULL;
    }
    buf[0] = self;
    for (Py_ssize_t k = 0; k < nargs + nkw; k++) {
        buf[k + 1] = args[k];
    }
    return impl(buf, nargs + 1, kwnames);
}
