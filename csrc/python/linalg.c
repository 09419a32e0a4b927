/* csrc/python/linalg.c -- Tensor methods and torch functions of the linear
 * algebra family (Note [Method tables] in ctpy.h): matmul and `@`, mm,
 * bmm, mv, dot, vdot, outer, ger, addmm, addmv, baddbmm, addbmm, addr (with
 * their in-place forms), tril, triu, diag, trace, einsum, and the torch.linalg
 * functions svdvals, matrix_norm and norm.  Each binding parses
 * with a torch-style signature, calls the C op (GIL released for large
 * operands) and wraps the result. */
#include "argparse.h"

#define SELF ctpy_tensor(self)
#define FASTCALL_ARGS CTPY_FASTCALL_ARGS
#define METH(name, fn, doc) CTPY_METH(name, fn, doc)

/* Run `call` with the GIL released when the operands are large. */
#define RUN_OP(res, numel, call) CTPY_RUN(numel, res = (call))

/* The result of an op that wrote `out` (or NULL): bump its version. */
static PyObject *
finish(ct_tensor *r, ct_tensor *out)
{
    if (r != NULL && out != NULL) {
        ctpy_bump(r);
    }
    return ctpy_result(r);
}

/* --- products of two tensors -------------------------------------------- */
typedef ct_tensor *(*product_fn)(const ct_tensor *, const ct_tensor *, ct_tensor *);

/* X(NAME, method signature, function signature) */
#define FORALL_PRODUCTS(X)                                                       \
    X(matmul, "matmul(Tensor other)",                                            \
      "matmul(Tensor input, Tensor other, *, Tensor? out=None)")                 \
    X(mm, "mm(Tensor mat2)", "mm(Tensor input, Tensor mat2, *, Tensor? out=None)") \
    X(bmm, "bmm(Tensor mat2)", "bmm(Tensor input, Tensor mat2, *, Tensor? out=None)") \
    X(mv, "mv(Tensor vec)", "mv(Tensor input, Tensor vec, *, Tensor? out=None)")  \
    X(dot, "dot(Tensor tensor)",                                                 \
      "dot(Tensor input, Tensor tensor, *, Tensor? out=None)")                   \
    X(vdot, "vdot(Tensor other)",                                                \
      "vdot(Tensor input, Tensor other, *, Tensor? out=None)")                   \
    X(outer, "outer(Tensor vec2)",                                               \
      "outer(Tensor input, Tensor vec2, *, Tensor? out=None)")                   \
    X(ger, "ger(Tensor vec2)", "ger(Tensor input, Tensor vec2, *, Tensor? out=None)")

/* The op each binding calls: autograd's where it records a derivative
 * (csrc/autograd/), the kernel otherwise. */
#define OPFN_matmul ctag_matmul
#define OPFN_mm ctag_mm
#define OPFN_bmm ctag_bmm
#define OPFN_mv ctag_mv
#define OPFN_dot ctag_dot
#define OPFN_vdot ctag_vdot
#define OPFN_outer ctag_outer
#define OPFN_ger ctag_outer
#define OPFN_addmm ctag_addmm
#define OPFN_addmv ctag_addmv
#define OPFN_baddbmm ctag_baddbmm
#define OPFN_addbmm ctag_addbmm
#define OPFN_addr ctag_addr

static PyObject *
product_call(product_fn fn, ct_tensor *a, ct_tensor *b, ct_tensor *out)
{
    ct_tensor *r;
    RUN_OP(r, a->numel + b->numel, fn(a, b, out));
    return finish(r, out);
}

#define X(NAME, MSIG, FSIG)                                                    \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                   \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(MSIG);                                  \
        ctpy_arg v[1];                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return product_call(OPFN_##NAME, SELF, v[0].t, NULL);                    \
    }                                                                          \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                  \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(FSIG);                                  \
        ctpy_arg v[3];                                                         \
        (void)self;                                                            \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return product_call(OPFN_##NAME, v[0].t, v[1].t, v[2].is_none ? NULL : v[2].t); \
    }
FORALL_PRODUCTS(X)
#undef X

/* a @ b: NotImplemented unless both are tensors, so Python tries the
 * other operand and then raises its own TypeError (as torch does). */
