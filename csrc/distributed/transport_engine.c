/* csrc/distributed/transport_engine.c -- frames in and out of the links.
 *
 * See Note [Process group structure] in pg_impl.h.  Everything here runs
 * under pg->drive.  Sends leave in order per peer, a bounded piece at a
 * time so the receiver starts while the sender is still writing; frames
 * that arrive are matched to posted receives and delivered from the ring
 * straight into their destination.
 *
 * Note [Stashing]
 * A frame that matches no posted receive is left at the head of its
 * stream (the sender then blocks on a full ring: back-pressure) unless
 * something behind it may be needed: a posted receive from that peer, a
 * send waiting for that peer's acknowledgement, or an any-source receive.
 * Then it is copied into memory (pg_unexp) and the stream moves on.
 * Collective frames of an operation this rank already finished (it timed
 * out) are dropped.
 */
#include "pg_impl.h"
#include "yield_rule.h"

#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TX_PIECE (64 * 1024) /* bytes per commit: the receiver starts early */
/* Note [Waiting]
 * A driver with nothing to do spins for a while (the answer of a peer that
 * runs on another core comes within microseconds), yields, then sleeps in
 * ppoll until a wake-up byte.  Spinning pays only when the peer is running
 * meanwhile; on an oversubscribed machine (4 ranks on 2 cores, other work)
 * it takes the core from the very process we wait for, and a driver that
 * sleeps leaves its core idle, which lets the kernel pull the peer over.
 * So the spin budget adapts: it doubles after a wait that ended while
 * spinning and halves after one that outlasted it; every 16th wait spins the
 * full budget to find out whether spinning pays again.
 * CTORCH_GLOO_SPIN_US caps the budget.
 * When this host runs more of the group's ranks than we have CPUs
 * (pg->oversub), a peer we wait for is likely waiting for our core: then
 * a waiter does not spin but yields at once, for up to 200 us (a yield
 * hands the core to a runnable peer for the price of a context switch,
 * where a futex sleep and wake-up costs several), then sleeps; but not
 * while yields are slow (Note [Slow yields]).  Measured with 4 ranks
 * pinned to 2 quiet cores: sleeping at once 17-23 us per small all_reduce,
 * spinning 1 us first 7-12 us, yielding at once 5-9 us.
 * CTORCH_GLOO_OVS="spin_ns,yield_ns[,most_yields]" overrides. */
#define SPIN_MIN_NS 1000
static int64_t spin_max_ns = 10000;
static pthread_once_t tune_once = PTHREAD_ONCE_INIT;

static int64_t ovs_spin_ns = 0, ovs_yield_ns = 200000;
static int ovs_yields = 1 << 30;
static bool ovs_off;

static void
read_tuning(void)
{
    const char *s = getenv("CTORCH_GLOO_SPIN_US");
    if (s != NULL) {
        spin_max_ns = atoll(s) * 1000;
    }
    s = getenv("CTORCH_GLOO_OVS");
    if (s != NULL) {
        long long a = 0, b = 0;
        int c = 1 << 30;
        ovs_off = sscanf(s, "%lld,%lld,%d", &a, &b, &c) < 2; /* "off": as if not */
        ovs_spin_ns = a;
        ovs_yield_ns = b;
        ovs_yields = c;
    }
}

static const char zeros[4096];

/* --- byte streams ------------------------------------------------------------ */

static size_t
tx_reserve(pg_link *l, char **p)
{
    return l->shm ? pg_shm_tx_reserve(l, p) : pg_tcp_tx_reserve(l, p);
}

static void
tx_commit(pg_link *l, size_t n)
{
    if (l->shm) {
        pg_shm_tx_commit(l, n);
    }
    else {
        pg_tcp_tx_commit(l, n);
    }
}

static size_t
rx_peek(pg_link *l, const char **p, int *err)
{
    if (l->shm) {
        *err = 0;
        return pg_shm_rx_peek(l, p);
    }
    return pg_tcp_rx_peek(l, p, err);
}

static void
rx_consume(pg_link *l, size_t n)
{
    if (l->shm) {
        pg_shm_rx_consume(l, n);
    }
    else {
        pg_tcp_rx_consume(l, n);
    }
}

/* --- entries ------------------------------------------------------------------- */

static void
txe_free(pg_txe *e)
{
    free(e->meta);
    free(e->reply);
    ct_tensor_decref(e->keep);
    free(e);
}

static void
rxe_free(pg_rxe *e)
{
    free(e->meta);
    free(e);
}

static void unexp_free(pg_unexp *u);

pg_txe *
pg_txe_new(int peer, uint32_t kind, int64_t tag, uint64_t id, const void *meta,
           uint32_t meta_len, const char *payload, size_t len, ct_tensor *keep)
{
    pg_txe *e = calloc(1, sizeof *e);
    if (e == NULL) {
        ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        return NULL;
    }
    if (meta_len > 0) {
        e->meta = malloc(meta_len);
        if (e->meta == NULL) {
            free(e);
            ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
            return NULL;
        }
        memcpy(e->meta, meta, meta_len);
    }
    e->fr = (pg_frame){kind, meta_len, tag, id, len};
    e->payload = payload;
    e->keep = keep;
    if (keep != NULL) {
        ct_tensor_incref(keep);
    }
    e->total = sizeof(pg_frame) + pg_pad8(meta_len) + pg_pad8(len);
    e->peer = peer;
    e->state = PG_E_QUEUED;
    return e;
}

