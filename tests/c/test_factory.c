/* tests/c/test_factory.c -- ct_empty, ct_full, ct_zeros, ct_ones,
 * ct_arange, ct_range, ct_linspace, ct_logspace, ct_eye. */
#include "tests/c/test.h"

#include <ctorch/cuda.h>

static const ct_dtype numeric[] = {
    CT_DTYPE_UINT8, CT_DTYPE_INT8, CT_DTYPE_INT16, CT_DTYPE_INT32, CT_DTYPE_INT64,
    CT_DTYPE_FLOAT16, CT_DTYPE_FLOAT32, CT_DTYPE_FLOAT64, CT_DTYPE_BFLOAT16,
    CT_DTYPE_BOOL,
};
#define NNUMERIC ((int)(sizeof numeric / sizeof numeric[0]))

TEST_IMPL(factory_empty)
{
    int64_t sz[3] = {2, 3, 4};
    ct_tensor *t = ct_empty(3, sz, CT_DTYPE_FLOAT64, ct_device_cpu());
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 3, 2, 3, 4);
    CT_ASSERT_STRIDES(t, 3, 12, 4, 1);
    CT_ASSERT_EQ_INT(t->numel, 24);
    CT_ASSERT_EQ_INT(t->offset, 0);
    CT_ASSERT_EQ_INT(t->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_TRUE(t->storage->nbytes >= 24 * sizeof(double));
    CT_ASSERT_TRUE(ct_tensor_is_contiguous(t));
    CT_ASSERT_TRUE(t->base == NULL);
    CT_ASSERT_EQ_INT(atomic_load(&t->refcnt), 1);
    CT_ASSERT_EQ_INT(atomic_load(&t->storage->refcnt), 1);
    ct_tensor_decref(t);

    t = ct_empty(0, NULL, CT_DTYPE_INT32, ct_device_cpu());   /* 0-dim */
    CT_ASSERT_OK(t);
    CT_ASSERT_EQ_INT(t->ndim, 0);
    CT_ASSERT_EQ_INT(t->numel, 1);
    ct_tensor_decref(t);

    int64_t z[2] = {3, 0};
    t = ct_empty(2, z, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(t);
    CT_ASSERT_EQ_INT(t->numel, 0);
    CT_ASSERT_STRIDES(t, 2, 1, 1);
    ct_tensor_decref(t);

    int64_t strides[2] = {1, 2};                   /* column-major */
    int64_t s23[2] = {2, 3};
    t = ct_empty_strided(2, s23, strides, CT_DTYPE_INT16, ct_device_cpu());
    CT_ASSERT_OK(t);
    CT_ASSERT_STRIDES(t, 2, 1, 2);
    CT_ASSERT_TRUE(!ct_tensor_is_contiguous(t));
    CT_ASSERT_TRUE(ct_tensor_is_non_overlapping_and_dense(t));
    CT_ASSERT_TRUE(t->storage->nbytes >= 6 * 2);
    ct_tensor_decref(t);

    int64_t neg[2] = {2, -1};
    CT_ASSERT_TRUE(ct_empty(2, neg, CT_DTYPE_FLOAT32, ct_device_cpu()) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "Trying to create tensor with negative dimension -1: [2, -1]");
    ct_device meta = {CT_DEVICE_META, -1};
    CT_ASSERT_TRUE(ct_empty(2, s23, CT_DTYPE_FLOAT32, meta) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "ctorch cannot allocate on device 'meta'");
    if (ct_cuda_device_count() > 0) {
        return;                 /* a GPU is here: cuda allocates */
    }
    /* no GPU: allocating on cuda fails as starting CUDA does */
    ct_device cuda = {CT_DEVICE_CUDA, 0};
    CT_ASSERT_TRUE(ct_cuda_init() < 0);
    char why[512];
    snprintf(why, sizeof why, "%s", ct_error_message());
    ct_error_clear();
    CT_ASSERT_TRUE(ct_empty(2, s23, CT_DTYPE_FLOAT32, cuda) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, why);
}

TEST_IMPL(factory_full_zeros_ones)
{
    int64_t sz[2] = {2, 3};
    ct_tensor *t = ct_full(2, sz, ct_scalar_float(1.5), CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5);
    ct_tensor_decref(t);

    t = ct_full(1, sz, ct_scalar_float(2.7), CT_DTYPE_INT64);   /* truncates */
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 2, 2);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_float(-2.7), CT_DTYPE_INT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, -2, -2);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_int(5), CT_DTYPE_BOOL);
    CT_ASSERT_OK(t);
    CT_ASSERT_TRUE(ct_tensor_item_at(t, 1).kind == CT_SCALAR_BOOL);
    CT_ASSERT_VALUES(t, 0, 1, 1);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_float(0.1), CT_DTYPE_FLOAT16);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 0.0999755859375, 0.0999755859375);
    CT_ASSERT_EQ_INT(((ct_half *)ct_tensor_data(t))[0].x, 0x2e66);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_float(0.1), CT_DTYPE_BFLOAT16);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 0.10009765625, 0.10009765625);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_int(300), CT_DTYPE_UINT8);     /* too big */
    CT_ASSERT_TRUE(t == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "value cannot be converted to type uint8_t "
                    "without overflow");
    t = ct_full(1, sz, ct_scalar_int(-1), CT_DTYPE_UINT8);      /* wraps */
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 255, 255);
    ct_tensor_decref(t);
    t = ct_full(1, sz, ct_scalar_int(INT64_MAX), CT_DTYPE_INT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_EQ_INT(ct_tensor_item_at(t, 0).v.i, INT64_MAX);
    ct_tensor_decref(t);

    for (int k = 0; k < NNUMERIC; k++) {
        ct_tensor *z = ct_zeros(2, sz, numeric[k]);
        ct_tensor *o = ct_ones(2, sz, numeric[k]);
        CT_ASSERT_OK(z);
        CT_ASSERT_OK(o);
        CT_ASSERT_EQ_INT(z->dtype, numeric[k]);
        CT_ASSERT_EQ_INT(o->dtype, numeric[k]);
        CT_ASSERT_VALUES(z, 0, 0, 0, 0, 0, 0, 0);
        CT_ASSERT_VALUES(o, 0, 1, 1, 1, 1, 1, 1);
        ct_tensor_decref(z);
        ct_tensor_decref(o);
    }
    /* a quantized tensor cannot be filled */
    CT_ASSERT_TRUE(ct_full(2, sz, ct_scalar_int(1), CT_DTYPE_QINT8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "fill_ is not supported for quantized tensors");
}

/* More dims than fit inline in the tensor struct. */
TEST_IMPL(factory_many_dims)
{
    int64_t sz[7] = {1, 2, 1, 3, 1, 2, 1};
    ct_tensor *t = ct_ones(7, sz, CT_DTYPE_INT16);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 7, 1, 2, 1, 3, 1, 2, 1);
    CT_ASSERT_STRIDES(t, 7, 12, 6, 6, 2, 2, 1, 1);
    CT_ASSERT_EQ_INT(t->numel, 12);
    CT_ASSERT_TRUE(t->sizes != t->inline_dims);
    ct_tensor *s = ct_squeeze(t, NULL);
    CT_ASSERT_OK(s);
    CT_ASSERT_SHAPE(s, 3, 2, 3, 2);
    CT_ASSERT_STRIDES(s, 3, 6, 2, 1);
    ct_tensor *v = ct_view(s, 6, (int64_t[]){2, 1, 3, 1, 2, 1});
    CT_ASSERT_OK(v);
    CT_ASSERT_STRIDES(v, 6, 6, 6, 2, 2, 1, 1);
    ct_tensor *sum = ct_add(t, v, ct_scalar_int(2));    /* [..] + 2 * [..] */
    CT_ASSERT_OK(sum);
    CT_ASSERT_EQ_INT(sum->ndim, 7);
    for (int64_t i = 0; i < 12; i++) {
        CT_ASSERT_NEAR(ct_test_at(sum, i), 3, 0);
    }
    int64_t nd[2] = {4, 3};
    CT_ASSERT_RC_OK(ct_tensor_resize_(sum, 2, nd));     /* heap -> inline */
    CT_ASSERT_SHAPE(sum, 2, 4, 3);
    CT_ASSERT_STRIDES(sum, 2, 3, 1);
    ct_tensor_decref(sum);
    ct_tensor_decref(v);
    ct_tensor_decref(s);
    ct_tensor_decref(t);

    int64_t big[65];
    for (int i = 0; i < 65; i++) {
        big[i] = 1;
    }
    CT_ASSERT_TRUE(ct_empty(65, big, CT_DTYPE_FLOAT32, ct_device_cpu()) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "tensors may have at most 64 dimensions, got 65");
}

