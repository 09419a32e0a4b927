/* tests/c/test_dtype.c -- dtype traits, promotion, can_cast, and the half
 * and bfloat16 conversions. */
#include "tests/c/test.h"

#define U1 CT_DTYPE_UINT8
#define I1 CT_DTYPE_INT8
#define I2 CT_DTYPE_INT16
#define I4 CT_DTYPE_INT32
#define I8 CT_DTYPE_INT64
#define F2 CT_DTYPE_FLOAT16
#define F4 CT_DTYPE_FLOAT32
#define F8 CT_DTYPE_FLOAT64
#define B1 CT_DTYPE_BOOL
#define BF CT_DTYPE_BFLOAT16

TEST_IMPL(dtype_traits)
{
    CT_ASSERT_EQ_INT(CT_DTYPE_COUNT, 13);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(B1), 1);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(U1), 1);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(I2), 2);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(F2), 2);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(BF), 2);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(I4), 4);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(F4), 4);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(I8), 8);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(F8), 8);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(CT_DTYPE_QINT8), 1);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(CT_DTYPE_QUINT8), 1);
    CT_ASSERT_EQ_INT(ct_dtype_itemsize(CT_DTYPE_QINT32), 4);

    CT_ASSERT_STR_EQ(ct_dtype_table[F4].name, "float32");
    CT_ASSERT_STR_EQ(ct_dtype_table[F4].legacy, "Float");
    CT_ASSERT_STR_EQ(ct_dtype_table[I8].legacy, "Long");
    CT_ASSERT_STR_EQ(ct_dtype_table[U1].legacy, "Byte");
    CT_ASSERT_STR_EQ(ct_dtype_table[I1].legacy, "Char");
    CT_ASSERT_STR_EQ(ct_dtype_table[F2].legacy, "Half");
    CT_ASSERT_STR_EQ(ct_dtype_table[BF].name, "bfloat16");
    CT_ASSERT_STR_EQ(ct_dtype_table[CT_DTYPE_QUINT8].name, "quint8");

    CT_ASSERT_TRUE(ct_dtype_is_floating(F2) && ct_dtype_is_floating(BF));
    CT_ASSERT_TRUE(!ct_dtype_is_floating(I8) && !ct_dtype_is_floating(B1));
    CT_ASSERT_TRUE(ct_dtype_is_integral(B1, true));
    CT_ASSERT_TRUE(!ct_dtype_is_integral(B1, false));
    CT_ASSERT_TRUE(ct_dtype_is_integral(U1, false));
    CT_ASSERT_TRUE(!ct_dtype_is_integral(CT_DTYPE_QINT8, true));
    CT_ASSERT_TRUE(!ct_dtype_table[U1].is_signed && ct_dtype_table[I1].is_signed);
    CT_ASSERT_TRUE(ct_dtype_table[CT_DTYPE_QINT32].is_quantized);
    CT_ASSERT_EQ_INT(ct_dtype_table[CT_DTYPE_QINT8].underlying, I1);
    CT_ASSERT_EQ_INT(ct_dtype_table[CT_DTYPE_QUINT8].underlying, U1);
    CT_ASSERT_EQ_INT(ct_dtype_table[CT_DTYPE_QINT32].underlying, I4);

    CT_ASSERT_EQ_INT(ct_dtype_from_name("float32"), F4);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("float"), F4);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("double"), F8);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("half"), F2);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("long"), I8);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("int"), I4);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("short"), I2);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("bool"), B1);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("qint8"), CT_DTYPE_QINT8);
    CT_ASSERT_EQ_INT(ct_dtype_from_name("float31"), CT_DTYPE_COUNT);
    CT_ASSERT_EQ_INT(ct_dtype_from_name(""), CT_DTYPE_COUNT);
    CT_ASSERT_EQ_INT(ct_default_dtype(), F4);
}

