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
/* d as PyTorch prints it in messages ("cpu", "cuda:0") into buf. */
const char *ct__device_text(ct_device d, char *buf, size_t n);

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
/* out = activation op of x (order 0), or grad times its first (1) or
 * second (2) derivative at x (the `activation` kernel); one floating dtype
 * and out's shape throughout. */
int ct__device_activation_kernel(ct_act_op op, int order, ct_tensor *out,
                                 const ct_tensor *grad, const ct_tensor *x, const double *p);
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

/* Sample into t on its device: the part's `random` kernel with op and its
 * parameters (ct_cuda_random_args), the Philox seed and offset taken from
 * gen (NULL: the device's default generator), after the caller's checks
 * of the parameters.  -1 with PyTorch's error for a generator of another
 * device type. */
int ct__device_random(ct_tensor *t, ct_generator *gen, ct_cuda_random_op op, double a,
                      double b, uint64_t range, int64_t base);

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
 * scatter_add adds src's leading part (index's shape) into self, scatter
 * writes it there (which of several writes to one element lands is not
 * set). */
int ct__device_gather(ct_tensor *out, const ct_tensor *in, const ct_tensor *index, int dim);
int ct__device_scatter_add(ct_tensor *self, const ct_tensor *index, const ct_tensor *src,
                           int dim);
int ct__device_scatter(ct_tensor *self, const ct_tensor *index, const ct_tensor *src, int dim);
/* Whether an integer index on a device has a value outside [lo, hi): one
 * device reduction and one host read into *bad; when it has, *first is the
 * first such value (row-major), read from a host copy.  0, or -1 with the
 * error set. */
int ct__device_index_check(const ct_tensor *index, int64_t lo, int64_t hi, bool *bad,
                           int64_t *first);

/* aten/device_scan.c: cumsum, cumprod, cummax, cummin of device tensor t
 * along wrapped dim (Note [Log-step scan]), called by ct_scan after its
 * checks: t converted to cdt (cumsum's dtype=), the result of odt;
 * *indices (cummax / cummin, when indices is not NULL) a new int64
 * reference.  A new reference, or NULL with the error set. */
ct_tensor *ct__device_cumulative(ct_scan_op op, const ct_tensor *t, int dim, ct_dtype cdt,
                                 ct_dtype odt, ct_tensor **indices);
/* cumprod's backward for a device x with zeros (no graph): x, its result
 * y and the gradient g (in x's dtype) along wrapped dim. */
ct_tensor *ct__device_cumprod_backward(const ct_tensor *x, const ct_tensor *y,
                                       const ct_tensor *g, int dim);

/* aten/device_select.c: the selections of aten/cpu/index.c on a device
 * (Note [Device compaction]), after their checks; each a new reference or
 * NULL with the error set.  nonzero and masked_select read their count to
 * the host.  masked_select takes t and mask broadcast to (nd, shape);
 * take and index check the index values and raise the CPU's errors.
 * index takes the advanced-indexing plan: idx[d] for each dim of t (NULL:
 * taken whole) expanded to the nb broadcast sizes bsizes, which stand at
 * result dim first of the result's (nd, sizes); CPU index tensors are
 * moved to t's device. */
ct_tensor *ct__device_nonzero(const ct_tensor *t);
ct_tensor *ct__device_masked_select(const ct_tensor *t, const ct_tensor *mask, int nd,
                                    const int64_t *shape);
ct_tensor *ct__device_take(const ct_tensor *t, const ct_tensor *index);
ct_tensor *ct__device_index(const ct_tensor *t, ct_tensor *const *idx, int first, int nb,
                            const int64_t *bsizes, int nd, const int64_t *sizes);
/* index_put_: t[...] = values, or += with accumulate (values in t's
 * dtype, broadcast to the result's sizes), the same plan. */
int ct__device_index_put_(ct_tensor *t, ct_tensor *const *idx, int first, int nb,
                          const int64_t *bsizes, int nd, const int64_t *sizes,
                          const ct_tensor *values, bool accumulate);

/* aten/device_reduce.c: reductions composed of device kernels, called by
 * ct_reduce after its checks with in in the dtype it computes in, mask the
 * reduced dims and odt the result dtype.  var (std when take_sqrt) with
 * divisor N - correction (0 when not positive), and when mean is not NULL
 * the mean var_mean returns; logsumexp with the CPU's handling of
 * infinities and NaN. */
ct_tensor *ct__device_var(const ct_tensor *in, const bool *mask, bool keepdim,
                          double correction, bool take_sqrt, ct_dtype odt, ct_tensor **mean);
ct_tensor *ct__device_logsumexp(const ct_tensor *in, const bool *mask, bool keepdim,
                                ct_dtype odt);

/* aten/device_activation.c: hardtanh (op CT_ACT_HARDTANH) or threshold
 * of an integer tensor on its device, in its dtype and shape. */
ct_tensor *ct__device_int_activation(ct_act_op op, const ct_tensor *x, const double *p);

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

