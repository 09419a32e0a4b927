/* aten/cpu/random_walk.c -- visiting a tensor's elements in memory order,
 * the order in which PyTorch's serial random kernels draw; and the checks
 * every in-place sampling op makes. */
#include "aten/device.h"
#include "aten/iter.h"
#include "aten/random_impl.h"

/* Order dims as PyTorch's TensorIterator does for these kernels: by the
 * written tensor's strides, ties broken by the read one's, then by size
 * (a broadcast stride of 0 never decides). */
static bool
inner_first(const ct__walk *w, int a, int b, int nops)
{
    for (int k = 0; k < nops; k++) {
        int64_t sa = w->stride[k][a], sb = w->stride[k][b];
        if (sa == 0 || sb == 0) {
            continue;
        }
        if (sa != sb) {
            return sa < sb;
        }
        return w->size[a] < w->size[b];
    }
    return false;
}

int
ct__walk_init(ct__walk *w, const ct_tensor *t, const ct_tensor *in)
{
    if (ct__host_only((const ct_tensor *const[]){t, in}, 2) < 0) {
        return -1;
    }
    int nops = in != NULL ? 2 : 1;
    int64_t item[2] = {(int64_t)ct_dtype_itemsize(t->dtype),
                       in ? (int64_t)ct_dtype_itemsize(in->dtype) : 0};

    CT_ASSERT(in == NULL || in->ndim == t->ndim);
    w->ptr[0] = ct_tensor_data(t);
    w->ptr[1] = in != NULL ? ct_tensor_data(in) : w->ptr[0];   /* never read */
    w->ndim = 0;
    /* innermost first: the logical order reversed, size-1 dims dropped */
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 1) {
            continue;
        }
        CT_ASSERT(in == NULL || in->sizes[d] == t->sizes[d]);
        w->size[w->ndim] = t->sizes[d];
        w->stride[0][w->ndim] = t->strides[d] * item[0];
        w->stride[1][w->ndim] = in != NULL ? in->strides[d] * item[1] : 0;
        w->ndim++;
    }
    /* insertion sort, stable */
    for (int i = 1; i < w->ndim; i++) {
        for (int j = i; j > 0 && inner_first(w, j, j - 1, nops); j--) {
            for (int k = 0; k < 2; k++) {
                int64_t s = w->stride[k][j];
                w->stride[k][j] = w->stride[k][j - 1];
                w->stride[k][j - 1] = s;
            }
            int64_t s = w->size[j];
            w->size[j] = w->size[j - 1];
            w->size[j - 1] = s;
        }
    }
    /* coalesce dims that are laid out back to back in both tensors */
    int nd = 0;
    for (int d = 0; d < w->ndim; d++) {
        if (nd > 0 && w->stride[0][d] == w->stride[0][nd - 1] * w->size[nd - 1] &&
            w->stride[1][d] == w->stride[1][nd - 1] * w->size[nd - 1]) {
            w->size[nd - 1] *= w->size[d];
            continue;
        }
        w->size[nd] = w->size[d];
        w->stride[0][nd] = w->stride[0][d];
        w->stride[1][nd] = w->stride[1][d];
        nd++;
    }
    w->ndim = nd;
    if (w->ndim == 0) {             /* one element */
        w->size[0] = 1;
        w->stride[0][0] = item[0];
        w->stride[1][0] = item[1];
        w->ndim = 1;
    }
    w->runs = t->numel == 0 ? 0 : t->numel / w->size[0];
    for (int d = 0; d < w->ndim; d++) {
        w->idx[d] = 0;
    }
    return 0;
}

bool
ct__walk_next(ct__walk *w, char **p, int64_t *n)
{
    if (w->runs == 0) {
        return false;
    }
    p[0] = w->ptr[0];
    p[1] = w->ptr[1];
    *n = w->size[0];
    if (--w->runs > 0) {
        /* advance the odometer over dims 1.. */
        for (int d = 1; d < w->ndim; d++) {
            if (++w->idx[d] < w->size[d]) {
                w->ptr[0] += w->stride[0][d];
                w->ptr[1] += w->stride[1][d];
                break;
            }
            w->ptr[0] -= w->stride[0][d] * (w->size[d] - 1);
            w->ptr[1] -= w->stride[1][d] * (w->size[d] - 1);
            w->idx[d] = 0;
        }
    }
    return true;
}

int
ct__draw_into(ct_tensor *t, ct_generator *gen, const ct__draw_fn *loops,
              const char *name, const void *cx)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0 || ct__gen_check_cpu(gen) < 0) {
        return -1;
    }
    ct__draw_fn fn = loops[t->dtype];
    if (fn == NULL) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    if (ct__check_writable(t) < 0) {
        return -1;
    }
    if (t->numel == 0) {
        return 0;
    }
    ct__walk w;
    char *p[2];
    int64_t n;
    int rc = 0;
    ct__walk_init(&w, t, NULL);
    ct_generator *g = ct__gen_acquire(gen);
    while (rc == 0 && ct__walk_next(&w, p, &n)) {
        rc = fn(g, p[0], w.stride[0][0], n, cx);
    }
    ct__gen_release(g);
    return rc;
}

const char *
ct__cpp_type_name(ct_dtype d)
{
    static const char *const names[CT_DTYPE_COUNT] = {
        [CT_DTYPE_UINT8] = "unsigned char", [CT_DTYPE_INT8] = "signed char",
        [CT_DTYPE_INT16] = "short int",     [CT_DTYPE_INT32] = "int",
        [CT_DTYPE_INT64] = "long int",      [CT_DTYPE_FLOAT16] = "c10::Half",
        [CT_DTYPE_FLOAT32] = "float",       [CT_DTYPE_FLOAT64] = "double",
        [CT_DTYPE_BFLOAT16] = "c10::BFloat16", [CT_DTYPE_BOOL] = "bool",
        [CT_DTYPE_QINT8] = "c10::qint8",    [CT_DTYPE_QUINT8] = "c10::quint8",
        [CT_DTYPE_QINT32] = "c10::qint32",
    };
    return names[d];
}

double
ct__floating_max(ct_dtype d)
{
    switch (d) {
    case CT_DTYPE_FLOAT16:
        return 65504.0;
    case CT_DTYPE_BFLOAT16:
        return 0x1.FEp127;
    case CT_DTYPE_FLOAT32:
        return 0x1.FFFFFEp127;
    default:
        return 0x1.FFFFFFFFFFFFFp1023;
    }
}

int
ct__check_floating(const ct_tensor *t, const char *name)
{
    if (!ct_dtype_is_floating(t->dtype)) {
        return ct_error(CT_ERR_RUNTIME, "\"%s\" not implemented for '%s'", name,
                        ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

int
ct__check_writable(const ct_tensor *t)
{
    return ct_iter_check_overlap(t, NULL);
}
