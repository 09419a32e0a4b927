/* csrc/python/reduce.c -- Python bindings of the reductions, scans and
 * softmax (include/ctorch/ops_reduce.h): torch functions and Tensor
 * methods, merged into _C by module.c (Note [Method tables]).
 *
 * Each op is written once as an `impl_<op>` taking torch's function
 * signature (input first); the torch function calls it directly and the
 * Tensor method calls it with self prepended to the arguments, so both
 * spellings parse, fail and print alike.  Two-result ops return
 * torch.return_types.<op> named tuples (PyStructSequence types created on
 * first use, printing as torch does).  Parsed tensors are borrowed.
 */
#include "argparse.h"

#include <math.h>
#include <string.h>

#define FASTCALL PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames


/* Run `call` with the GIL released when the input is large. */
#define RUN_OP(numel, call) CTPY_RUN(numel, call)

/* --- torch.return_types --------------------------------------------------- */
#define FORALL_RETURN_TYPES(X) \
    X(max) X(min) X(median) X(nanmedian) X(mode) X(cummax) X(cummin)

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
pair_result(rt_kind kind, int rc, ct_tensor *values, ct_tensor *indices)
{
    return ctpy_return_pair(rt_names[kind], rc, values, indices);
}

/* --- helpers -------------------------------------------------------------- */

/* torch's refusal of out= when the result would need a history. */
static PyObject *
out_grad_error(const char *name)
{
    PyErr_Format(PyExc_RuntimeError, "%s(): functions with out=... arguments don't "
                 "support automatic differentiation, but one of the arguments requires "
                 "grad.", name);
    return NULL;
}

/* Finish op `name` with an `out=` argument: copy the result into out
 * (resized to the result's shape), return out.  Takes over our reference
 * to res. */
static PyObject *
with_out(ct_tensor *res, const ctpy_arg *out, const char *name)
{
    if (res == NULL) {
        return ctpy_raise();
    }
    if (out->is_none) {
        return ctpy_result(res);
    }
    if (ct_requires_grad(res)) {
        ct_tensor_decref(res);
        return out_grad_error(name);
    }
    ct_tensor *o = out->t;
    bool same = o->ndim == res->ndim;
    for (int d = 0; same && d < o->ndim; d++) {
        same = o->sizes[d] == res->sizes[d];
    }
    if ((!same && ct_tensor_resize_(o, res->ndim, res->sizes) < 0) || ct_copy_(o, res) < 0) {
        ct_tensor_decref(res);
        return ctpy_raise();
    }
    ct_tensor_decref(res);
    ctpy_bump(o);
    return ctpy_wrap(o);
}

/* dims of an `int[]? dim` argument: NULL for None / [] (all dims). */
static const int64_t *
dims_of(const ctpy_arg *a, int *n)
{
    *n = a->is_none ? 0 : a->n;
    return *n ? a->list : NULL;
}

static ct_dtype
dtype_of(const ctpy_arg *a)
{
    return a->is_none ? CT_DTYPE_COUNT : a->dtype;
}

/* --- sum, mean, amax, amin, all, any, logsumexp, count_nonzero ------------ */
/* A dims pointer with no entries: every dim, but the dim= form of the op
 * (SumBackward1 rather than SumBackward0, as torch records it). */
static const int64_t all_dims[1] = {0};

#define DIMS_REDUCTION(NAME, OP, SIG)                                         \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig sig = CTPY_SIG(SIG);                                  \
        ctpy_arg v[5];                                                        \
        int nd;                                                               \
        ct_tensor *r;                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                  \
            return NULL;                                                      \
        }                                                                     \
        const int64_t *dims = dims_of(&v[1], &nd);                            \
        if (dims == NULL && v[1].given) {                                     \
            dims = all_dims; /* dim=None / () given: torch's dim overload */  \
        }                                                                     \
        ct_dtype dt = sig.nparams > 4 ? dtype_of(&v[3]) : CT_DTYPE_COUNT;     \
        RUN_OP(v[0].t->numel, r = ctag_reduce(OP, v[0].t, nd, dims, v[2].b, dt, \
                                            NULL, NULL));                     \
        return with_out(r, &v[sig.nparams - 1], #NAME);                       \
    }

DIMS_REDUCTION(sum, CT_REDUCE_SUM,
               "sum(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "ScalarType? dtype=None, Tensor? out=None)")
DIMS_REDUCTION(mean, CT_REDUCE_MEAN,
               "mean(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "ScalarType? dtype=None, Tensor? out=None)")
