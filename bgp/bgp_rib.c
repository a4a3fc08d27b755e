/* SPDX-License-Identifier: MIT */
/* bgp/bgp_rib.c: the prefix tables and the RIB's operations. A prefix is
 * a route in an open-addressed hash table per family (key: length and
 * address bytes), its paths a short list (one per peer that announced
 * it). Every change reruns the decision for its prefix (bgp_decide.c) and
 * tells the embedder when the best path changed. Routes and paths come
 * from pools (bgp_pool.c): a full table is a million of each. */
#include "bgp_rib_impl.h"

/* ---- prefixes and the tables -------------------------------------------- */

/* k = p with every bit past len zero; false for a bad family or length. */
static bool canon(struct bgp_prefix *k, const struct bgp_prefix *p)
{
    unsigned max = p->afi == BGP_AFI_IPV4 ? 32 : p->afi == BGP_AFI_IPV6 ? 128 : 0;
    if (!max || p->len > max)
        return false;
    __builtin_memset(k, 0, sizeof *k);
    k->afi = p->afi;
    k->len = p->len;
    unsigned full = p->len / 8u, rest = p->len % 8u;
    __builtin_memcpy(k->addr, p->addr, full);
    if (rest)
        k->addr[full] = p->addr[full] & (uint8_t)(0xffu << (8 - rest));
    return true;
}

/* One table per family, so the family is not hashed; an IPv4 address
 * fills the low half of the first word, its length goes above. */
static uint32_t prefix_hash(const struct bgp_prefix *k)
{
    uint64_t a, b;
    __builtin_memcpy(&a, k->addr, 8);
    if (k->afi == BGP_AFI_IPV4)
        return (uint32_t)bgp_mix64(a ^ ((uint64_t)k->len << 48));
    __builtin_memcpy(&b, k->addr + 8, 8);
    return (uint32_t)bgp_mix64(a ^ bgp_mix64(b ^ k->len));
}

static struct bgp_htab *table_of(struct bgp_rib *r, uint8_t afi)
{
    return &r->t[afi == BGP_AFI_IPV6];
}

static struct bgp_route *route_at(const struct bgp_htab *t, uint32_t i)
{
    return t->s[i].o;
}

/* The slot holding k's route, or the empty one where it would go. */
static uint32_t rt_slot(const struct bgp_htab *t, const struct bgp_prefix *k, uint32_t h)
{
    for (uint32_t i = h & t->mask;; i = (i + 1) & t->mask) {
        const struct bgp_route *rt = route_at(t, i);
        if (!rt || (t->s[i].hash == h && rt->p.len == k->len && __builtin_memcmp(rt->p.addr, k->addr, 16) == 0))
            return i;
    }
}

/* ---- paths, decisions ---------------------------------------------------- */

static void path_resolve(struct bgp_rib *r, struct bgp_path *p, uint8_t afi)
{
    if (p->peer == 0) {
        /* This router's own route: nothing to resolve, nowhere to forward. */
        p->reachable = true;
        p->igp_cost = 0;
        return;
    }
    p->reachable = bgp_aset_resolve(r, p->a, afi, &p->igp_cost);
}

static void count_path(struct bgp_rib *r, const struct bgp_path *p, int d)
{
    r->counts[p->peer].received += (uint32_t)d;
    if (bgp_path_eligible(p))
        r->counts[p->peer].accepted += (uint32_t)d;
    r->npaths += (uint64_t)(int64_t)d;
}

/* Reruns the decision for rt and tells the embedder if the best changed.
 * old (the previous best) must still be allocated. */
static void redecide(struct bgp_rib *r, struct bgp_route *rt)
{
    struct bgp_path *old = rt->best, *best;
    uint32_t sig = 0;
    if (r->multipath > 1) { /* which paths tie with the best: a mix of their addresses, in any order */
        const struct bgp_path *multi[BGP_MULTIPATH_MAX];
        unsigned n;
        best = bgp_decide_multi(r, rt, multi, &n);
        for (unsigned i = 0; i < n; i++)
            sig += (uint32_t)(((uintptr_t)multi[i] * 0x9e3779b97f4a7c15ull) >> 32);
    } else {
        best = bgp_decide(r, rt, NULL, NULL, NULL);
    }
    bool mp_moved = sig != rt->mp_sig;
    rt->mp_sig = sig;
    if (best == old) {
        if (mp_moved && r->ops.multipath_changed)
            r->ops.multipath_changed(r->ops.ctx, rt);
        return;
    }
    rt->best = best;
    if (old)
        r->counts[old->peer].best--;
    if (best)
        r->counts[best->peer].best++;
    r->best_changes++;
    if (r->ops.best_changed)
        r->ops.best_changed(r->ops.ctx, rt, best, old);
}

