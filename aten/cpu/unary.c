/* aten/cpu/unary.c -- pointwise ops of one tensor: one expression per op
 * and dtype group, tables generated from CT_FORALL_UNARY_OPS (ops.h).
 *
 * Expressions: F_<op>(a) for floating compute types (float or double, via
 * <tgmath.h>, so sqrt(a) is sqrtf for float), I_<op>(a) for integers and
 * B_<op>(a) for bool.  The op lists below (FLOAT_OPS, INT_OPS, ...) say
 * which dtype groups have a loop; a missing loop is PyTorch's "not
 * implemented for" error.  An op of kind CT_UNARY_FLOAT converts integer
 * and bool inputs to the default float dtype first.
 */
#include "aten/device.h"
#include <tgmath.h>

#include "aten/cpu/loops.h"
#include "aten/cpu/vec_math.h"

/* One integer expression serves signed and unsigned types: for uint8,
 * `a < 0` is simply false, which is the right answer. */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* erfinv has no libm function: a rational first guess refined by two Newton
 * steps on erf, as PyTorch's calc_erfinv does. */
static double
calc_erfinv(double y)
{
    if (isnan(y) || y < -1 || y > 1) {
        return NAN;
    }
    if (y == 1 || y == -1) {
        return copysign(INFINITY, y);
    }
    static const double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
    static const double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
    static const double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
    static const double d[2] = {3.543889200, 1.637067800};
    double x, z;
    if (fabs(y) <= 0.7) {
        z = y * y;
        x = y * (((a[3] * z + a[2]) * z + a[1]) * z + a[0]) /
            ((((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0);
    }
    else {
        z = sqrt(-log((1.0 - fabs(y)) / 2.0));
        x = copysign(((c[3] * z + c[2]) * z + c[1]) * z + c[0], y) /
            ((d[1] * z + d[0]) * z + 1.0);
    }
    /* two Newton-Raphson steps: erf(x) - y = 0 */
    const double k = 2.0 / sqrt(M_PI);
    x -= (erf(x) - y) / (k * exp(-x * x));
    x -= (erf(x) - y) / (k * exp(-x * x));
    return x;
}

#define F_abs(a) fabs(a)
#define F_neg(a) (-(a))
#define F_sign(a) (((a) > 0) - ((a) < 0))
#define F_sqrt(a) sqrt(a)
#define F_rsqrt(a) (1 / sqrt(a))
#define F_exp(a) exp(a)
#define F_exp2(a) exp2(a)
#define F_expm1(a) expm1(a)
#define F_log(a) log(a)
#define F_log2(a) log2(a)
#define F_log10(a) log10(a)
#define F_log1p(a) log1p(a)
#define F_sin(a) sin(a)
#define F_cos(a) cos(a)
#define F_tan(a) tan(a)
#define F_asin(a) asin(a)
#define F_acos(a) acos(a)
#define F_atan(a) atan(a)
#define F_sinh(a) sinh(a)
#define F_cosh(a) cosh(a)
#define F_tanh(a) tanh(a)
#define F_sigmoid(a) (1 / (1 + exp(-(a))))
#define F_erf(a) erf(a)
#define F_erfc(a) erfc(a)
#define F_erfinv(a) calc_erfinv(a)
#define F_reciprocal(a) (1 / (a))
#define F_floor(a) floor(a)
#define F_ceil(a) ceil(a)
#define F_round(a) nearbyint(a)
#define F_trunc(a) trunc(a)
#define F_frac(a) ((a) - trunc(a))
#define F_square(a) ((a) * (a))
#define F_relu(a) ((a) < 0 ? 0 : (a))     /* NaN and -0.0 pass, as max() */
#define F_silu(a) ((a) / (1 + exp(-(a))))
#define F_gelu(a) (0.5 * (a) * (1 + erf((a) * M_SQRT1_2)))
#define F_bitwise_not(a) (a)
#define F_isnan(a) isnan(a)
#define F_isinf(a) isinf(a)
#define F_isfinite(a) isfinite(a)
#define F_signbit(a) (signbit(a) != 0)
#define F_logical_not(a) (!(a))

#define I_abs(a) ((a) < 0 ? -(a) : (a))
#define I_neg(a) (-(a))
#define I_sign(a) (((a) > 0) - ((a) < 0))
#define I_floor(a) (a)
#define I_ceil(a) (a)
#define I_round(a) (a)
#define I_trunc(a) (a)
#define I_square(a) ((a) * (a))
#define I_relu(a) ((a) > 0 ? (a) : 0)
#define I_bitwise_not(a) (~(a))
#define I_isnan(a) ((void)(a), 0)
#define I_isinf(a) ((void)(a), 0)
#define I_isfinite(a) ((void)(a), 1)
#define I_signbit(a) ((a) < 0)
#define I_logical_not(a) (!(a))
#define B_sign(a) (a)
#define B_bitwise_not(a) (!(a))
#define B_logical_not(a) (!(a))
#define B_isnan(a) ((void)(a), 0)
#define B_isinf(a) ((void)(a), 0)
#define B_isfinite(a) ((void)(a), 1)
#define B_signbit(a) ((void)(a), 0)

static const ct_unary_kind kinds[CT_UNARY_COUNT] = {
#define X(E, N, K) [E] = K,
    CT_FORALL_UNARY_OPS(X)
#undef X
};

const char *const ct_unary_names[CT_UNARY_COUNT] = {
#define X(E, N, K) [E] = #N,
    CT_FORALL_UNARY_OPS(X)
#undef X
};

/* The ops with a loop per dtype group: Y(op, OP, dtype...) with op the
 * expression's suffix and OP the enum's; the dtype (E, T, S, A) rides
 * along so that Y can stamp a loop or a table entry. */
#define FLOAT_OPS(Y, E, T, S, A)                                              \
    Y(abs, ABS, E, T, S, A) Y(neg, NEG, E, T, S, A) Y(sign, SIGN, E, T, S, A) \
    Y(sqrt, SQRT, E, T, S, A) Y(rsqrt, RSQRT, E, T, S, A)                     \
    Y(exp, EXP, E, T, S, A) Y(exp2, EXP2, E, T, S, A)                         \
    Y(expm1, EXPM1, E, T, S, A) Y(log, LOG, E, T, S, A)                       \
    Y(log2, LOG2, E, T, S, A) Y(log10, LOG10, E, T, S, A)                     \
    Y(log1p, LOG1P, E, T, S, A) Y(sin, SIN, E, T, S, A)                       \
    Y(cos, COS, E, T, S, A) Y(tan, TAN, E, T, S, A) Y(asin, ASIN, E, T, S, A) \
    Y(acos, ACOS, E, T, S, A) Y(atan, ATAN, E, T, S, A)                       \
    Y(sinh, SINH, E, T, S, A) Y(cosh, COSH, E, T, S, A)                       \
    Y(tanh, TANH, E, T, S, A) Y(sigmoid, SIGMOID, E, T, S, A)                 \
    Y(erf, ERF, E, T, S, A) Y(erfc, ERFC, E, T, S, A)                         \
    Y(erfinv, ERFINV, E, T, S, A) Y(reciprocal, RECIPROCAL, E, T, S, A)       \
    Y(floor, FLOOR, E, T, S, A) Y(ceil, CEIL, E, T, S, A)                     \
    Y(round, ROUND, E, T, S, A) Y(trunc, TRUNC, E, T, S, A)                   \
    Y(frac, FRAC, E, T, S, A) Y(square, SQUARE, E, T, S, A)                   \
    Y(relu, RELU, E, T, S, A) Y(silu, SILU, E, T, S, A)                       \
    Y(gelu, GELU, E, T, S, A)
#define INT_OPS(Y, E, T, S, A)                                                \
    Y(abs, ABS, E, T, S, A) Y(neg, NEG, E, T, S, A) Y(sign, SIGN, E, T, S, A) \
    Y(floor, FLOOR, E, T, S, A) Y(ceil, CEIL, E, T, S, A)                     \
    Y(round, ROUND, E, T, S, A) Y(trunc, TRUNC, E, T, S, A)                   \
    Y(square, SQUARE, E, T, S, A) Y(relu, RELU, E, T, S, A)                   \
    Y(bitwise_not, BITWISE_NOT, E, T, S, A)
#define TO_BOOL_OPS(Y, E, T, S, A)                                            \
    Y(isnan, ISNAN, E, T, S, A) Y(isinf, ISINF, E, T, S, A)                   \
    Y(isfinite, ISFINITE, E, T, S, A) Y(signbit, SIGNBIT, E, T, S, A)         \
    Y(logical_not, LOGICAL_NOT, E, T, S, A)
#define BOOL_OPS(Y, E, T, S, A)                                               \
    Y(sign, SIGN, E, T, S, A) Y(bitwise_not, BITWISE_NOT, E, T, S, A)

/* The arithmetic loops are built twice: for x86-64-v3 (AVX2), where they
 * vectorize 8 floats wide, and for any x86-64.  sqrt is one instruction
 * in both (unary.o is built with -fno-math-errno: no errno call on a
 * negative input blocks vectorization); results do not depend on the
 * CPU. */
#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* the loops: the op's expression, stored in the output dtype */
#define LOOP_F(op, OP, E, T, S, A) CLONES CT_UNARY_LOOP(op##_##S, T, S, A, (A)F_##op(a))
#define LOOP_FB(op, OP, E, T, S, A) CT_UNARY_LOOP_TO_BOOL(op##_##S, T, S, A, F_##op(a))
#define LOOP_I(op, OP, E, T, S, A) CLONES CT_UNARY_LOOP(op##_##S, T, S, A, (A)I_##op(a))
#define LOOP_IB(op, OP, E, T, S, A) CT_UNARY_LOOP_TO_BOOL(op##_##S, T, S, A, I_##op(a))
#define LOOP_B(op, OP, E, T, S, A) CT_UNARY_LOOP(op##_##S, T, S, A, B_##op(a))
#define LOOP_BB(op, OP, E, T, S, A) CT_UNARY_LOOP_TO_BOOL(op##_##S, T, S, A, B_##op(a))

#define X(E, T, S, A) FLOAT_OPS(LOOP_F, E, T, S, A) TO_BOOL_OPS(LOOP_FB, E, T, S, A)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) INT_OPS(LOOP_I, E, T, S, A) TO_BOOL_OPS(LOOP_IB, E, T, S, A)
CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
#define X(E, T, S, A) BOOL_OPS(LOOP_B, E, T, S, A) TO_BOOL_OPS(LOOP_BB, E, T, S, A)
CT_FORALL_BOOL_DTYPE(X)
#undef X

/* loops[op][input dtype] */
#define ENTRY(op, OP, E, T, S, A) [CT_UNARY_##OP][E] = op##_##S,
static const ct_loop loops[CT_UNARY_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, A) FLOAT_OPS(ENTRY, E, T, S, A) TO_BOOL_OPS(ENTRY, E, T, S, A)
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) INT_OPS(ENTRY, E, T, S, A) TO_BOOL_OPS(ENTRY, E, T, S, A)
    CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
#define X(E, T, S, A) BOOL_OPS(ENTRY, E, T, S, A) TO_BOOL_OPS(ENTRY, E, T, S, A)
    CT_FORALL_BOOL_DTYPE(X)
#undef X
};
#undef ENTRY

/* Note [exp and log as PyTorch's]
 * PyTorch 1.13's CPU exp and log of float32, float64 and bfloat16 are
 * SLEEF's u10 functions on AVX2 vectors for every element -- the tail of a
 * row and strided inputs too (measured: its results equal vec_math.h's
 * everywhere, and differ from the libm loop's in about 1 exp in 10 and 1
 * log in 50) -- bfloat16 through float.  So on a CPU with AVX2 and FMA
 * these take vec_math.h's functions, 8 floats or 4 doubles at a time, a
 * short or strided group through a small buffer: PyTorch's bits, and no
 * scalar libm call per element.  (Its other transcendental functions are
 * SLEEF's too; they still go through libm here, within an ulp or two.) */
#if CT_HAVE_AVX2_KERNELS
#define VEC_LOOP(F, S, T, W, V, LOADV, STOREV, EXPV)                        \
    static CT_AVX2 int F##_vec_##S(char **data, const int64_t *st, int64_t n,  \
                                   void *ctx)                                  \
    {                                                                          \
        (void)ctx;                                                             \
        const int64_t z = (int64_t)sizeof(T);                                  \
        V buf[W];                                                              \
        for (int64_t i = 0; i < n; i += W) {                                   \
            int64_t k = n - i < W ? n - i : W;                                 \
            if (k == W && st[0] == z && st[1] == z && sizeof(T) == sizeof(V)) { \
                STOREV((V *)(T *)data[0] + i, EXPV(LOADV((const V *)(const T *)data[1] + i))); \
                continue;                                                      \
            }                                                                  \
            for (int64_t j = 0; j < W; j++) {                                  \
                buf[j] = j < k ? ct__load_##S((const T *)(data[1] + (i + j) * st[1])) : 0; \
            }                                                                  \
            STOREV(buf, EXPV(LOADV(buf)));                                     \
            for (int64_t j = 0; j < k; j++) {                                  \
                ct__store_##S((T *)(data[0] + (i + j) * st[0]), buf[j]);       \
            }                                                                  \
        }                                                                      \
        return 0;                                                              \
    }
