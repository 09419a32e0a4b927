/* aten/cpu/conv_avx512.c -- the float32 kernels of convolution on AVX-512
 * (Note [Convolution kernels]): a gemm on a packed left operand (forward
 * and data products), a gemm of row dot products (weight product), and
 * im2col / col2im for stride 1 along the width.
 *
 * Thread-safety: the functions touch only their arguments; conv_tiled.c
 * calls them from several threads at once, each on its own tile.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/conv_impl.h"

/* Note [Convolution kernels]
 * The products of one unit of work (Note [Convolution tiles] in
 * conv_tiled.c) are small and oddly shaped (16 x 27 x 900, 32 x 144 x
 * 256): OpenBLAS's Haswell kernels reach a third of the machine's speed on
 * them, and the threads it starts for each call fight ctorch's own.  The
 * kernels here run on the calling thread, with 24 zmm accumulators:
 *   - on implicit columns (Note [Implicit columns]), where the window
 *     steps one input column at a time: fwd_block, MR output channels x up
 *     to 3 vectors of 16 outputs, a broadcast weight times a masked load
 *     of the input per multiply-add row (forward, and data as a forward
 *     product); weight_tile, dot products of 8 (or 4) rows of dY, copied
 *     in tile order, with 3 (or 6) input vectors read through the table.
 *   - on explicit columns, written by im2col (vector copies where sw ==
 *     1): nn, C[M, N] = A[M, K] @ B[K, N] (+ bias[i] on row i), A packed
 *     into panels of MR rows ([M / MR][K][MR], zero rows past M), B read
 *     in place, a register tile MR rows x 48 columns (forward: A = W, B =
 *     the columns; data: A = W^T, B = dY, then col2im); nt, C[M, N] +=
 *     A[M, K] @ B[N, K]^T, 4 x 6 dot products of rows (weight: A = dY, B =
 *     the columns).
 * Dot products accumulate 16 lanes apart and are reduced across lanes at
 * the end.  Sums run in a different order from torch's (oneDNN's), with
 * fused multiply-adds: results agree to float32 rounding, not bit for
 * bit. */

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f")))
#define INLINE static inline __attribute__((always_inline))
#define MR CONV_AVX512_MR
#define NT_M 4
#define NT_N 6

/* One MR x (16 nv) register tile of nn: the last of the nv vectors is
 * masked by `last`; rows past mrows are computed (A's padding rows are
 * zeros) but not stored. */
INLINE AVX512 void
nn_tile(int nv, int64_t k, const float *ap, const float *b, int64_t ldb,
        __mmask16 last, float *c, int64_t ldc, int mrows, const float *bias)
{
    __m512 acc[MR][3];
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++) {
            acc[i][v] = _mm512_setzero_ps();
        }
    }
    for (int64_t l = 0; l < k; l++) {
        __m512 bv[3];
        const float *br = b + l * ldb;
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++) {
            bv[v] = v == nv - 1 ? _mm512_maskz_loadu_ps(last, br + 16 * v)
                                : _mm512_loadu_ps(br + 16 * v);
        }
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) {
            __m512 a = _mm512_set1_ps(ap[l * MR + i]);
#pragma GCC unroll 3
            for (int v = 0; v < nv; v++) {
                acc[i][v] = _mm512_fmadd_ps(a, bv[v], acc[i][v]);
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++) {
        if (i >= mrows) {
            break;
        }
        __m512 bb = _mm512_set1_ps(bias != NULL ? bias[i] : 0.0f);
#pragma GCC unroll 3
        for (int v = 0; v < nv; v++) {
            __m512 r = bias != NULL ? _mm512_add_ps(acc[i][v], bb) : acc[i][v];
            if (v == nv - 1) {
                _mm512_mask_storeu_ps(c + i * ldc + 16 * v, last, r);
            }
            else {
                _mm512_storeu_ps(c + i * ldc + 16 * v, r);
            }
        }
    }
}

/* nn_tile for 1, 2 and 3 vectors, as real functions the loop can call. */
#define NN_TILE(NV)                                                            \
    static AVX512 void nn_tile_##NV(int64_t k, const float *ap, const float *b, \
                                    int64_t ldb, __mmask16 last, float *c,     \
                                    int64_t ldc, int mrows, const float *bias) \
    {                                                                          \
        nn_tile(NV, k, ap, b, ldb, last, c, ldc, mrows, bias);                 \
    }
