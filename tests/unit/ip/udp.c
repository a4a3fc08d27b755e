/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/udp.c: UDP input checks, bindings, checksum offload,
 * large and fragmented datagrams, and the udp-echo application
 * (net/ip/udp.c, apps/udp_echo.c). */
#include <stdlib.h>

#include "net/core/csum.h"
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

/* apps/ is not in the unit-test source list; the echo service is one
 * small file written only against net/'s API, so it is built in here. */
#include "apps/udp_echo.h"

struct rec {
    int calls;
    bool had_pkt;
    struct udp_meta m;
    uint16_t len;
    uint8_t data[8192];
};

static void recorder(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                     uint16_t len, struct pkt *p, uint64_t now_ns)
{
    struct rec *r = ctx;
    r->calls++;
    r->had_pkt = p != NULL;
    r->m = *m;
    r->len = len;
    memcpy(r->data, data, len);
    if (p) {
        CHECK(p->data == data && p->len == len);
        pkt_free(p);
    }
}

static size_t udp_frame(uint8_t *f, uint16_t dport, const void *payload, size_t len)
{
    static uint8_t u[70000];
    size_t n = fake_udp(u, FAKE_PEER, FAKE_ADDR0, 5555, dport, payload, len);
    return fake_frame_ip4(f, IP4_PROTO_UDP, 77, 0, u, n);
}

/* The UDP checksum of a sent datagram checks out (byte-by-byte). */
static bool udp_sum_ok(const uint8_t *ip, const uint8_t *udp, size_t ulen)
{
    uint8_t ph[12];
    memcpy(ph, ip + 12, 8);
    ph[8] = 0;
    ph[9] = IP4_PROTO_UDP;
    ph[10] = (uint8_t)(ulen >> 8);
    ph[11] = (uint8_t)ulen;
    uint32_t sum = 0;
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
    return fake_csum(udp, ulen, sum) == 0;
}

/* No answer to source port 0 (RFC 768: none wanted) nor to an echo port
 * (two echo servers would bounce a datagram for ever): counted, freed. */
