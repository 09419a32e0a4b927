/* csrc/autograd/functions_shape.c -- views, joins and their derivatives.
 * ints[0..]: the input's sizes (ag_save_meta); d[0], d[1]: the op's dims
 * or indices; ints[CT_MAX_DIMS..]: a permutation or per-input sizes. */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

enum {
    V_VIEW, V_RESHAPE_ALIAS, V_UNSAFE_VIEW, V_EXPAND, V_T, V_TRANSPOSE, V_PERMUTE,
    V_SELECT, V_SLICE, V_UNSQUEEZE, V_SQUEEZE0, V_SQUEEZE1, V_SELECT_BB, V_SLICE_BB,
    V_ALIAS, V_COUNT
};

static int view_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type view_types[V_COUNT] = {
    [V_VIEW] = {"ViewBackward0", view_apply, NULL},
    [V_RESHAPE_ALIAS] = {"ReshapeAliasBackward0", view_apply, NULL},
    [V_UNSAFE_VIEW] = {"UnsafeViewBackward0", view_apply, NULL},
    [V_EXPAND] = {"ExpandBackward0", view_apply, NULL},
    [V_T] = {"TBackward0", view_apply, NULL},
    [V_TRANSPOSE] = {"TransposeBackward0", view_apply, NULL},
    [V_PERMUTE] = {"PermuteBackward0", view_apply, NULL},
    [V_SELECT] = {"SelectBackward0", view_apply, NULL},
    [V_SLICE] = {"SliceBackward0", view_apply, NULL},
    [V_UNSQUEEZE] = {"UnsqueezeBackward0", view_apply, NULL},
    [V_SQUEEZE0] = {"SqueezeBackward0", view_apply, NULL},
    [V_SQUEEZE1] = {"SqueezeBackward1", view_apply, NULL},
    [V_SELECT_BB] = {"SelectBackwardBackward0", view_apply, NULL},
    [V_SLICE_BB] = {"SliceBackwardBackward0", view_apply, NULL},
    [V_ALIAS] = {"AliasBackward0", view_apply, NULL},
};

/* select/slice backward: g written into zeros of the input's shape.  With
 * create_graph it is an op of its own, whose derivative selects again. */
static ct_tensor *
scatter_view(ct_node *n, int kind, ct_tensor *g)
{
    ct_tensor *z = ag_zeros_input(n, 0);
    if (z == NULL) {
        return NULL;
    }
    ct_tensor *v = kind == V_SELECT ? ct_select(z, n->ints[CT_MAX_DIMS], n->ints[CT_MAX_DIMS + 1])
                                    : ct_slice(z, n->ints[CT_MAX_DIMS], n->ints[CT_MAX_DIMS + 1],
                                               n->ints[CT_MAX_DIMS + 2], n->ints[CT_MAX_DIMS + 3]);
    if (v == NULL || ct_copy_(v, g) < 0) {
        ct_tensor_decref(v);
        ct_tensor_decref(z);
        return NULL;
    }
    ct_tensor_decref(v);
    const ct_tensor *in = g;
    if (ct_any_requires_grad(1, &in)) {
        ct_node *bb = ct_record(&view_types[kind == V_SELECT ? V_SELECT_BB : V_SLICE_BB], 1,
                                &in, 1, &z);
        if (bb == NULL) {
            ct_tensor_decref(z);
            return NULL;
        }
        memcpy(bb->ints + CT_MAX_DIMS, n->ints + CT_MAX_DIMS, 4 * sizeof(int64_t));
        bb->ndim[0] = g->ndim;
        bb->dtype[0] = g->dtype;
    }
    return z;
}

