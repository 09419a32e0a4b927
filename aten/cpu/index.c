/* aten/cpu/index.c -- indexing with tensors: nonzero, advanced indexing
 * (index / index_put_), index_select, masked_select, take, gather, scatter,
 * index_add_/copy_/fill_.
 *
 * Moving elements needs only their size, so most kernels copy itemsize
 * bytes; the accumulating ones (index_put_ with accumulate, scatter reduce,
 * index_add_) add through a per-dtype table. */
#include "aten/device.h"
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/loops.h"

/* dst op= src for one element of dtype S (op: 0 add, 1 multiply), with
 * alpha for index_add_ */
#define X(E, T, S, A)                                                         \
    static void accumulate_##S(char *dst, const char *src, int op, double alpha) \
    {                                                                         \
        A d = ct__load_##S((const T *)dst), s = ct__load_##S((const T *)src); \
        if (alpha != 1.0) {                                                   \
            s = (A)(s * (A)alpha);                                            \
        }                                                                     \
        ct__store_##S((T *)dst, op == 0 ? (A)(d + s) : (A)(d * s));          \
    }
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
/* bool: add is or, multiply is and */
static void
accumulate_b8(char *dst, const char *src, int op, double alpha)
{
    (void)alpha;
    bool d = *(const bool *)dst, s = *(const bool *)src;
    *(bool *)dst = op == 0 ? (d || s) : (d && s);
}

typedef void (*accumulate_fn)(char *dst, const char *src, int op, double alpha);
static const accumulate_fn accumulators[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = accumulate_##S,
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
};

/* Element `i` (row-major over t's shape) of t: its address. */
static char *
element_at(const ct_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    return ct_tensor_data(t) + off * (int64_t)ct_dtype_itemsize(t->dtype);
}

