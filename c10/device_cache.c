/* c10/device_cache.c -- the caching allocator for device memory
 * (include/ctorch/device_cache.h has the rules).
 *
 * A segment is one raw allocation, cut into blocks that sit in address
 * order on a doubly linked list (prev/next), so a freed block can merge
 * with its free neighbours.  Free blocks live in two pools (small, large),
 * each an array sorted by (device, stream, size, address): the best fit
 * for a request is the first entry at or after (device, stream, size).
 * Blocks handed out are in an array sorted by address.  Both arrays are
 * small (a training loop holds hundreds of blocks), so binary search plus
 * memmove beats a tree here and stays short.
 */
#include <ctorch/device_cache.h>
#include <ctorch/error.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUND 512                       /* every size is a multiple */
#define SMALL_MAX ((size_t)1 << 20)     /* small pool: requests up to 1 MiB */
#define SMALL_SEGMENT ((size_t)2 << 20)
#define LARGE_SEGMENT ((size_t)20 << 20) /* for large requests under 10 MiB */
#define LARGE_MIN ((size_t)10 << 20)
#define LARGE_ROUND ((size_t)2 << 20)

typedef struct block {
    char *ptr;
    size_t size;
    int device;
    void *stream;
    bool small, allocated;
    int pending;                        /* events to wait for before reuse */
    struct block *prev, *next;          /* the segment's blocks */
    void **uses;                        /* other streams that used it */
    int nuses, capuses;
} block;

typedef struct {
    block **b;
    size_t n, cap;
} block_set;

typedef struct {
    void *event;
    block *b;
} pending_event;

struct ct_device_cache {
    ct_device_cache_ops ops;
    int ndevices;
    pthread_mutex_t lock;
    block_set small, large;             /* free blocks */
    block_set live;                     /* handed out, by address */
    block_set segments;                 /* each segment's first block (never
                                         * merged away: merges keep the
                                         * lower block) */
    pending_event *events;
    size_t nevents, capevents;
    ct_device_cache_stats *stats;
};

/* --- sorted sets ------------------------------------------------------------ */

static int
cmp_free(const block *a, int device, void *stream, size_t size, const char *ptr)
{
    if (a->device != device) {
        return a->device < device ? -1 : 1;
    }
    if (a->stream != stream) {
        return (uintptr_t)a->stream < (uintptr_t)stream ? -1 : 1;
    }
    if (a->size != size) {
        return a->size < size ? -1 : 1;
    }
    if (a->ptr != ptr) {
        return (uintptr_t)a->ptr < (uintptr_t)ptr ? -1 : 1;
    }
    return 0;
}

/* First index whose entry is not below the key. */
static size_t
lower_free(const block_set *s, int device, void *stream, size_t size, const char *ptr)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_free(s->b[mid], device, stream, size, ptr) < 0) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

static size_t
lower_addr(const block_set *s, const char *ptr)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((uintptr_t)s->b[mid]->ptr < (uintptr_t)ptr) {
            lo = mid + 1;
        }
        else {
            hi = mid;
        }
    }
    return lo;
}

static int
set_insert_at(block_set *s, size_t i, block *b)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        block **nb = realloc(s->b, cap * sizeof *nb);
        if (nb == NULL) {
            return ct_error(CT_ERR_NOMEM, "device cache: out of host memory");
        }
        s->b = nb;
        s->cap = cap;
    }
    memmove(s->b + i + 1, s->b + i, (s->n - i) * sizeof *s->b);
    s->b[i] = b;
    s->n++;
    return 0;
}

static void
set_remove_at(block_set *s, size_t i)
{
    memmove(s->b + i, s->b + i + 1, (s->n - i - 1) * sizeof *s->b);
    s->n--;
}

static block_set *
pool_of(ct_device_cache *c, const block *b)
{
    return b->small ? &c->small : &c->large;
}

static int
pool_insert(ct_device_cache *c, block *b)
{
    block_set *s = pool_of(c, b);
    return set_insert_at(s, lower_free(s, b->device, b->stream, b->size, b->ptr), b);
}

static void
pool_remove(ct_device_cache *c, block *b)
{
    block_set *s = pool_of(c, b);
    size_t i = lower_free(s, b->device, b->stream, b->size, b->ptr);
    if (i < s->n && s->b[i] == b) {
        set_remove_at(s, i);
    }
}

/* --- sizes and messages ------------------------------------------------------- */

