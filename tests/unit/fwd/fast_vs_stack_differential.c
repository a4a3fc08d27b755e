/* SPDX-License-Identifier: MIT */
/* tests/unit/fwd/fast_vs_stack_differential.c: the forwarding fast paths (net/fwd/fwd4.c for
 * IPv4, net/fwd/fwd6.c for IPv6) held against the stack's per-packet path they
 * bypass, as DESIGN.md's differential tests hold fast code against a
 * simple reference. Two routers built alike (tests/support/fwd6_fixture.h): "fast" as
 * configured, "ref" with both fast paths off after fwd_sync, so that every
 * frame goes to net_input: eth.c, ip4.c and fwd_hook into fwd_slow.c, or
 * ip6.c's forward(). The same random frames (addresses, hop limits,
 * headers, lengths and link-layer details picked to fall on every check
 * of either path), neighbour events and time steps go into both; after
 * each, each port must have sent the same frames, byte for byte. ICMP
 * errors, solicitations and what a resolution releases are frames too, so
 * the stack's side effects are compared through them; at each time step
 * the neighbour caches too, and at the end of a run the counters and the
 * buffer pools.
 *
 * What may differ, and is not compared:
 * - link padding: a short frame leaves the fast path with its sender's
 *   padding, the stack's with zeros (RFC 894 says nothing of its content):
 *   frames are compared up to the end of their datagram;
 * - order within a burst: the fast path's exceptions reach the stack
 *   after the frames it never took. Runs of one-frame bursts compare
 *   everything; runs of longer bursts compare each burst's frames as a
 *   multiset (so the run's too), keep to addresses that need no
 *   resolution (which packets fill a neighbour's queue would depend on
 *   the order) and ignore the identification of the router's own IPv4
 *   datagrams (ICMP errors take s->ip_id in the order they are made);
 * - time inside NEXTHOP_ADJ_TTL_NS: the fast path trusts an adjacency that
 *   long (docs/fwd.md), so it probes a stale neighbour, refreshes its
 *   life, or notices it forgotten up to that much later than the stack:
 *   the clock moves in steps at least that long;
 * - a datagram too big for the way to a stale neighbour: the fast path
 *   looks the neighbour up (and so refreshes or probes it) before it
 *   sees the MTU, the stack after (known_difference below). Benign: a
 *   refresh a packet later would have caused anyway. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fwd6_fixture.h"

#include "net/ip/ip6.h"
#include "net/link/nd6.h"

#define DUO_BUFS 1024   /* per router: ARP and ND queues hold up to ARP_QUEUE_MAX */
#define BURST_MAX 8
#define SEC 1000000000ull

/* 198.18.0.0/15 (RFC 2544's block) via a gateway nobody answers for but
 * ARP events. */
#define GW_UNRESOLVED NET_IP4(10, 0, 0, 4)

struct frame {
    uint8_t b[2048];
    size_t len;
    uint16_t flags;     /* PKT_RX_IP_CSUM_OK, as a NIC may set it */
};

struct duo {
    struct fwd6_fix fast, ref;
    uint64_t seed, seed0;
    bool bursts;        /* settled addresses only, our IPv4 ids ignored */
    bool ok;            /* no difference yet: a run stops at the first */
    uint64_t step;      /* comparisons so far, for the report */
    const char *what;   /* the last action, for the report */
    struct frame in[BURST_MAX];
    uint16_t nin, in_port;
    uint64_t sent[2][2]; /* [router][port]: frames sent this run */
    struct net_counters s0[2];
    struct fwd_counters f0[2];
};

static uint32_t pick(struct duo *d, uint32_t n)
{
    return (uint32_t)(test_rand(&d->seed) % n);
}

static struct fwd6_fix *router(struct duo *d, int k)
{
    return k ? &d->ref : &d->fast;
}

/* ---- the routers ---- */

static void router_init(struct fwd6_fix *y, bool fast)
{
    fwd6_fix_init(y, DUO_BUFS);
    fwd_fix_route(&y->x, 198, 18, 15, fwd_fix_nh(&y->x, NEXTHOP_VIA, 0, GW_UNRESOLVED, 0));
    fwd6_fix_learn(y);
    y->x.fn.s->iface[1].mtu = IP6_MIN_MTU; /* too big on eth1, for both families */
    fwd_sync(y->x.f, y->x.fn.s);
    if (!fast) {
        y->x.f->fast_ports = y->x.f->plain_ports = 0; /* after fwd_sync, which sets them */
        y->x.f->fast6_ports = 0;
    }
    /* An error costs a nanosecond, a second's worth may go at once: the
     * bucket never runs dry, so it cannot set the two apart. */
    struct icmp4_limit *l = &y->x.fn.s->icmp_limit;
    l->rate_per_s = 1000000000;
    l->burst = 1000000000;
    l->credit_ns = SEC;
}

static struct duo *duo_new(uint64_t seed, bool bursts)
{
    struct duo *d = calloc(1, sizeof(*d));
    if (d == NULL)
        abort();
    router_init(&d->fast, true);
    router_init(&d->ref, false);
    d->seed = d->seed0 = seed;
    d->bursts = bursts;
    d->ok = true;
    for (int k = 0; k < 2; k++) {
        d->s0[k] = router(d, k)->x.fn.s->ctr;
        d->f0[k] = router(d, k)->x.f->ctr;
    }
    return d;
}

static void duo_free(struct duo *d)
{
    fwd6_fix_free(&d->fast);
    fwd6_fix_free(&d->ref);
    free(d);
}

/* ---- comparing what was sent ---- */

