/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/msg_update.c: UPDATEs that are fine (bgp/bgp_update.c,
 * bgp_attr.c, bgp_update_enc.c): real ones byte for byte, parsed and
 * built again to the same bytes; IPv6 in MP_REACH_NLRI with a link-local
 * next hop (RFC 4760 3, RFC 2545 3); withdrawals and End-of-RIB (RFC
 * 4724 2); a speaker without 4-byte ASNs (RFC 6793 4.2); attributes kept
 * or dropped (RFC 4271 5); the builder packing thousands of prefixes
 * into messages of at most 4096 bytes. */
#include "tests/unit/bgp/msg_util.h"

static const struct bgp_update_ctx ebgp4 = {.as4 = true, .ebgp = true, .peer_as = 65000};
static const struct bgp_update_ctx ibgp4 = {.as4 = true, .ebgp = false, .peer_as = 65001};

/* An eBGP UPDATE from AS 65000 (4-byte ASNs) as RFC 4271 4.3 lays it
 * out, attributes in type order as speakers send them: ORIGIN IGP,
 * AS_PATH 65000 65001, NEXT_HOP 192.0.2.1, MED 100, COMMUNITIES
 * 65000:1; NLRI 198.51.100.0/24 and 10.0.0.0/16. */
static const uint8_t v4_update[] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0x00, 0x44, 0x02,                                                 /* length 68, UPDATE */
    0x00, 0x00,                                                       /* no withdrawn routes */
    0x00, 0x26,                                                       /* 38 bytes of attributes */
    0x40, 0x01, 0x01, 0x00,                                           /* ORIGIN IGP */
    0x40, 0x02, 0x0a, 0x02, 0x02, 0x00, 0x00, 0xfd, 0xe8, 0x00, 0x00, 0xfd, 0xe9, /* AS_SEQUENCE 65000 65001 */
    0x40, 0x03, 0x04, 0xc0, 0x00, 0x02, 0x01,                         /* NEXT_HOP */
    0x80, 0x04, 0x04, 0x00, 0x00, 0x00, 0x64,                         /* MED 100 */
    0xc0, 0x08, 0x04, 0xfd, 0xe8, 0x00, 0x01,                         /* COMMUNITIES 65000:1 */
    0x18, 0xc6, 0x33, 0x64,                                           /* 198.51.100.0/24 */
    0x10, 0x0a, 0x00,                                                 /* 10.0.0.0/16 */
};

/* IPv6 as RFC 4760 3 and RFC 2545 3 carry it, MP_REACH_NLRI first (RFC
 * 7606 5.1): next hop 2001:db8::1 and fe80::1, NLRI 2001:db8:1::/48 and
 * 2001:db8:2::/64; ORIGIN IGP, AS_PATH 65000. */
static const uint8_t v6_attrs[] = {
    0x90, 0x0e, 0x00, 0x35, 0x00, 0x02, 0x01, 0x20,
    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    0x00,                                                              /* reserved */
    0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01,
    0x40, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x02, 0x00, 0x00,
    0x40, 0x01, 0x01, 0x00,
    0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8,
};

static struct bgp_update u, u2;
static uint8_t m[BGP_MSG_MAX];

