/* SPDX-License-Identifier: MIT */
/* net/core/pkt.c: carving pools and the bulk forms of alloc/free (net/core/pkt.h). */
#include "pkt.h"

#include "env.h"

uint32_t pkt_pool_init(struct pkt_pool *pool, void *mem, uint64_t phys, size_t bytes)
{
    uint32_t n = (uint32_t)(bytes / (PKT_BUF_STRIDE + sizeof(struct pkt *)));
    size_t stack_bytes = ((size_t)n * sizeof(struct pkt *) + 63) & ~(size_t)63;
    while (n && stack_bytes + (size_t)n * PKT_BUF_STRIDE > bytes)
        n--;
    uint8_t *bufs = (uint8_t *)mem + stack_bytes;
    pool->stack = mem;
    pool->nfree = 0;
    pool->total = n;
    pool->alloc_fail = 0;
    pool->base = mem;
    pool->bytes = bytes;
    /* Push in reverse so the lowest buffers are handed out first. */
    for (uint32_t i = n; i-- > 0;) {
        struct pkt *p = (struct pkt *)(bufs + (size_t)i * PKT_BUF_STRIDE);
        p->pool = pool;
        p->phys = phys + stack_bytes + (uint64_t)i * PKT_BUF_STRIDE;
        p->data = pkt_buf_start(p) + PKT_HEADROOM;
        p->len = 0;
        p->refs = 0;
        pkt_free(p);
    }
    return n;
}

uint32_t pkt_alloc_bulk(struct pkt_pool *pool, struct pkt **out, uint32_t n)
{
    uint32_t i = 0;
    for (; i < n; i++) {
        struct pkt *p = pkt_alloc(pool);
        if (p == NULL)
            break;
        out[i] = p;
    }
    return i;
}

void pkt_free_bulk(struct pkt **pkts, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        pkt_free_frame(pkts[i]);
}

bool pkt_frame_read(const struct pkt *p, uint32_t off, void *out, uint32_t n)
{
    if (off + n < off || pkt_frame_len(p) < off + n)
        return false;
    uint8_t *o = out;
    for (; n; p = p->next) {
        if (off >= p->len) {
            off -= p->len;
            continue;
        }
        uint32_t k = p->len - off < n ? p->len - off : n;
        net_memcpy(o, p->data + off, k);
        o += k;
        n -= k;
        off = 0;
    }
    return true;
}

struct pkt *pkt_linearize(struct pkt_pool *pool, struct pkt *p)
{
    uint32_t len = pkt_frame_len(p);
    struct pkt *q = len <= PKT_DATA_ROOM ? pkt_alloc(pool) : NULL;
    if (q == NULL)
        return NULL;
    pkt_frame_read(p, 0, q->data, len);
    q->len = (uint16_t)len;
    q->port = p->port;
    q->queue = p->queue;
    q->flags = (uint16_t)(p->flags & ~PKT_F_CHAIN);
    q->rss_hash = p->rss_hash;
    q->csum_start = p->csum_start;
    q->csum_offset = p->csum_offset;
    q->l3_off = p->l3_off;
    q->user = p->user;
    pkt_free_frame(p);
    return q;
}
