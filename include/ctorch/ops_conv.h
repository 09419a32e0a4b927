/* ctorch/ops_conv.h -- convolution, pooling, sliding blocks and
 * upsampling (aten/cpu/conv.c, conv_unfold.c, pool.c, conv_upsample.c).
 *
 * Conventions of ops.h: results are NEW references (or NULL with the ct
 * error set); tensor arguments are borrowed.  Two-result ops store new
 * references in their out pointers and return 0, or -1 with them NULL.
 * Inputs may have any strides (they are made contiguous first); results
 * are contiguous.  Inputs are batched: [N, C, *spatial] with one or two
 * spatial dims (the unbatched forms are the bindings' unsqueeze /
 * squeeze, as in torch).  Messages follow PyTorch 1.13.
 *
 * dtypes: convolution takes the integral types, float32, float64 and
 * bfloat16 (float32 / float64 run on OpenBLAS's gemm, the others on typed
 * loops); max and adaptive pooling and upsampling take the floating types
 * but float16; avg_pool2d also the integral ones.  On a CUDA device the
 * pools (aten/device_pool.c) take float16 too and avg_pool2d no integral
 * type, as PyTorch's CUDA pools.
 *
 * Thread-safety: none needed; large inputs are split across the pool of
 * aten/parallel.h by samples or planes.
 */
#ifndef CTORCH_OPS_CONV_H
#define CTORCH_OPS_CONV_H

#include "tensor.h"

/* The parameters of torch.convolution for nsp (1 or 2) spatial dims. */
typedef struct {
    int nsp;
    int64_t stride[2];
    int64_t padding[2];
    int64_t dilation[2];
    int64_t output_padding[2];  /* transposed only */
    bool transposed;
    int64_t groups;
} ct_conv_params;

/* torch.convolution: input [N, Cin, *in], weight [Cout, Cin / groups, *k]
 * ([Cin, Cout / groups, *k] when transposed), bias NULL or [Cout]. */
ct_tensor *ct_convolution(const ct_tensor *input, const ct_tensor *weight,
                          const ct_tensor *bias, const ct_conv_params *p);
/* The gradients of ct_convolution for the entries of mask that are set
 * (grad_input, grad_weight, grad_bias); the others are left NULL. */
int ct_convolution_backward(const ct_tensor *grad_out, const ct_tensor *input,
                            const ct_tensor *weight, const ct_conv_params *p,
                            const bool mask[3], ct_tensor **grad_input,
                            ct_tensor **grad_weight, ct_tensor **grad_bias);

/* Sliding blocks (F.unfold / F.fold, 2 spatial dims): im2col turns
 * [N, C, H, W] into [N, C * kh * kw, L]; col2im sums [N, C * kh * kw, L]
 * back into [N, C, out_h, out_w].  Unbatched ([C, H, W] / [C * k, L])
 * inputs give unbatched results.  Params: {kh, kw}, {dh, dw}, {ph, pw},
 * {sh, sw}. */
ct_tensor *ct_im2col(const ct_tensor *input, const int64_t *kernel,
                     const int64_t *dilation, const int64_t *padding,
                     const int64_t *stride);
ct_tensor *ct_col2im(const ct_tensor *input, const int64_t *output_size,
                     const int64_t *kernel, const int64_t *dilation,
                     const int64_t *padding, const int64_t *stride);

/* Pooling over the last two dims of [N, C, H, W] or [C, H, W].  kernel,
 * stride, padding and dilation hold two values (h, w). */
typedef struct {
    int64_t kernel[2];
    int64_t stride[2];
    int64_t padding[2];
    int64_t dilation[2];
    bool ceil_mode;
    bool count_include_pad;     /* avg */
    int64_t divisor_override;   /* avg; 0: none */
} ct_pool_params;

/* Indices are int64 positions in a flattened input plane (h * W + w). */
int ct_max_pool2d_with_indices(const ct_tensor *input, const ct_pool_params *p,
                               ct_tensor **out, ct_tensor **indices);
ct_tensor *ct_avg_pool2d(const ct_tensor *input, const ct_pool_params *p);
ct_tensor *ct_avg_pool2d_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                  const ct_pool_params *p);
ct_tensor *ct_adaptive_avg_pool2d(const ct_tensor *input, const int64_t *output_size);
/* The gradient of adaptive_avg_pool2d for an input of input's shape. */
ct_tensor *ct_adaptive_avg_pool2d_backward(const ct_tensor *grad_out,
                                           const ct_tensor *input);
int ct_adaptive_max_pool2d(const ct_tensor *input, const int64_t *output_size,
                           ct_tensor **out, ct_tensor **indices);
/* Scatter-add grad_out into zeros shaped like input at the plane
 * positions `indices` names (the backward of the max pools). */
ct_tensor *ct_max_pool_backward(const ct_tensor *grad_out, const ct_tensor *input,
                                const ct_tensor *indices);

/* Upsampling [N, C, *in] (nsp = 1 or 2 spatial dims) to output_size.
 * scales[i] > 0 is the user's scale factor for dim i (torch uses it in
 * place of in / out when given); 0 when not given. */
typedef enum {
    CT_UPSAMPLE_NEAREST,
    CT_UPSAMPLE_LINEAR,         /* linear (1 dim) / bilinear (2 dims) */
} ct_upsample_mode;

ct_tensor *ct_upsample(const ct_tensor *input, ct_upsample_mode mode, int nsp,
                       const int64_t *output_size, bool align_corners,
                       const double *scales);
/* The gradient for an input of input_sizes (ndim nsp + 2). */
ct_tensor *ct_upsample_backward(const ct_tensor *grad_out, ct_upsample_mode mode,
                                int nsp, const int64_t *input_sizes,
                                bool align_corners, const double *scales);

#endif
