/* aten/device_sort.c -- sort, argsort, topk, kthvalue, median and
 * nanmedian along one dim on a CUDA device, composed of the device's
 * copy, fill, pointwise, where, reduction and gather kernels until the
 * part has sorting kernels.
 *
 * Note [Device bitonic sort]
 * The input is viewed as rows [B, n] (the op's dim last) and padded to
 * P = the next power of two.  Each element becomes a (key, rank) pair: the
 * key orders like its value (NaN as +inf), the rank is an int64 that
 * orders equal keys and keeps the classes apart:
 *   ascending:  numbers i, NaNs P + i (after a real +inf), padding 2P + p;
 *   descending: NaNs i (before a real +inf), numbers P + i, padding 2P + p;
 * i being the element's index in its row.  Padding takes a key after every
 * element's, so it never mixes into a row's first n places.  Pairs order
 * lexicographically by (key, rank) and are all distinct, so the result is
 * the stable order of the CPU's radix sort (Note [Sort keys]): equal
 * values keep their input order in both directions, NaN is the largest
 * value, -0.0 equals 0.0.
 *
 * Dtypes of at most 4 bytes pack a pair into one int64, key * 4P + rank,
 * with an integer key: the value itself (negated to sort descending), or
 * for floating dtypes the bits of its float32 (-0.0 + 0.0 first), made
 * monotone (negative values: INT32_MIN - bits); padding holds
 * (2^31 + 1) * 4P.  int64 and float64 keep keys (in their dtype, padding
 * the order's last value) and ranks as two tensors and compare both.
 *
 * The pairs pass a bitonic network in the form whose comparators all put
 * the smaller pair at the lower position: block size k = 2, 4, ..., P, a
 * first step pairing p with its mirror p ^ (k - 1) in its block, then
 * steps pairing p with p ^ j, j = k/4, ..., 1.  Each step gathers the
 * partner pairs through a partner table and keeps the partner's pair
 * where where() says: four kernels a step for packed pairs, ten for two
 * tensors, log2(P) (log2(P) + 1) / 2 steps.  The partner tables of all the
 * steps are built on the host and copied once per call (for large P they
 * are made per step on the device from a copied arange instead).  Indices
 * are rank mod P; values are gathered from the input through them, so
 * they are the input's own elements, bit for bit.
 *
 * topk and kthvalue take slices of the sorted rows; median's and
 * nanmedian's position per row (CPU: aten/cpu/reduce_scan.c) is computed
 * on the device from the row's NaN count and gathered, so nothing is read
 * back to the host.
 */
#include "aten/device_compose.h"
#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/sort_impl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ctorch/ops_index.h>

/* The last value of the order: what padding holds. */
static ct_scalar
pad_value(ct_dtype dt, bool descending)
{
    if (ct_dtype_is_floating(dt)) {
        return ct_scalar_float(descending ? -INFINITY : INFINITY);
    }
    switch (dt) {
    case CT_DTYPE_UINT8:
        return ct_scalar_int(descending ? 0 : UINT8_MAX);
    case CT_DTYPE_INT8:
        return ct_scalar_int(descending ? INT8_MIN : INT8_MAX);
    case CT_DTYPE_INT16:
        return ct_scalar_int(descending ? INT16_MIN : INT16_MAX);
    case CT_DTYPE_INT32:
        return ct_scalar_int(descending ? INT32_MIN : INT32_MAX);
    default:
        return ct_scalar_int(descending ? INT64_MIN : INT64_MAX);
    }
}

static ct_tensor *
narrowed(temps *s, const ct_tensor *t, int64_t start, int64_t len)
{
    return t != NULL ? tmp(s, ct_narrow(t, 1, start, len)) : NULL;
}

/* The initial ranks of every row (before the NaN classes): i for the n
 * elements, 2P + p for the padding; [P] int64 on dev. */
