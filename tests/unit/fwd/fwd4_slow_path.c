/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/fwd4_slow_path.c: the forwarding slow path (net/fwd/fwd_slow.c):
 * ICMP errors, special next hops, ARP resolution and its bounded queue,
 * options, fragmentation, malformed input, the net_set_forward hook. */
#include "tests/unit/check.h"
#include "tests/support/fwd_fixture.h"

/* The ICMP error sent on eth0 to the peer: type/code, from our eth0
 * address, quoting the datagram of the frame orig (qlen bytes). */
static void check_icmp_error(struct fwd_fix *x, uint8_t type, uint8_t code, const uint8_t *orig, size_t qlen)
{
    CHECK_EQ(x->fn.nd[0].nsent, 1);
    if (x->fn.nd[0].nsent != 1)
        return;
    const uint8_t *d = x->fn.nd[0].sent[0]->data, *ip = d + 14;
    CHECK(memcmp(d, fake_peer_mac, 6) == 0);
    CHECK_EQ(ip[9], IP4_PROTO_ICMP);
    CHECK(memcmp(ip + 12, &(uint32_t){FAKE_ADDR0}, 4) == 0);
    CHECK(memcmp(ip + 16, &(uint32_t){FAKE_PEER}, 4) == 0);
    CHECK_EQ(ip[20], type);
    CHECK_EQ(ip[21], code);
    CHECK_EQ(ip[2] << 8 | ip[3], 28 + qlen);
    CHECK(memcmp(ip + 28, orig + 14, qlen) == 0);
    CHECK_EQ(fake_csum(ip + 20, 8 + qlen, 0), 0);
}

TEST(fwd_ttl_expired_sends_time_exceeded)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    for (uint8_t ttl = 0; ttl <= 1; ttl++) {
        size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), ttl, 0, 12, 3);
        fwd_fix_one(&x, 0, f, n);
        check_icmp_error(&x, ICMP4_TIME_EXCEEDED, ICMP4_EXC_TTL, f, n - 14);
        fake_netdev_clear(&x.fn.nd[0]);
    }
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=2 fwd-to-stack=2 fwd-slow=2 fwd-ttl-expired=2"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=2 icmp4-tx-time-exceeded=2 ip4-tx=2 eth-tx=2"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* The error goes back through the route table when the source is not on
 * a connected subnet, from the address of the port the datagram came in. */
TEST(fwd_icmp_errors_routed_by_the_table)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 1, NET_IP4(192, 168, 7, 7), NET_IP4(198, 51, 100, 1), 1, 0, 12, 3);
    fwd_fix_one(&x, 1, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1) {
        const uint8_t *d = x.fn.nd[1].sent[0]->data;
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0);
        CHECK(memcmp(d + 26, &(uint32_t){FAKE_ADDR1}, 4) == 0);
        CHECK(memcmp(d + 30, &(uint32_t){NET_IP4(192, 168, 7, 7)}, 4) == 0);
        CHECK_EQ(d[34], ICMP4_TIME_EXCEEDED);
    }
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_no_route_and_special_next_hops)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(8, 8, 8, 8), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n);
    check_icmp_error(&x, ICMP4_UNREACH, ICMP4_UNREACH_NET, f, n - 14);
    fake_netdev_clear(&x.fn.nd[0]);
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(203, 0, 113, 9), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n);
    check_icmp_error(&x, ICMP4_UNREACH, ICMP4_UNREACH_HOST, f, n - 14);
    fake_netdev_clear(&x.fn.nd[0]);
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(172, 20, 1, 1), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n); /* blackhole: nothing */
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(100, 64, 1, 1), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n); /* next hop 77 was never set */
    x.fn.s->icmp_limit.rate_per_s = 0;
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(8, 8, 4, 4), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n); /* rate-limited */
    CHECK_EQ(x.fn.nd[0].nsent + x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=5 fwd-slow=5 fwd-no-route=2 fwd-unreachable=1 fwd-blackhole=1 "
                                   "fwd-bad-nexthop=1"),
             0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "icmp4-tx-unreach=2 ip4-tx=2 eth-tx=2 icmp4-rate-limited=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_directed_broadcast_dropped)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(10, 0, 1, 255), 64, 0, 12, 1);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[0].nsent + x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-to-stack=1 fwd-slow=1 fwd-directed-bcast=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=1 ip4-rx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* Datagrams for an unresolved gateway wait on its ARP entry and go out,
 * rewritten, when the reply comes; after that the fast path has it. */
