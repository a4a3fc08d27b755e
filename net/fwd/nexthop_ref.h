/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop_ref.h: reference counts on next-hop slots, and freeing a
 * slot only once no core can still use it.
 *
 * A slot (an index into nexthop.h's table, or nexthop6.h's) counts the
 * routes that point at it, plus holds the embedder takes (a connected
 * subnet's next hop is held for good). When the count falls to zero the
 * slot is not freed at once: another core may have looked a route up just
 * before it went and still use the entry for the rest of its burst. The
 * put is stamped instead, and the slot freed by a later reclaim that covers
 * the stamp, with the same quiescent-state rule as route-table memory
 * (route.h): the writer seals the stamps after a change, and reclaims up to
 * the seal once every core has passed a quiescent point since
 * (kernel/netsvc/netsvc_route.c). Until then the entry stays as it was, so
 * a route added through the same gateway meanwhile takes the slot back. A bulk
 * load holds its puts until its table is published (nexthop_ref_load_end).
 *
 * Writer only (the control plane): readers never look here. */
#ifndef NET_NEXTHOP_REF_H
#define NET_NEXTHOP_REF_H

#include <stdbool.h>
#include <stdint.h>

#include "nexthop.h"
#include "route/route4.h"
#include "route/route6.h"

#define NEXTHOP_REF_MAX NEXTHOP_MAX /* slots; the IPv6 table has fewer */

struct nexthop_ref {
    uint32_t slots;                     /* indexes 1..slots-1 are counted */
    uint32_t waiting;                   /* slots at zero, not yet freed */
    uint64_t stamp;                     /* what a put that reaches zero is stamped with now */
    uint32_t count[NEXTHOP_REF_MAX];    /* routes and holds */
    uint64_t zero_at[NEXTHOP_REF_MAX];  /* stamp of the put that left it at zero; 0: not waiting */
    uint32_t held[NEXTHOP_REF_MAX];     /* a bulk load's puts, until its table is published */
};

/* slots: the table's size (at most NEXTHOP_REF_MAX). */
void nexthop_ref_init(struct nexthop_ref *r, uint32_t slots);
/* One more route or hold on idx; 0 and indexes out of range are ignored. */
void nexthop_ref_get(struct nexthop_ref *r, uint32_t idx);
/* One fewer; at zero, idx waits for a reclaim past the next seal. */
void nexthop_ref_put(struct nexthop_ref *r, uint32_t idx);
/* A route moved from prev_nh to nh (either may be ROUTE_NH_NONE): a
 * route_set_fn for route4_load_text and route6_load_text, ctx the
 * struct nexthop_ref. nh is counted at once; prev_nh's put is held until
 * nexthop_ref_load_end, since the table readers see is the old one, whose
 * routes go through prev_nh, until the load rebuilds it. */
void nexthop_ref_set(void *ctx, uint32_t nh, uint32_t prev_nh);
/* The load is over: published (route_load_stats.published), the held puts
 * are made; else the old table stays in use and they are dropped, leaving
 * those slots counted for good (a slot in use must never be freed). */
void nexthop_ref_load_end(struct nexthop_ref *r, bool published);
uint32_t nexthop_ref_count(const struct nexthop_ref *r, uint32_t idx);
/* True while idx is at zero and not yet freed. */
bool nexthop_ref_waiting(const struct nexthop_ref *r, uint32_t idx);

/* Add or replace addr/len with next hop nh (ROUTE_NH_NONE: delete it) and
 * count it: the route's old next hop, if any, loses a reference. nh is
 * counted before the change, so a slot just made for it and left unused
 * (the change failed) waits to be freed like any other. What route4_add or
 * route4_del returns. */
int nexthop_ref_route4(struct nexthop_ref *r, struct route4 *t, uint32_t addr, unsigned len, uint32_t nh);
int nexthop_ref_route6(struct nexthop_ref *r, struct route6 *t, const uint8_t addr[16], unsigned len,
                       uint32_t nh);

/* A stamp covering every put so far; later puts are stamped past it. Take
 * it after the change that dropped the routes, before the quiescent epoch. */
uint64_t nexthop_ref_seal(struct nexthop_ref *r);
/* Free, by free_fn(ctx, idx), every slot that fell to zero with a stamp
 * up to sealed and is still at zero: call it once every core has passed a
 * quiescent point after the seal. */
void nexthop_ref_reclaim(struct nexthop_ref *r, uint64_t sealed, void (*free_fn)(void *ctx, uint32_t idx),
                         void *ctx);

#endif
