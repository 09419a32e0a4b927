/* csrc/python/dtype.c -- torch.dtype: one immortal singleton per dtype. */
#include "ctpy.h"

#include <structmember.h>

static CtDtypeObject dtype_objects[CT_DTYPE_COUNT];

PyObject *
ctpy_dtype_obj(ct_dtype d)
{
    return (PyObject *)&dtype_objects[d];
}

/* The singletons are static: never freed, even if a refcount bug reached 0. */
static void
dtype_dealloc(PyObject *self)
{
    Py_SET_REFCNT(self, 1);
}

static PyObject *
dtype_repr(CtDtypeObject *self)
{
    return PyUnicode_FromFormat("%s.%s", ctpy_name_prefix,
                                ct_dtype_table[self->dtype].name);
}

static PyObject *
dtype_reduce(CtDtypeObject *self, PyObject *unused)
{
    (void)unused;
    return PyUnicode_FromString(ct_dtype_table[self->dtype].name);
}

static PyObject *
dtype_is_floating(CtDtypeObject *self, void *c)
{
    (void)c;
    return PyBool_FromLong(ct_dtype_is_floating(self->dtype));
}

static PyObject *
dtype_is_signed(CtDtypeObject *self, void *c)
{
    (void)c;
    if (ct_dtype_table[self->dtype].is_quantized) {
        PyErr_SetString(PyExc_RuntimeError, "isSignedType not supported for quantized "
                        "types");
        return NULL;
    }
    return PyBool_FromLong(ct_dtype_table[self->dtype].is_signed);
}

static PyObject *
dtype_false(CtDtypeObject *self, void *c)
{
    (void)self;
    (void)c;
    Py_RETURN_FALSE;
}

static PyObject *
dtype_itemsize(CtDtypeObject *self, void *c)
{
    (void)c;
    return PyLong_FromSize_t(ct_dtype_itemsize(self->dtype));
}

/* The module pickle records for a dtype (whose __reduce__ gives its name):
 * "torch" when torch.<name> is this object (under ctorchrun), else
 * "ctorch".  Without it pickle would search every module for the name. */
static PyObject *
dtype_module(CtDtypeObject *self, void *c)
{
    (void)c;
    int torch = ctpy_torch_has(ct_dtype_table[self->dtype].name, (PyObject *)self);
    if (torch < 0) {
        return NULL;
    }
    return PyUnicode_FromString(torch ? "torch" : "ctorch");
}

static PyGetSetDef dtype_getset[] = {
    {"__module__", (getter)dtype_module, NULL, NULL, NULL},
    {"is_floating_point", (getter)dtype_is_floating, NULL, NULL, NULL},
    {"is_signed", (getter)dtype_is_signed, NULL, NULL, NULL},
    {"is_complex", (getter)dtype_false, NULL, NULL, NULL},
    {"itemsize", (getter)dtype_itemsize, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef dtype_methods[] = {
    {"__reduce__", (PyCFunction)dtype_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject CtDtype_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch.dtype",
    .tp_basicsize = sizeof(CtDtypeObject),
    .tp_dealloc = dtype_dealloc,
    .tp_repr = (reprfunc)dtype_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = dtype_methods,
    .tp_getset = dtype_getset,
};

/* Expose every dtype under its name and torch's aliases (float, long...). */
int
ctpy_dtype_add_to_module(PyObject *m)
{
    for (int i = 0; i < CT_DTYPE_COUNT; i++) {
        PyObject *o = (PyObject *)&dtype_objects[i];
        Py_SET_TYPE(o, &CtDtype_Type);
        Py_SET_REFCNT(o, 1);
        dtype_objects[i].dtype = (ct_dtype)i;
        if (PyModule_AddObjectRef(m, ct_dtype_table[i].name, o) < 0) {
            return -1;
        }
        if (ct_dtype_table[i].alias != NULL &&
            PyModule_AddObjectRef(m, ct_dtype_table[i].alias, o) < 0) {
            return -1;
        }
    }
    return 0;
}
