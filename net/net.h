/* SPDX-License-Identifier: MIT */
/* net/net.h: the stack below TCP, one instance per core (iip style).
 *
 * struct net_stack holds a core's interfaces, ARP caches, reassembly state,
 * UDP bindings, counters and per-port TX bursts. It owns no loop, clock or
 * memory: the embedder gives it a buffer pool and the struct itself, then
 * in its loop
 *
 *     n = netdev_rx_burst(dev, queue, pkts, 32);
 *     net_input(s, pkts, n, now_ns);          // may call UDP callbacks
 *     ...                                     // applications send
 *     net_flush(s);                           // one tx_burst per port
 *     deadline = net_poll(s, now_ns);         // timers, link changes
 *
 * Outgoing frames gather in each port's burst array; net_flush hands each
 * array to netdev_tx_burst once (one doorbell per port) and frees, counting
 * them, the buffers the driver did not take. Nothing here may be called from
 * another core, or re-entered from a callback (a UDP callback may send, not
 * call net_input).
 *
 * Next hops: connected subnets first, then the route hook (net_set_route).
 * Datagrams that pass the input checks but are not for us go to the forward
 * hook (net_set_forward), else are dropped as "ip4-not-for-us". */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"
#include "capture/capture.h"
#include "link/arp.h"
#include "core/counter.h"
#include "ip/icmp4.h"
#include "ip/reasm.h"
#include "link/nd6.h"
#include "link/ra6.h"
#include "core/netdev.h"
#include "core/pkt.h"
#include "ip/udp.h"

#define NET_MAX_PORTS 32        /* port numbers: 0..15 the kernel's devices (netdev.index, PORTS_MAX),
                                 * the rest its VLAN sub-interfaces (net_subif_add) */
#define NET_TX_BURST 256        /* frames gathered per port before a flush (a ring's worth: what
                                 * does not wait, ACKs, SYN-ACKs, needs room while data waits) */
#define NET_TX_FWD_MAX 256      /* forwarded frames a port takes between flushes (FWD_BURST_MAX) */
#define NET_TX_DATA_MAX 32      /* of them TCP data may take: the rest for ACKs, SYN-ACKs,
                                 * FINs, resets, ICMP and ARP while data waits on a full ring */
#define NET_MTU_DEFAULT 1500

/* struct pkt.user bits set on input, while the stack or a hook owns the
 * buffer: how the frame was addressed at the link layer. */
enum {
    NET_PKT_L2_BCAST = 1u << 0,
    NET_PKT_L2_MCAST = 1u << 1,
};

struct net_stack;
struct tcp_stack;

/* Route lookup for dst_be: true with the output port and the gateway
 * (0: dst_be is on the link), false when there is no route. */
typedef bool (*net_route_fn)(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be);

/* A datagram that passed the input checks and is not for us: IPv4 header at
 * p->data (Ethernet header stripped: it is still in the headroom), p->len
 * its total length, p->port the input port, p->l3_off 0, p->user the
 * NET_PKT_L2_* flags. The hook takes p (arp_output, icmp4_send_*, or free
 * and count). */
typedef void (*net_forward_fn)(void *ctx, struct net_stack *s, struct pkt *p, uint64_t now_ns);

/* An ARP packet this stack accepted told where ip_be is (mac, on port).
 * Each core keeps its own ARP caches, but a NIC puts frames it cannot hash
 * (ARP among them) on one queue, so the reply to one core's request may
 * reach another: the embedder passes this on to the other cores'
 * arp_learn_remote. */
typedef void (*net_arp_seen_fn)(void *ctx, uint16_t port, uint32_t ip_be, const uint8_t *mac);

/* IPv6 route lookup for dst: true with the output port and the gateway
 * (all zero: dst is on the link), false when there is no route. With a
 * hook, it alone decides (its table holds the connected prefixes). hdr:
 * the IPv6 header of the datagram being forwarded (its flow chooses among
 * equal-cost paths), NULL for what the stack itself sends. */
typedef bool (*net_route6_fn)(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port, uint8_t *gw);

