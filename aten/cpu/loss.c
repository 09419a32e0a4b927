/* aten/cpu/loss.c -- the loss kernels of torch.nn: the pointwise losses
 * (mse, smooth_l1, huber, binary_cross_entropy and its with_logits form)
 * and the negative log likelihood (nll_loss, nll_loss2d), forward and
 * backward.  See include/ctorch/ops_nn.h.
 *
 * Note [Pointwise loss engine]
 * Every operand of a pointwise loss (input, target, the optional weight
 * and pos_weight, and the incoming gradient of a backward) is made either
 * one element (read with step 0) or a contiguous tensor of the common
 * broadcast shape (step 1); a missing optional operand reads a constant 1.
 * One typed loop per (direction, op, dtype) then walks the n elements,
 * calling the op's element function in the dtype's compute type (so a
 * float32 'none' loss is bit for bit torch's) and either storing each
 * value or adding it to a double accumulator (mean / sum: one pass, no
 * intermediate tensor).  Large inputs are split across threads, each
 * with its own partial sum, added in thread order.  The element functions
 * follow torch 1.13's CPU kernels operation by operation.
 */
#include "aten/device_compose.h"
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/cpu/reduce_impl.h"
#include "aten/parallel.h"
#include "c10/convert.h"

#define MIN_PER_THREAD 32768

const char *const ct_ploss_names[CT_PLOSS_COUNT] = {
#define X(E, N, K) [E] = N,
    CT_FORALL_PLOSS(X)
#undef X
};

static const char *const ploss_kernels[CT_PLOSS_COUNT] = {
#define X(E, N, K) [E] = K,
    CT_FORALL_PLOSS(X)
#undef X
};

/* --- element functions ---------------------------------------------------
 * x input, y target, w weight, q pos_weight, g incoming gradient (each 1
 * when absent), p beta / delta, mul and div the reduction's factor and
 * divisor, haspw whether pos_weight was given.  Stamped for the two
 * compute types; tgmath.h picks logf / log etc. by argument type. */
