/* aten/cuda/pointwise_math.h -- the scalar math of the device's unary ops
 * and of the binary ops besides add, sub, mul and div, written as
 * aten/cpu/unary.c and binary.c write them, in C that nvcc compiles for
 * the device (unary.cu, binary.cu) and gcc for the host test
 * (tests/c/test_cuda_kernel_math.c, which checks it against ct_unary and
 * ct_binary bit for bit).
 *
 * Per compute class C (float, double, i64, b8: see "compute classes"
 * below) four dispatchers switch on the op, one switch that every thread
 * of a launch takes alike:
 *   A    ct_k_binary_C(int op, A a, A b, wide)  ct_binary_op, same dtype out
 *   bool ct_k_compare_C(int op, A a, A b)       comparisons and logical ops
 *   A    ct_k_unary_C(int op, A a)              ct_unary_op, same dtype out
 *   bool ct_k_unary_bool_C(int op, A a)         isnan ... logical_not
 * Their cases come from op_groups.h, the lists supports.c answers from;
 * any other op returns a (or false): the launchers never pass one.
 *
 * Floating types compute in A (float for float16 and bfloat16, rounded
 * when stored, as the CPU's loops), calling the C math functions of A's
 * precision.  On the device those are CUDA's: exact where IEEE defines
 * the result (sqrt, fmod, floor, fma, ...), within CUDA's documented ulp
 * bounds for the transcendental ones (exp, log, sin, pow, atan2, erf,
 * ...), so those may differ from glibc's in the last place.  Integers
 * compute in uint64_t where C would overflow, keeping the low bits of the
 * CPU's -fwrapv arithmetic.
 */
#ifndef CTORCH_ATEN_CUDA_POINTWISE_MATH_H
#define CTORCH_ATEN_CUDA_POINTWISE_MATH_H

#include "aten/cuda/kernel_math.h"
#include "aten/cuda/op_groups.h"

/* erfinv, as aten/cpu/unary.c's calc_erfinv (PyTorch's): a rational first
 * guess refined by two Newton steps on erf, in double for every dtype */
CT_HD double
ct_k_erfinv(double y)
{
    double x, z;
    if (y != y || y < -1 || y > 1) {
        return NAN;
    }
    if (y == 1 || y == -1) {
        return copysign(INFINITY, y);
    }
    if (fabs(y) <= 0.7) {
        z = y * y;
        x = y *
            (((-0.140543331 * z + 0.914624893) * z + -1.645349621) * z + 0.886226899) /
            ((((0.012229801 * z + -0.329097515) * z + 1.442710462) * z + -2.118377725) *
                 z +
             1.0);
    }
    else {
        z = sqrt(-log((1.0 - fabs(y)) / 2.0));
        x = copysign(((1.641345311 * z + 3.429567803) * z + -1.624906493) * z +
                         -1.970840454,
                     y) /
            ((1.637067800 * z + 3.543889200) * z + 1.0);
    }
    const double k = 2.0 / sqrt(3.14159265358979323846);
    x -= (erf(x) - y) / (k * exp(-x * x));
    x -= (erf(x) - y) / (k * exp(-x * x));
    return x;
}

/* Integer power by squaring, wrapping; a negative exponent gives 1, -1 or
 * 0 as integer division would (aten/cpu/binary.c's int_pow). */
CT_HD int64_t
ct_k_int_pow(int64_t a, int64_t b)
{
    if (b < 0) {
        return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
    }
    uint64_t r = 1, x = (uint64_t)a;
    while (b) {
        if (b & 1) {
            r *= x;
        }
        x *= x;
        b >>= 1;
    }
    return (int64_t)r;
}

/* --- floating expressions, per compute type A (F: float's suffix) -------------- */