pg_rxe *
pg_rxe_new(int peer, uint32_t kind, int64_t tag, uint64_t id, char *dst, size_t cap,
           int mode)
{
    pg_rxe *e = calloc(1, sizeof *e);
    if (e == NULL) {
        ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        return NULL;
    }
    e->peer = peer;
    e->kind = kind;
    e->tag = tag;
    e->id = id;
    e->dst = dst;
    e->cap = cap;
    e->mode = mode;
    e->state = PG_E_QUEUED;
    e->src = -1;
    return e;
}

static void
txe_finish(ct_pg *pg, pg_txe *e, int state)
{
    e->state = state;
    if (e->done_count != NULL) {
        (*e->done_count)++;
    }
    if (e->orphan) {
        txe_free(e);
    }
    else if (e->work != NULL) {
        pg_p2p_entry_done(pg, e->work);
    }
}

static void
rxe_finish(ct_pg *pg, pg_rxe *e, int state)
{
    e->state = state;
    if (e->done_count != NULL) {
        (*e->done_count)++;
    }
    if (e->orphan) {
        rxe_free(e);
    }
    else if (e->work != NULL) {
        pg_p2p_entry_done(pg, e->work);
    }
}

/* --- sending ------------------------------------------------------------------- */

/* Copy n bytes of e's wire image, starting at pos, to dst. */
static void
txe_image(const pg_txe *e, size_t pos, char *dst, size_t n)
{
    size_t mpad = pg_pad8(e->fr.meta_len), plen = e->fr.payload_len;
    while (n > 0) {
        size_t k;
        if (pos < sizeof(pg_frame)) {
            k = sizeof(pg_frame) - pos;
            k = k < n ? k : n;
            memcpy(dst, (const char *)&e->fr + pos, k);
        }
        else if (pos < sizeof(pg_frame) + mpad) {
            size_t off = pos - sizeof(pg_frame);
            k = mpad - off;
            k = k < n ? k : n;
            size_t real = off < e->fr.meta_len ? e->fr.meta_len - off : 0;
            real = real < k ? real : k;
            memcpy(dst, e->meta + off, real);
            memset(dst + real, 0, k - real);
        }
        else {
            size_t off = pos - sizeof(pg_frame) - mpad;
            k = pg_pad8(plen) - off;
            k = k < n ? k : n;
            size_t real = off < plen ? plen - off : 0;
            real = real < k ? real : k;
            if (e->payload != NULL) {
                memcpy(dst, e->payload + off, real);
            }
            else {
                for (size_t z = 0; z < real; z += sizeof zeros) {
                    size_t c = real - z < sizeof zeros ? real - z : sizeof zeros;
                    memcpy(dst + z, zeros, c);
                }
            }
            memset(dst + real, 0, k - real);
        }
        dst += k;
        pos += k;
        n -= k;
    }
}

static void
txe_emitted(ct_pg *pg, pg_link *l, pg_txe *e)
{
    if (e->want_ack && !e->orphan) {
        e->state = PG_E_SENT;
        e->next = l->await;
        l->await = e;
        return;
    }
    txe_finish(pg, e, PG_E_DONE);
}

static bool
link_tx(ct_pg *pg, pg_link *l)
{
    bool moved = false;
    while (l->txq != NULL) {
        pg_txe *e = l->txq;
        char *p;
        size_t space = tx_reserve(l, &p);
        if (space == 0 && !l->shm && l->t_r < l->t_w) {
            if (pg_tcp_flush(l) < 0) {
                pg_link_fail(pg, l, l->why);
                return true;
            }
            space = tx_reserve(l, &p);
        }
        if (space == 0) {
            break;
        }
        size_t n = e->total - e->pos;
        n = n < space ? n : space;
        n = n < TX_PIECE ? n : TX_PIECE;
        txe_image(e, e->pos, p, n);
        tx_commit(l, n);
        e->pos += n;
        e->state = PG_E_ACTIVE;
        moved = true;
        if (e->pos == e->total) {
            l->txq = e->next;
            if (l->txq == NULL) {
                l->txq_tail = NULL;
            }
            e->next = NULL;
            txe_emitted(pg, l, e);
        }
    }
    if (!l->shm && !l->dead && l->t_r < l->t_w) {
        size_t before = l->t_r;
        if (pg_tcp_flush(l) < 0) {
            pg_link_fail(pg, l, l->why);
            return true;
        }
        moved |= l->t_r != before;
    }
    return moved;
}

void
pg_send_start(ct_pg *pg, pg_txe *e)
{
    pg_link *l = &pg->links[e->peer];
    if (l->dead) {
        txe_finish(pg, e, PG_E_FAILED);
        return;
    }
    e->next = NULL;
    if (l->txq_tail != NULL) {
        l->txq_tail->next = e;
    }
    else {
        l->txq = e;
    }
    l->txq_tail = e;
    if (l->txq == e) {
        link_tx(pg, l);
    }
}

static void
send_control(ct_pg *pg, int peer, uint32_t kind, int64_t tag, uint64_t id,
             const void *meta, uint32_t meta_len)
{
    pg_txe *e = pg_txe_new(peer, kind, tag, id, meta, meta_len, NULL, 0, NULL);
    if (e == NULL) {
        ct_error_clear();
        return; /* the peer's wait will time out */
    }
    e->orphan = true;
    pg_send_start(pg, e);
}

void
pg_send_abort(ct_pg *pg, int peer, int64_t seq, const char *why)
{
    if (!pg->links[peer].dead) {
        send_control(pg, peer, PG_FR_ABORT, seq, 0, why, (uint32_t)strlen(why));
    }
}

