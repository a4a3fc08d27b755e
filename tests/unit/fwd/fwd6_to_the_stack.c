/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/fwd6_to_the_stack.c: what the IPv6 fast path (net/fwd/fwd6.c)
 * hands to the stack as it came, and how the stack answers: RFC 4443
 * errors, hop-by-hop headers, link-local and reserved addresses, our own
 * addresses, ports off the fast path, and RFC 4861 resolution (queued,
 * then fast; MAC changes; stale gateways probed). Every counter exact,
 * every buffer back. */
#include "tests/unit/check.h"
#include "tests/support/fwd6_fixture.h"

#include "net/link/nd6.h"

/* Hop limit 1 and 0: time exceeded from the stack (RFC 4443 3.3), in the
 * same doorbell as the one that goes on with hop limit 1. */
TEST(fwd6_hop_limit_expired_answered_by_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(3, 2048);
    size_t len[3];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_far, 1, 20, 1);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, fwd6_far, 0, 20, 2);
    len[2] = fwd6_fix_frame(fr[2], 0, fwd6_peer0, fwd6_far, 2, 20, 3);
    fwd_fix_burst(&y.x, 0, fr, len, 3);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], fr[2], len[2], fwd_peer1_mac, fake_mac1);
    CHECK_EQ(y.x.fn.nd[0].nsent, 2);
    CHECK_EQ(y.x.fn.nd[0].tx_calls, 1);
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 2; i++)
        CHECK(fwd6_fix_is_error(y.x.fn.nd[0].sent[i], ICMP6_TIME_EXCEEDED, 0, 0, fwd6_a0, fr[i], len[i]));
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=3 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-hop-limit=2 icmp6-tx-error=2 ip6-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* No route, and a route to a next hop past the array fwd_set_route6 got
 * (which the stack's lookup refuses too): destination unreachable, code 0
 * (RFC 4443 3.1). */
TEST(fwd6_no_route_answered_by_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(2, 2048);
    size_t len[2];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_nowhere, 64, 20, 1);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, fwd6_past, 64, 20, 2);
    fwd_fix_burst(&y.x, 0, fr, len, 2);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 2);
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 2; i++)
        CHECK(fwd6_fix_is_error(y.x.fn.nd[0].sent[i], ICMP6_UNREACH, 0, 0, fwd6_a0, fr[i], len[i]));
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-no-route=2 icmp6-tx-error=2 ip6-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* eth1's MTU 1280: a 1280-byte packet goes on, a 1281-byte one gets
 * packet too big with the MTU (RFC 4443 3.2; routers never fragment IPv6,
 * RFC 8200 5). */
TEST(fwd6_too_big_answered_by_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    y.x.fn.s->iface[1].mtu = 1280;
    fwd_sync(y.x.f, y.x.fn.s);
    uint8_t(*fr)[2048] = calloc(2, 2048);
    size_t len[2];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_far, 64, 1280 - 48, 1);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, fwd6_far, 64, 1281 - 48, 2);
    fwd_fix_burst(&y.x, 0, fr, len, 2);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], fr[0], len[0], fwd_peer1_mac, fake_mac1);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1)
        CHECK(fwd6_fix_is_error(y.x.fn.nd[0].sent[0], ICMP6_TOO_BIG, 0, 1280, fwd6_a0, fr[1], len[1]));
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=1"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=1 ip6-rx=1 ip6-too-big=1 icmp6-tx-error=1 ip6-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* A hop-by-hop options header (RFC 8200 4.3) is the stack's to look at; it
 * forwards this one (a PadN option only), one hop less. */
TEST(fwd6_hop_by_hop_forwarded_by_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256], m[8 + 8 + 20] = {IP6_PROTO_ICMP6, 0, 1, 4}; /* HBH: next ICMPv6, 8 bytes, PadN */
    uint8_t *icmp = m + 8;
    icmp[0] = ICMP6_ECHO;
    for (int i = 8; i < 28; i++)
        icmp[i] = (uint8_t)i;
    size_t n = fwd6_fix_ip6(f, fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, 0, m, sizeof(m));
    uint16_t c = fwd6_fix_csum(fwd6_peer0, fwd6_far, IP6_PROTO_ICMP6, icmp, 28);
    f[14 + 40 + 8 + 2] = (uint8_t)(c >> 8);
    f[14 + 40 + 8 + 3] = (uint8_t)c;
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], f, n, fwd_peer1_mac, fake_mac1);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=1 fwd-to-stack=1"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=1 ip6-rx=1 ip6-forwarded=1 ip6-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* Link-local addresses never cross a router (RFC 4291 2.5.6): from one,
 * the sender hears "beyond scope" (RFC 4443 3.1 code 2) from our
 * link-local address once it is resolved; to another's, it is dropped. */