DIMS_REDUCTION(amax, CT_REDUCE_AMAX,
               "amax(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "Tensor? out=None)")
DIMS_REDUCTION(amin, CT_REDUCE_AMIN,
               "amin(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "Tensor? out=None)")
DIMS_REDUCTION(all, CT_REDUCE_ALL,
               "all(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "Tensor? out=None)")
DIMS_REDUCTION(any, CT_REDUCE_ANY,
               "any(Tensor input, int[]? dim=None, bool keepdim=False, *, "
               "Tensor? out=None)")
DIMS_REDUCTION(logsumexp, CT_REDUCE_LOGSUMEXP,
               "logsumexp(Tensor input, int[] dim, bool keepdim=False, *, "
               "Tensor? out=None)")
#undef DIMS_REDUCTION

static PyObject *
impl_count_nonzero(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("count_nonzero(Tensor input, int[]? dim=None)");
    ctpy_arg v[2];
    int nd;
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const int64_t *dims = dims_of(&v[1], &nd);
    RUN_OP(v[0].t->numel, r = ct_count_nonzero(v[0].t, nd, dims));
    return ctpy_result(r);
}

static PyObject *
impl_prod(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("prod(Tensor input, int? dim=None, bool keepdim=False, "
                                   "*, ScalarType? dtype=None, Tensor? out=None)");
    ctpy_arg v[5];
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const int64_t *dim = v[1].is_none ? NULL : &v[1].i;
    RUN_OP(v[0].t->numel, r = ctag_prod(v[0].t, dim, v[2].b, dtype_of(&v[3])));
    return with_out(r, &v[4], "prod");
}

/* --- max, min ------------------------------------------------------------- */
static PyObject *
best(FASTCALL, ct_reduce_op op, rt_kind kind, ctpy_sig **sigs)
{
    ctpy_arg v[4];
    int which = ctpy_parse_overloads(sigs, 3, args, nargs, kwnames, v);
    ct_tensor *r, *idx = NULL;
    if (which < 0) {
        return NULL;
    }
    if (which == 2) {
        /* max(input, other) is the elementwise maximum */
        r = ctag_binary(op == CT_REDUCE_MAX ? CT_BINARY_MAXIMUM : CT_BINARY_MINIMUM,
                        v[0].t, v[1].t, ct_scalar_int(1), NULL, CT_OUT_NEW);
        return ctpy_result(r);
    }
    if (which == 0) {
        RUN_OP(v[0].t->numel, r = ctag_reduce(op, v[0].t, 0, NULL, false, CT_DTYPE_COUNT,
                                            NULL, NULL));
        return ctpy_result(r);
    }
    RUN_OP(v[0].t->numel, r = ctag_reduce(op, v[0].t, 1, &v[1].i, v[2].b, CT_DTYPE_COUNT,
                                        NULL, &idx));
    return pair_result(kind, r ? 0 : -1, r, idx);
}

static PyObject *
impl_max(FASTCALL)
{
    static ctpy_sig s0 = CTPY_SIG("max(Tensor input)");
    static ctpy_sig s1 = CTPY_SIG("max(Tensor input, int dim, bool keepdim=False)");
    static ctpy_sig s2 = CTPY_SIG("max(Tensor input, Tensor other)");
    static ctpy_sig *sigs[] = {&s0, &s1, &s2};
    return best(args, nargs, kwnames, CT_REDUCE_MAX, RT_max, sigs);
}

static PyObject *
impl_min(FASTCALL)
{
    static ctpy_sig s0 = CTPY_SIG("min(Tensor input)");
    static ctpy_sig s1 = CTPY_SIG("min(Tensor input, int dim, bool keepdim=False)");
    static ctpy_sig s2 = CTPY_SIG("min(Tensor input, Tensor other)");
    static ctpy_sig *sigs[] = {&s0, &s1, &s2};
    return best(args, nargs, kwnames, CT_REDUCE_MIN, RT_min, sigs);
}

#define ARG_BEST(NAME, FN)                                                    \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, int? dim=None, " \
                                       "bool keepdim=False)");                \
        ctpy_arg v[3];                                                        \
        ct_tensor *r;                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                  \
            return NULL;                                                      \
        }                                                                     \
        const int64_t *dim = v[1].is_none ? NULL : &v[1].i;                   \
        RUN_OP(v[0].t->numel, r = FN(v[0].t, dim, v[2].b));                   \
        return ctpy_result(r);                                                \
    }
