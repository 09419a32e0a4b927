/* aten/cuda/copy_fill.cu -- copy_ between any two dtypes, fill_ and
 * where, on the device.
 *
 * As aten/cpu/copy.c and select.c: a same-dtype copy, a fill and where
 * move whole elements of 1, 2, 4 or 8 bytes (a fill's bits are made once
 * on the host; where's condition is one byte, bool or uint8), and a cast
 * reads the source as int64 or double and writes the destination from it
 * (Note [Casting through a buffer]).  That is one cast kernel per
 * destination dtype, not one per pair: ct_k_read switches on the source
 * dtype per element, a branch every thread of a warp takes alike.
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"

#define FORALL_WIDTHS(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t)

#define X(W, U)                                                               \
    static __device__ __forceinline__ void move_##W##_elem(char *const *p,    \
                                                           ct_cuda_ctx cx)    \
    {                                                                         \
        (void)cx;                                                             \
        *(U *)p[0] = *(const U *)p[1];                                        \
    }                                                                         \
    static __device__ __forceinline__ void fill_##W##_elem(char *const *p,    \
                                                           ct_cuda_ctx cx)    \
    {                                                                         \
        *(U *)p[0] = (U)cx.bits;                                              \
    }                                                                         \
    static __device__ __forceinline__ void where_##W##_elem(char *const *p,   \
                                                            ct_cuda_ctx cx)   \
    {                                                                         \
        (void)cx;                                                             \
        *(U *)p[0] = *(const uint8_t *)p[1] ? *(const U *)p[2]                \
                                            : *(const U *)p[3];               \
    }                                                                         \
    CT_CUDA_KERNEL(move_##W, 2, move_##W##_elem)                              \
    CT_CUDA_KERNEL(fill_##W, 1, fill_##W##_elem)                              \
    CT_CUDA_KERNEL(where_##W, 4, where_##W##_elem)
FORALL_WIDTHS(X)
#undef X

#define X(E, T, S, A)                                                         \
    static __device__ __forceinline__ void cast_to_##S##_elem(char *const *p, \
                                                              ct_cuda_ctx cx) \
    {                                                                         \
        ct_k_write_##S(p[0], ct_k_read(cx.src, p[1]));                        \
    }                                                                         \
    CT_CUDA_KERNEL(cast_to_##S, 2, cast_to_##S##_elem)
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

typedef enum { MOVE, FILL, WHERE } width_kernel;

/* The move, fill or where kernel for elements of w bytes. */
static ct_cuda_kernel
by_width(int64_t w, width_kernel k)
{
    switch (w) {
#define X(W, U)                                                               \
    case W:                                                                   \
        return k == FILL ? fill_##W : k == WHERE ? where_##W : move_##W;
        FORALL_WIDTHS(X)
#undef X
    default:
        return NULL;
    }
}

static ct_cuda_kernel
cast_to(ct_dtype dst)
{
    switch (dst) {
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return cast_to_##S;
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        return NULL;
    }
}

extern "C" cudaError_t
ct__cuda_copy(void *stream, const ct_cuda_view *dst, const ct_cuda_view *src)
{
    const ct_cuda_view *views[2] = {dst, src};
    ct_k_pack p;
    ct_cuda_ctx cx;
    ct_cuda_kernel kernel;

    int64_t n = ct_k_pack_views(&p, 2, views);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    if (dst->dtype == src->dtype) {
        kernel = by_width(ct_k_itemsize(dst->dtype), MOVE);
    }
    else {
        kernel = cast_to(dst->dtype);
        cx.src = src->dtype;
    }
    return ct_cuda_launch(kernel, p, n, cx, stream);
}

extern "C" cudaError_t
ct__cuda_fill(void *stream, const ct_cuda_view *dst, double fval, int64_t ival)
{
    const ct_cuda_view *views[1] = {dst};
    ct_k_pack p;
    ct_cuda_ctx cx;

    int64_t n = ct_k_pack_views(&p, 1, views);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    switch (dst->dtype) {
#define X(E, T, S, A)                                                         \
    case E: {                                                                 \
        T v;                                                                  \
        ct_k_store_##S((char *)&v, ct_k_scalar_##S(fval, ival));              \
        memcpy(&cx.bits, &v, sizeof v); /* little-endian: the low bytes */    \
        break;                                                                \
    }
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        return cudaErrorInvalidValue;
    }
    return ct_cuda_launch(by_width(ct_k_itemsize(dst->dtype), FILL), p, n, cx, stream);
}

extern "C" cudaError_t
ct__cuda_where(void *stream, const ct_cuda_view *out, const ct_cuda_view *cond,
               const ct_cuda_view *a, const ct_cuda_view *b)
{
    const ct_cuda_view *views[4] = {out, cond, a, b};
    ct_k_pack p;
    ct_cuda_ctx cx;

    int64_t n = ct_k_pack_views(&p, 4, views);
    if (n < 0 || a->dtype != out->dtype || b->dtype != out->dtype ||
        (cond->dtype != CT_DTYPE_BOOL && cond->dtype != CT_DTYPE_UINT8)) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    return ct_cuda_launch(by_width(ct_k_itemsize(out->dtype), WHERE), p, n, cx, stream);
}
