/* aten/device.c -- ops on tensors that live on a CUDA device.
 *
 * The CPU kernels never see device memory: the pointwise engine refuses a
 * device operand (ct_iter_run), the other CPU families check at entry
 * (ct__host_only), and the op drivers that have device kernels (copy_,
 * fill_, ct_unary, ct_binary, ct_reduce, the matmul family) do their usual
 * checks, promotion and output allocation -- on the operands' device --
 * and call here only for the kernel itself.  This file hands it, as
 * strided views in the pointwise engine's coalesced geometry, to the CUDA
 * part's table (c10/cuda/backend.h), queued on the device's current
 * stream, after asking the part whether the kernel exists.
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
#include "aten/random_impl.h"
#include "c10/cuda/backend.h"

#include <stdio.h>

static bool
on_cuda(const ct_tensor *t)
{
    return t != NULL && ct_tensor_device(t).type == CT_DEVICE_CUDA;
}

const char *
ct__device_text(ct_device d, char *buf, size_t n)
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
                    "'%s' yet", ct__device_text(ct_tensor_device(t), b, sizeof b));
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
                    "found at least two devices, %s and %s!", ct__device_text(a, b1, sizeof b1),
                    ct__device_text(b, b2, sizeof b2));
}

int
ct__check_device(ct_device dev, const ct_tensor *t)
{
    return ct_device_eq(dev, ct_tensor_device(t)) ? 0 : two_devices(dev, ct_tensor_device(t));
}

int
ct__same_device(const ct_tensor *const *ts, int n)
{
    const ct_tensor *first = NULL;
    for (int i = 0; i < n; i++) {
        if (ts[i] == NULL) {
            continue;
        }
        if (first == NULL) {
            first = ts[i];
        }
        else if (ct__check_device(ct_tensor_device(first), ts[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

int
ct__op_device(int n, int nout, const ct_tensor *const *ts, ct_device *dev)
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
        return two_devices(d, ct_tensor_device(ts[i]));
    }
    *dev = d;
    return 0;
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

int
ct__device_supports(ct_cuda_family family, int op, ct_dtype dtype, const ct_tensor *t)
{
    const ct_cuda_backend *be = ct__cuda_backend();
    if (be == NULL) {
        return -1;
    }
    return be->supports(family, op, dtype) ? 0 : ct__no_device_kernel(t);
}

int
ct__device_binary(ct_binary_op op, ct_tensor *out, const ct_tensor *a, const ct_tensor *b,
                  ct_scalar alpha)
{
    void *stream;
    ct_cuda_view v[3];
    ct_tensor *ops[3] = {out, (ct_tensor *)a, (ct_tensor *)b};
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL || views_of(3, ops, v) < 0) {
        return -1;
    }
    return be->binary(ct_tensor_device(out).index, stream, op, &v[0], &v[1], &v[2],
                      ct_scalar_to_double(alpha), ct_scalar_to_int(alpha));
}

int
ct__device_unary(ct_unary_op op, ct_tensor *out, const ct_tensor *in)
{
    void *stream;
    ct_cuda_view v[2];
    ct_tensor *ops[2] = {out, (ct_tensor *)in};
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL || views_of(2, ops, v) < 0) {
        return -1;
    }
    return be->unary(ct_tensor_device(out).index, stream, op, &v[0], &v[1]);
}

int
ct__device_activation_kernel(ct_act_op op, int order, ct_tensor *out, const ct_tensor *grad,
                             const ct_tensor *x, const double *p)
{
    void *stream;
    ct_cuda_view v[3];
    ct_tensor *ops[3] = {out, (ct_tensor *)x, (ct_tensor *)grad};
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL || views_of(order == 0 ? 2 : 3, ops, v) < 0) {
        return -1;
    }
    return be->activation(ct_tensor_device(out).index, stream, (int)op, order, &v[0],
                          order == 0 ? NULL : &v[2], &v[1], p);
}

ct_tensor *
ct_pin_memory(const ct_tensor *t)
{
    if (on_cuda(t)) {
        return ct_error(CT_ERR_RUNTIME, "cannot pin 'torch.cuda.%sTensor' only dense CPU "
                        "tensors can be pinned", ct_dtype_table[t->dtype].legacy),
               NULL;
    }
    if (ct_is_pinned(t)) {
        ct_tensor_incref((ct_tensor *)t);
        return (ct_tensor *)t;
    }
    ct_storage *s = ct_storage_new_pinned((size_t)t->numel * ct_dtype_itemsize(t->dtype));
    ct_tensor *p = s != NULL ? ct_tensor_new(s, 0, t->ndim, t->sizes, NULL, t->dtype) : NULL;
    ct_storage_decref(s);
    if (p != NULL && t->numel > 0 && ct_copy_(p, t) < 0) {
        ct_tensor_decref(p);
        p = NULL;
    }
    return p;
}

bool
ct_is_pinned(const ct_tensor *t)
{
    return (t->storage->flags & CT_STORAGE_PINNED) != 0;
}

int
ct__device_where(ct_tensor *out, const ct_tensor *cond, const ct_tensor *a, const ct_tensor *b)
{
    void *stream;
    ct_cuda_view v[4];
    ct_tensor *ops[4] = {out, (ct_tensor *)cond, (ct_tensor *)a, (ct_tensor *)b};
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL || views_of(4, ops, v) < 0) {
        return -1;
    }
    return be->where(ct_tensor_device(out).index, stream, &v[0], &v[1], &v[2], &v[3]);
}

int
ct__device_gemm(const ct_tensor *c, ct_dtype dtype, bool trans_a, bool trans_b, int64_t m,
                int64_t n, int64_t k, double alpha, const void *a, int64_t lda,
                int64_t stride_a, const void *b, int64_t ldb, int64_t stride_b, double beta,
                void *cdata, int64_t ldc, int64_t stride_c, int64_t batch)
{
    void *stream;
    const ct_cuda_backend *be = kernels_for(c, &stream);
    if (be == NULL) {
        return -1;
    }
    return be->gemm(ct_tensor_device(c).index, stream, dtype, trans_a, trans_b, m, n, k, alpha,
                    a, lda, stride_a, b, ldb, stride_b, beta, cdata, ldc, stride_c, batch);
}

int
ct__device_reduce(ct_cuda_reduce_op op, ct_tensor *out, int nkept, const ct_tensor *in)
{
    void *stream;
    ct_cuda_view v[2];
    int64_t osizes[CT_MAX_DIMS], ostrides[CT_MAX_DIMS];
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL) {
        return -1;
    }
    /* out as a view of the kept dims (keepdim's 1s dropped); size-1 dims of
     * in dropped from both */
    int on = 0, in_n = 0;
    for (int d = 0; d < nkept; d++) {
        osizes[d] = in->sizes[d];
    }
    ct_contiguous_strides(nkept, osizes, ostrides);
    for (int d = 0; d < in->ndim; d++) {
        if (in->sizes[d] == 1) {
            continue;
        }
        if (in_n == CT_CUDA_MAX_DIMS) {
            return ct_error(CT_ERR_RUNTIME, "ctorch: a CUDA reduction takes at most %d "
                            "dimensions of size > 1", CT_CUDA_MAX_DIMS);
        }
        v[1].sizes[in_n] = in->sizes[d];
        v[1].strides[in_n++] = in->strides[d];
        if (d < nkept) {
            v[0].sizes[on] = in->sizes[d];
            v[0].strides[on++] = ostrides[d];
        }
    }
    v[0].data = ct_tensor_data(out);
    v[0].dtype = out->dtype;
    v[0].ndim = on;
    v[1].data = ct_tensor_data(in);
    v[1].dtype = in->dtype;
    v[1].ndim = in_n;
    return be->reduce(ct_tensor_device(out).index, stream, op, &v[0], &v[1]);
}

