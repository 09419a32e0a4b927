/* csrc/python/sort.c -- Python bindings of sorting and selection
 * (include/ctorch/ops_sort.h): torch functions and Tensor methods, merged
 * into _C by module.c (Note [Method tables]).
 *
 * As in reduce.c, each op is written once as an `impl_<op>` taking torch's
 * function signature (input first); the torch function calls it directly
 * and the Tensor method with self prepended, so both spellings parse, fail
 * and print alike.  sort, topk and kthvalue return torch.return_types
 * named tuples (return_types.c, which this file's table also exposes to
 * ctorch.return_types).  Parsed tensors are borrowed; numbers wrapped for a TensorN
 * parameter are dropped by ctpy_release.
 */
#include "argparse.h"

#include <string.h>

#define FASTCALL PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames


/* Run `call` with the GIL released when the input is large. */
#define RUN_OP(numel, call) CTPY_RUN(numel, call)

/* --- torch.return_types --------------------------------------------------- */
/* the _out types name the results of the out= forms, as in torch */
#define FORALL_RETURN_TYPES(X) \
    X(sort) X(topk) X(kthvalue) X(sort_out) X(topk_out) X(kthvalue_out)

typedef enum {
#define X(N) RT_##N,
    FORALL_RETURN_TYPES(X)
#undef X
    RT_COUNT
} rt_kind;

static const char *const rt_names[RT_COUNT] = {
#define X(N) "torch.return_types." #N,
    FORALL_RETURN_TYPES(X)
#undef X
};


static PyObject *
rt_pair(rt_kind kind, int rc, ct_tensor *values, ct_tensor *indices)
{
    return ctpy_return_pair(rt_names[kind], rc, values, indices);
}


/* Copy res into o (resized to res's shape when it differs): the out=
 * form.  0, or -1 with the ct error set. */
static int
copy_into(ct_tensor *o, const ct_tensor *res)
{
    bool same = o->ndim == res->ndim;
    for (int d = 0; same && d < o->ndim; d++) {
        same = o->sizes[d] == res->sizes[d];
    }
    if ((!same && ct_tensor_resize_(o, res->ndim, res->sizes) < 0) ||
        ct_copy_(o, res) < 0) {
        return -1;
    }
    ctpy_bump(o);
    return 0;
}

/* Finish a one-result op with a `Tensor? out` argument; takes over our
 * reference to res.  Returns a new reference or NULL. */
static PyObject *
one_out(ct_tensor *res, const ctpy_arg *out)
{
    if (res == NULL) {
        return ctpy_raise();
    }
    if (out->is_none) {
        return ctpy_result(res);
    }
    int rc = copy_into(out->t, res);
    ct_tensor_decref(res);
    return rc < 0 ? ctpy_raise() : ctpy_wrap(out->t);
}

/* The out= of a two-result op: None, or a tuple / list of two tensors
 * (borrowed into o[0], o[1]).  0, 1 when given, -1 with TypeError. */
static int
pair_out(const ctpy_arg *out, const char *fname, ct_tensor **o)
{
    if (out->is_none) {
        return 0;
    }
    PyObject *x = out->obj;
    if (!(PyTuple_Check(x) || PyList_Check(x)) || PySequence_Size(x) != 2 ||
        !ctpy_is_tensor(PySequence_Fast_GET_ITEM(x, 0)) ||
        !ctpy_is_tensor(PySequence_Fast_GET_ITEM(x, 1))) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'out' must be tuple of Tensors, "
                     "not %s", fname, Py_TYPE(x)->tp_name);
        return -1;
    }
    o[0] = ctpy_tensor(PySequence_Fast_GET_ITEM(x, 0));
    o[1] = ctpy_tensor(PySequence_Fast_GET_ITEM(x, 1));
    return 1;
}

/* Finish a two-result op: the named tuple, of the out= tensors when
 * given (which torch refuses when the values would need a history).
 * Drops our references to values and indices. */
