/* aten/iter.c -- see iter.h.
 *
 * Note [Iterator layout]
 * Dimensions are stored innermost first: shape[0] is the dimension the
 * 1-D loop walks, strides[d][op] is the byte stride of operand op along
 * dimension d.  Broadcast dimensions have stride 0.  After ordering and
 * coalescing, a contiguous op over any shape becomes one dimension and a
 * single loop call per thread.
 */
#include "aten/device.h"
#include "iter.h"
#include "parallel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <immintrin.h>
#endif

typedef struct {
    int nops;
    int ndim;
    int64_t numel;
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS][CT_ITER_MAX_OPS];
    char *data[CT_ITER_MAX_OPS];
    int64_t item[CT_ITER_MAX_OPS];      /* element size in bytes */
} iter_state;

/* Byte strides of t broadcast to a shape of ndim dims, innermost first. */
static void
broadcast_strides(const ct_tensor *t, int ndim, const int64_t *shape,
                  int64_t (*strides)[CT_ITER_MAX_OPS], int op)
{
    int64_t item = (int64_t)ct_dtype_itemsize(t->dtype);
    for (int d = 0; d < ndim; d++) {
        int td = t->ndim - 1 - d;
        int64_t s = 0;
        if (td >= 0 && !(t->sizes[td] == 1 && shape[ndim - 1 - d] != 1)) {
            s = t->strides[td] * item;
        }
        strides[d][op] = s;
    }
}

/* TensorIterator's ordering rule: compare two dims operand by operand;
 * the first operand whose strides differ (and are not broadcast) decides;
 * equal strides put the smaller dimension inside. */
static int
should_swap(const iter_state *it, int d0, int d1)
{
    for (int op = 0; op < it->nops; op++) {
        int64_t s0 = it->strides[d0][op], s1 = it->strides[d1][op];
        if (s0 == 0 || s1 == 0) {
            continue;
        }
        if (s0 < s1) {
            return -1;
        }
        if (s0 > s1) {
            return 1;
        }
        if (it->shape[d0] > it->shape[d1]) {
            return 1;
        }
    }
    return 0;
}

/* Sort dims (innermost first) by memory order; perm[i] = original dim. */
static void
order_dims(iter_state *it, int *perm)
{
    for (int i = 0; i < it->ndim; i++) {
        perm[i] = i;
    }
    for (int i = 1; i < it->ndim; i++) {
        int d1 = i;
        for (int d0 = i - 1; d0 >= 0; d0--) {
            int c = should_swap(it, perm[d0], perm[d1]);
            if (c > 0) {
                int tmp = perm[d0];
                perm[d0] = perm[d1];
                perm[d1] = tmp;
                d1 = d0;
            }
            else if (c < 0) {
                break;
            }
        }
    }
}

static void
apply_perm(iter_state *it, const int *perm)
{
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS][CT_ITER_MAX_OPS];
    memcpy(shape, it->shape, sizeof(int64_t) * (size_t)it->ndim);
    memcpy(strides, it->strides, sizeof(strides[0]) * (size_t)it->ndim);
    for (int i = 0; i < it->ndim; i++) {
        it->shape[i] = shape[perm[i]];
        memcpy(it->strides[i], strides[perm[i]], sizeof(strides[0]));
    }
}

/* Merge dim d+1 into d where every operand steps through them as one. */
static void
coalesce(iter_state *it)
{
    if (it->ndim <= 1) {
        return;
    }
    int prev = 0;
    for (int d = 1; d < it->ndim; d++) {
        bool can = true;
        for (int op = 0; op < it->nops && can; op++) {
            can = it->shape[prev] == 1 || it->shape[d] == 1 ||
                  it->strides[prev][op] * it->shape[prev] == it->strides[d][op];
        }
        if (can) {
            if (it->shape[prev] == 1) {
                memcpy(it->strides[prev], it->strides[d], sizeof(it->strides[0]));
            }
            it->shape[prev] *= it->shape[d];
        }
        else {
            prev++;
            if (prev != d) {
                it->shape[prev] = it->shape[d];
                memcpy(it->strides[prev], it->strides[d], sizeof(it->strides[0]));
            }
        }
    }
    it->ndim = prev + 1;
}

/* The iteration space of ops (ops[0]'s shape, the others broadcast to
 * it), ordered and coalesced; at least one dim. */
