/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/handshake_and_hashes.c: TCP basics over the in-memory link: handshake,
 * data both ways, close, the echo service, hashes (net/tcp/,
 * apps/tcp_echo.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"
#include "apps/tcp_echo.h"

TEST(tcp_siphash_vectors)
{
    /* SipHash-2-4 paper, appendix A: key 00..0f. */
    uint64_t key[2] = {0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};
    uint8_t m[15];
    for (int i = 0; i < 15; i++)
        m[i] = (uint8_t)i;
    CHECK(tcp_siphash(key, m, 0) == 0x726fdb47dd0e0e31ull);
    CHECK(tcp_siphash(key, m, 15) == 0xa129ca6149be45e5ull);
}

TEST(tcp_toeplitz_vector)
{
    /* Microsoft's RSS verification suite, IPv4 with TCP. */
    static const uint8_t key[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
                                    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
                                    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
                                    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};
    const uint8_t in[12] = {66, 9, 149, 187, 161, 142, 100, 80, 2794 >> 8, 2794 & 0xff, 1766 >> 8, 1766 & 0xff};
    CHECK_EQ(tcp_toeplitz(key, 40, in, 12), 0x51ccc178u);
    CHECK_EQ(tcp_toeplitz(key, 40, in, 8), 0x323e8fc2u);
    /* IPv6 with TCP: 3ffe:2501:200:1fff::7 port 2794 to 3ffe:2501:200:3::1
     * port 1766, through tcp_rss6_reta_core (a table of one bucket per
     * hash value's low bit, so the bucket shows the hash). */
    static const uint8_t src6[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 7};
    static const uint8_t dst6[16] = {0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 1};
    uint8_t in6[36];
    memcpy(in6, src6, 16);
    memcpy(in6 + 16, dst6, 16);
    memcpy(in6 + 32, in + 8, 4);
    CHECK_EQ(tcp_toeplitz(key, 40, in6, 36), 0x40207d3du);
    CHECK_EQ(tcp_toeplitz(key, 40, in6, 32), 0x2cc18cd5u); /* addresses only */
    static const uint16_t reta[3] = {10, 11, 12};
    struct tcp_rss_reta r = {.key = key, .key_len = 40, .reta = reta, .reta_size = 3};
    CHECK_EQ(tcp_rss6_reta_core(&r, src6, dst6, 2794, 1766), reta[0x40207d3du % 3]);
}

/* An arena of tcp_arena_size(n) holds n connections, not one fewer (the
 * boot log's count is the table's). */
TEST(tcp_arena_holds_what_it_was_sized_for)
{
    static const uint32_t sizes[] = {1, 7, 100, 1000, 4096};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        struct tl_opts o = {.nconns = sizes[i]};
        struct tl *l = tl_new(&o);
        CHECK_EQ(l->t[0]->nconns, sizes[i]);
        CHECK(tl_free(l));
    }
}

static bool both_closed(void *ctx)
{
    struct ta *a = ctx;
    return a[0].closed && a[1].closed;
}

TEST(tcp_handshake_data_close)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    a[0].tx_total = 100000;
    a[0].close_when_sent = true;
    a[1].tx_total = 5000;
    a[1].close_on_fin = true;
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_closed, a, 5000000000ull));
    CHECK_EQ(a[0].connected, 1);
    CHECK_EQ(a[1].accepted, 1);
    CHECK_EQ(a[1].rx_bytes, 100000);
    CHECK_EQ(a[0].rx_bytes, 5000);
    CHECK_EQ(a[0].rx_bad + a[1].rx_bad, 0);
    CHECK_EQ(a[0].acked, 100000);
    CHECK_EQ(a[1].acked, 5000);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(tl_ctr(l, 0, "tcp-connected"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-accepted"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit") + tl_ctr(l, 1, "tcp-retransmit"), 0);
    /* The active closer waits in TIME-WAIT, then it is gone. */
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns - 1);
    CHECK_EQ(l->t[1]->nfree, l->t[1]->nconns);
    tl_advance(l, 61000000000ull);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns);
    CHECK(tl_free(l));
}

TEST(tcp_echo_service)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta a = {0};
    a.tx_total = 300000;
    a.zero_copy = true;
    a.close_when_sent = true;
    CHECK_EQ(tcp_echo_start(l->s[1], 7), 0);
    CHECK(ta_connect(l, 0, 7, &a) != NULL);
    CHECK(tl_run(l, both_closed, (struct ta[2]){{0}}, 0) || 1);
    tl_run(l, NULL, NULL, 5000000000ull);
    CHECK_EQ(a.rx_bytes, 300000);
    CHECK_EQ(a.rx_bad, 0);
    CHECK_EQ(a.closed, 1);
    CHECK_EQ(a.close_reason, TCP_CLOSE_NORMAL);
    CHECK(tl_free(l));
}

TEST(tcp_active_open_ports_land_on_this_core)
{
    static const uint8_t key[40] = {0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
                                    0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
                                    0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
                                    0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa};
    uint16_t reta[128];
    for (int i = 0; i < 128; i++)
        reta[i] = (uint16_t)(i % 4); /* four cores */
    struct tcp_rss_reta r = {.key = key, .key_len = 40, .reta = reta, .reta_size = 128};
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.rss = tcp_rss_reta_core;
    cfg.rss_ctx = cfg.rss6_ctx = &r;
    cfg.rss6 = tcp_rss6_reta_core;
    struct tl_opts o = {.cfg = {&cfg, NULL}};
    struct tl *l = tl_new(&o);
    l->s[0]->core = 2;
    struct ta a[20] = {{0}};
    for (int i = 0; i < 20; i++) {
        struct tcp_conn *c = ta_connect(l, 0, 80, &a[i]);
        CHECK(c != NULL);
        if (c)
            CHECK_EQ(tcp_rss_reta_core(&r, c->raddr_be, c->laddr_be, c->rport, c->lport), 2);
    }
    struct ta b[20] = {{0}}; /* and over IPv6 */
    for (int i = 0; i < 20; i++) {
        struct tcp_conn *c = ta_connect6(l, 0, 80, &b[i]);
        CHECK(c != NULL);
        if (c)
            CHECK_EQ(tcp_rss6_reta_core(&r, c->raddr6, c->laddr6, c->rport, c->lport), 2);
    }
    tl_run(l, NULL, NULL, 3000000000ull); /* refused: nobody listens (after a SYN again, for those */
    for (int i = 0; i < 20; i++)          /* Neighbor Discovery did not hold) */
        CHECK_EQ(a[i].close_reason + b[i].close_reason, 2 * TCP_CLOSE_REFUSED);
    CHECK(tl_free(l));
}
