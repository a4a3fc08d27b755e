/* SPDX-License-Identifier: MIT */
/* bgp/bgp_rib.h: the routing tables and the decision process (RFC 4271
 * 3.2, 9.1). Attribute sets are interned: one refcounted copy of each
 * distinct set, shared by every path that carries it. Each peer's
 * Adj-RIB-In is the paths it announced, one per prefix; the Loc-RIB is
 * each prefix's best path, chosen by 9.1's decision over the eligible ones.
 * The embedder hears of every best-path change (it installs the FIB entry
 * and exports) and resolves next hops over its connected and static
 * routes.
 *
 * Single-threaded: the caller serialises every call. Callbacks may read
 * the RIB but never change it. All memory comes from struct bgp_alloc. */
#ifndef BGP_BGP_RIB_H
#define BGP_BGP_RIB_H

#include "bgp.h"

#define BGP_PEERS_MAX 64 /* peer 0 is this router itself (bgp network) */

/* RFC 4271 9.1.1: the degree of preference is LOCAL_PREF. A path without
 * one gets this; for eBGP the import policy sets (or strips) LOCAL_PREF
 * before interning (RFC 4271 5.1.5: a received one is ignored). */
#define BGP_LOCAL_PREF_DEFAULT 100

/* What the decision needs of a peer. router_id is the BGP Identifier read
 * big-endian, so numeric order is the order 9.1.2.2 f) compares; addr is
 * the session's remote address (IPv4 in addr[0..3], the rest zero). */
struct bgp_peer_facts {
    uint32_t as;
    uint32_t router_id;
    bool ebgp;
    uint8_t afi;
    uint8_t addr[16];
};

/* An interned attribute set: read-only to everyone outside the RIB. The
 * AS path and the other attributes follow the struct, exactly as long as
 * they are (bgp_aset_asns/segs/other); bgp_aset_get_attrs rebuilds the
 * parsed form. */
struct bgp_aset {
    uint32_t hash, refs; /* hash: of the content, its place in the intern table */
    /* The content, hashed and compared as these bytes (bgp_aset.c): the
     * fields struct bgp_attrs has, those not in `has` zero. */
    uint32_t has, med, local_pref, aggregator_as;
    uint16_t nsegs, nasns, path_len, other_len;
    uint8_t origin;
    uint8_t nh4[4], aggregator_id[4];
    uint8_t nh6[16], nh6_ll[16];
    /* Derived when interned. */
    bool loop;         /* the AS_PATH holds the local AS (RFC 4271 9.1.2) */
    uint32_t neigh_as; /* RFC 4271 9.1.2.2 c)'s neighborAS */
    /* Next-hop resolution per family, good until bgp_rib_nexthops_changed. */
    uint32_t gen4, gen6, cost4, cost6;
    bool ok4, ok6;
    uint32_t asns[]; /* nasns ASNs, then nsegs segments, then other_len bytes */
};

static inline const struct bgp_as_seg *bgp_aset_segs(const struct bgp_aset *s)
{
    return (const struct bgp_as_seg *)(const void *)(s->asns + s->nasns);
}

static inline const uint8_t *bgp_aset_other(const struct bgp_aset *s)
{
    return (const uint8_t *)(s->asns + s->nasns) + s->nsegs * sizeof(struct bgp_as_seg);
}

/* One peer's path to a prefix: its entry in that peer's Adj-RIB-In. */
struct bgp_path {
    struct bgp_path *next;    /* the route's next path, in no order */
    const struct bgp_aset *a; /* holds a reference */
    uint32_t igp_cost;        /* to the next hop, from ops->resolve */
    uint16_t peer;
    bool reachable; /* next hop resolved (peer 0's always) */
};

/* A prefix with at least one path. */
struct bgp_route {
    struct bgp_prefix p; /* canonical: bits past len zero */
    uint32_t mp_sig;     /* with multipath: which paths share the best's rank (bgp_rib_multipath) */
    struct bgp_path *paths;
    struct bgp_path *best; /* NULL when no path is eligible */
};

struct bgp_rib_ops {
    /* Next-hop resolution over connected and static routes: true and *cost
     * if reachable. NULL: every next hop is reachable at cost 0. */
    bool (*resolve)(void *ctx, uint8_t afi, const uint8_t *nh, uint32_t *cost);
    /* The best path of r->p changed: another path object, or the same
     * peer's path with other attributes (best NULL: none left; old NULL:
     * there was none). old and r stay valid until the callback returns,
     * even when they are being removed. */
    void (*best_changed)(void *ctx, const struct bgp_route *r, const struct bgp_path *best,
                         const struct bgp_path *old);
    /* With multipath (bgp_rib_set_multipath): the paths equal to the best
     * changed while the best did not. NULL: not told. */
    void (*multipath_changed)(void *ctx, const struct bgp_route *r);
    void *ctx;
};

/* Per peer: paths in its Adj-RIB-In, those eligible (next hop reachable,
 * no AS loop), those chosen best. */
struct bgp_rib_peer_counts {
    uint32_t received, accepted, best;
};

struct bgp_rib_stats {
    uint64_t prefixes, paths, asets;
    uint64_t bytes; /* held from bgp_alloc: tables, pools, sets */
    uint64_t announces, withdraws, best_changes;
};

/* Routes and paths come from pools of fixed-size objects carved from
 * chunks (no per-object allocator header or rounding); freed objects are
 * reused, chunks go back at bgp_rib_fini. */
struct bgp_pool {
    void *chunks, *free;
    uint8_t *bump, *end;
    uint32_t size;
};

/* An open-addressed table (bgp_htab.c): the prefixes of a family, the
 * attribute sets. A slot keeps its object's hash beside it, so a probe
 * reads an object (a cache miss in a full table) only when the hash
 * matches, and growing never reads objects at all. */
