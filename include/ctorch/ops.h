/* ctorch/ops.h -- the op API of aten.
 *
 * Every function returns a new reference (or NULL with the error set) or
 * 0 / -1; tensor arguments are borrowed.  `out` arguments, where present,
 * may be NULL (allocate) or a tensor written in place and returned with a
 * new reference.  Error texts follow PyTorch's.
 */
#ifndef CTORCH_OPS_H
#define CTORCH_OPS_H

#include "op_lists.h"
#include "tensor.h"

/* --- pointwise binary (aten/cpu/binary.c): the op list is in op_lists.h - */

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

/* --- pointwise unary (aten/cpu/unary.c): the op list is in op_lists.h -- */
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
/* Tensor.pin_memory(): a contiguous copy of CPU tensor t in page-locked
 * memory (t itself, new reference, when it is there already); PyTorch's
 * error for a device tensor, CUDA's when it cannot start. */
ct_tensor *ct_pin_memory(const ct_tensor *t);
/* Whether t's storage is page-locked (pin_memory's). */
bool ct_is_pinned(const ct_tensor *t);
/* Contiguous copy, or t itself (new ref) when already contiguous. */
ct_tensor *ct_contiguous(const ct_tensor *t);
/* Copy keeping a dense layout (memory_format=preserve). */
ct_tensor *ct_clone(const ct_tensor *t);
int ct_fill_(ct_tensor *t, ct_scalar value);

/* --- factories (aten/cpu/factory.c) ----------------------------------- */
ct_tensor *ct_full(int ndim, const int64_t *sizes, ct_scalar value,
                   ct_dtype dtype);
ct_tensor *ct_zeros(int ndim, const int64_t *sizes, ct_dtype dtype);
/* ct_zeros on `device` (a fill kernel there; ct_zeros on the CPU). */
ct_tensor *ct_zeros_on(int ndim, const int64_t *sizes, ct_dtype dtype, ct_device device);
ct_tensor *ct_ones(int ndim, const int64_t *sizes, ct_dtype dtype);
/* ct_full on `device` (a fill kernel there). */
ct_tensor *ct_full_on(int ndim, const int64_t *sizes, ct_scalar value, ct_dtype dtype,
                      ct_device device);
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
