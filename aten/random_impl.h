/* aten/random_impl.h -- what the random files share (internal).
 *
 * The generator's layout, the draws of its mt19937 engine (single and
 * bulk), the unit uniforms built from them, and a walk over a tensor's
 * elements in memory order (the order in which PyTorch's serial kernels
 * draw).  Every function taking a ct__mt expects the generator's lock to
 * be held: a kernel calls ct__gen_acquire() once, draws, and releases.
 */
#ifndef CTORCH_ATEN_RANDOM_IMPL_H
#define CTORCH_ATEN_RANDOM_IMPL_H

#include <math.h>
#include <pthread.h>

#include <ctorch/ctorch.h>

#include "c10/convert.h"

#define CT__MT_N 624
#define CT__MT_M 397

/* Note [Engine state]
 * PyTorch's mt19937 keeps `left` (draws until the next twist, plus one)
 * and `next` (index of the next word).  A state restored from bytes may
 * have next + left - 1 > 624; PyTorch then reads past its array.  Here the
 * array has a second, zero half so that such a state reads zeros instead
 * (deterministic, and only ever seen with hand-made states). */
typedef struct {
    uint64_t seed;
    int32_t left;
    uint32_t next;
    uint32_t state[2 * CT__MT_N];
} ct__mt;

/* Note [CUDA generators]
 * A generator of a CUDA device is PyTorch's Philox generator: a seed (kept
 * in mt.seed, so that initial_seed reads one place) and the offset of the
 * next draw, which every call moves on by what it takes (Note [Device
 * random streams], aten/cuda/random_math.h); its mt19937 engine and normal
 * caches are unused.  The draws happen on the device (ct__device_random in
 * aten/device.c). */
struct ct_generator {
    pthread_mutex_t lock;
    ct_device device;
    bool borrowed;              /* a default generator: ct_generator_free ignores it */
    uint64_t philox_offset;     /* CUDA generators: a multiple of 4 */
    ct__mt mt;
    bool has_double_normal;     /* the cached Box-Muller partner */
    double double_normal;
    bool has_float_normal;      /* never set by a CPU kernel; kept in states */
    float float_normal;
};

/* Lock gen (NULL: the default generator) and return it. */
ct_generator *ct__gen_acquire(ct_generator *gen);
/* 0, or -1 with PyTorch's "Expected a 'cuda' device type for generator but
 * found 'cpu'" (the types named as they are) when gen (NULL: the default
 * CPU one) is not of device type want. */
int ct__gen_check_device(const ct_generator *gen, ct_device_type want);
/* ct__gen_check_device for the CPU: the CPU kernels' check before drawing. */
int ct__gen_check_cpu(const ct_generator *gen);
/* The Philox seed and offset for a call taking `increment` draws per
 * thread (rounded up to a multiple of 4), the offset moved past them;
 * gen is a CUDA generator (aten/generator_cuda.c). */
void ct__philox_reserve(ct_generator *gen, uint64_t increment, uint64_t *seed,
                        uint64_t *offset);
void ct__gen_release(ct_generator *g);

/* Regenerate the 624 words (the standard twist); next = 0. */
void ct__mt_twist(ct__mt *mt);

static inline uint32_t
ct__mt_temper(uint32_t y)
{
    y ^= y >> 11;
    y ^= (y << 7) & 0x9D2C5680u;
    y ^= (y << 15) & 0xEFC60000u;
    y ^= y >> 18;
    return y;
}

static inline uint32_t
ct__random32(ct__mt *mt)
{
    if (--mt->left == 0) {
        ct__mt_twist(mt);
        mt->left = CT__MT_N;
    }
    return ct__mt_temper(mt->state[mt->next++]);
}

/* Two draws, the first one high. */
static inline uint64_t
ct__random64(ct__mt *mt)
{
    uint64_t hi = ct__random32(mt);
    return hi << 32 | ct__random32(mt);
}

/* n draws into out, exactly as n calls of ct__random32 / ct__random64
 * (vectorized: a block of words is tempered at a time). */
void ct__random32_fill(ct__mt *mt, uint32_t *out, int64_t n);
void ct__random64_fill(ct__mt *mt, uint64_t *out, int64_t n);

/* Unit uniforms in [0, 1), exact: float32 from the low 24 bits of one
 * draw, float64 from the low 53 bits of a 64-bit draw. */
static inline float
ct__u24(uint32_t r)
{
    return (float)(r & 0xFFFFFFu) * 0x1p-24f;
}

static inline double
ct__u53(uint64_t r)
{
    return (double)(r & ((UINT64_C(1) << 53) - 1)) * 0x1p-53;
}

/* n draws of the width of buf's element type. */
#define CT__FILL(mt, buf, n) \
    _Generic((buf), uint32_t *: ct__random32_fill, uint64_t *: ct__random64_fill)(mt, buf, n)

/* Per floating dtype S: CT__DRAW_S, the draw a unit uniform takes
 * (PyTorch's uniform_real_distribution<T>: 64 bits for double only), and
 * CT__UNIT_S(r), that uniform in [0, 1) in the compute type (the mask is
 * the dtype's significand width). */
