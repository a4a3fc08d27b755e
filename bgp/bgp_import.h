/* SPDX-License-Identifier: MIT */
/* bgp/bgp_import.h: an UPDATE, parsed and past RFC 7606's verdicts,
 * applied to the RIB for one peer: what it withdraws, then what it
 * announces where the import policy takes it (RFC 8212) and the next hop
 * is not ours; a treat-as-withdraw UPDATE withdraws what it announced
 * (RFC 7606 2). The kernel's speaker and the ingest benchmark share it. */
#ifndef BGP_BGP_IMPORT_H
#define BGP_BGP_IMPORT_H

#include "bgp_msg.h"
#include "bgp_rib.h"

struct bgp_import_counts {
    uint64_t announced, withdrawn; /* prefixes of each kind applied */
    uint64_t denied;               /* announced, not taken: no import policy */
    uint64_t nexthop_self;         /* announced with our own address as next hop: withdrawn instead */
    uint64_t nomem;                /* announcements the RIB had no memory for */
};

/* take: the peer's import policy takes its routes; self4, self6: our
 * addresses on its link (a next hop of ours is a loop). */
void bgp_import(struct bgp_rib *r, uint16_t peer, const struct bgp_update *u, bool take, const uint8_t *self4,
                const uint8_t *self6, struct bgp_import_counts *n);

/* Pacing the FIB (net/route's route4_defer, route6_defer): a burst of
 * best-path changes, BGP_FIB_BURST in one tick, starts deferring, so the
 * table takes them into its RIB only; deferring ends with one rebuild
 * when BGP_FIB_IDLE ticks bring fewer than BGP_FIB_TRICKLE, when as many
 * changes wait as the table holds prefixes (all the rebuilds of a
 * growing table then cost about twice the last), or after BGP_FIB_MAX
 * ticks at most: lookups lag by no more. A rebuild that failed (memory)
 * is tried again each tick. */
#define BGP_FIB_BURST 1000
#define BGP_FIB_TRICKLE 100
#define BGP_FIB_IDLE 10
#define BGP_FIB_MAX 200
struct bgp_fib_pace {
    bool deferring;
    uint32_t idle, ticks;
    uint64_t seen; /* changes counted at the last tick */
};
enum bgp_fib_act { BGP_FIB_KEEP, BGP_FIB_DEFER, BGP_FIB_REBUILD };
/* Once a tick: changes, the running count of changes made; deferred,
 * those the table holds back; prefixes, its size. */
enum bgp_fib_act bgp_fib_pace(struct bgp_fib_pace *p, uint64_t changes, uint64_t deferred, uint64_t prefixes);

#endif
