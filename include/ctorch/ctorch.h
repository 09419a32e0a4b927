/* ctorch/ctorch.h -- the public C API of libctorch, in one include.
 *
 * libctorch is a PyTorch-compatible tensor engine in C11 with no Python
 * dependency.  Read in this order: dtype.h (the dtype list), error.h (how
 * failures are reported), storage.h and tensor.h (the data model and the
 * ownership rules), ops.h (what can be computed), random.h (generators
 * and sampling).
 *
 *     #include <ctorch/ctorch.h>
 *     int64_t n = 4;
 *     ct_tensor *x = ct_arange(ct_scalar_int(0), ct_scalar_int(4),
 *                              ct_scalar_int(1), CT_DTYPE_FLOAT32);
 *     ct_tensor *y = ct_mul(x, x);          // new reference, or NULL
 *     if (y == NULL)
 *         fprintf(stderr, "%s\n", ct_error_message());
 *     ct_tensor_decref(x);
 *     ct_tensor_decref(y);
 */
#ifndef CTORCH_CTORCH_H
#define CTORCH_CTORCH_H

#include "allocator.h"
#include "autograd.h"
#include "device.h"
#include "dlpack.h"
#include "dtype.h"
#include "error.h"
#include "ops.h"
#include "ops_families.h"
#include "random.h"
#include "scalar.h"
#include "shm.h"
#include "storage.h"
#include "tensor.h"

/* Threads used by kernels (OpenMP); set_num_threads(n <= 0) resets. */
int ct_get_num_threads(void);
void ct_set_num_threads(int n);

#endif
