/* ctorch/ops_sort.h -- sorting and selection (aten/cpu/sort*.c): sort,
 * argsort, topk, kthvalue, unique (also along a dim), unique_consecutive,
 * searchsorted, bucketize, histc, bincount.
 *
 * Conventions of ops.h: results are NEW references (or NULL with the ct
 * error set); tensor arguments are borrowed.  Two-result ops store new
 * references in *values and *indices and return 0, or -1 with both left
 * NULL.  Indices are int64.  Messages follow PyTorch 1.13.
 *
 * Order: every op orders values as torch does, NaN above +inf and -0.0
 * equal to 0.0.  Sorting is always stable (stable= only documents the
 * wish), so equal values keep their input order, also when descending.
 * topk and kthvalue break ties by the lower index (torch leaves that
 * unspecified).  0-dim inputs behave as one-element 1-D ones (dim 0 / -1).
 * sort, argsort and topk also take quantized tensors (ordered by their
 * stored integers; values keep scale and zero point), as torch's do.
 *
 * Thread-safety: none needed (no shared state); large inputs are split
 * across the pool of aten/parallel.h by slices.
 */
#ifndef CTORCH_OPS_SORT_H
#define CTORCH_OPS_SORT_H

#include "tensor.h"

/* Values sorted along dim (laid out like t when t is dense) and the
 * positions they came from. */
int ct_sort(const ct_tensor *t, int64_t dim, bool descending, bool stable,
            ct_tensor **values, ct_tensor **indices);
ct_tensor *ct_argsort(const ct_tensor *t, int64_t dim, bool descending, bool stable);
/* The k largest (smallest) values along dim, in order (sorted is accepted
 * and ignored: the result is always sorted). */
int ct_topk(const ct_tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
            ct_tensor **values, ct_tensor **indices);
/* The k-th smallest value (k counts from 1) along dim; dim is dropped
 * unless keepdim. */
int ct_kthvalue(const ct_tensor *t, int64_t k, int64_t dim, bool keepdim,
                ct_tensor **values, ct_tensor **indices);
/* Distinct values of the flattened t, ascending (sorted=False gives the
 * same order).  inverse (t's shape: the position of each input in values)
 * and counts are computed when the pointer is not NULL; each NaN is its
 * own value, as in torch. */
int ct_unique(const ct_tensor *t, bool sorted, ct_tensor **values,
              ct_tensor **inverse, ct_tensor **counts);
/* unique(dim=): the distinct slices of t along dim (sorted as torch 1.13
 * sorts them, Note [unique along a dim]), or with consecutive the runs of
 * equal neighbouring slices (unique_consecutive(dim=)); inverse: the group
 * of each slice (size(dim)); counts: each group's size.  inverse and
 * counts are computed when the pointer is not NULL.  A slice with a NaN
 * equals no other. */
int ct_unique_dim(const ct_tensor *t, int64_t dim, bool consecutive, ct_tensor **values,
                  ct_tensor **inverse, ct_tensor **counts);
/* unique_consecutive without dim: the runs of equal neighbouring values of
 * the flattened t (1-D values; inverse shaped like t). */
int ct_unique_consecutive(const ct_tensor *t, ct_tensor **values, ct_tensor **inverse,
                          ct_tensor **counts);
/* For each element of `values`, the insertion point into the last dim of
 * `seq` (1-D: shared by all values; N-D: leading dims match values'),
 * leftmost unless right.  sorter (may be NULL): int64 indices that sort
 * seq.  Comparison in the promoted dtype; int32 result when out_int32. */
ct_tensor *ct_searchsorted(const ct_tensor *seq, const ct_tensor *values,
                           bool out_int32, bool right, const ct_tensor *sorter);
/* torch.bucketize: searchsorted with 1-D boundaries. */
ct_tensor *ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries,
                        bool out_int32, bool right);
/* Histogram of `bins` equal bins over [min, max] (min == max: the data's
 * range); floating inputs, the result in t's dtype. */
ct_tensor *ct_histc(const ct_tensor *t, int64_t bins, double min, double max);
/* Counts (or sums of weights, may be NULL) of each value of a 1-D
 * non-negative integer tensor; at least minlength bins.  int64 result
 * without weights; with weights, float32/float64 weights keep their dtype
 * and others give float64. */
ct_tensor *ct_bincount(const ct_tensor *t, const ct_tensor *weights, int64_t minlength);

#endif