NN_TILE(1)
NN_TILE(2)
NN_TILE(3)
#undef NN_TILE

typedef void (*nn_tile_fn)(int64_t k, const float *ap, const float *b, int64_t ldb,
                           __mmask16 last, float *c, int64_t ldc, int mrows,
                           const float *bias);
static const nn_tile_fn nn_tiles[4] = {NULL, nn_tile_1, nn_tile_2, nn_tile_3};

static AVX512 void
sgemm_nn(int64_t m, int64_t n, int64_t k, const float *ap, const float *b, int64_t ldb,
         float *c, int64_t ldc, const float *bias)
{
    /* column blocks outer: a block of B (k x 48) stays in L1 across the
     * panels of A */
    for (int64_t j = 0; j < n; j += 48) {
        int64_t w = n - j < 48 ? n - j : 48;
        int nv = (int)((w + 15) / 16);
        int rem = (int)(w - 16 * (nv - 1));
        __mmask16 last = (__mmask16)((1u << rem) - 1);
        for (int64_t i = 0; i < m; i += MR) {
            int mrows = m - i < MR ? (int)(m - i) : MR;
            nn_tiles[nv](k, ap + i * k, b + j, ldb, last, c + i * ldc + j, ldc, mrows,
                         bias != NULL ? bias + i : NULL);
        }
    }
}

/* The sums of four vectors, as one 4-lane vector. */
INLINE AVX512 __m128
hsum4(__m512 a, __m512 b, __m512 c, __m512 d)
{
    __m512 v[4] = {a, b, c, d};
    __m256 s[4];
    for (int i = 0; i < 4; i++) {
        s[i] = _mm256_add_ps(_mm512_castps512_ps256(v[i]),
                             _mm256_castpd_ps(_mm512_extractf64x4_pd(
                                 _mm512_castps_pd(v[i]), 1)));
    }
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(s[0], s[1]), _mm256_hadd_ps(s[2], s[3]));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

static AVX512 void
sgemm_nt(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
         int64_t ldb, float *c, int64_t ldc)
{
    int64_t kv = k & ~(int64_t)15;
    __mmask16 tail = (__mmask16)((1u << (k - kv)) - 1);
    for (int64_t i = 0; i < m; i += NT_M) {
        /* rows past the end repeat the block's first row; their sums are
         * dropped */
        const float *ar[NT_M];
        for (int x = 0; x < NT_M; x++) {
            ar[x] = a + (i + x < m ? i + x : i) * lda;
        }
        for (int64_t j = 0; j < n; j += NT_N) {
            const float *br[NT_N];
            for (int y = 0; y < NT_N; y++) {
                br[y] = b + (j + y < n ? j + y : j) * ldb;
            }
            __m512 acc[NT_M][NT_N];
#pragma GCC unroll 4
            for (int x = 0; x < NT_M; x++) {
#pragma GCC unroll 6
                for (int y = 0; y < NT_N; y++) {
                    acc[x][y] = _mm512_setzero_ps();
                }
            }
            for (int64_t l = 0; l < k; l += 16) {
                __m512 av[NT_M], bv[NT_N];
                __mmask16 mask = l < kv ? (__mmask16)0xffff : tail;
#pragma GCC unroll 4
                for (int x = 0; x < NT_M; x++) {
                    av[x] = _mm512_maskz_loadu_ps(mask, ar[x] + l);
                }
#pragma GCC unroll 6
                for (int y = 0; y < NT_N; y++) {
                    bv[y] = _mm512_maskz_loadu_ps(mask, br[y] + l);
                }
#pragma GCC unroll 4
                for (int x = 0; x < NT_M; x++) {
#pragma GCC unroll 6
                    for (int y = 0; y < NT_N; y++) {
                        acc[x][y] = _mm512_fmadd_ps(av[x], bv[y], acc[x][y]);
                    }
                }
            }
#pragma GCC unroll 6
            for (int y = 0; y < NT_N; y++) {
                float s[4];
                _mm_storeu_ps(s, hsum4(acc[0][y], acc[1][y], acc[2][y], acc[3][y]));
                for (int x = 0; x < NT_M && i + x < m && j + y < n; x++) {
                    c[(i + x) * ldc + j + y] += s[x];
                }
            }
        }
    }
}

