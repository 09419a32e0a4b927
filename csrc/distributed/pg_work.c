/* csrc/distributed/pg_work.c -- ct_work: the handle of one operation.
 *
 * A work owns references to its tensors and to its group.  Its state is a
 * futex word: waiters spin briefly, then sleep on it; the driver that
 * completes the work wakes them.  Callbacks added before completion run
 * after the driver lets go of the engine (pg_gloo.c), those added after
 * run at once on the adding thread.
 */
#include "pg_impl.h"

#include <ctorch/ops.h>

#include <linux/futex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

const char *const pg_op_names[PG_OP_COUNT] = {
#define X(E, N) [PG_OP_##E] = N,
    PG_FORALL_OPS(X)
#undef X
};

int64_t
pg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
pg_futex_wait(_Atomic int *addr, int val, int64_t timeout_ns)
{
    struct timespec ts, *tp = NULL;
    if (timeout_ns >= 0) {
        ts.tv_sec = timeout_ns / 1000000000;
        ts.tv_nsec = timeout_ns % 1000000000;
        tp = &ts;
    }
    syscall(SYS_futex, (int *)addr, FUTEX_WAIT_PRIVATE, val, tp, NULL, 0);
}

void
pg_futex_wake(_Atomic int *addr)
{
    syscall(SYS_futex, (int *)addr, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

void
pg_dtype_str(ct_dtype d, char *buf, size_t n)
{
    if ((unsigned)d < CT_DTYPE_COUNT) {
        snprintf(buf, n, "torch.%s", ct_dtype_table[d].name);
    }
    else {
        snprintf(buf, n, "<dtype %d>", (int)d);
    }
}

void
pg_shape_str(const int64_t *sizes, int ndim, char *buf, size_t n)
{
    size_t off = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < ndim && off < n; i++) {
        off += (size_t)snprintf(buf + off, n - off, "%s%lld", i ? ", " : "",
                                (long long)sizes[i]);
    }
    if (off < n) {
        snprintf(buf + off, n - off, "]");
    }
}

ct_work *
pg_work_new(ct_pg *pg, pg_op_kind kind, unsigned flags)
{
    ct_work *w = calloc(1, sizeof *w);
    if (w == NULL) {
        ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        return NULL;
    }
    atomic_init(&w->refcnt, 1);
    atomic_init(&w->state, PG_W_PENDING);
    w->pg = pg;
    ct_pg_incref(pg);
    w->kind = kind;
    w->flags = flags;
    w->source_rank = -1;
    w->root = -1;
    pthread_mutex_init(&w->cb_lock, NULL);
    return w;
}

static ct_tensor **
copy_refs(ct_tensor *const *t, int n)
{
    ct_tensor **a = calloc((size_t)(n > 0 ? n : 1), sizeof *a);
    if (a == NULL) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        a[i] = t[i];
        ct_tensor_incref(t[i]);
    }
    return a;
}

/* Note [Device tensors in gloo]
 * As PyTorch's gloo does for CUDA tensors, a collective on device tensors
 * runs on host copies: each device tensor of a work is copied to the host
 * when the work is made, the host copy takes its place in in/out, and when
 * the work completes (pg_work_complete) the results are copied back and
 * the device tensors put back, before any waiter is woken.  A failed work
 * copies nothing back: its tensors keep their values, as on the CPU. */
static int
stage(ct_work *w, ct_tensor **a, int n)
{
    for (int i = 0; i < n; i++) {
        if (ct_tensor_device(a[i]).type == CT_DEVICE_CPU) {
            continue;
        }
        ct_tensor **g = realloc(w->staged, sizeof *g * (size_t)(w->nstaged + 2));
        if (g == NULL) {
            return ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        }
        w->staged = g;
        ct_tensor *h = ct_to_device(a[i], ct_device_cpu());
        if (h == NULL) {
            return -1;
        }
        g[w->nstaged++] = a[i];         /* the reference in[]/out[] held */
        g[w->nstaged++] = h;
        ct_tensor_incref(h);
        a[i] = h;
    }
    return 0;
}

static void
swap_back(ct_tensor **a, int n, ct_tensor *host, ct_tensor *dev)
{
    for (int i = 0; i < n; i++) {
        if (a[i] == host) {
            ct_tensor_incref(dev);
            ct_tensor_decref(a[i]);
            a[i] = dev;
        }
    }
}

int
pg_work_unstage(ct_work *w, bool copy)
{
    int rc = 0;
    for (int i = 0; i + 1 < w->nstaged; i += 2) {
        ct_tensor *dev = w->staged[i], *host = w->staged[i + 1];
        bool is_result = false;
        for (int r = 0; r < w->nresult; r++) {
            is_result = is_result || w->result[r] == host;
        }
        if (copy && is_result && rc == 0 && ct_copy_(dev, host) < 0) {
            rc = -1;
        }
        swap_back(w->in, w->nin, host, dev);
        swap_back(w->out, w->nout, host, dev);
        /* result borrows from in/out (often is one of them) */
        for (int r = 0; r < w->nresult; r++) {
            if (w->result[r] == host) {
                w->result[r] = dev;
            }
        }
        ct_tensor_decref(dev);
        ct_tensor_decref(host);
    }
    free(w->staged);
    w->staged = NULL;
    w->nstaged = 0;
    return rc;
}

