/* aten/cpu/copy.c -- copy_, dtype conversion, contiguous, clone, fill_.
 *
 * Note [Casting through a buffer]
 * A conversion between any two of the dtypes would be 13 x 13 loops; the
 * dtype list cannot be expanded inside itself, and a second copy of it is
 * what we do not want.  Instead a cast reads a chunk of the source into a
 * small buffer as int64 (integer and bool sources, exact) or double
 * (floating sources), then writes the chunk out in the destination dtype:
 * 13 readers and 13 writers, the same values c10/convert.h's CT_CONVERT
 * gives.  Same-dtype copies move bytes directly.
 */
#include <string.h>

#include "aten/cpu/loops.h"
#include "aten/device.h"
#include "aten/cpu/cpu_impl.h"

#define CHUNK 256

typedef union {
    double f[CHUNK];
    int64_t i[CHUNK];
} cast_buf;

typedef void (*cast_reader)(const char *p, int64_t st, int64_t n, cast_buf *b);
typedef void (*cast_writer)(char *p, int64_t st, int64_t n, const cast_buf *b,
                            bool from_float);

#define X(E, T, S, A)                                                         \
    static void read_##S(const char *p, int64_t st, int64_t n, cast_buf *b)   \
    {                                                                         \
        for (int64_t i = 0; i < n; i++) {                                     \
            T v;                                                              \
            memcpy(&v, p + i * st, sizeof v);                                 \
            if (CT__IS_FLOAT_##S) {                                           \
                b->f[i] = ct__as_f64_##S(v);                                  \
            }                                                                 \
            else {                                                            \
                b->i[i] = ct__as_i64_##S(v);                                  \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    static void write_##S(char *p, int64_t st, int64_t n, const cast_buf *b,  \
                          bool from_float)                                    \
    {                                                                         \
        for (int64_t i = 0; i < n; i++) {                                     \
            T v = from_float ? ct__##S##_from_f64(b->f[i])                    \
                             : ct__##S##_from_i64(b->i[i]);                   \
            memcpy(p + i * st, &v, sizeof v);                                 \
        }                                                                     \
    }
CT_FORALL_DTYPES(X)
#undef X

static const cast_reader readers[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = read_##S,
    CT_FORALL_DTYPES(X)
#undef X
};
static const cast_writer writers[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = write_##S,
    CT_FORALL_DTYPES(X)
#undef X
};

void
ct__write_converted(ct_dtype dtype, char *dst, int64_t stride, int64_t n,
                    const void *values, bool from_float)
{
    for (int64_t done = 0; done < n; done += CHUNK) {
        int64_t m = n - done < CHUNK ? n - done : CHUNK;
        const char *src = (const char *)values + done * 8;
        writers[dtype](dst + done * stride, stride, m, (const cast_buf *)src, from_float);
    }
}

typedef struct {
    cast_reader read;
    cast_writer write;
    bool from_float;
} cast_ctx;

static int
cast_loop(char **data, const int64_t *st, int64_t n, void *ctx)
{
    const cast_ctx *c = ctx;
    cast_buf buf;
    for (int64_t done = 0; done < n; done += CHUNK) {
        int64_t m = n - done < CHUNK ? n - done : CHUNK;
        c->read(data[1] + done * st[1], st[1], m, &buf);
        c->write(data[0] + done * st[0], st[0], m, &buf, c->from_float);
    }
    return 0;
}

/* Same-dtype copies move whole elements of 1, 2, 4 or 8 bytes. */
#define COPY_LOOP(W, U)                                                       \
    static int copy_##W(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        (void)ctx;                                                            \
        if (st[0] == W && st[1] == W) {                                       \
            memcpy(data[0], data[1], (size_t)n * W);                          \
            return 0;                                                         \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            *(U *)(data[0] + i * st[0]) = *(const U *)(data[1] + i * st[1]);  \
        }                                                                     \
        return 0;                                                             \
    }
COPY_LOOP(1, uint8_t)
COPY_LOOP(2, uint16_t)
COPY_LOOP(4, uint32_t)
COPY_LOOP(8, uint64_t)

static ct_loop
copy_loop_for(size_t itemsize)
{
    static const ct_loop by_size[9] = {
        [1] = copy_1, [2] = copy_2, [4] = copy_4, [8] = copy_8};
    CT_ASSERT(itemsize <= 8 && by_size[itemsize] != NULL);
    return by_size[itemsize];
}

int
ct_copy_(ct_tensor *dst, const ct_tensor *src)
{
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *s = (ct_tensor *)src;
    int rc;

    if (ct_broadcast_shapes(dst->ndim, dst->sizes, src->ndim, src->sizes, &ndim,
                            shape) < 0 ||
        ct_iter_check_out(dst, CT_OUT_INPLACE, ndim, shape, 0, NULL) < 0) {
        return -1;
    }
    bool qd = ct_dtype_table[dst->dtype].is_quantized;
    bool qs = ct_dtype_table[src->dtype].is_quantized;
    if (qs && !qd) {
        return ct_error(CT_ERR_RUNTIME, "Copying from quantized Tensor to "
                        "non-quantized Tensor is not allowed, please use "
                        "dequantize to get a float Tensor from a quantized Tensor");
    }
    if (qd && dst->dtype != src->dtype) {
        return ct_error(CT_ERR_RUNTIME, "Quantized copy only works with "
                        "kFloat as source Tensor");
    }
    if (dst->numel == 0) {
        return 0;
    }
    if (ct_iter_check_overlap(dst, src) < 0) {
        return -1;
    }
    if (ct__is_device(dst) || ct__is_device(src)) {
        return ct__device_copy_(dst, src);
    }
    ct_tensor_incref(s);
    ct_tensor *ops[2] = {dst, s};
    if (dst->dtype == s->dtype) {
        rc = ct_iter_run(2, ops, copy_loop_for(ct_dtype_itemsize(dst->dtype)), NULL);
    }
    else {
        cast_ctx c = {readers[s->dtype], writers[dst->dtype],
                      ct_dtype_is_floating(s->dtype)};
        rc = ct_iter_run(2, ops, cast_loop, &c);
    }
    ct_tensor_decref(s);
    return rc;
}

/* Fill r (fresh, t's shape) with t's values and quantization parameters;
 * takes r and returns it, or NULL (r released) on error. */
static ct_tensor *
filled_from(ct_tensor *r, const ct_tensor *t)
{
    if (r == NULL) {
        return NULL;
    }
    r->q_scale = t->q_scale;
    r->q_zero_point = t->q_zero_point;
    if (ct_copy_(r, t) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* A fresh tensor on device shaped like t with t's strides when t is dense
 * (PyTorch's preserve_format), else laid out by t's memory order. */
static ct_tensor *
empty_like_layout(const ct_tensor *t, ct_dtype dtype, ct_device device)
{
    if (ct_tensor_is_non_overlapping_and_dense(t)) {
        return ct_empty_strided(t->ndim, t->sizes, t->strides, dtype, device);
    }
    if (!ct_device_eq(device, ct_tensor_device(t))) {
        return ct_empty(t->ndim, t->sizes, dtype, device);
    }
    const ct_tensor *ins[1] = {t};
    return ct_iter_new_output(1, ins, t->ndim, t->sizes, dtype);
}

ct_tensor *
ct_to_dtype(const ct_tensor *t, ct_dtype dtype, bool copy)
{
    if (t->dtype == dtype && !copy) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    if (ct_dtype_table[dtype].is_quantized && t->dtype != dtype) {
        ct_error(CT_ERR_RUNTIME, "Quantized copy only works with kFloat as "
                 "source Tensor");
        return NULL;
    }
    return filled_from(empty_like_layout(t, dtype, ct_tensor_device(t)), t);
}

ct_tensor *
ct_to_device(const ct_tensor *t, ct_device device)
{
    return filled_from(empty_like_layout(t, t->dtype, device), t);
}

ct_tensor *
ct_contiguous(const ct_tensor *t)
{
    if (ct_tensor_is_contiguous(t)) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    return filled_from(ct_empty(t->ndim, t->sizes, t->dtype, ct_tensor_device(t)), t);
}

ct_tensor *
ct_clone(const ct_tensor *t)
{
    ct_tensor *r = ct_tensor_is_non_overlapping_and_dense(t)
                       ? ct_empty_strided(t->ndim, t->sizes, t->strides, t->dtype,
                                          ct_tensor_device(t))
                       : ct_empty(t->ndim, t->sizes, t->dtype, ct_tensor_device(t));
    if (r == NULL) {
        return NULL;
    }
    r->q_scale = t->q_scale;
    r->q_zero_point = t->q_zero_point;
    ct_tensor *ops[2] = {r, (ct_tensor *)t};
    if (ct__is_device(t) ? ct__device_copy_(r, t) < 0
                         : ct_iter_run(2, ops, copy_loop_for(ct_dtype_itemsize(t->dtype)),
                                       NULL) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

#define FILL_LOOP(W, U)                                                       \
    static int fill_##W(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        U v;                                                                  \
        memcpy(&v, ctx, sizeof v);                                            \
        if (st[0] == W) {                                                     \
            U *o = (U *)data[0];                                              \
            for (int64_t i = 0; i < n; i++) {                                 \
                o[i] = v;                                                     \
            }                                                                 \
            return 0;                                                         \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            *(U *)(data[0] + i * st[0]) = v;                                  \
        }                                                                     \
        return 0;                                                             \
    }
FILL_LOOP(1, uint8_t)
FILL_LOOP(2, uint16_t)
FILL_LOOP(4, uint32_t)
FILL_LOOP(8, uint64_t)

int
ct_fill_(ct_tensor *t, ct_scalar value)
{
    static const ct_loop by_size[9] = {
        [1] = fill_1, [2] = fill_2, [4] = fill_4, [8] = fill_8};
    uint64_t bytes = 0;

    if (ct_dtype_table[t->dtype].is_quantized) {
        return ct_error(CT_ERR_RUNTIME, "fill_ is not supported for quantized "
                        "tensors");
    }
    if (ct_scalar_check(value, t->dtype) < 0) {
        return -1;
    }
    switch (t->dtype) {
#define X(E, T, S, A)                                                         \
    case E: {                                                                 \
        T v = CT_FROM_SCALAR(S, value);                                       \
        memcpy(&bytes, &v, sizeof v);                                         \
        break;                                                                \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
    if (ct__is_device(t)) {
        return t->numel > 0 ? ct__device_fill_(t, value) : 0;
    }
    ct_tensor *ops[1] = {t};
    return ct_iter_run(1, ops, by_size[ct_dtype_itemsize(t->dtype)], &bytes);
}
