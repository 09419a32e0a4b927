/* tests/c/test_views.c -- view, reshape, narrow, select, slice, expand,
 * permute, transpose, squeeze, unsqueeze: geometry, shared storage and
 * PyTorch's error texts. */
#include "tests/c/test.h"

static const int64_t s234[3] = {2, 3, 4};

/* v is a view of t: same storage, and its base is t's root. */
#define CT_ASSERT_VIEW_OF(v, t)                                               \
    do {                                                                      \
        CT_ASSERT_TRUE((v)->storage == (t)->storage);                         \
        CT_ASSERT_TRUE((v)->base == ((t)->base ? (t)->base : (t)));           \
        CT_ASSERT_EQ_INT((v)->dtype, (t)->dtype);                             \
    } while (0)

TEST_IMPL(view_infer)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT32, 3, s234);
    CT_ASSERT_OK(t);
    ct_tensor *v = ct_view(t, 2, (int64_t[]){4, -1});
    CT_ASSERT_OK(v);
    CT_ASSERT_VIEW_OF(v, t);
    CT_ASSERT_SHAPE(v, 2, 4, 6);
    CT_ASSERT_STRIDES(v, 2, 6, 1);
    CT_ASSERT_EQ_INT(v->offset, 0);
    CT_ASSERT_NEAR(ct_test_at(v, 13), 13, 0);
    ct_tensor *f = ct_view(v, 1, (int64_t[]){-1});
    CT_ASSERT_OK(f);
    CT_ASSERT_VIEW_OF(f, t);                /* records the root, not v */
    CT_ASSERT_SHAPE(f, 1, 24);
    ct_tensor *s = ct_view(t, 4, (int64_t[]){2, 1, -1, 4});
    CT_ASSERT_OK(s);
    CT_ASSERT_SHAPE(s, 4, 2, 1, 3, 4);
    CT_ASSERT_STRIDES(s, 4, 12, 12, 4, 1);
    /* a 0-dim tensor views as [1] and back */
    ct_tensor *one = ct_view(f, 0, NULL);
    CT_ASSERT_TRUE(one == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "shape '[]' is invalid for input of size 24");
    ct_tensor *x = ct_scalar_tensor(ct_scalar_float(3.5));
    CT_ASSERT_OK(x);
    ct_tensor *x1 = ct_view(x, 1, (int64_t[]){-1});
    CT_ASSERT_OK(x1);
    CT_ASSERT_SHAPE(x1, 1, 1);
    CT_ASSERT_NEAR(ct_test_at(x1, 0), 3.5, 0);
    ct_tensor_decref(x1);
    ct_tensor_decref(x);
    ct_tensor_decref(s);
    ct_tensor_decref(f);
    ct_tensor_decref(v);
    ct_tensor_decref(t);
}