/* The bytes of frame p up to the end of its IPv4 or IPv6 datagram or ARP
 * packet: the rest is link padding. */
static uint32_t packet_len(const struct pkt *p)
{
    const uint8_t *d = p->data;
    uint32_t type = (uint32_t)d[12] << 8 | d[13], n = p->len;
    if (type == ETH_TYPE_IP4 && p->len >= ETH_HDR_LEN + IP4_HDR_LEN)
        n = ETH_HDR_LEN + ((uint32_t)d[16] << 8 | d[17]);
    else if (type == ETH_TYPE_IP6 && p->len >= ETH_HDR_LEN + IP6_HDR_LEN)
        n = ETH_HDR_LEN + IP6_HDR_LEN + ((uint32_t)d[18] << 8 | d[19]);
    else if (type == ETH_TYPE_ARP)
        n = ETH_HDR_LEN + ARP_LEN;
    return n < p->len ? n : p->len;
}

/* Frame p as compared: padding zeroed; in bursts, the identification of
 * our own IPv4 datagrams zeroed, and their header checksum once checked. */
static void canonical(const struct duo *d, struct pkt *p)
{
    uint32_t n = packet_len(p), type = (uint32_t)p->data[12] << 8 | p->data[13], src;
    uint8_t *ip = p->data + ETH_HDR_LEN;
    memset(p->data + n, 0, p->len - n);
    if (!d->bursts || type != ETH_TYPE_IP4 || n < ETH_HDR_LEN + IP4_HDR_LEN)
        return;
    memcpy(&src, ip + 12, 4);
    if (src != FAKE_ADDR0 && src != FAKE_ADDR1)
        return;
    CHECK_EQ(fake_csum(ip, (size_t)(ip[0] & 0xf) * 4, 0), 0);
    memset(ip + 4, 0, 2);
    memset(ip + 10, 0, 2);
}

static int frame_cmp(const void *a, const void *b)
{
    const struct pkt *x = *(struct pkt *const *)a, *y = *(struct pkt *const *)b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->data, y->data, x->len);
}

static void dump(const char *who, const uint8_t *b, size_t len)
{
    fprintf(stderr, "    %s, %zu bytes:", who, len);
    for (size_t i = 0; i < len && i < 128; i++)
        fprintf(stderr, "%s%02x", i % 32 ? "" : "\n      ", b[i]);
    fprintf(stderr, "%s\n", len > 128 ? " ..." : "");
}

static void report(struct duo *d, const char *what, uint16_t port)
{
    fprintf(stderr, "  seed %llu, step %llu (%s): %s on eth%u\n", (unsigned long long)d->seed0,
            (unsigned long long)d->step, d->what, what, port);
    for (uint16_t i = 0; i < d->nin; i++)
        dump(d->in_port ? "in on eth1" : "in on eth0", d->in[i].b, d->in[i].len);
}

/* What each port sent since the last call, the same multiset from both
 * routers? The first difference fails the test and ends the run. */
static void duo_compare(struct duo *d)
{
    for (uint16_t port = 0; port < 2; port++) {
        struct fake_netdev *nd[2] = {&d->fast.x.fn.nd[port], &d->ref.x.fn.nd[port]};
        for (int k = 0; k < 2; k++) {
            for (uint32_t i = 0; i < nd[k]->nsent; i++)
                canonical(d, nd[k]->sent[i]);
            qsort(nd[k]->sent, nd[k]->nsent, sizeof(nd[k]->sent[0]), frame_cmp);
            d->sent[k][port] += nd[k]->nsent;
        }
        bool same = nd[0]->nsent == nd[1]->nsent;
        for (uint32_t i = 0; same && i < nd[0]->nsent; i++)
            same = frame_cmp(&nd[0]->sent[i], &nd[1]->sent[i]) == 0;
        if (!same && d->ok) {
            report(d, "sent differently", port);
            for (int k = 0; k < 2; k++)
                for (uint32_t i = 0; i < nd[k]->nsent; i++)
                    dump(k ? "stack sent" : "fast path sent", nd[k]->sent[i]->data, nd[k]->sent[i]->len);
        }
        CHECK(same || !d->ok); /* the first difference fails, once */
        d->ok &= same;
        fake_netdev_clear(nd[0]);
        fake_netdev_clear(nd[1]);
    }
    d->step++;
}

/* d->in[0..n), received on port by both, one fwd_burst each. */
static void duo_burst(struct duo *d, uint16_t port, uint16_t n, const char *what)
{
    for (int k = 0; k < 2; k++) {
        struct fwd6_fix *y = router(d, k);
        struct pkt *p[BURST_MAX];
        for (uint16_t i = 0; i < n; i++) {
            p[i] = fake_net_rx(&y->x.fn, port, d->in[i].b, d->in[i].len);
            if (p[i] == NULL)
                abort();
            p[i]->flags = d->in[i].flags;
        }
        fwd_burst(y->x.f, y->x.fn.s, p, n, y->x.fn.now_ns);
    }
    d->nin = n;
    d->in_port = port;
    d->what = what;
    duo_compare(d);
}

/* ---- neighbour caches ---- */

/* Port's ARP caches in two stacks, entry for entry. */
static bool same_arp(const struct net_stack *x, const struct net_stack *y, uint16_t port)
{
    uint32_t i = 0, j = 0;
    struct arp_info a, b;
    for (;;) {
        bool more = arp_entry_next(x, port, &i, &a);
        if (more != arp_entry_next(y, port, &j, &b))
            return false;
        if (!more)
            return true;
        if (a.ip_be != b.ip_be || memcmp(a.mac, b.mac, 6) != 0 || a.state != b.state || a.qlen != b.qlen ||
            a.expire_ns != b.expire_ns)
            return false;
    }
}

