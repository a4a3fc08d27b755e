/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop_group.c: ECMP groups, the writer's side (nexthop_group.h). */
#include "nexthop_group.h"

#include "core/env.h"

int nh_group_get(struct nh_groups *t, const uint32_t *paths, unsigned n, bool *made)
{
    uint16_t p[NH_GROUP_PATHS];
    *made = false;
    if (n < 2 || n > NH_GROUP_PATHS)
        return -1;
    for (unsigned i = 0; i < n; i++) { /* insertion sort: a group is its set of paths */
        if (paths[i] == 0 || paths[i] > 0xffff)
            return -1;
        unsigned j = i;
        for (; j > 0 && p[j - 1] > paths[i]; j--)
            p[j] = p[j - 1];
        p[j] = (uint16_t)paths[i];
    }
    for (unsigned i = 1; i < n; i++)
        if (p[i] == p[i - 1])
            return -1;
    int free_g = -1;
    for (unsigned g = 0; g < NH_GROUP_MAX; g++) {
        struct nh_group *e = &t->g[g];
        if (e->n == n && net_memcmp(e->path, p, n * sizeof p[0]) == 0)
            return (int)g;
        if (e->n == 0 && free_g < 0)
            free_g = (int)g;
    }
    if (free_g < 0)
        return -1;
    struct nh_group *e = &t->g[free_g];
    net_memset(e->path, 0, sizeof e->path);
    net_memcpy(e->path, p, n * sizeof p[0]);
    atomic_store_explicit(&e->live, (uint16_t)((1u << n) - 1), memory_order_relaxed);
    e->n = (uint8_t)n; /* published to readers by the release store of the slot that names it */
    *made = true;
    return free_g;
}

void nh_group_free(struct nh_groups *t, unsigned g)
{
    if (g < NH_GROUP_MAX)
        t->g[g].n = 0;
}

bool nh_group_set_live(struct nh_groups *t, unsigned g, unsigned i, bool up)
{
    if (g >= NH_GROUP_MAX || i >= t->g[g].n)
        return false;
    uint16_t old = atomic_load_explicit(&t->g[g].live, memory_order_relaxed);
    uint16_t now = up ? (uint16_t)(old | 1u << i) : (uint16_t)(old & ~(1u << i));
    atomic_store_explicit(&t->g[g].live, now, memory_order_relaxed);
    if (now != old)
        atomic_fetch_add_explicit(&t->live_gen, 1, memory_order_release);
    return now != old;
}
