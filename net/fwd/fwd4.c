/* SPDX-License-Identifier: MIT */
/* net/fwd/fwd4.c: the IPv4 forwarding fast path (net/fwd/fwd.h): classify a burst,
 * look it up in one batch, rewrite in place (RFC 1812 5.2.2 checks, 5.3.1
 * TTL, RFC 1624 checksum update), and queue each frame on its port
 * (net_tx_forwarded) for the stack's one flush. The slow path is in fwd_slow.c, IPv6 in fwd6.c. */
#include "fwd.h"

#include "link/arp.h"
#include "core/csum.h"
#include "core/env.h"
#include "ip/ip4.h"

#define PREFETCH_AHEAD 4

static void lookup_default(void *ctx, const uint32_t *addr, uint32_t *nh, uint32_t n)
{
    route4_lookup_burst(ctx, addr, nh, n);
}

void fwd_init(struct fwd *f, const struct route4 *rt4, const struct nexthop_table *nht)
{
    net_memset(f, 0, sizeof(*f));
    f->rt4 = rt4;
    f->lookup4 = lookup_default;
    f->lookup4_ctx = (void *)(uintptr_t)rt4; /* route4_lookup_burst takes it const */
    nexthop_cache_init(&f->nhc, nht);
}

void fwd_set_lookup4(struct fwd *f, fwd_lookup4_fn fn, void *ctx)
{
    f->lookup4 = fn ? fn : lookup_default;
    f->lookup4_ctx = fn ? ctx : (void *)(uintptr_t)f->rt4;
}

void fwd_attach(struct fwd *f, struct net_stack *s)
{
    net_set_forward(s, fwd_hook, f);
    s->fwd_tx_drop = &f->ctr.tx_drop;
    net_set_route(s, fwd_route, f);
    fwd_sync(f, s);
}

static inline uint32_t local_slot(const struct fwd *f, uint32_t a_be)
{
    return (a_be * f->local_mul) >> 22;
}

/* One of our addresses or subnet broadcasts: one load and compare. 0.0.0.0
 * matches an empty slot, but is a martian anyway. */
static inline bool is_local(const struct fwd *f, uint32_t a_be)
{
    return f->local[local_slot(f, a_be)] == a_be;
}

/* Fill local[] with addrs[0..n), trying multipliers until no two collide
 * (at most 64 addresses in 1024 slots: a few tries). False if none would. */
static bool fill_local(struct fwd *f, const uint32_t *addrs, uint32_t n)
{
    uint32_t mul = 0x9e3779b1u;
    for (int tries = 0; tries < 1024; tries++, mul += 0x7f4a7c16u) {
        net_memset(f->local, 0, sizeof(f->local));
        f->local_mul = mul | 1;
        uint32_t i = 0;
        for (; i < n; i++) {
            uint32_t *slot = &f->local[local_slot(f, addrs[i])];
            if (*slot != 0 && *slot != addrs[i])
                break;
            *slot = addrs[i];
        }
        if (i == n)
            return true;
    }
    return false;
}

/* First octets no transit datagram has in its source or destination
 * (RFC 1812 5.3.7: 0/8, 127/8, 224/4 multicast, 240/4 and the limited
 * broadcast): those go to the stack, which sorts them out. */
static bool odd_octet(uint32_t o) { return o == 0 || o == 127 || o >= 224; }

/* fwd.octet from local[]'s n addresses. */
static void fill_octets(struct fwd *f, const uint32_t *addrs, uint32_t n)
{
    for (uint32_t o = 0; o < 256; o++)
        f->octet[o] = odd_octet(o) ? FWD_OCTET_ODD : 0;
    for (uint32_t i = 0; i < n; i++)
        f->octet[((const uint8_t *)&addrs[i])[0]] |= FWD_OCTET_LOCAL; /* network order: the first octet first */
}

