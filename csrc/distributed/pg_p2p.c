/* csrc/distributed/pg_p2p.c -- send and receive.
 *
 * A send is one P2P frame (tag = the user's tag, id = a fresh number) whose
 * meta describes the tensor; it completes when the receiver acknowledges
 * it, as gloo's send completes when the receiver takes the data.  The
 * receiver compares dtype and element count with its own tensor before
 * writing anything: on a difference neither side writes, the receiver
 * fails and tells the sender (NACK with its own description), so both
 * raise with both descriptions.  Receives are matched in posting order;
 * an any-source receive takes the earliest frame with its tag.
 *
 * Every p2p work sits in pg->p2p until it completes, so its deadline
 * (submission + the group's timeout) can fail it.  A send that timed out
 * after part of it left must still finish its stream; a CANCEL frame then
 * tells the receiver to drop it if nobody took it yet.
 */
#include "pg_impl.h"

#include <ctorch/ops.h>
#include <stdio.h>
#include <string.h>

static void
p2p_unlink(ct_pg *pg, ct_work *w)
{
    for (ct_work **pp = &pg->p2p; *pp != NULL; pp = &(*pp)->p2p_next) {
        if (*pp == w) {
            *pp = w->p2p_next;
            w->p2p_next = NULL;
            return;
        }
    }
}

static const char *
dead_reason(ct_pg *pg, int peer, int *who)
{
    if (peer >= 0 && pg->links[peer].dead) {
        *who = peer;
        return pg->links[peer].why;
    }
    for (int q = 0; q < pg->size; q++) {
        if (q != pg->rank && pg->links[q].dead) {
            *who = q;
            return pg->links[q].why;
        }
    }
    *who = peer;
    return "connection lost";
}

/* Let go of the engine entries; a send that partly left is cancelled. */
static void
p2p_release(ct_pg *pg, ct_work *w, bool cancel)
{
    if (w->txe != NULL) {
        pg_txe *e = w->txe;
        bool sent = e->state == PG_E_ACTIVE || e->state == PG_E_SENT;
        int peer = e->peer;
        uint64_t id = e->fr.id;
        w->txe = NULL;
        pg_txe_release(pg, e);
        if (cancel && sent) {
            pg_send_cancel(pg, peer, id);
        }
    }
    if (w->rxe != NULL) {
        pg_rxe *e = w->rxe;
        w->rxe = NULL;
        pg_rxe_release(pg, e);
    }
}

void
pg_p2p_start(ct_pg *pg, ct_work *w)
{
    const char *name = pg_op_names[w->kind];
    if (atomic_load(&pg->closing)) {
        pg_work_fail_msg(pg, w, "ProcessGroupGloo::%s: the process group was shut down",
                         name);
        return;
    }
    if (w->root >= 0 && pg->links[w->root].dead) {
        pg_work_fail_msg(pg, w, "ProcessGroupGloo::%s: rank %d is gone (%s)", name,
                         w->root, pg->links[w->root].why);
        return;
    }
    ct_tensor *buf = w->p2p_buf;
    char *data = ct_tensor_data(buf);
    size_t bytes = (size_t)buf->numel * ct_dtype_itemsize(buf->dtype);
    uint32_t mlen = (uint32_t)(sizeof(pg_meta) + (size_t)buf->ndim * sizeof(int64_t));
    w->p2p_next = pg->p2p;
    pg->p2p = w;
    if (w->kind == PG_OP_SEND) {
        pg_txe *e = pg_txe_new(w->root, PG_FR_P2P, w->tag, ++pg->send_id, w->p2p_meta,
                               mlen, data, bytes, buf);
        if (e == NULL) {
            p2p_unlink(pg, w);
            pg_work_fail_msg(pg, w, "ProcessGroupGloo::send: %s", ct_error_message());
            return;
        }
        e->want_ack = true;
        e->work = w;
        w->txe = e;
        pg_send_start(pg, e); /* may complete w */
    }
    else {
        pg_rxe *e =
            pg_rxe_new(w->root, PG_FR_P2P, w->tag, 0, data, bytes, PG_DELIVER_COPY);
        if (e == NULL) {
            p2p_unlink(pg, w);
            pg_work_fail_msg(pg, w, "ProcessGroupGloo::recv: %s", ct_error_message());
            return;
        }
        e->expect = w->p2p_meta;
        e->expect_len = mlen;
        e->work = w;
        w->rxe = e;
        pg_recv_start(pg, e); /* may complete w */
    }
}

