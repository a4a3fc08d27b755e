/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/msg_framing_open.c: the BGP codec's messages other than
 * UPDATE (bgp/bgp_msg.c): framing a stream (RFC 4271 4.1, 6.1), OPEN and
 * its capabilities as real speakers send them (RFC 4271 4.2, 6.2; RFC
 * 5492; RFC 6793; RFC 9072), KEEPALIVE, NOTIFICATION, ROUTE-REFRESH, and
 * the errors' names. */
#include "tests/unit/bgp/msg_util.h"

#define MARKER 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff

/* An OPEN as a speaker with AS 65001, hold 90, id 192.0.2.1 sends it:
 * one Capabilities parameter with MP IPv4 and IPv6 unicast, route
 * refresh, 4-byte AS 65001 (RFC 4271 4.2, RFC 5492 4). */
static const uint8_t open_msg[] = {
    MARKER, 0x00, 0x3d, 0x01,                         /* length 61, OPEN */
    0x04, 0xfd, 0xe9, 0x00, 0x5a, 0xc0, 0x00, 0x02, 0x01, /* v4, AS 65001, hold 90, id */
    0x20, 0x02, 0x1e,                                 /* opt len 32; Capabilities, 30 */
    0x01, 0x04, 0x00, 0x01, 0x00, 0x01,               /* MP IPv4 unicast */
    0x01, 0x04, 0x00, 0x02, 0x00, 0x01,               /* MP IPv6 unicast */
    0x02, 0x00,                                       /* route refresh */
    0x41, 0x04, 0x00, 0x00, 0xfd, 0xe9,               /* 4-byte AS 65001 */
    0x40, 0x02, 0x00, 0x78,                           /* graceful restart (64): unknown, ignored */
    0x45, 0x04, 0x00, 0x01, 0x01, 0x01,               /* ADD-PATH (69): unknown, ignored */
};

static int open_exact(const uint8_t *m, uint16_t len, struct bgp_open *o, struct bgp_error *e)
{
    uint8_t *c = malloc(len);
    memcpy(c, m, len);
    int r = bgp_open_parse(c, len, o, e);
    free(c);
    return r;
}

TEST(bgp_frame_whole_partial_and_two_in_a_row)
{
    uint8_t s[64];
    size_t n = bgp_keepalive_encode(s);
    CHECK_EQ(n, 19);
    n += bgp_route_refresh_encode(s + n, BGP_AFI_IPV6, BGP_SAFI_UNICAST);
    uint16_t len = 0;
    uint8_t type = 0;
    struct bgp_error e = {0};
    for (size_t avail = 0; avail < 19; avail++)
        CHECK_EQ(bgp_msg_frame(s, avail, &len, &type, &e), 1);
    CHECK_EQ(bgp_msg_frame(s, 19, &len, &type, &e), 0);
    CHECK_EQ(len, 19);
    CHECK_EQ(type, BGP_KEEPALIVE);
    CHECK_EQ(bgp_msg_frame(s + 19, 22, &len, &type, &e), 1);
    CHECK_EQ(bgp_msg_frame(s + 19, n - 19, &len, &type, &e), 0);
    CHECK_EQ(len, 23);
    CHECK_EQ(type, BGP_ROUTE_REFRESH);
    /* an OPEN's header whole but its body not yet */
    CHECK_EQ(bgp_msg_frame(open_msg, 40, &len, &type, &e), 1);
    CHECK_EQ(bgp_msg_frame(open_msg, sizeof open_msg, &len, &type, &e), 0);
    CHECK_EQ(len, sizeof open_msg);
}

