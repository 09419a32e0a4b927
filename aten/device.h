/* aten/device.h -- the host's half of ops on device tensors (device.c).
 * The CPU ops branch here when an operand lives on a CUDA device. */
#ifndef CTORCH_ATEN_DEVICE_H
#define CTORCH_ATEN_DEVICE_H

#include <ctorch/ctorch.h>

static inline bool
ct__is_device(const ct_tensor *t)
{
    return t != NULL && ct_tensor_device(t).type != CT_DEVICE_CPU;
}

/* -1 with the NotImplementedError of an op that has no kernel for t's
 * device; CPU kernels call it before touching a device tensor's data. */
int ct__no_device_kernel(const ct_tensor *t);

/* 0, or -1 with ct__no_device_kernel's error when one of ts[0..n-1]
 * (NULLs skipped) lives on a device: the entry check of CPU-only ops. */
int ct__host_only(const ct_tensor *const *ts, int n);

/* 0, or -1 with PyTorch's two-devices error when t is not on dev. */
int ct__check_device(ct_device dev, const ct_tensor *t);

/* ct_copy_ with a device on either side, after its shape and dtype
 * checks, for numel > 0. */
int ct__device_copy_(ct_tensor *dst, const ct_tensor *src);
/* ct_fill_ of a device tensor, after its checks. */
int ct__device_fill_(ct_tensor *t, ct_scalar value);
/* ct_binary with a device operand, after its checks: the result in
 * common (or written to out), or NULL with the error set. */
ct_tensor *ct__device_binary(ct_binary_op op, const ct_tensor *a, const ct_tensor *b,
                             ct_scalar alpha, ct_tensor *out, ct_out_mode mode,
                             ct_dtype common, int ndim, const int64_t *shape);

#endif