static PyObject *
t_matmul_op(PyObject *self, PyObject *other)
{
    if (!ctpy_is_tensor(self) || !ctpy_is_tensor(other)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return product_call(ctag_matmul, SELF, ctpy_tensor(other), NULL);
}

static PyObject *
t_rmatmul_op(PyObject *self, PyObject *other)
{
    if (!ctpy_is_tensor(self) || !ctpy_is_tensor(other)) {
        Py_RETURN_NOTIMPLEMENTED;
    }
    return product_call(ctag_matmul, ctpy_tensor(other), SELF, NULL);
}

/* --- beta * self + alpha * product ------------------------------------- */
typedef ct_tensor *(*addprod_fn)(const ct_tensor *, const ct_tensor *,
                                 const ct_tensor *, ct_scalar, ct_scalar, ct_tensor *,
                                 ct_out_mode);

/* X(NAME, first operand, second operand) */
#define FORALL_ADDPRODS(X)      \
    X(addmm, "mat1", "mat2")    \
    X(addmv, "mat", "vec")      \
    X(baddbmm, "batch1", "batch2") \
    X(addbmm, "batch1", "batch2") \
    X(addr, "vec1", "vec2")

#define SCALES "*, Scalar beta=1, Scalar alpha=1"

static PyObject *
addprod_call(addprod_fn fn, ct_tensor *self_t, const ctpy_arg *v, ct_tensor *out,
             ct_out_mode mode)
{
    ct_tensor *r;
    RUN_OP(r, v[0].t->numel + v[1].t->numel,
           fn(self_t, v[0].t, v[1].t, v[2].s, v[3].s, out, mode));
    return finish(r, out);
}

#define X(NAME, A, B)                                                          \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                   \
    {                                                                          \
        static ctpy_sig sig =                                                  \
            CTPY_SIG(#NAME "(Tensor " A ", Tensor " B ", " SCALES ")");        \
        ctpy_arg v[4];                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return addprod_call(OPFN_##NAME, SELF, v, NULL, CT_OUT_NEW);             \
    }                                                                          \
    static PyObject *t_##NAME##_(FASTCALL_ARGS)                                \
    {                                                                          \
        static ctpy_sig sig =                                                  \
            CTPY_SIG(#NAME "_(Tensor " A ", Tensor " B ", " SCALES ")");       \
        ctpy_arg v[4];                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return addprod_call(OPFN_##NAME, SELF, v, SELF, CT_OUT_INPLACE);         \
    }                                                                          \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                  \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, Tensor " A ", Tensor " B \
                                       ", " SCALES ", Tensor? out=None)");     \
        ctpy_arg v[6];                                                         \
        (void)self;                                                            \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        ct_tensor *out = v[5].is_none ? NULL : v[5].t;                         \
        return addprod_call(OPFN_##NAME, v[0].t, v + 1, out,                     \
                            out ? CT_OUT_GIVEN : CT_OUT_NEW);                  \
    }
FORALL_ADDPRODS(X)
#undef X

/* --- tril, triu, diag, trace ------------------------------------------- */
typedef ct_tensor *(*tri_fn)(const ct_tensor *, int64_t, ct_tensor *, ct_out_mode);

static PyObject *
tri_call(tri_fn fn, ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode)
{
    ct_tensor *r;
    RUN_OP(r, t->numel, fn(t, diagonal, out, mode));
    return finish(r, out);
}

#define X(NAME)                                                                \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                   \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(#NAME "(int diagonal=0)");              \
        ctpy_arg v[1];                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return tri_call(ctag_##NAME, SELF, v[0].i, NULL, CT_OUT_NEW);            \
    }                                                                          \
    static PyObject *t_##NAME##_(FASTCALL_ARGS)                                \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(#NAME "_(int diagonal=0)");             \
        ctpy_arg v[1];                                                         \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        return tri_call(ctag_##NAME, SELF, v[0].i, SELF, CT_OUT_INPLACE);        \
    }                                                                          \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                  \
    {                                                                          \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, int diagonal=0, *, " \
                                       "Tensor? out=None)");                   \
        ctpy_arg v[3];                                                         \
        (void)self;                                                            \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                   \
            return NULL;                                                       \
        }                                                                      \
        ct_tensor *out = v[2].is_none ? NULL : v[2].t;                         \
        return tri_call(ctag_##NAME, v[0].t, v[1].i, out,                        \
                        out ? CT_OUT_GIVEN : CT_OUT_NEW);                      \
    }
X(tril)
X(triu)
#undef X

static PyObject *
t_diag(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("diag(int diagonal=0)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_diag(SELF, v[0].i, NULL));
}

static PyObject *
fn_diag(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("diag(Tensor input, int diagonal=0, *, "
                                   "Tensor? out=None)");
    ctpy_arg v[3];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *out = v[2].is_none ? NULL : v[2].t;
    return finish(ctag_diag(v[0].t, v[1].i, out), out);
}

static PyObject *
t_trace(PyObject *self, PyObject *unused)
{
    (void)unused;
    return ctpy_result(ctag_trace(SELF));
}

static PyObject *
fn_trace(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("trace(Tensor input)");
    ctpy_arg v[1];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_trace(v[0].t));
}

/* einsum(equation, *operands) or einsum(equation, [operands]) */
static PyObject *
fn_einsum(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    const ct_tensor *ops[CT_EINSUM_MAX_OPERANDS];
    PyObject *const *items = args + 1;
    Py_ssize_t n = nargs - 1;
    PyObject *seq = NULL;
    ct_tensor *r;
    (void)self;

    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames) > 0) {
        PyErr_Format(PyExc_TypeError, "einsum() got an unexpected keyword argument "
                     "'%U'", PyTuple_GET_ITEM(kwnames, 0));
        return NULL;
    }
    if (nargs < 1 || !PyUnicode_Check(args[0])) {
        PyErr_Format(PyExc_TypeError, "einsum(): argument 'equation' (position 1) must "
                     "be str, not %s",
                     nargs < 1 ? "nothing" : Py_TYPE(args[0])->tp_name);
        return NULL;
    }
    const char *eq = PyUnicode_AsUTF8(args[0]);
    if (eq == NULL) {
        return NULL;
    }
    if (nargs == 2 && (PyList_Check(args[1]) || PyTuple_Check(args[1]))) {
        seq = PySequence_Fast(args[1], "einsum(): operands must be a sequence");
        if (seq == NULL) {
            return NULL;
        }
        items = PySequence_Fast_ITEMS(seq);
        n = PySequence_Fast_GET_SIZE(seq);
    }
    if (n > CT_EINSUM_MAX_OPERANDS) {
        Py_XDECREF(seq);
        PyErr_Format(PyExc_RuntimeError, "einsum(): at most %d operands are supported",
                     CT_EINSUM_MAX_OPERANDS);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!ctpy_is_tensor(items[i])) {
            PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in "
                         "argument 1, but got %s", i, Py_TYPE(items[i])->tp_name);
            Py_XDECREF(seq);
            return NULL;
        }
        ops[i] = ctpy_tensor(items[i]);
    }
    int64_t numel = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        numel += ops[i]->numel;
    }
    RUN_OP(r, numel, ctag_einsum(eq, (int)n, ops));
    Py_XDECREF(seq);                    /* ops were borrowed from it */
    return ctpy_result(r);
}

