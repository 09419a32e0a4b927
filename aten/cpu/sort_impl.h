/* aten/cpu/sort_impl.h -- the ordering keys and the radix sort shared by
 * the sorting and selection files (sort.c, sort_search.c, sort_count.c);
 * internal to libctorch.
 *
 * Note [Sort keys]
 * Every numeric value maps to a uint64 key whose unsigned order is torch's
 * order of the values: integers (and bool) through int64 with the sign bit
 * flipped; floating values through their IEEE bits (sign-magnitude made
 * monotone: float64 through double, the others through float), -0.0
 * folded onto 0.0 and every NaN onto CT__SORT_KEY_NAN, the largest key, so
 * NaN sorts above +inf.  Keys compare within one dtype only.
 * Keys of one dtype compare like the values, so one stable LSD radix sort
 * over (key, index) pairs serves every dtype, and key ^ UINT64_MAX orders
 * descending while a stable sort still keeps equal values in input order.
 */
#ifndef CTORCH_ATEN_CPU_SORT_IMPL_H
#define CTORCH_ATEN_CPU_SORT_IMPL_H

#include <string.h>

#include <ctorch/ctorch.h>

#include "c10/convert.h"

#define CT__SORT_KEY_NAN UINT64_MAX

typedef struct {
    uint64_t key;
    int64_t idx;
} ct__kv;

static inline uint64_t
ct__sort_key_f64(double d)
{
    uint64_t u;
    if (d != d) {
        return CT__SORT_KEY_NAN;
    }
    d += 0.0;                   /* -0.0 + 0.0 is 0.0 */
    memcpy(&u, &d, sizeof u);
    return u ^ ((uint64_t)((int64_t)u >> 63) | (UINT64_C(1) << 63));
}

/* float32 (and the 16-bit floats, exact in float) order through float's
 * own bits, in the high half: the low half stays zero, so a radix sort
 * skips its four passes. */
static inline uint64_t
ct__sort_key_f32(float f)
{
    uint32_t u;
    if (f != f) {
        return CT__SORT_KEY_NAN;
    }
    f += 0.0f;                  /* -0.0 + 0.0 is 0.0 */
    memcpy(&u, &f, sizeof u);
    u ^= (uint32_t)((int32_t)u >> 31) | (UINT32_C(1) << 31);
    return (uint64_t)u << 32;
}

static inline uint64_t
ct__sort_key_i64(int64_t i)
{
    return (uint64_t)i ^ (UINT64_C(1) << 63);
}

/* Scratch memory from the caching CPU allocator (Note [Caching CPU
 * allocator]): fresh pages cost more than a sort pass here.  NULL with the
 * error set on failure; free with the same size. */
static inline void *
ct__sort_scratch(size_t nbytes)
{
    return ct_cpu_allocator()->alloc(ct_cpu_allocator(), nbytes);
}

static inline void
ct__sort_scratch_free(void *p, size_t nbytes)
{
    ct_cpu_allocator()->free(ct_cpu_allocator(), p, nbytes);
}

/* The key of one element at p. */
typedef uint64_t (*ct__sort_key_fn)(const char *p);
/* The pairs (key ^ flip, idx0 + i) of the n elements at src + i * stride
 * (stride in bytes) whose key ^ flip <= limit, packed into out (room for
 * n); returns how many.  limit UINT64_MAX keeps all. */
typedef int64_t (*ct__sort_fill_fn)(const char *src, int64_t stride, int64_t n,
                                    int64_t idx0, uint64_t flip, uint64_t limit,
                                    ct__kv *out);

/* Indexed by dtype (quantized ones by their stored integers). */
extern const ct__sort_key_fn ct__sort_key_fns[CT_DTYPE_COUNT];
extern const ct__sort_fill_fn ct__sort_fill_fns[CT_DTYPE_COUNT];

/* Stable sort of a[0..n) by key, tmp being scratch of n pairs; returns
 * whichever of a and tmp holds the result. */
ct__kv *ct__sort_radix(ct__kv *a, ct__kv *tmp, int64_t n);

/* Note [libstdc++ order] (sort_stl.c): std::sort and std::nth_element step
 * for step, for the kernels whose choice among ties torch leaves to them.
 * less(ctx, x, y) compares two elements (int64: positions, row numbers). */
typedef bool (*ct__stl_less_fn)(const void *ctx, int64_t x, int64_t y);
void ct__stl_sort(int64_t *a, int64_t n, ct__stl_less_fn less, const void *ctx);
/* Element nth of the sorted order at a[nth], smaller ones before it. */
void ct__stl_nth_element(int64_t *a, int64_t nth, int64_t n, ct__stl_less_fn less,
                         const void *ctx);

/* The "not implemented for" check of the family: non-quantized dtypes,
 * bool and float16 only when allow_bool (torch's topk and kthvalue have
 * neither).  0, or -1 with RuntimeError. */
int ct__sort_check_dtype(const char *name, const ct_tensor *t, bool allow_bool);

#endif
