/* aten/cpu/reduce_scan.c -- ops along one dim that see a whole line at a
 * time: cumsum, cumprod, cummax, cummin, softmax, log_softmax (a result
 * per element) and median, mode (a result per line).  softmax and
 * log_softmax are checked here and computed by aten/cpu/softmax.c.
 *
 * Note [Line engine]
 * The input is viewed as lines along `dim`; each line is read into a
 * buffer of doubles (floating inputs) or int64s (bool and integers) with
 * aten/cpu/reduce_impl.h's readers, computed by dtype-free code stamped for
 * those two value kinds, and written back converted to the output's dtype
 * with the line's stride.  Lines are split across threads when the input
 * is large.  Floating scans accumulate in double, as PyTorch's CPU kernels
 * do (acc_type<float> is double on the CPU).
 */
#include "aten/device.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/reduce_impl.h"
#include "aten/cpu/softmax_impl.h"
#include "aten/cpu/sort_impl.h"
#include "aten/parallel.h"

#define MIN_PER_THREAD 65536
#define CHUNK 1024

static const char *const scan_names[CT_SCAN_COUNT] = {
#define X(E, N) [E] = N,
    CT_FORALL_SCAN_OPS(X)
#undef X
};

static bool
isnan_f(double v)
{
    return isnan(v);
}

static bool
isnan_i(int64_t v)
{
    (void)v;
    return false;
}

/* Running state of a cumulative op across the chunks of one line. */
typedef struct {
    double acc, best;
    int64_t iacc, ibest, bi;
} carry;

/* Chunk [k0, k0 + n) of a line for cumsum / cumprod / cummax / cummin:
 * out[] and idx[] from values v (kind T), continuing from *c.  PyTorch's
 * cummax/cummin: a NaN wins and stays; ties move the index forward. */
