/* csrc/autograd/functions_reduce.c -- reductions, scans, softmax and their
 * derivatives, after PyTorch 1.13's derivatives.yaml and FunctionsManual.
 *
 * Payload of a reduction node: ints[0..]: the input's sizes and dtype
 * (ag_save_meta); ints[CT_MAX_DIMS..]: the reduced dims as a 0/1 mask over
 * the input's dims; d[0]: keepdim; d[1]: how many elements each result
 * reduces; s[0]: norm's p or var's correction; saved[0]: the input,
 * saved[1]: the result, where the formula needs them.
 *
 * A scan node (cumsum, cumprod, cummax, softmax, ...) keeps its dim in
 * ints[CT_MAX_DIMS] instead; median, mode and friends along a dim are the
 * selections of functions_sort.c.
 */
#include "functions_select.h"

#include "aten/device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MASK(n) ((n)->ints + CT_MAX_DIMS)
#define DIM_SLOT CT_MAX_DIMS

static int sum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int prod_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int amax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int evenly_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int var_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int norm_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int logsumexp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

/* [op][0]: the plain form; [op][1]: the form with a dim (sum, mean, prod,
 * max, min) or with the mean as a second result (var, std). */
static const ct_node_type reduce_types[CT_REDUCE_COUNT][2] = {
    [CT_REDUCE_SUM] = {{"SumBackward0", sum_apply, NULL},
                       {"SumBackward1", sum_apply, NULL}},
    [CT_REDUCE_MEAN] = {{"MeanBackward0", sum_apply, NULL},
                        {"MeanBackward1", sum_apply, NULL}},
    [CT_REDUCE_PROD] = {{"ProdBackward0", prod_apply, NULL},
                        {"ProdBackward1", prod_apply, NULL}},
    [CT_REDUCE_AMAX] = {{"AmaxBackward0", amax_apply, NULL}},
    [CT_REDUCE_AMIN] = {{"AminBackward0", amax_apply, NULL}},
    [CT_REDUCE_MAX] = {{"MaxBackward1", evenly_apply, NULL},
                       {"MaxBackward0", ag_select_apply, NULL}},
    [CT_REDUCE_MIN] = {{"MinBackward1", evenly_apply, NULL},
                       {"MinBackward0", ag_select_apply, NULL}},
    [CT_REDUCE_VAR] = {{"VarBackward0", var_apply, NULL},
                       {"VarMeanBackward0", var_apply, NULL}},
    [CT_REDUCE_STD] = {{"StdBackward0", var_apply, NULL},
                       {"StdMeanBackward0", var_apply, NULL}},
    [CT_REDUCE_LOGSUMEXP] = {{"LogsumexpBackward0", logsumexp_apply, NULL}},
};

/* torch.linalg.vector_norm, torch.norm, torch.norm with dtype= */
static const ct_node_type norm_types[3] = {
    {"LinalgVectorNormBackward0", norm_apply, NULL},
    {"NormBackward1", norm_apply, NULL},
    {"NormBackward3", norm_apply, NULL}};

static ct_reduce_op
node_op(const ct_node *n)
{
    return (ct_reduce_op)((n->type - &reduce_types[0][0]) / 2);
}

/* --- shared pieces of the formulas ----------------------------------------- */

/* t with the reduced dims back as size 1 unless the result kept them
 * (borrowed, or owned by f). */
static ct_tensor *
unreduce(ag_frame *f, const ct_node *n, const ct_tensor *t)
{
    int nd = ag_input_ndim(n, 0);
    ct_tensor *r = (ct_tensor *)t;
    if (t == NULL || t->ndim == nd) {
        return r;
    }
    for (int d = 0; d < nd && r != NULL; d++) {
        if (MASK(n)[d]) {
            r = ag_tmp(f, ctag_unsqueeze(r, d));
        }
    }
    return r;
}

/* The reduced dims as a list; returns how many. */
static int
reduced_dims(const ct_node *n, int64_t *dims)
{
    int k = 0;
    for (int d = 0; d < ag_input_ndim(n, 0); d++) {
        if (MASK(n)[d]) {
            dims[k++] = d;
        }
    }
    return k;
}

/* op(a, b) for a comparison or logical op: a tensor with no history. */
static ct_tensor *
test(ag_frame *f, ct_binary_op op, const ct_tensor *a, const ct_tensor *b)
{
    if (a == NULL || b == NULL) {
        return NULL;
    }
    return ag_tmp(f, ct_binary(op, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW));
}

/* A boolean mask as 0 / 1 of dtype dt (no history). */
static ct_tensor *
as_numbers(ag_frame *f, const ct_tensor *mask, ct_dtype dt)
{
    return mask != NULL ? ag_tmp(f, ct_to_dtype(mask, dt, false)) : NULL;
}

/* A 0-dim zero of dtype dt, for where(). */
static ct_tensor *
zero(ag_frame *f, ct_dtype dt)
{
    return ag_tmp(f, ct_zeros(0, NULL, dt));
}

/* where(cond, 0, v): PyTorch's v.masked_fill(cond, 0). */
static ct_tensor *
zero_where(ag_frame *f, const ct_tensor *cond, const ct_tensor *v)
{
    if (cond == NULL || v == NULL) {
        return NULL;
    }
    return ag_tmp(f, ctag_where(cond, zero(f, v->dtype), v));
}

