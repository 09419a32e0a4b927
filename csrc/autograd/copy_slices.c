/* csrc/autograd/copy_slices.c -- in-place ops on views (PyTorch's
 * CopySlices) and __setitem__'s derivatives.
 *
 * Note [In-place on a view]
 * `v = y[0]; v.mul_(2)` changes y as well, so y's history must change:
 * y gets a CopySlices node whose edges are y's old history plus the op's
 * other inputs; it holds the op's own node (fn).  Its backward takes the
 * gradient of y, runs fn on the part that v covers, writes fn's gradient
 * for v's old value back into that part, and passes fn's other gradients
 * on.  v itself then gets AsStridedBackward0 from y's new history, as
 * PyTorch regenerates it.  A view of a leaf that requires grad may not be
 * written in place (the leaf would lose its gradient).
 */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int ndim;
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS], offset;
} geometry;

typedef struct {
    ct_node *fn;            /* owned: the in-place op's node */
    geometry base, view;    /* view.offset is relative to base's */
    ct_dtype dtype;
} copy_slices_data;

static void
geometry_of(geometry *g, const ct_tensor *t, int64_t base_offset)
{
    g->ndim = t->ndim;
    memcpy(g->sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(g->strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    g->offset = t->offset - base_offset;
}

/* Zeros laid out as the base, of g's dtype and on its device, and the
 * view's window into them. */
static ct_tensor *
base_like(const geometry *b, const ct_tensor *g)
{
    ct_tensor *z = ct_empty_strided(b->ndim, b->sizes, b->strides, g->dtype,
                                    ct_tensor_device(g));
    if (z != NULL && ct_fill_(z, ct_scalar_int(0)) < 0) {
        ct_tensor_decref(z);
        return NULL;
    }
    return z;
}

static ct_tensor *
window(ct_tensor *z, const geometry *v)
{
    return ct_as_strided(z, v->ndim, v->sizes, v->strides, z->offset + v->offset);
}

static void
copy_slices_release(ct_node *n)
{
    copy_slices_data *d = n->extra;
    n->extra = NULL;
    ct_node_decref(d->fn);
    free(d);
}

void
ag_copy_slices_release_saved(ct_node *n)
{
    copy_slices_data *d = n->extra;
    ct_node_release_saved(d->fn);
}

static int
copy_slices_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    copy_slices_data *d = n->extra;
    ct_node *fn = d->fn;
    int rc = -1;
    ct_tensor *res = base_like(&d->base, gi[0]);
    ct_tensor *slice = NULL, *part = NULL;
    ct_tensor **fgo = calloc((size_t)fn->n_edges + 1, sizeof *fgo);

    if (res == NULL || fgo == NULL || ct_copy_(res, gi[0]) < 0 ||
        (slice = window(res, &d->view)) == NULL || (part = ct_clone(slice)) == NULL) {
        goto done;
    }
    ct_tensor *fgi[1] = {part};
    if (fn->type->apply(fn, fgi, fgo) < 0) {
        goto done;
    }
    /* the view's old value gets fn's first gradient, in place in res */
    if ((fgo[0] != NULL ? ct_copy_(slice, fgo[0]) : ct_fill_(slice, ct_scalar_int(0))) < 0) {
        goto done;
    }
    if (ct_node_needs(n, 0)) {
        go[0] = res;
        res = NULL;
    }
    for (int i = 1; i < fn->n_edges && i < n->n_edges; i++) {
        go[i] = fgo[i];
        fgo[i] = NULL;
    }
    rc = 0;
done:
    for (int i = 0; fgo != NULL && i < fn->n_edges; i++) {
        ct_tensor_decref(fgo[i]);
    }
    free(fgo);
    ct_tensor_decref(part);
    ct_tensor_decref(slice);
    ct_tensor_decref(res);
    return rc;
}

const ct_node_type ag_copy_slices_type = {"CopySlices", copy_slices_apply,
                                          copy_slices_release};

/* AsStridedBackward0 for a view rebased on its base: g added into zeros of
 * the base's layout at the view's window.  extra: a copy_slices_data with
 * fn NULL. */
static int
as_strided_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    copy_slices_data *d = n->extra;
    ct_tensor *z = base_like(&d->base, gi[0]);
    ct_tensor *w = z != NULL ? window(z, &d->view) : NULL;
    if (w == NULL || ct_binary(CT_BINARY_ADD, w, gi[0], ct_scalar_int(1), w,
                               CT_OUT_INPLACE) == NULL) {
        ct_tensor_decref(w);
        ct_tensor_decref(z);
        return -1;
    }
    ct_tensor_decref(w);
    go[0] = z;
    return 0;
}

static void
as_strided_release(ct_node *n)
{
    free(n->extra);
}

static const ct_node_type as_strided_type = {"AsStridedBackward0", as_strided_apply,
                                             as_strided_release};

