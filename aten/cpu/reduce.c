/* aten/cpu/reduce.c -- the reduction engine and the reductions built on it.
 *
 * Note [Reduction engine]
 * A reduction splits the input's dims into kept dims (one output element
 * per position) and reduced dims (walked for each output element, in
 * row-major logical order so that an index such as argmax's is the
 * position in that order).  Adjacent reduced dims laid out back to back
 * are coalesced, so the innermost walk is one long strided run.  Values
 * are read in chunks and converted to double (floating inputs) or int64
 * (bool and integers) by typed readers stamped per dtype; the ops then
 * accumulate over those buffers with dtype-free code: a state per output
 * (rstate) and, for each op, an accumulate function per value kind, a
 * merge (for splitting one long reduction across threads) and a finish.
 * Results are collected as doubles / int64s and converted once into the
 * output's dtype.  float32 / float64 sums and means of contiguous rows
 * follow PyTorch's cascade exactly (Note [Cascade sums]); other sums
 * accumulate in double and are rounded once.
 *
 * Work is split across threads (aten/parallel.h) by output elements when
 * there are enough of them, else -- one output, a full reduction -- by
 * ranges of the reduced elements whose states are merged in order.
 *
 * Fast paths: contiguous inner runs are summed by typed loops (the
 * cascade, or 8 independent double lanes for 16-bit floats) and scanned
 * for max / min with SSE lanes; sums and max / min over the outer dim of a
 * [rows, cols] layout take whole rows into a block of column accumulators
 * instead of walking columns.
 *
 * Ownership: ct_reduce and the named entry points return new references
 * (or NULL with the ct error set); inputs are borrowed.  Thread-safety:
 * no shared state; the engine's parallel parts write disjoint outputs.
 */
#include "aten/device.h"
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/reduce_impl.h"
#include "aten/parallel.h"
#include "c10/convert.h"

#define CHUNK 512
#define LANES 8
#define COLBLOCK 1024
#define MIN_PER_THREAD 65536

/* --- typed readers and fast loops (the only per-dtype code) ------------ */
#define X(E, T, S, A)                                                         \
    static void read_f64_##S(const char *src, int64_t st, int64_t n, double *d) \
    {                                                                         \
        if (st == (int64_t)sizeof(T)) {                                       \
            const T *p = (const T *)src;                                      \
            for (int64_t i = 0; i < n; i++) {                                 \
                d[i] = ct__as_f64_##S(p[i]);                                  \
            }                                                                 \
            return;                                                           \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            d[i] = ct__as_f64_##S(*(const T *)(src + i * st));                \
        }                                                                     \
    }
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

#define X(E, T, S, A)                                                         \
    static void read_i64_##S(const char *src, int64_t st, int64_t n, int64_t *d) \
    {                                                                         \
        for (int64_t i = 0; i < n; i++) {                                     \
            d[i] = ct__as_i64_##S(*(const T *)(src + i * st));                \
        }                                                                     \
    }
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_BOOL_DTYPE(X)
#undef X

/* Sum of n contiguous values in double, LANES independent accumulators. */
#define X(E, T, S, A)                                                         \
    static double sumrun_##S(const char *src, int64_t n)                      \
    {                                                                         \
        const T *p = (const T *)src;                                          \
        double acc[LANES] = {0};                                              \
        int64_t i = 0;                                                        \
        for (; i + LANES <= n; i += LANES) {                                  \
            for (int k = 0; k < LANES; k++) {                                 \
                acc[k] += (double)ct__load_##S(p + i + k);                    \
            }                                                                 \
        }                                                                     \
        double s = 0;                                                         \
        for (; i < n; i++) {                                                  \
            s += (double)ct__load_##S(p + i);                                 \
        }                                                                     \
        return ((acc[0] + acc[1]) + (acc[2] + acc[3])) +                      \
               ((acc[4] + acc[5]) + (acc[6] + acc[7])) + s;                   \
    }                                                                         \
    /* acc[j] += row r, column j, for m columns of R rows rs bytes apart */  \
    static void colsum_##S(const char *src, int64_t rs, int64_t R, int64_t m, \
                           double *acc)                                       \
    {                                                                         \
        for (int64_t r = 0; r < R; r++) {                                     \
            const T *p = (const T *)(src + r * rs);                           \
            for (int64_t j = 0; j < m; j++) {                                 \
                acc[j] += (double)ct__load_##S(p + j);                        \
            }                                                                 \
        }                                                                     \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

/* Note [Cascade sums]
 * float32 and float64 sums reproduce PyTorch 1.13's CPU cascade_sum bit for
 * bit (SumKernel.cpp on an AVX2 build): a contiguous row is summed as
 * vectors of L lanes (8 floats, 4 doubles) into four levels of
 * accumulators, level k+1 taking level k every 2^p vectors (p =
 * max(4, ceil(log2(vectors)) / 4)); the tail is summed alone, then the
 * lanes are added to it in order.  A sum over the outer dim runs the same
 * levels per column over the rows.  Accumulation is in the dtype itself
 * (float for float32), as in PyTorch, so printed values agree.  PyTorch
 * runs one thread here (torch.get_num_threads() is 1 on these machines);
 * its serial result is reproduced on several threads by summing whole
 * top-level blocks (2^(3p) rows, after which every lower level is zero)
 * in parallel and adding them into the top level in order. */
#define CASCADE_DTYPES(X)                      \
    X(CT_DTYPE_FLOAT32, float, f32, 8)         \
    X(CT_DTYPE_FLOAT64, double, f64, 4)

static int64_t
ceil_log2(int64_t x)
{
    return x <= 2 ? 1 : 64 - __builtin_clzll((unsigned long long)(x - 1));
}

/* AVX2 and baseline versions of the cascade loops, picked at load time
 * (the results are the same: only additions, in the same order). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

static int64_t
level_power(int64_t size)
{
    return ceil_log2(size) / 4 > 4 ? ceil_log2(size) / 4 : 4;
}

/* Whole top-level blocks of a cascade, summed in parallel. */
typedef struct {
    const char *src;
    int64_t nblocks, blk, lp;
    void *out;
    atomic_llong next;          /* next block to take (dynamic schedule) */
} blockjob;

/* multi_row_sum: ret[k] = cascade over `size` rows (rs bytes apart) of
 * element k (cs bytes apart), for nrows <= COLBLOCK. */
#define X(E, T, S, L)                                                         \
    static inline __attribute__((always_inline)) void mrs_##S(const char *src, int64_t rs, int64_t cs,       \
                               int64_t nrows, int64_t size, int64_t lp,       \
                               const T *init3, T *ret)                        \
    {                                                                         \
        T acc[4][COLBLOCK];                                                   \
        int64_t step = (int64_t)1 << lp, mask = step - 1, i = 0;              \
        for (int j = 0; j < 4; j++) {                                         \
            for (int64_t k = 0; k < nrows; k++) {                             \
                acc[j][k] = (j == 3 && init3) ? init3[k] : 0;                 \
            }                                                                 \
        }                                                                     \
        while (i + step <= size) {                                            \
            for (int64_t j = 0; j < step; j++, i++) {                         \
                const char *row = src + i * rs;                               \
                for (int64_t k = 0; k < nrows; k++) {                         \
                    acc[0][k] += *(const T *)(row + k * cs);                  \
                }                                                             \
            }                                                                 \
            for (int j = 1; j < 4; j++) {                                     \
                for (int64_t k = 0; k < nrows; k++) {                         \
                    acc[j][k] += acc[j - 1][k];                               \
                    acc[j - 1][k] = 0;                                        \
                }                                                             \
                if ((i & (mask << (j * lp))) != 0) {                          \
                    break;                                                    \
                }                                                             \
            }                                                                 \
        }                                                                     \
        for (; i < size; i++) {                                               \
            const char *row = src + i * rs;                                   \
            for (int64_t k = 0; k < nrows; k++) {                             \
                acc[0][k] += *(const T *)(row + k * cs);                      \
            }                                                                 \
        }                                                                     \
        for (int64_t k = 0; k < nrows; k++) {                                 \
            T v = acc[0][k];                                                  \
            for (int j = 1; j < 4; j++) {                                     \
                v += acc[j][k];                                               \
            }                                                                 \
            ret[k] = v;                                                       \
        }                                                                     \
    }                                                                         \
    /* mrs_S for the 4 L lanes of contiguous vectors, level 0 kept apart so \
     * that it stays in registers */                                        \
    static inline __attribute__((always_inline)) void mrsv_##S(              \
        const char *src, int64_t rs, int64_t size, int64_t lp, const T *init3, \
        T *ret)                                                               \
    {                                                                         \
        T a0[4 * L], acc[4][4 * L];                                           \
        int64_t step = (int64_t)1 << lp, mask = step - 1, i = 0;              \
        for (int k = 0; k < 4 * L; k++) {                                     \
            a0[k] = acc[1][k] = acc[2][k] = 0;                                \
            acc[3][k] = init3 ? init3[k] : 0;                                 \
        }                                                                     \
        while (i + step <= size) {                                            \
            for (int64_t j = 0; j < step; j++, i++) {                         \
                const T *row = (const T *)(src + i * rs);                     \
                for (int k = 0; k < 4 * L; k++) {                             \
                    a0[k] += row[k];                                          \
                }                                                             \
            }                                                                 \
            for (int k = 0; k < 4 * L; k++) {                                 \
                acc[1][k] += a0[k];                                           \
                a0[k] = 0;                                                    \
            }                                                                 \
            for (int j = 2; j < 4; j++) {                                     \
                if ((i & (mask << ((j - 1) * lp))) != 0) {                    \
                    break;                                                    \
                }                                                             \
                for (int k = 0; k < 4 * L; k++) {                             \
                    acc[j][k] += acc[j - 1][k];                               \
                    acc[j - 1][k] = 0;                                        \
                }                                                             \
            }                                                                 \
        }                                                                     \
        for (; i < size; i++) {                                               \
            const T *row = (const T *)(src + i * rs);                         \
            for (int k = 0; k < 4 * L; k++) {                                 \
                a0[k] += row[k];                                              \
            }                                                                 \
        }                                                                     \
        for (int k = 0; k < 4 * L; k++) {                                     \
            ret[k] = ((a0[k] + acc[1][k]) + acc[2][k]) + acc[3][k];           \
        }                                                                     \
    }                                                                         \
    /* row_sum of n scalars st bytes apart: 4 interleaved cascades */        \
    static T rowsum_##S(const char *src, int64_t st, int64_t n)               \
    {                                                                         \
        T part[4];                                                            \
        int64_t nilp = n / 4;                                                 \
        mrs_##S(src, 4 * st, st, 4, nilp, level_power(nilp), NULL, part);    \
        for (int64_t i = nilp * 4; i < n; i++) {                              \
            part[0] += *(const T *)(src + i * st);                            \
        }                                                                     \
        return ((part[0] + part[1]) + part[2]) + part[3];                     \
    }                                                                         \
    /* vectorized_inner_sum: row_sum over vectors of L lanes */              \
    CLONES static void blocks_##S(void *ctx, int tid, int nthreads)           \
    {                                                                         \
        blockjob *b = ctx;                                                    \
        int64_t rb = 4 * L * (int64_t)sizeof(T), k;                           \
        (void)tid, (void)nthreads;                                            \
        while ((k = atomic_fetch_add(&b->next, 1)) < b->nblocks) {            \
            mrsv_##S(b->src + k * b->blk * rb, rb, b->blk, b->lp, NULL,        \
                     (T *)b->out + k * 4 * L);                                \
        }                                                                     \
    }                                                                         \
    CLONES static T cascade_##S(const char *src, int64_t n, int nthreads)     \
    {                                                                         \
        const int64_t z = (int64_t)sizeof(T);                                 \
        if (n < L) {                                                          \
            return rowsum_##S(src, z, n);                                     \
        }                                                                     \
        int64_t nvec = n / L, nilp = nvec / 4, lp = level_power(nilp);        \
        T part[4 * L];                                                        \
        blockjob bj = {src, 0, (int64_t)1 << (3 * lp), lp, NULL, 0};          \
        bj.nblocks = nilp / bj.blk;                                           \
        if (nthreads > 1 && bj.nblocks >= 2 &&                                \
            (bj.out = malloc(sizeof(T) * 4 * L * (size_t)bj.nblocks))) {      \
            /* Note [Cascade sums]: whole top-level blocks in parallel */    \
            T acc3[4 * L] = {0};                                              \
            ct__parallel_run(nthreads, blocks_##S, &bj);                      \
            for (int64_t k = 0; k < bj.nblocks; k++) {                        \
                for (int l = 0; l < 4 * L; l++) {                             \
                    acc3[l] += ((T *)bj.out)[k * 4 * L + l];                  \
                }                                                             \
            }                                                                 \
            free(bj.out);                                                     \
            mrsv_##S(src + bj.nblocks * bj.blk * 4 * L * z, 4 * L * z,         \
                     nilp - bj.nblocks * bj.blk, lp, acc3, part);             \
        }                                                                     \
        else {                                                                \
            mrsv_##S(src, 4 * L * z, nilp, lp, NULL, part);                   \
        }                                                                     \
        const T *p = (const T *)src;                                          \
        for (int64_t i = nilp * 4; i < nvec; i++) {                           \
            for (int l = 0; l < L; l++) {                                     \
                part[l] += p[i * L + l];                                      \
            }                                                                 \
        }                                                                     \
        for (int k = 1; k < 4; k++) {                                         \
            for (int l = 0; l < L; l++) {                                     \
                part[l] += part[k * L + l];                                   \
            }                                                                 \
        }                                                                     \
        T fin = 0;                                                            \
        for (int64_t k = nvec * L; k < n; k++) {                              \
            fin += p[k];                                                      \
        }                                                                     \
        for (int l = 0; l < L; l++) {                                         \
            fin += part[l];                                                   \
        }                                                                     \
        return fin;                                                           \
    }                                                                         \
    /* vectorized_outer_sum for columns [c0, c0 + m) of C: whole groups of   \
     * 4 vectors cascade per column, the rest use row_sum */                 \
    CLONES static void colcascade_##S(const char *src, int64_t rs, int64_t R, \
                               int64_t c0, int64_t m, int64_t C, double *out) \
    {                                                                         \
        const int64_t z = (int64_t)sizeof(T);                                 \
        int64_t groups = C / (4 * L) * (4 * L);                               \
        int64_t mv = groups - c0 < m ? (groups - c0 > 0 ? groups - c0 : 0) : m; \
        T res[COLBLOCK];                                                      \
        if (mv > 0) {                                                         \
            mrs_##S(src, rs, z, mv, R, level_power(R), NULL, res);            \
        }                                                                     \
        for (int64_t c = mv; c < m; c++) {                                    \
            res[c] = rowsum_##S(src + c * z, rs, R);                          \
        }                                                                     \
        for (int64_t c = 0; c < m; c++) {                                     \
            out[c] = (double)res[c];                                          \
        }                                                                     \
    }                                                                         \
    static double cascade_d_##S(const char *src, int64_t n, int nthreads)     \
    {                                                                         \
        return (double)cascade_##S(src, n, nthreads);                         \
    }