static ct_tensor *
rank_table(temps *s, int64_t n, int64_t P, ct_device dev)
{
    ct_tensor *h = tmp(s, ct_empty(1, &P, CT_DTYPE_INT64, ct_device_cpu()));
    if (h == NULL) {
        return NULL;
    }
    int64_t *p = (int64_t *)ct_tensor_data(h);
    for (int64_t i = 0; i < P; i++) {
        p[i] = i < n ? i : 2 * P + i;
    }
    return tmp(s, ct_to_device(h, dev));
}

/* The masks of the network's steps, in order: p meets p ^ mask. */
static int64_t
step_masks(int64_t P, int64_t *masks)
{
    int64_t ns = 0;
    for (int64_t k = 2; k <= P; k *= 2) {
        for (int64_t j = k / 2; j >= 1; j /= 2) {
            masks[ns++] = j == k / 2 ? k - 1 : j;
        }
    }
    return ns;
}

/* Partner tables of every step at most this big are built on the host and
 * copied once; larger ones are made per step on the device. */
#define HOST_TABLE_MAX (INT64_C(1) << 22)

typedef struct {
    int64_t P, ns, masks[64 * 65 / 2];
    ct_tensor *part, *lower;    /* [ns, P] int64 and bool, or NULL */
    ct_tensor *ar;              /* [P] int64 arange when they are NULL */
} steps;

static int
steps_init(temps *s, int64_t P, ct_device dev, steps *st)
{
    st->P = P;
    st->ns = step_masks(P, st->masks);
    st->part = st->lower = st->ar = NULL;
    int64_t sz[2] = {st->ns, P};
    if (st->ns == 0) {
        return 0;
    }
    if (st->ns * P > HOST_TABLE_MAX) {
        ct_tensor *h = tmp(s, ct_empty(1, &P, CT_DTYPE_INT64, ct_device_cpu()));
        if (h == NULL) {
            return -1;
        }
        for (int64_t i = 0; i < P; i++) {
            ((int64_t *)ct_tensor_data(h))[i] = i;
        }
        st->ar = tmp(s, ct_to_device(h, dev));
        return st->ar != NULL ? 0 : -1;
    }
    ct_tensor *hp = tmp(s, ct_empty(2, sz, CT_DTYPE_INT64, ct_device_cpu()));
    ct_tensor *hl = tmp(s, ct_empty(2, sz, CT_DTYPE_BOOL, ct_device_cpu()));
    if (hp == NULL || hl == NULL) {
        return -1;
    }
    int64_t *pp = (int64_t *)ct_tensor_data(hp);
    bool *lp = (bool *)ct_tensor_data(hl);
    for (int64_t k = 0; k < st->ns; k++) {
        for (int64_t i = 0; i < P; i++) {
            pp[k * P + i] = i ^ st->masks[k];
            lp[k * P + i] = i < (i ^ st->masks[k]);
        }
    }
    st->part = tmp(s, ct_to_device(hp, dev));
    st->lower = tmp(s, ct_to_device(hl, dev));
    return st->part != NULL && st->lower != NULL ? 0 : -1;
}

/* Step k's partners ([1, P] int64) and whether each position is the lower
 * of its pair ([P] bool); owned by s. */
static int
step_tables(temps *s, const steps *st, int64_t k, ct_tensor **part, ct_tensor **lower)
{
    int64_t row[2] = {1, st->P};
    ct_tensor *p, *l;
    if (st->part != NULL) {
        p = tmp(s, ct_select(st->part, 0, k));
        l = tmp(s, ct_select(st->lower, 0, k));
    }
    else {
        p = bin(s, CT_BINARY_BITWISE_XOR, st->ar, scalar(s, ct_scalar_int(st->masks[k])));
        l = bin(s, CT_BINARY_LT, st->ar, p);
    }
    *part = p != NULL ? tmp(s, ct_view(p, 2, row)) : NULL;
    *lower = l;
    return *part != NULL && *lower != NULL ? 0 : -1;
}