static void path_free(struct bgp_rib *r, struct bgp_path *p)
{
    bgp_aset_put(r, p->a);
    bgp_pool_put(&r->paths, p);
}

/* Takes *pp out of its route, reruns the decision, frees the path; the
 * route is left in its table even when it has no path now. */
static void drop_path(struct bgp_rib *r, struct bgp_route *rt, struct bgp_path **pp)
{
    struct bgp_path *p = *pp;
    *pp = p->next;
    count_path(r, p, -1);
    redecide(r, rt);
    path_free(r, p);
}

static void route_free(struct bgp_rib *r, struct bgp_htab *t, uint32_t slot)
{
    struct bgp_route *rt = route_at(t, slot);
    bgp_htab_remove(t, slot);
    bgp_pool_put(&r->routes, rt);
}

static struct bgp_path **path_link(struct bgp_route *rt, uint16_t peer)
{
    struct bgp_path **pp = &rt->paths;
    while (*pp && (*pp)->peer != peer)
        pp = &(*pp)->next;
    return pp;
}

/* ---- the API ---------------------------------------------------------------- */

int bgp_rib_init(struct bgp_rib *r, const struct bgp_alloc *a, const struct bgp_rib_ops *ops, uint32_t local_as,
                 uint32_t router_id)
{
    __builtin_memset(r, 0, sizeof *r);
    r->al = *a;
    if (ops)
        r->ops = *ops;
    r->local_as = local_as;
    r->router_id = router_id;
    r->nh_gen = 1;
    r->multipath = 1;
    r->routes.size = sizeof(struct bgp_route);
    r->paths.size = sizeof(struct bgp_path);
    r->peer[0].as = local_as;
    r->peer[0].router_id = router_id;
    if (bgp_htab_init(r, &r->t[0]) || bgp_htab_init(r, &r->t[1]) || bgp_htab_init(r, &r->sets)) {
        bgp_rib_fini(r);
        return -1;
    }
    return 0;
}

void bgp_rib_fini(struct bgp_rib *r)
{
    /* Routes and paths live in the pools: no walk needed. */
    bgp_htab_fini(r, &r->t[0]);
    bgp_htab_fini(r, &r->t[1]);
    bgp_pool_fini(r, &r->routes);
    bgp_pool_fini(r, &r->paths);
    bgp_aset_table_fini(r);
    r->npaths = 0;
}

void bgp_rib_set_peer(struct bgp_rib *r, uint16_t peer, const struct bgp_peer_facts *f)
{
    if (peer >= BGP_PEERS_MAX)
        return;
    r->peer[peer] = *f;
    if (r->counts[peer].received == 0)
        return;
    for (unsigned t = 0; t < 2; t++)
        for (uint32_t i = 0; i <= r->t[t].mask; i++) {
            struct bgp_route *rt = route_at(&r->t[t], i);
            if (rt && *path_link(rt, peer))
                redecide(r, rt);
        }
}

int bgp_rib_announce(struct bgp_rib *r, uint16_t peer, const struct bgp_prefix *p, const struct bgp_aset *s)
{
    struct bgp_prefix k;
    if (peer >= BGP_PEERS_MAX || !s || !canon(&k, p))
        return -1;
    struct bgp_htab *t = table_of(r, k.afi);
    uint32_t h = prefix_hash(&k);
    struct bgp_route *rt = route_at(t, rt_slot(t, &k, h));
    struct bgp_path **pp = NULL, *old = NULL;
    if (rt) {
        pp = path_link(rt, peer);
        old = *pp;
        if (old && old->a == s) { /* the same again: nothing changes */
            r->announces++;
            return 0;
        }
    } else if (!bgp_htab_room(r, t)) {
        return -1;
    }
    struct bgp_path *np = bgp_pool_get(r, &r->paths);
    if (!np)
        return -1;
    if (!rt) {
        rt = bgp_pool_get(r, &r->routes);
        if (!rt) {
            bgp_pool_put(&r->paths, np);
            return -1;
        }
        rt->p = k;
        bgp_htab_put(t, rt, h);
        pp = &rt->paths;
    }
    np->a = s;
    bgp_aset_hold(r, s);
    np->peer = peer;
    path_resolve(r, np, k.afi);
    /* A replaced path keeps its place in the list; it stays allocated
     * through the decision so best_changed can see it as old. */
    if (old) {
        np->next = old->next;
        count_path(r, old, -1);
    }
    *pp = np;
    count_path(r, np, 1);
    r->announces++;
    redecide(r, rt);
    if (old)
        path_free(r, old);
    return 0;
}

