/* SPDX-License-Identifier: MIT */
/* net/fwd/fwd.h: the forwarding pipeline, IPv4 (RFC 1812) and IPv6 (RFC 8200),
 * one per core.
 *
 * The fast path is one explicit loop over a received burst (aos/pix, DPDK
 * l3fwd, VPP ip4-rewrite):
 *
 *   parse/check -> route4_lookup_burst -> rewrite -> each port's queue
 *   (net_tx_forwarded) -> net_flush: one netdev_tx_burst (one doorbell) per
 *   output port, the stack's frames and the forwarded ones together
 *
 * The RX buffer itself goes out (zero copy): the Ethernet addresses are
 * overwritten from the next hop's adjacency (nexthop.h), the TTL is
 * decremented and the header checksum updated incrementally (RFC 1624).
 *
 * What is not plain transit IPv4 goes to the core's stack (net_input), which
 * does the full RFC 1812 5.2.2 and 5.3.7 checks and delivers, drops and
 * counts by its own rules: ARP, frames for us, multicast and broadcast,
 * VLAN-tagged ports, IP options, fragments, TTL <= 1, malformed headers,
 * martian addresses. The stack hands the transit datagrams among them back
 * through net_set_forward (fwd_hook) to the slow path, which also takes the
 * fast path's exceptions (no route, unresolved or special next hops, too
 * big for the MTU): ICMP errors, ARP resolution with a bounded queue,
 * fragmentation. Every drop has a counter (FWD_COUNTERS). docs/fwd.md has
 * the design.
 *
 * IPv6 (fwd6.c) shares the loop, the lookup batch and the port queues: plain
 * transit IPv6 has its hop limit decremented (no header checksum) and goes
 * out the same way. Everything else IPv6, the fast path's exceptions too
 * (no route, an unresolved neighbour, too big), goes to the stack as it
 * came, which forwards it per packet (ip6.c) with its ICMPv6 errors.
 *
 * Per core, like struct net_stack: nothing here is shared but the route
 * table and the next-hop table, which are read-only to this code. The
 * caller keeps the route table's quiescent-state slot (route.h) between
 * bursts. */
#ifndef NET_FWD_H
#define NET_FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/counter.h"
#include "core/csum.h"
#include "nexthop6.h"
#include "net.h"
#include "nexthop.h"
#include "nexthop_ref.h"
#include "core/pkt.h"
#include "route/route4.h"
#include "route/route6.h"
#include "core/wire.h"

#define FWD_BURST_MAX 256 /* frames one fwd_burst call handles at once */
_Static_assert(FWD_BURST_MAX <= NET_TX_FWD_MAX, "a burst's forwarded frames fit a port's queue");

/* X(field, "name"). Drops first, then what is not a drop. */
#define FWD_COUNTERS(X)                                                          \
    X(no_route, "fwd-no-route")           /* ICMP net unreachable sent */        \
    X(ttl_expired, "fwd-ttl-expired")     /* ICMP time exceeded sent */          \
    X(frag_needed, "fwd-frag-needed")     /* DF and too big: ICMP, RFC 1191 */   \
    X(frag_no_buf, "fwd-frag-no-buf")     /* no buffer for a fragment */         \
    X(blackhole, "fwd-blackhole")         /* route to a blackhole next hop */    \
    X(unreachable, "fwd-unreachable")     /* unreachable next hop: ICMP */       \
    X(bad_nexthop, "fwd-bad-nexthop")     /* free or out of range, no port */    \
    X(src_route, "fwd-src-route")         /* LSRR/SSRR option, RFC 7126 */       \
    X(directed_bcast, "fwd-directed-bcast") /* to a subnet broadcast, RFC 2644 */ \
    X(arp_drop, "fwd-arp-drop")           /* ARP queue or cache full */          \
    X(jumbo_slow, "fwd-jumbo-slow")       /* a jumbo frame the slow path would hold: dropped */ \
    X(tx_drop, "fwd-tx-drop")             /* not taken by the NIC (ring full) */ \
    X(rx, "fwd-rx")                       /* frames into fwd_burst */            \
    X(to_stack, "fwd-to-stack")           /* handed to the stack as they came */ \
    X(fast, "fwd-fast")                   /* forwarded by the fast path */       \
    X(fast6, "fwd-fast6")                 /* of those, IPv6 */                   \
    X(slow, "fwd-slow")                   /* transit datagrams on the slow path */ \
    X(tx, "fwd-tx")                       /* forwarded, both paths, or queued */ \
    X(arp_queued, "fwd-arp-queued")       /* of those, waiting on ARP */         \
    X(options, "fwd-options")             /* forwarded with IP options */        \
    X(fragmented, "fwd-fragmented")       /* datagrams split for the MTU */      \
    X(frag_tx, "fwd-frag-tx")             /* fragments made */

