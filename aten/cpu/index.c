/* aten/cpu/index.c -- indexing with tensors: nonzero, advanced indexing
 * (index / index_put_), index_select, masked_select, take, gather, scatter,
 * index_add_/copy_/fill_.
 *
 * Moving elements needs only their size, so most kernels copy itemsize
 * bytes; the accumulating ones (index_put_ with accumulate, scatter reduce,
 * index_add_) add through a per-dtype table. */
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

ct_tensor *
ct_nonzero(const ct_tensor *t)
{
    int64_t count = 0;
    for (int64_t i = 0; i < t->numel; i++) {
        count += ct_scalar_to_double(ct_tensor_item_at(t, i)) != 0.0;
    }
    int64_t sizes[2] = {count, t->ndim};
    ct_tensor *r = ct_empty(2, sizes, CT_DTYPE_INT64, ct_device_cpu());
    if (r == NULL) {
        return NULL;
    }
    int64_t *o = (int64_t *)ct_tensor_data(r);
    for (int64_t i = 0; i < t->numel; i++) {
        if (ct_scalar_to_double(ct_tensor_item_at(t, i)) == 0.0) {
            continue;
        }
        int64_t rem = i;
        for (int d = t->ndim - 1; d >= 0; d--) {
            o[d] = rem % t->sizes[d];
            rem /= t->sizes[d];
        }
        o += t->ndim;
    }
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
        /* bounds, once per index element */
        for (int64_t i = 0; i < indices[d]->numel; i++) {
            int64_t v = index_value(indices[d], i);
            if (v < -t->sizes[d] || v >= t->sizes[d]) {
                plan_release(p);
                return ct_error(CT_ERR_INDEX, "index %lld is out of bounds for dimension "
                                "%d with size %lld", (long long)v, d,
                                (long long)t->sizes[d]);
            }
        }
    }
    return 0;
}

/* Source element offset of result element `i` (row-major over p->sizes). */
static int64_t
plan_offset(const ct_tensor *t, const index_plan *p, int64_t i)
{
    int64_t coord[CT_MAX_DIMS];
    for (int d = p->ndim - 1; d >= 0; d--) {
        coord[d] = i % p->sizes[d];
        i /= p->sizes[d];
    }
    /* the broadcast index position, row-major over bsizes */
    int64_t bpos = 0;
    for (int j = 0; j < p->nb; j++) {
        bpos = bpos * p->bsizes[j] + coord[p->first + j];
    }
    /* non-indexed dims take the result coordinates around the index block */
    int64_t off = t->offset;
    int k = 0;
    bool skipped = false;
    for (int d = 0; d < t->ndim; d++) {
        if (p->idx[d] != NULL) {
            int64_t v = ct_scalar_to_int(ct_tensor_item_at(p->idx[d], bpos));
            off += (v < 0 ? v + t->sizes[d] : v) * t->strides[d];
            continue;
        }
        if (!skipped && k == p->first) {
            k += p->nb;
            skipped = true;
        }
        off += coord[k++] * t->strides[d];
    }
    return off;
}

