/* drivers/virtio/virtio_net.c: virtio-net over the modern PCI transport
 * (virtio 1.2, 5.1). One RX/TX virtqueue pair per core (5.1.2: rx N = 2N,
 * tx N = 2N+1, control = 2 * max_virtqueue_pairs); a core polls only its
 * own pair. Every frame carries the 12-byte virtio_net_hdr (5.1.6, VERSION_1
 * layout) in the buffer's headroom; RX buffers are posted so the frame
 * lands at the usual data offset and TX prepends the header in place: no
 * copies. Split or packed virtqueues, whichever the device offers (packed
 * when it offers both: VIRTIO_F_RING_PACKED, 2.8). Bursts: one store that
 * publishes them (avail->idx, or the first descriptor's flags) and at most
 * one doorbell each. */
#include "virtio_net.h"

#include <stdatomic.h>

#include "drivers/virtio/virtio_pci.h"
#include "kernel/console.h"
#include "kernel/kalloc.h"
#include "kernel/lib.h"
#include "kernel/memmap.h"
#include "kernel/percpu.h"
#include "kernel/time.h"
#include "net/core/csum.h"

#define F_CSUM (1ull << 0)
#define F_GUEST_CSUM (1ull << 1)
#define F_MTU (1ull << 3)
#define F_MAC (1ull << 5)
#define F_HOST_TSO4 (1ull << 11)
#define F_HOST_TSO6 (1ull << 12)
#define F_MRG_RXBUF (1ull << 15)
#define F_STATUS (1ull << 16)
#define F_CTRL_VQ (1ull << 17)
#define F_MQ (1ull << 22)
#define F_RSS (1ull << 60)

enum {
    HDR_F_NEEDS_CSUM = 1,
    HDR_F_DATA_VALID = 2,
    GSO_NONE = 0,
    GSO_TCPV4 = 1,
    GSO_TCPV6 = 4,
    CFG_MAC = 0,
    CFG_STATUS = 6,
    CFG_MAX_PAIRS = 8,
    CFG_MTU = 10,
    STATUS_LINK_UP = 1,
    CTRL_MQ = 4,
    CTRL_MQ_VQ_PAIRS_SET = 0,
    CTRL_MQ_RSS_CONFIG = 1,
    CFG_RSS_MAX_KEY = 17,
    CFG_RSS_MAX_RETA = 18,
    CFG_RSS_HASH_TYPES = 20,
    HASH_IPV4 = 1 << 0,
    HASH_TCPV4 = 1 << 1,
    HASH_UDPV4 = 1 << 2,
    HASH_IPV6 = 1 << 3,
    HASH_TCPV6 = 1 << 4,
    HASH_UDPV6 = 1 << 5,
    CTRL_OK = 0,
    REFILL_BATCH = 32,
    TX_KICK_BATCH = 32,         /* frames worth a doorbell at once */
};
#define TX_KICK_DELAY_NS 100000ull /* the longest a published frame waits (DPDK's usual TX drain) */
#define TX_CHAIN_MAX 64 /* descriptors of one TX frame (a TSO frame of 44 buffers fits) */
#define CTRL_BUF_LEN 512 /* a control command and its ack: the RSS one is 309 bytes */
#define CTRL_ACK_OFF 448

struct virtio_net_hdr {
    uint8_t flags, gso_type;
    uint16_t hdr_len, gso_size, csum_start, csum_offset, num_buffers;
};
_Static_assert(sizeof(struct virtio_net_hdr) == 12, "virtio 5.1.6");

struct vnet_queue {
    struct virtqueue rx, tx;
    struct pkt_pool *pool;
    uint16_t refill_at; /* refill once this many RX descriptors are free */
    uint16_t rx_skip;   /* buffers still to come of a frame being dropped */
    uint32_t phase;     /* the vnet phase this queue's owner last acted on */
    /* TX doorbell deferred (see tx_kick_maybe): the device asked for one,
     * tx_unkicked frames wait for it since tx_defer_ns. */
    bool tx_need_kick;
    uint16_t tx_unkicked;
    uint64_t tx_defer_ns;
} __attribute__((aligned(64)));

struct vnet {
    struct netdev dev;
    struct virtio_pci vp;
    struct vnet_queue *q[NETDEV_MAX_QUEUES];
    struct virtqueue ctrl;
    uint8_t *ctrl_buf;
    uint16_t max_pairs, pairs;
    bool rss; /* flows spread by our key and table (else the device's way) */
    bool rss_tcp6; /* ... with TCP/IPv6's ports in the hash */
    /* Device reset (3.1, 2.1.2 DEVICE_NEEDS_RESET), without locks: core 0
     * sees the status and moves phase to DRAINING; each queue's owner, at
     * its next burst, frees what its rings hold (its own pool's buffers)
     * and counts itself in `drained`; when all have, core 0 resets and
     * restarts the device and moves phase to RUNNING + 1; owners then
     * refill and go on. Phases: even = running, odd = draining. */
    _Atomic uint32_t phase;
    _Atomic uint32_t drained;
    uint64_t drain_since_ns, resets;
    bool restart_failed; /* said once */
};

