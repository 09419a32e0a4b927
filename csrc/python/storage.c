/* csrc/python/storage.c -- _C.StorageBase: a handle on a ct_storage (one
 * owned reference).  The torch.TypedStorage / UntypedStorage surface is in
 * python/ctorch/storage.py. */
#include "argparse.h"

#include <ctorch/shm.h>

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

/* "[2, 3]" for PyTorch's messages. */
static void
format_ints(char *buf, size_t cap, int n, const int64_t *v)
{
    size_t len = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && len < cap; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "",
                                (long long)v[i]);
    }
    if (len < cap) {
        snprintf(buf + len, cap - len, "]");
    }
}

/* _tensor(dtype, storage_offset, size, stride, q_scale=None,
 * q_zero_point=None): a tensor of that geometry over this storage, not a
 * view of anything (what torch's set_ gives torch._utils._rebuild_tensor),
 * with PyTorch's bounds check: the geometry comes from files that
 * torch.load reads, so no value may reach past the storage.  Quantized
 * dtypes take their per-tensor scale and zero point. */
static PyObject *
storage_tensor(CtStorageObject *self, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    static ctpy_sig sig = CTPY_SIG("_tensor(ScalarType dtype, int storage_offset, "
                                   "int[] size, int[] stride, float? q_scale=None, "
                                   "int? q_zero_point=None)");
    ctpy_arg v[6];
    char a[512], b[512];

    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_dtype d = v[0].dtype;
    int64_t offset = v[1].i, item = (int64_t)ct_dtype_itemsize(d);
    int ndim = v[2].n;
    const int64_t *size = v[2].list, *stride = v[3].list;
    if (v[3].n != ndim) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    if (offset < 0) {
        PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld",
                     (long long)offset);
        return NULL;
    }
    /* bytes the geometry reaches: 0 for an empty tensor, else
     * itemsize * (1 + sum (size - 1) * stride) */
    int64_t span = 1;
    bool empty = false, overflow = false;
    for (int i = 0; i < ndim; i++) {
        if (size[i] < 0) {
            format_ints(a, sizeof a, ndim, size);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative "
                         "dimension %lld: %s", (long long)size[i], a);
            return NULL;
        }
        if (stride[i] < 0) {
            format_ints(a, sizeof a, ndim, stride);
            PyErr_Format(PyExc_RuntimeError, "as_strided: Negative strides are not "
                         "supported at the moment, got strides: %s", a);
            return NULL;
        }
        empty = empty || size[i] == 0;
    }
    for (int i = 0; i < ndim && !empty; i++) {
        int64_t step;
        overflow = overflow || __builtin_mul_overflow(size[i] - 1, stride[i], &step) ||
                   __builtin_add_overflow(span, step, &span);
    }
    int64_t need = 0, off_bytes = 0;
    if (!empty) {
        overflow = overflow || __builtin_mul_overflow(span, item, &need) ||
                   __builtin_mul_overflow(offset, item, &off_bytes) ||
                   __builtin_add_overflow(need, off_bytes, &need);
    }
    if (overflow || (!empty && need > (int64_t)self->s->nbytes)) {
        format_ints(a, sizeof a, ndim, size);
        format_ints(b, sizeof b, ndim, stride);
        if (overflow) {
            PyErr_Format(PyExc_RuntimeError,
                         "setStorage: sizes %s, strides %s, storage offset %lld, and "
                         "itemsize %lld overflow",
                         a, b, (long long)offset, (long long)item);
        }
        else {
            PyErr_Format(PyExc_RuntimeError,
                         "setStorage: sizes %s, strides %s, storage offset %lld, and "
                         "itemsize %lld requiring a storage size of %lld are out of "
                         "bounds for storage of size %lld",
                         a, b, (long long)offset, (long long)item, (long long)need,
                         (long long)self->s->nbytes);
        }
        return NULL;
    }
    ct_tensor *t = ct_tensor_new(self->s, offset, ndim, size, stride, d);
    if (t != NULL && ct_dtype_table[d].is_quantized) {
        t->q_scale = v[4].is_none ? 1.0 : v[4].d;
        t->q_zero_point = v[5].is_none ? 0 : v[5].i;
    }
    return ctpy_result(t);
}

static PyObject *
storage_is_shared(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(self->s->flags & CT_STORAGE_SHARED);
}

/* _share_(kind): move into shared memory, kind 0 a descriptor, 1 a name
 * (ctorch/shm.h).  Returns self. */
