/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/msg_rfc7606.c: UPDATEs that are not fine, one test per
 * case of RFC 7606 (and RFC 4271 6.3, RFC 4760 7, RFC 6793, RFC 7607
 * where they say): the verdict (session reset, treat-as-withdraw,
 * attribute-discard), the reason counted, the NOTIFICATION for a reset,
 * and that treat-as-withdraw still finds every NLRI. Every parse is of
 * an exact-size copy, so ASan sees a read past the message. */
#include "tests/unit/bgp/msg_util.h"

static const struct bgp_update_ctx ebgp4 = {.as4 = true, .ebgp = true, .peer_as = 65000};
static const struct bgp_update_ctx ibgp4 = {.as4 = true, .ebgp = false, .peer_as = 65001};
static const struct bgp_update_ctx ebgp2 = {.as4 = false, .ebgp = true, .peer_as = 65000};

static struct bgp_update u;
static uint8_t msg[BGP_MSG_MAX + 64];
static uint8_t at[BGP_MSG_MAX];
static size_t al;

#define ADD(...)                                                                                                   \
    do {                                                                                                           \
        static const uint8_t add_[] = {__VA_ARGS__};                                                               \
        memcpy(at + al, add_, sizeof add_);                                                                        \
        al += sizeof add_;                                                                                         \
    } while (0)
#define ORIGIN_OK ADD(0x40, 0x01, 0x01, 0x00)
#define PATH_OK ADD(0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8) /* 65000 */
#define NH_OK ADD(0x40, 0x03, 0x04, 10, 0, 0, 1)
/* MP_REACH_NLRI, IPv6, next hop 2001:db8::1, NLRI 2001:db8:7::/48 */
#define MP_REACH6                                                                                                  \
    ADD(0x80, 0x0e, 0x1c, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00, \
        0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x07)

static const uint8_t nl4[] = {0x10, 10, 1}; /* 10.1.0.0/16 */

/* The UPDATE of at[] and NLRI nl parsed under ctx; u has the result. */
static int run(const struct bgp_update_ctx *ctx, const uint8_t *nl, size_t nll)
{
    uint16_t len = mk_update(msg, 0, 0, at, al, nl, nll);
    return parse_exact(msg, len, ctx, &u);
}

/* The base attributes and one more, or in place of one. */
static void base(void)
{
    al = 0;
    ORIGIN_OK;
    PATH_OK;
    NH_OK;
}

TEST(bgp_7606_base_is_fine)
{
    base();
    CHECK_EQ(run(&ebgp4, nl4, sizeof nl4), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.reason, BGP_R_NONE);
    CHECK_EQ(u.discarded, 0);
}

#define EXPECT(ctx, verdict_, reason_)                                                                             \
    do {                                                                                                           \
        CHECK_EQ(run(ctx, nl4, sizeof nl4), (verdict_) == BGP_UPD_RESET ? -1 : 0);                                 \
        CHECK_EQ(u.verdict, verdict_);                                                                             \
        CHECK_STR(bgp_upd_reason_name(u.reason), bgp_upd_reason_name(reason_));                                    \
    } while (0)

TEST(bgp_7606_7_1_origin_malformed_withdraws)
{
    al = 0;
    ADD(0x40, 0x01, 0x01, 0x03); /* value 3 */
    PATH_OK;
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ORIGIN_BAD);
    struct bgp_prefix p;
    CHECK_EQ(nlri_list(u.nlri4, u.nlri4_len, BGP_AFI_IPV4, &p, 1), 1); /* what to withdraw */
    al = 0;
    ADD(0x40, 0x01, 0x02, 0x00, 0x00); /* length 2 */
    PATH_OK;
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ORIGIN_BAD);
}

