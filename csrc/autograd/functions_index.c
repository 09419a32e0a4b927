/* csrc/autograd/functions_index.c -- the indexing ops and their derivatives.
 *
 * Two families that are each other's backward:
 * - readers: t[indices], index_select, gather, take, masked_select.  The
 *   gradient goes back through the matching writer on zeros: index_put
 *   (accumulate), index_add, scatter_add, put (accumulate), masked_scatter.
 * - writers: index_put, put, scatter (src or value), scatter_add, index_add,
 *   index_copy, index_fill, masked_scatter, in place on self (leaf check,
 *   version bump, ct_record_inplace) or on a copy of it (ct_record).  Their
 *   gradients are readers of the gradient.
 * Both directions are written with ctag_ ops, so every formula here is
 * differentiable again (double backward).
 *
 * Note [Writing into fresh zeros]: a reader's backward writes the gradient
 * into zeros it has just made.  The writer runs in place on them and is
 * recorded as if they were a new result with no edge of their own, so no
 * copy is made and, under create_graph, the gradient gets the writer's
 * history (an edge to the incoming gradient only).
 *
 * Node payload: saved[0] the index (an int64 copy where the writer used by
 * the backward needs one) or the mask; d[0] the dim; meta 0 / 1 the shapes
 * and dtypes of self and of the source; s[0] index_add's alpha; d[1]
 * index_put's / put's accumulate, or 1 for a scatter(reduce=) recorded in place;
 * extra / n_ints the index tensors of t[indices] and index_put (owned).
 */
#include "functions.h"

#include "aten/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
floating(ct_dtype dt)
{
    return ct_dtype_is_floating(dt);
}

static const char *
legacy(ct_dtype dt)
{
    return ct_dtype_table[dt].legacy;
}

/* The index tensors of t[indices] / index_put, owned by the node. */
static void
indices_release(ct_node *n)
{
    ct_tensor **idx = n->extra;
    for (int i = 0; i < n->n_ints; i++) {
        ct_tensor_decref(idx[i]);
    }
    free(idx);
    n->extra = NULL;
}

static int
indices_keep(ct_node *node, int n, ct_tensor *const *indices)
{
    ct_tensor **idx = calloc((size_t)(n > 0 ? n : 1), sizeof *idx);
    if (idx == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++) {
        if ((idx[i] = indices[i]) != NULL) {
            ct_tensor_incref(idx[i]);
        }
    }
    node->extra = idx;
    node->n_ints = n;
    return 0;
}

/* A 0-dim zero of dt, for the formulas that zero positions. */
static ct_tensor *
zero_of(ct_dtype dt)
{
    return ct_zeros(0, NULL, dt);
}

/* --- writers ------------------------------------------------------------- */

/* W_INDEX_PUT_IMPL: index_put as t[indices]'s backward runs it (PyTorch's
 * _index_put_impl_); the same formulas as W_INDEX_PUT. */
#define CT_FORALL_WRITERS(X)                                                  \
    X(W_INDEX_PUT, "IndexPutBackward0")                                       \
    X(W_INDEX_PUT_IMPL, "IndexPutImplBackward0")                              \
    X(W_PUT, "PutBackward0")                                                  \
    X(W_SCATTER, "ScatterBackward0")                                          \
    X(W_SCATTER_VALUE, "ScatterBackward1")                                    \
    X(W_SCATTER_REDUCE, "NotImplemented")                                     \
    X(W_SCATTER_ADD, "ScatterAddBackward0")                                   \
    X(W_INDEX_ADD, "IndexAddBackward0")                                       \
    X(W_INDEX_COPY, "IndexCopyBackward0")                                     \
    X(W_INDEX_FILL, "IndexFillBackward0")                                     \
    X(W_INDEX_FILL_TENSOR, "IndexFillBackward1")                              \
    X(W_MASKED_SCATTER, "MaskedScatterBackward0")

typedef enum {
#define X(E, NAME) E,
    CT_FORALL_WRITERS(X)
#undef X
    W_COUNT
} write_kind;

static int write_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type write_types[] = {
#define X(E, NAME) [E] = {NAME, write_apply, indices_release},
    CT_FORALL_WRITERS(X)
#undef X
};
_Static_assert(sizeof write_types / sizeof write_types[0] == W_COUNT,
               "one node type per writer");

/* What a writer writes: the arguments of every form in one place. */
typedef struct {
    write_kind kind;
    int64_t dim;
    const ct_tensor *index;         /* the index, or masked_scatter's mask */
    const ct_tensor *src;           /* src / source / values / value tensor */
    ct_scalar value;                /* the fill value, or index_add's alpha */
    const char *reduce;             /* scatter's reduce= */
    int n;                          /* index_put: indices[0..n-1] */
    ct_tensor *const *indices;
    bool accumulate;                /* index_put, put */
} write_args;

