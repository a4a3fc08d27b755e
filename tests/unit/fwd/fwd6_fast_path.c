/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/fwd6_fast_path.c: the IPv6 forwarding fast path (net/fwd/fwd6.c):
 * rewrite in place (RFC 8200 3: hop limit, no checksum), one doorbell per
 * port with IPv4 in the same burst, padding, checksum offsets, the lookup
 * hook; what goes to the stack and how it answers is tests/unit/fwd/fwd6_to_the_stack.c.
 * Every counter exact, every buffer back. */
#include "tests/unit/check.h"
#include "tests/support/fwd6_fixture.h"

#include "net/link/nd6.h"
TEST(fwd6_fast_path_rewrites_in_place)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 256);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(32, 2048);
    size_t len[32];
    for (uint32_t i = 0; i < 32; i++) {
        uint8_t dst[16];
        memcpy(dst, fwd6_far, 16);
        dst[6] = (uint8_t)i;
        dst[15] = (uint8_t)(1 + i);
        len[i] = fwd6_fix_frame(fr[i], 0, fwd6_peer0, dst, i ? (uint8_t)(2 + i * 7) : 255, 18 + i * 40, i);
    }
    struct pkt *pk[32];
    for (uint32_t i = 0; i < 32; i++)
        pk[i] = fake_net_rx(&y.x.fn, 0, fr[i], len[i]);
    fwd_burst(y.x.f, y.x.fn.s, pk, 32, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 32);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    CHECK_EQ(y.x.fn.nd[0].tx_calls, 0);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent; i++) {
        CHECK(y.x.fn.nd[1].sent[i] == pk[i]); /* the RX buffer itself, in order */
        check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=32 fwd-fast=32 fwd-fast6=32 fwd-tx=32"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, ""), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* IPv4 and IPv6 to both ports, and echo requests to us, in one burst: one
 * tx_burst per output port; each family keeps its order. */
TEST(fwd6_mixed_burst_one_doorbell_per_port)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 256);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(66, 2048);
    size_t len[66];
    for (uint32_t i = 0; i < 64; i++) {
        if (i % 4 == 0)
            len[i] = fwd_fix_frame(fr[i], 1, FAKE_PEER1, NET_IP4(192, 168, 0, i), 64, 0, 30, i);
        else if (i % 4 == 1)
            len[i] = fwd_fix_frame(fr[i], 1, FAKE_PEER1, FAKE_PEER, 64, 0, 30, i);
        else
            len[i] = fwd6_fix_frame(fr[i], 1, fwd6_peer1, i % 4 == 2 ? fwd6_far : i % 8 == 3 ? fwd6_far0 : fwd6_peer0,
                                    64, i, i);
    }
    len[64] = fwd6_fix_echo(fr[64], 1, fwd6_peer1, fwd6_a1, 64);
    len[65] = fwd6_fix_echo(fr[65], 1, fwd6_peer1, fwd6_a0, 64); /* our other address */
    fwd_fix_burst(&y.x, 1, fr, len, 66);
    CHECK_EQ(y.x.fn.nd[0].tx_calls, 1);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    CHECK_EQ(y.x.fn.nd[0].nsent, 32);
    CHECK_EQ(y.x.fn.nd[1].nsent, 32 + 2);
    for (uint16_t port = 0; port < 2; port++) { /* IPv6 to eth1 at 2, 6, ..., to eth0 at 3, 7, ... */
        uint32_t next6 = port ? 2 : 3, next4 = port ? 0 : 1, replies = 0;
        const uint8_t *mac = port ? fwd_peer1_mac : fake_peer_mac, *our = port ? fake_mac1 : fake_mac0;
        for (uint32_t k = 0; k < y.x.fn.nd[port].nsent; k++) {
            const struct pkt *p = y.x.fn.nd[port].sent[k];
            if (p->data[12] == 0x08) {
                CHECK_EQ(p->data[14 + 8], 63);
                CHECK(memcmp(p->data + 14 + 16, fr[next4] + 14 + 16, 4) == 0);
                next4 += 4;
            } else if (fwd6_fix_l4_of(p)[0] == ICMP6_ECHO_REPLY && fwd6_fix_ip_of(p)[6] == IP6_PROTO_ICMP6) {
                const uint8_t *from = replies ? fwd6_a0 : fwd6_a1;
                CHECK(fwd6_fix_is_icmp6(p, ICMP6_ECHO_REPLY, 0, from, fwd6_peer1, fwd_peer1_mac));
                replies++;
            } else {
                check_fwd6(p, fr[next6], len[next6], mac, our);
                next6 += 4;
            }
        }
        CHECK_EQ(replies, port ? 2 : 0);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=66 fwd-fast=64 fwd-fast6=32 fwd-tx=64 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-local=2 icmp6-rx=2 icmp6-rx-echo=2 "
                                            "icmp6-tx-echo-reply=2 ip6-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

TEST(fwd6_bursts_over_max_take_a_doorbell_each)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 512);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(300, 2048);
    size_t len[300];
    for (uint32_t i = 0; i < 300; i++)
        len[i] = fwd6_fix_frame(fr[i], 0, fwd6_peer0, fwd6_far, 9, 18, i);
    fwd_fix_burst(&y.x, 0, fr, len, 300);
    CHECK_EQ(y.x.fn.nd[1].nsent, 300);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 2);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=300 fwd-fast=300 fwd-fast6=300 fwd-tx=300"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* Link padding is not forwarded past the minimum frame, junk past the
 * packet is cut; a shorter packet leaves as 60 bytes, zero-padded whatever
 * the buffer held. */
