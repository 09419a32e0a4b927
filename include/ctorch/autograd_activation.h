/* ctorch/autograd_activation.h -- the activations of ops_activation.h
 * recorded for autograd (csrc/autograd/functions_activation.c): a node
 * named as PyTorch names it (LeakyReluBackward0, ...) whose formula is the
 * fused backward kernel, itself recorded (LeakyReluBackwardBackward0, ...)
 * when a backward runs with create_graph, so double backward works.
 * Same conventions as autograd.h. */
#ifndef CTORCH_AUTOGRAD_ACTIVATION_H
#define CTORCH_AUTOGRAD_ACTIVATION_H

#include "ops_activation.h"

/* mode CT_OUT_NEW, or CT_OUT_INPLACE with out == t (PyTorch's in-place
 * checks, version bump, history rebased). */
ct_tensor *ctag_activation(ct_act_op op, const ct_tensor *t, const double *p,
                           ct_tensor *out, ct_out_mode mode);
ct_tensor *ctag_activation_backward(ct_act_op op, const ct_tensor *grad,
                                    const ct_tensor *x, const double *p);

#endif
