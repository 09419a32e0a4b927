/* tests/fake_nccl/nccl.c -- a pretend NCCL for tests on machines without a
 * GPU: build/tests/libnccl_fake.so, loaded by ProcessGroupNCCL
 * (csrc/distributed/pg_nccl.c) in place of libnccl.so.2 when
 * CTORCH_NCCL_LIB names it, beside the pretend CUDA part
 * (tests/fake_cuda/part.c).
 *
 * It exports the NCCL functions ctorch calls, with NCCL's signatures.  A
 * communicator is a shared-memory segment named by the unique id, which
 * ctorch passes between ranks through the store exactly as it does for
 * NCCL.  Every call runs at once on the calling thread (the pretend
 * device's kernels run at launch too, so stream order holds):
 * collectives put each rank's data in its slot of the segment, meet at a
 * barrier, compute their result from all slots with ctorch's CPU ops and
 * meet again; sends and receives go through one mailbox per ordered pair
 * of ranks, sends of an ncclGroupStart/End group before its receives.
 * Device memory is read and written through ct_cuda_memcpy, so the
 * pretend device's protection holds.  Waits give up after
 * CTORCH_FAKE_NCCL_TIMEOUT seconds (default 60) with ncclSystemError, so a
 * broken test fails instead of hanging.  Limits: at most 8 ranks, 8 MiB
 * per rank and collective, 4 MiB per message.
 */
#include <ctorch/ctorch.h>
#include <ctorch/cuda.h>

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    char internal[128];
} ncclUniqueId;

enum { OK = 0, SYSTEM_ERROR = 2, INTERNAL_ERROR = 3, INVALID_ARGUMENT = 4, INVALID_USAGE = 5 };
enum { SUM = 0, PROD = 1, MAX = 2, MIN = 3, AVG = 4 };

#define MAX_RANKS 8
#define SLOT_BYTES ((size_t)8 << 20)
#define MAIL_BYTES ((size_t)4 << 20)

typedef struct {
    _Atomic uint32_t joined;
    _Atomic uint32_t arrive;
    _Atomic uint32_t generation;
    int nranks;
} seg_header;

typedef struct {
    _Atomic uint32_t full;
    uint64_t len;
} mailbox;

#define HEADER_BYTES 4096
#define MAILBOX_HEADERS (MAX_RANKS * MAX_RANKS * sizeof(mailbox))
#define SEG_BYTES (HEADER_BYTES + MAILBOX_HEADERS + MAX_RANKS * SLOT_BYTES + \
                   MAX_RANKS * MAX_RANKS * MAIL_BYTES)

typedef struct {
    int op;             /* 0: send, 1: recv */
    void *buf;
    size_t bytes;
    int peer;
} p2p_op;

typedef struct ncclComm {
    char *seg;
    int rank, nranks;
    int async;
    p2p_op *queued;
    int nqueued, cap;
} *ncclComm_t;

static _Thread_local int group_depth;
static _Thread_local ncclComm_t group_comm;

static seg_header *
header(ncclComm_t c)
{
    return (seg_header *)c->seg;
}

static mailbox *
box(ncclComm_t c, int from, int to)
{
    return (mailbox *)(c->seg + HEADER_BYTES) + from * MAX_RANKS + to;
}

static char *
slot(ncclComm_t c, int r)
{
    return c->seg + HEADER_BYTES + MAILBOX_HEADERS + (size_t)r * SLOT_BYTES;
}

