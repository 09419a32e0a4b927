/* c10/cuda/runtime.c -- the CUDA part's devices, memory, streams and
 * events over the CUDA runtime, and the backend table's entries for the
 * kernels of aten/cuda/ (libctorch_cuda.so; loaded by c10/cuda_loader.c,
 * which include/ctorch/cuda.h describes).
 *
 * Device memory goes through one ct_device_cache over all devices
 * (c10/device_cache.c): its raw allocations are cudaMalloc on the block's
 * device, and a block used on another stream waits for an event recorded
 * there.  A call on a given device switches the thread's current device
 * for its duration and back, as PyTorch's device guards do.
 */
#include "c10/cuda/backend.h"
#include "c10/cuda/runtime_impl.h"
#include "aten/cuda/cuda_impl.h"

#include <ctorch/error.h>

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

int
ct__cuda_check(cudaError_t e)
{
    if (e == cudaSuccess) {
        return 0;
    }
    (void)cudaGetLastError(); /* a sticky error stays for the next call */
    return ct_error(CT_ERR_RUNTIME, "CUDA error: %s", cudaGetErrorString(e));
}

/* Make device current; *prev gets the one to restore. */
int
ct__cuda_guard(int device, int *prev)
{
    if (ct__cuda_check(cudaGetDevice(prev)) < 0) {
        return -1;
    }
    return *prev == device ? 0 : ct__cuda_check(cudaSetDevice(device));
}

void
ct__cuda_unguard(int device, int prev)
{
    if (prev != device) {
        (void)cudaSetDevice(prev);
    }
}

/* the short names this file's entries use for the three above */
static inline int
check(cudaError_t e)
{
    return ct__cuda_check(e);
}

static inline int
guard(int device, int *prev)
{
    return ct__cuda_guard(device, prev);
}

static inline void
unguard(int device, int prev)
{
    ct__cuda_unguard(device, prev);
}

/* --- devices --------------------------------------------------------------- */

static int
device_count(int *n)
{
    *n = 0;
    cudaError_t e = cudaGetDeviceCount(n);
    if (e == cudaErrorNoDevice) {
        (void)cudaGetLastError();
        *n = 0;
        return 0;
    }
    if (e == cudaErrorInsufficientDriver) {
        int v = 0;
        (void)cudaGetLastError();
        if (cudaDriverGetVersion(&v) != cudaSuccess || v <= 0) {
            return ct_error(CT_ERR_RUNTIME,
                            "Found no NVIDIA driver on your system. Please check that you "
                            "have an NVIDIA GPU and installed a driver from "
                            "http://www.nvidia.com/Download/index.aspx");
        }
        return ct_error(CT_ERR_RUNTIME,
                        "The NVIDIA driver on your system is too old (found version %d). "
                        "Please update your GPU driver by downloading and installing a new "
                        "version from the URL: http://www.nvidia.com/Download/index.aspx "
                        "Alternatively, go to: https://pytorch.org to install a PyTorch "
                        "version that has been compiled with your version of the CUDA "
                        "driver.",
                        v);
    }
    return check(e);
}

static int
valid(int device)
{
    int n = 0;
    if (device_count(&n) < 0) {
        return -1;
    }
    if (device < 0 || device >= n) {
        return ct_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    }
    return 0;
}

static int
current_device(int *device)
{
    return check(cudaGetDevice(device));
}

static int
set_device(int device)
{
    return valid(device) < 0 ? -1 : check(cudaSetDevice(device));
}

static int
synchronize(int device)
{
    int prev;
    if (valid(device) < 0 || guard(device, &prev) < 0) {
        return -1;
    }
    int rc = check(cudaDeviceSynchronize());
    unguard(device, prev);
    return rc;
}