static bool
is_index_put(write_kind k)
{
    return k == W_INDEX_PUT || k == W_INDEX_PUT_IMPL;
}

/* Whether the source is an input with a gradient (edge 1). */
static bool
has_src(const write_args *a)
{
    return a->src != NULL && a->kind != W_SCATTER_VALUE && a->kind != W_INDEX_FILL;
}

/* The shape checks PyTorch makes that the kernels leave to their callers
 * (a src smaller than the index would be read out of bounds). */
static int
check_scatter_src(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                  const ct_tensor *src)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    if ((src->ndim ? src->ndim : 1) != (index->ndim ? index->ndim : 1)) {
        return ct_error(CT_ERR_RUNTIME, "Index tensor must have the same number of "
                        "dimensions as src tensor");
    }
    for (int k = 0; k < index->ndim && src->ndim > 0; k++) {
        if (index->sizes[k] > src->sizes[k] ||
            (k != d && k < t->ndim && index->sizes[k] > t->sizes[k])) {
            char b1[256], b2[256], b3[256];
            return ct_error(CT_ERR_RUNTIME, "Expected index %s to be smaller than self %s "
                            "apart from dimension %d and to be smaller size than src %s",
                            ct_format_sizes(index->ndim, index->sizes, b1, sizeof b1),
                            ct_format_sizes(t->ndim, t->sizes, b2, sizeof b2), d,
                            ct_format_sizes(src->ndim, src->sizes, b3, sizeof b3));
        }
    }
    return 0;
}

/* index_copy_'s slices: t's sizes without dim d (a 0-dim t: none) */
static bool
slice_shapes_differ(const ct_tensor *t, const ct_tensor *src, int d)
{
    int nt = t->ndim ? t->ndim - 1 : 0, ns = src->ndim ? src->ndim - 1 : 0;
    if (nt != ns) {
        return true;
    }
    for (int k = 0; k < t->ndim && k < src->ndim; k++) {
        if (k != d && t->sizes[k] != src->sizes[k]) {
            return true;
        }
    }
    return false;
}

/* the slice's sizes as PyTorch prints a size vector: "5 4" */
static const char *
slice_text(const ct_tensor *t, int d, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < t->ndim && at < n; k++) {
        if (k != d) {
            at += (size_t)snprintf(buf + at, n - at, "%s%lld", at ? " " : "",
                                   (long long)t->sizes[k]);
        }
    }
    return buf;
}

static int
check_index_source(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                   const ct_tensor *src, bool copy)
{
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    if (src->dtype != t->dtype) {
        return copy ? ct_error(CT_ERR_RUNTIME, "index_copy_(): self and source expected "
                               "to have the same dtype, but got (self) %s and (source) %s",
                               legacy(t->dtype), legacy(src->dtype))
                    : ct_error(CT_ERR_RUNTIME, "index_add_(): self (%s) and source (%s) "
                               "must have the same scalar type", legacy(t->dtype),
                               legacy(src->dtype));
    }
    if (copy && src->ndim > 0 && t->ndim > 0 && src->ndim != t->ndim) {
        return ct_error(CT_ERR_INDEX, "index_copy_(): When source and destination are not "
                        "scalars, their dimensionality must match. Source dimensionality "
                        "(%d), destination dimensionality (%d)", src->ndim, t->ndim);
    }
    if (copy && slice_shapes_differ(t, src, d)) {
        char a[256], b[256];
        return ct_error(CT_ERR_RUNTIME, "index_copy_(): Source/destination tensor must "
                        "have same slice shapes. Destination slice shape: %s at dimension "
                        "%d and source slice shape: %s at dimension 0.",
                        slice_text(t, d, a, sizeof a), d, slice_text(src, d, b, sizeof b));
    }
    int64_t count = src->ndim > d ? src->sizes[d] : 1;
    if (index->ndim <= 1 && index->numel != count) {
        return copy ? ct_error(CT_ERR_INDEX, "index_copy_(): Number of indices (%lld) "
                               "should be equal to source.size(dim) (%lld)",
                               (long long)index->numel, (long long)count)
                    : ct_error(CT_ERR_RUNTIME, "index_add_(): Number of indices (%lld) "
                               "should be equal to source.size(dim): (%lld), for dim: %d",
                               (long long)index->numel, (long long)count, d);
    }
    return 0;
}

/* masked_scatter_ on t: source's leading elements, in order, go where the
 * mask (broadcast to t) is set -- the coordinates of the set elements made
 * into index tensors for index_put_. */
