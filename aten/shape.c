/* aten/shape.c -- the view half of the shape family (ops_shape.h):
 * unflatten, broadcast_to, movedim, diagonal, and the splitting ops that
 * return lists of views (unbind, chunk, split, tensor_split,
 * broadcast_tensors).
 *
 * Every tensor made here is a view: it shares the input's storage and
 * records its base through ct_tensor_view_of or the views of aten/view.c.
 * Lists are built by list_push, which owns what it is given; on any error
 * the list is cleared so that a caller never sees half a result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctorch/ctorch.h>

void
ct_tensor_list_clear(ct_tensor_list *l)
{
    for (int64_t i = 0; i < l->n; i++) {
        ct_tensor_decref(l->items[i]);
    }
    free(l->items);
    l->n = 0;
    l->items = NULL;
}

/* Start an empty list with room for cap tensors; -1 on allocation failure. */
static int
list_init(ct_tensor_list *l, int64_t cap)
{
    l->n = 0;
    l->items = malloc(sizeof(ct_tensor *) * (size_t)(cap > 0 ? cap : 1));
    if (l->items == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    return 0;
}

/* Append t (a new reference, which the list takes over; NULL means the
 * call that made it failed).  Returns 0, or -1 with the list cleared. */
static int
list_push(ct_tensor_list *l, ct_tensor *t)
{
    if (t == NULL) {
        ct_tensor_list_clear(l);
        return -1;
    }
    l->items[l->n++] = t;
    return 0;
}

/* The dim along which a splitting op works; `what` names the op for
 * torch's "expects at least a 1-dimensional tensor" message. */
static int
split_dim(const ct_tensor *t, int64_t dim, const char *what)
{
    if (t->ndim == 0) {
        return ct_error(CT_ERR_RUNTIME, "%s expects at least a 1-dimensional tensor",
                        what);
    }
    return ct_wrap_dim(dim, t->ndim);
}

ct_tensor *
ct_unflatten(const ct_tensor *t, int64_t dim, int n, const int64_t *sizes)
{
    int64_t shape[CT_MAX_DIMS];
    char b[256];
    int d = ct_wrap_dim(dim, t->ndim);

    if (d < 0) {
        return NULL;
    }
    if (n == 0) {
        ct_error(CT_ERR_RUNTIME, "unflatten: sizes must be non-empty");
        return NULL;
    }
    if (t->ndim - 1 + n > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "too many dimensions");
        return NULL;
    }
    int infer = -1;
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        if (sizes[i] == -1) {
            if (infer >= 0) {
                ct_error(CT_ERR_RUNTIME, "unflatten got an unexpected error:\n"
                         "only one dimension can be inferred");
                return NULL;
            }
            infer = i;
        }
        else {
            prod *= sizes[i];
        }
    }
    int64_t size = t->ndim > 0 ? t->sizes[d] : 1;
    bool ok = infer >= 0 ? (prod != 0 && size % prod == 0) : prod == size;
    if (!ok) {
        ct_error(CT_ERR_RUNTIME, "unflatten: Provided sizes %s don't multiply up to "
                 "the size of dim %d (%lld) in the input tensor",
                 ct_format_sizes(n, sizes, b, sizeof b), d, (long long)size);
        return NULL;
    }
    int k = 0;
    for (int i = 0; i < d; i++) {
        shape[k++] = t->sizes[i];
    }
    for (int i = 0; i < n; i++) {
        shape[k++] = i == infer ? size / prod : sizes[i];
    }
    for (int i = d + 1; i < t->ndim; i++) {
        shape[k++] = t->sizes[i];
    }
    return ct_view(t, k, shape);
}

ct_tensor *
ct_broadcast_to(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    return ct_expand(t, ndim, sizes);
}

/* Wrap each of dims[0..n-1] into list; -1 with torch's movedim message
 * when one repeats.  `which` names the argument. */
