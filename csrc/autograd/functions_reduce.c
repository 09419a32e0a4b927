/* csrc/autograd/functions_reduce.c -- reductions and their derivatives.
 * ints[0..]: the input's sizes (ag_save_meta); ints[CT_MAX_DIMS..]: the
 * reduced dims as a 0/1 mask over the input's dims; s[0]: the count a
 * mean divides by. */
#include "functions.h"

#include <string.h>

static int sum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static const ct_node_type sum_types[2] = {{"SumBackward0", sum_apply, NULL},
                                          {"SumBackward1", sum_apply, NULL}};
static const ct_node_type mean_types[2] = {{"MeanBackward0", sum_apply, NULL},
                                           {"MeanBackward1", sum_apply, NULL}};

/* g of the reduced shape back to the input's: unsqueeze the reduced dims
 * (unless keepdim), expand, divide for a mean. */
static int
sum_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ag_frame f = {0};
    const int64_t *mask = n->ints + CT_MAX_DIMS;
    int nd = ag_input_ndim(n, 0);
    bool keepdim = n->d[0] != 0;
    ct_tensor *g = gi[0];
    ct_tensor_incref(g);
    ag_tmp(&f, g);
    if (!keepdim) {
        for (int d = 0; d < nd && g != NULL; d++) {
            if (mask[d]) {
                g = ag_tmp(&f, ctag_unsqueeze(g, d));
            }
        }
    }
    g = ag_tmp(&f, ctag_expand(g, nd, ag_input_sizes(n, 0)));
    bool mean = n->type == &mean_types[0] || n->type == &mean_types[1];
    if (mean && g != NULL) {
        g = ag_tmp(&f, ag_mul_s(g, 1.0 / n->d[1]));
    }
    if (g != NULL) {
        ct_tensor_incref(g);
        go[0] = ag_to_input(n, 0, g);
    }
    ag_end(&f);
    return go[0] != NULL ? 0 : -1;
}

static ct_tensor *
record_sum(ct_reduce_op op, const ct_tensor *t, int ndims, const int64_t *dims,
           bool keepdim, ct_tensor *r)
{
    bool all = dims == NULL;
    const ct_node_type *type = op == CT_REDUCE_SUM ? &sum_types[!all] : &mean_types[!all];
    ct_node *n = ct_record(type, 1, &t, 1, &r);
    if (n == NULL) {
        ct_tensor_decref(r);
        return NULL;
    }
    ag_save_meta(n, 0, t);
    int64_t *mask = n->ints + CT_MAX_DIMS;
    memset(mask, 0, sizeof(int64_t) * CT_MAX_DIMS);
    int64_t count = 1;
    for (int d = 0; d < t->ndim; d++) {
        bool reduced = all || ndims == 0;
        for (int i = 0; i < ndims && !all; i++) {
            reduced |= (dims[i] < 0 ? dims[i] + t->ndim : dims[i]) == d;
        }
        mask[d] = reduced;
        count *= reduced ? t->sizes[d] : 1;
    }
    n->d[0] = keepdim && !all;
    n->d[1] = (double)count;
    return r;
}

ct_tensor *
ctag_reduce(ct_reduce_op op, const ct_tensor *t, int ndims, const int64_t *dims,
            bool keepdim, ct_dtype dtype, const ct_reduce_args *args, ct_tensor **indices)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_reduce(op, t, ndims, dims, keepdim, dtype, args, indices);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    switch (op) {
    case CT_REDUCE_SUM:
    case CT_REDUCE_MEAN:
        return record_sum(op, t, ndims, dims, keepdim, r);
    default:
        return r;       /* not differentiable here yet: no history */
    }
}

ct_tensor *
ctag_sum(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim, ct_dtype dtype)
{
    return ctag_reduce(CT_REDUCE_SUM, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ctag_mean(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim, ct_dtype dtype)
{
    return ctag_reduce(CT_REDUCE_MEAN, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ctag_sum_to(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    AG_NULL_IF_ANY(t);
    int lead = t->ndim - ndim;
    int64_t dims[CT_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d < lead || (sizes[d - lead] == 1 && t->sizes[d] != 1)) {
            dims[nd++] = d;
        }
    }
    if (nd == 0 && lead == 0) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    ct_tensor *s = ctag_sum(t, nd, dims, true, CT_DTYPE_COUNT);
    if (s == NULL || lead == 0) {
        return s;
    }
    ct_tensor *r = ctag_view(s, ndim, sizes);
    ct_tensor_decref(s);
    return r;
}
