/* aten/device.c -- ops on tensors that live on a CUDA device.
 *
 * The CPU kernels never see device memory: the pointwise engine refuses a
 * device operand (ct_iter_run), and the ops that have device kernels
 * (copy_, fill_, the binary arithmetic) branch here first.  This file does
 * the host's half of a device op -- device and dtype checks, outputs on
 * the device, copies through host memory -- and hands the kernel, as
 * strided views in the engine's coalesced geometry, to the CUDA part's
 * table (c10/cuda/backend.h), queued on the device's current stream.
 *
 * Note [Device copies]
 * A host-to-device copy first makes a contiguous host tensor of the
 * destination's shape and dtype (the CPU engine does broadcasting and
 * conversion), copies its bytes over, and lets the device copy kernel
 * scatter them when the destination is not contiguous.  Device-to-host is
 * the mirror image; between two devices the data goes through the host.
 * Copies that touch host memory wait for the device, so the host buffer
 * may be freed right after (non_blocking is accepted and not used yet).
 */
#include "aten/device.h"
#include "aten/iter.h"
#include "c10/cuda/backend.h"

#include <stdio.h>

static bool
on_cuda(const ct_tensor *t)
{
    return t != NULL && ct_tensor_device(t).type == CT_DEVICE_CUDA;
}

static const char *
device_text(ct_device d, char *buf, size_t n)
{
    if (d.index >= 0 && d.type != CT_DEVICE_CPU) {
        snprintf(buf, n, "%s:%d", ct_device_type_name(d.type), d.index);
    }
    else {
        snprintf(buf, n, "%s", ct_device_type_name(d.type));
    }
    return buf;
}

int
ct__no_device_kernel(const ct_tensor *t)
{
    char b[32];
    return ct_error(CT_ERR_NOTIMPL, "ctorch: this operation has no kernel for device "
                    "'%s' yet (device kernels so far: copy, fill, add, sub, mul, div)",
                    device_text(ct_tensor_device(t), b, sizeof b));
}

int
ct__host_only(const ct_tensor *const *ts, int n)
{
    for (int i = 0; i < n; i++) {
        if (ct__is_device(ts[i])) {
            return ct__no_device_kernel(ts[i]);
        }
    }
    return 0;
}

static int
two_devices(ct_device a, ct_device b)
{
    char b1[32], b2[32];
    return ct_error(CT_ERR_RUNTIME, "Expected all tensors to be on the same device, but "
                    "found at least two devices, %s and %s!", device_text(a, b1, sizeof b1),
                    device_text(b, b2, sizeof b2));
}

int
ct__check_device(ct_device dev, const ct_tensor *t)
{
    return ct_device_eq(dev, ct_tensor_device(t)) ? 0 : two_devices(dev, ct_tensor_device(t));
}

/* PyTorch's check (TensorIterator's): every operand on the first device
 * that is not the CPU, except 0-dim CPU inputs, which stand beside device
 * tensors as numbers.  ts[0..nout-1] are outputs.  The device, or a CPU
 * one with the error set. */
static ct_device
common_device(int n, int nout, const ct_tensor *const *ts)
{
    ct_device d = ct_device_cpu();
    for (int i = 0; i < n && d.type == CT_DEVICE_CPU; i++) {
        if (ts[i] != NULL && on_cuda(ts[i])) {
            d = ct_tensor_device(ts[i]);
        }
    }
    for (int i = 0; i < n; i++) {
        if (ts[i] == NULL || ct_device_eq(ct_tensor_device(ts[i]), d) ||
            (i >= nout && ts[i]->ndim == 0 && !on_cuda(ts[i]))) {
            continue;
        }
        two_devices(d, ct_tensor_device(ts[i]));
        return ct_device_cpu();
    }
    return d;
}

/* The kernel table and t's device's current stream. */
static const ct_cuda_backend *
kernels_for(const ct_tensor *t, void **stream)
{
    const ct_cuda_backend *be = ct__cuda_backend();
    if (be == NULL || ct_cuda_current_stream(ct_tensor_device(t).index, stream) < 0) {
        return NULL;
    }
    return be;
}

