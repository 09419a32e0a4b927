/* aten/cpu/linalg_qr.c -- QR decomposition (torch.linalg.qr) by LAPACK's
 * ?geqrf (Householder reflections) and ?orgqr (Q formed from them), which
 * libopenblas exports.
 *
 * Each matrix of the batch is copied into a column-major scratch buffer,
 * as PyTorch hands it to LAPACK, so the same LAPACK gives the same bits.
 * R is the upper triangle of ?geqrf's result (k x n, or m x n for
 * 'complete'); Q is ?orgqr's m x k (m x m for 'complete') matrix.  Only
 * float32 and float64 have a kernel, as on torch's CPU.
 *
 * Ownership as in ops.h.  Thread-safety: nothing is shared between calls.
 */
#include "aten/device.h"
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/loops.h"
#include <ctorch/ops_linalg_qr.h>

void sgeqrf_(const int *m, const int *n, float *a, const int *lda, float *tau,
             float *work, const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
             double *work, const int *lwork, int *info);
void sorgqr_(const int *m, const int *n, const int *k, float *a, const int *lda,
             const float *tau, float *work, const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
             const double *tau, double *work, const int *lwork, int *info);

/* One m x n matrix: src (row-major, contiguous) -> r (rows_r x n) and, when
 * q != NULL, q (m x cols_q), both row-major.  a and qbuf are scratch
 * (m * n and m * cols_q elements), tau k elements.  Returns 0 or -1. */
#define QR_ONE(S, T)                                                            \
    static int qr_one_##S(const T *src, T *q, T *r, int m, int n, int rows_r,  \
                          int cols_q, T *a, T *qbuf, T *tau)                    \
    {                                                                           \
        int k = m < n ? m : n, lda = m > 1 ? m : 1, info = 0, lwork = -1;       \
        T query = 0;                                                            \
        for (int i = 0; i < m; i++) {                                           \
            for (int j = 0; j < n; j++) {                                       \
                a[(size_t)j * m + i] = src[(size_t)i * n + j];                  \
            }                                                                   \
        }                                                                       \
        S##geqrf_(&m, &n, a, &lda, tau, &query, &lwork, &info);                 \
        lwork = (int)query > 1 ? (int)query : 1;                                \
        if (q != NULL) {                                                        \
            int lw2 = -1;                                                       \
            S##orgqr_(&m, &cols_q, &k, qbuf, &lda, tau, &query, &lw2, &info);   \
            if ((int)query > lwork) {                                           \
                lwork = (int)query;                                             \
            }                                                                   \
        }                                                                       \
        T *work = malloc(sizeof(T) * (size_t)lwork);                            \
        if (work == NULL) {                                                     \
            return ct_error(CT_ERR_NOMEM, "linalg.qr: out of memory");         \
        }                                                                       \
        S##geqrf_(&m, &n, a, &lda, tau, work, &lwork, &info);                   \
        for (int i = 0; i < rows_r; i++) {                                      \
            for (int j = 0; j < n; j++) {                                       \
                r[(size_t)i * n + j] = j >= i ? a[(size_t)j * m + i] : 0;       \
            }                                                                   \
        }                                                                       \
        if (q != NULL && m > 0 && cols_q > 0) {                                 \
            /* the reflectors, in the first k columns of an m x cols_q buffer */ \
            memset(qbuf, 0, sizeof(T) * (size_t)m * (size_t)cols_q);            \
            memcpy(qbuf, a, sizeof(T) * (size_t)m * (size_t)k);                 \
            S##orgqr_(&m, &cols_q, &k, qbuf, &lda, tau, work, &lwork, &info);   \
            for (int i = 0; i < m; i++) {                                       \
                for (int j = 0; j < cols_q; j++) {                              \
                    q[(size_t)i * cols_q + j] = qbuf[(size_t)j * m + i];        \
                }                                                               \
            }                                                                   \
        }                                                                       \
        free(work);                                                             \
        return 0;                                                               \
    }