/* One step of the network (Note [Device bitonic sort]) over keys *v and
 * ranks *r ([B, P], owned by the caller and replaced), or, when v is
 * NULL, over packed pairs *r alone. */
static int
network_step(const steps *st, int64_t k, ct_tensor **v, ct_tensor **r, bool descending)
{
    temps s = {0};
    int64_t bp[2] = {(*r)->sizes[0], (*r)->sizes[1]};
    ct_tensor *part = NULL, *lower = NULL, *nv = NULL, *nr = NULL;
    if (step_tables(&s, st, k, &part, &lower) < 0) {
        temps_free(&s);
        return -1;
    }
    ct_tensor *px = tmp(&s, ct_expand(part, 2, bp));
    ct_tensor *rq = gathered(&s, *r, px);
    ct_tensor *less, *vq = NULL;
    /* less: the pair before its partner's; the lower position takes the
     * smaller pair, so it swaps when !less, the upper one when less */
    if (v == NULL) {
        less = bin(&s, CT_BINARY_LT, *r, rq);
    }
    else {
        vq = gathered(&s, *v, px);
        ct_tensor *before = bin(&s, descending ? CT_BINARY_GT : CT_BINARY_LT, *v, vq);
        ct_tensor *tie = bin(&s, CT_BINARY_LOGICAL_AND, bin(&s, CT_BINARY_EQ, *v, vq),
                             bin(&s, CT_BINARY_LT, *r, rq));
        less = bin(&s, CT_BINARY_LOGICAL_OR, before, tie);
    }
    ct_tensor *swap = bin(&s, CT_BINARY_NE, less, lower);
    nr = swap != NULL ? ct_where(swap, rq, *r) : NULL;
    if (nr != NULL && v != NULL && (nv = ct_where(swap, vq, *v)) == NULL) {
        ct_tensor_decref(nr);
        nr = NULL;
    }
    temps_free(&s);
    if (nr == NULL) {
        ct_tensor_decref(nv);
        return -1;
    }
    if (v != NULL) {
        ct_tensor_decref(*v);
        *v = nv;
    }
    ct_tensor_decref(*r);
    *r = nr;
    return 0;
}

/* An int64 key of each element of x ([B, n], at most 4 bytes an element)
 * whose order is the values' (NaN as +inf, -0.0 as 0.0), negated for a
 * descending sort: |key| <= 2^31.  Floating values go through float32's
 * bits, sign-magnitude made monotone.  Owned by s. */
static ct_tensor *
small_keys(temps *s, const ct_tensor *x, const ct_tensor *nan, bool descending)
{
    ct_tensor *key;
    if (nan == NULL) {
        key = in_dtype(s, x, CT_DTYPE_INT64);
    }
    else {
        ct_tensor *inf = scalar(s, ct_scalar_float(INFINITY));
        ct_tensor *w = inf != NULL ? tmp(s, ct_where(nan, inf, x)) : NULL;
        ct_tensor *f = bin(s, CT_BINARY_ADD, in_dtype(s, w, CT_DTYPE_FLOAT32),
                           scalar(s, ct_scalar_float(0.0)));      /* -0.0 + 0.0 */
        f = f != NULL ? tmp(s, ct_contiguous(f)) : NULL;
        ct_tensor *bits = f != NULL ? tmp(s, ct_tensor_new(f->storage, f->offset, f->ndim,
                                                           f->sizes, f->strides,
                                                           CT_DTYPE_INT32))
                                    : NULL;
        ct_tensor *b = in_dtype(s, bits, CT_DTYPE_INT64);
        ct_tensor *neg = bin(s, CT_BINARY_LT, b, scalar(s, ct_scalar_int(0)));
        ct_tensor *mag = bin(s, CT_BINARY_SUB, scalar(s, ct_scalar_int(INT32_MIN)), b);
        key = neg != NULL && mag != NULL ? tmp(s, ct_where(neg, mag, b)) : NULL;
    }
    return descending ? un(s, CT_UNARY_NEG, key) : key;
}