/* The lanes t of a 16-lane chunk at column base with lo <= base + t < hi. */
INLINE __mmask16
span_mask(int64_t lo, int64_t hi, int64_t base)
{
    int64_t a = lo - base, b = hi - base;
    a = a < 0 ? 0 : a;
    b = b > 16 ? 16 : b;
    return b <= a ? 0 : (__mmask16)(((1u << b) - 1) & ~((1u << a) - 1));
}

/* The columns [a, b) of output row oy within the positions [l0, l1), and
 * the input row it reads (-1 where it is padding). */
INLINE void
row_part(const conv_geom *g, int64_t oy, int64_t i, int64_t l0, int64_t l1, int64_t *a,
         int64_t *b, int64_t *iy)
{
    int64_t first = oy * g->ow;
    *a = l0 > first ? l0 - first : 0;
    *b = l1 - first < g->ow ? l1 - first : g->ow;
    *iy = oy * g->sh - g->ph + i * g->dh;
    *iy = *iy >= 0 && *iy < g->ih ? *iy : -1;
}

/* ct__conv_im2col_range for float32 with sw == 1: a row of the window is
 * a contiguous run of the input, copied 16 lanes at a time with masks for
 * the padding and the ends of the range. */
static AVX512 void
im2col_s1(const conv_geom *g, const float *x, float *cols, int64_t ld, int64_t l0,
          int64_t l1)
{
    for (int64_t c = 0; c < g->cg; c++) {
        for (int64_t i = 0; i < g->kh; i++) {
            for (int64_t j = 0; j < g->kw; j++) {
                float *row = cols + ((c * g->kh + i) * g->kw + j) * ld - l0;
                /* the output columns whose input column is inside */
                int64_t off = j * g->dw - g->pw;
                int64_t xlo = -off, xhi = g->iw - off;
                for (int64_t oy = l0 / g->ow; oy * g->ow < l1; oy++) {
                    int64_t a, b, iy;
                    row_part(g, oy, i, l0, l1, &a, &b, &iy);
                    float *dst = row + oy * g->ow;
                    const float *src =
                        x + (c * g->ih + (iy < 0 ? 0 : iy)) * g->iw + off;
                    for (int64_t q = a; q < b; q += 16) {
                        __mmask16 lm = iy < 0 ? 0 : span_mask(a > xlo ? a : xlo,
                                                              b < xhi ? b : xhi, q);
                        __m512 v = _mm512_maskz_loadu_ps(lm, src + q);
                        _mm512_mask_storeu_ps(dst + q, span_mask(a, b, q), v);
                    }
                }
            }
        }
    }
}

/* ct__conv_col2im_range for float32 with sw == 1: im2col_s1 backwards,
 * adding in the same order as the generic loop. */
static AVX512 void
col2im_s1(const conv_geom *g, const float *cols, float *x, int64_t ld, int64_t l0,
          int64_t l1)
{
    for (int64_t c = 0; c < g->cg; c++) {
        for (int64_t i = 0; i < g->kh; i++) {
            for (int64_t j = 0; j < g->kw; j++) {
                const float *row = cols + ((c * g->kh + i) * g->kw + j) * ld - l0;
                int64_t off = j * g->dw - g->pw;
                int64_t xlo = -off, xhi = g->iw - off;
                for (int64_t oy = l0 / g->ow; oy * g->ow < l1; oy++) {
                    int64_t a, b, iy;
                    row_part(g, oy, i, l0, l1, &a, &b, &iy);
                    if (iy < 0) {
                        continue;
                    }
                    const float *src = row + oy * g->ow;
                    float *dst = x + (c * g->ih + iy) * g->iw + off;
                    int64_t lo = a > xlo ? a : xlo, hi = b < xhi ? b : xhi;
                    for (int64_t q = lo; q < hi; q += 16) {
                        __mmask16 m = span_mask(lo, hi, q);
                        __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, dst + q),
                                                 _mm512_maskz_loadu_ps(m, src + q));
                        _mm512_mask_storeu_ps(dst + q, m, v);
                    }
                }
            }
        }
    }
}

/* One block of the implicit forward product (Note [Implicit columns]):
 * mr output rows x nv vectors (mr * nv <= 24 accumulators), from the
 * vectors' taps tables.  Rows past mrows are computed (A's padding rows
 * are zeros) but not stored. */
