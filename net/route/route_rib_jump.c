/* SPDX-License-Identifier: MIT */
/* net/route/route_rib_jump.c: the RIB's shortcut to its nodes at depth
 * jump_bits (route_rib.h), an open-addressed table keyed by the key's top
 * jump_bits bits: linear probing, doubled past 3/4 full, deletion by
 * moving entries back. Only a hint: an entry it has no memory for is left
 * out, and route_rib_set then walks from the root. */
#include "route_rib.h"

#include "core/env.h"

#define JUMP_MIN 256u

static uint32_t jump_home(uint32_t key, uint32_t mask)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & mask;
}

static struct route_rib_jump *jump_alloc(struct route_rib *r, uint32_t n)
{
    struct route_rib_jump *j = r->alloc.alloc(r->alloc.ctx, (size_t)n * sizeof(*j), 64);
    if (j)
        net_memset(j, 0, (size_t)n * sizeof(*j));
    return j;
}

int route_rib_jump_init(struct route_rib *r)
{
    r->jump = jump_alloc(r, JUMP_MIN);
    r->jump_mask = JUMP_MIN - 1;
    r->jump_count = 0;
    return r->jump ? ROUTE_OK : ROUTE_ENOMEM;
}

void route_rib_jump_fini(struct route_rib *r)
{
    if (r->jump)
        r->alloc.free(r->alloc.ctx, r->jump, (size_t)(r->jump_mask + 1) * sizeof(*r->jump));
    r->jump = NULL;
}

uint32_t route_rib_jump_find(const struct route_rib *r, uint32_t key)
{
    for (uint32_t i = jump_home(key, r->jump_mask);; i = (i + 1) & r->jump_mask) {
        if (r->jump[i].node == 0 || r->jump[i].key == key)
            return r->jump[i].node;
    }
}

static void jump_put(struct route_rib_jump *j, uint32_t mask, uint32_t key, uint32_t node)
{
    uint32_t i = jump_home(key, mask);
    while (j[i].node)
        i = (i + 1) & mask;
    j[i].key = key;
    j[i].node = node;
}

void route_rib_jump_add(struct route_rib *r, uint32_t key, uint32_t node)
{
    if ((r->jump_count + 1) * 4ull > (r->jump_mask + 1) * 3ull) {
        uint32_t n = (r->jump_mask + 1) * 2;
        struct route_rib_jump *j = n ? jump_alloc(r, n) : NULL;
        if (j == NULL)
            return;
        for (uint32_t i = 0; i <= r->jump_mask; i++)
            if (r->jump[i].node)
                jump_put(j, n - 1, r->jump[i].key, r->jump[i].node);
        route_rib_jump_fini(r);
        r->jump = j;
        r->jump_mask = n - 1;
    }
    jump_put(r->jump, r->jump_mask, key, node);
    r->jump_count++;
}

void route_rib_jump_del(struct route_rib *r, uint32_t key)
{
    uint32_t m = r->jump_mask, i = jump_home(key, m);
    while (r->jump[i].node && r->jump[i].key != key)
        i = (i + 1) & m;
    if (r->jump[i].node == 0)
        return; /* left out for want of memory */
    r->jump[i].node = 0;
    r->jump_count--;
    /* Each later entry of the run whose home is at or before the hole
     * moves into it, so that no search stops short. */
    for (uint32_t j = (i + 1) & m; r->jump[j].node; j = (j + 1) & m) {
        uint32_t home = jump_home(r->jump[j].key, m);
        if (((j - home) & m) >= ((j - i) & m)) {
            r->jump[i] = r->jump[j];
            r->jump[j].node = 0;
            i = j;
        }
    }
}

size_t route_rib_jump_bytes(const struct route_rib *r)
{
    return (size_t)(r->jump_mask + 1) * sizeof(*r->jump);
}
