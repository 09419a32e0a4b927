/* tests/fake_cuda/part.c -- a pretend CUDA part for tests on machines
 * without a GPU: build/tests/libctorch_cuda_fake.so, loaded in place of
 * libctorch_cuda.so when CTORCH_CUDA_PART names it (c10/cuda_loader.c).
 *
 * Its devices' memory is host memory, handed out through the same caching
 * allocator as the real part's (c10/device_cache.c), and its kernels run
 * ctorch's CPU kernels on CPU tensors laid over that memory.  That memory
 * is mapped PROT_NONE except while one of its kernels or copies runs, so
 * host code that reads a device tensor's data behind the device's back
 * faults here as it would on a GPU.  So everything
 * libctorch does around a device -- storages, copies in each direction,
 * dispatch, dtype and device checks, streams, memory counters -- runs as
 * it would over CUDA; only the .cu kernels and the CUDA runtime calls of
 * c10/cuda/runtime.c are not exercised.  Every kernel call is counted
 * (fake_cuda_kernel_count) so tests can tell a device kernel from a host
 * fallback.
 *
 * CTORCH_FAKE_CUDA_DEVICES sets the device count (default 2) and
 * CTORCH_FAKE_CUDA_MIB each device's capacity (default 256).
 */
#include "c10/cuda/backend.h"
#include "aten/cuda/random_math.h"

#include <ctorch/ctorch.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define MAX_DEVICES 8

typedef struct {
    int device;
    bool recorded;
    double when_ms;
} fake_event;

static int ndevices;
static size_t capacity;
static atomic_size_t used[MAX_DEVICES];
static ct_device_cache *cache;
static _Thread_local int current;
enum {
    K_COPY,
    K_FILL,
    K_WHERE,
    K_BINARY,
    K_UNARY,
    K_REDUCE,
    K_GEMM,
    K_GATHER,
    K_SCATTER_ADD,
    K_SCATTER,
    K_RANDOM,
    K_ACTIVATION,
    K_COUNT
};
static const char *const kernel_names[K_COUNT] = {
    "copy", "fill", "where", "binary", "unary", "reduce", "gemm", "gather", "scatter_add",
    "scatter", "random", "activation"};
static atomic_long kernels[K_COUNT];

/* Kernels queued per stream (NULL: the default stream), and waits of a
 * stream on an event, for tests of stream order. */
#define MAX_STREAMS 64
static struct {
    void *stream;
    long n;
} per_stream[MAX_STREAMS];
static int nstreams;
static long stream_waits;
static pthread_mutex_t per_stream_lock = PTHREAD_MUTEX_INITIALIZER;

static void
count_kernel(int k, void *stream)
{
    atomic_fetch_add(&kernels[k], 1);
    pthread_mutex_lock(&per_stream_lock);
    int i = 0;
    while (i < nstreams && per_stream[i].stream != stream) {
        i++;
    }
    if (i == nstreams && nstreams < MAX_STREAMS) {
        per_stream[nstreams++].stream = stream;
    }
    if (i < nstreams) {
        per_stream[i].n++;
    }
    pthread_mutex_unlock(&per_stream_lock);
}

static double
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* --- raw device memory for the cache: mappings against a capacity ------- */
typedef struct {
    char *p;
    size_t n;
    int device;
} segment;

static pthread_mutex_t seg_lock = PTHREAD_MUTEX_INITIALIZER;
static segment *segs;
static int nsegs, segs_cap;

/* Let the host at device memory for one kernel or copy (serialised). */
static void
device_open(void)
{
    pthread_mutex_lock(&seg_lock);
    for (int i = 0; i < nsegs; i++) {
        mprotect(segs[i].p, segs[i].n, PROT_READ | PROT_WRITE);
    }
}

static void
device_close(void)
{
    for (int i = 0; i < nsegs; i++) {
        mprotect(segs[i].p, segs[i].n, PROT_NONE);
    }
    pthread_mutex_unlock(&seg_lock);
}