static char *
mail(ncclComm_t c, int from, int to)
{
    return c->seg + HEADER_BYTES + MAILBOX_HEADERS + MAX_RANKS * SLOT_BYTES +
           (size_t)(from * MAX_RANKS + to) * MAIL_BYTES;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
limit_s(void)
{
    const char *v = getenv("CTORCH_FAKE_NCCL_TIMEOUT");
    return v != NULL ? atof(v) : 60.0;
}

/* Wait until *word != old (or, with want >= 0, == want); false on timeout. */
static bool
wait_word(_Atomic uint32_t *word, uint32_t old, int64_t want, const char *what)
{
    double end = now_s() + limit_s();
    for (int spin = 0;; spin++) {
        uint32_t v = atomic_load(word);
        if (want >= 0 ? v == (uint32_t)want : v != old) {
            return true;
        }
        if (now_s() > end) {
            fprintf(stderr, "fake NCCL: gave up waiting for %s\n", what);
            return false;
        }
        if (spin < 100) {
            sched_yield();
        }
        else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

static int
barrier(ncclComm_t c)
{
    seg_header *h = header(c);
    uint32_t gen = atomic_load(&h->generation);
    if (atomic_fetch_add(&h->arrive, 1) + 1 == (uint32_t)c->nranks) {
        atomic_store(&h->arrive, 0);
        atomic_fetch_add(&h->generation, 1);
        return OK;
    }
    return wait_word(&h->generation, gen, -1, "the other ranks") ? OK : SYSTEM_ERROR;
}

/* --- data ------------------------------------------------------------------ */

static ct_dtype
dtype_of(int t)
{
    switch (t) {
    case 0: return CT_DTYPE_INT8;
    case 1: return CT_DTYPE_UINT8;
    case 2: return CT_DTYPE_INT32;
    case 4: return CT_DTYPE_INT64;
    case 6: return CT_DTYPE_FLOAT16;
    case 7: return CT_DTYPE_FLOAT32;
    case 8: return CT_DTYPE_FLOAT64;
    case 9: return CT_DTYPE_BFLOAT16;
    default: return CT_DTYPE_COUNT;
    }
}

/* A CPU tensor of count elements over host memory p (borrowed). */
static ct_tensor *
over(void *p, size_t count, ct_dtype dt)
{
    int64_t n = (int64_t)count, one = 1;
    ct_storage *s = ct_storage_new_external(p, count * ct_dtype_itemsize(dt) + 1,
                                            ct_device_cpu(), NULL, NULL);
    if (s == NULL) {
        return NULL;
    }
    ct_tensor *t = ct_tensor_new(s, 0, 1, &n, &one, dt);
    ct_storage_decref(s);
    return t;
}

static int
to_host(void *dst, const void *src, size_t n)
{
    return n == 0 || ct_cuda_memcpy(dst, src, n, NULL, true) == 0 ? OK : INTERNAL_ERROR;
}

/* out (host, count elements) = the reduction over every rank's slot at
 * byte offset off. */
static int
reduce_slots(ncclComm_t c, size_t off, size_t count, ct_dtype dt, int op, void *out)
{
    ct_tensor *acc = over(slot(c, 0) + off, count, dt);
    ct_tensor *r = acc != NULL ? ct_to_dtype(acc, dt, true) : NULL;   /* a copy */
    ct_tensor_decref(acc);
    static const ct_binary_op ops[] = {[SUM] = CT_BINARY_ADD, [PROD] = CT_BINARY_MUL,
                                       [MAX] = CT_BINARY_MAXIMUM, [MIN] = CT_BINARY_MINIMUM,
                                       [AVG] = CT_BINARY_ADD};
    for (int q = 1; q < c->nranks && r != NULL; q++) {
        ct_tensor *x = over(slot(c, q) + off, count, dt);
        ct_tensor *n = x != NULL ? ct_binary(ops[op], r, x, ct_scalar_int(1), NULL,
                                             CT_OUT_NEW)
                                 : NULL;
        ct_tensor_decref(x);
        ct_tensor_decref(r);
        r = n;
    }
    if (r != NULL && op == AVG) {
        ct_tensor *k = ct_scalar_tensor(ct_scalar_int(c->nranks));
        bool fl = ct_dtype_is_floating(dt);
        ct_tensor *n = k != NULL ? ct_binary(fl ? CT_BINARY_DIV : CT_BINARY_DIV_TRUNC, r, k,
                                             ct_scalar_int(1), NULL, CT_OUT_NEW)
                                 : NULL;
        ct_tensor *m = n != NULL && n->dtype != dt ? ct_to_dtype(n, dt, false) : NULL;
        ct_tensor_decref(k);
        ct_tensor_decref(r);
        if (m != NULL) {
            ct_tensor_decref(n);
            n = m;
        }
        r = n;
    }
    if (r == NULL) {
        ct_error_clear();
        return INTERNAL_ERROR;
    }
    memcpy(out, ct_tensor_data(r), count * ct_dtype_itemsize(dt));
    ct_tensor_decref(r);
    return OK;
}

static int
check_args(ncclComm_t c, size_t bytes, ct_dtype dt, int op)
{
    if (c == NULL || dt == CT_DTYPE_COUNT || op < 0 || op > AVG) {
        return INVALID_ARGUMENT;
    }
    if (bytes > SLOT_BYTES) {
        fprintf(stderr, "fake NCCL: %zu bytes is more than it carries\n", bytes);
        return INVALID_USAGE;
    }
    return OK;
}

/* --- the API ------------------------------------------------------------------ */

int ncclGetVersion(int *version);
int ncclGetUniqueId(ncclUniqueId *id);
int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
int ncclCommDestroy(ncclComm_t comm);
int ncclCommAbort(ncclComm_t comm);
int ncclCommGetAsyncError(ncclComm_t comm, int *err);
const char *ncclGetErrorString(int rc);
int ncclAllReduce(const void *send, void *recv, size_t count, int dt, int op, ncclComm_t c,
                  void *stream);
int ncclBroadcast(const void *send, void *recv, size_t count, int dt, int root, ncclComm_t c,
                  void *stream);
int ncclReduce(const void *send, void *recv, size_t count, int dt, int op, int root,
               ncclComm_t c, void *stream);
int ncclAllGather(const void *send, void *recv, size_t count, int dt, ncclComm_t c,
                  void *stream);
int ncclReduceScatter(const void *send, void *recv, size_t count, int dt, int op,
                      ncclComm_t c, void *stream);
int ncclSend(const void *send, size_t count, int dt, int peer, ncclComm_t c, void *stream);
int ncclRecv(void *recv, size_t count, int dt, int peer, ncclComm_t c, void *stream);
int ncclGroupStart(void);
int ncclGroupEnd(void);

int
ncclGetVersion(int *version)
{
    *version = 22800;
    return OK;
}

const char *
ncclGetErrorString(int rc)
{
    switch (rc) {
    case OK: return "no error";
    case SYSTEM_ERROR: return "unhandled system error (fake NCCL: a peer did not come)";
    case INTERNAL_ERROR: return "internal error (fake NCCL)";
    case INVALID_ARGUMENT: return "invalid argument";
    case INVALID_USAGE: return "invalid usage";
    default: return "unknown result code";
    }
}

int
ncclGetUniqueId(ncclUniqueId *id)
{
    static atomic_int counter;
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "/ctorch-fake-nccl-%d-%d-%ld", (int)getpid(),
             atomic_fetch_add(&counter, 1), (long)(now_s() * 1e6) % 1000000);
    return OK;
}

int
ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks ||
        id.internal[0] != '/') {
        return INVALID_ARGUMENT;
    }
    char name[sizeof id.internal + 1];
    memcpy(name, id.internal, sizeof id.internal);
    name[sizeof id.internal] = '\0';
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) {
        return SYSTEM_ERROR;
    }
    if (ftruncate(fd, (off_t)SEG_BYTES) < 0) {
        close(fd);
        return SYSTEM_ERROR;
    }
    void *p = mmap(NULL, SEG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return SYSTEM_ERROR;
    }
    ncclComm_t c = calloc(1, sizeof *c);
    if (c == NULL) {
        munmap(p, SEG_BYTES);
        return SYSTEM_ERROR;
    }
    c->seg = p;
    c->rank = rank;
    c->nranks = nranks;
    atomic_fetch_add(&header(c)->joined, 1);
    if (!wait_word(&header(c)->joined, 0, nranks, "every rank to join")) {
        munmap(p, SEG_BYTES);
        free(c);
        return SYSTEM_ERROR;
    }
    if (barrier(c) != OK) {
        munmap(p, SEG_BYTES);
        free(c);
        return SYSTEM_ERROR;
    }
    if (rank == 0) {
        shm_unlink(name);       /* every rank has it mapped */
    }
    *comm = c;
    return OK;
}