/* t converted (with its history) to dtype dt; borrowed or owned by f. */
static ct_tensor *
in_dtype(ag_frame *f, ct_tensor *t, ct_dtype dt)
{
    if (t == NULL || t->dtype == dt) {
        return t;
    }
    return ag_tmp(f, ctag_to_dtype(t, dt, false));
}

/* t reversed along dim (owned by f). */
static ct_tensor *
flip(ag_frame *f, const ct_tensor *t, int64_t dim)
{
    return ag_tmp(f, ctag_flip(t, 1, &dim));
}

/* How many elements of t are zero; -1 on error. */
static int64_t
count_zeros(const ct_tensor *t)
{
    ct_tensor *c = ct_count_nonzero(t, 0, NULL);
    ct_scalar v;
    int rc = c != NULL ? ct_tensor_item(c, &v) : -1;   /* a device count: one read */
    ct_tensor_decref(c);
    return rc < 0 ? -1 : t->numel - ct_scalar_to_int(v);
}

/* Finish a one-input formula: r (owned by f, NULL on error) summed and
 * cast to the input as go[0]; drops the frame. */
static int
give(ag_frame *f, ct_node *n, ct_tensor *r, ct_tensor **go)
{
    if (r != NULL) {
        ct_tensor_incref(r);
        go[0] = ag_to_input(n, 0, r);
    }
    ag_end(f);
    return go[0] != NULL ? 0 : -1;
}

/* The saved input and, with want_result, the saved result; false (error
 * set) when one is gone (graph freed, modified in place). */
static bool
unpack_both(ag_frame *f, ct_node *n, ct_tensor **x, ct_tensor **y, bool want_result)
{
    *x = ag_tmp(f, ct_node_unpack(n, 0));
    if (*x == NULL) {
        return false;
    }
    if (want_result) {
        *y = ag_tmp(f, ct_node_unpack(n, 1));
        return *y != NULL;
    }
    return true;
}

/* --- sum, mean ------------------------------------------------------------- */

/* g expanded back to the input's shape; divided by the count for a mean. */
static int
sum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *g = ag_tmp(&f, ctag_expand(unreduce(&f, n, gi[0]), ag_input_ndim(n, 0),
                                          ag_input_sizes(n, 0)));
    if (node_op(n) == CT_REDUCE_MEAN && g != NULL) {
        g = ag_tmp(&f, ctag_div(g, ag_tmp(&f, ag_scalar(n->d[1]))));
    }
    return give(&f, n, g, go);
}

/* --- prod ------------------------------------------------------------------ */

/* PyTorch's prod_safe_zeros_backward: g times the product of every other
 * element along dim, as the cumulative products before and after each
 * element (no division, so zeros are fine). */
static ct_tensor *
prod_without_each(ag_frame *f, const ct_tensor *g, const ct_tensor *x, int64_t dim)
{
    int64_t n = x->sizes[dim];
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    if (x->numel == 0) {
        return ag_tmp(f, ctag_expand(g, x->ndim, sizes));
    }
    sizes[dim] = 1;
    ct_tensor *ones = ag_tmp(
        f, ct_full_on(x->ndim, sizes, ct_scalar_int(1), g->dtype, ct_tensor_device(g)));
    const ct_tensor *before[2] = {ones, ag_tmp(f, ctag_narrow(x, dim, 0, n - 1))};
    const ct_tensor *after[2] = {
        ones, flip(f, ag_tmp(f, ctag_narrow(x, dim, 1, n - 1)), dim)};
    if (before[1] == NULL || after[1] == NULL) {
        return NULL;
    }
    ct_tensor *lo = ag_tmp(f, ctag_cat(2, before, dim, NULL));
    ct_tensor *hi = ag_tmp(f, ctag_cat(2, after, dim, NULL));
    lo = ag_tmp(f, ctag_cumprod(lo, dim, CT_DTYPE_COUNT));
    hi = flip(f, ag_tmp(f, ctag_cumprod(hi, dim, CT_DTYPE_COUNT)), dim);
    return ag_tmp(f, ctag_mul(g, ag_tmp(f, ctag_mul(lo, hi))));
}

/* g * prod / x without zeros; with zeros, PyTorch's choices: a full
 * product with one zero or a product along a dim goes through
 * prod_without_each, a full product with several zeros has no gradient
 * (zeros). */
static int
prod_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *y, *r = NULL, *g = gi[0];
    bool full = n->type == &reduce_types[CT_REDUCE_PROD][0];

    if (!unpack_both(&f, n, &x, &y, true)) {
        goto done;
    }
    /* with dtype=, the formula runs in the result's dtype */
    x = in_dtype(&f, x, g->dtype);
    if (x == NULL) {
        goto done;
    }
    if (x->ndim == 0) {
        r = g;
        goto done;
    }
    int64_t zeros = count_zeros(x);
    if (zeros < 0) {
        goto done;
    }
    if (zeros == 0) {
        r = ag_tmp(&f, ctag_mul(unreduce(&f, n, g),
                                ag_tmp(&f, ctag_div(unreduce(&f, n, y), x))));
    }
    else if (full && zeros > 1) {
        r = ag_tmp(&f, ct_zeros_on(x->ndim, x->sizes, g->dtype, ct_tensor_device(g)));
    }
    else if (full) {
        int64_t numel = x->numel;
        ct_tensor *flat = ag_tmp(&f, ctag_reshape(x, 1, &numel));
        ct_tensor *e = flat != NULL ? prod_without_each(&f, g, flat, 0) : NULL;
        r = ag_tmp(&f, ctag_reshape(e, x->ndim, x->sizes));
    }
    else {
        int64_t dims[1];
        reduced_dims(n, dims);
        r = prod_without_each(&f, unreduce(&f, n, g), x, dims[0]);
    }