TEST(fwd6_trims_and_pads)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(5, 2048), none[8] = {1, 2};
    size_t len[5], rx[5];
    len[0] = rx[0] = fwd6_fix_ip6(fr[0], fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, IP6_NO_NEXT, none, 0);
    len[1] = fwd6_fix_ip6(fr[1], fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, IP6_NO_NEXT, none, 2);
    rx[1] = 60;
    len[2] = fwd6_fix_ip6(fr[2], fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, IP6_NO_NEXT, none, 0);
    rx[2] = 100;
    len[3] = fwd6_fix_frame(fr[3], 0, fwd6_peer0, fwd6_far, 64, 52, 3);
    rx[3] = len[3] + 10;
    memset(fr[3] + len[3], 0x5a, 10);
    len[4] = rx[4] = fwd6_fix_ip6(fr[4], fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, IP6_NO_NEXT, none, 6);
    CHECK(len[0] == 54 && len[1] == 56 && len[4] == 60);
    struct pkt *pk[5];
    for (uint32_t i = 0; i < 5; i++) {
        pk[i] = fake_net_rx(&y.x.fn, 0, fr[i], rx[i]);
        memset(pk[i]->data + rx[i], 0xee, 64); /* what the buffer held before */
    }
    fwd_burst(y.x.f, y.x.fn.s, pk, 5, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 5);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 5; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=5 fwd-fast=5 fwd-fast6=5 fwd-tx=5"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* A checksum the NIC left to fill (virtio NEEDS_CSUM: PKT_TX_L4_CSUM,
 * csum_start from the frame's start) goes on to the next NIC as it came:
 * on the fast path, and on the stack's, which takes the link header off
 * and puts it back. */
