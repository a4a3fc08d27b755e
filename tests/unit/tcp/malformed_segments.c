/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/malformed_segments.c: every malformed TCP segment is dropped
 * without an answer and counted by name (net/tcp/tcp_input.c, tcp_options.c). */
#include <stdlib.h>

#include "net/ip/ip4.h"
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Recompute the TCP checksum of a frame built by ta_frame. */
static void fix_tcp_csum(uint8_t *f, size_t n)
{
    uint8_t *ip = f + 14, *t = ip + 20;
    size_t len = n - 34;
    uint32_t sum = 0;
    for (int i = 12; i < 20; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    sum += IP4_PROTO_TCP + (uint32_t)len;
    put16(t + 16, 0);
    put16(t + 16, fake_csum(t, len, sum));
}

/* Nothing from side 1 must reach the wire. */
static bool silent_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    int *n = ctx;
    if (from == 1)
        (*n)++;
    return true;
}

TEST(tcp_malformed_segments_dropped_and_counted)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta a = {0};
    ta_listen(l, 1, 80, &a);
    int sent = 0;
    l->tap = silent_tap;
    l->tap_ctx = &sent;
    uint8_t f[256], *t = f + 34;
    size_t n;
    const uint8_t opt_bad[][8] = {
        {TCP_OPT_MSS, 3, 5, 0},                  /* MSS of length 3 */
        {30, 0, 0, 0},                           /* an unknown kind of length 0 */
        {TCP_OPT_NOP, TCP_OPT_NOP, 99, 9},       /* runs past the header */
        {TCP_OPT_WS, 4, 7, 0},                   /* window scale of length 4 */
        {TCP_OPT_SACK_PERM, 3, 0, 0},            /* SACK-permitted of length 3 */
        {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_NOP, 8}, /* lone kind at the end */
    };
    int nsent = 0;

    /* 19 bytes of TCP: runt. */
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    fake_ip4(f + 14, TL_ADDR0, TL_ADDR1, IP4_PROTO_TCP, 1, 0, t, 19);
    tl_inject(l, 1, f, 14 + 20 + 19);
    nsent++;
    /* Data offset 4, then 15 (60 bytes) in a 24-byte segment. */
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_SYN, 1000, NULL, 0, "abcd", 4);
    t[12] = 4 << 4;
    fix_tcp_csum(f, n);
    tl_inject(l, 1, f, n);
    t[12] = 15 << 4;
    fix_tcp_csum(f, n);
    tl_inject(l, 1, f, n);
    nsent += 2;
    /* A bad checksum. */
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    t[17] ^= 0x55;
    tl_inject(l, 1, f, n);
    nsent++;
    /* Flag combinations: SYN+FIN, SYN+RST, none, FIN+PSH+URG without ACK,
     * FIN alone. */
    const uint8_t bad_flags[] = {TCP_SYN | TCP_FIN, TCP_SYN | TCP_RST, 0, TCP_FIN | TCP_PSH | TCP_URG, TCP_FIN};
    for (size_t i = 0; i < sizeof(bad_flags); i++) {
        n = ta_frame(f, 1, 1234, 80, 1, 0, bad_flags[i], 1000, NULL, 0, NULL, 0);
        tl_inject(l, 1, f, n);
        nsent++;
    }
    /* Bad option lengths. */
    for (size_t i = 0; i < sizeof(opt_bad) / sizeof(opt_bad[0]); i++) {
        n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_SYN, 1000, opt_bad[i], 4, NULL, 0);
        tl_inject(l, 1, f, n);
        nsent++;
    }
    const uint8_t sack_bad[12] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_SACK, 11}; /* 2 + 9 */
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_ACK, 1000, sack_bad, 12, NULL, 0);
    tl_inject(l, 1, f, n);
    const uint8_t ts_bad[12] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, 9};
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_ACK, 1000, ts_bad, 12, NULL, 0);
    tl_inject(l, 1, f, n);
    nsent += 2;
    /* Port 0, either side. */
    n = ta_frame(f, 1, 0, 80, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    tl_inject(l, 1, f, n);
    n = ta_frame(f, 1, 1234, 0, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    tl_inject(l, 1, f, n);
    nsent += 2;
    /* To the subnet's broadcast address. */
    n = ta_frame(f, 1, 1234, 80, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    uint32_t bcast = NET_IP4(10, 0, 0, 255);
    memcpy(f + 14 + 16, &bcast, 4);
    put16(f + 14 + 10, 0);
    put16(f + 14 + 10, fake_csum(f + 14, 20, 0));
    fix_tcp_csum(f, n);
    tl_inject(l, 1, f, n);
    nsent++;
    /* LAND (source = destination): ip4 drops it as a bad source first; TCP
     * checks again for segments that come another way. */
    n = ta_frame(f, 1, 80, 80, 1, 0, TCP_SYN, 1000, NULL, 0, NULL, 0);
    memcpy(f + 14 + 12, f + 14 + 16, 4);
    put16(f + 14 + 10, 0);
    put16(f + 14 + 10, fake_csum(f + 14, 20, 0));
    fix_tcp_csum(f, n);
    tl_inject(l, 1, f, n);
    nsent++;
    struct ip4_rx rx = {.iph = f + 14, .l4 = t, .l4_len = 20, .src_be = TL_ADDR1, .dst_be = TL_ADDR1,
                        .proto = IP4_PROTO_TCP};
    tcp_input(l->s[1], &rx, l->now_ns);
    tl_flush(l);

    CHECK_EQ(sent, 0);
    CHECK_EQ(a.accepted, 0);
    CHECK_EQ(l->t[1]->listen[0].pending, 0);
    char want[512];
    snprintf(want, sizeof(want),
             "eth-rx=%d ip4-rx=%d ip4-local=%d ip4-bad-source=1 tcp-rx=%d tcp-runt=1 tcp-bad-offset=2 "
             "tcp-bad-checksum=1 tcp-bad-flags=5 tcp-bad-option=8 tcp-bad-port=2 tcp-bcast=1 tcp-land=1",
             nsent, nsent, nsent - 1, nsent);
    CHECK_EQ(fake_expect_counters(l->s[1], want), 0);
    CHECK(tl_free(l));
}

TEST(tcp_options_parse)
{
    struct tcp_opts o = {0};
    const uint8_t syn[] = {TCP_OPT_MSS, 4, 0x05, 0xb4, TCP_OPT_SACK_PERM, 2, TCP_OPT_TS, 10, 0, 0, 0, 1, 0, 0,
                           0, 0, TCP_OPT_NOP, TCP_OPT_WS, 3, 15};
    CHECK_EQ(tcp_opt_parse(syn, sizeof(syn), &o), 0);
    CHECK(o.has_mss && o.mss == 1460);
    CHECK(o.sack_ok);
    CHECK(o.has_ts && o.tsval == 1 && o.tsecr == 0);
    CHECK(o.has_ws && o.wscale == 14); /* RFC 7323 2.3: more than 14 is 14 */
    /* Built SYN options parse back. */
    uint8_t buf[40];
    uint32_t n = tcp_opt_syn(buf, 1400, true, true, 7, 1234, 5678);
    CHECK_EQ(n, 20);
    o = (struct tcp_opts){0};
    CHECK_EQ(tcp_opt_parse(buf, n, &o), 0);
    CHECK(o.mss == 1400 && o.sack_ok && o.has_ts && o.tsval == 1234 && o.tsecr == 5678 && o.wscale == 7);
    /* SACK blocks; unknown options skipped; EOL ends. */
    uint32_t blocks[2][2] = {{100, 200}, {300, 400}};
    n = tcp_opt_sack(buf, (const uint32_t(*)[2])blocks, 2);
    buf[n++] = 30; /* an unknown kind, length 4 */
    buf[n++] = 4;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = TCP_OPT_EOL;
    buf[n++] = 0xff; /* after EOL: ignored */
    o = (struct tcp_opts){0};
    CHECK_EQ(tcp_opt_parse(buf, n, &o), 0);
    CHECK_EQ(o.nsack, 2);
    CHECK(o.sack[1][0] == 300 && o.sack[1][1] == 400);
    const uint8_t five[] = {TCP_OPT_SACK, 42};
    CHECK_EQ(tcp_opt_parse(five, 2, &o), -1);
}
