/* csrc/distributed/store_file.c -- FileStore: a store in a file that
 * several processes share (c10d::FileStore, same file format).
 *
 * Note [FileStore log]
 * The file is an append-only log of records, each a u32 key length, the
 * key, a u32 value length and the value (little-endian).  User keys carry a
 * "/" in front; a key "-/k" deletes "/k"; "refcount/" and "cleanup/" count
 * the stores open on the file and those closed.  Writers append under an
 * exclusive flock(2), readers replay the records they have not seen under
 * a shared one into a cache; get and wait poll the file size.  The store
 * that closes last, when at least world_size stores have closed, removes
 * the file (c10d's cleanup).
 *
 * Note [Stale FileStore files]
 * A run that was killed leaves its file behind with its keys in it, and a
 * new run reading those (an old barrier count, old addresses) would wait
 * for peers that never come.  Every open store holds an OFD read lock on
 * one byte far past the end of the file; the kernel drops it when the
 * process dies.  A store that opens the file and can take a write lock on
 * that byte is its only user: if the log says stores are still open
 * (refcount/ > 0) they died without closing, and the log is emptied.
 * Files closed cleanly keep their keys, as c10d's do.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "csrc/distributed/store_impl.h"

#define REFCOUNT_KEY "refcount/"
#define CLEANUP_KEY "cleanup/"
#define DELETE_MARK '-'
#define LIVE_BYTE ((off_t)1 << 62)

typedef struct {
    ct_store base;
    pthread_mutex_t mu;         /* one operation at a time per store */
    int fd;                     /* O_APPEND; its OFD holds the live lock */
    pid_t pid;                  /* a forked child reopens (its fd is shared) */
    bool counted;               /* opened through ct_file_store_new (not a fork) */
    int world_size;
    off_t pos;                  /* log bytes replayed into cache */
    ct__kv cache;
    uint8_t *buf;               /* read / write buffer */
    size_t cap;
    char path[];
} file_store;

static inline file_store *
F(ct_store *s)
{
    return (file_store *)s;
}

static int
sys_error(const char *what, const char *path)
{
    return ct_error(CT_ERR_RUNTIME, "%s(%s): %s", what, path, strerror(errno));
}

static int
reserve(file_store *f, size_t n)
{
    if (n <= f->cap) {
        return 0;
    }
    size_t cap = f->cap ? f->cap : 4096;
    while (cap < n) {
        cap *= 2;
    }
    uint8_t *b = realloc(f->buf, cap);
    if (b == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
    }
    f->buf = b;
    f->cap = cap;
    return 0;
}

static int
apply(file_store *f, const char *key, size_t klen, const uint8_t *val, size_t vlen)
{
    if (klen > 0 && key[0] == DELETE_MARK) {
        ct__kv_delete(&f->cache, key + 1, klen - 1);
        return 0;
    }
    return ct__kv_set(&f->cache, key, klen, val, vlen) != NULL ? 0 : -1;
}

/* Replay the records appended since the last call (a lock is held).  A
 * record cut short (a writer died mid-write) is left for later. */
static int
refresh(file_store *f)
{
    struct stat st;
    if (fstat(f->fd, &st) < 0) {
        return sys_error("fstat", f->path);
    }
    if (st.st_size < f->pos) {
        /* emptied by a new run (Note [Stale FileStore files]) */
        ct__kv_clear(&f->cache);
        f->pos = 0;
    }
    size_t n = (size_t)(st.st_size - f->pos);
    if (n == 0) {
        return 0;
    }
    if (reserve(f, n) < 0) {
        return -1;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(f->fd, f->buf + got, n - got, f->pos + (off_t)got);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            return sys_error("read", f->path);
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    size_t off = 0;
    while (off + 4 <= got) {
        size_t klen = ct__get_u32(f->buf + off);
        if (off + 8 + klen > got) {
            break;
        }
        size_t vlen = ct__get_u32(f->buf + off + 4 + klen);
        if (off + 8 + klen + vlen > got) {
            break;
        }
        /* the key is copied with its NUL by ct__kv_set; pass it as bytes */
        if (apply(f, (const char *)f->buf + off + 4, klen, f->buf + off + 8 + klen,
                  vlen) < 0) {
            return -1;
        }
        off += 8 + klen + vlen;
    }
    f->pos += (off_t)off;
    return 0;
}

/* Append one record (exclusive lock held, log replayed) and apply it. */
static int
append(file_store *f, const char *key, size_t klen, const uint8_t *val, size_t vlen)
{
    size_t n = 8 + klen + vlen;
    if (klen > UINT32_MAX || vlen > UINT32_MAX) {
        return ct_error(CT_ERR_RUNTIME, "FileStore: a key or value over 4 GB");
    }
    if (reserve(f, n) < 0) {
        return -1;
    }
    ct__put_u32(f->buf, (uint32_t)klen);
    memcpy(f->buf + 4, key, klen);
    ct__put_u32(f->buf + 4 + klen, (uint32_t)vlen);
    if (vlen > 0) {
        memcpy(f->buf + 8 + klen, val, vlen);
    }
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(f->fd, f->buf + done, n - done);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0) {
            return sys_error("write", f->path);
        }
        done += (size_t)w;
    }
    f->pos += (off_t)n;
    return apply(f, key, klen, val, vlen);
}

