/* aten/cuda/index.cu -- gather, scatter and scatter_add along one dim on the
 * device.
 *
 * Both run loops.cuh's elementwise loop over the index's shape with three
 * operands: the output (gather) or self (scatter_add) / the index / the
 * source, where the indexed tensor is laid over the index's sizes with
 * stride 0 at dim.  The loop then points at the element with coordinate 0
 * along dim and every other coordinate the index element's; the element
 * function steps index[i] times the dim's byte stride (cx.along) from there.
 *
 * gather and scatter move whole elements by width, like copy_fill.cu
 * (scatter's writes to one element race: one of them lands).  scatter_add
 * adds with atomics, so concurrent additions to one element never lose an
 * update; their order is the hardware's (PyTorch's CUDA scatter_add is not
 * deterministic either).  float32, float64, int32 and int64 use the
 * hardware's atomic adds (integers through the unsigned ones: two's
 * complement wrap-around is the CPU's -fwrapv result), float16 and
 * bfloat16 CUDA's atomicAdd on __half / __nv_bfloat16 (a hardware add for
 * float16, and for bfloat16 on sm_90; cuda_bf16.hpp's compare-and-swap loop
 * on sm_80).  The narrow integers and bool swap the aligned word that holds
 * them with atomicCAS, computing the sum with the CPU's expression
 * (ct_k_add_S; bool: or).  The float16 / bfloat16 adds round the exact sum
 * once, where the CPU rounds a float sum: the two can differ in the last
 * bit in rare double-rounding cases.
 *
 * An index outside [0, size) is skipped (the host checks them first and
 * raises the CPU's error; this only keeps a bad call inside memory).
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

/* --- gather and scatter ---------------------------------------------------- */

#define FORALL_WIDTHS(X) X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t)

/* gather: out = in at the index (operands: out, index, in laid over the
 * index); scatter: self at the index = src (operands: self laid over the
 * index, index, src).  A whole element of width W moves, or nothing for an
 * index outside [0, size). */
