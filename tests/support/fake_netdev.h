/* SPDX-License-Identifier: MIT */
/* tests/support/fake_netdev.h: a netdev that records what it transmits, a
 * two-port stack around it, and builders for the frames tests feed in.
 *
 * Shared by the unit tests and the fuzz targets (tests/fuzz/). The frame
 * builders compute checksums byte by byte, independently of net/core/csum.c. */
#ifndef TESTS_SUPPORT_FAKE_NETDEV_H
#define TESTS_SUPPORT_FAKE_NETDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/link/arp.h"
#include "net/core/counter.h"
#include "net/link/eth.h"
#include "net/ip/icmp4.h"
#include "net/ip/ip4.h"
#include "net/net.h"
#include "net/core/netdev.h"
#include "net/core/pkt.h"
#include "net/ip/udp.h"
#include "net/core/wire.h"

#define FAKE_MAX_SENT 1024

struct fake_netdev {
    struct netdev dev;
    struct pkt *sent[FAKE_MAX_SENT]; /* frames taken, oldest first */
    uint32_t nsent;
    uint32_t tx_calls;               /* tx_burst calls: doorbells */
    uint16_t tx_accept;              /* most frames taken per call */
};

/* Two ports: eth0 10.0.0.1/24 and eth1 10.0.1.1/24, links up, both
 * announced (their gratuitous ARPs cleared) and counters zeroed. */
struct fake_net {
    struct pkt_pool pool;
    void *mem;
    struct net_stack *s;
    struct fake_netdev nd[2];
    uint64_t now_ns;
};

extern const uint8_t fake_mac0[6], fake_mac1[6], fake_peer_mac[6];
#define FAKE_ADDR0 NET_IP4(10, 0, 0, 1)
#define FAKE_ADDR1 NET_IP4(10, 0, 1, 1)
#define FAKE_PEER NET_IP4(10, 0, 0, 2)  /* on eth0 */
#define FAKE_PEER1 NET_IP4(10, 0, 1, 2) /* on eth1 */

void fake_netdev_init(struct fake_netdev *f, uint16_t index, const uint8_t *mac);
void fake_netdev_clear(struct fake_netdev *f); /* frees what was sent */

void fake_net_init(struct fake_net *fn, uint32_t nbufs);
void fake_net_free(struct fake_net *fn);
/* Copy len bytes into a buffer from the pool, as received on port. */
struct pkt *fake_net_rx(struct fake_net *fn, uint16_t port, const void *frame, size_t len);
/* Receive one frame on port at fn->now_ns, then net_flush. */
void fake_net_input(struct fake_net *fn, uint16_t port, const void *frame, size_t len);
/* Put the peer's MAC in eth0's ARP cache (by a request from it) and clear. */
void fake_net_learn_peer(struct fake_net *fn);
/* The same over IPv6: a neighbour solicitation from peer (fake_peer_mac,
 * as its source link-layer address) for ours on eth0 (RFC 4861 7.2.3). */
void fake_net_learn_peer6(struct fake_net *fn, const uint8_t *ours, const uint8_t *peer);
/* Every buffer back in the pool once pending bursts are flushed and the
 * recorded frames freed. */
bool fake_net_all_free(struct fake_net *fn);

/* Check the stack's counters: spec lists "name=value ..."; every counter not
 * named must be 0. Returns the number of mismatches (printed). */
int fake_expect_counters(const struct net_stack *s, const char *spec);
/* The same over any counter table laid out as net/core/counter.h's (the fwd
 * counters too): ctr is the counters struct, at its descriptor walk. */
typedef const struct net_counter_desc *(*fake_counter_at_fn)(size_t i);
int fake_expect_table(const void *ctr, fake_counter_at_fn at, const char *spec);

/* Builders: each writes at buf and returns the bytes written. */
uint16_t fake_csum(const void *buf, size_t len, uint32_t sum); /* byte-by-byte */
size_t fake_eth(uint8_t *buf, const uint8_t *dst, const uint8_t *src, uint16_t type);
size_t fake_ip4(uint8_t *buf, uint32_t src_be, uint32_t dst_be, uint8_t proto, uint16_t id,
                uint16_t frag, const void *payload, size_t len);
size_t fake_udp(uint8_t *buf, uint32_t src_be, uint32_t dst_be, uint16_t sport, uint16_t dport,
                const void *payload, size_t len);
size_t fake_icmp(uint8_t *buf, uint8_t type, uint8_t code, uint32_t rest, const void *payload,
                 size_t len);
size_t fake_arp(uint8_t *buf, uint16_t op, const uint8_t *sha, uint32_t spa_be, const uint8_t *tha,
                uint32_t tpa_be);
/* Ethernet (peer -> eth0) + IPv4 (peer -> 10.0.0.1) around payload. */
size_t fake_frame_ip4(uint8_t *buf, uint8_t proto, uint16_t id, uint16_t frag, const void *payload,
                      size_t len);

#endif
