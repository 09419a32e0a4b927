/* csrc/distributed/store_tcp.c -- TCPStore: a store served by one process
 * (the master, store_tcp_server.c) over TCP to every rank (c10d::TCPStore).
 *
 * Every instance is a client.  A request is one frame and one reply
 * (Note [TCPStore protocol]); get and wait block in the server, which
 * answers at the deadline, so a timeout leaves the connection usable.  The
 * master's own requests run in the calling thread against its server's
 * state, with no socket (ct__tcp_server_call).
 * Connections live in a small pool: a thread whose get blocks holds one
 * while another thread's set goes out on a second.  User keys travel with
 * a "/" in front as in c10d, so the internal "init/" counter of
 * wait_for_workers never meets a user key (and num_keys counts it, as
 * c10d's does).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "csrc/distributed/store_tcp.h"

#define POOL_SIZE 4
/* How long past a blocking request's deadline the client still waits for
 * the server's answer before it gives up on the connection. */
#define REPLY_SLACK_MS 5000
#define INIT_KEY "init/"

typedef struct {
    int fd;
    int64_t rcv_ms;             /* SO_RCVTIMEO now set (0: none) */
} tconn;

typedef struct {
    ct_store base;
    ct__tcp_server *server;     /* owned reference on the master */
    pid_t server_pid;           /* where that server's thread runs */
    pthread_mutex_t mu;         /* guards the pool and pid */
    tconn idle[POOL_SIZE];
    int nidle;
    pid_t pid;                  /* a forked child drops its parent's sockets */
    int port;
    char host[];
} tcp_store;

typedef struct {
    uint8_t status;
    uint8_t *body;              /* malloc'd (never NULL on success) */
    size_t len;
} reply;

static inline tcp_store *
T(ct_store *s)
{
    return (tcp_store *)s;
}

/* ---- connecting ------------------------------------------------------- */

/* One non-blocking connect to one address, bounded by the deadline. */
static int
try_connect(const struct addrinfo *ai, int64_t deadline)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS) {
            close(fd);
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int64_t left = deadline == INT64_MAX ? -1 : deadline - ct__store_now_ms();
        int err = 0;
        socklen_t len = sizeof err;
        if (left == 0 || left < -1 ||
            poll(&p, 1, left < 0 ? -1 : left > 60000 ? 60000 : (int)left) <= 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err != 0) {
            close(fd);
            return -1;
        }
    }
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Connect to the master, retrying (the master may not be up yet) until
 * the timeout; then c10d's TimeoutError text. */
static int
connect_master(tcp_store *t, int64_t timeout_ms)
{
    int64_t deadline = ct__store_deadline(timeout_ms);
    char port[16];
    snprintf(port, sizeof port, "%d", t->port);
    int64_t nap_ms = 1;
    for (;;) {
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        struct addrinfo *res = NULL;
        if (getaddrinfo(t->host, port, &hints, &res) == 0) {
            for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
                int fd = try_connect(ai, deadline);
                if (fd >= 0) {
                    freeaddrinfo(res);
                    return fd;
                }
            }
            freeaddrinfo(res);
        }
        int64_t now = ct__store_now_ms();
        if (now >= deadline) {
            break;
        }
        int64_t nap = nap_ms < deadline - now ? nap_ms : deadline - now;
        usleep((useconds_t)(nap * 1000));
        nap_ms = nap_ms * 2 > 100 ? 100 : nap_ms * 2;
    }
    return ct_error(CT_ERR_RUNTIME, CT_STORE_CONNECT_TIMEOUT_TEXT
                    " after %llds while trying to connect to (%s, %d).",
                    (long long)(timeout_ms / 1000), t->host, t->port);
}

/* A connection from the pool, or a new one. */
static int
acquire(tcp_store *t, tconn *c)
{
    pthread_mutex_lock(&t->mu);
    if (t->pid != getpid()) {
        /* forked: these sockets are the parent's conversations */
        for (int i = 0; i < t->nidle; i++) {
            close(t->idle[i].fd);
        }
        t->nidle = 0;
        t->pid = getpid();
    }
    if (t->nidle > 0) {
        *c = t->idle[--t->nidle];
        pthread_mutex_unlock(&t->mu);
        return 0;
    }
    pthread_mutex_unlock(&t->mu);
    c->rcv_ms = 0;
    c->fd = connect_master(t, ct__store_resolve_timeout(&t->base, -1));
    return c->fd < 0 ? -1 : 0;
}

static void
release(tcp_store *t, tconn *c)
{
    pthread_mutex_lock(&t->mu);
    if (t->nidle < POOL_SIZE && t->pid == getpid()) {
        t->idle[t->nidle++] = *c;
        c = NULL;
    }
    pthread_mutex_unlock(&t->mu);
    if (c != NULL) {
        close(c->fd);
    }
}

