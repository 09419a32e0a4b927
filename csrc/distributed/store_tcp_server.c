/* csrc/distributed/store_tcp_server.c -- the TCPStore master's server: one
 * thread runs an epoll loop over the listening socket and every client
 * connection (no thread per client).  It owns the key-value map; requests
 * that must wait (GET of a missing key, WAIT, WAIT_GE) become waiters that
 * a later write or their deadline answers (Note [TCPStore protocol]).
 *
 * The master's own client skips the network: ct__tcp_server_call runs its
 * request frame in the calling thread against the same state, through a
 * "local" connection that lives on that thread's stack and whose replies
 * stay in its buffer.  The loop state is guarded by one mutex, taken by the
 * loop for each batch of events and by local calls; a local call that must
 * wait sleeps on a condition variable that finishing a local waiter
 * broadcasts.  The eventfd wakes the loop (to stop, or to run connections
 * a local write unblocked).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "csrc/distributed/store_tcp.h"

typedef struct conn conn;

typedef struct waiter {
    struct waiter *prev, *next;
    conn *c;
    uint8_t op;
    int64_t deadline;           /* INT64_MAX: none */
    uint8_t *body;              /* owned copy of the request's fields */
    size_t blen;
} waiter;

struct conn {
    conn *prev, *next;
    int fd;
    bool local;                 /* a master's own call (no socket) */
    bool dead;
    bool want_out;              /* EPOLLOUT registered */
    bool queued;                /* on the resume list */
    conn *resume_next;
    waiter *blocked;            /* the request it waits on */
    uint8_t *in;                /* received bytes; in[in_off..in_len) unread */
    size_t in_off, in_len, in_cap;
    ct__buf out;                /* replies not yet sent, from out_off */
    size_t out_off;
};

struct ct__tcp_server {
    int refcnt;                 /* guarded by registry_mu */
    bool multi_tenant;
    int port;
    int lfd, epfd, evfd;
    pid_t pid;                  /* the process whose thread serves */
    pthread_t thread;
    ct__tcp_server *next_registered;
    pthread_mutex_t mu;         /* guards the loop state */
    pthread_cond_t cv;          /* local waiters (CLOCK_MONOTONIC) */
    /* loop state */
    bool stopping;
    ct__kv map;
    conn *conns;
    waiter *waiters;
    conn *resume;
};

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static ct__tcp_server *registry;     /* multi-tenant servers of this process */

/* ---- replies ---------------------------------------------------------- */

static void
flush(ct__tcp_server *srv, conn *c)
{
    if (c->local) {
        return;                 /* the caller reads c->out */
    }
    while (!c->dead && c->out_off < c->out.len) {
        ssize_t w = send(c->fd, c->out.p + c->out_off, c->out.len - c->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!c->want_out) {
                struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
                epoll_ctl(srv->epfd, EPOLL_CTL_MOD, c->fd, &ev);
                c->want_out = true;
            }
            return;
        }
        if (w < 0) {
            c->dead = true;
            return;
        }
        c->out_off += (size_t)w;
    }
    c->out.len = c->out_off = 0;
    if (c->want_out && !c->dead) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(srv->epfd, EPOLL_CTL_MOD, c->fd, &ev);
        c->want_out = false;
    }
}

/* Queue one reply frame: status, then n bytes of payload. */
static void
reply(ct__tcp_server *srv, conn *c, uint8_t status, const void *payload, size_t n)
{
    size_t start = c->out.len;
    if (ct__buf_frame_begin(&c->out, status) < 0 ||
        ct__buf_raw(&c->out, payload, n) < 0) {
        ct_error_clear();
        c->dead = true;
        return;
    }
    ct__buf_frame_end(&c->out, start);
    flush(srv, c);
}

static void
reply_i64(ct__tcp_server *srv, conn *c, int64_t v)
{
    uint8_t t[8];
    ct__put_i64(t, v);
    reply(srv, c, CT__TCP_OK, t, 8);
}

static void
reply_bool(ct__tcp_server *srv, conn *c, bool v)
{
    uint8_t t = v;
    reply(srv, c, CT__TCP_OK, &t, 1);
}

