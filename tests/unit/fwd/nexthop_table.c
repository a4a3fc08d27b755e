/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/nexthop_table.c: the shared next-hop table and the per-core
 * adjacency cache (net/fwd/nexthop.c). */
#include <pthread.h>

#include "tests/unit/check.h"
#include "tests/support/fwd_fixture.h"

TEST(nexthop_set_get_and_bad_values)
{
    static struct nexthop_table t;
    nexthop_init(&t);
    uint32_t g = nexthop_gen(&t);
    struct nexthop a = {.kind = NEXTHOP_VIA, .port = 3, .mtu = 9000, .gw_be = NET_IP4(10, 9, 8, 7)};
    CHECK_EQ(nexthop_set(&t, 5, &a), 0);
    CHECK(nexthop_gen(&t) != g);
    struct nexthop b = nexthop_get(&t, 5);
    CHECK_EQ(b.kind, NEXTHOP_VIA);
    CHECK_EQ(b.port, 3);
    CHECK_EQ(b.mtu, 9000);
    CHECK_EQ(b.gw_be, NET_IP4(10, 9, 8, 7));
    CHECK_EQ(nexthop_get(&t, 4).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_get(&t, NEXTHOP_MAX).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_get(&t, 0xffffffffu).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_set(&t, 0, &a), -1);
    CHECK_EQ(nexthop_set(&t, NEXTHOP_MAX, &a), -1);
    struct nexthop bad = a;
    bad.port = NET_MAX_PORTS;
    CHECK_EQ(nexthop_set(&t, 6, &bad), -1);
    bad = a;
    bad.mtu = NEXTHOP_MIN_MTU - 1;
    CHECK_EQ(nexthop_set(&t, 6, &bad), -1);
    bad = a;
    bad.kind = 9;
    CHECK_EQ(nexthop_set(&t, 6, &bad), -1);
    CHECK_STR(nexthop_kind_name(NEXTHOP_BLACKHOLE), "blackhole");
    CHECK_STR(nexthop_kind_name(200), "?");
}

TEST(nexthop_add_finds_equal_entries_and_fills_up)
{
    static struct nexthop_table t;
    nexthop_init(&t);
    struct nexthop a = {.kind = NEXTHOP_VIA, .port = 1, .gw_be = NET_IP4(10, 0, 1, 2)};
    uint32_t i = nexthop_add(&t, &a);
    CHECK_EQ(i, 1);
    CHECK_EQ(nexthop_add(&t, &a), 1);
    struct nexthop hole = {.kind = NEXTHOP_BLACKHOLE};
    CHECK_EQ(nexthop_add(&t, &hole), 2);
    struct nexthop fr = {.kind = NEXTHOP_FREE};
    CHECK_EQ(nexthop_add(&t, &fr), 0);
    for (uint32_t k = 3; k < NEXTHOP_MAX; k++) {
        a.gw_be = k;
        CHECK_EQ(nexthop_add(&t, &a), k);
    }
    a.gw_be = 0xdead;
    CHECK_EQ(nexthop_add(&t, &a), 0); /* full */
    nexthop_del(&t, 7);
    CHECK_EQ(nexthop_get(&t, 7).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_add(&t, &a), 7); /* the freed slot again */
    nexthop_del(&t, NEXTHOP_MAX - 1);
    nexthop_del(&t, NEXTHOP_MAX - 2);
    CHECK_EQ(t.used, NEXTHOP_MAX - 2);
}

