/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/fwd4_fast_path.c: the forwarding fast path (net/fwd/fwd4.c): rewrite,
 * checksum, doorbells, padding, what goes to the stack, MAC and next-hop
 * changes, TX back-pressure. The slow path is in tests/unit/fwd/fwd4_slow_path.c. */
#include "tests/unit/check.h"
#include "tests/support/fwd_fixture.h"

/* sent is orig forwarded: MACs dst/src, TTL one less, the checksum what a
 * full recomputation gives, everything else unchanged. */
static void check_forwarded(const struct pkt *sent, const uint8_t *orig, size_t len, const uint8_t *dst,
                            const uint8_t *src)
{
    const uint8_t *d = sent->data;
    uint8_t h[60];
    size_t hlen = (size_t)(orig[14] & 0xf) * 4;
    CHECK_EQ(sent->len, len < 60 ? 60 : len);
    CHECK(memcmp(d, dst, 6) == 0);
    CHECK(memcmp(d + 6, src, 6) == 0);
    CHECK(memcmp(d + 12, orig + 12, 10) == 0); /* type, ver/ihl .. frag */
    CHECK_EQ(d[22], orig[22] - 1);
    CHECK_EQ(d[23], orig[23]);
    memcpy(h, d + 14, hlen);
    h[10] = h[11] = 0;
    CHECK_EQ(d[24] << 8 | d[25], fake_csum(h, hlen, 0));
    CHECK(memcmp(d + 26, orig + 26, len - 26) == 0); /* addresses, options, payload */
}

