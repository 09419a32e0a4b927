/* aten/cpu/linalg_svd.c -- singular values (torch.linalg.svdvals) by
 * LAPACK's ?gesdd with jobz='N' (values only), which libopenblas exports.
 *
 * Each matrix of the batch is copied into a column-major scratch buffer
 * (LAPACK's layout; torch hands LAPACK the same layout, so both get the
 * same bits from the same LAPACK) and ?gesdd overwrites it.  Matrices run
 * one after the other; OpenBLAS threads inside a call.  Only float32 and
 * float64 have a kernel, as on torch's CPU.
 *
 * Ownership as in ops.h.  Thread-safety: nothing is shared between calls.
 */
#include "aten/device.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/loops.h"

/* The Fortran LAPACK routines (declared here: no lapacke.h dependency).
 * Every argument is a pointer; `jobz_len` is the hidden length that
 * gfortran passes after the arguments for a CHARACTER argument. */
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda,
             float *s, float *u, const int *ldu, float *vt, const int *ldvt,
             float *work, const int *lwork, int *iwork, int *info, size_t jobz_len);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda,
             double *s, double *u, const int *ldu, double *vt, const int *ldvt,
             double *work, const int *lwork, int *iwork, int *info, size_t jobz_len);

/* Singular values of each column-major m x n matrix in `a` (`count` of
 * them, back to back) into `s` (k = min(m, n) each), in T; returns LAPACK's
 * info of the first matrix that failed (0: all succeeded) and its index in
 * *failed, or -1 with the ct error set when scratch memory runs out. */
#define GESDD_LOOP(S, T)                                                       \
    static int gesdd_batch_##S(T *a, T *s, int m, int n, int64_t count,       \
                               int64_t *failed)                                \
    {                                                                          \
        int k = m < n ? m : n, lda = m > 1 ? m : 1, one = 1, lwork = -1, info = 0; \
        T query = 0, dummy = 0;                                                \
        int *iwork = malloc(sizeof(int) * 8 * (size_t)k);                      \
        if (iwork == NULL) {                                                   \
            return ct_error(CT_ERR_NOMEM, "linalg.svd: out of memory");       \
        }                                                                      \
        S##gesdd_("N", &m, &n, a, &lda, s, &dummy, &one, &dummy, &one, &query, \
                  &lwork, iwork, &info, 1);                                    \
        lwork = (int)query;                                                    \
        T *work = malloc(sizeof(T) * (size_t)(lwork > 1 ? lwork : 1));         \
        if (work == NULL) {                                                    \
            free(iwork);                                                       \
            return ct_error(CT_ERR_NOMEM, "linalg.svd: out of memory");       \
        }                                                                      \
        int rc = 0;                                                            \
        for (int64_t b = 0; b < count && rc == 0; b++) {                       \
            S##gesdd_("N", &m, &n, a + b * m * n, &lda, s + b * k, &dummy, &one, \
                      &dummy, &one, work, &lwork, iwork, &info, 1);            \
            if (info != 0) {                                                   \
                *failed = b;                                                   \
                rc = info;                                                     \
            }                                                                  \
        }                                                                      \
        free(work);                                                            \
        free(iwork);                                                           \
        return rc;                                                             \
    }
GESDD_LOOP(s, float)
GESDD_LOOP(d, double)
#undef GESDD_LOOP

/* torch's _linalg_check_errors wording for a nonzero ?gesdd info. */
static void
svd_error(int info, int64_t failed, bool batched)
{
    char where[64] = "";
    if (batched) {
        snprintf(where, sizeof where, ": (Batch element %lld)", (long long)failed);
    }
    if (info == -4) {
        /* LAPACK 3.10+ (OpenBLAS 0.3.15+) reports NaN input as argument 4 */
        ct_error(CT_ERR_LINALG, "linalg.svd%s: The algorithm failed to converge "
                 "because the input matrix contained non-finite values.", where);
    }
    else if (info > 0) {
        ct_error(CT_ERR_LINALG, "linalg.svd%s: The algorithm failed to converge "
                 "because the input matrix is ill-conditioned or has too many "
                 "repeated singular values (error code: %d).", where, info);
    }
    else {
        ct_error(CT_ERR_RUNTIME, "linalg.svd%s: Argument %d has illegal value. Most "
                 "certain there is a bug in the implementation calling the backend "
                 "library.", where, -info);
    }
}

