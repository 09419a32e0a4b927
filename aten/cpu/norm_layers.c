/* aten/cpu/norm_layers.c -- batch_norm, layer_norm and group_norm,
 * forward and backward (include/ctorch/ops_nn.h).
 *
 * Note [Normalization segments]
 * Each layer normalizes groups of elements of a contiguous input: a
 * channel across the batch (batch norm: N segments of the spatial size S,
 * or for S == 1 one segment of N elements with stride C), a row of the
 * normalized shape (layer norm), a (sample, group) block of channels
 * (group norm).  The arithmetic on a segment is a handful of typed leaf
 * loops (sums, centred squares, dot products, an affine map), stamped per
 * floating dtype and kept in one table, so the layers themselves are
 * dtype-free.  Statistics accumulate in double; elementwise results are
 * computed in the dtype's compute type in the order torch 1.13's CPU
 * kernels use, with the per-channel constants rounded to the dtype first
 * as torch stores them (so float32 outputs match torch's to the last bit
 * or two).  Independent groups are split across threads.
 */
#include "aten/device.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/reduce_impl.h"
#include "aten/parallel.h"
#include "c10/convert.h"

#define MIN_PER_THREAD 32768

/* --- leaf loops ------------------------------------------------------------
 * Segments of n elements with element stride st (elements, not bytes);
 * scalar parameters come in as doubles and are converted to the compute
 * type A once. */
typedef struct {
    /* sum of x */
    double (*sum)(const void *x, int64_t n, int64_t st);
    /* sum of (x - mean)^2, the difference and square in A */
    double (*sqdev)(const void *x, int64_t n, int64_t st, double mean);
    /* sum of g * x */
    double (*dot)(const void *g, const void *x, int64_t n, int64_t st);
    /* sum of g * (x - mean) */
    double (*dotdev)(const void *g, const void *x, int64_t n, int64_t st, double mean);
    /* y = x * a + b */
    void (*affine)(void *y, const void *x, int64_t n, int64_t st, double a, double b);
    /* y = (x - mean) * rstd */
    void (*center)(void *y, const void *x, int64_t n, double mean, double rstd);
    /* gi = g * a + x * b + c */
    void (*gbx)(void *gi, const void *g, const void *x, int64_t n, double a, double b,
                double c);
    /* batch norm's input gradient: ((g - gmean) - (x - mean) * k) * invstd * w */
    void (*bn_dx)(void *gi, const void *g, const void *x, int64_t n, int64_t st,
                  double mean, double k, double gmean, double invstd, double w);
    /* layer norm, gamma / beta per element (NULL: 1 / 0):
     * y = (x * scale + bias) * gamma + beta */
    void (*ln_y)(void *y, const void *x, const void *gamma, const void *beta, int64_t n,
                 double scale, double bias);
    /* *ds = sum g * x * gamma, *db = sum g * gamma */
    void (*ln_sums)(const void *g, const void *x, const void *gamma, int64_t n,
                    double *ds, double *db);
    /* gi = a * g * gamma + b * x + c */
    void (*ln_dx)(void *gi, const void *g, const void *x, const void *gamma, int64_t n,
                  double a, double b, double c);
    /* dgamma[j] += g * (a * x + b), dbeta[j] += g (either may be NULL) */
    void (*ln_cols)(double *dgamma, double *dbeta, const void *g, const void *x,
                    int64_t n, double a, double b);
} seg_ops;

/* Sums run in LANES independent double accumulators over contiguous
 * data (added pairwise at the end): the additions do not wait on each
 * other, so they pipeline and vectorize, and the rounding error grows
 * more slowly than with one running sum. */
#define LANES 8