/* The stable order of the rows of x ([B, n], n >= 1, B >= 1): the [B, n]
 * int64 indices that sort each row (Note [Device bitonic sort]); owned by
 * s. */
static ct_tensor *
sort_rows(temps *s, const ct_tensor *x, bool descending)
{
    int64_t B = x->sizes[0], n = x->sizes[1], P = 1;
    while (P < n) {
        P *= 2;
    }
    ct_device dev = ct_tensor_device(x);
    bool fl = ct_dtype_is_floating(x->dtype);
    bool packed = ct_dtype_itemsize(x->dtype) <= 4 && P <= (INT64_C(1) << 28);
    ct_dtype kdt = x->dtype == CT_DTYPE_BOOL ? CT_DTYPE_UINT8 : x->dtype;
    int64_t bp[2] = {B, P}, row[2] = {1, P}, M = 4 * P;
    steps *st = malloc(sizeof *st);
    if (st == NULL || steps_init(s, P, dev, st) < 0) {
        free(st);
        return st == NULL ? (ct_error(CT_ERR_NOMEM, "out of memory"), NULL) : NULL;
    }
    ct_tensor *base = rank_table(s, n, P, dev);
    ct_tensor *bv = base != NULL ? tmp(s, ct_view(base, 2, row)) : NULL;
    ct_tensor *be = bv != NULL ? tmp(s, ct_expand(bv, 2, bp)) : NULL;
    ct_tensor *r = be != NULL ? tmp(s, ct_contiguous(be)) : NULL;
    ct_tensor *v = packed ? NULL : tmp(s, ct_empty(2, bp, kdt, dev));
    ct_tensor *vn = narrowed(s, v, 0, n), *rn = narrowed(s, r, 0, n);
    ct_tensor *nan = fl ? un(s, CT_UNARY_ISNAN, x) : NULL;
    /* ranks: the NaNs' class on top of the index */
    ct_tensor *ranks = rn;
    if (fl) {
        ct_tensor *cls = descending ? un(s, CT_UNARY_LOGICAL_NOT, nan) : nan;
        ranks = bin(s, CT_BINARY_ADD, rn,
                    bin(s, CT_BINARY_MUL, in_dtype(s, cls, CT_DTYPE_INT64),
                        scalar(s, ct_scalar_int(P))));
    }
    int rc = -1;
    if (packed) {
        /* one int64 per pair: key * 4P + rank, padding above every key */
        ct_tensor *key = small_keys(s, x, nan, descending);
        ct_tensor *pk = bin(s, CT_BINARY_ADD, bin(s, CT_BINARY_MUL, key,
                                                  scalar(s, ct_scalar_int(M))), ranks);
        rc = pk != NULL && rn != NULL &&
             ct_fill_(r, ct_scalar_int(((INT64_C(1) << 31) + 1) * M)) == 0 &&
             ct_copy_(rn, pk) == 0 ? 0 : -1;
    }
    else if (vn != NULL && rn != NULL && ranks != NULL &&
             ct_fill_(v, pad_value(kdt, descending)) == 0) {
        /* keys with NaN as +inf */
        ct_tensor *inf = fl ? scalar(s, ct_scalar_float(INFINITY)) : NULL;
        ct_tensor *keys = fl && inf != NULL ? tmp(s, ct_where(nan, inf, x)) : (ct_tensor *)x;
        rc = keys != NULL && ct_copy_(vn, keys) == 0 &&
             (ranks == rn || ct_copy_(rn, ranks) == 0) ? 0 : -1;
    }
    if (rc < 0) {
        free(st);
        return NULL;
    }
    ct_tensor *V = packed ? NULL : give(v), *R = give(r);
    for (int64_t k = 0; k < st->ns && rc == 0; k++) {
        rc = network_step(st, k, packed ? NULL : &V, &R, descending);
    }
    free(st);
    ct_tensor_decref(V);
    ct_tensor *rs = narrowed(s, tmp(s, R), 0, n);
    ct_tensor *idx = rc == 0 ? bin(s, CT_BINARY_BITWISE_AND, rs,
                                   scalar(s, ct_scalar_int(P - 1))) : NULL;
    return idx != NULL ? tmp(s, ct_contiguous(idx)) : NULL;
}

