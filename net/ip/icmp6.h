/* SPDX-License-Identifier: MIT */
/* net/ip/icmp6.h: ICMPv6 (RFC 4443) for the router: echo requests to our
 * addresses are answered; neighbour discovery goes to net/link/nd6.c; errors
 * (destination unreachable, packet too big, time exceeded, parameter
 * problem) are sent about packets we cannot deliver or forward, never
 * about an ICMPv6 error, a packet to a multicast address (but packet too
 * big), or one from an address that is not a unicast host's (2.4(e)); they
 * quote as much of the packet as fits in 1280 bytes (2.4(c)) and share the
 * stack's token bucket with ICMP (2.4(f)). */
#ifndef NET_ICMP6_H
#define NET_ICMP6_H

#include <stdint.h>

#include "core/pkt.h"

struct net_stack;
struct net_iface;

/* An ICMPv6 message for us: IPv6 header at p->data (no extension
 * headers), payload length checked. Takes p. */
void icmp6_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* An ICMPv6 message too long for a buffer, reassembled at d (len bytes):
 * an echo request's reply is made in place and sent in fragments. False
 * when it is not an echo request (the caller counts it). */
bool icmp6_echo_flat(struct net_stack *s, struct net_iface *ifc, uint8_t *d, uint32_t len, uint64_t now_ns);

/* An error about p (IPv6 header at p->data) that came in on ifc; rest is
 * the second word (MTU, pointer). p stays the caller's. 0 sent, -1 not
 * (counted). */
int icmp6_send_error(struct net_stack *s, struct net_iface *ifc, const struct pkt *p, uint8_t type, uint8_t code,
                     uint32_t rest, uint64_t now_ns);

#endif
