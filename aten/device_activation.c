/* aten/device_activation.c -- the integer forms of hardtanh and threshold
 * on a CUDA device, composed of comparisons and where as
 * aten/cpu/activation.c's I_ expressions are written: the parameters
 * truncate to the tensor's type.  The floating forms of every activation
 * run in the `activation` kernel (aten/cuda/activation.cu). */
#include "aten/device_compose.h"

#include <math.h>

#include <ctorch/ops_activation.h>

/* a parameter in x's type: truncated to an integer, then wrapped to the
 * type's width (the CPU's two static_casts) */
static ct_tensor *
param(temps *s, const ct_tensor *x, double p)
{
    ct_tensor *v = scalar(s, ct_scalar_int(isfinite(p) ? (int64_t)p : 0));
    return v != NULL ? in_dtype(s, v, x->dtype) : NULL;
}

ct_tensor *
ct__device_int_activation(ct_act_op op, const ct_tensor *x, const double *p)
{
    temps s = {.n = 0};
    ct_tensor *p0 = param(&s, x, p[0]), *p1 = param(&s, x, p[1]), *out;
    if (op == CT_ACT_HARDTANH) {
        /* x < min ? min (max when min > max) : x > max ? max : x, with the
         * wrapped values compared */
        ct_tensor *lo = where3(&s, bin(&s, CT_BINARY_GT, p0, p1), p1, p0);
        out = where3(&s, bin(&s, CT_BINARY_LT, x, p0), lo,
                     where3(&s, bin(&s, CT_BINARY_GT, x, p1), p1, x));
    }
    else {
        CT_ASSERT(op == CT_ACT_THRESHOLD);
        out = where3(&s, bin(&s, CT_BINARY_LE, x, p0), p1, x);
    }
    /* laid out and typed as x (a 0-dim number never widens it) */
    ct_tensor *r = out != NULL ? result(&s, out, x->dtype, x->ndim, x->sizes) : NULL;
    temps_free(&s);
    return r;
}