static int
lock_file(file_store *f, int op)
{
    while (flock(f->fd, op) < 0) {
        if (errno != EINTR) {
            return sys_error("flock", f->path);
        }
    }
    return 0;
}

static void
unlock_file(file_store *f)
{
    flock(f->fd, LOCK_UN);
}

/* 1 when the OFD lock on the live byte could be set (or the kernel has no
 * OFD locks: 1 for a write lock attempt means "alone", so report 0), 0
 * when another store holds it. */
static int
live_lock(int fd, short type, bool wait)
{
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = LIVE_BYTE,
                       .l_len = 1};
    if (fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &fl) == 0) {
        return 1;
    }
    return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

/* A counter in the log under an internal key (0 when absent). */
static int64_t
counter(file_store *f, const char *key)
{
    ct__kv_entry *e = ct__kv_find(&f->cache, key, strlen(key));
    int64_t v = 0;
    if (e != NULL && ct__store_add_value(e->val, e->vlen, 0, &v) < 0) {
        ct_error_clear();
        v = 0;
    }
    return v;
}

static int
add_locked(file_store *f, const char *key, size_t klen, int64_t delta, int64_t *out)
{
    ct__kv_entry *e = ct__kv_find(&f->cache, key, klen);
    char text[24];
    if (ct__store_add_value(e ? e->val : NULL, e ? e->vlen : 0, delta, out) < 0) {
        return -1;
    }
    size_t len = ct__store_int_text(*out, text);
    return append(f, key, klen, (const uint8_t *)text, len);
}

/* Open the file (a new OFD), wait out a store closing and removing it,
 * take the live lock, and empty a stale log.  Sets f->fd. */
static int
open_log(file_store *f)
{
    for (;;) {
        int fd = open(f->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            return sys_error("open", f->path);
        }
        f->fd = fd;
        if (lock_file(f, LOCK_EX) < 0) {
            close(fd);
            return -1;
        }
        /* the last store may have removed the path while we waited */
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(f->path, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev) {
            break;
        }
        close(fd);
    }
    ct__kv_clear(&f->cache);
    f->pos = 0;
    int alone = live_lock(f->fd, F_WRLCK, false);
    if (refresh(f) < 0) {
        goto fail;
    }
    if (alone == 1 && counter(f, REFCOUNT_KEY) > 0) {
        /* Note [Stale FileStore files] */
        if (ftruncate(f->fd, 0) < 0) {
            sys_error("ftruncate", f->path);
            goto fail;
        }
        ct__kv_clear(&f->cache);
        f->pos = 0;
    }
    if (alone >= 0 && live_lock(f->fd, F_RDLCK, true) < 0) {
        sys_error("fcntl", f->path);
        goto fail;
    }
    return 0;
fail:
    unlock_file(f);
    close(f->fd);
    f->fd = -1;
    return -1;
}

/* Called with mu held before every operation: a forked child must not
 * share its parent's file description (flock and OFD locks belong to it),
 * so it opens its own. */
static int
ensure_own_fd(file_store *f)
{
    if (f->pid == getpid()) {
        return 0;
    }
    close(f->fd);
    f->fd = -1;
    f->pid = getpid();
    f->counted = false;
    if (open_log(f) < 0) {
        return -1;
    }
    unlock_file(f);
    return 0;
}

/* Run under mu and the file lock `op`, the log replayed: the common head
 * of every operation.  0, or -1 with nothing held. */
static int
begin(file_store *f, int op)
{
    pthread_mutex_lock(&f->mu);
    if (ensure_own_fd(f) < 0 || lock_file(f, op) < 0) {
        pthread_mutex_unlock(&f->mu);
        return -1;
    }
    if (refresh(f) < 0) {
        unlock_file(f);
        pthread_mutex_unlock(&f->mu);
        return -1;
    }
    return 0;
}

