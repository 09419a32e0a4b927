/* ctorch/dtype.h -- the dtype list, written once.
 *
 * CT_FORALL_DTYPES(X) expands X(ENUM, c_type, short_name, compute_type) for
 * every dtype, built from the sub-lists (integral, floating, bool,
 * quantized) that kernels expand on their own.  Everything that
 * must stay in sync with the list (the enum, the traits table, per-dtype
 * loops) is generated from it.  Half and bfloat16 compute in float; every
 * other type computes in itself.  Quantized types store their integer
 * representation and never take part in arithmetic.
 *
 * Thread-safety: everything here is immutable.
 */
#ifndef CTORCH_DTYPE_H
#define CTORCH_DTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint16_t x; } ct_half;
typedef struct { uint16_t x; } ct_bfloat16;

#define CT_FORALL_INTEGRAL_DTYPES(X)                 \
    X(CT_DTYPE_UINT8, uint8_t, u8, uint8_t)          \
    X(CT_DTYPE_INT8, int8_t, i8, int8_t)             \
    X(CT_DTYPE_INT16, int16_t, i16, int16_t)         \
    X(CT_DTYPE_INT32, int32_t, i32, int32_t)         \
    X(CT_DTYPE_INT64, int64_t, i64, int64_t)

#define CT_FORALL_FLOATING_DTYPES(X)                 \
    X(CT_DTYPE_FLOAT16, ct_half, f16, float)         \
    X(CT_DTYPE_FLOAT32, float, f32, float)           \
    X(CT_DTYPE_FLOAT64, double, f64, double)         \
    X(CT_DTYPE_BFLOAT16, ct_bfloat16, bf16, float)

#define CT_FORALL_BOOL_DTYPE(X) X(CT_DTYPE_BOOL, bool, b8, bool)

/* Every dtype that takes part in arithmetic. */
#define CT_FORALL_NUMERIC_DTYPES(X) \
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X) CT_FORALL_BOOL_DTYPE(X)

#define CT_FORALL_QUANTIZED_DTYPES(X)                \
    X(CT_DTYPE_QINT8, int8_t, qi8, int8_t)           \
    X(CT_DTYPE_QUINT8, uint8_t, qu8, uint8_t)        \
    X(CT_DTYPE_QINT32, int32_t, qi32, int32_t)

/* Enum order: torch's ScalarType order within each group (nothing depends
 * on the numeric values; tables are indexed by enum). */
#define CT_FORALL_DTYPES(X) CT_FORALL_NUMERIC_DTYPES(X) CT_FORALL_QUANTIZED_DTYPES(X)

typedef enum {
#define X(E, T, S, A) E,
    CT_FORALL_DTYPES(X)
#undef X
    CT_DTYPE_COUNT
} ct_dtype;

/* Static facts about a dtype.  `name` is torch's ("float32"), `legacy` the
 * ScalarType name used in messages ("Float"). */
typedef struct {
    const char *name;
    const char *legacy;
    const char *alias;          /* second torch attribute name or NULL */
    bool is_floating;
    bool is_signed;
    bool is_quantized;
    ct_dtype underlying;        /* storage dtype of a quantized type */
} ct_dtype_traits;

extern const ct_dtype_traits ct_dtype_table[CT_DTYPE_COUNT];
extern const size_t ct_dtype_itemsizes[CT_DTYPE_COUNT];

static inline size_t
ct_dtype_itemsize(ct_dtype d)
{
    return ct_dtype_itemsizes[d];
}

static inline bool
ct_dtype_is_floating(ct_dtype d)
{
    return ct_dtype_table[d].is_floating;
}

static inline bool
ct_dtype_is_integral(ct_dtype d, bool include_bool)
{
    return !ct_dtype_table[d].is_floating && !ct_dtype_table[d].is_quantized &&
           (include_bool || d != CT_DTYPE_BOOL);
}

/* torch.promote_types; CT_DTYPE_COUNT for quantized inputs (no promotion). */
ct_dtype ct_dtype_promote(ct_dtype a, ct_dtype b);
/* torch.can_cast: may a value of `from` be written into `to` by an op? */
bool ct_dtype_can_cast(ct_dtype from, ct_dtype to);
/* Look a dtype up by torch's name ("float32", "float", "long", ...). */
ct_dtype ct_dtype_from_name(const char *name);

/* The default floating dtype (torch.get_default_dtype); process-wide. */
ct_dtype ct_default_dtype(void);
int ct_set_default_dtype(ct_dtype d);

/* Half and bfloat16 conversions (round to nearest even). */
static inline float
ct_bits_to_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline uint32_t
ct_float_to_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float
ct_half_to_float(ct_half h)
{
    uint32_t sign = (uint32_t)(h.x & 0x8000) << 16;
    uint32_t exp = (h.x >> 10) & 0x1f;
    uint32_t man = h.x & 0x3ff;
    if (exp == 0x1f) {
        return ct_bits_to_float(sign | 0x7f800000u | (man << 13));
    }
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24 is exact in float */
        float v = (float)man * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    return ct_bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

static inline ct_half
ct_float_to_half(float f)
{
    uint32_t u = ct_float_to_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffffu;
    ct_half h;
    if (a >= 0x7f800000u) {                     /* inf or nan */
        h.x = (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
        return h;
    }
    if (a >= 0x477ff000u) {                     /* rounds to >= 65520: inf */
        h.x = (uint16_t)(sign | 0x7c00);
        return h;
    }
    if (a < 0x38800000u) {                      /* below 2^-14: subnormal */
        /* adding 0.5 aligns the half subnormal grid to float's last bits */
        float v = ct_bits_to_float(a) + 0.5f;
        h.x = (uint16_t)(sign | (uint16_t)(ct_float_to_bits(v) - 0x3f000000u));
        return h;
    }
    uint32_t mant_odd = (a >> 13) & 1;
    a += 0xc8000fffu + mant_odd;                /* rebias and round to even */
    h.x = (uint16_t)(sign | (uint16_t)(a >> 13));
    return h;
}

static inline float
ct_bfloat16_to_float(ct_bfloat16 b)
{
    return ct_bits_to_float((uint32_t)b.x << 16);
}

static inline ct_bfloat16
ct_float_to_bfloat16(float f)
{
    ct_bfloat16 b;
    uint32_t u = ct_float_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        b.x = 0x7fc0;                           /* canonical nan */
        return b;
    }
    u += 0x7fffu + ((u >> 16) & 1);
    b.x = (uint16_t)(u >> 16);
    return b;
}

#endif