/* t's lines along d as rows [B, n] (a view when t's strides allow, else a
 * device copy); owned by s. */
static ct_tensor *
rows_of(temps *s, const ct_tensor *t, int d)
{
    int64_t n = t->ndim > 0 ? t->sizes[d] : 1;
    int64_t sz[2] = {n > 0 ? t->numel / n : 0, n};
    ct_tensor *l = tmp(s, t->ndim == 0 ? ct_unsqueeze(t, 0) : ct_transpose(t, d, t->ndim - 1));
    return shaped(s, l, 2, sz);
}

/* r ([B, len] rows of t's lines along d) back in t's layout with size len
 * at d, contiguous, then reshaped to (nd, sizes); a new reference. */
static ct_tensor *
unrows(temps *s, const ct_tensor *r, const ct_tensor *t, int d, int64_t len, int nd,
       const int64_t *sizes)
{
    int64_t ls[CT_MAX_DIMS];
    if (r == NULL) {
        return NULL;
    }
    if (t->ndim == 0) {
        return ct_reshape(r, nd, sizes);
    }
    int last = t->ndim - 1;
    memcpy(ls, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    ls[d] = t->sizes[last];
    ls[last] = len;
    ct_tensor *c = tmp(s, ct_contiguous(r));
    ct_tensor *v = c != NULL ? tmp(s, ct_view(c, t->ndim, ls)) : NULL;
    ct_tensor *back = v != NULL ? tmp(s, ct_transpose(v, d, last)) : NULL;
    ct_tensor *cb = back != NULL ? tmp(s, ct_contiguous(back)) : NULL;
    return cb != NULL ? ct_reshape(cb, nd, sizes) : NULL;
}

/* The results of an op of t whose outputs are (nd, sizes) and hold no
 * element. */
static int
empty_pair(const ct_tensor *t, int nd, const int64_t *sizes, ct_tensor **values,
           ct_tensor **indices)
{
    ct_device dev = ct_tensor_device(t);
    if (values != NULL &&
        (*values = ct_empty(nd, sizes, t->dtype, dev)) == NULL) {
        return -1;
    }
    *indices = ct_empty(nd, sizes, CT_DTYPE_INT64, dev);
    return *indices != NULL ? 0 : -1;
}

/* The common part of the ops: rows [B, n] of t along d sorted, their
 * columns [start, start + len) (or, when pos != NULL, the one column per
 * row that pos ([B, 1] int64) names) as values and indices shaped (nd,
 * sizes).  values may be NULL (argsort).  pos_of, when given, makes pos
 * from the rows. */
typedef ct_tensor *(*pos_fn)(temps *s, const ct_tensor *x, bool ignore_nan);

static int
select_sorted(const ct_tensor *t, int d, bool descending, int64_t start, int64_t len,
              pos_fn pos_of, bool ignore_nan, int nd, const int64_t *sizes,
              ct_tensor **values, ct_tensor **indices)
{
    temps s = {0};
    if (values != NULL) {
        *values = NULL;
    }
    *indices = NULL;
    if (t->numel == 0 || len == 0) {
        return settle(empty_pair(t, nd, sizes, values, indices), values, indices, NULL);
    }
    ct_tensor *x = rows_of(&s, t, d);
    ct_tensor *order = x != NULL ? sort_rows(&s, x, descending) : NULL;
    ct_tensor *idx = NULL;
    if (pos_of != NULL) {
        ct_tensor *pos = x != NULL ? pos_of(&s, x, ignore_nan) : NULL;
        idx = gathered(&s, order, pos);
    }
    else {
        idx = narrowed(&s, order, start, len);
        idx = idx != NULL ? tmp(&s, ct_contiguous(idx)) : NULL;
    }
    ct_tensor *val = values != NULL ? gathered(&s, x, idx) : NULL;
    int rc = -1;
    if (idx != NULL && (values == NULL || val != NULL)) {
        *indices = unrows(&s, idx, t, d, len, nd, sizes);
        if (values != NULL && *indices != NULL) {
            *values = unrows(&s, val, t, d, len, nd, sizes);
        }
        rc = *indices != NULL && (values == NULL || *values != NULL) ? 0 : -1;
    }
    temps_free(&s);
    return settle(rc, values, indices, NULL);
}

int
ct__device_sort(const ct_tensor *t, int dim, bool descending, ct_tensor **values,
                ct_tensor **indices)
{
    int64_t n = t->ndim > 0 ? t->sizes[dim] : 1;
    return select_sorted(t, dim, descending, 0, n, NULL, false, t->ndim, t->sizes, values,
                         indices);
}

int
ct__device_topk(const ct_tensor *t, int64_t k, int dim, bool largest, ct_tensor **values,
                ct_tensor **indices)
{
    int64_t sizes[CT_MAX_DIMS];
    if (t->ndim == 0) {
        /* the one element, whatever k (0 or 1), as on the CPU */
        return select_sorted(t, 0, largest, 0, 1, NULL, false, 0, NULL, values, indices);
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sizes[dim] = k;
    return select_sorted(t, dim, largest, 0, k, NULL, false, t->ndim, sizes, values,
                         indices);
}

/* t's sizes without dim d (keepdim: with size 1 there) into sizes; their
 * count. */
static int
reduced_sizes(const ct_tensor *t, int d, bool keepdim, int64_t *sizes)
{
    int nd = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i != d || keepdim) {
            sizes[nd++] = i == d ? 1 : t->sizes[i];
        }
    }
    return nd;
}