TEST(bgp_7606_7_2_as_path_malformed_withdraws)
{
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x08, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8, 0x02, 0x00); /* a segment of length 0 */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x06, 0x05, 0x01, 0x00, 0x00, 0xfd, 0xe8); /* segment type 5 */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x06, 0x02, 0x02, 0x00, 0x00, 0xfd, 0xe8); /* 2 ASNs, room for one: overrun */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x07, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8, 0x02); /* one byte left: underrun */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x05, 0x02, 0x01, 0x00, 0x00, 0xfd); /* 4-byte ASN cut (as4) */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    /* the same 4 bytes are two 2-byte ASNs on an old session: 0 and 65000 -> AS 0 (RFC 7607) */
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x06, 0x02, 0x02, 0x00, 0x00, 0xfd, 0xe8);
    NH_OK;
    EXPECT(&ibgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_MALFORMED);
    const struct bgp_update_ctx ibgp2 = {.as4 = false};
    EXPECT(&ibgp2, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_AS0);
}

TEST(bgp_7606_as_path_too_long_withdraws)
{
    /* 5 segments of 255 2-byte ASNs: 1275 > BGP_AS_PATH_MAX */
    const struct bgp_update_ctx ibgp2 = {.as4 = false};
    al = 0;
    ORIGIN_OK;
    NH_OK;
    size_t plen = 5 * (2 + 255 * 2);
    at[al++] = 0x50;
    at[al++] = 0x02;
    at[al++] = (uint8_t)(plen >> 8);
    at[al++] = (uint8_t)plen;
    for (int s = 0; s < 5; s++) {
        at[al++] = 2;
        at[al++] = 255;
        for (int i = 0; i < 255; i++) {
            at[al++] = 0x01;
            at[al++] = (uint8_t)(i + 1);
        }
    }
    EXPECT(&ibgp2, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_TOO_LONG);
    /* 65 segments of one ASN */
    al = 0;
    ORIGIN_OK;
    NH_OK;
    plen = 65 * 6;
    at[al++] = 0x50;
    at[al++] = 0x02;
    at[al++] = (uint8_t)(plen >> 8);
    at[al++] = (uint8_t)plen;
    for (int s = 0; s < 65; s++) {
        uint8_t seg[] = {1, 1, 0, 0, 0x10, (uint8_t)s + 1};
        memcpy(at + al, seg, 6);
        al += 6;
    }
    EXPECT(&ibgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_TOO_LONG);
    al -= 6; /* 64 are fine */
    at[al - 64 * 6 - 1] = (uint8_t)(64 * 6);
    at[al - 64 * 6 - 2] = 0x01;
    EXPECT(&ibgp4, BGP_UPD_OK, BGP_R_NONE);
    CHECK_EQ(u.attrs.nsegs, 64);
    CHECK_EQ(u.attrs.path_len, 64);
}

TEST(bgp_7606_first_as_and_confed_from_ebgp_withdraw)
{
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe9); /* 65001, the peer is 65000 (RFC 4271 6.3) */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_FIRST_AS);
    EXPECT(&ibgp4, BGP_UPD_OK, BGP_R_NONE); /* iBGP: no such check */
    const struct bgp_update_ctx rs = {.as4 = true, .ebgp = true, .peer_as = 0};
    EXPECT(&rs, BGP_UPD_OK, BGP_R_NONE); /* a route server's client: not checked */
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x06, 0x01, 0x01, 0x00, 0x00, 0xfd, 0xe8); /* {65000}: a set first */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_FIRST_AS);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x00); /* empty from eBGP */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_FIRST_AS);
    EXPECT(&ibgp4, BGP_UPD_OK, BGP_R_NONE);
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x0c, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8, 0x03, 0x01, 0x00, 0x00, 0xfe, 0x4c); /* confed */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_CONFED);
    EXPECT(&ibgp4, BGP_UPD_OK, BGP_R_NONE);
    /* an old peer's first AS (2-byte) */
    al = 0;
    ORIGIN_OK;
    ADD(0x40, 0x02, 0x04, 0x02, 0x01, 0xfd, 0xe8);
    NH_OK;
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_NONE);
}

