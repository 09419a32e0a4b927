/* aten/cpu/select.c -- ops that pick between values: where, masked_fill_,
 * clamp, nan_to_num, lerp, round(decimals).
 *
 * where and masked_fill move whole elements, so their loops depend only on
 * the element size (1, 2, 4 or 8 bytes), not on the dtype. */
#include "aten/device.h"
#include <math.h>
#include <string.h>

#include "aten/cpu/loops.h"

#define FMA(x, y, z) _Generic((x), float: fmaf, default: fma)((x), (y), (z))

#define WHERE_LOOP(W, U)                                                      \
    static int where_##W(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        (void)ctx;                                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            bool c = *(const bool *)(data[1] + i * st[1]);                    \
            *(U *)(data[0] + i * st[0]) = c ? *(const U *)(data[2] + i * st[2]) \
                                            : *(const U *)(data[3] + i * st[3]); \
        }                                                                     \
        return 0;                                                             \
    }                                                                         \
    static int masked_fill_##W(char **data, const int64_t *st, int64_t n,     \
                               void *ctx)                                     \
    {                                                                         \
        U v;                                                                  \
        memcpy(&v, ctx, sizeof v);                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            if (*(const uint8_t *)(data[1] + i * st[1])) {                    \
                *(U *)(data[0] + i * st[0]) = v;                              \
            }                                                                 \
        }                                                                     \
        return 0;                                                             \
    }
WHERE_LOOP(1, uint8_t)
WHERE_LOOP(2, uint16_t)
WHERE_LOOP(4, uint32_t)
WHERE_LOOP(8, uint64_t)

static const ct_loop where_loops[9] = {[1] = where_1, [2] = where_2, [4] = where_4,
                                       [8] = where_8};
static const ct_loop masked_fill_loops[9] = {[1] = masked_fill_1, [2] = masked_fill_2,
                                             [4] = masked_fill_4, [8] = masked_fill_8};

/* t in dtype dt on dev: a 0-dim CPU operand beside device ones is moved
 * there (ct__op_device lets it stand as a number).  A new reference. */
static ct_tensor *
on_dev(const ct_tensor *t, ct_dtype dt, ct_device dev)
{
    if (ct_device_eq(ct_tensor_device(t), dev)) {
        return ct_to_dtype(t, dt, false);
    }
    ct_tensor *m = ct_to_device(t, dev);
    ct_tensor *r = m != NULL ? ct_to_dtype(m, dt, false) : NULL;
    ct_tensor_decref(m);
    return r;
}

