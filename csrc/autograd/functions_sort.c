/* csrc/autograd/functions_sort.c -- sort, topk, kthvalue and their
 * derivatives, and the selection helpers of functions_select.h.
 *
 * Payload of a selection node: ints[0..]: the input's sizes
 * (ag_save_meta); ints[CT_MAX_DIMS]: the dim (wrapped); d[0]: keepdim;
 * saved[0]: the indices.
 */
#include "functions_select.h"

#define DIM_SLOT CT_MAX_DIMS

/* --- scatter into zeros ---------------------------------------------------- */

ct_tensor *
ag_scatter_zeros(int ndim, const int64_t *sizes, int64_t dim, const ct_tensor *index,
                 const ct_tensor *src, bool add)
{
    AG_NULL_IF_ANY(index, src);
    ct_device dev = ct_tensor_device(src);
    ct_tensor *z = ct_zeros_on(ndim, sizes, src->dtype, dev);
    ct_tensor *r = NULL;
    if (z != NULL) {
        /* a device has scatter_add only; into zeros, with each position
         * written once (the selections' indices), it is scatter */
        add = add || dev.type != CT_DEVICE_CPU;
        r = add ? ctag_scatter_add(z, dim, index, src)
                : ctag_scatter(z, dim, index, src, ct_scalar_int(0), NULL);
    }
    ct_tensor_decref(z);
    return r;
}

/* --- selections ------------------------------------------------------------ */

ct_tensor *
ag_select_backward(const ct_tensor *g, int64_t dim, const ct_tensor *indices, int ndim,
                   const int64_t *sizes, bool keepdim)
{
    AG_NULL_IF_ANY(g, indices);
    if (ndim == 0) {
        /* a 0-dim input has one value, picked or not (topk with k = 0) */
        return g->numel == 1 ? ctag_reshape(g, 0, NULL)
                             : ct_zeros_on(0, NULL, g->dtype, ct_tensor_device(g));
    }
    if (keepdim) {
        return ag_scatter_zeros(ndim, sizes, dim, indices, g, false);
    }
    ct_tensor *gu = ctag_unsqueeze(g, dim);
    ct_tensor *iu = gu != NULL ? ct_unsqueeze(indices, dim) : NULL;
    ct_tensor *r = ag_scatter_zeros(ndim, sizes, dim, iu, gu, false);
    ct_tensor_decref(iu);
    ct_tensor_decref(gu);
    return r;
}

int
ag_select_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *indices = ct_node_unpack(n, 0);
    if (indices == NULL) {
        return -1;
    }
    go[0] = ag_to_input(n, 0, ag_select_backward(gi[0], n->ints[DIM_SLOT], indices,
                                                 n->ndim[0], ag_input_sizes(n, 0),
                                                 n->d[0] != 0));
    ct_tensor_decref(indices);
    return go[0] != NULL ? 0 : -1;
}

int
ag_record_select(const ct_node_type *type, const ct_tensor *t, int64_t dim,
                 bool keepdim, ct_tensor *values, const ct_tensor *indices)
{
    if (!ct_dtype_is_floating(values->dtype) || !ct_any_requires_grad(1, &t)) {
        return 0;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    ct_node *n = ct_record(type, 1, &t, 1, &values);
    if (n == NULL || ct_node_save(n, 0, indices, false) < 0) {
        return -1;
    }
    ag_save_meta(n, 0, t);
    n->ints[DIM_SLOT] = d;
    n->d[0] = keepdim;
    return 0;
}

/* --- sort, topk, kthvalue -------------------------------------------------- */

static const ct_node_type sort_type = {"SortBackward0", ag_select_apply, NULL};
static const ct_node_type topk_type = {"TopkBackward0", ag_select_apply, NULL};
static const ct_node_type kthvalue_type = {"KthvalueBackward0", ag_select_apply, NULL};

/* The recording after a two-result kernel ran (rc), dropping both results
 * when it fails. */
static int
finish_pair(int rc, const ct_node_type *type, const ct_tensor *t, int64_t dim,
            bool keepdim, ct_tensor **values, ct_tensor **indices)
{
    if (rc < 0) {
        return -1;
    }
    if (ag_record_select(type, t, dim, keepdim, *values, *indices) < 0) {
        ct_tensor_decref(*values);
        ct_tensor_decref(*indices);
        *values = *indices = NULL;
        return -1;
    }
    return 0;
}

int
ctag_sort(const ct_tensor *t, int64_t dim, bool descending, bool stable,
          ct_tensor **values, ct_tensor **indices)
{
    *values = *indices = NULL;
    if (t == NULL) {
        return -1;
    }
    int rc = ct_sort(t, dim, descending, stable, values, indices);
    return finish_pair(rc, &sort_type, t, dim, true, values, indices);
}

int
ctag_topk(const ct_tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
          ct_tensor **values, ct_tensor **indices)
{
    *values = *indices = NULL;
    if (t == NULL) {
        return -1;
    }
    int rc = ct_topk(t, k, dim, largest, sorted, values, indices);
    return finish_pair(rc, &topk_type, t, dim, true, values, indices);
}

int
ctag_kthvalue(const ct_tensor *t, int64_t k, int64_t dim, bool keepdim,
              ct_tensor **values, ct_tensor **indices)
{
    *values = *indices = NULL;
    if (t == NULL) {
        return -1;
    }
    int rc = ct_kthvalue(t, k, dim, keepdim, values, indices);
    return finish_pair(rc, &kthvalue_type, t, dim, keepdim, values, indices);
}
