/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/ecmp.c: equal-cost multipath (net/fwd/nexthop_group.h):
 * groups made once per set of paths, the hash-threshold choice, flows
 * that stay on their path while others go and come back, and the IPv4
 * fast and slow paths and the stack's own packets choosing alike. */
#include "tests/support/fwd6_fixture.h"
#include "tests/unit/check.h"

TEST(ecmp_group_made_once_per_set)
{
    static struct nh_groups t;
    memset(&t, 0, sizeof t);
    bool made;
    const uint32_t ab[2] = {7, 3}, ba[2] = {3, 7}, abc[3] = {3, 7, 9}, twice[2] = {3, 3};
    int g = nh_group_get(&t, ab, 2, &made);
    CHECK(g >= 0 && made);
    CHECK_EQ(t.g[g].path[0], 3); /* sorted: a group is its set */
    CHECK_EQ(nh_group_get(&t, ba, 2, &made), g);
    CHECK(!made);
    int g3 = nh_group_get(&t, abc, 3, &made);
    CHECK(g3 >= 0 && g3 != g && made);
    CHECK_EQ(nh_group_get(&t, twice, 2, &made), -1);
    CHECK_EQ(nh_group_get(&t, ab, 1, &made), -1);
    uint32_t many[NH_GROUP_PATHS + 1];
    for (unsigned i = 0; i <= NH_GROUP_PATHS; i++)
        many[i] = i + 1;
    CHECK_EQ(nh_group_get(&t, many, NH_GROUP_PATHS + 1, &made), -1);
    CHECK(nh_group_get(&t, many, NH_GROUP_PATHS, &made) >= 0);
    /* all NH_GROUP_MAX in use: refused, until one is freed */
    for (unsigned i = 0; i < NH_GROUP_MAX; i++) {
        uint32_t p[2] = {1000 + i, 2000 + i};
        nh_group_get(&t, p, 2, &made);
    }
    const uint32_t other[2] = {40000, 40001};
    CHECK_EQ(nh_group_get(&t, other, 2, &made), -1);
    nh_group_free(&t, (unsigned)g);
    CHECK_EQ(nh_group_get(&t, other, 2, &made), g);
}

/* 4 paths, 4096 flows: each path a fair share; with one down, every flow
 * of the others stays put and its flows spread over the three; back up,
 * every flow where it began; all down: the same as all up. */
TEST(ecmp_pick_spreads_and_keeps_flows)
{
    static struct nh_groups t;
    memset(&t, 0, sizeof t);
    bool made;
    const uint32_t p[4] = {11, 12, 13, 14};
    int g = nh_group_get(&t, p, 4, &made);
    enum { FLOWS = 4096 };
    static uint32_t first[FLOWS];
    unsigned share[15] = {0}, moved_to[15] = {0};
    uint64_t seed = 9;
    static uint32_t hash[FLOWS];
    for (unsigned f = 0; f < FLOWS; f++) {
        uint8_t ip[40] = {0x45, 0, 0, 40, 0, 0, 0, 0, 64, 17};
        uint64_t r = test_rand(&seed);
        memcpy(ip + 12, &r, 8); /* addresses */
        memcpy(ip + 20, (uint8_t *)&r + 4, 4); /* ports */
        hash[f] = nh_flow_hash4(ip);
        first[f] = nh_group_pick(&t.g[g], hash[f]);
        share[first[f]]++;
    }
    for (unsigned i = 11; i <= 14; i++)
        CHECK(share[i] > FLOWS / 4 * 8 / 10 && share[i] < FLOWS / 4 * 12 / 10);
    CHECK(nh_group_set_live(&t, (unsigned)g, 1, false)); /* path 12 */
    CHECK(!nh_group_set_live(&t, (unsigned)g, 1, false));
    for (unsigned f = 0; f < FLOWS; f++) {
        uint32_t now = nh_group_pick(&t.g[g], hash[f]);
        CHECK(now != 12);
        if (first[f] != 12)
            CHECK_EQ(now, first[f]);
        else
            moved_to[now]++;
    }
    for (unsigned i = 11; i <= 14; i++)
        if (i != 12)
            CHECK(moved_to[i] > share[12] / 3 / 2);
    nh_group_set_live(&t, (unsigned)g, 1, true);
    for (unsigned f = 0; f < FLOWS; f++)
        CHECK_EQ(nh_group_pick(&t.g[g], hash[f]), first[f]);
    for (unsigned i = 0; i < 4; i++)
        nh_group_set_live(&t, (unsigned)g, i, false);
    for (unsigned f = 0; f < FLOWS; f++)
        CHECK_EQ(nh_group_pick(&t.g[g], hash[f]), first[f]);
}

