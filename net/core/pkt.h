/* SPDX-License-Identifier: MIT */
/* net/core/pkt.h: packet buffers and per-core buffer pools.
 *
 * Every buffer is PKT_BUF_SIZE bytes: this descriptor, then headroom, then
 * the frame. Pools are per core and never shared: a LIFO stack of buffer
 * pointers, so a freed buffer is the next one handed out and stays
 * cache-hot (iip, docs/design.md lesson 4), and taking n buffers reads n
 * independent array slots rather than chasing n next pointers through n
 * descriptors (a linked free list cost the forwarding benchmark ~10 ns a
 * packet in its RX refill). The memory behind a pool is the embedder's (the
 * kernel carves it from 2 MiB pages; host tests use malloc); net/ only
 * manages it, and keeps the stack at its start.
 *
 * Ownership: whoever holds a struct pkt * owns it and must pass it on (to a
 * TX burst, a queue, the stack) or pkt_free() it. A buffer may have several
 * owners (pkt_ref): TCP keeps a reference to a segment it hands to the NIC,
 * for retransmission. Each owner frees once; only the last free returns it
 * to the pool. While shared, the buffer is read-only to everyone, and its
 * metadata (data, len, flags) belongs to whoever last passed it down.
 *
 * A frame may span buffers: a TSO frame on its way to a NIC (headers and
 * the first payload, then more payload), or a jumbo frame received on a
 * port whose MTU is over a buffer (NETDEV max_mtu), its headers in the
 * first. Each buffer but the last has PKT_F_CHAIN and the next in next.
 * Only NETDEV_OFF_TSO4/6 devices are handed TSO frames, and jumbo frames
 * only go out of a port whose MTU takes them. Whoever drops or completes
 * a frame frees it with pkt_free_frame, which frees each buffer once. A
 * chained frame never waits in a pkt_queue, whose link is next too. */
#ifndef NET_PKT_H
#define NET_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PKT_BUF_SIZE 2048u
/* Buffers lie an odd number of cache lines apart: at a 2 KiB stride every
 * buffer's descriptor (and every frame's first line) falls in the same 2 of
 * an L1's 64 sets, and 32 in-flight segments evict each other (the TCP
 * ping-pong benchmark took 19 L1 misses a transaction, lwIP 3). */
#define PKT_BUF_STRIDE (PKT_BUF_SIZE + 64u)
#define PKT_HEADROOM 128u /* room to prepend virtio-net / tunnel headers */
#define PKT_META_SIZE 64u
#define PKT_DATA_ROOM (PKT_BUF_SIZE - PKT_META_SIZE - PKT_HEADROOM)

/* Offload flags (struct pkt.flags). RX: what the NIC verified. TX: what the
 * NIC is asked to fill. */
enum {
    PKT_RX_L4_CSUM_OK = 1u << 0,   /* NIC verified the L4 checksum */
    PKT_RX_L4_CSUM_BAD = 1u << 1,
    PKT_RX_IP_CSUM_OK = 1u << 2,
    PKT_TX_L4_CSUM = 1u << 4,      /* fill csum at csum_start + csum_offset */
    PKT_TX_TSO4 = 1u << 5,         /* segment at tso_mss */
    PKT_TX_TSO6 = 1u << 6,
    PKT_F_RSS_HASH = 1u << 8,      /* rss_hash is valid */
    PKT_F_CHAIN = 1u << 9,         /* the frame goes on in next (TSO, jumbo) */
};

struct pkt_pool;

struct pkt {
    struct pkt *next;        /* queue link (ARP, TCP, reassembly) */
    struct pkt_pool *pool;   /* the pool it returns to */
    uint64_t phys;           /* physical address of this struct (O(1) DMA) */
    uint8_t *data;           /* first byte of the frame */
    uint16_t len;            /* bytes of frame at data */
    uint16_t port;           /* input port index */
    uint16_t queue;          /* input queue index */
    uint16_t flags;          /* PKT_* offload flags */
    uint32_t rss_hash;
    uint16_t csum_start;     /* TX offload: from data */
    uint16_t csum_offset;    /* TX offload: from csum_start */
    uint16_t tso_mss;
    uint16_t l3_off;         /* set by the parser: offset of L3 header */
    uint32_t user;           /* free for the current owner's use */
    uint16_t refs;           /* references beyond the first (pkt_ref): pkt_free
                              * drops one and returns the buffer at none */
    uint8_t pad[PKT_META_SIZE - 58];
};
_Static_assert(sizeof(struct pkt) == PKT_META_SIZE, "pkt descriptor is one cache line");

struct pkt_pool {
    struct pkt **stack;      /* free buffers: stack[0..nfree), top last */
    uint32_t nfree;
    uint32_t total;
    uint64_t alloc_fail;     /* counter: rx-no-buf where the driver asked */
    uint8_t *base;           /* the memory given to pkt_pool_init */
    size_t bytes;
};

/* Carve mem (bytes long, physically contiguous from phys, 64-byte aligned)
 * into buffers, PKT_BUF_STRIDE apart after the pool's stack (8 bytes a
 * buffer). Returns how many. */
uint32_t pkt_pool_init(struct pkt_pool *pool, void *mem, uint64_t phys, size_t bytes);

static inline struct pkt *pkt_alloc(struct pkt_pool *pool)
{
    if (__builtin_expect(pool->nfree == 0, 0)) {
        pool->alloc_fail++;
        return NULL;
    }
    struct pkt *p = pool->stack[--pool->nfree];
    p->next = NULL;
    p->data = (uint8_t *)p + PKT_META_SIZE + PKT_HEADROOM;
    p->len = 0;
    p->flags = 0;
    p->tso_mss = 0;
    p->refs = 0;
    return p;
}