TEST(bgp_7606_7_3_next_hop_withdraws)
{
    static const uint8_t bad[][4] = {{0, 0, 0, 0}, {224, 0, 0, 1}, {239, 1, 2, 3}, {255, 255, 255, 255}};
    for (int i = 0; i < 4; i++) {
        al = 0;
        ORIGIN_OK;
        PATH_OK;
        ADD(0x40, 0x03, 0x04);
        memcpy(at + al, bad[i], 4);
        al += 4;
        EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_NEXTHOP_BAD);
    }
    al = 0;
    ORIGIN_OK;
    PATH_OK;
    ADD(0x40, 0x03, 0x05, 10, 0, 0, 1, 0); /* length 5 */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_NEXTHOP_BAD);
    /* RFC 4760 3: with no NLRI in the body, NEXT_HOP is ignored, bad or not */
    al = 0;
    MP_REACH6;
    ORIGIN_OK;
    PATH_OK;
    ADD(0x40, 0x03, 0x04, 0, 0, 0, 0);
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK(!(u.attrs.has & BGP_HAS_NEXT_HOP));
}

TEST(bgp_7606_mp_next_hop_unusable_withdraws)
{
    /* IPv6 next hop :: */
    al = 0;
    ADD(0x80, 0x0e, 0x1c, 0x00, 0x02, 0x01, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x30, 0x20,
        0x01, 0x0d, 0xb8, 0x00, 0x07);
    ORIGIN_OK;
    PATH_OK;
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_WITHDRAW);
    CHECK_EQ(u.reason, BGP_R_NEXTHOP_BAD);
    CHECK_EQ(u.mp_reach_afi, BGP_AFI_IPV6);
    CHECK_EQ(u.mp_reach_len, 7);
    /* IPv4 MP_REACH next hop 10.0.0.9 beside NEXT_HOP 10.0.0.1 for body NLRI */
    base();
    ADD(0x80, 0x0e, 0x0c, 0x00, 0x01, 0x01, 0x04, 10, 0, 0, 9, 0x00, 0x10, 10, 2);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_NEXTHOP_BAD);
    base();
    ADD(0x80, 0x0e, 0x0c, 0x00, 0x01, 0x01, 0x04, 10, 0, 0, 1, 0x00, 0x10, 10, 2); /* the same: fine */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_NONE);
}

TEST(bgp_7606_7_4_med_7_5_local_pref)
{
    base();
    ADD(0x80, 0x04, 0x03, 0, 0, 1);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_MED_BAD);
    base();
    ADD(0x40, 0x05, 0x02, 0, 1);
    EXPECT(&ibgp4, BGP_UPD_WITHDRAW, BGP_R_LOCAL_PREF_BAD);
    /* from eBGP, LOCAL_PREF is dropped whatever it holds */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_LOCAL_PREF_EBGP);
    CHECK_EQ(u.discarded, 1);
    base();
    ADD(0x40, 0x05, 0x04, 0, 0, 1, 0);
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_LOCAL_PREF_EBGP);
    CHECK(!(u.attrs.has & BGP_HAS_LOCAL_PREF));
    EXPECT(&ibgp4, BGP_UPD_OK, BGP_R_NONE);
    CHECK(u.attrs.has & BGP_HAS_LOCAL_PREF);
    CHECK_EQ(u.attrs.local_pref, 256);
}

TEST(bgp_7606_7_8_communities_withdraw)
{
    base();
    ADD(0xc0, 0x08, 0x05, 0, 1, 0, 2, 3);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_COMMUNITIES_BAD);
    base();
    ADD(0xc0, 0x08, 0x00);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_COMMUNITIES_BAD);
    base();
    ADD(0xc0, 0x10, 0x07, 0, 2, 0, 1, 0, 0, 0); /* extended communities: 7606 7.14 */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_EXT_COMMUNITIES_BAD);
    base();
    ADD(0xc0, 0x20, 0x08, 0, 0, 0xfd, 0xe8, 0, 0, 0, 1); /* large: RFC 8092 6 */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_LARGE_COMMUNITIES_BAD);
}

