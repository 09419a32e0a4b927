/* csrc/distributed/mpi/pg_mpi_ring.c -- large all_reduce and
 * reduce_scatter as a ring over MPI point-to-point messages.
 *
 * Note [MPI ring]
 * OpenMPI's own large reductions allocate a temporary as big as the
 * message (or half of it) on every call and free it after.  Past glibc's
 * mmap threshold that is a fresh mapping each time, and on a machine where
 * a page fault costs microseconds (virtual machines) faulting in 64 MB
 * takes longer than the reduction: 170 ms for a 64 MB all_reduce whose
 * messages alone move in 10 ms.  So from ring_bytes on (1 MiB, or
 * CTORCH_MPI_RING_BYTES on rank 0) a reduction is a ring whose receive
 * buffer is kept between calls (a small pool, warm after first use):
 *
 *   the tensor is cut into `size` blocks; in reduce-scatter step s rank r
 *   sends block r-1-s to rank r+1 and receives block r-2-s from rank r-1
 *   into the scratch, adding it into its own (all indices mod size);
 *   after size-1 steps rank r holds the whole reduction of block r, and
 *   the all-gather steps pass the finished blocks around the ring
 *   (send block r-s, receive block r-s-1 in place).
 *
 * Each block travels in segments of at most 1 MiB, all posted at once, and
 * a segment is reduced as soon as it lands, while the later ones are still
 * arriving.  Every rank reduces a block's contributions in the same order,
 * so all ranks end with identical bits.  The messages go over a duplicate of
 * the group's communicator with one tag per operation (the group's count of
 * rings, the same on every rank because collectives are issued in the same
 * order), so they never match a user's send or another ring in flight.
 */
#include "pg_mpi.h"

#include <stdlib.h>
#include <string.h>

#define SEG_BYTES ((size_t)1 << 20)
#define POOL 4

struct pg_mpi_ring {
    MPI_Comm comm;
    int tag, rank, size;
    char *data;                 /* the contiguous tensor, reduced in place */
    size_t esize;
    int64_t count, seg;         /* elements in all, per segment */
    pg_reduce_fn reduce;
    bool scatter_only;          /* reduce_scatter: stop after the first phase */
    char *scratch;
    int slot;                   /* the scratch's pool slot, or -1 (own buffer) */
    int step, nsteps;           /* the step in flight (== nsteps: done) */
    bool posted;                /* requests went to MPI */
    int nrecv, nsend, landed;   /* this step's segments; those reduced */
    MPI_Request *reqs;          /* receives, then sends */
};

/* Kept receive buffers (under mpi_lock). */
static struct {
    char *p;
    size_t bytes;
    bool busy;
} pool[POOL];

static char *
scratch_take(size_t bytes, int *slot)
{
    int best = -1, spare = -1;
    for (int i = 0; i < POOL; i++) {
        if (pool[i].busy) {
            continue;
        }
        if (pool[i].bytes >= bytes && (best < 0 || pool[i].bytes < pool[best].bytes)) {
            best = i;
        }
        if (spare < 0 || pool[i].bytes < pool[spare].bytes) {
            spare = i;
        }
    }
    if (best < 0 && spare >= 0) {
        /* the smallest idle buffer is replaced by one big enough */
        char *p = malloc(bytes);
        if (p == NULL) {
            return NULL;
        }
        free(pool[spare].p);
        pool[spare].p = p;
        pool[spare].bytes = bytes;
        best = spare;
    }
    if (best < 0) {
        *slot = -1; /* every slot busy: a buffer for this ring alone */
        return malloc(bytes);
    }
    pool[best].busy = true;
    *slot = best;
    return pool[best].p;
}

static void
scratch_give(char *p, int slot)
{
    if (slot < 0) {
        free(p);
        return;
    }
    pool[slot].busy = false;
}

static size_t ring_bytes = (size_t)1 << 20;

int
pg_mpi_ring_init(void)
{
    /* rank 0's setting holds everywhere: ranks that disagreed on which
     * reductions are rings would wait for each other forever */
    unsigned long long n = ring_bytes;
    const char *v = getenv("CTORCH_MPI_RING_BYTES");
    if (v != NULL && *v != '\0') {
        char *end;
        unsigned long long k = strtoull(v, &end, 10);
        n = *end == '\0' ? (k > 0 ? k : 1) : n;
    }
    if (MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
        return ct_error(CT_ERR_RUNTIME, "ProcessGroupMPI: cannot agree on the ring size");
    }
    ring_bytes = (size_t)n;
    return 0;
}

size_t
pg_mpi_ring_bytes(void)
{
    return ring_bytes;
}

/* Block b's first element. */
static int64_t
block_at(const pg_mpi_ring *g, int b)
{
    return g->count * b / g->size;
}

static int
mod(int a, int n)
{
    return ((a % n) + n) % n;
}

