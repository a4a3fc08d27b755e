/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop.c: the shared next-hop table and each core's adjacencies
 * (net/fwd/nexthop.h). */
#include "nexthop.h"

#include "link/arp.h"
#include "core/env.h"
#include "net.h"

/* An entry as one word: kind 63..56, port 55..48, mtu 47..32, gw_be 31..0. */
static uint64_t pack(const struct nexthop *nh)
{
    return (uint64_t)nh->kind << 56 | (uint64_t)nh->port << 48 | (uint64_t)nh->mtu << 32 | nh->gw_be;
}

static struct nexthop unpack(uint64_t w)
{
    return (struct nexthop){
        .kind = (uint8_t)(w >> 56),
        .port = (uint8_t)(w >> 48),
        .mtu = (uint16_t)(w >> 32),
        .gw_be = (uint32_t)w,
    };
}

static bool valid(const struct nexthop *nh)
{
    if (nh->kind > NEXTHOP_GROUP)
        return false;
    if (nh->kind == NEXTHOP_GROUP)
        return nh->gw_be < NH_GROUP_MAX;
    if (nh->kind != NEXTHOP_VIA)
        return true;
    return nh->port < NET_MAX_PORTS && (nh->mtu == 0 || nh->mtu >= NEXTHOP_MIN_MTU);
}

void nexthop_init(struct nexthop_table *t)
{
    for (uint32_t i = 0; i < NEXTHOP_MAX; i++)
        atomic_store_explicit(&t->e[i], 0, memory_order_relaxed);
    t->used = 1;
    net_memset(&t->groups, 0, sizeof t->groups);
    atomic_store_explicit(&t->gen, 1, memory_order_release);
}

int nexthop_set(struct nexthop_table *t, uint32_t idx, const struct nexthop *nh)
{
    if (idx == ROUTE_NH_NONE || idx >= NEXTHOP_MAX || !valid(nh))
        return -1;
    atomic_store_explicit(&t->e[idx], pack(nh), memory_order_release);
    if (idx >= t->used)
        t->used = idx + 1;
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
    return 0;
}

uint32_t nexthop_add(struct nexthop_table *t, const struct nexthop *nh)
{
    if (!valid(nh) || nh->kind == NEXTHOP_FREE)
        return ROUTE_NH_NONE;
    uint64_t w = pack(nh);
    uint32_t free_idx = ROUTE_NH_NONE;
    for (uint32_t i = 1; i < t->used; i++) {
        uint64_t e = atomic_load_explicit(&t->e[i], memory_order_relaxed);
        if (e == w)
            return i;
        if (e == 0 && free_idx == ROUTE_NH_NONE)
            free_idx = i;
    }
    if (free_idx == ROUTE_NH_NONE) {
        if (t->used >= NEXTHOP_MAX)
            return ROUTE_NH_NONE;
        free_idx = t->used;
    }
    nexthop_set(t, free_idx, nh);
    return free_idx;
}

uint32_t nexthop_group_add(struct nexthop_table *t, const uint32_t *paths, unsigned n, bool *made)
{
    *made = false;
    for (unsigned i = 0; i < n; i++)
        if (nexthop_get(t, paths[i]).kind != NEXTHOP_VIA)
            return ROUTE_NH_NONE;
    int g = nh_group_get(&t->groups, paths, n, made);
    if (g < 0)
        return ROUTE_NH_NONE;
    struct nexthop e = {.kind = NEXTHOP_GROUP, .gw_be = (uint32_t)g};
    uint32_t idx = nexthop_add(t, &e);
    if (!idx && *made) {
        nh_group_free(&t->groups, (unsigned)g);
        *made = false;
    }
    return idx;
}

