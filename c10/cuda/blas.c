/* c10/cuda/blas.c -- the backend table's `gemm` over cuBLAS
 * (libctorch_cuda.so; the contract is the comment above `gemm` in
 * c10/cuda/backend.h).
 *
 * A cuBLAS handle may not be used by two threads at once, so each thread
 * keeps its own handle per device, created on first use (as PyTorch's
 * per-device, per-thread handle pool), pointed at the call's stream on
 * every call, and destroyed when the thread exits (a pthread key
 * destructor; never at process exit, where the driver may be gone).
 * Handles keep cuBLAS's own workspace (cublasSetStream resets it to the
 * default pool); PyTorch instead gives each (handle, stream) pair its own
 * workspace from its caching allocator, which is the step to take if
 * products queued from one thread on two streams ever prove to race.
 *
 * Note [cuBLAS math mode]: handles use CUBLAS_DEFAULT_MATH, as PyTorch's do
 * when torch.backends.cuda.matmul.allow_tf32 is False (its default).  With
 * CUBLAS_COMPUTE_32F on float32 data that mode never drops to TF32, while
 * float16/bfloat16 keep tensor cores and accumulate in float32 (PyTorch's
 * default allow_{fp16,bf16}_reduced_precision_reduction = True).
 * CUBLAS_PEDANTIC_MATH would also keep TF32 out, but it gives up tensor
 * cores for float16/bfloat16 too: slower, and not what PyTorch computes.
 */
#include "c10/cuda/backend.h"
#include "c10/cuda/runtime_impl.h"

#include <ctorch/error.h>

#include <cublas_v2.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

/* --- per-thread handles ------------------------------------------------------- */

typedef struct {
    int count;               /* devices when this thread first called gemm */
    cublasHandle_t handle[]; /* per device; NULL until first used */
} blas_handles;

static pthread_key_t handles_key;
static pthread_once_t handles_once = PTHREAD_ONCE_INIT;
static int handles_key_rc = -1;
static _Thread_local blas_handles *mine;

/* 0, or -1 with PyTorch's wording: "CUDA error: CUBLAS_STATUS_... when
 * calling `<call>`". */
static int
blas_check(cublasStatus_t s, const char *call)
{
    if (s == CUBLAS_STATUS_SUCCESS) {
        return 0;
    }
    return ct_error(CT_ERR_RUNTIME, "CUDA error: %s when calling `%s`",
                    cublasGetStatusName(s), call);
}

/* Thread exit: destroy this thread's handles, each with its device current. */
static void
handles_free(void *p)
{
    blas_handles *h = p;
    for (int d = 0; d < h->count; d++) {
        int prev;
        if (h->handle[d] != NULL && ct__cuda_guard(d, &prev) == 0) {
            (void)cublasDestroy(h->handle[d]);
            ct__cuda_unguard(d, prev);
        }
    }
    ct_error_clear();
    free(h);
    mine = NULL;
}

static void
handles_key_make(void)
{
    handles_key_rc = pthread_key_create(&handles_key, handles_free);
}

/* This thread's handle for device, which the caller has made current;
 * NULL with the error set. */
static cublasHandle_t
handle_get(int device)
{
    if (mine == NULL) {
        int n = 0;
        if (ct__cuda_check(cudaGetDeviceCount(&n)) < 0) {
            return NULL;
        }
        pthread_once(&handles_once, handles_key_make);
        blas_handles *h = calloc(1, sizeof *h + (size_t)n * sizeof h->handle[0]);
        if (h == NULL || handles_key_rc != 0 ||
            pthread_setspecific(handles_key, h) != 0) {
            free(h);
            ct_error(CT_ERR_NOMEM, "cuBLAS: out of host memory for the handles");
            return NULL;
        }
        h->count = n;
        mine = h;
    }
    if (device < 0 || device >= mine->count) {
        ct_error(CT_ERR_RUNTIME, "CUDA error: invalid device ordinal");
        return NULL;
    }
    if (mine->handle[device] == NULL) {
        cublasHandle_t handle = NULL;
        if (blas_check(cublasCreate(&handle), "cublasCreate(handle)") < 0) {
            return NULL;
        }
        if (blas_check(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH),
                       "cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH)") < 0) {
            (void)cublasDestroy(handle);
            return NULL;
        }
        mine->handle[device] = handle;
    }
    return mine->handle[device];
}

