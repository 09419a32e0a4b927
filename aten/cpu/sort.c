/* aten/cpu/sort.c -- sort, argsort, topk and kthvalue along one dim.
 *
 * All four run one slice engine: the tensor is viewed with the op's dim
 * last, each slice (one line along dim) becomes (key, index) pairs (Note
 * [Sort keys] in sort_impl.h), and either
 *   - a stable LSD radix sort orders all of them (sort, and topk with a
 *     large k; only the bytes in which keys differ get a pass), or
 *   - quickselect finds the k-th pair (kthvalue with a large k), or
 *   - a bounded max-heap keeps the k best of a streaming scan (topk and
 *     kthvalue with k small beside the slice: one read of the input and no
 *     n-sized scratch), then heapsort orders them by (key, index).
 * The result writes values by copying the source element (any dtype, by
 * item size) and indices as int64.  Slices are split across the thread
 * pool when there are several and the input is large.  Device tensors
 * branch to aten/device_sort.c after the entry points' checks.
 */
#include "aten/device.h"
#include <stdatomic.h>

#include "aten/cpu/sort_impl.h"
#include "aten/iter.h"
#include "aten/parallel.h"

/* --- keys, per dtype (Note [Sort keys]) ---------------------------------- */
#define X(E, T, S, A)                                                         \
    static uint64_t key_##S(const char *p)                                    \
    {                                                                         \
        T v;                                                                  \
        memcpy(&v, p, sizeof v);                                              \
        if (!CT__IS_FLOAT_##S) {                                              \
            return ct__sort_key_i64(ct__as_i64_##S(v));                       \
        }                                                                     \
        return sizeof(T) == 8 ? ct__sort_key_f64(ct__as_f64_##S(v))           \
                              : ct__sort_key_f32((float)ct__as_f64_##S(v));   \
    }                                                                         \
    static int64_t fill_##S(const char *src, int64_t stride, int64_t n,       \
                            int64_t idx0, uint64_t flip, uint64_t limit,      \
                            ct__kv *out)                                      \
    {                                                                         \
        int64_t m = 0;                                                        \
        if (stride == (int64_t)sizeof(T)) {                                   \
            const T *p = (const T *)src;                                      \
            for (int64_t i = 0; i < n; i++) {                                 \
                uint64_t k = key_##S((const char *)(p + i)) ^ flip;           \
                if (k <= limit) {                                             \
                    out[m].key = k;                                           \
                    out[m++].idx = idx0 + i;                                  \
                }                                                             \
            }                                                                 \
            return m;                                                         \
        }                                                                     \
        for (int64_t i = 0; i < n; i++) {                                     \
            uint64_t k = key_##S(src + i * stride) ^ flip;                    \
            if (k <= limit) {                                                 \
                out[m].key = k;                                               \
                out[m++].idx = idx0 + i;                                      \
            }                                                                 \
        }                                                                     \
        return m;                                                             \
    }
CT_FORALL_DTYPES(X)
#undef X

/* Quantized dtypes order by their stored integers (the scale is positive),
 * which only sort, argsort and topk use, as in torch. */
const ct__sort_key_fn ct__sort_key_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = key_##S,
    CT_FORALL_DTYPES(X)
#undef X
};

const ct__sort_fill_fn ct__sort_fill_fns[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = fill_##S,
    CT_FORALL_DTYPES(X)
#undef X
};

/* ct__sort_check_dtype less its device check: sort, argsort, topk and
 * kthvalue have device paths (aten/device_sort.c). */
static int
check_dtype(const char *name, const ct_tensor *t, bool allow_bool)
{
    /* topk and kthvalue (the ops without bool) have no float16 kernel on
     * torch 1.13's CPU either; its CUDA has (and names the op "..._cuda") */
    bool device = ct__is_device(t);
    if (ct_dtype_table[t->dtype].is_quantized ||
        (!allow_bool && (t->dtype == CT_DTYPE_BOOL ||
                         (t->dtype == CT_DTYPE_FLOAT16 && !device)))) {
        size_t n = strlen(name);
        bool cpu_named = n > 4 && strcmp(name + n - 4, "_cpu") == 0;
        return ct_error(CT_ERR_RUNTIME, "\"%.*s%s\" not implemented for '%s'",
                        (int)(cpu_named && device ? n - 4 : n), name,
                        cpu_named && device ? "_cuda" : "", ct_dtype_table[t->dtype].legacy);
    }
    return 0;
}

int
ct__sort_check_dtype(const char *name, const ct_tensor *t, bool allow_bool)
{
    if (ct__host_only((const ct_tensor *const[]){t}, 1) < 0) {
        return -1;
    }
    return check_dtype(name, t, allow_bool);
}

/* --- radix sort ------------------------------------------------------------ */
ct__kv *
ct__sort_radix(ct__kv *a, ct__kv *tmp, int64_t n)
{
    if (n <= 48) {
        /* insertion sort: stable, and cheaper than 8 histograms */
        for (int64_t i = 1; i < n; i++) {
            ct__kv e = a[i];
            int64_t j = i;
            while (j > 0 && a[j - 1].key > e.key) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = e;
        }
        return a;
    }
    /* one pass counts every byte; a byte with one value needs no pass */
    int64_t cnt[8][256];        /* 16 KiB of stack */
    memset(cnt, 0, sizeof cnt);
    for (int64_t i = 0; i < n; i++) {
        uint64_t k = a[i].key;
        for (int b = 0; b < 8; b++) {
            cnt[b][(k >> (8 * b)) & 0xff]++;
        }
    }
    for (int b = 0; b < 8; b++) {
        int sh = 8 * b;
        int64_t *c = cnt[b];
        if (c[(a[0].key >> sh) & 0xff] == n) {
            continue;
        }
        int64_t sum = 0;
        for (int d = 0; d < 256; d++) {
            int64_t x = c[d];
            c[d] = sum;
            sum += x;
        }
        for (int64_t i = 0; i < n; i++) {
            tmp[c[(a[i].key >> sh) & 0xff]++] = a[i];
        }
        ct__kv *s = a;
        a = tmp;
        tmp = s;
    }
    return a;
}

/* --- heap of the k smallest (key, idx) ------------------------------------- */
static inline bool
kv_less(ct__kv x, ct__kv y)
{
    return x.key < y.key || (x.key == y.key && x.idx < y.idx);
}

/* Restore the max-heap property below position i of h[0..n). */
static void
sift_down(ct__kv *h, int64_t n, int64_t i)
{
    ct__kv e = h[i];
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= n) {
            break;
        }
        if (c + 1 < n && kv_less(h[c], h[c + 1])) {
            c++;
        }
        if (!kv_less(e, h[c])) {
            break;
        }
        h[i] = h[c];
        i = c;
    }
    h[i] = e;
}

