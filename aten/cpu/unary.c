/* aten/cpu/unary.c -- pointwise ops of one tensor (the family grows with
 * the ops issue; each is an expression and a table). */
#include "aten/cpu/loops.h"

#define X(E, T, S, A) CT_UNARY_LOOP(neg_##S, T, S, A, -a)
CT_FORALL_INTEGRAL_DTYPES(X)
CT_FORALL_FLOATING_DTYPES(X)
#undef X

static const ct_loop neg_loops[CT_DTYPE_COUNT] = {
#define X(E, T, S, A) [E] = neg_##S,
    CT_FORALL_INTEGRAL_DTYPES(X) CT_FORALL_FLOATING_DTYPES(X)
#undef X
};

/* Apply a unary loop table to t into a new tensor laid out like t. */
static ct_tensor *
unary_op(const char *name, const ct_loop *loops, const ct_tensor *t)
{
    if (loops[t->dtype] == NULL) {
        ct_error(CT_ERR_RUNTIME, "\"%s_cpu\" not implemented for '%s'", name,
                 ct_dtype_table[t->dtype].legacy);
        return NULL;
    }
    const ct_tensor *ins[1] = {t};
    ct_tensor *r = ct_iter_new_output(1, ins, t->ndim, t->sizes, t->dtype);
    if (r == NULL) {
        return NULL;
    }
    ct_tensor *ops[2] = {r, (ct_tensor *)t};
    if (ct_iter_run(2, ops, loops[t->dtype], NULL) < 0) {
        ct_tensor_decref(r);
        return NULL;
    }
    return r;
}

ct_tensor *
ct_neg(const ct_tensor *t)
{
    if (t->dtype == CT_DTYPE_BOOL) {
        ct_error(CT_ERR_RUNTIME, "Negation, the `-` operator, on a bool tensor is "
                 "not supported. If you are trying to invert a mask, use the `~` or "
                 "`logical_not()` operator instead.");
        return NULL;
    }
    return unary_op("neg", neg_loops, t);
}
