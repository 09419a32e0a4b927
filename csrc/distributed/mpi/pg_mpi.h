/* csrc/distributed/mpi/pg_mpi.h -- the "mpi" backend's insides.
 *
 * Note [MPI engine]
 * MPI is started once per process (MPI_Init_thread asking for
 * MPI_THREAD_SERIALIZED, as PyTorch does) and every MPI call of every group
 * is made under one lock, mpi_lock.  A work becomes an entry: a queue of
 * entries not yet started, and a list of entries whose non-blocking MPI
 * call (MPI_Iallreduce, MPI_Isend, ...) is in flight.  Whoever holds the
 * lock steps the engine: it starts the queued entries in the order they
 * were submitted (so collectives reach MPI in issue order, and sends and
 * receives are matched in posting order) and tests the ones in flight.
 * A caller waiting for its work steps the engine itself; the progress
 * thread steps it when nobody waits, so async_op=True overlaps with the
 * caller's computing.  A blocking collective (async_op=False) submitted
 * while nothing else is queued or in flight is the blocking MPI call,
 * made at once on the caller's thread: MPI's own algorithms for blocking
 * collectives beat its non-blocking schedules, and no polling is needed.
 */
#ifndef CTORCH_PG_MPI_H
#define CTORCH_PG_MPI_H

#include <mpi.h>

#include "../pg_impl.h"

/* A group: its communicator, and a duplicate for the rings' own messages
 * (Note [MPI ring]) with the number of rings started on it. */
typedef struct {
    MPI_Comm comm, ring_comm;
    unsigned rings;
} mpi_group;

typedef struct pg_mpi_ring pg_mpi_ring;

/* One operation on its way through MPI. */
typedef struct pg_mpi_entry {
    struct pg_mpi_entry *next;
    ct_work *w;                 /* the queue's reference */
    MPI_Comm comm;
    MPI_Request req;
    pg_mpi_ring *ring;          /* run as a ring of messages instead of req */
    MPI_Status status;
    bool started;
    bool blocking;              /* run as the blocking call (done on return) */
    /* Contiguous stand-ins for the caller's tensors (owned references):
     * `io` is what an in-place operation reads and writes (copied back to
     * `io_user` at the end when they differ), `out` a separate output
     * (copied back to `out_user`), `pack` a list of tensors packed into
     * one buffer. */
    ct_tensor *io, *io_user;
    ct_tensor *out, *out_user;
    ct_tensor *pack;
    int *counts;                /* alltoallv: send counts, displacements, receive ... */
    int64_t count;              /* elements of the call */
} pg_mpi_entry;

/* pg_mpi_ops.c (all under mpi_lock) */
/* Datatypes and reduction ops for every dtype; 0 or -1 (error set). */
int pg_mpi_types_init(void);
/* Start e's non-blocking call (or with e->blocking make the blocking
 * one, which is done on return); 0, or -1 with st filled. */
int pg_mpi_start(pg_mpi_entry *e, ct_error_state *st);
/* After the request completed: copy out, divide, check; 0 or -1 (st). */
int pg_mpi_finish(pg_mpi_entry *e, ct_error_state *st);
void pg_mpi_entry_free(pg_mpi_entry *e);
/* "<op>: MPI_ERR_TRUNCATE: message truncated" into st. */
void pg_mpi_error(ct_error_state *st, const ct_work *w, int code);
/* MPI's text for code, in buf. */
const char *pg_mpi_error_text(int code, char *buf, size_t n);

/* pg_mpi_ring.c (under mpi_lock; Note [MPI ring]) */
/* Reductions of at least pg_mpi_ring_bytes() bytes run as a ring; init
 * (collective over the world, once) takes the size from rank 0. */
int pg_mpi_ring_init(void);
size_t pg_mpi_ring_bytes(void);
/* What a ring reduces: count elements of dtype at data (inside owner's
 * storage, which the ring holds) across comm, where this process is rank
 * of size.  all_reduce by default; root >= 0: reduce into the root's data
 * only; scatter_only: stop once block `rank` is reduced (reduce_scatter);
 * copy_in: leave data as it was and reduce a pooled copy
 * (pg_mpi_ring_result). */
typedef struct {
    MPI_Comm comm;
    unsigned seq;
    int rank, size;
    void *data;
    ct_tensor *owner;
    int64_t count;
    ct_dtype dtype;
    ct_redop op;
    int root;
    bool scatter_only, copy_in;
} pg_mpi_ring_spec;

/* NULL when out of memory; *mpi_rc: MPI's answer to the first posts. */
pg_mpi_ring *pg_mpi_ring_start(const pg_mpi_ring_spec *spec, int *mpi_rc);
/* Go as far as messages allow (block: to the end); MPI's code.  *done
 * when the reduction is complete, *moved when anything landed or left. */
int pg_mpi_ring_advance(pg_mpi_ring *g, bool block, bool *done, bool *moved);
/* Where the reduced values are (data, or the copy). */
const char *pg_mpi_ring_result(const pg_mpi_ring *g);
/* A ring given up after an error keeps its buffers and its owner's
 * storage (MPI may still write into them): that memory leaks rather than
 * being reused or freed under a live receive. */
void pg_mpi_ring_free(pg_mpi_ring *g);

#endif
