/* aten/cpu/conv_tiled.c -- the float32 convolution products on the
 * kernels of conv_avx512.c, cut into tiles that each thread works on in
 * its own cache (Note [Convolution tiles]).
 *
 * Ownership: one scratch block per call, from the caching CPU allocator,
 * freed before returning.  Thread-safety: nothing is shared between
 * calls; inside one call each thread writes its own output tiles, column
 * buffer and partial weight gradient.
 */
#include <limits.h>
#include <string.h>

#include "aten/cpu/conv_impl.h"
#include "aten/parallel.h"

/* Note [Convolution tiles]
 * Each (sample, group) plane is one product of Note [Convolution as gemm],
 * cut into tiles of output positions, and a tile is a unit of work; the
 * units are split across the pool of aten/parallel.h in contiguous
 * ranges, a plane being cut finer when planes are fewer than threads.
 * OpenBLAS is not called, so no second set of threads competes.
 *   - Implicit columns (Note [Implicit columns]) where the window steps
 *     one input column per output column: forward and weight products
 *     with sw == 1, and the data product with sh == sw == 1, which is
 *     itself a forward product: dX is the correlation of dY (padded by
 *     d (k - 1) - p) with the flipped weight, input and output channels
 *     swapped.  A tile is a range of output vectors.
 *   - Explicit columns otherwise: a tile is lt output positions whose
 *     columns [ck, lt] fit in L2 (TILE_ELEMS floats), written by im2col
 *     into the thread's buffer, then
 *         forward:  Y[:, tile] = W @ cols (+ bias)
 *         weight:   dW += dY[:, tile] @ cols^T
 *         data:     cols = W^T @ dY[:, tile], col2im(cols) into dX
 *     The data product's unit is a whole plane, because col2im of
 *     neighbouring tiles adds into the same input rows.
 * The weight gradient is summed per thread (the first thread into the
 * caller's zeroed dW) and the partial sums are added in thread order at
 * the end; the weight is packed once per call. */
#define TILE_ELEMS (48 * 1024)
/* A weight-product tile (implicit columns): at most TILE_VECS output
 * vectors of as many samples as keep its dY and x within TILE_BYTES. */
#define TILE_VECS 64
#define TILE_BYTES (256 * 1024)
/* Below this many multiply-adds a product stays on the calling thread. */
#define TILED_GRAIN (1 << 17)

typedef struct {
    const conv_geom *g;         /* the geometry the kernels see */
    int kind;
    bool implicit;
    const float *wide, *narrow, *bias;
    float *out;
    const float *wp;            /* packed weight, wp_g floats per group */
    int64_t wp_g;
    const conv_taps *taps;
    int64_t tile, tiles;        /* tile length (positions or vectors), per plane */
    int64_t ns;                 /* samples per weight tile (implicit columns) */
    int64_t units;
    float *scratch;             /* per thread: columns or dY in tile order,
                                 * then partial dW */
    int64_t cols_elems, per_thread;
} tiled_job;

static int64_t
round16(int64_t n)
{
    return (n + 15) / 16 * 16;
}

static int64_t
min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* --- explicit columns ------------------------------------------------------ */
static void
cols_fwd(const tiled_job *j, int64_t n, int64_t gi, int64_t l0, int64_t l1, float *cols)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw, ck = g->cg * g->kh * g->kw;
    const float *x = j->wide + (n * g->c + gi * g->cg) * P;
    ct__conv_avx512_im2col(g, x, cols, l1 - l0, l0, l1);
    ct__conv_avx512_nn(g->og, l1 - l0, ck, j->wp + gi * j->wp_g, cols, l1 - l0,
                       j->out + (n * g->o + gi * g->og) * L + l0, L,
                       j->bias != NULL ? j->bias + gi * g->og : NULL);
}

static void
cols_weight(const tiled_job *j, int64_t n, int64_t gi, int64_t l0, int64_t l1,
            float *cols, float *dw)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw, ck = g->cg * g->kh * g->kw;
    const float *x = j->wide + (n * g->c + gi * g->cg) * P;
    ct__conv_avx512_im2col(g, x, cols, l1 - l0, l0, l1);
    ct__conv_avx512_nt(g->og, ck, l1 - l0, j->narrow + (n * g->o + gi * g->og) * L + l0,
                       L, cols, l1 - l0, dw + gi * g->og * ck, ck);
}

