/* csrc/python/dist_store.c -- the c10d stores as Python types:
 * _C.Store (the base), _C.TCPStore, _C.FileStore, _C.HashStore and
 * _C.PrefixStore, over include/ctorch/c10d_store.h.
 *
 * Each object owns one reference to its ct_store.  A class written in
 * Python that derives from Store directly has none: C code that needs one
 * (a PrefixStore over it, a process group) gets a proxy store whose
 * operations call the object's methods under the GIL (ctpy_store_ref).
 * Every operation runs with the GIL released: get and wait block, and even
 * set is a network round trip.
 *
 * PyTorch binds these classes with pybind11, so argument errors here copy
 * pybind11's "incompatible function arguments" TypeError rather than the
 * torch-function wording of argparse.c; values are str or bytes (bytes
 * come back), timeouts datetime.timedelta (a float of seconds is taken
 * too, as pybind11's chrono caster does).
 */
#include "ctpy.h"

#include <datetime.h>

#include <ctorch/c10d_store.h>

typedef struct {
    PyObject_HEAD
    ct_store *store;            /* owned; NULL for a Python subclass of Store */
    PyObject *underlying;       /* PrefixStore: the store object under it */
    PyObject *host;             /* TCPStore: host_name as given */
    PyObject *path;             /* FileStore: file_name */
    int64_t timeout_ms;         /* a Python subclass of Store: its timeout */
} CtStoreObject;

PyTypeObject CtStore_Type;
static PyTypeObject CtTCPStore_Type, CtFileStore_Type, CtHashStore_Type,
    CtPrefixStore_Type;

#define DEFAULT_TIMEOUT_MS 300000

/* ---- errors ----------------------------------------------------------- */

/* A Python exception raised inside a proxy store's method, kept for the
 * binding that called into C on the same thread, which re-raises it as it
 * was (pybind11 carries it through C++ the same way). */
static _Thread_local PyObject *stashed_exc;

/* The ct error (or a stashed Python exception) as a Python exception;
 * returns NULL.  A client that never reached its master gets TimeoutError,
 * as from PyTorch. */
static PyObject *
store_error(void)
{
    if (stashed_exc != NULL) {
        PyObject *exc = stashed_exc;
        stashed_exc = NULL;
        PyErr_Restore(Py_NewRef((PyObject *)Py_TYPE(exc)), exc,
                      PyException_GetTraceback(exc));
        ct_error_clear();
        return NULL;
    }
    const char *msg = ct_error_message();
    if (strncmp(msg, CT_STORE_CONNECT_TIMEOUT_TEXT,
                strlen(CT_STORE_CONNECT_TIMEOUT_TEXT)) == 0) {
        PyErr_SetString(PyExc_TimeoutError, msg);
        ct_error_clear();
        return NULL;
    }
    return ctpy_raise();
}

/* pybind11's TypeError for a call that matches no signature: `sigs` lists
 * them ("    1. (...) -> None\n"), self is NULL for a constructor. */
static PyObject *
bad_args(const char *fname, const char *sigs, PyObject *self, PyObject *const *args,
         Py_ssize_t nargs, PyObject *kwnames)
{
    PyObject *parts = PyList_New(0), *sep = NULL, *joined = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (parts == NULL) {
        return NULL;
    }
    if (self != NULL) {
        PyObject *r = PyObject_Repr(self);
        if (r == NULL || PyList_Append(parts, r) < 0) {
            Py_XDECREF(r);
            goto done;
        }
        Py_DECREF(r);
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *r = PyObject_Repr(args[i]);
        if (r == NULL || PyList_Append(parts, r) < 0) {
            Py_XDECREF(r);
            goto done;
        }
        Py_DECREF(r);
    }
    if ((sep = PyUnicode_FromString(", ")) == NULL ||
        (joined = PyUnicode_Join(sep, parts)) == NULL) {
        goto done;
    }
    if (nkw > 0) {
        PyObject *kw = PyList_New(0);
        if (kw == NULL) {
            goto done;
        }
        for (Py_ssize_t k = 0; k < nkw; k++) {
            PyObject *r = PyUnicode_FromFormat("%U=%R", PyTuple_GET_ITEM(kwnames, k),
                                               args[nargs + k]);
            if (r == NULL || PyList_Append(kw, r) < 0) {
                Py_XDECREF(r);
                Py_DECREF(kw);
                goto done;
            }
            Py_DECREF(r);
        }
        PyObject *kws = PyUnicode_Join(sep, kw);
        Py_DECREF(kw);
        if (kws == NULL) {
            goto done;
        }
        PyObject *all = PyUnicode_FromFormat("%U; kwargs: %U", joined, kws);
        Py_DECREF(kws);
        Py_SETREF(joined, all);
        if (joined == NULL) {
            goto done;
        }
    }
    PyErr_Format(PyExc_TypeError,
                 "%s(): incompatible %s arguments. The following argument types are "
                 "supported:\n%s\nInvoked with: %U",
                 fname, self ? "function" : "constructor", sigs, joined);
done:
    Py_DECREF(parts);
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    return NULL;
}

/* ---- argument conversion (0 ok, 1 no match, -1 exception) ------------- */