#define ELEMENT_FNS(A)                                                           \
    static inline A max_##A(A a, A b) { return a < b ? b : a; }                 \
    static inline A sigmoid_##A(A x) { return (A)1 / ((A)1 + exp(-x)); }        \
    static inline A log_sigmoid_##A(A x)                                        \
    {                                                                           \
        return (x < 0 ? x : (A)0) - log1p(exp(-fabs(x)));                       \
    }                                                                           \
    static inline A fwd_mse_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)w, (void)q, (void)g, (void)p, (void)mul, (void)div, (void)haspw;  \
        return (x - y) * (x - y);                                               \
    }                                                                           \
    static inline A fwd_sl1_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)w, (void)q, (void)g, (void)mul, (void)div, (void)haspw;           \
        A z = fabs(x - y);                                                      \
        return z < p ? (A)0.5 * z * z / p : z - (A)0.5 * p;                     \
    }                                                                           \
    static inline A fwd_huber_##A(A x, A y, A w, A q, A g, A p, A mul, A div,   \
                                  bool haspw)                                   \
    {                                                                           \
        (void)w, (void)q, (void)g, (void)mul, (void)div, (void)haspw;           \
        A z = fabs(x - y);                                                      \
        return z < p ? (A)0.5 * z * z : p * (z - (A)0.5 * p);                   \
    }                                                                           \
    static inline A fwd_bce_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)q, (void)g, (void)p, (void)mul, (void)div, (void)haspw;           \
        return ((y - (A)1) * max_##A(log1p(-x), (A)-100) -                      \
                y * max_##A(log(x), (A)-100)) * w;                              \
    }                                                                           \
    static inline A fwd_bcel_##A(A x, A y, A w, A q, A g, A p, A mul, A div,    \
                                 bool haspw)                                    \
    {                                                                           \
        (void)g, (void)p, (void)mul, (void)div;                                 \
        A m = max_##A(-x, (A)0);                                                \
        A lse = log(exp(-m) + exp(-x - m));                                     \
        if (haspw) {                                                            \
            A lw = (q - (A)1) * y + (A)1;                                       \
            return (((A)1 - y) * x + lw * (lse + m)) * w;                       \
        }                                                                       \
        return (((A)1 - y) * x + m + lse) * w;                                  \
    }                                                                           \
    static inline A bwd_mse_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)w, (void)q, (void)p, (void)div, (void)haspw;                      \
        return mul * (x - y) * g;                                               \
    }                                                                           \
    static inline A bwd_sl1_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)w, (void)q, (void)div, (void)haspw;                               \
        A d = x - y;                                                            \
        return d <= -p ? -mul * g : d >= p ? mul * g : mul * d * g / p;         \
    }                                                                           \
    static inline A bwd_huber_##A(A x, A y, A w, A q, A g, A p, A mul, A div,   \
                                  bool haspw)                                   \
    {                                                                           \
        (void)w, (void)q, (void)div, (void)haspw;                               \
        A d = x - y;                                                            \
        return d <= -p ? -mul * g * p : d >= p ? mul * g * p : mul * d * g;     \
    }                                                                           \
    static inline A bwd_bce_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)q, (void)p, (void)mul, (void)haspw;                               \
        return g * (x - y) / max_##A(((A)1 - x) * x, (A)1e-12) * w / div;       \
    }                                                                           \
    static inline A bwd_bcel_##A(A x, A y, A w, A q, A g, A p, A mul, A div,    \
                                 bool haspw)                                    \
    {                                                                           \
        (void)p, (void)mul;                                                     \
        if (haspw) {                                                            \
            A t = q * y;                                                        \
            return ((t + (A)1 - y) * sigmoid_##A(x) - t) * g * w / div;         \
        }                                                                       \
        return (sigmoid_##A(x) - y) * g * w / div;                              \
    }                                                                           \
    static inline A tgt_bce_##A(A x, A y, A w, A q, A g, A p, A mul, A div,     \
                                bool haspw)                                     \
    {                                                                           \
        (void)y, (void)q, (void)p, (void)mul, (void)haspw;                      \
        return -log(x / ((A)1 - x)) * g * w / div;                              \
    }                                                                           \
    static inline A tgt_bcel_##A(A x, A y, A w, A q, A g, A p, A mul, A div,    \
                                 bool haspw)                                    \
    {                                                                           \
        (void)y, (void)p, (void)mul;                                            \
        if (haspw) {                                                            \
            return (log_sigmoid_##A(-x) - log_sigmoid_##A(x) * q) * g * w / div; \
        }                                                                       \
        return -x * g * w / div;                                                \
    }                                                                           \
    static inline bool bad_none_##A(A x) { (void)x; return false; }             \
    static inline bool bad_unit_##A(A x) { return !(x >= 0 && x <= 1); }

ELEMENT_FNS(float)
ELEMENT_FNS(double)
#undef ELEMENT_FNS

/* --- the loops ------------------------------------------------------------ */

typedef struct {
    int64_t n;
    const char *x, *y, *w, *q, *g;      /* NULL: the constant 1 */
    int64_t xs, ys, ws, qs, gs;         /* element steps, 0 or 1 */
    char *out;                          /* NULL: accumulate */
    double p, mul, div;
    bool haspw;
    int nthreads;
    double *partial;                    /* one per thread */
    bool *bad;                          /* one per thread */
} pjob;

typedef double (*ploss_loop)(const pjob *j, int64_t lo, int64_t hi, bool *bad);

/* Sums run in LANES independent double accumulators (added pairwise at
 * the end), so the additions pipeline instead of waiting on each other. */
#define LANES 8

static inline double
lanes_total(const double *a)
{
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* Elements [lo, hi) of a pointwise loss job; returns their sum when not
 * storing.  BAD flags an input torch rejects (BCE's range check).
 * NAME_at computes element i (the operands' steps are 0 or 1). */
#define PLOSS_LOOP(NAME, T, S, A, EL, BAD)                                      \
    static inline A NAME##_at(const pjob *j, const T *const *op, int64_t i,     \
                              A p, A mul, A div, bool *bad)                     \
    {                                                                           \
        A x = ct__load_##S(op[0] + i * j->xs);                                  \
        *bad |= BAD(x);                                                         \
        return EL(x, ct__load_##S(op[1] + i * j->ys), ct__load_##S(op[2] + i * j->ws), \
                  ct__load_##S(op[3] + i * j->qs), ct__load_##S(op[4] + i * j->gs), \
                  p, mul, div, j->haspw);                                       \
    }                                                                           \
    static double NAME(const pjob *j, int64_t lo, int64_t hi, bool *bad)        \
    {                                                                           \
        const T one = ct__##S##_from_f64(1.0);                                  \
        const T *op[5] = {(const T *)j->x, (const T *)j->y,                     \
                          j->w ? (const T *)j->w : &one,                        \
                          j->q ? (const T *)j->q : &one,                        \
                          j->g ? (const T *)j->g : &one};                       \
        const A p = (A)j->p, mul = (A)j->mul, div = (A)j->div;                  \
        T *po = (T *)j->out;                                                    \
        bool b = false;                                                         \
        if (po != NULL) {                                                       \
            for (int64_t i = lo; i < hi; i++) {                                 \
                ct__store_##S(po + i, NAME##_at(j, op, i, p, mul, div, &b));    \
            }                                                                   \
            *bad = *bad || b;                                                   \
            return 0;                                                           \
        }                                                                       \
        double acc[LANES] = {0};                                                \
        int64_t i = lo;                                                         \
        for (; i + LANES <= hi; i += LANES) {                                   \
            for (int k = 0; k < LANES; k++) {                                   \
                acc[k] += (double)NAME##_at(j, op, i + k, p, mul, div, &b);     \
            }                                                                   \
        }                                                                       \
        for (; i < hi; i++) {                                                   \
            acc[0] += (double)NAME##_at(j, op, i, p, mul, div, &b);             \
        }                                                                       \
        *bad = *bad || b;                                                       \
        return lanes_total(acc);                                                \
    }

#define STAMP_ONE(S, T, A, EL, BAD) PLOSS_LOOP(EL##_##S, T, S, A, EL##_##A, BAD##_##A)
#define STAMP_DTYPE(E, T, S, A)                                                 \
    STAMP_ONE(S, T, A, fwd_mse, bad_none)                                       \
    STAMP_ONE(S, T, A, fwd_sl1, bad_none)                                       \
    STAMP_ONE(S, T, A, fwd_huber, bad_none)                                     \
    STAMP_ONE(S, T, A, fwd_bce, bad_unit)                                       \
    STAMP_ONE(S, T, A, fwd_bcel, bad_none)                                      \
    STAMP_ONE(S, T, A, bwd_mse, bad_none)                                       \
    STAMP_ONE(S, T, A, bwd_sl1, bad_none)                                       \
    STAMP_ONE(S, T, A, bwd_huber, bad_none)                                     \
    STAMP_ONE(S, T, A, bwd_bce, bad_none)                                       \
    STAMP_ONE(S, T, A, bwd_bcel, bad_none)                                      \
    STAMP_ONE(S, T, A, tgt_bce, bad_none)                                       \
    STAMP_ONE(S, T, A, tgt_bcel, bad_none)
CT_FORALL_FLOATING_DTYPES(STAMP_DTYPE)
#undef STAMP_DTYPE
#undef STAMP_ONE

enum { DIR_FWD, DIR_BWD, DIR_TGT, DIR_COUNT };

/* loops[direction][op][dtype]; NULL: not a (direction, op) pair (the
 * target gradient of mse / smooth_l1 / huber is the input gradient with
 * input and target swapped, as torch computes it). */
static const ploss_loop ploss_loops[DIR_COUNT][CT_PLOSS_COUNT][CT_DTYPE_COUNT] = {
#define D(E, T, S, A) [E] = fwd_mse_##S,
    [DIR_FWD][CT_PLOSS_MSE] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = fwd_sl1_##S,
    [DIR_FWD][CT_PLOSS_SMOOTH_L1] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = fwd_huber_##S,
    [DIR_FWD][CT_PLOSS_HUBER] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = fwd_bce_##S,
    [DIR_FWD][CT_PLOSS_BCE] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = fwd_bcel_##S,
    [DIR_FWD][CT_PLOSS_BCE_LOGITS] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = bwd_mse_##S,
    [DIR_BWD][CT_PLOSS_MSE] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = bwd_sl1_##S,
    [DIR_BWD][CT_PLOSS_SMOOTH_L1] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = bwd_huber_##S,
    [DIR_BWD][CT_PLOSS_HUBER] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = bwd_bce_##S,
    [DIR_BWD][CT_PLOSS_BCE] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = bwd_bcel_##S,
    [DIR_BWD][CT_PLOSS_BCE_LOGITS] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = tgt_bce_##S,
    [DIR_TGT][CT_PLOSS_BCE] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
#define D(E, T, S, A) [E] = tgt_bcel_##S,
    [DIR_TGT][CT_PLOSS_BCE_LOGITS] = {CT_FORALL_FLOATING_DTYPES(D)},
#undef D
};

typedef struct {
    const pjob *j;
    ploss_loop loop;
} prun;

static void
ploss_part(void *ctx, int tid, int nthreads)
{
    const prun *r = ctx;
    int64_t n = r->j->n;
    int64_t lo = n * tid / nthreads, hi = n * (tid + 1) / nthreads;
    r->j->partial[tid] = r->loop(r->j, lo, hi, &r->j->bad[tid]);
}

/* Run the loop over all n elements; returns the sum (when accumulating),
 * *bad set when an element failed the loop's check. */
static int
ploss_run(pjob *j, ploss_loop loop, double *sum, bool *bad)
{
    int nt = 1;
    if (j->n >= 2 * MIN_PER_THREAD) {
        nt = ct__parallel_threads();
        int64_t most = j->n / MIN_PER_THREAD;
        nt = most < nt ? (int)most : nt;
        nt = nt < 1 ? 1 : nt;
    }
    double p1;
    bool b1 = false;
    j->partial = nt > 1 ? calloc((size_t)nt, sizeof(double)) : &p1;
    j->bad = nt > 1 ? calloc((size_t)nt, sizeof(bool)) : &b1;
    if (j->partial == NULL || j->bad == NULL) {
        if (nt > 1) {
            free(j->partial);
            free(j->bad);
        }
        return ct_error(CT_ERR_NOMEM, "out of memory in a loss kernel");
    }
    prun r = {j, loop};
    if (nt > 1) {
        ct__parallel_run(nt, ploss_part, &r);
    }
    else {
        ploss_part(&r, 0, 1);
    }
    *sum = 0;
    *bad = false;
    for (int t = 0; t < nt; t++) {
        *sum += j->partial[t];
        *bad = *bad || j->bad[t];
    }
    if (nt > 1) {
        free(j->partial);
        free(j->bad);
    }
    j->partial = NULL;
    j->bad = NULL;
    return 0;
}

/* --- operands ------------------------------------------------------------- */

static int
not_implemented(const char *kernel, ct_dtype dt)
{
    return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", kernel,
                    ct_dtype_table[dt].legacy);
}

/* t as an operand of n elements of `shape` in dtype dt: *data, *step and
 * (a new reference that keeps them alive) the return value.  A one-element
 * operand is read with step 0; anything else is broadcast and made
 * contiguous. */
static ct_tensor *
operand(const ct_tensor *t, ct_dtype dt, int ndim, const int64_t *shape,
        const char **data, int64_t *step)
{
    ct_tensor *c = ct_to_dtype(t, dt, false);
    if (c == NULL) {
        return NULL;
    }
    if (c->numel == 1) {
        *step = 0;
        *data = ct_tensor_data(c);
        return c;
    }
    bool same = c->ndim == ndim &&
                memcmp(c->sizes, shape, sizeof(int64_t) * (size_t)ndim) == 0;
    if (!same || !ct_tensor_is_contiguous(c)) {
        ct_tensor *e = same ? NULL : ct_expand(c, ndim, shape);
        ct_tensor *k = ct_contiguous(same ? c : e);
        ct_tensor_decref(e);
        ct_tensor_decref(c);
        if ((c = k) == NULL) {
            return NULL;
        }
    }
    *step = 1;
    *data = ct_tensor_data(c);
    return c;
}

/* The common shape of up to five operands (NULL entries skipped). */
static int
common_shape(int n, const ct_tensor *const *ts, int *ndim, int64_t *shape)
{
    *ndim = 0;
    for (int i = 0; i < n; i++) {
        if (ts[i] == NULL) {
            continue;
        }
        int64_t tmp[CT_MAX_DIMS];
        int nd;
        int rc = ct_broadcast_shapes(*ndim, shape, ts[i]->ndim, ts[i]->sizes, &nd, tmp);
        if (rc < 0) {
            return -1;
        }
        *ndim = nd;
        memcpy(shape, tmp, sizeof(int64_t) * (size_t)nd);
    }
    return 0;
}

/* The dtype a pointwise loss computes in; -1 with torch's error. */
static int
ploss_dtype(ct_ploss_op op, const ct_tensor *input, const ct_tensor *target,
            ct_dtype *dt)
{
    if (op == CT_PLOSS_BCE) {
        if (!ct_dtype_is_floating(input->dtype) || input->dtype == CT_DTYPE_FLOAT16 ||
            input->dtype == CT_DTYPE_BFLOAT16) {
            return not_implemented(ploss_kernels[op], input->dtype);
        }
        if (target->dtype != input->dtype) {
            return ct_error(CT_ERR_RUNTIME, "Found dtype %s but expected %s",
                            ct_dtype_table[target->dtype].legacy,
                            ct_dtype_table[input->dtype].legacy);
        }
        *dt = input->dtype;
        return 0;
    }
    if (ct_result_type(input, target, dt) < 0) {
        return -1;
    }
    if (op == CT_PLOSS_BCE_LOGITS && !ct_dtype_is_floating(target->dtype)) {
        /* torch writes (1 - target) * input in place */
        return ct_error(CT_ERR_RUNTIME, "result type %s can't be cast to the desired "
                        "output type %s", ct_dtype_table[*dt].legacy,
                        ct_dtype_table[target->dtype].legacy);
    }
    if (!ct_dtype_is_floating(*dt)) {
        return not_implemented(ploss_kernels[op], *dt);
    }
    return 0;
}

static int
ploss_check_param(ct_ploss_op op, double p)
{
    if (op == CT_PLOSS_SMOOTH_L1 && p < 0) {
        return ct_error(CT_ERR_RUNTIME,
                        "smooth_l1_loss does not support negative values for beta.");
    }
    if (op == CT_PLOSS_HUBER && !(p > 0)) {
        return ct_error(CT_ERR_RUNTIME,
                        "huber_loss does not support non-positive values for delta.");
    }
    return 0;
}

/* Everything a run needs, with the references that keep the operands. */
typedef struct {
    pjob j;
    ct_dtype dt;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    ct_tensor *keep[5];
} pprep;

static void
pprep_release(pprep *pp)
{
    for (int i = 0; i < 5; i++) {
        ct_tensor_decref(pp->keep[i]);
    }
}

/* Operands x, y, w, q, g of a run (g may be NULL: forward). */
static int
pprep_setup(pprep *pp, ct_ploss_op op, const ct_tensor *grad, const ct_tensor *input,
            const ct_tensor *target, const ct_ploss_args *args)
{
    static const ct_ploss_args none = {NULL, NULL, 0};
    memset(pp, 0, sizeof *pp);
    args = args != NULL ? args : &none;
    const ct_tensor *w = op == CT_PLOSS_BCE || op == CT_PLOSS_BCE_LOGITS ? args->weight
                                                                        : NULL;
    const ct_tensor *q = op == CT_PLOSS_BCE_LOGITS ? args->pos_weight : NULL;
    const ct_tensor *all[5] = {input, target, w, q, grad};
    if (ploss_check_param(op, args->param) < 0 ||
        ploss_dtype(op, input, target, &pp->dt) < 0 ||
        common_shape(5, all, &pp->ndim, pp->shape) < 0) {
        return -1;
    }
    const char **data[5] = {&pp->j.x, &pp->j.y, &pp->j.w, &pp->j.q, &pp->j.g};
    int64_t *steps[5] = {&pp->j.xs, &pp->j.ys, &pp->j.ws, &pp->j.qs, &pp->j.gs};
    for (int i = 0; i < 5; i++) {
        *data[i] = NULL;
        *steps[i] = 0;
        if (all[i] != NULL) {
            pp->keep[i] =
                operand(all[i], pp->dt, pp->ndim, pp->shape, data[i], steps[i]);
            if (pp->keep[i] == NULL) {
                pprep_release(pp);
                return -1;
            }
        }
    }
    pp->j.n = 1;
    for (int d = 0; d < pp->ndim; d++) {
        pp->j.n *= pp->shape[d];
    }
    pp->j.p = args->param;
    pp->j.haspw = q != NULL;
    pp->j.mul = 1;
    pp->j.div = 1;
    return 0;
}

static int
check_range(bool bad)
{
    if (bad) {
        return ct_error(CT_ERR_RUNTIME,
                        "all elements of input should be between 0 and 1");
    }
    return 0;
}

/* a number (device_compose.h's scalar of a double) */
static ct_tensor *
dsc(temps *s, double v)
{
    return scalar(s, ct_scalar_float(v));
}

/* max_A(a, v) of the element functions: a < v ? v : a (NaN stays). */
static ct_tensor *
dmax(temps *s, const ct_tensor *a, double v)
{
    ct_tensor *k = dsc(s, v);
    return where3(s, bin(s, CT_BINARY_LT, a, k), k, a);
}

/* log_sigmoid_A(x) = (x < 0 ? x : 0) - log1p(exp(-|x|)) */
static ct_tensor *
dlog_sigmoid(temps *s, const ct_tensor *x)
{
    ct_tensor *zero = dsc(s, 0);
    ct_tensor *m = bin(s, CT_BINARY_MINIMUM, x, zero);
    ct_tensor *e = un(s, CT_UNARY_EXP, un(s, CT_UNARY_NEG, un(s, CT_UNARY_ABS, x)));
    ct_tensor *l = un(s, CT_UNARY_LOG1P, e);
    return bin(s, CT_BINARY_SUB, m, l);
}

/* On a device, the pointwise losses from device ops, following the CPU's
 * element functions above operation by operation, in the compute type
 * (float for float16 / bfloat16), after the CPU's checks (BCE's range
 * check: one device reduction read on the host).  The target gradient of
 * mse / smooth_l1 / huber is the input gradient with x and y swapped, as
 * the CPU kernels compute it.
 * mean / sum add in float64 as the CPU does.  A new reference. */
static ct_tensor *
device_ploss(ct_ploss_op op, const ct_tensor *grad, const ct_tensor *input,
             const ct_tensor *target, const ct_ploss_args *args, ct_reduction reduction,
             bool wrt_target)
{
    static const ct_ploss_args none = {NULL, NULL, 0};
    args = args != NULL ? args : &none;
    const ct_tensor *w0 = op == CT_PLOSS_BCE || op == CT_PLOSS_BCE_LOGITS ? args->weight
                                                                         : NULL;
    const ct_tensor *q0 = op == CT_PLOSS_BCE_LOGITS ? args->pos_weight : NULL;
    const ct_tensor *all[5] = {input, target, w0, q0, grad};
    ct_device dev;
    ct_dtype dt;
    int ndim;
    int64_t shape[CT_MAX_DIMS];
    if (ct__op_device(5, 0, all, &dev) < 0 || ploss_check_param(op, args->param) < 0 ||
        ploss_dtype(op, input, target, &dt) < 0 || common_shape(5, all, &ndim, shape) < 0) {
        return NULL;
    }
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) {
        n *= shape[d];
    }
    ct_dtype cdt = accumulate_dtype(dt);
    temps s = {.n = 0};
    ct_tensor *x = in_dtype(&s, input, cdt), *y = in_dtype(&s, target, cdt);
    ct_tensor *w = w0 != NULL ? in_dtype(&s, w0, cdt) : NULL;
    ct_tensor *q = q0 != NULL ? in_dtype(&s, q0, cdt) : NULL;
    ct_tensor *g = grad != NULL ? in_dtype(&s, grad, cdt) : NULL;
    ct_tensor *r = NULL, *one = dsc(&s, 1);
    double p = args->param;
    bool mean = reduction == CT_REDUCTION_MEAN;
    if (x == NULL || y == NULL || (w0 && !w) || (q0 && !q) || (grad && !g) || !one) {
        goto done;
    }
    if (wrt_target && op != CT_PLOSS_BCE && op != CT_PLOSS_BCE_LOGITS) {
        ct_tensor *t = x;
        x = y;
        y = t;
    }
#define B(OP, A, C) bin(&s, CT_BINARY_##OP, (A), (C))
#define U(OP, A) un(&s, CT_UNARY_##OP, (A))
    if (op == CT_PLOSS_BCE && grad == NULL) {
        /* bad_unit: !(x >= 0 && x <= 1), nothing read before it passes */
        ct_tensor *ok = B(LOGICAL_AND, B(GE, x, dsc(&s, 0)), B(LE, x, one));
        ct_tensor *bad = ok ? tmp(&s, ct_any(U(LOGICAL_NOT, ok), 0, NULL, false)) : NULL;
        ct_tensor *host = bad ? tmp(&s, ct_to_device(bad, ct_device_cpu())) : NULL;
        if (host == NULL ||
            check_range(ct_scalar_to_int(ct_tensor_item_at(host, 0)) != 0) < 0) {
            goto done;
        }
    }
    ct_tensor *d = B(SUB, x, y);
    if (grad == NULL) {
        switch (op) {
        case CT_PLOSS_MSE:
            r = B(MUL, d, d);
            break;
        case CT_PLOSS_SMOOTH_L1: {
            ct_tensor *z = U(ABS, d), *ps = dsc(&s, p);
            r = where3(&s, B(LT, z, ps), B(DIV, B(MUL, B(MUL, dsc(&s, 0.5), z), z), ps),
                       B(SUB, z, dsc(&s, 0.5 * p)));
            break;
        }
        case CT_PLOSS_HUBER: {
            ct_tensor *z = U(ABS, d), *ps = dsc(&s, p);
            r = where3(&s, B(LT, z, ps), B(MUL, B(MUL, dsc(&s, 0.5), z), z),
                       B(MUL, ps, B(SUB, z, dsc(&s, 0.5 * p))));
            break;
        }
        case CT_PLOSS_BCE:
            r = B(SUB, B(MUL, B(SUB, y, one), dmax(&s, U(LOG1P, U(NEG, x)), -100)),
                  B(MUL, y, dmax(&s, U(LOG, x), -100)));
            r = w != NULL ? B(MUL, r, w) : r;
            break;
        case CT_PLOSS_BCE_LOGITS: {
            ct_tensor *nx = U(NEG, x);
            ct_tensor *m = dmax(&s, nx, 0);
            ct_tensor *lse = U(LOG, B(ADD, U(EXP, U(NEG, m)), U(EXP, B(SUB, nx, m))));
            ct_tensor *a = B(MUL, B(SUB, one, y), x);
            if (q != NULL) {
                ct_tensor *lw = B(ADD, B(MUL, B(SUB, q, one), y), one);
                r = B(ADD, a, B(MUL, lw, B(ADD, lse, m)));
            }
            else {
                r = B(ADD, B(ADD, a, m), lse);
            }
            r = w != NULL ? B(MUL, r, w) : r;
            break;
        }
        default:
            break;
        }
        if (r != NULL && reduction != CT_REDUCTION_NONE) {
            /* the CPU adds in double */
            ct_tensor *e = tmp(&s, ct_expand(r, ndim, shape));
            ct_tensor *dd = in_dtype(&s, e, CT_DTYPE_FLOAT64);
            r = dd == NULL ? NULL
                : tmp(&s, mean ? ct_mean(dd, 0, NULL, false, CT_DTYPE_COUNT)
                               : ct_sum(dd, 0, NULL, false, CT_DTYPE_COUNT));
        }
    }
    else {
        double k = mean ? 1. / (double)n : 1.;
        ct_tensor *div = dsc(&s, mean ? (double)n : 1.);
        switch (op) {
        case CT_PLOSS_MSE:
            r = B(MUL, B(MUL, dsc(&s, 2 * k), d), g);
            break;
        case CT_PLOSS_SMOOTH_L1:
        case CT_PLOSS_HUBER: {
            ct_tensor *mul = dsc(&s, k), *ps = dsc(&s, p);
            ct_tensor *mg = B(MUL, mul, g), *nmg = B(MUL, dsc(&s, -k), g);
            ct_tensor *mid = B(MUL, B(MUL, mul, d), g);
            if (op == CT_PLOSS_SMOOTH_L1) {
                mid = B(DIV, mid, ps);
            }
            else {
                mg = B(MUL, mg, ps);
                nmg = B(MUL, nmg, ps);
            }
            r = where3(&s, B(LE, d, dsc(&s, -p)), nmg, where3(&s, B(GE, d, ps), mg, mid));
            break;
        }
        case CT_PLOSS_BCE:
            if (wrt_target) {
                r = B(MUL, U(NEG, U(LOG, B(DIV, x, B(SUB, one, x)))), g);
            }
            else {
                r = B(DIV, B(MUL, g, d), dmax(&s, B(MUL, B(SUB, one, x), x), 1e-12));
            }
            r = w != NULL ? B(MUL, r, w) : r;
            r = B(DIV, r, div);
            break;
        case CT_PLOSS_BCE_LOGITS:
            if (wrt_target) {
                r = q != NULL ? B(SUB, dlog_sigmoid(&s, U(NEG, x)),
                                  B(MUL, dlog_sigmoid(&s, x), q))
                              : U(NEG, x);
            }
            else {
                ct_tensor *sg = B(DIV, one, B(ADD, one, U(EXP, U(NEG, x))));
                if (q != NULL) {
                    ct_tensor *t = B(MUL, q, y);
                    r = B(SUB, B(MUL, B(SUB, B(ADD, t, one), y), sg), t);
                }
                else {
                    r = B(SUB, sg, y);
                }
            }
            r = B(MUL, r, g);
            r = w != NULL ? B(MUL, r, w) : r;
            r = B(DIV, r, div);
            break;
        default:
            break;
        }
        r = r != NULL ? tmp(&s, ct_expand(r, ndim, shape)) : NULL;
    }
#undef B
#undef U
    if (r != NULL) {
        r = grad == NULL && reduction != CT_REDUCTION_NONE
                ? tmp(&s, ct_to_dtype(r, dt, false))
                : result(&s, r, dt, ndim, shape);
        r = give(r);
    }
done:
    temps_free(&s);
    return r;
}

ct_tensor *
ct_pointwise_loss(ct_ploss_op op, const ct_tensor *input, const ct_tensor *target,
                  const ct_ploss_args *args, ct_reduction reduction)
{
    if (ct__is_device(input) || ct__is_device(target)) {
        return device_ploss(op, NULL, input, target, args, reduction, false);
    }
    pprep pp;
    ct_tensor *out = NULL;
    double sum;
    bool bad;

    if (pprep_setup(&pp, op, NULL, input, target, args) < 0) {
        return NULL;
    }
    if (reduction == CT_REDUCTION_NONE) {
        out = ct_empty(pp.ndim, pp.shape, pp.dt, ct_device_cpu());
        if (out == NULL) {
            goto done;
        }
        pp.j.out = ct_tensor_data(out);
    }
    if (ploss_run(&pp.j, ploss_loops[DIR_FWD][op][pp.dt], &sum, &bad) < 0 ||
        check_range(bad) < 0) {
        ct_tensor_decref(out);
        out = NULL;
        goto done;
    }
    if (reduction != CT_REDUCTION_NONE) {
        /* mean of nothing: 0 / 0, NaN as in torch */
        double v = reduction == CT_REDUCTION_MEAN ? sum / (double)pp.j.n : sum;
        out = ct_full(0, NULL, ct_scalar_float(v), pp.dt);
    }
done:
    pprep_release(&pp);
    return out;
}

ct_tensor *
ct_pointwise_loss_backward(ct_ploss_op op, const ct_tensor *grad,
                           const ct_tensor *input, const ct_tensor *target,
                           const ct_ploss_args *args, ct_reduction reduction,
                           bool wrt_target)
{
    if (ct__is_device(grad) || ct__is_device(input) || ct__is_device(target)) {
        return device_ploss(op, grad, input, target, args, reduction, wrt_target);
    }
    pprep pp;
    ct_tensor *out = NULL;
    double sum;
    bool bad;
    int dir = DIR_BWD;

    if (pprep_setup(&pp, op, grad, input, target, args) < 0) {
        return NULL;
    }
    if (wrt_target) {
        if (op == CT_PLOSS_BCE || op == CT_PLOSS_BCE_LOGITS) {
            dir = DIR_TGT;
        }
        else {
            /* torch: the input gradient with input and target swapped */
            const char *d = pp.j.x;
            int64_t s = pp.j.xs;
            pp.j.x = pp.j.y;
            pp.j.xs = pp.j.ys;
            pp.j.y = d;
            pp.j.ys = s;
        }
    }
    bool mean = reduction == CT_REDUCTION_MEAN;
    double n = (double)pp.j.n;
    switch (op) {
    case CT_PLOSS_MSE:
        pp.j.mul = mean ? 2. / n : 2.;
        break;
    case CT_PLOSS_SMOOTH_L1:
    case CT_PLOSS_HUBER:
        pp.j.mul = mean ? 1. / n : 1.;
        break;
    default:
        pp.j.div = mean ? n : 1.;
        break;
    }
    out = ct_empty(pp.ndim, pp.shape, pp.dt, ct_device_cpu());
    if (out != NULL) {
        pp.j.out = ct_tensor_data(out);
        if (ploss_run(&pp.j, ploss_loops[dir][op][pp.dt], &sum, &bad) < 0) {
            ct_tensor_decref(out);
            out = NULL;
        }
    }
    pprep_release(&pp);
    return out;
}

/* --- negative log likelihood ---------------------------------------------- */

/* Note [NLL layout]
 * Both nll_loss and nll_loss2d see input as (N, C, S) contiguous, with S
 * the spatial size (1 for nll_loss) and target as (N, S); a 1-D input is
 * one sample without a batch dim.  A loss element (n, s) whose target t
 * is not ignore_index contributes -input[n, t, s] * weight[t]. */
typedef struct {
    int64_t N, C, S;
} nll_geom;

static const char *
fmt_sizes(const ct_tensor *t, char *buf, int size)
{
    return ct_format_sizes(t->ndim, t->sizes, buf, size);
}

static int
nll_check(bool spatial, const ct_tensor *input, const ct_tensor *target,
          const ct_tensor *weight, nll_geom *g)
{
    char b1[256], b2[256];
    if (!spatial) {
        if (input->ndim < 1 || input->ndim > 2) {
            return ct_error(CT_ERR_RUNTIME, "input tensor should be 1D or 2D");
        }
        if (target->ndim > 1) {
            return ct_error(CT_ERR_RUNTIME, "0D or 1D target tensor expected, "
                            "multi-target not supported");
        }
        bool no_batch = input->ndim == 1 && target->ndim == 0;
        if (!no_batch && (target->ndim == 0 || input->sizes[0] != target->sizes[0])) {
            return ct_error(CT_ERR_RUNTIME, "size mismatch (got input: %s, target: %s)",
                            fmt_sizes(input, b1, sizeof b1),
                            fmt_sizes(target, b2, sizeof b2));
        }
        g->N = input->ndim == 2 ? input->sizes[0] : 1;
        g->C = input->sizes[input->ndim - 1];
        g->S = 1;
    }
    else {
        if (target->ndim != 3) {
            return ct_error(CT_ERR_RUNTIME,
                            "only batches of spatial targets supported "
                            "(3D tensors) but got targets of dimension: %d",
                            target->ndim);
        }
        if (input->ndim != 4) {
            return ct_error(CT_ERR_RUNTIME,
                            "only batches of spatial inputs supported "
                            "(4D tensors), but got input of dimension: %d",
                            input->ndim);
        }
        if (weight != NULL && weight->numel != input->sizes[1]) {
            return ct_error(
                CT_ERR_RUNTIME,
                "weight tensor should be defined either for all or no classes");
        }
        if (input->sizes[0] != target->sizes[0] ||
            input->sizes[2] != target->sizes[1] ||
            input->sizes[3] != target->sizes[2]) {
            return ct_error(CT_ERR_RUNTIME, "size mismatch (got input: %s , target: %s",
                            fmt_sizes(input, b1, sizeof b1),
                            fmt_sizes(target, b2, sizeof b2));
        }
        g->N = input->sizes[0];
        g->C = input->sizes[1];
        g->S = input->sizes[2] * input->sizes[3];
    }
    if (!spatial && weight != NULL && (weight->ndim != 1 || weight->numel != g->C)) {
        return ct_error(CT_ERR_RUNTIME,
                        "weight tensor should be defined either for all "
                        "%lld classes or no classes but got weight tensor of shape: %s",
                        (long long)g->C, fmt_sizes(weight, b1, sizeof b1));
    }
    ct_dtype dt = input->dtype;
    if (dt != CT_DTYPE_FLOAT32 && dt != CT_DTYPE_FLOAT64 && dt != CT_DTYPE_BFLOAT16 &&
        !(ct__is_device(input) && dt == CT_DTYPE_FLOAT16)) {
        return not_implemented(spatial ? "nll_loss2d_forward_out_frame"
                                       : "nll_loss_out_frame", dt);
    }
    bool byte_ok = !spatial && target->dtype == CT_DTYPE_UINT8;
    if (target->dtype != CT_DTYPE_INT64 && !byte_ok) {
        return ct_error(CT_ERR_RUNTIME, "expected scalar type Long but found %s",
                        ct_dtype_table[target->dtype].legacy);
    }
    if (weight != NULL && weight->dtype != dt) {
        return ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                        ct_dtype_table[dt].legacy,
                        ct_dtype_table[weight->dtype].legacy);
    }
    return 0;
}

