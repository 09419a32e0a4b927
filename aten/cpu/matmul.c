/* aten/cpu/matmul.c -- matrix products: one strided, batched gemm (run on
 * OpenBLAS for float32 / float64, on typed loops for the other dtypes) and
 * the ops that are shapes around it: mm, bmm, mv, dot, matmul, addmm,
 * addmv, baddbmm, addbmm.
 *
 * Ownership as in ops.h.  Thread-safety: OpenBLAS runs its own threads
 * inside one cblas call; nothing here is shared between calls.
 */
#include "aten/device.h"
#include <cblas.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/loops.h"
#include "aten/parallel.h"

/* Note [gemm problems]
 * Every product is one gemm_problem: for each index b of an N-d batch,
 *     C[b] = beta * C[b] + alpha * A[b] @ B[b]      (A: m x k, B: k x n)
 * Each operand is a data pointer, row and column strides and one stride
 * per batch dimension, all in elements; a stride is 0 where the operand is
 * broadcast (a 1-D operand is a row or a column with stride 0 on its
 * other side).  C is always a contiguous tensor that shares no memory with
 * A or B (the ops compute into a temporary when out= cannot be used), so
 * only A and B need a layout check: BLAS takes a matrix whose rows or
 * columns are contiguous with a transpose flag, and anything else is
 * packed into a contiguous scratch copy first.  With `accumulate`, C has
 * no batch strides and every batch after the first adds into it (addbmm).
 */
typedef struct {
    char *data;
    int64_t rs, cs;                 /* row and column strides */
    int64_t bs[CT_MAX_DIMS];        /* batch strides */
} gemm_operand;

typedef struct {
    ct_dtype dtype;
    int nb;                         /* batch dims */
    int64_t bsizes[CT_MAX_DIMS];
    int64_t m, n, k;
    gemm_operand a, b, c;
    ct_scalar alpha, beta;
    bool beta_zero;                 /* C is not read */
    bool accumulate;
} gemm_problem;

/* --- typed loops for the dtypes BLAS does not take ----------------------- */
/* One matrix of the problem: rows of C accumulate in the compute type A in
 * `acc` (n values), k ascending, so the sums of every dtype are formed in
 * the same order; then C = alpha * acc (+ beta * C). */
typedef void (*gemm_loop)(const gemm_problem *p, const char *a, const char *b,
                          char *c, bool beta_zero, void *acc);

#define GEMM_LOOP(E, T, S, A)                                                  \
    __attribute__((target_clones("avx2", "default"))) static void gemm_##S(  \
        const gemm_problem *p, const char *pa, const char *pb, char *pc,       \
        bool beta_zero, void *buf)                                             \
    {                                                                          \
        const T *a = (const T *)pa, *b = (const T *)pb;                        \
        T *c = (T *)pc;                                                        \
        A *acc = buf;                                                          \
        T alpha_v = CT_FROM_SCALAR(S, p->alpha), beta_v = CT_FROM_SCALAR(S, p->beta); \
        A alpha = ct__load_##S(&alpha_v), beta = ct__load_##S(&beta_v);       \
        const int64_t n = p->n, bcs = p->b.cs, ccs = p->c.cs;                  \
        for (int64_t i = 0; i < p->m; i++) {                                   \
            for (int64_t j = 0; j < n; j++) {                                  \
                acc[j] = 0;                                                    \
            }                                                                  \
            for (int64_t l = 0; l < p->k; l++) {                               \
                A x = ct__load_##S(a + i * p->a.rs + l * p->a.cs);             \
                const T *brow = b + l * p->b.rs;                               \
                if (bcs == 1) {                                                \
                    for (int64_t j = 0; j < n; j++) {                          \
                        acc[j] += x * ct__load_##S(brow + j);                  \
                    }                                                          \
                }                                                              \
                else {                                                         \
                    for (int64_t j = 0; j < n; j++) {                          \
                        acc[j] += x * ct__load_##S(brow + j * bcs);            \
                    }                                                          \
                }                                                              \
            }                                                                  \
            T *crow = c + i * p->c.rs;                                         \
            for (int64_t j = 0; j < n; j++) {                                  \
                A r = alpha * acc[j];                                          \
                if (!beta_zero) {                                              \
                    r += beta * ct__load_##S(crow + j * ccs);                  \
                }                                                              \
                ct__store_##S(crow + j * ccs, r);                              \
            }                                                                  \
        }                                                                      \
    }
CT_FORALL_INTEGRAL_DTYPES(GEMM_LOOP)
CT_FORALL_FLOATING_DTYPES(GEMM_LOOP)
#undef GEMM_LOOP

static const gemm_loop gemm_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = gemm_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* Bytes of one compute-type accumulator per dtype. */
static const size_t acc_sizes[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = sizeof(A),
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
};

/* float16 and bfloat16 products run on sgemm: operands are widened to
 * float (packed row-major), the float result is rounded once. */
typedef void (*widen_fn)(float *dst, const char *src, int64_t r, int64_t c, int64_t rs,
                         int64_t cs);
typedef void (*narrow_fn)(char *dst, const float *src, int64_t r, int64_t c,
                          int64_t rs);

