/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_net.c: virtio-net over the modern PCI transport
 * (virtio 1.2, 5.1). One RX/TX virtqueue pair per core (5.1.2: rx N = 2N,
 * tx N = 2N+1, control = 2 * max_virtqueue_pairs); a core polls only its
 * own pair. Every frame carries the 12-byte virtio_net_hdr (5.1.6, VERSION_1
 * layout) in the buffer's headroom; RX buffers are posted so the frame
 * lands at the usual data offset and TX prepends the header in place: no
 * copies. Split or packed virtqueues, whichever the device offers (packed
 * when it offers both: VIRTIO_F_RING_PACKED, 2.8). Bursts: one store that
 * publishes them (avail->idx, or the first descriptor's flags) and at most
 * one doorbell each. The bursts are virtio_net_rxtx.c's; this file brings
 * the device up, follows its status, resets it, and is the driver's table
 * entry (probe, `debug virtio-break`, what `show interfaces` adds). */
#include "virtio_net.h"

#include "drivers/virtio/virtio_net_dev.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "kernel/time.h"

/* ACCESS_PLATFORM (6.1): the device sees memory through the platform's
 * translation; we program no IOMMU, so bus addresses are physical ones, and
 * hardware virtio (vDPA) may refuse a driver that declines it. */
static const uint64_t wanted_features = VIRTIO_F_VERSION_1 | VIRTIO_F_ACCESS_PLATFORM | VIRTIO_F_RING_EVENT_IDX |
                                        VIRTIO_F_RING_PACKED | F_CSUM | F_GUEST_CSUM | F_MTU | F_MAC | F_HOST_TSO4 |
                                        F_HOST_TSO6 | F_MRG_RXBUF | F_STATUS | F_CTRL_VQ | F_MQ | F_RSS;

static bool virtio_net_match(const struct pci_dev *pci)
{
    return pci->vendor == VIRTIO_VENDOR &&
           (pci->device == VIRTIO_NET_DEVICE_MODERN || pci->device == VIRTIO_NET_DEVICE_TRANSITIONAL);
}


static void reset_step(struct vnet *v, uint8_t status);

static void vnet_poll_status(struct netdev *dev)
{
    struct vnet *v = to_vnet(dev);
    uint8_t status = virtio_pci_status(&v->vp);
    reset_step(v, status);
    if (atomic_load_explicit(&v->phase, memory_order_relaxed) & 1)
        return;
    bool up = true;
    if (v->vp.features & F_STATUS) {
        uint16_t s;
        virtio_pci_read_cfg(&v->vp, CFG_STATUS, &s, sizeof s);
        up = s & STATUS_LINK_UP;
    }
    netdev_set_link(dev, up);
}

static int rss_config(struct vnet *v, uint16_t pairs);
static int ctrl_cmd(struct vnet *v, uint8_t class, uint8_t cmd, const void *data, uint16_t len);

/* Flows onto the first n pairs only: the RSS table over them, or
 * VQ_PAIRS_SET (5.1.6.5.5). The other pairs keep their buffers. */
static int vnet_limit_queues(struct netdev *dev, uint16_t n)
{
    struct vnet *v = to_vnet(dev);
    if (n == 0 || n > v->pairs)
        return -1;
    if (n == v->pairs)
        return 0;
    if (v->rss ? rss_config(v, n) != 0 : ctrl_cmd(v, CTRL_MQ, CTRL_MQ_VQ_PAIRS_SET, &n, sizeof n) != 0)
        return -1;
    v->pairs = n;
    dev->nqueues = n;
    return 0;
}

/* `show interfaces`: the features negotiated and the ring layout. */
static void vnet_info(const struct netdev *dev, struct netdev_info *out)
{
    uint64_t f = ((const struct vnet *)dev->priv)->vp.features;
    bool packed = (f & VIRTIO_F_RING_PACKED) != 0;
    out->note = packed ? " (packed ring)" : "";
    out->nfields = 2;
    out->field[0].key = "virtio-features";
    out->field[0].num = f;
    out->field[1].key = "virtio-ring";
    out->field[1].str = packed ? "packed" : "split";
}

static const struct netdev_ops vnet_ops = {
    .rx_burst = vnet_rx_burst,
    .tx_burst = vnet_tx_burst,
    .poll_status = vnet_poll_status,
    .limit_queues = vnet_limit_queues,
    .info = vnet_info,
};

/* Ring memory is allocated once and reused, zeroed, by a restart. 0, or
 * -1 if the device's doorbell for it is out of bounds. */
static int setup_vq(struct vnet *v, uint16_t index, struct virtqueue *vq, uint16_t size)
{
    bool packed = (v->vp.features & VIRTIO_F_RING_PACKED) != 0;
    size_t bytes = vq_ring_bytes(size, packed);
    void *ring = (void *)vq->desc;
    struct pkt **slot = vq->slot;
    uint16_t *free_ids = vq->free_ids, *chain_len = vq->chain_len;
    if (!ring) {
        ring = kalloc_pages(bytes / PAGE_SIZE, 1);
        slot = kalloc(size * sizeof *slot);
        free_ids = kalloc(size * sizeof *free_ids);
        chain_len = kalloc(size * sizeof *chain_len);
    } else {
        memset(ring, 0, bytes);
    }
    if (packed)
        vq_init_packed(vq, ring, size, slot, free_ids, chain_len);
    else
        vq_init(vq, ring, size, slot, free_ids, (v->vp.features & VIRTIO_F_RING_EVENT_IDX) != 0);
    vq->chain_len = chain_len;
    return virtio_pci_queue_enable(&v->vp, index, vq, virt_to_phys(ring));
}

static uint16_t queue_size(struct vnet *v, uint16_t index)
{
    uint16_t max = virtio_pci_queue_max(&v->vp, index), size = 1;
    while ((uint32_t)size * 2 <= max && size * 2 <= VQ_MAX_SIZE)
        size = (uint16_t)(size * 2);
    return size;
}

/* A control command (5.1.6.5): class, command, data; the device writes an
 * ack byte after them, at CTRL_ACK_OFF. Polled with a bounded wait:
 * set-up only. */
static int ctrl_cmd(struct vnet *v, uint8_t class, uint8_t cmd, const void *data, uint16_t len)
{
    uint8_t *b = v->ctrl_buf;
    if (2u + len > CTRL_ACK_OFF)
        return -1;
    b[0] = class;
    b[1] = cmd;
    memcpy(b + 2, data, len);
    b[CTRL_ACK_OFF] = 0xff;
    uint64_t addr[2] = {virt_to_phys(b), virt_to_phys(b + CTRL_ACK_OFF)};
    uint32_t lens[2] = {2u + len, 1};
    if (!vq_add_chain(&v->ctrl, (struct pkt *)b, addr, lens, 2, 1))
        return -1;
    vq_kick(&v->ctrl);
    uint32_t got;
    for (long spins = 0; spins < 100000000; spins++) {
        vq_used_begin(&v->ctrl);
        if (vq_next_used(&v->ctrl, &got))
            return b[CTRL_ACK_OFF] == CTRL_OK ? 0 : -1;
        __builtin_ia32_pause();
    }
    return -1;
}

/* RSS (5.1.6.5.7.1): our key, an indirection table spreading flows over
 * the pairs round-robin, IPv4/IPv6 with TCP and UDP ports. Replaces
 * VQ_PAIRS_SET. 0, or -1 when the device cannot or will not. */
static int rss_config(struct vnet *v, uint16_t pairs)
{
    uint8_t max_key;
    uint16_t max_reta;
    uint32_t types;
    virtio_pci_read_cfg(&v->vp, CFG_RSS_MAX_KEY, &max_key, 1);
    virtio_pci_read_cfg(&v->vp, CFG_RSS_MAX_RETA, &max_reta, 2);
    virtio_pci_read_cfg(&v->vp, CFG_RSS_HASH_TYPES, &types, 4);
    if (max_key < NETDEV_RSS_KEY_LEN || max_reta < NETDEV_RSS_RETA_LEN)
        return -1;
    uint8_t cmd[4 + 2 + 2 + 2 * NETDEV_RSS_RETA_LEN + 2 + 1 + NETDEV_RSS_KEY_LEN];
    _Static_assert(2 + sizeof cmd <= CTRL_ACK_OFF, "the RSS command fits the control buffer");
    uint32_t want = types & (HASH_IPV4 | HASH_TCPV4 | HASH_UDPV4 | HASH_IPV6 | HASH_TCPV6 | HASH_UDPV6);
    v->rss_tcp6 = (want & HASH_TCPV6) != 0;
    uint16_t mask = NETDEV_RSS_RETA_LEN - 1, unclassified = 0, max_tx = pairs;
    uint8_t *p = cmd;
    memcpy(p, &want, 4);
    memcpy(p + 4, &mask, 2);
    memcpy(p + 6, &unclassified, 2);
    p += 8;
    for (uint16_t i = 0; i < NETDEV_RSS_RETA_LEN; i++) {
        uint16_t q = (uint16_t)(i % pairs);
        v->dev.rss_reta[i] = q;
        memcpy(p + 2 * i, &q, 2);
    }
    p += 2 * NETDEV_RSS_RETA_LEN;
    memcpy(p, &max_tx, 2);
    p[2] = NETDEV_RSS_KEY_LEN;
    memcpy(p + 3, nic_rss_key, NETDEV_RSS_KEY_LEN);
    memcpy(v->dev.rss_key, nic_rss_key, NETDEV_RSS_KEY_LEN);
    return ctrl_cmd(v, CTRL_MQ, CTRL_MQ_RSS_CONFIG, cmd, sizeof cmd);
}

/* Feature negotiation through DRIVER_OK and the queue-pair count (3.1.1);
 * at probe time and again after a reset. RX rings are filled by their
 * owners. 0, or -1 if the device refused. */
static int device_start(struct vnet *v, uint16_t want_pairs)
{
    if (virtio_pci_negotiate(&v->vp, wanted_features) != 0) {
        virtio_pci_set_status(&v->vp, VIRTIO_STATUS_FAILED);
        return -1;
    }
    uint64_t f = v->vp.features;
    v->max_pairs = 1;
    if ((f & F_MQ) && (f & F_CTRL_VQ))
        virtio_pci_read_cfg(&v->vp, CFG_MAX_PAIRS, &v->max_pairs, 2);
    uint16_t pairs = v->max_pairs < want_pairs ? v->max_pairs : want_pairs;
    pairs = pairs > NETDEV_MAX_QUEUES ? NETDEV_MAX_QUEUES : pairs ? pairs : 1;
    int bad = 0;
    for (uint16_t i = 0; i < pairs; i++) {
        struct vnet_queue *q = v->q[i] ? v->q[i] : (v->q[i] = kalloc(sizeof *q));
        bad |= setup_vq(v, (uint16_t)(2 * i), &q->rx, queue_size(v, (uint16_t)(2 * i)));
        bad |= setup_vq(v, (uint16_t)(2 * i + 1), &q->tx, queue_size(v, (uint16_t)(2 * i + 1)));
        q->refill_at = q->rx.size / 8 < REFILL_BATCH ? q->rx.size / 8 : REFILL_BATCH;
        if (q->refill_at == 0)
            q->refill_at = 1;
    }
    if (f & F_CTRL_VQ) {
        uint16_t ci = (uint16_t)(2 * v->max_pairs);
        bad |= setup_vq(v, ci, &v->ctrl, queue_size(v, ci) < 16 ? queue_size(v, ci) : 16);
        if (!v->ctrl_buf)
            v->ctrl_buf = kalloc(CTRL_BUF_LEN);
    }
    if (bad) {
        kprintf("virtio-net: a queue's notify offset lies outside the notify window\n");
        virtio_pci_set_status(&v->vp, VIRTIO_STATUS_FAILED);
        return -1;
    }
    virtio_pci_set_status(&v->vp, VIRTIO_STATUS_DRIVER_OK);
    v->rss = false;
    if (pairs > 1 && (f & F_RSS) && rss_config(v, pairs) == 0)
        v->rss = true;
    else if (pairs > 1 && ctrl_cmd(v, CTRL_MQ, CTRL_MQ_VQ_PAIRS_SET, &pairs, sizeof pairs) != 0) {
        kprintf("virtio-net: the device refused %u queue pairs; using 1\n", pairs);
        pairs = 1;
    }
    v->pairs = pairs;
    return 0;
}

/* Core 0's side of a reset (see struct vnet). */
static void reset_step(struct vnet *v, uint8_t status)
{
    struct netdev *dev = &v->dev;
    uint32_t phase = atomic_load_explicit(&v->phase, memory_order_relaxed);
    uint64_t now = time_now_ns();
    if (!(phase & 1)) {
        if (!(status & VIRTIO_STATUS_NEEDS_RESET))
            return;
        kprintf("%s: device needs reset (status 0x%x); port down while it restarts\n", dev->name, status);
        dev->link_up = false; /* said just above: no link line */
        atomic_store_explicit(&v->drained, 0, memory_order_relaxed);
        v->drain_since_ns = now;
        atomic_store_explicit(&v->phase, phase + 1, memory_order_release);
        return;
    }
    if (atomic_load_explicit(&v->drained, memory_order_acquire) < v->pairs) {
        if (now - v->drain_since_ns > 1000000000ull && v->drain_since_ns) {
            kprintf("%s: reset waits on a queue no core polls; the port stays down\n", dev->name);
            v->drain_since_ns = 0;
        }
        return;
    }
    virtio_pci_reset(&v->vp);
    uint16_t pairs = v->pairs;
    if (device_start(v, pairs) != 0 || v->pairs != pairs) {
        /* Fewer pairs would leave the cores past them on queues the device
         * no longer serves: the same count is asked for at each poll. */
        if (!v->restart_failed)
            kprintf("%s: restart failed; the port stays down\n", dev->name);
        v->restart_failed = true;
        v->pairs = pairs;
        return;
    }
    v->restart_failed = false;
    v->resets++;
    atomic_store_explicit(&v->phase, phase + 1, memory_order_release);
    kprintf("%s: device restarted (reset %lu)\n", dev->name, v->resets);
}

static struct netdev *virtio_net_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools,
                                       uint8_t nvfs)
{
    struct vnet *v = kalloc(sizeof *v);
    struct netdev *dev = &v->dev;
    if (virtio_pci_open(&v->vp, pci) != 0 || device_start(v, max_pairs) != 0)
        return NULL;
    uint64_t f = v->vp.features;
    for (uint16_t i = 0; i < v->pairs; i++) {
        v->q[i]->pool = pools[i];
        dev->rx_pool[i] = pools[i];
        vnet_rx_refill(dev, v->q[i], i);
    }
    if (f & F_MAC)
        virtio_pci_read_cfg(&v->vp, CFG_MAC, dev->mac, 6);
    /* The device's MTU, when it says (5.1.4.1), is the most it takes; 1500
     * stays the default. A frame over one buffer comes in several with
     * MRG_RXBUF (5.1.6.3.1) and leaves as a descriptor chain: jumbo frames
     * then, else one buffer is the most. */
    uint16_t cfg_mtu = NETDEV_MTU_MAX;
    if (f & F_MTU)
        virtio_pci_read_cfg(&v->vp, CFG_MTU, &cfg_mtu, 2);
    uint16_t most = (f & F_MRG_RXBUF) ? NETDEV_MTU_MAX : 1500;
    dev->max_mtu = cfg_mtu < most ? cfg_mtu : most;
    dev->mtu = dev->max_mtu < 1500 ? dev->max_mtu : 1500;
    dev->driver = "virtio-net";
    dev->ops = &vnet_ops;
    dev->priv = v;
    dev->nqueues = v->pairs;
    dev->link_up = !(f & F_STATUS);
    dev->offloads = ((f & F_GUEST_CSUM) ? NETDEV_OFF_RX_CSUM : 0) | ((f & F_CSUM) ? NETDEV_OFF_TX_CSUM : 0) |
                    ((f & F_HOST_TSO4) ? NETDEV_OFF_TSO4 : 0) | ((f & F_HOST_TSO6) ? NETDEV_OFF_TSO6 : 0) |
                    (v->rss ? NETDEV_OFF_RSS : 0) | (v->rss && v->rss_tcp6 ? NETDEV_OFF_RSS_TCP6 : 0);
    vnet_poll_status(dev);
    return dev;
}