/* A str, bytes or bytearray as bytes the call may use without the GIL.
 * *keep holds what must live as long as the pointer (a new reference). */
typedef struct {
    const char *p;
    Py_ssize_t n;
    PyObject *keep;
} text_arg;

static int
to_text(PyObject *o, text_arg *t)
{
    t->keep = NULL;
    if (PyUnicode_Check(o)) {
        if ((t->p = PyUnicode_AsUTF8AndSize(o, &t->n)) == NULL) {
            return -1;
        }
        return 0;
    }
    if (PyBytes_Check(o)) {
        t->p = PyBytes_AS_STRING(o);
        t->n = PyBytes_GET_SIZE(o);
        return 0;
    }
    if (PyByteArray_Check(o)) {
        /* a copy: another thread may resize the bytearray meanwhile */
        if ((t->keep = PyBytes_FromObject(o)) == NULL) {
            return -1;
        }
        t->p = PyBytes_AS_STRING(t->keep);
        t->n = PyBytes_GET_SIZE(t->keep);
        return 0;
    }
    return 1;
}

/* A str (bytes are decoded as UTF-8, as pybind11 does) with no NUL inside,
 * for names kept as str: a new reference; 1 when o is no text. */
static int
to_name(PyObject *o, PyObject **out)
{
    if (PyUnicode_Check(o)) {
        *out = Py_NewRef(o);
    }
    else if (PyBytes_Check(o) || PyByteArray_Check(o)) {
        *out = PyUnicode_FromEncodedObject(o, "utf-8", "strict");
    }
    else {
        return 1;
    }
    Py_ssize_t n;
    const char *p = *out ? PyUnicode_AsUTF8AndSize(*out, &n) : NULL;
    if (p != NULL && memchr(p, '\0', (size_t)n) != NULL) {
        PyErr_SetString(PyExc_ValueError, "embedded null character");
        p = NULL;
    }
    if (p == NULL) {
        Py_CLEAR(*out);
        return -1;
    }
    return 0;
}

/* A key: text, and a C string (no NUL inside). */
static int
to_key(PyObject *o, text_arg *t)
{
    int rc = to_text(o, t);
    if (rc == 0 && memchr(t->p, '\0', (size_t)t->n) != NULL) {
        Py_CLEAR(t->keep);
        PyErr_SetString(PyExc_ValueError, "embedded null character in a store key");
        return -1;
    }
    return rc;
}

static int
to_int64(PyObject *o, int64_t *out)
{
    if (PyFloat_Check(o) || !PyIndex_Check(o)) {
        return 1;
    }
    int overflow;
    PyObject *i = PyNumber_Index(o);
    if (i == NULL) {
        return -1;
    }
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow) {
        return 1;
    }
    *out = v;
    return 0;
}

static int
to_int(PyObject *o, int *out)
{
    int64_t v;
    int rc = to_int64(o, &v);
    if (rc == 0 && (v < INT32_MIN || v > INT32_MAX)) {
        return 1;
    }
    *out = (int)v;
    return rc;
}

/* pybind11's bool in convert mode: True/False, None, and numbers. */
static int
to_bool(PyObject *o, bool *out)
{
    if (o != Py_None && (Py_TYPE(o)->tp_as_number == NULL ||
                         Py_TYPE(o)->tp_as_number->nb_bool == NULL)) {
        return 1;
    }
    int v = PyObject_IsTrue(o);
    if (v < 0) {
        return -1;
    }
    *out = v;
    return 0;
}

/* A timedelta (or float seconds) in milliseconds, truncated toward zero as
 * std::chrono::duration_cast does. */
static int
to_timeout(PyObject *o, int64_t *ms)
{
    if (PyDelta_Check(o)) {
        int64_t days = PyDateTime_DELTA_GET_DAYS(o);
        /* beyond 10^8 days (273,972 years) is "forever" enough */
        days = days > 100000000 ? 100000000 : days < -100000000 ? -100000000 : days;
        int64_t us = (days * 86400 + PyDateTime_DELTA_GET_SECONDS(o)) * 1000000 +
                     PyDateTime_DELTA_GET_MICROSECONDS(o);
        *ms = us / 1000;
        return 0;
    }
    if (PyFloat_Check(o)) {
        double s = PyFloat_AS_DOUBLE(o) * 1000.0;
        s = s > 8.64e15 ? 8.64e15 : s < -8.64e15 ? -8.64e15 : s;
        *ms = (int64_t)s;
        return 0;
    }
    return 1;
}

static PyObject *
timeout_obj(int64_t ms)
{
    int64_t days = ms / 86400000;
    int64_t rem = ms % 86400000;
    if (rem < 0) {
        rem += 86400000;
        days -= 1;
    }
    return PyDelta_FromDSU((int)days, (int)(rem / 1000), (int)(rem % 1000) * 1000);
}

/* A list of keys (any sequence but a string): C strings in *keys (a
 * PyMem array owned by the caller) kept alive by *keep. */