done:
    return give(&f, n, r, go);
}

/* --- amax, amin, max, min, median of everything ---------------------------- */

/* g shared evenly by the elements equal to the result along the reduced
 * dims: (g / count) * mask. */
static int
amax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *y, *r = NULL;
    int64_t dims[CT_MAX_DIMS];
    int nr = reduced_dims(n, dims);

    if (unpack_both(&f, n, &x, &y, true)) {
        ct_tensor *mask = as_numbers(&f, test(&f, CT_BINARY_EQ, unreduce(&f, n, y), x),
                                     gi[0]->dtype);
        ct_tensor *count =
            mask ? ag_tmp(&f, ct_sum(mask, nr, dims, true, CT_DTYPE_COUNT)) : NULL;
        ct_tensor *share = ag_tmp(&f, ctag_div(unreduce(&f, n, gi[0]), count));
        r = ag_tmp(&f, ctag_mul(share, mask));
    }
    return give(&f, n, r, go);
}

/* PyTorch's evenly_distribute_backward (max(), min(), median(),
 * nanmedian()): g / count at the elements equal to the 0-dim result (the
 * NaNs when it is NaN), zero elsewhere. */
static int
evenly_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *y, *r = NULL, *mask = NULL;

    if (unpack_both(&f, n, &x, &y, true) && ct_tensor_device(x).type != CT_DEVICE_CPU) {
        /* no host reads on a device: a NaN result matches the NaNs */
        ct_tensor *nx = ag_tmp(&f, ct_unary(CT_UNARY_ISNAN, x, NULL, CT_OUT_NEW));
        ct_tensor *ny = ag_tmp(&f, ct_unary(CT_UNARY_ISNAN, y, NULL, CT_OUT_NEW));
        mask = test(&f, CT_BINARY_LOGICAL_OR, test(&f, CT_BINARY_EQ, x, y),
                    test(&f, CT_BINARY_LOGICAL_AND, nx, ny));
        ct_tensor *count =
            mask ? ag_tmp(&f, ct_sum(mask, 0, NULL, false, CT_DTYPE_COUNT)) : NULL;
        ct_tensor *share = count ? ag_tmp(&f, ctag_div(gi[0], count)) : NULL;
        r = share ? ag_tmp(&f, ctag_where(mask, share, zero(&f, share->dtype))) : NULL;
    }
    else if (x != NULL && y != NULL) {
        if (isnan(ct_scalar_to_double(ct_tensor_item_at(y, 0)))) {
            mask = ag_tmp(&f, ct_unary(CT_UNARY_ISNAN, x, NULL, CT_OUT_NEW));
        }
        else {
            mask = test(&f, CT_BINARY_EQ, x, y);
        }
        ct_tensor *count = mask ? ag_tmp(&f, ct_count_nonzero(mask, 0, NULL)) : NULL;
        if (count != NULL) {
            double c = (double)ct_scalar_to_int(ct_tensor_item_at(count, 0));
            ct_tensor *share = ag_tmp(&f, ctag_div(gi[0], ag_tmp(&f, ag_scalar(c))));
            r = share ? ag_tmp(&f, ctag_where(mask, share, zero(&f, share->dtype)))
                      : NULL;
        }
    }
    return give(&f, n, r, go);
}

/* --- var, std, var_mean, std_mean ------------------------------------------ */

/* var: (2 / dof) * g * (x - mean(x)); std: the same with g / (2 std),
 * zero where std is zero; the mean of var_mean / std_mean adds its own
 * gradient.  Either incoming gradient may be missing. */
static int
var_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    bool std = node_op(n) == CT_REDUCE_STD;
    int nd = ag_input_ndim(n, 0);
    int64_t dims[CT_MAX_DIMS];
    int nr = reduced_dims(n, dims);
    ct_tensor *x, *y = NULL, *r = NULL;

    if (!unpack_both(&f, n, &x, &y, std && gi[0] != NULL)) {
        goto done;
    }
    if (gi[0] != NULL) {
        ct_tensor *gv = gi[0];
        if (std) {
            ct_tensor *q = ag_tmp(&f, ctag_div(gv, ag_tmp(&f, ag_mul_s(y, 2))));
            gv = zero_where(&f, test(&f, CT_BINARY_EQ, y, zero(&f, y->dtype)), q);
        }
        double dof = n->d[1] - ct_scalar_to_double(n->s[0]);
        ct_tensor *mean = ag_tmp(&f, ctag_mean(x, nr, dims, true, CT_DTYPE_COUNT));
        ct_tensor *centred = ag_tmp(&f, ctag_sub(x, mean, ct_scalar_int(1)));
        ct_tensor *k = ag_tmp(&f, ag_mul_s(unreduce(&f, n, gv), 2.0 / dof));
        if ((r = ag_tmp(&f, ctag_mul(k, centred))) == NULL) {
            goto done;
        }
    }
    if (n->n_outputs > 1 && gi[1] != NULL) {
        ct_tensor *e = ag_tmp(&f, ctag_expand(unreduce(&f, n, gi[1]), nd,
                                              ag_input_sizes(n, 0)));
        ct_tensor *m = ag_tmp(&f, ctag_div(e, ag_tmp(&f, ag_scalar(n->d[1]))));
        r = r != NULL ? ag_tmp(&f, ctag_add(r, m, ct_scalar_int(1))) : m;
    }
