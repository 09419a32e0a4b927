/* c10/storage.c -- refcounted buffers.
 *
 * Note [Small storages]
 * A 1-element op would otherwise make three allocations (tensor, storage,
 * data).  A storage of up to INLINE_BYTES is one block holding both the
 * struct and the data (flag CT_STORAGE_SMALL), and freed blocks wait on a
 * per-thread free list for the next small tensor.  If such a storage is
 * later resized beyond the block, its data moves to the CPU allocator and
 * the block stays the struct.
 */
#include <ctorch/cuda.h>
#include <ctorch/error.h>
#include <ctorch/storage.h>

#include <stdlib.h>
#include <string.h>

#include "c10_impl.h"

#define INLINE_BYTES 64
#define FREE_LIST_MAX 64

typedef struct {
    ct_storage s;
    _Alignas(64) char data[INLINE_BYTES];
} small_block;

static _Thread_local small_block *free_list[FREE_LIST_MAX];
static _Thread_local int free_count;

/* A zeroed struct with one reference; small: inside a small block. */
static ct_storage *
storage_shell(ct_device device, bool small)
{
    ct_storage *s;
    if (small) {
        small_block *b = free_count > 0 ? free_list[--free_count]
                                        : aligned_alloc(64, sizeof(small_block));
        s = b ? &b->s : NULL;
    }
    else {
        s = malloc(sizeof *s);
    }
    if (s == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a storage");
        return NULL;
    }
    memset(s, 0, sizeof *s);
    atomic_init(&s->refcnt, 1);
    atomic_init(&s->version, 0);
    s->device = device;
    s->flags = small ? CT_STORAGE_SMALL : 0;
    ct__count_storage(1);
    return s;
}

static void
shell_free(ct_storage *s)
{
    ct__count_storage(-1);
    if (!(s->flags & CT_STORAGE_SMALL)) {
        free(s);
    }
    else if (free_count < FREE_LIST_MAX) {
        free_list[free_count++] = (small_block *)s;
    }
    else {
        free(s);
    }
}

static bool
data_is_inline(const ct_storage *s)
{
    return (s->flags & CT_STORAGE_SMALL) && s->data == ((small_block *)s)->data;
}

/* A storage on a CUDA device: "cuda" alone means the current one. */
static ct_storage *
cuda_storage_new(size_t nbytes, ct_device device)
{
    if (device.index < 0 && ct_cuda_current_device(&device.index) < 0) {
        return NULL;
    }
    void *data;
    const ct_allocator *alloc;
    if (ct__cuda_storage_data(device.index, nbytes, &data, &alloc) < 0) {
        return NULL;
    }
    ct_storage *s = storage_shell(device, false);
    if (s == NULL) {
        alloc->free(alloc, data, nbytes);
        return NULL;
    }
    s->allocator = alloc;
    s->data = data;
    s->nbytes = nbytes;
    s->flags |= CT_STORAGE_RESIZABLE;
    return s;
}

ct_storage *
ct_storage_new(size_t nbytes, ct_device device)
{
    if (device.type == CT_DEVICE_CUDA) {
        return cuda_storage_new(nbytes, device);
    }
    if (device.type != CT_DEVICE_CPU) {
        ct_error(CT_ERR_RUNTIME, "ctorch cannot allocate on device '%s'",
                 ct_device_type_name(device.type));
        return NULL;
    }
    bool small = nbytes <= INLINE_BYTES;
    if (small && ct__alloc_should_fail()) {
        ct_error(CT_ERR_NOMEM, "CT_FAIL_ALLOC_AFTER: allocation of %zu bytes "
                 "failed on purpose", nbytes);
        return NULL;
    }
    ct_storage *s = storage_shell(device, small);
    if (s == NULL) {
        return NULL;
    }
    if (small) {
        s->data = ((small_block *)s)->data;
    }
    else {
        s->allocator = ct_cpu_allocator();
        s->data = s->allocator->alloc(s->allocator, nbytes);
        if (s->data == NULL) {
            shell_free(s);
            return NULL;
        }
    }
    s->nbytes = nbytes;
    s->flags |= CT_STORAGE_RESIZABLE;
    return s;
}

ct_storage *
ct_storage_new_external(void *data, size_t nbytes, ct_device device,
                        ct_deleter deleter, void *ctx)
{
    ct_storage *s = storage_shell(device, false);
    if (s == NULL) {
        return NULL;
    }
    s->data = data;
    s->nbytes = nbytes;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    return s;
}

static void
pinned_free(void *p)
{
    ct_cuda_host_free(p);
}

ct_storage *
ct_storage_new_pinned(size_t nbytes)
{
    void *p = ct_cuda_host_alloc(nbytes);
    if (p == NULL) {
        return NULL;
    }
    ct_storage *s = ct_storage_new_external(p, nbytes, ct_device_cpu(), pinned_free, p);
    if (s == NULL) {
        ct_cuda_host_free(p);
        return NULL;
    }
    s->flags |= CT_STORAGE_PINNED;
    return s;
}

void
ct_storage_decref(ct_storage *s)
{
    if (s == NULL) {
        return;
    }
    long old = atomic_fetch_sub_explicit(&s->refcnt, 1, memory_order_acq_rel);
    CT_ASSERT(old > 0);
    if (old != 1) {
        return;
    }
    if (s->allocator != NULL) {
        s->allocator->free(s->allocator, s->data, s->nbytes);
    }
    else if (s->deleter != NULL) {
        s->deleter(s->deleter_ctx);
    }
    shell_free(s);
}

static int
cuda_resize(ct_storage *s, size_t nbytes)
{
    void *data, *stream;
    const ct_allocator *alloc;
    size_t keep = s->nbytes < nbytes ? s->nbytes : nbytes;
    if (ct__cuda_storage_data(s->device.index, nbytes, &data, &alloc) < 0) {
        return -1;
    }
    if (keep > 0 && (ct_cuda_current_stream(s->device.index, &stream) < 0 ||
                     ct_cuda_memcpy(data, s->data, keep, stream, false) < 0)) {
        alloc->free(alloc, data, nbytes);
        return -1;
    }
    /* the old block is reused only after the copy on this stream */
    s->allocator->free(s->allocator, s->data, s->nbytes);
    s->data = data;
    s->nbytes = nbytes;
    return 0;
}

int
ct_storage_resize(ct_storage *s, size_t nbytes)
{
    bool in_block = data_is_inline(s);
    if (!(s->flags & CT_STORAGE_RESIZABLE) || (s->allocator == NULL && !in_block)) {
        return ct_error(CT_ERR_RUNTIME,
                        "Trying to resize storage that is not resizable");
    }
    if (in_block && nbytes <= INLINE_BYTES) {
        s->nbytes = nbytes;
        return 0;
    }
    if (s->device.type == CT_DEVICE_CUDA) {
        return cuda_resize(s, nbytes);
    }
    const ct_allocator *alloc = ct_cpu_allocator();
    char *data = alloc->alloc(alloc, nbytes);
    if (data == NULL) {
        return -1;
    }
    memcpy(data, s->data, s->nbytes < nbytes ? s->nbytes : nbytes);
    if (!in_block) {
        s->allocator->free(s->allocator, s->data, s->nbytes);
    }
    s->allocator = alloc;
    s->data = data;
    s->nbytes = nbytes;
    return 0;
}