static int
to_keys(PyObject *o, const char ***keys, int *nkeys, PyObject **keep)
{
    *keys = NULL;
    *keep = NULL;
    if (PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) ||
        !PySequence_Check(o)) {
        return 1;
    }
    PyObject *seq = PySequence_Fast(o, "");
    if (seq == NULL) {
        PyErr_Clear();
        return 1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *hold = PyList_New(0);
    const char **k = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *k);
    int rc = hold && k ? 0 : -1;
    if (rc < 0 && k == NULL) {
        PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        text_arg t;
        if ((rc = to_key(item, &t)) != 0) {
            break;
        }
        /* the UTF-8 text of a str lives in the str; bytes are their own */
        if (PyList_Append(hold, t.keep ? t.keep : item) < 0) {
            rc = -1;
        }
        Py_XDECREF(t.keep);
        k[i] = t.p;
    }
    Py_DECREF(seq);
    if (rc != 0 || n > INT32_MAX) {
        Py_XDECREF(hold);
        PyMem_Free(k);
        return rc != 0 ? rc : 1;
    }
    *keys = k;
    *nkeys = (int)n;
    *keep = hold;
    return 0;
}

/* ---- the objects ------------------------------------------------------ */

static const char *const pure_virtual[] = {
    "set", "get", "add", "compareSet", "check", "wait", "deleteKey", "getNumKeys",
};

enum { OP_SET, OP_GET, OP_ADD, OP_CAS, OP_CHECK, OP_WAIT, OP_DELETE, OP_NUM_KEYS };

/* The C store of self (borrowed), or NULL with c10d's error for a Python
 * subclass of Store that does not define the method. */
static ct_store *
store_of(PyObject *self, int op)
{
    /* an exception a proxy left on this thread for a caller that did not
     * take it (a process group's C code) belongs to no later call */
    Py_CLEAR(stashed_exc);
    ct_store *s = ((CtStoreObject *)self)->store;
    if (s == NULL) {
        PyErr_Format(PyExc_RuntimeError,
                     "Tried to call pure virtual function \"::c10d::Store::%s\"",
                     pure_virtual[op]);
    }
    return s;
}

static PyObject *
store_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)args;
    (void)kwargs;
    CtStoreObject *self = (CtStoreObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->timeout_ms = DEFAULT_TIMEOUT_MS;
    }
    return (PyObject *)self;
}

static int
store_traverse(CtStoreObject *self, visitproc visit, void *arg)
{
    /* the type of a Python subclass is visited by subtype_traverse */
    Py_VISIT(self->underlying);
    return 0;
}

static int
store_clear(CtStoreObject *self)
{
    Py_CLEAR(self->underlying);
    return 0;
}

/* A Python subclass's type reference is dropped by subtype_dealloc. */
static void
store_dealloc(CtStoreObject *self)
{
    PyObject_GC_UnTrack(self);
    ct_store *s = self->store;
    self->store = NULL;
    if (s != NULL) {
        /* a master joins its server thread, a FileStore takes the file lock */
        Py_BEGIN_ALLOW_THREADS
        ct_store_decref(s);
        Py_END_ALLOW_THREADS
    }
    store_clear(self);
    Py_CLEAR(self->host);
    Py_CLEAR(self->path);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Put a freshly made C store into self (replacing one from an earlier
 * __init__); takes over the reference. */
static int
adopt(CtStoreObject *self, ct_store *s)
{
    if (s == NULL) {
        store_error();
        return -1;
    }
    ct_store *old = self->store;
    self->store = s;
    if (old != NULL) {
        Py_BEGIN_ALLOW_THREADS
        ct_store_decref(old);
        Py_END_ALLOW_THREADS
    }
    return 0;
}

/* Match positional and keyword arguments to names (pybind11 style: every
 * parameter may be given by keyword).  vals[i] is borrowed or NULL.  0, or
 * 1 when they do not fit. */
static int
match(const char *const *names, int nparams, PyObject *args, PyObject *kwargs,
      PyObject **vals)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n > nparams) {
        return 1;
    }
    for (int i = 0; i < nparams; i++) {
        vals[i] = i < n ? PyTuple_GET_ITEM(args, i) : NULL;
    }
    if (kwargs == NULL) {
        return 0;
    }
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
        int i;
        for (i = 0; i < nparams; i++) {
            if (PyUnicode_Check(k) &&
                PyUnicode_CompareWithASCIIString(k, names[i]) == 0) {
                break;
            }
        }
        if (i == nparams || vals[i] != NULL) {
            return 1;
        }
        vals[i] = v;
    }
    return 0;
}

/* pybind11's constructor TypeError from tuple/dict arguments. */
static int
bad_init(const char *sigs, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    Py_ssize_t nkw = kwargs ? PyDict_GET_SIZE(kwargs) : 0;
    PyObject **all = PyMem_Malloc((size_t)(n + nkw + 1) * sizeof *all);
    PyObject *kwnames = nkw ? PyTuple_New(nkw) : NULL;
    if (all == NULL || (nkw && kwnames == NULL)) {
        PyMem_Free(all);
        Py_XDECREF(kwnames);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        all[i] = PyTuple_GET_ITEM(args, i);
    }
    Py_ssize_t pos = 0, j = 0;
    PyObject *k, *v;
    while (nkw && PyDict_Next(kwargs, &pos, &k, &v)) {
        Py_INCREF(k);
        PyTuple_SET_ITEM(kwnames, j, k);
        all[n + j++] = v;
    }
    bad_args("__init__", sigs, NULL, all, n, kwnames);
    PyMem_Free(all);
    Py_XDECREF(kwnames);
    return -1;
}