TEST(fwd_fast_path_rewrites_in_place)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 256);
    fwd_fix_learn(&x);
    uint8_t(*fr)[2048] = calloc(32, 2048);
    size_t len[32];
    for (uint32_t i = 0; i < 32; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, i, 1 + i), (uint8_t)(2 + i * 7), 0,
                               18 + i * 40, i);
    struct pkt *pk[32];
    for (uint32_t i = 0; i < 32; i++)
        pk[i] = fake_net_rx(&x.fn, 0, fr[i], len[i]);
    fwd_burst(x.f, x.fn.s, pk, 32, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[1].nsent, 32);
    CHECK_EQ(x.fn.nd[1].tx_calls, 1);
    CHECK_EQ(x.fn.nd[0].tx_calls, 0);
    for (uint32_t i = 0; i < x.fn.nd[1].nsent; i++) {
        CHECK(x.fn.nd[1].sent[i] == pk[i]); /* the RX buffer itself, in order */
        check_forwarded(x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=32 fwd-fast=32 fwd-tx=32"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, ""), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* TTLs, identifications and addresses at random: the incremental update
 * always equals the full sum, including where it wraps. */
TEST(fwd_checksum_matches_recomputation)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 256);
    fwd_fix_learn(&x);
    uint8_t(*fr)[2048] = calloc(64, 2048);
    size_t len[64];
    uint64_t seed = 5;
    for (int round = 0; round < 64; round++) {
        for (uint32_t i = 0; i < 64; i++) {
            uint64_t r = test_rand(&seed);
            uint32_t src = NET_IP4(1 + (r >> 8) % 126, r >> 16, r >> 24, r >> 32);
            if ((src & 0xff) == 10)
                src = NET_IP4(11, 1, 2, 3);
            len[i] = fwd_fix_frame(fr[i], 0, src, NET_IP4(192, 168, r >> 40, r >> 48), (uint8_t)(2 + r % 254),
                                   (r >> 56) & 1 ? IP4_DF : 0, (r >> 57) & 31, (uint32_t)r);
            fr[i][15] = (uint8_t)(r >> 3); /* TOS */
            fwd_fix_csum_ip(fr[i] + 14);
        }
        fwd_fix_burst(&x, 0, fr, len, 64);
        CHECK_EQ(x.fn.nd[1].nsent, 64);
        for (uint32_t i = 0; i < x.fn.nd[1].nsent; i++)
            check_forwarded(x.fn.nd[1].sent[i], fr[i], len[i], fwd_peer1_mac, fake_mac1);
        fake_netdev_clear(&x.fn.nd[1]);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=4096 fwd-fast=4096 fwd-tx=4096"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* fwd_ttl_dec against RFC 1624 eqn. 3 summed word by word, over every
 * checksum and every TTL it meets (above 1). */
TEST(fwd_ttl_dec_is_rfc1624_eqn3)
{
    uint32_t bad = 0;
    for (uint32_t hc = 0; hc < 0x10000; hc++)
        for (uint32_t ttl = 2; ttl < 256; ttl++) {
            uint8_t proto = (uint8_t)(hc * 7 + ttl);
            struct ip4_hdr h = {.ttl = (uint8_t)ttl, .proto = proto, .csum = net_htons((uint16_t)hc)};
            uint32_t m = ttl << 8 | proto, m2 = (ttl - 1) << 8 | proto;
            uint32_t sum = (uint16_t)~hc + (uint16_t)~m + m2;
            sum = (sum & 0xffff) + (sum >> 16);
            sum = (sum & 0xffff) + (sum >> 16);
            fwd_ttl_dec(&h);
            bad += h.ttl != ttl - 1 || h.proto != proto || net_ntohs(h.csum) != (uint16_t)~sum;
        }
    CHECK_EQ(bad, 0);
}

/* An echo request from src to dst in a frame from port's peer. */
static size_t ping_frame(uint8_t *f, uint16_t port, uint32_t src, uint32_t dst)
{
    uint8_t icmp[16];
    size_t n = fake_icmp(icmp, ICMP4_ECHO, 0, 0x12340001, "abcdefgh", 8);
    size_t e = fake_eth(f, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, ETH_TYPE_IP4);
    return e + fake_ip4(f + e, src, dst, IP4_PROTO_ICMP, 7, 0, icmp, n);
}

/* Transit to two ports and echo replies from the stack in one burst: one
 * tx_burst per output port. */
TEST(fwd_one_doorbell_per_output_port)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 256);
    fwd_fix_learn(&x);
    uint8_t(*fr)[2048] = calloc(64, 2048);
    size_t len[64];
    for (uint32_t i = 0; i < 62; i++)
        len[i] = fwd_fix_frame(fr[i], 1, FAKE_PEER1, i & 1 ? FAKE_PEER : NET_IP4(192, 168, 0, i), 64, 0, 30, i);
    len[62] = ping_frame(fr[62], 1, FAKE_PEER1, FAKE_ADDR1);
    len[63] = ping_frame(fr[63], 1, FAKE_PEER1, FAKE_ADDR0); /* our other address */
    fwd_fix_burst(&x, 1, fr, len, 64);
    CHECK_EQ(x.fn.nd[0].tx_calls, 1);
    CHECK_EQ(x.fn.nd[1].tx_calls, 1);
    CHECK_EQ(x.fn.nd[0].nsent, 31);
    CHECK_EQ(x.fn.nd[1].nsent, 31 + 2);
    for (uint32_t i = 0; i < x.fn.nd[0].nsent; i++)
        check_forwarded(x.fn.nd[0].sent[i], fr[2 * i + 1], len[2 * i + 1], fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=64 fwd-fast=62 fwd-tx=62 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=2 ip4-local=2 icmp4-rx=2 icmp4-rx-echo=2 "
                                          "icmp4-tx-echo-reply=2 ip4-tx=2 eth-tx=2"),
             0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

TEST(fwd_bursts_over_max_take_a_doorbell_each)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 512);
    fwd_fix_learn(&x);
    uint8_t(*fr)[2048] = calloc(300, 2048);
    size_t len[300];
    for (uint32_t i = 0; i < 300; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 1, i), 9, 0, 18, i);
    fwd_fix_burst(&x, 0, fr, len, 300);
    CHECK_EQ(x.fn.nd[1].nsent, 300);
    CHECK_EQ(x.fn.nd[1].tx_calls, 2);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=300 fwd-fast=300 fwd-tx=300"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* Link padding is not forwarded past the minimum frame; trailing junk
 * past the datagram is cut. */