CASCADE_DTYPES(X)
#undef X

/* The lanes of a max / min scan over n contiguous values: lm[] the best
 * of each lane, chk[] a sum of v * 0 that turns NaN on a NaN or an
 * infinity; returns how many values the lanes covered.  SSE2 (baseline on
 * x86-64) where available: GCC does not vectorize a NaN-exact max. */
#if defined(__SSE2__)
#include <emmintrin.h>
#define SIMD_BEST(S, T, V, W, LD, SET1, ZERO, MAXF, MINF, MULF, ADDF, STORE)   \
    static int64_t lanes_##S(const T *p, int64_t n, bool mx, T *lm, T *chk)   \
    {                                                                         \
        V a0 = SET1(p[0]), a1 = a0, c0 = ZERO(), c1 = ZERO(), z = ZERO();    \
        int64_t i = 0;                                                        \
        if (mx) {                                                             \
            for (; i + 2 * W <= n; i += 2 * W) {                              \
                V v0 = LD(p + i), v1 = LD(p + i + W);                         \
                c0 = ADDF(c0, MULF(v0, z));                                   \
                c1 = ADDF(c1, MULF(v1, z));                                   \
                a0 = MAXF(v0, a0);                                            \
                a1 = MAXF(v1, a1);                                            \
            }                                                                 \
        }                                                                     \
        else {                                                                \
            for (; i + 2 * W <= n; i += 2 * W) {                              \
                V v0 = LD(p + i), v1 = LD(p + i + W);                         \
                c0 = ADDF(c0, MULF(v0, z));                                   \
                c1 = ADDF(c1, MULF(v1, z));                                   \
                a0 = MINF(v0, a0);                                            \
                a1 = MINF(v1, a1);                                            \
            }                                                                 \
        }                                                                     \
        STORE(lm, a0);                                                        \
        STORE(lm + W, a1);                                                    \
        STORE(chk, c0);                                                       \
        STORE(chk + W, c1);                                                   \
        return i;                                                             \
    }
SIMD_BEST(f32, float, __m128, 4, _mm_loadu_ps, _mm_set1_ps, _mm_setzero_ps, _mm_max_ps,
          _mm_min_ps, _mm_mul_ps, _mm_add_ps, _mm_storeu_ps)
SIMD_BEST(f64, double, __m128d, 2, _mm_loadu_pd, _mm_set1_pd, _mm_setzero_pd,
          _mm_max_pd, _mm_min_pd, _mm_mul_pd, _mm_add_pd, _mm_storeu_pd)
#undef SIMD_BEST

/* amax / amin of column block [0, m) over R rows rs bytes apart into out[];
 * false (nothing written) when a NaN or an infinity shows up, for the
 * exact path to redo the block.  m is a multiple of the vector width. */
#define SIMD_COLBEST(S, T, V, W, LD, ZERO, MAXF, MINF, MULF, ADDF, STORE)       \
    static bool colbest_simd_##S(const char *src, int64_t rs, int64_t R,       \
                                 int64_t m, bool mx, double *out)              \
    {                                                                         \
        T best[COLBLOCK], chk[W];                                             \
        V z = ZERO(), c = ZERO();                                             \
        memcpy(best, src, sizeof(T) * (size_t)m);                             \
        for (int64_t r = 1; r < R; r++) {                                     \
            const T *row = (const T *)(src + r * rs);                         \
            for (int64_t k = 0; k < m; k += W) {                              \
                V v = LD(row + k), b = LD(best + k);                          \
                c = ADDF(c, MULF(v, z));                                      \
                STORE(best + k, mx ? MAXF(v, b) : MINF(v, b));                \
            }                                                                 \
        }                                                                     \
        for (int64_t k = 0; k < m; k += W) {                                  \
            c = ADDF(c, MULF(LD(best + k), z));                               \
        }                                                                     \
        STORE(chk, c);                                                        \
        for (int k = 0; k < W; k++) {                                         \
            if (chk[k] != 0) {                                                \
                return false;                                                 \
            }                                                                 \
        }                                                                     \
        for (int64_t k = 0; k < m; k++) {                                     \
            out[k] = (double)best[k];                                         \
        }                                                                     \
        return true;                                                          \
    }
