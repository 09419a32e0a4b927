/* ctorch/ops_activation.h -- the activation functions of torch.nn that
 * take parameters or have no plain unary op (aten/cpu/activation.c):
 * leaky_relu, elu (selu and celu are elu with other coefficients),
 * softplus, hardtanh (relu6), threshold, hardsigmoid, hardswish, gelu's
 * tanh approximation, mish, softshrink, hardshrink, log_sigmoid; with
 * their first and second derivatives (the autograd formulas of
 * csrc/autograd/functions_activation.c use them).
 *
 * Conventions of ops.h: results are new references, or NULL with the ct
 * error set; tensor arguments are borrowed.  Floating dtypes compute in
 * their compute type (float for float16 / bfloat16), with the parameters
 * cast to it first as PyTorch casts its Scalars; hardtanh and threshold
 * also take integer tensors (parameters truncated to the dtype).  Other
 * dtypes raise PyTorch's '"<kernel>" not implemented for ...'.
 *
 * Thread-safety: as every op, safe on distinct outputs.
 */
#ifndef CTORCH_OPS_ACTIVATION_H
#define CTORCH_OPS_ACTIVATION_H

#include "ops.h"

/* the op list, ct_act_op and CT_ACT_MAX_PARAMS are in op_lists.h (the
 * CUDA part expands them too) */
#include "op_lists.h"

extern const char *const ct_act_names[CT_ACT_COUNT];

/* op(t) with parameters p (CT_ACT_MAX_PARAMS entries, unused ones
 * ignored).  mode CT_OUT_NEW allocates; CT_OUT_INPLACE writes t itself
 * (out must be t) and returns a new reference to it. */
ct_tensor *ct_activation(ct_act_op op, const ct_tensor *t, const double *p,
                         ct_tensor *out, ct_out_mode mode);
/* grad * op'(x): the gradient of op's input (x: the input of the forward). */
ct_tensor *ct_activation_backward(ct_act_op op, const ct_tensor *grad,
                                  const ct_tensor *x, const double *p);
/* grad * op''(x) (zeros where op is piecewise linear): the double
 * backward's gradient of x. */
ct_tensor *ct_activation_backward2(ct_act_op op, const ct_tensor *grad,
                                   const ct_tensor *x, const double *p);

#endif
