/* aten/cpu/softmax.c -- softmax and log_softmax along one dim, forward
 * (ct__softmax) and backward (ct_softmax_backward_data), float32 and
 * float64 (bfloat16 computes in float32).
 *
 * Note [Softmax order]
 * PyTorch 1.13's CPU kernels (ATen's SoftMaxKernel.cpp, AVX2 build) work
 * in the input's dtype, 8 floats or 4 doubles to a vector, and a result's
 * bits depend on their order of operations, which ctorch repeats:
 *  - dim last (rows): a row's max and sums run in vector lanes (a partial
 *    last vector updates only its lanes), the lanes then combined as a
 *    tree for float (lanes i and i+4, then i and i+2, then 0 and 1) and in
 *    lane order for double; a row shorter than a vector combines its
 *    elements in order.  softmax: e = exp(x - max) stored, r = 1 / (sum
 *    of e), e * r.  log_softmax: (x - max) - log(sum of exp(x - max)).
 *  - another dim, seen as (outer, n, inner): the reductions run down the
 *    dim, a vector holding neighbouring inner positions.  log_softmax:
 *    the last inner % lanes positions are scalar code with libm's exp.
 *    softmax: the outer * inner positions are split as torch's
 *    parallel_for splits them among its threads, a vector never crosses
 *    a split nor the end of an inner row, the positions left over are
 *    scalar code with libm's exp, and the result is e / sum.  So the
 *    bits depend on the thread count, as torch's do (ctorch's count
 *    plays the part of torch.get_num_threads()).
 *  - backward (g the incoming gradient, y the forward's result), dim
 *    last: softmax: s = sum of g * y, (g - s) * y; log_softmax: s = sum
 *    of g, g - exp(y) * s.  Another dim: the same sums down the dim,
 *    libm's exp in the last inner % lanes positions.  GCC fused torch's
 *    multiply-adds (s += g * y after the first vector, g - exp(y) * s),
 *    so these are fused here too.
 *  - exp and log are SLEEF's (Note [SLEEF-equivalent exp and log]).
 * Without AVX2 the same formulas run as plain scalar loops with libm's
 * exp and log: within an ulp or so of torch's, not bit for bit.
 *
 * Thread-safety: each call owns its output; parts of one call write
 * disjoint elements.
 */
#include "aten/device.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/softmax_impl.h"
#include "aten/cpu/vec_math.h"
#include "aten/parallel.h"

#define GRAIN 32768             /* at::internal::GRAIN_SIZE */
#define BLOCK (128 * 1024)      /* bytes of a column kernel's chunk */
#define MIN_PARALLEL 65536      /* elements before threads pay off */

enum { KIND_ROWS_FWD, KIND_ROWS_BWD, KIND_COL_SOFTMAX, KIND_COL_LOG, KIND_COL_BWD,
       KIND_COUNT };

typedef struct sjob sjob;
/* A kernel over units [begin, end) of a job. */
typedef void (*range_fn)(sjob *j, int64_t begin, int64_t end);

struct sjob {
    int kind;
    bool log;
    int64_t outer, n, inner;    /* n: the size of dim */
    int64_t chunk, nchunks;     /* column kernels: inner positions per task */
    int64_t units;              /* units of work, split into parts */
    const char *x, *y;          /* forward: x; backward: g and y */
    char *out;
    range_fn fn;
    bool failed;                /* a part ran out of memory */
};

/* Inner positions per task of a column kernel: a multiple of the lanes w,
 * about BLOCK bytes down the dim. */
static int64_t
col_chunk(int64_t n, size_t itemsize, int64_t w)
{
    int64_t c = BLOCK / n / (int64_t)itemsize;
    c = c > w ? c : w;
    return c / w * w;
}

/* max(a, b), NaN when either is NaN */
static inline double
nan_max(double a, double b)
{
    return isnan(a) || isnan(b) ? NAN : a > b ? a : b;
}

#if CT_HAVE_AVX2_KERNELS

/* --- vector helpers: the same names for float (f32) and double (f64) ---- */

typedef __m256 vec_f32;
typedef __m256d vec_f64;
#define W_f32 8
#define W_f64 4

static inline CT_AVX2 __m256i
lanes_f32(int64_t n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline CT_AVX2 __m256i
lanes_f64(int64_t n)
{
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(n), _mm256_setr_epi64x(0, 1, 2, 3));
}

