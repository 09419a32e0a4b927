/* csrc/distributed/pg_impl.h -- the insides of ProcessGroupGloo.
 *
 * Note [Process group structure]
 * A group holds one link per peer.  A link is a byte stream each way:
 * either a pair of shared-memory rings (peers on this host; the TCP
 * connection then carries only wake-up bytes and tells when the peer
 * dies) or the TCP connection itself.  On a stream travel frames
 * (pg_frame): a 32-byte header, `meta` bytes, `payload` bytes, each part
 * padded to 8 bytes so element boundaries never straddle a ring's end.
 *
 * The engine (transport_engine.c) moves frames: queued sends (pg_txe) go
 * out in order per peer; arriving frames are matched against posted
 * receives (pg_rxe) by (kind, tag, id) and delivered straight from the
 * ring into their destination (a copy, or a reduction in place); a frame
 * nobody has asked for yet stays at the head of its stream until a
 * receive behind it needs the stream, then it is stashed in memory.
 *
 * Only the thread holding pg->drive touches the engine: the progress
 * thread, or a caller that waits for a work and finds the lock free (it
 * then runs the queued operations itself, saving two thread hand-offs).
 * Other threads hand operations over through the inbox and a kick on an
 * eventfd.
 *
 * Every collective begins by sending a description of its arguments
 * (pg_meta) to every peer; each rank checks the whole set and so every
 * rank reaches the same verdict (and message) before anything is written.
 * Small operations carry their data with that description.
 */
#ifndef CTORCH_PG_IMPL_H
#define CTORCH_PG_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <ctorch/c10d.h>

/* --- frames ----------------------------------------------------------- */

#define PG_FRAME_KINDS(X) \
    X(COLL)               \
    X(P2P)                \
    X(ACK)                \
    X(NACK)               \
    X(CANCEL)             \
    X(ABORT)

enum {
    PG_FR_NONE = 0,
#define X(N) PG_FR_##N,
    PG_FRAME_KINDS(X)
#undef X
    PG_FR_COUNT
};

typedef struct {
    uint32_t kind;
    uint32_t meta_len;
    int64_t tag;                /* COLL: sequence number; P2P: user tag */
    uint64_t id;                /* COLL: step; P2P/ACK/NACK/CANCEL: send id */
    uint64_t payload_len;
} pg_frame;
_Static_assert(sizeof(pg_frame) == 32, "pg_frame is 32 bytes on the wire");

static inline size_t
pg_pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* --- operations --------------------------------------------------------- */

#define PG_FORALL_OPS(X)                       \
    X(BROADCAST, "broadcast")                  \
    X(ALLREDUCE, "allreduce")                  \
    X(REDUCE, "reduce")                        \
    X(ALLGATHER, "allgather")                  \
    X(ALLGATHER_BASE, "_allgather_base")       \
    X(GATHER, "gather")                        \
    X(SCATTER, "scatter")                      \
    X(REDUCE_SCATTER, "reduce_scatter")        \
    X(REDUCE_SCATTER_BASE, "_reduce_scatter_base") \
    X(ALLTOALL_BASE, "alltoall_base")          \
    X(ALLTOALL, "alltoall")                    \
    X(BARRIER, "barrier")                      \
    X(SEND, "send")                            \
    X(RECV, "recv")

typedef enum {
#define X(E, N) PG_OP_##E,
    PG_FORALL_OPS(X)
#undef X
    PG_OP_COUNT
} pg_op_kind;

extern const char *const pg_op_names[PG_OP_COUNT];

/* What a rank says about its arguments (followed by int64 sizes[ndim]
 * and int64 extra[nextra]). */
typedef struct {
    uint32_t op;
    int32_t dtype;
    int32_t rop;
    int32_t root;
    int64_t numel;
    int32_t ndim;
    int32_t nextra;
} pg_meta;

/* --- shared-memory rings -------------------------------------------------- */

/* One direction of a pair: `head` advances as the writer commits, `tail`
 * as the reader consumes; each side announces that it is about to sleep
 * and is woken by a byte on the pair's socket. */
typedef struct {
    _Alignas(64) _Atomic uint64_t head;
    _Atomic uint32_t writer_sleeping;
    _Alignas(64) _Atomic uint64_t tail;
    _Atomic uint32_t reader_sleeping;
    _Alignas(64) char end[64];
} pg_ring;

/* --- the flat segment (transport_flat.c) ----------------------------------- */

typedef struct pg_flat pg_flat;

#define PG_FLAT_META_MAX 1024
#define PG_FLAT_MAX_RANKS 64
#define PG_FLAT_NONE UINT64_MAX

