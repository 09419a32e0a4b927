/* csrc/autograd/functions_pointwise.c -- the elementwise ops and their
 * derivatives (see functions.h for how formulas are written). */
#include "functions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* --- shared helpers ------------------------------------------------------ */

ct_tensor *
ag_scalar(double v)
{
    ct_tensor *t = ct_scalar_tensor(ct_scalar_float(v));
    if (t != NULL) {
        t->flags |= CT_TENSOR_WRAPPED_NUMBER;
    }
    return t;
}

ct_tensor *
ag_mul_s(const ct_tensor *a, double s)
{
    if (a == NULL) {
        return NULL;
    }
    ct_tensor *k = ag_scalar(s);
    ct_tensor *r = k != NULL ? ctag_mul(a, k) : NULL;
    ct_tensor_decref(k);
    return r;
}

ct_tensor *
ag_add_s(const ct_tensor *a, double s)
{
    if (a == NULL) {
        return NULL;
    }
    ct_tensor *k = ag_scalar(s);
    ct_tensor *r = k != NULL ? ctag_add(a, k, ct_scalar_int(1)) : NULL;
    ct_tensor_decref(k);
    return r;
}

ct_tensor *
ag_unary(ct_unary_op op, const ct_tensor *a)
{
    return ctag_unary(op, a, NULL, CT_OUT_NEW);
}