#define CUM_OPS(K, T, ACC, BEST)                                              \
    static void cum_##K(ct_scan_op op, const T *v, int64_t n, int64_t k0,     \
                        T *out, int64_t *idx, carry *c)                       \
    {                                                                         \
        if (op == CT_SCAN_CUMSUM || op == CT_SCAN_CUMPROD) {                  \
            T a = c->ACC;                                                     \
            bool sum = op == CT_SCAN_CUMSUM;                                  \
            for (int64_t k = 0; k < n; k++) {                                 \
                a = sum ? (T)(a + v[k]) : (T)(a * v[k]);                      \
                out[k] = a;                                                   \
            }                                                                 \
            c->ACC = a;                                                       \
            return;                                                           \
        }                                                                     \
        bool mx = op == CT_SCAN_CUMMAX;                                       \
        T best = k0 == 0 ? v[0] : c->BEST;                                    \
        int64_t bi = k0 == 0 ? 0 : c->bi;                                     \
        for (int64_t k = 0; k < n; k++) {                                     \
            if (isnan_##K(v[k]) ||                                            \
                (!isnan_##K(best) && (mx ? v[k] >= best : v[k] <= best))) {   \
                best = v[k];                                                  \
                bi = k0 + k;                                                  \
            }                                                                 \
            out[k] = best;                                                    \
            idx[k] = bi;                                                      \
        }                                                                     \
        c->BEST = best;                                                       \
        c->bi = bi;                                                           \
    }

/* Comparators over the positions of a line's values v (Note [libstdc++
 * order]): mode's sorts by value alone; median's and nanmedian's order by
 * (value, position) with NaN above every number, as torch's do. */
#define LINE_LESS(K, T)                                                       \
    static bool mode_less_##K(const void *ctx, int64_t x, int64_t y)          \
    {                                                                         \
        const T *v = ctx;                                                     \
        return v[x] < v[y];                                                   \
    }                                                                         \
    static bool median_less_##K(const void *ctx, int64_t x, int64_t y)        \
    {                                                                         \
        const T *v = ctx;                                                     \
        return v[x] < v[y] || (v[x] == v[y] && x < y) ||                      \
               (isnan_##K(v[y]) && !isnan_##K(v[x]));                         \
    }

/* One line of n values v (kind T) into out[0] / idx[0] for median,
 * nanmedian and mode, by torch 1.13's steps so that ties pick torch's
 * index: median returns the first NaN, else selects rank (n - 1) / 2;
 * nanmedian selects rank (non-NaN count - 1) / 2 (an all-NaN line takes
 * what std::nth_element leaves first); mode sorts by value (std::sort,
 * unstable) and takes the last element of the first longest run, runs
 * split by != (so each NaN is a run of its own).  `pos` is scratch room
 * for n positions. */
#define LINE_OPS(K, T)                                                        \
    static void line_##K(ct_scan_op op, const T *v, int64_t n, T *out,        \
                         int64_t *idx, int64_t *pos)                          \
    {                                                                         \
        int64_t nnan = 0;                                                     \
        for (int64_t k = 0; k < n; k++) {                                     \
            pos[k] = k;                                                       \
            nnan += isnan_##K(v[k]);                                          \
        }                                                                     \
        if (op == CT_SCAN_MODE) {                                             \
            ct__stl_sort(pos, n, mode_less_##K, v);                           \
            int64_t run = 0, best = 0;                                        \
            for (int64_t k = 0; k < n; k++) {                                 \
                run++;                                                        \
                if (k == n - 1 || v[pos[k]] != v[pos[k + 1]]) {               \
                    if (run > best) {                                         \
                        best = run;                                           \
                        idx[0] = pos[k];                                      \
                    }                                                         \
                    run = 0;                                                  \
                }                                                             \
            }                                                                 \
            out[0] = v[idx[0]];                                               \
            return;                                                           \
        }                                                                     \
        if (op == CT_SCAN_MEDIAN && nnan > 0) {                               \
            int64_t k = 0;                                                    \
            while (!isnan_##K(v[k])) {                                        \
                k++;                                                          \
            }                                                                 \
            out[0] = v[k];                                                    \
            idx[0] = k;                                                       \
            return;                                                           \
        }                                                                     \
        int64_t nth = (n - nnan - 1) / 2;       /* C truncates, as C++ */     \
        ct__stl_nth_element(pos, nth, n, median_less_##K, v);                 \
        out[0] = v[pos[nth]];                                                 \
        idx[0] = pos[nth];                                                    \
    }
LINE_LESS(f, double)
LINE_LESS(i, int64_t)
#undef LINE_LESS
LINE_OPS(f, double)
LINE_OPS(i, int64_t)
#undef LINE_OPS
CUM_OPS(f, double, acc, best)
CUM_OPS(i, int64_t, iacc, ibest)
#undef CUM_OPS

typedef struct {
    ct_scan_op op;
    const ct_tensor *in;
    ct_tensor *out, *idx;
    int dim;
    int64_t n, nlines;
    bool isint, per_line;       /* per_line: one result per line */
    bool failed;
} sjob;

/* Byte offsets of line l in the input and the output. */
static void
line_offsets(const sjob *j, int64_t l, int64_t *ioff, int64_t *ooff)
{
    const ct_tensor *in = j->in;
    int64_t io = 0, oo = 0, ostride = 1;
    int64_t z = (int64_t)ct_dtype_itemsize(in->dtype);
    int64_t zo = (int64_t)ct_dtype_itemsize(j->out->dtype);
    for (int d = in->ndim - 1; d >= 0; d--) {
        if (d == j->dim) {
            if (!j->per_line) {
                ostride *= in->sizes[d];
            }
            continue;
        }
        int64_t c = l % in->sizes[d];
        l /= in->sizes[d];
        io += c * in->strides[d];
        oo += c * ostride;
        ostride *= in->sizes[d];
    }
    *ioff = io * z;
    *ooff = oo * zo;
}

/* A cumulative op over one line, in chunks. */
static void
line_cum(const sjob *j, const char *src, int64_t ist, char *dst, int64_t ost,
         char *xdst, int64_t xst)
{
    int64_t vals[CHUNK], res[CHUNK], idx[CHUNK];     /* doubles or int64s */
    carry c = {j->op == CT_SCAN_CUMPROD ? 1 : 0, 0, j->op == CT_SCAN_CUMPROD ? 1 : 0,
               0, 0};
    for (int64_t k0 = 0; k0 < j->n; k0 += CHUNK) {
        int64_t m = j->n - k0 < CHUNK ? j->n - k0 : CHUNK;
        if (j->isint) {
            ct__reduce_read_i64(j->in->dtype, src + k0 * ist, ist, m, vals);
            cum_i(j->op, vals, m, k0, res, idx, &c);
        }
        else {
            ct__reduce_read_f64(j->in->dtype, src + k0 * ist, ist, m, (double *)vals);
            cum_f(j->op, (double *)vals, m, k0, (double *)res, idx, &c);
        }
        ct__write_converted(j->out->dtype, dst + k0 * ost, ost, m, res, !j->isint);
        for (int64_t k = 0; xdst && k < m; k++) {
            *(int64_t *)(xdst + (k0 + k) * xst) = idx[k];
        }
    }
}

static void
scan_part(void *ctx, int tid, int nthreads)
{
    sjob *j = ctx;
    int64_t n = j->n;
    int64_t l0 = j->nlines * tid / nthreads, l1 = j->nlines * (tid + 1) / nthreads;
    size_t nb = (size_t)(n > 0 ? n : 1);
    void *vals = NULL, *res = NULL;
    int64_t *idx = NULL, *pos = NULL;
    if (j->per_line) {
        vals = malloc(nb * 8);
        res = malloc(nb * 8);
        idx = malloc(nb * 8);
        pos = malloc(nb * sizeof *pos);
        if (vals == NULL || res == NULL || idx == NULL || pos == NULL) {
            j->failed = true;
            goto done;
        }
    }
    const char *ib = ct_tensor_data(j->in);
    char *ob = ct_tensor_data(j->out);
    char *xb = j->idx ? ct_tensor_data(j->idx) : NULL;
    ct_dtype odt = j->out->dtype;
    int64_t zo = (int64_t)ct_dtype_itemsize(odt);
    int64_t ist = j->in->ndim ? j->in->strides[j->dim] * (int64_t)ct_dtype_itemsize(
                                                              j->in->dtype)
                              : 0;
    int64_t ost = j->per_line ? 0 : j->out->ndim ? j->out->strides[j->dim] * zo : 0;
    int64_t xst = j->per_line ? 0 : j->out->ndim ? j->out->strides[j->dim] * 8 : 0;
    for (int64_t l = l0; l < l1; l++) {
        int64_t ioff, ooff;
        line_offsets(j, l, &ioff, &ooff);
        char *xdst = xb ? xb + ooff / zo * 8 : NULL;
        if (!j->per_line) {
            line_cum(j, ib + ioff, ist, ob + ooff, ost, xdst, xst);
            continue;
        }
        if (j->isint) {
            ct__reduce_read_i64(j->in->dtype, ib + ioff, ist, n, vals);
            line_i(j->op, vals, n, res, idx, pos);
        }
        else {
            ct__reduce_read_f64(j->in->dtype, ib + ioff, ist, n, vals);
            line_f(j->op, vals, n, res, idx, pos);
        }
        ct__write_converted(odt, ob + ooff, 0, 1, res, !j->isint);
        if (xdst) {
            *(int64_t *)xdst = idx[0];
        }
    }
done:
    free(vals);
    free(res);
    free(idx);
    free(pos);
}

static bool
scan_has_indices(ct_scan_op op)
{
    return op == CT_SCAN_CUMMAX || op == CT_SCAN_CUMMIN || op == CT_SCAN_MEDIAN ||
           op == CT_SCAN_NANMEDIAN || op == CT_SCAN_MODE;
}

/* softmax or log_softmax of a device tensor: CUDA has half kernels too
 * (PyTorch's "host_softmax"). */
static ct_tensor *
device_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype, bool log)
{
    ct_dtype cdt = dtype != CT_DTYPE_COUNT ? dtype : t->dtype;
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return NULL;
    }
    if (!ct_dtype_is_floating(cdt)) {
        ct_error(CT_ERR_RUNTIME, "\"host_softmax\" not implemented for '%s'",
                 ct_dtype_table[cdt].legacy);
        return NULL;
    }
    ct_tensor *in = ct_to_dtype(t, cdt, false);
    ct_tensor *out = in != NULL ? ct__device_softmax(in, d, log) : NULL;
    ct_tensor_decref(in);
    return out;
}

ct_tensor *
ct_scan(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim, ct_dtype dtype,
        ct_tensor **indices)
{
    if ((op == CT_SCAN_SOFTMAX || op == CT_SCAN_LOG_SOFTMAX) && ct__is_device(t)) {
        return device_softmax(t, dim, dtype, op == CT_SCAN_LOG_SOFTMAX);
    }
    if ((op == CT_SCAN_MEDIAN || op == CT_SCAN_NANMEDIAN) && ct__is_device(t)) {
        ct_tensor *v;
        return ct__device_median_dim(t, dim, keepdim, op == CT_SCAN_NANMEDIAN, &v,
                                     indices) == 0 ? v : NULL;
    }
    bool cum_on_device = ct__is_device(t) && (op == CT_SCAN_CUMSUM || op == CT_SCAN_CUMPROD ||
                                              op == CT_SCAN_CUMMAX || op == CT_SCAN_CUMMIN);
    bool mode_on_device = ct__is_device(t) && op == CT_SCAN_MODE;
    if (!cum_on_device && !mode_on_device &&
        ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    const char *name = scan_names[op];
    ct_tensor *in = NULL, *out = NULL, *idx = NULL;
    int64_t oshape[CT_MAX_DIMS];
    int ond = 0;
    bool per_line =
        op == CT_SCAN_MEDIAN || op == CT_SCAN_NANMEDIAN || op == CT_SCAN_MODE;

    if (indices) {
        *indices = NULL;
    }
    if (ct__reduce_check_numeric(name, t) < 0) {
        return NULL;
    }
    int d = ct_wrap_dim(dim, t->ndim);
    if (d < 0) {
        return NULL;
    }
    ct_dtype cdt = dtype != CT_DTYPE_COUNT ? dtype : t->dtype;
    ct_dtype odt = cdt;
    if ((op == CT_SCAN_CUMSUM || op == CT_SCAN_CUMPROD) && !ct_dtype_is_floating(cdt)) {
        odt = CT_DTYPE_INT64;
    }
    if (cum_on_device) {
        /* PyTorch's CUDA scans take half too */
        return ct__device_cumulative(op, t, d, cdt, odt, indices);
    }
    /* the kernels PyTorch 1.13 lacks on the CPU */
    static const char *const missing_half[CT_SCAN_COUNT] = {
        [CT_SCAN_CUMSUM] = "cumsum_out_cpu", [CT_SCAN_CUMPROD] = "cumprod_out_cpu",
        [CT_SCAN_CUMMAX] = "cummax_cpu",     [CT_SCAN_CUMMIN] = "cummin_cpu",
        [CT_SCAN_MEDIAN] = "median_out", [CT_SCAN_NANMEDIAN] = "median_out",
    };
    if ((cdt == CT_DTYPE_FLOAT16 && missing_half[op]) ||
        ((op == CT_SCAN_MEDIAN || op == CT_SCAN_NANMEDIAN) && cdt == CT_DTYPE_BOOL)) {
        ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", missing_half[op],
                 ct_dtype_table[cdt].legacy);
        return NULL;
    }
    if ((op == CT_SCAN_SOFTMAX || op == CT_SCAN_LOG_SOFTMAX) &&
        (!ct_dtype_is_floating(cdt) || cdt == CT_DTYPE_FLOAT16)) {
        bool last = t->ndim == 0 || d == t->ndim - 1;
        ct_error(CT_ERR_RUNTIME, "\"%s%s_kernel_impl\" not implemented for '%s'",
                 last ? name : "softmax", last ? "_lastdim" : "",
                 ct_dtype_table[cdt].legacy);
        return NULL;
    }
    if (op == CT_SCAN_SOFTMAX || op == CT_SCAN_LOG_SOFTMAX) {
        if ((in = ct_to_dtype(t, cdt, false)) == NULL) {
            return NULL;
        }
        out = ct__softmax(in, d, op == CT_SCAN_LOG_SOFTMAX);
        ct_tensor_decref(in);
        return out;
    }
    int64_t n = t->ndim ? t->sizes[d] : 1;
    if (per_line && n == 0 && t->ndim > 0) {
        /* nanmedian shares median's kernel and its message */
        ct_error(CT_ERR_INDEX, "%s(): Expected reduction dim %d to have non-zero size.",
                 op == CT_SCAN_NANMEDIAN ? "median" : name, d);
        return NULL;
    }
    if (mode_on_device) {
        ct_tensor *v = NULL, *x = NULL;
        if (ct__device_mode(t, d, keepdim, &v, &x) < 0) {
            return NULL;
        }
        if (indices) {
            *indices = x;
        }
        else {
            ct_tensor_decref(x);
        }
        return v;
    }
    for (int k = 0; k < t->ndim; k++) {
        if (k != d || !per_line) {
            oshape[ond++] = t->sizes[k];
        }
        else if (keepdim) {
            oshape[ond++] = 1;
        }
    }
    if ((in = ct_to_dtype(t, cdt, false)) == NULL) {
        return NULL;
    }
    if ((out = ct_empty(ond, oshape, odt, ct_device_cpu())) == NULL) {
        goto fail;
    }
    if (scan_has_indices(op) && indices &&
        (idx = ct_empty(ond, oshape, CT_DTYPE_INT64, ct_device_cpu())) == NULL) {
        goto fail;
    }
    sjob j = {op, in, out, idx, d, n, 0, !ct_dtype_is_floating(cdt), per_line, false};
    j.nlines = n ? in->numel / n : 0;
    if (in->numel > 0) {
        int nthreads = ct__parallel_threads();
        int64_t want = in->numel / MIN_PER_THREAD;
        if (want < nthreads) {
            nthreads = (int)(want > 1 ? want : 1);
        }
        if (nthreads > j.nlines) {
            nthreads = (int)j.nlines;
        }
        if (nthreads <= 1) {
            scan_part(&j, 0, 1);
        }
        else {
            ct__parallel_run(nthreads, scan_part, &j);
        }
        if (j.failed) {
            ct_error(CT_ERR_NOMEM, "out of memory");
            goto fail;
        }
    }
    ct_tensor_decref(in);
    if (indices) {
        *indices = idx;
    }
    else {
        ct_tensor_decref(idx);
    }
    return out;
fail:
    ct_tensor_decref(in);
    ct_tensor_decref(out);
    ct_tensor_decref(idx);
    return NULL;
}

ct_tensor *
ct_cumsum(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ct_scan(CT_SCAN_CUMSUM, t, dim, false, dtype, NULL);
}

ct_tensor *
ct_cumprod(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ct_scan(CT_SCAN_CUMPROD, t, dim, false, dtype, NULL);
}

static int
two_results(ct_scan_op op, const ct_tensor *t, int64_t dim, bool keepdim,
            ct_tensor **values, ct_tensor **indices)
{
    *values = ct_scan(op, t, dim, keepdim, CT_DTYPE_COUNT, indices);
    return *values ? 0 : -1;
}

int
ct_cummax(const ct_tensor *t, int64_t dim, ct_tensor **values, ct_tensor **indices)
{
    return two_results(CT_SCAN_CUMMAX, t, dim, false, values, indices);
}

int
ct_cummin(const ct_tensor *t, int64_t dim, ct_tensor **values, ct_tensor **indices)
{
    return two_results(CT_SCAN_CUMMIN, t, dim, false, values, indices);
}

ct_tensor *
ct_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ct_scan(CT_SCAN_SOFTMAX, t, dim, false, dtype, NULL);
}