done:
    return give(&f, n, r, go);
}

/* --- norms ------------------------------------------------------------------ */

/* PyTorch's norm_backward, case by case in p; p = 0 has no gradient. */
static int
norm_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    double p = ct_scalar_to_double(n->s[0]);
    ag_frame f = {0};
    ct_tensor *x, *y, *r = NULL;

    if (p == 0) {
        return 0;
    }
    if (!unpack_both(&f, n, &x, &y, true)) {
        goto done;
    }
    ct_dtype dt = gi[0]->dtype;
    x = in_dtype(&f, x, dt);        /* NormBackward3: self.to(grad's dtype) */
    ct_tensor *g = unreduce(&f, n, gi[0]);
    ct_tensor *norm = unreduce(&f, n, y);
    ct_tensor *sign = ag_tmp(&f, ag_unary(CT_UNARY_SIGN, x));
    ct_tensor *ax = ag_tmp(&f, ag_unary(CT_UNARY_ABS, x));
    ct_tensor *norm_is0 = test(&f, CT_BINARY_EQ, norm, zero(&f, dt));
    if (sign == NULL || ax == NULL || norm_is0 == NULL) {
        goto done;
    }
    if (p == 1) {
        r = ag_tmp(&f, ctag_mul(sign, g));
    }
    else if (p == 2) {
        ct_tensor *unit = zero_where(&f, norm_is0, ag_tmp(&f, ctag_div(x, norm)));
        r = ag_tmp(&f, ctag_mul(g, unit));
    }
    else if (isinf(p)) {
        /* amax / amin of |x|, also picking NaNs */
        ct_tensor *hit =
            test(&f, CT_BINARY_LOGICAL_OR, test(&f, CT_BINARY_EQ, ax, norm),
                 ag_tmp(&f, ct_unary(CT_UNARY_ISNAN, ax, NULL, CT_OUT_NEW)));
        ct_tensor *mask = as_numbers(&f, hit, dt);
        int64_t dims[CT_MAX_DIMS];
        int nr = reduced_dims(n, dims);
        ct_tensor *count =
            mask ? ag_tmp(&f, ct_sum(mask, nr, dims, true, CT_DTYPE_COUNT)) : NULL;
        ct_tensor *share = ag_tmp(&f, ctag_mul(ag_tmp(&f, ctag_div(g, count)), mask));
        r = ag_tmp(&f, ctag_mul(sign, share));
    }
    else if (p < 1) {
        ct_tensor *x_is0 = test(&f, CT_BINARY_EQ, x, zero(&f, dt));
        ct_tensor *pw = zero_where(&f, x_is0, ag_tmp(&f, ctag_pow_scalar(ax, p - 1)));
        ct_tensor *scaled = ag_tmp(&f, ctag_mul(sign, pw));
        r = ag_tmp(&f, ctag_mul(ag_tmp(&f, ctag_mul(scaled, g)),
                                ag_tmp(&f, ctag_pow_scalar(norm, 1 - p))));
    }
    else {
        /* sign(x) |x|^(p-1), written x |x|^(p-2) from p = 2 on */
        ct_tensor *pw = ag_tmp(&f, ctag_pow_scalar(ax, p < 2 ? p - 1 : p - 2));
        ct_tensor *scaled = ag_tmp(&f, ctag_mul(p < 2 ? sign : x, pw));
        ct_tensor *v =
            ag_tmp(&f, ctag_div(g, ag_tmp(&f, ctag_pow_scalar(norm, p - 1))));
        r = ag_tmp(&f, ctag_mul(scaled, zero_where(&f, norm_is0, v)));
    }
done:
    return give(&f, n, r, go);
}

/* --- logsumexp ---------------------------------------------------------------- */

static int
logsumexp_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    ct_tensor *x, *y, *r = NULL;
    if (unpack_both(&f, n, &x, &y, true)) {
        ct_tensor *d = ag_tmp(&f, ctag_sub(x, unreduce(&f, n, y), ct_scalar_int(1)));
        r = ag_tmp(&f, ctag_mul(unreduce(&f, n, gi[0]),
                                ag_tmp(&f, ag_unary(CT_UNARY_EXP, d))));
    }
    return give(&f, n, r, go);
}

/* --- recording ------------------------------------------------------------------ */

/* Record `type` for t -> outs[0..nout-1] with the reduction's payload;
 * NULL with the error set on failure. */
static ct_node *
record_reduce(const ct_node_type *type, const ct_tensor *t, int ndims,
              const int64_t *dims, bool keepdim, int nout, ct_tensor **outs)
{
    ct_node *n = ct_record(type, 1, &t, nout, outs);
    if (n == NULL) {
        return NULL;
    }
    ag_save_meta(n, 0, t);
    bool all = dims == NULL || ndims == 0;
    int64_t count = 1;
    memset(MASK(n), 0, sizeof(int64_t) * CT_MAX_DIMS);
    for (int i = 0; i < ndims && !all; i++) {
        MASK(n)[dims[i] < 0 ? dims[i] + t->ndim : dims[i]] = 1;
    }
    for (int d = 0; d < t->ndim; d++) {
        MASK(n)[d] |= all;
        count *= MASK(n)[d] ? t->sizes[d] : 1;
    }
    n->d[0] = keepdim;
    n->d[1] = (double)count;
    return n;
}

