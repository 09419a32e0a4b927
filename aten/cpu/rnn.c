/* aten/cpu/rnn.c -- one direction of one recurrent layer over a whole
 * sequence (include/ctorch/ops_rnn.h): per step one gemm for the hidden
 * side of the gates and the fused cell of rnn_cells.c; the backward walks
 * the steps the other way with one gemm per step for the gradient of h,
 * and computes the weight gradients at the end, each as one gemm over all
 * the steps' rows (the workspace keeps the states the forward started
 * each step from, Note [RNN workspace]).
 */
#include "aten/device.h"
#include <cblas.h>
#include <limits.h>
#include <string.h>

#include <ctorch/ctorch.h>

#include "aten/cpu/rnn_impl.h"

const char *const ct_rnn_mode_names[CT_RNN_MODE_COUNT] = {
#define X(E, N, G, B) [E] = N,
    CT_FORALL_RNN_MODES(X)
#undef X
};

const int ct_rnn_mode_gates[CT_RNN_MODE_COUNT] = {
#define X(E, N, G, B) [E] = G,
    CT_FORALL_RNN_MODES(X)
#undef X
};

/* The sizes of one layer direction. */
typedef struct {
    ct_dtype dtype;
    size_t z;               /* itemsize */
    int64_t G, H, P, B, N;  /* gates, hidden, state (H or projection), batch, rows */
    int64_t GH;             /* G * H */
    bool proj;
} rnn_geom;

/* C = A B (acc: C += A B) for row-major float / double matrices, a and b
 * transposed as asked; empty products only clear C. */
static void
gemm(const rnn_geom *g, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
     const void *a, int64_t lda, const void *b, int64_t ldb, bool acc, void *c,
     int64_t ldc)
{
    if (m == 0 || n == 0) {
        return;
    }
    if (k == 0) {
        for (int64_t i = 0; !acc && i < m; i++) {
            memset((char *)c + (size_t)(i * ldc) * g->z, 0, (size_t)n * g->z);
        }
        return;
    }
    CBLAS_TRANSPOSE tra = ta ? CblasTrans : CblasNoTrans;
    CBLAS_TRANSPOSE trb = tb ? CblasTrans : CblasNoTrans;
    if (g->dtype == CT_DTYPE_FLOAT32) {
        cblas_sgemm(CblasRowMajor, tra, trb, (int)m, (int)n, (int)k, 1.0f, a, (int)lda,
                    b, (int)ldb, acc ? 1.0f : 0.0f, c, (int)ldc);
    }
    else {
        cblas_dgemm(CblasRowMajor, tra, trb, (int)m, (int)n, (int)k, 1.0, a, (int)lda,
                    b, (int)ldb, acc ? 1.0 : 0.0, c, (int)ldc);
    }
}

/* Row r of a matrix with row stride ld. */
static inline char *
row(const rnn_geom *g, const ct_tensor *t, int64_t r, int64_t ld)
{
    return ct_tensor_data(t) + (size_t)(r * ld) * g->z;
}

/* Copy `rows` rows of n elements between matrices of row strides ldd, lds. */
static void
copy_rows(const rnn_geom *g, char *dst, int64_t ldd, const char *src, int64_t lds,
          int64_t rows, int64_t n)
{
    for (int64_t r = 0; r < rows; r++) {
        memcpy(dst + (size_t)(r * ldd) * g->z, src + (size_t)(r * lds) * g->z,
               (size_t)n * g->z);
    }
}

/* dst[0..n) += src[0..n) */
static void
add_into(const rnn_geom *g, char *dst, const char *src, int64_t n)
{
    if (g->dtype == CT_DTYPE_FLOAT32) {
        float *d = (float *)dst;
        const float *s = (const float *)src;
        for (int64_t i = 0; i < n; i++) {
            d[i] += s[i];
        }
    }
    else {
        double *d = (double *)dst;
        const double *s = (const double *)src;
        for (int64_t i = 0; i < n; i++) {
            d[i] += s[i];
        }
    }
}

static ct_tensor *
new_matrix(const rnn_geom *g, int64_t r, int64_t c)
{
    int64_t sizes[2] = {r, c};
    return ct_empty(2, sizes, g->dtype, ct_device_cpu());
}

static ct_tensor *
zero_matrix(const rnn_geom *g, int64_t r, int64_t c)
{
    int64_t sizes[2] = {r, c};
    return ct_zeros(2, sizes, g->dtype);
}