ARG_BEST(argmax, ct_argmax)
ARG_BEST(argmin, ct_argmin)
#undef ARG_BEST

/* --- var, std, var_mean, std_mean ----------------------------------------- */
/* Parse torch's std/var overloads into dims, correction and keepdim. */
static int
parse_var(FASTCALL, ctpy_sig **sigs, ctpy_arg *v, int *nd, const int64_t **dims,
          double *correction, bool *keepdim)
{
    int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);
    if (which < 0) {
        return -1;
    }
    if (which == 0) {
        *nd = 0;
        *dims = NULL;
        *correction = v[1].b ? 1 : 0;
        *keepdim = false;
        v[5].is_none = true;
        return 0;
    }
    *dims = dims_of(&v[1], nd);
    if (!v[4].is_none && !v[2].is_none) {
        PyErr_SetString(PyExc_RuntimeError, "Cannot pass both correction and unbiased "
                        "arguments");
        return -1;
    }
    *correction = !v[4].is_none ? v[4].d : v[2].is_none ? 1 : v[2].b ? 1 : 0;
    *keepdim = v[3].b;
    return 0;
}

#define VAR_SIGS(NAME)                                                        \
    static ctpy_sig s0 = CTPY_SIG(NAME "(Tensor input, bool unbiased=True)"); \
    static ctpy_sig s1 = CTPY_SIG(NAME "(Tensor input, int[]? dim=None, "     \
                                  "bool? unbiased=None, bool keepdim=False, *, " \
                                  "float? correction=None, Tensor? out=None)"); \
    static ctpy_sig *sigs[] = {&s0, &s1}

#define VAR_OP(NAME, OP)                                                      \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        VAR_SIGS(#NAME);                                                      \
        ctpy_arg v[6];                                                        \
        int nd;                                                               \
        const int64_t *dims;                                                  \
        double corr;                                                          \
        bool keep;                                                            \
        ct_tensor *r;                                                         \
        if (parse_var(args, nargs, kwnames, sigs, v, &nd, &dims, &corr, &keep) < 0) { \
            return NULL;                                                      \
        }                                                                     \
        ct_reduce_args a = {2, corr, NULL};                                   \
        RUN_OP(v[0].t->numel,                                                 \
               r = ctag_reduce(OP, v[0].t, nd, dims, keep, CT_DTYPE_COUNT, &a, NULL)); \
        return with_out(r, &v[5], #NAME);                                     \
    }
VAR_OP(var, CT_REDUCE_VAR)
VAR_OP(std, CT_REDUCE_STD)
#undef VAR_OP

#define VAR_MEAN_OP(NAME, SQRT)                                               \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        VAR_SIGS(#NAME);                                                      \
        ctpy_arg v[6];                                                        \
        int nd, rc;                                                           \
        const int64_t *dims;                                                  \
        double corr;                                                          \
        bool keep;                                                            \
        ct_tensor *a = NULL, *m = NULL;                                       \
        if (parse_var(args, nargs, kwnames, sigs, v, &nd, &dims, &corr, &keep) < 0) { \
            return NULL;                                                      \
        }                                                                     \
        ct_reduce_args ra = {2, corr, #NAME};                                 \
        RUN_OP(v[0].t->numel,                                                 \
               a = ctag_reduce(SQRT ? CT_REDUCE_STD : CT_REDUCE_VAR, v[0].t, nd, dims, \
                               keep, CT_DTYPE_COUNT, &ra, &m));               \
        rc = a != NULL ? 0 : -1;                                              \
        if (rc < 0) {                                                         \
            return ctpy_raise();                                              \
        }                                                                     \
        PyObject *pa = ctpy_wrap(a), *pm = ctpy_wrap(m);                      \
        ct_tensor_decref(a);                                                  \
        ct_tensor_decref(m);                                                  \
        PyObject *res = pa && pm ? PyTuple_Pack(2, pa, pm) : NULL;            \
        Py_XDECREF(pa);                                                       \
        Py_XDECREF(pm);                                                       \
        return res;                                                           \
    }
VAR_MEAN_OP(var_mean, false)
VAR_MEAN_OP(std_mean, true)
#undef VAR_MEAN_OP
#undef VAR_SIGS

/* --- norms ----------------------------------------------------------------- */
/* torch.norm with a named p (torch/functional.py): "fro" is frobenius_norm
 * (the 2-norm over all dims when neither dim, out nor dtype is given) and
 * "nuc" nuclear_norm; neither takes dtype=. */
