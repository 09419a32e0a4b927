/* aten/cpu/upsample_impl.h -- the index and weight tables conv_upsample.c
 * shares with the device's upsampling (aten/device_upsample.c). */
#ifndef CTORCH_ATEN_CPU_UPSAMPLE_IMPL_H
#define CTORCH_ATEN_CPU_UPSAMPLE_IMPL_H

#include <ctorch/ctorch.h>

/* One dim's source positions: i0/i1 and their weights l0/l1 for linear
 * (l0 = 1, l1 = 0 and i1 = i0 for nearest), per output index. */
typedef struct {
    int64_t *i0, *i1;
    double *l0, *l1;            /* rounded to the compute type already */
} axis_map;

typedef struct {
    int64_t planes, ih, iw, oh, ow;
    axis_map h, w;              /* h: identity (one row) for 1-D */
} up_geom;

/* aten/device_upsample.c: the forward (x: the input, nd dims) or the
 * backward (x: grad_out) of one upsampling on x's device, after
 * conv_upsample.c's checks, with its tables g; sizes are the result's.
 * A new reference, or NULL with the error set. */
ct_tensor *ct__device_upsample(const ct_tensor *x, bool nearest, bool backward,
                               const up_geom *g, int nd, const int64_t *sizes);

#endif
