/* csrc/python/storage.c -- _C.StorageBase: a handle on a ct_storage (one
 * owned reference).  The torch.TypedStorage / UntypedStorage surface is in
 * python/ctorch/storage.py. */
#include "argparse.h"

typedef struct {
    PyObject_HEAD
    ct_storage *s;
} CtStorageObject;

PyObject *
ctpy_storage_new(ct_storage *s)
{
    CtStorageObject *o = PyObject_New(CtStorageObject, &CtStorage_Type);
    if (o != NULL) {
        ct_storage_incref(s);
        o->s = s;
    }
    return (PyObject *)o;
}

ct_storage *
ctpy_storage_of(PyObject *o)
{
    return ((CtStorageObject *)o)->s;
}

static void
storage_dealloc(CtStorageObject *self)
{
    ct_storage_decref(self->s);
    PyObject_Free(self);
}

static PyObject *
storage_data_ptr(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromVoidPtr(self->s->data);
}

static PyObject *
storage_nbytes(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromSize_t(self->s->nbytes);
}

static PyObject *
storage_device(CtStorageObject *self, void *c)
{
    (void)c;
    return ctpy_device_new(self->s->device.type == CT_DEVICE_CPU ? ct_device_cpu()
                                                                 : self->s->device);
}

/* _as_tensor(dtype): the whole storage as a 1-D tensor of dtype. */
static PyObject *
storage_as_tensor(CtStorageObject *self, PyObject *dtype_obj)
{
    ct_dtype d;
    if (ctpy_to_dtype(dtype_obj, &d) != 0) {
        PyErr_SetString(PyExc_TypeError, "_as_tensor expects a dtype");
        return NULL;
    }
    int64_t n = (int64_t)(self->s->nbytes / ct_dtype_itemsize(d)), one = 1;
    return ctpy_result(ct_tensor_new(self->s, 0, 1, &n, &one, d));
}

static PyObject *
storage_is_shared(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(self->s->flags & CT_STORAGE_SHARED);
}

static PyObject *
storage_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!Py_IS_TYPE(b, &CtStorage_Type) || (op != Py_EQ && op != Py_NE)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    bool eq = ((CtStorageObject *)a)->s == ((CtStorageObject *)b)->s;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t
storage_hash(CtStorageObject *self)
{
    return _Py_HashPointer(self->s);
}

static PyMethodDef storage_methods[] = {
    {"data_ptr", (PyCFunction)storage_data_ptr, METH_NOARGS, NULL},
    {"nbytes", (PyCFunction)storage_nbytes, METH_NOARGS, NULL},
    {"_as_tensor", (PyCFunction)storage_as_tensor, METH_O, NULL},
    {"is_shared", (PyCFunction)storage_is_shared, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef storage_getset[] = {
    {"device", (getter)storage_device, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject CtStorage_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "torch._C.StorageBase",
    .tp_basicsize = sizeof(CtStorageObject),
    .tp_dealloc = (destructor)storage_dealloc,
    .tp_hash = (hashfunc)storage_hash,
    .tp_richcompare = storage_richcompare,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = storage_methods,
    .tp_getset = storage_getset,
};