TEST_IMPL(factory_arange)
{
    ct_tensor *t = ct_arange(ct_scalar_int(0), ct_scalar_int(5), ct_scalar_int(1),
                             CT_DTYPE_INT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 1, 5);
    CT_ASSERT_VALUES(t, 0, 0, 1, 2, 3, 4);
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_int(1), ct_scalar_int(10), ct_scalar_int(3),
                  CT_DTYPE_INT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 1, 4, 7);
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_int(5), ct_scalar_int(0), ct_scalar_int(-1),
                  CT_DTYPE_INT8);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 5, 4, 3, 2, 1);
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_int(0), ct_scalar_float(1.0), ct_scalar_float(0.3),
                  CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 1e-7, 0, 0.3, 0.6, 0.9);
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_int(0), ct_scalar_int(1), ct_scalar_float(0.1),
                  CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_EQ_INT(t->numel, 10);
    for (int64_t i = 0; i < 10; i++) {
        CT_ASSERT_NEAR(ct_test_at(t, i), 0.1 * (double)i, 1e-15);
    }
    ct_tensor_decref(t);

    /* long float ranges go through the blocked scheme: still exact */
    t = ct_arange(ct_scalar_int(0), ct_scalar_int(100), ct_scalar_int(1),
                  CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_EQ_INT(t->numel, 100);
    for (int64_t i = 0; i < 100; i++) {
        CT_ASSERT_NEAR(ct_test_at(t, i), (double)i, 0);
    }
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_float(-1.5), ct_scalar_float(1.5), ct_scalar_float(0.5),
                  CT_DTYPE_FLOAT16);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, -1.5, -1, -0.5, 0, 0.5, 1);
    ct_tensor_decref(t);

    t = ct_arange(ct_scalar_int(3), ct_scalar_int(3), ct_scalar_int(1),
                  CT_DTYPE_INT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 1, 0);
    ct_tensor_decref(t);
}

