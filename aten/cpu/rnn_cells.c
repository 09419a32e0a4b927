/* aten/cpu/rnn_cells.c -- the gate math of one recurrent step, fused: one
 * pass over the gates computes the activations, the new states and the
 * workspace (Note [RNN workspace] in rnn_impl.h), and one pass computes
 * the gradients of the gates' pre-activations.
 *
 * The expressions follow PyTorch 1.13's CPU cells (aten/src/ATen/native/
 * RNN.cpp) and the derivatives its autograd applies to them, in the same
 * order of operations: sigmoid is 1 / (1 + exp(-x)), its derivative
 * g (1 - y) y, tanh's g (1 - y y), the LSTM's c' = f c + i g, the GRU's
 * n = tanh(gx_n + gh_n r) and h' = (h - n) z + n.
 *
 * Built for float and double, twice each (x86-64-v3 and any x86-64),
 * with the libm calls going to glibc's vector forms so the loops over a
 * row vectorize.
 */
#include <math.h>
#include <string.h>

#include "aten/cpu/rnn_impl.h"

/* exp and tanh declared with their vector forms (glibc's libmvec, which
 * <math.h> declares only under -ffast-math) and as const (errno, which
 * they may set on overflow, is never read here), so the loops over a row
 * vectorize without file-specific compiler flags. */
#if defined(__x86_64__) && defined(__GLIBC__) && __GLIBC_PREREQ(2, 35)
#define RNN_SIMD __attribute__((simd("notinbranch"), const))
RNN_SIMD float expf(float);
RNN_SIMD double (exp)(double);
RNN_SIMD float tanhf(float);
RNN_SIMD double (tanh)(double);
#endif

/* The selects (relu, the clamps of sigmoid) compute both sides, which
 * -ftrapping-math forbids; nothing here traps or reads the FP flags. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-trapping-math")
#endif

#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* The loop over a row: its gate segments (g[j], g[H + j], ...; the same
 * in the workspace) never overlap, which GCC cannot see for an unknown H
 * and would check at run time (or, past ten checks, give up
 * vectorizing). */
#if defined(__GNUC__) && !defined(__clang__)
#define ROW_LOOP _Pragma("GCC ivdep") for
#else
#define ROW_LOOP for
#endif

/* X(ENUM, T, S, exp, tanh, LIM, OVF): exp's arguments are clamped to
 * [-LIM, LIM], where the vector exp stays on its fast path (beyond it
 * libmvec calls the scalar function lane by lane, 20x slower, which
 * saturated gates would hit all the time); OVF is where exp overflows. */
#define RNN_FORALL_DTYPES(X)                                                 \
    X(CT_DTYPE_FLOAT32, float, f32, expf, tanhf, 87.0f, 88.72283935546875f)  \
    X(CT_DTYPE_FLOAT64, double, f64, exp, tanh, 708.0, 709.782712893384)

/* sigmoid(v) = 1 / (1 + exp(-v)), with -v clamped to [-lim, lim] for exp,
 * which changes nothing where exp(-v) is 0 or 1 + exp(-v) rounds to
 * exp(-v), and 0 where exp(-v) overflows, as PyTorch gets it (between lim
 * and OVF this gives 1 / (1 + exp(lim)), tiny, where PyTorch's is a
 * smaller one).  Both sides of the selects are computed, so the loops stay
 * branch-free.  lim is read at run time (exp_lim_S): with a constant, GCC
 * moves the clamp after the call (exp of the constant folded), which is
 * the slow path again. */
#define SIGMOID_FN(S, TT, EXP, LIM, OVF)                                     \
    static volatile const TT exp_lim_##S = LIM;                              \
    static inline TT sigmoid_##S(TT v, TT lim)                               \
    {                                                                        \
        TT a = -v;                                                           \
        TT e = EXP(a < -lim ? -lim : (a > lim ? lim : a));                   \
        TT y = 1 / (1 + e);                                                  \
        return a > (OVF) ? 0 : y;                                            \
    }
