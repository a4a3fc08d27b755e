/* SPDX-License-Identifier: MIT */
/* net/net.c: the per-core stack: interfaces, input bursts, output bursts,
 * timers, next-hop choice (net/net.h). */
#include "net.h"

#include "link/arp.h"
#include "core/env.h"
#include "link/eth.h"
#include "ip/ip4.h"
#include "ip/reasm.h"
#include "ip/ip6.h"
#include "ip/ip_jumbo.h"
#include "link/nd6.h"
#include "tcp/tcp.h"
#include "core/wire.h"

void net_stack_init(struct net_stack *s, struct pkt_pool *pool, uint32_t core)
{
    net_memset(s, 0, sizeof(*s));
    s->pool = pool;
    s->core = core;
    s->ip_id = (uint16_t)(core * 0x1000u + 1);
    s->ip6_frag_id = core << 24;
    s->timer_ns = UINT64_MAX;
    s->icmp_limit.rate_per_s = ICMP4_RATE_PER_S;
    s->icmp_limit.burst = ICMP4_BURST;
    s->icmp_limit.credit_ns = (uint64_t)ICMP4_BURST * (1000000000ull / ICMP4_RATE_PER_S);
}

void net_stack_release(struct net_stack *s)
{
    if (s->tcp)
        tcp_release(s->tcp);
    for (uint16_t i = 0; i < s->nports; i++) {
        struct net_iface *ifc = &s->iface[i];
        if (ifc->dev == NULL)
            continue;
        arp_release(s, ifc);
        nd6_release(s, ifc);
        pkt_free_bulk(ifc->tx, ifc->ntx);
        pkt_free_bulk(ifc->tx + NET_TX_BURST, ifc->nfwd);
        ifc->ntx = ifc->nfwd = 0;
    }
    reasm_release(s);
}

int net_iface_add(struct net_stack *s, struct netdev *dev, uint16_t queue, uint32_t addr_be,
                  uint8_t prefix_len)
{
    if (dev->index >= NET_MAX_PORTS || prefix_len > 32)
        return -1;
    struct net_iface *ifc = &s->iface[dev->index];
    if (ifc->dev) { /* again: let go of what the old one held */
        arp_release(s, ifc);
        nd6_release(s, ifc);
        pkt_free_bulk(ifc->tx, ifc->ntx);
        pkt_free_bulk(ifc->tx + NET_TX_BURST, ifc->nfwd);
    }
    uint32_t subifs = ifc->subifs; /* added before: they stay */
    net_memset(ifc, 0, sizeof(*ifc));
    ifc->subifs = subifs;
    ifc->dev = dev;
    ifc->port = dev->index;
    ifc->txport = dev->index;
    ifc->queue = queue;
    ifc->mtu = dev->mtu >= 576 ? dev->mtu : NET_MTU_DEFAULT;
    ifc->addr_be = addr_be;
    ifc->prefix_len = prefix_len;
    ifc->mask_be = prefix_len ? net_htonl(0xffffffffu << (32 - prefix_len)) : 0;
    /* /31 and /32 have no broadcast address (RFC 3021). */
    ifc->bcast_be = prefix_len <= 30 ? (addr_be | ~ifc->mask_be) : 0xffffffffu;
    ip6_linklocal_from_mac(dev->mac, ifc->ll6);
    if (dev->index >= s->nports)
        s->nports = (uint16_t)(dev->index + 1);
    return 0;
}