/* --- singular values and norms (torch.linalg) ---------------------------- */
static PyObject *
fn_linalg_svdvals(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("linalg_svdvals(Tensor A, *, str? driver=None, "
                                   "Tensor? out=None)");
    ctpy_arg v[3];
    ct_tensor *r;
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (!v[1].is_none) {
        PyErr_SetString(PyExc_RuntimeError, "torch.linalg.svd: keyword argument "
                        "`driver=` is only supported on CUDA inputs with cuSOLVER "
                        "backend.");
        return NULL;
    }
    ct_tensor *out = v[2].is_none ? NULL : v[2].t;
    RUN_OP(r, v[0].t->numel, ctag_linalg_svdvals(v[0].t, out));
    return finish(r, out);
}

/* The ord of an overload that matched: parameter 1 is a Scalar (overload 0)
 * or a str (overload 1; `dflt` when not given). */
static int
norm_ord(int which, const ctpy_arg *a, const char *dflt, ct_norm_ord *ord)
{
    ord->str = NULL;
    ord->p = 0;
    if (which == 0) {
        ord->p = ct_scalar_to_double(a->s);
        return 0;
    }
    ord->str = a->given ? PyUnicode_AsUTF8(a->obj) : dflt;
    return ord->str != NULL ? 0 : -1;
}

/* torch's two overloads of a norm: a numeric ord, or a named one. */
#define NORM_SIG(NAME, ORD_SCALAR, ORD_STR, DIM)                                \
    static ctpy_sig NAME##_s0 = CTPY_SIG(#NAME "(Tensor input, " ORD_SCALAR ", " DIM \
                                         ", bool keepdim=False, *, "           \
                                         "ScalarType? dtype=None, Tensor? out=None)"); \
    static ctpy_sig NAME##_s1 = CTPY_SIG(#NAME "(Tensor input, " ORD_STR ", " DIM \
                                         ", bool keepdim=False, *, "           \
                                         "ScalarType? dtype=None, Tensor? out=None)"); \
    static ctpy_sig *NAME##_sigs[] = {&NAME##_s0, &NAME##_s1}

NORM_SIG(linalg_matrix_norm, "Scalar ord", "str ord='fro'", "int[] dim=[]");
NORM_SIG(linalg_norm, "Scalar? ord=None", "str ord", "int[]? dim=None");

