/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/rib_fixture.h: what the RIB tests share: a heap that
 * counts live bytes (and can fail on demand), a next-hop table to resolve
 * against, a recorder of best_changed calls, and builders of attribute
 * sets and prefixes. */
#ifndef TESTS_UNIT_BGP_RIB_FIXTURE_H
#define TESTS_UNIT_BGP_RIB_FIXTURE_H

#include <stdlib.h>

#include "bgp/bgp_rib.h"
#include "tests/unit/check.h"

#define FX_LOCAL_AS 65000u

struct fx_heap {
    size_t live;
    long fail_after; /* allocations left before they fail; -1: never */
    int bad_frees;   /* frees whose size was not the allocation's */
};

static inline void *fx_alloc(void *ctx, size_t n)
{
    struct fx_heap *h = ctx;
    if (h->fail_after == 0)
        return NULL;
    if (h->fail_after > 0)
        h->fail_after--;
    uint8_t *p = calloc(1, n + 16); /* the size in front, the block 16-aligned */
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    h->live += n;
    return p + 16;
}

static inline void fx_free(void *ctx, void *q, size_t n)
{
    struct fx_heap *h = ctx;
    uint8_t *p = (uint8_t *)q - 16;
    size_t was;
    memcpy(&was, p, sizeof was);
    if (was != n)
        h->bad_frees++;
    h->live -= was;
    free(p);
}

/* The fixture: next hops 10.0.0.X and 2001:db8::X resolve by X. */
struct fx {
    struct fx_heap heap;
    struct bgp_alloc al;
    struct bgp_rib rib;
    bool unreachable[256];
    uint32_t cost[256];
    unsigned resolves;
    /* best_changed calls */
    unsigned calls;
    int best_peer, old_peer; /* of the last call, -1 for NULL */
    const struct bgp_aset *best_set, *old_set;
    struct bgp_prefix last;
    void (*also)(struct fx *f, const struct bgp_route *r, const struct bgp_path *best, const struct bgp_path *old);
    void *user;
    unsigned mp_calls; /* multipath_changed calls */
};

static inline bool fx_resolve(void *ctx, uint8_t afi, const uint8_t *nh, uint32_t *cost)
{
    struct fx *f = ctx;
    uint8_t x = afi == BGP_AFI_IPV4 ? nh[3] : nh[15];
    f->resolves++;
    *cost = f->cost[x];
    return !f->unreachable[x];
}

static inline void fx_best_changed(void *ctx, const struct bgp_route *r, const struct bgp_path *best,
                            const struct bgp_path *old)
{
    struct fx *f = ctx;
    f->calls++;
    f->best_peer = best ? best->peer : -1;
    f->old_peer = old ? old->peer : -1;
    f->best_set = best ? best->a : NULL;
    f->old_set = old ? old->a : NULL;
    f->last = r->p;
    if (f->also)
        f->also(f, r, best, old);
}

static inline void fx_mp_changed(void *ctx, const struct bgp_route *r)
{
    struct fx *f = ctx;
    f->mp_calls++;
    f->last = r->p;
}

static inline void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    f->heap.fail_after = -1;
    f->al = (struct bgp_alloc){fx_alloc, fx_free, &f->heap};
    struct bgp_rib_ops ops = {.resolve = fx_resolve, .best_changed = fx_best_changed,
                              .multipath_changed = fx_mp_changed, .ctx = f};
    CHECK_EQ(bgp_rib_init(&f->rib, &f->al, &ops, FX_LOCAL_AS, 0x0a000063), 0);
}

static inline void fx_fini(struct fx *f)
{
    bgp_rib_fini(&f->rib);
    CHECK_EQ(f->heap.live, 0);
    CHECK_EQ(f->heap.bad_frees, 0);
}

/* Peer n: AS 65000+n (iBGP) or 64500+n (eBGP), router ID 10.0.0.n
 * unless given, address 192.0.2.n. */
static inline void fx_peer(struct fx *f, uint16_t n, bool ebgp, uint32_t router_id)
{
    struct bgp_peer_facts pf = {.as = ebgp ? 64500u + n : FX_LOCAL_AS,
                                .router_id = router_id ? router_id : 0x0a000000u + n,
                                .ebgp = ebgp,
                                .afi = BGP_AFI_IPV4,
                                .addr = {192, 0, 2, (uint8_t)n}};
    bgp_rib_set_peer(&f->rib, n, &pf);
}

