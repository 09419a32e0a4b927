/* aten/cpu/cpu_impl.h -- symbols shared between the CPU kernel files. */
#ifndef CTORCH_ATEN_CPU_IMPL_H
#define CTORCH_ATEN_CPU_IMPL_H

#include <ctorch/ctorch.h>

/* Write n values (doubles when from_float, else int64s) to dst, converted
 * to dtype with c10/convert.h's rules; stride in bytes. */
void ct__write_converted(ct_dtype dtype, char *dst, int64_t stride, int64_t n,
                         const void *values, bool from_float);

#endif
