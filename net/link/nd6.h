/* SPDX-License-Identifier: MIT */
/* net/link/nd6.h: IPv6 neighbour discovery (RFC 4861), address resolution only:
 * one small cache per port, as ARP's for IPv4 (net/link/arp.h).
 *
 * An entry is INCOMPLETE (a solicitation is out; packets wait on it, at
 * most ND6_QUEUE_PER_DEST), REACHABLE (confirmed within ND6_REACHABLE_NS)
 * or STALE (still used; using it once it has been stale ND6_DELAY_NS sends
 * a unicast solicitation, then one a second; after ND6_RETRIES unanswered
 * it is forgotten, nd6-probe-failed, and the next packet resolves it again:
 * 7.3.3). Solicitations go to the target's solicited-node group (7.2.2),
 * ND6_RETRIES of them a second apart (what waits counts against the
 * stack's ARP_QUEUE_MAX too), then the entry and its queue are dropped
 * (nd6-failed), each packet answered with address unreachable. Entries are
 * made by our own resolutions and by solicitations for our addresses that
 * carry the sender's link-layer address (7.2.3); an advertisement only updates an entry that
 * exists (7.2.5). Router advertisements, redirects and duplicate address
 * detection are not done: addresses are configured. A STATIC entry
 * (nd6_add_static: a traffic tester's port, configured) is never probed,
 * aged, evicted nor changed by what the wire says. */
#ifndef NET_ND6_H
#define NET_ND6_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"

#define ND6_ENTRIES 64          /* per port */
#define ND6_QUEUE_PER_DEST 16
#define ND6_RETRIES 3
#define ND6_RETRY_NS 1000000000ull
#define ND6_REACHABLE_NS 30000000000ull
#define ND6_STALE_NS 60000000000ull /* a stale entry is forgotten after this */
#define ND6_DELAY_NS 5000000000ull  /* stale this long before use probes it (DELAY_FIRST_PROBE_TIME) */

enum nd6_state { ND6_FREE, ND6_INCOMPLETE, ND6_REACHABLE, ND6_STALE, ND6_STATIC };

struct nd6_entry {
    uint8_t ip[16];
    uint8_t mac[6];
    uint8_t state;              /* enum nd6_state */
    uint8_t tries;
    struct pkt_queue q;         /* waiting IPv6 packets at p->data */
    uint64_t expire_ns;         /* next retry / turns stale / forgotten */
    uint64_t probe_ns;          /* last solicitation sent, or turned stale */
};

_Static_assert(ND6_ENTRIES == 64, "nd6_cache.used is one word");

struct nd6_cache {
    struct nd6_entry e[ND6_ENTRIES];
    uint64_t used;              /* entries not free (ND6_ENTRIES is 64): the walks visit only these */
    uint64_t next_ns;           /* no entry is due before: nd6_timer walks none until then */
};

struct net_stack;
struct net_iface;

/* Send p, an IPv6 packet at p->data, to neighbour nh on ifc: framed when
 * its address is known (multicast maps to 33:33:...), else queued and
 * solicited. Takes p. Returns 0 sent, 1 queued, -1 dropped (counted). */
int nd6_output(struct net_stack *s, struct net_iface *ifc, const uint8_t nh[16], struct pkt *p,
               uint64_t now_ns);

/* The link-layer address of unicast neighbour nh on ifc when resolved
 * (reachable or stale: a stale one is probed as nd6_output would), else
 * NULL; sends nothing else, queues nothing. TCP's header template. */
const uint8_t *nd6_lookup(struct net_stack *s, struct net_iface *ifc, const uint8_t nh[16], uint64_t now_ns);

/* As arp_probe (arp.h): a health check of neighbour ip on ifc, which
 * solicits it now; when an answer last confirmed it (0: not within
 * ND6_REACHABLE_NS). */
uint64_t nd6_probe(struct net_stack *s, struct net_iface *ifc, const uint8_t ip[16], uint64_t now_ns);

/* A solicitation or advertisement for us (ICMPv6 type 135/136) at
 * icmp (len bytes), from src, hop limit hlim, on ifc; the caller has
 * checked the checksum and still owns the buffer. */
void nd6_input(struct net_stack *s, struct net_iface *ifc, const uint8_t src[16], const uint8_t dst[16],
               uint8_t hlim, const uint8_t *icmp, uint32_t len, uint64_t now_ns);

/* What another core learned: updates an entry of this stack's (an
 * incomplete one resolves and sends its queue), makes none. */
void nd6_learn_remote(struct net_stack *s, uint16_t port, const uint8_t ip[16], const uint8_t mac[6],
                      uint64_t now_ns);

/* A static entry for ip on port (made, or an existing one turned
 * static): what waited on it is sent. -1 when the port has no interface
 * or ip's set holds no free, stale or reachable way. */
int nd6_add_static(struct net_stack *s, uint16_t port, const uint8_t ip[16], const uint8_t mac[6], uint64_t now_ns);

/* An ICMPv6 message of len bytes at body (its checksum made here), from
 * src to dst with hop limit 255, framed to mac: neighbour discovery's
 * own messages (net/link/ra6.c's too). */
void nd6_send(struct net_stack *s, struct net_iface *ifc, const uint8_t *src, const uint8_t *dst, const uint8_t *mac,
              const uint8_t *body, uint32_t len);
/* The link-layer address option of type want among len bytes of options,
 * into mac; false when absent. *bad set for a malformed one (7.1.1: a
 * zero length, or one past the end). */
bool nd6_find_lla(const uint8_t *o, uint32_t len, uint8_t want, uint8_t *mac, bool *bad);
/* The Ethernet group of IPv6 multicast address ip (RFC 2464 7): 33:33 and its last 4 bytes. */
void nd6_mcast_mac(const uint8_t *ip, uint8_t *mac);

/* Retries, expiry. Returns the next deadline (UINT64_MAX: none). */
uint64_t nd6_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns);
/* Forget every entry, free what waits. */
void nd6_release(struct net_stack *s, struct net_iface *ifc);

/* Walk a port's entries: start with *idx = 0; false after the last. */
bool nd6_entry_next(const struct net_stack *s, uint16_t port, uint32_t *idx, struct nd6_entry *out);

#endif