/* `debug virtio-break PORT`: hands the device, on queue 0's TX, a
 * descriptor index outside the ring (split) or an indirect table of 7
 * bytes (packed, whose descriptors are not a multiple of 16), which a
 * device must treat as fatal (2.7.13, 2.8.20: virtio 1.x devices then set
 * DEVICE_NEEDS_RESET): the reset path's test. Console core only, where
 * queue 0 is polled by the same loop. */
static bool cmd_debug_break(struct netdev *dev, const struct cli_args *a)
{
    struct virtqueue *tx = &to_vnet(dev)->q[0]->tx;
    if (tx->packed) {
        vq_publish(tx); /* what was held goes first */
        volatile struct vring_packed_desc *d = (volatile struct vring_packed_desc *)tx->desc + tx->next_avail;
        d->addr = 0;
        d->len = 7;
        d->id = 0;
        __atomic_store_n(&d->flags,
                         (uint16_t)(VRING_DESC_F_INDIRECT |
                                    (tx->avail_wrap ? VRING_PACKED_F_AVAIL : VRING_PACKED_F_USED)),
                         __ATOMIC_RELEASE);
    } else {
        tx->avail_ring[tx->next_avail & tx->mask] = (uint16_t)(tx->size + 7);
        tx->next_avail++;
        __atomic_store_n(tx->avail_idx, tx->next_avail, __ATOMIC_RELEASE);
        tx->kicked_avail = tx->next_avail;
    }
    *tx->notify = tx->notify_value;
    return true;
}

static const struct nic_driver_cmd vnet_cmds[] = {
    {.words = "debug virtio-break", .usage = "debug virtio-break PORT", .help = "make a virtio-net device need a reset",
     .port_fn = cmd_debug_break, .port_hint = "a virtio-net port"},
};

const struct nic_driver virtio_net_driver = {
    .name = "virtio-net",
    .match = virtio_net_match,
    .probe = virtio_net_probe,
    NIC_DRIVER_CMDS(vnet_cmds),
};