#define CT_K_REAL(A, F)                                                               \
    /* Python-style floor division and remainder, PyTorch's formulas */               \
    CT_HD A ct_k_f_floor_divide_##A(A a, A b)                                         \
    {                                                                                 \
        if (b == 0) {                                                                 \
            return a / b;                                                             \
        }                                                                             \
        A mod = fmod##F(a, b);                                                        \
        A div = (a - mod) / b;                                                        \
        if (mod != 0 && (b < 0) != (mod < 0)) {                                       \
            div -= 1;                                                                 \
        }                                                                             \
        A floordiv;                                                                   \
        if (div != 0) {                                                               \
            floordiv = floor##F(div);                                                 \
            if (div - floordiv > (A)0.5) {                                            \
                floordiv += 1;                                                        \
            }                                                                         \
        }                                                                             \
        else {                                                                        \
            floordiv = copysign##F((A)0, a / b);                                      \
        }                                                                             \
        return floordiv;                                                              \
    }                                                                                 \
    CT_HD A ct_k_f_remainder_##A(A a, A b)                                            \
    {                                                                                 \
        A mod = fmod##F(a, b);                                                        \
        if (mod != 0 && (b < 0) != (mod < 0)) {                                       \
            mod += b;                                                                 \
        }                                                                             \
        return mod;                                                                   \
    }                                                                                 \
    CT_HD A ct_k_f_div_trunc_##A(A a, A b) { return trunc##F(a / b); }                \
    CT_HD A ct_k_f_fmod_##A(A a, A b) { return fmod##F(a, b); }                       \
    CT_HD A ct_k_f_pow_##A(A a, A b) { return pow##F(a, b); }                         \
    CT_HD A ct_k_f_atan2_##A(A a, A b) { return atan2##F(a, b); }                     \
    CT_HD A ct_k_f_maximum_##A(A a, A b)                                              \
    {                                                                                 \
        return (a != a || b != b) ? (A)NAN : (a > b ? a : b);                         \
    }                                                                                 \
    CT_HD A ct_k_f_minimum_##A(A a, A b)                                              \
    {                                                                                 \
        return (a != a || b != b) ? (A)NAN : (a < b ? a : b);                         \
    }                                                                                 \
    CT_HD A ct_k_f_fmax_##A(A a, A b) { return fmax##F(a, b); }                       \
    CT_HD A ct_k_f_fmin_##A(A a, A b) { return fmin##F(a, b); }                       \
    CT_HD A ct_k_f_abs_##A(A a) { return fabs##F(a); }                                \
    CT_HD A ct_k_f_neg_##A(A a) { return -a; }                                        \
    /* sign(NaN) and sign(-0.0) are +0, as the CPU's (a > 0) - (a < 0) */             \
    CT_HD A ct_k_f_sign_##A(A a) { return (A)((a > 0) - (a < 0)); }                   \
    CT_HD A ct_k_f_sqrt_##A(A a) { return sqrt##F(a); }                               \
    CT_HD A ct_k_f_rsqrt_##A(A a) { return (A)1 / sqrt##F(a); }                       \
    CT_HD A ct_k_f_exp_##A(A a) { return exp##F(a); }                                 \
    CT_HD A ct_k_f_exp2_##A(A a) { return exp2##F(a); }                               \
    CT_HD A ct_k_f_expm1_##A(A a) { return expm1##F(a); }                             \
    CT_HD A ct_k_f_log_##A(A a) { return log##F(a); }                                 \
    CT_HD A ct_k_f_log2_##A(A a) { return log2##F(a); }                               \
    CT_HD A ct_k_f_log10_##A(A a) { return log10##F(a); }                             \
    CT_HD A ct_k_f_log1p_##A(A a) { return log1p##F(a); }                             \
    CT_HD A ct_k_f_sin_##A(A a) { return sin##F(a); }                                 \
    CT_HD A ct_k_f_cos_##A(A a) { return cos##F(a); }                                 \
    CT_HD A ct_k_f_tan_##A(A a) { return tan##F(a); }                                 \
    CT_HD A ct_k_f_asin_##A(A a) { return asin##F(a); }                               \
    CT_HD A ct_k_f_acos_##A(A a) { return acos##F(a); }                               \
    CT_HD A ct_k_f_atan_##A(A a) { return atan##F(a); }                               \
    CT_HD A ct_k_f_sinh_##A(A a) { return sinh##F(a); }                               \
    CT_HD A ct_k_f_cosh_##A(A a) { return cosh##F(a); }                               \
    CT_HD A ct_k_f_tanh_##A(A a) { return tanh##F(a); }                               \
    CT_HD A ct_k_f_sigmoid_##A(A a) { return (A)1 / ((A)1 + exp##F(-a)); }            \
    CT_HD A ct_k_f_erf_##A(A a) { return erf##F(a); }                                 \
    CT_HD A ct_k_f_erfc_##A(A a) { return erfc##F(a); }                               \
    CT_HD A ct_k_f_erfinv_##A(A a) { return (A)ct_k_erfinv((double)a); }              \
    CT_HD A ct_k_f_reciprocal_##A(A a) { return (A)1 / a; }                           \
    CT_HD A ct_k_f_floor_##A(A a) { return floor##F(a); }                             \
    CT_HD A ct_k_f_ceil_##A(A a) { return ceil##F(a); }                               \
    /* half to even, in the default rounding mode */                                  \
    CT_HD A ct_k_f_round_##A(A a) { return nearbyint##F(a); }                         \
    CT_HD A ct_k_f_trunc_##A(A a) { return trunc##F(a); }                             \
    CT_HD A ct_k_f_frac_##A(A a) { return a - trunc##F(a); }                          \
    CT_HD A ct_k_f_square_##A(A a) { return a * a; }                                  \
    /* NaN and -0.0 pass through */                                                   \
    CT_HD A ct_k_f_relu_##A(A a) { return a < 0 ? (A)0 : a; }                         \
    CT_HD A ct_k_f_silu_##A(A a) { return a / ((A)1 + exp##F(-a)); }                  \
    /* in double for every floating dtype, as the CPU's M_SQRT1_2 makes it */         \
    CT_HD A ct_k_f_gelu_##A(A a)                                                      \
    {                                                                                 \
        return (A)(0.5 * (double)a * (1 + erf((double)a * 0.70710678118654752440)));  \
    }                                                                                 \
    CT_HD bool ct_k_f_isnan_##A(A a) { return a != a; }                               \
    CT_HD bool ct_k_f_isinf_##A(A a) { return fabs##F(a) == (A)INFINITY; }            \
    CT_HD bool ct_k_f_isfinite_##A(A a) { return fabs##F(a) < (A)INFINITY; }          \
    CT_HD bool ct_k_f_signbit_##A(A a) { return copysign##F((A)1, a) < 0; }           \
    CT_HD bool ct_k_f_logical_not_##A(A a) { return a == 0; }
