/* tests/unit/ip/ip6_nd_icmp6.c: IPv6 input checks, ICMPv6 echo, neighbour
 * discovery and forwarding with its errors (net/ip/ip6.c, nd6.c, icmp6.c),
 * every counter exact and every buffer back. */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"
#include "net/link/ra6.h"
#include "net/ip/udp.h"
#include "apps/udp_echo.h"

static const uint8_t A0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};        /* eth0: 2001:db8::1/64 */
static const uint8_t A1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};  /* eth1: 2001:db8:1::1/64 */
static const uint8_t PEER0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};     /* on eth0 */
static const uint8_t PEER1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2}; /* on eth1 */
static const uint8_t FAR[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99, [15] = 9}; /* routed via PEER1 */
static const uint8_t peer1_mac[6] = {0x02, 0, 0, 0, 0x11, 0x22};

/* Routes, as the router's table has them: the two connected /64s, and
 * 2001:db8:99::/48 via PEER1 on eth1. */
static bool route6(void *ctx, const uint8_t *dst, uint16_t *port, uint8_t *gw)
{
    memset(gw, 0, 16);
    if (memcmp(dst, A0, 8) == 0 || memcmp(dst, A1, 8) == 0) {
        *port = memcmp(dst, A0, 8) == 0 ? 0 : 1;
        return true;
    }
    if (memcmp(dst, FAR, 6) != 0)
        return false;
    *port = 1;
    memcpy(gw, PEER1, 16);
    return true;
}

static void setup(struct fake_net *fn)
{
    fake_net_init(fn, 256);
    net_iface_set_addr6(fn->s, 0, A0, 64);
    net_iface_set_addr6(fn->s, 1, A1, 64);
    net_set_route6(fn->s, route6, NULL);
}

/* An IPv6 packet with next header next (ICMPv6 and UDP get their checksum
 * made) from src to dst, hop limit hlim, in an Ethernet frame to dmac
 * from smac. */
static size_t frame6(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
                     uint8_t hlim, uint8_t next, const uint8_t *l4, uint32_t len)
{
    size_t n = fake_eth(f, dmac, smac, ETH_TYPE_IP6);
    struct ip6_hdr h = {.vtf_be = net_htonl(6u << 28), .plen_be = net_htons((uint16_t)len), .next = next,
                        .hlim = hlim};
    memcpy(h.src, src, 16);
    memcpy(h.dst, dst, 16);
    memcpy(f + n, &h, sizeof h);
    memcpy(f + n + IP6_HDR_LEN, l4, len);
    uint32_t at = next == IP6_PROTO_ICMP6 ? 2 : next == IP4_PROTO_UDP ? 6 : 0;
    if (at) {
        uint8_t *m = f + n + IP6_HDR_LEN;
        m[at] = m[at + 1] = 0;
        uint16_t c = ip6_l4_csum(src, dst, next, m, len);
        memcpy(m + at, &c, 2);
    }
    return n + IP6_HDR_LEN + len;
}

static size_t echo(uint8_t *f, const uint8_t *dmac, const uint8_t *src, const uint8_t *dst, uint8_t hlim,
                   uint32_t payload)
{
    uint8_t m[1500] = {ICMP6_ECHO, 0, 0, 0, 0x12, 0x34, 0, 1};
    for (uint32_t i = 0; i < payload; i++)
        m[8 + i] = (uint8_t)i;
    return frame6(f, dmac, fake_peer_mac, src, dst, hlim, IP6_PROTO_ICMP6, m, 8 + payload);
}

/* A neighbour solicitation for target from src (with its link-layer
 * address option unless mac is NULL), to dst. */
static size_t ns(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
                 const uint8_t *target, const uint8_t *mac)
{
    uint8_t m[32] = {ND6_NS};
    memcpy(m + 8, target, 16);
    uint32_t len = 24;
    if (mac) {
        m[24] = ND6_OPT_SLLA;
        m[25] = 1;
        memcpy(m + 26, mac, 6);
        len = 32;
    }
    return frame6(f, dmac, smac, src, dst, 255, IP6_PROTO_ICMP6, m, len);
}