/* A contiguous copy of t shaped [r, c] (t's elements in order), or NULL
 * with the error set. */
static ct_tensor *
as_matrix(const rnn_geom *g, const ct_tensor *t, int64_t r, int64_t c)
{
    ct_tensor *m = new_matrix(g, r, c);
    if (m != NULL && t != NULL && ct_copy_(m, t) < 0) {
        ct_tensor_decref(m);
        return NULL;
    }
    return m;
}

/* t (borrowed) when contiguous, else a contiguous copy; *own holds what
 * must be dropped. */
static const ct_tensor *
dense(const ct_tensor *t, ct_tensor **own)
{
    *own = NULL;
    if (t == NULL || ct_tensor_is_contiguous(t)) {
        return t;
    }
    *own = ct_contiguous(t);
    return *own;
}

static int
check_shape(const char *what, const ct_tensor *t, int ndim, int64_t d0, int64_t d1)
{
    if (t->ndim != ndim || t->sizes[0] != d0 || (ndim == 2 && t->sizes[1] != d1)) {
        char got[128];
        ct_format_sizes(t->ndim, t->sizes, got, sizeof got);
        if (ndim == 1) {
            return ct_error(CT_ERR_RUNTIME, "rnn: expected %s of size [%lld], got %s",
                            what, (long long)d0, got);
        }
        return ct_error(CT_ERR_RUNTIME, "rnn: expected %s of size [%lld, %lld], got %s",
                        what, (long long)d0, (long long)d1, got);
    }
    return 0;
}

/* The step sizes: batch_sizes, or B for every step; checks that they do
 * not increase, start at most at B, and cover n rows. */
static int
check_steps(const ct_rnn_steps *s, int64_t B, int64_t n)
{
    if (s->mode < 0 || s->mode >= CT_RNN_MODE_COUNT) {
        return ct_error(CT_ERR_VALUE, "rnn: unknown mode %d", (int)s->mode);
    }
    if (s->nsteps <= 0) {
        return ct_error(CT_ERR_RUNTIME, "Expected sequence length to be larger than 0 "
                        "in RNN");
    }
    int64_t total = 0, prev = B;
    for (int64_t t = 0; t < s->nsteps; t++) {
        int64_t bs = s->batch_sizes != NULL ? s->batch_sizes[t] : B;
        if (bs < 0 || bs > prev) {
            return ct_error(CT_ERR_RUNTIME, "rnn: batch_sizes must not increase and "
                            "must be at most the batch size %lld, got %lld at step "
                            "%lld", (long long)B, (long long)bs, (long long)t);
        }
        prev = bs;
        total += bs;
    }
    if (total != n) {
        return ct_error(CT_ERR_RUNTIME, "rnn: the steps cover %lld rows but the input "
                        "has %lld", (long long)total, (long long)n);
    }
    return 0;
}

static inline int64_t
step_size(const ct_rnn_steps *s, const rnn_geom *g, int64_t t)
{
    return s->batch_sizes != NULL ? s->batch_sizes[t] : g->B;
}

/* The geometry from the weights and h0, and the checks of ops_rnn.h's
 * contract (every input of one float dtype, shapes that fit). */
