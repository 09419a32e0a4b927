/* csrc/autograd/functions_index.c -- advanced indexing and its derivative.
 * extra: the index tensors (owned), n_ints: how many. */
#include "functions.h"

#include <stdlib.h>

static void
index_release(ct_node *n)
{
    ct_tensor **idx = n->extra;
    for (int i = 0; i < n->n_ints; i++) {
        ct_tensor_decref(idx[i]);
    }
    free(idx);
}

/* t[indices] backward: g added into zeros of t's shape at the indices
 * (accumulating: an index may repeat). */
static int
index_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    ct_tensor *z = ag_zeros_input(n, 0);
    if (z == NULL) {
        return -1;
    }
    ct_tensor *g = gi[0]->dtype == z->dtype ? (ct_tensor_incref(gi[0]), gi[0])
                                            : ct_to_dtype(gi[0], z->dtype, false);
    if (g == NULL || ct_index_put_(z, n->n_ints, n->extra, g, true) < 0) {
        ct_tensor_decref(g);
        ct_tensor_decref(z);
        return -1;
    }
    ct_tensor_decref(g);
    go[0] = z;
    return 0;
}

static const ct_node_type index_type = {"IndexBackward0", index_apply, index_release};

ct_tensor *
ctag_index(const ct_tensor *t, int n, ct_tensor *const *indices)
{
    AG_NULL_IF_ANY(t);
    ct_tensor *r = ct_index(t, n, indices);
    if (r == NULL || !ct_dtype_is_floating(r->dtype) || !ct_any_requires_grad(1, &t)) {
        return r;
    }
    ct_tensor **idx = calloc((size_t)(n > 0 ? n : 1), sizeof *idx);
    ct_node *node = idx != NULL ? ct_record(&index_type, 1, &t, 1, &r) : NULL;
    if (node == NULL) {
        free(idx);
        ct_tensor_decref(r);
        if (idx == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory");
        }
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        if ((idx[i] = indices[i]) != NULL) {
            ct_tensor_incref(idx[i]);
        }
    }
    node->extra = idx;
    node->n_ints = n;
    ag_save_meta(node, 0, t);
    return r;
}
