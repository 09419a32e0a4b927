/* aten/cpu/random_int.c -- random_, randint and randperm (specs/rng.md
 * sections 4 and 5).
 *
 * An integer in [from, to) is (draw mod (to - from)) + from, the draw
 * being 64 bits only for int64/float/double/bfloat16 tensors with a range
 * of 2^32 or more, else 32 bits.  For 32-bit draws the modulo is computed
 * by multiplication (Lemire's fastmod), exact for every 32-bit divisor.
 */
#include "aten/device.h"
#include <stdlib.h>

#include "aten/cpu/cpu_impl.h"
#include "aten/random_impl.h"

/* Values are made as int64 and cast to the compute type A, as PyTorch's
 * static_cast<scalar_t>(int64_t) does (through float for 16-bit floats).
 *
 * Per dtype S, what random_() without bounds draws and the modulus it
 * takes: max + 1 for integers (2 for bool: the low bit), 2^digits + 1
 * for floating types. */
#define DRAW_b8 uint32_t
#define DRAW_u8 uint32_t
#define DRAW_i8 uint32_t
#define DRAW_i16 uint32_t
#define DRAW_i32 uint32_t
#define DRAW_i64 uint64_t
#define DRAW_f16 uint32_t
#define DRAW_f32 uint32_t
#define DRAW_f64 uint64_t
#define DRAW_bf16 uint32_t
#define MOD_b8 UINT64_C(2)
#define MOD_u8 (UINT64_C(1) << 8)
#define MOD_i8 (UINT64_C(1) << 7)
#define MOD_i16 (UINT64_C(1) << 15)
#define MOD_i32 (UINT64_C(1) << 31)
#define MOD_i64 (UINT64_C(1) << 63)
#define MOD_f16 ((UINT64_C(1) << 11) + 1)
#define MOD_f32 ((UINT64_C(1) << 24) + 1)
#define MOD_f64 ((UINT64_C(1) << 53) + 1)
#define MOD_bf16 ((UINT64_C(1) << 8) + 1)

/* Significand digits of the floating dtypes (std::numeric_limits::digits). */
static const int float_digits[CT_DTYPE_COUNT] = {
    [CT_DTYPE_FLOAT16] = 11,
    [CT_DTYPE_FLOAT32] = 24,
    [CT_DTYPE_FLOAT64] = 53,
    [CT_DTYPE_BFLOAT16] = 8,
};

/* Bounds of the integer dtypes. */
static const int64_t int_min[CT_DTYPE_COUNT] = {
    [CT_DTYPE_UINT8] = 0, [CT_DTYPE_INT8] = INT8_MIN, [CT_DTYPE_INT16] = INT16_MIN,
    [CT_DTYPE_INT32] = INT32_MIN, [CT_DTYPE_INT64] = INT64_MIN, [CT_DTYPE_BOOL] = 0,
};
static const int64_t int_max[CT_DTYPE_COUNT] = {
    [CT_DTYPE_UINT8] = UINT8_MAX, [CT_DTYPE_INT8] = INT8_MAX, [CT_DTYPE_INT16] = INT16_MAX,
    [CT_DTYPE_INT32] = INT32_MAX, [CT_DTYPE_INT64] = INT64_MAX, [CT_DTYPE_BOOL] = 1,
};

typedef struct {
    uint64_t range;             /* 0: all 2^64 values */
    int64_t base;
    uint64_t magic;             /* fastmod's multiplier for a 32-bit range */
} range_ctx;

/* r mod d for 32-bit r and d (d >= 1), with magic = 2^64 / d rounded up
 * (Lemire, Kaser and Kurz 2019). */
static inline uint64_t
fastmod32(uint32_t r, uint64_t magic, uint64_t d)
{
    uint64_t low = magic * r;
    return (uint64_t)(((unsigned __int128)low * d) >> 64);
}

