/* csrc/distributed/mpi/pg_mpi.c -- ProcessGroupMPI: MPI started once per
 * process, groups as MPI communicators, and the engine that runs their
 * works (Note [MPI engine] in pg_mpi.h).
 *
 * Rank and size come from MPI (mpirun / mpiexec set them); a group of
 * chosen world ranks is an MPI_Comm_create over MPI_COMM_WORLD, entered by
 * every process of the world.  MPI errors are returned, not fatal
 * (MPI_ERRORS_RETURN), and become the failing work's RuntimeError with
 * MPI's own text.  MPI is finalized when the process exits; destroying a
 * group frees its communicator.
 */
#include "pg_mpi.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER; /* every MPI call */
static pthread_cond_t mpi_cond = PTHREAD_COND_INITIALIZER;   /* the thread sleeps here */
static bool mpi_started;        /* MPI_Init_thread returned (by us or the program) */
static bool mpi_ours;           /* we initialized it, so we finalize it */
static pid_t mpi_pid;           /* the process that did */
static bool mpi_crowded;        /* more processes of the job on this host than CPUs */
static pg_mpi_entry *queue_head, *queue_tail; /* submitted, not started */
static pg_mpi_entry *active;    /* in flight */
static atomic_int n_waiting;    /* callers driving in wait */
static pthread_t progress;
static bool progress_started, progress_stop;

/* The groups whose works completed during a step (referenced), for their
 * callbacks once the lock is released.  Should the list fail to grow, a
 * group's callbacks wait for its next completion or its shutdown, which
 * run the whole queue. */
typedef struct {
    ct_pg **pg;
    int n, cap;
} done_set;

static void
done_add(done_set *s, ct_pg *pg)
{
    for (int i = 0; i < s->n; i++) {
        if (s->pg[i] == pg) {
            return;
        }
    }
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 4;
        ct_pg **a = realloc(s->pg, (size_t)cap * sizeof *a);
        if (a == NULL) {
            return;
        }
        s->pg = a;
        s->cap = cap;
    }
    ct_pg_incref(pg);
    s->pg[s->n++] = pg;
}

static void
done_run(done_set *s)
{
    for (int i = 0; i < s->n; i++) {
        pg_run_callbacks(s->pg[i]);
        ct_pg_decref(s->pg[i]);
    }
    s->n = 0;
}

static void
done_free(done_set *s)
{
    done_run(s);
    free(s->pg);
    *s = (done_set){0};
}

static void
complete(pg_mpi_entry *e, const ct_error_state *err, done_set *done)
{
    ct_work *w = e->w;
    ct_pg *pg = w->pg;
    w->be_op = NULL;
    done_add(done, pg);
    pg_mpi_entry_free(e);
    pg_work_complete(pg, w, err); /* drops the queue's reference */
}

/* One pass: start what was queued, test what is in flight.  True when any
 * work completed.  Under mpi_lock. */
static bool
step(done_set *done)
{
    bool moved = false;
    while (queue_head != NULL) {
        pg_mpi_entry *e = queue_head;
        queue_head = e->next;
        if (queue_head == NULL) {
            queue_tail = NULL;
        }
        ct_error_state st;
        if (pg_mpi_start(e, &st) < 0) {
            complete(e, &st, done);
            moved = true;
            continue;
        }
        e->next = active;
        active = e;
    }
    for (pg_mpi_entry **pp = &active; *pp != NULL;) {
        pg_mpi_entry *e = *pp;
        int flag = 0, rc;
        if (e->ring != NULL) {
            bool fin = false, went = false;
            rc = pg_mpi_ring_advance(e->ring, false, &fin, &went);
            flag = fin;
            moved |= went; /* a ring moving on is progress: no back-off */
        }
        else {
            rc = MPI_Test(&e->req, &flag, &e->status);
        }
        if (rc != MPI_SUCCESS && !flag) {
            e->status.MPI_ERROR = rc;
            flag = 1;
        }
        if (!flag) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        ct_error_state st;
        e->status.MPI_ERROR = rc; /* a single request's error is the return value */
        complete(e, pg_mpi_finish(e, &st) < 0 ? &st : NULL, done);
        moved = true;
    }
    return moved;
}