TEST(fwd_trims_padding)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 0, 1); /* 42 bytes */
    memset(f + n, 0, 100);
    fwd_fix_one(&x, 0, f, 60);
    fwd_fix_one(&x, 0, f, 100);
    n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 52, 1);
    fwd_fix_one(&x, 0, f, n + 10);
    CHECK_EQ(x.fn.nd[1].nsent, 3);
    if (x.fn.nd[1].nsent == 3) {
        CHECK_EQ(x.fn.nd[1].sent[0]->len, 60);
        CHECK_EQ(x.fn.nd[1].sent[1]->len, 60);
        CHECK_EQ(x.fn.nd[1].sent[2]->len, n);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-fast=3 fwd-tx=3"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_local_traffic_goes_to_the_stack)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[128], a[64];
    static const uint8_t zero[6];
    fwd_fix_one(&x, 0, f, ping_frame(f, 0, FAKE_PEER, FAKE_ADDR0));
    CHECK_EQ(x.fn.nd[0].nsent, 1);
    if (x.fn.nd[0].nsent == 1) {
        const uint8_t *r = x.fn.nd[0].sent[0]->data;
        CHECK(memcmp(r, fake_peer_mac, 6) == 0);
        CHECK_EQ(r[34], ICMP4_ECHO_REPLY);
    }
    size_t n = fake_eth(a, eth_bcast_addr, fake_peer_mac, ETH_TYPE_ARP);
    n += fake_arp(a + n, ARP_OP_REQUEST, fake_peer_mac, FAKE_PEER, zero, FAKE_ADDR0);
    fwd_fix_one(&x, 0, a, n);
    CHECK_EQ(x.fn.nd[0].nsent, 2);
    CHECK_EQ(x.fn.nd[0].tx_calls, 2);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=2 fwd-to-stack=2"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=2 ip4-rx=1 ip4-local=1 icmp4-rx=1 icmp4-rx-echo=1 "
                                          "icmp4-tx-echo-reply=1 ip4-tx=1 eth-tx=2 arp-rx-request=1 "
                                          "arp-tx-reply=1"),
             0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* A gratuitous ARP with a new MAC: the next datagram goes to it. */
TEST(fwd_follows_arp_mac_change)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048], a[64];
    static const uint8_t new_mac[6] = {0x02, 0, 0, 0, 0, 0xcc};
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 20, 1);
    fwd_fix_one(&x, 0, f, n);
    size_t an = fake_eth(a, eth_bcast_addr, new_mac, ETH_TYPE_ARP);
    an += fake_arp(a + an, ARP_OP_REQUEST, new_mac, FAKE_PEER1, eth_bcast_addr, FAKE_PEER1);
    fwd_fix_one(&x, 1, a, an);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 2);
    if (x.fn.nd[1].nsent == 2) {
        check_forwarded(x.fn.nd[1].sent[0], f, n, fwd_peer1_mac, fake_mac1);
        check_forwarded(x.fn.nd[1].sent[1], f, n, new_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-fast=2 fwd-tx=2 fwd-to-stack=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-rx=1 arp-rx-request=1 arp-not-for-us=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* The control plane moves a next hop to another port and gateway. */
TEST(fwd_follows_nexthop_change)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 1, FAKE_PEER1, NET_IP4(192, 168, 1, 1), 64, 0, 20, 1);
    fwd_fix_one(&x, 1, f, n);
    struct nexthop nh = {.kind = NEXTHOP_VIA, .port = 0, .gw_be = FAKE_PEER};
    CHECK_EQ(nexthop_set(&x.nht, x.nh_gw1, &nh), 0);
    fwd_fix_one(&x, 1, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    CHECK_EQ(x.fn.nd[0].nsent, 1);
    if (x.fn.nd[0].nsent == 1)
        check_forwarded(x.fn.nd[0].sent[0], f, n, fake_peer_mac, fake_mac0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=2 fwd-fast=2 fwd-tx=2"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* The adjacency is looked at again after NEXTHOP_ADJ_TTL_NS: a stale ARP
 * entry in use is refreshed by a request. */
TEST(fwd_refreshes_stale_arp_entries)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 20, 1);
    fwd_fix_one(&x, 0, f, n);
    x.fn.now_ns += ARP_REACHABLE_NS + 1;
    fwd_fix_one(&x, 0, f, n);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 4); /* three datagrams, one ARP request */
    if (x.fn.nd[1].nsent == 4) {
        const uint8_t *r = x.fn.nd[1].sent[1]->data;
        CHECK_EQ(r[12] << 8 | r[13], ETH_TYPE_ARP);
        check_forwarded(x.fn.nd[1].sent[2], f, n, fwd_peer1_mac, fake_mac1);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-fast=3 fwd-tx=3"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "arp-tx-request=1 eth-tx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_counts_what_the_nic_refuses)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    x.fn.nd[1].tx_accept = 2;
    uint8_t(*fr)[2048] = calloc(5, 2048);
    size_t len[5];
    for (uint32_t i = 0; i < 5; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 1, i), 64, 0, 20, i);
    fwd_fix_burst(&x, 0, fr, len, 5);
    CHECK_EQ(x.fn.nd[1].nsent, 2);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=5 fwd-fast=5 fwd-tx=5 fwd-tx-drop=3"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}

