/* ctorch/op_lists.h -- the lists of pointwise ops and of the parametrized
 * activations, written once: the CPU kernels (aten/cpu/binary.c, unary.c,
 * activation.c), the Python bindings and the CUDA part's kernels
 * (aten/cuda/) all expand them.  Plain C enums only, so C++
 * (nvcc) can include this too. */
#ifndef CTORCH_OP_LISTS_H
#define CTORCH_OP_LISTS_H

/* --- pointwise binary ops (aten/cpu/binary.c) -------------------------- */
/* X(ENUM, name, kind) (name: PyTorch's op name as a bare token, so that
 * bindings can stamp functions from it): the result is CT_RESULT_COMMON (the promoted
 * dtype), CT_RESULT_FLOAT (integers promote to the default float dtype:
 * true division), or CT_RESULT_BOOL (comparisons and logical ops). */
#define CT_FORALL_BINARY_OPS(X)                                    \
    X(CT_BINARY_ADD, add, CT_RESULT_COMMON)                      \
    X(CT_BINARY_SUB, sub, CT_RESULT_COMMON)                      \
    X(CT_BINARY_MUL, mul, CT_RESULT_COMMON)                      \
    X(CT_BINARY_DIV, div, CT_RESULT_FLOAT)                       \
    X(CT_BINARY_FLOOR_DIVIDE, floor_divide, CT_RESULT_COMMON)    \
    X(CT_BINARY_DIV_TRUNC, div_trunc, CT_RESULT_COMMON)          \
    X(CT_BINARY_REMAINDER, remainder, CT_RESULT_COMMON)          \
    X(CT_BINARY_FMOD, fmod, CT_RESULT_COMMON)                    \
    X(CT_BINARY_POW, pow, CT_RESULT_COMMON)                      \
    X(CT_BINARY_ATAN2, atan2, CT_RESULT_FLOAT)                   \
    X(CT_BINARY_MAXIMUM, maximum, CT_RESULT_COMMON)              \
    X(CT_BINARY_MINIMUM, minimum, CT_RESULT_COMMON)              \
    X(CT_BINARY_FMAX, fmax, CT_RESULT_COMMON)                    \
    X(CT_BINARY_FMIN, fmin, CT_RESULT_COMMON)                    \
    X(CT_BINARY_BITWISE_AND, bitwise_and, CT_RESULT_COMMON)      \
    X(CT_BINARY_BITWISE_OR, bitwise_or, CT_RESULT_COMMON)        \
    X(CT_BINARY_BITWISE_XOR, bitwise_xor, CT_RESULT_COMMON)      \
    X(CT_BINARY_LSHIFT, bitwise_left_shift, CT_RESULT_COMMON)    \
    X(CT_BINARY_RSHIFT, bitwise_right_shift, CT_RESULT_COMMON)   \
    X(CT_BINARY_EQ, eq, CT_RESULT_BOOL)                          \
    X(CT_BINARY_NE, ne, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LT, lt, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LE, le, CT_RESULT_BOOL)                          \
    X(CT_BINARY_GT, gt, CT_RESULT_BOOL)                          \
    X(CT_BINARY_GE, ge, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LOGICAL_AND, logical_and, CT_RESULT_BOOL)        \
    X(CT_BINARY_LOGICAL_OR, logical_or, CT_RESULT_BOOL)          \
    X(CT_BINARY_LOGICAL_XOR, logical_xor, CT_RESULT_BOOL)

typedef enum { CT_RESULT_COMMON, CT_RESULT_FLOAT, CT_RESULT_BOOL } ct_result_kind;

typedef enum {
#define X(E, N, K) E,
    CT_FORALL_BINARY_OPS(X)
#undef X
    CT_BINARY_COUNT
} ct_binary_op;

/* --- pointwise unary ops (aten/cpu/unary.c) ---------------------------- */
/* X(ENUM, name, kind) (name: PyTorch's, a bare token): kind CT_UNARY_SAME keeps the dtype, CT_UNARY_FLOAT
 * computes integers and bool in the default float dtype, CT_UNARY_BOOL
 * returns bool. */