/* op_f32 / op_f64 for the AVX intrinsics _mm256_<op>_ps / _pd */
#define VEC_BINARY(OP)                                                         \
    static inline CT_AVX2 vec_f32 OP##_f32(vec_f32 a, vec_f32 b)               \
    {                                                                          \
        return _mm256_##OP##_ps(a, b);                                         \
    }                                                                          \
    static inline CT_AVX2 vec_f64 OP##_f64(vec_f64 a, vec_f64 b)               \
    {                                                                          \
        return _mm256_##OP##_pd(a, b);                                         \
    }
VEC_BINARY(add)
VEC_BINARY(sub)
VEC_BINARY(mul)
VEC_BINARY(div)
#undef VEC_BINARY

/* fma: a * b + c; fnma: c - a * b; each rounded once */
#define VEC_TERNARY(NAME, OP)                                                  \
    static inline CT_AVX2 vec_f32 NAME##_f32(vec_f32 a, vec_f32 b, vec_f32 c)  \
    {                                                                          \
        return _mm256_##OP##_ps(a, b, c);                                      \
    }                                                                          \
    static inline CT_AVX2 vec_f64 NAME##_f64(vec_f64 a, vec_f64 b, vec_f64 c)  \
    {                                                                          \
        return _mm256_##OP##_pd(a, b, c);                                      \
    }
VEC_TERNARY(fma, fmadd)
VEC_TERNARY(fnma, fnmadd)
#undef VEC_TERNARY

#define VEC_MEMORY(S, T, SUF)                                                  \
    static inline CT_AVX2 vec_##S load_##S(const T *p)                         \
    {                                                                          \
        return _mm256_loadu_##SUF(p);                                          \
    }                                                                          \
    static inline CT_AVX2 void store_##S(T *p, vec_##S v)                      \
    {                                                                          \
        _mm256_storeu_##SUF(p, v);                                             \
    }                                                                          \
    static inline CT_AVX2 vec_##S set1_##S(T v)                                \
    {                                                                          \
        return _mm256_set1_##SUF(v);                                           \
    }                                                                          \
    /* the first n lanes from p, zeros after; a store of the first n */        \
    static inline CT_AVX2 vec_##S loadn_##S(const T *p, int64_t n)             \
    {                                                                          \
        return _mm256_maskload_##SUF(p, lanes_##S(n));                         \
    }                                                                          \
    static inline CT_AVX2 void storen_##S(T *p, vec_##S v, int64_t n)          \
    {                                                                          \
        _mm256_maskstore_##SUF(p, lanes_##S(n), v);                            \
    }                                                                          \
    /* r in the first n lanes, acc in the others (ATen's Vectorized::set) */   \
    static inline CT_AVX2 vec_##S setn_##S(vec_##S acc, vec_##S r, int64_t n)  \
    {                                                                          \
        return _mm256_blendv_##SUF(acc, r, _mm256_castsi256_##SUF(lanes_##S(n))); \
    }                                                                          \
    /* ATen's vec::maximum: NaN when either is NaN */                          \
    static inline CT_AVX2 vec_##S max_##S(vec_##S a, vec_##S b)                \
    {                                                                          \
        return _mm256_or_##SUF(_mm256_max_##SUF(a, b),                         \
                               _mm256_cmp_##SUF(a, b, _CMP_UNORD_Q));          \
    }                                                                          \
    /* where x > m, x, else m (a NaN x never wins) */                          \
    static inline CT_AVX2 vec_##S maxgt_##S(vec_##S m, vec_##S x)              \
    {                                                                          \
        return _mm256_blendv_##SUF(m, x, _mm256_cmp_##SUF(x, m, _CMP_GT_OQ));  \
    }
VEC_MEMORY(f32, float, ps)
VEC_MEMORY(f64, double, pd)
#undef VEC_MEMORY

static inline CT_AVX2 vec_f32 exp_f32(vec_f32 v) { return ct__exp_f32x8(v); }
static inline CT_AVX2 vec_f64 exp_f64(vec_f64 v) { return ct__exp_f64x4(v); }
static inline CT_AVX2 vec_f32 log_f32(vec_f32 v) { return ct__log_f32x8(v); }
static inline CT_AVX2 vec_f64 log_f64(vec_f64 v) { return ct__log_f64x4(v); }