CT_K_REAL(float, f)
CT_K_REAL(double, )
#undef CT_K_REAL

/* --- integer and bool expressions ---------------------------------------------- */

/* Every integer dtype computes in int64_t and stores the low bits: the
 * CPU's expressions (in the dtype, promoted to int, or in int64_t, then
 * cast) give the same bits, the shifts' masks apart, which the dispatcher
 * applies by width. */
/* Integer division as the CPU's I_ expressions (aten/cpu/binary.c): Python's
 * floor and remainder, -1 without INT_MIN's overflow.  A zero divisor gives
 * 0 here; the host refuses zero divisors before launching. */
CT_HD int64_t ct_k_i_div_trunc(int64_t a, int64_t b)
{
    return b == 0 ? 0 : b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}
CT_HD int64_t ct_k_i_floor_divide(int64_t a, int64_t b)
{
    if (b == 0 || b == -1) {
        return ct_k_i_div_trunc(a, b);
    }
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}
CT_HD int64_t ct_k_i_fmod(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }
CT_HD int64_t ct_k_i_remainder(int64_t a, int64_t b)
{
    int64_t r = ct_k_i_fmod(a, b);
    return r + ((r != 0) && ((r < 0) != (b < 0))) * b;
}
CT_HD int64_t ct_k_i_pow(int64_t a, int64_t b) { return ct_k_int_pow(a, b); }
CT_HD int64_t ct_k_i_maximum(int64_t a, int64_t b) { return a > b ? a : b; }
CT_HD int64_t ct_k_i_minimum(int64_t a, int64_t b) { return a < b ? a : b; }
CT_HD int64_t ct_k_i_bitwise_and(int64_t a, int64_t b) { return a & b; }
CT_HD int64_t ct_k_i_bitwise_or(int64_t a, int64_t b) { return a | b; }
CT_HD int64_t ct_k_i_bitwise_xor(int64_t a, int64_t b) { return a ^ b; }
/* b already masked */
CT_HD int64_t ct_k_i_lshift(int64_t a, int64_t b) { return (int64_t)((uint64_t)a << b); }
CT_HD int64_t ct_k_i_rshift(int64_t a, int64_t b) { return a >> b; }
CT_HD int64_t ct_k_i_abs(int64_t a) { return a < 0 ? (int64_t)(0 - (uint64_t)a) : a; }
CT_HD int64_t ct_k_i_neg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
CT_HD int64_t ct_k_i_sign(int64_t a) { return (a > 0) - (a < 0); }
CT_HD int64_t ct_k_i_same(int64_t a) { return a; }
CT_HD int64_t ct_k_i_square(int64_t a) { return (int64_t)((uint64_t)a * (uint64_t)a); }
CT_HD int64_t ct_k_i_relu(int64_t a) { return a > 0 ? a : 0; }
CT_HD int64_t ct_k_i_bitwise_not(int64_t a) { return ~a; }
CT_HD bool ct_k_i_isnan(int64_t a) { return (void)a, false; }
CT_HD bool ct_k_i_isinf(int64_t a) { return (void)a, false; }
CT_HD bool ct_k_i_isfinite(int64_t a) { return (void)a, true; }
CT_HD bool ct_k_i_signbit(int64_t a) { return a < 0; }
CT_HD bool ct_k_i_logical_not(int64_t a) { return a == 0; }