/* Input k's sizes live in ints[k * CT_MAX_DIMS ...]. */
void
ag_save_meta(ct_node *n, int k, const ct_tensor *t)
{
    n->ndim[k] = t->ndim;
    n->dtype[k] = t->dtype;
    n->device[k] = ct_tensor_device(t);
    memcpy(n->ints + k * CT_MAX_DIMS, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
}

int
ag_input_ndim(const ct_node *n, int k)
{
    return n->ndim[k];
}

const int64_t *
ag_input_sizes(const ct_node *n, int k)
{
    return n->ints + k * CT_MAX_DIMS;
}

ct_tensor *
ag_to_input(ct_node *n, int k, ct_tensor *g)
{
    if (g == NULL) {
        return NULL;
    }
    ct_tensor *r = ctag_sum_to(g, n->ndim[k], ag_input_sizes(n, k));
    ct_tensor_decref(g);
    if (r != NULL && r->dtype != n->dtype[k]) {
        ct_tensor *c = ctag_to_dtype(r, n->dtype[k], false);
        ct_tensor_decref(r);
        r = c;
    }
    return r;
}

ct_tensor *
ag_zeros_input(const ct_node *n, int k)
{
    /* on input k's device (a node whose meta was never saved is zeroed:
     * the CPU) */
    ct_device d = n->device[k].type == CT_DEVICE_CPU ? ct_device_cpu() : n->device[k];
    return ct_zeros_on(n->ndim[k], ag_input_sizes(n, k), n->dtype[k], d);
}

int
ag_inplace_begin(const ct_tensor *self)
{
    return ct_check_inplace(self);
}

static bool
floating(ct_dtype dt)
{
    return ct_dtype_is_floating(dt);
}

/* The error for out= with an input that requires grad. */
static int
out_error(const char *name)
{
    return ct_error(CT_ERR_RUNTIME, "%s(): functions with out=... arguments don't "
                    "support automatic differentiation, but one of the arguments "
                    "requires grad.", name);
}

/* Before an op with out= and in-place forms: PyTorch's checks, and a copy
 * of self when the formulas need its value from before an in-place write
 * (*orig, else NULL).  0, or -1 with the error set. */
static int
write_begin(bool rec, ct_out_mode mode, ct_tensor *out, const char *name, bool keep_self,
            const ct_tensor *self, ct_tensor **orig)
{
    *orig = NULL;
    if (mode == CT_OUT_INPLACE && ag_inplace_begin(out) < 0) {
        return -1;
    }
    if (rec && mode == CT_OUT_GIVEN) {
        return out_error(name);
    }
    if (rec && mode == CT_OUT_INPLACE && keep_self && (*orig = ct_clone(self)) == NULL) {
        return -1;
    }
    return 0;
}

/* After it: the node recorded on the result r (rebasing self's history
 * for an in-place op).  NULL with the error set on failure. */
static ct_node *
write_record(const ct_node_type *type, int nin, const ct_tensor *const *ins, ct_tensor *r,
             ct_out_mode mode)
{
    return mode == CT_OUT_INPLACE ? ct_record_inplace(type, nin, ins, r)
                                  : ct_record(type, nin, ins, 1, &r);
}

/* --- binary ops ---------------------------------------------------------- */

static int binary_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

/* Tensor-tensor and tensor-number names (they differ where PyTorch has a
 * Scalar overload with its own derivative). */
static const char *const binary_names[CT_BINARY_COUNT][2] = {
    [CT_BINARY_ADD] = {"AddBackward0", "AddBackward0"},
    [CT_BINARY_SUB] = {"SubBackward0", "SubBackward0"},
    [CT_BINARY_MUL] = {"MulBackward0", "MulBackward0"},
    [CT_BINARY_DIV] = {"DivBackward0", "DivBackward0"},
    [CT_BINARY_POW] = {"PowBackward1", "PowBackward0"},
    [CT_BINARY_REMAINDER] = {"RemainderBackward1", "RemainderBackward0"},
    [CT_BINARY_FMOD] = {"FmodBackward1", "FmodBackward0"},
    [CT_BINARY_ATAN2] = {"Atan2Backward0", "Atan2Backward0"},
    [CT_BINARY_MAXIMUM] = {"MaximumBackward0", "MaximumBackward0"},
    [CT_BINARY_MINIMUM] = {"MinimumBackward0", "MinimumBackward0"},
    [CT_BINARY_FMAX] = {"FmaxBackward0", "FmaxBackward0"},
    [CT_BINARY_FMIN] = {"FminBackward0", "FminBackward0"},
};

#define X(E, N, K) {{NULL, binary_apply, NULL}, {NULL, binary_apply, NULL}},
static ct_node_type binary_types[CT_BINARY_COUNT][2] = {CT_FORALL_BINARY_OPS(X)};
#undef X

static const ct_node_type *
binary_type(ct_binary_op op, bool scalar_b)
{
    ct_node_type *t = &binary_types[op][scalar_b];
    if (t->name == NULL) {
        t->name = binary_names[op][scalar_b];       /* same value from any thread */
    }
    return t;
}

static bool
is_number(const ct_tensor *t)
{
    return (t->flags & CT_TENSOR_WRAPPED_NUMBER) != 0;
}

/* Slot use: saved[0] = a, saved[1] = b, saved[2] = result; s[0] = alpha. */
ct_tensor *
ctag_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
            ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(a, b);
    const ct_tensor *ins[2] = {a, b};
    bool rec = binary_names[op][0] != NULL && ct_any_requires_grad(2, ins);
    ct_tensor *orig;

    if (write_begin(rec, mode, out, ct_binary_names[op],
                    op != CT_BINARY_ADD && op != CT_BINARY_SUB, a, &orig) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_binary(op, a, b, alpha, out, mode);
    if (r == NULL) {
        ct_tensor_decref(orig);
        return NULL;
    }
    if (mode != CT_OUT_NEW) {
        ct_tensor_bump_version(r);
    }
    if (rec && floating(r->dtype)) {
        ct_node *n = write_record(binary_type(op, is_number(b)), 2, ins, r, mode);
        if (n == NULL) {
            goto fail;
        }
        ag_save_meta(n, 0, orig != NULL ? orig : a);
        ag_save_meta(n, 1, b);
        n->s[0] = alpha;
        const ct_tensor *self = orig != NULL ? orig : a;
        bool ok = true;
        switch (op) {
        case CT_BINARY_ADD:
        case CT_BINARY_SUB:
            break;
        case CT_BINARY_MUL:
            ok = ct_node_save(n, 0, ct_node_needs(n, 1) ? self : NULL, false) == 0 &&
                 ct_node_save(n, 1, ct_node_needs(n, 0) ? b : NULL, false) == 0;
            break;
        case CT_BINARY_DIV:
            ok = ct_node_save(n, 0, ct_node_needs(n, 1) ? self : NULL, false) == 0 &&
                 ct_node_save(n, 1, b, false) == 0;
            break;
        case CT_BINARY_POW:
            ok = ct_node_save(n, 0, ct_node_needs(n, 0) ? self : NULL, false) == 0 &&
                 ct_node_save(n, 1, b, false) == 0 &&
                 ct_node_save(n, 2, ct_node_needs(n, 1) ? r : NULL, true) == 0;
            break;
        default:
            ok = ct_node_save(n, 0, self, false) == 0 && ct_node_save(n, 1, b, false) == 0;
            break;
        }
        if (!ok) {
            goto fail;
        }
    }
    ct_tensor_decref(orig);
    return r;
fail:
    ct_tensor_decref(orig);
    ct_tensor_decref(r);
    return NULL;
}

/* where(a >= b) style masks as the grad's dtype (0 or 1). */
static ct_tensor *
mask_as(ag_frame *f, ct_binary_op cmp, const ct_tensor *a, const ct_tensor *b,
        const ct_tensor *like)
{
    ct_tensor *m = ag_tmp(f, ct_binary(cmp, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW));
    return m != NULL ? ag_tmp(f, ct_to_dtype(m, like->dtype, false)) : NULL;
}

static int
binary_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_binary_op op = (ct_binary_op)((n->type - &binary_types[0][0]) / 2);
    bool scalar_b = (n->type - &binary_types[0][0]) % 2 != 0;
    ct_tensor *g = gi[0];
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *a = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *b = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *res = ag_tmp(&f, ct_node_unpack(n, 2));
    ct_tensor *ga = NULL, *gb = NULL;
    bool need_a = ct_node_needs(n, 0), need_b = ct_node_needs(n, 1);

    if (ct_error_code() != CT_OK) {
        goto done;      /* freed by an earlier backward, or modified in place */
    }
    switch (op) {
    case CT_BINARY_ADD:
    case CT_BINARY_SUB: {
        if (need_a) {
            ct_tensor_incref(g);
            ga = g;
        }
        if (need_b) {
            double alpha = ct_scalar_to_double(n->s[0]);
            double k = op == CT_BINARY_SUB ? -alpha : alpha;
            if (k == 1) {
                ct_tensor_incref(g);
                gb = g;
            }
            else {
                gb = ag_mul_s(g, k);
            }
        }
        break;
    }
    case CT_BINARY_MUL:
        ga = need_a ? ctag_mul(g, b) : NULL;
        gb = need_b ? ctag_mul(g, a) : NULL;
        break;
    case CT_BINARY_DIV:
        ga = need_a ? ctag_div(g, b) : NULL;
        if (need_b) {
            /* -g * a / b^2 */
            ct_tensor *q = ag_tmp(&f, ctag_div(a, b));
            gb = ctag_neg(ag_tmp(&f, ctag_div(ag_tmp(&f, ctag_mul(g, q)), b)));
        }
        break;
    case CT_BINARY_POW:
        if (need_a) {
            /* g * b * a^(b-1), 0 where b == 0 */
            ct_tensor *bm1 = ag_tmp(&f, ag_add_s(b, -1));
            ct_tensor *p = ag_tmp(&f, ctag_binary(CT_BINARY_POW, a, bm1, ct_scalar_int(1),
                                                  NULL, CT_OUT_NEW));
            ct_tensor *t = ag_tmp(&f, ctag_mul(ag_tmp(&f, ctag_mul(g, b)), p));
            if (scalar_b && b != NULL && ct_scalar_to_double(ct_tensor_item_at(b, 0)) == 0) {
                ga = t != NULL ? ctag_mul(t, ag_tmp(&f, ag_scalar(0))) : NULL;
            }
            else {
                ga = t;
                if (ga != NULL) {
                    ct_tensor_incref(ga);
                }
            }
        }
        if (need_b) {
            /* g * a^b * log(a), 0 where a == 0 and b >= 0 */
            ct_tensor *l = ag_tmp(&f, ag_unary(CT_UNARY_LOG, a));
            ct_tensor *t = ag_tmp(&f, ctag_mul(ag_tmp(&f, ctag_mul(g, res)), l));
            ct_tensor *z = ag_tmp(&f, ag_scalar(0));
            ct_tensor *cond = NULL;
            if (t != NULL && z != NULL) {
                ct_tensor *c1 = ag_tmp(&f, ct_binary(CT_BINARY_EQ, a, z, ct_scalar_int(1),
                                                     NULL, CT_OUT_NEW));
                ct_tensor *c2 = ag_tmp(&f, ct_binary(CT_BINARY_GE, b, z, ct_scalar_int(1),
                                                     NULL, CT_OUT_NEW));
                cond = c1 && c2 ? ag_tmp(&f, ct_binary(CT_BINARY_LOGICAL_AND, c1, c2,
                                                       ct_scalar_int(1), NULL, CT_OUT_NEW))
                                : NULL;
            }
            ct_tensor *zl = t != NULL ? ag_tmp(&f, ct_zeros(0, NULL, t->dtype)) : NULL;
            gb = cond != NULL && zl != NULL ? ctag_where(cond, zl, t) : NULL;
        }
        break;
    case CT_BINARY_ATAN2: {
        /* d/da = b / (a^2 + b^2), d/db = -a / (a^2 + b^2) */
        ct_tensor *den = ag_tmp(&f, ctag_add(ag_tmp(&f, ctag_mul(a, a)),
                                             ag_tmp(&f, ctag_mul(b, b)), ct_scalar_int(1)));
        ct_tensor *gd = ag_tmp(&f, ctag_div(g, den));
        ga = need_a ? ctag_mul(gd, b) : NULL;
        gb = need_b ? ctag_neg(ag_tmp(&f, ctag_mul(gd, a))) : NULL;
        break;
    }
    case CT_BINARY_REMAINDER:
    case CT_BINARY_FMOD:
        if (need_a) {
            ct_tensor_incref(g);
            ga = g;
        }
        if (need_b) {
            /* -g * floor(a / b) (trunc for fmod) */
            ct_tensor *q = ag_tmp(&f, ct_binary(op == CT_BINARY_FMOD ? CT_BINARY_DIV_TRUNC
                                                                     : CT_BINARY_FLOOR_DIVIDE,
                                                a, b, ct_scalar_int(1), NULL, CT_OUT_NEW));
            gb = ctag_neg(ag_tmp(&f, ctag_mul(g, q)));
        }
        break;
    case CT_BINARY_MAXIMUM:
    case CT_BINARY_MINIMUM:
    case CT_BINARY_FMAX:
    case CT_BINARY_FMIN: {
        /* the winner gets g, a tie splits it */
        bool max = op == CT_BINARY_MAXIMUM || op == CT_BINARY_FMAX;
        ct_binary_op win = max ? CT_BINARY_GT : CT_BINARY_LT;
        ct_tensor *half = mask_as(&f, CT_BINARY_EQ, a, b, g);
        ct_tensor *h = half != NULL ? ag_tmp(&f, ag_mul_s(half, 0.5)) : NULL;
        if (need_a) {
            ct_tensor *w = mask_as(&f, win, a, b, g);
            ct_tensor *m = w != NULL && h != NULL
                               ? ag_tmp(&f, ct_add(w, h, ct_scalar_int(1))) : NULL;
            ga = ctag_mul(g, m);
        }
        if (need_b) {
            ct_tensor *w = mask_as(&f, win, b, a, g);
            ct_tensor *m = w != NULL && h != NULL
                               ? ag_tmp(&f, ct_add(w, h, ct_scalar_int(1))) : NULL;
            gb = ctag_mul(g, m);
        }
        break;
    }
    default:
        ct_error(CT_ERR_RUNTIME, "derivative for %s is not implemented",
                 ct_binary_names[op]);
        goto done;
    }
    if ((need_a && ga == NULL) || (need_b && gb == NULL)) {
        ct_tensor_decref(ga);
        ct_tensor_decref(gb);
        goto done;
    }
    go[0] = need_a ? ag_to_input(n, 0, ga) : NULL;
    go[1] = need_b ? ag_to_input(n, 1, gb) : NULL;
    ag_end(&f);
    return (need_a && go[0] == NULL) || (need_b && go[1] == NULL) ? -1 : 0;
done:
    ag_end(&f);
    return -1;
}

