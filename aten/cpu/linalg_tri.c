/* aten/cpu/linalg_tri.c -- the shape-like linear algebra ops: tril, triu,
 * diag, trace, outer and addr.  tril / triu / diag only move elements (any
 * dtype: zero is all-zero bytes in every dtype), trace sums with a typed
 * loop per dtype, outer is a broadcast mul and addr a mul and an add.
 * Device tensors: tril / triu and trace go to aten/device_shape.c after
 * the checks; diag, outer and addr run as written (views, copies and
 * ct_binary reach the device).
 *
 * Ownership as in ops.h.
 */
#include "aten/device.h"
#include <string.h>

#include "aten/cpu/loops.h"

/* Write out= from a computed result: out's dtype must be the result's
 * (torch's "expected scalar type" wording), out is resized as
 * ct_iter_check_out does.  Drops `res`; returns a new reference to out. */
static ct_tensor *
finish_out(ct_tensor *res, ct_tensor *out, ct_out_mode mode)
{
    if (res == NULL || out == NULL) {
        return res;
    }
    if (mode != CT_OUT_INPLACE && out->dtype != res->dtype) {
        ct_error(CT_ERR_RUNTIME, "expected scalar type %s but found %s",
                 ct_dtype_table[res->dtype].legacy, ct_dtype_table[out->dtype].legacy);
        ct_tensor_decref(res);
        return NULL;
    }
    if (ct_iter_check_out(out, mode, res->ndim, res->sizes, 0, NULL) < 0 ||
        ct_copy_(out, res) < 0) {
        ct_tensor_decref(res);
        return NULL;
    }
    ct_tensor_decref(res);
    ct_tensor_incref(out);
    return out;
}