size_t
ct_device_cache_round(size_t size)
{
    return size < ROUND ? ROUND : (size + ROUND - 1) / ROUND * ROUND;
}

static size_t
segment_size(size_t size)
{
    if (size <= SMALL_MAX) {
        return SMALL_SEGMENT;
    }
    if (size < LARGE_MIN) {
        return LARGE_SEGMENT;
    }
    return (size + LARGE_ROUND - 1) / LARGE_ROUND * LARGE_ROUND;
}

/* PyTorch's format_size: bytes, KiB, MiB, GiB. */
static void
format_size(char *buf, size_t n, uint64_t size)
{
    if (size <= 1024) {
        snprintf(buf, n, "%llu bytes", (unsigned long long)size);
    }
    else if (size <= 1048576) {
        snprintf(buf, n, "%.2f KiB", size / 1024.0);
    }
    else if (size <= 1073741824) {
        snprintf(buf, n, "%.2f MiB", size / 1048576.0);
    }
    else {
        snprintf(buf, n, "%.2f GiB", size / 1073741824.0);
    }
}

static void
out_of_memory(ct_device_cache *c, int device, size_t size)
{
    size_t free_b = 0, total_b = 0;
    if (c->ops.mem_info != NULL) {
        c->ops.mem_info(c->ops.ctx, device, &free_b, &total_b);
    }
    char want[32], total[32], alloc[32], avail[32], res[32];
    format_size(want, sizeof want, size);
    format_size(total, sizeof total, total_b);
    format_size(alloc, sizeof alloc, (uint64_t)c->stats[device].allocated);
    format_size(avail, sizeof avail, free_b);
    format_size(res, sizeof res, (uint64_t)c->stats[device].reserved);
    c->stats[device].ooms++;
    ct_error(CT_ERR_RUNTIME,
             "%s out of memory. Tried to allocate %s (GPU %d; %s total capacity; %s "
             "already allocated; %s free; %s reserved in total by PyTorch) If reserved "
             "memory is >> allocated memory try setting max_split_size_mb to avoid "
             "fragmentation.  See documentation for Memory Management and "
             "PYTORCH_CUDA_ALLOC_CONF",
             c->ops.name, want, device, total, alloc, avail, res);
}

/* --- the cache ------------------------------------------------------------------ */

ct_device_cache *
ct_device_cache_new(const ct_device_cache_ops *ops, int ndevices)
{
    ct_device_cache *c = calloc(1, sizeof *c);
    if (c == NULL) {
        return NULL;
    }
    c->ops = *ops;
    c->ndevices = ndevices;
    c->stats = calloc(ndevices > 0 ? (size_t)ndevices : 1, sizeof *c->stats);
    if (c->stats == NULL) {
        free(c);
        return NULL;
    }
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void
block_free_struct(block *b)
{
    free(b->uses);
    free(b);
}

/* Merge b with its free neighbours and put it in its pool (under lock). */
static void
block_return(ct_device_cache *c, block *b)
{
    block *p = b->prev, *n = b->next;
    if (p != NULL && !p->allocated && p->pending == 0) {
        pool_remove(c, p);
        p->size += b->size;
        p->next = n;
        if (n != NULL) {
            n->prev = p;
        }
        block_free_struct(b);
        b = p;
    }
    n = b->next;
    if (n != NULL && !n->allocated && n->pending == 0) {
        pool_remove(c, n);
        b->size += n->size;
        b->next = n->next;
        if (n->next != NULL) {
            n->next->prev = b;
        }
        block_free_struct(n);
    }
    if (pool_insert(c, b) < 0) {
        /* no host memory to list it: the block stays out of reach (its
         * segment is still freed with the cache) */
        ct_error_clear();
    }
}

/* Return the blocks whose events have all completed (under lock). */
static void
process_events(ct_device_cache *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->nevents; i++) {
        pending_event *e = &c->events[i];
        if (!c->ops.event_done(c->ops.ctx, e->event)) {
            c->events[k++] = *e;
            continue;
        }
        c->ops.event_free(c->ops.ctx, e->event);
        if (--e->b->pending == 0) {
            block_return(c, e->b);
        }
    }
    c->nevents = k;
}

/* Give the wholly free segments of device (all devices: -1) back (under
 * lock). */
