/* csrc/distributed/store_tcp_wire.c -- building TCPStore frames
 * (Note [TCPStore protocol]): the growable buffer both ends write into. */
#include "csrc/distributed/store_tcp.h"

int
ct__buf_reserve(ct__buf *b, size_t extra)
{
    if (b->len + extra <= b->cap) {
        return 0;
    }
    size_t cap = b->cap * 2;
    while (cap < b->len + extra) {
        cap *= 2;
    }
    uint8_t *p = b->heap ? realloc(b->p, cap) : malloc(cap);
    if (p == NULL) {
        return ct_error(CT_ERR_NOMEM, "out of memory in TCPStore");
    }
    if (!b->heap) {
        memcpy(p, b->p, b->len);
    }
    b->p = p;
    b->cap = cap;
    b->heap = true;
    return 0;
}

int
ct__buf_raw(ct__buf *b, const void *p, size_t n)
{
    if (ct__buf_reserve(b, n) < 0) {
        return -1;
    }
    if (n > 0) {
        memcpy(b->p + b->len, p, n);
    }
    b->len += n;
    return 0;
}

int
ct__buf_u8(ct__buf *b, uint8_t v)
{
    return ct__buf_raw(b, &v, 1);
}

int
ct__buf_u32(ct__buf *b, uint32_t v)
{
    uint8_t t[4];
    ct__put_u32(t, v);
    return ct__buf_raw(b, t, 4);
}

int
ct__buf_i64(ct__buf *b, int64_t v)
{
    uint8_t t[8];
    ct__put_i64(t, v);
    return ct__buf_raw(b, t, 8);
}

int
ct__buf_bytes(ct__buf *b, const void *p, size_t n)
{
    if (n >= CT__TCP_MAX_FRAME) {
        return ct_error(CT_ERR_RUNTIME, "TCPStore: a key or value of %zu bytes is too "
                        "large", n);
    }
    if (ct__buf_reserve(b, 4 + n) < 0) {
        return -1;
    }
    ct__buf_u32(b, (uint32_t)n);
    return ct__buf_raw(b, p, n);
}

int
ct__buf_frame_begin(ct__buf *b, uint8_t tag)
{
    if (ct__buf_reserve(b, 5) < 0) {
        return -1;
    }
    ct__put_u32(b->p + b->len, 0);
    b->p[b->len + 4] = tag;
    b->len += 5;
    return 0;
}

void
ct__buf_frame_end(ct__buf *b, size_t start)
{
    ct__put_u32(b->p + start, (uint32_t)(b->len - start - 4));
}
