/* SPDX-License-Identifier: MIT */
/* net/route/route_static.c: the static routes' list (route_static.h). */
#include "route_static.h"

#include "core/env.h"

static unsigned width(bool v6) { return v6 ? 128 : 32; }

/* Whether addr's first len bits are p's. */
static bool holds(const uint8_t *p, unsigned len, const uint8_t *addr)
{
    unsigned full = len / 8, rest = len % 8;
    if (net_memcmp(p, addr, full) != 0)
        return false;
    return !rest || ((p[full] ^ addr[full]) & (uint8_t)(0xff00u >> rest)) == 0;
}

/* No host bit set past len. */
static bool canonical(bool v6, const uint8_t *addr, unsigned len)
{
    for (unsigned b = len; b < width(v6); b++)
        if (addr[b / 8] & (0x80u >> (b % 8)))
            return false;
    return true;
}

void route_statics_init(struct route_statics *s, const struct route_alloc *al)
{
    net_memset(s, 0, sizeof *s);
    s->al = *al;
}

void route_statics_fini(struct route_statics *s)
{
    if (s->r)
        s->al.free(s->al.ctx, s->r, s->cap * sizeof *s->r);
    s->r = NULL;
    s->n = s->cap = 0;
}

static struct route_static *find(const struct route_statics *s, bool v6, const uint8_t *addr, unsigned len)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->r[i].v6 == v6 && s->r[i].len == len && net_memcmp(s->r[i].addr, addr, 16) == 0)
            return &s->r[i];
    return NULL;
}

int route_statics_set(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len, const uint8_t *gw)
{
    return route_statics_set_gws(s, v6, addr, len, gw, 1);
}

int route_statics_set_gws(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len, const uint8_t *gws,
                          unsigned n)
{
    uint8_t a[16] = {0};
    net_memcpy(a, addr, v6 ? 16 : 4);
    if (len > width(v6) || !canonical(v6, a, len) || n == 0 || n > ROUTE_STATIC_GWS)
        return ROUTE_EINVAL;
    struct route_static *e = find(s, v6, a, len);
    if (!e) {
        if (s->n == s->cap) {
            uint32_t cap = s->cap ? s->cap * 2 : 16;
            struct route_static *r = s->al.alloc(s->al.ctx, cap * sizeof *r, 8);
            if (!r)
                return ROUTE_ENOMEM;
            if (s->r) {
                net_memcpy(r, s->r, s->n * sizeof *r);
                s->al.free(s->al.ctx, s->r, s->cap * sizeof *s->r);
            }
            s->r = r;
            s->cap = cap;
        }
        e = &s->r[s->n++];
        net_memset(e, 0, sizeof *e);
        net_memcpy(e->addr, a, 16);
        e->len = (uint8_t)len;
        e->v6 = v6;
    }
    net_memset(e->gw, 0, sizeof e->gw);
    for (unsigned i = 0; i < n; i++)
        net_memcpy(e->gw[i], gws + i * (v6 ? 16 : 4), v6 ? 16 : 4);
    e->ngw = (uint8_t)n;
    return ROUTE_OK;
}

int route_statics_unset(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len)
{
    uint8_t a[16] = {0};
    net_memcpy(a, addr, v6 ? 16 : 4);
    struct route_static *e = find(s, v6, a, len);
    if (!e)
        return ROUTE_ENOENT;
    *e = s->r[--s->n];
    return ROUTE_OK;
}

const struct route_static *route_statics_find(const struct route_statics *s, bool v6, const uint8_t *addr,
                                              unsigned len)
{
    uint8_t a[16] = {0};
    net_memcpy(a, addr, v6 ? 16 : 4);
    return find(s, v6, a, len);
}

const struct route_static *route_statics_match(const struct route_statics *s, bool v6, const uint8_t *addr)
{
    const struct route_static *best = NULL;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->r[i].v6 == v6 && (!best || s->r[i].len > best->len) && holds(s->r[i].addr, s->r[i].len, addr))
            best = &s->r[i];
    return best;
}