SIMD_COLBEST(f32, float, __m128, 4, _mm_loadu_ps, _mm_setzero_ps, _mm_max_ps,
             _mm_min_ps, _mm_mul_ps, _mm_add_ps, _mm_storeu_ps)
SIMD_COLBEST(f64, double, __m128d, 2, _mm_loadu_pd, _mm_setzero_pd, _mm_max_pd,
             _mm_min_pd, _mm_mul_pd, _mm_add_pd, _mm_storeu_pd)
#undef SIMD_COLBEST
typedef bool (*colbest_simd_fn)(const char *, int64_t, int64_t, int64_t, bool, double *);
static const colbest_simd_fn colbest_simds[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT32] = colbest_simd_f32,
    [CT_DTYPE_FLOAT64] = colbest_simd_f64,
};
#else
#define PLAIN_BEST(S, T, W)                                                   \
    static int64_t lanes_##S(const T *p, int64_t n, bool mx, T *lm, T *chk)   \
    {                                                                         \
        (void)p, (void)n, (void)mx;                                           \
        for (int k = 0; k < 2 * W; k++) {                                     \
            lm[k] = p[0];                                                     \
            chk[k] = 0;                                                       \
        }                                                                     \
        return 0;                                                             \
    }
PLAIN_BEST(f32, float, 4)
PLAIN_BEST(f64, double, 2)
#undef PLAIN_BEST
typedef bool (*colbest_simd_fn)(const char *, int64_t, int64_t, int64_t, bool, double *);
static const colbest_simd_fn colbest_simds[CT_DTYPE_COUNT];
#endif

/* The best (max when mx, else min) of n contiguous values and its first
 * position; a NaN wins (the first one). */
#define X(E, T, S, L)                                                         \
    static void bestrun_##S(const char *src, int64_t n, bool mx, double *val, \
                            int64_t *pos)                                     \
    {                                                                         \
        const T *p = (const T *)src;                                          \
        T lm[8], chk[8];                                                      \
        const int nl = 2 * (16 / (int)sizeof(T));    /* two SSE vectors */   \
        int64_t i = lanes_##S(p, n, mx, lm, chk);                             \
        bool nan = false;                                                     \
        T m = lm[0];                                                          \
        for (int k = 0; k < nl && k < 8; k++) {                               \
            m = (mx ? lm[k] > m : lm[k] < m) ? lm[k] : m;                     \
            nan |= chk[k] != 0;                                               \
        }                                                                     \
        if (nan) {                                                            \
            /* an infinity or a NaN: the exact scalar scan */                \
            m = p[0];                                                         \
            i = 0;                                                            \
        }                                                                     \
        for (; i < n; i++) {                                                  \
            m = (p[i] != p[i] || (mx ? p[i] > m : p[i] < m)) ? p[i] : m;      \
            if (m != m) {                                                     \
                break;                                                        \
            }                                                                 \
        }                                                                     \
        *val = (double)m;                                                     \
        if (pos == NULL) {                                                    \
            return;                                                           \
        }                                                                     \
        for (i = 0; i < n; i++) {                                             \
            if (m != m ? p[i] != p[i] : p[i] == m) {                          \
                break;                                                        \
            }                                                                 \
        }                                                                     \
        *pos = i;                                                             \
    }
CASCADE_DTYPES(X)
#undef X

typedef void (*bestrun_fn)(const char *, int64_t, bool, double *, int64_t *);
static const bestrun_fn bestruns[CT_DTYPE_COUNT] = {
#define X(E, T, S, L) [E] = bestrun_##S,
    CASCADE_DTYPES(X)
#undef X
};

typedef double (*cascade_fn)(const char *, int64_t, int);
typedef void (*colcascade_fn)(const char *, int64_t, int64_t, int64_t, int64_t, int64_t,
                              double *);

static const cascade_fn cascades[CT_DTYPE_COUNT] = {
#define X(E, T, S, L) [E] = cascade_d_##S,
    CASCADE_DTYPES(X)
#undef X
};
static const colcascade_fn colcascades[CT_DTYPE_COUNT] = {
#define X(E, T, S, L) [E] = colcascade_##S,
    CASCADE_DTYPES(X)
#undef X
};

typedef void (*read_f64_fn)(const char *, int64_t, int64_t, double *);
typedef void (*read_i64_fn)(const char *, int64_t, int64_t, int64_t *);
typedef double (*sumrun_fn)(const char *, int64_t);
typedef void (*colsum_fn)(const char *, int64_t, int64_t, int64_t, double *);

static const read_f64_fn readers_f64[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = read_f64_##S,
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
};
static const read_i64_fn readers_i64[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = read_i64_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
#undef X
};
static const sumrun_fn sumruns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = sumrun_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};
static const colsum_fn colsums[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = colsum_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

void
ct__reduce_read_f64(ct_dtype dtype, const char *src, int64_t stride, int64_t n,
                    double *dst)
{
    readers_f64[dtype](src, stride, n, dst);
}

void
ct__reduce_read_i64(ct_dtype dtype, const char *src, int64_t stride, int64_t n,
                    int64_t *dst)
{
    readers_i64[dtype](src, stride, n, dst);
}

int
ct__reduce_check_numeric(const char *name, const ct_tensor *t)
{
    if (ct_dtype_table[t->dtype].is_quantized) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

/* --- op states ---------------------------------------------------------- */
typedef struct {
    double d;           /* sum, product, best value, norm accumulator */
    double mean, m2;    /* Welford (var/std); logsumexp: mean = running max */
    int64_t i;          /* integer accumulator / best integer value */
    int64_t n;          /* values seen */
    int64_t idx;        /* position of the best value */
    bool nan, posinf;
} rstate;

typedef void (*acc_f64_fn)(rstate *s, const double *v, int64_t n, int64_t base,
                           double p);
typedef void (*acc_i64_fn)(rstate *s, const int64_t *v, int64_t n, int64_t base);
typedef void (*merge_fn)(rstate *into, const rstate *from, double p);

static void
acc_sum_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    double a = s->d;
    for (int64_t k = 0; k < n; k++) {
        a += v[k];
    }
    s->d = a;
    s->n += n;
}

static void
acc_sum_i(rstate *s, const int64_t *v, int64_t n, int64_t base)
{
    (void)base;
    uint64_t a = (uint64_t)s->i;
    for (int64_t k = 0; k < n; k++) {
        a += (uint64_t)v[k];
    }
    s->i = (int64_t)a;
    s->n += n;
}

static void
merge_sum(rstate *s, const rstate *o, double p)
{
    (void)p;
    s->d += o->d;
    s->i = (int64_t)((uint64_t)s->i + (uint64_t)o->i);
    s->n += o->n;
}

static void
acc_prod_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    for (int64_t k = 0; k < n; k++) {
        s->d *= v[k];
    }
}

static void
acc_prod_i(rstate *s, const int64_t *v, int64_t n, int64_t base)
{
    (void)base;
    uint64_t a = (uint64_t)s->i;
    for (int64_t k = 0; k < n; k++) {
        a *= (uint64_t)v[k];
    }
    s->i = (int64_t)a;
}

static void
merge_prod(rstate *s, const rstate *o, double p)
{
    (void)p;
    s->d *= o->d;
    s->i = (int64_t)((uint64_t)s->i * (uint64_t)o->i);
}

/* max/min with the first index; a NaN wins and stays (PyTorch). */
#define BEST_OPS(NAME, CMP)                                                   \
    static void acc_##NAME##_f(rstate *s, const double *v, int64_t n,         \
                               int64_t base, double p)                        \
    {                                                                         \
        (void)p;                                                              \
        int64_t k = 0;                                                        \
        if (s->n == 0 && n > 0) {                                             \
            s->d = v[0];                                                      \
            s->idx = base;                                                    \
            k = 1;                                                            \
        }                                                                     \
        for (; k < n; k++) {                                                  \
            if (isnan(s->d)) {                                                \
                break;                                                        \
            }                                                                 \
            if (v[k] CMP s->d || isnan(v[k])) {                               \
                s->d = v[k];                                                  \
                s->idx = base + k;                                            \
            }                                                                 \
        }                                                                     \
        s->n += n;                                                            \
    }                                                                         \
    static void acc_##NAME##_i(rstate *s, const int64_t *v, int64_t n,        \
                               int64_t base)                                  \
    {                                                                         \
        int64_t k = 0;                                                        \
        if (s->n == 0 && n > 0) {                                             \
            s->i = v[0];                                                      \
            s->idx = base;                                                    \
            k = 1;                                                            \
        }                                                                     \
        for (; k < n; k++) {                                                  \
            if (v[k] CMP s->i) {                                              \
                s->i = v[k];                                                  \
                s->idx = base + k;                                            \
            }                                                                 \
        }                                                                     \
        s->n += n;                                                            \
    }                                                                         \
    /* `o` covers later positions than `s`: ties keep s */                   \
    static void merge_##NAME(rstate *s, const rstate *o, double p)            \
    {                                                                         \
        (void)p;                                                              \
        if (o->n == 0) {                                                      \
            return;                                                           \
        }                                                                     \
        bool take = s->n == 0 ||                                              \
                    (!isnan(s->d) && (o->d CMP s->d || isnan(o->d))) ||       \
                    o->i CMP s->i;                                            \
        if (take) {                                                           \
            s->d = o->d;                                                      \
            s->i = o->i;                                                      \
            s->idx = o->idx;                                                  \
        }                                                                     \
        s->n += o->n;                                                         \
    }
