/* csrc/python/shape.c -- Tensor methods and torch functions of the shape
 * family (ops_shape.h): unflatten, broadcast_to, unbind, chunk, split,
 * tensor_split, movedim, diagonal, repeat, repeat_interleave, tile, flip,
 * roll, rot90 (methods, and torch functions taking the tensor first), and
 * the torch-only cat, stack, the numpy stacks, broadcast_tensors and
 * broadcast_shapes.  Each calls the op's ctag_ form, which records its
 * derivative (csrc/autograd/functions_shape*.c).
 *
 * A torch function that is also a method is the method called on its
 * first argument (call_as_method), so each op is parsed in one place.
 * Ops that return several tensors return a tuple (tuple_result).  A list
 * of tensors arrives as one `object` argument (tensor_seq).
 */
#include "argparse.h"

#include <string.h>

#define FASTCALL_ARGS CTPY_FASTCALL_ARGS
#define METH(name, fn, doc) CTPY_METH(name, fn, doc)
#define SELF ctpy_tensor(self)

typedef PyObject *(*fastcall_fn)(PyObject *, PyObject *const *, Py_ssize_t, PyObject *);

/* --- shared plumbing ------------------------------------------------------ */
/* self.<fname>(args[1..nargs-1]) where args[0] is self: the C method when
 * given, else the method looked up on self (Tensor methods bound in other
 * files, and their Python overrides). */
static PyObject *
call_method(const char *fname, fastcall_fn method, PyObject *const *args,
            Py_ssize_t nargs, PyObject *kwnames)
{
    if (method != NULL) {
        return method(args[0], args + 1, nargs - 1, kwnames);
    }
    PyObject *name = PyUnicode_InternFromString(fname);
    if (name == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_VectorcallMethod(name, args, (size_t)nargs, kwnames);
    Py_DECREF(name);
    return r;
}

/* torch.<fname>(input, ...) as input.<fname>(...): the tensor moves from
 * the first positional argument, or from the keyword `argname`, to self
 * (see call_method for `method`).  Returns what the method returns. */
static PyObject *
call_as_method(const char *fname, const char *argname, fastcall_fn method,
               PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;

    if (nargs >= 1) {
        if (!ctpy_is_tensor(args[0])) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position 1) must be "
                         "Tensor, not %s", fname, argname, Py_TYPE(args[0])->tp_name);
            return NULL;
        }
        return call_method(fname, method, args, nargs, kwnames);
    }
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        if (PyUnicode_CompareWithASCIIString(key, argname) != 0) {
            continue;
        }
        PyObject *t = args[k];
        if (!ctpy_is_tensor(t)) {
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be Tensor, not %s",
                         fname, argname, Py_TYPE(t)->tp_name);
            return NULL;
        }
        if (nkw - 1 > CTPY_MAX_PARAMS) {
            PyErr_Format(PyExc_TypeError, "%s() got too many arguments", fname);
            return NULL;
        }
        /* self, then the other keywords' values, without this one */
        PyObject *call[CTPY_MAX_PARAMS + 1];
        PyObject *names = PyTuple_New(nkw - 1);
        if (names == NULL) {
            return NULL;
        }
        call[0] = t;
        for (Py_ssize_t j = 0, i = 0; j < nkw; j++) {
            if (j != k) {
                call[1 + i] = args[j];
                PyTuple_SET_ITEM(names, i, Py_NewRef(PyTuple_GET_ITEM(kwnames, j)));
                i++;
            }
        }
        PyObject *r = call_method(fname, method, call, 1, nkw > 1 ? names : NULL);
        Py_DECREF(names);
        return r;
    }
    PyErr_Format(PyExc_TypeError, "%s() missing 1 required positional arguments: "
                 "\"%s\"", fname, argname);
    return NULL;
}

/* A tuple of the list's tensors (rc < 0: raise).  The list is cleared. */
static PyObject *
tuple_result(int rc, ct_tensor_list *l)
{
    if (rc < 0) {
        return ctpy_raise();
    }
    PyObject *tup = PyTuple_New((Py_ssize_t)l->n);
    for (int64_t i = 0; tup != NULL && i < l->n; i++) {
        PyObject *o = ctpy_wrap(l->items[i]);
        if (o == NULL) {
            Py_CLEAR(tup);
            break;
        }
        PyTuple_SET_ITEM(tup, (Py_ssize_t)i, o);
    }
    ct_tensor_list_clear(l);
    return tup;
}

/* The tensors among items[0..n-1] (argument pos - 1 of a call, counted
 * from 0 as torch's message does): a PyMem_Malloc'd array of pointers
 * borrowed from the items.  NULL with torch's TypeError. */
