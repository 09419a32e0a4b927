/* ctorch/c10d.h -- process groups (torch.distributed's ProcessGroupGloo).
 *
 * A process group is `size` processes, each knowing its `rank`, that meet
 * through a store (c10d_store.h) and then talk directly: a full mesh of
 * TCP connections, and for peers on the same host a pair of shared-memory
 * rings each (the TCP connection stays as a liveness and wake-up channel).
 * Every operation returns a ct_work at once; a progress thread per group
 * runs the collectives in the order they were issued, so asynchronous
 * operations overlap with the caller's computing.  Point-to-point sends
 * and receives are matched by (peer, tag) in the order they were posted.
 *
 * Ownership: ct_pg_gloo_new and every operation return NEW references or
 * NULL with the error set (argument errors are reported at once, with
 * PyTorch's ProcessGroupGloo wording).  Tensors and stores are borrowed;
 * a work keeps its own references to its tensors until it completes.
 * Failures found later (a peer that died, a timeout, tensors that differ
 * across ranks) complete the work as failed: ct_work_wait returns -1 with
 * a RuntimeError naming the operation and the ranks concerned.
 *
 * Thread-safety: all functions may be called from any thread.  Works of
 * one group complete in issue order among the collectives.
 *
 * Environment: GLOO_SOCKET_IFNAME (publish only that interface's address),
 * CTORCH_GLOO_NO_SHM (TCP even on one host), CTORCH_GLOO_SHM_RING (ring
 * bytes per direction, default 1 MiB), CTORCH_GLOO_NO_FUTEX (wake-ups by
 * socket bytes only), CTORCH_GLOO_SPIN_US (the most a waiter spins,
 * default 10), CTORCH_GLOO_DIRECT_MAX (bytes up to which a reduction sends
 * everything to everyone), CTORCH_GLOO_FLAT=0 (no group-wide shared segment:
 * descriptions and small payloads go pair-wise through the rings),
 * CTORCH_GLOO_OVS="spin_ns,yield_ns[,most_yields]" (how a waiter spins, then
 * yields, when this host has more ranks of the group than CPUs; default
 * "0,200000"; "off": wait as if there were CPUs enough).
 */
#ifndef CTORCH_C10D_H
#define CTORCH_C10D_H

#include <stdbool.h>
#include <stdint.h>

#include "c10d_store.h"
#include "error.h"
#include "tensor.h"

/* c10d::ReduceOp::RedOpType, with its numbering. */
#define CT_FORALL_REDOPS(X) \
    X(SUM, 0)                   \
    X(AVG, 1)                   \
    X(PRODUCT, 2)               \
    X(MIN, 3)                   \
    X(MAX, 4)                   \
    X(BAND, 5)                  \
    X(BOR, 6)                   \
    X(BXOR, 7)                  \
    X(PREMUL_SUM, 8)

typedef enum {
#define X(N, V) CT_REDOP_##N = V,
    CT_FORALL_REDOPS(X)
#undef X
    CT_REDOP_COUNT
} ct_redop;

typedef struct ct_pg ct_pg;
typedef struct ct_work ct_work;

/* A list of tensors (borrowed), for the list-of-lists arguments. */
typedef struct {
    ct_tensor *const *t;
    int n;
} ct_pg_tensors;

/* Flags of the operations. */
enum {
    /* The caller will wait at once: run on the calling thread when no
     * other operation is in flight (saves a hand-off to the progress
     * thread); the result is the same. */
    CT_PG_SYNC = 1u << 0,
};

/* Join the group: publish this rank's address in `store`, connect to
 * every peer and set up shared memory with the peers on this host.
 * timeout_ms bounds the setup and each later operation. */
ct_pg *ct_pg_gloo_new(ct_store *store, int rank, int size, int64_t timeout_ms);
/* The "mpi" backend (ProcessGroupMPI), under mpirun / mpiexec: MPI is
 * started on first use and finalized at exit.  ranks[0..nranks) are the
 * MPI world ranks of the group (nranks 0: the whole world); every process
 * of the world must call it, in the same order.  NULL with *member false
 * and no error on a process outside `ranks`.  timeout_ms is reported only
 * (MPI has no timeouts).  ct_mpi_available() tells whether this build has
 * MPI; without it ct_pg_mpi_new fails with PyTorch's message. */
bool ct_mpi_available(void);
ct_pg *ct_pg_mpi_new(const int *ranks, int nranks, int64_t timeout_ms, bool *member);
/* The "nccl" backend (ProcessGroupNCCL, csrc/distributed/pg_nccl.c):
 * collectives on CUDA tensors through NCCL, loaded at run time (libnccl.so.2,
 * or the library CTORCH_NCCL_LIB names).  ct_nccl_available() tells whether
 * this build has a CUDA part and NCCL can be loaded; communicators are made
 * on first use through `store`. */