TEST(bgp_7606_3c_flags_of_known_attributes_withdraw)
{
    al = 0;
    ADD(0xc0, 0x01, 0x01, 0x00); /* ORIGIN marked optional */
    PATH_OK;
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_FLAGS);
    al = 0;
    ORIGIN_OK;
    ADD(0x00, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8); /* AS_PATH not transitive */
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_FLAGS);
    base();
    ADD(0xc0, 0x04, 0x04, 0, 0, 0, 1); /* MED transitive */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_FLAGS);
    base();
    ADD(0x80, 0x08, 0x04, 0, 1, 0, 2); /* COMMUNITIES not transitive */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_FLAGS);
    /* Extended Length on a short one, Partial, the low bits: all fine */
    al = 0;
    ADD(0x5f, 0x01, 0x00, 0x01, 0x00);
    ADD(0x60, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8);
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_NONE);
    /* MP_REACH_NLRI with its flags wrong: withdrawn, its NLRI found */
    al = 0;
    ADD(0xc0, 0x0e, 0x1c, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
        0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x07);
    ORIGIN_OK;
    PATH_OK;
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_WITHDRAW);
    CHECK_EQ(u.reason, BGP_R_ATTR_FLAGS);
    CHECK_EQ(u.mp_reach_len, 7);
}

TEST(bgp_7606_3d_missing_well_known_withdraws)
{
    al = 0;
    PATH_OK;
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_MISSING_WELLKNOWN);
    al = 0;
    ORIGIN_OK;
    NH_OK;
    EXPECT(&ibgp4, BGP_UPD_WITHDRAW, BGP_R_MISSING_WELLKNOWN);
    al = 0;
    ORIGIN_OK;
    PATH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_MISSING_WELLKNOWN); /* NEXT_HOP, body NLRI there */
    /* RFC 4760 3: IPv6 only needs no NEXT_HOP, but ORIGIN and AS_PATH */
    al = 0;
    MP_REACH6;
    ORIGIN_OK;
    PATH_OK;
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    al = 0;
    MP_REACH6;
    PATH_OK;
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_WITHDRAW);
    CHECK_EQ(u.reason, BGP_R_MISSING_WELLKNOWN);
    /* no NLRI: nothing is mandatory; LOCAL_PREF never is (4271 6.3) */
    al = 0;
    ORIGIN_OK;
    CHECK_EQ(run(&ibgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
}

TEST(bgp_7606_7_6_7_7_attribute_discard)
{
    base();
    ADD(0x40, 0x06, 0x01, 0x00); /* ATOMIC_AGGREGATE of length 1 */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_ATOMIC_AGG_BAD);
    CHECK_EQ(u.discarded, 1);
    CHECK(!(u.attrs.has & BGP_HAS_ATOMIC_AGGREGATE));
    base();
    ADD(0xc0, 0x07, 0x06, 0xfd, 0xe8, 10, 0, 0, 1); /* AGGREGATOR of 6 bytes on a 4-byte session */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_AGGREGATOR_BAD);
    CHECK(!(u.attrs.has & BGP_HAS_AGGREGATOR));
    EXPECT(&ebgp2, BGP_UPD_WITHDRAW, BGP_R_AS_PATH_AS0); /* PATH_OK is 0 65000 there */
    base();
    ADD(0xc0, 0x07, 0x08, 0, 0, 0, 0, 10, 0, 0, 1); /* AGGREGATOR AS 0 (RFC 7607 2) */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_AGGREGATOR_BAD);
    /* AS4_PATH and AS4_AGGREGATOR between 4-byte speakers: discarded */
    base();
    ADD(0xc0, 0x11, 0x06, 0x02, 0x01, 0, 0, 0xfd, 0xe8);
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_AS4_DISCARDED);
    base();
    ADD(0xc0, 0x12, 0x08, 0, 0, 0xfd, 0xe8, 10, 0, 0, 1);
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_AS4_DISCARDED);
}

