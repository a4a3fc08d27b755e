/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_link.c: the in-memory link between two stacks
 * (tests/support/tcp_link.h). */
#include "tests/support/tcp_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/link/arp.h"
#include "net/core/csum.h"
#include "net/tcp/tcp_impl.h"
#include "net/tcp/tcp_wire.h"
#include "net/core/wire.h"

static const uint8_t tl_mac[2][6] = {{0x02, 0, 0, 0, 0x10, 0x01}, {0x02, 0, 0, 0, 0x10, 0x02}};
const uint8_t tl_addr6[2][16] = {{0x20, 0x01, 0x0d, 0xb8, [15] = 1}, {0x20, 0x01, 0x0d, 0xb8, [15] = 2}};

uint64_t tl_rand(struct tl *l)
{
    uint64_t z = (l->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool chance(struct tl *l, uint32_t ppm)
{
    return ppm && tl_rand(l) % 1000000u < ppm;
}

static bool earlier(const struct tl_frame *a, const struct tl_frame *b)
{
    return a->at_ns < b->at_ns || (a->at_ns == b->at_ns && a->order < b->order);
}

static void heap_push(struct tl *l, struct tl_frame f)
{
    if (l->nheap == l->heap_cap) {
        if (l->heap_pinned)
            abort(); /* a snapshot holds where it is */
        l->heap_cap = l->heap_cap ? l->heap_cap * 2 : 1024;
        l->heap = realloc(l->heap, l->heap_cap * sizeof(*l->heap));
    }
    uint32_t i = l->nheap++;
    while (i && earlier(&f, &l->heap[(i - 1) / 2])) {
        l->heap[i] = l->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    l->heap[i] = f;
}

static struct tl_frame heap_pop(struct tl *l)
{
    struct tl_frame top = l->heap[0], last = l->heap[--l->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t k = 2 * i + 1;
        if (k >= l->nheap)
            break;
        if (k + 1 < l->nheap && earlier(&l->heap[k + 1], &l->heap[k]))
            k++;
        if (!earlier(&l->heap[k], &last))
            break;
        l->heap[i] = l->heap[k];
        i = k;
    }
    if (l->nheap)
        l->heap[i] = last;
    return top;
}

static bool is_tcp(const struct pkt *p)
{
    return (p->len >= 34 && p->data[12] == 0x08 && p->data[13] == 0x00 && p->data[23] == IP4_PROTO_TCP) ||
           (p->len >= 54 && p->data[12] == 0x86 && p->data[13] == 0xdd && p->data[20] == IP4_PROTO_TCP);
}

/* One frame onto the wire towards the other side. Takes p. */
static void wire_put(struct tl *l, int from, struct pkt *p)
{
    int to = !from;
    uint64_t at = l->now_ns + l->o.delay_ns;
    l->frames++;
    if (l->o.rate_bps) {
        if (l->busy_until[from] < l->now_ns)
            l->busy_until[from] = l->now_ns;
        if (l->queued[from] >= l->o.queue_max && l->busy_until[from] > l->now_ns) {
            l->overflow++; /* tail drop at the bottleneck */
            pkt_free(p);
            return;
        }
        l->busy_until[from] += (uint64_t)(p->len + 24) * 8 * 1000000000ull / l->o.rate_bps;
        at = l->busy_until[from] + l->o.delay_ns;
        l->queued[from]++;
    }
    if (is_tcp(p)) {
        if (chance(l, l->o.loss_ppm)) {
            l->lost++;
            if (l->o.rate_bps)
                l->queued[from]--;
            pkt_free(p);
            return;
        }
        if (chance(l, l->o.dup_ppm)) {
            l->duped++;
            heap_push(l, (struct tl_frame){at, l->order++, pkt_ref(p), to});
            if (l->o.rate_bps)
                l->queued[from]++;
        }
        if (chance(l, l->o.reorder_ppm)) {
            l->reordered++;
            at += l->o.reorder_ns;
        }
    }
    at += l->tap_delay_ns;
    heap_push(l, (struct tl_frame){at, l->order++, p, to});
}

/* One frame from side `from` onto the wire, through the tap. Takes p. */
static void send_one(struct tl *l, int from, struct pkt *p)
{
    if ((p->flags & PKT_TX_L4_CSUM) && !(l->nd[from].dev.offloads & NETDEV_OFF_TX_CSUM))
        abort(); /* ip4_output must have summed it */
    l->tap_delay_ns = 0;
    if (l->tap && !l->tap(l->tap_ctx, l, from, p)) {
        pkt_free(p);
        return;
    }
    wire_put(l, from, p);
}

/* Copy n bytes from offset off of the payload that starts at byte `start`
 * of frame p (its buffers, PKT_F_CHAIN). */
static void frame_copy(const struct pkt *p, uint32_t start, uint32_t off, uint8_t *to, uint32_t n)
{
    off += start;
    for (; n; p = p->next) {
        if (off >= p->len) {
            off -= p->len;
            continue;
        }
        uint32_t k = p->len - off < n ? p->len - off : n;
        memcpy(to, p->data + off, k);
        to += k;
        n -= k;
        off = 0;
    }
}

/* What a TSO NIC does with a frame (Ethernet, IPv4 or IPv6, TCP headers,
 * payload over chained buffers): segments of tso_mss payload bytes, each
 * with the headers copied, IPv4 length, id and checksum (IPv6: payload
 * length), TCP sequence number and pseudo-header sum set, FIN and PSH only
 * on the last. Takes p. */
static void tso_split(struct tl *l, int from, struct pkt *p)
{
    bool v6 = (p->flags & PKT_TX_TSO6) != 0;
    uint32_t th = p->csum_start, hdr = th + (p->data[th + 12] >> 4) * 4u;
    uint32_t total = pkt_frame_len(p) - hdr, mss = p->tso_mss, seq0, src, dst;
    uint16_t id0;
    memcpy(&seq0, p->data + th + 4, 4);
    memcpy(&id0, p->data + 14 + 4, 2);
    memcpy(&src, p->data + 14 + 12, 4);
    memcpy(&dst, p->data + 14 + 16, 4);
    l->tso_frames++;
    for (uint32_t off = 0, k = 0; off < total; off += mss, k++) {
        uint32_t n = total - off < mss ? total - off : mss;
        struct pkt *q = pkt_alloc(&l->pool[from]);
        if (q == NULL) {
            l->no_buf++;
            break;
        }
        memcpy(q->data, p->data, hdr);
        frame_copy(p, hdr, off, q->data + hdr, n);
        q->len = (uint16_t)(hdr + n);
        uint8_t *ip = q->data + 14, *tcp = q->data + th;
        uint32_t seq = net_htonl(net_ntohl(seq0) + off);
        uint16_t pseudo;
        if (v6) {
            uint16_t plen = net_htons((uint16_t)(q->len - 14 - 40));
            memcpy(ip + 4, &plen, 2);
            uint32_t sum = csum_partial(ip + 8, 32, 0);
            sum = csum_add(sum, net_htons((uint16_t)(q->len - th)) + net_htons(IP4_PROTO_TCP));
            pseudo = csum_fold(sum);
        } else {
            uint16_t tot = net_htons((uint16_t)(q->len - 14)), id = net_htons((uint16_t)(net_ntohs(id0) + k));
            memcpy(ip + 2, &tot, 2);
            memcpy(ip + 4, &id, 2);
            memset(ip + 10, 0, 2);
            uint16_t ipsum = csum_finish(csum_partial(ip, 20, 0));
            memcpy(ip + 10, &ipsum, 2);
            pseudo = csum_fold(csum_pseudo4(src, dst, IP4_PROTO_TCP, (uint16_t)(q->len - th)));
        }
        memcpy(tcp + 4, &seq, 4);
        if (off + n < total)
            tcp[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
        memcpy(tcp + 16, &pseudo, 2);
        q->flags = PKT_TX_L4_CSUM;
        q->csum_start = (uint16_t)th;
        q->csum_offset = 16;
        send_one(l, from, q);
    }
    pkt_free_frame(p);
}

static uint16_t tl_tx(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n)
{
    struct tl_dev *d = (struct tl_dev *)dev;
    for (uint16_t i = 0; i < n; i++) {
        if (d->l->o.tx_ring && d->l->queued[d->side] >= d->l->o.tx_ring)
            return i; /* the ring is full: the stack keeps the rest */
        struct pkt *p = pkts[i];
        if (!(p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6))) {
            send_one(d->l, d->side, p);
            continue;
        }
        uint32_t need = (p->flags & PKT_TX_TSO6) ? NETDEV_OFF_TSO6 : NETDEV_OFF_TSO4;
        if (!(dev->offloads & need) || !(p->flags & PKT_F_CHAIN) || p->tso_mss == 0)
            abort(); /* TSO frames only to a TSO device, and only multi-buffer ones */
        tso_split(d->l, d->side, p);
    }
    return n;
}

static uint16_t tl_rx(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n) { return 0; }

static const struct netdev_ops tl_ops = {.rx_burst = tl_rx, .tx_burst = tl_tx};

/* The frame arrives: copied into the receiver's pool (checksum offload
 * done as a NIC would), the sender's buffer released. */
static void deliver(struct tl *l, struct tl_frame f)
{
    struct pkt *p = f.p;
    if (l->o.rate_bps)
        l->queued[!f.to]--;
    struct pkt *q = pkt_alloc(&l->pool[f.to]);
    if (q == NULL) {
        l->no_buf++;
        pkt_free(p);
        return;
    }
    memcpy(q->data, p->data, p->len);
    q->len = p->len;
    q->port = 0;
    if (p->flags & PKT_TX_L4_CSUM) {
        /* The sending NIC would have filled it in. */
        q->csum_start = p->csum_start;
        q->csum_offset = p->csum_offset;
        q->flags = PKT_TX_L4_CSUM;
        csum_pkt_finish(q);
    }
    q->flags = (l->nd[f.to].dev.offloads & NETDEV_OFF_RX_CSUM) ? PKT_RX_L4_CSUM_OK : 0;
    pkt_free(p);
    net_input(l->s[f.to], &q, 1, l->now_ns);
}

void tl_flush(struct tl *l)
{
    net_flush(l->s[0]);
    net_flush(l->s[1]);
}

void tl_inject(struct tl *l, int side, const void *frame, size_t len)
{
    struct pkt *q = pkt_alloc(&l->pool[side]);
    if (q == NULL)
        abort();
    memcpy(q->data, frame, len);
    q->len = (uint16_t)len;
    net_input(l->s[side], &q, 1, l->now_ns);
    tl_flush(l);
}

struct tl *tl_new(const struct tl_opts *o)
{
    struct tl *l = calloc(1, sizeof(*l));
    l->o = *o;
    if (!l->o.nbufs)
        l->o.nbufs = 4096;
    if (!l->o.nconns)
        l->o.nconns = 64;
    if (!l->o.delay_ns)
        l->o.delay_ns = 50000;
    if (!l->o.reorder_ns)
        l->o.reorder_ns = 3 * l->o.delay_ns;
    if (!l->o.queue_max)
        l->o.queue_max = 256;
    l->rng = o->seed ? o->seed : 1;
    l->now_ns = 1000000000ull;
    for (int i = 0; i < 2; i++) {
        size_t bytes = (size_t)l->o.nbufs * PKT_BUF_SIZE;
        l->mem[i] = aligned_alloc(PKT_BUF_SIZE, bytes);
        pkt_pool_init(&l->pool[i], l->mem[i], 0x10000000ull * (i + 1), bytes);
        l->s[i] = calloc(1, sizeof(struct net_stack));
        net_stack_init(l->s[i], &l->pool[i], (uint32_t)i);
        struct tl_dev *d = &l->nd[i];
        snprintf(d->dev.name, sizeof(d->dev.name), "eth0");
        d->dev.driver = "tl";
        memcpy(d->dev.mac, tl_mac[i], 6);
        d->dev.mtu = 1500;
        d->dev.nqueues = 1;
        d->dev.index = 0;
        d->dev.ops = &tl_ops;
        d->dev.offloads = l->o.offloads;
        d->dev.link_up = true;
        d->l = l;
        d->side = i;
        net_iface_add(l->s[i], &d->dev, 0, i ? TL_ADDR1 : TL_ADDR0, 24);
        net_iface_set_addr6(l->s[i], 0, tl_addr6[i], 64);
        struct tcp_config cfg;
        if (o->cfg[i])
            cfg = *o->cfg[i];
        else
            tcp_config_default(&cfg);
        size_t ab = tcp_arena_size(&cfg, l->o.nconns);
        l->arena[i] = aligned_alloc(64, (ab + 63) & ~(size_t)63);
        l->t[i] = calloc(1, sizeof(struct tcp_stack));
        tcp_init(l->s[i], l->t[i], l->arena[i], ab, &cfg);
    }
    /* Link up and ARP resolved before the tests start. */
    for (int i = 0; i < 2; i++)
        net_poll(l->s[i], l->now_ns);
    tl_flush(l);
    tl_run(l, NULL, NULL, 10000000ull);
    for (int i = 0; i < 2; i++) {
        struct arp_hdr a = {0};
        a.htype_be = net_htons(1);
        a.ptype_be = net_htons(ETH_TYPE_IP4);
        a.hlen = 6;
        a.plen = 4;
        a.op_be = net_htons(ARP_OP_REQUEST);
        memcpy(a.sha, tl_mac[!i], 6);
        a.spa_be = i ? TL_ADDR0 : TL_ADDR1;
        a.tpa_be = i ? TL_ADDR1 : TL_ADDR0;
        uint8_t f[64] = {0};
        memcpy(f, tl_mac[i], 6);
        memcpy(f + 6, tl_mac[!i], 6);
        f[12] = 0x08;
        f[13] = 0x06;
        memcpy(f + 14, &a, sizeof(a));
        tl_inject(l, i, f, 60);
    }
    tl_run(l, NULL, NULL, 10000000ull);
    memset(&l->s[0]->ctr, 0, sizeof(l->s[0]->ctr));
    memset(&l->s[1]->ctr, 0, sizeof(l->s[1]->ctr));
    l->frames = 0;
    return l;
}

uint32_t tl_in_use(const struct tl *l)
{
    return (l->pool[0].total - l->pool[0].nfree) + (l->pool[1].total - l->pool[1].nfree);
}

bool tl_free(struct tl *l)
{
    for (int i = 0; i < 2; i++)
        net_stack_release(l->s[i]);
    while (l->nheap)
        pkt_free(heap_pop(l).p);
    tl_flush(l);
    bool ok = tl_in_use(l) == 0;
    for (int i = 0; i < 2; i++) {
        free(l->t[i]);
        free(l->arena[i]);
        free(l->s[i]);
        free(l->mem[i]);
    }
    free(l->heap);
    free(l);
    return ok;
}

bool tl_release(struct tl *l)
{
    for (int i = 0; i < 2; i++) {
        if (l->t[i])
            tcp_release(l->t[i]);
        if (l->s[i]->arp_queued)
            net_stack_release(l->s[i]);
    }
    while (l->nheap)
        pkt_free(heap_pop(l).p);
    tl_flush(l);
    return tl_in_use(l) == 0;
}

/* A pool that is not full (snap_add_pool wants it full): its free list,
 * and each buffer out of it whole, so what holds one (a connection's
 * application state, a segment) finds it as it was. Where the buffers lie
 * is pkt_pool_init's arithmetic; every free buffer must be on that grid,
 * or it is not. */
static void snap_pool_in_use(struct snap *sn, struct pkt_pool *pool)
{
    snap_add(sn, pool, sizeof(*pool));
    snap_add(sn, pool->stack, pool->total * sizeof(pool->stack[0]));
    uint32_t n0 = (uint32_t)(pool->bytes / (PKT_BUF_STRIDE + sizeof(struct pkt *)));
    uint8_t *bufs = pool->base + (((size_t)n0 * sizeof(struct pkt *) + 63) & ~(size_t)63);
    uint8_t *free_map = calloc(pool->total, 1);
    if (free_map == NULL)
        abort();
    for (uint32_t i = 0; i < pool->nfree; i++) {
        size_t off = (size_t)((uint8_t *)pool->stack[i] - bufs);
        if (off % PKT_BUF_STRIDE || off / PKT_BUF_STRIDE >= pool->total)
            abort();
        free_map[off / PKT_BUF_STRIDE] = 1;
    }
    for (uint32_t i = 0; i < pool->total; i++)
        if (!free_map[i])
            snap_add(sn, bufs + (size_t)i * PKT_BUF_STRIDE, PKT_BUF_SIZE);
    free(free_map);
}

/* A TCP arena: its hash and connections, and the send queues holding
 * something now (the queues' free slots and the unused large queues, most
 * of its megabytes, are written before they are read). */
static void snap_tcp_arena(struct snap *sn, struct tcp_stack *t)
{
    snap_add(sn, t->hash, (size_t)((uint8_t *)t->sq_small - (uint8_t *)t->hash));
    for (uint32_t i = 0; i < t->nconns; i++)
        if (t->conns[i].state != TCP_CLOSED && t->conns[i].sq_n)
            snap_add(sn, t->conns[i].sq, t->conns[i].sq_cap * sizeof(struct tcp_seg));
}

void tl_snap_add(struct snap *sn, struct tl *l)
{
    uint32_t cap = 2 * (l->pool[0].total + l->pool[1].total); /* a frame holds a buffer; a duplicate, one twice */
    if (l->heap_cap < cap) {
        l->heap = realloc(l->heap, cap * sizeof(*l->heap));
        if (l->heap == NULL)
            abort();
        l->heap_cap = cap;
    }
    l->heap_pinned = true;
    snap_add(sn, l, sizeof(*l));
    if (l->nheap)
        snap_add(sn, l->heap, l->nheap * sizeof(*l->heap));
    for (int i = 0; i < 2; i++) {
        snap_add_stack(sn, l->s[i]);
        snap_add(sn, l->t[i], sizeof(*l->t[i]));
        snap_tcp_arena(sn, l->t[i]);
        snap_pool_in_use(sn, &l->pool[i]);
    }
}

static uint64_t next_event(struct tl *l)
{
    uint64_t next = UINT64_MAX;
    if (l->nheap)
        next = l->heap[0].at_ns;
    for (int i = 0; i < 2; i++)
        if (l->s[i]->timer_ns < next)
            next = l->s[i]->timer_ns;
    return next;
}

bool tl_run(struct tl *l, bool (*done)(void *ctx), void *ctx, uint64_t max_ns)
{
    uint64_t end = l->now_ns + max_ns;
    tl_flush(l);
    for (;;) {
        if (done && done(ctx))
            return true;
        uint64_t next = next_event(l);
        if (next == UINT64_MAX || next > end) {
            if (next != UINT64_MAX)
                l->now_ns = end;
            return done ? done(ctx) : true;
        }
        if (next > l->now_ns)
            l->now_ns = next;
        while (l->nheap && l->heap[0].at_ns <= l->now_ns)
            deliver(l, heap_pop(l));
        for (int i = 0; i < 2; i++)
            if (l->s[i]->timer_ns <= l->now_ns)
                net_poll(l->s[i], l->now_ns);
        tl_flush(l);
    }
}

void tl_advance(struct tl *l, uint64_t ns)
{
    uint64_t end = l->now_ns + ns;
    tl_run(l, NULL, NULL, ns);
    if (l->now_ns < end)
        l->now_ns = end;
}
