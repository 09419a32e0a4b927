/* csrc/distributed/transport_flat.c -- one shared segment for a whole group
 * whose ranks all share this host: a slot per rank, written once and read
 * by every peer.
 *
 * Note [Flat exchange]
 * Phase 1 of a collective (Note [Process group structure]) over the pair
 * rings costs P - 1 frames per rank and, on a machine with fewer cores than
 * ranks, up to P - 1 wake-ups of every sleeping peer.  When every rank maps
 * this segment, phase 1 goes through it instead: a rank writes its
 * description (and its payload, when it sends the same bytes to every peer
 * that takes any) into its slot, then stamps the slot with the collective's
 * sequence number.  A rank that finds every stamp present after its own
 * wakes all sleepers with one FUTEX_WAKE on the shared `bell`; so each
 * sleeper sleeps and wakes once per operation.  (Payloads that differ by
 * destination, as in scatter and all_to_all, lie side by side.)  Two generations of slots
 * (by the parity of the sequence number) let a rank fill the next
 * operation's slot while a slow peer still reads this one: no rank can get
 * two operations ahead of another, since each needs every stamp.  A rank
 * that gives up during the exchange withdraws its stamp, writing -seq:
 * a late peer then does not finish without it, and a peer that times out
 * before that rank's ABORT reaches it still counts it as one that came.
 *
 * Waking without a lost wake-up: an arriver stamps, fences, reads the
 * stamps, bumps the bell, reads `sleepers`; a sleeper reads the bell, bumps
 * `sleepers`, fences, reads the stamps, then waits on the bell value it
 * read.  (The sleeper waits in block_futex with its other futex words.)
 *
 * Setup rides on the sockets right after the mesh is up: rank 0 offers a
 * memfd (like the pair rings, opened through /proc/<pid>/fd), every rank
 * says whether it could map it and has every peer on shared memory, and
 * rank 0 announces the verdict, so every rank makes the same choice.
 */
#include "pg_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FLAT_MAGIC 0x6374666c61743031ull /* "ctflat01" */
#define FLAT_HDR 256

struct pg_flat {
    void *base;
    size_t bytes;
    int P, rank;
    size_t slot_bytes;
    size_t data_cap;
};

typedef struct {
    uint64_t magic, token;
    uint64_t P, data_cap;
    _Alignas(64) _Atomic uint32_t bell;
    _Alignas(64) _Atomic uint32_t sleepers;
} flat_hdr;
_Static_assert(sizeof(flat_hdr) <= FLAT_HDR, "the header fits");

/* The offer rank 0 makes on each socket. */
typedef struct {
    uint64_t magic, token;
    int32_t ok, pid, fd, pad;
    uint64_t data_cap;
} flat_offer;

static size_t
slot_bytes(size_t data_cap)
{
    return sizeof(pg_flat_slot) + (data_cap + 63) / 64 * 64;
}

static size_t
seg_bytes(int P, size_t data_cap)
{
    return FLAT_HDR + 2 * (size_t)P * slot_bytes(data_cap);
}

static pg_flat *
flat_map(int fd, int P, int rank, size_t data_cap, uint64_t token, bool init)
{
    size_t n = seg_bytes(P, data_cap);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        return NULL;
    }
    flat_hdr *h = p;
    if (init) {
        h->magic = FLAT_MAGIC;
        h->token = token;
        h->P = (uint64_t)P;
        h->data_cap = data_cap;
    }
    else if (h->magic != FLAT_MAGIC || h->token != token || h->P != (uint64_t)P ||
             h->data_cap != data_cap) {
        munmap(p, n);
        return NULL;
    }
    pg_flat *f = calloc(1, sizeof *f);
    if (f == NULL) {
        munmap(p, n);
        return NULL;
    }
    *f = (pg_flat){p, n, P, rank, slot_bytes(data_cap), data_cap};
    return f;
}

/* Could this rank take part: every peer on shared memory, futex_waitv. */
static bool
flat_able(const ct_pg *pg)
{
    const char *e = getenv("CTORCH_GLOO_FLAT");
    return pg->size >= 2 && pg->size <= PG_FLAT_MAX_RANKS && pg->nshm == pg->size - 1 &&
           pg_have_futex_waitv() && !(e != NULL && e[0] == '0');
}

