/* csrc/autograd/functions_shape.c -- views, the ops that split a tensor
 * into views, joins, and their derivatives.
 * ints[0..]: the input's sizes (ag_save_meta); ints[CT_MAX_DIMS..]: the
 * op's parameters (dims, indices, a permutation).  Multi-output nodes
 * (split, unbind) keep each output's size along the split dim in extra.
 * Copies (repeat, flip, ...) are in functions_shape_copy.c. */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

enum {
    V_VIEW, V_RESHAPE_ALIAS, V_UNSAFE_VIEW, V_EXPAND, V_T, V_TRANSPOSE, V_PERMUTE,
    V_SELECT, V_SLICE, V_UNSQUEEZE, V_SQUEEZE0, V_SQUEEZE1, V_SELECT_BB, V_SLICE_BB,
    V_ALIAS, V_DIAGONAL, V_DIAGONAL_BB, V_SQUEEZE3, V_COUNT
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
    [V_DIAGONAL] = {"DiagonalBackward0", view_apply, NULL},
    [V_DIAGONAL_BB] = {"DiagonalBackwardBackward0", view_apply, NULL},
    [V_SQUEEZE3] = {"SqueezeBackward3", view_apply, NULL},
};

/* The backward of select / slice / diagonal: g written into zeros of the
 * input's shape (nd, sizes) where the view p (the view's ints) lies.  With
 * create_graph it is an op of its own (SelectBackwardBackward0 ...), whose
 * derivative takes the view again.  Returns a new reference. */
static ct_tensor *
scatter_view(int kind, const ct_tensor *g, int nd, const int64_t *sizes, ct_dtype dtype,
             const int64_t *p)
{
    ct_tensor *z = ct_zeros_on(nd, sizes, dtype, ct_tensor_device(g)), *v = NULL;
    if (z == NULL) {
        return NULL;
    }
    int bb;
    switch (kind) {
    case V_SELECT:
        v = ct_select(z, p[0], p[1]);
        bb = V_SELECT_BB;
        break;
    case V_SLICE:
        v = ct_slice(z, p[0], p[1], p[2], p[3]);
        bb = V_SLICE_BB;
        break;
    default:
        v = ct_diagonal(z, p[0], p[1], p[2]);
        bb = V_DIAGONAL_BB;
        break;
    }
    if (v == NULL || ct_copy_(v, g) < 0) {
        ct_tensor_decref(v);
        ct_tensor_decref(z);
        return NULL;
    }
    ct_tensor_decref(v);
    if (ct_any_requires_grad(1, &g)) {
        ct_node *n = ct_record(&view_types[bb], 1, &g, 1, &z);
        if (n == NULL) {
            ct_tensor_decref(z);
            return NULL;
        }
        ag_save_meta(n, 0, g);
        memcpy(n->ints + CT_MAX_DIMS, p, 4 * sizeof(int64_t));
    }
    return z;
}