/* --- gemm ------------------------------------------------------------------------ */

/* How cuBLAS takes each dtype (Note [cuBLAS math mode]); size 0: none. */
typedef struct {
    cudaDataType type;
    cublasComputeType_t compute;
    size_t size;
} gemm_type;

static const gemm_type gemm_types[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = {CUDA_R_16F, CUBLAS_COMPUTE_32F, 2},
    [CT_DTYPE_BFLOAT16] = {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2},
    [CT_DTYPE_FLOAT32] = {CUDA_R_32F, CUBLAS_COMPUTE_32F, 4},
    [CT_DTYPE_FLOAT64] = {CUDA_R_64F, CUBLAS_COMPUTE_64F, 8},
};

/* cuBLAS takes sizes as int: 0, or -1 naming the one that does not fit
 * (PyTorch's wording). */
static int
fits_int(const char *name, int64_t v)
{
    if (v >= 0 && v <= INT_MAX) {
        return 0;
    }
    return ct_error(CT_ERR_RUNTIME,
                    "cuBLAS gemm argument %s must be non-negative and less than %d "
                    "but got %lld",
                    name, INT_MAX, (long long)v);
}

/* Note [gemm with k == 0]: op(A) op(B) is then all zeros, so C = beta * C.
 * cuBLAS does that itself, but whether beta == 0 overwrites C's old
 * contents (NaN, or garbage in a fresh tensor) without reading them is not
 * something its documentation promises for this case, so beta == 0 clears
 * C here instead: all-zero bytes are 0.0 in every gemm dtype. */
static int
zero_c(cudaStream_t stream, size_t size, char *c, int64_t m, int64_t n, int64_t ldc,
       int64_t stride_c, int64_t batch)
{
    size_t pitch = (size_t)ldc * size, width = (size_t)m * size;
    if (batch == 1 || stride_c == ldc * n) {
        /* the batch's columns lie ldc apart throughout: one 2-D memset */
        return ct__cuda_check(cudaMemset2DAsync(c, pitch, 0, width,
                                                (size_t)n * (size_t)batch, stream));
    }
    for (int64_t i = 0; i < batch; i++, c += stride_c * (int64_t)size) {
        cudaError_t e = cudaMemset2DAsync(c, pitch, 0, width, (size_t)n, stream);
        if (e != cudaSuccess) {
            return ct__cuda_check(e);
        }
    }
    return 0;
}

