/* c10/c10_impl.h -- symbols shared inside c10, not public. */
#ifndef CTORCH_C10_IMPL_H
#define CTORCH_C10_IMPL_H

#include <stdbool.h>

void ct__count_tensor(int delta);
void ct__count_storage(int delta);
/* The CT_FAIL_ALLOC_AFTER countdown: true when this allocation must fail. */
bool ct__alloc_should_fail(void);

#endif
