/* aten/device_sampling.c -- the samplers of aten/cpu/random_*.c on a CUDA
 * device: the per-element distributions and poisson as ops of the part's
 * `random` kernel (aten/cuda/random_math.h), randperm and multinomial with
 * replacement composed of device kernels.  The CPU entry points call these
 * after their own checks of the parameters; each result is a new reference
 * (NULL, or -1, with the error set).
 *
 * Note [Device randperm]
 * Each of the n positions draws a 64-bit key (random_ over the full int64
 * range); the permutation is the order that sorts the keys (the device's
 * stable sort, Note [Device bitonic sort]).  Keys are independent and
 * uniform, so every order of n distinct keys is equally likely; equal keys
 * (probability below n^2 / 2^65) keep their positions' order, the only
 * departure from the uniform law.  PyTorch's CUDA randperm sorts random
 * keys too, but shuffles runs of equal keys and, for small n, draws fewer
 * bits: its stream is not reproduced.
 *
 * Note [Device multinomial]
 * With replacement, per row of probabilities p (in the compute type:
 * float for the 16-bit floats): the inclusive cumulative sums c (a device
 * scan), total T = c[last], and per sample w = (1 - u) T for u uniform in
 * [0, 1) (so w in (0, T]).  The sample is the count of c[j] < w, found by
 * comparing every sample with every category (in chunks that bound the
 * temporary), moved back to the nearest category at or before it with
 * p > 0 (PyTorch's CUDA kernel walks back over zero probabilities in the
 * same way; the scan's rounding could otherwise land on one).  Without
 * replacement, aten/cpu/random_multinomial.c's Gumbel route (probs / Exp(1)
 * keys, then argmax or topk) runs on the device as it is.
 */
#include "aten/device_compose.h"

#include <math.h>

#include <ctorch/ops_index.h>
#include <ctorch/ops_sort.h>

#include "aten/random_impl.h"

/* (Note [Device Poisson draws]: a try of the rejection sampler fails with
 * probability 1/4 at most, so 24 tries leave under 4e-15 to the fallback) */
#define POISSON_BLOCKS 24

/* Comparisons of samples with categories one chunk holds at most. */
#define MULTINOMIAL_CHUNK (INT64_C(1) << 24)

int
ct__device_sample(ct_tensor *t, ct_generator *gen, bool supported, const char *name,
                  ct_cuda_random_op op, double a, double b)
{
    if (!supported) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return ct__device_random(t, gen, op, a, b, 0, 0);
}

int
ct__device_randperm(ct_tensor *t, ct_generator *gen)
{
    int64_t n = t->numel;
    ct_tensor *keys = NULL, *order = NULL;
    int rc = -1;
    if (n == 0) {
        return 0;
    }
    keys = ct_empty(1, &n, CT_DTYPE_INT64, ct_tensor_device(t));
    if (keys != NULL &&
        ct__device_random(keys, gen, CT_CUDA_RANDOM_FULL64, 0, 0, 0, 0) == 0 &&
        ct__device_sort(keys, 0, false, NULL, &order) == 0) {
        rc = ct_copy_(t, order);
    }
    ct_tensor_decref(keys);
    ct_tensor_decref(order);
    return rc;
}

/* One number of a device tensor (a 0-dim result) as a double. */
static int
read_number(ct_tensor *t, double *out)
{
    ct_scalar v;
    if (t == NULL || ct_tensor_item(t, &v) < 0) {
        return -1;
    }
    *out = ct_scalar_to_double(v);
    return 0;
}

/* The CPU's checks of the rows p (ndist, ncat) and their sums (ndist, 1),
 * made with device reductions and three numbers read back.  The CPU
 * reports the first bad entry of a row; here a NaN or negative entry
 * anywhere is reported before an infinite one. */
static int
check_rows(temps *s, const ct_tensor *p, const ct_tensor *sums)
{
    double lo, hi, least_sum;
    if (read_number(tmp(s, ct_min(p)), &lo) < 0 || read_number(tmp(s, ct_max(p)), &hi) < 0 ||
        read_number(tmp(s, ct_min(sums)), &least_sum) < 0) {
        return -1;
    }
    if (!(lo >= 0)) {
        return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                        "probability entry < 0)");
    }
    if (!isfinite(hi)) {
        return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution (encountering "
                        "probability entry = infinity or NaN)");
    }
    if (!(least_sum > 0)) {
        return ct_error(CT_ERR_RUNTIME, "invalid multinomial distribution (sum of "
                        "probabilities <= 0)");
    }
    return 0;
}

/* Per row of p (ndist, ncat), the index of the last category at or before
 * each j with p > 0 (0 before the first): cummax of j where p_j > 0. */
static ct_tensor *
last_positive(temps *s, const ct_tensor *p)
{
    int64_t ncat = p->sizes[1];
    ct_tensor *j = arange_on(s, ncat, ct_tensor_device(p));
    ct_tensor *pos = bin(s, CT_BINARY_GT, p, scalar(s, ct_scalar_int(0)));
    ct_tensor *marked = bin(s, CT_BINARY_MUL, in_dtype(s, pos, CT_DTYPE_INT64), j);
    ct_tensor *values = NULL, *indices = NULL;
    if (marked == NULL || ct_cummax(marked, 1, &values, &indices) < 0) {
        return NULL;
    }
    tmp(s, indices);
    return tmp(s, values);
}

