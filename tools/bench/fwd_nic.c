/* SPDX-License-Identifier: MIT */
/* tools/bench/fwd_nic.c: the in-memory NIC and its driver
 * (tools/bench/fwd_nic.h). */
#include "tools/bench/fwd_nic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *virt(const struct nic *n, uint64_t phys)
{
    return n->pool->base + (phys - n->pool_phys);
}

/* ---- the driver ---- */

/* Take the frames the device has written, in order, posting a fresh buffer
 * in each slot; one RDT write for the lot. */
static uint16_t rx_burst(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t max)
{
    struct nic *n = (struct nic *)dev;
    uint32_t next = n->rx_next;
    uint16_t k = 0, port = dev->index;
    for (; k < max; k++, next++) {
        uint32_t slot = next & (NIC_RING - 1);
        struct nic_desc *d = &n->rxd[slot];
        if (!(d->status & NIC_DD))
            break;
        struct pkt *fresh = pkt_alloc(n->pool);
        if (fresh == NULL) { /* keep the buffer: the frame is lost */
            dev->stats[queue].rx_no_buf++;
            break;
        }
        struct pkt *p = n->rxb[slot];
        p->len = d->len;
        p->port = port;
        p->queue = queue;
        p->flags = d->status & NIC_IPCS ? PKT_RX_IP_CSUM_OK : 0; /* as igb_rxtx.c's rx_meta */
        pkts[k] = p;
        n->rxb[slot] = fresh;
        d->addr = fresh->phys + PKT_META_SIZE + PKT_HEADROOM; /* where pkt_alloc put data */
        d->status = 0;
    }
    if (k) {
        n->rx_next = next;
        n->rdt = next + NIC_RING; /* every slot posted again */
        n->rx_doorbells++;
    }
    return k;
}

/* Reclaim the bursts the device has sent, queue what fits, RS on its
 * last descriptor, one TDT write. */
static uint16_t tx_burst(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t max)
{
    struct nic *n = (struct nic *)dev;
    uint32_t clean = n->tx_clean, tail = n->tx_tail, done = clean;
    while (done != tail) { /* the sent bursts first, then one loop frees them: one exit to mispredict */
        uint32_t last = n->txlast[done & (NIC_RING - 1)];
        if (!(n->txd[last & (NIC_RING - 1)].status & NIC_DD))
            break;
        done = last + 1;
    }
    for (; clean != done; clean++)
        pkt_free(n->txb[clean & (NIC_RING - 1)]);
    n->tx_clean = clean;
    uint32_t room = NIC_RING - (tail - clean);
    uint16_t k = max < room ? max : (uint16_t)room;
    for (uint16_t i = 0; i < k; i++, tail++) {
        uint32_t slot = tail & (NIC_RING - 1);
        struct pkt *p = pkts[i];
        n->txb[slot] = p;
        n->txd[slot] = (struct nic_desc){.addr = pkt_data_phys(p), .len = p->len};
    }
    if (k) {
        n->txd[(tail - 1) & (NIC_RING - 1)].status = NIC_RS;
        n->txlast[n->tx_tail & (NIC_RING - 1)] = tail - 1;
        n->tx_tail = tail;
        n->tdt = tail;
        n->tx_doorbells++;
    }
    if (k < max)
        dev->stats[queue].tx_full += max - k;
    return k;
}

static const struct netdev_ops nic_ops = {.rx_burst = rx_burst, .tx_burst = tx_burst};

/* k pointers between pkts[] and ring[] from index at, in at most two
 * copies (where the ring wraps), as DPDK's ring PMD moves them in bulk. */
static void ring_copy(struct pkt **pkts, struct pkt **ring, uint32_t at, uint16_t k, bool to_ring)
{
    uint32_t slot = at & (NIC_RING - 1), first = NIC_RING - slot < k ? NIC_RING - slot : k;
    if (to_ring) {
        memcpy(ring + slot, pkts, first * sizeof(*pkts));
        memcpy(ring, pkts + first, (k - first) * sizeof(*pkts));
    } else {
        memcpy(pkts, ring + slot, first * sizeof(*pkts));
        memcpy(pkts + first, ring, (k - first) * sizeof(*pkts));
    }
}

/* Pointer-ring mode: what the device put on the ring, as it is. */
static uint16_t ring_rx_burst(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t max)
{
    struct nic *n = (struct nic *)dev;
    uint32_t next = n->pr_next, have = n->pr_head - next;
    uint16_t k = max < have ? max : (uint16_t)have;
    ring_copy(pkts, n->prx, next, k, false);
    n->pr_next = next + k;
    return k;
}

static uint16_t ring_tx_burst(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t max)
{
    struct nic *n = (struct nic *)dev;
    uint32_t tail = n->pt_tail, room = NIC_RING - (tail - n->pt_head);
    uint16_t k = max < room ? max : (uint16_t)room;
    ring_copy(pkts, n->ptx, tail, k, true);
    n->pt_tail = tail + k;
    if (k < max)
        dev->stats[queue].tx_full += max - k;
    return k;
}

static const struct netdev_ops ring_ops = {.rx_burst = ring_rx_burst, .tx_burst = ring_tx_burst};

void nic_pointer_rings(struct nic *n, bool on)
{
    if (on && !n->prx) {
        n->prx = calloc(NIC_RING, sizeof(*n->prx));
        n->ptx = calloc(NIC_RING, sizeof(*n->ptx));
    }
    n->rings = on;
    n->dev.ops = on ? &ring_ops : &nic_ops;
}