TEST(fwd6_link_local_goes_to_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    static const uint8_t ll_peer[16] = {0xfe, 0x80, [15] = 0xaa}, ll_other[16] = {0xfe, 0x80, [15] = 0xbb};
    uint8_t(*fr)[2048] = calloc(2, 2048);
    size_t len[2];
    len[0] = fwd6_fix_frame(fr[0], 0, ll_peer, fwd6_far, 64, 20, 1);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, ll_other, 64, 20, 2);
    fwd_fix_burst(&y.x, 0, fr, len, 2);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1); /* the solicitation for ll_peer; the error waits on it */
    if (y.x.fn.nd[0].nsent == 1)
        CHECK(fwd6_fix_is_ns(y.x.fn.nd[0].sent[0], y.x.fn.s->iface[0].ll6, ll_peer));
    fake_net_all_free(&y.x.fn);
    uint8_t f[128];
    fwd_fix_one(&y.x, 0, f, fwd6_fix_na(f, fake_mac0, fake_peer_mac, ll_peer, y.x.fn.s->iface[0].ll6,
                                        ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1) {
        const struct pkt *p = y.x.fn.nd[0].sent[0];
        CHECK(fwd6_fix_is_icmp6(p, ICMP6_UNREACH, 2, y.x.fn.s->iface[0].ll6, ll_peer, fake_peer_mac));
        CHECK(memcmp(fwd6_fix_l4_of(p) + 8, fr[0] + 14, len[0] - 14) == 0);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=3 fwd-to-stack=3"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=3 ip6-rx=3 ip6-no-route=1 ip6-not-for-us=1 icmp6-tx-error=1 "
                                            "nd6-tx-ns=1 ip6-tx=2 eth-tx=2 ip6-local=1 icmp6-rx=1 nd6-rx-na=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* What no transit packet has (fwd6.c's odd6: ::/8, fe00::/8, ff00::/8)
 * and frames to a group MAC go to the stack, which decides: dropped as not
 * for us or bad, no route, or (a deprecated site-local source, fec0::/10)
 * forwarded. */
TEST(fwd6_reserved_and_multicast_go_to_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    static const uint8_t mc_global[16] = {0xff, 0x0e, [15] = 1}, loop[16] = {[15] = 1}, unspec[16];
    static const uint8_t mapped[16] = {[10] = 0xff, 0xff, 192, 0, 2, 1}, site[16] = {0xfe, 0xc0, [15] = 1};
    static const uint8_t site_src[16] = {0xfe, 0xc0, [15] = 5}, mc_src[16] = {0xff, 0x02, [15] = 5};
    static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
    uint8_t(*fr)[2048] = calloc(11, 2048);
    size_t len[11];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, mc_global, 64, 20, 0); /* a group we are not in */
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, loop, 64, 20, 1);
    len[2] = fwd6_fix_frame(fr[2], 0, fwd6_peer0, mapped, 64, 20, 2); /* no route */
    len[3] = fwd6_fix_frame(fr[3], 0, fwd6_peer0, site, 64, 20, 3);   /* no route */
    len[4] = fwd6_fix_frame(fr[4], 0, unspec, fwd6_far, 64, 20, 4);
    len[5] = fwd6_fix_frame(fr[5], 0, loop, fwd6_far, 64, 20, 5);
    len[6] = fwd6_fix_frame(fr[6], 0, mc_src, fwd6_far, 64, 20, 6);
    len[7] = fwd6_fix_frame(fr[7], 0, site_src, fwd6_far, 64, 20, 7); /* forwarded */
    len[8] = fwd6_fix_frame(fr[8], 0, fwd6_peer0, fwd6_far, 64, 20, 8);
    memcpy(fr[8], all_nodes_mac, 6); /* unicast in a group frame: not forwarded (as RFC 1812 5.3.4) */
    len[9] = fwd6_fix_frame(fr[9], 0, fwd6_peer0, fwd6_far, 64, 20, 9);
    memcpy(fr[9], eth_bcast_addr, 6);
    len[10] = fwd6_fix_frame(fr[10], 0, fwd6_peer0, fwd6_far, 64, 20, 10); /* plain: fast */
    fwd_fix_burst(&y.x, 0, fr, len, 11);
    CHECK_EQ(y.x.fn.nd[0].nsent, 2);
    CHECK_EQ(y.x.fn.nd[0].tx_calls, 1);
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 2; i++)
        CHECK(fwd6_fix_is_error(y.x.fn.nd[0].sent[i], ICMP6_UNREACH, 0, 0, fwd6_a0, fr[2 + i], len[2 + i]));
    CHECK_EQ(y.x.fn.nd[1].nsent, 2); /* the stack's, then the fast path's, in one call */
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    if (y.x.fn.nd[1].nsent == 2) {
        check_fwd6(y.x.fn.nd[1].sent[0], fr[7], len[7], fwd_peer1_mac, fake_mac1);
        check_fwd6(y.x.fn.nd[1].sent[1], fr[10], len[10], fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=11 fwd-fast=1 fwd-fast6=1 fwd-tx=1 fwd-to-stack=10"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=10 ip6-rx=10 ip6-not-for-us=3 ip6-bad-dst=1 ip6-no-route=2 "
                                            "icmp6-tx-error=2 ip6-bad-src=3 ip6-forwarded=1 ip6-tx=3 eth-tx=3"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* To our addresses, either port's and the link-local one: the stack
 * answers. From one of ours (spoofed): the stack drops it. A new address
 * is ours to the fast path from fwd_sync on. */
TEST(fwd6_our_addresses_go_to_the_stack)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(4, 2048);
    size_t len[4];
    const uint8_t *ll0 = y.x.fn.s->iface[0].ll6;
    len[0] = fwd6_fix_echo(fr[0], 0, fwd6_peer0, fwd6_a0, 64);
    len[1] = fwd6_fix_echo(fr[1], 0, fwd6_peer0, fwd6_a1, 64);
    len[2] = fwd6_fix_echo(fr[2], 0, fwd6_peer0, ll0, 64);
    len[3] = fwd6_fix_frame(fr[3], 0, fwd6_a1, fwd6_far, 64, 20, 3);
    fwd_fix_burst(&y.x, 0, fr, len, 4);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 3);
    const uint8_t *from[3] = {fwd6_a0, fwd6_a1, ll0};
    for (uint32_t i = 0; i < y.x.fn.nd[0].nsent && i < 3; i++)
        CHECK(fwd6_fix_is_icmp6(y.x.fn.nd[0].sent[i], ICMP6_ECHO_REPLY, 0, from[i], fwd6_peer0, fake_peer_mac));
    fake_net_all_free(&y.x.fn);
    /* eth1 moves to ::5: once synced, packets to it are ours. */
    static const uint8_t a1_new[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 5};
    net_iface_set_addr6(y.x.fn.s, 1, a1_new, 64);
    fwd_sync(y.x.f, y.x.fn.s);
    uint8_t f[256];
    fwd_fix_one(&y.x, 0, f, fwd6_fix_echo(f, 0, fwd6_peer0, a1_new, 64));
    CHECK(y.x.fn.nd[0].nsent == 1 &&
          fwd6_fix_is_icmp6(y.x.fn.nd[0].sent[0], ICMP6_ECHO_REPLY, 0, a1_new, fwd6_peer0, fake_peer_mac));
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=5 fwd-to-stack=5"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=5 ip6-rx=5 ip6-local=4 icmp6-rx=4 icmp6-rx-echo=4 "
                                            "icmp6-tx-echo-reply=4 ip6-tx=4 eth-tx=4 ip6-bad-src=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* eth0 without an IPv6 address: what comes in there is dropped
 * (ip6-disabled); what goes out there is not the fast path's, and the
 * stack forwards it. */
TEST(fwd6_port_without_ipv6)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    net_iface_set_addr6(y.x.fn.s, 0, NULL, 0);
    fwd_sync(y.x.f, y.x.fn.s);
    uint8_t f[256];
    fwd_fix_one(&y.x, 0, f, fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1));
    CHECK_EQ(y.x.fn.nd[0].nsent + y.x.fn.nd[1].nsent, 0);
    size_t n = fwd6_fix_frame(f, 1, fwd6_peer1, fwd6_peer0, 64, 20, 2);
    fwd_fix_one(&y.x, 1, f, n);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1)
        check_fwd6(y.x.fn.nd[0].sent[0], f, n, fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-disabled=1 ip6-forwarded=1 ip6-tx=1 eth-tx=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* A port with a VLAN is off the fast path both ways: the stack tags what it
 * forwards there, and drops untagged input on it; its address is still
 * ours. A tagged frame on an untagged port is dropped too. */
TEST(fwd6_tagged_port)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    y.x.fn.s->iface[0].vlan_id = 7;
    fwd_sync(y.x.f, y.x.fn.s);
    uint8_t f[256], t[256];
    size_t n = fwd6_fix_frame(f, 1, fwd6_peer1, fwd6_far0, 64, 20, 1);
    fwd_fix_one(&y.x, 1, f, n);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1) {
        const uint8_t *d = y.x.fn.nd[0].sent[0]->data;
        CHECK(memcmp(d, fake_peer_mac, 6) == 0 && memcmp(d + 6, fake_mac0, 6) == 0);
        CHECK_EQ(d[12] << 8 | d[13], ETH_TYPE_VLAN);
        CHECK_EQ(d[14] << 8 | d[15], 7);
        CHECK_EQ(d[16] << 8 | d[17], ETH_TYPE_IP6);
        CHECK(memcmp(d + 18, f + 14, 7) == 0);
        CHECK_EQ(d[18 + 7], 63);
        CHECK(memcmp(d + 18 + 8, f + 14 + 8, n - 22) == 0);
    }
    fake_net_all_free(&y.x.fn);
    fwd_fix_one(&y.x, 0, f, fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 2));
    n = fwd6_fix_frame(f, 1, fwd6_peer1, fwd6_far0, 64, 20, 3);
    memcpy(t, f, 12);
    t[12] = 0x81, t[13] = 0, t[14] = 0, t[15] = 7;
    memcpy(t + 16, f + 12, n - 12);
    fwd_fix_one(&y.x, 1, t, n + 4);
    CHECK_EQ(y.x.fn.nd[0].nsent + y.x.fn.nd[1].nsent, 0);
    fwd_fix_one(&y.x, 1, f, fwd6_fix_echo(f, 1, fwd6_peer1, fwd6_a0, 64)); /* the tagged port's address is still ours */
    CHECK(y.x.fn.nd[1].nsent == 1 &&
          fwd6_fix_is_icmp6(y.x.fn.nd[1].sent[0], ICMP6_ECHO_REPLY, 0, fwd6_a0, fwd6_peer1, fwd_peer1_mac));
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=4 fwd-to-stack=4"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=4 ip6-rx=2 ip6-forwarded=1 ip6-tx=2 eth-tx=2 eth-vlan-drop=2 "
                                            "ip6-local=1 icmp6-rx=1 icmp6-rx-echo=1 icmp6-tx-echo-reply=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* The gateway unknown: the stack solicits it once and queues (RFC 4861
 * 7.2.2); its advertisement sends what waited, and then the fast path
 * takes over. */
