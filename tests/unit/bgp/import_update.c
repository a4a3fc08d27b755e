/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/import_update.c: UPDATEs, built and parsed as on the
 * wire, applied to the RIB (bgp/bgp_import.c): announcements taken or
 * denied by the import policy (RFC 8212), withdrawals in the body and in
 * MP_UNREACH_NLRI, treat-as-withdraw (RFC 7606 2) withdrawing what the
 * UPDATE announced, and a next hop of ours refused. */
#include "bgp/bgp_import.h"
#include "tests/unit/bgp/rib_fixture.h"

static const uint8_t SELF4[4] = {10, 0, 0, 99}, SELF6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 99};

/* An UPDATE of n IPv4 /24s from 198.18.0.0 (or IPv6 /48s from
 * 2001:db8:100::) announced with d's attributes or withdrawn, parsed. */
static const struct bgp_update *update(uint8_t afi, unsigned n, const struct sd *d, bool withdraw)
{
    static uint8_t m[BGP_MSG_MAX];
    static struct bgp_update u;
    struct bgp_update_builder ub;
    CHECK(bgp_ub_begin(&ub, m, sizeof m, afi, fx_attrs(d), true, withdraw));
    for (unsigned i = 0; i < n; i++) {
        struct bgp_prefix p = afi == BGP_AFI_IPV4 ? fx_p4(198, (uint8_t)(18 + i / 256), (uint8_t)i, 0, 24)
                                                  : fx_p6(0x2001, 0x0db8, (uint16_t)(0x100 + i), 48);
        CHECK(bgp_ub_add(&ub, &p));
    }
    size_t len = bgp_ub_finish(&ub);
    struct bgp_update_ctx ctx = {.as4 = true, .ebgp = true, .peer_as = 65002};
    bgp_update_parse(m, (uint16_t)len, &ctx, &u);
    return &u;
}

TEST(bgp_import_announce_deny_and_withdraw)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0x02020202);
    struct sd d = {.nh = 2, .nas = 2, .as = {65002, 65010}};
    struct bgp_import_counts n = {0};
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV4, 100, &d, false), false, SELF4, SELF6, &n);
    CHECK_EQ(n.denied, 100); /* RFC 8212: no policy, nothing taken */
    CHECK_EQ(n.announced, 0);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV4, 100, &d, false), true, SELF4, SELF6, &n);
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV6, 50, &d, false), true, SELF4, SELF6, &n);
    CHECK_EQ(n.announced, 150);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 150);
    CHECK_EQ(f.calls, 150);
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV4, 40, &d, true), true, SELF4, SELF6, &n);
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV6, 50, &d, true), true, SELF4, SELF6, &n);
    CHECK_EQ(n.withdrawn, 90);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 60);
    CHECK_EQ(n.nomem, 0);
    fx_fini(&f);
}

TEST(bgp_import_treat_as_withdraw_and_our_next_hop)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0x02020202);
    struct sd d = {.nh = 2, .nas = 2, .as = {65002, 65010}};
    struct bgp_import_counts n = {0};
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV4, 10, &d, false), true, SELF4, SELF6, &n);
    CHECK_EQ(n.announced, 10);
    /* the same prefixes again, the first AS not the peer's: RFC 7606
     * treat-as-withdraw, so they are gone */
    struct sd bad = {.nh = 2, .nas = 2, .as = {65099, 65010}};
    const struct bgp_update *u = update(BGP_AFI_IPV4, 10, &bad, false);
    CHECK_EQ(u->verdict, BGP_UPD_WITHDRAW);
    bgp_import(&f.rib, 1, u, true, SELF4, SELF6, &n);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    CHECK_EQ(n.announced, 10);
    /* our own address as next hop: not taken */
    struct sd self = {.nh = 99, .nas = 1, .as = {65002}};
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV4, 5, &self, false), true, SELF4, SELF6, &n);
    bgp_import(&f.rib, 1, update(BGP_AFI_IPV6, 5, &self, false), true, SELF4, SELF6, &n);
    CHECK_EQ(n.nexthop_self, 10);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    fx_fini(&f);
}

