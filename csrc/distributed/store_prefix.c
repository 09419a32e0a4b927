/* csrc/distributed/store_prefix.c -- PrefixStore: every key becomes
 * "<prefix>/<key>" in the store under it (c10d::PrefixStore), which is
 * how process groups share one store.  It owns a reference to that store;
 * timeouts are the underlying store's. */
#include <stdlib.h>
#include <string.h>

#include "csrc/distributed/store_impl.h"

typedef struct {
    ct_store base;
    ct_store *store;            /* owned reference */
    size_t plen;
    char prefix[];              /* plen bytes and a NUL */
} prefix_store;

static inline prefix_store *
P(ct_store *s)
{
    return (prefix_store *)s;
}

/* "<prefix>/<key>" (malloc'd, owned by the caller), or NULL with the
 * error set. */
static char *
full_key(prefix_store *p, const char *key)
{
    size_t klen = strlen(key);
    char *k = malloc(p->plen + 1 + klen + 1);
    if (k == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    memcpy(k, p->prefix, p->plen);
    k[p->plen] = '/';
    memcpy(k + p->plen + 1, key, klen + 1);
    return k;
}

/* An array of nkeys prefixed keys (one allocation: pointers, then text),
 * owned by the caller; NULL with the error set. */
static char **
full_keys(prefix_store *p, const char *const *keys, int nkeys)
{
    size_t bytes = (size_t)nkeys * sizeof(char *);
    for (int i = 0; i < nkeys; i++) {
        bytes += p->plen + strlen(keys[i]) + 2;
    }
    char **out = malloc(bytes > 0 ? bytes : 1);
    if (out == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    char *text = (char *)(out + nkeys);
    for (int i = 0; i < nkeys; i++) {
        size_t klen = strlen(keys[i]);
        out[i] = text;
        memcpy(text, p->prefix, p->plen);
        text[p->plen] = '/';
        memcpy(text + p->plen + 1, keys[i], klen + 1);
        text += p->plen + klen + 2;
    }
    return out;
}

static int
prefix_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    char *k = full_key(P(s), key);
    int rc = k ? ct_store_set(P(s)->store, k, val, n) : -1;
    free(k);
    return rc;
}

static int
prefix_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    char *k = full_key(P(s), key);
    int rc = k ? ct_store_get(P(s)->store, k, val, n) : -1;
    free(k);
    return rc;
}

static int
prefix_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    char *k = full_key(P(s), key);
    int rc = k ? ct_store_add(P(s)->store, k, delta, out) : -1;
    free(k);
    return rc;
}

static int
prefix_compare_set(ct_store *s, const char *key, const uint8_t *expected,
                   size_t nexpected, const uint8_t *desired, size_t ndesired,
                   uint8_t **out, size_t *nout)
{
    char *k = full_key(P(s), key);
    int rc = k ? ct_store_compare_set(P(s)->store, k, expected, nexpected, desired,
                                      ndesired, out, nout)
               : -1;
    free(k);
    return rc;
}

static int
prefix_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    char **k = full_keys(P(s), keys, nkeys);
    int rc = k ? ct_store_check(P(s)->store, (const char *const *)k, nkeys, all_exist)
               : -1;
    free(k);
    return rc;
}

static int
prefix_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    char **k = full_keys(P(s), keys, nkeys);
    int rc = k ? ct_store_wait(P(s)->store, (const char *const *)k, nkeys, timeout_ms)
               : -1;
    free(k);
    return rc;
}

static int
prefix_delete_key(ct_store *s, const char *key, bool *deleted)
{
    char *k = full_key(P(s), key);
    int rc = k ? ct_store_delete_key(P(s)->store, k, deleted) : -1;
    free(k);
    return rc;
}

static int
prefix_num_keys(ct_store *s, int64_t *out)
{
    /* c10d counts the whole underlying store, other prefixes included */
    return ct_store_num_keys(P(s)->store, out);
}

static void
prefix_destroy(ct_store *s)
{
    ct_store_decref(P(s)->store);
    free(s);
}

static const ct_store_vtable prefix_vtable = {
    .name = "PrefixStore",
    .set = prefix_set,
    .get = prefix_get,
    .add = prefix_add,
    .compare_set = prefix_compare_set,
    .check = prefix_check,
    .wait = prefix_wait,
    .delete_key = prefix_delete_key,
    .num_keys = prefix_num_keys,
    .destroy = prefix_destroy,
};

ct_store *
ct__prefix_store_base(ct_store *s)
{
    return s->vt == &prefix_vtable ? P(s)->store : NULL;
}

ct_store *
ct_prefix_store_new(const char *prefix, ct_store *base)
{
    size_t plen = strlen(prefix);
    prefix_store *p = malloc(sizeof *p + plen + 1);
    if (p == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    memcpy(p->prefix, prefix, plen + 1);
    p->plen = plen;
    ct_store_incref(base);
    p->store = base;
    ct__store_init(&p->base, &prefix_vtable, ct_store_timeout(base));
    return &p->base;
}