static PyObject *
pair_result(rt_kind kind, int rc, ct_tensor *values, ct_tensor *indices,
            int given, ct_tensor **o)
{
    if (rc < 0 || given <= 0) {
        return rt_pair(kind, rc, values, indices);
    }
    if (ct_requires_grad(values)) {
        ct_tensor_decref(values);
        ct_tensor_decref(indices);
        PyErr_Format(PyExc_RuntimeError, "%s(): functions with out=... arguments don't "
                     "support automatic differentiation, but one of the arguments "
                     "requires grad.", rt_names[kind] + strlen("torch.return_types."));
        return NULL;
    }
    if (copy_into(o[0], values) < 0 || copy_into(o[1], indices) < 0) {
        ct_tensor_decref(values);
        ct_tensor_decref(indices);
        return ctpy_raise();
    }
    ct_tensor_decref(values);
    ct_tensor_decref(indices);
    ct_tensor_incref(o[0]);
    ct_tensor_incref(o[1]);
    return rt_pair(kind + (RT_sort_out - RT_sort), 0, o[0], o[1]);
}

/* --- sort, argsort, msort, topk, kthvalue ---------------------------------- */
static PyObject *
impl_sort(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("sort(Tensor input, int dim=-1, "
                                   "bool descending=False, *, bool? stable=None, "
                                   "object? out=None)");
    ctpy_arg v[5];
    ct_tensor *a = NULL, *b = NULL, *o[2];
    int rc, given;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        (given = pair_out(&v[4], "sort", o)) < 0) {
        return NULL;
    }
    bool stable = !v[3].is_none && v[3].b;
    RUN_OP(v[0].t->numel, rc = ctag_sort(v[0].t, v[1].i, v[2].b, stable, &a, &b));
    return pair_result(RT_sort, rc, a, b, given, o);
}

static PyObject *
impl_argsort(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("argsort(Tensor input, int dim=-1, "
                                   "bool descending=False, *, bool stable=False)");
    ctpy_arg v[4];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(v[0].t->numel, r = ct_argsort(v[0].t, v[1].i, v[2].b, v[3].b));
    return ctpy_result(r);
}

static PyObject *
impl_msort(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("msort(Tensor input)");
    ctpy_arg v[1];
    ct_tensor *a = NULL, *b = NULL;
    int rc;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(v[0].t->numel, rc = ctag_sort(v[0].t, 0, false, false, &a, &b));
    if (rc < 0) {
        return ctpy_raise();
    }
    ct_tensor_decref(b);
    return ctpy_result(a);
}

static PyObject *
impl_topk(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("topk(Tensor input, int k, int dim=-1, "
                                   "bool largest=True, bool sorted=True, *, "
                                   "object? out=None)");
    ctpy_arg v[6];
    ct_tensor *a = NULL, *b = NULL, *o[2];
    int rc, given;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        (given = pair_out(&v[5], "topk", o)) < 0) {
        return NULL;
    }
    RUN_OP(v[0].t->numel,
           rc = ctag_topk(v[0].t, v[1].i, v[2].i, v[3].b, v[4].b, &a, &b));
    return pair_result(RT_topk, rc, a, b, given, o);
}

static PyObject *
impl_kthvalue(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("kthvalue(Tensor input, int k, int dim=-1, "
                                   "bool keepdim=False, *, object? out=None)");
    ctpy_arg v[5];
    ct_tensor *a = NULL, *b = NULL, *o[2];
    int rc, given;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0 ||
        (given = pair_out(&v[4], "kthvalue", o)) < 0) {
        return NULL;
    }
    RUN_OP(v[0].t->numel, rc = ctag_kthvalue(v[0].t, v[1].i, v[2].i, v[3].b, &a, &b));
    return pair_result(RT_kthvalue, rc, a, b, given, o);
}

/* --- unique, unique_consecutive -------------------------------------------- */
/* torch.unique and torch.unique_consecutive are Python wrappers that call
 * a native op (_unique2, unique_dim, unique_consecutive) with `input` (and
 * unique_dim's `dim`) by position and the flags by keyword.  The bindings
 * take the wrapper's arguments as objects, then parse them again with the
 * native op's signature, so that type errors name the op as torch's do. */

/* Parse into v with `sig`: the npos objects pos[] by position, then each
 * parameter kw[i] of `outer` that the caller gave (ov) by its name. */
static int
reparse(ctpy_sig *sig, ctpy_arg *v, PyObject *const *pos, int npos,
        const ctpy_sig *outer, const ctpy_arg *ov, const int *kw, int nkw)
{
    PyObject *argv[CTPY_MAX_PARAMS], *names = NULL;
    int n = 0, k = 0, rc;
    for (int i = 0; i < nkw; i++) {
        k += ov[kw[i]].given;
    }
    if (k > 0 && (names = PyTuple_New(k)) == NULL) {
        return -1;
    }
    for (int i = 0; i < npos; i++) {
        argv[n++] = pos[i];
    }
    k = 0;
    for (int i = 0; i < nkw; i++) {
        if (ov[kw[i]].given) {
            PyTuple_SET_ITEM(names, k++, Py_NewRef(outer->params[kw[i]].pyname));
            argv[n++] = ov[kw[i]].obj;
        }
    }
    rc = ctpy_parse(sig, argv, npos, names, v);
    Py_XDECREF(names);
    return rc;
}