int
ct__device_kthvalue(const ct_tensor *t, int64_t k, int dim, bool keepdim,
                    ct_tensor **values, ct_tensor **indices)
{
    int64_t sizes[CT_MAX_DIMS];
    int nd = reduced_sizes(t, dim, keepdim, sizes);
    return select_sorted(t, dim, false, k - 1, 1, NULL, false, nd, sizes, values, indices);
}

static bool
never_less(const void *ctx, int64_t x, int64_t y)
{
    (void)ctx, (void)x, (void)y;
    return false;
}

/* The position the CPU's nanmedian picks in a line of n NaNs: what
 * std::nth_element leaves first when nothing compares less (Note
 * [libstdc++ order]); -1 with the error set. */
static int64_t
all_nan_pick(int64_t n)
{
    int64_t *a = malloc(sizeof(int64_t) * (size_t)n), r;
    if (a == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        a[i] = i;
    }
    ct__stl_nth_element(a, 0, n, never_less, NULL);
    r = a[0];
    free(a);
    return r;
}

/* The column of each sorted row of x ([B, n], floating) that median
 * (CPU: the first NaN when the row has one, else rank (n - 1) / 2) or
 * nanmedian (rank (count - 1) / 2 among the count non-NaN values;
 * all_nan_pick's when there are none) picks, as [B, 1] int64; owned by s.  NaNs sort last in
 * index order, so the first NaN sits at column count. */
