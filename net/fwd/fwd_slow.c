/* SPDX-License-Identifier: MIT */
/* net/fwd/fwd_slow.c: the forwarding slow path (net/fwd/fwd.h), one datagram at a
 * time: directed broadcasts (RFC 2644), TTL expiry (RFC 1812 5.3.1), no
 * route and special next hops (5.2.7.1, ICMP via net/ip/icmp4.h), source-route
 * options (RFC 7126 4.3, 4.4), MTU: fragmentation needed (RFC 1191) or
 * fragmentation (RFC 791 3.2, RFC 1812 5.2.6), then ARP resolution with the
 * stack's bounded queue (arp_output). A jumbo frame's datagram (buffers
 * chained) is fragmented by copy and never left waiting on ARP. */
#include "link/arp.h"
#include "core/csum.h"
#include "core/env.h"
#include "fwd.h"
#include "ip/icmp4.h"
#include "ip/ip4.h"

#define IP4_OPT_COPIED 0x80 /* RFC 791: copy into every fragment */
#define IP4_OPT_LSRR 0x83
#define IP4_OPT_SSRR 0x89

/* Walk the options at opt (len bytes), bounded: stops at EOL or at a
 * malformed length. Returns true if a source-route option is among them;
 * copies those flagged "copied" to out (when not NULL), *out_len bytes. */
static bool walk_options(const uint8_t *opt, uint32_t len, uint8_t *out, uint32_t *out_len)
{
    bool src_route = false;
    uint32_t i = 0, n = 0;
    while (i < len && opt[i] != IP4_OPT_EOL) {
        if (opt[i] == IP4_OPT_NOP) {
            i++;
            continue;
        }
        if (len - i < 2 || opt[i + 1] < 2 || opt[i + 1] > len - i)
            break;
        uint8_t type = opt[i], olen = opt[i + 1];
        src_route |= type == IP4_OPT_LSRR || type == IP4_OPT_SSRR;
        if (out && (type & IP4_OPT_COPIED)) {
            net_memcpy(out + n, opt + i, olen);
            n += olen;
        }
        i += olen;
    }
    if (out_len)
        *out_len = n;
    return src_route;
}

static void send(struct fwd *f, struct net_stack *s, struct pkt *p, uint16_t port, uint32_t nh_be,
                 uint64_t now_ns)
{
    if (NET_UNLIKELY(p->flags & PKT_F_CHAIN) && arp_lookup(s, port, nh_be, now_ns) == NULL) {
        arp_probe(s, port, nh_be, now_ns); /* a jumbo frame cannot wait in ARP's queue: asked, dropped */
        f->ctr.jumbo_slow++;
        pkt_free_frame(p);
        return;
    }
    int rc = arp_output(s, port, nh_be, p, now_ns);
    if (rc < 0) {
        f->ctr.arp_drop++;
        return;
    }
    f->ctr.tx++;
    if (rc == 1)
        f->ctr.arp_queued++;
}

static void set_hdr(struct ip4_hdr *h, uint32_t tot, uint32_t frag)
{
    h->len_be = net_htons((uint16_t)tot);
    h->frag_be = net_htons((uint16_t)frag);
    h->csum = 0;
    h->csum = csum_finish(csum_partial(h, ip4_hdr_len(h), 0));
}

/* RFC 791 3.2 "Fragmentation": p (tot bytes, TTL already decremented, DF
 * clear) in pieces of at most mtu bytes, each payload a multiple of 8 but
 * the last, each in one buffer. The first piece is p itself, cut short and
 * sent last, after the copies of the rest were taken from it (a jumbo
 * frame's is a copy too); later pieces carry only the options flagged
 * "copied". Takes p. */
static void fragment(struct fwd *f, struct net_stack *s, struct pkt *p, uint32_t tot, uint16_t port,
                     uint32_t nh_be, uint32_t mtu, uint64_t now_ns)
{
    struct ip4_hdr *h = (struct ip4_hdr *)p->data;
    uint32_t hlen = ip4_hdr_len(h), plen = tot - hlen, olen;
    uint32_t frag = net_ntohs(h->frag_be), off0 = (frag & IP4_OFF_MASK) * 8;
    uint32_t mf0 = frag & IP4_MF, keep = frag & ~(uint32_t)(IP4_MF | IP4_OFF_MASK);
    uint8_t hdr2[IP4_MAX_HDR_LEN];

    net_memcpy(hdr2, h, IP4_HDR_LEN);
    walk_options(p->data + IP4_HDR_LEN, hlen - IP4_HDR_LEN, hdr2 + IP4_HDR_LEN, &olen);
    while (olen & 3)
        hdr2[IP4_HDR_LEN + olen++] = IP4_OPT_EOL;
    uint32_t hlen2 = IP4_HDR_LEN + olen;
    hdr2[0] = (uint8_t)(0x40 | hlen2 / 4);
    mtu = mtu < PKT_DATA_ROOM ? mtu : PKT_DATA_ROOM;
    uint32_t step1 = (mtu - hlen) & ~7u, step2 = (mtu - hlen2) & ~7u;

    f->ctr.fragmented++;
    for (uint32_t off = step1; off < plen; off += step2) {
        uint32_t n = plen - off < step2 ? plen - off : step2;
        struct pkt *q = pkt_alloc(s->pool);
        if (q == NULL) {
            f->ctr.frag_no_buf++;
            pkt_free_frame(p);
            return;
        }
        net_memcpy(q->data, hdr2, hlen2);
        pkt_frame_read(p, hlen + off, q->data + hlen2, n);
        q->len = (uint16_t)(hlen2 + n);
        q->port = p->port;
        uint32_t more = off + n < plen ? IP4_MF : mf0;
        set_hdr((struct ip4_hdr *)q->data, q->len, keep | more | (off0 + off) / 8);
        f->ctr.frag_tx++;
        send(f, s, q, port, nh_be, now_ns);
    }
    if (p->flags & PKT_F_CHAIN) {
        struct pkt *q = pkt_alloc(s->pool);
        if (q != NULL) {
            pkt_frame_read(p, 0, q->data, hlen + step1);
            q->port = p->port;
        }
        pkt_free_frame(p);
        if ((p = q) == NULL) {
            f->ctr.frag_no_buf++;
            return;
        }
        h = (struct ip4_hdr *)p->data;
    }
    p->len = (uint16_t)(hlen + step1);
    set_hdr(h, p->len, keep | IP4_MF | off0 / 8);
    f->ctr.frag_tx++;
    send(f, s, p, port, nh_be, now_ns);
}

