/* aten/cpu/random_normal_f32.c -- the float32 Box-Muller transform of
 * PyTorch's AVX2 build, bit for bit (specs/rng.md 3.3).
 *
 * PyTorch turns blocks of 16 uniforms into normals with the 8-wide
 * Cephes-style log and sincos of avx_mathfun.h, compiled so that some of
 * its multiply-adds are fused.  Each step below is written as that build
 * computes it: fmaf() where it fuses, separate float operations where it
 * does not (the Makefile's -ffp-contract=off keeps those apart).  Written
 * as plain C over 8 lanes, the FMA clone vectorizes like the original
 * (the Makefile builds this file with -fno-math-errno: sqrtf's argument is
 * never negative, and its errno path would keep the loop scalar).
 */
#include "aten/random_impl.h"


#define SQRTHF 0.707106781186547524f
#define LOG_P0 7.0376836292E-2f
#define LOG_P1 -1.1514610310E-1f
#define LOG_P2 1.1676998740E-1f
#define LOG_P3 -1.2420140846E-1f
#define LOG_P4 1.4249322787E-1f
#define LOG_P5 -1.6668057665E-1f
#define LOG_P6 2.0000714765E-1f
#define LOG_P7 -2.4999993993E-1f
#define LOG_P8 3.3333331174E-1f
#define LOG_Q1 -2.12194440e-4f
#define LOG_Q2 0.693359375f
#define FOPI 1.27323954473516f
#define DP1 -0.78515625f
#define DP2 -2.4187564849853515625e-4f
#define DP3 -3.77489497744594108e-8f
#define SIN_P0 -1.9515295891E-4f
#define SIN_P1 8.3321608736E-3f
#define SIN_P2 -1.6666654611E-1f
#define COS_P0 2.443315711809948E-005f
#define COS_P1 -1.388731625493765E-003f
#define COS_P2 4.166664568298827E-002f
#define TWO_PI_F 6.28318548202514648f          /* f32(2 pi) */

/* Selections are written as the original's bit masks, branch-free, so
 * that the compiler vectorizes them (and +0 is added where it adds +0). */
static inline float
and_bits(float x, uint32_t mask)
{
    return ct_bits_to_float(ct_float_to_bits(x) & mask);
}

/* log(x) for a positive normal float: exponent and mantissa in
 * [sqrt(1/2), sqrt(2)), then a degree-8 polynomial. */
static inline float
log_ps(float x)
{
    uint32_t b = ct_float_to_bits(x);
    float e = (float)((int32_t)(b >> 23) - 127) + 1.0f;
    float m = ct_bits_to_float((b & 0x807FFFFFu) | 0x3F000000u);
    uint32_t small = 0u - (uint32_t)(m < SQRTHF);
    float t = m - 1.0f;
    e = e - and_bits(1.0f, small);
    t = t + and_bits(m, small);
    float z = t * t;
    float y = LOG_P0;
    y = fmaf(y, t, LOG_P1);
    y = fmaf(y, t, LOG_P2);
    y = fmaf(y, t, LOG_P3);
    y = fmaf(y, t, LOG_P4);
    y = fmaf(y, t, LOG_P5);
    y = fmaf(y, t, LOG_P6);
    y = fmaf(y, t, LOG_P7);
    y = fmaf(y, t, LOG_P8);
    y = y * t;
    y = fmaf(y, z, e * LOG_Q1);
    y = y - z * 0.5f;
    return fmaf(e, LOG_Q2, t + y);
}

/* sin and cos of x: reduction by multiples of pi/4 in three parts, one
 * polynomial for each, swapped and signed by the octant. */
static inline void
sincos_ps(float x, float *sinp, float *cosp)
{
    uint32_t xb = ct_float_to_bits(x);
    uint32_t sign_in = xb & 0x80000000u;
    float a = ct_bits_to_float(xb & 0x7FFFFFFFu);
    int32_t j = (int32_t)(a * FOPI);
    j = (j + 1) & ~1;
    float y = (float)j;
    float r = fmaf(y, DP1, a);
    r = fmaf(y, DP2, r);
    r = fmaf(y, DP3, r);
    uint32_t sin_sign = sign_in ^ ((uint32_t)(j & 4) << 29);
    uint32_t cos_sign = ((uint32_t)~(j - 2) & 4u) << 29;
    uint32_t sin_poly = 0u - (uint32_t)((j & 2) == 0);  /* sin from ps */
    float z = r * r;
    float pc = fmaf(fmaf(COS_P0, z, COS_P1), z, COS_P2);
    pc = pc * z;
    pc = fmaf(pc, z, -(z * 0.5f));
    pc = pc + 1.0f;
    float ps = fmaf(fmaf(SIN_P0, z, SIN_P1), z, SIN_P2);
    ps = ps * z;
    ps = fmaf(ps, r, r);
    float s2 = and_bits(ps, sin_poly), s1 = and_bits(pc, ~sin_poly);
    float s = s1 + s2, c = (pc - s1) + (ps - s2);
    *sinp = ct_bits_to_float(ct_float_to_bits(s) ^ sin_sign);
    *cosp = ct_bits_to_float(ct_float_to_bits(c) ^ cos_sign);
}

/* The radius comes from the first 8 uniforms of a block, the angle from
 * the last 8; cos goes to the first half, sin to the second. */
__attribute__((target_clones("arch=x86-64-v3", "default"))) void
ct__normal_f32_blocks(float *d, int64_t nblocks, float mean, float std)
{
    for (int64_t b = 0; b < nblocks; b++, d += 16) {
        for (int j = 0; j < 8; j++) {
            float u1 = 1.0f - d[j];
            float radius = sqrtf(-2.0f * log_ps(u1));
            float theta = TWO_PI_F * d[j + 8];
            float s, c;
            sincos_ps(theta, &s, &c);
            d[j] = fmaf(radius * c, std, mean);
            d[j + 8] = fmaf(radius * s, std, mean);
        }
    }
}