static int
check_index_dtype(const ct_tensor *index, const char *what)
{
    if (index->dtype != CT_DTYPE_INT64 && index->dtype != CT_DTYPE_INT32) {
        return ct_error(CT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", what);
    }
    return 0;
}

static int64_t
index_value(const ct_tensor *index, int64_t i)
{
    return ct_scalar_to_int(ct_tensor_item_at(index, i));
}

/* is-nonzero per dtype on a contiguous buffer: writes flags[i] */
#define X(E, T, S, A)                                                         \
    static int64_t flag_nonzero_##S(const void *data, int64_t n, uint8_t *flags) \
    {                                                                         \
        const T *p = data;                                                    \
        int64_t count = 0;                                                    \
        for (int64_t i = 0; i < n; i++) {                                     \
            flags[i] = ct__load_##S(p + i) != 0;                              \
            count += flags[i];                                                \
        }                                                                     \
        return count;                                                         \
    }
CT_FORALL_DTYPES(X)
#undef X

typedef int64_t (*flag_fn)(const void *data, int64_t n, uint8_t *flags);
static const flag_fn flaggers[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = flag_nonzero_##S,
    CT_FORALL_DTYPES(X)
#undef X
};

ct_tensor *
ct_nonzero(const ct_tensor *t)
{
    if (ct__is_device(t)) {
        return ct__device_nonzero(t);
    }
    ct_tensor *c = ct_contiguous(t);
    uint8_t *flags = c ? malloc((size_t)(t->numel ? t->numel : 1)) : NULL;
    ct_tensor *r = NULL;
    if (flags == NULL) {
        ct_tensor_decref(c);
        if (c != NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return NULL;
    }
    int64_t count = flaggers[t->dtype](ct_tensor_data(c), t->numel, flags);
    int64_t sizes[2] = {count, t->ndim};
    r = ct_empty(2, sizes, CT_DTYPE_INT64, ct_device_cpu());
    if (r != NULL) {
        int64_t *o = (int64_t *)ct_tensor_data(r);
        for (int64_t i = 0; i < t->numel; i++) {
            if (!flags[i]) {
                continue;
            }
            int64_t rem = i;            /* coordinates of the hits only */
            for (int d = t->ndim - 1; d >= 0; d--) {
                o[d] = rem % t->sizes[d];
                rem /= t->sizes[d];
            }
            o += t->ndim;
        }
    }
    free(flags);
    ct_tensor_decref(c);
    return r;
}

/* The plan of an advanced indexing: for each result element, the source
 * offset (in elements) of t.  Index tensors are broadcast together. */
typedef struct {
    int ndim;                           /* result dims */
    int64_t sizes[CT_MAX_DIMS];
    int nb;                             /* broadcast index dims */
    int64_t bsizes[CT_MAX_DIMS];
    int first;                          /* where the index dims go in the result */
    ct_tensor *idx[CT_MAX_DIMS];        /* per t dim: expanded index or NULL */
} index_plan;

static void
plan_release(index_plan *p)
{
    for (int d = 0; d < CT_MAX_DIMS; d++) {
        ct_tensor_decref(p->idx[d]);
        p->idx[d] = NULL;
    }
}

static int
plan_make(const ct_tensor *t, int n, ct_tensor *const *indices, index_plan *p)
{
    memset(p, 0, sizeof *p);
    if (n > t->ndim) {
        return ct_error(CT_ERR_INDEX, "too many indices for tensor of dimension %d",
                        t->ndim);
    }
    int first = -1, last = -1, count = 0;
    p->nb = 0;
    for (int d = 0; d < n; d++) {
        if (indices[d] == NULL) {
            continue;
        }
        if (check_index_dtype(indices[d], "index") < 0) {
            return -1;
        }
        int nb;
        int64_t bs[CT_MAX_DIMS];
        if (ct_broadcast_shapes(p->nb, p->bsizes, indices[d]->ndim, indices[d]->sizes,
                                &nb, bs) < 0) {
            ct_error_clear();
            return ct_error(CT_ERR_INDEX, "shape mismatch: indexing tensors could not "
                            "be broadcast together");
        }
        p->nb = nb;
        memcpy(p->bsizes, bs, sizeof(int64_t) * (size_t)nb);
        first = first < 0 ? d : first;
        last = d;
        count++;
    }
    /* adjacent indexed dims keep their place; split ones go to the front */
    bool adjacent = count == last - first + 1;
    int k = 0;
    p->first = 0;
    for (int d = 0; d < t->ndim; d++) {
        bool indexed = d < n && indices[d] != NULL;
        if (count > 0 && d == (adjacent ? first : 0)) {
            p->first = k;
            for (int j = 0; j < p->nb; j++) {
                p->sizes[k++] = p->bsizes[j];
            }
        }
        if (!indexed) {
            p->sizes[k++] = t->sizes[d];
        }
    }
    p->ndim = k;
    for (int d = 0; d < n; d++) {
        if (indices[d] == NULL) {
            continue;
        }
        p->idx[d] = ct_expand(indices[d], p->nb, p->bsizes);
        if (p->idx[d] == NULL) {
            plan_release(p);
            return -1;
        }
        /* bounds are checked when the offsets are made */
    }
    return 0;
}

/* Note [Indexing plan]: the result is [P1][B][P2] -- the dims of t left
 * whole before the index block, the broadcast index dims, the whole dims
 * after it.  Source offsets split the same way: off1 (a counter over P1),
 * idx_off[b] (every index tensor's contribution at broadcast position b,
 * computed once) and off2[j] (a table over P2). */
typedef struct {
    int64_t n1, nb, n2;         /* element counts of P1, B, P2 */
    int p1[CT_MAX_DIMS], np1;   /* t dims of P1 and P2 */
    int p2[CT_MAX_DIMS], np2;
    int64_t *idx_off, *off2;
} plan_offsets;

/* The offset tables come from the caching CPU allocator: they can be as
 * large as the index, and fresh pages would cost more than the gather. */
static int64_t *
table_alloc(int64_t n)
{
    const ct_allocator *a = ct_cpu_allocator();
    int64_t *p = a->alloc(a, (size_t)(n ? n : 1) * sizeof(int64_t));
    if (p != NULL) {
        memset(p, 0, (size_t)(n ? n : 1) * sizeof(int64_t));
    }
    return p;
}

static void
table_free(int64_t *p, int64_t n)
{
    const ct_allocator *a = ct_cpu_allocator();
    a->free(a, p, (size_t)(n ? n : 1) * sizeof(int64_t));
}

static void
offsets_free(plan_offsets *o)
{
    if (o->idx_off != NULL) {
        table_free(o->idx_off, o->nb);
    }
    if (o->off2 != NULL) {
        table_free(o->off2, o->n2);
    }
    o->idx_off = o->off2 = NULL;
}

static int
offsets_make(const ct_tensor *t, const index_plan *p, plan_offsets *o)
{
    memset(o, 0, sizeof *o);
    bool before = true;
    for (int d = 0; d < t->ndim; d++) {
        if (p->idx[d] != NULL) {
            continue;
        }
        /* a whole dim goes before the block while the result's P1 has room */
        if (before && o->np1 < p->first) {
            o->p1[o->np1++] = d;
        }
        else {
            before = false;
            o->p2[o->np2++] = d;
        }
    }
    o->n1 = o->n2 = o->nb = 1;
    for (int k = 0; k < o->np1; k++) {
        o->n1 *= t->sizes[o->p1[k]];
    }
    for (int k = 0; k < o->np2; k++) {
        o->n2 *= t->sizes[o->p2[k]];
    }
    for (int j = 0; j < p->nb; j++) {
        o->nb *= p->bsizes[j];
    }
    o->idx_off = table_alloc(o->nb);
    o->off2 = table_alloc(o->n2);
    if (o->idx_off == NULL || o->off2 == NULL) {
        offsets_free(o);
        return -1;
    }
    for (int d = 0; d < t->ndim; d++) {
        if (p->idx[d] == NULL) {
            continue;
        }
        ct_tensor *c = ct_to_dtype(p->idx[d], CT_DTYPE_INT64, false);
        ct_tensor *cc = c ? ct_contiguous(c) : NULL;
        ct_tensor_decref(c);
        if (cc == NULL) {
            offsets_free(o);
            return -1;
        }
        const int64_t *v = (const int64_t *)ct_tensor_data(cc);
        int64_t size = t->sizes[d];
        for (int64_t b = 0; b < o->nb; b++) {
            int64_t x = v[b];
            if (x < -size || x >= size) {
                ct_tensor_decref(cc);
                offsets_free(o);
                return ct_error(CT_ERR_INDEX, "index %lld is out of bounds for dimension "
                                "%d with size %lld", (long long)x, d, (long long)size);
            }
            o->idx_off[b] += (x < 0 ? x + size : x) * t->strides[d];
        }
        ct_tensor_decref(cc);
    }
    int64_t coord[CT_MAX_DIMS] = {0};
    for (int64_t j = 0; j < o->n2; j++) {
        int64_t off = 0;
        for (int k = 0; k < o->np2; k++) {
            off += coord[k] * t->strides[o->p2[k]];
        }
        o->off2[j] = off;
        for (int k = o->np2 - 1; k >= 0; k--) {
            if (++coord[k] < t->sizes[o->p2[k]]) {
                break;
            }
            coord[k] = 0;
        }
    }
    return 0;
}

/* Visit every result element in row-major order with its source offset. */
#define FOR_EACH_INDEXED(t, o, OFF, BODY)                                     \
    do {                                                                      \
        int64_t c1_[CT_MAX_DIMS] = {0};                                       \
        for (int64_t i1_ = 0; i1_ < (o).n1; i1_++) {                          \
            int64_t off1_ = (t)->offset;                                      \
            for (int k_ = 0; k_ < (o).np1; k_++) {                            \
                off1_ += c1_[k_] * (t)->strides[(o).p1[k_]];                  \
            }                                                                 \
            for (int64_t b_ = 0; b_ < (o).nb; b_++) {                         \
                for (int64_t j_ = 0; j_ < (o).n2; j_++) {                     \
                    int64_t OFF = off1_ + (o).idx_off[b_] + (o).off2[j_];     \
                    BODY                                                      \
                }                                                             \
            }                                                                 \
            for (int k_ = (o).np1 - 1; k_ >= 0; k_--) {                       \
                if (++c1_[k_] < (t)->sizes[(o).p1[k_]]) {                     \
                    break;                                                    \
                }                                                             \
                c1_[k_] = 0;                                                  \
            }                                                                 \
        }                                                                     \
    } while (0)

/* PyTorch's rule for the index tensors of t[indices]: on the CPU or on
 * t's device. */
static int
index_devices_ok(const ct_tensor *t, int n, ct_tensor *const *indices)
{
    ct_device dev = ct_tensor_device(t);
    for (int d = 0; d < n; d++) {
        if (ct__is_device(indices[d]) && !ct_device_eq(ct_tensor_device(indices[d]), dev)) {
            if (dev.type == CT_DEVICE_CPU) {
                return ct_error(CT_ERR_RUNTIME, "indices should be either on cpu or on the "
                                "same device as the indexed tensor (cpu)");
            }
            return ct_error(CT_ERR_RUNTIME, "indices should be either on cpu or on the "
                            "same device as the indexed tensor (%s:%d)",
                            ct_device_type_name(dev.type), dev.index);
        }
    }
    return 0;
}

ct_tensor *
ct_index(const ct_tensor *t, int n, ct_tensor *const *indices)
{
    if (index_devices_ok(t, n, indices) < 0) {
        return NULL;
    }
    index_plan p;
    plan_offsets o;
    if (plan_make(t, n, indices, &p) < 0) {
        return NULL;
    }
    if (ct__is_device(t)) {
        ct_tensor *r = ct__device_index(t, p.idx, p.first, p.nb, p.bsizes, p.ndim, p.sizes);
        plan_release(&p);
        return r;
    }
    if (offsets_make(t, &p, &o) < 0) {
        plan_release(&p);
        return NULL;
    }
    ct_tensor *r = ct_empty(p.ndim, p.sizes, t->dtype, ct_device_cpu());
    if (r != NULL && r->numel > 0) {
        /* typed moves by element size, so the compiler emits plain loads */
        switch (ct_dtype_itemsize(t->dtype)) {
#define GATHER(W, U)                                                          \
        case W: {                                                             \
            U *dst = (U *)ct_tensor_data(r);                                  \
            const U *src = (const U *)t->storage->data;                       \
            FOR_EACH_INDEXED(t, o, off, { *dst++ = src[off]; });               \
            break;                                                            \
        }
            GATHER(1, uint8_t)
            GATHER(2, uint16_t)
            GATHER(4, uint32_t)
            GATHER(8, uint64_t)
#undef GATHER
        default:
            CT_ASSERT(0);
        }
    }
    if (r != NULL) {
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    offsets_free(&o);
    plan_release(&p);
    return r;
}

int
ct_index_put_(ct_tensor *t, int n, ct_tensor *const *indices, const ct_tensor *values,
              bool accumulate)
{
    bool on_device = ct__is_device(t) || ct__is_device(values);
    if (index_devices_ok(t, n, indices) < 0) {
        return -1;
    }
    index_plan p;
    plan_offsets o;
    int rc = -1;
    if (plan_make(t, n, indices, &p) < 0) {
        return -1;
    }
    ct_tensor *v = ct_to_dtype(values, t->dtype, false);
    ct_tensor *e = v ? ct_expand(v, p.ndim, p.sizes) : NULL;
    /* one value is used in place; others are laid out in result order */
    bool single = v != NULL && v->numel == 1;
    ct_tensor *ec = e == NULL              ? NULL
                    : single || on_device ? (ct_tensor_incref(v), v)
                                          : ct_contiguous(e);
    if (ec == NULL) {
        if (v != NULL && e == NULL) {
            char b1[256], b2[256];
            ct_error_clear();
            ct_error(CT_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be "
                     "broadcast to indexing result of shape %s",
                     ct_format_sizes(values->ndim, values->sizes, b1, sizeof b1),
                     ct_format_sizes(p.ndim, p.sizes, b2, sizeof b2));
        }
        goto done;
    }
    if (on_device) {
        rc = ct__device_index_put_(t, p.idx, p.first, p.nb, p.bsizes, p.ndim, p.sizes, v,
                                   accumulate);
        goto done;
    }
    if (offsets_make(t, &p, &o) < 0) {
        goto done;
    }
    size_t item = ct_dtype_itemsize(t->dtype);
    size_t step = single ? 0 : item;
    const char *from = ct_tensor_data(ec);
    char *base = t->storage->data;
    accumulate_fn acc = accumulators[t->dtype];
    if (e->numel > 0 && accumulate) {
        FOR_EACH_INDEXED(t, o, off, {
            acc(base + off * (int64_t)item, from, 0, 1.0);
            from += step;
        });
    }
    else if (e->numel > 0) {
        switch (item) {
#define SCATTER(W, U)                                                         \
        case W: {                                                             \
            U *dst = (U *)base;                                               \
            const U *src = (const U *)from;                                   \
            int64_t inc = single ? 0 : 1;                                     \
            FOR_EACH_INDEXED(t, o, off, { dst[off] = *src; src += inc; });    \
            break;                                                            \
        }
            SCATTER(1, uint8_t)
            SCATTER(2, uint16_t)
            SCATTER(4, uint32_t)
            SCATTER(8, uint64_t)
#undef SCATTER
        default:
            CT_ASSERT(0);
        }
    }
    offsets_free(&o);
    rc = 0;
done:
    ct_tensor_decref(ec);
    ct_tensor_decref(e);
    ct_tensor_decref(v);
    plan_release(&p);
    return rc;
}

/* index_add_, index_copy_ and index_fill_ */
typedef enum { ALONG_ADD, ALONG_COPY, ALONG_FILL } along_mode;

/* The error for index value v outside what mode takes along d of size
 * `size`: index_fill_ takes [-size, size), the others [0, size). */
static int
index_along_bad(along_mode mode, int64_t v, int d, int64_t size)
{
    if (mode == ALONG_ADD) {
        return ct_error(CT_ERR_INDEX, "index out of range in self");
    }
    return ct_error(CT_ERR_INDEX, "%sindex %lld is out of bounds for dimension %d with "
                    "size %lld", mode == ALONG_COPY ? "index_copy_(): " : "", (long long)v,
                    d, (long long)size);
}

/* --- device operands: the kernels of c10/cuda/backend.h ----------------------
 * Each entry point makes its checks first, then branches here.  Indices
 * are checked on the device with one host read of a flag
 * (ct__device_index_check), raising the CPU's error for the first bad one;
 * a kernel never sees an index outside its tensor. */

/* 0, or -1 with the CPU's error when index (on a device) has a value
 * outside [lo, hi); `along` says which of the two messages: gather's and
 * scatter's (naming the value, dim d and size hi) or index_select's. */
static int
device_indices_ok(const ct_tensor *index, int64_t lo, int64_t hi, bool along, int d)
{
    bool bad = false;
    int64_t v = 0;
    if (ct__device_index_check(index, lo, hi, &bad, &v) < 0) {
        return -1;
    }
    if (!bad) {
        return 0;
    }
    if (along) {
        return ct_error(CT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with "
                        "size %lld", (long long)v, d, (long long)hi);
    }
    return ct_error(CT_ERR_INDEX, "index out of range in self");
}

static ct_tensor *
gather_device(const ct_tensor *t, int d, const ct_tensor *index)
{
    if (ct__same_device((const ct_tensor *const[]){t, index}, 2) < 0 ||
        device_indices_ok(index, 0, t->ndim ? t->sizes[d] : 1, true, d) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_empty(index->ndim, index->sizes, t->dtype, ct_tensor_device(t));
    if (r != NULL && ct__device_gather(r, t, index, d) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* index (1-dim, int64 or int32, checked to lie in [-size, size)) as
 * int64 with the negative values wrapped, viewed along dim d of an ndim
 * tensor and expanded to `sizes` (d's size the index's length). */
static ct_tensor *
along_index(const ct_tensor *index, int64_t size, int ndim, int d, const int64_t *sizes)
{
    int64_t vs[CT_MAX_DIMS];
    ct_tensor *l = ct_to_dtype(index, CT_DTYPE_INT64, false);
    ct_tensor *n = ct_scalar_tensor(ct_scalar_int(0));
    ct_tensor *neg = l && n ? ct_binary(CT_BINARY_LT, l, n, ct_scalar_int(1), NULL,
                                        CT_OUT_NEW) : NULL;
    ct_tensor *s = ct_scalar_tensor(ct_scalar_int(size));
    ct_tensor *up = l && s ? ct_add(l, s, ct_scalar_int(1)) : NULL;
    ct_tensor *w = neg && up ? ct_where(neg, up, l) : NULL;
    ct_tensor *c = w ? ct_contiguous(w) : NULL;
    ct_tensor *v = NULL, *e = NULL;
    for (int k = 0; k < ndim; k++) {
        vs[k] = k == d ? index->numel : 1;
    }
    v = c ? ct_view(c, ndim, vs) : NULL;
    e = v ? ct_expand(v, ndim, sizes) : NULL;
    ct_tensor_decref(v);
    ct_tensor_decref(c);
    ct_tensor_decref(w);
    ct_tensor_decref(up);
    ct_tensor_decref(s);
    ct_tensor_decref(neg);
    ct_tensor_decref(n);
    ct_tensor_decref(l);
    return e;
}

/* index_select as a gather with the index expanded across t's other dims;
 * t has at least one dim. */
static ct_tensor *
index_select_device(const ct_tensor *t, int d, const ct_tensor *index)
{
    int64_t sizes[CT_MAX_DIMS];
    if (ct__same_device((const ct_tensor *const[]){t, index}, 2) < 0 ||
        device_indices_ok(index, -t->sizes[d], t->sizes[d], false, d) < 0) {
        return NULL;
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    sizes[d] = index->numel;
    ct_tensor *e = along_index(index, t->sizes[d], t->ndim, d, sizes);
    ct_tensor *r = e ? ct_empty(t->ndim, sizes, t->dtype, ct_tensor_device(t)) : NULL;
    if (r != NULL && ct__device_gather(r, t, e, d) < 0) {
        ct_tensor_decref(r);
        r = NULL;
    }
    ct_tensor_decref(e);
    return r;
}

/* scatter_ on a device: src, or value made there and laid over the
 * index's sizes, written (the scatter kernel) or added (scatter_add). */
static int
scatter_device(ct_tensor *t, int d, const ct_tensor *index, const ct_tensor *src,
               ct_scalar value, bool add)
{
    if (ct__same_device((const ct_tensor *const[]){t, index, src}, 3) < 0) {
        return -1;
    }
    /* the kernel reads src over the index's sizes (autograd's writers
     * check this; the CPU kernel leaves it to them) */
    bool fits = src == NULL || src->ndim == index->ndim;
    for (int k = 0; src != NULL && k < index->ndim && fits; k++) {
        fits = index->sizes[k] <= src->sizes[k];
    }
    if (!fits) {
        char b1[256], b2[256], b3[256];
        return ct_error(CT_ERR_RUNTIME, "Expected index %s to be smaller than self %s "
                        "apart from dimension %d and to be smaller size than src %s",
                        ct_format_sizes(index->ndim, index->sizes, b1, sizeof b1),
                        ct_format_sizes(t->ndim, t->sizes, b2, sizeof b2), d,
                        ct_format_sizes(src->ndim, src->sizes, b3, sizeof b3));
    }
    if (device_indices_ok(index, 0, t->ndim ? t->sizes[d] : 1, true, d) < 0) {
        return -1;
    }
    ct_tensor *s, *v = NULL;
    if (src != NULL) {
        s = (ct_tensor *)src;
        ct_tensor_incref(s);
    }
    else {
        v = ct_full_on(0, NULL, value, t->dtype, ct_tensor_device(t));
        s = v ? ct_expand(v, index->ndim, index->sizes) : NULL;
    }
    int rc = s == NULL ? -1
             : add     ? ct__device_scatter_add(t, index, s, d)
                       : ct__device_scatter(t, index, s, d);
    ct_tensor_decref(s);
    ct_tensor_decref(v);
    return rc;
}

/* index_add_ (src * alpha in t's dtype; float16 rounds the product, as
 * the CPU's alpha form) with the scatter_add kernel along d, index_copy_
 * (src) and index_fill_ (value) with the scatter kernel, the index
 * expanded over the slices. */
static int
index_along_device(ct_tensor *t, int d, const ct_tensor *index, const ct_tensor *src,
                   ct_scalar value, along_mode mode, ct_scalar alpha)
{
    int64_t one = 1, sizes[CT_MAX_DIMS], first = 0;
    bool bad = false;
    if (ct__same_device((const ct_tensor *const[]){t, index, src}, 3) < 0) {
        return -1;
    }
    int64_t size = t->ndim ? t->sizes[d] : 1;
    int64_t lo = mode == ALONG_FILL ? -size : 0;
    if (ct__device_index_check(index, lo, size, &bad, &first) < 0) {
        return -1;
    }
    if (bad) {
        return index_along_bad(mode, first, d, size);
    }
    /* a 0-dim t is one element along dim 0 */
    ct_tensor *tv = t->ndim ? (ct_tensor_incref(t), t) : ct_view(t, 1, &one);
    ct_tensor *s = tv == NULL ? NULL
                   : mode == ALONG_FILL
                       ? ct_full_on(0, NULL, value, t->dtype, ct_tensor_device(t))
                       : ct_to_dtype(src, t->dtype, false);
    if (s != NULL && mode == ALONG_ADD && ct_scalar_to_double(alpha) != 1.0) {
        ct_tensor *a = ct_scalar_tensor(alpha);
        ct_tensor *m = a ? ct_binary(CT_BINARY_MUL, s, a, ct_scalar_int(1), NULL,
                                     CT_OUT_NEW) : NULL;
        ct_tensor_decref(s);
        s = m ? ct_to_dtype(m, t->dtype, false) : NULL;
        ct_tensor_decref(m);
        ct_tensor_decref(a);
    }
    ct_tensor *se = NULL, *e = NULL;
    int rc = -1;
    if (s != NULL) {
        memcpy(sizes, tv->sizes, sizeof(int64_t) * (size_t)tv->ndim);
        sizes[d] = index->numel;
        se = ct_expand(s, tv->ndim, sizes);
        e = se ? along_index(index, size, tv->ndim, d, sizes) : NULL;
        rc = e == NULL ? -1
             : mode == ALONG_ADD ? ct__device_scatter_add(tv, e, se, d)
                                 : ct__device_scatter(tv, e, se, d);
    }
    ct_tensor_decref(e);
    ct_tensor_decref(se);
    ct_tensor_decref(s);
    ct_tensor_decref(tv);
    return rc;
}

ct_tensor *
ct_index_select(const ct_tensor *t, int64_t dim, const ct_tensor *index)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return NULL;
    }
    if (index->ndim > 1) {
        ct_error(CT_ERR_INDEX, "index_select(): Index is supposed to be a vector");
        return NULL;
    }
    if (index->dtype != CT_DTYPE_INT64 && index->dtype != CT_DTYPE_INT32) {
        ct_error(CT_ERR_RUNTIME, "index_select(): Expected dtype int32 or int64 for index");
        return NULL;
    }
    int64_t size = t->ndim ? t->sizes[d] : 1;
    if ((ct__is_device(t) || ct__is_device(index)) && t->ndim > 0) {
        return index_select_device(t, d, index);
    }
    if (ct__is_device(t) || ct__is_device(index)) {
        /* a 0-dim t: the index is checked, t cloned */
        return ct__same_device((const ct_tensor *const[]){t, index}, 2) < 0 ||
                       device_indices_ok(index, -1, 1, false, 0) < 0
                   ? NULL
                   : ct_clone(t);
    }
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = index_value(index, i);
        if (v < -size || v >= size) {
            ct_error(CT_ERR_INDEX, "index out of range in self");
            return NULL;
        }
    }
    ct_tensor *indices[CT_MAX_DIMS] = {NULL};
    ct_tensor *flat = NULL;
    if (index->ndim == 0) {
        int64_t one = 1;
        flat = ct_reshape(index, 1, &one);
    }
    indices[d] = flat ? flat : (ct_tensor *)index;
    ct_tensor *r = t->ndim == 0 ? ct_clone(t) : ct_index(t, d + 1, indices);
    ct_tensor_decref(flat);
    return r;
}

ct_tensor *
ct_masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    int nd;
    int64_t shape[CT_MAX_DIMS];
    if (mask->dtype != CT_DTYPE_BOOL && mask->dtype != CT_DTYPE_UINT8) {
        ct_error(CT_ERR_RUNTIME, "masked_select: expected BoolTensor for mask");
        return NULL;
    }
    if (ct_broadcast_shapes(t->ndim, t->sizes, mask->ndim, mask->sizes, &nd, shape) < 0) {
        return NULL;
    }
    if (ct__is_device(t) || ct__is_device(mask)) {
        return ct__device_masked_select(t, mask, nd, shape);
    }
    /* both laid out contiguously in the broadcast shape, then one pass */
    ct_tensor *te = ct_expand(t, nd, shape), *me = ct_expand(mask, nd, shape);
    ct_tensor *tc = te ? ct_contiguous(te) : NULL, *mc = me ? ct_contiguous(me) : NULL;
    ct_tensor *r = NULL;
    if (tc != NULL && mc != NULL) {
        const uint8_t *m = (const uint8_t *)ct_tensor_data(mc);
        int64_t count = 0;
        for (int64_t i = 0; i < mc->numel; i++) {
            count += m[i] != 0;
        }
        r = ct_empty(1, &count, t->dtype, ct_device_cpu());
        if (r != NULL) {
            switch (ct_dtype_itemsize(t->dtype)) {
#define SELECT(W, U)                                                          \
            case W: {                                                         \
                U *dst = (U *)ct_tensor_data(r);                              \
                const U *src = (const U *)ct_tensor_data(tc);                 \
                for (int64_t i = 0; i < mc->numel; i++) {                     \
                    if (m[i]) {                                               \
                        *dst++ = src[i];                                      \
                    }                                                         \
                }                                                             \
                break;                                                        \
            }
                SELECT(1, uint8_t)
                SELECT(2, uint16_t)
                SELECT(4, uint32_t)
                SELECT(8, uint64_t)
#undef SELECT
            default:
                CT_ASSERT(0);
            }
        }
    }
    ct_tensor_decref(te);
    ct_tensor_decref(me);
    ct_tensor_decref(tc);
    ct_tensor_decref(mc);
    return r;
}

ct_tensor *
ct_take(const ct_tensor *t, const ct_tensor *index)
{
    if (check_index_dtype(index, "take") < 0) {
        return NULL;
    }
    if (ct__is_device(t) || ct__is_device(index)) {
        return ct__device_take(t, index);
    }
    ct_tensor *r = ct_empty(index->ndim, index->sizes, t->dtype, ct_device_cpu());
    if (r == NULL) {
        return NULL;
    }
    size_t item = ct_dtype_itemsize(t->dtype);
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = index_value(index, i);
        if (v < -t->numel || v >= t->numel) {
            ct_tensor_decref(r);
            ct_error(CT_ERR_INDEX, "out of range: tried to access index %lld on a tensor "
                     "of %lld elements.", (long long)v, (long long)t->numel);
            return NULL;
        }
        memcpy(ct_tensor_data(r) + (size_t)i * item, element_at(t, v < 0 ? v + t->numel : v),
               item);
    }
    return r;
}

/* gather/scatter address: index's coordinates with dim replaced by the
 * index value */
static int64_t
along_dim_offset(const ct_tensor *t, const ct_tensor *index, int d, int64_t i,
                 int64_t *value)
{
    int64_t off = t->offset, rem = i;
    int64_t v = index_value(index, i);
    *value = v;
    for (int k = index->ndim - 1; k >= 0; k--) {
        int64_t c = rem % index->sizes[k];
        rem /= index->sizes[k];
        off += (k == d ? v : c) * t->strides[k];
    }
    return off;
}

static int
check_along_dim(const ct_tensor *t, int d, const ct_tensor *index, const char *what)
{
    if (index->dtype != CT_DTYPE_INT64) {
        return ct_error(CT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", what);
    }
    if (index->ndim != t->ndim && !(t->ndim == 0 && index->ndim <= 1)) {
        return ct_error(CT_ERR_RUNTIME, "Index tensor must have the same number of "
                        "dimensions as input tensor");
    }
    for (int k = 0; k < index->ndim; k++) {
        if (k != d && index->sizes[k] > t->sizes[k]) {
            char b1[256], b2[256];
            return ct_error(CT_ERR_RUNTIME, "Size does not match at dimension %d expected "
                            "index %s to be smaller than self %s apart from dimension %d",
                            k, ct_format_sizes(index->ndim, index->sizes, b1, sizeof b1),
                            ct_format_sizes(t->ndim, t->sizes, b2, sizeof b2), d);
        }
    }
    return 0;
}

ct_tensor *
ct_gather(const ct_tensor *t, int64_t dim, const ct_tensor *index)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0 || check_along_dim(t, d, index, "gather") < 0) {
        return NULL;
    }
    if (ct__is_device(t) || ct__is_device(index)) {
        return gather_device(t, d, index);
    }
    ct_tensor *r = ct_empty(index->ndim, index->sizes, t->dtype, ct_device_cpu());
    if (r == NULL) {
        return NULL;
    }
    size_t item = ct_dtype_itemsize(t->dtype);
    int64_t size = t->ndim ? t->sizes[d] : 1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v, off = along_dim_offset(t, index, d, i, &v);
        if (v < 0 || v >= size) {
            ct_tensor_decref(r);
            ct_error(CT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d with "
                     "size %lld", (long long)v, d, (long long)size);
            return NULL;
        }
        memcpy(ct_tensor_data(r) + (size_t)i * item, t->storage->data + off * (int64_t)item,
               item);
    }
    return r;
}

