/* aten/cpu/random_dist.c -- bernoulli, exponential_, cauchy_, geometric_
 * and poisson (specs/rng.md sections 6 and 9).
 *
 * Each element comes from a float64 unit uniform (one 64-bit draw) and is
 * computed in double, then cast to the dtype, as PyTorch's
 * *_distribution<double> do; bernoulli with a float32 probability tensor
 * is the exception (a 24-bit uniform against the float).
 */
#include "aten/device.h"
#include "aten/random_impl.h"

typedef struct {
    double a, b;
    uint64_t below;             /* bernoulli: draws whose 53 bits are below hit */
} dist_ctx;

/* A double cast to the compute type of dtype S the way PyTorch's
 * static_cast<scalar_t>(double) does (c10/convert.h). */
#define X(E, T, S, A)                                                         \
    static inline A as_a_##S(double v)                                        \
    {                                                                         \
        T t = ct__##S##_from_f64(v);                                          \
        return ct__load_##S(&t);                                              \
    }
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define AS_A(T, S, v) as_a_##S(v)

/* hit = k < below, as the sign bit of k - below (both below 2^53 + 1):
 * branch-free, since p = 0.5 makes a branch unpredictable */
#define X(E, T, S, A)                                                         \
    __attribute__((unused, target_clones("arch=x86-64-v3", "default")))       \
    CT__DRAW_LOOP(bernoulli_##S, T, S, uint64_t, dist_ctx,                    \
                  (A)(((r & ((UINT64_C(1) << 53) - 1)) - cx->below) >> 63))
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
CT_FORALL_BOOL_DTYPE(X)
#undef X

#define X(E, T, S, A)                                                         \
    CT__DRAW_LOOP(geometric_##S, T, S, uint64_t, dist_ctx,                    \
                  AS_A(T, S, ceil(log(ct__u53(r)) / log(1.0 - cx->a))))
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X

#define X(E, T, S, A)                                                         \
    CT__DRAW_LOOP(exponential_##S, T, S, uint64_t, dist_ctx,                  \
                  AS_A(T, S, (-1.0 / cx->a) * log(1.0 - ct__u53(r))))         \
    CT__DRAW_LOOP(cauchy_##S, T, S, uint64_t, dist_ctx,                       \
                  AS_A(T, S, fma(cx->b, tan(M_PI * (ct__u53(r) - 0.5)), cx->a)))
CT_FORALL_FLOATING_DTYPES(X)
#undef X

/* PyTorch 1.13 has no half here (bernoulli_f16 is unused) */
static const ct__draw_fn bernoulli_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = bernoulli_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
#undef X
    [CT_DTYPE_FLOAT32] = bernoulli_f32,
    [CT_DTYPE_FLOAT64] = bernoulli_f64,
    [CT_DTYPE_BFLOAT16] = bernoulli_bf16,
};

static const ct__draw_fn geometric_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = geometric_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const ct__draw_fn exponential_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = exponential_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const ct__draw_fn cauchy_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = cauchy_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

int
ct_bernoulli_(ct_tensor *t, double p, ct_generator *gen)
{
    if (!(p >= 0 && p <= 1)) {
        return ct_error(CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got "
                        "p=%g", p);
    }
    if (ct__is_device(t)) {
        if (ct_dtype_table[t->dtype].is_quantized) {
            return ct__no_device_kernel(t);
        }
        return ct__device_random(t, gen, CT_CUDA_RANDOM_BERNOULLI, p, 0, 0, 0);
    }
    /* U53 = k / 2^53 < p exactly when the integer k < ceil(p * 2^53) (the
     * scaling is exact): an integer compare the compiler vectorizes */
    dist_ctx cx = {p, 0, (uint64_t)ceil(p * 0x1p53)};
    return ct__draw_into(t, gen, bernoulli_loops, "bernoulli_scalar_cpu_", &cx);
}

