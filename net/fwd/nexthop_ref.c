/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop_ref.c: reference counts on next-hop slots and their deferred
 * freeing (net/fwd/nexthop_ref.h). */
#include "nexthop_ref.h"

#include "core/env.h"

void nexthop_ref_init(struct nexthop_ref *r, uint32_t slots)
{
    net_memset(r, 0, sizeof(*r));
    r->slots = slots < NEXTHOP_REF_MAX ? slots : NEXTHOP_REF_MAX;
    r->stamp = 1; /* zero_at 0 means "not waiting" */
}

static bool counted(const struct nexthop_ref *r, uint32_t idx)
{
    return idx != ROUTE_NH_NONE && idx < r->slots;
}

void nexthop_ref_get(struct nexthop_ref *r, uint32_t idx)
{
    if (!counted(r, idx))
        return;
    if (r->zero_at[idx]) { /* taken back before it was freed */
        r->zero_at[idx] = 0;
        r->waiting--;
    }
    r->count[idx]++;
}

void nexthop_ref_put(struct nexthop_ref *r, uint32_t idx)
{
    if (!counted(r, idx) || r->count[idx] == 0)
        return;
    if (--r->count[idx] == 0) {
        r->zero_at[idx] = r->stamp;
        r->waiting++;
    }
}

void nexthop_ref_set(void *ctx, uint32_t nh, uint32_t prev_nh)
{
    struct nexthop_ref *r = ctx;
    nexthop_ref_get(r, nh);
    if (counted(r, prev_nh))
        r->held[prev_nh]++;
}

void nexthop_ref_load_end(struct nexthop_ref *r, bool published)
{
    for (uint32_t i = 1; i < r->slots; i++) {
        for (; published && r->held[i]; r->held[i]--)
            nexthop_ref_put(r, i);
        r->held[i] = 0;
    }
}

uint32_t nexthop_ref_count(const struct nexthop_ref *r, uint32_t idx)
{
    return counted(r, idx) ? r->count[idx] : 0;
}

bool nexthop_ref_waiting(const struct nexthop_ref *r, uint32_t idx)
{
    return counted(r, idx) && r->zero_at[idx] != 0;
}

int nexthop_ref_route4(struct nexthop_ref *r, struct route4 *t, uint32_t addr, unsigned len, uint32_t nh)
{
    uint32_t prev = route4_get(t, addr, len); /* route4_add and route4_del do not tell */
    nexthop_ref_get(r, nh);
    int rc = nh ? route4_add(t, addr, len, nh) : route4_del(t, addr, len);
    nexthop_ref_put(r, rc == ROUTE_OK ? prev : nh);
    return rc;
}

int nexthop_ref_route6(struct nexthop_ref *r, struct route6 *t, const uint8_t addr[16], unsigned len,
                       uint32_t nh)
{
    uint32_t prev = route6_get(t, addr, len);
    nexthop_ref_get(r, nh);
    int rc = nh ? route6_add(t, addr, len, nh) : route6_del(t, addr, len);
    nexthop_ref_put(r, rc == ROUTE_OK ? prev : nh);
    return rc;
}

uint64_t nexthop_ref_seal(struct nexthop_ref *r)
{
    return r->stamp++;
}

void nexthop_ref_reclaim(struct nexthop_ref *r, uint64_t sealed, void (*free_fn)(void *ctx, uint32_t idx),
                         void *ctx)
{
    for (uint32_t i = 1; r->waiting && i < r->slots; i++) {
        if (r->zero_at[i] == 0 || r->zero_at[i] > sealed)
            continue;
        r->zero_at[i] = 0;
        r->waiting--;
        free_fn(ctx, i);
    }
}