int
ct_scatter_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
            ct_scalar value, const char *reduce)
{
    bool device = ct__is_device(t) || ct__is_device(index) || ct__is_device(src);
    /* reduce="multiply" has no device kernel */
    if (device && reduce != NULL && strcmp(reduce, "multiply") == 0 &&
        ct__host_only((const ct_tensor *const[]){t, index, src}, 3) < 0) {
        return -1;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    int op = -1;
    if (d < 0 || check_along_dim(t, d, index, "scatter") < 0) {
        return -1;
    }
    if (reduce != NULL) {
        if (strcmp(reduce, "add") == 0) {
            op = 0;
        }
        else if (strcmp(reduce, "multiply") == 0) {
            op = 1;
        }
        else {
            return ct_error(CT_ERR_RUNTIME, "reduce argument must be either add or "
                            "multiply.");
        }
    }
    ct_tensor *s = NULL;
    if (src != NULL) {
        if (src->dtype != t->dtype) {
            return ct_error(CT_ERR_RUNTIME, "scatter(): Expected self.dtype to be equal "
                            "to src.dtype");
        }
        if (device) {
            return scatter_device(t, d, index, src, value, op == 0);
        }
        s = (ct_tensor *)src;
        ct_tensor_incref(s);
    }
    else if (device) {
        return scatter_device(t, d, index, NULL, value, op == 0);
    }
    else {
        s = ct_full(0, NULL, value, t->dtype);
        if (s == NULL) {
            return -1;
        }
    }
    size_t item = ct_dtype_itemsize(t->dtype);
    int64_t size = t->ndim ? t->sizes[d] : 1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v, off = along_dim_offset(t, index, d, i, &v);
        if (v < 0 || v >= size) {
            ct_tensor_decref(s);
            return ct_error(CT_ERR_RUNTIME, "index %lld is out of bounds for dimension %d "
                            "with size %lld", (long long)v, d, (long long)size);
        }
        /* src element at the index's coordinates (a scalar src: always 0) */
        int64_t soff = 0, rem = i;
        if (src != NULL) {
            for (int k = index->ndim - 1; k >= 0; k--) {
                soff += (rem % index->sizes[k]) * s->strides[k];
                rem /= index->sizes[k];
            }
        }
        const char *from = ct_tensor_data(s) + soff * (int64_t)item;
        char *to = t->storage->data + off * (int64_t)item;
        if (op < 0) {
            memcpy(to, from, item);
        }
        else {
            accumulators[t->dtype](to, from, op, 1.0);
        }
    }
    ct_tensor_decref(s);
    return 0;
}