int net_subif_add(struct net_stack *s, uint16_t port, uint16_t parent, uint16_t outer_vid, uint16_t vid,
                  uint32_t addr_be, uint8_t prefix_len)
{
    struct net_iface *up = net_iface_get(s, parent);
    if (port >= NET_MAX_PORTS || port == parent || up == NULL || up->txport != parent || up->vlan_id ||
        vid == 0 || vid > 4094 || outer_vid > 4094 || s->iface[port].dev || prefix_len > 32)
        return -1;
    struct net_iface *ifc = &s->iface[port];
    net_memset(ifc, 0, sizeof(*ifc));
    ifc->dev = up->dev;
    ifc->port = port;
    ifc->txport = parent;
    ifc->queue = up->queue;
    ifc->mtu = up->mtu;
    ifc->addr_be = addr_be;
    ifc->prefix_len = prefix_len;
    ifc->mask_be = prefix_len ? net_htonl(0xffffffffu << (32 - prefix_len)) : 0;
    ifc->bcast_be = prefix_len <= 30 ? (addr_be | ~ifc->mask_be) : 0xffffffffu;
    ip6_linklocal_from_mac(up->dev->mac, ifc->ll6);
    uint8_t *t = ifc->tags;
    if (outer_vid) { /* IEEE 802.1ad: the service tag outside */
        t[0] = ETH_TYPE_QINQ >> 8, t[1] = ETH_TYPE_QINQ & 0xff;
        t[2] = (uint8_t)(outer_vid >> 8), t[3] = (uint8_t)outer_vid;
        t += 4;
        ifc->ntags++;
    }
    t[0] = ETH_TYPE_VLAN >> 8, t[1] = ETH_TYPE_VLAN & 0xff;
    t[2] = (uint8_t)(vid >> 8), t[3] = (uint8_t)vid;
    ifc->ntags++;
    up->subifs |= 1u << port;
    if (port >= s->nports)
        s->nports = (uint16_t)(port + 1);
    return 0;
}

/* A tag's VID (TCI without priority and DEI: IEEE 802.1Q 9.6). */
static inline uint16_t tag_vid(const uint8_t *tag) { return (uint16_t)((tag[2] & 0x0f) << 8 | tag[3]); }

struct net_iface *net_subif_demux(struct net_stack *s, struct pkt *p)
{
    if (p->port >= NET_MAX_PORTS || s->iface[p->port].subifs == 0 || p->len < ETH_HDR_LEN + ETH_VLAN_LEN)
        return NULL;
    const struct net_iface *up = &s->iface[p->port];
    uint8_t *d = p->data;
    uint16_t t0 = (uint16_t)(d[12] << 8 | d[13]);
    if (t0 != ETH_TYPE_VLAN && t0 != ETH_TYPE_QINQ)
        return NULL;
    uint32_t ntags = 1;
    if (t0 == ETH_TYPE_QINQ) { /* an S-tag: a C-tag must follow */
        if (p->len < ETH_HDR_LEN + 2 * ETH_VLAN_LEN || (d[16] << 8 | d[17]) != ETH_TYPE_VLAN)
            return NULL;
        ntags = 2;
    }
    for (uint32_t m = up->subifs; m; m &= m - 1) {
        struct net_iface *ifc = &s->iface[__builtin_ctz(m)];
        if (ifc->ntags != ntags || tag_vid(ifc->tags) != tag_vid(d + 12) ||
            (ntags == 2 && tag_vid(ifc->tags + 4) != tag_vid(d + 16)))
            continue;
        uint32_t n = 4 * ntags;
        ifc->sub_rx++;
        ifc->sub_rx_bytes += p->len;
        net_memmove(d + n, d, 2 * ETH_ALEN);
        pkt_pull_l2(p, n);
        p->port = ifc->port;
        return ifc;
    }
    return NULL;
}

int net_iface_set_addr6(struct net_stack *s, uint16_t port, const uint8_t *addr, uint8_t plen)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (ifc == NULL || plen > 128)
        return -1;
    ip6_iface_set(ifc, addr, plen);
    return 0;
}

struct net_iface *net_iface_get(struct net_stack *s, uint16_t port)
{
    if (port >= s->nports || s->iface[port].dev == NULL)
        return NULL;
    return &s->iface[port];
}

void net_set_route(struct net_stack *s, net_route_fn fn, void *ctx)
{
    s->route = fn;
    s->route_ctx = ctx;
}