/* Put the pair of rank r (by (key, idx), all distinct) at a[r], smaller
 * ones before it and larger ones after: Hoare's quickselect. */
static void
quickselect(ct__kv *a, int64_t n, int64_t r)
{
    int64_t lo = 0, hi = n - 1;
    while (hi - lo >= 16) {
        int64_t mid = lo + (hi - lo) / 2;
        ct__kv t;
        /* median of three: a[lo] <= a[mid] <= a[hi] */
        if (kv_less(a[mid], a[lo])) {
            t = a[mid], a[mid] = a[lo], a[lo] = t;
        }
        if (kv_less(a[hi], a[mid])) {
            t = a[hi], a[hi] = a[mid], a[mid] = t;
            if (kv_less(a[mid], a[lo])) {
                t = a[mid], a[mid] = a[lo], a[lo] = t;
            }
        }
        ct__kv p = a[mid];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (kv_less(a[i], p)) {
                i++;
            }
            while (kv_less(p, a[j])) {
                j--;
            }
            if (i <= j) {
                t = a[i], a[i] = a[j], a[j] = t;
                i++;
                j--;
            }
        }
        if (r <= j) {
            hi = j;
        }
        else if (r >= i) {
            lo = i;
        }
        else {
            return;
        }
    }
    for (int64_t i = lo + 1; i <= hi; i++) {
        ct__kv e = a[i];
        int64_t j = i;
        while (j > lo && kv_less(e, a[j - 1])) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = e;
    }
}

#define CHUNK 1024

/* The k smallest pairs of the slice, ascending by (key, idx), into h
 * (k + CHUNK pairs of scratch). */