ct_tensor *
ctag_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    return ctag_binary(CT_BINARY_ADD, a, b, alpha, NULL, CT_OUT_NEW);
}

ct_tensor *
ctag_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha)
{
    return ctag_binary(CT_BINARY_SUB, a, b, alpha, NULL, CT_OUT_NEW);
}

ct_tensor *
ctag_mul(const ct_tensor *a, const ct_tensor *b)
{
    return ctag_binary(CT_BINARY_MUL, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW);
}

ct_tensor *
ctag_div(const ct_tensor *a, const ct_tensor *b)
{
    return ctag_binary(CT_BINARY_DIV, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW);
}

ct_tensor *
ctag_mul_scalar(const ct_tensor *a, double s)
{
    return ag_mul_s(a, s);
}

ct_tensor *
ctag_pow_scalar(const ct_tensor *a, double e)
{
    if (a == NULL) {
        return NULL;
    }
    ct_tensor *k = ag_scalar(e);
    ct_tensor *r = k != NULL ? ctag_binary(CT_BINARY_POW, a, k, ct_scalar_int(1), NULL,
                                           CT_OUT_NEW) : NULL;
    ct_tensor_decref(k);
    return r;
}

/* --- unary ops ----------------------------------------------------------- */

enum { U_SELF = 1, U_RESULT = 2, U_ZERO = 4 };

