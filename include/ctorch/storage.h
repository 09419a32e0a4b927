/* ctorch/storage.h -- a refcounted buffer.
 *
 * Ownership: ct_storage_new* return a new reference; ct_storage_decref
 * releases one (NULL is a no-op) and frees the memory when the last one
 * goes.  Memory comes either from an allocator (owned) or from outside
 * (a NumPy array, a DLPack tensor): then `deleter(ctx)` is called instead
 * of freeing, so the outside owner is released exactly once.
 * Refcounts are atomic; the data itself is not synchronised.
 */
#ifndef CTORCH_STORAGE_H
#define CTORCH_STORAGE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "allocator.h"
#include "device.h"

typedef void (*ct_deleter)(void *ctx);

enum {
    CT_STORAGE_RESIZABLE = 1u << 0,
    CT_STORAGE_SHARED = 1u << 1,
    CT_STORAGE_SMALL = 1u << 2,     /* a small block: see c10/storage.c */
    CT_STORAGE_PINNED = 1u << 3,    /* CPU memory page-locked by CUDA */
};

typedef struct ct_storage {
    atomic_long refcnt;
    char *data;
    size_t nbytes;
    ct_device device;
    const ct_allocator *allocator;  /* NULL for outside memory */
    ct_deleter deleter;             /* outside memory: releases ctx */
    void *deleter_ctx;
    atomic_long version;            /* bumped by in-place writes (autograd) */
    unsigned flags;
} ct_storage;

/* New storage of nbytes from the device's allocator (uninitialised). */
ct_storage *ct_storage_new(size_t nbytes, ct_device device);
/* New CPU storage of nbytes in page-locked memory from the CUDA part
 * (CT_STORAGE_PINNED); NULL with CUDA's error when it cannot start. */
ct_storage *ct_storage_new_pinned(size_t nbytes);
/* Wrap outside memory; deleter(ctx) runs when the last reference goes. */
ct_storage *ct_storage_new_external(void *data, size_t nbytes, ct_device device,
                                    ct_deleter deleter, void *ctx);
static inline void
ct_storage_incref(ct_storage *s)
{
    atomic_fetch_add_explicit(&s->refcnt, 1, memory_order_relaxed);
}
void ct_storage_decref(ct_storage *s);
/* Grow or shrink; only for resizable storages.  0 or -1. */
int ct_storage_resize(ct_storage *s, size_t nbytes);

#endif