TEST(fwd_unresolved_gateway_waits_for_arp)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    uint8_t(*fr)[2048] = calloc(3, 2048), a[64];
    size_t len[3];
    for (uint32_t i = 0; i < 3; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 2, i), 64, 0, 20, i);
    fwd_fix_burst(&x, 0, fr, len, 3);
    CHECK_EQ(x.fn.nd[1].nsent, 1); /* the request */
    if (x.fn.nd[1].nsent == 1) {
        const uint8_t *d = x.fn.nd[1].sent[0]->data;
        CHECK_EQ(d[12] << 8 | d[13], ETH_TYPE_ARP);
        CHECK(memcmp(d + 14 + 24, &(uint32_t){FAKE_PEER1}, 4) == 0);
    }
    fake_netdev_clear(&x.fn.nd[1]);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-slow=3 fwd-tx=3 fwd-arp-queued=3"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "arp-tx-request=1 eth-tx=1"), 0);

    size_t an = fake_eth(a, fake_mac1, fwd_peer1_mac, ETH_TYPE_ARP);
    an += fake_arp(a + an, ARP_OP_REPLY, fwd_peer1_mac, FAKE_PEER1, fake_mac1, FAKE_ADDR1);
    fwd_fix_one(&x, 1, a, an);
    CHECK_EQ(x.fn.nd[1].nsent, 3);
    CHECK_EQ(x.fn.nd[1].tx_calls, 1);
    for (uint32_t i = 0; i < x.fn.nd[1].nsent; i++) {
        const uint8_t *d = x.fn.nd[1].sent[i]->data;
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0);
        CHECK(memcmp(d + 6, fake_mac1, 6) == 0);
        CHECK_EQ(d[22], 63);
        CHECK_EQ(fake_csum(d + 14, 20, 0), 0);
        CHECK(memcmp(d + 26, fr[i] + 26, len[i] - 26) == 0);
    }
    fake_netdev_clear(&x.fn.nd[1]);
    fwd_fix_burst(&x, 0, fr, len, 3);
    CHECK_EQ(x.fn.nd[1].nsent, 3);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=7 fwd-slow=3 fwd-tx=6 fwd-arp-queued=3 fwd-to-stack=1 "
                                   "fwd-fast=3"),
             0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "arp-tx-request=1 eth-tx=4 eth-rx=1 arp-rx-reply=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* A connected destination that never answers: the queue holds
 * ARP_QUEUE_PER_DEST, the rest is counted; all are dropped when ARP gives
 * up. */
TEST(fwd_arp_queue_is_bounded)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 128);
    uint8_t(*fr)[2048] = calloc(40, 2048);
    size_t len[40];
    for (uint32_t i = 0; i < 40; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(10, 0, 1, 9), 64, 0, 20, i);
    fwd_fix_burst(&x, 0, fr, len, 40);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    for (int i = 0; i < 10; i++) {
        x.fn.now_ns += ARP_RETRY_NS;
        net_poll(x.fn.s, x.fn.now_ns);
        net_flush(x.fn.s);
    }
    CHECK_EQ(x.fn.nd[1].nsent, ARP_RETRIES);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=40 fwd-slow=40 fwd-tx=32 fwd-arp-queued=32 fwd-arp-drop=8"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "arp-tx-request=3 eth-tx=3 arp-queue-full=8 arp-timeout-drop=32"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* Insert olen option bytes after the IPv4 header of the frame f. */
static size_t add_options(uint8_t *f, size_t n, const uint8_t *opt, size_t olen)
{
    memmove(f + 34 + olen, f + 34, n - 34);
    memcpy(f + 34, opt, olen);
    f[14] = (uint8_t)(0x45 + olen / 4);
    uint16_t tot = (uint16_t)((f[16] << 8 | f[17]) + olen);
    f[16] = (uint8_t)(tot >> 8);
    f[17] = (uint8_t)tot;
    fwd_fix_csum_ip(f + 14);
    return n + olen;
}