ct_tensor *
ctag_diagonal_backward(const ct_tensor *g, int ndim, const int64_t *sizes,
                       int64_t offset, int64_t dim1, int64_t dim2)
{
    AG_NULL_IF_ANY(g);
    int64_t p[4] = {offset, dim1, dim2, 0};
    return scatter_view(V_DIAGONAL, g, ndim, sizes, g->dtype, p);
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
    case V_SQUEEZE3:
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
    case V_DIAGONAL:
        go[0] = scatter_view(kind, g, nd, sizes, n->dtype[0], p);
        break;
    case V_DIAGONAL_BB:
        go[0] = ctag_diagonal(g, p[0], p[1], p[2]);
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
    if (np > 0) {
        memcpy(n->ints + CT_MAX_DIMS, params, sizeof(int64_t) * (size_t)np);
    }
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
        /* even to its own shape (torch's _reshape_alias) */
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

/* PyTorch's _unsafe_view (the end of matmul, of a copying reshape): the
 * data of a view, but not a view (no base), since its input is a fresh
 * temporary nobody else sees. */
ct_tensor *
ctag__unsafe_view(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *v = ct_view(t, ndim, sizes), *r = NULL;
    if (v != NULL) {
        r = ct_tensor_new(v->storage, v->offset, v->ndim, v->sizes, v->strides,
                          v->dtype);
        ct_tensor_decref(v);
    }
    return record_view(V_UNSAFE_VIEW, t, r, 0, NULL);
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
        ct_error(CT_ERR_RUNTIME, "t() expects a tensor with <= 2 dimensions, but self "
                 "is %dD", t->ndim);
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
    return record_view(dim == NULL ? V_SQUEEZE0 : V_SQUEEZE1, t, ct_squeeze(t, dim), 0,
                       NULL);
}

/* squeeze_(dim) in place (SqueezeBackward3), for matmul's 1-D @ 2-D as
 * torch writes it.  t must not be a view: a view's base would need its
 * history rebased, which metadata changes do not do here. */
int
ctag_squeeze_(ct_tensor *t, int64_t dim)
{
    if (t->base != NULL) {
        return ct_error(CT_ERR_RUNTIME, "squeeze_ on a view is not supported");
    }
    if (ct_check_inplace(t) < 0) {
        return -1;
    }
    ct_tensor *v = ct_squeeze(t, &dim);
    if (v == NULL) {
        return -1;
    }
    int nd = t->ndim;
    int64_t sizes[CT_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)nd);
    int rc = ct_tensor_set_geometry(t, v->ndim, v->sizes, v->strides);
    ct_tensor_decref(v);
    if (rc < 0) {
        return -1;
    }
    ct_tensor_bump_version(t);
    if (!ct_any_requires_grad(1, (const ct_tensor *const *)&t) ||
        !ct_dtype_is_floating(t->dtype)) {
        return 0;
    }
    ct_node *n = ct_record_inplace(&view_types[V_SQUEEZE3], 1,
                                   (const ct_tensor *const *)&t, t);
    if (n == NULL) {
        return -1;
    }
    n->ndim[0] = nd;
    n->dtype[0] = t->dtype;
    memcpy(n->ints, sizes, sizeof(int64_t) * (size_t)nd);
    return 0;
}

ct_tensor *
ctag_diagonal(const ct_tensor *t, int64_t offset, int64_t dim1, int64_t dim2)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_diagonal(t, offset, dim1, dim2);
    if (r == NULL) {
        return NULL;
    }
    int64_t p[3] = {offset, ct_wrap_dim(dim1, t->ndim), ct_wrap_dim(dim2, t->ndim)};
    return record_view(V_DIAGONAL, t, r, 3, p);
}

/* unflatten: a view (ViewBackward0, as torch's view(shape)). */
ct_tensor *
ctag_unflatten(const ct_tensor *t, int64_t dim, int n, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_VIEW, t, ct_unflatten(t, dim, n, sizes), 0, NULL);
}

ct_tensor *
ctag_broadcast_to(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    return record_view(V_EXPAND, t, ct_broadcast_to(t, ndim, sizes), 0, NULL);
}

/* movedim is a permute in torch (PermuteBackward0); the kernel checks the
 * dims, then the permutation is rebuilt here. */
ct_tensor *
ctag_movedim(const ct_tensor *t, int nsrc, const int64_t *src, int ndst,
             const int64_t *dst)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_movedim(t, nsrc, src, ndst, dst);
    if (r == NULL || t->ndim == 0) {
        return r;
    }
    int nd = t->ndim;
    int64_t perm[CT_MAX_DIMS];
    bool src_used[CT_MAX_DIMS] = {false}, dst_used[CT_MAX_DIMS] = {false};
    for (int i = 0; i < nsrc; i++) {
        int s = ct_wrap_dim(src[i], nd), d = ct_wrap_dim(dst[i], nd);
        perm[d] = s;
        src_used[s] = dst_used[d] = true;
    }
    for (int d = 0, s = 0; d < nd; d++) {
        if (dst_used[d]) {
            continue;
        }
        while (src_used[s]) {
            s++;
        }
        perm[d] = s++;
    }
    return record_view(V_PERMUTE, t, r, nd, perm);
}