static ct_tensor **
tensor_items(PyObject *const *items, Py_ssize_t n, int pos)
{
    ct_tensor **ts = PyMem_Malloc(sizeof(ct_tensor *) * (size_t)(n > 0 ? n : 1));
    if (ts == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!ctpy_is_tensor(items[i])) {
            PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument "
                         "%d, but got %s", i, pos - 1, Py_TYPE(items[i])->tp_name);
            PyMem_Free(ts);
            return NULL;
        }
        ts[i] = ctpy_tensor(items[i]);
    }
    return ts;
}

/* The tensors of a sequence argument `o` (argument `argname` of fname, at
 * position pos), as tensor_items; the new reference stored in *seq keeps
 * the items alive: release it after freeing the array.  NULL with
 * torch's TypeError (and *seq NULL). */
static ct_tensor **
tensor_seq(PyObject *o, const char *fname, const char *argname, int pos,
           PyObject **seq, Py_ssize_t *n)
{
    *seq = NULL;
    if (ctpy_is_tensor(o) || !PySequence_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %d) must be tuple "
                     "of Tensors, not %s", fname, argname, pos, Py_TYPE(o)->tp_name);
        return NULL;
    }
    *seq = PySequence_Fast(o, "expected a sequence of Tensors");
    if (*seq == NULL) {
        return NULL;
    }
    *n = PySequence_Fast_GET_SIZE(*seq);
    ct_tensor **ts = tensor_items(PySequence_Fast_ITEMS(*seq), *n, pos);
    if (ts == NULL) {
        Py_CLEAR(*seq);
    }
    return ts;
}

static int64_t
total_numel(Py_ssize_t n, ct_tensor *const *ts)
{
    int64_t s = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        s += ts[i]->numel;
    }
    return s;
}

/* --- views ------------------------------------------------------------------ */
/* as_strided(size, stride, storage_offset=None): a view with any geometry
 * inside the storage (offset defaults to the tensor's own) */
static PyObject *
as_strided(ct_tensor *t, const ctpy_arg *v)
{
    if (v[0].n != v[1].n) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    return ctpy_result(ctag_as_strided(t, v[0].n, v[0].list, v[1].list,
                                       v[2].is_none ? t->offset : v[2].i));
}

static PyObject *
t_as_strided(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("as_strided(int[] size, int[] stride, "
                                   "int? storage_offset=None)");
    ctpy_arg v[3];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return as_strided(ctpy_tensor(self), v);
}

static PyObject *
fn_as_strided(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("as_strided(Tensor input, int[] size, int[] stride, "
                                   "int? storage_offset=None)");
    ctpy_arg v[4];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return as_strided(v[0].t, v + 1);
}

static PyObject *
t_unflatten(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unflatten(int dim, int[] sizes)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_unflatten(SELF, v[0].i, v[1].n, v[1].list));
}

static PyObject *
t_broadcast_to(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("broadcast_to(int[] size)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_broadcast_to(SELF, v[0].n, v[0].list));
}

static PyObject *
t_movedim(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("movedim(int[] source, int[] destination)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_movedim(SELF, v[0].n, v[0].list, v[1].n, v[1].list));
}

static PyObject *
t_diagonal(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("diagonal(int offset=0, int dim1=0, int dim2=1)");
    ctpy_arg v[3];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_diagonal(SELF, v[0].i, v[1].i, v[2].i));
}

static PyObject *
t_unbind(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unbind(int dim=0)");
    ctpy_arg v[1];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return tuple_result(ctag_unbind(SELF, v[0].i, &l), &l);
}

static PyObject *
t_chunk(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("chunk(int chunks, int dim=0)");
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return tuple_result(ctag_chunk(SELF, v[0].i, v[1].i, &l), &l);
}

static PyObject *
t_split(FASTCALL_ARGS)
{
    static ctpy_sig s_int = CTPY_SIG("split(int split_size, int dim=0)");
    static ctpy_sig s_list = CTPY_SIG("split(int[] split_size, int dim=0)");
    static ctpy_sig *sigs[] = {&s_int, &s_list};
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 0) {
        return tuple_result(ctag_split(SELF, v[0].i, v[1].i, &l), &l);
    }
    /* a list, even of one size, is split_with_sizes (as torch's split) */
    return tuple_result(ctag_split_with_sizes(SELF, v[0].n, v[0].list, v[1].i, &l), &l);
}

static PyObject *
t_split_with_sizes(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("split_with_sizes(int[] split_sizes, int dim=0)");
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return tuple_result(ctag_split_with_sizes(SELF, v[0].n, v[0].list, v[1].i, &l), &l);
}

/* unsafe_chunk / unsafe_split(_with_sizes): the pieces are not views
 * (UnsafeSplitBackward0 ...). */
static PyObject *
t_unsafe_chunk(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unsafe_chunk(int chunks, int dim=0)");
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return tuple_result(ctag_unsafe_chunk(SELF, v[0].i, v[1].i, &l), &l);
}

static PyObject *
t_unsafe_split(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unsafe_split(int split_size, int dim=0)");
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return tuple_result(ctag_unsafe_split(SELF, v[0].i, v[1].i, &l), &l);
}

