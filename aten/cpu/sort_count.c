/* aten/cpu/sort_count.c -- unique (of all elements; along a dim in
 * sort_unique.c), histc and bincount.
 *
 * unique sorts (key, index) pairs of the flattened input with the radix
 * sort of sort.c and walks the runs of equal keys (Note [Sort keys]); an
 * integer input whose values span a range not much wider than its length
 * is counted in a table instead (one pass, no sort).  histc and bincount
 * count into a double (or float) table and convert once at the end.
 * Device tensors branch to aten/device_count.c after the checks.
 */
#include "aten/device.h"
#include <stdlib.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/reduce_impl.h"
#include "aten/cpu/sort_impl.h"

/* --- unique ------------------------------------------------------------------ */
static inline bool
starts_run(const ct__kv *r, int64_t i)
{
    return i == 0 || r[i].key != r[i - 1].key || r[i].key == CT__SORT_KEY_NAN;
}

/* Outputs of unique once the number of distinct values g is known. */
static int
unique_alloc(const ct_tensor *t, int64_t g, bool want_inv, bool want_cnt,
             ct_tensor **values, ct_tensor **inverse, ct_tensor **counts)
{
    ct_device dev = ct_tensor_device(t);
    if ((*values = ct_empty(1, &g, t->dtype, dev)) == NULL ||
        (want_inv &&
         (*inverse = ct_empty(t->ndim, t->sizes, CT_DTYPE_INT64, dev)) == NULL) ||
        (want_cnt && (*counts = ct_zeros(1, &g, CT_DTYPE_INT64)) == NULL)) {
        return -1;
    }
    return 0;
}

/* Counting path for integer keys spanning `range` + 1 values from kmin. */
static int
unique_counting(const ct_tensor *t, const ct__kv *a, int64_t n, uint64_t kmin,
                int64_t range, ct_tensor **values, ct_tensor **inverse,
                ct_tensor **counts, bool want_inv, bool want_cnt)
{
    size_t tbytes = ((size_t)range + 1) * sizeof(int64_t), vbytes = 0;
    int64_t *tab = ct__sort_scratch(tbytes);
    int64_t *vals = NULL;
    int rc = -1;
    if (tab == NULL) {
        return -1;
    }
    memset(tab, 0, tbytes);
    for (int64_t i = 0; i < n; i++) {
        tab[a[i].key - kmin]++;
    }
    int64_t g = 0;
    for (int64_t v = 0; v <= range; v++) {
        g += tab[v] != 0;
    }
    vbytes = (size_t)(g > 0 ? g : 1) * sizeof *vals;
    if ((vals = ct__sort_scratch(vbytes)) == NULL) {
        goto done;
    }
    if (unique_alloc(t, g, want_inv, want_cnt, values, inverse, counts) < 0) {
        goto done;
    }
    int64_t *cnt = want_cnt ? (int64_t *)ct_tensor_data(*counts) : NULL;
    g = 0;
    for (int64_t v = 0; v <= range; v++) {
        if (tab[v] != 0) {
            vals[g] = (int64_t)((kmin + (uint64_t)v) ^ (UINT64_C(1) << 63));
            if (cnt != NULL) {
                cnt[g] = tab[v];
            }
            tab[v] = g++;       /* now the value's position */
        }
    }
    ct__write_converted(t->dtype, ct_tensor_data(*values),
                        (int64_t)ct_dtype_itemsize(t->dtype), g, vals, false);
    if (want_inv) {
        int64_t *inv = (int64_t *)ct_tensor_data(*inverse);
        for (int64_t i = 0; i < n; i++) {
            inv[i] = tab[a[i].key - kmin];
        }
    }
    rc = 0;
done:
    ct__sort_scratch_free(tab, tbytes);
    ct__sort_scratch_free(vals, vbytes);
    return rc;
}