TEST(fwd6_keeps_a_partial_checksum)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(2, 2048), m[8 + 28] = {IP4_PROTO_UDP, 0, 1, 4}; /* hop-by-hop, PadN, UDP */
    size_t len[2];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_far, 64, 20, 0);
    len[1] = fwd6_fix_ip6(fr[1], fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, 0, m, sizeof(m));
    struct pkt *pk[2];
    for (uint32_t i = 0; i < 2; i++) {
        pk[i] = fake_net_rx(&y.x.fn, 0, fr[i], len[i]);
        pk[i]->flags = PKT_RX_L4_CSUM_OK | PKT_TX_L4_CSUM;
        pk[i]->csum_start = (uint16_t)(ETH_HDR_LEN + IP6_HDR_LEN + 8 * i);
        pk[i]->csum_offset = 6;
    }
    fwd_burst(y.x.f, y.x.fn.s, pk, 2, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 2);
    if (y.x.fn.nd[1].nsent == 2) {
        const struct pkt *stack = y.x.fn.nd[1].sent[0], *fast = y.x.fn.nd[1].sent[1]; /* the stack's first */
        CHECK(fast == pk[0] && (fast->flags & PKT_TX_L4_CSUM) && fast->csum_start == 54 && fast->csum_offset == 6);
        CHECK((stack->flags & PKT_TX_L4_CSUM) && stack->csum_start == 62 && stack->csum_offset == 6);
        check_fwd6(fast, fr[0], len[0], fwd_peer1_mac, fake_mac1);
        check_fwd6(stack, fr[1], len[1], fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=1"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=1 ip6-rx=1 ip6-forwarded=1 ip6-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

struct lookup_ctx {
    uint32_t calls, n, nh;
    uint8_t first[16];
};

static void lookup_fixed(void *ctx, const uint8_t (*addr)[16], uint32_t *nh, uint32_t n)
{
    struct lookup_ctx *c = ctx;
    c->calls++;
    c->n += n;
    memcpy(c->first, addr[0], 16);
    for (uint32_t i = 0; i < n; i++)
        nh[i] = c->nh;
}

/* fwd_set_lookup6 replaces the batch lookup (one call a burst); an answer
 * past FWD_NH6_MAX goes to the stack; fwd_set_route6 keeps it; NULL puts
 * route6_lookup_burst back. */
TEST(fwd6_custom_lookup)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    struct lookup_ctx c = {0, 0, FWD6_NH_GW1, {0}};
    uint8_t(*fr)[2048] = calloc(4, 2048);
    size_t len[4];
    for (uint32_t i = 0; i < 4; i++)
        len[i] = fwd6_fix_frame(fr[i], 1, fwd6_peer1, fwd6_far0, 64, 20, i); /* the table says eth0 */
    fwd_set_lookup6(y.x.f, lookup_fixed, &c);
    fwd_fix_burst(&y.x, 1, fr, len, 4);
    CHECK(c.calls == 1 && c.n == 4 && memcmp(c.first, fwd6_far0, 16) == 0);
    CHECK(y.x.fn.nd[1].nsent == 4 && y.x.fn.nd[1].tx_calls == 1 && y.x.fn.nd[0].nsent == 0);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 4; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    fake_net_all_free(&y.x.fn);
    c.nh = 1000; /* the stack routes by its own hook: eth0 */
    fwd_fix_burst(&y.x, 1, fr, len, 2);
    CHECK(y.x.fn.nd[0].nsent == 2 && y.x.fn.nd[1].nsent == 0);
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 2; i++)
        check_fwd6(y.x.fn.nd[0].sent[i], fr[i], len[i], fake_peer_mac, fake_mac0);
    fake_net_all_free(&y.x.fn);
    c.nh = FWD6_NH_GW1;
    fwd_set_route6(y.x.f, y.rt6, &y.nh6);
    fwd_fix_burst(&y.x, 1, fr, len, 1);
    CHECK(y.x.fn.nd[1].nsent == 1 && c.calls == 3);
    fake_net_all_free(&y.x.fn);
    fwd_set_lookup6(y.x.f, NULL, NULL);
    fwd_fix_burst(&y.x, 1, fr, len, 2);
    CHECK(y.x.fn.nd[0].nsent == 2 && y.x.fn.nd[1].nsent == 0 && c.calls == 3);
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 2; i++)
        check_fwd6(y.x.fn.nd[0].sent[i], fr[i], len[i], fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=9 fwd-fast=7 fwd-fast6=7 fwd-tx=7 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-forwarded=2 ip6-tx=2 eth-tx=2"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* Frames too short for what they say, or for a header: the stack drops
 * and counts each; the good one in the burst goes on. */
TEST(fwd6_truncated_frames_go_to_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(9, 2048);
    size_t len[9];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_far, 64, 20, 0) - 1; /* payload past the frame */
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, fwd6_far, 64, 1400, 1);
    fr[1][18] = fr[1][19] = 0xff; /* 65535 */
    len[2] = ETH_HDR_LEN + 39;
    len[3] = ETH_HDR_LEN + 20;
    len[4] = ETH_HDR_LEN;
    for (int i = 2; i <= 4; i++)
        fwd6_fix_frame(fr[i], 0, fwd6_peer0, fwd6_far, 64, 20, (uint32_t)i);
    len[5] = 10;
    len[6] = 0;
    len[7] = fwd6_fix_frame(fr[7], 0, fwd6_peer0, fwd6_far, 64, 20, 7);
    fr[7][14] = 0x40; /* version 4 in an IPv6 frame */
    len[8] = fwd6_fix_frame(fr[8], 0, fwd6_peer0, fwd6_far, 64, 20, 8);
    fwd_fix_burst(&y.x, 0, fr, len, 9);
    CHECK(y.x.fn.nd[1].nsent == 1 && y.x.fn.nd[0].nsent == 0);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], fr[8], len[8], fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=9 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=8"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=8 eth-runt=2 ip6-rx=6 ip6-bad-length=2 ip6-runt=3 "
                                            "ip6-bad-version=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* Only our own addresses leave the fast path (fwd6.c's filter is exact
 * on a hit): not ones a bit away from ours, not thousands of others as
 * source or destination. */