static size_t na(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
                 const uint8_t *target, uint8_t flags)
{
    uint8_t m[32] = {ND6_NA, 0, 0, 0, flags};
    memcpy(m + 8, target, 16);
    m[24] = ND6_OPT_TLLA;
    m[25] = 1;
    memcpy(m + 26, smac, 6);
    return frame6(f, dmac, smac, src, dst, 255, IP6_PROTO_ICMP6, m, 32);
}

static const struct ip6_hdr *hdr_of(const struct pkt *p) { return (const struct ip6_hdr *)(p->data + ETH_HDR_LEN); }
static const uint8_t *icmp_of(const struct pkt *p) { return p->data + ETH_HDR_LEN + IP6_HDR_LEN; }

/* The sent frame is an ICMPv6 message with a correct checksum. */
static bool icmp_ok(const struct pkt *p)
{
    const struct ip6_hdr *h = hdr_of(p);
    return h->next == IP6_PROTO_ICMP6 &&
           ip6_l4_csum(h->src, h->dst, IP6_PROTO_ICMP6, icmp_of(p), net_ntohs(h->plen_be)) == 0;
}

/* The peer on eth0 asks for our address and learns it; we learn its. */
static void resolve_peer0(struct fake_net *fn)
{
    uint8_t f[128], sn[16], gmac[6] = {0x33, 0x33, 0xff};
    ip6_solicited_node(A0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(fn, 0, f, ns(f, gmac, fake_peer_mac, PEER0, sn, A0, fake_peer_mac));
}

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

/* ---- Fragments (RFC 8200 4.5) ---- */

#define STEP6 1448 /* what fits a 1500-byte MTU with a Fragment header, in 8s */

/* The upper-layer message l4 (len bytes, its checksum made) from src to
 * dst as fragments of STEP6 bytes with id, fed in order (piece indexes,
 * ending at -1; those past the end skipped). */
static void send_frags6(struct fake_net *fn, const uint8_t *src, const uint8_t *dst, uint32_t id, uint8_t next,
                        const uint8_t *l4, uint32_t len, const int *order)
{
    for (int i = 0; order[i] >= 0; i++) {
        uint8_t f[1600], fr[IP6_FRAG_HDR_LEN + STEP6];
        uint32_t off = (uint32_t)order[i] * STEP6, n = len - off < STEP6 ? len - off : STEP6;
        if (off >= len)
            continue; /* (a piece a shorter message has not) */
        uint16_t offlg = (uint16_t)(off | (off + n < len ? 1u : 0u));
        fr[0] = next;
        fr[1] = 0;
        fr[2] = (uint8_t)(offlg >> 8);
        fr[3] = (uint8_t)offlg;
        uint32_t id_be = net_htonl(id);
        memcpy(fr + 4, &id_be, 4);
        memcpy(fr + IP6_FRAG_HDR_LEN, l4 + off, n);
        fake_net_input(fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, src, dst, 64, IP6_PROTO_FRAG, fr,
                                        IP6_FRAG_HDR_LEN + n));
    }
}

/* What was sent on eth0, reassembled into out: each fragment fits 1500
 * bytes, carries a multiple of 8 but the last, and all one id. Returns
 * the upper layer's length (0: it does not add up); *next its type. */