struct bgp_hslot {
    void *o; /* NULL: empty */
    uint32_t hash;
};
struct bgp_htab {
    struct bgp_hslot *s;
    uint32_t mask, count;
};

struct bgp_rib {
    struct bgp_alloc al;
    struct bgp_rib_ops ops;
    uint32_t local_as, router_id;
    struct bgp_htab t[2]; /* routes: IPv4, IPv6 */
    struct bgp_htab sets; /* interned attribute sets */
    struct bgp_pool routes, paths;
    uint32_t nh_gen;
    uint8_t multipath; /* paths a prefix may use at once; 1: the best alone */
    uint64_t npaths, bytes, announces, withdraws, best_changes;
    struct bgp_peer_facts peer[BGP_PEERS_MAX];
    struct bgp_rib_peer_counts counts[BGP_PEERS_MAX];
};

/* 0, or -1 on no memory. Peer 0's facts are this router's (iBGP, local_as). */
int bgp_rib_init(struct bgp_rib *r, const struct bgp_alloc *a, const struct bgp_rib_ops *ops, uint32_t local_as,
                 uint32_t router_id);
/* Frees everything, sets the caller still holds included. */
void bgp_rib_fini(struct bgp_rib *r);
/* Set before the peer's first announce; changing them while it holds paths
 * reruns the decision where it has one. */
void bgp_rib_set_peer(struct bgp_rib *r, uint16_t peer, const struct bgp_peer_facts *f);

/* A reference to the interned copy of a's content (fields not in a->has do
 * not count), NULL on no memory or counts past bgp.h's limits. */
const struct bgp_aset *bgp_aset_intern(struct bgp_rib *r, const struct bgp_attrs *a);
void bgp_aset_hold(struct bgp_rib *r, const struct bgp_aset *s);
/* Drops a reference; the set is freed with its last. */
void bgp_aset_put(struct bgp_rib *r, const struct bgp_aset *s);
/* Back to the parsed form (export, show). */
void bgp_aset_get_attrs(const struct bgp_aset *s, struct bgp_attrs *out);

/* Inserts or replaces peer's path to p (the path holds its own reference
 * to s) and reruns the decision for p: 0, or -1 on no memory or a bad
 * peer or prefix (nothing changed then). */
int bgp_rib_announce(struct bgp_rib *r, uint16_t peer, const struct bgp_prefix *p, const struct bgp_aset *s);
/* 0, or 1 when peer had no path to p (nothing changed). */
int bgp_rib_withdraw(struct bgp_rib *r, uint16_t peer, const struct bgp_prefix *p);
/* Removes every path of peer, rerunning the decisions: how many. */
uint32_t bgp_rib_peer_down(struct bgp_rib *r, uint16_t peer);
/* Connected or static routes changed: every next hop resolved again, the
 * decision rerun where an answer (reachability or cost) changed. */
void bgp_rib_nexthops_changed(struct bgp_rib *r);

const struct bgp_route *bgp_rib_find(const struct bgp_rib *r, const struct bgp_prefix *p);
/* Every route of afi, in no order; fn must not change the RIB. */
void bgp_rib_walk(const struct bgp_rib *r, uint8_t afi, void (*fn)(void *ctx, const struct bgp_route *rt), void *ctx);

/* Why a path won or lost (show bgp route): the step of RFC 4271 9.1 that
 * decided it. */
enum bgp_why {
    BGP_WHY_NONE,        /* no decision: p is not rt's, or nothing is eligible */
    BGP_WHY_ONLY,        /* the only eligible path */
    BGP_WHY_LOCAL,       /* this router's own (peer 0) wins whenever eligible */
    BGP_WHY_AS_LOOP,     /* not eligible: the AS_PATH holds the local AS */
    BGP_WHY_UNREACHABLE, /* not eligible: the next hop does not resolve */
    BGP_WHY_LOCAL_PREF,  /* 9.1.1: degree of preference */
    BGP_WHY_AS_PATH,     /* 9.1.2.2 a) */
    BGP_WHY_ORIGIN,      /* 9.1.2.2 b) */
    BGP_WHY_MED,         /* 9.1.2.2 c) */
    BGP_WHY_EBGP,        /* 9.1.2.2 d) */
    BGP_WHY_IGP_COST,    /* 9.1.2.2 e) */
    BGP_WHY_ROUTER_ID,   /* 9.1.2.2 f) */
    BGP_WHY_PEER_ADDR,   /* 9.1.2.2 g) */
};
/* For rt->best: the step that left it alone (why it beat the runner-up);
 * for another path of rt: the step that removed it. */
enum bgp_why bgp_rib_why(const struct bgp_rib *r, const struct bgp_route *rt, const struct bgp_path *p);

/* Multipath: up to n (1..BGP_MULTIPATH_MAX) paths of a prefix forwarded
 * on at once, the best and those that tie with it through 9.1.2.2 e) (the
 * same degree of preference, AS_PATH length, origin, MED, eBGP or iBGP,
 * IGP cost: what only the router ID and peer address would break) from
 * the same neighbouring AS. Set before the first announce. */
#define BGP_MULTIPATH_MAX 16
void bgp_rib_set_multipath(struct bgp_rib *r, unsigned n);
/* rt's multipath set, the best first: how many (0: no best). */
unsigned bgp_rib_multipath(const struct bgp_rib *r, const struct bgp_route *rt,
                           const struct bgp_path *out[BGP_MULTIPATH_MAX]);
const char *bgp_why_name(enum bgp_why w);

void bgp_rib_peer_counts(const struct bgp_rib *r, uint16_t peer, struct bgp_rib_peer_counts *out);
void bgp_rib_stats(const struct bgp_rib *r, struct bgp_rib_stats *out);

#endif
