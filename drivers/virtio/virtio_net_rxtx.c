/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_net_rxtx.c: virtio-net's data path (virtio 1.2,
 * 5.1.6), polled: each core bursts on its own RX/TX virtqueue pair, split
 * or packed (drivers/virtio/virtqueue*.c), with the 12-byte virtio_net_hdr
 * in each buffer's headroom; one publishing store and at most one doorbell
 * a burst. A queue whose device is being reset gives its buffers back and
 * waits (virtio_net.c, reset_step). */
#include "drivers/virtio/virtio_net_dev.h"

#include "kernel/lib.h"
#include "kernel/platform/percpu.h"
#include "kernel/time.h"
#include "net/core/core.h"

/* RX buffers: the device writes header + frame so the frame starts at the
 * buffer's normal data offset. */
static bool rx_post(struct virtqueue *vq, struct pkt *p)
{
    return vq_add(vq, p, pkt_data_phys(p) - sizeof(struct virtio_net_hdr),
                  (uint32_t)(sizeof(struct virtio_net_hdr) + PKT_DATA_ROOM), true);
}

void vnet_rx_refill(struct netdev *dev, struct vnet_queue *q, uint16_t qi)
{
    struct pkt *fresh[REFILL_BATCH];
    while (q->rx.nfree) {
        uint32_t want = q->rx.nfree < REFILL_BATCH ? q->rx.nfree : REFILL_BATCH;
        uint32_t got = pkt_alloc_bulk(q->pool, fresh, want);
        for (uint32_t i = 0; i < got; i++)
            rx_post(&q->rx, fresh[i]);
        if (got < want) {
            dev->stats[qi].rx_no_buf += want - got;
            break;
        }
    }
    dev->stats[qi].rx_doorbells += (uint64_t)vq_kick(&q->rx);
}

/* Translates the RX header of a frame of len bytes into buffer metadata;
 * false to drop. A partial checksum must lie inside the frame: the stack
 * may complete it (csum_pkt_finish) where the frame goes out. */
static bool rx_header(struct pkt *p, const struct virtio_net_hdr *h, uint32_t len)
{
    if (h->flags & HDR_F_NEEDS_CSUM) {
        /* From the host with its checksum left to us (5.1.6.4.1): the data
         * is sound; keep the partial checksum for whoever sends it on. */
        if ((uint32_t)h->csum_start + h->csum_offset + 2 > len)
            return false;
        p->flags |= PKT_RX_L4_CSUM_OK | PKT_TX_L4_CSUM;
        p->csum_start = h->csum_start;
        p->csum_offset = h->csum_offset;
    } else if (h->flags & HDR_F_DATA_VALID) {
        p->flags |= PKT_RX_L4_CSUM_OK;
    }
    return true;
}

static void release_ring(struct virtqueue *vq)
{
    for (uint16_t id = 0; id < vq->size; id++)
        if (vq->slot[id]) {
            pkt_free_frame(vq->slot[id]);
            vq->slot[id] = NULL;
        }
}

/* The owner's side of a reset: false while the queue must not be used. */
static bool queue_usable(struct vnet *v, struct vnet_queue *q, uint16_t qi)
{
    uint32_t phase = atomic_load_explicit(&v->phase, memory_order_acquire);
    if (__builtin_expect(phase == q->phase, 1))
        return !(phase & 1);
    q->phase = phase;
    if (phase & 1) { /* draining: give back every buffer the rings hold */
        release_ring(&q->rx);
        release_ring(&q->tx);
        if (q->rx_frame.head) /* a frame half received */
            pkt_free_frame(pkt_chain_take(&q->rx_frame));
        atomic_fetch_add_explicit(&v->drained, 1, memory_order_release);
        return false;
    }
    q->tx_need_kick = false;
    q->tx_unkicked = 0;
    q->rx_left = 0;
    vnet_rx_refill(&v->dev, q, qi); /* restarted: the rings are new and empty */
    return true;
}

/* The TX doorbell, adaptively batched. Frames are published (avail->idx)
 * at every burst, so a device that is busy sending picks them up without
 * one. When the device has asked for a doorbell, it is rung once
 * TX_KICK_BATCH frames wait, once the oldest has waited TX_KICK_DELAY_NS,
 * or as soon as this queue's owner polls RX in a loop pass that has found
 * no work so far (kernel/loop.h): under load one doorbell covers many
 * bursts, and a quiet loop costs no latency. */
