/* tests/c/test_allocator.c -- the CPU allocator's live counters and block
 * cache, external storages, and storage growth through resize_. */
#include "tests/c/test.h"

TEST_IMPL(allocator_live_bytes)
{
    int64_t bytes = ct_live_bytes(), tensors = ct_live_tensors();
    int64_t storages = ct_live_storages();
    ct_tensor *t = ct_empty(1, (int64_t[]){1000}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(t);
    CT_ASSERT_TRUE(ct_live_bytes() - bytes >= 4000);
    CT_ASSERT_TRUE(ct_live_bytes() - bytes < 4000 + 64);
    CT_ASSERT_EQ_INT(ct_live_tensors(), tensors + 1);
    CT_ASSERT_EQ_INT(ct_live_storages(), storages + 1);
    CT_ASSERT_EQ_INT((uintptr_t)t->storage->data % 64, 0);
    CT_ASSERT_STR_EQ(t->storage->allocator->name, "cpu");
    CT_ASSERT_TRUE(t->storage->allocator == ct_cpu_allocator());
    ct_tensor *v = ct_transpose(t, 0, 0);                  /* a view: no bytes */
    CT_ASSERT_OK(v);
    CT_ASSERT_EQ_INT(ct_live_tensors(), tensors + 2);
    CT_ASSERT_EQ_INT(ct_live_storages(), storages + 1);
    CT_ASSERT_TRUE(ct_live_bytes() - bytes < 4000 + 64);
    ct_tensor_decref(t);
    CT_ASSERT_EQ_INT(ct_live_tensors(), tensors + 2);      /* v's base holds t */
    ct_tensor_decref(v);
    CT_ASSERT_EQ_INT(ct_live_bytes(), bytes);
    CT_ASSERT_EQ_INT(ct_live_tensors(), tensors);
    CT_ASSERT_EQ_INT(ct_live_storages(), storages);

    /* a 0-byte tensor still has a storage */
    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT64, ct_device_cpu());
    CT_ASSERT_OK(e);
    CT_ASSERT_TRUE(e->storage->data != NULL);
    CT_ASSERT_EQ_INT(e->storage->nbytes, 0);
    ct_tensor_decref(e);
    CT_ASSERT_EQ_INT(ct_live_bytes(), bytes);
    ct_tensor_decref(NULL);                                /* a no-op */
    ct_storage_decref(NULL);
}

/* Large blocks are kept when freed and handed out again. */
TEST_IMPL(allocator_cache)
{
    const int64_t n = 1 << 18;                             /* 1 MiB of float32 */
    ct_cpu_allocator_empty_cache();
    CT_ASSERT_EQ_INT(ct_cpu_allocator_cached_bytes(), 0);
    int64_t bytes = ct_live_bytes();
    ct_tensor *a = ct_empty(1, &n, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(a);
    CT_ASSERT_EQ_INT(ct_live_bytes() - bytes, 4 * n);
    CT_ASSERT_EQ_INT((uintptr_t)a->storage->data % 64, 0);
    void *p = a->storage->data;
    ct_tensor_decref(a);
    CT_ASSERT_EQ_INT(ct_live_bytes(), bytes);
    CT_ASSERT_EQ_INT(ct_cpu_allocator_cached_bytes(), 4 * n);
    ct_tensor *b = ct_empty(1, &n, CT_DTYPE_INT32, ct_device_cpu());
    CT_ASSERT_OK(b);
    CT_ASSERT_TRUE(b->storage->data == p);                 /* reused */
    CT_ASSERT_EQ_INT(ct_cpu_allocator_cached_bytes(), 0);
    /* a slightly smaller request rounds to the same size class */
    ct_tensor *c = ct_empty(1, (int64_t[]){n - 1000}, CT_DTYPE_FLOAT32,
                            ct_device_cpu());
    CT_ASSERT_OK(c);
    CT_ASSERT_EQ_INT(ct_live_bytes() - bytes, 8 * n);
    ct_tensor_decref(b);
    ct_tensor_decref(c);
    CT_ASSERT_EQ_INT(ct_cpu_allocator_cached_bytes(), 8 * n);
    CT_ASSERT_EQ_INT(ct_live_bytes(), bytes);
    ct_cpu_allocator_empty_cache();
    CT_ASSERT_EQ_INT(ct_cpu_allocator_cached_bytes(), 0);
}

static void
count_release(void *ctx)
{
    (*(int *)ctx)++;
}

TEST_IMPL(allocator_external_storage)
{
    static float buf[6] = {1, 2, 3, 4, 5, 6};
    int released = 0;
    int64_t bytes = ct_live_bytes();
    ct_storage *s = ct_storage_new_external(buf, sizeof buf, ct_device_cpu(),
                                            count_release, &released);
    CT_ASSERT_OK(s);
    CT_ASSERT_TRUE(s->allocator == NULL);
    CT_ASSERT_EQ_INT(ct_live_bytes(), bytes);              /* not ours */
    ct_tensor *t = ct_tensor_new(s, 1, 2, (int64_t[]){2, 2}, NULL, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    ct_storage_decref(s);                                  /* t keeps it */
    CT_ASSERT_EQ_INT(released, 0);
    CT_ASSERT_VALUES(t, 0, 2, 3, 4, 5);
    ct_tensor *r = ct_mul(t, t);
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 4, 9, 16, 25);
    CT_ASSERT_RC_OK(ct_fill_(t, ct_scalar_int(0)));        /* writes through */
    CT_ASSERT_NEAR(buf[0], 1, 0);
    CT_ASSERT_NEAR(buf[1], 0, 0);
    CT_ASSERT_NEAR(buf[5], 6, 0);
    /* outside memory cannot be resized */
    CT_ASSERT_EQ_INT(ct_tensor_resize_(t, 1, (int64_t[]){100}), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Trying to resize storage that is not resizable");
    ct_tensor_decref(r);
    ct_tensor_decref(t);
    CT_ASSERT_EQ_INT(released, 1);
}

TEST_IMPL(allocator_resize)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT64, 1, (int64_t[]){4});
    CT_ASSERT_OK(t);
    int64_t bytes = ct_live_bytes();
    CT_ASSERT_RC_OK(ct_tensor_resize_(t, 2, (int64_t[]){3, 5}));
    CT_ASSERT_SHAPE(t, 2, 3, 5);
    CT_ASSERT_STRIDES(t, 2, 5, 1);
    CT_ASSERT_TRUE(t->storage->nbytes >= 15 * 8);
    CT_ASSERT_TRUE(ct_live_bytes() > bytes);
    for (int64_t i = 0; i < 4; i++) {                      /* data kept */
        CT_ASSERT_NEAR(ct_test_at(t, i), (double)i, 0);
    }
    void *p = t->storage->data;
    CT_ASSERT_RC_OK(ct_tensor_resize_(t, 1, (int64_t[]){2}));    /* shrink */
    CT_ASSERT_TRUE(t->storage->data == p);
    CT_ASSERT_VALUES(t, 0, 0, 1);
    CT_ASSERT_EQ_INT(ct_tensor_resize_(t, 1, (int64_t[]){-1}), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Trying to create tensor with negative dimension "
                    "-1: [-1]");
    ct_tensor_decref(t);
}