TEST(bgp_update_v4_real_bytes_parse_and_build_again)
{
    CHECK_EQ(parse_exact(v4_update, sizeof v4_update, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.reason, BGP_R_NONE);
    const struct bgp_attrs *a = &u.attrs;
    CHECK_EQ(a->has, BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_NEXT_HOP | BGP_HAS_MED | BGP_HAS_COMMUNITIES);
    CHECK_EQ(a->origin, BGP_ORIGIN_IGP);
    CHECK_EQ(a->nsegs, 1);
    CHECK_EQ(a->segs[0].type, 2);
    CHECK_EQ(a->nasns, 2);
    CHECK_EQ(a->asns[0], 65000);
    CHECK_EQ(a->asns[1], 65001);
    CHECK_EQ(a->path_len, 2);
    CHECK(memcmp(a->nh4, "\xc0\x00\x02\x01", 4) == 0);
    CHECK_EQ(a->med, 100);
    CHECK_EQ(a->other_len, 7); /* COMMUNITIES, header and all */
    CHECK(memcmp(a->other, v4_update + 54, 7) == 0);
    struct bgp_prefix p[4];
    CHECK_EQ(nlri_list(u.nlri4, u.nlri4_len, BGP_AFI_IPV4, p, 4), 2);
    struct bgp_prefix w0 = pfx4(198, 51, 100, 0, 24), w1 = pfx4(10, 0, 0, 0, 16);
    CHECK(bgp_prefix_eq(&p[0], &w0) && bgp_prefix_eq(&p[1], &w1));
    CHECK_EQ(u.wd4_len, 0);
    CHECK(!u.end_of_rib);
    /* the builder sends these attributes and prefixes as the same bytes */
    struct bgp_update_builder b;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, a, true, false));
    CHECK(bgp_ub_add(&b, &p[0]) && bgp_ub_add(&b, &p[1]));
    CHECK_EQ(bgp_ub_finish(&b), sizeof v4_update);
    CHECK(memcmp(m, v4_update, sizeof v4_update) == 0);
    /* LOCAL_PREF absent on iBGP is no error (RFC 4271 6.3 names three) */
    CHECK_EQ(parse_exact(v4_update, sizeof v4_update, &ibgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
}

TEST(bgp_update_v6_mp_reach_link_local_and_build_again)
{
    uint16_t len = mk_update(m, 0, 0, v6_attrs, sizeof v6_attrs, 0, 0);
    static uint8_t copy[BGP_MSG_MAX];
    memcpy(copy, m, len);
    CHECK_EQ(parse_exact(copy, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.mp_reach_afi, BGP_AFI_IPV6);
    const struct bgp_attrs *a = &u.attrs;
    CHECK_EQ(a->has, BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_MP_NH6 | BGP_HAS_MP_NH6_LL);
    CHECK(memcmp(a->nh6, v6_attrs + 8, 16) == 0);
    CHECK(memcmp(a->nh6_ll, v6_attrs + 24, 16) == 0);
    struct bgp_prefix p[4];
    CHECK_EQ(nlri_list(u.mp_reach_nlri, u.mp_reach_len, BGP_AFI_IPV6, p, 4), 2);
    CHECK_EQ(p[0].len, 48);
    CHECK_EQ(p[1].len, 64);
    CHECK_EQ(p[1].addr[5], 2);
    CHECK_EQ(u.nlri4_len, 0);
    struct bgp_update_builder b;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV6, a, true, false));
    CHECK(bgp_ub_add(&b, &p[0]) && bgp_ub_add(&b, &p[1]));
    CHECK_EQ(bgp_ub_finish(&b), len);
    CHECK(memcmp(m, copy, len) == 0);
    /* 16-byte next hop: global only */
    uint8_t at[sizeof v6_attrs];
    memcpy(at, v6_attrs, sizeof at);
    at[3] = 0x25;
    at[7] = 16;
    memmove(at + 24, at + 40, sizeof at - 40);
    len = mk_update(m, 0, 0, at, sizeof at - 16, 0, 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.attrs.has & (BGP_HAS_MP_NH6 | BGP_HAS_MP_NH6_LL), BGP_HAS_MP_NH6);
    CHECK_EQ(nlri_list(u.mp_reach_nlri, u.mp_reach_len, BGP_AFI_IPV6, p, 4), 2);
}

TEST(bgp_update_v4_in_mp_reach)
{
    /* RFC 4760 3: AFI 1 SAFI 1, a 4-byte next hop; NEXT_HOP absent */
    static const uint8_t at[] = {0x80, 0x0e, 0x0d, 0x00, 0x01, 0x01, 0x04, 192, 0, 2, 9, 0x00, 0x18, 203, 0, 113,
                                 0x40, 0x01, 0x01, 0x02, 0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8};
    uint16_t len = mk_update(m, 0, 0, at, sizeof at, 0, 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.mp_reach_afi, BGP_AFI_IPV4);
    CHECK(u.attrs.has & BGP_HAS_MP_NH4);
    CHECK(memcmp(u.attrs.nh4, "\xc0\x00\x02\x09", 4) == 0);
    CHECK_EQ(u.attrs.origin, BGP_ORIGIN_INCOMPLETE);
    struct bgp_prefix p;
    CHECK_EQ(nlri_list(u.mp_reach_nlri, u.mp_reach_len, BGP_AFI_IPV4, &p, 1), 1);
    struct bgp_prefix want = pfx4(203, 0, 113, 0, 24);
    CHECK(bgp_prefix_eq(&p, &want));
}

