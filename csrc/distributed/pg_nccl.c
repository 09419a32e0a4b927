/* csrc/distributed/pg_nccl.c -- ProcessGroupNCCL: collectives on CUDA
 * tensors through NCCL, loaded at run time (dlopen), so a build or a
 * machine without NCCL still imports.
 *
 * Note [NCCL works]
 * pg_ops.c checks the arguments as for every backend; `submit` then
 * queues the operation on the device, on the caller's thread: it finds
 * (or makes) the group's communicator for the tensors' device, lets the
 * group's internal stream for that device wait for the caller's current
 * stream, issues the NCCL call(s) there and records an `end` event.  The
 * work is complete on the host as soon as that is queued, as PyTorch's
 * WorkNCCL future is; what stays pending is the device's part, so
 *   - wait() makes the caller's current stream wait for `end` (the host
 *     does not block; with TORCH_NCCL_BLOCKING_WAIT=1 it does, up to the
 *     timeout, and a timeout aborts the communicator);
 *   - is_completed() asks the event;
 *   - the caller's tensors are recorded on the internal stream, so the
 *     caching allocator does not hand their memory out again before the
 *     NCCL kernels are done with it.
 * Temporaries (the flat buffers of list collectives) are allocated and
 * copied while the internal stream is current, so they are ordered with
 * the NCCL calls.
 *
 * Communicators are made lazily, one per device a group uses, as
 * PyTorch's: rank 0 makes the unique id and publishes it in the group's
 * store under a key counting the group's communicators, and every rank
 * joins with ncclCommInitRank on that device.  One communicator carries
 * collectives and point-to-point alike, so every rank must issue them in
 * the same order (NCCL's rule).
 */
#include "pg_impl.h"

#include <ctorch/cuda.h>
#include <ctorch/ops.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --- NCCL's C API, declared here so that nccl.h is not needed to build -- */

typedef struct {
    char internal[128];
} nccl_uid;
typedef void *nccl_comm;

enum { NCCL_OK = 0, NCCL_IN_PROGRESS = 7 };
enum { NCCL_SUM = 0, NCCL_PROD = 1, NCCL_MAX = 2, NCCL_MIN = 3, NCCL_AVG = 4 };

#define NCCL_FUNCS(X)                                                                  \
    X(int, ncclGetVersion, (int *))                                                    \
    X(int, ncclGetUniqueId, (nccl_uid *))                                              \
    X(int, ncclCommInitRank, (nccl_comm *, int, nccl_uid, int))                        \
    X(int, ncclCommDestroy, (nccl_comm))                                               \
    X(int, ncclCommAbort, (nccl_comm))                                                 \
    X(int, ncclCommGetAsyncError, (nccl_comm, int *))                                  \
    X(const char *, ncclGetErrorString, (int))                                         \
    X(int, ncclAllReduce, (const void *, void *, size_t, int, int, nccl_comm, void *)) \
    X(int, ncclBroadcast, (const void *, void *, size_t, int, int, nccl_comm, void *)) \
    X(int, ncclReduce, (const void *, void *, size_t, int, int, int, nccl_comm, void *)) \
    X(int, ncclAllGather, (const void *, void *, size_t, int, nccl_comm, void *))      \
    X(int, ncclReduceScatter, (const void *, void *, size_t, int, int, nccl_comm, void *)) \
    X(int, ncclSend, (const void *, size_t, int, int, nccl_comm, void *))              \
    X(int, ncclRecv, (void *, size_t, int, int, nccl_comm, void *))                    \
    X(int, ncclGroupStart, (void))                                                     \
    X(int, ncclGroupEnd, (void))

static struct {
    void *handle;
    char why[512];      /* why it could not be loaded */
    int version;
#define X(R, N, A) R(*N) A;
    NCCL_FUNCS(X)
#undef X
} nccl;
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;

