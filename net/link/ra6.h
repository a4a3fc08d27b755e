/* SPDX-License-Identifier: MIT */
/* net/link/ra6.h: router advertisements (RFC 4861 section 6): on a port where
 * they are on, hayate says it is a default router and gives the port's
 * prefix for hosts to make addresses from (RFC 4862 SLAAC, with a /64),
 * its MTU and its link-layer address: periodically to all nodes, and to a
 * host that solicits one. Without them a host needs a static route. */
#ifndef NET_RA6_H
#define NET_RA6_H

#include <stdbool.h>
#include <stdint.h>

/* RFC 4861 6.2.1 and 10's defaults. */
#define RA6_MAX_INTERVAL_NS 600000000000ull    /* MaxRtrAdvInterval */
#define RA6_MIN_INTERVAL_NS 200000000000ull    /* MinRtrAdvInterval: 0.33 of it */
#define RA6_INITIAL_COUNT 3                    /* MAX_INITIAL_RTR_ADVERTISEMENTS */
#define RA6_INITIAL_INTERVAL_NS 16000000000ull /* MAX_INITIAL_RTR_ADVERT_INTERVAL */
#define RA6_MIN_GAP_NS 3000000000ull           /* MIN_DELAY_BETWEEN_RAS (multicast) */
#define RA6_LIFETIME_S 1800                    /* AdvDefaultLifetime: 3 x MaxRtrAdvInterval */
#define RA6_VALID_S 2592000                    /* AdvValidLifetime: 30 days */
#define RA6_PREFERRED_S 604800                 /* AdvPreferredLifetime: 7 days */

struct ra6_state {
    bool on;                    /* answer solicitations */
    bool periodic;              /* and advertise unasked (one core a port) */
    uint8_t initial_left;       /* of the first, closer ones */
    uint64_t next_ns;           /* the next unasked one (periodic) */
    uint64_t last_mcast_ns;     /* the last one to all nodes */
};

struct net_stack;
struct net_iface;

/* Advertise on ifc from now: answer solicitations, and with periodic
 * advertise unasked too (the first within a second). */
void ra6_enable(struct net_stack *s, struct net_iface *ifc, bool periodic, uint64_t now_ns);

/* A router solicitation at icmp (len bytes, checksum checked) from src
 * to dst with hop limit hlim, on ifc. */
void ra6_input(struct net_stack *s, struct net_iface *ifc, const uint8_t src[16], uint8_t hlim,
               const uint8_t *icmp, uint32_t len, uint64_t now_ns);

/* The unasked advertisements. Returns the next deadline (UINT64_MAX: none). */
uint64_t ra6_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns);

#endif
