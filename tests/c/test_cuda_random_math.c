/* tests/c/test_cuda_random_math.c -- the CUDA generator's draws
 * (aten/cuda/random_math.h) on the host: Philox4x32-10 against Random123's
 * known answers, the counter layout of curand_init(seed, thread, offset),
 * and the first values of torch.rand / torch.randn on a CUDA device after
 * torch.manual_seed, as PyTorch prints them (to four decimals). */
#include "tests/c/test.h"

#include "aten/cuda/random_math.h"

TEST_IMPL(cuda_philox_known_answers)
{
    /* Random123's kat_vectors, "philox4x32 10": counter, key, result */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
         0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        ct_k_words c = {{kat[v][0], kat[v][1], kat[v][2], kat[v][3]}};
        ct_k_words r = ct_k_philox(c, kat[v][4], kat[v][5]);
        for (int i = 0; i < 4; i++) {
            CT_ASSERT_EQ_INT(r.w[i], kat[v][6 + i]);
        }
    }
    /* block `round` of thread t: counter (offset / 4 + round, t), key seed */
    ct_k_words b = ct_k_philox_block(UINT64_C(0x299f31d0a4093822), 4 * UINT64_C(0x0123456789abcdef),
                                     UINT64_C(0x03707344131989ff), 0x2f);
    ct_k_words c = {{0x89abce1e, 0x01234567, 0x131989ff, 0x03707344}};
    ct_k_words e = ct_k_philox(c, 0xa4093822, 0x299f31d0);
    for (int i = 0; i < 4; i++) {
        CT_ASSERT_EQ_INT(b.w[i], e.w[i]);
    }
}

/* The values of `op` for elements 0..n-1 of a float32 tensor filled in one
 * call from (seed, offset 0), threads as a GPU of 132 multiprocessors
 * launches for n elements. */
static void
draw_f32_with(ct_cuda_random_op op, uint64_t seed, int n, double a, double b, float *out)
{
    ct_cuda_random_args g = {seed, 0, (n + 255) / 256 * 256, a, b, 0, 0};
    for (int i = 0; i < n; i++) {
        ct_k_random_element(op, CT_DTYPE_FLOAT32, &g, i, (char *)&out[i]);
    }
}

static void
draw_f32(ct_cuda_random_op op, uint64_t seed, int n, float *out)
{
    draw_f32_with(op, seed, n, 0, 1, out);
}

TEST_IMPL(cuda_random_matches_pytorch)
{
    /* torch.manual_seed(0); torch.rand(10, device="cuda") */
    static const float rand0[10] = {0.3990f, 0.5167f, 0.0249f, 0.9401f, 0.9459f,
                                    0.7967f, 0.4150f, 0.8203f, 0.2290f, 0.9096f};
    /* torch.manual_seed(0); torch.randn(8, device="cuda") */
    static const float randn0[8] = {-0.9247f, -0.4253f, -2.6438f, 0.1452f,
                                    -0.1209f, -0.5797f, -0.6229f, -0.3284f};
    /* torch.manual_seed(42); torch.rand(4, device="cuda") */
    static const float rand42[4] = {0.6130f, 0.0101f, 0.3984f, 0.0403f};
    float v[10];
    draw_f32(CT_CUDA_RANDOM_UNIFORM, 0, 10, v);
    for (int i = 0; i < 10; i++) {
        CT_ASSERT_NEAR(v[i], rand0[i], 5e-5);
        CT_ASSERT_TRUE(v[i] >= 0 && v[i] < 1);
    }
    draw_f32(CT_CUDA_RANDOM_NORMAL, 0, 8, v);
    for (int i = 0; i < 8; i++) {
        CT_ASSERT_NEAR(v[i], randn0[i], 5e-5);
    }
    draw_f32(CT_CUDA_RANDOM_UNIFORM, 42, 4, v);
    for (int i = 0; i < 4; i++) {
        CT_ASSERT_NEAR(v[i], rand42[i], 5e-5);
    }
    /* curand's uniform is (0, 1]; uniform_ reflects 1 to `from` */
    CT_ASSERT_TRUE(ct_k_uniform_f(0xffffffffu) == 1.0f);
    CT_ASSERT_TRUE(ct_k_uniform_f(0) > 0.0f);
    ct_cuda_random_args g = {0, 0, 256, 2.0, 3.0, 0, 0};
    ct_k_words ones = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    float f;
    ct_k_random_store(CT_CUDA_RANDOM_UNIFORM, CT_DTYPE_FLOAT32, &g, ones, 1, (char *)&f);
    CT_ASSERT_TRUE(f == 2.0f);
}

