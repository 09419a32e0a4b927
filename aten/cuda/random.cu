/* aten/cuda/random.cu -- the `random` kernel: PyTorch's grid-stride loop
 * of its CUDA distribution kernels (Note [Device random streams] in
 * random_math.h).  Thread t takes its Philox blocks one after another and
 * writes each block's values to elements t + (round * u + slot) * threads;
 * the values are random_math.h's, which the pretend device also runs.
 * POISSON instead takes element i per thread of a grid-stride loop, each
 * from its own subsequence (Note [Device Poisson draws]). */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"
#include "aten/cuda/random_math.h"

/* The address of the output's element i (memory order). */
static __device__ __forceinline__ char *
element(const ct_k_pack *p, int64_t i)
{
    if (p->linear) {
        return p->data[0] + i * p->step[0];
    }
    int64_t off;
    ct_k_offsets(p, 1, i, &off);
    return p->data[0] + off;
}

static __global__ void __launch_bounds__(CT_CUDA_THREADS)
random_kernel(ct_k_pack p, int64_t n, ct_cuda_random_op op, ct_dtype dtype,
              ct_cuda_random_args g)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t threads = g.threads;
    if (op == CT_CUDA_RANDOM_POISSON) {
        /* per element, in place (Note [Device Poisson draws]) */
        for (int64_t i = t; i < n; i += threads) {
            ct_k_poisson_store(dtype, &g, (uint64_t)i, element(&p, i));
        }
        return;
    }
    const int unroll = ct_cuda_random_wide(op, dtype, g.range) ? 2 : 4;
    for (int64_t round = 0; t + round * unroll * threads < n; round++) {
        ct_k_words b = ct_k_philox_block(g.seed, g.offset, (uint64_t)t, (uint64_t)round);
        for (int slot = 0; slot < unroll; slot++) {
            int64_t i = t + (round * unroll + slot) * threads;
            if (i >= n) {
                break;
            }
            ct_k_random_store(op, dtype, &g, b, slot, element(&p, i));
        }
    }
}

cudaError_t
ct__cuda_random(void *stream, ct_cuda_random_op op, const ct_cuda_view *out,
                const ct_cuda_random_args *args)
{
    ct_k_pack p;
    const ct_cuda_view *views[1] = {out};
    int64_t n = ct_k_pack_views(&p, 1, views);
    if (n < 0 || args->threads <= 0 || args->threads % CT_CUDA_THREADS != 0) {
        return cudaErrorInvalidValue;
    }
    if (n == 0) {
        return cudaSuccess;
    }
    dim3 grid((unsigned)(args->threads / CT_CUDA_THREADS)), block(CT_CUDA_THREADS);
    random_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(p, n, op, out->dtype, *args);
    return cudaGetLastError();
}