/* The same for the neighbour caches. */
static bool same_nd(const struct net_stack *x, const struct net_stack *y, uint16_t port)
{
    uint32_t i = 0, j = 0;
    struct nd6_entry a, b;
    for (;;) {
        bool more = nd6_entry_next(x, port, &i, &a);
        if (more != nd6_entry_next(y, port, &j, &b))
            return false;
        if (!more)
            return true;
        if (memcmp(a.ip, b.ip, 16) != 0 || memcmp(a.mac, b.mac, 6) != 0 || a.state != b.state ||
            a.tries != b.tries || a.q.len != b.q.len || a.expire_ns != b.expire_ns || a.probe_ns != b.probe_ns)
            return false;
    }
}

static void dump_caches(const struct net_stack *s, uint16_t port, const char *who)
{
    uint32_t i = 0;
    struct arp_info a;
    struct nd6_entry e;
    while (arp_entry_next(s, port, &i, &a))
        fprintf(stderr, "    %s: %08x %s mac ..%02x queue %u expires %llu\n", who, net_ntohl(a.ip_be),
                arp_state_name(a.state), a.mac[5], a.qlen, (unsigned long long)a.expire_ns);
    for (i = 0; nd6_entry_next(s, port, &i, &e);) {
        fprintf(stderr, "    %s: ", who);
        for (int b = 0; b < 16; b++)
            fprintf(stderr, "%02x", e.ip[b]);
        fprintf(stderr, " state %u mac ..%02x tries %u queue %u expires %llu probed %llu\n", e.state, e.mac[5],
                e.tries, e.q.len, (unsigned long long)e.expire_ns, (unsigned long long)e.probe_ns);
    }
}

/* Both routers' ARP and ND caches alike: what decides the frames to
 * come, caught before it shows in them. */
static void check_caches(struct duo *d)
{
    for (uint16_t port = 0; port < 2; port++) {
        bool same = same_arp(d->fast.x.fn.s, d->ref.x.fn.s, port) && same_nd(d->fast.x.fn.s, d->ref.x.fn.s, port);
        if (!same && d->ok) {
            report(d, "neighbour caches differ", port);
            dump_caches(d->fast.x.fn.s, port, "fast path");
            dump_caches(d->ref.x.fn.s, port, "stack");
        }
        CHECK(same || !d->ok);
        d->ok &= same;
    }
}

/* ---- events between frames ---- */

/* The clock on by ns in both, their timers run: retries, give-ups and
 * expiries send frames too. */
static void duo_tick(struct duo *d, uint64_t ns)
{
    for (int k = 0; k < 2; k++) {
        struct fake_net *fn = &router(d, k)->x.fn;
        fn->now_ns += ns;
        net_poll(fn->s, fn->now_ns);
        net_flush(fn->s);
    }
    d->nin = 0;
    d->what = "time step";
    duo_compare(d);
    check_caches(d);
}

/* Steps across every timer of ARP and ND (a retry, the delay before a
 * stale neighbour is probed, reachable to stale, stale to forgotten), none
 * inside an adjacency's life; in bursts only the first three. */
static const uint64_t steps_ns[] = {1 * SEC, 2 * SEC, 5 * SEC, 31 * SEC, 61 * SEC};
_Static_assert(1 * SEC >= NEXTHOP_ADJ_TTL_NS, "no step inside an adjacency's life");

/* A neighbour's MAC: its own, the other peer's, or new ones. */
static const uint8_t *some_mac(struct duo *d)
{
    static const uint8_t *const macs[] = {fake_peer_mac, fwd_peer1_mac, mac_cc, mac_dd};
    return macs[pick(d, 4)];
}

/* On-link hosts on eth0 and eth1 that answer nothing but these events. */
static const uint8_t host6_0[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 3};
static const uint8_t host6_1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 3};
#define HOST4_0 NET_IP4(10, 0, 0, 3)
#define HOST4_1 NET_IP4(10, 0, 1, 3)

/* Word of neighbour ip on port from another core, to both. */
static void duo_learned6(struct duo *d, uint16_t port, const uint8_t *ip, const uint8_t *mac)
{
    for (int k = 0; k < 2; k++) {
        struct fake_net *fn = &router(d, k)->x.fn;
        nd6_learn_remote(fn->s, port, ip, mac, fn->now_ns);
        net_flush(fn->s);
    }
    d->nin = 0;
    d->what = "nd6_learn_remote";
    duo_compare(d);
}

static void duo_learned4(struct duo *d, uint16_t port, uint32_t ip_be, const uint8_t *mac)
{
    for (int k = 0; k < 2; k++) {
        struct fake_net *fn = &router(d, k)->x.fn;
        arp_learn_remote(fn->s, port, ip_be, mac, fn->now_ns);
        net_flush(fn->s);
    }
    d->nin = 0;
    d->what = "arp_learn_remote";
    duo_compare(d);
}

/* A neighbour on a port speaks: an advertisement (router, solicited and
 * override flags at random) or a solicitation for our address, from a MAC
 * that may have changed, or word of it from another core. In bursts only
 * the peers, which stay resolved. */