/* Packet capture (net/capture/capture.h, kernel/netsvc/capture.c): the
 * frames at p[0..n) seen on port in direction dir (a CAP_* bit), why the
 * name of the counter that dropped them (CAP_DROP), else NULL. */
typedef void (*net_tap_fn)(void *ctx, uint16_t port, uint8_t dir, struct pkt *const *p, uint16_t n,
                           const char *why);

/* Neighbour discovery learned where ip is (as net_arp_seen_fn). */
typedef void (*net_nd6_seen_fn)(void *ctx, uint16_t port, const uint8_t *ip, const uint8_t *mac);

struct net_iface {
    struct netdev *dev;         /* NULL: port not added */
    uint16_t port;              /* dev->index */
    uint16_t queue;             /* this core's queue on dev */
    uint16_t vlan_id;           /* 0: untagged; may be set after net_iface_add */
    uint16_t mtu;
    uint32_t addr_be;           /* 0: no address (no ARP, no local delivery) */
    uint32_t mask_be;
    uint32_t bcast_be;          /* subnet-directed broadcast */
    uint8_t prefix_len;
    bool link_up;               /* as last seen by net_poll */
    /* The port's one transmit queue on this core. The stack's frames
     * (net_tx) gather in tx[0, ntx); forwarded ones (net_tx_forwarded) in
     * tx[NET_TX_BURST, +nfwd). net_flush_port alone hands them to the
     * driver, the stack's first, in one tx_burst. */
    bool tx_busy;               /* the driver refused frames: tx holds the stack's */
    uint16_t ntx;
    uint16_t nfwd;
    struct pkt *tx[NET_TX_BURST + NET_TX_FWD_MAX];
    struct arp_cache arp;
    bool has6;                  /* addr6 is set */
    uint8_t plen6;
    uint8_t addr6[16];
    uint8_t sra6[16];           /* Subnet-Router anycast: the prefix, zeros after; all zero: none */
    uint8_t ll6[16];            /* link-local, from the MAC */
    struct nd6_cache nd;
    struct ra6_state ra;
    /* Access lists on what is forwarded in at and out of this port
     * (net/acl/acl.h; fwd_sync after setting them). */
    struct acl_use acl_in, acl_out;
    /* VLAN sub-interfaces (net_subif_add): a port of its own, on its
     * parent's device and queue. Its frames are untagged by the time the
     * stack or the fast path sees them (net_subif_demux) and tagged as they
     * leave, into the parent's transmit queue: one doorbell a device. */
    uint16_t txport;            /* the port whose queue its frames take: itself, or the parent */
    uint8_t ntags;              /* 0, 1 (802.1Q) or 2 (802.1ad S-tag, then C-tag) */
    uint8_t tags[8];            /* TPID and TCI each, outer first, as on the wire */
    uint32_t subifs;            /* on a parent: bit p, port p is one of its sub-interfaces */
    uint64_t sub_rx, sub_rx_bytes, sub_tx, sub_tx_bytes; /* a sub-interface's frames (with their tags) */
};

struct net_stack {
    struct pkt_pool *pool;      /* replies, ARP requests, fragments */
    uint32_t core;
    uint16_t nports;            /* highest added port + 1 */
    uint16_t ip_id;
    uint32_t ip6_frag_id;       /* the last Fragment header's identification */
    uint32_t arp_queued;        /* buffers waiting on ARP or ND, all ports (ARP_QUEUE_MAX) */
    uint64_t timer_ns;          /* next deadline */
    net_route_fn route;
    void *route_ctx;
    net_forward_fn forward;
    void *forward_ctx;
    net_arp_seen_fn arp_seen;
    void *arp_seen_ctx;
    net_route6_fn route6;       /* NULL: IPv6 is not forwarded */
    void *route6_ctx;
    net_nd6_seen_fn nd6_seen;
    void *nd6_seen_ctx;
    struct icmp4_limit icmp_limit;
    struct udp_table udp;
    struct tcp_stack *tcp;      /* NULL: no TCP (tcp_init attaches one) */
    struct net_counters ctr;
    uint64_t *fwd_tx_drop;      /* forwarding's fwd-tx-drop (fwd_attach): where refused forwarded frames count */
    _Atomic(net_tap_fn) tap;    /* a capture's, set from another core; NULL (a test a flush) while none runs */
    void *tap_ctx;
    struct acl_use acl_control; /* on datagrams for us (but neighbour discovery) */
    struct net_iface iface[NET_MAX_PORTS];
    struct reasm reasm;
};