static PyObject *
t_unsafe_split_with_sizes(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("unsafe_split_with_sizes(int[] split_sizes, "
                                   "int dim=0)");
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    int rc = ctag_unsafe_split_with_sizes(SELF, v[0].n, v[0].list, v[1].i, &l);
    return tuple_result(rc, &l);
}

static PyObject *
t_tensor_split(FASTCALL_ARGS)
{
    static ctpy_sig s_tensor =
        CTPY_SIG("tensor_split(Tensor tensor_indices_or_sections, int dim=0)");
    static ctpy_sig s_int = CTPY_SIG("tensor_split(int sections, int dim=0)");
    static ctpy_sig s_list = CTPY_SIG("tensor_split(int[] indices, int dim=0)");
    static ctpy_sig *sigs[] = {&s_tensor, &s_int, &s_list};
    ctpy_arg v[2];
    ct_tensor_list l = {0, NULL};
    int which = ctpy_parse_overloads(sigs, 3, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    if (which == 1) {
        return tuple_result(ctag_tensor_split(SELF, v[0].i, v[1].i, &l), &l);
    }
    if (which == 0) {
        ct_tensor *ix = v[0].t;
        if (ix->dtype != CT_DTYPE_INT64) {
            PyErr_Format(PyExc_RuntimeError, "tensor_split expected "
                         "tensor_indices_or_sections to have dtype of long, but got %s",
                         ct_dtype_table[ix->dtype].legacy);
            return NULL;
        }
        if (ix->ndim > 1) {
            PyErr_Format(PyExc_RuntimeError, "tensor_split expected "
                         "tensor_indices_or_sections to be a zero-dimensional or "
                         "one-dimensional tensor, but got a tensor with %d dims",
                         ix->ndim);
            return NULL;
        }
        if (ix->ndim == 0) {
            int64_t sections = ct_tensor_item_at(ix, 0).v.i;
            return tuple_result(ctag_tensor_split(SELF, sections, v[1].i, &l), &l);
        }
        if (ix->numel > CT_MAX_DIMS) {
            /* indices are few in practice; the list buffer is CT_MAX_DIMS long */
            PyErr_Format(PyExc_RuntimeError, "tensor_split: at most %d indices are "
                         "supported", CT_MAX_DIMS);
            return NULL;
        }
        v[0].n = (int)ix->numel;
        for (int i = 0; i < v[0].n; i++) {
            v[0].list[i] = ct_tensor_item_at(ix, i).v.i;
        }
    }
    return tuple_result(ctag_tensor_split_indices(SELF, v[0].n, v[0].list, v[1].i, &l),
                        &l);
}

/* hsplit / vsplit / dsplit: sections, or a list of indices. */
static PyObject *
axis_split(ctpy_sig *s_int, ctpy_sig *s_list, ct_split_axis axis, PyObject *self,
           PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    ctpy_sig *sigs[] = {s_int, s_list};
    ctpy_arg v[1];
    ct_tensor_list l = {0, NULL};
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    int rc = which == 0 ? ctag_axis_split(SELF, axis, v[0].i, 0, NULL, &l)
                        : ctag_axis_split(SELF, axis, 0, v[0].n, v[0].list, &l);
    return tuple_result(rc, &l);
}

static PyObject *
t_hsplit(FASTCALL_ARGS)
{
    static ctpy_sig s_int = CTPY_SIG("hsplit(int sections)");
    static ctpy_sig s_list = CTPY_SIG("hsplit(int[] indices)");
    return axis_split(&s_int, &s_list, CT_SPLIT_H, self, args, nargs, kwnames);
}

static PyObject *
t_vsplit(FASTCALL_ARGS)
{
    static ctpy_sig s_int = CTPY_SIG("vsplit(int sections)");
    static ctpy_sig s_list = CTPY_SIG("vsplit(int[] indices)");
    return axis_split(&s_int, &s_list, CT_SPLIT_V, self, args, nargs, kwnames);
}

static PyObject *
t_dsplit(FASTCALL_ARGS)
{
    static ctpy_sig s_int = CTPY_SIG("dsplit(int sections)");
    static ctpy_sig s_list = CTPY_SIG("dsplit(int[] indices)");
    return axis_split(&s_int, &s_list, CT_SPLIT_D, self, args, nargs, kwnames);
}

/* ravel(): a view of the tensor, or of a contiguous copy. */
static PyObject *
t_ravel(PyObject *self, PyObject *unused)
{
    static const int64_t all = -1;
    (void)unused;
    /* torch's contiguous().view(-1): ViewBackward0, CloneBackward0 if copied */
    ct_tensor *c = ctag_contiguous(SELF);
    ct_tensor *r = c != NULL ? ctag_view(c, 1, &all) : NULL;
    ct_tensor_decref(c);
    return ctpy_result(r);
}

/* adjoint(): the last two dims swapped (a conjugate no-op for real dtypes). */
static PyObject *
t_adjoint(PyObject *self, PyObject *unused)
{
    (void)unused;
    if (SELF->ndim < 2) {
        PyErr_Format(PyExc_RuntimeError, "tensor.adjoint() is only supported on "
                     "matrices or batches of matrices. Got %d-D tensor.", SELF->ndim);
        return NULL;
    }
    return ctpy_result(ctag_transpose(SELF, -2, -1));
}

/* --- copies ------------------------------------------------------------------ */
/* Run call with the GIL released when numel is large. */
#define RUN_OP(res, numel, call) CTPY_RUN(numel, res = (call))

static PyObject *
t_repeat(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("repeat(int[] repeats)");
    ctpy_arg v[1];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(r, SELF->numel, ctag_repeat(SELF, v[0].n, v[0].list));
    return ctpy_result(r);
}

static PyObject *
t_tile(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("tile(int[] dims)");
    ctpy_arg v[1];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(r, SELF->numel, ctag_tile(SELF, v[0].n, v[0].list));
    return ctpy_result(r);
}

static PyObject *
t_repeat_interleave(FASTCALL_ARGS)
{
    static ctpy_sig s_tensor = CTPY_SIG("repeat_interleave(Tensor repeats, "
                                        "int? dim=None, *, int? output_size=None)");
    static ctpy_sig s_int = CTPY_SIG("repeat_interleave(int repeats, int? dim=None, *, "
                                     "int? output_size=None)");
    static ctpy_sig *sigs[] = {&s_tensor, &s_int};
    ctpy_arg v[3];
    ct_tensor *r;
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return NULL;
    }
    const int64_t *dim = v[1].is_none ? NULL : &v[1].i;
    int64_t osize = v[2].is_none ? -1 : v[2].i;
    if (which == 0) {
        RUN_OP(r, SELF->numel, ctag_repeat_interleave_tensor(SELF, v[0].t, dim, osize));
    }
    else {
        RUN_OP(r, SELF->numel, ctag_repeat_interleave(SELF, v[0].i, dim, osize));
    }
    return ctpy_result(r);
}