/* aten/device_sort.c: sort, topk, kthvalue and median along one dim on a
 * device (Note [Device bitonic sort]), with the CPU's results: stable,
 * ties in input order, NaN the largest value.  The entry points of
 * aten/cpu/sort.c call them after their checks (dim wrapped, k checked);
 * values may be NULL for argsort.  The medians make the CPU's checks
 * themselves (dim not yet wrapped; indices may be NULL); ct__device_median
 * returns a new 0-dim tensor. */
int ct__device_sort(const ct_tensor *t, int dim, bool descending, ct_tensor **values,
                    ct_tensor **indices);
int ct__device_topk(const ct_tensor *t, int64_t k, int dim, bool largest,
                    ct_tensor **values, ct_tensor **indices);
int ct__device_kthvalue(const ct_tensor *t, int64_t k, int dim, bool keepdim,
                        ct_tensor **values, ct_tensor **indices);
int ct__device_median_dim(const ct_tensor *t, int64_t dim, bool keepdim, bool ignore_nan,
                          ct_tensor **values, ct_tensor **indices);
ct_tensor *ct__device_median(const ct_tensor *t, bool ignore_nan);

/* --- sampling on a device --- */
/* aten/device_sampling.c, called by aten/cpu/random_*.c after their checks
 * of the parameters.  ct__device_sample: a per-element sampler (op of the
 * `random` kernel, parameters a and b) into t, or '"<name>" not
 * implemented for '<dtype>'' unless supported (the CPU's table has t's
 * dtype).  ct__device_randperm fills t (1-D, its dtype checked) with a
 * permutation (Note [Device randperm]).  ct__device_multinomial fills
 * result (int64, (k) or (rows, k) on probs' device) with samples drawn
 * with replacement, after the CPU's checks of the probabilities (Note
 * [Device multinomial]).  ct__device_poisson returns a new tensor of
 * Poisson draws over rates (Note [Device Poisson draws]). */
int ct__device_sample(ct_tensor *t, ct_generator *gen, bool supported, const char *name,
                      ct_cuda_random_op op, double a, double b);
int ct__device_randperm(ct_tensor *t, ct_generator *gen);
int ct__device_multinomial(const ct_tensor *probs, int64_t k, ct_tensor *result,
                           ct_generator *gen);
ct_tensor *ct__device_poisson(const ct_tensor *rates, ct_generator *gen);

/* --- counting and searching on a device --- */

/* aten/device_count.c (Note [Device counting]): the ops of
 * aten/cpu/sort_count.c, sort_unique.c and sort_search.c and mode on a
 * device, called by their entry points after the checks that read no
 * data, with their arguments and results.  unique, unique_consecutive and
 * bincount read their result's size to the host (as PyTorch's CUDA ones
 * do); histc takes its final range (the caller read the data's when
 * min == max); searchsorted takes the promoted dtype and checks the
 * devices with PyTorch's messages (a 0-dim CPU value stands as a number);
 * mode takes dim wrapped and the line non-empty (Note [Device mode]). */
int ct__device_unique(const ct_tensor *t, ct_tensor **values, ct_tensor **inverse,
                      ct_tensor **counts);
int ct__device_unique_consecutive(const ct_tensor *t, ct_tensor **values,
                                  ct_tensor **inverse, ct_tensor **counts);
/* unique(dim=) (consecutive: unique_consecutive(dim=)), dim wrapped, t
 * not empty; unique's of a floating t with a NaN or -0.0 runs the CPU's
 * kernel on a host copy (its std::sort leaves their order to libstdc++). */
int ct__device_unique_dim(const ct_tensor *t, int dim, bool consecutive, ct_tensor **values,
                          ct_tensor **inverse, ct_tensor **counts);
ct_tensor *ct__device_bincount(const ct_tensor *t, const ct_tensor *weights,
                               int64_t minlength);
ct_tensor *ct__device_histc(const ct_tensor *t, int64_t bins, double min, double max);
ct_tensor *ct__device_searchsorted(const ct_tensor *seq, const ct_tensor *values,
                                   ct_dtype common, bool out_int32, bool right,
                                   const ct_tensor *sorter);
int ct__device_mode(const ct_tensor *t, int dim, bool keepdim, ct_tensor **values,
                    ct_tensor **indices);

/* --- shape and nn composites on a device --- */

/* aten/device_shape.c: called by the CPU entry points after their checks,
 * each a new reference or NULL with the error set.  triangle: tril (lower)
 * or triu of t (ndim >= 2), contiguous; trace of a matrix t in the CPU's
 * result dtype; nan_to_num of a floating t with its three values chosen;
 * lerp of start and end (one floating dtype) and weight (converted to it),
 * broadcast, Note [lerp on a device]. */
ct_tensor *ct__device_triangle(const ct_tensor *t, int64_t diagonal, bool lower);
ct_tensor *ct__device_trace(const ct_tensor *t);
ct_tensor *ct__device_nan_to_num(const ct_tensor *t, double nan, double posinf,
                                 double neginf);
ct_tensor *ct__device_lerp(const ct_tensor *start, const ct_tensor *end,
                           const ct_tensor *weight);

#endif