static int
masked_scatter_kernel(ct_tensor *t, const ct_tensor *mask, const ct_tensor *src)
{
    if (mask->dtype != CT_DTYPE_BOOL && mask->dtype != CT_DTYPE_UINT8) {
        return ct_error(CT_ERR_RUNTIME, "masked_scatter_ only supports boolean masks, but "
                        "got mask with dtype %s", ct_dtype_table[mask->dtype].name);
    }
    if (src->dtype != t->dtype) {
        return ct_error(CT_ERR_RUNTIME, "masked_scatter: expected self and source to have "
                        "same dtypes but got%s and %s", legacy(t->dtype),
                        legacy(src->dtype));
    }
    ct_tensor *cols[CT_MAX_DIMS] = {NULL};
    ct_tensor *m = ct_expand(mask, t->ndim, t->sizes);
    ct_tensor *nz = m != NULL ? ct_nonzero(m) : NULL;      /* (count, ndim) */
    ct_tensor *flat = NULL, *vals = NULL;
    int rc = -1;
    if (nz == NULL) {
        goto done;
    }
    int64_t count = nz->sizes[0], all = src->numel;
    if (all < count) {
        ct_error(CT_ERR_RUNTIME, "Number of elements of source < number of ones in mask");
        goto done;
    }
    if (count == 0) {
        rc = 0;
        goto done;
    }
    if ((flat = ct_reshape(src, 1, &all)) == NULL ||
        (vals = ct_narrow(flat, 0, 0, count)) == NULL) {
        goto done;
    }
    if (t->ndim == 0) {
        ct_tensor *v = ct_select(vals, 0, 0);
        rc = v != NULL ? ct_copy_(t, v) : -1;
        ct_tensor_decref(v);
        goto done;
    }
    for (int k = 0; k < t->ndim; k++) {
        if ((cols[k] = ct_select(nz, 1, k)) == NULL) {
            goto done;
        }
    }
    rc = ct_index_put_(t, t->ndim, cols, vals, false);
done:
    for (int k = 0; k < CT_MAX_DIMS; k++) {
        ct_tensor_decref(cols[k]);
    }
    ct_tensor_decref(vals);
    ct_tensor_decref(flat);
    ct_tensor_decref(nz);
    ct_tensor_decref(m);
    return rc;
}

/* put_ on t: source's elements to the flat (row-major) positions index
 * names, through index_put_ on a flat view of t (of a contiguous copy
 * written back when t is not contiguous). */
static int
put_kernel(ct_tensor *t, const ct_tensor *index, const ct_tensor *src, bool accumulate)
{
    if (index->dtype != CT_DTYPE_INT64) {
        return ct_error(CT_ERR_RUNTIME, "put_(): Expected a long tensor for index, but got "
                        "%s", legacy(index->dtype));
    }
    if (src->dtype != t->dtype) {
        return ct_error(CT_ERR_RUNTIME, "put_(): self and source expected to have the same "
                        "dtype, but got self.dtype = %s and source.dtype = %s",
                        legacy(t->dtype), legacy(src->dtype));
    }
    if (src->numel != index->numel) {
        return ct_error(CT_ERR_INDEX, "put_(): Expected source and index to have the same "
                        "number of elements, but got source.numel() = %lld, index.numel() "
                        "= %lld", (long long)src->numel, (long long)index->numel);
    }
    if (index->numel == 0) {
        return 0;
    }
    if (t->numel == 0) {
        return ct_error(CT_ERR_INDEX, "put_(): Tried to put elements into an empty tensor");
    }
    bool on_device = ct__is_device(index), bad = false;
    int64_t first = 0;
    if (on_device && ct__device_index_check(index, -t->numel, t->numel, &bad, &first) < 0) {
        return -1;
    }
    for (int64_t i = 0; !on_device && !bad && i < index->numel; i++) {
        first = ct_scalar_to_int(ct_tensor_item_at(index, i));
        bad = first < -t->numel || first >= t->numel;
    }
    if (bad) {
        return ct_error(CT_ERR_INDEX, "out of range: tried to access index %lld on a "
                        "tensor of %lld elements.", (long long)first, (long long)t->numel);
    }
    int64_t all = t->numel, count = index->numel;
    ct_tensor *c = ct_contiguous(t);
    ct_tensor *flat = c != NULL ? ct_view(c, 1, &all) : NULL;
    ct_tensor *fi = flat != NULL ? ct_reshape(index, 1, &count) : NULL;
    ct_tensor *fs = fi != NULL ? ct_reshape(src, 1, &count) : NULL;
    int rc = fs != NULL ? ct_index_put_(flat, 1, &fi, fs, accumulate) : -1;
    if (rc == 0 && c != t) {
        rc = ct_copy_(t, c);
    }
    ct_tensor_decref(fs);
    ct_tensor_decref(fi);
    ct_tensor_decref(flat);
    ct_tensor_decref(c);
    return rc;
}

