/* aten/cpu/conv.c -- convolution and transposed convolution (1 or 2
 * spatial dims), forward and backward, through im2col + gemm.
 *
 * Ownership as in ops.h.  Thread-safety: nothing is shared between calls;
 * one call splits its samples (or groups) across the pool of
 * aten/parallel.h, each part with its own column buffer.
 */
#include "aten/device.h"
#include <cblas.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/conv_impl.h"
#include "aten/cpu/loops.h"
#include "aten/parallel.h"

/* Note [Convolution as gemm]
 * A convolution relates a "wide" tensor [N, C, ih, iw] to a "narrow" one
 * [N, O, oh, ow] through a weight [O, C / G, kh, kw] (G groups), with
 * oh = (ih + 2 ph - dh (kh - 1) - 1) / sh + 1 (likewise ow).  For sample n
 * and group g, im2col lays the wide plane set out as a column matrix
 * cols [C/G * kh * kw, oh * ow] (zeros where the window reaches into the
 * padding), and the three products are
 *     forward:      narrow[n, g] = W[g] @ cols                 (conv_fwd)
 *     data:         wide[n, g] = col2im(W[g]^T @ narrow[n, g]) (conv_data)
 *     weight:       dW[g] += narrow[n, g] @ cols^T             (conv_weight)
 * A plain convolution's forward is `forward` with bias, its input gradient
 * `data`, its weight gradient `weight`.  A transposed convolution is the
 * same pairs read the other way: its forward is `data` (the input is the
 * narrow side, the output the wide one), its input gradient `forward`
 * without bias, its weight gradient `weight` with the roles swapped
 * (dW[g] += input[n, g] @ cols(grad_out)^T).  A 1-D convolution is a 2-D
 * one with ih = kh = 1.
 */

/* --- typed loops --------------------------------------------------------- */
/* The column window of kernel tap offset `off` (= j * dw - pw): the output
 * positions o with 0 <= o * s + off < in, as [*lo, *hi). */
static inline void
valid_range(int64_t off, int64_t s, int64_t in, int64_t out, int64_t *lo, int64_t *hi)
{
    int64_t l = off >= 0 ? 0 : (-off + s - 1) / s;
    int64_t h = in - 1 - off < 0 ? 0 : (in - 1 - off) / s + 1;
    if (l > out) {
        l = out;
    }
    if (h > out) {
        h = out;
    }
    *lo = l;
    *hi = h < l ? l : h;
}

/* The part of output row oy inside the output positions [l0, l1): columns
 * [*a, *b) of the row; [*lo, *hi) is where it meets the window [xlo, xhi)
 * (lo <= hi, both within [a, b]). */
static inline void
row_span(int64_t ow, int64_t oy, int64_t l0, int64_t l1, int64_t xlo, int64_t xhi,
         int64_t *a, int64_t *b, int64_t *lo, int64_t *hi)
{
    int64_t first = oy * ow;
    *a = l0 > first ? l0 - first : 0;
    *b = l1 - first < ow ? l1 - first : ow;
    *lo = xlo < *a ? *a : (xlo > *b ? *b : xlo);
    *hi = xhi < *lo ? *lo : (xhi > *b ? *b : xhi);
}

/* im2col of one group of one sample, output positions [l0, l1) (l = oy *
 * ow + ox): x [cg, ih, iw] -> cols [cg*kh*kw, l1 - l0], rows ld apart.
 * col2im adds those columns back into x (which the caller zeroed). */