/* The pending error of this thread as an ERROR reply. */
static void
reply_error(ct__tcp_server *srv, conn *c)
{
    ct_error_state st;
    ct_error_fetch(&st);
    uint8_t head = (uint8_t)st.code;
    size_t start = c->out.len;
    if (ct__buf_frame_begin(&c->out, CT__TCP_ERROR) < 0 ||
        ct__buf_raw(&c->out, &head, 1) < 0 ||
        ct__buf_raw(&c->out, st.message, strlen(st.message)) < 0) {
        ct_error_clear();
        c->dead = true;
        return;
    }
    ct__buf_frame_end(&c->out, start);
    flush(srv, c);
}

/* ---- waiters ---------------------------------------------------------- */

static ct__kv_entry *
find(ct__tcp_server *srv, const uint8_t *key, size_t klen)
{
    return ct__kv_find(&srv->map, (const char *)key, klen);
}

/* Whether every key of a list (u32 n, n x bytes key) is in the map; a
 * malformed list sets r->bad. */
static bool
all_found(ct__tcp_server *srv, ct__rd *r)
{
    uint32_t n = ct__rd_u32(r);
    bool all = true;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        size_t klen;
        const uint8_t *key = ct__rd_bytes(r, &klen);
        if (!r->bad && find(srv, key, klen) == NULL) {
            all = false;
        }
    }
    return all;
}

/* Whether a blocking request can be answered now; for GET, *hit is the
 * entry to answer with.  -1 on a malformed request. */
static int
satisfied(ct__tcp_server *srv, uint8_t op, const uint8_t *body, size_t blen,
          ct__kv_entry **hit)
{
    ct__rd r = {.p = body, .left = blen};
    size_t klen;
    const uint8_t *key;
    int64_t threshold, v;
    ct__rd_i64(&r);             /* the timeout */
    switch (op) {
    case CT__TCP_GET:
        key = ct__rd_bytes(&r, &klen);
        if (r.bad) {
            return -1;
        }
        *hit = find(srv, key, klen);
        return *hit != NULL;
    case CT__TCP_WAIT: {
        bool all = all_found(srv, &r);
        return r.bad ? -1 : all;
    }
    case CT__TCP_WAIT_GE: {
        threshold = ct__rd_i64(&r);
        key = ct__rd_bytes(&r, &klen);
        if (r.bad) {
            return -1;
        }
        ct__kv_entry *e = find(srv, key, klen);
        if (e == NULL || ct__store_add_value(e->val, e->vlen, 0, &v) < 0) {
            ct_error_clear();
            return 0;
        }
        return v >= threshold;
    }
    default:
        return -1;
    }
}

static void
resume_later(ct__tcp_server *srv, conn *c)
{
    if (c->local) {
        pthread_cond_broadcast(&srv->cv);
        return;
    }
    if (!c->queued) {
        c->queued = true;
        c->resume_next = srv->resume;
        srv->resume = c;
    }
}

static void
waiter_remove(ct__tcp_server *srv, waiter *w)
{
    if (w->prev) {
        w->prev->next = w->next;
    }
    else {
        srv->waiters = w->next;
    }
    if (w->next) {
        w->next->prev = w->prev;
    }
    w->c->blocked = NULL;
    free(w->body);
    free(w);
}

/* The answer to a blocking request that can go on: GET's value, else
 * nothing. */
static void
reply_ready(ct__tcp_server *srv, conn *c, uint8_t op, const ct__kv_entry *hit)
{
    if (op == CT__TCP_GET) {
        reply(srv, c, CT__TCP_OK, hit->val, hit->vlen);
    }
    else {
        reply(srv, c, CT__TCP_OK, NULL, 0);
    }
}

/* Answer a waiter (satisfied or timed out) and let its connection go on. */
static void
waiter_finish(ct__tcp_server *srv, waiter *w, bool timed_out, ct__kv_entry *hit)
{
    conn *c = w->c;
    if (timed_out) {
        reply(srv, c, CT__TCP_TIMEOUT, NULL, 0);
    }
    else {
        reply_ready(srv, c, w->op, hit);
    }
    waiter_remove(srv, w);
    resume_later(srv, c);
}