TEST(bgp_update_withdrawals_and_end_of_rib)
{
    /* body withdrawals only */
    static const uint8_t wd[] = {0x18, 198, 51, 100, 0x20, 192, 0, 2, 1, 0x00};
    uint16_t len = mk_update(m, wd, sizeof wd, 0, 0, 0, 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    struct bgp_prefix p[4];
    CHECK_EQ(nlri_list(u.wd4, u.wd4_len, BGP_AFI_IPV4, p, 4), 3);
    CHECK_EQ(p[1].len, 32);
    CHECK_EQ(p[2].len, 0);
    CHECK(!u.end_of_rib);
    /* MP_UNREACH_NLRI: IPv6 withdrawals, no other attribute needed */
    static const uint8_t un[] = {0x80, 0x0f, 0x0a, 0x00, 0x02, 0x01, 0x30, 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x01};
    len = mk_update(m, 0, 0, un, sizeof un, 0, 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.mp_unreach_afi, BGP_AFI_IPV6);
    CHECK_EQ(nlri_list(u.mp_unreach_nlri, u.mp_unreach_len, BGP_AFI_IPV6, p, 4), 1);
    CHECK_EQ(p[0].len, 48);
    CHECK(!u.end_of_rib);
    /* RFC 4724 2: End-of-RIB, IPv4 (23 bytes) and IPv6 (an empty
     * MP_UNREACH_NLRI alone); the builder finished empty sends them */
    struct bgp_update_builder b;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, 0, true, true));
    len = (uint16_t)bgp_ub_finish(&b);
    CHECK_EQ(len, 23);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK(u.end_of_rib);
    CHECK_EQ(u.mp_unreach_afi, BGP_AFI_IPV4);
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV6, 0, true, true));
    len = (uint16_t)bgp_ub_finish(&b);
    CHECK_EQ(len, 30);
    static const uint8_t eor6[] = {0x00, 0x00, 0x00, 0x07, 0x90, 0x0f, 0x00, 0x03, 0x00, 0x02, 0x01};
    CHECK(memcmp(m + 19, eor6, sizeof eor6) == 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK(u.end_of_rib);
    CHECK_EQ(u.mp_unreach_afi, BGP_AFI_IPV6);
    /* an empty MP_UNREACH beside another attribute is no End-of-RIB */
    static const uint8_t un2[] = {0x80, 0x0f, 0x03, 0x00, 0x02, 0x01, 0x40, 0x01, 0x01, 0x00};
    len = mk_update(m, 0, 0, un2, sizeof un2, 0, 0);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK(!u.end_of_rib);
}

