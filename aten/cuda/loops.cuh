/* aten/cuda/loops.cuh -- the one strided elementwise loop of the CUDA
 * kernels, and its launch.
 *
 * CT_CUDA_KERNEL(name, NARGS, elem) stamps `name`, a kernel over the n
 * elements of the NARGS operands in a ct_k_pack (Note [Kernel operand
 * pack] in kernel_math.h): a grid-stride loop with int64 indices that
 * calls elem(ptr, cx) with ptr[a] pointing at the element of operand a
 * (operand 0 is the output) and cx the kernel's ct_cuda_ctx.  When every
 * operand is contiguous or a broadcast scalar the pointers are i * step;
 * otherwise they come from ct_k_offsets.  ct_cuda_launch queues a kernel on
 * a stream of the current device.  Host code here returns cudaError_t;
 * c10/cuda/runtime.c turns errors into ctorch's.
 */
#ifndef CTORCH_ATEN_CUDA_LOOPS_CUH
#define CTORCH_ATEN_CUDA_LOOPS_CUH

#include <cuda_runtime.h>

#include "aten/cuda/kernel_math.h"

#define CT_CUDA_THREADS 256

/* alpha of add and sub in every compute type (ct_k_scalar_S) */
typedef struct {
#define X(E, T, S, A) A S;
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
} ct_cuda_alpha;

/* The CTX argument of every kernel, so that one launcher serves them all:
 * a cast's source dtype, a fill's element bits, add's and sub's alpha, the
 * op and dtype of the kernels that switch on them (pointwise_math.h), the
 * indexed dim's byte stride and size (index.cu), an activation's op, order
 * and parameters (activation.cu). */
typedef union {
    ct_dtype src;
    struct {
        int64_t stride;
        int64_t size;
    } along;
    struct {
        int op;
        ct_dtype dtype;
    } sel;
    uint64_t bits;
    ct_cuda_alpha alpha;
    struct {
        int op, order;
        ct_dtype dtype;
        double p[CT_ACT_MAX_PARAMS];
    } act;
} ct_cuda_ctx;

typedef void (*ct_cuda_kernel)(ct_k_pack, int64_t, ct_cuda_ctx);

#define CT_CUDA_KERNEL(name, NARGS, elem)                                     \
    static __global__ void __launch_bounds__(CT_CUDA_THREADS)                 \
    name(ct_k_pack p, int64_t n, ct_cuda_ctx cx)                              \
    {                                                                         \
        const int64_t step = (int64_t)gridDim.x * blockDim.x;                 \
        int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;           \
        char *ptr[NARGS];                                                     \
        if (p.linear) {                                                       \
            for (; i < n; i += step) {                                        \
                for (int a = 0; a < NARGS; a++) {                             \
                    ptr[a] = p.data[a] + i * p.step[a];                       \
                }                                                             \
                elem(ptr, cx);                                                \
            }                                                                 \
            return;                                                           \
        }                                                                     \
        for (; i < n; i += step) {                                            \
            int64_t off[NARGS];                                               \
            ct_k_offsets(&p, NARGS, i, off);                                  \
            for (int a = 0; a < NARGS; a++) {                                 \
                ptr[a] = p.data[a] + off[a];                                  \
            }                                                                 \
            elem(ptr, cx);                                                    \
        }                                                                     \
    }

/* Queue kernel over the n elements of p with argument cx on stream (NULL:
 * the legacy default stream) of the current device.  Blocks: one per
 * CT_CUDA_THREADS elements, at most a full device's worth of resident
 * threads (2048 per multiprocessor on sm_80 and sm_90); the grid-stride
 * loop covers the rest.  Nothing is launched for n == 0.  Returns the
 * launch's error (cudaGetLastError), cudaSuccess when queued. */
static inline cudaError_t
ct_cuda_launch(ct_cuda_kernel kernel, ct_k_pack p, int64_t n, ct_cuda_ctx cx,
               void *stream)
{
    int device, sms;
    if (n == 0) {
        return cudaSuccess;
    }
    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) {
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return e;
    }
    int64_t want = (n + CT_CUDA_THREADS - 1) / CT_CUDA_THREADS;
    int64_t most = (int64_t)sms * (2048 / CT_CUDA_THREADS);
    dim3 grid((unsigned)(want < most ? want : most)), block(CT_CUDA_THREADS);
    void *args[] = {&p, &n, &cx};
    e = cudaLaunchKernel((const void *)kernel, grid, block, args, 0,
                         (cudaStream_t)stream);
    return e != cudaSuccess ? e : cudaGetLastError();
}

#endif
