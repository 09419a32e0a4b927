/* aten/device_count.c -- unique, unique_consecutive, bincount, histc,
 * searchsorted, bucketize and mode on a CUDA device, composed of its sort
 * (device_sort.c), scan (device_scan.c), compaction (device_select.c),
 * gather, scatter_add, where, pointwise and reduction kernels until the
 * part has kernels of their own.  The entry points of aten/cpu/sort_*.c
 * and reduce_scan.c make their checks and branch here; the results are
 * the CPU's bit for bit.
 *
 * Note [Device counting]
 * Runs of equal values are found as flags: element (or row) r starts a
 * run when r == 0 or it differs (!=) from r - 1, so -0.0 joins 0.0 and
 * every NaN stands alone, as the CPU's key and row comparisons decide.
 * unique stably sorts the values first (the CPU's radix order: a run's
 * first element is its earliest in the input).  The run values come
 * through masked_select or index_select (one host read, the count, as
 * PyTorch's CUDA kernels make), a run's number is the running count of
 * flags less one, and counts and inverse positions are scatter_adds of
 * int64 values into zeros, each exact.  unique(dim=) orders the rows by
 * stable sorts of their columns, last column first (the CPU's std::sort
 * of rows is unstable, but without NaN or -0.0 its groups and their order
 * are the same for any sort).
 * bincount and histc count with scatter_add too: bins of ones (int64,
 * exact) or of bincount's weights (floating sums whose order the device's
 * atomics choose, as PyTorch's CUDA ones do); an element outside [min,
 * max] goes to one extra dump bin that is dropped.
 * searchsorted is the CPU's binary search run for all values at once, a
 * fixed number of steps (the bit length of the row size) of gather,
 * compare and where.
 */
#include "aten/device_compose.h"
#include "aten/cpu/reduce_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ctorch/ops_index.h>
#include <ctorch/ops_sort.h>

/* The value of one-element t (a new reference or NULL, then owned by s),
 * read to the host. */
static int
item(temps *s, ct_tensor *t, ct_scalar *out)
{
    return tmp(s, t) != NULL ? ct_tensor_item(t, out) : -1;
}

/* A zeroed [n] tensor of dt on dev with src ([m]) added at index ([m]
 * int64, values in [0, n)); owned by s. */
static ct_tensor *
binned(temps *s, int64_t n, ct_dtype dt, const ct_tensor *index, const ct_tensor *src,
       ct_device dev)
{
    ct_tensor *z = tmp(s, ct_zeros_on(1, &n, dt, dev));
    if (z == NULL || index == NULL || src == NULL) {
        return NULL;
    }
    return index->numel == 0 || ct__device_scatter_add(z, index, src, 0) == 0 ? z : NULL;
}

/* Note [Device counting]: whether each row of x ([n, m], n >= 1) starts a
 * run, as [n] bool (owned by s). */
static ct_tensor *
run_starts(temps *s, const ct_tensor *x)
{
    if (x == NULL) {
        return NULL;
    }
    int64_t n = x->sizes[0], one = 1;
    ct_tensor *st = tmp(s, ct_empty(1, &n, CT_DTYPE_BOOL, ct_tensor_device(x)));
    ct_tensor *head = st != NULL ? tmp(s, ct_narrow(st, 0, 0, 1)) : NULL;
    if (head == NULL || ct_fill_(head, ct_scalar_bool(true)) < 0) {
        return NULL;
    }
    if (n == 1) {
        return st;
    }
    ct_tensor *ne = bin(s, CT_BINARY_NE, tmp(s, ct_narrow(x, 0, 1, n - 1)),
                        tmp(s, ct_narrow(x, 0, 0, n - 1)));
    ne = ne != NULL ? tmp(s, ct_any(ne, 1, &one, false)) : NULL;
    ct_tensor *rest = tmp(s, ct_narrow(st, 0, 1, n - 1));
    return ne != NULL && rest != NULL && ct_copy_(rest, ne) == 0 ? st : NULL;
}

/* The run numbers of flags starts ([n] bool): running count less one. */
static ct_tensor *
run_ids(temps *s, const ct_tensor *starts)
{
    ct_tensor *c = starts != NULL ? tmp(s, ct_cumsum(starts, 0, CT_DTYPE_COUNT)) : NULL;
    return bin(s, CT_BINARY_SUB, c, scalar(s, ct_scalar_int(1)));
}

/* counts of g runs numbered ids ([n] int64). */
static ct_tensor *
run_counts(temps *s, const ct_tensor *ids, int64_t g)
{
    if (ids == NULL) {
        return NULL;
    }
    ct_device dev = ct_tensor_device(ids);
    int64_t n = ids->numel;
    ct_tensor *one = tmp(s, ct_full_on(1, &n, ct_scalar_int(1), CT_DTYPE_INT64, dev));
    return binned(s, g, CT_DTYPE_INT64, ids, one, dev);
}

