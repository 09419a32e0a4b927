/* csrc/distributed/pg_gloo.c -- the group: setup, the progress thread, the
 * drive loop, submission, waiting, completion, shutdown.
 *
 * Note [Who drives]
 * The engine is driven by whoever holds pg->drive.  The progress thread
 * sleeps on the eventfd while nothing is pending and drives otherwise; a
 * thread that waits for a work (without a time limit) and finds the lock
 * free drives itself until its work completes, so a synchronous operation
 * costs no thread hand-off.  The driver runs the queued collectives in
 * issue order and keeps every link moving while it waits, so sends and
 * receives posted meanwhile progress too.  Submitting puts the work in the
 * inbox and kicks the eventfd only when the driver sleeps or the progress
 * thread idles.  Callbacks run after the driver lets go of the lock.
 * (A timer armed instead of the kick, disarmed by a waiter that drives,
 * was tried: arming and disarming a timerfd costs 23 us in this VM.)
 */
#include "pg_impl.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

static void drive(ct_pg *pg, ct_work *target);

/* --- fork ------------------------------------------------------------------- */

static atomic_uint fork_gen;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
after_fork_child(void)
{
    atomic_fetch_add(&fork_gen, 1);
}

static void
register_fork_handler(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

unsigned
pg_fork_generation(void)
{
    return atomic_load_explicit(&fork_gen, memory_order_relaxed);
}

static bool
inherited(const ct_pg *pg)
{
    return pg->fork_gen != pg_fork_generation();
}

/* --- completion and callbacks ------------------------------------------------ */

const char *
pg_name(const ct_pg *pg)
{
    return pg->be != NULL ? pg->be->name : "ProcessGroupGloo";
}

void
pg_work_complete(ct_pg *pg, ct_work *w, const ct_error_state *err)
{
    if (atomic_load(&w->state) != PG_W_PENDING) {
        return;
    }
    ct_error_state copy_err;
    if (w->nstaged > 0 && pg_work_unstage(w, err == NULL) < 0 && err == NULL) {
        ct_error_fetch(&copy_err);
        err = &copy_err;
    }
    if (err != NULL) {
        w->err = malloc(sizeof *w->err);
        if (w->err != NULL) {
            *w->err = *err;
        }
    }
    pthread_mutex_lock(&w->cb_lock);
    w->cb_fired = true;
    bool has_cbs = w->ncbs > 0;
    pthread_mutex_unlock(&w->cb_lock);
    if (has_cbs) {
        ct_work_incref(w);
        pthread_mutex_lock(&pg->inbox_lock);
        w->cb_next = NULL;
        if (pg->cb_tail != NULL) {
            pg->cb_tail->cb_next = w;
        }
        else {
            pg->cb_head = w;
        }
        pg->cb_tail = w;
        pthread_mutex_unlock(&pg->inbox_lock);
    }
    atomic_store(&w->state, err != NULL ? PG_W_FAILED : PG_W_OK);
    if (atomic_load(&w->nwaiters) > 0) {
        pg_futex_wake(&w->state);
    }
    ct_work_decref(w); /* the reference the queue held */
}

void
pg_run_callbacks(ct_pg *pg)
{
    for (;;) {
        pthread_mutex_lock(&pg->inbox_lock);
        ct_work *w = pg->cb_head;
        if (w != NULL) {
            pg->cb_head = w->cb_next;
            if (pg->cb_head == NULL) {
                pg->cb_tail = NULL;
            }
        }
        pthread_mutex_unlock(&pg->inbox_lock);
        if (w == NULL) {
            return;
        }
        for (int i = 0; i < w->ncbs; i++) {
            w->cbs[i].fn(w->cbs[i].ctx);
        }
        w->ncbs = 0;
        ct_work_decref(w);
    }
}

/* --- kicks -------------------------------------------------------------------- */

static void
kick_now(ct_pg *pg)
{
    uint64_t one = 1;
    if (pg->efd >= 0) {
        (void)!write(pg->efd, &one, sizeof one);
    }
}

void
pg_kick(ct_pg *pg)
{
    atomic_thread_fence(memory_order_seq_cst);
    int how = atomic_load(&pg->driver_sleeping);
    if (how == PG_SLEEP_FUTEX) {
        atomic_fetch_add(&pg->kick_word, 1);
        syscall(SYS_futex, (uint32_t *)&pg->kick_word, FUTEX_WAKE_PRIVATE, 1, NULL,
                NULL, 0);
    }
    if (how == PG_SLEEP_POLL || atomic_load(&pg->progress_idle)) {
        kick_now(pg);
    }
}

/* After a waiter drove: hand what is left to the progress thread. */
static void
release_drive(ct_pg *pg)
{
    bool busy = pg->queue != NULL || pg_engine_busy(pg);
    pthread_mutex_unlock(&pg->drive);
    if (busy) {
        atomic_store(&pg->pending_hint, 1);
        pg_kick(pg);
    }
    pg_run_callbacks(pg);
}

/* --- the drive loop ---------------------------------------------------------- */

static bool
is_collective(const ct_work *w)
{
    return w->kind != PG_OP_SEND && w->kind != PG_OP_RECV;
}

static void
absorb_inbox(ct_pg *pg)
{
    if (atomic_load_explicit(&pg->inbox_n, memory_order_acquire) == 0) {
        return;
    }
    pthread_mutex_lock(&pg->inbox_lock);
    ct_work *w = pg->inbox;
    pg->inbox = pg->inbox_tail = NULL;
    atomic_store(&pg->inbox_n, 0);
    pthread_mutex_unlock(&pg->inbox_lock);
    while (w != NULL) {
        ct_work *next = w->next;
        w->next = NULL;
        if (is_collective(w)) {
            if (pg->queue_tail != NULL) {
                pg->queue_tail->next = w;
            }
            else {
                pg->queue = w;
            }
            pg->queue_tail = w;
        }
        else {
            pg_p2p_start(pg, w);
        }
        w = next;
    }
}

void
pg_absorb_inbox(ct_pg *pg)
{
    absorb_inbox(pg);
}

static void
fail_everything(ct_pg *pg)
{
    absorb_inbox(pg);
    while (pg->queue != NULL) {
        ct_work *w = pg->queue;
        pg->queue = w->next;
        w->next = NULL;
        pg->seq_done = w->seq;
        pg_work_fail_msg(pg, w, "ProcessGroupGloo::%s: the process group was shut down",
                         pg_op_names[w->kind]);
    }
    pg->queue_tail = NULL;
    pg_p2p_fail_all(pg, "the process group was shut down", -1);
}

static int64_t
p2p_next_deadline(const ct_pg *pg)
{
    int64_t d = -1;
    for (const ct_work *w = pg->p2p; w != NULL; w = w->p2p_next) {
        if (w->deadline >= 0 && (d < 0 || w->deadline < d)) {
            d = w->deadline;
        }
    }
    return d;
}

/* Run the engine until target completes (NULL: until nothing is pending).
 * The caller holds pg->drive. */
static void
drive(ct_pg *pg, ct_work *target)
{
    int64_t idle = 0;
    for (;;) {
        absorb_inbox(pg);
        if (atomic_load(&pg->closing)) {
            fail_everything(pg);
            return;
        }
        if (target != NULL && atomic_load(&target->state) != PG_W_PENDING) {
            return;
        }
        if (pg->queue != NULL) {
            ct_work *w = pg->queue;
            pg->queue = w->next;
            if (pg->queue == NULL) {
                pg->queue_tail = NULL;
            }
            w->next = NULL;
            pg_run_collective(pg, w);
            idle = 0;
            continue;
        }
        bool moved = pg_progress(pg);
        if (pg->p2p != NULL) {
            pg_p2p_check_deadlines(pg, pg_now_ns());
        }
        if (target != NULL && atomic_load(&target->state) != PG_W_PENDING) {
            return; /* it may have just timed out */
        }
        if (moved) {
            pg_moved(pg, &idle);
            continue;
        }
        if (target == NULL && !pg_engine_busy(pg) && pg->queue == NULL &&
            atomic_load(&pg->inbox_n) == 0) {
            return;
        }
        pg_idle(pg, &idle, p2p_next_deadline(pg));
    }
}

static void *
progress_main(void *arg)
{
    ct_pg *pg = arg;
    for (;;) {
        atomic_store(&pg->progress_idle, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (atomic_load(&pg->inbox_n) == 0 && !atomic_load(&pg->pending_hint) &&
            !atomic_load(&pg->closing)) {
            struct pollfd pfd = {pg->efd, POLLIN, 0};
            poll(&pfd, 1, -1);
        }
        uint64_t v;
        (void)!read(pg->efd, &v, sizeof v);
        atomic_store(&pg->progress_idle, 0);
        pthread_mutex_lock(&pg->drive);
        atomic_store(&pg->pending_hint, 0);
        drive(pg, NULL);
        pthread_mutex_unlock(&pg->drive);
        pg_run_callbacks(pg);
        if (atomic_load(&pg->closing)) {
            return NULL;
        }
    }
}

/* --- submission and waiting --------------------------------------------------- */

ct_work *
pg_submit(ct_pg *pg, ct_work *w)
{
    if (inherited(pg)) {
        ct_error(
            CT_ERR_RUNTIME,
            "%s::%s: the process group belongs to the parent process "
            "(a forked child cannot use it)",
            pg_name(pg), pg_op_names[w->kind]);
        ct_work_decref(w);
        return NULL;
    }
    if (atomic_load(&pg->closing)) {
        ct_error(CT_ERR_RUNTIME, "%s::%s: the process group was shut down", pg_name(pg),
                 pg_op_names[w->kind]);
        ct_work_decref(w);
        return NULL;
    }
    ct_work_incref(w); /* the queue's reference */
    if (pg->be != NULL) {
        if (pg->be->submit(pg, w) < 0) {
            ct_work_decref(w);
            return NULL;
        }
        return w;
    }
    pthread_mutex_lock(&pg->inbox_lock);
    if (is_collective(w)) {
        w->seq = ++pg->seq_issued;
    }
    else {
        w->deadline = pg->timeout_ms > 0 ? pg_now_ns() + pg->timeout_ms * 1000000 : -1;
    }
    w->next = NULL;
    if (pg->inbox_tail != NULL) {
        pg->inbox_tail->next = w;
    }
    else {
        pg->inbox = w;
    }
    pg->inbox_tail = w;
    atomic_fetch_add(&pg->inbox_n, 1);
    pthread_mutex_unlock(&pg->inbox_lock);
    if ((w->flags & CT_PG_SYNC) && pthread_mutex_trylock(&pg->drive) == 0) {
        drive(pg, w);
        release_drive(pg);
        return w;
    }
    pg_kick(pg);
    return w;
}

int
ct_work_wait(ct_work *w, int64_t timeout_ms)
{
    ct_pg *pg = w->pg;
    if (atomic_load(&w->state) == PG_W_PENDING && inherited(pg)) {
        return ct_error(CT_ERR_RUNTIME, "%s::%s: the work belongs to the parent process",
                        pg_name(pg), pg_op_names[w->kind]);
    }
    if (pg->be != NULL && atomic_load(&w->state) == PG_W_PENDING) {
        pg->be->wait(w, timeout_ms);
    }
    else if (atomic_load(&w->state) == PG_W_PENDING && timeout_ms < 0 &&
        pthread_mutex_trylock(&pg->drive) == 0) {
        drive(pg, w);
        release_drive(pg);
    }
    if (atomic_load(&w->state) == PG_W_PENDING) {
        int64_t start = pg_now_ns();
        int64_t end = timeout_ms >= 0 ? start + timeout_ms * 1000000 : -1;
        atomic_fetch_add(&w->nwaiters, 1);
        for (int spin = 0; atomic_load(&w->state) == PG_W_PENDING; spin++) {
            int64_t now = spin < 200 ? 0 : pg_now_ns();
            if (spin < 200) {
#if defined(__x86_64__)
                __builtin_ia32_pause();
#endif
                continue;
            }
            if (end >= 0 && now >= end) {
                break;
            }
            pg_futex_wait(&w->state, PG_W_PENDING, end >= 0 ? end - now : -1);
        }
        atomic_fetch_sub(&w->nwaiters, 1);
    }
    int st = atomic_load(&w->state);
    if (st == PG_W_PENDING) {
        return ct_error(CT_ERR_RUNTIME, "Operation timed out!");
    }
    if (st == PG_W_FAILED) {
        if (w->err != NULL) {
            ct_error_restore(w->err);
            return -1;
        }
        return ct_error(CT_ERR_RUNTIME, "%s::%s failed", pg_name(pg),
                        pg_op_names[w->kind]);
    }
    if (pg->be != NULL && pg->be->sync != NULL) {
        return pg->be->sync(w, timeout_ms);
    }
    return 0;
}

/* The CPUs this process may run on. */
static int
online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        return CPU_COUNT(&set);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* --- the group ------------------------------------------------------------------ */

ct_pg *
pg_new_bare(int rank, int size, int64_t timeout_ms)
{
    ct_pg *pg = calloc(1, sizeof *pg);
    if (pg == NULL) {
        return NULL;
    }
    atomic_init(&pg->refcnt, 1);
    pthread_once(&fork_once, register_fork_handler);
    pg->fork_gen = pg_fork_generation();
    pg->rank = rank;
    pg->size = size;
    pg->timeout_ms = timeout_ms;
    pg->efd = -1;
    pthread_mutex_init(&pg->drive, NULL);
    pthread_mutex_init(&pg->inbox_lock, NULL);
    return pg;
}

ct_pg *
ct_pg_gloo_new(ct_store *store, int rank, int size, int64_t timeout_ms)
{
    if (size < 1) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: invalid group size %d", size);
        return NULL;
    }
    if (rank < 0 || rank >= size) {
        ct_error(CT_ERR_RUNTIME,
                 "ProcessGroupGloo: invalid rank %d for a group of size %d", rank,
                 size);
        return NULL;
    }
    if (store == NULL && size > 1) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: a store is required");
        return NULL;
    }
    ct_pg *pg = pg_new_bare(rank, size, timeout_ms);
    pg_link *links = calloc((size_t)size, sizeof *links);
    if (pg == NULL || links == NULL) {
        ct_pg_decref(pg);
        free(links);
        ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        return NULL;
    }
    pg->links = links;
    for (int q = 0; q < size; q++) {
        links[q].peer = q;
        links[q].fd = -1;
        links[q].seg_fd = -1;
    }
    pg->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (pg->efd < 0) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: eventfd: %s", strerror(errno));
        goto fail;
    }
    if (size > 1 && (pg_tcp_connect_mesh(pg, store) < 0 ||
                     pg_flat_setup(pg, size <= 2 ? 256 * 1024 : 64 * 1024,
                                   pg_now_ns() + timeout_ms * 1000000) < 0)) {
        goto fail;
    }
    pg->oversub = pg->nshm + 1 > online_cpus();
    if (pthread_create(&pg->thread, NULL, progress_main, pg) != 0) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: cannot start the progress thread");
        goto fail;
    }
    pg->thread_started = true;
    return pg;