/* The capture's look at p[0..n), when one runs: what the stack sends
 * (CAP_TX), what the forwarding path drops (CAP_DROP, why), and what the
 * embedder's poll loop received (CAP_RX). */
static inline void net_tap(struct net_stack *s, uint16_t port, uint8_t dir, struct pkt *const *p, uint16_t n,
                           const char *why)
{
    net_tap_fn fn = atomic_load_explicit(&s->tap, memory_order_acquire);
    if (__builtin_expect(fn != NULL, 0))
        fn(s->tap_ctx, port, dir, p, n, why);
}

/* A datagram at p->data (its Ethernet header stripped, still in the
 * headroom) dropped on port for why: the capture sees the frame as it
 * came. */
static inline void net_tap_drop(struct net_stack *s, uint16_t port, struct pkt *p, const char *why)
{
    if (__builtin_expect(atomic_load_explicit(&s->tap, memory_order_relaxed) != NULL, 0) && pkt_push(p, ETH_HDR_LEN))
        net_tap(s, port, CAP_DROP, &p, 1, why);
}

/* Zero s and take pool (stays the embedder's; the stack allocates from it).
 * core only seeds the IPv4 identification. */
void net_stack_init(struct net_stack *s, struct pkt_pool *pool, uint32_t core);

/* Free every buffer the stack holds (ARP queues, fragments, unsent bursts,
 * TCP's queues: tcp_release). */
void net_stack_release(struct net_stack *s);

/* Attach this core's queue of dev as port dev->index with addr_be/prefix_len
 * (addr_be 0: no address). The MTU is dev->mtu, else 1500. A gratuitous ARP
 * goes out when net_poll first sees the link up. Adding a port again
 * replaces it (its ARP cache and unsent frames are dropped). 0, or -1 on a
 * bad port. */
int net_iface_add(struct net_stack *s, struct netdev *dev, uint16_t queue, uint32_t addr_be,
                  uint8_t prefix_len);

/* VLAN sub-interface port (NET_MAX_PORTS > port, not a device's) on parent
 * (added first): frames tagged vid, under an 802.1ad S-tag outer_vid when
 * that is not 0 (QinQ), are port's; what it sends is tagged so. Its MTU is
 * the parent's. 0, or -1 on a bad port, VLAN or parent. */
int net_subif_add(struct net_stack *s, uint16_t port, uint16_t parent, uint16_t outer_vid, uint16_t vid,
                  uint32_t addr_be, uint8_t prefix_len);
/* A tagged frame at p->data received on a port with sub-interfaces: when
 * one of them is its VLAN, its tags are taken off, p->port becomes that
 * port, and its interface is returned; else NULL, p untouched. */
struct net_iface *net_subif_demux(struct net_stack *s, struct pkt *p);

/* The port's interface, or NULL when it was not added. */
struct net_iface *net_iface_get(struct net_stack *s, uint16_t port);

void net_set_route(struct net_stack *s, net_route_fn fn, void *ctx);
void net_set_forward(struct net_stack *s, net_forward_fn fn, void *ctx);
void net_set_arp_seen(struct net_stack *s, net_arp_seen_fn fn, void *ctx);
void net_set_route6(struct net_stack *s, net_route6_fn fn, void *ctx);
void net_set_nd6_seen(struct net_stack *s, net_nd6_seen_fn fn, void *ctx);

/* Give port an IPv6 address addr/plen (after net_iface_add); -1 on a bad
 * port or length. */
int net_iface_set_addr6(struct net_stack *s, uint16_t port, const uint8_t *addr, uint8_t plen);

/* A burst of received frames; takes every buffer in pkts[0..n). */
void net_input(struct net_stack *s, struct pkt **pkts, uint16_t n, uint64_t now_ns);

