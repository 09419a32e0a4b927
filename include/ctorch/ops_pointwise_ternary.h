/* ctorch/ops_pointwise_ternary.h -- the pointwise ops of three tensors and
 * a scalar (aten/cpu/pointwise_ternary.c): addcmul and addcdiv, which the
 * optimizers' updates are made of.
 *
 * Conventions of ops.h: results are NEW references (or NULL with the ct
 * error set); tensor arguments are borrowed; `out` and `mode` follow
 * ct_out_mode (CT_OUT_INPLACE: out is self).  Inputs broadcast together
 * and promote as torch.result_type of all three; messages follow PyTorch
 * 1.13.  The arithmetic is the one PyTorch's AVX2 kernels do, so results
 * are bit-identical: addcmul is fma(value * t1, t2, self) and addcdiv is
 * self + (value * t1) / t2, in float for bfloat16.
 *
 * Thread-safety: none needed (no shared state).
 */
#ifndef CTORCH_OPS_POINTWISE_TERNARY_H
#define CTORCH_OPS_POINTWISE_TERNARY_H

#include "ops.h"

/* self + value * t1 * t2 */
ct_tensor *ct_addcmul(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                      ct_scalar value, ct_tensor *out, ct_out_mode mode);
/* self + value * t1 / t2 (floating only: two integral divisors are
 * PyTorch's "Integer division with addcdiv" error) */
ct_tensor *ct_addcdiv(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                      ct_scalar value, ct_tensor *out, ct_out_mode mode);

/* The same with autograd (AddcmulBackward0 / AddcdivBackward0;
 * csrc/autograd/functions_ternary.c). */
ct_tensor *ctag_addcmul(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                        ct_scalar value, ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_addcdiv(const ct_tensor *self, const ct_tensor *t1, const ct_tensor *t2,
                        ct_scalar value, ct_tensor *out, ct_out_mode mode);

#endif
