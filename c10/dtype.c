/* c10/dtype.c -- the dtype traits table, promotion and casting rules. */
#include <ctorch/dtype.h>
#include <ctorch/error.h>

#include <stdatomic.h>
#include <string.h>

/* X(ENUM, name, legacy, alias, is_floating, is_signed, is_quantized,
 *   underlying) -- one row per dtype, same order as CT_FORALL_DTYPES. */
#define CT_DTYPE_FACTS(X)                                                   \
    X(CT_DTYPE_UINT8, "uint8", "Byte", NULL, 0, 0, 0, CT_DTYPE_UINT8)       \
    X(CT_DTYPE_INT8, "int8", "Char", NULL, 0, 1, 0, CT_DTYPE_INT8)          \
    X(CT_DTYPE_INT16, "int16", "Short", "short", 0, 1, 0, CT_DTYPE_INT16)   \
    X(CT_DTYPE_INT32, "int32", "Int", "int", 0, 1, 0, CT_DTYPE_INT32)       \
    X(CT_DTYPE_INT64, "int64", "Long", "long", 0, 1, 0, CT_DTYPE_INT64)     \
    X(CT_DTYPE_FLOAT16, "float16", "Half", "half", 1, 1, 0, CT_DTYPE_FLOAT16) \
    X(CT_DTYPE_FLOAT32, "float32", "Float", "float", 1, 1, 0, CT_DTYPE_FLOAT32) \
    X(CT_DTYPE_FLOAT64, "float64", "Double", "double", 1, 1, 0, CT_DTYPE_FLOAT64) \
    X(CT_DTYPE_BOOL, "bool", "Bool", NULL, 0, 0, 0, CT_DTYPE_BOOL)          \
    X(CT_DTYPE_BFLOAT16, "bfloat16", "BFloat16", NULL, 1, 1, 0, CT_DTYPE_BFLOAT16) \
    X(CT_DTYPE_QINT8, "qint8", "QInt8", NULL, 0, 1, 1, CT_DTYPE_INT8)       \
    X(CT_DTYPE_QUINT8, "quint8", "QUInt8", NULL, 0, 0, 1, CT_DTYPE_UINT8)   \
    X(CT_DTYPE_QINT32, "qint32", "QInt32", NULL, 0, 1, 1, CT_DTYPE_INT32)

const size_t ct_dtype_itemsizes[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = sizeof(T),
    CT_FORALL_DTYPES(X)
#undef X
};

const ct_dtype_traits ct_dtype_table[CT_DTYPE_COUNT] = {
#define X(E, N, L, AL, F, SG, Q, U) [E] = {N, L, AL, F, SG, Q, U},
    CT_DTYPE_FACTS(X)
#undef X
};

#define X(E, N, L, AL, F, SG, Q, U) +1
_Static_assert(0 CT_DTYPE_FACTS(X) == CT_DTYPE_COUNT,
               "CT_DTYPE_FACTS must list every dtype");
#undef X


/* Note [Type promotion]: torch.promote_types.  Bool yields to anything;
 * floating beats integral; two floats take the wider, except that float16
 * with bfloat16 meets in float32; two integers of the same signedness take
 * the wider; uint8 with a signed type takes the signed one, widened to at
 * least int16. */
ct_dtype
ct_dtype_promote(ct_dtype a, ct_dtype b)
{
    const ct_dtype_traits *ta = &ct_dtype_table[a], *tb = &ct_dtype_table[b];

    if (ta->is_quantized || tb->is_quantized) {
        return a == b ? a : CT_DTYPE_COUNT;
    }
    if (a == b || b == CT_DTYPE_BOOL) {
        return a;
    }
    if (a == CT_DTYPE_BOOL) {
        return b;
    }
    if (ta->is_floating && tb->is_floating) {
        if (ct_dtype_itemsizes[a] == ct_dtype_itemsizes[b]) {
            return CT_DTYPE_FLOAT32;        /* float16 with bfloat16 */
        }
        return ct_dtype_itemsizes[a] > ct_dtype_itemsizes[b] ? a : b;
    }
    if (ta->is_floating || tb->is_floating) {
        return ta->is_floating ? a : b;
    }
    if (ta->is_signed == tb->is_signed) {
        return ct_dtype_itemsizes[a] > ct_dtype_itemsizes[b] ? a : b;
    }
    /* uint8 with a signed integer */
    ct_dtype s = ta->is_signed ? a : b;
    return s == CT_DTYPE_INT8 ? CT_DTYPE_INT16 : s;
}

bool
ct_dtype_can_cast(ct_dtype from, ct_dtype to)
{
    if (ct_dtype_table[from].is_floating && ct_dtype_is_integral(to, true)) {
        return false;
    }
    if (from != CT_DTYPE_BOOL && to == CT_DTYPE_BOOL) {
        return false;
    }
    return true;
}

ct_dtype
ct_dtype_from_name(const char *name)
{
    for (int i = 0; i < CT_DTYPE_COUNT; i++) {
        const ct_dtype_traits *t = &ct_dtype_table[i];
        if (strcmp(name, t->name) == 0 ||
            (t->alias != NULL && strcmp(name, t->alias) == 0)) {
            return (ct_dtype)i;
        }
    }
    return CT_DTYPE_COUNT;
}

static _Atomic ct_dtype default_dtype = CT_DTYPE_FLOAT32;

ct_dtype
ct_default_dtype(void)
{
    return atomic_load_explicit(&default_dtype, memory_order_relaxed);
}

int
ct_set_default_dtype(ct_dtype d)
{
    if (d != CT_DTYPE_FLOAT32 && d != CT_DTYPE_FLOAT64) {
        /* torch 1.13 accepts only float32/float64 (and half on some paths) */
        if (!ct_dtype_is_floating(d)) {
            return ct_error(CT_ERR_TYPE, "only floating-point types are "
                            "supported as the default type");
        }
    }
    atomic_store_explicit(&default_dtype, d, memory_order_relaxed);
    return 0;
}
