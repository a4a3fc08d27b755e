/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_bgp_fib.c: the BGP speaker's side of the route
 * tables. Next hops resolved over connected subnets and static routes
 * (RFC 4271 5.1.3, 9.1.2.1) and resolved again when those change; each
 * prefix's FIB entry set from its best path (with `bgp multipath`, or a
 * next hop behind an equal-cost static route: the equal-cost group of
 * their gateways); a burst of changes deferring the lookups' rebuild.
 * Core 0 alone, as the rest of the speaker (netsvc_bgp.c). */
#include "netsvc_bgp.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"

static uint32_t be32(const uint8_t *a) { return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | a[2] << 8 | a[3]; }

/* ---- next hops ---- */

/* A BGP next hop resolved (RFC 4271 5.1.3, 9.1.2.1): the gateway packets
 * towards it take (itself on a connected subnet, else a static route's,
 * whichever prefix is longer) and its cost (0 connected, 1 static). As
 * FRR does by default, the default route resolves nothing: a next hop
 * only it covers would send a peer's table into a default. Our own
 * address resolves nothing either (5.1.3: such a route is invalid).
 * Cached per next hop (a few a neighbour), and resolved again when
 * static routes change; a cache too full to take more is marked, and a
 * change then sets every route's FIB entry again. */
#define NH_CACHE 1024
struct nh_res {
    uint8_t nh[16], gw[16];
    uint32_t cost;
    int32_t st;      /* the static route it resolves over (netsvc.statics.r[st]: all its gateways), or -1 */
    uint32_t gw_sig; /* of those gateways: a change moves it */
    uint8_t afi;
    bool used, ok, moved;
};
static struct nh_res nh_cache[NH_CACHE];
static unsigned nh_cached;
static bool nh_uncached;

static bool nh_compute(uint8_t afi, const uint8_t *nh, uint8_t *gw, uint32_t *cost, int32_t *st_at,
                       uint32_t *gw_sig)
{
    *st_at = -1;
    *gw_sig = 0;
    bool v6 = afi == BGP_AFI_IPV6;
    uint8_t own[16] = {0}, plen = 0;
    uint32_t nh_be = 0;
    memcpy(&nh_be, nh, 4);
    int port = v6 ? netsvc6_port_for_gateway(nh) : netsvc_port_for_gateway(nh_be);
    if (port >= 0) {
        if (v6)
            netsvc6_port_addr(port, own, &plen);
        else {
            memcpy(own, &netsvc.addr[port].addr_be, 4);
            plen = netsvc.addr[port].prefix_len;
        }
    }
    const struct route_static *st = route_statics_match(&netsvc.statics, v6, nh);
    if (st && st->len > 0 && (port < 0 || st->len > plen)) {
        memcpy(gw, st->gw[0], 16);
        *cost = 1;
        *st_at = (int32_t)(st - netsvc.statics.r);
        for (unsigned i = 0; i < st->ngw; i++)
            for (unsigned b = 0; b < 16; b++)
                *gw_sig = (*gw_sig ^ st->gw[i][b]) * 16777619u;
        return true;
    }
    memset(gw, 0, 16);
    memcpy(gw, nh, v6 ? 16 : 4);
    *cost = 0;
    return port >= 0 && memcmp(own, gw, 16) != 0;
}

static struct nh_res *nh_slot(uint8_t afi, const uint8_t *nh)
{
    uint32_t h = afi;
    for (int i = 0; i < 16; i++)
        h = (h ^ nh[i]) * 16777619u; /* FNV-1a */
    for (uint32_t i = h;; i++) {
        struct nh_res *e = &nh_cache[i % NH_CACHE];
        if (!e->used || (e->afi == afi && memcmp(e->nh, nh, 16) == 0))
            return e;
    }
}

/* nh's resolution; NULL when the cache cannot keep it (out: the answer). */
static const struct nh_res *nh_resolve(uint8_t afi, const uint8_t *nh_in, struct nh_res *out)
{
    uint8_t nh[16] = {0};
    memcpy(nh, nh_in, afi == BGP_AFI_IPV6 ? 16 : 4);
    struct nh_res *e = nh_cached < NH_CACHE * 3 / 4 ? nh_slot(afi, nh) : NULL;
    if (e && e->used)
        return e;
    if (!e) {
        nh_uncached = true;
        e = out;
    }
    memset(e, 0, sizeof *e);
    e->afi = afi;
    memcpy(e->nh, nh, 16);
    e->ok = nh_compute(afi, nh, e->gw, &e->cost, &e->st, &e->gw_sig);
    if (e != out) {
        e->used = true;
        nh_cached++;
    }
    return e;
}