static void
heap_select(ct__sort_fill_fn fill, const char *src, int64_t stride, int64_t n,
            int64_t k, uint64_t flip, ct__kv *h)
{
    ct__kv *c = h + k;
    int64_t size = 0;
    for (int64_t pos = 0; pos < n; pos += CHUNK) {
        int64_t m = n - pos < CHUNK ? n - pos : CHUNK;
        /* once the heap is full only keys up to its top can enter it */
        uint64_t limit = size == k ? h[0].key : UINT64_MAX;
        m = fill(src + pos * stride, stride, m, pos, flip, limit, c);
        int64_t i = 0;
        for (; i < m && size < k; i++) {
            h[size++] = c[i];
            if (size == k) {
                for (int64_t j = k / 2 - 1; j >= 0; j--) {
                    sift_down(h, k, j);
                }
            }
        }
        for (; i < m; i++) {
            if (kv_less(c[i], h[0])) {
                h[0] = c[i];
                sift_down(h, k, 0);
            }
        }
    }
    for (int64_t end = k - 1; end > 0; end--) {
        ct__kv e = h[0];
        h[0] = h[end];
        h[end] = e;
        sift_down(h, end, 0);
    }
}

/* --- the slice engine --------------------------------------------------------- */
typedef enum { JOB_SORT, JOB_TOPK, JOB_KTH } job_kind;

typedef struct {
    job_kind kind;
    ct__sort_fill_fn fill;
    size_t isz;
    const ct_tensor *in;        /* views with the op's dim last; vals may */
    const ct_tensor *vals;      /* be NULL (argsort) */
    const ct_tensor *idx;
    int64_t n, nslices, k;
    uint64_t flip;
    atomic_int failed;
} job;

/* Element offset of slice s of v (its last dim being the slice). */
static int64_t
slice_offset(const ct_tensor *v, int64_t s)
{
    int64_t off = v->offset;
    for (int d = v->ndim - 2; d >= 0; d--) {
        off += (s % v->sizes[d]) * v->strides[d];
        s /= v->sizes[d];
    }
    return off;
}

static inline void
copy_elem(char *dst, const char *src, size_t isz)
{
    switch (isz) {
    case 1: memcpy(dst, src, 1); break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    default: memcpy(dst, src, 8); break;
    }
}

/* Heap selection pays off when k is small beside the slice. */
static bool
use_heap(const job *j)
{
    return j->kind != JOB_SORT && j->n > 64 && j->k * 16 <= j->n;
}

static void
job_part(void *ctx, int tid, int nthreads)
{
    job *j = ctx;
    int64_t s0 = j->nslices * tid / nthreads, s1 = j->nslices * (tid + 1) / nthreads;
    bool heap = use_heap(j);
    int64_t need = heap ? j->k + CHUNK : 2 * j->n;
    size_t nbytes = (size_t)(need > 0 ? need : 1) * sizeof(ct__kv);
    ct__kv *buf = ct__sort_scratch(nbytes);
    if (buf == NULL) {
        atomic_store(&j->failed, 1);
        return;
    }
    const ct_tensor *in = j->in;
    int last = in->ndim - 1;
    int64_t sstride = in->strides[last] * (int64_t)j->isz;
    int64_t first = j->kind == JOB_KTH ? j->k - 1 : 0;
    int64_t count = j->kind == JOB_SORT ? j->n : j->kind == JOB_TOPK ? j->k : 1;
    for (int64_t s = s0; s < s1; s++) {
        const char *src = in->storage->data + slice_offset(in, s) * (int64_t)j->isz;
        ct__kv *r;
        if (heap) {
            heap_select(j->fill, src, sstride, j->n, j->k, j->flip, buf);
            r = buf;
        }
        else if (j->kind == JOB_KTH) {
            j->fill(src, sstride, j->n, 0, j->flip, UINT64_MAX, buf);
            quickselect(buf, j->n, j->k - 1);
            r = buf;
        }
        else {
            j->fill(src, sstride, j->n, 0, j->flip, UINT64_MAX, buf);
            r = ct__sort_radix(buf, buf + j->n, j->n);
        }
        r += first;
        if (j->vals != NULL) {
            const ct_tensor *v = j->vals;
            char *dst = v->storage->data + slice_offset(v, s) * (int64_t)j->isz;
            int64_t vs = v->strides[v->ndim - 1] * (int64_t)j->isz;
            for (int64_t i = 0; i < count; i++) {
                copy_elem(dst + i * vs, src + r[i].idx * sstride, j->isz);
            }
        }
        const ct_tensor *x = j->idx;
        int64_t *id = (int64_t *)x->storage->data + slice_offset(x, s);
        int64_t is = x->strides[x->ndim - 1];
        for (int64_t i = 0; i < count; i++) {
            id[i * is] = r[i].idx;
        }
    }
    ct__sort_scratch_free(buf, nbytes);
}