static void
load_nccl(void)
{
    const char *env = getenv("CTORCH_NCCL_LIB");
    const char *candidates[] = {env, "libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2",
                                "/usr/local/cuda/lib/libnccl.so.2"};
    snprintf(nccl.why, sizeof nccl.why, "libnccl.so.2 was not found");
    for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++) {
        if (candidates[i] == NULL || candidates[i][0] == '\0') {
            continue;
        }
        nccl.handle = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (nccl.handle != NULL) {
            break;
        }
        if (i == 0) {           /* a named library that fails is the answer */
            snprintf(nccl.why, sizeof nccl.why, "%s", dlerror());
            return;
        }
    }
    if (nccl.handle == NULL) {
        return;
    }
#define X(R, N, A)                                                                     \
    if ((*(void **)&nccl.N = dlsym(nccl.handle, #N)) == NULL) {                         \
        snprintf(nccl.why, sizeof nccl.why, "the NCCL library lacks %s", #N);           \
        dlclose(nccl.handle);                                                          \
        nccl.handle = NULL;                                                            \
        return;                                                                        \
    }
    NCCL_FUNCS(X)
#undef X
    if (nccl.ncclGetVersion(&nccl.version) != NCCL_OK) {
        nccl.version = 0;
    }
    nccl.why[0] = '\0';
}

bool
ct_nccl_available(void)
{
    if (!ct_cuda_is_built()) {
        return false;
    }
    pthread_once(&nccl_once, load_nccl);
    return nccl.handle != NULL;
}

/* --- the group ------------------------------------------------------------------- */

#define NCCL_MAX_DEVICES 64

typedef struct {
    nccl_comm comm;     /* NULL: not made yet */
    void *stream;       /* the internal stream */
    void *ready;        /* recorded on the caller's stream before each operation */
} nccl_dev;

typedef struct {
    ct_store *store;                    /* owned */
    pthread_mutex_t lock;               /* one operation is queued at a time */
    nccl_dev devs[NCCL_MAX_DEVICES];
    int ncomms;                         /* communicators made: the store keys */
    int last_device;                    /* the last device used (barrier's) */
    bool blocking_wait;
} nccl_group;

/* A work's device part (be_op). */
typedef struct {
    void *end;
    int device;
    nccl_comm comm;
} nccl_op;

static const char *
nccl_text(int rc)
{
    const char *s = nccl.ncclGetErrorString != NULL ? nccl.ncclGetErrorString(rc) : NULL;
    return s != NULL ? s : "unknown NCCL error";
}

static int
nccl_fail(const ct_work *w, int rc)
{
    return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::%s: NCCL error %d: %s (NCCL version %d)",
                    pg_op_names[w->kind], rc, nccl_text(rc), nccl.version);
}

static int
nccl_dtype(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_INT8: return 0;
    case CT_DTYPE_UINT8: case CT_DTYPE_BOOL: return 1;
    case CT_DTYPE_INT32: return 2;
    case CT_DTYPE_INT64: return 4;
    case CT_DTYPE_FLOAT16: return 6;
    case CT_DTYPE_FLOAT32: return 7;
    case CT_DTYPE_FLOAT64: return 8;
    case CT_DTYPE_BFLOAT16: return 9;
    default: return -1;
    }
}

/* NCCL's op for rop on dtype d (pg_reduce_check_for has refused the rest):
 * on bool, SUM is MAX and PRODUCT is MIN, as PyTorch maps them. */
static int
nccl_op_of(ct_redop rop, ct_dtype d)
{
    bool b = d == CT_DTYPE_BOOL;
    switch (rop) {
    case CT_REDOP_SUM: return b ? NCCL_MAX : NCCL_SUM;
    case CT_REDOP_PRODUCT: return b ? NCCL_MIN : NCCL_PROD;
    case CT_REDOP_MIN: return NCCL_MIN;
    case CT_REDOP_MAX: return NCCL_MAX;
    default: return NCCL_AVG;
    }
}

/* The group's communicator and stream on device (made on first use; every
 * rank of the group gets here in the same order). */