/* A write happened: answer every waiter it satisfies. */
static void
notify(ct__tcp_server *srv)
{
    waiter *w = srv->waiters;
    while (w != NULL) {
        waiter *next = w->next;
        ct__kv_entry *hit = NULL;
        if (satisfied(srv, w->op, w->body, w->blen, &hit) == 1) {
            waiter_finish(srv, w, false, hit);
        }
        w = next;
    }
}

static void
expire(ct__tcp_server *srv)
{
    int64_t now = ct__store_now_ms();
    waiter *w = srv->waiters;
    while (w != NULL) {
        waiter *next = w->next;
        if (w->deadline <= now) {
            waiter_finish(srv, w, true, NULL);
        }
        w = next;
    }
}

/* epoll_wait's timeout: until the nearest deadline, or -1. */
static int
next_timeout(ct__tcp_server *srv)
{
    int64_t nearest = INT64_MAX;
    for (waiter *w = srv->waiters; w != NULL; w = w->next) {
        if (w->deadline < nearest) {
            nearest = w->deadline;
        }
    }
    if (nearest == INT64_MAX) {
        return -1;
    }
    int64_t left = nearest - ct__store_now_ms();
    return left <= 0 ? 0 : left > 1000000 ? 1000000 : (int)left;
}

/* A blocking request: answer it now if it can be, else park it. */
static void
block_or_answer(ct__tcp_server *srv, conn *c, uint8_t op, const uint8_t *body,
                size_t blen)
{
    ct__kv_entry *hit = NULL;
    int ok = satisfied(srv, op, body, blen, &hit);
    if (ok < 0) {
        c->dead = true;
        return;
    }
    if (ok == 1) {
        reply_ready(srv, c, op, hit);
        return;
    }
    int64_t timeout = ct__get_i64(body);
    if (timeout < 0) {
        reply(srv, c, CT__TCP_TIMEOUT, NULL, 0);
        return;
    }
    waiter *w = calloc(1, sizeof *w);
    uint8_t *copy = malloc(blen);
    if (w == NULL || copy == NULL) {
        free(w);
        free(copy);
        c->dead = true;
        return;
    }
    memcpy(copy, body, blen);
    w->c = c;
    w->op = op;
    w->body = copy;
    w->blen = blen;
    w->deadline = timeout == 0 ? INT64_MAX : ct__store_now_ms() + timeout;
    w->next = srv->waiters;
    if (srv->waiters) {
        srv->waiters->prev = w;
    }
    srv->waiters = w;
    c->blocked = w;
}

/* ---- requests --------------------------------------------------------- */

static void
handle(ct__tcp_server *srv, conn *c, const uint8_t *frame, size_t n)
{
    uint8_t op = frame[0];
    ct__rd r = {.p = frame + 1, .left = n - 1};
    const uint8_t *key, *val, *exp;
    size_t klen, vlen, elen;
    int64_t delta, v;
    switch (op) {
    case CT__TCP_SET:
        key = ct__rd_bytes(&r, &klen);
        val = ct__rd_bytes(&r, &vlen);
        if (r.bad) {
            break;
        }
        if (ct__kv_set(&srv->map, (const char *)key, klen, val, vlen) == NULL) {
            reply_error(srv, c);
            return;
        }
        reply(srv, c, CT__TCP_OK, NULL, 0);
        notify(srv);
        return;
    case CT__TCP_GET:
    case CT__TCP_WAIT:
    case CT__TCP_WAIT_GE:
        block_or_answer(srv, c, op, frame + 1, n - 1);
        return;
    case CT__TCP_ADD:
        delta = ct__rd_i64(&r);
        key = ct__rd_bytes(&r, &klen);
        if (r.bad) {
            break;
        }
        if (ct__kv_add(&srv->map, (const char *)key, klen, delta, &v) < 0) {
            reply_error(srv, c);
            return;
        }
        reply_i64(srv, c, v);
        notify(srv);
        return;
    case CT__TCP_CAS: {
        key = ct__rd_bytes(&r, &klen);
        exp = ct__rd_bytes(&r, &elen);
        val = ct__rd_bytes(&r, &vlen);
        if (r.bad) {
            break;
        }
        const uint8_t *res;
        size_t nres;
        if (ct__store_cas_decide(find(srv, key, klen), exp, elen, &res, &nres)) {
            if (ct__kv_set(&srv->map, (const char *)key, klen, val, vlen) == NULL) {
                reply_error(srv, c);
                return;
            }
            reply(srv, c, CT__TCP_OK, val, vlen);
            notify(srv);
            return;
        }
        reply(srv, c, CT__TCP_OK, res, nres);
        return;
    }
    case CT__TCP_CHECK: {
        bool all = all_found(srv, &r);
        if (r.bad) {
            break;
        }
        reply_bool(srv, c, all);
        return;
    }
    case CT__TCP_DELETE:
        key = ct__rd_bytes(&r, &klen);
        if (r.bad) {
            break;
        }
        reply_bool(srv, c, ct__kv_delete(&srv->map, (const char *)key, klen));
        return;
    case CT__TCP_NUM_KEYS:
        reply_i64(srv, c, (int64_t)srv->map.count);
        return;
    default:
        break;
    }
    /* a malformed request: this is no TCPStore client */
    c->dead = true;
}