/* Post step g->step's receives and sends. */
static int
post(pg_mpi_ring *g)
{
    int r = g->rank, n = g->size, s = g->step;
    bool reducing = s < n - 1;
    int sb = reducing ? mod(r - 1 - s, n) : mod(r - (s - (n - 1)), n);
    int rb = reducing ? mod(r - 2 - s, n) : mod(r - (s - (n - 1)) - 1, n);
    int right = (r + 1) % n, left = mod(r - 1, n);
    int64_t s0 = block_at(g, sb), s1 = block_at(g, sb + 1);
    int64_t r0 = block_at(g, rb), r1 = block_at(g, rb + 1);
    g->nrecv = (int)((r1 - r0 + g->seg - 1) / g->seg);
    g->nsend = (int)((s1 - s0 + g->seg - 1) / g->seg);
    g->landed = 0;
    g->posted = true;
    for (int i = 0; i < g->nrecv; i++) {
        int64_t at = r0 + i * g->seg, k = r1 - at < g->seg ? r1 - at : g->seg;
        char *dst = reducing ? g->scratch + (size_t)(at - r0) * g->esize
                             : g->data + (size_t)at * g->esize;
        int rc = MPI_Irecv(dst, (int)(k * (int64_t)g->esize), MPI_BYTE, left, g->tag,
                           g->comm, &g->reqs[i]);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    for (int i = 0; i < g->nsend; i++) {
        int64_t at = s0 + i * g->seg, k = s1 - at < g->seg ? s1 - at : g->seg;
        int rc = MPI_Isend(g->data + (size_t)at * g->esize, (int)(k * (int64_t)g->esize),
                           MPI_BYTE, right, g->tag, g->comm, &g->reqs[g->nrecv + i]);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* Reduce the segments of this step that have landed, in order. */
static int
drain(pg_mpi_ring *g, bool block)
{
    int r = g->rank, n = g->size, s = g->step;
    bool reducing = s < n - 1;
    int64_t r0 = block_at(g, mod(r - 2 - s, n));
    while (g->landed < g->nrecv) {
        int flag = 1, rc;
        MPI_Request *q = &g->reqs[g->landed];
        rc = block ? MPI_Wait(q, MPI_STATUS_IGNORE) : MPI_Test(q, &flag, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (!flag) {
            return MPI_SUCCESS;
        }
        if (reducing) {
            int64_t off = (int64_t)g->landed * g->seg;
            int64_t end = block_at(g, mod(r - 2 - s, n) + 1) - r0;
            int64_t k = end - off < g->seg ? end - off : g->seg;
            g->reduce(g->data + (size_t)(r0 + off) * g->esize,
                      g->scratch + (size_t)off * g->esize, (size_t)k);
        }
        g->landed++;
    }
    return MPI_SUCCESS;
}

int
pg_mpi_ring_advance(pg_mpi_ring *g, bool block, bool *done)
{
    *done = false;
    while (g->step < g->nsteps) {
        int rc = drain(g, block);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (g->landed < g->nrecv) {
            return MPI_SUCCESS;
        }
        MPI_Request *sends = g->reqs + g->nrecv;
        int flag = 1;
        rc = block ? MPI_Waitall(g->nsend, sends, MPI_STATUSES_IGNORE)
                   : MPI_Testall(g->nsend, sends, &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        if (!flag) {
            return MPI_SUCCESS;
        }
        if (++g->step < g->nsteps && (rc = post(g)) != MPI_SUCCESS) {
            return rc;
        }
    }
    *done = true;
    return MPI_SUCCESS;
}

/* The ring's tag: its number in the group, within MPI's tag range. */
static int
tag_of(unsigned seq)
{
    static int ub;
    if (ub == 0) {
        int *v = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
        ub = flag && v != NULL && *v > 0 ? *v : 32767;
    }
    return (int)(seq % ((unsigned)ub + 1u));
}

pg_mpi_ring *
pg_mpi_ring_start(MPI_Comm comm, unsigned seq, int rank, int size, void *data, int64_t count,
                  ct_dtype d, ct_redop op, bool scatter_only, int *mpi_rc)
{
    *mpi_rc = MPI_SUCCESS;
    pg_mpi_ring *g = calloc(1, sizeof *g);
    if (g == NULL) {
        return NULL;
    }
    g->comm = comm;
    g->tag = tag_of(seq);
    g->rank = rank;
    g->size = size;
    g->data = data;
    g->count = count;
    g->esize = ct_dtype_itemsize(d);
    g->seg = (int64_t)(SEG_BYTES / g->esize);
    g->reduce = pg_reduce_fn_for(d, op == CT_REDOP_AVG ? CT_REDOP_SUM : op);
    g->scatter_only = scatter_only;
    g->nsteps = scatter_only ? size - 1 : 2 * (size - 1);
    g->slot = -1;
    /* the largest block bounds both the scratch and a step's segments */
    int64_t big = 0;
    for (int b = 0; b < size; b++) {
        int64_t k = block_at(g, b + 1) - block_at(g, b);
        big = k > big ? k : big;
    }
    int64_t nseg = (big + g->seg - 1) / g->seg;
    g->reqs = malloc(2 * (size_t)(nseg > 0 ? nseg : 1) * sizeof *g->reqs);
    g->scratch = scratch_take((size_t)big * g->esize, &g->slot);
    if (g->reqs == NULL || g->scratch == NULL || g->reduce == NULL) {
        pg_mpi_ring_free(g);
        return NULL;
    }
    *mpi_rc = post(g);
    return g;
}

void
pg_mpi_ring_free(pg_mpi_ring *g)
{
    if (g == NULL) {
        return;
    }
    /* a ring abandoned after an error may still have a receive in flight
     * into its scratch: that buffer leaks rather than being reused */
    if (g->scratch != NULL && (!g->posted || g->step >= g->nsteps)) {
        scratch_give(g->scratch, g->slot);
    }
    free(g->reqs);
    free(g);
}
