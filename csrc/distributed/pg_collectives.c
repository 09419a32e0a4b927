/* csrc/distributed/pg_collectives.c -- the collective algorithms.
 *
 * Every collective runs in two phases (Note [Process group structure]):
 *   1. each rank sends its pg_meta to every peer, with the data itself
 *      when the operation is small; every rank checks all P descriptions
 *      with the same rules, so all reach the same verdict and message
 *      before any output is written;
 *   2. the data moves: ring reduce-scatter / all-gather for large
 *      all_reduce, reduce and reduce_scatter, a binomial tree for large
 *      broadcast, direct pair-wise streams for the gathers, scatter and
 *      all_to_all.  Large buffers are cut into segments so a step starts
 *      forwarding while the previous one still arrives.
 * Reductions are done in a fixed order (rank order for the small paths,
 * ring order for the large ones), so every rank gets the same bits.
 *
 * A failure (a peer gone, a timeout, a peer that abandoned the operation)
 * lets go of every entry and sends ABORT(seq) to the peers, so a rank that
 * arrives late fails at once instead of waiting for data that will never
 * come, and later collectives line up again by sequence number.
 */
#include "pg_impl.h"
#include "yield_rule.h"

#include <ctorch/ops.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pipelining grain of the ring and the tree: a chunk in about 8 segments
 * (a step forwards the first while the rest arrives), 32 KB to 512 KB. */
static size_t
seg_bytes(size_t chunk, size_t E)
{
    size_t s = chunk / 8;
    s = s < 32768 ? 32768 : s > 524288 ? 524288 : s;
    return s / 64 * 64 / E * E;
}

/* Up to this many bytes a reduction goes in one step (everyone sends its
 * data to everyone with the descriptions; each rank folds in rank order). */
static size_t
direct_max(int P)
{
    static long env = -2;
    if (env == -2) {
        const char *e = getenv("CTORCH_GLOO_DIRECT_MAX");
        env = e ? atol(e) : -1;
    }
    if (env >= 0) {
        return (size_t)env;
    }
    return P <= 2 ? 256 * 1024 : 32 * 1024;
}

#define PAIR_SMALL (64 * 1024) /* pair-wise payloads this small ride in phase 1 */

typedef struct {
    ct_pg *pg;
    ct_work *w;
    const char *name;
    int P, r;
    int64_t deadline, idle;
    int dead_seen, abort_seen;
    int done, posted;
    pg_rxe **rx;
    int nrx, caprx;
    pg_txe **tx;
    int ntx, captx;
    ct_error_state err;
    bool failed, no_abort;
    int phase;
    uint8_t *mymeta;
    uint32_t mymeta_len;
    pg_rxe **meta_rx; /* [P] */
    char **p1data;    /* [P] phase-1 payloads */
    ct_tensor **temps;
    int ntemps, captemps;
} coll;

static int
c_fail(coll *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int off = snprintf(c->err.message, sizeof c->err.message,
                       "ProcessGroupGloo::%s: ", c->name);
    vsnprintf(c->err.message + off, sizeof c->err.message - (size_t)off, fmt, ap);
    va_end(ap);
    c->err.code = CT_ERR_RUNTIME;
    c->failed = true;
    return -1;
}

/* A C-level error (out of memory, a copy) becomes the operation's. */
static int
c_fail_ct(coll *c)
{
    ct_error_state st;
    ct_error_fetch(&st);
    return c_fail(c, "%s", st.message);
}

static int
grow(void **arr, int *cap, int need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    int nc = *cap ? *cap * 2 : 16;
    while (nc < need) {
        nc *= 2;
    }
    void *a = realloc(*arr, (size_t)nc * elem);
    if (a == NULL) {
        return -1;
    }
    *arr = a;
    *cap = nc;
    return 0;
}

static char *
c_temp(coll *c, size_t bytes, ct_tensor **keep)
{
    int64_t n = (int64_t)(bytes ? bytes : 1);
    if (grow((void **)&c->temps, &c->captemps, c->ntemps + 1, sizeof *c->temps) < 0) {
        c_fail(c, "out of memory");
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &n, CT_DTYPE_UINT8, ct_device_cpu());
    if (t == NULL) {
        c_fail_ct(c);
        return NULL;
    }
    c->temps[c->ntemps++] = t;
    if (keep != NULL) {
        *keep = t;
    }
    return ct_tensor_data(t);
}

static int
c_gone(coll *c, int q)
{
    return c_fail(c, "rank %d is gone (%s)", q, c->pg->links[q].why);
}

static pg_rxe *
c_recv(coll *c, int peer, uint64_t id, char *dst, size_t cap, int mode, ct_dtype dt,
       ct_redop rop)
{
    if (grow((void **)&c->rx, &c->caprx, c->nrx + 1, sizeof *c->rx) < 0) {
        c_fail(c, "out of memory");
        return NULL;
    }
    pg_rxe *e = pg_rxe_new(peer, PG_FR_COLL, c->w->seq, id, dst, cap, mode);
    if (e == NULL) {
        c_fail_ct(c);
        return NULL;
    }
    e->dtype = dt;
    e->rop = rop;
    e->done_count = &c->done;
    c->rx[c->nrx++] = e;
    c->posted++;
    pg_recv_start(c->pg, e);
    if (e->state == PG_E_FAILED) {
        c_gone(c, peer);
        return NULL;
    }
    return e;
}

static pg_txe *
c_send(coll *c, int peer, uint64_t id, const void *meta, uint32_t mlen,
       const char *payload, size_t len, ct_tensor *keep)
{
    if (grow((void **)&c->tx, &c->captx, c->ntx + 1, sizeof *c->tx) < 0) {
        c_fail(c, "out of memory");
        return NULL;
    }
    pg_txe *e =
        pg_txe_new(peer, PG_FR_COLL, c->w->seq, id, meta, mlen, payload, len, keep);
    if (e == NULL) {
        c_fail_ct(c);
        return NULL;
    }
    e->done_count = &c->done;
    c->tx[c->ntx++] = e;
    c->posted++;
    pg_send_start(c->pg, e);
    if (e->state == PG_E_FAILED) {
        c_gone(c, peer);
        return NULL;
    }
    return e;
}

/* Has rank q stamped its flat slot for this collective? */
static bool
flat_in(const coll *c, int q)
{
    const pg_flat_slot *s = pg_flat_slot_at(c->pg->flat, c->w->seq, q);
    return atomic_load_explicit(&s->seq, memory_order_acquire) == c->w->seq;
}

/* Did rank q come to this collective: its stamp is there, or it stamped
 * and withdrew the stamp when it gave up (-seq, see c_exchange_flat)? */
static bool
flat_came(const coll *c, int q)
{
    const pg_flat_slot *s = pg_flat_slot_at(c->pg->flat, c->w->seq, q);
    int64_t v = atomic_load_explicit(&s->seq, memory_order_acquire);
    return v == c->w->seq || v == -c->w->seq;
}

/* The ranks of the receives (from index `from`) not finished yet (and,
 * during a flat exchange, the ranks that never stamped their slot). */
static void
pending_ranks(coll *c, int from, char *buf, size_t n, int *count)
{
    bool seen[c->P];
    memset(seen, 0, sizeof seen);
    size_t off = 0;
    *count = 0;
    buf[0] = 0;
    for (int i = from; i < c->nrx; i++) {
        int q = c->rx[i]->peer;
        if (c->rx[i]->state == PG_E_DONE || q < 0 || seen[q]) {
            continue;
        }
        seen[q] = true;
        if (off < n - 16) {
            off += (size_t)snprintf(buf + off, n - off, "%s%d", *count ? ", " : "", q);
        }
        (*count)++;
    }
    for (int q = 0; c->pg->flat_wait == c->w->seq && q < c->P; q++) {
        if (q == c->r || seen[q] || flat_came(c, q)) {
            continue;
        }
        seen[q] = true;
        if (off < n - 16) {
            off += (size_t)snprintf(buf + off, n - off, "%s%d", *count ? ", " : "", q);
        }
        (*count)++;
    }
}