static int
layer_geom(const ct_rnn_steps *s, const ct_tensor *gx, const ct_tensor *w_hh,
           const ct_tensor *b_hh, const ct_tensor *w_hr, const ct_tensor *h0,
           const ct_tensor *c0, rnn_geom *g)
{
    const ct_tensor *all[6] = {gx, w_hh, b_hh, w_hr, h0, c0};
    if (s->mode < 0 || s->mode >= CT_RNN_MODE_COUNT) {
        return ct_error(CT_ERR_VALUE, "rnn: unknown mode %d", (int)s->mode);
    }
    for (int i = 0; i < 6; i++) {
        if (all[i] != NULL && all[i]->dtype != gx->dtype) {
            return ct_error(CT_ERR_RUNTIME, "mat1 and mat2 must have the same dtype");
        }
        if (all[i] != NULL && ct_tensor_device(all[i]).type != CT_DEVICE_CPU) {
            return ct_error(CT_ERR_RUNTIME, "rnn: expected all tensors on the cpu");
        }
    }
    if (ct__rnn_fwd_kernels[s->mode][gx->dtype] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"addmm_impl_cpu_\" not implemented for '%s'",
                        ct_dtype_table[gx->dtype].legacy);
    }
    if ((s->mode == CT_RNN_LSTM) != (c0 != NULL)) {
        return ct_error(CT_ERR_RUNTIME, "rnn: c0 is given for LSTM layers only");
    }
    if (w_hr != NULL && s->mode != CT_RNN_LSTM) {
        return ct_error(CT_ERR_RUNTIME, "rnn: a projection is for LSTM layers only");
    }
    if (w_hh->ndim != 2 || h0->ndim != 2 || gx->ndim != 2) {
        return ct_error(CT_ERR_RUNTIME, "rnn: gx, w_hh and h0 must be matrices");
    }
    g->dtype = gx->dtype;
    g->z = ct_dtype_itemsize(gx->dtype);
    g->G = ct_rnn_mode_gates[s->mode];
    g->GH = w_hh->sizes[0];
    g->H = g->GH / g->G;
    g->P = w_hh->sizes[1];
    g->B = h0->sizes[0];
    g->N = gx->sizes[0];
    g->proj = w_hr != NULL;
    if (g->GH % g->G != 0) {
        return ct_error(CT_ERR_RUNTIME, "rnn: w_hh has %lld rows, not a multiple of "
                        "%lld", (long long)g->GH, (long long)g->G);
    }
    if (check_shape("gx", gx, 2, g->N, g->GH) < 0 ||
        check_shape("h0", h0, 2, g->B, g->P) < 0 ||
        (b_hh != NULL && check_shape("b_hh", b_hh, 1, g->GH, 0) < 0) ||
        (c0 != NULL && check_shape("c0", c0, 2, g->B, g->H) < 0) ||
        (w_hr != NULL && check_shape("w_hr", w_hr, 2, g->P, g->H) < 0)) {
        return -1;
    }
    if (!g->proj && g->P != g->H) {
        return ct_error(CT_ERR_RUNTIME, "rnn: expected w_hh of size [%lld, %lld], got "
                        "[%lld, %lld]", (long long)g->GH, (long long)g->H,
                        (long long)g->GH, (long long)g->P);
    }
    int64_t cols = rnn_ws_cols(s->mode, g->H, g->P, g->proj);
    if (g->N > INT_MAX || cols > INT_MAX || g->B > INT_MAX) {
        return ct_error(CT_ERR_RUNTIME, "rnn: sizes beyond BLAS's int");
    }
    return check_steps(s, g->B, g->N);
}

/* Note [Packed steps]
 * Steps are walked in time order (reverse: last to first); step t owns
 * rows [off_t, off_t + bs_t) of gx, out and the workspace, off_t being the
 * sizes of the steps before it.  The states keep B rows: a step updates
 * the first bs_t, the others keep what they hold (forward: the final
 * state of a sequence that already ended; reverse: h0 of one that has not
 * started), which is what h_n and the gradients need. */
typedef struct {
    int64_t t, bs, off;
} rnn_step;

/* The k-th step walked (backward: walking the other way). */
static rnn_step
step_at(const ct_rnn_steps *s, const rnn_geom *g, int64_t k, bool backward,
        int64_t *off)
{
    rnn_step st;
    bool late_first = s->reverse != backward;   /* walking t downwards */
    st.t = late_first ? s->nsteps - 1 - k : k;
    st.bs = step_size(s, g, st.t);
    if (late_first) {
        *off -= st.bs;
        st.off = *off;
    }
    else {
        st.off = *off;
        *off += st.bs;
    }
    return st;
}