/* Between two steps that moved nothing: spin, then yield, then sleep a
 * little longer each time (a peer that is far behind costs no CPU). */
static void
back_off(int64_t idle_ns)
{
    if (idle_ns < 20000 && !mpi_crowded) {
#if defined(__x86_64__)
        __builtin_ia32_pause();
#endif
        return;
    }
    if (idle_ns < 2000000) {
        sched_yield();
        return;
    }
    int64_t ns = idle_ns / 20 < 200000 ? idle_ns / 20 : 200000;
    struct timespec ts = {0, (long)ns};
    nanosleep(&ts, NULL);
}

static void *
progress_main(void *arg)
{
    (void)arg;
    int64_t idle_since = 0;
    done_set done = {0};
    pthread_mutex_lock(&mpi_lock);
    for (;;) {
        if (progress_stop) {
            break;
        }
        if ((queue_head == NULL && active == NULL) || atomic_load(&n_waiting) > 0) {
            /* nothing to do, or a waiting caller is driving: sleep until
             * a submission (or check again soon) */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            if (queue_head == NULL && active == NULL) {
                pthread_cond_wait(&mpi_cond, &mpi_lock);
            }
            else {
                pthread_cond_timedwait(&mpi_cond, &mpi_lock, &ts);
            }
            idle_since = 0;
            continue;
        }
        bool moved = step(&done);
        pthread_mutex_unlock(&mpi_lock);
        done_run(&done);
        int64_t now = pg_now_ns();
        if (moved || idle_since == 0) {
            idle_since = now;
        }
        else {
            back_off(now - idle_since);
        }
        pthread_mutex_lock(&mpi_lock);
    }
    pthread_mutex_unlock(&mpi_lock);
    done_free(&done);
    return NULL;
}

/* --- the backend's hooks ------------------------------------------------------------ */

static int
mpi_submit(ct_pg *pg, ct_work *w)
{
    int single = -1;
    switch (w->kind) {
    case PG_OP_BROADCAST:
    case PG_OP_ALLREDUCE:
    case PG_OP_REDUCE:
    case PG_OP_ALLGATHER:
    case PG_OP_GATHER:
        single = w->nin;
        break;
    case PG_OP_SCATTER:
    case PG_OP_REDUCE_SCATTER:
        single = w->nout;
        break;
    default:
        break;
    }
    if (single != -1 && single != 1) {
        return ct_error(CT_ERR_RUNTIME,
                        "MPI process group does not support multi-GPU collectives");
    }
    pg_mpi_entry *e = calloc(1, sizeof *e);
    if (e == NULL) {
        return ct_error(CT_ERR_NOMEM, "ProcessGroupMPI: out of memory");
    }
    e->w = w;
    e->comm = ((mpi_group *)pg->be_data)->comm;
    w->be_op = e;
    pthread_mutex_lock(&mpi_lock);
    bool p2p = w->kind == PG_OP_SEND || w->kind == PG_OP_RECV;
    if ((w->flags & CT_PG_SYNC) && !p2p && queue_head == NULL && active == NULL) {
        done_set done = {0};
        ct_error_state st;
        e->blocking = true;
        int rc = pg_mpi_start(e, &st);
        complete(e, rc < 0 || pg_mpi_finish(e, &st) < 0 ? &st : NULL, &done);
        pthread_mutex_unlock(&mpi_lock);
        done_free(&done);
        return 0;
    }
    if (queue_tail != NULL) {
        queue_tail->next = e;
    }
    else {
        queue_head = e;
    }
    queue_tail = e;
    if (!(w->flags & CT_PG_SYNC)) {
        pthread_cond_signal(&mpi_cond);
    }
    pthread_mutex_unlock(&mpi_lock);
    return 0;
}

