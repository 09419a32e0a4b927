/* aten/cpu/vec_math.h -- exp and log of AVX2 vectors (8 floats, 4 doubles)
 * that round exactly as PyTorch's Vectorized<float / double>::exp() and
 * log() do on its AVX2 capability.  Those call SLEEF 3.5's u10 functions
 * (Sleef_expf8_u10, Sleef_logf8_u10, Sleef_expd4_u10, Sleef_logd4_u10 in
 * their FMA builds), so softmax and log_softmax agree with torch's bit for
 * bit only when their exp and log take the same steps.
 *
 * Note [SLEEF-equivalent exp and log]
 * exp(d): k = round(d / ln 2); s = d - k ln 2 by a two-constant Cody-Waite
 * reduction (each step one fused multiply-add); exp(s) by a minimax
 * polynomial evaluated with fused multiply-adds (Horner for float, Estrin
 * for double); the result scaled by 2^k as two powers of two, 2^(k >> 1)
 * and 2^(k - (k >> 1)), so that no intermediate overflows.  Below -104
 * (float) / -1000 (double) the result is 0, above the largest finite
 * argument +inf.
 * log(d): d = m 2^e with m in [0.75, 1.5) (subnormals pre-scaled by
 * 2^64); x = (m - 1) / (m + 1) in double-word arithmetic (a value carried
 * as an unevaluated sum hi + lo); log d = e ln 2 + 2x + x^3 P(x^2), the
 * first two terms and their sum in double-word, P by fused multiply-adds.
 * log(+inf) = +inf, log(0) = -inf, log(negative or NaN) = NaN.
 * The constants are SLEEF's, written as hex floats; every operation and
 * its association follow SLEEF's so each rounding is the same.
 *
 * Thread-safety: pure functions.  Callers are compiled for AVX2 and FMA
 * (CT_AVX2), check ct__cpu_has_avx2() first, and are built with
 * -ffp-contract=off (the Makefile's default): a multiply and an add that
 * the compiler fused would round differently from SLEEF.
 */
#ifndef CT_ATEN_CPU_VEC_MATH_H
#define CT_ATEN_CPU_VEC_MATH_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define CT_HAVE_AVX2_KERNELS 1
#include <immintrin.h>

#define CT_AVX2 __attribute__((target("avx2,fma")))

/* Whether this CPU runs the AVX2 + FMA kernels. */
static inline bool
ct__cpu_has_avx2(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* --- float ---------------------------------------------------------------- */

/* 2^h for the integers h of a vector, h within the normal exponents. */
static inline CT_AVX2 __m256
pow2i_f32x8(__m256i h)
{
    return _mm256_castsi256_ps(
        _mm256_add_epi32(_mm256_slli_epi32(h, 23), _mm256_set1_epi32(0x3f800000)));
}

static inline CT_AVX2 __m256
ct__exp_f32x8(__m256 d)
{
    __m256i q = _mm256_cvtps_epi32(_mm256_mul_ps(d, _mm256_set1_ps(0x1.715476p+0f)));
    __m256 k = _mm256_cvtepi32_ps(q);
    __m256 s = _mm256_fmadd_ps(k, _mm256_set1_ps(-0x1.62e4p-1f), d);
    s = _mm256_fmadd_ps(k, _mm256_set1_ps(-0x1.7f7d1cp-20f), s);
    __m256 u = _mm256_set1_ps(0x1.a057b4p-13f);
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0x1.6d2d92p-10f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0x1.11114cp-7f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0x1.5554f4p-5f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0x1.555556p-3f));
    u = _mm256_fmadd_ps(u, s, _mm256_set1_ps(0.5f));
    u = _mm256_fmadd_ps(_mm256_mul_ps(s, s), u, s);
    u = _mm256_add_ps(u, _mm256_set1_ps(1.0f));
    __m256i h = _mm256_srai_epi32(q, 1);
    u = _mm256_mul_ps(u, pow2i_f32x8(h));
    u = _mm256_mul_ps(u, pow2i_f32x8(_mm256_sub_epi32(q, h)));
    u = _mm256_andnot_ps(_mm256_cmp_ps(d, _mm256_set1_ps(-104.0f), _CMP_LT_OS), u);
    return _mm256_blendv_ps(u, _mm256_set1_ps(__builtin_inff()),
                            _mm256_cmp_ps(_mm256_set1_ps(100.0f), d, _CMP_LT_OS));
}