int
ct_rnn_layer(const ct_rnn_steps *s, const ct_tensor *gx, const ct_tensor *w_hh,
             const ct_tensor *b_hh, const ct_tensor *w_hr, const ct_tensor *h0,
             const ct_tensor *c0, ct_tensor **out, ct_tensor **hn, ct_tensor **cn,
             ct_tensor **ws)
{
    if (ct__host_only((const ct_tensor *const[]){gx, w_hh, b_hh, w_hr, h0, c0}, 6) < 0) {
        return -1;
    }
    rnn_geom g;
    ct_tensor *own[4] = {NULL, NULL, NULL, NULL};
    ct_tensor *o = NULL, *h = NULL, *c = NULL, *w = NULL, *gh = NULL, *hf = NULL;
    int rc = -1;

    *out = *hn = NULL;
    if (cn != NULL) {
        *cn = NULL;
    }
    if (ws != NULL) {
        *ws = NULL;
    }
    if (layer_geom(s, gx, w_hh, b_hh, w_hr, h0, c0, &g) < 0) {
        return -1;
    }
    bool has_b = b_hh != NULL;
    gx = dense(gx, &own[0]);
    w_hh = dense(w_hh, &own[1]);
    b_hh = dense(b_hh, &own[2]);
    w_hr = dense(w_hr, &own[3]);
    if (gx == NULL || w_hh == NULL || (has_b && b_hh == NULL) ||
        (g.proj && w_hr == NULL)) {
        goto done;
    }
    int64_t ldws = rnn_ws_cols(s->mode, g.H, g.P, g.proj);
    int64_t hoff = rnn_ws_hoff(s->mode, g.H, g.proj);
    if ((o = new_matrix(&g, g.N, g.P)) == NULL ||
        (h = as_matrix(&g, h0, g.B, g.P)) == NULL ||
        (c0 != NULL && (c = as_matrix(&g, c0, g.B, g.H)) == NULL) ||
        (ws != NULL && (w = new_matrix(&g, g.N, ldws)) == NULL) ||
        (gh = new_matrix(&g, g.B, g.GH)) == NULL ||
        (g.proj && (hf = new_matrix(&g, g.B, g.H)) == NULL)) {
        goto done;
    }
    rnn_fwd_fn kernel = ct__rnn_fwd_kernels[s->mode][g.dtype];
    int64_t off = s->reverse ? g.N : 0;
    for (int64_t k = 0; k < s->nsteps; k++) {
        rnn_step st = step_at(s, &g, k, false, &off);
        if (st.bs == 0) {
            continue;
        }
        /* gh = b_hh + h W_hh^T, as addmm computes it */
        if (b_hh != NULL) {
            for (int64_t r = 0; r < st.bs; r++) {
                memcpy(row(&g, gh, r, g.GH), ct_tensor_data(b_hh), (size_t)g.GH * g.z);
            }
        }
        gemm(&g, false, true, st.bs, g.GH, g.P, ct_tensor_data(h), g.P,
             ct_tensor_data(w_hh), g.P, b_hh != NULL, ct_tensor_data(gh), g.GH);
        if (w != NULL) {
            copy_rows(&g, row(&g, w, st.off, ldws) + (size_t)hoff * g.z, ldws,
                      ct_tensor_data(h), g.P, st.bs, g.P);
        }
        rnn_fwd_args a = {
            .rows = st.bs, .H = g.H, .gx = row(&g, gx, st.off, g.GH), .ldgx = g.GH,
            .gh = ct_tensor_data(gh), .h = ct_tensor_data(g.proj ? hf : h),
            .c = c != NULL ? ct_tensor_data(c) : NULL,
            .ws = w != NULL ? row(&g, w, st.off, ldws) : NULL, .ldws = ldws,
            .proj = g.proj,
        };
        kernel(&a);
        if (g.proj) {
            /* h = (o tanh(c')) W_hr^T */
            gemm(&g, false, true, st.bs, g.P, g.H, ct_tensor_data(hf), g.H,
                 ct_tensor_data(w_hr), g.H, false, ct_tensor_data(h), g.P);
        }
        memcpy(row(&g, o, st.off, g.P), ct_tensor_data(h), (size_t)(st.bs * g.P) * g.z);
    }
    *out = o;
    *hn = h;
    if (cn != NULL) {
        *cn = c;
    }
    else {
        ct_tensor_decref(c);
    }
    if (ws != NULL) {
        *ws = w;
    }
    o = h = c = w = NULL;
    rc = 0;
done:
    for (int i = 0; i < 4; i++) {
        ct_tensor_decref(own[i]);
    }
    ct_tensor_decref(o);
    ct_tensor_decref(h);
    ct_tensor_decref(c);
    ct_tensor_decref(w);
    ct_tensor_decref(gh);
    ct_tensor_decref(hf);
    return rc;
}

/* Column sums of an [n, m] matrix into a new [m] tensor (accumulated in
 * double). */
