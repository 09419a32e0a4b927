/* aten/cpu/activation.c -- the parametrized activations of
 * include/ctorch/ops_activation.h, their derivatives and second
 * derivatives: one expression per op and direction, stamped into typed
 * loops for the floating dtypes (and the integer ones for hardtanh and
 * threshold), run by the iteration engine.
 *
 * Expressions: F_<op>(a) the function, D_<op>(g, x) its gradient
 * g * f'(x), and D2_<op>(g, x) g * f''(x); they see the op's parameters as
 * P0, P1, P2, already cast to the compute type A (PyTorch casts its Scalar
 * arguments to the tensor's type before computing).  The formulas follow
 * PyTorch 1.13's CPU kernels (aten/src/ATen/native/cpu/Activation.cpp),
 * including their order of operations.
 */
#include "aten/device.h"
#include <tgmath.h>

#include "aten/cpu/loops.h"
#include <ctorch/ops_activation.h>

#pragma GCC diagnostic ignored "-Wtype-limits"

/* The libm functions the loops call, declared with their vector forms
 * (glibc's libmvec, which <math.h> declares only under -ffast-math), so
 * the loops over them vectorize.  libmvec is accurate to a few ulp, as
 * PyTorch's Sleef kernels are to one. */
#if defined(__x86_64__) && defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
#define ACT_SIMD __attribute__((simd("notinbranch")))
ACT_SIMD float expf(float);
ACT_SIMD double (exp)(double);
ACT_SIMD float log1pf(float);
ACT_SIMD double (log1p)(double);
ACT_SIMD float tanhf(float);
ACT_SIMD double (tanh)(double);
#endif

const char *const ct_act_names[CT_ACT_COUNT] = {
#define X(E, N, K, B, BI, BB) [E] = #N,
    CT_FORALL_ACTIVATIONS(X)
#undef X
};

static const char *const kernel_names[CT_ACT_COUNT] = {
#define X(E, N, K, B, BI, BB) [E] = K,
    CT_FORALL_ACTIVATIONS(X)
#undef X
};

/* The parameters as the loops read them: as doubles (cast to the compute
 * type in the expressions) and, for integer tensors, as int64. */
typedef struct {
    double p[CT_ACT_MAX_PARAMS];
    int64_t i[CT_ACT_MAX_PARAMS];
} act_ctx;

/* the parameters as locals of the loop, in the compute type (read once, so
 * the loops vectorize) */
#define P0 p0_
#define P1 p1_
#define P2 p2_
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

/* integer forms (hardtanh, threshold): parameters truncated to the type */
#define I_hardtanh(a)                                                          \
    ((a) < (A)cx->i[0] ? ((A)cx->i[0] > (A)cx->i[1] ? (A)cx->i[1] : (A)cx->i[0]) \
                       : ((a) > (A)cx->i[1] ? (A)cx->i[1] : (a)))
#define I_threshold(a) ((a) <= (A)cx->i[0] ? (A)cx->i[1] : (a))

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
    static inline AT gelu_tanh_d1##SFX(AT x)                                   \
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
    static inline AT gelu_tanh_d2##SFX(AT x)                                   \
    {                                                                          \
        typedef AT A;                                                          \
        A u = K_BETA * (x + K_KAPPA * x * x * x);                              \
        A du = K_BETA * (ONE + (A)3 * K_KAPPA * x * x);                        \
        A ddu = K_BETA * (A)6 * K_KAPPA * x;                                   \
        A t = tanh(u), s = ONE - t * t;                                        \
        return s * (du - x * t * du * du + (A)0.5 * x * ddu);                  \
    }                                                                          \
    static inline AT mish_d1##SFX(AT x)                                        \
    {                                                                          \
        typedef AT A;                                                          \
        A sigmoid = ONE / (ONE + exp(-x));                                     \
        A tsp = tanh(log1p(exp(x)));                                           \
        return tsp + x * sigmoid * (ONE - tsp * tsp);                          \
    }                                                                          \
    /* f = x tanh(sp(x)): f'' = s (1 - t^2) (2 + x ((1 - s) - 2 t s)) */       \
    static inline AT mish_d2##SFX(AT x)                                        \
    {                                                                          \
        typedef AT A;                                                          \
        A s = ONE / (ONE + exp(-x));                                           \
        A t = tanh(log1p(exp(x)));                                             \
        A q = ONE - t * t;                                                     \
        return s * q * ((A)2 + x * ((ONE - s) - (A)2 * t * s));                \
    }                                                                          \
    static inline AT log_sigmoid_d1##SFX(AT x)                                 \
    {                                                                          \
        typedef AT A;                                                          \
        A max_deriv = x < 0 ? ONE : ZERO, sign = x < 0 ? ONE : -ONE;           \
        A z = exp(-fabs(x));                                                   \
        return max_deriv - sign * (z / (ONE + z));                             \
    }                                                                          \
    static inline AT log_sigmoid_d2##SFX(AT x)                                 \
    {                                                                          \
        typedef AT A;                                                          \
        A s = ONE / (ONE + exp(-x));                                           \
        return -s * (ONE - s);                                                 \
    }                                                                          \
    /* d/dy sigmoid(y) at y = beta x */                                        \
    static inline AT softplus_d2##SFX(AT y)                                    \
    {                                                                          \
        typedef AT A;                                                          \
        A z = exp(y);                                                          \
        return z / ((z + ONE) * (z + ONE));                                    \
    }