static int
c_timeout(coll *c)
{
    char ranks[256];
    int cnt;
    pending_ranks(c, 0, ranks, sizeof ranks, &cnt);
    long long ms = (long long)c->pg->timeout_ms;
    if (c->phase == 1 && cnt > 0) {
        return c_fail(c,
                      "timed out after %lld ms: %s %s never arrived at this collective "
                      "(sequence number %lld)",
                      ms, cnt == 1 ? "rank" : "ranks", ranks, (long long)c->w->seq);
    }
    if (cnt > 0) {
        return c_fail(c, "timed out after %lld ms waiting for data from %s %s", ms,
                      cnt == 1 ? "rank" : "ranks", ranks);
    }
    for (int i = 0; i < c->ntx; i++) {
        if (c->tx[i]->state != PG_E_DONE) {
            return c_fail(
                c, "timed out after %lld ms waiting for rank %d to take the data", ms,
                c->tx[i]->peer);
        }
    }
    return c_fail(c, "timed out after %lld ms", ms);
}

/* A peer that died fails the operation when the operation still needs it:
 * at the start every peer is needed; later, the entries to or from it
 * fail with its link.  (A peer that left after its last message to us,
 * e.g. a rank that finished and exited, is no reason to fail.) */
static int
c_check_links(coll *c)
{
    ct_pg *pg = c->pg;
    if (pg->dead_count != c->dead_seen) {
        bool start = c->dead_seen < 0;
        c->dead_seen = pg->dead_count;
        for (int q = 0; start && q < c->P; q++) {
            if (q != c->r && pg->links[q].dead) {
                return c_gone(c, q);
            }
        }
        for (int i = 0; i < c->nrx; i++) {
            if (c->rx[i]->state == PG_E_FAILED) {
                return c_gone(c, c->rx[i]->peer);
            }
        }
        for (int i = 0; i < c->ntx; i++) {
            if (c->tx[i]->state == PG_E_FAILED) {
                return c_gone(c, c->tx[i]->peer);
            }
        }
        for (int q = 0; pg->flat_wait == c->w->seq && q < c->P; q++) {
            if (q != c->r && pg->links[q].dead && !flat_in(c, q)) {
                return c_gone(c, q);
            }
        }
    }
    if (pg->abort_count != c->abort_seen) {
        c->abort_seen = pg->abort_count;
        for (int q = 0; q < c->P; q++) {
            const char *why =
                q != c->r ? pg_peer_aborted(&pg->links[q], c->w->seq) : NULL;
            if (why != NULL) {
                return c_fail(
                    c, "rank %d abandoned this collective (sequence number %lld): %s",
                    q, (long long)c->w->seq, why);
            }
        }
    }
    return 0;
}

/* One step of waiting: move data, or sleep a little; -1 on failure. */
static int
c_step(coll *c)
{
    ct_pg *pg = c->pg;
    if (atomic_load(&pg->closing)) {
        c->no_abort = true;
        return c_fail(c, "the process group was shut down");
    }
    if (c_check_links(c) < 0) {
        return -1;
    }
    pg_absorb_inbox(pg);
    bool moved = pg_progress(pg);
    if (pg->p2p != NULL) {
        pg_p2p_check_deadlines(pg, pg_now_ns());
    }
    if (moved) {
        pg_moved(pg, &c->idle);
        return 0;
    }
    if (c->deadline >= 0 && pg_now_ns() >= c->deadline) {
        return c_timeout(c);
    }
    pg_idle(pg, &c->idle, c->deadline);
    return 0;
}

static int
c_wait_all(coll *c)
{
    while (c->done < c->posted) {
        if (c->failed || c_step(c) < 0) {
            return -1;
        }
    }
    return c_check_links(c);
}

/* --- staging: contiguous buffers for possibly strided tensors -------------- */

typedef struct {
    ct_tensor *user; /* borrowed */
    ct_tensor *t;    /* owned: user itself when contiguous */
    char *p;
    size_t bytes;
} stage;

static int
stage_in(coll *c, stage *s, ct_tensor *t, bool copy_in)
{
    s->user = t;
    if (ct_tensor_is_contiguous(t)) {
        s->t = t;
        ct_tensor_incref(t);
    }
    else if (copy_in) {
        s->t = ct_contiguous(t);
    }
    else {
        s->t = ct_empty(t->ndim, t->sizes, t->dtype, ct_device_cpu());
    }
    if (s->t == NULL) {
        return c_fail_ct(c);
    }
    s->p = ct_tensor_data(s->t);
    s->bytes = (size_t)t->numel * ct_dtype_itemsize(t->dtype);
    return 0;
}

static int
stage_out(coll *c, stage *s)
{
    if (s->t != s->user && ct_copy_(s->user, s->t) < 0) {
        return c_fail_ct(c);
    }
    ct_tensor_bump_version(s->user);
    return 0;
}

static void
stage_drop(stage *s)
{
    ct_tensor_decref(s->t);
    s->t = NULL;
}

/* dst (any layout) = the raw contiguous bytes at src */
static int
copy_raw_to(coll *c, ct_tensor *dst, const char *src)
{
    size_t bytes = (size_t)dst->numel * ct_dtype_itemsize(dst->dtype);
    if (ct_tensor_is_contiguous(dst)) {
        if (bytes > 0) {
            memmove(ct_tensor_data(dst), src, bytes);
        }
    }
    else {
        int64_t strides[CT_MAX_DIMS];
        ct_contiguous_strides(dst->ndim, dst->sizes, strides);
        ct_storage *st =
            ct_storage_new_external((void *)src, bytes, ct_device_cpu(), NULL, NULL);
        ct_tensor *v =
            st ? ct_tensor_new(st, 0, dst->ndim, dst->sizes, strides, dst->dtype)
               : NULL;
        ct_storage_decref(st);
        int rc = v ? ct_copy_(dst, v) : -1;
        ct_tensor_decref(v);
        if (rc < 0) {
            return c_fail_ct(c);
        }
    }
    ct_tensor_bump_version(dst);
    return 0;
}

/* --- phase 1: descriptions ---------------------------------------------------- */

static int
c_meta(coll *c, ct_dtype dt, int64_t numel, const ct_tensor *shape,
       const int64_t *extra, int nextra)
{
    int nd = shape ? shape->ndim : 0;
    size_t len = sizeof(pg_meta) + (size_t)(nd + nextra) * sizeof(int64_t);
    c->mymeta = malloc(len);
    if (c->mymeta == NULL) {
        return c_fail(c, "out of memory");
    }
    pg_meta h = {(uint32_t)c->w->kind,
                 (int32_t)dt,
                 (int32_t)c->w->rop,
                 c->w->root,
                 numel,
                 nd,
                 nextra};
    memcpy(c->mymeta, &h, sizeof h);
    if (nd > 0) {
        memcpy(c->mymeta + sizeof h, shape->sizes, (size_t)nd * sizeof(int64_t));
    }
    if (nextra > 0) {
        memcpy(c->mymeta + sizeof h + (size_t)nd * sizeof(int64_t), extra,
               (size_t)nextra * sizeof(int64_t));
    }
    c->mymeta_len = (uint32_t)len;
    return 0;
}