static int
unique_sorting(const ct_tensor *tc, ct__kv *a, int64_t n, ct_tensor **values,
               ct_tensor **inverse, ct_tensor **counts, bool want_inv, bool want_cnt)
{
    ct__kv *r = ct__sort_radix(a, a + n, n);
    int64_t g = 0;
    for (int64_t i = 0; i < n; i++) {
        g += starts_run(r, i);
    }
    if (unique_alloc(tc, g, want_inv, want_cnt, values, inverse, counts) < 0) {
        return -1;
    }
    size_t isz = ct_dtype_itemsize(tc->dtype);
    const char *src = ct_tensor_data(tc);
    char *dst = ct_tensor_data(*values);
    int64_t *inv = want_inv ? (int64_t *)ct_tensor_data(*inverse) : NULL;
    int64_t *cnt = want_cnt ? (int64_t *)ct_tensor_data(*counts) : NULL;
    g = -1;
    for (int64_t i = 0; i < n; i++) {
        if (starts_run(r, i)) {
            g++;
            memcpy(dst + g * (int64_t)isz, src + r[i].idx * (int64_t)isz, isz);
        }
        if (inv != NULL) {
            inv[r[i].idx] = g;
        }
        if (cnt != NULL) {
            cnt[g]++;
        }
    }
    return 0;
}

int
ct_unique(const ct_tensor *t, bool sorted, ct_tensor **values, ct_tensor **inverse,
          ct_tensor **counts)
{
    ct_tensor *tc = NULL, *v = NULL, *inv = NULL, *cnt = NULL;
    ct__kv *a = NULL;
    size_t abytes = 0;
    int rc = -1;
    (void)sorted;               /* always sorted */
    bool want_inv = inverse != NULL, want_cnt = counts != NULL;
    *values = NULL;
    if (want_inv) {
        *inverse = NULL;
    }
    if (want_cnt) {
        *counts = NULL;
    }
    if (t->dtype == CT_DTYPE_FLOAT16) {
        return ct_error(CT_ERR_RUNTIME, "\"unique\" not implemented for 'Half'");
    }
    if (ct__is_device(t)) {
        return ct__reduce_check_numeric("unique", t) < 0
                   ? -1 : ct__device_unique(t, values, inverse, counts);
    }
    if (ct__sort_check_dtype("unique", t, true) < 0) {
        return -1;
    }
    if ((tc = ct_contiguous(t)) == NULL) {
        return -1;
    }
    int64_t n = tc->numel;
    abytes = (size_t)(n > 0 ? 2 * n : 1) * sizeof *a;
    if ((a = ct__sort_scratch(abytes)) == NULL) {
        goto done;
    }
    size_t isz = ct_dtype_itemsize(tc->dtype);
    ct__sort_fill_fns[tc->dtype](ct_tensor_data(tc), (int64_t)isz, n, 0, 0, UINT64_MAX,
                                 a);
    uint64_t kmin = UINT64_MAX, kmax = 0;
    for (int64_t i = 0; i < n; i++) {
        kmin = a[i].key < kmin ? a[i].key : kmin;
        kmax = a[i].key > kmax ? a[i].key : kmax;
    }
    int r;
    bool narrow = kmax - kmin < (uint64_t)n * 2 + 1024;
    if (n > 0 && !ct_dtype_is_floating(tc->dtype) && narrow) {
        r = unique_counting(tc, a, n, kmin, (int64_t)(kmax - kmin), &v, &inv, &cnt,
                            want_inv, want_cnt);
    }
    else {
        r = unique_sorting(tc, a, n, &v, &inv, &cnt, want_inv, want_cnt);
    }
    if (r < 0) {
        goto done;
    }
    *values = v;
    if (want_inv) {
        *inverse = inv;
    }
    if (want_cnt) {
        *counts = cnt;
    }
    v = inv = cnt = NULL;
    rc = 0;
done:
    ct__sort_scratch_free(a, abytes);
    ct_tensor_decref(tc);
    ct_tensor_decref(v);
    ct_tensor_decref(inv);
    ct_tensor_decref(cnt);
    return rc;
}

/* --- histc ----------------------------------------------------------------------- */
/* Count the elements of src (contiguous, n) in [lo, hi] into hist[bins];
 * the bin arithmetic in the dtype's compute type, as torch's. */
typedef void (*histc_fn)(const char *src, int64_t n, int64_t bins, double lo,
                         double hi, double *hist);
/* min and max of src (NaN propagates). */
typedef void (*range_fn)(const char *src, int64_t n, double *mn, double *mx);

/* rnd_S rounds to the dtype after each step, as torch's arithmetic on
 * c10::BFloat16 does (a no-op for float32 and float64). */