SMOOTH_FUNCS(float, _f)
SMOOTH_FUNCS(double, _d)
#undef SMOOTH_FUNCS

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

/* The float loops are built twice, for AVX2 machines (8-wide, with
 * libmvec's AVX2 functions) and for any x86-64. */
#if defined(__x86_64__)
#define ACT_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ACT_CLONES
#endif

/* ACT_LOOP(name, T, S, AT, expr): out = expr over a (loaded as the compute
 * type AT, which the expressions know as A), with the op's context in cx. */
#define ACT_LOOP(name, T, S, AT, expr)                                         \
    ACT_CLONES static int name(char **data, const int64_t *st, int64_t n,      \
                               void *ctx)                                      \
    {                                                                          \
        typedef AT A;                                                          \
        const act_ctx *cx = ctx;                                               \
        const A p0_ = (A)cx->p[0], p1_ = (A)cx->p[1], p2_ = (A)cx->p[2];       \
        (void)p0_, (void)p1_, (void)p2_;                                       \
        T *o = (T *)data[0];                                                   \
        const T *pa = (const T *)data[1];                                      \
        const int64_t z = (int64_t)sizeof(T);                                  \
        if (st[0] == z && st[1] == z) {                                        \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S(pa + i);                                    \
                ct__store_##S(o + i, (expr));                                  \
            }                                                                  \
        }                                                                      \
        else {                                                                 \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S((const T *)(data[1] + i * st[1]));          \
                ct__store_##S((T *)(data[0] + i * st[0]), (expr));             \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }

/* The same for integer tensors, whose expressions read the int64
 * parameters cx->i[] (a float parameter may not fit the type). */
#define ACT_LOOP_INT(name, T, S, AT, expr)                                     \
    static int name(char **data, const int64_t *st, int64_t n, void *ctx)      \
    {                                                                          \
        typedef AT A;                                                          \
        const act_ctx *cx = ctx;                                               \
        (void)cx;                                                              \
        T *o = (T *)data[0];                                                   \
        const T *pa = (const T *)data[1];                                      \
        const int64_t z = (int64_t)sizeof(T);                                  \
        if (st[0] == z && st[1] == z) {                                        \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S(pa + i);                                    \
                ct__store_##S(o + i, (expr));                                  \
            }                                                                  \
        }                                                                      \
        else {                                                                 \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S((const T *)(data[1] + i * st[1]));          \
                ct__store_##S((T *)(data[0] + i * st[0]), (expr));             \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }

/* ACT_LOOP2(name, T, S, AT, expr): out = expr over a (the gradient) and b
 * (the forward's input), both of out's shape. */
#define ACT_LOOP2(name, T, S, AT, expr)                                        \
    ACT_CLONES static int name(char **data, const int64_t *st, int64_t n,      \
                               void *ctx)                                      \
    {                                                                          \
        typedef AT A;                                                          \
        const act_ctx *cx = ctx;                                               \
        const A p0_ = (A)cx->p[0], p1_ = (A)cx->p[1], p2_ = (A)cx->p[2];       \
        (void)p0_, (void)p1_, (void)p2_;                                       \
        T *o = (T *)data[0];                                                   \
        const T *pa = (const T *)data[1], *pb = (const T *)data[2];            \
        const int64_t z = (int64_t)sizeof(T);                                  \
        if (st[0] == z && st[1] == z && st[2] == z) {                          \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S(pa + i), b = ct__load_##S(pb + i);          \
                ct__store_##S(o + i, (expr));                                  \
            }                                                                  \
        }                                                                      \
        else if (st[0] == z && st[1] == 0 && st[2] == z) {                     \
            /* the gradient of a sum: one value broadcast */                   \
            const A a = ct__load_##S(pa);                                      \
            for (int64_t i = 0; i < n; i++) {                                  \
                A b = ct__load_##S(pb + i);                                    \
                ct__store_##S(o + i, (expr));                                  \
            }                                                                  \
        }                                                                      \
        else {                                                                 \
            for (int64_t i = 0; i < n; i++) {                                  \
                A a = ct__load_##S((const T *)(data[1] + i * st[1]));          \
                A b = ct__load_##S((const T *)(data[2] + i * st[2]));          \
                ct__store_##S((T *)(data[0] + i * st[0]), (expr));             \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }

#define FORALL_ACTS(Y, E, T, S, A)                                             \
    Y(leaky_relu, LEAKY_RELU, E, T, S, A) Y(elu, ELU, E, T, S, A)              \
    Y(celu, CELU, E, T, S, A) Y(softplus, SOFTPLUS, E, T, S, A)                \
    Y(hardtanh, HARDTANH, E, T, S, A) Y(threshold, THRESHOLD, E, T, S, A)      \
    Y(hardsigmoid, HARDSIGMOID, E, T, S, A) Y(hardswish, HARDSWISH, E, T, S, A) \
    Y(gelu_tanh, GELU_TANH, E, T, S, A) Y(mish, MISH, E, T, S, A)              \
    Y(softshrink, SOFTSHRINK, E, T, S, A) Y(hardshrink, HARDSHRINK, E, T, S, A) \
    Y(log_sigmoid, LOG_SIGMOID, E, T, S, A)
#define FORALL_INT_ACTS(Y, E, T, S, A)                                         \
    Y(hardtanh, HARDTANH, E, T, S, A) Y(threshold, THRESHOLD, E, T, S, A)

/* forward, first and second derivative loops */
#define STAMP_F(op, OP, E, T, S, A) ACT_LOOP(f_##op##_##S, T, S, A, F_##op(a))
#define STAMP_D(op, OP, E, T, S, A)                                            \
    ACT_LOOP2(d_##op##_##S, T, S, A, D_##op(a, b))
#define STAMP_D2(op, OP, E, T, S, A)                                           \
    ACT_LOOP2(d2_##op##_##S, T, S, A, D2_##op(a, b))
#define STAMP_I(op, OP, E, T, S, A) ACT_LOOP_INT(f_##op##_##S, T, S, A, I_##op(a))
#define X(E, T, S, A)                                                         \
    FORALL_ACTS(STAMP_F, E, T, S, A) FORALL_ACTS(STAMP_D, E, T, S, A)          \
    FORALL_ACTS(STAMP_D2, E, T, S, A)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) FORALL_INT_ACTS(STAMP_I, E, T, S, A)
CT_FORALL_INTEGRAL_DTYPES(X)
#undef X

#define ENTRY_F(op, OP, E, T, S, A) [CT_ACT_##OP][E] = f_##op##_##S,
#define ENTRY_D(op, OP, E, T, S, A) [CT_ACT_##OP][E] = d_##op##_##S,
#define ENTRY_D2(op, OP, E, T, S, A) [CT_ACT_##OP][E] = d2_##op##_##S,
static const ct_loop fwd_loops[CT_ACT_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, A) FORALL_ACTS(ENTRY_F, E, T, S, A)
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) FORALL_INT_ACTS(ENTRY_F, E, T, S, A)
    CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
};
static const ct_loop bwd_loops[CT_ACT_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, A) FORALL_ACTS(ENTRY_D, E, T, S, A)
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};
static const ct_loop bwd2_loops[CT_ACT_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, A) FORALL_ACTS(ENTRY_D2, E, T, S, A)
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static void
make_ctx(act_ctx *cx, const double *p)
{
    for (int k = 0; k < CT_ACT_MAX_PARAMS; k++) {
        cx->p[k] = p[k];
        /* a float parameter of an integer tensor truncates (static_cast) */
        cx->i[k] = isfinite(p[k]) ? (int64_t)p[k] : 0;
    }
}

static ct_loop
find_loop(const ct_loop (*table)[CT_DTYPE_COUNT], ct_act_op op, ct_dtype dt)
{
    ct_loop loop = table[op][dt];
    if (loop == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel_names[op],
                 ct_dtype_table[dt].legacy);
    }
    return loop;
}

ct_tensor *
ct_activation(ct_act_op op, const ct_tensor *t, const double *p, ct_tensor *out,
              ct_out_mode mode)
{
    if (ct__is_device(t) && (out == NULL || out == t)) {
        ct_tensor *r = find_loop(fwd_loops, op, t->dtype) != NULL
                           ? ct__device_activation(op, 0, NULL, t, p) : NULL;
        if (r != NULL && mode == CT_OUT_INPLACE) {
            int rc = ct_copy_(out, r);
            ct_tensor_decref(r);
            r = rc == 0 ? out : NULL;
            if (r != NULL) {
                ct_tensor_incref(r);
            }
        }
        return r;
    }
    if (ct__host_only((const ct_tensor *const[]){t, out}, 2) < 0) {
        return NULL;
    }
    act_ctx cx;
    ct_loop loop = find_loop(fwd_loops, op, t->dtype);
    if (loop == NULL) {
        return NULL;
    }
    make_ctx(&cx, p);
    ct_tensor *r;
    if (mode == CT_OUT_INPLACE) {
        CT_ASSERT(out == t);
        if (ct_iter_check_overlap(out, NULL) < 0) {
            return NULL;
        }
        r = out;
        ct_tensor_incref(r);
    }
    else {
        r = ct_iter_new_output(1, &t, t->ndim, t->sizes, t->dtype);
        if (r == NULL) {
            return NULL;
        }
    }
    ct_tensor *ops[2] = {r, (ct_tensor *)t};
    if (ct_iter_run(2, ops, loop, &cx) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* grad * f'(x) or grad * f''(x) in x's dtype, x's shape. */
static ct_tensor *
derivative(const ct_loop (*table)[CT_DTYPE_COUNT], ct_act_op op, const ct_tensor *grad,
           const ct_tensor *x, const double *p)
{
    act_ctx cx;
    ct_loop loop = find_loop(table, op, x->dtype);
    if (loop == NULL) {
        return NULL;
    }
    make_ctx(&cx, p);
    ct_tensor *g = ct_to_dtype(grad, x->dtype, false);
    if (g == NULL) {
        return NULL;
    }
    /* laid out as x (the incoming gradient is often an expanded scalar) */
    ct_tensor *r = ct_iter_new_output(1, &x, x->ndim, x->sizes, x->dtype);
    if (r != NULL) {
        ct_tensor *ops[3] = {r, g, (ct_tensor *)x};
        if (ct_iter_run(3, ops, loop, &cx) < 0) {
            ct_tensor_decref(r);
            r = NULL;
        }
    }
    ct_tensor_decref(g);
    return r;
}

ct_tensor *
ct_activation_backward(ct_act_op op, const ct_tensor *grad, const ct_tensor *x,
                       const double *p)
{
    if (ct__is_device(x) && ct__same_device((const ct_tensor *const[]){grad, x}, 2) == 0) {
        return find_loop(bwd_loops, op, x->dtype) != NULL
                   ? ct__device_activation(op, 1, grad, x, p) : NULL;
    }
    if (ct__host_only((const ct_tensor *const[]){grad, x}, 2) < 0) {
        return NULL;
    }
    return derivative(bwd_loops, op, grad, x, p);
}

ct_tensor *
ct_activation_backward2(ct_act_op op, const ct_tensor *grad, const ct_tensor *x,
                        const double *p)
{
    if (ct__is_device(x) && ct__same_device((const ct_tensor *const[]){grad, x}, 2) == 0) {
        return find_loop(bwd2_loops, op, x->dtype) != NULL
                   ? ct__device_activation(op, 2, grad, x, p) : NULL;
    }
    if (ct__host_only((const ct_tensor *const[]){grad, x}, 2) < 0) {
        return NULL;
    }
    return derivative(bwd2_loops, op, grad, x, p);
}
