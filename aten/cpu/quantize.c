/* aten/cpu/quantize.c -- per-tensor affine quantization.
 *
 * q = clamp(zero_point + round_half_even(x * (1/scale)), qmin, qmax), in
 * float as PyTorch's CPU kernels compute it; dequantization is
 * (q - zero_point) * scale in float.
 */
#include "aten/device.h"
#include <math.h>
#include <string.h>

#include "aten/cpu/loops.h"

typedef struct {
    float inv_scale;
    int64_t zero_point;
    int64_t qmin, qmax;
} quant_ctx;

#define X(E, T, S, A)                                                         \
    static int quantize_##S(char **data, const int64_t *st, int64_t n, void *ctx) \
    {                                                                         \
        const quant_ctx *c = ctx;                                             \
        for (int64_t i = 0; i < n; i++) {                                     \
            float x = *(const float *)(data[1] + i * st[1]);                  \
            float r = nearbyintf(x * c->inv_scale);                           \
            int64_t q = isfinite(r) ? c->zero_point + (int64_t)r              \
                                    : (r > 0 ? c->qmax : c->qmin);            \
            q = q < c->qmin ? c->qmin : q > c->qmax ? c->qmax : q;            \
            *(T *)(data[0] + i * st[0]) = (T)q;                               \
        }                                                                     \
        return 0;                                                             \
    }
CT_FORALL_QUANTIZED_DTYPES(X)
#undef X

static const ct_loop quantize_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = quantize_##S,
    CT_FORALL_QUANTIZED_DTYPES(X)
#undef X
};

static const int64_t qranges[CT_DTYPE_COUNT][2] = {
    [CT_DTYPE_QINT8] = {-128, 127},
    [CT_DTYPE_QUINT8] = {0, 255},
    [CT_DTYPE_QINT32] = {INT32_MIN, INT32_MAX},
};

ct_tensor *
ct_quantize_per_tensor(const ct_tensor *t, double scale, int64_t zero_point,
                       ct_dtype dtype)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    if (!ct_dtype_table[dtype].is_quantized) {
        ct_error(CT_ERR_RUNTIME, "Quantize: unsupported dtype %s; expected "
                 "one of QInt8, QUInt8, QInt32", ct_dtype_table[dtype].legacy);
        return NULL;
    }
    if (t->dtype != CT_DTYPE_FLOAT32) {
        ct_error(CT_ERR_RUNTIME, "Quantize only works on Float Tensor, got %s",
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    if (zero_point < qranges[dtype][0] || zero_point > qranges[dtype][1]) {
        ct_error(CT_ERR_RUNTIME, "quantize_tensor_per_tensor_affine zero_point %lld "
                 "is %s bound.", (long long)zero_point,
                 zero_point < qranges[dtype][0] ? "below lower" : "above upper");
        return NULL;
    }
    ct_tensor *q = ct_empty(t->ndim, t->sizes, dtype, ct_device_cpu());
    if (q == NULL) {
        return NULL;
    }
    q->q_scale = scale;
    q->q_zero_point = zero_point;
    quant_ctx c = {1.0f / (float)scale, zero_point, qranges[dtype][0],
                   qranges[dtype][1]};
    ct_tensor *ops[2] = {q, (ct_tensor *)t};
    if (ct_iter_run(2, ops, quantize_loops[dtype], &c) < 0) {
        ct_tensor_decref(q);
        return NULL;
    }
    return q;
}

ct_tensor *
ct_int_repr(const ct_tensor *t)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    if (!ct_dtype_table[t->dtype].is_quantized) {
        ct_error(CT_ERR_RUNTIME, "int_repr is only supported for quantized tensors");
        return NULL;
    }
    ct_tensor *view = ct_tensor_new(t->storage, t->offset, t->ndim, t->sizes,
                                    t->strides, ct_dtype_table[t->dtype].underlying);
    if (view == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_clone(view);
    ct_tensor_decref(view);
    return r;
}

ct_tensor *
ct_dequantize(const ct_tensor *t)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return NULL;
    }
    if (!ct_dtype_table[t->dtype].is_quantized) {
        return ct_to_dtype(t, CT_DTYPE_FLOAT32, false);
    }
    ct_tensor *ints = ct_int_repr(t);      /* contiguous */
    if (ints == NULL) {
        return NULL;
    }
    ct_tensor *r = ct_empty(t->ndim, t->sizes, CT_DTYPE_FLOAT32, ct_device_cpu());
    if (r == NULL) {
        ct_tensor_decref(ints);
        return NULL;
    }
    float *o = (float *)ct_tensor_data(r);
    float scale = (float)t->q_scale, zp = (float)t->q_zero_point;
    for (int64_t i = 0; i < t->numel; i++) {
        o[i] = ((float)ct_tensor_item_at(ints, i).v.i - zp) * scale;
    }
    ct_tensor_decref(ints);
    return r;
}