/* atleast_1d/2d/3d as torch composes them: 0-d tensors reshaped, 1-d and
 * 2-d ones unsqueezed, others returned as they are. */
ct_tensor *
ctag_atleast(const ct_tensor *t, int k)
{
    static const int64_t ones[3] = {1, 1, 1};
    AG_NULL_IF_ANY(t);
    if (t->ndim >= k) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    if (t->ndim == 0) {
        return ctag_reshape(t, k, ones);
    }
    if (t->ndim == 2) {
        return ctag_unsqueeze(t, -1);
    }
    ct_tensor *r = ctag_unsqueeze(t, 0);
    if (r != NULL && k == 3) {
        ct_tensor *r3 = ctag_unsqueeze(r, -1);
        ct_tensor_decref(r);
        r = r3;
    }
    return r;
}

/* --- as_strided ------------------------------------------------------------ */
/* Note [as_strided derivative]
 * PyTorch's as_strided_backward: the gradient of the output is scattered
 * (summed where output elements share memory) into a buffer covering the
 * storage both geometries reach, then read back with the input's geometry,
 * divided by how often the input reaches each element (so that what an
 * expanded input's ExpandBackward0 sums is right).  That map, B, is linear;
 * with create_graph its result records a node applying the adjoint B^T
 * (scatter with the input's geometry, divide, gather with the output's),
 * whose own result records B again.  The buffer is float64. */
typedef struct {
    int nd[2];                  /* 0: the input's geometry, 1: the output's */
    int64_t offset[2];
    int64_t sizes[2][CT_MAX_DIMS], strides[2][CT_MAX_DIMS];
} strided_pair;

static int as_strided_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);
static int as_strided_bb_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static void
free_extra(ct_node *n)
{
    free(n->extra);
    n->extra = NULL;
}

static const ct_node_type as_strided_type = {"AsStridedBackward0", as_strided_apply,
                                             free_extra};
static const ct_node_type as_strided_bb_type = {"AsStridedBackwardBackward0",
                                                as_strided_bb_apply, free_extra};

static int64_t
geom_numel(const strided_pair *sp, int k)
{
    int64_t n = 1;
    for (int i = 0; i < sp->nd[k]; i++) {
        n *= sp->sizes[k][i];
    }
    return n;
}

/* The buffer position of each element of geometry k, in row-major order. */
static void
geom_positions(const strided_pair *sp, int k, int64_t base, int64_t *pos)
{
    int nd = sp->nd[k];
    int64_t idx[CT_MAX_DIMS] = {0}, p = base, n = geom_numel(sp, k);
    for (int64_t e = 0; e < n; e++) {
        pos[e] = p;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < sp->sizes[k][d]) {
                p += sp->strides[k][d];
                break;
            }
            p -= (idx[d] - 1) * sp->strides[k][d];
            idx[d] = 0;
        }
    }
}

/* B (adjoint false: output-shaped src to input-shaped) or B^T (Note
 * [as_strided derivative]).  A new reference in src's dtype. */