TEST_IMPL(cuda_random_integers)
{
    ct_k_words b = {{0x80000005u, 0xfffffff0u, 7u, 0x12345678u}};
    ct_cuda_random_args g = {0, 0, 256, 0, 0, 10, -3};
    int64_t i64;
    int32_t i32;
    uint8_t u8, b8;
    /* from_to over a small range takes one word: base + word % range */
    ct_k_random_store(CT_CUDA_RANDOM_FROM_TO, CT_DTYPE_INT64, &g, b, 2, (char *)&i64);
    CT_ASSERT_EQ_INT(i64, -3 + 7 % 10);
    /* over 2^28 or more, two words: (w[2s] << 32 | w[2s + 1]) % range */
    g.range = UINT64_C(1) << 40;
    g.base = 0;
    ct_k_random_store(CT_CUDA_RANDOM_FROM_TO, CT_DTYPE_INT64, &g, b, 0, (char *)&i64);
    CT_ASSERT_EQ_INT(i64, (int64_t)(((UINT64_C(0x80000005) << 32) | 0xfffffff0u) % g.range));
    /* random_(): the integer's max + 1, bool's low bit */
    ct_k_random_store(CT_CUDA_RANDOM_BITS, CT_DTYPE_INT32, &g, b, 0, (char *)&i32);
    CT_ASSERT_EQ_INT(i32, 5);
    ct_k_random_store(CT_CUDA_RANDOM_BITS, CT_DTYPE_UINT8, &g, b, 1, (char *)&u8);
    CT_ASSERT_EQ_INT(u8, 0xf0);
    ct_k_random_store(CT_CUDA_RANDOM_BITS, CT_DTYPE_BOOL, &g, b, 2, (char *)&b8);
    CT_ASSERT_EQ_INT(b8, 1);
    ct_k_random_store(CT_CUDA_RANDOM_BITS, CT_DTYPE_INT64, &g, b, 1, (char *)&i64);
    CT_ASSERT_EQ_INT(i64, (int64_t)(((UINT64_C(7) << 32) | 0x12345678u)));
    CT_ASSERT_TRUE(ct_cuda_random_wide(CT_CUDA_RANDOM_BITS, CT_DTYPE_INT64, 0));
    CT_ASSERT_TRUE(!ct_cuda_random_wide(CT_CUDA_RANDOM_FROM_TO, CT_DTYPE_INT64, 1u << 27));
    CT_ASSERT_TRUE(ct_cuda_random_wide(CT_CUDA_RANDOM_FROM_TO, CT_DTYPE_INT8, 1u << 28));
    CT_ASSERT_TRUE(ct_cuda_random_wide(CT_CUDA_RANDOM_UNIFORM, CT_DTYPE_FLOAT64, 0));
    CT_ASSERT_TRUE(!ct_cuda_random_wide(CT_CUDA_RANDOM_NORMAL, CT_DTYPE_FLOAT16, 0));
}

/* PyTorch 2's CUDA transformations of the uniforms and normals above: the
 * first values of exponential_ / cauchy_ / log_normal_ / geometric_ after
 * torch.manual_seed(0) are those of rand0 / randn0 transformed (the
 * tolerances follow the four printed decimals through each function). */