void net_set_forward(struct net_stack *s, net_forward_fn fn, void *ctx)
{
    s->forward = fn;
    s->forward_ctx = ctx;
}

void net_set_arp_seen(struct net_stack *s, net_arp_seen_fn fn, void *ctx)
{
    s->arp_seen = fn;
    s->arp_seen_ctx = ctx;
}

void net_set_route6(struct net_stack *s, net_route6_fn fn, void *ctx)
{
    s->route6 = fn;
    s->route6_ctx = ctx;
}

void net_set_nd6_seen(struct net_stack *s, net_nd6_seen_fn fn, void *ctx)
{
    s->nd6_seen = fn;
    s->nd6_seen_ctx = ctx;
}

void net_input(struct net_stack *s, struct pkt **pkts, uint16_t n, uint64_t now_ns)
{
    for (uint16_t i = 0; i < n; i++) {
        struct pkt *p = pkts[i];
        if (NET_UNLIKELY(p->flags & PKT_F_CHAIN)) { /* a frame over several buffers */
            struct pkt *one = pkt_linearize(s->pool, p);
            if (one == NULL) {
                ip_jumbo_input(s, p, now_ns);
                continue;
            }
            p = one;
        }
        eth_input(s, net_iface_get(s, p->port), p, now_ns);
    }
}

/* The stack's frames b[0..n) the driver did not take, kept for the next
 * flush; b is in ifc->tx, never behind where they go. */
static void tx_keep(struct net_stack *s, struct net_iface *ifc, struct pkt *const *b, uint16_t n)
{
    for (uint16_t i = 0; i < n; i++)
        ifc->tx[i] = b[i];
    ifc->ntx = n;
    ifc->tx_busy = n != 0;
    s->ctr.eth_tx_busy += n != 0;
}

void net_flush_port(struct net_stack *s, struct net_iface *ifc)
{
    uint16_t ns = ifc->ntx, nf = ifc->nfwd, n = (uint16_t)(ns + nf);
    struct pkt **b = ifc->tx;
    if (nf) { /* the stack's frames just in front of the forwarded ones */
        b = ifc->tx + NET_TX_BURST - ns;
        net_memmove(b, ifc->tx, ns * sizeof(*b));
        ifc->nfwd = 0;
    }
    if (n)
        net_tap(s, ifc->port, CAP_TX, b, n, NULL);
    uint16_t sent = n ? netdev_tx_burst(ifc->dev, ifc->queue, b, n) : 0; /* n 0: room again, as far as we know */
    uint16_t kept = sent < ns ? (uint16_t)(ns - sent) : 0;
    tx_keep(s, ifc, b + sent, kept);
    if (NET_UNLIKELY(sent < n - kept)) {
        uint16_t dropped = (uint16_t)(n - sent - kept);
        ifc->tx_busy = true;
        *s->fwd_tx_drop += dropped;
        net_tap(s, ifc->port, CAP_DROP, b + sent + kept, dropped, "fwd-tx-drop");
        pkt_free_bulk(b + sent + kept, dropped);
    }
}

static void flush_ports(struct net_stack *s)
{
    for (uint16_t i = 0; i < s->nports; i++)
        if (s->iface[i].ntx | s->iface[i].nfwd | s->iface[i].tx_busy)
            net_flush_port(s, &s->iface[i]);
}

void net_flush(struct net_stack *s)
{
    flush_ports(s);
    /* TCP waited on a port that has room again: its data, in the same
     * flush. */
    if (s->tcp && (s->tcp->nblocked | s->tcp->nbuf_wait) && tcp_wake(s->tcp))
        flush_ports(s);
}