fail:
    atomic_store(&pg->closing, 1);
    ct_pg_decref(pg);
    return NULL;
}

void
ct_pg_incref(ct_pg *pg)
{
    atomic_fetch_add(&pg->refcnt, 1);
}

static void
release_resources(ct_pg *pg)
{
    if (pg->closed) {
        return;
    }
    pg->closed = true;
    if (pg->links == NULL) {
        return; /* failed before it had any */
    }
    pg_engine_free(pg);
    pg_flat_close(pg->flat);
    pg->flat = NULL;
    for (int q = 0; q < pg->size; q++) {
        if (q != pg->rank) {
            pg_link_close(&pg->links[q]);
        }
    }
}

/* In a forked child: its locks may be held by threads that stayed in the
 * parent and its progress thread is not here; close the descriptors and
 * unmap, touch nothing else. */
static void
abandon_inherited(ct_pg *pg)
{
    if (pg->closed) {
        return;
    }
    pg->closed = true;
    atomic_store(&pg->closing, 1);
    pg->thread_started = false;
    pg_flat_close(pg->flat);
    pg->flat = NULL;
    for (int q = 0; pg->links != NULL && q < pg->size; q++) {
        if (q != pg->rank) {
            pg_shm_close(&pg->links[q]);
            if (pg->links[q].fd >= 0) {
                close(pg->links[q].fd);
                pg->links[q].fd = -1;
            }
        }
    }
}

