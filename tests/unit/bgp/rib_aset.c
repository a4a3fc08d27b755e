/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/rib_aset.c: interned attribute sets (bgp/bgp_aset.c):
 * one copy per content, fields outside `has` not counting, the parsed
 * form back as it went in, freed with the last reference. */
#include "tests/unit/bgp/rib_fixture.h"

TEST(bgp_rib_aset_same_content_same_set)
{
    static struct fx f;
    fx_init(&f);
    struct sd d = {.has_lp = true, .lp = 150, .has_med = true, .med = 7, .nas = 3, .as = {1, 2, 3}, .tag = 42};
    const struct bgp_aset *a = fx_set(&f, d), *b = fx_set(&f, d);
    CHECK(a == b);
    CHECK_EQ(a->refs, 2);
    d.med = 8;
    const struct bgp_aset *c = fx_set(&f, d);
    CHECK(c != a);
    d.med = 7, d.tag = 43; /* other attributes count */
    const struct bgp_aset *e = fx_set(&f, d);
    CHECK(e != a);
    d.tag = 42, d.as[2] = 4; /* so does every ASN */
    const struct bgp_aset *g = fx_set(&f, d);
    CHECK(g != a);
    /* Fields the set does not have do not count. */
    struct bgp_attrs *at = fx_attrs(&(struct sd){.nas = 1, .as = {9}});
    const struct bgp_aset *h = bgp_aset_intern(&f.rib, at);
    at->med = 1234, at->local_pref = 55, at->aggregator_as = 9, at->nh6_ll[3] = 1;
    const struct bgp_aset *h2 = bgp_aset_intern(&f.rib, at);
    CHECK(h == h2);
    CHECK_EQ(h->med, 0);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 5);
    const struct bgp_aset *all[] = {a, b, c, e, g, h, h2};
    for (int i = 0; i < 7; i++)
        bgp_aset_put(&f.rib, all[i]);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 0);
    fx_fini(&f);
}

TEST(bgp_rib_aset_round_trip)
{
    static struct fx f;
    static struct bgp_attrs in, out;
    fx_init(&f);
    memset(&in, 0, sizeof in);
    in.has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_MP_NH6 | BGP_HAS_MP_NH6_LL | BGP_HAS_MED |
             BGP_HAS_AGGREGATOR | BGP_HAS_ATOMIC_AGGREGATE | BGP_HAS_COMMUNITIES;
    in.origin = BGP_ORIGIN_EGP;
    in.med = 77;
    for (int i = 0; i < 16; i++)
        in.nh6[i] = (uint8_t)(0x20 + i), in.nh6_ll[i] = (uint8_t)(0xfe - i);
    in.aggregator_as = 4200000000u;
    memcpy(in.aggregator_id, "\x0a\x01\x02\x03", 4);
    /* a confederation sequence, a sequence, a set */
    in.nsegs = 3;
    in.segs[0] = (struct bgp_as_seg){3, 2};
    in.segs[1] = (struct bgp_as_seg){2, 3};
    in.segs[2] = (struct bgp_as_seg){1, 2};
    uint32_t asns[] = {65501, 65502, 4200000001u, 3356, 174, 64512, 64513};
    memcpy(in.asns, asns, sizeof asns);
    in.nasns = 7;
    in.path_len = 4;
    in.other_len = 11;
    memcpy(in.other, "\xc0\x08\x08\x00\x64\x00\x01\xff\xff\xff\x01", 11); /* COMMUNITIES */
    const struct bgp_aset *s = bgp_aset_intern(&f.rib, &in);
    CHECK(s != NULL);
    CHECK_EQ(s->neigh_as, 4200000001u); /* past the confederation segment */
    CHECK(!s->loop);
    bgp_aset_get_attrs(s, &out);
    CHECK(memcmp(&in, &out, sizeof in) == 0);
    CHECK(bgp_aset_intern(&f.rib, &out) == s);
    CHECK_EQ(s->refs, 2);
    bgp_aset_put(&f.rib, s);
    bgp_aset_put(&f.rib, s);
    fx_fini(&f);
}