static inline double
lanes_total(const double *a)
{
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

#define SEG_LEAVES(E, T, S, A)                                                   \
    static double sum_##S(const void *xv, int64_t n, int64_t st)                 \
    {                                                                            \
        const T *x = xv;                                                         \
        double acc[LANES] = {0};                                                 \
        int64_t i = 0;                                                           \
        for (; st == 1 && i + LANES <= n; i += LANES) {                          \
            for (int k = 0; k < LANES; k++) {                                    \
                acc[k] += (double)ct__load_##S(x + i + k);                       \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            acc[0] += (double)ct__load_##S(x + i * st);                          \
        }                                                                        \
        return lanes_total(acc);                                                 \
    }                                                                            \
    static double sqdev_##S(const void *xv, int64_t n, int64_t st, double mean)  \
    {                                                                            \
        const T *x = xv;                                                         \
        const A m = (A)mean;                                                     \
        double acc[LANES] = {0};                                                 \
        int64_t i = 0;                                                           \
        for (; st == 1 && i + LANES <= n; i += LANES) {                          \
            for (int k = 0; k < LANES; k++) {                                    \
                A d = ct__load_##S(x + i + k) - m;                               \
                acc[k] += (double)(d * d);                                       \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            A d = ct__load_##S(x + i * st) - m;                                  \
            acc[0] += (double)(d * d);                                           \
        }                                                                        \
        return lanes_total(acc);                                                 \
    }                                                                            \
    static double dot_##S(const void *gv, const void *xv, int64_t n, int64_t st) \
    {                                                                            \
        const T *g = gv, *x = xv;                                                \
        double acc[LANES] = {0};                                                 \
        int64_t i = 0;                                                           \
        for (; st == 1 && i + LANES <= n; i += LANES) {                          \
            for (int k = 0; k < LANES; k++) {                                    \
                acc[k] += (double)(ct__load_##S(g + i + k) * ct__load_##S(x + i + k)); \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            acc[0] += (double)(ct__load_##S(g + i * st) * ct__load_##S(x + i * st)); \
        }                                                                        \
        return lanes_total(acc);                                                 \
    }                                                                            \
    static double dotdev_##S(const void *gv, const void *xv, int64_t n,          \
                             int64_t st, double mean)                            \
    {                                                                            \
        const T *g = gv, *x = xv;                                                \
        const A m = (A)mean;                                                     \
        double acc[LANES] = {0};                                                 \
        int64_t i = 0;                                                           \
        for (; st == 1 && i + LANES <= n; i += LANES) {                          \
            for (int k = 0; k < LANES; k++) {                                    \
                acc[k] += (double)((ct__load_##S(x + i + k) - m) *               \
                                   ct__load_##S(g + i + k));                     \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            acc[0] += (double)((ct__load_##S(x + i * st) - m) *                  \
                               ct__load_##S(g + i * st));                        \
        }                                                                        \
        return lanes_total(acc);                                                 \
    }                                                                            \
    static void affine_##S(void *yv, const void *xv, int64_t n, int64_t st,      \
                           double a, double b)                                   \
    {                                                                            \
        T *y = yv;                                                               \
        const T *x = xv;                                                         \
        const A aa = (A)a, bb = (A)b;                                            \
        for (int64_t i = 0; i < n; i++) {                                        \
            ct__store_##S(y + i * st, ct__load_##S(x + i * st) * aa + bb);       \
        }                                                                        \
    }                                                                            \
    static void center_##S(void *yv, const void *xv, int64_t n, double mean,     \
                           double rstd)                                          \
    {                                                                            \
        T *y = yv;                                                               \
        const T *x = xv;                                                         \
        const A m = (A)mean, r = (A)rstd;                                        \
        for (int64_t i = 0; i < n; i++) {                                        \
            ct__store_##S(y + i, (ct__load_##S(x + i) - m) * r);                 \
        }                                                                        \
    }                                                                            \
    static void gbx_##S(void *giv, const void *gv, const void *xv, int64_t n,    \
                        double a, double b, double c)                            \
    {                                                                            \
        T *gi = giv;                                                             \
        const T *g = gv, *x = xv;                                                \
        const A aa = (A)a, bb = (A)b, cc = (A)c;                                 \
        for (int64_t i = 0; i < n; i++) {                                        \
            ct__store_##S(gi + i,                                                \
                          ct__load_##S(g + i) * aa + ct__load_##S(x + i) * bb + cc); \
        }                                                                        \
    }                                                                            \
    static void bn_dx_##S(void *giv, const void *gv, const void *xv, int64_t n,  \
                          int64_t st, double mean, double k, double gmean,       \
                          double invstd, double w)                               \
    {                                                                            \
        T *gi = giv;                                                             \
        const T *g = gv, *x = xv;                                                \
        const A m = (A)mean, kk = (A)k, gm = (A)gmean, is = (A)invstd, ww = (A)w; \
        for (int64_t i = 0; i < n; i++) {                                        \
            A dx = (ct__load_##S(x + i * st) - m) * kk;                          \
            ct__store_##S(gi + i * st,                                           \
                          (ct__load_##S(g + i * st) - gm - dx) * is * ww);       \
        }                                                                        \
    }                                                                            \
    static void ln_y_##S(void *yv, const void *xv, const void *gav,              \
                         const void *bev, int64_t n, double scale, double bias)  \
    {                                                                            \
        T *y = yv;                                                               \
        const T *x = xv, *ga = gav, *be = bev;                                   \
        const A sc = (A)scale, bi = (A)bias;                                     \
        for (int64_t i = 0; i < n; i++) {                                        \
            A gv = ga != NULL ? ct__load_##S(ga + i) : (A)1;                     \
            A bv = be != NULL ? ct__load_##S(be + i) : (A)0;                     \
            ct__store_##S(y + i, (ct__load_##S(x + i) * sc + bi) * gv + bv);     \
        }                                                                        \
    }                                                                            \
    static void ln_sums_##S(const void *gv, const void *xv, const void *gav,     \
                            int64_t n, double *ds, double *db)                   \
    {                                                                            \
        const T *g = gv, *x = xv, *ga = gav;                                     \
        double s[LANES] = {0}, b[LANES] = {0};                                   \
        int64_t i = 0;                                                           \
        for (; i + LANES <= n; i += LANES) {                                     \
            for (int k = 0; k < LANES; k++) {                                    \
                A gg = ct__load_##S(g + i + k) *                                 \
                       (ga != NULL ? ct__load_##S(ga + i + k) : (A)1);           \
                s[k] += (double)(gg * ct__load_##S(x + i + k));                  \
                b[k] += (double)gg;                                              \
            }                                                                    \
        }                                                                        \
        for (; i < n; i++) {                                                     \
            A gg = ct__load_##S(g + i) * (ga != NULL ? ct__load_##S(ga + i) : (A)1); \
            s[0] += (double)(gg * ct__load_##S(x + i));                          \
            b[0] += (double)gg;                                                  \
        }                                                                        \
        *ds = lanes_total(s);                                                    \
        *db = lanes_total(b);                                                    \
    }                                                                            \
    static void ln_dx_##S(void *giv, const void *gv, const void *xv,             \
                          const void *gav, int64_t n, double a, double b,        \
                          double c)                                              \
    {                                                                            \
        T *gi = giv;                                                             \
        const T *g = gv, *x = xv, *ga = gav;                                     \
        const A aa = (A)a, bb = (A)b, cc = (A)c;                                 \
        for (int64_t i = 0; i < n; i++) {                                        \
            A gm = ga != NULL ? ct__load_##S(ga + i) : (A)1;                     \
            ct__store_##S(gi + i, aa * ct__load_##S(g + i) * gm +                \
                                      bb * ct__load_##S(x + i) + cc);            \
        }                                                                        \
    }                                                                            \
    static void ln_cols_##S(double *dga, double *dbe, const void *gv,            \
                            const void *xv, int64_t n, double a, double b)       \
    {                                                                            \
        const T *g = gv, *x = xv;                                                \
        const A aa = (A)a, bb = (A)b;                                            \
        for (int64_t i = 0; i < n; i++) {                                        \
            A gg = ct__load_##S(g + i);                                          \
            if (dga != NULL) {                                                   \
                dga[i] += (double)(gg * (aa * ct__load_##S(x + i) + bb));        \
            }                                                                    \
            if (dbe != NULL) {                                                   \
                dbe[i] += (double)gg;                                            \
            }                                                                    \
        }                                                                        \
    }
CT_FORALL_FLOATING_DTYPES(SEG_LEAVES)
#undef SEG_LEAVES

static const seg_ops seg_table[CT_DTYPE_COUNT] = {
#define X(E, T, S, A)                                                            \
    [E] = {sum_##S, sqdev_##S, dot_##S, dotdev_##S, affine_##S, center_##S,      \
           gbx_##S, bn_dx_##S, ln_y_##S, ln_sums_##S, ln_dx_##S, ln_cols_##S},
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* --- shared helpers ------------------------------------------------------- */

/* Whether one of ts[0..n-1] (NULLs skipped) lives on a device: the layer
 * then runs, after its checks, as device composites (device_norm.c). */
static bool
any_device(const ct_tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++) {
        if (ct__is_device(ts[i])) {
            return true;
        }
    }
    return false;
}

/* A value rounded to dtype dt (what torch stores in a tensor of it). */
static double
round_to(ct_dtype dt, double v)
{
    switch (dt) {
    case CT_DTYPE_FLOAT32:
        return (double)(float)v;
    case CT_DTYPE_FLOAT16:
        return (double)ct_half_to_float(ct_float_to_half((float)v));
    case CT_DTYPE_BFLOAT16:
        return (double)ct_bfloat16_to_float(ct_float_to_bfloat16((float)v));
    default:
        return v;
    }
}

/* 1 / sqrt(var + eps) with each step in dtype dt, as layer and group
 * norm compute it (batch norm computes it in double). */
static double
inv_sqrt_in(ct_dtype dt, double var, double eps)
{
    double v = round_to(dt, var + round_to(dt, eps));
    return round_to(dt, 1 / round_to(dt, sqrt(v)));
}

static int
check_floating(const char *name, const ct_tensor *t)
{
    if (!ct_dtype_is_floating(t->dtype)) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

/* weight / bias of layer and group norm have the input's dtype. */
static int
check_param_dtype(const ct_tensor *input, const ct_tensor *p)
{
    if (p != NULL && p->dtype != input->dtype) {
        return ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        ct_dtype_table[input->dtype].legacy,
                        ct_dtype_table[p->dtype].legacy);
    }
    return 0;
}

/* A per-channel parameter (or NULL) as n doubles; NULL when t is NULL,
 * *fill used then.  The caller frees. */
static double *
read_param(const ct_tensor *t, int64_t n, double fill)
{
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (v == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a normalization layer");
        return NULL;
    }
    if (t == NULL) {
        for (int64_t i = 0; i < n; i++) {
            v[i] = fill;
        }
        return v;
    }
    ct_tensor *c = ct_contiguous(t);
    if (c == NULL) {
        free(v);
        return NULL;
    }
    ct__reduce_read_f64(c->dtype, ct_tensor_data(c),
                        (int64_t)ct_dtype_itemsize(c->dtype), n, v);
    ct_tensor_decref(c);
    return v;
}

/* n doubles into a new 1-D (or shaped) tensor of dtype dt. */
static ct_tensor *
from_doubles(const double *v, int ndim, const int64_t *sizes, ct_dtype dt)
{
    ct_tensor *t = ct_empty(ndim, sizes, dt, ct_device_cpu());
    if (t != NULL && t->numel > 0) {
        ct__write_converted(dt, ct_tensor_data(t), (int64_t)ct_dtype_itemsize(dt),
                            t->numel, v, true);
    }
    return t;
}

/* Write doubles into an existing (possibly strided 1-D) tensor. */
static void
write_doubles(ct_tensor *t, const double *v)
{
    int64_t st = t->ndim > 0 ? t->strides[0] : 0;
    ct__write_converted(t->dtype, ct_tensor_data(t),
                        st * (int64_t)ct_dtype_itemsize(t->dtype), t->numel, v, true);
}

/* Threads for `groups` independent groups of `numel` elements in all. */
static int
threads_for(int64_t groups, int64_t numel)
{
    if (numel < 2 * MIN_PER_THREAD || groups < 2) {
        return 1;
    }
    int nt = ct__parallel_threads();
    int64_t most = numel / MIN_PER_THREAD;
    nt = most < nt ? (int)most : nt;
    nt = groups < nt ? (int)groups : nt;
    return nt < 1 ? 1 : nt;
}

typedef void (*group_fn)(void *ctx, int64_t lo, int64_t hi, int tid);

typedef struct {
    group_fn fn;
    void *ctx;
    int64_t groups;
} grun;

static void
group_part(void *ctx, int tid, int nthreads)
{
    const grun *r = ctx;
    int64_t lo = r->groups * tid / nthreads, hi = r->groups * (tid + 1) / nthreads;
    r->fn(r->ctx, lo, hi, tid);
}

/* fn(ctx, lo, hi, tid) over [0, groups) on nt threads. */
static void
run_groups(int nt, int64_t groups, group_fn fn, void *ctx)
{
    grun r = {fn, ctx, groups};
    if (nt > 1) {
        ct__parallel_run(nt, group_part, &r);
    }
    else {
        group_part(&r, 0, 1);
    }
}

/* --- batch norm ------------------------------------------------------------ */

/* Note [Batch norm segments]: channel c of a contiguous (N, C, S) input
 * is N segments of S elements starting at (n * C + c) * S, or for S == 1
 * one segment of N elements with stride C starting at c. */
typedef struct {
    const seg_ops *ops;
    ct_dtype dt;
    int64_t N, C, S;
    size_t z;
    const char *x, *g;
    char *y;
    double *mean, *invstd;      /* per channel, rounded to the dtype */
    double *var_sum;
    const double *w, *b;
    double eps;
    bool training;
    /* backward */
    double *sum_g, *dotp;
    bool want_gi;
} bn_job;

static void
bn_seg(const bn_job *j, int64_t c, int64_t n, int64_t *off, int64_t *len, int64_t *st)
{
    if (j->S == 1) {
        *off = c;
        *len = j->N;
        *st = j->C;
    }
    else {
        *off = (n * j->C + c) * j->S;
        *len = j->S;
        *st = 1;
    }
}

static int64_t
bn_nseg(const bn_job *j)
{
    return j->S == 1 ? 1 : j->N;
}

static void
bn_stats_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    bn_job *j = ctx;
    (void)tid;
    double M = (double)(j->N * j->S);
    for (int64_t c = lo; c < hi; c++) {
        double s = 0, v = 0;
        int64_t off, len, st;
        for (int64_t n = 0; n < bn_nseg(j); n++) {
            bn_seg(j, c, n, &off, &len, &st);
            s += j->ops->sum(j->x + off * (int64_t)j->z, len, st);
        }
        /* torch: the mean is stored in the dtype, and the squares use it */
        double mean = round_to(j->dt, s / M);
        j->mean[c] = mean;
        for (int64_t n = 0; n < bn_nseg(j); n++) {
            bn_seg(j, c, n, &off, &len, &st);
            v += j->ops->sqdev(j->x + off * (int64_t)j->z, len, st, mean);
        }
        j->var_sum[c] = v;
    }
}

static void
bn_transform_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    bn_job *j = ctx;
    (void)tid;
    for (int64_t c = lo; c < hi; c++) {
        /* torch: alpha = invstd * w, beta = b - mean * alpha, in the dtype */
        double alpha = round_to(j->dt, j->invstd[c] * j->w[c]);
        double beta = round_to(j->dt, j->b[c] - round_to(j->dt, j->mean[c] * alpha));
        int64_t off, len, st;
        for (int64_t n = 0; n < bn_nseg(j); n++) {
            bn_seg(j, c, n, &off, &len, &st);
            j->ops->affine(j->y + off * (int64_t)j->z, j->x + off * (int64_t)j->z, len,
                           st, alpha, beta);
        }
    }
}

int
ct_native_batch_norm(const ct_tensor *input, const ct_tensor *weight,
                     const ct_tensor *bias, ct_tensor *running_mean,
                     ct_tensor *running_var, bool training, double momentum, double eps,
                     ct_tensor **out, ct_tensor **save_mean, ct_tensor **save_invstd)
{
    bool dev = any_device((const ct_tensor *const[]){input, weight, bias, running_mean,
                                                     running_var}, 5);
    ct_tensor *x = NULL, *y = NULL, *sm = NULL, *si = NULL;
    double *w = NULL, *b = NULL, *mean = NULL, *invstd = NULL, *var_sum = NULL;
    double *rm = NULL, *rv = NULL;
    int rc = -1;

    *out = *save_mean = *save_invstd = NULL;
    if (check_floating("batch_norm", input) < 0) {
        return -1;
    }
    if (input->ndim < 2) {
        return ct_error(CT_ERR_INDEX,
                        "Dimension out of range (expected to be in range of "
                        "[-1, 0], but got 1)");
    }
    if (!training && (running_mean == NULL || running_var == NULL)) {
        return ct_error(CT_ERR_RUNTIME,
                        "running_mean must be defined in evaluation mode");
    }
    /* torch's CPU kernel takes parameters of the input's dtype, or float32
     * ones for a bfloat16 input */
    const ct_tensor *params[4] = {weight, bias, running_mean, running_var};
    bool mixed = false;
    for (int i = 0; i < 4; i++) {
        mixed = mixed || (params[i] != NULL && params[i]->dtype != input->dtype);
    }
    for (int i = 0; mixed && i < 4; i++) {
        if (params[i] != NULL && params[i]->dtype != CT_DTYPE_FLOAT32) {
            return ct_error(CT_ERR_RUNTIME,
                            "mixed dtype (CPU): expect parameter to have "
                            "scalar type of Float");
        }
    }
    /* (on a device, as on PyTorch's, half takes float32 parameters too) */
    if (mixed && input->dtype != CT_DTYPE_BFLOAT16 &&
        !(dev && input->dtype == CT_DTYPE_FLOAT16)) {
        return ct_error(CT_ERR_RUNTIME,
                        "mixed dtype (CPU): expect input to have scalar "
                        "type of BFloat16");
    }
    if (dev) {
        return ct__device_batch_norm(input, weight, bias, running_mean, running_var,
                                     training, momentum, eps, out, save_mean, save_invstd);
    }
    bn_job j = {0};
    j.ops = &seg_table[input->dtype];
    j.dt = input->dtype;
    j.N = input->sizes[0];
    j.C = input->sizes[1];
    j.S = j.N * j.C > 0 ? input->numel / (j.N * j.C) : 0;
    j.z = ct_dtype_itemsize(input->dtype);
    j.eps = eps;
    j.training = training;
    int64_t C = j.C;
    if ((x = ct_contiguous(input)) == NULL ||
        (y = ct_empty(input->ndim, input->sizes, input->dtype, ct_device_cpu())) ==
            NULL ||
        (w = read_param(weight, C, 1)) == NULL ||
        (b = read_param(bias, C, 0)) == NULL ||
        (mean = read_param(NULL, C, 0)) == NULL ||
        (invstd = read_param(NULL, C, 0)) == NULL ||
        (var_sum = read_param(NULL, C, 0)) == NULL) {
        goto done;
    }
    j.x = ct_tensor_data(x);
    j.y = ct_tensor_data(y);
    j.w = w;
    j.b = b;
    j.mean = mean;
    j.invstd = invstd;
    j.var_sum = var_sum;
    int nt = threads_for(C, input->numel);
    ct_dtype dt = input->dtype;
    double M = (double)(j.N * j.S);
    if (training) {
        run_groups(nt, C, bn_stats_part, &j);
        if (running_mean != NULL && (rm = read_param(running_mean, C, 0)) == NULL) {
            goto done;
        }
        if (running_var != NULL && (rv = read_param(running_var, C, 0)) == NULL) {
            goto done;
        }
        for (int64_t c = 0; c < C; c++) {
            mean[c] = round_to(dt, mean[c]);
            /* torch: 1 / sqrt(var + eps), 0 when both are 0 */
            double var = var_sum[c] / M;
            invstd[c] = round_to(dt, var == 0 && eps == 0 ? 0 : 1 / sqrt(var + eps));
            if (rm != NULL) {
                rm[c] = momentum * mean[c] + (1 - momentum) * rm[c];
            }
            if (rv != NULL) {
                rv[c] = momentum * (var_sum[c] / (M - 1)) + (1 - momentum) * rv[c];
            }
        }
        if (rm != NULL) {
            write_doubles(running_mean, rm);
        }
        if (rv != NULL) {
            write_doubles(running_var, rv);
        }
        int64_t cs = C;
        if ((sm = from_doubles(mean, 1, &cs, dt)) == NULL ||
            (si = from_doubles(invstd, 1, &cs, dt)) == NULL) {
            goto done;
        }
    }
    else {
        if ((rm = read_param(running_mean, C, 0)) == NULL ||
            (rv = read_param(running_var, C, 0)) == NULL) {
            goto done;
        }
        for (int64_t c = 0; c < C; c++) {
            mean[c] = round_to(dt, rm[c]);
            invstd[c] = round_to(dt, 1 / sqrt(rv[c] + eps));
        }
        int64_t zero = 0;
        if ((sm = ct_empty(1, &zero, dt, ct_device_cpu())) == NULL ||
            (si = ct_empty(1, &zero, dt, ct_device_cpu())) == NULL) {
            goto done;
        }
    }
    for (int64_t c = 0; c < C; c++) {
        w[c] = round_to(dt, w[c]);
        b[c] = round_to(dt, b[c]);
    }
    run_groups(nt, C, bn_transform_part, &j);
    *out = y;
    *save_mean = sm;
    *save_invstd = si;
    y = sm = si = NULL;
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(y);
    ct_tensor_decref(sm);
    ct_tensor_decref(si);
    free(w);
    free(b);
    free(mean);
    free(invstd);
    free(var_sum);
    free(rm);
    free(rv);
    return rc;
}

static void
bn_grad_sums_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    bn_job *j = ctx;
    (void)tid;
    for (int64_t c = lo; c < hi; c++) {
        double s = 0, d = 0;
        int64_t off, len, st;
        for (int64_t n = 0; n < bn_nseg(j); n++) {
            bn_seg(j, c, n, &off, &len, &st);
            const char *gp = j->g + off * (int64_t)j->z,
                       *xp = j->x + off * (int64_t)j->z;
            s += j->ops->sum(gp, len, st);
            d += j->ops->dotdev(gp, xp, len, st, j->mean[c]);
        }
        j->sum_g[c] = s;
        j->dotp[c] = d;
        if (!j->want_gi) {
            continue;
        }
        double M = (double)(j->N * j->S);
        double k = 0, gmean = 0;
        if (j->training) {
            /* torch: k = dotp * invstd^2 / N and the mean of g, in the dtype */
            k = round_to(j->dt, d * j->invstd[c] * j->invstd[c] / M);
            gmean = round_to(j->dt, s / M);
        }
        for (int64_t n = 0; n < bn_nseg(j); n++) {
            bn_seg(j, c, n, &off, &len, &st);
            j->ops->bn_dx(j->y + off * (int64_t)j->z, j->g + off * (int64_t)j->z,
                          j->x + off * (int64_t)j->z, len, st, j->mean[c], k, gmean,
                          j->invstd[c], j->w[c]);
        }
    }
}

int
ct_native_batch_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                              const ct_tensor *weight, const ct_tensor *running_mean,
                              const ct_tensor *running_var, const ct_tensor *save_mean,
                              const ct_tensor *save_invstd, bool training, double eps,
                              const bool mask[3], ct_tensor **grad_input,
                              ct_tensor **grad_weight, ct_tensor **grad_bias)
{
    bool dev = any_device((const ct_tensor *const[]){grad_out, input, weight, running_mean,
                                                     running_var, save_mean, save_invstd}, 7);
    ct_tensor *x = NULL, *g = NULL, *gi = NULL, *gw = NULL, *gb = NULL;
    double *w = NULL, *mean = NULL, *invstd = NULL, *sum_g = NULL, *dotp = NULL;
    int rc = -1;

    *grad_input = *grad_weight = *grad_bias = NULL;
    if (check_floating("batch_norm_backward", input) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype;
    bn_job j = {0};
    j.ops = &seg_table[dt];
    j.dt = dt;
    j.N = input->sizes[0];
    j.C = input->sizes[1];
    j.S = j.N * j.C > 0 ? input->numel / (j.N * j.C) : 0;
    j.z = ct_dtype_itemsize(dt);
    j.training = training;
    j.want_gi = mask[0];
    int64_t C = j.C;
    const ct_tensor *mt = training ? save_mean : running_mean;
    const ct_tensor *vt = training ? save_invstd : running_var;
    if (mt == NULL || vt == NULL) {
        return ct_error(CT_ERR_RUNTIME,
                        "batch_norm_backward: the %s statistics are missing",
                        training ? "saved" : "running");
    }
    if (dev) {
        return ct__device_batch_norm_backward(grad_out, input, weight, running_mean,
                                              running_var, save_mean, save_invstd, training,
                                              eps, mask, grad_input, grad_weight, grad_bias);
    }
    ct_tensor *gd = NULL;
    if ((x = ct_contiguous(input)) == NULL ||
        (gd = ct_to_dtype(grad_out, dt, false)) == NULL ||
        (g = ct_contiguous(gd)) == NULL || (w = read_param(weight, C, 1)) == NULL ||
        (mean = read_param(mt, C, 0)) == NULL ||
        (invstd = read_param(vt, C, 0)) == NULL ||
        (sum_g = read_param(NULL, C, 0)) == NULL ||
        (dotp = read_param(NULL, C, 0)) == NULL) {
        goto done;
    }
    for (int64_t c = 0; c < C; c++) {
        if (!training) {
            invstd[c] = 1 / sqrt(invstd[c] + eps);
        }
        mean[c] = round_to(dt, mean[c]);
        invstd[c] = round_to(dt, invstd[c]);
        w[c] = round_to(dt, w[c]);
    }
    if (mask[0] &&
        (gi = ct_empty(input->ndim, input->sizes, dt, ct_device_cpu())) == NULL) {
        goto done;
    }
    j.x = ct_tensor_data(x);
    j.g = ct_tensor_data(g);
    j.y = gi != NULL ? ct_tensor_data(gi) : NULL;
    j.mean = mean;
    j.invstd = invstd;
    j.w = w;
    j.sum_g = sum_g;
    j.dotp = dotp;
    run_groups(threads_for(C, input->numel), C, bn_grad_sums_part, &j);
    int64_t cs = C;
    if (mask[1]) {
        for (int64_t c = 0; c < C; c++) {
            dotp[c] *= invstd[c];
        }
        if ((gw = from_doubles(dotp, 1, &cs, weight != NULL ? weight->dtype : dt)) ==
            NULL) {
            goto done;
        }
    }
    if (mask[2] && (gb = from_doubles(sum_g, 1, &cs,
                                      weight != NULL ? weight->dtype : dt)) == NULL) {
        goto done;
    }
    *grad_input = gi;
    *grad_weight = gw;
    *grad_bias = gb;
    gi = gw = gb = NULL;
    rc = 0;
done:
    ct_tensor_decref(gd);
    ct_tensor_decref(x);
    ct_tensor_decref(g);
    ct_tensor_decref(gi);
    ct_tensor_decref(gw);
    ct_tensor_decref(gb);
    free(w);
    free(mean);
    free(invstd);
    free(sum_g);
    free(dotp);
    return rc;
}

/* --- layer norm ------------------------------------------------------------- */

typedef struct {
    const seg_ops *ops;
    ct_dtype dt;
    int64_t M, N;               /* rows, row length */
    size_t z;
    const char *x, *g, *gamma, *beta;
    char *y;
    double *mean, *rstd;        /* per row, rounded to the dtype */
    double eps;
    /* backward: per-thread column sums (nthreads x N each), may be NULL */
    double *dgamma, *dbeta;
    bool want_gi;
} ln_job;

static void
ln_fwd_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    ln_job *j = ctx;
    (void)tid;
    for (int64_t r = lo; r < hi; r++) {
        const char *xp = j->x + r * j->N * (int64_t)j->z;
        double mean = j->ops->sum(xp, j->N, 1) / (double)j->N;
        double var = j->ops->sqdev(xp, j->N, 1, mean) / (double)j->N;
        /* torch: mean and variance in the dtype, rstd = 1 / sqrt(var + eps)
         * computed in it */
        mean = round_to(j->dt, mean);
        double rstd = inv_sqrt_in(j->dt, round_to(j->dt, var), j->eps);
        j->mean[r] = mean;
        j->rstd[r] = rstd;
        double bias = round_to(j->dt, -rstd * mean);
        j->ops->ln_y(j->y + r * j->N * (int64_t)j->z, xp, j->gamma, j->beta, j->N, rstd,
                     bias);
    }
}

/* Check input against normalized_shape and weight / bias; the row count
 * and length. */
static int
ln_check(const ct_tensor *input, int nshape, const int64_t *shape,
         const ct_tensor *weight, const ct_tensor *bias, int64_t *M, int64_t *N)
{
    char b1[512], b2[512];
    if (nshape < 1) {
        return ct_error(CT_ERR_RUNTIME,
                        "Expected normalized_shape to be at least "
                        "1-dimensional, i.e., containing at least one element, but got "
                        "normalized_shape = %s",
                        ct_format_sizes(nshape, shape, b1, sizeof b1));
    }
    const ct_tensor *ps[2] = {weight, bias};
    const char *names[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++) {
        const ct_tensor *p = ps[i];
        if (p != NULL &&
            (p->ndim != nshape ||
             memcmp(p->sizes, shape, sizeof(int64_t) * (size_t)nshape) != 0)) {
            return ct_error(
                CT_ERR_RUNTIME,
                "Expected %s to be of same shape as "
                "normalized_shape, but got %s of shape %s and normalized_shape "
                "= %s",
                names[i], names[i], ct_format_sizes(p->ndim, p->sizes, b1, sizeof b1),
                ct_format_sizes(nshape, shape, b2, sizeof b2));
        }
    }
    int axis = input->ndim - nshape;
    if (axis < 0 ||
        memcmp(input->sizes + axis, shape, sizeof(int64_t) * (size_t)nshape) != 0) {
        /* torch: "Given normalized_shape=[4], expected input with shape [*, 4], but got
         * input of size[3, 5]" */
        char want[512];
        int k = snprintf(want, sizeof want, "[*");
        for (int d = 0; d < nshape && k < (int)sizeof want; d++) {
            k += snprintf(want + k, sizeof want - (size_t)k, ", %lld",
                          (long long)shape[d]);
        }
        return ct_error(CT_ERR_RUNTIME,
                        "Given normalized_shape=%s, expected input with "
                        "shape %s], but got input of size%s",
                        ct_format_sizes(nshape, shape, b1, sizeof b1), want,
                        ct_format_sizes(input->ndim, input->sizes, b2, sizeof b2));
    }
    if (check_floating("LayerNormKernelImpl", input) < 0 ||
        check_param_dtype(input, weight) < 0 || check_param_dtype(input, bias) < 0) {
        return -1;
    }
    *M = 1;
    *N = 1;
    for (int d = 0; d < input->ndim; d++) {
        if (d < axis) {
            *M *= input->sizes[d];
        }
        else {
            *N *= input->sizes[d];
        }
    }
    return 0;
}

/* weight / bias as contiguous tensors of dtype dt (NULL stays NULL). */
static int
param_as(const ct_tensor *p, ct_dtype dt, ct_tensor **out)
{
    *out = NULL;
    if (p == NULL) {
        return 0;
    }
    ct_tensor *c = ct_to_dtype(p, dt, false);
    *out = c != NULL ? ct_contiguous(c) : NULL;
    ct_tensor_decref(c);
    return *out != NULL ? 0 : -1;
}

int
ct_native_layer_norm(const ct_tensor *input, int nshape,
                     const int64_t *normalized_shape, const ct_tensor *weight,
                     const ct_tensor *bias, double eps, ct_tensor **out,
                     ct_tensor **mean, ct_tensor **rstd)
{
    ct_tensor *x = NULL, *y = NULL, *ga = NULL, *be = NULL, *mt = NULL, *rt = NULL;
    double *mv = NULL, *rv = NULL;
    int64_t M, N;
    int rc = -1;

    *out = *mean = *rstd = NULL;
    if (ln_check(input, nshape, normalized_shape, weight, bias, &M, &N) < 0) {
        return -1;
    }
    if (any_device((const ct_tensor *const[]){input, weight, bias}, 3)) {
        return ct__device_layer_norm(input, nshape, weight, bias, eps, out, mean, rstd);
    }
    ct_dtype dt = input->dtype;
    int64_t stat_shape[CT_MAX_DIMS];
    int axis = input->ndim - nshape;
    for (int d = 0; d < input->ndim; d++) {
        stat_shape[d] = d < axis ? input->sizes[d] : 1;
    }
    if ((x = ct_contiguous(input)) == NULL || param_as(weight, dt, &ga) < 0 ||
        param_as(bias, dt, &be) < 0 ||
        (y = ct_empty(input->ndim, input->sizes, dt, ct_device_cpu())) == NULL ||
        (mv = read_param(NULL, M, 0)) == NULL ||
        (rv = read_param(NULL, M, 0)) == NULL) {
        goto done;
    }
    ln_job j = {0};
    j.ops = &seg_table[dt];
    j.dt = dt;
    j.M = M;
    j.N = N;
    j.z = ct_dtype_itemsize(dt);
    j.x = ct_tensor_data(x);
    j.y = ct_tensor_data(y);
    j.gamma = ga != NULL ? ct_tensor_data(ga) : NULL;
    j.beta = be != NULL ? ct_tensor_data(be) : NULL;
    j.mean = mv;
    j.rstd = rv;
    j.eps = eps;
    if (N > 0) {
        run_groups(threads_for(M, input->numel), M, ln_fwd_part, &j);
    }
    else {
        for (int64_t r = 0; r < M; r++) {
            mv[r] = NAN;        /* torch: the moments of nothing */
            rv[r] = NAN;
        }
    }
    if ((mt = from_doubles(mv, input->ndim, stat_shape, dt)) == NULL ||
        (rt = from_doubles(rv, input->ndim, stat_shape, dt)) == NULL) {
        goto done;
    }
    *out = y;
    *mean = mt;
    *rstd = rt;
    y = mt = rt = NULL;
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(y);
    ct_tensor_decref(ga);
    ct_tensor_decref(be);
    ct_tensor_decref(mt);
    ct_tensor_decref(rt);
    free(mv);
    free(rv);
    return rc;
}

static void
ln_bwd_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    ln_job *j = ctx;
    double s = 1 / (double)j->N;
    double *dga = j->dgamma != NULL ? j->dgamma + (int64_t)tid * j->N : NULL;
    double *dbe = j->dbeta != NULL ? j->dbeta + (int64_t)tid * j->N : NULL;
    for (int64_t r = lo; r < hi; r++) {
        int64_t off = r * j->N * (int64_t)j->z;
        double mean = j->mean[r], a = j->rstd[r];
        if (j->want_gi) {
            double ds, db;
            j->ops->ln_sums(j->g + off, j->x + off, j->gamma, j->N, &ds, &db);
            /* torch: b = (db * mean - ds) * a^3 / N, c = -b * mean - db * a / N */
            double b = round_to(j->dt, (db * mean - ds) * a * a * a * s);
            double c = round_to(j->dt, -b * mean - db * a * s);
            j->ops->ln_dx(j->y + off, j->g + off, j->x + off, j->gamma, j->N, a, b, c);
        }
        if (dga != NULL || dbe != NULL) {
            j->ops->ln_cols(dga, dbe, j->g + off, j->x + off, j->N, a,
                            round_to(j->dt, -a * mean));
        }
    }
}

/* Sum the per-thread column sums into the first row. */
static void
fold_columns(double *cols, int nt, int64_t n)
{
    for (int t = 1; t < nt; t++) {
        for (int64_t i = 0; i < n; i++) {
            cols[i] += cols[(int64_t)t * n + i];
        }
    }
}

int
ct_native_layer_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                              int nshape, const int64_t *normalized_shape,
                              const ct_tensor *mean, const ct_tensor *rstd,
                              const ct_tensor *weight, const bool mask[3],
                              ct_tensor **grad_input, ct_tensor **grad_weight,
                              ct_tensor **grad_bias)
{
    ct_tensor *x = NULL, *g = NULL, *gd = NULL, *ga = NULL, *gi = NULL, *gw = NULL;
    ct_tensor *gb = NULL;
    double *mv = NULL, *rv = NULL, *dga = NULL, *dbe = NULL;
    int64_t M, N;
    int rc = -1;

    *grad_input = *grad_weight = *grad_bias = NULL;
    if (ln_check(input, nshape, normalized_shape, weight, NULL, &M, &N) < 0) {
        return -1;
    }
    if (any_device((const ct_tensor *const[]){grad_out, input, mean, rstd, weight}, 5)) {
        return ct__device_layer_norm_backward(grad_out, input, nshape, normalized_shape, mean,
                                              rstd, weight, mask, grad_input, grad_weight,
                                              grad_bias);
    }
    ct_dtype dt = input->dtype;
    int nt = threads_for(M, input->numel);
    size_t cols = (size_t)nt * (size_t)(N > 0 ? N : 1);
    if ((x = ct_contiguous(input)) == NULL ||
        (gd = ct_to_dtype(grad_out, dt, false)) == NULL ||
        (g = ct_contiguous(gd)) == NULL || param_as(weight, dt, &ga) < 0 ||
        (mv = read_param(mean, M, 0)) == NULL ||
        (rv = read_param(rstd, M, 0)) == NULL) {
        goto done;
    }
    if ((mask[1] && (dga = calloc(cols, sizeof(double))) == NULL) ||
        (mask[2] && (dbe = calloc(cols, sizeof(double))) == NULL)) {
        ct_error(CT_ERR_NOMEM, "out of memory in layer_norm's backward");
        goto done;
    }
    if (mask[0] &&
        (gi = ct_empty(input->ndim, input->sizes, dt, ct_device_cpu())) == NULL) {
        goto done;
    }
    for (int64_t r = 0; r < M; r++) {
        mv[r] = round_to(dt, mv[r]);
        rv[r] = round_to(dt, rv[r]);
    }
    ln_job j = {0};
    j.ops = &seg_table[dt];
    j.dt = dt;
    j.M = M;
    j.N = N;
    j.z = ct_dtype_itemsize(dt);
    j.x = ct_tensor_data(x);
    j.g = ct_tensor_data(g);
    j.y = gi != NULL ? ct_tensor_data(gi) : NULL;
    j.gamma = ga != NULL ? ct_tensor_data(ga) : NULL;
    j.mean = mv;
    j.rstd = rv;
    j.dgamma = dga;
    j.dbeta = dbe;
    j.want_gi = mask[0];
    if (N > 0) {
        run_groups(nt, M, ln_bwd_part, &j);
    }
    ct_dtype pdt = weight != NULL ? weight->dtype : dt;
    if (dga != NULL) {
        fold_columns(dga, nt, N);
        if ((gw = from_doubles(dga, nshape, normalized_shape, pdt)) == NULL) {
            goto done;
        }
    }
    if (dbe != NULL) {
        fold_columns(dbe, nt, N);
        if ((gb = from_doubles(dbe, nshape, normalized_shape, pdt)) == NULL) {
            goto done;
        }
    }
    *grad_input = gi;
    *grad_weight = gw;
    *grad_bias = gb;
    gi = gw = gb = NULL;
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(g);
    ct_tensor_decref(gd);
    ct_tensor_decref(ga);
    ct_tensor_decref(gi);
    ct_tensor_decref(gw);
    ct_tensor_decref(gb);
    free(mv);
    free(rv);
    free(dga);
    free(dbe);
    return rc;
}

/* --- group norm ------------------------------------------------------------- */

typedef struct {
    const seg_ops *ops;
    ct_dtype dt;
    int64_t N, C, HxW, G, D;    /* D = C / G channels per group */
    size_t z;
    const char *x, *g;
    char *y;
    const double *gamma, *beta; /* NULL: none */
    double *mean, *rstd;        /* (N, G), rounded */
    double eps;
    /* backward: per (n, c) sums of g * x and of g */
    double *ds, *db;
    bool want_gi;
} gn_job;

/* The job's geometry over the contiguous input x; the rest is zero. */
static gn_job
gn_job_new(ct_dtype dt, int64_t N, int64_t C, int64_t HxW, int64_t group,
           const ct_tensor *x)
{
    return (gn_job){.ops = &seg_table[dt], .dt = dt, .N = N, .C = C, .HxW = HxW,
                    .G = group, .D = C / group, .z = ct_dtype_itemsize(dt),
                    .x = ct_tensor_data(x)};
}

static void
gn_fwd_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    gn_job *j = ctx;
    (void)tid;
    int64_t len = j->D * j->HxW;
    for (int64_t ng = lo; ng < hi; ng++) {
        int64_t gr = ng % j->G;
        const char *xp = j->x + ng * len * (int64_t)j->z;
        char *yp = j->y + ng * len * (int64_t)j->z;
        double mean = len > 0 ? j->ops->sum(xp, len, 1) / (double)len : NAN;
        double var = len > 0 ? j->ops->sqdev(xp, len, 1, mean) / (double)len : NAN;
        mean = round_to(j->dt, mean);
        var = round_to(j->dt, var);
        double rstd = inv_sqrt_in(j->dt, var > 0 ? var : 0, j->eps);
        j->mean[ng] = mean;
        j->rstd[ng] = rstd;
        if (j->gamma == NULL && j->beta == NULL) {
            j->ops->center(yp, xp, len, mean, rstd);
            continue;
        }
        for (int64_t d = 0; d < j->D; d++) {
            int64_t c = gr * j->D + d;
            double scale = round_to(j->dt, rstd * (j->gamma != NULL ? j->gamma[c] : 1));
            double bias = round_to(j->dt, round_to(j->dt, -scale * mean) +
                                              (j->beta != NULL ? j->beta[c] : 0));
            j->ops->affine(yp + d * j->HxW * (int64_t)j->z,
                           xp + d * j->HxW * (int64_t)j->z, j->HxW, 1, scale, bias);
        }
    }
}