#define HALF_CONV(E, T, S, A)                                                   \
    static void widen_##S(float *dst, const char *src, int64_t r, int64_t c,   \
                          int64_t rs, int64_t cs)                              \
    {                                                                          \
        const T *x = (const T *)src;                                           \
        for (int64_t i = 0; i < r; i++) {                                      \
            for (int64_t j = 0; j < c; j++) {                                  \
                dst[i * c + j] = ct__load_##S(x + i * rs + j * cs);            \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void narrow_##S(char *dst, const float *src, int64_t r, int64_t c,  \
                           int64_t rs)                                         \
    {                                                                          \
        T *y = (T *)dst;                                                       \
        for (int64_t i = 0; i < r; i++) {                                      \
            for (int64_t j = 0; j < c; j++) {                                  \
                ct__store_##S(y + i * rs + j, src[i * c + j]);                 \
            }                                                                  \
        }                                                                      \
    }
HALF_CONV(CT_DTYPE_FLOAT16, ct_half, f16, float)
HALF_CONV(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
#undef HALF_CONV

static const widen_fn widen_loops[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = widen_f16, [CT_DTYPE_BFLOAT16] = widen_bf16,
};
static const narrow_fn narrow_loops[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = narrow_f16, [CT_DTYPE_BFLOAT16] = narrow_bf16,
};

/* --- the BLAS path --------------------------------------------------------- */
/* How BLAS can read an r x c matrix with strides (rs, cs): row-major with
 * leading dimension ld (trans false), or as the transpose of a row-major
 * c x r matrix (trans true).  False when neither layout fits. */
static bool
blas_layout(int64_t r, int64_t c, int64_t rs, int64_t cs, bool *trans, int *ld)
{
    int64_t rmin = r > 1 ? r : 1, cmin = c > 1 ? c : 1;
    if (r > INT_MAX || c > INT_MAX) {
        return false;
    }
    if (cs == 1 || c == 1) {
        int64_t l = r == 1 ? cmin : rs;
        if (l >= cmin && l <= INT_MAX) {
            *trans = false;
            *ld = (int)l;
            return true;
        }
    }
    if (rs == 1 || r == 1) {
        int64_t l = c == 1 ? rmin : cs;
        if (l >= rmin && l <= INT_MAX) {
            *trans = true;
            *ld = (int)l;
            return true;
        }
    }
    return false;
}

/* Copy an r x c strided matrix of itemsize z into dst, row-major. */
static void
pack_matrix(char *dst, const char *src, int64_t r, int64_t c, int64_t rs, int64_t cs,
            size_t z)
{
    for (int64_t i = 0; i < r; i++) {
        for (int64_t j = 0; j < c; j++) {
            memcpy(dst + (size_t)(i * c + j) * z, src + (size_t)(i * rs + j * cs) * z,
                   z);
        }
    }
}

/* One float32 / float64 matrix product on BLAS.  a and b are BLAS
 * layouts (see blas_layout); c is row-major with ldc = max(n, 1). */
static void
blas_one(const gemm_problem *p, const char *a, bool ta, int lda, const char *b,
         bool tb, int ldb, char *c, bool beta_zero)
{
    int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    int ldc = n > 1 ? n : 1;
    /* strides of the vector views used by the gemv / dot forms */
    int a_row_inc = ta ? lda : 1, b_col_inc = tb ? 1 : ldb;
    double alpha = ct_scalar_to_double(p->alpha);
    double beta = beta_zero ? 0.0 : ct_scalar_to_double(p->beta);
    bool f32 = p->dtype == CT_DTYPE_FLOAT32;

    if (m == 1 && n == 1) {
        double d = f32 ? (double)cblas_sdot(k, (const float *)a, a_row_inc,
                                            (const float *)b, b_col_inc)
                       : cblas_ddot(k, (const double *)a, a_row_inc,
                                    (const double *)b, b_col_inc);
        if (f32) {
            float *o = (float *)c;
            float r = (float)alpha * (float)d;
            *o = beta_zero ? r : r + (float)beta * *o;
        }
        else {
            double *o = (double *)c;
            double r = alpha * d;
            *o = beta_zero ? r : r + beta * *o;
        }
        return;
    }
    if (beta_zero) {
        /* gemv scales y by beta first: make that 0 * 0, never 0 * NaN */
        memset(c, 0, (size_t)(m * n) * ct_dtype_itemsize(p->dtype));
    }
    if (n == 1) {
        /* y[m] = A x: A as stored, x a column of B */
        CBLAS_TRANSPOSE t = ta ? CblasTrans : CblasNoTrans;
        int rows = ta ? k : m, cols = ta ? m : k;
        if (f32) {
            cblas_sgemv(CblasRowMajor, t, rows, cols, (float)alpha, (const float *)a,
                        lda, (const float *)b, b_col_inc, (float)beta, (float *)c, 1);
        }
        else {
            cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, (const double *)a, lda,
                        (const double *)b, b_col_inc, beta, (double *)c, 1);
        }
        return;
    }
    if (m == 1) {
        /* y[n] = B^T x: x a row of A */
        CBLAS_TRANSPOSE t = tb ? CblasNoTrans : CblasTrans;
        int rows = tb ? n : k, cols = tb ? k : n;
        if (f32) {
            cblas_sgemv(CblasRowMajor, t, rows, cols, (float)alpha, (const float *)b,
                        ldb, (const float *)a, a_row_inc, (float)beta, (float *)c, 1);
        }
        else {
            cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, (const double *)b, ldb,
                        (const double *)a, a_row_inc, beta, (double *)c, 1);
        }
        return;
    }
    CBLAS_TRANSPOSE tra = ta ? CblasTrans : CblasNoTrans;
    CBLAS_TRANSPOSE trb = tb ? CblasTrans : CblasNoTrans;
    if (f32) {
        cblas_sgemm(CblasRowMajor, tra, trb, m, n, k, (float)alpha, (const float *)a,
                    lda, (const float *)b, ldb, (float)beta, (float *)c, ldc);
    }
    else {
        cblas_dgemm(CblasRowMajor, tra, trb, m, n, k, alpha, (const double *)a, lda,
                    (const double *)b, ldb, beta, (double *)c, ldc);
    }
}

static bool
uses_blas(const gemm_problem *p)
{
    return (p->dtype == CT_DTYPE_FLOAT32 || p->dtype == CT_DTYPE_FLOAT64) &&
           p->m <= INT_MAX && p->n <= INT_MAX && p->k <= INT_MAX;
}

/* C[b] = alpha * 0 + beta * C[b] for an empty k (BLAS is not asked). */
static int
scale_by_beta(const gemm_problem *p, ct_tensor *c)
{
    if (p->beta_zero) {
        return ct_fill_(c, ct_scalar_int(0));
    }
    ct_tensor *bt = ct_scalar_tensor(p->beta);
    if (bt == NULL) {
        return -1;
    }
    ct_tensor *r = ct_binary(CT_BINARY_MUL, c, bt, ct_scalar_int(1), c,
                             CT_OUT_INPLACE);
    ct_tensor_decref(bt);
    ct_tensor_decref(r);
    return r == NULL ? -1 : 0;
}

/* What a range of batch indices needs: the layouts chosen once, scratch
 * allocated per range (ranges may run on different threads). */
typedef struct {
    const gemm_problem *p;
    int64_t nbatch;
    int64_t rblocks;                /* row blocks per matrix (typed loops) */
    bool blas, pack_a, pack_b, ta, tb;
    bool via_float;                 /* float16 / bfloat16 on sgemm */
    int lda, ldb;
    atomic_int failed;
} gemm_job;

/* Batch indices [lo, hi) of the job; -1 when scratch memory ran out. */
static int
gemm_range(gemm_job *job, int64_t lo, int64_t hi)
{
    const gemm_problem *p = job->p;
    size_t z = ct_dtype_itemsize(p->dtype);
    char *scratch_a = NULL, *scratch_b = NULL;
    void *acc = NULL;
    int rc = -1;

    if (job->pack_a && (scratch_a = malloc((size_t)(p->m * p->k) * z)) == NULL) {
        goto done;
    }
    if (job->pack_b && (scratch_b = malloc((size_t)(p->k * p->n) * z)) == NULL) {
        goto done;
    }
    if (job->via_float) {
        /* one float block: A (m x k), B (k x n), C (m x n) */
        acc = malloc((size_t)(p->m * p->k + p->k * p->n + p->m * p->n) * sizeof(float));
        if (acc == NULL) {
            goto done;
        }
    }
    else if (!job->blas &&
             (acc = malloc((size_t)p->n * acc_sizes[p->dtype])) == NULL) {
        goto done;
    }
    /* unit u is row block u % rblocks of batch index u / rblocks */
    for (int64_t u = lo; u < hi; u++) {
        int64_t it = u / job->rblocks, rb = u % job->rblocks;
        int64_t r0 = p->m * rb / job->rblocks, r1 = p->m * (rb + 1) / job->rblocks;
        const char *a = p->a.data, *b = p->b.data;
        char *cm = p->c.data;
        int64_t rest = it;
        for (int d = p->nb - 1; d >= 0; d--) {
            int64_t i = rest % p->bsizes[d];
            rest /= p->bsizes[d];
            a += i * p->a.bs[d] * (int64_t)z;
            b += i * p->b.bs[d] * (int64_t)z;
            cm += i * p->c.bs[d] * (int64_t)z;
        }
        a += r0 * p->a.rs * (int64_t)z;
        cm += r0 * p->c.rs * (int64_t)z;
        /* addbmm: every batch after the first adds into C */
        bool beta_zero = p->beta_zero && !(p->accumulate && it > 0);
        gemm_problem q = *p;
        q.m = r1 - r0;
        if (p->accumulate && it > 0) {
            q.beta = ct_scalar_int(1);
        }
        if (job->via_float) {
            float *fa = acc, *fb = fa + p->m * p->k, *fc = fb + p->k * p->n;
            gemm_problem f = q;
            f.dtype = CT_DTYPE_FLOAT32;
            widen_loops[p->dtype](fa, a, p->m, p->k, p->a.rs, p->a.cs);
            widen_loops[p->dtype](fb, b, p->k, p->n, p->b.rs, p->b.cs);
            if (!beta_zero) {
                widen_loops[p->dtype](fc, cm, p->m, p->n, p->c.rs, 1);
            }
            blas_one(&f, (const char *)fa, false, (int)(p->k > 1 ? p->k : 1),
                     (const char *)fb, false, (int)(p->n > 1 ? p->n : 1), (char *)fc,
                     beta_zero);
            narrow_loops[p->dtype](cm, fc, p->m, p->n, p->c.rs);
        }
        else if (job->blas) {
            if (job->pack_a) {
                pack_matrix(scratch_a, a, p->m, p->k, p->a.rs, p->a.cs, z);
                a = scratch_a;
            }
            if (job->pack_b) {
                pack_matrix(scratch_b, b, p->k, p->n, p->b.rs, p->b.cs, z);
                b = scratch_b;
            }
            blas_one(&q, a, job->ta, job->lda, b, job->tb, job->ldb, cm, beta_zero);
        }
        else {
            gemm_loops[p->dtype](&q, a, b, cm, beta_zero, acc);
        }
    }
    rc = 0;
done:
    free(scratch_a);
    free(scratch_b);
    free(acc);
    return rc;
}

static void
gemm_part(void *ctx, int tid, int nthreads)
{
    gemm_job *job = ctx;
    int64_t units = job->nbatch * job->rblocks;
    int64_t lo = units * tid / nthreads, hi = units * (tid + 1) / nthreads;
    if (lo < hi && gemm_range(job, lo, hi) < 0) {
        atomic_store(&job->failed, 1);
    }
}

/* Products at most this big (m * n * k) run on one OpenBLAS thread, so
 * batches of them are split across ctorch's threads instead. */
#define BLAS_SINGLE_THREAD_MNK 262144
/* Below this many multiply-adds in all, a batch stays on one thread. */
#define GEMM_GRAIN 65536

/* Run the problem (Note [gemm problems]); c is the contiguous tensor that
 * p->c describes.  0, or -1 with the error set. */
static int
gemm_run(const gemm_problem *p, ct_tensor *c)
{
    gemm_job job = {.p = p, .nbatch = 1, .rblocks = 1};
    for (int d = 0; d < p->nb; d++) {
        job.nbatch *= p->bsizes[d];
    }
    if (job.nbatch == 0 || p->m == 0 || p->n == 0) {
        return 0;
    }
    if (p->k == 0) {
        return scale_by_beta(p, c);
    }
    job.blas = uses_blas(p);
    job.via_float = widen_loops[p->dtype] != NULL && p->m <= INT_MAX &&
                    p->n <= INT_MAX && p->k <= INT_MAX;
    job.pack_a = job.blas &&
                 !blas_layout(p->m, p->k, p->a.rs, p->a.cs, &job.ta, &job.lda);
    job.pack_b = job.blas &&
                 !blas_layout(p->k, p->n, p->b.rs, p->b.cs, &job.tb, &job.ldb);
    if (job.pack_a) {
        job.ta = false;
        job.lda = (int)(p->k > 1 ? p->k : 1);
    }
    if (job.pack_b) {
        job.tb = false;
        job.ldb = (int)(p->n > 1 ? p->n : 1);
    }
    atomic_init(&job.failed, 0);
    int64_t mnk = p->m * p->n * p->k;
    int nthreads = ct__parallel_threads();
    /* the typed loops also split a matrix's rows when batches are few */
    bool typed = !(job.blas || job.via_float);
    if (typed && !p->accumulate && job.nbatch < nthreads && p->m > 1) {
        job.rblocks = p->m < nthreads ? p->m : nthreads;
    }
    /* gemv and dot shapes keep OpenBLAS's own threading */
    bool split = !p->accumulate && job.nbatch * job.rblocks > 1 && nthreads > 1 &&
                 mnk * job.nbatch >= GEMM_GRAIN &&
                 (typed ||
                  (mnk <= BLAS_SINGLE_THREAD_MNK && p->m > 1 && p->n > 1));
    if (split) {
        if (nthreads > job.nbatch * job.rblocks) {
            nthreads = (int)(job.nbatch * job.rblocks);
        }
        ct__parallel_run(nthreads, gemm_part, &job);
    }
    else if (gemm_range(&job, 0, job.nbatch * job.rblocks) < 0) {
        atomic_store(&job.failed, 1);
    }
    if (atomic_load(&job.failed)) {
        return ct_error(CT_ERR_NOMEM, "matmul: out of memory for a scratch matrix");
    }
    return 0;
}

/* --- on a device: cuBLAS through the CUDA part ----------------------------
 * A row-major C = A B is the column-major C^T = B^T A^T, so the part's
 * gemm gets B as its first operand and A as its second, each with the
 * (trans, ld) blas_layout finds for it.  Operands cuBLAS cannot read (no
 * unit stride, or batch dims that no single stride walks) are first
 * copied to a contiguous tensor on the device. */

/* The batch stride that walks o's batch dims as one, or -1. */
static int64_t
one_batch_stride(const gemm_operand *o, const gemm_problem *p)
{
    int64_t st = -1, next = 0;
    for (int d = p->nb - 1; d >= 0; d--) {
        if (p->bsizes[d] == 1) {
            continue;
        }
        if (st >= 0 && o->bs[d] != next) {
            return -1;
        }
        if (st < 0) {
            st = o->bs[d];
        }
        next = o->bs[d] * p->bsizes[d];
    }
    return st < 0 ? 0 : st;
}

/* Make o (rows x cols of owner's storage) readable by cuBLAS: a new
 * reference to the packed copy in *keep, or NULL when o already is. */
static int
device_operand(gemm_operand *o, const gemm_problem *p, const ct_tensor *owner, int64_t rows,
               int64_t cols, ct_tensor **keep)
{
    bool trans;
    int ld;
    *keep = NULL;
    if (blas_layout(rows, cols, o->rs, o->cs, &trans, &ld) && one_batch_stride(o, p) >= 0) {
        return 0;
    }
    int64_t sizes[CT_MAX_DIMS], strides[CT_MAX_DIMS];
    for (int d = 0; d < p->nb; d++) {
        sizes[d] = p->bsizes[d];
        strides[d] = o->bs[d];
    }
    sizes[p->nb] = rows;
    sizes[p->nb + 1] = cols;
    strides[p->nb] = o->rs;
    strides[p->nb + 1] = o->cs;
    int64_t item = (int64_t)ct_dtype_itemsize(p->dtype);
    ct_tensor *v = ct_tensor_new(owner->storage, (o->data - owner->storage->data) / item,
                                 p->nb + 2, sizes, strides, p->dtype);
    ct_tensor *c = v != NULL ? ct_contiguous(v) : NULL;
    ct_tensor_decref(v);
    if (c == NULL) {
        return -1;
    }
    o->data = ct_tensor_data(c);
    o->rs = cols;
    o->cs = 1;
    int64_t st = rows * cols;
    for (int d = p->nb - 1; d >= 0; d--) {
        o->bs[d] = st;
        st *= p->bsizes[d];
    }
    *keep = c;
    return 0;
}

static int
device_gemm(gemm_problem *p, ct_tensor *c, const ct_tensor *a, const ct_tensor *b)
{
    int64_t nbatch = 1;
    for (int d = 0; d < p->nb; d++) {
        nbatch *= p->bsizes[d];
    }
    if (ct__device_supports(CT_CUDA_GEMM, 0, p->dtype, c) < 0) {
        return -1;
    }
    if (nbatch == 0 || p->m == 0 || p->n == 0) {
        return 0;
    }
    if (p->k == 0) {
        return scale_by_beta(p, c);
    }
    ct_tensor *ka = NULL, *kb = NULL;
    int rc = -1;
    if (device_operand(&p->a, p, a, p->m, p->k, &ka) < 0 ||
        device_operand(&p->b, p, b, p->k, p->n, &kb) < 0) {
        goto done;
    }
    bool ta, tb;
    int lda, ldb;
    if (!blas_layout(p->m, p->k, p->a.rs, p->a.cs, &ta, &lda) ||
        !blas_layout(p->k, p->n, p->b.rs, p->b.cs, &tb, &ldb)) {
        ct_error(CT_ERR_RUNTIME, "ctorch: matrices of more than 2^31-1 rows or columns "
                 "are not supported on CUDA devices");
        goto done;
    }
    double alpha = ct_scalar_to_double(p->alpha);
    double beta = p->beta_zero ? 0 : ct_scalar_to_double(p->beta);
    int64_t sa = one_batch_stride(&p->a, p), sb = one_batch_stride(&p->b, p);
    if (!p->accumulate) {
        rc = ct__device_gemm(c, p->dtype, tb, ta, p->n, p->m, p->k, alpha, p->b.data, ldb,
                             sb, p->a.data, lda, sa, beta, p->c.data, p->n, p->m * p->n,
                             nbatch);
        goto done;
    }
    /* addbmm: every batch adds into the one C, in order */
    int64_t item = (int64_t)ct_dtype_itemsize(p->dtype);
    rc = 0;
    for (int64_t i = 0; i < nbatch && rc == 0; i++) {
        rc = ct__device_gemm(c, p->dtype, tb, ta, p->n, p->m, p->k, alpha,
                             p->b.data + i * sb * item, ldb, 0, p->a.data + i * sa * item,
                             lda, 0, i == 0 ? beta : 1, p->c.data, p->n, 0, 1);
    }
done:
    ct_tensor_decref(ka);
    ct_tensor_decref(kb);
    return rc;
}

/* --- operands ----------------------------------------------------------- */
/* How a tensor enters a problem. */
typedef enum {
    AS_MATRIX,      /* its last two dims */
    AS_ROW,         /* a 1-D tensor as a 1 x k row */
    AS_COLUMN,      /* a 1-D tensor as a k x 1 column */
} operand_kind;

/* Fill o from t; t's leading dims align right with the problem's batch
 * dims, and missing or size-1 ones broadcast (stride 0). */
static void
operand_from(gemm_operand *o, const ct_tensor *t, operand_kind kind, int nb)
{
    int nd = t->ndim;
    o->data = ct_tensor_data(t);
    if (kind == AS_MATRIX) {
        o->rs = t->strides[nd - 2];
        o->cs = t->strides[nd - 1];
    }
    else {
        o->rs = kind == AS_ROW ? 0 : t->strides[nd - 1];
        o->cs = kind == AS_ROW ? t->strides[nd - 1] : 0;
    }
    int tb = nd - (kind == AS_MATRIX ? 2 : 1);
    for (int d = 0; d < nb; d++) {
        int td = d - (nb - tb);
        o->bs[d] = (td >= 0 && t->sizes[td] != 1) ? t->strides[td] : 0;
    }
}

/* torch's C++ type names, used by the out= dtype message. */
static const char *const cpp_names[CT_DTYPE_COUNT] = {
    [CT_DTYPE_BOOL] = "bool", [CT_DTYPE_UINT8] = "unsigned char",
    [CT_DTYPE_INT8] = "signed char", [CT_DTYPE_INT16] = "short int",
    [CT_DTYPE_INT32] = "int", [CT_DTYPE_INT64] = "long int",
    [CT_DTYPE_FLOAT16] = "c10::Half", [CT_DTYPE_FLOAT32] = "float",
    [CT_DTYPE_FLOAT64] = "double", [CT_DTYPE_BFLOAT16] = "c10::BFloat16",
    [CT_DTYPE_QINT8] = "c10::qint8", [CT_DTYPE_QUINT8] = "c10::quint8",
    [CT_DTYPE_QINT32] = "c10::qint32",
};

static const char *
legacy(ct_dtype d)
{
    return ct_dtype_table[d].legacy;
}

/* "expected scalar type A but found B" unless both dtypes are `want`. */
static int
check_same_dtype(const ct_tensor *a, const ct_tensor *b)
{
    if (a->dtype != b->dtype) {
        return ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        legacy(a->dtype), legacy(b->dtype));
    }
    return 0;
}

