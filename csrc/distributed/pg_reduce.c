/* csrc/distributed/pg_reduce.c -- the reductions of the collectives.
 *
 * dst[i] = dst[i] op src[i], one loop per (dtype, op), stamped from the
 * dtype lists.  src is usually a shared-memory ring, so these loops run
 * once over bytes that arrive from a peer, with no copy before.  The loops
 * are built for x86-64-v3 beside the baseline and vectorize.
 *
 * Semantics follow gloo's: integer sums and products wrap; bool sums are
 * or and products and; MIN and MAX of floats propagate NaN (gloo's
 * std::min would keep or drop it depending on the order of arrival).
 */
#include "pg_impl.h"

#include "c10/convert.h"

#include <string.h>

#if defined(__x86_64__)
#define CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

#define REDUCE_LOOP(name, T, S, A, expr)                                      \
    CLONES static void name(void *dst_, const void *src_, size_t n)           \
    {                                                                         \
        T *restrict d = dst_;                                                 \
        const T *restrict s = src_;                                           \
        for (size_t i = 0; i < n; i++) {                                      \
            A a = ct__load_##S(d + i), b = ct__load_##S(s + i);               \
            ct__store_##S(d + i, (expr));                                     \
        }                                                                     \
    }

/* floating: NaN wins in min and max */
#define X(E, T, S, A)                                                         \
    REDUCE_LOOP(sum_##S, T, S, A, a + b)                                      \
    REDUCE_LOOP(prod_##S, T, S, A, a * b)                                     \
    REDUCE_LOOP(min_##S, T, S, A, (b < a || b != b) ? b : a)                  \
    REDUCE_LOOP(max_##S, T, S, A, (b > a || b != b) ? b : a)
CT_FORALL_FLOATING_DTYPES(X)
#undef X

#define X(E, T, S, A)                                                         \
    REDUCE_LOOP(sum_##S, T, S, A, a + b)                                      \
    REDUCE_LOOP(prod_##S, T, S, A, a * b)                                     \
    REDUCE_LOOP(min_##S, T, S, A, b < a ? b : a)                              \
    REDUCE_LOOP(max_##S, T, S, A, b > a ? b : a)                              \
    REDUCE_LOOP(band_##S, T, S, A, a & b)                                     \
    REDUCE_LOOP(bor_##S, T, S, A, a | b)                                      \
    REDUCE_LOOP(bxor_##S, T, S, A, a ^ b)
CT_FORALL_INTEGRAL_DTYPES(X)
#undef X

/* bool: sum and max are or, product and min are and */
REDUCE_LOOP(or_b8, bool, b8, bool, a | b)
REDUCE_LOOP(and_b8, bool, b8, bool, a & b)
REDUCE_LOOP(xor_b8, bool, b8, bool, a ^ b)

static const pg_reduce_fn reduce_table[CT_DTYPE_COUNT][CT_REDOP_COUNT] = {
#define X(E, T, S, A)                                                         \
    [E] = {[CT_REDOP_SUM] = sum_##S, [CT_REDOP_PRODUCT] = prod_##S,         \
           [CT_REDOP_MIN] = min_##S, [CT_REDOP_MAX] = max_##S},
    CT_FORALL_FLOATING_DTYPES(X)
#undef X
#define X(E, T, S, A)                                                         \
    [E] = {[CT_REDOP_SUM] = sum_##S, [CT_REDOP_PRODUCT] = prod_##S,         \
           [CT_REDOP_MIN] = min_##S, [CT_REDOP_MAX] = max_##S,              \
           [CT_REDOP_BAND] = band_##S, [CT_REDOP_BOR] = bor_##S,            \
           [CT_REDOP_BXOR] = bxor_##S},
    CT_FORALL_INTEGRAL_DTYPES(X)
#undef X
    [CT_DTYPE_BOOL] = {[CT_REDOP_SUM] = or_b8, [CT_REDOP_PRODUCT] = and_b8,
                       [CT_REDOP_MIN] = and_b8, [CT_REDOP_MAX] = or_b8,
                       [CT_REDOP_BAND] = and_b8, [CT_REDOP_BOR] = or_b8,
                       [CT_REDOP_BXOR] = xor_b8},
};

static const char *const reduce_names[CT_REDOP_COUNT] = {
#define X(N, V) [CT_REDOP_##N] = #N,
    CT_FORALL_REDOPS(X)
#undef X
};

const char *
pg_reduce_name(ct_redop op)
{
    return (unsigned)op < CT_REDOP_COUNT ? reduce_names[op] : "UNUSED";
}

pg_reduce_fn
pg_reduce_fn_for(ct_dtype d, ct_redop op)
{
    if ((unsigned)d >= CT_DTYPE_COUNT || (unsigned)op >= CT_REDOP_COUNT) {
        return NULL;
    }
    return reduce_table[d][op];
}

int
pg_reduce_check_for(const char *be, ct_dtype d, ct_redop op)
{
    if ((unsigned)op >= CT_REDOP_COUNT) {
        return ct_error(CT_ERR_RUNTIME, "Unhandled ReduceOp");
    }
    if (ct_dtype_table[d].is_quantized) {
        return ct_error(CT_ERR_RUNTIME, "Invalid scalar type");
    }
    if (strcmp(be, "NCCL") == 0) {
        /* NCCL reduces every dtype it carries with SUM, PRODUCT, MIN, MAX
         * and AVG (bool: SUM as MAX, PRODUCT as MIN); no bitwise ops */
        if (op == CT_REDOP_AVG && d == CT_DTYPE_BOOL) {
            return ct_error(CT_ERR_RUNTIME, "Cannot use ReduceOp.AVG with boolean inputs");
        }
        if (op == CT_REDOP_BAND || op == CT_REDOP_BOR || op == CT_REDOP_BXOR ||
            op == CT_REDOP_PREMUL_SUM) {
            return ct_error(CT_ERR_RUNTIME, "Cannot use ReduceOp.%s with NCCL",
                            reduce_names[op]);
        }
        return 0;
    }
    /* MPI's AVG is a SUM divided by the group size afterwards */
    bool avg = op == CT_REDOP_AVG && strcmp(be, "MPI") == 0;
    if (avg && !ct_dtype_table[d].is_floating) {
        return ct_error(CT_ERR_RUNTIME,
                        "Cannot use ReduceOp.AVG with non-floating dtype (MPI averages "
                        "by dividing the sum)");
    }
    if ((op == CT_REDOP_AVG && !avg) || op == CT_REDOP_PREMUL_SUM) {
        return ct_error(CT_ERR_RUNTIME, "Cannot use ReduceOp.%s with %s",
                        reduce_names[op], be);
    }
    if (reduce_table[d][avg ? CT_REDOP_SUM : op] == NULL) {
        const char *fmt = "Cannot use ReduceOp.%s with non-integral dtype";
        return ct_error(CT_ERR_RUNTIME, fmt, reduce_names[op]);
    }
    return 0;
}

int
pg_reduce_check(ct_dtype d, ct_redop op)
{
    return pg_reduce_check_for("Gloo", d, op);
}