static void
release_free_segments(ct_device_cache *c, int device)
{
    block_set *sets[2] = {&c->small, &c->large};
    for (int k = 0; k < 2; k++) {
        block_set *s = sets[k];
        for (size_t i = 0; i < s->n;) {
            block *b = s->b[i];
            if (b->prev != NULL || b->next != NULL || (device >= 0 && b->device != device)) {
                i++;
                continue;
            }
            set_remove_at(s, i);
            size_t j = lower_addr(&c->segments, b->ptr);
            if (j < c->segments.n && c->segments.b[j] == b) {
                set_remove_at(&c->segments, j);
            }
            c->ops.raw_free(c->ops.ctx, b->device, b->ptr);
            c->stats[b->device].reserved -= (int64_t)b->size;
            block_free_struct(b);
        }
    }
}

static block *
new_segment(ct_device_cache *c, int device, void *stream, size_t size, bool small)
{
    size_t seg = segment_size(size);
    void *p = c->ops.raw_alloc(c->ops.ctx, device, seg);
    if (p == NULL) {
        /* the device is full: hand the cache's free segments back, retry */
        c->stats[device].retries++;
        release_free_segments(c, device);
        p = c->ops.raw_alloc(c->ops.ctx, device, seg);
    }
    if (p == NULL) {
        out_of_memory(c, device, size);
        return NULL;
    }
    block *b = calloc(1, sizeof *b);
    if (b == NULL) {
        c->ops.raw_free(c->ops.ctx, device, p);
        ct_error(CT_ERR_NOMEM, "device cache: out of host memory");
        return NULL;
    }
    *b = (block){.ptr = p, .size = seg, .device = device, .stream = stream, .small = small};
    if (set_insert_at(&c->segments, lower_addr(&c->segments, b->ptr), b) < 0) {
        c->ops.raw_free(c->ops.ctx, device, p);
        free(b);
        return NULL;
    }
    ct_device_cache_stats *st = &c->stats[device];
    st->reserved += (int64_t)seg;
    st->max_reserved = st->reserved > st->max_reserved ? st->reserved : st->max_reserved;
    return b;
}