INLINE AVX512 void
fwd_block(int mr, int nv, const conv_geom *g, const conv_taps *tp, int64_t v0,
          const float *ap, const float *x, float *y, int mrows, const float *bias)
{
    const int64_t kk = g->kh * g->kw, P = g->ih * g->iw, L = g->oh * g->ow;
    const int64_t cg = g->cg;
    __m512 acc[8][6];
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++) {
#pragma GCC unroll 6
        for (int v = 0; v < nv; v++) {
            acc[i][v] = _mm512_setzero_ps();
        }
    }
    for (int64_t t = 0; t < kk; t++) {
        __mmask16 m[6];
        const float *xp[6];
#pragma GCC unroll 6
        for (int v = 0; v < nv; v++) {
            m[v] = tp->mask[(v0 + v) * kk + t];
            xp[v] = x + tp->off[(v0 + v) * kk + t];
        }
        const float *at = ap + t * cg * mr;
        for (int64_t c = 0; c < cg; c++) {
            __m512 bv[6];
#pragma GCC unroll 6
            for (int v = 0; v < nv; v++) {
                bv[v] = _mm512_maskz_loadu_ps(m[v], xp[v] + c * P);
            }
#pragma GCC unroll 8
            for (int i = 0; i < mr; i++) {
                __m512 a = _mm512_set1_ps(at[c * mr + i]);
#pragma GCC unroll 6
                for (int v = 0; v < nv; v++) {
                    acc[i][v] = _mm512_fmadd_ps(a, bv[v], acc[i][v]);
                }
            }
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++) {
        if (i >= mrows) {
            break;
        }
        __m512 bb = _mm512_set1_ps(bias != NULL ? bias[i] : 0.0f);
#pragma GCC unroll 6
        for (int v = 0; v < nv; v++) {
            __m512 r = bias != NULL ? _mm512_add_ps(acc[i][v], bb) : acc[i][v];
            _mm512_mask_storeu_ps(y + i * L + tp->pos[v0 + v], tp->omask[v0 + v], r);
        }
    }
}

#define FWD_BLOCK(MR, NV)                                                      \
    static AVX512 void fwd_block_##MR##x##NV(                                  \
        const conv_geom *g, const conv_taps *tp, int64_t v0, const float *ap,  \
        const float *x, float *y, int mrows, const float *bias)                \
    {                                                                          \
        fwd_block(MR, NV, g, tp, v0, ap, x, y, mrows, bias);                   \
    }
FWD_BLOCK(8, 1)
FWD_BLOCK(8, 2)
FWD_BLOCK(8, 3)
FWD_BLOCK(4, 1)
FWD_BLOCK(4, 2)
FWD_BLOCK(4, 3)
FWD_BLOCK(4, 4)
FWD_BLOCK(4, 5)
FWD_BLOCK(4, 6)
#undef FWD_BLOCK

typedef void (*fwd_block_fn)(const conv_geom *g, const conv_taps *tp, int64_t v0,
                             const float *ap, const float *x, float *y, int mrows,
                             const float *bias);
/* [mr / 4 - 1][nv] */
static const fwd_block_fn fwd_blocks[2][7] = {
    {NULL, fwd_block_4x1, fwd_block_4x2, fwd_block_4x3, fwd_block_4x4, fwd_block_4x5,
     fwd_block_4x6},
    {NULL, fwd_block_8x1, fwd_block_8x2, fwd_block_8x3},
};

static AVX512 void
implicit_fwd(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
             const float *ap, const float *x, float *y, const float *bias)
{
    const int64_t k = g->cg * g->kh * g->kw, L = g->oh * g->ow;
    const int mr = ct__conv_avx512_fwd_rows(g->og), most = 24 / mr;
    /* blocks of as even a width as can be (16 vectors: 3 3 3 3 2 2, not
     * 3 3 3 3 3 1, whose 8 accumulators wait on each other) */
    const int64_t nb = (v1 - v0 + most - 1) / most;
    for (int64_t bi = 0, v = v0; bi < nb; bi++) {
        int nv = (int)((v1 - v0) / nb + (bi < (v1 - v0) % nb));
        for (int64_t i = 0; i < g->og; i += mr) {
            int mrows = g->og - i < mr ? (int)(g->og - i) : mr;
            fwd_blocks[mr / 4 - 1][nv](g, tp, v, ap + i * k, x, y + i * L, mrows,
                                       bias != NULL ? bias + i : NULL);
        }
        v += nv;
    }
}

