/* aten/cuda/kernel_math.h -- the scalar math of the CUDA kernels, written
 * once in C that nvcc compiles for the device (the .cu files here) and gcc for
 * the host test (tests/c/test_cuda_kernel_math.c), which checks it bit for
 * bit against the CPU kernels on this machine.
 *
 * It holds the three things a kernel computes per element:
 *   - the byte offsets of an element in strided operands (ct_k_offsets
 *     over a ct_k_pack, built on the host by ct_k_pack_views);
 *   - value conversions, as c10/convert.h's: ct_k_load_S / ct_k_store_S
 *     between storage and the compute type A, ct_k_as_f64_S,
 *     ct_k_as_i64_S, ct_k_S_from_f64, ct_k_S_from_i64 and the any-to-any
 *     cast through a ct_k_value (aten/cpu/copy.c's Note [Casting through a
 *     buffer]); half and bfloat16 round to nearest even exactly as
 *     include/ctorch/dtype.h does, NaN included;
 *   - the binary expressions of add, sub, mul and div as aten/cpu/binary.c
 *     writes them (fused multiply-add for alpha, float16's rounded
 *     alpha * b, bool's or / and, integer wrap-around).
 * S is a dtype's short name (CT_FORALL_NUMERIC_DTYPES); every function is
 * stamped from that list by dtype family.  Nothing here has state.
 */
#ifndef CTORCH_ATEN_CUDA_KERNEL_MATH_H
#define CTORCH_ATEN_CUDA_KERNEL_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "c10/cuda/backend.h"

#ifdef __CUDACC__
#define CT_HD static __host__ __device__ __forceinline__
#else
#define CT_HD static inline
#endif
/* nvcc's device pass unrolls; the host compilers do not know the pragma */
#ifdef __CUDA_ARCH__
#define CT_UNROLL _Pragma("unroll")
#else
#define CT_UNROLL
#endif

/* --- float bits ------------------------------------------------------------ */

CT_HD uint32_t
ct_k_f2u(float f)
{
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

CT_HD float
ct_k_u2f(uint32_t u)
{
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* ct_half_to_float, ct_float_to_half, ct_bfloat16_to_float and
 * ct_float_to_bfloat16 of include/ctorch/dtype.h, on raw bits */
CT_HD float
ct_k_half_to_float(uint16_t x)
{
    uint32_t sign = (uint32_t)(x & 0x8000) << 16;
    uint32_t exp = (x >> 10) & 0x1f;
    uint32_t man = x & 0x3ff;
    if (exp == 0x1f) {
        return ct_k_u2f(sign | 0x7f800000u | (man << 13));
    }
    if (exp == 0) {
        /* zero or subnormal: man * 2^-24 is exact in float */
        float v = (float)man * 5.9604644775390625e-08f;
        return sign ? -v : v;
    }
    return ct_k_u2f(sign | ((exp + 112) << 23) | (man << 13));
}

CT_HD uint16_t
ct_k_float_to_half(float f)
{
    uint32_t u = ct_k_f2u(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) { /* inf or nan */
        return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000u ? 0x200 : 0));
    }
    if (a >= 0x477ff000u) { /* rounds to >= 65520: inf */
        return (uint16_t)(sign | 0x7c00);
    }
    if (a < 0x38800000u) { /* below 2^-14: subnormal */
        /* adding 0.5 aligns the half subnormal grid to float's last bits */
        float v = ct_k_u2f(a) + 0.5f;
        return (uint16_t)(sign | (uint16_t)(ct_k_f2u(v) - 0x3f000000u));
    }
    uint32_t mant_odd = (a >> 13) & 1;
    a += 0xc8000fffu + mant_odd; /* rebias and round to even */
    return (uint16_t)(sign | (uint16_t)(a >> 13));
}

CT_HD float
ct_k_bfloat16_to_float(uint16_t x)
{
    return ct_k_u2f((uint32_t)x << 16);
}

CT_HD uint16_t
ct_k_float_to_bfloat16(float f)
{
    uint32_t u = ct_k_f2u(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) {
        return 0x7fc0; /* canonical nan */
    }
    u += 0x7fffu + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}

/* A 16-bit float's value and back, by dtype (float16 or bfloat16). */
CT_HD float
ct_k_bits_to_float(ct_dtype d, uint16_t x)
{
    return d == CT_DTYPE_FLOAT16 ? ct_k_half_to_float(x) : ct_k_bfloat16_to_float(x);
}

CT_HD uint16_t
ct_k_float_to_bits(ct_dtype d, float v)
{
    return d == CT_DTYPE_FLOAT16 ? ct_k_float_to_half(v) : ct_k_float_to_bfloat16(v);
}