typedef struct {
    const char *name;
    int needs;
} unary_info;

static const unary_info unary_infos[CT_UNARY_COUNT] = {
    [CT_UNARY_ABS] = {"AbsBackward0", U_SELF},
    [CT_UNARY_NEG] = {"NegBackward0", 0},
    [CT_UNARY_SIGN] = {"SignBackward0", U_ZERO},
    [CT_UNARY_SQRT] = {"SqrtBackward0", U_RESULT},
    [CT_UNARY_RSQRT] = {"RsqrtBackward0", U_RESULT},
    [CT_UNARY_EXP] = {"ExpBackward0", U_RESULT},
    [CT_UNARY_EXP2] = {"Exp2Backward0", U_RESULT},
    [CT_UNARY_EXPM1] = {"Expm1Backward0", U_RESULT},
    [CT_UNARY_LOG] = {"LogBackward0", U_SELF},
    [CT_UNARY_LOG2] = {"Log2Backward0", U_SELF},
    [CT_UNARY_LOG10] = {"Log10Backward0", U_SELF},
    [CT_UNARY_LOG1P] = {"Log1PBackward0", U_SELF},
    [CT_UNARY_SIN] = {"SinBackward0", U_SELF},
    [CT_UNARY_COS] = {"CosBackward0", U_SELF},
    [CT_UNARY_TAN] = {"TanBackward0", U_RESULT},
    [CT_UNARY_ASIN] = {"AsinBackward0", U_SELF},
    [CT_UNARY_ACOS] = {"AcosBackward0", U_SELF},
    [CT_UNARY_ATAN] = {"AtanBackward0", U_SELF},
    [CT_UNARY_SINH] = {"SinhBackward0", U_SELF},
    [CT_UNARY_COSH] = {"CoshBackward0", U_SELF},
    [CT_UNARY_TANH] = {"TanhBackward0", U_RESULT},
    [CT_UNARY_SIGMOID] = {"SigmoidBackward0", U_RESULT},
    [CT_UNARY_ERF] = {"ErfBackward0", U_SELF},
    [CT_UNARY_ERFC] = {"ErfcBackward0", U_SELF},
    [CT_UNARY_ERFINV] = {"ErfinvBackward0", U_RESULT},
    [CT_UNARY_RECIPROCAL] = {"ReciprocalBackward0", U_RESULT},
    [CT_UNARY_FLOOR] = {"FloorBackward0", U_ZERO},
    [CT_UNARY_CEIL] = {"CeilBackward0", U_ZERO},
    [CT_UNARY_ROUND] = {"RoundBackward0", U_ZERO},
    [CT_UNARY_TRUNC] = {"TruncBackward0", U_ZERO},
    [CT_UNARY_FRAC] = {"FracBackward0", 0},
    [CT_UNARY_SQUARE] = {"PowBackward0", U_SELF},
    [CT_UNARY_RELU] = {"ReluBackward0", U_RESULT},
    [CT_UNARY_SILU] = {"SiluBackward0", U_SELF},
    [CT_UNARY_GELU] = {"GeluBackward0", U_SELF},
};

static int unary_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

#define X(E, N, K) {NULL, unary_apply, NULL},
static ct_node_type unary_types[CT_UNARY_COUNT] = {CT_FORALL_UNARY_OPS(X)};
#undef X