/* ---- one round trip --------------------------------------------------- */

static int
io_error(int err)
{
    if (err == EAGAIN || err == EWOULDBLOCK) {
        return ct_error(CT_ERR_RUNTIME, "Socket Timeout");
    }
    return ct_error(CT_ERR_RUNTIME, "%s", strerror(err));
}

static int
send_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w < 0) {
            return io_error(errno);
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int
recv_some(int fd, uint8_t *p, size_t n, size_t *got)
{
    for (;;) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r < 0) {
            return io_error(errno);
        }
        if (r == 0) {
            return io_error(ECONNRESET);
        }
        *got = (size_t)r;
        return 0;
    }
}

static int
recv_reply(tconn *c, int64_t rcv_ms, reply *r)
{
    if (c->rcv_ms != rcv_ms) {
        struct timeval tv = {.tv_sec = rcv_ms / 1000,
                             .tv_usec = (rcv_ms % 1000) * 1000};
        setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        c->rcv_ms = rcv_ms;
    }
    /* replies come one per request, so reading ahead never takes bytes of
     * a later frame */
    uint8_t head[512];
    size_t have = 0, got = 0;
    while (have < 5) {
        if (recv_some(c->fd, head + have, sizeof head - have, &got) < 0) {
            return -1;
        }
        have += got;
    }
    uint32_t flen = ct__get_u32(head);
    if (flen == 0 || flen > CT__TCP_MAX_FRAME || have > 4 + (size_t)flen) {
        return ct_error(CT_ERR_RUNTIME, "TCPStore: malformed reply from the server");
    }
    r->status = head[4];
    r->len = flen - 1;
    r->body = malloc(r->len > 0 ? r->len : 1);
    if (r->body == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in TCPStore");
    }
    memcpy(r->body, head + 5, have - 5);
    for (size_t at = have - 5; at < r->len; at += got) {
        if (recv_some(c->fd, r->body + at, r->len - at, &got) < 0) {
            free(r->body);
            r->body = NULL;
            return -1;
        }
    }
    return 0;
}

/* How long to wait for a reply to a request that blocks up to timeout_ms
 * in the server (0: forever). */
static int64_t
reply_wait_ms(int64_t timeout_ms)
{
    return timeout_ms == 0 ? 0 : (timeout_ms > 0 ? timeout_ms : 0) + REPLY_SLACK_MS;
}

/* Send the frame in req and read the reply.  A reply other than OK becomes
 * the error (TIMEOUT: c10d's "Socket Timeout"; ERROR: the server's). */
static int
call(tcp_store *t, ct__buf *req, int64_t rcv_ms, reply *r)
{
    if (t->server != NULL && t->server_pid == getpid()) {
        if (ct__tcp_server_call(t->server, req->p + 4, req->len - 4, &r->status,
                                &r->body, &r->len) < 0) {
            return -1;
        }
    }
    else {
        tconn c;
        if (acquire(t, &c) < 0) {
            return -1;
        }
        if (send_all(c.fd, req->p, req->len) < 0 || recv_reply(&c, rcv_ms, r) < 0) {
            close(c.fd);
            return -1;
        }
        release(t, &c);
    }
    if (r->status == CT__TCP_OK) {
        return 0;
    }
    if (r->status == CT__TCP_TIMEOUT) {
        ct_error(CT_ERR_RUNTIME, "Socket Timeout");
    }
    else if (r->status == CT__TCP_ERROR && r->len >= 1 && r->body[0] < CT_ERR_COUNT &&
             r->body[0] != CT_OK) {
        ct_error((ct_errcode)r->body[0], "%.*s", (int)(r->len - 1), r->body + 1);
    }
    else {
        ct_error(CT_ERR_RUNTIME, "TCPStore: malformed reply from the server");
    }
    free(r->body);
    r->body = NULL;
    return -1;
}

/* ---- requests --------------------------------------------------------- */

/* A key field: "/" + key for user keys (c10d's prefix), the key itself for
 * internal ones. */
static int
put_key(ct__buf *b, const char *key, bool user)
{
    size_t klen = strlen(key);
    if (klen + 1 >= CT__TCP_MAX_FRAME) {
        return ct_error(CT_ERR_RUNTIME, "TCPStore: a key of %zu bytes is too large",
                        klen);
    }
    if (!user) {
        return ct__buf_bytes(b, key, klen);
    }
    uint8_t slash = CT__STORE_USER_PREFIX;
    if (ct__buf_u32(b, (uint32_t)(klen + 1)) < 0 || ct__buf_raw(b, &slash, 1) < 0) {
        return -1;
    }
    return ct__buf_raw(b, key, klen);
}