void
pg_send_cancel(ct_pg *pg, int peer, uint64_t id)
{
    if (!pg->links[peer].dead) {
        send_control(pg, peer, PG_FR_CANCEL, 0, id, NULL, 0);
    }
}

static void
unlink_txe(pg_txe **head, pg_txe **tail, pg_txe *e)
{
    pg_txe *prev = NULL;
    for (pg_txe *x = *head; x != NULL; prev = x, x = x->next) {
        if (x == e) {
            if (prev != NULL) {
                prev->next = e->next;
            }
            else {
                *head = e->next;
            }
            if (tail != NULL && *tail == e) {
                *tail = prev;
            }
            e->next = NULL;
            return;
        }
    }
}

void
pg_txe_release(ct_pg *pg, pg_txe *e)
{
    if (e == NULL) {
        return;
    }
    pg_link *l = &pg->links[e->peer];
    e->done_count = NULL;
    e->work = NULL;
    switch (e->state) {
    case PG_E_QUEUED:
        unlink_txe(&l->txq, &l->txq_tail, e);
        txe_free(e);
        break;
    case PG_E_ACTIVE:
        e->orphan = true; /* the stream must finish; `keep` holds the data */
        break;
    case PG_E_SENT:
        unlink_txe(&l->await, NULL, e);
        txe_free(e);
        break;
    default:
        txe_free(e);
        break;
    }
}

/* --- receiving: matching ------------------------------------------------------- */

static bool
rxe_matches(const pg_rxe *e, const pg_frame *fr)
{
    if (e->kind != fr->kind || e->tag != fr->tag) {
        return false;
    }
    return fr->kind != PG_FR_COLL || e->id == fr->id;
}

static void
unlink_rxe(pg_rxe **head, pg_rxe **tail, pg_rxe *e)
{
    pg_rxe *prev = NULL;
    for (pg_rxe *x = *head; x != NULL; prev = x, x = x->next) {
        if (x == e) {
            if (prev != NULL) {
                prev->next = e->next;
            }
            else {
                *head = e->next;
            }
            if (*tail == e) {
                *tail = prev;
            }
            e->next = NULL;
            return;
        }
    }
}

/* The earliest-posted receive that fr from l's peer matches, unlinked. */
static pg_rxe *
take_posted(ct_pg *pg, pg_link *l, const pg_frame *fr)
{
    pg_rxe *best = NULL;
    for (pg_rxe *e = l->posted; e != NULL; e = e->next) {
        if (rxe_matches(e, fr)) {
            best = e;
            break;
        }
    }
    if (fr->kind == PG_FR_P2P) {
        for (pg_rxe *e = pg->any; e != NULL; e = e->next) {
            if (rxe_matches(e, fr)) {
                if (best == NULL || e->order < best->order) {
                    best = e;
                }
                break;
            }
        }
    }
    if (best != NULL) {
        if (best->peer < 0) {
            unlink_rxe(&pg->any, &pg->any_tail, best);
        }
        else {
            unlink_rxe(&l->posted, &l->posted_tail, best);
        }
    }
    return best;
}

/* Attach a frame to the receive it matched: keep the sender's meta and
 * decide whether the payload fits (a P2P receive also compares dtype and
 * element count with its own description). */
static void
bind_frame(pg_rxe *e, const pg_frame *fr, const uint8_t *meta, int src)
{
    e->src = src;
    e->msg_id = fr->id;
    e->got = 0;
    e->state = PG_E_ACTIVE;
    e->mismatch = fr->payload_len != e->cap;
    free(e->meta);
    e->meta = NULL;
    e->meta_len = 0;
    if (fr->meta_len > 0) {
        e->meta = malloc(fr->meta_len);
        if (e->meta != NULL) {
            memcpy(e->meta, meta, fr->meta_len);
            e->meta_len = fr->meta_len;
        }
    }
    if (e->expect != NULL) {
        const pg_meta *a = (const pg_meta *)e->expect;
        if (e->meta_len < sizeof(pg_meta)) {
            e->mismatch = true;
        }
        else {
            pg_meta b;
            memcpy(&b, e->meta, sizeof b);
            if (a->dtype != b.dtype || a->numel != b.numel) {
                e->mismatch = true;
            }
        }
    }
}

static void
deliver(pg_rxe *e, const char *src, size_t n)
{
    if (!e->mismatch && !e->orphan && n > 0) {
        if (e->mode == PG_DELIVER_COPY) {
            memcpy(e->dst + e->got, src, n);
        }
        else if (e->mode == PG_DELIVER_REDUCE) {
            pg_reduce_fn f = pg_reduce_fn_for(e->dtype, e->rop);
            f(e->dst + e->got, src, n / ct_dtype_itemsize(e->dtype));
        }
    }
    e->got += n;
}

/* A receive got all its payload: acknowledge a P2P frame and finish. */
static void
rxe_complete(ct_pg *pg, pg_rxe *e)
{
    if (e->kind == PG_FR_P2P && e->src >= 0) {
        if (e->mismatch) {
            send_control(pg, e->src, PG_FR_NACK, e->tag, e->msg_id, e->expect,
                         e->expect_len);
        }
        else {
            send_control(pg, e->src, PG_FR_ACK, e->tag, e->msg_id, NULL, 0);
        }
    }
    bool failed = e->mismatch && e->kind == PG_FR_P2P;
    rxe_finish(pg, e, failed ? PG_E_FAILED : PG_E_DONE);
}

