/* ctorch/device.h -- where a storage lives.  Plain values, no state. */
#ifndef CTORCH_DEVICE_H
#define CTORCH_DEVICE_H

#include <stdbool.h>

/* Every device type torch.device accepts, in the order of PyTorch's
 * message; ctorch allocates only on cpu (and cuda when built with it). */
#define CT_FORALL_DEVICE_TYPES(X)           \
    X(CT_DEVICE_CPU, "cpu")                 \
    X(CT_DEVICE_CUDA, "cuda")               \
    X(CT_DEVICE_IPU, "ipu")                 \
    X(CT_DEVICE_XPU, "xpu")                 \
    X(CT_DEVICE_MKLDNN, "mkldnn")           \
    X(CT_DEVICE_OPENGL, "opengl")           \
    X(CT_DEVICE_OPENCL, "opencl")           \
    X(CT_DEVICE_IDEEP, "ideep")             \
    X(CT_DEVICE_HIP, "hip")                 \
    X(CT_DEVICE_VE, "ve")                   \
    X(CT_DEVICE_FPGA, "fpga")               \
    X(CT_DEVICE_ORT, "ort")                 \
    X(CT_DEVICE_XLA, "xla")                 \
    X(CT_DEVICE_LAZY, "lazy")               \
    X(CT_DEVICE_VULKAN, "vulkan")           \
    X(CT_DEVICE_MPS, "mps")                 \
    X(CT_DEVICE_META, "meta")               \
    X(CT_DEVICE_HPU, "hpu")                 \
    X(CT_DEVICE_PRIVATEUSEONE, "privateuseone")

typedef enum {
#define X(E, N) E,
    CT_FORALL_DEVICE_TYPES(X)
#undef X
    CT_DEVICE_TYPE_COUNT
} ct_device_type;

typedef struct {
    ct_device_type type;
    int index;                  /* -1: unspecified (cpu is always -1) */
} ct_device;

static inline ct_device
ct_device_cpu(void)
{
    ct_device d = {CT_DEVICE_CPU, -1};
    return d;
}

static inline bool
ct_device_eq(ct_device a, ct_device b)
{
    return a.type == b.type && a.index == b.index;
}

const char *ct_device_type_name(ct_device_type t);
/* Parse "cpu", "cuda", "cuda:1"; -1 with a RuntimeError on bad input. */
int ct_device_parse(const char *s, ct_device *out);

#endif
