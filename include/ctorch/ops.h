/* ctorch/ops.h -- the op API of aten.
 *
 * Every function returns a new reference (or NULL with the error set) or
 * 0 / -1; tensor arguments are borrowed.  `out` arguments, where present,
 * may be NULL (allocate) or a tensor written in place and returned with a
 * new reference.  Error texts follow PyTorch's.
 */
#ifndef CTORCH_OPS_H
#define CTORCH_OPS_H

#include "tensor.h"

/* --- pointwise binary (aten/cpu/binary.c) ------------------------------ */
/* X(ENUM, name, kind) (name: PyTorch's op name as a bare token, so that
 * bindings can stamp functions from it): the result is CT_RESULT_COMMON (the promoted
 * dtype), CT_RESULT_FLOAT (integers promote to the default float dtype:
 * true division), or CT_RESULT_BOOL (comparisons and logical ops). */
#define CT_FORALL_BINARY_OPS(X)                                    \
    X(CT_BINARY_ADD, add, CT_RESULT_COMMON)                      \
    X(CT_BINARY_SUB, sub, CT_RESULT_COMMON)                      \
    X(CT_BINARY_MUL, mul, CT_RESULT_COMMON)                      \
    X(CT_BINARY_DIV, div, CT_RESULT_FLOAT)                       \
    X(CT_BINARY_FLOOR_DIVIDE, floor_divide, CT_RESULT_COMMON)    \
    X(CT_BINARY_DIV_TRUNC, div_trunc, CT_RESULT_COMMON)          \
    X(CT_BINARY_REMAINDER, remainder, CT_RESULT_COMMON)          \
    X(CT_BINARY_FMOD, fmod, CT_RESULT_COMMON)                    \
    X(CT_BINARY_POW, pow, CT_RESULT_COMMON)                      \
    X(CT_BINARY_ATAN2, atan2, CT_RESULT_FLOAT)                   \
    X(CT_BINARY_MAXIMUM, maximum, CT_RESULT_COMMON)              \
    X(CT_BINARY_MINIMUM, minimum, CT_RESULT_COMMON)              \
    X(CT_BINARY_FMAX, fmax, CT_RESULT_COMMON)                    \
    X(CT_BINARY_FMIN, fmin, CT_RESULT_COMMON)                    \
    X(CT_BINARY_BITWISE_AND, bitwise_and, CT_RESULT_COMMON)      \
    X(CT_BINARY_BITWISE_OR, bitwise_or, CT_RESULT_COMMON)        \
    X(CT_BINARY_BITWISE_XOR, bitwise_xor, CT_RESULT_COMMON)      \
    X(CT_BINARY_LSHIFT, bitwise_left_shift, CT_RESULT_COMMON)    \
    X(CT_BINARY_RSHIFT, bitwise_right_shift, CT_RESULT_COMMON)   \
    X(CT_BINARY_EQ, eq, CT_RESULT_BOOL)                          \
    X(CT_BINARY_NE, ne, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LT, lt, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LE, le, CT_RESULT_BOOL)                          \
    X(CT_BINARY_GT, gt, CT_RESULT_BOOL)                          \
    X(CT_BINARY_GE, ge, CT_RESULT_BOOL)                          \
    X(CT_BINARY_LOGICAL_AND, logical_and, CT_RESULT_BOOL)        \
    X(CT_BINARY_LOGICAL_OR, logical_or, CT_RESULT_BOOL)          \
    X(CT_BINARY_LOGICAL_XOR, logical_xor, CT_RESULT_BOOL)

typedef enum { CT_RESULT_COMMON, CT_RESULT_FLOAT, CT_RESULT_BOOL } ct_result_kind;

typedef enum {
#define X(E, N, K) E,
    CT_FORALL_BINARY_OPS(X)
#undef X
    CT_BINARY_COUNT
} ct_binary_op;

extern const char *const ct_binary_names[CT_BINARY_COUNT];

/* How `out` is used by ops that take one. */
typedef enum {
    CT_OUT_NEW = 0,     /* out == NULL: allocate the result */
    CT_OUT_GIVEN,       /* out=: resized (with PyTorch's warning) if needed */
    CT_OUT_INPLACE,     /* a.op_(b): out is a, its shape may not change */
} ct_out_mode;

/* a OP b (for add/sub: a OP alpha * b).  Broadcasting, type promotion and
 * the in-place / out= rules of PyTorch. */
ct_tensor *ct_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
                     ct_scalar alpha, ct_tensor *out, ct_out_mode mode);