/* Views of ops for one kernel call in the engine's geometry (outermost
 * dim first, as ct_cuda_view wants). */
static int
views_of(int nops, ct_tensor *const *ops, ct_cuda_view *v)
{
    int64_t shape[CT_MAX_DIMS];
    int64_t strides[CT_MAX_DIMS][CT_ITER_MAX_OPS];
    int ndim = ct_iter_geometry(nops, ops, shape, strides);
    if (ndim > CT_CUDA_MAX_DIMS) {
        return ct_error(CT_ERR_RUNTIME, "ctorch: a CUDA kernel takes at most %d "
                        "dimensions that cannot be merged, got %d", CT_CUDA_MAX_DIMS, ndim);
    }
    for (int op = 0; op < nops; op++) {
        v[op].data = ct_tensor_data(ops[op]);
        v[op].dtype = ops[op]->dtype;
        v[op].ndim = ndim;
        for (int d = 0; d < ndim; d++) {
            v[op].sizes[ndim - 1 - d] = shape[d];
            v[op].strides[ndim - 1 - d] = strides[d][op];
        }
    }
    return 0;
}

/* dst = src on one device (src broadcast to dst's shape). */
static int
kernel_copy(ct_tensor *dst, const ct_tensor *src)
{
    void *stream;
    ct_cuda_view v[2];
    ct_tensor *ops[2] = {dst, (ct_tensor *)src};
    const ct_cuda_backend *be = kernels_for(dst, &stream);
    if (be == NULL || views_of(2, ops, v) < 0) {
        return -1;
    }
    return be->copy(ct_tensor_device(dst).index, stream, &v[0], &v[1]);
}

/* Bytes between a contiguous host tensor and a contiguous device one of
 * the same shape and dtype, waiting for the copy (Note [Device copies]). */
static int
copy_bytes(ct_tensor *dst, const ct_tensor *src)
{
    void *stream;
    const ct_tensor *dev = on_cuda(dst) ? dst : src;
    if (ct_cuda_current_stream(ct_tensor_device(dev).index, &stream) < 0) {
        return -1;
    }
    size_t n = (size_t)dst->numel * ct_dtype_itemsize(dst->dtype);
    return ct_cuda_memcpy(ct_tensor_data(dst), ct_tensor_data(src), n, stream, true);
}

/* host -> device: src (CPU, broadcastable to dst) into dst. */
static int
copy_to_device(ct_tensor *dst, const ct_tensor *src)
{
    ct_tensor *h = ct_empty(dst->ndim, dst->sizes, dst->dtype, ct_device_cpu());
    if (h == NULL || ct_copy_(h, src) < 0) {
        ct_tensor_decref(h);
        return -1;
    }
    int rc;
    if (ct_tensor_is_contiguous(dst)) {
        rc = copy_bytes(dst, h);
    }
    else {
        ct_tensor *d = ct_empty(dst->ndim, dst->sizes, dst->dtype, ct_tensor_device(dst));
        rc = d != NULL && copy_bytes(d, h) == 0 ? kernel_copy(dst, d) : -1;
        ct_tensor_decref(d);
    }
    ct_tensor_decref(h);
    return rc;
}

/* device -> host: a new contiguous CPU tensor with t's values. */
static ct_tensor *
host_copy(const ct_tensor *t)
{
    ct_tensor *c = ct_contiguous(t);
    ct_tensor *h = c ? ct_empty(t->ndim, t->sizes, t->dtype, ct_device_cpu()) : NULL;
    if (h != NULL && copy_bytes(h, c) < 0) {
        ct_tensor_decref(h);
        h = NULL;
    }
    ct_tensor_decref(c);
    return h;
}

