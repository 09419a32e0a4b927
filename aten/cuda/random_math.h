/* aten/cuda/random_math.h -- the CUDA generator's draws, one element at a
 * time: Philox4x32-10 with curand's counter layout, curand's conversions
 * of its words to uniforms and normals, and the values PyTorch's CUDA
 * distribution kernels make of them.  Host and device both compile it: the
 * kernel of aten/cuda/random.cu and the pretend device of
 * tests/fake_cuda/part.c run these functions, and tests/c checks Philox
 * against Random123's known answers.
 *
 * Note [Device random streams]
 * PyTorch's distribution_nullary_kernel launches `threads` threads (256
 * per block, blocks = min(ceil(numel / 256), multiprocessors x
 * max threads per multiprocessor / 256)).  Thread t starts curand's Philox
 * at counter (offset / 4 in the low 64 bits, t in the high 64 bits) with
 * key = seed, and each curand4 call takes the block of four words at the
 * counter, then steps the low half by one.  A value takes one word (u = 4
 * values per block) or two (u = 2: ct_cuda_random_wide), and element i of
 * the output, counting in memory order, is value (i / threads) % u of
 * thread i % threads's block number i / (threads * u).  The generator's
 * offset then moves on by 4 x the blocks one thread takes,
 * ceil(numel / (threads * u)), so that the next call starts after them.
 * Tensors of 2^31 elements or more are one call here; PyTorch splits
 * those into several, each with its own offset, so their draws differ.
 */
#ifndef CTORCH_ATEN_CUDA_RANDOM_MATH_H
#define CTORCH_ATEN_CUDA_RANDOM_MATH_H

#include "aten/cuda/kernel_math.h"

/* --- Philox4x32-10 --------------------------------------------------------- */

typedef struct {
    uint32_t w[4];
} ct_k_words;

CT_HD uint32_t
ct_k_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Ten rounds over counter c with key (k0, k1), the key bumped by the Weyl
 * constants between rounds. */
CT_HD ct_k_words
ct_k_philox(ct_k_words c, uint32_t k0, uint32_t k1)
{
    CT_UNROLL
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = ct_k_mulhilo(0xD2511F53u, c.w[0], &hi0);
        uint32_t lo1 = ct_k_mulhilo(0xCD9E8D57u, c.w[2], &hi1);
        ct_k_words n = {{hi1 ^ c.w[1] ^ k0, lo1, hi0 ^ c.w[3] ^ k1, lo0}};
        c = n;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c;
}