static void nd_event(struct duo *d)
{
    uint16_t port = (uint16_t)pick(d, 2);
    const uint8_t *who = port ? fwd6_peer1 : fwd6_peer0, *mac = some_mac(d), *our = port ? fwd6_a1 : fwd6_a0;
    struct frame *f = &d->in[0];
    if (!d->bursts && pick(d, 3) == 0)
        who = port ? host6_1 : host6_0;
    f->flags = 0;
    switch (pick(d, 3)) {
    case 0:
        f->len = fwd6_fix_na(f->b, port ? fake_mac1 : fake_mac0, mac, who, our, (uint8_t)(pick(d, 8) << 5));
        duo_burst(d, port, 1, "neighbour advertisement");
        break;
    case 1:
        f->len = fwd6_fix_ns(f->b, mac, who, our);
        duo_burst(d, port, 1, "neighbour solicitation");
        break;
    default:
        duo_learned6(d, port, who, mac);
    }
}

/* The same for ARP: a request for our address (broadcast) or a reply to
 * us, or word from another core; from the peers, else on-link hosts and
 * the gateway of 198.18.0.0/15. */
static void arp_event(struct duo *d)
{
    static const uint8_t zero[6];
    static const uint32_t others[2][2] = {{HOST4_0, GW_UNRESOLVED}, {HOST4_1, HOST4_1}};
    uint16_t port = (uint16_t)pick(d, 2);
    uint32_t who = port ? FAKE_PEER1 : FAKE_PEER, our = port ? FAKE_ADDR1 : FAKE_ADDR0;
    const uint8_t *mac = some_mac(d), *our_mac = port ? fake_mac1 : fake_mac0;
    struct frame *f = &d->in[0];
    if (!d->bursts && pick(d, 2) == 0)
        who = others[port][pick(d, 2)];
    f->flags = 0;
    switch (pick(d, 3)) {
    case 0:
        f->len = fake_eth(f->b, eth_bcast_addr, mac, ETH_TYPE_ARP);
        f->len += fake_arp(f->b + f->len, ARP_OP_REQUEST, mac, who, zero, our);
        duo_burst(d, port, 1, "ARP request");
        break;
    case 1:
        f->len = fake_eth(f->b, our_mac, mac, ETH_TYPE_ARP);
        f->len += fake_arp(f->b + f->len, ARP_OP_REPLY, mac, who, our_mac, our);
        duo_burst(d, port, 1, "ARP reply");
        break;
    default:
        duo_learned4(d, port, who, mac);
    }
}

/* Both peers confirm their addresses, for IPv4 and IPv6: in bursts they
 * stay resolved however the clock moves. */
static void peers_confirm(struct duo *d)
{
    static const uint8_t zero[6];
    struct frame *f = &d->in[0];
    f->flags = 0;
    for (uint16_t port = 0; port < 2; port++) {
        const uint8_t *mac = port ? fwd_peer1_mac : fake_peer_mac, *our_mac = port ? fake_mac1 : fake_mac0;
        f->len = fake_eth(f->b, eth_bcast_addr, mac, ETH_TYPE_ARP);
        f->len += fake_arp(f->b + f->len, ARP_OP_REQUEST, mac, port ? FAKE_PEER1 : FAKE_PEER, zero,
                           port ? FAKE_ADDR1 : FAKE_ADDR0);
        duo_burst(d, port, 1, "peer's ARP request");
        f->len = fwd6_fix_na(f->b, our_mac, mac, port ? fwd6_peer1 : fwd6_peer0, port ? fwd6_a1 : fwd6_a0,
                             ND6_NA_SOLICITED | ND6_NA_OVERRIDE);
        duo_burst(d, port, 1, "peer's advertisement");
    }
}

/* Now and then a neighbour event or a time step, as on a real link. */
static void duo_between(struct duo *d, bool v6)
{
    if (pick(d, 50) == 0) {
        if (v6)
            nd_event(d);
        else
            arp_event(d);
    }
    if (pick(d, 128) == 0) {
        duo_tick(d, steps_ns[pick(d, d->bursts ? 3 : 5)]);
        if (d->bursts)
            peers_confirm(d);
    }
}

/* ---- frames ---- */

/* One frame in three changed at the link layer or in length: the sender's
 * padding, cut short, another IP version, a group, broadcast or another
 * host's destination MAC, a group source, an 802.1Q tag. */
static void mangle_link(struct duo *d, struct frame *f)
{
    uint8_t *b = f->b;
    switch (pick(d, 24)) {
    case 0:
        for (size_t n = 1 + pick(d, 20); n; n--)
            b[f->len++] = (uint8_t)pick(d, 256);
        break;
    case 1:
        f->len -= 1 + pick(d, 8);
        break;
    case 2:
        b[14] = (uint8_t)(pick(d, 16) << 4 | (b[14] & 0xf));
        break;
    case 3:
        b[0] |= 1;
        break;
    case 4:
        memset(b, 0xff, ETH_ALEN);
        break;
    case 5:
        b[0] ^= 2;
        break;
    case 6:
        b[6] |= 1;
        break;
    case 7:
        memmove(b + 16, b + 12, f->len - 12);
        b[12] = ETH_TYPE_VLAN >> 8;
        b[13] = ETH_TYPE_VLAN & 0xff;
        b[14] = 0;
        b[15] = (uint8_t)pick(d, 3); /* VID 0 (priority tag), 1, 2 */
        f->len += ETH_VLAN_LEN;
        break;
    }
}

/* Payload lengths after hdr bytes of IP header: short half the time, else
 * around eth1's MTU (1280, IPv6's minimum) or 198.51.100.0/24's (576), or
 * up to a full frame. */
static size_t some_len(struct duo *d, size_t hdr)
{
    switch (pick(d, 8)) {
    case 0:
    case 1:
        return IP6_MIN_MTU - hdr - 40 + pick(d, 80);
    case 2:
        return 576 - hdr - 30 + pick(d, 60);
    case 3:
        return 1500 - hdr - pick(d, 60);
    default:
        return pick(d, 64);
    }
}