/* The weight product on implicit columns: dw [og, cg * kk] += dy [og, L]
 * @ cols^T over the vectors [v0, v1) of ns samples (dy and x advancing by
 * dys and xs floats per sample), in register tiles of dot products as
 * sgemm_nt: mo output channels by cb input channels x tb taps (mo * cb *
 * tb = 24 accumulators).  dY is first copied to `work` in the order the
 * tiles read it, [og / mo][ns][v1 - v0][mo][16] with zeros past the rows'
 * ends, so the left-hand loads walk one pointer.  A tile's sums run over
 * all the samples before they are reduced across lanes, and the taps'
 * tables are read once per vector for all cb channels.  Column c * kk + t
 * of dw is tap t of channel c; rows, channels and taps past the end
 * repeat the first ones, and their sums are dropped. */
INLINE AVX512 void
weight_tile(int mo, int cb, int tb, const conv_geom *g, const conv_taps *tp, int64_t v0,
            int64_t v1, int64_t ns, const float *ap, const float *x, int64_t xs,
            float *dw, int64_t o0, int64_t c0, int64_t t0)
{
    const int64_t kk = g->kh * g->kw, P = g->ih * g->iw;
    const int64_t n = g->cg * kk;
    const float *xb[6];
    int64_t tt[6];
    for (int b = 0; b < cb; b++) {
        xb[b] = x + (c0 + b < g->cg ? c0 + b : c0) * P;
    }
    for (int i = 0; i < tb; i++) {
        tt[i] = t0 + i < kk ? t0 + i : t0;
    }
    __m512 acc[8][6];
#pragma GCC unroll 8
    for (int a = 0; a < mo; a++) {
#pragma GCC unroll 6
        for (int b = 0; b < cb * tb; b++) {
            acc[a][b] = _mm512_setzero_ps();
        }
    }
    for (int64_t smp = 0; smp < ns; smp++) {
        for (int64_t v = v0; v < v1; v++, ap += mo * 16) {
            /* the right-hand vectors first, then one left-hand vector at a
             * time: 24 accumulators + 6 + 1 registers, none spilled */
            __m512 bv[6];
            const int32_t *off = tp->off + v * kk;
            const uint16_t *mk = tp->mask + v * kk;
#pragma GCC unroll 6
            for (int i = 0; i < tb; i++) {
                __mmask16 m = mk[tt[i]];
                int64_t o = off[tt[i]];
#pragma GCC unroll 6
                for (int b = 0; b < cb; b++) {
                    bv[i * cb + b] = _mm512_maskz_loadu_ps(m, xb[b] + o);
                }
            }
#pragma GCC unroll 8
            for (int a = 0; a < mo; a++) {
                __m512 av = _mm512_loadu_ps(ap + a * 16);
                /* one load, not one per use folded into each FMA */
                __asm__("" : "+v"(av));
#pragma GCC unroll 6
                for (int y = 0; y < cb * tb; y++) {
                    acc[a][y] = _mm512_fmadd_ps(av, bv[y], acc[a][y]);
                }
            }
        }
        for (int b = 0; b < cb; b++) {
            xb[b] += xs;
        }
    }
#pragma GCC unroll 6
    for (int i = 0; i < tb; i++) {
#pragma GCC unroll 6
        for (int b = 0; b < cb; b++) {
            int y = i * cb + b;
            float sums[8];
            _mm_storeu_ps(sums, hsum4(acc[0][y], acc[1][y], acc[2][y], acc[3][y]));
            if (mo == 8) {
                _mm_storeu_ps(sums + 4,
                              hsum4(acc[4][y], acc[5][y], acc[6][y], acc[7][y]));
            }
            if (c0 + b >= g->cg || t0 + i >= kk) {
                continue;
            }
            for (int a = 0; a < mo && o0 + a < g->og; a++) {
                dw[(o0 + a) * n + (c0 + b) * kk + t0 + i] += sums[a];
            }
        }
    }
}

#define WEIGHT_TILE(MO, CB, TB)                                                \
    static AVX512 void weight_tile_##MO##x##CB##x##TB(                         \
        const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,       \
        int64_t ns, const float *ap, const float *x, int64_t xs, float *dw,    \
        int64_t o0, int64_t c0, int64_t t0)                                    \
    {                                                                          \
        weight_tile(MO, CB, TB, g, tp, v0, v1, ns, ap, x, xs, dw, o0, c0, t0); \
    }