static void
layout(iter_state *it, int nops, ct_tensor *const *ops)
{
    int perm[CT_MAX_DIMS];
    const ct_tensor *out = ops[0];
    it->nops = nops;
    it->ndim = out->ndim;
    it->numel = out->numel;
    for (int d = 0; d < it->ndim; d++) {
        it->shape[d] = out->sizes[out->ndim - 1 - d];
    }
    for (int op = 0; op < nops; op++) {
        CT_ASSERT(ops[op]->ndim <= out->ndim);
        broadcast_strides(ops[op], it->ndim, out->sizes, it->strides, op);
        it->data[op] = ct_tensor_data(ops[op]);
        it->item[op] = (int64_t)ct_dtype_itemsize(ops[op]->dtype);
    }
    order_dims(it, perm);
    apply_perm(it, perm);
    coalesce(it);
    if (it->ndim == 0) {
        it->ndim = 1;
        it->shape[0] = 1;
        for (int op = 0; op < nops; op++) {
            it->strides[0][op] = 0;
        }
    }
}

int
ct_iter_geometry(int nops, ct_tensor *const *ops, int64_t *shape,
                 int64_t (*strides)[CT_ITER_MAX_OPS])
{
    iter_state it;
    CT_ASSERT(nops >= 1 && nops <= CT_ITER_MAX_OPS);
    layout(&it, nops, ops);
    for (int d = 0; d < it.ndim; d++) {
        shape[d] = it.shape[d];
        for (int op = 0; op < nops; op++) {
            strides[d][op] = it.strides[d][op] / it.item[op];
        }
    }
    return it.ndim;
}

/* Run elements [begin, end) of the (ordered, coalesced) iteration space. */
static int
run_range(const iter_state *it, int64_t begin, int64_t end, ct_loop loop,
          void *ctx)
{
    int64_t idx[CT_MAX_DIMS];
    char *ptr[CT_ITER_MAX_OPS];
    int64_t rem = begin;

    for (int op = 0; op < it->nops; op++) {
        ptr[op] = it->data[op];
    }
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
        for (int op = 0; op < it->nops; op++) {
            ptr[op] += idx[d] * it->strides[d][op];
        }
    }
    int64_t todo = end - begin;
    while (todo > 0) {
        int64_t n = it->shape[0] - idx[0];
        if (n > todo) {
            n = todo;
        }
        if (loop(ptr, it->strides[0], n, ctx) < 0) {
            return -1;
        }
        todo -= n;
        if (todo == 0) {
            break;
        }
        /* advance the counter: inner dim wraps, carry outward */
        for (int op = 0; op < it->nops; op++) {
            ptr[op] -= idx[0] * it->strides[0][op];
        }
        idx[0] = 0;
        for (int d = 1; d < it->ndim; d++) {
            idx[d]++;
            for (int op = 0; op < it->nops; op++) {
                ptr[op] += it->strides[d][op];
            }
            if (idx[d] < it->shape[d]) {
                break;
            }
            for (int op = 0; op < it->nops; op++) {
                ptr[op] -= idx[d] * it->strides[d][op];
            }
            idx[d] = 0;
        }
    }
    return 0;
}

/* Note [Tiled iteration]
 * When an operand walks the inner dimension with a large stride while the
 * output walks it contiguously (a transposed input), a row-by-row
 * traversal touches a new cache line -- and a new page -- per element of
 * that operand.  Then the two inner dimensions are walked in TILE x TILE
 * blocks instead, and each such operand's block is first packed into a
 * small buffer in the output's order (reading it along its own contiguous
 * dimension), so the loop sees only unit strides, as for contiguous inputs,
 * and every source page is touched once per block. */
#define TILE 64

static bool
wants_tiles(const iter_state *it)
{
    if (it->ndim < 2 || it->shape[0] < TILE || it->shape[1] < TILE) {
        return false;
    }
    for (int op = 1; op < it->nops; op++) {
        int64_t s0 = llabs(it->strides[0][op]), s1 = llabs(it->strides[1][op]);
        if (s1 != 0 && s0 > s1) {
            return true;
        }
    }
    return false;
}

/* Copy the n0 x n1 block at src (strides s0, s1) into buf so that element
 * (i, j) lands at buf[j * TILE + i]; reads run along j, src's short
 * stride.  T is an unsigned type of the element's size. */
#define PACK_SCALAR(T)                                                       \
    for (int64_t i = 0; i < n0; i++) {                                       \
        for (int64_t j = i < n4 ? m4 : 0; j < n1; j++) {                     \
            ((T *)buf)[j * TILE + i] = *(const T *)(src + i * s0 + j * s1);  \
        }                                                                    \
    }

