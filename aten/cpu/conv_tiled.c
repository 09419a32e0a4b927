/* aten/cpu/conv_tiled.c -- the float32 convolution products on the
 * kernels of conv_avx512.c, cut into units of work that the threads take
 * in turn, each working in its own cache (Note [Convolution tiles]).
 *
 * Ownership: one scratch block per call, from the caching CPU allocator,
 * freed before returning.  Thread-safety: nothing is shared between
 * calls; inside one call each unit writes its own part of the output and
 * each thread its own buffers.
 */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>

#include "aten/cpu/conv_impl.h"
#include "aten/parallel.h"

/* Note [Convolution tiles]
 * The products of Note [Convolution as gemm] are cut into units of work,
 * and each thread of the pool of aten/parallel.h takes the next unit until
 * none is left, so a thread that the machine's other load holds back
 * leaves its share to the others.  Every unit writes its own outputs, in
 * an order that does not depend on which thread runs it, so results do
 * not change from run to run.  OpenBLAS is not called: no second set of
 * threads competes.
 *   - Implicit columns (Note [Implicit columns]) where the window steps
 *     one input column per output column: forward and weight products
 *     with sw == 1, and the data product with sh == sw == 1, which is
 *     itself a forward product: dX is the correlation of dY (padded by
 *     d (k - 1) - p) with the flipped weight, input and output channels
 *     swapped.  A forward unit is a range of output vectors of one
 *     (sample, group) plane.  A weight unit is a range of column blocks
 *     of one group's dW (ct__conv_avx512_weight), summed over the whole
 *     batch in tiles of at most TILE_VECS vectors of as many samples as
 *     keep the tile's dY and x within TILE_BYTES.
 *   - Explicit columns otherwise: a tile is lt output positions whose
 *     columns [ck, lt] fit in L2 (TILE_ELEMS floats), written by im2col
 *     into the thread's buffer, then
 *         forward:  Y[:, tile] = W @ cols (+ bias)
 *         weight:   dW += dY[:, tile] @ cols^T
 *         data:     cols = W^T @ dY[:, tile], col2im(cols) into dX
 *     The data product's unit is a whole plane, because col2im of
 *     neighbouring tiles adds into the same input rows.  The weight
 *     product sums into one dW per thread over a fixed range of tiles
 *     (the first thread into the caller's zeroed dW), added up in thread
 *     order at the end.
 * Planes are cut finer where they are fewer than the threads; the weight
 * is packed once per call. */
#define TILE_ELEMS (48 * 1024)
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
    /* weight units: per group rparts x cparts of dW's rows x cols blocks */
    int64_t rows, cols, rparts, cparts;
    int64_t units;
    atomic_llong next;          /* the next unit to take */
    float *scratch;             /* per thread: columns or dY in tile order,
                                 * then (explicit weight product) a dW */
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