static ct_tensor *
strided_map(const strided_pair *sp, bool adjoint, const ct_tensor *src)
{
    int from = adjoint ? 0 : 1, to = 1 - from;
    int64_t nfrom = geom_numel(sp, from), nto = geom_numel(sp, to);
    if (nfrom == 0 || nto == 0) {
        return ct_zeros_on(sp->nd[to], sp->sizes[to], src->dtype, ct_tensor_device(src));
    }
    int64_t shared = sp->offset[0] < sp->offset[1] ? sp->offset[0] : sp->offset[1];
    int64_t eff[2], len = 0;
    for (int k = 0; k < 2; k++) {
        eff[k] = sp->offset[k] - shared;
        int64_t end = eff[k] + 1;
        for (int d = 0; d < sp->nd[k]; d++) {
            end += (sp->sizes[k][d] - 1) * sp->strides[k][d];
        }
        len = end > len ? end : len;
    }
    int64_t nin = geom_numel(sp, 0), nout = geom_numel(sp, 1);
    int64_t *pin = malloc(sizeof(int64_t) * (size_t)nin);
    int64_t *pout = malloc(sizeof(int64_t) * (size_t)nout);
    double *buf = calloc((size_t)len, sizeof(double));
    double *cnt = calloc((size_t)len, sizeof(double));
    ct_tensor *s64 = NULL, *sc = NULL, *r64 = NULL, *r = NULL;
    if (pin == NULL || pout == NULL || buf == NULL || cnt == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in as_strided's derivative");
        goto done;
    }
    geom_positions(sp, 0, eff[0], pin);
    geom_positions(sp, 1, eff[1], pout);
    for (int64_t i = 0; i < nin; i++) {
        cnt[pin[i]] += 1;
    }
    if ((s64 = ct_to_dtype(src, CT_DTYPE_FLOAT64, false)) == NULL ||
        (sc = ct_contiguous(s64)) == NULL ||
        (r64 = ct_empty(sp->nd[to], sp->sizes[to], CT_DTYPE_FLOAT64,
                        ct_device_cpu())) == NULL) {
        goto done;
    }
    const double *s = (const double *)ct_tensor_data(sc);
    double *o = (double *)ct_tensor_data(r64);
    if (adjoint) {
        for (int64_t i = 0; i < nin; i++) {
            buf[pin[i]] += s[i] / cnt[pin[i]];
        }
        for (int64_t j = 0; j < nout; j++) {
            o[j] = buf[pout[j]];
        }
    }
    else {
        for (int64_t j = 0; j < nout; j++) {
            buf[pout[j]] += s[j];
        }
        for (int64_t i = 0; i < nin; i++) {
            o[i] = buf[pin[i]] / cnt[pin[i]];
        }
    }
    r = ct_to_dtype(r64, src->dtype, false);
    if (r != NULL && ct_any_requires_grad(1, &src)) {
        strided_pair *copy = malloc(sizeof *copy);
        ct_node *n = copy != NULL ? ct_record(adjoint ? &as_strided_type
                                                      : &as_strided_bb_type,
                                              1, &src, 1, &r)
                                  : NULL;
        if (n == NULL) {
            free(copy);
            ct_tensor_decref(r);
            r = NULL;
            if (copy == NULL) {
                ct_error(CT_ERR_NOMEM, "out of memory");
            }
            goto done;
        }
        *copy = *sp;
        n->extra = copy;
    }
done:
    free(pin);
    free(pout);
    free(buf);
    free(cnt);
    ct_tensor_decref(s64);
    ct_tensor_decref(sc);
    ct_tensor_decref(r64);
    return r;
}

static int
as_strided_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    go[0] = strided_map(n->extra, false, gi[0]);
    return go[0] != NULL ? 0 : -1;
}

static int
as_strided_bb_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    go[0] = strided_map(n->extra, true, gi[0]);
    return go[0] != NULL ? 0 : -1;
}