TEST(bgp_frame_header_errors)
{
    uint8_t m[19];
    uint16_t len;
    uint8_t type;
    struct bgp_error e;
    bgp_keepalive_encode(m);
    m[7] = 0xfe; /* RFC 4271 6.1: 1/1 */
    CHECK_EQ(bgp_msg_frame(m, 19, &len, &type, &e), -1);
    CHECK_EQ(e.code, 1);
    CHECK_EQ(e.subcode, 1);
    struct {
        uint16_t len;
        uint8_t type, sub;
    } cases[] = {
        {18, BGP_KEEPALIVE, 2}, {4097, BGP_UPDATE, 2}, {20, BGP_KEEPALIVE, 2}, {28, BGP_OPEN, 2},
        {22, BGP_UPDATE, 2},    {20, BGP_NOTIFICATION, 2}, {24, BGP_ROUTE_REFRESH, 2}, {22, BGP_ROUTE_REFRESH, 2},
        {19, 0, 3},             {19, 6, 3},             {4096, 200, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bgp_keepalive_encode(m);
        m[16] = (uint8_t)(cases[i].len >> 8);
        m[17] = (uint8_t)cases[i].len;
        m[18] = cases[i].type;
        memset(&e, 0, sizeof e);
        CHECK_EQ(bgp_msg_frame(m, 19, &len, &type, &e), -1); /* told before the rest comes */
        CHECK_EQ(e.code, 1);
        CHECK_EQ(e.subcode, cases[i].sub);
        if (cases[i].sub == 2) { /* data: the length field */
            CHECK_EQ(e.data_len, 2);
            CHECK_EQ(e.data[0] << 8 | e.data[1], cases[i].len);
        } else {
            CHECK_EQ(e.data_len, 1);
            CHECK_EQ(e.data[0], cases[i].type);
        }
    }
    /* the shortest of each type frames */
    uint16_t ok[][2] = {{29, BGP_OPEN}, {23, BGP_UPDATE}, {21, BGP_NOTIFICATION}, {4096, BGP_UPDATE}};
    for (size_t i = 0; i < 4; i++) {
        bgp_keepalive_encode(m);
        m[16] = (uint8_t)(ok[i][0] >> 8);
        m[17] = (uint8_t)ok[i][0];
        m[18] = (uint8_t)ok[i][1];
        CHECK_EQ(bgp_msg_frame(m, 19, &len, &type, &e), 1);
    }
}

TEST(bgp_open_parse_real_speaker)
{
    struct bgp_open o;
    struct bgp_error e = {0};
    CHECK_EQ(open_exact(open_msg, sizeof open_msg, &o, &e), 0);
    CHECK_EQ(o.version, 4);
    CHECK_EQ(o.as, 65001);
    CHECK_EQ(o.hold, 90);
    CHECK_EQ(o.id, 0xc0000201);
    CHECK(o.cap_mp_v4 && o.cap_mp_v6 && o.cap_route_refresh && o.cap_as4 && o.caps);
}

TEST(bgp_open_encode_round_trip_and_bytes)
{
    /* the encoder's bytes for what open_msg says, less the unknown caps */
    struct bgp_open o = {.version = 4, .as = 65001, .hold = 90, .id = 0xc0000201, .cap_mp_v4 = true,
                         .cap_mp_v6 = true, .cap_route_refresh = true, .cap_as4 = true};
    uint8_t m[64], want[sizeof open_msg - 10];
    memcpy(want, open_msg, sizeof want);
    want[17] = sizeof want;
    want[28] = 0x16;
    want[30] = 0x14;
    size_t n = bgp_open_encode(m, sizeof m, &o);
    CHECK_EQ(n, sizeof want);
    CHECK(memcmp(m, want, sizeof want) == 0);
    /* a 4-byte AS: AS_TRANS in My AS, the real one in the capability */
    o.as = 4200000000u;
    o.cap_mp_v4 = false;
    n = bgp_open_encode(m, sizeof m, &o);
    CHECK_EQ(m[20] << 8 | m[21], BGP_AS_TRANS);
    struct bgp_open p;
    struct bgp_error e;
    uint16_t len;
    uint8_t type;
    CHECK_EQ(bgp_msg_frame(m, n, &len, &type, &e), 0);
    CHECK_EQ(open_exact(m, len, &p, &e), 0);
    CHECK_EQ(p.as, 4200000000u);
    CHECK(!p.cap_mp_v4 && p.cap_mp_v6 && p.cap_route_refresh && p.cap_as4);
    CHECK_EQ(bgp_open_encode(m, 63, &o), 0);
    /* no capabilities at all: optional parameters length 0 */
    struct bgp_open bare = {.as = 64512, .hold = 0, .id = 1};
    CHECK_EQ(bgp_open_encode(m, sizeof m, &bare), 29);
    CHECK_EQ(open_exact(m, 29, &p, &e), 0);
    CHECK(!p.caps && !p.cap_as4);
    CHECK_EQ(p.as, 64512);
}

/* open_msg with one byte changed; the error it gets. */
static void open_bad(size_t at, uint8_t val, uint8_t code, uint8_t sub)
{
    uint8_t m[sizeof open_msg];
    memcpy(m, open_msg, sizeof m);
    m[at] = val;
    struct bgp_open o;
    struct bgp_error e = {0};
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), -1);
    CHECK_EQ(e.code, code);
    CHECK_EQ(e.subcode, sub);
}