static int
movedim_dims(const int64_t *dims, int n, int ndim, const char *which, int *out)
{
    bool seen[CT_MAX_DIMS] = {false};
    char b[256];

    for (int i = 0; i < n; i++) {
        int d = ct_wrap_dim(dims[i], ndim);
        if (d < 0) {
            return -1;
        }
        if (seen[d]) {
            return ct_error(CT_ERR_RUNTIME, "movedim: repeated dim in `%s` (%s)", which,
                            ct_format_sizes(n, dims, b, sizeof b));
        }
        seen[d] = true;
        out[i] = d;
    }
    return 0;
}

ct_tensor *
ct_movedim(const ct_tensor *t, int nsrc, const int64_t *src, int ndst,
           const int64_t *dst)
{
    int s[CT_MAX_DIMS], d[CT_MAX_DIMS];
    int64_t perm[CT_MAX_DIMS];
    bool used_src[CT_MAX_DIMS] = {false}, used_dst[CT_MAX_DIMS] = {false};
    char b1[256], b2[256];
    int n = nsrc;

    if (nsrc != ndst) {
        ct_error(CT_ERR_RUNTIME, "movedim: Invalid source or destination dims: source "
                 "(%s dims) should contain the same number of dims as destination "
                 "(%s dims)", ct_format_sizes(nsrc, src, b1, sizeof b1),
                 ct_format_sizes(ndst, dst, b2, sizeof b2));
        return NULL;
    }
    if (n > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "too many dimensions");
        return NULL;
    }
    if (movedim_dims(src, n, t->ndim, "source", s) < 0 ||
        movedim_dims(dst, n, t->ndim, "destination", d) < 0) {
        return NULL;
    }
    if (t->ndim == 0) {
        return ct_tensor_view_of(t, t->offset, 0, NULL, NULL);
    }
    for (int i = 0; i < n; i++) {
        perm[d[i]] = s[i];
        used_src[s[i]] = true;
        used_dst[d[i]] = true;
    }
    /* the remaining source dims fill the remaining places in order */
    int next = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (used_dst[i]) {
            continue;
        }
        while (used_src[next]) {
            next++;
        }
        perm[i] = next++;
    }
    return ct_permute(t, t->ndim, perm);
}

ct_tensor *
ct_diagonal(const ct_tensor *t, int64_t offset, int64_t dim1, int64_t dim2)
{
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int d1 = ct_wrap_dim(dim1, t->ndim), d2;

    if (d1 < 0 || (d2 = ct_wrap_dim(dim2, t->ndim)) < 0) {
        return NULL;
    }
    if (d1 == d2) {
        ct_error(CT_ERR_RUNTIME, "diagonal dimensions cannot be identical %lld, %lld",
                 (long long)dim1, (long long)dim2);
        return NULL;
    }
    if (t->ndim < 2) {
        ct_error(CT_ERR_RUNTIME, "diagonal expects at least 2 dimensions");
        return NULL;
    }
    int64_t off = t->offset, len, n1 = t->sizes[d1], n2 = t->sizes[d2];
    if (offset >= 0) {
        len = n1 < n2 - offset ? n1 : n2 - offset;
    }
    else {
        len = n1 + offset < n2 ? n1 + offset : n2;
    }
    if (len <= 0) {
        len = 0;
    }
    else if (offset >= 0) {
        off += offset * t->strides[d2];
    }
    else {
        off -= offset * t->strides[d1];
    }
    int k = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i != d1 && i != d2) {
            sizes[k] = t->sizes[i];
            strides[k++] = t->strides[i];
        }
    }
    sizes[k] = len;
    strides[k++] = t->strides[d1] + t->strides[d2];
    return ct_tensor_view_of(t, off, k, sizes, strides);
}

