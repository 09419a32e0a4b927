/* csrc/distributed/transport_tcp.c -- the TCP mesh: setup through the
 * store, and the byte streams of links that carry data over TCP.
 *
 * Setup: each rank listens on an ephemeral port and publishes
 * "<host id> <pid> <port> <ipv4,...>" under ctorch_gloo/<gen>/addr/<rank>
 * (gen counts the groups this rank made on this store, so a second group
 * on the same store never reads the first one's addresses).  The host id
 * is the boot id plus the network and pid namespaces: ranks with the same
 * id reach each other on loopback and share memory; others use the
 * published addresses.  Rank r connects to every lower rank and accepts
 * every higher one, so the waits only ever point downwards.  On each new
 * connection the connector sends a hello; the acceptor answers with an
 * offer of a shared segment when the host matches; the connector says
 * whether it could map it.
 *
 * After setup every socket is non-blocking with TCP_NODELAY.  A TCP link
 * stages outgoing bytes in a buffer flushed with send() and reads into a
 * buffer whose position keeps the stream's alignment modulo 8.
 */
#include "pg_impl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELLO_MAGIC 0x6374676c6f6f3031ull /* "ctgloo01" */
#define TCP_BUF (256 * 1024)
#define MAX_ADDRS 16

typedef struct {
    uint64_t magic;
    int32_t rank, size;
    int64_t gen;
    int32_t pid, pad;
} hello_msg;

typedef struct {
    uint64_t magic;
    int32_t rank, shm;
    int32_t pid, fd;
    uint64_t cap, token;
} hello_ack;

typedef struct {
    char host[128];
    int pid, port;
    int naddr;
    uint32_t addr[MAX_ADDRS]; /* network order */
} peer_addr;

/* --- helpers --------------------------------------------------------------- */

static uint64_t
ns_inode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void
host_id(char *buf, size_t n)
{
    char boot[64] = "noboot";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f != NULL) {
        if (fgets(boot, sizeof boot, f) == NULL) {
            strcpy(boot, "noboot");
        }
        fclose(f);
        boot[strcspn(boot, "\n")] = 0;
    }
    snprintf(buf, n, "%s/%llx/%llx", boot,
             (unsigned long long)ns_inode("/proc/self/ns/net"),
             (unsigned long long)ns_inode("/proc/self/ns/pid"));
}

/* IPv4 addresses of the interfaces that are up, loopback last.
 * GLOO_SOCKET_IFNAME picks one interface, as for PyTorch. */
static int
local_addrs(uint32_t *out, int max)
{
    struct ifaddrs *ifa = NULL;
    int n = 0;
    const char *only = getenv("GLOO_SOCKET_IFNAME");
    if (getifaddrs(&ifa) < 0) {
        return 0;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (struct ifaddrs *i = ifa; i != NULL && n < max; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
                !(i->ifa_flags & IFF_UP)) {
                continue;
            }
            if (only != NULL && *only && strcmp(i->ifa_name, only) != 0) {
                continue;
            }
            bool loop = (i->ifa_flags & IFF_LOOPBACK) != 0;
            if (loop != (pass == 1)) {
                continue;
            }
            out[n++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        }
    }
    freeifaddrs(ifa);
    return n;
}

static int
remaining_ms(int64_t deadline)
{
    int64_t left = (deadline - pg_now_ns()) / 1000000;
    return left < 0 ? 0 : left > 1000000000 ? 1000000000 : (int)left;
}

/* Read or write exactly n bytes on a blocking-mode socket before the
 * deadline; -1 with errno (ETIMEDOUT, or 0 for EOF -> ECONNRESET). */