ct_tensor *
ct_where(const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b)
{
    ct_dtype common;
    int n1, n2;
    int64_t s1[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    ct_tensor *ac = NULL, *bc = NULL, *cc = NULL, *r = NULL;
    ct_device dev;

    if (ct__op_device(3, 0, (const ct_tensor *const[]){cond, a, b}, &dev) < 0) {
        return NULL;
    }

    if (cond->dtype != CT_DTYPE_BOOL && cond->dtype != CT_DTYPE_UINT8) {
        ct_error(CT_ERR_RUNTIME, "where expected condition to be a boolean tensor, but "
                 "got a tensor with dtype %s", ct_dtype_table[cond->dtype].legacy);
        return NULL;
    }
    if (ct_result_type(a, b, &common) < 0 ||
        ct_broadcast_shapes(cond->ndim, cond->sizes, a->ndim, a->sizes, &n1, s1) < 0 ||
        ct_broadcast_shapes(n1, s1, b->ndim, b->sizes, &n2, shape) < 0) {
        return NULL;
    }
    ac = on_dev(a, common, dev);
    bc = ac ? on_dev(b, common, dev) : NULL;
    cc = bc ? on_dev(cond, cond->dtype, dev) : NULL;
    if (cc != NULL) {
        const ct_tensor *ins[3] = {cc, ac, bc};
        r = ct_iter_new_output(3, ins, n2, shape, common);
    }
    if (r != NULL) {
        ct_tensor *ops[4] = {r, cc, ac, bc};
        if (dev.type != CT_DEVICE_CPU
                ? ct__device_where(r, cc, ac, bc) < 0
                : ct_iter_run(4, ops, where_loops[ct_dtype_itemsize(common)], NULL) < 0) {
            ct_tensor_decref(r);
            r = NULL;
        }
    }
    ct_tensor_decref(ac);
    ct_tensor_decref(bc);
    ct_tensor_decref(cc);
    return r;
}

int
ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, ct_scalar value)
{
    uint64_t bytes = 0;
    ct_device dev;

    if (ct__op_device(2, 1, (const ct_tensor *const[]){t, mask}, &dev) < 0) {
        return -1;
    }

    if (mask->dtype != CT_DTYPE_BOOL && mask->dtype != CT_DTYPE_UINT8) {
        return ct_error(CT_ERR_RUNTIME, "masked_fill_ only supports boolean masks, but "
                        "got mask with dtype %s", ct_dtype_table[mask->dtype].legacy);
    }
    if (mask->dtype == CT_DTYPE_UINT8) {
        ct_warn("masked_fill_ received a mask with dtype torch.uint8, this behavior is "
                "now deprecated,please use a mask with dtype torch.bool instead.");
    }
    if (ct_iter_check_overlap(t, NULL) < 0) {
        return -1;
    }
    switch (t->dtype) {
#define X(E, T, S, A)                                                         \
    case E: {                                                                 \
        T v = CT_FROM_SCALAR(S, value);                                       \
        memcpy(&bytes, &v, sizeof v);                                         \
        break;                                                                \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        return ct_error(CT_ERR_RUNTIME, "masked_fill_ is not supported for quantized "
                        "tensors");
    }
    /* the mask broadcasts to t, never the other way */
    int nd;
    int64_t shape[CT_MAX_DIMS];
    if (ct_broadcast_shapes(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, shape) < 0 ||
        ct_iter_check_out(t, CT_OUT_INPLACE, nd, shape, 0, NULL) < 0) {
        return -1;
    }
    if (dev.type != CT_DEVICE_CPU) {
        /* t = where(mask, value, t), in place */
        ct_tensor *v = ct_scalar_tensor(value);
        ct_tensor *vd = v != NULL ? on_dev(v, t->dtype, dev) : NULL;
        ct_tensor *md = vd != NULL ? on_dev(mask, mask->dtype, dev) : NULL;
        int rc = md != NULL ? ct__device_where(t, md, vd, t) : -1;
        ct_tensor_decref(v);
        ct_tensor_decref(vd);
        ct_tensor_decref(md);
        return rc;
    }
    ct_tensor *ops[2] = {t, (ct_tensor *)mask};
    return ct_iter_run(2, ops, masked_fill_loops[ct_dtype_itemsize(t->dtype)], &bytes);
}

/* clamp is maximum with min, then minimum with max (NaN in t passes
 * through both); either bound may be absent.  Being ct_binary, it runs on
 * a device too. */
ct_tensor *
ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max,
         ct_tensor *out, ct_out_mode mode)
{
    if (min == NULL && max == NULL) {
        ct_error(CT_ERR_RUNTIME, "torch.clamp: At least one of 'min' or 'max' must not "
                 "be None");
        return NULL;
    }
    if (min == NULL) {
        return ct_binary(CT_BINARY_MINIMUM, t, max, ct_scalar_int(1), out, mode);
    }
    ct_tensor *lo = ct_binary(CT_BINARY_MAXIMUM, t, min, ct_scalar_int(1),
                              max == NULL ? out : NULL, max == NULL ? mode : CT_OUT_NEW);
    if (lo == NULL || max == NULL) {
        return lo;
    }
    ct_tensor *r = ct_binary(CT_BINARY_MINIMUM, lo, max, ct_scalar_int(1), out,
                             mode == CT_OUT_INPLACE ? CT_OUT_GIVEN : mode);
    ct_tensor_decref(lo);
    return r;
}

typedef struct {
    double nan, posinf, neginf;
} nan_to_num_ctx;