/* Samples [start, start + c) of every row into out (ndist, c): the count
 * of cum < w, clamped to the last category, moved back by prev. */
static int
sample_chunk(const ct_tensor *cum, const ct_tensor *w, const ct_tensor *prev, int64_t start,
             int64_t c, ct_tensor *out)
{
    temps s = {.n = 0};
    int64_t two = 2, ncat = cum->sizes[1];
    ct_tensor *wc = tmp(&s, ct_narrow(w, 1, start, c));
    ct_tensor *below = NULL, *count = NULL, *idx = NULL;
    if (wc != NULL) {
        ct_tensor *cu = tmp(&s, ct_unsqueeze(cum, 1));
        ct_tensor *wu = tmp(&s, ct_unsqueeze(wc, 2));
        below = bin(&s, CT_BINARY_LT, cu, wu);
    }
    count = below != NULL ? tmp(&s, ct_sum(below, 1, &two, false, CT_DTYPE_INT64)) : NULL;
    count = bin(&s, CT_BINARY_MINIMUM, count, scalar(&s, ct_scalar_int(ncat - 1)));
    idx = count != NULL ? tmp(&s, ct_gather(prev, 1, count)) : NULL;
    ct_tensor *dst = idx != NULL ? tmp(&s, ct_narrow(out, 1, start, c)) : NULL;
    int rc = dst != NULL ? ct_copy_(dst, idx) : -1;
    temps_free(&s);
    return rc;
}

int
ct__device_multinomial(const ct_tensor *probs, int64_t k, ct_tensor *result,
                       ct_generator *gen)
{
    temps s = {.n = 0};
    int rc = -1;
    ct_dtype cdt = accumulate_dtype(probs->dtype);
    int64_t ncat = probs->sizes[probs->ndim - 1];
    int64_t ndist = probs->ndim == 2 ? probs->sizes[0] : 1;
    int64_t pshape[2] = {ndist, ncat}, rshape[2] = {ndist, k};
    ct_tensor *p = shaped(&s, in_dtype(&s, probs, cdt), 2, pshape);
    ct_tensor *cum = p != NULL ? tmp(&s, ct_cumsum(p, 1, cdt)) : NULL;
    ct_tensor *total = cum != NULL ? tmp(&s, ct_narrow(cum, 1, ncat - 1, 1)) : NULL;
    if (total == NULL || check_rows(&s, p, total) < 0) {
        goto done;
    }
    ct_tensor *u = tmp(&s, ct_empty(2, rshape, cdt, ct_tensor_device(probs)));
    if (u == NULL || ct__device_random(u, gen, CT_CUDA_RANDOM_UNIFORM, 0, 1, 0, 0) < 0) {
        goto done;
    }
    /* 1 - u in (0, 1], times the row's total: never above the total */
    ct_tensor *v = bin(&s, CT_BINARY_SUB, scalar(&s, ct_scalar_int(1)), u);
    ct_tensor *w = bin(&s, CT_BINARY_MUL, v, total);
    ct_tensor *prev = last_positive(&s, p);
    ct_tensor *out = shaped(&s, result, 2, rshape);
    if (w == NULL || prev == NULL || out == NULL) {
        goto done;
    }
    int64_t per = ndist * ncat, c = per >= MULTINOMIAL_CHUNK ? 1 : MULTINOMIAL_CHUNK / per;
    rc = 0;
    for (int64_t start = 0; rc == 0 && start < k; start += c) {
        rc = sample_chunk(cum, w, prev, start, k - start < c ? k - start : c, out);
    }
done:
    temps_free(&s);
    return rc;
}

ct_tensor *
ct__device_poisson(const ct_tensor *rates, ct_generator *gen)
{
    if (!ct_dtype_is_floating(rates->dtype)) {
        ct_error(CT_ERR_RUNTIME, "\"poisson_cuda\" not implemented for '%s'",
                 ct_dtype_table[rates->dtype].legacy);
        return NULL;
    }
    ct_tensor *t = ct_empty(rates->ndim, rates->sizes, rates->dtype, ct_tensor_device(rates));
    if (t == NULL || t->numel == 0) {
        return t;
    }
    double least;
    ct_tensor *m = ct_min(rates);
    int rc = read_number(m, &least);
    ct_tensor_decref(m);
    if (rc < 0) {
        goto fail;
    }
    /* (a NaN rate fails too, as PyTorch's device assert does) */
    if (!(least >= 0)) {
        ct_error(CT_ERR_RUNTIME, "invalid Poisson rate, expected rate to be non-negative");
        goto fail;
    }
    /* the rates are replaced in place by their draws */
    if (ct_copy_(t, rates) < 0 ||
        ct__device_random(t, gen, CT_CUDA_RANDOM_POISSON, 0, 0, POISSON_BLOCKS, 0) < 0) {
        goto fail;
    }
    return t;
fail:
    ct_tensor_decref(t);
    return NULL;
}