/* The next hop's port and MTU, or NULL when the datagram is dropped here
 * (counted, ICMP sent where RFC 1812 asks for it). */
static struct net_iface *next_hop(struct fwd *f, struct net_stack *s, const struct pkt *p, uint32_t nh,
                                  struct nexthop *e, const char **why, uint64_t now_ns)
{
    *e = nexthop_get(f->nhc.t, nh);
    if (e->kind == NEXTHOP_GROUP) /* ECMP: the fast path's choice for this flow */
        *e = nexthop_get(f->nhc.t, nexthop_group_pick(f->nhc.t, e->gw_be, nh_flow_hash4(p->data)));
    if (nh == ROUTE_NH_NONE) {
        f->ctr.no_route++;
        *why = "fwd-no-route";
        icmp4_send_unreach(s, p, ICMP4_UNREACH_NET, now_ns);
        return NULL;
    }
    if (e->kind == NEXTHOP_BLACKHOLE) {
        f->ctr.blackhole++;
        *why = "fwd-blackhole";
        return NULL;
    }
    if (e->kind == NEXTHOP_UNREACH) {
        f->ctr.unreachable++;
        *why = "fwd-unreachable";
        icmp4_send_unreach(s, p, ICMP4_UNREACH_HOST, now_ns);
        return NULL;
    }
    struct net_iface *ifc = e->kind == NEXTHOP_VIA ? net_iface_get(s, e->port) : NULL;
    if (ifc == NULL) {
        f->ctr.bad_nexthop++;
        *why = "fwd-bad-nexthop";
    }
    return ifc;
}

void fwd_slow(struct fwd *f, struct net_stack *s, struct pkt *p, uint32_t nh, uint64_t now_ns)
{
    struct ip4_hdr *h = (struct ip4_hdr *)p->data;
    uint32_t hlen = ip4_hdr_len(h);
    struct nexthop e;
    const char *why = NULL;

    f->ctr.slow++;
    if (nh == FWD_NH_UNKNOWN && (why = net_acl_forward(s, p->port, NET_ACL_SKIP, p->data, p->len, false)) != NULL)
        goto drop; /* the fast path's frames had theirs (acl_in_burst) */
    if (net_addr_is_bcast(s, h->dst_be)) {
        f->ctr.directed_bcast++;
        why = "fwd-directed-bcast";
        goto drop;
    }
    if (h->ttl <= 1) {
        f->ctr.ttl_expired++;
        why = "fwd-ttl-expired";
        icmp4_send_time_exceeded(s, p, now_ns);
        goto drop;
    }
    if (nh == FWD_NH_UNKNOWN) {
        uint32_t a = net_ntohl(h->dst_be);
        f->lookup4(f->lookup4_ctx, &a, &nh, 1);
    }
    struct net_iface *ifc = next_hop(f, s, p, nh, &e, &why, now_ns);
    if (ifc == NULL || (why = net_acl_forward(s, NET_ACL_SKIP, e.port, p->data, p->len, false)) != NULL)
        goto drop;
    if (hlen > IP4_HDR_LEN) {
        if (walk_options(p->data + IP4_HDR_LEN, hlen - IP4_HDR_LEN, NULL, NULL)) {
            f->ctr.src_route++;
            why = "fwd-src-route";
            goto drop;
        }
        f->ctr.options++;
    }
    uint32_t mtu = e.mtu && e.mtu < ifc->mtu ? e.mtu : ifc->mtu;
    uint32_t nh_be = e.gw_be ? e.gw_be : h->dst_be;
    uint32_t tot = (p->flags & PKT_F_CHAIN) ? net_ntohs(h->len_be) : p->len; /* a jumbo frame's: fwd4.c */
    if (tot > mtu) {
        if (h->frag_be & net_htons(IP4_DF)) {
            f->ctr.frag_needed++;
            why = "fwd-frag-needed";
            icmp4_send_frag_needed(s, p, (uint16_t)mtu, now_ns);
            goto drop;
        }
        fwd_ttl_dec(h);
        if (p->flags & PKT_TX_L4_CSUM) /* left to the NIC by the sender's host: no NIC sums across fragments */
            csum_pkt_finish(p);
        fragment(f, s, p, tot, e.port, nh_be, mtu, now_ns);
        return;
    }
    fwd_ttl_dec(h);
    send(f, s, p, e.port, nh_be, now_ns);
    return;
drop:
    net_tap_drop(s, p->port, p, why);
    pkt_free_frame(p);
}