/* When the FIB defers and when it rebuilds (bgp_fib_pace). */
TEST(bgp_fib_pace_bursts_defer_and_end_in_one_rebuild)
{
    struct bgp_fib_pace p = {0};
    uint64_t changes = 0;
    changes += 10;
    CHECK_EQ(bgp_fib_pace(&p, changes, 0, 100000), BGP_FIB_KEEP); /* a trickle: each change as it comes */
    changes += BGP_FIB_BURST;
    CHECK_EQ(bgp_fib_pace(&p, changes, 0, 100000), BGP_FIB_DEFER);
    changes += 5000;
    CHECK_EQ(bgp_fib_pace(&p, changes, 5000, 100000), BGP_FIB_KEEP);
    for (int i = 1; i < BGP_FIB_IDLE; i++) { /* quieter ticks, not yet enough */
        changes += BGP_FIB_TRICKLE - 1;
        CHECK_EQ(bgp_fib_pace(&p, changes, 5000, 100000), BGP_FIB_KEEP);
    }
    CHECK_EQ(bgp_fib_pace(&p, changes, 5000, 100000), BGP_FIB_REBUILD);
    /* a table growing: it rebuilds when as many wait as it holds */
    changes += 3000;
    CHECK_EQ(bgp_fib_pace(&p, changes, 0, 100000), BGP_FIB_DEFER);
    changes += 60000;
    CHECK_EQ(bgp_fib_pace(&p, changes, 60000, 100000), BGP_FIB_KEEP);
    changes += 60000;
    CHECK_EQ(bgp_fib_pace(&p, changes, 120000, 100000), BGP_FIB_REBUILD);
    /* the rebuild failed: tried again at the next tick */
    changes += 10;
    CHECK_EQ(bgp_fib_pace(&p, changes, 120000, 100000), BGP_FIB_REBUILD);
    CHECK_EQ(bgp_fib_pace(&p, changes, 0, 100000), BGP_FIB_KEEP);
    /* steady churn never idle: lookups lag BGP_FIB_MAX ticks at most */
    changes += BGP_FIB_BURST;
    CHECK_EQ(bgp_fib_pace(&p, changes, 0, 1000000), BGP_FIB_DEFER);
    int ticks = 0;
    enum bgp_fib_act a;
    do {
        changes += 500;
        a = bgp_fib_pace(&p, changes, 500u * (unsigned)(ticks + 1), 1000000);
        ticks++;
    } while (a == BGP_FIB_KEEP && ticks < 1000);
    CHECK_EQ(a, BGP_FIB_REBUILD);
    CHECK_EQ(ticks, BGP_FIB_MAX);
}

/* RFC 1997's well-known communities found among raw attributes. */
TEST(bgp_has_community_reads_raw_attributes)
{
    /* an unknown optional transitive attribute, then COMMUNITIES with an
     * extended length: 65000:1 and NO_EXPORT */
    static const uint8_t o[] = {0xc0, 250, 2, 0xaa, 0xbb, 0xd0, 8, 0, 8, 0xfd, 0xe8, 0, 1, 0xff, 0xff, 0xff, 0x01};
    CHECK(bgp_has_community(o, sizeof o, BGP_NO_EXPORT));
    CHECK(bgp_has_community(o, sizeof o, 0xfde80001u));
    CHECK(!bgp_has_community(o, sizeof o, BGP_NO_ADVERTISE));
    CHECK(!bgp_has_community(o, sizeof o - 1, BGP_NO_EXPORT)); /* cut short: not read past */
    CHECK(!bgp_has_community(o, 0, BGP_NO_EXPORT));
    CHECK_EQ(bgp_well_known_communities(o, sizeof o), 1); /* NO_EXPORT alone */
    CHECK_EQ(bgp_well_known_communities(o, sizeof o - 1), 0);
}