static void
end(file_store *f)
{
    unlock_file(f);
    pthread_mutex_unlock(&f->mu);
}

/* "/<key>" in buf (at least strlen(key) + 2 bytes); returns its length. */
static size_t
user_key(char *buf, const char *key)
{
    size_t klen = strlen(key);
    buf[0] = CT__STORE_USER_PREFIX;
    memcpy(buf + 1, key, klen + 1);
    return klen + 1;
}

static char *
user_key_new(const char *key, size_t *len)
{
    char *k = malloc(strlen(key) + 2);
    if (k == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    *len = user_key(k, key);
    return k;
}

static int
file_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    file_store *f = F(s);
    size_t klen;
    char *k = user_key_new(key, &klen);
    if (k == NULL || begin(f, LOCK_EX) < 0) {
        free(k);
        return -1;
    }
    int rc = append(f, k, klen, val, n);
    end(f);
    free(k);
    return rc;
}

/* Whether every key is in the log: 1 / 0, or -1 on error.  When `val` is
 * given (one key), its value is copied out. */
static int
poll_keys(file_store *f, const char *const *keys, int nkeys, uint8_t **val, size_t *n)
{
    pthread_mutex_lock(&f->mu);
    if (ensure_own_fd(f) < 0) {
        pthread_mutex_unlock(&f->mu);
        return -1;
    }
    /* nothing new in the file: answer from the cache without the lock */
    struct stat st;
    bool locked = false;
    if (fstat(f->fd, &st) < 0 || st.st_size != f->pos) {
        if (lock_file(f, LOCK_SH) < 0) {
            pthread_mutex_unlock(&f->mu);
            return -1;
        }
        locked = true;
        if (refresh(f) < 0) {
            end(f);
            return -1;
        }
    }
    int found = 1;
    char small[256];
    for (int i = 0; i < nkeys && found == 1; i++) {
        size_t klen = strlen(keys[i]) + 1;
        char *k = klen < sizeof small ? small : malloc(klen + 1);
        if (k == NULL) {
            found = ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
            break;
        }
        user_key(k, keys[i]);
        ct__kv_entry *e = ct__kv_find(&f->cache, k, klen);
        if (k != small) {
            free(k);
        }
        if (e == NULL) {
            found = 0;
        }
        else if (val != NULL) {
            *val = ct__store_dup(e->val, e->vlen);
            *n = e->vlen;
            found = *val != NULL ? 1 : -1;
        }
    }
    if (locked) {
        unlock_file(f);
    }
    pthread_mutex_unlock(&f->mu);
    return found;
}

/* Poll until the keys appear; the sleep grows from 50 us to 5 ms.  On
 * timeout the error is `timeout_text`. */
static int
wait_keys(file_store *f, const char *const *keys, int nkeys, int64_t timeout_ms,
          uint8_t **val, size_t *n, const char *timeout_text)
{
    int64_t deadline = ct__store_deadline(timeout_ms);
    useconds_t nap = 50;
    for (;;) {
        int r = poll_keys(f, keys, nkeys, val, n);
        if (r != 0) {
            return r < 0 ? -1 : 0;
        }
        int64_t now = ct__store_now_ms();
        if (now >= deadline) {
            return ct_error(CT_ERR_RUNTIME, "%s", timeout_text);
        }
        if (deadline != INT64_MAX && (int64_t)nap / 1000 > deadline - now) {
            nap = (useconds_t)((deadline - now) * 1000);
        }
        usleep(nap);
        nap = nap * 2 > 5000 ? 5000 : nap * 2;
    }
}

static int
file_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    int64_t t = ct__store_resolve_timeout(s, -1);
    char text[512];
    snprintf(text, sizeof text, "Timeout waiting for key: %s after %lld ms", key,
             (long long)t);
    return wait_keys(F(s), &key, 1, t, val, n, text);
}

static int
file_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    return wait_keys(F(s), keys, nkeys, ct__store_resolve_timeout(s, timeout_ms), NULL,
                     NULL, "Wait timeout");
}

static int
file_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    int r = poll_keys(F(s), keys, nkeys, NULL, NULL);
    *all_exist = r == 1;
    return r < 0 ? -1 : 0;
}

