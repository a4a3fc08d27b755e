/* SPDX-License-Identifier: MIT */
/* tests/unit/ip/ip6_nd_icmp6.c: IPv6 input checks, ICMPv6 echo, neighbour
 * discovery and forwarding with its errors (net/ip/ip6.c, nd6.c, icmp6.c),
 * every counter exact and every buffer back. */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/ip6_fixture.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"
#include "net/link/ra6.h"
#include "net/ip/udp.h"
#include "apps/udp_echo.h"

TEST(ip6_ns_answered_and_echo_replied)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const struct pkt *p = fn.nd[0].sent[0];
        CHECK(memcmp(p->data, fake_peer_mac, 6) == 0 && memcmp(p->data + 6, fake_mac0, 6) == 0);
        CHECK(icmp_ok(p) && icmp_of(p)[0] == ND6_NA && hdr_of(p)->hlim == 255);
        CHECK(icmp_of(p)[4] == (ND6_NA_ROUTER | ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
        CHECK(memcmp(icmp_of(p) + 8, A0, 16) == 0 && memcmp(icmp_of(p) + 26, fake_mac0, 6) == 0);
    }
    fake_net_all_free(&fn);
    uint8_t f[1600];
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, A0, 64, 100));
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const struct pkt *p = fn.nd[0].sent[0];
        CHECK(icmp_ok(p) && icmp_of(p)[0] == ICMP6_ECHO_REPLY);
        CHECK(memcmp(hdr_of(p)->src, A0, 16) == 0 && memcmp(hdr_of(p)->dst, PEER0, 16) == 0);
        CHECK(memcmp(p->data, fake_peer_mac, 6) == 0 && icmp_of(p)[8 + 99] == 99);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=2 eth-tx=2 ip6-rx=2 ip6-local=2 ip6-tx=2 icmp6-rx=2 "
                                        "icmp6-rx-echo=1 icmp6-tx-echo-reply=1 nd6-rx-ns=1 nd6-tx-na=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* A UDP datagram from src:5000 to dst:port with len bytes i % 256. */
static size_t udp6(uint8_t *f, const uint8_t *src, const uint8_t *dst, uint16_t port, uint32_t len)
{
    uint8_t u[1500] = {0x13, 0x88, (uint8_t)(port >> 8), (uint8_t)port, (uint8_t)((8 + len) >> 8), (uint8_t)(8 + len)};
    for (uint32_t i = 0; i < len; i++)
        u[8 + i] = (uint8_t)i;
    return frame6(f, fake_mac0, fake_peer_mac, src, dst, 64, IP4_PROTO_UDP, u, 8 + len);
}

/* The sent frame is udp6's answer: from src:7 to dst:5000, len bytes back,
 * checksum right. */
static bool udp_echo_ok(const struct pkt *p, const uint8_t *src, const uint8_t *dst, uint32_t len)
{
    const struct ip6_hdr *h = hdr_of(p);
    const uint8_t *u = icmp_of(p);
    bool data = true;
    for (uint32_t i = 0; i < len; i++)
        data &= u[8 + i] == (uint8_t)i;
    return h->next == IP4_PROTO_UDP && h->hlim == 64 && memcmp(h->src, src, 16) == 0 && memcmp(h->dst, dst, 16) == 0 &&
           net_ntohs(h->plen_be) == 8 + len && u[0] == 0 && u[1] == 7 && u[2] == 0x13 && u[3] == 0x88 &&
           u[4] == (uint8_t)((8 + len) >> 8) && u[5] == (uint8_t)(8 + len) && (u[6] | u[7]) != 0 &&
           ip6_l4_csum(h->src, h->dst, IP4_PROTO_UDP, u, 8 + len) == 0 && data;
}

/* UDP echo (RFC 862) over IPv6: to our address, to the link-local one
 * (answered from it), to all nodes (answered from our address); a zero or
 * wrong checksum is dropped (RFC 8200 8.1: never optional). */