int
ct__device_copy_(ct_tensor *dst, const ct_tensor *src)
{
    if (dst->numel == 0) {
        return 0;
    }
    if (on_cuda(dst) && ct_device_eq(ct_tensor_device(dst), ct_tensor_device(src))) {
        return kernel_copy(dst, src);
    }
    if (on_cuda(dst) && !on_cuda(src)) {
        return copy_to_device(dst, src);
    }
    /* from a device: to the host, then (for another device) on */
    ct_tensor *h = host_copy(src);
    int rc = h != NULL ? ct_copy_(dst, h) : -1;
    ct_tensor_decref(h);
    return rc;
}

int
ct__device_fill_(ct_tensor *t, ct_scalar value)
{
    void *stream;
    ct_cuda_view v;
    const ct_cuda_backend *be = kernels_for(t, &stream);
    if (be == NULL || views_of(1, &t, &v) < 0) {
        return -1;
    }
    /* to bool: nonzero, even for 0.5 (which an int64 conversion loses) */
    int64_t ival = t->dtype == CT_DTYPE_BOOL ? ct_scalar_to_double(value) != 0
                                             : ct_scalar_to_int(value);
    return be->fill(ct_tensor_device(t).index, stream, &v, ct_scalar_to_double(value), ival);
}

/* An operand of a device op: on dev, in dtype (a new reference). */
static ct_tensor *
device_operand(const ct_tensor *t, ct_device dev, ct_dtype dtype)
{
    if (ct_device_eq(ct_tensor_device(t), dev)) {
        return ct_to_dtype(t, dtype, false);
    }
    ct_tensor *d = ct_to_device(t, dev);
    ct_tensor *r = d != NULL ? ct_to_dtype(d, dtype, false) : NULL;
    ct_tensor_decref(d);
    return r;
}

ct_tensor *
ct__device_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b, ct_scalar alpha,
                  ct_tensor *out, ct_out_mode mode, ct_dtype common, int ndim,
                  const int64_t *shape)
{
    static const int kernel_op[CT_BINARY_COUNT] = {
        [CT_BINARY_ADD] = CT_CUDA_ADD + 1, [CT_BINARY_SUB] = CT_CUDA_SUB + 1,
        [CT_BINARY_MUL] = CT_CUDA_MUL + 1, [CT_BINARY_DIV] = CT_CUDA_DIV + 1};
    const ct_tensor *ts[3] = {out, a, b};
    ct_device dev = common_device(3, 1, ts);
    if (dev.type == CT_DEVICE_CPU) {
        return NULL;
    }
    if (kernel_op[op] == 0) {
        ct__no_device_kernel(on_cuda(a) ? a : b);
        return NULL;
    }
    ct_tensor *ac = device_operand(a, dev, common);
    ct_tensor *bc = ac != NULL ? device_operand(b, dev, common) : NULL;
    ct_tensor *res = NULL;
    if (bc == NULL) {
        goto done;
    }
    const ct_tensor *ins[2] = {ac, bc};
    if (out != NULL && ct_iter_check_out(out, mode, ndim, shape, 2, ins) < 0) {
        goto done;
    }
    if (out != NULL && out->dtype == common) {
        ct_tensor_incref(out);
        res = out;
    }
    else if ((res = ct_iter_new_output(2, ins, ndim, shape, common)) == NULL) {
        goto done;
    }
    void *stream;
    ct_cuda_view v[3];
    ct_tensor *ops[3] = {res, ac, bc};
    const ct_cuda_backend *be = res->numel > 0 ? kernels_for(res, &stream) : NULL;
    if (res->numel > 0 &&
        (be == NULL || views_of(3, ops, v) < 0 ||
         be->binary(dev.index, stream, (ct_cuda_binary_op)(kernel_op[op] - 1), &v[0], &v[1],
                    &v[2], ct_scalar_to_double(alpha), ct_scalar_to_int(alpha)) < 0)) {
        ct_tensor_decref(res);
        res = NULL;
        goto done;
    }
    if (out != NULL && res != out) {
        /* computed in common, written in out's dtype */
        int rc = ct_copy_(out, res);
        ct_tensor_decref(res);
        res = NULL;
        if (rc == 0) {
            ct_tensor_incref(out);
            res = out;
        }
    }
done:
    ct_tensor_decref(ac);
    ct_tensor_decref(bc);
    return res;
}
