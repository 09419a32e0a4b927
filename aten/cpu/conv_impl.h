/* aten/cpu/conv_impl.h -- what conv.c shares with conv_unfold.c
 * (internal to libctorch): the geometry of Note [Convolution as gemm]
 * and the column loops. */
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
/* c10's TypeMeta name ("float", "long int") for torch's messages. */
const char *ct__conv_type_name(ct_dtype d);
int ct__conv_run(const conv_geom *g, int kind, const char *wide, const char *narrow,
                 const char *w, const char *bias, char *out);

#endif