/* --- unique ---------------------------------------------------------------------- */

/* The results of a unique that found nothing: values of (vnd, vsizes), the
 * inverse of (ind, isizes), no counts. */
static int
unique_empty(const ct_tensor *t, int vnd, const int64_t *vsizes, int ind,
             const int64_t *isizes, ct_tensor **values, ct_tensor **inverse,
             ct_tensor **counts)
{
    ct_device dev = ct_tensor_device(t);
    int64_t zero = 0;
    int rc = (*values = ct_empty(vnd, vsizes, t->dtype, dev)) != NULL &&
             (inverse == NULL ||
              (*inverse = ct_empty(ind, isizes, CT_DTYPE_INT64, dev)) != NULL) &&
             (counts == NULL ||
              (*counts = ct_empty(1, &zero, CT_DTYPE_INT64, dev)) != NULL) ? 0 : -1;
    return settle(rc, values, inverse, counts);
}

int
ct__device_unique(const ct_tensor *t, ct_tensor **values, ct_tensor **inverse,
                  ct_tensor **counts)
{
    temps s = {0};
    int64_t n = t->numel;
    ct_device dev = ct_tensor_device(t);
    ct_tensor *sv = NULL, *perm = NULL;
    int rc = -1;
    if (n == 0) {
        return unique_empty(t, 1, &n, t->ndim, t->sizes, values, inverse, counts);
    }
    ct_tensor *flat = shaped(&s, t, 1, &n);
    if (flat == NULL || ct_sort(flat, 0, false, true, &sv, &perm) < 0) {
        goto done;
    }
    tmp(&s, sv);
    tmp(&s, perm);
    int64_t col[2] = {n, 1};
    ct_tensor *starts = run_starts(&s, shaped(&s, sv, 2, col));
    if (starts == NULL || (*values = ct_masked_select(sv, starts)) == NULL) {
        goto done;
    }
    ct_tensor *ids = inverse != NULL || counts != NULL ? run_ids(&s, starts) : NULL;
    if (inverse != NULL) {
        /* the element at perm[i] lies in run ids[i] */
        ct_tensor *inv = binned(&s, n, CT_DTYPE_INT64, perm, ids, dev);
        if (inv == NULL || (*inverse = ct_reshape(inv, t->ndim, t->sizes)) == NULL) {
            goto done;
        }
    }
    if (counts != NULL) {
        ct_tensor *c = run_counts(&s, ids, (*values)->numel);
        if (c == NULL) {
            goto done;
        }
        *counts = give(c);
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, values, inverse, counts);
}

/* unique_consecutive of the rows of in ([n, m], n >= 1): the first row of
 * each run (shaped vsizes with vsizes[0] the run count; vsizes is changed),
 * the run of each row shaped (ind, isizes), and the run lengths.  With
 * perm ([n] int64), in is a sorted copy whose row r was row perm[r]. */
static int
consecutive_rows(const ct_tensor *in, const ct_tensor *perm, int vnd, int64_t *vsizes,
                 int ind, const int64_t *isizes, ct_tensor **values, ct_tensor **inverse,
                 ct_tensor **counts)
{
    temps s = {0};
    int rc = -1;
    ct_tensor *starts = run_starts(&s, in);
    ct_tensor *pos = starts != NULL ? tmp(&s, ct_nonzero(starts)) : NULL;
    if (in == NULL || pos == NULL) {
        goto done;
    }
    int64_t g = pos->sizes[0];
    ct_tensor *first = shaped(&s, pos, 1, &g);
    ct_tensor *rows = first != NULL ? tmp(&s, ct_index_select(in, 0, first)) : NULL;
    vsizes[0] = g;
    if (rows == NULL || (*values = ct_reshape(rows, vnd, vsizes)) == NULL) {
        goto done;
    }
    ct_tensor *ids = inverse != NULL || counts != NULL ? run_ids(&s, starts) : NULL;
    ct_tensor *inv = perm != NULL ? binned(&s, in->sizes[0], CT_DTYPE_INT64, perm, ids,
                                           ct_tensor_device(in))
                                  : ids;
    if (inverse != NULL &&
        (inv == NULL || (*inverse = ct_reshape(inv, ind, isizes)) == NULL)) {
        goto done;
    }
    ct_tensor *c = counts != NULL ? run_counts(&s, ids, g) : NULL;
    if (counts != NULL && (*counts = give(c)) == NULL) {
        goto done;
    }
    rc = 0;
done:
    temps_free(&s);
    return settle(rc, values, inverse, counts);
}

