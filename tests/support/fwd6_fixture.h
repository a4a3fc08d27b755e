/* SPDX-License-Identifier: MIT */
/* tests/support/fwd6_fixture.h: IPv6 on the forwarding tests' router
 * (tests/support/fwd_fixture.h), for the unit tests and the forwarding fuzz target. Both
 * ports get an address; one route6 table and its next-hop array serve the
 * fast path (fwd_set_route6) and the stack (net_set_route6), as in
 * apps/router6.c. Frame builders and checks of what was sent;
 * checksums are made byte by byte (fake_csum), apart from net/core/csum.c.
 *
 * Addresses: eth0 2001:db8::1/64, eth1 2001:db8:1::1/64; the peers are ::2
 * on each link (fake_peer_mac, fwd_peer1_mac).
 * Routes (next-hop index):
 *   2001:db8::/64      connected, eth0          (FWD6_NH_LINK0)
 *   2001:db8:1::/64    connected, eth1          (FWD6_NH_LINK1)
 *   2001:db8:99::/48   via 2001:db8:1::2, eth1  (FWD6_NH_GW1)
 *   2001:db8:88::/48   via 2001:db8::2, eth0    (FWD6_NH_GW0)
 *   2001:db8:77::/48   next hop 9, a slot not set (free)
 * Anything else has no route. */
#ifndef TESTS_SUPPORT_FWD6_FIXTURE_H
#define TESTS_SUPPORT_FWD6_FIXTURE_H

#include "net/route/route6.h"
#include "tests/support/fwd_fixture.h"

enum { FWD6_NH_LINK0 = 1, FWD6_NH_LINK1, FWD6_NH_GW1, FWD6_NH_GW0, FWD6_NNH };
#define FWD6_NH_PAST 9

static const uint8_t fwd6_a0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
static const uint8_t fwd6_a1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 1};
static const uint8_t fwd6_peer0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
static const uint8_t fwd6_peer1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 2};
static const uint8_t fwd6_far[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x99, [15] = 9};  /* via peer1 */
static const uint8_t fwd6_far0[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x88, [15] = 9}; /* via peer0 */
static const uint8_t fwd6_past[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x77, [15] = 1};
static const uint8_t fwd6_nowhere[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0x66, [15] = 1};

struct fwd6_fix {
    struct fwd_fix x;
    struct test_alloc alloc6;
    struct route6 *rt6;
    struct fwd_nh6_table nh6;
};

/* The stack's hook on the same table (router6.c's lookup). */
static inline bool fwd6_fix_route(void *ctx, const uint8_t *dst, const uint8_t *hdr, uint16_t *port,
                                  uint8_t *gw)
{
    const struct fwd6_fix *y = ctx;
    const struct fwd_nh6 *nh = fwd_nh6_get(&y->nh6, route6_lookup(y->rt6, dst));
    if (nh && nh->port == FWD_NH6_GROUP)
        nh = fwd_nh6_get(&y->nh6, fwd_nh6_pick(&y->nh6, nh, hdr ? nh_flow_hash6(hdr) : nh_flow_hash_dst(dst, 16)));
    if (nh == NULL)
        return false;
    *port = nh->port;
    memcpy(gw, nh->gw, 16);
    return true;
}

/* The route table and next hops; once, they outlive stacks. */
static inline void fwd6_fix_tables(struct fwd6_fix *y)
{
    static const struct route6_prefix routes[] = {
        {{0x20, 0x01, 0x0d, 0xb8}, 64, FWD6_NH_LINK0},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 1}, 64, FWD6_NH_LINK1},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0x99}, 48, FWD6_NH_GW1},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0x88}, 48, FWD6_NH_GW0},
        {{0x20, 0x01, 0x0d, 0xb8, 0, 0x77}, 48, FWD6_NH_PAST},
    };
    struct route_cfg cfg = test_route_cfg(&y->alloc6);
    static const uint8_t on_link[16];
    y->rt6 = route6_create(&cfg);
    fwd_nh6_init(&y->nh6);
    if (fwd_nh6_add(&y->nh6, 0, on_link) != FWD6_NH_LINK0 || fwd_nh6_add(&y->nh6, 1, on_link) != FWD6_NH_LINK1 ||
        fwd_nh6_add(&y->nh6, 1, fwd6_peer1) != FWD6_NH_GW1 || fwd_nh6_add(&y->nh6, 0, fwd6_peer0) != FWD6_NH_GW0)
        abort();
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
        if (y->rt6 == NULL || route6_add(y->rt6, routes[i].addr, routes[i].len, routes[i].nh) != ROUTE_OK)
            abort();
}