void fwd_sync(struct fwd *f, const struct net_stack *s)
{
    uint32_t addrs[2 * NET_MAX_PORTS], n = 0;
    f->fast_ports = f->acl_in_ports = f->acl_out_ports = f->vlan_ports = f->acl4_ports = 0;
    for (uint16_t i = 0; i < s->nports && i < NET_MAX_PORTS; i++) {
        const struct net_iface *ifc = &s->iface[i];
        if (ifc->dev == NULL)
            continue;
        f->mac64[i] = 0;
        net_memcpy(&f->mac64[i], ifc->dev->mac, ETH_ALEN);
        if (ifc->vlan_id == 0)
            f->fast_ports |= 1u << i;
        f->acl_in_ports |= (uint32_t)(ifc->acl_in.acl != NULL) << i;
        f->acl4[i] = ifc->acl_in.acl ? acl_fast4(ifc->acl_in.acl) : NULL;
        f->acl4_ports |= (uint32_t)(f->acl4[i] != NULL) << i;
        f->vlan_ports |= (uint32_t)(ifc->subifs != 0) << i;
        f->acl_out_ports |= (uint32_t)(ifc->acl_out.acl != NULL) << i;
        if (ifc->addr_be) {
            addrs[n++] = ifc->addr_be;
            addrs[n++] = ifc->bcast_be;
        }
    }
    if (!fill_local(f, addrs, n))
        f->fast_ports = 0; /* everything through the stack: slow, but right */
    fill_octets(f, addrs, n);
    f->plain_ports = f->fast_ports & ~f->vlan_ports & ~f->acl4_ports;
    nexthop_cache_flush(&f->nhc);
    fwd6_sync(f, s);
}

bool fwd_route(void *ctx, uint32_t dst_be, uint16_t *port, uint32_t *gw_be)
{
    struct fwd *f = ctx;
    uint32_t a = net_ntohl(dst_be), nh;
    f->lookup4(f->lookup4_ctx, &a, &nh, 1);
    struct nexthop e = nexthop_get(f->nhc.t, nh);
    if (e.kind == NEXTHOP_GROUP)
        e = nexthop_get(f->nhc.t, nexthop_group_pick(f->nhc.t, e.gw_be, nh_flow_hash_dst((const uint8_t *)&dst_be, 4)));
    if (e.kind != NEXTHOP_VIA)
        return false;
    *port = e.port;
    *gw_be = e.gw_be;
    return true;
}

/* Frame bytes 12..19 (EtherType, version/IHL, TOS, total length, id):
 * what to compare, as a word in memory order (fwd_unicast_to_us). */
static const uint8_t l3_mask[8] = {0xff, 0xff, 0xff, 0, 0, 0, 0, 0};
static const uint8_t l3_want[8] = {0x08, 0x00, 0x45, 0, 0, 0, 0, 0}; /* IPv4, 20-byte header */

/* Link padding past the minimum frame cut, a shorter frame padded. */
static inline void trim(struct pkt *p, uint32_t tot)
{
    if (NET_UNLIKELY(tot < ETH_MIN_LEN - ETH_HDR_LEN)) { /* the sender's padding, or ours */
        if (p->len < ETH_MIN_LEN)
            net_memset(p->data + p->len, 0, ETH_MIN_LEN - p->len);
        tot = ETH_MIN_LEN - ETH_HDR_LEN;
    }
    p->len = (uint16_t)(ETH_HDR_LEN + tot);
}

/* Plain transit IPv4 for the fast path: unicast to our MAC on an untagged
 * port, a 20-byte header with a good checksum and length, TTL > 1, not a
 * fragment, no martian and nothing that might be ours. Returns the
 * destination (host order), or 0 to send the frame to the stack, which
 * checks it again in full and counts what it drops (0.0.0.0 is a martian
 * anyway). Trims link padding past the minimum frame, pads a shorter one;
 * a jumbo frame (chain, len bytes in all) is forwarded as it came. Reads
 * the 34 bytes of headers even from a shorter frame: the buffer has room,
 * and the length check rejects it. The port is fast_ports' (classify).
 * Inlined by force: clang left it out of line once it grew, which cost
 * the burst's first loop 0.6 ns a frame (machine E). */