bool
ag_is_view_in_graph(const ct_tensor *self, int nin, const ct_tensor *const *ins)
{
    if (self->base == NULL) {
        return false;
    }
    return ct_requires_grad(self->base) || ct_any_requires_grad(nin, ins);
}

ct_node *
ag_rebase_view(const ct_node_type *type, int nin, const ct_tensor *const *ins,
               ct_tensor *self)
{
    ct_tensor *base = self->base;
    copy_slices_data *d = calloc(1, sizeof *d), *vd = calloc(1, sizeof *vd);
    ct_node *fn = ct_node_new(type, nin, 1);
    ct_node *cs = ct_node_new(&ag_copy_slices_type, nin, 1);
    ct_node *as = ct_node_new(&as_strided_type, 1, 1);
    if (d == NULL || vd == NULL || fn == NULL || cs == NULL || as == NULL) {
        free(d);
        free(vd);
        if (fn != NULL) {
            ct_node_decref(fn);
        }
        if (cs != NULL) {
            ct_node_decref(cs);
        }
        if (as != NULL) {
            ct_node_decref(as);
        }
        ct_error(CT_ERR_NOMEM, "out of memory recording an in-place op on a view");
        return NULL;
    }
    for (int i = 0; i < nin; i++) {
        if (ins[i] != NULL) {
            fn->edges[i] = ct_gradient_edge((ct_tensor *)ins[i]);
        }
    }
    cs->edges[0] = ct_gradient_edge(base);
    for (int i = 1; i < nin; i++) {
        cs->edges[i] = fn->edges[i];
        if (cs->edges[i].fn != NULL) {
            ct_node_incref(cs->edges[i].fn);
        }
    }
    d->fn = fn;
    d->dtype = self->dtype;
    geometry_of(&d->base, base, base->offset);
    geometry_of(&d->view, self, base->offset);
    cs->extra = d;
    *vd = *d;
    vd->fn = NULL;
    as->extra = vd;
    as->edges[0].fn = cs;
    ct_node_incref(cs);
    ct_set_history(base, cs, 0);
    ct_set_history(self, as, 0);
    ct_node_decref(cs);
    ct_node_decref(as);
    return fn;      /* borrowed: the CopySlices node owns it */
}

/* --- index_put_ (advanced __setitem__) ------------------------------------- */
/* IndexPutBackward0: self gets g with the written positions zeroed, values
 * get g at those positions summed to their shape.  extra: the indices. */

static void
index_put_release(ct_node *n)
{
    ct_tensor **idx = n->extra;
    for (int i = 0; i < n->n_ints; i++) {
        ct_tensor_decref(idx[i]);
    }
    free(idx);
}

static int
index_put_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor **idx = n->extra;
    if (ct_node_needs(n, 0) && n->d[0] != 0) {
        /* accumulate=True: self's old values pass through */
        ct_tensor_incref(gi[0]);
        go[0] = gi[0];
    }
    else if (ct_node_needs(n, 0)) {
        /* g with the written positions zeroed, as an op of its own so a
         * create_graph backward can differentiate it */
        ct_tensor *z = ct_zeros(0, NULL, gi[0]->dtype);
        go[0] = z != NULL ? ctag_index_put(gi[0], n->n_ints, idx, z, false) : NULL;
        ct_tensor_decref(z);
        if (go[0] == NULL) {
            return -1;
        }
    }
    if (ct_node_needs(n, 1)) {
        ct_tensor *g = ctag_index(gi[0], n->n_ints, idx);
        if ((go[1] = ag_to_input(n, 1, g)) == NULL) {
            return -1;
        }
    }
    return 0;
}

static const ct_node_type index_put_type = {"IndexPutBackward0", index_put_apply,
                                            index_put_release};

int
ctag_index_put_(ct_tensor *t, int n, ct_tensor *const *indices, const ct_tensor *values,
                bool accumulate)
{
    const ct_tensor *ins[2] = {t, values};
    if (ag_inplace_begin(t) < 0 || ct_index_put_(t, n, indices, values, accumulate) < 0) {
        return -1;
    }
    ct_tensor_bump_version(t);
    if (!ct_any_requires_grad(2, ins) || !ct_dtype_is_floating(t->dtype)) {
        return 0;
    }
    ct_tensor **idx = calloc((size_t)(n > 0 ? n : 1), sizeof *idx);
    if (idx == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    ct_node *node = ct_record_inplace(&index_put_type, 2, ins, t);
    if (node == NULL) {
        free(idx);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if ((idx[i] = indices[i]) != NULL) {
            ct_tensor_incref(idx[i]);
        }
    }
    node->extra = idx;
    node->n_ints = n;
    node->d[0] = accumulate;
    ag_save_meta(node, 0, t);
    ag_save_meta(node, 1, values);
    return 0;
}