static int
write_kernel(ct_tensor *t, const write_args *a)
{
    switch (a->kind) {
    case W_PUT:
        return put_kernel(t, a->index, a->src, a->accumulate);
    case W_INDEX_PUT:
    case W_INDEX_PUT_IMPL:
        if (a->src->dtype != t->dtype) {
            return ct_error(CT_ERR_RUNTIME, "Index put requires the source and destination "
                            "dtypes match, got %s for the destination and %s for the "
                            "source.", legacy(t->dtype), legacy(a->src->dtype));
        }
        return ct_index_put_(t, a->n, a->indices, a->src, a->accumulate);
    case W_SCATTER:
    case W_SCATTER_VALUE:
    case W_SCATTER_REDUCE:
    case W_SCATTER_ADD:
        if (a->src != NULL && check_scatter_src(t, a->dim, a->index, a->src) < 0) {
            return -1;
        }
        return ct_scatter_(t, a->dim, a->index, a->src, a->value,
                           a->kind == W_SCATTER_ADD ? "add" : a->reduce);
    case W_INDEX_ADD:
        if (check_index_source(t, a->dim, a->index, a->src, false) < 0) {
            return -1;
        }
        return ct_index_add_(t, a->dim, a->index, a->src, a->value);
    case W_INDEX_COPY:
        if (check_index_source(t, a->dim, a->index, a->src, true) < 0) {
            return -1;
        }
        return ct_index_copy_(t, a->dim, a->index, a->src);
    case W_INDEX_FILL:
    case W_INDEX_FILL_TENSOR:
        return ct_index_fill_(t, a->dim, a->index, a->value);
    case W_MASKED_SCATTER:
        return masked_scatter_kernel(t, a->index, a->src);
    default:
        CT_ASSERT(0);
        return -1;
    }
}

/* Record the writer that produced dst: in place on self, or a new result
 * made from self (self NULL: fresh zeros, Note [Writing into fresh zeros]).
 * 0 when recorded or nothing needed recording, -1 on error. */
static int
write_record(ct_tensor *dst, const ct_tensor *self, const write_args *a, bool inplace)
{
    const ct_tensor *ins[2] = {self, has_src(a) ? a->src : NULL};
    int nin = has_src(a) ? 2 : 1;
    if (!floating(dst->dtype) || !ct_any_requires_grad(nin, ins)) {
        return 0;
    }
    const ct_node_type *type = &write_types[a->kind];
    ct_node *n = inplace ? ct_record_inplace(type, nin, ins, dst)
                         : ct_record(type, nin, ins, 1, &dst);
    if (n == NULL) {
        return -1;
    }
    n->d[0] = (double)a->dim;
    n->s[0] = a->value;
    ag_save_meta(n, 0, self != NULL ? self : dst);
    if (nin > 1) {
        ag_save_meta(n, 1, a->src);
    }
    switch (a->kind) {
    case W_INDEX_PUT:
    case W_INDEX_PUT_IMPL:
        n->d[1] = a->accumulate;
        return indices_keep(n, a->n, a->indices);
    case W_PUT:
        n->d[1] = a->accumulate;
        return ct_node_save(n, 0, a->index, false);
    case W_SCATTER_REDUCE:
        n->d[1] = inplace;
        return 0;
    default:
        return ct_node_save(n, 0, a->index, false);
    }
}

static int
write_inplace(ct_tensor *self, const write_args *a)
{
    if (ag_inplace_begin(self) < 0 || write_kernel(self, a) < 0) {
        return -1;
    }
    ct_tensor_bump_version(self);
    return write_record(self, self, a, true);
}

/* The writer on fresh t (owned by the caller), recorded as made from self
 * (NULL: no edge for t's old contents). */
static int
write_fresh(ct_tensor *t, const ct_tensor *self, const write_args *a)
{
    if (write_kernel(t, a) < 0) {
        return -1;
    }
    return write_record(t, self, a, false);
}

/* The out-of-place form: the writer on a copy of self (for masked_scatter,
 * of self broadcast with the mask).  Returns a new reference. */