TEST(bgp_7606_as4_attributes_malformed_discarded)
{
    /* old session: AS_PATH 65000 AS_TRANS; AS4_PATH malformed ways */
#define OLD_BASE                                                                                                   \
    al = 0;                                                                                                        \
    ORIGIN_OK;                                                                                                     \
    ADD(0x40, 0x02, 0x06, 0x02, 0x02, 0xfd, 0xe8, 0x5b, 0xa0);                                                     \
    NH_OK
    OLD_BASE;
    ADD(0xc0, 0x11, 0x06, 0x02, 0x00, 0, 0, 0, 0); /* a segment of length 0 */
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_AS4_PATH_BAD);
    CHECK_EQ(u.attrs.asns[1], BGP_AS_TRANS); /* not merged */
    OLD_BASE;
    ADD(0xc0, 0x11, 0x06, 0x03, 0x01, 0xfa, 0x56, 0xea, 0x00); /* a confederation segment */
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_AS4_PATH_BAD);
    OLD_BASE;
    ADD(0xc0, 0x11, 0x05, 0x02, 0x01, 0xfa, 0x56, 0xea); /* cut */
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_AS4_PATH_BAD);
    OLD_BASE;
    ADD(0xc0, 0x11, 0x06, 0x02, 0x01, 0xfa, 0x56, 0xea, 0x00); /* well formed: merged */
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_NONE);
    CHECK_EQ(u.attrs.asns[1], 4200000000u);
    OLD_BASE;
    ADD(0xc0, 0x12, 0x06, 0xfa, 0x56, 0xea, 0x00, 10, 0); /* AS4_AGGREGATOR of 6 */
    EXPECT(&ebgp2, BGP_UPD_OK, BGP_R_AS4_AGGREGATOR_BAD);
#undef OLD_BASE
}

TEST(bgp_7606_3g_duplicates)
{
    base();
    ADD(0x40, 0x01, 0x01, 0x02); /* a second ORIGIN: the first counts */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_DUPLICATE_ATTR);
    CHECK_EQ(u.discarded, 1);
    CHECK_EQ(u.attrs.origin, BGP_ORIGIN_IGP);
    base();
    ADD(0x40, 0x01, 0x01, 0x07); /* even a malformed second one */
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_DUPLICATE_ATTR);
    /* MP_REACH_NLRI twice: reset, Malformed Attribute List */
    al = 0;
    MP_REACH6;
    ORIGIN_OK;
    PATH_OK;
    MP_REACH6;
    CHECK_EQ(run(&ebgp4, 0, 0), -1);
    CHECK_EQ(u.verdict, BGP_UPD_RESET);
    CHECK_EQ(u.reason, BGP_R_MP_DUPLICATE);
    CHECK_EQ(u.err.code, 3);
    CHECK_EQ(u.err.subcode, 1);
    al = 0;
    ADD(0x80, 0x0f, 0x03, 0x00, 0x02, 0x01);
    ADD(0x80, 0x0f, 0x03, 0x00, 0x01, 0x01);
    CHECK_EQ(run(&ebgp4, 0, 0), -1);
    CHECK_EQ(u.reason, BGP_R_MP_DUPLICATE);
}

/* at[] under ebgp4 with no body NLRI must reset with 3/sub and reason. */
static void expect_reset(uint8_t sub, unsigned reason, int line)
{
    int r = run(&ebgp4, 0, 0);
    if (r != -1 || u.verdict != BGP_UPD_RESET || u.err.code != 3 || u.err.subcode != sub || u.reason != reason) {
        fprintf(stderr, "  line %d: %d %d %d/%d %s\n", line, r, u.verdict, u.err.code, u.err.subcode,
                bgp_upd_reason_name(u.reason));
        unit_failures++;
    }
}

TEST(bgp_7606_5_3_mp_malformed_resets)
{
    al = 0; /* next hop length 8 for IPv6 */
    ADD(0x80, 0x0e, 0x0f, 0x00, 0x02, 0x01, 0x08, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0x00, 0x20, 0x20, 0x01, 0x0d,
        0xb8);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    CHECK(u.err.data_len == 18 && u.err.data[1] == 0x0e); /* RFC 4760 7: the attribute */
    al = 0; /* next hop length 16 for IPv4 */
    ADD(0x80, 0x0e, 0x15, 0x00, 0x01, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
        0x08, 10);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0; /* a /129 */
    ADD(0x80, 0x0e, 0x1c, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
        0x81, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x07);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0; /* a /64 with 5 bytes left */
    ADD(0x80, 0x0e, 0x1c, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x00,
        0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x07);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0; /* too short for AFI, SAFI, next hop length, reserved */
    ADD(0x80, 0x0e, 0x04, 0x00, 0x02, 0x01, 0x00);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0; /* next hop length past the attribute */
    ADD(0x80, 0x0e, 0x06, 0x00, 0x02, 0x01, 0x10, 0x20, 0x01);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0; /* MP_UNREACH: too short, a /33 */
    ADD(0x80, 0x0f, 0x02, 0x00, 0x02);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    al = 0;
    ADD(0x80, 0x0f, 0x08, 0x00, 0x01, 0x01, 0x21, 10, 0, 0, 1);
    expect_reset(9, BGP_R_MP_MALFORMED, __LINE__);
    /* another AFI/SAFI: skipped, counted, no error */
    al = 0;
    ADD(0x80, 0x0e, 0x0d, 0x00, 0x01, 0x80, 0x04, 10, 0, 0, 1, 0x00, 0x58, 0, 0, 1);
    ORIGIN_OK;
    PATH_OK;
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.reason, BGP_R_MP_AFI_UNSUPPORTED);
    CHECK_EQ(u.mp_reach_afi, 0);
    CHECK_EQ(u.mp_reach_len, 0);
}