TEST(ip6_udp_echoed)
{
    struct fake_net fn;
    setup(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600], ll_peer[16] = {0xfe, 0x80, [15] = 0x22};
    static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
    const uint8_t *ll0 = fn.s->iface[0].ll6;
    fake_net_input(&fn, 0, f, udp6(f, PEER0, A0, 7, 1000));
    CHECK(fn.nd[0].nsent == 1 && udp_echo_ok(fn.nd[0].sent[0], A0, PEER0, 1000));
    fake_net_all_free(&fn);
    /* A link-local peer is resolved first (its solicitation), then answered from ll0. */
    uint8_t sn[16], gmac[6] = {0x33, 0x33, 0xff};
    ip6_solicited_node(ll0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(&fn, 0, f, ns(f, gmac, fake_peer_mac, ll_peer, sn, ll0, fake_peer_mac));
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, udp6(f, ll_peer, ll0, 7, 10));
    CHECK(fn.nd[0].nsent == 1 && udp_echo_ok(fn.nd[0].sent[0], ll0, ll_peer, 10));
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, udp6(f, PEER0, all_nodes, 7, 0));
    CHECK(fn.nd[0].nsent == 1 && udp_echo_ok(fn.nd[0].sent[0], A0, PEER0, 0));
    fake_net_all_free(&fn);
    size_t n = udp6(f, PEER0, A0, 7, 20);
    f[n - 1] ^= 1; /* wrong */
    fake_net_input(&fn, 0, f, n);
    n = udp6(f, PEER0, A0, 7, 20);
    f[ETH_HDR_LEN + IP6_HDR_LEN + 6] = f[ETH_HDR_LEN + IP6_HDR_LEN + 7] = 0; /* none */
    fake_net_input(&fn, 0, f, n);
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=7 eth-tx=5 ip6-rx=7 ip6-local=7 ip6-tx=5 icmp6-rx=2 nd6-rx-ns=2 "
                                        "nd6-tx-na=2 udp-rx=5 udp-tx=3 udp-bad-checksum=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* Each port's Subnet-Router anycast address (RFC 4291 2.6.1): a
 * solicitation for it is answered without the override flag (RFC 4861
 * 7.2.7), a ping to it answered from the port's unicast address (RFC 4443
 * 2.2), anything else to it dropped, not forwarded onto the link; a /127
 * has none (RFC 6164 6). */