static int
dev_for(ct_pg *pg, nccl_group *g, int device, nccl_dev **out)
{
    if (device < 0 || device >= NCCL_MAX_DEVICES) {
        return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: device %d is out of range", device);
    }
    nccl_dev *d = &g->devs[device];
    *out = d;
    if (d->comm != NULL) {
        return 0;
    }
    char key[64];
    snprintf(key, sizeof key, "NCCL_UID_%d", g->ncomms);
    nccl_uid uid;
    memset(&uid, 0, sizeof uid);
    if (pg->rank == 0) {
        int rc = nccl.ncclGetUniqueId(&uid);
        if (rc != NCCL_OK) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: ncclGetUniqueId: %s",
                            nccl_text(rc));
        }
        if (ct_store_set(g->store, key, (const uint8_t *)&uid, sizeof uid) < 0) {
            return -1;
        }
    }
    else {
        uint8_t *val;
        size_t n;
        if (ct_store_get(g->store, key, &val, &n) < 0) {
            return -1;
        }
        if (n != sizeof uid) {
            free(val);
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: a malformed unique id "
                            "under %s (%zu bytes)", key, n);
        }
        memcpy(&uid, val, sizeof uid);
        free(val);
    }
    g->ncomms++;
    int prev;
    if (ct_cuda_current_device(&prev) < 0 || ct_cuda_set_device(device) < 0) {
        return -1;
    }
    nccl_comm comm = NULL;
    int rc = nccl.ncclCommInitRank(&comm, pg->size, uid, pg->rank);
    ct_cuda_set_device(prev);
    if (rc != NCCL_OK) {
        return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: ncclCommInitRank on cuda:%d "
                        "(rank %d of %d): %s", device, pg->rank, pg->size, nccl_text(rc));
    }
    if (ct_cuda_stream_new(device, 0, &d->stream) < 0 ||
        ct_cuda_event_new(device, false, false, &d->ready) < 0) {
        nccl.ncclCommAbort(comm);
        return -1;
    }
    d->comm = comm;
    return 0;
}

/* --- the operations --------------------------------------------------------------- */

static int
contiguous_only(ct_tensor *const *t, int n)
{
    for (int i = 0; i < n; i++) {
        if (!ct_tensor_is_contiguous(t[i])) {
            return ct_error(CT_ERR_RUNTIME, "Tensors must be contiguous");
        }
    }
    return 0;
}

/* The device of every tensor of w (the barrier's: the last one used, or
 * rank % device count as PyTorch guesses). */
static int
work_device(const ct_pg *pg, nccl_group *g, const ct_work *w, int *device)
{
    int dev = -1;
    for (int k = 0; k < 2; k++) {
        ct_tensor *const *t = k == 0 ? w->in : w->out;
        int n = k == 0 ? w->nin : w->nout;
        for (int i = 0; i < n; i++) {
            int d = ct_tensor_device(t[i]).index;
            if (dev >= 0 && d != dev) {
                return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::%s: the tensors are on "
                                "cuda:%d and cuda:%d; one device per process is supported",
                                pg_op_names[w->kind], dev, d);
            }
            dev = d;
        }
    }
    if (dev < 0) {
        int count = ct_cuda_device_count();
        if (count <= 0) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::%s: no CUDA device",
                            pg_op_names[w->kind]);
        }
        dev = g->last_device >= 0 ? g->last_device : pg->rank % count;
    }
    *device = dev;
    return 0;
}

static size_t
count_of(const ct_tensor *t)
{
    return (size_t)t->numel;
}

/* ptr + k elements of t's dtype */
static char *
at(const ct_tensor *t, int64_t k)
{
    return (char *)ct_tensor_data(t) + k * (int64_t)ct_dtype_itemsize(t->dtype);
}

/* A contiguous buffer of n tensors like t[0], on the current (internal)
 * stream. */
static ct_tensor *
flat_like(ct_tensor *const *t, int n)
{
    int64_t sizes[CT_MAX_DIMS + 1];
    sizes[0] = n;
    memcpy(sizes + 1, t[0]->sizes, sizeof(int64_t) * (size_t)t[0]->ndim);
    return ct_empty(t[0]->ndim + 1, sizes, t[0]->dtype, ct_tensor_device(t[0]));
}

