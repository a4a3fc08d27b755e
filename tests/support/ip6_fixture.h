/* SPDX-License-Identifier: MIT */
/* tests/support/ip6_fixture.h: the IPv6 tests' two-port stack
 * (tests/unit/ip/ip6_nd_icmp6.c, ip6_fragments.c,
 * tests/unit/link/router_advertisements.c): its addresses and routes, and
 * builders and checkers of IPv6, ICMPv6 echo and neighbour discovery
 * frames. Unit tests only: some CHECK as they go. */
#ifndef TESTS_SUPPORT_IP6_FIXTURE_H
#define TESTS_SUPPORT_IP6_FIXTURE_H

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"

static const uint8_t A0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};        /* eth0: 2001:db8::1/64 */
static const uint8_t A1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};  /* eth1: 2001:db8:1::1/64 */
static const uint8_t PEER0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};     /* on eth0 */
static const uint8_t PEER1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2}; /* on eth1 */
static const uint8_t FAR[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99, [15] = 9}; /* routed via PEER1 */
static const uint8_t peer1_mac[6] = {0x02, 0, 0, 0, 0x11, 0x22};

/* Routes, as the router's table has them: the two connected /64s, and
 * 2001:db8:99::/48 via PEER1 on eth1. */
static inline bool route6(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port, uint8_t *gw)
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

static inline void setup(struct fake_net *fn)
{
    fake_net_init(fn, 256);
    net_iface_set_addr6(fn->s, 0, A0, 64);
    net_iface_set_addr6(fn->s, 1, A1, 64);
    net_set_route6(fn->s, route6, NULL);
}

/* An IPv6 packet with next header next (ICMPv6 and UDP get their checksum
 * made) from src to dst, hop limit hlim, in an Ethernet frame to dmac
 * from smac. */
static inline size_t frame6(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
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

static inline size_t echo(uint8_t *f, const uint8_t *dmac, const uint8_t *src, const uint8_t *dst, uint8_t hlim,
                   uint32_t payload)
{
    uint8_t m[1500] = {ICMP6_ECHO, 0, 0, 0, 0x12, 0x34, 0, 1};
    for (uint32_t i = 0; i < payload; i++)
        m[8 + i] = (uint8_t)i;
    return frame6(f, dmac, fake_peer_mac, src, dst, hlim, IP6_PROTO_ICMP6, m, 8 + payload);
}

/* A neighbour solicitation for target from src (with its link-layer
 * address option unless mac is NULL), to dst. */
static inline size_t ns(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
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

static inline size_t na(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src, const uint8_t *dst,
                 const uint8_t *target, uint8_t flags)
{
    uint8_t m[32] = {ND6_NA, 0, 0, 0, flags};
    memcpy(m + 8, target, 16);
    m[24] = ND6_OPT_TLLA;
    m[25] = 1;
    memcpy(m + 26, smac, 6);
    return frame6(f, dmac, smac, src, dst, 255, IP6_PROTO_ICMP6, m, 32);
}

static inline const struct ip6_hdr *hdr_of(const struct pkt *p) { return (const struct ip6_hdr *)(p->data + ETH_HDR_LEN); }
static inline const uint8_t *icmp_of(const struct pkt *p) { return p->data + ETH_HDR_LEN + IP6_HDR_LEN; }

/* The sent frame is an ICMPv6 message with a correct checksum. */
static inline bool icmp_ok(const struct pkt *p)
{
    const struct ip6_hdr *h = hdr_of(p);
    return h->next == IP6_PROTO_ICMP6 &&
           ip6_l4_csum(h->src, h->dst, IP6_PROTO_ICMP6, icmp_of(p), net_ntohs(h->plen_be)) == 0;
}

/* The peer on eth0 asks for our address and learns it; we learn its. */
static inline void resolve_peer0(struct fake_net *fn)
{
    uint8_t f[128], sn[16], gmac[6] = {0x33, 0x33, 0xff};
    ip6_solicited_node(A0, sn);
    memcpy(gmac + 3, sn + 13, 3);
    fake_net_input(fn, 0, f, ns(f, gmac, fake_peer_mac, PEER0, sn, A0, fake_peer_mac));
}

#endif