/* torch's "not implemented" error for dtypes without a kernel (bool and
 * the quantized types). */
static int
check_kernel(const char *kernel, ct_dtype d)
{
    if (gemm_loops[d] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                        legacy(d));
    }
    return 0;
}

static bool
scalar_is_zero(ct_scalar s)
{
    return ct_scalar_to_double(s) == 0.0;
}

/* True when a and b may share memory. */
static bool
shares_storage(const ct_tensor *a, const ct_tensor *b)
{
    return b != NULL && a->storage == b->storage;
}

/* Finish a problem whose operands a and b are set: allocate or check the
 * result of `shape` (C contiguous over batch x m x n in the same element
 * order), start it from `self` broadcast when beta matters, run, and
 * write out=.  Returns a new reference, or NULL with the error set. */
static ct_tensor *
product_finish(gemm_problem *p, int ndim, const int64_t *shape, const ct_tensor *self,
               const ct_tensor *a, const ct_tensor *b, ct_tensor *out, ct_out_mode mode)
{
    ct_tensor *dst = NULL;

    if (out != NULL) {
        if (mode != CT_OUT_INPLACE && out->dtype != p->dtype) {
            ct_error(CT_ERR_RUNTIME, "Expected out tensor to have dtype %s, but got %s "
                     "instead", cpp_names[p->dtype], cpp_names[out->dtype]);
            return NULL;
        }
        if (mode == CT_OUT_INPLACE && out->dtype != p->dtype) {
            ct_error(CT_ERR_RUNTIME, "Bad in-place call: input tensor dtype %s and "
                     "output tensor dtype %s should match", cpp_names[out->dtype],
                     cpp_names[p->dtype]);
            return NULL;
        }
        if (mode == CT_OUT_INPLACE &&
            (out->ndim != ndim ||
             memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0)) {
            char b1[256], b2[256];
            ct_error(CT_ERR_RUNTIME, "Bad in-place call: input tensor size %s and "
                     "output tensor size %s should match",
                     ct_format_sizes(out->ndim, out->sizes, b1, sizeof b1),
                     ct_format_sizes(ndim, shape, b2, sizeof b2));
            return NULL;
        }
        if (ct_iter_check_out(out, mode, ndim, shape, 0, NULL) < 0) {
            return NULL;
        }
    }
    bool use_self = self != NULL && !p->beta_zero;
    if (out != NULL && out->dtype == p->dtype && ct_tensor_is_contiguous(out) &&
        !shares_storage(out, a) &&
        !shares_storage(out, b) && (out == self || !shares_storage(out, self))) {
        ct_tensor_incref(out);
        dst = out;
    }
    else {
        dst = ct_empty(ndim, shape, p->dtype, ct_tensor_device(a));
        if (dst == NULL) {
            return NULL;
        }
    }
    if (use_self && dst != self && ct_copy_(dst, self) < 0) {
        goto fail;
    }
    p->c.data = ct_tensor_data(dst);
    p->c.cs = 1;
    p->c.rs = p->n;
    int64_t st = p->m * p->n;
    for (int d = p->nb - 1; d >= 0; d--) {
        p->c.bs[d] = p->accumulate ? 0 : st;
        st *= p->bsizes[d];
    }
    if ((ct__is_device(dst) ? device_gemm(p, dst, a, b) : gemm_run(p, dst)) < 0) {
        goto fail;
    }
    if (out != NULL && dst != out) {
        if (ct_copy_(out, dst) < 0) {
            goto fail;
        }
        ct_tensor_decref(dst);
        ct_tensor_incref(out);
        dst = out;
    }
    return dst;
fail:
    ct_tensor_decref(dst);
    return NULL;
}