static int
store_init(CtStoreObject *self, PyObject *args, PyObject *kwargs)
{
    (void)self;
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs && PyDict_GET_SIZE(kwargs) != 0)) {
        return bad_init("    1. ctorch._C.Store()\n", args, kwargs);
    }
    return 0;
}

static const char tcp_sig[] =
    "    1. ctorch._C.TCPStore(host_name: str, port: int, world_size: Optional[int] = "
    "None, is_master: bool = False, timeout: datetime.timedelta = "
    "datetime.timedelta(seconds=300), wait_for_workers: bool = True, multi_tenant: "
    "bool = False)\n";

static int
tcp_init(CtStoreObject *self, PyObject *args, PyObject *kwargs)
{
    static const char *const names[] = {
        "host_name", "port", "world_size", "is_master", "timeout", "wait_for_workers",
        "multi_tenant",
    };
    PyObject *v[7];
    PyObject *hostname = NULL;
    ct_tcp_store_options o = {.world_size = -1, .timeout_ms = DEFAULT_TIMEOUT_MS,
                              .wait_for_workers = true};
    if (match(names, 7, args, kwargs, v) != 0 || v[0] == NULL || v[1] == NULL) {
        return bad_init(tcp_sig, args, kwargs);
    }
    int rc = to_int(v[1], &o.port);
    if (rc == 0) {
        if (rc == 0 && (o.port < 0 || o.port > 65535)) {
            rc = 1;
        }
    }
    if (rc == 0 && v[2] != NULL && v[2] != Py_None) {
        rc = to_int(v[2], &o.world_size);
        /* a negative world size waits for nobody, like None */
    }
    if (rc == 0 && v[3] != NULL) {
        rc = to_bool(v[3], &o.is_master);
    }
    if (rc == 0 && v[4] != NULL) {
        rc = to_timeout(v[4], &o.timeout_ms);
    }
    if (rc == 0 && v[5] != NULL) {
        rc = to_bool(v[5], &o.wait_for_workers);
    }
    if (rc == 0 && v[6] != NULL) {
        rc = to_bool(v[6], &o.multi_tenant);
    }
    if (rc == 0) {
        rc = to_name(v[0], &hostname);
    }
    if (rc != 0) {
        return rc < 0 ? -1 : bad_init(tcp_sig, args, kwargs);
    }
    o.host = PyUnicode_AsUTF8(hostname);
    ct_store *s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_tcp_store_open(&o);
    Py_END_ALLOW_THREADS
    if (adopt(self, s) < 0) {
        Py_DECREF(hostname);
        return -1;
    }
    Py_XSETREF(self->host, hostname);
    return 0;
}

static const char file_sig[] =
    "    1. ctorch._C.FileStore(file_name: str, world_size: int = -1)\n";

static int
file_init(CtStoreObject *self, PyObject *args, PyObject *kwargs)
{
    static const char *const names[] = {"file_name", "world_size"};
    PyObject *v[2];
    PyObject *name = NULL;
    int world_size = -1;
    if (match(names, 2, args, kwargs, v) != 0 || v[0] == NULL) {
        return bad_init(file_sig, args, kwargs);
    }
    int rc = v[1] != NULL ? to_int(v[1], &world_size) : 0;
    if (rc == 0) {
        rc = to_name(v[0], &name);
    }
    if (rc != 0) {
        return rc < 0 ? -1 : bad_init(file_sig, args, kwargs);
    }
    const char *p = PyUnicode_AsUTF8(name);
    ct_store *s;
    Py_BEGIN_ALLOW_THREADS
    s = ct_file_store_new(p, world_size, DEFAULT_TIMEOUT_MS);
    Py_END_ALLOW_THREADS
    if (adopt(self, s) < 0) {
        Py_DECREF(name);
        return -1;
    }
    Py_XSETREF(self->path, name);
    return 0;
}

static int
hash_init(CtStoreObject *self, PyObject *args, PyObject *kwargs)
{
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs && PyDict_GET_SIZE(kwargs) != 0)) {
        return bad_init("    1. ctorch._C.HashStore()\n", args, kwargs);
    }
    return adopt(self, ct_hash_store_new());
}

static const char prefix_sig[] =
    "    1. ctorch._C.PrefixStore(arg0: str, arg1: ctorch._C.Store)\n";

static int
prefix_init(CtStoreObject *self, PyObject *args, PyObject *kwargs)
{
    text_arg prefix;
    if ((kwargs && PyDict_GET_SIZE(kwargs) != 0) || PyTuple_GET_SIZE(args) != 2 ||
        !PyObject_TypeCheck(PyTuple_GET_ITEM(args, 1), &CtStore_Type)) {
        return bad_init(prefix_sig, args, kwargs);
    }
    int rc = to_key(PyTuple_GET_ITEM(args, 0), &prefix);
    if (rc != 0) {
        return rc < 0 ? -1 : bad_init(prefix_sig, args, kwargs);
    }
    PyObject *under = PyTuple_GET_ITEM(args, 1);
    struct ct_store *base = ctpy_store_ref(under);
    ct_store *s = base ? ct_prefix_store_new(prefix.p, base) : NULL;
    Py_XDECREF(prefix.keep);
    ct_store_decref(base);
    if (base == NULL) {
        return -1;
    }
    if (adopt(self, s) < 0) {
        return -1;
    }
    Py_XSETREF(self->underlying, Py_NewRef(under));
    return 0;
}