TEST(fwd_options_take_the_slow_path)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048], g[2048];
    static const uint8_t ra[4] = {0x94, 4, 0, 0}, lsrr[8] = {0x83, 7, 4, 10, 0, 1, 2, 0};
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 30, 1);
    memcpy(g, f, n);
    n = add_options(f, n, ra, 4);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1) {
        const uint8_t *d = x.fn.nd[1].sent[0]->data;
        CHECK_EQ(x.fn.nd[1].sent[0]->len, n);
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0);
        CHECK(memcmp(d + 6, fake_mac1, 6) == 0);
        CHECK_EQ(d[14], 0x46);
        CHECK_EQ(d[22], 63);
        CHECK_EQ(fake_csum(d + 14, 24, 0), 0);
        CHECK(memcmp(d + 26, f + 26, n - 26) == 0);
    }
    n = add_options(g, n - 4, lsrr, 8);
    fwd_fix_one(&x, 0, g, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=2 fwd-to-stack=2 fwd-slow=2 fwd-tx=1 fwd-options=1 "
                                   "fwd-src-route=1"),
             0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=2 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_too_big_with_df_sends_frag_needed)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(198, 51, 100, 7), 64, IP4_DF, 972, 1);
    fwd_fix_one(&x, 0, f, n);
    check_icmp_error(&x, ICMP4_UNREACH, ICMP4_UNREACH_NEEDFRAG, f, 576 - 28);
    if (x.fn.nd[0].nsent == 1) {
        const uint8_t *icmp = x.fn.nd[0].sent[0]->data + 34;
        CHECK_EQ(icmp[6] << 8 | icmp[7], 576); /* RFC 1191 next-hop MTU */
    }
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-frag-needed=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "icmp4-tx-unreach=1 ip4-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* Check the fragments on eth1 rebuild the datagram of frame orig (whose
 * header is ohlen bytes, fragment offset off0 bytes, MF mf0): each within
 * 576 bytes, a multiple of 8 but the last, TTL one less, good checksums,
 * later ones with hlen2-byte headers. */
static void check_fragments(struct fwd_fix *x, const uint8_t *orig, size_t ohlen, uint32_t off0, int mf0,
                            size_t hlen2, uint32_t nfrags)
{
    const uint8_t *oip = orig + 14;
    size_t plen = (size_t)(oip[2] << 8 | oip[3]) - ohlen, got = 0;
    uint8_t *re = calloc(1, plen);
    CHECK_EQ(x->fn.nd[1].nsent, nfrags);
    for (uint32_t i = 0; i < x->fn.nd[1].nsent; i++) {
        const struct pkt *p = x->fn.nd[1].sent[i];
        const uint8_t *ip = p->data + 14;
        size_t hlen = (size_t)(ip[0] & 0xf) * 4, tot = (size_t)(ip[2] << 8 | ip[3]);
        uint32_t frag = (uint32_t)(ip[6] << 8 | ip[7]), off = (frag & 0x1fff) * 8 - off0;
        CHECK(memcmp(p->data, fwd_peer1_mac, 6) == 0);
        CHECK(tot <= 576);
        CHECK_EQ(hlen, off == 0 ? ohlen : hlen2);
        CHECK_EQ(ip[8], oip[8] - 1);
        CHECK_EQ(fake_csum(ip, hlen, 0), 0);
        CHECK(memcmp(ip + 12, oip + 12, 8) == 0);
        CHECK_EQ(ip[9], oip[9]);
        int mf = (frag & IP4_MF) != 0;
        CHECK_EQ(mf, off + tot - hlen < plen ? 1 : mf0);
        if (mf)
            CHECK_EQ((tot - hlen) % 8, 0);
        if (off + tot - hlen <= plen)
            memcpy(re + off, ip + hlen, tot - hlen);
        got += tot - hlen;
    }
    CHECK_EQ(got, plen);
    CHECK(memcmp(re, oip + ohlen, plen) == 0);
    free(re);
}

TEST(fwd_fragments_for_a_smaller_mtu)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048], g[2048];
    static const uint8_t opts[12] = {0x07, 7, 4, 0, 0, 0, 0, 0x94, 4, 0, 0, 0}; /* RR, RA, EOL */
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(198, 51, 100, 7), 64, 0, 972, 1); /* 1000 bytes */
    memcpy(g, f, n);
    fwd_fix_one(&x, 0, f, n);
    check_fragments(&x, f, 20, 0, 0, 20, 2);
    fake_netdev_clear(&x.fn.nd[1]);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-tx=2 fwd-fragmented=1 fwd-frag-tx=2"), 0);

    /* Options: only router alert (copied) goes into the later fragments. */
    n = add_options(g, n, opts, 12);
    fwd_fix_one(&x, 0, g, n);
    check_fragments(&x, g, 32, 0, 0, 24, 2);
    for (uint32_t i = 0; i < x.fn.nd[1].nsent; i++) {
        const uint8_t *ip = x.fn.nd[1].sent[i]->data + 14;
        if ((ip[0] & 0xf) == 6)
            CHECK(memcmp(ip + 20, "\x94\x04\0\0", 4) == 0);
    }
    fake_netdev_clear(&x.fn.nd[1]);

    /* A fragment (offset 800, more to come) split again. */
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(198, 51, 100, 7), 64, IP4_MF | 100, 1272, 1);
    fwd_fix_one(&x, 0, f, n);
    check_fragments(&x, f, 20, 800, 1, 20, 3);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-slow=3 fwd-tx=7 fwd-fragmented=3 fwd-frag-tx=7 "
                                   "fwd-options=1 fwd-to-stack=2"),
             0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=2 eth-tx=7"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* A datagram whose UDP checksum the sender's host left to the NIC (virtio
 * NEEDS_CSUM) is summed before it is split: no NIC sums across fragments. */