WEIGHT_TILE(8, 3, 1)
WEIGHT_TILE(8, 1, 3)
WEIGHT_TILE(4, 6, 1)
WEIGHT_TILE(4, 3, 2)
WEIGHT_TILE(4, 2, 3)
WEIGHT_TILE(4, 1, 6)
#undef WEIGHT_TILE

typedef void (*weight_tile_fn)(const conv_geom *g, const conv_taps *tp, int64_t v0,
                               int64_t v1, int64_t ns, const float *ap, const float *x,
                               int64_t xs, float *dw, int64_t o0, int64_t c0,
                               int64_t t0);

/* The channels of a weight tile whose cols columns are channels x taps,
 * for c channels of kk taps: the fewest that waste the least (taps of one
 * channel read neighbouring memory, and are faster). */
static int
weight_tile_channels(int64_t c, int64_t kk, int cols)
{
    int best = 1;
    int64_t best_waste = -1;
    for (int cb = 1; cb <= cols; cb++) {
        if (cols % cb != 0) {
            continue;
        }
        int tb = cols / cb;
        int64_t waste = (c + cb - 1) / cb * cb * ((kk + tb - 1) / tb * tb) - c * kk;
        if (best_waste < 0 || waste < best_waste) {
            best = cb;
            best_waste = waste;
        }
    }
    return best;
}

/* The register tile of the weight product: mo output channels by cb
 * input channels x (24 / mo / cb) taps.  8 output channels where there
 * are 8 (the fewer the right-hand loads, which straddle cache lines, the
 * faster), else 4. */
static void
weight_shape(const conv_geom *g, int *mo, int *cb, int *tb)
{
    *mo = g->og >= 8 ? 8 : 4;
    *cb = weight_tile_channels(g->cg, g->kh * g->kw, 24 / *mo);
    *tb = 24 / *mo / *cb;
}

static void
weight_blocks(const conv_geom *g, int64_t *rows, int64_t *cols)
{
    int mo, cb, tb;
    weight_shape(g, &mo, &cb, &tb);
    *rows = (g->og + mo - 1) / mo;
    *cols = (g->kh * g->kw + tb - 1) / tb * ((g->cg + cb - 1) / cb);
}

static AVX512 void
implicit_weight(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
                int64_t ns, const float *dy, int64_t dys, const float *x, int64_t xs,
                float *dw, float *work, const int64_t *blk)
{
    const int64_t L = g->oh * g->ow, nv = v1 - v0;
    int mo, cb, tb;
    weight_shape(g, &mo, &cb, &tb);
    const int64_t ncb = (g->cg + cb - 1) / cb;
    weight_tile_fn fn = mo == 8 ? (cb == 3 ? weight_tile_8x3x1 : weight_tile_8x1x3)
                                : (cb == 6   ? weight_tile_4x6x1
                                   : cb == 3 ? weight_tile_4x3x2
                                   : cb == 2 ? weight_tile_4x2x3
                                             : weight_tile_4x1x6);
    const int64_t o_lo = blk[0] * mo, o_hi = blk[1] * mo < g->og ? blk[1] * mo : g->og;
    /* the unit's rows of dY in tile order */
    float *p = work;
    for (int64_t o0 = o_lo; o0 < o_hi; o0 += mo) {
        for (int64_t smp = 0; smp < ns; smp++) {
            for (int64_t v = v0; v < v1; v++) {
                for (int64_t o = o0; o < o0 + mo; o++, p += 16) {
                    __m512 r = o < g->og ? _mm512_maskz_loadu_ps(
                                               tp->omask[v], dy + smp * dys + o * L +
                                                                 tp->pos[v])
                                         : _mm512_setzero_ps();
                    _mm512_storeu_ps(p, r);
                }
            }
        }
    }
    for (int64_t o0 = o_lo; o0 < o_hi; o0 += mo) {
        const float *ap = work + (o0 - o_lo) * ns * nv * 16;
        for (int64_t b = blk[2]; b < blk[3]; b++) {
            fn(g, tp, v0, v1, ns, ap, x, xs, dw, o0, b % ncb * cb, b / ncb * tb);
        }
    }
}

