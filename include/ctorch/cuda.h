/* include/ctorch/cuda.h -- CUDA devices, memory, streams and events.
 *
 * libctorch itself never links CUDA.  The CUDA part, libctorch_cuda.so
 * (c10/cuda/, aten/cuda/), is built when the CUDA toolkit is found and
 * lies next to libctorch.so; the first call here that needs a device
 * loads it, and only when an NVIDIA driver (libcuda.so.1) is present.  So
 * one build runs everywhere: without a driver or a GPU ct_cuda_device_count
 * is 0 and ct_cuda_init fails with PyTorch's message.
 *
 * Streams and events are opaque handles (cudaStream_t / cudaEvent_t);
 * NULL is the default stream.  Device memory comes from a caching
 * allocator (include/ctorch/device_cache.h).  Every call returns 0, or -1
 * (NULL) with the error set.  Thread-safe; the current device is
 * per-thread, as in the CUDA runtime.
 */
#ifndef CTORCH_CUDA_H
#define CTORCH_CUDA_H

#include <ctorch/device_cache.h>

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char name[256];
    int major, minor;                   /* compute capability */
    size_t total_memory;
    int multi_processor_count;
    int max_threads_per_multi_processor;
} ct_cuda_properties;

/* Whether this build has its CUDA part (libctorch_cuda.so). */
bool ct_cuda_is_built(void);
/* Devices usable now; 0 without the CUDA part, a driver or a GPU. */
int ct_cuda_device_count(void);
/* Load and start CUDA: -1 with PyTorch's error when it cannot be used. */
int ct_cuda_init(void);

int ct_cuda_current_device(int *device);
int ct_cuda_set_device(int device);
int ct_cuda_synchronize(int device);
int ct_cuda_get_properties(int device, ct_cuda_properties *out);
int ct_cuda_mem_get_info(int device, size_t *free_bytes, size_t *total_bytes);

/* Device memory through the caching allocator, ordered on stream. */
void *ct_cuda_malloc(int device, void *stream, size_t size);
int ct_cuda_free(void *p);
int ct_cuda_record_stream(void *p, void *stream);
/* Page-locked host memory (what pin_memory() puts tensors in). */
void *ct_cuda_host_alloc(size_t size);
int ct_cuda_host_free(void *p);
int ct_cuda_empty_cache(void);
int ct_cuda_memory_stats(int device, ct_device_cache_stats *out);
int ct_cuda_reset_peak_memory_stats(int device);
/* Copy n bytes between any host and device memory (cudaMemcpyDefault),
 * queued on stream; blocking: wait for it. */
int ct_cuda_memcpy(void *dst, const void *src, size_t n, void *stream, bool blocking);

/* Streams and events belong to a device; calls on them name it (NULL is
 * that device's default stream) and run with it current. */
int ct_cuda_stream_new(int device, int priority, void **out);
int ct_cuda_stream_free(void *stream);
int ct_cuda_stream_synchronize(int device, void *stream);
int ct_cuda_stream_query(int device, void *stream, bool *done);
int ct_cuda_stream_wait_event(int device, void *stream, void *event);
int ct_cuda_event_new(int device, bool timing, bool blocking, void **out);
int ct_cuda_event_free(void *event);
int ct_cuda_event_record(int device, void *event, void *stream);
int ct_cuda_event_synchronize(void *event);
int ct_cuda_event_query(void *event, bool *done);
int ct_cuda_event_elapsed_ms(void *start, void *end, float *ms);

/* The calling thread's current stream on device (NULL: the default one);
 * kernels on that device's tensors are queued there. */
int ct_cuda_current_stream(int device, void **stream);
int ct_cuda_set_current_stream(int device, void *stream);

#endif