/* ---- methods ---------------------------------------------------------- */

#define STORE_T "ctorch._C.Store"

static PyObject *
store_set(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char sig[] =
        "    1. (self: " STORE_T ", arg0: str, arg1: str) -> None\n";
    text_arg k, v;
    int rc = 1;
    if (kwnames == NULL && nargs == 2 && (rc = to_key(args[0], &k)) == 0) {
        if ((rc = to_text(args[1], &v)) != 0) {
            Py_XDECREF(k.keep);
        }
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("set", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_SET);
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_set(s, k.p, (const uint8_t *)v.p, (size_t)v.n);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k.keep);
    Py_XDECREF(v.keep);
    if (s == NULL) {
        return NULL;
    }
    return rc < 0 ? store_error() : Py_NewRef(Py_None);
}

/* A malloc'd value from the C store as bytes (freed here). */
static PyObject *
value_obj(int rc, uint8_t *val, size_t n)
{
    if (rc < 0) {
        return store_error();
    }
    PyObject *b = PyBytes_FromStringAndSize((const char *)val, (Py_ssize_t)n);
    free(val);
    return b;
}

static PyObject *
store_get(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char sig[] = "    1. (self: " STORE_T ", arg0: str) -> bytes\n";
    text_arg k;
    int rc = 1;
    if (kwnames == NULL && nargs == 1) {
        rc = to_key(args[0], &k);
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("get", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_GET);
    uint8_t *val = NULL;
    size_t n = 0;
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_get(s, k.p, &val, &n);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k.keep);
    return s == NULL ? NULL : value_obj(rc, val, n);
}

static PyObject *
store_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char sig[] =
        "    1. (self: " STORE_T ", arg0: str, arg1: int) -> int\n";
    text_arg k;
    int64_t delta, out = 0;
    int rc = 1;
    if (kwnames == NULL && nargs == 2 && (rc = to_int64(args[1], &delta)) == 0) {
        rc = to_key(args[0], &k);
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("add", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_ADD);
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_add(s, k.p, delta, &out);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k.keep);
    if (s == NULL) {
        return NULL;
    }
    return rc < 0 ? store_error() : PyLong_FromLongLong(out);
}

static PyObject *
store_compare_set(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    static const char sig[] =
        "    1. (self: " STORE_T ", arg0: str, arg1: str, arg2: str) -> bytes\n";
    text_arg k = {0}, e = {0}, d = {0};
    int rc = 1;
    if (kwnames == NULL && nargs == 3 && (rc = to_key(args[0], &k)) == 0 &&
        (rc = to_text(args[1], &e)) == 0) {
        rc = to_text(args[2], &d);
    }
    if (rc != 0) {
        Py_XDECREF(k.keep);
        Py_XDECREF(e.keep);
        return rc < 0 ? NULL : bad_args("compare_set", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_CAS);
    uint8_t *val = NULL;
    size_t n = 0;
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_compare_set(s, k.p, (const uint8_t *)e.p, (size_t)e.n,
                                  (const uint8_t *)d.p, (size_t)d.n, &val, &n);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k.keep);
    Py_XDECREF(e.keep);
    Py_XDECREF(d.keep);
    return s == NULL ? NULL : value_obj(rc, val, n);
}