BEST_OPS(max, >)
BEST_OPS(min, <)
#undef BEST_OPS

static void
acc_all_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    for (int64_t k = 0; k < n; k++) {
        s->i &= v[k] != 0;
    }
}

static void
acc_all_i(rstate *s, const int64_t *v, int64_t n, int64_t base)
{
    (void)base;
    for (int64_t k = 0; k < n; k++) {
        s->i &= v[k] != 0;
    }
}

static void
merge_all(rstate *s, const rstate *o, double p)
{
    (void)p;
    s->i &= o->i;
}

static void
acc_any_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    for (int64_t k = 0; k < n; k++) {
        s->i |= v[k] != 0;
    }
}

static void
acc_any_i(rstate *s, const int64_t *v, int64_t n, int64_t base)
{
    (void)base;
    for (int64_t k = 0; k < n; k++) {
        s->i |= v[k] != 0;
    }
}

static void
merge_any(rstate *s, const rstate *o, double p)
{
    (void)p;
    s->i |= o->i;
}

static void
acc_count_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    for (int64_t k = 0; k < n; k++) {
        s->i += v[k] != 0;
    }
}

static void
acc_count_i(rstate *s, const int64_t *v, int64_t n, int64_t base)
{
    (void)base;
    for (int64_t k = 0; k < n; k++) {
        s->i += v[k] != 0;
    }
}

/* A chunk's mean and squared deviations (two passes over the buffer),
 * merged into the running state with Chan's formula. */
static void merge_var(rstate *s, const rstate *o, double p);

static void
acc_var_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base;
    if (n == 0) {
        return;
    }
    double sum = 0, m2 = 0;
    for (int64_t k = 0; k < n; k++) {
        sum += v[k];
    }
    double mean = sum / (double)n;
    if (isinf(mean) && n > 1) {
        /* PyTorch's Welford update turns an infinity into NaN once a
         * further value arrives (inf - inf) */
        mean = NAN;
    }
    for (int64_t k = 0; k < n; k++) {
        m2 += (v[k] - mean) * (v[k] - mean);
    }
    rstate c = {0};
    c.n = n;
    c.mean = mean;
    c.m2 = m2;
    merge_var(s, &c, p);
}

static void
merge_var(rstate *s, const rstate *o, double p)
{
    (void)p;
    if (o->n == 0) {
        return;
    }
    if (s->n == 0) {
        s->n = o->n;
        s->mean = o->mean;
        s->m2 = o->m2;
        return;
    }
    double n = (double)(s->n + o->n), delta = o->mean - s->mean;
    s->m2 += o->m2 + delta * delta * (double)s->n * (double)o->n / n;
    s->mean += delta * (double)o->n / n;
    s->n += o->n;
}

/* Vector norms: sum of |v|^p, or max / min |v| for +-inf, count for 0. */
static void
acc_norm_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base;
    if (p == INFINITY) {
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k]);
            if (a > s->d || isnan(a)) {
                s->d = isnan(s->d) ? s->d : a;
            }
        }
    }
    else if (p == -INFINITY) {
        for (int64_t k = 0; k < n; k++) {
            double a = fabs(v[k]);
            if (a < s->d || isnan(a)) {
                s->d = isnan(s->d) ? s->d : a;
            }
        }
    }
    else if (p == 0) {
        for (int64_t k = 0; k < n; k++) {
            s->d += v[k] != 0;
        }
    }
    else if (p == 1) {
        for (int64_t k = 0; k < n; k++) {
            s->d += fabs(v[k]);
        }
    }
    else if (p == 2) {
        for (int64_t k = 0; k < n; k++) {
            s->d += v[k] * v[k];
        }
    }
    else {
        for (int64_t k = 0; k < n; k++) {
            s->d += pow(fabs(v[k]), p);
        }
    }
    s->n += n;
}

static void
merge_norm(rstate *s, const rstate *o, double p)
{
    if (p == INFINITY || p == -INFINITY) {
        double one = o->d;
        acc_norm_f(s, &one, 1, 0, p);
        s->n += o->n - 1;
    }
    else {
        s->d += o->d;
        s->n += o->n;
    }
}

/* Running max (mean) and sum of exp(v - max). */
static void
acc_lse_f(rstate *s, const double *v, int64_t n, int64_t base, double p)
{
    (void)base, (void)p;
    for (int64_t k = 0; k < n; k++) {
        double x = v[k];
        if (isnan(x)) {
            s->nan = true;
        }
        else if (x == INFINITY) {
            s->posinf = true;
        }
        else if (x == -INFINITY) {
            continue;
        }
        else if (x > s->mean) {
            s->d = s->d * exp(s->mean - x) + 1;
            s->mean = x;
        }
        else {
            s->d += exp(x - s->mean);
        }
    }
}

/* --- the op table ------------------------------------------------------- */
typedef struct {
    acc_f64_fn acc_f;
    acc_i64_fn acc_i;       /* NULL: integers are read as doubles */
    merge_fn merge;         /* NULL: a single reduction is not split */
    double init_d;
    int64_t init_i;
} reduce_kind;

static const reduce_kind kinds[CT_REDUCE_COUNT] = {
    [CT_REDUCE_SUM] = {acc_sum_f, acc_sum_i, merge_sum, 0, 0},
    [CT_REDUCE_PROD] = {acc_prod_f, acc_prod_i, merge_prod, 1, 1},
    [CT_REDUCE_MEAN] = {acc_sum_f, NULL, merge_sum, 0, 0},
    [CT_REDUCE_AMAX] = {acc_max_f, acc_max_i, merge_max, 0, 0},
    [CT_REDUCE_AMIN] = {acc_min_f, acc_min_i, merge_min, 0, 0},
    [CT_REDUCE_MAX] = {acc_max_f, acc_max_i, merge_max, 0, 0},
    [CT_REDUCE_MIN] = {acc_min_f, acc_min_i, merge_min, 0, 0},
    [CT_REDUCE_ARGMAX] = {acc_max_f, acc_max_i, merge_max, 0, 0},
    [CT_REDUCE_ARGMIN] = {acc_min_f, acc_min_i, merge_min, 0, 0},
    [CT_REDUCE_ALL] = {acc_all_f, acc_all_i, merge_all, 0, 1},
    [CT_REDUCE_ANY] = {acc_any_f, acc_any_i, merge_any, 0, 0},
    [CT_REDUCE_COUNT_NONZERO] = {acc_count_f, acc_count_i, merge_sum, 0, 0},
    [CT_REDUCE_VAR] = {acc_var_f, NULL, merge_var, 0, 0},
    [CT_REDUCE_STD] = {acc_var_f, NULL, merge_var, 0, 0},
    [CT_REDUCE_NORM] = {acc_norm_f, NULL, merge_norm, 0, 0},
    [CT_REDUCE_LOGSUMEXP] = {acc_lse_f, NULL, NULL, 0, 0},
};

static const char *const reduce_names[CT_REDUCE_COUNT] = {
#define X(E, N) [E] = N,
    CT_FORALL_REDUCE_OPS(X)
#undef X
};

_Static_assert(sizeof kinds / sizeof kinds[0] == CT_REDUCE_COUNT, "op table size");

static void
state_init(rstate *s, ct_reduce_op op, double p)
{
    memset(s, 0, sizeof *s);
    s->d = kinds[op].init_d;
    s->i = kinds[op].init_i;
    if (op == CT_REDUCE_NORM && p == -INFINITY) {
        s->d = INFINITY;
    }
    if (op == CT_REDUCE_LOGSUMEXP) {
        s->mean = -INFINITY;
    }
}

/* --- the engine ---------------------------------------------------------- */
typedef struct {
    ct_reduce_op op;
    double p, correction;
    ct_dtype dtype;             /* input dtype */
    bool isint;                 /* accumulate as int64 */
    const char *data;
    int nkept, nred;
    int64_t ksizes[CT_MAX_DIMS], kstrides[CT_MAX_DIMS];   /* strides in bytes */
    int64_t rsizes[CT_MAX_DIMS], rstrides[CT_MAX_DIMS];
    int64_t nout, nredtotal;
    rstate *states;             /* one per output (or per thread part) */
} rjob;

static const char *
out_base(const rjob *j, int64_t o)
{
    const char *p = j->data;
    for (int k = j->nkept - 1; k >= 0; k--) {
        int64_t sz = j->ksizes[k];
        p += (o % sz) * j->kstrides[k];
        o /= sz;
    }
    return p;
}

static bool
is_best_op(ct_reduce_op op)
{
    return op == CT_REDUCE_AMAX || op == CT_REDUCE_AMIN || op == CT_REDUCE_MAX ||
           op == CT_REDUCE_MIN || op == CT_REDUCE_ARGMAX || op == CT_REDUCE_ARGMIN;
}