int bgp_rib_withdraw(struct bgp_rib *r, uint16_t peer, const struct bgp_prefix *p)
{
    struct bgp_prefix k;
    if (peer >= BGP_PEERS_MAX || !canon(&k, p))
        return 1;
    struct bgp_htab *t = table_of(r, k.afi);
    uint32_t slot = rt_slot(t, &k, prefix_hash(&k));
    struct bgp_route *rt = route_at(t, slot);
    if (!rt)
        return 1;
    struct bgp_path **pp = path_link(rt, peer);
    if (!*pp)
        return 1;
    drop_path(r, rt, pp);
    r->withdraws++;
    if (!rt->paths)
        route_free(r, t, slot);
    return 0;
}

uint32_t bgp_rib_peer_down(struct bgp_rib *r, uint16_t peer)
{
    uint32_t n = 0;
    if (peer >= BGP_PEERS_MAX || r->counts[peer].received == 0)
        return 0;
    for (unsigned ti = 0; ti < 2; ti++) {
        struct bgp_htab *t = &r->t[ti];
        for (uint32_t i = 0; i <= t->mask; i++) {
            /* A removal moves a later route into slot i: look again. One
             * from past the wrap may come twice; it has no path of peer. */
            struct bgp_route *rt;
            while ((rt = route_at(t, i)) != NULL) {
                struct bgp_path **pp = path_link(rt, peer);
                if (*pp) {
                    drop_path(r, rt, pp);
                    n++;
                }
                if (rt->paths)
                    break;
                route_free(r, t, i);
            }
        }
    }
    r->withdraws += n;
    return n;
}

void bgp_rib_nexthops_changed(struct bgp_rib *r)
{
    if (++r->nh_gen == 0) /* every cached answer is stale again */
        r->nh_gen = 1;
    for (unsigned ti = 0; ti < 2; ti++) {
        struct bgp_htab *t = &r->t[ti];
        uint8_t afi = ti ? BGP_AFI_IPV6 : BGP_AFI_IPV4;
        for (uint32_t i = 0; i <= t->mask; i++) {
            struct bgp_route *rt = route_at(t, i);
            if (rt) {
                bool changed = false;
                for (struct bgp_path *p = rt->paths; p; p = p->next) {
                    bool was = p->reachable;
                    uint32_t cost = p->igp_cost;
                    count_path(r, p, -1);
                    path_resolve(r, p, afi);
                    count_path(r, p, 1);
                    changed |= was != p->reachable || cost != p->igp_cost;
                }
                if (changed)
                    redecide(r, rt);
            }
        }
    }
}

const struct bgp_route *bgp_rib_find(const struct bgp_rib *r, const struct bgp_prefix *p)
{
    struct bgp_prefix k;
    if (!canon(&k, p))
        return NULL;
    const struct bgp_htab *t = &r->t[k.afi == BGP_AFI_IPV6];
    return route_at(t, rt_slot(t, &k, prefix_hash(&k)));
}

void bgp_rib_walk(const struct bgp_rib *r, uint8_t afi, void (*fn)(void *ctx, const struct bgp_route *rt), void *ctx)
{
    if (afi != BGP_AFI_IPV4 && afi != BGP_AFI_IPV6)
        return;
    const struct bgp_htab *t = &r->t[afi == BGP_AFI_IPV6];
    for (uint32_t i = 0; i <= t->mask; i++)
        if (route_at(t, i))
            fn(ctx, route_at(t, i));
}

void bgp_rib_peer_counts(const struct bgp_rib *r, uint16_t peer, struct bgp_rib_peer_counts *out)
{
    if (peer >= BGP_PEERS_MAX) {
        __builtin_memset(out, 0, sizeof *out);
        return;
    }
    *out = r->counts[peer];
}

void bgp_rib_stats(const struct bgp_rib *r, struct bgp_rib_stats *out)
{
    out->prefixes = (uint64_t)r->t[0].count + r->t[1].count;
    out->paths = r->npaths;
    out->asets = r->sets.count;
    out->bytes = r->bytes;
    out->announces = r->announces;
    out->withdraws = r->withdraws;
    out->best_changes = r->best_changes;
}
