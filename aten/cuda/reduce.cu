/* aten/cuda/reduce.cu -- sum, prod, amax, amin, argmax, argmin, any and all
 * over the trailing dims of the input (c10/cuda/backend.h's `reduce`).
 *
 * One kernel for every op and dtype: it reads elements through ct_k_read
 * (a switch on the input dtype) and folds them with reduce_math.h's steps,
 * which switch on the op; the branches are the same for every thread, and
 * the loop is bound by memory, not by them.  Each output is reduced by a
 * group of `lanes` threads of a block of CT_CUDA_THREADS: lane l folds
 * reduced positions l, l + lanes, ... in order, then the group's states
 * merge pairwise in shared memory (lane l takes lane l + w for w = lanes /
 * 2, ..., 1).  Few reduced elements get a thread per output, many a whole
 * block (note the float sums' rounding depends on that order; the host
 * test replays it).  Indices are 64-bit throughout.
 */
#include "aten/cuda/cuda_impl.h"
#include "aten/cuda/loops.cuh"
#include "aten/cuda/reduce_math.h"

static_assert(CT_CUDA_THREADS == 256, "ct_k_reduce_lanes' block is CT_CUDA_THREADS");

/* The launch's parameters: outer packs out and the input's kept dims
 * (operands 0 and 1), inner the input's reduced dims. */
typedef struct {
    ct_k_pack outer, inner;
    int64_t m, r;   /* outputs, reduced elements per output */
    int lanes;      /* threads per output: 1, 32 or CT_CUDA_THREADS */
    ct_cuda_reduce_op op;
    ct_k_acc_kind kind;
    ct_dtype in, out;
} reduce_args;

static __global__ void __launch_bounds__(CT_CUDA_THREADS)
reduce_kernel(reduce_args a)
{
    __shared__ ct_k_rstate sh[CT_CUDA_THREADS];
    const int t = threadIdx.x, lane = t % a.lanes;
    const int64_t groups = CT_CUDA_THREADS / a.lanes;
    /* every thread of the block runs the same iterations (the barriers) */
    for (int64_t base = (int64_t)blockIdx.x * groups; base < a.m;
         base += (int64_t)gridDim.x * groups) {
        int64_t o = base + t / a.lanes, off[2] = {0, 0};
        ct_k_rstate s = ct_k_reduce_init(a.op);
        if (o < a.m) {
            if (a.outer.linear) {
                off[0] = o * a.outer.step[0];
                off[1] = o * a.outer.step[1];
            }
            else {
                ct_k_offsets(&a.outer, 2, o, off);
            }
            const char *in = a.outer.data[1] + off[1];
            for (int64_t j = lane; j < a.r; j += a.lanes) {
                int64_t q;
                if (a.inner.linear) {
                    q = j * a.inner.step[0];
                }
                else {
                    ct_k_offsets(&a.inner, 1, j, &q);
                }
                s = ct_k_reduce_step(a.op, a.kind, s, ct_k_read(a.in, in + q), j);
            }
        }
        sh[t] = s;
        __syncthreads();
        for (int w = a.lanes / 2; w > 0; w /= 2) {
            if (lane < w) {
                sh[t] = ct_k_reduce_merge(a.op, a.kind, sh[t], sh[t + w]);
            }
            __syncthreads();
        }
        if (lane == 0 && o < a.m) {
            ct_k_reduce_write(a.op, a.kind, a.out, a.outer.data[0] + off[0], sh[t]);
        }
        __syncthreads();   /* sh is rewritten by the next iteration */
    }
}

/* The view of dims [from, to) of v. */
static ct_cuda_view
dims_of(const ct_cuda_view *v, int from, int to)
{
    ct_cuda_view s = *v;
    s.ndim = to - from;
    for (int d = from; d < to; d++) {
        s.sizes[d - from] = v->sizes[d];
        s.strides[d - from] = v->strides[d];
    }
    return s;
}

/* out is op's output dtype for input dtype in (backend.h) */
static bool
out_dtype_ok(ct_cuda_reduce_op op, ct_dtype in, ct_dtype out)
{
    switch (op) {
    case CT_CUDA_REDUCE_AMAX:
    case CT_CUDA_REDUCE_AMIN:
        return out == in;
    case CT_CUDA_REDUCE_ARGMAX:
    case CT_CUDA_REDUCE_ARGMIN:
        return out == CT_DTYPE_INT64;
    case CT_CUDA_REDUCE_ANY:
    case CT_CUDA_REDUCE_ALL:
        return out == CT_DTYPE_BOOL || out == CT_DTYPE_UINT8;
    default:
        return ct_k_itemsize(out) != 0;   /* sum and prod: the host's choice */
    }
}

extern "C" cudaError_t
ct__cuda_reduce(void *stream, ct_cuda_reduce_op op, const ct_cuda_view *out,
                const ct_cuda_view *in)
{
    reduce_args a;
    int device, sms;

    if (!ct_cuda_supports(CT_CUDA_REDUCE, op, in->dtype) || in->ndim < out->ndim ||
        !out_dtype_ok(op, in->dtype, out->dtype)) {
        return cudaErrorInvalidValue;
    }
    ct_cuda_view kept = dims_of(in, 0, out->ndim), red = dims_of(in, out->ndim, in->ndim);
    const ct_cuda_view *outer[2] = {out, &kept}, *inner[1] = {&red};
    a.m = ct_k_pack_views(&a.outer, 2, outer);
    a.r = ct_k_pack_views(&a.inner, 1, inner);
    if (a.m < 0 || a.r < 0) {
        return cudaErrorInvalidValue;
    }
    if (a.m == 0) {
        return cudaSuccess;
    }
    a.lanes = ct_k_reduce_lanes(a.r);   /* 1, 32 or CT_CUDA_THREADS */
    a.op = op;
    a.kind = ct_k_reduce_kind(op, in->dtype, out->dtype);
    a.in = in->dtype;
    a.out = out->dtype;

    cudaError_t e = cudaGetDevice(&device);
    if (e == cudaSuccess) {
        e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return e;
    }
    int64_t groups = CT_CUDA_THREADS / a.lanes;
    int64_t want = (a.m + groups - 1) / groups;
    int64_t most = (int64_t)sms * (2048 / CT_CUDA_THREADS);
    dim3 grid((unsigned)(want < most ? want : most)), block(CT_CUDA_THREADS);
    void *args[] = {&a};
    e = cudaLaunchKernel((const void *)reduce_kernel, grid, block, args, 0,
                         (cudaStream_t)stream);
    return e != cudaSuccess ? e : cudaGetLastError();
}
