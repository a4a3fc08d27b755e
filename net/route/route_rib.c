/* SPDX-License-Identifier: MIT */
/* net/route/route_rib.c: the binary trie of prefixes behind each route table
 * (route_rib.h). Nodes live in one array that doubles when full; freed
 * nodes go on a free list and are reused first. The jump table
 * (route_rib_jump.c) names the nodes at depth jump_bits. */
#include "route_rib.h"

#include "core/env.h"

#define RIB_INIT_CAP 1024u

bool route_key_is_masked(const struct route_key *k, unsigned len)
{
    uint64_t mhi = len >= 64 ? 0 : ~0ull >> len;
    uint64_t mlo = len <= 64 ? ~0ull : len >= 128 ? 0 : ~0ull >> (len - 64);
    return (k->hi & mhi) == 0 && (k->lo & mlo) == 0;
}

int route_rib_init(struct route_rib *r, const struct route_alloc *a)
{
    return route_rib_init_jump(r, a, ROUTE_RIB_JUMP_BITS);
}

int route_rib_init_jump(struct route_rib *r, const struct route_alloc *a, unsigned jump_bits)
{
    r->alloc = *a;
    r->jump_bits = jump_bits;
    r->n = a->alloc(a->ctx, RIB_INIT_CAP * sizeof(*r->n), 64);
    if (r->n == NULL)
        return ROUTE_ENOMEM;
    if (route_rib_jump_init(r) != ROUTE_OK) {
        a->free(a->ctx, r->n, RIB_INIT_CAP * sizeof(*r->n));
        r->n = NULL;
        return ROUTE_ENOMEM;
    }
    r->cap = RIB_INIT_CAP;
    net_memset(r->n, 0, 2 * sizeof(*r->n)); /* 0: none, 1: root */
    r->top = 2;
    r->free_head = 0;
    r->used = 1;
    r->prefixes = 0;
    return ROUTE_OK;
}

void route_rib_fini(struct route_rib *r)
{
    if (r->n)
        r->alloc.free(r->alloc.ctx, r->n, r->cap * sizeof(*r->n));
    route_rib_jump_fini(r);
    r->n = NULL;
}

static int rib_grow(struct route_rib *r)
{
    if (r->cap > UINT32_MAX / 2)
        return ROUTE_ENOMEM;
    uint32_t cap = r->cap * 2;
    struct route_rib_node *n = r->alloc.alloc(r->alloc.ctx, (size_t)cap * sizeof(*n), 64);
    if (n == NULL)
        return ROUTE_ENOMEM;
    net_memcpy(n, r->n, (size_t)r->top * sizeof(*n));
    r->alloc.free(r->alloc.ctx, r->n, (size_t)r->cap * sizeof(*n));
    r->n = n;
    r->cap = cap;
    return ROUTE_OK;
}

/* A fresh, empty node; 0 when out of memory. */
static uint32_t rib_new_node(struct route_rib *r)
{
    uint32_t i = r->free_head;
    if (i) {
        r->free_head = r->n[i].child[0];
    } else {
        if (r->top == r->cap && rib_grow(r) != ROUTE_OK)
            return 0;
        i = r->top++;
    }
    r->n[i].child[0] = r->n[i].child[1] = 0;
    r->n[i].nh = ROUTE_NH_NONE;
    r->n[i].sub = ROUTE_NH_NONE;
    r->used++;
    return i;
}

/* Two next-hop summaries as one. */
static uint32_t sub_join(uint32_t a, uint32_t b)
{
    if (a == ROUTE_NH_NONE)
        return b;
    if (b == ROUTE_NH_NONE || a == b)
        return a;
    return ROUTE_RIB_MIXED;
}

/* Node i's summary again from its children's; false when unchanged (the
 * ones above it then are too). */
static bool sub_update(struct route_rib *r, uint32_t i)
{
    uint32_t nh = ROUTE_NH_NONE, covered = ROUTE_RIB_COVERED;
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[i].child[b];
        if (c == 0) {
            covered = 0;
            continue;
        }
        nh = sub_join(nh, sub_join(r->n[c].nh, route_rib_sub_nh(r->n[c].sub)));
        if (r->n[c].nh == ROUTE_NH_NONE && !(r->n[c].sub & ROUTE_RIB_COVERED))
            covered = 0;
    }
    uint32_t sub = nh | covered;
    if (sub == r->n[i].sub)
        return false;
    r->n[i].sub = sub;
    return true;
}

/* After a change at path[depth]: the summaries above it, bottom up.
 * path[known..depth] is filled; the part above (a set that started at the
 * jump table) only when a change gets that far, which is rare. */