TEST_IMPL(view_errors)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT32, 3, s234);
    CT_ASSERT_OK(t);
    CT_ASSERT_TRUE(ct_view(t, 2, (int64_t[]){5, -1}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "shape '[5, -1]' is invalid for input of size 24");
    CT_ASSERT_TRUE(ct_view(t, 2, (int64_t[]){5, 5}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "shape '[5, 5]' is invalid for input of size 24");
    CT_ASSERT_TRUE(ct_view(t, 2, (int64_t[]){-1, -1}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "only one dimension can be inferred");
    CT_ASSERT_TRUE(ct_view(t, 2, (int64_t[]){-2, 12}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "invalid shape dimension -2");

    ct_tensor *tt = ct_transpose(t, 1, 2);               /* [2, 4, 3] */
    CT_ASSERT_OK(tt);
    CT_ASSERT_TRUE(ct_view(tt, 1, (int64_t[]){24}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "view size is not compatible with input "
                    "tensor's size and stride (at least one dimension spans "
                    "across two contiguous subspaces). Use .reshape(...) instead.");
    /* merging the transposed dims is not a view; splitting one is */
    CT_ASSERT_TRUE(ct_view(tt, 2, (int64_t[]){2, 12}) == NULL);
    ct_error_clear();
    ct_tensor *ok2 = ct_view(tt, 4, (int64_t[]){2, 2, 2, 3});
    CT_ASSERT_OK(ok2);
    CT_ASSERT_STRIDES(ok2, 4, 12, 2, 1, 4);
    ct_tensor_decref(ok2);
    ct_tensor_decref(tt);

    int64_t z[2] = {0, 3};
    ct_tensor *e = ct_empty(2, z, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(e);
    CT_ASSERT_TRUE(ct_view(e, 2, (int64_t[]){0, -1}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "cannot reshape tensor of 0 elements into "
                    "shape [0, -1] because the unspecified dimension size -1 can "
                    "be any value and is ambiguous");
    ct_tensor *e2 = ct_view(e, 3, (int64_t[]){3, 0, 5});
    CT_ASSERT_OK(e2);
    CT_ASSERT_SHAPE(e2, 3, 3, 0, 5);
    ct_tensor_decref(e2);
    ct_tensor_decref(e);
    ct_tensor_decref(t);
}

TEST_IMPL(view_reshape)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT32, 3, s234);
    CT_ASSERT_OK(t);
    ct_tensor *r = ct_reshape(t, 2, (int64_t[]){6, 4});    /* a view */
    CT_ASSERT_OK(r);
    CT_ASSERT_VIEW_OF(r, t);
    ct_tensor *tt = ct_transpose(t, 0, 2);                 /* [4, 3, 2] */
    CT_ASSERT_OK(tt);
    ct_tensor *c = ct_reshape(tt, 1, (int64_t[]){-1});     /* must copy */
    CT_ASSERT_OK(c);
    CT_ASSERT_TRUE(c->storage != t->storage);
    CT_ASSERT_SHAPE(c, 1, 24);
    /* c[k*6 + j*2 + i] = t[i, j, k] = 12 i + 4 j + k */
    for (int64_t k = 0; k < 4; k++) {
        for (int64_t j = 0; j < 3; j++) {
            for (int64_t i = 0; i < 2; i++) {
                CT_ASSERT_NEAR(ct_test_at(c, k * 6 + j * 2 + i), 12 * i + 4 * j + k, 0);
            }
        }
    }
    ct_tensor_decref(c);
    ct_tensor_decref(tt);
    ct_tensor_decref(r);
    ct_tensor_decref(t);
}

TEST_IMPL(view_narrow_select_slice)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT64, 3, s234);
    CT_ASSERT_OK(t);

    ct_tensor *n = ct_narrow(t, 2, 1, 2);
    CT_ASSERT_OK(n);
    CT_ASSERT_VIEW_OF(n, t);
    CT_ASSERT_SHAPE(n, 3, 2, 3, 2);
    CT_ASSERT_STRIDES(n, 3, 12, 4, 1);
    CT_ASSERT_EQ_INT(n->offset, 1);
    CT_ASSERT_VALUES(n, 0, 1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22);
    CT_ASSERT_TRUE(!ct_tensor_is_contiguous(n));
    ct_tensor *n2 = ct_narrow(n, 1, -2, 1);                /* start -2 -> 1 */
    CT_ASSERT_OK(n2);
    CT_ASSERT_EQ_INT(n2->offset, 5);
    CT_ASSERT_SHAPE(n2, 3, 2, 1, 2);
    CT_ASSERT_VALUES(n2, 0, 5, 6, 17, 18);
    ct_tensor_decref(n2);
    CT_ASSERT_TRUE(ct_narrow(t, 0, 1, 2) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "start (1) + length (2) exceeds dimension size (2).");
    CT_ASSERT_TRUE(ct_narrow(t, 0, 5, 1) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-2, 1], but got 5)");
    CT_ASSERT_TRUE(ct_narrow(t, 3, 0, 1) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-3, 2], but got 3)");

    ct_tensor *s = ct_select(t, 1, 2);
    CT_ASSERT_OK(s);
    CT_ASSERT_VIEW_OF(s, t);
    CT_ASSERT_SHAPE(s, 2, 2, 4);
    CT_ASSERT_STRIDES(s, 2, 12, 1);
    CT_ASSERT_EQ_INT(s->offset, 8);
    CT_ASSERT_VALUES(s, 0, 8, 9, 10, 11, 20, 21, 22, 23);
    ct_tensor *s0 = ct_select(t, 0, -1);
    CT_ASSERT_OK(s0);
    CT_ASSERT_EQ_INT(s0->offset, 12);
    ct_tensor *s00 = ct_select(s0, -1, 3);
    CT_ASSERT_OK(s00);
    CT_ASSERT_SHAPE(s00, 1, 3);
    CT_ASSERT_STRIDES(s00, 1, 4);
    CT_ASSERT_EQ_INT(s00->offset, 15);
    CT_ASSERT_VALUES(s00, 0, 15, 19, 23);
    ct_tensor *pt = ct_select(s00, 0, 1);                  /* 0-dim */
    CT_ASSERT_OK(pt);
    CT_ASSERT_EQ_INT(pt->ndim, 0);
    CT_ASSERT_EQ_INT(pt->offset, 19);
    ct_scalar v;
    CT_ASSERT_RC_OK(ct_tensor_item(pt, &v));
    CT_ASSERT_EQ_INT(v.v.i, 19);
    CT_ASSERT_TRUE(ct_select(pt, 0, 0) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "select() cannot be applied to a 0-dim tensor.");
    CT_ASSERT_TRUE(ct_select(t, 1, 3) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "select(): index 3 out of range for tensor of "
                    "size [2, 3, 4] at dimension 1");
    CT_ASSERT_TRUE(ct_select(t, 1, -4) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "select(): index -4 out of range for tensor of "
                    "size [2, 3, 4] at dimension 1");
    ct_tensor_decref(pt);
    ct_tensor_decref(s00);
    ct_tensor_decref(s0);
    ct_tensor_decref(s);

    ct_tensor *sl = ct_slice(t, 2, 1, 4, 2);
    CT_ASSERT_OK(sl);
    CT_ASSERT_SHAPE(sl, 3, 2, 3, 2);
    CT_ASSERT_STRIDES(sl, 3, 12, 4, 2);
    CT_ASSERT_EQ_INT(sl->offset, 1);
    CT_ASSERT_VALUES(sl, 0, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23);
    ct_tensor_decref(sl);
    sl = ct_slice(t, -1, -3, 100, 1);                      /* clamped stop */
    CT_ASSERT_OK(sl);
    CT_ASSERT_SHAPE(sl, 3, 2, 3, 3);
    CT_ASSERT_EQ_INT(sl->offset, 1);
    ct_tensor_decref(sl);
    sl = ct_slice(t, 1, 2, 1, 1);                          /* empty */
    CT_ASSERT_OK(sl);
    CT_ASSERT_SHAPE(sl, 3, 2, 0, 4);
    CT_ASSERT_EQ_INT(sl->numel, 0);
    ct_tensor_decref(sl);
    sl = ct_slice(t, 0, -100, 100, 3);
    CT_ASSERT_OK(sl);
    CT_ASSERT_SHAPE(sl, 3, 1, 3, 4);
    CT_ASSERT_STRIDES(sl, 3, 36, 4, 1);
    ct_tensor_decref(sl);
    CT_ASSERT_TRUE(ct_slice(t, 0, 0, 2, 0) == NULL);
    CT_ASSERT_ERROR(CT_ERR_VALUE, "step must be greater than zero");
    ct_tensor_decref(n);
    ct_tensor_decref(t);
}