TEST(fwd6_unresolved_gateway_then_fast)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn_peer(&y, 0);
    uint8_t(*fr)[2048] = calloc(9, 2048);
    size_t len[9];
    for (uint32_t i = 0; i < 9; i++)
        len[i] = fwd6_fix_frame(fr[i], 0, fwd6_peer0, fwd6_far, 64, 20 + i, i);
    fwd_fix_burst(&y.x, 0, fr, len, 3);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        CHECK(fwd6_fix_is_ns(y.x.fn.nd[1].sent[0], fwd6_a1, fwd6_peer1));
    fake_net_all_free(&y.x.fn);
    fwd_fix_burst(&y.x, 0, fr + 3, len + 3, 2); /* still waiting: queued, no second solicitation */
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.s->arp_queued, 5);
    uint8_t f[128];
    fwd_fix_one(&y.x, 1, f, fwd6_fix_na(f, fake_mac1, fwd_peer1_mac, fwd6_peer1, fwd6_a1,
                                        ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(y.x.fn.nd[1].nsent, 5);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 5; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    fake_net_all_free(&y.x.fn);
    struct pkt *pk[4];
    for (uint32_t i = 0; i < 4; i++)
        pk[i] = fake_net_rx(&y.x.fn, 0, fr[5 + i], len[5 + i]);
    fwd_burst(y.x.f, y.x.fn.s, pk, 4, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 4);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 4; i++) {
        CHECK(y.x.fn.nd[1].sent[i] == pk[i]);
        check_fwd6(y.x.fn.nd[1].sent[i], fr[5 + i], len[5 + i], fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=10 fwd-to-stack=6 fwd-fast=4 fwd-fast6=4 fwd-tx=4"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=6 ip6-rx=6 ip6-forwarded=5 ip6-local=1 icmp6-rx=1 nd6-rx-na=1 "
                                            "nd6-tx-ns=1 ip6-tx=6 eth-tx=6"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* Connected prefixes: the destination itself is the neighbour. A known one
 * goes fast; an unknown one goes to the stack, which solicits it (in the
 * same doorbell as the fast ones) and, once it answers, sends what waited;
 * then it goes fast too. */
TEST(fwd6_on_link_destinations)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    static const uint8_t host3[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 3};
    uint8_t(*fr)[2048] = calloc(5, 2048);
    size_t len[5];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_peer1, 64, 20, 0);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, host3, 64, 20, 1);
    len[2] = fwd6_fix_frame(fr[2], 0, fwd6_peer0, fwd6_peer1, 64, 20, 2);
    len[3] = fwd6_fix_frame(fr[3], 0, fwd6_peer0, host3, 64, 20, 3);
    len[4] = fwd6_fix_frame(fr[4], 1, fwd6_peer1, fwd6_peer0, 64, 20, 4);
    fwd_fix_burst(&y.x, 0, fr, len, 3);
    CHECK_EQ(y.x.fn.nd[1].nsent, 3);
    CHECK_EQ(y.x.fn.nd[1].tx_calls, 1);
    if (y.x.fn.nd[1].nsent == 3) {
        CHECK(fwd6_fix_is_ns(y.x.fn.nd[1].sent[0], fwd6_a1, host3));
        check_fwd6(y.x.fn.nd[1].sent[1], fr[0], len[0], fwd_peer1_mac, fake_mac1);
        check_fwd6(y.x.fn.nd[1].sent[2], fr[2], len[2], fwd_peer1_mac, fake_mac1);
    }
    fake_net_all_free(&y.x.fn);
    uint8_t f[128];
    fwd_fix_one(&y.x, 1, f, fwd6_fix_na(f, fake_mac1, mac_cc, host3, fwd6_a1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], fr[1], len[1], mac_cc, fake_mac1);
    fake_net_all_free(&y.x.fn);
    fwd_fix_one(&y.x, 0, fr[3], len[3]);
    fwd_fix_one(&y.x, 1, fr[4], len[4]);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        check_fwd6(y.x.fn.nd[1].sent[0], fr[3], len[3], mac_cc, fake_mac1);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1)
        check_fwd6(y.x.fn.nd[0].sent[0], fr[4], len[4], fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=6 fwd-to-stack=2 fwd-fast=4 fwd-fast6=4 fwd-tx=4"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-forwarded=1 ip6-local=1 icmp6-rx=1 nd6-rx-na=1 "
                                            "nd6-tx-ns=1 ip6-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* The gateway's MAC changes: an advertisement with the override flag
 * (RFC 4861 7.2.5) moves the next burst, to it and to it as an on-link
 * destination, to the new MAC; one without the flag does not; what
 * another core learned does. */
TEST(fwd6_follows_neighbour_mac_change)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t(*fr)[2048] = calloc(2, 2048), na[128];
    size_t len[2];
    len[0] = fwd6_fix_frame(fr[0], 0, fwd6_peer0, fwd6_far, 64, 20, 0);
    len[1] = fwd6_fix_frame(fr[1], 0, fwd6_peer0, fwd6_peer1, 64, 20, 1);
    const uint8_t *expect[4] = {fwd_peer1_mac, mac_cc, mac_cc, mac_dd};
    for (int round = 0; round < 4; round++) {
        if (round == 1)
            fwd_fix_one(&y.x, 1, na, fwd6_fix_na(na, fake_mac1, mac_cc, fwd6_peer1, fwd6_a1, ND6_NA_OVERRIDE));
        if (round == 2)
            fwd_fix_one(&y.x, 1, na, fwd6_fix_na(na, fake_mac1, mac_dd, fwd6_peer1, fwd6_a1, 0));
        if (round == 3)
            nd6_learn_remote(y.x.fn.s, 1, fwd6_peer1, mac_dd, y.x.fn.now_ns);
        fwd_fix_burst(&y.x, 0, fr, len, 2);
        CHECK_EQ(y.x.fn.nd[1].nsent, 2);
        for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 2; i++)
            check_fwd6(y.x.fn.nd[1].sent[i], fr[i], len[i], expect[round], fake_mac1);
        fake_net_all_free(&y.x.fn);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=10 fwd-to-stack=2 fwd-fast=8 fwd-fast6=8 fwd-tx=8"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-local=2 icmp6-rx=2 nd6-rx-na=2 "
                                            "nd6-learned-remote=1"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(fr);
    fwd6_fix_free(&y);
}