/* ---- IPv6 ---- */

static const uint8_t ll_any[16] = {0xfe, 0x80, [15] = 0xaa};
static const uint8_t ll_ours0[16] = {0xfe, 0x80, [11] = 0xff, [12] = 0xfe, [15] = 1}; /* eth0's, EUI-64 */
static const uint8_t unspec6[16], loop6[16] = {[15] = 1};
static const uint8_t mapped6[16] = {[10] = 0xff, 0xff, 192, 0, 2, 1};
static const uint8_t compat6[16] = {[12] = 10, 0, 0, 1};
static const uint8_t mc_link6[16] = {0xff, 0x02, [15] = 1}, mc_global6[16] = {0xff, 0x0e, [15] = 1};
static const uint8_t site6[16] = {0xfe, 0xc0, [15] = 5};
static const uint8_t anycast1[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1}; /* eth1's subnet-router anycast */

/* Addresses that never need resolving, or stay resolved in bursts (the
 * peers, and what is routed through them); then on-link ones nobody
 * answers for, where one frame comes at a time. */
static const uint8_t *const addrs6[] = {
    fwd6_peer0, fwd6_peer1, fwd6_far, fwd6_far0, fwd6_past, fwd6_nowhere, fwd6_a0, fwd6_a1, ll_any, ll_ours0,
    unspec6, loop6, mapped6, compat6, mc_link6, mc_global6, site6,
    host6_0, host6_1, anycast1,
};
#define SETTLED6 17

static const uint8_t *addr6(struct duo *d)
{
    return addrs6[pick(d, d->bursts ? SETTLED6 : sizeof(addrs6) / sizeof(addrs6[0]))];
}

/* An IPv6 packet from port's peer: half the time from it, half to
 * somewhere routed, else between any two of addrs6; hop limits around 1;
 * UDP, ICMPv6 (echo, errors), a hop-by-hop header (the stack's, RFC 8200
 * 4.3), other extension headers, none; a payload length the frame may not
 * hold. */
static void frame6(struct duo *d, struct frame *f, uint16_t port)
{
    static const uint8_t hlims[] = {0, 1, 2, 2, 64, 64, 255, 255}; /* a quarter expire here */
    static const uint8_t nexts[] = {17, 17, 0, IP6_NO_NEXT, IP6_PROTO_FRAG, IP6_PROTO_ICMP6, 43, 60, 6};
    static const uint8_t icmp6_types[] = {ICMP6_ECHO, ICMP6_ECHO_REPLY, ICMP6_UNREACH, ICMP6_TOO_BIG, 200};
    const uint8_t *src = pick(d, 2) ? addr6(d) : port ? fwd6_peer1 : fwd6_peer0;
    const uint8_t *dst = pick(d, 2) ? addr6(d) : pick(d, 2) ? fwd6_far : fwd6_far0;
    uint8_t next = nexts[pick(d, sizeof(nexts))], l4[1500];
    size_t plen = some_len(d, IP6_HDR_LEN);
    for (size_t i = 0; i < plen; i++)
        l4[i] = (uint8_t)pick(d, 256);
    if (next == 0 && plen >= 8) { /* a well-formed hop-by-hop header: UDP next, a PadN option */
        l4[0] = 17;
        l4[1] = 0;
        l4[2] = 1;
        l4[3] = 4;
    }
    if (next == IP6_PROTO_ICMP6 && plen >= 2) {
        l4[0] = icmp6_types[pick(d, sizeof(icmp6_types))];
        l4[1] = 0; /* code */
    }
    f->len = fwd6_fix_ip6(f->b, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, src, dst,
                          hlims[pick(d, sizeof(hlims))], next, l4, plen);
    f->flags = 0;
    if (pick(d, 16) == 0) {
        f->b[18] = (uint8_t)pick(d, 256);
        f->b[19] = (uint8_t)pick(d, 256);
    }
    mangle_link(d, f);
}

/* ---- IPv4 ---- */

/* Unicast addresses routed every way tests/support/fwd_fixture.h's table routes, martians
 * (RFC 1812 5.3.7), ours and our broadcasts; then on-link hosts and a
 * network address nobody answers for, and what the unresolved gateway
 * routes, where one frame comes at a time. */
static const uint32_t addrs4[] = {
    FAKE_PEER, FAKE_PEER1, NET_IP4(192, 168, 7, 9), NET_IP4(198, 51, 100, 7),
    NET_IP4(172, 16, 0, 1),      /* blackhole */
    NET_IP4(203, 0, 113, 5),     /* unreachable */
    NET_IP4(100, 64, 0, 1),      /* a free next hop */
    NET_IP4(8, 8, 8, 8),         /* no route */
    NET_IP4(0, 1, 2, 3), NET_IP4(127, 0, 0, 1), NET_IP4(224, 0, 0, 1), NET_IP4(239, 1, 2, 3),
    NET_IP4(240, 0, 0, 1), NET_IP4(255, 255, 255, 255), FAKE_ADDR0, FAKE_ADDR1, NET_IP4(10, 0, 0, 255),
    NET_IP4(10, 0, 1, 255),
    HOST4_0, HOST4_1, NET_IP4(10, 0, 1, 0), NET_IP4(198, 18, 0, 1),
};
#define SETTLED4 18

static uint32_t addr4(struct duo *d)
{
    return addrs4[pick(d, d->bursts ? SETTLED4 : sizeof(addrs4) / sizeof(addrs4[0]))];
}

/* Options (RFC 791 3.1) of 4 to 40 bytes, padded with EOL: no-ops, a
 * record route, a loose source route (dropped, RFC 7126 4.3), or bytes at
 * random (some malformed, some copied into fragments). */