TEST_IMPL(view_expand)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT64, 2, (int64_t[]){3, 1});
    CT_ASSERT_OK(t);
    ct_tensor *e = ct_expand(t, 3, (int64_t[]){2, 3, 4});
    CT_ASSERT_OK(e);
    CT_ASSERT_VIEW_OF(e, t);
    CT_ASSERT_SHAPE(e, 3, 2, 3, 4);
    CT_ASSERT_STRIDES(e, 3, 0, 1, 0);
    CT_ASSERT_EQ_INT(e->numel, 24);
    CT_ASSERT_TRUE(!ct_tensor_is_non_overlapping_and_dense(e));
    for (int64_t i = 0; i < 24; i++) {
        CT_ASSERT_NEAR(ct_test_at(e, i), (double)((i / 4) % 3), 0);
    }
    ct_tensor *e2 = ct_expand(t, 2, (int64_t[]){-1, 5});
    CT_ASSERT_OK(e2);
    CT_ASSERT_SHAPE(e2, 2, 3, 5);
    CT_ASSERT_STRIDES(e2, 2, 1, 0);
    ct_tensor_decref(e2);

    CT_ASSERT_TRUE(ct_expand(t, 2, (int64_t[]){2, 2}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "The expanded size of the tensor (2) must match "
                    "the existing size (3) at non-singleton dimension 0.  Target "
                    "sizes: [2, 2].  Tensor sizes: [3, 1]");
    CT_ASSERT_TRUE(ct_expand(t, 1, (int64_t[]){3}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "expand(torch.DoubleTensor{[3, 1]}, size=[3]): "
                    "the number of sizes provided (1) must be greater or equal to "
                    "the number of dimensions in the tensor (2)");
    CT_ASSERT_TRUE(ct_expand(t, 3, (int64_t[]){-1, 3, 1}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "The expanded size of the tensor (-1) isn't "
                    "allowed in a leading, non-existing dimension 0");
    ct_tensor_decref(e);
    ct_tensor_decref(t);
}

TEST_IMPL(view_permute_transpose)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT16, 3, s234);
    CT_ASSERT_OK(t);
    ct_tensor *p = ct_permute(t, 3, (int64_t[]){2, 0, 1});
    CT_ASSERT_OK(p);
    CT_ASSERT_VIEW_OF(p, t);
    CT_ASSERT_SHAPE(p, 3, 4, 2, 3);
    CT_ASSERT_STRIDES(p, 3, 1, 12, 4);
    CT_ASSERT_TRUE(!ct_tensor_is_contiguous(p));
    CT_ASSERT_TRUE(ct_tensor_is_non_overlapping_and_dense(p));
    /* p[k, i, j] = t[i, j, k] */
    for (int64_t k = 0; k < 4; k++) {
        for (int64_t i = 0; i < 2; i++) {
            for (int64_t j = 0; j < 3; j++) {
                CT_ASSERT_NEAR(ct_test_at(p, k * 6 + i * 3 + j), 12 * i + 4 * j + k, 0);
            }
        }
    }
    ct_tensor *q = ct_permute(t, 3, (int64_t[]){-1, -2, -3});
    CT_ASSERT_OK(q);
    CT_ASSERT_STRIDES(q, 3, 1, 4, 12);
    ct_tensor_decref(q);
    CT_ASSERT_TRUE(ct_permute(t, 3, (int64_t[]){0, 0, 1}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "permute(): duplicate dims are not allowed.");
    CT_ASSERT_TRUE(ct_permute(t, 3, (int64_t[]){0, 1, 3}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-3, 2], but got 3)");
    CT_ASSERT_TRUE(ct_permute(t, 2, (int64_t[]){0, 1}) == NULL);
    CT_ASSERT_TRUE(ct_error_code() == CT_ERR_RUNTIME);
    ct_error_clear();

    ct_tensor *tr = ct_transpose(t, 0, 2);
    CT_ASSERT_OK(tr);
    CT_ASSERT_SHAPE(tr, 3, 4, 3, 2);
    CT_ASSERT_STRIDES(tr, 3, 1, 4, 12);
    CT_ASSERT_EQ_INT(tr->offset, 0);
    CT_ASSERT_NEAR(ct_test_at(tr, 1), 12, 0);              /* tr[0,0,1] = t[1,0,0] */
    ct_tensor *back = ct_transpose(tr, -1, 0);
    CT_ASSERT_OK(back);
    CT_ASSERT_TRUE(ct_tensor_is_contiguous(back));
    ct_tensor_decref(back);
    CT_ASSERT_TRUE(ct_transpose(t, 0, 3) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-3, 2], but got 3)");
    ct_tensor *sc = ct_scalar_tensor(ct_scalar_int(1));
    CT_ASSERT_OK(sc);
    ct_tensor *sct = ct_transpose(sc, 0, -1);              /* 0-dim: allowed */
    CT_ASSERT_OK(sct);
    CT_ASSERT_EQ_INT(sct->ndim, 0);
    ct_tensor_decref(sct);
    ct_tensor_decref(sc);
    ct_tensor_decref(tr);
    ct_tensor_decref(p);
    ct_tensor_decref(t);
}