/* torch.promote_types for the numeric dtypes, from c10's table. */
TEST_IMPL(dtype_promote_table)
{
    static const ct_dtype order[10] = {U1, I1, I2, I4, I8, F2, F4, F8, B1, BF};
    static const ct_dtype table[10][10] = {
        /*        u1  i1  i2  i4  i8  f2  f4  f8  b1  bf */
        /* u1 */ {U1, I2, I2, I4, I8, F2, F4, F8, U1, BF},
        /* i1 */ {I2, I1, I2, I4, I8, F2, F4, F8, I1, BF},
        /* i2 */ {I2, I2, I2, I4, I8, F2, F4, F8, I2, BF},
        /* i4 */ {I4, I4, I4, I4, I8, F2, F4, F8, I4, BF},
        /* i8 */ {I8, I8, I8, I8, I8, F2, F4, F8, I8, BF},
        /* f2 */ {F2, F2, F2, F2, F2, F2, F4, F8, F2, F4},
        /* f4 */ {F4, F4, F4, F4, F4, F4, F4, F8, F4, F4},
        /* f8 */ {F8, F8, F8, F8, F8, F8, F8, F8, F8, F8},
        /* b1 */ {U1, I1, I2, I4, I8, F2, F4, F8, B1, BF},
        /* bf */ {BF, BF, BF, BF, BF, F4, F4, F8, BF, BF},
    };
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            ct_dtype got = ct_dtype_promote(order[i], order[j]);
            if (got != table[i][j]) {
                ct_test_fail(__FILE__, __LINE__, "promote(%s, %s) = %s, want %s",
                             ct_dtype_table[order[i]].name,
                             ct_dtype_table[order[j]].name,
                             got < CT_DTYPE_COUNT ? ct_dtype_table[got].name : "?",
                             ct_dtype_table[table[i][j]].name);
                return;
            }
        }
    }
    /* the cases named in the design */
    CT_ASSERT_EQ_INT(ct_dtype_promote(U1, I1), I2);
    CT_ASSERT_EQ_INT(ct_dtype_promote(F2, BF), F4);
    CT_ASSERT_EQ_INT(ct_dtype_promote(I8, F2), F2);
    CT_ASSERT_EQ_INT(ct_dtype_promote(B1, I4), I4);
    /* quantized types do not promote, except with themselves */
    CT_ASSERT_EQ_INT(ct_dtype_promote(CT_DTYPE_QINT8, CT_DTYPE_QINT8), CT_DTYPE_QINT8);
    CT_ASSERT_EQ_INT(ct_dtype_promote(CT_DTYPE_QINT8, F4), CT_DTYPE_COUNT);
    CT_ASSERT_EQ_INT(ct_dtype_promote(B1, CT_DTYPE_QUINT8), CT_DTYPE_COUNT);
}

TEST_IMPL(dtype_can_cast)
{
    static const ct_dtype all[10] = {U1, I1, I2, I4, I8, F2, F4, F8, B1, BF};
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            ct_dtype from = all[i], to = all[j];
            bool want = !(ct_dtype_is_floating(from) && !ct_dtype_is_floating(to)) &&
                        !(from != B1 && to == B1);
            if (ct_dtype_can_cast(from, to) != want) {
                ct_test_fail(__FILE__, __LINE__, "can_cast(%s, %s) != %d",
                             ct_dtype_table[from].name, ct_dtype_table[to].name, want);
                return;
            }
        }
    }
    CT_ASSERT_TRUE(!ct_dtype_can_cast(F4, I4));
    CT_ASSERT_TRUE(ct_dtype_can_cast(I4, F4));
    CT_ASSERT_TRUE(ct_dtype_can_cast(F8, F2));
    CT_ASSERT_TRUE(ct_dtype_can_cast(I8, U1));
    CT_ASSERT_TRUE(ct_dtype_can_cast(B1, F2));
    CT_ASSERT_TRUE(!ct_dtype_can_cast(I4, B1));
    CT_ASSERT_TRUE(!ct_dtype_can_cast(BF, I1));
    CT_ASSERT_TRUE(ct_dtype_can_cast(B1, B1));
}

static uint16_t
f2h(float f)
{
    return ct_float_to_half(f).x;
}

static float
h2f(uint16_t x)
{
    ct_half h = {x};
    return ct_half_to_float(h);
}