ct_tensor *
ctag_as_strided(const ct_tensor *t, int ndim, const int64_t *sizes,
                const int64_t *strides, int64_t offset)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_as_strided(t, ndim, sizes, strides, offset);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    strided_pair *sp = malloc(sizeof *sp);
    ct_node *n = sp != NULL ? ct_record(&as_strided_type, 1, &t, 1, &r) : NULL;
    if (n == NULL) {
        free(sp);
        ct_tensor_decref(r);
        if (sp == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return NULL;
    }
    sp->nd[0] = t->ndim;
    sp->offset[0] = t->offset;
    memcpy(sp->sizes[0], t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(sp->strides[0], t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sp->nd[1] = ndim;
    sp->offset[1] = offset;
    memcpy(sp->sizes[1], sizes, sizeof(int64_t) * (size_t)ndim);
    memcpy(sp->strides[1], strides, sizeof(int64_t) * (size_t)ndim);
    n->extra = sp;
    ag_save_meta(n, 0, t);
    return r;
}

/* --- ops returning several views ------------------------------------------- */
/* One node for all the pieces; extra: each piece's size along ints[CT_MAX_DIMS]
 * (the dim).  Its backward joins the pieces' gradients (zeros for pieces
 * that got none) with cat, or stack for unbind. */
enum {
    S_SPLIT,
    S_SPLIT_SIZES,
    S_UNSAFE_SPLIT,
    S_UNSAFE_SPLIT_SIZES,
    S_UNBIND,
    S_COUNT
};

static int split_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type split_types[S_COUNT] = {
    [S_SPLIT] = {"SplitBackward0", split_apply, free_extra},
    [S_SPLIT_SIZES] = {"SplitWithSizesBackward0", split_apply, free_extra},
    [S_UNSAFE_SPLIT] = {"UnsafeSplitBackward0", split_apply, free_extra},
    [S_UNSAFE_SPLIT_SIZES] = {"UnsafeSplitWithSizesBackward0", split_apply, free_extra},
    [S_UNBIND] = {"UnbindBackward0", split_apply, free_extra},
};

static int
split_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    bool unbind = n->type == &split_types[S_UNBIND];
    const int64_t *piece = n->extra;
    int64_t d = n->ints[CT_MAX_DIMS], sizes[CT_MAX_DIMS];
    int nd = ag_input_ndim(n, 0), k = n->n_outputs, rc = -1;
    ct_tensor **parts = calloc((size_t)k, sizeof *parts);
    if (parts == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    memcpy(sizes, ag_input_sizes(n, 0), sizeof(int64_t) * (size_t)nd);
    for (int i = 0; i < k; i++) {
        if (gi[i] != NULL) {
            ct_tensor_incref(gi[i]);
            parts[i] = gi[i];
            continue;
        }
        if (unbind) {
            memmove(sizes + d, sizes + d + 1, sizeof(int64_t) * (size_t)(nd - d - 1));
            parts[i] = ct_zeros_on(nd - 1, sizes, n->dtype[0], n->device[0]);
            memcpy(sizes, ag_input_sizes(n, 0), sizeof(int64_t) * (size_t)nd);
        }
        else {
            sizes[d] = piece[i];
            parts[i] = ct_zeros_on(nd, sizes, n->dtype[0], n->device[0]);
        }
        if (parts[i] == NULL) {
            goto done;
        }
    }
    const ct_tensor *const *ps = (const ct_tensor *const *)parts;
    go[0] = unbind ? ctag_stack(k, ps, d, NULL) : ctag_cat(k, ps, d, NULL);
    rc = go[0] != NULL ? 0 : -1;
done:
    for (int i = 0; i < k; i++) {
        ct_tensor_decref(parts[i]);
    }
    free(parts);
    return rc;
}

/* Record the pieces in l (from t along dim d) under one node of `kind`;
 * the unsafe kinds first make the pieces plain tensors (no base), as
 * torch's unsafe_split does.  0, or -1 with l cleared. */
static int
record_split(int kind, const ct_tensor *t, int d, ct_tensor_list *l)
{
    if (kind == S_UNSAFE_SPLIT || kind == S_UNSAFE_SPLIT_SIZES) {
        for (int64_t i = 0; i < l->n; i++) {
            ct_tensor *p = l->items[i];
            ct_tensor *q = ct_tensor_new(p->storage, p->offset, p->ndim, p->sizes,
                                         p->strides, p->dtype);
            if (q == NULL) {
                ct_tensor_list_clear(l);
                return -1;
            }
            ct_tensor_decref(p);
            l->items[i] = q;
        }
    }
    if (l->n == 0 || !ct_dtype_is_floating(t->dtype) || !ct_any_requires_grad(1, &t)) {
        return 0;
    }
    int64_t *piece = malloc(sizeof(int64_t) * (size_t)l->n);
    ct_node *n = piece != NULL
                     ? ct_record(&split_types[kind], 1, &t, (int)l->n, l->items)
                     : NULL;
    if (n == NULL) {
        free(piece);
        ct_tensor_list_clear(l);
        if (piece == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return -1;
    }
    for (int64_t i = 0; i < l->n; i++) {
        piece[i] = kind == S_UNBIND ? 1 : l->items[i]->sizes[d];
    }
    n->extra = piece;
    n->ints[CT_MAX_DIMS] = d;
    ag_save_meta(n, 0, t);
    return 0;
}

/* The dim the kernels split along (they have checked it). */
static int
split_dim(const ct_tensor *t, int64_t dim)
{
    return t->ndim == 0 ? 0 : ct_wrap_dim(dim, t->ndim);
}

int
ctag_split(const ct_tensor *t, int64_t split_size, int64_t dim, ct_tensor_list *out)
{
    if (ct_split(t, split_size, dim, out) < 0) {
        return -1;
    }
    return record_split(S_SPLIT, t, split_dim(t, dim), out);
}

int
ctag_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes, int64_t dim,
                      ct_tensor_list *out)
{
    if (ct_split_with_sizes(t, n, sizes, dim, out) < 0) {
        return -1;
    }
    return record_split(S_SPLIT_SIZES, t, split_dim(t, dim), out);
}

int
ctag_unsafe_split(const ct_tensor *t, int64_t split_size, int64_t dim,
                  ct_tensor_list *out)
{
    if (ct_split(t, split_size, dim, out) < 0) {
        return -1;
    }
    return record_split(S_UNSAFE_SPLIT, t, split_dim(t, dim), out);
}

int
ctag_unsafe_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes,
                             int64_t dim, ct_tensor_list *out)
{
    if (ct_split_with_sizes(t, n, sizes, dim, out) < 0) {
        return -1;
    }
    return record_split(S_UNSAFE_SPLIT_SIZES, t, split_dim(t, dim), out);
}

/* chunk is split(ceil(size / chunks)) in torch, split_with_sizes when the
 * dim is empty (so that the pieces keep their number). */
static int
chunk_kind(const ct_tensor *t, int64_t chunks, int d, bool unsafe)
{
    int64_t size = t->sizes[d], split_size = (size + chunks - 1) / chunks;
    if (split_size == 0 && size == 0) {
        return unsafe ? S_UNSAFE_SPLIT_SIZES : S_SPLIT_SIZES;
    }
    return unsafe ? S_UNSAFE_SPLIT : S_SPLIT;
}

int
ctag_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out)
{
    if (ct_chunk(t, chunks, dim, out) < 0) {
        return -1;
    }
    int d = split_dim(t, dim);
    return record_split(chunk_kind(t, chunks, d, false), t, d, out);
}