struct fwd_counters {
#define FWD_COUNTER_FIELD(field, name) uint64_t field;
    FWD_COUNTERS(FWD_COUNTER_FIELD)
#undef FWD_COUNTER_FIELD
};

/* A burst lookup: nh[i] for host-order addr[i], i < n; 0 is no route. */
typedef void (*fwd_lookup4_fn)(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n);
/* The same for IPv6 addresses (network order, as on the wire). */
typedef void (*fwd_lookup6_fn)(void *ctx, const uint8_t (*addr)[16], uint32_t *nh, uint32_t n);

/* What a first octet says of an IPv4 address (fwd.octet): no transit
 * datagram has it (RFC 1812 5.3.7), or one of our addresses has it too, so
 * that local[] must be asked. Most addresses have neither: one load. */
enum { FWD_OCTET_ODD = 1, FWD_OCTET_LOCAL = 2 };

struct fwd {
    const struct route4 *rt4;            /* shared, read-only here */
    fwd_lookup4_fn lookup4;              /* NULL: route4_lookup_burst on rt4 */
    void *lookup4_ctx;
    uint64_t mac64[NET_MAX_PORTS];       /* each port's MAC in the low bytes (memory order) */
    uint32_t fast_ports;                 /* bit p: port p may take the fast path */
    uint32_t vlan_ports;                 /* bit p: port p has sub-interfaces (net_subif_demux) */
    uint32_t acl_in_ports, acl_out_ports; /* bit p: port p has an access list there (net.h) */
    uint32_t acl4_ports;                 /* of acl_in_ports: classified in the burst's loop (acl4) */
    uint32_t plain_ports;                /* fast, and neither VLANs nor acl4: the loop's short way */
    const struct acl_fast4 *acl4[NET_MAX_PORTS]; /* port p's input list as acl_fast4_bits takes it */
    uint32_t local_mul;                  /* hash of local[]: (a * local_mul) >> 22 */
    uint32_t local[1024];                /* our addresses and broadcasts, collision-free */
    uint8_t octet[256];                  /* by an address's first octet: FWD_OCTET_* */
    struct fwd_counters ctr;
    /* One burst's scratch. */
    struct pkt *fast[FWD_BURST_MAX], *slow[FWD_BURST_MAX];
    uint32_t dst[FWD_BURST_MAX], nh[FWD_BURST_MAX];
    uint64_t acl_bits[FWD_BURST_MAX];   /* fast[i]'s input list's rules (acl4_ports) */
    struct nexthop_cache nhc;
    /* IPv6 (fwd6.c); fast6_ports 0 until fwd_set_route6. */
    const struct route6 *rt6;            /* shared, read-only here */
    fwd_lookup6_fn lookup6;              /* NULL: route6_lookup_burst on rt6 */
    void *lookup6_ctx;
    const struct fwd_nh6_table *nh6;     /* shared, read-only here */
    uint32_t nh6_gen;                    /* nh6's gen when adj6 was last flushed */
    uint32_t adj6_filled;                /* adj6 past it is all zero */
    uint32_t fast6_ports;                /* bit p: port p has IPv6 and may take the fast path */
    uint64_t nd6_gen;                    /* fwd6_nd_gen when adj6 was last flushed */
    uint64_t local6[64];                 /* a 4096-bit filter of local6_addr */
    uint8_t local6_addr[2 * NET_MAX_PORTS][16]; /* our IPv6 addresses, the anycast ones too */
    uint32_t nlocal6;
    struct pkt *fast6[FWD_BURST_MAX];
    uint8_t dst6[FWD_BURST_MAX][16];
    uint32_t nh6v[FWD_BURST_MAX];
    struct nexthop_adj adj6[FWD_NH6_MAX]; /* as nhc's, from the neighbour cache */
};