bool netsvc_bgp_resolve(void *ctx, uint8_t afi, const uint8_t *nh, uint32_t *cost)
{
    struct nh_res tmp;
    const struct nh_res *e = nh_resolve(afi, nh, &tmp);
    *cost = e->cost;
    return e->ok;
}

/* ---- the FIB, from the Loc-RIB's best paths ---- */

/* A static route of the prefix wins (its administrative distance is the
 * lower): BGP's stays in the RIB, out of the FIB, until it goes. */
bool netsvc_bgp_static_holds(const struct bgp_route *r)
{
    return route_statics_find(&netsvc.statics, r->p.afi == BGP_AFI_IPV6, r->p.addr, r->p.len) != NULL;
}

/* The gateways r is forwarded to, each once, the best's first: its best
 * path's, or with `bgp multipath` those of the paths that tie with it
 * (bgp_rib_multipath); a path resolved over an equal-cost static route
 * gives all of that route's. How many; 1 where it is the best's one
 * gateway (or an IPv6 path does not resolve: link-local next hops take
 * no group). */
static unsigned fib_gateways(const struct bgp_route *r, const struct bgp_path *best,
                             uint8_t gws[NH_GROUP_PATHS][16])
{
    const struct bgp_path *m[BGP_MULTIPATH_MAX] = {best};
    unsigned n = bgp_svc.multipath > 1 ? bgp_rib_multipath(&bgp_svc.rib, r, m) : 1, k = 0;
    for (unsigned i = 0; i < n; i++) {
        struct nh_res tmp;
        const struct nh_res *nh = nh_resolve(r->p.afi, r->p.afi == BGP_AFI_IPV4 ? m[i]->a->nh4 : m[i]->a->nh6, &tmp);
        if (!nh->ok)
            return 1;
        const struct route_static *st = nh->st >= 0 ? &netsvc.statics.r[nh->st] : NULL;
        for (unsigned g = 0; g < (st ? st->ngw : 1u); g++) {
            const uint8_t *gw = st ? st->gw[g] : nh->gw;
            bool seen = false;
            for (unsigned j = 0; j < k && !seen; j++)
                seen = memcmp(gws[j], gw, 16) == 0;
            if (!seen && k < NH_GROUP_PATHS)
                memcpy(gws[k++], gw, 16);
        }
    }
    return k > 1 ? k : 1;
}

void netsvc_bgp_fib_set(const struct bgp_route *r, const struct bgp_path *best)
{
    char err[96];
    int rc;
    bgp_svc.fib_changes++;
    if (netsvc_bgp_static_holds(r)) {
        bgp_svc.fib_static_wins++;
        return;
    }
    uint8_t gws[NH_GROUP_PATHS][16];
    unsigned ngw = fib_gateways(r, best, gws);
    if (ngw > 1) { /* equal-cost paths: one ECMP group (net/fwd/nexthop_group.h) */
        uint32_t be[NH_GROUP_PATHS];
        for (unsigned i = 0; i < ngw; i++)
            memcpy(&be[i], gws[i], 4);
        rc = r->p.afi == BGP_AFI_IPV4
                 ? netsvc_route_add_via(be32(r->p.addr), r->p.len, be, ngw, err, sizeof err)
                 : netsvc6_route_set_via(r->p.addr, r->p.len, (const uint8_t(*)[16])gws, ngw, err, sizeof err);
        if (rc == 0) {
            bgp_svc.fib_adds++;
            return;
        }
        bgp_svc.multipath_fallbacks++; /* no group to be had (the table full): the best alone */
    }
    struct nh_res tmp;
    const struct nh_res *nh = nh_resolve(r->p.afi, r->p.afi == BGP_AFI_IPV4 ? best->a->nh4 : best->a->nh6, &tmp);
    if (r->p.afi == BGP_AFI_IPV4) {
        uint32_t gw_be;
        memcpy(&gw_be, nh->gw, 4);
        rc = netsvc_route_add(be32(r->p.addr), r->p.len, gw_be, err, sizeof err);
    } else {
        rc = netsvc6_route_set(r->p.addr, r->p.len, nh->gw, -1, err, sizeof err);
        const struct bgp_svc_peer *p = &bgp_svc.peer[best->peer - 1];
        if (rc != 0 && !nh->cost && (best->a->has & BGP_HAS_MP_NH6_LL) && p->port >= 0) /* RFC 2545 3: on the peer's link */
            rc = netsvc6_route_set(r->p.addr, r->p.len, best->a->nh6_ll, p->port, err, sizeof err);
    }
    if (rc != 0 && bgp_svc.fib_errors++ < 8)
        kprintf("bgp: a route not installed: %s\n", err);
    bgp_svc.fib_adds += rc == 0;
}

