/* aten/view.c -- views: new geometry over the same storage.
 *
 * Every function returns a new tensor that shares t's storage and records
 * t's base (see ct_tensor_view_of); nothing is copied except by
 * ct_reshape when no view can express the shape.
 */
#include <stdio.h>
#include <string.h>

#include <ctorch/ctorch.h>

int
ct_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b,
                    int *nout, int64_t *out)
{
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
        if (sa != sb && sa != 1 && sb != 1) {
            return ct_error(CT_ERR_RUNTIME, "The size of tensor a (%lld) must "
                            "match the size of tensor b (%lld) at non-singleton "
                            "dimension %d", (long long)sa, (long long)sb, i);
        }
        out[i] = sa == 1 ? sb : sa;
    }
    *nout = n;
    return 0;
}

ct_tensor *
ct_as_strided(const ct_tensor *t, int ndim, const int64_t *sizes,
              const int64_t *strides, int64_t offset)
{
    if (offset < 0) {
        ct_error(CT_ERR_RUNTIME, "Tensor: invalid storage offset %lld", (long long)offset);
        return NULL;
    }
    for (int i = 0; i < ndim; i++) {
        if (strides[i] < 0) {
            ct_error(CT_ERR_RUNTIME, "as_strided: Negative strides are not "
                     "supported at the moment, got strides: [%lld...]",
                     (long long)strides[i]);
            return NULL;
        }
    }
    int64_t n = ct_check_sizes(ndim, sizes);
    if (n < 0) {
        return NULL;
    }
    if (n > 0) {
        int64_t last = offset;
        for (int i = 0; i < ndim; i++) {
            last += (sizes[i] - 1) * strides[i];
        }
        size_t need = (size_t)(last + 1) * ct_dtype_itemsize(t->dtype);
        if (need > t->storage->nbytes) {
            char b[256], c[256];
            ct_error(CT_ERR_RUNTIME, "setStorage: sizes %s, strides %s, storage "
                     "offset %lld, and itemsize %zu requiring a storage size of "
                     "%zu are out of bounds for storage of size %zu",
                     ct_format_sizes(ndim, sizes, b, sizeof b),
                     ct_format_sizes(ndim, strides, c, sizeof c), (long long)offset,
                     ct_dtype_itemsize(t->dtype), need, t->storage->nbytes);
            return NULL;
        }
    }
    return ct_tensor_view_of(t, offset, ndim, sizes, strides);
}

/* Resolve one -1 in sizes against numel (torch's infer_size). */
static int
infer_size(int ndim, const int64_t *sizes, int64_t numel, int64_t *out)
{
    int infer = -1;
    int64_t prod = 1;
    char b[256];

    for (int i = 0; i < ndim; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0) {
                return ct_error(CT_ERR_RUNTIME, "only one dimension can be inferred");
            }
            infer = i;
        }
        else if (sizes[i] >= 0) {
            prod *= sizes[i];
        }
        else {
            return ct_error(CT_ERR_RUNTIME, "invalid shape dimension %lld",
                            (long long)sizes[i]);
        }
        out[i] = sizes[i];
    }
    if (numel == prod || (infer >= 0 && prod > 0 && numel % prod == 0)) {
        if (infer >= 0) {
            if (prod == 0) {
                return ct_error(CT_ERR_RUNTIME, "cannot reshape tensor of 0 "
                                "elements into shape %s because the unspecified "
                                "dimension size -1 can be any value and is "
                                "ambiguous", ct_format_sizes(ndim, sizes, b, sizeof b));
            }
            out[infer] = numel / prod;
        }
        return 0;
    }
    return ct_error(CT_ERR_RUNTIME, "shape '%s' is invalid for input of size %lld",
                    ct_format_sizes(ndim, sizes, b, sizeof b), (long long)numel);
}

/* Strides that let a tensor of (old sizes, old strides) be viewed with new
 * sizes, chunk by chunk of contiguous dims (torch's computeStride); false
 * when no such strides exist. */