/* The node of ctag_reduce's op (t needs a gradient, r is floating);
 * `second` is max/min's indices or var/std's mean, may be NULL.  0, or -1
 * with the error set. */
static int
record_op(ct_reduce_op op, const ct_tensor *t, int ndims, const int64_t *dims,
          bool keepdim, ct_dtype dtype, const ct_reduce_args *args, ct_tensor *r,
          ct_tensor *second)
{
    bool all = dims == NULL || ndims == 0;
    /* sum and mean name the dim= form even when it covers every dim */
    bool dim_form = dims != NULL;
    const ct_node_type *type = &reduce_types[op][0];
    ct_tensor *outs[2] = {r, second};
    int nout = 1;
    bool save_x = true, save_r = true;
    ct_node *n;

    switch (op) {
    case CT_REDUCE_SUM:
    case CT_REDUCE_MEAN:
        type = &reduce_types[op][dim_form];
        save_x = save_r = false;
        break;
    case CT_REDUCE_PROD:
        type = &reduce_types[op][!all];
        break;
    case CT_REDUCE_MAX:
    case CT_REDUCE_MIN:
        if (!all) {
            return ag_record_select(&reduce_types[op][1], t, dims[0], keepdim, r,
                                    second);
        }
        break;
    case CT_REDUCE_VAR:
    case CT_REDUCE_STD:
        type = &reduce_types[op][second != NULL];
        nout = second != NULL ? 2 : 1;
        save_r = op == CT_REDUCE_STD;
        break;
    case CT_REDUCE_NORM: {
        bool torch_norm =
            args != NULL && args->name != NULL && strcmp(args->name, "norm") == 0;
        type = &norm_types[torch_norm ? (dtype != CT_DTYPE_COUNT ? 2 : 1) : 0];
        break;
    }
    case CT_REDUCE_AMAX:
    case CT_REDUCE_AMIN:
    case CT_REDUCE_LOGSUMEXP:
        break;
    default:
        return 0;       /* argmax, all, count_nonzero, ...: not differentiable */
    }
    if ((n = record_reduce(type, t, ndims, dims, keepdim, nout, outs)) == NULL ||
        (save_x && ct_node_save(n, 0, t, false) < 0) ||
        (save_r && ct_node_save(n, 1, r, true) < 0)) {
        return -1;
    }
    if (op == CT_REDUCE_NORM) {
        n->s[0] = ct_scalar_float(args != NULL ? args->p : 2);
    }
    if (op == CT_REDUCE_VAR || op == CT_REDUCE_STD) {
        n->s[0] = ct_scalar_float(args != NULL ? args->correction : 1);
    }
    return 0;
}

ct_tensor *
ctag_reduce(ct_reduce_op op, const ct_tensor *t, int ndims, const int64_t *dims,
            bool keepdim, ct_dtype dtype, const ct_reduce_args *args,
            ct_tensor **indices)
{
    AG_NULL_IF_ANY(t);
    bool rec = ct_any_requires_grad(1, &t);
    bool all = dims == NULL || ndims == 0;
    ct_tensor *own = NULL;
    if (rec && (op == CT_REDUCE_MAX || op == CT_REDUCE_MIN) && !all &&
        indices == NULL) {
        indices = &own;     /* the formula needs them */
    }
    ct_tensor *r = ct_reduce(op, t, ndims, dims, keepdim, dtype, args, indices);
    if (r != NULL && rec && ct_dtype_is_floating(r->dtype) &&
        record_op(op, t, ndims, dims, keepdim, dtype, args, r,
                  indices != NULL ? *indices : NULL) < 0) {
        ct_tensor_decref(r);
        r = NULL;
        if (indices != NULL) {
            ct_tensor_decref(*indices);
            *indices = NULL;
        }
    }
    ct_tensor_decref(own);
    return r;
}