#define IM2COL_LOOPS(E, T, S, A)                                                 \
    static void im2col_##S(const conv_geom *g, const char *px, char *pc,       \
                           int64_t ld, int64_t l0, int64_t l1)                 \
    {                                                                          \
        const T *x = (const T *)px;                                            \
        T *cols = (T *)pc;                                                     \
        T zero;                                                                \
        memset(&zero, 0, sizeof zero);                                         \
        for (int64_t c = 0; c < g->cg; c++) {                                  \
            for (int64_t i = 0; i < g->kh; i++) {                              \
                for (int64_t j = 0; j < g->kw; j++) {                          \
                    T *row = cols + ((c * g->kh + i) * g->kw + j) * ld;        \
                    int64_t xlo, xhi;                                          \
                    valid_range(j * g->dw - g->pw, g->sw, g->iw, g->ow, &xlo, &xhi); \
                    for (int64_t oy = l0 / g->ow; oy * g->ow < l1; oy++) {     \
                        int64_t iy = oy * g->sh - g->ph + i * g->dh;           \
                        int64_t a, b, lo, hi;                                  \
                        row_span(g->ow, oy, l0, l1, xlo, xhi, &a, &b, &lo, &hi); \
                        /* r[ox] is column oy * ow + ox; rows are short: */ \
                        /* plain loops beat memcpy calls */                    \
                        T *r = row + (oy * g->ow - l0);                        \
                        if (iy < 0 || iy >= g->ih) {                           \
                            lo = hi = b;                                       \
                        }                                                      \
                        for (int64_t ox = a; ox < lo; ox++) {                  \
                            r[ox] = zero;                                      \
                        }                                                      \
                        if (lo < hi) {                                         \
                            const T *xr = x + (c * g->ih + iy) * g->iw +       \
                                          j * g->dw - g->pw;                   \
                            if (g->sw == 1) {                                  \
                                for (int64_t ox = lo; ox < hi; ox++) {         \
                                    r[ox] = xr[ox];                            \
                                }                                              \
                            }                                                  \
                            else {                                             \
                                for (int64_t ox = lo; ox < hi; ox++) {         \
                                    r[ox] = xr[ox * g->sw];                    \
                                }                                              \
                            }                                                  \
                        }                                                      \
                        for (int64_t ox = hi > lo ? hi : lo; ox < b; ox++) {   \
                            r[ox] = zero;                                      \
                        }                                                      \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void col2im_##S(const conv_geom *g, const char *pc, char *px,       \
                           int64_t ld, int64_t l0, int64_t l1)                 \
    {                                                                          \
        T *x = (T *)px;                                                        \
        const T *cols = (const T *)pc;                                         \
        for (int64_t c = 0; c < g->cg; c++) {                                  \
            for (int64_t i = 0; i < g->kh; i++) {                              \
                for (int64_t j = 0; j < g->kw; j++) {                          \
                    const T *row = cols + ((c * g->kh + i) * g->kw + j) * ld;  \
                    int64_t xlo, xhi;                                          \
                    valid_range(j * g->dw - g->pw, g->sw, g->iw, g->ow, &xlo, &xhi); \
                    for (int64_t oy = l0 / g->ow; oy * g->ow < l1; oy++) {     \
                        int64_t iy = oy * g->sh - g->ph + i * g->dh;           \
                        if (iy < 0 || iy >= g->ih) {                           \
                            continue;                                          \
                        }                                                      \
                        int64_t a, b, lo, hi;                                  \
                        row_span(g->ow, oy, l0, l1, xlo, xhi, &a, &b, &lo, &hi); \
                        const T *r = row + (oy * g->ow - l0);                  \
                        T *xr = x + (c * g->ih + iy) * g->iw + j * g->dw - g->pw; \
                        for (int64_t ox = lo; ox < hi; ox++) {                 \
                            T *p = xr + ox * g->sw;                            \
                            ct__store_##S(p, (A)(ct__load_##S(p) + ct__load_##S(r + ox))); \
                        }                                                      \
                    }                                                          \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static void bias_##S(char *py, const char *pb, int64_t nch, int64_t plane) \
    {                                                                          \
        T *y = (T *)py;                                                        \
        const T *b = (const T *)pb;                                            \
        for (int64_t c = 0; c < nch; c++) {                                    \
            A v = ct__load_##S(b + c);                                         \
            T *r = y + c * plane;                                              \
            for (int64_t i = 0; i < plane; i++) {                              \
                ct__store_##S(r + i, (A)(ct__load_##S(r + i) + v));            \
            }                                                                  \
        }                                                                      \
    }
CONV_FORALL_DTYPES(IM2COL_LOOPS)
#undef IM2COL_LOOPS

/* Plain row-major gemm for the dtypes BLAS does not take: C = A @ B
 * (+ C when acc), A m x k, B k x n, each possibly transposed; the sums of
 * the compute type run over l ascending. */
#define GEMM_LOOP(E, T, S, A)                                                    \
    static void gemm_##S(bool ta, bool tb, int64_t m, int64_t n, int64_t k,    \
                         const char *pa, int64_t lda, const char *pb, int64_t ldb, \
                         bool acc, char *pc, int64_t ldc)                      \
    {                                                                          \
        const T *a = (const T *)pa, *b = (const T *)pb;                        \
        T *c = (T *)pc;                                                        \
        int64_t ars = ta ? 1 : lda, acs = ta ? lda : 1;                        \
        int64_t brs = tb ? 1 : ldb, bcs = tb ? ldb : 1;                        \
        for (int64_t i = 0; i < m; i++) {                                      \
            for (int64_t j = 0; j < n; j++) {                                  \
                A s = acc ? ct__load_##S(c + i * ldc + j) : (A)0;              \
                for (int64_t l = 0; l < k; l++) {                              \
                    s = (A)(s + ct__load_##S(a + i * ars + l * acs) *          \
                                    ct__load_##S(b + l * brs + j * bcs));      \
                }                                                              \
                ct__store_##S(c + i * ldc + j, s);                             \
            }                                                                  \
        }                                                                      \
    }
CONV_FORALL_TYPED_GEMM_DTYPES(GEMM_LOOP)
#undef GEMM_LOOP

static void
gemm_f32(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const char *a, int64_t lda,
         const char *b, int64_t ldb, bool acc, char *c, int64_t ldc)
{
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0f,
                (const float *)a, (int)lda, (const float *)b, (int)ldb,
                acc ? 1.0f : 0.0f, (float *)c, (int)ldc);
}

static void
gemm_f64(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const char *a, int64_t lda,
         const char *b, int64_t ldb, bool acc, char *c, int64_t ldc)
{
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
                tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, 1.0,
                (const double *)a, (int)lda, (const double *)b, (int)ldb,
                acc ? 1.0 : 0.0, (double *)c, (int)ldc);
}

typedef void (*im2col_fn)(const conv_geom *g, const char *x, char *cols, int64_t ld,
                          int64_t l0, int64_t l1);
typedef void (*bias_fn)(char *y, const char *b, int64_t nch, int64_t plane);
typedef void (*gemm_fn)(bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                        const char *a, int64_t lda, const char *b, int64_t ldb,
                        bool acc, char *c, int64_t ldc);

static const im2col_fn im2col_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = im2col_##S,
    CONV_FORALL_DTYPES(X)
#undef X
};
static const im2col_fn col2im_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = col2im_##S,
    CONV_FORALL_DTYPES(X)
#undef X
};
static const bias_fn bias_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = bias_##S,
    CONV_FORALL_DTYPES(X)
#undef X
};
static const gemm_fn gemm_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = gemm_##S,
    CONV_FORALL_TYPED_GEMM_DTYPES(X)
#undef X
    [CT_DTYPE_FLOAT32] = gemm_f32,
    [CT_DTYPE_FLOAT64] = gemm_f64,
};

void
ct__conv_im2col(const conv_geom *g, const char *x, char *cols, int64_t ld)
{
    im2col_loops[g->dtype](g, x, cols, ld, 0, g->oh * g->ow);
}

void
ct__conv_col2im(const conv_geom *g, const char *cols, char *x, int64_t ld)
{
    col2im_loops[g->dtype](g, cols, x, ld, 0, g->oh * g->ow);
}

void
ct__conv_im2col_range(const conv_geom *g, const char *x, char *cols, int64_t ld,
                      int64_t l0, int64_t l1)
{
    im2col_loops[g->dtype](g, x, cols, ld, l0, l1);
}

void
ct__conv_col2im_range(const conv_geom *g, const char *cols, char *x, int64_t ld,
                      int64_t l0, int64_t l1)
{
    col2im_loops[g->dtype](g, cols, x, ld, l0, l1);
}

/* C = A @ B (+ C when acc): A m x k, B k x n, each possibly transposed,
 * row-major with leading dimensions. */
static void
gemm(ct_dtype dtype, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const char *a,
     int64_t lda, const char *b, int64_t ldb, bool acc, char *c, int64_t ldc)
{
    size_t z = ct_dtype_itemsize(dtype);
    if (m == 0 || n == 0) {
        return;
    }
    if (k == 0) {
        if (!acc) {
            for (int64_t i = 0; i < m; i++) {
                memset(c + (size_t)(i * ldc) * z, 0, (size_t)n * z);
            }
        }
        return;
    }
    gemm_loops[dtype](ta, tb, m, n, k, a, lda, b, ldb, acc, c, ldc);
}

/* Note [Batched columns]
 * Per-sample products are small (16 x 27 x 900 for the usual first layer)
 * and run far below BLAS's speed, so samples are taken in chunks and
 * their column matrices laid side by side: cols_g [ck, nb * L] for a chunk
 * of nb samples, sample j in columns [j L, (j + 1) L).  The narrow side is
 * repacked the same way ([og, nb * L]), so each group needs one gemm per
 * chunk, large enough for OpenBLAS's own threads.  Packing, im2col,
 * col2im and unpacking split the chunk's (sample, group) pairs across the
 * pool of aten/parallel.h.  A chunk holds at most CHUNK_ELEMS elements of
 * scratch (one sample at least); the scratch comes from the caching CPU
 * allocator, so steady-state calls never fault fresh pages in. */
#define CHUNK_ELEMS (4 << 20)
/* Below this many elements a phase stays on the calling thread. */
#define CONV_GRAIN 32768

typedef struct {
    const conv_geom *g;
    int kind;
    int phase;                              /* PH_* */
    const char *wide, *narrow, *w, *bias;   /* inputs (NULL where unused) */
    char *out;                              /* the written side, or dW */
    int64_t n0, nb;                         /* the chunk */
    char *cols, *pack;                      /* [G][ck, nb L], [G][og, nb L] */
} conv_job;

enum {
    PH_IM2COL,      /* wide -> cols */
    PH_PACK,        /* narrow -> pack */
    PH_UNPACK,      /* pack -> narrow output, + bias */
    PH_COL2IM,      /* cols -> wide output, + bias */
};

/* One (sample, group) unit u of the chunk in phase job->phase. */
static void
conv_unit(const conv_job *job, int64_t u)
{
    const conv_geom *g = job->g;
    size_t z = ct_dtype_itemsize(g->dtype);
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw;
    const int64_t ck = g->cg * g->kh * g->kw, ld = job->nb * L;
    int64_t j = u / g->groups, gi = u % g->groups, n = job->n0 + j;
    char *cols = job->cols + (size_t)(gi * ck * ld + j * L) * z;
    char *pack = job->pack + (size_t)(gi * g->og * ld + j * L) * z;
    size_t wide_off = (size_t)((n * g->c + gi * g->cg) * P) * z;
    size_t narrow_off = (size_t)((n * g->o + gi * g->og) * L) * z;
    switch (job->phase) {
    case PH_IM2COL:
        ct__conv_im2col(g, job->wide + wide_off, cols, ld);
        break;
    case PH_PACK:
        for (int64_t r = 0; r < g->og; r++) {
            memcpy(pack + (size_t)(r * ld) * z, job->narrow + narrow_off + (size_t)(r * L) * z,
                   (size_t)L * z);
        }
        break;
    case PH_UNPACK:
        for (int64_t r = 0; r < g->og; r++) {
            memcpy(job->out + narrow_off + (size_t)(r * L) * z, pack + (size_t)(r * ld) * z,
                   (size_t)L * z);
        }
        if (job->bias != NULL) {
            bias_loops[g->dtype](job->out + narrow_off,
                                 job->bias + (size_t)(gi * g->og) * z, g->og, L);
        }
        break;
    default:
        memset(job->out + wide_off, 0, (size_t)(g->cg * P) * z);
        ct__conv_col2im(g, cols, job->out + wide_off, ld);
        if (job->bias != NULL) {
            bias_loops[g->dtype](job->out + wide_off,
                                 job->bias + (size_t)(gi * g->cg) * z, g->cg, P);
        }
        break;
    }
}

static void
conv_part(void *ctx, int tid, int nthreads)
{
    const conv_job *job = ctx;
    int64_t units = job->nb * job->g->groups;
    int64_t lo = units * tid / nthreads, hi = units * (tid + 1) / nthreads;
    for (int64_t u = lo; u < hi; u++) {
        conv_unit(job, u);
    }
}

/* Run one phase over the chunk's units; `elems` elements move in all. */
static void
conv_phase(conv_job *job, int phase, int64_t elems)
{
    int64_t units = job->nb * job->g->groups;
    int nthreads = ct__parallel_threads();
    job->phase = phase;
    if (nthreads > units) {
        nthreads = (int)units;
    }
    if (nthreads > 1 && elems >= CONV_GRAIN) {
        ct__parallel_run(nthreads, conv_part, job);
    }
    else {
        conv_part(job, 0, 1);
    }
}

/* Run one product (Note [Convolution as gemm], Note [Batched columns]);
 * for CONV_WEIGHT `out` is the zeroed dW [O, C/G * kh * kw].  0, or -1
 * with the error set. */
int
ct__conv_run(const conv_geom *g, int kind, const char *wide, const char *narrow,
             const char *w, const char *bias, char *out)
{
    size_t z = ct_dtype_itemsize(g->dtype);
    const int64_t L = g->oh * g->ow;
    const int64_t ck = g->cg * g->kh * g->kw, G = g->groups;
    if (g->n == 0) {
        return 0;
    }
    if (g->dtype == CT_DTYPE_FLOAT32 && ct__conv_avx512_available()) {
        return ct__conv_run_tiled(g, kind, wide, narrow, w, bias, out);
    }
    /* scratch per sample: the columns (unless the input is its own, 1x1)
     * and the packed narrow side */
    int64_t per = G * (ck + g->og) * L;
    int64_t nb = per > 0 ? CHUNK_ELEMS / per : g->n;
    nb = nb < 1 ? 1 : (nb > g->n ? g->n : nb);
    /* one sample alone needs no packing: its matrices are in place */
    bool in_place = nb == 1;
    const ct_allocator *alloc = ct_cpu_allocator();
    size_t bytes = in_place ? (size_t)(G * ck * L) * z : (size_t)(nb * per) * z;
    char *scratch = alloc->alloc(alloc, bytes + z);
    if (scratch == NULL) {
        return ct_error(CT_ERR_NOMEM, "convolution: out of memory for %zu bytes of "
                        "columns", bytes);
    }
    conv_job job = {.g = g, .kind = kind, .wide = wide, .narrow = narrow, .w = w,
                    .bias = bias, .out = out, .cols = scratch};
    for (int64_t n0 = 0; n0 < g->n; n0 += nb) {
        job.n0 = n0;
        job.nb = g->n - n0 < nb ? g->n - n0 : nb;
        int64_t ld = job.nb * L, units = job.nb * G;
        job.pack = scratch + (size_t)(G * ck * ld) * z;
        /* the matrices of group gi: cols [ck, ld], narrow [og, ld] */
        char *cols_base = scratch;
        const char *narrow_base = job.pack;
        int64_t cols_ld = ld, cols_gstride = ck * ld, narrow_gstride = g->og * ld;
        if (in_place) {
            /* one sample: the narrow side (input or output) is used where
             * it lies, and 1x1 columns are the wide side itself */
            narrow_base = kind == CONV_FWD ? out + (size_t)(n0 * g->o * L) * z
                                           : narrow + (size_t)(n0 * g->o * L) * z;
            narrow_gstride = g->og * L;
            if (g->direct && kind != CONV_DATA) {
                cols_base = (char *)(uintptr_t)(wide + (size_t)(n0 * g->c * L) * z);
                cols_gstride = g->cg * L;
            }
        }
        if (kind != CONV_DATA && cols_base == scratch) {
            conv_phase(&job, PH_IM2COL, units * ck * L);
        }
        if (kind != CONV_FWD && !in_place) {
            conv_phase(&job, PH_PACK, units * g->og * L);
        }
        for (int64_t gi = 0; gi < G; gi++) {
            const char *wg = w != NULL ? w + (size_t)(gi * g->og * ck) * z : NULL;
            char *cg = cols_base + (size_t)(gi * cols_gstride) * z;
            const char *ng = narrow_base + (size_t)(gi * narrow_gstride) * z;
            if (kind == CONV_FWD) {
                /* narrow = W @ cols */
                gemm(g->dtype, false, false, g->og, ld, ck, wg, ck, cg, cols_ld,
                     false, (char *)(uintptr_t)ng, ld);
            }
            else if (kind == CONV_DATA) {
                /* cols = W^T @ narrow */
                gemm(g->dtype, true, false, ck, ld, g->og, wg, ck, ng, ld, false,
                     cg, cols_ld);
            }
            else {
                /* dW += narrow @ cols^T */
                gemm(g->dtype, false, true, g->og, ck, ld, ng, ld, cg, cols_ld, true,
                     out + (size_t)(gi * g->og * ck) * z, ck);
            }
        }
        if (kind == CONV_FWD) {
            if (!in_place) {
                conv_phase(&job, PH_UNPACK, units * g->og * L);
            }
            else if (bias != NULL) {
                bias_loops[g->dtype](out + (size_t)(n0 * g->o * L) * z, bias, g->o, L);
            }
        }
        else if (kind == CONV_DATA) {
            conv_phase(&job, PH_COL2IM, units * ck * L);
        }
    }
    alloc->free(alloc, scratch, bytes + z);
    return 0;
}

/* --- checks -------------------------------------------------------------- */
/* c10's TypeMeta name of a dtype, as torch's messages print it. */
const char *
ct__conv_type_name(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_UINT8: return "unsigned char";
    case CT_DTYPE_INT8: return "signed char";
    case CT_DTYPE_INT16: return "short int";
    case CT_DTYPE_INT32: return "int";
    case CT_DTYPE_INT64: return "long int";
    case CT_DTYPE_FLOAT16: return "c10::Half";
    case CT_DTYPE_FLOAT32: return "float";
    case CT_DTYPE_FLOAT64: return "double";
    case CT_DTYPE_BFLOAT16: return "c10::BFloat16";
    case CT_DTYPE_BOOL: return "bool";
    default: return ct_dtype_table[d].name;
    }
}

static char *
sizes_str(const ct_tensor *t, char *buf, int n)
{
    return ct_format_sizes(t->ndim, t->sizes, buf, n);
}

/* torch's checks of _convolution, in its order, and the geometry of the
 * call (Note [Convolution as gemm]); 0, or -1 with torch's message. */
static int
conv_check(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
           const ct_conv_params *p, conv_geom *g)
{
    char bi[160], bw[160], bb[160];
    int nsp = p->nsp;
    if (nsp < 1 || nsp > 2) {
        return ct_error(CT_ERR_RUNTIME, "convolution: only 1 and 2 spatial dims are "
                        "supported, got %d", nsp);
    }
    if (weight->ndim != nsp + 2) {
        return ct_error(CT_ERR_RUNTIME, "expected stride to be a single integer value "
                        "or a list of %d values to match the convolution dimensions, "
                        "but got stride=[%s]", weight->ndim - 2, nsp == 1 ? "1" : "1, 1");
    }
    if (input->ndim != weight->ndim) {
        return ct_error(CT_ERR_RUNTIME, "Expected %d-dimensional input for "
                        "%d-dimensional weight %s, but got %d-dimensional input of "
                        "size %s instead", weight->ndim, weight->ndim,
                        sizes_str(weight, bw, sizeof bw), input->ndim,
                        sizes_str(input, bi, sizeof bi));
    }
    for (int i = 0; i < nsp; i++) {
        if (p->padding[i] < 0) {
            return ct_error(CT_ERR_RUNTIME, "negative padding is not supported");
        }
        if (p->output_padding[i] < 0) {
            return ct_error(CT_ERR_RUNTIME, "negative output_padding is not supported");
        }
        if (p->stride[i] <= 0) {
            return ct_error(CT_ERR_RUNTIME, "non-positive stride is not supported");
        }
        if (p->dilation[i] <= 0) {
            return ct_error(CT_ERR_RUNTIME, "non-positive dilation is not supported");
        }
    }
    if (p->groups <= 0) {
        return ct_error(CT_ERR_RUNTIME, "non-positive groups is not supported");
    }
    int64_t G = p->groups;
    if (weight->sizes[0] < G) {
        return ct_error(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be at "
                        "least %lld at dimension 0, but got weight of size %s instead",
                        (long long)G, (long long)G, sizes_str(weight, bw, sizeof bw));
    }
    if (weight->sizes[0] % G != 0) {
        return ct_error(CT_ERR_RUNTIME, "Given groups=%lld, expected weight to be "
                        "divisible by %lld at dimension 0, but got weight of size [%s] "
                        "instead", (long long)G, (long long)G,
                        sizes_str(weight, bw, sizeof bw));
    }
    int64_t cin = input->sizes[1];
    if (!p->transposed) {
        if (cin != weight->sizes[1] * G) {
            return ct_error(CT_ERR_RUNTIME, "Given groups=%lld, weight of size %s, "
                            "expected input%s to have %lld channels, but got %lld "
                            "channels instead", (long long)G,
                            sizes_str(weight, bw, sizeof bw),
                            sizes_str(input, bi, sizeof bi),
                            (long long)(weight->sizes[1] * G), (long long)cin);
        }
    }
    else if (cin != weight->sizes[0]) {
        return ct_error(CT_ERR_RUNTIME, "Given transposed=1, weight of size %s, expected "
                        "input%s to have %lld channels, but got %lld channels instead",
                        sizes_str(weight, bw, sizeof bw), sizes_str(input, bi, sizeof bi),
                        (long long)weight->sizes[0], (long long)cin);
    }
    int64_t cout = p->transposed ? weight->sizes[1] * G : weight->sizes[0];
    if (bias != NULL && (bias->ndim != 1 || bias->sizes[0] != cout)) {
        return ct_error(CT_ERR_RUNTIME, "Given %s of size %s, expected bias to be "
                        "1-dimensional with %lld elements, but got bias of size %s "
                        "instead", p->transposed ? "transposed=1, weight" : "weight",
                        sizes_str(weight, bw, sizeof bw), (long long)cout,
                        sizes_str(bias, bb, sizeof bb));
    }
    /* spatial sizes as 2-D (a 1-D convolution has height 1) */
    int64_t in[2] = {1, 1}, k[2] = {1, 1}, s[2] = {1, 1}, pd[2] = {0, 0};
    int64_t d[2] = {1, 1}, op[2] = {0, 0}, out[2];
    for (int i = 0; i < nsp; i++) {
        int j = i + 2 - nsp;
        in[j] = input->sizes[2 + i];
        k[j] = weight->sizes[2 + i];
        s[j] = p->stride[i];
        pd[j] = p->padding[i];
        d[j] = p->dilation[i];
        op[j] = p->output_padding[i];
    }
    if (!p->transposed) {
        bool small = false;
        for (int j = 0; j < 2; j++) {
            small |= in[j] + 2 * pd[j] < d[j] * (k[j] - 1) + 1;
        }
        if (small) {
            char a[64], b[64];
            if (nsp == 2) {
                snprintf(a, sizeof a, "(%lld x %lld)", (long long)(in[0] + 2 * pd[0]),
                         (long long)(in[1] + 2 * pd[1]));
                snprintf(b, sizeof b, "(%lld x %lld)", (long long)(d[0] * (k[0] - 1) + 1),
                         (long long)(d[1] * (k[1] - 1) + 1));
            }
            else {
                snprintf(a, sizeof a, "(%lld)", (long long)(in[1] + 2 * pd[1]));
                snprintf(b, sizeof b, "(%lld)", (long long)(d[1] * (k[1] - 1) + 1));
            }
            return ct_error(CT_ERR_RUNTIME, "Calculated padded input size per channel: "
                            "%s. Kernel size: %s. Kernel size can't be greater than "
                            "actual input size", a, b);
        }
        for (int j = 0; j < 2; j++) {
            out[j] = (in[j] + 2 * pd[j] - d[j] * (k[j] - 1) - 1) / s[j] + 1;
        }
    }
    else {
        for (int j = 0; j < 2; j++) {
            if (op[j] >= s[j] && op[j] >= d[j]) {
                return ct_error(CT_ERR_RUNTIME, "output padding must be smaller than "
                                "either stride or dilation, but got output_padding_height: "
                                "%lld output_padding_width: %lld stride_height: %lld "
                                "stride_width: %lld dilation_height: %lld dilation_width: "
                                "%lld", (long long)op[0], (long long)op[1], (long long)s[0],
                                (long long)s[1], (long long)d[0], (long long)d[1]);
            }
        }
        bool small = false;
        for (int j = 0; j < 2; j++) {
            out[j] = (in[j] - 1) * s[j] - 2 * pd[j] + d[j] * (k[j] - 1) + op[j] + 1;
            small |= out[j] <= 0;
        }
        if (small) {
            /* torch runs a 1-D transposed convolution as a 2-D one: it
             * prints (1 x w) */
            char a[64], b[64];
            snprintf(a, sizeof a, "(%lld x %lld)", (long long)in[0], (long long)in[1]);
            snprintf(b, sizeof b, "(%lld x %lld)", (long long)out[0], (long long)out[1]);
            return ct_error(CT_ERR_RUNTIME, "Given input size per channel: %s. Calculated "
                            "output size per channel: %s. Output size is too small", a, b);
        }
    }
    if (bias != NULL && bias->dtype != input->dtype) {
        return ct_error(CT_ERR_RUNTIME, "Input type (%s) and bias type (%s) should be "
                        "the same", ct__conv_type_name(input->dtype),
                        ct__conv_type_name(bias->dtype));
    }
    if (weight->dtype != input->dtype) {
        if (input->dtype == CT_DTYPE_FLOAT32) {
            return ct_error(CT_ERR_RUNTIME, "Input type (torch.%sTensor) and weight type "
                            "(torch.%sTensor) should be the same or input should be a "
                            "MKLDNN tensor and weight is a dense tensor",
                            ct_dtype_table[input->dtype].legacy,
                            ct_dtype_table[weight->dtype].legacy);
        }
        return ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        ct_dtype_table[input->dtype].legacy,
                        ct_dtype_table[weight->dtype].legacy);
    }
    if (im2col_loops[input->dtype] == NULL || gemm_loops[input->dtype] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                        p->transposed ? "slow_conv_transpose2d_out_cpu" : "slow_conv2d_cpu",
                        ct_dtype_table[input->dtype].legacy);
    }
    /* the geometry, wide side first (a transposed convolution's output is
     * its wide side) */
    *g = (conv_geom){
        .dtype = input->dtype, .n = input->sizes[0], .groups = G,
        .kh = k[0], .kw = k[1], .sh = s[0], .sw = s[1], .ph = pd[0], .pw = pd[1],
        .dh = d[0], .dw = d[1],
    };
    if (!p->transposed) {
        g->c = cin;
        g->o = cout;
        g->ih = in[0], g->iw = in[1], g->oh = out[0], g->ow = out[1];
    }
    else {
        g->c = cout;
        g->o = cin;
        g->ih = out[0], g->iw = out[1], g->oh = in[0], g->ow = in[1];
    }
    ct__conv_geom_finish(g);
    if (g->cg * g->kh * g->kw > INT_MAX || g->oh * g->ow > INT_MAX ||
        g->og > INT_MAX) {
        return ct_error(CT_ERR_RUNTIME, "convolution: the problem is too large for gemm");
    }
    return 0;
}