static uint32_t collect6(struct fake_netdev *nd, uint8_t *out, uint8_t *next)
{
    uint32_t got = 0, end = 0;
    for (uint32_t i = 0; i < nd->nsent; i++) {
        const struct ip6_hdr *h = hdr_of(nd->sent[i]);
        const uint8_t *fr = icmp_of(nd->sent[i]);
        uint32_t plen = net_ntohs(h->plen_be), n = plen - IP6_FRAG_HDR_LEN;
        uint32_t off = (uint32_t)(fr[2] << 8 | fr[3]) & 0xfff8u;
        CHECK(h->next == IP6_PROTO_FRAG && IP6_HDR_LEN + plen <= 1500);
        CHECK(memcmp(fr + 4, icmp_of(nd->sent[0]) + 4, 4) == 0);
        if (fr[3] & 1)
            CHECK_EQ(n % 8, 0);
        else
            end = off + n;
        memcpy(out + off, fr + IP6_FRAG_HDR_LEN, n);
        *next = fr[0];
        got += n;
    }
    return got == end ? end : 0;
}

/* ping -s 4000 to us: three fragments in any order; the reply, longer
 * than a buffer, goes out in three, and every buffer comes back. */
TEST(ip6_ping_4000_reassembled_and_answered_in_fragments)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    static uint8_t m[8 + 4000], reply[8 + 4000];
    m[0] = ICMP6_ECHO;
    m[5] = 7;
    for (uint32_t i = 8; i < sizeof(m); i++)
        m[i] = (uint8_t)(i * 13 + 1);
    uint16_t c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, m, sizeof(m));
    memcpy(m + 2, &c, 2);
    static const int orders[][4] = {{0, 1, 2, -1}, {2, 0, 1, -1}, {1, 2, 0, -1}};
    for (int k = 0; k < 3; k++) {
        send_frags6(&fn, PEER0, A0, 100 + (uint32_t)k, IP6_PROTO_ICMP6, m, sizeof(m), orders[k]);
        uint8_t next = 0;
        CHECK_EQ(fn.nd[0].nsent, 3);
        CHECK_EQ(collect6(&fn.nd[0], reply, &next), sizeof(reply));
        CHECK(next == IP6_PROTO_ICMP6 && reply[0] == ICMP6_ECHO_REPLY && memcmp(reply + 4, m + 4, sizeof(m) - 4) == 0);
        CHECK_EQ(ip6_l4_csum(A0, PEER0, IP6_PROTO_ICMP6, reply, sizeof(reply)), 0);
        CHECK(memcmp(hdr_of(fn.nd[0].sent[0])->src, A0, 16) == 0);
        fake_net_all_free(&fn);
    }
    /* To our link-local address from a link-local peer: answered out of
     * the port it came in on (no route names one). */
    uint8_t f[128], ll_peer[16] = {0xfe, 0x80, [15] = 0x22}, sn[16], gmac[6] = {0x33, 0x33, 0xff};
    const uint8_t *ll0 = fn.s->iface[0].ll6;
    ip6_solicited_node(ll0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(&fn, 0, f, ns(f, gmac, fake_peer_mac, ll_peer, sn, ll0, fake_peer_mac));
    fake_net_all_free(&fn);
    m[2] = m[3] = 0;
    c = ip6_l4_csum(ll_peer, ll0, IP6_PROTO_ICMP6, m, sizeof(m));
    memcpy(m + 2, &c, 2);
    send_frags6(&fn, ll_peer, ll0, 200, IP6_PROTO_ICMP6, m, sizeof(m), orders[0]);
    uint8_t next = 0;
    CHECK(fn.nd[0].nsent == 3 && collect6(&fn.nd[0], reply, &next) == sizeof(reply));
    CHECK_EQ(ip6_l4_csum(ll0, ll_peer, IP6_PROTO_ICMP6, reply, sizeof(reply)), 0);
    fake_net_all_free(&fn);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=14 eth-tx=14 ip6-rx=14 ip6-local=14 ip6-reasm-ok=4 ip6-frag-tx=12 "
                                        "ip6-tx=14 icmp6-rx=6 icmp6-rx-echo=4 icmp6-tx-echo-reply=4 nd6-rx-ns=2 "
                                        "nd6-tx-na=2"),
             0);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* UDP echo of datagrams that came in fragments: one that fits a buffer
 * once whole (answered from it), one that does not (copied out); both
 * answers longer than the MTU, so fragmented. */