ct_tensor *
ctag_unary(ct_unary_op op, const ct_tensor *t, ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(t);
    const unary_info *info = &unary_infos[op];
    bool rec = info->name != NULL && ct_any_requires_grad(1, &t);
    ct_tensor *orig;

    if (write_begin(rec, mode, out, ct_unary_names[op], (info->needs & U_SELF) != 0, t,
                    &orig) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_unary(op, t, out, mode);
    if (r == NULL) {
        ct_tensor_decref(orig);
        return NULL;
    }
    if (mode != CT_OUT_NEW) {
        ct_tensor_bump_version(r);
    }
    if (rec && floating(r->dtype)) {
        ct_node_type *type = &unary_types[op];
        type->name = info->name;
        ct_node *n = write_record(type, 1, &t, r, mode);
        if (n == NULL ||
            ((info->needs & U_SELF) &&
             ct_node_save(n, 0, orig != NULL ? orig : t, false) < 0) ||
            ((info->needs & U_RESULT) && ct_node_save(n, 1, r, true) < 0)) {
            ct_tensor_decref(orig);
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, orig != NULL ? orig : t);
    }
    ct_tensor_decref(orig);
    return r;
}

ct_tensor *
ctag_neg(const ct_tensor *t)
{
    return ctag_unary(CT_UNARY_NEG, t, NULL, CT_OUT_NEW);
}

/* d/da of each op as a factor to multiply g with (a = input, y = result). */
static ct_tensor *
unary_factor(ag_frame *f, ct_unary_op op, ct_tensor *a, ct_tensor *y)
{
#define T(e) ag_tmp(f, (e))
    switch (op) {
    case CT_UNARY_ABS: return T(ag_unary(CT_UNARY_SIGN, a));  /* recorded: a graph for create_graph */
    case CT_UNARY_SQRT: return T(ctag_div(T(ag_scalar(0.5)), y));
    case CT_UNARY_RSQRT: return T(ag_mul_s(T(ctag_pow_scalar(y, 3)), -0.5));
    case CT_UNARY_EXP: return y;
    case CT_UNARY_EXP2: return T(ag_mul_s(y, M_LN2));
    case CT_UNARY_EXPM1: return T(ag_add_s(y, 1));
    case CT_UNARY_LOG: return T(ag_unary(CT_UNARY_RECIPROCAL, a));
    case CT_UNARY_LOG2: return T(ag_unary(CT_UNARY_RECIPROCAL, T(ag_mul_s(a, M_LN2))));
    case CT_UNARY_LOG10: return T(ag_unary(CT_UNARY_RECIPROCAL, T(ag_mul_s(a, M_LN10))));
    case CT_UNARY_LOG1P: return T(ag_unary(CT_UNARY_RECIPROCAL, T(ag_add_s(a, 1))));
    case CT_UNARY_SIN: return T(ag_unary(CT_UNARY_COS, a));
    case CT_UNARY_COS: return T(ctag_neg(T(ag_unary(CT_UNARY_SIN, a))));
    case CT_UNARY_TAN: return T(ag_add_s(T(ctag_mul(y, y)), 1));
    case CT_UNARY_ASIN:
    case CT_UNARY_ACOS: {
        /* +-1 / sqrt(1 - a^2) */
        ct_tensor *s = T(ag_unary(CT_UNARY_RSQRT, T(ag_add_s(T(ctag_neg(T(ctag_mul(a, a)))),
                                                               1))));
        return op == CT_UNARY_ASIN ? s : T(ctag_neg(s));
    }
    case CT_UNARY_ATAN: return T(ag_unary(CT_UNARY_RECIPROCAL, T(ag_add_s(T(ctag_mul(a, a)), 1))));
    case CT_UNARY_SINH: return T(ag_unary(CT_UNARY_COSH, a));
    case CT_UNARY_COSH: return T(ag_unary(CT_UNARY_SINH, a));
    case CT_UNARY_TANH: return T(ag_add_s(T(ctag_neg(T(ctag_mul(y, y)))), 1));
    case CT_UNARY_SIGMOID: return T(ctag_mul(y, T(ag_add_s(T(ctag_neg(y)), 1))));
    case CT_UNARY_ERF:
    case CT_UNARY_ERFC: {
        /* +-2/sqrt(pi) exp(-a^2) */
        double k = (op == CT_UNARY_ERF ? 2 : -2) / sqrt(M_PI);
        return T(ag_mul_s(T(ag_unary(CT_UNARY_EXP, T(ctag_neg(T(ctag_mul(a, a)))))), k));
    }
    case CT_UNARY_ERFINV:
        return T(ag_mul_s(T(ag_unary(CT_UNARY_EXP, T(ctag_mul(y, y)))), sqrt(M_PI) / 2));
    case CT_UNARY_RECIPROCAL: return T(ctag_neg(T(ctag_mul(y, y))));
    case CT_UNARY_SQUARE: return T(ag_mul_s(a, 2));
    case CT_UNARY_RELU: {
        ct_tensor *z = T(ag_scalar(0));
        ct_tensor *m = z ? T(ct_binary(CT_BINARY_GT, y, z, ct_scalar_int(1), NULL,
                                       CT_OUT_NEW)) : NULL;
        return m ? T(ct_to_dtype(m, y->dtype, false)) : NULL;
    }
    case CT_UNARY_SILU: {
        /* s (1 + a (1 - s)), s = sigmoid(a) */
        ct_tensor *s = T(ag_unary(CT_UNARY_SIGMOID, a));
        ct_tensor *t = T(ctag_mul(a, T(ag_add_s(T(ctag_neg(s)), 1))));
        return T(ctag_mul(s, T(ag_add_s(t, 1))));
    }
    case CT_UNARY_GELU: {
        /* Phi(a) + a phi(a) */
        ct_tensor *cdf = T(ag_mul_s(T(ag_add_s(T(ag_unary(CT_UNARY_ERF,
                                                           T(ag_mul_s(a, M_SQRT1_2)))), 1)),
                                    0.5));
        ct_tensor *pdf = T(ag_mul_s(T(ag_unary(CT_UNARY_EXP,
                                               T(ag_mul_s(T(ctag_mul(a, a)), -0.5)))),
                                    1 / sqrt(2 * M_PI)));
        return T(ctag_add(cdf, T(ctag_mul(a, pdf)), ct_scalar_int(1)));
    }
    default:
        return NULL;
    }
#undef T
}

static int
unary_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_unary_op op = (ct_unary_op)(n->type - unary_types);
    const unary_info *info = &unary_infos[op];
    ag_frame f = {0};
    ct_tensor *g = gi[0], *a = NULL, *y = NULL;

    if ((info->needs & U_SELF) && (a = ag_tmp(&f, ct_node_unpack(n, 0))) == NULL) {
        goto fail;
    }
    if ((info->needs & U_RESULT) && (y = ag_tmp(&f, ct_node_unpack(n, 1))) == NULL) {
        goto fail;
    }
    if (info->needs & U_ZERO) {
        go[0] = ag_zeros_input(n, 0);
    }
    else if (op == CT_UNARY_NEG) {
        go[0] = ctag_neg(g);
    }
    else if (op == CT_UNARY_FRAC) {
        ct_tensor_incref(g);
        go[0] = g;
    }
    else {
        ct_tensor *k = unary_factor(&f, op, a, y);
        go[0] = k != NULL ? ctag_mul(g, k) : NULL;
    }
    if (go[0] != NULL && go[0]->dtype != n->dtype[0]) {
        ct_tensor *c = ctag_to_dtype(go[0], n->dtype[0], false);
        ct_tensor_decref(go[0]);
        go[0] = c;
    }
    ag_end(&f);
    return go[0] != NULL ? 0 : -1;
fail:
    ag_end(&f);
    return -1;
}