static size_t options4(struct duo *d, uint8_t *o)
{
    size_t n = 4 * (1 + pick(d, 10));
    memset(o, IP4_OPT_EOL, n);
    switch (pick(d, 4)) {
    case 0:
        memset(o, IP4_OPT_NOP, n - 1);
        break;
    case 1:
    case 2:
        o[0] = pick(d, 2) ? 7 : 0x83; /* record route, LSRR */
        o[1] = (uint8_t)(n - 1);
        o[2] = 4;
        break;
    default:
        for (size_t i = 0; i < n; i++)
            o[i] = (uint8_t)pick(d, 256);
    }
    return n;
}

/* What an IPv4 datagram with hlen bytes of header carries: UDP, ICMP (an
 * echo request, or an error the router must not answer), or another
 * protocol's bytes. */
static size_t payload4(struct duo *d, uint8_t *l4, uint32_t src, uint32_t dst, uint8_t *proto, size_t hlen)
{
    static const uint8_t icmp_types[] = {ICMP4_ECHO, ICMP4_ECHO_REPLY, ICMP4_UNREACH, ICMP4_TIME_EXCEEDED};
    uint8_t data[1500];
    size_t n = some_len(d, hlen), m = n > 8 ? n - 8 : 0; /* m after a UDP or ICMP header */
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)pick(d, 256);
    switch (pick(d, 4)) {
    case 0:
    case 1:
        *proto = IP4_PROTO_UDP;
        return fake_udp(l4, src, dst, (uint16_t)pick(d, 65536), (uint16_t)pick(d, 65536), data, m);
    case 2:
        *proto = IP4_PROTO_ICMP;
        return fake_icmp(l4, icmp_types[pick(d, 4)], 0, (uint32_t)pick(d, 1u << 31), data, m);
    default:
        *proto = pick(d, 2) ? IP4_PROTO_TCP : 99;
        memcpy(l4, data, n);
        return n;
    }
}

/* An IPv4 datagram from port's peer: half the time from it, half to
 * somewhere routed through eth1, else between any two of addrs4; TTLs
 * around 1; DF or not; fragments, options; a wrong header checksum (that
 * the NIC may claim to have checked), total length or header length. */
static void frame4(struct duo *d, struct frame *f, uint16_t port)
{
    static const uint8_t ttls[] = {0, 1, 2, 2, 64, 64, 255, 255}; /* a quarter expire here */
    uint32_t src = pick(d, 2) ? addr4(d) : port ? FAKE_PEER1 : FAKE_PEER;
    uint32_t dst = pick(d, 2) ? addr4(d) : pick(d, 2) ? NET_IP4(192, 168, 7, 9) : NET_IP4(198, 51, 100, 7);
    uint8_t opt[40], l4[1500], proto, *ip = f->b + ETH_HDR_LEN;
    size_t olen = pick(d, 8) ? 0 : options4(d, opt), hlen = IP4_HDR_LEN + olen;
    size_t n = payload4(d, l4, src, dst, &proto, hlen);
    uint16_t frag = pick(d, 2) ? IP4_DF : 0;
    if (pick(d, 8) == 0)
        frag |= (uint16_t)((pick(d, 2) ? IP4_MF : 0) | pick(d, 200));
    f->len = fake_eth(f->b, port ? fake_mac1 : fake_mac0, port ? fwd_peer1_mac : fake_peer_mac, ETH_TYPE_IP4);
    fake_ip4(ip, src, dst, proto, (uint16_t)pick(d, 65536), frag, NULL, 0);
    ip[0] = (uint8_t)(0x40 | hlen / 4);
    ip[1] = (uint8_t)pick(d, 256); /* TOS */
    ip[2] = (uint8_t)((hlen + n) >> 8);
    ip[3] = (uint8_t)(hlen + n);
    ip[8] = ttls[pick(d, sizeof(ttls))];
    memcpy(ip + IP4_HDR_LEN, opt, olen);
    memcpy(ip + hlen, l4, n);
    f->len += hlen + n;
    switch (pick(d, 32)) {
    case 0:
        ip[2] = (uint8_t)pick(d, 256);
        ip[3] = (uint8_t)pick(d, 256);
        break;
    case 1:
        ip[2] = 0;
        ip[3] = (uint8_t)pick(d, (uint32_t)hlen); /* shorter than its header */
        break;
    case 2:
        ip[0] = (uint8_t)(0x40 | pick(d, 16));
        break;
    }
    fwd_fix_csum_ip(ip);
    if (pick(d, 32) == 0)
        ip[11] ^= (uint8_t)(1 + pick(d, 255));
    f->flags = pick(d, 4) ? 0 : PKT_RX_IP_CSUM_OK;
    mangle_link(d, f);
}

/* ---- a known difference ---- */

/* IPv4 datagram ip too big for the way to a stale ARP entry. */
static bool too_big_to_stale4(struct duo *d, const uint8_t *ip)
{
    uint32_t dst_be, nb_be, mtu, idx = 0, len = (uint32_t)ip[2] << 8 | ip[3];
    struct arp_info a;
    memcpy(&dst_be, ip + 16, 4);
    struct nexthop e = nexthop_get(&d->ref.x.nht, route4_lookup(d->ref.x.rt, net_ntohl(dst_be)));
    if (e.kind != NEXTHOP_VIA)
        return false;
    nb_be = e.gw_be ? e.gw_be : dst_be;
    mtu = d->ref.x.fn.s->iface[e.port].mtu;
    if (e.mtu && e.mtu < mtu)
        mtu = e.mtu;
    while (arp_entry_next(d->ref.x.fn.s, e.port, &idx, &a))
        if (a.ip_be == nb_be)
            return len > mtu && a.state == ARP_STALE;
    return false;
}