QR_ONE(s, float)
QR_ONE(d, double)
#undef QR_ONE

int
ct_linalg_qr(const ct_tensor *A, int mode, ct_tensor **q, ct_tensor **r)
{
    if (ct__host_only((const ct_tensor *const[]){A}, 1) < 0) {
        return -1;
    }
    ct_tensor *src = NULL, *Q = NULL, *R = NULL;
    void *scratch = NULL;
    int rc = -1;

    *q = *r = NULL;
    if (A->ndim < 2) {
        return ct_error(CT_ERR_RUNTIME, "linalg.qr: The input tensor A must have at "
                        "least 2 dimensions.");
    }
    if (A->dtype != CT_DTYPE_FLOAT32 && A->dtype != CT_DTYPE_FLOAT64) {
        return ct_error(CT_ERR_RUNTIME, "linalg.qr: Expected a floating point or "
                        "complex tensor as input. Got %s",
                        ct_dtype_table[A->dtype].legacy);
    }
    int64_t m64 = A->sizes[A->ndim - 2], n64 = A->sizes[A->ndim - 1];
    if (m64 > INT32_MAX / 2 || n64 > INT32_MAX / 2) {
        return ct_error(CT_ERR_RUNTIME, "linalg.qr: matrix too large for LAPACK");
    }
    int m = (int)m64, n = (int)n64, k = m < n ? m : n;
    int rows_r = mode == 1 ? m : k, cols_q = mode == 1 ? m : k;
    int64_t batch = 1;
    for (int d = 0; d < A->ndim - 2; d++) {
        batch *= A->sizes[d];
    }
    int64_t shape[CT_MAX_DIMS];
    memcpy(shape, A->sizes, sizeof(int64_t) * (size_t)A->ndim);
    shape[A->ndim - 2] = rows_r;
    if ((R = ct_empty(A->ndim, shape, A->dtype, ct_tensor_device(A))) == NULL) {
        goto done;
    }
    if (mode != 2) {
        shape[A->ndim - 2] = m;
        shape[A->ndim - 1] = cols_q;
        if ((Q = ct_empty(A->ndim, shape, A->dtype, ct_tensor_device(A))) == NULL) {
            goto done;
        }
    }
    if ((src = ct_contiguous(A)) == NULL) {
        goto done;
    }
    size_t esz = (size_t)ct_dtype_itemsize(A->dtype);
    size_t na = (size_t)m * (size_t)n;
    size_t nq = (size_t)m * (size_t)(cols_q > 0 ? cols_q : 1);
    scratch = malloc(esz * (na + nq + (size_t)k + 1));
    if (scratch == NULL) {
        ct_error(CT_ERR_NOMEM, "linalg.qr: out of memory");
        goto done;
    }
    for (int64_t b = 0; b < batch; b++) {
        int64_t qoff = b * (int64_t)m * cols_q, roff = b * (int64_t)rows_r * n;
        int err;
        if (A->dtype == CT_DTYPE_FLOAT32) {
            float *s = scratch;
            err = qr_one_s((const float *)ct_tensor_data(src) + b * (int64_t)na,
                           Q ? (float *)ct_tensor_data(Q) + qoff : NULL,
                           (float *)ct_tensor_data(R) + roff, m, n, rows_r, cols_q, s,
                           s + na, s + na + nq);
        }
        else {
            double *s = scratch;
            err = qr_one_d((const double *)ct_tensor_data(src) + b * (int64_t)na,
                           Q ? (double *)ct_tensor_data(Q) + qoff : NULL,
                           (double *)ct_tensor_data(R) + roff, m, n, rows_r, cols_q, s,
                           s + na, s + na + nq);
        }
        if (err < 0) {
            goto done;
        }
    }
    *q = Q;
    *r = R;
    Q = R = NULL;
    rc = 0;
done:
    free(scratch);
    ct_tensor_decref(src);
    ct_tensor_decref(Q);
    ct_tensor_decref(R);
    return rc;
}
