/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/jumbo_frames.c: frames over several buffers (net/core/pkt.h
 * PKT_F_CHAIN), as a driver receives a jumbo frame: forwarded as the chain
 * they came in (IPv4 and IPv6), fragmentation needed / packet too big or
 * fragments where the way out is narrower, a neighbour not yet resolved,
 * the stack's drop; and the byte-level helpers under them. Every counter
 * exact, every buffer back. */
#include "tests/unit/check.h"
#include "tests/support/fwd6_fixture.h"

#include "net/core/csum.h"

#define JUMBO_MTU 9000
#define FIRST_ROOM 1856u  /* frame bytes in a chain's first buffer (virtio: its header before) */
#define LATER_ROOM 1868u  /* ... in each later one */

/* frame (len bytes) received on port as a driver chains it: first bytes
 * in the first buffer (FIRST_ROOM: virtio's way, LATER_ROOM after it), as
 * many in each later one otherwise. */
static struct pkt *rx_chain(struct fake_net *fn, uint16_t port, const uint8_t *frame, size_t len, size_t first)
{
    struct pkt_chain c = {0};
    for (size_t off = 0; off < len;) {
        size_t room = c.n ? (first == FIRST_ROOM ? LATER_ROOM : first) : first, n = len - off < room ? len - off : room;
        struct pkt *p = pkt_alloc(&fn->pool);
        if (p == NULL)
            abort();
        if (c.n) /* later buffers start where virtio's header went */
            p->data -= 12;
        memcpy(p->data, frame + off, n);
        p->len = (uint16_t)n;
        p->port = port;
        pkt_chain_add(&c, p);
        off += n;
    }
    return pkt_chain_take(&c);
}

/* A frame of a UDP/IPv4 datagram tot bytes long from the peer on eth0 to dst. */
static size_t jumbo4(uint8_t *f, uint32_t dst_be, uint16_t frag, size_t tot)
{
    size_t plen = tot - 28;
    uint8_t *pay = malloc(plen), *udp = malloc(tot);
    for (size_t i = 0; i < plen; i++)
        pay[i] = (uint8_t)(i * 13 + (i >> 8));
    size_t u = fake_udp(udp, FAKE_PEER, dst_be, 4000, 9, pay, plen);
    size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    n += fake_ip4(f + n, FAKE_PEER, dst_be, IP4_PROTO_UDP, 77, frag, udp, u);
    free(pay);
    free(udp);
    return n;
}

static void set_mtus(struct fwd_fix *x, uint16_t mtu0, uint16_t mtu1)
{
    x->fn.s->iface[0].mtu = mtu0;
    x->fn.s->iface[1].mtu = mtu1;
    fwd_sync(x->f, x->fn.s);
}

static void flat(const struct pkt *p, uint8_t *out, size_t *len)
{
    *len = pkt_frame_len(p);
    CHECK(pkt_frame_read(p, 0, out, (uint32_t)*len));
}

TEST(jumbo_ipv4_forwarded_as_its_chain)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    set_mtus(&x, JUMBO_MTU, JUMBO_MTU);
    uint8_t *f = malloc(10000), *got = malloc(10000);
    size_t n = jumbo4(f, NET_IP4(192, 168, 4, 4), IP4_DF, JUMBO_MTU);
    struct pkt *p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1) {
        const struct pkt *q = x.fn.nd[1].sent[0];
        size_t len;
        CHECK(q == p); /* the buffers it came in, no copy */
        CHECK(q->flags & PKT_F_CHAIN);
        flat(q, got, &len);
        CHECK_EQ(len, n);
        CHECK(memcmp(got, fwd_peer1_mac, 6) == 0);
        CHECK(memcmp(got + 6, fake_mac1, 6) == 0);
        CHECK_EQ(got[22], 63);
        CHECK_EQ(fake_csum(got + 14, 20, 0), 0);
        CHECK(memcmp(got + 34, f + 34, n - 34) == 0);
    }
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-fast=1 fwd-tx=1"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, ""), 0);
    CHECK(fake_net_all_free(&x.fn));
    free(f);
    free(got);
    fwd_fix_free(&x);
}

