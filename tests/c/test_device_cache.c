/* tests/c/test_device_cache.c -- the device caching allocator over a
 * pretend device: raw allocations are malloc'd against a capacity, events
 * complete when the test says so. */
#include "tests/c/test.h"

#include <ctorch/device_cache.h>

#include <stdlib.h>

#define MiB ((size_t)1 << 20)

typedef struct {
    size_t capacity, used;
    int raw_allocs, raw_frees, events_live;
    bool events_done;
} fake_dev;

typedef struct {
    fake_dev *dev;
    size_t size;
} fake_seg;

static void *
fake_alloc(void *ctx, int device, size_t size)
{
    fake_dev *d = (fake_dev *)ctx + device;
    if (d->used + size > d->capacity) {
        return NULL;
    }
    /* a header before the pointer keeps the size for fake_free */
    size_t *p = malloc(size + 64);
    if (p == NULL) {
        return NULL;
    }
    p[0] = size;
    d->used += size;
    d->raw_allocs++;
    return (char *)p + 64;
}

static void
fake_free(void *ctx, int device, void *p)
{
    fake_dev *d = (fake_dev *)ctx + device;
    size_t *h = (size_t *)((char *)p - 64);
    d->used -= h[0];
    d->raw_frees++;
    free(h);
}

static void *
fake_event_record(void *ctx, int device, void *stream)
{
    (void)stream;
    fake_dev *d = (fake_dev *)ctx + device;
    d->events_live++;
    return d;                       /* done when the device says so */
}

static bool
fake_event_done(void *ctx, void *event)
{
    (void)ctx;
    return ((fake_dev *)event)->events_done;
}

static void
fake_event_free(void *ctx, void *event)
{
    (void)ctx;
    ((fake_dev *)event)->events_live--;
}

static void
fake_mem_info(void *ctx, int device, size_t *free_bytes, size_t *total)
{
    fake_dev *d = (fake_dev *)ctx + device;
    *free_bytes = d->capacity - d->used;
    *total = d->capacity;
}

static ct_device_cache *
fake_cache(fake_dev *devs, int n)
{
    ct_device_cache_ops ops = {"CUDA", devs, fake_alloc, fake_free, fake_event_record,
                               fake_event_done, fake_event_free, fake_mem_info};
    return ct_device_cache_new(&ops, n);
}

static void *S1 = (void *)0x100, *S2 = (void *)0x200;

/* Small requests share 2 MiB segments; a freed block is reused by the
 * next request of its stream and merges with its free neighbours. */
TEST_IMPL(device_cache_small_blocks)
{
    fake_dev dev = {.capacity = 1024 * MiB};
    ct_device_cache *c = fake_cache(&dev, 1);
    CT_ASSERT_OK(c);
    CT_ASSERT_EQ_INT(ct_device_cache_round(1), 512);
    CT_ASSERT_EQ_INT(ct_device_cache_round(512), 512);
    CT_ASSERT_EQ_INT(ct_device_cache_round(513), 1024);
    char *a = ct_device_cache_alloc(c, 0, S1, 1000);
    char *b = ct_device_cache_alloc(c, 0, S1, 100);
    char *d = ct_device_cache_alloc(c, 0, S1, 3000);
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(b);
    CT_ASSERT_OK(d);
    CT_ASSERT_TRUE(b == a + 1024 && d == b + 512);        /* one segment, cut */
    CT_ASSERT_EQ_INT(dev.raw_allocs, 1);
    ct_device_cache_stats st = ct_device_cache_stats_get(c, 0);
    CT_ASSERT_EQ_INT(st.allocated, 1024 + 512 + 3072);
    CT_ASSERT_EQ_INT(st.reserved, 2 * MiB);
    CT_ASSERT_EQ_INT(st.allocations, 3);

    CT_ASSERT_RC_OK(ct_device_cache_release(c, b));
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, 512) == b);  /* best fit */
    CT_ASSERT_RC_OK(ct_device_cache_release(c, b));
    /* another stream gets a segment of its own */
    char *e = ct_device_cache_alloc(c, 0, S2, 512);
    CT_ASSERT_OK(e);
    CT_ASSERT_TRUE(e < a || e >= a + 2 * MiB);
    CT_ASSERT_EQ_INT(dev.raw_allocs, 2);
    /* a, b, d free again merge into the whole segment */
    CT_ASSERT_RC_OK(ct_device_cache_release(c, a));
    CT_ASSERT_RC_OK(ct_device_cache_release(c, d));
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, MiB) == a);
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, MiB) == a + MiB);
    CT_ASSERT_EQ_INT(dev.raw_allocs, 2);
    st = ct_device_cache_stats_get(c, 0);
    CT_ASSERT_EQ_INT(st.allocated, 2 * MiB + 512);
    CT_ASSERT_EQ_INT(st.max_allocated, 2 * MiB + 512);
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, 0) == NULL); /* nothing, no error */
    CT_ASSERT_TRUE(!ct_error_occurred());
    ct_device_cache_free(c);                               /* with blocks still out */
    CT_ASSERT_EQ_INT(dev.raw_frees, dev.raw_allocs);
    CT_ASSERT_EQ_INT(dev.used, 0);
}