static bool
reduces(int op)
{
    return op == PG_OP_ALLREDUCE || op == PG_OP_REDUCE || op == PG_OP_REDUCE_SCATTER ||
           op == PG_OP_REDUCE_SCATTER_BASE;
}

static bool
rooted(int op)
{
    return op == PG_OP_BROADCAST || op == PG_OP_REDUCE || op == PG_OP_GATHER ||
           op == PG_OP_SCATTER;
}

static const int64_t *
meta_extra(const uint8_t *m, const pg_meta *h)
{
    return (const int64_t *)(m + sizeof *h + (size_t)h->ndim * sizeof(int64_t));
}

/* The same rules on every rank over the same P descriptions. */
static int
c_validate(coll *c, const uint8_t **m, uint32_t *len)
{
    int P = c->P;
    pg_meta h[P];
    memset(h, 0, sizeof h);
    for (int q = 0; q < P; q++) {
        if (m[q] == NULL || len[q] < sizeof(pg_meta)) {
            return c_fail(c, "rank %d sent no description of its arguments", q);
        }
        memcpy(&h[q], m[q], sizeof h[q]);
        if (h[q].ndim < 0 || h[q].nextra < 0 || h[q].ndim > CT_MAX_DIMS ||
            len[q] < sizeof(pg_meta) + (size_t)(h[q].ndim + h[q].nextra) * 8 ||
            h[q].op >= PG_OP_COUNT) {
            return c_fail(c, "rank %d sent a corrupt description of its arguments", q);
        }
    }
    c->no_abort = true; /* a verdict every rank reaches by itself */
    for (int q = 1; q < P; q++) {
        if (h[q].op != h[0].op) {
            return c_fail(
                c,
                "rank 0 called %s while rank %d called %s: every rank must call "
                "the same collectives in the same order",
                pg_op_names[h[0].op], q, pg_op_names[h[q].op]);
        }
    }
    int op = (int)h[0].op;
    for (int q = 1; q < P; q++) {
        if (rooted(op) && h[q].root != h[0].root) {
            return c_fail(
                c, "ranks disagree on the root: rank 0 passed %d, rank %d passed %d",
                h[0].root, q, h[q].root);
        }
        if (reduces(op) && h[q].rop != h[0].rop) {
            return c_fail(c,
                          "ranks disagree on the reduce op: rank 0 passed ReduceOp.%s, "
                          "rank %d passed ReduceOp.%s",
                          pg_reduce_name((ct_redop)h[0].rop), q,
                          pg_reduce_name((ct_redop)h[q].rop));
        }
    }
    if (op == PG_OP_BARRIER) {
        c->no_abort = false;
        return 0;
    }
    for (int q = 1; q < P; q++) {
        bool same_numel = op == PG_OP_ALLTOALL || h[q].numel == h[0].numel;
        if (h[q].dtype != h[0].dtype || !same_numel) {
            char a[320], b[320];
            pg_meta_describe(m[0], len[0], a, sizeof a);
            pg_meta_describe(m[q], len[q], b, sizeof b);
            return c_fail(c,
                          "the tensors differ across ranks: rank 0 has a tensor of %s, "
                          "rank %d has one of %s",
                          a, q, b);
        }
        if (op == PG_OP_ALLGATHER &&
            meta_extra(m[q], &h[q])[0] != meta_extra(m[0], &h[0])[0]) {
            return c_fail(c, "rank 0 passed %lld input tensors, rank %d passed %lld",
                          (long long)meta_extra(m[0], &h[0])[0], q,
                          (long long)meta_extra(m[q], &h[q])[0]);
        }
    }
    if (op == PG_OP_ALLTOALL_BASE || op == PG_OP_ALLTOALL) {
        const char *unit = op == PG_OP_ALLTOALL ? "elements" : "rows";
        for (int a = 0; a < P; a++) {
            if (h[a].nextra != 2 * P) {
                return c_fail(c, "rank %d sent a corrupt description of its arguments",
                              a);
            }
        }
        for (int a = 0; a < P; a++) {
            for (int b = 0; b < P; b++) {
                int64_t sends = meta_extra(m[a], &h[a])[b];
                int64_t expects = meta_extra(m[b], &h[b])[P + a];
                if (sends != expects) {
                    return c_fail(
                        c,
                        "split sizes disagree: rank %d sends %lld %s to rank %d, "
                        "which expects %lld %s from it",
                        a, (long long)sends, unit, b, (long long)expects, unit);
                }
            }
        }
    }
    c->no_abort = false;
    return 0;
}

/* Phase 1 through the group's segment (Note [Flat exchange]): 0 done,
 * 1 when some rank goes by the rings (then every rank does), -1 failed. */
static int
c_exchange_flat(coll *c, char **sp, size_t *sl, size_t *rc)
{
    ct_pg *pg = c->pg;
    pg_flat *f = pg->flat;
    int P = c->P, r = c->r;
    int64_t seq = c->w->seq;
    /* inline when the descriptions and every part fit (a part sent to
     * several ranks is written once) */
    pg_flat_slot *mine = pg_flat_slot_at(f, seq, r);
    char *area = pg_flat_data(mine);
    size_t used = 0, cap = pg_flat_cap(f);
    bool inl = c->mymeta_len <= PG_FLAT_META_MAX;
    for (int q = 0; q < P && inl; q++) {
        mine->part[q].len = PG_FLAT_NONE;
        if (q == r || sp == NULL || sp[q] == NULL) {
            continue;
        }
        int same = -1;
        for (int k = 0; k < q && same < 0; k++) {
            if (k != r && sp[k] == sp[q] && sl[k] == sl[q]) {
                same = k;
            }
        }
        if (same >= 0) {
            mine->part[q] = mine->part[same];
            continue;
        }
        if (sl[q] > cap - used) {
            inl = false;
            break;
        }
        mine->part[q].off = used;
        mine->part[q].len = sl[q];
        if (sl[q] > 0) {
            memcpy(area + used, sp[q], sl[q]);
        }
        used += pg_pad8(sl[q]);
    }
    mine->meta_len = inl ? c->mymeta_len : 0;
    if (inl) {
        memcpy(mine->meta, c->mymeta, c->mymeta_len);
    }
    c->phase = 1;
    pg_flat_publish(f, seq);
    pg->flat_wait = seq;
    while (!pg_flat_all_in(f, seq)) {
        if (c->failed || c_step(c) < 0) {
            /* take the stamp back: a late peer then learns of the ABORT
             * instead of finishing without us.  Leave -seq, not 0: a peer
             * whose own timeout falls between this store and our ABORT
             * reaching it must still count us as arrived (it names only
             * the ranks that never came). */
            atomic_store(&mine->seq, -seq);
            pg->flat_wait = 0;
            return -1;
        }
    }
    pg->flat_wait = 0;
    const uint8_t *m[P];
    uint32_t len[P];
    pg_flat_slot *sl_[P];
    size_t total = 0;
    for (int q = 0; q < P; q++) {
        sl_[q] = pg_flat_slot_at(f, seq, q);
        m[q] = sl_[q]->meta;
        len[q] = sl_[q]->meta_len;
        if (len[q] == 0) {
            return 1;
        }
        total += q != r && rc != NULL ? pg_pad8(rc[q]) : 0;
    }
    if (c_validate(c, m, len) < 0) {
        return -1;
    }
    char *buf = total ? c_temp(c, total, NULL) : NULL;
    if (total && buf == NULL) {
        return -1;
    }
    bool size_mismatch = false;
    for (int q = 0; q < P; q++) {
        if (q == r) {
            continue;
        }
        size_t want = rc != NULL ? rc[q] : 0;
        uint64_t off = sl_[q]->part[r].off, got = sl_[q]->part[r].len;
        got = got == PG_FLAT_NONE ? 0 : got;
        size_mismatch |= got != want;
        c->p1data[q] = buf;
        if (got == want && want > 0) {
            memcpy(buf, pg_flat_data(sl_[q]) + off, want);
        }
        buf += pg_pad8(want);
    }
    /* a peer two operations ahead (it gave up on this one and the next)
     * may have refilled its slot meanwhile */
    for (int q = 0; q < P; q++) {
        if (!flat_in(c, q)) {
            return c_fail(c, "rank %d abandoned this collective (sequence number %lld)",
                          q, (long long)seq);
        }
    }
    if (size_mismatch) {
        c->no_abort = true;
        return c_fail(c, "the ranks disagree on the size of the data");
    }
    c->phase = 2;
    return 0;
}

