/* SPDX-License-Identifier: MIT */
/* bgp/bgp_decide.c: the decision process, RFC 4271 9.1.2: among a
 * prefix's eligible paths, the highest degree of preference (9.1.1,
 * LOCAL_PREF), then 9.1.2.2's tie-breaking as the RFC writes it, each
 * step removing paths from the candidate set. The MED step compares only
 * paths from the same neighbouring AS, so the steps are not one total
 * order on pairs of paths: a pairwise "better than" would make the answer
 * depend on the order the paths were compared in. Elimination over the
 * whole set does not. */
#include "bgp_rib_impl.h"

/* The steps that rank eligible paths, in the order they are applied. */
static const enum bgp_why steps[] = {
    BGP_WHY_LOCAL_PREF, BGP_WHY_AS_PATH, BGP_WHY_ORIGIN,    BGP_WHY_MED,
    BGP_WHY_EBGP,       BGP_WHY_IGP_COST, BGP_WHY_ROUTER_ID, BGP_WHY_PEER_ADDR,
};

/* A step's key for p: the lowest wins. */
static uint64_t step_key(const struct bgp_rib *r, const struct bgp_path *p, enum bgp_why step)
{
    const struct bgp_aset *a = p->a;
    switch (step) {
    case BGP_WHY_LOCAL_PREF: /* 9.1.1: the highest degree of preference */
        return UINT32_MAX - ((a->has & BGP_HAS_LOCAL_PREF) ? a->local_pref : BGP_LOCAL_PREF_DEFAULT);
    case BGP_WHY_AS_PATH: /* 9.1.2.2 a): the fewest ASes (an AS_SET counts one) */
        return a->path_len;
    case BGP_WHY_ORIGIN: /* 9.1.2.2 b): IGP < EGP < INCOMPLETE */
        return a->origin;
    case BGP_WHY_EBGP: /* 9.1.2.2 d): any eBGP path removes the iBGP ones */
        return r->peer[p->peer].ebgp ? 0 : 1;
    case BGP_WHY_IGP_COST: /* 9.1.2.2 e): the lowest interior cost to the next hop */
        return p->igp_cost;
    case BGP_WHY_ROUTER_ID: /* 9.1.2.2 f): the lowest BGP Identifier */
        return r->peer[p->peer].router_id;
    default:
        return 0;
    }
}

/* Keeps the paths with the lowest key; how many. */
static unsigned keep_lowest(const struct bgp_rib *r, struct bgp_path **c, unsigned n, enum bgp_why step)
{
    uint64_t key[BGP_PEERS_MAX], low = UINT64_MAX;
    for (unsigned i = 0; i < n; i++) {
        key[i] = step_key(r, c[i], step);
        if (key[i] < low)
            low = key[i];
    }
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (key[i] == low)
            c[m++] = c[i];
    return m;
}

/* RFC 4271 9.1.2.2 c): a path is removed when another one from the same
 * neighbouring AS has a lower MED; a missing MED is the lowest possible
 * (0). All removals are decided on the set as it was, then applied. */
static unsigned keep_lowest_med(struct bgp_path **c, unsigned n)
{
    uint32_t med[BGP_PEERS_MAX];
    bool beaten[BGP_PEERS_MAX];
    for (unsigned i = 0; i < n; i++)
        med[i] = (c[i]->a->has & BGP_HAS_MED) ? c[i]->a->med : 0;
    for (unsigned i = 0; i < n; i++) {
        beaten[i] = false;
        for (unsigned j = 0; j < n && !beaten[i]; j++)
            beaten[i] = c[j]->a->neigh_as == c[i]->a->neigh_as && med[j] < med[i];
    }
    unsigned m = 0;
    for (unsigned i = 0; i < n; i++)
        if (!beaten[i])
            c[m++] = c[i];
    return m;
}

static int addr_cmp(const struct bgp_peer_facts *a, const struct bgp_peer_facts *b)
{
    if (a->afi != b->afi)
        return a->afi < b->afi ? -1 : 1;
    return __builtin_memcmp(a->addr, b->addr, sizeof a->addr);
}

/* RFC 4271 9.1.2.2 g): the lowest peer address. Two sessions with one
 * address (a misconfiguration: one path per peer otherwise leaves no tie)
 * fall to the lower peer number, so the answer never depends on order. */
static unsigned keep_lowest_addr(const struct bgp_rib *r, struct bgp_path **c, unsigned n)
{
    unsigned low = 0;
    for (unsigned i = 1; i < n; i++) {
        int d = addr_cmp(&r->peer[c[i]->peer], &r->peer[c[low]->peer]);
        if (d < 0 || (d == 0 && c[i]->peer < c[low]->peer))
            low = i;
    }
    c[0] = c[low];
    return 1;
}

static bool holds(struct bgp_path *const *c, unsigned n, const struct bgp_path *p)
{
    for (unsigned i = 0; i < n; i++)
        if (c[i] == p)
            return true;
    return false;
}

/* bgp_decide, and the candidates left before the router ID's step in
 * tied[0..*ntied) when tied is not NULL. */