/* Large requests: a 20 MiB segment under 10 MiB, else the request rounded
 * to 2 MiB; empty_cache gives back whole free segments only. */
TEST_IMPL(device_cache_large_blocks)
{
    fake_dev dev = {.capacity = 1024 * MiB};
    ct_device_cache *c = fake_cache(&dev, 1);
    CT_ASSERT_OK(c);
    char *a = ct_device_cache_alloc(c, 0, S1, 3 * MiB);
    CT_ASSERT_OK(a);
    CT_ASSERT_EQ_INT(dev.used, 20 * MiB);
    char *b = ct_device_cache_alloc(c, 0, S1, 4 * MiB);   /* the rest of it */
    CT_ASSERT_TRUE(b == a + 3 * MiB);
    char *fit = ct_device_cache_alloc(c, 0, S1, 11 * MiB + 1); /* the 13 MiB left */
    CT_ASSERT_TRUE(fit == b + 4 * MiB);
    CT_ASSERT_RC_OK(ct_device_cache_release(c, fit));
    char *big = ct_device_cache_alloc(c, 0, S1, 13 * MiB + 1);  /* a 14 MiB segment */
    CT_ASSERT_OK(big);
    CT_ASSERT_EQ_INT(dev.used, 20 * MiB + 14 * MiB);
    ct_device_cache_stats st = ct_device_cache_stats_get(c, 0);
    /* the segment's last MiB is too small to split off: the block keeps it */
    CT_ASSERT_EQ_INT(st.allocated, 7 * MiB + 14 * MiB);
    CT_ASSERT_EQ_INT(st.reserved, 34 * MiB);
    CT_ASSERT_RC_OK(ct_device_cache_release(c, big));
    CT_ASSERT_RC_OK(ct_device_cache_release(c, a));
    ct_device_cache_empty(c);                 /* b holds the 20 MiB segment */
    CT_ASSERT_EQ_INT(dev.used, 20 * MiB);
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).reserved, 20 * MiB);
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).max_reserved, 34 * MiB);
    ct_device_cache_reset_peak(c, 0);
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).max_reserved, 20 * MiB);
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).max_allocated, 4 * MiB);
    CT_ASSERT_RC_OK(ct_device_cache_release(c, b));
    ct_device_cache_empty(c);
    CT_ASSERT_EQ_INT(dev.used, 0);
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).reserved, 0);
    ct_device_cache_free(c);
    CT_ASSERT_EQ_INT(dev.raw_frees, dev.raw_allocs);
}

/* A block used on another stream comes back only after that stream's
 * event completes. */
TEST_IMPL(device_cache_record_stream)
{
    fake_dev dev = {.capacity = 1024 * MiB};
    ct_device_cache *c = fake_cache(&dev, 1);
    CT_ASSERT_OK(c);
    char *a = ct_device_cache_alloc(c, 0, S1, 4096);
    CT_ASSERT_OK(a);
    CT_ASSERT_RC_OK(ct_device_cache_record_stream(c, a, S2));
    CT_ASSERT_RC_OK(ct_device_cache_record_stream(c, a, S2));   /* once */
    CT_ASSERT_RC_OK(ct_device_cache_record_stream(c, a, S1));   /* its own: nothing */
    CT_ASSERT_RC_OK(ct_device_cache_release(c, a));
    CT_ASSERT_EQ_INT(dev.events_live, 1);
    char *b = ct_device_cache_alloc(c, 0, S1, 4096);
    CT_ASSERT_TRUE(b != a);                                /* still in use on S2 */
    dev.events_done = true;
    char *d = ct_device_cache_alloc(c, 0, S1, 4096);
    CT_ASSERT_TRUE(d == a);
    CT_ASSERT_EQ_INT(dev.events_live, 0);
    /* an unknown pointer, a device out of range */
    CT_ASSERT_EQ_INT(ct_device_cache_release(c, a + 1), -1);
    CT_ASSERT_TRUE(ct_error_occurred());
    ct_error_clear();
    CT_ASSERT_EQ_INT(ct_device_cache_record_stream(c, (void *)8, S2), -1);
    ct_error_clear();
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 1, S1, 8) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME, "device cache: no device 1");
    /* a pending block at free time: its segment still goes back */
    dev.events_done = false;
    CT_ASSERT_RC_OK(ct_device_cache_record_stream(c, b, S2));
    CT_ASSERT_RC_OK(ct_device_cache_release(c, b));
    ct_device_cache_free(c);
    CT_ASSERT_EQ_INT(dev.raw_frees, dev.raw_allocs);
    CT_ASSERT_EQ_INT(dev.events_live, 0);
}