TEST(ip6_udp_echo_of_fragmented_datagrams)
{
    struct fake_net fn;
    setup(&fn);
    CHECK_EQ(udp_echo_start(fn.s, 7), 0);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    static const uint32_t sizes[] = {1600, 3000};
    for (int k = 0; k < 2; k++) {
        static uint8_t u[8 + 3000], back[8 + 3000];
        uint32_t len = 8 + sizes[k];
        u[0] = 0x13, u[1] = 0x88, u[3] = 7, u[4] = (uint8_t)(len >> 8), u[5] = (uint8_t)len, u[6] = u[7] = 0;
        for (uint32_t i = 8; i < len; i++)
            u[i] = (uint8_t)(i + k);
        uint16_t c = ip6_l4_csum(PEER0, A0, IP4_PROTO_UDP, u, len);
        memcpy(u + 6, &c, 2);
        send_frags6(&fn, PEER0, A0, 7, IP4_PROTO_UDP, u, len, (const int[]){1, 0, 2, -1});
        uint8_t next = 0;
        CHECK_EQ(fn.nd[0].nsent, (len + STEP6 - 1) / STEP6);
        CHECK_EQ(collect6(&fn.nd[0], back, &next), len);
        CHECK(next == IP4_PROTO_UDP && back[0] == 0 && back[1] == 7 && back[2] == 0x13 && back[3] == 0x88);
        CHECK(memcmp(back + 8, u + 8, len - 8) == 0);
        CHECK_EQ(ip6_l4_csum(A0, PEER0, IP4_PROTO_UDP, back, len), 0);
        fake_net_all_free(&fn);
    }
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 eth-tx=6 ip6-rx=6 ip6-local=6 ip6-reasm-ok=2 ip6-frag-tx=5 "
                                        "ip6-tx=6 icmp6-rx=1 nd6-rx-ns=1 nd6-tx-na=1 udp-rx=2 udp-tx=2"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* An atomic fragment is the datagram itself (RFC 6946); a middle fragment
 * not a multiple of 8 gets a parameter problem; overlaps drop the whole
 * datagram (RFC 5722); an incomplete one times out with time exceeded
 * code 1, but only when its first fragment came. */
TEST(ip6_fragment_errors)
{
    struct fake_net fn;
    setup(&fn);
    resolve_peer0(&fn);
    fake_net_all_free(&fn);
    uint8_t f[1600], fr[IP6_FRAG_HDR_LEN + 8 + 100] = {IP6_PROTO_ICMP6, 0, 0, 0, 0, 0, 0, 9};
    uint8_t *m = fr + IP6_FRAG_HDR_LEN;
    m[0] = ICMP6_ECHO;
    uint16_t c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, m, 108);
    memcpy(m + 2, &c, 2);
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, sizeof(fr)));
    CHECK(fn.nd[0].nsent == 1 && icmp_ok(fn.nd[0].sent[0]) && icmp_of(fn.nd[0].sent[0])[0] == ICMP6_ECHO_REPLY);
    fake_net_all_free(&fn);

    fr[3] = 1; /* more to come, but 108 bytes is no multiple of 8 */
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, sizeof(fr)));
    CHECK(fn.nd[0].nsent == 1 && icmp_ok(fn.nd[0].sent[0]) && icmp_of(fn.nd[0].sent[0])[0] == ICMP6_PARAM_PROBLEM &&
          icmp_of(fn.nd[0].sent[0])[7] == 4);
    fake_net_all_free(&fn);

    /* A solicitation in an atomic fragment: ignored (RFC 6980 5). */
    uint8_t nsf[IP6_FRAG_HDR_LEN + 24] = {IP6_PROTO_ICMP6, 0, 0, 0, 0, 0, 0, 10, ND6_NS};
    memcpy(nsf + IP6_FRAG_HDR_LEN + 8, A0, 16);
    c = ip6_l4_csum(PEER0, A0, IP6_PROTO_ICMP6, nsf + IP6_FRAG_HDR_LEN, 24);
    memcpy(nsf + IP6_FRAG_HDR_LEN + 2, &c, 2);
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 255, IP6_PROTO_FRAG, nsf, sizeof(nsf)));
    CHECK_EQ(fn.nd[0].nsent, 0);

    static uint8_t big[8 + 3000];
    big[0] = ICMP6_ECHO;
    send_frags6(&fn, PEER0, A0, 20, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){0, -1});
    fr[3] = 8 | 1; /* offset 8: inside the first */
    fr[7] = 20;
    fake_net_input(&fn, 0, f, frame6(f, fake_mac0, fake_peer_mac, PEER0, A0, 64, IP6_PROTO_FRAG, fr, 8 + 104));
    CHECK_EQ(fn.s->reasm.bufs, 0);

    send_frags6(&fn, PEER0, A0, 21, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){0, -1});
    send_frags6(&fn, PEER0, A0, 22, IP6_PROTO_ICMP6, big, sizeof(big), (const int[]){1, -1});
    CHECK_EQ(fn.nd[0].nsent, 0);
    fn.now_ns += REASM_TIMEOUT_NS;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
    int exceeded = 0; /* (besides a probe of PEER0, stale by now) */
    for (uint32_t i = 0; i < fn.nd[0].nsent; i++) {
        const uint8_t *e = icmp_of(fn.nd[0].sent[i]);
        exceeded += icmp_ok(fn.nd[0].sent[i]) && e[0] == ICMP6_TIME_EXCEEDED && e[1] == 1 &&
                    memcmp(e + 8 + 8, PEER0, 16) == 0; /* quoting the first fragment, from PEER0 */
    }
    CHECK_EQ(exceeded, 1);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=8 eth-tx=5 ip6-rx=8 ip6-local=8 ip6-frag-bad=2 ip6-reasm-overlap=1 "
                                        "ip6-reasm-timeout=2 ip6-tx=5 icmp6-rx=2 icmp6-rx-echo=1 "
                                        "icmp6-tx-echo-reply=1 icmp6-tx-error=2 nd6-rx-ns=1 nd6-tx-na=1 nd6-tx-ns=1"),
             0);
    CHECK_EQ(fn.s->reasm.bufs, 0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}