/* Addresses and hooks on a fresh stack and fwd: the IPv6 part of
 * fwd_fix_init, and of a fuzz input's setup. */
static inline void fwd6_fix_attach(struct fwd6_fix *y)
{
    struct net_stack *s = y->x.fn.s;
    net_iface_set_addr6(s, 0, fwd6_a0, 64);
    net_iface_set_addr6(s, 1, fwd6_a1, 64);
    net_set_route6(s, fwd6_fix_route, y);
    fwd_set_route6(y->x.f, y->rt6, &y->nh6);
    fwd_sync(y->x.f, s);
}

static inline void fwd6_fix_init(struct fwd6_fix *y, uint32_t nbufs)
{
    fwd_fix_init(&y->x, nbufs);
    fwd6_fix_tables(y);
    fwd6_fix_attach(y);
}

static inline void fwd6_fix_free(struct fwd6_fix *y)
{
    fwd_fix_free(&y->x);
    route6_destroy(y->rt6);
}

/* The upper-layer checksum of len bytes at l4 from src to dst, next header
 * next, with the pseudo-header of RFC 8200 8.1: the value to store when
 * the field is zero, 0 when it holds the right one. */
static inline uint16_t fwd6_fix_csum(const uint8_t *src, const uint8_t *dst, uint8_t next, const uint8_t *l4,
                                     size_t len)
{
    uint32_t sum = next + (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff);
    for (int i = 0; i < 16; i += 2)
        sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
    return fake_csum(l4, len, sum);
}

/* An IPv6 packet (next header next, len bytes of it at l4; ICMPv6 and UDP
 * get their checksum) from src to dst with hop limit hlim, in a frame to
 * dmac from smac. Returns the frame's length. */
static inline size_t fwd6_fix_ip6(uint8_t *buf, const uint8_t *dmac, const uint8_t *smac, const uint8_t *src,
                                  const uint8_t *dst, uint8_t hlim, uint8_t next, const uint8_t *l4, size_t len)
{
    size_t n = fake_eth(buf, dmac, smac, ETH_TYPE_IP6);
    uint8_t *ip = buf + n, *m = ip + IP6_HDR_LEN;
    memset(ip, 0, 4);
    ip[0] = 0x60;
    ip[4] = (uint8_t)(len >> 8);
    ip[5] = (uint8_t)len;
    ip[6] = next;
    ip[7] = hlim;
    memcpy(ip + 8, src, 16);
    memcpy(ip + 24, dst, 16);
    memmove(m, l4, len);
    size_t at = next == IP6_PROTO_ICMP6 ? 2 : next == IP4_PROTO_UDP ? 6 : 0;
    if (at && len >= at + 2) {
        m[at] = m[at + 1] = 0;
        uint16_t c = fwd6_fix_csum(src, dst, next, m, len);
        m[at] = (uint8_t)(c >> 8);
        m[at + 1] = (uint8_t)c;
    }
    return n + IP6_HDR_LEN + len;
}

/* A UDP datagram from src to dst with plen payload bytes (a pattern seeded
 * by seed, which also picks the traffic class and flow label), hop limit
 * hlim, in a frame to port's MAC from the peer on it. */
static inline size_t fwd6_fix_frame(uint8_t *buf, uint16_t port, const uint8_t *src, const uint8_t *dst,
                                    uint8_t hlim, size_t plen, uint32_t seed)
{
    uint8_t u[2048];
    u[0] = (uint8_t)(seed >> 8);
    u[1] = (uint8_t)seed;
    u[2] = 0;
    u[3] = 9;
    u[4] = (uint8_t)((8 + plen) >> 8);
    u[5] = (uint8_t)(8 + plen);
    for (size_t i = 0; i < plen; i++)
        u[8 + i] = (uint8_t)(seed * 31 + i * 7);
    size_t n = fwd6_fix_ip6(buf, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, src, dst,
                            hlim, IP4_PROTO_UDP, u, 8 + plen);
    buf[14] = (uint8_t)(0x60 | (seed & 0xf));
    buf[15] = (uint8_t)(seed * 37);
    buf[16] = (uint8_t)(seed * 11);
    buf[17] = (uint8_t)(seed * 5 + 1);
    return n;
}