static ct_tensor *
write_new(const ct_tensor *self, const write_args *a)
{
    ct_tensor *t;
    if (a->kind == W_MASKED_SCATTER) {
        int nd;
        int64_t shape[CT_MAX_DIMS];
        if (ct_broadcast_shapes(self->ndim, self->sizes, a->index->ndim, a->index->sizes,
                                &nd, shape) < 0) {
            return NULL;
        }
        ct_tensor *e = ct_expand(self, nd, shape);
        t = e != NULL ? ct_contiguous(e) : NULL;
        if (t == e && t != NULL) {
            ct_tensor_decref(t);
            t = ct_clone(e);
        }
        ct_tensor_decref(e);
    }
    else {
        t = ct_clone(self);
    }
    if (t == NULL) {
        return NULL;
    }
    if (write_fresh(t, self, a) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* Writes into fresh zeros shaped like input k of n (a reader's backward),
 * on the incoming gradient's device; returns the zeros, a new reference. */
static ct_tensor *
write_into_zeros(int ndim, const int64_t *sizes, ct_dtype dtype, const write_args *a)
{
    ct_tensor *z = ct_zeros_on(ndim, sizes, dtype, ct_tensor_device(a->src));
    if (z != NULL && write_fresh(z, NULL, a) < 0) {
        ct_tensor_decref(z);
        return NULL;
    }
    return z;
}

/* masked_scatter's gradient for source: g where the mask is set, in order,
 * then zeros for the source elements that were not used. */
static ct_tensor *
masked_scatter_source_grad(ag_frame *f, ct_node *n, const ct_tensor *g,
                           const ct_tensor *mask)
{
    int nd = ag_input_ndim(n, 1);
    const int64_t *sizes = ag_input_sizes(n, 1);
    int64_t all = 1;
    for (int d = 0; d < nd; d++) {
        all *= sizes[d];
    }
    ct_tensor *sel = ag_tmp(f, ctag_masked_select(g, mask));
    if (sel == NULL) {
        return NULL;
    }
    if (sel->numel < all) {
        int64_t rest = all - sel->numel;
        ct_tensor *z = ag_tmp(f, ct_zeros_on(1, &rest, g->dtype, ct_tensor_device(g)));
        const ct_tensor *parts[2] = {sel, z};
        sel = z != NULL ? ag_tmp(f, ctag_cat(2, parts, 0, NULL)) : NULL;
    }
    return sel != NULL ? ctag_view(sel, nd, sizes) : NULL;
}

/* g (index-shaped) padded with zeros to input k's shape: scatter reads
 * only the leading part of a src larger than the index, the rest gets no
 * gradient.  (PyTorch 1.13 fails there, returning the index-shaped one.)
 * Consumes g; returns a new reference. */
static ct_tensor *
pad_to_input(ct_node *n, int k, ct_tensor *g)
{
    const int64_t *sizes = ag_input_sizes(n, k);
    if (g == NULL || g->ndim != ag_input_ndim(n, k)) {
        return g;
    }
    for (int d = 0; d < g->ndim && g != NULL; d++) {
        if (g->sizes[d] < sizes[d]) {
            int64_t zs[CT_MAX_DIMS];
            memcpy(zs, g->sizes, sizeof(int64_t) * (size_t)g->ndim);
            zs[d] = sizes[d] - g->sizes[d];
            ct_tensor *z = ct_zeros_on(g->ndim, zs, g->dtype, ct_tensor_device(g));
            const ct_tensor *parts[2] = {g, z};
            ct_tensor *c = z != NULL ? ctag_cat(2, parts, d, NULL) : NULL;
            ct_tensor_decref(z);
            ct_tensor_decref(g);
            g = c;
        }
    }
    return g;
}

static int
write_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    write_kind kind = (write_kind)(n->type - write_types);
    ct_tensor *g = gi[0], *index = NULL;
    int64_t dim = (int64_t)n->d[0];
    bool need_self = ct_node_needs(n, 0);
    bool need_src = n->n_edges > 1 && ct_node_needs(n, 1);
    ag_frame f = {0};
    ct_tensor *gs = NULL, *gsrc = NULL;

    if (kind == W_SCATTER_REDUCE) {
        return ct_error(CT_ERR_RUNTIME, "derivative for aten::%s is not implemented",
                        n->d[1] != 0 ? "scatter_" : "scatter");
    }
    if (!is_index_put(kind) && (index = ag_tmp(&f, ct_node_unpack(n, 0))) == NULL) {
        goto fail;
    }
    if (is_index_put(kind) && n->released) {
        ct_node_unpack(n, 0);       /* the freed-graph error */
        goto fail;
    }
    ct_tensor *zero = ag_tmp(&f, zero_of(g->dtype));
    if (zero == NULL) {
        goto fail;
    }
    /* self: g where self's old values survived */
    ct_tensor *filled = NULL;
    if (kind == W_INDEX_COPY || kind == W_INDEX_FILL || kind == W_INDEX_FILL_TENSOR) {
        if ((need_self || (kind == W_INDEX_FILL_TENSOR && need_src)) &&
            (filled = ag_tmp(&f, ctag_index_fill(g, dim, index, NULL, ct_scalar_int(0)))) ==
                NULL) {
            goto fail;
        }
    }
    if (need_self) {
        switch (kind) {
        case W_INDEX_PUT:
        case W_INDEX_PUT_IMPL:
            gs = n->d[1] != 0 ? (ct_tensor_incref(g), g)
                              : ctag_index_put(g, n->n_ints, n->extra, zero, false);
            break;
        case W_PUT: {
            int64_t count = index->numel;
            ct_tensor *z = ag_tmp(&f, ct_zeros_on(1, &count, g->dtype, ct_tensor_device(g)));
            gs = n->d[1] != 0 ? (ct_tensor_incref(g), g)
                 : z != NULL  ? ctag_put(g, index, z, false) : NULL;
            break;
        }
        case W_SCATTER:
        case W_SCATTER_VALUE:
            gs = ctag_scatter(g, dim, index, NULL, ct_scalar_int(0), NULL);
            break;
        case W_SCATTER_ADD:
        case W_INDEX_ADD:
            ct_tensor_incref(g);
            gs = g;
            break;
        case W_INDEX_COPY:
        case W_INDEX_FILL:
        case W_INDEX_FILL_TENSOR:
            ct_tensor_incref(filled);
            gs = filled;
            break;
        case W_MASKED_SCATTER:
            /* g.masked_fill(mask, 0), on a copy */
            gs = ctag_clone(g);
            if (gs != NULL && ctag_masked_fill_(gs, index, ct_scalar_int(0)) < 0) {
                ct_tensor_decref(gs);
                gs = NULL;
            }
            break;
        default:
            CT_ASSERT(0);
        }
        if ((go[0] = ag_to_input(n, 0, gs)) == NULL) {
            goto fail;
        }
    }
    /* the source: the part of g it was written to */
    if (need_src) {
        switch (kind) {
        case W_INDEX_PUT:
        case W_INDEX_PUT_IMPL:
            gsrc = ctag_index(g, n->n_ints, n->extra);
            break;
        case W_PUT:
            gsrc = ctag_reshape(ag_tmp(&f, ctag_take(g, index)), ag_input_ndim(n, 1),
                                ag_input_sizes(n, 1));
            break;
        case W_SCATTER:
        case W_SCATTER_ADD:
            gsrc = pad_to_input(n, 1, ctag_gather(g, dim, index));
            break;
        case W_INDEX_ADD:
        case W_INDEX_COPY: {
            /* expand_as(source) as PyTorch: an index_add source may be
             * broadcast within each slice */
            double alpha = kind == W_INDEX_ADD ? ct_scalar_to_double(n->s[0]) : 1;
            ct_tensor *sel = ag_tmp(&f, ctag_index_select(g, dim, index));
            if (sel != NULL && alpha != 1) {
                sel = ag_tmp(&f, ag_mul_s(sel, alpha));
            }
            if (sel != NULL && ag_input_ndim(n, 1) > 0 && sel->ndim == ag_input_ndim(n, 1)) {
                gsrc = ctag_expand(sel, ag_input_ndim(n, 1), ag_input_sizes(n, 1));
            }
            else if (sel != NULL) {
                ct_tensor_incref(sel);
                gsrc = sel;
            }
            break;
        }
        case W_INDEX_FILL_TENSOR:
            /* the sum of g over the filled positions (an index may repeat) */
            gsrc = ctag_sum(ag_tmp(&f, ctag_sub(g, filled, ct_scalar_int(1))), 0, NULL,
                            false, CT_DTYPE_COUNT);
            break;
        case W_MASKED_SCATTER:
            gsrc = masked_scatter_source_grad(&f, n, g, index);
            break;
        default:
            CT_ASSERT(0);
        }
        if ((go[1] = ag_to_input(n, 1, gsrc)) == NULL) {
            goto fail;
        }
    }
    ag_end(&f);
    return 0;
fail:
    ag_end(&f);
    return -1;
}

/* --- writers: the public forms ------------------------------------------- */

ct_tensor *
ctag_index_put(const ct_tensor *t, int n, ct_tensor *const *indices, const ct_tensor *values,
               bool accumulate)
{
    AG_NULL_IF_ANY(t, values);
    write_args a = {.kind = W_INDEX_PUT, .src = values, .n = n, .indices = indices,
                    .accumulate = accumulate};
    return write_new(t, &a);
}

ct_tensor *
ctag_put(const ct_tensor *t, const ct_tensor *index, const ct_tensor *source, bool accumulate)
{
    AG_NULL_IF_ANY(t, index, source);
    write_args a = {.kind = W_PUT, .index = index, .src = source, .accumulate = accumulate};
    return write_new(t, &a);
}

int
ctag_put_(ct_tensor *t, const ct_tensor *index, const ct_tensor *source, bool accumulate)
{
    write_args a = {.kind = W_PUT, .index = index, .src = source, .accumulate = accumulate};
    return write_inplace(t, &a);
}

static write_args
scatter_args(int64_t dim, const ct_tensor *index, const ct_tensor *src, ct_scalar value,
             const char *reduce)
{
    write_args a = {.kind = reduce != NULL ? W_SCATTER_REDUCE
                            : src != NULL ? W_SCATTER : W_SCATTER_VALUE,
                    .dim = dim, .index = index, .src = src, .value = value,
                    .reduce = reduce};
    return a;
}

ct_tensor *
ctag_scatter(const ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
             ct_scalar value, const char *reduce)
{
    AG_NULL_IF_ANY(t, index);
    write_args a = scatter_args(dim, index, src, value, reduce);
    return write_new(t, &a);
}

int
ctag_scatter_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src,
              ct_scalar value, const char *reduce)
{
    write_args a = scatter_args(dim, index, src, value, reduce);
    return write_inplace(t, &a);
}

ct_tensor *
ctag_scatter_add(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                 const ct_tensor *src)
{
    AG_NULL_IF_ANY(t, index, src);
    write_args a = {.kind = W_SCATTER_ADD, .dim = dim, .index = index, .src = src};
    return write_new(t, &a);
}

int
ctag_scatter_add_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *src)
{
    write_args a = {.kind = W_SCATTER_ADD, .dim = dim, .index = index, .src = src};
    return write_inplace(t, &a);
}