/* --- float to integer: c10/convert.h's truncations ------------------------- */

/* Out of range and NaN give x86's "integer indefinite", as the CPU does (a
 * plain cast would saturate on the GPU and is undefined in C). */
CT_HD int64_t
ct_k_trunc_i64(double d)
{
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
        return INT64_MIN;
    }
    return (int64_t)d;
}

CT_HD int32_t
ct_k_trunc_i32(double d)
{
    if (!(d > -2147483649.0 && d < 2147483648.0)) {
        return INT32_MIN;
    }
    return (int32_t)d;
}

CT_HD float
ct_k_fma_float(float x, float y, float z)
{
    return fmaf(x, y, z);
}

CT_HD double
ct_k_fma_double(double x, double y, double z)
{
    return fma(x, y, z);
}

/* --- per-dtype conversions and binary expressions -------------------------- */

/* Integers compute in themselves.  Float sources truncate through int32
 * (narrow types keep its low bits) or int64.  Arithmetic is done in
 * uint64_t: the low bits are those of the CPU's -fwrapv arithmetic, and no
 * signed overflow is left for the device compiler to assume away. */
#define CT_K_INTEGRAL(E, T, S, A)                                                     \
    CT_HD A ct_k_load_##S(const char *p) { return *(const T *)p; }                    \
    CT_HD void ct_k_store_##S(char *p, A v) { *(T *)p = v; }                          \
    CT_HD A ct_k_round_##S(A v) { return v; }                                         \
    CT_HD double ct_k_as_f64_##S(A v) { return (double)v; }                           \
    CT_HD int64_t ct_k_as_i64_##S(A v) { return (int64_t)v; }                         \
    CT_HD A ct_k_##S##_from_f64(double d)                                             \
    {                                                                                 \
        return (A)(sizeof(T) == 8 ? ct_k_trunc_i64(d) : (int64_t)ct_k_trunc_i32(d));  \
    }                                                                                 \
    CT_HD A ct_k_##S##_from_i64(int64_t i) { return (A)i; }                           \
    CT_HD A ct_k_add_##S(A a, A b) { return (A)((uint64_t)a + (uint64_t)b); }         \
    CT_HD A ct_k_sub_##S(A a, A b) { return (A)((uint64_t)a - (uint64_t)b); }         \
    CT_HD A ct_k_mul_##S(A a, A b) { return (A)((uint64_t)a * (uint64_t)b); }         \
    CT_HD A ct_k_add_alpha_##S(A a, A b, A alpha)                                     \
    {                                                                                 \
        return (A)((uint64_t)alpha * (uint64_t)b + (uint64_t)a);                      \
    }                                                                                 \
    CT_HD A ct_k_sub_alpha_##S(A a, A b, A alpha)                                     \
    {                                                                                 \
        return (A)((uint64_t)a - (uint64_t)alpha * (uint64_t)b);                      \
    }
CT_FORALL_INTEGRAL_DTYPES(CT_K_INTEGRAL)
#undef CT_K_INTEGRAL

/* Floating types compute in A (float for the 16-bit ones, which are stored
 * as bits: sizeof(T) == 2).  alpha * b + a is one fused multiply-add, as
 * PyTorch's vectorized CPU kernels do, except for float16, which PyTorch
 * 1.13 does not vectorize: there alpha * b is rounded to half first. */
