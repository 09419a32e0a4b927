/* csrc/python/pointwise.c -- Tensor methods and torch functions of the
 * pointwise families, stamped from the op lists of ops.h: for a unary op
 * `f`: t.f(), t.f_(), torch.f(input, *, out=None); for a binary op `g`:
 * t.g(other), t.g_(other), torch.g(input, other, *, out=None).  (add, sub,
 * mul and div, which take alpha / rounding_mode, are in tensor_methods.c
 * and functions.c.) */
#include "argparse.h"

#include "aten/iter.h"

#define FASTCALL_ARGS CTPY_FASTCALL_ARGS

/* Run op with the GIL released when the tensors are large. */
static ct_tensor *
run_unary(ct_unary_op op, ct_tensor *t, ct_tensor *out, ct_out_mode mode)
{
    ct_tensor *r;
    if (t->numel > CTPY_GIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        r = ctag_unary(op, t, out, mode);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ctag_unary(op, t, out, mode);
    }
    return r;
}

static ct_tensor *
run_binary(ct_binary_op op, ct_tensor *a, ct_tensor *b, ct_tensor *out,
           ct_out_mode mode)
{
    ct_tensor *r;
    if (a->numel + b->numel > CTPY_GIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        r = ctag_binary(op, a, b, ct_scalar_int(1), out, mode);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ctag_binary(op, a, b, ct_scalar_int(1), out, mode);
    }
    return r;
}

/* The result of an in-place or out= op: the written tensor (the ctag_ op
 * bumped its version). */
static PyObject *
written(ct_tensor *r)
{
    return ctpy_result(r);
}

int
ctpy_div_op(PyObject *rounding_mode, ct_binary_op *op)
{
    if (rounding_mode == NULL || rounding_mode == Py_None) {
        *op = CT_BINARY_DIV;
        return 0;
    }
    if (PyUnicode_CompareWithASCIIString(rounding_mode, "trunc") == 0) {
        *op = CT_BINARY_DIV_TRUNC;
        return 0;
    }
    if (PyUnicode_CompareWithASCIIString(rounding_mode, "floor") == 0) {
        *op = CT_BINARY_FLOOR_DIVIDE;
        return 0;
    }
    PyErr_Format(PyExc_RuntimeError, "div expected rounding_mode to be one of None, "
                 "'trunc', or 'floor' but found '%U'", rounding_mode);
    return -1;
}

/* --- unary ---------------------------------------------------------------- */
static PyObject *
unary_method(ct_unary_op op, bool inplace, PyObject *self, PyObject *const *args,
             Py_ssize_t nargs, PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[1];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    if (inplace) {
        return written(run_unary(op, t, t, CT_OUT_INPLACE));
    }
    return ctpy_result(run_unary(op, t, NULL, CT_OUT_NEW));
}

static PyObject *
unary_function(ct_unary_op op, PyObject *const *args, Py_ssize_t nargs,
               PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[2];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    if (!v[1].is_none) {
        return written(run_unary(op, v[0].t, v[1].t, CT_OUT_GIVEN));
    }
    return ctpy_result(run_unary(op, v[0].t, NULL, CT_OUT_NEW));
}

#define X(E, N, K)                                                                \
    static PyObject *t_##N(FASTCALL_ARGS)                                         \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "()");                                 \
        return unary_method(E, false, self, args, nargs, kwnames, &sig);          \
    }                                                                             \
    static PyObject *t_##N##_(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "_()");                                \
        return unary_method(E, true, self, args, nargs, kwnames, &sig);           \
    }                                                                             \
    static PyObject *fn_##N(FASTCALL_ARGS)                                        \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "(Tensor input, *, Tensor? out=None)"); \
        (void)self;                                                               \
        return unary_function(E, args, nargs, kwnames, &sig);                     \
    }
CT_FORALL_UNARY_OPS(X)
#undef X

/* --- binary --------------------------------------------------------------- */
static PyObject *
binary_method(ct_binary_op op, bool inplace, PyObject *self, PyObject *const *args,
              Py_ssize_t nargs, PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[1];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self), *r;
    if (inplace) {
        r = run_binary(op, t, v[0].t, t, CT_OUT_INPLACE);
        ctpy_release(sig, v);
        return written(r);
    }
    r = run_binary(op, t, v[0].t, NULL, CT_OUT_NEW);
    ctpy_release(sig, v);
    return ctpy_result(r);
}

static PyObject *
binary_function(ct_binary_op op, PyObject *const *args, Py_ssize_t nargs,
                PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[3];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = run_binary(op, v[0].t, v[1].t, v[2].is_none ? NULL : v[2].t,
                              v[2].is_none ? CT_OUT_NEW : CT_OUT_GIVEN);
    bool out = !v[2].is_none;
    ctpy_release(sig, v);
    return out ? written(r) : ctpy_result(r);
}