int
ct_unbind(const ct_tensor *t, int64_t dim, ct_tensor_list *out)
{
    out->n = 0;
    out->items = NULL;
    if (t->ndim == 0) {
        return ct_error(CT_ERR_INDEX, "Dimension specified as %lld but tensor has no "
                        "dimensions", (long long)dim);
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0 || list_init(out, t->sizes[d]) < 0) {
        return -1;
    }
    for (int64_t i = 0; i < t->sizes[d]; i++) {
        if (list_push(out, ct_select(t, d, i)) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Pieces of `size` elements along d (the last one shorter); a dim of size
 * 0 gives one empty piece. */
static int
split_pieces(const ct_tensor *t, int d, int64_t size, ct_tensor_list *out)
{
    int64_t len = t->sizes[d];
    int64_t n = size == 0 ? 1 : (len + size - 1) / size;

    if (n == 0) {
        n = 1;
    }
    if (list_init(out, n) < 0) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t start = i * size, l = len - start < size ? len - start : size;
        if (list_push(out, ct_slice(t, d, start, start + l, 1)) < 0) {
            return -1;
        }
    }
    return 0;
}

int
ct_split(const ct_tensor *t, int64_t split_size, int64_t dim, ct_tensor_list *out)
{
    out->n = 0;
    out->items = NULL;
    int d = split_dim(t, dim, "split");
    if (d < 0) {
        return -1;
    }
    if (split_size < 0) {
        return ct_error(CT_ERR_RUNTIME, "split expects split_size be non-negative, but "
                        "got split_size=%lld", (long long)split_size);
    }
    if (split_size == 0 && t->sizes[d] != 0) {
        return ct_error(CT_ERR_RUNTIME, "split_size can only be 0 if dimension size is "
                        "0, but got dimension size of %lld", (long long)t->sizes[d]);
    }
    return split_pieces(t, d, split_size, out);
}

int
ct_chunk(const ct_tensor *t, int64_t chunks, int64_t dim, ct_tensor_list *out)
{
    out->n = 0;
    out->items = NULL;
    if (t->ndim == 0) {
        return ct_error(CT_ERR_RUNTIME, "chunk expects at least a 1-dimensional "
                        "tensor");
    }
    if (chunks <= 0) {
        return ct_error(CT_ERR_RUNTIME, "chunk expects `chunks` to be greater than 0, "
                        "got: %lld", (long long)chunks);
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    int64_t len = t->sizes[d];
    int64_t size = (len + chunks - 1) / chunks;
    if (size == 0 && len == 0) {
        /* torch: an empty dim gives `chunks` empty pieces */
        if (list_init(out, chunks) < 0) {
            return -1;
        }
        for (int64_t i = 0; i < chunks; i++) {
            if (list_push(out, ct_slice(t, d, 0, 0, 1)) < 0) {
                return -1;
            }
        }
        return 0;
    }
    return split_pieces(t, d, size, out);
}

int
ct_split_with_sizes(const ct_tensor *t, int n, const int64_t *sizes, int64_t dim,
                    ct_tensor_list *out)
{
    char b[256];

    out->n = 0;
    out->items = NULL;
    int d = split_dim(t, dim, "split");
    if (d < 0) {
        return -1;
    }
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            return ct_error(CT_ERR_RUNTIME, "split_with_sizes expects split_sizes have "
                            "only non-negative entries, but got split_sizes=%s",
                            ct_format_sizes(n, sizes, b, sizeof b));
        }
        sum += sizes[i];
    }
    if (sum != t->sizes[d]) {
        return ct_error(CT_ERR_RUNTIME, "split_with_sizes expects split_sizes to sum "
                        "exactly to %lld (input tensor's size at dimension %d), but "
                        "got split_sizes=%s", (long long)t->sizes[d], d,
                        ct_format_sizes(n, sizes, b, sizeof b));
    }
    if (list_init(out, n) < 0) {
        return -1;
    }
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        if (list_push(out, ct_slice(t, d, start, start + sizes[i], 1)) < 0) {
            return -1;
        }
        start += sizes[i];
    }
    return 0;
}

static int
tensor_split_dim(const ct_tensor *t, int64_t dim)
{
    if (t->ndim == 0) {
        return ct_error(CT_ERR_RUNTIME, "tensor_split expected at least a "
                        "1-dimensional tensor, but got a tensor with 0 dims");
    }
    return ct_wrap_dim(dim, t->ndim);
}