/* On a device these take the `random` kernel's ops (PyTorch's CUDA
 * transformations, aten/cuda/random_math.h) for the dtypes the CPU's
 * tables have, under PyTorch's CUDA kernel names. */
int
ct_exponential_(ct_tensor *t, double lambd, ct_generator *gen)
{
    if (!(lambd >= 0.0)) {
        return ct_error(CT_ERR_RUNTIME, "exponential_ expects lambda >= 0.0, but found "
                        "lambda=%g", lambd);
    }
    if (ct__is_device(t)) {
        return ct__device_sample(t, gen, exponential_loops[t->dtype] != NULL,
                                 "exponential_cuda", CT_CUDA_RANDOM_EXPONENTIAL, lambd, 0);
    }
    dist_ctx cx = {lambd, 0, 0};
    return ct__draw_into(t, gen, exponential_loops, "exponential_cpu", &cx);
}

int
ct_cauchy_(ct_tensor *t, double median, double sigma, ct_generator *gen)
{
    if (ct__is_device(t)) {
        return ct__device_sample(t, gen, cauchy_loops[t->dtype] != NULL, "cauchy_cuda",
                                 CT_CUDA_RANDOM_CAUCHY, median, sigma);
    }
    dist_ctx cx = {median, sigma, 0};
    return ct__draw_into(t, gen, cauchy_loops, "cauchy_cpu", &cx);
}

int
ct_geometric_(ct_tensor *t, double p, ct_generator *gen)
{
    if (!(p > 0 && p < 1)) {
        return ct_error(CT_ERR_RUNTIME, "geometric_ expects p to be in (0, 1), but got "
                        "p=%g", p);
    }
    if (ct__is_device(t)) {
        return ct__device_sample(t, gen, geometric_loops[t->dtype] != NULL, "geometric_cuda",
                                 CT_CUDA_RANDOM_GEOMETRIC, p, 0);
    }
    dist_ctx cx = {p, 0, 0};
    return ct__draw_into(t, gen, geometric_loops, "geometric_cpu", &cx);
}

/* --- bernoulli with a tensor of probabilities ------------------------------ */
typedef double (*read_fn)(const char *p);