#define CT__DRAW_f16 uint32_t
#define CT__DRAW_f32 uint32_t
#define CT__DRAW_f64 uint64_t
#define CT__DRAW_bf16 uint32_t
#define CT__UNIT_f16(r) ((float)((r) & 0x7FFu) * 0x1p-11f)
#define CT__UNIT_f32(r) ct__u24(r)
#define CT__UNIT_f64(r) ct__u53(r)
#define CT__UNIT_bf16(r) ((float)((r) & 0xFFu) * 0x1p-8f)

/* a * b + c rounded once, in the precision of a. */
#define CT__FMA(a, b, c) _Generic((a), float: fmaf, default: fma)(a, b, c)

/* Draws per buffer in the bulk kernels (stays in L1). */
#define CT__CHUNK 1024

/* A kernel's inner run: n values written at o, o + os, ... (bytes);
 * cx is the op's parameters.  The generator's lock is held. */
typedef int (*ct__draw_fn)(ct_generator *g, char *o, int64_t os, int64_t n,
                           const void *cx);

/* CT__DRAW_LOOP(name, T, S, W, CTX, expr) stamps a ct__draw_fn writing
 * values of dtype S (C type T), each `expr` of one draw `r` of type W
 * (uint32_t or uint64_t), with `cx` the const CTX * of parameters.  Draws
 * are taken a buffer at a time (Note [Bulk draws]) and the contiguous case
 * has its own loop so the compiler vectorizes it. */
#define CT__DRAW_LOOP(name, T, S, W, CTX, expr)                               \
    static int name(ct_generator *g, char *o, int64_t os, int64_t n,          \
                    const void *ctx)                                          \
    {                                                                         \
        const CTX cxv = *(const CTX *)ctx;  /* a local: stores cannot alias */ \
        const CTX *cx = &cxv;                                                 \
        W buf[CT__CHUNK];                                                     \
        (void)cx;                                                             \
        while (n > 0) {                                                       \
            int64_t k = n < CT__CHUNK ? n : CT__CHUNK;                        \
            CT__FILL(&g->mt, buf, k);                                         \
            if (os == (int64_t)sizeof(T)) {                                   \
                T *p = (T *)o;                                                \
                for (int64_t i = 0; i < k; i++) {                             \
                    W r = buf[i];                                             \
                    ct__store_##S(p + i, (expr));                             \
                }                                                             \
            }                                                                 \
            else {                                                            \
                for (int64_t i = 0; i < k; i++) {                             \
                    W r = buf[i];                                             \
                    ct__store_##S((T *)(o + i * os), (expr));                 \
                }                                                             \
            }                                                                 \
            o += k * os;                                                      \
            n -= k;                                                           \
        }                                                                     \
        return 0;                                                             \
    }

/* Lock gen, run fn over t's elements in memory order, unlock.  fn NULL:
 * '"<name>" not implemented for <dtype>'.  An empty t draws nothing. */
int ct__draw_into(ct_tensor *t, ct_generator *gen, const ct__draw_fn *loops,
                  const char *name, const void *cx);

/* --- normal samples (aten/cpu/random_normal*.c) ------------------------- */
/* One standard normal by double Box-Muller, using and refilling the
 * generator's cache (specs/rng.md 3.1). */
static inline double
ct__normal_double(ct_generator *g)
{
    if (g->has_double_normal) {
        g->has_double_normal = false;
        return g->double_normal;
    }
    double u1 = ct__u53(ct__random64(&g->mt));
    double u2 = ct__u53(ct__random64(&g->mt));
    double r = sqrt(-2.0 * log(1.0 - u2));
    double theta = 2.0 * M_PI * u1;
    g->double_normal = r * sin(theta);
    g->has_double_normal = true;
    return r * cos(theta);
}

/* PyTorch's AVX2 float32 Box-Muller over nblocks blocks of 16 unit
 * uniforms at d, in place (specs/rng.md 3.3). */
void ct__normal_f32_blocks(float *d, int64_t nblocks, float mean, float std);

/* --- walking a tensor in memory order ---------------------------------- */
/* Dims ordered by t's strides (then in's), size-1 dims dropped, adjacent
 * dims coalesced; dim 0 is the innermost.  Byte strides. */
typedef struct {
    int ndim;
    int64_t size[CT_MAX_DIMS];
    int64_t stride[2][CT_MAX_DIMS];
    int64_t idx[CT_MAX_DIMS];
    char *ptr[2];
    int64_t runs;               /* inner runs left */
} ct__walk;

/* Prepare a walk over t and `in` (NULL, or a tensor broadcastable to t's
 * shape, read alongside).  -1 with torch's error when in does not
 * broadcast. */
int ct__walk_init(ct__walk *w, const ct_tensor *t, const ct_tensor *in);
/* The next inner run: p[0] (t) and p[1] (in) and its length *n; the
 * runs' byte strides are w->stride[0][0] and w->stride[1][0].  false when
 * every element has been visited. */
bool ct__walk_next(ct__walk *w, char **p, int64_t *n);

/* --- checks shared by the in-place ops --------------------------------- */
/* The C++ name PyTorch prints for a dtype in bounds errors ("float",
 * "unsigned char", "c10::Half"). */
const char *ct__cpp_type_name(ct_dtype d);
/* The largest finite value of a floating dtype. */
double ct__floating_max(ct_dtype d);
/* torch's '"<name>" not implemented for '<Type>'' unless t is floating. */
int ct__check_floating(const ct_tensor *t, const char *name);
/* The written-to tensor may not have elements sharing memory. */
int ct__check_writable(const ct_tensor *t);

#endif
