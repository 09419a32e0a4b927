/* csrc/distributed/store_hash.c -- HashStore: a store inside one process
 * (c10d::HashStore).  One mutex guards the map; get and wait sleep on a
 * condition variable that every write broadcasts. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "csrc/distributed/store_impl.h"

typedef struct {
    ct_store base;
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* on CLOCK_MONOTONIC */
    ct__kv map;
} hash_store;

/* c10d's HashStore throws std::system_error(ETIMEDOUT, "Wait timeout"). */
#define HASH_TIMEOUT_TEXT "Wait timeout: Connection timed out"

static inline hash_store *
H(ct_store *s)
{
    return (hash_store *)s;
}

static bool
all_present(hash_store *h, const char *const *keys, int nkeys)
{
    for (int i = 0; i < nkeys; i++) {
        if (ct__kv_find(&h->map, keys[i], strlen(keys[i])) == NULL) {
            return false;
        }
    }
    return true;
}

/* Sleep (mutex held) until every key exists; 0, or -1 with the timeout
 * error once the deadline passes. */
static int
wait_locked(hash_store *h, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    int64_t deadline = ct__store_deadline(timeout_ms);
    while (!all_present(h, keys, nkeys)) {
        if (ct__store_now_ms() >= deadline) {
            return ct_error(CT_ERR_RUNTIME, HASH_TIMEOUT_TEXT);
        }
        ct__store_cond_wait(&h->cv, &h->mu, deadline);
    }
    return 0;
}

static int
hash_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    int rc = ct__kv_set(&h->map, key, strlen(key), val, n) != NULL ? 0 : -1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int
hash_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    hash_store *h = H(s);
    int rc = -1;
    pthread_mutex_lock(&h->mu);
    if (wait_locked(h, &key, 1, ct__store_resolve_timeout(s, -1)) == 0) {
        ct__kv_entry *e = ct__kv_find(&h->map, key, strlen(key));
        if ((*val = ct__store_dup(e->val, e->vlen)) != NULL) {
            *n = e->vlen;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int
hash_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    int rc = ct__kv_add(&h->map, key, strlen(key), delta, out);
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int
hash_compare_set(ct_store *s, const char *key, const uint8_t *expected,
                 size_t nexpected, const uint8_t *desired, size_t ndesired,
                 uint8_t **out, size_t *nout)
{
    hash_store *h = H(s);
    size_t klen = strlen(key);
    const uint8_t *res;
    size_t nres;
    pthread_mutex_lock(&h->mu);
    ct__kv_entry *e = ct__kv_find(&h->map, key, klen);
    if (ct__store_cas_decide(e, expected, nexpected, &res, &nres)) {
        if (ct__kv_set(&h->map, key, klen, desired, ndesired) == NULL) {
            pthread_mutex_unlock(&h->mu);
            return -1;
        }
        pthread_cond_broadcast(&h->cv);
        res = desired;
        nres = ndesired;
    }
    *out = ct__store_dup(res, nres);
    *nout = nres;
    pthread_mutex_unlock(&h->mu);
    return *out != NULL ? 0 : -1;
}

static int
hash_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    *all_exist = all_present(h, keys, nkeys);
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int
hash_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    int rc = wait_locked(h, keys, nkeys, ct__store_resolve_timeout(s, timeout_ms));
    pthread_mutex_unlock(&h->mu);
    return rc;
}

static int
hash_delete_key(ct_store *s, const char *key, bool *deleted)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    *deleted = ct__kv_delete(&h->map, key, strlen(key));
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static int
hash_num_keys(ct_store *s, int64_t *out)
{
    hash_store *h = H(s);
    pthread_mutex_lock(&h->mu);
    *out = (int64_t)h->map.count;
    pthread_mutex_unlock(&h->mu);
    return 0;
}

static void
hash_destroy(ct_store *s)
{
    hash_store *h = H(s);
    ct__kv_clear(&h->map);
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    free(h);
}

static const ct_store_vtable hash_vtable = {
    .name = "HashStore",
    .set = hash_set,
    .get = hash_get,
    .add = hash_add,
    .compare_set = hash_compare_set,
    .check = hash_check,
    .wait = hash_wait,
    .delete_key = hash_delete_key,
    .num_keys = hash_num_keys,
    .destroy = hash_destroy,
};

ct_store *
ct_hash_store_new(void)
{
    hash_store *h = calloc(1, sizeof *h);
    if (h == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    ct__store_cond_init(&h->cv);
    pthread_mutex_init(&h->mu, NULL);
    ct__kv_init(&h->map);
    ct__store_init(&h->base, &hash_vtable, 300000);
    return &h->base;
}
