/* csrc/python/dist_pg.c -- _C.ProcessGroup with its backends,
 * ProcessGroupGloo, ProcessGroupNCCL and ProcessGroupMPI (only in a build
 * with MPI), and _C.Work.
 *
 * Thin: parse the lists of tensors, call the C operation (include/ctorch/
 * c10d.h), wrap the ct_work.  Every operation takes a keyword-only
 * `async_op=True`; with async_op=False the caller promises to wait at
 * once, and the operation runs on the calling thread when the group is
 * idle (no hand-off to the progress thread: the fast path of a blocking
 * torch.distributed call).
 *
 * The store is any _C.Store (ctpy_store_ref, from the stores' glue, gives
 * the C store behind it, or a proxy for a subclass written in Python).
 *
 * Threads: waiting and shutting down release the GIL (the progress thread
 * takes it for callbacks).  Callbacks run on whatever thread completes the
 * work, under the GIL; an exception in one is reported as unraisable.
 */
#include "ctpy.h"

#include <ctorch/c10d.h>
#include <math.h>
#include <string.h>

/* dist_store.c; weak so this file builds without it */
extern struct ct_store *ctpy_store_ref(PyObject *o) __attribute__((weak));

typedef struct {
    PyObject_HEAD
    ct_pg *pg;       /* owned */
    PyObject *store; /* owned */
    PyObject *weaklist;
} CtPGObject;

typedef struct {
    PyObject_HEAD
    ct_work *w; /* owned */
    PyObject *weaklist;
} CtWorkObject;

static PyTypeObject CtPGBase_Type;
static PyTypeObject CtPG_Type;
static PyTypeObject CtPGMPI_Type;
static PyTypeObject CtPGNCCL_Type;
static PyTypeObject CtWork_Type;

/* A new reference to the ct_store behind a _C.Store (or a Python subclass
 * of one: the stores' glue makes a proxy); NULL with TypeError. */
static ct_store *
store_for(PyObject *o)
{
    if (ctpy_store_ref == NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "ProcessGroupGloo(): no store support in this build");
        return NULL;
    }
    return ctpy_store_ref(o);
}

/* --- argument helpers ------------------------------------------------------ */

