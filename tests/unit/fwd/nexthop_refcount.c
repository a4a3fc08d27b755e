/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/nexthop_refcount.c: reference counts on next-hop slots and
 * their deferred freeing (net/fwd/nexthop_ref.c), with the IPv4 table
 * (net/fwd/nexthop.c), the IPv6 one (net/fwd/nexthop6.c) and real route tables, as
 * apps/router.c and router6.c use them: a route through a gateway
 * finds or makes its slot and is counted (nexthop_ref_route4/6), a bulk
 * load counts through nexthop_ref_set, and a reclaim after every core's
 * quiescent point (here: right after the seal) frees the slots left at
 * zero. */
#include "tests/unit/check.h"
#include "tests/support/route_alloc.h"

#include "net/fwd/nexthop6.h"
#include "net/fwd/nexthop_ref.h"

struct rig4 {
    struct test_alloc al;
    struct route4 *rt;
    struct nexthop_table nht;
    struct nexthop_ref refs;
    uint32_t connected;
};

static void free4(void *ctx, uint32_t idx) { nexthop_del(ctx, idx); }

/* A router with eth1 at 10.0.1.1/24: its connected route, held for good. */
static struct rig4 *rig4_new(void)
{
    struct rig4 *r = calloc(1, sizeof(*r));
    struct route_cfg cfg = test_route_cfg(&r->al);
    r->rt = route4_create(&cfg);
    nexthop_init(&r->nht);
    nexthop_ref_init(&r->refs, NEXTHOP_MAX);
    struct nexthop link = {.kind = NEXTHOP_VIA, .port = 1};
    r->connected = nexthop_add(&r->nht, &link);
    nexthop_ref_get(&r->refs, r->connected);
    CHECK_EQ(nexthop_ref_route4(&r->refs, r->rt, 0x0a000100, 24, r->connected), ROUTE_OK);
    return r;
}

static void rig4_free(struct rig4 *r)
{
    route4_destroy(r->rt);
    CHECK_EQ(r->al.live_bytes, 0);
    free(r);
}

/* What router_route_add does: the gateway's slot (the same for every
 * route through it), then the counted change. */
static uint32_t gw_slot(struct rig4 *r, uint32_t gw_host)
{
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = 1, .gw_be = net_htonl(gw_host)};
    return nexthop_add(&r->nht, &nh);
}

static int route_via(struct rig4 *r, uint32_t addr, unsigned len, uint32_t gw_host)
{
    uint32_t nh = gw_slot(r, gw_host);
    return nh ? nexthop_ref_route4(&r->refs, r->rt, addr, len, nh) : -100;
}

static int route_del(struct rig4 *r, uint32_t addr, unsigned len)
{
    return nexthop_ref_route4(&r->refs, r->rt, addr, len, ROUTE_NH_NONE);
}

/* Every core has passed a quiescent point since the last change. */
static void rig4_quiesce(struct rig4 *r)
{
    nexthop_ref_reclaim(&r->refs, nexthop_ref_seal(&r->refs), free4, &r->nht);
}

/* The bug: slots were never freed, so after NEXTHOP_MAX - 2 gateways had
 * come and gone every add through a new one failed. */
TEST(nexthop_ref_v4_gateways_come_and_go)
{
    struct rig4 *r = rig4_new();
    uint32_t failed = 0;
    for (uint32_t k = 0; k < 2000; k++) {
        uint32_t gw = 0x0a010000 + 2 + k; /* 10.1.0.2 up: distinct gateways */
        failed += route_via(r, 0x0ac80000, 16, gw) != ROUTE_OK;
        CHECK_EQ(route4_lookup(r->rt, 0x0ac80101), gw_slot(r, gw));
        CHECK_EQ(route_del(r, 0x0ac80000, 16), ROUTE_OK);
        rig4_quiesce(r);
    }
    CHECK_EQ(failed, 0);
    CHECK_EQ(r->nht.used, 2); /* the connected slot; every gateway's was freed */
    CHECK_EQ(nexthop_get(&r->nht, 2).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_ref_count(&r->refs, r->connected), 2); /* the hold and its route */
    CHECK_EQ(route4_lookup(r->rt, 0x0a000105), r->connected);
    rig4_free(r);
}