/* Zero f and take the shared tables (they stay the embedder's). */
void fwd_init(struct fwd *f, const struct route4 *rt4, const struct nexthop_table *nht);

/* Plug f into s: net_set_forward (transit datagrams reaching the stack go to
 * the slow path), net_set_route (what the stack sends is routed by rt4 too),
 * then fwd_sync. */
void fwd_attach(struct fwd *f, struct net_stack *s);

/* Read s's ports again: which may take the fast path (added, untagged) and
 * our addresses. Call after net_iface_add or an address, VLAN or access
 * list change. */
void fwd_sync(struct fwd *f, const struct net_stack *s);

/* Forward a received burst (frames at p->data, p->port set) with s as the
 * core's stack. Takes every buffer in pkts[0..n). Frames that are not
 * plain transit go to net_input(s, ...); at the end each port's frames,
 * the stack's included, go out in one netdev_tx_burst (one doorbell) per
 * port for every FWD_BURST_MAX frames in. */
void fwd_burst(struct fwd *f, struct net_stack *s, struct pkt **pkts, uint16_t n, uint64_t now_ns);

/* net_forward_fn (net.h): a transit datagram the stack checked, IPv4 header
 * at p->data. Takes p. ctx is the struct fwd. */
void fwd_hook(void *ctx, struct net_stack *s, struct pkt *p, uint64_t now_ns);

/* net_route_fn (net.h): the route table's answer for what the stack sends.
 * ctx is the struct fwd. */
bool fwd_route(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be);

/* Replace the burst lookup (the benchmark puts rte_lpm here). */
void fwd_set_lookup4(struct fwd *f, fwd_lookup4_fn fn, void *ctx);

/* Forward IPv6 on the fast path too: rt6's next-hop index i is nh6's
 * slot i (0, free slots and indexes past the table: the stack decides).
 * The tables stay the caller's. Routes may change while f uses them
 * (route6.h), and slots be set and freed as nexthop6.h says. Then fwd_sync,
 * once the ports have their IPv6 addresses. What the fast path leaves to
 * the stack is forwarded there only with net_set_route6 (else
 * ip6-no-forward). */
void fwd_set_route6(struct fwd *f, const struct route6 *rt6, const struct fwd_nh6_table *nh6);
/* Replace the IPv6 burst lookup (the benchmark puts rte_lpm6 here). */
void fwd_set_lookup6(struct fwd *f, fwd_lookup6_fn fn, void *ctx);

/* Counters by name, as in counter.h (layer "fwd"; offsets into struct
 * fwd_counters). */
const struct net_counter_desc *fwd_counter_at(size_t i);
const struct net_counter_desc *fwd_counter_find(const char *name);
static inline uint64_t fwd_counter_get(const struct fwd_counters *c, const struct net_counter_desc *d)
{
    return *(const uint64_t *)(const void *)((const char *)c + d->offset);
}

/* For fwd4.c and fwd_slow.c. */

/* The slow path for one transit datagram at p->data (IPv4 header, options
 * allowed, TTL not yet checked), nh its next hop or FWD_NH_UNKNOWN. Takes
 * p. */
#define FWD_NH_UNKNOWN 0xffffffffu
void fwd_slow(struct fwd *f, struct net_stack *s, struct pkt *p, uint32_t nh, uint64_t now_ns);

static inline uint64_t fwd_load64(const uint8_t *p)
{
    uint64_t v;
    __builtin_memcpy(&v, p, 8);
    return v;
}