static int
put_keys(ct__buf *b, const char *const *keys, int nkeys)
{
    if (ct__buf_u32(b, (uint32_t)nkeys) < 0) {
        return -1;
    }
    for (int i = 0; i < nkeys; i++) {
        if (put_key(b, keys[i], true) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The tail shared by every request: close the frame, make the call, and
 * free the buffer.  `prep` is the result of building it (0 or -1). */
static int
finish(tcp_store *t, ct__buf *b, int prep, int64_t rcv_ms, reply *r)
{
    int rc = -1;
    if (prep == 0) {
        ct__buf_frame_end(b, 0);
        rc = call(t, b, rcv_ms, r);
    }
    ct__buf_free(b);
    return rc;
}

static int64_t
plain_wait_ms(ct_store *s)
{
    return reply_wait_ms(ct__store_resolve_timeout(s, -1));
}

static int
tcp_set(ct_store *s, const char *key, const uint8_t *val, size_t n)
{
    ct__buf b;
    reply r;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_SET) < 0 || put_key(&b, key, true) < 0 ||
               ct__buf_bytes(&b, val, n) < 0 ? -1 : 0;
    if (finish(T(s), &b, prep, plain_wait_ms(s), &r) < 0) {
        return -1;
    }
    free(r.body);
    return 0;
}

static int
tcp_get(ct_store *s, const char *key, uint8_t **val, size_t *n)
{
    int64_t timeout = ct__store_resolve_timeout(s, -1);
    ct__buf b;
    reply r;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_GET) < 0 ||
               ct__buf_i64(&b, timeout) < 0 || put_key(&b, key, true) < 0 ? -1 : 0;
    if (finish(T(s), &b, prep, reply_wait_ms(timeout), &r) < 0) {
        return -1;
    }
    *val = r.body;
    *n = r.len;
    return 0;
}

/* A request whose reply is one i64 (ADD, NUM_KEYS). */
static int
i64_reply(tcp_store *t, ct__buf *b, int prep, int64_t *out)
{
    reply r;
    if (finish(t, b, prep, plain_wait_ms(&t->base), &r) < 0) {
        return -1;
    }
    int rc = r.len == 8 ? 0 : ct_error(CT_ERR_RUNTIME, "TCPStore: malformed reply");
    if (rc == 0) {
        *out = ct__get_i64(r.body);
    }
    free(r.body);
    return rc;
}

static int
add_key(ct_store *s, const char *key, bool user, int64_t delta, int64_t *out)
{
    ct__buf b;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_ADD) < 0 || ct__buf_i64(&b, delta) < 0 ||
               put_key(&b, key, user) < 0 ? -1 : 0;
    return i64_reply(T(s), &b, prep, out);
}

static int
tcp_add(ct_store *s, const char *key, int64_t delta, int64_t *out)
{
    return add_key(s, key, true, delta, out);
}

static int
tcp_compare_set(ct_store *s, const char *key, const uint8_t *expected, size_t nexpected,
                const uint8_t *desired, size_t ndesired, uint8_t **out, size_t *nout)
{
    ct__buf b;
    reply r;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_CAS) < 0 || put_key(&b, key, true) < 0 ||
               ct__buf_bytes(&b, expected, nexpected) < 0 ||
               ct__buf_bytes(&b, desired, ndesired) < 0 ? -1 : 0;
    if (finish(T(s), &b, prep, plain_wait_ms(s), &r) < 0) {
        return -1;
    }
    *out = r.body;
    *nout = r.len;
    return 0;
}

/* A request whose reply is one byte (CHECK, DELETE). */
static int
bool_reply(tcp_store *t, ct__buf *b, int prep, bool *out)
{
    reply r;
    if (finish(t, b, prep, plain_wait_ms(&t->base), &r) < 0) {
        return -1;
    }
    int rc = r.len == 1 ? 0 : ct_error(CT_ERR_RUNTIME, "TCPStore: malformed reply");
    if (rc == 0) {
        *out = r.body[0] != 0;
    }
    free(r.body);
    return rc;
}

static int
tcp_check(ct_store *s, const char *const *keys, int nkeys, bool *all_exist)
{
    ct__buf b;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_CHECK) < 0 ||
               put_keys(&b, keys, nkeys) < 0 ? -1 : 0;
    return bool_reply(T(s), &b, prep, all_exist);
}

static int
tcp_delete_key(ct_store *s, const char *key, bool *deleted)
{
    ct__buf b;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_DELETE) < 0 || put_key(&b, key, true) < 0
                   ? -1 : 0;
    return bool_reply(T(s), &b, prep, deleted);
}