/* Seconds from a float, an int or a datetime.timedelta; -1 on error. */
static int
seconds_arg(PyObject *o, double *out)
{
    if (PyObject_HasAttrString(o, "total_seconds")) {
        PyObject *r = PyObject_CallMethod(o, "total_seconds", NULL);
        if (r == NULL) {
            return -1;
        }
        *out = PyFloat_AsDouble(r);
        Py_DECREF(r);
    }
    else {
        *out = PyFloat_AsDouble(o);
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* The tensors of a sequence, borrowed from `seq` (a new reference the
 * caller drops after use); n < 0 on error. */
typedef struct {
    PyObject *seq;
    ct_tensor **t;
    int n;
} tlist;

static int
tlist_get(PyObject *o, tlist *l, const char *what)
{
    l->seq = PyList_Check(o) || PyTuple_Check(o) ? PySequence_Fast(o, "") : NULL;
    l->t = NULL;
    l->n = -1;
    if (l->seq == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of tensors, not %s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(l->seq);
    l->t = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *l->t);
    if (l->t == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(l->seq, i);
        if (!ctpy_is_tensor(x)) {
            PyErr_Format(PyExc_TypeError,
                         "%s must be a list of tensors, found %s at index %zd", what,
                         Py_TYPE(x)->tp_name, i);
            return -1;
        }
        l->t[i] = ctpy_tensor(x);
    }
    l->n = (int)n;
    return 0;
}

static void
tlist_free(tlist *l)
{
    Py_CLEAR(l->seq);
    PyMem_Free(l->t);
    l->t = NULL;
}

/* A list of lists of tensors. */
typedef struct {
    PyObject *seq;
    tlist *lists;
    ct_pg_tensors *view;
    int n;
} tlists;

static void
tlists_free(tlists *l)
{
    for (int i = 0; l->lists != NULL && i < l->n; i++) {
        tlist_free(&l->lists[i]);
    }
    PyMem_Free(l->lists);
    PyMem_Free(l->view);
    Py_CLEAR(l->seq);
}

static int
tlists_get(PyObject *o, tlists *l, const char *what)
{
    memset(l, 0, sizeof *l);
    l->seq = PyList_Check(o) || PyTuple_Check(o) ? PySequence_Fast(o, "") : NULL;
    if (l->seq == NULL) {
        PyErr_Format(PyExc_TypeError, "%s must be a list of lists of tensors", what);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(l->seq);
    l->lists = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *l->lists);
    l->view = PyMem_Calloc((size_t)(n > 0 ? n : 1), sizeof *l->view);
    if (l->lists == NULL || l->view == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        l->n = (int)i + 1;
        if (tlist_get(PySequence_Fast_GET_ITEM(l->seq, i), &l->lists[i], what) < 0) {
            return -1;
        }
        l->view[i].t = l->lists[i].t;
        l->view[i].n = l->lists[i].n;
    }
    l->n = (int)n;
    return 0;
}

static int
int_arg(PyObject *o, int64_t *out, const char *what)
{
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = PyLong_AsLongLong(o);
    return PyErr_Occurred() ? -1 : 0;
}

/* A ReduceOp: an int, or an object whose int() is the RedOpType. */
static int
op_arg(PyObject *o, ct_redop *out)
{
    PyObject *v = PyNumber_Index(o);
    if (v == NULL) {
        PyErr_Clear();
        PyObject *a = PyObject_GetAttrString(o, "value");
        v = a ? PyNumber_Index(a) : NULL;
        Py_XDECREF(a);
        if (v == NULL) {
            PyErr_Format(PyExc_TypeError, "op must be a ReduceOp, not %s",
                         Py_TYPE(o)->tp_name);
            return -1;
        }
    }
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (PyErr_Occurred()) {
        return -1;
    }
    *out = (x < 0 || x >= CT_REDOP_COUNT) ? CT_REDOP_COUNT : (ct_redop)x;
    return 0;
}

/* Positional and keyword arguments by name; async_op is keyword-only. */
static int
get_args(const char *fname, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
         const char *const *names, int n, PyObject **vals, int nrequired,
         unsigned *flags)
{
    for (int i = 0; i < n; i++) {
        vals[i] = i < nargs ? args[i] : NULL;
    }
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError,
                     "%s() takes %d positional arguments but %zd were given", fname, n,
                     nargs);
        return -1;
    }
    *flags = 0;
    Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        const char *key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        PyObject *v = args[nargs + k];
        if (key == NULL) {
            return -1;
        }
        if (strcmp(key, "async_op") == 0) {
            int b = PyObject_IsTrue(v);
            if (b < 0) {
                return -1;
            }
            *flags = b ? 0 : CT_PG_SYNC;
            continue;
        }
        int i = 0;
        while (i < n && strcmp(names[i], key) != 0) {
            i++;
        }
        if (i == n) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got an unexpected keyword argument '%s'", fname, key);
            return -1;
        }
        if (vals[i] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'",
                         fname, key);
            return -1;
        }
        vals[i] = v;
    }
    for (int i = 0; i < nrequired; i++) {
        if (vals[i] == NULL) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname,
                         names[i]);
            return -1;
        }
    }
    return 0;
}

static PyObject *
work_wrap(ct_work *w)
{
    if (w == NULL) {
        return ctpy_raise();
    }
    CtWorkObject *o = PyObject_New(CtWorkObject, &CtWork_Type);
    if (o == NULL) {
        ct_work_decref(w);
        return NULL;
    }
    o->w = w;
    o->weaklist = NULL;
    return (PyObject *)o;
}

#define PG(self) (((CtPGObject *)(self))->pg)

static int
pg_live(PyObject *self)
{
    if (PG(self) == NULL) {
        PyErr_Format(PyExc_RuntimeError, "%s is not initialized", Py_TYPE(self)->tp_name);
        return -1;
    }
    return 0;
}

/* --- ProcessGroupGloo ------------------------------------------------------ */

/* __init__(store, rank, size, timeout) of a backend made by `make`. */
static int
pg_init_with(PyObject *self, PyObject *args, PyObject *kwargs, const char *fmt,
             ct_pg *(*make)(ct_store *, int, int, int64_t))
{
    static char *kw[] = {"store", "rank", "size", "timeout", NULL};
    PyObject *store, *timeout = NULL;
    int rank, size;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kw, &store, &rank, &size,
                                     &timeout)) {
        return -1;
    }
    double secs = 1800.0;
    if (timeout != NULL && timeout != Py_None && seconds_arg(timeout, &secs) < 0) {
        return -1;
    }
    if (!(secs >= 0) || secs > 1e9) {
        PyErr_Format(PyExc_ValueError, "%s: invalid timeout %f", Py_TYPE(self)->tp_name,
                     secs);
        return -1;
    }
    ct_store *s = store_for(store);
    if (s == NULL) {
        return -1;
    }
    ct_pg *pg;
    Py_BEGIN_ALLOW_THREADS
    pg = make(s, rank, size, (int64_t)llround(secs * 1000.0));
    Py_END_ALLOW_THREADS
    ct_store_decref(s);
    if (pg == NULL) {
        return ctpy_raise_int();
    }
    CtPGObject *o = (CtPGObject *)self;
    if (o->pg != NULL) {
        ct_pg *old = o->pg;
        Py_BEGIN_ALLOW_THREADS
        ct_pg_decref(old);
        Py_END_ALLOW_THREADS
    }
    o->pg = pg;
    Py_INCREF(store);
    Py_XSETREF(o->store, store);
    return 0;
}