void
ct__conv_geom_finish(conv_geom *g)
{
    g->cg = g->c / g->groups;
    g->og = g->o / g->groups;
    g->direct = g->kh == 1 && g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 &&
                g->pw == 0;
}

/* The sizes of a [N, channels, *spatial] tensor of the geometry's wide or
 * narrow side, with nsp spatial dims. */
static void
side_sizes(const conv_geom *g, int nsp, bool wide, int64_t *sizes)
{
    sizes[0] = g->n;
    sizes[1] = wide ? g->c : g->o;
    if (nsp == 2) {
        sizes[2] = wide ? g->ih : g->oh;
        sizes[3] = wide ? g->iw : g->ow;
    }
    else {
        sizes[2] = wide ? g->iw : g->ow;
    }
}

ct_tensor *
ct_convolution(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
               const ct_conv_params *p)
{
    conv_geom g;
    ct_tensor *x = NULL, *w = NULL, *b = NULL, *out = NULL;
    int64_t sizes[4];

    if (conv_check(input, weight, bias, p, &g) < 0) {
        return NULL;
    }
    side_sizes(&g, p->nsp, p->transposed, sizes);
    if (ct__is_device(input) || ct__is_device(weight) || ct__is_device(bias)) {
        return ct__device_conv_forward(&g, p->transposed, sizes, input, weight, bias);
    }
    if ((x = ct_contiguous(input)) == NULL || (w = ct_contiguous(weight)) == NULL ||
        (bias != NULL && (b = ct_contiguous(bias)) == NULL) ||
        (out = ct_empty(p->nsp + 2, sizes, input->dtype, ct_device_cpu())) == NULL) {
        goto fail;
    }
    if (out->numel > 0) {
        const char *bd = b != NULL ? ct_tensor_data(b) : NULL;
        int rc = p->transposed
                     ? ct__conv_run(&g, CONV_DATA, NULL, ct_tensor_data(x),
                                    ct_tensor_data(w), bd, ct_tensor_data(out))
                     : ct__conv_run(&g, CONV_FWD, ct_tensor_data(x), NULL,
                                    ct_tensor_data(w), bd, ct_tensor_data(out));
        if (rc < 0) {
            goto fail;
        }
    }
    ct_tensor_decref(x);
    ct_tensor_decref(w);
    ct_tensor_decref(b);
    return out;
fail:
    ct_tensor_decref(x);
    ct_tensor_decref(w);
    ct_tensor_decref(b);
    ct_tensor_decref(out);
    return NULL;
}

