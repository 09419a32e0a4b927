/* csrc/distributed/transport_shm.c -- shared-memory rings between two
 * processes on one host.
 *
 * The lower rank of a pair creates an anonymous memfd holding both rings;
 * the higher rank opens it through /proc/<pid>/fd/<fd> (same user, same
 * pid namespace: the host identity makes sure), checks a random token the
 * creator sent over TCP, and maps it.  Nothing is ever named in /dev/shm,
 * so a killed process leaves nothing behind: the pages go with the last
 * mapping.  When the open fails the pair simply stays on TCP.
 *
 * Layout: [page: magic, token, cap][ring ctl a->b][ring ctl b->a]
 *         [data a->b: cap bytes][data b->a: cap bytes]
 *
 * Each ring is single-producer single-consumer.  Positions only grow; all
 * commits and consumes are multiples of 8 bytes.  Sleeping uses the
 * Dekker pattern: a side sets its *_sleeping flag, fences, and checks the
 * ring again; the other side, after moving a position, fences and, when it
 * finds the flag set, clears it and wakes the sleeper the way the flag's
 * value says: PG_SLEEP_FUTEX bumps the sleeper's doorbell word in the
 * segment and futex-wakes it (the sleeper waits on all its doorbells at
 * once with futex_waitv), PG_SLEEP_POLL sends one byte on the pair's
 * socket (a sleeper that also watches TCP links sleeps in ppoll).
 */
#include "pg_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SEG_MAGIC 0x6374676c6f6f7368ull /* "ctglooshm" */
#define SEG_HDR 4096
#define SEG_CTL 4096

typedef struct {
    uint64_t magic, token, cap;
    _Alignas(64) _Atomic uint32_t door_creator;
    _Alignas(64) _Atomic uint32_t door_opener;
} seg_header;
_Static_assert(sizeof(seg_header) <= SEG_HDR, "the header fits its page");

static size_t
seg_bytes(uint64_t cap)
{
    return SEG_HDR + SEG_CTL + 2 * cap;
}

/* a: the creator's sending ring */
static void
seg_assign(pg_link *l, bool creator)
{
    char *base = l->seg;
    pg_ring *ra = (pg_ring *)(base + SEG_HDR);
    pg_ring *rb = (pg_ring *)(base + SEG_HDR + 2048);
    char *da = base + SEG_HDR + SEG_CTL, *db = da + l->cap;
    l->txr = creator ? ra : rb;
    l->rxr = creator ? rb : ra;
    l->txd = creator ? da : db;
    l->rxd = creator ? db : da;
    l->tail_cache = 0;
    seg_header *h = l->seg;
    l->my_door = creator ? &h->door_creator : &h->door_opener;
    l->peer_door = creator ? &h->door_opener : &h->door_creator;
}

int
pg_shm_create(pg_link *l, uint64_t cap, uint64_t token)
{
    size_t n = seg_bytes(cap);
    int fd = memfd_create("ctorch-gloo", MFD_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    if (ftruncate(fd, (off_t)n) < 0) {
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    seg_header *h = p;
    h->magic = SEG_MAGIC;
    h->token = token;
    h->cap = cap;
    l->seg = p;
    l->seg_len = n;
    l->seg_fd = fd;
    l->cap = cap;
    seg_assign(l, true);
    return 0;
}

int
pg_shm_open(pg_link *l, int pid, int fd, uint64_t cap, uint64_t token)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int myfd = open(path, O_RDWR | O_CLOEXEC);
    if (myfd < 0) {
        return -1;
    }
    size_t n = seg_bytes(cap);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, myfd, 0);
    close(myfd);
    if (p == MAP_FAILED) {
        return -1;
    }
    const seg_header *h = p;
    if (h->magic != SEG_MAGIC || h->token != token || h->cap != cap) {
        munmap(p, n);
        return -1;
    }
    l->seg = p;
    l->seg_len = n;
    l->seg_fd = -1;
    l->cap = cap;
    seg_assign(l, false);
    return 0;
}

void
pg_shm_close(pg_link *l)
{
    if (l->seg != NULL) {
        munmap(l->seg, l->seg_len);
        l->seg = NULL;
    }
    if (l->seg_fd >= 0) {
        close(l->seg_fd);
        l->seg_fd = -1;
    }
    l->txr = l->rxr = NULL;
}

void
pg_shm_wake(pg_link *l, uint32_t how)
{
    if (how == PG_SLEEP_FUTEX) {
        atomic_fetch_add(l->peer_door, 1);
        syscall(SYS_futex, (uint32_t *)l->peer_door, FUTEX_WAKE, 1, NULL, NULL, 0);
    }
    else if (l->fd >= 0) {
        char c = 'w';
        /* EAGAIN: the socket is full of wake-ups already */
        (void)!send(l->fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
}

size_t
pg_shm_tx_reserve(pg_link *l, char **p)
{
    uint64_t head = atomic_load_explicit(&l->txr->head, memory_order_relaxed);
    uint64_t space = l->cap - (head - l->tail_cache);
    if (space < l->cap / 2) {
        l->tail_cache = atomic_load_explicit(&l->txr->tail, memory_order_acquire);
        space = l->cap - (head - l->tail_cache);
    }
    uint64_t off = head & (l->cap - 1);
    uint64_t contig = l->cap - off;
    *p = l->txd + off;
    return (size_t)(space < contig ? space : contig);
}

/* Move a ring index on by n (the release publishes the bytes, or the
 * room), then wake the other side if it sleeps waiting for that. */
static void
ring_advance(pg_link *l, _Atomic uint64_t *idx, _Atomic uint32_t *sleeping, size_t n)
{
    uint64_t v = atomic_load_explicit(idx, memory_order_relaxed);
    atomic_store_explicit(idx, v + n, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst);
    uint32_t how;
    if (atomic_load_explicit(sleeping, memory_order_relaxed) &&
        (how = atomic_exchange(sleeping, 0)) != 0) {
        pg_shm_wake(l, how);
    }
}

void
pg_shm_tx_commit(pg_link *l, size_t n)
{
    ring_advance(l, &l->txr->head, &l->txr->reader_sleeping, n);
}

size_t
pg_shm_rx_peek(pg_link *l, const char **p)
{
    uint64_t tail = atomic_load_explicit(&l->rxr->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&l->rxr->head, memory_order_acquire);
    uint64_t off = tail & (l->cap - 1);
    uint64_t avail = head - tail, contig = l->cap - off;
    *p = l->rxd + off;
    return (size_t)(avail < contig ? avail : contig);
}

void
pg_shm_rx_consume(pg_link *l, size_t n)
{
    ring_advance(l, &l->rxr->tail, &l->rxr->writer_sleeping, n);
}

bool
pg_shm_arm(pg_link *l, bool tx_pending, uint32_t how)
{
    atomic_store(&l->rxr->reader_sleeping, how);
    if (tx_pending) {
        atomic_store(&l->txr->writer_sleeping, how);
    }
    atomic_thread_fence(memory_order_seq_cst);
    uint64_t h = atomic_load(&l->rxr->head), t = atomic_load(&l->rxr->tail);
    if (h != t) {
        return true;
    }
    if (tx_pending) {
        uint64_t th = atomic_load(&l->txr->head), tt = atomic_load(&l->txr->tail);
        if (th - tt < l->cap) {
            return true;
        }
    }
    return false;
}

void
pg_shm_disarm(pg_link *l)
{
    atomic_store_explicit(&l->rxr->reader_sleeping, 0, memory_order_relaxed);
    atomic_store_explicit(&l->txr->writer_sleeping, 0, memory_order_relaxed);
}
