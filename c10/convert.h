/* c10/convert.h -- per-dtype value conversions (internal to libctorch).
 *
 * For each dtype short name S (see CT_FORALL_DTYPES) this defines
 *     ct__as_f64_S(T)  ct__as_i64_S(T)     read a value as double / int64
 *     ct__S_from_f64(d)  ct__S_from_i64(i)     make a value from double / int64
 *     ct__load_S(p)    ct__store_S(p, a)   T <-> compute type A
 *     ct__scalar_from_S(T)                 a ct_scalar of the right kind
 * A conversion between two dtypes goes through int64 when the source is an
 * integer or bool (exact) and through double when it is floating.
 *
 * Float to integer conversions truncate, as PyTorch does.  Out-of-range
 * values and NaN give what x86's cvtt* instructions give (the "integer
 * indefinite" INT_MIN), and narrow integer types take the low bits of the
 * int32 conversion, which is what PyTorch's static_cast compiles to there;
 * in C the plain cast would be undefined.
 */
#ifndef CTORCH_C10_CONVERT_H
#define CTORCH_C10_CONVERT_H

#include <math.h>

#include <ctorch/dtype.h>
#include <ctorch/scalar.h>

static inline int64_t
ct__trunc_i64(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return INT64_MIN;
    }
    return (int64_t)d;
}

static inline int32_t
ct__trunc_i32(double d)
{
    if (!(d > -2147483649.0 && d < 2147483648.0)) {
        return INT32_MIN;
    }
    return (int32_t)d;
}

/* integers: N = short name, T = C type, W = float-to-T conversion */
#define CT__INT_CONV(N, T, W)                                                 \
    static inline double ct__as_f64_##N(T v) { return (double)v; }           \
    static inline int64_t ct__as_i64_##N(T v) { return (int64_t)v; }         \
    static inline T ct__##N##_from_f64(double d) { return (T)W(d); }           \
    static inline T ct__##N##_from_i64(int64_t i) { return (T)i; }             \
    static inline T ct__load_##N(const T *p) { return *p; }                  \
    static inline void ct__store_##N(T *p, T v) { *p = v; }                  \
    static inline ct_scalar ct__scalar_from_##N(T v) { return ct_scalar_int((int64_t)v); }

CT__INT_CONV(u8, uint8_t, ct__trunc_i32)
CT__INT_CONV(i8, int8_t, ct__trunc_i32)
CT__INT_CONV(i16, int16_t, ct__trunc_i32)
CT__INT_CONV(i32, int32_t, ct__trunc_i32)
CT__INT_CONV(i64, int64_t, ct__trunc_i64)
CT__INT_CONV(qu8, uint8_t, ct__trunc_i32)
CT__INT_CONV(qi8, int8_t, ct__trunc_i32)
CT__INT_CONV(qi32, int32_t, ct__trunc_i32)
#undef CT__INT_CONV

/* native floating types */
#define CT__FLOAT_CONV(N, T)                                                  \
    static inline double ct__as_f64_##N(T v) { return (double)v; }           \
    static inline int64_t ct__as_i64_##N(T v) { return ct__trunc_i64(v); }   \
    static inline T ct__##N##_from_f64(double d) { return (T)d; }              \
    static inline T ct__##N##_from_i64(int64_t i) { return (T)i; }             \
    static inline T ct__load_##N(const T *p) { return *p; }                  \
    static inline void ct__store_##N(T *p, T v) { *p = v; }                  \
    static inline ct_scalar ct__scalar_from_##N(T v) { return ct_scalar_float((double)v); }

CT__FLOAT_CONV(f32, float)
CT__FLOAT_CONV(f64, double)
#undef CT__FLOAT_CONV

/* 16-bit floats: stored as bits, computed in float */
#define CT__HALF_CONV(N, T, TO, FROM)                                         \
    static inline double ct__as_f64_##N(T v) { return (double)TO(v); }       \
    static inline int64_t ct__as_i64_##N(T v) { return ct__trunc_i64(TO(v)); } \
    static inline T ct__##N##_from_f64(double d) { return FROM((float)d); }    \
    static inline T ct__##N##_from_i64(int64_t i) { return FROM((float)i); }   \
    static inline float ct__load_##N(const T *p) { return TO(*p); }          \
    static inline void ct__store_##N(T *p, float v) { *p = FROM(v); }        \
    static inline ct_scalar ct__scalar_from_##N(T v) { return ct_scalar_float((double)TO(v)); }

CT__HALF_CONV(f16, ct_half, ct_half_to_float, ct_float_to_half)
CT__HALF_CONV(bf16, ct_bfloat16, ct_bfloat16_to_float, ct_float_to_bfloat16)
#undef CT__HALF_CONV

static inline double ct__as_f64_b8(bool v) { return v; }
static inline int64_t ct__as_i64_b8(bool v) { return v; }
static inline bool ct__b8_from_f64(double d) { return d != 0; }
static inline bool ct__b8_from_i64(int64_t i) { return i != 0; }
static inline bool ct__load_b8(const bool *p) { return *p; }
static inline void ct__store_b8(bool *p, bool v) { *p = v; }
static inline ct_scalar ct__scalar_from_b8(bool v) { return ct_scalar_bool(v); }

/* Which path a conversion out of dtype S takes: 1 through double. */
#define CT__IS_FLOAT_u8 0
#define CT__IS_FLOAT_i8 0
#define CT__IS_FLOAT_i16 0
#define CT__IS_FLOAT_i32 0
#define CT__IS_FLOAT_i64 0
#define CT__IS_FLOAT_f16 1
#define CT__IS_FLOAT_f32 1
#define CT__IS_FLOAT_f64 1
#define CT__IS_FLOAT_b8 0
#define CT__IS_FLOAT_bf16 1
#define CT__IS_FLOAT_qi8 0
#define CT__IS_FLOAT_qu8 0
#define CT__IS_FLOAT_qi32 0

/* Convert one value of short name S1 to short name S2. */
#define CT_CONVERT(S1, S2, v)                                   \
    (CT__IS_FLOAT_##S1 ? ct__##S2##_from_f64(ct__as_f64_##S1(v))  \
                       : ct__##S2##_from_i64(ct__as_i64_##S1(v)))

/* A scalar as a value of dtype S. */
#define CT_FROM_SCALAR(S, sc)                                                 \
    ((sc).kind == CT_SCALAR_FLOAT ? ct__##S##_from_f64((sc).v.d)                \
     : (sc).kind == CT_SCALAR_INT ? ct__##S##_from_i64((sc).v.i)                \
                                  : ct__##S##_from_i64((int64_t)(sc).v.b))

#endif