static void sub_path(struct route_rib *r, const struct route_key *k, uint32_t *path,
                     unsigned known, unsigned depth)
{
    while (depth-- > 0) {
        if (depth < known) {
            path[0] = ROUTE_RIB_ROOT;
            for (unsigned d = 0; d + 1 < known; d++)
                path[d + 1] = r->n[path[d]].child[route_key_bit(k, d)];
            known = 0;
        }
        if (!sub_update(r, path[depth]))
            return;
    }
}

int route_rib_set(struct route_rib *r, const struct route_key *k, unsigned len,
                  uint32_t nh, uint32_t *old_nh)
{
    uint32_t path[129];
    uint32_t jump = route_key_top(k, r->jump_bits), cur = ROUTE_RIB_ROOT;
    unsigned d = 0;
    if (len >= r->jump_bits) {
        uint32_t at = route_rib_jump_find(r, jump);
        if (at) {
            d = r->jump_bits;
            cur = at;
        }
    }
    unsigned known = d;
    path[d] = cur;
    for (; d < len; d++) {
        unsigned b = route_key_bit(k, d);
        uint32_t next = r->n[cur].child[b];
        if (next == 0) {
            next = rib_new_node(r); /* may move r->n: index again below */
            if (next == 0) {
                sub_path(r, k, path, known, d + 1); /* the nodes made so far are empty: harmless, counted right */
                return ROUTE_ENOMEM;
            }
            r->n[cur].child[b] = next;
            if (d + 1 == r->jump_bits)
                route_rib_jump_add(r, jump, next);
        }
        cur = next;
        path[d + 1] = cur;
    }
    *old_nh = r->n[cur].nh;
    if (*old_nh == ROUTE_NH_NONE)
        r->prefixes++;
    r->n[cur].nh = nh;
    sub_path(r, k, path, known, len);
    return ROUTE_OK;
}

int route_rib_del(struct route_rib *r, const struct route_key *k, unsigned len,
                  uint32_t *old_nh)
{
    uint32_t path[129];
    unsigned depth = 0;
    path[0] = ROUTE_RIB_ROOT;
    while (depth < len) {
        uint32_t next = r->n[path[depth]].child[route_key_bit(k, depth)];
        if (next == 0)
            break;
        path[++depth] = next;
    }
    *old_nh = ROUTE_NH_NONE;
    if (depth == len) {
        *old_nh = r->n[path[depth]].nh;
        if (*old_nh != ROUTE_NH_NONE)
            r->prefixes--;
        r->n[path[depth]].nh = ROUTE_NH_NONE;
    }
    /* Prune the chain of nodes that now hold nothing (also what a failed
     * route_rib_set left behind). */
    for (unsigned d = depth; d > 0; d--) {
        struct route_rib_node *n = &r->n[path[d]];
        if (n->nh != ROUTE_NH_NONE || n->child[0] || n->child[1])
            break;
        r->n[path[d - 1]].child[route_key_bit(k, d - 1)] = 0;
        if (d == r->jump_bits)
            route_rib_jump_del(r, route_key_top(k, d));
        n->child[0] = r->free_head;
        r->free_head = path[d];
        r->used--;
    }
    /* the summaries above, bottom up: all of them (a parent that lost an
     * empty child is covered no more, though no next hop changed) */
    for (unsigned d = depth; d-- > 0;)
        sub_update(r, path[d]);
    return *old_nh != ROUTE_NH_NONE ? ROUTE_OK : ROUTE_ENOENT;
}

uint32_t route_rib_descend(const struct route_rib *r, const struct route_key *k,
                           unsigned depth, uint32_t *best)
{
    uint32_t cur = ROUTE_RIB_ROOT, b = r->n[cur].nh;
    for (unsigned d = 0; d < depth && cur; d++) {
        cur = r->n[cur].child[route_key_bit(k, d)];
        if (cur && r->n[cur].nh != ROUTE_NH_NONE)
            b = r->n[cur].nh;
    }
    *best = b;
    return cur;
}

uint32_t route_rib_match(const struct route_rib *r, const struct route_key *k,
                         unsigned max_len, unsigned *len)
{
    uint32_t cur = ROUTE_RIB_ROOT, best = r->n[cur].nh;
    unsigned best_len = 0;
    for (unsigned d = 0; d < max_len; d++) {
        cur = r->n[cur].child[route_key_bit(k, d)];
        if (cur == 0)
            break;
        if (r->n[cur].nh != ROUTE_NH_NONE) {
            best = r->n[cur].nh;
            best_len = d + 1;
        }
    }
    *len = best_len;
    return best;
}

size_t route_rib_bytes(const struct route_rib *r)
{
    return (size_t)r->cap * sizeof(*r->n) + route_rib_jump_bytes(r);
}
