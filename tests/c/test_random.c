/* tests/c/test_random.c -- generators and sampling (include/ctorch/random.h)
 * against the vectors of specs/rng.md, recorded from PyTorch 1.13.  Values
 * compare exactly (tolerance 0): float32 literals are rounded to float
 * first, since the spec gives enough digits to name one float. */
#include "tests/c/test.h"

#define F(x) ((double)(float)(x))

TEST_IMPL(random_engine_and_seeds)
{
    ct_generator *g = ct_generator_new();
    CT_ASSERT_OK(g);
    CT_ASSERT_TRUE(ct_generator_initial_seed(g) == CT_GENERATOR_DEFAULT_SEED);
    ct_generator_manual_seed(g, 0);
    static const uint32_t seed0[] = {2357136044u, 2546248239u, 3071714933u,
                                     3626093760u, 2588848963u, 3684848379u};
    for (int i = 0; i < 6; i++) {
        CT_ASSERT_EQ_INT(ct_generator_random32(g), seed0[i]);
    }
    ct_generator_manual_seed(g, 42);
    CT_ASSERT_EQ_INT(ct_generator_random32(g), 1608637542u);
    CT_ASSERT_EQ_INT(ct_generator_random32(g), 3421126067u);
    /* only the low 32 bits seed the engine; the seed itself is kept */
    ct_generator_manual_seed(g, (UINT64_C(1) << 32) + 7);
    uint64_t a = ct_generator_random64(g);
    CT_ASSERT_TRUE(ct_generator_initial_seed(g) == (UINT64_C(1) << 32) + 7);
    ct_generator_manual_seed(g, 7);
    CT_ASSERT_TRUE(ct_generator_random64(g) == a);
    /* a copy continues the same stream */
    ct_generator *h = ct_generator_new();
    CT_ASSERT_OK(h);
    CT_ASSERT_EQ_INT(ct_generator_copy(h, g), 0);
    CT_ASSERT_TRUE(ct_generator_random64(g) == ct_generator_random64(h));
    ct_generator_free(h);
    ct_generator_free(g);
}