#define X(E, T, S, A)                                                         \
    static double read_##S(const char *p)                                     \
    {                                                                         \
        return ct__as_f64_##S(*(const T *)p);                                 \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const read_fn prob_readers[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = read_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* A float64 probability is compared with a 53-bit uniform, any other
 * (float32, half, bfloat16: PyTorch's bernoulli_distribution<float>) with
 * a 24-bit one; the comparison is exact in double either way. */
#define X(E, T, S, A)                                                         \
    __attribute__((unused)) static int                                        \
    bernoulli_p_##S(ct__mt *mt, char **p, const int64_t *st, int64_t n,       \
                    read_fn read, bool wide)                                  \
    {                                                                         \
        for (int64_t i = 0; i < n; i++) {                                     \
            double pv = read(p[1] + i * st[1]);                               \
            if (!(pv >= 0 && pv <= 1)) {                                      \
                return ct_error(CT_ERR_RUNTIME, "Expected p_in >= 0 && p_in <= 1 " \
                                "to be true, but got false.  (Could this error "   \
                                "message be improved?  If so, please report an "   \
                                "enhancement request to PyTorch.)");          \
            }                                                                 \
            bool hit = wide ? ct__u53(ct__random64(mt)) < pv                  \
                            : (double)ct__u24(ct__random32(mt)) < pv;         \
            ct__store_##S((T *)(p[0] + i * st[0]), (A)hit);                   \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
CT_FORALL_BOOL_DTYPE(X)
#undef X

typedef int (*bernoulli_p_fn)(ct__mt *mt, char **p, const int64_t *st, int64_t n,
                              read_fn read, bool wide);

/* PyTorch 1.13 has no half output here (so bernoulli_p_f16 is unused) */
static const bernoulli_p_fn bernoulli_p_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = bernoulli_p_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
#undef X
    [CT_DTYPE_FLOAT32] = bernoulli_p_f32,
    [CT_DTYPE_FLOAT64] = bernoulli_p_f64,
    [CT_DTYPE_BFLOAT16] = bernoulli_p_bf16,
};

/* bernoulli_(p tensor) into a device tensor: uniforms of p's compute
 * dtype (float64 for a float64 t, else float32) compared with p there.
 * PyTorch's CUDA kernel draws its own way (four elements per thread of a
 * 512-thread launch), so the values differ from its, not their law. */
static int
device_bernoulli_tensor_(ct_tensor *t, const ct_tensor *p, ct_generator *gen)
{
    ct_dtype pd = t->dtype == CT_DTYPE_FLOAT64 ? CT_DTYPE_FLOAT64 : CT_DTYPE_FLOAT32;
    if (!ct_dtype_is_floating(p->dtype)) {
        return ct_error(CT_ERR_RUNTIME, "expected probabilities tensor to have floating "
                        "type, got %s", ct_dtype_table[p->dtype].legacy);
    }
    if (ct__check_writable(t) < 0) {
        return -1;
    }
    ct_tensor *pt = ct_to_device(p, ct_tensor_device(t));
    ct_tensor *pc = pt != NULL ? ct_to_dtype(pt, pd, false) : NULL;
    ct_tensor *pe = pc != NULL ? ct_expand(pc, t->ndim, t->sizes) : NULL;
    ct_tensor *u = pe != NULL ? ct_empty(t->ndim, t->sizes, pd, ct_tensor_device(t)) : NULL;
    ct_tensor *hit = NULL;
    int rc = -1;
    if (u != NULL && ct_uniform_(u, 0, 1, gen) == 0 &&
        (hit = ct_binary(CT_BINARY_LT, u, pe, ct_scalar_int(1), NULL, CT_OUT_NEW)) != NULL) {
        rc = ct_copy_(t, hit);
    }
    ct_tensor_decref(hit);
    ct_tensor_decref(u);
    ct_tensor_decref(pe);
    ct_tensor_decref(pc);
    ct_tensor_decref(pt);
    return rc;
}

int
ct_bernoulli_tensor_(ct_tensor *t, const ct_tensor *p, ct_generator *gen)
{
    if (ct__is_device(t)) {
        return device_bernoulli_tensor_(t, p, gen);
    }
    if (ct__host_only((const ct_tensor *const[]){t, p}, 2) < 0 || ct__gen_check_cpu(gen) < 0) {
        return -1;
    }
    bernoulli_p_fn fn = bernoulli_p_loops[t->dtype];
    ct_tensor *pe = NULL;
    int rc = -1;

    if (ct__check_writable(t) < 0) {
        return -1;
    }
    if (t->numel == 0) {
        return 0;
    }
    if (fn == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"bernoulli_tensor_cpu_self_\" not implemented "
                        "for '%s'", ct_dtype_table[t->dtype].legacy);
    }
    if ((pe = ct_expand(p, t->ndim, t->sizes)) == NULL) {
        return -1;
    }
    read_fn read = prob_readers[p->dtype];
    if (read == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"bernoulli_tensor_cpu_p_\" not implemented for '%s'",
                 ct_dtype_table[p->dtype].legacy);
        goto done;
    }
    ct__walk w;
    char *ptr[2];
    int64_t n;
    ct__walk_init(&w, t, pe);
    ct_generator *g = ct__gen_acquire(gen);
    rc = 0;
    while (rc == 0 && ct__walk_next(&w, ptr, &n)) {
        int64_t st[2] = {w.stride[0][0], w.stride[1][0]};
        rc = fn(&g->mt, ptr, st, n, read, p->dtype == CT_DTYPE_FLOAT64);
    }
    ct__gen_release(g);
done:
    ct_tensor_decref(pe);
    return rc;
}