void nexthop_del(struct nexthop_table *t, uint32_t idx)
{
    if (idx == ROUTE_NH_NONE || idx >= NEXTHOP_MAX)
        return;
    struct nexthop e = nexthop_get(t, idx);
    if (e.kind == NEXTHOP_GROUP)
        nh_group_free(&t->groups, e.gw_be);
    atomic_store_explicit(&t->e[idx], 0, memory_order_release);
    while (t->used > 1 && atomic_load_explicit(&t->e[t->used - 1], memory_order_relaxed) == 0)
        t->used--;
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
}

struct nexthop nexthop_get(const struct nexthop_table *t, uint32_t idx)
{
    if (idx >= NEXTHOP_MAX)
        return unpack(0);
    return unpack(atomic_load_explicit(&t->e[idx], memory_order_acquire));
}

const char *nexthop_kind_name(uint8_t kind)
{
    static const char *const names[] = {"free", "via", "blackhole", "unreachable", "group"};
    return kind <= NEXTHOP_GROUP ? names[kind] : "?";
}

void nexthop_cache_init(struct nexthop_cache *c, const struct nexthop_table *t)
{
    net_memset(c, 0, sizeof(*c));
    c->t = t;
    c->t_gen = nexthop_gen(t);
    c->live_gen = atomic_load_explicit(&t->groups.live_gen, memory_order_acquire);
    c->hi = 1;
    c->adj[0].until_ns = UINT64_MAX; /* no route: always the slow path */
}

void nexthop_cache_flush(struct nexthop_cache *c)
{
    for (uint32_t i = 1; i < c->hi; i++)
        c->adj[i].until_ns = 0;
    c->hi = 1;
}

const struct nexthop_adj *nexthop_cache_fill(struct nexthop_cache *c, struct net_stack *s,
                                             uint32_t idx, uint64_t now_ns)
{
    if (idx == ROUTE_NH_NONE || idx >= NEXTHOP_MAX)
        return &c->adj[0];
    struct nexthop_adj *a = &c->adj[idx];
    struct nexthop nh = nexthop_get(c->t, idx);
    struct net_iface *ifc = net_iface_get(s, nh.port);

    net_memset(a, 0, sizeof(*a));
    a->until_ns = now_ns + NEXTHOP_ADJ_TTL_NS;
    if (idx >= c->hi)
        c->hi = idx + 1;
    if (nh.kind == NEXTHOP_GROUP) {
        const struct nh_group *g = &c->t->groups.g[nh.gw_be % NH_GROUP_MAX];
        uint32_t live = atomic_load_explicit(&g->live, memory_order_relaxed), n = g->n;
        a->state = NEXTHOP_ADJ_GROUP;
        a->port = (uint16_t)nh.gw_be;
        if (n <= NEXTHOP_ADJ_PATHS) { /* a larger one: mtu and path[0] 0, the group decides */
            a->mtu = (uint16_t)n;
            for (uint32_t i = 0; i < n; i++) /* as nh_group_pick: all down is all up */
                a->path[i] = ((live >> i) & 1 || live == 0) && g->path[i] < NEXTHOP_MAX ? g->path[i] : 0;
        }
        return a;
    }
    /* Tagged ports need a header of another size: eth_output's job. */
    if (nh.kind != NEXTHOP_VIA || ifc == NULL || ifc->vlan_id != 0)
        return a;
    a->port = nh.port;
    a->tagged = ifc->ntags != 0;
    a->mtu = nh.mtu && nh.mtu < ifc->mtu ? nh.mtu : ifc->mtu;
    net_memcpy(a->eth + 6, ifc->dev->mac, 6);
    if (nh.gw_be == 0) {
        a->state = NEXTHOP_ADJ_LINK;
        return a;
    }
    const uint8_t *mac = arp_lookup(s, nh.port, nh.gw_be, now_ns);
    if (mac) {
        net_memcpy(a->eth, mac, 6);
        a->state = NEXTHOP_ADJ_MAC;
        a->plain = !a->tagged && ifc->acl_out.acl == NULL;
    }
    return a;
}