static int
properties(int device, ct_cuda_properties *out)
{
    struct cudaDeviceProp p;
    if (valid(device) < 0 || check(cudaGetDeviceProperties(&p, device)) < 0) {
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->major = p.major;
    out->minor = p.minor;
    out->total_memory = p.totalGlobalMem;
    out->multi_processor_count = p.multiProcessorCount;
    out->max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
    return 0;
}

static int
mem_info(int device, size_t *free_bytes, size_t *total_bytes)
{
    int prev;
    if (valid(device) < 0 || guard(device, &prev) < 0) {
        return -1;
    }
    int rc = check(cudaMemGetInfo(free_bytes, total_bytes));
    unguard(device, prev);
    return rc;
}

/* --- memory: the caching allocator's device calls ----------------------------- */

static void *
raw_alloc(void *ctx, int device, size_t size)
{
    (void)ctx;
    int prev;
    void *p = NULL;
    if (guard(device, &prev) < 0) {
        ct_error_clear();
        return NULL;
    }
    if (cudaMalloc(&p, size) != cudaSuccess) {
        (void)cudaGetLastError(); /* out of memory: the cache frees and retries */
        p = NULL;
    }
    unguard(device, prev);
    return p;
}

static void
raw_free(void *ctx, int device, void *p)
{
    (void)ctx;
    int prev;
    if (guard(device, &prev) == 0) {
        (void)cudaFree(p);
        unguard(device, prev);
    }
    ct_error_clear();
}

/* An event recorded now on stream, on the stream's own device (a block of
 * one device may be used by another device's stream); NULL on failure. */
static void *
cache_event_record(void *ctx, int device, void *stream)
{
    (void)ctx;
    int prev, on = device;
    cudaEvent_t ev = NULL;
    if (stream != NULL && cudaStreamGetDevice((cudaStream_t)stream, &on) != cudaSuccess) {
        (void)cudaGetLastError();
        on = device;
    }
    if (guard(on, &prev) < 0) {
        ct_error_clear();
        return NULL;
    }
    if (cudaEventCreateWithFlags(&ev, cudaEventDisableTiming) != cudaSuccess ||
        cudaEventRecord(ev, (cudaStream_t)stream) != cudaSuccess) {
        (void)cudaGetLastError();
        if (ev != NULL) {
            (void)cudaEventDestroy(ev);
        }
        ev = NULL;
    }
    unguard(on, prev);
    return ev;
}

static bool
cache_event_done(void *ctx, void *event)
{
    (void)ctx;
    cudaError_t e = cudaEventQuery((cudaEvent_t)event);
    if (e != cudaSuccess && e != cudaErrorNotReady) {
        (void)cudaGetLastError(); /* a failed event never completes: treat as done */
    }
    return e != cudaErrorNotReady;
}

static void
cache_event_free(void *ctx, void *event)
{
    (void)ctx;
    (void)cudaEventDestroy((cudaEvent_t)event);
}

static void
cache_mem_info(void *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    (void)ctx;
    if (mem_info(device, free_bytes, total_bytes) < 0) {
        ct_error_clear();
        *free_bytes = *total_bytes = 0;
    }
}

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static ct_device_cache *cache;

static void
cache_make(void)
{
    int n = 0;
    if (device_count(&n) < 0) {
        ct_error_clear();
        return;
    }
    static const ct_device_cache_ops ops = {
        "CUDA", NULL, raw_alloc, raw_free, cache_event_record, cache_event_done,
        cache_event_free, cache_mem_info,
    };
    cache = ct_device_cache_new(&ops, n);
}

static ct_device_cache *
the_cache(void)
{
    int n;
    if (device_count(&n) < 0) {
        return NULL; /* CUDA cannot run: that error */
    }
    pthread_once(&cache_once, cache_make);
    if (cache == NULL) {
        ct_error(CT_ERR_NOMEM, "CUDA caching allocator: out of host memory");
    }
    return cache;
}

static void *
cuda_malloc(int device, void *stream, size_t size)
{
    ct_device_cache *c = the_cache();
    return c != NULL ? ct_device_cache_alloc(c, device, stream, size) : NULL;
}

static int
cuda_free(void *p)
{
    ct_device_cache *c = the_cache();
    return c != NULL ? ct_device_cache_release(c, p) : -1;
}

/* Page-locked host memory, as PyTorch's pinned allocator (without its
 * cache: every pin_memory() is a cudaHostAlloc). */
static void *
cuda_host_alloc(size_t size)
{
    void *p = NULL;
    if (check(cudaHostAlloc(&p, size > 0 ? size : 1, cudaHostAllocDefault)) < 0) {
        return NULL;
    }
    return p;
}

static int
cuda_host_free(void *p)
{
    return check(cudaFreeHost(p));
}

static int
record_stream(void *p, void *stream)
{
    ct_device_cache *c = the_cache();
    return c != NULL ? ct_device_cache_record_stream(c, p, stream) : -1;
}

static int
empty_cache(void)
{
    ct_device_cache *c = the_cache();
    if (c == NULL) {
        return -1;
    }
    ct_device_cache_empty(c);
    return 0;
}

static int
stats(int device, ct_device_cache_stats *out)
{
    ct_device_cache *c = the_cache();
    if (c == NULL || valid(device) < 0) {
        return -1;
    }
    *out = ct_device_cache_stats_get(c, device);
    return 0;
}

static int
reset_peak(int device)
{
    ct_device_cache *c = the_cache();
    if (c == NULL || valid(device) < 0) {
        return -1;
    }
    ct_device_cache_reset_peak(c, device);
    return 0;
}

static int
cuda_memcpy(void *dst, const void *src, size_t n, void *stream, bool blocking)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (check(cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s)) < 0) {
        return -1;
    }
    return blocking ? check(cudaStreamSynchronize(s)) : 0;
}

