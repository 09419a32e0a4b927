/* csrc/python/pointwise.c -- Tensor methods and torch functions of the
 * pointwise families, stamped from the op lists of ops.h: for a unary op
 * `f`: t.f(), t.f_(), torch.f(input, *, out=None); for a binary op `g`:
 * t.g(other), t.g_(other), torch.g(input, other, *, out=None).  (add, sub,
 * mul and div, which take alpha / rounding_mode, are in tensor_methods.c
 * and functions.c.) */
#include "argparse.h"

#define FASTCALL_ARGS PyObject *self, PyObject *const *args, Py_ssize_t nargs, \
                      PyObject *kwnames

/* Run op with the GIL released when the tensors are large. */
static ct_tensor *
run_unary(ct_unary_op op, ct_tensor *t, ct_tensor *out, ct_out_mode mode)
{
    ct_tensor *r;
    if (t->numel > CTPY_GIL_NUMEL) {
        Py_BEGIN_ALLOW_THREADS
        r = ct_unary(op, t, out, mode);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ct_unary(op, t, out, mode);
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
        r = ct_binary(op, a, b, ct_scalar_int(1), out, mode);
        Py_END_ALLOW_THREADS
    }
    else {
        r = ct_binary(op, a, b, ct_scalar_int(1), out, mode);
    }
    return r;
}

/* The result of an in-place or out= op: the written tensor, version bumped. */
static PyObject *
written(ct_tensor *r)
{
    if (r != NULL) {
        ctpy_bump(r);
    }
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

#define METH(name, fn) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, NULL},

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
    {NULL, NULL, 0, NULL},
};