TEST_IMPL(random_state_bytes)
{
    ct_generator *g = ct_generator_new();
    uint8_t st[CT_RNG_STATE_SIZE], st2[CT_RNG_STATE_SIZE];
    CT_ASSERT_OK(g);
    ct_generator_manual_seed(g, 0);
    ct_generator_get_state(g, st);
    CT_ASSERT_EQ_INT(st[8], 1);                 /* left */
    CT_ASSERT_EQ_INT(st[12], 1);                /* seeded */
    CT_ASSERT_EQ_INT(st[16], 0);                /* next */
    uint32_t s2 = (uint32_t)st[40] | (uint32_t)st[41] << 8 | (uint32_t)st[42] << 16 |
                  (uint32_t)st[43] << 24;
    CT_ASSERT_EQ_INT(s2, 1812433255u);
    ct_generator_random32(g);
    ct_generator_get_state(g, st);
    CT_ASSERT_EQ_INT(st[8] | st[9] << 8, 624);
    CT_ASSERT_EQ_INT(st[16], 1);
    /* restore and replay */
    uint32_t next = ct_generator_random32(g);
    CT_ASSERT_RC_OK(ct_generator_set_state(g, st, CT_RNG_STATE_SIZE));
    CT_ASSERT_EQ_INT(ct_generator_random32(g), next);
    ct_generator_get_state(g, st2);
    CT_ASSERT_RC_OK(ct_generator_set_state(g, st, CT_RNG_STATE_SIZE_LEGACY));
    CT_ASSERT_TRUE(ct_generator_set_state(g, st, 10) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Expected either a CPUGeneratorImplStateLegacy of size "
                    "5048 or a CPUGeneratorImplState of size 5056 but found the input RNG "
                    "state size to be 10");
    memset(st, 0, sizeof st);
    CT_ASSERT_TRUE(ct_generator_set_state(g, st, CT_RNG_STATE_SIZE) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Invalid mt19937 state");
    ct_generator_free(g);
}

TEST_IMPL(random_uniform_and_normal)
{
    ct_generator *g = ct_generator_new();
    int64_t n3 = 3, n4 = 4, n16 = 16, n17 = 17;
    ct_tensor *t;
    CT_ASSERT_OK(g);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_rand(1, &n4, CT_DTYPE_FLOAT32, g));
    CT_ASSERT_VALUES(t, 0, F(0.49625659), F(0.768221796), F(0.0884774327), F(0.132030487));
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_rand(1, &n3, CT_DTYPE_FLOAT64, g));
    CT_ASSERT_VALUES(t, 0, 0.97005300180655307, 0.70781986439978795, 0.45938294312745087);
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_empty(1, &n4, CT_DTYPE_FLOAT32, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_uniform_(t, -2.5, 3.25, g));
    CT_ASSERT_VALUES(t, 0, F(0.353475392), F(1.91727531), F(-1.99125481), F(-1.7408247));
    ct_tensor_decref(t);
    /* per-element path, then its cached partner */
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randn(1, &n3, CT_DTYPE_FLOAT64, g));
    CT_ASSERT_VALUES(t, 0, 1.5409961082440433, -0.29342890576094638, -2.1787893820745574);
    ct_tensor_decref(t);
    int64_t n1 = 1;
    CT_ASSERT_OK(t = ct_randn(1, &n1, CT_DTYPE_FLOAT64, g));
    CT_ASSERT_VALUES(t, 0, 0.56843127728066778);
    ct_tensor_decref(t);
    /* block path, whole and with the tail redone */
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randn(1, &n16, CT_DTYPE_FLOAT32, g));
    CT_ASSERT_VALUES(t, 0, F(-1.12583983), F(-1.1523602), F(-0.250578582), F(-0.433878809),
                     F(0.848710358), F(0.692009151), F(-0.31601277), F(-2.11521935),
                     F(0.322274923), F(-1.26333475), F(0.349983186), F(0.30813393),
                     F(0.119841509), F(1.2376579), F(1.11677718), F(-0.247278154));
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randn(1, &n17, CT_DTYPE_FLOAT32, g));
    CT_ASSERT_NEAR(ct_test_at(t, 1), F(-1.6959312), 0);
    CT_ASSERT_NEAR(ct_test_at(t, 16), F(0.931826591), 0);
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randn(1, &n16, CT_DTYPE_FLOAT64, g));
    CT_ASSERT_NEAR(ct_test_at(t, 0), -2.310411800234176, 0);
    CT_ASSERT_NEAR(ct_test_at(t, 3), 0.99950935478117608, 0);
    ct_tensor_decref(t);
    CT_ASSERT_TRUE(ct_normal_(t = ct_empty(1, &n3, CT_DTYPE_FLOAT32, ct_device_cpu()), 0,
                              -1, g) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "normal expects std >= 0.0, but found std -1");
    ct_tensor_decref(t);
    ct_generator_free(g);
}

TEST_IMPL(random_integers)
{
    ct_generator *g = ct_generator_new();
    int64_t n3 = 3, n8 = 8;
    ct_tensor *t;
    CT_ASSERT_OK(g);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randint(0, 10, 1, &n8, CT_DTYPE_INT64, g));
    CT_ASSERT_VALUES(t, 0, 4, 9, 3, 0, 3, 9, 7, 3);
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randint(0, (INT64_C(1) << 32) + 1, 1, &n3, CT_DTYPE_INT64, g));
    CT_ASSERT_VALUES(t, 0, 189112195, 554378827, 1095999416);
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_empty(1, &n3, CT_DTYPE_INT32, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_random_(t, g));
    CT_ASSERT_VALUES(t, 0, 209652396, 398764591, 924231285);
    CT_ASSERT_TRUE(ct_random_range_(t, 5, &(int64_t){2}, g) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', but got "
                    "from=5 >= to=2");
    CT_ASSERT_TRUE(ct_random_range_(t, 0, &(int64_t){INT64_C(1) << 40}, g) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "to - 1 is out of bounds for int");
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_randperm(10, CT_DTYPE_INT64, g));
    CT_ASSERT_VALUES(t, 0, 4, 1, 7, 5, 3, 9, 0, 8, 6, 2);
    ct_tensor_decref(t);
    CT_ASSERT_TRUE(ct_randperm(300, CT_DTYPE_UINT8, g) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "value cannot be converted to type uint8_t without "
                    "overflow");
    ct_generator_free(g);
}

