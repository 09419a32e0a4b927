/* csrc/distributed/store_map.c -- the key-value map behind every store
 * (ct__kv, chained hashing of byte strings) and c10d's value rules for add
 * and compare_set, written once for all stores; the clock of their
 * deadlines. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "csrc/distributed/store_impl.h"

/* FNV-1a: keys are short ("rank_3", "store_based_barrier_key:1"). */
static uint64_t
hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ (uint8_t)p[i]) * 1099511628211ULL;
    }
    return h;
}

void
ct__kv_init(ct__kv *m)
{
    m->buckets = NULL;
    m->nbuckets = 0;
    m->count = 0;
}

static void
entry_free(ct__kv_entry *e)
{
    free(e->val);
    free(e);
}

void
ct__kv_clear(ct__kv *m)
{
    for (size_t b = 0; b < m->nbuckets; b++) {
        ct__kv_entry *e = m->buckets[b];
        while (e != NULL) {
            ct__kv_entry *next = e->next;
            entry_free(e);
            e = next;
        }
    }
    free(m->buckets);
    ct__kv_init(m);
}

ct__kv_entry *
ct__kv_find(const ct__kv *m, const char *key, size_t klen)
{
    if (m->count == 0) {
        return NULL;
    }
    uint64_t h = hash_bytes(key, klen);
    for (ct__kv_entry *e = m->buckets[h & (m->nbuckets - 1)]; e != NULL; e = e->next) {
        if (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0) {
            return e;
        }
    }
    return NULL;
}

static int
grow(ct__kv *m)
{
    size_t n = m->nbuckets ? m->nbuckets * 2 : 16;
    ct__kv_entry **nb = calloc(n, sizeof *nb);
    if (nb == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
    }
    for (size_t b = 0; b < m->nbuckets; b++) {
        ct__kv_entry *e = m->buckets[b];
        while (e != NULL) {
            ct__kv_entry *next = e->next;
            e->next = nb[e->hash & (n - 1)];
            nb[e->hash & (n - 1)] = e;
            e = next;
        }
    }
    free(m->buckets);
    m->buckets = nb;
    m->nbuckets = n;
    return 0;
}

ct__kv_entry *
ct__kv_set(ct__kv *m, const char *key, size_t klen, const uint8_t *val, size_t vlen)
{
    uint8_t *copy = NULL;
    if (vlen > 0) {
        if ((copy = malloc(vlen)) == NULL) {
            ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
            return NULL;
        }
        memcpy(copy, val, vlen);
    }
    ct__kv_entry *e = ct__kv_find(m, key, klen);
    if (e != NULL) {
        free(e->val);
        e->val = copy;
        e->vlen = vlen;
        return e;
    }
    if ((m->count + 1) * 4 > m->nbuckets * 3 && grow(m) < 0) {
        free(copy);
        return NULL;
    }
    if ((e = malloc(sizeof *e + klen + 1)) == NULL) {
        free(copy);
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    e->hash = hash_bytes(key, klen);
    e->klen = klen;
    memcpy(e->key, key, klen);
    e->key[klen] = '\0';
    e->val = copy;
    e->vlen = vlen;
    e->next = m->buckets[e->hash & (m->nbuckets - 1)];
    m->buckets[e->hash & (m->nbuckets - 1)] = e;
    m->count++;
    return e;
}

bool
ct__kv_delete(ct__kv *m, const char *key, size_t klen)
{
    if (m->count == 0) {
        return false;
    }
    uint64_t h = hash_bytes(key, klen);
    for (ct__kv_entry **pe = &m->buckets[h & (m->nbuckets - 1)]; *pe != NULL;
         pe = &(*pe)->next) {
        ct__kv_entry *e = *pe;
        if (e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0) {
            *pe = e->next;
            entry_free(e);
            m->count--;
            return true;
        }
    }
    return false;
}

size_t
ct__kv_count_prefixed(const ct__kv *m, int first)
{
    if (first < 0) {
        return m->count;
    }
    size_t n = 0;
    for (size_t b = 0; b < m->nbuckets; b++) {
        for (const ct__kv_entry *e = m->buckets[b]; e != NULL; e = e->next) {
            n += e->klen > 0 && (uint8_t)e->key[0] == first;
        }
    }
    return n;
}

int
ct__store_add_value(const uint8_t *val, size_t vlen, int64_t delta, int64_t *out)
{
    if (vlen == 0) {
        /* absent or empty: c10d's stores start the counter at 0 */
        *out = delta;
        return 0;
    }
    size_t i = 0;
    while (i < vlen && isspace(val[i])) {
        i++;
    }
    bool neg = false;
    if (i < vlen && (val[i] == '+' || val[i] == '-')) {
        neg = val[i] == '-';
        i++;
    }
    if (i >= vlen || !isdigit(val[i])) {
        return ct_error(CT_ERR_VALUE, "stoll");
    }
    /* accumulate as a negative number so INT64_MIN parses */
    int64_t v = 0;
    for (; i < vlen && isdigit(val[i]); i++) {
        int d = val[i] - '0';
        if (v < (INT64_MIN + d) / 10) {
            return ct_error(CT_ERR_INDEX, "stoll");
        }
        v = v * 10 - d;
    }
    if (!neg) {
        if (v == INT64_MIN) {
            return ct_error(CT_ERR_INDEX, "stoll");
        }
        v = -v;
    }
    *out = (int64_t)((uint64_t)v + (uint64_t)delta);
    return 0;
}

size_t
ct__store_int_text(int64_t v, char *buf)
{
    char tmp[24];
    size_t n = 0;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    size_t len = 0;
    if (v < 0) {
        buf[len++] = '-';
    }
    while (n > 0) {
        buf[len++] = tmp[--n];
    }
    buf[len] = '\0';
    return len;
}

int
ct__kv_add(ct__kv *m, const char *key, size_t klen, int64_t delta, int64_t *out)
{
    ct__kv_entry *e = ct__kv_find(m, key, klen);
    char text[24];
    if (ct__store_add_value(e ? e->val : NULL, e ? e->vlen : 0, delta, out) < 0) {
        return -1;
    }
    size_t len = ct__store_int_text(*out, text);
    return ct__kv_set(m, key, klen, (const uint8_t *)text, len) != NULL ? 0 : -1;
}

int
ct__store_cas_decide(const ct__kv_entry *cur, const uint8_t *expected, size_t nexpected,
                     const uint8_t **result, size_t *nresult)
{
    if (cur == NULL) {
        if (nexpected == 0) {
            return 1;
        }
        *result = expected;
        *nresult = nexpected;
        return 0;
    }
    if (cur->vlen == nexpected && (nexpected == 0 || memcmp(cur->val, expected,
                                                            nexpected) == 0)) {
        return 1;
    }
    *result = cur->val;
    *nresult = cur->vlen;
    return 0;
}

uint8_t *
ct__store_dup(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n > 0 ? n : 1);
    if (d == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    if (n > 0) {
        memcpy(d, p, n);
    }
    return d;
}

int64_t
ct__store_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
ct__store_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

void
ct__store_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline)
{
    if (deadline == INT64_MAX) {
        pthread_cond_wait(cv, mu);
        return;
    }
    struct timespec ts = {.tv_sec = deadline / 1000,
                          .tv_nsec = (deadline % 1000) * 1000000};
    pthread_cond_timedwait(cv, mu, &ts);
}