uint64_t net_poll(struct net_stack *s, uint64_t now_ns)
{
    for (uint16_t i = 0; i < s->nports; i++) {
        struct net_iface *ifc = &s->iface[i];
        if (ifc->dev == NULL || ifc->dev->link_up == ifc->link_up)
            continue;
        ifc->link_up = ifc->dev->link_up;
        if (!ifc->link_up && ifc->ntx) { /* what waited for room will not get it */
            s->ctr.eth_tx_drop += ifc->ntx;
            pkt_free_bulk(ifc->tx, ifc->ntx);
            tx_keep(s, ifc, ifc->tx, 0);
        }
        if (ifc->link_up)
            arp_announce(s, ifc);
    }
    if (now_ns < s->timer_ns)
        return s->timer_ns;
    /* Deadlines asked for while the timers run (an entry made by a packet
     * a timer sent) lower it again. */
    s->timer_ns = UINT64_MAX;
    uint64_t next = reasm_timer(s, now_ns);
    if (s->tcp) {
        uint64_t t = tcp_poll(s->tcp, now_ns);
        if (t < next)
            next = t;
    }
    for (uint16_t i = 0; i < s->nports; i++) {
        if (s->iface[i].dev == NULL)
            continue;
        uint64_t t = arp_timer(s, &s->iface[i], now_ns);
        if (t < next)
            next = t;
        t = nd6_timer(s, &s->iface[i], now_ns);
        if (t < next)
            next = t;
        t = ra6_timer(s, &s->iface[i], now_ns);
        if (t < next)
            next = t;
    }
    net_timer_at(s, next);
    return s->timer_ns;
}

bool net_route(struct net_stack *s, uint32_t dst_be, uint16_t *port, uint32_t *nh_be)
{
    int best = -1;
    for (uint16_t i = 0; i < s->nports; i++) {
        const struct net_iface *ifc = &s->iface[i];
        if (ifc->dev == NULL || ifc->addr_be == 0 || ((dst_be ^ ifc->addr_be) & ifc->mask_be))
            continue;
        if (best < 0 || ifc->prefix_len > s->iface[best].prefix_len)
            best = i;
    }
    if (best >= 0) {
        *port = (uint16_t)best;
        *nh_be = dst_be;
        return true;
    }
    uint32_t gw_be = 0;
    if (s->route == NULL || !s->route(s->route_ctx, dst_be, port, &gw_be))
        return false;
    if (net_iface_get(s, *port) == NULL)
        return false;
    *nh_be = gw_be ? gw_be : dst_be;
    return true;
}

static bool acl_pass(const struct acl_use *u, struct acl_key *k, bool *have, const uint8_t *ip, uint32_t len,
                     bool v6)
{
    if (u->acl == NULL)
        return true;
    if (!v6)
        return acl_use_pass4(u, ip, len);
    if (!*have) {
        acl_key6(k, ip, len);
        *have = true;
    }
    return acl_use_pass(u, k);
}

const char *net_acl_forward(struct net_stack *s, uint16_t in, uint16_t out, const uint8_t *ip, uint32_t len,
                            bool v6)
{
    struct acl_key k;
    bool have = false;
    if (in < NET_MAX_PORTS && !acl_pass(&s->iface[in].acl_in, &k, &have, ip, len, v6)) {
        s->ctr.acl_in_deny++;
        return "acl-in-deny";
    }
    if (out < NET_MAX_PORTS && !acl_pass(&s->iface[out].acl_out, &k, &have, ip, len, v6)) {
        s->ctr.acl_out_deny++;
        return "acl-out-deny";
    }
    return NULL;
}

bool net_acl_control(struct net_stack *s, const uint8_t *ip, uint32_t len, bool v6)
{
    struct acl_key k;
    bool have = false;
    if (acl_pass(&s->acl_control, &k, &have, ip, len, v6))
        return true;
    s->ctr.acl_control_deny++;
    return false;
}

bool net_addr_is_bcast(const struct net_stack *s, uint32_t addr_be)
{
    if (ip4_is_limited_bcast(addr_be))
        return true;
    for (uint16_t i = 0; i < s->nports; i++)
        if (s->iface[i].dev && s->iface[i].addr_be && s->iface[i].bcast_be == addr_be)
            return true;
    return false;
}