/* A fragment's flow is its addresses and protocol: every piece one way. */
TEST(ecmp_flow_hash_fragments_and_ports)
{
    uint8_t a[28] = {0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 2, 192, 0, 2, 1, 0x04, 0x00, 0, 9};
    uint8_t b[28];
    memcpy(b, a, 28);
    b[21] = 1; /* another source port */
    CHECK(nh_flow_hash4(a) != nh_flow_hash4(b));
    a[6] = b[6] = 0x20; /* MF: first fragment */
    CHECK_EQ(nh_flow_hash4(a), nh_flow_hash4(b));
    uint8_t c[28];
    memcpy(c, a, 28);
    c[6] = 0;
    c[7] = 0x10; /* a later fragment: its "ports" are payload */
    c[20] = 0x77;
    CHECK_EQ(nh_flow_hash4(a), nh_flow_hash4(c));
}

/* A group's adjacency picks what the group does (nexthop_adj_pick against
 * nexthop_group_pick), for groups of 2 to NH_GROUP_PATHS paths, those
 * past NEXTHOP_ADJ_PATHS left to the group, with paths going and coming
 * back: the next check (one a burst) sees each change. */
TEST(ecmp_adjacency_picks_as_the_group)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    struct nexthop_cache *c = calloc(1, sizeof(*c));
    nexthop_cache_init(c, &x.nht);
    uint32_t slot[NH_GROUP_PATHS];
    for (unsigned i = 0; i < NH_GROUP_PATHS; i++)
        slot[i] = fwd_fix_nh(&x, NEXTHOP_VIA, (uint8_t)(i & 1), NET_IP4(10, 0, i & 1, 50 + i), 0);
    uint64_t seed = 3;
    for (unsigned n = 2; n <= NH_GROUP_PATHS; n++) {
        bool made;
        uint32_t idx = nexthop_group_add(&x.nht, slot, n, &made);
        CHECK(idx != 0 && made);
        unsigned g = nexthop_get(&x.nht, idx).gw_be;
        for (unsigned round = 0; round < 8; round++) {
            /* round 0 all live; then random masks, none live among them */
            for (unsigned i = 0; round && i < n; i++)
                nh_group_set_live(&x.nht.groups, g, i, round == 7 ? false : test_rand(&seed) & 1);
            nexthop_cache_check(c, x.fn.s);
            const struct nexthop_adj *a = nexthop_cache_get(c, x.fn.s, idx, x.fn.now_ns);
            CHECK_EQ(a->state, NEXTHOP_ADJ_GROUP);
            for (unsigned k = 0; k < 2000; k++) {
                uint32_t hash = (uint32_t)test_rand(&seed);
                CHECK_EQ(nexthop_adj_pick(&x.nht, a, hash), nexthop_group_pick(&x.nht, g, hash));
            }
        }
    }
    free(c);
    fwd_fix_free(&x);
}

/* The fixture's router with 192.0.2.0/24 over two paths: 10.0.0.2 on
 * eth0 and 10.0.1.2 on eth1. */
static uint32_t ecmp_route(struct fwd_fix *x, uint32_t *paths)
{
    paths[0] = fwd_fix_nh(x, NEXTHOP_VIA, 0, FAKE_PEER, 0);
    paths[1] = x->nh_gw1;
    bool made;
    uint32_t g = nexthop_group_add(&x->nht, paths, 2, &made);
    route4_add(x->rt, 0xc0000200, 24, g);
    return g;
}

/* 64 UDP flows into eth1 (source ports 1000 + i) to 192.0.2.5: the port
 * each went out of (0 or 1), by flow. */
static void send_flows(struct fwd_fix *x, int *out_port)
{
    uint8_t(*fr)[2048] = calloc(64, 2048);
    size_t len[64];
    for (uint32_t i = 0; i < 64; i++)
        len[i] = fwd_fix_frame(fr[i], 1, NET_IP4(10, 0, 1, 2), NET_IP4(192, 0, 2, 5), 64, 0, 20, i);
    fake_netdev_clear(&x->fn.nd[0]);
    fake_netdev_clear(&x->fn.nd[1]);
    fwd_fix_burst(x, 1, fr, len, 64);
    for (int i = 0; i < 64; i++)
        out_port[i] = -1;
    for (int port = 0; port < 2; port++)
        for (uint32_t k = 0; k < x->fn.nd[port].nsent; k++) {
            const uint8_t *d = x->fn.nd[port].sent[k]->data;
            int flow = (d[34] << 8 | d[35]) - 1000;
            if (flow >= 0 && flow < 64)
                out_port[flow] = port;
        }
    free(fr);
}