static void tx_kick_maybe(struct netdev *dev, struct vnet_queue *q, uint16_t qi, bool idle)
{
    if (!q->tx_need_kick)
        return;
    if (!idle && q->tx_unkicked < TX_KICK_BATCH && time_now_ns() - q->tx_defer_ns < TX_KICK_DELAY_NS)
        return;
    *q->tx.notify = q->tx.notify_value;
    q->tx.doorbells++;
    dev->stats[qi].tx_doorbells++;
    q->tx_need_kick = false;
    q->tx_unkicked = 0;
}

/* Where the driver posted it, the device wrote a virtio-net header and
 * then the frame; a frame over one buffer (a jumbo frame, MRG_RXBUF) goes
 * on in num_buffers - 1 more, each holding frame bytes from its start
 * (5.1.6.4, 5.1.6.4.2). Returns a frame of one buffer, or NULL when p
 * starts a longer one (its rest comes to rx_more) or is dropped. */
static inline struct pkt *rx_first(struct netdev *dev, struct vnet_queue *q, struct pkt *p, uint32_t len, bool mrg)
{
    const struct virtio_net_hdr *h = (const void *)(p->data - sizeof *h);
    uint16_t nb = mrg ? h->num_buffers : 1;
    bool fits = len - (sizeof *h + 14) <= PKT_DATA_ROOM - 14;
    if (__builtin_expect(fits && nb == 1, 1) && rx_header(p, h, len - (uint32_t)sizeof *h)) {
        p->len = (uint16_t)(len - sizeof *h);
        return p;
    }
    if (len >= sizeof *h && nb > 1) /* the rest: chained, or dropped as it comes */
        q->rx_left = (uint16_t)(nb - 1);
    if (fits && nb > 1 && nb <= RX_CHAIN_MAX && dev->mtu + 22u > PKT_DATA_ROOM &&
        rx_header(p, h, len - (uint32_t)sizeof *h)) {
        p->len = (uint16_t)(len - sizeof *h);
        pkt_chain_add(&q->rx_frame, p);
        return NULL;
    }
    dev->stats[p->queue].rx_error++;
    pkt_free(p);
    return NULL;
}

/* The next buffer of a frame over several (rx_first). Returns the frame
 * once its last buffer came, if no longer than the port's MTU allows. */
static struct pkt *rx_more(struct netdev *dev, struct vnet_queue *q, struct pkt *p, uint32_t len, uint16_t qi)
{
    q->rx_left--;
    if (q->rx_frame.head == NULL) { /* a frame being dropped */
        pkt_free(p);
        return NULL;
    }
    p->data -= sizeof(struct virtio_net_hdr); /* no header in this one */
    p->len = (uint16_t)len;
    pkt_chain_add(&q->rx_frame, p);
    if (len == 0 || len > sizeof(struct virtio_net_hdr) + PKT_DATA_ROOM) {
        dev->stats[qi].rx_error++; /* malformed: the rest goes too */
        pkt_free_frame(pkt_chain_take(&q->rx_frame));
        return NULL;
    }
    if (q->rx_left)
        return NULL;
    struct pkt *f = pkt_chain_take(&q->rx_frame);
    if (pkt_frame_len(f) > dev->mtu + 22u) { /* Ethernet and two VLAN tags over the MTU: a real NIC's limit */
        dev->stats[qi].rx_error++;
        pkt_free_frame(f);
        return NULL;
    }
    return f;
}

static void tx_reclaim(struct virtqueue *tx)
{
    uint32_t len;
    struct pkt *p;
    vq_used_begin(tx);
    while ((p = vq_next_used(tx, &len)) != NULL)
        pkt_free_frame(p);
}

uint16_t vnet_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct vnet_queue *q = to_vnet(dev)->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    if (!queue_usable(to_vnet(dev), q, qi))
        return 0;
    uint16_t got = 0;
    uint64_t bytes = 0;
    uint32_t len;
    struct pkt *p;
    bool mrg = (to_vnet(dev)->vp.features & F_MRG_RXBUF) != 0;
    vq_used_begin(&q->rx);
    while (got < n && (p = vq_next_used(&q->rx, &len)) != NULL) {
        p->queue = qi;
        p = __builtin_expect(q->rx_left != 0, 0) ? rx_more(dev, q, p, len, qi) : rx_first(dev, q, p, len, mrg);
        if (p == NULL)
            continue;
        p->port = dev->index;
        bytes += __builtin_expect(p->flags & PKT_F_CHAIN, 0) ? pkt_frame_len(p) : p->len;
        pkts[got++] = p;
    }
    if (q->rx.nfree >= q->refill_at)
        vnet_rx_refill(dev, q, qi);
    tx_kick_maybe(dev, q, qi, got == 0 && percpu_self()->work == 0);
    if (got == 0 && q->tx.nfree < q->tx.size)
        tx_reclaim(&q->tx); /* idle: give sent buffers back to the pool, as igb does */
    netdev_count_rx(st, got, bytes);
    return got;
}