ct_tensor *
ct_bernoulli(const ct_tensor *p, ct_generator *gen)
{
    ct_tensor *t = ct_empty(p->ndim, p->sizes, p->dtype, ct_tensor_device(p));
    if (t != NULL && ct_bernoulli_tensor_(t, p, gen) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* --- poisson ------------------------------------------------------------- */
/* PyTorch's sample_poisson: products of uniforms below rate 10, else
 * Hoermann's transformed rejection (1993).  This code is compiled without
 * fused multiply-adds in PyTorch, as here. */
static int
sample_poisson(ct__mt *mt, double lambda, int64_t *out)
{
    if (!(lambda >= 0)) {
        return ct_error(CT_ERR_RUNTIME, "invalid Poisson rate, expected rate to be "
                        "non-negative");
    }
    if (lambda >= 10) {
        double slam = sqrt(lambda), loglam = log(lambda);
        double b = 0.931 + 2.53 * slam;
        double a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4);
        double vr = 0.9277 - 3.6224 / (b - 2);
        for (;;) {
            double u = ct__u53(ct__random64(mt)) - 0.5;
            double v = ct__u53(ct__random64(mt));
            double us = 0.5 - fabs(u);
            int64_t k = (int64_t)floor((2 * a / us + b) * u + lambda + 0.43);
            if (us >= 0.07 && v <= vr) {
                *out = k;
                return 0;
            }
            if (k < 0 || (us < 0.013 && v > us)) {
                continue;
            }
            if (log(v) + log(invalpha) - log(a / (us * us) + b) <=
                -lambda + (double)k * loglam - lgamma((double)k + 1)) {
                *out = k;
                return 0;
            }
        }
    }
    int64_t x = 0;
    if (lambda > 0) {
        double enlam = exp(-lambda), prod = 1.0;
        for (;;) {
            prod *= ct__u53(ct__random64(mt));
            if (!(prod > enlam)) {
                break;
            }
            x++;
        }
    }
    *out = x;
    return 0;
}

#define X(E, T, S, A)                                                         \
    __attribute__((unused)) static int                                        \
    poisson_##S(ct__mt *mt, char **p, const int64_t *st, int64_t n)           \
    {                                                                         \
        for (int64_t i = 0; i < n; i++) {                                     \
            int64_t k;                                                        \
            if (sample_poisson(mt, ct__as_f64_##S(*(const T *)(p[1] + i * st[1])), \
                               &k) < 0) {                                     \
                return -1;                                                    \
            }                                                                 \
            *(T *)(p[0] + i * st[0]) = ct__##S##_from_f64((double)k);         \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

typedef int (*poisson_fn)(ct__mt *mt, char **p, const int64_t *st, int64_t n);

/* no half in PyTorch 1.13 (poisson_f16 is unused) */
static const poisson_fn poisson_loops[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT32] = poisson_f32,
    [CT_DTYPE_FLOAT64] = poisson_f64,
    [CT_DTYPE_BFLOAT16] = poisson_bf16,
};

ct_tensor *
ct_poisson(const ct_tensor *rates, ct_generator *gen)
{
    if (ct__is_device(rates)) {
        return ct__device_poisson(rates, gen);
    }
    if (ct__gen_check_cpu(gen) < 0) {
        return NULL;
    }
    poisson_fn fn = poisson_loops[rates->dtype];
    if (fn == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"poisson_cpu\" not implemented for '%s'",
                 ct_dtype_table[rates->dtype].legacy);
        return NULL;
    }
    ct_tensor *t = ct_zeros(rates->ndim, rates->sizes, rates->dtype);
    if (t == NULL || t->numel == 0) {
        return t;
    }
    ct__walk w;
    char *ptr[2];
    int64_t n;
    int rc = 0;
    ct__walk_init(&w, t, rates);
    ct_generator *g = ct__gen_acquire(gen);
    while (rc == 0 && ct__walk_next(&w, ptr, &n)) {
        int64_t st[2] = {w.stride[0][0], w.stride[1][0]};
        rc = fn(&g->mt, ptr, st, n);
    }
    ct__gen_release(g);
    if (rc < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}
