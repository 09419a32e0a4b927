/* tests/c/test_shape.c -- the shape family of ops_shape.h through the C
 * API: splitting views share storage and record their base, cat promotes
 * and checks out=, the strided copies (repeat, flip, roll, rot90) give
 * PyTorch's values and layouts, and errors carry PyTorch's text. */
#include "tests/c/test.h"

/* Declared here as well as in test_list.h, so that this file builds on its
 * own before its entries are listed. */
void test_shape_split_views(void);
void test_shape_movedim_diagonal(void);
void test_shape_cat_stack(void);
void test_shape_cat_errors(void);
void test_shape_repeat_interleave(void);
void test_shape_flip_roll_rot90(void);
void test_shape_axis_split_atleast(void);

static const int64_t s234[3] = {2, 3, 4};
static const int64_t s23[2] = {2, 3};

#define CT_ASSERT_VIEW_OF(v, t)                                               \
    do {                                                                      \
        CT_ASSERT_TRUE((v)->storage == (t)->storage);                         \
        CT_ASSERT_TRUE((v)->base == ((t)->base ? (t)->base : (t)));           \
    } while (0)

TEST_IMPL(shape_split_views)
{
    ct_tensor_list l = {0, NULL};
    ct_tensor *t = ct_test_iota(CT_DTYPE_FLOAT32, 3, s234);
    CT_ASSERT_OK(t);
    CT_ASSERT_RC_OK(ct_chunk(t, 3, 2, &l));
    CT_ASSERT_EQ_INT(l.n, 2);
    CT_ASSERT_VIEW_OF(l.items[1], t);
    CT_ASSERT_SHAPE(l.items[1], 3, 2, 3, 2);
    CT_ASSERT_STRIDES(l.items[1], 3, 12, 4, 1);
    CT_ASSERT_EQ_INT(l.items[1]->offset, 2);
    ct_tensor_list_clear(&l);
    CT_ASSERT_TRUE(l.n == 0 && l.items == NULL);
    CT_ASSERT_RC_OK(ct_split_with_sizes(t, 2, (int64_t[]){1, 3}, -1, &l));
    CT_ASSERT_EQ_INT(l.n, 2);
    CT_ASSERT_SHAPE(l.items[1], 3, 2, 3, 3);
    CT_ASSERT_NEAR(ct_test_at(l.items[1], 0), 1, 0);
    ct_tensor_list_clear(&l);
    CT_ASSERT_RC_OK(ct_tensor_split(t, 3, 2, &l));
    CT_ASSERT_EQ_INT(l.n, 3);
    CT_ASSERT_SHAPE(l.items[0], 3, 2, 3, 2);
    CT_ASSERT_SHAPE(l.items[2], 3, 2, 3, 1);
    ct_tensor_list_clear(&l);
    CT_ASSERT_RC_OK(ct_unbind(t, 1, &l));
    CT_ASSERT_EQ_INT(l.n, 3);
    CT_ASSERT_VALUES(l.items[2], 0, 8, 9, 10, 11, 20, 21, 22, 23);
    ct_tensor_list_clear(&l);
    CT_ASSERT_TRUE(ct_split(t, 0, 2, &l) == -1 && l.n == 0);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "split_size can only be 0 if dimension size is 0, "
                    "but got dimension size of 4");
    CT_ASSERT_TRUE(ct_chunk(t, 0, 0, &l) == -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "chunk expects `chunks` to be greater than 0, got: 0");
    ct_tensor *u = ct_unflatten(t, -1, 2, (int64_t[]){2, -1});
    CT_ASSERT_OK(u);
    CT_ASSERT_VIEW_OF(u, t);
    CT_ASSERT_SHAPE(u, 4, 2, 3, 2, 2);
    ct_tensor_decref(u);
    ct_tensor_decref(t);
}