#define X(E, T, S, A)                                                         \
    static inline A rnd_##S(A x)                                              \
    {                                                                         \
        T t = ct__##S##_from_f64((double)x);                                  \
        return ct__load_##S(&t);                                              \
    }                                                                         \
    static void histc_##S(const char *src, int64_t n, int64_t bins, double lo, \
                          double hi, double *hist)                            \
    {                                                                         \
        const T *p = (const T *)src;                                          \
        A l = rnd_##S((A)lo), h = rnd_##S((A)hi);                             \
        A nb = rnd_##S((A)bins), w = rnd_##S(h - l);                          \
        for (int64_t i = 0; i < n; i++) {                                     \
            A e = ct__load_##S(p + i);                                        \
            if (!(e >= l && e <= h)) {                                        \
                continue;                                                     \
            }                                                                 \
            int64_t pos = (int64_t)rnd_##S(rnd_##S(rnd_##S(e - l) * nb) / w); \
            /* max's own bin is the last; bfloat16 may round bins up (259     \
             * to 260), putting values near max past it (torch 1.13 writes    \
             * there, outside its buffer) */                                  \
            if (pos >= bins) {                                                \
                pos = bins - 1;                                               \
            }                                                                 \
            hist[pos] += 1;                                                   \
        }                                                                     \
    }                                                                         \
    static void range_##S(const char *src, int64_t n, double *mn, double *mx) \
    {                                                                         \
        const T *p = (const T *)src;                                          \
        double a = INFINITY, b = -INFINITY;                                   \
        for (int64_t i = 0; i < n; i++) {                                     \
            double e = (double)ct__load_##S(p + i);                           \
            if (e != e) {                                                     \
                a = b = e;                                                    \
                break;                                                        \
            }                                                                 \
            a = e < a ? e : a;                                                \
            b = e > b ? e : b;                                                \
        }                                                                     \
        *mn = a;                                                              \
        *mx = b;                                                              \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const histc_fn histc_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = histc_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const range_fn range_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = range_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* min and max of a device tensor (NaN propagates, as range_S): the two
 * reads PyTorch's CUDA histc makes too. */
static int
device_range(const ct_tensor *t, double *mn, double *mx)
{
    ct_tensor *a = ct_min(t), *b = a != NULL ? ct_max(t) : NULL;
    ct_scalar va, vb;
    int rc = b != NULL && ct_tensor_item(a, &va) == 0 && ct_tensor_item(b, &vb) == 0 ? 0 : -1;
    if (rc == 0) {
        *mn = ct_scalar_to_double(va);
        *mx = ct_scalar_to_double(vb);
    }
    ct_tensor_decref(a);
    ct_tensor_decref(b);
    return rc;
}

ct_tensor *
ct_histc(const ct_tensor *t, int64_t bins, double min, double max)
{
    ct_tensor *tc = NULL, *out = NULL;
    double *hist = NULL;
    /* torch has no float16 histogram on the CPU */
    if (histc_fns[t->dtype] == NULL || t->dtype == CT_DTYPE_FLOAT16) {
        ct_error(CT_ERR_RUNTIME, "\"histogram_cpu\" not implemented for '%s'",
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    if (bins <= 0) {
        ct_error(CT_ERR_RUNTIME, "torch.histogram(): bins must be > 0, but got %lld "
                 "for dimension 0", (long long)bins);
        return NULL;
    }
    if (min > max) {
        ct_error(CT_ERR_RUNTIME, "torch.histc: max must be larger than min");
        return NULL;
    }
    if (ct__is_device(t)) {
        if (min == max && t->numel > 0 && device_range(t, &min, &max) < 0) {
            return NULL;
        }
    }
    else {
        if ((tc = ct_contiguous(t)) == NULL) {
            return NULL;
        }
        if (min == max && tc->numel > 0) {
            range_fns[t->dtype](ct_tensor_data(tc), tc->numel, &min, &max);
        }
    }
    if (min == max) {
        min -= 1;
        max += 1;
    }
    if (!isfinite(min) || !isfinite(max)) {
        ct_error(CT_ERR_RUNTIME, "torch.histc: range of [%g, %g] is not finite", min,
                 max);
        goto done;
    }
    if (ct__is_device(t)) {
        out = ct__device_histc(t, bins, min, max);
        goto done;
    }
    if ((hist = calloc((size_t)bins, sizeof *hist)) == NULL) {
        ct_error(CT_ERR_NOMEM, "histc: out of memory");
        goto done;
    }
    histc_fns[t->dtype](ct_tensor_data(tc), tc->numel, bins, min, max, hist);
    if ((out = ct_empty(1, &bins, t->dtype, ct_tensor_device(t))) == NULL) {
        goto done;
    }
    ct__write_converted(t->dtype, ct_tensor_data(out),
                        (int64_t)ct_dtype_itemsize(t->dtype), bins, hist, true);
done:
    free(hist);
    ct_tensor_decref(tc);
    return out;
}

/* --- bincount --------------------------------------------------------------------- */
ct_tensor *
ct_bincount(const ct_tensor *t, const ct_tensor *weights, int64_t minlength)
{
    int64_t *iv = NULL;
    double *wv = NULL;
    ct_tensor *out = NULL;
    if (!ct_dtype_is_integral(t->dtype, false)) {
        ct_error(CT_ERR_RUNTIME, "\"bincount_cpu\" not implemented for '%s'",
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    if (minlength < 0) {
        ct_error(CT_ERR_RUNTIME, "minlength should be >= 0");
        return NULL;
    }
    if (ct__is_device(t) || ct__is_device(weights)) {
        return ct__device_bincount(t, weights, minlength);
    }
    if (t->ndim == 1 && t->numel == 0) {
        return ct_zeros(1, &minlength, CT_DTYPE_INT64);
    }
    int64_t n = t->numel;
    size_t ibytes = (size_t)(n > 0 ? n : 1) * sizeof *iv;
    size_t wbytes = (size_t)n * sizeof *wv;
    if ((iv = ct__sort_scratch(ibytes)) == NULL) {
        return NULL;
    }
    int64_t hi = -1;
    bool neg = false;
    if (t->ndim == 1) {
        int64_t st = t->strides[0] * (int64_t)ct_dtype_itemsize(t->dtype);
        ct__reduce_read_i64(t->dtype, ct_tensor_data(t), st, n, iv);
        for (int64_t i = 0; i < n; i++) {
            neg |= iv[i] < 0;
            hi = iv[i] > hi ? iv[i] : hi;
        }
    }
    if (t->ndim != 1 || neg) {
        ct_error(CT_ERR_RUNTIME, "bincount only supports 1-d non-negative integral "
                 "inputs.");
        goto done;
    }
    if (weights != NULL && (weights->ndim != 1 || weights->numel != n)) {
        ct_error(CT_ERR_RUNTIME, "weights should be 1-d and have the same length as "
                 "input");
        goto done;
    }
    int64_t len = hi + 1 > minlength ? hi + 1 : minlength;
    if (weights == NULL) {
        if ((out = ct_zeros(1, &len, CT_DTYPE_INT64)) == NULL) {
            goto done;
        }
        int64_t *o = (int64_t *)ct_tensor_data(out);
        for (int64_t i = 0; i < n; i++) {
            o[iv[i]]++;
        }
        goto done;
    }
    if (ct__reduce_check_numeric("bincount_cpu", weights) < 0) {
        goto done;
    }
    if ((wv = ct__sort_scratch(wbytes)) == NULL) {
        goto done;
    }
    int64_t wst = weights->strides[0] * (int64_t)ct_dtype_itemsize(weights->dtype);
    ct__reduce_read_f64(weights->dtype, ct_tensor_data(weights), wst, n, wv);
    bool f32 = weights->dtype == CT_DTYPE_FLOAT32;
    if ((out = ct_zeros(1, &len, f32 ? CT_DTYPE_FLOAT32 : CT_DTYPE_FLOAT64)) == NULL) {
        goto done;
    }
    if (f32) {
        float *o = (float *)ct_tensor_data(out);
        for (int64_t i = 0; i < n; i++) {
            o[iv[i]] += (float)wv[i];
        }
    }
    else {
        double *o = (double *)ct_tensor_data(out);
        for (int64_t i = 0; i < n; i++) {
            o[iv[i]] += wv[i];
        }
    }
done:
    ct__sort_scratch_free(iv, ibytes);
    ct__sort_scratch_free(wv, wbytes);
    return out;
}
