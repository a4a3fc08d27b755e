/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/rib_peers.c: the RIB's tables (bgp/bgp_rib.c): a peer
 * going down takes exactly its paths; every prefix length of both
 * families is its own route; running out of memory changes nothing. */
#include "tests/unit/bgp/rib_fixture.h"

static struct bgp_prefix nth4(uint32_t i)
{
    return fx_p4(10, (uint8_t)(i >> 16), (uint8_t)(i >> 8), (uint8_t)i, 32);
}

TEST(bgp_rib_peer_down_takes_exactly_its_paths)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    fx_peer(&f, 2, true, 0);
    fx_peer(&f, 3, true, 0);
    const struct bgp_aset *s1 = fx_set(&f, (struct sd){.has_lp = true, .lp = 300, .nas = 1, .as = {1}});
    const struct bgp_aset *s2 = fx_set(&f, (struct sd){.has_lp = true, .lp = 200, .nas = 1, .as = {2}});
    const struct bgp_aset *s3 = fx_set(&f, (struct sd){.has_lp = true, .lp = 100, .nas = 1, .as = {3}});
    /* peer 1 everything, peer 2 the even ones, peer 3 the multiples of 3 */
    const uint32_t n = 10000, even = 5000, three = 3334, six = 1667;
    for (uint32_t i = 0; i < n; i++) {
        struct bgp_prefix p = nth4(i);
        CHECK_EQ(bgp_rib_announce(&f.rib, 1, &p, s1), 0);
        if (i % 2 == 0)
            CHECK_EQ(bgp_rib_announce(&f.rib, 2, &p, s2), 0);
        if (i % 3 == 0)
            CHECK_EQ(bgp_rib_announce(&f.rib, 3, &p, s3), 0);
    }
    CHECK_EQ(f.calls, n);
    struct bgp_rib_stats st;
    struct bgp_rib_peer_counts c1, c2, c3;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, n);
    CHECK_EQ(st.paths, n + even + three);
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 4), 0); /* a peer with nothing */
    f.calls = 0;
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 1), n);
    CHECK_EQ(f.calls, n); /* every prefix lost its best: to 2, to 3 or to none */
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, even + three - six);
    CHECK_EQ(st.paths, even + three);
    bgp_rib_peer_counts(&f.rib, 1, &c1);
    bgp_rib_peer_counts(&f.rib, 2, &c2);
    bgp_rib_peer_counts(&f.rib, 3, &c3);
    CHECK_EQ(c1.received + c1.accepted + c1.best, 0);
    CHECK_EQ(c2.received, even);
    CHECK_EQ(c2.accepted, even);
    CHECK_EQ(c2.best, even);
    CHECK_EQ(c3.received, three);
    CHECK_EQ(c3.best, three - six);
    for (uint32_t i = 0; i < n; i++) {
        struct bgp_prefix p = nth4(i);
        int want = i % 2 == 0 ? 2 : i % 3 == 0 ? 3 : -1;
        if (fx_best(&f, p) != want) {
            CHECK_EQ(fx_best(&f, p), want);
            break;
        }
    }
    f.calls = 0;
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 3), three);
    CHECK_EQ(f.calls, three - six); /* where 3 was best */
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, even);
    CHECK_EQ(st.paths, even);
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 2), even);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    CHECK_EQ(st.paths, 0);
    CHECK_EQ(s1->refs, 1);
    bgp_aset_put(&f.rib, s1);
    bgp_aset_put(&f.rib, s2);
    bgp_aset_put(&f.rib, s3);
    fx_fini(&f);
}

/* Removals from the open-addressed table move later entries back: every
 * route left must still be found, none withdrawn found again. */
TEST(bgp_rib_withdraws_in_any_order_keep_the_rest_findable)
{
    static struct fx f;
    static uint32_t order[6000];
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    const struct bgp_aset *s = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    for (uint32_t i = 0; i < 6000; i++) {
        struct bgp_prefix p = nth4(i);
        CHECK_EQ(bgp_rib_announce(&f.rib, 1, &p, s), 0);
        order[i] = i;
    }
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = 5999; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint32_t j = (uint32_t)(x % (i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (uint32_t k = 0; k < 4000; k++) {
        struct bgp_prefix p = nth4(order[k]);
        CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &p), 0);
    }
    unsigned bad = 0;
    for (uint32_t k = 0; k < 6000; k++) {
        struct bgp_prefix p = nth4(order[k]);
        bad += (bgp_rib_find(&f.rib, &p) != NULL) != (k >= 4000);
    }
    CHECK_EQ(bad, 0);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 2000);
    bgp_aset_put(&f.rib, s);
    fx_fini(&f);
}

static void count_route(void *ctx, const struct bgp_route *rt)
{
    (*(unsigned *)ctx)++;
    CHECK(rt->best != NULL);
}

