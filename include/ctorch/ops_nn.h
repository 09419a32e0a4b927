/* ctorch/ops_nn.h -- the kernels of torch.nn's losses, normalization layers
 * and embedding (aten/cpu/loss.c, norm_layers.c, embedding.c).
 *
 * Conventions of ops.h: results are NEW references (or NULL with the ct
 * error set); tensor arguments are borrowed, optional ones may be NULL.
 * Several-result ops store new references through their pointer arguments
 * and return 0, or -1 with all of them left NULL.  Messages follow
 * PyTorch 1.13.  These are the plain kernels: they never record autograd
 * history (the ctag_ forms in autograd_nn.h do).
 *
 * Numerics: floating dtypes only (float32, float64, and float16 /
 * bfloat16 computing in float).  Elementwise values are computed in the
 * dtype's compute type, as torch does; sums, means and variances
 * accumulate in double, so a float32 result agrees with torch's to its
 * last bit or two.
 *
 * Thread-safety: no shared state; large inputs are split across the pool
 * of aten/parallel.h.
 */
#ifndef CTORCH_OPS_NN_H
#define CTORCH_OPS_NN_H

#include "tensor.h"

/* torch's at::Reduction numbering (F._Reduction.get_enum). */
typedef enum {
    CT_REDUCTION_NONE,
    CT_REDUCTION_MEAN,
    CT_REDUCTION_SUM,
} ct_reduction;

/* --- pointwise losses (loss.c) ----------------------------------------- */
/* X(ENUM, torch name, name of torch's CPU kernel in "not implemented"
 * messages) */
#define CT_FORALL_PLOSS(X)                                                   \
    X(CT_PLOSS_MSE, "mse_loss", "mse_cpu")                                   \
    X(CT_PLOSS_SMOOTH_L1, "smooth_l1_loss", "smooth_l1_cpu")                 \
    X(CT_PLOSS_HUBER, "huber_loss", "huber_cpu")                             \
    X(CT_PLOSS_BCE, "binary_cross_entropy", "binary_cross_entropy")          \
    X(CT_PLOSS_BCE_LOGITS, "binary_cross_entropy_with_logits",               \
      "binary_cross_entropy_with_logits")

typedef enum {
#define X(E, N, K) E,
    CT_FORALL_PLOSS(X)
#undef X
    CT_PLOSS_COUNT
} ct_ploss_op;

extern const char *const ct_ploss_names[CT_PLOSS_COUNT];

/* What some losses take besides input and target. */
typedef struct {
    const ct_tensor *weight;        /* BCE and BCE with logits; NULL: none */
    const ct_tensor *pos_weight;    /* BCE with logits; NULL: none */
    double param;                   /* smooth_l1's beta, huber's delta */
} ct_ploss_args;

/* The loss of input against target (both broadcast to their common
 * shape, and weight / pos_weight broadcast to it too), reduced.
 * mse / smooth_l1 / huber compute in the promoted dtype of input and
 * target; the BCE losses need target (and weights) of input's dtype. */
ct_tensor *ct_pointwise_loss(ct_ploss_op op, const ct_tensor *input,
                             const ct_tensor *target, const ct_ploss_args *args,
                             ct_reduction reduction);
/* The gradient of that loss with respect to input (wrt_target false) or
 * target, for grad the gradient of the loss (0-dim for mean / sum,
 * broadcast otherwise); shaped like the loss before reduction. */
ct_tensor *ct_pointwise_loss_backward(ct_ploss_op op, const ct_tensor *grad,
                                      const ct_tensor *input, const ct_tensor *target,
                                      const ct_ploss_args *args, ct_reduction reduction,
                                      bool wrt_target);

/* --- negative log likelihood (loss.c) ------------------------------------ */
/* nll_loss: input (C) with a 0-dim target, or (N, C) with target (N);
 * nll_loss2d: input (N, C, H, W), target (N, H, W).  target int64 (and
 * uint8 for nll_loss, as in torch); weight (C) of input's dtype or NULL.
 * Entries equal to ignore_index count for nothing.  *output: the loss,
 * the per-element losses for CT_REDUCTION_NONE; *total_weight: the sum of
 * the weights of the counted targets (0-dim), the divisor of the mean. */
int ct_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
                ct_reduction reduction, int64_t ignore_index, ct_tensor **output,
                ct_tensor **total_weight);