/* the binary ops bound here (all but add/sub/mul/div and div_trunc) */
#define BOUND_BINARY(Y)                                                           \
    Y(CT_BINARY_FLOOR_DIVIDE, floor_divide) Y(CT_BINARY_REMAINDER, remainder)     \
    Y(CT_BINARY_FMOD, fmod) Y(CT_BINARY_POW, pow) Y(CT_BINARY_ATAN2, atan2)      \
    Y(CT_BINARY_MAXIMUM, maximum) Y(CT_BINARY_MINIMUM, minimum)                  \
    Y(CT_BINARY_FMAX, fmax) Y(CT_BINARY_FMIN, fmin)                              \
    Y(CT_BINARY_BITWISE_AND, bitwise_and) Y(CT_BINARY_BITWISE_OR, bitwise_or)    \
    Y(CT_BINARY_BITWISE_XOR, bitwise_xor)                                        \
    Y(CT_BINARY_LSHIFT, bitwise_left_shift) Y(CT_BINARY_RSHIFT, bitwise_right_shift) \
    Y(CT_BINARY_EQ, eq) Y(CT_BINARY_NE, ne) Y(CT_BINARY_LT, lt) Y(CT_BINARY_LE, le) \
    Y(CT_BINARY_GT, gt) Y(CT_BINARY_GE, ge)                                      \
    Y(CT_BINARY_LOGICAL_AND, logical_and) Y(CT_BINARY_LOGICAL_OR, logical_or)    \
    Y(CT_BINARY_LOGICAL_XOR, logical_xor)

#define Y(E, N)                                                                   \
    static PyObject *t_##N(FASTCALL_ARGS)                                         \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "(TensorN other)");                    \
        return binary_method(E, false, self, args, nargs, kwnames, &sig);         \
    }                                                                             \
    static PyObject *t_##N##_(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "_(TensorN other)");                   \
        return binary_method(E, true, self, args, nargs, kwnames, &sig);          \
    }                                                                             \
    static PyObject *fn_##N(FASTCALL_ARGS)                                        \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "(TensorN input, TensorN other, *, "   \
                                       "Tensor? out=None)");                     \
        (void)self;                                                               \
        return binary_function(E, args, nargs, kwnames, &sig);                   \
    }
BOUND_BINARY(Y)
#undef Y

/* --- selection: where, masked_fill, clamp, nan_to_num, lerp, round ---- */
static PyObject *
fn_where(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("where(Tensor condition, TensorN input, TensorN other)");
    ctpy_arg v[3];
    (void)self;
    if (nargs == 1 && kwnames == NULL) {
        /* where(condition) is nonzero(condition, as_tuple=True) */
        PyObject *nz = PyObject_GetAttrString(args[0], "nonzero");
        if (nz == NULL) {
            return NULL;
        }
        PyObject *kw = Py_BuildValue("{s:O}", "as_tuple", Py_True);
        PyObject *empty = PyTuple_New(0);
        PyObject *r = kw && empty ? PyObject_Call(nz, empty, kw) : NULL;
        Py_XDECREF(kw);
        Py_XDECREF(empty);
        Py_DECREF(nz);
        return r;
    }
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = ctag_where(v[0].t, v[1].t, v[2].t);
    ctpy_release(&sig, v);
    return ctpy_result(r);
}

static PyObject *
t_where(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("where(Tensor condition, TensorN other)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = ctag_where(v[0].t, ctpy_tensor(self), v[1].t);
    ctpy_release(&sig, v);
    return ctpy_result(r);
}

/* masked_fill's value: a number or a 0-dim tensor */
static int
fill_value(const ctpy_arg *v, ct_scalar *out)
{
    if (ctpy_is_tensor(v->obj)) {
        ct_tensor *t = ctpy_tensor(v->obj);
        if (t->ndim != 0) {
            PyErr_Format(PyExc_RuntimeError, "masked_fill_ only supports a 0-dimensional "
                         "value tensor, but got tensor with %d dimension(s).", t->ndim);
            return -1;
        }
        *out = ct_tensor_item_at(t, 0);
        return 0;
    }
    int rc = ctpy_to_scalar(v->obj, out);
    if (rc > 0) {
        PyErr_Format(PyExc_TypeError, "masked_fill(): argument 'value' must be Number, "
                     "not %s", Py_TYPE(v->obj)->tp_name);
    }
    return rc == 0 ? 0 : -1;
}

static PyObject *
masked_fill(PyObject *target, bool inplace, PyObject *const *args, Py_ssize_t nargs,
            PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[2];
    ct_scalar value;
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0 || fill_value(&v[1], &value) < 0) {
        return NULL;
    }
    ct_tensor *t = inplace ? ctpy_tensor(target) : ct_clone(ctpy_tensor(target));
    if (t == NULL) {
        return ctpy_raise();
    }
    if (ctag_masked_fill_(t, v[0].t, value) < 0) {
        if (!inplace) {
            ct_tensor_decref(t);
        }
        return ctpy_raise();
    }
    if (inplace) {
        ct_tensor_incref(t);
    }
    return ctpy_result(t);
}