int
pg_flat_setup(ct_pg *pg, size_t data_cap, int64_t deadline)
{
    int P = pg->size, me = pg->rank;
    bool able = flat_able(pg);
    int fd = -1, rc = -1;
    pg_flat *f = NULL;
    if (P < 2 || P > PG_FLAT_MAX_RANKS) {
        return 0; /* the same answer on every rank without asking */
    }
    if (me == 0) {
        flat_offer o = {FLAT_MAGIC, 0, 0, (int32_t)getpid(), -1, 0, data_cap};
        if (able) {
            (void)!getrandom(&o.token, sizeof o.token, 0);
            fd = memfd_create("ctorch-gloo-flat", MFD_CLOEXEC);
            if (fd >= 0 && ftruncate(fd, (off_t)seg_bytes(P, data_cap)) == 0) {
                f = flat_map(fd, P, me, data_cap, o.token, true);
            }
            o.ok = f != NULL;
            o.fd = fd;
        }
        char verdict = o.ok ? 'Y' : 'N';
        for (int q = 1; q < P; q++) {
            if (pg_io_full(pg->links[q].fd, &o, sizeof o, false, deadline) < 0) {
                goto lost;
            }
        }
        for (int q = 1; q < P; q++) {
            char a;
            if (pg_io_full(pg->links[q].fd, &a, 1, true, deadline) < 0) {
                goto lost;
            }
            verdict = a == 'Y' ? verdict : 'N';
        }
        for (int q = 1; q < P; q++) {
            if (pg_io_full(pg->links[q].fd, &verdict, 1, false, deadline) < 0) {
                goto lost;
            }
        }
        if (verdict != 'Y') {
            pg_flat_close(f);
            f = NULL;
        }
    }
    else {
        flat_offer o;
        int sfd = pg->links[0].fd;
        if (pg_io_full(sfd, &o, sizeof o, true, deadline) < 0) {
            goto lost;
        }
        if (o.magic == FLAT_MAGIC && o.ok && able) {
            char path[64];
            snprintf(path, sizeof path, "/proc/%d/fd/%d", o.pid, o.fd);
            int myfd = open(path, O_RDWR | O_CLOEXEC);
            if (myfd >= 0) {
                f = flat_map(myfd, P, me, o.data_cap, o.token, false);
                close(myfd);
            }
        }
        char a = f != NULL ? 'Y' : 'N', verdict;
        if (pg_io_full(sfd, &a, 1, false, deadline) < 0 ||
            pg_io_full(sfd, &verdict, 1, true, deadline) < 0) {
            goto lost;
        }
        if (verdict != 'Y') {
            pg_flat_close(f);
            f = NULL;
        }
    }
    pg->flat = f;
    f = NULL;
    rc = 0;
    goto done;
lost:
    ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: a peer went away during setup (%s)",
             strerror(errno));
done:
    pg_flat_close(f);
    if (fd >= 0) {
        close(fd); /* every peer has its own mapping by now */
    }
    return rc;
}

void
pg_flat_close(pg_flat *f)
{
    if (f != NULL) {
        munmap(f->base, f->bytes);
        free(f);
    }
}

size_t
pg_flat_cap(const pg_flat *f)
{
    return f->data_cap;
}

pg_flat_slot *
pg_flat_slot_at(const pg_flat *f, int64_t seq, int q)
{
    size_t i = (size_t)(seq & 1) * (size_t)f->P + (size_t)q;
    return (pg_flat_slot *)((char *)f->base + FLAT_HDR + i * f->slot_bytes);
}

char *
pg_flat_data(pg_flat_slot *s)
{
    return (char *)(s + 1);
}

static flat_hdr *
hdr(const pg_flat *f)
{
    return f->base;
}

bool
pg_flat_all_in(const pg_flat *f, int64_t seq)
{
    for (int q = 0; q < f->P; q++) {
        if (atomic_load_explicit(&pg_flat_slot_at(f, seq, q)->seq,
                                 memory_order_acquire) != seq) {
            return false;
        }
    }
    return true;
}

void
pg_flat_publish(pg_flat *f, int64_t seq)
{
    flat_hdr *h = hdr(f);
    atomic_store_explicit(&pg_flat_slot_at(f, seq, f->rank)->seq, seq,
                          memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    if (!pg_flat_all_in(f, seq)) {
        return;
    }
    atomic_fetch_add(&h->bell, 1);
    if (atomic_load(&h->sleepers) > 0) {
        syscall(SYS_futex, (uint32_t *)&h->bell, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0);
    }
}

_Atomic uint32_t *
pg_flat_arm(pg_flat *f, int64_t seq, uint32_t *bell, bool *ready)
{
    flat_hdr *h = hdr(f);
    *bell = atomic_load(&h->bell);
    atomic_fetch_add(&h->sleepers, 1);
    atomic_thread_fence(memory_order_seq_cst);
    *ready = pg_flat_all_in(f, seq);
    return &h->bell;
}

void
pg_flat_disarm(pg_flat *f)
{
    atomic_fetch_sub(&hdr(f)->sleepers, 1);
}