static void
problem_init(gemm_problem *p, ct_dtype dtype, int64_t m, int64_t n, int64_t k)
{
    memset(p, 0, sizeof *p);
    p->dtype = dtype;
    p->m = m;
    p->n = n;
    p->k = k;
    p->alpha = ct_scalar_int(1);
    p->beta = ct_scalar_int(0);
    p->beta_zero = true;
}

/* beta / alpha of the add* ops; beta == 0 leaves self unread. */
static void
problem_scale(gemm_problem *p, const ct_tensor *self, ct_scalar beta, ct_scalar alpha)
{
    p->alpha = alpha;
    p->beta = beta;
    p->beta_zero = self == NULL || scalar_is_zero(beta);
}

/* self must broadcast to shape (torch's expand message). */
static int
check_self(const ct_tensor *self, int ndim, const int64_t *shape)
{
    ct_tensor *e = ct_expand(self, ndim, shape);
    if (e == NULL) {
        return -1;
    }
    ct_tensor_decref(e);
    return 0;
}

/* --- the ops ------------------------------------------------------------ */
static int
check_mm(const ct_tensor *a, const ct_tensor *b, const char *kernel)
{
    if (check_same_dtype(a, b) < 0 || check_kernel(kernel, a->dtype) < 0) {
        return -1;
    }
    if (a->sizes[1] != b->sizes[0]) {
        return ct_error(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied "
                        "(%lldx%lld and %lldx%lld)", (long long)a->sizes[0],
                        (long long)a->sizes[1], (long long)b->sizes[0],
                        (long long)b->sizes[1]);
    }
    return 0;
}