TEST(bgp_update_old_speaker_as4_path_merged)
{
    /* RFC 6793 4.2.3: from a 2-byte speaker AS 65000: AS_PATH 65000
     * AS_TRANS AS_TRANS 64512, AS4_PATH 4200000001 4200000002 64512. The
     * path is 65000 then AS4_PATH. */
    static const uint8_t at[] = {
        0x40, 0x01, 0x01, 0x00,
        0x40, 0x02, 0x0a, 0x02, 0x04, 0xfd, 0xe8, 0x5b, 0xa0, 0x5b, 0xa0, 0xfc, 0x00,
        0x40, 0x03, 0x04, 10, 0, 0, 1,
        0xc0, 0x07, 0x06, 0x5b, 0xa0, 10, 9, 9, 9,                                 /* AGGREGATOR AS_TRANS */
        0xc0, 0x11, 0x0e, 0x02, 0x03, 0xfa, 0x56, 0xea, 0x01, 0xfa, 0x56, 0xea, 0x02, 0x00, 0x00, 0xfc, 0x00,
        0xc0, 0x12, 0x08, 0xfa, 0x56, 0xea, 0x03, 10, 9, 9, 9,                     /* AS4_AGGREGATOR */
    };
    static const uint8_t nl[] = {0x08, 10};
    const struct bgp_update_ctx old = {.as4 = false, .ebgp = true, .peer_as = 65000};
    uint16_t len = mk_update(m, 0, 0, at, sizeof at, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &old, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    const struct bgp_attrs *a = &u.attrs;
    CHECK_EQ(a->nsegs, 1); /* one AS_SEQUENCE again */
    CHECK_EQ(a->nasns, 4);
    CHECK_EQ(a->asns[0], 65000);
    CHECK_EQ(a->asns[1], 4200000001u);
    CHECK_EQ(a->asns[2], 4200000002u);
    CHECK_EQ(a->asns[3], 64512);
    CHECK_EQ(a->path_len, 4);
    CHECK_EQ(a->aggregator_as, 4200000003u);
    CHECK_EQ(u.discarded, 0);
    /* sent back to an old speaker: the same AS_PATH and AS4_PATH */
    struct bgp_update_builder b;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, a, false, false));
    struct bgp_prefix p = pfx4(10, 0, 0, 0, 8);
    CHECK(bgp_ub_add(&b, &p));
    len = (uint16_t)bgp_ub_finish(&b);
    CHECK_EQ(parse_exact(m, len, &old, &u2), 0);
    CHECK_EQ(u2.verdict, BGP_UPD_OK);
    CHECK_EQ(u2.attrs.nasns, 4);
    CHECK(memcmp(u2.attrs.asns, a->asns, 4 * sizeof a->asns[0]) == 0);
    CHECK_EQ(u2.attrs.aggregator_as, 4200000003u);
    CHECK(memcmp(m + 23, at, 17) == 0); /* ORIGIN and the 2-byte AS_PATH as they came */
    /* to a 4-byte speaker: no AS4 attributes */
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, a, true, false));
    CHECK(bgp_ub_add(&b, &p));
    len = (uint16_t)bgp_ub_finish(&b);
    const struct bgp_update_ctx new4 = {.as4 = true, .ebgp = true, .peer_as = 65000};
    CHECK_EQ(parse_exact(m, len, &new4, &u2), 0);
    CHECK_EQ(u2.verdict, BGP_UPD_OK);
    CHECK_EQ(u2.discarded, 0);
    CHECK_EQ(u2.attrs.asns[2], 4200000002u);

    /* AS4_PATH longer than AS_PATH: ignored (4.2.3) */
    uint8_t at2[sizeof at];
    memcpy(at2, at, sizeof at);
    at2[8] = 0x01; /* AS_PATH 65000, then an AS_SET {AS_TRANS, 64512}: counts 2 */
    at2[11] = 0x01;
    at2[12] = 0x02;
    len = mk_update(m, 0, 0, at2, sizeof at2, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &old, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.attrs.nsegs, 2);
    CHECK_EQ(u.attrs.asns[1], BGP_AS_TRANS);
    CHECK_EQ(u.attrs.path_len, 2);
    /* AGGREGATOR other than AS_TRANS: both AS4 attributes ignored */
    memcpy(at2, at, sizeof at);
    at2[27] = 0x01;
    len = mk_update(m, 0, 0, at2, sizeof at2, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &old, &u), 0);
    CHECK_EQ(u.attrs.aggregator_as, 0x01a0);
    CHECK_EQ(u.attrs.asns[1], BGP_AS_TRANS);
}

