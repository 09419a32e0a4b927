/* c10/dlpack.c -- tensors to and from DLPack. */
#include <stdlib.h>
#include <string.h>

#include <ctorch/dlpack.h>
#include <ctorch/error.h>

typedef struct {
    DLManagedTensor m;
    ct_tensor *t;
    int64_t dims[];             /* shape then strides */
} export_ctx;

static void
export_deleter(DLManagedTensor *m)
{
    export_ctx *c = (export_ctx *)m;
    ct_tensor_decref(c->t);
    free(c);
}

/* DLPack type of a dtype. */
static int
dl_type(ct_dtype d, DLDataType *out)
{
    out->lanes = 1;
    out->bits = (uint8_t)(ct_dtype_itemsize(d) * 8);
    if (ct_dtype_table[d].is_quantized || d == CT_DTYPE_BOOL) {
        /* PyTorch 1.13 exports neither (bool arrived with DLPack 0.8) */
        return ct_error(CT_ERR_RUNTIME, "%s type is not supported by dlpack",
                        ct_dtype_table[d].legacy);
    }
    if (d == CT_DTYPE_BFLOAT16) {
        out->code = kDLBfloat;
    }
    else if (ct_dtype_is_floating(d)) {
        out->code = kDLFloat;
    }
    else if (d == CT_DTYPE_UINT8) {
        out->code = kDLUInt;
    }
    else {
        out->code = kDLInt;
    }
    return 0;
}

DLManagedTensor *
ct_tensor_to_dlpack(ct_tensor *t)
{
    DLDataType type;
    if (dl_type(t->dtype, &type) < 0) {
        return NULL;
    }
    export_ctx *c = malloc(sizeof *c + 2 * (size_t)(t->ndim ? t->ndim : 1) *
                                           sizeof(int64_t));
    if (c == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(c->dims, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(c->dims + t->ndim, t->strides, (size_t)t->ndim * sizeof(int64_t));
    ct_tensor_incref(t);
    c->t = t;
    c->m.manager_ctx = c;
    c->m.deleter = export_deleter;
    c->m.dl_tensor.data = ct_tensor_data(t);
    c->m.dl_tensor.device.device_type =
        ct_tensor_device(t).type == CT_DEVICE_CUDA ? kDLCUDA : kDLCPU;
    c->m.dl_tensor.device.device_id =
        ct_tensor_device(t).index < 0 ? 0 : ct_tensor_device(t).index;
    c->m.dl_tensor.ndim = t->ndim;
    c->m.dl_tensor.dtype = type;
    c->m.dl_tensor.shape = c->dims;
    c->m.dl_tensor.strides = c->dims + t->ndim;
    c->m.dl_tensor.byte_offset = 0;
    return &c->m;
}

static void
import_deleter(void *ctx)
{
    DLManagedTensor *m = ctx;
    if (m->deleter != NULL) {
        m->deleter(m);
    }
}

ct_tensor *
ct_tensor_from_dlpack(DLManagedTensor *m)
{
    const DLTensor *dl = &m->dl_tensor;
    ct_dtype dtype = CT_DTYPE_COUNT;
    int64_t strides[CT_MAX_DIMS];

    if (dl->device.device_type != kDLCPU) {
        ct_error(CT_ERR_RUNTIME, "Unsupported device_type: %d",
                 (int)dl->device.device_type);
        return NULL;
    }
    if (dl->dtype.lanes != 1) {
        ct_error(CT_ERR_RUNTIME, "ATen does not support lanes != 1");
        return NULL;
    }
    switch (dl->dtype.code) {
    case kDLUInt:
        dtype = dl->dtype.bits == 8 ? CT_DTYPE_UINT8 : CT_DTYPE_COUNT;
        break;
    case kDLInt:
        dtype = dl->dtype.bits == 8    ? CT_DTYPE_INT8
                : dl->dtype.bits == 16 ? CT_DTYPE_INT16
                : dl->dtype.bits == 32 ? CT_DTYPE_INT32
                : dl->dtype.bits == 64 ? CT_DTYPE_INT64 : CT_DTYPE_COUNT;
        break;
    case kDLFloat:
        dtype = dl->dtype.bits == 16   ? CT_DTYPE_FLOAT16
                : dl->dtype.bits == 32 ? CT_DTYPE_FLOAT32
                : dl->dtype.bits == 64 ? CT_DTYPE_FLOAT64 : CT_DTYPE_COUNT;
        break;
    case kDLBfloat:
        dtype = dl->dtype.bits == 16 ? CT_DTYPE_BFLOAT16 : CT_DTYPE_COUNT;
        break;
    case kDLBool:
        dtype = dl->dtype.bits == 8 ? CT_DTYPE_BOOL : CT_DTYPE_COUNT;
        break;
    default:
        break;
    }
    if (dtype == CT_DTYPE_COUNT) {
        ct_error(CT_ERR_RUNTIME, "Unsupported kUInt bits %d", (int)dl->dtype.bits);
        return NULL;
    }
    if (dl->ndim < 0 || dl->ndim > CT_MAX_DIMS) {
        ct_error(CT_ERR_RUNTIME, "DLPack tensor has %d dimensions", (int)dl->ndim);
        return NULL;
    }
    if (dl->strides != NULL) {
        memcpy(strides, dl->strides, (size_t)dl->ndim * sizeof(int64_t));
    }
    else {
        ct_contiguous_strides(dl->ndim, dl->shape, strides);
    }
    /* span of the elements, in bytes, for the storage's size */
    int64_t n = ct_check_sizes(dl->ndim, dl->shape);
    if (n < 0) {
        return NULL;
    }
    int64_t hi = 1;
    for (int i = 0; i < dl->ndim && n > 0; i++) {
        if (strides[i] < 0) {
            ct_error(CT_ERR_RUNTIME, "DLPack tensors with negative strides are "
                     "not supported");
            return NULL;
        }
        hi += (dl->shape[i] - 1) * strides[i];
    }
    size_t nbytes = n > 0 ? (size_t)hi * ct_dtype_itemsize(dtype) : 0;
    ct_storage *s = ct_storage_new_external((char *)dl->data + dl->byte_offset,
                                            nbytes, ct_device_cpu(),
                                            import_deleter, m);
    if (s == NULL) {
        return NULL;
    }
    ct_tensor *t = ct_tensor_new(s, 0, dl->ndim, dl->shape, strides, dtype);
    if (t == NULL) {
        s->deleter = NULL;          /* failure: m stays with the caller */
    }
    ct_storage_decref(s);
    return t;
}