/* --- copies and conversions ---------------------------------------------- */

static int
to_copy_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    go[0] = ctag_to_dtype(gi[0], n->dtype[0], false);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type to_copy_type = {"ToCopyBackward0", to_copy_apply, NULL};

ct_tensor *
ctag_to_dtype(const ct_tensor *t, ct_dtype dtype, bool copy)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_to_dtype(t, dtype, copy);
    if (r != NULL && r != t && floating(dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&to_copy_type, 1, &t, 1, &r);
        if (n == NULL) {
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, t);
    }
    return r;
}

/* a move between devices: the gradient goes back to the input's device
 * (ints: its device type and index) */
static int
to_device_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_device d = {(ct_device_type)n->ints[0], (int)n->ints[1]};
    go[0] = ct_to_device(gi[0], d);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type to_device_type = {"ToCopyBackward0", to_device_apply, NULL};

ct_tensor *
ctag_to_device(const ct_tensor *t, ct_device device)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_to_device(t, device);
    if (r != NULL && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&to_device_type, 1, &t, 1, &r);
        if (n == NULL) {
            ct_tensor_decref(r);
            return NULL;
        }
        n->ints[0] = ct_tensor_device(t).type;
        n->ints[1] = ct_tensor_device(t).index;
    }
    return r;
}

static int
identity_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    (void)n;
    ct_tensor_incref(gi[0]);
    go[0] = gi[0];
    return 0;
}

static const ct_node_type clone_type = {"CloneBackward0", identity_apply, NULL};

ct_tensor *
ctag_clone(const ct_tensor *t)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_clone(t);
    if (r != NULL && ct_any_requires_grad(1, &t) && ct_record(&clone_type, 1, &t, 1, &r) == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ctag_contiguous(const ct_tensor *t)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_contiguous(t);
    if (r != NULL && r != t && ct_any_requires_grad(1, &t) &&
        ct_record(&clone_type, 1, &t, 1, &r) == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* copy_(dst, src): dst's old value gets no gradient, src gets g. */
static int
copy_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    if (ct_node_needs(n, 0) && (go[0] = ag_zeros_input(n, 0)) == NULL) {
        return -1;
    }
    if (ct_node_needs(n, 1)) {
        ct_tensor_incref(gi[0]);
        if ((go[1] = ag_to_input(n, 1, gi[0])) == NULL) {
            return -1;
        }
    }
    return 0;
}

static const ct_node_type copy_type = {"CopyBackwards", copy_apply, NULL};

int
ctag_copy_(ct_tensor *dst, const ct_tensor *src)
{
    const ct_tensor *ins[2] = {dst, src};
    if (ag_inplace_begin(dst) < 0 || ct_copy_(dst, src) < 0) {
        return -1;
    }
    ct_tensor_bump_version(dst);
    if (ct_any_requires_grad(2, ins) && floating(dst->dtype)) {
        ct_node *n = ct_record_inplace(&copy_type, 2, ins, dst);
        if (n == NULL) {
            return -1;
        }
        ag_save_meta(n, 0, dst);
        ag_save_meta(n, 1, src);
    }
    return 0;
}

static int
zero_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    (void)gi;
    go[0] = ag_zeros_input(n, 0);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type fill_type = {"FillBackward0", zero_apply, NULL};

int
ctag_fill_(ct_tensor *t, ct_scalar value)
{
    if (ag_inplace_begin(t) < 0 || ct_fill_(t, value) < 0) {
        return -1;
    }
    ct_tensor_bump_version(t);
    const ct_tensor *in = t;
    if (ct_any_requires_grad(1, &in)) {
        ct_node *n = ct_record_inplace(&fill_type, 1, &in, t);
        if (n == NULL) {
            return -1;
        }
        ag_save_meta(n, 0, t);
    }
    return 0;
}

/* masked_fill_: g with the filled positions zeroed; saved[0] = mask. */
static int
masked_fill_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *mask = ct_node_unpack(n, 0);
    if (mask == NULL) {
        return -1;
    }
    ct_tensor *z = ct_zeros(0, NULL, gi[0]->dtype);
    go[0] = z != NULL ? ctag_where(mask, z, gi[0]) : NULL;
    ct_tensor_decref(z);
    ct_tensor_decref(mask);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type masked_fill_type = {"MaskedFillBackward0", masked_fill_apply, NULL};

int
ctag_masked_fill_(ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    if (ag_inplace_begin(t) < 0 || ct_masked_fill_(t, mask, value) < 0) {
        return -1;
    }
    ct_tensor_bump_version(t);
    const ct_tensor *in = t;
    if (ct_any_requires_grad(1, &in)) {
        ct_node *n = ct_record_inplace(&masked_fill_type, 1, &in, t);
        if (n == NULL || ct_node_save(n, 0, mask, false) < 0) {
            return -1;
        }
        ag_save_meta(n, 0, t);
    }
    return 0;
}

/* where(cond, a, b): saved[0] = cond. */
static int
where_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *cond = ct_node_unpack(n, 0);
    ct_tensor *z = cond != NULL ? ct_zeros(0, NULL, gi[0]->dtype) : NULL;
    if (z == NULL) {
        ct_tensor_decref(cond);
        return -1;
    }
    int rc = 0;
    if (ct_node_needs(n, 0)) {
        go[0] = ag_to_input(n, 0, ctag_where(cond, gi[0], z));
        rc |= go[0] == NULL ? -1 : 0;
    }
    if (ct_node_needs(n, 1) && rc == 0) {
        go[1] = ag_to_input(n, 1, ctag_where(cond, z, gi[0]));
        rc |= go[1] == NULL ? -1 : 0;
    }
    ct_tensor_decref(z);
    ct_tensor_decref(cond);
    return rc;
}