TEST(bgp_update_optional_attributes_kept_or_dropped)
{
    static const uint8_t at[] = {
        0x40, 0x01, 0x01, 0x00, 0x40, 0x02, 0x06, 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8, 0x40, 0x03, 0x04, 10, 0, 0, 1,
        0xd0, 0x08, 0x00, 0x08, 0xfd, 0xe8, 0x00, 0x01, 0xfd, 0xe8, 0x00, 0x02, /* COMMUNITIES, extended length */
        0xc0, 0x63, 0x02, 0xab, 0xcd,                                         /* unknown optional transitive */
        0x80, 0x64, 0x01, 0xee,                                               /* unknown non-transitive: dropped */
        0x80, 0x09, 0x04, 1, 2, 3, 4,                                         /* ORIGINATOR_ID: not ours, dropped */
        0xc0, 0x20, 0x0c, 0, 0, 0xfd, 0xe8, 0, 0, 0, 1, 0, 0, 0, 2,           /* LARGE_COMMUNITY */
        0x40, 0x06, 0x00,                                                     /* ATOMIC_AGGREGATE */
    };
    static const uint8_t nl[] = {0x18, 10, 1, 2};
    uint16_t len = mk_update(m, 0, 0, at, sizeof at, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.reason, BGP_R_NONE);
    CHECK_EQ(u.discarded, 0);
    CHECK(u.attrs.has & BGP_HAS_COMMUNITIES);
    CHECK(u.attrs.has & BGP_HAS_ATOMIC_AGGREGATE);
    static const uint8_t other[] = {
        /* in order of type */
        0xc0, 0x08, 0x08, 0xfd, 0xe8, 0x00, 0x01, 0xfd, 0xe8, 0x00, 0x02, /* as received, short length */
        0xc0, 0x20, 0x0c, 0, 0, 0xfd, 0xe8, 0, 0, 0, 1, 0, 0, 0, 2,
        0xe0, 0x63, 0x02, 0xab, 0xcd,                                   /* Partial now set (RFC 4271 5) */
    };
    CHECK_EQ(u.attrs.other_len, sizeof other);
    CHECK(memcmp(u.attrs.other, other, sizeof other) == 0);
    /* sent on in type order: ..., ATOMIC_AGGREGATE, 8, 32, 99 */
    struct bgp_update_builder b;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, &u.attrs, true, false));
    struct bgp_prefix p = pfx4(10, 1, 2, 0, 24);
    CHECK(bgp_ub_add(&b, &p));
    len = (uint16_t)bgp_ub_finish(&b);
    CHECK_EQ(parse_exact(m, len, &ebgp4, &u2), 0);
    CHECK_EQ(u2.attrs.other_len, sizeof other);
    CHECK(memcmp(u2.attrs.other, other, sizeof other) == 0);
    CHECK_EQ(u2.attrs.has, u.attrs.has);
}

TEST(bgp_update_confederation_and_sets)
{
    /* iBGP within a confederation: AS_CONFED_SEQUENCE (65100), then
     * AS_SEQUENCE 65000 and an AS_SET {1, 2, 3}; the path length counts
     * the set once and the confederation segment not at all */
    static const uint8_t at[] = {0x40, 0x01, 0x01, 0x00, 0x40, 0x02, 0x1a, 0x03, 0x01, 0x00, 0x00, 0xfe, 0x4c,
                                 0x02, 0x01, 0x00, 0x00, 0xfd, 0xe8, 0x01, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
                                 0x40, 0x03, 0x04, 10, 0, 0, 1, 0x40, 0x05, 0x04, 0, 0, 0, 200};
    static const uint8_t nl[] = {0x08, 10};
    uint16_t len = mk_update(m, 0, 0, at, sizeof at, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &ibgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.attrs.nsegs, 3);
    CHECK_EQ(u.attrs.nasns, 5);
    CHECK_EQ(u.attrs.path_len, 2);
    CHECK_EQ(u.attrs.local_pref, 200);
    CHECK(u.attrs.has & BGP_HAS_LOCAL_PREF);
}

TEST(bgp_nlri_next_masks_and_stops)
{
    static const uint8_t f[] = {0x17, 10, 1, 0xff, 0x00, 0x21, 1, 2, 3, 4, 5};
    const uint8_t *p = f;
    struct bgp_prefix x;
    CHECK(bgp_nlri_next(&p, f + sizeof f, BGP_AFI_IPV4, &x));
    CHECK_EQ(x.len, 23);
    CHECK_EQ(x.addr[2], 0xfe); /* the bit past /23 cleared */
    CHECK_EQ(x.addr[3], 0);
    CHECK(bgp_nlri_next(&p, f + sizeof f, BGP_AFI_IPV4, &x));
    CHECK_EQ(x.len, 0);
    CHECK(!bgp_nlri_next(&p, f + sizeof f, BGP_AFI_IPV4, &x)); /* /33 */
    CHECK_EQ(p, f + 5);
    p = f + 5;
    CHECK(bgp_nlri_next(&p, f + sizeof f, BGP_AFI_IPV6, &x)); /* as IPv6 it is a /33 */
    CHECK_EQ(x.len, 33);
    CHECK_EQ(x.addr[4], 0);
    CHECK(!bgp_nlri_next(&p, f + sizeof f, BGP_AFI_IPV6, &x));
    static const uint8_t short_[] = {0x18, 10, 1};
    p = short_;
    CHECK(!bgp_nlri_next(&p, short_ + sizeof short_, BGP_AFI_IPV4, &x));
}