/* A neighbour solicitation for target from src at mac, with its
 * source link-layer option, to target's solicited-node group (RFC 4861
 * 4.3, RFC 4291 2.7.1). */
static inline size_t fwd6_fix_ns(uint8_t *buf, const uint8_t *mac, const uint8_t *src, const uint8_t *target)
{
    uint8_t m[32] = {ND6_NS}, g[16] = {0xff, 0x02, [11] = 1, [12] = 0xff};
    uint8_t gmac[6] = {0x33, 0x33, 0xff, target[13], target[14], target[15]};
    memcpy(m + 8, target, 16);
    m[24] = ND6_OPT_SLLA;
    m[25] = 1;
    memcpy(m + 26, mac, 6);
    memcpy(g + 13, target + 13, 3);
    return fwd6_fix_ip6(buf, gmac, mac, src, g, 255, IP6_PROTO_ICMP6, m, 32);
}

/* A neighbour advertisement from target at mac (its target link-layer
 * option) with flags, to dst at dmac (RFC 4861 4.4). */
static inline size_t fwd6_fix_na(uint8_t *buf, const uint8_t *dmac, const uint8_t *mac, const uint8_t *target,
                                 const uint8_t *dst, uint8_t flags)
{
    uint8_t m[32] = {ND6_NA, 0, 0, 0, flags};
    memcpy(m + 8, target, 16);
    m[24] = ND6_OPT_TLLA;
    m[25] = 1;
    memcpy(m + 26, mac, 6);
    return fwd6_fix_ip6(buf, dmac, mac, target, dst, 255, IP6_PROTO_ICMP6, m, 32);
}

/* A sent frame's IPv6 header, what follows it, its payload length. */
static inline const uint8_t *fwd6_fix_ip_of(const struct pkt *p) { return p->data + ETH_HDR_LEN; }
static inline const uint8_t *fwd6_fix_l4_of(const struct pkt *p) { return p->data + ETH_HDR_LEN + IP6_HDR_LEN; }
static inline uint32_t fwd6_fix_plen_of(const struct pkt *p)
{
    return (uint32_t)(p->data[ETH_HDR_LEN + 4] << 8 | p->data[ETH_HDR_LEN + 5]);
}

/* p is an ICMPv6 message of type and code, its checksum right, from src to
 * dst, framed to mac. */
static inline bool fwd6_fix_is_icmp6(const struct pkt *p, uint8_t type, uint8_t code, const uint8_t *src,
                                     const uint8_t *dst, const uint8_t *mac)
{
    const uint8_t *ip = fwd6_fix_ip_of(p), *m = fwd6_fix_l4_of(p);
    return memcmp(p->data, mac, 6) == 0 && ip[6] == IP6_PROTO_ICMP6 && m[0] == type && m[1] == code &&
           memcmp(ip + 8, src, 16) == 0 && memcmp(ip + 24, dst, 16) == 0 &&
           fwd6_fix_csum(ip + 8, ip + 24, IP6_PROTO_ICMP6, m, fwd6_fix_plen_of(p)) == 0;
}

/* p is an ICMPv6 error (RFC 4443 2.1) of type/code with rest, from src to
 * the peer on eth0, quoting the IPv6 packet of frame orig from its start. */
static inline bool fwd6_fix_is_error(const struct pkt *p, uint8_t type, uint8_t code, uint32_t rest,
                                     const uint8_t *src, const uint8_t *orig, size_t olen)
{
    const uint8_t *m = fwd6_fix_l4_of(p);
    size_t quote = fwd6_fix_plen_of(p) - ICMP6_HDR_LEN, want = olen - ETH_HDR_LEN;
    if (want > IP6_MIN_MTU - IP6_HDR_LEN - ICMP6_HDR_LEN)
        want = IP6_MIN_MTU - IP6_HDR_LEN - ICMP6_HDR_LEN; /* 2.4(c): the error fits the minimum MTU */
    return fwd6_fix_is_icmp6(p, type, code, src, orig + 22, fake_peer_mac) &&
           (uint32_t)(m[4] << 24 | m[5] << 16 | m[6] << 8 | m[7]) == rest && quote == want &&
           memcmp(m + ICMP6_HDR_LEN, orig + ETH_HDR_LEN, quote) == 0;
}