/* --- indexing along a dim ----------------------------------------------------- */

/* t whole as an indexing kernel's operand (dims as they are, a 0-dim
 * tensor as one of size 1), with `sizes` in place of t's when given. */
static int
along_view(const ct_tensor *t, const int64_t *sizes, ct_cuda_view *v)
{
    if (t->ndim > CT_CUDA_MAX_DIMS) {
        return ct_error(CT_ERR_RUNTIME, "ctorch: a CUDA indexing kernel takes at most %d "
                        "dimensions, got %d", CT_CUDA_MAX_DIMS, t->ndim);
    }
    if (ct_dtype_table[t->dtype].is_quantized) {
        return ct__no_device_kernel(t);
    }
    v->data = ct_tensor_data(t);
    v->dtype = t->dtype;
    v->ndim = t->ndim > 0 ? t->ndim : 1;
    v->sizes[0] = 1;
    v->strides[0] = 1;
    for (int d = 0; d < t->ndim; d++) {
        v->sizes[d] = sizes != NULL ? sizes[d] : t->sizes[d];
        v->strides[d] = t->strides[d];
    }
    return 0;
}

int
ct__device_gather(ct_tensor *out, const ct_tensor *in, const ct_tensor *index, int dim)
{
    void *stream;
    ct_cuda_view v[3];
    if (out->numel == 0) {
        return 0;
    }
    const ct_cuda_backend *be = kernels_for(out, &stream);
    if (be == NULL || along_view(out, NULL, &v[0]) < 0 || along_view(in, NULL, &v[1]) < 0 ||
        along_view(index, NULL, &v[2]) < 0) {
        return -1;
    }
    return be->gather(ct_tensor_device(out).index, stream, &v[0], &v[1], &v[2], dim);
}