TEST(ip6_subnet_router_anycast)
{
    struct fake_net fn;
    setup(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    static const uint8_t any0[16] = {0x20, 0x01, 0x0d, 0xb8}, any1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1};
    uint8_t f[1600], sn[16], gmac[6] = {0x33, 0x33, 0xff};
    ip6_solicited_node(any0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(&fn, 0, f, ns(f, gmac, fake_peer_mac, PEER0, sn, any0, fake_peer_mac));
    CHECK_EQ(fn.nd[0].nsent, 1);
    if (fn.nd[0].nsent == 1) {
        const struct pkt *p = fn.nd[0].sent[0];
        CHECK(icmp_ok(p) && icmp_of(p)[0] == ND6_NA && memcmp(icmp_of(p) + 8, any0, 16) == 0);
        CHECK(icmp_of(p)[4] == (ND6_NA_ROUTER | ND6_NA_SOLICITED));
    }
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, any0, 64, 10));
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, any1, 64, 10)); /* the other port's, routed to us */
    CHECK_EQ(fn.nd[0].nsent, 2);
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++) {
        const struct pkt *p = fn.nd[0].sent[i];
        CHECK(icmp_ok(p) && icmp_of(p)[0] == ICMP6_ECHO_REPLY && memcmp(hdr_of(p)->src, A0, 16) == 0);
    }
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, udp6(f, PEER0, any1, 7, 10));
    CHECK_EQ(fn.nd[0].nsent + fn.nd[1].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=5 eth-tx=4 ip6-rx=5 ip6-local=4 ip6-tx=4 ip6-not-for-us=1 "
                                        "icmp6-rx=4 icmp6-rx-echo=2 icmp6-tx-echo-reply=2 nd6-rx-ns=2 nd6-tx-na=2"),
             0);
    /* On a /127 the prefix with zeros is the other end: forwarded there. */
    static const uint8_t a127[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};
    net_iface_set_addr6(fn.s, 1, a127, 127);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, any1, 64, 10));
    CHECK_EQ(fn.s->ctr.ip6_forwarded, 1);
    CHECK_EQ(fn.s->ctr.nd6_tx_ns, 1); /* resolving it, the datagram queued */
    nd6_release(fn.s, &fn.s->iface[1]);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip6_forwarded_after_resolution_with_queue)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600], sn[16];
    for (int i = 0; i < 3; i++) /* to FAR, via PEER1: unresolved, so queued */
        fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    CHECK_EQ(fn.nd[1].nsent, 1); /* one solicitation, to PEER1's group */
    ip6_solicited_node(PEER1, sn);
    if (fn.nd[1].nsent == 1) {
        const struct pkt *p = fn.nd[1].sent[0];
        CHECK(icmp_ok(p) && icmp_of(p)[0] == ND6_NS && memcmp(hdr_of(p)->dst, sn, 16) == 0);
        CHECK(p->data[0] == 0x33 && p->data[1] == 0x33 && p->data[2] == 0xff);
        CHECK(memcmp(hdr_of(p)->src, A1, 16) == 0 && memcmp(icmp_of(p) + 8, PEER1, 16) == 0);
    }
    fake_net_all_free(&fn);
    fake_net_input(&fn, 1, f, na(f, fake_mac1, peer1_mac, PEER1, A1, PEER1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(fn.nd[1].nsent, 3); /* what waited */
    for (uint32_t i = 0; i < fn.nd[1].nsent; i++) {
        const struct pkt *p = fn.nd[1].sent[i];
        CHECK(memcmp(p->data, peer1_mac, 6) == 0 && memcmp(p->data + 6, fake_mac1, 6) == 0);
        CHECK(hdr_of(p)->hlim == 63 && icmp_ok(p)); /* one hop less, ICMPv6 untouched */
    }
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10)); /* now straight through */
    CHECK_EQ(fn.nd[1].nsent, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 eth-tx=6 ip6-rx=6 ip6-local=2 ip6-forwarded=4 ip6-tx=6 "
                                        "icmp6-rx=2 nd6-rx-ns=1 nd6-tx-na=1 nd6-tx-ns=1 nd6-rx-na=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip6_forward_errors)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600];
    static const uint8_t nowhere[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x77, [15] = 1};
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 1, 10));     /* hop limit 1 */
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, nowhere, 64, 10)); /* no route */
    /* The first fragment of an error (unreachable), hop limit 1: no error
     * about an error (RFC 4443 2.4(e.1)), Fragment header or not. */
    uint8_t frag[8 + 48] = {IP6_PROTO_ICMP6, 0, 0, 1, 0, 0, 0, 7, ICMP6_UNREACH, 0};
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, FAR, 1, IP6_PROTO_FRAG, frag, sizeof frag));
    uint8_t expect[2][2] = {{ICMP6_TIME_EXCEEDED, 0}, {ICMP6_UNREACH, 0}};
    CHECK_EQ(fn.nd[0].nsent, 2);
    for (uint32_t i = 0; i < fn.nd[0].nsent && i < 2; i++) {
        const struct pkt *p = fn.nd[0].sent[i];
        CHECK(icmp_ok(p) && icmp_of(p)[0] == expect[i][0] && icmp_of(p)[1] == expect[i][1]);
        CHECK(memcmp(hdr_of(p)->src, A0, 16) == 0 && memcmp(hdr_of(p)->dst, PEER0, 16) == 0);
        CHECK(memcmp(icmp_of(p) + 8 + 8, PEER0, 16) == 0); /* the quote: the offending header, its source */
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=4 eth-tx=3 ip6-rx=4 ip6-local=1 ip6-tx=3 icmp6-rx=1 nd6-rx-ns=1 "
                                        "nd6-tx-na=1 ip6-hop-limit=2 ip6-no-route=1 icmp6-tx-error=2 "
                                        "icmp6-error-suppressed=1"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip6_malformed_dropped_and_counted)
{
    struct fake_net fn;
    setup(&fn);
    uint8_t f[1600], sn[16];
    size_t n = echo(f, fake_mac0, PEER0, A0, 64, 10);
    fake_net_input(&fn, 0, f, ETH_HDR_LEN + 39); /* runt */
    f[ETH_HDR_LEN] = 0x45;
    fake_net_input(&fn, 0, f, n); /* version 4 in an IPv6 frame */
    n = echo(f, fake_mac0, PEER0, A0, 64, 10);
    fake_net_input(&fn, 0, f, n - 1); /* payload past the frame */
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, A1, A0, 64, 10));  /* from ourselves */
    static const uint8_t group[16] = {0xff, 0x02, [15] = 5};
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, group, A0, 64, 10)); /* from a group */
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, group, 64, 10)); /* a group we are not in */
    n = echo(f, fake_mac0, PEER0, A0, 64, 10);
    f[n - 1] ^= 1;
    fake_net_input(&fn, 0, f, n); /* bad ICMPv6 checksum */
    ip6_solicited_node(A0, sn);
    n = ns(f, fake_mac0, fake_peer_mac, PEER0, A0, A0, fake_peer_mac);
    f[ETH_HDR_LEN + 7] = 64; /* a solicitation that crossed a router */
    fake_net_input(&fn, 0, f, n);
    n = ns(f, fake_mac0, fake_peer_mac, PEER0, A0, A0, fake_peer_mac);
    uint8_t *m = f + ETH_HDR_LEN + IP6_HDR_LEN;
    m[25] = 0; /* an option of length 0 */
    m[2] = m[3] = 0;
    uint16_t c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, m, 32);
    memcpy(m + 2, &c, 2);
    fake_net_input(&fn, 0, f, n);
    uint8_t udp[8] = {0, 7, 0, 7, 0, 8};
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP4_PROTO_UDP, udp, 8));
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=10 ip6-rx=10 ip6-runt=1 ip6-bad-version=1 ip6-bad-length=1 "
                                        "ip6-bad-src=2 ip6-not-for-us=1 ip6-local=4 icmp6-rx=3 "
                                        "icmp6-bad-checksum=1 nd6-rx-ns=2 nd6-bad=2 udp-rx=1 udp-no-port=1 "
                                        "icmp6-tx-error=1 nd6-tx-ns=1 eth-tx=1 ip6-tx=1"),
             0);
    /* The port unreachable for the UDP datagram waits on resolving PEER0. */
    CHECK_EQ(fn.nd[0].nsent, 1);
    fake_net_all_free(&fn);
    nd6_release(fn.s, &fn.s->iface[0]);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

