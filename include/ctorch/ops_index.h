/* ctorch/ops_index.h -- indexing ops (aten/cpu/index.c).  Conventions of
 * ops.h: new references or NULL / -1 with the error set; PyTorch's
 * messages. */
#ifndef CTORCH_OPS_INDEX_H
#define CTORCH_OPS_INDEX_H

#include "tensor.h"

/* The coordinates of the nonzero elements: int64 (count, ndim). */
ct_tensor *ct_nonzero(const ct_tensor *t);
/* Advanced indexing t[indices]: indices[d] is an integer tensor for dim d
 * or NULL (the whole dim); n <= t->ndim entries, the rest taken whole.
 * Result shape as PyTorch's (broadcast index shape in place of adjacent
 * indexed dims, else in front). */
ct_tensor *ct_index(const ct_tensor *t, int n, ct_tensor *const *indices);
/* t[indices] = values (broadcast), or += with accumulate. */
int ct_index_put_(ct_tensor *t, int n, ct_tensor *const *indices,
                  const ct_tensor *values, bool accumulate);
ct_tensor *ct_index_select(const ct_tensor *t, int64_t dim, const ct_tensor *index);
ct_tensor *ct_masked_select(const ct_tensor *t, const ct_tensor *mask);
ct_tensor *ct_take(const ct_tensor *t, const ct_tensor *index);
ct_tensor *ct_gather(const ct_tensor *t, int64_t dim, const ct_tensor *index);
/* scatter: t[...index[i][j]...] = src[i][j] along dim; src NULL: value.
 * reduce: NULL, "add" or "multiply". */
int ct_scatter_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                const ct_tensor *src, ct_scalar value, const char *reduce);
int ct_index_add_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                  const ct_tensor *src, ct_scalar alpha);
int ct_index_copy_(ct_tensor *t, int64_t dim, const ct_tensor *index,
                   const ct_tensor *src);
int ct_index_fill_(ct_tensor *t, int64_t dim, const ct_tensor *index, ct_scalar value);

#endif