/* A rank's slot for one generation; its payload area follows it.  What
 * rank q is to take lies at part[q] (len PG_FLAT_NONE: nothing); ranks
 * that take the same bytes share one copy. */
typedef struct {
    _Alignas(64) _Atomic int64_t seq; /* stamp: published last */
    uint32_t meta_len;                /* 0: this rank's phase 1 goes by the rings */
    _Alignas(64) uint8_t meta[PG_FLAT_META_MAX];
    struct {
        uint64_t off, len;
    } part[PG_FLAT_MAX_RANKS];
} pg_flat_slot;

/* --- engine entries -------------------------------------------------------- */

enum {
    PG_E_QUEUED,                /* waiting to go out / for a frame */
    PG_E_ACTIVE,                /* part of it has moved */
    PG_E_SENT,                  /* p2p send on the wire, waiting for the ack */
    PG_E_DONE,
    PG_E_FAILED,
};

typedef struct pg_txe {
    struct pg_txe *next;
    pg_frame fr;
    uint8_t *meta;              /* owned */
    const char *payload;        /* kept alive by `keep` or the owner */
    ct_tensor *keep;            /* owned reference or NULL */
    size_t pos, total;          /* wire bytes written / to write */
    int peer;
    int state;
    bool orphan;                /* the owner let go; the engine frees it */
    bool want_ack;              /* p2p: complete on the receiver's ack */
    struct ct_work *work;       /* p2p: completed by ACK / NACK (borrowed) */
    int *done_count;            /* bumped when it finishes (collectives) */
    uint8_t *reply;             /* NACK: the receiver's meta, owned */
    uint32_t reply_len;
} pg_txe;

enum { PG_DELIVER_COPY, PG_DELIVER_REDUCE, PG_DELIVER_DISCARD };

typedef struct pg_rxe {
    struct pg_rxe *next;
    uint64_t order;             /* post order (any-source vs specific) */
    int peer;                   /* -1: any source (P2P only) */
    uint32_t kind;
    int64_t tag;
    uint64_t id;                /* COLL only */
    char *dst;
    size_t cap;                 /* expected payload bytes */
    int mode;
    ct_dtype dtype;             /* REDUCE */
    ct_redop rop;
    const uint8_t *expect;      /* P2P: my pg_meta, compared on arrival */
    uint32_t expect_len;
    int state;
    bool mismatch;              /* the payload length differed */
    bool orphan;
    int src;                    /* who sent it */
    uint64_t msg_id;
    uint8_t *meta;              /* the sender's meta, owned */
    uint32_t meta_len;
    size_t got;                 /* payload bytes delivered */
    struct ct_work *work;       /* p2p: completed on delivery (borrowed) */
    int *done_count;            /* bumped when it finishes (collectives) */
} pg_rxe;

/* A frame that arrived before anyone asked for it. */
typedef struct pg_unexp {
    struct pg_unexp *next;
    pg_frame fr;
    uint8_t *meta;
    char *payload;
    size_t got;
    bool complete;
    uint64_t arrival;
    pg_rxe *bound;              /* a receive matched while it was filling */
} pg_unexp;

enum { RX_HDR, RX_META, RX_MATCH, RX_PAYLOAD, RX_PAD };

typedef struct pg_link {
    int peer;
    int fd;                     /* TCP socket; -1 once closed */
    bool shm;
    bool dead;
    bool eof;                   /* the socket closed; drain the ring first */
    char why[160];
    /* shared memory */
    pg_ring *txr, *rxr;
    char *txd, *rxd;
    uint64_t cap;               /* ring bytes, a power of two */
    uint64_t tail_cache;
    void *seg;
    size_t seg_len;
    int seg_fd;
    _Atomic uint32_t *my_door, *peer_door; /* futex words in the segment */
    /* TCP buffers */
    char *tbuf;
    size_t t_r, t_w;
    char *rbuf;
    size_t r_r, r_w;
    bool want_pollout;
    /* sending */
    pg_txe *txq, *txq_tail;
    pg_txe *await;              /* p2p sends waiting for their ack */
    /* receiving */
    int rx_state;
    pg_frame rx_fr;
    size_t rx_pos;              /* bytes of the current part */
    uint8_t *rx_meta;
    size_t rx_meta_cap;
    uint64_t rx_arrival;
    pg_rxe *rx_target;
    pg_unexp *rx_stash;
    bool rx_discard;
    pg_rxe *posted, *posted_tail;
    pg_unexp *unexp, *unexp_tail;
    int64_t *aborted;           /* collective sequence numbers it gave up */
    char **abort_why;           /* and why (owned strings) */
    int naborted, cap_aborted;
} pg_link;