/* IPv6 packet ip too big for the way to a stale neighbour. */
static bool too_big_to_stale6(struct duo *d, const uint8_t *ip)
{
    const struct fwd_nh6 *h = fwd_nh6_get(&d->ref.nh6, route6_lookup(d->ref.rt6, ip + 24));
    uint32_t len = IP6_HDR_LEN + ((uint32_t)ip[4] << 8 | ip[5]), idx = 0;
    struct nd6_entry e;
    if (h == NULL)
        return false;
    const uint8_t *nb = ip6_is_unspec(h->gw) ? ip + 24 : h->gw;
    while (nd6_entry_next(d->ref.x.fn.s, h->port, &idx, &e))
        if (memcmp(e.ip, nb, 16) == 0)
            return len > d->ref.x.fn.s->iface[h->port].mtu && e.state == ND6_STALE;
    return false;
}

/* Reported, not yet settled in net/: the fast path looks a packet's next
 * hop up in the neighbour cache before it finds the packet too big (fwd4.c
 * burst, fwd6.c fwd6_forward and adj6_fill), the stack answers too big
 * before it resolves (fwd_slow.c, ip6.c forward), and the lookup acts on a
 * stale entry: an ARP refresh request (arp_lookup), or a probe and
 * another ND6_STALE_NS of life (nd6_lookup). Such frames are not sent. */
static bool known_difference(struct duo *d, const struct frame *f)
{
    uint32_t type = (uint32_t)f->b[12] << 8 | f->b[13];
    if (type == ETH_TYPE_IP4 && f->len >= ETH_HDR_LEN + IP4_HDR_LEN)
        return too_big_to_stale4(d, f->b + ETH_HDR_LEN);
    if (type == ETH_TYPE_IP6 && f->len >= ETH_HDR_LEN + IP6_HDR_LEN)
        return too_big_to_stale6(d, f->b + ETH_HDR_LEN);
    return false;
}

/* ---- runs ---- */

/* Stack counters of the frames the fast path kept from net_input (taken:
 * forwarded, or IPv4 exceptions handed straight to fwd_slow): the stack
 * alone counts those as received, and the forwarded ones (fast, fast6 of
 * them IPv6) as sent. */
static uint64_t bypassed(const char *name, uint64_t taken, uint64_t fast, uint64_t fast6)
{
    if (strcmp(name, "eth-rx") == 0)
        return taken;
    if (strcmp(name, "ip4-rx") == 0)
        return taken - fast6;
    if (strcmp(name, "eth-tx") == 0)
        return fast;
    if (strcmp(name, "ip6-rx") == 0 || strcmp(name, "ip6-forwarded") == 0 || strcmp(name, "ip6-tx") == 0)
        return fast6;
    return 0;
}

/* fwd's counter name for the stack alone, where the fast path's router
 * counted got: every frame to the stack, none fast, all IPv4 transit on
 * the slow path, IPv6 not in fwd-tx; the rest the same. */
static uint64_t fwd_alone(const char *name, uint64_t got, uint64_t taken, uint64_t fast, uint64_t fast6)
{
    if (strcmp(name, "fwd-to-stack") == 0)
        return got + taken;
    if (strcmp(name, "fwd-fast") == 0 || strcmp(name, "fwd-fast6") == 0)
        return 0;
    if (strcmp(name, "fwd-slow") == 0)
        return got + fast - fast6;
    if (strcmp(name, "fwd-tx") == 0)
        return got - fast6;
    return got;
}

/* A counter's rise since then, at offset in a counters struct. */
static uint64_t delta(const void *now, const void *then, size_t offset)
{
    uint64_t a, b;
    memcpy(&a, (const char *)now + offset, 8);
    memcpy(&b, (const char *)then + offset, 8);
    return a - b;
}

/* The run's counters, beside the fast path and alone: the same totals. */
static void check_counters(struct duo *d)
{
    const struct net_counters *s[2] = {&d->fast.x.fn.s->ctr, &d->ref.x.fn.s->ctr};
    const struct fwd_counters *f[2] = {&d->fast.x.f->ctr, &d->ref.x.f->ctr};
    uint64_t fast = f[0]->fast - d->f0[0].fast, fast6 = f[0]->fast6 - d->f0[0].fast6;
    uint64_t taken = f[0]->rx - d->f0[0].rx - (f[0]->to_stack - d->f0[0].to_stack);
    const struct net_counter_desc *c;
    for (size_t i = 0; (c = net_counter_at(i)) != NULL; i++) {
        uint64_t a = delta(s[0], &d->s0[0], c->offset) + bypassed(c->name, taken, fast, fast6);
        uint64_t b = delta(s[1], &d->s0[1], c->offset);
        if (a != b)
            fprintf(stderr, "  %s: %llu with the fast path, %llu alone\n", c->name, (unsigned long long)a,
                    (unsigned long long)b);
        CHECK_EQ(a, b);
    }
    for (size_t i = 0; (c = fwd_counter_at(i)) != NULL; i++) {
        uint64_t a = fwd_alone(c->name, delta(f[0], &d->f0[0], c->offset), taken, fast, fast6);
        uint64_t b = delta(f[1], &d->f0[1], c->offset);
        if (a != b)
            fprintf(stderr, "  %s: %llu with the fast path, %llu alone\n", c->name, (unsigned long long)a,
                    (unsigned long long)b);
        CHECK_EQ(a, b);
    }
    for (int k = 0; k < 2; k++) { /* every frame a port sent: the stack's or the fast path's */
        CHECK_EQ(d->sent[k][0] + d->sent[k][1], s[k]->eth_tx - d->s0[k].eth_tx + f[k]->fast - d->f0[k].fast);
        CHECK_EQ(d->sent[k][0], d->sent[0][0]);
        CHECK_EQ(d->sent[k][1], d->sent[0][1]);
    }
    CHECK_EQ(s[1]->icmp4_rate_limited + s[1]->icmp6_rate_limited, 0);
}