#ifdef __SSE2__
/* 4-byte elements with a unit stride along j: 4x4 register transposes,
 * which is several times faster than element by element. */
static void
pack4_sse(float *buf, const char *src, int64_t s0, int64_t n0, int64_t n1)
{
    for (int64_t i = 0; i + 4 <= n0; i += 4) {
        const char *p = src + i * s0;
        for (int64_t j = 0; j + 4 <= n1; j += 4) {
            __m128 r0 = _mm_loadu_ps((const float *)p + j);
            __m128 r1 = _mm_loadu_ps((const float *)(p + s0) + j);
            __m128 r2 = _mm_loadu_ps((const float *)(p + 2 * s0) + j);
            __m128 r3 = _mm_loadu_ps((const float *)(p + 3 * s0) + j);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(buf + j * TILE + i, r0);
            _mm_storeu_ps(buf + (j + 1) * TILE + i, r1);
            _mm_storeu_ps(buf + (j + 2) * TILE + i, r2);
            _mm_storeu_ps(buf + (j + 3) * TILE + i, r3);
        }
    }
}
#endif

static void
pack_block(char *buf, const char *src, int64_t s0, int64_t s1, int64_t n0, int64_t n1,
           int64_t item)
{
    int64_t n4 = 0, m4 = 0;   /* rows and columns already done by SIMD */
#ifdef __SSE2__
    if (item == 4 && s1 == 4) {
        pack4_sse((float *)buf, src, s0, n0, n1);
        n4 = n0 & ~(int64_t)3;
        m4 = n1 & ~(int64_t)3;
    }
#endif
    switch (item) {
    case 1: PACK_SCALAR(uint8_t) break;
    case 2: PACK_SCALAR(uint16_t) break;
    case 4: PACK_SCALAR(uint32_t) break;
    case 8: PACK_SCALAR(uint64_t) break;
    default: CT_ASSERT(0);
    }
}
#undef PACK_SCALAR

/* Tiles [begin, end) of the tile space: outer index, then dim-1 tile, then
 * dim-0 tile (dims 2.. are walked by a counter as in run_range). */