TEST_IMPL(view_squeeze_unsqueeze)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_UINT8, 3, s234);
    CT_ASSERT_OK(t);
    ct_tensor *u = ct_unsqueeze(t, 1);
    CT_ASSERT_OK(u);
    CT_ASSERT_VIEW_OF(u, t);
    CT_ASSERT_SHAPE(u, 4, 2, 1, 3, 4);
    CT_ASSERT_STRIDES(u, 4, 12, 12, 4, 1);
    ct_tensor *ul = ct_unsqueeze(t, -1);
    CT_ASSERT_OK(ul);
    CT_ASSERT_SHAPE(ul, 4, 2, 3, 4, 1);
    CT_ASSERT_STRIDES(ul, 4, 12, 4, 1, 1);
    ct_tensor *u0 = ct_unsqueeze(t, 0);
    CT_ASSERT_OK(u0);
    CT_ASSERT_STRIDES(u0, 4, 24, 12, 4, 1);
    CT_ASSERT_TRUE(ct_unsqueeze(t, 4) == NULL);
    CT_ASSERT_ERROR(CT_ERR_INDEX, "Dimension out of range (expected to be in range "
                    "of [-4, 3], but got 4)");

    ct_tensor *sq = ct_squeeze(u, NULL);
    CT_ASSERT_OK(sq);
    CT_ASSERT_SHAPE(sq, 3, 2, 3, 4);
    CT_ASSERT_STRIDES(sq, 3, 12, 4, 1);
    ct_tensor_decref(sq);
    int64_t d = 1;
    sq = ct_squeeze(u, &d);
    CT_ASSERT_OK(sq);
    CT_ASSERT_SHAPE(sq, 3, 2, 3, 4);
    ct_tensor_decref(sq);
    d = 2;                                                 /* size 3: kept */
    sq = ct_squeeze(u, &d);
    CT_ASSERT_OK(sq);
    CT_ASSERT_SHAPE(sq, 4, 2, 1, 3, 4);
    ct_tensor_decref(sq);

    ct_tensor *o = ct_zeros(3, (int64_t[]){1, 3, 1}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(o);
    d = 0;
    sq = ct_squeeze(o, &d);
    CT_ASSERT_OK(sq);
    CT_ASSERT_SHAPE(sq, 2, 3, 1);
    CT_ASSERT_STRIDES(sq, 2, 1, 1);
    ct_tensor_decref(sq);
    ct_tensor *one = ct_zeros(1, (int64_t[]){1}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(one);
    sq = ct_squeeze(one, NULL);                            /* -> 0-dim */
    CT_ASSERT_OK(sq);
    CT_ASSERT_EQ_INT(sq->ndim, 0);
    CT_ASSERT_EQ_INT(sq->numel, 1);
    ct_tensor *back = ct_unsqueeze(sq, 0);
    CT_ASSERT_OK(back);
    CT_ASSERT_SHAPE(back, 1, 1);
    CT_ASSERT_STRIDES(back, 1, 1);
    ct_tensor_decref(back);
    ct_tensor_decref(sq);
    ct_tensor_decref(one);
    ct_tensor_decref(o);
    ct_tensor_decref(u0);
    ct_tensor_decref(ul);
    ct_tensor_decref(u);
    ct_tensor_decref(t);
}

/* Views keep the storage alive, and writes through a view are seen by
 * the base and by every other view. */
TEST_IMPL(view_shares_storage)
{
    ct_tensor *t = ct_zeros(2, (int64_t[]){3, 4}, CT_DTYPE_FLOAT32);
    CT_ASSERT_OK(t);
    int64_t storages = ct_live_storages();
    ct_tensor *row = ct_select(t, 0, 1);
    ct_tensor *col = ct_select(t, 1, 2);
    ct_tensor *tr = ct_transpose(t, 0, 1);
    CT_ASSERT_OK(row);
    CT_ASSERT_OK(col);
    CT_ASSERT_OK(tr);
    CT_ASSERT_EQ_INT(ct_live_storages(), storages);
    CT_ASSERT_EQ_INT(atomic_load(&t->storage->refcnt), 4);
    CT_ASSERT_EQ_INT(atomic_load(&t->refcnt), 4);          /* each view's base */
    /* the C ops leave the version counter to the caller (the binding layer,
     * later autograd, bumps it for user-visible in-place writes) */
    long version = atomic_load(&t->storage->version);
    CT_ASSERT_RC_OK(ct_fill_(row, ct_scalar_float(7)));
    CT_ASSERT_RC_OK(ct_fill_(col, ct_scalar_float(-1)));
    CT_ASSERT_EQ_INT(atomic_load(&t->storage->version), version);
    ct_tensor_bump_version(col);            /* shared by every view */
    CT_ASSERT_EQ_INT(atomic_load(&row->storage->version), version + 1);
    CT_ASSERT_VALUES(t, 0, 0, 0, -1, 0, 7, 7, -1, 7, 0, 0, -1, 0);
    CT_ASSERT_VALUES(tr, 0, 0, 7, 0, 0, 7, 0, -1, -1, -1, 0, 7, 0);
    ct_tensor_decref(t);                    /* views keep it alive */
    CT_ASSERT_EQ_INT(ct_live_storages(), storages);
    CT_ASSERT_VALUES(row, 0, 7, 7, -1, 7);
    ct_tensor_decref(row);
    ct_tensor_decref(col);
    ct_tensor_decref(tr);

    /* as_strided: a sliding window, and the bounds check */
    ct_tensor *a = ct_test_iota(CT_DTYPE_INT32, 1, (int64_t[]){6});
    CT_ASSERT_OK(a);
    ct_tensor *w = ct_as_strided(a, 2, (int64_t[]){4, 3}, (int64_t[]){1, 1}, 0);
    CT_ASSERT_OK(w);
    CT_ASSERT_VALUES(w, 0, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5);
    CT_ASSERT_TRUE(!ct_tensor_is_non_overlapping_and_dense(w));
    CT_ASSERT_TRUE(ct_as_strided(a, 2, (int64_t[]){4, 3}, (int64_t[]){1, 1},
                                 1) == NULL);
    CT_ASSERT_TRUE(ct_error_code() == CT_ERR_RUNTIME);
    ct_error_clear();
    ct_tensor_decref(w);
    ct_tensor_decref(a);
}

TEST_IMPL(view_broadcast_shapes)
{
    int64_t out[CT_MAX_DIMS];
    int n = 0;
    CT_ASSERT_RC_OK(ct_broadcast_shapes(2, (int64_t[]){3, 1}, 1, (int64_t[]){4},
                                        &n, out));
    CT_ASSERT_EQ_INT(n, 2);
    CT_ASSERT_EQ_INT(out[0], 3);
    CT_ASSERT_EQ_INT(out[1], 4);
    CT_ASSERT_RC_OK(ct_broadcast_shapes(0, NULL, 3, (int64_t[]){2, 0, 1}, &n, out));
    CT_ASSERT_EQ_INT(n, 3);
    CT_ASSERT_EQ_INT(out[1], 0);
    CT_ASSERT_EQ_INT(out[2], 1);
    CT_ASSERT_RC_OK(ct_broadcast_shapes(2, (int64_t[]){1, 0}, 2, (int64_t[]){5, 1},
                                        &n, out));
    CT_ASSERT_EQ_INT(out[0], 5);
    CT_ASSERT_EQ_INT(out[1], 0);
    CT_ASSERT_EQ_INT(ct_broadcast_shapes(2, (int64_t[]){2, 3}, 2, (int64_t[]){3, 2},
                                         &n, out), -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "The size of tensor a (3) must match the size of "
                    "tensor b (2) at non-singleton dimension 1");
}