static void *
raw_alloc(void *ctx, int device, size_t size)
{
    (void)ctx;
    if (atomic_fetch_add(&used[device], size) + size > capacity) {
        atomic_fetch_sub(&used[device], size);
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    pthread_mutex_lock(&seg_lock);
    if (p != MAP_FAILED && nsegs == segs_cap) {
        segment *g = realloc(segs, sizeof *g * (size_t)(segs_cap * 2 + 16));
        if (g == NULL) {
            munmap(p, size);
            p = MAP_FAILED;
        }
        else {
            segs = g;
            segs_cap = segs_cap * 2 + 16;
        }
    }
    if (p != MAP_FAILED) {
        segs[nsegs++] = (segment){p, size, device};
    }
    pthread_mutex_unlock(&seg_lock);
    if (p == MAP_FAILED) {
        atomic_fetch_sub(&used[device], size);
        return NULL;
    }
    return p;
}

static void
raw_free(void *ctx, int device, void *p)
{
    (void)ctx;
    pthread_mutex_lock(&seg_lock);
    for (int i = 0; i < nsegs; i++) {
        if (segs[i].p == p) {
            munmap(p, segs[i].n);
            atomic_fetch_sub(&used[device], segs[i].n);
            segs[i] = segs[--nsegs];
            break;
        }
    }
    pthread_mutex_unlock(&seg_lock);
}

/* work is done when queued, so a free never waits for a stream */
static void *
cache_event_record(void *ctx, int device, void *stream)
{
    (void)ctx;
    (void)device;
    (void)stream;
    return NULL;
}

static bool
cache_event_done(void *ctx, void *event)
{
    (void)ctx;
    (void)event;
    return true;
}

static void
cache_event_free(void *ctx, void *event)
{
    (void)ctx;
    (void)event;
}

static void
cache_mem_info(void *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    (void)ctx;
    *total_bytes = capacity;
    *free_bytes = capacity - atomic_load(&used[device]);
}

static const ct_device_cache_ops cache_ops = {
    "CUDA", NULL, raw_alloc, raw_free, cache_event_record, cache_event_done,
    cache_event_free, cache_mem_info,
};

/* --- devices ------------------------------------------------------------ */
static int
check_device(int device)
{
    if (device < 0 || device >= ndevices) {
        return ct_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    }
    return 0;
}

static int
device_count(int *n)
{
    *n = ndevices;
    return 0;
}

static int
current_device(int *device)
{
    *device = current;
    return 0;
}

static int
set_device(int device)
{
    if (check_device(device) < 0) {
        return -1;
    }
    current = device;
    return 0;
}

static int
synchronize(int device)
{
    return check_device(device);
}

static int
properties(int device, ct_cuda_properties *out)
{
    if (check_device(device) < 0) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "ctorch fake device %d", device);
    out->major = 9;
    out->minor = 0;
    out->total_memory = capacity;
    out->multi_processor_count = 4;
    out->max_threads_per_multi_processor = 2048;
    return 0;
}

static int
mem_info(int device, size_t *free_bytes, size_t *total_bytes)
{
    if (check_device(device) < 0) {
        return -1;
    }
    cache_mem_info(NULL, device, free_bytes, total_bytes);
    return 0;
}

/* --- memory --------------------------------------------------------------- */
static void *
fake_malloc(int device, void *stream, size_t size)
{
    return ct_device_cache_alloc(cache, device, stream, size);
}

static int
fake_free(void *p)
{
    return ct_device_cache_release(cache, p);
}

/* pinned host memory: plain host memory, counted for tests */
static atomic_long pinned_blocks;

static void *
fake_host_alloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        ct_error(CT_ERR_NOMEM, "CUDA error: out of memory");
        return NULL;
    }
    atomic_fetch_add(&pinned_blocks, 1);
    return p;
}

static int
fake_host_free(void *p)
{
    atomic_fetch_sub(&pinned_blocks, 1);
    free(p);
    return 0;
}

/* For tests: pinned blocks allocated and not freed. */
long fake_cuda_pinned_blocks(void);
long
fake_cuda_pinned_blocks(void)
{
    return atomic_load(&pinned_blocks);
}

static int
record_stream(void *p, void *stream)
{
    return ct_device_cache_record_stream(cache, p, stream);
}

static int
empty_cache(void)
{
    ct_device_cache_empty(cache);
    return 0;
}

static int
stats(int device, ct_device_cache_stats *out)
{
    if (check_device(device) < 0) {
        return -1;
    }
    *out = ct_device_cache_stats_get(cache, device);
    return 0;
}

