/* ctorch/c10d_store.h -- c10d key-value stores (torch.distributed.Store).
 *
 * A store is a refcounted object behind a vtable; TCPStore, FileStore,
 * HashStore and PrefixStore implement it (csrc/distributed/store_*.c), and
 * process groups use any of them to find their peers.  Semantics are
 * c10d's: get and wait block until the keys exist or the store's timeout
 * passes (then CT_ERR_TIMEOUT-style error: a RuntimeError whose text
 * starts "Timeout"/"Socket Timeout" as PyTorch's), add creates the key at 0
 * and returns the new value (the value is stored as its decimal text, so
 * get returns b"3"), compare_set returns the value now stored.
 *
 * All functions return 0 or -1 with the error in ct_error's slot; values
 * returned through uint8_t ** are malloc'd and owned by the caller.
 * Timeouts are in milliseconds; a negative timeout means the store's own.
 * Thread-safe: one store may be used from several threads.
 */
#ifndef CTORCH_C10D_STORE_H
#define CTORCH_C10D_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ct_store ct_store;

typedef struct ct_store_vtable {
    const char *name;           /* "TCPStore", ... */
    int (*set)(ct_store *s, const char *key, const uint8_t *val, size_t n);
    int (*get)(ct_store *s, const char *key, uint8_t **val, size_t *n);
    int (*add)(ct_store *s, const char *key, int64_t delta, int64_t *out);
    int (*compare_set)(ct_store *s, const char *key, const uint8_t *expected,
                       size_t nexpected, const uint8_t *desired, size_t ndesired,
                       uint8_t **out, size_t *nout);
    int (*check)(ct_store *s, const char *const *keys, int nkeys, bool *all_exist);
    int (*wait)(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms);
    int (*delete_key)(ct_store *s, const char *key, bool *deleted);
    int (*num_keys)(ct_store *s, int64_t *out);
    void (*destroy)(ct_store *s);       /* frees everything, s included */
} ct_store_vtable;

struct ct_store {
    const ct_store_vtable *vt;
    atomic_long refcnt;
    _Atomic int64_t timeout_ms;         /* default for get / wait */
};

/* New references (refcnt 1), or NULL with the error set. */
ct_store *ct_hash_store_new(void);
ct_store *ct_file_store_new(const char *path, int world_size, int64_t timeout_ms);
/* is_master: serve on host:port (port 0 picks one: ct_tcp_store_port);
 * every instance is also a client.  wait_for_workers: the master waits for
 * world_size clients (itself included) before returning. */
ct_store *ct_tcp_store_new(const char *host, int port, int world_size, bool is_master,
                           int64_t timeout_ms, bool wait_for_workers);
int ct_tcp_store_port(const ct_store *s);
ct_store *ct_prefix_store_new(const char *prefix, ct_store *base);

static inline void
ct_store_incref(ct_store *s)
{
    atomic_fetch_add(&s->refcnt, 1);
}
void ct_store_decref(ct_store *s);

/* Convenience wrappers over the vtable (timeout < 0: the store's own). */
int ct_store_set(ct_store *s, const char *key, const uint8_t *val, size_t n);
int ct_store_get(ct_store *s, const char *key, uint8_t **val, size_t *n);
int ct_store_add(ct_store *s, const char *key, int64_t delta, int64_t *out);
int ct_store_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms);

/* Additions (STORES helper): the rest of the vtable as wrappers, the
 * timeout through PrefixStores, TCPStore's full options. */
int ct_store_compare_set(ct_store *s, const char *key, const uint8_t *expected,
                         size_t nexpected, const uint8_t *desired, size_t ndesired,
                         uint8_t **out, size_t *nout);
int ct_store_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist);
int ct_store_delete_key(ct_store *s, const char *key, bool *deleted);
int ct_store_num_keys(ct_store *s, int64_t *out);
/* The default timeout of get / wait in ms (0: none); a PrefixStore reports
 * and sets its underlying store's, as c10d's does. */
int64_t ct_store_timeout(ct_store *s);
void ct_store_set_timeout(ct_store *s, int64_t timeout_ms);

typedef struct ct_tcp_store_options {
    const char *host;           /* where clients connect; the master binds any */
    int port;                   /* 0 with is_master: an ephemeral port */
    int world_size;             /* < 0: unknown (Python's None) */
    bool is_master;
    bool wait_for_workers;
    bool multi_tenant;          /* masters on one port in a process share a server */
    int64_t timeout_ms;
} ct_tcp_store_options;
ct_store *ct_tcp_store_open(const ct_tcp_store_options *opts);

/* The message of the error a TCPStore client gives when it cannot reach
 * the master before its timeout starts with this text (the Python layer
 * raises TimeoutError for it, as PyTorch does). */
#define CT_STORE_CONNECT_TIMEOUT_TEXT "The client socket has timed out"

#endif
