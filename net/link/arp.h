/* SPDX-License-Identifier: MIT */
/* net/link/arp.h: ARP for IPv4 over Ethernet (RFC 826), one cache per port.
 *
 * The cache is set-associative (ARP_SETS x ARP_WAYS entries a port), so its
 * size is fixed and a lookup touches one set. An entry is INCOMPLETE (a
 * request is out; packets wait on it), REACHABLE (answered recently) or
 * STALE (still used; using it sends a refresh request). Requests go out at
 * most once a second per destination (RFC 1122 2.3.2.1). Entries are made
 * only from ARP packets whose target is our address (RFC 826's "?Am I the
 * target protocol address?"); other ARP traffic only refreshes entries that
 * exist. */
#ifndef NET_ARP_H
#define NET_ARP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"
#include "core/wire.h"

#define ARP_SETS 64
#define ARP_WAYS 4
#define ARP_QUEUE_PER_DEST 32   /* buffers waiting on one destination */
#define ARP_QUEUE_MAX 128       /* buffers waiting on all, per stack */
#define ARP_RETRIES 3           /* requests before giving up */
#define ARP_RETRY_NS 1000000000ull
#define ARP_REACHABLE_NS 30000000000ull
#define ARP_STALE_NS 60000000000ull /* a stale entry is forgotten after this */

/* STATIC: configured (`arp ADDR MAC`): never expires, refreshed,
 * replaced by what ARP packets say, or evicted. */
enum arp_state { ARP_FREE, ARP_INCOMPLETE, ARP_REACHABLE, ARP_STALE, ARP_STATIC };

struct arp_entry {
    uint32_t ip_be;
    uint8_t mac[6];
    uint8_t state;              /* enum arp_state */
    uint8_t tries;              /* requests sent while INCOMPLETE */
    struct pkt_queue q;         /* waiting IPv4 datagrams */
    uint64_t expire_ns;         /* next retry / turns stale / forgotten */
    uint64_t req_ns;            /* last request sent for it */
    bool req_sent;
};

_Static_assert(ARP_SETS * ARP_WAYS % 64 == 0, "arp_cache.used is whole words");

struct arp_cache {
    struct arp_entry e[ARP_SETS * ARP_WAYS];
    uint64_t used[ARP_SETS * ARP_WAYS / 64]; /* entries not free: the walks visit only these */
    uint64_t next_ns;           /* no entry is due before: arp_timer walks none until then */
};

/* What `show arp` prints. */
struct arp_info {
    uint32_t ip_be;
    uint8_t mac[6];
    uint8_t state;
    uint16_t qlen;
    uint64_t expire_ns;
};

struct net_stack;
struct net_iface;

/* Send p, an IPv4 datagram at p->data, to next hop nh_be on port: framed
 * and put on the port's burst when the address is known (or is a
 * broadcast), else queued (bounded) until a reply and a request sent.
 * Takes p whatever happens. Returns 0 sent, 1 queued, -1 dropped (counted).
 * The forwarding path calls this too. */
int arp_output(struct net_stack *s, uint16_t port, uint32_t nh_be, struct pkt *p, uint64_t now_ns);

/* The MAC address of nh_be on port if usable now (a stale entry also sends
 * a rate-limited refresh request), else NULL: then use arp_output. */
const uint8_t *arp_lookup(struct net_stack *s, uint16_t port, uint32_t nh_be, uint64_t now_ns);

/* A health check of neighbour ip_be on port (an ECMP path): asks it
 * again now (a request; a new entry when there is none) and says when an
 * answer last confirmed it: 0 when not within ARP_REACHABLE_NS, now_ns
 * for a static entry. Call it no more than about once a second. */
uint64_t arp_probe(struct net_stack *s, uint16_t port, uint32_t ip_be, uint64_t now_ns);

/* An ARP packet at p->data (Ethernet header stripped) from ifc's port.
 * Takes p: it is answered in place or freed. */
void arp_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* What another core's arp_input learned (net_arp_seen_fn): updates an
 * entry of this stack's for ip_be on port if there is one (an incomplete
 * one is resolved and its queue sent), creates none. */
void arp_learn_remote(struct net_stack *s, uint16_t port, uint32_t ip_be, const uint8_t *mac, uint64_t now_ns);

/* Broadcast a gratuitous ARP request for the port's address (link up). */
void arp_announce(struct net_stack *s, struct net_iface *ifc);
/* A request turned into our reply in place (RFC 826): its sender becomes
 * the target, mac and ip_be the sender. */
void arp_make_reply(struct arp_hdr *a, const uint8_t mac[6], uint32_t ip_be);
/* A static entry for ip_be on port (what waited on it is sent); -1 when
 * the port has no IPv4 interface or the entry's set holds only static and
 * incomplete entries. */
int arp_add_static(struct net_stack *s, uint16_t port, uint32_t ip_be, const uint8_t mac[6]);

/* Retries, expiry, giving up. Returns the next deadline (UINT64_MAX: none). */
uint64_t arp_timer(struct net_stack *s, struct net_iface *ifc, uint64_t now_ns);

/* Forget every entry and free what waits on them. */
void arp_release(struct net_stack *s, struct net_iface *ifc);

/* Walk a port's entries: start with *idx = 0; false after the last. */
bool arp_entry_next(const struct net_stack *s, uint16_t port, uint32_t *idx, struct arp_info *out);

const char *arp_state_name(uint8_t state);

#endif
