/* csrc/autograd/functions_shape_copy.c -- the shape ops that copy (repeat,
 * tile, flip, roll, rot90, repeat_interleave) and the numpy stacks, with
 * their derivatives.  ints[0..]: the input's sizes (ag_save_meta);
 * ints[CT_MAX_DIMS..]: the op's repeats / dims, n_ints of them; roll keeps
 * its shifts and dims in extra. */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

static void
free_extra(ct_node *n)
{
    free(n->extra);
    n->extra = NULL;
}

/* Record a one-input copy whose parameters go to ints[CT_MAX_DIMS..]. */
static ct_tensor *
record_copy(const ct_node_type *type, const ct_tensor *t, ct_tensor *r, int np,
            const int64_t *params)
{
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_node *n = ct_record(type, 1, &t, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, t);
    memcpy(n->ints + CT_MAX_DIMS, params, sizeof(int64_t) * (size_t)np);
    n->n_ints = np;
    return r;
}

/* --- repeat and tile -------------------------------------------------------- */
/* torch's repeat_backward: the leading (new) dims summed away, then each
 * repeated dim split into (repeat, size) and the repeat dims summed. */
static int
repeat_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const int64_t *rep = n->ints + CT_MAX_DIMS;
    int nd = ag_input_ndim(n, 0), nrep = n->n_ints, lead = nrep - nd;
    const int64_t *in = ag_input_sizes(n, 0);
    for (int i = 0; i < nrep; i++) {
        if (rep[i] == 0) {
            go[0] = ag_zeros_input(n, 0);
            return go[0] != NULL ? 0 : -1;
        }
    }
    ag_frame f = {0};
    ct_tensor *g = gi[0];
    if (lead > 0) {
        int64_t dims[CT_MAX_DIMS];
        for (int i = 0; i < lead; i++) {
            dims[i] = i;
        }
        g = ag_tmp(&f, ctag_sum(g, lead, dims, false, CT_DTYPE_COUNT));
    }
    int64_t gsize[2 * CT_MAX_DIMS], sdims[CT_MAX_DIMS];
    int ng = 0, ns = 0;
    for (int d = 0; d < nd; d++) {
        if (rep[lead + d] != 1) {
            gsize[ng++] = rep[lead + d];
            sdims[ns++] = ng - 1;
        }
        gsize[ng++] = in[d];
    }
    if (ns > 0 && g != NULL) {
        if (ng > CT_MAX_DIMS) {
            ag_end(&f);
            return ct_error(CT_ERR_RUNTIME, "repeat backward: too many dimensions");
        }
        g = ag_tmp(&f, ctag_reshape(g, ng, gsize));
        g = ag_tmp(&f, ctag_sum(g, ns, sdims, false, CT_DTYPE_COUNT));
    }
    if (g != NULL) {
        ct_tensor_incref(g);
        go[0] = g;
    }
    ag_end(&f);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type repeat_type = {"RepeatBackward0", repeat_apply, NULL};

ct_tensor *
ctag_repeat(const ct_tensor *t, int n, const int64_t *repeats)
{
    AG_NULL_IF_ANY(t);
    return record_copy(&repeat_type, t, ct_repeat(t, n, repeats), n, repeats);
}

/* tile is repeat with the reps padded by leading 1s (RepeatBackward0). */
ct_tensor *
ctag_tile(const ct_tensor *t, int n, const int64_t *reps)
{
    AG_NULL_IF_ANY(t);
    if (n >= t->ndim) {
        return ctag_repeat(t, n, reps);
    }
    int64_t padded[CT_MAX_DIMS];
    int lead = t->ndim - n;
    for (int i = 0; i < t->ndim; i++) {
        padded[i] = i < lead ? 1 : reps[i - lead];
    }
    return ctag_repeat(t, t->ndim, padded);
}

/* --- flip, roll, rot90 ------------------------------------------------------- */
static int
flip_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    go[0] = ctag_flip(gi[0], n->n_ints, n->ints + CT_MAX_DIMS);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type flip_type = {"FlipBackward0", flip_apply, NULL};

static ct_tensor *
record_flip(const ct_tensor *t, ct_tensor *r, int n, const int64_t *dims)
{
    int64_t p[CT_MAX_DIMS];
    for (int i = 0; r != NULL && i < n; i++) {
        p[i] = ct_wrap_dim(dims[i], t->ndim);
    }
    return record_copy(&flip_type, t, r, n, p);
}

ct_tensor *
ctag_flip(const ct_tensor *t, int n, const int64_t *dims)
{
    AG_NULL_IF_ANY(t);
    return record_flip(t, ct_flip(t, n, dims), n, dims);
}

ct_tensor *
ctag_fliplr(const ct_tensor *t)
{
    static const int64_t one = 1;
    AG_NULL_IF_ANY(t);
    return record_flip(t, ct_fliplr(t), 1, &one);
}

ct_tensor *
ctag_flipud(const ct_tensor *t)
{
    static const int64_t zero = 0;
    AG_NULL_IF_ANY(t);
    return record_flip(t, ct_flipud(t), 1, &zero);
}

/* extra: int64_t[2 * n_ints]: the shifts, then the dims (ndim[1] of them;
 * none for a roll of the flattened tensor). */
static int
roll_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const int64_t *p = n->extra;
    int64_t neg[CT_MAX_DIMS];
    for (int i = 0; i < n->n_ints; i++) {
        neg[i] = -p[i];
    }
    go[0] = ctag_roll(gi[0], n->n_ints, neg, n->ndim[1], p + n->n_ints);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type roll_type = {"RollBackward0", roll_apply, free_extra};