bool ct_nccl_available(void);
ct_pg *ct_pg_nccl_new(ct_store *store, int rank, int size, int64_t timeout_ms);
void ct_pg_incref(ct_pg *pg);
void ct_pg_decref(ct_pg *pg);
int ct_pg_rank(const ct_pg *pg);
int ct_pg_size(const ct_pg *pg);
int64_t ct_pg_timeout_ms(const ct_pg *pg);
/* Fail what is pending, stop the progress thread, close every socket and
 * unmap every segment.  Later operations raise.  Idempotent; 0. */
int ct_pg_shutdown(ct_pg *pg);
/* How many peers this rank reaches through shared memory (for tests). */
int ct_pg_shm_peers(const ct_pg *pg);
/* Whether phase 1 of a collective goes through one segment shared by the
 * whole group (every rank on this host; for tests). */
bool ct_pg_flat(const ct_pg *pg);

/* --- operations (ranks are ranks in this group) ----------------------- */
ct_work *ct_pg_broadcast(ct_pg *pg, ct_tensor *const *t, int n, int root,
                         unsigned flags);
ct_work *ct_pg_allreduce(ct_pg *pg, ct_tensor *const *t, int n, ct_redop op,
                         unsigned flags);
ct_work *ct_pg_reduce(ct_pg *pg, ct_tensor *const *t, int n, int root,
                      ct_redop op, unsigned flags);
/* outputs: nout lists of `size` tensors, one list per input. */
ct_work *ct_pg_allgather(ct_pg *pg, const ct_pg_tensors *outputs, int nout,
                         ct_tensor *const *in, int nin, unsigned flags);
ct_work *ct_pg_allgather_base(ct_pg *pg, ct_tensor *out, ct_tensor *in,
                              unsigned flags);
ct_work *ct_pg_gather(ct_pg *pg, const ct_pg_tensors *outputs, int nout,
                      ct_tensor *const *in, int nin, int root, unsigned flags);
ct_work *ct_pg_scatter(ct_pg *pg, ct_tensor *const *out, int nout,
                       const ct_pg_tensors *inputs, int nin, int root,
                       unsigned flags);
ct_work *ct_pg_reduce_scatter(ct_pg *pg, ct_tensor *const *out, int nout,
                              const ct_pg_tensors *inputs, int nin,
                              ct_redop op, unsigned flags);
ct_work *ct_pg_reduce_scatter_base(ct_pg *pg, ct_tensor *out, ct_tensor *in,
                                   ct_redop op, unsigned flags);
/* Split sizes along dim 0; n == 0 means equal splits. */
ct_work *ct_pg_alltoall_base(ct_pg *pg, ct_tensor *out, ct_tensor *in,
                             const int64_t *out_splits, int nout_splits,
                             const int64_t *in_splits, int nin_splits,
                             unsigned flags);
ct_work *ct_pg_alltoall(ct_pg *pg, ct_tensor *const *out, int nout,
                        ct_tensor *const *in, int nin, unsigned flags);
ct_work *ct_pg_barrier(ct_pg *pg, unsigned flags);
ct_work *ct_pg_send(ct_pg *pg, ct_tensor *const *t, int n, int dst, int64_t tag,
                    unsigned flags);
/* src < 0: from any source (ct_work_source_rank tells which). */
ct_work *ct_pg_recv(ct_pg *pg, ct_tensor *const *t, int n, int src, int64_t tag,
                    unsigned flags);

/* --- works -------------------------------------------------------------- */
void ct_work_incref(ct_work *w);
void ct_work_decref(ct_work *w);
bool ct_work_is_completed(const ct_work *w);
bool ct_work_is_success(const ct_work *w);
/* Block until the work completes (timeout_ms < 0: no limit).  0, or -1
 * with the work's error, or with "Operation timed out!" when the limit
 * passes first (the work itself goes on). */
int ct_work_wait(ct_work *w, int64_t timeout_ms);
/* The error of a failed work into st; false when it has none. */
bool ct_work_error(const ct_work *w, ct_error_state *st);
/* The sender of a completed receive; -1 otherwise. */
int ct_work_source_rank(const ct_work *w);
/* The output tensors (borrowed, valid while w lives). */
ct_tensor *const *ct_work_result(const ct_work *w, int *n);
/* The name of the operation ("allreduce"). */
const char *ct_work_op_name(const ct_work *w);
/* Call fn(ctx) once the work completes, on some thread; at once (on this
 * thread) when it already has.  0 or -1. */
int ct_work_add_callback(ct_work *w, void (*fn)(void *ctx), void *ctx);

#endif