/* A full device: the cached free segments go back and the request is
 * tried again; then PyTorch's message. */
TEST_IMPL(device_cache_out_of_memory)
{
    fake_dev devs[2] = {{.capacity = 64 * MiB}, {.capacity = 64 * MiB}};
    ct_device_cache *c = fake_cache(devs, 2);
    CT_ASSERT_OK(c);
    char *a = ct_device_cache_alloc(c, 0, S1, 12 * MiB);
    char *other = ct_device_cache_alloc(c, 1, S1, 12 * MiB);
    CT_ASSERT_OK(a);
    CT_ASSERT_OK(other);
    CT_ASSERT_RC_OK(ct_device_cache_release(c, a));
    CT_ASSERT_RC_OK(ct_device_cache_release(c, other));
    char *big = ct_device_cache_alloc(c, 0, S1, 60 * MiB);
    CT_ASSERT_OK(big);
    ct_device_cache_stats st = ct_device_cache_stats_get(c, 0);
    CT_ASSERT_EQ_INT(st.retries, 1);
    CT_ASSERT_EQ_INT(st.reserved, 60 * MiB);
    CT_ASSERT_EQ_INT(devs[1].used, 12 * MiB);             /* device 1 kept its cache */
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, 10 * MiB) == NULL);
    CT_ASSERT_ERROR(CT_ERR_RUNTIME,
                    "CUDA out of memory. Tried to allocate 10.00 MiB (GPU 0; 64.00 MiB "
                    "total capacity; 60.00 MiB already allocated; 4.00 MiB free; 60.00 "
                    "MiB reserved in total by PyTorch) If reserved memory is >> allocated "
                    "memory try setting max_split_size_mb to avoid fragmentation.  See "
                    "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
    CT_ASSERT_EQ_INT(ct_device_cache_stats_get(c, 0).ooms, 1);
    CT_ASSERT_TRUE(ct_device_cache_alloc(c, 0, S1, SIZE_MAX) == NULL);  /* no wrap-around */
    CT_ASSERT_TRUE(ct_error_occurred());
    const char *want = "CUDA out of memory. Tried to allocate 17179869184.00 GiB (GPU 0;";
    CT_ASSERT_TRUE(strncmp(ct_error_message(), want, strlen(want)) == 0);
    ct_error_clear();
    CT_ASSERT_RC_OK(ct_device_cache_release(c, big));
    CT_ASSERT_OK(ct_device_cache_alloc(c, 0, S1, 10 * MiB)); /* room again */
    ct_device_cache_free(c);
    CT_ASSERT_EQ_INT(devs[0].used + devs[1].used, 0);
}

/* Many blocks of mixed sizes, freed in a scrambled order: everything
 * merges back, and no two live blocks overlap. */
TEST_IMPL(device_cache_churn)
{
    fake_dev dev = {.capacity = 4096 * MiB};
    ct_device_cache *c = fake_cache(&dev, 1);
    CT_ASSERT_OK(c);
    enum { N = 400 };
    char *p[N];
    size_t sz[N];
    unsigned x = 12345;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            x = x * 1103515245u + 12345u;
            sz[i] = (x >> 8) % (i % 7 == 0 ? 3 * MiB : 64 * 1024) + 1;
            p[i] = ct_device_cache_alloc(c, 0, (i & 1) ? S1 : S2, sz[i]);
            CT_ASSERT_OK(p[i]);
            /* both ends written: a block overlapping another shows below */
            p[i][0] = p[i][sz[i] - 1] = (char)i;
        }
        for (int i = 0; i < N; i++) {
            CT_ASSERT_EQ_INT(p[i][0], (char)i);
            CT_ASSERT_EQ_INT(p[i][sz[i] - 1], (char)i);
        }
        for (int k = 0; k < N; k++) {
            int i = (k * 157) % N;                       /* 157 is prime to N */
            CT_ASSERT_RC_OK(ct_device_cache_release(c, p[i]));
        }
        ct_device_cache_stats st = ct_device_cache_stats_get(c, 0);
        CT_ASSERT_EQ_INT(st.allocated, 0);
    }
    int64_t reserved = ct_device_cache_stats_get(c, 0).reserved;
    CT_ASSERT_EQ_INT((int64_t)dev.used, reserved);
    ct_device_cache_empty(c);                              /* all merged: all go */
    CT_ASSERT_EQ_INT(dev.used, 0);
    CT_ASSERT_EQ_INT(dev.raw_frees, dev.raw_allocs);
    ct_device_cache_free(c);
}