TEST_IMPL(factory_arange_errors)
{
    CT_ASSERT_TRUE(ct_arange(ct_scalar_int(0), ct_scalar_int(5), ct_scalar_int(0),
                             CT_DTYPE_INT64) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "step must be nonzero");
    CT_ASSERT_TRUE(ct_arange(ct_scalar_int(0), ct_scalar_int(5),
                             ct_scalar_float(0.0), CT_DTYPE_FLOAT32) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "step must be nonzero");
    CT_ASSERT_TRUE(ct_range(ct_scalar_int(0), ct_scalar_int(5), ct_scalar_int(0),
                            CT_DTYPE_INT64) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "step must be nonzero");
    CT_ASSERT_TRUE(ct_arange(ct_scalar_int(0), ct_scalar_int(10), ct_scalar_int(-1),
                             CT_DTYPE_INT64) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "upper bound and larger bound inconsistent with step sign");
    CT_ASSERT_TRUE(ct_arange(ct_scalar_int(0), ct_scalar_float(INFINITY),
                             ct_scalar_int(1), CT_DTYPE_FLOAT32) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "unsupported range: 0 -> inf");
    CT_ASSERT_TRUE(ct_arange(ct_scalar_int(0), ct_scalar_int(2), ct_scalar_int(1),
                             CT_DTYPE_BOOL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "\"arange_cpu\" not implemented for 'Bool'");
}

TEST_IMPL(factory_linspace)
{
    ct_tensor *t = ct_linspace(ct_scalar_int(0), ct_scalar_int(1), 5,
                               CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 1, 5);
    CT_ASSERT_VALUES(t, 0, 0, 0.25, 0.5, 0.75, 1);
    ct_tensor_decref(t);

    t = ct_linspace(ct_scalar_int(0), ct_scalar_int(10), 5, CT_DTYPE_INT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 0, 2, 5, 7, 10);           /* torch 1.13's values */
    ct_tensor_decref(t);

    t = ct_linspace(ct_scalar_float(-1.0), ct_scalar_float(1.0), 1, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, -1);
    ct_tensor_decref(t);

    t = ct_linspace(ct_scalar_int(0), ct_scalar_int(1), 0, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 1, 0);
    ct_tensor_decref(t);

    t = ct_linspace(ct_scalar_int(0), ct_scalar_int(1), 100, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_NEAR(ct_test_at(t, 0), 0, 0);
    CT_ASSERT_NEAR(ct_test_at(t, 99), 1, 0);          /* end hit exactly */
    for (int64_t i = 0; i < 100; i++) {
        CT_ASSERT_NEAR(ct_test_at(t, i), (double)i / 99.0, 1e-6);
    }
    ct_tensor_decref(t);

    t = ct_linspace(ct_scalar_int(10), ct_scalar_int(0), 3, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 10, 5, 0);
    ct_tensor_decref(t);

    CT_ASSERT_TRUE(ct_linspace(ct_scalar_int(0), ct_scalar_int(1), -1,
                               CT_DTYPE_FLOAT32) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "number of steps must be non-negative");
}

TEST_IMPL(factory_range_logspace_eye)
{
    ct_tensor *t = ct_range(ct_scalar_int(0), ct_scalar_int(3), ct_scalar_int(1),
                            CT_DTYPE_INT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 0, 1, 2, 3);               /* end included */
    ct_tensor_decref(t);

    t = ct_range(ct_scalar_float(1.0), ct_scalar_float(2.0), ct_scalar_float(0.5),
                 CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 1, 1.5, 2);
    ct_tensor_decref(t);

    t = ct_logspace(ct_scalar_int(0), ct_scalar_int(2), 3, 10.0, CT_DTYPE_FLOAT64);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 1e-12, 1, 10, 100);
    ct_tensor_decref(t);

    t = ct_logspace(ct_scalar_int(0), ct_scalar_int(3), 4, 2.0, CT_DTYPE_INT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 1, 2, 4, 8);
    ct_tensor_decref(t);

    t = ct_eye(2, 3, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    CT_ASSERT_SHAPE(t, 2, 2, 3);
    CT_ASSERT_VALUES(t, 0, 1, 0, 0, 0, 1, 0);
    ct_tensor_decref(t);

    t = ct_eye(3, 2, CT_DTYPE_BOOL);
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 1, 0, 0, 1, 0, 0);
    ct_tensor_decref(t);

    CT_ASSERT_TRUE(ct_eye(-1, 2, CT_DTYPE_FLOAT32) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "n must be greater or equal to 0, got -1");
}