static ct_tensor *
median_pos(temps *s, const ct_tensor *x, bool ignore_nan)
{
    int64_t n = x->sizes[1], one = 1, sz[2] = {x->sizes[0], 1};
    if (!ct_dtype_is_floating(x->dtype)) {
        ct_tensor *p = tmp(s, ct_full(2, sz, ct_scalar_int((n - 1) / 2), CT_DTYPE_INT64));
        return p != NULL ? tmp(s, ct_to_device(p, ct_tensor_device(x))) : NULL;
    }
    ct_tensor *nnan = sum_over(s, un(s, CT_UNARY_ISNAN, x), 1, &one, true);
    ct_tensor *count = bin(s, CT_BINARY_SUB, scalar(s, ct_scalar_int(n)), nnan);
    if (ignore_nan) {
        int64_t pick = all_nan_pick(n);
        ct_tensor *half = bin(s, CT_BINARY_RSHIFT,
                              bin(s, CT_BINARY_SUB, count, scalar(s, ct_scalar_int(1))),
                              scalar(s, ct_scalar_int(1)));
        ct_tensor *some = bin(s, CT_BINARY_GT, count, scalar(s, ct_scalar_int(0)));
        ct_tensor *other = pick >= 0 ? scalar(s, ct_scalar_int(pick)) : NULL;
        return half != NULL && some != NULL && other != NULL
                   ? tmp(s, ct_where(some, half, other)) : NULL;
    }
    ct_tensor *has = bin(s, CT_BINARY_GT, nnan, scalar(s, ct_scalar_int(0)));
    ct_tensor *mid = scalar(s, ct_scalar_int((n - 1) / 2));
    return has != NULL && count != NULL && mid != NULL ? tmp(s, ct_where(has, count, mid))
                                                       : NULL;
}

/* median's and nanmedian's dtype check (the CPU's, aten/cpu/reduce_scan.c
 * and median_all). */
static int
median_dtype_ok(const ct_tensor *t, const char *name)
{
    if (t->dtype == CT_DTYPE_FLOAT16 || t->dtype == CT_DTYPE_BOOL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

int
ct__device_median_dim(const ct_tensor *t, int64_t dim, bool keepdim, bool ignore_nan,
                      ct_tensor **values, ct_tensor **indices)
{
    int64_t sizes[CT_MAX_DIMS];
    ct_tensor *x = NULL;
    *values = NULL;
    if (indices != NULL) {
        *indices = NULL;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0 || median_dtype_ok(t, "median_out") < 0) {
        return -1;
    }
    if (t->ndim > 0 && t->sizes[d] == 0) {
        return ct_error(CT_ERR_INDEX, "median(): Expected reduction dim %d to have "
                        "non-zero size.", d);
    }
    int nd = reduced_sizes(t, d, keepdim, sizes);
    int rc = select_sorted(t, d, false, 0, 1, median_pos, ignore_nan, nd, sizes, values, &x);
    if (indices != NULL) {
        *indices = x;
    }
    else {
        ct_tensor_decref(x);
    }
    return rc;
}

ct_tensor *
ct__device_median(const ct_tensor *t, bool ignore_nan)
{
    ct_tensor *v = NULL, *x = NULL;
    if (median_dtype_ok(t, "median_cpu") < 0) {
        return NULL;
    }
    if (t->numel == 0) {
        /* NaN as the CPU makes it (x86's conversion for integers) */
        double nan = NAN;
        ct_tensor *h = ct_empty(0, NULL, t->dtype, ct_device_cpu());
        if (h == NULL) {
            return NULL;
        }
        ct__write_converted(t->dtype, ct_tensor_data(h), 0, 1, &nan, true);
        v = ct_to_device(h, ct_tensor_device(t));
        ct_tensor_decref(h);
        return v;
    }
    int64_t n = t->numel;
    ct_tensor *flat = ct_reshape(t, 1, &n);
    if (flat == NULL) {
        return NULL;
    }
    int rc = select_sorted(flat, 0, false, 0, 1, median_pos, ignore_nan, 0, NULL, &v, &x);
    ct_tensor_decref(flat);
    ct_tensor_decref(x);
    return rc == 0 ? v : NULL;
}
