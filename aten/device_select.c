/* aten/device_select.c -- nonzero, masked_select, take and advanced
 * indexing (t[index tensors], index_put_) on a CUDA device, composed of
 * its pointwise, scan (device_scan.c), gather and scatter_add kernels
 * until the part has compaction kernels.  The entry points of
 * aten/cpu/index.c make their checks and branch here.
 *
 * Note [Device compaction]
 * A selection whose size depends on the data (nonzero, masked_select)
 * reads one number to the host, its count, as PyTorch's CUDA kernels do.
 * The positions of the true elements of a flat flag vector come from its
 * running count c (a device cumsum): true element i goes to row c_i - 1
 * of a zeroed int64 vector of count + 1 rows, every false one to the last
 * (dump) row, and a scatter_add of the positions 0 .. n-1 fills it; the
 * first count rows are the positions in order (each written once, so
 * exactly).  Values then come through gather, which moves them bit for
 * bit.
 *
 * Gathers with a computed index (take, advanced indexing) read the source
 * flattened: an element's index is its row-major position in a
 * contiguous copy, summed from broadcast terms (index value or arange
 * times the contiguous stride).  index_put_ scatter_adds into the same
 * positions (accumulate), or gathers each target's writer (assignment).
 * Index values are checked first with ct__device_index_check (one device
 * reduction, one host read) and raise the CPU's messages.
 */
#include "aten/device_compose.h"

#include <string.h>

#include <ctorch/ops_index.h>

/* Note [Device compaction]: the positions of flat's nonzero elements
 * (flat one-dim), int64 [count] on its device, owned by s. */
static ct_tensor *
true_positions(temps *s, const ct_tensor *flat)
{
    ct_device dev = ct_tensor_device(flat);
    int64_t n = flat->numel, count = 0;
    ct_tensor *zero = scalar(s, ct_scalar_int(0)), *one = scalar(s, ct_scalar_int(1));
    ct_tensor *hit = bin(s, CT_BINARY_NE, flat, zero);
    ct_tensor *rows = hit != NULL ? tmp(s, ct_cumsum(hit, 0, CT_DTYPE_COUNT)) : NULL;
    if (rows == NULL) {
        return NULL;
    }
    if (n > 0) {
        /* the one read: the running count's last value */
        ct_tensor *last = tmp(s, ct_narrow(rows, 0, n - 1, 1));
        ct_scalar v;
        if (last == NULL || ct_tensor_item(last, &v) < 0) {
            return NULL;
        }
        count = ct_scalar_to_int(v);
    }
    int64_t nrows = count + 1;
    ct_tensor *row = bin(s, CT_BINARY_SUB, rows, one);
    ct_tensor *dump = scalar(s, ct_scalar_int(count));
    row = row != NULL && dump != NULL ? tmp(s, ct_where(hit, row, dump)) : NULL;
    ct_tensor *out = tmp(s, ct_zeros_on(1, &nrows, CT_DTYPE_INT64, dev));
    ct_tensor *src = arange_on(s, n, dev);
    if (row == NULL || out == NULL || src == NULL ||
        (n > 0 && ct__device_scatter_add(out, row, src, 0) < 0)) {
        return NULL;
    }
    return tmp(s, ct_narrow(out, 0, 0, count));
}

/* out (new, of dt, shaped like index) = flat[index], flat one-dim on the
 * device, index int64 of values in range; NULL with the error set. */
static ct_tensor *
gather_flat(temps *s, const ct_tensor *flat, const ct_tensor *index, ct_dtype dt)
{
    int64_t m = index->numel;
    ct_tensor *out = ct_empty(index->ndim, index->sizes, dt, ct_tensor_device(flat));
    ct_tensor *i1 = out != NULL ? shaped(s, index, 1, &m) : NULL;
    ct_tensor *o1 = i1 != NULL ? tmp(s, ct_view(out, 1, &m)) : NULL;
    if (o1 == NULL || (m > 0 && ct__device_gather(o1, flat, i1, 0) < 0)) {
        ct_tensor_decref(out);
        return NULL;
    }
    return out;
}

