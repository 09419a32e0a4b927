/* ctorch/dlpack.h -- DLPack exchange (the ABI of dlpack.h v0.x, declared
 * here so libctorch needs no outside header).
 *
 * ct_tensor_to_dlpack returns a new DLManagedTensor that holds a reference
 * to the tensor; its deleter releases it.  ct_tensor_from_dlpack wraps the
 * producer's memory without copying and calls the producer's deleter when
 * the last tensor over it dies.
 */
#ifndef CTORCH_DLPACK_H
#define CTORCH_DLPACK_H

#include <stdint.h>

#include "tensor.h"

typedef enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3 } DLDeviceType;
typedef enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4, kDLBool = 6 } DLDataTypeCode;

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

DLManagedTensor *ct_tensor_to_dlpack(ct_tensor *t);
/* Takes over `m` on success (its deleter runs when the tensor dies); on
 * failure `m` is left to the caller. */
ct_tensor *ct_tensor_from_dlpack(DLManagedTensor *m);

#endif
