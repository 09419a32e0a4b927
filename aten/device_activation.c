/* aten/device_activation.c -- the piecewise-linear parametrized
 * activations on a CUDA device (leaky_relu, hardtanh, threshold), forward
 * and first and second derivatives, composed of comparisons, where and
 * mul as aten/cpu/activation.c's expressions are written (NaN passes
 * where it does there; an integer tensor's parameters truncate).  The
 * smooth ones (elu, softplus, gelu's tanh form, ...) want a device kernel
 * sharing the CPU's expressions and still refuse. */
#include "aten/device_compose.h"

#include <math.h>

#include <ctorch/ops_activation.h>

/* op's parameter k as a number of x's kind */
static ct_tensor *
param(temps *s, const ct_tensor *x, double p)
{
    return scalar(s, ct_dtype_is_floating(x->dtype)
                         ? ct_scalar_float(p)
                         : ct_scalar_int(isfinite(p) ? (int64_t)p : 0));
}

static ct_tensor *
pick(temps *s, ct_tensor *cond, const ct_tensor *a, const ct_tensor *b)
{
    return cond != NULL && a != NULL && b != NULL ? tmp(s, ct_where(cond, a, b)) : NULL;
}

ct_tensor *
ct__device_activation(ct_act_op op, int order, const ct_tensor *grad, const ct_tensor *x,
                      const double *p)
{
    if (op != CT_ACT_LEAKY_RELU && op != CT_ACT_HARDTANH && op != CT_ACT_THRESHOLD) {
        ct__no_device_kernel(x);
        return NULL;
    }
    temps s = {.n = 0};
    ct_tensor *r = NULL;
    if (order == 2) {
        /* their second derivatives are 0 */
        r = ct_zeros_on(x->ndim, x->sizes, x->dtype, ct_tensor_device(x));
        goto done;
    }
    /* computed in float for the 16-bit floats, as the CPU's loops do (a
     * slope rounded to half first would round the product differently) */
    ct_dtype cd = x->dtype == CT_DTYPE_FLOAT16 || x->dtype == CT_DTYPE_BFLOAT16
                      ? CT_DTYPE_FLOAT32 : x->dtype;
    const ct_tensor *v = in_dtype(&s, order == 1 ? grad : x, cd);
    if (v == NULL) {
        goto done;
    }
    ct_tensor *p0 = param(&s, x, p[0]), *p1 = param(&s, x, p[1]);
    ct_tensor *zero = param(&s, x, 0), *out = NULL;
    switch (op) {
    case CT_ACT_LEAKY_RELU:
        /* x > 0 ? v : v * slope, v the input or the gradient */
        out = pick(&s, bin(&s, CT_BINARY_GT, x, zero), v, bin(&s, CT_BINARY_MUL, v, p0));
        break;
    case CT_ACT_HARDTANH:
        if (order == 0) {
            ct_tensor *lo = p[0] > p[1] ? p1 : p0;
            out = pick(&s, bin(&s, CT_BINARY_LT, x, p0), lo,
                       pick(&s, bin(&s, CT_BINARY_GT, x, p1), p1, v));
        }
        else {
            out = pick(&s, bin(&s, CT_BINARY_LE, x, p0), zero,
                       pick(&s, bin(&s, CT_BINARY_GE, x, p1), zero, v));
        }
        break;
    default:        /* threshold: x <= threshold ? value : x (gradient 0 there) */
        out = pick(&s, bin(&s, CT_BINARY_LE, x, p0), order == 0 ? p1 : zero, v);
        break;
    }
    /* laid out and typed as x (a 0-dim number never widens it) */
    r = out != NULL ? result(&s, out, x->dtype, x->ndim, x->sizes) : NULL;
done:
    temps_free(&s);
    return r;
}