int
ct__device_unique_consecutive(const ct_tensor *t, ct_tensor **values,
                              ct_tensor **inverse, ct_tensor **counts)
{
    int64_t n = t->numel, col[2] = {n, 1};
    if (n == 0) {
        return unique_empty(t, 1, &n, t->ndim, t->sizes, values, inverse, counts);
    }
    ct_tensor *in = ct_reshape(t, 2, col);
    if (in == NULL) {
        return -1;
    }
    int rc = consecutive_rows(in, NULL, 1, &n, t->ndim, t->sizes, values, inverse, counts);
    ct_tensor_decref(in);
    return rc;
}

/* The order of the rows of x ([n, m]) sorted lexicographically: a stable
 * sort by each column, last first; [n] int64 owned by s. */
static ct_tensor *
row_order(temps *s, const ct_tensor *x)
{
    int64_t n = x->sizes[0], m = x->sizes[1];
    ct_tensor *a = arange_on(s, n, ct_tensor_device(x));
    ct_tensor *perm = give(a);                              /* owned */
    for (int64_t k = m - 1; k >= 0 && perm != NULL; k--) {
        temps c = {0};
        ct_tensor *sv = NULL, *o = NULL, *next = NULL;
        ct_tensor *col = tmp(&c, ct_select(x, 1, k));
        col = col != NULL ? tmp(&c, ct_index_select(col, 0, perm)) : NULL;
        if (col != NULL && ct_sort(col, 0, false, true, &sv, &o) == 0) {
            tmp(&c, sv);
            tmp(&c, o);
            next = ct_index_select(perm, 0, o);
        }
        temps_free(&c);
        ct_tensor_decref(perm);
        perm = next;
    }
    return tmp(s, perm);
}

/* Whether a floating t holds a NaN or a -0.0 (one host read), the values
 * whose places in the CPU's std::sort of the rows its comparisons leave
 * open. */
static int
has_unordered(temps *s, const ct_tensor *t, bool *out)
{
    ct_scalar v;
    *out = false;
    if (!ct_dtype_is_floating(t->dtype)) {
        return 0;
    }
    ct_tensor *negz = bin(s, CT_BINARY_LOGICAL_AND,
                          bin(s, CT_BINARY_EQ, t, scalar(s, ct_scalar_int(0))),
                          un(s, CT_UNARY_SIGNBIT, t));
    ct_tensor *odd = bin(s, CT_BINARY_LOGICAL_OR, negz, un(s, CT_UNARY_ISNAN, t));
    if (odd == NULL || item(s, ct_any(odd, 0, NULL, false), &v) < 0) {
        return -1;
    }
    *out = ct_scalar_to_int(v) != 0;
    return 0;
}

/* unique(dim=) through the CPU's kernel on a host copy of t, the results
 * moved back with the CPU's layout. */
static int
unique_dim_on_host(const ct_tensor *t, int dim, ct_tensor **values, ct_tensor **inverse,
                   ct_tensor **counts)
{
    temps s = {0};
    ct_device dev = ct_tensor_device(t);
    ct_tensor *v = NULL, *i = NULL, *c = NULL;
    ct_tensor *h = tmp(&s, ct_to_device(t, ct_device_cpu()));
    int rc = h != NULL ? ct_unique_dim(h, dim, false, &v, inverse != NULL ? &i : NULL,
                                       counts != NULL ? &c : NULL) : -1;
    tmp(&s, v);
    tmp(&s, i);
    tmp(&s, c);
    if (rc == 0) {
        /* values: a transposed view of a contiguous tensor, as on the CPU */
        ct_tensor *base = tmp(&s, ct_transpose(v, 0, dim));
        ct_tensor *moved = base != NULL ? tmp(&s, ct_to_device(base, dev)) : NULL;
        rc = moved != NULL && (*values = ct_transpose(moved, 0, dim)) != NULL &&
             (i == NULL || (*inverse = ct_to_device(i, dev)) != NULL) &&
             (c == NULL || (*counts = ct_to_device(c, dev)) != NULL) ? 0 : -1;
    }
    temps_free(&s);
    return settle(rc, values, inverse, counts);
}

