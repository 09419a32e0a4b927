/* aten/device_reduce.c -- the reductions without a device kernel of their
 * own, composed of device kernels as the CPU's reduce.c computes them:
 * var / std (and the mean var_mean returns) as two passes in float64, and
 * logsumexp as max + log(sum(exp(x - max))) in float64 with the max taken
 * as 0 where it is not finite, which gives the CPU's -inf for rows of
 * -inf (or no elements), +inf for a row with +inf and NaN for one with
 * NaN. */
#include "aten/device_compose.h"

#include <math.h>

/* The reduced dims of in (mask) as a list, the number of elements each
 * output reduces over, and the output's shape. */
static int
reduced_dims(const ct_tensor *in, const bool *mask, bool keepdim, int64_t *dims,
             int64_t *count, int64_t *oshape, int *ond)
{
    int nd = 0;
    *count = 1;
    *ond = 0;
    for (int d = 0; d < in->ndim; d++) {
        if (mask[d]) {
            dims[nd++] = d;
            *count *= in->sizes[d];
            if (keepdim) {
                oshape[(*ond)++] = 1;
            }
        }
        else {
            oshape[(*ond)++] = in->sizes[d];
        }
    }
    return nd;
}

ct_tensor *
ct__device_var(const ct_tensor *in, const bool *mask, bool keepdim, double correction,
               bool take_sqrt, ct_dtype odt, ct_tensor **mean)
{
    int64_t dims[CT_MAX_DIMS], oshape[CT_MAX_DIMS], n;
    int ond;
    int nd = reduced_dims(in, mask, keepdim, dims, &n, oshape, &ond);
    temps s = {.n = 0};
    ct_tensor *x = in_dtype(&s, in, CT_DTYPE_FLOAT64);
    ct_tensor *m = x != NULL ? tmp(&s, ct_mean(x, nd, dims, true, CT_DTYPE_COUNT)) : NULL;
    ct_tensor *d = bin(&s, CT_BINARY_SUB, x, m);
    ct_tensor *m2 = sum_over(&s, bin(&s, CT_BINARY_MUL, d, d), nd, dims, true);
    double div = (double)n - correction;
    ct_tensor *v = bin(&s, CT_BINARY_DIV, m2, scalar(&s, ct_scalar_float(div > 0 ? div : 0)));
    if (take_sqrt) {
        v = un(&s, CT_UNARY_SQRT, v);
    }
    ct_tensor *r = v != NULL ? result(&s, v, odt, ond, oshape) : NULL;
    if (r != NULL && mean != NULL) {
        *mean = result(&s, m, odt, ond, oshape);
        if (*mean == NULL) {
            ct_tensor_decref(r);
            r = NULL;
        }
    }
    temps_free(&s);
    return r;
}

ct_tensor *
ct__device_logsumexp(const ct_tensor *in, const bool *mask, bool keepdim, ct_dtype odt)
{
    int64_t dims[CT_MAX_DIMS], oshape[CT_MAX_DIMS], n;
    int ond;
    int nd = reduced_dims(in, mask, keepdim, dims, &n, oshape, &ond);
    temps s = {.n = 0};
    ct_tensor *x = in_dtype(&s, in, CT_DTYPE_FLOAT64), *r;
    if (n == 0 || in->numel == 0) {
        /* sum of nothing, 0, plus -inf */
        r = bin(&s, CT_BINARY_ADD, sum_over(&s, x, nd, dims, true),
                scalar(&s, ct_scalar_float(-INFINITY)));
    }
    else {
        ct_tensor *m = x != NULL ? tmp(&s, ct_amax(x, nd, dims, true)) : NULL;
        ct_tensor *mz = m != NULL ? tmp(&s, ct_where(un(&s, CT_UNARY_ISFINITE, m), m,
                                                    scalar(&s, ct_scalar_float(0))))
                                  : NULL;
        ct_tensor *e = un(&s, CT_UNARY_EXP, bin(&s, CT_BINARY_SUB, x, mz));
        r = bin(&s, CT_BINARY_ADD, un(&s, CT_UNARY_LOG, sum_over(&s, e, nd, dims, true)), mz);
    }
    r = r != NULL ? result(&s, r, odt, ond, oshape) : NULL;
    temps_free(&s);
    return r;
}
