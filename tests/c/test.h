/* tests/c/test.h -- assertion macros and helpers for the C tests.
 *
 * A test is `TEST_IMPL(name) { ... }`, listed once in test_list.h.  The
 * CT_ASSERT_* macros print both sides with file:line and return from the
 * test on the first failure (so they are for use in test bodies, which
 * return void).  Every tensor a helper returns is a new reference the test
 * must release; the runner fails a test that leaves live tensors, storages
 * or bytes behind, or leaves an error or warning pending.
 */
#ifndef CT_TESTS_C_TEST_H
#define CT_TESTS_C_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <ctorch/ctorch.h>

#include "tests/c/test_list.h"

#define TEST_IMPL(name) void test_##name(void)

/* Record a failure of the running test (defined in runner.c). */
void ct_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define CT_ASSERT_EQ_INT(a, b)                                                \
    do {                                                                      \
        long long ct_a_ = (long long)(a), ct_b_ = (long long)(b);             \
        if (ct_a_ != ct_b_) {                                                 \
            ct_test_fail(__FILE__, __LINE__,                                  \
                         "CT_ASSERT_EQ_INT(%s, %s): %lld != %lld", #a, #b,    \
                         ct_a_, ct_b_);                                       \
            return;                                                           \
        }                                                                     \
    } while (0)

/* |a - b| <= tol; infinities must match exactly, NaN matches only NaN. */
#define CT_ASSERT_NEAR(a, b, tol)                                             \
    do {                                                                      \
        double ct_a_ = (double)(a), ct_b_ = (double)(b);                      \
        if (!ct_test_near(ct_a_, ct_b_, (double)(tol))) {                     \
            ct_test_fail(__FILE__, __LINE__,                                  \
                         "CT_ASSERT_NEAR(%s, %s, %s): %.17g vs %.17g", #a,   \
                         #b, #tol, ct_a_, ct_b_);                             \
            return;                                                           \
        }                                                                     \
    } while (0)

#define CT_ASSERT_TRUE(x)                                                     \
    do {                                                                      \
        if (!(x)) {                                                           \
            ct_test_fail(__FILE__, __LINE__, "CT_ASSERT_TRUE(%s) is false",  \
                         #x);                                                 \
            return;                                                           \
        }                                                                     \
    } while (0)

#define CT_ASSERT_STR_EQ(a, b)                                                \
    do {                                                                      \
        const char *ct_a_ = (a), *ct_b_ = (b);                                \
        if (ct_a_ == NULL || ct_b_ == NULL || strcmp(ct_a_, ct_b_) != 0) {    \
            ct_test_fail(__FILE__, __LINE__,                                  \
                         "CT_ASSERT_STR_EQ(%s, %s):\n      left:  \"%s\"\n"      \
                         "      right: \"%s\"",                                 \
                         #a, #b, ct_a_ ? ct_a_ : "(null)",                    \
                         ct_b_ ? ct_b_ : "(null)");                           \
            return;                                                           \
        }                                                                     \
    } while (0)

/* A call that must succeed: a non-NULL pointer or a 0 status.  Prints the
 * ctorch error otherwise. */
#define CT_ASSERT_OK(x)                                                       \
    do {                                                                      \
        if (!ct_test_ok_ptr((const void *)(x))) {                             \
            ct_test_fail(__FILE__, __LINE__, "%s failed: %s: %s", #x,         \
                         ct_error_name(ct_error_code()), ct_error_message()); \
            return;                                                           \
        }                                                                     \
    } while (0)
#define CT_ASSERT_RC_OK(x)                                                    \
    do {                                                                      \
        if ((x) != 0) {                                                       \
            ct_test_fail(__FILE__, __LINE__, "%s failed: %s: %s", #x,         \
                         ct_error_name(ct_error_code()), ct_error_message()); \
            return;                                                           \
        }                                                                     \
    } while (0)

/* The last call failed with `code` and exactly `msg`; clears the error. */
#define CT_ASSERT_ERROR(code, msg)                                            \
    do {                                                                      \
        CT_ASSERT_TRUE(ct_error_occurred());                                  \
        CT_ASSERT_STR_EQ(ct_error_name(ct_error_code()), ct_error_name(code)); \
        CT_ASSERT_STR_EQ(ct_error_message(), (msg));                          \
        ct_error_clear();                                                     \
    } while (0)

/* t has exactly these sizes (and, when strides != NULL, strides). */
#define CT_ASSERT_SHAPE(t, n, ...)                                            \
    do {                                                                      \
        const int64_t ct_s_[] = {__VA_ARGS__};                                \
        CT_ASSERT_EQ_INT((t)->ndim, (n));                                     \
        for (int ct_i_ = 0; ct_i_ < (n); ct_i_++) {                           \
            CT_ASSERT_EQ_INT((t)->sizes[ct_i_], ct_s_[ct_i_]);                \
        }                                                                     \
    } while (0)
#define CT_ASSERT_STRIDES(t, n, ...)                                          \
    do {                                                                      \
        const int64_t ct_s_[] = {__VA_ARGS__};                                \
        CT_ASSERT_EQ_INT((t)->ndim, (n));                                     \
        for (int ct_i_ = 0; ct_i_ < (n); ct_i_++) {                           \
            CT_ASSERT_EQ_INT((t)->strides[ct_i_], ct_s_[ct_i_]);              \
        }                                                                     \
    } while (0)

/* Every element (row-major) equals vals[i] within tol. */
#define CT_ASSERT_VALUES(t, tol, ...)                                         \
    do {                                                                      \
        const double ct_v_[] = {__VA_ARGS__};                                 \
        int64_t ct_n_ = (int64_t)(sizeof ct_v_ / sizeof ct_v_[0]);            \
        CT_ASSERT_EQ_INT((t)->numel, ct_n_);                                  \
        for (int64_t ct_i_ = 0; ct_i_ < ct_n_; ct_i_++) {                     \
            CT_ASSERT_NEAR(ct_test_at((t), ct_i_), ct_v_[ct_i_], (tol));      \
        }                                                                     \
    } while (0)

static inline int
ct_test_near(double a, double b, double tol)
{
    if (isnan(a) || isnan(b)) {
        return isnan(a) && isnan(b);
    }
    if (a == b) {
        return 1;
    }
    return fabs(a - b) <= tol;
}

static inline int
ct_test_ok_ptr(const void *p)
{
    return p != NULL;
}

/* Element i of t in row-major order, as a double. */
static inline double
ct_test_at(const ct_tensor *t, int64_t i)
{
    return ct_scalar_to_double(ct_tensor_item_at(t, i));
}

/* A new contiguous tensor of `dtype` holding vals (converted as copy_
 * converts from float64).  Defined in runner.c. */
ct_tensor *ct_test_tensor(ct_dtype dtype, int ndim, const int64_t *sizes,
                          const double *vals);
/* The same, 1-D of n elements. */
static inline ct_tensor *
ct_test_vec(ct_dtype dtype, int64_t n, const double *vals)
{
    return ct_test_tensor(dtype, 1, &n, vals);
}

/* A new contiguous tensor of `dtype` with element i = i (via arange). */
ct_tensor *ct_test_iota(ct_dtype dtype, int ndim, const int64_t *sizes);

#endif