TEST(nexthop_adjacency_states)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 32);
    fake_net_learn_peer(&x.fn);
    struct nexthop_cache *c = calloc(1, sizeof(*c));
    nexthop_cache_init(c, &x.nht);
    uint64_t now = x.fn.now_ns;
    const struct nexthop_adj *a = nexthop_cache_get(c, x.fn.s, 0, now);
    CHECK_EQ(a->state, NEXTHOP_ADJ_SLOW);
    CHECK(a->until_ns == UINT64_MAX);
    a = nexthop_cache_get(c, x.fn.s, x.nh_link0, now);
    CHECK_EQ(a->state, NEXTHOP_ADJ_LINK);
    CHECK_EQ(a->port, 0);
    CHECK_EQ(a->mtu, 1500);
    CHECK(memcmp(a->eth + 6, fake_mac0, 6) == 0);
    a = nexthop_cache_get(c, x.fn.s, x.nh_gw1, now); /* not resolved yet */
    CHECK_EQ(a->state, NEXTHOP_ADJ_SLOW);
    CHECK_EQ(x.fn.s->ctr.arp_tx_request, 0);         /* the slow path asks, not this */
    a = nexthop_cache_get(c, x.fn.s, x.nh_mtu, now);
    CHECK_EQ(a->state, NEXTHOP_ADJ_SLOW);
    CHECK_EQ(nexthop_cache_get(c, x.fn.s, x.nh_hole, now)->state, NEXTHOP_ADJ_SLOW);
    CHECK_EQ(nexthop_cache_get(c, x.fn.s, 77, now)->state, NEXTHOP_ADJ_SLOW);
    CHECK(nexthop_cache_fill(c, x.fn.s, NEXTHOP_MAX + 5, now) == &c->adj[0]);
    struct nexthop far = {.kind = NEXTHOP_VIA, .port = 5, .gw_be = FAKE_PEER};
    uint32_t nh_far = nexthop_add(&x.nht, &far); /* a port this stack lacks */
    nexthop_cache_check(c, x.fn.s);
    CHECK_EQ(nexthop_cache_get(c, x.fn.s, nh_far, now)->state, NEXTHOP_ADJ_SLOW);

    fwd_fix_learn_peer1(&x); /* ARP input: every adjacency is forgotten */
    nexthop_cache_check(c, x.fn.s);
    CHECK(c->adj[x.nh_link0].until_ns == 0);
    a = nexthop_cache_get(c, x.fn.s, x.nh_mtu, now);
    CHECK_EQ(a->state, NEXTHOP_ADJ_MAC);
    CHECK_EQ(a->mtu, 576);
    CHECK_EQ(a->port, 1);
    CHECK(memcmp(a->eth, fwd_peer1_mac, 6) == 0);
    CHECK(memcmp(a->eth + 6, fake_mac1, 6) == 0);

    /* Until its time is up an entry is used as it is. */
    struct nexthop moved = {.kind = NEXTHOP_VIA, .port = 0, .gw_be = FAKE_PEER, .mtu = 9000};
    x.nht.e[x.nh_mtu] = 0;
    CHECK_EQ(nexthop_cache_get(c, x.fn.s, x.nh_mtu, now)->state, NEXTHOP_ADJ_MAC);
    a = nexthop_cache_get(c, x.fn.s, x.nh_mtu, now + NEXTHOP_ADJ_TTL_NS);
    CHECK_EQ(a->state, NEXTHOP_ADJ_SLOW);
    /* A change through nexthop_set is seen at the next burst. */
    nexthop_set(&x.nht, x.nh_mtu, &moved);
    nexthop_cache_check(c, x.fn.s);
    a = nexthop_cache_get(c, x.fn.s, x.nh_mtu, now);
    CHECK_EQ(a->state, NEXTHOP_ADJ_MAC);
    CHECK_EQ(a->port, 0);
    CHECK_EQ(a->mtu, 1500); /* the port's is smaller */
    CHECK(memcmp(a->eth, fake_peer_mac, 6) == 0);
    free(c);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* One writer flips an entry between two values while a reader loads it:
 * the reader never sees a mix. */
static struct nexthop_table race_t;
static _Atomic int race_stop;

static void *race_writer(void *arg)
{
    struct nexthop a = {.kind = NEXTHOP_VIA, .port = 1, .mtu = 1500, .gw_be = 0x01010101};
    struct nexthop b = {.kind = NEXTHOP_BLACKHOLE, .port = 6, .mtu = 9000, .gw_be = 0xfefefefe};
    for (int i = 0; !atomic_load(&race_stop); i++)
        nexthop_set(&race_t, 9, i & 1 ? &a : &b);
    return NULL;
}

TEST(nexthop_readers_see_whole_entries)
{
    nexthop_init(&race_t);
    struct nexthop a = {.kind = NEXTHOP_VIA, .port = 1, .mtu = 1500, .gw_be = 0x01010101};
    nexthop_set(&race_t, 9, &a);
    atomic_store(&race_stop, 0);
    pthread_t w;
    pthread_create(&w, NULL, race_writer, NULL);
    int mixed = 0;
    for (int i = 0; i < 200000; i++) {
        struct nexthop e = nexthop_get(&race_t, 9);
        bool is_a = e.kind == NEXTHOP_VIA && e.port == 1 && e.mtu == 1500 && e.gw_be == 0x01010101;
        bool is_b = e.kind == NEXTHOP_BLACKHOLE && e.port == 6 && e.mtu == 9000 && e.gw_be == 0xfefefefe;
        mixed += !is_a && !is_b;
    }
    atomic_store(&race_stop, 1);
    pthread_join(w, NULL);
    CHECK_EQ(mixed, 0);
}