static PyObject *
t_flip(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("flip(int[] dims)");
    ctpy_arg v[1];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(r, SELF->numel, ctag_flip(SELF, v[0].n, v[0].list));
    return ctpy_result(r);
}

static PyObject *
t_fliplr(PyObject *self, PyObject *unused)
{
    ct_tensor *r;
    (void)unused;
    RUN_OP(r, SELF->numel, ctag_fliplr(SELF));
    return ctpy_result(r);
}

static PyObject *
t_flipud(PyObject *self, PyObject *unused)
{
    ct_tensor *r;
    (void)unused;
    RUN_OP(r, SELF->numel, ctag_flipud(SELF));
    return ctpy_result(r);
}

static PyObject *
t_roll(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("roll(int[] shifts, int[] dims=[])");
    ctpy_arg v[2];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[1].is_none) {
        v[1].n = 0;
    }
    RUN_OP(r, SELF->numel, ctag_roll(SELF, v[0].n, v[0].list, v[1].n, v[1].list));
    return ctpy_result(r);
}

static PyObject *
t_rot90(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("rot90(int k=1, int[]? dims=None)");
    ctpy_arg v[2];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (v[1].is_none) {
        v[1].n = 2;
        v[1].list[0] = 0;
        v[1].list[1] = 1;
    }
    RUN_OP(r, SELF->numel, ctag_rot90(SELF, v[0].i, v[1].n, v[1].list));
    return ctpy_result(r);
}

/* --- torch functions that are methods called on their first argument ---- */
static PyObject *
fn_unflatten(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unflatten", "input", t_unflatten, args, nargs, kwnames);
}

static PyObject *
fn_broadcast_to(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("broadcast_to", "input", t_broadcast_to, args, nargs,
                          kwnames);
}

static PyObject *
fn_movedim(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("movedim", "input", t_movedim, args, nargs, kwnames);
}

static PyObject *
fn_diagonal(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("diagonal", "input", t_diagonal, args, nargs, kwnames);
}

static PyObject *
fn_unbind(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unbind", "input", t_unbind, args, nargs, kwnames);
}

static PyObject *
fn_chunk(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("chunk", "input", t_chunk, args, nargs, kwnames);
}

static PyObject *
fn_split(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("split", "tensor", t_split, args, nargs, kwnames);
}

static PyObject *
fn_split_with_sizes(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("split_with_sizes", "input", t_split_with_sizes, args, nargs,
                          kwnames);
}

static PyObject *
fn_unsafe_chunk(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unsafe_chunk", "input", t_unsafe_chunk, args, nargs,
                          kwnames);
}

static PyObject *
fn_unsafe_split(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unsafe_split", "input", t_unsafe_split, args, nargs,
                          kwnames);
}

static PyObject *
fn_unsafe_split_with_sizes(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unsafe_split_with_sizes", "input", t_unsafe_split_with_sizes,
                          args, nargs, kwnames);
}