/* Each of names (stack counters) moved in the reference: the frames
 * reached the cases they were made for. */
static void check_reached(const struct duo *d, const char *names)
{
    char name[48];
    int used;
    for (const char *q = names; sscanf(q, " %47s%n", name, &used) == 1; q += used) {
        const struct net_counter_desc *c = net_counter_find(name);
        bool moved = c && delta(&d->ref.x.fn.s->ctr, &d->s0[1], c->offset) != 0;
        if (!moved)
            fprintf(stderr, "  %s never moved\n", name);
        CHECK(moved);
    }
}

/* frames of one family in bursts of 1 to burst_max, each from one port. */
static void duo_run(struct duo *d, bool v6, uint32_t frames, uint16_t burst_max)
{
    for (uint32_t done = 0; done < frames && d->ok;) {
        duo_between(d, v6);
        uint16_t port = (uint16_t)pick(d, 2), n = (uint16_t)(1 + pick(d, burst_max));
        for (uint16_t i = 0; i < n; i++) {
            do {
                if (v6)
                    frame6(d, &d->in[i], port);
                else
                    frame4(d, &d->in[i], port);
            } while (known_difference(d, &d->in[i]));
        }
        duo_burst(d, port, n, "burst");
        done += n;
    }
}

/* The end of a run: caches; then the clock on until every queue is given
 * up and reassembly timed out (what that sends compared too); counters;
 * every buffer back. */
static void duo_finish(struct duo *d)
{
    check_caches(d);
    for (int i = 0; i < 4; i++)
        duo_tick(d, 1 * SEC);
    duo_tick(d, 61 * SEC);
    duo_tick(d, 61 * SEC);
    check_counters(d);
    CHECK(fake_net_all_free(&d->fast.x.fn));
    CHECK(fake_net_all_free(&d->ref.x.fn));
    CHECK(d->ok);
}

/* IPv6 one frame at a time: every address, resolutions, stale and
 * forgotten neighbours, eth1's 1280-byte MTU. */
TEST(fwd_diff6_one_frame_at_a_time)
{
    struct duo *d = duo_new(61, false);
    CHECK(memcmp(d->ref.x.fn.s->iface[0].ll6, ll_ours0, 16) == 0);
    duo_run(d, true, 30000, 1);
    duo_finish(d);
    CHECK(d->fast.x.f->ctr.fast6 > 3000);
    check_reached(d, "ip6-forwarded ip6-hop-limit ip6-no-route ip6-too-big ip6-bad-src ip6-bad-dst "
                     "ip6-bad-length ip6-bad-version ip6-local ip6-not-for-us nd6-tx-ns nd6-tx-na "
                     "nd6-queue-full nd6-failed nd6-learned-remote icmp6-tx-error icmp6-tx-echo-reply "
                     "eth-vlan-drop eth-not-for-us eth-bad-src");
    duo_free(d);
}

/* IPv6 in bursts of up to BURST_MAX, fast and slow mixed. */
TEST(fwd_diff6_bursts)
{
    struct duo *d = duo_new(62, true);
    duo_run(d, true, 15000, BURST_MAX);
    duo_finish(d);
    CHECK(d->fast.x.f->ctr.fast6 > 1500);
    check_reached(d, "ip6-forwarded ip6-hop-limit ip6-no-route ip6-too-big icmp6-tx-error nd6-rx-na");
    duo_free(d);
}

/* IPv4 one frame at a time: martians, TTLs, MTUs of 576 and 1280 (DF:
 * fragmentation needed; else fragments), options, fragments, checksums,
 * special next hops, ARP resolution. */
TEST(fwd_diff4_one_frame_at_a_time)
{
    struct duo *d = duo_new(41, false);
    const struct fwd_counters *c = &d->ref.x.f->ctr;
    duo_run(d, false, 30000, 1);
    duo_finish(d);
    CHECK(d->fast.x.f->ctr.fast > 3000);
    check_reached(d, "ip4-bad-checksum ip4-bad-source ip4-bad-dest ip4-bad-length ip4-truncated ip4-bad-ihl "
                     "ip4-bad-option ip4-mcast ip4-l2-bcast ip4-local arp-tx-request arp-queue-full "
                     "arp-timeout-drop icmp4-tx-unreach icmp4-tx-time-exceeded icmp4-tx-echo-reply "
                     "eth-vlan-drop eth-not-for-us eth-bad-src");
    CHECK(c->frag_needed && c->fragmented && c->options && c->src_route && c->blackhole && c->unreachable &&
          c->bad_nexthop && c->directed_bcast && c->arp_queued);
    duo_free(d);
}

/* IPv4 in bursts of up to BURST_MAX. */
TEST(fwd_diff4_bursts)
{
    struct duo *d = duo_new(42, true);
    const struct fwd_counters *c = &d->ref.x.f->ctr;
    duo_run(d, false, 15000, BURST_MAX);
    duo_finish(d);
    CHECK(d->fast.x.f->ctr.fast > 1500);
    CHECK(c->frag_needed && c->fragmented && c->no_route && c->ttl_expired);
    duo_free(d);
}