/* A new contiguous copy of t, on t's device. */
static ct_tensor *
contiguous_copy(const ct_tensor *t)
{
    ct_tensor *r = ct_empty(t->ndim, t->sizes, t->dtype, ct_tensor_device(t));
    if (r != NULL && ct_copy_(r, t) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

/* Zero the elements of a contiguous [..., r, c] tensor outside the
 * triangle: j - i > diagonal (lower) or j - i < diagonal (upper). */
static void
zero_outside(ct_tensor *t, int64_t diagonal, bool lower)
{
    int64_t r = t->sizes[t->ndim - 2], c = t->sizes[t->ndim - 1];
    size_t z = ct_dtype_itemsize(t->dtype);
    int64_t mats = (r != 0 && c != 0) ? t->numel / (r * c) : 0;
    char *base = ct_tensor_data(t);
    for (int64_t b = 0; b < mats; b++) {
        for (int64_t i = 0; i < r; i++) {
            char *row = base + (size_t)((b * r + i) * c) * z;
            /* columns kept: lower j <= i + d, upper j >= i + d */
            int64_t edge = i + diagonal;
            if (lower) {
                int64_t from = edge + 1 < 0 ? 0 : edge + 1;
                if (from < c) {
                    memset(row + (size_t)from * z, 0, (size_t)(c - from) * z);
                }
            }
            else {
                int64_t upto = edge > c ? c : edge;
                if (upto > 0) {
                    memset(row, 0, (size_t)upto * z);
                }
            }
        }
    }
}

static ct_tensor *
triangle(const ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode,
         bool lower)
{
    if (t->ndim == 0) {
        ct_error(CT_ERR_INDEX, "Dimension specified as -2 but tensor has no "
                 "dimensions");
        return NULL;
    }
    if (t->ndim < 2) {
        ct_wrap_dim(-2, t->ndim);           /* torch's IndexError */
        return NULL;
    }
    if (ct__is_device(t) || ct__is_device(out)) {
        if (ct__same_device((const ct_tensor *const[]){t, out}, 2) < 0) {
            return NULL;
        }
        return finish_out(ct__device_triangle(t, diagonal, lower), out, mode);
    }
    ct_tensor *res = contiguous_copy(t);
    if (res == NULL) {
        return NULL;
    }
    zero_outside(res, diagonal, lower);
    return finish_out(res, out, mode);
}

ct_tensor *
ct_tril(const ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode)
{
    return triangle(t, diagonal, out, mode, true);
}

ct_tensor *
ct_triu(const ct_tensor *t, int64_t diagonal, ct_tensor *out, ct_out_mode mode)
{
    return triangle(t, diagonal, out, mode, false);
}

/* diag only moves elements through strided views and copies, so the same
 * code runs on a device. */
ct_tensor *
ct_diag(const ct_tensor *t, int64_t diagonal, ct_tensor *out)
{
    if (ct__same_device((const ct_tensor *const[]){t, out}, 2) < 0) {
        return NULL;
    }
    ct_tensor *res = NULL, *view = NULL;
    int64_t ad = diagonal < 0 ? -diagonal : diagonal;

    if (t->ndim == 1) {
        int64_t n = t->sizes[0], size = n + ad;
        int64_t sizes[2] = {size, size};
        int64_t step = size + 1;
        res = ct_zeros_on(2, sizes, t->dtype, ct_tensor_device(t));
        if (res == NULL) {
            return NULL;
        }
        view = ct_as_strided(res, 1, &n, &step, diagonal >= 0 ? ad : ad * size);
        if (view == NULL || ct_copy_(view, t) < 0) {
            goto fail;
        }
        ct_tensor_decref(view);
        return finish_out(res, out, CT_OUT_GIVEN);
    }
    if (t->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "matrix or a vector expected");
        return NULL;
    }
    int64_t r = t->sizes[0], c = t->sizes[1], len, off;
    if (diagonal >= 0) {
        len = r < c - ad ? r : c - ad;
        off = ad * t->strides[1];
    }
    else {
        len = r - ad < c ? r - ad : c;
        off = ad * t->strides[0];
    }
    if (len <= 0) {
        len = 0;
        off = 0;
    }
    int64_t step = t->strides[0] + t->strides[1];
    view = ct_as_strided(t, 1, &len, &step, t->offset + off);
    if (view == NULL) {
        return NULL;
    }
    res = contiguous_copy(view);
    ct_tensor_decref(view);
    return finish_out(res, out, CT_OUT_GIVEN);
fail:
    ct_tensor_decref(view);
    ct_tensor_decref(res);
    return NULL;
}

/* Sum of n elements `step` bytes apart: in double for floating dtypes,
 * int64 (wrapping) for integral ones, as torch's trace accumulates. */
typedef ct_scalar (*trace_loop)(const char *p, int64_t n, int64_t step);

#define TRACE_INT(E, T, S, A)                                                  \
    static ct_scalar trace_##S(const char *p, int64_t n, int64_t step)         \
    {                                                                          \
        uint64_t acc = 0;                                                      \
        for (int64_t i = 0; i < n; i++) {                                      \
            acc += (uint64_t)ct__as_i64_##S(*(const T *)(p + i * step));       \
        }                                                                      \
        return ct_scalar_int((int64_t)acc);                                    \
    }
#define TRACE_FLOAT(E, T, S, A)                                                \
    static ct_scalar trace_##S(const char *p, int64_t n, int64_t step)         \
    {                                                                          \
        double acc = 0;                                                        \
        for (int64_t i = 0; i < n; i++) {                                      \
            acc += ct__as_f64_##S(*(const T *)(p + i * step));                 \
        }                                                                      \
        return ct_scalar_float(acc);                                           \
    }
CT_FORALL_INTEGRAL_DTYPES(TRACE_INT)
CT_FORALL_FLOATING_DTYPES(TRACE_FLOAT)
#undef TRACE_INT
#undef TRACE_FLOAT

static const trace_loop trace_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = trace_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

ct_tensor *
ct_trace(const ct_tensor *t)
{
    if (t->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "trace: expected a matrix, but got tensor with dim %d",
                 t->ndim);
        return NULL;
    }
    if (trace_loops[t->dtype] == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"trace\" not implemented for '%s'",
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    if (ct__is_device(t)) {
        return ct__device_trace(t);
    }
    int64_t n = t->sizes[0] < t->sizes[1] ? t->sizes[0] : t->sizes[1];
    int64_t step = (t->strides[0] + t->strides[1]) *
                   (int64_t)ct_dtype_itemsize(t->dtype);
    ct_scalar s = trace_loops[t->dtype](ct_tensor_data(t), n, step);
    ct_dtype rd = ct_dtype_is_floating(t->dtype) ? t->dtype : CT_DTYPE_INT64;
    return ct_full(0, NULL, s, rd);
}

ct_tensor *
ct_outer(const ct_tensor *a, const ct_tensor *b, ct_tensor *out)
{
    /* (a broadcast mul: ct_binary runs it on a device too) */
    if (a->ndim != 1 || b->ndim != 1) {
        ct_error(CT_ERR_RUNTIME, "outer: Expected 1-D argument %s, but got %d-D",
                 a->ndim != 1 ? "self" : "vec2", a->ndim != 1 ? a->ndim : b->ndim);
        return NULL;
    }
    ct_tensor *col = ct_unsqueeze(a, 1);
    if (col == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_binary(CT_BINARY_MUL, col, b, ct_scalar_int(1), out,
                             out ? CT_OUT_GIVEN : CT_OUT_NEW);
    ct_tensor_decref(col);
    return r;
}

/* The beta * self term of addr: zeros shaped like self for beta == 0 (self
 * is ignored, its dtype and rank still promote), self itself for beta ==
 * 1 (or a true beta on bool results), else a mul.  New reference. */
static ct_tensor *
addr_self_term(const ct_tensor *self, ct_scalar beta, ct_dtype common)
{
    double b = ct_scalar_to_double(beta);
    if (b == 0) {
        return ct_zeros_on(self->ndim, self->sizes, self->dtype, ct_tensor_device(self));
    }
    if (b == 1 || common == CT_DTYPE_BOOL) {
        ct_tensor_incref((ct_tensor *)self);
        return (ct_tensor *)self;
    }
    ct_tensor *bt = ct_scalar_tensor(beta);
    if (bt == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_mul(self, bt);
    ct_tensor_decref(bt);
    return r;
}

ct_tensor *
ct_addr(const ct_tensor *self, const ct_tensor *vec1, const ct_tensor *vec2,
        ct_scalar beta, ct_scalar alpha, ct_tensor *out, ct_out_mode mode)
{
    /* (outer, mul and add: ct_binary runs them on a device too) */
    ct_tensor *o = NULL, *sb = NULL, *r = NULL;
    ct_dtype common;

    if (vec1->ndim != 1 || vec2->ndim != 1) {
        ct_error(CT_ERR_RUNTIME, "addr: Expected 1-D argument %s, but got %d-D",
                 vec1->ndim != 1 ? "vec1" : "vec2",
                 vec1->ndim != 1 ? vec1->ndim : vec2->ndim);
        return NULL;
    }
    int64_t shape[2] = {vec1->sizes[0], vec2->sizes[0]};
    if (mode == CT_OUT_INPLACE && self->ndim != 2) {
        ct_error(CT_ERR_RUNTIME, "2D tensor expected, got %dD tensor for input",
                 self->ndim);
        return NULL;
    }
    if (mode != CT_OUT_INPLACE) {
        ct_tensor *e = ct_expand(self, 2, shape);     /* torch's expand message */
        if (e == NULL) {
            return NULL;
        }
        ct_tensor_decref(e);
    }
    if ((o = ct_outer(vec1, vec2, NULL)) == NULL ||
        ct_result_type(self, o, &common) < 0) {
        goto done;
    }
    if (beta.kind == CT_SCALAR_BOOL && common != CT_DTYPE_BOOL) {
        ct_error(CT_ERR_RUNTIME, "Boolean beta only supported for Boolean results.");
        goto done;
    }
    if (beta.kind == CT_SCALAR_FLOAT && !ct_dtype_is_floating(common)) {
        ct_error(CT_ERR_RUNTIME, "For integral input tensors, argument beta must not "
                 "be a floating point number.");
        goto done;
    }
    if ((sb = addr_self_term(self, beta, common)) == NULL) {
        goto done;
    }
    r = ct_binary(CT_BINARY_ADD, sb, o, alpha, out, out ? mode : CT_OUT_NEW);
done:
    ct_tensor_decref(o);
    ct_tensor_decref(sb);
    return r;
}
