/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/icmp4.c: echo, input checks, errors with RFC 1812 4.3.2
 * quoting, suppression and rate limit (net/ip/icmp4.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

static void fix_csum(uint8_t *ip)
{
    ip[10] = ip[11] = 0;
    uint16_t c = fake_csum(ip, (size_t)(ip[0] & 0xf) * 4, 0);
    ip[10] = (uint8_t)(c >> 8);
    ip[11] = (uint8_t)c;
}

static size_t echo_frame(uint8_t *f, const void *payload, size_t len)
{
    uint8_t icmp[2048];
    size_t n = fake_icmp(icmp, ICMP4_ECHO, 0, 0xbeef0003, payload, len);
    return fake_frame_ip4(f, IP4_PROTO_ICMP, 0x4242, 0, icmp, n);
}

TEST(icmp_echo_reply_bytes)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[256], payload[56];
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i + 1);
    size_t n = echo_frame(f, payload, sizeof(payload));
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent != 1)
        return;
    const uint8_t *r = fn.nd[0].sent[0]->data, *ip = r + 14, *icmp = ip + 20;
    CHECK_EQ(fn.nd[0].sent[0]->len, n);
    CHECK(memcmp(r, fake_peer_mac, 6) == 0);
    CHECK(memcmp(r + 6, fake_mac0, 6) == 0);
    CHECK_EQ(r[12] << 8 | r[13], ETH_TYPE_IP4);
    CHECK_EQ(ip[0], 0x45);
    CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 56);
    CHECK_EQ(ip[6] << 8 | ip[7], 0);
    CHECK_EQ(ip[8], 64);
    CHECK_EQ(ip[9], IP4_PROTO_ICMP);
    CHECK_EQ(fake_csum(ip, 20, 0), 0);
    CHECK(memcmp(ip + 12, f + 14 + 16, 4) == 0); /* addresses swapped */
    CHECK(memcmp(ip + 16, f + 14 + 12, 4) == 0);
    CHECK_EQ(icmp[0], ICMP4_ECHO_REPLY);
    CHECK_EQ(icmp[1], 0);
    CHECK(memcmp(icmp + 4, f + 34 + 4, 4 + 56) == 0); /* id, seq, data */
    CHECK_EQ(fake_csum(icmp, 8 + 56, 0), 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 ip4-rx=1 ip4-local=1 icmp4-rx=1 icmp4-rx-echo=1 "
                                        "icmp4-tx-echo-reply=1 ip4-tx=1 eth-tx=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(icmp_input_checks)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[256], icmp[64];
    size_t n;
    n = fake_icmp(icmp, ICMP4_ECHO, 0, 1, NULL, 0);
    fake_net_input(&fn, 0, f, fake_frame_ip4(f, IP4_PROTO_ICMP, 1, 0, icmp, 7)); /* 7 bytes */
    n = echo_frame(f, "abcd", 4);
    f[n - 1] ^= 1;
    fake_net_input(&fn, 0, f, n);
    n = echo_frame(f, "abcd", 4);
    fake_net_input(&fn, 0, f, n - 2); /* IPv4 says more than came */
    fake_net_input(&fn, 0, f, fake_frame_ip4(f, IP4_PROTO_ICMP, 2, 0, icmp,
                                             fake_icmp(icmp, ICMP4_UNREACH, 3, 0, "quoted-hdr", 10)));
    fake_net_input(&fn, 0, f, fake_frame_ip4(f, IP4_PROTO_ICMP, 3, 0, icmp,
                                             fake_icmp(icmp, 13, 0, 0, "tstamp-tstamp", 12)));
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=5 ip4-rx=5 ip4-local=4 ip4-truncated=1 icmp4-rx=4 "
                                        "icmp4-runt=1 icmp4-bad-checksum=1 icmp4-rx-error=1 "
                                        "icmp4-rx-other=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(icmp_broadcast_echo_ignored)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[256];
    size_t n = echo_frame(f, "abcd", 4);
    memcpy(f, eth_bcast_addr, 6);
    memcpy(f + 14 + 16, &(uint32_t){NET_IP4(10, 0, 0, 255)}, 4);
    fix_csum(f + 14);
    fake_net_input(&fn, 0, f, n);
    memset(f + 14 + 16, 0xff, 4);
    fix_csum(f + 14);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=2 ip4-rx=2 ip4-local=2 icmp4-rx=2 icmp4-rx-echo=2 "
                                        "icmp4-bcast-echo=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* A datagram from the peer to 10.0.1.2 with len bytes of UDP-ish payload,
 * as a forwarding path holds it: Ethernet header still on, l3_off 14. */
static struct pkt *transit(struct fake_net *fn, size_t len, uint8_t proto, uint16_t frag)
{
    static uint8_t f[2048], payload[2048];
    for (size_t i = 0; i < len; i++)
        payload[i] = (uint8_t)(i * 3);
    size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    n += fake_ip4(f + n, FAKE_PEER, FAKE_PEER1, proto, 99, frag, payload, len);
    struct pkt *p = fake_net_rx(fn, 0, f, n);
    p->l3_off = 14;
    p->user = 0;
    return p;
}

TEST(icmp_time_exceeded_quotes_576)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    struct pkt *p = transit(&fn, 1400, IP4_PROTO_UDP, 0);
    CHECK_EQ(icmp4_send_time_exceeded(fn.s, p, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *ip = fn.nd[0].sent[0]->data + 14;
        CHECK_EQ(ip[2] << 8 | ip[3], 576);
        CHECK(memcmp(ip + 12, &(uint32_t){FAKE_ADDR0}, 4) == 0); /* the address it met */
        CHECK(memcmp(ip + 16, &(uint32_t){FAKE_PEER}, 4) == 0);
        CHECK_EQ(ip[20], ICMP4_TIME_EXCEEDED);
        CHECK_EQ(ip[21], ICMP4_EXC_TTL);
        CHECK(memcmp(ip + 28, p->data + 14, 548) == 0);
        CHECK_EQ(fake_csum(ip + 20, 556, 0), 0);
    }
    pkt_free(p); /* still the caller's */
    fake_net_all_free(&fn);

    p = transit(&fn, 30, IP4_PROTO_UDP, 0); /* short: quoted whole */
    CHECK_EQ(icmp4_send_frag_needed(fn.s, p, 1280, fn.now_ns), 0);
    net_flush(fn.s);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *ip = fn.nd[0].sent[0]->data + 14;
        CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 50);
        CHECK_EQ(ip[20], ICMP4_UNREACH);
        CHECK_EQ(ip[21], ICMP4_UNREACH_NEEDFRAG);
        CHECK_EQ(ip[26] << 8 | ip[27], 1280);
    }
    pkt_free(p);
    fake_net_all_free(&fn);
    p = transit(&fn, 30, IP4_PROTO_UDP, 0);
    CHECK_EQ(icmp4_send_param_problem(fn.s, p, 9, fn.now_ns), 0);
    CHECK_EQ(icmp4_send_unreach(fn.s, p, ICMP4_UNREACH_HOST, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 2);
    if (fn.nd[0].nsent == 2) {
        CHECK_EQ(fn.nd[0].sent[0]->data[34], ICMP4_PARAM_PROBLEM);
        CHECK_EQ(fn.nd[0].sent[0]->data[34 + 4], 9);
        CHECK_EQ(fn.nd[0].sent[1]->data[34 + 1], ICMP4_UNREACH_HOST);
    }
    pkt_free(p);
    CHECK_EQ(fake_expect_counters(fn.s, "icmp4-tx-time-exceeded=1 icmp4-tx-unreach=2 "
                                        "icmp4-tx-param-problem=1 ip4-tx=4 eth-tx=4"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(icmp_errors_suppressed)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    struct pkt *p;
    int sent = 0;
    uint8_t err[16];
    /* About an ICMP error. */
    p = transit(&fn, 0, IP4_PROTO_ICMP, 0);
    size_t n = fake_icmp(err, ICMP4_UNREACH, 1, 0, NULL, 0);
    memcpy(p->data + 34, err, n);
    p->len = (uint16_t)(34 + n);
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    memcpy(p->data + 34, (uint8_t[]){ICMP4_ECHO}, 1); /* about an echo request: fine */
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    pkt_free(p);
    /* Link-layer broadcast. */
    p = transit(&fn, 20, IP4_PROTO_UDP, 0);
    p->user = NET_PKT_L2_BCAST;
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    pkt_free(p);
    /* IP broadcast and multicast destinations, bad sources. */
    static const uint32_t dsts[] = {0xffffffffu, NET_IP4(10, 0, 1, 255), NET_IP4(239, 1, 1, 1)};
    static const uint32_t srcs[] = {0, NET_IP4(127, 0, 0, 1), NET_IP4(10, 0, 0, 255), NET_IP4(224, 0, 0, 1),
                                    NET_IP4(250, 1, 1, 1)};
    for (size_t i = 0; i < 3; i++) {
        p = transit(&fn, 20, IP4_PROTO_UDP, 0);
        memcpy(p->data + 14 + 16, &dsts[i], 4);
        sent += icmp4_send_unreach(fn.s, p, ICMP4_UNREACH_NET, fn.now_ns) == 0;
        pkt_free(p);
    }
    for (size_t i = 0; i < 5; i++) {
        p = transit(&fn, 20, IP4_PROTO_UDP, 0);
        memcpy(p->data + 14 + 12, &srcs[i], 4);
        sent += icmp4_send_unreach(fn.s, p, ICMP4_UNREACH_NET, fn.now_ns) == 0;
        pkt_free(p);
    }
    /* A non-initial fragment; a first fragment is fine. */
    p = transit(&fn, 24, IP4_PROTO_UDP, 3);
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    pkt_free(p);
    p = transit(&fn, 24, IP4_PROTO_UDP, IP4_MF);
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    /* Not even an IPv4 header at hand. */
    p->len = 14 + 19;
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    pkt_free(p);
    CHECK_EQ(sent, 2);
    CHECK_EQ(fake_expect_counters(fn.s, "icmp4-error-suppressed=12 icmp4-tx-time-exceeded=2 ip4-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(icmp_errors_rate_limited)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    fn.s->icmp_limit.burst = 5;
    fn.s->icmp_limit.credit_ns = 5 * 1000000ull; /* full at 1000/s */
    fn.s->icmp_limit.last_ns = fn.now_ns;
    struct pkt *p = transit(&fn, 20, IP4_PROTO_UDP, 0);
    int sent = 0;
    for (int i = 0; i < 7; i++)
        sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns) == 0;
    CHECK_EQ(sent, 5);
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns + 999999) == 0;
    CHECK_EQ(sent, 5);
    sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns + 1000000) == 0; /* 1 ms: one token */
    CHECK_EQ(sent, 6);
    sent = 0;
    for (int i = 0; i < 10; i++) /* an hour later: a burst again, no more */
        sent += icmp4_send_time_exceeded(fn.s, p, fn.now_ns + 3600000000000ull) == 0;
    CHECK_EQ(sent, 5);
    pkt_free(p);
    CHECK_EQ(fake_expect_counters(fn.s, "icmp4-tx-time-exceeded=11 icmp4-rate-limited=8 ip4-tx=11 eth-tx=12 "
                                        "arp-tx-request=1" /* the peer went stale */), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