/* a [m, k] (or a 1-D row when a_row) @ b [k, n]: the mm kernel. */
static ct_tensor *
mm_impl(const ct_tensor *self, const ct_tensor *a, const ct_tensor *b, ct_scalar beta,
        ct_scalar alpha, ct_tensor *out, ct_out_mode mode, int ndim,
        const int64_t *shape)
{
    gemm_problem p;
    problem_init(&p, a->dtype, a->sizes[0], b->sizes[1], a->sizes[1]);
    problem_scale(&p, self, beta, alpha);
    operand_from(&p.a, a, AS_MATRIX, 0);
    operand_from(&p.b, b, AS_MATRIX, 0);
    return product_finish(&p, ndim, shape, self, a, b, out, mode);
}

ct_tensor *
ct_mm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){a, b, out}, 3) < 0) {
        return NULL;
    }
    if (a->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "self must be a matrix");
        return NULL;
    }
    if (b->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "mat2 must be a matrix");
        return NULL;
    }
    if (check_mm(a, b, "addmm_impl_cpu_") < 0) {
        return NULL;
    }
    int64_t shape[2] = {a->sizes[0], b->sizes[1]};
    return mm_impl(NULL, a, b, ct_scalar_int(0), ct_scalar_int(1), out,
                   out ? CT_OUT_GIVEN : CT_OUT_NEW, 2, shape);
}