/* Send my description to every peer (with payload sp[q] of sl[q] bytes
 * when sp[q] is set) and take theirs (expecting rc[q] payload bytes, which
 * land in c->p1data[q]); then check them all. */
static int
c_exchange(coll *c, char **sp, size_t *sl, ct_tensor *keep, size_t *rc)
{
    int P = c->P, r = c->r;
    c->phase = 1;
    c->meta_rx = calloc((size_t)P, sizeof *c->meta_rx);
    c->p1data = calloc((size_t)P, sizeof *c->p1data);
    if (c->meta_rx == NULL || c->p1data == NULL) {
        return c_fail(c, "out of memory");
    }
    if (c->pg->flat != NULL) {
        int k = c_exchange_flat(c, sp, sl, rc);
        if (k <= 0) {
            return k;
        }
    }
    size_t total = 0;
    for (int q = 0; q < P; q++) {
        total += q != r && rc != NULL ? pg_pad8(rc[q]) : 0;
    }
    char *buf = total ? c_temp(c, total, NULL) : NULL;
    if (total && buf == NULL) {
        return -1;
    }
    for (int i = 1; i < P; i++) {
        int q = (r + i) % P, from = (r - i + P) % P;
        size_t cap = rc != NULL ? rc[from] : 0;
        c->p1data[from] = buf;
        buf += pg_pad8(cap);
        c->meta_rx[from] = c_recv(c, from, 0, c->p1data[from], cap, PG_DELIVER_COPY,
                                  CT_DTYPE_UINT8, CT_REDOP_SUM);
        bool with = sp != NULL && sp[q] != NULL;
        if (c->meta_rx[from] == NULL ||
            c_send(c, q, 0, c->mymeta, c->mymeta_len, with ? sp[q] : NULL,
                   with ? sl[q] : 0, keep) == NULL) {
            return -1;
        }
    }
    if (c_wait_all(c) < 0) {
        return -1;
    }
    const uint8_t *m[P];
    uint32_t len[P];
    bool size_mismatch = false;
    for (int q = 0; q < P; q++) {
        if (q == r) {
            m[q] = c->mymeta;
            len[q] = c->mymeta_len;
            continue;
        }
        m[q] = c->meta_rx[q]->meta;
        len[q] = c->meta_rx[q]->meta_len;
        size_mismatch |= c->meta_rx[q]->mismatch;
    }
    if (c_validate(c, m, len) < 0) {
        return -1;
    }
    if (size_mismatch) {
        c->no_abort = true;
        return c_fail(c, "the ranks disagree on the size of the data");
    }
    c->phase = 2;
    return 0;
}

/* Fold P contributions in rank order into dst: x[q] is rank q's (x[r] may
 * alias dst). */
static int
c_fold(coll *c, char *dst, char *const *x, int64_t n, ct_dtype dt, ct_redop op)
{
    size_t bytes = (size_t)n * ct_dtype_itemsize(dt);
    pg_reduce_fn f = pg_reduce_fn_for(dt, op);
    if (c->P == 1 || n == 0) {
        if (x[0] != dst && bytes) {
            memcpy(dst, x[0], bytes);
        }
        return 0;
    }
    char *acc = dst;
    if (x[0] != dst) {
        /* dst may be one of the later contributions: accumulate aside */
        bool alias = false;
        for (int q = 1; q < c->P; q++) {
            alias |= x[q] == dst;
        }
        if (alias && (acc = c_temp(c, bytes, NULL)) == NULL) {
            return -1;
        }
        memcpy(acc, x[0], bytes);
    }
    for (int q = 1; q < c->P; q++) {
        f(acc, x[q], (size_t)n);
    }
    if (acc != dst) {
        memcpy(dst, acc, bytes);
    }
    return 0;
}

/* --- phase 2 building blocks ------------------------------------------------- */

static int
mod(int a, int P)
{
    return ((a % P) + P) % P;
}

/* Ring reduce-scatter and/or all-gather over P chunks: chunk q lives at
 * ptr[q] (len[q] bytes, kept alive by keep[q]).  After the reduce-scatter
 * rank r holds chunk r reduced over all ranks; after the all-gather every
 * rank holds every chunk.  Rank r never receives into chunk r - 1 during
 * the reduce-scatter (it only sends it, at the first step), so that one
 * may be read-only. */
static int
c_ring_chunks(coll *c, char *const *ptr, const size_t *len, ct_tensor *const *keep,
              ct_dtype dt, ct_redop op, bool rs, bool ag)
{
    int P = c->P, r = c->r;
    if (P == 1) {
        return 0;
    }
    size_t E = ct_dtype_itemsize(dt), most = 0;
    for (int q = 0; q < P; q++) {
        most = len[q] > most ? len[q] : most;
    }
    if (most == 0) {
        return 0;
    }
    size_t seg = seg_bytes(most, E);
    int T = (rs ? P - 1 : 0) + (ag ? P - 1 : 0);
    int sendc[T], recvc[T], base[T + 1], cursor[T];
    bool red[T];
    base[0] = 0;
    for (int t = 0; t < T; t++) {
        if (rs && t < P - 1) {
            sendc[t] = mod(r - t - 1, P);
            recvc[t] = mod(r - t - 2, P);
            red[t] = true;
        }
        else {
            int s = t - (rs ? P - 1 : 0);
            sendc[t] = mod(r - s, P);
            recvc[t] = mod(r - s - 1, P);
            red[t] = false;
        }
        base[t + 1] = base[t] + (int)((len[recvc[t]] + seg - 1) / seg);
        cursor[t] = 0;
    }
    int left = mod(r - 1, P), right = mod(r + 1, P);
    int first_rx = c->nrx;
    for (int t = 0; t < T; t++) {
        int ch = recvc[t];
        for (int k = 0; k < base[t + 1] - base[t]; k++) {
            size_t o = (size_t)k * seg, l = len[ch] - o < seg ? len[ch] - o : seg;
            if (c_recv(c, left, 1 + ((uint64_t)t << 32) + (uint64_t)k, ptr[ch] + o, l,
                       red[t] ? PG_DELIVER_REDUCE : PG_DELIVER_COPY, dt, op) == NULL) {
                return -1;
            }
        }
    }
    {
        int ch = sendc[0];
        for (size_t o = 0, k = 0; o < len[ch]; o += seg, k++) {
            size_t l = len[ch] - o < seg ? len[ch] - o : seg;
            if (c_send(c, right, 1 + k, NULL, 0, ptr[ch] + o, l, keep[ch]) == NULL) {
                return -1;
            }
        }
    }
    for (;;) {
        bool all = true;
        for (int t = 0; t < T; t++) {
            int nseg = base[t + 1] - base[t];
            while (cursor[t] < nseg &&
                   c->rx[first_rx + base[t] + cursor[t]]->state == PG_E_DONE) {
                if (t + 1 < T) {
                    int ch = recvc[t];
                    size_t o = (size_t)cursor[t] * seg,
                           l = len[ch] - o < seg ? len[ch] - o : seg;
                    if (c_send(c, right,
                               1 + ((uint64_t)(t + 1) << 32) + (uint64_t)cursor[t],
                               NULL, 0, ptr[ch] + o, l, keep[ch]) == NULL) {
                        return -1;
                    }
                }
                cursor[t]++;
            }
            all &= cursor[t] == nseg;
        }
        if (all && c->done == c->posted) {
            break;
        }
        if (c->failed || c_step(c) < 0) {
            return -1;
        }
    }
    return c_check_links(c);
}

