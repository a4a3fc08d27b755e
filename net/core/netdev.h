/* SPDX-License-Identifier: MIT */
/* net/core/netdev.h: the one interface between NIC drivers and the stack
 * (docs/design.md, Boundaries).
 *
 * A driver fills struct netdev and its ops; the run loop and the stack call
 * only these. Bursts: rx_burst returns up to n received buffers (ownership
 * passes to the caller); tx_burst queues up to n buffers, rings the doorbell
 * at most once, and returns how many it took: the caller still owns and must
 * free (or retry) the rest. A queue is only ever used by one core. */
#ifndef NET_NETDEV_H
#define NET_NETDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt.h"

#define NETDEV_MAX_QUEUES 16
#define NETDEV_RSS_KEY_LEN 40   /* Toeplitz key, as NICs take it */
#define NETDEV_RSS_RETA_LEN 128 /* indirection table entries */
#define NETDEV_MTU_MAX 9216 /* jumbo frames: the most max_mtu may be */
#define NETDEV_FRAME_MAX (NETDEV_MTU_MAX + 14 + 8) /* ... as a frame with two VLAN tags */
#define NETDEV_BATCH_HIST 9 /* batch sizes 1, 2-3, 4-7, ... 128-255, 256+ */

/* Offload capabilities (struct netdev.offloads). */
enum {
    NETDEV_OFF_RX_CSUM = 1u << 0,
    NETDEV_OFF_TX_CSUM = 1u << 1,
    NETDEV_OFF_TSO4 = 1u << 2,
    NETDEV_OFF_TSO6 = 1u << 3,
    NETDEV_OFF_RSS = 1u << 4,
    NETDEV_OFF_RSS_TCP6 = 1u << 5, /* RSS hashes TCP/IPv6 ports too (not addresses only) */
};

/* Per queue, written only by the core that owns the queue. Names follow
 * DPDK/VPP usage. */
struct netdev_qstats {
    uint64_t rx_packets, rx_bytes;
    uint64_t tx_packets, tx_bytes;
    uint64_t rx_no_buf;       /* rx-no-buf: refill found the pool empty */
    uint64_t rx_miss;         /* rx-miss: dropped by the device, ring full */
    uint64_t rx_error;        /* rx-error: malformed descriptor/frame */
    uint64_t tx_full;         /* tx-full: refused, ring full (caller retries or drops) */
    uint64_t tx_error;
    uint64_t rx_doorbells, tx_doorbells; /* MMIO notify/tail writes */
    uint64_t rx_batches, tx_batches;     /* non-empty bursts */
    uint64_t batch_hist[NETDEV_BATCH_HIST]; /* RX burst sizes, log2 buckets */
};

struct netdev;

/* What a driver adds to `show interfaces` of a port (kernel/ports.c):
 * a note after the driver's name in the text, and fields of its own in
 * the JSON, after "queues". A field is a number unless str is set. */
#define NETDEV_INFO_FIELDS 4
struct netdev_info {
    const char *note; /* " (packed ring)" */
    int nfields;
    struct {
        const char *key;
        const char *str;
        uint64_t num;
    } field[NETDEV_INFO_FIELDS];
};

struct netdev_ops {
    uint16_t (*rx_burst)(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n);
    uint16_t (*tx_burst)(struct netdev *dev, uint16_t queue, struct pkt **pkts, uint16_t n);
    /* Slow path, from the owning core's loop: link changes, device reset. */
    void (*poll_status)(struct netdev *dev);
    /* Optional, before the loops run: steer every flow to queues [0, n)
     * only (n < nqueues), nqueues becoming n. 0, or -1 when it cannot. */
    int (*limit_queues)(struct netdev *dev, uint16_t n);
    /* Optional: fills what the driver adds to `show interfaces`. */
    void (*info)(const struct netdev *dev, struct netdev_info *out);
    /* Optional, core 0, before the loops run: the stack listens to the
     * multicast group at mac (an IPv6 address's solicited-node group) on
     * top of all-nodes and all-routers. Only a driver whose device may
     * filter multicast out needs it (a VF its PF gives named groups). */
    void (*join_group)(struct netdev *dev, const uint8_t mac[6]);
    /* Optional, core 0, before the loops run: take every frame whatever
     * its destination MAC (an xconnect is a wire). false when the device
     * cannot (a VF: its PF sorts frames to it by MAC). A driver without
     * it has no unicast filter to open (virtio-net). */
    bool (*promiscuous)(struct netdev *dev);
    /* Optional, core 0, before the loops run: from now on receive frames
     * of up to mtu bytes of IP (with Ethernet and two VLAN tags), over
     * several buffers past one (a jumbo frame: pkt.h), mtu at most
     * max_mtu. false when it could not (the MTU stays). A driver without
     * it takes every MTU up to max_mtu as it is (virtio-net). */
    bool (*set_mtu)(struct netdev *dev, uint16_t mtu);
};