TEST(nexthop_ref_v4_slot_kept_while_a_route_uses_it)
{
    struct rig4 *r = rig4_new();
    uint32_t gw = 0x0a000102, nh = gw_slot(r, gw);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, gw), ROUTE_OK);
    CHECK_EQ(route_via(r, 0x0ac90000, 16, gw), ROUTE_OK);
    CHECK_EQ(gw_slot(r, gw), nh); /* one slot for both */
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), 2);
    CHECK_EQ(route_del(r, 0x0ac80000, 16), ROUTE_OK);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), 1);
    CHECK_EQ(nexthop_get(&r->nht, nh).kind, NEXTHOP_VIA);
    CHECK_EQ(nexthop_get(&r->nht, nh).gw_be, net_htonl(gw));
    CHECK_EQ(route4_lookup(r->rt, 0x0ac90101), nh);
    CHECK_EQ(route_del(r, 0x0ac90000, 16), ROUTE_OK);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, nh).kind, NEXTHOP_FREE);
    /* Neither a failed delete nor a route to the connected slot's prefix
     * that is not there changes a count. */
    CHECK_EQ(route_del(r, 0x0ac90000, 16), ROUTE_ENOENT);
    CHECK_EQ(nexthop_ref_count(&r->refs, r->connected), 2);
    rig4_free(r);
}

TEST(nexthop_ref_v4_replaced_route_releases_old_next_hop)
{
    struct rig4 *r = rig4_new();
    uint32_t g1 = 0x0a000102, g2 = 0x0a000103, n1 = gw_slot(r, g1);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g1), ROUTE_OK);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g1), ROUTE_OK); /* the same again: still one route */
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 1);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g2), ROUTE_OK);
    uint32_t n2 = gw_slot(r, g2);
    CHECK(n2 != n1);
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 0);
    CHECK(nexthop_ref_waiting(&r->refs, n1));
    CHECK_EQ(nexthop_ref_count(&r->refs, n2), 1);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, n1).kind, NEXTHOP_FREE);
    CHECK_EQ(route4_lookup(r->rt, 0x0ac80101), n2);
    /* A connected route replacing a static one (an interface configured
     * after a route into its subnet) releases it too. */
    CHECK_EQ(route_via(r, 0x0a000200, 24, g1), ROUTE_OK);
    uint32_t n3 = gw_slot(r, g1);
    CHECK_EQ(nexthop_ref_route4(&r->refs, r->rt, 0x0a000200, 24, r->connected), ROUTE_OK);
    CHECK_EQ(nexthop_ref_count(&r->refs, n3), 0);
    CHECK_EQ(nexthop_ref_count(&r->refs, r->connected), 3);
    rig4_free(r);
}

/* A slot at zero keeps its entry (a core that looked the route up just
 * before it went forwards to the old gateway) and is handed out again only
 * after a reclaim that covers the put; a route through the same gateway
 * meanwhile takes it back. */
TEST(nexthop_ref_v4_slot_not_reused_before_reclaim)
{
    struct rig4 *r = rig4_new();
    uint32_t g1 = 0x0a000102, n1 = gw_slot(r, g1);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g1), ROUTE_OK);
    CHECK_EQ(route_del(r, 0x0ac80000, 16), ROUTE_OK);
    CHECK_EQ(nexthop_get(&r->nht, n1).kind, NEXTHOP_VIA);
    CHECK_EQ(nexthop_get(&r->nht, n1).gw_be, net_htonl(g1));
    uint32_t n2 = gw_slot(r, 0x0a000103);
    CHECK(n2 != n1); /* a new gateway takes another slot */
    CHECK_EQ(route_via(r, 0x0ac90000, 16, 0x0a000103), ROUTE_OK);
    uint64_t sealed = nexthop_ref_seal(&r->refs);
    /* Dropped after the seal: not covered by a reclaim up to it. */
    uint32_t g3 = 0x0a000104, n3 = gw_slot(r, g3);
    CHECK_EQ(route_via(r, 0x0aca0000, 16, g3), ROUTE_OK);
    CHECK_EQ(route_del(r, 0x0aca0000, 16), ROUTE_OK);
    nexthop_ref_reclaim(&r->refs, sealed, free4, &r->nht);
    CHECK_EQ(nexthop_get(&r->nht, n1).kind, NEXTHOP_FREE);
    CHECK_EQ(nexthop_get(&r->nht, n3).kind, NEXTHOP_VIA);
    CHECK(nexthop_ref_waiting(&r->refs, n3));
    /* Taken back before its reclaim: it stays. */
    CHECK_EQ(route_via(r, 0x0acb0000, 16, g3), ROUTE_OK);
    CHECK_EQ(gw_slot(r, g3), n3);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, n3).gw_be, net_htonl(g3));
    CHECK_EQ(nexthop_ref_count(&r->refs, n3), 1);
    CHECK(!nexthop_ref_waiting(&r->refs, n3));
    CHECK_EQ(gw_slot(r, 0x0a000105), n1); /* the freed slot, now */
    rig4_free(r);
}