/* A set as the tests describe it. */
struct sd {
    bool has_lp, has_med;
    uint32_t lp, med;
    uint8_t origin;
    uint8_t nh;      /* next hop 10.0.0.nh and 2001:db8::nh */
    uint8_t nas;     /* ASNs in one AS_SEQUENCE (or an AS_SET if as_set) */
    bool as_set;
    uint32_t as[8];
    uint32_t tag;    /* carried in other[] to make otherwise equal sets differ */
};

static struct bgp_attrs fx_attrs_buf;

static inline struct bgp_attrs *fx_attrs(const struct sd *d)
{
    struct bgp_attrs *a = &fx_attrs_buf;
    memset(a, 0, sizeof *a);
    a->has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH6;
    a->origin = d->origin;
    if (d->has_lp) {
        a->has |= BGP_HAS_LOCAL_PREF;
        a->local_pref = d->lp;
    }
    if (d->has_med) {
        a->has |= BGP_HAS_MED;
        a->med = d->med;
    }
    uint8_t nh = d->nh ? d->nh : 1;
    a->nh4[0] = 10, a->nh4[3] = nh;
    a->nh6[0] = 0x20, a->nh6[1] = 0x01, a->nh6[2] = 0x0d, a->nh6[3] = 0xb8, a->nh6[15] = nh;
    if (d->nas) {
        a->nsegs = 1;
        a->segs[0].type = d->as_set ? 1 : 2;
        a->segs[0].count = d->nas;
        memcpy(a->asns, d->as, d->nas * sizeof(uint32_t));
        a->nasns = d->nas;
        a->path_len = d->as_set ? 1 : d->nas;
    }
    if (d->tag) {
        /* An optional transitive attribute of type 250, 4 bytes. */
        uint8_t o[7] = {0xc0, 250, 4, (uint8_t)(d->tag >> 24), (uint8_t)(d->tag >> 16), (uint8_t)(d->tag >> 8),
                        (uint8_t)d->tag};
        memcpy(a->other, o, sizeof o);
        a->other_len = sizeof o;
    }
    return a;
}

/* A reference to d's set; the test drops it with bgp_aset_put. */
static inline const struct bgp_aset *fx_set(struct fx *f, struct sd d)
{
    const struct bgp_aset *s = bgp_aset_intern(&f->rib, fx_attrs(&d));
    CHECK(s != NULL);
    return s;
}

static inline struct bgp_prefix fx_p4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t len)
{
    return (struct bgp_prefix){.afi = BGP_AFI_IPV4, .len = len, .addr = {a, b, c, d}};
}

static inline struct bgp_prefix fx_p6(uint16_t w0, uint16_t w1, uint16_t w2, uint8_t len)
{
    return (struct bgp_prefix){.afi = BGP_AFI_IPV6, .len = len,
                               .addr = {(uint8_t)(w0 >> 8), (uint8_t)w0, (uint8_t)(w1 >> 8), (uint8_t)w1,
                                        (uint8_t)(w2 >> 8), (uint8_t)w2}};
}

/* The best path's peer for p, -1 when none (or no route). */
static inline int fx_best(struct fx *f, struct bgp_prefix p)
{
    const struct bgp_route *rt = bgp_rib_find(&f->rib, &p);
    return rt && rt->best ? rt->best->peer : -1;
}

static inline const struct bgp_path *fx_path_of(struct fx *f, struct bgp_prefix p, uint16_t peer)
{
    const struct bgp_route *rt = bgp_rib_find(&f->rib, &p);
    for (const struct bgp_path *x = rt ? rt->paths : NULL; x; x = x->next)
        if (x->peer == peer)
            return x;
    return NULL;
}

static inline enum bgp_why fx_why(struct fx *f, struct bgp_prefix p, uint16_t peer)
{
    return bgp_rib_why(&f->rib, bgp_rib_find(&f->rib, &p), fx_path_of(f, p, peer));
}

#endif