/* Accumulate reduced elements [a, b) (row-major over the reduced dims)
 * starting at base into s. */
static void
walk(const rjob *j, const char *base, int64_t a, int64_t b, rstate *s)
{
    double bufd[CHUNK];
    int64_t bufi[CHUNK];
    int64_t idx[CT_MAX_DIMS];
    int last = j->nred - 1;
    const reduce_kind *k = &kinds[j->op];
    bool fastsum = (j->op == CT_REDUCE_SUM || j->op == CT_REDUCE_MEAN) && !j->isint &&
                   j->rstrides[last] == (int64_t)ct_dtype_itemsize(j->dtype);
    bool mx = j->op == CT_REDUCE_AMAX || j->op == CT_REDUCE_MAX ||
              j->op == CT_REDUCE_ARGMAX;
    bool fastbest = is_best_op(j->op) && !j->isint && bestruns[j->dtype] &&
                    j->rstrides[last] == (int64_t)ct_dtype_itemsize(j->dtype);
    int64_t rem = a;
    const char *p = base;

    if (a >= b) {
        return;
    }

    for (int d = last; d >= 0; d--) {
        idx[d] = rem % j->rsizes[d];
        rem /= j->rsizes[d];
        p += idx[d] * j->rstrides[d];
    }
    int64_t pos = a;
    while (pos < b) {
        int64_t run = j->rsizes[last] - idx[last];
        if (run > b - pos) {
            run = b - pos;
        }
        int64_t st = j->rstrides[last];
        if (fastbest && run > 0) {
            double v;
            int64_t at = 0;
            bool need = j->op != CT_REDUCE_AMAX && j->op != CT_REDUCE_AMIN;
            bestruns[j->dtype](p, run, mx, &v, need ? &at : NULL);
            if (s->n == 0 || (!isnan(s->d) && ((mx ? v > s->d : v < s->d) || isnan(v)))) {
                s->d = v;
                s->idx = pos + at;
            }
            s->n += run;
        }
        else if (fastsum && cascades[j->dtype] && a == 0 && run == j->nredtotal) {
            s->d = cascades[j->dtype](p, run, 1);
            s->n += run;
        }
        else if (fastsum) {
            s->d += sumruns[j->dtype](p, run);
            s->n += run;
        }
        else {
            for (int64_t done = 0; done < run; done += CHUNK) {
                int64_t m = run - done < CHUNK ? run - done : CHUNK;
                if (j->isint) {
                    readers_i64[j->dtype](p + done * st, st, m, bufi);
                    k->acc_i(s, bufi, m, pos + done);
                }
                else {
                    readers_f64[j->dtype](p + done * st, st, m, bufd);
                    k->acc_f(s, bufd, m, pos + done, j->p);
                }
            }
        }
        pos += run;
        p += run * st;
        idx[last] += run;
        /* carry into the outer reduced dims */
        for (int d = last; d > 0 && idx[d] == j->rsizes[d]; d--) {
            p -= idx[d] * j->rstrides[d];
            idx[d] = 0;
            idx[d - 1]++;
            p += j->rstrides[d - 1];
        }
    }
}

typedef struct {
    rjob *j;
    int mode;                   /* 0: outputs; 1: one reduction; 2: columns */
    int64_t colblocks;          /* mode 2: blocks of COLBLOCK columns */
    int64_t piece;              /* modes 0 and 2: items taken at a time */
    atomic_llong next;          /* modes 0 and 2: next item to take */
} rpar;

static void
run_outputs(rjob *j, int64_t o0, int64_t o1)
{
    for (int64_t o = o0; o < o1; o++) {
        state_init(&j->states[o], j->op, j->p);
        walk(j, out_base(j, o), 0, j->nredtotal, &j->states[o]);
    }
}

/* Sums over the outer dim of [rows, cols] (one kept dim, contiguous). */
/* max/min family over the outer dim of [rows, cols]: whole rows of a block
 * of columns at a time, each column keeping its best value and row. */
static void
colbest(rjob *j, int64_t c0, int64_t m)
{
    double vd[COLBLOCK];
    int64_t vi[COLBLOCK];
    int64_t z = (int64_t)ct_dtype_itemsize(j->dtype);
    bool mx = j->op == CT_REDUCE_AMAX || j->op == CT_REDUCE_MAX || j->op == CT_REDUCE_ARGMAX;
    rstate *st = &j->states[c0];
    for (int64_t c = 0; c < m; c++) {
        state_init(&st[c], j->op, j->p);
        st[c].n = j->rsizes[0];
    }
    if ((j->op == CT_REDUCE_AMAX || j->op == CT_REDUCE_AMIN) && !j->isint &&
        colbest_simds[j->dtype] && m % 4 == 0 &&
        colbest_simds[j->dtype](j->data + c0 * z, j->rstrides[0], j->rsizes[0], m, mx,
                                vd)) {
        for (int64_t c = 0; c < m; c++) {
            st[c].d = vd[c];
        }
        return;
    }
    for (int64_t r = 0; r < j->rsizes[0]; r++) {
        const char *row = j->data + r * j->rstrides[0] + c0 * z;
        if (j->isint) {
            readers_i64[j->dtype](row, z, m, vi);
            for (int64_t c = 0; c < m; c++) {
                if (r == 0 || (mx ? vi[c] > st[c].i : vi[c] < st[c].i)) {
                    st[c].i = vi[c];
                    st[c].idx = r;
                }
            }
            continue;
        }
        readers_f64[j->dtype](row, z, m, vd);
        for (int64_t c = 0; c < m; c++) {
            double v = vd[c], b = st[c].d;
            if (r == 0 || (!isnan(b) && ((mx ? v > b : v < b) || isnan(v)))) {
                st[c].d = v;
                st[c].idx = r;
            }
        }
    }
}

static void
run_colblocks(rjob *j, int64_t b0, int64_t b1)
{
    double acc[COLBLOCK];
    int64_t z = (int64_t)ct_dtype_itemsize(j->dtype);
    for (int64_t b = b0; b < b1; b++) {
        if (is_best_op(j->op)) {
            int64_t c0 = b * COLBLOCK;
            colbest(j, c0, j->nout - c0 < COLBLOCK ? j->nout - c0 : COLBLOCK);
            continue;
        }
        int64_t c0 = b * COLBLOCK, m = j->nout - c0 < COLBLOCK ? j->nout - c0 : COLBLOCK;
        memset(acc, 0, sizeof acc);
        if (colcascades[j->dtype]) {
            colcascades[j->dtype](j->data + c0 * z, j->rstrides[0], j->rsizes[0], c0, m,
                                  j->nout, acc);
        }
        else {
            colsums[j->dtype](j->data + c0 * z, j->rstrides[0], j->rsizes[0], m, acc);
        }
        for (int64_t c = 0; c < m; c++) {
            state_init(&j->states[c0 + c], j->op, j->p);
            j->states[c0 + c].d = acc[c];
            j->states[c0 + c].n = j->rsizes[0];
        }
    }
}

static void
par_part(void *ctx, int tid, int nthreads)
{
    rpar *pp = ctx;
    rjob *j = pp->j;
    /* modes 0 and 2 take pieces from a shared counter, so that a thread
     * the OS delays does not hold the others up */
    if (pp->mode == 0 || pp->mode == 2) {
        int64_t total = pp->mode == 0 ? j->nout : pp->colblocks, a;
        while ((a = atomic_fetch_add(&pp->next, pp->piece)) < total) {
            int64_t b = a + pp->piece < total ? a + pp->piece : total;
            if (pp->mode == 0) {
                run_outputs(j, a, b);
            }
            else {
                run_colblocks(j, a, b);
            }
        }
    }
    else {
        int64_t a = j->nredtotal * tid / nthreads, b = j->nredtotal * (tid + 1) / nthreads;
        state_init(&j->states[tid], j->op, j->p);
        walk(j, j->data, a, b, &j->states[tid]);
    }
}

