/* aten/cuda/binary.cu -- the binary ops on the device, over operands of
 * one dtype, computing in its compute type with the expressions of
 * aten/cpu/binary.c.  add, sub, mul and div have a kernel per op and dtype
 * (kernel_math.h); as on the CPU, add and sub take the alpha form (alpha *
 * b fused into the sum) only when alpha is not 1.  The other ops share two
 * kernels per dtype, one storing the dtype and one storing bool, that
 * switch on the op (pointwise_math.h): a branch every thread takes alike,
 * and far less device code to build than a kernel per op.
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"
#include "aten/cuda/pointwise_math.h"

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

/* the other ops: op_C stores ct_k_binary_C, compare_C ct_k_compare_C, for
 * the dtypes of compute class C */
#define FORALL_CLASSES(X) X(FLOAT, float) X(DOUBLE, double) X(I64, i64) X(B8, b8)
#define X(K, C)                                                               \
    static __device__ __forceinline__ void op_##C##_elem(char *const *p,      \
                                                         ct_cuda_ctx cx)      \
    {                                                                         \
        ct_k_binary_elem_##C(cx.sel.dtype, cx.sel.op, p[0], p[1], p[2]);      \
    }                                                                         \
    static __device__ __forceinline__ void compare_##C##_elem(char *const *p, \
                                                              ct_cuda_ctx cx) \
    {                                                                         \
        ct_k_compare_elem_##C(cx.sel.dtype, cx.sel.op, p[0], p[1], p[2]);     \
    }                                                                         \
    CT_CUDA_KERNEL(op_##C, 3, op_##C##_elem)                                  \
    CT_CUDA_KERNEL(compare_##C, 3, compare_##C##_elem)
FORALL_CLASSES(X)
#undef X

/* op's result is bool (comparisons and logical ops) */
static bool
gives_bool(ct_binary_op op)
{
    switch (op) {
#define X(E, N, K)                                                            \
    case E:                                                                   \
        return K == CT_RESULT_BOOL;
        CT_FORALL_BINARY_OPS(X)
#undef X
    default:
        return false;
    }
}

/* The switching kernel of op on dtype (ct_cuda_supports says which exist). */
static ct_cuda_kernel
switching_kernel(ct_binary_op op, ct_dtype dtype)
{
    bool to_bool = gives_bool(op);
    switch (ct_k_class_of(dtype)) {
#define X(K, C)                                                               \
    case CT_K_CLASS_##K:                                                      \
        return to_bool ? compare_##C : op_##C;
        FORALL_CLASSES(X)
#undef X
    default:
        return NULL;
    }
}

/* The kernel of op on dtype; NULL where the CPU has no loop either (bool
 * sub, integer and bool div). */
static ct_cuda_kernel
kernel_for(ct_binary_op op, bool alpha, ct_dtype dtype)
{
    if (op != CT_BINARY_ADD && op != CT_BINARY_SUB && op != CT_BINARY_MUL &&
        op != CT_BINARY_DIV) {
        return ct_cuda_supports(CT_CUDA_BINARY, op, dtype) ? switching_kernel(op, dtype)
                                                           : NULL;
    }
    switch (dtype) {
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return op == CT_BINARY_ADD   ? (alpha ? add_alpha_##S : add_##S)      \
               : op == CT_BINARY_SUB ? (alpha ? sub_alpha_##S : sub_##S)      \
               : op == CT_BINARY_MUL ? mul_##S                                \
                                     : div_##S;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                         \
    case E:                                                                   \
        return op == CT_BINARY_ADD   ? (alpha ? add_alpha_##S : add_##S)      \
               : op == CT_BINARY_SUB ? (alpha ? sub_alpha_##S : sub_##S)      \
               : op == CT_BINARY_MUL ? mul_##S                                \
                                     : NULL;
        CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    case CT_DTYPE_BOOL:
        return op == CT_BINARY_ADD   ? (alpha ? add_alpha_b8 : add_b8)
               : op == CT_BINARY_MUL ? mul_b8
                                     : NULL;
    default:
        return NULL;
    }
}

extern "C" cudaError_t
ct__cuda_binary(void *stream, ct_binary_op op, const ct_cuda_view *out,
                const ct_cuda_view *a, const ct_cuda_view *b, double falpha,
                int64_t ialpha)
{
    const ct_cuda_view *views[3] = {out, a, b};
    ct_k_pack p;
    ct_cuda_ctx cx;

    /* alpha is 1 only when both forms say so (aten/cpu/binary.c compares
     * the scalar as a double) */
    bool alpha = (op == CT_BINARY_ADD || op == CT_BINARY_SUB) &&
                 (falpha != 1.0 || ialpha != 1);
    ct_dtype rdtype = gives_bool(op) ? CT_DTYPE_BOOL : a->dtype;
    ct_cuda_kernel kernel = kernel_for(op, alpha, a->dtype);
    int64_t n = ct_k_pack_views(&p, 3, views);
    if (kernel == NULL || n < 0 || b->dtype != a->dtype || out->dtype != rdtype) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    if (alpha) {
#define X(E, T, S, A) cx.alpha.S = ct_k_scalar_##S(falpha, ialpha);
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    }
    else {
        cx.sel.op = op;
        cx.sel.dtype = a->dtype;
    }
    return ct_cuda_launch(kernel, p, n, cx, stream);
}