static ct_tensor *
column_sums(const rnn_geom *g, const ct_tensor *t, int64_t n, int64_t m)
{
    int64_t sizes[1] = {m};
    ct_tensor *r = ct_empty(1, sizes, g->dtype, ct_device_cpu());
    if (r == NULL) {
        return NULL;
    }
    for (int64_t j = 0; j < m; j++) {
        double acc = 0;
        if (g->dtype == CT_DTYPE_FLOAT32) {
            const float *p = (const float *)ct_tensor_data(t) + j;
            for (int64_t i = 0; i < n; i++) {
                acc += p[i * m];
            }
            ((float *)ct_tensor_data(r))[j] = (float)acc;
        }
        else {
            const double *p = (const double *)ct_tensor_data(t) + j;
            for (int64_t i = 0; i < n; i++) {
                acc += p[i * m];
            }
            ((double *)ct_tensor_data(r))[j] = acc;
        }
    }
    return r;
}

int
ct_rnn_layer_backward(const ct_rnn_steps *s, const ct_tensor *dout,
                      const ct_tensor *dhn, const ct_tensor *dcn,
                      const ct_tensor *w_hh, const ct_tensor *w_hr,
                      const ct_tensor *ws, int64_t batch, const bool *need,
                      ct_tensor **grads)
{
    if (ct__host_only((const ct_tensor *const[]){dout, dhn, dcn, w_hh, w_hr, ws}, 6) < 0) {
        return -1;
    }
    rnn_geom g;
    ct_tensor *own[3] = {NULL, NULL, NULL};
    ct_tensor *dh = NULL, *dc = NULL, *dgi = NULL, *dgh = NULL;
    ct_tensor *dhf = NULL, *dhp = NULL;
    ct_tensor *res[CT_RNN_GRAD_COUNT] = {NULL}, *dout_c = NULL;
    int rc = -1;

    for (int k = 0; k < CT_RNN_GRAD_COUNT; k++) {
        grads[k] = NULL;
    }
    if (s->mode < 0 || s->mode >= CT_RNN_MODE_COUNT || ws->ndim != 2 ||
        w_hh->ndim != 2 || ws->dtype != w_hh->dtype ||
        ct__rnn_bwd_kernels[s->mode][ws->dtype] == NULL) {
        return ct_error(CT_ERR_RUNTIME, "rnn backward: bad saved state");
    }
    g.dtype = ws->dtype;
    g.z = ct_dtype_itemsize(g.dtype);
    g.G = ct_rnn_mode_gates[s->mode];
    g.GH = w_hh->sizes[0];
    g.H = g.GH / g.G;
    g.P = w_hh->sizes[1];
    g.B = batch;
    g.N = ws->sizes[0];
    g.proj = w_hr != NULL;
    int64_t ldws = rnn_ws_cols(s->mode, g.H, g.P, g.proj);
    int64_t hoff = rnn_ws_hoff(s->mode, g.H, g.proj);
    if (ws->sizes[1] != ldws || check_steps(s, g.B, g.N) < 0) {
        return ct_error(CT_ERR_RUNTIME, "rnn backward: bad saved state");
    }
    ws = dense(ws, &own[0]);
    w_hh = dense(w_hh, &own[1]);
    w_hr = dense(w_hr, &own[2]);
    if (ws == NULL || w_hh == NULL || (g.proj && w_hr == NULL)) {
        goto done;
    }
    /* the incoming gradients as contiguous matrices (zeros when absent) */
    dh = dhn != NULL ? as_matrix(&g, dhn, g.B, g.P) : zero_matrix(&g, g.B, g.P);
    if (s->mode == CT_RNN_LSTM) {
        dc = dcn != NULL ? as_matrix(&g, dcn, g.B, g.H) : zero_matrix(&g, g.B, g.H);
    }
    if (dh == NULL || (s->mode == CT_RNN_LSTM && dc == NULL) ||
        (dgi = new_matrix(&g, g.N, g.GH)) == NULL ||
        (s->mode == CT_RNN_GRU && (dgh = new_matrix(&g, g.N, g.GH)) == NULL) ||
        (g.proj && ((dhf = new_matrix(&g, g.B, g.H)) == NULL ||
                    (dhp = new_matrix(&g, g.N, g.P)) == NULL))) {
        goto done;
    }
    if (dout != NULL && (dout_c = as_matrix(&g, dout, g.N, g.P)) == NULL) {
        goto done;
    }
    const ct_tensor *dgh_all = dgh != NULL ? dgh : dgi;
    rnn_bwd_fn kernel = ct__rnn_bwd_kernels[s->mode][g.dtype];
    int64_t off = s->reverse ? 0 : g.N;
    for (int64_t k = 0; k < s->nsteps; k++) {
        rnn_step st = step_at(s, &g, k, true, &off);
        if (st.bs == 0) {
            continue;
        }
        if (dout_c != NULL) {
            add_into(&g, ct_tensor_data(dh), row(&g, dout_c, st.off, g.P), st.bs * g.P);
        }
        ct_tensor *src = dh;
        if (g.proj) {
            /* h = hf W_hr^T: the gradient of hf, and dh kept for dW_hr */
            memcpy(row(&g, dhp, st.off, g.P), ct_tensor_data(dh),
                   (size_t)(st.bs * g.P) * g.z);
            gemm(&g, false, false, st.bs, g.H, g.P, ct_tensor_data(dh), g.P,
                 ct_tensor_data(w_hr), g.H, false, ct_tensor_data(dhf), g.H);
            src = dhf;
        }
        rnn_bwd_args a = {
            .rows = st.bs, .H = g.H, .ws = row(&g, ws, st.off, ldws), .ldws = ldws,
            .dh = ct_tensor_data(src), .dc = dc != NULL ? ct_tensor_data(dc) : NULL,
            .dgi = row(&g, dgi, st.off, g.GH),
            .dgh = dgh != NULL ? row(&g, dgh, st.off, g.GH) : NULL,
        };
        kernel(&a);
        /* dh = dgh W_hh (GRU: plus the direct part dh z the kernel left) */
        gemm(&g, false, false, st.bs, g.P, g.GH, row(&g, dgh_all, st.off, g.GH), g.GH,
             ct_tensor_data(w_hh), g.P, s->mode == CT_RNN_GRU, ct_tensor_data(dh), g.P);
    }
    if (need[CT_RNN_GRAD_GX]) {
        res[CT_RNN_GRAD_GX] = dgi;
        ct_tensor_incref(dgi);
    }
    if (need[CT_RNN_GRAD_W_HH]) {
        if ((res[CT_RNN_GRAD_W_HH] = new_matrix(&g, g.GH, g.P)) == NULL) {
            goto done;
        }
        gemm(&g, true, false, g.GH, g.P, g.N, ct_tensor_data(dgh_all), g.GH,
             ct_tensor_data(ws) + (size_t)hoff * g.z, ldws, false,
             ct_tensor_data(res[CT_RNN_GRAD_W_HH]), g.P);
    }
    if (need[CT_RNN_GRAD_B_HH] &&
        (res[CT_RNN_GRAD_B_HH] = column_sums(&g, dgh_all, g.N, g.GH)) == NULL) {
        goto done;
    }
    if (need[CT_RNN_GRAD_W_HR] && g.proj) {
        if ((res[CT_RNN_GRAD_W_HR] = new_matrix(&g, g.P, g.H)) == NULL) {
            goto done;
        }
        gemm(&g, true, false, g.P, g.H, g.N, ct_tensor_data(dhp), g.P,
             ct_tensor_data(ws) + (size_t)RNN_WS_HFULL(g.H) * g.z, ldws, false,
             ct_tensor_data(res[CT_RNN_GRAD_W_HR]), g.H);
    }
    if (need[CT_RNN_GRAD_H0]) {
        res[CT_RNN_GRAD_H0] = dh;
        ct_tensor_incref(dh);
    }
    if (need[CT_RNN_GRAD_C0] && dc != NULL) {
        res[CT_RNN_GRAD_C0] = dc;
        ct_tensor_incref(dc);
    }
    for (int k = 0; k < CT_RNN_GRAD_COUNT; k++) {
        grads[k] = res[k];
        res[k] = NULL;
    }
    rc = 0;
done:
    for (int k = 0; k < CT_RNN_GRAD_COUNT; k++) {
        ct_tensor_decref(res[k]);
    }
    for (int i = 0; i < 3; i++) {
        ct_tensor_decref(own[i]);
    }
    ct_tensor_decref(dout_c);
    ct_tensor_decref(dh);
    ct_tensor_decref(dc);
    ct_tensor_decref(dgi);
    ct_tensor_decref(dgh);
    ct_tensor_decref(dhf);
    ct_tensor_decref(dhp);
    return rc;
}