int
ctag_unsafe_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out)
{
    if (ct_chunk(t, chunks, dim, out) < 0) {
        return -1;
    }
    int d = split_dim(t, dim);
    return record_split(chunk_kind(t, chunks, d, true), t, d, out);
}

int
ctag_unbind(const ct_tensor *t, int64_t dim, ct_tensor_list *out)
{
    if (ct_unbind(t, dim, out) < 0) {
        return -1;
    }
    return record_split(S_UNBIND, t, split_dim(t, dim), out);
}

/* tensor_split's pieces are slices (SliceBackward0 each): consecutive ones
 * for sections; [indices[i-1], indices[i]) for indices, clamped by the
 * slice as by the kernel. */
static int
record_slices(const ct_tensor *t, int d, int n_idx, const int64_t *idx,
              ct_tensor_list *l)
{
    if (!ct_dtype_is_floating(t->dtype) || !ct_any_requires_grad(1, &t)) {
        return 0;
    }
    int64_t start = 0;
    for (int64_t i = 0; i < l->n; i++) {
        int64_t stop = idx == NULL ? start + l->items[i]->sizes[d]
                       : i < n_idx ? idx[i] : t->sizes[d];
        ct_node *n = ct_record(&view_types[V_SLICE], 1, &t, 1, &l->items[i]);
        if (n == NULL) {
            ct_tensor_list_clear(l);
            return -1;
        }
        ag_save_meta(n, 0, t);
        int64_t *p = n->ints + CT_MAX_DIMS;
        p[0] = d, p[1] = start, p[2] = stop, p[3] = 1;
        start = stop;
    }
    return 0;
}

