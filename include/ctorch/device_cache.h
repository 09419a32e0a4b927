/* include/ctorch/device_cache.h -- a caching allocator for device memory.
 *
 * Device allocations (cudaMalloc) are slow and synchronize the device, so
 * a device backend hands its raw allocator to one of these and allocates
 * through it, as PyTorch's CUDACachingAllocator does:
 *
 * - requests are rounded up to 512 bytes; those of up to 1 MiB come from
 *   2 MiB segments shared by many small blocks, larger ones from segments
 *   of 20 MiB (requests under 10 MiB) or of the request rounded up to
 *   2 MiB;
 * - a freed block goes back to its pool, merged with free neighbours of
 *   its segment, and is reused best-fit by a later request of the same
 *   device and stream (work queued on that stream is ordered after the
 *   old user's, so no wait is needed);
 * - a block used on other streams (ct_device_cache_record_stream) is
 *   reusable only once an event recorded on each of them at free time has
 *   completed;
 * - when the device is full the cached free segments are released and the
 *   request tried once more before it fails with PyTorch's out-of-memory
 *   message.
 *
 * The cache knows nothing of CUDA: devices are indices, streams and events
 * opaque pointers, and every device call goes through ct_device_cache_ops,
 * so its logic is tested on the CPU with a pretend device (tests/c).
 * Thread-safe: one lock per cache.  The cache owns every segment it got
 * from raw_alloc until ct_device_cache_empty or ct_device_cache_free.
 */
#ifndef CTORCH_DEVICE_CACHE_H
#define CTORCH_DEVICE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ct_device_cache ct_device_cache;

typedef struct ct_device_cache_ops {
    const char *name;   /* "CUDA", for messages */
    void *ctx;
    /* size bytes of device memory, or NULL when the device is full */
    void *(*raw_alloc)(void *ctx, int device, size_t size);
    void (*raw_free)(void *ctx, int device, void *p);
    /* an event recorded now on stream, or NULL (then the free waits for
     * nothing on that stream); done: the event has completed */
    void *(*event_record)(void *ctx, int device, void *stream);
    bool (*event_done)(void *ctx, void *event);
    void (*event_free)(void *ctx, void *event);
    /* the device's free and total bytes (may be NULL) */
    void (*mem_info)(void *ctx, int device, size_t *free_bytes, size_t *total_bytes);
} ct_device_cache_ops;

typedef struct {
    int64_t allocated, max_allocated;   /* bytes in blocks handed out */
    int64_t reserved, max_reserved;     /* bytes in segments held */
    int64_t allocations, retries, ooms; /* counts */
} ct_device_cache_stats;

/* A cache over ops (copied) for devices [0, ndevices); NULL when out of
 * memory. */
ct_device_cache *ct_device_cache_new(const ct_device_cache_ops *ops, int ndevices);
/* Returns every segment to the device; blocks still handed out are lost. */
void ct_device_cache_free(ct_device_cache *c);

/* size bytes on device for work on stream.  NULL with the error set when
 * the device is full (or device is out of range); size 0 gives NULL with
 * no error. */
void *ct_device_cache_alloc(ct_device_cache *c, int device, void *stream, size_t size);
/* Give back a pointer from ct_device_cache_alloc (NULL: no-op); -1 with
 * the error set for a pointer the cache did not hand out. */
int ct_device_cache_release(ct_device_cache *c, void *p);
/* p is used on stream too: its reuse waits for that stream's work. */
int ct_device_cache_record_stream(ct_device_cache *c, void *p, void *stream);
/* Release the segments with nothing handed out (torch.cuda.empty_cache). */
void ct_device_cache_empty(ct_device_cache *c);

ct_device_cache_stats ct_device_cache_stats_get(ct_device_cache *c, int device);
/* max_allocated and max_reserved start again from the current values. */
void ct_device_cache_reset_peak(ct_device_cache *c, int device);
/* The bytes a request of size takes from the cache. */
size_t ct_device_cache_round(size_t size);

#endif