ct_tensor *
ct__device_nonzero(const ct_tensor *t)
{
    temps s = {0};
    int nd = t->ndim;
    int64_t n = t->numel;
    ct_device dev = ct_tensor_device(t);
    ct_tensor *out = NULL;
    ct_tensor *flat = shaped(&s, t, 1, &n);
    ct_tensor *pos = flat != NULL ? true_positions(&s, flat) : NULL;
    if (pos == NULL) {
        goto done;
    }
    int64_t osz[2] = {pos->sizes[0], nd};
    if (nd == 0 || osz[0] == 0) {
        out = ct_empty(2, osz, CT_DTYPE_INT64, dev);
        goto done;
    }
    /* the coordinates of position p: q_d - size_d q_(d-1) with q_d =
     * floor(p / stride_d) (contiguous strides, q_(-1) = 0), the quotients
     * in float64: exact below 2^52 elements */
    int64_t strides[CT_MAX_DIMS];
    ct_contiguous_strides(nd, t->sizes, strides);
    ct_tensor *pf = in_dtype(&s, pos, CT_DTYPE_FLOAT64), *prev = NULL;   /* prev owned */
    out = pf != NULL ? ct_empty(2, osz, CT_DTYPE_INT64, dev) : NULL;
    for (int d = 0; d < nd && out != NULL; d++) {
        temps one = {0};
        ct_tensor *step = scalar(&one, ct_scalar_float((double)strides[d]));
        ct_tensor *q = un(&one, CT_UNARY_FLOOR, bin(&one, CT_BINARY_DIV, pf, step));
        q = in_dtype(&one, q, CT_DTYPE_INT64);
        ct_tensor *c = q;
        if (prev != NULL) {
            c = bin(&one, CT_BINARY_MUL, prev, scalar(&one, ct_scalar_int(t->sizes[d])));
            c = bin(&one, CT_BINARY_SUB, q, c);
        }
        ct_tensor *col = tmp(&one, ct_select(out, 1, d));
        ct_tensor_decref(prev);
        prev = q;
        if (c == NULL || col == NULL || ct_copy_(col, c) < 0) {
            ct_tensor_decref(out);
            out = NULL;
        }
        if (prev != NULL) {
            ct_tensor_incref(prev);
        }
        temps_free(&one);
    }
    ct_tensor_decref(prev);
done:
    temps_free(&s);
    return out;
}

ct_tensor *
ct__device_masked_select(const ct_tensor *t, const ct_tensor *mask, int nd,
                         const int64_t *shape)
{
    temps s = {0};
    ct_tensor *out = NULL;
    if (ct__same_device((const ct_tensor *const[]){t, mask}, 2) < 0) {
        return NULL;
    }
    int64_t n = ct_check_sizes(nd, shape);
    ct_tensor *te = tmp(&s, ct_expand(t, nd, shape));
    ct_tensor *me = tmp(&s, ct_expand(mask, nd, shape));
    ct_tensor *tf = shaped(&s, te, 1, &n), *mf = shaped(&s, me, 1, &n);
    ct_tensor *pos = tf != NULL && mf != NULL ? true_positions(&s, mf) : NULL;
    out = pos != NULL ? gather_flat(&s, tf, pos, t->dtype) : NULL;
    temps_free(&s);
    return out;
}

ct_tensor *
ct__device_take(const ct_tensor *t, const ct_tensor *index)
{
    temps s = {0};
    ct_tensor *out = NULL;
    bool bad = false;
    int64_t first = 0, n = t->numel;
    if (ct__same_device((const ct_tensor *const[]){t, index}, 2) < 0 ||
        ct__device_index_check(index, -n, n, &bad, &first) < 0) {
        return NULL;
    }
    if (bad) {
        ct_error(CT_ERR_INDEX, "out of range: tried to access index %lld on a tensor of "
                 "%lld elements.", (long long)first, (long long)n);
        return NULL;
    }
    ct_tensor *flat = shaped(&s, t, 1, &n);
    ct_tensor *i = in_dtype(&s, index, CT_DTYPE_INT64);
    ct_tensor *neg = bin(&s, CT_BINARY_LT, i, scalar(&s, ct_scalar_int(0)));
    ct_tensor *up = bin(&s, CT_BINARY_ADD, i, scalar(&s, ct_scalar_int(n)));
    i = neg != NULL && up != NULL ? tmp(&s, ct_where(neg, up, i)) : NULL;
    out = flat != NULL && i != NULL ? gather_flat(&s, flat, i, t->dtype) : NULL;
    temps_free(&s);
    return out;
}