TEST(ip6_resolution_gives_up)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    uint8_t f[1600];
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    fake_net_all_free(&fn);
    for (int i = 0; i < ND6_RETRIES + 1; i++) {
        fn.now_ns += ND6_RETRY_NS;
        net_poll(fn.s, fn.now_ns);
        net_flush(fn.s);
    }
    CHECK_EQ(fn.nd[1].nsent, ND6_RETRIES - 1); /* the retries after the first */
    CHECK_EQ(fn.s->ctr.nd6_failed, 1);
    CHECK_EQ(fn.nd[0].nsent, 1); /* the sender hears: address unreachable (RFC 4861 7.2.2) */
    if (fn.nd[0].nsent == 1)
        CHECK(icmp_ok(fn.nd[0].sent[0]) && icmp_of(fn.nd[0].sent[0])[0] == ICMP6_UNREACH &&
              icmp_of(fn.nd[0].sent[0])[1] == 3);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

static int seen_calls;
static void count_seen(void *ctx, uint16_t port, const uint8_t *ip, const uint8_t *mac) { seen_calls++; }

static int state_of(struct fake_net *fn, uint16_t port, const uint8_t *ip)
{
    struct nd6_entry e;
    uint32_t idx = 0;
    while (nd6_entry_next(fn->s, port, &idx, &e))
        if (memcmp(e.ip, ip, 16) == 0)
            return e.state;
    return -1;
}

/* The core that asked may not be the one the advertisement reaches: an
 * advertisement with the target's address is passed on even where no
 * entry waits; and Linux's answer to a unicast probe (S, no option)
 * confirms a stale entry. */
