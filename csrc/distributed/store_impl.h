/* csrc/distributed/store_impl.h -- what the store files share (not public).
 *
 * - ct__kv: a hash map from byte-string keys to byte-string values, used
 *   by HashStore, the TCPStore server and FileStore's cache.  Not
 *   thread-safe: its owner locks.
 * - c10d's value rules, written once: add's parse of the stored text
 *   (std::stoll's), compare_set's decision.
 * - clock and deadline helpers (CLOCK_MONOTONIC, milliseconds), and a
 *   condition variable that sleeps until such a deadline.
 * - little-endian integers, as FileStore's log and TCPStore's frames hold
 *   them.
 */
#ifndef CTORCH_STORE_IMPL_H
#define CTORCH_STORE_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <ctorch/c10d_store.h>
#include <ctorch/error.h>

/* Keys c10d's TCPStore and FileStore give user keys (the internal keys,
 * "init/", "cleanup/", "refcount/", have none, so they never collide). */
#define CT__STORE_USER_PREFIX '/'

typedef struct ct__kv_entry {
    struct ct__kv_entry *next;  /* bucket chain */
    uint64_t hash;
    uint8_t *val;               /* owned; NULL when vlen == 0 */
    size_t vlen;
    size_t klen;
    char key[];                 /* klen bytes and a NUL */
} ct__kv_entry;

typedef struct ct__kv {
    ct__kv_entry **buckets;
    size_t nbuckets;            /* a power of two */
    size_t count;
} ct__kv;

void ct__kv_init(ct__kv *m);
void ct__kv_clear(ct__kv *m);   /* frees every entry and the buckets */
/* Borrowed, or NULL when the key is absent. */
ct__kv_entry *ct__kv_find(const ct__kv *m, const char *key, size_t klen);
/* Copies key and value; returns the entry (borrowed) or NULL with the
 * error set. */
ct__kv_entry *ct__kv_set(ct__kv *m, const char *key, size_t klen, const uint8_t *val,
                         size_t vlen);
bool ct__kv_delete(ct__kv *m, const char *key, size_t klen);
/* Number of keys whose first byte is `first` (all keys when first < 0). */
size_t ct__kv_count_prefixed(const ct__kv *m, int first);

/* add's arithmetic on a stored value: std::stoll of the text (leading
 * spaces, a sign, digits, anything after ignored; empty text is 0), plus
 * delta with two's-complement wrap as in c10d.  -1 with std::stoll's
 * ValueError / IndexError("stoll") when the text is not a number. */
int ct__store_add_value(const uint8_t *val, size_t vlen, int64_t delta, int64_t *out);
/* add on a map: the arithmetic above on the value under key (absent: 0),
 * the result stored as its decimal text.  0, or -1 with the error set. */
int ct__kv_add(ct__kv *m, const char *key, size_t klen, int64_t delta, int64_t *out);
/* The decimal text of v in buf (at least 24 bytes); returns its length. */
size_t ct__store_int_text(int64_t v, char *buf);

/* compare_set's rule, c10d's: swap when the key is absent and expected is
 * empty, or present and equal to expected.  Returns 1 when desired is to be
 * stored; 0 otherwise with *result pointing at what the call returns (the
 * current value, or expected when the key is absent). */
int ct__store_cas_decide(const ct__kv_entry *cur, const uint8_t *expected,
                         size_t nexpected, const uint8_t **result, size_t *nresult);

/* Copy of n bytes for a caller-owned result (malloc(1) when n == 0, so the
 * pointer is never NULL on success); NULL with the error set. */
uint8_t *ct__store_dup(const uint8_t *p, size_t n);

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t ct__store_now_ms(void);

/* The timeout of a call: explicit (>= 0) or the store's own when negative.
 * The result follows c10d: 0 waits forever, negative has expired already. */
static inline int64_t
ct__store_resolve_timeout(const ct_store *s, int64_t timeout_ms)
{
    return timeout_ms >= 0 ? timeout_ms : atomic_load(&s->timeout_ms);
}

/* An absolute CLOCK_MONOTONIC deadline for a resolved timeout: INT64_MAX
 * for "forever", now for an expired one. */
static inline int64_t
ct__store_deadline(int64_t timeout_ms)
{
    int64_t now = ct__store_now_ms();
    if (timeout_ms == 0) {
        return INT64_MAX;
    }
    return timeout_ms < 0 ? now : now + timeout_ms;
}

/* A condition variable on CLOCK_MONOTONIC, the clock of these deadlines. */
void ct__store_cond_init(pthread_cond_t *cv);
/* Sleep on cv (mu held) until a signal or the deadline (INT64_MAX: none);
 * the caller checks what it waits for, and the clock, again. */
void ct__store_cond_wait(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline);

/* Little-endian integers in a byte buffer. */
static inline void
ct__put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline void
ct__put_i64(uint8_t *p, int64_t v)
{
    for (int i = 0; i < 8; i++) {
        p[i] = (uint8_t)((uint64_t)v >> (8 * i));
    }
}

static inline uint32_t
ct__get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        v |= (uint32_t)p[i] << (8 * i);
    }
    return v;
}

static inline int64_t
ct__get_i64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return (int64_t)v;
}

/* PrefixStore: the store it forwards to (borrowed), or NULL when s is not
 * a PrefixStore. */
ct_store *ct__prefix_store_base(ct_store *s);

void ct__store_init(ct_store *s, const ct_store_vtable *vt, int64_t timeout_ms);

#endif