/* A slot made for a route the table refused has no route: it is freed. */
TEST(nexthop_ref_v4_failed_add_frees_its_new_slot)
{
    struct rig4 *r = rig4_new();
    uint32_t nh = gw_slot(r, 0x0a000102);
    CHECK_EQ(route_via(r, 0x0ac80001, 16, 0x0a000102), ROUTE_EINVAL); /* host bits */
    CHECK(nexthop_ref_waiting(&r->refs, nh));
    /* Out of memory: host routes until one fails, each counted. */
    r->al.fail_after = r->al.calls;
    int rc = ROUTE_OK;
    uint32_t added = 0;
    for (uint32_t i = 0; i < 4096 && rc == ROUTE_OK; i++) {
        rc = route_via(r, 0x0b000001 + (i << 12), 32, 0x0a000102);
        added += rc == ROUTE_OK;
    }
    r->al.fail_after = -1;
    CHECK_EQ(rc, ROUTE_ENOMEM);
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), added);
    for (uint32_t i = 0; i < added; i++)
        CHECK_EQ(route_del(r, 0x0b000001 + (i << 12), 32), ROUTE_OK);
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), 0);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, nh).kind, NEXTHOP_FREE);
    rig4_free(r);
}

/* `routes FILE via G`: each prefix set counts for G, and one it replaced
 * releases its old next hop. */
TEST(nexthop_ref_v4_bulk_load_counts_every_prefix)
{
    struct rig4 *r = rig4_new();
    uint32_t g1 = 0x0a000102, n1 = gw_slot(r, g1);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g1), ROUTE_OK);
    static const char text[] = "10.200.0.0/16\n10.201.0.0/16\n10.201.0.0/16\nbad\n10.1.0.0/24\n";
    uint32_t nh = gw_slot(r, 0x0a000103);
    struct route_load_stats st;
    nexthop_ref_get(&r->refs, nh); /* as stmt_routes: for the load */
    CHECK_EQ(route4_load_text(r->rt, text, sizeof(text) - 1, nh, &st, nexthop_ref_set, &r->refs), ROUTE_OK);
    CHECK(st.published);
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 1); /* the old table, still read, uses it */
    nexthop_ref_load_end(&r->refs, st.published);
    nexthop_ref_put(&r->refs, nh);
    CHECK_EQ(st.added, 4);
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), 3); /* three prefixes */
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 0);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, n1).kind, NEXTHOP_FREE);
    CHECK_EQ(route_del(r, 0x0ac80000, 16), ROUTE_OK);
    CHECK_EQ(route_del(r, 0x0ac90000, 16), ROUTE_OK);
    CHECK_EQ(route_del(r, 0x0a010000, 24), ROUTE_OK);
    CHECK_EQ(nexthop_ref_count(&r->refs, nh), 0);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, nh).kind, NEXTHOP_FREE);
    /* A file with no prefix leaves a new gateway's slot unused: freed. */
    nh = gw_slot(r, 0x0a000104);
    nexthop_ref_get(&r->refs, nh);
    CHECK_EQ(route4_load_text(r->rt, "# none\n", 7, nh, &st, nexthop_ref_set, &r->refs), ROUTE_OK);
    nexthop_ref_load_end(&r->refs, st.published);
    nexthop_ref_put(&r->refs, nh);
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, nh).kind, NEXTHOP_FREE);
    rig4_free(r);
}

/* A load whose rebuild fails leaves the old table published, and its
 * routes still go through the next hops the load replaced in the RIB:
 * those must not be freed, else a new gateway takes the slot and traffic
 * goes there. Their puts are dropped: counted for good. */