static int
pg_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return pg_init_with(self, args, kwargs, "Oii|O:ProcessGroupGloo", ct_pg_gloo_new);
}

static int
pg_nccl_init(PyObject *self, PyObject *args, PyObject *kwargs)
{
    return pg_init_with(self, args, kwargs, "Oii|O:ProcessGroupNCCL", ct_pg_nccl_new);
}

static void
pg_dealloc(PyObject *self)
{
    CtPGObject *o = (CtPGObject *)self;
    PyObject_GC_UnTrack(self);
    if (o->weaklist != NULL) {
        PyObject_ClearWeakRefs(self);
    }
    if (o->pg != NULL) {
        ct_pg *pg = o->pg;
        o->pg = NULL;
        Py_BEGIN_ALLOW_THREADS
        ct_pg_shutdown(pg);
        ct_pg_decref(pg);
        Py_END_ALLOW_THREADS
    }
    Py_CLEAR(o->store);
    Py_TYPE(self)->tp_free(self);
}

static int
pg_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(((CtPGObject *)self)->store);
    return 0;
}

static int
pg_clear(PyObject *self)
{
    Py_CLEAR(((CtPGObject *)self)->store);
    return 0;
}

static PyObject *
pg_rank(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pg_live(self) < 0 ? NULL : PyLong_FromLong(ct_pg_rank(PG(self)));
}

static PyObject *
pg_size(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pg_live(self) < 0 ? NULL : PyLong_FromLong(ct_pg_size(PG(self)));
}

static PyObject *
pg_name(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString("gloo");
}

static PyObject *
pg_nccl_name(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString("nccl");
}

static PyObject *
pg_mpi_name(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyUnicode_FromString("mpi");
}

/* ProcessGroupMPI.create(ranks=[], timeout=1800.0): the group of those
 * MPI world ranks (all when empty), or None on a process outside it. */
static PyObject *
pg_mpi_create(PyObject *cls, PyObject *args, PyObject *kwargs)
{
    static char *kw[] = {"ranks", "timeout", NULL};
    PyObject *ranks = NULL, *timeout = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OO:create", kw, &ranks, &timeout)) {
        return NULL;
    }
    double secs = 1800.0;
    if (timeout != NULL && timeout != Py_None && seconds_arg(timeout, &secs) < 0) {
        return NULL;
    }
    PyObject *seq = ranks == NULL || ranks == Py_None
                        ? PyTuple_New(0)
                        : PySequence_Fast(ranks, "ranks must be a sequence of ints");
    if (seq == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *r = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    if (r == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            PyMem_Free(r);
            Py_DECREF(seq);
            return NULL;
        }
        r[i] = (int)v;
    }
    Py_DECREF(seq);
    bool member = false;
    ct_pg *pg;
    Py_BEGIN_ALLOW_THREADS
    pg = ct_pg_mpi_new(r, (int)n, (int64_t)llround(secs * 1000.0), &member);
    Py_END_ALLOW_THREADS
    PyMem_Free(r);
    if (pg == NULL) {
        if (!member && !ct_error_occurred()) {
            Py_RETURN_NONE;
        }
        return ctpy_raise();
    }
    CtPGObject *o = (CtPGObject *)PyType_GenericAlloc((PyTypeObject *)cls, 0);
    if (o == NULL) {
        Py_BEGIN_ALLOW_THREADS
        ct_pg_decref(pg);
        Py_END_ALLOW_THREADS
        return NULL;
    }
    o->pg = pg;
    return (PyObject *)o;
}

static PyObject *
pg_shm_peers(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pg_live(self) < 0 ? NULL : PyLong_FromLong(ct_pg_shm_peers(PG(self)));
}

static PyObject *
pg_flat(PyObject *self, PyObject *unused)
{
    (void)unused;
    return pg_live(self) < 0 ? NULL : PyBool_FromLong(ct_pg_flat(PG(self)));
}

static PyObject *
pg_shutdown(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_pg *pg = PG(self);
    if (pg != NULL) {
        Py_BEGIN_ALLOW_THREADS
        ct_pg_shutdown(pg);
        Py_END_ALLOW_THREADS
    }
    Py_RETURN_NONE;
}