TEST(bgp_rib_every_prefix_length_of_both_families)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    const struct bgp_aset *s = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    /* All ones: the bits past each length must be cleared. */
    for (unsigned afi = 1; afi <= 2; afi++) {
        unsigned max = afi == 1 ? 32 : 128;
        for (unsigned len = 0; len <= max; len++) {
            struct bgp_prefix p = {.afi = (uint8_t)afi, .len = (uint8_t)len};
            memset(p.addr, 0xff, afi == 1 ? 4 : 16);
            CHECK_EQ(bgp_rib_announce(&f.rib, 1, &p, s), 0);
        }
    }
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 33 + 129);
    CHECK_EQ(f.calls, 33 + 129);
    for (unsigned afi = 1; afi <= 2; afi++) {
        unsigned max = afi == 1 ? 32 : 128;
        for (unsigned len = 0; len <= max; len++) {
            struct bgp_prefix p = {.afi = (uint8_t)afi, .len = (uint8_t)len};
            for (unsigned b = 0; b < len; b++)
                p.addr[b / 8] |= (uint8_t)(0x80 >> (b % 8));
            const struct bgp_route *rt = bgp_rib_find(&f.rib, &p);
            CHECK(rt && rt->p.len == len && rt->p.afi == afi && memcmp(rt->p.addr, p.addr, 16) == 0);
        }
    }
    unsigned n4 = 0, n6 = 0;
    bgp_rib_walk(&f.rib, BGP_AFI_IPV4, count_route, &n4);
    bgp_rib_walk(&f.rib, BGP_AFI_IPV6, count_route, &n6);
    CHECK_EQ(n4, 33);
    CHECK_EQ(n6, 129);
    /* Bad families and lengths are refused. */
    struct bgp_prefix bad[] = {{.afi = 1, .len = 33}, {.afi = 2, .len = 129}, {.afi = 3, .len = 0}};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(bgp_rib_announce(&f.rib, 1, &bad[i], s), -1);
        CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &bad[i]), 1);
        CHECK(bgp_rib_find(&f.rib, &bad[i]) == NULL);
    }
    CHECK_EQ(bgp_rib_announce(&f.rib, BGP_PEERS_MAX, &(struct bgp_prefix){.afi = 1}, s), -1);
    /* The /0s are one each, withdrawn by a host-bits-set query. */
    struct bgp_prefix d4 = {.afi = 1, .len = 0, .addr = {1, 2, 3, 4}}, d6 = {.afi = 2, .len = 0, .addr = {9}};
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &d4), 0);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &d6), 0);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &d6), 1);
    CHECK_EQ(bgp_rib_peer_down(&f.rib, 1), 32 + 128);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    bgp_aset_put(&f.rib, s);
    fx_fini(&f);
}

TEST(bgp_rib_no_memory_changes_nothing)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    fx_peer(&f, 2, true, 0);
    const struct bgp_aset *s = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    const struct bgp_aset *t = fx_set(&f, (struct sd){.nas = 1, .as = {200}});
    struct bgp_prefix p = fx_p4(10, 0, 0, 0, 8);
    /* no chunk for the path, then none for the route */
    for (long k = 0; k < 2; k++) {
        f.heap.fail_after = k;
        CHECK_EQ(bgp_rib_announce(&f.rib, 1, &p, s), -1);
        CHECK(bgp_rib_find(&f.rib, &p) == NULL);
        CHECK_EQ(f.calls, 0);
        CHECK_EQ(s->refs, 1);
    }
    f.heap.fail_after = -1;
    f.heap.fail_after = 0;
    CHECK(bgp_aset_intern(&f.rib, fx_attrs(&(struct sd){.nas = 1, .as = {300}})) == NULL);
    f.heap.fail_after = -1;
    /* Fill the path pool's chunk; a replacement then needs a new one. */
    uint32_t i = 0;
    while (f.rib.paths.end - f.rib.paths.bump >= (long)sizeof(struct bgp_path)) {
        struct bgp_prefix q = nth4(i++);
        CHECK_EQ(bgp_rib_announce(&f.rib, 1, &q, s), 0);
    }
    unsigned calls = f.calls;
    struct bgp_rib_stats before, after;
    bgp_rib_stats(&f.rib, &before);
    f.heap.fail_after = 0;
    struct bgp_prefix q = nth4(0);
    CHECK_EQ(bgp_rib_announce(&f.rib, 1, &q, t), -1);
    CHECK_EQ(bgp_rib_announce(&f.rib, 2, &q, t), -1);
    bgp_rib_stats(&f.rib, &after);
    CHECK_EQ(after.paths, before.paths);
    CHECK_EQ(after.prefixes, before.prefixes);
    CHECK_EQ(f.calls, calls);
    CHECK(bgp_rib_find(&f.rib, &q)->best->a == s);
    f.heap.fail_after = -1;
    CHECK_EQ(bgp_rib_announce(&f.rib, 1, &q, t), 0);
    CHECK(bgp_rib_find(&f.rib, &q)->best->a == t);
    bgp_aset_put(&f.rib, s);
    bgp_aset_put(&f.rib, t);
    fx_fini(&f);
    /* init itself */
    struct fx_heap h = {.fail_after = 1};
    struct bgp_alloc al = {fx_alloc, fx_free, &h};
    static struct bgp_rib r;
    CHECK_EQ(bgp_rib_init(&r, &al, NULL, 1, 1), -1);
    CHECK_EQ(h.live, 0);
}
