/* aten/device_compose.h -- the helpers of the ops composed of device
 * kernels (device_nn.c, device_norm.c): each step's result is kept in a
 * `temps` list and released with it at the end.  Every helper passes NULL
 * (an earlier failure, error set) through, so a chain of them needs one
 * check at its end. */
#ifndef CTORCH_ATEN_DEVICE_COMPOSE_H
#define CTORCH_ATEN_DEVICE_COMPOSE_H

#include "aten/device.h"

#include <assert.h>

#include <ctorch/ops_reduce.h>

/* (batch norm's forward keeps about 50) */
#define TEMPS_MAX 96
typedef struct {
    ct_tensor *t[TEMPS_MAX];
    int n;
} temps;

static inline ct_tensor *
tmp(temps *s, ct_tensor *t)
{
    assert(s->n < TEMPS_MAX);
    if (t != NULL) {
        s->t[s->n++] = t;
    }
    return t;
}

/* t (owned by a temps list, or NULL) as a new reference for the caller. */
static inline ct_tensor *
give(ct_tensor *t)
{
    if (t != NULL) {
        ct_tensor_incref(t);
    }
    return t;
}

static inline void
temps_free(temps *s)
{
    for (int i = 0; i < s->n; i++) {
        ct_tensor_decref(s->t[i]);
    }
    s->n = 0;
}

/* The dtype PyTorch's CUDA kernels compute a dtype in. */
static inline ct_dtype
accumulate_dtype(ct_dtype dt)
{
    return dt == CT_DTYPE_FLOAT16 || dt == CT_DTYPE_BFLOAT16 ? CT_DTYPE_FLOAT32 : dt;
}

/* A 0-dim CPU number; binary ops take it to their device and dtype. */
static inline ct_tensor *
scalar(temps *s, ct_scalar v)
{
    return tmp(s, ct_scalar_tensor(v));
}

static inline ct_tensor *
bin(temps *s, ct_binary_op op, const ct_tensor *a, const ct_tensor *b)
{
    if (a == NULL || b == NULL) {
        return NULL;
    }
    return tmp(s, ct_binary(op, a, b, ct_scalar_int(1), NULL, CT_OUT_NEW));
}

/* c ? a : b per element */
static inline ct_tensor *
where3(temps *s, const ct_tensor *c, const ct_tensor *a, const ct_tensor *b)
{
    return c != NULL && a != NULL && b != NULL ? tmp(s, ct_where(c, a, b)) : NULL;
}

static inline ct_tensor *
un(temps *s, ct_unary_op op, const ct_tensor *t)
{
    return t != NULL ? tmp(s, ct_unary(op, t, NULL, CT_OUT_NEW)) : NULL;
}

static inline ct_tensor *
sum_over(temps *s, const ct_tensor *t, int nd, const int64_t *dims, bool keepdim)
{
    return t != NULL ? tmp(s, ct_sum(t, nd, dims, keepdim, CT_DTYPE_COUNT)) : NULL;
}

static inline ct_tensor *
in_dtype(temps *s, const ct_tensor *t, ct_dtype dt)
{
    return t != NULL ? tmp(s, ct_to_dtype(t, dt, false)) : NULL;
}

/* t reshaped (a view when its strides allow, else a device copy). */
static inline ct_tensor *
shaped(temps *s, const ct_tensor *t, int nd, const int64_t *sizes)
{
    return t != NULL ? tmp(s, ct_reshape(t, nd, sizes)) : NULL;
}

/* A composite's result: t (owned by s) in dt, contiguous (as the CPU and
 * PyTorch's kernels return theirs) and shaped sizes; a new reference the
 * caller owns. */
static inline ct_tensor *
result(temps *s, const ct_tensor *t, ct_dtype dt, int nd, const int64_t *sizes)
{
    ct_tensor *c = in_dtype(s, t, dt);
    c = c != NULL ? tmp(s, ct_contiguous(c)) : NULL;
    return c != NULL ? ct_reshape(c, nd, sizes) : NULL;
}

/* 0 .. n-1 as int64 on dev: a host arange copied over. */
static inline ct_tensor *
arange_on(temps *s, int64_t n, ct_device dev)
{
    ct_tensor *a = tmp(s, ct_arange(ct_scalar_int(0), ct_scalar_int(n), ct_scalar_int(1),
                                    CT_DTYPE_INT64));
    return a != NULL ? tmp(s, ct_to_device(a, dev)) : NULL;
}

/* src gathered along dim 1 through index, whose values are known to be in
 * range (no check). */
static inline ct_tensor *
gathered(temps *s, const ct_tensor *src, const ct_tensor *index)
{
    if (src == NULL || index == NULL) {
        return NULL;
    }
    ct_tensor *o = tmp(s, ct_empty(index->ndim, index->sizes, src->dtype,
                                   ct_tensor_device(src)));
    return o != NULL && ct__device_gather(o, src, index, 1) == 0 ? o : NULL;
}

/* The end of a composite of up to three results (a NULL slot: a result
 * not asked for): on error (rc < 0) the results made so far are released
 * and NULLed; rc passes through. */
static inline int
settle(int rc, ct_tensor **a, ct_tensor **b, ct_tensor **c)
{
    ct_tensor **r[3] = {a, b, c};
    for (int k = 0; rc < 0 && k < 3; k++) {
        if (r[k] != NULL) {
            ct_tensor_decref(*r[k]);
            *r[k] = NULL;
        }
    }
    return rc;
}

#endif
