/* ctorch/op_lists.h -- the lists of pointwise ops, written once: the CPU
 * kernels (aten/cpu/binary.c, unary.c), the Python bindings and the CUDA
 * part's kernels (aten/cuda/) all expand them.  Plain C enums only, so C++
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

#endif