/* Row r of a flat buffer, shaped like one of its tensors. */
static ct_tensor *
row(ct_tensor *flat, int64_t r)
{
    return ct_select(flat, 0, r);
}

static int
copy_rows(ct_tensor *flat, ct_tensor *const *t, int n, bool into_flat)
{
    for (int r = 0; r < n; r++) {
        ct_tensor *v = row(flat, r);
        int rc = v == NULL ? -1 : into_flat ? ct_copy_(v, t[r]) : ct_copy_(t[r], v);
        ct_tensor_decref(v);
        if (rc < 0) {
            return -1;
        }
    }
    return 0;
}

#define CALL(expr)                                                                    \
    do {                                                                              \
        int rc_ = (expr);                                                             \
        if (rc_ != NCCL_OK && rc_ != NCCL_IN_PROGRESS) {                              \
            return nccl_fail(w, rc_);                                                 \
        }                                                                             \
    } while (0)

/* Issue w's NCCL calls on stream s of comm c (the current stream is s). */
static int
issue(ct_pg *pg, ct_work *w, nccl_comm c, void *s, ct_tensor **tmp)
{
    ct_tensor *x = w->nin > 0 ? w->in[0] : w->nout > 0 ? w->out[0] : NULL;
    int dt = x != NULL ? nccl_dtype(x->dtype) : 7;
    if (dt < 0) {
        return ct_error(CT_ERR_RUNTIME, "Unsupported data type for NCCL process group");
    }
    int op = nccl_op_of(w->rop, x != NULL ? x->dtype : CT_DTYPE_FLOAT32);
    int size = pg->size;
    switch (w->kind) {
    case PG_OP_BROADCAST:
    case PG_OP_ALLREDUCE:
    case PG_OP_REDUCE:
        if (w->nin != 1) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::%s: one tensor per process "
                            "is supported, got %d", pg_op_names[w->kind], w->nin);
        }
        if (contiguous_only(w->in, 1) < 0) {
            return -1;
        }
        if (w->kind == PG_OP_BROADCAST) {
            CALL(nccl.ncclBroadcast(at(x, 0), at(x, 0), count_of(x), dt, w->root, c, s));
        }
        else if (w->kind == PG_OP_ALLREDUCE) {
            CALL(nccl.ncclAllReduce(at(x, 0), at(x, 0), count_of(x), dt, op, c, s));
        }
        else {
            CALL(nccl.ncclReduce(at(x, 0), at(x, 0), count_of(x), dt, op, w->root, c, s));
        }
        return 0;
    case PG_OP_ALLGATHER:
        if (w->nin != 1) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::allgather: one tensor per "
                            "process is supported, got %d", w->nin);
        }
        if (contiguous_only(w->in, 1) < 0 || (*tmp = flat_like(w->out, size)) == NULL) {
            return -1;
        }
        CALL(nccl.ncclAllGather(at(x, 0), at(*tmp, 0), count_of(x), dt, c, s));
        return copy_rows(*tmp, w->out, size, false);
    case PG_OP_ALLGATHER_BASE:
        if (contiguous_only(w->in, 1) < 0 || contiguous_only(w->out, 1) < 0) {
            return -1;
        }
        CALL(nccl.ncclAllGather(at(x, 0), at(w->out[0], 0), count_of(x), dt, c, s));
        return 0;
    case PG_OP_REDUCE_SCATTER:
        if (contiguous_only(w->out, 1) < 0 || (*tmp = flat_like(w->in, size)) == NULL ||
            copy_rows(*tmp, w->in, size, true) < 0) {
            return -1;
        }
        CALL(nccl.ncclReduceScatter(at(*tmp, 0), at(w->out[0], 0), count_of(w->out[0]), dt,
                                    op, c, s));
        return 0;
    case PG_OP_REDUCE_SCATTER_BASE:
        if (contiguous_only(w->in, 1) < 0 || contiguous_only(w->out, 1) < 0) {
            return -1;
        }
        CALL(nccl.ncclReduceScatter(at(x, 0), at(w->out[0], 0), count_of(w->out[0]), dt, op,
                                    c, s));
        return 0;
    case PG_OP_GATHER:
    case PG_OP_SCATTER: {
        /* the root sends or receives one tensor per peer; its own is a copy */
        bool gather = w->kind == PG_OP_GATHER;
        ct_tensor *mine = gather ? w->in[0] : w->out[0];
        ct_tensor *const *list = gather ? w->out : w->in;
        int nlist = gather ? w->nout : w->nin;
        if (contiguous_only(&mine, 1) < 0 || contiguous_only(list, nlist) < 0) {
            return -1;
        }
        CALL(nccl.ncclGroupStart());
        int rc = NCCL_OK;
        for (int r = 0; r < size && rc == NCCL_OK; r++) {
            if (pg->rank == w->root && r != w->root) {
                rc = gather ? nccl.ncclRecv(at(list[r], 0), count_of(list[r]), dt, r, c, s)
                            : nccl.ncclSend(at(list[r], 0), count_of(list[r]), dt, r, c, s);
            }
        }
        if (rc == NCCL_OK && pg->rank != w->root) {
            rc = gather ? nccl.ncclSend(at(mine, 0), count_of(mine), dt, w->root, c, s)
                        : nccl.ncclRecv(at(mine, 0), count_of(mine), dt, w->root, c, s);
        }
        int end = nccl.ncclGroupEnd();
        CALL(rc != NCCL_OK ? rc : end);
        if (pg->rank == w->root) {
            return gather ? ct_copy_(list[w->root], mine) : ct_copy_(mine, list[w->root]);
        }
        return 0;
    }
    case PG_OP_ALLTOALL:
    case PG_OP_ALLTOALL_BASE: {
        if (contiguous_only(w->in, w->nin) < 0 || contiguous_only(w->out, w->nout) < 0) {
            return -1;
        }
        int64_t in_off = 0, out_off = 0, in_row = 1, out_row = 1;
        for (int i = 1; w->kind == PG_OP_ALLTOALL_BASE && i < x->ndim; i++) {
            in_row *= x->sizes[i];
        }
        for (int i = 1; w->kind == PG_OP_ALLTOALL_BASE && i < w->out[0]->ndim; i++) {
            out_row *= w->out[0]->sizes[i];
        }
        CALL(nccl.ncclGroupStart());
        int rc = NCCL_OK;
        for (int r = 0; r < size && rc == NCCL_OK; r++) {
            if (w->kind == PG_OP_ALLTOALL) {
                rc = nccl.ncclSend(at(w->in[r], 0), count_of(w->in[r]), dt, r, c, s);
                if (rc == NCCL_OK) {
                    rc = nccl.ncclRecv(at(w->out[r], 0), count_of(w->out[r]), dt, r, c, s);
                }
                continue;
            }
            /* splits: rows received from each rank, then rows sent to each */
            int64_t nrecv = w->splits[r] * out_row, nsend = w->splits[size + r] * in_row;
            rc = nccl.ncclSend(at(x, in_off), (size_t)nsend, dt, r, c, s);
            if (rc == NCCL_OK) {
                rc = nccl.ncclRecv(at(w->out[0], out_off), (size_t)nrecv, dt, r, c, s);
            }
            in_off += nsend;
            out_off += nrecv;
        }
        int end = nccl.ncclGroupEnd();
        CALL(rc != NCCL_OK ? rc : end);
        return 0;
    }
    case PG_OP_BARRIER: {
        /* an all_reduce of one element, waited for on the host */
        int64_t one = 1;
        int dev;
        if (ct_cuda_current_device(&dev) < 0 ||
            (*tmp = ct_empty(1, &one, CT_DTYPE_FLOAT32, (ct_device){CT_DEVICE_CUDA, dev})) ==
                NULL ||
            ct_fill_(*tmp, ct_scalar_int(0)) < 0) {
            return -1;
        }
        CALL(nccl.ncclAllReduce(at(*tmp, 0), at(*tmp, 0), 1, 7, NCCL_SUM, c, s));
        return 0;
    }
    case PG_OP_SEND:
    case PG_OP_RECV:
        if (w->root < 0) {
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL does not support "
                            "recvAnysource");
        }
        if (contiguous_only(w->in, 1) < 0) {
            return -1;
        }
        if (w->kind == PG_OP_SEND) {
            CALL(nccl.ncclSend(at(x, 0), count_of(x), dt, w->root, c, s));
        }
        else {
            CALL(nccl.ncclRecv(at(x, 0), count_of(x), dt, w->root, c, s));
            w->source_rank = w->root;
        }
        return 0;
    default:
        return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: unknown operation %d",
                        (int)w->kind);
    }
}