TEST(udp_echo_refuses_port_0_and_echo_ports)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    static uint8_t u[64], f[256];
    for (int i = 0; i < 2; i++) {
        size_t n = fake_udp(u, FAKE_PEER, FAKE_ADDR0, i ? 7 : 0, 7, "loop", 4);
        fake_net_input(&fn, 0, f, fake_frame_ip4(f, IP4_PROTO_UDP, 77, 0, u, n));
    }
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=2 ip4-rx=2 ip4-local=2 udp-rx=2 udp-echo-refused=2"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(udp_echo_answers_in_the_same_buffer)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    uint8_t f[256];
    size_t n = udp_frame(f, 7, "hello, world", 12);
    struct pkt *p = fake_net_rx(&fn, 0, f, n);
    net_input(fn.s, &p, 1, fn.now_ns);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const struct pkt *r = fn.nd[0].sent[0];
        const uint8_t *ip = r->data + 14, *u = ip + 20;
        CHECK(r == p); /* zero copy */
        CHECK(memcmp(r->data, fake_peer_mac, 6) == 0);
        CHECK(memcmp(ip + 12, &(uint32_t){FAKE_ADDR0}, 4) == 0);
        CHECK(memcmp(ip + 16, &(uint32_t){FAKE_PEER}, 4) == 0);
        CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 12);
        CHECK_EQ(fake_csum(ip, 20, 0), 0);
        CHECK_EQ(u[0] << 8 | u[1], 7);
        CHECK_EQ(u[2] << 8 | u[3], 5555);
        CHECK_EQ(u[4] << 8 | u[5], 20);
        CHECK(memcmp(u + 8, "hello, world", 12) == 0);
        CHECK(udp_sum_ok(ip, u, 20));
        CHECK_EQ(r->flags & PKT_TX_L4_CSUM, 0); /* the fake NIC offers no offload */
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=1 ip4-rx=1 ip4-local=1 udp-rx=1 udp-tx=1 ip4-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(udp_input_checks)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    struct rec *r = calloc(1, sizeof(*r));
    CHECK_EQ(udp_bind(fn.s, 9, recorder, r), 0);
    uint8_t f[256], *u = f + 34;
    size_t n;
    n = udp_frame(f, 9, "abcdef", 6);
    fake_net_input(&fn, 0, f, fake_frame_ip4(f, IP4_PROTO_UDP, 1, 0, "1234567", 7)); /* 7 bytes */
    n = udp_frame(f, 9, "abcdef", 6);
    u[5] = 7; /* length under 8 */
    fake_net_input(&fn, 0, f, n);
    n = udp_frame(f, 9, "abcdef", 6);
    u[5] = 15; /* past the payload */
    fake_net_input(&fn, 0, f, n);
    n = udp_frame(f, 9, "abcdef", 6);
    u[8] ^= 0x40;
    fake_net_input(&fn, 0, f, n);
    struct pkt *p = fake_net_rx(&fn, 0, f, n);
    p->flags = PKT_RX_L4_CSUM_BAD;
    net_input(fn.s, &p, 1, fn.now_ns);
    CHECK_EQ(r->calls, 0);
    p = fake_net_rx(&fn, 0, f, n); /* the NIC vouched for it: not summed again */
    p->flags = PKT_RX_L4_CSUM_OK;
    net_input(fn.s, &p, 1, fn.now_ns);
    CHECK_EQ(r->calls, 1);
    n = udp_frame(f, 9, "abcdef", 6);
    u[6] = u[7] = 0; /* no checksum: accepted over IPv4 */
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(r->calls, 2);
    n = udp_frame(f, 9, "abcdef", 6);
    u[5] = 12; /* shorter than the IPv4 payload: the rest is ignored */
    u[6] = u[7] = 0;
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(r->calls, 3);
    CHECK_EQ(r->len, 4);
    CHECK(r->had_pkt);
    CHECK_EQ(r->m.sport, 5555);
    CHECK_EQ(r->m.dport, 9);
    CHECK_EQ(r->m.src_be, FAKE_PEER);
    CHECK(!r->m.bcast);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=8 ip4-rx=8 ip4-local=8 udp-rx=8 udp-runt=1 "
                                        "udp-bad-length=2 udp-bad-checksum=2"),
             0);
    free(r);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(udp_no_port_unreachable)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    uint8_t f[256];
    size_t n = udp_frame(f, 4444, "abcdefgh", 8);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const uint8_t *ip = fn.nd[0].sent[0]->data + 14;
        CHECK_EQ(ip[20], ICMP4_UNREACH);
        CHECK_EQ(ip[21], ICMP4_UNREACH_PORT);
        CHECK_EQ(ip[2] << 8 | ip[3], 20 + 8 + 36);
        CHECK(memcmp(ip + 28, f + 14, 36) == 0);
        CHECK_EQ(fake_csum(ip + 20, 8 + 36, 0), 0);
    }
    fake_net_all_free(&fn);
    uint8_t u[64]; /* to the subnet broadcast: no error */
    uint32_t bcast = NET_IP4(10, 0, 0, 255);
    size_t ulen = fake_udp(u, FAKE_PEER, bcast, 5555, 4444, "abcdefgh", 8);
    n = fake_eth(f, eth_bcast_addr, fake_peer_mac, ETH_TYPE_IP4);
    n += fake_ip4(f + n, FAKE_PEER, bcast, IP4_PROTO_UDP, 1, 0, u, ulen);
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=2 ip4-rx=2 ip4-local=2 udp-rx=2 udp-no-port=2 "
                                        "icmp4-tx-unreach=1 icmp4-error-suppressed=1 ip4-tx=1 eth-tx=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(udp_bind_rules)
{
    struct fake_net fn;
    fake_net_init(&fn, 8);
    struct rec r;
    CHECK_EQ(udp_bind(fn.s, 0, recorder, &r), -1);
    CHECK_EQ(udp_bind(fn.s, 53, NULL, &r), -1);
    for (uint16_t i = 0; i < UDP_MAX_BINDS; i++)
        CHECK_EQ(udp_bind(fn.s, (uint16_t)(100 + i), recorder, &r), 0);
    CHECK_EQ(udp_bind(fn.s, 99, recorder, &r), -1);
    CHECK_EQ(udp_bind(fn.s, 100, recorder, &r), -1);
    CHECK_EQ(udp_unbind(fn.s, 105), 0);
    CHECK_EQ(udp_unbind(fn.s, 105), -1);
    CHECK_EQ(udp_bind(fn.s, 99, recorder, &r), 0);
    fake_net_free(&fn);
}