TEST_IMPL(cuda_random_transforms)
{
    static const float rand0[10] = {0.3990f, 0.5167f, 0.0249f, 0.9401f, 0.9459f,
                                    0.7967f, 0.4150f, 0.8203f, 0.2290f, 0.9096f};
    static const float randn0[8] = {-0.9247f, -0.4253f, -2.6438f, 0.1452f,
                                    -0.1209f, -0.5797f, -0.6229f, -0.3284f};
    const double pi = 3.14159265358979323846;
    float v[10];
    draw_f32_with(CT_CUDA_RANDOM_EXPONENTIAL, 0, 10, 2.0, 0, v);
    for (int i = 0; i < 10; i++) {
        CT_ASSERT_NEAR(v[i], -log(rand0[i]) / 2, 3e-5 / rand0[i] + 1e-6);
    }
    draw_f32_with(CT_CUDA_RANDOM_CAUCHY, 0, 10, 1.0, 2.0, v);
    for (int i = 0; i < 10; i++) {
        double c = cos(pi * (rand0[i] - 0.5));
        CT_ASSERT_NEAR(v[i], 1 + 2 * tan(pi * (rand0[i] - 0.5)), 5e-5 * 2 * pi / (c * c));
    }
    draw_f32_with(CT_CUDA_RANDOM_LOG_NORMAL, 0, 8, 0.5, 2.0, v);
    for (int i = 0; i < 8; i++) {
        double want = exp(0.5 + 2 * randn0[i]);
        CT_ASSERT_NEAR(v[i], want, want * 2 * 6e-5);
    }
    draw_f32_with(CT_CUDA_RANDOM_GEOMETRIC, 0, 10, 0.3, 0, v);
    for (int i = 0; i < 10; i++) {
        double x = log(rand0[i]) / log(0.7);
        if (fabs(x - floor(x + 0.5)) > 1e-3) {
            CT_ASSERT_NEAR(v[i], ceil(x), 0);
        }
    }
    /* the edges: curand's 1 gives exponential's eps / 2 (never 0), float
     * cauchy clips u to [eps, 1 - eps] (finite), float64 takes two words */
    ct_k_words ones = {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}};
    ct_k_words zeros = {{0, 0, 0, 0}};
    ct_k_words top = {{0x001fffffu, 0xffffffffu, 0x001fffffu, 0xffffffffu}};
    ct_cuda_random_args g = {0, 0, 256, 1.0, 1.0, 0, 0};
    float f;
    double d;
    ct_k_random_store(CT_CUDA_RANDOM_EXPONENTIAL, CT_DTYPE_FLOAT32, &g, ones, 3, (char *)&f);
    CT_ASSERT_TRUE(f == 0x1p-24f);
    CT_ASSERT_TRUE(ct_k_uniform_d(top.w[0], top.w[1]) == 1.0);
    ct_k_random_store(CT_CUDA_RANDOM_EXPONENTIAL, CT_DTYPE_FLOAT64, &g, top, 1, (char *)&d);
    CT_ASSERT_TRUE(d == 0x1p-53);
    ct_k_random_store(CT_CUDA_RANDOM_CAUCHY, CT_DTYPE_FLOAT32, &g, ones, 0, (char *)&f);
    CT_ASSERT_TRUE(isfinite(f) && f > 1e6f);
    ct_k_random_store(CT_CUDA_RANDOM_CAUCHY, CT_DTYPE_FLOAT32, &g, zeros, 0, (char *)&f);
    CT_ASSERT_TRUE(isfinite(f) && f < -1e6f);
    ct_k_random_store(CT_CUDA_RANDOM_CAUCHY, CT_DTYPE_FLOAT64, &g, top, 0, (char *)&d);
    CT_ASSERT_NEAR(d, 1 + tan(pi / 2), 0);
    /* float64 exponential of words (2s, 2s + 1): u = 53 bits of them */
    ct_k_words b = {{0x12345678u, 0x9abcdef0u, 0x0fedcba9u, 0x87654321u}};
    g.a = 3.0;
    ct_k_random_store(CT_CUDA_RANDOM_EXPONENTIAL, CT_DTYPE_FLOAT64, &g, b, 1, (char *)&d);
    CT_ASSERT_TRUE(d == -1.0 / 3.0 * log(ct_k_uniform_d(b.w[2], b.w[3])));
    /* geometric into integers from a float uniform (one word): u ~ 0.2,
     * p = 0.5: ceil(2.32) = 3, in int32 and int64 alike */
    ct_k_words gb = {{0, 858993459u, 0, 858993459u}};
    int32_t i32;
    int64_t i64;
    g.a = 0.5;
    ct_k_random_store(CT_CUDA_RANDOM_GEOMETRIC, CT_DTYPE_INT32, &g, gb, 1, (char *)&i32);
    CT_ASSERT_EQ_INT(i32, 3);
    ct_k_random_store(CT_CUDA_RANDOM_GEOMETRIC, CT_DTYPE_INT64, &g, gb, 3, (char *)&i64);
    CT_ASSERT_EQ_INT(i64, 3);
    CT_ASSERT_TRUE(!ct_cuda_random_wide(CT_CUDA_RANDOM_GEOMETRIC, CT_DTYPE_INT64, 0));
    CT_ASSERT_TRUE(ct_cuda_random_wide(CT_CUDA_RANDOM_GEOMETRIC, CT_DTYPE_FLOAT64, 0));
    CT_ASSERT_TRUE(ct_cuda_random_wide(CT_CUDA_RANDOM_LOG_NORMAL, CT_DTYPE_FLOAT64, 0));
    CT_ASSERT_TRUE(!ct_cuda_random_wide(CT_CUDA_RANDOM_CAUCHY, CT_DTYPE_BFLOAT16, 0));
    CT_ASSERT_TRUE(!ct_cuda_random_wide(CT_CUDA_RANDOM_POISSON, CT_DTYPE_FLOAT64, 0));
}