static int
run_tiles(const iter_state *it, int64_t begin, int64_t end, ct_loop loop, void *ctx)
{
    _Alignas(64) char bufs[CT_ITER_MAX_OPS - 1][TILE * TILE * 8];
    bool packed[CT_ITER_MAX_OPS] = {false};
    int64_t strides0[CT_ITER_MAX_OPS];
    int64_t t0 = (it->shape[0] + TILE - 1) / TILE, t1 = (it->shape[1] + TILE - 1) / TILE;

    for (int op = 0; op < it->nops; op++) {
        int64_t s0 = llabs(it->strides[0][op]), s1 = llabs(it->strides[1][op]);
        packed[op] = op > 0 && s1 != 0 && s0 > s1 && it->item[op] <= 8;
        strides0[op] = packed[op] ? it->item[op] : it->strides[0][op];
    }
    for (int64_t tile = begin; tile < end; tile++) {
        int64_t i1 = (tile % t1) * TILE, i0 = ((tile / t1) % t0) * TILE;
        int64_t outer = tile / (t0 * t1);
        char *base[CT_ITER_MAX_OPS];
        for (int op = 0; op < it->nops; op++) {
            base[op] = it->data[op];
        }
        for (int d = 2; d < it->ndim; d++) {
            int64_t idx = outer % it->shape[d];
            outer /= it->shape[d];
            for (int op = 0; op < it->nops; op++) {
                base[op] += idx * it->strides[d][op];
            }
        }
        int64_t n0 = it->shape[0] - i0 < TILE ? it->shape[0] - i0 : TILE;
        int64_t n1 = it->shape[1] - i1 < TILE ? it->shape[1] - i1 : TILE;
        for (int op = 0; op < it->nops; op++) {
            base[op] += i0 * it->strides[0][op] + i1 * it->strides[1][op];
            if (packed[op]) {
                pack_block(bufs[op - 1], base[op], it->strides[0][op],
                           it->strides[1][op], n0, n1, it->item[op]);
            }
        }
        for (int64_t j = 0; j < n1; j++) {
            char *ptr[CT_ITER_MAX_OPS];
            for (int op = 0; op < it->nops; op++) {
                ptr[op] = packed[op] ? bufs[op - 1] + j * TILE * it->item[op]
                                     : base[op] + j * it->strides[1][op];
            }
            if (loop(ptr, strides0, n0, ctx) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

static int64_t
tile_count(const iter_state *it)
{
    int64_t n = ((it->shape[0] + TILE - 1) / TILE) * ((it->shape[1] + TILE - 1) / TILE);
    for (int d = 2; d < it->ndim; d++) {
        n *= it->shape[d];
    }
    return n;
}

/* One part of a parallel loop; an error on any part is kept for the caller
 * (errors are thread-local, see error.h). */
typedef struct {
    const iter_state *it;
    ct_loop loop;
    void *ctx;
    bool tiled;
    pthread_mutex_t lock;
    bool failed;
    ct_error_state err;
} parallel_job;

static void
run_part(void *arg, int tid, int nt)
{
    parallel_job *job = arg;
    int64_t total = job->tiled ? tile_count(job->it) : job->it->numel;
    int64_t per = (total + nt - 1) / nt;
    int64_t begin = per * tid, end = begin + per < total ? begin + per : total;
    int rc = 0;
    if (begin < end) {
        rc = job->tiled ? run_tiles(job->it, begin, end, job->loop, job->ctx)
                        : run_range(job->it, begin, end, job->loop, job->ctx);
    }
    if (rc < 0) {
        pthread_mutex_lock(&job->lock);
        if (!job->failed) {
            job->failed = true;
            ct_error_fetch(&job->err);
        }
        pthread_mutex_unlock(&job->lock);
    }
}

int
ct_iter_run(int nops, ct_tensor *const *ops, ct_loop loop, void *ctx)
{
    iter_state it;
    const ct_tensor *out = ops[0];

    CT_ASSERT(nops >= 1 && nops <= CT_ITER_MAX_OPS);
    /* the one gate between device memory and the CPU loops of every
     * pointwise op: kernels on a device go through aten/device.c */
    for (int op = 0; op < nops; op++) {
        if (ct_tensor_device(ops[op]).type != CT_DEVICE_CPU) {
            return ct__no_device_kernel(ops[op]);
        }
    }
    if (out->numel == 0) {
        return 0;
    }
    layout(&it, nops, ops);

    bool tiled = wants_tiles(&it);
    int nthreads = ct__parallel_threads();
    int64_t chunks = it.numel / CT_GRAIN_SIZE;
    if (chunks < nthreads) {
        nthreads = (int)(chunks > 1 ? chunks : 1);
    }
    if (tiled && tile_count(&it) < nthreads) {
        nthreads = (int)tile_count(&it);
    }
    if (nthreads <= 1) {
        return tiled ? run_tiles(&it, 0, tile_count(&it), loop, ctx)
                     : run_range(&it, 0, it.numel, loop, ctx);
    }
    parallel_job job = {&it, loop, ctx, tiled, PTHREAD_MUTEX_INITIALIZER, false, {0, ""}};
    ct__parallel_run(nthreads, run_part, &job);
    if (job.failed) {
        ct_error_restore(&job.err);
        return -1;
    }
    return 0;
}

/* Strides of a dense tensor of `shape` whose memory order follows the
 * inputs' (TensorIterator's rule); false when that is plain contiguous. */
static bool
layout_strides(int nin, const ct_tensor *const *ins, int ndim, const int64_t *shape,
               int64_t *strides)
{
    iter_state it;
    int perm[CT_MAX_DIMS];
    bool all_contiguous = true;

    for (int i = 0; i < nin; i++) {
        all_contiguous &= ins[i]->ndim == ndim && ct_tensor_is_contiguous(ins[i]) &&
                          memcmp(ins[i]->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0;
    }
    if (all_contiguous || ndim <= 1) {
        return false;
    }
    it.nops = nin;
    it.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        it.shape[d] = shape[ndim - 1 - d];
    }
    for (int op = 0; op < nin; op++) {
        broadcast_strides(ins[op], ndim, shape, it.strides, op);
    }
    order_dims(&it, perm);
    /* perm[i] (innermost first) is iterator dim perm[i] = tensor dim
     * ndim-1-perm[i]; lay the output out densely in that order */
    int64_t s = 1;
    for (int i = 0; i < ndim; i++) {
        int td = ndim - 1 - perm[i];
        strides[td] = s;
        s *= shape[td] > 1 ? shape[td] : 1;
    }
    return true;
}

ct_tensor *
ct_iter_new_output(int nin, const ct_tensor *const *ins, int ndim,
                   const int64_t *shape, ct_dtype dtype)
{
    int64_t strides[CT_MAX_DIMS];
    bool permuted = layout_strides(nin, ins, ndim, shape, strides);
    /* on the inputs' device: a 0-dim CPU input beside device ones counts
     * as a number (aten/device.c) */
    ct_device device = ct_device_cpu();
    for (int i = 0; i < nin; i++) {
        if (ct_tensor_device(ins[i]).type != CT_DEVICE_CPU) {
            device = ct_tensor_device(ins[i]);
        }
    }
    return ct_empty_strided(ndim, shape, permuted ? strides : NULL, dtype, device);
}

int
ct_iter_check_out(ct_tensor *out, ct_out_mode mode, int ndim, const int64_t *shape,
                  int nin, const ct_tensor *const *ins)
{
    int64_t strides[CT_MAX_DIMS];
    char b1[256], b2[256];

    if (out->ndim == ndim &&
        memcmp(out->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0) {
        return 0;
    }
    if (mode == CT_OUT_INPLACE) {
        return ct_error(CT_ERR_RUNTIME, "output with shape %s doesn't match the "
                        "broadcast shape %s",
                        ct_format_sizes(out->ndim, out->sizes, b1, sizeof b1),
                        ct_format_sizes(ndim, shape, b2, sizeof b2));
    }
    if (out->numel != 0) {
        ct_warn("An output with one or more elements was resized since it had "
                "shape %s, which does not match the required output shape %s. "
                "This behavior is deprecated, and in a future PyTorch release "
                "outputs will not be resized unless they have zero elements. "
                "You can explicitly reuse an out tensor t by resizing it, "
                "inplace, to zero elements with t.resize_(0).",
                ct_format_sizes(out->ndim, out->sizes, b1, sizeof b1),
                ct_format_sizes(ndim, shape, b2, sizeof b2));
    }
    if (ct_tensor_resize_(out, ndim, shape) < 0) {
        return -1;
    }
    /* a resized output takes the inputs' memory order, as a new one would */
    if (layout_strides(nin, ins, ndim, shape, strides)) {
        return ct_tensor_set_geometry(out, ndim, shape, strides);
    }
    return 0;
}

/* Byte range [lo, hi) that t's elements touch. */
static void
byte_extent(const ct_tensor *t, const char **lo, const char **hi)
{
    int64_t item = (int64_t)ct_dtype_itemsize(t->dtype);
    int64_t min = 0, max = 0;
    for (int d = 0; d < t->ndim; d++) {
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span < 0) {
            min += span;
        }
        else {
            max += span;
        }
    }
    *lo = ct_tensor_data(t) + min * item;
    *hi = ct_tensor_data(t) + (max + 1) * item;
}

static bool
same_layout(const ct_tensor *a, const ct_tensor *b)
{
    return a->offset == b->offset && a->ndim == b->ndim && a->dtype == b->dtype &&
           memcmp(a->sizes, b->sizes, sizeof(int64_t) * (size_t)a->ndim) == 0 &&
           memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim) == 0;
}

bool
ct_iter_partial_overlap(const ct_tensor *a, const ct_tensor *b)
{
    const char *alo, *ahi, *blo, *bhi;

    if (a == b || a->storage != b->storage || a->numel == 0 || b->numel == 0 ||
        same_layout(a, b)) {
        return false;
    }
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* Note [Memory overlap]: PyTorch refuses to write an output that has
 * several elements at one address (an expanded tensor), and an output that
 * shares only some memory with an input, when both are dense enough to be
 * sure.  Other overlaps are "too hard" to decide; ctorch then reads from a
 * copy of the input, which gives the same result as the unaliased op. */
int
ct_iter_check_overlap(const ct_tensor *out, const ct_tensor *in)
{
    if (!ct_tensor_is_non_overlapping_and_dense(out)) {
        for (int d = 0; d < out->ndim; d++) {
            if (out->sizes[d] > 1 && out->strides[d] == 0) {
                return ct_error(CT_ERR_RUNTIME, "unsupported operation: more than "
                                "one element of the written-to tensor refers to a "
                                "single memory location. Please clone() the tensor "
                                "before performing the operation.");
            }
        }
    }
    if (in != NULL && ct_iter_partial_overlap(out, in) &&
        ct_tensor_is_non_overlapping_and_dense(out) &&
        ct_tensor_is_non_overlapping_and_dense(in)) {
        return ct_error(CT_ERR_RUNTIME, "unsupported operation: some elements of the "
                        "input tensor and the written-to tensor refer to a single "
                        "memory location. Please clone() the tensor before "
                        "performing the operation.");
    }
    return 0;
}