#define X(E, T, S, A)                                                         \
    static int nan_to_num_##S(char **data, const int64_t *st, int64_t n,      \
                              void *ctx)                                      \
    {                                                                         \
        const nan_to_num_ctx *c = ctx;                                        \
        for (int64_t i = 0; i < n; i++) {                                     \
            A a = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A v = isnan(a) ? (A)c->nan : isinf(a) ? (A)(a > 0 ? c->posinf : c->neginf) : a; \
            ct__store_##S((T *)(data[0] + i * st[0]), v);                     \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct_loop nan_to_num_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = nan_to_num_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* The largest finite value of a floating dtype. */
static double
dtype_max(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_FLOAT16:
        return 65504.0;
    case CT_DTYPE_BFLOAT16:
        return 3.3895313892515355e38;
    case CT_DTYPE_FLOAT32:
        return 3.4028234663852886e38;
    default:
        return 1.7976931348623157e308;
    }
}

ct_tensor *
ct_nan_to_num(const ct_tensor *t, const double *nan, const double *posinf,
              const double *neginf)
{
    if (!ct_dtype_is_floating(t->dtype)) {
        return ct_clone(t);
    }
    double top = dtype_max(t->dtype);
    nan_to_num_ctx c = {nan ? *nan : 0.0, posinf ? *posinf : top, neginf ? *neginf : -top};
    if (ct__is_device(t)) {
        return ct__device_nan_to_num(t, c.nan, c.posinf, c.neginf);
    }
    const ct_tensor *ins[1] = {t};
    ct_tensor *r = ct_iter_new_output(1, ins, t->ndim, t->sizes, t->dtype);
    ct_tensor *ops[2] = {r, (ct_tensor *)t};
    if (r != NULL && ct_iter_run(2, ops, nan_to_num_loops[t->dtype], &c) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* lerp: start + weight * (end - start), computed from the nearer end as
 * PyTorch does for accuracy, with the multiply-adds fused as its AVX2 build
 * compiles them. */
#define X(E, T, S, A)                                                         \
    static int lerp_##S(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        (void)ctx;                                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            A s = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A e = ct__load_##S((const T *)(data[2] + i * st[2]));             \
            A w = ct__load_##S((const T *)(data[3] + i * st[3]));             \
            A v = (w < (A)0.5 && w > (A)-0.5) ? FMA(w, e - s, s)              \
                                               : FMA(-(e - s), (A)1 - w, e);  \
            ct__store_##S((T *)(data[0] + i * st[0]), v);                     \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct_loop lerp_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = lerp_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

ct_tensor *
ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight)
{
    ct_device dev;
    if (ct__op_device(3, 0, (const ct_tensor *const[]){start, end, weight}, &dev) < 0) {
        return NULL;
    }
    int n1, n2;
    int64_t s1[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    ct_dtype d = start->dtype;

    if (lerp_loops[d] == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"lerp_kernel_%s\" not implemented for '%s'",
                 (weight->flags & CT_TENSOR_WRAPPED_NUMBER) ? "scalar" : "tensor",
                 ct_dtype_table[d].legacy);
        return NULL;
    }
    if (end->dtype != d) {
        ct_error(CT_ERR_RUNTIME, "expected dtype %s for `end` but got dtype %s",
                 ct_dtype_table[d].name, ct_dtype_table[end->dtype].name);
        return NULL;
    }
    if (ct_broadcast_shapes(start->ndim, start->sizes, end->ndim, end->sizes, &n1, s1) < 0 ||
        ct_broadcast_shapes(n1, s1, weight->ndim, weight->sizes, &n2, shape) < 0) {
        return NULL;
    }
    ct_tensor *w = ct_to_dtype(weight, d, false);
    if (w != NULL && dev.type != CT_DEVICE_CPU) {
        ct_tensor *r = ct__device_lerp(start, end, w);
        ct_tensor_decref(w);
        return r;
    }
    const ct_tensor *ins[3] = {start, end, w};
    ct_tensor *r = w ? ct_iter_new_output(3, ins, n2, shape, d) : NULL;
    if (r != NULL) {
        ct_tensor *ops[4] = {r, (ct_tensor *)start, (ct_tensor *)end, w};
        if (ct_iter_run(4, ops, lerp_loops[d], NULL) < 0) {
            ct_tensor_decref(r);
            r = NULL;
        }
    }
    ct_tensor_decref(w);
    return r;
}

/* round(decimals): scale by 10^|decimals|, round half to even, unscale */
typedef struct {
    double ten_pow;
    bool neg;
} round_ctx;

#define X(E, T, S, A)                                                         \
    static int round_dec_##S(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        const round_ctx *c = ctx;                                             \
        A p = (A)c->ten_pow;                                                  \
        for (int64_t i = 0; i < n; i++) {                                     \
            A a = ct__load_##S((const T *)(data[1] + i * st[1]));             \
            A v = c->neg ? (A)nearbyint(a / p) * p : (A)nearbyint(a * p) / p; \
            ct__store_##S((T *)(data[0] + i * st[0]), v);                     \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct_loop round_dec_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = round_dec_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* The same on a device, in kernels: the loop's steps in its compute type
 * (float for float16/bfloat16/float32, double for float64), so the
 * results are the CPU's bit for bit. */
static ct_tensor *
round_decimals_device(const ct_tensor *t, const round_ctx *c)
{
    ct_dtype acc = t->dtype == CT_DTYPE_FLOAT64 ? CT_DTYPE_FLOAT64 : CT_DTYPE_FLOAT32;
    ct_tensor *x = ct_to_dtype(t, acc, false);
    ct_tensor *p = ct_scalar_tensor(ct_scalar_float(c->ten_pow));
    ct_tensor *m = x && p ? ct_binary(c->neg ? CT_BINARY_DIV : CT_BINARY_MUL, x, p,
                                      ct_scalar_int(1), NULL, CT_OUT_NEW) : NULL;
    ct_tensor *r = m ? ct_unary(CT_UNARY_ROUND, m, NULL, CT_OUT_NEW) : NULL;
    ct_tensor *u = r ? ct_binary(c->neg ? CT_BINARY_MUL : CT_BINARY_DIV, r, p,
                                 ct_scalar_int(1), NULL, CT_OUT_NEW) : NULL;
    ct_tensor *out = u ? ct_to_dtype(u, t->dtype, false) : NULL;
    ct_tensor_decref(u);
    ct_tensor_decref(r);
    ct_tensor_decref(m);
    ct_tensor_decref(p);
    ct_tensor_decref(x);
    return out;
}

ct_tensor *
ct_round_decimals(const ct_tensor *t, int64_t decimals)
{
    if (decimals == 0 || !ct_dtype_is_floating(t->dtype)) {
        return ct_unary(CT_UNARY_ROUND, t, NULL, CT_OUT_NEW);
    }
    round_ctx c = {pow(10.0, (double)(decimals < 0 ? -decimals : decimals)), decimals < 0};
    if (ct__is_device(t)) {
        return round_decimals_device(t, &c);
    }
    const ct_tensor *ins[1] = {t};
    ct_tensor *r = ct_iter_new_output(1, ins, t->ndim, t->sizes, t->dtype);
    ct_tensor *ops[2] = {r, (ct_tensor *)t};
    if (r != NULL && ct_iter_run(2, ops, round_dec_loops[t->dtype], &c) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}