/* bool: maximum is or, minimum is and */
CT_HD bool ct_k_b_or(bool a, bool b) { return a || b; }
CT_HD bool ct_k_b_and(bool a, bool b) { return a && b; }
CT_HD bool ct_k_b_xor(bool a, bool b) { return a != b; }
CT_HD bool ct_k_b_same(bool a) { return a; }
CT_HD bool ct_k_b_not(bool a) { return !a; }
CT_HD bool ct_k_b_isnan(bool a) { return (void)a, false; }
CT_HD bool ct_k_b_isinf(bool a) { return (void)a, false; }
CT_HD bool ct_k_b_isfinite(bool a) { return (void)a, true; }
CT_HD bool ct_k_b_signbit(bool a) { return (void)a, false; }
CT_HD bool ct_k_b_logical_not(bool a) { return !a; }

/* --- compute classes --------------------------------------------------------------- */

/* The kernels are stamped per compute class, not per dtype: float holds
 * float16, bfloat16 and float32 (A = float), double float64, i64 the
 * integer dtypes, b8 bool.  An element is loaded into its class's type
 * and stored back with a switch on the dtype, which every thread takes
 * alike; the op's math then exists once per class. */
typedef enum {
    CT_K_CLASS_FLOAT,
    CT_K_CLASS_DOUBLE,
    CT_K_CLASS_I64,
    CT_K_CLASS_B8,
    CT_K_CLASS_NONE
} ct_k_class;