/* ---- Router advertisements (RFC 4861 6.2) ---- */

#define SEC 1000000000ull

/* A router solicitation from src to all routers, hop limit hlim, with a
 * source link-layer address option when mac is set. */
static size_t rs(uint8_t *f, const uint8_t *src, uint8_t hlim, const uint8_t *mac)
{
    static const uint8_t all_routers[16] = {0xff, 0x02, [15] = 2}, gmac[6] = {0x33, 0x33, 0, 0, 0, 2};
    uint8_t m[16] = {ND6_RS};
    if (mac) {
        m[8] = ND6_OPT_SLLA;
        m[9] = 1;
        memcpy(m + 10, mac, 6);
    }
    return frame6(f, gmac, fake_peer_mac, src, all_routers, hlim, IP6_PROTO_ICMP6, m, mac ? 16 : 8);
}

/* p is our advertisement for eth0 (to dst at mac): from the link-local
 * address, hop limit 255; a default router for 1800 s; eth0's MAC and MTU;
 * 2001:db8::/64, on-link and for SLAAC, 30 and 7 days. */
static bool ra_ok(const struct fake_net *fn, const struct pkt *p, const uint8_t *dst, const uint8_t *mac)
{
    static const uint8_t want[64] = {
        ND6_RA, 0, 0, 0, 64, 0, 0x07, 0x08, [16] = ND6_OPT_SLLA, 1, 0x02, 0, 0, 0, 0, 0x01,
        [24] = ND6_OPT_MTU, 1, 0, 0, 0, 0, 0x05, 0xdc, [32] = ND6_OPT_PREFIX, 4, 64, 0xc0, 0, 0x27, 0x8d, 0,
        0, 0x09, 0x3a, 0x80, [48] = 0x20, 0x01, 0x0d, 0xb8};
    const struct ip6_hdr *h = hdr_of(p);
    const uint8_t *m = icmp_of(p);
    return icmp_ok(p) && net_ntohs(h->plen_be) == 64 && h->hlim == 255 && memcmp(h->src, fn->s->iface[0].ll6, 16) == 0 &&
           memcmp(h->dst, dst, 16) == 0 && memcmp(p->data, mac, 6) == 0 && m[0] == want[0] &&
           memcmp(m + 4, want + 4, 60) == 0;
}

