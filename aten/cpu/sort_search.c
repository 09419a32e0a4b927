/* aten/cpu/sort_search.c -- searchsorted and bucketize: binary search of
 * each value in a sorted row, comparing keys (Note [Sort keys]) of the
 * promoted dtype, so one loop serves every dtype.  Device tensors branch
 * to aten/device_count.c after the checks.
 */
#include "aten/device.h"
#include <stdio.h>

#include "aten/cpu/reduce_impl.h"
#include "aten/cpu/sort_impl.h"

/* Insertion point of key kv in row (contiguous, n elements of item size
 * isz, optionally through sorter row srt): leftmost, or rightmost when
 * right. */
static int64_t
search_row(ct__sort_key_fn key, const char *row, const int64_t *srt, int64_t n,
           size_t isz, uint64_t kv, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        int64_t at = srt != NULL ? srt[mid] : mid;
        uint64_t b = (at >= 0 && at < n) ? key(row + at * (int64_t)isz) : 0;
        if (right ? b <= kv : b < kv) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

static bool
leading_dims_match(const ct_tensor *seq, const ct_tensor *vals)
{
    if (seq->ndim != vals->ndim) {
        return false;
    }
    for (int d = 0; d < seq->ndim - 1; d++) {
        if (seq->sizes[d] != vals->sizes[d]) {
            return false;
        }
    }
    return true;
}

static int
check_args(const ct_tensor *seq, const ct_tensor *vals, const ct_tensor *sorter)
{
    char a[256], b[256];
    if (seq->ndim == 0) {
        return ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): boundaries tensor "
                        "should have positive dimension, but got 0 dimension");
    }
    if (seq->ndim > 1 && vals->ndim == 0) {
        return ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): input value can be a "
                        "scalar only when boundaries tensor dimension is 1, but we got "
                        "boundaries tensor dim(%d) and input value's dim(%d) "
                        "numel(%lld)", seq->ndim, vals->ndim, (long long)vals->numel);
    }
    if (seq->ndim > 1 && !leading_dims_match(seq, vals)) {
        return ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): boundaries tensor "
                        "should be 1 dimension or the first N-1 dimensions of "
                        "boundaries tensor and input value tensor must match, but we "
                        "got boundaries tensor %s and input value tensor %s",
                        ct_format_sizes(seq->ndim, seq->sizes, a, sizeof a),
                        ct_format_sizes(vals->ndim, vals->sizes, b, sizeof b));
    }
    if (sorter != NULL) {
        if (sorter->dtype != CT_DTYPE_INT64) {
            return ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): sorter must be a "
                            "tensor of long dtype but got dtype %s",
                            ct_dtype_table[sorter->dtype].legacy);
        }
        bool same = sorter->ndim == seq->ndim;
        for (int d = 0; same && d < seq->ndim; d++) {
            same = sorter->sizes[d] == seq->sizes[d];
        }
        if (!same) {
            return ct_error(CT_ERR_RUNTIME, "torch.searchsorted(): boundary and "
                            "sorter must have the same size, but got boundary tensor "
                            "%sand got sorter tensor %s",
                            ct_format_sizes(seq->ndim, seq->sizes, a, sizeof a),
                            ct_format_sizes(sorter->ndim, sorter->sizes, b, sizeof b));
        }
    }
    return 0;
}

ct_tensor *
ct_searchsorted(const ct_tensor *seq, const ct_tensor *values, bool out_int32,
                bool right, const ct_tensor *sorter)
{
    bool on_device = ct__is_device(seq) || ct__is_device(values) || ct__is_device(sorter);
    ct_tensor *s = NULL, *v = NULL, *so = NULL, *out = NULL;
    ct_dtype common;
    if (check_args(seq, values, sorter) < 0 ||
        ct_result_type(seq, values, &common) < 0) {
        return NULL;
    }
    if (on_device) {
        /* the CPU's dtype check less its device check */
        return ct__reduce_check_numeric("searchsorted_out_cpu", seq) < 0 ||
               ct__reduce_check_numeric("searchsorted_out_cpu", values) < 0
                   ? NULL
                   : ct__device_searchsorted(seq, values, common, out_int32, right, sorter);
    }
    if (ct__sort_check_dtype("searchsorted_out_cpu", seq, true) < 0 ||
        ct__sort_check_dtype("searchsorted_out_cpu", values, true) < 0) {
        return NULL;
    }
    ct_tensor *sc = NULL, *vc = NULL;
    if ((sc = ct_to_dtype(seq, common, false)) == NULL ||
        (vc = ct_to_dtype(values, common, false)) == NULL ||
        (s = ct_contiguous(sc)) == NULL || (v = ct_contiguous(vc)) == NULL ||
        (sorter != NULL && (so = ct_contiguous(sorter)) == NULL)) {
        goto done;
    }
    if ((out = ct_empty(values->ndim, values->sizes,
                        out_int32 ? CT_DTYPE_INT32 : CT_DTYPE_INT64,
                        ct_tensor_device(values))) == NULL) {
        goto done;
    }
    ct__sort_key_fn key = ct__sort_key_fns[common];
    size_t isz = ct_dtype_itemsize(common);
    int64_t nb = s->sizes[s->ndim - 1];
    int64_t per_row = s->ndim > 1 ? v->sizes[v->ndim - 1] : v->numel;
    const char *sd = ct_tensor_data(s), *vd = ct_tensor_data(v);
    const int64_t *srt = so != NULL ? (const int64_t *)ct_tensor_data(so) : NULL;
    char *od = ct_tensor_data(out);
    for (int64_t i = 0; i < v->numel; i++) {
        int64_t r = per_row > 0 ? i / per_row : 0;
        int64_t pos = search_row(key, sd + r * nb * (int64_t)isz,
                                 srt != NULL ? srt + r * nb : NULL, nb, isz,
                                 key(vd + i * (int64_t)isz), right);
        if (out_int32) {
            ((int32_t *)od)[i] = (int32_t)pos;
        }
        else {
            ((int64_t *)od)[i] = pos;
        }
    }
done:
    ct_tensor_decref(sc);
    ct_tensor_decref(vc);
    ct_tensor_decref(s);
    ct_tensor_decref(v);
    ct_tensor_decref(so);
    return out;
}

ct_tensor *
ct_bucketize(const ct_tensor *input, const ct_tensor *boundaries, bool out_int32,
             bool right)
{
    if (boundaries->ndim != 1) {
        ct_error(CT_ERR_RUNTIME, "boundaries tensor must be 1 dimension, but got "
                 "dim(%d)", boundaries->ndim);
        return NULL;
    }
    return ct_searchsorted(boundaries, input, out_int32, right, NULL);
}