/* --- the group ------------------------------------------------------------ */

/* A backend other than gloo ("mpi", csrc/distributed/mpi/): it takes the
 * checked works from pg_ops.c instead of the engine below, whose fields
 * then stay unused (pg->be == NULL: gloo). */
typedef struct pg_backend {
    const char *name;           /* "ProcessGroupMPI": prefixes its messages */
    const char *kind;           /* "MPI", "NCCL": in reduce-op messages */
    /* NCCL: the operations take CUDA tensors as they are (no host copies),
     * and only those */
    bool device_tensors;
    /* Start w or queue it; owns the queue's reference.  -1 with the error
     * set when the backend cannot run it (the reference is dropped). */
    int (*submit)(ct_pg *pg, ct_work *w);
    /* Help w along until it completes or timeout_ms passes (<0: none). */
    void (*wait)(ct_work *w, int64_t timeout_ms);
    /* Optional, for works complete on the host whose device part may still
     * run (Note [NCCL works]): wait() of a completed work calls sync
     * (0, or -1 with the error set); is_completed() asks query; release
     * frees be_op when the work goes. */
    int (*sync)(ct_work *w, int64_t timeout_ms);
    bool (*query)(const ct_work *w);
    void (*release)(ct_work *w);
    /* Fail what is pending; later operations raise. */
    void (*shutdown)(ct_pg *pg);
    void (*free)(ct_pg *pg);
} pg_backend;

struct ct_pg {
    const pg_backend *be;       /* NULL: gloo */
    void *be_data;              /* the backend's own state (owned by it) */
    atomic_long refcnt;
    unsigned fork_gen;          /* pg_fork_generation() when made */
    int rank, size;
    int64_t timeout_ms;
    pg_link *links;             /* [size]; links[rank] unused */
    int nshm;
    pg_flat *flat;              /* Note [Flat exchange]; NULL: not used */
    int64_t flat_wait;          /* the sequence number a driver waits for */
    bool oversub;               /* more local ranks than cores to run them */
    int efd;                    /* eventfd: kicks the driver */
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t drive;      /* the engine's lock */
    pthread_mutex_t inbox_lock; /* inbox and callback list */
    struct ct_work *inbox, *inbox_tail;
    atomic_int inbox_n;
    int64_t seq_issued;         /* under inbox_lock */
    _Atomic int closing;
    bool closed;                /* resources released (shutdown) */
    atomic_int driver_sleeping; /* 0, or PG_SLEEP_POLL / PG_SLEEP_FUTEX */
    _Atomic uint32_t kick_word; /* futex a sleeping driver also waits on */
    atomic_int progress_idle;
    struct ct_work *cb_head, *cb_tail; /* completed works with callbacks */
    /* driver-only state */
    struct ct_work *queue, *queue_tail; /* collectives in issue order */
    struct ct_work *p2p;        /* p2p works in flight */
    pg_rxe *any, *any_tail;     /* any-source receives */
    uint64_t post_order, arrival, send_id;
    int64_t seq_done;
    int dead_count;             /* links failed so far */
    int abort_count;            /* ABORT frames received so far */
    atomic_int pending_hint;    /* a waiter left work for the progress thread */
    /* Note [Waiting] (transport_engine.c) */
    int64_t spin_budget, wait_budget;
    unsigned waits;
    int wait_yields;            /* sched_yield calls in this wait */
    int64_t no_yield_until;     /* yields were slow: sleep instead until then */
    uint32_t yield_hist;        /* the latest yields, a bit each: 1 = slow */
    bool wait_bulk;             /* the collective running moves PG_YIELD_BULK_BYTES or more */
    bool wait_blocked;
};

/* --- works ---------------------------------------------------------------- */

enum { PG_W_PENDING = 0, PG_W_OK = 1, PG_W_FAILED = 2 };

typedef struct {
    void (*fn)(void *ctx);
    void *ctx;
} pg_callback;