TEST(fwd_fragments_sum_a_partial_checksum_first)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048], g[2048], ph[12];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(198, 51, 100, 7), 64, 0, 972, 1);
    memcpy(g, f, n);
    uint8_t *ip = g + ETH_HDR_LEN, *udp = ip + IP4_HDR_LEN;
    memcpy(ph, ip + 12, 8); /* the pseudo-header's sum in the field, as the host leaves it */
    ph[8] = 0;
    ph[9] = IP4_PROTO_UDP;
    memcpy(ph + 10, udp + 4, 2);
    uint16_t partial = (uint16_t)~fake_csum(ph, sizeof ph, 0);
    udp[6] = (uint8_t)(partial >> 8);
    udp[7] = (uint8_t)partial;
    struct pkt *p = fake_net_rx(&x.fn, 0, g, n);
    p->flags |= PKT_TX_L4_CSUM | PKT_RX_L4_CSUM_OK;
    p->csum_start = ETH_HDR_LEN + IP4_HDR_LEN;
    p->csum_offset = 6;
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    check_fragments(&x, f, 20, 0, 0, 20, 2); /* f: the datagram with its whole checksum */
    for (uint32_t i = 0; i < x.fn.nd[1].nsent; i++)
        CHECK(!(x.fn.nd[1].sent[i]->flags & PKT_TX_L4_CSUM));
    fake_netdev_clear(&x.fn.nd[1]);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-tx=2 fwd-fragmented=1 fwd-frag-tx=2"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_fragment_without_buffers)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(198, 51, 100, 7), 64, 0, 1500, 1);
    struct pkt *p = fake_net_rx(&x.fn, 0, f, n), *hold[64];
    uint32_t held = pkt_alloc_bulk(&x.fn.pool, hold, 64);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    pkt_free_bulk(hold, held);
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-fragmented=1 fwd-frag-no-buf=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* The issue 5 list, aimed through the router: each is dropped by the
 * stack's checks and counted by name; nothing is forwarded. */
TEST(fwd_malformed_dropped_and_counted)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048], *ip = f + 14;
    static const uint8_t bad_opt[4] = {0x07, 0, 0, 0};
    const uint32_t to = NET_IP4(192, 168, 1, 1);
    static const uint32_t srcs[] = {NET_IP4(127, 0, 0, 1), NET_IP4(0, 0, 0, 0), NET_IP4(224, 0, 0, 5),
                                    NET_IP4(255, 255, 255, 255), NET_IP4(240, 0, 0, 1),
                                    NET_IP4(10, 0, 0, 255), FAKE_ADDR0, FAKE_ADDR1};
    static const uint32_t dsts[] = {NET_IP4(127, 0, 0, 1), NET_IP4(0, 1, 2, 3), NET_IP4(240, 0, 0, 1)};
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, to, 64, 0, 20, 1);
#define AGAIN() (n = fwd_fix_frame(f, 0, FAKE_PEER, to, 64, 0, 20, 1))
    fwd_fix_one(&x, 0, f, 14 + 19); /* under 20 bytes of IPv4 */
    fwd_fix_one(&x, 0, f, 10);      /* runt frame */
    ip[0] = 0x65;
    fwd_fix_csum_ip(ip);
    fwd_fix_one(&x, 0, f, n); /* version 6 */
    AGAIN();
    ip[0] = 0x44;
    fwd_fix_one(&x, 0, f, n); /* IHL 4 */
    AGAIN();
    ip[0] = 0x4f;
    fwd_fix_one(&x, 0, f, 14 + 40); /* IHL 15: past the frame */
    AGAIN();
    ip[10] ^= 1;
    fwd_fix_one(&x, 0, f, n); /* checksum */
    AGAIN();
    ip[2] = 0;
    ip[3] = 19;
    fwd_fix_csum_ip(ip);
    fwd_fix_one(&x, 0, f, n); /* total under the header */
    AGAIN();
    ip[3] = (uint8_t)(ip[3] + 20);
    fwd_fix_csum_ip(ip);
    fwd_fix_one(&x, 0, f, n); /* total past the frame */
    AGAIN();
    n = add_options(f, n, bad_opt, 4);
    fwd_fix_one(&x, 0, f, n); /* option length 0 */
    for (size_t i = 0; i < sizeof(srcs) / 4; i++) {
        AGAIN();
        memcpy(ip + 12, &srcs[i], 4);
        fwd_fix_csum_ip(ip);
        fwd_fix_one(&x, 0, f, n);
    }
    for (size_t i = 0; i < sizeof(dsts) / 4; i++) {
        AGAIN();
        memcpy(ip + 16, &dsts[i], 4);
        fwd_fix_csum_ip(ip);
        fwd_fix_one(&x, 0, f, n);
    }
    AGAIN();
    memcpy(ip + 16, &(uint32_t){NET_IP4(224, 0, 0, 251)}, 4);
    fwd_fix_csum_ip(ip);
    fwd_fix_one(&x, 0, f, n); /* multicast */
    AGAIN();
    memcpy(f, eth_bcast_addr, 6);
    fwd_fix_one(&x, 0, f, n); /* link broadcast, IP unicast (RFC 1812 5.3.4) */
    AGAIN();
    f[5] ^= 0x40;
    fwd_fix_one(&x, 0, f, n); /* another station's MAC */
    AGAIN();
    f[12] = 0x88;
    f[13] = 0xb5;
    fwd_fix_one(&x, 0, f, n); /* IEEE 802 local experimental: no stack for it */
    AGAIN();
    ip[6] = 0;
    ip[7] = 1;
    fwd_fix_csum_ip(ip);
    fwd_fix_one(&x, 0, f, n); /* fragment offset 8 (RFC 1858) */
