/* c10/shm.c -- storages in shared memory (see ctorch/shm.h).
 *
 * Note [Shared segments]
 * A shared storage is an outside-memory storage whose deleter is
 * seg_release and whose deleter_ctx is its seg.  Every seg mapped in this
 * process is on one list, keyed by (device, inode) of its file, so that a
 * segment arriving again -- twice through a queue, or back at the process
 * that made it -- gives the storage already mapped instead of a second
 * mapping: views that shared a storage before the trip share it after.
 * A lookup takes a reference only if the storage is not already on its way
 * out (refcount 0 with the deleter waiting for the lock).
 *
 * A named segment begins with a 64-byte header holding the number of
 * processes that map it; data follows, so it stays 64-byte aligned.  A
 * fork child inherits the parent's mappings, so it counts itself in for
 * each (pthread_atfork).
 */
#include <ctorch/error.h>
#include <ctorch/shm.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HEADER 64
#define PREFIX "ctorch_"

typedef struct seg {
    struct seg *next;
    ct_storage *owner;          /* borrowed: the storage this seg backs */
    ct_shm_kind kind;
    int fd;                     /* CT_SHM_FD: owned; else -1 */
    dev_t dev;
    ino_t ino;
    char name[64];              /* CT_SHM_NAME: "/ctorch_..." */
    char *map;
    size_t maplen;
} seg;

static pthread_mutex_t segs_lock = PTHREAD_MUTEX_INITIALIZER;
static seg *segs;
static long nsegs;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static atomic_int *
seg_count(seg *g)
{
    return (atomic_int *)g->map;
}

static void
lock_segs(void)
{
    pthread_mutex_lock(&segs_lock);
}

static void
unlock_segs(void)
{
    pthread_mutex_unlock(&segs_lock);
}

static void
child_after_fork(void)
{
    for (seg *g = segs; g != NULL; g = g->next) {
        if (g->kind == CT_SHM_NAME) {
            atomic_fetch_add(seg_count(g), 1);
        }
    }
    unlock_segs();
}

static void
install_atfork(void)
{
    pthread_atfork(lock_segs, unlock_segs, child_after_fork);
}

static void
seg_release(void *ctx)
{
    seg *g = ctx;
    lock_segs();
    for (seg **p = &segs; *p != NULL; p = &(*p)->next) {
        if (*p == g) {
            *p = g->next;
            nsegs--;
            break;
        }
    }
    unlock_segs();
    bool last = g->kind == CT_SHM_NAME && atomic_fetch_sub(seg_count(g), 1) == 1;
    munmap(g->map, g->maplen);
    if (g->fd >= 0) {
        close(g->fd);
    }
    if (last) {
        shm_unlink(g->name);
    }
    free(g);
}

static ct_storage *storage_over(seg *g, size_t nbytes);

static bool
is_shared_as(const ct_storage *s, ct_shm_kind kind)
{
    return s->deleter == seg_release && ((seg *)s->deleter_ctx)->kind == kind;
}

static size_t
data_offset(ct_shm_kind kind)
{
    return kind == CT_SHM_NAME ? HEADER : 0;
}

/* Map fd (maplen bytes) into a new seg; fd is consumed either way. */
static seg *
seg_map(int fd, ct_shm_kind kind, size_t maplen, const char *name)
{
    struct stat st;
    seg *g = calloc(1, sizeof *g);
    if (g == NULL) {
        close(fd);
        ct_error(CT_ERR_NOMEM, "out of memory allocating a shared segment");
        return NULL;
    }
    void *map = fstat(fd, &st) == 0 && (size_t)st.st_size >= maplen
                    ? mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                    : MAP_FAILED;
    if (map == MAP_FAILED) {
        int err = errno;
        close(fd);
        free(g);
        ct_error(CT_ERR_RUNTIME, "unable to mmap %zu bytes from shared memory: %s",
                 maplen, err ? strerror(err) : "segment too small");
        return NULL;
    }
    g->kind = kind;
    g->dev = st.st_dev;
    g->ino = st.st_ino;
    g->map = map;
    g->maplen = maplen;
    if (kind == CT_SHM_FD) {
        g->fd = fd;
    }
    else {
        g->fd = -1;
        close(fd);              /* the mapping keeps the segment */
        snprintf(g->name, sizeof g->name, "%s", name);
    }
    return g;
}