TEST(bgp_open_errors)
{
    open_bad(19, 3, 2, 1); /* version 3 */
    uint8_t m[sizeof open_msg];
    memcpy(m, open_msg, sizeof m);
    m[19] = 5;
    struct bgp_open o;
    struct bgp_error e = {0};
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), -1);
    CHECK_EQ(e.data_len, 2); /* RFC 4271 6.2: the version we speak */
    CHECK_EQ(e.data[1], 4);
    open_bad(23, 1, 2, 6); /* hold 1 */
    open_bad(23, 2, 2, 6); /* hold 2 */
    memcpy(m, open_msg, sizeof m);
    memset(m + 24, 0, 4); /* id 0 */
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), -1);
    CHECK_EQ(e.subcode, 3);
    memcpy(m, open_msg, sizeof m);
    m[20] = m[21] = 0; /* My AS 0: RFC 7607 */
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), -1);
    CHECK_EQ(e.subcode, 2);
    memcpy(m, open_msg, sizeof m);
    m[49] = m[50] = 0; /* AS4 capability 0 */
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), -1);
    CHECK_EQ(e.subcode, 2);
    open_bad(29, 1, 2, 4);    /* an Authentication parameter (type 1) */
    open_bad(28, 0x1f, 2, 0); /* opt len one short of the body */
    open_bad(28, 0x21, 2, 0); /* one past */
    open_bad(30, 0x21, 2, 0); /* parameter past the optional parameters */
    open_bad(32, 0x30, 2, 0); /* a capability past its parameter */
    /* hold 0 and 3 are fine */
    memcpy(m, open_msg, sizeof m);
    m[23] = 0;
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), 0);
    m[23] = 3;
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), 0);
    /* shorter than an OPEN */
    CHECK_EQ(open_exact(m, 28, &o, &e), -1);
    CHECK_EQ(e.code, 1);
    CHECK_EQ(e.subcode, 2);
}

TEST(bgp_open_as_trans_without_as4_and_ignored_caps)
{
    /* an old speaker (no AS4) whose My AS is AS_TRANS; a malformed MP
     * capability and an unknown one are ignored (RFC 5492 5) */
    static const uint8_t m[] = {MARKER, 0x00, 0x2b, 0x01, 0x04, 0x5b, 0xa0, 0x00, 0xb4, 0x0a, 0x00, 0x00, 0x01,
                                0x0e, 0x02, 0x0c, 0x01, 0x03, 0x00, 0x01, 0x01, 0x83, 0x05, 1, 2, 3, 4, 5};
    struct bgp_open o;
    struct bgp_error e;
    CHECK_EQ(sizeof m, 0x2b);
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), 0);
    CHECK_EQ(o.as, BGP_AS_TRANS);
    CHECK_EQ(o.hold, 180);
    CHECK(!o.cap_as4 && !o.cap_mp_v4 && o.caps);
}

TEST(bgp_open_rfc9072_extended_parameters)
{
    /* RFC 9072 2: Non-Ext OP Len 255, Non-Ext OP Type 255, a 2-byte
     * length, each parameter's length 2 bytes */
    static const uint8_t m[] = {MARKER, 0x00, 0x2b, 0x01, 0x04, 0xfd, 0xe9, 0x00, 0x5a, 0xc0, 0x00, 0x02, 0x01,
                                0xff, 0xff, 0x00, 0x0b, 0x02, 0x00, 0x08,
                                0x41, 0x04, 0x00, 0x01, 0x00, 0x00, 0x02, 0x00};
    struct bgp_open o;
    struct bgp_error e;
    CHECK_EQ(sizeof m, 0x2b);
    CHECK_EQ(open_exact(m, sizeof m, &o, &e), 0);
    CHECK_EQ(o.as, 65536);
    CHECK(o.cap_as4 && o.cap_route_refresh);
}

