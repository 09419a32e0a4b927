/* c10/cuda_loader.c -- finds and loads the CUDA part of ctorch on first
 * use (include/ctorch/cuda.h).
 *
 * libctorch_cuda.so lies in the directory libctorch.so was loaded from.
 * It is opened only after libcuda.so.1 (the driver, which no toolkit
 * ships) opens, so a machine with the toolkit but no GPU never loads the
 * CUDA runtime at all and answers "no devices" at once.  The outcome is
 * decided once per process; a failure is remembered with its message and
 * repeated to every later call, as PyTorch repeats its lazy-init error.
 *
 * CTORCH_CUDA_PART=/path/lib.so names another part to load instead, with
 * no driver needed: the tests load a pretend device with it
 * (tests/c/fake_cuda_part.c), whose memory is host memory.
 */
#include "c10/c10_impl.h"
#include "c10/cuda/backend.h"

#include <ctorch/error.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NO_DRIVER                                                             \
    "Found no NVIDIA driver on your system. Please check that you have an "  \
    "NVIDIA GPU and installed a driver from "                                \
    "http://www.nvidia.com/Download/index.aspx"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const ct_cuda_backend *be;
static int devices;
static char why[512];                  /* the failure, when be == NULL */

bool
ct__cuda_part_path(char *out, size_t n)
{
    Dl_info info;
    if (dladdr((void *)ct_cuda_is_built, &info) == 0 || info.dli_fname == NULL) {
        return false;
    }
    const char *slash = strrchr(info.dli_fname, '/');
    int dir = slash != NULL ? (int)(slash - info.dli_fname) : 1;
    const char *base = slash != NULL ? info.dli_fname : ".";
    if (snprintf(out, n, "%.*s/libctorch_cuda.so", dir, base) >= (int)n) {
        return false;
    }
    return access(out, R_OK) == 0;
}

static void
load(void)
{
    char path[PATH_MAX];
    const char *part = getenv("CTORCH_CUDA_PART");
    if (part != NULL && *part != '\0') {
        snprintf(path, sizeof path, "%s", part);
    }
    else if (!ct__cuda_part_path(path, sizeof path)) {
        snprintf(why, sizeof why, "Torch not compiled with CUDA enabled");
        return;
    }
    else if (dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) == NULL) {
        snprintf(why, sizeof why, NO_DRIVER);
        return;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(why, sizeof why, "cannot load ctorch's CUDA part: %.400s", dlerror());
        return;
    }
    const ct_cuda_backend *(*get)(void) =
        (const ct_cuda_backend *(*)(void))dlsym(h, "ct_cuda_backend_get");
    const ct_cuda_backend *b = get != NULL ? get() : NULL;
    if (b == NULL || b->abi != CT_CUDA_ABI) {
        snprintf(why, sizeof why, "%.400s does not match this libctorch", path);
        return;
    }
    int n = 0;
    if (b->device_count(&n) < 0) {
        snprintf(why, sizeof why, "%s", ct_error_message());
        ct_error_clear();
        return;
    }
    /* the driver and the part stay loaded for the life of the process */
    devices = n;
    be = b;
}

static int
need_backend(void)
{
    pthread_once(&once, load);
    if (be == NULL) {
        return ct_error(CT_ERR_RUNTIME, "%s", why);
    }
    return 0;
}

bool
ct_cuda_is_built(void)
{
    char path[PATH_MAX];
    const char *part = getenv("CTORCH_CUDA_PART");
    return (part != NULL && *part != '\0') || ct__cuda_part_path(path, sizeof path);
}

int
ct_cuda_device_count(void)
{
    pthread_once(&once, load);
    return be != NULL ? devices : 0;
}

int
ct_cuda_init(void)
{
    if (need_backend() < 0) {
        return -1;
    }
    if (devices == 0) {
        return ct_error(CT_ERR_RUNTIME, "No CUDA GPUs are available");
    }
    return 0;
}

/* Each entry of include/ctorch/cuda.h: start CUDA, then the part's own. */
#define FORWARD(ret_type, name, field, fail, params, args)                    \
    ret_type name params                                                      \
    {                                                                         \
        if (ct_cuda_init() < 0) {                                             \
            return fail;                                                      \
        }                                                                     \
        return be->field args;                                                \
    }

FORWARD(int, ct_cuda_current_device, current_device, -1, (int *device), (device))
FORWARD(int, ct_cuda_set_device, set_device, -1, (int device), (device))
FORWARD(int, ct_cuda_synchronize, synchronize, -1, (int device), (device))
FORWARD(int, ct_cuda_get_properties, properties, -1, (int device, ct_cuda_properties *out),
        (device, out))
FORWARD(int, ct_cuda_mem_get_info, mem_info, -1,
        (int device, size_t *free_bytes, size_t *total_bytes),
        (device, free_bytes, total_bytes))