int
pg_io_full(int fd, void *buf, size_t n, bool rd, int64_t deadline)
{
    char *p = buf;
    while (n > 0) {
        struct pollfd pfd = {fd, rd ? POLLIN : POLLOUT, 0};
        int r = poll(&pfd, 1, remaining_ms(deadline));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            errno = r == 0 ? ETIMEDOUT : errno;
            return -1;
        }
        ssize_t k = rd ? recv(fd, p, n, MSG_DONTWAIT)
                       : send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
            continue;
        }
        if (k <= 0) {
            if (k == 0) {
                errno = ECONNRESET;
            }
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int
set_socket_options(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    int fl = fcntl(fd, F_GETFL);
    return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int
connect_one(uint32_t addr, int port, int64_t deadline)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = addr;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct pollfd pfd = {fd, POLLOUT, 0};
    int ms = remaining_ms(deadline);
    if (poll(&pfd, 1, ms > 2000 ? 2000 : ms) <= 0) {
        close(fd);
        return -1;
    }
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int
parse_addr(const uint8_t *v, size_t n, peer_addr *pa)
{
    char buf[1024], ips[768];
    if (n >= sizeof buf) {
        return -1;
    }
    memcpy(buf, v, n);
    buf[n] = 0;
    ips[0] = 0;
    if (sscanf(buf, "v1 %127s %d %d %767s", pa->host, &pa->pid, &pa->port, ips) < 3) {
        return -1;
    }
    pa->naddr = 0;
    for (char *save = NULL, *tok = strtok_r(ips, ",", &save);
         tok != NULL && pa->naddr < MAX_ADDRS; tok = strtok_r(NULL, ",", &save)) {
        struct in_addr ia;
        if (inet_pton(AF_INET, tok, &ia) == 1) {
            pa->addr[pa->naddr++] = ia.s_addr;
        }
    }
    return 0;
}

static uint64_t
ring_bytes(void)
{
    const char *e = getenv("CTORCH_GLOO_SHM_RING");
    uint64_t cap = 1u << 20;
    if (e != NULL && atoll(e) >= 4096) {
        cap = 4096;
        while (cap < (uint64_t)atoll(e)) {
            cap <<= 1;
        }
    }
    return cap;
}

/* Wait for every rank's address; on a timeout say which ranks are missing. */
static int
wait_for_addrs(ct_pg *pg, ct_store *store, char keys[][96], int64_t timeout_ms)
{
    const char *k[pg->size];
    int nk = 0;
    for (int q = 0; q < pg->size; q++) {
        if (q != pg->rank) {
            k[nk++] = keys[q];
        }
    }
    if (nk == 0 || ct_store_wait(store, k, nk, timeout_ms) == 0) {
        return 0;
    }
    char missing[512] = "";
    size_t off = 0;
    int nmiss = 0;
    for (int q = 0; q < pg->size; q++) {
        bool there = false;
        const char *one[1] = {keys[q]};
        if (q == pg->rank || (store->vt->check(store, one, 1, &there) == 0 && there)) {
            continue;
        }
        off += (size_t)snprintf(missing + off,
                                off < sizeof missing ? sizeof missing - off : 0, "%s%d",
                                nmiss ? ", " : "", q);
        nmiss++;
        if (off >= sizeof missing - 16) {
            break;
        }
    }
    if (nmiss == 0) {
        return -1; /* the store's own error stands */
    }
    return ct_error(
        CT_ERR_RUNTIME,
        "ProcessGroupGloo: timed out after %lld ms waiting for %s %s to join "
        "the group (%d of %d ranks joined)",
        (long long)timeout_ms, nmiss == 1 ? "rank" : "ranks", missing, pg->size - nmiss,
        pg->size);
}

/* --- setup ------------------------------------------------------------------ */

int
pg_tcp_connect_mesh(ct_pg *pg, ct_store *store)
{
    int P = pg->size, me = pg->rank;
    int64_t deadline = pg_now_ns() + pg->timeout_ms * 1000000;
    int lfd = -1, rc = -1;
    char myhost[128];
    peer_addr *pa = calloc((size_t)P, sizeof *pa);
    char (*keys)[96] = calloc((size_t)P, sizeof *keys);
    int *acc_shm = calloc((size_t)P, sizeof *acc_shm);
    if (pa == NULL || keys == NULL || acc_shm == NULL) {
        ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
        goto done;
    }
    host_id(myhost, sizeof myhost);

    int64_t gen = 0;
    char key[96];
    snprintf(key, sizeof key, "ctorch_gloo/gen/%d", me);
    if (ct_store_add(store, key, 1, &gen) < 0) {
        goto done;
    }

    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t salen = sizeof sa;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(lfd, P + 16) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &salen) < 0) {
        ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: cannot listen: %s",
                 strerror(errno));
        goto done;
    }
    int port = ntohs(sa.sin_port);

    uint32_t addrs[MAX_ADDRS];
    int naddr = local_addrs(addrs, MAX_ADDRS);
    char val[1024];
    int off = snprintf(val, sizeof val, "v1 %s %d %d ", myhost, (int)getpid(), port);
    for (int i = 0; i < naddr && off < (int)sizeof val - 20; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &addrs[i], ip, sizeof ip);
        off += snprintf(val + off, sizeof val - (size_t)off, "%s%s", i ? "," : "", ip);
    }
    if (naddr == 0) {
        off += snprintf(val + off, sizeof val - (size_t)off, "127.0.0.1");
    }
    for (int q = 0; q < P; q++) {
        snprintf(keys[q], sizeof keys[q], "ctorch_gloo/%lld/addr/%d", (long long)gen,
                 q);
    }
    if (ct_store_set(store, keys[me], (const uint8_t *)val, (size_t)off) < 0 ||
        wait_for_addrs(pg, store, keys, pg->timeout_ms) < 0) {
        goto done;
    }
    for (int q = 0; q < P; q++) {
        if (q == me) {
            continue;
        }
        uint8_t *v = NULL;
        size_t n = 0;
        if (ct_store_get(store, keys[q], &v, &n) < 0) {
            goto done;
        }
        int bad = parse_addr(v, n, &pa[q]);
        free(v);
        if (bad) {
            ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: bad address entry for rank %d",
                     q);
            goto done;
        }
    }
    uint64_t cap = ring_bytes();
    bool no_shm = getenv("CTORCH_GLOO_NO_SHM") != NULL;

    /* connect to the lower ranks */
    for (int q = 0; q < me; q++) {
        pg_link *l = &pg->links[q];
        bool same = strcmp(pa[q].host, myhost) == 0;
        while (l->fd < 0) {
            if (same) {
                l->fd = connect_one(htonl(INADDR_LOOPBACK), pa[q].port, deadline);
            }
            for (int i = 0; l->fd < 0 && i < pa[q].naddr; i++) {
                if (!same && (ntohl(pa[q].addr[i]) >> 24) == 127) {
                    continue;
                }
                l->fd = connect_one(pa[q].addr[i], pa[q].port, deadline);
            }
            if (l->fd < 0) {
                if (pg_now_ns() >= deadline) {
                    ct_error(CT_ERR_RUNTIME,
                             "ProcessGroupGloo: timed out connecting to rank %d", q);
                    goto done;
                }
                usleep(10000);
            }
        }
        hello_msg h = {HELLO_MAGIC, me, P, gen, (int32_t)getpid(), 0};
        hello_ack a;
        if (pg_io_full(l->fd, &h, sizeof h, false, deadline) < 0 ||
            pg_io_full(l->fd, &a, sizeof a, true, deadline) < 0 ||
            a.magic != HELLO_MAGIC || a.rank != q) {
            ct_error(CT_ERR_RUNTIME,
                     "ProcessGroupGloo: connecting to rank %d failed: %s", q,
                     errno ? strerror(errno) : "unexpected answer");
            goto done;
        }
        char ok = 'T';
        if (a.shm && pg_shm_open(l, a.pid, a.fd, a.cap, a.token) == 0) {
            ok = 'S';
            l->shm = true;
        }
        if (pg_io_full(l->fd, &ok, 1, false, deadline) < 0) {
            ct_error(CT_ERR_RUNTIME,
                     "ProcessGroupGloo: connecting to rank %d failed: %s", q,
                     strerror(errno));
            goto done;
        }
    }

    /* accept the higher ranks */
    for (int got = 0; got < P - 1 - me;) {
        struct pollfd pfd = {lfd, POLLIN, 0};
        int r = poll(&pfd, 1, remaining_ms(deadline));
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            char miss[256] = "";
            size_t o = 0;
            for (int q = me + 1; q < P; q++) {
                if (pg->links[q].fd < 0 && o < sizeof miss - 16) {
                    o += (size_t)snprintf(miss + o, sizeof miss - o, "%s%d",
                                          o ? ", " : "", q);
                }
            }
            ct_error(CT_ERR_RUNTIME,
                     "ProcessGroupGloo: timed out waiting for rank(s) %s to connect",
                     miss);
            goto done;
        }
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            continue;
        }
        hello_msg h;
        if (pg_io_full(fd, &h, sizeof h, true, deadline) < 0 || h.magic != HELLO_MAGIC) {
            close(fd); /* not one of ours */
            continue;
        }
        if (h.size != P || h.gen != gen || h.rank <= me || h.rank >= P) {
            close(fd);
            ct_error(
                CT_ERR_RUNTIME,
                "ProcessGroupGloo: a process joined as rank %d of %d (group %lld); "
                "this is rank %d of %d (group %lld)",
                h.rank, h.size, (long long)h.gen, me, P, (long long)gen);
            goto done;
        }
        pg_link *l = &pg->links[h.rank];
        if (l->fd >= 0) {
            close(fd);
            ct_error(CT_ERR_RUNTIME,
                     "ProcessGroupGloo: two processes joined as rank %d", h.rank);
            goto done;
        }
        l->fd = fd;
        got++;
        hello_ack a = {HELLO_MAGIC, me, 0, (int32_t)getpid(), -1, cap, 0};
        if (!no_shm && strcmp(pa[h.rank].host, myhost) == 0 &&
            pa[h.rank].pid == h.pid) {
            uint64_t token = 0;
            (void)!getrandom(&token, sizeof token, 0);
            token |= 1;
            if (pg_shm_create(l, cap, token) == 0) {
                a.shm = 1;
                a.fd = l->seg_fd;
                a.token = token;
                acc_shm[h.rank] = 1;
            }
        }
        if (pg_io_full(fd, &a, sizeof a, false, deadline) < 0) {
            ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: rank %d went away during setup",
                     h.rank);
            goto done;
        }
    }
    for (int q = me + 1; q < P; q++) {
        pg_link *l = &pg->links[q];
        char ok = 'T';
        if (pg_io_full(l->fd, &ok, 1, true, deadline) < 0) {
            ct_error(CT_ERR_RUNTIME, "ProcessGroupGloo: rank %d went away during setup",
                     q);
            goto done;
        }
        if (ok == 'S' && acc_shm[q]) {
            l->shm = true;
        }
        else {
            pg_shm_close(l);
        }
    }
    for (int q = 0; q < P; q++) {
        pg_link *l = &pg->links[q];
        if (q == me) {
            continue;
        }
        if (l->shm && l->seg_fd >= 0) {
            /* the peer has its own mapping now */
            close(l->seg_fd);
            l->seg_fd = -1;
        }
        set_socket_options(l->fd);
        if (l->shm) {
            pg->nshm++;
        }
        else {
            l->tbuf = malloc(TCP_BUF);
            l->rbuf = malloc(TCP_BUF);
            if (l->tbuf == NULL || l->rbuf == NULL) {
                ct_error(CT_ERR_NOMEM, "ProcessGroupGloo: out of memory");
                goto done;
            }
        }
    }
    rc = 0;