/* --- streams and events ----------------------------------------------------------- */

static int
stream_new(int device, int priority, void **out)
{
    int prev;
    cudaStream_t s = NULL;
    if (valid(device) < 0 || guard(device, &prev) < 0) {
        return -1;
    }
    int rc = check(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority));
    unguard(device, prev);
    *out = s;
    return rc;
}

static int
stream_free(void *stream)
{
    return stream == NULL ? 0 : check(cudaStreamDestroy((cudaStream_t)stream));
}

static int
stream_synchronize(int device, void *stream)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    unguard(device, prev);
    return check(e);
}

/* A query's answer: done, not yet (no error), or an error. */
static int
query_result(cudaError_t e, bool *done)
{
    *done = e == cudaSuccess;
    return e == cudaErrorNotReady ? ((void)cudaGetLastError(), 0) : check(e);
}

static int
stream_query(int device, void *stream, bool *done)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = cudaStreamQuery((cudaStream_t)stream);
    unguard(device, prev);
    return query_result(e, done);
}

static int
stream_wait_event(int device, void *stream, void *event)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0);
    unguard(device, prev);
    return check(e);
}

static int
event_new(int device, bool timing, bool blocking, void **out)
{
    unsigned flags = (timing ? cudaEventDefault : cudaEventDisableTiming) |
                     (blocking ? cudaEventBlockingSync : 0);
    cudaEvent_t ev = NULL;
    int prev;
    *out = NULL;
    if (valid(device) < 0 || guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = cudaEventCreateWithFlags(&ev, flags);
    unguard(device, prev);
    *out = ev;
    return check(e);
}

static int
event_free(void *event)
{
    return event == NULL ? 0 : check(cudaEventDestroy((cudaEvent_t)event));
}

static int
event_record(int device, void *event, void *stream)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
    unguard(device, prev);
    return check(e);
}

static int
event_synchronize(void *event)
{
    return check(cudaEventSynchronize((cudaEvent_t)event));
}

static int
event_query(void *event, bool *done)
{
    return query_result(cudaEventQuery((cudaEvent_t)event), done);
}