/* Fill j->states (nout of them) for the input's geometry; 0 or -1. */
static int
engine_run(rjob *j)
{
    int64_t total = j->nout * j->nredtotal;
    int nthreads = ct__parallel_threads();
    int64_t want = total / MIN_PER_THREAD;
    if (want < nthreads) {
        nthreads = (int)(want > 1 ? want : 1);
    }
    bool colpath = (((j->op == CT_REDUCE_SUM || j->op == CT_REDUCE_MEAN) && !j->isint) ||
                    is_best_op(j->op)) &&
                   j->nkept == 1 && j->nred == 1 && j->nout > 1 &&
                   j->kstrides[0] == (int64_t)ct_dtype_itemsize(j->dtype) &&
                   j->rstrides[0] >= j->nout * j->kstrides[0];
    if (colpath) {
        rpar pp = {j, 2, (j->nout + COLBLOCK - 1) / COLBLOCK, 1, 0};
        if (pp.colblocks < nthreads) {
            nthreads = (int)pp.colblocks;
        }
        if (nthreads <= 1) {
            run_colblocks(j, 0, pp.colblocks);
        }
        else {
            ct__parallel_run(nthreads, par_part, &pp);
        }
        return 0;
    }
    if (nthreads <= 1 || j->nredtotal == 0) {
        run_outputs(j, 0, j->nout);
        return 0;
    }
    if (j->nout >= nthreads || j->nout > 1 || kinds[j->op].merge == NULL) {
        int64_t piece = MIN_PER_THREAD / (j->nredtotal ? j->nredtotal : 1);
        rpar pp = {j, 0, 0, piece > 0 ? piece : 1, 0};
        if (j->nout < nthreads) {
            nthreads = (int)j->nout;
        }
        if (nthreads <= 1) {
            run_outputs(j, 0, j->nout);
        }
        else {
            ct__parallel_run(nthreads, par_part, &pp);
        }
        return 0;
    }
    if ((j->op == CT_REDUCE_SUM || j->op == CT_REDUCE_MEAN) && !j->isint &&
        cascades[j->dtype] && j->nred == 1 &&
        j->rstrides[0] == (int64_t)ct_dtype_itemsize(j->dtype)) {
        /* one contiguous sum: PyTorch's serial cascade, computed in parallel */
        state_init(&j->states[0], j->op, j->p);
        j->states[0].d = cascades[j->dtype](j->data, j->nredtotal, nthreads);
        j->states[0].n = j->nredtotal;
        return 0;
    }
    /* one output: split the reduced range, merge the parts in order */
    rstate *parts = malloc(sizeof(rstate) * (size_t)nthreads);
    if (parts == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory");
    }
    rstate *keep = j->states;
    j->states = parts;
    rpar pp = {j, 1, 0, 0, 0};
    ct__parallel_run(nthreads, par_part, &pp);
    j->states = keep;
    keep[0] = parts[0];
    for (int t = 1; t < nthreads; t++) {
        kinds[j->op].merge(&keep[0], &parts[t], j->p);
    }
    free(parts);
    return 0;
}

/* The finished value of state s as a double (floating outputs) or int64. */
static void
finish(const rjob *j, const rstate *s, double *vd, int64_t *vi)
{
    double p = j->p;
    switch (j->op) {
    case CT_REDUCE_MEAN:
        *vd = s->d / (double)s->n;
        break;
    case CT_REDUCE_VAR:
    case CT_REDUCE_STD: {
        double div = (double)s->n - j->correction;
        *vd = s->m2 / (div > 0 ? div : 0);
        if (j->op == CT_REDUCE_STD) {
            *vd = sqrt(*vd);
        }
        break;
    }
    case CT_REDUCE_NORM:
        *vd = (p == 2) ? sqrt(s->d) : (p == 1 || p == 0 || isinf(p)) ? s->d
                                                                     : pow(s->d, 1.0 / p);
        break;
    case CT_REDUCE_LOGSUMEXP:
        *vd = s->nan ? NAN : s->posinf ? INFINITY : s->mean + log(s->d);
        break;
    default:
        *vd = s->d;
        break;
    }
    *vi = s->i;
}

/* Parse dims into a mask; -1 with PyTorch's IndexError / RuntimeError. */
static int
dims_mask(const ct_tensor *t, int ndims, const int64_t *dims, bool *mask)
{
    memset(mask, 0, sizeof(bool) * CT_MAX_DIMS);
    if (dims == NULL || ndims == 0) {
        for (int d = 0; d < t->ndim; d++) {
            mask[d] = true;
        }
        return 0;
    }
    for (int k = 0; k < ndims; k++) {
        int d = ct_wrap_dim(dims[k], t->ndim);
        if (d < 0) {
            return -1;
        }
        if (t->ndim == 0) {
            continue;
        }
        if (mask[d]) {
            return ct_error(CT_ERR_RUNTIME, "dim %d appears multiple times in the list "
                            "of dims", d);
        }
        mask[d] = true;
    }
    return 0;
}

/* The result dtype of op on input dtype `in` (dtype= already applied), or
 * CT_DTYPE_COUNT with the error set. */
static ct_dtype
result_dtype(ct_reduce_op op, ct_dtype in, const char *name)
{
    const char *legacy = ct_dtype_table[in].legacy;
    bool fl = ct_dtype_is_floating(in);
    switch (op) {
    case CT_REDUCE_SUM:
    case CT_REDUCE_PROD:
        return fl ? in : CT_DTYPE_INT64;
    case CT_REDUCE_MEAN:
        if (!fl) {
            ct_error(CT_ERR_RUNTIME, "mean(): could not infer output dtype. Input dtype "
                     "must be either a floating point or complex dtype. Got: %s", legacy);
            return CT_DTYPE_COUNT;
        }
        return in;
    case CT_REDUCE_VAR:
    case CT_REDUCE_STD:
        if (!fl) {
            ct_error(CT_ERR_RUNTIME, "%s only support floating point and complex dtypes",
                     strcmp(name, "var_mean") == 0 || strcmp(name, "std_mean") == 0
                         ? name : "std and var");
            return CT_DTYPE_COUNT;
        }
        return in;
    case CT_REDUCE_NORM:
        if (!fl) {
            if (strcmp(name, "norm") == 0) {
                ct_error(CT_ERR_RUNTIME, "norm(): input dtype should be either floating "
                         "point or complex. Got %s instead.", legacy);
            }
            else {
                ct_error(CT_ERR_RUNTIME, "%s: Expected a floating point or complex "
                         "tensor as input. Got %s", name, legacy);
            }
            return CT_DTYPE_COUNT;
        }
        return in;
    case CT_REDUCE_ARGMAX:
    case CT_REDUCE_ARGMIN:
    case CT_REDUCE_COUNT_NONZERO:
        return CT_DTYPE_INT64;
    case CT_REDUCE_ALL:
    case CT_REDUCE_ANY:
        return in == CT_DTYPE_UINT8 ? CT_DTYPE_UINT8 : CT_DTYPE_BOOL;
    default:
        return in;
    }
}

/* --- on a device ------------------------------------------------------------ */
/* The device kernel computing op (max/min with indices: the values; the
 * indices come from ARGMAX/ARGMIN); CT_CUDA_REDUCE_COUNT when none does. */
static ct_cuda_reduce_op
device_reduce_op(ct_reduce_op op)
{
    switch (op) {
    case CT_REDUCE_SUM:
    case CT_REDUCE_MEAN: return CT_CUDA_REDUCE_SUM;
    case CT_REDUCE_PROD: return CT_CUDA_REDUCE_PROD;
    case CT_REDUCE_AMAX: return CT_CUDA_REDUCE_AMAX;
    case CT_REDUCE_AMIN: return CT_CUDA_REDUCE_AMIN;
    case CT_REDUCE_MAX: return CT_CUDA_REDUCE_AMAX;
    case CT_REDUCE_MIN: return CT_CUDA_REDUCE_AMIN;
    case CT_REDUCE_ARGMAX: return CT_CUDA_REDUCE_ARGMAX;
    case CT_REDUCE_ARGMIN: return CT_CUDA_REDUCE_ARGMIN;
    case CT_REDUCE_ALL: return CT_CUDA_REDUCE_ALL;
    case CT_REDUCE_ANY: return CT_CUDA_REDUCE_ANY;
    default: return CT_CUDA_REDUCE_COUNT;
    }
}

static ct_tensor *device_reduce(ct_reduce_op op, const ct_tensor *in, const bool *mask,
                                bool keepdim, ct_dtype odt, ct_tensor **indices);

/* The vector norm of in on its device, from its pointwise and reduction
 * kernels: the sum of |x|^p to the power 1/p (p = 2: the square root of
 * the sum of squares; 1: the sum of |x|; 0: the count of nonzeros; inf /
 * -inf: the largest / smallest |x|), accumulated in float32 for half and
 * bfloat16, as PyTorch's CUDA kernels do. */
static ct_tensor *
device_norm(const ct_tensor *in, double p, const bool *mask, bool keepdim, ct_dtype odt)
{
    ct_dtype acc = in->dtype == CT_DTYPE_FLOAT16 || in->dtype == CT_DTYPE_BFLOAT16
                       ? CT_DTYPE_FLOAT32 : in->dtype;
    ct_tensor *x = ct_to_dtype(in, acc, false);
    ct_tensor *a = x != NULL ? ct_unary(CT_UNARY_ABS, x, NULL, CT_OUT_NEW) : NULL;
    ct_tensor *k = ct_scalar_tensor(ct_scalar_float(p == 0 ? 0 : p));
    ct_tensor *y = NULL, *r = NULL, *f = NULL, *out = NULL;
    ct_reduce_op rop = isinf(p) ? (p > 0 ? CT_REDUCE_AMAX : CT_REDUCE_AMIN) : CT_REDUCE_SUM;
    if (a == NULL || k == NULL) {
        goto done;
    }
    if (p == 0) {
        ct_tensor *nz = ct_binary(CT_BINARY_NE, a, k, ct_scalar_int(1), NULL, CT_OUT_NEW);
        y = nz != NULL ? ct_to_dtype(nz, acc, false) : NULL;
        ct_tensor_decref(nz);
    }
    else if (p == 2) {
        y = ct_mul(a, a);
    }
    else if (p == 1 || isinf(p)) {
        ct_tensor_incref(y = a);
    }
    else {
        y = ct_binary(CT_BINARY_POW, a, k, ct_scalar_int(1), NULL, CT_OUT_NEW);
    }
    r = y != NULL ? device_reduce(rop, y, mask, keepdim, acc, NULL) : NULL;
    if (r != NULL && p == 2) {
        f = ct_unary(CT_UNARY_SQRT, r, NULL, CT_OUT_NEW);
    }
    else if (r != NULL && p != 0 && p != 1 && !isinf(p)) {
        ct_tensor *inv = ct_scalar_tensor(ct_scalar_float(1.0 / p));
        f = inv != NULL ? ct_binary(CT_BINARY_POW, r, inv, ct_scalar_int(1), NULL,
                                    CT_OUT_NEW) : NULL;
        ct_tensor_decref(inv);
    }
    else if (r != NULL) {
        ct_tensor_incref(f = r);
    }
    out = f != NULL ? ct_to_dtype(f, odt, false) : NULL;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(a);
    ct_tensor_decref(k);
    ct_tensor_decref(y);
    ct_tensor_decref(r);
    ct_tensor_decref(f);
    return out;
}