/* The values alone, or a tuple with inverse and/or counts (those not
 * wanted are NULL).  Drops our references. */
static PyObject *
unique_result(int rc, ct_tensor **res)
{
    PyObject *items[3] = {NULL, NULL, NULL}, *out = NULL;
    int n = 0;
    if (rc < 0) {
        return ctpy_raise();
    }
    if (res[1] == NULL && res[2] == NULL) {
        return ctpy_result(res[0]);
    }
    for (int i = 0; i < 3; i++) {
        if (res[i] != NULL && (items[n++] = ctpy_wrap(res[i])) == NULL) {
            goto done;
        }
    }
    out = n == 2 ? PyTuple_Pack(2, items[0], items[1])
                 : PyTuple_Pack(3, items[0], items[1], items[2]);
done:
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(items[i]);
        ct_tensor_decref(res[i]);
    }
    return out;
}

static PyObject *
impl_unique(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("unique(object input, object? sorted=None, "
                                   "object? return_inverse=None, "
                                   "object? return_counts=None, object? dim=None)");
    static ctpy_sig flat = CTPY_SIG("_unique2(Tensor input, bool sorted=True, "
                                    "bool return_inverse=False, "
                                    "bool return_counts=False)");
    static ctpy_sig dims = CTPY_SIG("unique_dim(Tensor input, int dim, "
                                    "bool sorted=True, bool return_inverse=False, "
                                    "bool return_counts=False)");
    static const int flags[] = {1, 2, 3};
    ctpy_arg o[5], v[5];
    ct_tensor *res[3] = {NULL, NULL, NULL};
    int rc;
    if (ctpy_parse(&sig, args, nargs, kwnames, o) < 0) {
        return NULL;
    }
    bool by_dim = !o[4].is_none;
    PyObject *pos[2] = {o[0].obj, o[4].obj};
    ctpy_sig *native = by_dim ? &dims : &flat;
    if (reparse(native, v, pos, by_dim ? 2 : 1, &sig, o, flags, 3) < 0) {
        return NULL;
    }
    /* v: input, [dim,] sorted, return_inverse, return_counts */
    const ct_tensor *t = v[0].t;
    int f = by_dim ? 2 : 1;
    ct_tensor **inv = v[f + 1].b ? &res[1] : NULL, **cnt = v[f + 2].b ? &res[2] : NULL;
    if (by_dim) {
        RUN_OP(t->numel, rc = ct_unique_dim(t, v[1].i, false, &res[0], inv, cnt));
    }
    else {
        RUN_OP(t->numel, rc = ct_unique(t, v[1].b, &res[0], inv, cnt));
    }
    return unique_result(rc, res);
}

static PyObject *
impl_unique_consecutive(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("unique_consecutive(object input, "
                                   "object? return_inverse=None, "
                                   "object? return_counts=None, object? dim=None)");
    static ctpy_sig native = CTPY_SIG("unique_consecutive(Tensor input, "
                                      "bool return_inverse=False, "
                                      "bool return_counts=False, int? dim=None)");
    static const int flags[] = {1, 2, 3};
    ctpy_arg o[4], v[4];
    ct_tensor *res[3] = {NULL, NULL, NULL};
    int rc;
    if (ctpy_parse(&sig, args, nargs, kwnames, o) < 0 ||
        reparse(&native, v, &o[0].obj, 1, &sig, o, flags, 3) < 0) {
        return NULL;
    }
    const ct_tensor *t = v[0].t;
    ct_tensor **inv = v[1].b ? &res[1] : NULL, **cnt = v[2].b ? &res[2] : NULL;
    if (v[3].is_none) {
        RUN_OP(t->numel, rc = ct_unique_consecutive(t, &res[0], inv, cnt));
    }
    else {
        RUN_OP(t->numel, rc = ct_unique_dim(t, v[3].i, true, &res[0], inv, cnt));
    }
    return unique_result(rc, res);
}

