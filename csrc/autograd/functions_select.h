/* csrc/autograd/functions_select.h -- what the reduction and the sorting
 * formulas share (functions_sort.c): the node of an op whose values are
 * picked from the input by indices (max(dim), median(dim), mode, sort,
 * topk, kthvalue) and the scatter into zeros its backward is.
 *
 * Results are new references, NULL with the ct error set; a NULL tensor
 * argument gives NULL (the error already set by whoever made it).  No
 * shared state.
 */
#ifndef CTORCH_AUTOGRAD_FUNCTIONS_SELECT_H
#define CTORCH_AUTOGRAD_FUNCTIONS_SELECT_H

#include "functions.h"

/* zeros(sizes).scatter(dim, index, src), or scatter_add with add
 * (ScatterBackward0 / ScatterAddBackward0: a gradient for src only). */
ct_tensor *ag_scatter_zeros(int ndim, const int64_t *sizes, int64_t dim,
                            const ct_tensor *index, const ct_tensor *src, bool add);

/* PyTorch's value_selecting_reduction_backward: g put back at the
 * positions indices name along dim, zeros elsewhere. */
ct_tensor *ag_select_backward(const ct_tensor *g, int64_t dim, const ct_tensor *indices,
                              int ndim, const int64_t *sizes, bool keepdim);
/* Record a node of `type` (apply: ag_select_apply) for values picked
 * from t along dim by indices; nothing when t needs no gradient or the
 * values are not floating.  0, or -1 with the error set. */
int ag_record_select(const ct_node_type *type, const ct_tensor *t, int64_t dim,
                     bool keepdim, ct_tensor *values, const ct_tensor *indices);
int ag_select_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

#endif