/* The adjacency is looked at again after NEXTHOP_ADJ_TTL_NS: a gateway
 * stale for ND6_DELAY_NS is probed by a unicast solicitation (RFC 4861
 * 7.3.3), sent with the burst that used it; the traffic goes on. */
TEST(fwd6_probes_stale_gateway)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n);
    y.x.fn.now_ns += ND6_REACHABLE_NS + 1;
    net_poll(y.x.fn.s, y.x.fn.now_ns); /* reachable -> stale */
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 2);
    y.x.fn.now_ns += ND6_DELAY_NS;
    fwd_fix_one(&y.x, 0, f, n);
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 5); /* four packets, one probe */
    if (y.x.fn.nd[1].nsent == 5) {
        CHECK(fwd6_fix_is_icmp6(y.x.fn.nd[1].sent[2], ND6_NS, 0, fwd6_a1, fwd6_peer1, fwd_peer1_mac));
        CHECK_EQ(y.x.fn.nd[1].tx_calls, 4); /* the probe in the same doorbell */
        for (uint32_t i = 0; i < 5; i++)
            if (i != 2)
                check_fwd6(y.x.fn.nd[1].sent[i], f, n, fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=4 fwd-fast=4 fwd-fast6=4 fwd-tx=4"), 0);
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "nd6-tx-ns=1 ip6-tx=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

/* A stale gateway that answers none of ND6_RETRIES probes, a second apart,
 * is forgotten (RFC 4861 7.3.3): the next packet waits for a multicast
 * solicitation, whose answer gives the MAC it changed to without telling. */
TEST(fwd6_forgets_a_gateway_that_stops_answering)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    uint8_t f[256], na[128];
    size_t n = fwd6_fix_frame(f, 0, fwd6_peer0, fwd6_far, 64, 20, 1);
    fwd_fix_one(&y.x, 0, f, n);
    y.x.fn.now_ns += ND6_REACHABLE_NS + 1;
    net_poll(y.x.fn.s, y.x.fn.now_ns); /* reachable -> stale */
    y.x.fn.now_ns += ND6_DELAY_NS;
    for (int probe = 1; probe <= ND6_RETRIES; probe++) {
        fwd_fix_one(&y.x, 0, f, n);
        y.x.fn.now_ns += ND6_RETRY_NS;
    }
    CHECK_EQ(y.x.fn.nd[1].nsent, 1 + 2 * ND6_RETRIES); /* each packet, and a probe with it */
    fake_netdev_clear(&y.x.fn.nd[1]);
    fwd_fix_one(&y.x, 0, f, n); /* no answer: forgotten, this one waits */
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1)
        CHECK(fwd6_fix_is_ns(y.x.fn.nd[1].sent[0], fwd6_a1, fwd6_peer1));
    fake_netdev_clear(&y.x.fn.nd[1]);
    fwd_fix_one(&y.x, 1, na, fwd6_fix_na(na, fake_mac1, mac_cc, fwd6_peer1, fwd6_a1, ND6_NA_SOLICITED));
    fwd_fix_one(&y.x, 0, f, n);
    CHECK_EQ(y.x.fn.nd[1].nsent, 2);
    for (uint32_t i = 0; i < y.x.fn.nd[1].nsent && i < 2; i++)
        check_fwd6(y.x.fn.nd[1].sent[i], f, n, mac_cc, fake_mac1);
    /* (The stack's: the packet that waited and the answer; the probes.) */
    CHECK_EQ(fake_expect_counters(y.x.fn.s, "eth-rx=2 ip6-rx=2 ip6-local=1 ip6-forwarded=1 icmp6-rx=1 "
                                            "nd6-rx-na=1 nd6-tx-ns=4 nd6-probe-failed=1 ip6-tx=5 eth-tx=5"),
             0);
    CHECK(fake_net_all_free(&y.x.fn));
    fwd6_fix_free(&y);
}

