/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop6.c: the shared IPv6 next-hop table (net/fwd/nexthop6.h). */
#include "nexthop6.h"

#include "core/env.h"
#include "net.h"

void fwd_nh6_init(struct fwd_nh6_table *t)
{
    net_memset(t->e, 0, sizeof(t->e));
    for (uint32_t i = 0; i < FWD_NH6_MAX; i++)
        t->e[i].port = FWD_NH6_FREE;
    t->used = 1;
    net_memset(&t->groups, 0, sizeof t->groups);
    atomic_store_explicit(&t->gen, 1, memory_order_release);
}

static void set(struct fwd_nh6_table *t, uint32_t idx, uint8_t port, const uint8_t gw[16])
{
    t->e[idx].port = port;
    net_memcpy(t->e[idx].gw, gw, 16);
    if (idx >= t->used)
        t->used = idx + 1;
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
}

int fwd_nh6_set(struct fwd_nh6_table *t, uint32_t idx, uint8_t port, const uint8_t gw[16])
{
    if (idx == 0 || idx >= FWD_NH6_MAX || port >= NET_MAX_PORTS)
        return -1;
    set(t, idx, port, gw);
    return 0;
}

/* The slot of (port, gw), else a free one set to it (port may be
 * FWD_NH6_GROUP here); 0 when none is free. */
static uint32_t add(struct fwd_nh6_table *t, uint8_t port, const uint8_t gw[16])
{
    uint32_t free_idx = 0;
    for (uint32_t i = 1; i < t->used; i++) {
        if (t->e[i].port == port && net_memcmp(t->e[i].gw, gw, 16) == 0)
            return i;
        if (t->e[i].port == FWD_NH6_FREE && free_idx == 0)
            free_idx = i;
    }
    if (free_idx == 0) {
        if (t->used >= FWD_NH6_MAX)
            return 0;
        free_idx = t->used;
    }
    set(t, free_idx, port, gw);
    return free_idx;
}

uint32_t fwd_nh6_add(struct fwd_nh6_table *t, uint8_t port, const uint8_t gw[16])
{
    return port < NET_MAX_PORTS ? add(t, port, gw) : 0;
}

uint32_t fwd_nh6_group_add(struct fwd_nh6_table *t, const uint32_t *paths, unsigned n, bool *made)
{
    *made = false;
    for (unsigned i = 0; i < n; i++) {
        const struct fwd_nh6 *e = fwd_nh6_get(t, paths[i]);
        if (!e || e->port >= NET_MAX_PORTS)
            return 0;
    }
    int g = nh_group_get(&t->groups, paths, n, made);
    if (g < 0)
        return 0;
    uint8_t gw[16] = {(uint8_t)g};
    uint32_t idx = add(t, FWD_NH6_GROUP, gw);
    if (!idx && *made) {
        nh_group_free(&t->groups, (unsigned)g);
        *made = false;
    }
    return idx;
}

void fwd_nh6_del(struct fwd_nh6_table *t, uint32_t idx)
{
    if (idx == 0 || idx >= FWD_NH6_MAX)
        return;
    if (t->e[idx].port == FWD_NH6_GROUP)
        nh_group_free(&t->groups, t->e[idx].gw[0]);
    t->e[idx].port = FWD_NH6_FREE;
    net_memset(t->e[idx].gw, 0, 16);
    while (t->used > 1 && t->e[t->used - 1].port == FWD_NH6_FREE)
        t->used--;
    atomic_fetch_add_explicit(&t->gen, 1, memory_order_release);
}
