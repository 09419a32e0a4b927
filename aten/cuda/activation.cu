/* aten/cuda/activation.cu -- the parametrized activations on the device
 * (op_lists.h's CT_FORALL_ACTIVATIONS): the function and its first and
 * second derivatives, with aten/activation_math.h's expressions, the ones
 * the CPU's loops run.  Floating dtypes only, computed in float (float16,
 * bfloat16, float32) or double, with the parameters cast to that type
 * first; the host composes the integer forms of hardtanh and threshold
 * (aten/device_activation.c).  Operands: out and x (order 0), out, grad
 * and x (orders 1 and 2), of one dtype and shape.
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"
#include "aten/cuda/pointwise_math.h"

/* the parameters as activation_math.h reads them */
#define P0 p0_
#define P1 p1_
#define P2 p2_
#include "aten/activation_math.h"

/* value(op, order, a, b): order 0 F_op(b), else D_op / D2_op(a, b), a the
 * gradient and b the input; one switch every thread takes alike */
#define CASE_F(E, N, K, B, BI, BB) \
    case E:                        \
        return F_##N(b);
#define CASE_D(E, N, K, B, BI, BB) \
    case E:                        \
        return D_##N(a, b);
#define CASE_D2(E, N, K, B, BI, BB) \
    case E:                         \
        return D2_##N(a, b);
#define VALUE(AT)                                                             \
    static __device__ __forceinline__ AT value_##AT(int op, int order, AT a,  \
                                                    AT b, const double *p)    \
    {                                                                         \
        typedef AT A;                                                         \
        const A p0_ = (A)p[0], p1_ = (A)p[1], p2_ = (A)p[2];                  \
        if (order == 0) {                                                     \
            switch (op) { CT_FORALL_ACTIVATIONS(CASE_F) }                     \
        }                                                                     \
        else if (order == 1) {                                                \
            switch (op) { CT_FORALL_ACTIVATIONS(CASE_D) }                     \
        }                                                                     \
        else {                                                                \
            switch (op) { CT_FORALL_ACTIVATIONS(CASE_D2) }                    \
        }                                                                     \
        return b;                                                             \
    }
VALUE(float)
VALUE(double)

/* the kernels, per compute type: loaded from and stored to cx.act.dtype */
#define KERNELS(AT)                                                           \
    static __device__ __forceinline__ void fwd_##AT##_elem(char *const *p,    \
                                                           ct_cuda_ctx cx)    \
    {                                                                         \
        AT x = ct_k_load_##AT(cx.act.dtype, p[1]);                            \
        ct_k_store_##AT(cx.act.dtype, p[0],                                   \
                        value_##AT(cx.act.op, 0, x, x, cx.act.p));            \
    }                                                                         \
    static __device__ __forceinline__ void bwd_##AT##_elem(char *const *p,    \
                                                           ct_cuda_ctx cx)    \
    {                                                                         \
        AT g = ct_k_load_##AT(cx.act.dtype, p[1]);                            \
        AT x = ct_k_load_##AT(cx.act.dtype, p[2]);                            \
        ct_k_store_##AT(cx.act.dtype, p[0],                                   \
                        value_##AT(cx.act.op, cx.act.order, g, x, cx.act.p)); \
    }                                                                         \
    CT_CUDA_KERNEL(fwd_##AT, 2, fwd_##AT##_elem)                              \
    CT_CUDA_KERNEL(bwd_##AT, 3, bwd_##AT##_elem)
KERNELS(float)
KERNELS(double)

extern "C" cudaError_t
ct__cuda_activation(void *stream, int op, int order, const ct_cuda_view *out,
                    const ct_cuda_view *grad, const ct_cuda_view *x, const double *p)
{
    const ct_cuda_view *views[3] = {out, order == 0 ? x : grad, x};
    int nviews = order == 0 ? 2 : 3;
    ct_k_pack pack;
    ct_cuda_ctx cx;
    ct_dtype d = x->dtype;
    bool wide = d == CT_DTYPE_FLOAT64;

    if (op < 0 || op >= CT_ACT_COUNT || order < 0 || order > 2 ||
        (order > 0 && (grad == NULL || grad->dtype != d)) || out->dtype != d ||
        (!wide && d != CT_DTYPE_FLOAT32 && d != CT_DTYPE_FLOAT16 &&
         d != CT_DTYPE_BFLOAT16)) {
        return cudaErrorInvalidValue;
    }
    int64_t n = ct_k_pack_views(&pack, nviews, views);
    if (n < 0) {
        return cudaErrorInvalidValue;
    }
    memset(&cx, 0, sizeof cx);
    cx.act.op = op;
    cx.act.order = order;
    cx.act.dtype = d;
    for (int k = 0; k < CT_ACT_MAX_PARAMS; k++) {
        cx.act.p[k] = p[k];
    }
    ct_cuda_kernel kernel = order == 0 ? (wide ? fwd_double : fwd_float)
                                       : (wide ? bwd_double : bwd_float);
    return ct_cuda_launch(kernel, pack, n, cx, stream);
}