ct_tensor *
ctag_roll(const ct_tensor *t, int nshifts, const int64_t *shifts, int ndims,
          const int64_t *dims)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_roll(t, nshifts, shifts, ndims, dims);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    int64_t *p = malloc(sizeof(int64_t) * (size_t)(nshifts + ndims + 1));
    ct_node *n = p != NULL ? ct_record(&roll_type, 1, &t, 1, &r) : NULL;
    if (n == NULL) {
        free(p);
        ct_tensor_decref(r);
        if (p == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return NULL;
    }
    memcpy(p, shifts, sizeof(int64_t) * (size_t)nshifts);
    memcpy(p + nshifts, dims, sizeof(int64_t) * (size_t)ndims);
    n->extra = p;
    n->n_ints = nshifts;
    n->ndim[1] = ndims;
    return r;
}

static int
rot90_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const int64_t *p = n->ints + CT_MAX_DIMS;
    go[0] = ctag_rot90(gi[0], -p[0], 2, p + 1);
    return go[0] != NULL ? 0 : -1;
}

static const ct_node_type rot90_type = {"Rot90Backward0", rot90_apply, NULL};

ct_tensor *
ctag_rot90(const ct_tensor *t, int64_t k, int ndims, const int64_t *dims)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_rot90(t, k, ndims, dims);
    if (r == NULL) {
        return NULL;
    }
    int64_t p[3] = {k, dims[0], dims[1]};   /* the kernel checked ndims == 2 */
    return record_copy(&rot90_type, t, r, 3, p);
}

/* --- repeat_interleave ------------------------------------------------------- */
/* torch composes it: the input flattened when no dim is given (or it is
 * 0-d), then index_select with the indices repeat_interleave(repeats)
 * gives (IndexSelectBackward0).  The kernel runs first, for its checks
 * and messages. */
static ct_tensor *
interleave(const ct_tensor *t, const ct_tensor *repeats, const int64_t *dim,
           int64_t output_size)
{
    ag_frame f = {0};
    const ct_tensor *in = t, *reps = repeats;
    int d = 0;
    ct_tensor *r = NULL;
    if (dim == NULL || t->ndim == 0) {
        if (t->ndim != 1) {
            int64_t all = -1;
            in = ag_tmp(&f, ctag_reshape(t, 1, &all));
        }
    }
    else {
        d = ct_wrap_dim(*dim, t->ndim);
    }
    if (in != NULL && (repeats->ndim == 0 || repeats->numel == 1)) {
        int64_t one = 1, size = in->sizes[d];
        reps = ag_tmp(&f,
                      ct_expand(ag_tmp(&f, ct_reshape(repeats, 1, &one)), 1, &size));
    }
    ct_tensor *idx = reps != NULL
                         ? ag_tmp(&f, ct_repeat_interleave_index(reps, output_size))
                         : NULL;
    if (in != NULL && idx != NULL) {
        r = ctag_index_select(in, d, idx);
    }
    ag_end(&f);
    return r;
}

ct_tensor *
ctag_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats,
                              const int64_t *dim, int64_t output_size)
{
    AG_NULL_IF_ANY(t, repeats);
    ct_tensor *r = ct_repeat_interleave_tensor(t, repeats, dim, output_size);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_tensor_decref(r);
    return interleave(t, repeats, dim, output_size);
}

ct_tensor *
ctag_repeat_interleave(const ct_tensor *t, int64_t repeats, const int64_t *dim,
                       int64_t output_size)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_repeat_interleave(t, repeats, dim, output_size);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_tensor_decref(r);
    int64_t one = 1;
    ct_tensor *rt = ct_full(1, &one, ct_scalar_int(repeats), CT_DTYPE_INT64);
    r = rt != NULL ? interleave(t, rt, dim, output_size) : NULL;
    ct_tensor_decref(rt);
    return r;
}

/* --- the numpy stacks --------------------------------------------------------- */
/* torch composes them: atleast_Nd views of the inputs, then cat (hstack:
 * along 0 for 1-D inputs, else 1; column_stack: 0-D and 1-D inputs
 * reshaped to columns first).  Without gradients the kernels run. */
typedef ct_tensor *(*stack_kernel)(int64_t n, const ct_tensor *const *ts,
                                   ct_tensor *out);

static ct_tensor *
stack_like(stack_kernel kernel, int k, int64_t dim, int64_t n,
           const ct_tensor *const *ts, ct_tensor *out)
{
    if (n == 0 || !ct_any_requires_grad((int)n, ts)) {
        return kernel(n, ts, out);
    }
    ct_tensor **v = calloc((size_t)n, sizeof *v), *r = NULL;
    if (v == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (k == 0 && t->ndim <= 1) {
            int64_t col[2] = {t->numel, 1};
            v[i] = ctag_reshape(t, 2, col);
        }
        else {
            v[i] = ctag_atleast(t, k == 0 ? 1 : k);
        }
        if (v[i] == NULL) {
            goto done;
        }
    }
    if (dim < 0) {
        dim = v[0]->ndim == 1 ? 0 : 1;
    }
    r = ctag_cat(n, (const ct_tensor *const *)v, dim, out);
done:
    for (int64_t i = 0; i < n; i++) {
        ct_tensor_decref(v[i]);
    }
    free(v);
    return r;
}

ct_tensor *
ctag_hstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like(ct_hstack, 1, -1, n, ts, out);
}

ct_tensor *
ctag_vstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like(ct_vstack, 2, 0, n, ts, out);
}

ct_tensor *
ctag_dstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like(ct_dstack, 3, 2, n, ts, out);
}

ct_tensor *
ctag_column_stack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like(ct_column_stack, 0, -1, n, ts, out);
}