ct_tensor *
ctag_index_add(const ct_tensor *t, int64_t dim, const ct_tensor *index,
               const ct_tensor *source, ct_scalar alpha)
{
    AG_NULL_IF_ANY(t, index, source);
    write_args a = {.kind = W_INDEX_ADD, .dim = dim, .index = index, .src = source,
                    .value = alpha};
    return write_new(t, &a);
}

int
ctag_index_add_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *source,
                ct_scalar alpha)
{
    write_args a = {.kind = W_INDEX_ADD, .dim = dim, .index = index, .src = source,
                    .value = alpha};
    return write_inplace(t, &a);
}

ct_tensor *
ctag_index_copy(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                const ct_tensor *source)
{
    AG_NULL_IF_ANY(t, index, source);
    write_args a = {.kind = W_INDEX_COPY, .dim = dim, .index = index, .src = source};
    return write_new(t, &a);
}

int
ctag_index_copy_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *source)
{
    write_args a = {.kind = W_INDEX_COPY, .dim = dim, .index = index, .src = source};
    return write_inplace(t, &a);
}

/* index_fill's value: a number, or a 0-dim tensor (IndexFillBackward1,
 * whose gradient flows to the tensor). */
static int
fill_args(write_args *a, int64_t dim, const ct_tensor *index, const ct_tensor *value_t,
          ct_scalar value)
{
    *a = (write_args){.kind = W_INDEX_FILL, .dim = dim, .index = index, .value = value};
    if (value_t != NULL) {
        if (value_t->ndim != 0) {
            return ct_error(CT_ERR_RUNTIME, "index_fill_ only supports a 0-dimensional "
                            "value tensor, but got tensor with %d dimension(s).",
                            value_t->ndim);
        }
        a->kind = W_INDEX_FILL_TENSOR;
        a->src = value_t;
        /* (a device value through a host copy) */
        return ct_tensor_item(value_t, &a->value);
    }
    return 0;
}

