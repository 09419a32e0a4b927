/* aten/cpu/rnn_impl.h -- what the recurrence (rnn.c) and the fused gate
 * math (rnn_cells.c) share: the step kernels' arguments, their tables and
 * the workspace layout.
 *
 * Note [RNN workspace]
 * The forward keeps one workspace row per row of gx (so per step and
 * sequence), with hidden size H and state size P (H, or the projection
 * size):
 *   tanh / relu:  h' (H) | h (P)
 *   LSTM:         i f g o (4H) | tanh(c') (H) | c (H) | [o tanh(c') (H)] | h (P)
 *   GRU:          r z n (3H) | gh_n (H) | h (P)
 * where h and c are the states before the step, the gates are after
 * their activations, the bracketed part exists with a projection only
 * and gh_n is the hidden side of the new gate (b_hn + h W_hn^T).  h comes
 * last, so the weight gradient dW_hh = dgh^T h reads it as one strided
 * matrix.
 */
#ifndef CTORCH_ATEN_CPU_RNN_IMPL_H
#define CTORCH_ATEN_CPU_RNN_IMPL_H

#include <ctorch/ops_rnn.h>

/* One step's forward on `rows` rows (all pointers to the step's first
 * row; element counts, not bytes). */
typedef struct {
    int64_t rows, H;
    const void *gx;     /* input side, row stride ldgx */
    int64_t ldgx;
    const void *gh;     /* hidden side [rows, G*H], contiguous */
    void *h;            /* [rows, H]: h before the step (GRU reads it), h' after */
    void *c;            /* LSTM: [rows, H], c before the step, c' after */
    void *ws;           /* NULL, or the rows' workspace (row stride ldws) */
    int64_t ldws;
    bool proj;          /* LSTM: keep o tanh(c') in the workspace too */
} rnn_fwd_args;

/* One step's backward: from the gradient of h' (and of c'), the gradients
 * of the gates' pre-activations. */
typedef struct {
    int64_t rows, H;
    const void *ws;     /* the rows' workspace (Note [RNN workspace]) */
    int64_t ldws;
    void *dh;           /* [rows, H] gradient of h'; GRU: becomes dh z */
    void *dc;           /* LSTM: [rows, H] gradient of c', becomes that of c */
    void *dgi;          /* [rows, G*H] gradient of gx's rows */
    void *dgh;          /* GRU: [rows, G*H] gradient of gh's rows (the other
                         * modes' is dgi itself) */
} rnn_bwd_args;

typedef void (*rnn_fwd_fn)(const rnn_fwd_args *a);
typedef void (*rnn_bwd_fn)(const rnn_bwd_args *a);

/* [mode][dtype]; NULL for the dtypes without kernels. */
extern const rnn_fwd_fn ct__rnn_fwd_kernels[CT_RNN_MODE_COUNT][CT_DTYPE_COUNT];
extern const rnn_bwd_fn ct__rnn_bwd_kernels[CT_RNN_MODE_COUNT][CT_DTYPE_COUNT];

/* Workspace columns and the offset of the h segment (Note [RNN workspace]). */
static inline int64_t
rnn_ws_hoff(ct_rnn_mode mode, int64_t H, bool proj)
{
    switch (mode) {
    case CT_RNN_LSTM:
        return (proj ? 7 : 6) * H;
    case CT_RNN_GRU:
        return 4 * H;
    default:
        return H;
    }
}

static inline int64_t
rnn_ws_cols(ct_rnn_mode mode, int64_t H, int64_t P, bool proj)
{
    return rnn_ws_hoff(mode, H, proj) + P;
}

/* The offset of o tanh(c') in an LSTM row with a projection. */
#define RNN_WS_HFULL(H) (6 * (H))

#endif