static PyObject *
fn_linalg_matrix_norm(FASTCALL_ARGS)
{
    static const int64_t last_two[2] = {-2, -1};
    ctpy_arg v[6];
    ct_norm_ord ord;
    ct_tensor *r;
    (void)self;
    int which = ctpy_parse_overloads(linalg_matrix_norm_sigs, 2, args, nargs, kwnames, v);
    if (which < 0 || norm_ord(which, &v[1], "fro", &ord) < 0) {
        return NULL;
    }
    /* dim is torch's int[] here: a lone int matches no overload */
    if (v[2].given && PyLong_Check(v[2].obj)) {
        ctpy_overload_error(linalg_matrix_norm_sigs, 2, args, nargs, kwnames);
        return NULL;
    }
    /* dim=(-2, -1) unless given */
    const int64_t *dims = v[2].given ? v[2].list : last_two;
    int nd = v[2].given ? v[2].n : 2;
    ct_dtype dt = v[4].is_none ? CT_DTYPE_COUNT : v[4].dtype;
    ct_tensor *out = v[5].is_none ? NULL : v[5].t;
    RUN_OP(r, v[0].t->numel,
           ctag_linalg_matrix_norm(v[0].t, ord, nd, dims, v[3].b, dt, out));
    return finish(r, out);
}

static PyObject *
fn_linalg_norm(FASTCALL_ARGS)
{
    ctpy_arg v[6];
    ct_norm_ord ord;
    ct_tensor *r;
    (void)self;
    int which = ctpy_parse_overloads(linalg_norm_sigs, 2, args, nargs, kwnames, v);
    if (which < 0 || norm_ord(which, &v[1], NULL, &ord) < 0) {
        return NULL;
    }
    const ct_norm_ord *op = which == 0 && v[1].is_none ? NULL : &ord;
    const int64_t *dims = v[2].is_none ? NULL : v[2].list;
    ct_dtype dt = v[4].is_none ? CT_DTYPE_COUNT : v[4].dtype;
    ct_tensor *out = v[5].is_none ? NULL : v[5].t;
    RUN_OP(r, v[0].t->numel,
           ctag_linalg_norm(v[0].t, op, v[2].is_none ? 0 : v[2].n, dims, v[3].b, dt, out));
    return finish(r, out);
}

PyMethodDef ctpy_linalg_methods[] = {
#define X(NAME, MSIG, FSIG) METH(#NAME, t_##NAME, MSIG " -> Tensor"),
    FORALL_PRODUCTS(X)
#undef X
#define X(NAME, A, B) METH(#NAME, t_##NAME, NULL), METH(#NAME "_", t_##NAME##_, NULL),
    FORALL_ADDPRODS(X)
#undef X
    {"__matmul__", (PyCFunction)t_matmul_op, METH_O, "Return self@value."},
    {"__rmatmul__", (PyCFunction)t_rmatmul_op, METH_O, "Return value@self."},
    METH("tril", t_tril, "tril(diagonal=0) -> Tensor"),
    METH("tril_", t_tril_, NULL),
    METH("triu", t_triu, "triu(diagonal=0) -> Tensor"),
    METH("triu_", t_triu_, NULL),
    METH("diag", t_diag, "diag(diagonal=0) -> Tensor"),
    {"trace", (PyCFunction)t_trace, METH_NOARGS, "trace() -> Tensor"},
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_linalg_functions[] = {
#define X(NAME, MSIG, FSIG) METH(#NAME, fn_##NAME, FSIG " -> Tensor"),
    FORALL_PRODUCTS(X)
#undef X
#define X(NAME, A, B) METH(#NAME, fn_##NAME, NULL),
    FORALL_ADDPRODS(X)
#undef X
    METH("tril", fn_tril, NULL),
    METH("triu", fn_triu, NULL),
    METH("diag", fn_diag, NULL),
    METH("trace", fn_trace, NULL),
    METH("einsum", fn_einsum, "einsum(equation, *operands) -> Tensor"),
    METH("_linalg_svdvals", fn_linalg_svdvals,
         "linalg.svdvals(A, *, driver=None, out=None) -> Tensor\n\n"
         "Computes the singular values of a matrix (float32 / float64, batched),\n"
         "in descending order."),
    METH("_linalg_matrix_norm", fn_linalg_matrix_norm,
         "linalg.matrix_norm(A, ord='fro', dim=(-2, -1), keepdim=False, *, "
         "dtype=None, out=None) -> Tensor\n\n"
         "Computes a matrix norm: ord 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2."),
    METH("_linalg_norm", fn_linalg_norm,
         "linalg.norm(A, ord=None, dim=None, keepdim=False, *, out=None, "
         "dtype=None) -> Tensor\n\n"
         "Computes a vector or matrix norm."),
    {NULL, NULL, 0, NULL},
};