TEST(bgp_7606_5_3_body_nlri_and_lengths_reset)
{
    base();
    static const uint8_t bad[] = {0x21, 10, 0, 0, 1, 0};
    CHECK_EQ(run(&ebgp4, bad, sizeof bad), -1);
    CHECK_EQ(u.reason, BGP_R_NLRI_MALFORMED);
    CHECK(u.err.code == 3 && u.err.subcode == 10); /* RFC 4271 6.3: Invalid Network Field */
    static const uint8_t cut[] = {0x10, 10, 1, 0x18, 10, 2};
    CHECK_EQ(run(&ebgp4, cut, sizeof cut), -1);
    CHECK_EQ(u.reason, BGP_R_NLRI_MALFORMED);
    /* withdrawn routes past their field */
    static const uint8_t wd[] = {0x18, 10, 1};
    uint16_t len = mk_update(msg, wd, 2, 0, 0, 0, 0);
    CHECK_EQ(parse_exact(msg, len, &ebgp4, &u), -1);
    CHECK_EQ(u.reason, BGP_R_NLRI_MALFORMED);
    /* Withdrawn Routes Length past the message */
    len = mk_update(msg, wd, sizeof wd, 0, 0, 0, 0);
    msg[20] = 40;
    CHECK_EQ(parse_exact(msg, len, &ebgp4, &u), -1);
    CHECK_EQ(u.reason, BGP_R_LENGTHS);
    CHECK(u.err.code == 3 && u.err.subcode == 1);
    msg[20] = 5; /* room for the withdrawn routes, none for the attribute length */
    CHECK_EQ(parse_exact(msg, len, &ebgp4, &u), -1);
    CHECK_EQ(u.reason, BGP_R_LENGTHS);
    /* Total Path Attribute Length past the message */
    base();
    len = mk_update(msg, 0, 0, at, al, nl4, sizeof nl4);
    msg[22] = (uint8_t)(al + sizeof nl4 + 1);
    CHECK_EQ(parse_exact(msg, len, &ebgp4, &u), -1);
    CHECK_EQ(u.reason, BGP_R_LENGTHS);
    /* shorter than any UPDATE */
    CHECK_EQ(parse_exact(msg, 22, &ebgp4, &u), -1);
    CHECK_EQ(u.verdict, BGP_UPD_RESET);
}

TEST(bgp_7606_4_attribute_overrun_withdraws)
{
    /* the last attribute's length past the attributes: NLRI found by
     * the Total Path Attribute Length, withdrawn */
    base();
    ADD(0xc0, 0x08, 0x08, 0, 1, 0, 2); /* says 8, 4 there */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_OVERRUN);
    struct bgp_prefix p;
    CHECK_EQ(nlri_list(u.nlri4, u.nlri4_len, BGP_AFI_IPV4, &p, 1), 1);
    CHECK_EQ(p.len, 16);
    base();
    ADD(0xc0, 0x08); /* two bytes left */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_OVERRUN);
    base();
    ADD(0xd0, 0x08, 0x00); /* extended length, three bytes left */
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ATTR_OVERRUN);
    /* the attribute that runs past is MP_REACH_NLRI: its NLRI is lost,
     * reset (7606 5.3) */
    base();
    ADD(0x80, 0x0e, 0x30, 0x00, 0x02, 0x01);
    expect_reset(1, BGP_R_MP_MALFORMED, __LINE__);
    /* an MP_REACH_NLRI before the overrun is still found */
    al = 0;
    MP_REACH6;
    ORIGIN_OK;
    PATH_OK;
    ADD(0xc0, 0x08, 0x08, 0, 1);
    CHECK_EQ(run(&ebgp4, 0, 0), 0);
    CHECK_EQ(u.verdict, BGP_UPD_WITHDRAW);
    CHECK_EQ(u.mp_reach_len, 7);
}