static inline __attribute__((always_inline)) uint32_t transit4(const struct fwd *f, struct pkt *p, uint32_t len,
                                                                  bool chain)
{
    const uint8_t *d = p->data, *ip = d + ETH_HDR_LEN;
    if (!fwd_unicast_to_us(f, d, p->port) || (fwd_load64(d + 12) & fwd_load64(l3_mask)) != fwd_load64(l3_want))
        return 0;
    uint16_t tot_be;
    net_memcpy(&tot_be, ip + 2, 2);
    uint32_t tot = net_ntohs(tot_be);
    if (tot < IP4_HDR_LEN || tot + ETH_HDR_LEN > len || ((ip[6] & 0x3f) | ip[7]) != 0 || ip[8] <= 1)
        return 0; /* bad length, a fragment (MF or an offset), TTL 0 or 1 */
    uint32_t src, dst;
    net_memcpy(&src, ip + 12, 4);
    net_memcpy(&dst, ip + 16, 4);
    uint32_t os = f->octet[ip[12]], od = f->octet[ip[16]];
    if (NET_UNLIKELY(os | od) &&
        (((os | od) & FWD_OCTET_ODD) || (os && is_local(f, src)) || (od && is_local(f, dst))))
        return 0;
    if (!(p->flags & PKT_RX_IP_CSUM_OK) && !csum_ip4_hdr20_ok(ip))
        return 0;
    if (chain)
        return tot + ETH_HDR_LEN == len ? net_ntohl(dst) : 0;
    trim(p, tot);
    return net_ntohl(dst);
}

/* transit4 for any frame on any port; where plain() holds,
 * classify_plain does the same with fewer instructions. */
static uint32_t classify(const struct fwd *f, struct pkt *p)
{
    uint32_t port = p->port;
    if (port >= NET_MAX_PORTS || !((f->fast_ports >> port) & 1))
        return 0;
    bool chain = p->flags & PKT_F_CHAIN;
    return transit4(f, p, chain ? pkt_frame_len(p) : p->len, chain);
}

/* A port of plain_ports, one buffer: classify_plain will do. */
static inline bool plain(const struct fwd *f, const struct pkt *p)
{
    return p->port < NET_MAX_PORTS && ((f->plain_ports >> p->port) & 1) && !(p->flags & PKT_F_CHAIN);
}

static inline uint32_t classify_plain(const struct fwd *f, struct pkt *p)
{
    return transit4(f, p, p->len, false);
}

/* The rest: a port with VLANs (the frame may be a sub-interface's), an
 * input list classified here (the header at hand: see acl_in_burst), a
 * jumbo frame. Out of the loop, which keeps fewer values live without it. */
static __attribute__((noinline)) uint32_t classify_other(struct fwd *f, struct net_stack *s, struct pkt *p,
                                                         uint32_t i)
{
    if ((f->vlan_ports >> (p->port & 31)) & 1)
        net_subif_demux(s, p); /* one of the port's VLANs: untagged, that sub-interface's */
    uint32_t dst = classify(f, p);
    if (dst && ((f->acl4_ports >> p->port) & 1))
        f->acl_bits[i] = acl_fast4_bits(f->acl4[p->port], p->data + ETH_HDR_LEN);
    return dst;
}

/* Off the fast path after the lookup: back to an IPv4 datagram at p->data,
 * as the stack would hand it over (a jumbo frame's length is its header's:
 * its first buffer holds the start). */
static void exception(struct fwd *f, struct net_stack *s, struct pkt *p, uint32_t nh, uint64_t now_ns)
{
    struct pkt *one;
    if (NET_UNLIKELY(p->flags & PKT_F_CHAIN) && (one = pkt_linearize(s->pool, p)) != NULL)
        p = one; /* a chain that fits one buffer (small NIC buffers): the slow path as any other */
    pkt_pull_l2(p, ETH_HDR_LEN);
    if (!(p->flags & PKT_F_CHAIN))
        p->len = net_ntohs(((const struct ip4_hdr *)p->data)->len_be);
    p->l3_off = 0;
    p->user = 0;
    fwd_slow(f, s, p, nh, now_ns);
}

/* The input ports' access lists on the fast path's frames, ahead of the
 * lookup: what they deny leaves fast[] (counted, shown to a capture,
 * freed). A list of at most 63 IPv4 rules was looked up in the loop that
 * read the headers (acl_bits[]) and is only counted here; a longer one
 * classifies in one pass. Returns how many stay. The slow path does not
 * test these frames' input list again (fwd_slow with a known next hop). */
