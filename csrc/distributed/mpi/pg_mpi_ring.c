/* csrc/distributed/mpi/pg_mpi_ring.c -- large all_reduce, reduce and
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
 *   (send block r-s, receive block r-s-1 in place); reduce instead sends
 *   every block to the root in one last step, and a rank other than the
 *   root reduces a pooled copy, leaving its tensor as it was.
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
    char *work;                 /* what the ring reduces: data, or a pooled copy */
    ct_tensor *owner;           /* holds data's storage (a reference) */
    int root;                   /* reduce: the rank that gathers; else -1 */
    int work_slot;
    bool reducing;              /* this step adds what lands into [rstart, rend) */
    int64_t rstart, rend;
    size_t esize;
    int64_t count, seg;         /* elements in all, per segment */
    pg_reduce_fn reduce;
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

/* Post n elements at p as segments: receives from (or sends to) peer,
 * into reqs from *k on. */
static int
post_range(pg_mpi_ring *g, char *p, int64_t n, int peer, bool send, int *k)
{
    for (int64_t off = 0; off < n; off += g->seg) {
        int64_t len = n - off < g->seg ? n - off : g->seg;
        char *at = p + (size_t)off * g->esize;
        int bytes = (int)(len * (int64_t)g->esize);
        int rc = send ? MPI_Isend(at, bytes, MPI_BYTE, peer, g->tag, g->comm, &g->reqs[*k])
                      : MPI_Irecv(at, bytes, MPI_BYTE, peer, g->tag, g->comm, &g->reqs[*k]);
        if (rc != MPI_SUCCESS) {
            return rc;
        }
        (*k)++;
    }
    return MPI_SUCCESS;
}

/* Element i of buf. */
static char *
elem(const pg_mpi_ring *g, char *buf, int64_t i)
{
    return buf + (size_t)i * g->esize;
}

/* Post step g->step's receives (reqs[0, nrecv)) and sends (after them):
 * a reduce-scatter step, an all-gather step, or reduce's last step where
 * every rank sends its reduced block to the root. */
static int
post(pg_mpi_ring *g)
{
    int r = g->rank, n = g->size, s = g->step, rc = MPI_SUCCESS;
    int right = (r + 1) % n, left = mod(r - 1, n);
    g->landed = 0;
    g->posted = true;
    g->nrecv = g->nsend = 0;
    g->reducing = s < n - 1;
    if (g->root >= 0 && s == n - 1) {
        /* the gather to the root, into its own tensor */
        g->reducing = false;
        int k = 0;
        for (int q = 0; q < n && r == g->root && rc == MPI_SUCCESS; q++) {
            if (q != r) {
                rc = post_range(g, elem(g, g->data, block_at(g, q)),
                                block_at(g, q + 1) - block_at(g, q), q, false, &k);
            }
        }
        g->nrecv = k;
        if (r != g->root && rc == MPI_SUCCESS) {
            rc = post_range(g, elem(g, g->work, block_at(g, r)),
                            block_at(g, r + 1) - block_at(g, r), g->root, true, &k);
        }
        g->nsend = k - g->nrecv;
        return rc;
    }
    int sb = g->reducing ? mod(r - 1 - s, n) : mod(r - (s - (n - 1)), n);
    int rb = g->reducing ? mod(r - 2 - s, n) : mod(r - (s - (n - 1)) - 1, n);
    int64_t s0 = block_at(g, sb), s1 = block_at(g, sb + 1);
    int64_t r0 = block_at(g, rb), r1 = block_at(g, rb + 1);
    g->rstart = r0;
    g->rend = r1;
    int k = 0;
    /* a reduce-scatter step lands in the scratch, an all-gather step in place */
    rc = post_range(g, g->reducing ? g->scratch : elem(g, g->work, r0), r1 - r0, left,
                    false, &k);
    g->nrecv = k;
    if (rc == MPI_SUCCESS) {
        rc = post_range(g, elem(g, g->work, s0), s1 - s0, right, true, &k);
    }
    g->nsend = k - g->nrecv;
    return rc;
}

/* Reduce the segments of this step that have landed, in order. */
static int
drain(pg_mpi_ring *g, bool block)
{
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
        if (g->reducing) {
            int64_t off = (int64_t)g->landed * g->seg;
            int64_t rest = g->rend - g->rstart - off;
            int64_t k = rest < g->seg ? rest : g->seg;
            g->reduce(elem(g, g->work, g->rstart + off), elem(g, g->scratch, off),
                      (size_t)k);
        }
        g->landed++;
    }
    return MPI_SUCCESS;
}

static int
advance(pg_mpi_ring *g, bool block, bool *done)
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

int
pg_mpi_ring_advance(pg_mpi_ring *g, bool block, bool *done, bool *moved)
{
    int step0 = g->step, landed0 = g->landed;
    int rc = advance(g, block, done);
    *moved = *done || g->step != step0 || g->landed != landed0;
    return rc;
}

const char *
pg_mpi_ring_result(const pg_mpi_ring *g)
{
    return g->work;
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
pg_mpi_ring_start(const pg_mpi_ring_spec *sp, int *mpi_rc)
{
    *mpi_rc = MPI_SUCCESS;
    pg_mpi_ring *g = calloc(1, sizeof *g);
    if (g == NULL) {
        return NULL;
    }
    int size = sp->size;
    g->comm = sp->comm;
    g->tag = tag_of(sp->seq);
    g->rank = sp->rank;
    g->size = size;
    g->data = g->work = sp->data;
    g->owner = sp->owner;
    ct_tensor_incref(g->owner);
    g->root = sp->root;
    g->count = sp->count;
    g->esize = ct_dtype_itemsize(sp->dtype);
    g->seg = (int64_t)(SEG_BYTES / g->esize);
    g->reduce = pg_reduce_fn_for(sp->dtype, sp->op == CT_REDOP_AVG ? CT_REDOP_SUM : sp->op);
    g->nsteps = sp->scatter_only ? size - 1 : sp->root >= 0 ? size : 2 * (size - 1);
    g->slot = g->work_slot = -1;
    /* the largest block bounds both the scratch and a step's segments; the
     * root's gather receives a block from every other rank */
    int64_t big = 0;
    for (int b = 0; b < size; b++) {
        int64_t k = block_at(g, b + 1) - block_at(g, b);
        big = k > big ? k : big;
    }
    int64_t nseg = (big + g->seg - 1) / g->seg;
    g->reqs = malloc((size_t)(size > 2 ? size : 2) * (size_t)(nseg > 0 ? nseg : 1) *
                     sizeof *g->reqs);
    g->scratch = scratch_take((size_t)big * g->esize, &g->slot);
    if (sp->copy_in && g->scratch != NULL) {
        g->work = scratch_take((size_t)g->count * g->esize, &g->work_slot);
        if (g->work != NULL) {
            memcpy(g->work, g->data, (size_t)g->count * g->esize);
        }
    }
    if (g->reqs == NULL || g->scratch == NULL || g->work == NULL || g->reduce == NULL) {
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
    if (g->posted && g->step < g->nsteps) {
        /* given up after an error: receives may still be live, so their
         * buffers and the owner's storage stay (a leak, on errors only) */
        free(g->reqs);
        free(g);
        return;
    }
    if (g->scratch != NULL) {
        scratch_give(g->scratch, g->slot);
    }
    if (g->work != NULL && g->work != g->data) {
        scratch_give(g->work, g->work_slot);
    }
    ct_tensor_decref(g->owner);
    free(g->reqs);
    free(g);
}
