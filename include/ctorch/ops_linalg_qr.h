/* ctorch/ops_linalg_qr.h -- the QR decomposition (aten/cpu/linalg_qr.c),
 * used by nn.init.orthogonal_ and torch.linalg.qr.
 *
 * Conventions of ops.h: results are new references; -1 with the ct error
 * set on failure.  Thread-safety: as every op.
 */
#ifndef CTORCH_OPS_LINALG_QR_H
#define CTORCH_OPS_LINALG_QR_H

#include "tensor.h"

/* QR of a float32 / float64 matrix or batch of matrices (LAPACK geqrf +
 * orgqr).  mode 0 'reduced' (Q m x k, R k x n, k = min(m, n)), 1
 * 'complete' (Q m x m, R m x n), 2 'r' (R only: *q is left NULL).
 * 0 with *q, *r new references, or -1 with both NULL. */
int ct_linalg_qr(const ct_tensor *A, int mode, ct_tensor **q, ct_tensor **r);

#endif