struct ct_work {
    atomic_long refcnt;
    _Atomic int state;          /* futex word */
    atomic_int nwaiters;
    ct_pg *pg;                  /* owned */
    pg_op_kind kind;
    unsigned flags;
    ct_error_state *err;        /* when failed; owned */
    int source_rank;
    /* arguments: owned references */
    ct_tensor **in;
    int nin;
    ct_tensor **out;
    int nout;
    int root;                   /* root, peer of p2p (-1: any source) */
    ct_redop rop;
    int64_t tag;
    int64_t *splits;            /* alltoall_base: out[size], in[size] */
    int64_t seq;
    int64_t deadline;           /* p2p: monotonic ns */
    /* p2p engine entries */
    pg_txe *txe;
    pg_rxe *rxe;
    uint8_t *p2p_meta;
    ct_tensor *p2p_buf;         /* contiguous staging for the p2p tensor */
    /* Note [Device tensors in gloo]: pairs (device tensor, its host copy),
     * owned; the copies stand in for the device tensors in in/out */
    ct_tensor **staged;
    int nstaged;
    void *be_op;                /* a backend's state while in flight (its own) */
    /* results: borrowed views of in/out */
    ct_tensor **result;
    int nresult;
    /* lists */
    struct ct_work *next;       /* inbox / queue */
    struct ct_work *p2p_next;
    struct ct_work *cb_next;
    /* callbacks */
    pthread_mutex_t cb_lock;
    pg_callback *cbs;
    int ncbs, cap_cbs;
    bool cb_fired;
};

/* pg_work.c: copy the staged host results back to their device tensors
 * (when copy: a failed work leaves them as they were) and put the device
 * tensors back in place (Note [Device tensors in gloo]); 0, or -1 with
 * the error set. */
int pg_work_unstage(ct_work *w, bool copy);

/* --- shared helpers -------------------------------------------------------- */

/* Bumped in every child after fork(): a group made before belongs to the
 * parent (its threads did not come along). */
unsigned pg_fork_generation(void);

int64_t pg_now_ns(void);
void pg_futex_wait(_Atomic int *addr, int val, int64_t timeout_ns);
void pg_futex_wake(_Atomic int *addr);
/* "torch.float32" for messages. */
void pg_dtype_str(ct_dtype d, char *buf, size_t n);
void pg_shape_str(const int64_t *sizes, int ndim, char *buf, size_t n);
/* "size [3] and dtype torch.float32" from a pg_meta image. */
void pg_meta_describe(const uint8_t *m, size_t len, char *buf, size_t n);

/* pg_reduce.c: dst[i] = dst[i] op src[i] for n elements. */
typedef void (*pg_reduce_fn)(void *dst, const void *src, size_t n);
pg_reduce_fn pg_reduce_fn_for(ct_dtype d, ct_redop op);
/* 0, or -1 with PyTorch's error for an op the dtype does not allow. */
int pg_reduce_check(ct_dtype d, ct_redop op);
/* The same, for the backend named `be` ("Gloo", "MPI", "NCCL"): MPI takes
 * AVG on floating dtypes (a sum, then a division), NCCL its own set. */
int pg_reduce_check_for(const char *be, ct_dtype d, ct_redop op);
const char *pg_reduce_name(ct_redop op);

/* transport_shm.c */
/* A segment with the two rings of a pair: created by the lower rank,
 * opened by the higher one (through /proc/<pid>/fd of the creator). */
int pg_shm_create(pg_link *l, uint64_t cap, uint64_t token);
int pg_shm_open(pg_link *l, int pid, int fd, uint64_t cap, uint64_t token);
void pg_shm_close(pg_link *l);
size_t pg_shm_tx_reserve(pg_link *l, char **p);
void pg_shm_tx_commit(pg_link *l, size_t n);
size_t pg_shm_rx_peek(pg_link *l, const char **p);
void pg_shm_rx_consume(pg_link *l, size_t n);
/* How a sleeper wants to be woken (the value of its *_sleeping flag). */
enum { PG_SLEEP_POLL = 1, PG_SLEEP_FUTEX = 2 };
void pg_shm_wake(pg_link *l, uint32_t how);
/* Announce sleep; true when there is something to do after all. */
bool pg_shm_arm(pg_link *l, bool tx_pending, uint32_t how);
void pg_shm_disarm(pg_link *l);

/* transport_flat.c */
/* Map a segment shared by the whole group when every rank can; the same
 * choice on every rank (pg->flat set or left NULL).  -1: a peer went away. */
int pg_flat_setup(ct_pg *pg, size_t data_cap, int64_t deadline);
void pg_flat_close(pg_flat *f);
size_t pg_flat_cap(const pg_flat *f);
pg_flat_slot *pg_flat_slot_at(const pg_flat *f, int64_t seq, int q);
char *pg_flat_data(pg_flat_slot *s);
bool pg_flat_all_in(const pg_flat *f, int64_t seq);
/* Stamp my slot; wake the sleepers when that completed the set. */
void pg_flat_publish(pg_flat *f, int64_t seq);
/* Count me as a sleeper: the bell's futex word and the value to wait on;
 * *ready when every stamp is in after all.  pg_flat_disarm undoes it. */
_Atomic uint32_t *pg_flat_arm(pg_flat *f, int64_t seq, uint32_t *bell, bool *ready);
void pg_flat_disarm(pg_flat *f);

