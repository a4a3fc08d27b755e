/* SPDX-License-Identifier: MIT */
/* net/fwd/fwd6.c: the IPv6 side of the forwarding fast path (net/fwd/fwd.h): plain
 * transit IPv6 (RFC 8200) is looked up in one batch, its hop limit
 * decremented (section 3: no header checksum to update) and its MACs
 * rewritten, and it leaves with fwd4.c's per-port bursts. What is not plain
 * transit, and the exceptions after the lookup, go to the stack untouched:
 * ip6.c checks them again in full, forwards them one at a time with their
 * ICMPv6 errors, and counts what it drops; a jumbo frame longer than one
 * buffer, which the stack cannot take, gets its too-big error or its
 * neighbour solicitation here (jumbo_exception). */
#include "fwd.h"

#include "core/env.h"
#include "ip/icmp6.h"
#include "ip/ip6.h"
#include "link/nd6.h"

static void lookup6_default(void *ctx, const uint8_t (*addr)[16], uint32_t *nh, uint32_t n)
{
    route6_lookup_burst(ctx, addr, nh, n);
}

void fwd_set_route6(struct fwd *f, const struct route6 *rt6, const struct fwd_nh6_table *nh6)
{
    f->rt6 = rt6;
    f->nh6 = nh6;
    f->nh6_gen = fwd_nh6_gen(nh6);
    net_memset(f->adj6, 0, sizeof(f->adj6)); /* then adj6_flush's bound holds */
    f->adj6_filled = 1;
    if (f->lookup6 == NULL || f->lookup6 == lookup6_default) {
        f->lookup6 = lookup6_default;
        f->lookup6_ctx = (void *)(uintptr_t)rt6; /* route6_lookup_burst takes it const */
    }
}

void fwd_set_lookup6(struct fwd *f, fwd_lookup6_fn fn, void *ctx)
{
    f->lookup6 = fn ? fn : lookup6_default;
    f->lookup6_ctx = fn ? ctx : (void *)(uintptr_t)f->rt6;
}

/* Bit of address a in local6: a hash of all 16 bytes, each half by its
 * own multiplier, so that few addresses share a bit with ours. */
static inline uint32_t local6_bit(const uint8_t *a)
{
    return (uint32_t)((fwd_load64(a) * 0x9e3779b97f4a7c15ull + fwd_load64(a + 8) * 0xc2b2ae3d27d4eb4full) >> 52);
}

/* One of our addresses: a bit test, and on a hit (ours, or one in about
 * 4096 others a port) the exact compare. */
static inline bool is_local6(const struct fwd *f, const uint8_t *a)
{
    uint32_t b = local6_bit(a);
    if (NET_LIKELY(!((f->local6[b >> 6] >> (b & 63)) & 1)))
        return false;
    for (uint32_t i = 0; i < f->nlocal6; i++)
        if (net_memcmp(a, f->local6_addr[i], 16) == 0)
            return true;
    return false;
}

/* The generation of s's neighbour MACs, as nexthop_arp_gen is ARP's: an
 * entry learns or changes its MAC only on input that these count. */
static inline uint64_t nd_gen(const struct net_stack *s)
{
    return s->ctr.nd6_rx_ns + s->ctr.nd6_rx_na + s->ctr.nd6_learned_remote;
}

/* Only [0, adj6_filled) was filled since the last flush (adj6_fill). */
static void adj6_flush(struct fwd *f)
{
    net_memset(f->adj6, 0, f->adj6_filled * sizeof(f->adj6[0]));
    f->adj6_filled = 1;
}

static void local6_add(struct fwd *f, const uint8_t *a)
{
    uint32_t b = local6_bit(a);
    f->local6[b >> 6] |= 1ull << (b & 63);
    net_memcpy(f->local6_addr[f->nlocal6++], a, 16);
}

void fwd6_sync(struct fwd *f, const struct net_stack *s)
{
    f->fast6_ports = 0;
    f->nlocal6 = 0;
    net_memset(f->local6, 0, sizeof(f->local6));
    for (uint16_t i = 0; i < s->nports && i < NET_MAX_PORTS; i++) {
        const struct net_iface *ifc = &s->iface[i];
        if (ifc->dev == NULL || !ifc->has6)
            continue;
        local6_add(f, ifc->addr6);
        if (!ip6_is_unspec(ifc->sra6)) /* answered by the stack (ip6_is_anycast) */
            local6_add(f, ifc->sra6);
        if (f->nh6 && ((f->fast_ports >> i) & 1))
            f->fast6_ports |= 1u << i;
    }
    adj6_flush(f);
}