/* Hand every port's gathered frames to its driver, one tx_burst each. */
void net_flush(struct net_stack *s);

/* Timers (ARP, reassembly, TCP) and link-up announcements. Returns when it next
 * wants to be called (UINT64_MAX: no timer pending); calling it more often is
 * cheap. */
uint64_t net_poll(struct net_stack *s, uint64_t now_ns);

/* For the files of net/. */

/* Hand the port's queue to its driver in one tx_burst. What its ring has
 * no room for of the stack's frames stays, in order, for the next flush
 * (eth-tx-busy), and the port is tx_busy until a flush goes through whole:
 * TCP holds its data back meanwhile instead of losing it at our own NIC
 * (net/tcp/tcp_output.c). Forwarded frames it has no room for are dropped,
 * as a router's full queue does, and counted in *s->fwd_tx_drop. */
void net_flush_port(struct net_stack *s, struct net_iface *ifc);

/* Put a finished frame on the port's burst (flushing it first when full;
 * dropped, eth-tx-drop, when the driver takes none of it). Takes p. */
static inline void net_tx(struct net_stack *s, struct net_iface *ifc, struct pkt *p)
{
    if (__builtin_expect(ifc->txport != ifc->port, 0)) { /* a sub-interface's: out by its parent's queue */
        ifc->sub_tx++;
        ifc->sub_tx_bytes += p->len;
        ifc = &s->iface[ifc->txport];
    }
    if (__builtin_expect(ifc->ntx == NET_TX_BURST, 0)) {
        net_flush_port(s, ifc);
        if (ifc->ntx == NET_TX_BURST) {
            s->ctr.eth_tx_drop++;
            pkt_free_frame(p);
            return;
        }
    }
    ifc->tx[ifc->ntx++] = p;
    s->ctr.eth_tx++;
}

/* Put a forwarded frame on the port's queue (net/fwd/, at most
 * NET_TX_FWD_MAX between flushes). Takes p. */
static inline void net_tx_forwarded(struct net_iface *ifc, struct pkt *p)
{
    ifc->tx[NET_TX_BURST + ifc->nfwd++] = p;
}

/* Next hop for dst_be: connected subnets, then the route hook. */
bool net_route(struct net_stack *s, uint32_t dst_be, uint16_t *port, uint32_t *nh_be);

/* addr_be is one of our addresses (inline: every datagram in asks, twice). */
static inline __attribute__((always_inline)) bool net_addr_is_local(const struct net_stack *s, uint32_t addr_be)
{
    if (addr_be == 0)
        return false;
    for (const struct net_iface *i = s->iface, *end = i + s->nports; i < end; i++)
        if (__builtin_expect(i->addr_be == addr_be, 0) && i->dev)
            return true;
    return false;
}

/* 255.255.255.255 or the subnet broadcast of one of our ports. */
bool net_addr_is_bcast(const struct net_stack *s, uint32_t addr_be);

/* Access lists (net/acl/acl.h) on a forwarded datagram (IPv4 or IPv6
 * header at ip, len bytes there): the one on its input port in, then the
 * one on its output port out (either NET_ACL_SKIP: not applied here).
 * NULL when they pass it, else the counter that counted it as denied. */
#define NET_ACL_SKIP 0xffffu
const char *net_acl_forward(struct net_stack *s, uint16_t in, uint16_t out, const uint8_t *ip, uint32_t len,
                            bool v6);
/* `acl control` on a datagram for us: whether it passes (a denial counted). */
bool net_acl_control(struct net_stack *s, const uint8_t *ip, uint32_t len, bool v6);
static inline bool net_acl_local_ok(struct net_stack *s, const uint8_t *ip, uint32_t len, bool v6)
{
    return __builtin_expect(s->acl_control.acl == NULL, 1) || net_acl_control(s, ip, len, v6);
}

/* Ask net_poll to run the timers by deadline_ns. */
static inline void net_timer_at(struct net_stack *s, uint64_t deadline_ns)
{
    if (deadline_ns < s->timer_ns)
        s->timer_ns = deadline_ns;
}

#endif
