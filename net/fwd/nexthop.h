/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop.h: next hops for the forwarding path (net/fwd/fwd.h).
 *
 * A route (route4.h, route6.h) maps a prefix to a next-hop index; the index
 * picks an entry here. The table is shared by every core and read-mostly:
 * one writer (the control plane) changes entries, readers on any core load
 * them without locks. An entry is one 64-bit word, so a reader sees it whole,
 * and the table's generation is bumped after every change.
 *
 * What a next hop resolves to on the wire (the gateway's MAC) is per core:
 * each core has its own ARP cache (struct net_stack), so each core keeps a
 * struct nexthop_cache of adjacencies: the 12 bytes of Ethernet addresses to
 * write in front of a datagram, the output port and its MTU. An adjacency is
 * filled from the core's ARP cache on first use and trusted until
 *   - NEXTHOP_ADJ_TTL_NS pass (the fill calls arp_lookup, which is what keeps
 *     a stale ARP entry refreshed while traffic uses it), or
 *   - the table's generation changes (a next hop was changed), or
 *   - this core's ARP input count changes: ARP input (arp_input, and
 *     arp_learn_remote for what another core's input learned) is the only
 *     way an ARP entry learns or changes a MAC, and it counts every packet
 *     it looks at (arp-rx-request, arp-rx-reply, arp-learned-remote), so
 *     their sum is a generation number for the MACs in the cache.
 * The fast path pays one compare per packet (now_ns < until_ns); the checks
 * of the two generations are once per burst. docs/fwd.md has the design. */
#ifndef NET_NEXTHOP_H
#define NET_NEXTHOP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "net.h"
#include "nexthop_group.h"
#include "route/route_common.h"

#define NEXTHOP_MAX 1024                 /* slots; index 0 is ROUTE_NH_NONE */
#define NEXTHOP_MIN_MTU 68               /* RFC 791: every link carries 68 */
#define NEXTHOP_ADJ_TTL_NS 1000000000ull /* an adjacency is rechecked this often */

enum nexthop_kind {
    NEXTHOP_FREE = 0,      /* unused: a route to it drops (fwd-bad-nexthop) */
    NEXTHOP_VIA,           /* out of port to gw_be; gw_be 0: the destination is on the link */
    NEXTHOP_BLACKHOLE,     /* drop silently (fwd-blackhole) */
    NEXTHOP_UNREACH,       /* drop, ICMP host unreachable (fwd-unreachable) */
    NEXTHOP_GROUP,         /* ECMP: group gw_be of the table's groups (nexthop_group.h) */
};

struct nexthop {
    uint8_t kind;          /* enum nexthop_kind */
    uint8_t port;          /* output port (netdev.index) */
    uint16_t mtu;          /* largest datagram; 0: the port's MTU */
    uint32_t gw_be;        /* gateway, network order; 0: directly connected */
};

/* The shared table. Entries are packed words (nexthop.c); read them with
 * nexthop_get. */
struct nexthop_table {
    _Atomic uint32_t gen;  /* bumped (release) after every change */
    uint32_t used;         /* writer: highest index in use + 1 */
    _Atomic uint64_t e[NEXTHOP_MAX];
    struct nh_groups groups;
};

/* Writer side (one core at a time). */
void nexthop_init(struct nexthop_table *t);
/* Set slot idx (1..NEXTHOP_MAX-1). -1: bad index, kind, port or MTU (below
 * NEXTHOP_MIN_MTU). Readers may use the old value for the rest of their
 * current burst. */
int nexthop_set(struct nexthop_table *t, uint32_t idx, const struct nexthop *nh);
/* The index of an entry equal to nh, else a free slot set to nh; 0 when the
 * table is full or nh is bad. What `route add P via GW` uses. */
uint32_t nexthop_add(struct nexthop_table *t, const struct nexthop *nh);
/* The slot of the ECMP group of these VIA slots (2..NH_GROUP_PATHS), made
 * if new (*made: the caller then holds each path for the group, and lets
 * go of them when it frees the slot); 0 when no group or slot is left. */
uint32_t nexthop_group_add(struct nexthop_table *t, const uint32_t *paths, unsigned n, bool *made);
/* Free slot idx. Remove the routes to it first, and free it once no core
 * can still be using it (nexthop_ref.h): a reader that looked a route up
 * before the routes went takes the old entry for the rest of its burst,
 * and an adjacency filled from it lasts until the generation changes. */
void nexthop_del(struct nexthop_table *t, uint32_t idx);

/* Readers, any core. An index out of range reads as NEXTHOP_FREE. */
struct nexthop nexthop_get(const struct nexthop_table *t, uint32_t idx);
static inline uint32_t nexthop_gen(const struct nexthop_table *t)
{
    return atomic_load_explicit(&t->gen, memory_order_acquire);
}
const char *nexthop_kind_name(uint8_t kind);

/* ---- One core's adjacencies ---- */

enum nexthop_adj_state {
    NEXTHOP_ADJ_SLOW = 0,  /* not for the fast path: unresolved, not VIA, tagged port */
    NEXTHOP_ADJ_MAC,       /* gateway resolved: write eth[] */
    NEXTHOP_ADJ_LINK,      /* connected: the MAC is the destination's (arp_lookup) */
    NEXTHOP_ADJ_GROUP,     /* ECMP: port is the group; a path's adjacency is the packet's */
};

#define NEXTHOP_ADJ_PATHS 6 /* a group's paths an adjacency holds */

struct nexthop_adj {
    union {
        uint8_t eth[12];   /* destination MAC (ADJ_MAC only), then our MAC */
        /* ADJ_GROUP of at most NEXTHOP_ADJ_PATHS paths (mtu of them):
         * path i's slot while it is live, 0 where the group decides
         * (nexthop_adj_pick) */
        uint16_t path[NEXTHOP_ADJ_PATHS];
    };
    uint16_t port;
    uint16_t mtu;          /* largest datagram out of port; ADJ_GROUP: the paths in path[], or 0 */
    uint8_t state;         /* enum nexthop_adj_state */
    uint8_t tagged;        /* port is a VLAN sub-interface: fwd_send_adj tags the frame */
    uint8_t plain;         /* ADJ_MAC, untagged, no output access list: a rewrite and the queue
                              alone (fwd_sync flushes the cache when a list changes) */
    uint64_t until_ns;     /* valid while now_ns < until_ns; 0: empty */
};
_Static_assert(sizeof(struct nexthop_adj) == 32, "two adjacencies a cache line");

struct nexthop_cache {
    const struct nexthop_table *t;
    uint32_t t_gen;        /* table generation the entries were filled in */
    uint32_t live_gen;     /* the groups' live_gen (nexthop_group.h) then */
    uint64_t arp_gen;      /* ARP input count they were filled after */
    uint32_t hi;           /* entries [1, hi) may be filled */
    struct nexthop_adj adj[NEXTHOP_MAX];
};

void nexthop_cache_init(struct nexthop_cache *c, const struct nexthop_table *t);

/* Forget every adjacency. */
void nexthop_cache_flush(struct nexthop_cache *c);

/* Fill adjacency idx (0 < idx < NEXTHOP_MAX) from the table and s's ARP
 * cache. */
const struct nexthop_adj *nexthop_cache_fill(struct nexthop_cache *c, struct net_stack *s,
                                             uint32_t idx, uint64_t now_ns);

/* The generation of s's ARP MACs (see the top of this file). */
static inline uint64_t nexthop_arp_gen(const struct net_stack *s)
{
    return s->ctr.arp_rx_request + s->ctr.arp_rx_reply + s->ctr.arp_learned_remote;
}

/* Once per burst, before nexthop_cache_get: forget every adjacency when
 * the table or s's ARP cache changed. */
static inline void nexthop_cache_check(struct nexthop_cache *c, const struct net_stack *s)
{
    uint32_t g = nexthop_gen(c->t), l = atomic_load_explicit(&c->t->groups.live_gen, memory_order_acquire);
    uint64_t a = nexthop_arp_gen(s);
    if (__builtin_expect(g != c->t_gen || l != c->live_gen || a != c->arp_gen, 0)) {
        nexthop_cache_flush(c);
        c->t_gen = g;
        c->live_gen = l;
        c->arp_gen = a;
    }
}

/* The path of ECMP group g (< NH_GROUP_MAX) for a flow of this hash. */
static inline uint32_t nexthop_group_pick(const struct nexthop_table *t, uint32_t g, uint32_t hash)
{
    return nh_group_pick(&t->groups.g[g % NH_GROUP_MAX], hash);
}

/* nexthop_group_pick through a group's adjacency a, an index below
 * NEXTHOP_MAX: the path read from a itself while it is live (what the
 * group would pick: hash-threshold over mtu paths), else the group's own
 * choice. The live paths as the adjacency was filled stand until the
 * groups' live_gen moves, which flushes the cache at the next burst
 * (nexthop_cache_check). */
static inline uint32_t nexthop_adj_pick(const struct nexthop_table *t, const struct nexthop_adj *a, uint32_t hash)
{
    uint32_t p = a->path[((uint64_t)hash * a->mtu) >> 32]; /* mtu 0 (a larger group): path[0], 0 */
    if (__builtin_expect(p != 0, 1))
        return p;
    p = nexthop_group_pick(t, a->port, hash);
    return p < NEXTHOP_MAX ? p : 0;
}

/* Adjacency idx (< NEXTHOP_MAX); index 0 (no route) is always SLOW. */
static inline const struct nexthop_adj *nexthop_cache_get(struct nexthop_cache *c, struct net_stack *s,
                                                          uint32_t idx, uint64_t now_ns)
{
    const struct nexthop_adj *a = &c->adj[idx];
    if (__builtin_expect(now_ns < a->until_ns, 1))
        return a;
    return nexthop_cache_fill(c, s, idx, now_ns);
}

#endif