static int
event_elapsed_ms(void *start, void *end, float *ms)
{
    return check(cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end));
}

/* --- kernels (aten/cuda/), queued with the device current ------------------- */

static int
kernel_copy(int device, void *stream, const ct_cuda_view *dst, const ct_cuda_view *src)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_copy(stream, dst, src);
    unguard(device, prev);
    return check(e);
}

static int
kernel_fill(int device, void *stream, const ct_cuda_view *dst, double fval,
            int64_t ival)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_fill(stream, dst, fval, ival);
    unguard(device, prev);
    return check(e);
}

static int
kernel_where(int device, void *stream, const ct_cuda_view *out, const ct_cuda_view *cond,
             const ct_cuda_view *a, const ct_cuda_view *b)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_where(stream, out, cond, a, b);
    unguard(device, prev);
    return check(e);
}

static int
kernel_binary(int device, void *stream, ct_binary_op op, const ct_cuda_view *out,
              const ct_cuda_view *a, const ct_cuda_view *b, double falpha,
              int64_t ialpha)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_binary(stream, op, out, a, b, falpha, ialpha);
    unguard(device, prev);
    return check(e);
}

static int
kernel_unary(int device, void *stream, ct_unary_op op, const ct_cuda_view *out,
             const ct_cuda_view *in)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_unary(stream, op, out, in);
    unguard(device, prev);
    return check(e);
}

static int
kernel_reduce(int device, void *stream, ct_cuda_reduce_op op, const ct_cuda_view *out,
              const ct_cuda_view *in)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_reduce(stream, op, out, in);
    unguard(device, prev);
    return check(e);
}

static int
kernel_gather(int device, void *stream, const ct_cuda_view *out, const ct_cuda_view *in,
              const ct_cuda_view *index, int dim)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_gather(stream, out, in, index, dim);
    unguard(device, prev);
    return check(e);
}

static int
kernel_scatter_add(int device, void *stream, const ct_cuda_view *self,
                   const ct_cuda_view *index, const ct_cuda_view *src, int dim)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_scatter_add(stream, self, index, src, dim);
    unguard(device, prev);
    return check(e);
}

static int
kernel_scatter(int device, void *stream, const ct_cuda_view *self, const ct_cuda_view *index,
               const ct_cuda_view *src, int dim)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_scatter(stream, self, index, src, dim);
    unguard(device, prev);
    return check(e);
}

static int
kernel_random(int device, void *stream, ct_cuda_random_op op, const ct_cuda_view *out,
              const ct_cuda_random_args *args)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_random(stream, op, out, args);
    unguard(device, prev);
    return check(e);
}

static int
kernel_activation(int device, void *stream, int op, int order, const ct_cuda_view *out,
                  const ct_cuda_view *grad, const ct_cuda_view *x, const double *p)
{
    int prev;
    if (guard(device, &prev) < 0) {
        return -1;
    }
    cudaError_t e = ct__cuda_activation(stream, op, order, out, grad, x, p);
    unguard(device, prev);
    return check(e);
}

static const ct_cuda_backend backend = {
    .abi = CT_CUDA_ABI,
    .device_count = device_count,
    .current_device = current_device,
    .set_device = set_device,
    .synchronize = synchronize,
    .properties = properties,
    .mem_info = mem_info,
    .malloc = cuda_malloc,
    .free = cuda_free,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .record_stream = record_stream,
    .empty_cache = empty_cache,
    .stats = stats,
    .reset_peak = reset_peak,
    .memcpy = cuda_memcpy,
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
    .gemm = ct__cuda_gemm,
    .gather = kernel_gather,
    .scatter_add = kernel_scatter_add,
    .scatter = kernel_scatter,
    .random = kernel_random,
    .activation = kernel_activation,
};

const ct_cuda_backend *
ct_cuda_backend_get(void)
{
    return &backend;
}