static int
tcp_wait(ct_store *s, const char *const *keys, int nkeys, int64_t timeout_ms)
{
    int64_t timeout = ct__store_resolve_timeout(s, timeout_ms);
    ct__buf b;
    reply r;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_WAIT) < 0 ||
               ct__buf_i64(&b, timeout) < 0 || put_keys(&b, keys, nkeys) < 0 ? -1 : 0;
    if (finish(T(s), &b, prep, reply_wait_ms(timeout), &r) < 0) {
        return -1;
    }
    free(r.body);
    return 0;
}

static int
tcp_num_keys(ct_store *s, int64_t *out)
{
    ct__buf b;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_NUM_KEYS);
    return i64_reply(T(s), &b, prep, out);
}

/* The master's wait for its workers: c10d 1.13 polls the "init/" counter
 * until world_size stores have joined or the timeout passes, and then
 * goes on without an error; here the server answers when the counter gets
 * there. */
static int
wait_for_workers(tcp_store *t, int world_size)
{
    int64_t timeout = ct__store_resolve_timeout(&t->base, -1);
    ct__buf b;
    reply r;
    ct__buf_init(&b);
    int prep = ct__buf_frame_begin(&b, CT__TCP_WAIT_GE) < 0 ||
               ct__buf_i64(&b, timeout) < 0 || ct__buf_i64(&b, world_size) < 0 ||
               put_key(&b, INIT_KEY, false) < 0 ? -1 : 0;
    if (finish(t, &b, prep, reply_wait_ms(timeout), &r) < 0) {
        ct_error_clear();
        return 0;
    }
    free(r.body);
    return 0;
}

static void
tcp_destroy(ct_store *s)
{
    tcp_store *t = T(s);
    for (int i = 0; i < t->nidle; i++) {
        close(t->idle[i].fd);
    }
    if (t->server != NULL) {
        ct__tcp_server_release(t->server);
    }
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static const ct_store_vtable tcp_vtable = {
    .name = "TCPStore",
    .set = tcp_set,
    .get = tcp_get,
    .add = tcp_add,
    .compare_set = tcp_compare_set,
    .check = tcp_check,
    .wait = tcp_wait,
    .delete_key = tcp_delete_key,
    .num_keys = tcp_num_keys,
    .destroy = tcp_destroy,
};

ct_store *
ct_tcp_store_open(const ct_tcp_store_options *o)
{
    if (o->port < 0 || o->port > 65535) {
        ct_error(CT_ERR_VALUE, "TCPStore: port %d is out of range", o->port);
        return NULL;
    }
    size_t hlen = strlen(o->host);
    tcp_store *t = calloc(1, sizeof *t + hlen + 1);
    if (t == NULL) {
        ct_error(CT_ERR_NOMEM, "out of memory in TCPStore");
        return NULL;
    }
    memcpy(t->host, o->host, hlen + 1);
    t->port = o->port;
    t->pid = getpid();
    pthread_mutex_init(&t->mu, NULL);
    ct__store_init(&t->base, &tcp_vtable, o->timeout_ms);
    if (o->is_master) {
        if ((t->server = ct__tcp_server_start(o->port, o->multi_tenant)) == NULL) {
            tcp_destroy(&t->base);
            return NULL;
        }
        t->port = ct__tcp_server_port(t->server);
        /* its own calls run in place, with no socket (a forked child of it
         * connects to host when it first calls) */
        t->server_pid = getpid();
    }
    else {
        tconn c = {.rcv_ms = 0};
        if ((c.fd = connect_master(t, o->timeout_ms)) < 0) {
            tcp_destroy(&t->base);
            return NULL;
        }
        release(t, &c);
    }
    if (o->world_size >= 0 && o->wait_for_workers) {
        int64_t joined;
        if (add_key(&t->base, INIT_KEY, false, 1, &joined) < 0 ||
            (o->is_master && wait_for_workers(t, o->world_size) < 0)) {
            tcp_destroy(&t->base);
            return NULL;
        }
    }
    return &t->base;
}

ct_store *
ct_tcp_store_new(const char *host, int port, int world_size, bool is_master,
                 int64_t timeout_ms, bool wait_for_workers)
{
    ct_tcp_store_options o = {.host = host, .port = port, .world_size = world_size,
                              .is_master = is_master, .timeout_ms = timeout_ms,
                              .wait_for_workers = wait_for_workers};
    return ct_tcp_store_open(&o);
}

int
ct_tcp_store_port(const ct_store *s)
{
    return ((const tcp_store *)s)->port;
}