done:
    if (lfd >= 0) {
        close(lfd);
    }
    free(pa);
    free(keys);
    free(acc_shm);
    return rc;
}

void
pg_link_close(pg_link *l)
{
    pg_shm_close(l);
    if (l->fd >= 0) {
        close(l->fd);
        l->fd = -1;
    }
    free(l->tbuf);
    free(l->rbuf);
    l->tbuf = l->rbuf = NULL;
}

/* --- the byte stream of a TCP link ----------------------------------------- */

size_t
pg_tcp_tx_reserve(pg_link *l, char **p)
{
    if (l->t_r == l->t_w) {
        l->t_r = l->t_w = 0;
    }
    else if (l->t_w == TCP_BUF && l->t_r > 0) {
        memmove(l->tbuf, l->tbuf + l->t_r, l->t_w - l->t_r);
        l->t_w -= l->t_r;
        l->t_r = 0;
    }
    *p = l->tbuf + l->t_w;
    return TCP_BUF - l->t_w;
}

void
pg_tcp_tx_commit(pg_link *l, size_t n)
{
    l->t_w += n;
}

int
pg_tcp_flush(pg_link *l)
{
    l->want_pollout = false;
    while (l->t_r < l->t_w) {
        ssize_t k =
            send(l->fd, l->tbuf + l->t_r, l->t_w - l->t_r, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (k > 0) {
            l->t_r += (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) {
            continue;
        }
        if (k < 0 && errno == EAGAIN) {
            l->want_pollout = true;
            return 0;
        }
        snprintf(l->why, sizeof l->why, "connection lost: %s", strerror(errno));
        return -1;
    }
    return 0;
}

size_t
pg_tcp_rx_peek(pg_link *l, const char **p, int *err)
{
    *err = 0;
    if (l->r_r == l->r_w) {
        l->r_r = l->r_w = l->r_r & 7;
    }
    if (l->r_w - l->r_r < 64) {
        if (l->r_w > TCP_BUF - 4096) {
            size_t keep = l->r_w - l->r_r, to = l->r_r & 7;
            memmove(l->rbuf + to, l->rbuf + l->r_r, keep);
            l->r_r = to;
            l->r_w = to + keep;
        }
        ssize_t k = recv(l->fd, l->rbuf + l->r_w, TCP_BUF - l->r_w, MSG_DONTWAIT);
        if (k > 0) {
            l->r_w += (size_t)k;
        }
        else if (k == 0) {
            snprintf(l->why, sizeof l->why, "connection closed by the peer");
            *err = 1;
        }
        else if (errno != EAGAIN && errno != EINTR) {
            snprintf(l->why, sizeof l->why, "connection lost: %s", strerror(errno));
            *err = 1;
        }
    }
    *p = l->rbuf + l->r_r;
    return l->r_w - l->r_r;
}

void
pg_tcp_rx_consume(pg_link *l, size_t n)
{
    l->r_r += n;
}