/* --- searchsorted, bucketize ----------------------------------------------------- */
/* side= ("left" / "right") folded into right; -1 with torch's error. */
static int
side_to_right(PyObject *side, bool right_given, bool *right)
{
    if (side == NULL || side == Py_None) {
        return 0;
    }
    const char *s = PyUnicode_AsUTF8(side);
    if (s == NULL) {
        return -1;
    }
    bool is_right = strcmp(s, "right") == 0;
    if (!is_right && strcmp(s, "left") != 0) {
        PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): side can only be "
                     "'left' or 'right' but got %s", s);
        return -1;
    }
    if (right_given && *right && !is_right) {
        PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): side and right can't "
                     "be set to opposites, got side of %s while right was True", s);
        return -1;
    }
    *right = is_right;
    return 0;
}

static PyObject *
impl_searchsorted(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("searchsorted(Tensor sorted_sequence, "
                                   "TensorN input, *, bool out_int32=False, "
                                   "bool right=False, str? side=None, "
                                   "Tensor? sorter=None, Tensor? out=None)");
    ctpy_arg v[7];
    ct_tensor *r = NULL;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    bool right = v[3].b;
    if (side_to_right(v[4].is_none ? NULL : v[4].obj, v[3].given, &right) == 0) {
        RUN_OP(v[1].t->numel, r = ct_searchsorted(v[0].t, v[1].t, v[2].b, right,
                                                  v[5].is_none ? NULL : v[5].t));
        if (r == NULL) {
            ctpy_raise();
        }
    }
    ctpy_release(&sig, v);
    if (r == NULL) {
        return NULL;
    }
    return one_out(r, &v[6]);
}

static PyObject *
impl_bucketize(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("bucketize(TensorN input, Tensor boundaries, *, "
                                   "bool out_int32=False, bool right=False, "
                                   "Tensor? out=None)");
    ctpy_arg v[5];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    RUN_OP(v[0].t->numel, r = ct_bucketize(v[0].t, v[1].t, v[2].b, v[3].b));
    ctpy_release(&sig, v);
    return one_out(r, &v[4]);
}

/* --- histc, bincount ------------------------------------------------------ */
static PyObject *
impl_histc(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("histc(Tensor input, int bins=100, Scalar min=0, "
                                   "Scalar max=0, *, Tensor? out=None)");
    ctpy_arg v[5];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    double lo = ct_scalar_to_double(v[2].s), hi = ct_scalar_to_double(v[3].s);
    RUN_OP(v[0].t->numel, r = ct_histc(v[0].t, v[1].i, lo, hi));
    return one_out(r, &v[4]);
}

static PyObject *
impl_bincount(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("bincount(Tensor input, Tensor? weights=None, "
                                   "int minlength=0)");
    ctpy_arg v[3];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const ct_tensor *w = v[1].is_none ? NULL : v[1].t;
    RUN_OP(v[0].t->numel, r = ct_bincount(v[0].t, w, v[2].i));
    return ctpy_result(r);
}

/* --- tables ---------------------------------------------------------------------- */
#define FORALL_BOTH(X)                                                        \
    X(sort) X(argsort) X(msort) X(topk) X(kthvalue) X(unique) X(unique_consecutive) \
    X(histc) X(bincount)
#define FORALL_FUNCTION_ONLY(X) X(searchsorted) X(bucketize)

#define X(N)                                                                  \
    static PyObject *fn_##N(PyObject *mod, FASTCALL)                          \
    {                                                                         \
        (void)mod;                                                            \
        return impl_##N(args, nargs, kwnames);                                \
    }
FORALL_BOTH(X)
FORALL_FUNCTION_ONLY(X)
#undef X

#define X(N)                                                                  \
    static PyObject *t_##N(PyObject *self, FASTCALL)                          \
    {                                                                         \
        return ctpy_with_self(impl_##N, self, args, nargs, kwnames);               \
    }
FORALL_BOTH(X)
#undef X

#define ENTRY(name, fn) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, NULL},

PyMethodDef ctpy_sort_methods[] = {
#define X(N) ENTRY(#N, t_##N)
    FORALL_BOTH(X)
#undef X
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_sort_functions[] = {
#define X(N) ENTRY(#N, fn_##N)
    FORALL_BOTH(X)
    FORALL_FUNCTION_ONLY(X)
#undef X
    /* for python/ctorch/return_types.py (return_types.c) */
    {"_return_types", ctpy_return_types, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