CT_HD ct_k_class
ct_k_class_of(ct_dtype d)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        return sizeof(A) == 8 ? CT_K_CLASS_DOUBLE : CT_K_CLASS_FLOAT;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        return CT_K_CLASS_I64;
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL:
        return CT_K_CLASS_B8;
    default:
        return CT_K_CLASS_NONE;
    }
}

CT_HD float
ct_k_load_float(ct_dtype d, const char *p)
{
    return d == CT_DTYPE_FLOAT32 ? *(const float *)p
                                 : ct_k_bits_to_float(d, *(const uint16_t *)p);
}

CT_HD void
ct_k_store_float(ct_dtype d, char *p, float v)
{
    if (d == CT_DTYPE_FLOAT32) {
        *(float *)p = v;
    }
    else {
        *(uint16_t *)p = ct_k_float_to_bits(d, v);
    }
}

CT_HD double
ct_k_load_double(ct_dtype d, const char *p)
{
    return (void)d, *(const double *)p;
}
CT_HD void ct_k_store_double(ct_dtype d, char *p, double v) { (void)d, *(double *)p = v; }
CT_HD bool ct_k_load_bool(ct_dtype d, const char *p) { return (void)d, *(const bool *)p; }
CT_HD void ct_k_store_bool(ct_dtype d, char *p, bool v) { (void)d, *(bool *)p = v; }

CT_HD int64_t
ct_k_load_int64_t(ct_dtype d, const char *p)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        return (int64_t)ct_k_load_##S(p);
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    default:
        return 0;
    }
}

/* the low bits of v */
CT_HD void
ct_k_store_int64_t(ct_dtype d, char *p, int64_t v)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_store_##S(p, (A)v);                                                      \
        break;
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* --- the dispatchers, per class -------------------------------------------------- */

#define CT_K_CASE_FB(OP, op, A) case CT_BINARY_##OP: return ct_k_f_##op##_##A(a, b);
#define CT_K_CASE_IB(OP, op, A) case CT_BINARY_##OP: return ct_k_i_##op(a, b);
#define CT_K_CASE_BB(OP, op, A) case CT_BINARY_##OP: return ct_k_b_##op(a, b);
#define CT_K_CASE_CB(OP, op, A) case CT_BINARY_##OP: return ct_k_c_##op(a, b);
#define CT_K_CASE_FU(OP, op, A) case CT_UNARY_##OP: return ct_k_f_##op##_##A(a);
#define CT_K_CASE_IU(OP, op, A) case CT_UNARY_##OP: return ct_k_i_##op(a);
#define CT_K_CASE_BU(OP, op, A) case CT_UNARY_##OP: return ct_k_b_##op(a);

/* comparisons and logical ops, generic over the class's type */
#define ct_k_c_eq(a, b) ((a) == (b))
#define ct_k_c_ne(a, b) ((a) != (b))
#define ct_k_c_lt(a, b) ((a) < (b))
#define ct_k_c_le(a, b) ((a) <= (b))
#define ct_k_c_gt(a, b) ((a) > (b))
#define ct_k_c_ge(a, b) ((a) >= (b))
#define ct_k_c_logical_and(a, b) ((a) != 0 && (b) != 0)
#define ct_k_c_logical_or(a, b) ((a) != 0 || (b) != 0)
#define ct_k_c_logical_xor(a, b) (((a) != 0) != ((b) != 0))

/* For class C of type A: ct_k_binary_C / ct_k_compare_C / ct_k_unary_C /
 * ct_k_unary_bool_C on values, and the element functions the kernels run,
 * ct_k_binary_elem_C(d, op, out, pa, pb) and the like, which load from and
 * store to dtype d (the output of compare and unary_bool is bool). */