TEST(ip6_router_advertisements)
{
    static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1}, all_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
    static const uint8_t ll_peer[16] = {0xfe, 0x80, [15] = 0x22}, unspec[16];
    struct fake_net fn;
    setup(&fn);
    ra6_enable(fn.s, &fn.s->iface[0], true, fn.now_ns);
    /* Unasked: the first within a second, two more at most 16 s apart,
     * then every 200 to 600 s. */
    uint64_t last = fn.now_ns;
    for (int i = 0; i < 6; i++) {
        uint64_t at = net_poll(fn.s, fn.now_ns);
        uint64_t gap = at - last;
        CHECK(i == 0 ? gap < SEC : i < 4 ? gap <= 16 * SEC : gap >= 200 * SEC && gap <= 600 * SEC);
        fn.now_ns = last = at;
        net_poll(fn.s, fn.now_ns);
        net_flush(fn.s);
        CHECK(fn.nd[0].nsent == 1 && ra_ok(&fn, fn.nd[0].sent[0], all_nodes, all_mac));
        fake_net_all_free(&fn);
    }
    uint8_t f[128];
    fake_net_input(&fn, 0, f, rs(f, ll_peer, 255, fake_peer_mac)); /* answered straight back */
    CHECK(fn.nd[0].nsent == 1 && ra_ok(&fn, fn.nd[0].sent[0], ll_peer, fake_peer_mac));
    fake_net_all_free(&fn);
    fn.now_ns += 10 * SEC;
    fake_net_input(&fn, 0, f, rs(f, unspec, 255, NULL)); /* to all nodes */
    CHECK(fn.nd[0].nsent == 1 && ra_ok(&fn, fn.nd[0].sent[0], all_nodes, all_mac));
    fake_net_all_free(&fn);
    fn.now_ns += SEC;
    fake_net_input(&fn, 0, f, rs(f, unspec, 255, NULL)); /* within 3 s: 2 s later */
    CHECK_EQ(fn.nd[0].nsent, 0);
    CHECK_EQ(net_poll(fn.s, fn.now_ns), fn.now_ns + 2 * SEC);
    fn.now_ns += 2 * SEC;
    net_poll(fn.s, fn.now_ns);
    net_flush(fn.s);
    CHECK(fn.nd[0].nsent == 1 && ra_ok(&fn, fn.nd[0].sent[0], all_nodes, all_mac));
    fake_net_all_free(&fn);
    fake_net_input(&fn, 0, f, rs(f, ll_peer, 64, fake_peer_mac));  /* crossed a router */
    fake_net_input(&fn, 0, f, rs(f, unspec, 255, fake_peer_mac)); /* an address for nobody */
    fake_net_input(&fn, 1, f, rs(f, ll_peer, 255, fake_peer_mac)); /* eth1 does not advertise */
    CHECK_EQ(fn.nd[0].nsent + fn.nd[1].nsent, 0);
    CHECK_EQ(fake_expect_counters(fn.s, "eth-rx=6 eth-tx=9 ip6-rx=6 ip6-local=5 ip6-not-for-us=1 ip6-tx=9 "
                                        "icmp6-rx=5 nd6-rx-rs=5 nd6-bad=2 nd6-tx-ra=9"),
             0);
    CHECK(fake_net_all_free(&fn));
    fake_net_free(&fn);
}
