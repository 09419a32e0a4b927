/* aten/cpu/shape_copy.c -- the copying half of the shape family
 * (ops_shape.h): cat, stack and the numpy stacks, repeat, tile,
 * repeat_interleave, flip, roll, rot90.
 *
 * Note [Shape copies are strided copies]
 * None of these ops has a typed loop of its own.  Each describes where
 * its output's elements come from as a strided view of the input -- with
 * zero strides for repetition (repeat, repeat_interleave), negative strides
 * for reversal (flip), and narrowed blocks for joining and rotation (cat,
 * roll) -- over a matching view of the output, and hands the pair to
 * ct_copy_, whose iterator orders and coalesces dims, converts dtypes
 * (cat's type promotion) and splits the work across threads.  Views made
 * only for this (negative strides included) never leave this file.
 */
#include "aten/device.h"
#include <stdlib.h>
#include <string.h>

#include "aten/iter.h"

/* --- helpers ------------------------------------------------------------ */
/* The same view of t in other geometry; a new reference.  Used for the
 * internal views of Note [Shape copies are strided copies], which may
 * have zero or negative strides. */
static ct_tensor *
geom_view(const ct_tensor *t, int64_t offset, int ndim, const int64_t *sizes,
          const int64_t *strides)
{
    return ct_tensor_view_of(t, offset, ndim, sizes, strides);
}

/* dst[...] = src for two views made here; consumes both references
 * (either may be NULL after a failed view, then the error is kept). */
static int
copy_views(ct_tensor *dst, ct_tensor *src)
{
    int rc = dst != NULL && src != NULL ? ct_copy_(dst, src) : -1;
    ct_tensor_decref(dst);
    ct_tensor_decref(src);
    return rc;
}

/* A fresh tensor of t's shape and dtype (and quantization parameters):
 * t's strides when t is dense (preserve_format), else contiguous-like in
 * t's memory order (PyTorch's empty_like). */
