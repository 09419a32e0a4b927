/* csrc/python/return_types.c -- torch.return_types.<op> named tuples
 * (values, indices) shared by the op families, and the method-from-function
 * adapter they use.
 *
 * Note [Pickling return types]
 * The types are PyStructSequence types named "torch.return_types.<op>", so
 * that the repr reads as torch's in every mode.  Their __reduce__ gives
 * (type, (fields, {})), and pickle stores the type by __module__ and
 * __qualname__: ctorch.return_types (python/ctorch/return_types.py) asks
 * for every type at import through _return_types(module) and sets that
 * __module__ on each -- "ctorch.return_types", or "torch.return_types"
 * under ctorchrun, where torch.return_types is the same module -- so a
 * pickled result loads back as the same type, and one written under
 * ctorchrun names torch's type.
 */
#include "argparse.h"

#include <string.h>

#define PREFIX "torch.return_types."
#define MAX_TYPES 64

/* The pairs torch 1.13 has; more may be registered by a binding's first
 * use (and then reach ctorch.return_types through its __getattr__). */
#define FORALL_PAIR_TYPES(X) \
    X(max) X(min) X(median) X(nanmedian) X(mode) X(cummax) X(cummin) X(sort) \
    X(topk) X(kthvalue)

static struct {
    const char *name;           /* PREFIX "<op>" */
    PyTypeObject *type;         /* made on first use, owned for the process */
} registry[MAX_TYPES] = {
#define X(N) {PREFIX #N, NULL}, {PREFIX #N "_out", NULL},
    FORALL_PAIR_TYPES(X)
#undef X
};
enum {
#define X(N) KNOWN_##N,
    FORALL_PAIR_TYPES(X)
#undef X
    KNOWN_COUNT
};
static int registered = 2 * KNOWN_COUNT;      /* each op and its _out */
static char module_name[64] = "ctorch.return_types";

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

/* Registry entry i's type, made on first use; borrowed. */
static PyTypeObject *
entry_type(int i)
{
    if (registry[i].type != NULL) {
        return registry[i].type;
    }
    PyStructSequence_Desc desc = {registry[i].name, NULL, fields, 2};
    PyTypeObject *tp = PyStructSequence_NewType(&desc);
    if (tp == NULL) {
        return NULL;
    }
    tp->tp_repr = pair_repr;
    PyObject *m = PyUnicode_FromString(module_name);
    if (m == NULL || PyObject_SetAttrString((PyObject *)tp, "__module__", m) < 0) {
        Py_XDECREF(m);
        Py_DECREF(tp);
        return NULL;
    }
    Py_DECREF(m);
    registry[i].type = tp;
    return tp;
}

/* The named-tuple type called `name` ("torch.return_types.max"); borrowed.
 * `name` must live for the process (a literal). */
static PyTypeObject *
pair_type(const char *name)
{
    int i = 0;
    while (i < registered && strcmp(registry[i].name, name) != 0) {
        i++;
    }
    if (i == registered) {
        CT_ASSERT(registered < MAX_TYPES && strncmp(name, PREFIX, strlen(PREFIX)) == 0);
        registry[registered++].name = name;
    }
    return entry_type(i);
}

PyObject *
ctpy_return_types(PyObject *mod, PyObject *module)
{
    (void)mod;
    const char *m = PyUnicode_AsUTF8(module);
    PyObject *d;
    if (m == NULL) {
        return NULL;
    }
    if (strlen(m) >= sizeof module_name) {
        PyErr_SetString(PyExc_ValueError, "module name too long");
        return NULL;
    }
    strcpy(module_name, m);
    if ((d = PyDict_New()) == NULL) {
        return NULL;
    }
    for (int i = 0; i < registered; i++) {
        PyTypeObject *tp = entry_type(i);
        if (tp == NULL ||
            PyObject_SetAttrString((PyObject *)tp, "__module__", module) < 0 ||
            PyDict_SetItemString(d, registry[i].name + strlen(PREFIX),
                                 (PyObject *)tp) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
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