FORWARD(void *, ct_cuda_malloc, malloc, NULL, (int device, void *stream, size_t size),
        (device, stream, size))
FORWARD(int, ct_cuda_free, free, -1, (void *p), (p))
FORWARD(int, ct_cuda_record_stream, record_stream, -1, (void *p, void *stream), (p, stream))
FORWARD(void *, ct_cuda_host_alloc, host_alloc, NULL, (size_t size), (size))
FORWARD(int, ct_cuda_host_free, host_free, -1, (void *p), (p))
FORWARD(int, ct_cuda_empty_cache, empty_cache, -1, (void), ())
FORWARD(int, ct_cuda_memory_stats, stats, -1, (int device, ct_device_cache_stats *out),
        (device, out))
FORWARD(int, ct_cuda_reset_peak_memory_stats, reset_peak, -1, (int device), (device))
FORWARD(int, ct_cuda_memcpy, memcpy, -1,
        (void *dst, const void *src, size_t n, void *stream, bool blocking),
        (dst, src, n, stream, blocking))
FORWARD(int, ct_cuda_stream_new, stream_new, -1, (int device, int priority, void **out),
        (device, priority, out))
FORWARD(int, ct_cuda_stream_free, stream_free, -1, (void *stream), (stream))
FORWARD(int, ct_cuda_stream_synchronize, stream_synchronize, -1, (int device, void *stream),
        (device, stream))
FORWARD(int, ct_cuda_stream_query, stream_query, -1, (int device, void *stream, bool *done),
        (device, stream, done))
FORWARD(int, ct_cuda_stream_wait_event, stream_wait_event, -1,
        (int device, void *stream, void *event), (device, stream, event))
FORWARD(int, ct_cuda_event_new, event_new, -1,
        (int device, bool timing, bool blocking, void **out),
        (device, timing, blocking, out))
FORWARD(int, ct_cuda_event_free, event_free, -1, (void *event), (event))
FORWARD(int, ct_cuda_event_record, event_record, -1, (int device, void *event, void *stream),
        (device, event, stream))
FORWARD(int, ct_cuda_event_synchronize, event_synchronize, -1, (void *event), (event))
FORWARD(int, ct_cuda_event_query, event_query, -1, (void *event, bool *done),
        (event, done))
FORWARD(int, ct_cuda_event_elapsed_ms, event_elapsed_ms, -1,
        (void *start, void *end, float *ms), (start, end, ms))

const ct_cuda_backend *
ct__cuda_backend(void)
{
    return ct_cuda_init() < 0 ? NULL : be;
}

/* The current stream of each device, per thread (PyTorch keeps it per
 * thread too); NULL is the device's default stream. */
#define MAX_DEVICES 64
static _Thread_local void *current_stream[MAX_DEVICES];

static int
check_index(int device)
{
    if (ct_cuda_init() < 0) {
        return -1;
    }
    if (device < 0 || device >= devices || device >= MAX_DEVICES) {
        return ct_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
    }
    return 0;
}

int
ct_cuda_current_stream(int device, void **stream)
{
    if (check_index(device) < 0) {
        return -1;
    }
    *stream = current_stream[device];
    return 0;
}

int
ct_cuda_set_current_stream(int device, void *stream)
{
    if (check_index(device) < 0) {
        return -1;
    }
    current_stream[device] = stream;
    return 0;
}

/* --- storages on a CUDA device (c10/storage.c) ---------------------------
 * The allocator's free ignores errors: by then nothing can report them, and
 * the cache only fails there on a pointer it never handed out. */
static void *device_data(int device, size_t nbytes);

/* the vtable's alloc: on the current device */
static void *
cuda_storage_alloc(const ct_allocator *self, size_t nbytes)
{
    (void)self;
    int device;
    return be->current_device(&device) < 0 ? NULL : device_data(device, nbytes);
}

static void
cuda_storage_free(const ct_allocator *self, void *ptr, size_t nbytes)
{
    (void)self;
    (void)nbytes;
    if (ptr != NULL && be->free(ptr) < 0) {
        ct_error_clear();
    }
}

static const ct_allocator cuda_allocator = {"cuda", cuda_storage_alloc, cuda_storage_free};

static void *
device_data(int device, size_t nbytes)
{
    void *stream;
    if (ct_cuda_current_stream(device, &stream) < 0) {
        return NULL;
    }
    return be->malloc(device, stream, nbytes);
}

int
ct__cuda_storage_data(int device, size_t nbytes, void **data, const ct_allocator **alloc)
{
    if (check_index(device) < 0) {
        return -1;
    }
    *alloc = &cuda_allocator;
    *data = NULL; /* as PyTorch: no block for an empty storage */
    if (nbytes > 0 && (*data = device_data(device, nbytes)) == NULL) {
        return -1;
    }
    return 0;
}
