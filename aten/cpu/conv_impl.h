/* aten/cpu/conv_impl.h -- what conv.c shares with conv_unfold.c,
 * conv_tiled.c and conv_avx512.c (internal to libctorch): the geometry of
 * Note [Convolution as gemm], the column loops and the float32 kernels. */
#ifndef CTORCH_ATEN_CPU_CONV_IMPL_H
#define CTORCH_ATEN_CPU_CONV_IMPL_H

#include <ctorch/ctorch.h>

/* The dtypes convolution runs on (torch's slow_conv2d: every integral
 * type, float32, float64, bfloat16; the typed gemm loops cover those BLAS
 * does not) and the column loops (those and float16, for F.unfold). */
#define CONV_FORALL_TYPED_GEMM_DTYPES(X)             \
    CT_FORALL_INTEGRAL_DTYPES(X)                     \
    X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
#define CONV_FORALL_DTYPES(X)                        \
    CONV_FORALL_TYPED_GEMM_DTYPES(X)                 \
    X(CT_DTYPE_FLOAT16, ct_half, f16, float)         \
    X(CT_DTYPE_FLOAT32, float, f32, float)           \
    X(CT_DTYPE_FLOAT64, double, f64, double)

/* Note [Convolution as gemm] in conv.c: the wide side [n, c, ih, iw], the
 * narrow side [n, o, oh, ow], kernel, stride, padding, dilation. */
typedef struct {
    ct_dtype dtype;
    int64_t n, groups;
    int64_t c, o;               /* channels of the wide / narrow side */
    int64_t cg, og;             /* the same per group */
    int64_t ih, iw, oh, ow;
    int64_t kh, kw, sh, sw, ph, pw, dh, dw;
    bool direct;                /* 1x1, stride 1, no padding: cols = input */
} conv_geom;

/* Fill cg, og and direct from the other fields. */
void ct__conv_geom_finish(conv_geom *g);
/* One group of one sample: x [cg, ih, iw] <-> cols [cg * kh * kw, oh * ow]
 * (rows ld elements apart); col2im adds into x. */
void ct__conv_im2col(const conv_geom *g, const char *x, char *cols, int64_t ld);
void ct__conv_col2im(const conv_geom *g, const char *cols, char *x, int64_t ld);
/* The same for the output positions [l0, l1) only (l = oy * ow + ox):
 * cols holds l1 - l0 columns. */
void ct__conv_im2col_range(const conv_geom *g, const char *x, char *cols, int64_t ld,
                           int64_t l0, int64_t l1);
void ct__conv_col2im_range(const conv_geom *g, const char *cols, char *x, int64_t ld,
                           int64_t l0, int64_t l1);
/* aten/device_conv.c: a convolution (or a transposed one) and its
 * gradients on a device, after conv.c's checks (Note [Convolution on a
 * device]); unfold (input [N, C, H, W] or [C, H, W] -> [N, C*kh*kw, L])
 * and fold (input [N, C*kh*kw, L] or without N -> [N, C, H, W]) after
 * conv_unfold.c's, g their one-group geometry. */
ct_tensor *ct__device_conv_forward(const conv_geom *g, bool transposed,
                                   const int64_t *out_sizes, const ct_tensor *input,
                                   const ct_tensor *weight, const ct_tensor *bias);
int ct__device_conv_backward(const conv_geom *g, bool transposed, const ct_tensor *grad_out,
                             const ct_tensor *input, const ct_tensor *weight,
                             const bool mask[3], ct_tensor **grad_input,
                             ct_tensor **grad_weight, ct_tensor **grad_bias);
ct_tensor *ct__device_im2col(const conv_geom *g, const ct_tensor *input);
ct_tensor *ct__device_col2im(const conv_geom *g, const ct_tensor *input);
/* c10's TypeMeta name ("float", "long int") for torch's messages. */
const char *ct__conv_type_name(ct_dtype d);

/* The three products of Note [Convolution as gemm]. */
enum { CONV_FWD, CONV_DATA, CONV_WEIGHT };
/* Run one product over the batch: `wide` and `narrow` are the two sides
 * (NULL where unused), w the weight, bias (or NULL) added to the written
 * side, out the written side, or for CONV_WEIGHT the zeroed dW.  0, or -1
 * with the error set. */
int ct__conv_run(const conv_geom *g, int kind, const char *wide, const char *narrow,
                 const char *w, const char *bias, char *out);
