/* ctorch/ops_rnn.h -- the recurrent layers of torch.nn (RNN with tanh or
 * relu, LSTM with an optional projection, GRU): one direction of one layer
 * run over a whole sequence (aten/cpu/rnn.c), its gate math per step
 * fused into one pass (aten/cpu/rnn_cells.c).
 *
 * As PyTorch's CPU path computes it: the input side of the gates,
 * gx = x W_ih^T + b_ih, comes precomputed for all steps (one matmul, by
 * the caller); each step then computes gh = b_hh + h W_hh^T (one gemm)
 * and the cell on gh + gx:
 *   tanh / relu:  h' = act(gh + gx)
 *   LSTM:  i, f, g, o = sigmoid, sigmoid, tanh, sigmoid of the four
 *          chunks of gh + gx;  c' = f c + i g;  h' = o tanh(c')
 *          (with a projection: h' = (o tanh(c')) W_hr^T)
 *   GRU:   r, z = sigmoid(gh + gx) of the first two chunks;
 *          n = tanh(gx_n + r gh_n);  h' = (h - n) z + n
 * A cell (nn.LSTMCell, ...) is the one-step case.
 *
 * Packed sequences: step t works on the first batch_sizes[t] rows (the
 * sizes do not increase, as pack_padded_sequence makes them); rows of gx
 * and of the output are the steps' rows one after the other.  A reverse
 * layer runs the steps from last to first, its rows joining as they
 * start.  A padded [T, B] input is the case batch_sizes = NULL (B rows
 * each step, B taken from h0).
 *
 * Conventions of ops.h: tensor arguments are borrowed (optional ones may
 * be NULL), results are new references stored through the pointer
 * arguments, and the functions return 0, or -1 with the ct error set and
 * every result left NULL.  float32 and float64 only, all tensors of one
 * dtype.  These never record autograd history (autograd_rnn.h does).
 *
 * Thread-safety: no shared state.
 */
#ifndef CTORCH_OPS_RNN_H
#define CTORCH_OPS_RNN_H

#include <stdbool.h>

#include "tensor.h"

/* X(ENUM, torch's mode name, gates per hidden unit, grad_fn name) */
#define CT_FORALL_RNN_MODES(X)                                               \
    X(CT_RNN_TANH, "RNN_TANH", 1, "RnnTanhBackward0")                        \
    X(CT_RNN_RELU, "RNN_RELU", 1, "RnnReluBackward0")                        \
    X(CT_RNN_LSTM, "LSTM", 4, "LstmBackward0")                               \
    X(CT_RNN_GRU, "GRU", 3, "GruBackward0")

typedef enum {
#define X(E, N, G, B) E,
    CT_FORALL_RNN_MODES(X)
#undef X
    CT_RNN_MODE_COUNT
} ct_rnn_mode;

extern const char *const ct_rnn_mode_names[CT_RNN_MODE_COUNT];
extern const int ct_rnn_mode_gates[CT_RNN_MODE_COUNT];

/* How one layer direction walks its sequence. */
typedef struct {
    ct_rnn_mode mode;
    int64_t nsteps;
    const int64_t *batch_sizes; /* nsteps entries, or NULL (padded input) */
    bool reverse;
} ct_rnn_steps;

/* The gradients ct_rnn_layer_backward computes, in this order. */
enum {
    CT_RNN_GRAD_GX,
    CT_RNN_GRAD_W_HH,
    CT_RNN_GRAD_B_HH,
    CT_RNN_GRAD_W_HR,
    CT_RNN_GRAD_H0,
    CT_RNN_GRAD_C0,
    CT_RNN_GRAD_COUNT
};

/* One layer direction.  With G gates, hidden size H and P = H (or the
 * projection size, LSTM with w_hr):
 *   gx [N, G*H] (N rows over all steps), w_hh [G*H, P], b_hh [G*H] or
 *   NULL, w_hr [P, H] or NULL, h0 [B, P], c0 [B, H] (LSTM only).
 * Results: *out [N, P] (h of every row), *hn [B, P], *cn [B, H] (LSTM;
 * else left NULL).  With ws != NULL also *ws, the workspace the backward
 * reads (the gates after their activations and the states before each
 * step); without it the forward saves nothing. */
int ct_rnn_layer(const ct_rnn_steps *s, const ct_tensor *gx, const ct_tensor *w_hh,
                 const ct_tensor *b_hh, const ct_tensor *w_hr, const ct_tensor *h0,
                 const ct_tensor *c0, ct_tensor **out, ct_tensor **hn, ct_tensor **cn,
                 ct_tensor **ws);

/* Its backward in one pass over the steps: given the gradients of out,
 * hn and cn (any may be NULL: zero), the gradients of the inputs that
 * need[k] asks for go to grads[k] (CT_RNN_GRAD_*; new references, NULL
 * where not asked or where the input does not exist).  w_hh, w_hr, ws and
 * the steps are the forward's; h0 gives B and the dtype. */
int ct_rnn_layer_backward(const ct_rnn_steps *s, const ct_tensor *dout,
                          const ct_tensor *dhn, const ct_tensor *dcn,
                          const ct_tensor *w_hh, const ct_tensor *w_hr,
                          const ct_tensor *ws, int64_t batch, const bool *need,
                          ct_tensor **grads);

#endif