/* Unit u of the explicit products. */
static void
cols_unit(const tiled_job *j, int64_t u, float *cols, float *dw)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow;
    if (j->kind == CONV_DATA) {
        cols_data(j, u / g->groups, u % g->groups, cols);
        return;
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

/* Unit u of the implicit products. */
static void
taps_unit(const tiled_job *j, int64_t u, float *work)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, P = g->ih * g->iw;
    const int64_t V = ct__conv_taps_count(g);
    if (j->kind == CONV_WEIGHT) {
        /* u = (group, rows part, columns part) of dW, over the batch */
        int64_t gi = u / (j->rparts * j->cparts);
        int64_t rp = u / j->cparts % j->rparts, cp = u % j->cparts;
        int64_t blk[4] = {j->rows * rp / j->rparts, j->rows * (rp + 1) / j->rparts,
                          j->cols * cp / j->cparts, j->cols * (cp + 1) / j->cparts};
        float *dw = j->out + gi * g->og * g->cg * g->kh * g->kw;
        for (int64_t n0 = 0; n0 < g->n; n0 += j->ns) {
            int64_t ns = min64(j->ns, g->n - n0);
            const float *dy = j->narrow + (n0 * g->o + gi * g->og) * L;
            const float *x = j->wide + (n0 * g->c + gi * g->cg) * P;
            for (int64_t v0 = 0; v0 < V; v0 += j->tile) {
                ct__conv_avx512_weight(g, j->taps, v0, min64(v0 + j->tile, V), ns, dy,
                                       g->o * L, x, g->c * P, dw, work, blk);
            }
        }
        return;
    }
    int64_t plane = u / j->tiles, t = u % j->tiles;
    int64_t n = plane / g->groups, gi = plane % g->groups;
    int64_t v0 = t * j->tile, v1 = min64(v0 + j->tile, V);
    /* the forward kernel's input: the wide side, or dY for the data
     * product (whose geometry has the sides swapped) */
    const float *in = j->kind == CONV_DATA ? j->narrow : j->wide;
    ct__conv_avx512_fwd(g, j->taps, v0, v1, j->wp + gi * j->wp_g,
                        in + (n * g->c + gi * g->cg) * P,
                        j->out + (n * g->o + gi * g->og) * L,
                        j->bias != NULL ? j->bias + gi * g->og : NULL);
}

static void
tiled_part(void *ctx, int tid, int nthreads)
{
    tiled_job *j = ctx;
    const conv_geom *g = j->g;
    float *buf = j->scratch + tid * j->per_thread;
    if (!j->implicit && j->kind == CONV_WEIGHT) {
        /* a fixed range of tiles per thread, summed into the thread's dW
         * (the first thread's is the caller's) */
        float *dw = j->out;
        if (tid > 0) {
            dw = buf + j->cols_elems;
            memset(dw, 0,
                   sizeof(float) * (size_t)(g->groups * g->og * g->cg * g->kh * g->kw));
        }
        int64_t lo = j->units * tid / nthreads, hi = j->units * (tid + 1) / nthreads;
        for (int64_t u = lo; u < hi; u++) {
            cols_unit(j, u, buf, dw);
        }
        return;
    }
    for (;;) {
        int64_t u = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (u >= j->units) {
            break;
        }
        if (j->implicit) {
            taps_unit(j, u, buf);
        }
        else {
            cols_unit(j, u, buf, NULL);
        }
    }
}

/* Pack the weight of every group for the kernels (nothing for the weight
 * product); wp_g floats per group. */
static void
pack_weight(const conv_geom *g0, int kind, bool implicit, const float *w, float *wp,
            int64_t wp_g)
{
    const int64_t kk = g0->kh * g0->kw, ck0 = g0->cg * kk;
    for (int64_t gi = 0; gi < g0->groups && kind != CONV_WEIGHT; gi++) {
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
            ct__conv_avx512_pack_taps(g0->cg, kk, g0->og, wg + kk - 1, kk, ck0, -1,
                                      dst);
        }
    }
}

/* The units of work (Note [Convolution tiles]): fills j's tile, tiles,
 * ns, parts, blocks and units. */
