/* aten/cuda/unary.cu -- the unary ops on the device: per compute class
 * (pointwise_math.h: float for float16, bfloat16 and float32, double,
 * i64 for the integers, b8) one kernel storing the input's dtype and one
 * storing bool (isnan ... logical_not), each switching on the op and dtype
 * (aten/cpu/unary.c's expressions), branches every thread takes alike.
 * The input is in the compute dtype (the host converted integers for the
 * float ops).
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"
#include "aten/cuda/pointwise_math.h"

#define FORALL_CLASSES(X) X(FLOAT, float) X(DOUBLE, double) X(I64, i64) X(B8, b8)
#define X(K, C)                                                               \
    static __device__ __forceinline__ void unary_##C##_elem(char *const *p,   \
                                                            ct_cuda_ctx cx)   \
    {                                                                         \
        ct_k_unary_elem_##C(cx.sel.dtype, cx.sel.op, p[0], p[1]);             \
    }                                                                         \
    static __device__ __forceinline__ void unary_bool_##C##_elem(             \
        char *const *p, ct_cuda_ctx cx)                                       \
    {                                                                         \
        ct_k_unary_bool_elem_##C(cx.sel.dtype, cx.sel.op, p[0], p[1]);        \
    }                                                                         \
    CT_CUDA_KERNEL(unary_##C, 2, unary_##C##_elem)                            \
    CT_CUDA_KERNEL(unary_bool_##C, 2, unary_bool_##C##_elem)
FORALL_CLASSES(X)
#undef X

/* op's result is bool */
static bool
gives_bool(ct_unary_op op)
{
    switch (op) {
#define X(E, N, K)                                                            \
    case E:                                                                   \
        return K == CT_UNARY_BOOL;
        CT_FORALL_UNARY_OPS(X)
#undef X
    default:
        return false;
    }
}

extern "C" cudaError_t
ct__cuda_unary(void *stream, ct_unary_op op, const ct_cuda_view *out,
               const ct_cuda_view *in)
{
    const ct_cuda_view *views[2] = {out, in};
    ct_k_pack p;
    ct_cuda_ctx cx;
    ct_cuda_kernel kernel = NULL;
    bool to_bool = gives_bool(op);

    if (!ct_cuda_supports(CT_CUDA_UNARY, op, in->dtype) ||
        out->dtype != (to_bool ? CT_DTYPE_BOOL : in->dtype)) {
        return cudaErrorInvalidValue;
    }
    switch (ct_k_class_of(in->dtype)) {
#define X(K, C)                                                               \
    case CT_K_CLASS_##K:                                                      \
        kernel = to_bool ? unary_bool_##C : unary_##C;                        \
        break;
        FORALL_CLASSES(X)
#undef X
    default:
        return cudaErrorInvalidValue;
    }
    int64_t n = ct_k_pack_views(&p, 2, views);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    cx.sel.op = op;
    cx.sel.dtype = in->dtype;
    return ct_cuda_launch(kernel, p, n, cx, stream);
}
