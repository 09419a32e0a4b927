/* aten/activation_math.h -- the arithmetic of the parametrized
 * activations (include/ctorch/op_lists.h's CT_FORALL_ACTIVATIONS), written
 * once for the CPU's loops (aten/cpu/activation.c, C with <tgmath.h>) and
 * the device kernel (aten/cuda/activation.cu, C++ whose math functions are
 * overloaded by type, so exp of a float is expf in both).
 *
 * F_<op>(a) is the function, D_<op>(g, x) its gradient g * f'(x) and
 * D2_<op>(g, x) g * f''(x).  The includer has, in scope, the compute type
 * as `A` (float for float16 / bfloat16, double for float64) and the op's
 * parameters, already cast to A, as P0, P1, P2 (PyTorch casts its Scalar
 * arguments to the tensor's type before computing).  The formulas follow
 * PyTorch 1.13's CPU kernels (aten/src/ATen/native/cpu/Activation.cpp),
 * including their order of operations.
 */
#ifndef CTORCH_ATEN_ACTIVATION_MATH_H
#define CTORCH_ATEN_ACTIVATION_MATH_H

#ifdef __cplusplus
#include <math.h>
#else
#include <tgmath.h>
#endif

#ifdef __CUDACC__
#define CT_ACT_FN static __host__ __device__ __forceinline__
#else
#define CT_ACT_FN static inline
#endif

#define ONE ((A)1)
#define ZERO ((A)0)

/* gelu's tanh approximation: sqrt(2 / pi) and the cubic coefficient */
#define K_BETA ((A)(M_SQRT2 * M_2_SQRTPI * 0.5))
#define K_KAPPA ((A)0.044715)

/* (a product on both sides, so the select vectorizes: a * 1 is a) */
#define F_leaky_relu(a) ((a) * ((a) > 0 ? ONE : P0))
/* elu: P0 alpha, P1 scale, P2 input_scale; negcoef = alpha * scale */
#define F_elu(a) ((a) <= 0 ? (exp((a) * P2) - ONE) * (P0 * P1) : (a) * P1)
#define F_celu F_elu
#define F_softplus(a) ((a) * P0 > P1 ? (a) : log1p(exp((a) * P0)) / P0)
/* clamp's order: max with min_val, then min with max_val; NaN passes */
#define F_hardtanh(a) ((a) < P0 ? (P0 > P1 ? P1 : P0) : ((a) > P1 ? P1 : (a)))
#define F_threshold(a) ((a) <= P0 ? P1 : (a))
/* std::min / std::max as PyTorch's kernels use them (a NaN first operand
 * passes through, unlike fmin / fmax) */
#define MAX_(a, b) ((a) < (b) ? (b) : (a))
#define MIN_(a, b) ((b) < (a) ? (b) : (a))
#define F_hardsigmoid(a) (MIN_(MAX_((a) + (A)3, ZERO), (A)6) / (A)6)
#define F_hardswish(a) ((a) * MIN_(MAX_((a) + (A)3, ZERO), (A)6) / (A)6)
#define F_gelu_tanh(a)                                                         \
    ((A)0.5 * (a) * (ONE + tanh(K_BETA * ((a) + K_KAPPA * ((a) * (a) * (a))))))
#define F_mish(a) ((a) * tanh(log1p(exp(a))))
#define F_softshrink(a) ((a) > P0 ? (a) - P0 : ((a) < -P0 ? (a) + P0 : ZERO))
#define F_hardshrink(a) (((a) >= -P0 && (a) <= P0) ? ZERO : (a))
#define F_log_sigmoid(a) (MIN_(ZERO, (a)) - log1p(exp(-fabs(a))))

/* the derivatives: a is the incoming gradient, b the forward's input */
#define D_leaky_relu(a, b) ((a) * ((b) > 0 ? ONE : P0))
#define D_elu(a, b) ((b) <= 0 ? (a) * P2 * (P0 * P1) * exp((b) * P2) : (a) * P1)
#define D_celu D_elu
#define D_softplus(a, b)                                                       \
    ((b) * P0 > P1 ? (a) : (a) * exp((b) * P0) / (exp((b) * P0) + ONE))
#define D_hardtanh(a, b) (((b) <= P0 || (b) >= P1) ? ZERO : (a))
#define D_threshold(a, b) ((b) <= P0 ? ZERO : (a))
#define D_hardsigmoid(a, b) (((b) > (A)-3 && (b) < (A)3) ? (a) / (A)6 : ZERO)
#define D_hardswish(a, b)                                                      \
    ((b) < (A)-3 ? ZERO : ((b) <= (A)3 ? (a) * ((b) / (A)3 + (A)0.5) : (a)))
#define D_gelu_tanh(a, b) ((a) * gelu_tanh_d1(b))
#define D_mish(a, b) ((a) * mish_d1(b))
#define D_softshrink(a, b) (((b) >= -P0 && (b) <= P0) ? ZERO : (a))
#define D_hardshrink D_softshrink
#define D_log_sigmoid(a, b) ((a) * log_sigmoid_d1(b))

/* second derivatives (zero for the piecewise linear ones) */
#define D2_leaky_relu(a, b) ((void)(a), (void)(b), ZERO)
#define D2_elu(a, b) ((b) <= 0 ? (a) * P2 * P2 * (P0 * P1) * exp((b) * P2) : ZERO)
#define D2_celu D2_elu
#define D2_softplus(a, b) ((b) * P0 > P1 ? ZERO : (a) * P0 * softplus_d2((b) * P0))
#define D2_hardtanh D2_leaky_relu
#define D2_threshold D2_leaky_relu
#define D2_hardsigmoid D2_leaky_relu
#define D2_hardswish(a, b) (((b) > (A)-3 && (b) < (A)3) ? (a) / (A)3 : ZERO)
#define D2_gelu_tanh(a, b) ((a) * gelu_tanh_d2(b))
#define D2_mish(a, b) ((a) * mish_d2(b))
#define D2_softshrink D2_leaky_relu
#define D2_hardshrink D2_leaky_relu
#define D2_log_sigmoid(a, b) ((a) * log_sigmoid_d2(b))

