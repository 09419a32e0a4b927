/* aten/cpu/sort_unique.c -- unique(dim=) and unique_consecutive (with and
 * without dim).
 *
 * Note [unique along a dim]
 * As torch 1.13's CPU kernel does: t is viewed with dim swapped to the
 * front (a transpose, not movedim: it decides which element of a slice
 * compares first) and copied contiguous, so slice r is row r of m
 * elements.  unique orders the row numbers with std::sort's steps (Note
 * [libstdc++ order]) by a lexicographic comparison of the elements with <
 * and > (a NaN is neither, so it decides nothing), then walks the sorted
 * rows in groups of rows equal (==, so a row with a NaN stands alone) to
 * the group's first; unique_consecutive walks the rows in input order.
 * The result holds the first row of each group, transposed back: a view,
 * laid out as torch's.  Without dim, unique_consecutive is the same walk
 * over the flattened elements (rows of one).  Device tensors branch to
 * aten/device_count.c after the checks.
 */
#include "aten/device.h"
#include "aten/cpu/sort_impl.h"

typedef struct {
    const char *data;
    int64_t m;                  /* elements per row */
} rows;

typedef bool (*row_eq_fn)(const char *a, const char *b, int64_t m);

/* Per dtype: rows a < b lexicographically, and rows equal. */
#define X(E, T, S, A)                                                         \
    static bool row_less_##S(const void *ctx, int64_t a, int64_t b)           \
    {                                                                         \
        const rows *r = ctx;                                                  \
        const T *x = (const T *)r->data + a * r->m;                           \
        const T *y = (const T *)r->data + b * r->m;                           \
        for (int64_t i = 0; i < r->m; i++) {                                  \
            A u = ct__load_##S(x + i), w = ct__load_##S(y + i);               \
            if (u < w) {                                                      \
                return true;                                                  \
            }                                                                 \
            if (u > w) {                                                      \
                return false;                                                 \
            }                                                                 \
        }                                                                     \
        return false;                                                         \
    }                                                                         \
    static bool row_eq_##S(const char *a, const char *b, int64_t m)           \
    {                                                                         \
        const T *x = (const T *)a, *y = (const T *)b;                         \
        for (int64_t i = 0; i < m; i++) {                                     \
            if (ct__load_##S(x + i) != ct__load_##S(y + i)) {                 \
                return false;                                                 \
            }                                                                 \
        }                                                                     \
        return true;                                                          \
    }
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

static const ct__stl_less_fn row_less_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = row_less_##S,
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
};

static const row_eq_fn row_eq_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = row_eq_##S,
    CT_FORALL_NUMERIC_DTYPES(X)
#undef X
};