/* ops over one list of tensors plus ints */
static PyObject *
pg_broadcast(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"tensors", "root"};
    PyObject *v[2];
    unsigned fl;
    tlist l = {0};
    int64_t root;
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("broadcast", args, nargs, kwnames, names, 2, v, 2, &fl) < 0 ||
        int_arg(v[1], &root, "root") < 0 || tlist_get(v[0], &l, "tensors") < 0) {
        tlist_free(&l);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_broadcast(PG(self), l.t, l.n, (int)root, fl);
    Py_END_ALLOW_THREADS
    tlist_free(&l);
    return work_wrap(w);
}

static PyObject *
pg_allreduce(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"tensors", "op"};
    PyObject *v[2];
    unsigned fl;
    tlist l = {0};
    ct_redop op = CT_REDOP_SUM;
    ct_work *w;
    if (pg_live(self) < 0 ||
        get_args("allreduce", args, nargs, kwnames, names, 2, v, 1, &fl) < 0 ||
        (v[1] != NULL && op_arg(v[1], &op) < 0) || tlist_get(v[0], &l, "tensors") < 0) {
        tlist_free(&l);
        return NULL;
    }
    if (fl & CT_PG_SYNC) {
        Py_BEGIN_ALLOW_THREADS
        w = ct_pg_allreduce(PG(self), l.t, l.n, op, fl);
        Py_END_ALLOW_THREADS
    }
    else {
        w = ct_pg_allreduce(PG(self), l.t, l.n, op, fl);
    }
    tlist_free(&l);
    return work_wrap(w);
}

static PyObject *
pg_reduce(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"tensors", "root", "op"};
    PyObject *v[3];
    unsigned fl;
    tlist l = {0};
    int64_t root;
    ct_redop op = CT_REDOP_SUM;
    ct_work *w;
    if (pg_live(self) < 0 ||
        get_args("reduce", args, nargs, kwnames, names, 3, v, 2, &fl) < 0 ||
        int_arg(v[1], &root, "root") < 0 || (v[2] != NULL && op_arg(v[2], &op) < 0) ||
        tlist_get(v[0], &l, "tensors") < 0) {
        tlist_free(&l);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_reduce(PG(self), l.t, l.n, (int)root, op, fl);
    Py_END_ALLOW_THREADS
    tlist_free(&l);
    return work_wrap(w);
}

static PyObject *
pg_allgather(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"output_lists", "inputs"};
    PyObject *v[2];
    unsigned fl;
    tlists out = {0};
    tlist in = {0};
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("allgather", args, nargs, kwnames, names, 2, v, 2, &fl) < 0 ||
        tlists_get(v[0], &out, "output_lists") < 0 ||
        tlist_get(v[1], &in, "inputs") < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_allgather(PG(self), out.view, out.n, in.t, in.n, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    tlists_free(&out);
    tlist_free(&in);
    return w ? work_wrap(w) : NULL;
}

