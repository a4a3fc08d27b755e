/* SPDX-License-Identifier: MIT */
/* net/ip/icmp4.h: ICMP for IPv4 (RFC 792; RFC 1122 3.2.2; RFC 1812 4.3).
 *
 * Echo requests are answered. Errors are sent for the stack (port and
 * protocol unreachable, reassembly timeout) and for the forwarding path,
 * through the icmp4_send_* calls below. An error quotes as much of the
 * offending datagram as fits in 576 bytes (RFC 1812 4.3.2.3), is never sent
 * about an ICMP error, a broadcast or multicast (IP or link layer), a
 * non-initial fragment or a datagram whose source is not a unicast host
 * (4.3.2.7), and is rate-limited by a token bucket (4.3.2.8). */
#ifndef NET_ICMP4_H
#define NET_ICMP4_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"

#define ICMP4_RATE_PER_S 1000   /* default error rate */
#define ICMP4_BURST 50          /* and burst */

/* Token bucket for errors, in nanoseconds of credit. */
struct icmp4_limit {
    uint32_t rate_per_s;        /* 0: no errors at all */
    uint32_t burst;
    uint64_t credit_ns;
    uint64_t last_ns;
};

/* Take one error's worth of credit (one costs 1 s / rate); false when
 * there is none. The stack's one bucket serves ICMP and ICMPv6. */
bool icmp_limit_take(struct icmp4_limit *l, uint64_t now_ns);

struct net_stack;
struct ip4_rx;

/* An ICMP message for us; takes rx->pkt. */
void icmp4_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns);

/* Errors about p, whose IPv4 header is at p->data + p->l3_off, which came in
 * on p->port. p stays the caller's. Returns 0 sent, -1 not (suppressed,
 * limited or no buffer: counted). */
int icmp4_send_unreach(struct net_stack *s, const struct pkt *p, uint8_t code, uint64_t now_ns);
int icmp4_send_time_exceeded(struct net_stack *s, const struct pkt *p, uint64_t now_ns);
int icmp4_send_frag_needed(struct net_stack *s, const struct pkt *p, uint16_t mtu, uint64_t now_ns);
int icmp4_send_param_problem(struct net_stack *s, const struct pkt *p, uint8_t ptr, uint64_t now_ns);

/* The general form, for a datagram at iph of which avail bytes are at hand
 * (it need not be in a buffer). rest_be fills the second word. */
int icmp4_send_error(struct net_stack *s, const uint8_t *iph, uint32_t avail, uint16_t in_port,
                     uint32_t l2_flags, uint8_t type, uint8_t code, uint32_t rest_be,
                     uint64_t now_ns);

#endif