void
pg_recv_start(ct_pg *pg, pg_rxe *e)
{
    e->order = ++pg->post_order;
    /* stashed already?  the earliest arrival wins */
    pg_unexp *best = NULL;
    pg_link *bl = NULL;
    for (int q = 0; q < pg->size; q++) {
        if (q == pg->rank || (e->peer >= 0 && q != e->peer)) {
            continue;
        }
        pg_link *l = &pg->links[q];
        for (pg_unexp *u = l->unexp; u != NULL; u = u->next) {
            if (rxe_matches(e, &u->fr)) {
                if (best == NULL || u->arrival < best->arrival) {
                    best = u;
                    bl = l;
                }
                break;
            }
        }
    }
    if (best != NULL) {
        pg_unexp *prev = NULL;
        for (pg_unexp *u = bl->unexp; u != best; u = u->next) {
            prev = u;
        }
        if (prev != NULL) {
            prev->next = best->next;
        }
        else {
            bl->unexp = best->next;
        }
        if (bl->unexp_tail == best) {
            bl->unexp_tail = prev;
        }
        best->next = NULL;
        bind_frame(e, &best->fr, best->meta, bl->peer);
        if (best->complete) {
            deliver(e, best->payload, best->fr.payload_len);
            unexp_free(best);
            rxe_complete(pg, e);
        }
        else {
            best->bound = e; /* finished when the stash fills */
        }
        return;
    }
    if (e->peer >= 0 && pg->links[e->peer].dead) {
        rxe_finish(pg, e, PG_E_FAILED);
        return;
    }
    e->next = NULL;
    pg_rxe **head = e->peer < 0 ? &pg->any : &pg->links[e->peer].posted;
    pg_rxe **tail = e->peer < 0 ? &pg->any_tail : &pg->links[e->peer].posted_tail;
    if (*tail != NULL) {
        (*tail)->next = e;
    }
    else {
        *head = e;
    }
    *tail = e;
}

void
pg_rxe_release(ct_pg *pg, pg_rxe *e)
{
    if (e == NULL) {
        return;
    }
    e->done_count = NULL;
    e->work = NULL;
    if (e->state == PG_E_QUEUED) {
        if (e->peer < 0) {
            unlink_rxe(&pg->any, &pg->any_tail, e);
        }
        else {
            pg_link *l = &pg->links[e->peer];
            unlink_rxe(&l->posted, &l->posted_tail, e);
        }
        rxe_free(e);
    }
    else if (e->state == PG_E_ACTIVE) {
        e->orphan = true; /* delivery goes on into nowhere */
    }
    else {
        rxe_free(e);
    }
}

/* --- receiving: the stream -------------------------------------------------- */

static void
unexp_free(pg_unexp *u)
{
    free(u->meta);
    free(u->payload);
    free(u);
}

static bool
need_stash(const ct_pg *pg, const pg_link *l)
{
    return l->posted != NULL || l->await != NULL ||
           (pg->any != NULL && l->rx_fr.kind == PG_FR_P2P);
}

static void
handle_control(ct_pg *pg, pg_link *l)
{
    const pg_frame *fr = &l->rx_fr;
    switch (fr->kind) {
    case PG_FR_ACK:
    case PG_FR_NACK:
        for (pg_txe *e = l->await, *prev = NULL; e != NULL; prev = e, e = e->next) {
            if (e->fr.id != fr->id) {
                continue;
            }
            if (prev != NULL) {
                prev->next = e->next;
            }
            else {
                l->await = e->next;
            }
            e->next = NULL;
            if (fr->kind == PG_FR_NACK && fr->meta_len > 0) {
                e->reply = malloc(fr->meta_len);
                if (e->reply != NULL) {
                    memcpy(e->reply, l->rx_meta, fr->meta_len);
                    e->reply_len = fr->meta_len;
                }
            }
            txe_finish(pg, e, fr->kind == PG_FR_ACK ? PG_E_DONE : PG_E_FAILED);
            break;
        }
        break;
    case PG_FR_CANCEL:
        for (pg_unexp *u = l->unexp, *prev = NULL; u != NULL; prev = u, u = u->next) {
            if (u->fr.kind == PG_FR_P2P && u->fr.id == fr->id && u->bound == NULL &&
                u != l->rx_stash) {
                if (prev != NULL) {
                    prev->next = u->next;
                }
                else {
                    l->unexp = u->next;
                }
                if (l->unexp_tail == u) {
                    l->unexp_tail = prev;
                }
                unexp_free(u);
                break;
            }
        }
        break;
    case PG_FR_ABORT:
        if (l->naborted == l->cap_aborted) {
            int nc = l->cap_aborted ? 2 * l->cap_aborted : 8;
            int64_t *a = realloc(l->aborted, (size_t)nc * sizeof *a);
            if (a != NULL) {
                l->aborted = a;
            }
            char **w = realloc(l->abort_why, (size_t)nc * sizeof *w);
            if (w != NULL) {
                l->abort_why = w;
            }
            if (a == NULL || w == NULL) {
                return;
            }
            l->cap_aborted = nc;
        }
        l->abort_why[l->naborted] = strndup((const char *)l->rx_meta, fr->meta_len);
        l->aborted[l->naborted++] = fr->tag;
        pg->abort_count++;
        break;
    default:
        break;
    }
}

/* Decide where the payload of a complete header goes; false when the frame
 * must wait at the head of the stream. */