TEST(bgp_keepalive_notification_route_refresh)
{
    uint8_t m[128];
    static const uint8_t ka[] = {MARKER, 0x00, 0x13, 0x04};
    CHECK_EQ(bgp_keepalive_encode(m), 19);
    CHECK(memcmp(m, ka, 19) == 0);

    /* cease/administrative shutdown with a reason (RFC 9003 2) */
    struct bgp_error e = {.code = 6, .subcode = 2, .data_len = 5, .data = {4, 'm', 'a', 'i', 'n'}};
    static const uint8_t want[] = {MARKER, 0x00, 0x1a, 0x03, 0x06, 0x02, 0x04, 'm', 'a', 'i', 'n'};
    size_t n = bgp_notification_encode(m, sizeof m, &e);
    CHECK_EQ(n, sizeof want);
    CHECK(memcmp(m, want, sizeof want) == 0);
    struct bgp_error back;
    CHECK_EQ(bgp_notification_parse(m, (uint16_t)n, &back), 0);
    CHECK_EQ(back.code, 6);
    CHECK_EQ(back.subcode, 2);
    CHECK_EQ(back.data_len, 5);
    CHECK(memcmp(back.data, e.data, 5) == 0);
    CHECK_EQ(bgp_notification_encode(m, 25, &e), 0);
    /* data past 64 bytes is cut */
    static uint8_t big[21 + 100];
    memset(big, 0xff, 16);
    big[16] = 0;
    big[17] = sizeof big;
    big[18] = 3;
    big[19] = 3;
    big[20] = 1;
    for (int i = 0; i < 100; i++)
        big[21 + i] = (uint8_t)i;
    CHECK_EQ(bgp_notification_parse(big, sizeof big, &back), 0);
    CHECK_EQ(back.data_len, 64);
    CHECK_EQ(back.data[63], 63);
    CHECK_EQ(bgp_notification_parse(big, 20, &back), -1);
    e.data_len = 200; /* more than it holds: 64 sent */
    CHECK_EQ(bgp_notification_encode(m, sizeof m, &e), 21 + 64);

    static const uint8_t rr[] = {MARKER, 0x00, 0x17, 0x05, 0x00, 0x02, 0x00, 0x01};
    CHECK_EQ(bgp_route_refresh_encode(m, BGP_AFI_IPV6, BGP_SAFI_UNICAST), 23);
    CHECK(memcmp(m, rr, 23) == 0);
    uint16_t afi = 0;
    uint8_t safi = 0;
    CHECK_EQ(bgp_route_refresh_parse(m, 23, &afi, &safi, &e), 0);
    CHECK_EQ(afi, 2);
    CHECK_EQ(safi, 1);
    m[21] = 1; /* RFC 7313's BoRR subtype: the reserved byte, ignored */
    CHECK_EQ(bgp_route_refresh_parse(m, 23, &afi, &safi, &e), 0);
    CHECK_EQ(bgp_route_refresh_parse(m, 24, &afi, &safi, &e), -1);
    CHECK_EQ(e.code, 1);
    CHECK_EQ(e.subcode, 2);
}

TEST(bgp_error_names)
{
    CHECK_STR(bgp_error_name(4, 0), "hold timer expired");
    CHECK_STR(bgp_error_name(6, 4), "cease/administrative reset");
    CHECK_STR(bgp_error_name(6, 2), "cease/administrative shutdown");
    CHECK_STR(bgp_error_name(3, 11), "update/malformed AS_PATH");
    CHECK_STR(bgp_error_name(1, 2), "header/bad message length");
    CHECK_STR(bgp_error_name(2, 6), "open/unacceptable hold time");
    CHECK_STR(bgp_error_name(5, 3), "fsm/unexpected message in Established");
    CHECK_STR(bgp_error_name(6, 99), "cease");
    CHECK_STR(bgp_error_name(2, 8), "open");
    CHECK_STR(bgp_error_name(0, 0), "unknown error");
    CHECK_STR(bgp_error_name(200, 1), "unknown error");
    for (unsigned r = 0; r < BGP_R_COUNT; r++) {
        CHECK(strncmp(bgp_upd_reason_name(r), "bgp_upd_", 8) == 0);
        for (unsigned q = 0; q < r; q++)
            CHECK(strcmp(bgp_upd_reason_name(r), bgp_upd_reason_name(q)) != 0);
    }
    CHECK_STR(bgp_upd_reason_name(BGP_R_COUNT), "bgp_upd_unknown");
    CHECK_STR(bgp_upd_reason_name(BGP_R_ORIGIN_BAD), "bgp_upd_origin_bad");
}
