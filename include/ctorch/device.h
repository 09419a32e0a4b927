/* ctorch/device.h -- where a storage lives.  Plain values, no state. */
#ifndef CTORCH_DEVICE_H
#define CTORCH_DEVICE_H

#include <stdbool.h>

#define CT_FORALL_DEVICE_TYPES(X) \
    X(CT_DEVICE_CPU, "cpu")       \
    X(CT_DEVICE_CUDA, "cuda")

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