/* transport_tcp.c */
int pg_tcp_connect_mesh(ct_pg *pg, ct_store *store);
/* Exactly n bytes on a socket before the deadline (setup only). */
int pg_io_full(int fd, void *buf, size_t n, bool rd, int64_t deadline);
size_t pg_tcp_tx_reserve(pg_link *l, char **p);
void pg_tcp_tx_commit(pg_link *l, size_t n);
int pg_tcp_flush(pg_link *l);           /* -1: connection lost (l->why set) */
size_t pg_tcp_rx_peek(pg_link *l, const char **p, int *err);
void pg_tcp_rx_consume(pg_link *l, size_t n);
void pg_link_close(pg_link *l);

/* transport_engine.c -- all under pg->drive */
/* New entries (NULL with the error set); `keep` (may be NULL) is a tensor
 * the entry holds while its payload may still be read. */
pg_txe *pg_txe_new(int peer, uint32_t kind, int64_t tag, uint64_t id, const void *meta,
                   uint32_t meta_len, const char *payload, size_t len, ct_tensor *keep);
pg_rxe *pg_rxe_new(int peer, uint32_t kind, int64_t tag, uint64_t id, char *dst,
                   size_t cap, int mode);
/* Queue a send / post a receive (it may finish at once, from a stash). */
void pg_send_start(ct_pg *pg, pg_txe *e);
void pg_recv_start(ct_pg *pg, pg_rxe *e);
/* The owner lets go: freed now, or by the engine once its stream ends. */
void pg_txe_release(ct_pg *pg, pg_txe *e);
void pg_rxe_release(ct_pg *pg, pg_rxe *e);
void pg_send_abort(ct_pg *pg, int peer, int64_t seq, const char *why);
void pg_send_cancel(ct_pg *pg, int peer, uint64_t id);
/* One pass over every link; true when anything moved. */
bool pg_progress(ct_pg *pg);
/* Spin, then yield, then sleep in poll until something may have changed
 * or `deadline` (ns, <0: none); *idle_since starts at 0.  After progress
 * the caller calls pg_moved (which resets *idle_since and learns how long
 * the wait was; Note [Waiting]). */
void pg_idle(ct_pg *pg, int64_t *idle_since, int64_t deadline);
void pg_moved(ct_pg *pg, int64_t *idle_since);
/* Work left for the engine (streams to finish, receives posted). */
bool pg_engine_busy(const ct_pg *pg);
bool pg_have_futex_waitv(void);
void pg_link_fail(ct_pg *pg, pg_link *l, const char *why);
/* Why a peer abandoned collective `seq` (borrowed), or NULL. */
const char *pg_peer_aborted(pg_link *l, int64_t seq);
void pg_prune_aborted(pg_link *l, int64_t below);
void pg_engine_free(ct_pg *pg);

/* pg_gloo.c */
/* A group with nothing connected yet (NULL: out of memory); efd -1. */
ct_pg *pg_new_bare(int rank, int size, int64_t timeout_ms);
/* "ProcessGroupGloo", or the backend's name, for messages. */
const char *pg_name(const ct_pg *pg);
/* Run the callbacks of the works completed meanwhile (not under a lock). */
void pg_run_callbacks(ct_pg *pg);
/* Complete w (err NULL: success), wake its waiters, queue its callbacks
 * and drop the reference the queue held. */
void pg_work_complete(ct_pg *pg, ct_work *w, const ct_error_state *err);
void pg_kick(ct_pg *pg);
/* Start the operations submitted meanwhile (called by waiting collectives). */
void pg_absorb_inbox(ct_pg *pg);

/* pg_work.c */
ct_work *pg_work_new(ct_pg *pg, pg_op_kind kind, unsigned flags);
int pg_work_set_tensors(ct_work *w, ct_tensor *const *in, int nin,
                        ct_tensor *const *out, int nout);
void pg_work_fail_msg(ct_pg *pg, ct_work *w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand w to the driver; takes over the creator's reference and returns it
 * (NULL with the error set when the group is shut down). */
ct_work *pg_submit(ct_pg *pg, ct_work *w);

/* pg_collectives.c: run w (a collective) to the end; completes it. */
void pg_run_collective(ct_pg *pg, ct_work *w);

/* pg_p2p.c */
void pg_p2p_start(ct_pg *pg, ct_work *w);
void pg_p2p_check_deadlines(ct_pg *pg, int64_t now);
void pg_p2p_fail_all(ct_pg *pg, const char *why, int peer);
void pg_p2p_entry_done(ct_pg *pg, ct_work *w);

#endif
