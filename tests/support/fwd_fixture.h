/* SPDX-License-Identifier: MIT */
/* tests/support/fwd_fixture.h: a small router for the forwarding tests and the
 * forwarding fuzz target: the two-port fake stack (fake_netdev.h), a route
 * table, next hops, a struct fwd attached to the stack, and frame builders.
 *
 * Routes:
 *   10.0.0.0/24      connected, eth0        (nh_link0)
 *   10.0.1.0/24      connected, eth1        (nh_link1)
 *   192.168.0.0/16   via 10.0.1.2, eth1     (nh_gw1)
 *   198.51.100.0/24  via 10.0.1.2, eth1, MTU 576 (nh_mtu)
 *   172.16.0.0/12    blackhole              (nh_hole)
 *   203.0.113.0/24   unreachable            (nh_unreach)
 *   100.64.0.0/10    next hop 77, never set (a free entry)
 * Anything else has no route. */
#ifndef TESTS_SUPPORT_FWD_FIXTURE_H
#define TESTS_SUPPORT_FWD_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/fwd/fwd.h"
#include "net/fwd/nexthop.h"
#include "net/route/route4.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/route_alloc.h"

static const uint8_t fwd_peer1_mac[6] = {0x02, 0, 0, 0, 0, 0xbb};

struct fwd_fix {
    struct fake_net fn;
    struct test_alloc alloc;
    struct route4 *rt;
    struct nexthop_table nht;
    struct fwd *f;
    uint32_t nh_link0, nh_link1, nh_gw1, nh_mtu, nh_hole, nh_unreach;
};

static inline uint32_t fwd_fix_nh(struct fwd_fix *x, uint8_t kind, uint8_t port, uint32_t gw_be,
                                  uint16_t mtu)
{
    struct nexthop nh = {.kind = kind, .port = port, .mtu = mtu, .gw_be = gw_be};
    return nexthop_add(&x->nht, &nh);
}

static inline void fwd_fix_route(struct fwd_fix *x, uint8_t a, uint8_t b, unsigned len, uint32_t nh)
{
    route4_add(x->rt, (uint32_t)a << 24 | (uint32_t)b << 16, len, nh);
}

static inline void fwd_fix_init(struct fwd_fix *x, uint32_t nbufs)
{
    memset(x, 0, sizeof(*x));
    fake_net_init(&x->fn, nbufs);
    struct route_cfg cfg = test_route_cfg(&x->alloc);
    x->rt = route4_create(&cfg);
    nexthop_init(&x->nht);
    x->nh_link0 = fwd_fix_nh(x, NEXTHOP_VIA, 0, 0, 0);
    x->nh_link1 = fwd_fix_nh(x, NEXTHOP_VIA, 1, 0, 0);
    x->nh_gw1 = fwd_fix_nh(x, NEXTHOP_VIA, 1, FAKE_PEER1, 0);
    x->nh_mtu = fwd_fix_nh(x, NEXTHOP_VIA, 1, FAKE_PEER1, 576);
    x->nh_hole = fwd_fix_nh(x, NEXTHOP_BLACKHOLE, 0, 0, 0);
    x->nh_unreach = fwd_fix_nh(x, NEXTHOP_UNREACH, 0, 0, 0);
    route4_add(x->rt, 0x0a000000, 24, x->nh_link0);
    route4_add(x->rt, 0x0a000100, 24, x->nh_link1);
    fwd_fix_route(x, 192, 168, 16, x->nh_gw1);
    route4_add(x->rt, 0xc6336400, 24, x->nh_mtu);
    fwd_fix_route(x, 172, 16, 12, x->nh_hole);
    route4_add(x->rt, 0xcb007100, 24, x->nh_unreach);
    fwd_fix_route(x, 100, 64, 10, 77);
    x->f = calloc(1, sizeof(*x->f));
    fwd_init(x->f, x->rt, &x->nht);
    fwd_attach(x->f, x->fn.s);
}

