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

/* X(ENUM, name, kernel name in errors, grad_fn name, grad_fn name of the
 * in-place form, double-backward name).  Parameters p[0..2] per op:
 *   leaky_relu: negative_slope       elu / celu: alpha, scale, input_scale
 *   softplus: beta, threshold        hardtanh: min_val, max_val
 *   threshold: threshold, value      softshrink / hardshrink: lambd
 * CELU is ELU's arithmetic recorded under torch.celu's node names. */
#define CT_FORALL_ACTIVATIONS(X)                                                    \
    X(CT_ACT_LEAKY_RELU, leaky_relu, "leaky_relu_cpu", "LeakyReluBackward0",        \
      "LeakyReluBackward1", "LeakyReluBackwardBackward0")                           \
    X(CT_ACT_ELU, elu, "elu_cpu", "EluBackward0", "EluBackward1",                  \
      "EluBackwardBackward0")                                                       \
    X(CT_ACT_CELU, celu, "elu_cpu", "CeluBackward0", "CeluBackward1",              \
      "EluBackwardBackward0")                                                       \
    X(CT_ACT_SOFTPLUS, softplus, "softplus_cpu", "SoftplusBackward0",              \
      "SoftplusBackward0", "SoftplusBackwardBackward0")                             \
    X(CT_ACT_HARDTANH, hardtanh, "hardtanh_cpu", "HardtanhBackward0",              \
      "HardtanhBackward0", "HardtanhBackwardBackward0")                             \
    X(CT_ACT_THRESHOLD, threshold, "threshold_cpu", "ThresholdBackward0",          \
      "ThresholdBackward1", "ThresholdBackwardBackward0")                           \
    X(CT_ACT_HARDSIGMOID, hardsigmoid, "hardsigmoid_cpu", "HardsigmoidBackward0",  \
      "HardsigmoidBackward0", "HardsigmoidBackwardBackward0")                       \
    X(CT_ACT_HARDSWISH, hardswish, "hardswish_cpu", "HardswishBackward0",          \
      "HardswishBackward0", "HardswishBackwardBackward0")                           \
    X(CT_ACT_GELU_TANH, gelu_tanh, "GeluKernelImpl", "GeluBackward0",              \
      "GeluBackward0", "GeluBackwardBackward0")                                     \
    X(CT_ACT_MISH, mish, "mish_cpu", "MishBackward0", "MishBackward0",             \
      "MishBackwardBackward0")                                                      \
    X(CT_ACT_SOFTSHRINK, softshrink, "softshrink_cpu", "SoftshrinkBackward0",      \
      "SoftshrinkBackward0", "SoftshrinkBackwardBackward0")                         \
    X(CT_ACT_HARDSHRINK, hardshrink, "hardshrink_cpu", "HardshrinkBackward0",      \
      "HardshrinkBackward0", "HardshrinkBackwardBackward0")                         \
    X(CT_ACT_LOG_SIGMOID, log_sigmoid, "log_sigmoid_cpu", "LogSigmoidBackward0",   \
      "LogSigmoidBackward0", "LogSigmoidBackwardBackward0")

typedef enum {
#define X(E, N, K, B, BI, BB) E,
    CT_FORALL_ACTIVATIONS(X)
#undef X
    CT_ACT_COUNT
} ct_act_op;

#define CT_ACT_MAX_PARAMS 3

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
