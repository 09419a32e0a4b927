/* aten/cuda/reduce_math.h -- the per-element steps of the device
 * reductions (aten/cuda/reduce.cu), in C that nvcc compiles for the device
 * and gcc for the host test (tests/c/test_cuda_kernel_math.c, which runs
 * them in the kernel's order against ct_sum, ct_amax, ...).
 *
 * A reduction keeps a ct_k_rstate per output: reduce.cu starts each lane
 * of an output's group at ct_k_reduce_init, folds its elements in with
 * ct_k_reduce_step, merges the lanes pairwise with ct_k_reduce_merge and
 * stores the result with ct_k_reduce_write.  `kind` says how sums and
 * products accumulate (backend.h: double for float64 outputs, float for
 * other floating ones, wrapping int64 for the rest) and whether max / min
 * compare values as doubles (floating inputs, all exact) or int64s.
 * max / min keep the position of their value, so that the merge of any
 * two lanes picks what the CPU's left-to-right scan picks: the first NaN,
 * else the first of equal extremes.
 */
#ifndef CTORCH_ATEN_CUDA_REDUCE_MATH_H
#define CTORCH_ATEN_CUDA_REDUCE_MATH_H

#include "aten/cuda/kernel_math.h"

typedef enum { CT_K_ACC_F64, CT_K_ACC_F32, CT_K_ACC_I64 } ct_k_acc_kind;

/* sum / product (f or i by kind), best value (f or i) with its position
 * idx (-1: nothing seen), any / all (i: 0 or 1) */
typedef struct {
    double f;
    int64_t i;
    int64_t idx;
} ct_k_rstate;

/* The kind of op for an input and output dtype (see above). */
CT_HD ct_k_acc_kind
ct_k_reduce_kind(ct_cuda_reduce_op op, ct_dtype in, ct_dtype out)
{
    ct_dtype by = op == CT_CUDA_REDUCE_SUM || op == CT_CUDA_REDUCE_PROD ? out : in;
    return by == CT_DTYPE_FLOAT64 ? CT_K_ACC_F64
           : ct_k_is_floating(by) ? (op == CT_CUDA_REDUCE_SUM || op == CT_CUDA_REDUCE_PROD
                                         ? CT_K_ACC_F32
                                         : CT_K_ACC_F64)
                                  : CT_K_ACC_I64;
}

/* The threads (lanes) that reduce one output of r elements: one for few,
 * a warp for some, a block of 256 for many.  The lanes fold strided
 * positions l, l + lanes, ... and merge pairwise (reduce.cu), an order
 * that sets the float sums' rounding. */
CT_HD int
ct_k_reduce_lanes(int64_t r)
{
    return r <= 32 ? 1 : r <= 2048 ? 32 : 256;
}

/* the identity: SUM 0, PROD 1, ANY false, ALL true, max / min empty */
CT_HD ct_k_rstate
ct_k_reduce_init(ct_cuda_reduce_op op)
{
    ct_k_rstate s;
    bool one = op == CT_CUDA_REDUCE_PROD || op == CT_CUDA_REDUCE_ALL;
    s.f = one ? 1.0 : 0.0;
    s.i = one ? 1 : 0;
    s.idx = -1;
    return s;
}

/* o taking over s for max (mx) or min: o is a NaN and s is not or comes
 * later, or neither is a NaN and o is strictly better, or equal and first */
CT_HD bool
ct_k_best_takes(bool mx, bool fl, const ct_k_rstate *s, const ct_k_rstate *o)
{
    if (o->idx < 0) {
        return false;
    }
    if (s->idx < 0) {
        return true;
    }
    bool first = o->idx < s->idx;
    if (fl) {
        bool ns = s->f != s->f, no = o->f != o->f;
        if (ns || no) {
            return no && (!ns || first);
        }
        return mx ? (o->f > s->f || (o->f == s->f && first))
                  : (o->f < s->f || (o->f == s->f && first));
    }
    return mx ? (o->i > s->i || (o->i == s->i && first))
              : (o->i < s->i || (o->i == s->i && first));
}

/* s and o merged (o may hold earlier or later positions than s) */
CT_HD ct_k_rstate
ct_k_reduce_merge(ct_cuda_reduce_op op, ct_k_acc_kind kind, ct_k_rstate s, ct_k_rstate o)
{
    switch (op) {
    case CT_CUDA_REDUCE_SUM:
        s.f = kind == CT_K_ACC_F32 ? (double)((float)s.f + (float)o.f) : s.f + o.f;
        s.i = (int64_t)((uint64_t)s.i + (uint64_t)o.i);
        break;
    case CT_CUDA_REDUCE_PROD:
        s.f = kind == CT_K_ACC_F32 ? (double)((float)s.f * (float)o.f) : s.f * o.f;
        s.i = (int64_t)((uint64_t)s.i * (uint64_t)o.i);
        break;
    case CT_CUDA_REDUCE_AMAX:
    case CT_CUDA_REDUCE_ARGMAX:
    case CT_CUDA_REDUCE_AMIN:
    case CT_CUDA_REDUCE_ARGMIN:
        if (ct_k_best_takes(op == CT_CUDA_REDUCE_AMAX || op == CT_CUDA_REDUCE_ARGMAX,
                            kind != CT_K_ACC_I64, &s, &o)) {
            s = o;
        }
        break;
    case CT_CUDA_REDUCE_ANY:
        s.i = s.i || o.i;
        break;
    case CT_CUDA_REDUCE_ALL:
        s.i = s.i && o.i;
        break;
    default:
        break;
    }
    return s;
}

/* s with element v (at position j of the reduced dims) folded in */
CT_HD ct_k_rstate
ct_k_reduce_step(ct_cuda_reduce_op op, ct_k_acc_kind kind, ct_k_rstate s, ct_k_value v,
                 int64_t j)
{
    ct_k_rstate o;
    o.idx = j;
    o.i = v.from_float ? ct_k_trunc_i64(v.f) : v.i;
    o.f = v.from_float ? v.f : (double)v.i;
    if (kind == CT_K_ACC_F32) {
        /* the element converted to float once, as the output dtype would */
        o.f = v.from_float ? (double)(float)v.f : (double)(float)v.i;
    }
    if (op == CT_CUDA_REDUCE_ANY || op == CT_CUDA_REDUCE_ALL) {
        o.i = v.from_float ? v.f != 0 : v.i != 0;
    }
    return ct_k_reduce_merge(op, kind, s, o);
}

/* v written at p as dtype d */
CT_HD void
ct_k_write(ct_dtype d, char *p, ct_k_value v)
{
    switch (d) {
#define X(E, T, S, A)                                                                 \
    case E:                                                                           \
        ct_k_write_##S(p, v);                                                         \
        break;
        CT_FORALL_NUMERIC_DTYPES(X)
#undef X
    default:
        break;
    }
}

/* The result of s stored at p as dtype out: argmax / argmin the position,
 * the others the value (as float, double or int64 by kind). */
CT_HD void
ct_k_reduce_write(ct_cuda_reduce_op op, ct_k_acc_kind kind, ct_dtype out, char *p,
                  ct_k_rstate s)
{
    ct_k_value v;
    v.f = s.f;
    v.i = s.i;
    v.from_float = kind != CT_K_ACC_I64;
    if (op == CT_CUDA_REDUCE_ARGMAX || op == CT_CUDA_REDUCE_ARGMIN) {
        v.i = s.idx;
        v.from_float = false;
    }
    else if (op == CT_CUDA_REDUCE_ANY || op == CT_CUDA_REDUCE_ALL) {
        v.from_float = false;
    }
    ct_k_write(out, p, v);
}

#endif
