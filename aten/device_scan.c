/* aten/device_scan.c -- cumsum, cumprod, cummax and cummin on a CUDA
 * device, composed of its binary, where and copy kernels until the part
 * has scan kernels.  ct_scan (aten/cpu/reduce_scan.c) makes its checks
 * and branches here.
 *
 * Note [Log-step scan]
 * Hillis and Steele's scan: from a copy c of the input, for k = 1, 2, 4,
 * ... < n (the size along dim), c[k:] = c[:-k] op c[k:], the right side
 * computed into a new tensor before it is copied back; after the step of
 * k every element holds op over the 2k elements ending at it.  log2(n)
 * steps of O(numel) each, on the device's one stream, so each step reads
 * the previous one's values.
 * Sums and products run in the accumulate dtype (float for half and
 * bfloat16; int64, the CPU's result dtype, for integers and bool), so
 * integer results are the CPU's exactly (wrapping included: + and * are
 * associative modulo 2^64) and floating ones agree with the CPU's
 * (double, in order) to rounding.
 * cummax / cummin carry (value, position) pairs: the right pair wins when
 * its value is NaN or compares >= (cummin: <=) the left's, the CPU's rule.
 * The right pair always comes from later positions, so that is the
 * largest pair under (is NaN, value, position), an associative choice:
 * the log-step order gives the CPU's values and indices exactly, ties and
 * NaNs pointing at the last one.
 */
#include "aten/device_compose.h"

#include <ctorch/ops_index.h>

/* One step of Note [Log-step scan]: vals[k:] = vals[:-k] op vals[k:]
 * along dim, and for cummax / cummin the positions idx (NULL: not
 * wanted) with them.  0, or -1 with the error set. */
static int
scan_step(ct_scan_op op, ct_tensor *vals, ct_tensor *idx, int dim, int64_t n, int64_t k)
{
    temps s = {0};
    ct_tensor *lv = tmp(&s, ct_narrow(vals, dim, 0, n - k));
    ct_tensor *rv = tmp(&s, ct_narrow(vals, dim, k, n - k));
    ct_tensor *nv = NULL, *ri = NULL, *ni = NULL;
    int rc = -1;
    if (op == CT_SCAN_CUMSUM || op == CT_SCAN_CUMPROD) {
        nv = bin(&s, op == CT_SCAN_CUMSUM ? CT_BINARY_ADD : CT_BINARY_MUL, lv, rv);
    }
    else {
        ct_binary_op cmp = op == CT_SCAN_CUMMAX ? CT_BINARY_GE : CT_BINARY_LE;
        ct_tensor *pick = bin(&s, cmp, rv, lv);
        if (ct_dtype_is_floating(vals->dtype)) {
            pick = bin(&s, CT_BINARY_LOGICAL_OR, pick, un(&s, CT_UNARY_ISNAN, rv));
        }
        nv = pick != NULL ? tmp(&s, ct_where(pick, rv, lv)) : NULL;
        if (idx != NULL && nv != NULL) {
            ct_tensor *li = tmp(&s, ct_narrow(idx, dim, 0, n - k));
            ri = tmp(&s, ct_narrow(idx, dim, k, n - k));
            ni = li != NULL && ri != NULL ? tmp(&s, ct_where(pick, ri, li)) : NULL;
            if (ni == NULL) {
                goto done;
            }
        }
    }
    if (nv != NULL && ct_copy_(rv, nv) == 0 && (ni == NULL || ct_copy_(ri, ni) == 0)) {
        rc = 0;
    }
done:
    temps_free(&s);
    return rc;
}

/* The positions 0 .. n-1 along dim of a contiguous int64 tensor of sizes
 * on dev (owned by s), cummax's first indices. */
static ct_tensor *
positions(temps *s, int nd, const int64_t *sizes, int dim, ct_device dev)
{
    int64_t n = sizes[dim], line[CT_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        line[d] = d == dim ? n : 1;
    }
    ct_tensor *r = tmp(s, ct_empty(nd, sizes, CT_DTYPE_INT64, dev));
    if (r == NULL || r->numel == 0) {
        return r;
    }
    ct_tensor *a = tmp(s, ct_arange(ct_scalar_int(0), ct_scalar_int(n), ct_scalar_int(1),
                                    CT_DTYPE_INT64));
    ct_tensor *v = a != NULL ? tmp(s, ct_to_device(a, dev)) : NULL;
    v = v != NULL ? tmp(s, ct_view(v, nd, line)) : NULL;
    return v != NULL && ct_copy_(r, v) == 0 ? r : NULL;
}