/* Out of a 1500-byte port: DF gets fragmentation needed quoting the first
 * buffer; without DF, fragments of one buffer each that rebuild it. */
TEST(jumbo_ipv4_too_big_for_the_way_out)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    set_mtus(&x, JUMBO_MTU, 1500);
    uint8_t *f = malloc(10000), *re = calloc(1, 10000);
    size_t n = jumbo4(f, NET_IP4(192, 168, 4, 4), IP4_DF, 8000);
    struct pkt *p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[1].nsent, 0);
    CHECK_EQ(x.fn.nd[0].nsent, 1);
    if (x.fn.nd[0].nsent == 1) {
        const uint8_t *d = x.fn.nd[0].sent[0]->data;
        CHECK_EQ(d[34], ICMP4_UNREACH);
        CHECK_EQ(d[35], ICMP4_UNREACH_NEEDFRAG);
        CHECK_EQ(d[40] << 8 | d[41], 1500); /* RFC 1191 next-hop MTU */
        CHECK(memcmp(d + 42, f + 14, 28) == 0);
    }
    fake_netdev_clear(&x.fn.nd[0]);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-frag-needed=1"), 0);

    n = jumbo4(f, NET_IP4(192, 168, 4, 4), 0, 8000);
    p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    uint32_t nfr = x.fn.nd[1].nsent;
    CHECK_EQ(nfr, 6); /* 7980 bytes of payload, 1480 a fragment */
    size_t total = 0;
    for (uint32_t i = 0; i < nfr; i++) {
        const struct pkt *q = x.fn.nd[1].sent[i];
        const uint8_t *ip = q->data + 14;
        uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]), frag = (uint32_t)(ip[6] << 8 | ip[7]);
        CHECK(!(q->flags & PKT_F_CHAIN));
        CHECK(tot <= 1500);
        CHECK_EQ(ip[8], 63);
        CHECK_EQ(fake_csum(ip, 20, 0), 0);
        CHECK_EQ((frag & IP4_MF) != 0, (frag & 0x1fff) * 8 + tot - 20 < 7980);
        if ((frag & 0x1fff) * 8 + tot - 20 <= 7980)
            memcpy(re + (frag & 0x1fff) * 8, ip + 20, tot - 20);
        total += tot - 20;
    }
    CHECK_EQ(total, 7980);
    CHECK(memcmp(re, f + 34, 7980) == 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=2 fwd-slow=2 fwd-frag-needed=1 fwd-tx=6 fwd-fragmented=1 fwd-frag-tx=6"),
             0);
    CHECK(fake_net_all_free(&x.fn));
    free(f);
    free(re);
    fwd_fix_free(&x);
}

/* To a neighbour not yet resolved: ARP asked, the frame dropped (a chain
 * cannot wait in ARP's queue); once it answers, the next one goes. */
TEST(jumbo_ipv4_unresolved_neighbour_asks_and_drops)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fake_net_learn_peer(&x.fn);
    set_mtus(&x, JUMBO_MTU, JUMBO_MTU);
    uint8_t *f = malloc(10000);
    size_t n = jumbo4(f, NET_IP4(192, 168, 4, 4), IP4_DF, 4000);
    struct pkt *p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[1].nsent, 1); /* the ARP request */
    if (x.fn.nd[1].nsent == 1)
        CHECK_EQ(x.fn.nd[1].sent[0]->data[12] << 8 | x.fn.nd[1].sent[0]->data[13], ETH_TYPE_ARP);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=1 fwd-slow=1 fwd-jumbo-slow=1"), 0);
    fwd_fix_learn_peer1(&x);
    p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[1].nsent, 1);
    if (x.fn.nd[1].nsent == 1)
        CHECK_EQ(pkt_frame_len(x.fn.nd[1].sent[0]), n);
    CHECK(fake_net_all_free(&x.fn));
    free(f);
    fwd_fix_free(&x);
}

