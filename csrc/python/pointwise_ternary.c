/* csrc/python/pointwise_ternary.c -- Tensor methods and torch functions of
 * the ternary pointwise family (aten/cpu/pointwise_ternary.c):
 * t.addcmul(tensor1, tensor2, *, value=1), t.addcmul_(...),
 * torch.addcmul(input, tensor1, tensor2, *, value=1, out=None), and the
 * same for addcdiv.  See Note [Method tables] for how module.c finds them. */
#include "argparse.h"

#include <ctorch/ops_pointwise_ternary.h>

typedef ct_tensor *(*ternary_fn)(const ct_tensor *, const ct_tensor *,
                                 const ct_tensor *, ct_scalar, ct_tensor *,
                                 ct_out_mode);

/* Run fn with the GIL released when the tensors are large; the result (a
 * new reference, self or out for the writing forms) wrapped. */
static PyObject *
run(ternary_fn fn, ct_tensor *self, ct_tensor *t1, ct_tensor *t2, ct_scalar value,
    ct_tensor *out, ct_out_mode mode)
{
    ct_tensor *r;
    CTPY_RUN(self->numel + t1->numel + t2->numel,
             r = fn(self, t1, t2, value, out, mode));
    return ctpy_result(r);
}

static PyObject *
method(ternary_fn fn, bool inplace, PyObject *self, PyObject *const *args,
       Py_ssize_t nargs, PyObject *kwnames, ctpy_sig *sig)
{
    ctpy_arg v[3];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    ct_tensor *t = ctpy_tensor(self);
    return run(fn, t, v[0].t, v[1].t, v[2].s, inplace ? t : NULL,
               inplace ? CT_OUT_INPLACE : CT_OUT_NEW);
}

static PyObject *
function(ternary_fn fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
         ctpy_sig *sig)
{
    ctpy_arg v[5];
    if (ctpy_parse(sig, args, nargs, kwnames, v) < 0) {
        return NULL;
    }
    bool has_out = !v[4].is_none;
    return run(fn, v[0].t, v[1].t, v[2].t, v[3].s, has_out ? v[4].t : NULL,
               has_out ? CT_OUT_GIVEN : CT_OUT_NEW);
}

#define TERNARY(N)                                                                \
    static PyObject *t_##N(CTPY_FASTCALL_ARGS)                                    \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "(Tensor tensor1, Tensor tensor2, *, "   \
                                       "Scalar value=1)");                        \
        return method(ctag_##N, false, self, args, nargs, kwnames, &sig);         \
    }                                                                             \
    static PyObject *t_##N##_(CTPY_FASTCALL_ARGS)                                 \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "_(Tensor tensor1, Tensor tensor2, *, "  \
                                       "Scalar value=1)");                        \
        return method(ctag_##N, true, self, args, nargs, kwnames, &sig);          \
    }                                                                             \
    static PyObject *fn_##N(CTPY_FASTCALL_ARGS)                                   \
    {                                                                             \
        static ctpy_sig sig = CTPY_SIG(#N "(Tensor input, Tensor tensor1, "       \
                                       "Tensor tensor2, *, Scalar value=1, "      \
                                       "Tensor? out=None)");                      \
        (void)self;                                                               \
        return function(ctag_##N, args, nargs, kwnames, &sig);                    \
    }
TERNARY(addcmul)
TERNARY(addcdiv)
#undef TERNARY

PyMethodDef ctpy_pointwise_ternary_methods[] = {
    CTPY_METH("addcmul", t_addcmul, "addcmul(tensor1, tensor2, *, value=1) -> Tensor"),
    CTPY_METH("addcmul_", t_addcmul_,
              "addcmul_(tensor1, tensor2, *, value=1) -> Tensor"),
    CTPY_METH("addcdiv", t_addcdiv, "addcdiv(tensor1, tensor2, *, value=1) -> Tensor"),
    CTPY_METH("addcdiv_", t_addcdiv_,
              "addcdiv_(tensor1, tensor2, *, value=1) -> Tensor"),
    {NULL, NULL, 0, NULL},
};

PyMethodDef ctpy_pointwise_ternary_functions[] = {
    CTPY_METH("addcmul", fn_addcmul,
              "addcmul(input, tensor1, tensor2, *, value=1, out=None) -> Tensor"),
    CTPY_METH("addcdiv", fn_addcdiv,
              "addcdiv(input, tensor1, tensor2, *, value=1, out=None) -> Tensor"),
    {NULL, NULL, 0, NULL},
};