static void
cols_data(const tiled_job *j, int64_t n, int64_t gi, float *cols)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw, ck = g->cg * g->kh * g->kw;
    float *dx = j->out + (n * g->c + gi * g->cg) * P;
    const float *dy = j->narrow + (n * g->o + gi * g->og) * L;
    memset(dx, 0, sizeof(float) * (size_t)(g->cg * P));
    for (int64_t l0 = 0; l0 < L; l0 += j->tile) {
        int64_t l1 = min64(l0 + j->tile, L);
        ct__conv_avx512_nn(ck, l1 - l0, g->og, j->wp + gi * j->wp_g, dy + l0, L, cols,
                           l1 - l0, NULL);
        ct__conv_avx512_col2im(g, cols, dx, l1 - l0, l0, l1);
    }
    if (j->bias != NULL) {
        const float *bias = j->bias + gi * g->cg;
        for (int64_t c = 0; c < g->cg; c++) {
            float *r = dx + c * P;
            for (int64_t i = 0; i < P; i++) {
                r[i] += bias[c];
            }
        }
    }
}

/* --- implicit columns --------------------------------------------------------- */
/* The geometry of the data product as a forward product (stride 1):
 * Note [Convolution tiles]. */
static conv_geom
data_as_forward(const conv_geom *g)
{
    conv_geom f = *g;
    f.c = g->o, f.o = g->c, f.cg = g->og, f.og = g->cg;
    f.ih = g->oh, f.iw = g->ow, f.oh = g->ih, f.ow = g->iw;
    f.ph = g->dh * (g->kh - 1) - g->ph;
    f.pw = g->dw * (g->kw - 1) - g->pw;
    return f;
}

static void
taps_unit(const tiled_job *j, int64_t u, float *work, float *dw)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw;
    const int64_t V = ct__conv_taps_count(g);
    int64_t plane = u / j->tiles, t = u % j->tiles;
    int64_t n = plane / g->groups, gi = plane % g->groups;
    int64_t v0 = t * j->tile, v1 = min64(v0 + j->tile, V);
    /* the forward kernel's input: the wide side, or dY for the data
     * product (whose geometry has the sides swapped) */
    const float *in = j->kind == CONV_DATA ? j->narrow : j->wide;
    if (j->kind == CONV_WEIGHT) {
        /* u = (sample chunk, group, vector tile) */
        int64_t chunk = u / (g->groups * j->tiles), n0 = chunk * j->ns;
        int64_t ns = min64(j->ns, g->n - n0);
        gi = u / j->tiles % g->groups;
        ct__conv_avx512_weight(g, j->taps, v0, v1, ns,
                               j->narrow + (n0 * g->o + gi * g->og) * L, g->o * L,
                               j->wide + (n0 * g->c + gi * g->cg) * P, g->c * P,
                               dw + gi * g->og * g->cg * g->kh * g->kw, work);
        return;
    }
    const float *x = in + (n * g->c + gi * g->cg) * P;
    ct__conv_avx512_fwd(g, j->taps, v0, v1, j->wp + gi * j->wp_g, x,
                        j->out + (n * g->o + gi * g->og) * L,
                        j->bias != NULL ? j->bias + gi * g->og : NULL);
}

static void
tiled_part(void *ctx, int tid, int nthreads)
{
    const tiled_job *j = ctx;
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow;
    float *cols = j->scratch + tid * j->per_thread;
    float *dw = j->out;
    if (j->kind == CONV_WEIGHT && tid > 0) {
        /* thread 0 sums into the caller's zeroed dW, the others into
         * their own */
        dw = cols + j->cols_elems;
        memset(dw, 0, sizeof(float) * (size_t)(g->groups * g->og * g->cg * g->kh * g->kw));
    }
    int64_t lo = j->units * tid / nthreads, hi = j->units * (tid + 1) / nthreads;
    for (int64_t u = lo; u < hi; u++) {
        if (j->implicit) {
            taps_unit(j, u, cols, dw);
            continue;
        }
        if (j->kind == CONV_DATA) {
            cols_data(j, u / g->groups, u % g->groups, cols);
            continue;
        }
        int64_t plane = u / j->tiles, t = u % j->tiles;
        int64_t l0 = t * j->tile, l1 = min64(l0 + j->tile, L);
        if (j->kind == CONV_FWD) {
            cols_fwd(j, plane / g->groups, plane % g->groups, l0, l1, cols);
        }
        else {
            cols_weight(j, plane / g->groups, plane % g->groups, l0, l1, cols, dw);
        }
    }
}