/* torch's check_group_norm_inputs; N, C, HxW of the input. */
static int
gn_check(const ct_tensor *input, const ct_tensor *weight, const ct_tensor *bias,
         int64_t group, int64_t *N, int64_t *C, int64_t *HxW)
{
    char b1[512], b2[512];
    if (input->ndim < 2) {
        return ct_error(CT_ERR_RUNTIME,
                        "Expected at least 2 dimensions for input tensor "
                        "but received %d",
                        input->ndim);
    }
    *N = input->sizes[0];
    *C = input->sizes[1];
    *HxW = 1;
    for (int d = 2; d < input->ndim; d++) {
        *HxW *= input->sizes[d];
    }
    if (group <= 0) {
        return ct_error(CT_ERR_RUNTIME,
                        "Expected num groups to be greater than 0, got %lld",
                        (long long)group);
    }
    if (*C % group != 0) {
        return ct_error(CT_ERR_RUNTIME, "Expected number of channels in input to be "
                        "divisible by num_groups, but got input of shape %s and "
                        "num_groups=%lld",
                        ct_format_sizes(input->ndim, input->sizes, b1, sizeof b1),
                        (long long)group);
    }
    const ct_tensor *ps[2] = {weight, bias};
    const char *names[2] = {"weight", "bias"};
    for (int i = 0; i < 2; i++) {
        if (ps[i] != NULL && (ps[i]->ndim != 1 || ps[i]->numel != *C)) {
            /* torch 1.13 prints the weight's shape in both messages ([0]
             * when there is no weight) */
            int64_t none = 0;
            return ct_error(
                CT_ERR_RUNTIME,
                "Expected %s to be a vector of size equal to "
                "the number of channels in input, but got %s of shape %s and "
                "input of shape %s",
                names[i], names[i],
                weight != NULL
                    ? ct_format_sizes(weight->ndim, weight->sizes, b1, sizeof b1)
                    : ct_format_sizes(1, &none, b1, sizeof b1),
                ct_format_sizes(input->ndim, input->sizes, b2, sizeof b2));
        }
    }
    if (check_floating("GroupNormKernelImpl", input) < 0 ||
        check_param_dtype(input, weight) < 0 || check_param_dtype(input, bias) < 0) {
        return -1;
    }
    return 0;
}

