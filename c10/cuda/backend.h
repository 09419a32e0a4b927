/* c10/cuda/backend.h -- the table libctorch_cuda.so hands to libctorch's
 * loader (c10/cuda_loader.c).  Every entry returns 0, or -1 with the
 * error set (malloc: NULL), as in include/ctorch/cuda.h. */
#ifndef CTORCH_C10_CUDA_BACKEND_H
#define CTORCH_C10_CUDA_BACKEND_H

#include <ctorch/cuda.h>
#include <ctorch/dtype.h>

#define CT_CUDA_ABI 3

/* A strided operand of a device kernel: sizes and strides in elements,
 * data at the first element.  The host (aten/device.c) hands every operand
 * of one call with the same sizes, broadcast inputs carrying stride 0,
 * dims coalesced; at most CT_CUDA_MAX_DIMS remain. */
#define CT_CUDA_MAX_DIMS 16
typedef struct {
    char *data;
    ct_dtype dtype;
    int ndim;
    int64_t sizes[CT_CUDA_MAX_DIMS];
    int64_t strides[CT_CUDA_MAX_DIMS];
} ct_cuda_view;

/* The binary ops with device kernels.  Operands share one dtype (the host
 * converts first); alpha scales b for ADD and SUB; DIV is true division
 * (floating dtypes only). */
#define CT_FORALL_CUDA_BINARY_OPS(X) X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div")
typedef enum {
#define X(E, N) CT_CUDA_##E,
    CT_FORALL_CUDA_BINARY_OPS(X)
#undef X
} ct_cuda_binary_op;

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

    /* Kernels, queued on `stream` of `device` (NULL: its default stream);
     * they return once queued.  dst = src converted to dst's dtype
     * (bool: nonzero; float to integer truncates, as PyTorch's casts). */
    int (*copy)(int device, void *stream, const ct_cuda_view *dst, const ct_cuda_view *src);
    /* every element of dst = value, given both as a double and an int64
     * (integer dtypes take ival, so large int64 values stay exact) */
    int (*fill)(int device, void *stream, const ct_cuda_view *dst, double fval,
                int64_t ival);
    /* out = a op b; alpha as in fill (ADD and SUB only) */
    int (*binary)(int device, void *stream, ct_cuda_binary_op op, const ct_cuda_view *out,
                  const ct_cuda_view *a, const ct_cuda_view *b, double falpha,
                  int64_t ialpha);
} ct_cuda_backend;

/* c10/cuda_loader.c: the path of libctorch_cuda.so beside libctorch into
 * out; false when there is none. */
bool ct__cuda_part_path(char *out, size_t n);

/* c10/cuda_loader.c: the loaded part, starting CUDA first (NULL with the
 * error set when it cannot start). */
const ct_cuda_backend *ct__cuda_backend(void);

/* Exported by libctorch_cuda.so, found with dlsym. */
const ct_cuda_backend *ct_cuda_backend_get(void);

#endif