static const ct_node_type where_type = {"WhereBackward0", where_apply, NULL};

ct_tensor *
ctag_where(const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b)
{
    AG_NULL_IF_ANY(cond, a, b);
    const ct_tensor *ins[2] = {a, b};
    ct_tensor *r = ct_where(cond, a, b);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(2, ins)) {
        ct_node *n = ct_record(&where_type, 2, ins, 1, &r);
        if (n == NULL || ct_node_save(n, 0, cond, false) < 0) {
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, a);
        ag_save_meta(n, 1, b);
    }
    return r;
}

/* clamp: g where min <= a <= max (ClampBackward1 for number bounds,
 * ClampBackward0 for tensor bounds, whose gradients flow to the bound that
 * won).  saved[0] = a, [1] = min, [2] = max. */
static int clamp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type clamp_types[2] = {{"ClampBackward0", clamp_apply, NULL},
                                            {"ClampBackward1", clamp_apply, NULL}};

static int
clamp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *a = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *lo = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *hi = ag_tmp(&f, ct_node_unpack(n, 2));
    ct_tensor *g = gi[0];
    ct_tensor *z = ag_tmp(&f, ct_zeros(0, NULL, g->dtype));
    ct_tensor *pass = NULL;
    int rc = -1;

    if (a == NULL || z == NULL || ct_error_code() != CT_OK) {
        goto done;
    }
    /* the input's own gradient: where it was not clipped */
    ct_tensor *ok_lo = lo != NULL ? ag_tmp(&f, ct_binary(CT_BINARY_GE, a, lo,
                                                         ct_scalar_int(1), NULL, CT_OUT_NEW))
                                  : NULL;
    ct_tensor *ok_hi = hi != NULL ? ag_tmp(&f, ct_binary(CT_BINARY_LE, a, hi,
                                                         ct_scalar_int(1), NULL, CT_OUT_NEW))
                                  : NULL;
    if (ok_lo != NULL && ok_hi != NULL) {
        pass = ag_tmp(&f, ct_binary(CT_BINARY_LOGICAL_AND, ok_lo, ok_hi, ct_scalar_int(1),
                                    NULL, CT_OUT_NEW));
    }
    else {
        pass = ok_lo != NULL ? ok_lo : ok_hi;
    }
    if (pass == NULL) {
        goto done;
    }
    if (ct_node_needs(n, 0) && (go[0] = ag_to_input(n, 0, ctag_where(pass, g, z))) == NULL) {
        goto done;
    }
    if (n->n_edges > 1 && ct_node_needs(n, 1)) {
        ct_tensor *below = ag_tmp(&f, ct_binary(CT_BINARY_LT, a, lo, ct_scalar_int(1), NULL,
                                                CT_OUT_NEW));
        if (below == NULL || (go[1] = ctag_sum_to(ag_tmp(&f, ctag_where(below, g, z)),
                                                  lo->ndim, lo->sizes)) == NULL) {
            goto done;
        }
    }
    if (n->n_edges > 2 && ct_node_needs(n, 2)) {
        ct_tensor *above = ag_tmp(&f, ct_binary(CT_BINARY_GT, a, hi, ct_scalar_int(1), NULL,
                                                CT_OUT_NEW));
        if (above == NULL || (go[2] = ctag_sum_to(ag_tmp(&f, ctag_where(above, g, z)),
                                                  hi->ndim, hi->sizes)) == NULL) {
            goto done;
        }
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

ct_tensor *
ctag_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max,
           ct_tensor *out, ct_out_mode mode)
{
    AG_NULL_IF_ANY(t);
    const ct_tensor *ins[3] = {t, min, max};
    bool numbers = (min == NULL || is_number(min)) && (max == NULL || is_number(max));
    bool rec = ct_any_requires_grad(3, ins);
    ct_tensor *orig;

    if (write_begin(rec, mode, out, "clamp", true, t, &orig) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_clamp(t, min, max, out, mode);
    if (r == NULL) {
        ct_tensor_decref(orig);
        return NULL;
    }
    if (mode != CT_OUT_NEW) {
        ct_tensor_bump_version(r);
    }
    if (rec && floating(r->dtype)) {
        ct_node *n = write_record(&clamp_types[numbers], numbers ? 1 : 3, ins, r, mode);
        if (n == NULL || ct_node_save(n, 0, orig != NULL ? orig : t, false) < 0 ||
            ct_node_save(n, 1, min, false) < 0 || ct_node_save(n, 2, max, false) < 0) {
            ct_tensor_decref(orig);
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, t);
    }
    ct_tensor_decref(orig);
    return r;
}

/* --- round(decimals), nan_to_num, lerp --------------------------------- */

static const ct_node_type round1_type = {"RoundBackward1", zero_apply, NULL};

ct_tensor *
ctag_round_decimals(const ct_tensor *t, int64_t decimals)
{
    AG_NULL_IF_ANY(t);
    if (decimals == 0) {
        return ctag_unary(CT_UNARY_ROUND, t, NULL, CT_OUT_NEW);
    }
    ct_tensor *r = ct_round_decimals(t, decimals);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&round1_type, 1, &t, 1, &r);
        if (n == NULL) {
            ct_tensor_decref(r);
            return NULL;
        }
        ag_save_meta(n, 0, t);
    }
    return r;
}