static int
view_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    int kind = (int)(n->type - view_types);
    ct_tensor *g = gi[0];
    const int64_t *p = n->ints + CT_MAX_DIMS;
    int nd = ag_input_ndim(n, 0);
    const int64_t *sizes = ag_input_sizes(n, 0);

    switch (kind) {
    case V_VIEW:
    case V_RESHAPE_ALIAS:
    case V_UNSAFE_VIEW:
    case V_SQUEEZE0:
    case V_SQUEEZE1:
    case V_ALIAS:
        go[0] = ctag_reshape(g, nd, sizes);
        break;
    case V_EXPAND:
        go[0] = ctag_sum_to(g, nd, sizes);
        break;
    case V_T:
        go[0] = ctag_t(g);
        break;
    case V_TRANSPOSE:
        go[0] = ctag_transpose(g, p[0], p[1]);
        break;
    case V_PERMUTE: {
        int64_t inv[CT_MAX_DIMS];
        for (int i = 0; i < nd; i++) {
            inv[p[i]] = i;
        }
        go[0] = ctag_permute(g, nd, inv);
        break;
    }
    case V_SELECT:
    case V_SLICE:
        go[0] = scatter_view(n, kind, g);
        break;
    case V_SELECT_BB:
        go[0] = ctag_select(g, p[0], p[1]);
        break;
    case V_SLICE_BB:
        go[0] = ctag_slice(g, p[0], p[1], p[2], p[3]);
        break;
    case V_UNSQUEEZE:
        go[0] = ctag_squeeze(g, &p[0]);
        break;
    default:
        return ct_error(CT_ERR_RUNTIME, "bad view node");
    }
    return go[0] != NULL ? 0 : -1;
}

/* Record a one-input view; params go to ints[CT_MAX_DIMS..]. */
static ct_tensor *
record_view(int kind, const ct_tensor *t, ct_tensor *r, int np, const int64_t *params)
{
    if (r == NULL || !ct_any_requires_grad(1, &t) || !ct_dtype_is_floating(r->dtype)) {
        return r;
    }
    ct_node *n = ct_record(&view_types[kind], 1, &t, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, t);
    memcpy(n->ints + CT_MAX_DIMS, params, sizeof(int64_t) * (size_t)np);
    return r;
}

ct_tensor *
ctag_view(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_VIEW, t, ct_view(t, ndim, sizes), 0, NULL);
}

/* reshape: a view where strides allow (ReshapeAliasBackward0 in 1.13),
 * else a copy: CloneBackward0 then UnsafeViewBackward0. */
ct_tensor *
ctag_reshape(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    if (!ct_any_requires_grad(1, &t)) {
        return ct_reshape(t, ndim, sizes);
    }
    ct_tensor *r = ct_reshape(t, ndim, sizes);
    if (r == NULL) {
        return NULL;
    }
    if (r->storage == t->storage) {
        bool same = r->ndim == t->ndim &&
                    memcmp(r->sizes, t->sizes, sizeof(int64_t) * (size_t)r->ndim) == 0;
        if (same) {
            /* reshape to its own shape is the tensor itself (a new alias) */
            return record_view(V_VIEW, t, r, 0, NULL);
        }
        return record_view(V_RESHAPE_ALIAS, t, r, 0, NULL);
    }
    ct_tensor_decref(r);
    ct_tensor *c = ctag_contiguous(t);      /* a copy here: CloneBackward0 */
    if (c == NULL) {
        return NULL;
    }
    r = ctag__unsafe_view(c, ndim, sizes);
    ct_tensor_decref(c);
    return r;
}

/* A view that PyTorch records as _unsafe_view (the end of a batched
 * matmul, of a copying reshape). */
ct_tensor *
ctag__unsafe_view(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_UNSAFE_VIEW, t, ct_view(t, ndim, sizes), 0, NULL);
}

ct_tensor *
ctag_alias(const ct_tensor *t)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_ALIAS, t, ct_tensor_view_of(t, t->offset, t->ndim, t->sizes,
                                                     t->strides), 0, NULL);
}

ct_tensor *
ctag_expand(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_EXPAND, t, ct_expand(t, ndim, sizes), 0, NULL);
}

ct_tensor *
ctag_transpose(const ct_tensor *t, int64_t d0, int64_t d1)
{
    AG_NULL_IF_ANY(t);
    int64_t p[2] = {d0, d1};
    return record_view(V_TRANSPOSE, t, ct_transpose(t, d0, d1), 2, p);
}

ct_tensor *
ctag_t(const ct_tensor *t)
{
    AG_NULL_IF_ANY(t);
    if (t->ndim > 2) {
        ct_error(CT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self is "
                 "%dD", t->ndim);
        return NULL;
    }
    return record_view(V_T, t, ct_transpose(t, 0, t->ndim < 2 ? 0 : 1), 0, NULL);
}

ct_tensor *
ctag_permute(const ct_tensor *t, int ndim, const int64_t *dims)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_permute(t, ndim, dims);
    int64_t p[CT_MAX_DIMS];
    for (int i = 0; i < ndim && r != NULL; i++) {
        p[i] = dims[i] < 0 ? dims[i] + ndim : dims[i];
    }
    return record_view(V_PERMUTE, t, r, ndim, p);
}