ct_tensor *
ct__device_cumulative(ct_scan_op op, const ct_tensor *t, int dim, ct_dtype cdt,
                      ct_dtype odt, ct_tensor **indices)
{
    temps s = {0};
    bool best = op == CT_SCAN_CUMMAX || op == CT_SCAN_CUMMIN;
    ct_dtype wdt = best                         ? cdt
                   : ct_dtype_is_floating(odt) ? accumulate_dtype(odt)
                                               : CT_DTYPE_INT64;
    ct_device dev = ct_tensor_device(t);
    int64_t one = 1;
    int nd = t->ndim > 0 ? t->ndim : 1;
    const int64_t *sizes = t->ndim > 0 ? t->sizes : &one;
    int64_t n = sizes[dim];
    ct_tensor *out = NULL, *iout = NULL;
    /* a fresh contiguous copy the steps write into, and the positions */
    ct_tensor *vals = tmp(&s, ct_empty(nd, sizes, wdt, dev));
    ct_tensor *idx = best && indices != NULL ? positions(&s, nd, sizes, dim, dev) : NULL;

    if (vals == NULL || (best && indices != NULL && idx == NULL)) {
        goto done;
    }
    if (vals->numel > 0) {
        /* cumsum(dtype=) converts the input first, as the CPU does */
        ct_tensor *in = in_dtype(&s, t, cdt);
        if (in == NULL || ct_copy_(vals, in) < 0) {
            goto done;
        }
        for (int64_t k = 1; k < n; k *= 2) {
            if (scan_step(op, vals, idx, dim, n, k) < 0) {
                goto done;
            }
        }
    }
    out = result(&s, vals, odt, t->ndim, t->sizes);
    if (out != NULL && idx != NULL &&
        (iout = result(&s, idx, CT_DTYPE_INT64, t->ndim, t->sizes)) == NULL) {
        ct_tensor_decref(out);
        out = NULL;
    }
done:
    temps_free(&s);
    if (indices != NULL) {
        *indices = out != NULL ? iout : NULL;
    }
    return out;
}

/* cumprod's gradient on a device for an x with zeros, PyTorch's masked
 * O(n) formula (FunctionsManual's cumprod_backward) in device ops: with
 * c the running count of zeros along dim, before the first zero (c == 0)
 * grad_k = (sum_{i >= k, c_i == 0} g_i y_i) / x_k; at the first zero z,
 * grad_z = (prod of x before z) * sum_{z <= i, c_i == 1} g_i
 * prod_{z < j <= i} x_j; after z nothing.  y the forward's result, g in
 * x's dtype.  A new reference, or NULL with the error set. */
ct_tensor *
ct__device_cumprod_backward(const ct_tensor *x, const ct_tensor *y, const ct_tensor *g,
                            int dim)
{
    temps s = {0};
    int64_t n = x->sizes[dim], d = dim;
    ct_tensor *zero = scalar(&s, ct_scalar_int(0)), *one = scalar(&s, ct_scalar_int(1));
    ct_tensor *is_zero = bin(&s, CT_BINARY_EQ, x, zero);
    ct_tensor *c = is_zero != NULL ? tmp(&s, ct_cumsum(is_zero, dim, CT_DTYPE_COUNT))
                                   : NULL;
    ct_tensor *before = bin(&s, CT_BINARY_EQ, c, zero);
    ct_tensor *run = bin(&s, CT_BINARY_EQ, c, one);
    /* before the first zero: the reversed cumulative sum of g * y, over x */
    ct_tensor *w = bin(&s, CT_BINARY_MUL, g, in_dtype(&s, y, x->dtype));
    w = before != NULL && w != NULL ? tmp(&s, ct_where(before, w, zero)) : NULL;
    w = w != NULL ? tmp(&s, ct_flip(w, 1, &d)) : NULL;
    w = w != NULL ? tmp(&s, ct_cumsum(w, dim, CT_DTYPE_COUNT)) : NULL;
    w = w != NULL ? tmp(&s, ct_flip(w, 1, &d)) : NULL;
    ct_tensor *lead = bin(&s, CT_BINARY_DIV, w, x);
    lead = lead != NULL ? tmp(&s, ct_where(before, lead, zero)) : NULL;
    /* at the first zero */
    ct_tensor *first = bin(&s, CT_BINARY_LOGICAL_AND, is_zero, run);
    ct_tensor *nonzero = un(&s, CT_UNARY_LOGICAL_NOT, is_zero);
    ct_tensor *past = bin(&s, CT_BINARY_LOGICAL_AND, run, nonzero);
    ct_tensor *r = past != NULL ? tmp(&s, ct_where(past, x, one)) : NULL;
    r = r != NULL ? tmp(&s, ct_cumprod(r, dim, CT_DTYPE_COUNT)) : NULL;
    r = bin(&s, CT_BINARY_MUL, r, g);
    r = r != NULL && run != NULL ? tmp(&s, ct_where(run, r, zero)) : NULL;
    ct_tensor *sum = sum_over(&s, r, 1, &d, true);
    ct_tensor *pre = before != NULL ? tmp(&s, ct_where(before, x, one)) : NULL;
    pre = pre != NULL ? tmp(&s, ct_cumprod(pre, dim, CT_DTYPE_COUNT)) : NULL;
    pre = pre != NULL ? tmp(&s, ct_narrow(pre, dim, n - 1, 1)) : NULL;
    ct_tensor *at = bin(&s, CT_BINARY_MUL, pre, sum);
    at = at != NULL && first != NULL ? tmp(&s, ct_where(first, at, zero)) : NULL;
    ct_tensor *grad = bin(&s, CT_BINARY_ADD, lead, at);
    ct_tensor *out = grad != NULL ? result(&s, grad, g->dtype, x->ndim, x->sizes) : NULL;
    temps_free(&s);
    return out;
}