/* hi + lo = a + b, exactly (no ordering of |a|, |b| assumed). */
static inline CT_AVX2 void
two_sum_f32x8(__m256 a, __m256 b, __m256 *hi, __m256 *lo)
{
    __m256 s = _mm256_add_ps(a, b);
    __m256 v = _mm256_sub_ps(s, a);
    *lo = _mm256_add_ps(_mm256_sub_ps(a, _mm256_sub_ps(s, v)), _mm256_sub_ps(b, v));
    *hi = s;
}

static inline CT_AVX2 __m256
ct__log_f32x8(__m256 d)
{
    __m256 tiny = _mm256_cmp_ps(d, _mm256_set1_ps(0x1p-126f), _CMP_LT_OS);
    d = _mm256_blendv_ps(d, _mm256_mul_ps(d, _mm256_set1_ps(0x1p64f)), tiny);
    /* e: the exponent of d / 0.75; m = d 2^-e */
    __m256 d43 = _mm256_mul_ps(d, _mm256_set1_ps(0x1.555556p+0f));
    __m256i be = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(d43), 23),
                                  _mm256_set1_epi32(0xff));
    __m256 m = _mm256_castsi256_ps(_mm256_add_epi32(
        _mm256_sub_epi32(_mm256_castps_si256(d), _mm256_slli_epi32(be, 23)),
        _mm256_set1_epi32(0x3f800000)));
    __m256i bias = _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(_mm256_set1_epi32(-127)),
        _mm256_castsi256_ps(_mm256_set1_epi32(-191)), tiny));
    __m256 e = _mm256_cvtepi32_ps(_mm256_add_epi32(be, bias));
    /* e ln 2 in double-word */
    __m256 ln2h = _mm256_set1_ps(0x1.62e43p-1f);
    __m256 sh = _mm256_mul_ps(e, ln2h);
    __m256 sl = _mm256_fmadd_ps(e, _mm256_set1_ps(-0x1.05c61p-29f),
                                _mm256_fmsub_ps(e, ln2h, sh));
    /* x = (m - 1) / (m + 1) in double-word */
    __m256 one = _mm256_set1_ps(1.0f), nh, nl, dh, dl;
    two_sum_f32x8(_mm256_set1_ps(-1.0f), m, &nh, &nl);
    two_sum_f32x8(one, m, &dh, &dl);
    __m256 t = _mm256_div_ps(one, dh);
    __m256 xh = _mm256_mul_ps(nh, t);
    __m256 u = _mm256_fmsub_ps(t, nh, xh);
    __m256 w = _mm256_fnmadd_ps(dl, t, _mm256_fnmadd_ps(dh, t, one));
    __m256 xl = _mm256_fmadd_ps(xh, w, _mm256_fmadd_ps(nl, t, u));
    __m256 x2 = _mm256_mul_ps(xh, xh);
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(0x1.35feb8p-2f), x2,
                               _mm256_set1_ps(0x1.993394p-2f));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(0x1.5555b4p-1f));
    /* (sh, sl) + 2 (xh, xl), then + x^3 p */
    __m256 x2h = _mm256_add_ps(xh, xh), x2l = _mm256_add_ps(xl, xl);
    __m256 rh = _mm256_add_ps(sh, x2h);
    __m256 rl = _mm256_add_ps(_mm256_sub_ps(sh, rh), x2h);
    rl = _mm256_add_ps(_mm256_add_ps(rl, sl), x2l);
    __m256 f = _mm256_mul_ps(_mm256_mul_ps(x2, xh), p);
    __m256 r2 = _mm256_add_ps(rh, f);
    __m256 r = _mm256_add_ps(_mm256_add_ps(_mm256_sub_ps(rh, r2), f), rl);
    r = _mm256_add_ps(r2, r);
    __m256 zero = _mm256_setzero_ps(), inf = _mm256_set1_ps(__builtin_inff());
    r = _mm256_blendv_ps(r, inf, _mm256_cmp_ps(d, inf, _CMP_EQ_OQ));
    r = _mm256_blendv_ps(r, _mm256_set1_ps(__builtin_nanf("")),
                         _mm256_cmp_ps(zero, d, _CMP_NLE_US));
    return _mm256_blendv_ps(r, _mm256_set1_ps(-__builtin_inff()),
                            _mm256_cmp_ps(d, zero, _CMP_EQ_OQ));
}