#define CT_FORALL_UNARY_OPS(X)                      \
    X(CT_UNARY_ABS, abs, CT_UNARY_SAME)           \
    X(CT_UNARY_NEG, neg, CT_UNARY_SAME)           \
    X(CT_UNARY_SIGN, sign, CT_UNARY_SAME)         \
    X(CT_UNARY_SQRT, sqrt, CT_UNARY_FLOAT)        \
    X(CT_UNARY_RSQRT, rsqrt, CT_UNARY_FLOAT)      \
    X(CT_UNARY_EXP, exp, CT_UNARY_FLOAT)          \
    X(CT_UNARY_EXP2, exp2, CT_UNARY_FLOAT)        \
    X(CT_UNARY_EXPM1, expm1, CT_UNARY_FLOAT)      \
    X(CT_UNARY_LOG, log, CT_UNARY_FLOAT)          \
    X(CT_UNARY_LOG2, log2, CT_UNARY_FLOAT)        \
    X(CT_UNARY_LOG10, log10, CT_UNARY_FLOAT)      \
    X(CT_UNARY_LOG1P, log1p, CT_UNARY_FLOAT)      \
    X(CT_UNARY_SIN, sin, CT_UNARY_FLOAT)          \
    X(CT_UNARY_COS, cos, CT_UNARY_FLOAT)          \
    X(CT_UNARY_TAN, tan, CT_UNARY_FLOAT)          \
    X(CT_UNARY_ASIN, asin, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ACOS, acos, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ATAN, atan, CT_UNARY_FLOAT)        \
    X(CT_UNARY_SINH, sinh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_COSH, cosh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_TANH, tanh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_SIGMOID, sigmoid, CT_UNARY_FLOAT)  \
    X(CT_UNARY_ERF, erf, CT_UNARY_FLOAT)          \
    X(CT_UNARY_ERFC, erfc, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ERFINV, erfinv, CT_UNARY_FLOAT)    \
    X(CT_UNARY_RECIPROCAL, reciprocal, CT_UNARY_FLOAT) \
    X(CT_UNARY_FLOOR, floor, CT_UNARY_SAME)       \
    X(CT_UNARY_CEIL, ceil, CT_UNARY_SAME)         \
    X(CT_UNARY_ROUND, round, CT_UNARY_SAME)       \
    X(CT_UNARY_TRUNC, trunc, CT_UNARY_SAME)       \
    X(CT_UNARY_FRAC, frac, CT_UNARY_SAME)         \
    X(CT_UNARY_SQUARE, square, CT_UNARY_SAME)     \
    X(CT_UNARY_RELU, relu, CT_UNARY_SAME)         \
    X(CT_UNARY_SILU, silu, CT_UNARY_SAME)         \
    X(CT_UNARY_GELU, gelu, CT_UNARY_SAME)         \
    X(CT_UNARY_BITWISE_NOT, bitwise_not, CT_UNARY_SAME) \
    X(CT_UNARY_ISNAN, isnan, CT_UNARY_BOOL)       \
    X(CT_UNARY_ISINF, isinf, CT_UNARY_BOOL)       \
    X(CT_UNARY_ISFINITE, isfinite, CT_UNARY_BOOL) \
    X(CT_UNARY_SIGNBIT, signbit, CT_UNARY_BOOL)   \
    X(CT_UNARY_LOGICAL_NOT, logical_not, CT_UNARY_BOOL)

typedef enum { CT_UNARY_SAME, CT_UNARY_FLOAT, CT_UNARY_BOOL } ct_unary_kind;

typedef enum {
#define X(E, N, K) E,
    CT_FORALL_UNARY_OPS(X)
#undef X
    CT_UNARY_COUNT
} ct_unary_op;

/* --- parametrized activations (aten/cpu/activation.c, ops_activation.h) --- */
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

#endif