ct_tensor *ct_add(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
ct_tensor *ct_sub(const ct_tensor *a, const ct_tensor *b, ct_scalar alpha);
ct_tensor *ct_mul(const ct_tensor *a, const ct_tensor *b);
ct_tensor *ct_div(const ct_tensor *a, const ct_tensor *b);
/* torch.result_type of the two operands. */
int ct_result_type(const ct_tensor *a, const ct_tensor *b, ct_dtype *out);
/* The same over ts[0..n-1] (addcmul's three operands). */
int ct_result_type_n(int n, const ct_tensor *const *ts, ct_dtype *out);

/* --- pointwise unary (aten/cpu/unary.c) -------------------------------- */
/* X(ENUM, name, kind) (name: PyTorch's, a bare token): kind CT_UNARY_SAME keeps the dtype, CT_UNARY_FLOAT
 * computes integers and bool in the default float dtype, CT_UNARY_BOOL
 * returns bool. */
#define CT_FORALL_UNARY_OPS(X)                      \
    X(CT_UNARY_ABS, abs, CT_UNARY_SAME)           \
    X(CT_UNARY_NEG, neg, CT_UNARY_SAME)           \
    X(CT_UNARY_SIGN, sign, CT_UNARY_SAME)         \
    X(CT_UNARY_SQRT, sqrt, CT_UNARY_FLOAT)        \
    X(CT_UNARY_RSQRT, rsqrt, CT_UNARY_FLOAT)      \
    X(CT_UNARY_EXP, exp, CT_UNARY_FLOAT)          \
    X(CT_UNARY_EXP2, exp2, CT_UNARY_FLOAT)        \
    X(CT_UNARY_EXPM1, expm1, CT_UNARY_FLOAT)      \
    X(CT_UNARY_LOG, log, CT_UNARY_FLOAT)          \
    X(CT_UNARY_LOG2, log2, CT_UNARY_FLOAT)        \
    X(CT_UNARY_LOG10, log10, CT_UNARY_FLOAT)      \
    X(CT_UNARY_LOG1P, log1p, CT_UNARY_FLOAT)      \
    X(CT_UNARY_SIN, sin, CT_UNARY_FLOAT)          \
    X(CT_UNARY_COS, cos, CT_UNARY_FLOAT)          \
    X(CT_UNARY_TAN, tan, CT_UNARY_FLOAT)          \
    X(CT_UNARY_ASIN, asin, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ACOS, acos, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ATAN, atan, CT_UNARY_FLOAT)        \
    X(CT_UNARY_SINH, sinh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_COSH, cosh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_TANH, tanh, CT_UNARY_FLOAT)        \
    X(CT_UNARY_SIGMOID, sigmoid, CT_UNARY_FLOAT)  \
    X(CT_UNARY_ERF, erf, CT_UNARY_FLOAT)          \
    X(CT_UNARY_ERFC, erfc, CT_UNARY_FLOAT)        \
    X(CT_UNARY_ERFINV, erfinv, CT_UNARY_FLOAT)    \
    X(CT_UNARY_RECIPROCAL, reciprocal, CT_UNARY_FLOAT) \
    X(CT_UNARY_FLOOR, floor, CT_UNARY_SAME)       \
    X(CT_UNARY_CEIL, ceil, CT_UNARY_SAME)         \
    X(CT_UNARY_ROUND, round, CT_UNARY_SAME)       \
    X(CT_UNARY_TRUNC, trunc, CT_UNARY_SAME)       \
    X(CT_UNARY_FRAC, frac, CT_UNARY_SAME)         \
    X(CT_UNARY_SQUARE, square, CT_UNARY_SAME)     \
    X(CT_UNARY_RELU, relu, CT_UNARY_SAME)         \
    X(CT_UNARY_SILU, silu, CT_UNARY_SAME)         \
    X(CT_UNARY_GELU, gelu, CT_UNARY_SAME)         \
    X(CT_UNARY_BITWISE_NOT, bitwise_not, CT_UNARY_SAME) \
    X(CT_UNARY_ISNAN, isnan, CT_UNARY_BOOL)       \
    X(CT_UNARY_ISINF, isinf, CT_UNARY_BOOL)       \
    X(CT_UNARY_ISFINITE, isfinite, CT_UNARY_BOOL) \
    X(CT_UNARY_SIGNBIT, signbit, CT_UNARY_BOOL)   \
    X(CT_UNARY_LOGICAL_NOT, logical_not, CT_UNARY_BOOL)

typedef enum { CT_UNARY_SAME, CT_UNARY_FLOAT, CT_UNARY_BOOL } ct_unary_kind;

typedef enum {
#define X(E, N, K) E,
    CT_FORALL_UNARY_OPS(X)
#undef X
    CT_UNARY_COUNT
} ct_unary_op;

extern const char *const ct_unary_names[CT_UNARY_COUNT];
/* op(t), into out per mode (see ct_out_mode). */
ct_tensor *ct_unary(ct_unary_op op, const ct_tensor *t, ct_tensor *out,
                    ct_out_mode mode);
ct_tensor *ct_neg(const ct_tensor *t);

/* --- selection (aten/cpu/select.c) -------------------------------------- */
/* cond ? a : b, broadcast, in the promoted dtype of a and b. */
ct_tensor *ct_where(const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b);
/* t[mask] = value in place (mask bool, or uint8 with a warning). */
int ct_masked_fill_(ct_tensor *t, const ct_tensor *mask, ct_scalar value);
/* min(max(t, min), max); either bound may be NULL (not both). */
ct_tensor *ct_clamp(const ct_tensor *t, const ct_tensor *min, const ct_tensor *max,
                    ct_tensor *out, ct_out_mode mode);
/* NaN and infinities replaced (NULL: 0, the dtype's max, its lowest). */
ct_tensor *ct_nan_to_num(const ct_tensor *t, const double *nan, const double *posinf,
                         const double *neginf);
ct_tensor *ct_lerp(const ct_tensor *start, const ct_tensor *end, const ct_tensor *weight);
ct_tensor *ct_round_decimals(const ct_tensor *t, int64_t decimals);

/* --- copies and conversions (aten/cpu/copy.c) -------------------------- */
/* dst[...] = src, src broadcast to dst, converted to dst's dtype. */
int ct_copy_(ct_tensor *dst, const ct_tensor *src);
/* A tensor of dtype `dtype` with t's values; t itself (new ref) when the
 * dtype already matches and !copy. */
ct_tensor *ct_to_dtype(const ct_tensor *t, ct_dtype dtype, bool copy);
/* A copy of t on device (strides kept when t is dense), waiting for the
 * copy when it touches host memory.  "cuda" alone is the current device. */
ct_tensor *ct_to_device(const ct_tensor *t, ct_device device);
/* Contiguous copy, or t itself (new ref) when already contiguous. */
ct_tensor *ct_contiguous(const ct_tensor *t);
/* Copy keeping a dense layout (memory_format=preserve). */
ct_tensor *ct_clone(const ct_tensor *t);
int ct_fill_(ct_tensor *t, ct_scalar value);

/* --- factories (aten/cpu/factory.c) ----------------------------------- */
ct_tensor *ct_full(int ndim, const int64_t *sizes, ct_scalar value,
                   ct_dtype dtype);
ct_tensor *ct_zeros(int ndim, const int64_t *sizes, ct_dtype dtype);
ct_tensor *ct_ones(int ndim, const int64_t *sizes, ct_dtype dtype);
/* Result dtype chosen by the caller (PyTorch: int64 unless a bound is a
 * float, then the default dtype). */
ct_tensor *ct_arange(ct_scalar start, ct_scalar end, ct_scalar step,
                     ct_dtype dtype);
/* torch.range: inclusive end. */
ct_tensor *ct_range(ct_scalar start, ct_scalar end, ct_scalar step,
                    ct_dtype dtype);
ct_tensor *ct_linspace(ct_scalar start, ct_scalar end, int64_t steps,
                       ct_dtype dtype);
ct_tensor *ct_logspace(ct_scalar start, ct_scalar end, int64_t steps,
                       double base, ct_dtype dtype);
ct_tensor *ct_eye(int64_t n, int64_t m, ct_dtype dtype);

/* --- quantization (aten/cpu/quantize.c) ------------------------------- */
ct_tensor *ct_quantize_per_tensor(const ct_tensor *t, double scale,
                                  int64_t zero_point, ct_dtype dtype);
ct_tensor *ct_dequantize(const ct_tensor *t);
/* The stored integers, as a new tensor of the underlying integer dtype. */
ct_tensor *ct_int_repr(const ct_tensor *t);

/* --- views (aten/view.c): share storage, record their base ----------- */
ct_tensor *ct_as_strided(const ct_tensor *t, int ndim, const int64_t *sizes,
                         const int64_t *strides, int64_t offset);
/* sizes may hold one -1; RuntimeError when the strides forbid a view. */
ct_tensor *ct_view(const ct_tensor *t, int ndim, const int64_t *sizes);
/* A view when possible, else a copy. */
ct_tensor *ct_reshape(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ct_narrow(const ct_tensor *t, int64_t dim, int64_t start,
                     int64_t length);
ct_tensor *ct_select(const ct_tensor *t, int64_t dim, int64_t index);
/* Python slice semantics on one dim: start/stop already clamped by the
 * caller or not; step must be > 0. */
ct_tensor *ct_slice(const ct_tensor *t, int64_t dim, int64_t start,
                    int64_t stop, int64_t step);
ct_tensor *ct_expand(const ct_tensor *t, int ndim, const int64_t *sizes);
ct_tensor *ct_permute(const ct_tensor *t, int ndim, const int64_t *dims);
ct_tensor *ct_transpose(const ct_tensor *t, int64_t d0, int64_t d1);
ct_tensor *ct_unsqueeze(const ct_tensor *t, int64_t dim);
/* dim == NULL: every size-1 dim. */
ct_tensor *ct_squeeze(const ct_tensor *t, const int64_t *dim);
/* Shape of broadcasting a with b; -1 with PyTorch's RuntimeError. */
int ct_broadcast_shapes(int na, const int64_t *a, int nb, const int64_t *b,
                        int *nout, int64_t *out);

#endif
