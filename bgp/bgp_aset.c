/* SPDX-License-Identifier: MIT */
/* bgp/bgp_aset.c: interned attribute sets. A full table's million paths
 * carry some tens of thousands of distinct sets, so each distinct content
 * is stored once, exactly as long as its AS path and other attributes
 * are, refcounted, found again through an open-addressed table
 * (bgp_htab.c) and freed with its last reference. Also the per-set
 * next-hop resolution cache. */
#include "bgp_rib_impl.h"

/* The content bytes: from `has` to the end of nh6_ll, no holes between. */
#define ASET_CONTENT_OFF offsetof(struct bgp_aset, has)
#define ASET_CONTENT_LEN (offsetof(struct bgp_aset, nh6_ll) + 16 - ASET_CONTENT_OFF)

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (; n >= 8; b += 8, n -= 8) {
        uint64_t w;
        __builtin_memcpy(&w, b, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (n) {
        uint64_t w = 0;
        __builtin_memcpy(&w, b, n);
        h = (h ^ w ^ ((uint64_t)n << 56)) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

static size_t aset_size(const struct bgp_aset *s)
{
    return sizeof(struct bgp_aset) + s->nasns * sizeof(uint32_t) + s->nsegs * sizeof(struct bgp_as_seg) +
           s->other_len;
}

static const void *content(const struct bgp_aset *s)
{
    return (const uint8_t *)s + ASET_CONTENT_OFF;
}

/* k's content from a: the fields a->has names, the rest zero. False when a
 * is past bgp.h's limits or its segments do not add up to its ASNs. */
static bool fill_content(struct bgp_aset *k, const struct bgp_attrs *a)
{
    __builtin_memset(k, 0, sizeof *k);
    if (a->nsegs > sizeof a->segs / sizeof a->segs[0] || a->nasns > BGP_AS_PATH_MAX ||
        a->other_len > BGP_OTHER_ATTRS_MAX)
        return false;
    unsigned sum = 0;
    for (unsigned i = 0; i < a->nsegs; i++)
        sum += a->segs[i].count;
    if (sum != a->nasns)
        return false;
    k->has = a->has;
    if (a->has & BGP_HAS_ORIGIN)
        k->origin = a->origin;
    if (a->has & BGP_HAS_MED)
        k->med = a->med;
    if (a->has & BGP_HAS_LOCAL_PREF)
        k->local_pref = a->local_pref;
    if (a->has & (BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH4))
        __builtin_memcpy(k->nh4, a->nh4, 4);
    if (a->has & BGP_HAS_MP_NH6)
        __builtin_memcpy(k->nh6, a->nh6, 16);
    if (a->has & BGP_HAS_MP_NH6_LL)
        __builtin_memcpy(k->nh6_ll, a->nh6_ll, 16);
    if (a->has & BGP_HAS_AGGREGATOR) {
        k->aggregator_as = a->aggregator_as;
        __builtin_memcpy(k->aggregator_id, a->aggregator_id, 4);
    }
    k->nsegs = a->nsegs;
    k->nasns = a->nasns;
    k->path_len = a->path_len;
    k->other_len = a->other_len;
    return true;
}

/* RFC 4271 9.1.2.2 c): neighborAS is the first AS of the path, or the
 * local AS when the path is empty or starts with an AS_SET (originated or
 * aggregated inside this AS). Leading confederation segments (RFC 5065
 * 3: types 3 and 4) are inside the confederation and skipped. */
static uint32_t neighbour_as(const struct bgp_aset *s, uint32_t local_as)
{
    const struct bgp_as_seg *seg = bgp_aset_segs(s);
    unsigned at = 0;
    for (unsigned i = 0; i < s->nsegs; i++) {
        if (seg[i].type == 3 || seg[i].type == 4) {
            at += seg[i].count;
            continue;
        }
        if (seg[i].type == 2 && seg[i].count > 0)
            return s->asns[at];
        break;
    }
    return local_as;
}

static bool holds_as(const struct bgp_aset *s, uint32_t as)
{
    for (unsigned i = 0; i < s->nasns; i++)
        if (s->asns[i] == as)
            return true;
    return false;
}

void bgp_aset_table_fini(struct bgp_rib *r)
{
    for (uint32_t i = 0; r->sets.s && i <= r->sets.mask; i++) {
        struct bgp_aset *s = r->sets.s[i].o;
        if (s) {
            size_t sz = aset_size(s);
            r->al.free(r->al.ctx, s, sz);
            r->bytes -= sz;
        }
    }
    bgp_htab_fini(r, &r->sets);
}

const struct bgp_aset *bgp_aset_intern(struct bgp_rib *r, const struct bgp_attrs *a)
{
    struct bgp_aset k;
    if (!fill_content(&k, a))
        return NULL;
    size_t asn_bytes = a->nasns * sizeof(uint32_t), seg_bytes = a->nsegs * sizeof(struct bgp_as_seg);
    uint64_t h = hash_bytes(0x6267705f61736574ull, content(&k), ASET_CONTENT_LEN);
    h = hash_bytes(h, a->asns, asn_bytes);
    h = hash_bytes(h, a->segs, seg_bytes);
    h = bgp_mix64(hash_bytes(h, a->other, a->other_len));
    uint32_t h32 = (uint32_t)h;
    struct bgp_htab *t = &r->sets;
    for (uint32_t i = h32 & t->mask; t->s[i].o; i = (i + 1) & t->mask) {
        struct bgp_aset *s = t->s[i].o;
        if (t->s[i].hash == h32 && __builtin_memcmp(content(s), content(&k), ASET_CONTENT_LEN) == 0 &&
            __builtin_memcmp(s->asns, a->asns, asn_bytes) == 0 &&
            __builtin_memcmp(bgp_aset_segs(s), a->segs, seg_bytes) == 0 &&
            __builtin_memcmp(bgp_aset_other(s), a->other, a->other_len) == 0) {
            s->refs++;
            return s;
        }
    }
    size_t sz = aset_size(&k);
    if (!bgp_htab_room(r, t))
        return NULL;
    struct bgp_aset *s = r->al.alloc(r->al.ctx, sz);
    if (!s)
        return NULL;
    r->bytes += sz;
    __builtin_memcpy(s, &k, sizeof k);
    __builtin_memcpy(s->asns, a->asns, asn_bytes);
    __builtin_memcpy((void *)bgp_aset_segs(s), a->segs, seg_bytes);
    __builtin_memcpy((void *)bgp_aset_other(s), a->other, a->other_len);
    s->hash = h32;
    s->refs = 1;
    s->loop = holds_as(s, r->local_as);
    s->neigh_as = neighbour_as(s, r->local_as);
    bgp_htab_put(t, s, h32);
    return s;
}

void bgp_aset_hold(struct bgp_rib *r, const struct bgp_aset *cs)
{
    ((struct bgp_aset *)cs)->refs++; /* the set is the RIB's own, const only to others */
}

void bgp_aset_put(struct bgp_rib *r, const struct bgp_aset *cs)
{
    struct bgp_aset *s = (struct bgp_aset *)cs;
    if (!s || --s->refs > 0)
        return;
    struct bgp_htab *t = &r->sets;
    uint32_t i = s->hash & t->mask;
    while (t->s[i].o != s)
        i = (i + 1) & t->mask;
    bgp_htab_remove(t, i);
    size_t sz = aset_size(s);
    r->al.free(r->al.ctx, s, sz);
    r->bytes -= sz;
}

void bgp_aset_get_attrs(const struct bgp_aset *s, struct bgp_attrs *out)
{
    __builtin_memset(out, 0, sizeof *out);
    out->has = s->has;
    out->origin = s->origin;
    out->med = s->med;
    out->local_pref = s->local_pref;
    __builtin_memcpy(out->nh4, s->nh4, 4);
    __builtin_memcpy(out->nh6, s->nh6, 16);
    __builtin_memcpy(out->nh6_ll, s->nh6_ll, 16);
    out->aggregator_as = s->aggregator_as;
    __builtin_memcpy(out->aggregator_id, s->aggregator_id, 4);
    out->nsegs = s->nsegs;
    out->nasns = s->nasns;
    out->path_len = s->path_len;
    out->other_len = s->other_len;
    __builtin_memcpy(out->asns, s->asns, s->nasns * sizeof(uint32_t));
    __builtin_memcpy(out->segs, bgp_aset_segs(s), s->nsegs * sizeof(struct bgp_as_seg));
    __builtin_memcpy(out->other, bgp_aset_other(s), s->other_len);
}

bool bgp_aset_resolve(struct bgp_rib *r, const struct bgp_aset *cs, uint8_t afi, uint32_t *cost)
{
    struct bgp_aset *s = (struct bgp_aset *)cs; /* the cache is the RIB's own */
    if (afi == BGP_AFI_IPV4) {
        /* RFC 4271 5.1.3: NEXT_HOP, or an IPv4 one from MP_REACH_NLRI. */
        if (s->gen4 != r->nh_gen) {
            s->gen4 = r->nh_gen;
            s->cost4 = 0;
            s->ok4 = (s->has & (BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH4)) &&
                     (!r->ops.resolve || r->ops.resolve(r->ops.ctx, BGP_AFI_IPV4, s->nh4, &s->cost4));
            if (!s->ok4)
                s->cost4 = 0;
        }
        *cost = s->cost4;
        return s->ok4;
    }
    /* RFC 2545 3: the global address resolves; the link-local one only
     * says which neighbour on the link. */
    if (s->gen6 != r->nh_gen) {
        s->gen6 = r->nh_gen;
        s->cost6 = 0;
        s->ok6 = (s->has & BGP_HAS_MP_NH6) &&
                 (!r->ops.resolve || r->ops.resolve(r->ops.ctx, BGP_AFI_IPV6, s->nh6, &s->cost6));
        if (!s->ok6)
            s->cost6 = 0;
    }
    *cost = s->cost6;
    return s->ok6;
}
