/* aten/cpu/random_multinomial.c -- torch.multinomial (specs/rng.md
 * section 7), PyTorch 1.13's two routes.
 *
 * Without replacement: q ~ Exp(1) shaped like probs, then the indices of
 * the largest probs / q per row (argmax for one sample, topk for more):
 * the Gumbel-max trick.  With replacement: per row, the normalized
 * cumulative distribution in the probs' compute type (float for
 * bfloat16, as PyTorch's specialization), and a binary search of it for
 * each 53-bit uniform.  PyTorch 1.13 has no half multinomial on the CPU.
 * On a device (half included, as PyTorch's CUDA): the same Gumbel route
 * there, and aten/device_sampling.c's route with replacement.
 */
#include "aten/device.h"
#include <string.h>

#include "aten/random_impl.h"

/* One row with replacement: k samples into out (stride os, elements).
 * cum holds K values of the compute type.  The lock is held. */
#define X(E, T, S, A)                                                         \
    static int multinomial_row_##S(ct__mt *mt, const char *row, int64_t rs,   \
                                   int64_t ncat, void *cumv, int64_t *out,    \
                                   int64_t os, int64_t k)                     \
    {                                                                         \
        A *cum = cumv;                                                        \
        A sum = 0;                                                            \
        for (int64_t j = 0; j < ncat; j++) {                                  \
            A v = ct__load_##S((const T *)(row + j * rs));                    \
            if (!(v >= 0)) {                                                  \
                return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution " \
                                "(encountering probability entry < 0)");      \
            }                                                                 \
            if (!isfinite(v)) {                                               \
                return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution " \
                                "(encountering probability entry = infinity or NaN)"); \
            }                                                                 \
            sum += v;                                                         \
            cum[j] = sum;                                                     \
        }                                                                     \
        if (!(sum > 0)) {                                                     \
            return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution " \
                            "(sum of probabilities <= 0)");                   \
        }                                                                     \
        for (int64_t j = 0; j < ncat; j++) {                                  \
            cum[j] /= sum;                                                    \
        }                                                                     \
        cum[ncat - 1] = 1;                                                    \
        for (int64_t s = 0; s < k; s++) {                                     \
            double u = ct__u53(ct__random64(mt));                             \
            int64_t lo = 0, hi = ncat;                                        \
            while (hi > lo) {                                                 \
                int64_t mid = lo + (hi - lo) / 2;                             \
                if ((double)cum[mid] < u) {                                   \
                    lo = mid + 1;                                             \
                }                                                             \
                else {                                                        \
                    hi = mid;                                                 \
                }                                                             \
            }                                                                 \
            out[s * os] = lo;                                                 \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

typedef int (*row_fn)(ct__mt *mt, const char *row, int64_t rs, int64_t ncat, void *cum,
                      int64_t *out, int64_t os, int64_t k);

static const row_fn multinomial_rows[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = multinomial_row_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* the cumulative buffer is of the compute type */
static const ct_dtype compute_dtype[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = CT_DTYPE_FLOAT32,
    [CT_DTYPE_FLOAT32] = CT_DTYPE_FLOAT32,
    [CT_DTYPE_FLOAT64] = CT_DTYPE_FLOAT64,
    [CT_DTYPE_BFLOAT16] = CT_DTYPE_FLOAT32,
};

static int
with_replacement(const ct_tensor *probs, int64_t k, ct_tensor *result, ct_generator *gen)
{
    int64_t ncat = probs->sizes[probs->ndim - 1];
    int64_t ndist = probs->ndim == 2 ? probs->sizes[0] : 1;
    int64_t item = (int64_t)ct_dtype_itemsize(probs->dtype);
    int64_t rs = probs->strides[probs->ndim - 1] * item;
    int64_t ds = probs->ndim == 2 ? probs->strides[0] * item : 0;
    ct_tensor *cum = ct_empty(1, &ncat, compute_dtype[probs->dtype], ct_device_cpu());
    if (cum == NULL) {
        return -1;
    }
    int64_t *out = (int64_t *)ct_tensor_data(result);
    int64_t os = result->strides[result->ndim - 1];
    int64_t rows = result->ndim == 2 ? result->strides[0] : 0;
    int rc = 0;
    ct_generator *g = ct__gen_acquire(gen);
    for (int64_t i = 0; rc == 0 && i < ndist; i++) {
        rc = multinomial_rows[probs->dtype](&g->mt, ct_tensor_data(probs) + i * ds, rs,
                                            ncat, ct_tensor_data(cum), out + i * rows, os,
                                            k);
    }
    ct__gen_release(g);
    ct_tensor_decref(cum);
    return rc;
}

/* True (with the error set) unless every value is finite and >= 0 and no
 * row sums to 0 (the rows' sums are >= 0 then: their least is read).
 * Reductions and single reads, so a device's probs stay there. */
static int
check_probs(const ct_tensor *probs)
{
    ct_tensor *mx = ct_max(probs), *mn = ct_min(probs);
    int64_t last = -1;
    ct_tensor *sums = ct_sum(probs, 1, &last, false, CT_DTYPE_COUNT);
    ct_tensor *least = sums != NULL ? ct_min(sums) : NULL;
    ct_scalar a, b, c;
    int rc = -1;
    if (mx == NULL || mn == NULL || least == NULL || ct_tensor_item(mx, &a) < 0 ||
        ct_tensor_item(mn, &b) < 0 || ct_tensor_item(least, &c) < 0) {
        goto done;
    }
    if (!(ct_scalar_to_double(a) < INFINITY && ct_scalar_to_double(b) >= 0)) {
        ct_error(CT_ERR_RUNTIME, "probability tensor contains either `inf`, `nan` or "
                 "element < 0");
        goto done;
    }
    if (ct_scalar_to_double(c) == 0) {
        ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of "
                 "probabilities <= 0)");
        goto done;
    }
    rc = 0;
done:
    ct_tensor_decref(mx);
    ct_tensor_decref(mn);
    ct_tensor_decref(sums);
    ct_tensor_decref(least);
    return rc;
}

/* argmax / topk of probs / Exp(1) along the last dim into result, on
 * probs' device. */
static int
without_replacement(const ct_tensor *probs, int64_t k, ct_tensor *result,
                    ct_generator *gen)
{
    int64_t strides[CT_MAX_DIMS];
    ct_tensor *q = NULL, *ratio = NULL, *idx = NULL, *vals = NULL;
    int rc = -1;

    if (check_probs(probs) < 0) {
        return -1;
    }
    /* empty_like: a dense layout is kept, so the draws follow it */
    if (ct_tensor_is_non_overlapping_and_dense(probs)) {
        memcpy(strides, probs->strides, sizeof(int64_t) * (size_t)probs->ndim);
    }
    else {
        ct_contiguous_strides(probs->ndim, probs->sizes, strides);
    }
    q = ct_empty_strided(probs->ndim, probs->sizes, strides, probs->dtype,
                         ct_tensor_device(probs));
    if (q == NULL || ct_exponential_(q, 1.0, gen) < 0 ||
        (ratio = ct_div(probs, q)) == NULL) {
        goto done;
    }
    if (ratio->dtype == CT_DTYPE_FLOAT16) {
        /* (only a device's: the CPU refuses half) topk has no half kernel;
         * float keeps every half's order and ties */
        ct_tensor *wide = ct_to_dtype(ratio, CT_DTYPE_FLOAT32, false);
        ct_tensor_decref(ratio);
        if ((ratio = wide) == NULL) {
            goto done;
        }
    }
    int64_t last = probs->ndim - 1;
    if (k == 1) {
        idx = ct_argmax(ratio, &last, true);
    }
    else if (ct_topk(ratio, k, last, true, true, &vals, &idx) < 0) {
        idx = NULL;
    }
    if (idx != NULL) {
        rc = ct_copy_(result, idx);
    }
done:
    ct_tensor_decref(q);
    ct_tensor_decref(ratio);
    ct_tensor_decref(vals);
    ct_tensor_decref(idx);
    return rc;
}

ct_tensor *
ct_multinomial(const ct_tensor *probs, int64_t k, bool replacement, ct_generator *gen)
{
    /* (a device's generator is checked when it draws) */
    bool device = ct__is_device(probs);
    if (!device && ct__gen_check_cpu(gen) < 0) {
        return NULL;
    }
    if (probs->ndim < 1 || probs->ndim > 2) {
        ct_error(CT_ERR_RUNTIME, "prob_dist must be 1 or 2 dim");
        return NULL;
    }
    if (!ct_dtype_is_floating(probs->dtype)) {
        ct_error(CT_ERR_RUNTIME, "multinomial only supports floating-point dtypes for "
                 "input, got: %s", ct_dtype_table[probs->dtype].legacy);
        return NULL;
    }
    if (probs->dtype == CT_DTYPE_FLOAT16 && !device) {
        ct_error(CT_ERR_RUNTIME, "multinomial is not implemented for half on CPU");
        return NULL;
    }
    if (k <= 0) {
        ct_error(CT_ERR_RUNTIME, "cannot sample n_sample <= 0 samples");
        return NULL;
    }
    int64_t ncat = probs->sizes[probs->ndim - 1];
    if (!replacement && k > ncat) {
        ct_error(CT_ERR_RUNTIME, "cannot sample n_sample > prob_dist.size(-1) samples "
                 "without replacement");
        return NULL;
    }
    if (ncat > (INT64_C(1) << 24)) {
        ct_error(CT_ERR_RUNTIME, "number of categories cannot exceed 2^24");
        return NULL;
    }
    int64_t shape[2] = {probs->sizes[0], k};
    ct_device dev = ct_tensor_device(probs);
    ct_tensor *result = probs->ndim == 1 ? ct_empty(1, &k, CT_DTYPE_INT64, dev)
                                         : ct_empty(2, shape, CT_DTYPE_INT64, dev);
    if (result == NULL || result->numel == 0) {
        return result;
    }
    int rc = !replacement ? without_replacement(probs, k, result, gen)
             : device     ? ct__device_multinomial(probs, k, result, gen)
                          : with_replacement(probs, k, result, gen);
    if (rc < 0) {
        ct_tensor_decref(result);
        return NULL;
    }
    return result;
}