int
ct__device_unique_dim(const ct_tensor *t, int dim, bool consecutive, ct_tensor **values,
                      ct_tensor **inverse, ct_tensor **counts)
{
    temps s = {0};
    int64_t vsizes[CT_MAX_DIMS];
    bool odd = false;
    int rc = -1;
    if (!consecutive && (has_unordered(&s, t, &odd) < 0 || odd)) {
        temps_free(&s);
        return odd ? unique_dim_on_host(t, dim, values, inverse, counts) : -1;
    }
    /* Note [unique along a dim]: dim swapped to the front, the result
     * swapped back as a view */
    ct_tensor *tr = tmp(&s, ct_transpose(t, 0, dim));
    ct_tensor *in = tr != NULL ? tmp(&s, ct_contiguous(tr)) : NULL;
    if (in != NULL) {
        int64_t nrows = in->sizes[0], rs[2] = {nrows, in->numel / nrows};
        ct_tensor *v = NULL, *x = shaped(&s, in, 2, rs), *perm = NULL;
        if (!consecutive) {
            /* without NaN or -0.0, equal rows are equal bits and the order
             * is total: any sort's groups are the CPU's */
            perm = x != NULL ? row_order(&s, x) : NULL;
            x = perm != NULL ? tmp(&s, ct_index_select(x, 0, perm)) : NULL;
        }
        memcpy(vsizes, in->sizes, sizeof(int64_t) * (size_t)in->ndim);
        rc = x != NULL ? consecutive_rows(x, perm, in->ndim, vsizes, 1, &nrows, &v,
                                          inverse, counts) : -1;
        if (rc == 0) {
            *values = ct_transpose(tmp(&s, v), 0, dim);
            rc = *values != NULL ? 0 : -1;
        }
    }
    temps_free(&s);
    return settle(rc, values, inverse, counts);
}

/* --- bincount, histc ------------------------------------------------------------- */

ct_tensor *
ct__device_bincount(const ct_tensor *t, const ct_tensor *weights, int64_t minlength)
{
    temps s = {0};
    ct_device dev = ct_tensor_device(t);
    ct_tensor *out = NULL;
    ct_scalar lo = ct_scalar_int(0), hi;
    if (ct__same_device((const ct_tensor *const[]){t, weights}, 2) < 0) {
        return NULL;
    }
    if (t->ndim == 1 && t->numel == 0) {
        return ct_zeros_on(1, &minlength, CT_DTYPE_INT64, dev);
    }
    /* the reads PyTorch's CUDA bincount makes too: the least and largest
     * value */
    if (t->ndim == 1 && item(&s, ct_min(t), &lo) < 0) {
        goto done;
    }
    if (t->ndim != 1 || ct_scalar_to_int(lo) < 0) {
        ct_error(CT_ERR_RUNTIME, "bincount only supports 1-d non-negative integral "
                 "inputs.");
        goto done;
    }
    if (weights != NULL && (weights->ndim != 1 || weights->numel != t->numel)) {
        ct_error(CT_ERR_RUNTIME, "weights should be 1-d and have the same length as "
                 "input");
        goto done;
    }
    if ((weights != NULL && ct__reduce_check_numeric("bincount_cpu", weights) < 0) ||
        item(&s, ct_max(t), &hi) < 0) {
        goto done;
    }
    int64_t top = ct_scalar_to_int(hi) + 1, len = top > minlength ? top : minlength;
    ct_tensor *idx = in_dtype(&s, t, CT_DTYPE_INT64);
    ct_tensor *b;
    if (weights == NULL) {
        b = run_counts(&s, idx, len);
    }
    else {
        /* the CPU adds float32 weights in float, the others in double */
        ct_dtype wdt = weights->dtype == CT_DTYPE_FLOAT32 ? CT_DTYPE_FLOAT32
                                                          : CT_DTYPE_FLOAT64;
        b = binned(&s, len, wdt, idx, in_dtype(&s, weights, wdt), dev);
    }
    out = give(b);
done:
    temps_free(&s);
    return out;
}

/* v as the CPU's histc sees it: rounded to dt's compute type, then to dt
 * (rnd_S((A)v) of aten/cpu/sort_count.c); a 0-dim CPU tensor of dt. */
static ct_tensor *
histc_number(temps *s, ct_scalar v, ct_dtype dt)
{
    ct_tensor *a = tmp(s, ct_full(0, NULL, v, accumulate_dtype(dt)));
    return in_dtype(s, a, dt);
}