static PyObject *
t_masked_fill(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("masked_fill(Tensor mask, object value)");
    return masked_fill(self, false, args, nargs, kwnames, &sig);
}

static PyObject *
t_masked_fill_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("masked_fill_(Tensor mask, object value)");
    return masked_fill(self, true, args, nargs, kwnames, &sig);
}

static PyObject *
fn_masked_fill(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("masked_fill(Tensor input, Tensor mask, object value)");
    ctpy_arg v[3];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    PyObject *rest[2] = {v[1].obj, v[2].obj};
    static ctpy_sig inner = CTPY_SIG("masked_fill(Tensor mask, object value)");
    return masked_fill(v[0].obj, false, rest, 2, NULL, &inner);
}

static PyObject *
clamp(PyObject *input, bool inplace, const ctpy_arg *v, const ctpy_arg *out)
{
    ct_tensor *t = ctpy_tensor(input), *r;
    ct_tensor *lo = v[0].is_none ? NULL : v[0].t, *hi = v[1].is_none ? NULL : v[1].t;
    if (inplace) {
        r = ctag_clamp(t, lo, hi, t, CT_OUT_INPLACE);
    }
    else {
        bool has_out = out != NULL && !out->is_none;
        r = ctag_clamp(t, lo, hi, has_out ? out->t : NULL, has_out ? CT_OUT_GIVEN : CT_OUT_NEW);
        inplace = has_out;
    }
    return inplace ? written(r) : ctpy_result(r);
}

#define CLAMP_SIGS(NAME)                                                          \
    static PyObject *t_##NAME(FASTCALL_ARGS)                                      \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#NAME "(TensorN? min=None, TensorN? max=None)"); \
        ctpy_arg v[2];                                                            \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                      \
            return NULL;                                                          \
        }                                                                         \
        PyObject *r = clamp(self, false, v, NULL);                                \
        ctpy_release(&sig, v);                                                    \
        return r;                                                                 \
    }                                                                             \
    static PyObject *t_##NAME##_(FASTCALL_ARGS)                                   \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#NAME "_(TensorN? min=None, TensorN? max=None)"); \
        ctpy_arg v[2];                                                            \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                      \
            return NULL;                                                          \
        }                                                                         \
        PyObject *r = clamp(self, true, v, NULL);                                 \
        ctpy_release(&sig, v);                                                    \
        return r;                                                                 \
    }                                                                             \
    static PyObject *fn_##NAME(FASTCALL_ARGS)                                     \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#NAME "(Tensor input, TensorN? min=None, " \
                                       "TensorN? max=None, *, Tensor? out=None)"); \
        ctpy_arg v[4];                                                            \
        (void)self;                                                               \
        if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {                      \
            return NULL;                                                          \
        }                                                                         \
        PyObject *r = clamp(v[0].obj, false, v + 1, v + 3);                       \
        ctpy_release(&sig, v);                                                    \
        return r;                                                                 \
    }
CLAMP_SIGS(clamp)
CLAMP_SIGS(clip)
#undef CLAMP_SIGS

static PyObject *
nan_to_num(PyObject *input, const ctpy_arg *v, bool inplace)
{
    ct_tensor *t = ctpy_tensor(input);
    ct_tensor *r = ctag_nan_to_num(t, v[0].is_none ? NULL : &v[0].d,
                                 v[1].is_none ? NULL : &v[1].d,
                                 v[2].is_none ? NULL : &v[2].d);
    if (r == NULL || !inplace) {
        return ctpy_result(r);
    }
    int rc = ctag_copy_(t, r);
    ct_tensor_decref(r);
    if (rc < 0) {
        return ctpy_raise();
    }
    return Py_NewRef(input);
}

static PyObject *
t_nan_to_num(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("nan_to_num(float? nan=0.0, float? posinf=None, "
                                   "float? neginf=None)");
    ctpy_arg v[3];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return nan_to_num(self, v, false);
}

static PyObject *
t_nan_to_num_(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("nan_to_num_(float? nan=0.0, float? posinf=None, "
                                   "float? neginf=None)");
    ctpy_arg v[3];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return nan_to_num(self, v, true);
}