/* scatter_add (add) or scatter (assign) of src's leading part, of the
 * index's sizes, into self along dim */
static int
device_scatter(ct_tensor *self, const ct_tensor *index, const ct_tensor *src, int dim,
               bool add)
{
    void *stream;
    ct_cuda_view v[3];
    if (index->numel == 0) {
        return 0;
    }
    const ct_cuda_backend *be = kernels_for(self, &stream);
    if (be == NULL || along_view(self, NULL, &v[0]) < 0 || along_view(index, NULL, &v[1]) < 0 ||
        along_view(src, index->ndim == src->ndim ? index->sizes : NULL, &v[2]) < 0) {
        return -1;
    }
    return (add ? be->scatter_add : be->scatter)(ct_tensor_device(self).index, stream, &v[0],
                                                 &v[1], &v[2], dim);
}

int
ct__device_scatter_add(ct_tensor *self, const ct_tensor *index, const ct_tensor *src, int dim)
{
    return device_scatter(self, index, src, dim, true);
}

int
ct__device_scatter(ct_tensor *self, const ct_tensor *index, const ct_tensor *src, int dim)
{
    return device_scatter(self, index, src, dim, false);
}

int
ct__device_index_check(const ct_tensor *index, int64_t lo, int64_t hi, bool *bad,
                       int64_t *first)
{
    /* (index < lo) | (index >= hi), any of it, read back as one flag */
    ct_tensor *nlo = ct_scalar_tensor(ct_scalar_int(lo));
    ct_tensor *nhi = ct_scalar_tensor(ct_scalar_int(hi));
    ct_tensor *below = nlo ? ct_binary(CT_BINARY_LT, index, nlo, ct_scalar_int(1), NULL,
                                       CT_OUT_NEW) : NULL;
    ct_tensor *above = nhi ? ct_binary(CT_BINARY_GE, index, nhi, ct_scalar_int(1), NULL,
                                       CT_OUT_NEW) : NULL;
    ct_tensor *out = below && above ? ct_binary(CT_BINARY_LOGICAL_OR, below, above,
                                                ct_scalar_int(1), NULL, CT_OUT_NEW) : NULL;
    ct_tensor *any = out ? ct_any(out, 0, NULL, false) : NULL;
    ct_tensor *flag = any ? ct_to_device(any, ct_device_cpu()) : NULL;
    ct_tensor *host = NULL;
    int rc = -1;
    if (flag == NULL) {
        goto done;
    }
    *bad = ct_scalar_to_int(ct_tensor_item_at(flag, 0)) != 0;
    rc = 0;
    if (*bad) {
        /* an error is coming: find the value it names on the host */
        host = ct_to_device(index, ct_device_cpu());
        rc = host != NULL ? 0 : -1;
        for (int64_t i = 0; host != NULL && i < host->numel; i++) {
            int64_t x = ct_scalar_to_int(ct_tensor_item_at(host, i));
            if (x < lo || x >= hi) {
                *first = x;
                break;
            }
        }
    }
done:
    ct_tensor_decref(host);
    ct_tensor_decref(flag);
    ct_tensor_decref(any);
    ct_tensor_decref(out);
    ct_tensor_decref(above);
    ct_tensor_decref(below);
    ct_tensor_decref(nhi);
    ct_tensor_decref(nlo);
    return rc;
}