TEST(fwd6_only_our_exact_addresses_are_ours)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256], got[16], *ip;
    struct pkt *p = fake_net_rx(&y.x.fn, 0, f, fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1));
    ip = p->data + ETH_HDR_LEN;
    int slow = 0;
    for (int which = 0; which < 4; which++) { /* a0, a1 as destination, then as source */
        uint8_t *a = ip + (which < 2 ? 24 : 8), *other = ip + (which < 2 ? 8 : 24);
        memcpy(other, which < 2 ? fwd6_peer0 : fwd6_far, 16);
        for (int bit = 8; bit < 128; bit++) { /* byte 0 kept: flipping it may make it ::/8 */
            memcpy(a, which & 1 ? fwd6_a1 : fwd6_a0, 16);
            a[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            static const uint8_t zero_iid[8];
            bool anycast = memcmp(a + 8, zero_iid, 8) == 0; /* a /64's Subnet-Router anycast: ours too */
            if (memcmp(a, fwd6_a0, 16) != 0 && memcmp(a, fwd6_a1, 16) != 0 && !anycast) /* (a0, a1 a bit apart) */
                slow += !fwd6_classify(y.x.f, p, got);
            else if (anycast)
                CHECK(!fwd6_classify(y.x.f, p, got));
        }
        memcpy(a, which & 1 ? fwd6_a1 : fwd6_a0, 16);
        CHECK(!fwd6_classify(y.x.f, p, got)); /* ours */
    }
    uint64_t seed = 6;
    for (int k = 0; k < 8192; k++) {
        uint64_t r = test_rand(&seed);
        memcpy(ip + 8, fwd6_peer0, 16);
        memcpy(ip + 24, fwd6_far, 16);
        uint8_t *a = ip + (k & 1 ? 8 : 24);
        memcpy(a + 8, &r, 8); /* any interface identifier on the link or behind the gateway */
        slow += !fwd6_classify(y.x.f, p, got);
    }
    CHECK_EQ(slow, 0);
    pkt_free(p);
    uint8_t(*fr)[2048] = calloc(2, 2048);
    size_t len[2];
    uint8_t dst[16];
    memcpy(dst, fwd6_far, 16);
    dst[15] = 1; /* its interface identifier is a0's */
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, dst, 64, 20, 1);
    dst[15] = 2;
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, dst, 64, 20, 2);
    fwd_fix_burst(&y.x, 0, fr, len, 2);
    CHECK_EQ(y.x.fn.nd[1].nsent, 2);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 2; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=2 fwd-fast6=2 fwd-tx=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, ""), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* Without fwd_set_route6 the stack forwards all IPv6; with it, the fast
 * path, once fwd_sync has run. */
TEST(fwd6_off_until_set_route6)
{
    struct fwd6_fix y;
    fwd_fix_init(&y.x, 64);
    fwd6_fix_tables(&y);
    net_iface_set_addr6(y.x.fn.s, 0, fwd6_a0, 64);
    net_iface_set_addr6(y.x.fn.s, 1, fwd6_a1, 64);
    net_set_route6(y.x.fn.s, fwd6_fix_route, &y);
    fwd_sync(y.x.f, y.x.fn.s);
    fwd6_fix_learn(&y);
    uint8_t f[256];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n);
    fwd_set_route6(y.x.f, y.rt6, &y.nh6);
    fwd_fix_one(&y.x, 0, f, n);
    fwd_sync(y.x.f, y.x.fn.s);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 3);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 3; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], f, n, fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=3 fwd-to-stack=2 fwd-fast=1 fwd-fast6=1 fwd-tx=1"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-forwarded=2 ip6-tx=2 eth-tx=2"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

