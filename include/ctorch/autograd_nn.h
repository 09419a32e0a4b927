/* ctorch/autograd_nn.h -- the differentiable losses, normalization layers
 * and embedding of torch.nn (csrc/autograd/functions_nn.c).
 *
 * Each records the node PyTorch records (MseLossBackward0,
 * NllLossBackward0, NativeBatchNormBackward0, EmbeddingBackward0, ...)
 * over the kernels of ops_nn.h; composite ops (cross_entropy_loss,
 * nll_loss_nd, batch_norm) are built from other ctag_ ops exactly as
 * torch composes them, so their graphs have torch's nodes.  A backward
 * runs the fused kernels, or, under create_graph, the same formula
 * written with ctag_ ops (so it can be differentiated again).
 *
 * Same conventions as autograd.h: new references or NULL / -1 with the ct
 * error set; optional tensors may be NULL.
 */
#ifndef CTORCH_AUTOGRAD_NN_H
#define CTORCH_AUTOGRAD_NN_H

#include "ops_nn.h"
#include "tensor.h"

/* --- losses --------------------------------------------------------------- */
ct_tensor *ctag_pointwise_loss(ct_ploss_op op, const ct_tensor *input,
                               const ct_tensor *target, const ct_ploss_args *args,
                               ct_reduction reduction);
/* NllLossBackward0 / NllLoss2DBackward0 over ct_nll_loss / ct_nll_loss2d. */
ct_tensor *ctag_nll_loss(const ct_tensor *input, const ct_tensor *target,
                         const ct_tensor *weight, ct_reduction reduction,
                         int64_t ignore_index);
ct_tensor *ctag_nll_loss2d(const ct_tensor *input, const ct_tensor *target,
                           const ct_tensor *weight, ct_reduction reduction,
                           int64_t ignore_index);
/* torch's nll_loss_nd: nll_loss for 1-D / 2-D input, nll_loss2d for 4-D,
 * other ranks viewed as (N, C, 1, -1) for nll_loss2d. */
ct_tensor *ctag_nll_loss_nd(const ct_tensor *input, const ct_tensor *target,
                            const ct_tensor *weight, ct_reduction reduction,
                            int64_t ignore_index);
/* torch's cross_entropy_loss: class indices (log_softmax + nll_loss_nd,
 * with label smoothing as torch composes it) or class probabilities
 * (a target shaped like input). */
ct_tensor *ctag_cross_entropy_loss(const ct_tensor *input, const ct_tensor *target,
                                   const ct_tensor *weight, ct_reduction reduction,
                                   int64_t ignore_index, double label_smoothing);
/* torch.kl_div (composed of tensor ops, as in torch). */
ct_tensor *ctag_kl_div(const ct_tensor *input, const ct_tensor *target,
                       ct_reduction reduction, bool log_target);

/* --- normalization -------------------------------------------------------- */
/* native_batch_norm with NativeBatchNormBackward0 (edges: input, weight,
 * bias); *save_mean / *save_invstd may be NULL when not wanted. */
ct_tensor *ctag_native_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                                  const ct_tensor *bias, ct_tensor *running_mean,
                                  ct_tensor *running_var, bool training,
                                  double momentum, double eps, ct_tensor **save_mean,
                                  ct_tensor **save_invstd);
/* torch.batch_norm: its checks, then native_batch_norm (an empty input
 * gives an empty output). */
ct_tensor *ctag_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                           const ct_tensor *bias, ct_tensor *running_mean,
                           ct_tensor *running_var, bool training, double momentum,
                           double eps);
ct_tensor *ctag_native_layer_norm(const ct_tensor *input, int nshape,
                                  const int64_t *normalized_shape,
                                  const ct_tensor *weight, const ct_tensor *bias,
                                  double eps, ct_tensor **mean, ct_tensor **rstd);
ct_tensor *ctag_native_group_norm(const ct_tensor *input, const ct_tensor *weight,
                                  const ct_tensor *bias, int64_t group, double eps,
                                  ct_tensor **mean, ct_tensor **rstd);
/* torch.group_norm: its checks, then native_group_norm. */
ct_tensor *ctag_group_norm(const ct_tensor *input, int64_t num_groups,
                           const ct_tensor *weight, const ct_tensor *bias, double eps);

/* --- embedding ------------------------------------------------------------ */
/* EmbeddingBackward0 (edge: weight). */
ct_tensor *ctag_embedding(const ct_tensor *weight, const ct_tensor *indices,
                          int64_t padding_idx, bool scale_grad_by_freq);

#endif