static PyObject *
fn_nan_to_num(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("nan_to_num(Tensor input, float? nan=0.0, "
                                   "float? posinf=None, float? neginf=None)");
    ctpy_arg v[4];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return nan_to_num(v[0].obj, v + 1, false);
}

static PyObject *
fn_lerp(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("lerp(Tensor input, Tensor end, TensorN weight)");
    ctpy_arg v[3];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = ctag_lerp(v[0].t, v[1].t, v[2].t);
    ctpy_release(&sig, v);
    return ctpy_result(r);
}

static PyObject *
t_lerp(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("lerp(Tensor end, TensorN weight)");
    ctpy_arg v[2];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = ctag_lerp(ctpy_tensor(self), v[0].t, v[1].t);
    ctpy_release(&sig, v);
    return ctpy_result(r);
}

static PyObject *
t_round_decimals(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("round(*, int decimals=0)");
    ctpy_arg v[1];
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    return ctpy_result(ctag_round_decimals(ctpy_tensor(self), v[0].i));
}

static PyObject *
fn_round_decimals(FASTCALL_ARGS)
{
    static ctpy_sig sig = CTPY_SIG("round(Tensor input, *, int decimals=0, Tensor? out=None)");
    ctpy_arg v[3];
    (void)self;
    if (ctpy_parse(&sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *r = ctag_round_decimals(v[0].t, v[1].i);
    if (r == NULL || v[2].is_none) {
        return ctpy_result(r);
    }
    ct_tensor *out = v[2].t;
    int rc = ct_iter_check_out(out, CT_OUT_GIVEN, r->ndim, r->sizes, 0, NULL);
    if (rc == 0) {
        rc = ct_copy_(out, r);
    }
    ct_tensor_decref(r);
    if (rc < 0) {
        return ctpy_raise();
    }
    ctpy_bump(out);
    ct_tensor_incref(out);
    return written(out);
}

#define METH(name, fn) CTPY_METH(name, fn, NULL),
/* replaces a generated entry of the same name (type dicts keep the first
 * definition unless METH_COEXIST) */
#define METH_OVERRIDE(name, fn) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS | METH_COEXIST, NULL},

PyMethodDef ctpy_pointwise_methods[] = {
#define X(E, N, K) METH(#N, t_##N) METH(#N "_", t_##N##_)
    CT_FORALL_UNARY_OPS(X)
#undef X
#define Y(E, N) METH(#N, t_##N) METH(#N "_", t_##N##_)
    BOUND_BINARY(Y)
#undef Y
    /* torch's aliases */
    METH("absolute", t_abs) METH("absolute_", t_abs_) METH("negative", t_neg)
    METH("negative_", t_neg_) METH("arcsin", t_asin) METH("arccos", t_acos)
    METH("arctan", t_atan) METH("arctan2", t_atan2)
    METH("fix", t_trunc) METH("sgn", t_sign) METH("greater", t_gt) METH("less", t_lt)
    METH("greater_equal", t_ge) METH("less_equal", t_le) METH("not_equal", t_ne)
    METH("where", t_where) METH("masked_fill", t_masked_fill)
    METH("masked_fill_", t_masked_fill_) METH("clamp", t_clamp) METH("clamp_", t_clamp_)
    METH("clip", t_clip) METH("clip_", t_clip_) METH("nan_to_num", t_nan_to_num)
    METH("nan_to_num_", t_nan_to_num_) METH("lerp", t_lerp)
    METH_OVERRIDE("round", t_round_decimals)
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_pointwise_functions[] = {
#define X(E, N, K) METH(#N, fn_##N)
    CT_FORALL_UNARY_OPS(X)
#undef X
#define Y(E, N) METH(#N, fn_##N)
    BOUND_BINARY(Y)
#undef Y
    METH("absolute", fn_abs) METH("negative", fn_neg) METH("arcsin", fn_asin)
    METH("arccos", fn_acos) METH("arctan", fn_atan) METH("arctan2", fn_atan2)
    METH("fix", fn_trunc) METH("sgn", fn_sign) METH("greater", fn_gt) METH("less", fn_lt)
    METH("greater_equal", fn_ge) METH("less_equal", fn_le) METH("not_equal", fn_ne)
    METH("where", fn_where) METH("masked_fill", fn_masked_fill) METH("clamp", fn_clamp)
    METH("clip", fn_clip) METH("nan_to_num", fn_nan_to_num) METH("lerp", fn_lerp)
    METH("round", fn_round_decimals)     /* after the generated one: replaces it */
    {NULL, NULL, 0, NULL},
};