#define MOVE(NAME, W, U, TO, FROM)                                            \
    static __device__ __forceinline__ void NAME##_##W##_elem(char *const *p,  \
                                                             ct_cuda_ctx cx)  \
    {                                                                         \
        int64_t j = *(const int64_t *)p[1];                                   \
        if (j >= 0 && j < cx.along.size) {                                    \
            *(U *)(TO) = *(const U *)(FROM);                                  \
        }                                                                     \
    }                                                                         \
    CT_CUDA_KERNEL(NAME##_##W, 3, NAME##_##W##_elem)
#define X(W, U)                                                               \
    MOVE(gather, W, U, p[0], p[2] + j * cx.along.stride)                      \
    MOVE(scatter, W, U, p[0] + j * cx.along.stride, p[2])
FORALL_WIDTHS(X)
#undef X
#undef MOVE

static ct_cuda_kernel
move_by_width(int64_t w, bool scatter)
{
    switch (w) {
#define X(W, U)                                                               \
    case W:                                                                   \
        return scatter ? scatter_##W : gather_##W;
        FORALL_WIDTHS(X)
#undef X
    default:
        return NULL;
    }
}

/* --- scatter_add: atomic addition per dtype ---------------------------------- */

/* The hardware atomic adds; false (nothing done) for the other types. */
template <typename T>
static __device__ __forceinline__ bool
native_add(T *q, const T *s)
{
    (void)q;
    (void)s;
    return false;
}

#define NATIVE(T, AT, VT)                                                     \
    static __device__ __forceinline__ bool native_add(T *q, const T *s)       \
    {                                                                         \
        atomicAdd((AT *)q, (AT)(*(const VT *)s));                             \
        return true;                                                          \
    }
NATIVE(float, float, float)
NATIVE(double, double, double)
NATIVE(ct_half, __half, __half)
NATIVE(ct_bfloat16, __nv_bfloat16, __nv_bfloat16)
NATIVE(int32_t, unsigned int, uint32_t)
NATIVE(int64_t, unsigned long long, uint64_t)
#undef NATIVE

/* *q += *s for dtype S: a hardware add, or a compare-and-swap loop on the
 * aligned 4- or 8-byte word holding the element (its neighbours in the
 * word are written back unchanged). */
#define X(E, T, S, A)                                                         \
    static __device__ __forceinline__ void add_##S(char *q, const char *s)    \
    {                                                                         \
        typedef std::conditional<sizeof(T) == 8, unsigned long long,          \
                                 unsigned int>::type W;                       \
        if (native_add((T *)q, (const T *)s)) {                               \
            return;                                                           \
        }                                                                     \
        W *w = (W *)((uintptr_t)q & ~(uintptr_t)(sizeof(W) - 1));             \
        size_t at = (size_t)(q - (char *)w);                                  \
        A v = ct_k_load_##S(s);                                               \
        W seen, old = *w;                                                     \
        do {                                                                  \
            seen = old;                                                       \
            W next = seen;                                                    \
            char *e = (char *)&next + at;                                     \
            ct_k_store_##S(e, ct_k_add_##S(ct_k_load_##S(e), v));             \
            old = atomicCAS(w, seen, next);                                   \
        } while (old != seen);                                                \
    }                                                                         \
    /* operands: self (laid over the index), index, src */                    \
    static __device__ __forceinline__ void scatter_add_##S##_elem(            \
        char *const *p, ct_cuda_ctx cx)                                       \
    {                                                                         \
        int64_t j = *(const int64_t *)p[1];                                   \
        if (j >= 0 && j < cx.along.size) {                                    \
            add_##S(p[0] + j * cx.along.stride, p[2]);                        \
        }                                                                     \
    }                                                                         \
    CT_CUDA_KERNEL(scatter_add_##S, 3, scatter_add_##S##_elem)
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

static ct_cuda_kernel
scatter_add_for(ct_dtype d)
{
    switch (d) {
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return scatter_add_##S;
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        return NULL;
    }
}

/* --- launch ------------------------------------------------------------------ */

/* Pack {first, index, other} for a kernel along dim: `laid` is the indexed
 * tensor (in / self) over the index's sizes with stride 0 at dim, which
 * must have the index's ndim and, apart from dim, sizes at least its.
 * `other` (out / src) must have the index's sizes.  The element count,
 * or -1 when the views do not fit; cx gets the dim's stride and size. */
static int64_t
pack_along(ct_k_pack *p, ct_cuda_ctx *cx, const ct_cuda_view *indexed,
           const ct_cuda_view *index, const ct_cuda_view *other, int dim, bool indexed_first)
{
    ct_cuda_view laid = *indexed;
    int nd = index->ndim;
    if (index->dtype != CT_DTYPE_INT64 || indexed->ndim != nd || other->ndim != nd ||
        indexed->dtype != other->dtype || dim < 0 || dim >= nd) {
        return -1;
    }
    for (int k = 0; k < nd; k++) {
        if (k != dim && indexed->sizes[k] < index->sizes[k]) {
            return -1;
        }
        laid.sizes[k] = index->sizes[k];
    }
    laid.strides[dim] = 0;
    memset(cx, 0, sizeof *cx);
    cx->along.stride = indexed->strides[dim] * ct_k_itemsize(indexed->dtype);
    cx->along.size = indexed->sizes[dim];
    const ct_cuda_view *views[3] = {indexed_first ? &laid : other, index,
                                    indexed_first ? other : &laid};
    return ct_k_pack_views(p, 3, views);
}

extern "C" cudaError_t
ct__cuda_gather(void *stream, const ct_cuda_view *out, const ct_cuda_view *in,
                const ct_cuda_view *index, int dim)
{
    ct_k_pack p;
    ct_cuda_ctx cx;
    int64_t n = pack_along(&p, &cx, in, index, out, dim, false);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    return ct_cuda_launch(move_by_width(ct_k_itemsize(out->dtype), false), p, n, cx, stream);
}

/* kernel k over self laid along dim by index, src beside it */
static cudaError_t
launch_into(void *stream, ct_cuda_kernel k, const ct_cuda_view *self,
            const ct_cuda_view *index, const ct_cuda_view *src, int dim)
{
    ct_k_pack p;
    ct_cuda_ctx cx;
    int64_t n = pack_along(&p, &cx, self, index, src, dim, true);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    return ct_cuda_launch(k, p, n, cx, stream);
}

extern "C" cudaError_t
ct__cuda_scatter_add(void *stream, const ct_cuda_view *self, const ct_cuda_view *index,
                     const ct_cuda_view *src, int dim)
{
    return launch_into(stream, scatter_add_for(self->dtype), self, index, src, dim);
}

extern "C" cudaError_t
ct__cuda_scatter(void *stream, const ct_cuda_view *self, const ct_cuda_view *index,
                 const ct_cuda_view *src, int dim)
{
    return launch_into(stream, move_by_width(ct_k_itemsize(self->dtype), true), self, index,
                       src, dim);
}