/* A frame over several buffers (a TSO frame, PKT_F_CHAIN) as one chain of
 * descriptors, the virtio-net header in front of the first (virtio 1.2,
 * 5.1.6.2: the device takes the chain as one packet). False when the ring
 * lacks the room. */
static bool tx_add_chain(struct virtqueue *tx, struct pkt *p)
{
    uint64_t addr[TX_CHAIN_MAX];
    uint32_t len[TX_CHAIN_MAX];
    uint16_t n = 0;
    for (struct pkt *e = p;; e = e->next) {
        if (n == TX_CHAIN_MAX)
            return false;
        addr[n] = pkt_data_phys(e);
        len[n++] = e->len;
        if (!(e->flags & PKT_F_CHAIN))
            break;
    }
    return vq_add_chain(tx, p, addr, len, n, 0);
}

/* Fills the TX header (h sits just before the frame) from the buffer's
 * offload requests. */
static void tx_header(const struct pkt *p, struct virtio_net_hdr *h)
{
    *h = (struct virtio_net_hdr){0};
    if (!(p->flags & (PKT_TX_L4_CSUM | PKT_TX_TSO4 | PKT_TX_TSO6)))
        return;
    h->flags = HDR_F_NEEDS_CSUM;
    h->csum_start = p->csum_start;
    h->csum_offset = p->csum_offset;
    if (p->tso_mss && (p->flags & (PKT_TX_TSO4 | PKT_TX_TSO6))) {
        const uint8_t *tcp = (const uint8_t *)(h + 1) + p->csum_start;
        h->gso_type = (p->flags & PKT_TX_TSO4) ? GSO_TCPV4 : GSO_TCPV6;
        h->gso_size = p->tso_mss;
        h->hdr_len = (uint16_t)(p->csum_start + (tcp[12] >> 4) * 4); /* through the TCP header */
    }
}

uint16_t vnet_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct vnet *v = to_vnet(dev);
    struct vnet_queue *q = v->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    bool hw_csum = (v->vp.features & F_CSUM) != 0;
    if (!queue_usable(v, q, qi))
        return 0;
    if (q->tx.nfree < n)
        tx_reclaim(&q->tx);
    uint16_t sent = 0;
    uint64_t bytes = 0;
    for (; sent < n && q->tx.nfree; sent++) {
        struct pkt *p = pkts[sent];
        if ((p->flags & PKT_TX_L4_CSUM) && !hw_csum)
            csum_pkt_finish(p); /* the device will not: do it here */
        uint32_t frame_len = p->len;
        if (p->flags & PKT_F_CHAIN) {
            frame_len = pkt_frame_len(p);
            if (q->tx.nfree < TX_CHAIN_MAX)
                tx_reclaim(&q->tx);
        }
        struct virtio_net_hdr *h = (struct virtio_net_hdr *)pkt_push(p, sizeof *h);
        if (!h) { /* no headroom: not with our pools */
            st->tx_error++;
            break;
        }
        tx_header(p, h);
        if (!(p->flags & PKT_F_CHAIN)) {
            vq_add(&q->tx, p, pkt_data_phys(p), p->len, false);
        } else if (!tx_add_chain(&q->tx, p)) {
            pkt_pull(p, sizeof *h); /* the caller drops it, or sends it again */
            break;
        }
        bytes += frame_len;
    }
    if (sent) {
        if (vq_publish(&q->tx) && !q->tx_need_kick) {
            q->tx_need_kick = true;
            q->tx_defer_ns = time_now_ns();
        }
        q->tx_unkicked = (uint16_t)(q->tx_unkicked + sent);
        tx_kick_maybe(dev, q, qi, false);
        st->tx_packets += sent;
        st->tx_bytes += bytes;
        st->tx_batches++;
    }
    st->tx_full += (uint64_t)(n - sent);
    return sent;
}
