/* c10/tensor.c -- tensor lifetime and geometry. */
#include <ctorch/cuda.h>
#include <ctorch/error.h>
#include <ctorch/tensor.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c10_impl.h"
#include "convert.h"

static void (*free_hook)(ct_tensor *t);
static void (*autograd_free)(ct_tensor *t);

void
ct__tensor_set_autograd_free(void (*fn)(ct_tensor *t))
{
    autograd_free = fn;
}

void
ct_tensor_set_free_hook(void (*hook)(ct_tensor *t))
{
    free_hook = hook;
}

int64_t
ct_check_sizes(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    bool overflow = false;

    if (ndim < 0 || ndim > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "tensors may have at most %d dimensions, got %d",
                 CT_MAX_DIMS, ndim);
        return -1;
    }
    for (int i = 0; i < ndim; i++) {
        if (sizes[i] < 0) {
            char buf[256];
            ct_error(CT_ERR_RUNTIME, "Trying to create tensor with negative "
                     "dimension %lld: %s", (long long)sizes[i],
                     ct_format_sizes(ndim, sizes, buf, sizeof buf));
            return -1;
        }
        overflow |= __builtin_mul_overflow(n, sizes[i], &n);
    }
    if (overflow) {
        n = 0;
        for (int i = 0; i < ndim; i++) {
            if (sizes[i] == 0) {
                return 0;
            }
        }
        ct_error(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
        return -1;
    }
    return n;
}

void
ct_contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= sizes[i] > 1 ? sizes[i] : 1;
    }
}

int
ct_tensor_set_geometry(ct_tensor *t, int ndim, const int64_t *sizes,
                       const int64_t *strides)
{
    int64_t n = ct_check_sizes(ndim, sizes);
    int64_t *buf = t->inline_dims;

    if (n < 0) {
        return -1;
    }
    if (ndim > CT_INLINE_DIMS) {
        buf = malloc(2 * (size_t)ndim * sizeof(int64_t));
        if (buf == NULL) {
            return ct_error(CT_ERR_NOMEM, "out of memory");
        }
    }
    /* sizes/strides may alias the old arrays: copy before freeing */
    if (ndim > 0) {
        memmove(buf, sizes, (size_t)ndim * sizeof(int64_t));
        if (strides != NULL) {
            memmove(buf + ndim, strides, (size_t)ndim * sizeof(int64_t));
        }
        else {
            ct_contiguous_strides(ndim, buf, buf + ndim);
        }
    }
    if (t->sizes != t->inline_dims && t->sizes != buf) {
        free(t->sizes);
    }
    t->sizes = buf;
    t->strides = buf + ndim;
    t->ndim = ndim;
    t->numel = n;
    return 0;
}

/* Freed tensor structs wait here for the next tensor made on this thread
 * (see Note [Small storages] in storage.c). */
#define FREE_LIST_MAX 64
static _Thread_local ct_tensor *free_list[FREE_LIST_MAX];
static _Thread_local int free_count;

static ct_tensor *
tensor_alloc(void)
{
    if (free_count > 0) {
        ct_tensor *t = free_list[--free_count];
        memset(t, 0, sizeof *t);
        return t;
    }
    return calloc(1, sizeof(ct_tensor));
}

static void
tensor_free(ct_tensor *t)
{
    if (free_count < FREE_LIST_MAX) {
        free_list[free_count++] = t;
    }
    else {
        free(t);
    }
}

ct_tensor *
ct_tensor_new(ct_storage *storage, int64_t offset, int ndim,
              const int64_t *sizes, const int64_t *strides, ct_dtype dtype)
{
    ct_tensor *t = tensor_alloc();
    if (t == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a tensor");
        return NULL;
    }
    atomic_init(&t->refcnt, 1);
    t->sizes = t->inline_dims;
    t->strides = t->inline_dims;
    if (ct_tensor_set_geometry(t, ndim, sizes, strides) < 0) {
        tensor_free(t);
        return NULL;
    }
    ct_storage_incref(storage);
    t->storage = storage;
    t->offset = offset;
    t->dtype = dtype;
    ct__count_tensor(1);
    return t;
}