static PyObject *
norm_named(const char *p, const ctpy_arg *v)
{
    bool fro = strcmp(p, "fro") == 0;
    int nd = v[2].is_none ? 0 : v[2].n;
    int64_t all[CT_MAX_DIMS];
    const int64_t *dims = v[2].is_none ? NULL : v[2].list;
    ct_tensor *t = v[0].t, *r;

    if (!fro && strcmp(p, "nuc") != 0) {
        PyErr_Format(PyExc_RuntimeError, "only valid string values are 'fro' and "
                     "'nuc', found %s", p);
        return NULL;
    }
    if (!v[4].is_none) {
        PyErr_Format(PyExc_ValueError, "dtype argument is not supported in %s norm",
                     fro ? "frobenius" : "nuclear");
        return NULL;
    }
    if (fro && dims == NULL && !v[5].is_none) {
        /* with out=, torch passes every dim explicitly (at most 2 allowed) */
        for (int d = 0; d < t->ndim; d++) {
            all[d] = d;
        }
        nd = t->ndim;
        dims = all;
    }
    /* torch.norm(p="fro", out=) does not refuse inputs that need a grad */
    bool plain = !v[5].is_none;
    RUN_OP(t->numel, r = !fro ? ct_nuclear_norm(t, nd, dims, v[3].b)
                     : plain  ? ct_frobenius_norm(t, nd, dims, v[3].b)
                              : ctag_frobenius_norm(t, nd, dims, v[3].b));
    return with_out(r, &v[5], "norm");
}

static PyObject *
impl_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("norm(Tensor input, object? p=None, int[]? dim=None, "
                                   "bool keepdim=False, *, ScalarType? dtype=None, "
                                   "Tensor? out=None)");
    ctpy_arg v[6];
    double p = 2;
    int nd;
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    /* p defaults to "fro"; an explicit None is the 2-norm */
    if (!v[1].given || PyUnicode_Check(v[1].obj)) {
        const char *name = v[1].given ? PyUnicode_AsUTF8(v[1].obj) : "fro";
        return name != NULL ? norm_named(name, v) : NULL;
    }
    if (!v[1].is_none) {
        p = PyFloat_AsDouble(v[1].obj);
        if (p == -1 && PyErr_Occurred()) {
            return NULL;
        }
    }
    const int64_t *dims = dims_of(&v[2], &nd);
    RUN_OP(v[0].t->numel, r = ctag_vector_norm(v[0].t, p, nd, dims, v[3].b,
                                               dtype_of(&v[4]), "norm"));
    return with_out(r, &v[5], "norm");
}

static PyObject *
impl_linalg_vector_norm(FASTCALL)
{
    static ctpy_sig sig = CTPY_SIG("linalg_vector_norm(Tensor input, float ord=2, "
                                   "int[]? dim=None, bool keepdim=False, *, "
                                   "ScalarType? dtype=None, Tensor? out=None)");
    ctpy_arg v[6];
    int nd;
    ct_tensor *r;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    const int64_t *dims = dims_of(&v[2], &nd);
    RUN_OP(v[0].t->numel, r = ctag_vector_norm(v[0].t, v[1].d, nd, dims, v[3].b,
                                               dtype_of(&v[4]), "linalg.vector_norm"));
    return with_out(r, &v[5], "linalg_vector_norm");
}

/* --- scans, softmax, median, mode ------------------------------------------ */
#define CUM_OP(NAME, FN)                                                      \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, int dim, *, "    \
                                       "ScalarType? dtype=None, Tensor? out=None)"); \
        ctpy_arg v[4];                                                        \
        ct_tensor *r;                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                  \
            return NULL;                                                      \
        }                                                                     \
        RUN_OP(v[0].t->numel, r = FN(v[0].t, v[1].i, dtype_of(&v[2])));       \
        return with_out(r, &v[3], #NAME);                                     \
    }
CUM_OP(cumsum, ctag_cumsum)
CUM_OP(cumprod, ctag_cumprod)
#undef CUM_OP

#define SOFTMAX_OP(NAME, FN)                                                  \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, int dim, "       \
                                       "ScalarType? dtype=None)");            \
        ctpy_arg v[3];                                                        \
        ct_tensor *r;                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                  \
            return NULL;                                                      \
        }                                                                     \
        RUN_OP(v[0].t->numel, r = FN(v[0].t, v[1].i, dtype_of(&v[2])));       \
        return ctpy_result(r);                                                \
    }