ct_tensor *
ctag_select(const ct_tensor *t, int64_t dim, int64_t index)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_select(t, dim, index);
    if (r == NULL) {
        return NULL;
    }
    int64_t d = dim < 0 ? dim + t->ndim : dim;
    int64_t p[2] = {d, index < 0 ? index + t->sizes[d] : index};
    return record_view(V_SELECT, t, r, 2, p);
}

ct_tensor *
ctag_slice(const ct_tensor *t, int64_t dim, int64_t start, int64_t stop, int64_t step)
{
    AG_NULL_IF_ANY(t);
    int64_t p[4] = {dim < 0 ? dim + t->ndim : dim, start, stop, step};
    return record_view(V_SLICE, t, ct_slice(t, dim, start, stop, step), 4, p);
}

ct_tensor *
ctag_narrow(const ct_tensor *t, int64_t dim, int64_t start, int64_t length)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_narrow(t, dim, start, length);
    if (r == NULL) {
        return NULL;
    }
    int64_t d = dim < 0 ? dim + t->ndim : dim;
    int64_t s = start < 0 ? start + t->sizes[d] : start;
    int64_t p[4] = {d, s, s + length, 1};
    return record_view(V_SLICE, t, r, 4, p);
}

ct_tensor *
ctag_unsqueeze(const ct_tensor *t, int64_t dim)
{
    AG_NULL_IF_ANY(t);
    int64_t p[1] = {dim < 0 ? dim + t->ndim + 1 : dim};
    return record_view(V_UNSQUEEZE, t, ct_unsqueeze(t, dim), 1, p);
}

ct_tensor *
ctag_squeeze(const ct_tensor *t, const int64_t *dim)
{
    AG_NULL_IF_ANY(t);
    return record_view(dim == NULL ? V_SQUEEZE0 : V_SQUEEZE1, t, ct_squeeze(t, dim), 0, NULL);
}

/* --- cat and stack ------------------------------------------------------- */
/* extra: int64_t[n] sizes along dim (-1: a skipped legacy empty input);
 * d[0] = dim. */

static int join_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static void
join_release(ct_node *n)
{
    free(n->extra);
}

static const ct_node_type cat_type = {"CatBackward0", join_apply, join_release};
static const ct_node_type stack_type = {"StackBackward0", join_apply, join_release};

static int
join_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const int64_t *sizes = n->extra;
    int64_t dim = (int64_t)n->d[0], off = 0;
    for (int i = 0; i < n->n_edges; i++) {
        if (n->type == &stack_type) {
            if (ct_node_needs(n, i) && (go[i] = ctag_select(gi[0], dim, i)) == NULL) {
                return -1;
            }
            continue;
        }
        if (sizes[i] < 0) {
            continue;
        }
        if (ct_node_needs(n, i) &&
            (go[i] = ctag_narrow(gi[0], dim, off, sizes[i])) == NULL) {
            return -1;
        }
        off += sizes[i];
    }
    return 0;
}

static ct_tensor *
record_join(const ct_node_type *type, int64_t n, const ct_tensor *const *ts, int64_t dim,
            ct_tensor *r)
{
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad((int)n, ts)) {
        return r;
    }
    int64_t *sizes = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
    if (sizes == NULL) {
        ct_tensor_decref(r);
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    int64_t d = dim < 0 ? dim + (type == &stack_type ? r->ndim : r->ndim) : dim;
    for (int64_t i = 0; i < n; i++) {
        bool legacy_empty = ts[i]->ndim == 1 && ts[i]->sizes[0] == 0 && r->ndim != 1;
        sizes[i] = type == &stack_type ? 1 : legacy_empty ? -1 : ts[i]->sizes[d];
    }
    ct_node *node = ct_record(type, (int)n, ts, 1, &r);
    if (node == NULL) {
        free(sizes);
        ct_tensor_decref(r);
        return NULL;
    }
    node->extra = sizes;
    node->d[0] = (double)d;
    return r;
}

ct_tensor *
ctag_cat(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    return record_join(&cat_type, n, ts, dim, ct_cat(n, ts, dim, out));
}

ct_tensor *
ctag_stack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    return record_join(&stack_type, n, ts, dim, ct_stack(n, ts, dim, out));
}