/* Pack the weight of every group for the kernels (nothing for the weight
 * product); wp_g floats per group. */
static void
pack_weight(const conv_geom *g0, const conv_geom *g, int kind, bool implicit,
            const float *w, float *wp, int64_t wp_g)
{
    const int64_t kk = g->kh * g->kw, ck0 = g0->cg * kk;
    for (int64_t gi = 0; gi < g->groups && kind != CONV_WEIGHT; gi++) {
        const float *wg = w + gi * g0->og * ck0;    /* W[g]: [og, cg, kk] */
        float *dst = wp + gi * wp_g;
        if (!implicit) {
            if (kind == CONV_FWD) {
                ct__conv_avx512_pack(g0->og, ck0, wg, ck0, 1, dst);
            }
            else {
                ct__conv_avx512_pack(ck0, g0->og, wg, 1, ck0, dst);
            }
        }
        else if (kind == CONV_FWD) {
            /* rows o, taps t, channels c: W[o, c, t] */
            ct__conv_avx512_pack_taps(g0->og, kk, g0->cg, wg, ck0, kk, 1, dst);
        }
        else {
            /* rows c, taps t, channels o: W[o, c, kk - 1 - t] (flipped) */
            ct__conv_avx512_pack_taps(g0->cg, kk, g0->og, wg + kk - 1, kk, ck0, -1, dst);
        }
    }
}

