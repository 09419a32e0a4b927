/* aten/cuda/cuda_impl.h -- the device kernels' entry points, shared with
 * c10/cuda/runtime.c (which puts them in the backend table).
 *
 * Each queues its kernel on `stream` (NULL: the legacy default stream) of
 * the current device, which the caller has set, and returns once queued:
 * cudaSuccess, or the CUDA error (the caller turns it into ctorch's).
 * Operands are ct_cuda_views as c10/cuda/backend.h describes them; views
 * the kernels cannot take (a dtype outside CT_FORALL_NUMERIC_DTYPES, an op
 * the dtype lacks (ct_cuda_supports), an output dtype other than the op's,
 * sizes that differ) give cudaErrorInvalidValue.
 * Zero-element views launch nothing.
 */
#ifndef CTORCH_ATEN_CUDA_CUDA_IMPL_H
#define CTORCH_ATEN_CUDA_CUDA_IMPL_H

#include <cuda_runtime.h>

/* backend.h is C: ct_cuda_supports (aten/cuda/supports.c) keeps C linkage */
#ifdef __cplusplus
extern "C" {
#endif

#include "c10/cuda/backend.h"

/* dst = src converted to dst's dtype (aten/cuda/copy_fill.cu) */
cudaError_t ct__cuda_copy(void *stream, const ct_cuda_view *dst,
                          const ct_cuda_view *src);
/* every element of dst = the value (aten/cuda/copy_fill.cu) */
cudaError_t ct__cuda_fill(void *stream, const ct_cuda_view *dst, double fval,
                          int64_t ival);
/* out = cond ? a : b (aten/cuda/copy_fill.cu) */
cudaError_t ct__cuda_where(void *stream, const ct_cuda_view *out, const ct_cuda_view *cond,
                           const ct_cuda_view *a, const ct_cuda_view *b);
/* out = a op b, alpha scaling b for ADD and SUB (aten/cuda/binary.cu) */
cudaError_t ct__cuda_binary(void *stream, ct_binary_op op, const ct_cuda_view *out,
                            const ct_cuda_view *a, const ct_cuda_view *b,
                            double falpha, int64_t ialpha);
/* out = op(in) (aten/cuda/unary.cu) */
cudaError_t ct__cuda_unary(void *stream, ct_unary_op op, const ct_cuda_view *out,
                           const ct_cuda_view *in);
/* out = op over in's trailing dims (aten/cuda/reduce.cu) */
cudaError_t ct__cuda_reduce(void *stream, ct_cuda_reduce_op op, const ct_cuda_view *out,
                            const ct_cuda_view *in);
/* out = in gathered along dim by index (aten/cuda/index.cu) */
cudaError_t ct__cuda_gather(void *stream, const ct_cuda_view *out, const ct_cuda_view *in,
                            const ct_cuda_view *index, int dim);
/* self[index along dim] += src, atomically (aten/cuda/index.cu) */
cudaError_t ct__cuda_scatter_add(void *stream, const ct_cuda_view *self,
                                 const ct_cuda_view *index, const ct_cuda_view *src, int dim);
/* self[index along dim] = src (aten/cuda/index.cu) */
cudaError_t ct__cuda_scatter(void *stream, const ct_cuda_view *self, const ct_cuda_view *index,
                             const ct_cuda_view *src, int dim);
/* out's elements drawn from op's distribution (aten/cuda/random.cu) */
cudaError_t ct__cuda_random(void *stream, ct_cuda_random_op op, const ct_cuda_view *out,
                            const ct_cuda_random_args *args);
/* out = activation op of x, or grad times its derivative of order
 * (aten/cuda/activation.cu) */
cudaError_t ct__cuda_activation(void *stream, int op, int order, const ct_cuda_view *out,
                                const ct_cuda_view *grad, const ct_cuda_view *x,
                                const double *p);

#ifdef __cplusplus
}
#endif

#endif