#undef AGAIN
    CHECK_EQ(x.fn.nd[0].nsent + x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=25 fwd-to-stack=25"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=25 eth-runt=1 eth-not-for-us=1 eth-unknown-type=1 "
                                          "ip4-rx=22 ip4-too-short=1 ip4-bad-version=1 ip4-bad-ihl=1 "
                                          "ip4-truncated=2 ip4-bad-checksum=1 ip4-bad-length=1 "
                                          "ip4-bad-option=1 ip4-bad-source=8 ip4-bad-dest=3 ip4-mcast=1 "
                                          "ip4-l2-bcast=1 ip4-frag-tiny=1"),
             0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* A datagram that reached the stack some other way (net_input) comes to
 * fwd_hook and is forwarded from there. */
TEST(fwd_hook_forwards_what_the_stack_hands_over)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 30, 1);
    fake_net_input(&x.fn, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1) {
        const uint8_t *d = x.fn.nd[1].sent[0]->data;
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0);
        CHECK_EQ(d[22], 63);
        CHECK_EQ(fake_csum(d + 14, 20, 0), 0);
        CHECK(memcmp(d + 26, f + 26, n - 26) == 0);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-slow=1 fwd-tx=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=1 ip4-rx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* A frame whose UDP checksum the NIC left to fill (virtio NEEDS_CSUM,
 * csum_start from the frame's start) leaves the fast path on an ARP miss:
 * after waiting on ARP it goes out with the checksum start where it was. */
TEST(fwd_partial_checksum_survives_the_slow_path)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 256);
    fake_net_learn_peer(&x.fn);
    uint8_t fr[2048];
    size_t len = fwd_fix_frame(fr, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 100, 1);
    struct pkt *p = fake_net_rx(&x.fn, 0, fr, len);
    p->flags |= PKT_TX_L4_CSUM | PKT_RX_L4_CSUM_OK;
    p->csum_start = ETH_HDR_LEN + IP4_HDR_LEN;
    p->csum_offset = 6;
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns); /* 192.168/16 via 10.0.1.2: not resolved */
    fake_netdev_clear(&x.fn.nd[1]);
    static const uint8_t zero[6];
    size_t n = fake_eth(fr, eth_bcast_addr, fwd_peer1_mac, ETH_TYPE_ARP);
    n += fake_arp(fr + n, ARP_OP_REQUEST, fwd_peer1_mac, FAKE_PEER1, zero, FAKE_ADDR1);
    fake_net_input(&x.fn, 1, fr, n); /* the gateway speaks: what waited goes, then our ARP reply */
    CHECK_EQ(x.fn.nd[1].nsent, 2);
    if (x.fn.nd[1].nsent == 2) {
        const struct pkt *q = x.fn.nd[1].sent[0];
        CHECK(q->data[12] == 0x08 && q->data[13] == 0x00);
        CHECK((q->flags & PKT_TX_L4_CSUM) && q->csum_start == ETH_HDR_LEN + IP4_HDR_LEN);
    }
    fake_net_all_free(&x.fn);
    fwd_fix_free(&x);
}