static PyObject *
store_check(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char sig[] = "    1. (self: " STORE_T ", arg0: List[str]) -> bool\n";
    const char **keys = NULL;
    int nkeys = 0, rc = 1;
    PyObject *keep = NULL;
    bool all = false;
    if (kwnames == NULL && nargs == 1) {
        rc = to_keys(args[0], &keys, &nkeys, &keep);
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("check", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_CHECK);
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_check(s, keys, nkeys, &all);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(keys);
    Py_DECREF(keep);
    if (s == NULL) {
        return NULL;
    }
    return rc < 0 ? store_error() : PyBool_FromLong(all);
}

static PyObject *
store_wait(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char sig[] =
        "    1. (self: " STORE_T ", arg0: List[str]) -> None\n"
        "    2. (self: " STORE_T ", arg0: List[str], arg1: datetime.timedelta) -> "
        "None\n";
    const char **keys = NULL;
    int nkeys = 0, rc = 1;
    PyObject *keep = NULL;
    int64_t timeout = -1;
    if (kwnames == NULL && (nargs == 1 || nargs == 2)) {
        rc = nargs == 2 ? to_timeout(args[1], &timeout) : 0;
        if (rc == 0) {
            rc = to_keys(args[0], &keys, &nkeys, &keep);
        }
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("wait", sig, self, args, nargs, kwnames);
    }
    /* an explicit negative timeout has expired already; -1 would mean the
     * store's own to the C API */
    if (nargs == 2 && timeout < 0) {
        timeout = 1;
    }
    ct_store *s = store_of(self, OP_WAIT);
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_wait(s, keys, nkeys, timeout);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(keys);
    Py_DECREF(keep);
    if (s == NULL) {
        return NULL;
    }
    return rc < 0 ? store_error() : Py_NewRef(Py_None);
}

static PyObject *
store_delete_key(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames)
{
    static const char sig[] = "    1. (self: " STORE_T ", arg0: str) -> bool\n";
    text_arg k;
    int rc = 1;
    bool deleted = false;
    if (kwnames == NULL && nargs == 1) {
        rc = to_key(args[0], &k);
    }
    if (rc != 0) {
        return rc < 0 ? NULL : bad_args("delete_key", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_DELETE);
    if (s != NULL) {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_store_delete_key(s, k.p, &deleted);
        Py_END_ALLOW_THREADS
    }
    Py_XDECREF(k.keep);
    if (s == NULL) {
        return NULL;
    }
    return rc < 0 ? store_error() : PyBool_FromLong(deleted);
}

static PyObject *
store_num_keys(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames)
{
    static const char sig[] = "    1. (self: " STORE_T ") -> int\n";
    if (kwnames != NULL || nargs != 0) {
        return bad_args("num_keys", sig, self, args, nargs, kwnames);
    }
    ct_store *s = store_of(self, OP_NUM_KEYS);
    int64_t n = 0;
    int rc;
    if (s == NULL) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = ct_store_num_keys(s, &n);
    Py_END_ALLOW_THREADS
    return rc < 0 ? store_error() : PyLong_FromLongLong(n);
}

static PyObject *
store_set_timeout(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                  PyObject *kwnames)
{
    static const char sig[] =
        "    1. (self: " STORE_T ", arg0: datetime.timedelta) -> None\n";
    int64_t ms;
    int rc = 1;
    if (kwnames == NULL && nargs == 1) {
        rc = to_timeout(args[0], &ms);
    }
    if (rc != 0) {
        return bad_args("set_timeout", sig, self, args, nargs, kwnames);
    }
    CtStoreObject *so = (CtStoreObject *)self;
    if (so->store != NULL) {
        ct_store_set_timeout(so->store, ms);
    }
    so->timeout_ms = ms;
    Py_RETURN_NONE;
}

static PyObject *
store_get_timeout(PyObject *self, void *closure)
{
    (void)closure;
    CtStoreObject *so = (CtStoreObject *)self;
    return timeout_obj(so->store ? ct_store_timeout(so->store) : so->timeout_ms);
}

static PyObject *
tcp_get_host(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *h = ((CtStoreObject *)self)->host;
    return Py_NewRef(h ? h : Py_None);
}

static PyObject *
tcp_get_port(PyObject *self, void *closure)
{
    (void)closure;
    ct_store *s = ((CtStoreObject *)self)->store;
    if (s == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "TCPStore.__init__ was not called");
        return NULL;
    }
    return PyLong_FromLong(ct_tcp_store_port(s));
}

static PyObject *
file_get_path(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *p = ((CtStoreObject *)self)->path;
    return Py_NewRef(p ? p : Py_None);
}

static PyObject *
prefix_get_underlying(PyObject *self, void *closure)
{
    (void)closure;
    PyObject *u = ((CtStoreObject *)self)->underlying;
    return Py_NewRef(u ? u : Py_None);
}

/* Assigning to a read-only property: Python's property message, as the
 * pybind11 properties of PyTorch give. */
static int
no_setter(PyObject *self, PyObject *value, void *closure)
{
    (void)value;
    (void)closure;
    const char *name = strrchr(Py_TYPE(self)->tp_name, '.');
    PyErr_Format(PyExc_AttributeError, "property of '%s' object has no setter",
                 name ? name + 1 : Py_TYPE(self)->tp_name);
    return -1;
}

static PyMethodDef store_methods[] = {
    CTPY_METH("set", store_set, NULL),
    CTPY_METH("get", store_get, NULL),
    CTPY_METH("add", store_add, NULL),
    CTPY_METH("compare_set", store_compare_set, NULL),
    CTPY_METH("check", store_check, NULL),
    CTPY_METH("wait", store_wait, NULL),
    CTPY_METH("delete_key", store_delete_key, NULL),
    CTPY_METH("num_keys", store_num_keys, NULL),
    CTPY_METH("set_timeout", store_set_timeout, NULL),
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef store_getset[] = {
    {"timeout", store_get_timeout, no_setter, "Gets the timeout of the store.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyGetSetDef tcp_getset[] = {
    {"host", tcp_get_host, no_setter,
     "Gets the hostname on which the store listens for requests.", NULL},
    {"port", tcp_get_port, no_setter,
     "Gets the port number on which the store listens for requests.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyGetSetDef file_getset[] = {
    {"path", file_get_path, no_setter, "Gets the path of the file used by FileStore to "
     "store key-value pairs.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyGetSetDef prefix_getset[] = {
    {"underlying_store", prefix_get_underlying, no_setter, "Gets the underlying store "
     "object that PrefixStore wraps around.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyDoc_STRVAR(store_doc, "Base class for all store implementations, such as the 3 "
             "provided by PyTorch distributed: (TCPStore, FileStore, and HashStore).");
PyDoc_STRVAR(tcp_doc, "A TCP-based distributed key-value store implementation. The "
             "server store holds the data, while the client stores can connect to the "
             "server store over TCP and perform actions such as set() to insert a "
             "key-value pair, get() to retrieve a key-value pair, etc.");
PyDoc_STRVAR(file_doc, "A store implementation that uses a file to store the "
             "underlying key-value pairs.");
PyDoc_STRVAR(hash_doc, "A thread-safe store implementation based on an underlying "
             "hashmap. This store can be used within the same process (for example, by "
             "other threads), but cannot be used across processes.");
PyDoc_STRVAR(prefix_doc, "A wrapper around any of the 3 key-value stores (TCPStore, "
             "FileStore, and HashStore) that adds a prefix to each key inserted to the "
             "store.");

#define STORE_FLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC)

PyTypeObject CtStore_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.Store",
    .tp_basicsize = sizeof(CtStoreObject),
    .tp_flags = STORE_FLAGS,
    .tp_doc = store_doc,
    .tp_new = store_new,
    .tp_init = (initproc)store_init,
    .tp_dealloc = (destructor)store_dealloc,
    .tp_traverse = (traverseproc)store_traverse,
    .tp_clear = (inquiry)store_clear,
    .tp_methods = store_methods,
    .tp_getset = store_getset,
};

#define STORE_SUBTYPE(NAME, DOC, INIT, GETSET)          \
    {                                                   \
        PyVarObject_HEAD_INIT(NULL, 0)                  \
        .tp_name = "ctorch._C." NAME,                   \
        .tp_basicsize = sizeof(CtStoreObject),          \
        .tp_flags = STORE_FLAGS,                        \
        .tp_doc = DOC,                                  \
        .tp_base = &CtStore_Type,                       \
        .tp_init = (initproc)INIT,                      \
        .tp_dealloc = (destructor)store_dealloc,        \
        .tp_traverse = (traverseproc)store_traverse,    \
        .tp_clear = (inquiry)store_clear,               \
        .tp_getset = GETSET,                            \
    }

static PyTypeObject CtTCPStore_Type = STORE_SUBTYPE("TCPStore", tcp_doc, tcp_init,
                                                    tcp_getset);
static PyTypeObject CtFileStore_Type = STORE_SUBTYPE("FileStore", file_doc, file_init,
                                                     file_getset);
static PyTypeObject CtHashStore_Type = STORE_SUBTYPE("HashStore", hash_doc, hash_init,
                                                     NULL);
static PyTypeObject CtPrefixStore_Type = STORE_SUBTYPE("PrefixStore", prefix_doc,
                                                       prefix_init, prefix_getset);

/* ---- stores written in Python ----------------------------------------- */

/* A ct_store whose operations call a Python object's methods (a class
 * derived from Store in Python).  It owns a reference to the object; the
 * object does not own it, so there is no cycle. */
typedef struct {
    ct_store base;
    PyObject *obj;
} py_store;

/* The Python exception of a failed call as the C error (kept whole for the
 * binding on this thread, see stashed_exc); returns -1. */
static int
py_fail(void)
{
    PyObject *type, *exc, *tb;
    PyErr_Fetch(&type, &exc, &tb);
    PyErr_NormalizeException(&type, &exc, &tb);
    if (exc != NULL && tb != NULL) {
        PyException_SetTraceback(exc, tb);
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyObject *msg = exc ? PyObject_Str(exc) : NULL;
    const char *text = msg ? PyUnicode_AsUTF8(msg) : NULL;
    ct_error(CT_ERR_RUNTIME, "%s", text ? text : "error in a Python store");
    PyErr_Clear();
    Py_XDECREF(msg);
    Py_XSETREF(stashed_exc, exc);
    return -1;
}

/* obj.<name>(*args) with the GIL taken: a new reference or NULL with the C
 * error set.  fmt is Py_BuildValue's. */
static PyObject *
py_call(ct_store *s, const char *name, const char *fmt, ...)
{
    PyObject *obj = ((py_store *)s)->obj;
    va_list va;
    va_start(va, fmt);
    PyObject *args = Py_VaBuildValue(fmt, va);
    va_end(va);
    PyObject *res = NULL;
    if (args != NULL) {
        PyObject *fn = PyObject_GetAttrString(obj, name);
        if (fn != NULL) {
            res = PyObject_CallObject(fn, args);
            Py_DECREF(fn);
        }
        Py_DECREF(args);
    }
    if (res == NULL) {
        py_fail();
    }
    return res;
}

/* A str / bytes result into a malloc'd buffer; -1 with the error set. */
static int
py_bytes_out(PyObject *res, uint8_t **out, size_t *n)
{
    text_arg t;
    int rc = res ? to_text(res, &t) : -1;
    if (rc == 1) {
        PyErr_Format(PyExc_TypeError, "a store returned %.100s, not bytes",
                     Py_TYPE(res)->tp_name);
    }
    if (rc != 0) {
        Py_XDECREF(res);
        return res ? py_fail() : -1;
    }
    *out = malloc(t.n > 0 ? (size_t)t.n : 1);
    if (*out != NULL) {
        memcpy(*out, t.p, (size_t)t.n);
        *n = (size_t)t.n;
    }
    Py_XDECREF(t.keep);
    Py_DECREF(res);
    return *out ? 0 : ct_error(CT_ERR_NOMEM, "out of memory");
}

static PyObject *
py_keys(const char *const *keys, int nkeys)
{
    PyObject *l = PyList_New(nkeys);
    for (int i = 0; l != NULL && i < nkeys; i++) {
        PyObject *k = PyUnicode_FromString(keys[i]);
        if (k == NULL) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, k);
    }
    return l;
}

static int
py_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = py_call(s, "set", "(sy#)", key, (const char *)val, (Py_ssize_t)n);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return r ? 0 : -1;
}

static int
py_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = py_bytes_out(py_call(s, "get", "(s)", key), val, n);
    PyGILState_Release(g);
    return rc;
}

/* An int result; -1 with the error set. */
static int
py_int_out(PyObject *res, int64_t *out)
{
    if (res == NULL) {
        return -1;
    }
    long long v = PyLong_AsLongLong(res);
    Py_DECREF(res);
    if (v == -1 && PyErr_Occurred()) {
        return py_fail();
    }
    *out = v;
    return 0;
}

static int
py_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = py_int_out(py_call(s, "add", "(sL)", key, (long long)delta), out);
    PyGILState_Release(g);
    return rc;
}

static int
py_compare_set(ct_store *s, const char *key, const uint8_t *expected, size_t nexpected,
               const uint8_t *desired, size_t ndesired, uint8_t **out, size_t *nout)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = py_call(s, "compare_set", "(sy#y#)", key, (const char *)expected,
                          (Py_ssize_t)nexpected, (const char *)desired,
                          (Py_ssize_t)ndesired);
    int rc = py_bytes_out(r, out, nout);
    PyGILState_Release(g);
    return rc;
}

static int
py_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = -1;
    PyObject *l = py_keys(keys, nkeys);
    PyObject *r = l ? py_call(s, "check", "(O)", l) : NULL;
    if (l == NULL) {
        py_fail();
    }
    if (r != NULL) {
        int v = PyObject_IsTrue(r);
        rc = v < 0 ? py_fail() : 0;
        *all_exist = v > 0;
    }
    Py_XDECREF(l);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return rc;
}

