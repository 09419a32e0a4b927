/* aten/cuda/op_groups.h -- which pointwise ops have device kernels, per
 * dtype group, written once: aten/cuda/supports.c answers from these lists
 * and aten/cuda/pointwise_math.h stamps its switch cases from them, so the
 * two cannot disagree.  They mirror the CPU's loop tables (aten/cpu/binary.c,
 * unary.c) except where noted.  Plain C: no CUDA headers.
 *
 * Each list expands Y(OP, op, A) with OP the enumerator's suffix
 * (CT_BINARY_OP / CT_UNARY_OP), op the expression's name in
 * pointwise_math.h and A the caller's extra argument (a compute type).
 */
#ifndef CTORCH_ATEN_CUDA_OP_GROUPS_H
#define CTORCH_ATEN_CUDA_OP_GROUPS_H

/* add, sub, mul and div have kernels of their own (binary.cu): all numeric
 * dtypes for add and mul, all but bool for sub, floating ones for div */

/* Integer floor_divide, div_trunc, remainder and fmod: the CPU raises
 * ZeroDivisionError on a zero divisor, which a kernel cannot, so the host
 * looks at the divisor before it launches them (aten/cpu/binary.c). */
#define CT_CUDA_FLOAT_BINARY_OPS(Y, A)                                        \
    Y(FLOOR_DIVIDE, floor_divide, A) Y(DIV_TRUNC, div_trunc, A)               \
    Y(REMAINDER, remainder, A) Y(FMOD, fmod, A) Y(POW, pow, A)                \
    Y(ATAN2, atan2, A) Y(MAXIMUM, maximum, A) Y(MINIMUM, minimum, A)          \
    Y(FMAX, fmax, A) Y(FMIN, fmin, A)
#define CT_CUDA_INT_BINARY_OPS(Y, A)                                          \
    Y(FLOOR_DIVIDE, floor_divide, A) Y(DIV_TRUNC, div_trunc, A)               \
    Y(REMAINDER, remainder, A) Y(FMOD, fmod, A)                               \
    Y(POW, pow, A) Y(MAXIMUM, maximum, A) Y(MINIMUM, minimum, A)              \
    Y(FMAX, maximum, A) Y(FMIN, minimum, A) Y(BITWISE_AND, bitwise_and, A)    \
    Y(BITWISE_OR, bitwise_or, A) Y(BITWISE_XOR, bitwise_xor, A)               \
    Y(LSHIFT, lshift, A) Y(RSHIFT, rshift, A)
#define CT_CUDA_BOOL_BINARY_OPS(Y, A)                                         \
    Y(MAXIMUM, or, A) Y(MINIMUM, and, A) Y(FMAX, or, A) Y(FMIN, and, A)       \
    Y(BITWISE_AND, and, A) Y(BITWISE_OR, or, A) Y(BITWISE_XOR, xor, A)
/* bool results, every numeric dtype */
#define CT_CUDA_COMPARE_OPS(Y, A)                                             \
    Y(EQ, eq, A) Y(NE, ne, A) Y(LT, lt, A) Y(LE, le, A) Y(GT, gt, A)          \
    Y(GE, ge, A) Y(LOGICAL_AND, logical_and, A) Y(LOGICAL_OR, logical_or, A)  \
    Y(LOGICAL_XOR, logical_xor, A)

#define CT_CUDA_FLOAT_UNARY_OPS(Y, A)                                         \
    Y(ABS, abs, A) Y(NEG, neg, A) Y(SIGN, sign, A) Y(SQRT, sqrt, A)           \
    Y(RSQRT, rsqrt, A) Y(EXP, exp, A) Y(EXP2, exp2, A) Y(EXPM1, expm1, A)     \
    Y(LOG, log, A) Y(LOG2, log2, A) Y(LOG10, log10, A) Y(LOG1P, log1p, A)     \
    Y(SIN, sin, A) Y(COS, cos, A) Y(TAN, tan, A) Y(ASIN, asin, A)             \
    Y(ACOS, acos, A) Y(ATAN, atan, A) Y(SINH, sinh, A) Y(COSH, cosh, A)       \
    Y(TANH, tanh, A) Y(SIGMOID, sigmoid, A) Y(ERF, erf, A) Y(ERFC, erfc, A)   \
    Y(ERFINV, erfinv, A) Y(RECIPROCAL, reciprocal, A) Y(FLOOR, floor, A)      \
    Y(CEIL, ceil, A) Y(ROUND, round, A) Y(TRUNC, trunc, A) Y(FRAC, frac, A)   \
    Y(SQUARE, square, A) Y(RELU, relu, A) Y(SILU, silu, A) Y(GELU, gelu, A)
#define CT_CUDA_INT_UNARY_OPS(Y, A)                                           \
    Y(ABS, abs, A) Y(NEG, neg, A) Y(SIGN, sign, A) Y(FLOOR, same, A)          \
    Y(CEIL, same, A) Y(ROUND, same, A) Y(TRUNC, same, A) Y(SQUARE, square, A) \
    Y(RELU, relu, A) Y(BITWISE_NOT, bitwise_not, A)
#define CT_CUDA_BOOL_UNARY_OPS(Y, A) Y(SIGN, same, A) Y(BITWISE_NOT, not, A)
/* bool results, every numeric dtype */
#define CT_CUDA_TO_BOOL_UNARY_OPS(Y, A)                                       \
    Y(ISNAN, isnan, A) Y(ISINF, isinf, A) Y(ISFINITE, isfinite, A)            \
    Y(SIGNBIT, signbit, A) Y(LOGICAL_NOT, logical_not, A)

#endif
