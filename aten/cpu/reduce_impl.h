/* aten/cpu/reduce_impl.h -- helpers shared by reduce.c and reduce_scan.c
 * (internal to libctorch).
 *
 * ct__reduce_read_f64 / _i64 read n values of `dtype` starting at src with
 * a byte stride into a buffer of doubles (any numeric dtype) or int64s
 * (integral and bool dtypes only), with c10/convert.h's rules.
 */
#ifndef CTORCH_ATEN_CPU_REDUCE_IMPL_H
#define CTORCH_ATEN_CPU_REDUCE_IMPL_H

#include <ctorch/ctorch.h>

void ct__reduce_read_f64(ct_dtype dtype, const char *src, int64_t stride, int64_t n,
                         double *dst);
void ct__reduce_read_i64(ct_dtype dtype, const char *src, int64_t stride, int64_t n,
                         int64_t *dst);
/* The "not implemented for 'Name'" check of ops that need a numeric,
 * non-quantized input; -1 with RuntimeError. */
int ct__reduce_check_numeric(const char *name, const ct_tensor *t);

#endif
