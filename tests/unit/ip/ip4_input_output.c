/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/ip4_input_output.c: IPv4 input checks (RFC 1812 5.2.2, 5.3.7),
 * delivery choices, hooks, output routing (net/ip/ip4.c, net/ip/ip4_output.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static void fix_csum(uint8_t *ip)
{
    uint32_t hlen = (uint32_t)(ip[0] & 0xf) * 4;
    ip[10] = ip[11] = 0;
    uint16_t c = fake_csum(ip, hlen, 0);
    ip[10] = (uint8_t)(c >> 8);
    ip[11] = (uint8_t)c;
}

/* An echo request frame from the peer with 8 bytes of payload. */
static size_t ping(uint8_t *f)
{
    uint8_t icmp[16];
    size_t n = fake_icmp(icmp, ICMP4_ECHO, 0, 0x12340001, "abcdefgh", 8);
    return fake_frame_ip4(f, IP4_PROTO_ICMP, 7, 0, icmp, n);
}

TEST(ip4_header_checks)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128], *ip = f + 14;
    size_t n;

    n = ping(f);
    fake_net_input(&fn, 0, f, 14 + 19); /* 19 bytes of IPv4 */
    ip[0] = 0x65; /* version 6 */
    fix_csum(ip);
    fake_net_input(&fn, 0, f, n);
    n = ping(f);
    ip[0] = 0x44; /* IHL 4 */
    fake_net_input(&fn, 0, f, n);
    n = ping(f);
    ip[0] = 0x4f; /* IHL 15: 60 bytes, more than the frame */
    fake_net_input(&fn, 0, f, 14 + 40);
    n = ping(f);
    ip[10] ^= 0x01;
    fake_net_input(&fn, 0, f, n);
    n = ping(f);
    ip[2] = 0;
    ip[3] = 19; /* total length under the header */
    fix_csum(ip);
    fake_net_input(&fn, 0, f, n);
    n = ping(f);
    ip[3] = 100; /* beyond the frame */
    fix_csum(ip);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=7 ip4-rx=7 ip4-too-short=1 ip4-bad-version=1 ip4-bad-ihl=1 "
                                        "ip4-truncated=2 ip4-bad-checksum=1 ip4-bad-length=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* The echo request with 4 option bytes after the header. */
static size_t ping_opts(uint8_t *f, const uint8_t *opt)
{
    uint8_t tmp[128];
    size_t n = ping(tmp);
    memcpy(f, tmp, 14 + 20);
    memcpy(f + 34, opt, 4);
    memcpy(f + 38, tmp + 34, n - 34);
    f[14] = 0x46;
    f[14 + 3] = (uint8_t)(n - 14 + 4);
    fix_csum(f + 14);
    return n + 4;
}