static bool
cpu_has_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}
#else
static void
sgemm_nn(int64_t m, int64_t n, int64_t k, const float *ap, const float *b, int64_t ldb,
         float *c, int64_t ldc, const float *bias)
{
    (void)m, (void)n, (void)k, (void)ap, (void)b, (void)ldb, (void)c, (void)ldc;
    (void)bias;
}

static void
sgemm_nt(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda, const float *b,
         int64_t ldb, float *c, int64_t ldc)
{
    (void)m, (void)n, (void)k, (void)a, (void)lda, (void)b, (void)ldb, (void)c;
    (void)ldc;
}

static void
im2col_s1(const conv_geom *g, const float *x, float *cols, int64_t ld, int64_t l0,
          int64_t l1)
{
    ct__conv_im2col_range(g, (const char *)x, (char *)cols, ld, l0, l1);
}

static void
col2im_s1(const conv_geom *g, const float *cols, float *x, int64_t ld, int64_t l0,
          int64_t l1)
{
    ct__conv_col2im_range(g, (const char *)cols, (char *)x, ld, l0, l1);
}

static void
implicit_fwd(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
             const float *ap, const float *x, float *y, const float *bias)
{
    (void)g, (void)tp, (void)v0, (void)v1, (void)ap, (void)x, (void)y, (void)bias;
}

static void
weight_blocks(const conv_geom *g, int64_t *rows, int64_t *cols)
{
    (void)g;
    *rows = *cols = 1;
}

static void
implicit_weight(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
                int64_t ns, const float *dy, int64_t dys, const float *x, int64_t xs,
                float *dw, float *work, const int64_t *blk)
{
    (void)g, (void)tp, (void)v0, (void)v1, (void)ns, (void)dy, (void)dys, (void)x;
    (void)xs, (void)dw, (void)work, (void)blk;
}

static bool
cpu_has_avx512(void)
{
    return false;
}
#endif

/* Whether the kernels run here: the CPU has AVX-512F, and CT_CONV_AVX512
 * is not "0" (which sends float32 convolution to the BLAS path, for
 * comparing the two). */
bool
ct__conv_avx512_available(void)
{
    static atomic_int state;    /* 0: unknown, 1: no, 2: yes */
    int s = atomic_load_explicit(&state, memory_order_relaxed);
    if (s == 0) {
        const char *env = getenv("CT_CONV_AVX512");
        s = cpu_has_avx512() && !(env != NULL && strcmp(env, "0") == 0) ? 2 : 1;
        atomic_store_explicit(&state, s, memory_order_relaxed);
    }
    return s == 2;
}

int64_t
ct__conv_avx512_packed_size(int64_t m, int64_t k)
{
    return (m + MR - 1) / MR * MR * k;
}

void
ct__conv_avx512_pack(int64_t m, int64_t k, const float *a, int64_t rs, int64_t cs,
                    float *ap)
{
    for (int64_t i0 = 0; i0 < m; i0 += MR) {
        for (int64_t l = 0; l < k; l++) {
            for (int64_t i = i0; i < i0 + MR; i++) {
                *ap++ = i < m ? a[i * rs + l * cs] : 0.0f;
            }
        }
    }
}

void
ct__conv_avx512_nn(int64_t m, int64_t n, int64_t k, const float *ap, const float *b,
                  int64_t ldb, float *c, int64_t ldc, const float *bias)
{
    if (m > 0 && n > 0) {
        sgemm_nn(m, n, k, ap, b, ldb, c, ldc, bias);
    }
}

void
ct__conv_avx512_nt(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                  const float *b, int64_t ldb, float *c, int64_t ldc)
{
    if (m > 0 && n > 0 && k > 0) {
        sgemm_nt(m, n, k, a, lda, b, ldb, c, ldc);
    }
}

void
ct__conv_avx512_im2col(const conv_geom *g, const float *x, float *cols, int64_t ld,
                       int64_t l0, int64_t l1)
{
    if (g->sw == 1) {
        im2col_s1(g, x, cols, ld, l0, l1);
    }
    else {
        ct__conv_im2col_range(g, (const char *)x, (char *)cols, ld, l0, l1);
    }
}

