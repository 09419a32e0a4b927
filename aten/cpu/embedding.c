/* aten/cpu/embedding.c -- embedding lookup, its dense backward and
 * embedding_renorm_ (include/ctorch/ops_nn.h), as torch 1.13's CPU
 * kernels compute them. */
#include "aten/device_compose.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/cpu_impl.h"
#include "c10/convert.h"

/* --- leaf loops: one row of a floating dtype ------------------------------ */
typedef struct {
    /* dst += src * scale (in the compute type) */
    void (*axpy)(void *dst, const void *src, int64_t n, double scale);
    /* dst *= scale */
    void (*scale)(void *dst, int64_t n, double scale);
    /* the norm_type-norm of a row, in double */
    double (*norm)(const void *row, int64_t n, double p);
} row_ops;

#define ROW_LEAVES(E, T, S, A)                                                   \
    static void axpy_##S(void *dv, const void *sv, int64_t n, double scale)      \
    {                                                                            \
        T *d = dv;                                                               \
        const T *s = sv;                                                         \
        const A k = (A)scale;                                                    \
        for (int64_t i = 0; i < n; i++) {                                        \
            ct__store_##S(d + i, ct__load_##S(d + i) + ct__load_##S(s + i) * k); \
        }                                                                        \
    }                                                                            \
    static void scale_##S(void *dv, int64_t n, double scale)                     \
    {                                                                            \
        T *d = dv;                                                               \
        const A k = (A)scale;                                                    \
        for (int64_t i = 0; i < n; i++) {                                        \
            ct__store_##S(d + i, ct__load_##S(d + i) * k);                       \
        }                                                                        \
    }                                                                            \
    static double norm_##S(const void *rv, int64_t n, double p)                  \
    {                                                                            \
        const T *r = rv;                                                         \
        double acc = 0;                                                          \
        for (int64_t i = 0; i < n; i++) {                                        \
            double a = fabs((double)ct__load_##S(r + i));                        \
            if (isinf(p)) {                                                      \
                acc = p > 0 ? (a > acc ? a : acc) : (i == 0 || a < acc ? a : acc); \
            }                                                                    \
            else if (p == 0) {                                                   \
                acc += a != 0;                                                   \
            }                                                                    \
            else if (p == 1) {                                                   \
                acc += a;                                                        \
            }                                                                    \
            else if (p == 2) {                                                   \
                acc += a * a;                                                    \
            }                                                                    \
            else {                                                               \
                acc += pow(a, p);                                                \
            }                                                                    \
        }                                                                        \
        if (isinf(p) || p == 0 || p == 1) {                                      \
            return acc;                                                          \
        }                                                                        \
        return p == 2 ? sqrt(acc) : pow(acc, 1 / p);                             \
    }
CT_FORALL_FLOATING_DTYPES(ROW_LEAVES)
#undef ROW_LEAVES

static const row_ops row_table[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = {axpy_##S, scale_##S, norm_##S},
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* torch's checkScalarTypes message for indices that are not int64 / int32. */
static int
check_indices(const char *fn, int argno, const char *arg, const ct_tensor *indices)
{
    if (indices->dtype == CT_DTYPE_INT64 || indices->dtype == CT_DTYPE_INT32) {
        return 0;
    }
    return ct_error(
        CT_ERR_RUNTIME,
        "Expected tensor for argument #%d '%s' to have one of "
        "the following scalar types: Long, Int; but got torch.%sTensor instead "
        "(while checking arguments for %s)",
        argno, arg, ct_dtype_table[indices->dtype].legacy, fn);
}

static int
check_weight_2d(bool renorm, const ct_tensor *weight)
{
    if (weight->ndim == 2) {
        return 0;
    }
    if (!renorm) {
        return ct_error(CT_ERR_RUNTIME, "'weight' must be 2-D");
    }
    return ct_error(CT_ERR_RUNTIME,
                    "Expected 2-dimensional tensor, but got %d-dimensional "
                    "tensor for argument #1 'self' (while checking arguments for "
                    "embedding_renorm_)",
                    weight->ndim);
}

/* The indices as a contiguous int64 tensor. */
static ct_tensor *
flat_indices(const ct_tensor *indices)
{
    ct_tensor *l = ct_to_dtype(indices, CT_DTYPE_INT64, false);
    ct_tensor *c = l != NULL ? ct_contiguous(l) : NULL;
    ct_tensor_decref(l);
    return c;
}

ct_tensor *
ct_embedding(const ct_tensor *weight, const ct_tensor *indices)
{
    if (check_weight_2d(false, weight) < 0 ||
        check_indices("embedding", 1, "indices", indices) < 0) {
        return NULL;
    }
    /* on a device: index_select's device path (a gather) does the rest */
    if (ct__same_device((const ct_tensor *const[]){weight, indices}, 2) < 0) {
        return NULL;
    }
    if (indices->ndim == 1) {
        return ct_index_select(weight, 0, indices);
    }
    /* weight.index_select(0, indices.reshape(-1)).view(indices.shape + [D]) */
    int64_t all = -1, sizes[CT_MAX_DIMS];
    if (indices->ndim + 1 > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "embedding: too many dimensions");
        return NULL;
    }
    ct_tensor *flat = ct_reshape(indices, 1, &all);
    ct_tensor *rows = flat != NULL ? ct_index_select(weight, 0, flat) : NULL;
    ct_tensor_decref(flat);
    if (rows == NULL) {
        return NULL;
    }
    /* rows is new and contiguous: reshape it in place rather than hand
     * out a view of a temporary */
    int64_t strides[CT_MAX_DIMS];
    memcpy(sizes, indices->sizes, sizeof(int64_t) * (size_t)indices->ndim);
    sizes[indices->ndim] = weight->sizes[1];
    ct_contiguous_strides(indices->ndim + 1, sizes, strides);
    if (!ct_tensor_is_contiguous(rows) ||
        ct_tensor_set_geometry(rows, indices->ndim + 1, sizes, strides) < 0) {
        ct_tensor *v = ct_reshape(rows, indices->ndim + 1, sizes);
        ct_tensor_decref(rows);
        return v;
    }
    return rows;
}

/* The dense backward on a device: grad's rows (zeroed at padding_idx,
 * scaled by 1 / count with scale_grad_by_freq) added into zeros at their
 * indices with the scatter_add kernel.  Its atomics add a row's repeated
 * indices in no set order, so float sums may differ from the CPU's (and
 * from run to run) in rounding, as PyTorch's CUDA backward may. */
static ct_tensor *
dense_backward_device(const ct_tensor *grad, const ct_tensor *indices, int64_t num_weights,
                      int64_t padding_idx, bool scale_grad_by_freq)
{
    if (ct__same_device((const ct_tensor *const[]){grad, indices}, 2) < 0) {
        return NULL;
    }
    ct_device dev = ct_tensor_device(grad);
    int64_t D = grad->ndim > 0 ? grad->sizes[grad->ndim - 1] : 1;
    int64_t K = indices->numel;
    int64_t gshape[2] = {K, D}, kshape[2] = {K, 1}, wshape[2] = {num_weights, D};
    if (grad->numel != K * D) {
        ct_error(CT_ERR_RUNTIME, "embedding_backward: grad has %lld elements, expected %lld",
                 (long long)grad->numel, (long long)(K * D));
        return NULL;
    }
    bool bad = false;
    int64_t first = 0;
    ct_tensor *flat = flat_indices(indices);
    ct_tensor *idx = flat != NULL ? ct_view(flat, 1, &K) : NULL;
    ct_tensor_decref(flat);
    if (idx == NULL || ct__device_index_check(idx, 0, num_weights, &bad, &first) < 0) {
        ct_tensor_decref(idx);
        return NULL;
    }
    if (bad) {
        ct_tensor_decref(idx);
        ct_error(CT_ERR_INDEX, "index out of range in self");
        return NULL;
    }
    temps s = {0};
    ct_tensor *gw = NULL;
    tmp(&s, idx);
    ct_tensor *col = tmp(&s, ct_view(idx, 2, kshape));
    ct_tensor *g = tmp(&s, ct_reshape(grad, 2, gshape));
    ct_tensor *zero = tmp(&s, ct_zeros_on(0, NULL, grad->dtype, dev));
    ct_tensor *keep = bin(&s, CT_BINARY_NE, col, scalar(&s, ct_scalar_int(padding_idx)));
    ct_tensor *rows = keep && g && zero ? tmp(&s, ct_where(keep, g, zero)) : NULL;
    if (rows != NULL && scale_grad_by_freq) {
        /* count[w] = how often w occurs; each row scaled by 1 / count */
        ct_tensor *ones = tmp(&s, ct_ones(1, &K, CT_DTYPE_FLOAT64));
        ct_tensor *od = ones ? tmp(&s, ct_to_device(ones, dev)) : NULL;
        ct_tensor *counts = od ? tmp(&s, ct_zeros_on(1, &num_weights, CT_DTYPE_FLOAT64, dev))
                               : NULL;
        /* (a gather: the indices are checked already) */
        ct_tensor *c = counts ? tmp(&s, ct_empty(1, &K, CT_DTYPE_FLOAT64, dev)) : NULL;
        if (c == NULL || ct__device_scatter_add(counts, idx, od, 0) < 0 ||
            ct__device_gather(c, counts, idx, 0) < 0) {
            rows = NULL;
        }
        else {
            ct_tensor *inv = bin(&s, CT_BINARY_DIV, scalar(&s, ct_scalar_float(1.0)),
                                 tmp(&s, ct_view(c, 2, kshape)));
            rows = bin(&s, CT_BINARY_MUL, rows, in_dtype(&s, inv, grad->dtype));
        }
    }
    ct_tensor *e = rows ? tmp(&s, ct_expand(col, 2, gshape)) : NULL;
    gw = e ? ct_zeros_on(2, wshape, grad->dtype, dev) : NULL;
    if (gw != NULL && ct__device_scatter_add(gw, e, rows, 0) < 0) {
        ct_tensor_decref(gw);
        gw = NULL;
    }
    temps_free(&s);
    return gw;
}

ct_tensor *
ct_embedding_dense_backward(const ct_tensor *grad, const ct_tensor *indices,
                            int64_t num_weights, int64_t padding_idx,
                            bool scale_grad_by_freq)
{
    ct_tensor *idx = NULL, *g = NULL, *gw = NULL;
    int64_t *counts = NULL;

    if (check_indices("embedding_backward", 2, "indices", indices) < 0) {
        return NULL;
    }
    if (!ct_dtype_is_floating(grad->dtype)) {
        ct_error(CT_ERR_RUNTIME,
                 "\"embedding_dense_backward\" not implemented for '%s'",
                 ct_dtype_table[grad->dtype].legacy);
        return NULL;
    }
    if (ct__is_device(grad) || ct__is_device(indices)) {
        return dense_backward_device(grad, indices, num_weights, padding_idx,
                                     scale_grad_by_freq);
    }
    int64_t D = grad->ndim > 0 ? grad->sizes[grad->ndim - 1] : 1;
    int64_t K = indices->numel;
    int64_t shape[2] = {num_weights, D};
    if ((idx = flat_indices(indices)) == NULL || (g = ct_contiguous(grad)) == NULL ||
        (gw = ct_zeros(2, shape, grad->dtype)) == NULL) {
        goto fail;
    }
    if (g->numel != K * D) {
        ct_error(CT_ERR_RUNTIME,
                 "embedding_backward: grad has %lld elements, expected %lld",
                 (long long)g->numel, (long long)(K * D));
        goto fail;
    }
    const int64_t *ip = (const int64_t *)ct_tensor_data(idx);
    for (int64_t k = 0; k < K; k++) {
        if (ip[k] < 0 || ip[k] >= num_weights) {
            ct_error(CT_ERR_INDEX, "index out of range in self");
            goto fail;
        }
    }
    if (scale_grad_by_freq) {
        counts = calloc((size_t)(num_weights > 0 ? num_weights : 1), sizeof *counts);
        if (counts == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory in embedding's backward");
            goto fail;
        }
        for (int64_t k = 0; k < K; k++) {
            counts[ip[k]]++;
        }
    }
    /* torch adds the rows in index order: grad_weight[k] += grad[i] * scale */
    const row_ops *ops = &row_table[grad->dtype];
    size_t z = ct_dtype_itemsize(grad->dtype);
    char *dst = ct_tensor_data(gw);
    const char *src = ct_tensor_data(g);
    for (int64_t k = 0; k < K; k++) {
        int64_t w = ip[k];
        if (w == padding_idx) {
            continue;
        }
        double scale = counts != NULL ? 1.0 / (double)counts[w] : 1.0;
        ops->axpy(dst + w * D * (int64_t)z, src + k * D * (int64_t)z, D, scale);
    }
    free(counts);
    ct_tensor_decref(idx);
    ct_tensor_decref(g);
    return gw;
fail:
    free(counts);
    ct_tensor_decref(idx);
    ct_tensor_decref(g);
    ct_tensor_decref(gw);
    return NULL;
}

static int
cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int
ct_embedding_renorm_(ct_tensor *weight, const ct_tensor *indices, double max_norm,
                     double norm_type)
{
    if (ct__host_only((const ct_tensor *const[]){weight, indices}, 2) < 0) {
        return -1;
    }
    if (check_weight_2d(true, weight) < 0 ||
        check_indices("embedding_renorm_", 2, "indices", indices) < 0) {
        return -1;
    }
    if (!ct_dtype_is_floating(weight->dtype)) {
        return ct_error(CT_ERR_RUNTIME,
                        "\"embedding_renorm_cpu_\" not implemented for '%s'",
                        ct_dtype_table[weight->dtype].legacy);
    }
    ct_tensor *idx = flat_indices(indices);
    if (idx == NULL) {
        return -1;
    }
    int64_t K = idx->numel;
    int64_t *sorted = malloc(sizeof(int64_t) * (size_t)(K > 0 ? K : 1));
    if (sorted == NULL) {
        ct_tensor_decref(idx);
        return ct_error(CT_ERR_NOMEM, "out of memory in embedding_renorm_");
    }
    memcpy(sorted, ct_tensor_data(idx), sizeof(int64_t) * (size_t)K);
    ct_tensor_decref(idx);
    qsort(sorted, (size_t)K, sizeof *sorted, cmp_i64);
    int rc = 0;
    const row_ops *ops = &row_table[weight->dtype];
    int64_t D = weight->sizes[1];
    for (int64_t k = 0; k < K; k++) {
        if (k > 0 && sorted[k] == sorted[k - 1]) {
            continue;
        }
        if (sorted[k] < 0 || sorted[k] >= weight->sizes[0]) {
            rc = ct_error(CT_ERR_INDEX,
                          "select(): index %lld out of range for tensor of "
                          "size [%lld, %lld] at dimension 0",
                          (long long)sorted[k], (long long)weight->sizes[0],
                          (long long)weight->sizes[1]);
            break;
        }
        /* a row may be strided: go through a contiguous copy when it is */
        ct_tensor *row = ct_select(weight, 0, sorted[k]);
        if (row == NULL) {
            rc = -1;
            break;
        }
        bool dense = row->ndim == 1 && (row->strides[0] == 1 || D <= 1);
        ct_tensor *c = dense ? row : ct_contiguous(row);
        if (c == NULL) {
            ct_tensor_decref(row);
            rc = -1;
            break;
        }
        double norm = ops->norm(ct_tensor_data(c), D, norm_type);
        if (norm > max_norm) {
            double scale = max_norm / (norm + 1e-7);
            ops->scale(ct_tensor_data(c), D, scale);
            if (!dense && ct_copy_(row, c) < 0) {
                rc = -1;
            }
        }
        if (!dense) {
            ct_tensor_decref(c);
        }
        ct_tensor_decref(row);
        if (rc < 0) {
            break;
        }
    }
    free(sorted);
    return rc;
}