static int
file_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    file_store *f = F(s);
    size_t klen;
    char *k = user_key_new(key, &klen);
    if (k == NULL || begin(f, LOCK_EX) < 0) {
        free(k);
        return -1;
    }
    int rc = add_locked(f, k, klen, delta, out);
    end(f);
    free(k);
    return rc;
}

static int
file_compare_set(ct_store *s, const char *key, const uint8_t *expected,
                 size_t nexpected, const uint8_t *desired, size_t ndesired,
                 uint8_t **out, size_t *nout)
{
    file_store *f = F(s);
    size_t klen;
    char *k = user_key_new(key, &klen);
    if (k == NULL || begin(f, LOCK_EX) < 0) {
        free(k);
        return -1;
    }
    const uint8_t *res;
    size_t nres;
    int rc = 0;
    if (ct__store_cas_decide(ct__kv_find(&f->cache, k, klen), expected, nexpected, &res,
                             &nres)) {
        rc = append(f, k, klen, desired, ndesired);
        res = desired;
        nres = ndesired;
    }
    if (rc == 0) {
        *out = ct__store_dup(res, nres);
        *nout = nres;
        rc = *out != NULL ? 0 : -1;
    }
    end(f);
    free(k);
    return rc;
}

static int
file_delete_key(ct_store *s, const char *key, bool *deleted)
{
    file_store *f = F(s);
    size_t klen = strlen(key);
    char *k = malloc(klen + 3);
    if (k == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
    }
    k[0] = DELETE_MARK;
    user_key(k + 1, key);
    if (begin(f, LOCK_EX) < 0) {
        free(k);
        return -1;
    }
    int rc = append(f, k, klen + 2, NULL, 0);
    end(f);
    free(k);
    /* c10d's FileStore reports true whether or not the key was there */
    *deleted = true;
    return rc;
}

static int
file_num_keys(ct_store *s, int64_t *out)
{
    file_store *f = F(s);
    if (begin(f, LOCK_SH) < 0) {
        return -1;
    }
    *out = (int64_t)ct__kv_count_prefixed(&f->cache, CT__STORE_USER_PREFIX);
    end(f);
    return 0;
}

static void
file_destroy(ct_store *s)
{
    file_store *f = F(s);
    ct_error_state saved;       /* closing must not disturb a pending error */
    ct_error_fetch(&saved);
    /* a forked child's copy (never used there) shares its parent's file
     * description: closing the fd leaves the parent's locks alone */
    if (f->fd >= 0 && f->counted && f->pid == getpid() && lock_file(f, LOCK_EX) == 0) {
        int64_t closed, open_left;
        if (refresh(f) == 0 &&
            add_locked(f, CLEANUP_KEY, strlen(CLEANUP_KEY), 1, &closed) == 0 &&
            add_locked(f, REFCOUNT_KEY, strlen(REFCOUNT_KEY), -1, &open_left) == 0 &&
            open_left <= 0 && f->world_size >= 0 && closed >= f->world_size &&
            live_lock(f->fd, F_WRLCK, false) != 0) {
            unlink(f->path);
        }
        unlock_file(f);
    }
    ct_error_restore(&saved);
    if (f->fd >= 0) {
        close(f->fd);
    }
    ct__kv_clear(&f->cache);
    free(f->buf);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static const ct_store_vtable file_vtable = {
    .name = "FileStore",
    .set = file_set,
    .get = file_get,
    .add = file_add,
    .compare_set = file_compare_set,
    .check = file_check,
    .wait = file_wait,
    .delete_key = file_delete_key,
    .num_keys = file_num_keys,
    .destroy = file_destroy,
};

ct_store *
ct_file_store_new(const char *path, int world_size, int64_t timeout_ms)
{
    size_t plen = strlen(path);
    file_store *f = calloc(1, sizeof *f + plen + 1);
    if (f == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in a c10d store");
        return NULL;
    }
    memcpy(f->path, path, plen + 1);
    f->world_size = world_size;
    f->pid = getpid();
    f->fd = -1;
    ct__kv_init(&f->cache);
    pthread_mutex_init(&f->mu, NULL);
    ct__store_init(&f->base, &file_vtable, timeout_ms);
    int64_t open_now;
    if (open_log(f) < 0) {
        file_destroy(&f->base);
        return NULL;
    }
    if (add_locked(f, REFCOUNT_KEY, strlen(REFCOUNT_KEY), 1, &open_now) < 0) {
        unlock_file(f);
        file_destroy(&f->base);
        return NULL;
    }
    f->counted = true;
    unlock_file(f);
    return &f->base;
}