int
ncclCommDestroy(ncclComm_t c)
{
    if (c != NULL) {
        munmap(c->seg, SEG_BYTES);
        free(c->queued);
        free(c);
    }
    return OK;
}

int
ncclCommAbort(ncclComm_t c)
{
    return ncclCommDestroy(c);
}

int
ncclCommGetAsyncError(ncclComm_t c, int *err)
{
    *err = c != NULL ? c->async : INVALID_ARGUMENT;
    return OK;
}

int
ncclAllReduce(const void *send, void *recv, size_t count, int dt, int op, ncclComm_t c,
              void *stream)
{
    return ncclReduce(send, recv, count, dt, op, -1, c, stream);
}

/* root -1: every rank takes the result (all_reduce) */
int
ncclReduce(const void *send, void *recv, size_t count, int dt, int op, int root,
           ncclComm_t c, void *stream)
{
    (void)stream;
    ct_dtype d = dtype_of(dt);
    size_t bytes = count * (d != CT_DTYPE_COUNT ? ct_dtype_itemsize(d) : 0);
    int rc = check_args(c, bytes, d, op);
    if (rc != OK || (rc = to_host(slot(c, c->rank), send, bytes)) != OK ||
        (rc = barrier(c)) != OK) {
        return rc;
    }
    if (root < 0 || root == c->rank) {
        void *tmp = malloc(bytes + 1);
        rc = tmp == NULL ? SYSTEM_ERROR : reduce_slots(c, 0, count, d, op, tmp);
        if (rc == OK) {
            rc = to_host(recv, tmp, bytes);
        }
        free(tmp);
    }
    int b = barrier(c);
    return rc != OK ? rc : b;
}

