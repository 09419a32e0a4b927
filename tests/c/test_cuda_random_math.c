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
draw_f32(ct_cuda_random_op op, uint64_t seed, int n, float *out)
{
    ct_cuda_random_args g = {seed, 0, (n + 255) / 256 * 256, 0, 1, 0, 0};
    for (int i = 0; i < n; i++) {
        ct_k_random_element(op, CT_DTYPE_FLOAT32, &g, i, (char *)&out[i]);
    }
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