static void
plan_units(tiled_job *j, int nthreads)
{
    const conv_geom *g = j->g;
    const int64_t L = g->oh * g->ow, G = g->groups, planes = g->n * G;
    const int64_t ck = g->cg * g->kh * g->kw;
    if (j->implicit && j->kind == CONV_WEIGHT) {
        int64_t V = ct__conv_taps_count(g);
        j->tile = min64(V, TILE_VECS);
        int64_t per_sample = (int64_t)sizeof(float) *
                             (g->og * L + g->cg * g->ih * g->iw) * j->tile / V;
        j->ns = per_sample > 0 ? TILE_BYTES / per_sample : g->n;
        j->ns = j->ns < 1 ? 1 : min64(j->ns, g->n);
        /* two units per thread, so that a late thread's share is small:
         * dW's rows split first (each unit copies only its rows of dY),
         * then its columns */
        ct__conv_avx512_weight_blocks(g, &j->rows, &j->cols);
        int64_t want = nthreads > 1 ? (2 * nthreads + G - 1) / G : 1;
        j->rparts = min64(j->rows, want);
        j->cparts = min64(j->cols, (want + j->rparts - 1) / j->rparts);
        j->units = G * j->rparts * j->cparts;
        return;
    }
    int64_t tile, tiles;
    if (j->implicit) {
        int64_t V = ct__conv_taps_count(g);
        tiles = planes < 2 * nthreads ? min64((2 * nthreads + planes - 1) / planes,
                                              (V + 2) / 3)
                                      : 1;
        tile = ((V + tiles - 1) / tiles + 2) / 3 * 3;
        tiles = (V + tile - 1) / tile;
    }
    else {
        tile = ck > 0 ? TILE_ELEMS / ck / 16 * 16 : L;
        tile = tile < 48 ? 48 : tile;
        tiles = (L + tile - 1) / tile;
        if (j->kind != CONV_DATA && planes * tiles < nthreads) {
            tiles = min64((nthreads + planes - 1) / planes, (L + 15) / 16);
        }
        tile = round16((L + tiles - 1) / tiles);
        tiles = (L + tile - 1) / tile;
    }
    j->tile = tile;
    j->tiles = tiles;
    j->units = !j->implicit && j->kind == CONV_DATA ? planes : planes * tiles;
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
    int nthreads = ct__parallel_threads();
    if (planes * g->og * ck * g->oh * g->ow < TILED_GRAIN) {
        nthreads = 1;
    }
    tiled_job job = {
        .g = g, .kind = kind, .implicit = implicit, .wide = (const float *)wide,
        .narrow = (const float *)narrow, .bias = (const float *)bias,
        .out = (float *)out,
    };
    atomic_init(&job.next, 0);
    plan_units(&job, nthreads);
    if (nthreads > job.units) {
        nthreads = (int)job.units;
    }
    /* scratch: the packed weight, the taps tables, then per thread the
     * columns or dY in tile order, and (explicit weight product, threads
     * after the first) a dW */
    int64_t wp_g = 0, V = implicit ? ct__conv_taps_count(g) : 0;
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
    int64_t cols_elems = 0, per_thread;
    if (implicit && kind == CONV_WEIGHT) {
        cols_elems = round16(ct__conv_avx512_weight_work(g, job.tile, job.ns));
    }
    else if (!implicit) {
        cols_elems = round16(ck * job.tile);
    }
    per_thread = cols_elems;
    if (!implicit && kind == CONV_WEIGHT) {
        per_thread += round16(G * g->og * ck);
    }
    size_t bytes =
        sizeof(float) * (size_t)(packed + taps_elems + nthreads * per_thread);
    const ct_allocator *alloc = ct_cpu_allocator();
    float *scratch = alloc->alloc(alloc, bytes);
    if (scratch == NULL) {
        return ct_error(CT_ERR_NOMEM, "convolution: out of memory for %zu bytes of "
                        "columns", bytes);
    }
    pack_weight(g0, kind, implicit, (const float *)w, scratch, wp_g);
    conv_taps taps = {0};
    if (implicit) {
        char *t = (char *)(scratch + packed);
        taps.off = (int32_t *)t;
        taps.pos = (int32_t *)(t + sizeof(int32_t) * (size_t)(V * kk));
        taps.mask = (uint16_t *)(t + sizeof(int32_t) * (size_t)(V * (kk + 1)));
        taps.omask = taps.mask + V * kk;
        ct__conv_taps_fill(g, &taps);
    }
    job.wp = scratch;
    job.wp_g = wp_g;
    job.taps = &taps;
    job.scratch = scratch + packed + taps_elems;
    job.cols_elems = cols_elems;
    job.per_thread = per_thread;
    if (nthreads > 1) {
        ct__parallel_run(nthreads, tiled_part, &job);
    }
    else {
        tiled_part(&job, 0, 1);
    }
    if (!implicit && kind == CONV_WEIGHT) {
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