#define X(E, T, S, A)                                                         \
    CT__DRAW_LOOP(random_##S, T, S, DRAW_##S, range_ctx,                      \
                  (A)(int64_t)(r % MOD_##S))                 \
    CT__DRAW_LOOP(range32_##S, T, S, uint32_t, range_ctx,                     \
                  (A)(int64_t)(fastmod32(r, cx->magic, cx->range) +           \
                               (uint64_t)cx->base))                           \
    CT__DRAW_LOOP(range64_##S, T, S, uint64_t, range_ctx,                     \
                  (A)(int64_t)(r % cx->range + (uint64_t)cx->base))
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
CT_FORALL_BOOL_DTYPE(X)
#undef X

#define X(E, T, S, A) [E] = random_##S,
static const ct__draw_fn random_loops[CT_DTYPE_COUNT] = {
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
};
#undef X
#define X(E, T, S, A) [E] = range32_##S,
static const ct__draw_fn range32_loops[CT_DTYPE_COUNT] = {
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
};
#undef X
#define X(E, T, S, A) [E] = range64_##S,
static const ct__draw_fn range64_loops[CT_DTYPE_COUNT] = {
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)
};
#undef X
/* PyTorch draws all 64 bits only into these four dtypes */
#define FULL64(E, T, S, A) CT__DRAW_LOOP(full64_##S, T, S, uint64_t, range_ctx, (A)(int64_t)r)
FULL64(CT_DTYPE_INT64, int64_t, i64, int64_t)
FULL64(CT_DTYPE_FLOAT32, float, f32, float)
FULL64(CT_DTYPE_FLOAT64, double, f64, double)
FULL64(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)
#undef FULL64
static const ct__draw_fn full64_loops[CT_DTYPE_COUNT] = {
    [CT_DTYPE_INT64] = full64_i64,
    [CT_DTYPE_FLOAT32] = full64_f32,
    [CT_DTYPE_FLOAT64] = full64_f64,
    [CT_DTYPE_BFLOAT16] = full64_bf16,
};

int
ct_random_(ct_tensor *t, ct_generator *gen)
{
    if (ct__is_device(t) && !ct_dtype_table[t->dtype].is_quantized) {
        return ct__device_random(t, gen, CT_CUDA_RANDOM_BITS, 0, 0, 0, 0);
    }
    range_ctx cx = {0, 0, 0};
    return ct__draw_into(t, gen, random_loops, "random_", &cx);
}

/* v rounded to a floating dtype and back (PyTorch's static_casts). */
#define X(E, T, S, A)                                                         \
    static int64_t round_trip_##S(int64_t v)                                  \
    {                                                                         \
        return ct__as_i64_##S(ct__##S##_from_i64(v));                         \
    }
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static int64_t (*const round_trip[CT_DTYPE_COUNT])(int64_t) = {
#define X(E, T, S, A) [E] = round_trip_##S,
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* floor(log2(v)) for v > 0 (0 for v == 0), as PyTorch's shift loop. */
static int
log2_floor(uint64_t v)
{
    int n = 0;
    while (v >>= 1) {
        n++;
    }
    return n;
}

/* PyTorch's update_from/update_to: a bound the dtype cannot hold moves
 * inward to the next value it can. */
static int64_t
update_from(ct_dtype d, int64_t from)
{
    int64_t plus1 = round_trip[d](from + 1);
    if (plus1 < from) {
        int64_t a = from + 1;
        int n = log2_floor(a < 0 ? -(uint64_t)a : (uint64_t)a);
        from = plus1 + ((int64_t)1 << (n - float_digits[d] + 1));
    }
    return from;
}

static int64_t
update_to(ct_dtype d, int64_t to)
{
    int64_t minus1 = round_trip[d](to - 1);
    if (minus1 >= to) {
        int64_t a = to - 1;
        int n = log2_floor(a < 0 ? -(uint64_t)a : (uint64_t)a);
        to = minus1 - ((int64_t)1 << (n - float_digits[d] + 1));
    }
    return to;
}

/* PyTorch's check_from_to_in_range: an error outside the dtype, and for
 * floating dtypes a warning beyond its exact integers. */
static int
check_in_range(ct_dtype d, int64_t v, const char *name)
{
    const char *tn = ct__cpp_type_name(d);
    if (ct_dtype_is_floating(d)) {
        double max = ct__floating_max(d);
        if (!((double)v >= -max && (double)v <= max)) {
            return ct_error(CT_ERR_RUNTIME, "%s is out of bounds for %s", name, tn);
        }
        int digits = float_digits[d];
        if (v < -((int64_t)1 << digits) || v > ((int64_t)1 << digits)) {
            ct_warn("%s is out of bounds [-(2^%d), 2^%d]. Due to precision limitations "
                    "%s can support discrete uniform distribution only within this "
                    "range. This warning will become an error in version 1.7 release, "
                    "please fix the code in advance", name, digits, digits, tn);
        }
        return 0;
    }
    if (v < int_min[d] || v > int_max[d]) {
        return ct_error(CT_ERR_RUNTIME, "%s is out of bounds for %s", name, tn);
    }
    return 0;
}

int
ct_random_range_(ct_tensor *t, int64_t from, const int64_t *to, ct_generator *gen)
{
    ct_dtype d = t->dtype;
    bool floating = ct_dtype_is_floating(d);
    range_ctx cx = {0, 0, 0};

    if (ct_dtype_table[d].is_quantized) {
        return ct_error(CT_ERR_RUNTIME, "\"random_from_to_kernel_cpu\" not implemented "
                        "for '%s'", ct_dtype_table[d].legacy);
    }
    if (to != NULL) {
        int64_t hi = *to;
        if (from >= hi) {
            return ct_error(CT_ERR_RUNTIME, "random_ expects 'from' to be less than 'to', "
                            "but got from=%lld >= to=%lld", (long long)from, (long long)hi);
        }
        if (floating) {
            from = update_from(d, from);
            hi = update_to(d, hi);
            if (from >= hi) {
                return ct_error(CT_ERR_RUNTIME, "random_ expects 'from' casted to dtype "
                                "to be less than 'to' casted to dtype, but got from=%lld "
                                ">= to=%lld", (long long)from, (long long)hi);
            }
        }
        if (check_in_range(d, from, "from") < 0 || check_in_range(d, hi - 1, "to - 1") < 0) {
            return -1;
        }
        cx.range = (uint64_t)hi - (uint64_t)from;
    }
    else if (from != INT64_MIN) {
        int64_t to_inc;
        if (floating) {
            to_inc = (int64_t)1 << float_digits[d];
            from = update_from(d, from);
            if (from >= to_inc) {
                return ct_error(CT_ERR_RUNTIME, "random_ expects 'from' casted to dtype "
                                "to be less than or equal to 'to_inc' casted to dtype, but "
                                "got from=%lld > to_inc=%lld", (long long)from,
                                (long long)to_inc);
            }
        }
        else {
            to_inc = int_max[d];
        }
        if (check_in_range(d, from, "from") < 0 || check_in_range(d, to_inc, "to - 1") < 0) {
            return -1;
        }
        cx.range = (uint64_t)to_inc - (uint64_t)from + 1;
    }
    else {
        /* PyTorch's kernel dispatches over the integers, float, double and
         * bfloat16, then accepts four of them */
        bool dev = ct__is_device(t);
        if (full64_loops[d] == NULL && ct_dtype_is_integral(d, false)) {
            return ct_error(CT_ERR_RUNTIME, "random_full_64_bits_range_kernel_%s handles "
                            "only int64, double, float and bfloat16", dev ? "cuda" : "cpu");
        }
        if (dev) {
            if (full64_loops[d] == NULL) {
                return ct_error(CT_ERR_RUNTIME, "\"random_full_64_bits_range_kernel_cuda\" "
                                "not implemented for '%s'", ct_dtype_table[d].legacy);
            }
            return ct__device_random(t, gen, CT_CUDA_RANDOM_FULL64, 0, 0, 0, 0);
        }
        return ct__draw_into(t, gen, full64_loops, "random_full_64_bits_range_kernel_cpu",
                             &cx);
    }
    cx.base = from;
    if (ct__is_device(t)) {
        return ct__device_random(t, gen, CT_CUDA_RANDOM_FROM_TO, 0, 0, cx.range, from);
    }
    if (cx.range >= (UINT64_C(1) << 32) &&
        (d == CT_DTYPE_INT64 || d == CT_DTYPE_FLOAT64 || d == CT_DTYPE_FLOAT32 ||
         d == CT_DTYPE_BFLOAT16)) {
        return ct__draw_into(t, gen, range64_loops, "random_from_to_kernel_cpu", &cx);
    }
    /* here range <= 2^32 (int32's full range at most), which fastmod32
     * also handles */
    cx.magic = UINT64_MAX / cx.range + 1;
    return ct__draw_into(t, gen, range32_loops, "random_from_to_kernel_cpu", &cx);
}

ct_tensor *
ct_randint(int64_t low, int64_t high, int ndim, const int64_t *sizes, ct_dtype dtype,
           ct_generator *gen)
{
    ct_tensor *t = ct_empty(ndim, sizes, dtype, ct_device_cpu());
    if (t != NULL && ct_random_range_(t, low, &high, gen) < 0) {
        ct_tensor_decref(t);
        return NULL;
    }
    return t;
}

/* --- randperm --------------------------------------------------------------- */
/* PyTorch 1.13's shuffle: r[i] swaps with r[i + random32() mod (n - i)]
 * for i = 0 .. n-2.  Divisors above 32 bits leave the draw as it is.  The
 * draws of a chunk are reduced first so the swap partners can be
 * prefetched a few steps ahead. */
static void
shuffle(ct__mt *mt, int64_t *r, int64_t n)
{
    uint32_t buf[CT__CHUNK];
    int64_t z[CT__CHUNK];
    enum { AHEAD = 8 };

    for (int64_t i = 0; i < n; i++) {
        r[i] = i;
    }
    for (int64_t start = 0; start < n - 1; start += CT__CHUNK) {
        int64_t k = n - 1 - start < CT__CHUNK ? n - 1 - start : CT__CHUNK;
        ct__random32_fill(mt, buf, k);
        for (int64_t j = 0; j < k; j++) {
            uint64_t m = (uint64_t)(n - start - j);
            z[j] = start + j + (int64_t)(m > UINT32_MAX ? buf[j] : buf[j] % (uint32_t)m);
        }
        for (int64_t j = 0; j < k; j++) {
            if (j + AHEAD < k) {
                __builtin_prefetch(&r[z[j + AHEAD]], 1);
            }
            int64_t i = start + j, s = r[i];
            r[i] = r[z[j]];
            r[z[j]] = s;
        }
    }
}

ct_tensor *
ct_randperm(int64_t n, ct_dtype dtype, ct_generator *gen)
{
    return ct_randperm_on(n, dtype, ct_device_cpu(), gen);
}

/* On a device: the same checks, then aten/device_sampling.c's sort of
 * random keys (Note [Device randperm]); its generator is checked when it
 * draws. */
ct_tensor *
ct_randperm_on(int64_t n, ct_dtype dtype, ct_device device, ct_generator *gen)
{
    bool on_device = device.type != CT_DEVICE_CPU;
    if (!on_device && ct__gen_check_cpu(gen) < 0) {
        return NULL;
    }
    ct_tensor *t = ct_empty(1, &n, dtype, device);
    if (t == NULL) {
        return NULL;
    }
    /* PyTorch's check_supported_max_int_with_precision */
    static const struct {
        ct_dtype dtype;
        int digits;
        const char *text;
    } exact[] = {
        {CT_DTYPE_FLOAT16, 11, "2049 for Half"},
        {CT_DTYPE_FLOAT32, 24, "2^24+1 for Float"},
        {CT_DTYPE_FLOAT64, 53, "2^53+1 for Double"},
    };
    if (ct_scalar_check(ct_scalar_int(n > 0 ? n - 1 : n), dtype) < 0) {
        goto fail;
    }
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        if (dtype == exact[i].dtype && n > ((int64_t)1 << exact[i].digits) + 1) {
            ct_error(CT_ERR_RUNTIME, "n cannot be greater than %s type.", exact[i].text);
            goto fail;
        }
    }
    if (dtype == CT_DTYPE_BOOL || ct_dtype_table[dtype].is_quantized) {
        ct_error(CT_ERR_RUNTIME, "\"randperm\" not implemented for '%s'",
                 ct_dtype_table[dtype].legacy);
        goto fail;
    }
    if (on_device) {
        if (ct__device_randperm(t, gen) < 0) {
            goto fail;
        }
        return t;
    }
    int64_t *r = dtype == CT_DTYPE_INT64 ? (int64_t *)ct_tensor_data(t)
                                         : malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (r == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in randperm");
        goto fail;
    }
    ct_generator *g = ct__gen_acquire(gen);
    shuffle(&g->mt, r, n);
    ct__gen_release(g);
    if (dtype != CT_DTYPE_INT64) {
        ct__write_converted(dtype, ct_tensor_data(t), (int64_t)ct_dtype_itemsize(dtype), n,
                            r, false);
        free(r);
    }
    return t;
fail:
    ct_tensor_decref(t);
    return NULL;
}
