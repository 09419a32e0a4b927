/* c10/storage.c -- refcounted buffers. */
#include <ctorch/error.h>
#include <ctorch/storage.h>

#include <stdlib.h>
#include <string.h>

#include "c10_impl.h"

static ct_storage *
storage_shell(ct_device device)
{
    ct_storage *s = calloc(1, sizeof *s);
    if (s == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory allocating a storage");
        return NULL;
    }
    atomic_init(&s->refcnt, 1);
    atomic_init(&s->version, 0);
    s->device = device;
    ct__count_storage(1);
    return s;
}

ct_storage *
ct_storage_new(size_t nbytes, ct_device device)
{
    if (device.type != CT_DEVICE_CPU) {
        ct_error(CT_ERR_RUNTIME, "ctorch was built without CUDA support; "
                 "cannot allocate on device '%s'", ct_device_type_name(device.type));
        return NULL;
    }
    ct_storage *s = storage_shell(device);
    if (s == NULL) {
        return NULL;
    }
    s->allocator = ct_cpu_allocator();
    s->data = s->allocator->alloc(s->allocator, nbytes);
    if (s->data == NULL) {
        free(s);
        ct__count_storage(-1);
        return NULL;
    }
    s->nbytes = nbytes;
    s->flags = CT_STORAGE_RESIZABLE;
    return s;
}

ct_storage *
ct_storage_new_external(void *data, size_t nbytes, ct_device device,
                        ct_deleter deleter, void *ctx)
{
    ct_storage *s = storage_shell(device);
    if (s == NULL) {
        return NULL;
    }
    s->data = data;
    s->nbytes = nbytes;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
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
    ct__count_storage(-1);
    free(s);
}

int
ct_storage_resize(ct_storage *s, size_t nbytes)
{
    if (!(s->flags & CT_STORAGE_RESIZABLE) || s->allocator == NULL) {
        return ct_error(CT_ERR_RUNTIME,
                        "Trying to resize storage that is not resizable");
    }
    char *data = s->allocator->alloc(s->allocator, nbytes);
    if (data == NULL) {
        return -1;
    }
    memcpy(data, s->data, s->nbytes < nbytes ? s->nbytes : nbytes);
    s->allocator->free(s->allocator, s->data, s->nbytes);
    s->data = data;
    s->nbytes = nbytes;
    return 0;
}
