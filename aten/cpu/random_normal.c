/* aten/cpu/random_normal.c -- normal_, randn, torch.normal's overloads and
 * log_normal_ (specs/rng.md section 3 and 8).
 *
 * Note [Two normal algorithms]
 * PyTorch fills a contiguous tensor of 16 or more elements by blocks: all
 * its unit uniforms first, then a Box-Muller transform of each block of 16
 * (radius from the first 8, angle from the last 8), and when 16 does not
 * divide the size, 16 fresh uniforms for the last 16 elements, transformed
 * again.  The generator's cached normal is neither used nor changed.
 * Every other tensor (smaller, or not contiguous) takes one double
 * Box-Muller sample per element in memory order, through the cache.
 */
#include "aten/device.h"
#include <string.h>

#include "aten/random_impl.h"

typedef struct {
    double mean, std;
} normal_ctx;

/* --- the per-element path -------------------------------------------------- */
#define X(E, T, S, A)                                                         \
    static int normal_scalar_##S(ct_generator *g, char *o, int64_t os, int64_t n, \
                                 const void *ctx)                             \
    {                                                                         \
        const normal_ctx *c = ctx;                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            double z = ct__normal_double(g);                                  \
            *(T *)(o + i * os) = ct__##S##_from_f64(fma(z, c->std, c->mean)); \
        }                                                                     \
        return 0;                                                             \
    }                                                                         \
    static int log_normal_##S(ct_generator *g, char *o, int64_t os, int64_t n,  \
                              const void *ctx)                                \
    {                                                                         \
        const normal_ctx *c = ctx;                                            \
        for (int64_t i = 0; i < n; i++) {                                     \
            double z = ct__normal_double(g);                                  \
            *(T *)(o + i * os) = ct__##S##_from_f64(exp(fma(z, c->std, c->mean))); \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct__draw_fn normal_scalar_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = normal_scalar_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const ct__draw_fn log_normal_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = log_normal_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* --- the block path ---------------------------------------------------------- */
/* n unit uniforms of dtype S into d. */
#define X(E, T, S, A)                                                         \
    static void normal_units_##S(ct__mt *mt, void *dv, int64_t n)            \
    {                                                                         \
        T *d = dv;                                                            \
        CT__DRAW_##S buf[CT__CHUNK];                                          \
        while (n > 0) {                                                       \
            int64_t k = n < CT__CHUNK ? n : CT__CHUNK;                        \
            CT__FILL(mt, buf, k);                                             \
            for (int64_t i = 0; i < k; i++) {                                 \
                ct__store_##S(d + i, CT__UNIT_##S(buf[i]));                   \
            }                                                                 \
            d += k;                                                           \
            n -= k;                                                           \
        }                                                                     \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

/* float64 blocks: libm, the last multiply-add fused (specs/rng.md 3.4). */
static void
normal_blocks_f64(void *dv, int64_t nblocks, double mean, double std)
{
    double *d = dv;
    for (int64_t b = 0; b < nblocks; b++, d += 16) {
        for (int j = 0; j < 8; j++) {
            double u1 = 1.0 - d[j];
            double radius = sqrt(-2.0 * log(u1));
            double theta = 2.0 * M_PI * d[j + 8];
            d[j] = fma(radius * cos(theta), std, mean);
            d[j + 8] = fma(radius * sin(theta), std, mean);
        }
    }
}

static void
normal_blocks_f32(void *dv, int64_t nblocks, double mean, double std)
{
    ct__normal_f32_blocks(dv, nblocks, (float)mean, (float)std);
}

/* Half and bfloat16 blocks: PyTorch's generic code on c10::Half and
 * c10::BFloat16 (not its vectorized float32 code).  Each named
 * intermediate is rounded to the dtype; the arithmetic is float.  c10
 * defines libm functions and products returning BFloat16, so for bfloat16
 * log, cos, sin and each product round too, while half's products stay
 * float and the last multiply-add fuses. */
static void
box_muller16_reduced(float *v, float mean, float std, float (*round)(float), bool bf16)
{
    for (int j = 0; j < 8; j++) {
        float u1 = round(1.0f - v[j]);
        float l = bf16 ? round(logf(u1)) : logf(u1);
        float radius = round(sqrtf(-2.0f * l));
        float theta = round((float)(2.0 * M_PI * (double)v[j + 8]));
        float c = cosf(theta), s = sinf(theta);
        if (bf16) {
            v[j] = round(round(round(radius * round(c)) * std) + mean);
            v[j + 8] = round(round(round(radius * round(s)) * std) + mean);
        }
        else {
            v[j] = round(fmaf(radius * c, std, mean));
            v[j + 8] = round(fmaf(radius * s, std, mean));
        }
    }
}

/* stamped for every floating dtype; float32 and float64 have their own */
#define X(E, T, S, A)                                                         \
    static float round_##S(float v)                                           \
    {                                                                         \
        T t;                                                                  \
        ct__store_##S(&t, v);                                                 \
        return ct__load_##S(&t);                                              \
    }                                                                         \
    __attribute__((unused)) static void                                       \
    normal_blocks16_##S(void *dv, int64_t nblocks, double mean, double std)   \
    {                                                                         \
        T *d = dv;                                                            \
        float v[16];                                                          \
        float m = round_##S((float)mean), sd = round_##S((float)std);         \
        for (int64_t b = 0; b < nblocks; b++, d += 16) {                      \
            for (int j = 0; j < 16; j++) {                                    \
                v[j] = ct__load_##S(d + j);                                   \
            }                                                                 \
            box_muller16_reduced(v, m, sd, round_##S, E == CT_DTYPE_BFLOAT16); \
            for (int j = 0; j < 16; j++) {                                    \
                ct__store_##S(d + j, v[j]);                                   \
            }                                                                 \
        }                                                                     \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

typedef void (*units_fn)(ct__mt *mt, void *d, int64_t n);
typedef void (*blocks_fn)(void *d, int64_t nblocks, double mean, double std);

static const units_fn normal_units[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = normal_units_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const blocks_fn normal_blocks[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = normal_blocks16_f16,
    [CT_DTYPE_FLOAT32] = normal_blocks_f32,
    [CT_DTYPE_FLOAT64] = normal_blocks_f64,
    [CT_DTYPE_BFLOAT16] = normal_blocks16_bf16,
};

/* Blocks a chunk at a time, so each is transformed while in cache; the
 * draws come in the same order as PyTorch's fill-everything-first. */
static void
normal_fill_blocks(ct_generator *g, ct_tensor *t, double mean, double std)
{
    units_fn units = normal_units[t->dtype];
    blocks_fn blocks = normal_blocks[t->dtype];
    int64_t item = (int64_t)ct_dtype_itemsize(t->dtype);
    char *d = ct_tensor_data(t);
    int64_t n = t->numel, whole = n - n % 16;
    for (int64_t i = 0; i < whole; i += CT__CHUNK) {
        int64_t k = whole - i < CT__CHUNK ? whole - i : CT__CHUNK;
        units(&g->mt, d + i * item, k);
        blocks(d + i * item, k / 16, mean, std);
    }
    if (n % 16 != 0) {
        /* the uniforms of the partial block are drawn, then replaced */
        units(&g->mt, d + whole * item, n % 16);
        units(&g->mt, d + (n - 16) * item, 16);
        blocks(d + (n - 16) * item, 1, mean, std);
    }
}

/* --- the ops --------------------------------------------------------------- */
static int
check_std(double std)
{
    if (!(std >= 0.0)) {
        return ct_error(CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std %g",
                        std);
    }
    return 0;
}

int
ct_normal_(ct_tensor *t, double mean, double std, ct_generator *gen)
{
    if (check_std(std) < 0 || ct__check_floating(t, "normal_kernel_cpu") < 0) {
        return -1;
    }
    if (ct__is_device(t)) {
        return ct__device_random(t, gen, CT_CUDA_RANDOM_NORMAL, mean, std, 0, 0);
    }
    if (ct__gen_check_cpu(gen) < 0) {
        return -1;
    }
    normal_ctx cx = {mean, std};
    if (t->numel >= 16 && ct_tensor_is_contiguous(t)) {
        if (ct__check_writable(t) < 0) {
            return -1;
        }
        ct_generator *g = ct__gen_acquire(gen);
        normal_fill_blocks(g, t, mean, std);
        ct__gen_release(g);
        return 0;
    }
    return ct__draw_into(t, gen, normal_scalar_loops, "normal_kernel_cpu", &cx);
}

int
ct_log_normal_(ct_tensor *t, double mean, double std, ct_generator *gen)
{
    if (!(std > 0.0)) {
        return ct_error(CT_ERR_RUNTIME, "log_normal_ expects std > 0.0, but found std=%g",
                        std);
    }
    if (ct__is_device(t)) {
        return ct__device_sample(t, gen, log_normal_loops[t->dtype] != NULL, "log_normal_cuda",
                                 CT_CUDA_RANDOM_LOG_NORMAL, mean, std);
    }
    normal_ctx cx = {mean, std};
    return ct__draw_into(t, gen, log_normal_loops, "log_normal_cpu", &cx);
}

ct_tensor *
ct_randn(int ndim, const int64_t *sizes, ct_dtype dtype, ct_generator *gen)
{
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t != NULL && ct_normal_(t, 0, 1, gen) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* torch.normal with a std tensor: every element >= 0 (NaN fails). */
static int
check_std_tensor(const ct_tensor *std)
{
    if (std->numel == 0) {
        return 0;
    }
    ct_tensor *m = ct_min(std);      /* NaN wins, and then fails */
    ct_scalar v;
    int rc = m != NULL ? ct_tensor_item(m, &v) : -1;
    ct_tensor_decref(m);
    if (rc < 0) {
        return -1;
    }
    if (!(ct_scalar_to_double(v) >= 0.0)) {
        return ct_error(CT_ERR_RUNTIME, "normal expects all elements of std >= 0.0");
    }
    return 0;
}

/* out op= b, in place (b broadcast to out). */
static int
inplace(ct_binary_op op, ct_tensor *out, const ct_tensor *b)
{
    ct_tensor *r = ct_binary(op, out, b, ct_scalar_int(1), out, CT_OUT_INPLACE);
    ct_tensor_decref(r);
    return r != NULL ? 0 : -1;
}

/* Note [normal with tensors]
 * PyTorch samples N(0, 1) (or N(0, std) for a number std) into the
 * output, then multiplies by std and adds mean as two rounded ops.  The
 * output takes mean's dtype when mean is a tensor, else std's; its shape
 * is the broadcast of both. */
ct_tensor *
ct_normal(const ct_tensor *mean_t, double mean, const ct_tensor *std_t, double std,
          ct_generator *gen)
{
    if (ct__same_device((const ct_tensor *const[]){mean_t, std_t}, 2) < 0) {
        return NULL;
    }
    const ct_tensor *like = mean_t != NULL ? mean_t : std_t;
    CT_ASSERT(like != NULL);
    int ndim = like->ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *out = NULL, *mean0 = NULL;

    if (std_t != NULL ? check_std_tensor(std_t) < 0 : check_std(std) < 0) {
        return NULL;
    }
    memcpy(shape, like->sizes, sizeof(int64_t) * (size_t)ndim);
    if (mean_t != NULL && std_t != NULL &&
        ct_broadcast_shapes(mean_t->ndim, mean_t->sizes, std_t->ndim, std_t->sizes,
                            &ndim, shape) < 0) {
        return NULL;
    }
    out = ct_empty(ndim, shape, like->dtype, ct_tensor_device(like));
    if (out == NULL || ct_normal_(out, 0, std_t != NULL ? 1 : std, gen) < 0) {
        goto fail;
    }
    if (std_t != NULL && inplace(CT_BINARY_MUL, out, std_t) < 0) {
        goto fail;
    }
    if (mean_t == NULL) {
        /* a 0-dim tensor of the output's dtype, as PyTorch builds */
        mean0 = ct_full(0, NULL, ct_scalar_float(mean), out->dtype);
        if (mean0 == NULL) {
            goto fail;
        }
    }
    if (inplace(CT_BINARY_ADD, out, mean_t != NULL ? mean_t : mean0) < 0) {
        goto fail;
    }
    ct_tensor_decref(mean0);
    return out;
fail:
    ct_tensor_decref(mean0);
    ct_tensor_decref(out);
    return NULL;
}