int
ct__conv_run_tiled(const conv_geom *g0, int kind, const char *wide, const char *narrow,
                   const char *w, const char *bias, char *out)
{
    const int64_t G = g0->groups, planes = g0->n * G;
    const int64_t kk = g0->kh * g0->kw, ck = g0->cg * kk;
    if (planes == 0 || g0->oh * g0->ow == 0 || g0->ih * g0->iw == 0) {
        return 0;
    }
    bool implicit = g0->sw == 1 && (kind != CONV_DATA || g0->sh == 1) &&
                    g0->ih * g0->iw < INT_MAX / 2 && g0->oh * g0->ow < INT_MAX / 2;
    conv_geom gd;
    const conv_geom *g = g0;
    if (implicit && kind == CONV_DATA) {
        gd = data_as_forward(g0);
        g = &gd;
    }
    const int64_t L = g->oh * g->ow;
    int nthreads = ct__parallel_threads();
    if (planes * g->og * ck * L < TILED_GRAIN) {
        nthreads = 1;
    }
    /* the tiles (Note [Convolution tiles]) */
    int64_t tile, tiles, V = 0, ns = 1, units = 0;
    if (implicit && kind == CONV_WEIGHT) {
        V = ct__conv_taps_count(g);
        tile = V < TILE_VECS ? V : TILE_VECS;
        tiles = (V + tile - 1) / tile;
        int64_t per_sample = (int64_t)sizeof(float) * (g->og * L + g->cg * g->ih * g->iw) *
                             tile / V;
        ns = per_sample > 0 ? TILE_BYTES / per_sample : g->n;
        ns = ns < 1 ? 1 : min64(ns, g->n);
        if (G * tiles * ((g->n + ns - 1) / ns) < nthreads) {
            int64_t chunks = min64(g->n, (nthreads + G * tiles - 1) / (G * tiles));
            ns = (g->n + chunks - 1) / chunks;
        }
        units = G * tiles * ((g->n + ns - 1) / ns);
    }
    else if (implicit) {
        V = ct__conv_taps_count(g);
        tile = kind == CONV_WEIGHT ? TILE_VECS : (V + 2) / 3 * 3;
        tiles = (V + tile - 1) / tile;
        if (planes * tiles < nthreads) {
            tiles = min64((nthreads + planes - 1) / planes, (V + 2) / 3);
        }
        tile = ((V + tiles - 1) / tiles + 2) / 3 * 3;
    }
    else {
        tile = ck > 0 ? TILE_ELEMS / ck / 16 * 16 : L;
        tile = tile < 48 ? 48 : tile;
        tiles = (L + tile - 1) / tile;
        if (kind != CONV_DATA && planes * tiles < nthreads) {
            tiles = min64((nthreads + planes - 1) / planes, (L + 15) / 16);
        }
        tile = round16((L + tiles - 1) / tiles);
    }
    if (!implicit || kind != CONV_WEIGHT) {
        tiles = (implicit ? V + tile - 1 : L + tile - 1) / tile;
        units = !implicit && kind == CONV_DATA ? planes : planes * tiles;
    }
    if (nthreads > units) {
        nthreads = (int)units;
    }
    /* scratch: the packed weight, the taps tables, then per thread the
     * columns and (weight product, threads after the first) a partial dW */
    int64_t wp_g = 0;
    if (implicit && kind != CONV_WEIGHT) {
        wp_g = ct__conv_avx512_packed_size(g->og, g->cg * kk);
    }
    else if (kind == CONV_FWD) {
        wp_g = ct__conv_avx512_packed_size(g->og, ck);
    }
    else if (kind == CONV_DATA) {
        wp_g = ct__conv_avx512_packed_size(ck, g->og);
    }
    int64_t packed = round16(G * wp_g);
    int64_t taps_elems = implicit ? round16(V * (kk + 1) * 2) : 0;  /* int32 + uint16 */
    int64_t cols_elems = implicit ? 0 : round16(ck * tile);
    if (implicit && kind == CONV_WEIGHT) {
        cols_elems = round16(ct__conv_avx512_weight_work(g, tile, ns));
    }
    int64_t per_thread = cols_elems + (kind == CONV_WEIGHT ? round16(G * g->og * ck) : 0);
    size_t bytes = sizeof(float) * (size_t)(packed + taps_elems + nthreads * per_thread);
    const ct_allocator *alloc = ct_cpu_allocator();
    float *scratch = alloc->alloc(alloc, bytes);
    if (scratch == NULL) {
        return ct_error(CT_ERR_NOMEM, "convolution: out of memory for %zu bytes of "
                        "columns", bytes);
    }
    pack_weight(g0, g, kind, implicit, (const float *)w, scratch, wp_g);
    conv_taps taps = {0};
    if (implicit) {
        char *t = (char *)(scratch + packed);
        taps.off = (int32_t *)t;
        taps.pos = (int32_t *)(t + sizeof(int32_t) * (size_t)(V * kk));
        taps.mask = (uint16_t *)(t + sizeof(int32_t) * (size_t)(V * (kk + 1)));
        taps.omask = taps.mask + V * kk;
        ct__conv_taps_fill(g, &taps);
    }
    tiled_job job = {
        .g = g, .kind = kind, .implicit = implicit, .wide = (const float *)wide,
        .narrow = (const float *)narrow, .bias = (const float *)bias,
        .out = (float *)out, .wp = scratch, .wp_g = wp_g, .taps = &taps,
        .tile = tile, .tiles = tiles, .ns = ns, .units = units,
        .scratch = scratch + packed + taps_elems, .cols_elems = cols_elems,
        .per_thread = per_thread,
    };
    if (nthreads > 1) {
        ct__parallel_run(nthreads, tiled_part, &job);
    }
    else {
        tiled_part(&job, 0, 1);
    }
    if (kind == CONV_WEIGHT) {
        int64_t nw = G * g->og * ck;
        float *dw = (float *)out;
        for (int t = 1; t < nthreads; t++) {
            const float *part = job.scratch + t * per_thread + cols_elems;
            for (int64_t i = 0; i < nw; i++) {
                dw[i] += part[i];
            }
        }
    }
    alloc->free(alloc, scratch, bytes);
    return 0;
}
