/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_net_dev.h: what the virtio-net driver's two files
 * share: set-up, status and probe (virtio_net.c) and the data path
 * (virtio_net_rxtx.c). Only drivers/virtio includes it. */
#ifndef DRIVERS_VIRTIO_VIRTIO_NET_DEV_H
#define DRIVERS_VIRTIO_VIRTIO_NET_DEV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "drivers/virtio/virtio_pci.h"
#include "drivers/virtio/virtqueue.h"
#include "net/core/core.h"

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
#define RX_CHAIN_MAX 8 /* buffers of one received frame: a 9238-byte one takes 5 */
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
    uint16_t rx_left;   /* buffers still to come of a frame over several: */
    struct pkt_chain rx_frame; /* ... the frame so far, empty: being dropped */
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

static inline struct vnet *to_vnet(struct netdev *dev) { return dev->priv; }

/* virtio_net_rxtx.c: the bursts (netdev_ops), and RX queue qi's buffers
 * topped up from its pool. */
uint16_t vnet_rx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);
uint16_t vnet_tx_burst(struct netdev *dev, uint16_t qi, struct pkt **pkts, uint16_t n);
void vnet_rx_refill(struct netdev *dev, struct vnet_queue *q, uint16_t qi);

#endif
