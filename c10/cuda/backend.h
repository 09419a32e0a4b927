/* c10/cuda/backend.h -- the table libctorch_cuda.so hands to libctorch's
 * loader (c10/cuda_loader.c).  Every entry returns 0, or -1 with the
 * error set (malloc: NULL), as in include/ctorch/cuda.h. */
#ifndef CTORCH_C10_CUDA_BACKEND_H
#define CTORCH_C10_CUDA_BACKEND_H

#include <ctorch/cuda.h>

#define CT_CUDA_ABI 2

typedef struct ct_cuda_backend {
    int abi;
    /* the device count; -1 with PyTorch's error when CUDA cannot run */
    int (*device_count)(int *n);
    int (*current_device)(int *device);
    int (*set_device)(int device);
    int (*synchronize)(int device);
    int (*properties)(int device, ct_cuda_properties *out);
    int (*mem_info)(int device, size_t *free_bytes, size_t *total_bytes);
    void *(*malloc)(int device, void *stream, size_t size);
    int (*free)(void *p);
    int (*record_stream)(void *p, void *stream);
    int (*empty_cache)(void);
    int (*stats)(int device, ct_device_cache_stats *out);
    int (*reset_peak)(int device);
    int (*memcpy)(void *dst, const void *src, size_t n, void *stream, bool blocking);
    int (*stream_new)(int device, int priority, void **out);
    int (*stream_free)(void *stream);
    int (*stream_synchronize)(int device, void *stream);
    int (*stream_query)(int device, void *stream, bool *done);
    int (*stream_wait_event)(int device, void *stream, void *event);
    int (*event_new)(int device, bool timing, bool blocking, void **out);
    int (*event_free)(void *event);
    int (*event_record)(int device, void *event, void *stream);
    int (*event_synchronize)(void *event);
    int (*event_query)(void *event, bool *done);
    int (*event_elapsed_ms)(void *start, void *end, float *ms);
} ct_cuda_backend;

/* c10/cuda_loader.c: the path of libctorch_cuda.so beside libctorch into
 * out; false when there is none. */
bool ct__cuda_part_path(char *out, size_t n);

/* Exported by libctorch_cuda.so, found with dlsym. */
const ct_cuda_backend *ct_cuda_backend_get(void);

#endif