/* Block number `round` of thread `thread` (Note [Device random streams]). */
CT_HD ct_k_words
ct_k_philox_block(uint64_t seed, uint64_t offset, uint64_t thread, uint64_t round)
{
    uint64_t lo = offset / 4 + round;
    ct_k_words c = {{(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)thread,
                     (uint32_t)(thread >> 32)}};
    return ct_k_philox(c, (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* --- curand's conversions ---------------------------------------------------- */
/* nvcc fuses curand's `x * c + c / 2` into one multiply-add, so these
 * write the fused form: the host then computes the device's values. */
#define CT_K_2POW32_INV 2.3283064e-10f
#define CT_K_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CT_K_2POW53_INV 1.1102230246251565e-16

/* curand_uniform: a float in (0, 1] */
CT_HD float
ct_k_uniform_f(uint32_t x)
{
    return fmaf((float)x, CT_K_2POW32_INV, CT_K_2POW32_INV / 2.0f);
}

/* curand_uniform2_double's halves: 53 bits of two words, in (0, 1] */
CT_HD double
ct_k_uniform_d(uint32_t x, uint32_t y)
{
    uint64_t z = (uint64_t)x ^ ((uint64_t)y << 21);
    return fma((double)z, CT_K_2POW53_INV, CT_K_2POW53_INV / 2.0);
}

/* curand_normal4's Box-Muller pair from two words: which = 0 the sine's,
 * 1 the cosine's.  The device takes __sincosf, the host sinf/cosf, so the
 * two may differ in the last bits (as curand's own host path does). */
CT_HD float
ct_k_normal_f(uint32_t x, uint32_t y, int which)
{
    float u = fmaf((float)x, CT_K_2POW32_INV, CT_K_2POW32_INV / 2);
    float v = fmaf((float)y, CT_K_2POW32_INV_2PI, CT_K_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u)), sn, cs;
#ifdef __CUDA_ARCH__
    __sincosf(v, &sn, &cs);
#else
    sn = sinf(v);
    cs = cosf(v);
#endif
    return (which == 0 ? sn : cs) * s;
}

/* curand_normal2_double's pair from a whole block (sincospi on the device,
 * sin / cos of v * pi on the host) */
CT_HD double
ct_k_normal_d(ct_k_words b, int which)
{
    uint64_t zx = (uint64_t)b.w[0] ^ ((uint64_t)b.w[1] << 21);
    uint64_t zy = (uint64_t)b.w[2] ^ ((uint64_t)b.w[3] << 21);
    double u = fma((double)zx, CT_K_2POW53_INV, CT_K_2POW53_INV / 2.0);
    double v = fma((double)zy, CT_K_2POW53_INV * 2.0, CT_K_2POW53_INV);
    double s = sqrt(-2.0 * log(u)), sn, cs;
#ifdef __CUDA_ARCH__
    sincospi(v, &sn, &cs);
#else
    sn = sin(v * 3.1415926535897932);
    cs = cos(v * 3.1415926535897932);
#endif
    return (which == 0 ? sn : cs) * s;
}

/* --- PyTorch's transformations ------------------------------------------------ */

/* Per compute type A (float, double): the libm functions of that
 * precision (plain C would widen float arguments to double) and
 * PyTorch 2's CUDA transformations of a uniform u in (0, 1] or a normal
 * z (TransformationHelper.h), with nvcc's fusing of `x * y + z` written
 * out as the existing normal's is.  The host's libm may differ from the
 * device's in the last bits of log, tan and exp, as curand's host path
 * does. */
#define CT_K_TRANSFORMS(A, F, EPS, PI)                                                \
    /* Exp(lambda): log(1) = 0 is outside the law's support, so values within        \
     * eps / 2 of 1 take log = -eps / 2 */                                            \
    CT_HD A ct_k_exponential_##A(A u, A lambda)                                       \
    {                                                                                 \
        A l = u >= (A)1 - EPS / 2 ? -EPS / 2 : log##F(u);                             \
        return (A)-1 / lambda * l;                                                    \
    }                                                                                 \
    /* Cauchy(median, sigma) by the inverse CDF; float clips u to [eps, 1 - eps]      \
     * (tanf of pi / 2 overflows), double does not */                                 \
    CT_HD A ct_k_cauchy_##A(A u, A median, A sigma)                                   \
    {                                                                                 \
        if (sizeof(A) == sizeof(float)) {                                             \
            u = u > (A)1 - EPS ? (A)1 - EPS : u;                                      \
            u = u < EPS ? EPS : u;                                                    \
        }                                                                             \
        return ct_k_fma_##A(sigma, tan##F((A)PI * (u - (A)0.5)), median);             \
    }                                                                                 \
    CT_HD A ct_k_log_normal_##A(A z, A mean, A std)                                   \
    {                                                                                 \
        return exp##F(ct_k_fma_##A(z, std, mean));                                    \
    }                                                                                 \
    /* Geometric(p) on {1, 2, ...} by the inverse CDF */                              \
    CT_HD A ct_k_geometric_##A(A u, A p) { return ceil##F(log##F(u) / log1p##F(-p)); }
CT_K_TRANSFORMS(float, f, 1.1920929e-7f, 3.14159265358979323846f)
CT_K_TRANSFORMS(double, , 2.220446049250313e-16, 3.14159265358979323846)
#undef CT_K_TRANSFORMS

/* The draw of value `slot` of block b: a word, or two words as
 * (first << 32 | second) when wide (slot < 2 then; the masks only keep
 * every index inside the block). */
CT_HD uint64_t
ct_k_draw_bits(ct_k_words b, int slot, bool wide)
{
    return wide ? (uint64_t)b.w[(2 * slot) & 3] << 32 | b.w[(2 * slot + 1) & 3] : b.w[slot & 3];
}

/* random_()'s modulus per dtype (PyTorch's uniform_int): the integer's
 * max + 1, or 2^digits + 1 for floating types; bool takes the low bit. */
CT_HD uint64_t
ct_k_bits_modulus(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_UINT8:
        return UINT64_C(1) << 8;
    case CT_DTYPE_INT8:
        return UINT64_C(1) << 7;
    case CT_DTYPE_INT16:
        return UINT64_C(1) << 15;
    case CT_DTYPE_INT32:
        return UINT64_C(1) << 31;
    case CT_DTYPE_INT64:
        return UINT64_C(1) << 63;
    case CT_DTYPE_FLOAT16:
        return (UINT64_C(1) << 11) + 1;
    case CT_DTYPE_BFLOAT16:
        return (UINT64_C(1) << 8) + 1;
    case CT_DTYPE_FLOAT32:
        return (UINT64_C(1) << 24) + 1;
    case CT_DTYPE_FLOAT64:
        return (UINT64_C(1) << 53) + 1;
    default:
        return 2;
    }
}

/* Value `slot` of block b for op into element p of dtype S (compute type
 * A: float for the 16-bit floats, which round when stored), as PyTorch's
 * CUDA kernels compute it: uniform's value in A, rounded to S, reflected
 * from b to a; normal's `z * std + mean` and bernoulli's `u < p` in A
 * (double only for float64); the integer draws through int64. */
#define CT_K_RANDOM_FLOATING(E, T, S, A)                                              \
    CT_HD void ct_k_random_##S(ct_cuda_random_op op, const ct_cuda_random_args *g,    \
                               ct_k_words b, int slot, char *p)                       \
    {                                                                                 \
        bool wide = E == CT_DTYPE_FLOAT64; /* the ops of uniforms and normals */     \
        A u = 0, z = 0, v;                                                            \
        if (op == CT_CUDA_RANDOM_UNIFORM || op == CT_CUDA_RANDOM_BERNOULLI ||         \
            op == CT_CUDA_RANDOM_EXPONENTIAL || op == CT_CUDA_RANDOM_CAUCHY ||        \
            op == CT_CUDA_RANDOM_GEOMETRIC) {                                         \
            u = wide ? (A)ct_k_uniform_d(b.w[2 * slot], b.w[2 * slot + 1])           \
                     : (A)ct_k_uniform_f(b.w[slot]);                                  \
        }                                                                             \
        if (op == CT_CUDA_RANDOM_NORMAL || op == CT_CUDA_RANDOM_LOG_NORMAL) {         \
            z = wide ? (A)ct_k_normal_d(b, slot)                                      \
                     : (A)ct_k_normal_f(b.w[slot & 2], b.w[(slot & 2) + 1], slot & 1); \
        }                                                                             \
        switch (op) {                                                                 \
        case CT_CUDA_RANDOM_UNIFORM: {                                                \
            A from = ct_k_round_##S((A)g->a), to = ct_k_round_##S((A)g->b);           \
            A range = ct_k_round_##S(to - from);                                      \
            v = ct_k_round_##S(ct_k_fma_##A(u, range, from));                         \
            v = v == to ? from : v;                                                   \
            break;                                                                    \
        }                                                                             \
        case CT_CUDA_RANDOM_NORMAL:                                                   \
            v = ct_k_fma_##A(z, (A)g->b, (A)g->a);                                    \
            break;                                                                    \
        case CT_CUDA_RANDOM_BERNOULLI:                                                \
            v = u < (A)g->a ? (A)1 : (A)0;                                            \
            break;                                                                    \
        case CT_CUDA_RANDOM_EXPONENTIAL:                                              \
            v = ct_k_exponential_##A(u, (A)g->a);                                     \
            break;                                                                    \
        case CT_CUDA_RANDOM_CAUCHY:                                                   \
            v = ct_k_cauchy_##A(u, (A)g->a, (A)g->b);                                 \
            break;                                                                    \
        case CT_CUDA_RANDOM_LOG_NORMAL:                                               \
            v = ct_k_log_normal_##A(z, (A)g->a, (A)g->b);                             \
            break;                                                                    \
        case CT_CUDA_RANDOM_GEOMETRIC:                                                \
            v = ct_k_geometric_##A(u, (A)g->a);                                       \
            break;                                                                    \
        default: {                                                                    \
            bool w = ct_cuda_random_wide(op, E, g->range);                            \
            uint64_t r = ct_k_draw_bits(b, slot, w);                                  \
            int64_t i = op == CT_CUDA_RANDOM_FROM_TO                                  \
                            ? (int64_t)(r % g->range + (uint64_t)g->base)             \
                        : op == CT_CUDA_RANDOM_BITS ? (int64_t)(r % ct_k_bits_modulus(E)) \
                                                    : (int64_t)r;                     \
            v = (A)i;                                                                 \
        }                                                                             \
        }                                                                             \
        ct_k_store_##S(p, v);                                                         \
    }