/* index_add_/copy_/fill_: for each i, the slice t.select(dim, index[i])
 * gets src.select(dim, i) added / copied, or value. */
/* dim wrapped, or -1 with PyTorch's error for the index's rank or dtype
 * (each of the three words them its own way) */
static int
index_along_checks(const ct_tensor *t, int64_t dim, const ct_tensor *index, along_mode mode)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    const char *got = ct_dtype_table[index->dtype].legacy;
    /* (index_fill_ looks at the dtype first, the others at the rank) */
    if (mode == ALONG_FILL && index->dtype != CT_DTYPE_INT64) {
        return ct_error(CT_ERR_INDEX, "index_fill_(): Expected dtype int64 for index.");
    }
    if (index->ndim > 1) {
        char b[256];
        return mode == ALONG_ADD
                   ? ct_error(CT_ERR_INDEX, "index_add_(): Index is supposed to be a vector, "
                              "but got dim: %d with type: %s and size: %s", index->ndim, got,
                              ct_format_sizes(index->ndim, index->sizes, b, sizeof b))
               : mode == ALONG_COPY
                   ? ct_error(CT_ERR_INDEX, "index_copy_(): Index should have dimension 1 "
                              "or 0 (got %d)", index->ndim)
                   : ct_error(CT_ERR_RUNTIME, "Index has to be a vector/scalar");
    }
    if (mode == ALONG_ADD && index->dtype != CT_DTYPE_INT64 &&
        index->dtype != CT_DTYPE_INT32) {
        return ct_error(CT_ERR_RUNTIME, "index_add_(): Expected dtype int32/int64 for index "
                        "but got: %s", got);
    }
    if (mode == ALONG_COPY && index->dtype != CT_DTYPE_INT64) {
        return ct_error(CT_ERR_RUNTIME, "index_copy_(): Expected a long tensor for index, "
                        "but got %s", got);
    }
    return d;
}