int
pg_work_set_tensors(ct_work *w, ct_tensor *const *in, int nin, ct_tensor *const *out,
                    int nout)
{
    w->in = copy_refs(in, nin);
    w->out = copy_refs(out, nout);
    if (w->in == NULL || w->out == NULL) {
        return ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
    }
    w->nin = nin;
    w->nout = nout;
    if (w->pg->be != NULL && w->pg->be->device_tensors) {
        return 0;
    }
    return stage(w, w->in, nin) < 0 || stage(w, w->out, nout) < 0 ? -1 : 0;
}

void
ct_work_incref(ct_work *w)
{
    atomic_fetch_add(&w->refcnt, 1);
}

void
ct_work_decref(ct_work *w)
{
    if (w == NULL || atomic_fetch_sub(&w->refcnt, 1) != 1) {
        return;
    }
    if (w->pg->be != NULL && w->pg->be->release != NULL) {
        w->pg->be->release(w);
    }
    for (int i = 0; i < w->nin; i++) {
        ct_tensor_decref(w->in[i]);
    }
    for (int i = 0; i < w->nout; i++) {
        ct_tensor_decref(w->out[i]);
    }
    for (int i = 0; i < w->nstaged; i++) {
        ct_tensor_decref(w->staged[i]);
    }
    free(w->staged);
    free(w->in);
    free(w->out);
    free(w->err);
    free(w->splits);
    free(w->p2p_meta);
    ct_tensor_decref(w->p2p_buf);
    free(w->cbs);
    pthread_mutex_destroy(&w->cb_lock);
    ct_pg_decref(w->pg);
    free(w);
}

bool
ct_work_is_completed(const ct_work *w)
{
    const pg_backend *be = w->pg->be;
    if (atomic_load(&w->state) == PG_W_PENDING) {
        return false;
    }
    return atomic_load(&w->state) != PG_W_OK || be == NULL || be->query == NULL ||
           be->query(w);
}

bool
ct_work_is_success(const ct_work *w)
{
    return atomic_load(&w->state) == PG_W_OK;
}

bool
ct_work_error(const ct_work *w, ct_error_state *st)
{
    if (atomic_load(&w->state) != PG_W_FAILED || w->err == NULL) {
        return false;
    }
    *st = *w->err;
    return true;
}

int
ct_work_source_rank(const ct_work *w)
{
    return atomic_load(&w->state) == PG_W_OK ? w->source_rank : -1;
}

ct_tensor *const *
ct_work_result(const ct_work *w, int *n)
{
    *n = w->nresult;
    return w->result;
}

const char *
ct_work_op_name(const ct_work *w)
{
    return pg_op_names[w->kind];
}

int
ct_work_add_callback(ct_work *w, void (*fn)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&w->cb_lock);
    if (w->cb_fired) {
        pthread_mutex_unlock(&w->cb_lock);
        fn(ctx);
        return 0;
    }
    if (w->ncbs == w->cap_cbs) {
        int nc = w->cap_cbs ? 2 * w->cap_cbs : 2;
        pg_callback *c = realloc(w->cbs, (size_t)nc * sizeof *c);
        if (c == NULL) {
            pthread_mutex_unlock(&w->cb_lock);
            return ct_error(CT_ERR_NOMEM, "out of memory");
        }
        w->cbs = c;
        w->cap_cbs = nc;
    }
    w->cbs[w->ncbs++] = (pg_callback){fn, ctx};
    pthread_mutex_unlock(&w->cb_lock);
    return 0;
}

void
pg_work_fail_msg(ct_pg *pg, ct_work *w, const char *fmt, ...)
{
    ct_error_state st;
    va_list ap;
    va_start(ap, fmt);
    st.code = CT_ERR_RUNTIME;
    vsnprintf(st.message, sizeof st.message, fmt, ap);
    va_end(ap);
    pg_work_complete(pg, w, &st);
}

void
pg_meta_describe(const uint8_t *m, size_t len, char *buf, size_t n)
{
    pg_meta h;
    if (m == NULL || len < sizeof h) {
        snprintf(buf, n, "an unknown tensor");
        return;
    }
    memcpy(&h, m, sizeof h);
    int64_t sizes[CT_MAX_DIMS];
    int nd = h.ndim;
    if (nd < 0 || nd > CT_MAX_DIMS || len < sizeof h + (size_t)nd * sizeof(int64_t)) {
        snprintf(buf, n, "a tensor of %lld elements", (long long)h.numel);
        return;
    }
    memcpy(sizes, m + sizeof h, (size_t)nd * sizeof(int64_t));
    char sh[256], dt[64];
    pg_shape_str(sizes, nd, sh, sizeof sh);
    pg_dtype_str((ct_dtype)h.dtype, dt, sizeof dt);
    snprintf(buf, n, "size %s and dtype %s", sh, dt);
}