/* A view of t (or of its 1-D form when 0-dim) with dim moved last. */
static ct_tensor *
dim_last(const ct_tensor *t, int dim)
{
    if (t->ndim == 0) {
        return ct_unsqueeze(t, 0);
    }
    return ct_transpose(t, dim, t->ndim - 1);
}

/* Run the engine: in's slices along dim into vals (may be NULL) and idx,
 * both shaped like in with size `count` at dim (kthvalue: 1). */
static int
run_job(job_kind kind, const ct_tensor *t, int dim, int64_t k, uint64_t flip,
        ct_tensor *vals, ct_tensor *idx)
{
    ct_tensor *vin = NULL, *vv = NULL, *vi = NULL;
    int rc = -1;
    if (t->numel == 0 || idx->numel == 0) {
        return 0;
    }
    if ((vin = dim_last(t, dim)) == NULL || (vi = dim_last(idx, dim)) == NULL ||
        (vals != NULL && (vv = dim_last(vals, dim)) == NULL)) {
        goto done;
    }
    job j = {
        .kind = kind,
        .fill = ct__sort_fill_fns[t->dtype],
        .isz = ct_dtype_itemsize(t->dtype),
        .in = vin,
        .vals = vv,
        .idx = vi,
        .n = vin->sizes[vin->ndim - 1],
        .k = k,
        .flip = flip,
    };
    j.nslices = t->numel / j.n;
    atomic_init(&j.failed, 0);
    int nthreads = 1;
    if (t->numel >= CT_GRAIN_SIZE && j.nslices > 1) {
        nthreads = ct__parallel_threads();
        if (nthreads > j.nslices) {
            nthreads = (int)j.nslices;
        }
    }
    if (nthreads > 1) {
        ct__parallel_run(nthreads, job_part, &j);
    }
    else {
        job_part(&j, 0, 1);
    }
    if (atomic_load(&j.failed)) {
        ct_error(CT_ERR_NOMEM, "sort: out of memory");
        goto done;
    }
    rc = 0;
done:
    ct_tensor_decref(vin);
    ct_tensor_decref(vv);
    ct_tensor_decref(vi);
    return rc;
}

/* --- the ops ---------------------------------------------------------------- */
/* The dtype check of sort, argsort and topk, which also take quantized
 * tensors. */
static int
check_sortable(const char *name, const ct_tensor *t, bool allow_bool)
{
    if (ct_dtype_table[t->dtype].is_quantized) {
        return 0;
    }
    return check_dtype(name, t, allow_bool);
}

/* A values result keeps a quantized input's parameters. */
static void
copy_qparams(ct_tensor *v, const ct_tensor *t)
{
    v->q_scale = t->q_scale;
    v->q_zero_point = t->q_zero_point;
}
int
ct_sort(const ct_tensor *t, int64_t dim, bool descending, bool stable,
        ct_tensor **values, ct_tensor **indices)
{
    ct_tensor *v = NULL, *x = NULL;
    (void)stable;               /* always stable */
    *values = *indices = NULL;
    if (check_sortable("sort", t, true) < 0) {
        return -1;
    }
    int d = ct_wrap_dim(dim, t->ndim > 0 ? t->ndim : 1);
    if (d < 0) {
        return -1;
    }
    if (ct__is_device(t)) {
        return ct__device_sort(t, d, descending, values, indices);
    }
    if ((v = ct_iter_new_output(1, &t, t->ndim, t->sizes, t->dtype)) == NULL ||
        (x = ct_iter_new_output(1, &t, t->ndim, t->sizes, CT_DTYPE_INT64)) == NULL ||
        run_job(JOB_SORT, t, d, 0, descending ? UINT64_MAX : 0, v, x) < 0) {
        ct_tensor_decref(v);
        ct_tensor_decref(x);
        return -1;
    }
    copy_qparams(v, t);
    *values = v;
    *indices = x;
    return 0;
}

ct_tensor *
ct_argsort(const ct_tensor *t, int64_t dim, bool descending, bool stable)
{
    ct_tensor *x = NULL;
    (void)stable;
    if (check_sortable("sort", t, true) < 0) {
        return NULL;
    }
    int d = ct_wrap_dim(dim, t->ndim > 0 ? t->ndim : 1);
    if (d < 0) {
        return NULL;
    }
    if (ct__is_device(t)) {
        return ct__device_sort(t, d, descending, NULL, &x) == 0 ? x : NULL;
    }
    if ((x = ct_iter_new_output(1, &t, t->ndim, t->sizes, CT_DTYPE_INT64)) == NULL ||
        run_job(JOB_SORT, t, d, 0, descending ? UINT64_MAX : 0, NULL, x) < 0) {
        ct_tensor_decref(x);
        return NULL;
    }
    return x;
}