ct_tensor *
ct__device_histc(const ct_tensor *t, int64_t bins, double min, double max)
{
    temps s = {0};
    ct_dtype dt = t->dtype;
    int64_t n = t->numel;
    /* the CPU's bin arithmetic, each step rounded to dt as the device's
     * binary kernels round theirs: pos = (int64)(((e - l) * nb) / w) */
    ct_tensor *l = histc_number(&s, ct_scalar_float(min), dt);
    ct_tensor *h = histc_number(&s, ct_scalar_float(max), dt);
    ct_tensor *nb = histc_number(&s, ct_scalar_int(bins), dt);
    ct_tensor *w = bin(&s, CT_BINARY_SUB, h, l);
    ct_tensor *in = bin(&s, CT_BINARY_LOGICAL_AND, bin(&s, CT_BINARY_GE, t, l),
                        bin(&s, CT_BINARY_LE, t, h));
    ct_tensor *q = bin(&s, CT_BINARY_MUL, bin(&s, CT_BINARY_SUB, t, l), nb);
    q = bin(&s, CT_BINARY_DIV, q, w);
    q = where3(&s, in, q, scalar(&s, ct_scalar_int(0)));
    ct_tensor *pos = in_dtype(&s, q, CT_DTYPE_INT64);
    /* max, or past it where bfloat16 rounded bins up: the last bin, as the
     * CPU's */
    pos = bin(&s, CT_BINARY_MINIMUM, pos, scalar(&s, ct_scalar_int(bins - 1)));
    /* outside [min, max]: the dump bin */
    pos = where3(&s, in, pos, scalar(&s, ct_scalar_int(bins)));
    ct_tensor *c = run_counts(&s, shaped(&s, pos, 1, &n), bins + 1);
    c = c != NULL ? tmp(&s, ct_narrow(c, 0, 0, bins)) : NULL;
    ct_tensor *out = c != NULL ? result(&s, c, dt, 1, &bins) : NULL;
    temps_free(&s);
    return out;
}

/* --- searchsorted ---------------------------------------------------------------- */

typedef struct {
    const ct_tensor *seq, *sorter;  /* [R, nb] */
    const ct_tensor *vals;          /* [R, per] */
    const ct_tensor *vnan;          /* isnan(vals), NULL for integers */
    const ct_tensor *below;         /* [R, per] bool, or NULL: all true */
    int64_t nb;
    bool right;
} search;

/* Whether key(b) < key(v) (v_first: key(v) < key(b)) for the row values
 * b in Note [Sort keys]'s order: NaN the largest value, -0.0 equal to
 * 0.0. */
static ct_tensor *
key_less(temps *s, const search *sr, const ct_tensor *b, bool v_first)
{
    ct_tensor *lt = v_first ? bin(s, CT_BINARY_LT, sr->vals, b)
                            : bin(s, CT_BINARY_LT, b, sr->vals);
    if (sr->vnan == NULL) {
        return lt;
    }
    ct_tensor *bnan = un(s, CT_UNARY_ISNAN, b);
    ct_tensor *nan_last = v_first
        ? bin(s, CT_BINARY_GT, bnan, sr->vnan)      /* b NaN, v not */
        : bin(s, CT_BINARY_GT, sr->vnan, bnan);
    return bin(s, CT_BINARY_LOGICAL_OR, lt, nan_last);
}

/* One step of the CPU's search_row for every value: lo and hi ([R, per]
 * int64, owned by the caller) replaced. */
static int
search_step(const search *sr, ct_tensor **lo, ct_tensor **hi)
{
    temps s = {0};
    ct_tensor *active = bin(&s, CT_BINARY_LT, *lo, *hi);
    ct_tensor *half = bin(&s, CT_BINARY_RSHIFT, bin(&s, CT_BINARY_SUB, *hi, *lo),
                          scalar(&s, ct_scalar_int(1)));
    ct_tensor *mid = bin(&s, CT_BINARY_ADD, *lo, half);
    /* mid < nb where the search is active; elsewhere any place will do */
    ct_tensor *at = bin(&s, CT_BINARY_MINIMUM, mid, scalar(&s, ct_scalar_int(sr->nb - 1)));
    ct_tensor *valid = NULL;
    if (sr->sorter != NULL) {
        /* the CPU reads a sorter entry outside the row as key 0 */
        at = gathered(&s, sr->sorter, at);
        valid = bin(&s, CT_BINARY_LOGICAL_AND,
                    bin(&s, CT_BINARY_GE, at, scalar(&s, ct_scalar_int(0))),
                    bin(&s, CT_BINARY_LT, at, scalar(&s, ct_scalar_int(sr->nb))));
        at = bin(&s, CT_BINARY_MAXIMUM, bin(&s, CT_BINARY_MINIMUM, at,
                                            scalar(&s, ct_scalar_int(sr->nb - 1))),
                 scalar(&s, ct_scalar_int(0)));
    }
    ct_tensor *b = gathered(&s, sr->seq, at);
    /* go right: key(b) < key(v), or <= with right */
    ct_tensor *go = sr->right ? un(&s, CT_UNARY_LOGICAL_NOT, key_less(&s, sr, b, true))
                              : key_less(&s, sr, b, false);
    if (valid != NULL) {
        /* key 0 is <= every key, and < all but key 0 (int64's least value) */
        if (sr->right || sr->below == NULL) {
            go = bin(&s, CT_BINARY_LOGICAL_OR, go, un(&s, CT_UNARY_LOGICAL_NOT, valid));
        }
        else {
            go = where3(&s, valid, go, sr->below);
        }
    }
    ct_tensor *stay = bin(&s, CT_BINARY_LOGICAL_AND, active,
                          un(&s, CT_UNARY_LOGICAL_NOT, go));
    go = bin(&s, CT_BINARY_LOGICAL_AND, active, go);
    ct_tensor *up = bin(&s, CT_BINARY_ADD, mid, scalar(&s, ct_scalar_int(1)));
    ct_tensor *nlo = go != NULL && up != NULL ? ct_where(go, up, *lo) : NULL;
    ct_tensor *nhi = stay != NULL && mid != NULL && nlo != NULL ? ct_where(stay, mid, *hi)
                                                                 : NULL;
    temps_free(&s);
    if (nhi == NULL) {
        ct_tensor_decref(nlo);
        return -1;
    }
    ct_tensor_decref(*lo);
    ct_tensor_decref(*hi);
    *lo = nlo;
    *hi = nhi;
    return 0;
}