TEST(udp_tx_checksum_offload)
{
    struct fake_net fn;
    fake_net_init(&fn, 32);
    fake_net_learn_peer(&fn);
    fn.nd[0].dev.offloads = NETDEV_OFF_TX_CSUM;
    struct pkt *p = pkt_alloc(&fn.pool);
    memcpy(p->data, "offload me", 10);
    p->len = 10;
    CHECK_EQ(udp_send(fn.s, p, 0, FAKE_PEER, 1234, 80, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        struct pkt *r = fn.nd[0].sent[0];
        const uint8_t *ip = r->data + 14;
        CHECK(r->flags & PKT_TX_L4_CSUM);
        CHECK_EQ(r->csum_start, 34);
        CHECK_EQ(r->csum_offset, 6);
        CHECK(memcmp(ip + 12, &(uint32_t){FAKE_ADDR0}, 4) == 0); /* chosen source */
        CHECK(!udp_sum_ok(ip, ip + 20, 18));
        csum_pkt_finish(r); /* what the NIC does */
        CHECK(udp_sum_ok(ip, ip + 20, 18));
    }
    fake_net_all_free(&fn);
    /* Too big for one frame: summed here, a NIC cannot across fragments. */
    p = pkt_alloc(&fn.pool);
    for (int i = 0; i < 1600; i++)
        p->data[i] = (uint8_t)i;
    p->len = 1600;
    CHECK_EQ(udp_send(fn.s, p, FAKE_ADDR0, FAKE_PEER, 1234, 80, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 2);
    if (fn.nd[0].nsent == 2) {
        static uint8_t whole[1608];
        const uint8_t *ip0 = fn.nd[0].sent[0]->data + 14, *ip1 = fn.nd[0].sent[1]->data + 14;
        CHECK_EQ(ip0[2] << 8 | ip0[3], 1500);
        CHECK_EQ(ip1[6] << 8 | ip1[7], 1480 / 8);
        memcpy(whole, ip0 + 20, 1480);
        memcpy(whole + 1480, ip1 + 20, 128);
        CHECK(udp_sum_ok(ip0, whole, 1608));
        CHECK_EQ(fn.nd[0].sent[0]->flags & PKT_TX_L4_CSUM, 0);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "udp-tx=2 ip4-tx=2 ip4-frag-tx=2 eth-tx=3"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* Fragments of a UDP datagram with len bytes of payload from the peer. */
static void send_fragmented(struct fake_net *fn, uint16_t dport, const uint8_t *payload, size_t len)
{
    static uint8_t u[70000], f[1600];
    size_t total = fake_udp(u, FAKE_PEER, FAKE_ADDR0, 5555, dport, payload, len);
    for (size_t off = 0; off < total; off += 1480) {
        size_t n = total - off < 1480 ? total - off : 1480;
        uint16_t fr = (uint16_t)((off + n < total ? IP4_MF : 0) | off / 8);
        fake_net_input(fn, 0, f, fake_frame_ip4(f, IP4_PROTO_UDP, 0x99, fr, u + off, n));
    }
}

TEST(udp_reassembled_datagram_echoed)
{
    struct fake_net fn;
    fake_net_init(&fn, 64);
    fake_net_learn_peer(&fn);
    struct rec *r = calloc(1, sizeof(*r));
    static uint8_t payload[3000], back[3008];
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i ^ (i >> 8));
    CHECK_EQ(udp_bind(fn.s, 9, recorder, r), 0);
    send_fragmented(&fn, 9, payload, sizeof(payload));
    CHECK_EQ(r->calls, 1);
    CHECK(!r->had_pkt);
    CHECK_EQ(r->len, 3000);
    CHECK(memcmp(r->data, payload, 3000) == 0);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    send_fragmented(&fn, 7, payload, sizeof(payload));
    CHECK_EQ(fn.nd[0].nsent, 3);
    size_t got = 0;
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++) {
        const uint8_t *ip = fn.nd[0].sent[i]->data + 14;
        size_t len = (size_t)(ip[2] << 8 | ip[3]) - 20, off = (size_t)((ip[6] << 8 | ip[7]) & IP4_OFF_MASK) * 8;
        memcpy(back + off, ip + 20, len);
        got += len;
    }
    CHECK_EQ(got, 3008);
    CHECK(udp_sum_ok(fn.nd[0].sent[0]->data + 14, back, 3008));
    CHECK(memcmp(back + 8, payload, 3000) == 0);
    CHECK_EQ(back[1], 7);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 ip4-rx=6 ip4-reasm-ok=2 ip4-local=2 udp-rx=2 udp-tx=1 "
                                        "ip4-tx=1 ip4-frag-tx=3 eth-tx=3"),
             0);
    free(r);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(udp_send_copy_limits)
{
    struct fake_net fn;
    fake_net_init(&fn, 128);
    fake_net_learn_peer(&fn);
    static uint8_t data[65535];
    CHECK_EQ(udp_send_copy(fn.s, data, 65508, 0, FAKE_PEER, 1, 2, fn.now_ns), -1);
    CHECK_EQ(udp_send_copy(fn.s, data, 65507, 0, FAKE_PEER, 1, 2, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[0].nsent, 45); /* 65,535 bytes in 1480-byte fragments */
    CHECK_EQ(fake_expect_counters(fn.s, "udp-tx-too-big=1 udp-tx=1 ip4-tx=1 ip4-frag-tx=45 eth-tx=45"), 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