TEST_IMPL(shape_movedim_diagonal)
{
    ct_tensor *t = ct_test_iota(CT_DTYPE_INT64, 3, s234);
    CT_ASSERT_OK(t);
    ct_tensor *m = ct_movedim(t, 1, (int64_t[]){0}, 1, (int64_t[]){2});
    CT_ASSERT_OK(m);
    CT_ASSERT_VIEW_OF(m, t);
    CT_ASSERT_SHAPE(m, 3, 3, 4, 2);
    CT_ASSERT_STRIDES(m, 3, 4, 1, 12);
    ct_tensor *d = ct_diagonal(t, -1, 0, 2);
    CT_ASSERT_OK(d);
    CT_ASSERT_SHAPE(d, 2, 3, 1);
    CT_ASSERT_STRIDES(d, 2, 4, 13);
    CT_ASSERT_EQ_INT(d->offset, 12);
    CT_ASSERT_TRUE(ct_diagonal(t, 0, 1, -2) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "diagonal dimensions cannot be identical 1, -2");
    CT_ASSERT_TRUE(ct_movedim(t, 2, (int64_t[]){0, 0}, 2, (int64_t[]){1, 2}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "movedim: repeated dim in `source` ([0, 0])");
    ct_tensor_decref(d);
    ct_tensor_decref(m);
    ct_tensor_decref(t);
}

TEST_IMPL(shape_cat_stack)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_INT32, 2, s23);
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT32, 2, s23);
    ct_tensor *e = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT64, ct_device_cpu());
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(e);
    const ct_tensor *ab[3] = {a, e, b};
    /* int32 + float32 (+ a skipped float64 empty) -> float64 */
    ct_tensor *c = ct_cat(3, ab, 1, NULL);
    CT_ASSERT_OK(c);
    CT_ASSERT_EQ_INT(c->dtype, CT_DTYPE_FLOAT64);
    CT_ASSERT_SHAPE(c, 2, 2, 6);
    CT_ASSERT_VALUES(c, 0, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5);
    CT_ASSERT_TRUE(c->base == NULL);
    /* out= of another shape is resized (with PyTorch's warning) */
    ct_tensor *out = ct_empty(1, (int64_t[]){0}, CT_DTYPE_FLOAT32, ct_device_cpu());
    CT_ASSERT_OK(out);
    const ct_tensor *bb[2] = {b, b};
    ct_tensor *r = ct_stack(2, bb, 2, out);
    CT_ASSERT_OK(r);
    CT_ASSERT_TRUE(r == out);
    CT_ASSERT_SHAPE(out, 3, 2, 3, 2);
    CT_ASSERT_VALUES(out, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5);
    ct_tensor *s = ct_stack(2, bb, 0, NULL);
    CT_ASSERT_OK(s);
    CT_ASSERT_SHAPE(s, 3, 2, 2, 3);
    CT_ASSERT_TRUE(s->base == NULL);
    ct_tensor_decref(s);
    ct_tensor_decref(r);
    ct_tensor_decref(out);
    ct_tensor_decref(c);
    ct_tensor_decref(e);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}

TEST_IMPL(shape_cat_errors)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT32, 2, s23);
    ct_tensor *b = ct_test_iota(CT_DTYPE_FLOAT32, 2, (int64_t[]){3, 3});
    ct_tensor *o = ct_empty(1, (int64_t[]){0}, CT_DTYPE_INT64, ct_device_cpu());
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(o);
    const ct_tensor *ab[2] = {a, b};
    CT_ASSERT_TRUE(ct_cat(2, ab, 1, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Sizes of tensors must match except in dimension "
                    "1. Expected size 2 but got size 3 for tensor number 1 in the "
                    "list.");
    CT_ASSERT_TRUE(ct_cat(0, ab, 0, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "torch.cat(): expected a non-empty list of Tensors");
    CT_ASSERT_TRUE(ct_cat(1, ab, 0, o) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "torch.cat(): input types can't be cast to the "
                    "desired output type Long");
    CT_ASSERT_TRUE(ct_stack(2, ab, 0, NULL) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "stack expects each tensor to be equal size, but "
                    "got [2, 3] at entry 0 and [3, 3] at entry 1");
    ct_tensor_decref(o);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
}

TEST_IMPL(shape_repeat_interleave)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_INT16, 2, s23);
    CT_ASSERT_OK(a);
    ct_tensor *r = ct_repeat(a, 3, (int64_t[]){1, 2, 2});
    CT_ASSERT_OK(r);
    CT_ASSERT_SHAPE(r, 3, 1, 4, 6);
    CT_ASSERT_STRIDES(r, 3, 24, 6, 1);
    CT_ASSERT_NEAR(ct_test_at(r, 6 * 3 + 4), 4, 0);
    ct_tensor *t = ct_tile(a, 1, (int64_t[]){2});
    CT_ASSERT_OK(t);
    CT_ASSERT_VALUES(t, 0, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5);
    int64_t dim = 1;
    ct_tensor *i = ct_repeat_interleave(a, 2, &dim, -1);
    CT_ASSERT_OK(i);
    CT_ASSERT_VALUES(i, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5);
    ct_tensor *reps = ct_test_vec(CT_DTYPE_INT64, 3, (double[]){1, 0, 2});
    CT_ASSERT_OK(reps);
    ct_tensor *j = ct_repeat_interleave_tensor(a, reps, &dim, -1);
    CT_ASSERT_OK(j);
    CT_ASSERT_VALUES(j, 0, 0, 2, 2, 3, 5, 5);
    ct_tensor *k = ct_repeat_interleave_index(reps, -1);
    CT_ASSERT_OK(k);
    CT_ASSERT_VALUES(k, 0, 0, 2, 2);
    CT_ASSERT_TRUE(ct_repeat(a, 1, (int64_t[]){2}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "Number of dimensions of repeat dims can not be "
                    "smaller than number of dimensions of tensor");
    ct_tensor_decref(k);
    ct_tensor_decref(j);
    ct_tensor_decref(reps);
    ct_tensor_decref(i);
    ct_tensor_decref(t);
    ct_tensor_decref(r);
    ct_tensor_decref(a);
}