/* Lanes 0..n-1 of v combined in order (ATen's vec_reduce_all with a size). */
#define LANE_FOLDS(S, T, W)                                                    \
    static inline CT_AVX2 T first_sum_##S(vec_##S v, int64_t n)                \
    {                                                                          \
        T a[W];                                                                \
        store_##S(a, v);                                                       \
        T r = a[0];                                                            \
        for (int64_t i = 1; i < n; i++) {                                      \
            r = r + a[i];                                                      \
        }                                                                      \
        return r;                                                              \
    }                                                                          \
    static inline CT_AVX2 T first_max_##S(vec_##S v, int64_t n)                \
    {                                                                          \
        T a[W];                                                                \
        store_##S(a, v);                                                       \
        T r = a[0];                                                            \
        for (int64_t i = 1; i < n; i++) {                                      \
            r = (T)nan_max(r, a[i]);                                           \
        }                                                                      \
        return r;                                                              \
    }
LANE_FOLDS(f32, float, 8)
LANE_FOLDS(f64, double, 4)
#undef LANE_FOLDS

/* All lanes combined: a tree for float (ATen's VecReduceAllSIMD), in lane
 * order for double. */
static inline CT_AVX2 float
hsum_f32(vec_f32 v)
{
    v = add_f32(v, _mm256_permute2f128_ps(v, v, 1));
    v = add_f32(v, _mm256_shuffle_ps(v, v, 0x4e));
    v = add_f32(v, _mm256_shuffle_ps(v, v, 0xb1));
    return _mm256_cvtss_f32(v);
}
static inline CT_AVX2 float
hmax_f32(vec_f32 v)
{
    v = max_f32(v, _mm256_permute2f128_ps(v, v, 1));
    v = max_f32(v, _mm256_shuffle_ps(v, v, 0x4e));
    v = max_f32(v, _mm256_shuffle_ps(v, v, 0xb1));
    return _mm256_cvtss_f32(v);
}
static inline CT_AVX2 double hsum_f64(vec_f64 v) { return first_sum_f64(v, 4); }
static inline CT_AVX2 double hmax_f64(vec_f64 v) { return first_max_f64(v, 4); }

/* --- row reductions, as ATen's vec::reduce_all / map_reduce_all ---------- */

#define ROW_REDUCTIONS(S, T, W)                                                \
    static inline CT_AVX2 T row_max_##S(const T *x, int64_t n)                 \
    {                                                                          \
        if (n < W) {                                                           \
            return first_max_##S(loadn_##S(x, n), n);                          \
        }                                                                      \
        vec_##S acc = load_##S(x);                                             \
        int64_t d = W;                                                         \
        for (; d < n - n % W; d += W) {                                        \
            acc = max_##S(acc, load_##S(x + d));                               \
        }                                                                      \
        if (n > d) {                                                           \
            acc = setn_##S(acc, max_##S(acc, loadn_##S(x + d, n - d)), n - d); \
        }                                                                      \
        return hmax_##S(acc);                                                  \
    }                                                                          \
    static inline CT_AVX2 T row_sum_##S(const T *x, int64_t n)                 \
    {                                                                          \
        if (n < W) {                                                           \
            return first_sum_##S(loadn_##S(x, n), n);                          \
        }                                                                      \
        vec_##S acc = load_##S(x);                                             \
        int64_t d = W;                                                         \
        for (; d < n - n % W; d += W) {                                        \
            acc = add_##S(acc, load_##S(x + d));                               \
        }                                                                      \
        if (n > d) {                                                           \
            acc = setn_##S(acc, add_##S(acc, loadn_##S(x + d, n - d)), n - d); \
        }                                                                      \
        return hsum_##S(acc);                                                  \
    }                                                                          \
    /* sum of exp(x - m) */                                                    \
    static inline CT_AVX2 T row_sum_exp_##S(const T *x, int64_t n, T m)        \
    {                                                                          \
        vec_##S vm = set1_##S(m);                                              \
        if (n < W) {                                                           \
            return first_sum_##S(exp_##S(sub_##S(loadn_##S(x, n), vm)), n);    \
        }                                                                      \
        vec_##S acc = exp_##S(sub_##S(load_##S(x), vm));                       \
        int64_t d = W;                                                         \
        for (; d < n - n % W; d += W) {                                        \
            acc = add_##S(acc, exp_##S(sub_##S(load_##S(x + d), vm)));         \
        }                                                                      \
        if (n > d) {                                                           \
            vec_##S e = exp_##S(sub_##S(loadn_##S(x + d, n - d), vm));         \
            acc = setn_##S(acc, add_##S(acc, e), n - d);                       \
        }                                                                      \
        return hsum_##S(acc);                                                  \
    }                                                                          \
    /* sum of g * y, fused after the first vector */                           \
    static inline CT_AVX2 T row_dot_##S(const T *g, const T *y, int64_t n)     \
    {                                                                          \
        if (n < W) {                                                           \
            return first_sum_##S(mul_##S(loadn_##S(g, n), loadn_##S(y, n)), n); \
        }                                                                      \
        vec_##S acc = mul_##S(load_##S(g), load_##S(y));                       \
        int64_t d = W;                                                         \
        for (; d < n - n % W; d += W) {                                        \
            acc = fma_##S(load_##S(g + d), load_##S(y + d), acc);              \
        }                                                                      \
        if (n > d) {                                                           \
            vec_##S r = fma_##S(loadn_##S(g + d, n - d), loadn_##S(y + d, n - d), \
                                acc);                                          \
            acc = setn_##S(acc, r, n - d);                                     \
        }                                                                      \
        return hsum_##S(acc);                                                  \
    }