CT_FORALL_FLOATING_DTYPES(CT_K_RANDOM_FLOATING)
#undef CT_K_RANDOM_FLOATING

/* Integers and bool: bernoulli and geometric in float (geometric's value
 * converted as a float cast to the integer is), the draws through int64
 * (bool: nonzero, except BITS, which takes the low bit). */
#define CT_K_RANDOM_INTEGRAL(E, T, S, A)                                              \
    CT_HD void ct_k_random_##S(ct_cuda_random_op op, const ct_cuda_random_args *g,    \
                               ct_k_words b, int slot, char *p)                       \
    {                                                                                 \
        int64_t i;                                                                    \
        if (op == CT_CUDA_RANDOM_GEOMETRIC) {                                         \
            float v = ct_k_geometric_float(ct_k_uniform_f(b.w[slot]), (float)g->a);   \
            ct_k_store_##S(p, ct_k_##S##_from_f64(v));                                \
            return;                                                                   \
        }                                                                             \
        if (op == CT_CUDA_RANDOM_BERNOULLI) {                                         \
            i = ct_k_uniform_f(b.w[slot]) < (float)g->a;                              \
        }                                                                             \
        else {                                                                        \
            uint64_t r = ct_k_draw_bits(b, slot, ct_cuda_random_wide(op, E, g->range)); \
            i = op == CT_CUDA_RANDOM_FROM_TO ? (int64_t)(r % g->range + (uint64_t)g->base) \
                : op != CT_CUDA_RANDOM_BITS  ? (int64_t)r                             \
                : E == CT_DTYPE_BOOL         ? (int64_t)(r & 1)                       \
                                             : (int64_t)(r % ct_k_bits_modulus(E));   \
        }                                                                             \
        ct_k_store_##S(p, ct_k_##S##_from_i64(i));                                    \
    }