static bool
view_strides(const ct_tensor *t, int ndim, const int64_t *sizes, int64_t *strides)
{
    int on = t->ndim;
    const int64_t *os = t->sizes, *ost = t->strides;
    int64_t one = 1;

    if (t->numel == 0) {
        if (on == ndim && memcmp(os, sizes, sizeof(int64_t) * (size_t)ndim) == 0) {
            memcpy(strides, ost, sizeof(int64_t) * (size_t)ndim);
        }
        else {
            ct_contiguous_strides(ndim, sizes, strides);
        }
        return true;
    }
    if (on == 0) {                      /* a 0-dim tensor acts as [1] */
        on = 1;
        os = &one;
        ost = &one;
    }
    int view_d = ndim - 1;
    int64_t chunk_base = ost[on - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = on - 1; d >= 0; d--) {
        tensor_numel *= os[d];
        if (d == 0 || (os[d - 1] != 1 && ost[d - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
                strides[view_d] = view_numel * chunk_base;
                view_numel *= sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) {
                return false;
            }
            if (d > 0) {
                chunk_base = ost[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* Shape (one -1 resolved) and view strides for reshaping t; returns 1
 * when a view can express it, 0 when only a copy can, -1 on error. */
static int
plan_reshape(const ct_tensor *t, int ndim, const int64_t *sizes, int64_t *shape,
             int64_t *strides)
{
    if (ndim > CT_MAX_DIMS) {
        return ct_error(CT_ERR_RUNTIME, "too many dimensions");
    }
    if (infer_size(ndim, sizes, t->numel, shape) < 0) {
        return -1;
    }
    return view_strides(t, ndim, shape, strides) ? 1 : 0;
}

ct_tensor *
ct_view(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int rc = plan_reshape(t, ndim, sizes, shape, strides);

    if (rc == 0) {
        ct_error(CT_ERR_RUNTIME, "view size is not compatible with input tensor's "
                 "size and stride (at least one dimension spans across two "
                 "contiguous subspaces). Use .reshape(...) instead.");
    }
    if (rc <= 0) {
        return NULL;
    }
    return ct_tensor_view_of(t, t->offset, ndim, shape, strides);
}

ct_tensor *
ct_reshape(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int rc = plan_reshape(t, ndim, sizes, shape, strides);

    if (rc < 0) {
        return NULL;
    }
    if (rc == 1) {
        return ct_tensor_view_of(t, t->offset, ndim, shape, strides);
    }
    ct_tensor *c = ct_contiguous(t);
    if (c == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_view(c, ndim, shape);
    ct_tensor_decref(c);
    return r;
}

ct_tensor *
ct_narrow(const ct_tensor *t, int64_t dim, int64_t start, int64_t length)
{
    if (t->ndim == 0) {
        ct_error(CT_ERR_RUNTIME, "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return NULL;
    }
    int64_t size = t->sizes[d];
    if (start < -size || start > size) {
        ct_error(CT_ERR_INDEX, "Dimension out of range (expected to be in range of "
                 "[%lld, %lld], but got %lld)", (long long)-size,
                 (long long)(size - 1), (long long)start);
        return NULL;
    }
    if (start < 0) {
        start += size;
    }
    if (length < 0 || start > size - length) {
        ct_error(CT_ERR_RUNTIME, "start (%lld) + length (%lld) exceeds dimension "
                 "size (%lld).", (long long)start, (long long)length, (long long)size);
        return NULL;
    }
    return ct_slice(t, d, start, start + length, 1);
}

ct_tensor *
ct_slice(const ct_tensor *t, int64_t dim, int64_t start, int64_t stop, int64_t step)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int d = ct_wrap_dim(dim, t->ndim);

    if (d < 0) {
        return NULL;
    }
    if (step <= 0) {
        ct_error(CT_ERR_VALUE, "step must be greater than zero");
        return NULL;
    }
    int64_t size = t->sizes[d];
    /* Python's clamping of slice bounds */
    if (start < 0) {
        start = start + size < 0 ? 0 : start + size;
    }
    if (stop < 0) {
        stop = stop + size < 0 ? 0 : stop + size;
    }
    if (start > size) {
        start = size;
    }
    if (stop > size) {
        stop = size;
    }
    if (stop < start) {
        stop = start;
    }
    memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(strides, t->strides, sizeof(int64_t) * (size_t)t->ndim);
    sizes[d] = (stop - start + step - 1) / step;
    strides[d] = t->strides[d] * step;
    return ct_tensor_view_of(t, t->offset + start * t->strides[d], t->ndim, sizes,
                             strides);
}

ct_tensor *
ct_select(const ct_tensor *t, int64_t dim, int64_t index)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    char b[256];

    if (t->ndim == 0) {
        ct_error(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return NULL;
    }
    int64_t size = t->sizes[d];
    if (index < -size || index >= size) {
        ct_error(CT_ERR_INDEX, "select(): index %lld out of range for tensor of "
                 "size %s at dimension %d", (long long)index,
                 ct_format_sizes(t->ndim, t->sizes, b, sizeof b), d);
        return NULL;
    }
    if (index < 0) {
        index += size;
    }
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i != d) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    }
    return ct_tensor_view_of(t, t->offset + index * t->strides[d], n, sizes, strides);
}

ct_tensor *
ct_expand(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    int64_t out[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    char b1[256], b2[256];

    if (ndim < t->ndim) {
        ct_error(CT_ERR_RUNTIME, "expand(torch.%sTensor{%s}, size=%s): the number "
                 "of sizes provided (%d) must be greater or equal to the number "
                 "of dimensions in the tensor (%d)", ct_dtype_table[t->dtype].legacy,
                 ct_format_sizes(t->ndim, t->sizes, b1, sizeof b1),
                 ct_format_sizes(ndim, sizes, b2, sizeof b2), ndim, t->ndim);
        return NULL;
    }
    for (int i = ndim - 1; i >= 0; i--) {
        int ti = i - (ndim - t->ndim);
        int64_t want = sizes[i];
        if (ti < 0) {
            if (want < 0) {
                ct_error(CT_ERR_RUNTIME, "The expanded size of the tensor (%lld) "
                         "isn't allowed in a leading, non-existing dimension %d",
                         (long long)want, i);
                return NULL;
            }
            /* a new size-1 dim gets the stride a contiguous layout would */
            out[i] = want;
            strides[i] = want == 1 ? (i + 1 < ndim ? out[i + 1] * strides[i + 1] : 1) : 0;
            continue;
        }
        int64_t have = t->sizes[ti];
        if (want == -1) {
            want = have;
        }
        if (have != want) {
            if (have != 1) {
                ct_error(CT_ERR_RUNTIME, "The expanded size of the tensor (%lld) "
                         "must match the existing size (%lld) at non-singleton "
                         "dimension %d.  Target sizes: %s.  Tensor sizes: %s",
                         (long long)want, (long long)have, i,
                         ct_format_sizes(ndim, sizes, b1, sizeof b1),
                         ct_format_sizes(t->ndim, t->sizes, b2, sizeof b2));
                return NULL;
            }
            out[i] = want;
            strides[i] = 0;
        }
        else {
            out[i] = have;
            strides[i] = t->strides[ti];
        }
    }
    return ct_tensor_view_of(t, t->offset, ndim, out, strides);
}

ct_tensor *
ct_permute(const ct_tensor *t, int ndim, const int64_t *dims)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    bool seen[CT_MAX_DIMS] = {false};

    if (ndim != t->ndim) {
        ct_error(CT_ERR_RUNTIME, "permute(sparse_coo): number of dimensions in the "
                 "tensor input does not match the length of the desired ordering "
                 "of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d",
                 t->ndim, ndim);
        return NULL;
    }
    for (int i = 0; i < ndim; i++) {
        int d = ct_wrap_dim(dims[i], t->ndim);
        if (d < 0) {
            return NULL;
        }
        if (seen[d]) {
            ct_error(CT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
            return NULL;
        }
        seen[d] = true;
        sizes[i] = t->sizes[d];
        strides[i] = t->strides[d];
    }
    return ct_tensor_view_of(t, t->offset, ndim, sizes, strides);
}

ct_tensor *
ct_transpose(const ct_tensor *t, int64_t d0, int64_t d1)
{
    int64_t dims[CT_MAX_DIMS];
    int a = ct_wrap_dim(d0, t->ndim), b;

    if (a < 0 || (b = ct_wrap_dim(d1, t->ndim)) < 0) {
        return NULL;
    }
    if (t->ndim == 0) {
        return ct_tensor_view_of(t, t->offset, 0, NULL, NULL);
    }
    for (int i = 0; i < t->ndim; i++) {
        dims[i] = i;
    }
    dims[a] = b;
    dims[b] = a;
    return ct_permute(t, t->ndim, dims);
}

ct_tensor *
ct_unsqueeze(const ct_tensor *t, int64_t dim)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int d = ct_wrap_dim(dim, t->ndim + 1);

    if (d < 0) {
        return NULL;
    }
    for (int i = 0, j = 0; i <= t->ndim; i++) {
        if (i == d) {
            sizes[i] = 1;
            strides[i] = d < t->ndim ? t->sizes[d] * t->strides[d] : 1;
        }
        else {
            sizes[i] = t->sizes[j];
            strides[i] = t->strides[j];
            j++;
        }
    }
    return ct_tensor_view_of(t, t->offset, t->ndim + 1, sizes, strides);
}

ct_tensor *
ct_squeeze(const ct_tensor *t, const int64_t *dim)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int only = -1;

    if (dim != NULL && (only = ct_wrap_dim(*dim, t->ndim)) < 0) {
        return NULL;
    }
    int n = 0;
    for (int i = 0; i < t->ndim; i++) {
        bool drop = t->sizes[i] == 1 && (only < 0 || only == i);
        if (!drop) {
            sizes[n] = t->sizes[i];
            strides[n++] = t->strides[i];
        }
    }
    return ct_tensor_view_of(t, t->offset, n, sizes, strides);
}
