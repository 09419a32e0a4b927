/* c10/c10_impl.h -- symbols shared inside c10, not public. */
#ifndef CTORCH_C10_IMPL_H
#define CTORCH_C10_IMPL_H

void ct__count_tensor(int delta);
void ct__count_storage(int delta);

#endif
