/* SPDX-License-Identifier: MIT */
/* net/ip/ip6.h: IPv6 (RFC 8200) for the router: input checks, delivery of
 * ICMPv6, UDP and TCP to us, forwarding through the route hook (net_set_route6), and
 * output of what the stack makes (echo replies, errors, neighbour
 * discovery). A port has one configured address and the link-local one
 * made from its MAC (RFC 4291 2.5.1, 2.5.6); a port without an IPv6
 * address drops IPv6 (ip6-disabled).
 *
 * Input (6.x are RFC 8200 sections): at least 40 bytes, version 6, the
 * payload within the frame (link padding is cut); a source that is not
 * multicast, loopback or one of ours, a destination that is not
 * unspecified or loopback. For us: our addresses, ff02::1 and our
 * solicited-node groups; the next header must be ICMPv6, UDP (udp_input6)
 * or, with TCP attached, TCP (tcp_input6); extension headers and other
 * protocols get a parameter problem or port unreachable.
 * Transit: hop limit 1 or less gets time exceeded (RFC 4443 3.3), no route
 * destination unreachable (3.1), over the next hop's MTU packet too big
 * (3.2, IPv6 routers never fragment); otherwise the hop limit goes down
 * by one and neighbour discovery sends it. Every drop is counted. */
#ifndef NET_IP6_H
#define NET_IP6_H

#include <stdbool.h>
#include <stdint.h>

#include "core/env.h"
#include "core/pkt.h"

struct net_stack;
struct net_iface;

static inline bool ip6_is_mcast(const uint8_t *a) { return a[0] == 0xff; }
static inline bool ip6_is_linklocal(const uint8_t *a) { return a[0] == 0xfe && (a[1] & 0xc0) == 0x80; }
static inline bool ip6_eq(const uint8_t *a, const uint8_t *b) { return net_memcmp(a, b, 16) == 0; }

static inline bool ip6_is_unspec(const uint8_t *a)
{
    static const uint8_t zero[16];
    return ip6_eq(a, zero);
}

static inline bool ip6_is_loopback(const uint8_t *a)
{
    static const uint8_t one[16] = {[15] = 1};
    return ip6_eq(a, one);
}

/* ff02::1:ffXX:XXXX for a (RFC 4291 2.7.1). */
static inline void ip6_solicited_node(const uint8_t *a, uint8_t *g)
{
    static const uint8_t prefix[13] = {0xff, 0x02, [11] = 0x01, [12] = 0xff};
    net_memcpy(g, prefix, 13);
    net_memcpy(g + 13, a + 13, 3);
}

/* fe80::/64 with the modified EUI-64 interface identifier of mac. */
void ip6_linklocal_from_mac(const uint8_t *mac, uint8_t *a);

/* Give ifc its address (addr/plen; NULL: none). */
void ip6_iface_set(struct net_iface *ifc, const uint8_t *addr, uint8_t plen);

/* The first plen bits of a and b agree. */
bool ip6_prefix_eq(const uint8_t *a, const uint8_t *b, unsigned plen);

/* One of s's addresses, on any port. */
bool ip6_is_ours(const struct net_stack *s, const uint8_t *a);
/* a is a port's Subnet-Router anycast address (RFC 4291 2.6.1; struct
 * net_iface sra6). Not "ours": nothing is sent from it. */
bool ip6_is_anycast(const struct net_stack *s, const uint8_t *a);

/* addr on ifc's link (its prefix, or link-local). */
bool ip6_on_link(const struct net_iface *ifc, const uint8_t *addr);

/* The first plen bits of a, the rest zero, into net. */
void ip6_prefix_of(const uint8_t *a, unsigned plen, uint8_t *net);

/* The interface and next hop for dst: the route hook's longest match when
 * there is a hook (its table holds the connected prefixes too, so a more
 * specific route inside one wins), else the longest on-link prefix. False
 * when there is none. */
bool ip6_route(struct net_stack *s, const uint8_t *dst, struct net_iface **out, uint8_t *nh);

/* A frame's IPv6 packet at p->data from ifc. Takes p. */
void ip6_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* Send an IPv6 packet we made (header complete at p->data) out of ifc to
 * neighbour nh (NULL: the destination), in fragments if it is longer
 * than the MTU. Takes p. */
int ip6_output(struct net_stack *s, struct net_iface *ifc, const uint8_t *nh, struct pkt *p, uint64_t now_ns);

/* The same for a datagram of ours in two pieces, a|b (a: the fixed header
 * and maybe more; b may be NULL with blen 0), copied into buffers: it may
 * be longer than one. ifc: the port (needed for a link-local
 * destination), or NULL to route. */
int ip6_output_parts(struct net_stack *s, struct net_iface *ifc, const uint8_t *a, uint32_t alen, const uint8_t *b,
                     uint32_t blen, uint64_t now_ns);

/* A reassembled datagram for us at d (len bytes, its header's next the
 * upper layer's) that came in on ifc: in a buffer of its own when it fits
 * one, else read from d (ICMPv6 echo, UDP), which may change. */
void ip6_deliver_flat(struct net_stack *s, struct net_iface *ifc, uint8_t *d, uint32_t len, uint32_t l2_flags,
                      uint64_t now_ns);

/* The pseudo-header's partial sum (RFC 8200 8.1). */
uint32_t ip6_pseudo_sum(const uint8_t *src, const uint8_t *dst, uint8_t next, uint32_t len);

/* The checksum of len bytes at l4 for src and dst (RFC 8200 8.1): the
 * value to store when the field is zero while summing; 0 when the field
 * holds a correct one. */
uint16_t ip6_l4_csum(const uint8_t *src, const uint8_t *dst, uint8_t next, const uint8_t *l4, uint32_t len);

#endif