/* Takes ownership of p: back on top of its own pool, unless another
 * reference remains. */
static inline void pkt_free(struct pkt *p)
{
    if (__builtin_expect(p->refs != 0, 0)) {
        p->refs--;
        return;
    }
    struct pkt_pool *pool = p->pool;
    pool->stack[pool->nfree++] = p;
}

/* A frame, every buffer of it (PKT_F_CHAIN). */
static inline void pkt_free_frame(struct pkt *p)
{
    while (p) {
        struct pkt *next = (p->flags & PKT_F_CHAIN) ? p->next : NULL;
        pkt_free(p);
        p = next;
    }
}

/* Bytes of a frame, every buffer of it. */
static inline uint32_t pkt_frame_len(const struct pkt *p)
{
    uint32_t n = p->len;
    while (p->flags & PKT_F_CHAIN) {
        p = p->next;
        n += p->len;
    }
    return n;
}

/* Copy n bytes of a frame, from byte off on, to out; false (nothing
 * copied) when the frame is shorter. */
bool pkt_frame_read(const struct pkt *p, uint32_t off, void *out, uint32_t n);

/* A frame of several buffers that fits one, copied into one from pool
 * (its metadata with it) and the chain freed; NULL, p untouched, when it
 * is longer or the pool is empty. */
struct pkt *pkt_linearize(struct pkt_pool *pool, struct pkt *p);

/* One more owner for p (each calls pkt_free once); returns p. */
static inline struct pkt *pkt_ref(struct pkt *p)
{
    p->refs++;
    return p;
}

/* Someone besides the caller still holds p (a NIC ring, an ARP queue). */
static inline bool pkt_shared(const struct pkt *p) { return p->refs != 0; }

/* Allocate up to n buffers into out[]; returns how many. */
uint32_t pkt_alloc_bulk(struct pkt_pool *pool, struct pkt **out, uint32_t n);
/* pkt_free_frame each of pkts[0..n). */
void pkt_free_bulk(struct pkt **pkts, uint32_t n);

static inline uint64_t pkt_data_phys(const struct pkt *p)
{
    return p->phys + (uint64_t)(p->data - (const uint8_t *)p);
}

static inline uint8_t *pkt_buf_start(struct pkt *p) { return (uint8_t *)p + PKT_META_SIZE; }
static inline uint8_t *pkt_buf_end(struct pkt *p) { return (uint8_t *)p + PKT_BUF_SIZE; }

/* Room left after the frame, and before it. */
static inline uint32_t pkt_tailroom(struct pkt *p) { return (uint32_t)(pkt_buf_end(p) - (p->data + p->len)); }
static inline uint32_t pkt_headroom(struct pkt *p) { return (uint32_t)(p->data - pkt_buf_start(p)); }

/* Prepend n bytes (NULL when there is no headroom) / strip n from the front. */
static inline uint8_t *pkt_push(struct pkt *p, uint32_t n)
{
    if (pkt_headroom(p) < n)
        return NULL;
    p->data -= n;
    p->len = (uint16_t)(p->len + n);
    return p->data;
}

static inline uint8_t *pkt_pull(struct pkt *p, uint32_t n)
{
    if (p->len < n)
        return NULL;
    p->data += n;
    p->len = (uint16_t)(p->len - n);
    return p->data;
}

/* A frame a driver receives over several buffers (a jumbo frame): each
 * buffer added as it comes, the frame taken once its last came. */
struct pkt_chain {
    struct pkt *head, *tail;
    uint16_t n; /* buffers so far */
};

static inline void pkt_chain_add(struct pkt_chain *c, struct pkt *p)
{
    if (c->tail) {
        c->tail->flags |= PKT_F_CHAIN;
        c->tail->next = p;
    } else {
        c->head = p;
    }
    c->tail = p;
    c->n++;
}

/* The frame so far (NULL: none); c is left empty. */
static inline struct pkt *pkt_chain_take(struct pkt_chain *c)
{
    struct pkt *p = c->head;
    *c = (struct pkt_chain){0};
    return p;
}

/* Buffers waiting in order (on address resolution), linked through next. */
struct pkt_queue {
    struct pkt *head, *tail;
    uint16_t len;
};

static inline void pkt_queue_push(struct pkt_queue *q, struct pkt *p)
{
    p->next = NULL;
    if (q->tail)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->len++;
}

/* The oldest queued, taken off (NULL: none). */
static inline struct pkt *pkt_queue_pop(struct pkt_queue *q)
{
    struct pkt *p = q->head;
    if (p) {
        q->head = p->next;
        q->tail = q->head ? q->tail : NULL;
        q->len--;
    }
    return p;
}

/* Everything queued, oldest first (linked through next); q is left empty. */
static inline struct pkt *pkt_queue_take(struct pkt_queue *q)
{
    struct pkt *p = q->head;
    *q = (struct pkt_queue){0};
    return p;
}

/* Free everything queued. */
static inline void pkt_queue_free(struct pkt_queue *q)
{
    for (struct pkt *p = pkt_queue_take(q), *next; p; p = next) {
        next = p->next;
        pkt_free(p);
    }
}

/* Strip an n-byte link header from a received frame: a checksum the NIC
 * left to fill (PKT_TX_L4_CSUM, from a virtio NEEDS_CSUM) keeps its start
 * relative to p->data, where output expects it. */
static inline void pkt_pull_l2(struct pkt *p, uint32_t n)
{
    pkt_pull(p, n);
    if (p->flags & PKT_TX_L4_CSUM) {
        if (p->csum_start >= n)
            p->csum_start = (uint16_t)(p->csum_start - n);
        else
            p->flags &= (uint16_t)~(PKT_TX_L4_CSUM | PKT_RX_L4_CSUM_OK);
    }
}

#endif