void
ct__conv_avx512_col2im(const conv_geom *g, const float *cols, float *x, int64_t ld,
                       int64_t l0, int64_t l1)
{
    if (g->sw == 1) {
        col2im_s1(g, cols, x, ld, l0, l1);
    }
    else {
        ct__conv_col2im_range(g, (const char *)cols, (char *)x, ld, l0, l1);
    }
}

/* Note [Implicit columns]
 * Where the window moves one input column per output column (sw == 1),
 * 16 neighbouring outputs of one output row read 16 neighbouring inputs
 * for every kernel tap, so a vector of the column matrix is one masked
 * load from the input itself: the columns are never written out.  The
 * output plane is cut into vectors (a row's columns [q, q + 16), the last
 * one of a row short), and for vector v and tap t = i * kw + j the table
 * holds where lane 0 reads in an input channel plane, off = iy * iw + ix,
 * and the lanes whose input is inside it (zero: padding).  The forward
 * kernel takes three vectors by MR output channels, walking the taps
 * outside and the input channels inside (the weight is packed in that
 * order: [og / MR][kk][cg][MR]); the weight kernel is sgemm_nt's with its
 * right-hand rows read through the table. */
int64_t
ct__conv_taps_count(const conv_geom *g)
{
    return g->oh * ((g->ow + 15) / 16);
}

void
ct__conv_taps_fill(const conv_geom *g, conv_taps *tp)
{
    const int64_t kk = g->kh * g->kw, nq = (g->ow + 15) / 16;
    for (int64_t oy = 0; oy < g->oh; oy++) {
        for (int64_t qi = 0; qi < nq; qi++) {
            int64_t v = oy * nq + qi, q = qi * 16, w = g->ow - q < 16 ? g->ow - q : 16;
            tp->pos[v] = (int32_t)(oy * g->ow + q);
            tp->omask[v] = (uint16_t)((1u << w) - 1);
            for (int64_t t = 0; t < kk; t++) {
                int64_t iy = oy * g->sh - g->ph + t / g->kw * g->dh;
                int64_t ix = q - g->pw + t % g->kw * g->dw;
                /* the lanes [lo, hi) read inside the row */
                int64_t lo = ix < 0 ? -ix : 0, hi = g->iw - ix < w ? g->iw - ix : w;
                bool in = iy >= 0 && iy < g->ih && lo < hi;
                tp->off[v * kk + t] = in ? (int32_t)(iy * g->iw + ix) : 0;
                tp->mask[v * kk + t] =
                    in ? (uint16_t)(((1u << hi) - 1) & ~((1u << lo) - 1)) : 0;
            }
        }
    }
}

int
ct__conv_avx512_fwd_rows(int64_t m)
{
    return m <= 4 ? 4 : 8;
}

void
ct__conv_avx512_pack_taps(int64_t m, int64_t kk, int64_t nch, const float *a,
                          int64_t rs, int64_t cs, int64_t ts, float *ap)
{
    const int mr = ct__conv_avx512_fwd_rows(m);
    for (int64_t i0 = 0; i0 < m; i0 += mr) {
        for (int64_t t = 0; t < kk; t++) {
            for (int64_t c = 0; c < nch; c++) {
                for (int64_t i = i0; i < i0 + mr; i++) {
                    *ap++ = i < m ? a[i * rs + c * cs + t * ts] : 0.0f;
                }
            }
        }
    }
}

void
ct__conv_avx512_fwd(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
                    const float *ap, const float *x, float *y, const float *bias)
{
    if (v0 < v1) {
        implicit_fwd(g, tp, v0, v1, ap, x, y, bias);
    }
}

int64_t
ct__conv_avx512_weight_work(const conv_geom *g, int64_t nv, int64_t ns)
{
    return (g->og + 7) / 8 * 8 * ns * nv * 16;
}

void
ct__conv_avx512_weight_blocks(const conv_geom *g, int64_t *rows, int64_t *cols)
{
    weight_blocks(g, rows, cols);
}

void
ct__conv_avx512_weight(const conv_geom *g, const conv_taps *tp, int64_t v0, int64_t v1,
                       int64_t ns, const float *dy, int64_t dys, const float *x,
                       int64_t xs, float *dw, float *work, const int64_t blk[4])
{
    if (v0 < v1 && ns > 0 && blk[0] < blk[1] && blk[2] < blk[3]) {
        implicit_weight(g, tp, v0, v1, ns, dy, dys, x, xs, dw, work, blk);
    }
}