/* The ring over one buffer of n elements, cut into P near-equal chunks. */
static int
c_ring(coll *c, char *buf, ct_tensor *keep, int64_t n, ct_dtype dt, ct_redop op,
       bool rs, bool ag)
{
    int P = c->P;
    size_t E = ct_dtype_itemsize(dt);
    char *ptr[P];
    size_t len[P];
    ct_tensor *keeps[P];
    for (int q = 0; q < P; q++) {
        size_t o = (size_t)(n * q / P) * E;
        ptr[q] = buf + o;
        len[q] = (size_t)(n * (q + 1) / P) * E - o;
        keeps[q] = keep;
    }
    return c_ring_chunks(c, ptr, len, keeps, dt, op, rs, ag);
}

/* The chunk boundaries c_ring uses, for the reduce's final gather. */
static size_t
ring_off(int64_t n, int q, int P, size_t E)
{
    return (size_t)(n * q / P) * E;
}

/* Binomial-tree broadcast of buf from root, segment by segment. */
static int
c_tree(coll *c, char *buf, ct_tensor *keep, size_t bytes, int root)
{
    int P = c->P, r = c->r;
    if (P == 1 || bytes == 0) {
        return 0;
    }
    int vr = mod(r - root, P), parent = -1, mask = 1;
    while (mask < P) {
        if (vr & mask) {
            parent = mod((vr ^ mask) + root, P);
            break;
        }
        mask <<= 1;
    }
    int children[32], nch = 0;
    for (int m = mask >> 1; m > 0; m >>= 1) {
        if (vr + m < P) {
            children[nch++] = mod(vr + m + root, P);
        }
    }
    size_t seg = seg_bytes(bytes, 1);
    int nseg = (int)((bytes + seg - 1) / seg);
    if (parent < 0) {
        for (int k = 0; k < nseg; k++) {
            size_t o = (size_t)k * seg, l = bytes - o < seg ? bytes - o : seg;
            for (int i = 0; i < nch; i++) {
                if (c_send(c, children[i], 1 + (uint64_t)k, NULL, 0, buf + o, l,
                           keep) == NULL) {
                    return -1;
                }
            }
        }
        return c_wait_all(c);
    }
    int first = c->nrx;
    for (int k = 0; k < nseg; k++) {
        size_t o = (size_t)k * seg, l = bytes - o < seg ? bytes - o : seg;
        if (c_recv(c, parent, 1 + (uint64_t)k, buf + o, l, PG_DELIVER_COPY,
                   CT_DTYPE_UINT8, CT_REDOP_SUM) == NULL) {
            return -1;
        }
    }
    int cursor = 0;
    for (;;) {
        while (cursor < nseg && c->rx[first + cursor]->state == PG_E_DONE) {
            size_t o = (size_t)cursor * seg, l = bytes - o < seg ? bytes - o : seg;
            for (int i = 0; i < nch; i++) {
                if (c_send(c, children[i], 1 + (uint64_t)cursor, NULL, 0, buf + o, l,
                           keep) == NULL) {
                    return -1;
                }
            }
            cursor++;
        }
        if (cursor == nseg && c->done == c->posted) {
            break;
        }
        if (c->failed || c_step(c) < 0) {
            return -1;
        }
    }
    return c_check_links(c);
}

/* Pair-wise exchange: sp[q]/sl[q] go to rank q, rank q's data lands in
 * dst[q] (dl[q] bytes); pairs of at most PAIR_SMALL bytes ride in phase 1.
 * Runs both phases (the description must be built). */
static int
c_personal(coll *c, char **sp, size_t *sl, ct_tensor *keep, char **dst, size_t *dl)
{
    int P = c->P, r = c->r;
    char *p1s[P];
    size_t p1l[P], p1r[P];
    for (int q = 0; q < P; q++) {
        bool small_s = sl[q] <= PAIR_SMALL, small_r = dl[q] <= PAIR_SMALL;
        p1s[q] = small_s ? (sp[q] != NULL ? sp[q] : (char *)"") : NULL;
        p1l[q] = small_s ? sl[q] : 0;
        p1r[q] = small_r ? dl[q] : 0;
    }
    if (c_exchange(c, p1s, p1l, keep, p1r) < 0) {
        return -1;
    }
    for (int q = 0; q < P; q++) {
        if (q != r && dl[q] <= PAIR_SMALL && dl[q] > 0) {
            memcpy(dst[q], c->p1data[q], dl[q]);
        }
    }
    for (int i = 1; i < P; i++) {
        int q = (r + i) % P, from = (r - i + P) % P;
        if (dl[from] > PAIR_SMALL &&
            c_recv(c, from, 1, dst[from], dl[from], PG_DELIVER_COPY, CT_DTYPE_UINT8,
                   CT_REDOP_SUM) == NULL) {
            return -1;
        }
        if (sl[q] > PAIR_SMALL &&
            c_send(c, q, 1, NULL, 0, sp[q], sl[q], keep) == NULL) {
            return -1;
        }
    }
    if (sl[r] > 0 && dst[r] != sp[r]) {
        memcpy(dst[r], sp[r], sl[r] < dl[r] ? sl[r] : dl[r]);
    }
    return c_wait_all(c);
}

/* --- the operations ----------------------------------------------------------- */

static int
op_barrier(coll *c)
{
    if (c_meta(c, CT_DTYPE_UINT8, 0, NULL, NULL, 0) < 0) {
        return -1;
    }
    return c_exchange(c, NULL, NULL, NULL, NULL);
}

/* A working copy of the k inputs reduced locally (gloo reduces a list). */
static int
local_inputs(coll *c, stage *s, ct_tensor **t, int k, ct_redop op, bool copy_always)
{
    if (k == 1 && !copy_always) {
        return stage_in(c, s, t[0], true);
    }
    ct_tensor *keep;
    size_t bytes = (size_t)t[0]->numel * ct_dtype_itemsize(t[0]->dtype);
    char *p = c_temp(c, bytes, &keep);
    if (p == NULL) {
        return -1;
    }
    s->user = t[0];
    s->t = keep;
    ct_tensor_incref(keep);
    s->p = p;
    s->bytes = bytes;
    pg_reduce_fn f = pg_reduce_fn_for(t[0]->dtype, op);
    for (int i = 0; i < k; i++) {
        ct_tensor *ci = ct_contiguous(t[i]);
        if (ci == NULL) {
            return c_fail_ct(c);
        }
        if (i == 0) {
            memcpy(p, ct_tensor_data(ci), bytes);
        }
        else if (f != NULL) {
            f(p, ct_tensor_data(ci), (size_t)t[0]->numel);
        }
        ct_tensor_decref(ci);
    }
    return 0;
}

static int
write_all(coll *c, stage *s, ct_tensor **t, int k)
{
    if (k == 1) {
        return stage_out(c, s);
    }
    for (int i = 0; i < k; i++) {
        if (copy_raw_to(c, t[i], s->p) < 0) {
            return -1;
        }
    }
    return 0;
}