TEST(ip4_option_checks)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128];
    static const uint8_t len0[4] = {0x07, 0, 0, 0}, len1[4] = {0x07, 1, 0, 0}, past[4] = {0x44, 8, 5, 0},
                         no_len[4] = {1, 1, 1, 0x94}, good[4] = {0x94, 4, 0, 0};
    fake_net_input(&fn, 0, f, ping_opts(f, len0));
    fake_net_input(&fn, 0, f, ping_opts(f, len1));
    fake_net_input(&fn, 0, f, ping_opts(f, past));
    fake_net_input(&fn, 0, f, ping_opts(f, no_len)); /* type byte last, no length */
    CHECK_EQ(fn.nd[0].nsent, 0);
    fake_net_input(&fn, 0, f, ping_opts(f, good)); /* router alert */
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=5 ip4-rx=5 ip4-bad-option=4 ip4-local=1 icmp4-rx=1 "
                                        "icmp4-rx-echo=1 icmp4-tx-echo-reply=1 ip4-tx=1 eth-tx=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip4_padding_trimmed)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128];
    size_t n = ping(f);
    memset(f + n, 0xee, 20);
    fake_net_input(&fn, 0, f, n + 20);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *r = fn.nd[0].sent[0]->data;
        CHECK_EQ(r[16] << 8 | r[17], 20 + 8 + 8);
        CHECK_EQ(fake_csum(r + 34, 16, 0), 0); /* the junk was not echoed */
    }
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip4_martians_dropped)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128], *ip = f + 14;
    static const uint8_t srcs[][4] = {{127, 0, 0, 1}, {0, 0, 0, 0}, {224, 0, 0, 5}, {255, 255, 255, 255},
                                      {240, 0, 0, 1}, {10, 0, 0, 255}, {10, 0, 0, 1}, {10, 0, 1, 1}};
    static const uint8_t dsts[][4] = {{127, 0, 0, 1}, {0, 1, 2, 3}, {240, 0, 0, 1}};
    for (size_t i = 0; i < sizeof(srcs) / 4; i++) {
        size_t n = ping(f);
        memcpy(ip + 12, srcs[i], 4);
        fix_csum(ip);
        fake_net_input(&fn, 0, f, n);
    }
    for (size_t i = 0; i < sizeof(dsts) / 4; i++) {
        size_t n = ping(f);
        memcpy(ip + 16, dsts[i], 4);
        fix_csum(ip);
        fake_net_input(&fn, 0, f, n);
    }
    CHECK_EQ(fn.nd[0].nsent + fn.nd[1].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=11 ip4-rx=11 ip4-bad-source=8 ip4-bad-dest=3"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip4_not_for_us_dropped_without_hook)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    uint8_t f[128], *ip = f + 14;
    size_t n = ping(f);
    memcpy(ip + 16, &(uint32_t){NET_IP4(192, 168, 9, 9)}, 4);
    fix_csum(ip);
    fake_net_input(&fn, 0, f, n);
    memcpy(f, eth_bcast_addr, 6); /* RFC 1812 5.3.4: link broadcast, IP unicast */
    fake_net_input(&fn, 0, f, n);
    n = ping(f);
    memcpy(ip + 16, &(uint32_t){NET_IP4(224, 0, 0, 251)}, 4);
    fix_csum(ip);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent + fn.nd[1].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 ip4-rx=3 ip4-not-for-us=1 ip4-l2-bcast=1 ip4-mcast=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static int hook_calls;
static uint32_t hook_dst;

static void hook(void *ctx, struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    hook_calls++;
    CHECK(ctx == (void *)&hook_calls);
    CHECK_EQ(p->l3_off, 0);
    CHECK_EQ(p->port, 0);
    CHECK_EQ(p->data[0], 0x45);
    CHECK_EQ(p->len, 20 + 16);
    CHECK_EQ(p->user, 0);
    memcpy(&hook_dst, p->data + 16, 4);
    pkt_free(p);
}

TEST(ip4_forward_hook_gets_the_rest)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    net_set_forward(fn.s, hook, &hook_calls);
    uint8_t f[128], *ip = f + 14;
    size_t n = ping(f);
    memcpy(ip + 16, &(uint32_t){FAKE_PEER1}, 4);
    fix_csum(ip);
    hook_calls = 0;
    fake_net_input(&fn, 0, f, n + 6); /* padding is trimmed before the hook */
    CHECK_EQ(hook_calls, 1);
    CHECK_EQ(hook_dst, FAKE_PEER1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 ip4-rx=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip4_unknown_protocol_unreachable)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128];
    size_t n = fake_frame_ip4(f, 99, 5, 0, "0123456789", 10);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *r = fn.nd[0].sent[0]->data + 14;
        CHECK_EQ(r[9], IP4_PROTO_ICMP);
        CHECK_EQ(r[20], ICMP4_UNREACH);
        CHECK_EQ(r[21], ICMP4_UNREACH_PROTO);
        CHECK(memcmp(r + 28, f + 14, 30) == 0); /* quotes the whole datagram */
        CHECK_EQ(r[2] << 8 | r[3], 20 + 8 + 30);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 ip4-rx=1 ip4-local=1 ip4-unknown-proto=1 "
                                        "icmp4-tx-unreach=1 ip4-tx=1 eth-tx=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip4_nic_verified_header_not_summed)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[128];
    size_t n = ping(f);
    f[14 + 10] ^= 0xff;
    struct pkt *p = fake_net_rx(&fn, 0, f, n);
    p->flags = PKT_RX_IP_CSUM_OK;
    net_input(fn.s, &p, 1, fn.now_ns);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 1);
    CHECK_EQ(fn.s->ctr.ip4_bad_checksum, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static bool route_hook(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be)
{
    if ((dst_be & NET_IP4(255, 255, 0, 0)) != NET_IP4(192, 168, 0, 0))
        return false;
    *port = *(uint16_t *)ctx;
    *gw_be = FAKE_PEER1;
    return true;
}

static int send_to(struct fake_net *fn, uint32_t dst)
{
    struct pkt *p = pkt_alloc(&fn->pool);
    p->len = 4;
    memset(p->data, 0, 4);
    int rc = udp_send(fn->s, p, 0, dst, 5, 6, fn->now_ns);
    net_flush(fn->s);
    return rc;
}

TEST(ip4_output_routes)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    uint16_t port = 1;
    CHECK_EQ(send_to(&fn, NET_IP4(192, 168, 5, 5)), -1);
    CHECK_EQ(send_to(&fn, FAKE_ADDR0), -1);
    net_set_route(fn.s, route_hook, &port);
    CHECK_EQ(send_to(&fn, NET_IP4(192, 168, 5, 5)), 0);
    CHECK_EQ(fn.nd[1].nsent, 1); /* ARP for the gateway, on eth1 */
    if (fn.nd[1].nsent == 1)
        CHECK(memcmp(fn.nd[1].sent[0]->data + 14 + 24, &(uint32_t){FAKE_PEER1}, 4) == 0);
    port = 6; /* a port that was never added */
    CHECK_EQ(send_to(&fn, NET_IP4(192, 168, 5, 6)), -1);
    CHECK_EQ(fake_expect_counters(fn.s, "ip4-out-no-route=2 ip4-out-to-self=1 ip4-tx=1 udp-tx=1 "
                                        "arp-tx-request=1 eth-tx=1"),
             0);
    net_stack_release(fn.s); /* the datagram waiting on ARP */
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static int sink_calls;

static void sink(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                 uint16_t len, struct pkt *p, uint64_t now_ns)
{
    sink_calls++;
    if (p)
        pkt_free(p);
}

/* A UDP datagram src -> dst, port 5 -> 9, as eth0's peer sends it. */
static size_t udp_frame(uint8_t *f, uint32_t src_be, uint32_t dst_be)
{
    uint8_t u[16];
    size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    size_t ul = fake_udp(u, src_be, dst_be, 5, 9, "abcd", 4);
    return n + fake_ip4(f + n, src_be, dst_be, IP4_PROTO_UDP, 1, 0, u, ul);
}

/* Every first octet as a source and as a destination, against RFC 1812
 * 5.3.7: sources 0/8, 127/8, 224/4 and 240/4 are dropped, destinations
 * 0/8, 127/8 and 240/4 but 255.255.255.255. */
TEST(ip4_martian_first_octets)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    CHECK_EQ(udp_bind(fn.s, 9, sink, NULL), 0);
    uint8_t f[128];
    sink_calls = 0;
    for (uint32_t o = 0; o < 256; o++) /* to us: what passes is delivered */
        fake_net_input(&fn, 0, f, udp_frame(f, net_htonl(o << 24 | 0x010203), FAKE_ADDR0));
    CHECK_EQ(sink_calls, 256 - 34);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=256 ip4-rx=256 ip4-bad-source=34 ip4-local=222 udp-rx=222"), 0);
    memset(&fn.s->ctr, 0, sizeof(fn.s->ctr));
    for (uint32_t o = 0; o < 256; o++) /* not ours: dropped, counted by why */
        fake_net_input(&fn, 0, f, udp_frame(f, FAKE_PEER, net_htonl(o << 24 | 0x010203)));
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=256 ip4-rx=256 ip4-bad-dest=18 ip4-mcast=16 "
                                        "ip4-not-for-us=222"),
             0);
    memset(&fn.s->ctr, 0, sizeof(fn.s->ctr));
    sink_calls = 0;
    fake_net_input(&fn, 0, f, udp_frame(f, FAKE_PEER, 0xffffffffu));
    fake_net_input(&fn, 0, f, udp_frame(f, NET_IP4(240, 0, 0, 1), 0xffffffffu)); /* the source first */
    fake_net_input(&fn, 0, f, udp_frame(f, NET_IP4(127, 0, 0, 1), NET_IP4(0, 0, 0, 1)));
    CHECK_EQ(sink_calls, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=3 ip4-rx=3 ip4-bad-source=2 ip4-local=1 udp-rx=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* ip4_input sums a plain header its own way: it must agree with a byte-wise
 * reference on random headers, right and wrong, and on a checksum of zero
 * sent as either 0x0000 or 0xffff (both are zero in ones' complement). */
TEST(ip4_header_checksum_agrees_with_reference)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    CHECK_EQ(udp_bind(fn.s, 9, sink, NULL), 0);
    uint8_t f[128], *ip = f + 14;
    uint32_t x = 12345, good = 0, bad = 0;
    sink_calls = 0;
    for (int i = 0; i < 4000; i++) {
        size_t n = udp_frame(f, NET_IP4(172, 16, 0, 0), FAKE_ADDR0);
        x = x * 1103515245u + 12345u;
        ip[1] = (uint8_t)(x >> 8);                       /* TOS */
        memcpy(ip + 4, &(uint16_t){(uint16_t)(x >> 16)}, 2); /* ID */
        x = x * 1103515245u + 12345u;
        ip[8] = (uint8_t)(x >> 24);                      /* TTL */
        ip[14] = (uint8_t)(x >> 8);
        ip[15] = (uint8_t)(x >> 16) | 1;                 /* 172.16.x.y, y odd: not 0 or 255 */
        ip[26] = ip[27] = 0;                             /* no UDP checksum (RFC 768) */
        fix_csum(ip);
        if (i & 1) {                                     /* half are damaged */
            x = x * 1103515245u + 12345u;
            if (x & 0x80000000u)
                ip[(x >> 8) % 2 ? 10 : 11] ^= (uint8_t)(1u << ((x >> 16) & 7));
            else
                ip[1 + (x >> 8) % 2 * 7] ^= (uint8_t)((x >> 16) | 1); /* TOS or TTL */
        }
        if (fake_csum(ip, 20, 0) == 0)
            good++;
        else
            bad++;
        fake_net_input(&fn, 0, f, n);
    }
    /* A header whose checksum is zero: pick the ID that makes it so. */
    size_t n = udp_frame(f, NET_IP4(172, 16, 0, 1), FAKE_ADDR0);
    ip[4] = ip[5] = ip[10] = ip[11] = 0;
    uint16_t c = fake_csum(ip, 20, 0);
    ip[4] = (uint8_t)(c >> 8);
    ip[5] = (uint8_t)c;
    CHECK_EQ(fake_csum(ip, 20, 0), 0);
    fake_net_input(&fn, 0, f, n);
    ip[10] = ip[11] = 0xff;
    fake_net_input(&fn, 0, f, n);
    good += 2;
    CHECK(good > 1000 && bad > 1000);
    CHECK_EQ(fn.s->ctr.ip4_bad_checksum, bad);
    CHECK_EQ(fn.s->ctr.ip4_local, good);
    CHECK_EQ(sink_calls, good);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