static int
reset_peak(int device)
{
    if (check_device(device) < 0) {
        return -1;
    }
    ct_device_cache_reset_peak(cache, device);
    return 0;
}

static int
fake_memcpy(void *dst, const void *src, size_t n, void *stream, bool blocking)
{
    (void)stream;
    (void)blocking;
    device_open();
    memmove(dst, src, n);
    device_close();
    return 0;
}

/* --- streams and events: work is done when queued ----------------------- */
static int
stream_new(int device, int priority, void **out)
{
    (void)priority;
    if (check_device(device) < 0) {
        return -1;
    }
    *out = malloc(1);
    return *out != NULL ? 0 : ct_error(CT_ERR_NOMEM, "out of memory");
}

static int
stream_free(void *stream)
{
    free(stream);
    return 0;
}

static int
stream_synchronize(int device, void *stream)
{
    (void)stream;
    return check_device(device);
}

static int
stream_query(int device, void *stream, bool *done)
{
    (void)stream;
    *done = true;
    return check_device(device);
}

static int
stream_wait_event(int device, void *stream, void *event)
{
    (void)stream;
    (void)event;
    pthread_mutex_lock(&per_stream_lock);
    stream_waits++;
    pthread_mutex_unlock(&per_stream_lock);
    return check_device(device);
}

static int
event_new(int device, bool timing, bool blocking, void **out)
{
    (void)timing;
    (void)blocking;
    if (check_device(device) < 0) {
        return -1;
    }
    fake_event *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    e->device = device;
    *out = e;
    return 0;
}

static int
event_free(void *event)
{
    free(event);
    return 0;
}

static int
event_record(int device, void *event, void *stream)
{
    (void)stream;
    if (check_device(device) < 0) {
        return -1;
    }
    fake_event *e = event;
    e->recorded = true;
    e->when_ms = now_ms();
    return 0;
}

static int
event_synchronize(void *event)
{
    (void)event;
    return 0;
}

static int
event_query(void *event, bool *done)
{
    (void)event;
    *done = true;
    return 0;
}

static int
event_elapsed_ms(void *start, void *end, float *ms)
{
    fake_event *a = start, *b = end;
    if (!a->recorded || !b->recorded) {
        return ct_error(CT_ERR_RUNTIME, "CUDA error: device not ready");
    }
    *ms = (float)(b->when_ms - a->when_ms);
    return 0;
}

/* --- kernels: ctorch's CPU kernels over the views' memory ------------------ */

/* A CPU tensor laid over a view's memory (borrowed: freeing it frees
 * nothing of the view's). */
static ct_tensor *
host_tensor(const ct_cuda_view *v)
{
    int64_t lo = 0, hi = 0;
    for (int i = 0; i < v->ndim; i++) {
        if (v->sizes[i] == 0) {
            lo = hi = 0;
            break;
        }
        int64_t span = (v->sizes[i] - 1) * v->strides[i];
        *(span < 0 ? &lo : &hi) += span;
    }
    size_t item = ct_dtype_itemsize(v->dtype);
    ct_storage *s = ct_storage_new_external(v->data + lo * (int64_t)item,
                                            (size_t)(hi - lo + 1) * item,
                                            ct_device_cpu(), NULL, NULL);
    if (s == NULL) {
        return NULL;
    }
    ct_tensor *t = ct_tensor_new(s, -lo, v->ndim, v->sizes, v->strides, v->dtype);
    ct_storage_decref(s);
    return t;
}

static int
kernel_copy(int device, void *stream, const ct_cuda_view *dst, const ct_cuda_view *src)
{
    count_kernel(K_COPY, stream);
    ct_tensor *d = check_device(device) < 0 ? NULL : host_tensor(dst);
    ct_tensor *s = d != NULL ? host_tensor(src) : NULL;
    int rc = -1;
    if (s != NULL) {
        device_open();
        rc = ct_copy_(d, s);
        device_close();
    }
    ct_tensor_decref(s);
    ct_tensor_decref(d);
    return rc;
}