int
ncclBroadcast(const void *send, void *recv, size_t count, int dt, int root, ncclComm_t c,
              void *stream)
{
    (void)stream;
    ct_dtype d = dtype_of(dt);
    size_t bytes = count * (d != CT_DTYPE_COUNT ? ct_dtype_itemsize(d) : 0);
    int rc = check_args(c, bytes, d, SUM);
    if (rc != OK) {
        return rc;
    }
    if (c->rank == root && (rc = to_host(slot(c, root), send, bytes)) != OK) {
        return rc;
    }
    if ((rc = barrier(c)) != OK) {
        return rc;
    }
    rc = to_host(recv, slot(c, root), bytes);
    int b = barrier(c);
    return rc != OK ? rc : b;
}

int
ncclAllGather(const void *send, void *recv, size_t count, int dt, ncclComm_t c,
              void *stream)
{
    (void)stream;
    ct_dtype d = dtype_of(dt);
    size_t bytes = count * (d != CT_DTYPE_COUNT ? ct_dtype_itemsize(d) : 0);
    int rc = check_args(c, bytes, d, SUM);
    if (rc != OK || (rc = to_host(slot(c, c->rank), send, bytes)) != OK ||
        (rc = barrier(c)) != OK) {
        return rc;
    }
    for (int q = 0; q < c->nranks && rc == OK; q++) {
        rc = to_host((char *)recv + (size_t)q * bytes, slot(c, q), bytes);
    }
    int b = barrier(c);
    return rc != OK ? rc : b;
}