/* Poisson draws (Note [Device Poisson draws]) over many elements of one
 * call: the mean and variance for rates on both sides of 10, the
 * probabilities of the first counts for rate 3, and the special rates. */
TEST_IMPL(cuda_poisson_law)
{
    enum { N = 40000 };
    static const double rates[] = {0.5, 3.0, 9.99, 10.0, 31.5, 1000.0};
    ct_cuda_random_args g = {1234, 8, 256, 0, 0, 24, 0};
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        double lam = rates[r], s = 0, s2 = 0;
        long counts[8] = {0};
        for (int i = 0; i < N; i++) {
            double k = ct_k_poisson(&g, (uint64_t)i, lam);
            CT_ASSERT_TRUE(k >= 0 && k == floor(k));
            s += k;
            s2 += k * k;
            if (k < 8) {
                counts[(int)k]++;
            }
        }
        double mean = s / N, var = s2 / N - mean * mean;
        /* five standard errors */
        CT_ASSERT_NEAR(mean, lam, 5 * sqrt(lam / N));
        CT_ASSERT_NEAR(var, lam, 5 * lam * sqrt(2.0 / N) + 5 * sqrt(lam / N));
        if (lam == 3.0) {
            double pk = exp(-lam);
            for (int k = 0; k < 8; k++) {
                CT_ASSERT_NEAR(counts[k] / (double)N, pk, 5 * sqrt(pk * (1 - pk) / N));
                pk *= lam / (k + 1);
            }
        }
    }
    /* a float32 element in place; the same element and offset, the same draw */
    float f = 7.0f, f2 = 7.0f;
    ct_k_random_element(CT_CUDA_RANDOM_POISSON, CT_DTYPE_FLOAT32, &g, 5, (char *)&f);
    ct_k_poisson_store(CT_DTYPE_FLOAT32, &g, 5, (char *)&f2);
    CT_ASSERT_TRUE(f == f2 && f == (float)ct_k_poisson(&g, 5, 7.0));
    CT_ASSERT_TRUE(ct_k_poisson(&g, 3, 0.0) == 0.0);
    CT_ASSERT_TRUE(isinf(ct_k_poisson(&g, 3, INFINITY)));
    CT_ASSERT_TRUE(isnan(ct_k_poisson(&g, 3, NAN)) && isnan(ct_k_poisson(&g, 3, -1.0)));
    /* other elements and other offsets draw differently */
    int differ = 0;
    ct_cuda_random_args h = g;
    h.offset += 96;
    for (int i = 0; i < 100; i++) {
        differ += ct_k_poisson(&g, (uint64_t)i, 50.0) != ct_k_poisson(&h, (uint64_t)i, 50.0);
    }
    CT_ASSERT_TRUE(differ > 80);
}