struct netdev {
    char name[16];             /* eth0, eth1, ... in PCI order */
    const char *driver;        /* "virtio-net", "igb", ... */
    uint8_t mac[6];
    bool link_up;              /* the driver's status poll sets it with netdev_set_link */
    uint16_t mtu;
    /* The largest MTU the driver may be given (kernel/netsvc: `interface
     * ethN mtu`): over a buffer's room, it receives a frame as a chain of
     * buffers (pkt.h) and sends one so. 0: mtu is the most. */
    uint16_t max_mtu;
    uint32_t offloads;         /* NETDEV_OFF_* */
    uint16_t nqueues;          /* queue pairs in use */
    uint16_t index;            /* port number */
    const struct netdev_ops *ops;
    void *priv;                /* the driver's */
    struct pkt_pool *rx_pool[NETDEV_MAX_QUEUES]; /* refill source, per queue's core */
    /* With NETDEV_OFF_RSS: a flow lands on queue
     * rss_reta[toeplitz(rss_key, tuple) % NETDEV_RSS_RETA_LEN], so software
     * (TCP's active opens) can predict which core will see the replies. */
    uint8_t rss_key[NETDEV_RSS_KEY_LEN];
    uint16_t rss_reta[NETDEV_RSS_RETA_LEN];
    struct netdev_qstats stats[NETDEV_MAX_QUEUES];
    /* The port's owner (kernel/ports.c) hears of link changes here, set
     * once the port is named: none while probing. */
    void (*link_changed)(struct netdev *dev);
};

/* The largest MTU dev may be given (max_mtu, or mtu where that is 0). */
static inline uint16_t netdev_max_mtu(const struct netdev *dev)
{
    return dev->max_mtu > dev->mtu ? dev->max_mtu : dev->mtu;
}

/* The driver saw the link up or down: the owner hears when it changed. */
static inline void netdev_set_link(struct netdev *dev, bool up)
{
    bool was = dev->link_up;
    dev->link_up = up;
    if (up != was && dev->link_changed)
        dev->link_changed(dev);
}

static inline uint16_t netdev_rx_burst(struct netdev *dev, uint16_t q, struct pkt **pkts, uint16_t n)
{
    return dev->ops->rx_burst(dev, q, pkts, n);
}

static inline void netdev_join_group(struct netdev *dev, const uint8_t mac[6])
{
    if (dev->ops->join_group)
        dev->ops->join_group(dev, mac);
}

static inline bool netdev_promiscuous(struct netdev *dev)
{
    return dev->ops->promiscuous ? dev->ops->promiscuous(dev) : true;
}

static inline uint16_t netdev_tx_burst(struct netdev *dev, uint16_t q, struct pkt **pkts, uint16_t n)
{
    return dev->ops->tx_burst(dev, q, pkts, n);
}

/* Log2 bucket of a burst size, for batch_hist. */
static inline unsigned netdev_batch_bucket(uint32_t n)
{
    unsigned b = 31u - (unsigned)__builtin_clz(n | 1u);
    return b < NETDEV_BATCH_HIST - 1 ? b : NETDEV_BATCH_HIST - 1;
}

/* A burst of got frames, bytes long, received on a queue. */
static inline void netdev_count_rx(struct netdev_qstats *st, uint32_t got, uint64_t bytes)
{
    if (got) {
        st->rx_packets += got;
        st->rx_bytes += bytes;
        st->rx_batches++;
        st->batch_hist[netdev_batch_bucket(got)]++;
    }
}

#endif