TEST(bgp_7606_5_1_mp_reach_found_wherever_it_is)
{
    /* ORIGIN malformed before MP_REACH_NLRI, which comes last: all of
     * the NLRI, body and MP, are there to withdraw */
    al = 0;
    ADD(0x40, 0x01, 0x01, 0x09);
    PATH_OK;
    NH_OK;
    MP_REACH6;
    ADD(0x80, 0x0f, 0x0a, 0x00, 0x02, 0x01, 0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x08);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ORIGIN_BAD);
    CHECK_EQ(u.nlri4_len, 3);
    CHECK_EQ(u.mp_reach_afi, BGP_AFI_IPV6);
    CHECK_EQ(u.mp_unreach_afi, BGP_AFI_IPV6);
    struct bgp_prefix p[2];
    CHECK_EQ(nlri_list(u.mp_reach_nlri, u.mp_reach_len, BGP_AFI_IPV6, p, 2), 1);
    CHECK_EQ(p[0].addr[5], 7);
    CHECK_EQ(nlri_list(u.mp_unreach_nlri, u.mp_unreach_len, BGP_AFI_IPV6, p, 2), 1);
    CHECK_EQ(p[0].addr[5], 8);
}

TEST(bgp_7606_unrecognized_well_known_resets)
{
    base();
    ADD(0x40, 0x7f, 0x02, 0xaa, 0xbb);
    CHECK_EQ(run(&ebgp4, nl4, sizeof nl4), -1);
    CHECK_EQ(u.reason, BGP_R_UNKNOWN_WELLKNOWN);
    CHECK(u.err.code == 3 && u.err.subcode == 2); /* RFC 4271 6.3, data the attribute */
    CHECK_EQ(u.err.data_len, 5);
    CHECK(memcmp(u.err.data, at + al - 5, 5) == 0);
    /* a reset wins over an earlier treat-as-withdraw */
    al = 0;
    ADD(0x40, 0x01, 0x01, 0x09);
    ADD(0x40, 0x63, 0x00);
    CHECK_EQ(run(&ebgp4, nl4, sizeof nl4), -1);
    CHECK_EQ(u.reason, BGP_R_UNKNOWN_WELLKNOWN);
}

TEST(bgp_7606_worst_error_names_the_reason)
{
    /* a discard, then a treat-as-withdraw: the withdraw's reason */
    base();
    ADD(0x40, 0x06, 0x01, 0x00);
    ADD(0x80, 0x04, 0x01, 0x00);
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_MED_BAD);
    CHECK_EQ(u.discarded, 1);
    /* two withdraws: the first */
    al = 0;
    ADD(0x40, 0x01, 0x01, 0x09);
    ADD(0x40, 0x02, 0x01, 0x02);
    NH_OK;
    EXPECT(&ebgp4, BGP_UPD_WITHDRAW, BGP_R_ORIGIN_BAD);
}

TEST(bgp_7606_other_attributes_bounded)
{
    /* optional transitive attributes beyond other[]: dropped, counted */
    base();
    for (int i = 0; i < 5; i++) {
        at[al++] = 0xd0;
        at[al++] = (uint8_t)(100 + i);
        at[al++] = 0x01;
        at[al++] = 0x00;
        memset(at + al, i, 256);
        al += 256;
    }
    EXPECT(&ebgp4, BGP_UPD_OK, BGP_R_OTHER_FULL);
    CHECK_EQ(u.discarded, 2);
    CHECK_EQ(u.attrs.other_len, 3 * 260);
}
