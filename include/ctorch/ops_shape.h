/* ctorch/ops_shape.h -- the shape family: views that split, move and
 * broadcast dimensions (aten/shape.c), and the copies that join, repeat,
 * flip and roll tensors (aten/cpu/shape_copy.c).
 *
 * Ownership follows ops.h: a function returning ct_tensor * returns a NEW
 * reference, or NULL with the ct error set; tensor arguments (and the
 * arrays of them) are BORROWED.  Functions that produce several tensors
 * fill a ct_tensor_list and return 0, or -1 with the error set and the
 * list left empty.  The views share the input's storage and record its
 * base (ct_tensor_view_of), exactly where PyTorch's do; the copies return
 * fresh tensors laid out as PyTorch lays them out.  Error texts are
 * PyTorch 1.13's.  Thread-safety: as the other ops (no shared state).
 */
#ifndef CTORCH_OPS_SHAPE_H
#define CTORCH_OPS_SHAPE_H

#include "tensor.h"

/* n tensors, each a new reference owned by the list, in a malloc'd array.
 * ct_tensor_list_clear drops them all and leaves {0, NULL}; clearing an
 * empty (zero-initialised) list is a no-op. */
typedef struct {
    int64_t n;
    ct_tensor **items;
} ct_tensor_list;

void ct_tensor_list_clear(ct_tensor_list *l);

/* --- views (aten/shape.c) ---------------------------------------------- */
/* Dim `dim` split into sizes[0..n-1] (one may be -1). */
ct_tensor *ct_unflatten(const ct_tensor *t, int64_t dim, int n, const int64_t *sizes);
/* expand() with broadcast_to's name. */
ct_tensor *ct_broadcast_to(const ct_tensor *t, int ndim, const int64_t *sizes);
/* Dims src[i] moved to positions dst[i]; the others keep their order. */
ct_tensor *ct_movedim(const ct_tensor *t, int nsrc, const int64_t *src, int ndst,
                      const int64_t *dst);
/* The diagonal of the (dim1, dim2) planes, offset above (> 0) or below the
 * main diagonal; it becomes the last dim. */
ct_tensor *ct_diagonal(const ct_tensor *t, int64_t offset, int64_t dim1,
                       int64_t dim2);
/* One select() per index of dim. */
int ct_unbind(const ct_tensor *t, int64_t dim, ct_tensor_list *out);
/* ceil(size / chunks)-sized pieces (fewer than `chunks` when they run out). */
int ct_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out);
/* Pieces of split_size along dim, the last one shorter. */
int ct_split(const ct_tensor *t, int64_t split_size, int64_t dim, ct_tensor_list *out);
/* Pieces of the given sizes, which must sum to the size of dim. */
int ct_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes, int64_t dim,
                        ct_tensor_list *out);
/* numpy.array_split: `sections` pieces, the first size % sections one
 * longer. */
int ct_tensor_split(const ct_tensor *t, int64_t sections, int64_t dim,
                    ct_tensor_list *out);
/* Pieces between consecutive indices (clamped, as Python slices are). */
int ct_tensor_split_indices(const ct_tensor *t, int n, const int64_t *indices,
                            int64_t dim, ct_tensor_list *out);
/* numpy's hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-D
 * tensors) / 0 / 2, into `sections` equal pieces (indices == NULL; the
 * size must divide) or at the n indices. */
typedef enum { CT_SPLIT_H, CT_SPLIT_V, CT_SPLIT_D } ct_split_axis;
int ct_axis_split(const ct_tensor *t, ct_split_axis axis, int64_t sections, int n,
                  const int64_t *indices, ct_tensor_list *out);
/* numpy's atleast_1d/2d/3d (k = 1, 2, 3): t itself when it has k dims or
 * more, else a view with dims of size 1 added ((n) -> (1, n) -> (1, n, 1)). */
ct_tensor *ct_atleast(const ct_tensor *t, int k);
/* Every tensor expanded to the common broadcast shape. */
int ct_broadcast_tensors(int64_t n, const ct_tensor *const *ts, ct_tensor_list *out);

/* --- copies (aten/cpu/shape_copy.c) ------------------------------------ */
/* torch.cat: the tensors joined along dim, in their promoted dtype (1-D
 * empty tensors are skipped, as PyTorch's legacy rule does).  out may be
 * NULL; otherwise it is checked (cast, overlap), resized if needed, filled
 * and returned (new reference). */
ct_tensor *ct_cat(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out);
/* torch.stack: equal-sized tensors joined along a new dim. */
ct_tensor *ct_stack(int64_t n, const ct_tensor *const *ts, int64_t dim,
                    ct_tensor *out);
/* hstack / vstack / dstack / column_stack (numpy's). */
ct_tensor *ct_hstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ct_vstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ct_dstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
ct_tensor *ct_column_stack(int64_t n, const ct_tensor *const *ts, ct_tensor *out);
/* Tensor.repeat: the whole tensor tiled repeats[i] times along dim i
 * (n >= t->ndim; leading repeats add dims). */
ct_tensor *ct_repeat(const ct_tensor *t, int n, const int64_t *repeats);
/* torch.tile: repeat with reps padded by leading 1s to t->ndim. */
ct_tensor *ct_tile(const ct_tensor *t, int n, const int64_t *reps);
/* Each element (dim == NULL: of the flattened tensor) repeated `repeats`
 * times.  output_size < 0: not given. */
ct_tensor *ct_repeat_interleave(const ct_tensor *t, int64_t repeats, const int64_t *dim,
                                int64_t output_size);
/* The same with a 0-dim or 1-D int32/int64 tensor of per-index repeats. */
ct_tensor *ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats,
                                       const int64_t *dim, int64_t output_size);
/* torch.repeat_interleave(repeats): index i repeated repeats[i] times. */
ct_tensor *ct_repeat_interleave_index(const ct_tensor *repeats, int64_t output_size);
/* Elements reversed along each of dims. */
ct_tensor *ct_flip(const ct_tensor *t, int n, const int64_t *dims);
ct_tensor *ct_fliplr(const ct_tensor *t);
ct_tensor *ct_flipud(const ct_tensor *t);
/* Elements shifted cyclically by shifts[i] along dims[i]; ndims == 0: the
 * flattened tensor by shifts[0] (nshifts must then be 1). */
ct_tensor *ct_roll(const ct_tensor *t, int nshifts, const int64_t *shifts, int ndims,
                   const int64_t *dims);
/* Rotation by k * 90 degrees in the plane of dims[0], dims[1]. */
ct_tensor *ct_rot90(const ct_tensor *t, int64_t k, int ndims, const int64_t *dims);

#endif
