/* c10/cuda/backend.h -- the table libctorch_cuda.so hands to libctorch's
 * loader (c10/cuda_loader.c).  Every entry returns 0, or -1 with the
 * error set (malloc: NULL), as in include/ctorch/cuda.h. */
#ifndef CTORCH_C10_CUDA_BACKEND_H
#define CTORCH_C10_CUDA_BACKEND_H

#include <ctorch/cuda.h>
#include <ctorch/dtype.h>
#include <ctorch/op_lists.h>

#define CT_CUDA_ABI 10

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

/* Reductions with device kernels. */
#define CT_FORALL_CUDA_REDUCE_OPS(X) \
    X(SUM) X(PROD) X(AMAX) X(AMIN) X(ARGMAX) X(ARGMIN) X(ANY) X(ALL)
typedef enum {
#define X(E) CT_CUDA_REDUCE_##E,
    CT_FORALL_CUDA_REDUCE_OPS(X)
#undef X
    CT_CUDA_REDUCE_COUNT
} ct_cuda_reduce_op;

/* The distributions of the `random` kernel (PyTorch's CUDA
 * distribution_nullary_kernel and its transformations). */
typedef enum {
    CT_CUDA_RANDOM_UNIFORM,     /* floating: [a, b) */
    CT_CUDA_RANDOM_NORMAL,      /* floating: mean a, std b */
    CT_CUDA_RANDOM_BERNOULLI,   /* any dtype: 1 with probability a */
    CT_CUDA_RANDOM_FROM_TO,     /* any dtype: base + draw % range */
    CT_CUDA_RANDOM_BITS,        /* random_(): the dtype's own range (PyTorch's uniform_int) */
    CT_CUDA_RANDOM_FULL64,      /* int64, float64, float32, bfloat16: the draw as an int64 */
    CT_CUDA_RANDOM_EXPONENTIAL, /* floating: rate a */
    CT_CUDA_RANDOM_CAUCHY,      /* floating: median a, sigma b */
    CT_CUDA_RANDOM_LOG_NORMAL,  /* floating: exp of a normal of mean a, std b */
    CT_CUDA_RANDOM_GEOMETRIC,   /* any dtype but bool: trials to the first success, p = a */
    CT_CUDA_RANDOM_POISSON,     /* floating, in place: each element's rate replaced by a
                                 * Poisson draw of that rate, element i from its own
                                 * Philox subsequence i, at most `range` blocks each */
} ct_cuda_random_op;

/* One call of the `random` kernel.  Note [Device random streams] in
 * aten/cuda/random_math.h says how element i of the output (its elements
 * in memory order) is drawn from (seed, offset, threads). */
typedef struct {
    uint64_t seed;              /* the generator's seed: Philox's key */
    uint64_t offset;            /* the generator's offset for this call (a multiple of 4) */
    int64_t threads;            /* the threads PyTorch's launch has: 256 per block */
    double a, b;                /* the distribution's parameters (above) */
    uint64_t range;             /* FROM_TO; POISSON: the blocks one element may take */
    int64_t base;
} ct_cuda_random_args;

/* (the one helper here that device code calls too) */
#ifdef __CUDACC__
#define CT_CUDA_HOST_DEVICE __host__ __device__
#else
#define CT_CUDA_HOST_DEVICE
#endif

/* Whether op on dtype draws 64 bits per value (two values per Philox
 * block of four words) rather than 32 (four values per block): float64's
 * uniforms and normals and the values made of them (bernoulli,
 * exponential, cauchy, log_normal, geometric: PyTorch's uniform2_double /
 * normal2_double; geometric into int64 takes a float uniform), FROM_TO
 * over a range of 2^28 or more, BITS into int64 or float64, and FULL64.
 * POISSON is drawn per element, not per thread (false). */
static inline CT_CUDA_HOST_DEVICE bool
ct_cuda_random_wide(ct_cuda_random_op op, ct_dtype dtype, uint64_t range)
{
    switch (op) {
    case CT_CUDA_RANDOM_FROM_TO:
        return range >= (UINT64_C(1) << 28);
    case CT_CUDA_RANDOM_BITS:
        return dtype == CT_DTYPE_INT64 || dtype == CT_DTYPE_FLOAT64;
    case CT_CUDA_RANDOM_FULL64:
        return true;
    case CT_CUDA_RANDOM_POISSON:
        return false;
    default:
        return dtype == CT_DTYPE_FLOAT64;
    }
}

/* The families of device kernels, for `supports`. */
typedef enum { CT_CUDA_UNARY, CT_CUDA_BINARY, CT_CUDA_REDUCE, CT_CUDA_GEMM } ct_cuda_family;

/* aten/cuda/supports.c, compiled into every CUDA part: whether a kernel of
 * family exists for op (a ct_unary_op, ct_binary_op or ct_cuda_reduce_op;
 * ignored for GEMM) on operands of dtype (unary and binary: the inputs'
 * dtype, the host having converted them; reduce: the input's; gemm: all
 * three matrices'). */
