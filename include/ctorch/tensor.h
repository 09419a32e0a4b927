/* ctorch/tensor.h -- a refcounted strided view of a Storage.
 *
 * A tensor is (storage, offset, sizes, strides, dtype) with sizes, strides
 * and offset in elements.  Views share the storage and point at their base
 * tensor.  Up to CT_INLINE_DIMS dims live inline in the struct (no second
 * allocation); more go to the heap.
 *
 * Ownership (CPython vocabulary): functions that return ct_tensor * return
 * a NEW reference or NULL with the error set.  Arguments are BORROWED; no
 * function steals.  ct_tensor_decref(NULL) is a no-op.  Refcounts are
 * atomic; metadata changes (resize, set sizes) are not synchronised.
 *
 * Example:
 *     int64_t sz[2] = {2, 3};
 *     ct_tensor *a = ct_full(2, sz, ct_scalar_float(1.5), CT_DTYPE_FLOAT32);
 *     ct_tensor *b = ct_add(a, a, ct_scalar_int(1));
 *     ct_tensor_decref(a);
 *     ct_tensor_decref(b);
 */
#ifndef CTORCH_TENSOR_H
#define CTORCH_TENSOR_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "scalar.h"
#include "storage.h"

#define CT_MAX_DIMS 64
#define CT_INLINE_DIMS 5

enum {
    CT_TENSOR_WRAPPED_NUMBER = 1u << 0, /* a Python number in an op */
    CT_TENSOR_REQUIRES_GRAD = 1u << 1,
};

typedef struct ct_tensor {
    atomic_long refcnt;
    ct_storage *storage;
    int64_t offset;
    int64_t numel;
    int64_t *sizes;             /* inline_dims or heap */
    int64_t *strides;
    int ndim;
    ct_dtype dtype;
    unsigned flags;
    double q_scale;             /* quantized dtypes only */
    int64_t q_zero_point;
    struct ct_tensor *base;     /* owned: the tensor this is a view of */
    struct ct_tensor *grad;     /* owned */
    struct ct_autograd_meta *ag; /* owned; NULL outside autograd (autograd.h) */
    void *pyobj;                /* borrowed back-pointer kept by _C */
    int64_t inline_dims[2 * CT_INLINE_DIMS];
} ct_tensor;

/* --- lifetime ------------------------------------------------------- */
/* New tensor over `storage` (borrowed; the tensor takes its own ref). */
ct_tensor *ct_tensor_new(ct_storage *storage, int64_t offset, int ndim,
                         const int64_t *sizes, const int64_t *strides,
                         ct_dtype dtype);
/* New view of `base`: same storage and dtype, given geometry. */
ct_tensor *ct_tensor_view_of(const ct_tensor *base, int64_t offset, int ndim,
                             const int64_t *sizes, const int64_t *strides);
static inline void
ct_tensor_incref(ct_tensor *t)
{
    atomic_fetch_add_explicit(&t->refcnt, 1, memory_order_relaxed);
}
void ct_tensor_decref(ct_tensor *t);
/* Hook run just before a tensor is freed (the Python layer clears its
 * back-pointer there).  Process-wide; NULL to unset. */
void ct_tensor_set_free_hook(void (*hook)(ct_tensor *t));
/* Called before a tensor with autograd metadata is freed (set by the
 * autograd layer, which owns that metadata). */
void ct__tensor_set_autograd_free(void (*fn)(ct_tensor *t));

/* --- creation -------------------------------------------------------- */
ct_tensor *ct_empty(int ndim, const int64_t *sizes, ct_dtype dtype,
                    ct_device device);
ct_tensor *ct_empty_strided(int ndim, const int64_t *sizes,
                            const int64_t *strides, ct_dtype dtype,
                            ct_device device);
/* A 0-dim tensor holding a Python number: int64, float64 or bool,
 * flagged as a wrapped number for type promotion. */
ct_tensor *ct_scalar_tensor(ct_scalar s);

/* --- geometry -------------------------------------------------------- */
static inline char *
ct_tensor_data(const ct_tensor *t)
{
    return t->storage->data + t->offset * (int64_t)ct_dtype_itemsize(t->dtype);
}

static inline ct_device
ct_tensor_device(const ct_tensor *t)
{
    return t->storage->device;
}

bool ct_tensor_is_contiguous(const ct_tensor *t);
/* No two elements share memory and the elements fill [min, max] densely. */
bool ct_tensor_is_non_overlapping_and_dense(const ct_tensor *t);
/* Contiguous strides for sizes. */
void ct_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides);
/* Check sizes (>= 0, product fits) and return the element count, or -1. */
int64_t ct_check_sizes(int ndim, const int64_t *sizes);
/* Replace geometry in place (used by resize_ and view machinery). */
int ct_tensor_set_geometry(ct_tensor *t, int ndim, const int64_t *sizes,
                           const int64_t *strides);
/* torch's resize_: contiguous strides, storage grown when needed. */
int ct_tensor_resize_(ct_tensor *t, int ndim, const int64_t *sizes);
/* Read element `index` (in logical row-major order) as a scalar. */
ct_scalar ct_tensor_item_at(const ct_tensor *t, int64_t index);
/* The value of a one-element tensor; RuntimeError otherwise. */
int ct_tensor_item(const ct_tensor *t, ct_scalar *out);
/* Bump the storage's version counter (after an in-place write). */
static inline void
ct_tensor_bump_version(const ct_tensor *t)
{
    atomic_fetch_add_explicit(&t->storage->version, 1, memory_order_relaxed);
}
/* Format sizes as "[2, 3]" into buf; returns buf. */
char *ct_format_sizes(int ndim, const int64_t *sizes, char *buf, int size);
/* Normalise a possibly negative dim; -1 with IndexError when out of range. */
int ct_wrap_dim(int64_t dim, int ndim);

#endif