ct_tensor *
ct_log_softmax(const ct_tensor *t, int64_t dim, ct_dtype dtype)
{
    return ct_scan(CT_SCAN_LOG_SOFTMAX, t, dim, false, dtype, NULL);
}

int
ct_median_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
              ct_tensor **indices)
{
    if (ct__is_device(t)) {
        return ct__device_median_dim(t, dim, keepdim, false, values, indices);
    }
    return two_results(CT_SCAN_MEDIAN, t, dim, keepdim, values, indices);
}

int
ct_mode(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
        ct_tensor **indices)
{
    return two_results(CT_SCAN_MODE, t, dim, keepdim, values, indices);
}

int
ct_nanmedian_dim(const ct_tensor *t, int64_t dim, bool keepdim, ct_tensor **values,
                 ct_tensor **indices)
{
    if (ct__is_device(t)) {
        return ct__device_median_dim(t, dim, keepdim, true, values, indices);
    }
    return two_results(CT_SCAN_NANMEDIAN, t, dim, keepdim, values, indices);
}

/* Median (op CT_SCAN_MEDIAN) or nanmedian of all elements: the flattened
 * tensor's along dim 0, as a 0-dim tensor; NaN (or the dtype's conversion
 * of it, e.g. INT64_MIN) when empty. */