/* relu as clamp_min(v, 0) (NaN passes); its derivative where h' > 0 */
#define RELU(v) ((v) < 0 ? 0 : (v))
#define D_TANH(d, y) ((d) * (1 - (y) * (y)))
#define D_RELU(d, y) ((y) > 0 ? (d) : 0)

/* Each step is a loop over rows calling a row function (restrict
 * pointers, inlined, so the loop over the row vectorizes).  In the row
 * functions x is a row of gx, g one of gh (PyTorch adds gx into gh, so gh
 * comes first), w the row's workspace.
 *
 * tanh / relu: h' = act(gh + gx), the rows and the step kernels N_fwd_S,
 * N_bwd_S (the workspace is h' itself). */
#define SIMPLE_CELL(N, S, TT, ACT, DACT)                                     \
    static inline void N##_##S##_row(int64_t H, const TT *restrict x,        \
                                     const TT *restrict g, TT *restrict h)   \
    {                                                                        \
        ROW_LOOP (int64_t j = 0; j < H; j++) {                               \
            h[j] = ACT(g[j] + x[j]);                                         \
        }                                                                    \
    }                                                                        \
    static inline void N##_##S##_back_row(int64_t H, const TT *restrict w,   \
                                          const TT *restrict dh,             \
                                          TT *restrict dg)                   \
    {                                                                        \
        ROW_LOOP (int64_t j = 0; j < H; j++) {                               \
            dg[j] = DACT(dh[j], w[j]);                                       \
        }                                                                    \
    }                                                                        \
    CLONES static void N##_fwd_##S(const rnn_fwd_args *a)                    \
    {                                                                        \
        const int64_t H = a->H;                                              \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            TT *h = (TT *)a->h + b * H;                                      \
            N##_##S##_row(H, (const TT *)a->gx + b * a->ldgx,                \
                          (const TT *)a->gh + b * H, h);                     \
            if (a->ws != NULL) {                                             \
                memcpy((TT *)a->ws + b * a->ldws, h, sizeof(TT) * (size_t)H); \
            }                                                                \
        }                                                                    \
    }                                                                        \
    CLONES static void N##_bwd_##S(const rnn_bwd_args *a)                    \
    {                                                                        \
        const int64_t H = a->H;                                              \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            N##_##S##_back_row(H, (const TT *)a->ws + b * a->ldws,           \
                               (const TT *)a->dh + b * H,                    \
                               (TT *)a->dgi + b * H);                        \
        }                                                                    \
    }

/* The LSTM row, with the workspace stores (STORE) or without. */
#define LSTM_BODY(T, SIG, TANH, STORE)                                       \
    ROW_LOOP (int64_t j = 0; j < H; j++) {                                   \
        T ig = SIG(g[j] + x[j], lim);                                        \
        T fg = SIG(g[H + j] + x[H + j], lim);                                \
        T cg = TANH(g[2 * H + j] + x[2 * H + j]);                            \
        T og = SIG(g[3 * H + j] + x[3 * H + j], lim);                        \
        T cp = c[j];                                                         \
        T cn = fg * cp + ig * cg;                                            \
        T tc = TANH(cn);                                                     \
        c[j] = cn;                                                           \
        h[j] = og * tc;                                                      \
        STORE                                                                \
    }

#define LSTM_STORE                                                           \
    w[j] = ig;                                                               \
    w[H + j] = fg;                                                           \
    w[2 * H + j] = cg;                                                       \
    w[3 * H + j] = og;                                                       \
    w[4 * H + j] = tc;                                                       \
    w[5 * H + j] = cp;

