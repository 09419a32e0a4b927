/* c10/allocator.c -- the CPU allocator and the live-memory counters.
 *
 * Note [Caching CPU allocator]
 * Touching freshly mapped pages costs about 3 ms per MB here, far more than
 * the arithmetic of a pointwise op, so large blocks are not returned to the
 * system when freed: they are kept (bounded by CACHE_LIMIT bytes in all) and
 * handed out again for a request of the same rounded size.  Small blocks go
 * straight to malloc, whose own free lists already do this.  All blocks are
 * 64-byte aligned so vector loops start on a cache line.
 */
#include <ctorch/allocator.h>
#include "c10_impl.h"
#include <ctorch/error.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ALIGNMENT 64
#define CACHE_MIN_BYTES ((size_t)1 << 16)     /* smaller: plain malloc */
#define CACHE_LIMIT ((size_t)1 << 30)         /* bytes kept in the cache */
#define CACHE_SLOTS 64

/* Note [Live counters]
 * Counting every tensor and storage with a shared atomic costs a locked
 * instruction per object, a visible share of a 1-element op.  Each thread
 * counts in its own block instead; blocks are registered once and never
 * freed, and a reading sums them.  A thread may free what another made, so
 * one block can go negative; the sum is right. */
typedef struct counter_block {
    int64_t bytes, tensors, storages;
    struct counter_block *next;
} counter_block;

static pthread_mutex_t counters_lock = PTHREAD_MUTEX_INITIALIZER;
static counter_block *all_counters;
static _Thread_local counter_block *my_counters;

static counter_block *
counters(void)
{
    if (my_counters == NULL) {
        counter_block *b = calloc(1, sizeof *b);
        CT_ASSERT(b != NULL);
        pthread_mutex_lock(&counters_lock);
        b->next = all_counters;
        all_counters = b;
        pthread_mutex_unlock(&counters_lock);
        my_counters = b;
    }
    return my_counters;
}

/* Only the owning thread writes its block; readers load it relaxed. */
static inline void
bump(int64_t *field, int64_t delta)
{
    __atomic_store_n(field, __atomic_load_n(field, __ATOMIC_RELAXED) + delta,
                     __ATOMIC_RELAXED);
}

/* Sum of one field over every thread's block. */
static int64_t
counter_sum(size_t offset)
{
    int64_t n = 0;
    pthread_mutex_lock(&counters_lock);
    for (counter_block *b = all_counters; b != NULL; b = b->next) {
        n += __atomic_load_n((int64_t *)((char *)b + offset), __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&counters_lock);
    return n;
}
static atomic_long fail_countdown = -2;       /* -2: env not read yet */

typedef struct {
    void *ptr;
    size_t nbytes;
} cached_block;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cached_block cache[CACHE_SLOTS];
static int cache_count;
static size_t cache_bytes;

/* Rounded size class: 64 KiB granularity up to 1 MiB, then 1/8 steps of
 * the next power of two, so a reused block wastes at most 12.5%. */
static size_t
round_size(size_t n)
{
    if (n < CACHE_MIN_BYTES) {
        return (n + ALIGNMENT - 1) & ~(size_t)(ALIGNMENT - 1);
    }
    size_t p = CACHE_MIN_BYTES;
    while (p * 2 <= n) {
        p *= 2;
    }
    size_t step = p < ((size_t)1 << 20) ? CACHE_MIN_BYTES : p / 8;
    return (n + step - 1) / step * step;
}

bool
ct__alloc_should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c == -2) {
        const char *env = getenv("CT_FAIL_ALLOC_AFTER");
        long v = env ? strtol(env, NULL, 10) : -1;
        atomic_compare_exchange_strong(&fail_countdown, &c, v < 0 ? -1 : v);
        c = atomic_load(&fail_countdown);
    }
    if (c < 0) {
        return false;
    }
    return atomic_fetch_sub(&fail_countdown, 1) <= 0;
}

static void *
cpu_alloc(const ct_allocator *self, size_t nbytes)
{
    (void)self;
    size_t n = round_size(nbytes ? nbytes : 1);
    void *p = NULL;

    if (ct__alloc_should_fail()) {
        ct_error(CT_ERR_NOMEM, "CT_FAIL_ALLOC_AFTER: allocation of %zu bytes "
                 "failed on purpose", nbytes);
        return NULL;
    }
    if (n >= CACHE_MIN_BYTES) {
        pthread_mutex_lock(&cache_lock);
        for (int i = cache_count - 1; i >= 0; i--) {
            if (cache[i].nbytes == n) {
                p = cache[i].ptr;
                cache_bytes -= n;
                cache[i] = cache[--cache_count];
                break;
            }
        }
        pthread_mutex_unlock(&cache_lock);
    }
    if (p == NULL) {
        p = aligned_alloc(ALIGNMENT, n);
    }
    if (p == NULL) {
        ct_error(CT_ERR_RUNTIME, "[enforce fail at alloc_cpu.cpp:73] data. "
                 "DefaultCPUAllocator: not enough memory: you tried to allocate "
                 "%zu bytes.", nbytes);
        return NULL;
    }
    bump(&counters()->bytes, (int64_t)n);
    return p;
}

static void
cpu_free(const ct_allocator *self, void *ptr, size_t nbytes)
{
    (void)self;
    size_t n = round_size(nbytes ? nbytes : 1);

    if (ptr == NULL) {
        return;
    }
    bump(&counters()->bytes, -(int64_t)n);
    if (n >= CACHE_MIN_BYTES) {
        pthread_mutex_lock(&cache_lock);
        /* make room: evict the oldest blocks first */
        while (cache_count > 0 &&
               (cache_count == CACHE_SLOTS || cache_bytes + n > CACHE_LIMIT)) {
            cache_bytes -= cache[0].nbytes;
            free(cache[0].ptr);
            memmove(cache, cache + 1, (size_t)(cache_count - 1) * sizeof cache[0]);
            cache_count--;
        }
        if (n <= CACHE_LIMIT) {
            cache[cache_count].ptr = ptr;
            cache[cache_count].nbytes = n;
            cache_count++;
            cache_bytes += n;
            ptr = NULL;
        }
        pthread_mutex_unlock(&cache_lock);
    }
    free(ptr);
}

static const ct_allocator cpu_allocator = {"cpu", cpu_alloc, cpu_free};

const ct_allocator *
ct_cpu_allocator(void)
{
    return &cpu_allocator;
}

void
ct_cpu_allocator_empty_cache(void)
{
    pthread_mutex_lock(&cache_lock);
    for (int i = 0; i < cache_count; i++) {
        free(cache[i].ptr);
    }
    cache_count = 0;
    cache_bytes = 0;
    pthread_mutex_unlock(&cache_lock);
}

size_t
ct_cpu_allocator_cached_bytes(void)
{
    pthread_mutex_lock(&cache_lock);
    size_t n = cache_bytes;
    pthread_mutex_unlock(&cache_lock);
    return n;
}

int64_t
ct_live_bytes(void)
{
    return counter_sum(offsetof(counter_block, bytes));
}

int64_t
ct_live_tensors(void)
{
    return counter_sum(offsetof(counter_block, tensors));
}

int64_t
ct_live_storages(void)
{
    return counter_sum(offsetof(counter_block, storages));
}

/* Counters for storage.c and tensor.c (declared in c10/c10_impl.h). */
void
ct__count_tensor(int delta)
{
    bump(&counters()->tensors, delta);
}

void
ct__count_storage(int delta)
{
    bump(&counters()->storages, delta);
}