static __attribute__((noinline)) uint32_t acl_in_burst(struct fwd *f, struct net_stack *s, uint32_t nf)
{
    uint64_t deny[FWD_BURST_MAX / 64] = {0}, any = 0;
    for (uint32_t i = 0, j; i < nf; i = j) { /* runs from one port, up to 64: one call each */
        uint16_t port = f->fast[i]->port;
        for (j = i + 1; j < nf && j % 64 && f->fast[j]->port == port; j++)
            ;
        if ((f->acl_in_ports >> port) & 1) {
            const struct acl_use *u = &s->iface[port].acl_in;
            uint64_t d = (f->acl4_ports >> port) & 1 ? acl_use_count4(u, f->acl_bits + i, j - i)
                                                     : acl_use_pass4_burst(u, f->fast + i, j - i, ETH_HDR_LEN);
            deny[i / 64] |= d << (i % 64);
            any |= d;
        }
    }
    if (NET_LIKELY(any == 0))
        return nf;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nf; i++) {
        struct pkt *p = f->fast[i];
        if ((deny[i / 64] >> (i % 64)) & 1) {
            s->ctr.acl_in_deny++;
            net_tap(s, p->port, CAP_DROP, &p, 1, "acl-in-deny");
            pkt_free_frame(p);
            continue;
        }
        f->fast[k] = p;
        f->dst[k++] = f->dst[i];
    }
    return k;
}

/* A burst with frames for the stack (dst[i] 0): the others, their
 * destinations and input lists' rules, to fast[], dst[] and acl_bits[]
 * from the start, in order; the rest to slow[], in order. Returns how
 * many are fast. Branch-free: both arrays take each frame, one index
 * moves on. */
static uint32_t split4(struct fwd *f, struct pkt **pkts, uint32_t n)
{
    uint32_t nf = 0, nslow = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct pkt *p = pkts[i];
        uint32_t dst = f->dst[i];
        f->fast[nf] = p;
        f->dst[nf] = dst;
        f->acl_bits[nf] = f->acl_bits[i];
        f->slow[nslow] = p;
        nf += dst != 0;
        nslow += dst == 0;
    }
    return nf;
}

/* The frames that are not plain transit IPv4 (slow[0..nslow)): plain
 * transit IPv6 (fwd6_classify) to fast6[], in order. Returns how many; the
 * rest stay in slow[], in order, *nslow of them. Apart from the IPv4 loop,
 * which keeps fewer values live without it. */
static uint32_t split6(struct fwd *f, uint32_t *nslow)
{
    uint32_t n6 = 0, k = 0;
    for (uint32_t i = 0; i < *nslow; i++) {
        struct pkt *p = f->slow[i];
        bool v6 = fwd6_classify(f, p, f->dst6[n6]);
        f->fast6[n6] = p; /* both: one index moves on */
        f->slow[k] = p;
        n6 += v6;
        k += !v6;
    }
    *nslow = k;
    return n6;
}

/* A looked-up frame whose adjacency is not plain (a connected
 * destination, unresolved, a tagged port, an output list) or that is too
 * big for it: 1 when it was queued to go out. */
static __attribute__((noinline)) uint32_t forward_other(struct fwd *f, struct net_stack *s, struct pkt *p,
                                                        uint32_t nh, const struct nexthop_adj *a, uint64_t now_ns)
{
    struct ip4_hdr *h = (struct ip4_hdr *)(p->data + ETH_HDR_LEN);
    const uint8_t *mac = a->state == NEXTHOP_ADJ_MAC ? a->eth : NULL;
    if (a->state == NEXTHOP_ADJ_LINK)
        mac = arp_lookup(s, a->port, h->dst_be, now_ns);
    if (mac == NULL || net_ntohs(h->len_be) > a->mtu) {
        exception(f, s, p, nh, now_ns);
        return 0;
    }
    if (!fwd_acl_ok(f, s, p, NET_ACL_SKIP, a->port, false)) /* the input's: acl_in_burst */
        return 0;
    fwd_ttl_dec(h);
    fwd_send_adj(s, a, mac, p);
    return 1;
}