/* Frame d is unicast to port's MAC from a unicast source (the stack drops
 * a group source: eth-bad-src): bytes 0..7 against mac64[port] (zero past
 * the MAC) under a mask with the source's group bit, as words in memory
 * order, so the same code holds for either byte order. */
static inline bool fwd_unicast_to_us(const struct fwd *f, const uint8_t *d, uint32_t port)
{
    static const uint8_t mask[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0};
    return ((fwd_load64(d) ^ f->mac64[port]) & fwd_load64(mask)) == 0;
}

/* The access lists on a frame the fast path forwards, where its ports
 * have any (acl_in_ports, acl_out_ports; in NET_ACL_SKIP: the input list
 * was applied already): true when they pass it; else it is counted,
 * shown to a capture, and freed. */
static inline bool fwd_acl_ok(const struct fwd *f, struct net_stack *s, struct pkt *p, uint16_t in, uint16_t out,
                              bool v6)
{
    uint32_t at_in = in < NET_MAX_PORTS ? f->acl_in_ports >> in : 0;
    if (__builtin_expect(!((at_in | (f->acl_out_ports >> out)) & 1), 1))
        return true;
    const char *why = net_acl_forward(s, in, out, p->data + ETH_HDR_LEN, p->len - ETH_HDR_LEN, v6);
    if (why == NULL)
        return true;
    net_tap(s, p->port, CAP_DROP, &p, 1, why);
    pkt_free_frame(p);
    return false;
}

/* fwd_send_adj for an adjacency on a VLAN sub-interface (a->tagged): the
 * frame grows by its tags and joins the parent port's queue (fwd4.c). */
void fwd_send_tagged(struct net_stack *s, const struct nexthop_adj *a, const uint8_t *mac, struct pkt *p);

/* Frame p out of adjacency a's port's queue, its Ethernet addresses a's:
 * mac is the destination's, a->eth itself or what a per-packet lookup found
 * (NEXTHOP_ADJ_LINK). */
static inline void fwd_send_adj(struct net_stack *s, const struct nexthop_adj *a, const uint8_t *mac,
                                struct pkt *p)
{
    if (__builtin_expect(a->tagged, 0)) {
        fwd_send_tagged(s, a, mac, p);
        return;
    }
    __builtin_memcpy(p->data, a->eth, 2 * ETH_ALEN);
    if (__builtin_expect(mac != a->eth, 0))
        __builtin_memcpy(p->data, mac, ETH_ALEN);
    net_tx_forwarded(&s->iface[a->port], p);
}

/* fwd6.c: fwd_sync's IPv6 part; whether frame p is plain transit IPv6 for
 * the fast path (its destination copied to dst); the lookup and rewrite of
 * the n frames in f->fast6, each onto its port's queue or, not rewritten, onto
 * slow[*nslow]. */
void fwd6_sync(struct fwd *f, const struct net_stack *s);
bool fwd6_classify(const struct fwd *f, struct pkt *p, uint8_t *dst);
void fwd6_forward(struct fwd *f, struct net_stack *s, uint32_t n, struct pkt **slow, uint32_t *nslow,
                  uint64_t now_ns);

/* TTL minus one and the header checksum updated for it (RFC 1624 eqn. 3:
 * HC' = ~(~HC + ~m + m') over the TTL/protocol word m). Both callers
 * forward only a TTL above 1, so m' is m less one in the TTL's byte, ~m +
 * m' is -0x0100 in ones' complement whatever m, and HC' is HC + 0x0100
 * (in network order: either byte order, as RFC 1071 2.(B)) with the end
 * carry added back, and 0xffff written 0 as eqn. 3 writes it: the same
 * bits as summing the words (checked over every checksum and TTL:
 * tests/unit/fwd/fwd4_fast_path.c). */
static inline void fwd_ttl_dec(struct ip4_hdr *h)
{
    uint16_t csum;
    h->ttl--;
    __builtin_memcpy(&csum, &h->csum, 2);
    uint32_t sum = (uint32_t)csum + net_htons(0x0100);
    csum = (uint16_t)(sum + (sum >= 0xffffu));
    __builtin_memcpy(&h->csum, &csum, 2);
}

#endif
