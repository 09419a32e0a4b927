/* aten/device.h -- the host's half of ops on device tensors (device.c).
 * The CPU ops branch here when an operand lives on a CUDA device. */
#ifndef CTORCH_ATEN_DEVICE_H
#define CTORCH_ATEN_DEVICE_H

#include <ctorch/ctorch.h>

#include "c10/cuda/backend.h"

static inline bool
ct__is_device(const ct_tensor *t)
{
    return t != NULL && ct_tensor_device(t).type != CT_DEVICE_CPU;
}

/* -1 with the NotImplementedError of an op that has no kernel for t's
 * device; CPU kernels call it before touching a device tensor's data. */
int ct__no_device_kernel(const ct_tensor *t);

/* 0, or -1 with ct__no_device_kernel's error when one of ts[0..n-1]
 * (NULLs skipped) lives on a device: the entry check of CPU-only ops. */
int ct__host_only(const ct_tensor *const *ts, int n);

/* 0, or -1 with PyTorch's two-devices error unless every one of
 * ts[0..n-1] (NULLs skipped) is on one device. */
int ct__same_device(const ct_tensor *const *ts, int n);
/* 0, or -1 with PyTorch's two-devices error when t is not on dev. */
int ct__check_device(ct_device dev, const ct_tensor *t);

/* ct_copy_ with a device on either side, after its shape and dtype
 * checks, for numel > 0. */
int ct__device_copy_(ct_tensor *dst, const ct_tensor *src);
/* ct_fill_ of a device tensor, after its checks. */
int ct__device_fill_(ct_tensor *t, ct_scalar value);
/* The device an op runs on: the first device among ts[0..n-1] (NULLs
 * skipped; ts[0..nout-1] are outputs), every other tensor there too except
 * 0-dim CPU inputs, which stand as numbers (PyTorch's TensorIterator
 * rule); CPU when all are.  0, or -1 with PyTorch's two-devices error. */
int ct__op_device(int n, int nout, const ct_tensor *const *ts, ct_device *dev);
/* 0 when the CUDA part has a kernel of family for op on dtype, else -1
 * with ct__no_device_kernel(t)'s error. */
int ct__device_supports(ct_cuda_family family, int op, ct_dtype dtype, const ct_tensor *t);

/* The kernels, on out's device and its current stream; operands already
 * there, in the kernel's dtypes, inputs broadcast to out's shape. */
int ct__device_binary(ct_binary_op op, ct_tensor *out, const ct_tensor *a, const ct_tensor *b,
                      ct_scalar alpha);
int ct__device_unary(ct_unary_op op, ct_tensor *out, const ct_tensor *in);
/* out = cond ? a : b; a and b in out's dtype, cond bool or uint8. */
int ct__device_where(ct_tensor *out, const ct_tensor *cond, const ct_tensor *a,
                     const ct_tensor *b);
/* out (contiguous, nkept dims of in's sizes, or those with 1s between)
 * = op over in's dims after the first nkept (c10/cuda/backend.h). */
int ct__device_reduce(ct_cuda_reduce_op op, ct_tensor *out, int nkept, const ct_tensor *in);
/* The part's gemm (c10/cuda/backend.h) on c's device and stream. */
int ct__device_gemm(const ct_tensor *c, ct_dtype dtype, bool trans_a, bool trans_b, int64_t m,
                    int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                    int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b,
                    double beta, void *cdata, int64_t ldc, int64_t stride_c, int64_t batch);

/* aten/device_nn.c: composites of device kernels, called by the CPU
 * entry points after their checks.  softmax / log_softmax of t along the
 * wrapped dim (t already in the result dtype) and its backward. */
ct_tensor *ct__device_softmax(const ct_tensor *t, int dim, bool log);
ct_tensor *ct__device_softmax_backward(const ct_tensor *grad, const ct_tensor *output,
                                       int dim, bool log);
/* ct_nll_loss / ct_nll_loss2d and ct_nll_loss_backward, input (C), (N, C)
 * or (N, C, H, W) with its class dim at 1 (0 for (C)). */
int ct__device_nll_loss(const ct_tensor *input, const ct_tensor *target,
                        const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index,
                        ct_tensor **output, ct_tensor **total_weight);
ct_tensor *ct__device_nll_loss_backward(const ct_tensor *grad, const ct_tensor *input,
                                        const ct_tensor *target, const ct_tensor *weight,
                                        ct_reduction reduction, int64_t ignore_index,
                                        const ct_tensor *total_weight);