#define VEC_LOOPS(F)                                                                     \
    VEC_LOOP(F, f32, float, 8, float, _mm256_loadu_ps, _mm256_storeu_ps, ct__##F##_f32x8) \
    VEC_LOOP(F, f64, double, 4, double, _mm256_loadu_pd, _mm256_storeu_pd, ct__##F##_f64x4) \
    VEC_LOOP(F, bf16, ct_bfloat16, 8, float, _mm256_loadu_ps, _mm256_storeu_ps, ct__##F##_f32x8)
VEC_LOOPS(exp)
VEC_LOOPS(log)
#undef VEC_LOOPS
#undef VEC_LOOP
#endif

/* The loop of op on dtype in (NULL: none). */
static ct_loop
loop_for(ct_unary_op op, ct_dtype in)
{
#if CT_HAVE_AVX2_KERNELS
    if ((op == CT_UNARY_EXP || op == CT_UNARY_LOG) && ct__cpu_has_avx2()) {
        bool e = op == CT_UNARY_EXP;
        switch (in) {
        case CT_DTYPE_FLOAT32:
            return e ? exp_vec_f32 : log_vec_f32;
        case CT_DTYPE_FLOAT64:
            return e ? exp_vec_f64 : log_vec_f64;
        case CT_DTYPE_BFLOAT16:
            return e ? exp_vec_bf16 : log_vec_bf16;
        default:
            break;
        }
    }
#endif
    return loops[op][in];
}

/* Special refusals PyTorch words on its own. */
static int
check_input(ct_unary_op op, ct_dtype d)
{
    if (d == CT_DTYPE_BOOL && op == CT_UNARY_NEG) {
        return ct_error(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor "
                        "is not supported. If you are trying to invert a mask, use "
                        "the `~` or `logical_not()` operator instead.");
    }
    if (d == CT_DTYPE_BOOL && op == CT_UNARY_RELU) {
        return ct_error(CT_ERR_RUNTIME, "Boolean inputs not supported for relu");
    }
    if (ct_dtype_table[d].is_quantized) {
        return ct_error(CT_ERR_NOTIMPL, "Could not run 'aten::%s' with arguments from "
                        "the 'QuantizedCPU' backend.", ct_unary_names[op]);
    }
    return 0;
}

ct_tensor *
ct_unary(ct_unary_op op, const ct_tensor *t, ct_tensor *out, ct_out_mode mode)
{
    ct_device dev;
    if (ct__op_device(2, 1, (const ct_tensor *const[]){out, t}, &dev) < 0) {
        return NULL;
    }
    bool on_device = dev.type != CT_DEVICE_CPU;
    if (on_device && ct__check_device(dev, t) < 0) {
        return NULL;            /* unary ops take no CPU numbers */
    }
    ct_dtype in = t->dtype, res;
    ct_tensor *src = NULL, *r = NULL;

    if (check_input(op, in) < 0) {
        return NULL;
    }
    /* integer inputs of float ops (and bool squares) are converted first */
    if (kinds[op] == CT_UNARY_FLOAT && !ct_dtype_is_floating(in)) {
        in = ct_default_dtype();
    }
    else if (op == CT_UNARY_SQUARE && in == CT_DTYPE_BOOL) {
        in = CT_DTYPE_INT64;
    }
    res = kinds[op] == CT_UNARY_BOOL ? CT_DTYPE_BOOL : in;
    ct_loop loop = loop_for(op, in);
    if (loop == NULL) {
        static const char *const suffix[CT_UNARY_COUNT] = {
            [CT_UNARY_FLOOR] = "_vml", [CT_UNARY_CEIL] = "_vml",
            [CT_UNARY_ROUND] = "_vml", [CT_UNARY_TRUNC] = "_vml",
        };
        ct_error(CT_ERR_RUNTIME, "\"%s%s_cpu\" not implemented for '%s'",
                 ct_unary_names[op], suffix[op] ? suffix[op] : "",
                 ct_dtype_table[in].legacy);
        return NULL;
    }
    if (on_device && ct__device_supports(CT_CUDA_UNARY, op, in, t) < 0) {
        return NULL;
    }
    if (out != NULL) {
        if (!ct_dtype_can_cast(res, out->dtype)) {
            ct_error(CT_ERR_RUNTIME, "result type %s can't be cast to the desired "
                     "output type %s", ct_dtype_table[res].legacy,
                     ct_dtype_table[out->dtype].legacy);
            return NULL;
        }
        if (ct_iter_check_overlap(out, t) < 0) {
            return NULL;
        }
    }
    src = ct_to_dtype(t, in, false);
    if (src == NULL) {
        return NULL;
    }
    if (out != NULL) {
        const ct_tensor *ins[1] = {src};
        if (ct_iter_check_out(out, mode, t->ndim, t->sizes, 1, ins) < 0) {
            goto done;
        }
    }
    if (out != NULL && out->dtype == res) {
        ct_tensor_incref(out);
        r = out;
    }
    else {
        const ct_tensor *ins[1] = {src};
        r = ct_iter_new_output(1, ins, t->ndim, t->sizes, res);
        if (r == NULL) {
            goto done;
        }
    }
    ct_tensor *ops[2] = {r, src};
    if ((on_device ? ct__device_unary(op, r, src) : ct_iter_run(2, ops, loop, NULL)) < 0 ||
        (out != NULL && r != out && ct_copy_(out, r) < 0)) {
        ct_tensor_decref(r);
        r = NULL;
        goto done;
    }
    if (out != NULL && r != out) {
        ct_tensor_decref(r);
        ct_tensor_incref(out);
        r = out;
    }
done:
    ct_tensor_decref(src);
    return r;
}

ct_tensor *
ct_neg(const ct_tensor *t)
{
    return ct_unary(CT_UNARY_NEG, t, NULL, CT_OUT_NEW);
}