static ct_tensor *
median_all(ct_scan_op op, const ct_tensor *t)
{
    if (t->dtype == CT_DTYPE_FLOAT16 || t->dtype == CT_DTYPE_BOOL) {
        ct_error(CT_ERR_RUNTIME, "\"median_cpu\" not implemented for '%s'",
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    if (t->numel == 0) {
        /* NaN as torch's static_cast makes it (x86's for integers) */
        double nan = NAN;
        ct_tensor *r = ct_empty(0, NULL, t->dtype, ct_tensor_device(t));
        if (r != NULL) {
            ct__write_converted(t->dtype, ct_tensor_data(r), 0, 1, &nan, true);
        }
        return r;
    }
    int64_t n = t->numel;
    ct_tensor *flat = ct_reshape(t, 1, &n);
    if (flat == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_scan(op, flat, 0, false, CT_DTYPE_COUNT, NULL);
    ct_tensor_decref(flat);
    return r;
}

ct_tensor *
ct_median(const ct_tensor *t)
{
    if (ct__is_device(t)) {
        return ct__device_median(t, false);
    }
    return median_all(CT_SCAN_MEDIAN, t);
}

ct_tensor *
ct_nanmedian(const ct_tensor *t)
{
    if (ct__is_device(t)) {
        return ct__device_median(t, true);
    }
    return median_all(CT_SCAN_NANMEDIAN, t);
}