SOFTMAX_OP(softmax, ctag_softmax)
SOFTMAX_OP(log_softmax, ctag_log_softmax)
#undef SOFTMAX_OP

#define PAIR_OP(NAME, SIG, CALL)                                              \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig sig = CTPY_SIG(SIG);                                  \
        ctpy_arg v[3];                                                        \
        ct_tensor *a = NULL, *b = NULL;                                       \
        int rc;                                                               \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                  \
            return NULL;                                                      \
        }                                                                     \
        RUN_OP(v[0].t->numel, rc = CALL);                                     \
        return pair_result(RT_##NAME, rc, a, b);                              \
    }
/* the values with their history and the indices, as ct_cummax & co. */
static int
scan_pair(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **a,
          ct_tensor **b)
{
    *a = ctag_scan(op, t, dim, keepdim, CT_DTYPE_COUNT, b);
    return *a != NULL ? 0 : -1;
}

PAIR_OP(cummax, "cummax(Tensor input, int dim)",
        scan_pair(CT_SCAN_CUMMAX, v[0].t, v[1].i, false, &a, &b))
PAIR_OP(cummin, "cummin(Tensor input, int dim)",
        scan_pair(CT_SCAN_CUMMIN, v[0].t, v[1].i, false, &a, &b))
PAIR_OP(mode, "mode(Tensor input, int dim=-1, bool keepdim=False)",
        scan_pair(CT_SCAN_MODE, v[0].t, v[1].i, v[2].b, &a, &b))
#undef PAIR_OP

/* median / nanmedian: of all elements, or along dim as a named tuple */
#define MEDIAN_OP(NAME, NAN, OP)                                              \
    static PyObject *impl_##NAME(FASTCALL)                                    \
    {                                                                         \
        static ctpy_sig s0 = CTPY_SIG(#NAME "(Tensor input)");                \
        static ctpy_sig s1 = CTPY_SIG(#NAME "(Tensor input, int dim, "        \
                                      "bool keepdim=False)");                 \
        static ctpy_sig *sigs[] = {&s0, &s1};                                 \
        ctpy_arg v[3];                                                        \
        ct_tensor *a = NULL, *b = NULL;                                       \
        int rc;                                                               \
        int which = ctpy_parse_overloads(sigs, 2, args, nargs, kwnames, v);   \
        if (which < 0) {                                                      \
            return NULL;                                                      \
        }                                                                     \
        if (which == 0) {                                                     \
            RUN_OP(v[0].t->numel, a = ctag_median_all(v[0].t, NAN));         \
            return ctpy_result(a);                                            \
        }                                                                     \
        RUN_OP(v[0].t->numel, rc = scan_pair(OP, v[0].t, v[1].i, v[2].b, &a, &b)); \
        return pair_result(RT_##NAME, rc, a, b);                              \
    }
MEDIAN_OP(median, false, CT_SCAN_MEDIAN)
MEDIAN_OP(nanmedian, true, CT_SCAN_NANMEDIAN)
#undef MEDIAN_OP

/* --- tables ---------------------------------------------------------------- */
#define FORALL_BOTH(X)                                                        \
    X(sum) X(mean) X(prod) X(amax) X(amin) X(max) X(min) X(argmax) X(argmin)  \
    X(all) X(any) X(count_nonzero) X(logsumexp) X(var) X(std) X(norm)         \
    X(cumsum) X(cumprod) X(cummax) X(cummin) X(median) X(nanmedian) X(mode)     \
    X(softmax) X(log_softmax)
#define FORALL_FUNCTION_ONLY(X) X(var_mean) X(std_mean)

#define X(N)                                                                  \
    static PyObject *fn_##N(PyObject *mod, FASTCALL)                          \
    {                                                                         \
        (void)mod;                                                            \
        return impl_##N(args, nargs, kwnames);                                \
    }
FORALL_BOTH(X)
FORALL_FUNCTION_ONLY(X)
X(linalg_vector_norm)
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

PyMethodDef ctpy_reduce_methods[] = {
#define X(N) ENTRY(#N, t_##N)
    FORALL_BOTH(X)
#undef X
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_reduce_functions[] = {
#define X(N) ENTRY(#N, fn_##N)
    FORALL_BOTH(X)
    FORALL_FUNCTION_ONLY(X)
#undef X
    ENTRY("_linalg_vector_norm", fn_linalg_vector_norm)
    {NULL, NULL, 0, NULL},
};