/* The term of a whole dim d of t in the flat index (Note [Device
 * compaction]): 0 .. size-1 times stride, shaped with its size at result
 * dim at of nd.  Owned by s. */
static ct_tensor *
whole_term(temps *s, int64_t size, int64_t stride, int at, int nd, ct_device dev)
{
    int64_t line[CT_MAX_DIMS];
    for (int k = 0; k < nd; k++) {
        line[k] = k == at ? size : 1;
    }
    ct_tensor *a = arange_on(s, size, dev);
    a = bin(s, CT_BINARY_MUL, a, scalar(s, ct_scalar_int(stride)));
    return a != NULL ? tmp(s, ct_view(a, nd, line)) : NULL;
}

/* The flat source index of every element of an advanced indexing's
 * result (ct__device_index's plan), expanded to the result's sizes: its
 * row-major position in a contiguous copy of t.  Owned by s; NULL with
 * the error set (an index value out of range among them). */
static ct_tensor *
flat_offsets(temps *s, const ct_tensor *t, ct_tensor *const *idx, int first, int nb,
             const int64_t *bsizes, int nd, const int64_t *sizes)
{
    ct_device dev = ct_tensor_device(t);
    ct_tensor *off = NULL;                  /* owned: the sum so far */
    int64_t strides[CT_MAX_DIMS], bshape[CT_MAX_DIMS];
    ct_contiguous_strides(t->ndim, t->sizes, strides);
    /* the index block: the broadcast index dims at first, ones around */
    for (int k = 0; k < nd; k++) {
        bshape[k] = k >= first && k < first + nb ? bsizes[k - first] : 1;
    }
    /* whole dims fill the result's dims before the block, then after it */
    for (int d = 0, at = 0; d < t->ndim; d++) {
        temps one = {0};
        ct_tensor *term = NULL;
        bool bad = false;
        int64_t v = 0, size = t->sizes[d];
        if (idx[d] == NULL) {
            at = at == first ? first + nb : at;
            term = whole_term(&one, size, strides[d], at++, nd, dev);
        }
        else {
            ct_tensor *i = ct__is_device(idx[d]) ? idx[d]
                                                  : tmp(&one, ct_to_device(idx[d], dev));
            int rc = i != NULL ? ct__device_index_check(i, -size, size, &bad, &v) : -1;
            if (rc == 0 && bad) {
                rc = ct_error(CT_ERR_INDEX, "index %lld is out of bounds for dimension %d "
                              "with size %lld", (long long)v, d, (long long)size);
            }
            i = rc == 0 ? in_dtype(&one, i, CT_DTYPE_INT64) : NULL;
            ct_tensor *neg = bin(&one, CT_BINARY_LT, i, scalar(&one, ct_scalar_int(0)));
            ct_tensor *up = bin(&one, CT_BINARY_ADD, i, scalar(&one, ct_scalar_int(size)));
            i = neg != NULL && up != NULL ? tmp(&one, ct_where(neg, up, i)) : NULL;
            i = bin(&one, CT_BINARY_MUL, i, scalar(&one, ct_scalar_int(strides[d])));
            term = shaped(&one, i, nd, bshape);
        }
        ct_tensor *sum = term == NULL ? NULL
                         : off == NULL ? (ct_tensor_incref(term), term)
                                       : ct_add(off, term, ct_scalar_int(1));
        temps_free(&one);
        ct_tensor_decref(off);
        if ((off = sum) == NULL) {
            return NULL;
        }
    }
    tmp(s, off);
    return off != NULL ? tmp(s, ct_expand(off, nd, sizes)) : NULL;
}

ct_tensor *
ct__device_index(const ct_tensor *t, ct_tensor *const *idx, int first, int nb,
                 const int64_t *bsizes, int nd, const int64_t *sizes)
{
    temps s = {0};
    int64_t n = t->numel;
    if (t->ndim == 0) {
        return ct_clone(t);
    }
    ct_tensor *off = flat_offsets(&s, t, idx, first, nb, bsizes, nd, sizes);
    ct_tensor *flat = off != NULL ? shaped(&s, t, 1, &n) : NULL;
    ct_tensor *out = flat != NULL ? gather_flat(&s, flat, off, t->dtype) : NULL;
    temps_free(&s);
    return out;
}