/* The same for float32 when ct__conv_avx512_available(): conv_tiled.c. */
int ct__conv_run_tiled(const conv_geom *g, int kind, const char *wide,
                       const char *narrow, const char *w, const char *bias, char *out);

/* conv_avx512.c, Note [Convolution kernels]: float32 kernels on AVX-512,
 * one thread each.  The packed left operand of nn is [m / MR][k][MR]
 * (ct__conv_avx512_packed_size floats), from a with strides rs, cs. */
#define CONV_AVX512_MR 8
bool ct__conv_avx512_available(void);
int64_t ct__conv_avx512_packed_size(int64_t m, int64_t k);
void ct__conv_avx512_pack(int64_t m, int64_t k, const float *a, int64_t rs, int64_t cs,
                          float *ap);
/* c [m, n] (rows ldc apart) = packed ap @ b [k, n] (+ bias[i] on row i) */
void ct__conv_avx512_nn(int64_t m, int64_t n, int64_t k, const float *ap,
                        const float *b, int64_t ldb, float *c, int64_t ldc,
                        const float *bias);
/* c [m, n] += a [m, k] @ b [n, k]^T */
void ct__conv_avx512_nt(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                        const float *b, int64_t ldb, float *c, int64_t ldc);
/* ct__conv_im2col_range / col2im_range for float32, faster where sw == 1 */
void ct__conv_avx512_im2col(const conv_geom *g, const float *x, float *cols, int64_t ld,
                            int64_t l0, int64_t l1);
void ct__conv_avx512_col2im(const conv_geom *g, const float *cols, float *x, int64_t ld,
                            int64_t l0, int64_t l1);

/* Note [Implicit columns] (conv_avx512.c): per output vector (16 columns
 * of one output row; ct__conv_taps_count of them) the position of its
 * lane 0 and its lanes inside the row, and per (vector, tap) the offset
 * in an input plane of lane 0 and the lanes inside the input. */
typedef struct {
    int32_t *pos;               /* [V] */
    uint16_t *omask;            /* [V] */
    int32_t *off;               /* [V][kh * kw] */
    uint16_t *mask;             /* [V][kh * kw] */
} conv_taps;
int64_t ct__conv_taps_count(const conv_geom *g);
void ct__conv_taps_fill(const conv_geom *g, conv_taps *tp);
/* The packed weight of the implicit forward kernel, [m / mr][kk][nch][mr]
 * with mr = ct__conv_avx512_fwd_rows(m) (at most
 * ct__conv_avx512_packed_size floats): element (row i, tap t, channel c)
 * = a[i * rs + c * cs + t * ts]. */
int ct__conv_avx512_fwd_rows(int64_t m);
void ct__conv_avx512_pack_taps(int64_t m, int64_t kk, int64_t nch, const float *a,
                               int64_t rs, int64_t cs, int64_t ts, float *ap);
/* The vectors [v0, v1) of y [og, oh, ow] = conv(x [cg, ih, iw]) of one
 * group (g->sw == 1), + bias[i] on row i. */
void ct__conv_avx512_fwd(const conv_geom *g, const conv_taps *tp, int64_t v0,
                         int64_t v1, const float *ap, const float *x, float *y,
                         const float *bias);
/* dw [og, cg * kh * kw] += the weight gradient of the vectors [v0, v1) of
 * ns samples of one group, dy [og, oh, ow] and x [cg, ih, iw] advancing by
 * dys and xs floats from one sample to the next, for the blocks of dw in
 * rows [blk[0], blk[1]) and columns [blk[2], blk[3]) (blocks of output
 * channels by input channels x taps, which share no element of dw;
 * ct__conv_avx512_weight_blocks gives how many); work holds
 * ct__conv_avx512_weight_work(g, v1 - v0, ns) floats. */
void ct__conv_avx512_weight_blocks(const conv_geom *g, int64_t *rows, int64_t *cols);
int64_t ct__conv_avx512_weight_work(const conv_geom *g, int64_t nv, int64_t ns);
void ct__conv_avx512_weight(const conv_geom *g, const conv_taps *tp, int64_t v0,
                            int64_t v1, int64_t ns, const float *dy, int64_t dys,
                            const float *x, int64_t xs, float *dw, float *work,
                            const int64_t blk[4]);

#endif