static void
mpi_wait(ct_work *w, int64_t timeout_ms)
{
    int64_t start = pg_now_ns(), idle_since = start;
    int64_t end = timeout_ms >= 0 ? start + timeout_ms * 1000000 : -1;
    done_set done = {0};
    atomic_fetch_add(&n_waiting, 1);
    while (!ct_work_is_completed(w)) {
        bool moved = false;
        if (pthread_mutex_trylock(&mpi_lock) == 0) {
            moved = step(&done);
            pthread_mutex_unlock(&mpi_lock);
            done_run(&done);
        }
        if (ct_work_is_completed(w)) {
            break;
        }
        int64_t now = pg_now_ns();
        if (end >= 0 && now >= end) {
            break;
        }
        if (moved) {
            idle_since = now;
        }
        back_off(now - idle_since);
    }
    atomic_fetch_sub(&n_waiting, 1);
    done_free(&done);
}

/* Fail the group's works not yet started; those in flight (MPI cannot
 * take a started collective back) are left to complete. */
static void
mpi_shutdown(ct_pg *pg)
{
    done_set done = {0};
    ct_error_state st = {.code = CT_ERR_RUNTIME};
    pthread_mutex_lock(&mpi_lock);
    for (pg_mpi_entry **pp = &queue_head; *pp != NULL;) {
        pg_mpi_entry *e = *pp;
        if (e->w->pg != pg) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        snprintf(st.message, sizeof st.message,
                 "ProcessGroupMPI::%s: the process group was shut down",
                 pg_op_names[e->w->kind]);
        complete(e, &st, &done);
    }
    queue_tail = NULL;
    for (pg_mpi_entry *e = queue_head; e != NULL; e = e->next) {
        queue_tail = e;
    }
    pthread_mutex_unlock(&mpi_lock);
    done_free(&done);
}

static void
mpi_free(ct_pg *pg)
{
    mpi_group *g = pg->be_data;
    if (g == NULL) {
        return;
    }
    pthread_mutex_lock(&mpi_lock);
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin && g->comm != MPI_COMM_NULL && g->comm != MPI_COMM_WORLD) {
        MPI_Comm_free(&g->comm);
    }
    if (!fin && g->ring_comm != MPI_COMM_NULL) {
        MPI_Comm_free(&g->ring_comm);
    }
    pthread_mutex_unlock(&mpi_lock);
    free(g);
    pg->be_data = NULL;
}

static const pg_backend mpi_backend = {
    .name = "ProcessGroupMPI",
    .kind = "MPI",
    .submit = mpi_submit,
    .wait = mpi_wait,
    .shutdown = mpi_shutdown,
    .free = mpi_free,
};

/* --- MPI itself ------------------------------------------------------------------ */

static void
finalize_at_exit(void)
{
    if (getpid() != mpi_pid) {
        return; /* a forked child: MPI belongs to its parent */
    }
    pthread_mutex_lock(&mpi_lock);
    progress_stop = true;
    pthread_cond_broadcast(&mpi_cond);
    pthread_mutex_unlock(&mpi_lock);
    if (progress_started) {
        pthread_join(progress, NULL);
        progress_started = false;
    }
    int fin = 0;
    MPI_Finalized(&fin);
    if (mpi_ours && !fin) {
        /* receives nobody will match would keep MPI_Finalize waiting */
        for (pg_mpi_entry *e = active; e != NULL; e = e->next) {
            if (e->w->kind == PG_OP_RECV) {
                MPI_Cancel(&e->req);
            }
        }
        MPI_Finalize();
    }
}

