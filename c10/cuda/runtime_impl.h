/* c10/cuda/runtime_impl.h -- helpers of c10/cuda/runtime.c shared with the
 * CUDA part's other files, and blas.c's entry for the backend table.
 * Internal to libctorch_cuda.so.
 *
 * They act on the calling thread's current device, so they are as
 * thread-safe as the CUDA runtime itself.
 */
#ifndef CTORCH_C10_CUDA_RUNTIME_IMPL_H
#define CTORCH_C10_CUDA_RUNTIME_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include <ctorch/dtype.h>
#include <cuda_runtime.h>

/* 0 for cudaSuccess, else -1 with "CUDA error: <its string>" set (the
 * sticky error cleared). */
int ct__cuda_check(cudaError_t e);

/* Make device current for a call; *prev gets the device to give back to
 * ct__cuda_unguard afterwards.  0, or -1 with the error set. */
int ct__cuda_guard(int device, int *prev);
void ct__cuda_unguard(int device, int prev);

/* The backend table's `gemm` (c10/cuda/blas.c; contract in backend.h). */
int ct__cuda_gemm(int device, void *stream, ct_dtype dtype, bool trans_a, bool trans_b,
                  int64_t m, int64_t n, int64_t k, double alpha, const void *a,
                  int64_t lda, int64_t stride_a, const void *b, int64_t ldb,
                  int64_t stride_b, double beta, void *c, int64_t ldc, int64_t stride_c,
                  int64_t batch);

#endif