static bool
route_frame(ct_pg *pg, pg_link *l)
{
    const pg_frame *fr = &l->rx_fr;
    l->rx_target = NULL;
    l->rx_stash = NULL;
    l->rx_discard = false;
    if (fr->kind != PG_FR_COLL && fr->kind != PG_FR_P2P) {
        handle_control(pg, l);
        l->rx_discard = true;
        return true;
    }
    pg_rxe *e = take_posted(pg, l, fr);
    if (e != NULL) {
        bind_frame(e, fr, l->rx_meta, l->peer);
        l->rx_target = e;
        return true;
    }
    if (fr->kind == PG_FR_COLL && fr->tag <= pg->seq_done) {
        l->rx_discard = true; /* an operation this rank gave up */
        return true;
    }
    if (!need_stash(pg, l)) {
        return false;
    }
    pg_unexp *u = calloc(1, sizeof *u);
    char *pay = fr->payload_len ? malloc(fr->payload_len) : NULL;
    uint8_t *meta = fr->meta_len ? malloc(fr->meta_len) : NULL;
    if (u == NULL || (fr->payload_len && pay == NULL) ||
        (fr->meta_len && meta == NULL)) {
        free(u);
        free(pay);
        free(meta);
        return false; /* try again later */
    }
    if (meta != NULL) {
        memcpy(meta, l->rx_meta, fr->meta_len);
    }
    u->fr = *fr;
    u->meta = meta;
    u->payload = pay;
    u->arrival = l->rx_arrival;
    if (l->unexp_tail != NULL) {
        l->unexp_tail->next = u;
    }
    else {
        l->unexp = u;
    }
    l->unexp_tail = u;
    l->rx_stash = u;
    return true;
}

static void
payload_done(ct_pg *pg, pg_link *l)
{
    if (l->rx_target != NULL) {
        pg_rxe *e = l->rx_target;
        l->rx_target = NULL;
        rxe_complete(pg, e);
    }
    else if (l->rx_stash != NULL) {
        pg_unexp *u = l->rx_stash;
        l->rx_stash = NULL;
        u->complete = true;
        if (u->bound != NULL) {
            pg_rxe *e = u->bound;
            deliver(e, u->payload, u->fr.payload_len);
            unexp_free(u);
            rxe_complete(pg, e);
        }
    }
}

static void
payload_bytes(pg_link *l, const char *p, size_t n)
{
    if (l->rx_target != NULL) {
        deliver(l->rx_target, p, n);
    }
    else if (l->rx_stash != NULL) {
        memcpy(l->rx_stash->payload + l->rx_stash->got, p, n);
        l->rx_stash->got += n;
    }
}

static bool
link_rx(ct_pg *pg, pg_link *l)
{
    bool moved = false;
    for (;;) {
        if (l->rx_state == RX_MATCH) {
            if (!route_frame(pg, l)) {
                return moved;
            }
            moved = true;
            l->rx_state = RX_PAYLOAD;
            l->rx_pos = 0;
            if (l->rx_fr.payload_len == 0) {
                payload_done(pg, l);
                l->rx_state = RX_HDR;
                l->rx_pos = 0;
            }
            continue;
        }
        const char *p;
        int err = 0;
        size_t avail = rx_peek(l, &p, &err);
        if (avail == 0) {
            if (err) {
                if (l->shm) {
                    l->eof = true;
                }
                else {
                    pg_link_fail(pg, l, l->why);
                }
                return true;
            }
            return moved;
        }
        switch (l->rx_state) {
        case RX_HDR: {
            size_t k = sizeof(pg_frame) - l->rx_pos;
            k = k < avail ? k : avail;
            memcpy((char *)&l->rx_fr + l->rx_pos, p, k);
            rx_consume(l, k);
            l->rx_pos += k;
            moved = true;
            if (l->rx_pos < sizeof(pg_frame)) {
                break;
            }
            l->rx_arrival = ++pg->arrival;
            l->rx_pos = 0;
            if (l->rx_fr.meta_len > l->rx_meta_cap) {
                uint8_t *m = realloc(l->rx_meta, pg_pad8(l->rx_fr.meta_len));
                if (m == NULL) {
                    pg_link_fail(pg, l, "out of memory for a frame description");
                    return true;
                }
                l->rx_meta = m;
                l->rx_meta_cap = pg_pad8(l->rx_fr.meta_len);
            }
            l->rx_state = l->rx_fr.meta_len ? RX_META : RX_MATCH;
            break;
        }
        case RX_META: {
            size_t need = pg_pad8(l->rx_fr.meta_len) - l->rx_pos;
            size_t k = need < avail ? need : avail;
            size_t real =
                l->rx_pos < l->rx_fr.meta_len ? l->rx_fr.meta_len - l->rx_pos : 0;
            memcpy(l->rx_meta + l->rx_pos, p, real < k ? real : k);
            rx_consume(l, k);
            l->rx_pos += k;
            moved = true;
            if (l->rx_pos == pg_pad8(l->rx_fr.meta_len)) {
                l->rx_state = RX_MATCH;
                l->rx_pos = 0;
            }
            break;
        }
        case RX_PAYLOAD: {
            size_t rem = l->rx_fr.payload_len - l->rx_pos;
            size_t padrem = pg_pad8(l->rx_fr.payload_len) - l->rx_pos;
            if (avail >= padrem) {
                payload_bytes(l, p, rem);
                rx_consume(l, padrem);
                payload_done(pg, l);
                l->rx_state = RX_HDR;
                l->rx_pos = 0;
            }
            else if (avail >= rem) {
                payload_bytes(l, p, rem); /* TCP: the padding comes later */
                rx_consume(l, rem);
                l->rx_pos += rem;
                l->rx_state = RX_PAD;
            }
            else {
                size_t k = avail & ~(size_t)7;
                if (k == 0) {
                    return moved;
                }
                payload_bytes(l, p, k);
                rx_consume(l, k);
                l->rx_pos += k;
            }
            moved = true;
            break;
        }
        case RX_PAD: {
            size_t padrem = pg_pad8(l->rx_fr.payload_len) - l->rx_pos;
            size_t k = padrem < avail ? padrem : avail;
            rx_consume(l, k);
            l->rx_pos += k;
            moved = true;
            if (l->rx_pos == pg_pad8(l->rx_fr.payload_len)) {
                payload_done(pg, l);
                l->rx_state = RX_HDR;
                l->rx_pos = 0;
            }
            break;
        }
        default:
            return moved;
        }
    }
}