static void
seg_publish(seg *g, ct_storage *owner)
{
    pthread_once(&atfork_once, install_atfork);
    g->owner = owner;
    lock_segs();
    g->next = segs;
    segs = g;
    nsegs++;
    unlock_segs();
}

/* The live storage over (dev, ino), with a new reference, or NULL. */
static ct_storage *
lookup(dev_t dev, ino_t ino)
{
    ct_storage *found = NULL;
    lock_segs();
    for (seg *g = segs; g != NULL && found == NULL; g = g->next) {
        if (g->dev != dev || g->ino != ino) {
            continue;
        }
        long n = atomic_load(&g->owner->refcnt);
        while (n > 0 && !atomic_compare_exchange_weak(&g->owner->refcnt, &n, n + 1)) {
        }
        found = n > 0 ? g->owner : NULL;
    }
    unlock_segs();
    return found;
}

/* A fresh segment of at least nbytes: a memfd, or a new name. */
static seg *
seg_create(ct_shm_kind kind, size_t nbytes)
{
    static atomic_uint counter;
    char name[64] = "";
    size_t maplen = data_offset(kind) + (nbytes ? nbytes : 1);
    int fd = -1;
    if (kind == CT_SHM_FD) {
        fd = memfd_create("ctorch", MFD_CLOEXEC);
    }
    else {
        for (int tries = 0; fd < 0 && tries < 100; tries++) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            snprintf(name, sizeof name, "/" PREFIX "%ld_%u_%ld", (long)getpid(),
                     atomic_fetch_add(&counter, 1), (long)(ts.tv_nsec & 0xffffff));
            fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
            if (fd < 0 && errno != EEXIST) {
                break;
            }
        }
    }
    if (fd < 0 || ftruncate(fd, (off_t)maplen) != 0) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
            if (kind == CT_SHM_NAME) {
                shm_unlink(name);
            }
        }
        ct_error(CT_ERR_RUNTIME, "unable to create a shared memory segment of %zu "
                 "bytes: %s", maplen, strerror(err));
        return NULL;
    }
    seg *g = seg_map(fd, kind, maplen, name);
    if (g == NULL && kind == CT_SHM_NAME) {
        shm_unlink(name);
    }
    if (g != NULL && kind == CT_SHM_NAME) {
        atomic_init(seg_count(g), 1);
    }
    return g;
}

int
ct_storage_share(ct_storage *s, ct_shm_kind kind)
{
    if (is_shared_as(s, kind)) {
        return 0;
    }
    if (s->device.type != CT_DEVICE_CPU) {
        return ct_error(CT_ERR_RUNTIME, "share_memory_: only CPU storages can be "
                        "moved to shared memory here");
    }
    seg *g = seg_create(kind, s->nbytes);
    if (g == NULL) {
        return -1;
    }
    char *data = g->map + data_offset(kind);
    memcpy(data, s->data, s->nbytes);
    /* give the old memory back the way it came (an inline small block has
     * nothing to give back) */
    if (s->allocator != NULL) {
        s->allocator->free(s->allocator, s->data, s->nbytes);
    }
    else if (s->deleter != NULL) {
        s->deleter(s->deleter_ctx);
    }
    s->allocator = NULL;
    s->data = data;
    s->deleter = seg_release;
    s->deleter_ctx = g;
    s->flags = (s->flags | CT_STORAGE_SHARED) & ~(unsigned)CT_STORAGE_RESIZABLE;
    seg_publish(g, s);
    return 0;
}

