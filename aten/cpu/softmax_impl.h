/* aten/cpu/softmax_impl.h -- softmax kernels shared with reduce_scan.c
 * (aten/cpu/softmax.c; Note [Softmax order] there). */
#ifndef CTORCH_ATEN_CPU_SOFTMAX_IMPL_H
#define CTORCH_ATEN_CPU_SOFTMAX_IMPL_H

#include <stdbool.h>

#include <ctorch/ctorch.h>

/* softmax (log false) or log_softmax of `in` (float32, float64 or
 * bfloat16) along dim, already wrapped: a new contiguous tensor of in's
 * dtype, or NULL with the error set. */
ct_tensor *ct__softmax(const ct_tensor *in, int dim, bool log);

#endif