static int
kernel_fill(int device, void *stream, const ct_cuda_view *dst, double fval, int64_t ival)
{
    count_kernel(K_FILL, stream);
    ct_tensor *d = check_device(device) < 0 ? NULL : host_tensor(dst);
    ct_scalar v = ct_dtype_is_floating(dst->dtype) ? ct_scalar_float(fval)
                  : dst->dtype == CT_DTYPE_BOOL    ? ct_scalar_bool(ival != 0)
                                                   : ct_scalar_int(ival);
    int rc = -1;
    if (d != NULL) {
        device_open();
        rc = ct_fill_(d, v);
        device_close();
    }
    ct_tensor_decref(d);
    return rc;
}

static int
kernel_where(int device, void *stream, const ct_cuda_view *out, const ct_cuda_view *cond,
             const ct_cuda_view *a, const ct_cuda_view *b)
{
    count_kernel(K_WHERE, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *c = o != NULL ? host_tensor(cond) : NULL;
    ct_tensor *x = c != NULL ? host_tensor(a) : NULL;
    ct_tensor *y = x != NULL ? host_tensor(b) : NULL;
    if (y != NULL) {
        device_open();
        ct_tensor *r = ct_where(c, x, y);
        rc = r != NULL ? ct_copy_(o, r) : -1;
        device_close();
        ct_tensor_decref(r);
    }
    ct_tensor_decref(y);
    ct_tensor_decref(x);
    ct_tensor_decref(c);
    ct_tensor_decref(o);
    return rc;
}

static int
kernel_binary(int device, void *stream, ct_binary_op op, const ct_cuda_view *out,
              const ct_cuda_view *a, const ct_cuda_view *b, double falpha, int64_t ialpha)
{
    count_kernel(K_BINARY, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *x = o != NULL ? host_tensor(a) : NULL;
    ct_tensor *y = x != NULL ? host_tensor(b) : NULL;
    if (y != NULL) {
        ct_scalar alpha = ct_dtype_is_floating(a->dtype) ? ct_scalar_float(falpha)
                          : a->dtype == CT_DTYPE_BOOL    ? ct_scalar_bool(ialpha != 0)
                                                         : ct_scalar_int(ialpha);
        device_open();
        ct_tensor *r = ct_binary(op, x, y, alpha, o, CT_OUT_GIVEN);
        device_close();
        rc = r != NULL ? 0 : -1;
        ct_tensor_decref(r);
    }
    ct_tensor_decref(y);
    ct_tensor_decref(x);
    ct_tensor_decref(o);
    return rc;
}

static int
kernel_unary(int device, void *stream, ct_unary_op op, const ct_cuda_view *out,
             const ct_cuda_view *in)
{
    count_kernel(K_UNARY, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *x = o != NULL ? host_tensor(in) : NULL;
    if (x != NULL) {
        device_open();
        ct_tensor *r = ct_unary(op, x, o, CT_OUT_GIVEN);
        device_close();
        rc = r != NULL ? 0 : -1;
        ct_tensor_decref(r);
    }
    ct_tensor_decref(x);
    ct_tensor_decref(o);
    return rc;
}

/* in's trailing dims (after out's) reduced with the CPU's ops */
static ct_tensor *
host_reduce(ct_cuda_reduce_op op, const ct_tensor *x, int nred, const int64_t *dims,
            ct_dtype odt)
{
    if (op == CT_CUDA_REDUCE_SUM) {
        return ct_sum(x, nred, dims, false, odt);
    }
    if (op == CT_CUDA_REDUCE_AMAX || op == CT_CUDA_REDUCE_AMIN) {
        return (op == CT_CUDA_REDUCE_AMAX ? ct_amax : ct_amin)(x, nred, dims, false);
    }
    if (op == CT_CUDA_REDUCE_ANY || op == CT_CUDA_REDUCE_ALL) {
        return (op == CT_CUDA_REDUCE_ANY ? ct_any : ct_all)(x, nred, dims, false);
    }
    /* the others over the trailing dims flattened into one */
    int64_t shape[CT_MAX_DIMS];
    int keep = x->ndim - nred;
    memcpy(shape, x->sizes, sizeof(int64_t) * (size_t)keep);
    shape[keep] = 1;
    for (int k = keep; k < x->ndim; k++) {
        shape[keep] *= x->sizes[k];
    }
    ct_tensor *flat = ct_reshape(x, keep + 1, shape), *r = NULL;
    int64_t d = keep;
    if (flat != NULL) {
        r = op == CT_CUDA_REDUCE_PROD     ? ct_prod(flat, &d, false, odt)
            : op == CT_CUDA_REDUCE_ARGMAX ? ct_argmax(flat, &d, false)
                                          : ct_argmin(flat, &d, false);
    }
    ct_tensor_decref(flat);
    return r;
}

static int
kernel_reduce(int device, void *stream, ct_cuda_reduce_op op, const ct_cuda_view *out,
              const ct_cuda_view *in)
{
    count_kernel(K_REDUCE, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *x = o != NULL ? host_tensor(in) : NULL;
    if (x != NULL) {
        int64_t dims[CT_MAX_DIMS];
        int nred = in->ndim - out->ndim;
        for (int k = 0; k < nred; k++) {
            dims[k] = out->ndim + k;
        }
        device_open();
        /* no reduced dims (all of size 1): each output is its one input, as
         * the part's kernel gives (ct_sum over no dims would sum them all) */
        ct_tensor *r = nred > 0 ? host_reduce(op, x, nred, dims, out->dtype) : NULL;
        if (nred == 0) {
            bool arg = op == CT_CUDA_REDUCE_ARGMAX || op == CT_CUDA_REDUCE_ARGMIN;
            rc = arg ? ct_fill_(o, ct_scalar_int(0)) : ct_copy_(o, x);
        }
        else {
            rc = r != NULL ? ct_copy_(o, r) : -1;
        }
        device_close();
        ct_tensor_decref(r);
    }
    ct_tensor_decref(x);
    ct_tensor_decref(o);
    return rc;
}

/* one column-major matrix of a batch as a row-major CPU tensor (its
 * transpose), rows x cols in column-major terms */
static ct_tensor *
col_major(const void *p, ct_dtype dtype, int64_t rows, int64_t cols, int64_t ld)
{
    ct_cuda_view v = {(char *)p, dtype, 2, {rows, cols}, {1, ld}};
    return host_tensor(&v);
}

static int
kernel_gemm(int device, void *stream, ct_dtype dtype, bool trans_a, bool trans_b, int64_t m,
            int64_t n, int64_t k, double alpha, const void *a, int64_t lda, int64_t stride_a,
            const void *b, int64_t ldb, int64_t stride_b, double beta, void *c, int64_t ldc,
            int64_t stride_c, int64_t batch)
{
    count_kernel(K_GEMM, stream);
    if (check_device(device) < 0) {
        return -1;
    }
    size_t item = ct_dtype_itemsize(dtype);
    int rc = 0;
    for (int64_t i = 0; i < batch && rc == 0 && m > 0 && n > 0; i++) {
        ct_tensor *A = col_major((const char *)a + i * stride_a * (int64_t)item, dtype,
                                 trans_a ? k : m, trans_a ? m : k, lda);
        ct_tensor *B = col_major((const char *)b + i * stride_b * (int64_t)item, dtype,
                                 trans_b ? n : k, trans_b ? k : n, ldb);
        ct_tensor *C = col_major((char *)c + i * stride_c * (int64_t)item, dtype, m, n, ldc);
        ct_tensor *At = A && trans_a ? ct_transpose(A, 0, 1) : NULL;
        ct_tensor *Bt = B && trans_b ? ct_transpose(B, 0, 1) : NULL;
        device_open();
        ct_tensor *P = C != NULL ? ct_mm(At ? At : A, Bt ? Bt : B, NULL) : NULL;
        ct_tensor *R = NULL;
        ct_tensor *al = ct_scalar_tensor(ct_scalar_float(alpha));
        ct_tensor *be = ct_scalar_tensor(ct_scalar_float(beta));
        ct_tensor *ap = P && al ? ct_mul(P, al) : NULL;
        if (ap != NULL && beta != 0) {
            ct_tensor *bc = be ? ct_mul(C, be) : NULL;
            R = bc != NULL ? ct_add(bc, ap, ct_scalar_int(1)) : NULL;
            ct_tensor_decref(bc);
        }
        else if (ap != NULL) {
            ct_tensor_incref(R = ap);
        }
        ct_tensor_decref(ap);
        ct_tensor_decref(al);
        ct_tensor_decref(be);
        rc = R != NULL ? ct_copy_(C, R) : -1;
        device_close();
        ct_tensor_decref(R);
        ct_tensor_decref(P);
        ct_tensor_decref(At);
        ct_tensor_decref(Bt);
        ct_tensor_decref(A);
        ct_tensor_decref(B);
        ct_tensor_decref(C);
    }
    return rc;
}

/* gather, scatter_add and scatter with the CPU's ct_gather / ct_scatter_.
 * Those check the indices again; an index the host let through fails
 * as a GPU's device-side assert would, not with the CPU's message, so a
 * missing host check shows in the tests. */
static int
index_kernel_failed(void)
{
    ct_error_clear();
    return ct_error(CT_ERR_RUNTIME, "CUDA error: device-side assert triggered");
}

static int
kernel_gather(int device, void *stream, const ct_cuda_view *out, const ct_cuda_view *in,
              const ct_cuda_view *index, int dim)
{
    count_kernel(K_GATHER, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *x = o != NULL ? host_tensor(in) : NULL;
    ct_tensor *i = x != NULL ? host_tensor(index) : NULL;
    if (i != NULL) {
        device_open();
        ct_tensor *r = ct_gather(x, dim, i);
        rc = r != NULL ? ct_copy_(o, r) : index_kernel_failed();
        device_close();
        ct_tensor_decref(r);
    }
    ct_tensor_decref(i);
    ct_tensor_decref(x);
    ct_tensor_decref(o);
    return rc;
}

/* reduce: "add" (scatter_add) or NULL (scatter: the CPU's last write wins) */
static int
scatter_kernel(int device, const ct_cuda_view *self, const ct_cuda_view *index,
               const ct_cuda_view *src, int dim, const char *reduce)
{
    int rc = -1;
    ct_tensor *t = check_device(device) < 0 ? NULL : host_tensor(self);
    ct_tensor *i = t != NULL ? host_tensor(index) : NULL;
    ct_tensor *s = i != NULL ? host_tensor(src) : NULL;
    if (s != NULL) {
        device_open();
        rc = ct_scatter_(t, dim, i, s, ct_scalar_int(0), reduce) == 0 ? 0
                                                                    : index_kernel_failed();
        device_close();
    }
    ct_tensor_decref(s);
    ct_tensor_decref(i);
    ct_tensor_decref(t);
    return rc;
}

static int
kernel_scatter_add(int device, void *stream, const ct_cuda_view *self,
                   const ct_cuda_view *index, const ct_cuda_view *src, int dim)
{
    count_kernel(K_SCATTER_ADD, stream);
    return scatter_kernel(device, self, index, src, dim, "add");
}

static int
kernel_scatter(int device, void *stream, const ct_cuda_view *self, const ct_cuda_view *index,
               const ct_cuda_view *src, int dim)
{
    count_kernel(K_SCATTER, stream);
    return scatter_kernel(device, self, index, src, dim, NULL);
}

/* For tests (through ctypes): how many times a kernel ran. */
long fake_cuda_kernel_count(const char *name);
long
fake_cuda_kernel_count(const char *name)
{
    for (int i = 0; i < K_COUNT; i++) {
        if (strcmp(name, kernel_names[i]) == 0) {
            return atomic_load(&kernels[i]);
        }
    }
    return -1;
}

/* For tests: how many kernels were queued on `stream` (its cuda_stream
 * handle; 0 for the default stream), and how many stream waits there were. */
long fake_cuda_stream_kernels(void *stream);
long
fake_cuda_stream_kernels(void *stream)
{
    long n = 0;
    pthread_mutex_lock(&per_stream_lock);
    for (int i = 0; i < nstreams; i++) {
        if (per_stream[i].stream == stream) {
            n = per_stream[i].n;
        }
    }
    pthread_mutex_unlock(&per_stream_lock);
    return n;
}

long fake_cuda_stream_waits(void);
long
fake_cuda_stream_waits(void)
{
    pthread_mutex_lock(&per_stream_lock);
    long n = stream_waits;
    pthread_mutex_unlock(&per_stream_lock);
    return n;
}

/* random_math.h's values, one Philox block per element, in the view's
 * row-major order (its dims come in memory order). */
static int
kernel_random(int device, void *stream, ct_cuda_random_op op, const ct_cuda_view *out,
              const ct_cuda_random_args *args)
{
    count_kernel(K_RANDOM, stream);
    if (check_device(device) < 0) {
        return -1;
    }
    int64_t n = 1, item = (int64_t)ct_dtype_itemsize(out->dtype);
    for (int d = 0; d < out->ndim; d++) {
        n *= out->sizes[d];
    }
    if (args->threads <= 0) {
        return ct_error(CT_ERR_RUNTIME, "fake CUDA: random without threads");
    }
    device_open();
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0, r = i;
        for (int d = out->ndim - 1; d >= 0; d--) {
            off += r % out->sizes[d] * out->strides[d];
            r /= out->sizes[d];
        }
        ct_k_random_element(op, out->dtype, args, i, out->data + off * item);
    }
    device_close();
    return 0;
}

/* the CPU's activation loops (aten/cpu/activation.c), which expand the
 * kernel's expressions (aten/activation_math.h) */
static int
kernel_activation(int device, void *stream, int op, int order, const ct_cuda_view *out,
                  const ct_cuda_view *grad, const ct_cuda_view *x, const double *p)
{
    count_kernel(K_ACTIVATION, stream);
    int rc = -1;
    ct_tensor *o = check_device(device) < 0 ? NULL : host_tensor(out);
    ct_tensor *v = o != NULL ? host_tensor(x) : NULL;
    ct_tensor *g = v != NULL && order > 0 ? host_tensor(grad) : NULL;
    if (v != NULL && !ct_dtype_is_floating(x->dtype)) {
        rc = ct_error(CT_ERR_RUNTIME, "fake CUDA: activation of a non-floating dtype");
    }
    else if (v != NULL && (order == 0 || g != NULL)) {
        device_open();
        ct_tensor *r = order == 0   ? ct_activation(op, v, p, NULL, CT_OUT_NEW)
                       : order == 1 ? ct_activation_backward(op, g, v, p)
                                    : ct_activation_backward2(op, g, v, p);
        rc = r != NULL ? ct_copy_(o, r) : -1;
        device_close();
        ct_tensor_decref(r);
    }
    ct_tensor_decref(g);
    ct_tensor_decref(v);
    ct_tensor_decref(o);
    return rc;
}

static const ct_cuda_backend backend = {
    .abi = CT_CUDA_ABI,
    .device_count = device_count,
    .current_device = current_device,
    .set_device = set_device,
    .synchronize = synchronize,
    .properties = properties,
    .mem_info = mem_info,
    .malloc = fake_malloc,
    .free = fake_free,
    .host_alloc = fake_host_alloc,
    .host_free = fake_host_free,
    .record_stream = record_stream,
    .empty_cache = empty_cache,
    .stats = stats,
    .reset_peak = reset_peak,
    .memcpy = fake_memcpy,
    .stream_new = stream_new,
    .stream_free = stream_free,
    .stream_synchronize = stream_synchronize,
    .stream_query = stream_query,
    .stream_wait_event = stream_wait_event,
    .event_new = event_new,
    .event_free = event_free,
    .event_record = event_record,
    .event_synchronize = event_synchronize,
    .event_query = event_query,
    .event_elapsed_ms = event_elapsed_ms,
    .supports = ct_cuda_supports,
    .copy = kernel_copy,
    .fill = kernel_fill,
    .where = kernel_where,
    .binary = kernel_binary,
    .unary = kernel_unary,
    .reduce = kernel_reduce,
    .gemm = kernel_gemm,
    .gather = kernel_gather,
    .scatter_add = kernel_scatter_add,
    .scatter = kernel_scatter,
    .random = kernel_random,
    .activation = kernel_activation,
};

const ct_cuda_backend *
ct_cuda_backend_get(void)
{
    if (cache == NULL) {
        const char *n = getenv("CTORCH_FAKE_CUDA_DEVICES");
        const char *mib = getenv("CTORCH_FAKE_CUDA_MIB");
        ndevices = n != NULL ? atoi(n) : 2;
        ndevices = ndevices < 0 ? 0 : ndevices > MAX_DEVICES ? MAX_DEVICES : ndevices;
        capacity = (size_t)(mib != NULL ? atol(mib) : 256) << 20;
        cache = ct_device_cache_new(&cache_ops, ndevices > 0 ? ndevices : 1);
        if (cache == NULL) {
            return NULL;
        }
    }
    return &backend;
}