ct_tensor *
ctag_index_fill(const ct_tensor *t, int64_t dim, const ct_tensor *index,
                const ct_tensor *value_t, ct_scalar value)
{
    AG_NULL_IF_ANY(t, index);
    write_args a;
    return fill_args(&a, dim, index, value_t, value) < 0 ? NULL : write_new(t, &a);
}

int
ctag_index_fill_(ct_tensor *t, int64_t dim, const ct_tensor *index, const ct_tensor *value_t,
                 ct_scalar value)
{
    write_args a;
    return fill_args(&a, dim, index, value_t, value) < 0 ? -1 : write_inplace(t, &a);
}

ct_tensor *
ctag_masked_scatter(const ct_tensor *t, const ct_tensor *mask, const ct_tensor *source)
{
    AG_NULL_IF_ANY(t, mask, source);
    write_args a = {.kind = W_MASKED_SCATTER, .index = mask, .src = source};
    return write_new(t, &a);
}

int
ctag_masked_scatter_(ct_tensor *t, const ct_tensor *mask, const ct_tensor *source)
{
    write_args a = {.kind = W_MASKED_SCATTER, .index = mask, .src = source};
    return write_inplace(t, &a);
}

/* --- readers ------------------------------------------------------------- */

#define CT_FORALL_READERS(X)                                                  \
    X(R_INDEX, "IndexBackward0")                                              \
    X(R_INDEX_SELECT, "IndexSelectBackward0")                                 \
    X(R_GATHER, "GatherBackward0")                                            \
    X(R_TAKE, "TakeBackward0")                                                \
    X(R_MASKED_SELECT, "MaskedSelectBackward0")

typedef enum {
#define X(E, NAME) E,
    CT_FORALL_READERS(X)
#undef X
    R_COUNT
} read_kind;

static int read_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type read_types[] = {
#define X(E, NAME) [E] = {NAME, read_apply, indices_release},
    CT_FORALL_READERS(X)
#undef X
};
_Static_assert(sizeof read_types / sizeof read_types[0] == R_COUNT,
               "one node type per reader");

