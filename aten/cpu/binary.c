/* aten/cpu/binary.c -- add, sub, mul, div: one expression per op and a
 * table per op; ct_binary (below) does promotion, broadcasting and the
 * out= rules, and aten/iter.c runs the loop. */
#include <math.h>
#include <string.h>

#include "aten/cpu/loops.h"

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

#define X(E, T, S, A)                                                   \
    CT_BINARY_LOOP(add_##S, T, S, A, alpha_ctx, a + b)                  \
    CT_BINARY_LOOP(sub_##S, T, S, A, alpha_ctx, a - b)                  \
    CT_BINARY_LOOP(mul_##S, T, S, A, alpha_ctx, a * b)
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                   \
    CT_BINARY_LOOP(add_alpha_##S, T, S, A, alpha_ctx, MULADD(cx->S, b, a)) \
    CT_BINARY_LOOP(sub_alpha_##S, T, S, A, alpha_ctx, MULADD(-cx->S, b, a))
CT_FORALL_INTEGRAL_DTYPES(X)
X(CT_DTYPE_FLOAT32, float, f32, float)
X(CT_DTYPE_FLOAT64, double, f64, double)
X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
#undef X
CT_BINARY_LOOP(add_alpha_f16, ct_half, f16, float, alpha_ctx, MULADD_f16(cx->f16, b, a))
CT_BINARY_LOOP(sub_alpha_f16, ct_half, f16, float, alpha_ctx, MULADD_f16(-cx->f16, b, a))
/* bool: + is or, * is and (C's conversion to _Bool does the rest) */
CT_BINARY_LOOP(add_b8, bool, b8, bool, alpha_ctx, a + b)
CT_BINARY_LOOP(add_alpha_b8, bool, b8, bool, alpha_ctx, a + (cx->b8 && b))
CT_BINARY_LOOP(mul_b8, bool, b8, bool, alpha_ctx, a && b)

#define X(E, T, S, A) CT_BINARY_LOOP(div_##S, T, S, A, alpha_ctx, a / b)
CT_FORALL_FLOATING_DTYPES(X)
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
};

static const char *const op_names[CT_BINARY_COUNT] = {
#define X(E, N) [E] = N,
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
              bool resizing)
{
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

ct_tensor *
ct_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
          ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    ct_dtype common;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *ac = NULL, *bc = NULL, *res = NULL;
    alpha_ctx actx;

    if (ct_result_type(a, b, &common) < 0) {
        return NULL;
    }
    if (op == CT_BINARY_DIV && !ct_dtype_is_floating(common)) {
        common = ct_default_dtype();            /* true division */
    }
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
        ct_error(CT_ERR_RUNTIME, "\"%s_cpu\" not implemented for '%s'",
                 op_names[op], ct_dtype_table[common].legacy);
        return NULL;
    }
    if (out != NULL && !ct_dtype_can_cast(common, out->dtype)) {
        ct_error(CT_ERR_RUNTIME, "result type %s can't be cast to the desired "
                 "output type %s", ct_dtype_table[common].legacy,
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
    ac = input_operand(a, common, out, resizing);
    bc = ac ? input_operand(b, common, out, resizing) : NULL;
    if (ac == NULL || bc == NULL) {
        goto done;
    }
    if (out != NULL) {
        const ct_tensor *ins[2] = {ac, bc};
        if (ct_iter_check_out(out, mode, ndim, shape, 2, ins) < 0) {
            goto done;
        }
    }
    if (out != NULL && out->dtype == common) {
        ct_tensor_incref(out);
        res = out;
    }
    else {
        const ct_tensor *ins[2] = {ac, bc};
        res = ct_iter_new_output(2, ins, ndim, shape, common);
        if (res == NULL) {
            goto done;
        }
    }
    if (use_alpha) {
        fill_alpha(&actx, alpha);
    }
    ct_tensor *ops[3] = {res, ac, bc};
    if (ct_iter_run(3, ops, loop, &actx) < 0) {
        goto fail;
    }
    if (out != NULL && res != out) {
        /* computed in the common dtype, written out in out's */
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