ct_tensor *
ct__device_searchsorted(const ct_tensor *seq, const ct_tensor *values, ct_dtype common,
                        bool out_int32, bool right, const ct_tensor *sorter)
{
    temps s = {0};
    char a[32], b[32];
    ct_device dev = ct_tensor_device(seq);
    ct_dtype odt = out_int32 ? CT_DTYPE_INT32 : CT_DTYPE_INT64;
    ct_tensor *out = NULL, *lo = NULL, *hi = NULL;
    if (!ct_device_eq(dev, ct_tensor_device(values))) {
        if (!ct__is_device(seq) || ct__is_device(values) || values->ndim != 0) {
            ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): boundaries and input value "
                     "tensors should have same device type, but got boundaries tensor "
                     "device type %s and input value tensor device type %s",
                     ct__device_text(dev, a, sizeof a),
                     ct__device_text(ct_tensor_device(values), b, sizeof b));
            return NULL;
        }
        /* a number (PyTorch's Scalar overload moves it to the device) */
        values = tmp(&s, ct_to_device(values, dev));
        if (values == NULL) {
            return NULL;
        }
    }
    if (sorter != NULL && !ct_device_eq(dev, ct_tensor_device(sorter))) {
        ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): sorter and boundary tensors "
                 "should have same device type, but got sorter tensor device type %s and "
                 "input value tensor device type %s",
                 ct__device_text(ct_tensor_device(sorter), a, sizeof a),
                 ct__device_text(dev, b, sizeof b));
        goto done;
    }
    int64_t nb = seq->sizes[seq->ndim - 1], m = values->numel;
    if (m == 0 || nb == 0) {
        out = ct_zeros_on(values->ndim, values->sizes, odt, dev);
        goto done;
    }
    int64_t per = seq->ndim > 1 ? values->sizes[values->ndim - 1] : m;
    int64_t rs[2] = {m / per, per}, ss[2] = {m / per, nb};
    ct_dtype cdt = common == CT_DTYPE_BOOL ? CT_DTYPE_UINT8 : common;
    search sr = {
        .seq = shaped(&s, in_dtype(&s, seq, cdt), 2, ss),
        .sorter = sorter != NULL ? shaped(&s, sorter, 2, ss) : NULL,
        .vals = shaped(&s, in_dtype(&s, values, cdt), 2, rs),
        .nb = nb, .right = right,
    };
    if (ct_dtype_is_floating(cdt) && (sr.vnan = un(&s, CT_UNARY_ISNAN, sr.vals)) == NULL) {
        goto done;
    }
    if (sorter != NULL && cdt == CT_DTYPE_INT64) {
        sr.below = bin(&s, CT_BINARY_NE, sr.vals, scalar(&s, ct_scalar_int(INT64_MIN)));
        if (sr.below == NULL) {
            goto done;
        }
    }
    if (sr.seq == NULL || sr.vals == NULL || (sorter != NULL && sr.sorter == NULL) ||
        (lo = ct_zeros_on(2, rs, CT_DTYPE_INT64, dev)) == NULL ||
        (hi = ct_full_on(2, rs, ct_scalar_int(nb), CT_DTYPE_INT64, dev)) == NULL) {
        goto done;
    }
    /* each step at least halves hi - lo: the bit length of nb of them */
    for (int64_t w = nb; w > 0; w >>= 1) {
        if (search_step(&sr, &lo, &hi) < 0) {
            goto done;
        }
    }
    out = result(&s, lo, odt, values->ndim, values->sizes);
done:
    ct_tensor_decref(lo);
    ct_tensor_decref(hi);
    temps_free(&s);
    return out;
}

/* --- mode ------------------------------------------------------------------------ */