static inline void fwd_fix_free(struct fwd_fix *x)
{
    fake_net_free(&x->fn);
    route4_destroy(x->rt);
    free(x->f);
}

/* Put 10.0.1.2 (fwd_peer1_mac) in eth1's ARP cache; clear what it sent and
 * every counter. */
static inline void fwd_fix_learn_peer1(struct fwd_fix *x)
{
    uint8_t f[64];
    static const uint8_t zero[6];
    size_t n = fake_eth(f, eth_bcast_addr, fwd_peer1_mac, ETH_TYPE_ARP);
    n += fake_arp(f + n, ARP_OP_REQUEST, fwd_peer1_mac, FAKE_PEER1, zero, FAKE_ADDR1);
    fake_net_input(&x->fn, 1, f, n);
    fake_netdev_clear(&x->fn.nd[1]);
    memset(&x->fn.s->ctr, 0, sizeof(x->fn.s->ctr));
    memset(&x->f->ctr, 0, sizeof(x->f->ctr));
}

/* Both peers resolved, counters zero. */
static inline void fwd_fix_learn(struct fwd_fix *x)
{
    fake_net_learn_peer(&x->fn);
    fwd_fix_learn_peer1(x);
}

static inline void fwd_fix_csum_ip(uint8_t *ip)
{
    uint32_t hlen = (uint32_t)(ip[0] & 0xf) * 4;
    ip[10] = ip[11] = 0;
    uint16_t c = fake_csum(ip, hlen, 0);
    ip[10] = (uint8_t)(c >> 8);
    ip[11] = (uint8_t)c;
}

/* A UDP datagram from src to dst with plen payload bytes (a pattern seeded
 * by seed), TTL ttl, frag field frag, in a frame to eth port's MAC from the
 * peer on it. Returns the frame length. */
static inline size_t fwd_fix_frame(uint8_t *buf, uint16_t port, uint32_t src_be, uint32_t dst_be,
                                   uint8_t ttl, uint16_t frag, size_t plen, uint32_t seed)
{
    uint8_t pay[2048];
    for (size_t i = 0; i < plen; i++)
        pay[i] = (uint8_t)(seed * 31 + i * 7);
    size_t n = fake_eth(buf, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac,
                        ETH_TYPE_IP4);
    uint8_t udp[2048];
    size_t u = fake_udp(udp, src_be, dst_be, (uint16_t)(1000 + seed), 9, pay, plen);
    n += fake_ip4(buf + n, src_be, dst_be, IP4_PROTO_UDP, (uint16_t)seed, frag, udp, u);
    buf[14 + 8] = ttl;
    fwd_fix_csum_ip(buf + 14);
    return n;
}

/* Receive frames[i] (lens[i] bytes) on port, one burst through fwd_burst. */
static inline void fwd_fix_burst(struct fwd_fix *x, uint16_t port, uint8_t (*frames)[2048],
                                 const size_t *lens, uint16_t n)
{
    struct pkt *pk[512];
    for (uint16_t i = 0; i < n; i++) {
        pk[i] = fake_net_rx(&x->fn, port, frames[i], lens[i]);
        if (pk[i] == NULL)
            abort();
    }
    fwd_burst(x->f, x->fn.s, pk, n, x->fn.now_ns);
}

/* One frame through fwd_burst. */
static inline void fwd_fix_one(struct fwd_fix *x, uint16_t port, const uint8_t *frame, size_t len)
{
    struct pkt *p = fake_net_rx(&x->fn, port, frame, len);
    if (p == NULL)
        abort();
    fwd_burst(x->f, x->fn.s, &p, 1, x->fn.now_ns);
}

/* The fwd counters: spec "name=value ..."; every other one must be 0. */
static inline int fwd_fix_counters(const struct fwd *f, const char *spec)
{
    return fake_expect_table(&f->ctr, fwd_counter_at, spec);
}

#endif