int
ct_pg_shutdown(ct_pg *pg)
{
    if (inherited(pg)) {
        abandon_inherited(pg);
        return 0;
    }
    if (pg->be != NULL) {
        if (!atomic_exchange(&pg->closing, 1)) {
            pg->be->shutdown(pg);
        }
        pg_run_callbacks(pg);
        return 0;
    }
    atomic_store(&pg->closing, 1);
    kick_now(pg);
    atomic_fetch_add(&pg->kick_word, 1);
    syscall(SYS_futex, (uint32_t *)&pg->kick_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL,
            0);
    pthread_mutex_lock(&pg->drive);
    fail_everything(pg);
    release_resources(pg);
    pthread_mutex_unlock(&pg->drive);
    if (pg->thread_started) {
        kick_now(pg);
        pthread_join(pg->thread, NULL);
        pg->thread_started = false;
    }
    pg_run_callbacks(pg);
    return 0;
}

void
ct_pg_decref(ct_pg *pg)
{
    if (pg == NULL || atomic_fetch_sub(&pg->refcnt, 1) != 1) {
        return;
    }
    ct_pg_shutdown(pg);
    if (pg->efd >= 0) {
        close(pg->efd); /* kept until now: a late kick must not hit a reused fd */
    }
    if (inherited(pg)) {
        return; /* its locks may be held by threads not in this process */
    }
    if (pg->be != NULL) {
        pg->be->free(pg);
    }
    pthread_mutex_destroy(&pg->drive);
    pthread_mutex_destroy(&pg->inbox_lock);
    free(pg->links);
    free(pg);
}

int
ct_pg_rank(const ct_pg *pg)
{
    return pg->rank;
}

int
ct_pg_size(const ct_pg *pg)
{
    return pg->size;
}

int64_t
ct_pg_timeout_ms(const ct_pg *pg)
{
    return pg->timeout_ms;
}

int
ct_pg_shm_peers(const ct_pg *pg)
{
    return pg->nshm;
}

bool
ct_pg_flat(const ct_pg *pg)
{
    return pg->flat != NULL;
}