void netsvc_bgp_fib_del(const struct bgp_route *r)
{
    char err[96];
    bgp_svc.fib_changes++;
    if (netsvc_bgp_static_holds(r))
        return;
    int rc = r->p.afi == BGP_AFI_IPV4 ? netsvc_route_del(be32(r->p.addr), r->p.len, err, sizeof err)
                                      : netsvc6_route_unset(r->p.addr, r->p.len, err, sizeof err);
    bgp_svc.fib_dels += rc == 0;
}

/* A route whose best path's next hop now takes another gateway: its FIB
 * entry again (the decision's callback covers those whose best changed).
 * With multipath, any route of more than one path: another path's may have. */
static void fib_follow(void *ctx, const struct bgp_route *r)
{
    const struct bgp_path *b = r->best;
    if (!b || b->peer == 0)
        return;
    struct nh_res tmp;
    const struct nh_res *nh = nh_resolve(r->p.afi, r->p.afi == BGP_AFI_IPV4 ? b->a->nh4 : b->a->nh6, &tmp);
    if (*(const bool *)ctx || nh->moved || (bgp_svc.multipath > 1 && r->paths && r->paths->next))
        netsvc_bgp_fib_set(r, b);
}

/* The paths that tie with the best changed (bgp multipath): its group again. */
void netsvc_bgp_multipath_changed(void *ctx, const struct bgp_route *r)
{
    if (r->best && r->best->peer != 0)
        netsvc_bgp_fib_set(r, r->best);
}

void netsvc_bgp_routes_changed(bool v6, const uint8_t *addr, unsigned len)
{
    if (!bgp_svc.started)
        return;
    bool all = nh_uncached;
    unsigned moved = 0;
    for (unsigned i = 0; i < NH_CACHE; i++) {
        struct nh_res *e = &nh_cache[i];
        if (!e->used)
            continue;
        struct nh_res was = *e;
        e->ok = nh_compute(e->afi, e->nh, e->gw, &e->cost, &e->st, &e->gw_sig);
        e->moved = e->ok != was.ok || e->cost != was.cost || memcmp(e->gw, was.gw, 16) != 0 || e->gw_sig != was.gw_sig;
        moved += e->moved;
    }
    if (moved || all) {
        struct bgp_rib_stats st;
        bgp_rib_stats(&bgp_svc.rib, &st);
        if (!bgp_svc.pace.deferring && st.prefixes > BGP_FIB_BURST)
            netsvc_route_defer(true); /* one rebuild at the next tick (pace_fib) */
        nh_uncached = false;
        bgp_rib_nexthops_changed(&bgp_svc.rib); /* reachability and cost: the decisions again */
        bgp_rib_walk(&bgp_svc.rib, BGP_AFI_IPV4, fib_follow, &all);
        bgp_rib_walk(&bgp_svc.rib, BGP_AFI_IPV6, fib_follow, &all);
        for (unsigned i = 0; i < NH_CACHE; i++)
            nh_cache[i].moved = false;
        bgp_svc.nh_changes++;
    }
    if (len <= (v6 ? 128u : 32u)) { /* that prefix's static route went: BGP's comes back */
        struct bgp_prefix x = {.afi = v6 ? BGP_AFI_IPV6 : BGP_AFI_IPV4, .len = (uint8_t)len};
        memcpy(x.addr, addr, v6 ? 16 : 4);
        const struct bgp_route *r = bgp_rib_find(&bgp_svc.rib, &x);
        if (r && r->best && r->best->peer != 0 && !netsvc_bgp_static_holds(r))
            netsvc_bgp_fib_set(r, r->best);
    }
}

/* Once a tick: a burst of changes defers the FIB's lookups and ends with
 * one rebuild (bgp_fib_pace). */
void netsvc_bgp_pace_fib(void)
{
    struct bgp_rib_stats st;
    bgp_rib_stats(&bgp_svc.rib, &st);
    switch (bgp_fib_pace(&bgp_svc.pace, bgp_svc.fib_changes, netsvc_route_deferred(), st.prefixes)) {
    case BGP_FIB_DEFER:
        netsvc_route_defer(true);
        break;
    case BGP_FIB_REBUILD:
        if (netsvc_route_defer(false) != 0)
            kprintf("bgp: the route tables could not be rebuilt (memory): lookups lag\n");
        bgp_svc.fib_rebuilds++;
        break;
    default:
        break;
    }
}
