/* aten/cpu/pool_impl.h -- the window geometry pool.c shares with the
 * device's pooling (aten/device_pool.c): torch's adaptive window bounds
 * and avg_pool2d's clipped windows and divisors. */
#ifndef CTORCH_ATEN_CPU_POOL_IMPL_H
#define CTORCH_ATEN_CPU_POOL_IMPL_H

#include <ctorch/ctorch.h>

/* The adaptive window of output o of out over in: [start, end). */
static inline int64_t
start_index(int64_t o, int64_t out, int64_t in)
{
    return (o * in) / out;
}

static inline int64_t
end_index(int64_t o, int64_t out, int64_t in)
{
    return ((o + 1) * in + out - 1) / out;
}

/* torch's avg_pool2d window: the window clipped to input + padding gives
 * the count_include_pad divisor, then clipped to the input the summed
 * range; div 0 marks an empty window. */
static inline void
avg_window(const ct_pool_params *p, int64_t oy, int64_t ox, int64_t IH, int64_t IW,
           int64_t *y0, int64_t *y1, int64_t *x0, int64_t *x1, int64_t *div)
{
    int64_t hs = oy * p->stride[0] - p->padding[0];
    int64_t ws = ox * p->stride[1] - p->padding[1];
    int64_t he = hs + p->kernel[0], we = ws + p->kernel[1];
    he = he < IH + p->padding[0] ? he : IH + p->padding[0];
    we = we < IW + p->padding[1] ? we : IW + p->padding[1];
    int64_t pool_size = (he - hs) * (we - ws);
    hs = hs > 0 ? hs : 0;
    ws = ws > 0 ? ws : 0;
    he = he < IH ? he : IH;
    we = we < IW ? we : IW;
    *y0 = hs, *y1 = he, *x0 = ws, *x1 = we;
    if (hs >= he || ws >= we) {
        *div = 0;
        return;
    }
    if (p->divisor_override != 0) {
        *div = p->divisor_override;
    }
    else if (p->count_include_pad) {
        *div = pool_size;
    }
    else {
        *div = (he - hs) * (we - ws);
    }
}

#endif