#define CT_K_FLOATING(E, T, S, A)                                                     \
    CT_HD A ct_k_load_##S(const char *p)                                              \
    {                                                                                 \
        return sizeof(T) == 2 ? (A)ct_k_bits_to_float(E, *(const uint16_t *)p)        \
                              : *(const A *)p;                                        \
    }                                                                                 \
    CT_HD void ct_k_store_##S(char *p, A v)                                           \
    {                                                                                 \
        if (sizeof(T) == 2) {                                                         \
            *(uint16_t *)p = ct_k_float_to_bits(E, (float)v);                         \
        }                                                                             \
        else {                                                                        \
            *(A *)p = v;                                                              \
        }                                                                             \
    }                                                                                 \
    /* v as stored and read back */                                                   \
    CT_HD A ct_k_round_##S(A v)                                                       \
    {                                                                                 \
        if (sizeof(T) == 2) {                                                         \
            return (A)ct_k_bits_to_float(E, ct_k_float_to_bits(E, (float)v));         \
        }                                                                             \
        return v;                                                                     \
    }                                                                                 \
    CT_HD double ct_k_as_f64_##S(A v) { return (double)v; }                           \
    CT_HD int64_t ct_k_as_i64_##S(A v) { return ct_k_trunc_i64(v); }                  \
    CT_HD A ct_k_##S##_from_f64(double d) { return (A)d; }                            \
    CT_HD A ct_k_##S##_from_i64(int64_t i) { return (A)i; }                           \
    CT_HD A ct_k_add_##S(A a, A b) { return a + b; }                                  \
    CT_HD A ct_k_sub_##S(A a, A b) { return a - b; }                                  \
    CT_HD A ct_k_mul_##S(A a, A b) { return a * b; }                                  \
    CT_HD A ct_k_div_##S(A a, A b) { return a / b; }                                  \
    CT_HD A ct_k_muladd_##S(A x, A y, A z)                                            \
    {                                                                                 \
        return E == CT_DTYPE_FLOAT16 ? z + ct_k_round_##S(x * y)                      \
                                     : ct_k_fma_##A(x, y, z);                         \
    }                                                                                 \
    CT_HD A ct_k_add_alpha_##S(A a, A b, A alpha)                                     \
    {                                                                                 \
        return ct_k_muladd_##S(alpha, b, a);                                          \
    }                                                                                 \
    CT_HD A ct_k_sub_alpha_##S(A a, A b, A alpha)                                     \
    {                                                                                 \
        return ct_k_muladd_##S(-alpha, b, a);                                         \
    }
CT_FORALL_FLOATING_DTYPES(CT_K_FLOATING)
#undef CT_K_FLOATING

/* bool: + is or, * is and; there is no bool subtraction */
#define CT_K_BOOL(E, T, S, A)                                                         \
    CT_HD A ct_k_load_##S(const char *p) { return *(const T *)p; }                    \
    CT_HD void ct_k_store_##S(char *p, A v) { *(T *)p = v; }                          \
    CT_HD A ct_k_round_##S(A v) { return v; }                                         \
    CT_HD double ct_k_as_f64_##S(A v) { return v; }                                   \
    CT_HD int64_t ct_k_as_i64_##S(A v) { return v; }                                  \
    CT_HD A ct_k_##S##_from_f64(double d) { return d != 0; }                          \
    CT_HD A ct_k_##S##_from_i64(int64_t i) { return i != 0; }                         \
    CT_HD A ct_k_add_##S(A a, A b) { return a || b; }                                 \
    CT_HD A ct_k_mul_##S(A a, A b) { return a && b; }                                 \
    CT_HD A ct_k_add_alpha_##S(A a, A b, A alpha) { return a || (alpha && b); }
CT_FORALL_BOOL_DTYPE(CT_K_BOOL)
#undef CT_K_BOOL

CT_HD bool
ct_k_is_floating(ct_dtype d)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        return true;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
    default:
        return false;
    }
}

/* A scalar given as double and int64 (the backend's fval/ival, alpha) in
 * compute type A, as CT_FROM_SCALAR and a store and load give it: integer
 * dtypes take the int64, floating ones the double (rounded as stored, so
 * float16's alpha is a half), bool either (nonzero: 0.5 is true). */
#define X(E, T, S, A)                                                                 \
    CT_HD A ct_k_scalar_##S(double f, int64_t i)                                      \
    {                                                                                 \
        return E == CT_DTYPE_BOOL ? ct_k_##S##_from_f64(f != 0 || i != 0)             \
               : ct_k_is_floating(E) ? ct_k_round_##S(ct_k_##S##_from_f64(f))         \
                                     : ct_k_##S##_from_i64(i);                        \
    }
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

/* --- any dtype to any dtype --------------------------------------------------- */

/* A value in transit: floating sources as double, integer and bool ones as
 * int64 (exact), like CT_CONVERT. */
typedef struct {
    double f;
    int64_t i;
    bool from_float;
} ct_k_value;

CT_HD ct_k_value
ct_k_read(ct_dtype d, const char *p)
{
    ct_k_value v = {0, 0, false};
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        v.i = ct_k_as_i64_##S(ct_k_load_##S(p));                                      \
        break;
        CT_FORALL_INTEGRAL_DTYPES(X)
        CT_FORALL_BOOL_DTYPE(X)
#undef X
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        v.f = ct_k_as_f64_##S(ct_k_load_##S(p));                                      \
        v.from_float = true;                                                          \
        break;
        CT_FORALL_FLOATING_DTYPES(X)
#undef X
    default:
        break;
    }
    return v;
}