CT_FORALL_INTEGRAL_DTYPES(CT_K_RANDOM_INTEGRAL)
CT_FORALL_BOOL_DTYPE(CT_K_RANDOM_INTEGRAL)
#undef CT_K_RANDOM_INTEGRAL

/* --- poisson ------------------------------------------------------------------ */

/* Note [Device Poisson draws]
 * PyTorch draws each element with curand_poisson from a curand state of
 * its own; that stream is not reproduced here, only the law.  Element i
 * (in memory order) takes Philox blocks (offset / 4 + r, i) for r = 0 ..
 * g->range - 1, the host reserving that many blocks per call so that
 * calls never share draws; a uniform in (0, 1] is 53 bits of two words.
 *   rate < 10: inversion of one uniform u (block 0's first two words):
 *     the least k whose CDF, summed term by term, reaches u;
 *   rate >= 10: Hoermann's transformed rejection (PTRS, 1993, as the
 *     CPU's sample_poisson), one block per try: u from its first two
 *     words, v from its last two.  Should every try be rejected (each is
 *     with probability about 1/4 at rate 10, 1/8 at 1000), the last
 *     proposal is kept.
 * Rate 0 gives 0 and +inf gives +inf; NaN and negative rates give NaN
 * (the host refuses them first).  The host's libm and the device's may
 * round log / lgamma differently in the last bit, so the pretend device
 * and a GPU agree in law and almost always in value. */