ct_tensor *
ct_tensor_view_of(const ct_tensor *base, int64_t offset, int ndim,
                  const int64_t *sizes, const int64_t *strides)
{
    ct_tensor *t = ct_tensor_new(base->storage, offset, ndim, sizes, strides,
                                 base->dtype);
    if (t == NULL) {
        return NULL;
    }
    t->q_scale = base->q_scale;
    t->q_zero_point = base->q_zero_point;
    /* a view of a view records the root, as PyTorch's _base does */
    t->base = base->base != NULL ? base->base : (ct_tensor *)base;
    ct_tensor_incref(t->base);
    return t;
}

void
ct_tensor_decref(ct_tensor *t)
{
    if (t == NULL) {
        return;
    }
    long old = atomic_fetch_sub_explicit(&t->refcnt, 1, memory_order_acq_rel);
    CT_ASSERT(old > 0);
    if (old != 1) {
        return;
    }
    if (free_hook != NULL && t->pyobj != NULL) {
        free_hook(t);
    }
    if (t->ag != NULL) {
        autograd_free(t);
    }
    ct_storage_decref(t->storage);
    ct_tensor_decref(t->base);
    ct_tensor_decref(t->grad);
    if (t->sizes != t->inline_dims) {
        free(t->sizes);
    }
    ct__count_tensor(-1);
    tensor_free(t);
}

ct_tensor *
ct_empty_strided(int ndim, const int64_t *sizes, const int64_t *strides,
                 ct_dtype dtype, ct_device device)
{
    int64_t n = ct_check_sizes(ndim, sizes);
    int64_t extent = 0;         /* elements spanned: 1 + sum (size-1)*stride */

    if (n < 0) {
        return NULL;
    }
    if (n > 0) {
        extent = 1;
        for (int i = 0; i < ndim; i++) {
            extent += (sizes[i] - 1) * (strides ? strides[i] : 0);
        }
        if (strides == NULL) {
            extent = n;
        }
    }
    size_t itemsize = ct_dtype_itemsize(dtype);
    if ((uint64_t)extent > SIZE_MAX / itemsize) {
        ct_error(CT_ERR_RUNTIME, "Trying to create tensor with too many elements");
        return NULL;
    }
    ct_storage *s = ct_storage_new((size_t)extent * itemsize, device);
    if (s == NULL) {
        return NULL;
    }
    ct_tensor *t = ct_tensor_new(s, 0, ndim, sizes, strides, dtype);
    ct_storage_decref(s);
    return t;
}

ct_tensor *
ct_empty(int ndim, const int64_t *sizes, ct_dtype dtype, ct_device device)
{
    return ct_empty_strided(ndim, sizes, NULL, dtype, device);
}

ct_tensor *
ct_scalar_tensor(ct_scalar s)
{
    static const ct_dtype kinds[] = {
        [CT_SCALAR_BOOL] = CT_DTYPE_BOOL,
        [CT_SCALAR_INT] = CT_DTYPE_INT64,
        [CT_SCALAR_FLOAT] = CT_DTYPE_FLOAT64,
    };
    ct_tensor *t = ct_empty(0, NULL, kinds[s.kind], ct_device_cpu());
    if (t == NULL) {
        return NULL;
    }
    memcpy(t->storage->data, &s.v, ct_dtype_itemsize(t->dtype));
    t->flags |= CT_TENSOR_WRAPPED_NUMBER;
    return t;
}

bool
ct_tensor_is_contiguous(const ct_tensor *t)
{
    int64_t expected = 1;
    if (t->numel == 0) {
        return true;
    }
    for (int i = t->ndim - 1; i >= 0; i--) {
        if (t->sizes[i] != 1) {
            if (t->strides[i] != expected) {
                return false;
            }
            expected *= t->sizes[i];
        }
    }
    return true;
}