int
ct_native_group_norm(const ct_tensor *input, const ct_tensor *weight,
                     const ct_tensor *bias, int64_t group, double eps, ct_tensor **out,
                     ct_tensor **mean, ct_tensor **rstd)
{
    ct_tensor *x = NULL, *y = NULL, *mt = NULL, *rt = NULL;
    double *ga = NULL, *be = NULL, *mv = NULL, *rv = NULL;
    int64_t N, C, HxW;
    int rc = -1;

    *out = *mean = *rstd = NULL;
    if (gn_check(input, weight, bias, group, &N, &C, &HxW) < 0) {
        return -1;
    }
    if (any_device((const ct_tensor *const[]){input, weight, bias}, 3)) {
        return ct__device_group_norm(input, weight, bias, group, eps, out, mean, rstd);
    }
    ct_dtype dt = input->dtype;
    int64_t NG = N * group;
    if ((x = ct_contiguous(input)) == NULL ||
        (y = ct_empty(input->ndim, input->sizes, dt, ct_device_cpu())) == NULL ||
        (weight != NULL && (ga = read_param(weight, C, 1)) == NULL) ||
        (bias != NULL && (be = read_param(bias, C, 0)) == NULL) ||
        (mv = read_param(NULL, NG, 0)) == NULL ||
        (rv = read_param(NULL, NG, 0)) == NULL) {
        goto done;
    }
    for (int64_t c = 0; c < C; c++) {
        if (ga != NULL) {
            ga[c] = round_to(dt, ga[c]);
        }
        if (be != NULL) {
            be[c] = round_to(dt, be[c]);
        }
    }
    gn_job j = gn_job_new(dt, N, C, HxW, group, x);
    j.y = ct_tensor_data(y);
    j.gamma = ga;
    j.beta = be;
    j.mean = mv;
    j.rstd = rv;
    j.eps = eps;
    run_groups(threads_for(NG, input->numel), NG, gn_fwd_part, &j);
    int64_t shape[2] = {N, group};
    if ((mt = from_doubles(mv, 2, shape, dt)) == NULL ||
        (rt = from_doubles(rv, 2, shape, dt)) == NULL) {
        goto done;
    }
    *out = y;
    *mean = mt;
    *rstd = rt;
    y = mt = rt = NULL;
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(y);
    ct_tensor_decref(mt);
    ct_tensor_decref(rt);
    free(ga);
    free(be);
    free(mv);
    free(rv);
    return rc;
}

