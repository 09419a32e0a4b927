/* ctorch/autograd_rnn.h -- the recurrent layers of ops_rnn.h recorded for
 * autograd (csrc/autograd/functions_rnn.c).
 *
 * One layer direction is one node (RnnTanhBackward0, RnnReluBackward0,
 * LstmBackward0, GruBackward0) with edges to gx, w_hh, b_hh, w_hr, h0 and
 * c0 (in ops_rnn.h's CT_RNN_GRAD_* order) and outputs out, hn, cn; its
 * backward is ct_rnn_layer_backward, one pass over the steps.  These
 * nodes have no graph form: a backward with create_graph that would
 * differentiate through one raises a RuntimeError instead of giving a
 * gradient without history.
 *
 * Same conventions as autograd.h and ops_rnn.h.
 */
#ifndef CTORCH_AUTOGRAD_RNN_H
#define CTORCH_AUTOGRAD_RNN_H

#include "ops_rnn.h"

int ctag_rnn_layer(const ct_rnn_steps *s, const ct_tensor *gx, const ct_tensor *w_hh,
                   const ct_tensor *b_hh, const ct_tensor *w_hr, const ct_tensor *h0,
                   const ct_tensor *c0, ct_tensor **out, ct_tensor **hn,
                   ct_tensor **cn);

#endif