ct_tensor *
ct_index(const ct_tensor *t, int n, ct_tensor *const *indices)
{
    index_plan p;
    if (plan_make(t, n, indices, &p) < 0) {
        return NULL;
    }
    ct_tensor *r = ct_empty(p.ndim, p.sizes, t->dtype, ct_device_cpu());
    if (r != NULL) {
        size_t item = ct_dtype_itemsize(t->dtype);
        char *o = ct_tensor_data(r);
        for (int64_t i = 0; i < r->numel; i++) {
            memcpy(o + (size_t)i * item,
                   t->storage->data + plan_offset(t, &p, i) * (int64_t)item, item);
        }
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    plan_release(&p);
    return r;
}

int
ct_index_put_(ct_tensor *t, int n, ct_tensor *const *indices, const ct_tensor *values,
              bool accumulate)
{
    index_plan p;
    int rc = -1;
    if (plan_make(t, n, indices, &p) < 0) {
        return -1;
    }
    ct_tensor *v = ct_to_dtype(values, t->dtype, false);
    ct_tensor *e = v ? ct_expand(v, p.ndim, p.sizes) : NULL;
    if (e == NULL) {
        if (v != NULL) {
            char b1[256], b2[256];
            ct_error_clear();
            ct_error(CT_ERR_RUNTIME, "shape mismatch: value tensor of shape %s cannot be "
                     "broadcast to indexing result of shape %s",
                     ct_format_sizes(values->ndim, values->sizes, b1, sizeof b1),
                     ct_format_sizes(p.ndim, p.sizes, b2, sizeof b2));
        }
        goto done;
    }
    size_t item = ct_dtype_itemsize(t->dtype);
    int64_t total = 1;
    for (int d = 0; d < p.ndim; d++) {
        total *= p.sizes[d];
    }
    for (int64_t i = 0; i < total; i++) {
        char *dst = t->storage->data + plan_offset(t, &p, i) * (int64_t)item;
        const char *src = element_at(e, i);
        if (accumulate) {
            accumulators[t->dtype](dst, src, 0, 1.0);
        }
        else {
            memcpy(dst, src, item);
        }
    }
    rc = 0;
done:
    ct_tensor_decref(e);
    ct_tensor_decref(v);
    plan_release(&p);
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
    ct_tensor *te = ct_expand(t, nd, shape), *me = ct_expand(mask, nd, shape);
    ct_tensor *r = NULL;
    if (te != NULL && me != NULL) {
        int64_t count = 0;
        for (int64_t i = 0; i < me->numel; i++) {
            count += *element_at(me, i) != 0;
        }
        r = ct_empty(1, &count, t->dtype, ct_device_cpu());
        if (r != NULL) {
            size_t item = ct_dtype_itemsize(t->dtype);
            char *o = ct_tensor_data(r);
            for (int64_t i = 0; i < me->numel; i++) {
                if (*element_at(me, i)) {
                    memcpy(o, element_at(te, i), item);
                    o += item;
                }
            }
        }
    }
    ct_tensor_decref(te);
    ct_tensor_decref(me);
    return r;
}

ct_tensor *
ct_take(const ct_tensor *t, const ct_tensor *index)
{
    if (check_index_dtype(index, "take") < 0) {
        return NULL;
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
        s = (ct_tensor *)src;
        ct_tensor_incref(s);
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
static int
index_along(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
            ct_scalar value, int mode, ct_scalar alpha, const char *what)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    if (index->ndim > 1) {
        return ct_error(CT_ERR_INDEX, "%s(): Index is supposed to be a vector", what);
    }
    if (index->dtype != CT_DTYPE_INT64) {
        return ct_error(CT_ERR_RUNTIME, "%s(): Expected dtype int64 for index", what);
    }
    int64_t size = t->ndim ? t->sizes[d] : 1;
    for (int64_t i = 0; i < index->numel; i++) {
        int64_t v = index_value(index, i);
        if (v < -size || v >= size) {
            return ct_error(CT_ERR_INDEX, "index out of range in self");
        }
        if (v < 0) {
            v += size;
        }
        ct_tensor *dst = t->ndim ? ct_select(t, d, v) : (ct_tensor_incref(t), t);
        ct_tensor *from = NULL;
        int rc = dst ? 0 : -1;
        if (rc == 0 && mode != 2) {
            from = src->ndim ? ct_select(src, d, i) : (ct_tensor_incref((ct_tensor *)src),
                                                       (ct_tensor *)src);
            rc = from ? 0 : -1;
        }
        if (rc == 0) {
            if (mode == 0) {
                ct_tensor *sum = ct_binary(CT_BINARY_ADD, dst, from, alpha, dst,
                                           CT_OUT_INPLACE);
                rc = sum ? 0 : -1;
                ct_tensor_decref(sum);
            }
            else if (mode == 1) {
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

int
ct_index_add_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
              ct_scalar alpha)
{
    return index_along(t, dim, index, src, ct_scalar_int(0), 0, alpha, "index_add_");
}

int
ct_index_copy_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src)
{
    return index_along(t, dim, index, src, ct_scalar_int(0), 1, ct_scalar_int(1),
                       "index_copy_");
}

int
ct_index_fill_(ct_tensor *t, int64_t dim, const ct_tensor *index, ct_scalar value)
{
    return index_along(t, dim, index, NULL, value, 2, ct_scalar_int(1), "index_fill_");
}
