/* aten/parallel.c -- a small fork-safe thread pool.
 *
 * Note [Why not OpenMP]
 * GNU OpenMP's worker pool does not survive fork(): a child that enters a
 * parallel region after its parent did waits forever for threads that do
 * not exist.  Python's multiprocessing forks by default (DataLoader
 * workers, process groups), so ctorch keeps its own pool: workers sleep on
 * a condition variable after a short spin, and a pthread_atfork handler
 * forgets the pool in the child, which builds a new one when it first needs
 * it.
 *
 * Note [Parts taken in turn]
 * A job's n parts are taken by whoever comes first: the caller and the
 * workers claim the next part from one atomic word (generation, n, next),
 * so a worker that the machine's other load keeps from running leaves its
 * part to the caller instead of making it wait.  A part index is a part,
 * not a thread: one thread may run several parts, one after another.
 */
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <ctorch/ctorch.h>

#define MAX_WORKERS 256
#define SPIN_ITERS 20000

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t start, done;
    pthread_mutex_t dispatch;       /* one job at a time */
    int nworkers;
    pthread_t workers[MAX_WORKERS];
    atomic_uint generation;         /* bumped per job */
    unsigned birth_generation;      /* generation when workers were made */
    atomic_ullong claim;            /* generation << 32 | n << 16 | next part */
    atomic_int finished;            /* parts of the job run to the end */
    ct_parallel_fn fn;
    void *ctx;
} pool_t;

static pool_t pool = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .start = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .dispatch = PTHREAD_MUTEX_INITIALIZER,
};
static atomic_int wanted_threads;   /* 0: default */
static _Thread_local bool in_worker;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* Claim the next part of job `gen` (Note [Parts taken in turn]): true with
 * the part and the job's part count, or false when none is left. */
static bool
claim_part(unsigned gen, int *part, int *n)
{
    unsigned long long c = atomic_load_explicit(&pool.claim, memory_order_acquire);
    for (;;) {
        int total = (int)((c >> 16) & 0xffff), next = (int)(c & 0xffff);
        if ((unsigned)(c >> 32) != gen || next >= total) {
            return false;
        }
        if (atomic_compare_exchange_weak_explicit(&pool.claim, &c, c + 1,
                                                  memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *part = next;
            *n = total;
            return true;
        }
    }
}

/* Run the parts of job `gen` that are left; the last part to finish wakes
 * the caller. */
static void
run_parts(unsigned gen)
{
    int part, n;
    while (claim_part(gen, &part, &n)) {
        pool.fn(pool.ctx, part, n);
        int done = atomic_fetch_add_explicit(&pool.finished, 1, memory_order_acq_rel);
        if (done + 1 == n) {
            pthread_mutex_lock(&pool.lock);
            pthread_cond_signal(&pool.done);
            pthread_mutex_unlock(&pool.lock);
        }
    }
}

static void *
worker_main(void *arg)
{
    (void)arg;
    /* not the current generation: the job that created this worker may
     * already have been announced */
    unsigned seen = pool.birth_generation;

    in_worker = true;
    for (;;) {
        unsigned gen;
        int spins = 0;
        while ((gen = atomic_load_explicit(&pool.generation, memory_order_acquire)) == seen &&
               spins < SPIN_ITERS) {
            spins++;
        }
        if (gen == seen) {
            pthread_mutex_lock(&pool.lock);
            while ((gen = atomic_load(&pool.generation)) == seen) {
                pthread_cond_wait(&pool.start, &pool.lock);
            }
            pthread_mutex_unlock(&pool.lock);
        }
        seen = gen;
        run_parts(gen);
    }
    return NULL;
}

/* In a forked child the workers are gone: start over with a fresh pool. */
static void
atfork_prepare(void)
{
    pthread_mutex_lock(&pool.dispatch);
}

static void
atfork_parent(void)
{
    pthread_mutex_unlock(&pool.dispatch);
}

static void
atfork_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.start, NULL);
    pthread_cond_init(&pool.done, NULL);
    pthread_mutex_init(&pool.dispatch, NULL);
    pool.nworkers = 0;
    atomic_store(&pool.finished, 0);
}

static void
register_atfork(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static int
default_threads(void)
{
    const char *env = getenv("OMP_NUM_THREADS");
    if (env != NULL && atoi(env) > 0) {
        return atoi(env);
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int
ct__parallel_threads(void)
{
    int n = atomic_load(&wanted_threads);
    if (n <= 0) {
        n = default_threads();
        atomic_store(&wanted_threads, n);
    }
    return n > MAX_WORKERS + 1 ? MAX_WORKERS + 1 : n;
}

int
ct_get_num_threads(void)
{
    return ct__parallel_threads();
}

void
ct_set_num_threads(int n)
{
    atomic_store(&wanted_threads, n > 0 ? n : default_threads());
}

static void
run_serially(int n, ct_parallel_fn fn, void *ctx)
{
    for (int tid = 0; tid < n; tid++) {
        fn(ctx, tid, n);
    }
}

void
ct__parallel_run(int n, ct_parallel_fn fn, void *ctx)
{
    if (n <= 1 || in_worker) {
        run_serially(n, fn, ctx);
        return;
    }
    pthread_once(&atfork_once, register_atfork);
    if (pthread_mutex_trylock(&pool.dispatch) != 0) {
        run_serially(n, fn, ctx);   /* the pool is busy with another job */
        return;
    }
    pool.birth_generation = atomic_load(&pool.generation);
    while (pool.nworkers < n - 1) {
        if (pthread_create(&pool.workers[pool.nworkers], NULL, worker_main,
                           (void *)(intptr_t)(pool.nworkers + 1)) != 0) {
            break;
        }
        pthread_detach(pool.workers[pool.nworkers]);
        pool.nworkers++;
    }
    if (n - 1 > pool.nworkers) {
        n = pool.nworkers + 1;
    }
    pool.fn = fn;
    pool.ctx = ctx;
    unsigned gen = atomic_load(&pool.generation) + 1;
    atomic_store(&pool.finished, 0);
    atomic_store_explicit(&pool.claim,
                          (unsigned long long)gen << 32 | (unsigned long long)n << 16,
                          memory_order_release);
    pthread_mutex_lock(&pool.lock);
    atomic_store_explicit(&pool.generation, gen, memory_order_release);
    pthread_cond_broadcast(&pool.start);
    pthread_mutex_unlock(&pool.lock);

    /* the caller takes parts too, and waits only for parts under way */
    run_parts(gen);
    int spins = 0;
    while (atomic_load_explicit(&pool.finished, memory_order_acquire) < n &&
           spins < SPIN_ITERS) {
        spins++;
    }
    if (atomic_load(&pool.finished) < n) {
        pthread_mutex_lock(&pool.lock);
        while (atomic_load(&pool.finished) < n) {
            pthread_cond_wait(&pool.done, &pool.lock);
        }
        pthread_mutex_unlock(&pool.lock);
    }
    pthread_mutex_unlock(&pool.dispatch);
}