ROW_REDUCTIONS(f32, float, 8)
ROW_REDUCTIONS(f64, double, 4)
#undef ROW_REDUCTIONS

/* --- the kernels, each over units [b, e) of a job (Note [Softmax order]) -
 * rows_fwd / rows_bwd: rows of n; col_softmax: outer * inner positions;
 * col_log / col_bwd: tasks of chunk inner positions of one outer row.
 * EXP1 and FMA1 are libm's scalar exp and fused multiply-add. */
#define AVX2_KERNELS(S, T, W, EXP1, FMA1)                                      \
    static CT_AVX2 void rows_fwd_##S(sjob *j, int64_t b, int64_t e)            \
    {                                                                          \
        int64_t n = j->n;                                                      \
        const T *xb = (const T *)j->x;                                         \
        T *yb = (T *)j->out;                                                   \
        T m[W], s[W];                                                          \
        for (int64_t r = b; r < e; r += W) {                                   \
            int64_t nr = e - r < W ? e - r : W;                                \
            for (int64_t k = 0; k < nr; k++) {                                 \
                const T *x = xb + (r + k) * n;                                 \
                T *y = yb + (r + k) * n;                                       \
                m[k] = row_max_##S(x, n);                                      \
                vec_##S vm = set1_##S(m[k]);                                   \
                if (j->log) {                                                  \
                    s[k] = row_sum_exp_##S(x, n, m[k]);                        \
                    continue;                                                  \
                }                                                              \
                int64_t d = 0;                                                 \
                for (; d < n - n % W; d += W) {                                \
                    store_##S(y + d, exp_##S(sub_##S(load_##S(x + d), vm)));   \
                }                                                              \
                if (n > d) {                                                   \
                    vec_##S v = exp_##S(sub_##S(loadn_##S(x + d, n - d), vm)); \
                    storen_##S(y + d, v, n - d);                               \
                }                                                              \
                vec_##S inv = set1_##S((T)1 / row_sum_##S(y, n));              \
                for (d = 0; d < n - n % W; d += W) {                           \
                    store_##S(y + d, mul_##S(load_##S(y + d), inv));           \
                }                                                              \
                if (n > d) {                                                   \
                    storen_##S(y + d, mul_##S(loadn_##S(y + d, n - d), inv), n - d); \
                }                                                              \
            }                                                                  \
            if (!j->log) {                                                     \
                continue;                                                      \
            }                                                                  \
            storen_##S(s, log_##S(loadn_##S(s, nr)), nr);                      \
            for (int64_t k = 0; k < nr; k++) {                                 \
                const T *x = xb + (r + k) * n;                                 \
                T *y = yb + (r + k) * n;                                       \
                vec_##S vm = set1_##S(m[k]), vs = set1_##S(s[k]);              \
                int64_t d = 0;                                                 \
                for (; d < n - n % W; d += W) {                                \
                    store_##S(y + d, sub_##S(sub_##S(load_##S(x + d), vm), vs)); \
                }                                                              \
                if (n > d) {                                                   \
                    vec_##S v = sub_##S(sub_##S(loadn_##S(x + d, n - d), vm), vs); \
                    storen_##S(y + d, v, n - d);                               \
                }                                                              \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static inline CT_AVX2 vec_##S bwd_vec_##S(bool log, vec_##S g, vec_##S y,  \
                                              vec_##S s)                       \
    {                                                                          \
        return log ? fnma_##S(exp_##S(y), s, g) : mul_##S(sub_##S(g, s), y);   \
    }                                                                          \
    static CT_AVX2 void rows_bwd_##S(sjob *j, int64_t b, int64_t e)            \
    {                                                                          \
        int64_t n = j->n;                                                      \
        for (int64_t r = b; r < e; r++) {                                      \
            const T *g = (const T *)j->x + r * n, *y = (const T *)j->y + r * n; \
            T *gi = (T *)j->out + r * n;                                       \
            vec_##S vs = set1_##S(j->log ? row_sum_##S(g, n) : row_dot_##S(g, y, n)); \
            int64_t d = 0;                                                     \
            for (; d < n - n % W; d += W) {                                    \
                vec_##S v = bwd_vec_##S(j->log, load_##S(g + d), load_##S(y + d), vs); \
                store_##S(gi + d, v);                                          \
            }                                                                  \
            if (n > d) {                                                       \
                vec_##S v = bwd_vec_##S(j->log, loadn_##S(g + d, n - d),       \
                                        loadn_##S(y + d, n - d), vs);          \
                storen_##S(gi + d, v, n - d);                                  \
            }                                                                  \
        }                                                                      \
    }                                                                          \
    static CT_AVX2 void col_softmax_##S(sjob *j, int64_t b, int64_t e)         \
    {                                                                          \
        int64_t n = j->n, inner = j->inner;                                    \
        int64_t idx = b;                                                       \
        while (idx < e) {                                                      \
            int64_t o = idx / inner, i = idx % inner;                          \
            if (i + W <= inner && idx + W <= e) {                              \
                const T *x = (const T *)j->x + o * n * inner + i;              \
                T *y = (T *)j->out + o * n * inner + i;                        \
                vec_##S m = load_##S(x);                                       \
                for (int64_t d = 1; d < n; d++) {                              \
                    m = max_##S(m, load_##S(x + d * inner));                   \
                }                                                              \
                vec_##S s = set1_##S(0);                                       \
                for (int64_t d = 0; d < n; d++) {                              \
                    vec_##S v = exp_##S(sub_##S(load_##S(x + d * inner), m));  \
                    store_##S(y + d * inner, v);                               \
                    s = add_##S(s, v);                                         \
                }                                                              \
                for (int64_t d = 0; d < n; d++) {                              \
                    store_##S(y + d * inner, div_##S(load_##S(y + d * inner), s)); \
                }                                                              \
                idx += W;                                                      \
                continue;                                                      \
            }                                                                  \
            int64_t tail = idx + W > e ? e - idx : inner - i;                  \
            for (int64_t k = idx; k < idx + tail; k++) {                       \
                const T *x = (const T *)j->x + k / inner * n * inner + k % inner; \
                T *y = (T *)j->out + k / inner * n * inner + k % inner;        \
                T m = x[0], s = 0;                                             \
                for (int64_t d = 1; d < n; d++) {                              \
                    m = m < x[d * inner] ? x[d * inner] : m;                   \
                }                                                              \
                for (int64_t d = 0; d < n; d++) {                              \
                    y[d * inner] = EXP1(x[d * inner] - m);                     \
                    s = s + y[d * inner];                                      \
                }                                                              \
                for (int64_t d = 0; d < n; d++) {                              \
                    y[d * inner] = y[d * inner] / s;                           \
                }                                                              \
            }                                                                  \
            idx += tail;                                                       \
        }                                                                      \
    }                                                                          \
    static CT_AVX2 void col_log_##S(sjob *j, int64_t b, int64_t e)             \
    {                                                                          \
        int64_t n = j->n, inner = j->inner;                                    \
        T *mx = malloc(sizeof(T) * 2 * (size_t)j->chunk);                      \
        if (mx == NULL) {                                                      \
            j->failed = true;                                                  \
            return;                                                            \
        }                                                                      \
        T *sm = mx + j->chunk;                                                 \
        for (int64_t t = b; t < e; t++) {                                      \
            int64_t i0 = t % j->nchunks * j->chunk;                            \
            int64_t size = inner - i0 < j->chunk ? inner - i0 : j->chunk;      \
            int64_t vs = size - size % W;                                      \
            int64_t base = t / j->nchunks * n * inner + i0;                    \
            for (int64_t k = 0; k < size; k++) {                               \
                mx[k] = -INFINITY;                                             \
                sm[k] = 0;                                                     \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                const T *x = (const T *)j->x + base + d * inner;               \
                int64_t k = 0;                                                 \
                for (; k < vs; k += W) {                                       \
                    store_##S(mx + k, maxgt_##S(load_##S(mx + k), load_##S(x + k))); \
                }                                                              \
                for (; k < size; k++) {                                        \
                    mx[k] = x[k] > mx[k] ? x[k] : mx[k];                       \
                }                                                              \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                const T *x = (const T *)j->x + base + d * inner;               \
                int64_t k = 0;                                                 \
                for (; k < vs; k += W) {                                       \
                    vec_##S v = exp_##S(sub_##S(load_##S(x + k), load_##S(mx + k))); \
                    store_##S(sm + k, add_##S(load_##S(sm + k), v));           \
                }                                                              \
                for (; k < size; k++) {                                        \
                    sm[k] = sm[k] + EXP1(x[k] - mx[k]);                        \
                }                                                              \
            }                                                                  \
            for (int64_t k = 0; k < size; k += W) {                            \
                int64_t c = size - k < W ? size - k : W;                       \
                storen_##S(sm + k, log_##S(loadn_##S(sm + k, c)), c);          \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                const T *x = (const T *)j->x + base + d * inner;               \
                T *y = (T *)j->out + base + d * inner;                         \
                int64_t k = 0;                                                 \
                for (; k < vs; k += W) {                                       \
                    vec_##S v = sub_##S(load_##S(x + k), load_##S(mx + k));    \
                    store_##S(y + k, sub_##S(v, load_##S(sm + k)));            \
                }                                                              \
                for (; k < size; k++) {                                        \
                    y[k] = x[k] - mx[k] - sm[k];                               \
                }                                                              \
            }                                                                  \
        }                                                                      \
        free(mx);                                                              \
    }                                                                          \
    static CT_AVX2 void col_bwd_##S(sjob *j, int64_t b, int64_t e)             \
    {                                                                          \
        int64_t n = j->n, inner = j->inner;                                    \
        T *sm = malloc(sizeof(T) * (size_t)j->chunk);                          \
        if (sm == NULL) {                                                      \
            j->failed = true;                                                  \
            return;                                                            \
        }                                                                      \
        for (int64_t t = b; t < e; t++) {                                      \
            int64_t i0 = t % j->nchunks * j->chunk;                            \
            int64_t size = inner - i0 < j->chunk ? inner - i0 : j->chunk;      \
            int64_t vs = size - size % W;                                      \
            int64_t base = t / j->nchunks * n * inner + i0;                    \
            for (int64_t k = 0; k < size; k++) {                               \
                sm[k] = 0;                                                     \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                const T *g = (const T *)j->x + base + d * inner;               \
                const T *y = (const T *)j->y + base + d * inner;               \
                int64_t k = 0;                                                 \
                for (; k < vs; k += W) {                                       \
                    vec_##S s = load_##S(sm + k);                              \
                    s = j->log ? add_##S(s, load_##S(g + k))                   \
                               : fma_##S(load_##S(g + k), load_##S(y + k), s); \
                    store_##S(sm + k, s);                                      \
                }                                                              \
                for (; k < size; k++) {                                        \
                    sm[k] = j->log ? sm[k] + g[k] : FMA1(g[k], y[k], sm[k]);   \
                }                                                              \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                const T *g = (const T *)j->x + base + d * inner;               \
                const T *y = (const T *)j->y + base + d * inner;               \
                T *gi = (T *)j->out + base + d * inner;                        \
                int64_t k = 0;                                                 \
                for (; k < vs; k += W) {                                       \
                    store_##S(gi + k, bwd_vec_##S(j->log, load_##S(g + k),     \
                                                  load_##S(y + k), load_##S(sm + k))); \
                }                                                              \
                for (; k < size; k++) {                                        \
                    gi[k] = j->log ? FMA1(-EXP1(y[k]), sm[k], g[k])            \
                                   : y[k] * (g[k] - sm[k]);                    \
                }                                                              \
            }                                                                  \
        }                                                                      \
        free(sm);                                                              \
    }
AVX2_KERNELS(f32, float, 8, expf, fmaf)
AVX2_KERNELS(f64, double, 4, exp, fma)
#undef AVX2_KERNELS

static const range_fn avx2_kernels[2][KIND_COUNT] = {
    {rows_fwd_f32, rows_bwd_f32, col_softmax_f32, col_log_f32, col_bwd_f32},
    {rows_fwd_f64, rows_bwd_f64, col_softmax_f64, col_log_f64, col_bwd_f64},
};
#endif /* CT_HAVE_AVX2_KERNELS */

/* --- portable kernels: one line (outer, inner position) at a time ------- */

#define PLAIN_KERNEL(S, T, EXP1, LOG1)                                         \
    static void plain_##S(sjob *j, int64_t b, int64_t e)                       \
    {                                                                          \
        int64_t n = j->n, inner = j->inner;                                    \
        bool bwd = j->kind == KIND_ROWS_BWD || j->kind == KIND_COL_BWD;        \
        for (int64_t l = b; l < e; l++) {                                      \
            int64_t base = l / inner * n * inner + l % inner;                  \
            const T *x = (const T *)j->x + base, *y = (const T *)j->y + base;  \
            T *o = (T *)j->out + base;                                         \
            T m = x[0], s = 0;                                                 \
            if (bwd) {                                                         \
                for (int64_t d = 0; d < n; d++) {                              \
                    s += j->log ? x[d * inner] : x[d * inner] * y[d * inner];  \
                }                                                              \
                for (int64_t d = 0; d < n; d++) {                              \
                    T g = x[d * inner], v = y[d * inner];                      \
                    o[d * inner] = j->log ? g - EXP1(v) * s : (g - s) * v;     \
                }                                                              \
                continue;                                                      \
            }                                                                  \
            for (int64_t d = 1; d < n; d++) {                                  \
                m = (T)nan_max(m, x[d * inner]);                               \
            }                                                                  \
            for (int64_t d = 0; d < n; d++) {                                  \
                s += EXP1(x[d * inner] - m);                                   \
            }                                                                  \
            T ls = LOG1(s), inv = (T)1 / s;                                    \
            for (int64_t d = 0; d < n; d++) {                                  \
                T v = x[d * inner] - m;                                        \
                o[d * inner] = j->log ? v - ls : EXP1(v) * inv;                \
            }                                                                  \
        }                                                                      \
    }

PLAIN_KERNEL(f32, float, expf, logf)
PLAIN_KERNEL(f64, double, exp, log)
#undef PLAIN_KERNEL

/* --- driver --------------------------------------------------------------- */

/* Part tid of nparts: units split as torch's parallel_for splits them. */
static void
run_part(void *ctx, int tid, int nparts)
{
    sjob *j = ctx;
    int64_t per = (j->units + nparts - 1) / nparts;
    int64_t b = per * tid, e = b + per < j->units ? b + per : j->units;
    if (b < e) {
        j->fn(j, b, e);
    }
}

/* The parts torch's parallel_for(0, units, grain) makes with nt threads. */
static int64_t
torch_parts(int64_t units, int64_t grain, int nt)
{
    if (units <= grain || units <= 1 || nt <= 1) {
        return 1;
    }
    int64_t p = grain > 0 ? (units + grain - 1) / grain : nt;
    return p < nt ? p : nt;
}

/* softmax (bwd false) or its backward along dim d of contiguous float32 or
 * float64 tensors: x the input, or the gradient with y the forward's
 * result; out of the same shape. */
static int
softmax_run(bool bwd, bool log, const ct_tensor *x, const ct_tensor *y, ct_tensor *out,
            int d)
{
    sjob j = {.log = log, .outer = 1, .n = 1, .inner = 1};
    if (x->numel == 0) {
        return 0;
    }
    for (int k = 0; k < x->ndim; k++) {
        int64_t *p = k < d ? &j.outer : k == d ? &j.n : &j.inner;
        *p *= x->sizes[k];
    }
    j.x = ct_tensor_data(x);
    j.y = y != NULL ? ct_tensor_data(y) : NULL;
    j.out = ct_tensor_data(out);
    bool last = x->ndim == 0 || d == x->ndim - 1;
    bool dbl = x->dtype == CT_DTYPE_FLOAT64;
    j.kind = last ? (bwd ? KIND_ROWS_BWD : KIND_ROWS_FWD)
                  : bwd ? KIND_COL_BWD : log ? KIND_COL_LOG : KIND_COL_SOFTMAX;
    j.fn = dbl ? plain_f64 : plain_f32;
    j.units = j.outer * j.inner;
    int nt = ct__parallel_threads();
    int64_t parts = 0;
#if CT_HAVE_AVX2_KERNELS
    if (ct__cpu_has_avx2()) {
        j.fn = avx2_kernels[dbl][j.kind];
        if (j.kind == KIND_COL_LOG || j.kind == KIND_COL_BWD) {
            j.chunk = col_chunk(j.n, ct_dtype_itemsize(x->dtype), dbl ? W_f64 : W_f32);
            j.nchunks = (j.inner + j.chunk - 1) / j.chunk;
            j.units = j.outer * j.nchunks;
        }
        else if (j.kind == KIND_COL_SOFTMAX) {
            parts = torch_parts(j.units, GRAIN / j.n, nt);
        }
    }
#endif
    if (parts == 0) {
        parts = x->numel / MIN_PARALLEL;
        parts = parts < nt ? parts : nt;
        parts = parts < j.units ? parts : j.units;
        parts = parts > 1 ? parts : 1;
    }
    if (parts > 1 && x->numel >= MIN_PARALLEL) {
        ct__parallel_run((int)parts, run_part, &j);
    }
    else {
        for (int64_t p = 0; p < parts; p++) {
            run_part(&j, (int)p, (int)parts);
        }
    }
    if (j.failed) {
        return ct_error(CT_ERR_NOMEM, "out of memory in softmax");
    }
    return 0;
}

/* t as a contiguous tensor of its compute dtype (float32 for bfloat16):
 * a new reference. */
static ct_tensor *
compute_copy(const ct_tensor *t)
{
    ct_dtype cdt = t->dtype == CT_DTYPE_BFLOAT16 ? CT_DTYPE_FLOAT32 : t->dtype;
    ct_tensor *c = ct_to_dtype(t, cdt, false);
    ct_tensor *r = c != NULL ? ct_contiguous(c) : NULL;
    ct_tensor_decref(c);
    return r;
}

/* out (computed in float32 for a bfloat16 dt) as dtype dt: a new
 * reference; out keeps its own. */
static ct_tensor *
as_dtype(ct_tensor *out, ct_dtype dt)
{
    if (out == NULL) {
        return NULL;
    }
    return ct_to_dtype(out, dt, false);
}

ct_tensor *
ct__softmax(const ct_tensor *in, int dim, bool log)
{
    if (ct__host_only((const ct_tensor *const[]){in}, 1) < 0) {
        return NULL;
    }
    ct_tensor *x = compute_copy(in), *out = NULL;
    if (x == NULL) {
        return NULL;
    }
    out = ct_empty(x->ndim, x->sizes, x->dtype, ct_device_cpu());
    if (out != NULL && softmax_run(false, log, x, NULL, out, dim) < 0) {
        ct_tensor_decref(out);
        out = NULL;
    }
    ct_tensor *r = as_dtype(out, in->dtype);
    ct_tensor_decref(x);
    ct_tensor_decref(out);
    return r;
}

ct_tensor *
ct_softmax_backward_data(const ct_tensor *grad, const ct_tensor *output, int64_t dim,
                         bool log)
{
    const char *name = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
    ct_dtype dt = output->dtype;
    bool device = ct__is_device(grad) || ct__is_device(output);
    if (dt != CT_DTYPE_FLOAT32 && dt != CT_DTYPE_FLOAT64 && dt != CT_DTYPE_BFLOAT16 &&
        !(device && dt == CT_DTYPE_FLOAT16)) {
        ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                 ct_dtype_table[dt].legacy);
        return NULL;
    }
    bool same = grad->dtype == dt && grad->ndim == output->ndim;
    for (int k = 0; same && k < grad->ndim; k++) {
        same = grad->sizes[k] == output->sizes[k];
    }
    if (!same) {
        ct_error(CT_ERR_RUNTIME, "%s: grad_output and output differ in shape or dtype",
                 name);
        return NULL;
    }
    int d = ct_wrap_dim(dim, output->ndim);
    if (d < 0) {
        return NULL;
    }
    if (device) {
        return ct__device_softmax_backward(grad, output, d, log);
    }
    ct_tensor *g = compute_copy(grad), *y = compute_copy(output), *out = NULL;
    if (g != NULL && y != NULL) {
        out = ct_empty(g->ndim, g->sizes, g->dtype, ct_device_cpu());
        if (out != NULL && softmax_run(true, log, g, y, out, d) < 0) {
            ct_tensor_decref(out);
            out = NULL;
        }
    }
    ct_tensor *r = as_dtype(out, dt);
    ct_tensor_decref(g);
    ct_tensor_decref(y);
    ct_tensor_decref(out);
    return r;
}