/* The gradient of t: the incoming one written back where it was read. */
static int
read_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    read_kind kind = (read_kind)(n->type - read_types);
    ct_tensor *g = gi[0], *index = NULL;
    int nd = ag_input_ndim(n, 0);
    const int64_t *sizes = ag_input_sizes(n, 0);
    ct_dtype dt = n->dtype[0];
    ag_frame f = {0};
    write_args a = {.dim = (int64_t)n->d[0], .src = g, .value = ct_scalar_int(1)};

    if (kind == R_INDEX && n->released) {
        ct_node_unpack(n, 0);       /* the freed-graph error */
        goto fail;
    }
    if (kind != R_INDEX && (index = ag_tmp(&f, ct_node_unpack(n, 0))) == NULL) {
        goto fail;
    }
    a.index = index;
    switch (kind) {
    case R_INDEX:
        a.kind = W_INDEX_PUT_IMPL;
        a.n = n->n_ints;
        a.indices = n->extra;
        a.accumulate = true;
        go[0] = write_into_zeros(nd, sizes, dt, &a);
        break;
    case R_INDEX_SELECT:
        a.kind = W_INDEX_ADD;
        go[0] = write_into_zeros(nd, sizes, dt, &a);
        break;
    case R_GATHER:
        a.kind = W_SCATTER_ADD;
        go[0] = write_into_zeros(nd, sizes, dt, &a);
        break;
    case R_TAKE:
        a.kind = W_PUT;
        a.accumulate = true;
        go[0] = write_into_zeros(nd, sizes, dt, &a);
        break;
    case R_MASKED_SELECT: {
        /* masked_scatter into zeros of the broadcast shape, summed to t's */
        int bn;
        int64_t bs[CT_MAX_DIMS];
        if (ct_broadcast_shapes(nd, sizes, index->ndim, index->sizes, &bn, bs) < 0) {
            goto fail;
        }
        a.kind = W_MASKED_SCATTER;
        go[0] = ag_to_input(n, 0, write_into_zeros(bn, bs, dt, &a));
        break;
    }
    default:
        CT_ASSERT(0);
    }
    ag_end(&f);
    return go[0] != NULL ? 0 : -1;
fail:
    ag_end(&f);
    return -1;
}

/* Record reader `kind` for r = op(t, ...), saving index (may be NULL) and
 * dim.  Returns r, or NULL (r dropped) on error. */
static ct_tensor *
read_record(read_kind kind, const ct_tensor *t, ct_tensor *r, const ct_tensor *index,
            int64_t dim)
{
    if (r == NULL || !floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_node *n = ct_record(&read_types[kind], 1, &t, 1, &r);
    if (n == NULL || (index != NULL && ct_node_save(n, 0, index, false) < 0)) {
        ct_tensor_decref(r);
        return NULL;
    }
    n->d[0] = (double)dim;
    ag_save_meta(n, 0, t);
    return r;
}

/* index_select also takes an int32 index; the index_add of its backward
 * wants int64. */
static ct_tensor *
long_index(const ct_tensor *index)
{
    return ct_to_dtype(index, CT_DTYPE_INT64, false);
}

ct_tensor *
ctag_index(const ct_tensor *t, int n, ct_tensor *const *indices)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = read_record(R_INDEX, t, ct_index(t, n, indices), NULL, 0);
    ct_node *node = r != NULL ? ct_grad_fn(r) : NULL;
    if (node != NULL && node->type == &read_types[R_INDEX] &&
        indices_keep(node, n, indices) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ctag_index_select(const ct_tensor *t, int64_t dim, const ct_tensor *index)
{
    AG_NULL_IF_ANY(t, index);
    ct_tensor *r = ct_index_select(t, dim, index);
    if (r == NULL || !floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_tensor *l = long_index(index);
    r = l != NULL ? read_record(R_INDEX_SELECT, t, r, l, dim) : (ct_tensor_decref(r), NULL);
    ct_tensor_decref(l);
    return r;
}

ct_tensor *
ctag_gather(const ct_tensor *t, int64_t dim, const ct_tensor *index)
{
    AG_NULL_IF_ANY(t, index);
    return read_record(R_GATHER, t, ct_gather(t, dim, index), index, dim);
}

ct_tensor *
ctag_take(const ct_tensor *t, const ct_tensor *index)
{
    AG_NULL_IF_ANY(t, index);
    if (index->dtype != CT_DTYPE_INT64) {
        ct_error(CT_ERR_RUNTIME, "take(): Expected a long tensor for index, but got %s",
                 legacy(index->dtype));
        return NULL;
    }
    return read_record(R_TAKE, t, ct_take(t, index), index, 0);
}

ct_tensor *
ctag_masked_select(const ct_tensor *t, const ct_tensor *mask)
{
    AG_NULL_IF_ANY(t, mask);
    return read_record(R_MASKED_SELECT, t, ct_masked_select(t, mask), mask, 0);
}