/* Note [Device mode]
 * The CPU's mode (aten/cpu/reduce_scan.c) sorts a line's positions by
 * value with std::sort, which is not stable, and returns the last position
 * of the first longest run (runs split by !=, so each NaN stands alone):
 * the index depends on libstdc++'s steps (Note [libstdc++ order]).  Up to
 * 16 elements std::sort is one insertion sort, which the device replays
 * for all lines at once: step i takes element i to the front when it is
 * less than the first element, else just behind the nearest element
 * before it that it is not less than (a NaN stops it, as on the CPU), one
 * gather through a computed order per step.  The runs' ends and lengths
 * then come from comparisons and a running maximum, the first longest
 * through argmax.  Longer lines take the CPU's kernel on a host copy (an
 * introsort does not compose of these kernels; PyTorch's CUDA mode too
 * reads each long line's result to the host). */
#define MODE_SHORT 16

/* The CPU's std::sort order of each row of x ([B, n], n <= MODE_SHORT) as
 * [B, n] positions, and the values in that order (*sorted); owned by s. */
static ct_tensor *
insertion_order(temps *s, const ct_tensor *x, ct_tensor **sorted)
{
    int64_t n = x->sizes[1], row[2] = {1, n}, one = 1;
    ct_tensor *ar = arange_on(s, n, ct_tensor_device(x));
    ar = ar != NULL ? tmp(s, ct_view(ar, 2, row)) : NULL;
    ct_tensor *p0 = ar != NULL ? tmp(s, ct_expand(ar, 2, x->sizes)) : NULL;
    ct_tensor *P = p0 != NULL ? ct_contiguous(p0) : NULL;       /* owned */
    ct_tensor *V = P != NULL ? ct_contiguous(x) : NULL;         /* owned */
    for (int64_t i = 1; i < n && V != NULL; i++) {
        temps k = {0};
        ct_tensor *val = tmp(&k, ct_narrow(V, 1, i, 1));
        ct_tensor *front = bin(&k, CT_BINARY_LT, val, tmp(&k, ct_narrow(V, 1, 0, 1)));
        ct_tensor *stops = un(&k, CT_UNARY_LOGICAL_NOT,
                              bin(&k, CT_BINARY_LT, val, tmp(&k, ct_narrow(V, 1, 0, i))));
        ct_tensor *at = where3(&k, stops, tmp(&k, ct_narrow(ar, 1, 0, i)),
                               scalar(&k, ct_scalar_int(-1)));
        at = at != NULL ? tmp(&k, ct_amax(at, 1, &one, true)) : NULL;
        ct_tensor *p = where3(&k, front, scalar(&k, ct_scalar_int(0)),
                              bin(&k, CT_BINARY_ADD, at, scalar(&k, ct_scalar_int(1))));
        /* column c takes c before p, i at p, c - 1 up to i, c after i */
        ct_tensor *upto = bin(&k, CT_BINARY_LE, ar, scalar(&k, ct_scalar_int(i)));
        ct_tensor *back = bin(&k, CT_BINARY_SUB, ar, scalar(&k, ct_scalar_int(1)));
        ct_tensor *shift = where3(&k, upto, back, ar);
        ct_tensor *src = where3(&k, bin(&k, CT_BINARY_EQ, ar, p),
                                scalar(&k, ct_scalar_int(i)), shift);
        src = where3(&k, bin(&k, CT_BINARY_LT, ar, p), ar, src);
        ct_tensor *nP = give(gathered(&k, P, src)), *nV = give(gathered(&k, V, src));
        temps_free(&k);
        ct_tensor_decref(P);
        ct_tensor_decref(V);
        P = nP;
        V = nV;
        if (P == NULL || V == NULL) {
            ct_tensor_decref(P);
            ct_tensor_decref(V);
            P = V = NULL;
        }
    }
    if (V == NULL) {
        ct_tensor_decref(P);
        P = NULL;
    }
    *sorted = tmp(s, V);
    return tmp(s, P);
}

/* The CPU's pick in each row of x ([B, n], n <= MODE_SHORT): the [B, 1]
 * position of the last element of the first longest run in insertion
 * order; owned by s. */