static struct bgp_path *decide(const struct bgp_rib *r, const struct bgp_route *rt, const struct bgp_path *track,
                               enum bgp_why *why_track, enum bgp_why *why_won, struct bgp_path **tied,
                               unsigned *ntied)
{
    struct bgp_path *c[BGP_PEERS_MAX], *local = NULL, *best = NULL;
    enum bgp_why wt = BGP_WHY_NONE, ww = BGP_WHY_NONE;
    bool tracking = false;
    unsigned n = 0;
    for (struct bgp_path *p = rt->paths; p; p = p->next) {
        /* RFC 4271 9 and 9.1.2: a path looping through this AS, or one
         * whose next hop does not resolve, is kept but never chosen. */
        if (p->a->loop || !p->reachable) {
            if (p == track)
                wt = p->a->loop ? BGP_WHY_AS_LOOP : BGP_WHY_UNREACHABLE;
            continue;
        }
        tracking |= p == track;
        if (p->peer == 0)
            local = p;
        if (n < BGP_PEERS_MAX) /* one path per peer: always */
            c[n++] = p;
    }
    if (local) {
        /* This router's own route (bgp network) is preferred above any
         * learned one: a degree of preference above all (9.1.1). */
        best = local;
        ww = BGP_WHY_LOCAL;
        if (tracking && track != local)
            wt = BGP_WHY_LOCAL;
    } else if (n == 1) {
        best = c[0];
        ww = BGP_WHY_ONLY;
    } else if (n > 1) {
        for (unsigned s = 0; s < sizeof steps / sizeof steps[0] && n > 1; s++) {
            if (steps[s] == BGP_WHY_ROUTER_ID && tied) {
                for (unsigned i = 0; i < n; i++)
                    tied[i] = c[i];
                *ntied = n;
            }
            if (steps[s] == BGP_WHY_MED)
                n = keep_lowest_med(c, n);
            else if (steps[s] == BGP_WHY_PEER_ADDR)
                n = keep_lowest_addr(r, c, n);
            else
                n = keep_lowest(r, c, n, steps[s]);
            if (tracking && !holds(c, n, track)) {
                wt = steps[s];
                tracking = false;
            }
            if (n == 1)
                ww = steps[s];
        }
        best = c[0];
    }
    if (why_track)
        *why_track = wt;
    if (why_won)
        *why_won = ww;
    return best;
}

struct bgp_path *bgp_decide(const struct bgp_rib *r, const struct bgp_route *rt, const struct bgp_path *track,
                            enum bgp_why *why_track, enum bgp_why *why_won)
{
    return decide(r, rt, track, why_track, why_won, NULL, NULL);
}

struct bgp_path *bgp_decide_multi(const struct bgp_rib *r, const struct bgp_route *rt,
                                  const struct bgp_path **multi, unsigned *nmulti)
{
    struct bgp_path *tied[BGP_PEERS_MAX];
    unsigned ntied = 0;
    struct bgp_path *best = decide(r, rt, NULL, NULL, NULL, tied, &ntied);
    *nmulti = 0;
    if (best == NULL)
        return NULL;
    multi[(*nmulti)++] = best;
    for (unsigned i = 0; i < ntied && *nmulti < r->multipath; i++) /* none when the best won before f) */
        if (tied[i] != best && tied[i]->a->neigh_as == best->a->neigh_as)
            multi[(*nmulti)++] = tied[i];
    return best;
}

void bgp_rib_set_multipath(struct bgp_rib *r, unsigned n)
{
    r->multipath = (uint8_t)(n < 1 ? 1 : n > BGP_MULTIPATH_MAX ? BGP_MULTIPATH_MAX : n);
}

unsigned bgp_rib_multipath(const struct bgp_rib *r, const struct bgp_route *rt,
                           const struct bgp_path *out[BGP_MULTIPATH_MAX])
{
    unsigned n;
    bgp_decide_multi(r, rt, out, &n);
    return n;
}

enum bgp_why bgp_rib_why(const struct bgp_rib *r, const struct bgp_route *rt, const struct bgp_path *p)
{
    if (!rt || !p)
        return BGP_WHY_NONE;
    enum bgp_why wt, ww;
    const struct bgp_path *best = bgp_decide(r, rt, p, &wt, &ww);
    return p == best ? ww : wt;
}

static const char *const why_names[] = {
    [BGP_WHY_NONE] = "none",
    [BGP_WHY_ONLY] = "only path",
    [BGP_WHY_LOCAL] = "local",
    [BGP_WHY_AS_LOOP] = "AS loop",
    [BGP_WHY_UNREACHABLE] = "next hop unreachable",
    [BGP_WHY_LOCAL_PREF] = "local preference",
    [BGP_WHY_AS_PATH] = "AS path length",
    [BGP_WHY_ORIGIN] = "origin",
    [BGP_WHY_MED] = "MED",
    [BGP_WHY_EBGP] = "eBGP over iBGP",
    [BGP_WHY_IGP_COST] = "IGP cost",
    [BGP_WHY_ROUTER_ID] = "router ID",
    [BGP_WHY_PEER_ADDR] = "peer address",
};

const char *bgp_why_name(enum bgp_why w)
{
    return (unsigned)w < sizeof why_names / sizeof why_names[0] ? why_names[w] : "?";
}
