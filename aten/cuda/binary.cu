/* aten/cuda/binary.cu -- add, sub, mul and div on the device: one kernel
 * per op and dtype over operands of that one dtype, computing in its
 * compute type with kernel_math.h's expressions (those of
 * aten/cpu/binary.c).  As on the CPU, add and sub take the alpha form
 * (alpha * b fused into the sum) only when alpha is not 1.
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"

/* BINARY(name, S, A, expr): kernel `name` storing expr over a and b, the
 * inputs loaded as compute type A; expr may read cx.alpha. */
#define BINARY(name, S, A, expr)                                              \
    static __device__ __forceinline__ void name##_elem(char *const *p,        \
                                                       ct_cuda_ctx cx)        \
    {                                                                         \
        A a = ct_k_load_##S(p[1]), b = ct_k_load_##S(p[2]);                   \
        (void)cx;                                                             \
        ct_k_store_##S(p[0], (expr));                                         \
    }                                                                         \
    CT_CUDA_KERNEL(name, 3, name##_elem)

#define X(E, T, S, A)                                                         \
    BINARY(add_##S, S, A, ct_k_add_##S(a, b))                                 \
    BINARY(add_alpha_##S, S, A, ct_k_add_alpha_##S(a, b, cx.alpha.S))         \
    BINARY(mul_##S, S, A, ct_k_mul_##S(a, b))
CT_FORALL_NUMERIC_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                         \
    BINARY(sub_##S, S, A, ct_k_sub_##S(a, b))                                 \
    BINARY(sub_alpha_##S, S, A, ct_k_sub_alpha_##S(a, b, cx.alpha.S))
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A) BINARY(div_##S, S, A, ct_k_div_##S(a, b))
CT_FORALL_FLOATING_DTYPES(X)
#undef X

/* The kernel of op on dtype; NULL where the CPU has no loop either (bool
 * sub, integer and bool div). */
static ct_cuda_kernel
kernel_for(ct_cuda_binary_op op, bool alpha, ct_dtype dtype)
{
    switch (dtype) {
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return op == CT_CUDA_ADD   ? (alpha ? add_alpha_##S : add_##S)        \
               : op == CT_CUDA_SUB ? (alpha ? sub_alpha_##S : sub_##S)        \
               : op == CT_CUDA_MUL ? mul_##S                                  \
                                   : div_##S;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return op == CT_CUDA_ADD   ? (alpha ? add_alpha_##S : add_##S)        \
               : op == CT_CUDA_SUB ? (alpha ? sub_alpha_##S : sub_##S)        \
               : op == CT_CUDA_MUL ? mul_##S                                  \
                                   : NULL;
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL:
        return op == CT_CUDA_ADD   ? (alpha ? add_alpha_b8 : add_b8)
               : op == CT_CUDA_MUL ? mul_b8
                                   : NULL;
    default:
        return NULL;
    }
}

extern "C" cudaError_t
ct__cuda_binary(void *stream, ct_cuda_binary_op op, const ct_cuda_view *out,
                const ct_cuda_view *a, const ct_cuda_view *b, double falpha,
                int64_t ialpha)
{
    const ct_cuda_view *views[3] = {out, a, b};
    ct_k_pack p;
    ct_cuda_ctx cx;

    /* alpha is 1 only when both forms say so (aten/cpu/binary.c compares
     * the scalar as a double) */
    bool alpha = (op == CT_CUDA_ADD || op == CT_CUDA_SUB) &&
                 (falpha != 1.0 || ialpha != 1);
    ct_cuda_kernel kernel = kernel_for(op, alpha, out->dtype);
    int64_t n = ct_k_pack_views(&p, 3, views);
    if (kernel == NULL || n < 0 || a->dtype != out->dtype || b->dtype != out->dtype) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
#define X(E, T, S, A) cx.alpha.S = ct_k_scalar_##S(falpha, ialpha);
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    return ct_cuda_launch(kernel, p, n, cx, stream);
}
