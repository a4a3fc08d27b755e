/* SPDX-License-Identifier: MIT */
/* net/ip/ip_jumbo.h: a jumbo frame for the router itself. */
#ifndef NET_IP_JUMBO_H
#define NET_IP_JUMBO_H

#include <stdint.h>

struct net_stack;
struct pkt;

/* A frame over several buffers longer than one (net/core/pkt.h), for
 * this router: the usual datagram (untagged, to the port's MAC, unicast
 * to one of our addresses, a plain header, not a fragment) is taken as a
 * reassembled one is: flattened into the reassembly area and delivered
 * from there (ICMP echo, UDP and TCP answer it, in fragments of one
 * buffer); anything else is dropped and counted (eth-jumbo-drop). Takes
 * p. */
void ip_jumbo_input(struct net_stack *s, struct pkt *p, uint64_t now_ns);

#endif