TEST(bgp_rib_aset_neighbour_as)
{
    static struct fx f;
    fx_init(&f);
    const struct bgp_aset *seq = fx_set(&f, (struct sd){.nas = 2, .as = {100, 200}});
    const struct bgp_aset *set = fx_set(&f, (struct sd){.nas = 2, .as = {100, 200}, .as_set = true});
    const struct bgp_aset *none = fx_set(&f, (struct sd){0});
    /* RFC 4271 9.1.2.2 c): an empty path or one starting with an AS_SET
     * is the local AS's. */
    CHECK_EQ(seq->neigh_as, 100);
    CHECK_EQ(set->neigh_as, FX_LOCAL_AS);
    CHECK_EQ(none->neigh_as, FX_LOCAL_AS);
    CHECK_EQ(set->path_len, 1);
    bgp_aset_put(&f.rib, seq);
    bgp_aset_put(&f.rib, set);
    bgp_aset_put(&f.rib, none);
    fx_fini(&f);
}

TEST(bgp_rib_aset_rejects_what_does_not_add_up)
{
    static struct fx f;
    fx_init(&f);
    struct bgp_attrs *a = fx_attrs(&(struct sd){.nas = 3, .as = {1, 2, 3}});
    a->nasns = 2; /* segments say 3 */
    CHECK(bgp_aset_intern(&f.rib, a) == NULL);
    a->nasns = 3;
    a->nsegs = 65;
    CHECK(bgp_aset_intern(&f.rib, a) == NULL);
    a->nsegs = 1;
    a->other_len = BGP_OTHER_ATTRS_MAX + 1;
    CHECK(bgp_aset_intern(&f.rib, a) == NULL);
    fx_fini(&f);
}

TEST(bgp_rib_aset_freed_with_the_last_reference)
{
    static struct fx f;
    fx_init(&f);
    size_t base = f.heap.live;
    const struct bgp_aset *s = fx_set(&f, (struct sd){.nas = 2, .as = {100, 200}, .tag = 5});
    CHECK(f.heap.live > base);
    bgp_aset_put(&f.rib, s);
    CHECK_EQ(f.heap.live, base);
    /* Held by paths: the caller's reference goes, the set stays. */
    fx_peer(&f, 1, true, 0);
    fx_peer(&f, 2, true, 0);
    s = fx_set(&f, (struct sd){.nas = 2, .as = {100, 200}, .tag = 5});
    struct bgp_prefix p = fx_p4(10, 0, 0, 0, 8), q = fx_p6(0x2001, 0xdb8, 0, 32);
    bgp_rib_announce(&f.rib, 1, &p, s);
    bgp_rib_announce(&f.rib, 2, &p, s);
    bgp_rib_announce(&f.rib, 1, &q, s);
    CHECK_EQ(s->refs, 4);
    bgp_aset_put(&f.rib, s);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 1);
    bgp_rib_withdraw(&f.rib, 1, &p);
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 1), 1);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 1);
    /* The last path goes: a replacement drops the old set's reference. */
    const struct bgp_aset *t = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    bgp_rib_announce(&f.rib, 2, &p, t);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 1);
    bgp_aset_put(&f.rib, t);
    bgp_rib_withdraw(&f.rib, 2, &p);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 0);
    CHECK_EQ(st.prefixes, 0);
    CHECK_EQ(st.bytes, f.heap.live);
    fx_fini(&f);
}

TEST(bgp_rib_aset_many_sets)
{
    static struct fx f;
    static const struct bgp_aset *sets[20000];
    fx_init(&f);
    for (uint32_t i = 0; i < 20000; i++)
        sets[i] = fx_set(&f, (struct sd){.nas = 2, .as = {i / 100, i}, .tag = i});
    for (uint32_t i = 0; i < 20000; i++)
        CHECK(fx_set(&f, (struct sd){.nas = 2, .as = {i / 100, i}, .tag = i}) == sets[i]);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 20000);
    CHECK_EQ(st.bytes, f.heap.live);
    for (uint32_t i = 0; i < 20000; i++) {
        bgp_aset_put(&f.rib, sets[i]);
        bgp_aset_put(&f.rib, sets[i]);
    }
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 0);
    /* fini also frees sets a caller still holds */
    fx_set(&f, (struct sd){.nas = 1, .as = {1}});
    fx_fini(&f);
}
