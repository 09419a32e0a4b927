/* ctorch/autograd_conv.h -- the differentiable convolution, pooling,
 * sliding-block and upsampling ops (csrc/autograd/functions_conv.c).
 *
 * Each records the node PyTorch records (ConvolutionBackward0,
 * MaxPool2DWithIndicesBackward0, AvgPool2DBackward0,
 * AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0,
 * Im2ColBackward0, Col2ImBackward0, UpsampleNearest2DBackward1, ...) over
 * the kernels of ops_conv.h.  A backward runs the fused kernels; under
 * create_graph it runs differentiable ops instead (convolution's
 * gradients as a transposed convolution and an unfold + matmul, the
 * pools' as recorded backward ops whose own derivative is the forward or
 * a gather), so gradients can be differentiated again.
 *
 * Same conventions as autograd.h: new references or NULL / -1 with the ct
 * error set; bias may be NULL.  Two-result ops: indices never require
 * grad.
 */
#ifndef CTORCH_AUTOGRAD_CONV_H
#define CTORCH_AUTOGRAD_CONV_H

#include "ops_conv.h"
#include "tensor.h"

ct_tensor *ctag_convolution(const ct_tensor *input, const ct_tensor *weight,
                            const ct_tensor *bias, const ct_conv_params *p);

int ctag_max_pool2d_with_indices(const ct_tensor *input, const ct_pool_params *p,
                                 ct_tensor **out, ct_tensor **indices);
ct_tensor *ctag_avg_pool2d(const ct_tensor *input, const ct_pool_params *p);
ct_tensor *ctag_adaptive_avg_pool2d(const ct_tensor *input, const int64_t *output_size);
int ctag_adaptive_max_pool2d(const ct_tensor *input, const int64_t *output_size,
                             ct_tensor **out, ct_tensor **indices);

ct_tensor *ctag_im2col(const ct_tensor *input, const int64_t *kernel,
                       const int64_t *dilation, const int64_t *padding,
                       const int64_t *stride);
ct_tensor *ctag_col2im(const ct_tensor *input, const int64_t *output_size,
                       const int64_t *kernel, const int64_t *dilation,
                       const int64_t *padding, const int64_t *stride);

ct_tensor *ctag_upsample(const ct_tensor *input, ct_upsample_mode mode, int nsp,
                         const int64_t *output_size, bool align_corners,
                         const double *scales);

#endif