static ct_tensor *
empty_like_layout(const ct_tensor *t)
{
    ct_tensor *r;
    if (ct_tensor_is_non_overlapping_and_dense(t)) {
        r = ct_empty_strided(t->ndim, t->sizes, t->strides, t->dtype,
                             ct_tensor_device(t));
    }
    else {
        const ct_tensor *ins[1] = {t};
        r = ct_iter_new_output(1, ins, t->ndim, t->sizes, t->dtype);
    }
    if (r != NULL) {
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    return r;
}

/* A fresh contiguous tensor of the given shape in t's dtype. */
static ct_tensor *
empty_contiguous(const ct_tensor *t, int ndim, const int64_t *sizes)
{
    ct_tensor *r = ct_empty(ndim, sizes, t->dtype, ct_tensor_device(t));
    if (r != NULL) {
        r->q_scale = t->q_scale;
        r->q_zero_point = t->q_zero_point;
    }
    return r;
}

/* The result of an op that reshaped a fresh tensor of its own with a view
 * (stack, roll, rot90): the same geometry without a recorded base, since
 * PyTorch's results of these ops are not views.  Takes v (may be NULL). */
static ct_tensor *
unbased(ct_tensor *v)
{
    if (v == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_tensor_new(v->storage, v->offset, v->ndim, v->sizes, v->strides,
                                 v->dtype);
    if (r != NULL) {
        r->q_scale = v->q_scale;
        r->q_zero_point = v->q_zero_point;
    }
    ct_tensor_decref(v);
    return r;
}

/* r filled with src (converted), or NULL (r released) on error; takes r. */
static ct_tensor *
filled(ct_tensor *r, const ct_tensor *src)
{
    if (r != NULL && ct_copy_(r, src) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* --- cat and the stacks -------------------------------------------------- */
/* PyTorch's legacy rule: a 1-D tensor with no elements joins anything. */
static bool
cat_skipped(const ct_tensor *t)
{
    return t->ndim == 1 && t->sizes[0] == 0;
}

/* PyTorch's is_channels_last_strides_{2d,3d} (suggest_memory_format): dims
 * visited C, W, H, (D), N must have non-decreasing strides, ambiguous
 * cases falling back to contiguous. */
static bool
strides_like_channels_last(const ct_tensor *t)
{
    static const int order4[4] = {1, 3, 2, 0}, order5[5] = {1, 4, 3, 2, 0};
    const int *order = t->ndim == 4 ? order4 : t->ndim == 5 ? order5 : NULL;

    if (order == NULL || t->strides[1] == 0) {
        return false;
    }
    int64_t min = 0;
    for (int i = 0; i < t->ndim; i++) {
        int d = order[i];
        if (t->sizes[d] == 0 || t->strides[d] < min) {
            return false;
        }
        if (d == 0 && min == t->strides[1]) {
            return false;
        }
        min = t->strides[d];
        if (t->sizes[d] > 1) {
            min *= t->sizes[d];
        }
    }
    return true;
}

/* cat's output layout (compute_output_memory_format): the first input's
 * channels-last layout when no later input disagrees, else contiguous.
 * Fills strides and returns true for channels-last. */
static bool
cat_channels_last(int64_t n, const ct_tensor *const *ts, int ndim,
                  const int64_t *shape, int64_t *strides)
{
    bool cl = strides_like_channels_last(ts[0]);
    for (int64_t i = 1; cl && i < n; i++) {
        cl = strides_like_channels_last(ts[i]) && ts[i]->ndim == ts[0]->ndim;
    }
    if (!cl || ndim != ts[0]->ndim) {
        return false;
    }
    /* C innermost, then W, H, (D), N */
    int64_t s = 1;
    strides[1] = s;
    s *= shape[1];
    for (int d = ndim - 1; d >= 2; d--) {
        strides[d] = s;
        s *= shape[d];
    }
    strides[0] = s;
    return true;
}

static bool
same_geometry(const ct_tensor *a, const ct_tensor *b)
{
    return a->offset == b->offset && a->ndim == b->ndim &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

/* cat's assert_no_overlap: out may share no memory with an input, fully or
 * partly, where both are dense enough to tell. */
static int
cat_check_overlap(const ct_tensor *out, const ct_tensor *in)
{
    if (out->storage != in->storage || out->numel == 0 || in->numel == 0 ||
        !ct_tensor_is_non_overlapping_and_dense(out) ||
        !ct_tensor_is_non_overlapping_and_dense(in)) {
        return 0;
    }
    if (out == in || same_geometry(out, in) || ct_iter_partial_overlap(out, in)) {
        return ct_error(CT_ERR_RUNTIME, "unsupported operation: some elements of the "
                        "input tensor and the written-to tensor refer to a single "
                        "memory location. Please clone() the tensor before "
                        "performing the operation.");
    }
    return 0;
}

/* The dtype of cat's result: the promotion of every input's (quantized
 * inputs only join their own dtype).  CT_DTYPE_COUNT with the error set. */
static ct_dtype
cat_dtype(int64_t n, const ct_tensor *const *ts)
{
    ct_dtype dt = ts[0]->dtype;
    for (int64_t i = 1; i < n; i++) {
        ct_dtype next = ts[i]->dtype == dt ? dt : ct_dtype_promote(dt, ts[i]->dtype);
        if (next == CT_DTYPE_COUNT) {
            ct_error(CT_ERR_RUNTIME, "torch.cat(): all input tensors must have the "
                     "same quantized dtype, got %s and %s", ct_dtype_table[dt].legacy,
                     ct_dtype_table[ts[i]->dtype].legacy);
            return CT_DTYPE_COUNT;
        }
        dt = next;
    }
    return dt;
}

/* The output shape of cat (and the wrapped dim); -1 with PyTorch's error. */
static int
cat_shape(int64_t n, const ct_tensor *const *ts, int64_t dim, int *ndim,
          int64_t *shape, int *dout)
{
    const ct_tensor *ref = NULL;

    for (int64_t i = 0; i < n; i++) {
        if (ts[i]->ndim == 0) {
            return ct_error(CT_ERR_RUNTIME, "zero-dimensional tensor (at position "
                            "%lld) cannot be concatenated", (long long)i);
        }
        if (ref == NULL && !cat_skipped(ts[i])) {
            ref = ts[i];
        }
    }
    if (ref == NULL) {
        *ndim = 1;
        shape[0] = 0;
        *dout = 0;
        return 0;
    }
    int d = ct_wrap_dim(dim, ref->ndim);
    if (d < 0) {
        return -1;
    }
    memcpy(shape, ref->sizes, sizeof(int64_t) * (size_t)ref->ndim);
    shape[d] = 0;
    for (int64_t i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (cat_skipped(t)) {
            continue;
        }
        if (t->ndim != ref->ndim) {
            return ct_error(CT_ERR_RUNTIME, "Tensors must have same number of "
                            "dimensions: got %d and %d", ref->ndim, t->ndim);
        }
        for (int k = 0; k < t->ndim; k++) {
            if (k != d && t->sizes[k] != ref->sizes[k]) {
                return ct_error(CT_ERR_RUNTIME, "Sizes of tensors must match except in "
                                "dimension %d. Expected size %lld but got size %lld "
                                "for tensor number %lld in the list.", d,
                                (long long)ref->sizes[k], (long long)t->sizes[k],
                                (long long)i);
            }
        }
        shape[d] += t->sizes[d];
    }
    *ndim = ref->ndim;
    *dout = d;
    return 0;
}

/* Note [Small cat inputs]: the per-input cost of a view and an iterator
 * run dominates for small tensors, so a contiguous input of r's dtype
 * below the iterator's grain size, joining a contiguous r, is copied as
 * `outer` byte blocks directly (a byte copy, like the iterator's own
 * same-dtype loop). */
static bool
cat_block_ok(const ct_tensor *r, const ct_tensor *t)
{
    return t->dtype == r->dtype && t->numel < CT_GRAIN_SIZE &&
           ct_tensor_is_contiguous(t) && ct_tensor_is_contiguous(r);
}

static void
cat_block_copy(ct_tensor *r, const ct_tensor *t, int d, int64_t pos)
{
    size_t item = ct_dtype_itemsize(r->dtype);
    int64_t outer = 1, inner = 1;

    for (int k = 0; k < d; k++) {
        outer *= r->sizes[k];
    }
    for (int k = d + 1; k < r->ndim; k++) {
        inner *= r->sizes[k];
    }
    size_t chunk = (size_t)(t->sizes[d] * inner) * item;
    size_t row = (size_t)(r->sizes[d] * inner) * item;
    char *dst = ct_tensor_data(r) + (size_t)(pos * inner) * item;
    const char *src = ct_tensor_data(t);
    for (int64_t o = 0; o < outer; o++) {
        memcpy(dst + (size_t)o * row, src + (size_t)o * chunk, chunk);
    }
}

ct_tensor *
ct_cat(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    int64_t shape[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    int ndim = 0, d = 0;
    ct_tensor *r;

    if (n == 0) {
        ct_error(CT_ERR_RUNTIME, "torch.cat(): expected a non-empty list of Tensors");
        return NULL;
    }
    if (cat_shape(n, ts, dim, &ndim, shape, &d) < 0) {
        return NULL;
    }
    ct_dtype dt = cat_dtype(n, ts);
    if (dt == CT_DTYPE_COUNT) {
        return NULL;
    }
    /* on the first input's device, every other one there too */
    ct_device dev = ct_tensor_device(ts[0]);
    for (int64_t i = 1; i <= n; i++) {
        const ct_tensor *t = i < n ? ts[i] : out;
        if (t != NULL && ct__check_device(dev, t) < 0) {
            return NULL;
        }
    }
    bool cl = cat_channels_last(n, ts, ndim, shape, strides);
    if (out == NULL) {
        r = ct_empty_strided(ndim, shape, cl ? strides : NULL, dt, dev);
        if (r == NULL) {
            return NULL;
        }
        r->q_scale = ts[0]->q_scale;
        r->q_zero_point = ts[0]->q_zero_point;
    }
    else {
        if (!ct_dtype_can_cast(dt, out->dtype)) {
            ct_error(CT_ERR_RUNTIME, "torch.cat(): input types can't be cast to the "
                     "desired output type %s", ct_dtype_table[out->dtype].legacy);
            return NULL;
        }
        bool resize = out->ndim != ndim ||
                      memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0;
        if (ct_iter_check_out(out, CT_OUT_GIVEN, ndim, shape, 0, NULL) < 0 ||
            (resize && cl && ct_tensor_set_geometry(out, ndim, shape, strides) < 0) ||
            ct_iter_check_overlap(out, NULL) < 0) {
            return NULL;
        }
        for (int64_t i = 0; i < n; i++) {
            if (cat_check_overlap(out, ts[i]) < 0) {
                return NULL;
            }
        }
        r = out;
        ct_tensor_incref(r);
    }
    int64_t pos = 0;
    for (int64_t i = 0; i < n; i++) {
        const ct_tensor *t = ts[i];
        if (cat_skipped(t)) {
            continue;
        }
        int64_t len = t->sizes[d];
        if (t->numel > 0 && !ct__is_device(t) && cat_block_ok(r, t)) {
            cat_block_copy(r, t, d, pos);
        }
        else if (t->numel > 0) {
            ct_tensor *part = ct_slice(r, d, pos, pos + len, 1);
            if (part == NULL || ct_copy_(part, t) < 0) {
                ct_tensor_decref(part);
                ct_tensor_decref(r);
                return NULL;
            }
            ct_tensor_decref(part);
        }
        pos += len;
    }
    return r;
}

/* Each of ts[0..n-1] passed through f into a new array of new references;
 * NULL (nothing left behind) on error. */
static ct_tensor **
map_tensors(int64_t n, const ct_tensor *const *ts,
            ct_tensor *(*f)(const ct_tensor *, int64_t), int64_t arg)
{
    ct_tensor **v = calloc((size_t)(n > 0 ? n : 1), sizeof(ct_tensor *));
    if (v == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        if ((v[i] = f(ts[i], arg)) == NULL) {
            for (int64_t j = 0; j < i; j++) {
                ct_tensor_decref(v[j]);
            }
            free(v);
            return NULL;
        }
    }
    return v;
}

static void
free_tensors(int64_t n, ct_tensor **v)
{
    for (int64_t i = 0; i < n; i++) {
        ct_tensor_decref(v[i]);
    }
    free(v);
}

static ct_tensor *
unsqueeze_at(const ct_tensor *t, int64_t dim)
{
    return ct_unsqueeze(t, dim);
}

/* t with at least k dims, the numpy way (atleast_1d/2d/3d); for k == 0,
 * column_stack's shape: 0-d and 1-d tensors as a column.  A new reference
 * (a view, or t itself). */
static ct_tensor *
at_least(const ct_tensor *t, int64_t k)
{
    if (k == 0 && t->ndim <= 1) {
        int64_t s[2] = {t->numel, 1};
        return ct_reshape(t, 2, s);
    }
    return ct_atleast(t, k == 0 ? 2 : (int)k);
}

ct_tensor *
ct_stack(int64_t n, const ct_tensor *const *ts, int64_t dim, ct_tensor *out)
{
    char b1[256], b2[256];

    if (n == 0) {
        ct_error(CT_ERR_RUNTIME, "stack expects a non-empty TensorList");
        return NULL;
    }
    int d = ct_wrap_dim(dim, ts[0]->ndim + 1);
    if (d < 0) {
        return NULL;
    }
    for (int64_t i = 1; i < n; i++) {
        if (ts[i]->ndim != ts[0]->ndim ||
            memcmp(ts[i]->sizes, ts[0]->sizes, sizeof(int64_t) * (size_t)ts[0]->ndim)) {
            ct_error(CT_ERR_RUNTIME, "stack expects each tensor to be equal size, but "
                     "got %s at entry 0 and %s at entry %lld",
                     ct_format_sizes(ts[0]->ndim, ts[0]->sizes, b1, sizeof b1),
                     ct_format_sizes(ts[i]->ndim, ts[i]->sizes, b2, sizeof b2),
                     (long long)i);
            return NULL;
        }
    }
    if (d < ts[0]->ndim && out == NULL) {
        /* PyTorch's fast path: cat along d (keeping cat's layout rules),
         * then split d in two with a view */
        int64_t shape[CT_MAX_DIMS];
        ct_tensor *c = ct_cat(n, ts, d, NULL);
        if (c == NULL) {
            return NULL;
        }
        for (int i = 0, j = 0; i <= ts[0]->ndim; i++) {
            shape[i] = i == d ? n : ts[0]->sizes[j++];
        }
        ct_tensor *r = unbased(ct_view(c, ts[0]->ndim + 1, shape));
        ct_tensor_decref(c);
        return r;
    }
    ct_tensor **v = map_tensors(n, ts, unsqueeze_at, d);
    if (v == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_cat(n, (const ct_tensor *const *)v, d, out);
    free_tensors(n, v);
    return r;
}

/* The numpy stacks: each input brought to at_least(k) dims, then joined
 * along dim (hstack: 0 for 1-D inputs, else 1). */
static ct_tensor *
stack_like(const char *name, int64_t k, int64_t dim, int64_t n,
           const ct_tensor *const *ts, ct_tensor *out)
{
    if (n == 0) {
        ct_error(CT_ERR_RUNTIME, "%s expects a non-empty TensorList", name);
        return NULL;
    }
    ct_tensor **v = map_tensors(n, ts, at_least, k);
    if (v == NULL) {
        return NULL;
    }
    if (dim < 0) {
        dim = v[0]->ndim == 1 ? 0 : 1;
    }
    ct_tensor *r = ct_cat(n, (const ct_tensor *const *)v, dim, out);
    free_tensors(n, v);
    return r;
}

ct_tensor *
ct_hstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like("hstack", 1, -1, n, ts, out);
}

ct_tensor *
ct_vstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like("vstack", 2, 0, n, ts, out);
}

ct_tensor *
ct_dstack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like("dstack", 3, 2, n, ts, out);
}

ct_tensor *
ct_column_stack(int64_t n, const ct_tensor *const *ts, ct_tensor *out)
{
    return stack_like("column_stack", 0, -1, n, ts, out);
}

/* --- repeat, tile, repeat_interleave -------------------------------------- */
ct_tensor *
ct_repeat(const ct_tensor *t, int n, const int64_t *repeats)
{
    int64_t target[CT_MAX_DIMS], vs[CT_MAX_DIMS], vo[CT_MAX_DIMS], vi[CT_MAX_DIMS];

    if (n < t->ndim) {
        ct_error(CT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be "
                 "smaller than number of dimensions of tensor");
        return NULL;
    }
    int lead = n - t->ndim;
    for (int i = 0; i < n; i++) {
        target[i] = (i < lead ? 1 : t->sizes[i - lead]) * repeats[i];
    }
    ct_tensor *r = empty_contiguous(t, n, target);
    if (r == NULL || r->numel == 0) {
        return r;
    }
    /* out viewed as (r0, s0, r1, s1, ...), the input as (0-stride, s0, ...) */
    int k = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = i < lead ? 1 : t->sizes[i - lead];
        int64_t st = i < lead ? 0 : t->strides[i - lead];
        if (k + 2 > CT_MAX_DIMS) {
            ct_tensor_decref(r);
            ct_error(CT_ERR_RUNTIME, "repeat: too many dimensions");
            return NULL;
        }
        if (repeats[i] != 1) {
            vs[k] = repeats[i];
            vo[k] = s * r->strides[i];
            vi[k++] = 0;
        }
        vs[k] = s;
        vo[k] = r->strides[i];
        vi[k++] = st;
    }
    if (copy_views(geom_view(r, r->offset, k, vs, vo),
                   geom_view(t, t->offset, k, vs, vi)) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ct_tile(const ct_tensor *t, int n, const int64_t *reps)
{
    int64_t padded[CT_MAX_DIMS];

    if (n >= t->ndim) {
        return ct_repeat(t, n, reps);
    }
    int lead = t->ndim - n;
    for (int i = 0; i < t->ndim; i++) {
        padded[i] = i < lead ? 1 : reps[i - lead];
    }
    return ct_repeat(t, t->ndim, padded);
}

/* The tensor repeat_interleave works on: t, or t flattened when no dim is
 * given; *d receives the dim.  A new reference. */
static ct_tensor *
interleave_input(const ct_tensor *t, const int64_t *dim, int *d)
{
    int64_t all = -1;
    if (dim == NULL || t->ndim == 0) {
        if (dim != NULL && ct_wrap_dim(*dim, 0) < 0) {
            return NULL;
        }
        *d = 0;
        return ct_reshape(t, 1, &all);
    }
    if ((*d = ct_wrap_dim(*dim, t->ndim)) < 0) {
        return NULL;
    }
    ct_tensor_incref((ct_tensor *)t);
    return (ct_tensor *)t;
}

/* Every index along d repeated `rep` times: one copy from a 0-stride view. */
static ct_tensor *
interleave_uniform(const ct_tensor *in, int d, int64_t rep, int64_t output_size)
{
    int64_t shape[CT_MAX_DIMS], vs[CT_MAX_DIMS], vo[CT_MAX_DIMS], vi[CT_MAX_DIMS];

    if (output_size >= 0 && output_size != in->sizes[d] * rep) {
        ct_error(CT_ERR_RUNTIME, "allocated size does not match required size");
        return NULL;
    }
    if (in->ndim + 1 > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "repeat_interleave: too many dimensions");
        return NULL;
    }
    memcpy(shape, in->sizes, sizeof(int64_t) * (size_t)in->ndim);
    shape[d] *= rep;
    ct_tensor *r = empty_contiguous(in, in->ndim, shape);
    if (r == NULL || r->numel == 0) {
        return r;
    }
    int k = 0;
    for (int i = 0; i < in->ndim; i++) {
        vs[k] = in->sizes[i];
        vo[k] = i == d ? rep * r->strides[i] : r->strides[i];
        vi[k++] = in->strides[i];
        if (i == d) {
            vs[k] = rep;
            vo[k] = r->strides[i];
            vi[k++] = 0;
        }
    }
    if (copy_views(geom_view(r, r->offset, k, vs, vo),
                   geom_view(in, in->offset, k, vs, vi)) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ct_repeat_interleave(const ct_tensor *t, int64_t repeats, const int64_t *dim,
                     int64_t output_size)
{
    int d;

    if (repeats < 0) {
        ct_error(CT_ERR_RUNTIME, "repeats can not be negative");
        return NULL;
    }
    ct_tensor *in = interleave_input(t, dim, &d);
    if (in == NULL) {
        return NULL;
    }
    ct_tensor *r = interleave_uniform(in, d, repeats, output_size);
    ct_tensor_decref(in);
    return r;
}

/* repeats as a contiguous int64 tensor after torch's checks (dtype, no
 * negative entry); a new reference. */
static ct_tensor *
repeats_values(const ct_tensor *repeats)
{
    if (repeats->dtype != CT_DTYPE_INT64 && repeats->dtype != CT_DTYPE_INT32) {
        ct_error(CT_ERR_RUNTIME, "\"repeat_interleave_cpu\" not implemented for '%s'",
                 ct_dtype_table[repeats->dtype].legacy);
        return NULL;
    }
    ct_tensor *c = ct_to_dtype(repeats, CT_DTYPE_INT64, false), *r;
    if (c == NULL) {
        return NULL;
    }
    r = ct_contiguous(c);
    ct_tensor_decref(c);
    if (r == NULL) {
        return NULL;
    }
    const int64_t *v = (const int64_t *)ct_tensor_data(r);
    for (int64_t i = 0; i < r->numel; i++) {
        if (v[i] < 0) {
            ct_tensor_decref(r);
            ct_error(CT_ERR_RUNTIME, "repeats can not be negative");
            return NULL;
        }
    }
    return r;
}

ct_tensor *
ct_repeat_interleave_tensor(const ct_tensor *t, const ct_tensor *repeats,
                            const int64_t *dim, int64_t output_size)
{
    int d;
    ct_tensor *in = NULL, *rep = NULL, *r = NULL;

    if (repeats->ndim > 1) {
        ct_error(CT_ERR_RUNTIME, "repeats must be 0-dim or 1-dim tensor");
        return NULL;
    }
    if ((in = interleave_input(t, dim, &d)) == NULL) {
        return NULL;
    }
    if (repeats->ndim == 1 && repeats->sizes[0] != 1 &&
        repeats->sizes[0] != in->sizes[d]) {
        ct_error(CT_ERR_RUNTIME, "repeats must have the same size as input along dim");
        goto done;
    }
    if ((rep = repeats_values(repeats)) == NULL) {
        goto done;
    }
    const int64_t *v = (const int64_t *)ct_tensor_data(rep);
    if (rep->numel == 1) {
        r = interleave_uniform(in, d, v[0], output_size);
        goto done;
    }
    int64_t total = 0, shape[CT_MAX_DIMS];
    for (int64_t i = 0; i < rep->numel; i++) {
        total += v[i];
    }
    if (output_size >= 0 && output_size != total) {
        ct_error(CT_ERR_RUNTIME, "allocated size does not match required size");
        goto done;
    }
    memcpy(shape, in->sizes, sizeof(int64_t) * (size_t)in->ndim);
    shape[d] = total;
    if ((r = empty_contiguous(in, in->ndim, shape)) == NULL) {
        goto done;
    }
    /* one broadcast copy per index: out[pos:pos+v[i]] = in[i:i+1] */
    for (int64_t i = 0, pos = 0; i < rep->numel && r->numel > 0; pos += v[i], i++) {
        if (v[i] == 0) {
            continue;
        }
        ct_tensor *dst = ct_slice(r, d, pos, pos + v[i], 1);
        if (copy_views(dst, ct_slice(in, d, i, i + 1, 1)) < 0) {
            ct_tensor_decref(r);
            r = NULL;
            goto done;
        }
    }
done:
    ct_tensor_decref(rep);
    ct_tensor_decref(in);
    return r;
}

ct_tensor *
ct_repeat_interleave_index(const ct_tensor *repeats, int64_t output_size)
{
    if (repeats->ndim != 1) {
        ct_error(CT_ERR_RUNTIME, "repeat_interleave only accept 1D vector as repeat");
        return NULL;
    }
    ct_tensor *rep = repeats_values(repeats);
    if (rep == NULL) {
        return NULL;
    }
    const int64_t *v = (const int64_t *)ct_tensor_data(rep);
    int64_t total = 0;
    for (int64_t i = 0; i < rep->numel; i++) {
        total += v[i];
    }
    ct_tensor *r = NULL, *idx = NULL;
    if (output_size >= 0 && output_size != total) {
        ct_error(CT_ERR_RUNTIME, "allocated size does not match required size");
        goto done;
    }
    if ((idx = ct_empty(1, &total, CT_DTYPE_INT64, ct_device_cpu())) == NULL) {
        goto done;
    }
    int64_t *o = (int64_t *)ct_tensor_data(idx);
    for (int64_t i = 0, pos = 0; i < rep->numel; i++) {
        for (int64_t j = 0; j < v[i]; j++) {
            o[pos++] = i;
        }
    }
    r = ct_to_dtype(idx, repeats->dtype, false);
done:
    ct_tensor_decref(idx);
    ct_tensor_decref(rep);
    return r;
}

/* --- flip, roll, rot90 ---------------------------------------------------- */
ct_tensor *
ct_flip(const ct_tensor *t, int n, const int64_t *dims)
{
    int64_t strides[CT_MAX_DIMS];
    bool flip[CT_MAX_DIMS] = {false};

    for (int i = 0; i < n; i++) {
        int d = ct_wrap_dim(dims[i], t->ndim);
        if (d < 0) {
            return NULL;
        }
        if (flip[d]) {
            ct_error(CT_ERR_RUNTIME, "dim %d appears multiple times in the list of "
                     "dims", d);
            return NULL;
        }
        flip[d] = true;
    }
    /* the input read backwards: negative strides from the last element */
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        strides[d] = t->strides[d];
        if (flip[d] && t->sizes[d] > 1) {
            off += (t->sizes[d] - 1) * t->strides[d];
            strides[d] = -t->strides[d];
        }
    }
    ct_tensor *r = empty_like_layout(t);
    if (r == NULL) {
        return NULL;
    }
    ct_tensor_incref(r);
    if (copy_views(r, geom_view(t, off, t->ndim, t->sizes, strides)) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ct_fliplr(const ct_tensor *t)
{
    static const int64_t one = 1;
    if (t->ndim < 2) {
        ct_error(CT_ERR_RUNTIME, "Input must be >= 2-d.");
        return NULL;
    }
    return ct_flip(t, 1, &one);
}

ct_tensor *
ct_flipud(const ct_tensor *t)
{
    static const int64_t zero = 0;
    if (t->ndim < 1) {
        ct_error(CT_ERR_RUNTIME, "Input must be >= 1-d.");
        return NULL;
    }
    return ct_flip(t, 1, &zero);
}

/* out = t rolled by shift[d] (already in [0, size)) along each dim: one
 * block copy per combination of the two parts of each shifted dim. */
static int
roll_blocks(ct_tensor *out, const ct_tensor *t, const int64_t *shift)
{
    int64_t sizes[CT_MAX_DIMS];
    int rolled[CT_MAX_DIMS], k = 0;

    for (int d = 0; d < t->ndim; d++) {
        if (shift[d] != 0) {
            rolled[k++] = d;
        }
    }
    /* each rolled dim has >= 2 elements, so 2^k <= numel */
    for (uint64_t mask = 0; mask < ((uint64_t)1 << k); mask++) {
        int64_t oo = out->offset, io = t->offset;
        memcpy(sizes, t->sizes, sizeof(int64_t) * (size_t)t->ndim);
        for (int j = 0; j < k; j++) {
            int d = rolled[j];
            int64_t s = shift[d], n = t->sizes[d];
            if (mask & ((uint64_t)1 << j)) {
                /* out[0:s] = in[n-s:n] */
                sizes[d] = s;
                io += (n - s) * t->strides[d];
            }
            else {
                /* out[s:n] = in[0:n-s] */
                sizes[d] = n - s;
                oo += s * out->strides[d];
            }
        }
        if (copy_views(geom_view(out, oo, out->ndim, sizes, out->strides),
                       geom_view(t, io, t->ndim, sizes, t->strides)) < 0) {
            return -1;
        }
    }
    return 0;
}

ct_tensor *
ct_roll(const ct_tensor *t, int nshifts, const int64_t *shifts, int ndims,
        const int64_t *dims)
{
    int64_t shift[CT_MAX_DIMS] = {0};

    if (nshifts == 0) {
        ct_error(CT_ERR_RUNTIME, "`shifts` required");
        return NULL;
    }
    if (ndims == 0 && nshifts == 1) {
        /* torch: flatten, roll dim 0, view back */
        int64_t all = -1, zero = 0;
        ct_tensor *flat = ct_reshape(t, 1, &all), *rolled = NULL, *r = NULL;
        if (flat != NULL) {
            rolled = ct_roll(flat, 1, shifts, 1, &zero);
        }
        if (rolled != NULL) {
            r = unbased(ct_view(rolled, t->ndim, t->sizes));
        }
        ct_tensor_decref(rolled);
        ct_tensor_decref(flat);
        return r;
    }
    if (nshifts != ndims) {
        ct_error(CT_ERR_RUNTIME, "shifts and dimensions must align. shifts: %d, "
                 "dims:%d", nshifts, ndims);
        return NULL;
    }
    if (t->ndim == 0) {
        ct_error(CT_ERR_INDEX, "Dimension specified as %lld but tensor has no "
                 "dimensions", (long long)dims[0]);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        int d = ct_wrap_dim(dims[i], t->ndim);
        if (d < 0) {
            return NULL;
        }
        int64_t n = t->sizes[d];
        if (n > 0) {
            int64_t s = shifts[i] % n;
            shift[d] = ((shift[d] + s) % n + n) % n;
        }
    }
    ct_tensor *r = empty_contiguous(t, t->ndim, t->sizes);
    if (r == NULL || r->numel == 0) {
        return r;
    }
    if (roll_blocks(r, t, shift) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ct_rot90(const ct_tensor *t, int64_t k, int ndims, const int64_t *dims)
{
    if (ndims != 2) {
        ct_error(CT_ERR_RUNTIME, "expected total rotation dims == 2, but got dims = %d",
                 ndims);
        return NULL;
    }
    int64_t n = t->ndim;
    if (n < 2) {
        ct_error(CT_ERR_RUNTIME, "expected total dims >= 2, but got total dims = %lld",
                 (long long)n);
        return NULL;
    }
    int64_t d0 = dims[0], d1 = dims[1];
    if (d0 == d1 || llabs(d0 - d1) == n) {
        ct_error(CT_ERR_RUNTIME, "expected rotation dims to be different, but got "
                 "dim0 = %lld and dim1 = %lld", (long long)d0, (long long)d1);
        return NULL;
    }
    if (d0 >= n || d0 < -n) {
        ct_error(CT_ERR_RUNTIME, "Rotation dim0 out of range, dim0 = %lld",
                 (long long)d0);
        return NULL;
    }
    if (d1 >= n || d1 < -n) {
        ct_error(CT_ERR_RUNTIME, "Rotation dim1 out of range, dim1 = %lld",
                 (long long)d1);
        return NULL;
    }
    k = ((k % 4) + 4) % 4;
    if (k == 0) {
        return filled(empty_contiguous(t, t->ndim, t->sizes), t);
    }
    if (k == 2) {
        return ct_flip(t, 2, dims);
    }
    ct_tensor *f = ct_flip(t, 1, k == 1 ? &dims[1] : &dims[0]);
    if (f == NULL) {
        return NULL;
    }
    ct_tensor *r = unbased(ct_transpose(f, d0, d1));
    ct_tensor_decref(f);
    return r;
}