ct_storage *
ct_storage_new_shared(size_t nbytes, ct_shm_kind kind)
{
    seg *g = seg_create(kind, nbytes);
    return g == NULL ? NULL : storage_over(g, nbytes);
}

int
ct_storage_shm_fd(const ct_storage *s)
{
    return is_shared_as(s, CT_SHM_FD) ? ((seg *)s->deleter_ctx)->fd : -1;
}

const char *
ct_storage_shm_name(const ct_storage *s)
{
    return is_shared_as(s, CT_SHM_NAME) ? ((seg *)s->deleter_ctx)->name : NULL;
}

static ct_storage *
storage_over(seg *g, size_t nbytes)
{
    ct_storage *s = ct_storage_new_external(g->map + data_offset(g->kind), nbytes,
                                            ct_device_cpu(), seg_release, g);
    if (s == NULL) {
        seg_release(g);
        return NULL;
    }
    s->flags |= CT_STORAGE_SHARED;
    seg_publish(g, s);
    return s;
}

ct_storage *
ct_storage_from_shm_fd(int fd, size_t nbytes)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ct_error(CT_ERR_RUNTIME, "shared memory descriptor %d: %s", fd, strerror(errno));
        return NULL;
    }
    ct_storage *s = lookup(st.st_dev, st.st_ino);
    if (s != NULL) {
        return s;
    }
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        ct_error(CT_ERR_RUNTIME, "unable to duplicate shared memory descriptor %d: %s",
                 fd, strerror(errno));
        return NULL;
    }
    seg *g = seg_map(own, CT_SHM_FD, nbytes ? nbytes : 1, NULL);
    return g == NULL ? NULL : storage_over(g, nbytes);
}

ct_storage *
ct_storage_from_shm_name(const char *name, size_t nbytes)
{
    if (strlen(name) >= 64) {
        ct_error(CT_ERR_RUNTIME, "shared memory name too long: %s", name);
        return NULL;
    }
    int fd = shm_open(name, O_RDWR, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
        }
        ct_error(CT_ERR_RUNTIME, "unable to open shared memory object <%s> in read-write "
                 "mode: %s (%d)", name, strerror(err), err);
        return NULL;
    }
    ct_storage *s = lookup(st.st_dev, st.st_ino);
    if (s != NULL) {
        /* mapped here already: the sender's count is not needed */
        close(fd);
        atomic_fetch_sub(seg_count(s->deleter_ctx), 1);
        return s;
    }
    seg *g = seg_map(fd, CT_SHM_NAME, HEADER + (nbytes ? nbytes : 1), name);
    return g == NULL ? NULL : storage_over(g, nbytes);
}

int
ct_storage_shm_incref(ct_storage *s)
{
    if (!is_shared_as(s, CT_SHM_NAME)) {
        return ct_error(CT_ERR_RUNTIME, "_shared_incref: the storage is not in a named "
                        "shared memory segment");
    }
    atomic_fetch_add(seg_count(s->deleter_ctx), 1);
    return 0;
}

int
ct_shm_cleanup(int at_exit)
{
    DIR *dir = opendir("/dev/shm");
    int n = 0;
    if (dir == NULL) {
        return 0;
    }
    long self = (long)getpid();
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        char *end;
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)) != 0) {
            continue;
        }
        long pid = strtol(e->d_name + strlen(PREFIX), &end, 10);
        if (*end != '_' || pid <= 0) {
            continue;
        }
        bool dead = pid != self && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        if (dead || (at_exit && pid == self)) {
            char path[300];
            snprintf(path, sizeof path, "/%s", e->d_name);
            n += shm_unlink(path) == 0;
        }
    }
    closedir(dir);
    return n;
}

long
ct_shm_live_segments(void)
{
    lock_segs();
    long n = nsegs;
    unlock_segs();
    return n;
}