TEST(nexthop_ref_v4_load_whose_rebuild_fails_frees_nothing)
{
    struct rig4 *r = rig4_new();
    uint32_t g1 = 0x0a000102, n1 = gw_slot(r, g1);
    CHECK_EQ(route_via(r, 0x0ac80000, 16, g1), ROUTE_OK);
    uint32_t nh = gw_slot(r, 0x0a000103);
    struct route_load_stats st;
    static const char text[] = "10.200.0.0/16\n";
    nexthop_ref_get(&r->refs, nh);
    r->al.fail_after = r->al.calls; /* the RIB node exists: only the rebuild allocates */
    int rc = route4_load_text(r->rt, text, sizeof(text) - 1, nh, &st, nexthop_ref_set, &r->refs);
    r->al.fail_after = -1;
    nexthop_ref_load_end(&r->refs, st.published);
    nexthop_ref_put(&r->refs, nh);
    CHECK_EQ(rc, ROUTE_ENOMEM);
    CHECK(!st.published);
    CHECK_EQ(route4_lookup(r->rt, 0x0ac80101), n1); /* readers still use n1 */
    rig4_quiesce(r);
    CHECK_EQ(nexthop_get(&r->nht, n1).kind, NEXTHOP_VIA);
    uint32_t n9 = gw_slot(r, 0x0a000109);
    CHECK(n9 != n1);
    CHECK_EQ(route4_lookup(r->rt, 0x0ac80101), n1);
    rig4_free(r);
}

TEST(nexthop_ref_bounds)
{
    static struct nexthop_ref r;
    nexthop_ref_init(&r, FWD_NH6_MAX);
    nexthop_ref_get(&r, 0);
    nexthop_ref_get(&r, FWD_NH6_MAX);
    nexthop_ref_put(&r, 7); /* not held: no underflow */
    CHECK_EQ(nexthop_ref_count(&r, 0), 0);
    CHECK_EQ(nexthop_ref_count(&r, FWD_NH6_MAX), 0);
    CHECK_EQ(nexthop_ref_count(&r, 7), 0);
    CHECK(!nexthop_ref_waiting(&r, 7));
    CHECK_EQ(r.waiting, 0);
}

/* ---- IPv6: router6.c's next hops ---- */

struct rig6 {
    struct test_alloc al;
    struct route6 *rt;
    struct fwd_nh6_table nh6;
    struct nexthop_ref refs;
    uint32_t connected;
};

static void free6(void *ctx, uint32_t idx) { fwd_nh6_del(ctx, idx); }

static const uint8_t p6_link[16] = {0x20, 0x01, 0x0d, 0xb8};        /* 2001:db8::/64 on eth0 */
static const uint8_t p6_far[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99}; /* 2001:db8:99::/48 */

static struct rig6 *rig6_new(void)
{
    static const uint8_t on_link[16];
    struct rig6 *r = calloc(1, sizeof(*r));
    struct route_cfg cfg = test_route_cfg(&r->al);
    r->rt = route6_create(&cfg);
    fwd_nh6_init(&r->nh6);
    nexthop_ref_init(&r->refs, FWD_NH6_MAX);
    r->connected = fwd_nh6_add(&r->nh6, 0, on_link);
    nexthop_ref_get(&r->refs, r->connected);
    CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, p6_link, 64, r->connected), ROUTE_OK);
    return r;
}

static void rig6_free(struct rig6 *r)
{
    route6_destroy(r->rt);
    CHECK_EQ(r->al.live_bytes, 0);
    free(r);
}

static void gw6(uint8_t *gw, uint32_t k)
{
    memcpy(gw, p6_link, 16);
    gw[13] = (uint8_t)(k >> 16);
    gw[14] = (uint8_t)(k >> 8);
    gw[15] = (uint8_t)k;
}

static void rig6_quiesce(struct rig6 *r)
{
    nexthop_ref_reclaim(&r->refs, nexthop_ref_seal(&r->refs), free6, &r->nh6);
}

TEST(nexthop_ref_v6_gateways_come_and_go)
{
    struct rig6 *r = rig6_new();
    uint32_t failed = 0, gen = fwd_nh6_gen(&r->nh6);
    for (uint32_t k = 0; k < 600; k++) {
        uint8_t gw[16], dst[16];
        gw6(gw, 2 + k);
        uint32_t nh = fwd_nh6_add(&r->nh6, 0, gw);
        failed += nh == 0 || nexthop_ref_route6(&r->refs, r->rt, p6_far, 48, nh) != ROUTE_OK;
        memcpy(dst, p6_far, 16);
        dst[15] = 1;
        const struct fwd_nh6 *e = fwd_nh6_get(&r->nh6, route6_lookup(r->rt, dst));
        CHECK(e != NULL && e->port == 0 && memcmp(e->gw, gw, 16) == 0);
        CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, p6_far, 48, ROUTE_NH_NONE), ROUTE_OK);
        rig6_quiesce(r);
        CHECK(fwd_nh6_get(&r->nh6, nh) == NULL);
    }
    CHECK_EQ(failed, 0);
    CHECK(fwd_nh6_gen(&r->nh6) != gen); /* every set and free moved it */
    CHECK_EQ(r->nh6.used, 2);
    CHECK_EQ(nexthop_ref_count(&r->refs, r->connected), 2);
    rig6_free(r);
}