/* One cuBLAS call for batch (<= INT_MAX) matrices; the sizes checked. */
static int
gemm_call(cublasHandle_t handle, const gemm_type *t, cublasOperation_t opa,
          cublasOperation_t opb, int64_t m, int64_t n, int64_t k, const void *alpha,
          const void *a, int64_t lda, int64_t stride_a, const void *b, int64_t ldb,
          int64_t stride_b, const void *beta, void *c, int64_t ldc, int64_t stride_c,
          int64_t batch)
{
    if (batch == 1) {
        return blas_check(
            cublasGemmEx(handle, opa, opb, (int)m, (int)n, (int)k, alpha, a, t->type,
                         (int)lda, b, t->type, (int)ldb, beta, c, t->type, (int)ldc,
                         t->compute, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx(handle, opa, opb, m, n, k, &alpha, a, type, lda, b, type, "
            "ldb, &beta, c, type, ldc, compute_type, CUBLAS_GEMM_DEFAULT)");
    }
    return blas_check(
        cublasGemmStridedBatchedEx(handle, opa, opb, (int)m, (int)n, (int)k, alpha, a,
                                   t->type, (int)lda, stride_a, b, t->type, (int)ldb,
                                   stride_b, beta, c, t->type, (int)ldc, stride_c,
                                   (int)batch, t->compute, CUBLAS_GEMM_DEFAULT),
        "cublasGemmStridedBatchedEx(handle, opa, opb, m, n, k, &alpha, a, type, lda, "
        "stridea, b, type, ldb, strideb, &beta, c, type, ldc, stridec, num_batches, "
        "compute_type, CUBLAS_GEMM_DEFAULT)");
}

/* The table's gemm; with device current, queue the products on stream in
 * batches of at most INT_MAX matrices. */
static int
gemm_queue(int device, cudaStream_t stream, const gemm_type *t, bool trans_a,
           bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const char *a,
           int64_t lda, int64_t stride_a, const char *b, int64_t ldb, int64_t stride_b,
           double beta, char *c, int64_t ldc, int64_t stride_c, int64_t batch)
{
    if (k == 0 && beta == 0) {
        return zero_c(stream, t->size, c, m, n, ldc, stride_c, batch); /* Note above */
    }
    cublasHandle_t handle = handle_get(device);
    if (handle == NULL || blas_check(cublasSetStream(handle, stream),
                                     "cublasSetStream(handle, stream)") < 0) {
        return -1;
    }
    /* the scale type follows the compute type: float for 32F, double for 64F */
    float falpha = (float)alpha, fbeta = (float)beta;
    bool f64 = t->compute == CUBLAS_COMPUTE_64F;
    const void *pa = f64 ? (const void *)&alpha : &falpha;
    const void *pb = f64 ? (const void *)&beta : &fbeta;
    cublasOperation_t opa = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasOperation_t opb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    int64_t size = (int64_t)t->size;
    for (;;) {
        int64_t nb = batch < INT_MAX ? batch : INT_MAX;
        if (gemm_call(handle, t, opa, opb, m, n, k, pa, a, lda, stride_a, b, ldb,
                      stride_b, pb, c, ldc, stride_c, nb) < 0) {
            return -1;
        }
        if ((batch -= nb) == 0) {
            return 0;
        }
        /* advanced only when more follow: a and b may be NULL when k == 0 */
        a += nb * stride_a * size;
        b += nb * stride_b * size;
        c += nb * stride_c * size;
    }
}

int
ct__cuda_gemm(int device, void *stream, ct_dtype dtype, bool trans_a, bool trans_b,
              int64_t m, int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
              int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b,
              double beta, void *c, int64_t ldc, int64_t stride_c, int64_t batch)
{
    if ((unsigned)dtype >= CT_DTYPE_COUNT) {
        return ct_error(CT_ERR_RUNTIME, "cuBLAS gemm: unknown dtype %d", (int)dtype);
    }
    if (gemm_types[dtype].size == 0) {
        return ct_error(CT_ERR_RUNTIME, "\"gemm_cuda\" not implemented for '%s'",
                        ct_dtype_table[dtype].legacy);
    }
    if (fits_int("m", m) < 0 || fits_int("n", n) < 0 || fits_int("k", k) < 0 ||
        fits_int("lda", lda) < 0 || fits_int("ldb", ldb) < 0 ||
        fits_int("ldc", ldc) < 0) {
        return -1;
    }
    if (batch < 0) {
        return ct_error(CT_ERR_RUNTIME,
                        "cuBLAS gemm argument batch must be non-negative but got %lld",
                        (long long)batch);
    }
    if (m == 0 || n == 0 || batch == 0) {
        return 0; /* an empty C: nothing to compute */
    }
    int prev;
    if (ct__cuda_guard(device, &prev) < 0) {
        return -1;
    }
    int rc = gemm_queue(device, (cudaStream_t)stream, &gemm_types[dtype], trans_a,
                        trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta,
                        c, ldc, stride_c, batch);
    ct__cuda_unguard(device, prev);
    return rc;
}