TEST(fwd6_counts_what_the_nic_refuses)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    y.x.fn.nd[1].tx_accept = 2;
    uint8_t(*fr)[2048] = calloc(5, 2048);
    size_t len[5];
    for (uint32_t i = 0; i < 5; i++)
        len[i] = fwd6_fix_frame(fr[i], 0, fwd6_peer0, fwd6_far, 64, 20, i);
    fwd_fix_burst(&y.x, 0, fr, len, 5);
    CHECK_EQ(y.x.fn.nd[1].nsent, 2);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=5 fwd-fast=5 fwd-fast6=5 fwd-tx=5 fwd-tx-drop=3"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

TEST(fwd6_counter_name)
{
    const struct net_counter_desc *d = fwd_counter_find("fwd-fast6");
    CHECK(d != NULL);
    if (d)
        CHECK_EQ(d->offset, offsetof(struct fwd_counters, fast6));
}

/* A group (multicast) source MAC is no station's (IEEE 802): the stack
 * drops it (eth-bad-src), and neither fast path forwards it meanwhile. */
TEST(fwd_group_source_mac_goes_to_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f4[256], f6[256];
    size_t n4 = fwd_fix_frame(f4, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 20, 1);
    size_t n6 = fwd6_fix_frame(f6, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    f4[6] |= 1;
    f6[6] |= 1;
    fwd_fix_one(&y.x, 0, f4, n4);
    fwd_fix_one(&y.x, 0, f6, n6);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 eth-bad-src=2"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* A next hop set while the fast path runs (a route added on the console
 * through a new gateway): a route to a free slot goes to the stack, whose
 * hook refuses it too; once the slot is set, the same destination takes
 * the fast path (the table's gen moved: the SLOW adjacency the first
 * packet left is forgotten). */
TEST(fwd6_next_hop_set_while_running)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_past, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=1 ip6-rx=1 ip6-no-route=1 icmp6-tx-error=1 ip6-tx=1 eth-tx=1"),
             0);
    fake_net_all_free(&y.x.fn);
    CHECK_EQ(fwd_nh6_set(&y.nh6, FWD6_NH_PAST, 1, fwd6_peer1), 0);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], f, n, fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* A slot freed and set again for another gateway (apps/router6.c
 * reuses a next hop's slot once no route points at it): the adjacency
 * filled for the old gateway must not be used for the new one, though its
 * time is not up. */
TEST(fwd6_next_hop_slot_reused)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n); /* via peer1 on eth1: the adjacency is filled */
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    fake_net_all_free(&y.x.fn);
    static const uint8_t far48[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99};
    CHECK_EQ(route6_del(y.rt6, far48, 48), ROUTE_OK);
    fwd_nh6_del(&y.nh6, FWD6_NH_GW1);
    CHECK(fwd_nh6_get(&y.nh6, FWD6_NH_GW1) == NULL);
    CHECK_EQ(fwd_nh6_set(&y.nh6, FWD6_NH_GW1, 0, fwd6_peer0), 0); /* the same slot, now peer0 on eth0 */
    CHECK_EQ(route6_add(y.rt6, far48, 48, FWD6_NH_GW1), ROUTE_OK);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1)
        check_fwd6(y.x.fn.nd[0].sent[0], f, n, fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=2 fwd-fast6=2 fwd-tx=2"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* The slot is reused while a burst looks its routes up (another core's
 * console change): the generation is read after the lookup, so the
 * adjacency the burst holds for the slot is dropped, not used with the
 * old gateway's MAC. */
struct reuse_ctx {
    struct fwd6_fix *y;
    bool reuse;
};

static void lookup_reusing(void *ctx, const uint8_t (*addr)[16], uint32_t *nh, uint32_t n)
{
    struct reuse_ctx *c = ctx;
    if (c->reuse) {
        static const uint8_t far48[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99};
        c->reuse = false;
        route6_del(c->y->rt6, far48, 48);
        fwd_nh6_del(&c->y->nh6, FWD6_NH_GW1);
        fwd_nh6_set(&c->y->nh6, FWD6_NH_GW1, 0, fwd6_peer0);
        route6_add(c->y->rt6, far48, 48, FWD6_NH_GW1);
    }
    route6_lookup_burst(c->y->rt6, addr, nh, n);
}

TEST(fwd6_next_hop_slot_reused_during_the_lookup)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    struct reuse_ctx c = {&y, false};
    fwd_set_lookup6(y.x.f, lookup_reusing, &c);
    uint8_t f[256];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    fake_net_all_free(&y.x.fn);
    c.reuse = true;
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}
