/* SPDX-License-Identifier: MIT */
/* tests/unit/core/capture.c: packet capture's portable parts
 * (net/capture/capture.h): the filter's words and what it matches, the
 * ring (order, what it cannot hold counted), header summaries, and pcapng
 * blocks laid out as the format says. */
#include <stdlib.h>

#include "net/capture/capture.h"
#include "tests/support/fake_netdev.h"
#include "tests/unit/check.h"

static int parse(struct cap_filter *f, const char *line, uint32_t *count)
{
    static char buf[256];
    char *argv[32];
    int argc = 0;
    strcpy(buf, line);
    for (char *t = strtok(buf, " "); t && argc < 32; t = strtok(NULL, " "))
        argv[argc++] = t;
    char err[128];
    return cap_filter_parse(f, argc, argv, count, err, sizeof err);
}

/* A UDP datagram from 10.0.0.2:sport to dst:dport in a frame. */
static size_t udp_frame(uint8_t *f, uint32_t dst_be, uint16_t sport, uint16_t dport)
{
    uint8_t udp[64], pay[4] = {1, 2, 3, 4};
    size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    size_t u = fake_udp(udp, FAKE_PEER, dst_be, sport, dport, pay, 4);
    return n + fake_ip4(f + n, FAKE_PEER, dst_be, IP4_PROTO_UDP, 1, 0, udp, u);
}

