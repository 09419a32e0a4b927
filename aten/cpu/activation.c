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

/* the expressions (F_, D_, D2_) and their helpers, shared with the
 * device kernel (aten/cuda/activation.cu) */
#include "aten/activation_math.h"

/* integer forms (hardtanh, threshold): parameters truncated to the type */
#define I_hardtanh(a)                                                          \
    ((a) < (A)cx->i[0] ? ((A)cx->i[0] > (A)cx->i[1] ? (A)cx->i[1] : (A)cx->i[0]) \
                       : ((a) > (A)cx->i[1] ? (A)cx->i[1] : (a)))
#define I_threshold(a) ((a) <= (A)cx->i[0] ? (A)cx->i[1] : (a))

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

/* hardtanh or threshold of an integer tensor on a device (the kernel takes
 * floating dtypes): aten/device_activation.c's composite, written back
 * into t for the in-place form */
static ct_tensor *
device_int_activation(ct_act_op op, const ct_tensor *t, const double *p, ct_tensor *out,
                      ct_out_mode mode)
{
    ct_tensor *r = ct__device_int_activation(op, t, p);
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

ct_tensor *
ct_activation(ct_act_op op, const ct_tensor *t, const double *p, ct_tensor *out,
              ct_out_mode mode)
{
    bool dev = ct__is_device(t) && (out == NULL || out == t);
    if (!dev && ct__host_only((const ct_tensor *const[]){t, out}, 2) < 0) {
        return NULL;
    }
    act_ctx cx;
    ct_loop loop = find_loop(fwd_loops, op, t->dtype);
    if (loop == NULL) {
        return NULL;
    }
    if (dev && !ct_dtype_is_floating(t->dtype)) {
        return device_int_activation(op, t, p, out, mode);
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
    if ((dev ? ct__device_activation_kernel(op, 0, r, NULL, t, p)
             : ct_iter_run(2, ops, loop, &cx)) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* grad * f'(x) (order 1) or grad * f''(x) (order 2) in x's dtype, x's
 * shape, on x's device. */
static ct_tensor *
derivative(const ct_loop (*table)[CT_DTYPE_COUNT], int order, ct_act_op op,
           const ct_tensor *grad, const ct_tensor *x, const double *p)
{
    bool dev = ct__is_device(x);
    const ct_tensor *both[2] = {grad, x};
    if ((dev ? ct__same_device(both, 2) : ct__host_only(both, 2)) < 0) {
        return NULL;
    }
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
        if ((dev ? ct__device_activation_kernel(op, order, r, g, x, p)
                 : ct_iter_run(3, ops, loop, &cx)) < 0) {
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
    return derivative(bwd_loops, 1, op, grad, x, p);
}

ct_tensor *
ct_activation_backward2(ct_act_op op, const ct_tensor *grad, const ct_tensor *x,
                        const double *p)
{
    return derivative(bwd2_loops, 2, op, grad, x, p);
}