#define LSTM_ROWS(S, TT, SIG, TANH)                                          \
    static inline void S##_row(int64_t H, TT lim, const TT *restrict x,      \
                               const TT *restrict g, TT *restrict h,         \
                               TT *restrict c)                               \
    {                                                                        \
        LSTM_BODY(TT, SIG, TANH, )                                           \
    }                                                                        \
    static inline void S##_row_ws(int64_t H, TT lim, const TT *restrict x,   \
                                  const TT *restrict g, TT *restrict h,      \
                                  TT *restrict c, TT *restrict w)            \
    {                                                                        \
        LSTM_BODY(TT, SIG, TANH, LSTM_STORE)                                 \
    }                                                                        \
    /* h' = o tanh(c'), c' = f c + i g backwards: dc' gathers the gradient   \
     * through tanh(c') */                                                   \
    static inline void S##_back_row(int64_t H, const TT *restrict w,         \
                                    const TT *restrict dh, TT *restrict dc,  \
                                    TT *restrict dg)                         \
    {                                                                        \
        ROW_LOOP (int64_t j = 0; j < H; j++) {                               \
            TT ig = w[j], fg = w[H + j], cg = w[2 * H + j];                  \
            TT og = w[3 * H + j], tc = w[4 * H + j], cp = w[5 * H + j];      \
            TT d_o = dh[j] * tc;                                             \
            TT dct = dc[j] + D_TANH(dh[j] * og, tc);                         \
            dg[j] = dct * cg * (1 - ig) * ig;                                \
            dg[H + j] = dct * cp * (1 - fg) * fg;                            \
            dg[2 * H + j] = D_TANH(dct * ig, cg);                            \
            dg[3 * H + j] = d_o * (1 - og) * og;                             \
            dc[j] = dct * fg;                                                \
        }                                                                    \
    }

/* The GRU row; h' = (h - n) z + n gives n the gradient dh - dh z
 * (PyTorch sums the two paths so) and h the direct part dh z. */
#define GRU_BODY(T, SIG, TANH, STORE)                                        \
    ROW_LOOP (int64_t j = 0; j < H; j++) {                                   \
        T r = SIG(g[j] + x[j], lim);                                         \
        T z = SIG(g[H + j] + x[H + j], lim);                                 \
        T n = TANH(x[2 * H + j] + g[2 * H + j] * r);                         \
        h[j] = (h[j] - n) * z + n;                                           \
        STORE                                                                \
    }

#define GRU_STORE                                                            \
    w[j] = r;                                                                \
    w[H + j] = z;                                                            \
    w[2 * H + j] = n;                                                        \
    w[3 * H + j] = g[2 * H + j];

#define GRU_ROWS(S, TT, SIG, TANH)                                           \
    static inline void S##_row(int64_t H, TT lim, const TT *restrict x,      \
                               const TT *restrict g, TT *restrict h)         \
    {                                                                        \
        GRU_BODY(TT, SIG, TANH, )                                            \
    }                                                                        \
    static inline void S##_row_ws(int64_t H, TT lim, const TT *restrict x,   \
                                  const TT *restrict g, TT *restrict h,      \
                                  TT *restrict w)                            \
    {                                                                        \
        GRU_BODY(TT, SIG, TANH, GRU_STORE)                                   \
    }                                                                        \
    static inline void S##_back_row(int64_t H, const TT *restrict w,         \
                                    TT *restrict dh, TT *restrict di,        \
                                    TT *restrict dgh)                        \
    {                                                                        \
        ROW_LOOP (int64_t j = 0; j < H; j++) {                               \
            TT r = w[j], z = w[H + j], n = w[2 * H + j];                     \
            TT ghn = w[3 * H + j], hp = w[4 * H + j];                        \
            TT d = dh[j];                                                    \
            TT dhz = d * z;                                                  \
            TT dz = d * (hp - n);                                            \
            TT dpn = D_TANH(d - dhz, n);                                     \
            TT dpr = dpn * ghn * (1 - r) * r;                                \
            TT dpz = dz * (1 - z) * z;                                       \
            di[j] = dpr;                                                     \
            di[H + j] = dpz;                                                 \
            di[2 * H + j] = dpn;                                             \
            dgh[j] = dpr;                                                    \
            dgh[H + j] = dpz;                                                \
            dgh[2 * H + j] = dpn * r;                                        \
            dh[j] = dhz;                                                     \
        }                                                                    \
    }

/* The LSTM and GRU step kernels: the rows of a step, each through its row
 * function. */