ct_tensor *
ctag_sum(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim,
         ct_dtype dtype)
{
    return ctag_reduce(CT_REDUCE_SUM, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ctag_mean(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim,
          ct_dtype dtype)
{
    return ctag_reduce(CT_REDUCE_MEAN, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ctag_prod(const ct_tensor *t, const int64_t *dim, bool keepdim, ct_dtype dtype)
{
    return ctag_reduce(CT_REDUCE_PROD, t, dim != NULL, dim, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ctag_sum_to(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    int lead = t->ndim - ndim;
    int64_t dims[CT_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d < lead || (sizes[d - lead] == 1 && t->sizes[d] != 1)) {
            dims[nd++] = d;
        }
    }
    if (nd == 0 && lead == 0) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    ct_tensor *s = ctag_sum(t, nd, dims, true, CT_DTYPE_COUNT);
    if (s == NULL || lead == 0) {
        return s;
    }
    ct_tensor *r = ctag_view(s, ndim, sizes);
    ct_tensor_decref(s);
    return r;
}

ct_tensor *
ctag_vector_norm(const ct_tensor *t, double p, int ndims, const int64_t *dims,
                 bool keepdim, ct_dtype dtype, const char *name)
{
    ct_reduce_args a = {p, 0, name != NULL ? name : "linalg.vector_norm"};
    return ctag_reduce(CT_REDUCE_NORM, t, ndims, dims, keepdim, dtype, &a, NULL);
}

/* torch.norm's p="fro": over two dims it is sqrt(sum(x * x)) in torch, and
 * records those ops; else the 2-norm (NormBackward1). */
ct_tensor *
ctag_frobenius_norm(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    AG_NULL_IF_ANY(t);
    if (ndims < 2) {
        ct_reduce_args a = {2, 0, "norm"};
        return ctag_reduce(CT_REDUCE_NORM, t, ndims, dims, keepdim, CT_DTYPE_COUNT, &a,
                           NULL);
    }
    ct_tensor *r = ct_frobenius_norm(t, ndims, dims, keepdim);
    if (r == NULL || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    /* valid arguments: the same value again, with its history */
    ct_tensor_decref(r);
    ag_frame f = {0};
    ct_tensor *sq = ag_tmp(&f, ctag_mul(t, t));
    ct_tensor *sum = ag_tmp(&f, ctag_sum(sq, ndims, dims, keepdim, CT_DTYPE_COUNT));
    r = ag_keep(&f, ag_unary(CT_UNARY_SQRT, sum));
    ag_end(&f);
    return r;
}

/* --- scans ------------------------------------------------------------------------ */

static int cumsum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int cumprod_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int cummax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int softmax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type scan_types[CT_SCAN_COUNT] = {
    [CT_SCAN_CUMSUM] = {"CumsumBackward0", cumsum_apply, NULL},
    [CT_SCAN_CUMPROD] = {"CumprodBackward0", cumprod_apply, NULL},
    [CT_SCAN_CUMMAX] = {"CummaxBackward0", cummax_apply, NULL},
    [CT_SCAN_CUMMIN] = {"CumminBackward0", cummax_apply, NULL},
    [CT_SCAN_SOFTMAX] = {"SoftmaxBackward0", softmax_apply, NULL},
    [CT_SCAN_LOG_SOFTMAX] = {"LogSoftmaxBackward0", softmax_apply, NULL},
    [CT_SCAN_MEDIAN] = {"MedianBackward1", ag_select_apply, NULL},
    [CT_SCAN_MODE] = {"ModeBackward0", ag_select_apply, NULL},
    [CT_SCAN_NANMEDIAN] = {"NanmedianBackward1", ag_select_apply, NULL},
};

/* median() / nanmedian() of everything */
static const ct_node_type median_types[2] = {
    {"MedianBackward0", evenly_apply, NULL},
    {"NanmedianBackward0", evenly_apply, NULL}};

/* The reversed cumulative sum along dim: flip, cumsum, flip. */
static ct_tensor *
rev_cumsum(ag_frame *f, const ct_tensor *t, int64_t dim)
{
    ct_tensor *c = ag_tmp(f, ctag_cumsum(flip(f, t, dim), dim, CT_DTYPE_COUNT));
    return flip(f, c, dim);
}

/* g in the input's dtype (cumsum / cumprod with dtype=); borrowed or
 * owned by f. */
static ct_tensor *
grad_in_input_dtype(ag_frame *f, const ct_node *n, ct_tensor *g)
{
    return in_dtype(f, g, n->dtype[0]);
}

static int
cumsum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    int64_t dim = n->ints[DIM_SLOT];
    ct_tensor *g = grad_in_input_dtype(&f, n, gi[0]);
    if (g != NULL && g->ndim > 0 && g->sizes[dim] > 0) {
        g = rev_cumsum(&f, g, dim);
    }
    return give(&f, n, g, go);
}

/* cumprod's gradient for an x with zeros when no graph is wanted: per
 * line, grad_k = sum_{i >= k} g_i prod_{j <= i, j != k} x_j.  Before the
 * first zero z that is (sum_{k <= i < z} g_i out_i) / x_k, at z the
 * product before z times the sum over the run up to the next zero, after
 * z nothing.  O(n), in float64.  A new reference. */
static ct_tensor *
cumprod_grad_with_zeros(const ct_tensor *x, const ct_tensor *g, int64_t dim)
{
    int last = x->ndim - 1;
    ct_tensor *xt = ct_transpose(x, dim, last), *gt = ct_transpose(g, dim, last);
    ct_tensor *xd = xt ? ct_to_dtype(xt, CT_DTYPE_FLOAT64, false) : NULL;
    ct_tensor *gd = gt ? ct_to_dtype(gt, CT_DTYPE_FLOAT64, false) : NULL;
    ct_tensor *xc = xd ? ct_contiguous(xd) : NULL, *gc = gd ? ct_contiguous(gd) : NULL;
    ct_tensor *out =
        xc ? ct_empty(xc->ndim, xc->sizes, CT_DTYPE_FLOAT64, ct_device_cpu()) : NULL;
    ct_tensor *back = NULL, *r = NULL;

    if (out != NULL && gc != NULL) {
        int64_t n = xc->sizes[last], lines = n > 0 ? xc->numel / n : 0;
        for (int64_t l = 0; l < lines; l++) {
            const double *xs = (const double *)ct_tensor_data(xc) + l * n;
            const double *gs = (const double *)ct_tensor_data(gc) + l * n;
            double *o = (double *)ct_tensor_data(out) + l * n;
            double prefix = 1, acc = 0;
            int64_t z = 0;
            for (; z < n && xs[z] != 0; z++) {
                prefix *= xs[z];
                o[z] = gs[z] * prefix;
            }
            for (int64_t k = z - 1; k >= 0; k--) {
                acc += o[k];
                o[k] = acc / xs[k];
            }
            if (z < n) {
                double run = 1, sum = gs[z];
                for (int64_t i = z + 1; i < n && xs[i] != 0; i++) {
                    run *= xs[i];
                    sum += gs[i] * run;
                }
                o[z] = prefix * sum;
                for (int64_t k = z + 1; k < n; k++) {
                    o[k] = 0;
                }
            }
        }
        back = ct_transpose(out, dim, last);
        r = back ? ct_to_dtype(back, g->dtype, false) : NULL;
    }
    ct_tensor *tmp[] = {xt, gt, xd, gd, xc, gc, out, back};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) {
        ct_tensor_decref(tmp[i]);
    }
    return r;
}

/* The same with a graph (create_graph), as PyTorch does it: for each k,
 * the products that omit x_k, in O(n^2).  A new reference. */
static ct_tensor *
cumprod_grad_with_zeros_graph(const ct_tensor *x, const ct_tensor *g, int64_t dim)
{
    int64_t n = x->sizes[dim];
    ct_tensor **parts = calloc((size_t)n, sizeof *parts);
    ct_tensor *r = NULL;
    int64_t k = 0;
    if (parts == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in cumprod's backward");
        return NULL;
    }
    for (; k < n; k++) {
        ag_frame f = {0};
        ct_tensor *omitted;
        ct_tensor *until =
            k > 0 ? ag_tmp(&f, ctag_prod(ag_tmp(&f, ctag_slice(x, dim, 0, k, 1)), &dim,
                                         true, CT_DTYPE_COUNT))
                  : NULL;
        if (k == n - 1) {
            omitted = until;
        }
        else {
            ct_tensor *from =
                ag_tmp(&f, ctag_cumprod(ag_tmp(&f, ctag_slice(x, dim, k + 1, n, 1)),
                                        dim, CT_DTYPE_COUNT));
            int64_t sizes[CT_MAX_DIMS];
            memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
            sizes[dim] = 1;
            ct_tensor *head = k > 0 ? until
                                    : ag_tmp(&f, ct_full_on(x->ndim, sizes, ct_scalar_int(1),
                                                            x->dtype, ct_tensor_device(x)));
            ct_tensor *tail = k > 0 ? ag_tmp(&f, ctag_mul(until, from)) : from;
            const ct_tensor *both[2] = {head, tail};
            omitted = head && tail ? ag_tmp(&f, ctag_cat(2, both, dim, NULL)) : NULL;
        }
        ct_tensor *gk = ag_tmp(&f, ctag_slice(g, dim, k, n, 1));
        parts[k] = ag_keep(&f, ctag_sum(ag_tmp(&f, ctag_mul(gk, omitted)), 1, &dim,
                                        false, CT_DTYPE_COUNT));
        ag_end(&f);
        if (parts[k] == NULL) {
            goto done;
        }
    }
    r = ctag_stack(n, (const ct_tensor *const *)parts, dim, NULL);
done:
    for (int64_t i = 0; i < k && i < n; i++) {
        ct_tensor_decref(parts[i]);
    }
    free(parts);
    return r;
}

/* PyTorch's cumprod_backward: reversed_cumsum(out * g) / x without zeros;
 * with zeros the O(n) loop, or the O(n^2) products under create_graph
 * (the loop has no second derivative). */
static int
cumprod_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    int64_t dim = n->ints[DIM_SLOT];
    ct_tensor *x, *y, *r = NULL;
    ct_tensor *g = grad_in_input_dtype(&f, n, gi[0]);

    if (g == NULL || !unpack_both(&f, n, &x, &y, true)) {
        goto done;
    }
    if (x->numel <= 1 || x->sizes[dim] == 1) {
        r = g;
        goto done;
    }
    int64_t zeros = count_zeros(x);
    if (zeros == 0) {
        ct_tensor *w = ag_tmp(&f, ctag_mul(in_dtype(&f, y, x->dtype), g));
        r = ag_tmp(&f, ctag_div(rev_cumsum(&f, w, dim), x));
    }
    else if (zeros > 0) {
        r = ag_tmp(&f, ct_grad_enabled() ? cumprod_grad_with_zeros_graph(x, g, dim)
                       : ct__is_device(x) ? ct__device_cumprod_backward(x, y, g, (int)dim)
                                          : cumprod_grad_with_zeros(x, g, dim));
    }
done:
    return give(&f, n, r, go);
}

/* cummax / cummin: g added at the positions the running extreme came
 * from. */
static int
cummax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *indices = ct_node_unpack(n, 0);
    if (indices == NULL) {
        return -1;
    }
    if (n->ndim[0] == 0) {
        ct_tensor_incref(gi[0]);
        go[0] = gi[0];
    }
    else {
        go[0] = ag_to_input(n, 0,
                            ag_scatter_zeros(n->ndim[0], ag_input_sizes(n, 0),
                                             n->ints[DIM_SLOT], indices, gi[0], true));
    }
    ct_tensor_decref(indices);
    return go[0] != NULL ? 0 : -1;
}

/* softmax: y * (g - sum(g * y)); log_softmax: g - exp(y) * sum(g), the
 * sums along dim (y the saved result).  torch's fused kernel
 * (ct_softmax_backward_data, with its rounding) unless create_graph needs
 * a history: then the same formula in ctag_ ops. */
static int
softmax_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    int64_t dim = n->ints[DIM_SLOT];
    int nd = n->ndim[0] > 0;     /* a 0-dim input sums over everything */
    ct_tensor *g = gi[0], *r = NULL;
    ct_tensor *y = ag_tmp(&f, ct_node_unpack(n, 0));
    bool log = n->type == &scan_types[CT_SCAN_LOG_SOFTMAX];
    bool graph = ct_grad_enabled() && (ct_requires_grad(g) ||
                                       (y != NULL && ct_requires_grad(y)));

    if (y != NULL && !graph && g->dtype == y->dtype) {
        r = ag_tmp(&f, ct_softmax_backward_data(g, y, dim, log));
    }
    else if (y != NULL && !log) {
        ct_tensor *s = ag_tmp(&f, ctag_sum(ag_tmp(&f, ctag_mul(g, y)), nd, &dim, true,
                                           CT_DTYPE_COUNT));
        r = ag_tmp(&f, ctag_mul(y, ag_tmp(&f, ctag_sub(g, s, ct_scalar_int(1)))));
    }
    else if (y != NULL) {
        ct_tensor *s = ag_tmp(&f, ctag_sum(g, nd, &dim, true, CT_DTYPE_COUNT));
        ct_tensor *e = ag_tmp(&f, ctag_mul(ag_tmp(&f, ag_unary(CT_UNARY_EXP, y)), s));
        r = ag_tmp(&f, ctag_sub(g, e, ct_scalar_int(1)));
    }
    return give(&f, n, r, go);
}

ct_tensor *
ctag_scan(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim, ct_dtype dtype,
          ct_tensor **indices)
{
    AG_NULL_IF_ANY(t);
    bool rec = ct_any_requires_grad(1, &t);
    bool softmax = op == CT_SCAN_SOFTMAX || op == CT_SCAN_LOG_SOFTMAX;
    if (rec && softmax && dtype != CT_DTYPE_COUNT && dtype != t->dtype) {
        /* torch converts first: ToCopyBackward0 under the softmax's node */
        ct_tensor *c = ctag_to_dtype(t, dtype, false);
        ct_tensor *r = ctag_scan(op, c, dim, keepdim, CT_DTYPE_COUNT, indices);
        ct_tensor_decref(c);
        return r;
    }
    bool selects = op != CT_SCAN_CUMSUM && op != CT_SCAN_CUMPROD && !softmax;
    ct_tensor *own = NULL;
    if (rec && selects && indices == NULL) {
        indices = &own;     /* the formula needs them */
    }
    ct_tensor *r = ct_scan(op, t, dim, keepdim, dtype, indices);
    if (r == NULL || !rec || !ct_dtype_is_floating(r->dtype)) {
        ct_tensor_decref(own);
        return r;
    }
    int rc = 0;
    if (op == CT_SCAN_MEDIAN || op == CT_SCAN_NANMEDIAN || op == CT_SCAN_MODE) {
        rc = ag_record_select(&scan_types[op], t, dim, keepdim, r, *indices);
    }
    else {
        ct_node *n = ct_record(&scan_types[op], 1, &t, 1, &r);
        /* softmax: its result; cummax: the indices; cumprod: the input */
        const ct_tensor *keep0 = softmax ? r : selects ? *indices
                                 : op == CT_SCAN_CUMPROD ? t : NULL;
        rc = n == NULL || ct_node_save(n, 0, keep0, softmax) < 0 ||
                     (op == CT_SCAN_CUMPROD && ct_node_save(n, 1, r, true) < 0)
                 ? -1
                 : 0;
        if (rc == 0) {
            ag_save_meta(n, 0, t);
            n->ints[DIM_SLOT] = t->ndim > 0 ? ct_wrap_dim(dim, t->ndim) : 0;
        }
    }
    ct_tensor_decref(own);
    if (rc < 0) {
        ct_tensor_decref(r);
        if (indices != &own && indices != NULL) {
            ct_tensor_decref(*indices);
            *indices = NULL;
        }
        return NULL;
    }
    return r;
}

ct_tensor *
ctag_cumsum(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ctag_scan(CT_SCAN_CUMSUM, t, dim, false, dtype, NULL);
}

ct_tensor *
ctag_cumprod(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ctag_scan(CT_SCAN_CUMPROD, t, dim, false, dtype, NULL);
}

ct_tensor *
ctag_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ctag_scan(CT_SCAN_SOFTMAX, t, dim, false, dtype, NULL);
}

ct_tensor *
ctag_log_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ctag_scan(CT_SCAN_LOG_SOFTMAX, t, dim, false, dtype, NULL);
}

ct_tensor *
ctag_median_all(const ct_tensor *t, bool ignore_nan)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ignore_nan ? ct_nanmedian(t) : ct_median(t);
    if (r != NULL && ct_dtype_is_floating(r->dtype) && ct_any_requires_grad(1, &t)) {
        ct_node *n = record_reduce(&median_types[ignore_nan], t, 0, NULL, false, 1, &r);
        if (n == NULL || ct_node_save(n, 0, t, false) < 0 ||
            ct_node_save(n, 1, r, true) < 0) {
            ct_tensor_decref(r);
            return NULL;
        }
    }
    return r;
}