/* torch has neither kernel for float16 (nor quantized types). */
static int
check_dtype(const char *name, const ct_tensor *t)
{
    if (t->dtype == CT_DTYPE_FLOAT16 || row_less_fns[t->dtype] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

/* Store NULL in each result pointer given. */
static void
clear_results(ct_tensor **values, ct_tensor **inverse, ct_tensor **counts)
{
    *values = NULL;
    if (inverse != NULL) {
        *inverse = NULL;
    }
    if (counts != NULL) {
        *counts = NULL;
    }
}

/* Drop the results stored so far (on failure). */
static void
drop_results(ct_tensor **values, ct_tensor **inverse, ct_tensor **counts)
{
    ct_tensor_decref(*values);
    if (inverse != NULL) {
        ct_tensor_decref(*inverse);
    }
    if (counts != NULL) {
        ct_tensor_decref(*counts);
    }
    clear_results(values, inverse, counts);
}

/* Allocate the results: values shaped vsizes, inverse (when wanted)
 * shaped isizes, counts (when wanted) of ngroups.  0, or -1 with none
 * stored. */
static int
alloc_results(const ct_tensor *t, int vnd, const int64_t *vsizes, int ind,
              const int64_t *isizes, int64_t ngroups, ct_tensor **values,
              ct_tensor **inverse, ct_tensor **counts)
{
    ct_device dev = ct_tensor_device(t);
    if ((*values = ct_empty(vnd, vsizes, t->dtype, dev)) == NULL ||
        (inverse != NULL &&
         (*inverse = ct_empty(ind, isizes, CT_DTYPE_INT64, dev)) == NULL) ||
        (counts != NULL &&
         (*counts = ct_empty(1, &ngroups, CT_DTYPE_INT64, dev)) == NULL)) {
        drop_results(values, inverse, counts);
        return -1;
    }
    return 0;
}

/* Walk the rows of `in` (contiguous, nrows x m, nrows > 0) in sorted
 * (unless consecutive) order, grouping equal rows: values shaped vsizes
 * with vsizes[0] replaced by the number of groups, inverse (when wanted)
 * shaped isizes, counts (when wanted).  0, or -1 with none stored. */
static int
group_rows(const ct_tensor *in, int64_t nrows, int64_t m, bool consecutive,
           int vnd, const int64_t *vsizes, int ind, const int64_t *isizes,
           ct_tensor **values, ct_tensor **inverse, ct_tensor **counts)
{
    size_t nbytes = 3 * (size_t)nrows * sizeof(int64_t);
    int64_t *order = ct__sort_scratch(nbytes);
    int64_t sizes[CT_MAX_DIMS];
    if (order == NULL) {
        return -1;
    }
    int64_t *first = order + nrows, *size = first + nrows;  /* per group */
    const char *data = ct_tensor_data(in);
    size_t rowbytes = (size_t)m * ct_dtype_itemsize(in->dtype);
    row_eq_fn eq = row_eq_fns[in->dtype];
    rows r = {data, m};
    for (int64_t k = 0; k < nrows; k++) {
        order[k] = k;
    }
    if (!consecutive) {
        ct__stl_sort(order, nrows, row_less_fns[in->dtype], &r);
    }
    int64_t g = 0;
    for (int64_t k = 0; k < nrows; k++) {
        const char *row = data + order[k] * (int64_t)rowbytes;
        if (k == 0 || !eq(data + first[g - 1] * (int64_t)rowbytes, row, m)) {
            first[g] = order[k];
            size[g++] = 0;
        }
        size[g - 1]++;
    }
    memcpy(sizes, vsizes, (size_t)vnd * sizeof *sizes);
    sizes[0] = g;
    if (alloc_results(in, vnd, sizes, ind, isizes, g, values, inverse, counts) < 0) {
        ct__sort_scratch_free(order, nbytes);
        return -1;
    }
    char *vp = ct_tensor_data(*values);
    int64_t *ip = inverse != NULL ? (int64_t *)ct_tensor_data(*inverse) : NULL;
    for (int64_t k = 0, j = 0; k < g; k++) {
        memcpy(vp + k * (int64_t)rowbytes, data + first[k] * (int64_t)rowbytes,
               rowbytes);
        for (int64_t e = j + size[k]; ip != NULL && j < e; j++) {
            ip[order[j]] = k;
        }
    }
    if (counts != NULL) {
        memcpy(ct_tensor_data(*counts), size, (size_t)g * sizeof *size);
    }
    ct__sort_scratch_free(order, nbytes);
    return 0;
}

int
ct_unique_dim(const ct_tensor *t, int64_t dim, bool consecutive, ct_tensor **values,
              ct_tensor **inverse, ct_tensor **counts)
{
    ct_tensor *tr = NULL, *in = NULL, *v = NULL;
    int64_t zero = 0;
    int rc = -1;
    clear_results(values, inverse, counts);
    if (check_dtype("unique_dim", t) < 0) {
        return -1;
    }
    if (t->ndim == 0) {
        return ct_error(CT_ERR_INDEX, "Dimension specified as %lld but tensor has no "
                        "dimensions", (long long)dim);
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return -1;
    }
    if (t->numel == 0) {
        /* torch: t's shape when dim is its only size-0 dim, else an error */
        int zeros = 0;
        for (int i = 0; i < t->ndim; i++) {
            zeros += t->sizes[i] == 0;
        }
        if (t->sizes[d] != 0) {
            return ct_error(CT_ERR_RUNTIME, "There are 0 sized dimensions, and they "
                            "aren't selected, so unique cannot be applied");
        }
        if (zeros > 1) {
            return ct_error(CT_ERR_RUNTIME, "Number of zero sized dimensions is more "
                            "than one, so unique cannot be applied ");
        }
        return alloc_results(t, t->ndim, t->sizes, 1, &zero, 0, values, inverse,
                             counts);
    }
    if (ct__is_device(t)) {
        return ct__device_unique_dim(t, d, consecutive, values, inverse, counts);
    }
    if ((tr = ct_transpose(t, 0, d)) == NULL || (in = ct_contiguous(tr)) == NULL) {
        goto done;
    }
    int64_t nrows = in->sizes[0];
    if (group_rows(in, nrows, in->numel / nrows, consecutive, in->ndim, in->sizes, 1,
                   &nrows, values, inverse, counts) < 0) {
        goto done;
    }
    /* the values back in t's dim order: a view, as torch's */
    v = *values;
    if ((*values = ct_transpose(v, 0, d)) == NULL) {
        drop_results(values, inverse, counts);
        goto done;
    }
    rc = 0;
done:
    ct_tensor_decref(tr);
    ct_tensor_decref(in);
    ct_tensor_decref(v);
    return rc;
}

int
ct_unique_consecutive(const ct_tensor *t, ct_tensor **values, ct_tensor **inverse,
                      ct_tensor **counts)
{
    ct_tensor *in = NULL;
    int64_t n = t->numel;
    int rc;
    clear_results(values, inverse, counts);
    if (check_dtype("unique", t) < 0) {
        return -1;
    }
    if (n == 0) {
        return alloc_results(t, 1, &n, t->ndim, t->sizes, 0, values, inverse, counts);
    }
    if (ct__is_device(t)) {
        return ct__device_unique_consecutive(t, values, inverse, counts);
    }
    if ((in = ct_contiguous(t)) == NULL) {
        return -1;
    }
    rc = group_rows(in, n, 1, true, 1, &n, t->ndim, t->sizes, values, inverse, counts);
    ct_tensor_decref(in);
    return rc;
}