/* nan_to_num: g where the input was finite; saved[0] = input. */
static int
nan_to_num_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *a = ct_node_unpack(n, 0);
    ct_tensor *fin = a != NULL ? ct_unary(CT_UNARY_ISFINITE, a, NULL, CT_OUT_NEW) : NULL;
    ct_tensor *z = fin != NULL ? ct_zeros(0, NULL, gi[0]->dtype) : NULL;
    go[0] = z != NULL ? ctag_where(fin, gi[0], z) : NULL;
    ct_tensor_decref(z);
    ct_tensor_decref(fin);
    ct_tensor_decref(a);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type nan_to_num_type = {"NanToNumBackward0", nan_to_num_apply, NULL};

ct_tensor *
ctag_nan_to_num(const ct_tensor *t, const double *nan, const double *posinf,
                const double *neginf)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_nan_to_num(t, nan, posinf, neginf);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = ct_record(&nan_to_num_type, 1, &t, 1, &r);
        if (n == NULL || ct_node_save(n, 0, t, false) < 0) {
            ct_tensor_decref(r);
            return NULL;
        }
    }
    return r;
}

/* lerp(start, end, weight) = start + weight (end - start); saved: start,
 * end, weight.  LerpBackward0 for a number weight, 1 for a tensor. */
static int lerp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type lerp_types[2] = {{"LerpBackward1", lerp_apply, NULL},
                                           {"LerpBackward0", lerp_apply, NULL}};

static int
lerp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_error_clear();
    ct_tensor *s = ag_tmp(&f, ct_node_unpack(n, 0));
    ct_tensor *e = ag_tmp(&f, ct_node_unpack(n, 1));
    ct_tensor *w = ag_tmp(&f, ct_node_unpack(n, 2));
    ct_tensor *g = gi[0];
    int rc = -1;
    if (ct_error_code() != CT_OK) {
        goto done;
    }
    if (ct_node_needs(n, 0) &&
        (go[0] = ctag_sum_to(ag_tmp(&f, ctag_sub(g, ag_tmp(&f, ctag_mul(g, w)),
                                                 ct_scalar_int(1))), s->ndim, s->sizes)) == NULL) {
        goto done;
    }
    if (ct_node_needs(n, 1) &&
        (go[1] = ctag_sum_to(ag_tmp(&f, ctag_mul(g, w)), e->ndim, e->sizes)) == NULL) {
        goto done;
    }
    if (n->n_edges > 2 && ct_node_needs(n, 2) &&
        (go[2] = ctag_sum_to(ag_tmp(&f, ctag_mul(g, ag_tmp(&f, ctag_sub(e, s, ct_scalar_int(1))))),
                             w->ndim, w->sizes)) == NULL) {
        goto done;
    }
    rc = 0;
done:
    ag_end(&f);
    return rc;
}

ct_tensor *
ctag_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    AG_NULL_IF_ANY(start, end, weight);
    const ct_tensor *ins[3] = {start, end, weight};
    bool number = is_number(weight);
    ct_tensor *r = ct_lerp(start, end, weight);
    if (r != NULL && floating(r->dtype) && ct_any_requires_grad(number ? 2 : 3, ins)) {
        ct_node *n = ct_record(&lerp_types[number], number ? 2 : 3, ins, 1, &r);
        if (n == NULL || ct_node_save(n, 0, start, false) < 0 ||
            ct_node_save(n, 1, end, false) < 0 || ct_node_save(n, 2, weight, false) < 0) {
            ct_tensor_decref(r);
            return NULL;
        }
    }
    return r;
}
