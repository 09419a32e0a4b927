/* csrc/python/device.c -- torch.device. */
#include "argparse.h"

PyObject *
ctpy_device_new(ct_device d)
{
    CtDeviceObject *o = PyObject_New(CtDeviceObject, &CtDevice_Type);
    if (o != NULL) {
        o->device = d;
    }
    return (PyObject *)o;
}

/* device(str) | device(type: str, index: int) | device(int) */
static PyObject *
device_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *kwlist[] = {"type", "index", NULL};
    PyObject *what, *index = Py_None;
    ct_device d;

    (void)type;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O:device", kwlist, &what,
                                     &index)) {
        return NULL;
    }
    if (Py_IS_TYPE(what, &CtDevice_Type) && index == Py_None) {
        return Py_NewRef(what);
    }
    int rc = ctpy_to_device(what, &d);
    if (rc != 0) {
        if (rc > 0) {
            PyErr_Format(PyExc_TypeError, "Device() received an invalid combination "
                         "of arguments - got (%s), but expected one of:\n"
                         " * (torch.device device)\n * (str type, int index)\n",
                         Py_TYPE(what)->tp_name);
        }
        return NULL;
    }
    if (index != Py_None) {
        int64_t i;
        if (d.index >= 0) {
            PyErr_Format(PyExc_RuntimeError, "type (string) must not include an "
                         "index because index was passed explicitly: %U", what);
            return NULL;
        }
        if (ctpy_to_int64(index, &i) != 0) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_TypeError, "Device(): argument 'index' (position "
                             "2) must be int, not %s", Py_TYPE(index)->tp_name);
            }
            return NULL;
        }
        if (i < 0) {
            PyErr_Format(PyExc_RuntimeError, "Device index must not be negative");
            return NULL;
        }
        d.index = (int)i;
    }
    return ctpy_device_new(d);
}

static PyObject *
device_repr(CtDeviceObject *self)
{
    const char *name = ct_device_type_name(self->device.type);
    if (self->device.index >= 0) {
        return PyUnicode_FromFormat("device(type='%s', index=%d)", name,
                                    self->device.index);
    }
    return PyUnicode_FromFormat("device(type='%s')", name);
}

static PyObject *
device_str(CtDeviceObject *self)
{
    const char *name = ct_device_type_name(self->device.type);
    if (self->device.index >= 0) {
        return PyUnicode_FromFormat("%s:%d", name, self->device.index);
    }
    return PyUnicode_FromString(name);
}

static PyObject *
device_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!Py_IS_TYPE(b, &CtDevice_Type) || (op != Py_EQ && op != Py_NE)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    bool eq = ct_device_eq(((CtDeviceObject *)a)->device, ((CtDeviceObject *)b)->device);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t
device_hash(CtDeviceObject *self)
{
    return (Py_hash_t)(self->device.type * 1000 + self->device.index + 1);
}

static PyObject *
device_type(CtDeviceObject *self, void *c)
{
    (void)c;
    return PyUnicode_FromString(ct_device_type_name(self->device.type));
}

static PyObject *
device_index(CtDeviceObject *self, void *c)
{
    (void)c;
    if (self->device.index < 0) {
        Py_RETURN_NONE;
    }
    return PyLong_FromLong(self->device.index);
}

static PyObject *
device_reduce(CtDeviceObject *self, PyObject *unused)
{
    (void)unused;
    const char *name = ct_device_type_name(self->device.type);
    PyObject *ctor = ctpy_pickle_constructor(&CtDevice_Type, "device",
                                             "_rebuild_device");
    if (ctor == NULL) {
        return NULL;
    }
    if (self->device.index >= 0) {
        return Py_BuildValue("(N(si))", ctor, name, self->device.index);
    }
    return Py_BuildValue("(N(s))", ctor, name);
}

static PyGetSetDef device_getset[] = {
    {"type", (getter)device_type, NULL, NULL, NULL},
    {"index", (getter)device_index, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef device_methods[] = {
    {"__reduce__", (PyCFunction)device_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

PyTypeObject CtDevice_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch.device",
    .tp_basicsize = sizeof(CtDeviceObject),
    .tp_repr = (reprfunc)device_repr,
    .tp_str = (reprfunc)device_str,
    .tp_hash = (hashfunc)device_hash,
    .tp_richcompare = device_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = device_methods,
    .tp_getset = device_getset,
    .tp_new = device_new,
};