ct_tensor *
ct_addmm(const ct_tensor *self, const ct_tensor *mat1, const ct_tensor *mat2,
         ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    if (ct__same_device((const ct_tensor *const[]){self, mat1, mat2, out}, 4) < 0) {
        return NULL;
    }
    if (mat1->ndim != 2 || mat2->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "%s must be a matrix, got %d-D tensor",
                 mat1->ndim != 2 ? "mat1" : "mat2",
                 mat1->ndim != 2 ? mat1->ndim : mat2->ndim);
        return NULL;
    }
    if (mat1->dtype != mat2->dtype) {
        ct_error(CT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
        return NULL;
    }
    if (self->dtype != mat2->dtype) {
        ct_error(CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
        return NULL;
    }
    if (check_mm(mat1, mat2, "addmm_impl_cpu_") < 0) {
        return NULL;
    }
    int64_t shape[2] = {mat1->sizes[0], mat2->sizes[1]};
    if (mode == CT_OUT_INPLACE) {
        if (self->ndim != 2 || self->sizes[0] != shape[0] ||
            self->sizes[1] != shape[1]) {
            char b1[256], b2[256];
            ct_error(CT_ERR_RUNTIME, "Bad in-place call: input tensor size %s and "
                     "output tensor size %s should match",
                     ct_format_sizes(self->ndim, self->sizes, b1, sizeof b1),
                     ct_format_sizes(2, shape, b2, sizeof b2));
            return NULL;
        }
    }
    else if (check_self(self, 2, shape) < 0) {
        return NULL;
    }
    return mm_impl(self, mat1, mat2, beta, alpha, out, mode, 2, shape);
}

static int
check_bmm(const ct_tensor *a, const ct_tensor *b)
{
    if (a->ndim != 3) {
        return ct_error(CT_ERR_RUNTIME, "batch1 must be a 3D tensor");
    }
    if (b->ndim != 3) {
        return ct_error(CT_ERR_RUNTIME, "batch2 must be a 3D tensor");
    }
    if (check_same_dtype(a, b) < 0 || check_kernel("bmm", a->dtype) < 0) {
        return -1;
    }
    if (b->sizes[0] != a->sizes[0] || b->sizes[1] != a->sizes[2]) {
        return ct_error(CT_ERR_RUNTIME, "Expected size for first two dimensions of "
                        "batch2 tensor to be: [%lld, %lld] but got: [%lld, %lld].",
                        (long long)a->sizes[0], (long long)a->sizes[2],
                        (long long)b->sizes[0], (long long)b->sizes[1]);
    }
    return 0;
}

static ct_tensor *
bmm_impl(const ct_tensor *self, const ct_tensor *a, const ct_tensor *b, ct_scalar beta,
         ct_scalar alpha, ct_tensor *out, ct_out_mode mode, bool accumulate)
{
    gemm_problem p;
    problem_init(&p, a->dtype, a->sizes[1], b->sizes[2], a->sizes[2]);
    problem_scale(&p, self, beta, alpha);
    p.nb = 1;
    p.bsizes[0] = a->sizes[0];
    p.accumulate = accumulate;
    operand_from(&p.a, a, AS_MATRIX, 1);
    operand_from(&p.b, b, AS_MATRIX, 1);
    int64_t shape3[3] = {a->sizes[0], a->sizes[1], b->sizes[2]};
    if (accumulate) {
        return product_finish(&p, 2, shape3 + 1, self, a, b, out, mode);
    }
    return product_finish(&p, 3, shape3, self, a, b, out, mode);
}

ct_tensor *
ct_bmm(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){a, b, out}, 3) < 0) {
        return NULL;
    }
    if (check_bmm(a, b) < 0) {
        return NULL;
    }
    return bmm_impl(NULL, a, b, ct_scalar_int(0), ct_scalar_int(1), out,
                    out ? CT_OUT_GIVEN : CT_OUT_NEW, false);
}

/* Shared checks of baddbmm / addbmm; shape is the result's. */
static int
check_add_bmm(const ct_tensor *self, const ct_tensor *a, const ct_tensor *b,
              ct_out_mode mode, int ndim, const int64_t *shape)
{
    if (check_bmm(a, b) < 0) {
        return -1;
    }
    /* addbmm checks dtypes, baddbmm converts self */
    if (ndim == 2 && self->dtype != a->dtype) {
        return ct_error(CT_ERR_RUNTIME, "self and mat2 must have the same dtype");
    }
    if (mode == CT_OUT_INPLACE) {
        if (self->ndim != ndim ||
            memcmp(self->sizes, shape, sizeof(int64_t) * (size_t)ndim) != 0) {
            char b1[256], b2[256];
            return ct_error(CT_ERR_RUNTIME, "Bad in-place call: input tensor size %s "
                            "and output tensor size %s should match",
                            ct_format_sizes(self->ndim, self->sizes, b1, sizeof b1),
                            ct_format_sizes(ndim, shape, b2, sizeof b2));
        }
        return 0;
    }
    return check_self(self, ndim, shape);
}