int
ctag_tensor_split(const ct_tensor *t, int64_t sections, int64_t dim,
                  ct_tensor_list *out)
{
    if (ct_tensor_split(t, sections, dim, out) < 0) {
        return -1;
    }
    return record_slices(t, split_dim(t, dim), 0, NULL, out);
}

int
ctag_tensor_split_indices(const ct_tensor *t, int n, const int64_t *indices,
                          int64_t dim, ct_tensor_list *out)
{
    if (ct_tensor_split_indices(t, n, indices, dim, out) < 0) {
        return -1;
    }
    return record_slices(t, split_dim(t, dim), n, indices, out);
}

int
ctag_axis_split(const ct_tensor *t, ct_split_axis axis, int64_t sections, int n,
                const int64_t *indices, ct_tensor_list *out)
{
    if (ct_axis_split(t, axis, sections, n, indices, out) < 0) {
        return -1;
    }
    int d = axis == CT_SPLIT_V ? 0 : axis == CT_SPLIT_D ? 2 : t->ndim == 1 ? 0 : 1;
    return record_slices(t, d, n, indices, out);
}

/* broadcast_tensors: a tensor that already has the shape is returned
 * itself, the others are expanded (ExpandBackward0), as in torch. */
int
ctag_broadcast_tensors(int64_t n, const ct_tensor *const *ts, ct_tensor_list *out)
{
    int64_t shape[CT_MAX_DIMS];
    int ndim = 0;

    out->n = 0;
    out->items = NULL;
    for (int64_t i = 0; i < n; i++) {
        if (ct_broadcast_shapes(ndim, shape, ts[i]->ndim, ts[i]->sizes, &ndim, shape) <
            0) {
            return -1;
        }
    }
    out->items = calloc((size_t)(n > 0 ? n : 1), sizeof *out->items);
    if (out->items == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        ct_tensor *r;
        if (t->ndim == ndim &&
            memcmp(t->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0) {
            ct_tensor_incref((ct_tensor *)t);
            r = (ct_tensor *)t;
        }
        else {
            r = ctag_expand(t, ndim, shape);
        }
        if (r == NULL) {
            ct_tensor_list_clear(out);
            return -1;
        }
        out->items[out->n++] = r;
    }
    return 0;
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
record_join(const ct_node_type *type, int64_t n, const ct_tensor *const *ts,
            int64_t dim, ct_tensor *r)
{
    if (r == NULL || !ct_dtype_is_floating(r->dtype) ||
        !ct_any_requires_grad((int)n, ts)) {
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

/* torch's error for an out= argument when an input requires grad. */
static int
out_check(int64_t n, const ct_tensor *const *ts, const ct_tensor *out, const char *name)
{
    if (out != NULL && ct_any_requires_grad((int)n, ts)) {
        return ct_error(CT_ERR_RUNTIME, "%s(): functions with out=... arguments don't "
                        "support automatic differentiation, but one of the arguments "
                        "requires grad.", name);
    }
    return 0;
}

ct_tensor *
ctag_cat(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    if (out_check(n, ts, out, "cat") < 0) {
        return NULL;
    }
    return record_join(&cat_type, n, ts, dim, ct_cat(n, ts, dim, out));
}

ct_tensor *
ctag_stack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    if (out_check(n, ts, out, "stack") < 0) {
        return NULL;
    }
    return record_join(&stack_type, n, ts, dim, ct_stack(n, ts, dim, out));
}