bool
ct_tensor_is_non_overlapping_and_dense(const ct_tensor *t)
{
    int perm[CT_MAX_DIMS];
    int64_t expected = 1;

    if (ct_tensor_is_contiguous(t)) {
        return true;
    }
    /* sort dims by stride (size-1 dims are irrelevant) and check they tile */
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (t->sizes[i] != 1) {
            perm[n++] = i;
        }
    }
    for (int i = 1; i < n; i++) {
        for (int j = i; j > 0 && t->strides[perm[j - 1]] > t->strides[perm[j]]; j--) {
            int tmp = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = tmp;
        }
    }
    for (int i = 0; i < n; i++) {
        if (t->strides[perm[i]] != expected) {
            return false;
        }
        expected *= t->sizes[perm[i]];
    }
    return true;
}

int
ct_tensor_resize_(ct_tensor *t, int ndim, const int64_t *sizes)
{
    int64_t n = ct_check_sizes(ndim, sizes);
    if (n < 0) {
        return -1;
    }
    size_t need = ((size_t)n + (size_t)t->offset) * ct_dtype_itemsize(t->dtype);
    if (need > t->storage->nbytes && ct_storage_resize(t->storage, need) < 0) {
        return -1;
    }
    return ct_tensor_set_geometry(t, ndim, sizes, NULL);
}

/* The element of dtype d at host address p. */
static ct_scalar
item_bytes(ct_dtype d, const char *p)
{
    ct_scalar s = ct_scalar_int(0);
    switch (d) {
#define X(E, T, S, A)                                                       \
    case E: {                                                               \
        T v;                                                                \
        memcpy(&v, p, sizeof v);                                            \
        s = ct__scalar_from_##S(v);                                         \
        break;                                                              \
    }
        CT_FORALL_DTYPES(X)
#undef X
    default:
        break;
    }
    return s;
}

ct_scalar
ct_tensor_item_at(const ct_tensor *t, int64_t index)
{
    int64_t off = 0;
    for (int i = t->ndim - 1; i >= 0; i--) {
        off += (index % t->sizes[i]) * t->strides[i];
        index /= t->sizes[i];
    }
    return item_bytes(t->dtype, ct_tensor_data(t) + off * (int64_t)ct_dtype_itemsize(t->dtype));
}

int
ct_tensor_item(const ct_tensor *t, ct_scalar *out)
{
    if (t->numel != 1) {
        return ct_error(CT_ERR_RUNTIME, "a Tensor with %lld elements cannot be "
                        "converted to Scalar", (long long)t->numel);
    }
    ct_device dev = ct_tensor_device(t);
    if (dev.type != CT_DEVICE_CPU) {
        /* the one element through a host copy, after the device's current
         * stream (.item() synchronizes, as in PyTorch) */
        char buf[16];
        void *stream;
        size_t n = ct_dtype_itemsize(t->dtype);
        if (n > sizeof buf || ct_cuda_current_stream(dev.index, &stream) < 0 ||
            ct_cuda_memcpy(buf, ct_tensor_data(t), n, stream, true) < 0) {
            return n > sizeof buf ? ct_error(CT_ERR_RUNTIME, "item: element too wide") : -1;
        }
        *out = item_bytes(t->dtype, buf);
        return 0;
    }
    *out = ct_tensor_item_at(t, 0);
    return 0;
}

char *
ct_format_sizes(int ndim, const int64_t *sizes, char *buf, int size)
{
    int pos = snprintf(buf, (size_t)size, "[");
    for (int i = 0; i < ndim && pos < size; i++) {
        pos += snprintf(buf + pos, (size_t)(size - pos), "%s%lld", i ? ", " : "",
                        (long long)sizes[i]);
    }
    if (pos < size) {
        snprintf(buf + pos, (size_t)(size - pos), "]");
    }
    return buf;
}

int
ct_wrap_dim(int64_t dim, int ndim)
{
    int64_t n = ndim > 0 ? ndim : 1;    /* a 0-dim tensor accepts -1 and 0 */
    if (dim < -n || dim >= n) {
        return ct_error(CT_ERR_INDEX, "Dimension out of range (expected to be in "
                        "range of [%lld, %lld], but got %lld)", (long long)-n,
                        (long long)(n - 1), (long long)dim);
    }
    return (int)(dim < 0 ? dim + n : dim);
}