ct_tensor *
ct_baddbmm(const ct_tensor *self, const ct_tensor *batch1, const ct_tensor *batch2,
           ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    if (ct__same_device((const ct_tensor *const[]){self, batch1, batch2, out}, 4) < 0) {
        return NULL;
    }
    if (batch1->ndim == 3 && batch2->ndim == 3) {
        int64_t shape[3] = {batch1->sizes[0], batch1->sizes[1], batch2->sizes[2]};
        if (check_add_bmm(self, batch1, batch2, mode, 3, shape) < 0) {
            return NULL;
        }
    }
    else if (check_bmm(batch1, batch2) < 0) {
        return NULL;
    }
    return bmm_impl(self, batch1, batch2, beta, alpha, out, mode, false);
}

ct_tensor *
ct_addbmm(const ct_tensor *self, const ct_tensor *batch1, const ct_tensor *batch2,
          ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    if (ct__same_device((const ct_tensor *const[]){self, batch1, batch2, out}, 4) < 0) {
        return NULL;
    }
    if (batch1->ndim != 3 || batch2->ndim != 3) {
        ct_error(CT_ERR_RUNTIME, "%s must be a 3D tensor",
                 batch1->ndim != 3 ? "batch1" : "batch2");
        return NULL;
    }
    if (batch1->sizes[2] != batch2->sizes[1]) {
        ct_error(CT_ERR_RUNTIME, "Incompatible matrix sizes for bmm (%lldx%lld and "
                 "%lldx%lld)", (long long)batch1->sizes[1], (long long)batch1->sizes[2],
                 (long long)batch2->sizes[1], (long long)batch2->sizes[2]);
        return NULL;
    }
    int64_t shape[2] = {batch1->sizes[1], batch2->sizes[2]};
    if (check_add_bmm(self, batch1, batch2, mode, 2, shape) < 0) {
        return NULL;
    }
    return bmm_impl(self, batch1, batch2, beta, alpha, out, mode, true);
}

/* mat [m, k] @ vec [k] (+ beta * self). */
static ct_tensor *
mv_impl(const ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
        ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    if (mat->ndim != 2 || vec->ndim != 1 || (self != NULL && self->ndim > 1)) {
        ct_error(CT_ERR_RUNTIME, "vector + matrix @ vector expected, got %d, %d, %d",
                 self != NULL ? self->ndim : 1, mat->ndim, vec->ndim);
        return NULL;
    }
    if (check_same_dtype(mat, vec) < 0 ||
        check_kernel("addmv_impl_cpu", mat->dtype) < 0) {
        return NULL;
    }
    int64_t m = mat->sizes[0];
    int64_t self_n = self != NULL ? self->numel : m;
    if (mat->sizes[1] != vec->sizes[0] || (self_n != m && self_n != 1)) {
        ct_error(CT_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld",
                 (long long)self_n, (long long)m, (long long)mat->sizes[1],
                 (long long)vec->sizes[0]);
        return NULL;
    }
    if (self != NULL && mode == CT_OUT_INPLACE && self->numel != m) {
        char b1[256], b2[256];
        ct_error(CT_ERR_RUNTIME, "Bad in-place call: input tensor size %s and output "
                 "tensor size %s should match",
                 ct_format_sizes(self->ndim, self->sizes, b1, sizeof b1),
                 ct_format_sizes(1, &m, b2, sizeof b2));
        return NULL;
    }
    gemm_problem p;
    problem_init(&p, mat->dtype, m, 1, mat->sizes[1]);
    problem_scale(&p, self, beta, alpha);
    operand_from(&p.a, mat, AS_MATRIX, 0);
    operand_from(&p.b, vec, AS_COLUMN, 0);
    return product_finish(&p, 1, &m, self, mat, vec, out, mode);
}

ct_tensor *
ct_mv(const ct_tensor *mat, const ct_tensor *vec, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){mat, vec, out}, 3) < 0) {
        return NULL;
    }
    return mv_impl(NULL, mat, vec, ct_scalar_int(0), ct_scalar_int(1), out,
                   out ? CT_OUT_GIVEN : CT_OUT_NEW);
}

ct_tensor *
ct_addmv(const ct_tensor *self, const ct_tensor *mat, const ct_tensor *vec,
         ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    if (ct__same_device((const ct_tensor *const[]){self, mat, vec, out}, 4) < 0) {
        return NULL;
    }
    return mv_impl(self, mat, vec, beta, alpha, out, mode);
}

ct_tensor *
ct_dot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){a, b, out}, 3) < 0) {
        return NULL;
    }
    if (a->ndim != 1 || b->ndim != 1) {
        ct_error(CT_ERR_RUNTIME, "1D tensors expected, but got %dD and %dD tensors",
                 a->ndim, b->ndim);
        return NULL;
    }
    if (a->dtype != b->dtype) {
        ct_error(CT_ERR_RUNTIME, "dot : expected both vectors to have same dtype, but "
                 "found %s and %s", legacy(a->dtype), legacy(b->dtype));
        return NULL;
    }
    if (a->numel != b->numel) {
        ct_error(CT_ERR_RUNTIME, "inconsistent tensor size, expected tensor [%lld] and "
                 "src [%lld] to have the same number of elements, but got %lld and "
                 "%lld elements respectively", (long long)a->numel, (long long)b->numel,
                 (long long)a->numel, (long long)b->numel);
        return NULL;
    }
    if (check_kernel("dot", a->dtype) < 0) {
        return NULL;
    }
    if (out != NULL && out->dtype != a->dtype) {
        ct_error(CT_ERR_RUNTIME, "result dtype %s does not match input dtype %s",
                 legacy(out->dtype), legacy(a->dtype));
        return NULL;
    }
    gemm_problem p;
    problem_init(&p, a->dtype, 1, 1, a->numel);
    operand_from(&p.a, a, AS_ROW, 0);
    operand_from(&p.b, b, AS_COLUMN, 0);
    return product_finish(&p, 0, NULL, NULL, a, b, out,
                          out ? CT_OUT_GIVEN : CT_OUT_NEW);
}

ct_tensor *
ct_vdot(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){a, b, out}, 3) < 0) {
        return NULL;
    }
    /* conj(a) . b; ctorch has no complex dtypes */
    return ct_dot(a, b, out);
}