/* --- links: failure, progress, sleeping ----------------------------------- */

void
pg_link_fail(ct_pg *pg, pg_link *l, const char *why)
{
    if (l->dead) {
        return;
    }
    l->dead = true;
    if (why != l->why) {
        snprintf(l->why, sizeof l->why, "%s", why);
    }
    pg->dead_count++;
    if (l->rx_target != NULL) {
        pg_rxe *e = l->rx_target;
        l->rx_target = NULL;
        rxe_finish(pg, e, PG_E_FAILED);
    }
    l->rx_stash = NULL;
    while (l->posted != NULL) {
        pg_rxe *e = l->posted;
        l->posted = e->next;
        e->next = NULL;
        rxe_finish(pg, e, PG_E_FAILED);
    }
    l->posted_tail = NULL;
    while (l->unexp != NULL) {
        pg_unexp *u = l->unexp;
        l->unexp = u->next;
        if (u->bound != NULL) {
            rxe_finish(pg, u->bound, PG_E_FAILED);
        }
        unexp_free(u);
    }
    l->unexp_tail = NULL;
    while (l->txq != NULL) {
        pg_txe *e = l->txq;
        l->txq = e->next;
        e->next = NULL;
        txe_finish(pg, e, PG_E_FAILED);
    }
    l->txq_tail = NULL;
    while (l->await != NULL) {
        pg_txe *e = l->await;
        l->await = e->next;
        e->next = NULL;
        txe_finish(pg, e, PG_E_FAILED);
    }
    /* any-source receives: every one fails, as every pending operation does */
    while (pg->any != NULL) {
        pg_rxe *e = pg->any;
        pg->any = e->next;
        e->next = NULL;
        rxe_finish(pg, e, PG_E_FAILED);
    }
    pg->any_tail = NULL;
}

bool
pg_progress(ct_pg *pg)
{
    bool moved = false;
    for (int q = 0; q < pg->size; q++) {
        pg_link *l = &pg->links[q];
        if (q == pg->rank || l->dead) {
            continue;
        }
        if (l->txq != NULL || (!l->shm && l->t_r < l->t_w)) {
            moved |= link_tx(pg, l);
        }
        if (!l->dead) {
            moved |= link_rx(pg, l);
        }
        if (l->eof && !l->dead) {
            const char *p;
            int err;
            if (l->rx_state == RX_MATCH || rx_peek(l, &p, &err) == 0) {
                pg_link_fail(pg, l, "connection closed by the peer");
                moved = true;
            }
        }
    }
    return moved;
}

bool
pg_engine_busy(const ct_pg *pg)
{
    if (pg->any != NULL || pg->p2p != NULL) {
        return true;
    }
    for (int q = 0; q < pg->size; q++) {
        const pg_link *l = &pg->links[q];
        if (q == pg->rank || l->dead) {
            continue;
        }
        if (l->txq != NULL || l->await != NULL || l->posted != NULL ||
            l->rx_target != NULL || l->rx_stash != NULL ||
            (!l->shm && l->t_r < l->t_w)) {
            return true;
        }
    }
    return false;
}

const char *
pg_peer_aborted(pg_link *l, int64_t seq)
{
    for (int i = 0; i < l->naborted; i++) {
        if (l->aborted[i] == seq) {
            return l->abort_why[i] ? l->abort_why[i] : "no reason given";
        }
    }
    return NULL;
}

void
pg_prune_aborted(pg_link *l, int64_t below)
{
    int k = 0;
    for (int i = 0; i < l->naborted; i++) {
        if (l->aborted[i] >= below) {
            l->abort_why[k] = l->abort_why[i];
            l->aborted[k++] = l->aborted[i];
        }
        else {
            free(l->abort_why[i]);
        }
    }
    l->naborted = k;
}

static void
drain_socket(ct_pg *pg, pg_link *l)
{
    char buf[256];
    for (;;) {
        ssize_t k = recv(l->fd, buf, sizeof buf, MSG_DONTWAIT);
        if (k > 0) {
            continue;
        }
        if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
            snprintf(l->why, sizeof l->why, "%s",
                     k == 0 ? "connection closed by the peer" : strerror(errno));
            l->eof = true;
        }
        (void)pg;
        return;
    }
}

/* futex_waitv (Linux 5.16): is it there?  Checked once. */
static int futex_waitv_ok = -1;