/* An echo request (RFC 4443 4.1) from src to dst, hop limit hlim, in a frame
 * from port's peer. */
static inline size_t fwd6_fix_echo(uint8_t *f, uint16_t port, const uint8_t *src, const uint8_t *dst,
                                   uint8_t hlim)
{
    static const uint8_t m[16] = {ICMP6_ECHO, 0, 0, 0, 0x12, 0x34, 0, 1, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
    return fwd6_fix_ip6(f, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, src, dst, hlim,
                        IP6_PROTO_ICMP6, m, sizeof(m));
}

/* The solicitation we send from src to resolve target: to its
 * solicited-node group (RFC 4861 7.2.2). */
static inline bool fwd6_fix_is_ns(const struct pkt *p, const uint8_t *src, const uint8_t *target)
{
    uint8_t g[16] = {0xff, 0x02, [11] = 1, [12] = 0xff}, gmac[6] = {0x33, 0x33, 0xff};
    memcpy(g + 13, target + 13, 3);
    memcpy(gmac + 3, target + 13, 3);
    return fwd6_fix_is_icmp6(p, ND6_NS, 0, src, g, gmac) && memcmp(fwd6_fix_l4_of(p) + 8, target, 16) == 0;
}

/* The peer on port asks for our address (we learn it, stale) and answers
 * our solicitation (reachable); what we sent and every counter cleared.
 * Before traffic only: zeroing the stack's counters also winds back the
 * neighbour generation fwd6.c compares. */
static inline void fwd6_fix_learn_peer(struct fwd6_fix *y, uint16_t port)
{
    uint8_t f[128];
    const uint8_t *mac = port ? fwd_peer1_mac : fake_peer_mac, *our = port ? fwd6_a1 : fwd6_a0;
    const uint8_t *peer = port ? fwd6_peer1 : fwd6_peer0;
    fake_net_input(&y->x.fn, port, f, fwd6_fix_ns(f, mac, peer, our));
    fake_net_input(&y->x.fn, port, f,
                   fwd6_fix_na(f, port ? fake_mac1 : fake_mac0, mac, peer, our, ND6_NA_SOLICITED | ND6_NA_OVERRIDE));
    fake_netdev_clear(&y->x.fn.nd[port]);
    memset(&y->x.fn.s->ctr, 0, sizeof(y->x.fn.s->ctr));
    memset(&y->x.f->ctr, 0, sizeof(y->x.f->ctr));
}

/* Both peers resolved, for IPv4 and IPv6; counters zero. */
static inline void fwd6_fix_learn(struct fwd6_fix *y)
{
    fwd_fix_learn(&y->x);
    fwd6_fix_learn_peer(y, 0);
    fwd6_fix_learn_peer(y, 1);
}

#ifdef TESTS_UNIT_CHECK_H /* the unit tests, not the fuzz target */
static const uint8_t mac_cc[6] = {0x02, 0, 0, 0, 0, 0xcc}, mac_dd[6] = {0x02, 0, 0, 0, 0, 0xdd};

/* sent is orig (len bytes) forwarded: MACs dst/src, hop limit one less,
 * everything else the same; shorter than 60, zero-padded to 60. */
static inline void check_fwd6(const struct pkt *sent, const uint8_t *orig, size_t len, const uint8_t *dst,
                              const uint8_t *src)
{
    const uint8_t *d = sent->data;
    CHECK_EQ(sent->len, len < 60 ? 60 : len);
    CHECK(memcmp(d, dst, 6) == 0);
    CHECK(memcmp(d + 6, src, 6) == 0);
    CHECK(memcmp(d + 12, orig + 12, 9) == 0); /* type, version .. flow label, length, next */
    CHECK_EQ(d[21], orig[21] - 1);
    CHECK(memcmp(d + 22, orig + 22, len - 22) == 0); /* addresses, payload */
    for (size_t i = len; i < 60; i++)
        CHECK_EQ(d[i], 0);
}
#endif

#endif