/* Note [matmul ranks]
 * torch.matmul by the operands' ranks (da, db):
 *   1,1: dot                       2,1: mv               1,2 and 2,2: mm
 *   >=3,1 and >=3,2: a's batch dims fold into its rows (a reshape, copied
 *     only when the strides forbid a view) and one mv / mm runs;
 *   otherwise: batched, batch dims broadcast, one gemm per batch index, the
 *     broadcast operand read in place (stride 0); a 1-D a is a row and a
 *     1-D b a column, and their dimension is dropped from the result.
 * The error messages are those of the kernel torch reaches in each case. */
static ct_tensor *
matmul_batched(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    int da = a->ndim, db = b->ndim;
    int nba = da >= 2 ? da - 2 : 0, nbb = db >= 2 ? db - 2 : 0;
    int64_t bshape[CT_MAX_DIMS], shape[CT_MAX_DIMS];
    int nb;
    if (ct_broadcast_shapes(nba, a->sizes, nbb, b->sizes, &nb, bshape) < 0) {
        return NULL;
    }
    int64_t m = da >= 2 ? a->sizes[da - 2] : 1, k = a->sizes[da - 1];
    int64_t kb = db >= 2 ? b->sizes[db - 2] : b->sizes[0];
    int64_t n = db >= 2 ? b->sizes[db - 1] : 1;
    int64_t nbatch = 1;
    for (int d = 0; d < nb; d++) {
        nbatch *= bshape[d];
    }
    if (da <= 2) {
        /* torch computes b^T a^T with b's batch dims folded into rows */
        int64_t rows = n * nbatch;
        const char *kernel = da == 1 ? "addmv_impl_cpu" : "addmm_impl_cpu_";
        if (check_same_dtype(b, a) < 0 || check_kernel(kernel, a->dtype) < 0) {
            return NULL;
        }
        if (k != kb && da == 1) {
            ct_error(CT_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld",
                     (long long)rows, (long long)rows, (long long)kb, (long long)k);
            return NULL;
        }
        if (k != kb) {
            ct_error(CT_ERR_RUNTIME, "mat1 and mat2 shapes cannot be multiplied "
                     "(%lldx%lld and %lldx%lld)", (long long)rows, (long long)kb,
                     (long long)k, (long long)m);
            return NULL;
        }
    }
    if (check_same_dtype(a, b) < 0 || check_kernel("bmm", a->dtype) < 0) {
        return NULL;
    }
    if (k != kb) {
        ct_error(CT_ERR_RUNTIME, "Expected size for first two dimensions of batch2 "
                 "tensor to be: [%lld, %lld] but got: [%lld, %lld].", (long long)nbatch,
                 (long long)k, (long long)nbatch, (long long)kb);
        return NULL;
    }
    gemm_problem p;
    problem_init(&p, a->dtype, m, n, k);
    p.nb = nb;
    memcpy(p.bsizes, bshape, sizeof(int64_t) * (size_t)nb);
    operand_from(&p.a, a, da >= 2 ? AS_MATRIX : AS_ROW, nb);
    operand_from(&p.b, b, db >= 2 ? AS_MATRIX : AS_COLUMN, nb);
    int ndim = nb;
    memcpy(shape, bshape, sizeof(int64_t) * (size_t)nb);
    if (da >= 2) {
        shape[ndim++] = m;
    }
    if (db >= 2) {
        shape[ndim++] = n;
    }
    return product_finish(&p, ndim, shape, NULL, a, b, out,
                          out ? CT_OUT_GIVEN : CT_OUT_NEW);
}

ct_tensor *
ct_matmul(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){a, b, out}, 3) < 0) {
        return NULL;
    }
    int da = a->ndim, db = b->ndim;
    if (da == 0 || db == 0) {
        ct_error(CT_ERR_RUNTIME, "both arguments to matmul need to be at least 1D, but "
                 "they are %dD and %dD", da, db);
        return NULL;
    }
    if (da == 1 && db == 1) {
        return ct_dot(a, b, out);
    }
    if (da == 2 && db == 1) {
        return ct_mv(a, b, out);
    }
    if (da <= 2 && db == 2) {
        /* a 1-D a is a 1 x k row */
        ct_tensor *a2 = da == 2
                            ? ct_tensor_view_of(a, a->offset, 2, a->sizes, a->strides)
                            : ct_unsqueeze(a, 0);
        if (a2 == NULL) {
            return NULL;
        }
        ct_tensor *r = NULL;
        if (check_mm(a2, b, "addmm_impl_cpu_") == 0) {
            int64_t shape[2] = {a2->sizes[0], b->sizes[1]};
            r = mm_impl(NULL, a2, b, ct_scalar_int(0), ct_scalar_int(1), out,
                        out ? CT_OUT_GIVEN : CT_OUT_NEW, da,
                        da == 2 ? shape : shape + 1);
        }
        ct_tensor_decref(a2);
        return r;
    }
    if (da >= 3 && db <= 2) {
        /* fold a's batch dims into its rows */
        int64_t rows = 1, shape[CT_MAX_DIMS];
        for (int d = 0; d < da - 1; d++) {
            rows *= a->sizes[d];
        }
        int64_t fold[2] = {rows, a->sizes[da - 1]};
        ct_tensor *a2 = ct_reshape(a, 2, fold);
        if (a2 == NULL) {
            return NULL;
        }
        memcpy(shape, a->sizes, sizeof(int64_t) * (size_t)(da - 1));
        ct_tensor *r = NULL;
        if (db == 1) {
            if (check_same_dtype(a2, b) == 0 &&
                check_kernel("addmv_impl_cpu", a2->dtype) == 0) {
                if (a2->sizes[1] != b->sizes[0]) {
                    ct_error(CT_ERR_RUNTIME, "size mismatch, got %lld, %lldx%lld,%lld",
                             (long long)rows, (long long)rows, (long long)a2->sizes[1],
                             (long long)b->sizes[0]);
                }
                else {
                    gemm_problem p;
                    problem_init(&p, a2->dtype, rows, 1, a2->sizes[1]);
                    operand_from(&p.a, a2, AS_MATRIX, 0);
                    operand_from(&p.b, b, AS_COLUMN, 0);
                    r = product_finish(&p, da - 1, shape, NULL, a2, b, out,
                                       out ? CT_OUT_GIVEN : CT_OUT_NEW);
                }
            }
        }
        else if (check_mm(a2, b, "addmm_impl_cpu_") == 0) {
            shape[da - 1] = b->sizes[1];
            r = mm_impl(NULL, a2, b, ct_scalar_int(0), ct_scalar_int(1), out,
                        out ? CT_OUT_GIVEN : CT_OUT_NEW, da, shape);
        }
        ct_tensor_decref(a2);
        return r;
    }
    return matmul_batched(a, b, out);
}