static int
one_tensor(PyObject *o, ct_tensor **t, const char *what)
{
    if (!ctpy_is_tensor(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be a Tensor, not %s", what,
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    *t = ctpy_tensor(o);
    return 0;
}

static PyObject *
pg_allgather_base(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"output", "input"};
    PyObject *v[2];
    unsigned fl;
    ct_tensor *out, *in;
    ct_work *w;
    if (pg_live(self) < 0 ||
        get_args("_allgather_base", args, nargs, kwnames, names, 2, v, 2, &fl) < 0 ||
        one_tensor(v[0], &out, "output") < 0 || one_tensor(v[1], &in, "input") < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_allgather_base(PG(self), out, in, fl);
    Py_END_ALLOW_THREADS
    return work_wrap(w);
}

static PyObject *
pg_gather(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"output_lists", "inputs", "root"};
    PyObject *v[3];
    unsigned fl;
    tlists out = {0};
    tlist in = {0};
    int64_t root;
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("gather", args, nargs, kwnames, names, 3, v, 3, &fl) < 0 ||
        int_arg(v[2], &root, "root") < 0 ||
        tlists_get(v[0], &out, "output_lists") < 0 ||
        tlist_get(v[1], &in, "inputs") < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_gather(PG(self), out.view, out.n, in.t, in.n, (int)root, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    tlists_free(&out);
    tlist_free(&in);
    return w ? work_wrap(w) : NULL;
}

static PyObject *
pg_scatter(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"outputs", "input_lists", "root"};
    PyObject *v[3];
    unsigned fl;
    tlist out = {0};
    tlists in = {0};
    int64_t root;
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("scatter", args, nargs, kwnames, names, 3, v, 3, &fl) < 0 ||
        int_arg(v[2], &root, "root") < 0 || tlist_get(v[0], &out, "outputs") < 0 ||
        tlists_get(v[1], &in, "input_lists") < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_scatter(PG(self), out.t, out.n, in.view, in.n, (int)root, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    tlist_free(&out);
    tlists_free(&in);
    return w ? work_wrap(w) : NULL;
}

static PyObject *
pg_reduce_scatter(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"outputs", "input_lists", "op"};
    PyObject *v[3];
    unsigned fl;
    tlist out = {0};
    tlists in = {0};
    ct_redop op = CT_REDOP_SUM;
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("reduce_scatter", args, nargs, kwnames, names, 3, v, 2, &fl) < 0 ||
        (v[2] != NULL && op_arg(v[2], &op) < 0) ||
        tlist_get(v[0], &out, "outputs") < 0 ||
        tlists_get(v[1], &in, "input_lists") < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_reduce_scatter(PG(self), out.t, out.n, in.view, in.n, op, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    tlist_free(&out);
    tlists_free(&in);
    return w ? work_wrap(w) : NULL;
}

static PyObject *
pg_reduce_scatter_base(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"output", "input", "op"};
    PyObject *v[3];
    unsigned fl;
    ct_tensor *out, *in;
    ct_redop op = CT_REDOP_SUM;
    ct_work *w;
    if (pg_live(self) < 0 ||
        get_args("_reduce_scatter_base", args, nargs, kwnames, names, 3, v, 2, &fl) <
            0 ||
        one_tensor(v[0], &out, "output") < 0 || one_tensor(v[1], &in, "input") < 0 ||
        (v[2] != NULL && op_arg(v[2], &op) < 0)) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_reduce_scatter_base(PG(self), out, in, op, fl);
    Py_END_ALLOW_THREADS
    return work_wrap(w);
}

static int
splits_arg(PyObject *o, int64_t **out, int *n)
{
    *out = NULL;
    *n = 0;
    if (o == NULL || o == Py_None) {
        return 0;
    }
    PyObject *seq = PySequence_Fast(o, "split sizes must be a list of ints");
    if (seq == NULL) {
        return -1;
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    *out = PyMem_Malloc((size_t)(k > 0 ? k : 1) * sizeof **out);
    if (*out == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        if (int_arg(PySequence_Fast_GET_ITEM(seq, i), &(*out)[i], "split size") < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    *n = (int)k;
    return 0;
}

static PyObject *
pg_alltoall_base(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"output", "input", "output_split_sizes",
                                        "input_split_sizes"};
    PyObject *v[4];
    unsigned fl;
    ct_tensor *out, *in;
    int64_t *os = NULL, *is = NULL;
    int nos = 0, nis = 0;
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("alltoall_base", args, nargs, kwnames, names, 4, v, 2, &fl) < 0 ||
        one_tensor(v[0], &out, "output") < 0 || one_tensor(v[1], &in, "input") < 0 ||
        splits_arg(v[2], &os, &nos) < 0 || splits_arg(v[3], &is, &nis) < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_alltoall_base(PG(self), out, in, os, nos, is, nis, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    PyMem_Free(os);
    PyMem_Free(is);
    return w ? work_wrap(w) : NULL;
}

static PyObject *
pg_alltoall(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"outputs", "inputs"};
    PyObject *v[2];
    unsigned fl;
    tlist out = {0}, in = {0};
    ct_work *w = NULL;
    if (pg_live(self) < 0 ||
        get_args("alltoall", args, nargs, kwnames, names, 2, v, 2, &fl) < 0 ||
        tlist_get(v[0], &out, "outputs") < 0 || tlist_get(v[1], &in, "inputs") < 0) {
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_alltoall(PG(self), out.t, out.n, in.t, in.n, fl);
    Py_END_ALLOW_THREADS
    if (w == NULL) {
        ctpy_raise();
    }
done:
    tlist_free(&out);
    tlist_free(&in);
    return w ? work_wrap(w) : NULL;
}

static PyObject *
pg_barrier(CTPY_FASTCALL_ARGS)
{
    PyObject *v[1];
    unsigned fl;
    ct_work *w;
    if (pg_live(self) < 0 ||
        get_args("barrier", args, nargs, kwnames, NULL, 0, v, 0, &fl) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = ct_pg_barrier(PG(self), fl);
    Py_END_ALLOW_THREADS
    return work_wrap(w);
}

static PyObject *
p2p(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
    bool send, bool any)
{
    static const char *const send_names[] = {"tensors", "dst", "tag"};
    static const char *const recv_names[] = {"tensors", "src", "tag"};
    static const char *const any_names[] = {"tensors", "tag"};
    const char *fname = send ? "send" : any ? "recv_anysource" : "recv";
    PyObject *v[3];
    unsigned fl;
    tlist l = {0};
    int64_t peer = -1, tag = 0;
    ct_work *w;
    const char *const *names = send ? send_names : any ? any_names : recv_names;
    int n = any ? 2 : 3;
    if (pg_live(self) < 0 ||
        get_args(fname, args, nargs, kwnames, names, n, v, n - 1, &fl) < 0 ||
        (!any && int_arg(v[1], &peer, names[1]) < 0) ||
        (v[n - 1] != NULL && int_arg(v[n - 1], &tag, "tag") < 0) ||
        tlist_get(v[0], &l, "tensors") < 0) {
        tlist_free(&l);
        return NULL;
    }
    if (!any && (peer < 0 || peer > INT32_MAX)) {
        /* a negative rank must not read as "any source" */
        PyErr_Format(
            PyExc_RuntimeError,
            "ProcessGroupGloo::%s: invalid %s rank: %lld (the group has %d ranks)",
            fname, send ? "destination" : "source", (long long)peer,
            ct_pg_size(PG(self)));
        tlist_free(&l);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    w = send ? ct_pg_send(PG(self), l.t, l.n, (int)peer, tag, fl)
             : ct_pg_recv(PG(self), l.t, l.n, (int)peer, tag, fl);
    Py_END_ALLOW_THREADS
    tlist_free(&l);
    return work_wrap(w);
}

static PyObject *
pg_send(CTPY_FASTCALL_ARGS)
{
    return p2p(self, args, nargs, kwnames, true, false);
}

static PyObject *
pg_recv(CTPY_FASTCALL_ARGS)
{
    return p2p(self, args, nargs, kwnames, false, false);
}

static PyObject *
pg_recv_anysource(CTPY_FASTCALL_ARGS)
{
    return p2p(self, args, nargs, kwnames, false, true);
}

static PyMethodDef pg_methods[] = {
    {"rank", pg_rank, METH_NOARGS, "This process's rank in the group."},
    {"size", pg_size, METH_NOARGS, "The number of processes in the group."},
    {"_shutdown", pg_shutdown, METH_NOARGS,
     "Fail pending work and release every socket, thread and shared segment."},
    CTPY_METH("broadcast", pg_broadcast,
              "broadcast(tensors, root, *, async_op=True) -> Work"),
    CTPY_METH("allreduce", pg_allreduce,
              "allreduce(tensors, op=0, *, async_op=True) -> Work"),
    CTPY_METH("reduce", pg_reduce,
              "reduce(tensors, root, op=0, *, async_op=True) -> Work"),
    CTPY_METH("allgather", pg_allgather,
              "allgather(output_lists, inputs, *, async_op=True) -> Work"),
    CTPY_METH("_allgather_base", pg_allgather_base,
              "_allgather_base(output, input, *, async_op=True) -> Work"),
    CTPY_METH("gather", pg_gather,
              "gather(output_lists, inputs, root, *, async_op=True) -> Work"),
    CTPY_METH("scatter", pg_scatter,
              "scatter(outputs, input_lists, root, *, async_op=True) -> Work"),
    CTPY_METH("reduce_scatter", pg_reduce_scatter,
              "reduce_scatter(outputs, input_lists, op=0, *, async_op=True) -> Work"),
    CTPY_METH("_reduce_scatter_base", pg_reduce_scatter_base,
              "_reduce_scatter_base(output, input, op=0, *, async_op=True) -> Work"),
    CTPY_METH("alltoall_base", pg_alltoall_base,
              "alltoall_base(output, input, output_split_sizes, input_split_sizes, *, "
              "async_op=True) -> Work"),
    CTPY_METH("alltoall", pg_alltoall,
              "alltoall(outputs, inputs, *, async_op=True) -> Work"),
    CTPY_METH("barrier", pg_barrier, "barrier(*, async_op=True) -> Work"),
    CTPY_METH("send", pg_send, "send(tensors, dst, tag=0, *, async_op=True) -> Work"),
    CTPY_METH("recv", pg_recv, "recv(tensors, src, tag=0, *, async_op=True) -> Work"),
    CTPY_METH("recv_anysource", pg_recv_anysource,
              "recv_anysource(tensors, tag=0, *, async_op=True) -> Work"),
    {NULL, NULL, 0, NULL},
};

static PyMethodDef gloo_methods[] = {
    {"name", pg_name, METH_NOARGS, "The backend's name: 'gloo'."},
    {"_shm_peers", pg_shm_peers, METH_NOARGS,
     "How many peers this rank reaches through shared memory."},
    {"_flat", pg_flat, METH_NOARGS,
     "Whether the whole group shares one segment for small collectives."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef nccl_methods[] = {
    {"name", pg_nccl_name, METH_NOARGS, "The backend's name: 'nccl'."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef mpi_methods[] = {
    {"name", pg_mpi_name, METH_NOARGS, "The backend's name: 'mpi'."},
    {"create", (PyCFunction)(void (*)(void))pg_mpi_create,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "create(ranks=[], timeout=1800.0) -> ProcessGroupMPI or None\n\n"
     "The group of these MPI world ranks (every rank when empty); None on a\n"
     "process outside it.  Every process of the MPI world must call it."},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(pg_doc,
             "ProcessGroupGloo(store, rank, size, timeout=1800.0)\n\n"
             "The gloo process group: TCP between hosts, shared memory on one host.\n"
             "timeout is in seconds (a float or a datetime.timedelta).");

static PyTypeObject CtPGBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.ProcessGroup",
    .tp_basicsize = sizeof(CtPGObject),
    .tp_dealloc = pg_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The operations every backend's process group has.",
    .tp_traverse = pg_traverse,
    .tp_clear = pg_clear,
    .tp_weaklistoffset = offsetof(CtPGObject, weaklist),
    .tp_methods = pg_methods,
};

static PyTypeObject CtPG_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.ProcessGroupGloo",
    .tp_basicsize = sizeof(CtPGObject),
    /* dealloc, GC and weak references come from the base */
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = pg_doc,
    .tp_base = &CtPGBase_Type,
    .tp_methods = gloo_methods,
    .tp_init = pg_init,
    .tp_new = PyType_GenericNew,
};

static PyTypeObject CtPGMPI_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.ProcessGroupMPI",
    .tp_basicsize = sizeof(CtPGObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The mpi process group (under mpirun): made by ProcessGroupMPI.create.",
    .tp_base = &CtPGBase_Type,
    .tp_methods = mpi_methods,
};

static PyTypeObject CtPGNCCL_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.ProcessGroupNCCL",
    .tp_basicsize = sizeof(CtPGObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "ProcessGroupNCCL(store, rank, size, timeout=1800.0)\n\n"
              "The nccl process group: collectives on CUDA tensors through NCCL,\n"
              "loaded at run time (see _nccl_available()).",
    .tp_base = &CtPGBase_Type,
    .tp_methods = nccl_methods,
    .tp_init = pg_nccl_init,
    .tp_new = PyType_GenericNew,
};

/* --- Work ------------------------------------------------------------------------ */

#define WORK(self) (((CtWorkObject *)(self))->w)

static void
work_dealloc(PyObject *self)
{
    CtWorkObject *o = (CtWorkObject *)self;
    if (o->weaklist != NULL) {
        PyObject_ClearWeakRefs(self);
    }
    ct_work_decref(o->w);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *
work_wait(CTPY_FASTCALL_ARGS)
{
    static const char *const names[] = {"timeout"};
    PyObject *v[1];
    unsigned fl;
    if (get_args("wait", args, nargs, kwnames, names, 1, v, 0, &fl) < 0) {
        return NULL;
    }
    int64_t ms = -1;
    if (v[0] != NULL && v[0] != Py_None) {
        double secs;
        if (seconds_arg(v[0], &secs) < 0) {
            return NULL;
        }
        ms = secs > 0 ? (int64_t)llround(secs * 1000.0) : -1;
    }
    int rc;
    ct_work *w = WORK(self);
    if (ms < 0 && ct_work_is_completed(w)) {
        rc = ct_work_wait(w, -1);
    }
    else {
        Py_BEGIN_ALLOW_THREADS
        rc = ct_work_wait(w, ms);
        Py_END_ALLOW_THREADS
    }
    if (rc < 0) {
        return ctpy_raise();
    }
    Py_RETURN_TRUE;
}

static PyObject *
work_is_completed(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(ct_work_is_completed(WORK(self)));
}

static PyObject *
work_is_success(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(ct_work_is_success(WORK(self)));
}

static PyObject *
work_exception(PyObject *self, PyObject *unused)
{
    (void)unused;
    ct_error_state st;
    if (!ct_work_error(WORK(self), &st)) {
        Py_RETURN_NONE;
    }
    ct_error_restore(&st);
    ctpy_raise();
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    Py_XDECREF(type);
    Py_XDECREF(tb);
    return value;
}

static PyObject *
work_source_rank(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromLong(ct_work_source_rank(WORK(self)));
}

static PyObject *
work_result(PyObject *self, PyObject *unused)
{
    (void)unused;
    int n;
    ct_tensor *const *t = ct_work_result(WORK(self), &n);
    PyObject *l = PyList_New(n);
    for (int i = 0; l != NULL && i < n; i++) {
        PyObject *x = ctpy_wrap(t[i]);
        if (x == NULL) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, i, x);
    }
    return l;
}

static void
run_py_callback(void *ctx)
{
    PyObject *fn = ctx;
    if (_Py_IsFinalizing()) {
        return; /* too late to call Python; the object leaks */
    }
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *r = PyObject_CallNoArgs(fn);
    if (r == NULL) {
        PyErr_WriteUnraisable(fn);
    }
    Py_XDECREF(r);
    Py_DECREF(fn);
    PyGILState_Release(g);
}

static PyObject *
work_add_done_callback(PyObject *self, PyObject *fn)
{
    if (!PyCallable_Check(fn)) {
        PyErr_SetString(PyExc_TypeError, "_add_done_callback: expected a callable");
        return NULL;
    }
    Py_INCREF(fn);
    if (ct_work_add_callback(WORK(self), run_py_callback, fn) < 0) {
        Py_DECREF(fn);
        return ctpy_raise();
    }
    Py_RETURN_NONE;
}

static PyObject *
work_repr(PyObject *self)
{
    ct_work *w = WORK(self);
    return PyUnicode_FromFormat("<ctorch._C.Work %s (%s)>", ct_work_op_name(w),
                                !ct_work_is_completed(w) ? "pending"
                                : ct_work_is_success(w)  ? "done"
                                                         : "failed");
}

static PyMethodDef work_methods[] = {
    CTPY_METH("wait", work_wait,
              "wait(timeout=None) -> True; raises RuntimeError with the failure"),
    {"is_completed", work_is_completed, METH_NOARGS, NULL},
    {"is_success", work_is_success, METH_NOARGS, NULL},
    {"exception", work_exception, METH_NOARGS, NULL},
    {"source_rank", work_source_rank, METH_NOARGS, NULL},
    {"_source_rank", work_source_rank, METH_NOARGS, NULL},
    {"result", work_result, METH_NOARGS, NULL},
    {"_add_done_callback", work_add_done_callback, METH_O,
     "Call fn() once when the work completes (at once if it has)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CtWork_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ctorch._C.Work",
    .tp_basicsize = sizeof(CtWorkObject),
    .tp_dealloc = work_dealloc,
    .tp_repr = work_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The handle of a process group operation.",
    .tp_weaklistoffset = offsetof(CtWorkObject, weaklist),
    .tp_methods = work_methods,
};

static PyObject *
nccl_available_fn(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    bool ok;
    Py_BEGIN_ALLOW_THREADS
    ok = ct_nccl_available();
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

int
ctpy_dist_pg_init(PyObject *m)
{
    if (PyType_Ready(&CtPGBase_Type) < 0 || PyType_Ready(&CtPG_Type) < 0 ||
        PyType_Ready(&CtPGMPI_Type) < 0 || PyType_Ready(&CtPGNCCL_Type) < 0 ||
        PyType_Ready(&CtWork_Type) < 0) {
        return -1;
    }
    static PyMethodDef nccl_available = {
        "_nccl_available", nccl_available_fn, METH_NOARGS,
        "Whether this build has a CUDA part and NCCL can be loaded (the first call "
        "loads it)."};
    PyObject *f = PyCFunction_New(&nccl_available, NULL);
    if (f == NULL || PyModule_AddObject(m, "_nccl_available", f) < 0) {
        Py_XDECREF(f);
        return -1;
    }
    if (ct_mpi_available() &&
        PyModule_AddObjectRef(m, "ProcessGroupMPI", (PyObject *)&CtPGMPI_Type) < 0) {
        return -1;
    }
    if (PyModule_AddObjectRef(m, "ProcessGroupNCCL", (PyObject *)&CtPGNCCL_Type) < 0 ||
        PyModule_AddObjectRef(m, "ProcessGroup", (PyObject *)&CtPGBase_Type) < 0 ||
        PyModule_AddObjectRef(m, "ProcessGroupGloo", (PyObject *)&CtPG_Type) < 0 ||
        PyModule_AddObjectRef(m, "Work", (PyObject *)&CtWork_Type) < 0) {
        return -1;
    }
    return 0;
}