static int
index_along(ct_tensor *t, int d, const ct_tensor *index, const ct_tensor *src,
            ct_scalar value, along_mode mode, ct_scalar alpha)
{
    int64_t size = t->ndim ? t->sizes[d] : 1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = index_value(index, i);
        if (v < (mode == ALONG_FILL ? -size : 0) || v >= size) {
            return index_along_bad(mode, v, d, size);
        }
        if (v < 0) {
            v += size;
        }
        ct_tensor *dst = t->ndim ? ct_select(t, d, v) : (ct_tensor_incref(t), t);
        ct_tensor *from = NULL;
        int rc = dst ? 0 : -1;
        if (rc == 0 && mode != ALONG_FILL) {
            from = src->ndim ? ct_select(src, d, i) : (ct_tensor_incref((ct_tensor *)src),
                                                       (ct_tensor *)src);
            rc = from ? 0 : -1;
        }
        if (rc == 0) {
            if (mode == ALONG_ADD) {
                ct_tensor *sum = ct_binary(CT_BINARY_ADD, dst, from, alpha, dst,
                                           CT_OUT_INPLACE);
                rc = sum ? 0 : -1;
                ct_tensor_decref(sum);
            }
            else if (mode == ALONG_COPY) {
                rc = ct_copy_(dst, from);
            }
            else {
                rc = ct_fill_(dst, value);
            }
        }
        ct_tensor_decref(from);
        ct_tensor_decref(dst);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}

/* Check, then run on the CPU or the operands' device. */
static int
index_along_op(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
               ct_scalar value, along_mode mode, ct_scalar alpha)
{
    int d = index_along_checks(t, dim, index, mode);
    if (d < 0) {
        return -1;
    }
    if (ct__is_device(t) || ct__is_device(index) || ct__is_device(src)) {
        return index_along_device(t, d, index, src, value, mode, alpha);
    }
    return index_along(t, d, index, src, value, mode, alpha);
}

int
ct_index_add_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
              ct_scalar alpha)
{
    return index_along_op(t, dim, index, src, ct_scalar_int(0), ALONG_ADD, alpha);
}

int
ct_index_copy_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src)
{
    return index_along_op(t, dim, index, src, ct_scalar_int(0), ALONG_COPY,
                          ct_scalar_int(1));
}

int
ct_index_fill_(ct_tensor *t, int64_t dim, const ct_tensor *index, ct_scalar value)
{
    return index_along_op(t, dim, index, NULL, value, ALONG_FILL, ct_scalar_int(1));
}