static PyObject *
fn_tensor_split(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("tensor_split", "input", t_tensor_split, args, nargs,
                          kwnames);
}

static PyObject *
fn_tile(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("tile", "input", t_tile, args, nargs, kwnames);
}

static PyObject *
fn_flip(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("flip", "input", t_flip, args, nargs, kwnames);
}

static PyObject *
fn_roll(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("roll", "input", t_roll, args, nargs, kwnames);
}

static PyObject *
fn_rot90(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("rot90", "input", t_rot90, args, nargs, kwnames);
}

static PyObject *
fn_fliplr(PyObject *self, PyObject *input)
{
    if (!ctpy_is_tensor(input)) {
        PyErr_Format(PyExc_TypeError, "fliplr(): argument 'input' (position 1) must be "
                     "Tensor, not %s", Py_TYPE(input)->tp_name);
        return NULL;
    }
    return t_fliplr(input, self);
}

static PyObject *
fn_flipud(PyObject *self, PyObject *input)
{
    if (!ctpy_is_tensor(input)) {
        PyErr_Format(PyExc_TypeError, "flipud(): argument 'input' (position 1) must be "
                     "Tensor, not %s", Py_TYPE(input)->tp_name);
        return NULL;
    }
    return t_flipud(input, self);
}

static PyObject *
fn_hsplit(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("hsplit", "input", t_hsplit, args, nargs, kwnames);
}

static PyObject *
fn_vsplit(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("vsplit", "input", t_vsplit, args, nargs, kwnames);
}

static PyObject *
fn_dsplit(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("dsplit", "input", t_dsplit, args, nargs, kwnames);
}

static PyObject *
fn_ravel(PyObject *self, PyObject *input)
{
    if (!ctpy_is_tensor(input)) {
        PyErr_Format(PyExc_TypeError, "ravel(): argument 'input' (position 1) must be "
                     "Tensor, not %s", Py_TYPE(input)->tp_name);
        return NULL;
    }
    return t_ravel(input, self);
}

static PyObject *
fn_adjoint(PyObject *self, PyObject *input)
{
    if (!ctpy_is_tensor(input)) {
        PyErr_Format(PyExc_TypeError, "adjoint(): argument 'input' (position 1) must "
                     "be Tensor, not %s", Py_TYPE(input)->tp_name);
        return NULL;
    }
    return t_adjoint(input, self);
}

/* torch functions for the view methods bound in tensor_methods.c: the
 * method looked up on the input (call_method with no C function). */