int
ct_tensor_split(const ct_tensor *t, int64_t sections, int64_t dim, ct_tensor_list *out)
{
    out->n = 0;
    out->items = NULL;
    int d = tensor_split_dim(t, dim);
    if (d < 0) {
        return -1;
    }
    if (sections <= 0) {
        return ct_error(CT_ERR_RUNTIME, "number of sections must be larger than 0, "
                        "got %lld", (long long)sections);
    }
    if (list_init(out, sections) < 0) {
        return -1;
    }
    int64_t len = t->sizes[d], base = len / sections, extra = len % sections;
    int64_t start = 0;
    for (int64_t i = 0; i < sections; i++) {
        int64_t l = base + (i < extra ? 1 : 0);
        if (list_push(out, ct_slice(t, d, start, start + l, 1)) < 0) {
            return -1;
        }
        start += l;
    }
    return 0;
}

int
ct_tensor_split_indices(const ct_tensor *t, int n, const int64_t *indices, int64_t dim,
                        ct_tensor_list *out)
{
    out->n = 0;
    out->items = NULL;
    int d = tensor_split_dim(t, dim);
    if (d < 0 || list_init(out, (int64_t)n + 1) < 0) {
        return -1;
    }
    /* ct_slice clamps like a Python slice, which is what torch does */
    int64_t start = 0;
    for (int i = 0; i <= n; i++) {
        int64_t stop = i < n ? indices[i] : t->sizes[d];
        if (list_push(out, ct_slice(t, d, start, stop, 1)) < 0) {
            return -1;
        }
        start = stop;
    }
    return 0;
}

int
ct_broadcast_tensors(int64_t n, const ct_tensor *const *ts, ct_tensor_list *out)
{
    int64_t shape[CT_MAX_DIMS];
    int ndim = 0;

    out->n = 0;
    out->items = NULL;
    for (int64_t i = 0; i < n; i++) {
        if (ct_broadcast_shapes(ndim, shape, ts[i]->ndim, ts[i]->sizes, &ndim,
                                shape) < 0) {
            return -1;
        }
    }
    if (list_init(out, n) < 0) {
        return -1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (list_push(out, ct_expand(ts[i], ndim, shape)) < 0) {
            return -1;
        }
    }
    return 0;
}

int
ct_axis_split(const ct_tensor *t, ct_split_axis axis, int64_t sections, int n,
              const int64_t *indices, ct_tensor_list *out)
{
    static const struct {
        const char *name;
        int min_dims;
        int dim;
    } axes[] = {
        [CT_SPLIT_H] = {"hsplit", 1, 1},
        [CT_SPLIT_V] = {"vsplit", 2, 0},
        [CT_SPLIT_D] = {"dsplit", 3, 2},
    };

    out->n = 0;
    out->items = NULL;
    if (t->ndim < axes[axis].min_dims) {
        return ct_error(CT_ERR_RUNTIME, "torch.%s requires a tensor with at least %d "
                        "dimension, but got a tensor with %d dimensions!",
                        axes[axis].name, axes[axis].min_dims, t->ndim);
    }
    int d = axis == CT_SPLIT_H && t->ndim == 1 ? 0 : axes[axis].dim;
    if (indices != NULL) {
        return ct_tensor_split_indices(t, n, indices, d, out);
    }
    if (sections == 0 || t->sizes[d] % sections != 0) {
        return ct_error(CT_ERR_RUNTIME, "torch.%s attempted to split along dimension "
                        "%d, but the size of the dimension %lld is not divisible by "
                        "the split_size %lld!", axes[axis].name, d, (long long)t->sizes[d],
                        (long long)sections);
    }
    return ct_tensor_split(t, sections, d, out);
}

ct_tensor *
ct_atleast(const ct_tensor *t, int k)
{
    int64_t s[3] = {1, 1, 1};

    if (t->ndim >= k) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    if (t->ndim == 0) {
        return ct_reshape(t, k, s);
    }
    if (t->ndim == 1) {
        /* (n) -> (1, n) or (1, n, 1) */
        s[1] = t->sizes[0];
        return ct_reshape(t, k, s);
    }
    return ct_unsqueeze(t, 2);              /* (m, n) -> (m, n, 1) */
}