bool ct_cuda_supports(ct_cuda_family family, int op, ct_dtype dtype);

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
    /* page-locked host memory (cudaHostAlloc), for pin_memory() */
    void *(*host_alloc)(size_t size);
    int (*host_free)(void *p);
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

    /* ct_cuda_supports (aten/cuda/supports.c), for libctorch */
    bool (*supports)(ct_cuda_family family, int op, ct_dtype dtype);
    /* Kernels, queued on `stream` of `device` (NULL: its default stream);
     * they return once queued.  dst = src converted to dst's dtype
     * (bool: nonzero; float to integer truncates, as PyTorch's casts). */
    int (*copy)(int device, void *stream, const ct_cuda_view *dst, const ct_cuda_view *src);
    /* every element of dst = value, given both as a double and an int64
     * (integer dtypes take ival, so large int64 values stay exact) */
    int (*fill)(int device, void *stream, const ct_cuda_view *dst, double fval,
                int64_t ival);
    /* out = cond ? a : b per element; out, a and b of one dtype, cond bool
     * or uint8 (nonzero picks a) */
    int (*where)(int device, void *stream, const ct_cuda_view *out,
                 const ct_cuda_view *cond, const ct_cuda_view *a, const ct_cuda_view *b);
    /* out = a op b, a and b in one dtype (the host converted them); out in
     * the op's result dtype (bool for comparisons and logical ops, else
     * a's).  alpha scales b for ADD and SUB, as in fill. */
    int (*binary)(int device, void *stream, ct_binary_op op, const ct_cuda_view *out,
                  const ct_cuda_view *a, const ct_cuda_view *b, double falpha,
                  int64_t ialpha);
    /* out = op(in); in in the compute dtype, out in the result dtype (bool
     * for CT_UNARY_BOOL ops, else in's) */
    int (*unary)(int device, void *stream, ct_unary_op op, const ct_cuda_view *out,
                 const ct_cuda_view *in);
    /* out[i...] = op over in[i..., j...]: in has out's dims (same sizes)
     * followed by the reduced dims.  Output dtype: SUM and PROD the host's
     * choice (accumulating in double for float64 outputs, float for other
     * floating ones, int64 for integers); AMAX/AMIN in's (NaN wins);
     * ARGMAX/ARGMIN int64 (first index of the extreme, NaN wins); ANY/ALL
     * bool or uint8.  Empty reductions give SUM 0, PROD 1, ANY false, ALL
     * true; the host refuses the others. */
    int (*reduce)(int device, void *stream, ct_cuda_reduce_op op, const ct_cuda_view *out,
                  const ct_cuda_view *in);
    /* cuBLAS's column-major strided-batched GEMM: for each of batch
     * matrices, C = alpha * op(A) op(B) + beta * C, op transposing when
     * trans_*; C is m x n, op(A) m x k, op(B) k x n; every matrix of dtype
     * (float32: no TF32, as PyTorch's default; float16/bfloat16 accumulate
     * in float32).  beta == 0 ignores C's old contents (NaN included). */
    int (*gemm)(int device, void *stream, ct_dtype dtype, bool trans_a, bool trans_b,
                int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, double beta,
                void *c, int64_t ldc, int64_t stride_c, int64_t batch);
    /* Indexing along dim, views taken whole (not coalesced: dim must stay
     * a dim); index int64, ndim >= 1 throughout.
     * gather: out[i...] = in[i... with coordinate dim replaced by
     * index[i...]]; out and index share sizes, in has their ndim, out's
     * dtype and, apart from dim, sizes at least theirs.
     * scatter_add: self[i... with dim replaced by index[i...]] += src[i...];
     * index and src share sizes, self has their ndim, src's dtype and,
     * apart from dim, sizes at least theirs.  Additions to one element run
     * in no set order (atomics): floating sums may differ in rounding from
     * run to run.
     * scatter: the same walk, self[...] = src[i...]; where several index
     * elements name one element of self, which write lands is not set
     * (PyTorch's CUDA scatter_ is not deterministic either).
     * The host has checked every index is in [0, in/self's size at dim);
     * a kernel skips one that is not rather than touch memory outside. */
    int (*gather)(int device, void *stream, const ct_cuda_view *out, const ct_cuda_view *in,
                  const ct_cuda_view *index, int dim);
    int (*scatter_add)(int device, void *stream, const ct_cuda_view *self,
                       const ct_cuda_view *index, const ct_cuda_view *src, int dim);
    int (*scatter)(int device, void *stream, const ct_cuda_view *self,
                   const ct_cuda_view *index, const ct_cuda_view *src, int dim);
    /* out's elements drawn from op's distribution (ct_cuda_random_args);
     * out's view has its dims in memory order, outermost first, as the
     * host's iteration geometry gives them.  The dtypes each op takes
     * are listed with ct_cuda_random_op (above). */
    int (*random)(int device, void *stream, ct_cuda_random_op op, const ct_cuda_view *out,
                  const ct_cuda_random_args *args);
    /* out = the parametrized activation op (a ct_act_op of op_lists.h) of
     * x (order 0), or grad times its first (1) or second (2) derivative
     * at x, as aten/activation_math.h writes them; out, x and grad of one
     * floating dtype (grad NULL for order 0), p the op's CT_ACT_MAX_PARAMS
     * parameters. */
    int (*activation)(int device, void *stream, int op, int order, const ct_cuda_view *out,
                      const ct_cuda_view *grad, const ct_cuda_view *x, const double *p);
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