/* ct_reduce of in (already in the compute dtype) on its device: kept dims
 * first, reduced ones after, as the part's reduce wants. */
static ct_tensor *
device_reduce(ct_reduce_op op, const ct_tensor *in, const bool *mask, bool keepdim,
              ct_dtype odt, ct_tensor **indices)
{
    int64_t oshape[CT_MAX_DIMS], perm[CT_MAX_DIMS], nred = 1;
    int ond = 0, nkept = 0;
    ct_cuda_reduce_op dop = device_reduce_op(op);
    if (ct__device_supports(CT_CUDA_REDUCE, dop, in->dtype, in) < 0) {
        return NULL;
    }
    for (int d = 0; d < in->ndim; d++) {
        if (!mask[d]) {
            perm[nkept++] = d;
        }
        if (!mask[d] || keepdim) {
            oshape[ond++] = mask[d] ? 1 : in->sizes[d];
        }
    }
    for (int d = 0, r = nkept; d < in->ndim; d++) {
        if (mask[d]) {
            perm[r++] = d;
            nred *= in->sizes[d];
        }
    }
    ct_tensor *x = ct_permute(in, in->ndim, perm);
    ct_tensor *out = x ? ct_empty(ond, oshape, op == CT_REDUCE_ARGMAX || op == CT_REDUCE_ARGMIN
                                                   ? CT_DTYPE_INT64 : odt,
                                  ct_tensor_device(in)) : NULL;
    ct_tensor *idx = NULL, *xi = NULL;
    bool with_idx = indices != NULL && (op == CT_REDUCE_MAX || op == CT_REDUCE_MIN);
    /* max/min(dim) of bool: the indices from its bytes (argmax/argmin of
     * bool have no kernel, as on 1.13's CPU) */
    if (x != NULL && with_idx) {
        xi = x->dtype == CT_DTYPE_BOOL ? ct_to_dtype(x, CT_DTYPE_UINT8, false)
                                       : (ct_tensor_incref(x), x);
    }
    if (out == NULL || (with_idx && xi == NULL) ||
        (with_idx && (idx = ct_empty(ond, oshape, CT_DTYPE_INT64, ct_tensor_device(in))) ==
                     NULL) ||
        ct__device_reduce(dop, out, nkept, x) < 0 ||
        (idx != NULL && ct__device_reduce(op == CT_REDUCE_MAX ? CT_CUDA_REDUCE_ARGMAX
                                                              : CT_CUDA_REDUCE_ARGMIN,
                                          idx, nkept, xi) < 0)) {
        goto fail;
    }
    ct_tensor_decref(xi);
    xi = NULL;
    if (op == CT_REDUCE_MEAN) {
        /* the sum over the count, as PyTorch's mean kernels divide */
        ct_tensor *n = ct_scalar_tensor(ct_scalar_int(nred));
        ct_tensor *m = n ? ct_binary(CT_BINARY_DIV, out, n, ct_scalar_int(1), out,
                                     CT_OUT_INPLACE) : NULL;
        ct_tensor_decref(n);
        if (m == NULL) {
            goto fail;
        }
        ct_tensor_decref(m);
    }
    ct_tensor_decref(x);
    if (indices != NULL) {
        *indices = idx;
    }
    return out;
fail:
    ct_tensor_decref(xi);
    ct_tensor_decref(x);
    ct_tensor_decref(out);
    ct_tensor_decref(idx);
    return NULL;
}