static PyObject *
storage_share(CtStorageObject *self, PyObject *arg)
{
    long kind = PyLong_AsLong(arg);
    if (kind == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = ct_storage_share(self->s, kind ? CT_SHM_NAME : CT_SHM_FD);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        return ctpy_raise();
    }
    return Py_NewRef(self);
}

/* _shm_handle(): the descriptor (int) or the name (str) of a shared
 * storage, None if it is not shared. */
static PyObject *
storage_shm_handle(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    int fd = ct_storage_shm_fd(self->s);
    const char *name = ct_storage_shm_name(self->s);
    if (fd >= 0) {
        return PyLong_FromLong(fd);
    }
    if (name != NULL) {
        return PyUnicode_FromString(name);
    }
    Py_RETURN_NONE;
}

/* A handle taking over the new reference s (NULL: the ct error raised). */
static PyObject *
storage_result(ct_storage *s)
{
    if (s == NULL) {
        return ctpy_raise();
    }
    PyObject *o = ctpy_storage_new(s);
    ct_storage_decref(s);
    return o;
}

/* StorageBase._new_shared(nbytes, kind): fresh shared memory. */
static PyObject *
storage_new_shared(PyObject *cls, PyObject *args)
{
    Py_ssize_t nbytes;
    int kind;
    (void)cls;
    if (!PyArg_ParseTuple(args, "ni:_new_shared", &nbytes, &kind)) {
        return NULL;
    }
    if (nbytes < 0) {
        PyErr_SetString(PyExc_ValueError, "_new_shared: negative size");
        return NULL;
    }
    ct_storage *s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_storage_new_shared((size_t)nbytes, kind ? CT_SHM_NAME : CT_SHM_FD);
    Py_END_ALLOW_THREADS
    return storage_result(s);
}

static PyObject *
storage_shm_incref(CtStorageObject *self, PyObject *unused)
{
    (void)unused;
    if (ct_storage_shm_incref(self->s) != 0) {
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

/* StorageBase._from_shm(handle, nbytes): map a segment another process
 * shared, by descriptor (borrowed) or by name. */
static PyObject *
storage_from_shm(PyObject *cls, PyObject *args)
{
    PyObject *handle;
    Py_ssize_t nbytes;
    if (!PyArg_ParseTuple(args, "On:_from_shm", &handle, &nbytes)) {
        return NULL;
    }
    if (nbytes < 0) {
        PyErr_SetString(PyExc_ValueError, "_from_shm: negative size");
        return NULL;
    }
    (void)cls;
    ct_storage *s = NULL;
    if (PyUnicode_Check(handle)) {
        const char *name = PyUnicode_AsUTF8(handle);
        if (name == NULL) {
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        s = ct_storage_from_shm_name(name, (size_t)nbytes);
        Py_END_ALLOW_THREADS
    }
    else {
        int fd = PyObject_AsFileDescriptor(handle);
        if (fd < 0) {
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        s = ct_storage_from_shm_fd(fd, (size_t)nbytes);
        Py_END_ALLOW_THREADS
    }
    return storage_result(s);
}

/* StorageBase._shm_cleanup(at_exit): unlink the segment names of dead
 * processes (and this one's at exit); how many. */
static PyObject *
storage_shm_cleanup(PyObject *cls, PyObject *arg)
{
    (void)cls;
    return PyLong_FromLong(ct_shm_cleanup(PyObject_IsTrue(arg)));
}

static PyObject *
storage_shm_live(PyObject *cls, PyObject *unused)
{
    (void)cls;
    (void)unused;
    return PyLong_FromLong(ct_shm_live_segments());
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
    CTPY_METH("_tensor", storage_tensor, NULL),
    {"is_shared", (PyCFunction)storage_is_shared, METH_NOARGS, NULL},
    {"_share_", (PyCFunction)storage_share, METH_O, NULL},
    {"_shm_incref", (PyCFunction)storage_shm_incref, METH_NOARGS, NULL},
    {"_shm_handle", (PyCFunction)storage_shm_handle, METH_NOARGS, NULL},
    {"_new_shared", (PyCFunction)storage_new_shared, METH_VARARGS | METH_CLASS, NULL},
    {"_from_shm", (PyCFunction)storage_from_shm, METH_VARARGS | METH_CLASS, NULL},
    {"_shm_cleanup", (PyCFunction)storage_shm_cleanup, METH_O | METH_CLASS, NULL},
    {"_shm_live_segments", (PyCFunction)storage_shm_live, METH_NOARGS | METH_CLASS, NULL},
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