TEST(ecmp_fast_path_keeps_each_flow_on_one_path)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 512);
    fwd_fix_learn(&x);
    uint32_t paths[2];
    uint32_t g = ecmp_route(&x, paths);
    CHECK(g != 0);
    int a[64], b[64], n0 = 0;
    send_flows(&x, a);
    send_flows(&x, b);
    for (int i = 0; i < 64; i++) {
        CHECK(a[i] >= 0);
        CHECK_EQ(a[i], b[i]); /* the same path each time */
        n0 += a[i] == 0;
    }
    CHECK(n0 > 8 && n0 < 56); /* both paths used */
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=128 fwd-fast=128 fwd-tx=128"), 0);
    /* eth0's path down: every flow on eth1, those there already unmoved */
    unsigned grp = nexthop_get(&x.nht, g).gw_be, eth0 = x.nht.groups.g[grp].path[0] == paths[0] ? 0 : 1;
    CHECK_EQ(x.nht.groups.g[grp].path[eth0], paths[0]);
    nh_group_set_live(&x.nht.groups, grp, eth0, false);
    send_flows(&x, b);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(b[i], 1);
    nh_group_set_live(&x.nht.groups, grp, eth0, true);
    send_flows(&x, b);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(a[i], b[i]);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* With an IP option (the stack's, then the slow path's) each flow leaves
 * by the port the fast path gave it; what the stack itself sends to
 * 192.0.2.5 takes one of the group's paths. */
TEST(ecmp_slow_path_and_stack_follow_the_group)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 512);
    fwd_fix_learn(&x);
    uint32_t paths[2];
    ecmp_route(&x, paths);
    int port[64];
    send_flows(&x, port);
    static const uint8_t ra[4] = {0x94, 4, 0, 0}; /* router alert */
    for (uint32_t i = 0; i < 16; i++) {
        static uint8_t f[2048];
        size_t n = fwd_fix_frame(f, 1, NET_IP4(10, 0, 1, 2), NET_IP4(192, 0, 2, 5), 64, 0, 20, i);
        memmove(f + 38, f + 34, n - 34);
        memcpy(f + 34, ra, 4);
        f[14] = 0x46;
        f[17] += 4;
        fwd_fix_csum_ip(f + 14);
        fake_netdev_clear(&x.fn.nd[0]);
        fake_netdev_clear(&x.fn.nd[1]);
        fwd_fix_one(&x, 1, f, n + 4);
        CHECK_EQ(x.fn.nd[port[i]].nsent, 1);
        CHECK_EQ(x.fn.nd[!port[i]].nsent, 0);
    }
    CHECK(x.f->ctr.slow == 16 && x.f->ctr.options == 16);
    uint16_t out;
    uint32_t gw;
    CHECK(fwd_route(x.f, NET_IP4(192, 0, 2, 5), &out, &gw));
    CHECK((out == 0 && gw == FAKE_PEER) || (out == 1 && gw == FAKE_PEER1));
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* IPv6: 2001:db8:55::/48 over both peers; 64 flows (source ports 1000 +
 * i, flow labels) into eth0: the port each went out of. */
static void send_flows6(struct fwd6_fix *y, int *out_port)
{
    static const uint8_t dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x55, [15] = 5};
    uint8_t(*fr)[2048] = calloc(64, 2048);
    size_t len[64];
    for (uint32_t i = 0; i < 64; i++)
        len[i] = fwd6_fix_frame(fr[i], 0, fwd6_peer0, dst, 64, 20, 1000 + i);
    fake_netdev_clear(&y->x.fn.nd[0]);
    fake_netdev_clear(&y->x.fn.nd[1]);
    fwd_fix_burst(&y->x, 0, fr, len, 64);
    for (int i = 0; i < 64; i++)
        out_port[i] = -1;
    for (int port = 0; port < 2; port++)
        for (uint32_t k = 0; k < y->x.fn.nd[port].nsent; k++) {
            const uint8_t *d = y->x.fn.nd[port].sent[k]->data;
            int flow = (d[54] << 8 | d[55]) - 1000;
            if (flow >= 0 && flow < 64)
                out_port[flow] = port;
        }
    free(fr);
}

TEST(ecmp_ipv6_fast_path_keeps_each_flow_on_one_path)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 512);
    fwd6_fix_learn(&y);
    const uint32_t paths[2] = {FWD6_NH_GW0, FWD6_NH_GW1};
    bool made;
    uint32_t g = fwd_nh6_group_add(&y.nh6, paths, 2, &made);
    CHECK(g != 0 && made);
    static const uint8_t pfx[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x55};
    CHECK_EQ(route6_add(y.rt6, pfx, 48, g), ROUTE_OK);
    int a[64], b[64], n0 = 0;
    send_flows6(&y, a);
    send_flows6(&y, b);
    for (int i = 0; i < 64; i++) {
        CHECK(a[i] >= 0);
        CHECK_EQ(a[i], b[i]);
        n0 += a[i] == 0;
    }
    CHECK(n0 > 8 && n0 < 56);
    CHECK_EQ(y.x.f->ctr.fast6, 128);
    fwd_nh6_del(&y.nh6, g); /* the group goes with its slot */
    CHECK_EQ(y.nh6.groups.g[0].n + y.nh6.groups.g[1].n, 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}