int
ct__device_index_put_(ct_tensor *t, ct_tensor *const *idx, int first, int nb,
                      const int64_t *bsizes, int nd, const int64_t *sizes,
                      const ct_tensor *values, bool accumulate)
{
    temps s = {0};
    int64_t n = t->numel, m = ct_check_sizes(nd, sizes);
    int rc = -1;
    if (!ct__is_device(values) && values->ndim == 0) {
        /* a 0-dim CPU value stands as a number */
        values = tmp(&s, ct_to_device(values, ct_tensor_device(t)));
        if (values == NULL) {
            return -1;
        }
    }
    if (ct__same_device((const ct_tensor *const[]){t, values}, 2) < 0) {
        goto done;
    }
    if (t->ndim == 0) {
        /* t[()] = values or += values: one element */
        ct_tensor *v = accumulate ? tmp(&s, ct_add(t, values, ct_scalar_int(1))) : NULL;
        rc = !accumulate || v != NULL ? ct_copy_(t, accumulate ? v : values) : -1;
        goto done;
    }
    ct_tensor *off = flat_offsets(&s, t, idx, first, nb, bsizes, nd, sizes);
    if (off == NULL || m == 0) {
        rc = off == NULL ? -1 : 0;
        goto done;
    }
    /* into a contiguous copy, written back when t is not contiguous */
    ct_tensor *c = tmp(&s, ct_contiguous(t));
    ct_tensor *flat = shaped(&s, c, 1, &n);
    ct_tensor *fi = shaped(&s, off, 1, &m);
    ct_tensor *fv = tmp(&s, ct_expand(values, nd, sizes));
    fv = shaped(&s, fv, 1, &m);
    if (fv == NULL) {
        goto done;
    }
    if (accumulate) {
        rc = ct__device_scatter_add(flat, fi, fv, 0);
    }
    else {
        /* each target's last writer j (the CPU's pick among several, which
         * PyTorch's CUDA leaves undefined): the writers sorted by target,
         * stably, the last of each run adding j + 1 into zeros and the
         * others 0; then the writer's value where there is one */
        ct_device dev = ct_tensor_device(t);
        ct_tensor *who = tmp(&s, ct_zeros_on(1, &n, CT_DTYPE_INT64, dev));
        ct_tensor *st = NULL, *order = NULL;
        if (who == NULL || ct_sort(fi, 0, false, true, &st, &order) < 0) {
            goto done;
        }
        tmp(&s, st);
        tmp(&s, order);
        int64_t m1 = m - 1;
        ct_tensor *next = tmp(&s, ct_empty(1, &m, CT_DTYPE_INT64, dev));
        ct_tensor *tail = next != NULL ? tmp(&s, ct_narrow(next, 0, 0, m1)) : NULL;
        ct_tensor *end = next != NULL ? tmp(&s, ct_narrow(next, 0, m1, 1)) : NULL;
        ct_tensor *rest = tmp(&s, ct_narrow(st, 0, 1, m1));
        if (tail == NULL || end == NULL || rest == NULL || ct_copy_(tail, rest) < 0 ||
            ct_fill_(end, ct_scalar_int(-1)) < 0) {
            goto done;
        }
        ct_tensor *last = bin(&s, CT_BINARY_NE, st, next);
        ct_tensor *w = bin(&s, CT_BINARY_ADD, order, scalar(&s, ct_scalar_int(1)));
        w = bin(&s, CT_BINARY_MUL, w, last);
        if (w == NULL || ct__device_scatter_add(who, st, w, 0) < 0) {
            goto done;
        }
        ct_tensor *hit = bin(&s, CT_BINARY_GT, who, scalar(&s, ct_scalar_int(0)));
        ct_tensor *j = bin(&s, CT_BINARY_SUB, who, scalar(&s, ct_scalar_int(1)));
        j = bin(&s, CT_BINARY_MINIMUM, j, scalar(&s, ct_scalar_int(m - 1)));
        j = bin(&s, CT_BINARY_MAXIMUM, j, scalar(&s, ct_scalar_int(0)));
        ct_tensor *v = j != NULL ? tmp(&s, gather_flat(&s, fv, j, t->dtype)) : NULL;
        v = v != NULL && hit != NULL ? tmp(&s, ct_where(hit, v, flat)) : NULL;
        rc = v != NULL ? ct_copy_(flat, v) : -1;
    }
    if (rc == 0 && c != t) {
        rc = ct_copy_(t, c);
    }
done:
    temps_free(&s);
    return rc;
}