int
ct_convolution_backward(const ct_tensor *grad_out, const ct_tensor *input,
                        const ct_tensor *weight, const ct_conv_params *p,
                        const bool mask[3], ct_tensor **grad_input,
                        ct_tensor **grad_weight, ct_tensor **grad_bias)
{
    conv_geom g;
    ct_tensor *x = NULL, *w = NULL, *gy = NULL, *gi = NULL, *gw = NULL, *gb = NULL;
    int64_t osz[4];

    *grad_input = *grad_weight = *grad_bias = NULL;
    if (conv_check(input, weight, NULL, p, &g) < 0) {
        return -1;
    }
    side_sizes(&g, p->nsp, p->transposed, osz);
    for (int i = 0; i < p->nsp + 2; i++) {
        if (grad_out->ndim != p->nsp + 2 || grad_out->sizes[i] != osz[i]) {
            return ct_error(CT_ERR_RUNTIME, "convolution_backward: grad_output has the "
                            "wrong shape");
        }
    }
    if (grad_out->dtype != input->dtype) {
        return ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        ct_dtype_table[input->dtype].legacy,
                        ct_dtype_table[grad_out->dtype].legacy);
    }
    if (ct__is_device(grad_out) || ct__is_device(input) || ct__is_device(weight)) {
        return ct__device_conv_backward(&g, p->transposed, grad_out, input, weight, mask,
                                        grad_input, grad_weight, grad_bias);
    }
    if ((x = ct_contiguous(input)) == NULL || (w = ct_contiguous(weight)) == NULL ||
        (gy = ct_contiguous(grad_out)) == NULL) {
        goto fail;
    }
    /* the wide and narrow sides of the geometry */
    const char *wide = p->transposed ? ct_tensor_data(gy) : ct_tensor_data(x);
    const char *narrow = p->transposed ? ct_tensor_data(x) : ct_tensor_data(gy);
    if (mask[0]) {
        if ((gi = ct_empty(input->ndim, input->sizes, input->dtype, ct_device_cpu())) ==
            NULL) {
            goto fail;
        }
        if (gi->numel > 0) {
            int rc = p->transposed
                         ? ct__conv_run(&g, CONV_FWD, wide, NULL, ct_tensor_data(w), NULL,
                                        ct_tensor_data(gi))
                         : ct__conv_run(&g, CONV_DATA, NULL, narrow, ct_tensor_data(w),
                                        NULL, ct_tensor_data(gi));
            if (rc < 0) {
                goto fail;
            }
        }
    }
    if (mask[1]) {
        if ((gw = ct_zeros(weight->ndim, weight->sizes, weight->dtype)) == NULL) {
            goto fail;
        }
        if (gw->numel > 0 && ct__conv_run(&g, CONV_WEIGHT, wide, narrow, NULL, NULL,
                                          ct_tensor_data(gw)) < 0) {
            goto fail;
        }
    }
    if (mask[2]) {
        int64_t dims[3] = {0, 2, 3};
        if ((gb = ct_sum(gy, p->nsp + 1, dims, false, CT_DTYPE_COUNT)) == NULL) {
            goto fail;
        }
        if (gb->dtype != input->dtype) {
            ct_tensor *c = ct_to_dtype(gb, input->dtype, false);
            ct_tensor_decref(gb);
            if ((gb = c) == NULL) {
                goto fail;
            }
        }
    }
    ct_tensor_decref(x);
    ct_tensor_decref(w);
    ct_tensor_decref(gy);
    *grad_input = gi;
    *grad_weight = gw;
    *grad_bias = gb;
    return 0;
fail:
    ct_tensor_decref(x);
    ct_tensor_decref(w);
    ct_tensor_decref(gy);
    ct_tensor_decref(gi);
    ct_tensor_decref(gw);
    ct_tensor_decref(gb);
    return -1;
}