static void burst(struct fwd *f, struct net_stack *s, struct pkt **pkts, uint16_t n, uint64_t now_ns)
{
    uint32_t nf = 0, nf6 = 0, nslow = 0, nfast = 0;

    f->ctr.rx += n;
    for (uint32_t i = 0; i < n; i++) {
        if (i + PREFETCH_AHEAD < n)
            __builtin_prefetch(pkts[i + PREFETCH_AHEAD]->data);
        struct pkt *p = pkts[i];
        uint32_t dst = NET_LIKELY(plain(f, p)) ? classify_plain(f, p) : classify_other(f, s, p, i);
        f->dst[i] = dst;
        nslow += dst == 0;
    }
    if (NET_LIKELY(nslow == 0)) {
        net_memcpy(f->fast, pkts, n * sizeof(*pkts));
        nf = n;
    } else
        nf = split4(f, pkts, n);
    if (nslow && f->fast6_ports)
        nf6 = split6(f, &nslow);
    if (NET_UNLIKELY(f->acl_in_ports) && nf)
        nf = acl_in_burst(f, s, nf);
    if (nf)
        f->lookup4(f->lookup4_ctx, f->dst, f->nh, nf);
    /* After the lookup: a route found through a slot set again since (a
     * next hop freed and reused) is seen with the table's new generation. */
    nexthop_cache_check(&f->nhc, s);
    for (uint32_t i = 0; i < nf; i++) {
        struct pkt *p = f->fast[i];
        uint32_t nh = f->nh[i];
        const struct nexthop_adj *a = nexthop_cache_get(&f->nhc, s, nh < NEXTHOP_MAX ? nh : 0, now_ns);
        uint8_t *d = p->data;
        struct ip4_hdr *h = (struct ip4_hdr *)(d + ETH_HDR_LEN);
        if (NET_UNLIKELY(a->state == NEXTHOP_ADJ_GROUP)) { /* ECMP: this flow's path */
            nh = nexthop_adj_pick(f->nhc.t, a, nh_flow_hash4(d + ETH_HDR_LEN));
            a = nexthop_cache_get(&f->nhc, s, nh, now_ns);
        }
        if (NET_LIKELY(a->plain && net_ntohs(h->len_be) <= a->mtu)) {
            fwd_ttl_dec(h);
            __builtin_memcpy(d, a->eth, 2 * ETH_ALEN);
            net_tx_forwarded(&s->iface[a->port], p);
            nfast++;
            continue;
        }
        nfast += forward_other(f, s, p, nh, a, now_ns);
    }
    f->ctr.fast += nfast;
    f->ctr.tx += nfast;
    if (nf6)
        fwd6_forward(f, s, nf6, f->slow, &nslow, now_ns);
    if (nslow) {
        f->ctr.to_stack += nslow;
        net_input(s, f->slow, (uint16_t)nslow, now_ns);
    }
    net_flush(s); /* each port's queue, the stack's frames and ours, in one tx_burst */
}

void fwd_send_tagged(struct net_stack *s, const struct nexthop_adj *a, const uint8_t *mac, struct pkt *p)
{
    struct net_iface *ifc = &s->iface[a->port];
    uint32_t n = 4u * ifc->ntags;
    uint8_t *d = pkt_push(p, n); /* the EtherType stays where it was, n bytes further in now */
    if (NET_UNLIKELY(d == NULL)) {
        (*s->fwd_tx_drop)++; /* a receive buffer always has the headroom: never */
        pkt_free_frame(p);
        return;
    }
    net_memcpy(d, mac, ETH_ALEN);
    net_memcpy(d + ETH_ALEN, a->eth + ETH_ALEN, ETH_ALEN);
    net_memcpy(d + 2 * ETH_ALEN, ifc->tags, n);
    ifc->sub_tx++;
    ifc->sub_tx_bytes += p->len;
    net_tx_forwarded(&s->iface[ifc->txport], p);
}

void fwd_burst(struct fwd *f, struct net_stack *s, struct pkt **pkts, uint16_t n, uint64_t now_ns)
{
    while (n) {
        uint16_t b = n < FWD_BURST_MAX ? n : FWD_BURST_MAX;
        burst(f, s, pkts, b, now_ns);
        pkts += b;
        n = (uint16_t)(n - b);
    }
}

void fwd_hook(void *ctx, struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    fwd_slow(ctx, s, p, FWD_NH_UNKNOWN, now_ns);
}

static const struct net_counter_desc table[] = {
#define FWD_COUNTER_DESC(field, name) {"fwd", name, offsetof(struct fwd_counters, field)},
    FWD_COUNTERS(FWD_COUNTER_DESC)
#undef FWD_COUNTER_DESC
};

_Static_assert(sizeof(table) / sizeof(table[0]) * sizeof(uint64_t) == sizeof(struct fwd_counters),
               "one table row per counter");

const struct net_counter_desc *fwd_counter_at(size_t i)
{
    return i < sizeof(table) / sizeof(table[0]) ? &table[i] : NULL;
}

const struct net_counter_desc *fwd_counter_find(const char *name)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const char *a = table[i].name, *b = name;
        while (*a && *a == *b) {
            a++;
            b++;
        }
        if (*a == *b)
            return &table[i];
    }
    return NULL;
}