/* The smooth ones' derivatives as functions, once for float and double
 * (tgmath picks the precision from the argument). */
#define SMOOTH_FUNCS(AT, SFX)                                                  \
    CT_ACT_FN AT gelu_tanh_d1##SFX(AT x)                                   \
    {                                                                          \
        typedef AT A;                                                          \
        A x_sq = x * x, x_cube = x_sq * x;                                     \
        A inner = K_BETA * (x + K_KAPPA * x_cube);                             \
        A t = tanh(inner);                                                     \
        A left = (A)0.5 * x, right = ONE + t;                                  \
        A left_derivative = (A)0.5 * right;                                    \
        A right_derivative = left * (ONE - t * t) * K_BETA *                   \
                             (ONE + (A)3 * K_KAPPA * x_sq);                    \
        return left_derivative + right_derivative;                             \
    }                                                                          \
    /* f = x/2 (1 + tanh u), u = b (x + k x^3):                                \
     * f'' = (1 - t^2) (u' - x t u'^2 + x u'' / 2) */                          \
    CT_ACT_FN AT gelu_tanh_d2##SFX(AT x)                                   \
    {                                                                          \
        typedef AT A;                                                          \
        A u = K_BETA * (x + K_KAPPA * x * x * x);                              \
        A du = K_BETA * (ONE + (A)3 * K_KAPPA * x * x);                        \
        A ddu = K_BETA * (A)6 * K_KAPPA * x;                                   \
        A t = tanh(u), s = ONE - t * t;                                        \
        return s * (du - x * t * du * du + (A)0.5 * x * ddu);                  \
    }                                                                          \
    CT_ACT_FN AT mish_d1##SFX(AT x)                                        \
    {                                                                          \
        typedef AT A;                                                          \
        A sigmoid = ONE / (ONE + exp(-x));                                     \
        A tsp = tanh(log1p(exp(x)));                                           \
        return tsp + x * sigmoid * (ONE - tsp * tsp);                          \
    }                                                                          \
    /* f = x tanh(sp(x)): f'' = s (1 - t^2) (2 + x ((1 - s) - 2 t s)) */       \
    CT_ACT_FN AT mish_d2##SFX(AT x)                                        \
    {                                                                          \
        typedef AT A;                                                          \
        A s = ONE / (ONE + exp(-x));                                           \
        A t = tanh(log1p(exp(x)));                                             \
        A q = ONE - t * t;                                                     \
        return s * q * ((A)2 + x * ((ONE - s) - (A)2 * t * s));                \
    }                                                                          \
    CT_ACT_FN AT log_sigmoid_d1##SFX(AT x)                                 \
    {                                                                          \
        typedef AT A;                                                          \
        A max_deriv = x < 0 ? ONE : ZERO, sign = x < 0 ? ONE : -ONE;           \
        A z = exp(-fabs(x));                                                   \
        return max_deriv - sign * (z / (ONE + z));                             \
    }                                                                          \
    CT_ACT_FN AT log_sigmoid_d2##SFX(AT x)                                 \
    {                                                                          \
        typedef AT A;                                                          \
        A s = ONE / (ONE + exp(-x));                                           \
        return -s * (ONE - s);                                                 \
    }                                                                          \
    /* d/dy sigmoid(y) at y = beta x */                                        \
    CT_ACT_FN AT softplus_d2##SFX(AT y)                                    \
    {                                                                          \
        typedef AT A;                                                          \
        A z = exp(y);                                                          \
        return z / ((z + ONE) * (z + ONE));                                    \
    }
#ifdef __cplusplus
/* C++ (nvcc): one overloaded name per helper; float math stays in float,
 * as tgmath keeps it in C */
static_assert(sizeof(exp(1.0f)) == sizeof(float) && sizeof(log1p(1.0f)) == sizeof(float) &&
                  sizeof(tanh(1.0f)) == sizeof(float) && sizeof(fabs(1.0f)) == sizeof(float),
              "float overloads of the math functions");
SMOOTH_FUNCS(float, )
SMOOTH_FUNCS(double, )
#else
SMOOTH_FUNCS(float, _f)
SMOOTH_FUNCS(double, _d)

/* pick the float or double helper by the compute type */
#define gelu_tanh_d1(x) _Generic((x), float: gelu_tanh_d1_f, default: gelu_tanh_d1_d)(x)
#define gelu_tanh_d2(x) _Generic((x), float: gelu_tanh_d2_f, default: gelu_tanh_d2_d)(x)
#define mish_d1(x) _Generic((x), float: mish_d1_f, default: mish_d1_d)(x)
#define mish_d2(x) _Generic((x), float: mish_d2_f, default: mish_d2_d)(x)
#define log_sigmoid_d1(x)                                                      \
    _Generic((x), float: log_sigmoid_d1_f, default: log_sigmoid_d1_d)(x)
#define log_sigmoid_d2(x)                                                      \
    _Generic((x), float: log_sigmoid_d2_f, default: log_sigmoid_d2_d)(x)
#define softplus_d2(x) _Generic((x), float: softplus_d2_f, default: softplus_d2_d)(x)
#endif
#undef SMOOTH_FUNCS

#endif