TEST_IMPL(random_distributions)
{
    ct_generator *g = ct_generator_new();
    int64_t n2 = 2, n3 = 3, n8 = 8;
    ct_tensor *t, *p;
    CT_ASSERT_OK(g);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_empty(1, &n8, CT_DTYPE_FLOAT32, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_bernoulli_(t, 0.5, g));
    CT_ASSERT_VALUES(t, 0, 0, 0, 1, 0, 0, 0, 1, 1);
    CT_ASSERT_TRUE(ct_bernoulli_(t, 1.5, g) < 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_empty(1, &n3, CT_DTYPE_FLOAT32, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_exponential_(t, 1.0, g));
    CT_ASSERT_VALUES(t, 0, F(3.50832629), F(1.23038471), F(0.615044117));
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_empty(1, &n2, CT_DTYPE_FLOAT64, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_exponential_(t, 2.0, g));
    CT_ASSERT_VALUES(t, 0, 1.754163093353821, 0.6151923820898384);
    ct_tensor_decref(t);
    static const double probs[] = {.1, .2, .3, .4};
    CT_ASSERT_OK(p = ct_test_vec(CT_DTYPE_FLOAT32, 4, probs));
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_multinomial(p, 8, true, g));
    CT_ASSERT_VALUES(t, 0, 3, 3, 2, 3, 3, 3, 1, 2);
    ct_tensor_decref(t);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_multinomial(p, 3, false, g));
    CT_ASSERT_VALUES(t, 0, 2, 1, 3);
    ct_tensor_decref(t);
    CT_ASSERT_TRUE(ct_multinomial(p, 5, false, g) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples "
                    "without replacement");
    ct_tensor_decref(p);
    static const double bad[] = {.1, -.2, .3, .4};
    CT_ASSERT_OK(p = ct_test_vec(CT_DTYPE_FLOAT32, 4, bad));
    CT_ASSERT_TRUE(ct_multinomial(p, 2, true, g) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                    "probability entry < 0)");
    ct_tensor_decref(p);
    /* normal with tensors: N(0, 1) * std + mean, two roundings */
    static const double means[] = {0, 1, 2}, stds[] = {1, .5, 2};
    ct_tensor *mt = ct_test_vec(CT_DTYPE_FLOAT32, 3, means);
    ct_tensor *sd = ct_test_vec(CT_DTYPE_FLOAT32, 3, stds);
    CT_ASSERT_OK(mt);
    CT_ASSERT_OK(sd);
    ct_generator_manual_seed(g, 0);
    CT_ASSERT_OK(t = ct_normal(mt, 0, sd, 0, g));
    CT_ASSERT_VALUES(t, 0, F(1.54099607), F(0.853285551), F(-2.35757875));
    ct_tensor_decref(t);
    ct_tensor_decref(mt);
    ct_tensor_decref(sd);
    ct_generator_free(g);
}

TEST_IMPL(random_default_generator)
{
    /* seeded from the OS: two fresh seeds differ, manual_seed makes it
     * reproducible */
    ct_generator *d = ct_default_generator();
    uint64_t s1 = ct_generator_seed(d), s2 = ct_generator_seed(d);
    CT_ASSERT_TRUE(s1 != s2);
    CT_ASSERT_TRUE(ct_generator_initial_seed(NULL) == s2);
    ct_generator_manual_seed(NULL, 0);
    CT_ASSERT_EQ_INT(ct_generator_random32(NULL), 2357136044u);
}