static void
gn_bwd_part(void *ctx, int64_t lo, int64_t hi, int tid)
{
    gn_job *j = ctx;
    (void)tid;
    int64_t len = j->D * j->HxW;
    double s = 1 / (double)len;
    for (int64_t ng = lo; ng < hi; ng++) {
        int64_t n = ng / j->G, gr = ng % j->G;
        const char *xp = j->x + ng * len * (int64_t)j->z;
        const char *gp = j->g + ng * len * (int64_t)j->z;
        double ds_g = 0, db_g = 0;
        for (int64_t d = 0; d < j->D; d++) {
            int64_t c = gr * j->D + d, off = d * j->HxW * (int64_t)j->z;
            double ds = j->ops->dot(gp + off, xp + off, j->HxW, 1);
            double db = j->ops->sum(gp + off, j->HxW, 1);
            j->ds[n * j->C + c] = ds;
            j->db[n * j->C + c] = db;
            double gm = j->gamma != NULL ? j->gamma[c] : 1;
            ds_g += ds * gm;
            db_g += db * gm;
        }
        if (!j->want_gi) {
            continue;
        }
        double mean = j->mean[ng], rstd = j->rstd[ng];
        /* torch: c2 = (db * mean - ds) * rstd^3 / (D * HxW),
         * c3 = -c2 * mean - db * rstd / (D * HxW),
         * dx = rstd * gamma * g + c2 * x + c3 */
        double c2 = round_to(j->dt, (db_g * mean - ds_g) * rstd * rstd * rstd * s);
        double c3 = round_to(j->dt, -c2 * mean - db_g * rstd * s);
        for (int64_t d = 0; d < j->D; d++) {
            int64_t c = gr * j->D + d, off = d * j->HxW * (int64_t)j->z;
            double c1 = round_to(j->dt, rstd * (j->gamma != NULL ? j->gamma[c] : 1));
            j->ops->gbx(j->y + ng * len * (int64_t)j->z + off, gp + off, xp + off,
                        j->HxW, c1, c2, c3);
        }
    }
}

