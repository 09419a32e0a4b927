/* examples/c/demo.c -- libctorch from plain C, no Python.
 *
 * Builds a few tensors, does broadcasting arithmetic with a type
 * promotion, prints the results with a tiny printer of its own, and shows
 * how an error comes back (NULL plus a message).  Exits 0 when everything
 * behaves as expected.
 *
 *     make build/examples/c_demo && build/examples/c_demo
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ctorch/ctorch.h>

/* Print t's elements of dimension `dim` onward, starting at element
 * `index` (row-major), torch-style nested brackets. */
static void
print_rec(const ct_tensor *t, int dim, int64_t *index, int indent)
{
    if (dim == t->ndim) {
        ct_scalar s = ct_tensor_item_at(t, (*index)++);
        if (s.kind == CT_SCALAR_FLOAT) {
            printf("%g", s.v.d);
        }
        else if (s.kind == CT_SCALAR_BOOL) {
            printf("%s", s.v.b ? "True" : "False");
        }
        else {
            printf("%lld", (long long)s.v.i);
        }
        return;
    }
    printf("[");
    for (int64_t i = 0; i < t->sizes[dim]; i++) {
        if (i > 0) {
            printf(",");
            if (dim + 1 < t->ndim) {
                printf("\n%*s", indent + dim + 1, "");
            }
            else {
                printf(" ");
            }
        }
        print_rec(t, dim + 1, index, indent);
    }
    printf("]");
}

static void
print_tensor(const char *name, const ct_tensor *t)
{
    int64_t index = 0;
    int indent = (int)strlen(name) + 3 + 7;     /* "name = tensor(" */
    printf("%s = tensor(", name);
    print_rec(t, 0, &index, indent);
    printf(", dtype=%s)\n", ct_dtype_table[t->dtype].name);
}

/* A new tensor of the given shape holding vals (as float64, then
 * converted to dtype). */
static ct_tensor *
make(ct_dtype dtype, int ndim, const int64_t *sizes, const double *vals)
{
    ct_tensor *d = ct_empty(ndim, sizes, CT_DTYPE_FLOAT64, ct_device_cpu());
    if (d == NULL) {
        return NULL;
    }
    memcpy(ct_tensor_data(d), vals, (size_t)d->numel * sizeof(double));
    ct_tensor *t = ct_to_dtype(d, dtype, false);
    ct_tensor_decref(d);
    return t;
}

static int
fail(const char *what)
{
    fprintf(stderr, "c_demo: %s failed: %s: %s\n", what,
            ct_error_name(ct_error_code()), ct_error_message());
    return 1;
}

int
main(void)
{
    int rc = 1;
    ct_tensor *a = NULL, *b = NULL, *w = NULL, *sum = NULL, *prod = NULL;
    ct_tensor *quot = NULL, *half = NULL, *bad = NULL;

    /* a: int32 [2, 3]; b: float32 [3] */
    a = make(CT_DTYPE_INT32, 2, (int64_t[]){2, 3}, (double[]){1, 2, 3, 4, 5, 6});
    b = make(CT_DTYPE_FLOAT32, 1, (int64_t[]){3}, (double[]){0.5, 1.5, -2});
    w = ct_scalar_tensor(ct_scalar_float(2.5));     /* a Python-like float */
    if (a == NULL || b == NULL || w == NULL) {
        rc = fail("creating the inputs");
        goto done;
    }
    print_tensor("a", a);
    print_tensor("b", b);

    /* int32 [2,3] + float32 [3]: broadcast rows, promote to float32 */
    sum = ct_add(a, b, ct_scalar_int(1));
    /* int32 * wrapped float: the result takes the default dtype */
    prod = ct_mul(a, w);
    /* true division of integers gives floats */
    quot = ct_div(a, a);
    if (sum == NULL || prod == NULL || quot == NULL) {
        rc = fail("arithmetic");
        goto done;
    }
    print_tensor("a + b", sum);
    print_tensor("a * 2.5", prod);
    print_tensor("a / a", quot);

    /* float16 keeps its own rounding: 1/3 in half precision */
    half = ct_full(1, (int64_t[]){2}, ct_scalar_float(1.0 / 3.0), CT_DTYPE_FLOAT16);
    if (half == NULL) {
        rc = fail("ct_full");
        goto done;
    }
    print_tensor("full(1/3, float16)", half);

    ct_scalar s;
    if (sum->dtype != CT_DTYPE_FLOAT32 || prod->dtype != CT_DTYPE_FLOAT32 ||
        ct_tensor_item_at(sum, 5).v.d != 4.0 || ct_tensor_item_at(prod, 1).v.d != 5.0 ||
        ct_tensor_item_at(quot, 4).v.d != 1.0 ||
        ct_tensor_item_at(half, 0).v.d != 0.333251953125) {
        fprintf(stderr, "c_demo: unexpected values\n");
        goto done;
    }

    /* the error path: shapes that do not broadcast */
    ct_tensor *two = make(CT_DTYPE_FLOAT32, 1, (int64_t[]){2}, (double[]){1, 2});
    if (two == NULL) {
        rc = fail("make");
        goto done;
    }
    bad = ct_mul(a, two);
    ct_tensor_decref(two);
    if (bad != NULL || !ct_error_occurred()) {
        fprintf(stderr, "c_demo: a [2, 3] * [2] should have failed\n");
        goto done;
    }
    printf("a * [1., 2.] -> %s: %s\n", ct_error_name(ct_error_code()),
           ct_error_message());
    ct_error_clear();
    if (ct_tensor_item(a, &s) == 0) {
        fprintf(stderr, "c_demo: item() of 6 elements should have failed\n");
        goto done;
    }
    printf("a.item() -> %s: %s\n", ct_error_name(ct_error_code()), ct_error_message());
    ct_error_clear();
    rc = 0;

done:
    ct_tensor_decref(bad);
    ct_tensor_decref(half);
    ct_tensor_decref(quot);
    ct_tensor_decref(prod);
    ct_tensor_decref(sum);
    ct_tensor_decref(w);
    ct_tensor_decref(b);
    ct_tensor_decref(a);
    if (rc == 0 && (ct_live_tensors() != 0 || ct_live_storages() != 0)) {
        fprintf(stderr, "c_demo: %lld tensors / %lld storages still alive\n",
                (long long)ct_live_tensors(), (long long)ct_live_storages());
        rc = 1;
    }
    return rc;
}