int
ncclReduceScatter(const void *send, void *recv, size_t count, int dt, int op, ncclComm_t c,
                  void *stream)
{
    (void)stream;
    ct_dtype d = dtype_of(dt);
    size_t bytes = count * (d != CT_DTYPE_COUNT ? ct_dtype_itemsize(d) : 0);
    int rc = check_args(c, bytes * (size_t)(c != NULL ? c->nranks : 1), d, op);
    if (rc != OK ||
        (rc = to_host(slot(c, c->rank), send, bytes * (size_t)c->nranks)) != OK ||
        (rc = barrier(c)) != OK) {
        return rc;
    }
    void *tmp = malloc(bytes + 1);
    rc = tmp == NULL ? SYSTEM_ERROR
                     : reduce_slots(c, bytes * (size_t)c->rank, count, d, op, tmp);
    if (rc == OK) {
        rc = to_host(recv, tmp, bytes);
    }
    free(tmp);
    int b = barrier(c);
    return rc != OK ? rc : b;
}

static int
do_send(ncclComm_t c, const p2p_op *o)
{
    mailbox *m = box(c, c->rank, o->peer);
    if (!wait_word(&m->full, 0, 0, "a receiver to empty its mailbox")) {
        return SYSTEM_ERROR;
    }
    int rc = to_host(mail(c, c->rank, o->peer), o->buf, o->bytes);
    m->len = o->bytes;
    atomic_store(&m->full, 1);
    return rc;
}

static int
do_recv(ncclComm_t c, const p2p_op *o)
{
    mailbox *m = box(c, o->peer, c->rank);
    if (!wait_word(&m->full, 0, 1, "a sender")) {
        return SYSTEM_ERROR;
    }
    int rc = m->len != o->bytes ? INVALID_USAGE
                                : to_host(o->buf, mail(c, o->peer, c->rank), o->bytes);
    atomic_store(&m->full, 0);
    return rc;
}

/* Sends first, then receives: every rank of an exchange does the same, so
 * a mailbox of one message per pair cannot deadlock it. */
static int
flush(ncclComm_t c)
{
    int rc = OK;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < c->nqueued && rc == OK; i++) {
            if (c->queued[i].op == pass) {
                rc = pass == 0 ? do_send(c, &c->queued[i]) : do_recv(c, &c->queued[i]);
            }
        }
    }
    c->nqueued = 0;
    return rc;
}

static int
p2p(int op, void *buf, size_t count, int dt, int peer, ncclComm_t c)
{
    ct_dtype d = dtype_of(dt);
    if (c == NULL || d == CT_DTYPE_COUNT || peer < 0 || peer >= c->nranks) {
        return INVALID_ARGUMENT;
    }
    size_t bytes = count * ct_dtype_itemsize(d);
    if (bytes > MAIL_BYTES) {
        fprintf(stderr, "fake NCCL: a %zu-byte message is more than it carries\n", bytes);
        return INVALID_USAGE;
    }
    if (c->nqueued == c->cap) {
        int cap = c->cap ? 2 * c->cap : 8;
        p2p_op *q = realloc(c->queued, (size_t)cap * sizeof *q);
        if (q == NULL) {
            return SYSTEM_ERROR;
        }
        c->queued = q;
        c->cap = cap;
    }
    c->queued[c->nqueued++] = (p2p_op){op, buf, bytes, peer};
    if (group_depth > 0) {
        group_comm = c;
        return OK;
    }
    return flush(c);
}

int
ncclSend(const void *send, size_t count, int dt, int peer, ncclComm_t c, void *stream)
{
    (void)stream;
    return p2p(0, (void *)send, count, dt, peer, c);
}

int
ncclRecv(void *recv, size_t count, int dt, int peer, ncclComm_t c, void *stream)
{
    (void)stream;
    return p2p(1, recv, count, dt, peer, c);
}

int
ncclGroupStart(void)
{
    group_depth++;
    return OK;
}

int
ncclGroupEnd(void)
{
    if (group_depth <= 0) {
        return INVALID_USAGE;
    }
    if (--group_depth > 0 || group_comm == NULL) {
        return OK;
    }
    ncclComm_t c = group_comm;
    group_comm = NULL;
    return flush(c);
}
