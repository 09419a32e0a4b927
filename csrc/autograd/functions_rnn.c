/* csrc/autograd/functions_rnn.c -- autograd for the recurrent layers of
 * ops_rnn.h (autograd_rnn.h).
 *
 * The node saves w_hh, w_hr (their versions checked as for any saved
 * input) and the forward's workspace; its payload holds the mode, the
 * direction and the step sizes.
 */
#include "functions.h"

#include <stdlib.h>
#include <string.h>

#include <ctorch/autograd_rnn.h>

enum { SAVED_W_HH, SAVED_W_HR, SAVED_WS };

typedef struct {
    ct_rnn_mode mode;
    bool reverse;
    int64_t nsteps;
    int64_t batch;
    bool packed;
    int64_t batch_sizes[];      /* nsteps entries when packed */
} rnn_payload;

static int rnn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go);

static void
rnn_release(ct_node *n)
{
    free(n->extra);
    n->extra = NULL;
}

static const ct_node_type rnn_types[CT_RNN_MODE_COUNT] = {
#define X(E, N, G, B) [E] = {B, rnn_apply, rnn_release},
    CT_FORALL_RNN_MODES(X)
#undef X
};

/* Attach the payload and the saved tensors to a new node n; -1 on error
 * (n itself is owned by the outputs). */
static int
rnn_save(ct_node *n, const ct_rnn_steps *s, int64_t batch, const ct_tensor *w_hh,
         const ct_tensor *w_hr, const ct_tensor *ws)
{
    int64_t nbs = s->batch_sizes != NULL ? s->nsteps : 0;
    rnn_payload *p = malloc(sizeof *p + sizeof(int64_t) * (size_t)nbs);
    if (p == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory allocating a graph node");
    }
    p->mode = s->mode;
    p->reverse = s->reverse;
    p->nsteps = s->nsteps;
    p->batch = batch;
    p->packed = s->batch_sizes != NULL;
    if (nbs > 0) {
        memcpy(p->batch_sizes, s->batch_sizes, sizeof(int64_t) * (size_t)nbs);
    }
    n->extra = p;
    if (ct_node_save(n, SAVED_W_HH, w_hh, false) < 0 ||
        ct_node_save(n, SAVED_W_HR, w_hr, false) < 0 ||
        ct_node_save(n, SAVED_WS, ws, false) < 0) {
        return -1;
    }
    return 0;
}

int
ctag_rnn_layer(const ct_rnn_steps *s, const ct_tensor *gx, const ct_tensor *w_hh,
               const ct_tensor *b_hh, const ct_tensor *w_hr, const ct_tensor *h0,
               const ct_tensor *c0, ct_tensor **out, ct_tensor **hn, ct_tensor **cn)
{
    const ct_tensor *ins[CT_RNN_GRAD_COUNT] = {
        [CT_RNN_GRAD_GX] = gx,     [CT_RNN_GRAD_W_HH] = w_hh, [CT_RNN_GRAD_B_HH] = b_hh,
        [CT_RNN_GRAD_W_HR] = w_hr, [CT_RNN_GRAD_H0] = h0,     [CT_RNN_GRAD_C0] = c0,
    };
    ct_tensor *ws = NULL;
    *out = *hn = *cn = NULL;
    if (gx == NULL || w_hh == NULL || h0 == NULL) {
        return -1;              /* an argument's error is already set */
    }
    bool rec = ct_grad_enabled() && ct_any_requires_grad(CT_RNN_GRAD_COUNT, ins);
    if (ct_rnn_layer(s, gx, w_hh, b_hh, w_hr, h0, c0, out, hn, cn,
                     rec ? &ws : NULL) < 0) {
        return -1;
    }
    if (rec) {
        ct_tensor *outs[3] = {*out, *hn, *cn};
        ct_node *n = ct_record(&rnn_types[s->mode], CT_RNN_GRAD_COUNT, ins, 3, outs);
        if (n == NULL || rnn_save(n, s, h0->sizes[0], w_hh, w_hr, ws) < 0) {
            ct_tensor_decref(ws);
            ct_tensor_decref(*out);
            ct_tensor_decref(*hn);
            ct_tensor_decref(*cn);
            *out = *hn = *cn = NULL;
            return -1;
        }
    }
    ct_tensor_decref(ws);
    return 0;
}

/* Unpack saved slot i into *t (NULL when None); false on error. */
static bool
unpack(ct_node *n, int i, ct_tensor **t)
{
    ct_error_clear();
    *t = ct_node_unpack(n, i);
    return *t != NULL || ct_error_code() == CT_OK;
}

static int
rnn_apply(ct_node *n, ct_tensor **gi, ct_tensor **go)
{
    const rnn_payload *p = n->extra;
    ct_tensor *w_hh = NULL, *w_hr = NULL, *ws = NULL, *grads[CT_RNN_GRAD_COUNT];
    bool need[CT_RNN_GRAD_COUNT];
    int rc = -1;

    if (ct_grad_enabled()) {
        /* create_graph: the fused backward has no graph of its own */
        return ct_error(CT_ERR_RUNTIME, "%s: double backward through ctorch's "
                        "recurrent layers is not supported (run the backward "
                        "without create_graph=True)", n->type->name);
    }
    if (!unpack(n, SAVED_W_HH, &w_hh) || !unpack(n, SAVED_W_HR, &w_hr) ||
        !unpack(n, SAVED_WS, &ws)) {
        goto done;
    }
    for (int k = 0; k < CT_RNN_GRAD_COUNT; k++) {
        need[k] = ct_node_needs(n, k);
    }
    ct_rnn_steps s = {
        .mode = p->mode, .nsteps = p->nsteps,
        .batch_sizes = p->packed ? p->batch_sizes : NULL, .reverse = p->reverse,
    };
    if (ct_rnn_layer_backward(&s, gi[0], gi[1], gi[2], w_hh, w_hr, ws, p->batch, need,
                              grads) < 0) {
        goto done;
    }
    for (int k = 0; k < CT_RNN_GRAD_COUNT; k++) {
        go[k] = grads[k];
    }
    rc = 0;
done:
    ct_tensor_decref(w_hh);
    ct_tensor_decref(w_hr);
    ct_tensor_decref(ws);
    return rc;
}