static int
py_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *l = py_keys(keys, nkeys), *r = NULL, *td = NULL;
    if (l != NULL && timeout_ms < 0) {
        r = py_call(s, "wait", "(O)", l);
    }
    else if (l != NULL && (td = timeout_obj(timeout_ms)) != NULL) {
        r = py_call(s, "wait", "(OO)", l, td);
    }
    else {
        py_fail();
    }
    Py_XDECREF(l);
    Py_XDECREF(td);
    Py_XDECREF(r);
    PyGILState_Release(g);
    return r ? 0 : -1;
}

static int
py_delete_key(ct_store *s, const char *key, bool *deleted)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = py_call(s, "delete_key", "(s)", key);
    int rc = -1;
    if (r != NULL) {
        int v = PyObject_IsTrue(r);
        rc = v < 0 ? py_fail() : 0;
        *deleted = v > 0;
        Py_DECREF(r);
    }
    PyGILState_Release(g);
    return rc;
}

static int
py_num_keys(ct_store *s, int64_t *out)
{
    PyGILState_STATE g = PyGILState_Ensure();
    int rc = py_int_out(py_call(s, "num_keys", "()"), out);
    PyGILState_Release(g);
    return rc;
}

static void
py_destroy(ct_store *s)
{
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(((py_store *)s)->obj);
        PyGILState_Release(g);
    }
    free(s);
}