/* Build messages of prefixes 0..n-1 (gen) until every one is in; parse
 * each, check each is at most 4096 bytes, nearly full but for the last,
 * and that the prefixes come back in order. */
static void pack_many(uint8_t afi, bool withdraw, const struct bgp_attrs *a, int n, int want_msgs,
                      struct bgp_prefix (*gen)(int))
{
    struct bgp_update_builder b;
    int next = 0, back = 0, msgs = 0;
    while (next < n) {
        CHECK(bgp_ub_begin(&b, m, sizeof m, afi, a, true, withdraw));
        while (next < n) {
            struct bgp_prefix p = gen(next);
            if (!bgp_ub_add(&b, &p))
                break;
            next++;
        }
        uint16_t len = (uint16_t)bgp_ub_finish(&b);
        CHECK(len <= BGP_MSG_MAX);
        if (next < n)
            CHECK(len > BGP_MSG_MAX - 17); /* full: the next would not fit */
        uint16_t flen;
        uint8_t type;
        struct bgp_error e;
        CHECK_EQ(bgp_msg_frame(m, len, &flen, &type, &e), 0);
        CHECK_EQ(flen, len);
        CHECK_EQ(parse_exact(m, len, &ibgp4, &u), 0);
        CHECK_EQ(u.verdict, BGP_UPD_OK);
        const uint8_t *f = afi == BGP_AFI_IPV4 ? (withdraw ? u.wd4 : u.nlri4)
                                               : (withdraw ? u.mp_unreach_nlri : u.mp_reach_nlri);
        uint16_t fl = afi == BGP_AFI_IPV4 ? (withdraw ? u.wd4_len : u.nlri4_len)
                                          : (withdraw ? u.mp_unreach_len : u.mp_reach_len);
        const uint8_t *end = f + fl;
        struct bgp_prefix x;
        while (f && bgp_nlri_next(&f, end, afi, &x)) {
            struct bgp_prefix w = gen(back++);
            if (!bgp_prefix_eq(&x, &w)) {
                CHECK(bgp_prefix_eq(&x, &w));
                return;
            }
        }
        CHECK_EQ(f, end);
        msgs++;
    }
    CHECK_EQ(back, n);
    CHECK_EQ(msgs, want_msgs);
}

static struct bgp_prefix gen4(int i)
{
    return pfx4((uint8_t)(1 + i / 65536), (uint8_t)(i >> 8), (uint8_t)i, 0, (uint8_t)(24 + i % 3 * 4));
}

static struct bgp_prefix gen6(int i)
{
    struct bgp_prefix p = {.afi = BGP_AFI_IPV6, .len = (uint8_t)(i % 2 ? 64 : 48), .addr = {0x20, 0x01, 0x0d, 0xb8}};
    p.addr[4] = (uint8_t)(i >> 8);
    p.addr[5] = (uint8_t)i;
    p.addr[7] = (uint8_t)(i % 2 ? i * 7 : 0);
    return p;
}