ct_tensor *
ct_reduce(ct_reduce_op op, const ct_tensor *t, int ndims, const int64_t *dims,
          bool keepdim, ct_dtype dtype, const ct_reduce_args *args,
          ct_tensor **indices)
{
    const char *name = args && args->name ? args->name : reduce_names[op];
    bool mask[CT_MAX_DIMS];
    int64_t oshape[CT_MAX_DIMS];
    int ond = 0;
    ct_tensor *in = NULL, *out = NULL, *idx = NULL;
    rjob *j = NULL;
    double *vd = NULL;
    int64_t *vi = NULL;

    if (indices) {
        *indices = NULL;
    }
    if (ct__reduce_check_numeric(name, t) < 0 ||
        (ct__is_device(t) && device_reduce_op(op) == CT_CUDA_REDUCE_COUNT &&
         op != CT_REDUCE_NORM && op != CT_REDUCE_COUNT_NONZERO && op != CT_REDUCE_VAR &&
         op != CT_REDUCE_STD && op != CT_REDUCE_LOGSUMEXP &&
         ct__no_device_kernel(t) < 0)) {
        return NULL;
    }
    /* the input in the dtype the op computes in */
    ct_dtype cdt = t->dtype;
    if (dtype != CT_DTYPE_COUNT &&
        (op == CT_REDUCE_SUM || op == CT_REDUCE_PROD || op == CT_REDUCE_MEAN ||
         op == CT_REDUCE_NORM)) {
        cdt = dtype;
    }
    if (op == CT_REDUCE_LOGSUMEXP && !ct_dtype_is_floating(cdt)) {
        cdt = ct_default_dtype();
    }
    ct_dtype odt = result_dtype(op, cdt, name);
    if (odt == CT_DTYPE_COUNT || dims_mask(t, ndims, dims, mask) < 0) {
        return NULL;
    }
    /* the kernels PyTorch 1.13 lacks on the CPU */
    if ((op == CT_REDUCE_PROD &&
         (cdt == CT_DTYPE_FLOAT16 || cdt == CT_DTYPE_BFLOAT16)) ||
        ((op == CT_REDUCE_ARGMAX || op == CT_REDUCE_ARGMIN) && cdt == CT_DTYPE_BOOL) ||
        (op == CT_REDUCE_LOGSUMEXP && cdt == CT_DTYPE_FLOAT16)) {
        ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'",
                 op == CT_REDUCE_LOGSUMEXP ? "exp_vml_cpu"
                 : op == CT_REDUCE_PROD    ? "prod_cpu"
                 : op == CT_REDUCE_ARGMAX  ? "argmax_cpu"
                                           : "argmin_cpu",
                 ct_dtype_table[cdt].legacy);
        return NULL;
    }
    if (is_best_op(op)) {
        bool full = dims == NULL || ndims == 0;
        if (full && t->numel == 0) {
            if (op == CT_REDUCE_ARGMAX || op == CT_REDUCE_ARGMIN) {
                ct_error(CT_ERR_INDEX, "%s(): Expected reduction dim to be specified for "
                         "input.numel() == 0.", name);
            }
            else {
                ct_error(CT_ERR_RUNTIME, "%s(): Expected reduction dim to be specified "
                         "for input.numel() == 0. Specify the reduction dim with the "
                         "'dim' argument.", name);
            }
            return NULL;
        }
        for (int d = 0; d < t->ndim && !full; d++) {
            if (mask[d] && t->sizes[d] == 0) {
                ct_error(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero "
                         "size.", name, d);
                return NULL;
            }
        }
    }
    if ((in = ct_to_dtype(t, cdt, false)) == NULL) {
        return NULL;
    }
    if (ct__is_device(in) && op == CT_REDUCE_COUNT_NONZERO) {
        /* the sum of in != 0 */
        ct_tensor *zero = ct_scalar_tensor(ct_scalar_int(0));
        ct_tensor *nz = zero != NULL ? ct_binary(CT_BINARY_NE, in, zero, ct_scalar_int(1),
                                                 NULL, CT_OUT_NEW) : NULL;
        out = nz != NULL ? device_reduce(CT_REDUCE_SUM, nz, mask, keepdim, odt, NULL) : NULL;
        ct_tensor_decref(nz);
        ct_tensor_decref(zero);
        ct_tensor_decref(in);
        return out;
    }
    if (ct__is_device(in)) {
        if (op == CT_REDUCE_VAR || op == CT_REDUCE_STD) {
            out = ct__device_var(in, mask, keepdim, args ? args->correction : 1,
                                 op == CT_REDUCE_STD, odt, indices);
        }
        else if (op == CT_REDUCE_LOGSUMEXP) {
            out = ct__device_logsumexp(in, mask, keepdim, odt);
        }
        else {
            out = op == CT_REDUCE_NORM ? device_norm(in, args ? args->p : 2, mask, keepdim,
                                                     odt)
                                       : device_reduce(op, in, mask, keepdim, odt, indices);
        }
        ct_tensor_decref(in);
        return out;
    }
    j = calloc(1, sizeof *j);
    if (j == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    j->op = op;
    j->p = args ? args->p : 2;
    j->correction = args ? args->correction : 1;
    j->dtype = cdt;
    j->isint = !ct_dtype_is_floating(cdt) && kinds[op].acc_i != NULL;
    j->data = in->numel ? ct_tensor_data(in) : NULL;
    j->nout = 1;
    j->nredtotal = 1;
    int64_t z = (int64_t)ct_dtype_itemsize(cdt);
    for (int d = 0; d < in->ndim; d++) {
        if (mask[d]) {
            if (keepdim) {
                oshape[ond++] = 1;
            }
            j->nredtotal *= in->sizes[d];
            if (in->sizes[d] == 1) {
                continue;
            }
            if (j->nred > 0 &&
                j->rstrides[j->nred - 1] == in->strides[d] * z * in->sizes[d]) {
                j->rsizes[j->nred - 1] *= in->sizes[d];
                j->rstrides[j->nred - 1] = in->strides[d] * z;
                continue;
            }
            j->rsizes[j->nred] = in->sizes[d];
            j->rstrides[j->nred++] = in->strides[d] * z;
        }
        else {
            oshape[ond++] = in->sizes[d];
            j->nout *= in->sizes[d];
            j->ksizes[j->nkept] = in->sizes[d];
            j->kstrides[j->nkept++] = in->strides[d] * z;
        }
    }
    if (j->nred == 0) {
        j->rsizes[0] = 1;
        j->rstrides[0] = z;
        j->nred = 1;
    }
    if (j->nredtotal == 0) {
        j->rsizes[0] = 0;
        j->nred = 1;
    }
    out = ct_empty(ond, oshape, odt, ct_device_cpu());
    if (out == NULL) {
        goto fail;
    }
    bool welford = op == CT_REDUCE_VAR || op == CT_REDUCE_STD;
    if (indices && (op == CT_REDUCE_MAX || op == CT_REDUCE_MIN || welford)) {
        /* var/std: the Welford mean, as var_mean returns it */
        if ((idx = ct_empty(ond, oshape, welford ? odt : CT_DTYPE_INT64,
                            ct_device_cpu())) == NULL) {
            goto fail;
        }
    }
    if (j->nout == 0) {
        goto done;
    }
    j->states = malloc(sizeof(rstate) * (size_t)j->nout);
    vd = malloc(sizeof(double) * (size_t)j->nout);
    vi = malloc(sizeof(int64_t) * (size_t)j->nout);
    if (j->states == NULL || vd == NULL || vi == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (engine_run(j) < 0) {
        goto fail;
    }
    bool argop = op == CT_REDUCE_ARGMAX || op == CT_REDUCE_ARGMIN;
    for (int64_t o = 0; o < j->nout; o++) {
        finish(j, &j->states[o], &vd[o], &vi[o]);
        if (argop) {
            vi[o] = j->states[o].idx;
        }
    }
    bool from_float = !argop && ct_dtype_is_floating(cdt) &&
                      !(op == CT_REDUCE_ALL || op == CT_REDUCE_ANY ||
                        op == CT_REDUCE_COUNT_NONZERO) &&
                      !j->isint;
    ct__write_converted(odt, ct_tensor_data(out), (int64_t)ct_dtype_itemsize(odt),
                        j->nout, from_float ? (const void *)vd : (const void *)vi,
                        from_float);
    if (idx && welford) {
        for (int64_t o = 0; o < j->nout; o++) {
            vd[o] = j->states[o].n ? j->states[o].mean : NAN;
        }
        ct__write_converted(odt, ct_tensor_data(idx), (int64_t)ct_dtype_itemsize(odt),
                            j->nout, vd, true);
    }
    else if (idx) {
        for (int64_t o = 0; o < j->nout; o++) {
            vi[o] = j->states[o].idx;
        }
        memcpy(ct_tensor_data(idx), vi, sizeof(int64_t) * (size_t)j->nout);
    }
done:
    if (indices) {
        *indices = idx;
        idx = NULL;
    }
    ct_tensor_decref(idx);
    ct_tensor_decref(in);
    if (j) {
        free(j->states);
    }
    free(j);
    free(vd);
    free(vi);
    return out;
fail:
    ct_tensor_decref(out);
    out = NULL;
    ct_tensor_decref(idx);
    idx = NULL;
    goto done;
}

/* --- named entry points -------------------------------------------------- */
ct_tensor *
ct_sum(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim, ct_dtype dtype)
{
    return ct_reduce(CT_REDUCE_SUM, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ct_mean(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim, ct_dtype dtype)
{
    return ct_reduce(CT_REDUCE_MEAN, t, ndims, dims, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ct_prod(const ct_tensor *t, const int64_t *dim, bool keepdim, ct_dtype dtype)
{
    return ct_reduce(CT_REDUCE_PROD, t, dim ? 1 : 0, dim, keepdim, dtype, NULL, NULL);
}

ct_tensor *
ct_amax(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    return ct_reduce(CT_REDUCE_AMAX, t, ndims, dims, keepdim, CT_DTYPE_COUNT, NULL,
                     NULL);
}

ct_tensor *
ct_amin(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    return ct_reduce(CT_REDUCE_AMIN, t, ndims, dims, keepdim, CT_DTYPE_COUNT, NULL,
                     NULL);
}

ct_tensor *
ct_max(const ct_tensor *t)
{
    return ct_reduce(CT_REDUCE_MAX, t, 0, NULL, false, CT_DTYPE_COUNT, NULL, NULL);
}

ct_tensor *
ct_min(const ct_tensor *t)
{
    return ct_reduce(CT_REDUCE_MIN, t, 0, NULL, false, CT_DTYPE_COUNT, NULL, NULL);
}

static int
best_dim(ct_reduce_op op, const ct_tensor *t, int64_t dim, bool keepdim,
         ct_tensor **values, ct_tensor **indices)
{
    *values = ct_reduce(op, t, 1, &dim, keepdim, CT_DTYPE_COUNT, NULL, indices);
    return *values ? 0 : -1;
}

int
ct_max_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
           ct_tensor **indices)
{
    return best_dim(CT_REDUCE_MAX, t, dim, keepdim, values, indices);
}

int
ct_min_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
           ct_tensor **indices)
{
    return best_dim(CT_REDUCE_MIN, t, dim, keepdim, values, indices);
}

/* argmax without a dim is over the flattened tensor; keepdim then keeps
 * every dim with size 1 (PyTorch). */
static ct_tensor *
arg_best(ct_reduce_op op, const ct_tensor *t, const int64_t *dim, bool keepdim)
{
    return ct_reduce(op, t, dim ? 1 : 0, dim, keepdim, CT_DTYPE_COUNT, NULL, NULL);
}

ct_tensor *
ct_argmax(const ct_tensor *t, const int64_t *dim, bool keepdim)
{
    return arg_best(CT_REDUCE_ARGMAX, t, dim, keepdim);
}

ct_tensor *
ct_argmin(const ct_tensor *t, const int64_t *dim, bool keepdim)
{
    return arg_best(CT_REDUCE_ARGMIN, t, dim, keepdim);
}

ct_tensor *
ct_all(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    return ct_reduce(CT_REDUCE_ALL, t, ndims, dims, keepdim, CT_DTYPE_COUNT, NULL, NULL);
}

ct_tensor *
ct_any(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    return ct_reduce(CT_REDUCE_ANY, t, ndims, dims, keepdim, CT_DTYPE_COUNT, NULL, NULL);
}

ct_tensor *
ct_count_nonzero(const ct_tensor *t, int ndims, const int64_t *dims)
{
    return ct_reduce(CT_REDUCE_COUNT_NONZERO, t, ndims, dims, false, CT_DTYPE_COUNT,
                     NULL, NULL);
}

ct_tensor *
ct_var(const ct_tensor *t, int ndims, const int64_t *dims, double correction,
       bool keepdim)
{
    ct_reduce_args a = {2, correction, NULL};
    return ct_reduce(CT_REDUCE_VAR, t, ndims, dims, keepdim, CT_DTYPE_COUNT, &a, NULL);
}

ct_tensor *
ct_std(const ct_tensor *t, int ndims, const int64_t *dims, double correction,
       bool keepdim)
{
    ct_reduce_args a = {2, correction, NULL};
    return ct_reduce(CT_REDUCE_STD, t, ndims, dims, keepdim, CT_DTYPE_COUNT, &a, NULL);
}

int
ct_var_mean(const ct_tensor *t, int ndims, const int64_t *dims, double correction,
            bool keepdim, bool take_sqrt, ct_tensor **var_or_std, ct_tensor **mean)
{
    ct_reduce_args a = {2, correction, take_sqrt ? "std_mean" : "var_mean"};
    *var_or_std = ct_reduce(take_sqrt ? CT_REDUCE_STD : CT_REDUCE_VAR, t, ndims, dims,
                            keepdim, CT_DTYPE_COUNT, &a, mean);
    return *var_or_std ? 0 : -1;
}

ct_tensor *
ct_vector_norm(const ct_tensor *t, double p, int ndims, const int64_t *dims,
               bool keepdim, ct_dtype dtype, const char *name)
{
    ct_reduce_args a = {p, 0, name ? name : "linalg.vector_norm"};
    return ct_reduce(CT_REDUCE_NORM, t, ndims, dims, keepdim, dtype, &a, NULL);
}

ct_tensor *
ct_logsumexp(const ct_tensor *t, int ndims, const int64_t *dims, bool keepdim)
{
    return ct_reduce(CT_REDUCE_LOGSUMEXP, t, ndims, dims, keepdim, CT_DTYPE_COUNT, NULL,
                     NULL);
}