bool
pg_have_futex_waitv(void)
{
    if (futex_waitv_ok < 0) {
        uint32_t word = 1;
        struct futex_waitv w = {.val = 0,
                                .uaddr = (uintptr_t)&word,
                                .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG};
        long r = syscall(SYS_futex_waitv, &w, 1, 0, NULL, CLOCK_MONOTONIC);
        futex_waitv_ok =
            !(r < 0 && errno == ENOSYS) && getenv("CTORCH_GLOO_NO_FUTEX") == NULL;
    }
    return futex_waitv_ok;
}

/* How long a sleeper may stay asleep: until the deadline, at most 1 s; a
 * futex sleeper (which does not watch the sockets) 50 ms, then it looks
 * for peers whose socket closed. */
static int64_t
sleep_ns(int64_t deadline, int64_t cap)
{
    int64_t wait = deadline >= 0 ? deadline - pg_now_ns() : cap;
    return wait > cap ? cap : wait < 0 ? 0 : wait;
}

/* Sleep on the doorbells of the shared-memory peers and the kick word
 * (every link is shared memory). */
static void
block_futex(ct_pg *pg, int64_t deadline)
{
    struct futex_waitv w[pg->size + 1];
    pg_link *who[pg->size + 1];
    int n = 0;
    uint32_t kv = atomic_load(&pg->kick_word);
    w[n] = (struct futex_waitv){.val = kv,
                                .uaddr = (uintptr_t)&pg->kick_word,
                                .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG};
    who[n++] = NULL;
    atomic_store(&pg->driver_sleeping, PG_SLEEP_FUTEX);
    bool ready = atomic_load(&pg->inbox_n) > 0;
    for (int q = 0; q < pg->size; q++) {
        pg_link *l = &pg->links[q];
        if (q == pg->rank || l->dead) {
            continue;
        }
        uint32_t v = atomic_load(l->my_door);
        ready |= pg_shm_arm(l, l->txq != NULL, PG_SLEEP_FUTEX) || l->eof;
        w[n] = (struct futex_waitv){
            .val = v, .uaddr = (uintptr_t)l->my_door, .flags = FUTEX_32};
        who[n++] = l;
    }
    int nl = n; /* the kick word and the links; then the flat bell */
    if (pg->flat != NULL && pg->flat_wait > 0) {
        uint32_t bv;
        bool in;
        _Atomic uint32_t *bell = pg_flat_arm(pg->flat, pg->flat_wait, &bv, &in);
        ready |= in;
        w[n++] = (struct futex_waitv){
            .val = bv, .uaddr = (uintptr_t)bell, .flags = FUTEX_32};
    }
    bool timed_out = false;
    if (!ready) {
        int64_t wait = sleep_ns(deadline, 50000000);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t end = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + wait;
        ts.tv_sec = end / 1000000000;
        ts.tv_nsec = end % 1000000000;
        long r = syscall(SYS_futex_waitv, w, n, 0, &ts, CLOCK_MONOTONIC);
        timed_out = r < 0 && errno == ETIMEDOUT;
    }
    atomic_store(&pg->driver_sleeping, 0);
    for (int i = 1; i < nl; i++) {
        pg_shm_disarm(who[i]);
    }
    if (nl < n) {
        pg_flat_disarm(pg->flat);
    }
    if (timed_out) {
        /* nobody woke us: look at the sockets for peers that went away */
        struct pollfd fds[pg->size];
        int k = 0;
        for (int i = 1; i < nl; i++) {
            fds[k++] = (struct pollfd){who[i]->fd, POLLIN | POLLRDHUP, 0};
        }
        if (poll(fds, (nfds_t)k, 0) > 0) {
            for (int i = 0; i < k; i++) {
                if (fds[i].revents) {
                    drain_socket(pg, who[i + 1]);
                }
            }
        }
    }
}

/* Sleep in ppoll until a kick, a wake-up byte, TCP data or the deadline. */
static void
block(ct_pg *pg, int64_t deadline)
{
    bool tcp = false;
    for (int q = 0; q < pg->size && !tcp; q++) {
        tcp = q != pg->rank && !pg->links[q].dead && !pg->links[q].shm;
    }
    if (!tcp && pg_have_futex_waitv()) {
        block_futex(pg, deadline);
        return;
    }
    int n = 0;
    struct pollfd fds[pg->size + 1];
    pg_link *who[pg->size + 1];
    fds[n] = (struct pollfd){pg->efd, POLLIN, 0};
    who[n++] = NULL;
    atomic_store(&pg->driver_sleeping, PG_SLEEP_POLL);
    bool ready = atomic_load(&pg->inbox_n) > 0;
    for (int q = 0; q < pg->size; q++) {
        pg_link *l = &pg->links[q];
        if (q == pg->rank || l->dead || l->fd < 0) {
            continue;
        }
        short ev = POLLRDHUP;
        if (l->shm) {
            ready |= pg_shm_arm(l, l->txq != NULL, PG_SLEEP_POLL);
            ready |= l->eof;
            ev |= POLLIN;
        }
        else {
            if (l->rx_state != RX_MATCH) {
                ev |= POLLIN;
            }
            if (l->want_pollout) {
                ev |= POLLOUT;
            }
        }
        fds[n] = (struct pollfd){l->fd, ev, 0};
        who[n++] = l;
    }
    if (!ready) {
        int64_t wait = sleep_ns(deadline, 1000000000);
        struct timespec ts = {wait / 1000000000, wait % 1000000000};
        ppoll(fds, (nfds_t)n, &ts, NULL);
    }
    else {
        for (int i = 0; i < n; i++) {
            fds[i].revents = 0;
        }
    }
    atomic_store(&pg->driver_sleeping, 0);
    for (int i = 0; i < n; i++) {
        pg_link *l = who[i];
        if (l == NULL) {
            if (fds[i].revents & POLLIN) {
                uint64_t v;
                (void)!read(pg->efd, &v, sizeof v);
            }
            continue;
        }
        if (l->shm) {
            pg_shm_disarm(l);
            if (fds[i].revents & (POLLIN | POLLHUP | POLLERR | POLLRDHUP)) {
                drain_socket(pg, l);
            }
        }
        else if ((fds[i].revents & (POLLHUP | POLLERR | POLLRDHUP)) &&
                 l->rx_state == RX_MATCH) {
            snprintf(l->why, sizeof l->why, "connection closed by the peer");
            l->eof = true;
        }
    }
}