TEST(nexthop_ref_v6_shared_replaced_and_reclaim_point)
{
    struct rig6 *r = rig6_new();
    uint8_t g1[16], g2[16];
    gw6(g1, 2);
    gw6(g2, 3);
    static const uint8_t other[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x98};
    uint32_t n1 = fwd_nh6_add(&r->nh6, 0, g1);
    CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, p6_far, 48, n1), ROUTE_OK);
    CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, other, 48, fwd_nh6_add(&r->nh6, 0, g1)), ROUTE_OK);
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 2);
    /* Replaced through g2: g1 still has the other route. */
    uint32_t n2 = fwd_nh6_add(&r->nh6, 0, g2);
    CHECK(n2 != n1);
    CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, p6_far, 48, n2), ROUTE_OK);
    rig6_quiesce(r);
    CHECK_EQ(nexthop_ref_count(&r->refs, n1), 1);
    CHECK(fwd_nh6_get(&r->nh6, n1) != NULL);
    /* The last route through g1 goes: the entry stays until the reclaim. */
    CHECK_EQ(nexthop_ref_route6(&r->refs, r->rt, other, 48, ROUTE_NH_NONE), ROUTE_OK);
    const struct fwd_nh6 *e = fwd_nh6_get(&r->nh6, n1);
    CHECK(e != NULL && memcmp(e->gw, g1, 16) == 0);
    uint8_t g3[16];
    gw6(g3, 4);
    uint32_t n3 = fwd_nh6_add(&r->nh6, 0, g3);
    CHECK(n3 != n1);
    nexthop_ref_get(&r->refs, n3); /* unused below: put at once, after the seal */
    uint64_t sealed = nexthop_ref_seal(&r->refs);
    nexthop_ref_put(&r->refs, n3);
    nexthop_ref_reclaim(&r->refs, sealed, free6, &r->nh6);
    CHECK(fwd_nh6_get(&r->nh6, n1) == NULL);
    CHECK(fwd_nh6_get(&r->nh6, n3) != NULL);
    uint8_t g4[16];
    gw6(g4, 5);
    CHECK_EQ(fwd_nh6_add(&r->nh6, 0, g4), n1); /* the freed slot again */
    rig6_quiesce(r);
    CHECK(fwd_nh6_get(&r->nh6, n3) == NULL);
    CHECK_EQ(nexthop_ref_count(&r->refs, n2), 1);
    rig6_free(r);
}

TEST(fwd_nh6_table_slots)
{
    static struct fwd_nh6_table t;
    fwd_nh6_init(&t);
    uint8_t gw[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
    CHECK(fwd_nh6_get(&t, 0) == NULL);
    CHECK(fwd_nh6_get(&t, 5) == NULL); /* never set */
    CHECK(fwd_nh6_get(&t, FWD_NH6_MAX) == NULL);
    CHECK_EQ(fwd_nh6_add(&t, NET_MAX_PORTS, gw), 0);
    CHECK_EQ(fwd_nh6_set(&t, 0, 1, gw), -1);
    CHECK_EQ(fwd_nh6_set(&t, FWD_NH6_MAX, 1, gw), -1);
    CHECK_EQ(fwd_nh6_set(&t, 3, FWD_NH6_FREE, gw), -1);
    for (uint32_t i = 1; i < FWD_NH6_MAX; i++) {
        gw[14] = (uint8_t)i;
        CHECK_EQ(fwd_nh6_add(&t, 1, gw), i);
    }
    gw[14] = 0;
    CHECK_EQ(fwd_nh6_add(&t, 1, gw), 0); /* full */
    gw[14] = 9;
    CHECK_EQ(fwd_nh6_add(&t, 1, gw), 9); /* found */
    uint32_t g = fwd_nh6_gen(&t);
    fwd_nh6_del(&t, 9);
    CHECK(fwd_nh6_gen(&t) != g);
    CHECK(fwd_nh6_get(&t, 9) == NULL);
    gw[14] = 0;
    CHECK_EQ(fwd_nh6_add(&t, 1, gw), 9);
    fwd_nh6_del(&t, FWD_NH6_MAX - 1);
    fwd_nh6_del(&t, FWD_NH6_MAX - 2);
    CHECK_EQ(t.used, FWD_NH6_MAX - 2);
}
