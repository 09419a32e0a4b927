/* ctorch/allocator.h -- pluggable memory for Storage (TH's THAllocator).
 *
 * An allocator is a vtable; Storage keeps a pointer to the one that made
 * its memory and gives the memory back through it.  The CPU allocator
 * keeps freed large blocks mapped in size buckets and hands them out again
 * (see Note [Caching CPU allocator] in c10/allocator.c), so steady-state
 * loops do not pay first-touch page faults.  It is thread-safe.
 *
 * Debug counters (live bytes, live tensors) are always kept; the env var
 * CT_FAIL_ALLOC_AFTER=N makes the N+1-th allocation fail (SQLite-style OOM
 * testing).
 */
#ifndef CTORCH_ALLOCATOR_H
#define CTORCH_ALLOCATOR_H

#include <stddef.h>
#include <stdint.h>

typedef struct ct_allocator {
    const char *name;
    void *(*alloc)(const struct ct_allocator *self, size_t nbytes);
    void (*free)(const struct ct_allocator *self, void *ptr, size_t nbytes);
} ct_allocator;

const ct_allocator *ct_cpu_allocator(void);
/* Give every cached block back to the system. */
void ct_cpu_allocator_empty_cache(void);
/* Bytes currently held in the cache (not in use). */
size_t ct_cpu_allocator_cached_bytes(void);

int64_t ct_live_bytes(void);
int64_t ct_live_tensors(void);
int64_t ct_live_storages(void);

#endif