/* ACCESS_PLATFORM (6.1): the device sees memory through the platform's
 * translation; we program no IOMMU, so bus addresses are physical ones, and
 * hardware virtio (vDPA) may refuse a driver that declines it. */
static const uint64_t wanted_features = VIRTIO_F_VERSION_1 | VIRTIO_F_ACCESS_PLATFORM | VIRTIO_F_RING_EVENT_IDX |
                                        VIRTIO_F_RING_PACKED | F_CSUM | F_GUEST_CSUM | F_MTU | F_MAC | F_HOST_TSO4 |
                                        F_HOST_TSO6 | F_MRG_RXBUF | F_STATUS | F_CTRL_VQ | F_MQ | F_RSS;

/* Symmetric Toeplitz key (0x6d5a repeated): both directions of a flow hash
 * alike, so a forwarded flow and its replies meet on one core. */
static const uint8_t rss_key[NETDEV_RSS_KEY_LEN] = {
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

static bool virtio_net_match(const struct pci_dev *pci)
{
    return pci->vendor == VIRTIO_VENDOR &&
           (pci->device == VIRTIO_NET_DEVICE_MODERN || pci->device == VIRTIO_NET_DEVICE_TRANSITIONAL);
}

static struct vnet *to_vnet(struct netdev *dev) { return dev->priv; }

/* RX buffers: the device writes header + frame so the frame starts at the
 * buffer's normal data offset. */
static bool rx_post(struct virtqueue *vq, struct pkt *p)
{
    return vq_add(vq, p, pkt_data_phys(p) - sizeof(struct virtio_net_hdr),
                  (uint32_t)(sizeof(struct virtio_net_hdr) + PKT_DATA_ROOM), true);
}

static void rx_refill(struct netdev *dev, struct vnet_queue *q, uint16_t qi)
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
        atomic_fetch_add_explicit(&v->drained, 1, memory_order_release);
        return false;
    }
    q->tx_need_kick = false;
    q->tx_unkicked = 0;
    q->rx_skip = 0;
    rx_refill(&v->dev, q, qi); /* restarted: the rings are new and empty */
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

static uint16_t vnet_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
{
    struct vnet_queue *q = to_vnet(dev)->q[qi];
    struct netdev_qstats *st = &dev->stats[qi];
    if (!queue_usable(to_vnet(dev), q, qi))
        return 0;
    uint16_t got = 0;
    uint64_t bytes = 0;
    uint32_t len;
    struct pkt *p;
    vq_used_begin(&q->rx);
    while (got < n && (p = vq_next_used(&q->rx, &len)) != NULL) {
        const struct virtio_net_hdr *h = (const void *)(p->data - sizeof *h);
        if (__builtin_expect(q->rx_skip != 0, 0)) { /* the rest of a frame dropped below */
            q->rx_skip--;
            pkt_free(p);
            continue;
        }
        /* A frame larger than a buffer (a jumbo frame from a host with a
         * larger MTU) comes in num_buffers buffers, the header in the first
         * only (5.1.6.4, MRG_RXBUF): all of them go, once counted. */
        if (len - (sizeof *h + 14) > PKT_DATA_ROOM - 14 || h->num_buffers > 1 ||
            !rx_header(p, h, len - (uint32_t)sizeof *h)) {
            if (len >= sizeof *h && h->num_buffers > 1 && (to_vnet(dev)->vp.features & F_MRG_RXBUF))
                q->rx_skip = (uint16_t)(h->num_buffers - 1);
            st->rx_error++;
            pkt_free(p);
            continue;
        }
        p->len = (uint16_t)(len - sizeof *h);
        p->port = dev->index;
        p->queue = qi;
        bytes += p->len;
        pkts[got++] = p;
    }
    if (q->rx.nfree >= q->refill_at)
        rx_refill(dev, q, qi);
    tx_kick_maybe(dev, q, qi, got == 0 && percpu_self()->work == 0);
    netdev_count_rx(st, got, bytes);
    return got;
}

static void tx_reclaim(struct virtqueue *tx)
{
    uint32_t len;
    struct pkt *p;
    vq_used_begin(tx);
    while ((p = vq_next_used(tx, &len)) != NULL)
        pkt_free_frame(p);
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

static uint16_t vnet_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n)
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
    memcpy(p + 3, rss_key, NETDEV_RSS_KEY_LEN);
    memcpy(v->dev.rss_key, rss_key, NETDEV_RSS_KEY_LEN);
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
        rx_refill(dev, v->q[i], i);
    }
    if (f & F_MAC)
        virtio_pci_read_cfg(&v->vp, CFG_MAC, dev->mac, 6);
    dev->mtu = 1500;
    if (f & F_MTU)
        virtio_pci_read_cfg(&v->vp, CFG_MTU, &dev->mtu, 2);
    if (dev->mtu > 1500)
        dev->mtu = 1500; /* a frame is one 2 KB buffer: no jumbo frames (they would need chained buffers) */
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
    .cmds = vnet_cmds,
    .ncmds = 1,
};