static PyObject *
fn_reshape(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("reshape", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_transpose(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("transpose", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_swapaxes(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("swapaxes", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_swapdims(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("swapdims", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_permute(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("permute", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_squeeze(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("squeeze", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_unsqueeze(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("unsqueeze", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_narrow(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("narrow", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_select(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("select", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_flatten(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("flatten", "input", NULL, args, nargs, kwnames);
}

static PyObject *
fn_t(FASTCALL_ARGS)
{
    (void)self;
    return call_as_method("t", "input", NULL, args, nargs, kwnames);
}

/* torch.atleast_{1,2,3}d(*tensors): one tensor in, one out; several (or
 * one list) in, a tuple out. */
static PyObject *
atleast(const char *fname, int k, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *seq = NULL;
    Py_ssize_t n = nargs;
    ct_tensor **ts;

    if (nargs == 1 && ctpy_is_tensor(args[0])) {
        return ctpy_result(ctag_atleast(ctpy_tensor(args[0]), k));
    }
    if (nargs == 1 && (PyList_Check(args[0]) || PyTuple_Check(args[0]))) {
        ts = tensor_seq(args[0], fname, "tensors", 1, &seq, &n);
    }
    else {
        ts = tensor_items(args, nargs, 1);
    }
    if (ts == NULL) {
        return NULL;
    }
    PyObject *tup = PyTuple_New(n);
    for (Py_ssize_t i = 0; tup != NULL && i < n; i++) {
        PyObject *o = ctpy_result(ctag_atleast(ts[i], k));
        if (o == NULL) {
            Py_CLEAR(tup);
            break;
        }
        PyTuple_SET_ITEM(tup, i, o);
    }
    PyMem_Free(ts);
    Py_XDECREF(seq);
    return tup;
}

static PyObject *
fn_atleast_1d(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return atleast("atleast_1d", 1, args, nargs);
}

static PyObject *
fn_atleast_2d(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return atleast("atleast_2d", 2, args, nargs);
}

static PyObject *
fn_atleast_3d(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    return atleast("atleast_3d", 3, args, nargs);
}

/* torch.repeat_interleave(input, repeats, dim=None, *, output_size=None),
 * or torch.repeat_interleave(repeats, *, output_size=None): the indices. */
static PyObject *
fn_repeat_interleave(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("repeat_interleave(Tensor repeats, *, "
                                   "int? output_size=None)");
    (void)self;
    bool index_form = nargs == 1;
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; index_form && k < nkw; k++) {
        index_form = PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k),
                                                      "output_size") == 0;
    }
    if (!index_form) {
        return call_as_method("repeat_interleave", "input", t_repeat_interleave, args,
                              nargs, kwnames);
    }
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ct_repeat_interleave_index(v[0].t, v[1].is_none ? -1 : v[1].i));
}

/* --- joining: cat, stack and the numpy stacks ------------------------------ */
typedef ct_tensor *(*join_fn)(int64_t n, const ct_tensor *const *ts, int64_t dim,
                              ct_tensor *out);

/* torch's TypeError for a call of cat (which has a second, named-dim
 * overload) with more than one argument that fits neither:
 * the argument types, and both signatures.  Replaces the pending
 * TypeError; returns NULL. */
static PyObject *
join_overload_error(const ctpy_sig *sig, PyObject *const *args, Py_ssize_t nargs,
                    PyObject *kwnames)
{
    Py_ssize_t nkw = kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *got = PyUnicode_FromString("");

    PyErr_Clear();
    for (Py_ssize_t i = 0; got != NULL && i < nargs + nkw; i++) {
        PyObject *g;
        const char *sep = i > 0 ? ", " : "", *tn = Py_TYPE(args[i])->tp_name;
        if (i < nargs) {
            g = PyUnicode_FromFormat("%U%s%s", got, sep, tn);
        }
        else {
            g = PyUnicode_FromFormat("%U%s%U=%s", got, sep,
                                     PyTuple_GET_ITEM(kwnames, i - nargs), tn);
        }
        Py_SETREF(got, g);
    }
    if (got != NULL) {
        const char *t = sig->params[0].name, *d = sig->params[1].name;
        PyErr_Format(PyExc_TypeError, "%s() received an invalid combination of "
                     "arguments - got (%U), but expected one of:\n"
                     " * (tuple of Tensors %s, int %s, *, Tensor out)\n"
                     " * (tuple of Tensors %s, name %s, *, Tensor out)\n",
                     sig->fname, got, t, d, t, d);
        Py_DECREF(got);
    }
    return NULL;
}

/* The shared body of the joining functions: parse `sig` (tensors, [dim,]
 * out), convert the sequence, run op with the GIL released when large. */
static PyObject *
join(ctpy_sig *sig, bool has_dim, join_fn op, PyObject *const *args, Py_ssize_t nargs,
     PyObject *kwnames)
{
    ctpy_arg v[3];
    PyObject *seq = NULL;
    Py_ssize_t n = 0;
    ct_tensor *r;
    Py_ssize_t nall = nargs + (kwnames != NULL ? PyTuple_GET_SIZE(kwnames) : 0);
    bool overloaded = op == ctag_cat && nall > 1;     /* cat's named-dim twin */

    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        if (overloaded && PyErr_ExceptionMatches(PyExc_TypeError)) {
            return join_overload_error(sig, args, nargs, kwnames);
        }
        return NULL;
    }
    const ctpy_arg *out = &v[has_dim ? 2 : 1];
    if (overloaded && (ctpy_is_tensor(v[0].obj) || !PySequence_Check(v[0].obj))) {
        return join_overload_error(sig, args, nargs, kwnames);
    }
    ct_tensor **ts = tensor_seq(v[0].obj, sig->fname, sig->params[0].name, 1, &seq, &n);
    if (ts == NULL) {
        return NULL;
    }
    int64_t dim = has_dim ? v[1].i : 0;
    ct_tensor *o = out->is_none ? NULL : out->t;
    RUN_OP(r, total_numel(n, ts), op(n, (const ct_tensor *const *)ts, dim, o));
    PyMem_Free(ts);
    Py_DECREF(seq);
    if (r != NULL && o != NULL) {
        ctpy_bump(r);
    }
    /* torch warns about resizing out= before failing on its overlap */
    if (r == NULL && ct_warning_pending() && ctpy_flush_warnings() < 0) {
        ct_error_clear();
        return NULL;
    }
    return ctpy_result(r);
}

static ct_tensor *
join_hstack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    (void)dim;
    return ctag_hstack(n, ts, out);
}

static ct_tensor *
join_vstack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    (void)dim;
    return ctag_vstack(n, ts, out);
}

static ct_tensor *
join_dstack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    (void)dim;
    return ctag_dstack(n, ts, out);
}

static ct_tensor *
join_column_stack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    (void)dim;
    return ctag_column_stack(n, ts, out);
}

static PyObject *
fn_cat(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("cat(object tensors, int dim=0, *, "
                                   "Tensor? out=None)");
    (void)self;
    return join(&sig, true, ctag_cat, args, nargs, kwnames);
}

static PyObject *
fn_concat(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("concat(object tensors, int dim=0, *, "
                                   "Tensor? out=None)");
    (void)self;
    return join(&sig, true, ctag_cat, args, nargs, kwnames);
}

static PyObject *
fn_concatenate(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("concatenate(object tensors, int axis=0, *, "
                                   "Tensor? out=None)");
    (void)self;
    return join(&sig, true, ctag_cat, args, nargs, kwnames);
}

static PyObject *
fn_stack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("stack(object tensors, int dim=0, *, "
                                   "Tensor? out=None)");
    (void)self;
    return join(&sig, true, ctag_stack, args, nargs, kwnames);
}

static PyObject *
fn_hstack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("hstack(object tensors, *, Tensor? out=None)");
    (void)self;
    return join(&sig, false, join_hstack, args, nargs, kwnames);
}

static PyObject *
fn_vstack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("vstack(object tensors, *, Tensor? out=None)");
    (void)self;
    return join(&sig, false, join_vstack, args, nargs, kwnames);
}

static PyObject *
fn_dstack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("dstack(object tensors, *, Tensor? out=None)");
    (void)self;
    return join(&sig, false, join_dstack, args, nargs, kwnames);
}

static PyObject *
fn_column_stack(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("column_stack(object tensors, *, Tensor? out=None)");
    (void)self;
    return join(&sig, false, join_column_stack, args, nargs, kwnames);
}

/* --- broadcasting ------------------------------------------------------------ */
/* torch.broadcast_tensors(*tensors) (a single list or tuple is accepted). */
static PyObject *
fn_broadcast_tensors(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *seq = NULL;
    Py_ssize_t n = nargs;
    ct_tensor_list l = {0, NULL};
    ct_tensor **ts;
    (void)self;

    if (nargs == 1 && (PyList_Check(args[0]) || PyTuple_Check(args[0]))) {
        ts = tensor_seq(args[0], "broadcast_tensors", "tensors", 1, &seq, &n);
    }
    else {
        ts = tensor_items(args, nargs, 1);
    }
    if (ts == NULL) {
        return NULL;
    }
    int rc = ctag_broadcast_tensors(n, (const ct_tensor *const *)ts, &l);
    PyMem_Free(ts);
    Py_XDECREF(seq);
    return tuple_result(rc, &l);
}

/* torch.broadcast_shapes(*shapes): torch's Python algorithm, in C. */
static PyObject *
fn_broadcast_shapes(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    int64_t result[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    int ndim = 0, n;
    (void)self;

    for (Py_ssize_t a = 0; a < nargs; a++) {
        int rc = ctpy_to_intlist(args[a], &n, shape, "broadcast_shapes", "shapes");
        if (rc > 0) {
            PyObject *s = PyObject_Repr(args[a]);
            if (s != NULL) {
                PyErr_Format(PyExc_RuntimeError, "('Input shapes should be of type "
                             "ints, a tuple of ints, or a list of ints, got ', %U)", s);
                Py_DECREF(s);
            }
            return NULL;
        }
        if (rc < 0) {
            return NULL;
        }
        if (n > ndim) {
            /* grow on the left with 1s */
            memmove(result + (n - ndim), result, sizeof(int64_t) * (size_t)ndim);
            for (int i = 0; i < n - ndim; i++) {
                result[i] = 1;
            }
            ndim = n;
        }
        for (int i = 1; i <= n; i++) {
            int64_t s = shape[n - i], *r = &result[ndim - i];
            if (s < 0) {
                PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with "
                             "negative dimension (%lld): (%lld)", (long long)s,
                             (long long)s);
                return NULL;
            }
            if (s == 1 || s == *r) {
                continue;
            }
            if (*r != 1) {
                PyErr_SetString(PyExc_RuntimeError, "Shape mismatch: objects cannot be "
                                "broadcast to a single shape");
                return NULL;
            }
            *r = s;
        }
    }
    return ctpy_size_new(ndim, result);
}

/* --- tables -------------------------------------------------------------------- */
PyMethodDef ctpy_shape_methods[] = {
    METH("as_strided", t_as_strided, "as_strided(size, stride, storage_offset=None)"),
    METH("unflatten", t_unflatten, "unflatten(dim, sizes) -> Tensor (a view)"),
    METH("broadcast_to", t_broadcast_to, "broadcast_to(size) -> Tensor (a view)"),
    METH("movedim", t_movedim, "movedim(source, destination) -> Tensor (a view)"),
    METH("moveaxis", t_movedim, "Alias for movedim()."),
    METH("diagonal", t_diagonal, "diagonal(offset=0, dim1=0, dim2=1) -> Tensor"),
    METH("unbind", t_unbind, "unbind(dim=0) -> tuple of views"),
    METH("chunk", t_chunk, "chunk(chunks, dim=0) -> tuple of views"),
    METH("split", t_split, "split(split_size, dim=0) -> tuple of views"),
    METH("split_with_sizes", t_split_with_sizes, NULL),
    METH("tensor_split", t_tensor_split,
         "tensor_split(indices_or_sections, dim=0) -> tuple of views"),
    METH("unsafe_chunk", t_unsafe_chunk, NULL),
    METH("unsafe_split", t_unsafe_split, NULL),
    METH("unsafe_split_with_sizes", t_unsafe_split_with_sizes, NULL),
    METH("hsplit", t_hsplit, "hsplit(indices_or_sections) -> tuple of views"),
    METH("vsplit", t_vsplit, "vsplit(indices_or_sections) -> tuple of views"),
    METH("dsplit", t_dsplit, "dsplit(indices_or_sections) -> tuple of views"),
    {"ravel", (PyCFunction)t_ravel, METH_NOARGS, "ravel() -> Tensor (1-D)"},
    {"adjoint", (PyCFunction)t_adjoint, METH_NOARGS, NULL},
    METH("repeat", t_repeat, "repeat(*repeats) -> Tensor"),
    METH("tile", t_tile, "tile(*dims) -> Tensor"),
    METH("repeat_interleave", t_repeat_interleave,
         "repeat_interleave(repeats, dim=None, *, output_size=None) -> Tensor"),
    METH("flip", t_flip, "flip(dims) -> Tensor"),
    {"fliplr", (PyCFunction)t_fliplr, METH_NOARGS, NULL},
    {"flipud", (PyCFunction)t_flipud, METH_NOARGS, NULL},
    METH("roll", t_roll, "roll(shifts, dims=None) -> Tensor"),
    METH("rot90", t_rot90, "rot90(k=1, dims=[0, 1]) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_shape_functions[] = {
    METH("as_strided", fn_as_strided, NULL),
    METH("unflatten", fn_unflatten, NULL),
    METH("broadcast_to", fn_broadcast_to, NULL),
    METH("movedim", fn_movedim, NULL),
    METH("moveaxis", fn_movedim, NULL),
    METH("diagonal", fn_diagonal, NULL),
    METH("unbind", fn_unbind, NULL),
    METH("chunk", fn_chunk, NULL),
    METH("split", fn_split, NULL),
    METH("split_with_sizes", fn_split_with_sizes, NULL),
    METH("tensor_split", fn_tensor_split, NULL),
    METH("unsafe_chunk", fn_unsafe_chunk, NULL),
    METH("unsafe_split", fn_unsafe_split, NULL),
    METH("unsafe_split_with_sizes", fn_unsafe_split_with_sizes, NULL),
    METH("hsplit", fn_hsplit, NULL),
    METH("vsplit", fn_vsplit, NULL),
    METH("dsplit", fn_dsplit, NULL),
    {"ravel", (PyCFunction)fn_ravel, METH_O, NULL},
    {"adjoint", (PyCFunction)fn_adjoint, METH_O, NULL},
    METH("reshape", fn_reshape, NULL),
    METH("transpose", fn_transpose, NULL),
    METH("swapaxes", fn_swapaxes, NULL),
    METH("swapdims", fn_swapdims, NULL),
    METH("permute", fn_permute, NULL),
    METH("squeeze", fn_squeeze, NULL),
    METH("unsqueeze", fn_unsqueeze, NULL),
    METH("narrow", fn_narrow, NULL),
    METH("select", fn_select, NULL),
    METH("flatten", fn_flatten, NULL),
    METH("t", fn_t, NULL),
    {"atleast_1d", (PyCFunction)(void (*)(void))fn_atleast_1d, METH_FASTCALL, NULL},
    {"atleast_2d", (PyCFunction)(void (*)(void))fn_atleast_2d, METH_FASTCALL, NULL},
    {"atleast_3d", (PyCFunction)(void (*)(void))fn_atleast_3d, METH_FASTCALL, NULL},
    METH("tile", fn_tile, NULL),
    METH("repeat_interleave", fn_repeat_interleave, NULL),
    METH("flip", fn_flip, NULL),
    {"fliplr", (PyCFunction)fn_fliplr, METH_O, NULL},
    {"flipud", (PyCFunction)fn_flipud, METH_O, NULL},
    METH("roll", fn_roll, NULL),
    METH("rot90", fn_rot90, NULL),
    METH("cat", fn_cat, "cat(tensors, dim=0, *, out=None) -> Tensor"),
    METH("concat", fn_concat, "Alias for cat()."),
    METH("concatenate", fn_concatenate, "Alias for cat()."),
    METH("stack", fn_stack, "stack(tensors, dim=0, *, out=None) -> Tensor"),
    METH("hstack", fn_hstack, NULL),
    METH("vstack", fn_vstack, NULL),
    METH("row_stack", fn_vstack, "Alias for vstack()."),
    METH("dstack", fn_dstack, NULL),
    METH("column_stack", fn_column_stack, NULL),
    {"broadcast_tensors", (PyCFunction)(void (*)(void))fn_broadcast_tensors,
     METH_FASTCALL, "broadcast_tensors(*tensors) -> tuple of views"},
    {"broadcast_shapes", (PyCFunction)(void (*)(void))fn_broadcast_shapes,
     METH_FASTCALL, "broadcast_shapes(*shapes) -> torch.Size"},
    {NULL, NULL, 0, NULL},
};