#undef CALL

/* Record every tensor of w on stream s, for the caching allocator. */
static void
record_tensors(const ct_work *w, void *s)
{
    for (int k = 0; k < 2; k++) {
        ct_tensor *const *t = k == 0 ? w->in : w->out;
        int n = k == 0 ? w->nin : w->nout;
        for (int i = 0; i < n; i++) {
            if (t[i]->storage->data != NULL) {
                ct_cuda_record_stream(t[i]->storage->data, s);
            }
        }
    }
}

/* Queue w on the device (Note [NCCL works]); its be_op on success. */
static int
run(ct_pg *pg, nccl_group *g, ct_work *w)
{
    int device = -1, prev_device = -1;
    nccl_dev *d = NULL;
    void *caller = NULL;
    if (work_device(pg, g, w, &device) < 0 || dev_for(pg, g, device, &d) < 0 ||
        ct_cuda_current_stream(device, &caller) < 0 || ct_cuda_current_device(&prev_device) < 0) {
        return -1;
    }
    g->last_device = device;
    nccl_op *o = calloc(1, sizeof *o);
    if (o == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    o->device = device;
    o->comm = d->comm;
    if (ct_cuda_event_new(device, false, false, &o->end) < 0) {
        free(o);
        return -1;
    }
    ct_tensor *tmp = NULL;
    int rc = -1;
    if (ct_cuda_set_device(device) == 0 &&
        ct_cuda_event_record(device, d->ready, caller) == 0 &&
        ct_cuda_stream_wait_event(device, d->stream, d->ready) == 0 &&
        ct_cuda_set_current_stream(device, d->stream) == 0) {
        rc = issue(pg, w, d->comm, d->stream, &tmp);
        ct_cuda_set_current_stream(device, caller);
    }
    if (rc == 0) {
        record_tensors(w, d->stream);
        rc = ct_cuda_event_record(device, o->end, d->stream);
    }
    if (rc == 0 && w->kind == PG_OP_BARRIER) {
        rc = ct_cuda_stream_synchronize(device, d->stream);
    }
    ct_tensor_decref(tmp);      /* its block belongs to the internal stream */
    ct_cuda_set_device(prev_device);
    if (rc < 0) {
        ct_cuda_event_free(o->end);
        free(o);
        return -1;
    }
    w->be_op = o;
    return 0;
}

static int
nccl_submit(ct_pg *pg, ct_work *w)
{
    nccl_group *g = pg->be_data;
    pthread_mutex_lock(&g->lock);
    int rc = run(pg, g, w);
    pthread_mutex_unlock(&g->lock);
    if (rc < 0) {
        ct_work_decref(w);      /* the queue's reference */
        return -1;
    }
    pg_work_complete(pg, w, NULL);
    pg_run_callbacks(pg);
    return 0;
}

/* The communicator's asynchronous error, as the work's RuntimeError. */
static int
async_error(const ct_work *w, const nccl_op *o)
{
    int async = NCCL_OK;
    if (nccl.ncclCommGetAsyncError(o->comm, &async) == NCCL_OK && async != NCCL_OK &&
        async != NCCL_IN_PROGRESS) {
        return nccl_fail(w, async);
    }
    return 0;
}

static int
nccl_sync(ct_work *w, int64_t timeout_ms)
{
    nccl_op *o = w->be_op;
    nccl_group *g = w->pg->be_data;
    void *cur;
    if (o == NULL) {
        return 0;
    }
    if (ct_cuda_current_stream(o->device, &cur) < 0 ||
        ct_cuda_stream_wait_event(o->device, cur, o->end) < 0 || async_error(w, o) < 0) {
        return -1;
    }
    if (!g->blocking_wait) {
        return 0;
    }
    int64_t limit = timeout_ms >= 0 ? timeout_ms : w->pg->timeout_ms;
    int64_t start = pg_now_ns();
    for (;;) {
        bool done = false;
        if (ct_cuda_event_query(o->end, &done) < 0) {
            return -1;
        }
        if (done) {
            return 0;
        }
        if (async_error(w, o) < 0) {
            return -1;
        }
        if (limit > 0 && pg_now_ns() - start > limit * 1000000) {
            nccl.ncclCommAbort(o->comm);
            for (int i = 0; i < NCCL_MAX_DEVICES; i++) {
                if (g->devs[i].comm == o->comm) {
                    g->devs[i].comm = NULL;
                }
            }
            return ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL::%s: the operation timed "
                            "out after %lld ms; the communicator was aborted",
                            pg_op_names[w->kind], (long long)limit);
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

static bool
nccl_query(const ct_work *w)
{
    const nccl_op *o = w->be_op;
    bool done = true;
    if (o != NULL && ct_cuda_event_query(o->end, &done) < 0) {
        ct_error_clear();
        return true;    /* a device error: the wait reports it */
    }
    return done;
}

static void
nccl_release(ct_work *w)
{
    nccl_op *o = w->be_op;
    if (o != NULL) {
        ct_cuda_event_free(o->end);
        free(o);
        w->be_op = NULL;
    }
}

static void
nccl_shutdown(ct_pg *pg)
{
    nccl_group *g = pg->be_data;
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < NCCL_MAX_DEVICES; i++) {
        nccl_dev *d = &g->devs[i];
        if (d->comm != NULL) {
            nccl.ncclCommDestroy(d->comm);
            d->comm = NULL;
        }
    }
    pthread_mutex_unlock(&g->lock);
}

static void
nccl_free(ct_pg *pg)
{
    nccl_group *g = pg->be_data;
    nccl_shutdown(pg);
    for (int i = 0; i < NCCL_MAX_DEVICES; i++) {
        if (g->devs[i].stream != NULL) {
            ct_cuda_stream_free(g->devs[i].stream);
        }
        if (g->devs[i].ready != NULL) {
            ct_cuda_event_free(g->devs[i].ready);
        }
    }
    ct_store_decref(g->store);
    pthread_mutex_destroy(&g->lock);
    free(g);
    pg->be_data = NULL;
}

static void
nccl_wait(ct_work *w, int64_t timeout_ms)
{
    (void)w, (void)timeout_ms;  /* works complete on submission */
}

static const pg_backend nccl_backend = {
    .name = "ProcessGroupNCCL",
    .kind = "NCCL",
    .device_tensors = true,
    .submit = nccl_submit,
    .wait = nccl_wait,
    .sync = nccl_sync,
    .query = nccl_query,
    .release = nccl_release,
    .shutdown = nccl_shutdown,
    .free = nccl_free,
};

static bool
env_on(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

ct_pg *
ct_pg_nccl_new(ct_store *store, int rank, int size, int64_t timeout_ms)
{
    if (!ct_nccl_available()) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: NCCL cannot be loaded: %s",
                 ct_cuda_is_built() ? nccl.why : "this build has no CUDA part");
        return NULL;
    }
    if (size < 1 || rank < 0 || rank >= size) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupNCCL: invalid rank %d of %d", rank, size);
        return NULL;
    }
    nccl_group *g = calloc(1, sizeof *g);
    ct_pg *pg = g != NULL ? pg_new_bare(rank, size, timeout_ms) : NULL;
    if (pg == NULL) {
        free(g);
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&g->lock, NULL);
    g->store = store;
    ct_store_incref(store);
    g->last_device = -1;
    g->blocking_wait = env_on("TORCH_NCCL_BLOCKING_WAIT") || env_on("NCCL_BLOCKING_WAIT");
    pg->be = &nccl_backend;
    pg->be_data = g;
    return pg;
}