static int
op_allreduce(coll *c)
{
    ct_work *w = c->w;
    ct_tensor **t = w->in;
    int k = w->nin, P = c->P;
    ct_dtype dt = t[0]->dtype;
    int64_t n = t[0]->numel;
    stage s = {0};
    int rc = -1;
    if (local_inputs(c, &s, t, k, w->rop, k > 1) < 0 ||
        c_meta(c, dt, n, t[0], NULL, 0) < 0) {
        goto done;
    }
    if (s.bytes <= direct_max(P)) {
        char *sp[P];
        size_t sl[P], rcap[P];
        for (int q = 0; q < P; q++) {
            sp[q] = s.p;
            sl[q] = s.bytes;
            rcap[q] = s.bytes;
        }
        if (c_exchange(c, sp, sl, s.t, rcap) < 0) {
            goto done;
        }
        char *x[P];
        for (int q = 0; q < P; q++) {
            x[q] = q == c->r ? s.p : c->p1data[q];
        }
        if (c_fold(c, s.p, x, n, dt, w->rop) < 0) {
            goto done;
        }
    }
    else {
        if (c_exchange(c, NULL, NULL, NULL, NULL) < 0 ||
            c_ring(c, s.p, s.t, n, dt, w->rop, true, true) < 0) {
            goto done;
        }
    }
    rc = write_all(c, &s, t, k);
done:
    stage_drop(&s);
    return rc;
}

static int
op_broadcast(coll *c)
{
    ct_work *w = c->w;
    ct_tensor **t = w->in;
    int k = w->nin, P = c->P, root = w->root;
    bool am_root = c->r == root;
    stage s = {0};
    int rc = -1;
    if (stage_in(c, &s, t[0], am_root) < 0 ||
        c_meta(c, t[0]->dtype, t[0]->numel, t[0], NULL, 0) < 0) {
        goto done;
    }
    if (s.bytes <= direct_max(P)) {
        char *sp[P];
        size_t sl[P], rcap[P];
        for (int q = 0; q < P; q++) {
            sp[q] = am_root ? s.p : NULL;
            sl[q] = am_root ? s.bytes : 0;
            rcap[q] = q == root ? s.bytes : 0;
        }
        if (c_exchange(c, sp, sl, s.t, rcap) < 0) {
            goto done;
        }
        if (!am_root && s.bytes) {
            memcpy(s.p, c->p1data[root], s.bytes);
        }
    }
    else if (c_exchange(c, NULL, NULL, NULL, NULL) < 0 ||
             c_tree(c, s.p, s.t, s.bytes, root) < 0) {
        goto done;
    }
    rc = 0;
    if (!am_root) {
        rc = stage_out(c, &s);
    }
    for (int i = 1; i < k && rc == 0; i++) {
        rc = copy_raw_to(c, t[i], s.p);
    }
done:
    stage_drop(&s);
    return rc;
}

static int
op_reduce(coll *c)
{
    ct_work *w = c->w;
    ct_tensor *t = w->in[0];
    int P = c->P, r = c->r, root = w->root;
    bool am_root = r == root;
    ct_dtype dt = t->dtype;
    int64_t n = t->numel;
    size_t E = ct_dtype_itemsize(dt);
    stage s = {0};
    int rc = -1;
    if (stage_in(c, &s, t, true) < 0 || c_meta(c, dt, n, t, NULL, 0) < 0) {
        goto done;
    }
    if (s.bytes <= direct_max(P)) {
        char *sp[P];
        size_t sl[P], rcap[P];
        for (int q = 0; q < P; q++) {
            sp[q] = q == root ? s.p : NULL;
            sl[q] = q == root ? s.bytes : 0;
            rcap[q] = am_root ? s.bytes : 0;
        }
        if (c_exchange(c, sp, sl, s.t, rcap) < 0) {
            goto done;
        }
        if (am_root) {
            char *x[P];
            for (int q = 0; q < P; q++) {
                x[q] = q == r ? s.p : c->p1data[q];
            }
            if (c_fold(c, s.p, x, n, dt, w->rop) < 0 || stage_out(c, &s) < 0) {
                goto done;
            }
        }
        rc = 0;
        goto done;
    }
    if (c_exchange(c, NULL, NULL, NULL, NULL) < 0) {
        goto done;
    }
    /* ring reduce-scatter on a working copy, then every chunk to the root */
    char *work = s.p;
    ct_tensor *keep = s.t;
    if (!am_root && s.t == t) {
        if ((work = c_temp(c, s.bytes, &keep)) == NULL) {
            goto done;
        }
        memcpy(work, s.p, s.bytes);
    }
    if (c_ring(c, work, keep, n, dt, w->rop, true, false) < 0) {
        goto done;
    }
    uint64_t id = 1ull << 62;
    if (am_root) {
        for (int q = 0; q < P; q++) {
            size_t o = ring_off(n, q, P, E), l = ring_off(n, q + 1, P, E) - o;
            if (q != r && l > 0 &&
                c_recv(c, q, id, work + o, l, PG_DELIVER_COPY, dt, CT_REDOP_SUM) ==
                    NULL) {
                goto done;
            }
        }
    }
    else {
        size_t o = ring_off(n, r, P, E), l = ring_off(n, r + 1, P, E) - o;
        if (l > 0 && c_send(c, root, id, NULL, 0, work + o, l, keep) == NULL) {
            goto done;
        }
    }
    if (c_wait_all(c) < 0) {
        goto done;
    }
    rc = am_root ? stage_out(c, &s) : 0;
done:
    stage_drop(&s);
    return rc;
}

/* The gathers share this: every rank contributes `total` bytes at sendp;
 * dst[q] receives rank q's bytes (NULL for ranks not receiving). */
static int
op_allgather_common(coll *c, char *sendp, ct_tensor *keep, size_t total, char **dst,
                    bool to_all, int root)
{
    int P = c->P, r = c->r;
    char *sp[P];
    size_t sl[P], dl[P];
    for (int q = 0; q < P; q++) {
        bool send = to_all || q == root;
        bool recv = to_all || r == root;
        sp[q] = send ? sendp : NULL;
        sl[q] = send ? total : 0;
        dl[q] = recv ? total : 0;
    }
    char *d[P];
    for (int q = 0; q < P; q++) {
        d[q] = dst[q];
    }
    return c_personal(c, sp, sl, keep, d, dl);
}