/* First octets that no plain transit address has: ::/8 (unspecified,
 * loopback, mapped IPv4), fe00::/8 (link-local among them: RFC 4291 2.5.6,
 * never forwarded) and ff00::/8 multicast. */
static inline bool odd6(const uint8_t *a)
{
    uint8_t c = a[0];
    return c == 0 || c == 0xfe || c == 0xff;
}

/* Frame bytes 12..19: EtherType, then version 6 (the class and flow label
 * are not looked at), as a word in memory order. */
static const uint8_t l3_mask6[8] = {0xff, 0xff, 0xf0, 0, 0, 0, 0, 0};
static const uint8_t l3_want6[8] = {0x86, 0xdd, 0x60, 0, 0, 0, 0, 0};

/* Plain transit IPv6: unicast to our MAC on a port with IPv6, a length
 * that fits the frame, no hop-by-hop header (RFC 8200 4.3 leaves it to
 * the stack), hop limit over 1, neither address special nor possibly ours.
 * Trims link padding past the minimum frame, pads a shorter one. */
bool fwd6_classify(const struct fwd *f, struct pkt *p, uint8_t *dst)
{
    const uint8_t *d = p->data, *ip = d + ETH_HDR_LEN;
    uint32_t port = p->port, len = p->len;
    if (port >= NET_MAX_PORTS || !((f->fast6_ports >> port) & 1))
        return false;
    if (!fwd_unicast_to_us(f, d, port) || (fwd_load64(d + 12) & fwd_load64(l3_mask6)) != fwd_load64(l3_want6))
        return false;
    if (NET_UNLIKELY(p->flags & PKT_F_CHAIN))
        len = pkt_frame_len(p);
    uint32_t tot = IP6_HDR_LEN + ((uint32_t)ip[4] << 8 | ip[5]);
    if (tot + ETH_HDR_LEN > len || ip[6] == 0 || ip[7] <= 1)
        return false;
    const uint8_t *src = ip + 8, *dst_ip = ip + 24;
    if (odd6(src) || odd6(dst_ip) || is_local6(f, src) || is_local6(f, dst_ip))
        return false;
    net_memcpy(dst, dst_ip, 16);
    if (NET_UNLIKELY(p->flags & PKT_F_CHAIN)) /* a jumbo frame: forwarded as it came, no padding to trim */
        return tot + ETH_HDR_LEN == len;
    if (NET_UNLIKELY(tot + ETH_HDR_LEN < ETH_MIN_LEN)) {
        if (len < ETH_MIN_LEN)
            net_memset(p->data + len, 0, ETH_MIN_LEN - len);
        tot = ETH_MIN_LEN - ETH_HDR_LEN;
    }
    p->len = (uint16_t)(ETH_HDR_LEN + tot);
    return true;
}

/* Adjacency idx (< FWD_NH6_MAX) from the next hop and s's neighbour
 * cache; SLOW (the stack's) for no next hop (0, a free slot), a port off
 * the fast path, or an unresolved gateway. Like nexthop_cache_fill, it
 * lasts NEXTHOP_ADJ_TTL_NS, and looking the gateway up again then is what
 * keeps its entry fresh. */
static const struct nexthop_adj *adj6_fill(struct fwd *f, struct net_stack *s, uint32_t idx, uint64_t now_ns)
{
    struct nexthop_adj *a = &f->adj6[idx];
    net_memset(a, 0, sizeof(*a));
    a->until_ns = now_ns + NEXTHOP_ADJ_TTL_NS;
    if (idx >= f->adj6_filled)
        f->adj6_filled = idx + 1;
    const struct fwd_nh6 *nh = fwd_nh6_get(f->nh6, idx);
    if (nh == NULL)
        return a;
    if (nh->port == FWD_NH6_GROUP) {
        a->state = NEXTHOP_ADJ_GROUP;
        a->port = (uint16_t)idx; /* the packet's path: fwd6_forward */
        return a;
    }
    struct net_iface *ifc = net_iface_get(s, nh->port);
    if (ifc == NULL || !((f->fast6_ports >> nh->port) & 1))
        return a;
    a->port = nh->port;
    a->tagged = ifc->ntags != 0;
    a->mtu = ifc->mtu;
    net_memcpy(a->eth + ETH_ALEN, &f->mac64[nh->port], ETH_ALEN);
    if (ip6_is_unspec(nh->gw)) {
        a->state = NEXTHOP_ADJ_LINK;
        return a;
    }
    const uint8_t *mac = nd6_lookup(s, ifc, nh->gw, now_ns);
    if (mac) {
        net_memcpy(a->eth, mac, ETH_ALEN);
        a->state = NEXTHOP_ADJ_MAC;
    }
    return a;
}