/* The targets as int64: a new contiguous tensor. */
static ct_tensor *
nll_targets(const ct_tensor *target)
{
    ct_tensor *t = ct_to_dtype(target, CT_DTYPE_INT64, false);
    ct_tensor *c = t != NULL ? ct_contiguous(t) : NULL;
    ct_tensor_decref(t);
    return c;
}

/* t (NULL stays NULL) as a contiguous tensor of dtype dt: a new reference
 * in *out; -1 on error. */
static int
nll_operand(const ct_tensor *t, ct_dtype dt, ct_tensor **out)
{
    *out = NULL;
    if (t == NULL) {
        return 0;
    }
    ct_tensor *c = ct_to_dtype(t, dt, false);
    *out = c != NULL ? ct_contiguous(c) : NULL;
    ct_tensor_decref(c);
    return *out != NULL ? 0 : -1;
}

static int
target_error(int64_t t)
{
    return ct_error(CT_ERR_INDEX, "Target %lld is out of bounds.", (long long)t);
}

/* Note [NLL sums]
 * torch 1.13 reduces in the input's dtype with a cascade of 8 partial
 * sums: loss element i (in target order) is added to level 0, then, while
 * the level_power bits of i that belong to level k are all zero, level k
 * is added into level k + 1 and cleared (an ignored element skips both);
 * the levels are finally added in order, and a mean divides by the total
 * weight summed the same way (the count of kept elements without weight).
 * level_power is max(4, ceil(log2 count) / 8).  bfloat16 rounds after
 * every operation, as its C++ operators do.  The backward computes
 * -(g / total_weight) * weight[t] in the dtype too. */