static int
op_allgather(coll *c)
{
    ct_work *w = c->w;
    int k = w->nin, P = c->P;
    ct_tensor **in = w->in, **out = w->out;
    char *dst[P];
    ct_dtype dt = in[0]->dtype;
    int64_t n = in[0]->numel;
    size_t per = (size_t)n * ct_dtype_itemsize(dt), total = per * (size_t)k;
    stage s = {0};
    int rc = -1;
    int64_t kk = k;
    if (c_meta(c, dt, n, in[0], &kk, 1) < 0) {
        goto done;
    }
    char *sendp;
    ct_tensor *keep;
    if (k == 1) {
        if (stage_in(c, &s, in[0], true) < 0) {
            goto done;
        }
        sendp = s.p;
        keep = s.t;
    }
    else {
        if ((sendp = c_temp(c, total, &keep)) == NULL) {
            goto done;
        }
        for (int i = 0; i < k; i++) {
            ct_tensor *ci = ct_contiguous(in[i]);
            if (ci == NULL) {
                c_fail_ct(c);
                goto done;
            }
            memcpy(sendp + (size_t)i * per, ct_tensor_data(ci), per);
            ct_tensor_decref(ci);
        }
    }
    /* direct into the outputs when they are plain; else through a buffer */
    bool direct = k == 1;
    for (int q = 0; q < P && direct; q++) {
        direct = ct_tensor_is_contiguous(out[q]);
    }
    char *tmp = NULL;
    if (direct) {
        for (int q = 0; q < P; q++) {
            dst[q] = ct_tensor_data(out[q]);
        }
    }
    else {
        if ((tmp = c_temp(c, total * (size_t)P, NULL)) == NULL) {
            goto done;
        }
        for (int q = 0; q < P; q++) {
            dst[q] = tmp + (size_t)q * total;
        }
    }
    if (op_allgather_common(c, sendp, keep, total, dst, true, -1) < 0) {
        goto done;
    }
    /* gloo's layout: every output list holds all k * P tensors, rank q's
     * input l at q * k + l */
    for (int i = 0; i < k; i++) {
        for (int q = 0; q < P; q++) {
            for (int l = 0; l < k; l++) {
                ct_tensor *o = out[(i * P + q) * k + l];
                if (direct) {
                    ct_tensor_bump_version(o);
                }
                else if (copy_raw_to(c, o, dst[q] + (size_t)l * per) < 0) {
                    goto done;
                }
            }
        }
    }
    rc = 0;
done:
    stage_drop(&s);
    return rc;
}

static int
op_allgather_base(coll *c)
{
    ct_work *w = c->w;
    int P = c->P;
    char *dst[P];
    ct_tensor *in = w->in[0], *out = w->out[0];
    stage si = {0}, so = {0};
    int rc = -1;
    if (c_meta(c, in->dtype, in->numel, in, NULL, 0) < 0 ||
        stage_in(c, &si, in, true) < 0 || stage_in(c, &so, out, false) < 0) {
        goto done;
    }
    for (int q = 0; q < P; q++) {
        dst[q] = so.p + (size_t)q * si.bytes;
    }
    if (op_allgather_common(c, si.p, si.t, si.bytes, dst, true, -1) < 0) {
        goto done;
    }
    rc = stage_out(c, &so);
done:
    stage_drop(&si);
    stage_drop(&so);
    return rc;
}

static int
op_gather(coll *c)
{
    ct_work *w = c->w;
    int P = c->P, root = w->root;
    char *dst[P];
    bool am_root = c->r == root;
    ct_tensor *in = w->in[0];
    stage si = {0};
    int rc = -1;
    if (c_meta(c, in->dtype, in->numel, in, NULL, 0) < 0 ||
        stage_in(c, &si, in, true) < 0) {
        goto done;
    }
    char *tmp = NULL;
    if (am_root && (tmp = c_temp(c, si.bytes * (size_t)P, NULL)) == NULL) {
        goto done;
    }
    for (int q = 0; q < P; q++) {
        dst[q] = am_root ? tmp + (size_t)q * si.bytes : NULL;
    }
    if (op_allgather_common(c, si.p, si.t, si.bytes, dst, false, root) < 0) {
        goto done;
    }
    if (am_root) {
        for (int q = 0; q < P; q++) {
            if (copy_raw_to(c, w->out[q], dst[q]) < 0) {
                goto done;
            }
        }
    }
    rc = 0;
done:
    stage_drop(&si);
    return rc;
}

static int
op_scatter(coll *c)
{
    ct_work *w = c->w;
    int P = c->P, r = c->r, root = w->root;
    bool am_root = r == root;
    ct_tensor *out = w->out[0];
    stage so = {0};
    stage si[P];
    memset(si, 0, sizeof si);
    int rc = -1;
    ct_tensor *keep = NULL;
    char *sp[P];
    size_t sl[P], dl[P];
    char *dst[P];
    if (c_meta(c, out->dtype, out->numel, out, NULL, 0) < 0 ||
        stage_in(c, &so, out, false) < 0) {
        goto done;
    }
    char *sendbuf = NULL;
    if (am_root) {
        /* one buffer for all the inputs, so one tensor keeps them alive */
        if ((sendbuf = c_temp(c, so.bytes * (size_t)P, &keep)) == NULL) {
            goto done;
        }
        for (int q = 0; q < P; q++) {
            if (stage_in(c, &si[q], w->in[q], true) < 0) {
                goto done;
            }
            if (so.bytes) {
                memcpy(sendbuf + (size_t)q * so.bytes, si[q].p, so.bytes);
            }
        }
    }
    for (int q = 0; q < P; q++) {
        sp[q] = am_root ? sendbuf + (size_t)q * so.bytes : NULL;
        sl[q] = am_root ? so.bytes : 0;
        dl[q] = q == root ? so.bytes : 0;
        dst[q] = q == root ? so.p : NULL;
    }
    if (c_personal(c, sp, sl, keep, dst, dl) < 0) {
        goto done;
    }
    rc = stage_out(c, &so);
done:
    stage_drop(&so);
    for (int q = 0; q < P; q++) {
        stage_drop(&si[q]);
    }
    return rc;
}

static int
op_reduce_scatter(coll *c)
{
    ct_work *w = c->w;
    int P = c->P, r = c->r;
    bool base = w->kind == PG_OP_REDUCE_SCATTER_BASE;
    ct_tensor *out = w->out[0];
    ct_dtype dt = out->dtype;
    int64_t n = out->numel;
    size_t bytes = (size_t)n * ct_dtype_itemsize(dt);
    stage so = {0};
    stage si[P];
    memset(si, 0, sizeof si);
    char *in[P], *ptr[P];
    size_t len[P];
    ct_tensor *keep[P];
    int rc = -1;
    if (c_meta(c, dt, n, out, NULL, 0) < 0 || stage_in(c, &so, out, false) < 0) {
        goto done;
    }
    /* contiguous inputs: chunk q goes to rank q */
    for (int q = 0; q < P; q++) {
        if (base ? q == 0 && stage_in(c, &si[0], w->in[0], true) < 0
                 : stage_in(c, &si[q], w->in[q], true) < 0) {
            goto done;
        }
        in[q] = base ? si[0].p + (size_t)q * bytes : si[q].p;
        keep[q] = base ? si[0].t : si[q].t;
    }
    if (bytes <= direct_max(P)) {
        size_t sl[P], rcap[P];
        for (int q = 0; q < P; q++) {
            sl[q] = bytes;
            rcap[q] = bytes;
        }
        /* one keep: the description carries chunk q to rank q */
        ct_tensor *k1 = NULL;
        char *pack = base ? si[0].p : c_temp(c, bytes * (size_t)P, &k1);
        if (pack == NULL) {
            goto done;
        }
        for (int q = 0; !base && q < P; q++) {
            memcpy(pack + (size_t)q * bytes, in[q], bytes);
        }
        for (int q = 0; q < P; q++) {
            in[q] = pack + (size_t)q * bytes;
        }
        if (c_exchange(c, in, sl, base ? si[0].t : k1, rcap) < 0) {
            goto done;
        }
        char *x[P];
        for (int q = 0; q < P; q++) {
            x[q] = q == r ? in[r] : c->p1data[q];
        }
        if (c_fold(c, so.p, x, n, dt, w->rop) < 0) {
            goto done;
        }
    }
    else {
        if (c_exchange(c, NULL, NULL, NULL, NULL) < 0) {
            goto done;
        }
        /* the ring reduces into every chunk but r - 1 (which it only sends):
         * those start as copies of the inputs, chunk r in the output */
        ct_tensor *tk = NULL;
        char *tmp = P > 2 ? c_temp(c, bytes * (size_t)(P - 2), &tk) : NULL;
        if (P > 2 && tmp == NULL) {
            goto done;
        }
        for (int q = 0, t = 0; q < P; q++) {
            len[q] = bytes;
            if (q == mod(r - 1, P)) {
                ptr[q] = in[q];
                continue;
            }
            ptr[q] = q == r ? so.p : tmp + (size_t)(t++) * bytes;
            keep[q] = q == r ? so.t : tk;
            memcpy(ptr[q], in[q], bytes);
        }
        if (c_ring_chunks(c, ptr, len, keep, dt, w->rop, true, false) < 0) {
            goto done;
        }
    }
    rc = stage_out(c, &so);
done:
    stage_drop(&so);
    for (int q = 0; q < P; q++) {
        stage_drop(&si[q]);
    }
    return rc;
}