/* A port with a VLAN takes the slow path out (eth_output tags). */
TEST(fwd_tagged_output_port)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    x.fn.s->iface[1].vlan_id = 7;
    fwd_sync(x.f, x.fn.s);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 1, 1), 64, 0, 20, 1);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1) {
        const uint8_t *d = x.fn.nd[1].sent[0]->data;
        CHECK(memcmp(d, fwd_peer1_mac, 6) == 0);
        CHECK_EQ(d[12] << 8 | d[13], ETH_TYPE_VLAN);
        CHECK_EQ(d[14] << 8 | d[15], 7);
        CHECK_EQ(d[18 + 8], 63);
        CHECK(memcmp(d + 18 + 12, f + 14 + 12, n - 26) == 0);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-tx=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-tx=1"), 0);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

TEST(fwd_counter_names)
{
    const struct net_counter_desc *d;
    size_t n = 0;
    for (; (d = fwd_counter_at(n)) != NULL; n++) {
        CHECK(strncmp(d->name, "fwd-", 4) == 0);
        CHECK(fwd_counter_find(d->name) == d);
        CHECK(net_counter_find(d->name) == NULL);
    }
    CHECK_EQ(n * sizeof(uint64_t), sizeof(struct fwd_counters));
    CHECK(fwd_counter_find("fwd-nope") == NULL);
}

/* The gateway's slot is freed and set again for another gateway while a
 * burst looks its routes up (another core's console change): the table's
 * generation is read after the lookup, so the burst drops the adjacency
 * it held for the slot instead of sending to the old gateway's MAC. */
struct reuse4_ctx {
    struct fwd_fix *x;
    bool reuse;
};

static void lookup4_reusing(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n)
{
    struct reuse4_ctx *c = ctx;
    if (c->reuse) {
        struct nexthop via0 = {.kind = NEXTHOP_VIA, .port = 0, .gw_be = FAKE_PEER};
        c->reuse = false;
        route4_del(c->x->rt, 0xc0a80000, 16);
        nexthop_del(&c->x->nht, c->x->nh_gw1);
        nexthop_set(&c->x->nht, c->x->nh_gw1, &via0);
        route4_add(c->x->rt, 0xc0a80000, 16, c->x->nh_gw1);
    }
    route4_lookup_burst(c->x->rt, addr, nh, n);
}

TEST(fwd_next_hop_slot_reused_during_the_lookup)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    struct reuse4_ctx c = {&x, false};
    fwd_set_lookup4(x.f, lookup4_reusing, &c);
    uint8_t f[2048];
    size_t n = fwd_fix_frame(f, 0, FAKE_PEER, NET_IP4(192, 168, 0, 9), 64, 0, 30, 1);
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    fake_net_all_free(&x.fn);
    c.reuse = true;
    fwd_fix_one(&x, 0, f, n);
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(x.fn.nd[0].nsent, 1);
    CHECK(fake_net_all_free(&x.fn));
    fwd_fix_free(&x);
}

/* A port has one transmit queue: the stack's frames and the forwarded ones
 * leave in one tx_burst, the stack's first; what the ring refuses of the
 * stack's stays for the next flush, what it refuses of the forwarded ones
 * is dropped and counted. */
TEST(fwd_shares_the_port_queue_with_the_stack)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    struct net_iface *ifc = &x.fn.s->iface[1];
    struct pkt *own = fake_net_rx(&x.fn, 1, fwd_peer1_mac, 6); /* any frame the stack sends */
    net_tx(x.fn.s, ifc, own);
    x.fn.nd[1].tx_accept = 0;
    uint8_t(*fr)[2048] = calloc(3, 2048);
    size_t len[3];
    for (uint32_t i = 0; i < 3; i++)
        len[i] = fwd_fix_frame(fr[i], 0, FAKE_PEER, NET_IP4(192, 168, 1, i), 64, 0, 20, i);
    uint32_t calls = x.fn.nd[1].tx_calls;
    fwd_fix_burst(&x, 0, fr, len, 3);
    CHECK_EQ(x.fn.nd[1].tx_calls - calls, 1);
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(ifc->ntx, 1); /* the stack's frame waits */
    CHECK_EQ(ifc->nfwd, 0);
    CHECK(ifc->tx_busy);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-fast=3 fwd-tx=3 fwd-tx-drop=3"), 0);

    x.fn.nd[1].tx_accept = 0xffff;
    fwd_fix_burst(&x, 0, fr, len, 3);
    CHECK_EQ(x.fn.nd[1].nsent, 4);
    if (x.fn.nd[1].nsent == 4) {
        CHECK(x.fn.nd[1].sent[0] == own);
        check_forwarded(x.fn.nd[1].sent[1], fr[0], len[0], fwd_peer1_mac, fake_mac1);
    }
    CHECK(!ifc->tx_busy);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=6 fwd-fast=6 fwd-tx=6 fwd-tx-drop=3"), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(fr);
    fwd_fix_free(&x);
}
