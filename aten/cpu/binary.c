/* aten/cpu/binary.c -- add, sub, mul, div: one expression per op and a
 * table per op; ct_binary (below) does promotion, broadcasting and the
 * out= rules, and aten/iter.c runs the loop. */
#include <string.h>
#include <tgmath.h>

#include "aten/cpu/loops.h"
#include "aten/device.h"

/* One integer expression serves signed and unsigned types (for uint8,
 * `a < 0` is simply false). */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* alpha converted once to every compute type */
typedef struct {
#define X(E, T, S, A) A S;
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
} alpha_ctx;

/* x * y + z, fused for floating types as PyTorch's vectorized kernels do */
#define MULADD(x, y, z) \
    _Generic((x), float: fmaf((x), (y), (z)), double: fma((x), (y), (z)), \
             default: (x) * (y) + (z))

/* float16 has no vector type in PyTorch 1.13: alpha * b is rounded to
 * half before the addition */
static inline float
half_round(float v)
{
    return ct_half_to_float(ct_float_to_half(v));
}
#define MULADD_f16(x, y, z) ((z) + half_round((x) * (y)))

/* The arithmetic loops are built twice: for x86-64-v3 (AVX2 + FMA), where
 * fma is one instruction and the loops vectorize 8 floats wide, and for
 * any x86-64, where fma is glibc's (exact either way, so results do not
 * depend on the CPU).  The optimizers' updates run here. */
#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