int ct_nll_loss2d(const ct_tensor *input, const ct_tensor *target,
                  const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index,
                  ct_tensor **output, ct_tensor **total_weight);
/* The gradient with respect to input of either (input 1-, 2- or 4-D). */
ct_tensor *ct_nll_loss_backward(const ct_tensor *grad, const ct_tensor *input,
                                const ct_tensor *target, const ct_tensor *weight,
                                ct_reduction reduction, int64_t ignore_index,
                                const ct_tensor *total_weight);

/* --- normalization layers (norm_layers.c) -------------------------------- */
/* native_batch_norm over input (N, C, *): per channel, the batch's mean
 * and biased variance when training (then running_mean / running_var, if
 * given, move towards the batch's mean and unbiased variance by
 * momentum, in place), the running statistics otherwise.  *save_mean /
 * *save_invstd: the batch's mean and 1 / sqrt(var + eps) when training,
 * empty tensors otherwise (as torch's CPU kernel).  weight / bias (C) may
 * be NULL. */
int ct_native_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                         const ct_tensor *bias, ct_tensor *running_mean,
                         ct_tensor *running_var, bool training, double momentum,
                         double eps, ct_tensor **out, ct_tensor **save_mean,
                         ct_tensor **save_invstd);
/* Its gradients; mask[k] says which of input, weight, bias are wanted
 * (the others are left NULL).  A missing weight counts as ones. */
int ct_native_batch_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                  const ct_tensor *weight, const ct_tensor *running_mean,
                                  const ct_tensor *running_var,
                                  const ct_tensor *save_mean,
                                  const ct_tensor *save_invstd, bool training,
                                  double eps, const bool mask[3], ct_tensor **grad_input,
                                  ct_tensor **grad_weight, ct_tensor **grad_bias);

/* native_layer_norm over the last nshape dims of input, which must be
 * normalized_shape; weight / bias shaped normalized_shape or NULL.  *mean
 * and *rstd are shaped input.shape[:-nshape] + [1] * nshape. */
int ct_native_layer_norm(const ct_tensor *input, int nshape,
                         const int64_t *normalized_shape, const ct_tensor *weight,
                         const ct_tensor *bias, double eps, ct_tensor **out,
                         ct_tensor **mean, ct_tensor **rstd);
int ct_native_layer_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                  int nshape, const int64_t *normalized_shape,
                                  const ct_tensor *mean, const ct_tensor *rstd,
                                  const ct_tensor *weight, const bool mask[3],
                                  ct_tensor **grad_input, ct_tensor **grad_weight,
                                  ct_tensor **grad_bias);

/* native_group_norm over input (N, C, *) in `group` groups of channels;
 * weight / bias (C) or NULL.  *mean and *rstd are (N, group). */
int ct_native_group_norm(const ct_tensor *input, const ct_tensor *weight,
                         const ct_tensor *bias, int64_t group, double eps,
                         ct_tensor **out, ct_tensor **mean, ct_tensor **rstd);
int ct_native_group_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                  const ct_tensor *mean, const ct_tensor *rstd,
                                  const ct_tensor *weight, int64_t group,
                                  const bool mask[3], ct_tensor **grad_input,
                                  ct_tensor **grad_weight, ct_tensor **grad_bias);

/* --- embedding (embedding.c) --------------------------------------------- */
/* The rows of weight (2-D) that indices (int64 or int32, any shape)
 * name: shaped indices.shape + [weight.size(1)]. */
ct_tensor *ct_embedding(const ct_tensor *weight, const ct_tensor *indices);
/* Its gradient: grad's rows summed into a (num_weights, D) tensor, the
 * row padding_idx left zero (padding_idx < 0: none), each row divided by
 * how often its index occurs when scale_grad_by_freq. */
ct_tensor *ct_embedding_dense_backward(const ct_tensor *grad, const ct_tensor *indices,
                                       int64_t num_weights, int64_t padding_idx,
                                       bool scale_grad_by_freq);
/* In place: each row of weight that indices name and whose norm_type-norm
 * exceeds max_norm is scaled to max_norm (torch's embedding_renorm_). */
int ct_embedding_renorm_(ct_tensor *weight, const ct_tensor *indices, double max_norm,
                         double norm_type);

#endif