int
ct_topk(const ct_tensor *t, int64_t k, int64_t dim, bool largest, bool sorted,
        ct_tensor **values, ct_tensor **indices)
{
    ct_tensor *v = NULL, *x = NULL;
    int64_t sizes[CT_MAX_DIMS];
    (void)sorted;               /* always sorted */
    *values = *indices = NULL;
    if (check_sortable("topk_cpu", t, false) < 0) {
        return -1;
    }
    int d = ct_wrap_dim(dim, t->ndim > 0 ? t->ndim : 1);
    if (d < 0) {
        return -1;
    }
    int64_t n = t->ndim > 0 ? t->sizes[d] : 1;
    if (k < 0 || k > n) {
        return ct_error(CT_ERR_RUNTIME, "selected index k out of range");
    }
    if (ct__is_device(t)) {
        return ct__device_topk(t, k, d, largest, values, indices);
    }
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    if (t->ndim > 0) {
        sizes[d] = k;
    }
    if ((v = ct_empty(t->ndim, sizes, t->dtype, ct_tensor_device(t))) == NULL ||
        (x = ct_empty(t->ndim, sizes, CT_DTYPE_INT64, ct_tensor_device(t))) == NULL ||
        /* a 0-dim result holds its one element whatever k (0 or 1) */
        run_job(JOB_TOPK, t, d, t->ndim == 0 ? 1 : k, largest ? UINT64_MAX : 0, v,
                x) < 0) {
        ct_tensor_decref(v);
        ct_tensor_decref(x);
        return -1;
    }
    copy_qparams(v, t);
    *values = v;
    *indices = x;
    return 0;
}

int
ct_kthvalue(const ct_tensor *t, int64_t k, int64_t dim, bool keepdim,
            ct_tensor **values, ct_tensor **indices)
{
    ct_tensor *v = NULL, *x = NULL, *vk = NULL, *xk = NULL;
    int64_t sizes[CT_MAX_DIMS];
    int nd = 0, rc = -1;
    *values = *indices = NULL;
    if (check_dtype("kthvalue_cpu", t, false) < 0) {
        return -1;
    }
    int d = ct_wrap_dim(dim, t->ndim > 0 ? t->ndim : 1);
    if (d < 0) {
        return -1;
    }
    int64_t n = t->ndim > 0 ? t->sizes[d] : 1;
    if (n == 0) {
        return ct_error(CT_ERR_INDEX, "kthvalue(): Expected reduction dim %d to have "
                        "non-zero size.", d);
    }
    if (k < 1 || k > n) {
        return ct_error(CT_ERR_RUNTIME, "kthvalue(): selected number k out of range "
                        "for dimension %d", d);
    }
    if (ct__is_device(t)) {
        return ct__device_kthvalue(t, k, d, keepdim, values, indices);
    }
    for (int i = 0; i < t->ndim; i++) {
        if (i != d || keepdim) {
            sizes[nd++] = i == d ? 1 : t->sizes[i];
        }
    }
    if ((v = ct_empty(nd, sizes, t->dtype, ct_tensor_device(t))) == NULL ||
        (x = ct_empty(nd, sizes, CT_DTYPE_INT64, ct_tensor_device(t))) == NULL) {
        goto done;
    }
    /* views with the reduced dim present (size 1) for the engine */
    if (t->ndim > 0 && !keepdim) {
        if ((vk = ct_unsqueeze(v, d)) == NULL || (xk = ct_unsqueeze(x, d)) == NULL) {
            goto done;
        }
    }
    else {
        ct_tensor_incref(v);
        ct_tensor_incref(x);
        vk = v;
        xk = x;
    }
    if (run_job(JOB_KTH, t, d, k, 0, vk, xk) < 0) {
        goto done;
    }
    *values = v;
    *indices = x;
    v = x = NULL;
    rc = 0;
done:
    ct_tensor_decref(v);
    ct_tensor_decref(x);
    ct_tensor_decref(vk);
    ct_tensor_decref(xk);
    return rc;
}