/* What the stack would do with a jumbo frame off the fast path, which it
 * cannot take in (net_input): packet too big (RFC 8200 5, RFC 4443 3.2)
 * from the first buffer; to a neighbour not yet resolved, a solicitation
 * and a drop (ND's queue holds one-buffer frames); anything else, a drop. */
static void jumbo_exception(struct fwd *f, struct net_stack *s, struct pkt *p, const struct nexthop_adj *a,
                            uint32_t nh, const uint8_t *dst, uint32_t tot, uint64_t now_ns)
{
    const char *why = "fwd-jumbo-slow";
    if (a->mtu && tot > a->mtu) {
        struct pkt view = {.data = p->data + ETH_HDR_LEN, .len = (uint16_t)(p->len - ETH_HDR_LEN), .port = p->port};
        icmp6_send_error(s, &s->iface[p->port], &view, ICMP6_TOO_BIG, 0, a->mtu, now_ns);
        s->ctr.ip6_too_big++;
        why = "ip6-too-big";
    } else {
        const struct fwd_nh6 *e = fwd_nh6_get(f->nh6, nh);
        if (a->state == NEXTHOP_ADJ_LINK || (a->mtu && e))
            nd6_probe(s, &s->iface[a->port], a->state == NEXTHOP_ADJ_LINK ? dst : e->gw, now_ns);
        f->ctr.jumbo_slow++;
    }
    net_tap(s, p->port, CAP_DROP, &p, 1, why);
    pkt_free_frame(p);
}

void fwd6_forward(struct fwd *f, struct net_stack *s, uint32_t n, struct pkt **slow, uint32_t *nslow,
                  uint64_t now_ns)
{
    f->lookup6(f->lookup6_ctx, (const uint8_t(*)[16])f->dst6, f->nh6v, n);
    /* The table's gen after the lookup (nexthop6.h): a slot set again since
     * its adjacency was filled is seen changed before the adjacency is used. */
    uint64_t g = nd_gen(s);
    uint32_t tg = fwd_nh6_gen(f->nh6);
    if (NET_UNLIKELY(g != f->nd6_gen || tg != f->nh6_gen)) {
        adj6_flush(f);
        f->nd6_gen = g;
        f->nh6_gen = tg;
    }
    uint32_t nfast = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct pkt *p = f->fast6[i];
        uint32_t nh = f->nh6v[i] < FWD_NH6_MAX ? f->nh6v[i] : 0; /* 0: no next hop, the stack's */
        const struct nexthop_adj *a = &f->adj6[nh];
        if (NET_UNLIKELY(now_ns >= a->until_ns))
            a = adj6_fill(f, s, nh, now_ns);
        const uint8_t *mac = a->eth;
        if (NET_UNLIKELY(a->state != NEXTHOP_ADJ_MAC)) {
            if (a->state == NEXTHOP_ADJ_GROUP) { /* ECMP: this flow's path */
                const struct fwd_nh6 *e = fwd_nh6_get(f->nh6, nh);
                uint32_t path = e ? fwd_nh6_pick(f->nh6, e, nh_flow_hash6(p->data + ETH_HDR_LEN)) : 0;
                nh = path < FWD_NH6_MAX ? path : 0;
                a = &f->adj6[nh];
                if (NET_UNLIKELY(now_ns >= a->until_ns))
                    a = adj6_fill(f, s, nh, now_ns);
                mac = a->eth;
            }
            if (a->state == NEXTHOP_ADJ_LINK)
                mac = nd6_lookup(s, &s->iface[a->port], f->dst6[i], now_ns);
            else if (a->state != NEXTHOP_ADJ_MAC)
                mac = NULL;
        }
        uint32_t tot = IP6_HDR_LEN + ((uint32_t)p->data[ETH_HDR_LEN + 4] << 8 | p->data[ETH_HDR_LEN + 5]);
        if (NET_UNLIKELY(mac == NULL || tot > a->mtu)) {
            struct pkt *one = p;
            if (NET_UNLIKELY(p->flags & PKT_F_CHAIN) && (one = pkt_linearize(s->pool, p)) == NULL)
                jumbo_exception(f, s, p, a, nh, f->dst6[i], tot, now_ns);
            else
                slow[(*nslow)++] = one; /* as it came: the stack resolves, or sends the ICMPv6 error */
            continue;
        }
        if (!fwd_acl_ok(f, s, p, p->port, a->port, true))
            continue;
        p->data[ETH_HDR_LEN + 7]--; /* hop limit */
        fwd_send_adj(s, a, mac, p);
        nfast++;
    }
    f->ctr.fast += nfast;
    f->ctr.fast6 += nfast;
    f->ctr.tx += nfast;
}