TEST(capture_filter_words)
{
    struct cap_filter f;
    uint32_t count;
    CHECK_EQ(parse(&f, "", &count), 0);
    CHECK(f.dirs == (CAP_RX | CAP_TX | CAP_DROP) && count == 0 && f.proto == -1 && !f.has_net);
    CHECK_EQ(parse(&f, "rx count 10 match host 10.0.0.2 proto udp port 53", &count), 0);
    CHECK(f.dirs == CAP_RX && count == 10 && f.proto == 17 && f.l4port == 53 && f.has_net && f.net_len == 32);
    CHECK_EQ(parse(&f, "drop match net 2001:db8::/32", &count), 0);
    CHECK(f.dirs == CAP_DROP && f.v6 && f.net_len == 32);
    const char *bad[] = {"sideways", "count 0", "count x", "match host 10.0.0", "match net 10.0.0.0",
                         "match proto xyz", "match port 70000", "match host 1.2.3.4 host 5.6.7.8", "match frob 1",
                         "rx rx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(parse(&f, bad[i], &count), -1);
}

TEST(capture_filter_matches_headers)
{
    struct cap_filter f;
    uint32_t count;
    uint8_t fr[128];
    size_t n = udp_frame(fr, NET_IP4(192, 168, 1, 9), 5000, 53);
    CHECK_EQ(parse(&f, "", &count), 0);
    CHECK(cap_match(&f, fr, (uint32_t)n));
    CHECK_EQ(parse(&f, "match net 192.168.0.0/16 proto udp port 53", &count), 0);
    CHECK(cap_match(&f, fr, (uint32_t)n));
    CHECK_EQ(parse(&f, "match host 10.0.0.2 port 5000", &count), 0); /* the source's side */
    CHECK(cap_match(&f, fr, (uint32_t)n));
    CHECK_EQ(parse(&f, "match net 192.169.0.0/16", &count), 0);
    CHECK(!cap_match(&f, fr, (uint32_t)n));
    CHECK_EQ(parse(&f, "match proto tcp", &count), 0);
    CHECK(!cap_match(&f, fr, (uint32_t)n));
    CHECK_EQ(parse(&f, "match host 2001:db8::1", &count), 0); /* the other family */
    CHECK(!cap_match(&f, fr, (uint32_t)n));
    CHECK(!cap_match(&f, fr, 10)); /* a runt never matches a header test */
    struct cap_summary s;
    CHECK(cap_summarize(fr, (uint32_t)n, &s));
    CHECK(s.ip == 4 && s.proto == 17 && s.sport == 5000 && s.dport == 53 && s.ip_len == 32);
}

TEST(capture_ring_keeps_order_and_counts_what_it_cannot_hold)
{
    struct cap_ring r = {0};
    r.r = calloc(CAP_RING, sizeof(struct cap_rec));
    uint8_t fr[2000];
    for (uint32_t i = 0; i < sizeof fr; i++)
        fr[i] = (uint8_t)(i * 7);
    for (uint32_t i = 0; i < CAP_RING + 5; i++)
        cap_put(&r, 1000 + i, 1, CAP_TX, NULL, &(struct pkt){.data = fr, .len = (uint16_t)(60 + i)});
    CHECK_EQ(r.lost, 5);
    for (uint32_t i = 0; i < CAP_RING; i++) {
        const struct cap_rec *c = cap_peek(&r);
        CHECK(c && c->ts_ns == 1000 + i && c->len == 60 + i && c->caplen == 60 + i && c->port == 1);
        cap_done(&r);
    }
    CHECK(cap_peek(&r) == NULL);
    /* a jumbo frame's two buffers, longer than the snap length together */
    struct pkt tail = {.data = fr + 1000, .len = 1000}, head = {.data = fr, .len = 1000, .flags = PKT_F_CHAIN,
                                                                .next = &tail};
    cap_put(&r, 7, 0, CAP_DROP, "fwd-no-route", &head);
    const struct cap_rec *c = cap_peek(&r);
    CHECK(c && c->len == sizeof fr && c->caplen == CAP_SNAP && strcmp(c->reason, "fwd-no-route") == 0);
    CHECK(c && memcmp(c->data, fr, CAP_SNAP) == 0);
    free(r.r);
}

static uint32_t rd32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Every block: type, length a multiple of 4, the length again at its end. */
TEST(capture_pcapng_blocks)
{
    static uint8_t out[8192];
    const char *names[] = {"eth0", "eth10"};
    size_t n = cap_pcapng_header(out, sizeof out, names, 2);
    CHECK(n > 0);
    CHECK_EQ(cap_pcapng_header(out, 40, names, 2), 0);
    size_t at = 0;
    uint32_t types[3];
    for (int b = 0; b < 3; b++) {
        uint32_t len = rd32(out + at + 4);
        CHECK(len % 4 == 0 && at + len <= n);
        CHECK_EQ(rd32(out + at + len - 4), len);
        types[b] = rd32(out + at);
        at += len;
    }
    CHECK_EQ(at, n);
    CHECK(types[0] == 0x0a0d0d0a && types[1] == 1 && types[2] == 1);
    CHECK_EQ(rd32(out + 8), 0x1a2b3c4d);
    CHECK(memcmp(out + 28 + 16 + 4, "eth0", 4) == 0); /* the first IDB's if_name */

    static struct cap_rec r;
    r.ts_ns = 0x123456789ull;
    r.port = 1;
    r.dir = CAP_DROP;
    r.len = r.caplen = 61;
    strcpy(r.reason, "fwd-ttl-expired");
    memset(r.data, 0x5a, 61);
    n = cap_pcapng_packet(out, sizeof out, &r);
    CHECK(n % 4 == 0 && rd32(out) == 6 && rd32(out + 4) == n && rd32(out + n - 4) == n);
    CHECK(rd32(out + 8) == 1 && rd32(out + 12) == 1 && rd32(out + 16) == 0x23456789u);
    CHECK(rd32(out + 20) == 61 && rd32(out + 24) == 61 && out[28 + 60] == 0x5a && out[28 + 61] == 0);
    size_t o = 28 + 64; /* options after the padded data: flags, comment, end */
    CHECK(out[o] == 2 && out[o + 2] == 4 && rd32(out + o + 4) == 1); /* inbound: a drop is of what came in */
    CHECK(out[o + 8] == 1 && out[o + 10] == 15 && memcmp(out + o + 12, "fwd-ttl-expired", 15) == 0);
    CHECK_EQ(cap_pcapng_packet(out, 64, &r), 0);
}