/* aten/device_norm.c: batch / layer / group norm on a device, called by
 * the entry points of aten/cpu/norm_layers.c after their checks, with
 * their arguments and results (include/ctorch/ops_nn.h); each first checks
 * that its operands share one device. */
int ct__device_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                          const ct_tensor *bias, ct_tensor *running_mean,
                          ct_tensor *running_var, bool training, double momentum,
                          double eps, ct_tensor **out, ct_tensor **save_mean,
                          ct_tensor **save_invstd);
int ct__device_batch_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                   const ct_tensor *weight, const ct_tensor *running_mean,
                                   const ct_tensor *running_var, const ct_tensor *save_mean,
                                   const ct_tensor *save_invstd, bool training, double eps,
                                   const bool mask[3], ct_tensor **grad_input,
                                   ct_tensor **grad_weight, ct_tensor **grad_bias);
/* (layer norm over input's last nshape dims, checked against the
 * normalized shape by the caller) */
int ct__device_layer_norm(const ct_tensor *input, int nshape, const ct_tensor *weight,
                          const ct_tensor *bias, double eps, ct_tensor **out,
                          ct_tensor **mean, ct_tensor **rstd);
int ct__device_layer_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                   int nshape, const int64_t *normalized_shape,
                                   const ct_tensor *mean, const ct_tensor *rstd,
                                   const ct_tensor *weight, const bool mask[3],
                                   ct_tensor **grad_input, ct_tensor **grad_weight,
                                   ct_tensor **grad_bias);
int ct__device_group_norm(const ct_tensor *input, const ct_tensor *weight,
                          const ct_tensor *bias, int64_t group, double eps, ct_tensor **out,
                          ct_tensor **mean, ct_tensor **rstd);
int ct__device_group_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                   const ct_tensor *mean, const ct_tensor *rstd,
                                   const ct_tensor *weight, int64_t group, const bool mask[3],
                                   ct_tensor **grad_input, ct_tensor **grad_weight,
                                   ct_tensor **grad_bias);

/* The indexing kernels (c10/cuda/backend.h) on the first operand's device
 * and current stream, dim already wrapped, index int64, operands on one
 * device and shaped as the table says (a 0-dim one counts as one dim of
 * size 1), indices checked.  gather fills out (index's shape) from in;
 * scatter_add adds src's leading part (index's shape) into self. */
int ct__device_gather(ct_tensor *out, const ct_tensor *in, const ct_tensor *index, int dim);
int ct__device_scatter_add(ct_tensor *self, const ct_tensor *index, const ct_tensor *src,
                           int dim);
/* Whether an integer index on a device has a value outside [lo, hi): one
 * device reduction and one host read into *bad; when it has, *first is the
 * first such value (row-major), read from a host copy.  0, or -1 with the
 * error set. */
int ct__device_index_check(const ct_tensor *index, int64_t lo, int64_t hi, bool *bad,
                           int64_t *first);

/* aten/device_pool.c: 2-d pooling on a device, called by the entry points
 * of aten/cpu/pool.c after their checks, with their arguments; (oh, ow)
 * is the output size they computed.  Inputs [C, H, W] or [N, C, H, W];
 * float16 is taken too (PyTorch's CUDA pools take it).  The backwards of
 * avg_pool2d and adaptive_avg_pool2d read only input's shape (autograd
 * passes a CPU tensor of it); max's checks that its operands share one
 * device and raises scatter's IndexError for an index outside the plane. */
int ct__device_max_pool2d(const ct_tensor *input, const ct_pool_params *p, int64_t oh,
                          int64_t ow, ct_tensor **out, ct_tensor **indices);
int ct__device_adaptive_max_pool2d(const ct_tensor *input, int64_t oh, int64_t ow,
                                   ct_tensor **out, ct_tensor **indices);
ct_tensor *ct__device_max_pool_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                        const ct_tensor *indices);
ct_tensor *ct__device_avg_pool2d(const ct_tensor *input, const ct_pool_params *p,
                                 int64_t oh, int64_t ow);
ct_tensor *ct__device_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                          const ct_pool_params *p);
ct_tensor *ct__device_adaptive_avg_pool2d(const ct_tensor *input, int64_t oh, int64_t ow);
ct_tensor *ct__device_adaptive_avg_pool2d_backward(const ct_tensor *grad_out,
                                                   const ct_tensor *input);

#endif