#define CT_K_DISPATCH(C, A, BINARY, BCASE, UNARY, UCASE, PREP)                        \
    CT_HD A ct_k_binary_##C(int op, A a, A b, bool wide)                              \
    {                                                                                 \
        PREP;                                                                         \
        switch (op) {                                                                 \
            BINARY(BCASE, A)                                                          \
        default:                                                                      \
            return a;                                                                 \
        }                                                                             \
    }                                                                                 \
    CT_HD bool ct_k_compare_##C(int op, A a, A b)                                     \
    {                                                                                 \
        switch (op) {                                                                 \
            CT_CUDA_COMPARE_OPS(CT_K_CASE_CB, A)                                      \
        default:                                                                      \
            return false;                                                             \
        }                                                                             \
    }                                                                                 \
    CT_HD A ct_k_unary_##C(int op, A a)                                               \
    {                                                                                 \
        switch (op) {                                                                 \
            UNARY(UCASE, A)                                                           \
        default:                                                                      \
            return a;                                                                 \
        }                                                                             \
    }                                                                                 \
    CT_HD bool ct_k_unary_bool_##C(int op, A a)                                       \
    {                                                                                 \
        switch (op) {                                                                 \
            CT_CUDA_TO_BOOL_UNARY_OPS(UCASE, A)                                       \
        default:                                                                      \
            return false;                                                             \
        }                                                                             \
    }                                                                                 \
    CT_HD void ct_k_binary_elem_##C(ct_dtype d, int op, char *o, const char *pa,      \
                                    const char *pb)                                   \
    {                                                                                 \
        A a = ct_k_load_##A(d, pa), b = ct_k_load_##A(d, pb);                         \
        ct_k_store_##A(d, o, ct_k_binary_##C(op, a, b, ct_k_itemsize(d) == 8));       \
    }                                                                                 \
    CT_HD void ct_k_compare_elem_##C(ct_dtype d, int op, char *o, const char *pa,     \
                                     const char *pb)                                  \
    {                                                                                 \
        *(bool *)o = ct_k_compare_##C(op, ct_k_load_##A(d, pa), ct_k_load_##A(d, pb)); \
    }                                                                                 \
    CT_HD void ct_k_unary_elem_##C(ct_dtype d, int op, char *o, const char *pa)       \
    {                                                                                 \
        ct_k_store_##A(d, o, ct_k_unary_##C(op, ct_k_load_##A(d, pa)));               \
    }                                                                                 \
    CT_HD void ct_k_unary_bool_elem_##C(ct_dtype d, int op, char *o, const char *pa)  \
    {                                                                                 \
        *(bool *)o = ct_k_unary_bool_##C(op, ct_k_load_##A(d, pa));                   \
    }

CT_K_DISPATCH(float, float, CT_CUDA_FLOAT_BINARY_OPS, CT_K_CASE_FB,
              CT_CUDA_FLOAT_UNARY_OPS, CT_K_CASE_FU, (void)wide)
CT_K_DISPATCH(double, double, CT_CUDA_FLOAT_BINARY_OPS, CT_K_CASE_FB,
              CT_CUDA_FLOAT_UNARY_OPS, CT_K_CASE_FU, (void)wide)
/* x86 masks shift counts by 63 for 64-bit operands and by 31 for the rest
 * (narrow types are promoted to int); the CPU inherits that */
CT_K_DISPATCH(i64, int64_t, CT_CUDA_INT_BINARY_OPS, CT_K_CASE_IB,
              CT_CUDA_INT_UNARY_OPS, CT_K_CASE_IU,
              if (op == CT_BINARY_LSHIFT || op == CT_BINARY_RSHIFT) {
                  b &= wide ? 63 : 31;
              })
CT_K_DISPATCH(b8, bool, CT_CUDA_BOOL_BINARY_OPS, CT_K_CASE_BB,
              CT_CUDA_BOOL_UNARY_OPS, CT_K_CASE_BU, (void)wide)

#undef CT_K_DISPATCH
#undef CT_K_CASE_FB
#undef CT_K_CASE_IB
#undef CT_K_CASE_BB
#undef CT_K_CASE_CB
#undef CT_K_CASE_FU
#undef CT_K_CASE_IU
#undef CT_K_CASE_BU

#endif
