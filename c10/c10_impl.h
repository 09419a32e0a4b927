/* c10/c10_impl.h -- symbols shared inside c10, not public. */
#ifndef CTORCH_C10_IMPL_H
#define CTORCH_C10_IMPL_H

#include <ctorch/allocator.h>

#include <stdbool.h>

void ct__count_tensor(int delta);
void ct__count_storage(int delta);
/* The CT_FAIL_ALLOC_AFTER countdown: true when this allocation must fail. */
bool ct__alloc_should_fail(void);

/* c10/cuda_loader.c: memory for a storage of nbytes on CUDA device
 * (NULL for 0 bytes) and the allocator that frees it; 0 or -1. */
int ct__cuda_storage_data(int device, size_t nbytes, void **data,
                          const ct_allocator **alloc);

#endif