/* An echo request of len bytes (a frame) from the peer on eth0 to dst. */
static size_t jumbo_echo4(uint8_t *f, uint32_t dst_be, size_t tot)
{
    size_t plen = tot - 28;
    uint8_t *pay = malloc(plen), *icmp = malloc(tot);
    for (size_t i = 0; i < plen; i++)
        pay[i] = (uint8_t)(i * 5 + 1);
    size_t m = fake_icmp(icmp, ICMP4_ECHO, 0, 0x12340001, pay, plen);
    size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_IP4);
    n += fake_ip4(f + n, FAKE_PEER, dst_be, IP4_PROTO_ICMP, 99, IP4_DF, icmp, m);
    free(pay);
    free(icmp);
    return n;
}

/* A jumbo echo request for the router: taken as a reassembled datagram,
 * answered in fragments of one buffer that rebuild the reply. A chain
 * that fits one buffer (a NIC with 1 KiB buffers) goes the usual way in
 * one. What the stack cannot take (a transit datagram at TTL 1) is
 * dropped and counted. */
TEST(jumbo_for_the_router_itself)
{
    struct fwd_fix x;
    fwd_fix_init(&x, 64);
    fwd_fix_learn(&x);
    set_mtus(&x, JUMBO_MTU, JUMBO_MTU);
    uint8_t *f = malloc(10000), *re = calloc(1, 10000);
    size_t n = jumbo_echo4(f, FAKE_ADDR0, 8000);
    struct pkt *p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    uint32_t nfr = x.fn.nd[0].nsent;
    CHECK_EQ(nfr, 5); /* 8000 bytes in pieces of one buffer */
    size_t total = 0;
    for (uint32_t i = 0; i < nfr; i++) {
        const uint8_t *ip = x.fn.nd[0].sent[i]->data + 14;
        uint32_t tot = (uint32_t)(ip[2] << 8 | ip[3]), off = (uint32_t)((ip[6] & 0x1f) << 8 | ip[7]) * 8;
        CHECK(memcmp(ip + 12, &(uint32_t){FAKE_ADDR0}, 4) == 0);
        CHECK(memcmp(ip + 16, &(uint32_t){FAKE_PEER}, 4) == 0);
        if (off + tot - 20 <= 7980)
            memcpy(re + off, ip + 20, tot - 20);
        total += tot - 20;
    }
    CHECK_EQ(total, 7980);
    CHECK_EQ(re[0], ICMP4_ECHO_REPLY);
    CHECK_EQ(fake_csum(re, 7980, 0), 0);
    CHECK(memcmp(re + 4, f + 38, 7976) == 0); /* identifier, sequence and data echoed */
    fake_netdev_clear(&x.fn.nd[0]);

    n = jumbo_echo4(f, FAKE_ADDR0, 1400);
    p = rx_chain(&x.fn, 0, f, n, 1024);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[0].nsent, 1);
    if (x.fn.nd[0].nsent == 1)
        CHECK_EQ(x.fn.nd[0].sent[0]->len, n);
    fake_netdev_clear(&x.fn.nd[0]);

    n = jumbo4(f, NET_IP4(192, 168, 4, 4), 0, 5000);
    f[22] = 1; /* TTL */
    fwd_fix_csum_ip(f + 14);
    p = rx_chain(&x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(x.f, x.fn.s, &p, 1, x.fn.now_ns);
    CHECK_EQ(x.fn.nd[0].nsent + x.fn.nd[1].nsent, 0);
    CHECK_EQ(fwd_fix_counters(x.f, "fwd-rx=3 fwd-to-stack=3"), 0);
    CHECK_EQ(fake_expect_counters(x.fn.s, "eth-jumbo-drop=1 eth-rx=2 ip4-rx=2 ip4-local=2 icmp4-rx=2 "
                                          "icmp4-rx-echo=2 icmp4-tx-echo-reply=2 ip4-tx=2 ip4-frag-tx=5 eth-tx=6"),
             0);
    CHECK(fake_net_all_free(&x.fn));
    free(f);
    free(re);
    fwd_fix_free(&x);
}