void nic_init(struct nic *n, uint16_t index, const uint8_t mac[6], struct pkt_pool *pool, uint64_t pool_phys)
{
    memset(n, 0, sizeof(*n));
    snprintf(n->dev.name, sizeof(n->dev.name), "eth%u", index);
    n->dev.driver = "bench-nic";
    memcpy(n->dev.mac, mac, 6);
    n->dev.link_up = true;
    n->dev.mtu = 1500;
    n->dev.nqueues = 1;
    n->dev.index = index;
    n->dev.ops = &nic_ops;
    n->pool = pool;
    n->pool_phys = pool_phys;
    n->rxd = aligned_alloc(64, NIC_RING * sizeof(*n->rxd));
    n->txd = aligned_alloc(64, NIC_RING * sizeof(*n->txd));
    n->rxb = calloc(NIC_RING, sizeof(*n->rxb));
    n->txb = calloc(NIC_RING, sizeof(*n->txb));
    n->txlast = calloc(NIC_RING, sizeof(*n->txlast));
    memset(n->txd, 0, NIC_RING * sizeof(*n->txd));
    for (uint32_t i = 0; i < NIC_RING; i++) {
        n->rxb[i] = pkt_alloc(pool);
        n->rxd[i] = (struct nic_desc){.addr = pkt_data_phys(n->rxb[i])};
    }
    n->rdt = NIC_RING;
}

void nic_release(struct nic *n)
{
    for (uint32_t i = 0; i < NIC_RING; i++)
        pkt_free(n->rxb[i]);
    for (; n->tx_clean != n->tx_tail; n->tx_clean++)
        pkt_free(n->txb[n->tx_clean & (NIC_RING - 1)]);
    free(n->rxd);
    free(n->txd);
    free(n->rxb);
    free(n->txb);
    free(n->txlast);
    for (; n->pr_next != n->pr_head; n->pr_next++)
        pkt_free(n->prx[n->pr_next & (NIC_RING - 1)]);
    for (; n->pt_head != n->pt_tail; n->pt_head++)
        pkt_free(n->ptx[n->pt_head & (NIC_RING - 1)]);
    free(n->prx);
    free(n->ptx);
}

/* ---- the device ---- */

uint32_t nic_receive(struct nic *n, const uint8_t *tmpl, uint16_t len, uint32_t base, const uint32_t *dst_be,
                     uint32_t max)
{
    uint32_t k = 0;
    if (n->rings) { /* a fresh buffer a frame, its fields as rx_burst would set them */
        for (; k < max && n->pr_head - n->pr_next < NIC_RING; k++) {
            struct pkt *p = pkt_alloc(n->pool);
            if (p == NULL)
                break;
            nic_frame4(p->data, tmpl, len, base, dst_be[k]);
            p->len = len;
            p->port = n->dev.index;
            p->queue = 0;
            p->flags = PKT_RX_IP_CSUM_OK; /* as the l3fwd feeder marks its mbufs, and NIC_IPCS */
            n->prx[n->pr_head++ & (NIC_RING - 1)] = p;
        }
        n->rx_packets += k;
        return k;
    }
    for (; k < max && n->rx_head != n->rdt; k++, n->rx_head++) {
        struct nic_desc *d = &n->rxd[n->rx_head & (NIC_RING - 1)];
        nic_frame4(virt(n, d->addr), tmpl, len, base, dst_be[k]);
        d->len = len;
        d->status = NIC_DD | NIC_IPCS; /* the frames are sound: the checksum checks out */
    }
    n->rx_packets += k;
    return k;
}

uint32_t nic_receive6(struct nic *n, const uint8_t *tmpl, uint16_t len, const uint8_t (*dst)[16], uint32_t max)
{
    uint32_t k = 0;
    for (; k < max && n->rx_head != n->rdt; k++, n->rx_head++) {
        struct nic_desc *d = &n->rxd[n->rx_head & (NIC_RING - 1)];
        uint8_t *f = virt(n, d->addr);
        memcpy(f, tmpl, len);
        memcpy(f + 14 + 24, dst[k], 16);
        d->len = len;
        d->status = NIC_DD;
    }
    n->rx_packets += k;
    return k;
}

uint32_t nic_receive_frame(struct nic *n, const uint8_t *frame, uint16_t len)
{
    if (n->rx_head == n->rdt)
        return 0;
    struct nic_desc *d = &n->rxd[n->rx_head++ & (NIC_RING - 1)];
    memcpy(virt(n, d->addr), frame, len);
    d->len = len;
    d->status = NIC_DD;
    n->rx_packets++;
    return 1;
}

uint32_t nic_transmit(struct nic *n)
{
    uint32_t k = 0;
    if (n->rings) {
        for (; n->pt_head != n->pt_tail; n->pt_head++, k++)
            pkt_free(n->ptx[n->pt_head & (NIC_RING - 1)]);
        n->tx_packets += k;
        return k;
    }
    for (; n->tx_head != n->tdt; n->tx_head++, k++) {
        struct nic_desc *d = &n->txd[n->tx_head & (NIC_RING - 1)];
        d->status |= d->status & NIC_RS ? NIC_DD : 0;
    }
    n->tx_packets += k;
    return k;
}
