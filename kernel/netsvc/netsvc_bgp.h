/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_bgp.h: what the BGP service's files share
 * (netsvc_bgp.c runs the sessions on core 0, netsvc_bgp_fib.c feeds the
 * route tables, netsvc_bgp_cmds.c holds the `bgp` statements and the
 * console). The speaker's parts are bgp/'s. */
#ifndef KERNEL_NETSVC_BGP_H
#define KERNEL_NETSVC_BGP_H

#include "bgp/bgp_fsm.h"
#include "bgp/bgp_import.h"
#include "bgp/bgp_rib.h"
#include "netsvc_impl.h"

#define BGP_SVC_PEERS 32      /* neighbours (RIB peers 1..32) */
#define BGP_SVC_NETWORKS 64   /* `bgp network` prefixes */
#define BGP_EXPORT_QUEUE 4096          /* a peer's queue at first; it doubles as it must, */
#define BGP_EXPORT_QUEUE_MAX (1u << 22) /* up to this (past it, Cease: out of resources) */

/* Counters of a neighbour the speaker keeps beside its session's. */
struct bgp_svc_counts {
    uint64_t updates_in, updates_out, prefixes_out, withdrawals_out;
    struct bgp_import_counts in; /* prefixes announced, withdrawn, denied (RFC 8212), ... */
    uint64_t max_prefix_hits;    /* sessions ended for max-prefix (RFC 4486 Cease 1) */
    uint64_t export_overflows;   /* sessions reset: no memory for what it was to be sent */
};

struct bgp_export_msg;

struct bgp_svc_peer {
    bool v6;                     /* the session's address family */
    uint8_t addr[16];            /* IPv4 in [0..3] */
    uint32_t as;
    uint16_t hold_s;
    bool passive;
    int8_t import_cfg, export_cfg; /* as configured: 1 all, 0 none, -1 not said */
    bool import_all, export_all; /* in force: RFC 8212 defaults eBGP none, iBGP all */
    uint32_t max_prefix;         /* 0: no limit */
    uint16_t rib_peer;           /* 1..BGP_SVC_PEERS */
    int port;                    /* the port facing it (-1: none yet) */
    uint8_t self4[4], self6[16], self6_ll[16]; /* our next hops towards it */
    struct bgp_fsm fsm;
    struct bgp_svc_counts n;
    /* what waits to go to it, sent as TCP takes more: the prefixes of a
     * whole table (new session, route refresh) as they were, End-of-RIB,
     * then those whose best changed since (a ring that grows) */
    struct bgp_prefix *snap, *q;
    uint32_t snap_n, snap_at, snap_cap;
    uint32_t q_head, q_n, q_cap;
    bool eor_due;
    bool overflow;               /* no memory for the above: reset at the next tick */
    struct bgp_export_msg *xm;   /* the UPDATE being built for it */
    struct tcp_conn *pending;    /* our open, until it connects or fails */
};

struct bgp_svc {
    bool configured, started;
    uint32_t as, router_id;      /* router_id host order; 0: the lowest IPv4 address */
    uint8_t multipath;           /* `bgp multipath N`: paths a prefix forwards on (0, 1: the best) */
    unsigned npeers, nnetworks;
    struct bgp_svc_peer peer[BGP_SVC_PEERS];
    struct bgp_prefix network[BGP_SVC_NETWORKS];
    struct bgp_rib rib;
    uint64_t fib_adds, fib_dels, fib_errors, fib_changes, fib_rebuilds;
    uint64_t fib_static_wins; /* best paths kept out of the FIB: a static route of the prefix */
    uint64_t multipath_fallbacks; /* equal paths installed as the best alone: no ECMP group to be had */
    uint64_t nh_changes;      /* static routes changed how next hops resolve */
    struct bgp_fib_pace pace;    /* bursts into the FIB (bgp/bgp_import.h) */
};

extern struct bgp_svc bgp_svc;

/* netsvc_bgp.c */
void netsvc_bgp_start(void);                       /* core 0, once the stacks run */
bool netsvc_bgp_clear(struct bgp_svc_peer *p);    /* `clear bgp ADDR`: Cease, then up again; false: not running */
/* netsvc_bgp_fib.c: a static route of r's prefix keeps BGP's out of the
 * FIB (static_holds); a next hop's resolution (the RIB's resolve op), a
 * prefix's FIB entry set from its best path (and the paths that tie with
 * it) or deleted, the multipath set changed, and once a tick the FIB's
 * pacing (bgp_fib_pace). */
bool netsvc_bgp_static_holds(const struct bgp_route *r);
bool netsvc_bgp_resolve(void *ctx, uint8_t afi, const uint8_t *nh, uint32_t *cost);
void netsvc_bgp_fib_set(const struct bgp_route *r, const struct bgp_path *best);
void netsvc_bgp_fib_del(const struct bgp_route *r);
void netsvc_bgp_multipath_changed(void *ctx, const struct bgp_route *r);
void netsvc_bgp_pace_fib(void);
/* netsvc_bgp_cmds.c */
void netsvc_bgp_init(void);                        /* the statements and commands */
struct bgp_svc_peer *netsvc_bgp_peer_by_addr(bool v6, const uint8_t *addr);

#endif