TEST_IMPL(half_conversions)
{
    CT_ASSERT_EQ_INT(f2h(1.0f), 0x3c00);
    CT_ASSERT_EQ_INT(f2h(-2.0f), 0xc000);
    CT_ASSERT_EQ_INT(f2h(0.0f), 0x0000);
    CT_ASSERT_EQ_INT(f2h(-0.0f), 0x8000);
    CT_ASSERT_EQ_INT(f2h(65504.0f), 0x7bff);
    CT_ASSERT_EQ_INT(f2h(0.1f), 0x2e66);
    /* round to nearest even at the mantissa's last bit */
    CT_ASSERT_EQ_INT(f2h(1.0f + 0x1p-11f), 0x3c00);          /* tie, to even */
    CT_ASSERT_EQ_INT(f2h(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01); /* above tie */
    CT_ASSERT_EQ_INT(f2h(1.0f + 3 * 0x1p-11f), 0x3c02);      /* tie, up to even */
    CT_ASSERT_EQ_INT(f2h(2049.0f), 0x6800);                  /* 2048 */
    CT_ASSERT_EQ_INT(f2h(2051.0f), 0x6802);                  /* 2052 */
    /* overflow: 65520 is the tie between 65504 and 2^16 */
    CT_ASSERT_EQ_INT(f2h(65519.0f), 0x7bff);
    CT_ASSERT_EQ_INT(f2h(65520.0f), 0x7c00);
    CT_ASSERT_EQ_INT(f2h(-1e10f), 0xfc00);
    CT_ASSERT_EQ_INT(f2h(INFINITY), 0x7c00);
    CT_ASSERT_EQ_INT(f2h(-INFINITY), 0xfc00);
    uint16_t n = f2h(NAN);
    CT_ASSERT_TRUE((n & 0x7c00) == 0x7c00 && (n & 0x03ff) != 0);
    CT_ASSERT_TRUE(isnan(h2f(0x7e00)) && isnan(h2f(0xfc01)));
    CT_ASSERT_TRUE(isinf(h2f(0x7c00)) && h2f(0xfc00) < 0);
    /* subnormals: the grid is 2^-24 */
    CT_ASSERT_EQ_INT(f2h(0x1p-24f), 0x0001);
    CT_ASSERT_EQ_INT(f2h(-0x1p-24f), 0x8001);
    CT_ASSERT_EQ_INT(f2h(0x1p-25f), 0x0000);                 /* tie, to even 0 */
    CT_ASSERT_EQ_INT(f2h(0x1.000002p-25f), 0x0001);          /* above tie */
    CT_ASSERT_EQ_INT(f2h(3 * 0x1p-25f), 0x0002);             /* tie, to even 2 */
    CT_ASSERT_EQ_INT(f2h(1023 * 0x1p-24f), 0x03ff);          /* largest subnormal */
    CT_ASSERT_EQ_INT(f2h(0x1p-14f - 0x1p-25f), 0x0400);      /* tie, to min normal */
    CT_ASSERT_EQ_INT(f2h(0x1p-14f), 0x0400);
    CT_ASSERT_EQ_INT(f2h(1e-10f), 0x0000);
    CT_ASSERT_EQ_INT(f2h(-1e-10f), 0x8000);
    CT_ASSERT_NEAR(h2f(0x0001), 0x1p-24, 0);
    CT_ASSERT_NEAR(h2f(0x8001), -0x1p-24, 0);
    CT_ASSERT_NEAR(h2f(0x03ff), 1023 * 0x1p-24, 0);
    CT_ASSERT_NEAR(h2f(0x7bff), 65504.0, 0);
    CT_ASSERT_NEAR(h2f(0x3555), 0.333251953125, 0);
    CT_ASSERT_TRUE(h2f(0x8000) == 0 && signbit(h2f(0x8000)));
}

/* Every half converts to float and back to itself (NaNs stay NaN). */
TEST_IMPL(half_round_trip_all)
{
    for (uint32_t x = 0; x <= 0xffff; x++) {
        float f = h2f((uint16_t)x);
        bool is_nan = (x & 0x7c00) == 0x7c00 && (x & 0x03ff) != 0;
        if (is_nan) {
            CT_ASSERT_TRUE(isnan(f));
            uint16_t back = f2h(f);
            CT_ASSERT_TRUE((back & 0x7c00) == 0x7c00 && (back & 0x03ff) != 0);
            CT_ASSERT_EQ_INT(back & 0x8000, x & 0x8000);
        }
        else if (f2h(f) != x) {
            ct_test_fail(__FILE__, __LINE__, "half 0x%04x -> %g -> 0x%04x", x,
                         (double)f, f2h(f));
            return;
        }
    }
}

static uint16_t
f2bf(uint32_t bits)
{
    return ct_float_to_bfloat16(ct_bits_to_float(bits)).x;
}

TEST_IMPL(bfloat16_conversions)
{
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(1.0f).x, 0x3f80);
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(-2.0f).x, 0xc000);
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(0.1f).x, 0x3dcd);
    CT_ASSERT_EQ_INT(f2bf(0x3f808000u), 0x3f80);     /* tie, to even */
    CT_ASSERT_EQ_INT(f2bf(0x3f808001u), 0x3f81);     /* above tie */
    CT_ASSERT_EQ_INT(f2bf(0x3f818000u), 0x3f82);     /* tie, up to even */
    CT_ASSERT_EQ_INT(f2bf(0x3f817fffu), 0x3f81);     /* below tie */
    CT_ASSERT_EQ_INT(f2bf(0x00018000u), 0x0002);     /* subnormal tie */
    CT_ASSERT_EQ_INT(f2bf(0x00008000u), 0x0000);
    CT_ASSERT_EQ_INT(f2bf(0x80000000u), 0x8000);     /* -0 */
    CT_ASSERT_EQ_INT(f2bf(0x7f7fffffu), 0x7f80);     /* FLT_MAX rounds to inf */
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(INFINITY).x, 0x7f80);
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(-INFINITY).x, 0xff80);
    CT_ASSERT_EQ_INT(ct_float_to_bfloat16(NAN).x, 0x7fc0);
    CT_ASSERT_EQ_INT(f2bf(0xffc00001u), 0x7fc0);     /* any NaN: canonical */
    CT_ASSERT_NEAR(ct_bfloat16_to_float((ct_bfloat16){0x3dcd}), 0.10009765625, 0);
    CT_ASSERT_NEAR(ct_bfloat16_to_float((ct_bfloat16){0x0001}), 0x1p-133, 0);
    for (uint32_t x = 0; x <= 0xffff; x++) {
        ct_bfloat16 b = {(uint16_t)x};
        float f = ct_bfloat16_to_float(b);
        if (isnan(f)) {
            CT_ASSERT_TRUE((x & 0x7f80) == 0x7f80 && (x & 0x7f) != 0);
            continue;
        }
        if (ct_float_to_bfloat16(f).x != x) {
            ct_test_fail(__FILE__, __LINE__, "bfloat16 0x%04x -> %g -> 0x%04x", x,
                         (double)f, ct_float_to_bfloat16(f).x);
            return;
        }
    }
}