static ct_tensor *
mode_pick(temps *s, const ct_tensor *x)
{
    int64_t n = x->sizes[1], row[2] = {1, n}, one = 1;
    ct_device dev = ct_tensor_device(x);
    ct_tensor *V = NULL;
    ct_tensor *P = insertion_order(s, x, &V);
    ct_tensor *ar = arange_on(s, n, dev);
    ar = ar != NULL ? tmp(s, ct_view(ar, 2, row)) : NULL;
    ct_tensor *end = tmp(s, ct_empty(2, x->sizes, CT_DTYPE_BOOL, dev));
    ct_tensor *lastc = end != NULL ? tmp(s, ct_narrow(end, 1, n - 1, 1)) : NULL;
    if (P == NULL || ar == NULL || lastc == NULL ||
        ct_fill_(lastc, ct_scalar_bool(true)) < 0) {
        return NULL;
    }
    if (n > 1) {
        ct_tensor *ne = bin(s, CT_BINARY_NE, tmp(s, ct_narrow(V, 1, 0, n - 1)),
                            tmp(s, ct_narrow(V, 1, 1, n - 1)));
        ct_tensor *head = tmp(s, ct_narrow(end, 1, 0, n - 1));
        if (ne == NULL || head == NULL || ct_copy_(head, ne) < 0) {
            return NULL;
        }
    }
    /* a run's length: its end less the previous run's end */
    ct_tensor *ends = where3(s, end, ar, scalar(s, ct_scalar_int(-1)));
    ct_tensor *prev = tmp(s, ct_empty(2, x->sizes, CT_DTYPE_INT64, dev));
    ct_tensor *p0 = prev != NULL ? tmp(s, ct_narrow(prev, 1, 0, 1)) : NULL;
    if (ends == NULL || p0 == NULL || ct_fill_(p0, ct_scalar_int(-1)) < 0 ||
        (n > 1 && ct_copy_(tmp(s, ct_narrow(prev, 1, 1, n - 1)),
                           tmp(s, ct_narrow(ends, 1, 0, n - 1))) < 0)) {
        return NULL;
    }
    ct_tensor *pv = NULL, *pi = NULL;
    if (ct_cummax(prev, 1, &pv, &pi) < 0) {
        return NULL;
    }
    tmp(s, pv);
    tmp(s, pi);
    ct_tensor *len = where3(s, end, bin(s, CT_BINARY_SUB, ar, pv),
                            scalar(s, ct_scalar_int(0)));
    ct_tensor *k = len != NULL ? tmp(s, ct_argmax(len, &one, true)) : NULL;
    return gathered(s, P, k);
}

int
ct__device_mode(const ct_tensor *t, int dim, bool keepdim, ct_tensor **values,
                ct_tensor **indices)
{
    temps s = {0};
    int64_t sizes[CT_MAX_DIMS], perm[CT_MAX_DIMS];
    int nd = 0, rc = -1;
    int64_t n = t->ndim > 0 ? t->sizes[dim] : 1;
    *values = *indices = NULL;
    for (int i = 0; i < t->ndim; i++) {
        if (i != dim || keepdim) {
            sizes[nd++] = i == dim ? 1 : t->sizes[i];
        }
        if (i != dim) {
            perm[i < dim ? i : i - 1] = i;
        }
    }
    if (t->numel == 0) {
        ct_device dev = ct_tensor_device(t);
        rc = (*values = ct_empty(nd, sizes, t->dtype, dev)) != NULL &&
             (*indices = ct_empty(nd, sizes, CT_DTYPE_INT64, dev)) != NULL ? 0 : -1;
        return settle(rc, values, indices, NULL);
    }
    if (n > MODE_SHORT) {
        /* Note [Device mode]: the CPU's kernel on a host copy */
        ct_tensor *h = tmp(&s, ct_to_device(t, ct_device_cpu())), *hv = NULL, *hi = NULL;
        if (h != NULL && ct_mode(h, dim, keepdim, &hv, &hi) == 0) {
            tmp(&s, hv);
            tmp(&s, hi);
            *values = ct_to_device(hv, ct_tensor_device(t));
            *indices = *values != NULL ? ct_to_device(hi, ct_tensor_device(t)) : NULL;
            rc = *indices != NULL ? 0 : -1;
        }
        temps_free(&s);
        return settle(rc, values, indices, NULL);
    }
    /* the lines as rows [B, n], dim moved last, the others kept in order */
    int64_t rs[2] = {t->numel / n, n};
    const ct_tensor *lines = t;
    if (t->ndim > 0) {
        perm[t->ndim - 1] = dim;
        lines = tmp(&s, ct_permute(t, t->ndim, perm));
    }
    ct_tensor *x = lines != NULL ? shaped(&s, lines, 2, rs) : NULL;
    ct_tensor *idx = x != NULL ? mode_pick(&s, x) : NULL;
    ct_tensor *val = gathered(&s, x, idx);
    if (val != NULL) {
        *values = result(&s, val, t->dtype, nd, sizes);
        *indices = *values != NULL ? result(&s, idx, CT_DTYPE_INT64, nd, sizes) : NULL;
        rc = *indices != NULL ? 0 : -1;
    }
    temps_free(&s);
    return settle(rc, values, indices, NULL);
}