int
ct_native_group_norm_backward(const ct_tensor *grad_out, const ct_tensor *input,
                              const ct_tensor *mean, const ct_tensor *rstd,
                              const ct_tensor *weight, int64_t group,
                              const bool mask[3], ct_tensor **grad_input,
                              ct_tensor **grad_weight, ct_tensor **grad_bias)
{
    ct_tensor *x = NULL, *gd = NULL, *g = NULL, *gi = NULL, *gw = NULL, *gb = NULL;
    double *ga = NULL, *mv = NULL, *rv = NULL, *ds = NULL, *db = NULL;
    int64_t N, C, HxW;
    int rc = -1;

    *grad_input = *grad_weight = *grad_bias = NULL;
    if (gn_check(input, weight, NULL, group, &N, &C, &HxW) < 0) {
        return -1;
    }
    if (any_device((const ct_tensor *const[]){grad_out, input, mean, rstd, weight}, 5)) {
        return ct__device_group_norm_backward(grad_out, input, mean, rstd, weight, group, mask,
                                              grad_input, grad_weight, grad_bias);
    }
    ct_dtype dt = input->dtype;
    int64_t NG = N * group;
    if ((x = ct_contiguous(input)) == NULL ||
        (gd = ct_to_dtype(grad_out, dt, false)) == NULL ||
        (g = ct_contiguous(gd)) == NULL ||
        (weight != NULL && (ga = read_param(weight, C, 1)) == NULL) ||
        (mv = read_param(mean, NG, 0)) == NULL ||
        (rv = read_param(rstd, NG, 0)) == NULL ||
        (ds = read_param(NULL, N * C, 0)) == NULL ||
        (db = read_param(NULL, N * C, 0)) == NULL) {
        goto done;
    }
    if (mask[0] &&
        (gi = ct_empty(input->ndim, input->sizes, dt, ct_device_cpu())) == NULL) {
        goto done;
    }
    for (int64_t c = 0; ga != NULL && c < C; c++) {
        ga[c] = round_to(dt, ga[c]);
    }
    for (int64_t i = 0; i < NG; i++) {
        mv[i] = round_to(dt, mv[i]);
        rv[i] = round_to(dt, rv[i]);
    }
    gn_job j = gn_job_new(dt, N, C, HxW, group, x);
    j.g = ct_tensor_data(g);
    j.y = gi != NULL ? ct_tensor_data(gi) : NULL;
    j.gamma = ga;
    j.mean = mv;
    j.rstd = rv;
    j.ds = ds;
    j.db = db;
    j.want_gi = mask[0];
    if (j.D * HxW > 0) {
        run_groups(threads_for(NG, input->numel), NG, gn_bwd_part, &j);
    }
    ct_dtype pdt = weight != NULL ? weight->dtype : dt;
    if (mask[1] || mask[2]) {
        /* dgamma[c] = sum_n (ds - db * mean) * rstd, dbeta[c] = sum_n db */
        double *dgv = read_param(NULL, C, 0), *dbv = read_param(NULL, C, 0);
        if (dgv == NULL || dbv == NULL) {
            free(dgv);
            free(dbv);
            goto done;
        }
        for (int64_t n = 0; n < N; n++) {
            for (int64_t c = 0; c < C; c++) {
                int64_t ng = n * group + c / j.D;
                dgv[c] += (ds[n * C + c] - db[n * C + c] * mv[ng]) * rv[ng];
                dbv[c] += db[n * C + c];
            }
        }
        int64_t cs = C;
        if (mask[1]) {
            gw = from_doubles(dgv, 1, &cs, pdt);
        }
        if (mask[2]) {
            gb = from_doubles(dbv, 1, &cs, pdt);
        }
        free(dgv);
        free(dbv);
        if ((mask[1] && gw == NULL) || (mask[2] && gb == NULL)) {
            goto done;
        }
    }
    *grad_input = gi;
    *grad_weight = gw;
    *grad_bias = gb;
    gi = gw = gb = NULL;
    rc = 0;
done:
    ct_tensor_decref(x);
    ct_tensor_decref(gd);
    ct_tensor_decref(g);
    ct_tensor_decref(gi);
    ct_tensor_decref(gw);
    ct_tensor_decref(gb);
    free(ga);
    free(mv);
    free(rv);
    free(ds);
    free(db);
    return rc;
}