typedef struct {
    nll_geom g;
    const char *in, *w, *grad;      /* w: NULL without weight */
    const int64_t *tp;
    int64_t ignore;
    bool none, mean;                /* none: one value per element */
    char *out, *tw;                 /* forward: the loss(es) and total weight */
    const char *twin;               /* backward: the total weight */
} nll_job;

typedef int (*nll_fn)(const nll_job *j);

static int64_t
nll_level_power(int64_t count)
{
    int64_t ceil_log2 = count <= 2 ? 1 : 64 - __builtin_clzll((uint64_t)(count - 1));
    return ceil_log2 / 8 > 4 ? ceil_log2 / 8 : 4;
}

/* Element i's offset in the (N, C, S) input for class t. */
static inline int64_t
nll_at(const nll_geom *g, int64_t i, int64_t t)
{
    return (i / g->S * g->C + t) * g->S + i % g->S;
}

#define NLL_LOOPS(E, T, SN, A)                                                   \
    static inline A nll_round_##SN(A v)                                          \
    {                                                                           \
        T t;                                                                    \
        ct__store_##SN(&t, v);                                                   \
        return ct__load_##SN(&t);                                                \
    }                                                                           \
    static int nll_fwd_##SN(const nll_job *j)                                    \
    {                                                                           \
        const T *in = (const T *)j->in, *w = (const T *)j->w;                   \
        int64_t nelem = j->g.N * j->g.S, ignored = 0;                           \
        if (j->none) {                                                          \
            T *o = (T *)j->out;                                                 \
            for (int64_t i = 0; i < nelem; i++) {                               \
                int64_t t = j->tp[i];                                           \
                if (t == j->ignore) {                                           \
                    ct__store_##SN(o + i, (A)0);                                 \
                    continue;                                                   \
                }                                                               \
                if (t < 0 || t >= j->g.C) {                                     \
                    return target_error(t);                                     \
                }                                                               \
                A x = ct__load_##SN(in + nll_at(&j->g, i, t));                   \
                ct__store_##SN(o + i, -x * (w ? ct__load_##SN(w + t) : (A)1));    \
            }                                                                   \
            return 0;                                                           \
        }                                                                       \
        A loss[8] = {0}, wsum[8] = {0};                                         \
        int64_t lp = nll_level_power(nelem), mask = ((int64_t)1 << lp) - 1;     \
        for (int64_t i = 0; i < nelem; i++) {                                   \
            int64_t t = j->tp[i];                                               \
            if (t == j->ignore) {                                               \
                ignored++;                                                      \
                continue;                                                       \
            }                                                                   \
            if (t < 0 || t >= j->g.C) {                                         \
                return target_error(t);                                         \
            }                                                                   \
            A x = ct__load_##SN(in + nll_at(&j->g, i, t));                       \
            if (w != NULL) {                                                    \
                A wt = ct__load_##SN(w + t);                                     \
                loss[0] = nll_round_##SN(loss[0] - nll_round_##SN(x * wt));       \
                wsum[0] = nll_round_##SN(wsum[0] + wt);                          \
            }                                                                   \
            else {                                                              \
                loss[0] = nll_round_##SN(loss[0] - x);                           \
            }                                                                   \
            for (int k = 0; k + 1 < 8 && (i & (mask << (k * lp))) == 0; k++) {  \
                wsum[k + 1] = nll_round_##SN(wsum[k + 1] + wsum[k]);             \
                loss[k + 1] = nll_round_##SN(loss[k + 1] + loss[k]);             \
                wsum[k] = 0;                                                    \
                loss[k] = 0;                                                    \
            }                                                                   \
        }                                                                       \
        A tw = 0, out = 0;                                                      \
        for (int k = 0; k < 8; k++) {                                           \
            tw = nll_round_##SN(tw + wsum[k]);                                   \
            out = nll_round_##SN(out + loss[k]);                                 \
        }                                                                       \
        if (w == NULL) {                                                        \
            T kept = ct__##SN##_from_i64(nelem - ignored);                      \
            tw = ct__load_##SN(&kept);                                          \
        }                                                                       \
        ct__store_##SN((T *)j->out, j->mean ? out / tw : out);                   \
        ct__store_##SN((T *)j->tw, tw);                                          \
        return 0;                                                               \
    }                                                                           \
    static int nll_bwd_##SN(const nll_job *j)                                    \
    {                                                                           \
        const T *w = (const T *)j->w, *g = (const T *)j->grad;                  \
        T *gi = (T *)j->out;                                                    \
        int64_t nelem = j->g.N * j->g.S;                                        \
        A g0 = 0;                                                               \
        if (!j->none) {                                                         \
            A tw = ct__load_##SN((const T *)j->twin);                            \
            g0 = ct__load_##SN(g);                                               \
            g0 = -(j->mean ? nll_round_##SN(g0 / tw) : g0);                      \
        }                                                                       \
        for (int64_t i = 0; i < nelem; i++) {                                   \
            int64_t t = j->tp[i];                                               \
            if (t == j->ignore) {                                               \
                continue;                                                       \
            }                                                                   \
            if (t < 0 || t >= j->g.C) {                                         \
                return target_error(t);                                         \
            }                                                                   \
            A wt = w ? ct__load_##SN(w + t) : (A)1;                              \
            A v = j->none ? -wt * ct__load_##SN(g + i) : w ? wt * g0 : g0;       \
            ct__store_##SN(gi + nll_at(&j->g, i, t), v);                         \
        }                                                                       \
        return 0;                                                               \
    }
CT_FORALL_FLOATING_DTYPES(NLL_LOOPS)
#undef NLL_LOOPS

static const nll_fn nll_fwd_fns[CT_DTYPE_COUNT] = {
#define X(E, T, SN, A) [E] = nll_fwd_##SN,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static const nll_fn nll_bwd_fns[CT_DTYPE_COUNT] = {
#define X(E, T, SN, A) [E] = nll_bwd_##SN,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

static int
nll_forward(bool spatial, const ct_tensor *input, const ct_tensor *target,
            const ct_tensor *weight, ct_reduction reduction, int64_t ignore_index,
            ct_tensor **output, ct_tensor **total_weight)
{
    nll_job j = {.ignore = ignore_index, .mean = reduction == CT_REDUCTION_MEAN};
    ct_tensor *in = NULL, *tg = NULL, *w = NULL, *out = NULL, *tw = NULL;
    int rc = -1;

    *output = NULL;
    *total_weight = NULL;
    if (nll_check(spatial, input, target, weight, &j.g) < 0) {
        return -1;
    }
    ct_dtype dt = input->dtype;
    /* torch's per-element path: a batch (N, C) or spatial input */
    j.none = reduction == CT_REDUCTION_NONE && (spatial || input->ndim == 2);
    if (ct__is_device(input) || ct__is_device(target) || ct__is_device(weight)) {
        return ct__device_nll_loss(input, target, weight, reduction, ignore_index, output,
                                   total_weight);
    }
    if ((in = ct_contiguous(input)) == NULL || (tg = nll_targets(target)) == NULL ||
        nll_operand(weight, dt, &w) < 0) {
        goto done;
    }
    /* (N), () or (N, H, W): the target's shape; a scalar when reduced */
    bool per_elem = reduction == CT_REDUCTION_NONE;
    if ((out = ct_empty(per_elem ? target->ndim : 0, target->sizes, dt,
                        ct_device_cpu())) == NULL ||
        (tw = ct_zeros(0, NULL, dt)) == NULL) {
        goto done;
    }
    j.in = ct_tensor_data(in);
    j.w = w != NULL ? ct_tensor_data(w) : NULL;
    j.tp = (const int64_t *)ct_tensor_data(tg);
    j.out = ct_tensor_data(out);
    j.tw = ct_tensor_data(tw);
    if (nll_fwd_fns[dt](&j) < 0) {
        goto done;
    }
    *output = out;
    *total_weight = tw;
    out = tw = NULL;
    rc = 0;
done:
    ct_tensor_decref(in);
    ct_tensor_decref(tg);
    ct_tensor_decref(w);
    ct_tensor_decref(out);
    ct_tensor_decref(tw);
    return rc;
}

int
ct_nll_loss(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
            ct_reduction reduction, int64_t ignore_index, ct_tensor **output,
            ct_tensor **total_weight)
{
    return nll_forward(false, input, target, weight, reduction, ignore_index, output,
                       total_weight);
}

int
ct_nll_loss2d(const ct_tensor *input, const ct_tensor *target, const ct_tensor *weight,
              ct_reduction reduction, int64_t ignore_index, ct_tensor **output,
              ct_tensor **total_weight)
{
    return nll_forward(true, input, target, weight, reduction, ignore_index, output,
                       total_weight);
}

ct_tensor *
ct_nll_loss_backward(const ct_tensor *grad, const ct_tensor *input,
                     const ct_tensor *target, const ct_tensor *weight,
                     ct_reduction reduction, int64_t ignore_index,
                     const ct_tensor *total_weight)
{
    nll_job j = {.ignore = ignore_index, .mean = reduction == CT_REDUCTION_MEAN};
    ct_tensor *tg = NULL, *gc = NULL, *w = NULL, *twc = NULL, *gi = NULL;
    bool spatial = input->ndim == 4;

    if (nll_check(spatial, input, target, weight, &j.g) < 0) {
        return NULL;
    }
    bool none = reduction == CT_REDUCTION_NONE;
    int64_t nelem = j.g.N * j.g.S;
    if (none && grad->numel != nelem) {
        char b1[256];
        ct_error(CT_ERR_RUNTIME, "Expected a tensor of %lld elements for grad_output, "
                 "got %s", (long long)nelem, fmt_sizes(grad, b1, sizeof b1));
        return NULL;
    }
    if (!none && grad->numel != 1) {
        ct_error(CT_ERR_RUNTIME, "grad_output must be a one-element tensor");
        return NULL;
    }
    ct_dtype dt = input->dtype;
    j.none = none;
    const ct_tensor *ops[5] = {grad, input, target, weight, total_weight};
    bool device = false;
    for (int k = 0; k < 5; k++) {
        device = device || ct__is_device(ops[k]);
    }
    if (device) {
        return ct__device_nll_loss_backward(grad, input, target, weight, reduction,
                                            ignore_index, total_weight);
    }
    if ((tg = nll_targets(target)) == NULL || nll_operand(weight, dt, &w) < 0 ||
        nll_operand(grad, dt, &gc) < 0 || nll_operand(total_weight, dt, &twc) < 0 ||
        (gi = ct_zeros(input->ndim, input->sizes, dt)) == NULL) {
        goto fail;
    }
    j.tp = (const int64_t *)ct_tensor_data(tg);
    j.w = w != NULL ? ct_tensor_data(w) : NULL;
    j.grad = ct_tensor_data(gc);
    j.twin = twc != NULL ? ct_tensor_data(twc) : NULL;
    j.out = ct_tensor_data(gi);
    if (!none && j.mean && twc == NULL) {
        ct_error(CT_ERR_RUNTIME, "nll_loss_backward: total_weight is required");
        goto fail;
    }
    if (nll_bwd_fns[dt](&j) < 0) {
        goto fail;
    }
    ct_tensor_decref(tg);
    ct_tensor_decref(gc);
    ct_tensor_decref(w);
    ct_tensor_decref(twc);
    return gi;
fail:
    ct_tensor_decref(tg);
    ct_tensor_decref(gc);
    ct_tensor_decref(w);
    ct_tensor_decref(twc);
    ct_tensor_decref(gi);
    return NULL;
}
