/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop6.h: the IPv6 next hops a route6 next-hop index picks, shared
 * by every core's fast path (fwd6.c) and stack hook
 * (kernel/netsvc/netsvc_route6.c).
 *
 * One writer (the control plane) sets and frees slots; readers on any core
 * read entries without locks. An entry (17 bytes) cannot be loaded whole
 * as nexthop.h's words are, so it is never written while a reader may read
 * it: a slot is set while no route points at it, before the route that
 * uses it is published (route_fib.h: one release store, which lookups
 * load with acquire), and freed only once the routes to it are gone and every
 * core has passed a quiescent point since (nexthop_ref.h). A reader reads
 * an entry only for an index its own lookup just gave, in the same burst.
 * A free entry (and one never set) reads as no next hop: its port is
 * FWD_NH6_FREE, which no port has.
 *
 * What a core derives from an entry and keeps across bursts (fwd6.c's
 * adjacencies) it forgets when gen changes, which it reads after its
 * lookup: a route that the lookup found through a slot set since is then
 * seen with the slot's new gen. */
#ifndef NET_FWD_NH6_H
#define NET_FWD_NH6_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nexthop_group.h"

#define FWD_NH6_MAX 256    /* slots; index 0 is ROUTE_NH_NONE */
#define FWD_NH6_FREE 0xff  /* the port of a free slot */
#define FWD_NH6_GROUP 0xfe /* the port of an ECMP group's slot: gw[0] is the group */

struct fwd_nh6 {
    uint8_t port;
    uint8_t gw[16];                      /* all zero: the destination is on the link */
};

struct fwd_nh6_table {
    _Atomic uint32_t gen;                /* bumped (release) after a slot is set or freed */
    uint32_t used;                       /* writer: highest slot set + 1 */
    struct fwd_nh6 e[FWD_NH6_MAX];
    struct nh_groups groups;
};

/* Writer side (one core at a time). */
void fwd_nh6_init(struct fwd_nh6_table *t);
/* Set slot idx (1..FWD_NH6_MAX-1) to port and gw: only a slot no route
 * points at, and none has since the last reclaim (see above). -1: bad
 * index or port. */
int fwd_nh6_set(struct fwd_nh6_table *t, uint32_t idx, uint8_t port, const uint8_t gw[16]);
/* The slot of (port, gw), else a free slot set to it; 0 when the table is
 * full or the port bad. */
uint32_t fwd_nh6_add(struct fwd_nh6_table *t, uint8_t port, const uint8_t gw[16]);
/* As nexthop_group_add (nexthop.h), for IPv6 slots. */
uint32_t fwd_nh6_group_add(struct fwd_nh6_table *t, const uint32_t *paths, unsigned n, bool *made);
/* Free slot idx: its routes are gone and no core can still read it. */
void fwd_nh6_del(struct fwd_nh6_table *t, uint32_t idx);

/* Readers, any core: idx's entry, NULL for a free slot or an index out of
 * range. */
static inline const struct fwd_nh6 *fwd_nh6_get(const struct fwd_nh6_table *t, uint32_t idx)
{
    if (idx >= FWD_NH6_MAX || t->e[idx].port == FWD_NH6_FREE)
        return NULL;
    return &t->e[idx];
}
/* The path (a slot) of the group e (port FWD_NH6_GROUP) for a flow of
 * this hash. */
static inline uint32_t fwd_nh6_pick(const struct fwd_nh6_table *t, const struct fwd_nh6 *e, uint32_t hash)
{
    return nh_group_pick(&t->groups.g[e->gw[0] % NH_GROUP_MAX], hash);
}
static inline uint32_t fwd_nh6_gen(const struct fwd_nh6_table *t)
{
    return atomic_load_explicit(&t->gen, memory_order_acquire);
}

#endif