/* The dtype name torch prints in svdvals' out= check (C++ type names). */
static const char *
cpp_type_name(ct_dtype d)
{
    static const char *const names[CT_DTYPE_COUNT] = {
        [CT_DTYPE_UINT8] = "unsigned char", [CT_DTYPE_INT8] = "signed char",
        [CT_DTYPE_INT16] = "short int", [CT_DTYPE_INT32] = "int",
        [CT_DTYPE_INT64] = "long int", [CT_DTYPE_FLOAT16] = "c10::Half",
        [CT_DTYPE_FLOAT32] = "float", [CT_DTYPE_FLOAT64] = "double",
        [CT_DTYPE_BFLOAT16] = "c10::BFloat16", [CT_DTYPE_BOOL] = "bool",
        [CT_DTYPE_QINT8] = "c10::qint8", [CT_DTYPE_QUINT8] = "c10::quint8",
        [CT_DTYPE_QINT32] = "c10::qint32",
    };
    return names[d];
}

/* The singular values of A (checked, floating, numel > 0) as a new
 * [..., k] tensor of A's dtype. */
static ct_tensor *
svdvals_compute(const ct_tensor *A)
{
    int nd = A->ndim;
    int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1], k = m < n ? m : n;
    int64_t count = A->numel / (m * n), failed = 0;
    int64_t sizes[CT_MAX_DIMS];
    ct_tensor *cm = NULL, *view = NULL, *s = NULL;

    if (m > INT_MAX || n > INT_MAX || m * n > INT_MAX) {
        ct_error(CT_ERR_RUNTIME, "linalg.svd: matrices of %lld x %lld elements are "
                 "too large for LAPACK", (long long)m, (long long)n);
        return NULL;
    }
    /* cm is [..., n, m] contiguous: each matrix column-major, ours to overwrite */
    memcpy(sizes, A->sizes, sizeof(int64_t) * (size_t)nd);
    sizes[nd - 2] = n;
    sizes[nd - 1] = m;
    if ((cm = ct_empty(nd, sizes, A->dtype, ct_device_cpu())) == NULL ||
        (view = ct_transpose(A, -2, -1)) == NULL || ct_copy_(cm, view) < 0) {
        goto fail;
    }
    sizes[nd - 2] = k;
    if ((s = ct_empty(nd - 1, sizes, A->dtype, ct_device_cpu())) == NULL) {
        goto fail;
    }
    int info = A->dtype == CT_DTYPE_FLOAT32
                   ? gesdd_batch_s((float *)ct_tensor_data(cm),
                                   (float *)ct_tensor_data(s), (int)m, (int)n, count,
                                   &failed)
                   : gesdd_batch_d((double *)ct_tensor_data(cm),
                                   (double *)ct_tensor_data(s), (int)m, (int)n, count,
                                   &failed);
    if (info != 0) {
        if (!ct_error_occurred()) {
            svd_error(info, failed, nd > 2);
        }
        goto fail;
    }
    ct_tensor_decref(view);
    ct_tensor_decref(cm);
    return s;
fail:
    ct_tensor_decref(s);
    ct_tensor_decref(view);
    ct_tensor_decref(cm);
    return NULL;
}

ct_tensor *
ct_linalg_svdvals(const ct_tensor *A, ct_tensor *out)
{
    if (ct__host_only((const ct_tensor *const[]){A, out}, 2) < 0) {
        return NULL;
    }
    const char *legacy = ct_dtype_table[A->dtype].legacy;
    ct_tensor *s;

    if (A->ndim < 2) {
        ct_error(CT_ERR_RUNTIME, "linalg.svd: The input tensor A must have at least 2 "
                 "dimensions.");
        return NULL;
    }
    if (!ct_dtype_is_floating(A->dtype)) {
        ct_error(CT_ERR_RUNTIME, "linalg.svd: Expected a floating point or complex "
                 "tensor as input. Got %s", legacy);
        return NULL;
    }
    if (out != NULL && out->dtype != A->dtype) {
        ct_error(CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s "
                 "instead", cpp_type_name(A->dtype), cpp_type_name(out->dtype));
        return NULL;
    }
    if (A->numel == 0) {
        /* no kernel runs, so every floating dtype gets its empty result */
        int64_t sizes[CT_MAX_DIMS];
        int nd = A->ndim;
        int64_t m = A->sizes[nd - 2], n = A->sizes[nd - 1];
        memcpy(sizes, A->sizes, sizeof(int64_t) * (size_t)nd);
        sizes[nd - 2] = m < n ? m : n;
        s = ct_empty(nd - 1, sizes, A->dtype, ct_device_cpu());
    }
    else if (A->dtype != CT_DTYPE_FLOAT32 && A->dtype != CT_DTYPE_FLOAT64) {
        ct_error(CT_ERR_RUNTIME, "\"linalg_svd_cpu\" not implemented for '%s'", legacy);
        return NULL;
    }
    else {
        s = svdvals_compute(A);
    }
    if (s == NULL || out == NULL) {
        return s;
    }
    if (ct_iter_check_out(out, CT_OUT_GIVEN, s->ndim, s->sizes, 0, NULL) < 0 ||
        ct_copy_(out, s) < 0) {
        ct_tensor_decref(s);
        return NULL;
    }
    ct_tensor_decref(s);
    ct_tensor_incref(out);
    return out;
}