#define X(E, T, S, A)                                                                 \
    CT_HD void ct_k_write_##S(char *p, ct_k_value v)                                  \
    {                                                                                 \
        ct_k_store_##S(p, v.from_float ? ct_k_##S##_from_f64(v.f)                     \
                                       : ct_k_##S##_from_i64(v.i));                   \
    }
CT_FORALL_NUMERIC_DTYPES(X)
#undef X

/* The element at p of dtype src written at q as dtype dst (copy_'s cast;
 * the kernels call ct_k_write_S directly). */
CT_HD void
ct_k_cast(ct_dtype dst, char *q, ct_dtype src, const char *p)
{
    switch (dst) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_write_##S(q, ct_k_read(src, p));                                         \
        break;
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* The bytes of one element of d; 0 for a dtype without kernels. */
CT_HD int64_t
ct_k_itemsize(ct_dtype d)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        return (int64_t)sizeof(T);
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        return 0;
    }
}

/* --- strided operands ---------------------------------------------------------- */

/* Note [Kernel operand pack]
 * The operands of one launch (at most 4: where's out, cond, a, b), passed
 * by value as a kernel parameter (712 bytes): their common sizes and each one's strides in bytes, both
 * innermost dimension first, so that a loop over d = 0, 1, ... unrolls
 * with constant indices and reads the parameter directly instead of a
 * local copy.  `linear` says every operand is contiguous or a broadcast
 * scalar; then element i of operand a lies at data[a] + i * step[a]. */
#define CT_K_MAX_ARGS 4
typedef struct {
    int ndim;
    bool linear;
    char *data[CT_K_MAX_ARGS];
    int64_t step[CT_K_MAX_ARGS];
    int64_t sizes[CT_CUDA_MAX_DIMS];
    int64_t strides[CT_K_MAX_ARGS][CT_CUDA_MAX_DIMS];
} ct_k_pack;

/* Packs nargs views (the first is the output) into p and returns their
 * element count, or -1 when they do not fit the kernels (a dtype without
 * kernels, more than CT_CUDA_MAX_DIMS dims, sizes that differ). */
static inline int64_t
ct_k_pack_views(ct_k_pack *p, int nargs, const ct_cuda_view *const *views)
{
    int ndim = views[0]->ndim;
    int64_t numel = 1;

    if (nargs < 1 || nargs > CT_K_MAX_ARGS || ndim < 0 || ndim > CT_CUDA_MAX_DIMS) {
        return -1;
    }
    memset(p, 0, sizeof *p);
    p->ndim = ndim;
    p->linear = true;
    for (int d = 0; d < ndim; d++) {
        p->sizes[d] = views[0]->sizes[ndim - 1 - d];
        numel *= p->sizes[d];
    }
    for (int a = 0; a < nargs; a++) {
        const ct_cuda_view *v = views[a];
        int64_t item = ct_k_itemsize(v->dtype);
        int64_t expect = 1;   /* the contiguous stride of the dim */
        bool contiguous = true, scalar = true;
        if (item == 0 || v->ndim != ndim) {
            return -1;
        }
        p->data[a] = v->data;
        for (int d = 0; d < ndim; d++) {
            int64_t size = v->sizes[ndim - 1 - d], stride = v->strides[ndim - 1 - d];
            if (size != p->sizes[d]) {
                return -1;
            }
            p->strides[a][d] = stride * item;
            if (size != 1) {
                contiguous = contiguous && stride == expect;
                scalar = scalar && stride == 0;
            }
            expect *= size;
        }
        p->step[a] = contiguous ? item : 0;
        p->linear = p->linear && (contiguous || scalar);
    }
    return numel;
}

/* The byte offsets of element i (row-major over the sizes) in each of the
 * nargs operands.  The quotient and remainder take 32-bit division where
 * both sides fit, several times faster on the GPU than 64-bit. */
CT_HD void
ct_k_offsets(const ct_k_pack *p, int nargs, int64_t i, int64_t *off)
{
    for (int a = 0; a < nargs; a++) {
        off[a] = 0;
    }
    CT_UNROLL
    for (int d = 0; d < CT_CUDA_MAX_DIMS; d++) {
        if (d == p->ndim) {
            break;
        }
        int64_t size = p->sizes[d], r;
        if (d == p->ndim - 1) {
            r = i;
        }
        else if ((((uint64_t)i | (uint64_t)size) >> 32) == 0) {
            uint32_t q = (uint32_t)i / (uint32_t)size;
            r = i - (int64_t)q * size;
            i = q;
        }
        else {
            int64_t q = i / size;
            r = i - q * size;
            i = q;
        }
        for (int a = 0; a < nargs; a++) {
            off[a] += r * p->strides[a][d];
        }
    }
}

#endif