/* --- double --------------------------------------------------------------- */

/* 2^h for the four int32 h, within the normal exponents. */
static inline CT_AVX2 __m256d
pow2i_f64x4(__m128i h)
{
    __m256i b = _mm256_cvtepi32_epi64(_mm_add_epi32(h, _mm_set1_epi32(0x3ff)));
    return _mm256_castsi256_pd(_mm256_slli_epi64(b, 52));
}

static inline CT_AVX2 __m256d
ct__exp_f64x4(__m256d d)
{
    __m256d k = _mm256_round_pd(_mm256_mul_pd(d, _mm256_set1_pd(0x1.71547652b82fep+0)),
                                _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m128i q = _mm256_cvtpd_epi32(k);
    __m256d s = _mm256_fmadd_pd(k, _mm256_set1_pd(-0x1.62e42fefa3000p-1), d);
    s = _mm256_fmadd_pd(k, _mm256_set1_pd(-0x1.3de6af278ece6p-42), s);
    __m256d s2 = _mm256_mul_pd(s, s), s4 = _mm256_mul_pd(s2, s2);
    __m256d s8 = _mm256_mul_pd(s4, s4);
#define P2(C1, C0) _mm256_fmadd_pd(s, _mm256_set1_pd(C1), _mm256_set1_pd(C0))
    __m256d p98 = P2(0x1.1e0c670afff06p-29, 0x1.af6c36f75740cp-26);
    __m256d p74 = _mm256_fmadd_pd(s2, P2(0x1.27e5d38a23654p-22, 0x1.71ddef633fb47p-19),
                                  P2(0x1.a01a0127f883ap-16, 0x1.a01a01b4421fdp-13));
    __m256d p30 = _mm256_fmadd_pd(s2, P2(0x1.6c16c16c3396bp-10, 0x1.111111110e7a5p-7),
                                  P2(0x1.55555555554f9p-5, 0x1.555555555555ep-3));
#undef P2
    __m256d u = _mm256_fmadd_pd(s8, p98, _mm256_fmadd_pd(s4, p74, p30));
    __m256d one = _mm256_set1_pd(1.0);
    u = _mm256_fmadd_pd(s, u, _mm256_set1_pd(0.5));
    u = _mm256_fmadd_pd(s, u, one);
    u = _mm256_fmadd_pd(s, u, one);
    __m128i h = _mm_srai_epi32(q, 1);
    u = _mm256_mul_pd(u, pow2i_f64x4(h));
    u = _mm256_mul_pd(u, pow2i_f64x4(_mm_sub_epi32(q, h)));
    __m256d big = _mm256_set1_pd(0x1.62e42fe102c83p+9);
    u = _mm256_blendv_pd(u, _mm256_set1_pd(__builtin_inf()),
                         _mm256_cmp_pd(big, d, _CMP_LT_OS));
    return _mm256_and_pd(_mm256_cmp_pd(d, _mm256_set1_pd(-1000.0), _CMP_NLT_US), u);
}

static inline CT_AVX2 void
two_sum_f64x4(__m256d a, __m256d b, __m256d *hi, __m256d *lo)
{
    __m256d s = _mm256_add_pd(a, b);
    __m256d v = _mm256_sub_pd(s, a);
    *lo = _mm256_add_pd(_mm256_sub_pd(a, _mm256_sub_pd(s, v)), _mm256_sub_pd(b, v));
    *hi = s;
}

static inline CT_AVX2 __m256d
ct__log_f64x4(__m256d d)
{
    __m256d tiny = _mm256_cmp_pd(d, _mm256_set1_pd(0x1p-1022), _CMP_LT_OS);
    d = _mm256_blendv_pd(d, _mm256_mul_pd(d, _mm256_set1_pd(0x1p64)), tiny);
    /* be: the biased exponent of d / 0.75 */
    __m256d d43 = _mm256_mul_pd(d, _mm256_set1_pd(0x1.5555555555555p+0));
    __m256i be64 = _mm256_and_si256(_mm256_srli_epi64(_mm256_castpd_si256(d43), 52),
                                    _mm256_set1_epi64x(0x7ff));
    __m256d m = _mm256_castsi256_pd(_mm256_add_epi64(
        _mm256_castpd_si256(d),
        _mm256_slli_epi64(_mm256_sub_epi64(_mm256_set1_epi64x(1023), be64), 52)));
    __m256i e64 = _mm256_add_epi64(
        be64, _mm256_castpd_si256(_mm256_blendv_pd(
                  _mm256_castsi256_pd(_mm256_set1_epi64x(-1023)),
                  _mm256_castsi256_pd(_mm256_set1_epi64x(-1087)), tiny)));
    /* the four exponents as int32, then double */
    __m256i low = _mm256_setr_epi32(0, 2, 4, 6, 0, 0, 0, 0);
    __m256i packed = _mm256_permutevar8x32_epi32(e64, low);
    __m256d e = _mm256_cvtepi32_pd(_mm256_castsi256_si128(packed));
    __m256d one = _mm256_set1_pd(1.0), nh, nl, dh, dl;
    two_sum_f64x4(_mm256_set1_pd(-1.0), m, &nh, &nl);
    two_sum_f64x4(one, m, &dh, &dl);
    __m256d t = _mm256_div_pd(one, dh);
    __m256d xh = _mm256_mul_pd(nh, t);
    __m256d u = _mm256_fmsub_pd(t, nh, xh);
    __m256d w = _mm256_fnmadd_pd(dl, t, _mm256_fnmadd_pd(dh, t, one));
    __m256d xl = _mm256_fmadd_pd(xh, w, _mm256_fmadd_pd(nl, t, u));
    __m256d x2 = _mm256_mul_pd(xh, xh), x4 = _mm256_mul_pd(x2, x2);
    __m256d x8 = _mm256_mul_pd(x4, x4);
#define P2(C1, C0) _mm256_fmadd_pd(x2, _mm256_set1_pd(C1), _mm256_set1_pd(C0))
    __m256d p64 = _mm256_fmadd_pd(x4, _mm256_set1_pd(0x1.39c4f5407567ep-3),
                                  P2(0x1.3872e67fe8e84p-3, 0x1.747353a506035p-3));
    __m256d p30 = _mm256_fmadd_pd(x4, P2(0x1.c71c0a65ecd8ep-3, 0x1.249249a68a245p-2),
                                  P2(0x1.99999998f92eap-2, 0x1.55555555557aep-1));
#undef P2
    __m256d p = _mm256_fmadd_pd(x8, p64, p30);
    __m256d ln2h = _mm256_set1_pd(0x1.62e42fefa39efp-1);
    __m256d sh = _mm256_mul_pd(e, ln2h);
    __m256d sl = _mm256_fmadd_pd(e, _mm256_set1_pd(0x1.abc9e3b39803fp-56),
                                 _mm256_fmsub_pd(e, ln2h, sh));
    __m256d x2h = _mm256_add_pd(xh, xh), x2l = _mm256_add_pd(xl, xl);
    __m256d rh = _mm256_add_pd(sh, x2h);
    __m256d rl = _mm256_add_pd(_mm256_sub_pd(sh, rh), x2h);
    rl = _mm256_add_pd(_mm256_add_pd(rl, sl), x2l);
    __m256d f = _mm256_mul_pd(_mm256_mul_pd(x2, xh), p);
    __m256d r2 = _mm256_add_pd(rh, f);
    __m256d r = _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(rh, r2), f), rl);
    r = _mm256_add_pd(r2, r);
    __m256d zero = _mm256_setzero_pd(), inf = _mm256_set1_pd(__builtin_inf());
    r = _mm256_blendv_pd(r, inf, _mm256_cmp_pd(d, inf, _CMP_EQ_OQ));
    r = _mm256_blendv_pd(r, _mm256_set1_pd(__builtin_nan("")),
                         _mm256_cmp_pd(zero, d, _CMP_NLE_US));
    return _mm256_blendv_pd(r, _mm256_set1_pd(-__builtin_inf()),
                            _mm256_cmp_pd(d, zero, _CMP_EQ_OQ));
}

#endif /* x86-64 GCC / clang */
#endif /* CT_ATEN_CPU_VEC_MATH_H */
