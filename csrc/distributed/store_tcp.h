/* csrc/distributed/store_tcp.h -- TCPStore's wire protocol and server, as
 * the client (store_tcp.c) and server (store_tcp_server.c) share them.
 *
 * Note [TCPStore protocol]
 * A request is one frame: u32 length of what follows, u8 op, then the
 * op's fields; a reply is u32 length, u8 status, then the result.  Integers
 * are little-endian; "bytes" is a u32 length and the bytes.
 *   SET      bytes key, bytes value                  -> OK
 *   GET      i64 timeout_ms, bytes key               -> OK value | TIMEOUT
 *   ADD      i64 delta, bytes key                    -> OK i64 | ERROR
 *   CAS      bytes key, bytes expected, bytes desired -> OK value
 *   CHECK    u32 n, n x bytes key                    -> OK u8
 *   WAIT     i64 timeout_ms, u32 n, n x bytes key    -> OK | TIMEOUT
 *   DELETE   bytes key                               -> OK u8
 *   NUM_KEYS                                         -> OK i64
 *   WAIT_GE  i64 timeout_ms, i64 n, bytes key        -> OK | TIMEOUT
 * GET, WAIT and WAIT_GE (the counter under key reaching n: the master
 * waiting for its workers) block in the server, never in a thread of their
 * own: the server keeps them as waiters and answers when a write satisfies
 * them or their deadline passes (timeout 0: none; below 0: answer now).
 * ERROR carries u8 ct_errcode and the message.  A client sends its next
 * request only after the reply to the last one.
 */
#ifndef CTORCH_STORE_TCP_H
#define CTORCH_STORE_TCP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csrc/distributed/store_impl.h"

typedef enum {
    CT__TCP_SET = 1,
    CT__TCP_GET,
    CT__TCP_ADD,
    CT__TCP_CAS,
    CT__TCP_CHECK,
    CT__TCP_WAIT,
    CT__TCP_DELETE,
    CT__TCP_NUM_KEYS,
    CT__TCP_WAIT_GE,
} ct__tcp_op;

typedef enum {
    CT__TCP_OK = 0,
    CT__TCP_TIMEOUT,
    CT__TCP_ERROR,
} ct__tcp_status;

/* Frames above this are refused (a stray connection's garbage must not
 * make the server allocate gigabytes). */
#define CT__TCP_MAX_FRAME ((uint32_t)1 << 31)

/* A growable byte buffer that starts on the stack (small frames cost no
 * allocation). */
typedef struct {
    uint8_t *p;
    size_t len, cap;
    bool heap;
    uint8_t stack[256];
} ct__buf;

static inline void
ct__buf_init(ct__buf *b)
{
    b->p = b->stack;
    b->len = 0;
    b->cap = sizeof b->stack;
    b->heap = false;
}

static inline void
ct__buf_free(ct__buf *b)
{
    if (b->heap) {
        free(b->p);
    }
    ct__buf_init(b);
}

int ct__buf_reserve(ct__buf *b, size_t extra);

/* Appenders (space reserved first; -1 with the error set on no memory). */
int ct__buf_u8(ct__buf *b, uint8_t v);
int ct__buf_u32(ct__buf *b, uint32_t v);
int ct__buf_i64(ct__buf *b, int64_t v);
int ct__buf_raw(ct__buf *b, const void *p, size_t n);
int ct__buf_bytes(ct__buf *b, const void *p, size_t n);    /* u32 n, then p */
/* Start a frame (u32 placeholder + u8 tag) / patch its length. */
int ct__buf_frame_begin(ct__buf *b, uint8_t tag);
void ct__buf_frame_end(ct__buf *b, size_t start);

/* A reader over one frame's fields; any overrun sets `bad`. */
typedef struct {
    const uint8_t *p;
    size_t left;
    bool bad;
} ct__rd;

static inline int64_t
ct__rd_i64(ct__rd *r)
{
    if (r->left < 8) {
        r->bad = true;
        return 0;
    }
    int64_t v = ct__get_i64(r->p);
    r->p += 8;
    r->left -= 8;
    return v;
}

static inline uint32_t
ct__rd_u32(ct__rd *r)
{
    if (r->left < 4) {
        r->bad = true;
        return 0;
    }
    uint32_t v = ct__get_u32(r->p);
    r->p += 4;
    r->left -= 4;
    return v;
}

/* A "bytes" field: pointer into the frame and its length. */
static inline const uint8_t *
ct__rd_bytes(ct__rd *r, size_t *n)
{
    uint32_t len = ct__rd_u32(r);
    if (r->bad || r->left < len) {
        r->bad = true;
        *n = 0;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += len;
    r->left -= len;
    *n = len;
    return p;
}

/* The server: one event-loop thread serving every client. */
typedef struct ct__tcp_server ct__tcp_server;

/* Listen on port (0: an ephemeral one) of every local address, as c10d
 * does ([::] dual-stack, else 0.0.0.0), and start the loop.  multi_tenant:
 * reuse this process's server already on that port.  A new reference, or
 * NULL with c10d's bind error ("... errno: 98 - Address already in use"). */
ct__tcp_server *ct__tcp_server_start(int port, bool multi_tenant);
int ct__tcp_server_port(const ct__tcp_server *srv);
/* Run one request frame (op byte and fields, no length) in the calling
 * thread, as the master's own client does; the reply's status and a
 * malloc'd copy of its body.  Blocks as the request does. */
int ct__tcp_server_call(ct__tcp_server *srv, const uint8_t *frame, size_t n,
                        uint8_t *status, uint8_t **body, size_t *blen);
/* Drop a reference; the last stops the thread and closes every socket. */
void ct__tcp_server_release(ct__tcp_server *srv);

#endif