void
pg_p2p_entry_done(ct_pg *pg, ct_work *w)
{
    if (atomic_load(&w->state) != PG_W_PENDING) {
        return;
    }
    ct_error_state st = {CT_ERR_RUNTIME, ""};
    bool ok;
    if (w->kind == PG_OP_SEND) {
        pg_txe *e = w->txe;
        ok = e->state == PG_E_DONE;
        if (!ok && e->reply != NULL) {
            char theirs[320], mine[320];
            pg_meta_describe(e->reply, e->reply_len, theirs, sizeof theirs);
            pg_meta_describe(w->p2p_meta,
                             sizeof(pg_meta) + (size_t)w->p2p_buf->ndim * 8, mine,
                             sizeof mine);
            snprintf(
                st.message, sizeof st.message,
                "ProcessGroupGloo::send: rank %d expected a tensor of %s, but this "
                "rank sent one of %s",
                w->root, theirs, mine);
        }
        else if (!ok) {
            int who;
            const char *why = dead_reason(pg, w->root, &who);
            snprintf(st.message, sizeof st.message,
                     "ProcessGroupGloo::send: rank %d is gone (%s)", who, why);
        }
    }
    else {
        pg_rxe *e = w->rxe;
        ok = e->state == PG_E_DONE;
        if (ok) {
            w->source_rank = e->src;
            if (w->p2p_buf != w->in[0]) {
                if (ct_copy_(w->in[0], w->p2p_buf) < 0) {
                    ok = false;
                    ct_error_fetch(&st);
                }
            }
            ct_tensor_bump_version(w->in[0]);
        }
        else if (e->mismatch) {
            char theirs[320], mine[320];
            pg_meta_describe(e->meta, e->meta_len, theirs, sizeof theirs);
            pg_meta_describe(w->p2p_meta, e->expect_len, mine, sizeof mine);
            snprintf(
                st.message, sizeof st.message,
                "ProcessGroupGloo::recv: rank %d sent a tensor of %s, but this rank "
                "expected one of %s",
                e->src, theirs, mine);
        }
        else {
            int who;
            const char *why = dead_reason(pg, e->src >= 0 ? e->src : w->root, &who);
            snprintf(st.message, sizeof st.message,
                     "ProcessGroupGloo::recv: rank %d is gone (%s)", who, why);
        }
    }
    p2p_unlink(pg, w);
    p2p_release(pg, w, false);
    pg_work_complete(pg, w, ok ? NULL : &st);
}

void
pg_p2p_check_deadlines(ct_pg *pg, int64_t now)
{
    /* from the head again after each one: failing a work may complete
     * others (a cancel can find a link dead) */
    for (;;) {
        ct_work *w = pg->p2p;
        while (w != NULL && (w->deadline < 0 || now < w->deadline)) {
            w = w->p2p_next;
        }
        if (w == NULL) {
            return;
        }
        p2p_unlink(pg, w);
        p2p_release(pg, w, true);
        if (w->kind == PG_OP_SEND) {
            pg_work_fail_msg(
                pg, w,
                "ProcessGroupGloo::send: timed out after %lld ms waiting for "
                "rank %d to receive (tag %lld)",
                (long long)pg->timeout_ms, w->root, (long long)w->tag);
        }
        else if (w->root >= 0) {
            pg_work_fail_msg(
                pg, w,
                "ProcessGroupGloo::recv: timed out after %lld ms waiting for "
                "rank %d to send (tag %lld)",
                (long long)pg->timeout_ms, w->root, (long long)w->tag);
        }
        else {
            pg_work_fail_msg(
                pg, w,
                "ProcessGroupGloo::recv: timed out after %lld ms waiting for "
                "any rank to send (tag %lld)",
                (long long)pg->timeout_ms, (long long)w->tag);
        }
    }
}

void
pg_p2p_fail_all(ct_pg *pg, const char *why, int peer)
{
    for (;;) {
        ct_work *w = pg->p2p;
        while (w != NULL && peer >= 0 && w->root != peer) {
            w = w->p2p_next;
        }
        if (w == NULL) {
            return;
        }
        p2p_unlink(pg, w);
        p2p_release(pg, w, false);
        pg_work_fail_msg(pg, w, "ProcessGroupGloo::%s: %s", pg_op_names[w->kind], why);
    }
}