#define STEP_KERNELS(S, TT)                                                  \
    CLONES static void lstm_fwd_##S(const rnn_fwd_args *a)                   \
    {                                                                        \
        const int64_t H = a->H;                                              \
        const TT lim = exp_lim_##S;                                          \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            const TT *x = (const TT *)a->gx + b * a->ldgx;                   \
            const TT *g = (const TT *)a->gh + b * 4 * H;                     \
            TT *h = (TT *)a->h + b * H, *c = (TT *)a->c + b * H;             \
            if (a->ws == NULL) {                                             \
                lstm_##S##_row(H, lim, x, g, h, c);                          \
                continue;                                                    \
            }                                                                \
            TT *w = (TT *)a->ws + b * a->ldws;                               \
            lstm_##S##_row_ws(H, lim, x, g, h, c, w);                        \
            if (a->proj) {                                                   \
                memcpy(w + RNN_WS_HFULL(H), h, sizeof(TT) * (size_t)H);      \
            }                                                                \
        }                                                                    \
    }                                                                        \
    CLONES static void lstm_bwd_##S(const rnn_bwd_args *a)                   \
    {                                                                        \
        const int64_t H = a->H;                                              \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            lstm_##S##_back_row(H, (const TT *)a->ws + b * a->ldws,          \
                                (const TT *)a->dh + b * H,                   \
                                (TT *)a->dc + b * H,                         \
                                (TT *)a->dgi + b * 4 * H);                   \
        }                                                                    \
    }                                                                        \
    CLONES static void gru_fwd_##S(const rnn_fwd_args *a)                    \
    {                                                                        \
        const int64_t H = a->H;                                              \
        const TT lim = exp_lim_##S;                                          \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            const TT *x = (const TT *)a->gx + b * a->ldgx;                   \
            const TT *g = (const TT *)a->gh + b * 3 * H;                     \
            TT *h = (TT *)a->h + b * H;                                      \
            if (a->ws == NULL) {                                             \
                gru_##S##_row(H, lim, x, g, h);                              \
            }                                                                \
            else {                                                           \
                gru_##S##_row_ws(H, lim, x, g, h, (TT *)a->ws + b * a->ldws); \
            }                                                                \
        }                                                                    \
    }                                                                        \
    CLONES static void gru_bwd_##S(const rnn_bwd_args *a)                    \
    {                                                                        \
        const int64_t H = a->H;                                              \
        for (int64_t b = 0; b < a->rows; b++) {                              \
            gru_##S##_back_row(H, (const TT *)a->ws + b * a->ldws,           \
                               (TT *)a->dh + b * H, (TT *)a->dgi + b * 3 * H, \
                               (TT *)a->dgh + b * 3 * H);                    \
        }                                                                    \
    }

#define X(E, T, S, EXP, TANH, LIM, OVF)                                      \
    SIMPLE_CELL(tanh, S, T, TANH, D_TANH)                                    \
    SIMPLE_CELL(relu, S, T, RELU, D_RELU)                                    \
    SIGMOID_FN(S, T, EXP, LIM, OVF)                                          \
    LSTM_ROWS(lstm_##S, T, sigmoid_##S, TANH)                                \
    GRU_ROWS(gru_##S, T, sigmoid_##S, TANH)                                  \
    STEP_KERNELS(S, T)
RNN_FORALL_DTYPES(X)
#undef X

const rnn_fwd_fn ct__rnn_fwd_kernels[CT_RNN_MODE_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = tanh_fwd_##S,
    [CT_RNN_TANH] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = relu_fwd_##S,
    [CT_RNN_RELU] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = lstm_fwd_##S,
    [CT_RNN_LSTM] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = gru_fwd_##S,
    [CT_RNN_GRU] = {RNN_FORALL_DTYPES(X)},
#undef X
};

const rnn_bwd_fn ct__rnn_bwd_kernels[CT_RNN_MODE_COUNT][CT_DTYPE_COUNT] = {
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = tanh_bwd_##S,
    [CT_RNN_TANH] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = relu_bwd_##S,
    [CT_RNN_RELU] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = lstm_bwd_##S,
    [CT_RNN_LSTM] = {RNN_FORALL_DTYPES(X)},
#undef X
#define X(E, T, S, EXP, TANH, LIM, OVF) [E] = gru_bwd_##S,
    [CT_RNN_GRU] = {RNN_FORALL_DTYPES(X)},
#undef X
};
