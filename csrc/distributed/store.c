/* csrc/distributed/store.c -- what every c10d store shares: the refcount,
 * the convenience wrappers over the vtable, and the default timeout
 * (which a PrefixStore takes from the store under it). */
#include "csrc/distributed/store_impl.h"

void
ct__store_init(ct_store *s, const ct_store_vtable *vt, int64_t timeout_ms)
{
    s->vt = vt;
    atomic_init(&s->refcnt, 1);
    atomic_init(&s->timeout_ms, timeout_ms);
}

void
ct_store_decref(ct_store *s)
{
    if (s == NULL) {
        return;
    }
    long prev = atomic_fetch_sub(&s->refcnt, 1);
    CT_ASSERT(prev > 0);
    if (prev == 1) {
        s->vt->destroy(s);
    }
}

int
ct_store_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    return s->vt->set(s, key, val, n);
}

int
ct_store_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    return s->vt->get(s, key, val, n);
}

int
ct_store_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    return s->vt->add(s, key, delta, out);
}

int
ct_store_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    return s->vt->wait(s, keys, nkeys, timeout_ms);
}

int
ct_store_compare_set(ct_store *s, const char *key, const uint8_t *expected,
                     size_t nexpected, const uint8_t *desired, size_t ndesired,
                     uint8_t **out, size_t *nout)
{
    return s->vt->compare_set(s, key, expected, nexpected, desired, ndesired, out,
                              nout);
}

int
ct_store_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    return s->vt->check(s, keys, nkeys, all_exist);
}

int
ct_store_delete_key(ct_store *s, const char *key, bool *deleted)
{
    return s->vt->delete_key(s, key, deleted);
}

int
ct_store_num_keys(ct_store *s, int64_t *out)
{
    return s->vt->num_keys(s, out);
}

int64_t
ct_store_timeout(ct_store *s)
{
    ct_store *base;
    while ((base = ct__prefix_store_base(s)) != NULL) {
        s = base;
    }
    return atomic_load(&s->timeout_ms);
}

void
ct_store_set_timeout(ct_store *s, int64_t timeout_ms)
{
    /* every PrefixStore on the way keeps the value too, for code that reads
     * the field directly */
    for (ct_store *cur = s; cur != NULL; cur = ct__prefix_store_base(cur)) {
        atomic_store(&cur->timeout_ms, timeout_ms);
    }
}