static struct bgp_attrs attrs_for_export(void)
{
    struct bgp_attrs a = {0};
    a.has = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_NEXT_HOP | BGP_HAS_LOCAL_PREF | BGP_HAS_MP_NH6 |
            BGP_HAS_MP_NH6_LL;
    a.nsegs = 1;
    a.segs[0].type = 2;
    a.segs[0].count = 3;
    a.nasns = 3;
    a.asns[0] = 65001;
    a.asns[1] = 4200000000u;
    a.asns[2] = 64512;
    a.local_pref = 100;
    memcpy(a.nh4, "\x0a\x00\x00\x01", 4);
    memcpy(a.nh6, "\x20\x01\x0d\xb8\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
    memcpy(a.nh6_ll, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
    return a;
}

TEST(bgp_update_builder_packs_thousands_v4)
{
    struct bgp_attrs a = attrs_for_export();
    /* 3000 prefixes of 4 or 5 bytes, 4096 - 62 bytes each message */
    pack_many(BGP_AFI_IPV4, false, &a, 3000, 4, gen4);
    pack_many(BGP_AFI_IPV4, true, &a, 3000, 4, gen4);
}

TEST(bgp_update_builder_packs_thousands_v6)
{
    struct bgp_attrs a = attrs_for_export();
    pack_many(BGP_AFI_IPV6, false, &a, 2000, 4, gen6);
    pack_many(BGP_AFI_IPV6, true, &a, 2000, 4, gen6);
}

TEST(bgp_update_builder_limits)
{
    struct bgp_attrs a = attrs_for_export();
    struct bgp_update_builder b;
    /* a path of 1000 4-byte ASNs fits one message; as 2-byte plus
     * AS4_PATH (RFC 6793 4.2.2) it does not: begin says so */
    a.nsegs = 4;
    a.nasns = 1000;
    for (int i = 0; i < 4; i++) {
        a.segs[i].type = 2;
        a.segs[i].count = 250;
    }
    for (int i = 0; i < 1000; i++)
        a.asns[i] = 4200000000u + (uint32_t)i;
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, &a, true, false));
    struct bgp_prefix p = pfx4(10, 0, 0, 0, 8);
    CHECK(bgp_ub_add(&b, &p));
    uint16_t len = (uint16_t)bgp_ub_finish(&b);
    CHECK_EQ(parse_exact(m, len, &ibgp4, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.attrs.nasns, 1000);
    CHECK_EQ(u.attrs.asns[999], 4200000999u);
    CHECK(!bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, &a, false, false));
    CHECK(!bgp_ub_add(&b, &p));
    CHECK_EQ(bgp_ub_finish(&b), 0);
    /* a small buffer, the wrong family, an inconsistent path */
    a = attrs_for_export();
    CHECK(bgp_ub_begin(&b, m, 64, BGP_AFI_IPV4, &a, true, false));
    int n = 0;
    for (; n < 100; n++) {
        p = pfx4(10, 0, (uint8_t)n, 0, 24);
        if (!bgp_ub_add(&b, &p))
            break;
    }
    CHECK_EQ(bgp_ub_finish(&b), 62);
    CHECK_EQ(n, 1);
    CHECK(bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV6, &a, true, false));
    CHECK(!bgp_ub_add(&b, &p));
    a.nasns = 2;
    CHECK(!bgp_ub_begin(&b, m, sizeof m, BGP_AFI_IPV4, &a, true, false));
    CHECK(!bgp_ub_begin(&b, m, sizeof m, 3, &a, true, false));
}

TEST(bgp_update_old_speaker_as4_path_after_a_set)
{
    /* AS_PATH 65000 {1, 2} AS_TRANS counts 3, AS4_PATH 4200000001 one:
     * the leading two (the set counting one) stay (RFC 6793 4.2.3) */
    static const uint8_t at[] = {
        0x40, 0x01, 0x01, 0x00,
        0x40, 0x02, 0x0e, 0x02, 0x01, 0xfd, 0xe8, 0x01, 0x02, 0x00, 0x01, 0x00, 0x02, 0x02, 0x01, 0x5b, 0xa0,
        0x40, 0x03, 0x04, 10, 0, 0, 1,
        0xc0, 0x11, 0x06, 0x02, 0x01, 0xfa, 0x56, 0xea, 0x01,
    };
    static const uint8_t nl[] = {0x08, 10};
    const struct bgp_update_ctx old = {.as4 = false, .ebgp = true, .peer_as = 65000};
    uint16_t len = mk_update(m, 0, 0, at, sizeof at, nl, sizeof nl);
    CHECK_EQ(parse_exact(m, len, &old, &u), 0);
    CHECK_EQ(u.verdict, BGP_UPD_OK);
    CHECK_EQ(u.attrs.nsegs, 3);
    CHECK_EQ(u.attrs.segs[1].type, 1);
    CHECK_EQ(u.attrs.nasns, 4);
    CHECK_EQ(u.attrs.asns[2], 2);
    CHECK_EQ(u.attrs.asns[3], 4200000001u);
    CHECK_EQ(u.attrs.path_len, 3);
}