void *
ct_device_cache_alloc(ct_device_cache *c, int device, void *stream, size_t size)
{
    if (device < 0 || device >= c->ndevices) {
        ct_error(CT_ERR_RUNTIME, "device cache: no device %d", device);
        return NULL;
    }
    if (size == 0) {
        return NULL;
    }
    pthread_mutex_lock(&c->lock);
    if (size > ((size_t)1 << 62)) {
        /* no device has this much, and rounding it would wrap around */
        out_of_memory(c, device, size);
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    size = ct_device_cache_round(size);
    bool small = size <= SMALL_MAX;
    process_events(c);
    block_set *pool = small ? &c->small : &c->large;
    size_t i = lower_free(pool, device, stream, size, NULL);
    block *b = NULL;
    if (i < pool->n && pool->b[i]->device == device && pool->b[i]->stream == stream) {
        b = pool->b[i];
        set_remove_at(pool, i);
    }
    else if ((b = new_segment(c, device, stream, size, small)) == NULL) {
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    /* split off the rest when it can serve another request of the pool */
    size_t rest = b->size - size;
    if (small ? rest >= ROUND : rest > SMALL_MAX) {
        block *r = calloc(1, sizeof *r);
        if (r != NULL) {
            *r = (block){.ptr = b->ptr + size, .size = rest, .device = device,
                         .stream = stream, .small = small, .prev = b, .next = b->next};
            if (b->next != NULL) {
                b->next->prev = r;
            }
            b->next = r;
            b->size = size;
            if (pool_insert(c, r) < 0) {
                /* unlisted, r cannot be found again: undo the split */
                b->next = r->next;
                if (r->next != NULL) {
                    r->next->prev = b;
                }
                b->size += rest;
                free(r);
                ct_error_clear();
            }
        }
    }
    if (set_insert_at(&c->live, lower_addr(&c->live, b->ptr), b) < 0) {
        block_return(c, b);
        pthread_mutex_unlock(&c->lock);
        return NULL;
    }
    b->allocated = true;
    ct_device_cache_stats *st = &c->stats[device];
    st->allocated += (int64_t)b->size;
    st->max_allocated = st->allocated > st->max_allocated ? st->allocated : st->max_allocated;
    st->allocations++;
    pthread_mutex_unlock(&c->lock);
    return b->ptr;
}

/* The live block at p (under lock); its index in *at. */
static block *
find_live(ct_device_cache *c, const void *p, size_t *at)
{
    size_t i = lower_addr(&c->live, p);
    if (i < c->live.n && c->live.b[i]->ptr == p) {
        *at = i;
        return c->live.b[i];
    }
    return NULL;
}

int
ct_device_cache_release(ct_device_cache *c, void *p)
{
    if (p == NULL) {
        return 0;
    }
    pthread_mutex_lock(&c->lock);
    size_t i;
    block *b = find_live(c, p, &i);
    if (b == NULL) {
        pthread_mutex_unlock(&c->lock);
        return ct_error(CT_ERR_RUNTIME, "device cache: %p was not allocated here", p);
    }
    set_remove_at(&c->live, i);
    b->allocated = false;
    c->stats[b->device].allocated -= (int64_t)b->size;
    /* reuse on the block's own stream is ordered after this user's work;
     * on any other stream it used, wait for an event recorded there now */
    for (int k = 0; k < b->nuses; k++) {
        void *ev = c->ops.event_record(c->ops.ctx, b->device, b->uses[k]);
        if (ev == NULL) {
            continue;
        }
        if (c->nevents == c->capevents) {
            size_t cap = c->capevents ? 2 * c->capevents : 16;
            pending_event *ne = realloc(c->events, cap * sizeof *ne);
            if (ne == NULL) {
                c->ops.event_free(c->ops.ctx, ev); /* cannot wait: hold the block */
                b->pending++;
                continue;
            }
            c->events = ne;
            c->capevents = cap;
        }
        c->events[c->nevents++] = (pending_event){ev, b};
        b->pending++;
    }
    b->nuses = 0;
    if (b->pending == 0) {
        block_return(c, b);
    }
    pthread_mutex_unlock(&c->lock);
    return 0;
}

int
ct_device_cache_record_stream(ct_device_cache *c, void *p, void *stream)
{
    pthread_mutex_lock(&c->lock);
    size_t i;
    block *b = find_live(c, p, &i);
    int rc = 0;
    if (b == NULL) {
        rc = ct_error(CT_ERR_RUNTIME, "device cache: %p was not allocated here", p);
    }
    else if (stream != b->stream) {
        bool seen = false;
        for (int k = 0; k < b->nuses; k++) {
            seen |= b->uses[k] == stream;
        }
        if (!seen && b->nuses == b->capuses) {
            int cap = b->capuses ? 2 * b->capuses : 2;
            void **nu = realloc(b->uses, (size_t)cap * sizeof *nu);
            if (nu == NULL) {
                rc = ct_error(CT_ERR_NOMEM, "device cache: out of host memory");
                seen = true;
            }
            else {
                b->uses = nu;
                b->capuses = cap;
            }
        }
        if (!seen) {
            b->uses[b->nuses++] = stream;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

void
ct_device_cache_empty(ct_device_cache *c)
{
    pthread_mutex_lock(&c->lock);
    process_events(c);
    release_free_segments(c, -1);
    pthread_mutex_unlock(&c->lock);
}

ct_device_cache_stats
ct_device_cache_stats_get(ct_device_cache *c, int device)
{
    ct_device_cache_stats st = {0};
    if (device >= 0 && device < c->ndevices) {
        pthread_mutex_lock(&c->lock);
        st = c->stats[device];
        pthread_mutex_unlock(&c->lock);
    }
    return st;
}

void
ct_device_cache_reset_peak(ct_device_cache *c, int device)
{
    if (device >= 0 && device < c->ndevices) {
        pthread_mutex_lock(&c->lock);
        c->stats[device].max_allocated = c->stats[device].allocated;
        c->stats[device].max_reserved = c->stats[device].reserved;
        pthread_mutex_unlock(&c->lock);
    }
}

void
ct_device_cache_free(ct_device_cache *c)
{
    if (c == NULL) {
        return;
    }
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->nevents; i++) {
        c->ops.event_free(c->ops.ctx, c->events[i].event);
    }
    for (size_t i = 0; i < c->segments.n; i++) {
        block *b = c->segments.b[i];
        c->ops.raw_free(c->ops.ctx, b->device, b->ptr);
        while (b != NULL) {
            block *n = b->next;
            block_free_struct(b);
            b = n;
        }
    }
    pthread_mutex_unlock(&c->lock);
    pthread_mutex_destroy(&c->lock);
    free(c->small.b);
    free(c->large.b);
    free(c->live.b);
    free(c->segments.b);
    free(c->events);
    free(c->stats);
    free(c);
}