CT_HD double
ct_k_poisson(const ct_cuda_random_args *g, uint64_t i, double rate)
{
    if (!(rate > 0) || isinf(rate)) {
        return rate >= 0 ? rate : NAN;
    }
    if (rate < 10) {
        ct_k_words b = ct_k_philox_block(g->seed, g->offset, i, 0);
        double u = ct_k_uniform_d(b.w[0], b.w[1]);
        double term = exp(-rate), cdf = term, k = 0;
        /* (term underflows to 0 only far past where the sum reaches 1) */
        while (u > cdf && term > 0) {
            k += 1;
            term *= rate / k;
            cdf += term;
        }
        return k;
    }
    double slam = sqrt(rate), loglam = log(rate);
    double pb = 0.931 + 2.53 * slam;
    double pa = -0.059 + 0.02483 * pb;
    double invalpha = 1.1239 + 1.1328 / (pb - 3.4);
    double vr = 0.9277 - 3.6224 / (pb - 2);
    double k = 0;
    for (uint64_t r = 0; r < g->range; r++) {
        ct_k_words b = ct_k_philox_block(g->seed, g->offset, i, r);
        double u = ct_k_uniform_d(b.w[0], b.w[1]) - 0.5;
        double v = ct_k_uniform_d(b.w[2], b.w[3]);
        double us = 0.5 - fabs(u);
        if (us <= 0) {
            continue;           /* u = 1/2 exactly: outside PTRS's open interval */
        }
        k = floor((2 * pa / us + pb) * u + rate + 0.43);
        if (us >= 0.07 && v <= vr) {
            return k;
        }
        if (k < 0 || (us < 0.013 && v > us)) {
            continue;
        }
        if (log(v) + log(invalpha) - log(pa / (us * us) + pb) <=
            -rate + k * loglam - lgamma(k + 1)) {
            return k;
        }
    }
    return k < 0 ? 0 : k;
}

/* Element i's Poisson draw over its rate, in place at p (dtype d, floating). */
CT_HD void
ct_k_poisson_store(ct_dtype d, const ct_cuda_random_args *g, uint64_t i, char *p)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_store_##S(p, ct_k_##S##_from_f64(ct_k_poisson(g, i, ct_k_as_f64_##S(     \
                              ct_k_load_##S(p)))));                                   \
        break;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* Value `slot` of block b into p (dtype d). */
CT_HD void
ct_k_random_store(ct_cuda_random_op op, ct_dtype d, const ct_cuda_random_args *g,
                  ct_k_words b, int slot, char *p)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_random_##S(op, g, b, slot, p);                                           \
        break;
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* Element i's value into p (dtype d), drawn as Note [Device random
 * streams] says (the pretend device's way: one block per element);
 * POISSON as Note [Device Poisson draws] says. */
CT_HD void
ct_k_random_element(ct_cuda_random_op op, ct_dtype d, const ct_cuda_random_args *g,
                    int64_t i, char *p)
{
    if (op == CT_CUDA_RANDOM_POISSON) {
        ct_k_poisson_store(d, g, (uint64_t)i, p);
        return;
    }
    uint64_t unroll = ct_cuda_random_wide(op, d, g->range) ? 2 : 4;
    uint64_t q = (uint64_t)i / (uint64_t)g->threads;
    ct_k_words b = ct_k_philox_block(g->seed, g->offset, (uint64_t)i % (uint64_t)g->threads,
                                     q / unroll);
    ct_k_random_store(op, d, g, b, (int)(q % unroll), p);
}

#endif