static const ct_store_vtable py_vtable = {
    .name = "PythonStore",
    .set = py_set,
    .get = py_get,
    .add = py_add,
    .compare_set = py_compare_set,
    .check = py_check,
    .wait = py_wait,
    .delete_key = py_delete_key,
    .num_keys = py_num_keys,
    .destroy = py_destroy,
};

/* Declared in ctpy.h. */
struct ct_store *
ctpy_store_ref(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &CtStore_Type)) {
        PyErr_Format(PyExc_TypeError, "expected a Store, got %.100s",
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
    CtStoreObject *so = (CtStoreObject *)o;
    if (so->store != NULL) {
        ct_store_incref(so->store);
        return so->store;
    }
    py_store *p = malloc(sizeof *p);
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    p->base.vt = &py_vtable;
    atomic_init(&p->base.refcnt, 1);
    atomic_init(&p->base.timeout_ms, so->timeout_ms);
    p->obj = Py_NewRef(o);
    return &p->base;
}

int
ctpy_dist_store_init(PyObject *m)
{
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL) {
        return -1;
    }
    static struct {
        const char *name;
        PyTypeObject *type;
    } types[] = {
        {"Store", &CtStore_Type},         {"TCPStore", &CtTCPStore_Type},
        {"FileStore", &CtFileStore_Type}, {"HashStore", &CtHashStore_Type},
        {"PrefixStore", &CtPrefixStore_Type},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (PyType_Ready(types[i].type) < 0 ||
            PyModule_AddObjectRef(m, types[i].name, (PyObject *)types[i].type) < 0) {
            return -1;
        }
    }
    return 0;
}