/* Run the complete requests buffered on c, up to one that blocks. */
static void
process(ct__tcp_server *srv, conn *c)
{
    while (!c->dead && c->blocked == NULL && c->in_len - c->in_off >= 4) {
        uint32_t flen = ct__get_u32(c->in + c->in_off);
        if (flen == 0 || flen > CT__TCP_MAX_FRAME) {
            c->dead = true;
            break;
        }
        if (c->in_len - c->in_off - 4 < flen) {
            break;
        }
        const uint8_t *frame = c->in + c->in_off + 4;
        c->in_off += 4 + (size_t)flen;
        handle(srv, c, frame, flen);
    }
    if (c->in_off == c->in_len) {
        c->in_off = c->in_len = 0;
    }
}

static void
on_readable(ct__tcp_server *srv, conn *c)
{
    for (;;) {
        if (c->in_cap - c->in_len < 4096) {
            if (c->in_off > 0) {
                memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
                c->in_len -= c->in_off;
                c->in_off = 0;
            }
            if (c->in_cap - c->in_len < 4096) {
                size_t cap = c->in_cap ? c->in_cap * 2 : 16384;
                uint8_t *p = realloc(c->in, cap);
                if (p == NULL) {
                    c->dead = true;
                    return;
                }
                c->in = p;
                c->in_cap = cap;
            }
        }
        size_t room = c->in_cap - c->in_len;
        ssize_t got = recv(c->fd, c->in + c->in_len, room, MSG_DONTWAIT);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            break;
        }
        if (got <= 0) {
            c->dead = true;
            return;
        }
        c->in_len += (size_t)got;
        if ((size_t)got < room) {
            break;              /* drained what was there */
        }
    }
    process(srv, c);
}