/* Start MPI once (under mpi_lock); 0 or -1 with the error set. */
static int
start_mpi(void)
{
    if (mpi_started) {
        return 0;
    }
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
        if (rc != MPI_SUCCESS) {
            return ct_error(CT_ERR_RUNTIME, "MPI_Init_thread failed with error code %d",
                            rc);
        }
        mpi_ours = true;
    }
    else {
        MPI_Query_thread(&provided);
    }
    if (provided < MPI_THREAD_SERIALIZED) {
        return ct_error(CT_ERR_RUNTIME,
                        "Used MPI implementation doesn't have the minimum level of "
                        "threading support: MPI_THREAD_SERIALIZED. This is required by "
                        "c10d package");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (pg_mpi_types_init() < 0 || pg_mpi_ring_init() < 0) {
        return -1;
    }
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        int local = 1;
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
        mpi_crowded = local > sysconf(_SC_NPROCESSORS_ONLN);
    }
    mpi_pid = getpid();
    mpi_started = true;
    atexit(finalize_at_exit);
    if (pthread_create(&progress, NULL, progress_main, NULL) != 0) {
        return ct_error(CT_ERR_RUNTIME, "ProcessGroupMPI: cannot start the progress thread");
    }
    progress_started = true;
    return 0;
}

static int
mpi_check(int rc, const char *what)
{
    if (rc == MPI_SUCCESS) {
        return 0;
    }
    char text[MPI_MAX_ERROR_STRING];
    return ct_error(CT_ERR_RUNTIME, "ProcessGroupMPI: %s: %s", what,
                    pg_mpi_error_text(rc, text, sizeof text));
}

/* The communicator of world ranks[0..n) (n == 0: the whole world); every
 * process of the world calls it.  MPI_COMM_NULL on a process outside. */
static int
make_comm(const int *ranks, int n, MPI_Comm *out)
{
    if (n == 0) {
        return mpi_check(MPI_Comm_dup(MPI_COMM_WORLD, out), "MPI_Comm_dup");
    }
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= world) {
            return ct_error(CT_ERR_RUNTIME,
                            "ProcessGroupMPI: rank %d is not in the MPI world of %d "
                            "processes",
                            ranks[i], world);
        }
    }
    MPI_Group wg, g;
    int rc = MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_incl(wg, n, ranks, &g);
        MPI_Group_free(&wg);
    }
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_create(MPI_COMM_WORLD, g, out);
        MPI_Group_free(&g);
    }
    return mpi_check(rc, "MPI_Comm_create");
}

ct_pg *
ct_pg_mpi_new(const int *ranks, int nranks, int64_t timeout_ms, bool *member)
{
    *member = false;
    done_set done = {0};
    MPI_Comm comm = MPI_COMM_NULL;
    pthread_mutex_lock(&mpi_lock);
    int rc = start_mpi();
    if (rc == 0) {
        /* collectives issued before reach MPI first, in the same order on
         * every rank as this (blocking) communicator creation */
        step(&done);
        rc = make_comm(ranks, nranks, &comm);
    }
    int rank = -1, size = -1;
    MPI_Comm ring = MPI_COMM_NULL;
    if (rc == 0 && comm != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
        rc = mpi_check(MPI_Comm_dup(comm, &ring), "MPI_Comm_dup");
        if (rc < 0) {
            MPI_Comm_free(&comm);
        }
    }
    pthread_mutex_unlock(&mpi_lock);
    done_free(&done);
    if (rc < 0 || comm == MPI_COMM_NULL) {
        return NULL;
    }
    ct_pg *pg = pg_new_bare(rank, size, timeout_ms);
    mpi_group *g = calloc(1, sizeof *g);
    if (pg == NULL || g == NULL) {
        ct_pg_decref(pg);
        free(g);
        pthread_mutex_lock(&mpi_lock);
        MPI_Comm_free(&comm);
        MPI_Comm_free(&ring);
        pthread_mutex_unlock(&mpi_lock);
        ct_error(CT_ERR_NOMEM, "ProcessGroupMPI: out of memory");
        return NULL;
    }
    g->comm = comm;
    g->ring_comm = ring;
    pg->be = &mpi_backend;
    pg->be_data = g;
    *member = true;
    return pg;
}

bool
ct_mpi_available(void)
{
    return true;
}