/* Note [Slow yields]
 * A yield helps when the process it hands the core to is a peer that
 * will act at once.  When other work shares the cores (a CPU-bound
 * process per core), the scheduler charges the yielder a whole time
 * slice and runs that work first: one yield then costs milliseconds, and
 * 4 ranks on 2 busy cores took 2.5 ms per small all_reduce (sleeping
 * instead: 40-70 us).  So slow yields (more than 100 us) turn yielding
 * off for a while (20 times as long as the last, at least 50 ms; the rule
 * is pg_yield_pause in yield_rule.h); then a yield tries again.  try_yield
 * is false when the caller should not spin on.
 * One slow yield alone proves nothing: with 4 ranks on 2 quiet cores
 * about 1 yield in 5,000 takes over 100 us (some 10 ms: the hypervisor
 * took the CPU), and turning yields off on each of those kept the ranks
 * sleeping a third of the time, 33-43 us per small operation instead of
 * 13-16.  Those come in bursts (two among eight consecutive yields a few
 * times a second), so it takes four slow ones among the last sixteen,
 * which other work on the cores gives within a few time slices.
 * Yields during a bulk collective (PG_YIELD_BULK_BYTES or more) do not
 * count: the peers then hold their cores for long stretches of copying, so
 * slow yields are normal, and a pause learned in a 64 MB all_reduce made
 * the small operations after it sleep (27 us per barrier at world 4 after
 * one, 15 without).
 * (With 2 ranks and a CPU hog per core the old path also collapsed now
 * and then, to 1.4 ms per small all_reduce.) */
static bool
try_yield(ct_pg *pg, int64_t now)
{
    if (now < pg->no_yield_until) {
        return false;
    }
    pg->wait_yields++;
    sched_yield();
    int64_t took = pg_now_ns() - now;
    int64_t pause = pg_yield_pause(&pg->yield_hist, took, pg->wait_bulk);
    if (pause > 0) {
        pg->no_yield_until = now + took + pause;
    }
    return true;
}

void
pg_idle(ct_pg *pg, int64_t *idle_since, int64_t deadline)
{
    int64_t now = pg_now_ns();
    if (*idle_since == 0) {
        *idle_since = now;
        pg->wait_blocked = false;
        pg->wait_yields = 0;
        if (pg->spin_budget == 0) {
            pthread_once(&tune_once, read_tuning);
            pg->spin_budget = spin_max_ns;
        }
        pg->wait_budget = (++pg->waits & 15) == 0 ? spin_max_ns : pg->spin_budget;
    }
    int64_t idle = now - *idle_since;
    if (pg->oversub && !ovs_off) {
        if (idle < ovs_spin_ns) {
#if defined(__x86_64__)
            for (int i = 0; i < 16; i++) {
                __builtin_ia32_pause();
            }
#endif
            return;
        }
        if (idle < ovs_spin_ns + ovs_yield_ns && pg->wait_yields < ovs_yields &&
            try_yield(pg, now)) {
            return;
        }
        block(pg, deadline);
        return;
    }
    if (idle < pg->wait_budget) {
#if defined(__x86_64__)
        for (int i = 0; i < 16; i++) {
            __builtin_ia32_pause();
        }
#endif
        return;
    }
    pg->wait_blocked = true; /* spinning did not do it */
    if (idle < 2 * pg->wait_budget + SPIN_MIN_NS && try_yield(pg, now)) {
        return;
    }
    block(pg, deadline);
}

void
pg_moved(ct_pg *pg, int64_t *idle_since)
{
    if (*idle_since == 0) {
        return;
    }
    *idle_since = 0;
    if (pg->wait_blocked) {
        pg->spin_budget =
            pg->spin_budget / 2 > SPIN_MIN_NS ? pg->spin_budget / 2 : SPIN_MIN_NS;
    }
    else {
        pg->spin_budget =
            pg->spin_budget * 2 < spin_max_ns ? pg->spin_budget * 2 : spin_max_ns;
    }
}

/* Free every entry the links still hold (the group is closing). */
void
pg_engine_free(ct_pg *pg)
{
    for (int q = 0; q < pg->size; q++) {
        pg_link *l = &pg->links[q];
        if (q == pg->rank) {
            continue;
        }
        if (!l->dead) {
            pg_link_fail(pg, l, "the process group was shut down");
        }
        if (l->rx_target != NULL) {
            rxe_finish(pg, l->rx_target, PG_E_FAILED);
            l->rx_target = NULL;
        }
        free(l->rx_meta);
        l->rx_meta = NULL;
        pg_prune_aborted(l, INT64_MAX);
        free(l->aborted);
        free(l->abort_why);
        l->aborted = NULL;
        l->abort_why = NULL;
        l->naborted = l->cap_aborted = 0;
    }
}