static void
accept_all(ct__tcp_server *srv)
{
    for (;;) {
        int fd = accept4(srv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            return;             /* EAGAIN, or out of descriptors for now */
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn *c = calloc(1, sizeof *c);
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->fd = fd;
        ct__buf_init(&c->out);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(srv->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
            close(fd);
            free(c);
            continue;
        }
        c->next = srv->conns;
        if (srv->conns) {
            srv->conns->prev = c;
        }
        srv->conns = c;
    }
}

static void
conn_free(ct__tcp_server *srv, conn *c)
{
    if (c->blocked) {
        waiter_remove(srv, c->blocked);
    }
    if (c->prev) {
        c->prev->next = c->next;
    }
    else {
        srv->conns = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    close(c->fd);
    free(c->in);
    ct__buf_free(&c->out);
    free(c);
}

static void
run_resumed(ct__tcp_server *srv)
{
    while (srv->resume != NULL) {
        conn *c = srv->resume;
        srv->resume = c->resume_next;
        c->queued = false;
        if (!c->dead) {
            process(srv, c);
        }
    }
}

static void
reap(ct__tcp_server *srv)
{
    conn *c = srv->conns;
    while (c != NULL) {
        conn *next = c->next;
        if (c->dead) {
            conn_free(srv, c);
        }
        c = next;
    }
}

static void *
serve(void *arg)
{
    ct__tcp_server *srv = arg;
    struct epoll_event evs[64];
    pthread_mutex_lock(&srv->mu);
    while (!srv->stopping) {
        int timeout = next_timeout(srv);
        pthread_mutex_unlock(&srv->mu);
        int n = epoll_wait(srv->epfd, evs, 64, timeout);
        pthread_mutex_lock(&srv->mu);
        for (int i = 0; i < n; i++) {
            void *tag = evs[i].data.ptr;
            if (tag == &srv->lfd) {
                accept_all(srv);
            }
            else if (tag == &srv->evfd) {
                uint64_t count;
                ssize_t r = read(srv->evfd, &count, sizeof count);
                (void)r;
            }
            else {
                conn *c = tag;
                if (!c->dead && (evs[i].events & EPOLLOUT)) {
                    flush(srv, c);
                }
                if (!c->dead && (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
                    on_readable(srv, c);
                }
            }
            run_resumed(srv);
        }
        expire(srv);
        run_resumed(srv);
        reap(srv);
    }
    while (srv->conns != NULL) {
        conn_free(srv, srv->conns);
    }
    ct__kv_clear(&srv->map);
    pthread_mutex_unlock(&srv->mu);
    return NULL;
}

static void
wake_loop(ct__tcp_server *srv)
{
    uint64_t one = 1;
    ssize_t w = write(srv->evfd, &one, sizeof one);
    (void)w;
}

int
ct__tcp_server_call(ct__tcp_server *srv, const uint8_t *frame, size_t n,
                    uint8_t *status, uint8_t **body, size_t *blen)
{
    conn c = {.fd = -1, .local = true};
    ct__buf_init(&c.out);
    pthread_mutex_lock(&srv->mu);
    handle(srv, &c, frame, n);
    while (c.blocked != NULL) {
        int64_t deadline = c.blocked->deadline;
        if (ct__store_now_ms() >= deadline) {
            waiter_finish(srv, c.blocked, true, NULL);
        }
        else {
            ct__store_cond_wait(&srv->cv, &srv->mu, deadline);
        }
    }
    bool resumed = srv->resume != NULL;
    pthread_mutex_unlock(&srv->mu);
    if (resumed) {
        wake_loop(srv);
    }
    int rc = 0;
    if (c.dead || c.out.len < 5) {
        rc = ct_error(CT_ERR_RUNTIME, "TCPStore: malformed request");
    }
    else {
        *status = c.out.p[4];
        *blen = c.out.len - 5;
        if ((*body = ct__store_dup(c.out.p + 5, *blen)) == NULL) {
            rc = -1;
        }
    }
    ct__buf_free(&c.out);
    return rc;
}

/* ---- start and stop --------------------------------------------------- */

static int
try_listen(int family, int port)
{
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    int one = 1, zero = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc;
    if (family == AF_INET6) {
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = in6addr_any,
                                 .sin6_port = htons((uint16_t)port)};
        rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    }
    else {
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_addr.s_addr = htonl(INADDR_ANY),
                                .sin_port = htons((uint16_t)port)};
        rc = bind(fd, (struct sockaddr *)&a, sizeof a);
    }
    if (rc == 0) {
        rc = listen(fd, SOMAXCONN);
    }
    if (rc < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Listen on every local address as c10d does, with its error text. */
static int
listen_any(int port)
{
    char why6[160], why4[160];
    int fd = try_listen(AF_INET6, port);
    if (fd >= 0) {
        return fd;
    }
    snprintf(why6, sizeof why6, "The server socket has failed to bind to [::]:%d "
             "(errno: %d - %s).", port, errno, strerror(errno));
    if ((fd = try_listen(AF_INET, port)) >= 0) {
        return fd;
    }
    snprintf(why4, sizeof why4, "The server socket has failed to bind to 0.0.0.0:%d "
             "(errno: %d - %s).", port, errno, strerror(errno));
    return ct_error(CT_ERR_RUNTIME, "The server socket has failed to listen on any "
                    "local network address. %s %s", why6, why4);
}

static int
bound_port(int fd)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        return -1;
    }
    if (a.ss_family == AF_INET6) {
        return ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    }
    return ntohs(((struct sockaddr_in *)&a)->sin_port);
}

static void
server_free(ct__tcp_server *srv)
{
    pthread_cond_destroy(&srv->cv);
    pthread_mutex_destroy(&srv->mu);
    if (srv->lfd >= 0) {
        close(srv->lfd);
    }
    if (srv->epfd >= 0) {
        close(srv->epfd);
    }
    if (srv->evfd >= 0) {
        close(srv->evfd);
    }
    free(srv);
}

static ct__tcp_server *
server_new(int port)
{
    ct__tcp_server *srv = calloc(1, sizeof *srv);
    if (srv == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in TCPStore");
        return NULL;
    }
    srv->refcnt = 1;
    srv->pid = getpid();
    srv->epfd = srv->evfd = -1;
    pthread_mutex_init(&srv->mu, NULL);
    ct__store_cond_init(&srv->cv);
    ct__kv_init(&srv->map);
    if ((srv->lfd = listen_any(port)) < 0) {
        server_free(srv);
        return NULL;
    }
    srv->port = bound_port(srv->lfd);
    srv->epfd = epoll_create1(EPOLL_CLOEXEC);
    srv->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &srv->lfd};
    struct epoll_event eev = {.events = EPOLLIN, .data.ptr = &srv->evfd};
    if (srv->epfd < 0 || srv->evfd < 0 ||
        epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->lfd, &lev) < 0 ||
        epoll_ctl(srv->epfd, EPOLL_CTL_ADD, srv->evfd, &eev) < 0) {
        ct_error(CT_ERR_RUNTIME, "TCPStore: epoll setup failed: %s", strerror(errno));
        server_free(srv);
        return NULL;
    }
    /* the loop thread takes no signals: Python handles them on its main
     * thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&srv->thread, NULL, serve, srv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        ct_error(CT_ERR_RUNTIME, "TCPStore: cannot start the server thread: %s",
                 strerror(rc));
        server_free(srv);
        return NULL;
    }
    return srv;
}

ct__tcp_server *
ct__tcp_server_start(int port, bool multi_tenant)
{
    if (!multi_tenant) {
        return server_new(port);
    }
    pthread_mutex_lock(&registry_mu);
    for (ct__tcp_server *s = registry; s != NULL && port != 0; s = s->next_registered) {
        if (s->port == port && s->pid == getpid()) {
            s->refcnt++;
            pthread_mutex_unlock(&registry_mu);
            return s;
        }
    }
    ct__tcp_server *srv = server_new(port);
    if (srv != NULL) {
        srv->multi_tenant = true;
        srv->next_registered = registry;
        registry = srv;
    }
    pthread_mutex_unlock(&registry_mu);
    return srv;
}

int
ct__tcp_server_port(const ct__tcp_server *srv)
{
    return srv->port;
}

void
ct__tcp_server_release(ct__tcp_server *srv)
{
    pthread_mutex_lock(&registry_mu);
    int left = --srv->refcnt;
    if (left == 0 && srv->multi_tenant) {
        for (ct__tcp_server **p = &registry; *p != NULL; p = &(*p)->next_registered) {
            if (*p == srv) {
                *p = srv->next_registered;
                break;
            }
        }
    }
    pthread_mutex_unlock(&registry_mu);
    if (left > 0) {
        return;
    }
    if (srv->pid != getpid()) {
        /* a forked child's copy: the thread and the eventfd are the
         * parent's, the mutex may have been held at the fork, the map may
         * be mid-update; only this process's descriptors are dropped */
        close(srv->lfd);
        close(srv->epfd);
        close(srv->evfd);
        free(srv);
        return;
    }
    pthread_mutex_lock(&srv->mu);
    srv->stopping = true;
    pthread_mutex_unlock(&srv->mu);
    wake_loop(srv);
    pthread_join(srv->thread, NULL);
    server_free(srv);
}