/* --- sampling (Note [Device random streams], aten/cuda/random_math.h) ------ */

/* A device's resident threads (multiprocessors x threads each), asked once. */
#define RESIDENT_DEVICES 64
static _Atomic int64_t resident[RESIDENT_DEVICES];

/* The threads of PyTorch's distribution launch for numel elements: 256 per
 * block, blocks = min(ceil(numel / 256), resident threads / 256). */
static int
launch_threads(int device, int64_t numel, int64_t *threads)
{
    int64_t r = device >= 0 && device < RESIDENT_DEVICES ? resident[device] : 0;
    if (r == 0) {
        ct_cuda_properties p;
        if (ct_cuda_get_properties(device, &p) < 0) {
            return -1;
        }
        r = (int64_t)p.multi_processor_count * (p.max_threads_per_multi_processor / 256) * 256;
        if (device >= 0 && device < RESIDENT_DEVICES) {
            resident[device] = r;
        }
    }
    int64_t want = (numel + 255) / 256 * 256;
    *threads = want < r ? want : r;
    return *threads > 0 ? 0
                        : ct_error(CT_ERR_RUNTIME, "ctorch: CUDA device %d reports no "
                                   "resident threads", device);
}

int
ct__device_random(ct_tensor *t, ct_generator *gen, ct_cuda_random_op op, double a, double b,
                  uint64_t range, int64_t base)
{
    ct_device dev = ct_tensor_device(t);
    if (gen != NULL && ct__gen_check_device(gen, dev.type) < 0) {
        return -1;
    }
    ct_generator *g = gen != NULL ? gen : ct_cuda_default_generator(dev.index);
    if (g == NULL || ct__check_writable(t) < 0) {
        return -1;
    }
    if (t->numel == 0) {
        return 0;
    }
    void *stream;
    ct_cuda_view v;
    ct_cuda_random_args args = {0, 0, 0, a, b, range, base};
    const ct_cuda_backend *be = kernels_for(t, &stream);
    if (be == NULL || views_of(1, &t, &v) < 0 ||
        launch_threads(dev.index, t->numel, &args.threads) < 0) {
        return -1;
    }
    int64_t per_block = ct_cuda_random_wide(op, t->dtype, range) ? 2 : 4;
    int64_t blocks = (t->numel - 1) / (args.threads * per_block) + 1;
    if (op == CT_CUDA_RANDOM_POISSON) {
        blocks = (int64_t)range; /* per element (Note [Device Poisson draws]) */
    }
    ct__philox_reserve(g, (uint64_t)blocks * 4, &args.seed, &args.offset);
    return be->random(dev.index, stream, op, &v, &args);
}