TEST_IMPL(shape_flip_roll_rot90)
{
    ct_tensor *a = ct_test_iota(CT_DTYPE_FLOAT64, 2, s23);
    CT_ASSERT_OK(a);
    ct_tensor *at = ct_transpose(a, 0, 1);
    CT_ASSERT_OK(at);
    ct_tensor *f = ct_flip(at, 1, (int64_t[]){0});
    CT_ASSERT_OK(f);
    CT_ASSERT_STRIDES(f, 2, 1, 3);          /* the input's layout is kept */
    CT_ASSERT_VALUES(f, 0, 2, 5, 1, 4, 0, 3);
    ct_tensor *g = ct_flip(a, 2, (int64_t[]){0, -1});
    CT_ASSERT_OK(g);
    CT_ASSERT_VALUES(g, 0, 5, 4, 3, 2, 1, 0);
    ct_tensor *r = ct_roll(a, 2, (int64_t[]){1, 1}, 2, (int64_t[]){0, 1});
    CT_ASSERT_OK(r);
    CT_ASSERT_VALUES(r, 0, 5, 3, 4, 2, 0, 1);
    ct_tensor *rf = ct_roll(at, 1, (int64_t[]){1}, 0, NULL);
    CT_ASSERT_OK(rf);
    CT_ASSERT_SHAPE(rf, 2, 3, 2);
    CT_ASSERT_VALUES(rf, 0, 5, 0, 3, 1, 4, 2);
    CT_ASSERT_TRUE(rf->base == NULL);
    ct_tensor *q = ct_rot90(a, 1, 2, (int64_t[]){0, 1});
    CT_ASSERT_OK(q);
    CT_ASSERT_STRIDES(q, 2, 1, 3);
    CT_ASSERT_VALUES(q, 0, 2, 5, 1, 4, 0, 3);
    CT_ASSERT_TRUE(ct_flip(a, 2, (int64_t[]){0, 0}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "dim 0 appears multiple times in the list of dims");
    CT_ASSERT_TRUE(ct_roll(a, 2, (int64_t[]){1, 2}, 1, (int64_t[]){0}) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "shifts and dimensions must align. shifts: 2, dims:1");
    ct_tensor_decref(q);
    ct_tensor_decref(rf);
    ct_tensor_decref(r);
    ct_tensor_decref(g);
    ct_tensor_decref(f);
    ct_tensor_decref(at);
    ct_tensor_decref(a);
}

TEST_IMPL(shape_axis_split_atleast)
{
    ct_tensor_list l = {0, NULL};
    ct_tensor *t = ct_test_iota(CT_DTYPE_UINT8, 3, s234);
    CT_ASSERT_OK(t);
    CT_ASSERT_RC_OK(ct_axis_split(t, CT_SPLIT_D, 2, 0, NULL, &l));
    CT_ASSERT_EQ_INT(l.n, 2);
    CT_ASSERT_SHAPE(l.items[1], 3, 2, 3, 2);
    CT_ASSERT_EQ_INT(l.items[1]->offset, 2);
    ct_tensor_list_clear(&l);
    CT_ASSERT_RC_OK(ct_axis_split(t, CT_SPLIT_H, 0, 1, (int64_t[]){1}, &l));
    CT_ASSERT_EQ_INT(l.n, 2);
    CT_ASSERT_SHAPE(l.items[1], 3, 2, 2, 4);
    ct_tensor_list_clear(&l);
    CT_ASSERT_TRUE(ct_axis_split(t, CT_SPLIT_V, 3, 0, NULL, &l) == -1);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "torch.vsplit attempted to split along dimension "
                    "0, but the size of the dimension 2 is not divisible by the "
                    "split_size 3!");
    ct_tensor *s = ct_select(t, 0, 1);
    CT_ASSERT_OK(s);
    ct_tensor *r = ct_select(s, 0, 2);          /* 1-D: 20, 21, 22, 23 */
    CT_ASSERT_OK(r);
    ct_tensor *a3 = ct_atleast(r, 3);
    CT_ASSERT_OK(a3);
    CT_ASSERT_SHAPE(a3, 3, 1, 4, 1);
    CT_ASSERT_VIEW_OF(a3, t);
    CT_ASSERT_VALUES(a3, 0, 20, 21, 22, 23);
    ct_tensor *same = ct_atleast(t, 2);
    CT_ASSERT_TRUE(same == t);
    ct_tensor_decref(same);
    ct_tensor_decref(a3);
    ct_tensor_decref(r);
    ct_tensor_decref(s);
    ct_tensor_decref(t);
}
