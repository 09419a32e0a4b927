/* tests/c/test_errors.c -- the thread-local error slot, warnings, error
 * codes of failing ops, device parsing. */
#include <pthread.h>

#include "tests/c/test.h"

TEST_IMPL(error_state)
{
    ct_error_clear();
    CT_ASSERT_TRUE(!ct_error_occurred());
    CT_ASSERT_EQ_INT(ct_error_code(), CT_OK);
    CT_ASSERT_STR_EQ(ct_error_message(), "");

    CT_ASSERT_EQ_INT(ct_error(CT_ERR_VALUE, "bad value %d of %s", 3, "x"), -1);
    CT_ASSERT_TRUE(ct_error_occurred());
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_VALUE);
    CT_ASSERT_STR_EQ(ct_error_message(), "bad value 3 of x");
    CT_ASSERT_STR_EQ(ct_error_name(ct_error_code()), "ValueError");

    /* a second error replaces the first */
    ct_error(CT_ERR_INDEX, "index %lld is out of bounds", 7LL);
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_INDEX);
    CT_ASSERT_STR_EQ(ct_error_message(), "index 7 is out of bounds");

    /* fetch moves the error out and clears; restore puts it back */
    ct_error_state st;
    ct_error_fetch(&st);
    CT_ASSERT_TRUE(!ct_error_occurred());
    CT_ASSERT_EQ_INT(st.code, CT_ERR_INDEX);
    CT_ASSERT_STR_EQ(st.message, "index 7 is out of bounds");
    ct_error_restore(&st);
    CT_ASSERT_TRUE(ct_error_occurred());
    CT_ASSERT_STR_EQ(ct_error_message(), "index 7 is out of bounds");
    ct_error_clear();
    CT_ASSERT_TRUE(!ct_error_occurred());
    CT_ASSERT_STR_EQ(ct_error_message(), "");

    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_RUNTIME), "RuntimeError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_TYPE), "TypeError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_INDEX), "IndexError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_NOMEM), "MemoryError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_NOTIMPL), "NotImplementedError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_OVERFLOW), "OverflowError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_ZERODIV), "ZeroDivisionError");
    CT_ASSERT_STR_EQ(ct_error_name(CT_ERR_COUNT), "RuntimeError");
    CT_ASSERT_STR_EQ(ct_error_name((ct_errcode)-5), "RuntimeError");

    /* a long message is truncated, not overflowed */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ct_error(CT_ERR_RUNTIME, "%s", big);
    CT_ASSERT_EQ_INT(strlen(ct_error_message()), sizeof st.message - 1);
    ct_error_clear();
}

static void *
set_error_thread(void *arg)
{
    int *seen_clean = arg;
    *seen_clean = !ct_error_occurred();     /* the main thread's error is not here */
    ct_error(CT_ERR_TYPE, "from a thread");
    ct_warn("thread warning");
    return NULL;
}

TEST_IMPL(error_thread_local)
{
    pthread_t th;
    int seen_clean = 0;
    char buf[64];

    ct_error(CT_ERR_VALUE, "main");
    CT_ASSERT_EQ_INT(pthread_create(&th, NULL, set_error_thread, &seen_clean), 0);
    CT_ASSERT_EQ_INT(pthread_join(th, NULL), 0);
    CT_ASSERT_TRUE(seen_clean);
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_VALUE);
    CT_ASSERT_STR_EQ(ct_error_message(), "main");
    CT_ASSERT_TRUE(!ct_warning_pop(buf, sizeof buf));
    ct_error_clear();
}

TEST_IMPL(error_warnings)
{
    char buf[512];
    CT_ASSERT_TRUE(!ct_warning_pending());
    CT_ASSERT_TRUE(!ct_warning_pop(buf, sizeof buf));
    for (int i = 0; i < 10; i++) {
        ct_warn("warning %d", i);
    }
    CT_ASSERT_TRUE(ct_warning_pending());
    /* the queue keeps the oldest ones, in order */
    for (int i = 0; i < 8; i++) {
        char want[32];
        snprintf(want, sizeof want, "warning %d", i);
        CT_ASSERT_TRUE(ct_warning_pop(buf, sizeof buf));
        CT_ASSERT_STR_EQ(buf, want);
    }
    CT_ASSERT_TRUE(!ct_warning_pending());
    CT_ASSERT_TRUE(!ct_warning_pop(buf, sizeof buf));
    /* a small buffer gets a truncated, terminated copy */
    ct_warn("%s", "a rather long warning");
    char small[8];
    CT_ASSERT_TRUE(ct_warning_pop(small, sizeof small));
    CT_ASSERT_STR_EQ(small, "a rathe");
    /* warnings and errors are independent */
    ct_warn("w");
    CT_ASSERT_TRUE(!ct_error_occurred());
    CT_ASSERT_TRUE(ct_warning_pop(buf, sizeof buf));
}

