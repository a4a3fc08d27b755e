/* SPDX-License-Identifier: MIT */
/* tests/unit/link/router_advertisements.c: router advertisements
 * (RFC 4861 6.2): answers to router solicitations and the periodic ones
 * (net/link/ra6.c). */
#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/ip6_fixture.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"
#include "net/link/ra6.h"
#include "net/ip/udp.h"
#include "apps/udp_echo.h"

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