static int
op_alltoall_base(coll *c)
{
    ct_work *w = c->w;
    int P = c->P;
    char *sp[P], *dst[P];
    size_t sl[P], dl[P];
    ct_tensor *in = w->in[0], *out = w->out[0];
    ct_dtype dt = in->dtype;
    int64_t rows_in = in->ndim ? in->sizes[0] : 1;
    int64_t row_el = rows_in ? in->numel / rows_in : 1;
    if (rows_in == 0) {
        row_el = 1;
        for (int i = 1; i < in->ndim; i++) {
            row_el *= in->sizes[i];
        }
    }
    size_t rowb = (size_t)row_el * ct_dtype_itemsize(dt);
    stage si = {0}, so = {0};
    int rc = -1;
    int64_t *sp_rows = w->splits + P, *dp_rows = w->splits; /* [out P][in P] */
    int64_t extra[2 * P];
    for (int q = 0; q < P; q++) {
        extra[q] = sp_rows[q];
        extra[P + q] = dp_rows[q];
    }
    if (c_meta(c, dt, row_el, in, extra, 2 * P) < 0 || stage_in(c, &si, in, true) < 0 ||
        stage_in(c, &so, out, false) < 0) {
        goto done;
    }
    size_t so_off = 0, si_off = 0;
    for (int q = 0; q < P; q++) {
        sp[q] = si.p + si_off;
        sl[q] = (size_t)sp_rows[q] * rowb;
        dst[q] = so.p + so_off;
        dl[q] = (size_t)dp_rows[q] * rowb;
        si_off += sl[q];
        so_off += dl[q];
    }
    if (c_personal(c, sp, sl, si.t, dst, dl) < 0) {
        goto done;
    }
    rc = stage_out(c, &so);
done:
    stage_drop(&si);
    stage_drop(&so);
    return rc;
}

static int
op_alltoall(coll *c)
{
    ct_work *w = c->w;
    int P = c->P;
    ct_tensor **in = w->in, **out = w->out;
    ct_dtype dt = in[0]->dtype;
    size_t E = ct_dtype_itemsize(dt);
    int64_t extra[2 * P];
    size_t total_in = 0, total_out = 0;
    for (int q = 0; q < P; q++) {
        extra[q] = in[q]->numel;
        extra[P + q] = out[q]->numel;
        total_in += (size_t)in[q]->numel * E;
        total_out += (size_t)out[q]->numel * E;
    }
    int rc = -1;
    ct_tensor *keep;
    if (c_meta(c, dt, 0, NULL, extra, 2 * P) < 0) {
        return -1;
    }
    char *sb = c_temp(c, total_in, &keep), *db = c_temp(c, total_out, NULL);
    if (sb == NULL || db == NULL) {
        return -1;
    }
    char *sp[P], *dst[P];
    size_t sl[P], dl[P];
    size_t oi = 0, oo = 0;
    for (int q = 0; q < P; q++) {
        ct_tensor *ci = ct_contiguous(in[q]);
        if (ci == NULL) {
            return c_fail_ct(c);
        }
        sl[q] = (size_t)in[q]->numel * E;
        dl[q] = (size_t)out[q]->numel * E;
        if (sl[q]) {
            memcpy(sb + oi, ct_tensor_data(ci), sl[q]);
        }
        ct_tensor_decref(ci);
        sp[q] = sb + oi;
        dst[q] = db + oo;
        oi += sl[q];
        oo += dl[q];
    }
    if (c_personal(c, sp, sl, keep, dst, dl) < 0) {
        return -1;
    }
    for (int q = 0; q < P; q++) {
        if (copy_raw_to(c, out[q], dst[q]) < 0) {
            return -1;
        }
    }
    rc = 0;
    return rc;
}

typedef int (*op_fn)(coll *c);

static const op_fn op_table[PG_OP_COUNT] = {
    [PG_OP_BROADCAST] = op_broadcast,
    [PG_OP_ALLREDUCE] = op_allreduce,
    [PG_OP_REDUCE] = op_reduce,
    [PG_OP_ALLGATHER] = op_allgather,
    [PG_OP_ALLGATHER_BASE] = op_allgather_base,
    [PG_OP_GATHER] = op_gather,
    [PG_OP_SCATTER] = op_scatter,
    [PG_OP_REDUCE_SCATTER] = op_reduce_scatter,
    [PG_OP_REDUCE_SCATTER_BASE] = op_reduce_scatter,
    [PG_OP_ALLTOALL_BASE] = op_alltoall_base,
    [PG_OP_ALLTOALL] = op_alltoall,
    [PG_OP_BARRIER] = op_barrier,
};

void
pg_run_collective(ct_pg *pg, ct_work *w)
{
    coll c;
    memset(&c, 0, sizeof c);
    c.pg = pg;
    c.w = w;
    c.name = pg_op_names[w->kind];
    c.P = pg->size;
    c.r = pg->rank;
    c.deadline = pg->timeout_ms > 0 ? pg_now_ns() + pg->timeout_ms * 1000000 : -1;
    c.dead_seen = -1; /* look at the links once at the start */
    c.abort_seen = -1;
    /* (Note [Slow yields]: a bulk operation's slow yields do not count) */
    size_t bytes = 0;
    for (int i = 0; i < w->nin + w->nout; i++) {
        const ct_tensor *t = i < w->nin ? w->in[i] : w->out[i - w->nin];
        bytes += t != NULL ? (size_t)t->numel * ct_dtype_itemsize(t->dtype) : 0;
    }
    pg->wait_bulk = bytes >= PG_YIELD_BULK_BYTES;
    int rc = c_check_links(&c);
    if (rc == 0) {
        rc = op_table[w->kind](&c);
    }
    pg->wait_bulk = false;
    if (rc < 0 && !c.failed) {
        c_fail_ct(&c);
    }
    /* let go of every entry; on a failure tell the peers */
    for (int i = 0; i < c.nrx; i++) {
        pg_rxe_release(pg, c.rx[i]);
    }
    for (int i = 0; i < c.ntx; i++) {
        pg_txe_release(pg, c.tx[i]);
    }
    if (rc < 0 && !c.no_abort) {
        /* the reason, without our "ProcessGroupGloo::op: " prefix */
        const char *why = strstr(c.err.message, ": ");
        why = why ? why + 2 : c.err.message;
        for (int q = 0; q < c.P; q++) {
            if (q != c.r) {
                pg_send_abort(pg, q, w->seq, why);
            }
        }
    }
    for (int i = 0; i < c.ntemps; i++) {
        ct_tensor_decref(c.temps[i]);
    }
    free(c.temps);
    free(c.rx);
    free(c.tx);
    free(c.mymeta);
    free(c.meta_rx);
    free(c.p1data);
    pg->seq_done = w->seq;
    for (int q = 0; q < c.P; q++) {
        if (q != c.r) {
            pg_prune_aborted(&pg->links[q], w->seq + 1);
        }
    }
    pg_work_complete(pg, w, rc < 0 ? &c.err : NULL);
}