/* Failing ops return NULL / -1, set the code PyTorch's exception maps
 * to, leave their inputs alone and leak nothing (checked by the runner). */
TEST_IMPL(error_from_ops)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){2, 3});
    CT_ASSERT_OK(t);
    ct_scalar s;
    CT_ASSERT_EQ_INT(ct_tensor_item(t, &s), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "a Tensor with 6 elements cannot be converted "
                    "to Scalar");
    CT_ASSERT_TRUE(ct_select(t, 2, 0) == NULL);
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_INDEX);
    ct_error_clear();
    CT_ASSERT_EQ_INT(ct_wrap_dim(-3, 2), -1);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-2, 1], but got -3)");
    CT_ASSERT_EQ_INT(ct_wrap_dim(-1, 0), 0);               /* 0-dim accepts -1, 0 */
    CT_ASSERT_EQ_INT(ct_wrap_dim(1, 0), -1);
    ct_error_clear();
    CT_ASSERT_TRUE(ct_slice(t, 0, 0, 1, -1) == NULL);
    CT_ASSERT_EQ_INT(ct_error_code(), CT_ERR_VALUE);
    ct_error_clear();

    CT_ASSERT_EQ_INT(ct_set_default_dtype(CT_DTYPE_INT32), -1);
    CT_ASSERT_ERROR(CT_ERR_TYPE, "only floating-point types are supported as the "
                    "default type");
    CT_ASSERT_EQ_INT(ct_default_dtype(), CT_DTYPE_FLOAT32);

    /* an error, then success: a later successful call does not clear it,
     * so callers must check return values, not the slot */
    CT_ASSERT_TRUE(ct_view(t, 1, (int64_t[]){7}) == NULL);
    ct_tensor *ok = ct_view(t, 1, (int64_t[]){6});
    CT_ASSERT_OK(ok);
    CT_ASSERT_TRUE(ct_error_occurred());
    ct_error_clear();
    CT_ASSERT_VALUES(t, 0, 0, 1, 2, 3, 4, 5);
    ct_tensor_decref(ok);

    char buf[64];
    CT_ASSERT_STR_EQ(ct_format_sizes(3, (int64_t[]){2, 0, 7}, buf, sizeof buf),
                     "[2, 0, 7]");
    CT_ASSERT_STR_EQ(ct_format_sizes(0, NULL, buf, sizeof buf), "[]");
    char tiny[6];
    ct_format_sizes(3, (int64_t[]){1000, 2000, 3000}, tiny, sizeof tiny);
    CT_ASSERT_EQ_INT(strlen(tiny), 5);
    CT_ASSERT_EQ_INT(ct_check_sizes(2, (int64_t[]){INT64_MAX, 2}), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "numel: integer multiplication overflow");
    CT_ASSERT_EQ_INT(ct_check_sizes(3, (int64_t[]){INT64_MAX, 2, 0}), 0);
    CT_ASSERT_TRUE(ct_empty(2, (int64_t[]){INT64_MAX / 2, 4}, CT_DTYPE_FLOAT32,
                            ct_device_cpu()) == NULL);
    CT_ASSERT_TRUE(ct_error_occurred());
    ct_error_clear();
    ct_tensor_decref(t);
}

TEST_IMPL(error_device_parse)
{
    ct_device d;
    CT_ASSERT_RC_OK(ct_device_parse("cpu", &d));
    CT_ASSERT_EQ_INT(d.type, CT_DEVICE_CPU);
    CT_ASSERT_EQ_INT(d.index, -1);
    CT_ASSERT_TRUE(ct_device_eq(d, ct_device_cpu()));
    CT_ASSERT_RC_OK(ct_device_parse("cuda:1", &d));
    CT_ASSERT_EQ_INT(d.type, CT_DEVICE_CUDA);
    CT_ASSERT_EQ_INT(d.index, 1);
    CT_ASSERT_RC_OK(ct_device_parse("cuda", &d));
    CT_ASSERT_EQ_INT(d.index, -1);
    CT_ASSERT_STR_EQ(ct_device_type_name(CT_DEVICE_CUDA), "cuda");
    CT_ASSERT_EQ_INT(ct_device_parse("cuda:01", &d), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Invalid device string: 'cuda:01'");
    CT_ASSERT_EQ_INT(ct_device_parse("cuda:", &d), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Invalid device string: 'cuda:'");
    CT_ASSERT_EQ_INT(ct_device_parse("cuda:-1", &d), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Invalid device string: 'cuda:-1'");
    CT_ASSERT_EQ_INT(ct_device_parse("gpu", &d), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Expected one of cpu, cuda, ipu, xpu, mkldnn, "
                    "opengl, opencl, ideep, hip, ve, fpga, ort, xla, lazy, vulkan, "
                    "mps, meta, hpu, privateuseone device type at start of device "
                    "string: gpu");
}