#define X(E, T, S, A)                                                   \
    CLONES CT_BINARY_LOOP(add_##S, T, S, A, alpha_ctx, a + b)           \
    CLONES CT_BINARY_LOOP(sub_##S, T, S, A, alpha_ctx, a - b)           \
    CLONES CT_BINARY_LOOP(mul_##S, T, S, A, alpha_ctx, a * b)
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                        \
    CLONES CT_BINARY_LOOP(add_alpha_##S, T, S, A, alpha_ctx, MULADD(cx->S, b, a)) \
    CLONES CT_BINARY_LOOP(sub_alpha_##S, T, S, A, alpha_ctx, MULADD(-cx->S, b, a))
CT_FORALL_INTEGRAL_DTYPES(X)
X(CT_DTYPE_FLOAT32, float, f32, float)
X(CT_DTYPE_FLOAT64, double, f64, double)
X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
#undef X
CLONES CT_BINARY_LOOP(add_alpha_f16, ct_half, f16, float, alpha_ctx,
                      MULADD_f16(cx->f16, b, a))
CLONES CT_BINARY_LOOP(sub_alpha_f16, ct_half, f16, float, alpha_ctx,
                      MULADD_f16(-cx->f16, b, a))
/* bool: + is or, * is and (C's conversion to _Bool does the rest) */
CT_BINARY_LOOP(add_b8, bool, b8, bool, alpha_ctx, a + b)
CT_BINARY_LOOP(add_alpha_b8, bool, b8, bool, alpha_ctx, a + (cx->b8 && b))
CT_BINARY_LOOP(mul_b8, bool, b8, bool, alpha_ctx, a && b)

#define X(E, T, S, A) CLONES CT_BINARY_LOOP(div_##S, T, S, A, alpha_ctx, a / b)
CT_FORALL_FLOATING_DTYPES(X)
#undef X

/* --- the other binary ops: F_ floating, I_ integer, B_ bool expressions --- */

/* Python-style floor division and remainder of floats, PyTorch's formulas */
#define FLOAT_HELPERS(A, N)                                                   \
    static inline A floor_div_##N(A a, A b)                                   \
    {                                                                         \
        if (b == 0) {                                                         \
            return a / b;                                                     \
        }                                                                     \
        A mod = fmod(a, b);                                                   \
        A div = (a - mod) / b;                                                \
        if (mod != 0 && (b < 0) != (mod < 0)) {                               \
            div -= 1;                                                         \
        }                                                                     \
        A floordiv;                                                           \
        if (div != 0) {                                                       \
            floordiv = floor(div);                                            \
            if (div - floordiv > (A)0.5) {                                    \
                floordiv += 1;                                                \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            floordiv = copysign((A)0, a / b);                                 \
        }                                                                     \
        return floordiv;                                                      \
    }                                                                         \
    static inline A remainder_##N(A a, A b)                                   \
    {                                                                         \
        A mod = fmod(a, b);                                                   \
        if (mod != 0 && (b < 0) != (mod < 0)) {                               \
            mod += b;                                                         \
        }                                                                     \
        return mod;                                                           \
    }                                                                         \
    static inline A maximum_##N(A a, A b)                                     \
    {                                                                         \
        return (a != a || b != b) ? (A)NAN : (a > b ? a : b);                 \
    }                                                                         \
    static inline A minimum_##N(A a, A b)                                     \
    {                                                                         \
        return (a != a || b != b) ? (A)NAN : (a < b ? a : b);                 \
    }
FLOAT_HELPERS(float, f)
FLOAT_HELPERS(double, d)
#undef FLOAT_HELPERS
#define FGEN(fn, a, b) _Generic((a), float: fn##_f, double: fn##_d)((a), (b))

/* Integer power by squaring, wrapping like PyTorch's; negative exponents
 * give 1, -1 or 0 as integer division would. */
static inline int64_t
int_pow(int64_t a, int64_t b)
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

/* x86 masks shift counts: by 63 for 64-bit operands, 31 for the rest
 * (narrow types are promoted to int); PyTorch inherits that. */
#define SHIFT_MASK(a) (sizeof(a) >= 8 ? 63 : 31)

#define F_floor_divide(a, b) FGEN(floor_div, a, b)
#define F_div_trunc(a, b) trunc((a) / (b))
#define F_remainder(a, b) FGEN(remainder, a, b)
#define F_fmod(a, b) fmod(a, b)
#define F_pow(a, b) pow(a, b)
#define F_atan2(a, b) atan2(a, b)
#define F_maximum(a, b) FGEN(maximum, a, b)
#define F_minimum(a, b) FGEN(minimum, a, b)
#define F_fmax(a, b) fmax(a, b)
#define F_fmin(a, b) fmin(a, b)
#define I_floor_divide(a, b) \
    ((b) == -1 ? -(a) : (a) / (b) - (((a) % (b) != 0) && (((a) < 0) != ((b) < 0))))
#define I_div_trunc(a, b) ((b) == -1 ? -(a) : (a) / (b))
#define I_remainder(a, b) \
    ((b) == -1 ? 0 : (a) % (b) + (((a) % (b) != 0) && (((a) % (b) < 0) != ((b) < 0))) * (b))
#define I_fmod(a, b) ((b) == -1 ? 0 : (a) % (b))
#define I_pow(a, b) int_pow((int64_t)(a), (int64_t)(b))
#define I_maximum(a, b) ((a) > (b) ? (a) : (b))
#define I_minimum(a, b) ((a) < (b) ? (a) : (b))
#define I_fmax(a, b) I_maximum(a, b)
#define I_fmin(a, b) I_minimum(a, b)
#define I_bitwise_and(a, b) ((a) & (b))
#define I_bitwise_or(a, b) ((a) | (b))
#define I_bitwise_xor(a, b) ((a) ^ (b))
#define I_lshift(a, b) ((uint64_t)(int64_t)(a) << ((int64_t)(b) & SHIFT_MASK(a)))
#define I_rshift(a, b) ((int64_t)(a) >> ((int64_t)(b) & SHIFT_MASK(a)))
#define B_maximum(a, b) ((a) || (b))
#define B_minimum(a, b) ((a) && (b))
#define B_fmax(a, b) B_maximum(a, b)
#define B_fmin(a, b) B_minimum(a, b)
#define B_bitwise_and(a, b) ((a) && (b))
#define B_bitwise_or(a, b) ((a) || (b))
#define B_bitwise_xor(a, b) ((a) != (b))
#define C_eq(a, b) ((a) == (b))
#define C_ne(a, b) ((a) != (b))
#define C_lt(a, b) ((a) < (b))
#define C_le(a, b) ((a) <= (b))
#define C_gt(a, b) ((a) > (b))
#define C_ge(a, b) ((a) >= (b))
#define C_logical_and(a, b) (((a) != 0) && ((b) != 0))
#define C_logical_or(a, b) (((a) != 0) || ((b) != 0))
#define C_logical_xor(a, b) (((a) != 0) != ((b) != 0))

/* Y(op, OP, dtype...) per group, as in unary.c */
#define FLOAT_BOPS(Y, E, T, S, A)                                             \
    Y(floor_divide, FLOOR_DIVIDE, E, T, S, A) Y(div_trunc, DIV_TRUNC, E, T, S, A) \
    Y(remainder, REMAINDER, E, T, S, A) Y(fmod, FMOD, E, T, S, A)             \
    Y(pow, POW, E, T, S, A) Y(atan2, ATAN2, E, T, S, A)                       \
    Y(maximum, MAXIMUM, E, T, S, A) Y(minimum, MINIMUM, E, T, S, A)           \
    Y(fmax, FMAX, E, T, S, A) Y(fmin, FMIN, E, T, S, A)
#define INT_BOPS(Y, E, T, S, A)                                               \
    Y(pow, POW, E, T, S, A) Y(maximum, MAXIMUM, E, T, S, A)                   \
    Y(minimum, MINIMUM, E, T, S, A) Y(fmax, FMAX, E, T, S, A)                 \
    Y(fmin, FMIN, E, T, S, A) Y(bitwise_and, BITWISE_AND, E, T, S, A)         \
    Y(bitwise_or, BITWISE_OR, E, T, S, A) Y(bitwise_xor, BITWISE_XOR, E, T, S, A) \
    Y(lshift, LSHIFT, E, T, S, A) Y(rshift, RSHIFT, E, T, S, A)
#define INT_DIV_BOPS(Y, E, T, S, A)                                           \
    Y(floor_divide, FLOOR_DIVIDE, E, T, S, A) Y(div_trunc, DIV_TRUNC, E, T, S, A) \
    Y(remainder, REMAINDER, E, T, S, A) Y(fmod, FMOD, E, T, S, A)
#define BOOL_BOPS(Y, E, T, S, A)                                              \
    Y(maximum, MAXIMUM, E, T, S, A) Y(minimum, MINIMUM, E, T, S, A)           \
    Y(fmax, FMAX, E, T, S, A) Y(fmin, FMIN, E, T, S, A)                       \
    Y(bitwise_and, BITWISE_AND, E, T, S, A) Y(bitwise_or, BITWISE_OR, E, T, S, A) \
    Y(bitwise_xor, BITWISE_XOR, E, T, S, A)
#define CMP_BOPS(Y, E, T, S, A)                                               \
    Y(eq, EQ, E, T, S, A) Y(ne, NE, E, T, S, A) Y(lt, LT, E, T, S, A)         \
    Y(le, LE, E, T, S, A) Y(gt, GT, E, T, S, A) Y(ge, GE, E, T, S, A)         \
    Y(logical_and, LOGICAL_AND, E, T, S, A) Y(logical_or, LOGICAL_OR, E, T, S, A) \
    Y(logical_xor, LOGICAL_XOR, E, T, S, A)

#define LOOP_F(op, OP, E, T, S, A) CT_BINARY_LOOP(op##_##S, T, S, A, alpha_ctx, (A)F_##op(a, b))
#define LOOP_I(op, OP, E, T, S, A) CT_BINARY_LOOP(op##_##S, T, S, A, alpha_ctx, (A)I_##op(a, b))
#define LOOP_ID(op, OP, E, T, S, A) CT_BINARY_LOOP_NONZERO(op##_##S, T, S, A, (A)I_##op(a, b))
#define LOOP_B(op, OP, E, T, S, A) CT_BINARY_LOOP(op##_##S, T, S, A, alpha_ctx, B_##op(a, b))
#define LOOP_C(op, OP, E, T, S, A) CT_BINARY_LOOP_TO_BOOL(op##_##S, T, S, A, C_##op(a, b))

#define X(E, T, S, A) FLOAT_BOPS(LOOP_F, E, T, S, A) CMP_BOPS(LOOP_C, E, T, S, A)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) INT_BOPS(LOOP_I, E, T, S, A) INT_DIV_BOPS(LOOP_ID, E, T, S, A) \
    CMP_BOPS(LOOP_C, E, T, S, A)
CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
#define X(E, T, S, A) BOOL_BOPS(LOOP_B, E, T, S, A) CMP_BOPS(LOOP_C, E, T, S, A)
CT_FORALL_BOOL_DTYPE(X)
#undef X

typedef struct {
    ct_loop plain[CT_DTYPE_COUNT];
    ct_loop alpha[CT_DTYPE_COUNT];  /* used when alpha != 1 */
} binary_loops;

static const binary_loops loops[CT_BINARY_COUNT] = {
    [CT_BINARY_ADD] = {
#define X(E, T, S, A) [E] = add_##S,
        {CT_FORALL_NUMERIC_DTYPES(X)},
#undef X
#define X(E, T, S, A) [E] = add_alpha_##S,
        {CT_FORALL_NUMERIC_DTYPES(X)},
#undef X
    },
    [CT_BINARY_SUB] = {
#define X(E, T, S, A) [E] = sub_##S,
        {CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)},
#undef X
#define X(E, T, S, A) [E] = sub_alpha_##S,
        {CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)},
#undef X
    },
    [CT_BINARY_MUL] = {
#define X(E, T, S, A) [E] = mul_##S,
        {CT_FORALL_NUMERIC_DTYPES(X)},
#undef X
        {0},
    },
    [CT_BINARY_DIV] = {
#define X(E, T, S, A) [E] = div_##S,
        {CT_FORALL_FLOATING_DTYPES(X)},
#undef X
        {0},
    },
#define ENTRY(op, OP, E, T, S, A) [CT_BINARY_##OP].plain[E] = op##_##S,
#define X(E, T, S, A) FLOAT_BOPS(ENTRY, E, T, S, A) CMP_BOPS(ENTRY, E, T, S, A)
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) INT_BOPS(ENTRY, E, T, S, A) INT_DIV_BOPS(ENTRY, E, T, S, A) \
    CMP_BOPS(ENTRY, E, T, S, A)
    CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
#define X(E, T, S, A) BOOL_BOPS(ENTRY, E, T, S, A) CMP_BOPS(ENTRY, E, T, S, A)
    CT_FORALL_BOOL_DTYPE(X)
#undef X
#undef ENTRY
};

const char *const ct_binary_names[CT_BINARY_COUNT] = {
#define X(E, N, K) [E] = #N,
    CT_FORALL_BINARY_OPS(X)
#undef X
};

static const ct_result_kind result_kinds[CT_BINARY_COUNT] = {
#define X(E, N, K) [E] = K,
    CT_FORALL_BINARY_OPS(X)
#undef X
};

/* Note [Result type]: torch.result_type.  Operands fall in three tiers:
 * tensors with dims, 0-dim tensors, and wrapped Python numbers (a Python
 * float counts as the default dtype).  Each tier promotes within itself;
 * a lower tier only matters when it is of a higher category (bool <
 * integral < floating) than every tier above it. */
enum { TIER_DIM, TIER_ZERO, TIER_WRAPPED, TIER_COUNT };

/* CT_DTYPE_COUNT stands for "no operand in this tier yet". */
static ct_dtype
promote_skip_undefined(ct_dtype a, ct_dtype b)
{
    if (a == CT_DTYPE_COUNT) {
        return b;
    }
    if (b == CT_DTYPE_COUNT) {
        return a;
    }
    return ct_dtype_promote(a, b);
}

static ct_dtype
combine_categories(ct_dtype higher, ct_dtype lower)
{
    if (higher != CT_DTYPE_COUNT && ct_dtype_is_floating(higher)) {
        return higher;
    }
    if (higher == CT_DTYPE_BOOL ||
        (lower != CT_DTYPE_COUNT && ct_dtype_is_floating(lower))) {
        return promote_skip_undefined(higher, lower);
    }
    return higher != CT_DTYPE_COUNT ? higher : lower;
}

static int
result_type(int n, const ct_tensor *const *ts, ct_dtype *out)
{
    ct_dtype tier[TIER_COUNT] = {CT_DTYPE_COUNT, CT_DTYPE_COUNT, CT_DTYPE_COUNT};
    /* quantized dtypes promote only with themselves */
    for (int i = 1; i < n; i++) {
        ct_dtype a = ts[0]->dtype, b = ts[i]->dtype;
        if ((ct_dtype_table[a].is_quantized || ct_dtype_table[b].is_quantized) && a != b) {
            return ct_error(CT_ERR_RUNTIME, "promoteTypes with quantized numbers is "
                            "not handled yet; figure out what the correct rules "
                            "should be, offending types: %s %s",
                            ct_dtype_table[a].legacy, ct_dtype_table[b].legacy);
        }
    }
    for (int i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        ct_dtype d = t->dtype;
        int k = TIER_DIM;
        if (t->flags & CT_TENSOR_WRAPPED_NUMBER) {
            k = TIER_WRAPPED;
            if (ct_dtype_is_floating(d)) {
                d = ct_default_dtype();
            }
        }
        else if (t->ndim == 0) {
            k = TIER_ZERO;
        }
        tier[k] = promote_skip_undefined(tier[k], d);
    }
    *out = combine_categories(tier[TIER_DIM],
                              combine_categories(tier[TIER_ZERO], tier[TIER_WRAPPED]));
    return 0;
}

int
ct_result_type(const ct_tensor *a, const ct_tensor *b, ct_dtype *out)
{
    const ct_tensor *ts[2] = {a, b};
    return result_type(2, ts, out);
}

int
ct_result_type_n(int n, const ct_tensor *const *ts, ct_dtype *out)
{
    return result_type(n, ts, out);
}

static bool
scalar_is_one(ct_scalar s)
{
    return ct_scalar_to_double(s) == 1.0;
}

/* Bool subtraction is refused with PyTorch's advice. */
static int
check_operands(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
               ct_scalar alpha, ct_dtype common)
{
    if (op == CT_BINARY_SUB) {
        if (a->dtype == CT_DTYPE_BOOL && b->dtype == CT_DTYPE_BOOL) {
            return ct_error(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with "
                            "two bool tensors is not supported. Use the `^` or "
                            "`logical_xor()` operator instead.");
        }
        if (a->dtype == CT_DTYPE_BOOL || b->dtype == CT_DTYPE_BOOL) {
            return ct_error(CT_ERR_RUNTIME, "Subtraction, the `-` operator, with "
                            "a bool tensor is not supported. If you are trying to "
                            "invert a mask, use the `~` or `logical_not()` "
                            "operator instead.");
        }
    }
    if (op == CT_BINARY_POW && ct_dtype_is_integral(common, true) &&
        (b->flags & CT_TENSOR_WRAPPED_NUMBER) && b->dtype == CT_DTYPE_INT64 &&
        *(const int64_t *)ct_tensor_data(b) < 0) {
        return ct_error(CT_ERR_RUNTIME, "Integers to negative integer powers are not "
                        "allowed.");
    }
    if (op == CT_BINARY_ADD || op == CT_BINARY_SUB) {
        if (ct_scalar_check(alpha, common) < 0) {
            return -1;
        }
        if (alpha.kind == CT_SCALAR_BOOL && common != CT_DTYPE_BOOL) {
            return ct_error(CT_ERR_RUNTIME, "Boolean alpha only supported for "
                            "Boolean results.");
        }
        if (alpha.kind == CT_SCALAR_FLOAT && !ct_dtype_is_floating(common)) {
            return ct_error(CT_ERR_RUNTIME, "For integral input tensors, argument "
                            "alpha must not be a floating point number.");
        }
    }
    return 0;
}

static void
fill_alpha(alpha_ctx *c, ct_scalar alpha)
{
#define X(E, T, S, A)                                    \
    {                                                    \
        T v = CT_FROM_SCALAR(S, alpha);                  \
        c->S = ct__load_##S(&v);                         \
    }
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
}

/* An input as the loop reads it: converted to the common dtype, or (when
 * out is the input itself and will be resized) a view with the input's
 * geometry, which the resize cannot change.  Overlaps PyTorch cannot decide
 * are computed in place as PyTorch does (Note [Memory overlap]). */
static ct_tensor *
input_operand(const ct_tensor *t, ct_dtype common, const ct_tensor *out,
              bool resizing, ct_device dev)
{
    if (!ct_device_eq(ct_tensor_device(t), dev)) {
        /* a CPU number beside device tensors */
        ct_tensor *d = ct_to_device(t, dev);
        ct_tensor *r = d != NULL ? ct_to_dtype(d, common, false) : NULL;
        ct_tensor_decref(d);
        return r;
    }
    if (t->dtype != common) {
        return ct_to_dtype(t, common, true);
    }
    if (t == out && resizing) {
        return ct_tensor_new(t->storage, t->offset, t->ndim, t->sizes, t->strides,
                             t->dtype);
    }
    ct_tensor_incref((ct_tensor *)t);
    return (ct_tensor *)t;
}

/* Integer floor_divide, div_trunc, remainder and fmod on a device: a
 * kernel cannot raise the CPU's ZeroDivisionError, so the divisor is looked
 * at first -- a CPU number on the host, a device tensor with one reduction
 * and one read.  (PyTorch's CUDA does not look; its kernels give what the
 * hardware gives.) */
static int
device_divisor_ok(const ct_tensor *b, const ct_tensor *bc)
{
    ct_scalar s;
    bool zero;
    if (!ct__is_device(b)) {
        /* the value the kernel divides by: 256 as uint8 is 0 */
        ct_tensor *h = ct_to_dtype(b, bc->dtype, false);
        int rc = h ? ct_tensor_item(h, &s) : -1;
        ct_tensor_decref(h);
        if (rc < 0) {
            return -1;
        }
        zero = ct_scalar_to_int(s) == 0;
    }
    else {
        ct_tensor *z = ct_scalar_tensor(ct_scalar_int(0));
        ct_tensor *eq = z ? ct_binary(CT_BINARY_EQ, bc, z, ct_scalar_int(1), NULL,
                                      CT_OUT_NEW) : NULL;
        ct_tensor *any = eq ? ct_any(eq, 0, NULL, false) : NULL;
        int rc = any ? ct_tensor_item(any, &s) : -1;
        ct_tensor_decref(any);
        ct_tensor_decref(eq);
        ct_tensor_decref(z);
        if (rc < 0) {
            return -1;
        }
        zero = ct_scalar_to_int(s) != 0;
    }
    return zero ? ct_error(CT_ERR_RUNTIME, "ZeroDivisionError") : 0;
}

ct_tensor *
ct_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
          ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    ct_dtype common;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *ac = NULL, *bc = NULL, *res = NULL;
    alpha_ctx actx;

    ct_device dev;
    if (ct__op_device(3, 1, (const ct_tensor *const[]){out, a, b}, &dev) < 0 ||
        ct_result_type(a, b, &common) < 0) {
        return NULL;
    }
    if (result_kinds[op] == CT_RESULT_FLOAT && !ct_dtype_is_floating(common)) {
        common = ct_default_dtype();            /* true division, atan2 */
    }
    /* the dtype of the result; the loop runs on inputs in `common` */
    ct_dtype rdtype = result_kinds[op] == CT_RESULT_BOOL ? CT_DTYPE_BOOL : common;
    if (check_operands(op, a, b, alpha, common) < 0) {
        return NULL;
    }
    if (ct_broadcast_shapes(a->ndim, a->sizes, b->ndim, b->sizes, &ndim, shape) < 0) {
        return NULL;
    }
    bool use_alpha = (op == CT_BINARY_ADD || op == CT_BINARY_SUB) &&
                     !scalar_is_one(alpha);
    ct_loop loop = use_alpha ? loops[op].alpha[common] : loops[op].plain[common];
    if (loop == NULL) {
        /* the kernel names PyTorch's messages use, where they differ */
        static const char *const kernel[CT_BINARY_COUNT] = {
            [CT_BINARY_FLOOR_DIVIDE] = "div_floor_cpu", [CT_BINARY_DIV_TRUNC] = "div_trunc_cpu",
            [CT_BINARY_POW] = "pow", [CT_BINARY_LSHIFT] = "lshift_cpu",
            [CT_BINARY_RSHIFT] = "rshift_cpu",
        };
        if (kernel[op] != NULL) {
            ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel[op],
                     ct_dtype_table[common].legacy);
        }
        else {
            ct_error(CT_ERR_RUNTIME, "\"%s_cpu\" not implemented for '%s'",
                     ct_binary_names[op], ct_dtype_table[common].legacy);
        }
        return NULL;
    }
    bool on_device = dev.type != CT_DEVICE_CPU;
    if (on_device && ct__device_supports(CT_CUDA_BINARY, op, common, out ? out : a) < 0) {
        return NULL;
    }
    if (out != NULL && !ct_dtype_can_cast(rdtype, out->dtype)) {
        ct_error(CT_ERR_RUNTIME, "result type %s can't be cast to the desired "
                 "output type %s", ct_dtype_table[rdtype].legacy,
                 ct_dtype_table[out->dtype].legacy);
        return NULL;
    }
    if (out != NULL &&
        (ct_iter_check_overlap(out, a) < 0 || ct_iter_check_overlap(out, b) < 0)) {
        return NULL;
    }
    /* inputs in the common dtype, taken before out= may be resized (out can
     * be one of them); an input that partly overlaps the output is copied
     * so that writes cannot feed back into reads */
    bool resizing = out != NULL &&
                    (out->ndim != ndim ||
                     memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0);
    ac = input_operand(a, common, out, resizing, dev);
    bc = ac ? input_operand(b, common, out, resizing, dev) : NULL;
    if (ac == NULL || bc == NULL) {
        goto done;
    }
    if (out != NULL) {
        const ct_tensor *ins[2] = {ac, bc};
        if (ct_iter_check_out(out, mode, ndim, shape, 2, ins) < 0) {
            goto done;
        }
    }
    if (out != NULL && out->dtype == rdtype) {
        ct_tensor_incref(out);
        res = out;
    }
    else {
        const ct_tensor *ins[2] = {ac, bc};
        res = ct_iter_new_output(2, ins, ndim, shape, rdtype);
        if (res == NULL) {
            goto done;
        }
    }
    if (use_alpha) {
        fill_alpha(&actx, alpha);
    }
    ct_tensor *ops[3] = {res, ac, bc};
    if (on_device && res->numel > 0 && !ct_dtype_is_floating(common) &&
        (op == CT_BINARY_FLOOR_DIVIDE || op == CT_BINARY_DIV_TRUNC ||
         op == CT_BINARY_REMAINDER || op == CT_BINARY_FMOD) &&
        device_divisor_ok(b, bc) < 0) {
        goto fail;
    }
    if (on_device ? ct__device_binary(op, res, ac, bc, use_alpha ? alpha : ct_scalar_int(1)) < 0
                  : ct_iter_run(3, ops, loop, &actx) < 0) {
        goto fail;
    }
    if (out != NULL && res != out) {
        /* computed in the result dtype, written out in out's */
        if (ct_copy_(out, res) < 0) {
            goto fail;
        }
        ct_tensor_decref(res);
        ct_tensor_incref(out);
        res = out;
    }
    goto done;
fail:
    ct_tensor_decref(res);
    res = NULL;
done:
    ct_tensor_decref(ac);
    ct_tensor_decref(bc);
    return res;
}

ct_tensor *
ct_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    return ct_binary(CT_BINARY_ADD, a, b, alpha, NULL, CT_OUT_NEW);
}

ct_tensor *
ct_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    return ct_binary(CT_BINARY_SUB, a, b, alpha, NULL, CT_OUT_NEW);
}

ct_tensor *
ct_mul(const ct_tensor *a, const ct_tensor *b)
{
    return ct_binary(CT_BINARY_MUL, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW);
}

ct_tensor *
ct_div(const ct_tensor *a, const ct_tensor *b)
{
    return ct_binary(CT_BINARY_DIV, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW);
}