TEST(ip6_na_shared_and_confirms)
{
    struct fake_net fn;
    setup(&fn);
    seen_calls = 0;
    net_set_nd6_seen(fn.s, count_seen, NULL);
    uint8_t f[1600];
    fake_net_input(&fn, 1, f, na(f, fake_mac1, peer1_mac, PEER1, A1, PEER1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(seen_calls, 1);
    CHECK_EQ(state_of(&fn, 1, PEER1), -1); /* and no entry made here */
    resolve_peer0(&fn);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    fake_net_input(&fn, 1, f, na(f, fake_mac1, peer1_mac, PEER1, A1, PEER1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_REACHABLE);
    fn.now_ns += ND6_REACHABLE_NS + 1;
    net_poll(fn.s, fn.now_ns);
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_STALE);
    uint8_t m[24] = {ND6_NA, 0, 0, 0, ND6_NA_SOLICITED};
    memcpy(m + 8, PEER1, 16);
    fake_net_input(&fn, 1, f, frame6(f, fake_mac1, peer1_mac, PEER1, A1, 255, IP6_PROTO_ICMP6, m, 24));
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_REACHABLE);
    fake_net_all_free(&fn);
    nd6_release(fn.s, &fn.s->iface[1]);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* A static entry (`neighbor ADDR6 MAC`, a tester's port): what waited is
 * sent to it, and no advertisement, time nor probe changes it. */
TEST(ip6_static_neighbour_stays)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600];
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10)); /* waits on PEER1 */
    fake_net_all_free(&fn);
    CHECK_EQ(nd6_add_static(fn.s, 1, PEER1, peer1_mac, fn.now_ns), 0);
    net_flush(fn.s);
    CHECK_EQ(fn.nd[1].nsent, 1); /* what waited, to the configured MAC */
    CHECK(fn.nd[1].nsent == 1 && memcmp(fn.nd[1].sent[0]->data, peer1_mac, 6) == 0);
    fake_net_all_free(&fn);
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_STATIC);
    static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0xcc};
    fake_net_input(&fn, 1, f, na(f, fake_mac1, other, PEER1, A1, PEER1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    nd6_learn_remote(fn.s, 1, PEER1, other, fn.now_ns);
    fn.now_ns += 10 * ND6_STALE_NS;
    net_poll(fn.s, fn.now_ns);
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    CHECK_EQ(fn.nd[1].nsent, 1); /* straight out: no probe, the same MAC */
    CHECK(fn.nd[1].nsent == 1 && memcmp(fn.nd[1].sent[0]->data, peer1_mac, 6) == 0);
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_STATIC);
    CHECK_EQ(fn.s->ctr.nd6_tx_ns, 1); /* the first packet's solicitation only */
    CHECK_EQ(nd6_add_static(fn.s, 7, PEER1, peer1_mac, fn.now_ns), -1); /* no such interface */
    fake_net_all_free(&fn);
    nd6_release(fn.s, &fn.s->iface[1]);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* Packets to many addresses of a /64 (a scan) cannot push a reachable
 * neighbour out of the cache (RFC 6583): resolutions take at most all
 * but one way of a set and never a reachable entry. */
TEST(ip6_scan_does_not_evict_a_reachable_neighbour)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    uint8_t f[1600], t[16];
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    fake_net_input(&fn, 1, f, na(f, fake_mac1, peer1_mac, PEER1, A1, PEER1, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    memcpy(t, PEER1, 16);
    for (uint32_t x = 100; x < 1100; x++) { /* every set, many times over */
        t[14] = (uint8_t)(x >> 8);
        t[15] = (uint8_t)x;
        fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, t, 64, 10));
    }
    CHECK_EQ(state_of(&fn, 1, PEER1), ND6_REACHABLE);
    uint32_t idx = 0, incomplete[ND6_ENTRIES] = {0}, ways = ND6_ENTRIES / 16; /* (nd6.c's SETS) */
    struct nd6_entry e;
    while (nd6_entry_next(fn.s, 1, &idx, &e))
        incomplete[(idx - 1) / ways] += e.state == ND6_INCOMPLETE;
    for (uint32_t set = 0; set < 16; set++)
        CHECK(incomplete[set] <= ways - 1); /* a free way left free for a neighbour that returns */
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10));
    CHECK_EQ(fn.nd[1].nsent, 1); /* still forwarded at once */
    CHECK(fn.s->ctr.nd6_cache_full > 0);
    fake_net_all_free(&fn);
    nd6_release(fn.s, &fn.s->iface[1]);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* The error about a packet whose neighbour never answered goes to a sender
 * we have not resolved either: the entry made while the timers run gets
 * its own deadline (net_poll keeps deadlines asked for meanwhile), and in
 * the end everything is given back. */
TEST(ip6_errors_from_timers_resolve_in_turn)
{
    struct fake_net fn;
    setup(&fn);
    uint8_t f[1600];
    fake_net_input(&fn, 0, f, echo(f, fake_mac0, PEER0, FAR, 64, 10)); /* PEER0 never said who it is */
    uint64_t next = net_poll(fn.s, fn.now_ns);
    for (int i = 0; i < 100 && next != UINT64_MAX; i++) {
        fn.now_ns = next;
        next = net_poll(fn.s, fn.now_ns);
        net_flush(fn.s);
        fake_netdev_clear(&fn.nd[0]);
        fake_netdev_clear(&fn.nd[1]);
    }
    CHECK_EQ(next, UINT64_MAX);
    CHECK_EQ(fn.s->ctr.nd6_failed, 2); /* FAR's gateway, then PEER0 with the error */
    CHECK_EQ(fn.s->arp_queued, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