TEST(jumbo_ipv6_forwarded_or_too_big)
{
    struct fwd6_fix y;
    fwd6_fix_init(&y, 64);
    fwd6_fix_learn(&y);
    set_mtus(&y.x, JUMBO_MTU, JUMBO_MTU);
    uint8_t *f = malloc(10000), *u = calloc(1, 10000), *got = malloc(10000);
    u[3] = 9;
    u[4] = 8952 >> 8;
    u[5] = 8952 & 0xff;
    size_t n = fwd6_fix_ip6(f, fake_mac0, fake_peer_mac, fwd6_peer0, fwd6_far, 64, IP4_PROTO_UDP, u, 8952);
    struct pkt *p = rx_chain(&y.x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(y.x.f, y.x.fn.s, &p, 1, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 1);
    if (y.x.fn.nd[1].nsent == 1) {
        size_t len;
        flat(y.x.fn.nd[1].sent[0], got, &len);
        CHECK_EQ(len, n);
        CHECK_EQ(got[21], 63);
        CHECK(memcmp(got + 22, f + 22, n - 22) == 0);
    }
    fake_netdev_clear(&y.x.fn.nd[1]);

    set_mtus(&y.x, JUMBO_MTU, 1500);
    p = rx_chain(&y.x.fn, 0, f, n, FIRST_ROOM);
    fwd_burst(y.x.f, y.x.fn.s, &p, 1, y.x.fn.now_ns);
    CHECK_EQ(y.x.fn.nd[1].nsent, 0);
    CHECK_EQ(y.x.fn.nd[0].nsent, 1);
    if (y.x.fn.nd[0].nsent == 1) {
        const uint8_t *m = y.x.fn.nd[0].sent[0]->data + 14 + 40;
        CHECK_EQ(m[0], ICMP6_TOO_BIG);
        CHECK_EQ(m[4] << 24 | m[5] << 16 | m[6] << 8 | m[7], 1500);
        CHECK(memcmp(m + 8, f + 14, 40) == 0);
    }
    CHECK_EQ(fwd_fix_counters(y.x.f, "fwd-rx=2 fwd-fast=1 fwd-fast6=1 fwd-tx=1"), 0);
    CHECK(fake_net_all_free(&y.x.fn));
    free(f);
    free(u);
    free(got);
    fwd6_fix_free(&y);
}

/* A checksum left to the NIC (virtio NEEDS_CSUM) over a chain whose
 * buffers have odd lengths: the same as over the flat frame. */
TEST(jumbo_partial_checksum_over_a_chain)
{
    struct fake_net fn;
    fake_net_init(&fn, 16);
    uint8_t *f = malloc(6000);
    for (int i = 0; i < 6000; i++)
        f[i] = (uint8_t)(i * 29 + 3);
    static const uint32_t cuts[] = {1001, 2555, 4000, 6000};
    struct pkt_chain c = {0};
    for (uint32_t i = 0, at = 0; i < 4; at = cuts[i++]) {
        struct pkt *p = pkt_alloc(&fn.pool);
        memcpy(p->data, f + at, cuts[i] - at);
        p->len = (uint16_t)(cuts[i] - at);
        pkt_chain_add(&c, p);
    }
    struct pkt *head = pkt_chain_take(&c);
    head->flags |= PKT_TX_L4_CSUM;
    head->csum_start = 34;
    head->csum_offset = 6;
    f[40] = f[41] = 0;
    uint16_t want = csum_finish(csum_partial(f + 34, 6000 - 34, 0));
    head->data[40] = head->data[41] = 0;
    csum_pkt_finish(head);
    uint16_t got;
    memcpy(&got, head->data + 40, 2);
    CHECK_EQ(got, want ? want : 0xffff);
    uint8_t part[3000];
    CHECK(pkt_frame_read(head, 999, part, 3000)); /* across three buffers */
    CHECK(memcmp(part + 3, f + 1002, 2997) == 0);
    CHECK(!pkt_frame_read(head, 5000, part, 1001));
    pkt_free_frame(head);
    CHECK(fake_net_all_free(&fn));
    free(f);
    fake_net_free(&fn);
}
