/* SPDX-License-Identifier: MIT */
/* net/ip/ip4.c: IPv4 input: the RFC 1812 section 5.2.2 header checks, the
 * martian address checks of 5.3.7, fragment sanity (RFC 791 3.2, RFC 1858),
 * and the choice between local delivery, reassembly and forwarding
 * (net/ip/ip4.h). Output is in ip4_output.c.
 *
 * ip4_input first asks whether a datagram is the usual one (is_usual: a
 * plain unicast to the port's address that passes every check, tested
 * without side effects) and delivers it straight away; anything else goes
 * through input_full, the checks in RFC order, which picks the counter. */
#include "ip4.h"

#include "core/csum.h"
#include "core/env.h"
#include "icmp4.h"
#include "reasm.h"
#include "net.h"
#include "tcp/tcp.h"
#include "udp.h"

/* Options are EOL, NOP or type-length-value within the header (RFC 791). */
static bool options_ok(const uint8_t *opt, uint32_t len)
{
    uint32_t i = 0;
    while (i < len) {
        uint8_t type = opt[i];
        if (type == IP4_OPT_EOL)
            return true;
        if (type == IP4_OPT_NOP) {
            i++;
            continue;
        }
        if (len - i < 2 || opt[i + 1] < 2 || opt[i + 1] > len - i)
            return false;
        i += opt[i + 1];
    }
    return true;
}

/* RFC 1812 5.2.2, in its order where the fields allow; trims link padding.
 * False when p is to be dropped (counted). */
static bool header_ok(struct net_stack *s, struct pkt *p)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    uint32_t hlen = 0, tot = 0;

    if (p->len < IP4_HDR_LEN)
        s->ctr.ip4_too_short++;
    else if ((h->ver_ihl >> 4) != 4)
        s->ctr.ip4_bad_version++;
    else if ((hlen = ip4_hdr_len(h)) < IP4_HDR_LEN)
        s->ctr.ip4_bad_ihl++;
    else if (hlen > p->len)
        s->ctr.ip4_truncated++;
    else if (!(p->flags & PKT_RX_IP_CSUM_OK) &&
             !(hlen == IP4_HDR_LEN ? csum_ip4_hdr20_ok(h) : csum_fold(csum_partial(h, hlen, 0)) == 0xffff))
        s->ctr.ip4_bad_checksum++;
    else if ((tot = net_ntohs(h->len_be)) < hlen)
        s->ctr.ip4_bad_length++;
    else if (tot > p->len)
        s->ctr.ip4_truncated++;
    else if (hlen > IP4_HDR_LEN && !options_ok(p->data + IP4_HDR_LEN, hlen - IP4_HDR_LEN))
        s->ctr.ip4_bad_option++;
    else {
        p->len = (uint16_t)tot;
        return true;
    }
    return false;
}

/* RFC 1812 5.3.7: a source no host can have, or one of ours from outside. */
static bool bad_source(const struct net_stack *s, const struct net_iface *ifc, uint32_t src_be)
{
    return ip4_is_zeronet(src_be) || ip4_is_loopback(src_be) || ip4_is_mcast(src_be) ||
           ip4_is_class_e(src_be) || (ifc->addr_be && src_be == ifc->bcast_be) ||
           net_addr_is_local(s, src_be);
}

static bool bad_dest(uint32_t dst_be)
{
    return ip4_is_zeronet(dst_be) || ip4_is_loopback(dst_be) ||
           (ip4_is_class_e(dst_be) && !ip4_is_limited_bcast(dst_be));
}

/* RFC 791 3.2 and RFC 1858: fragments that cannot be part of a datagram. */
static bool frag_ok(struct net_stack *s, const struct ip4_hdr *h, uint32_t tot)
{
    uint32_t hlen = ip4_hdr_len(h), off = ip4_frag_off(h), plen = tot - hlen;

    if (off == 8) /* offset 1: would overwrite a TCP header's flags */
        s->ctr.ip4_frag_tiny++;
    else if (hlen + off + plen > IP4_MAX_LEN)
        s->ctr.ip4_frag_too_big++;
    else if (plen == 0 || (ip4_more_frags(h) && (plen & 7)))
        s->ctr.ip4_frag_bad_len++;
    else
        return true;
    return false;
}

/* No protocol here for it: protocol unreachable (RFC 1122 3.2.2.1). */
static __attribute__((noinline)) void unknown_proto(struct net_stack *s, const struct ip4_rx *rx,
                                                    uint64_t now_ns)
{
    s->ctr.ip4_unknown_proto++;
    icmp4_send_error(s, rx->iph, (uint32_t)(rx->l4 - rx->iph) + rx->l4_len, rx->port, rx->l2_flags,
                     ICMP4_UNREACH, ICMP4_UNREACH_PROTO, 0, now_ns);
    if (rx->pkt)
        pkt_free(rx->pkt);
}

/* ip4_deliver, inlined into input's delivery. */
static inline void deliver(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    if (!net_acl_local_ok(s, rx->iph, (uint32_t)(rx->l4 - rx->iph) + rx->l4_len, false)) {
        if (rx->pkt) {
            net_tap_drop(s, rx->port, rx->pkt, "acl-control-deny");
            pkt_free(rx->pkt);
        }
        return;
    }
    s->ctr.ip4_local++;
    if (NET_LIKELY(rx->proto == IP4_PROTO_TCP) && s->tcp)
        tcp_input(s, rx, now_ns);
    else if (rx->proto == IP4_PROTO_UDP)
        udp_input(s, rx, now_ns);
    else if (rx->proto == IP4_PROTO_ICMP)
        icmp4_input(s, rx, now_ns);
    else
        unknown_proto(s, rx, now_ns);
}

void ip4_deliver(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    deliver(s, rx, now_ns);
}

/* A whole datagram in p, its header checked and hlen long. Takes p. */
static inline void deliver_pkt(struct net_stack *s, struct pkt *p, uint32_t hlen, bool bcast,
                               uint64_t now_ns)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    struct ip4_rx rx = {
        .pkt = p,
        .iph = p->data,
        .l4 = p->data + hlen,
        .l4_len = (uint16_t)(p->len - hlen),
        .port = p->port,
        .src_be = h->src_be,
        .dst_be = h->dst_be,
        .l2_flags = p->user,
        .proto = h->proto,
        .bcast = bcast,
    };
    deliver(s, &rx, now_ns);
}

/* ip4_input for every datagram: header checks, martians, fragments, then
 * delivery, reassembly or the forward hook. Takes p. */
static __attribute__((noinline)) void input_full(struct net_stack *s, struct net_iface *ifc,
                                                 struct pkt *p, uint64_t now_ns)
{
    if (!header_ok(s, p))
        goto drop;
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    uint32_t dst_be = h->dst_be;
    if (bad_source(s, ifc, h->src_be)) {
        s->ctr.ip4_bad_source++;
        goto drop;
    }
    if (bad_dest(dst_be)) {
        s->ctr.ip4_bad_dest++;
        goto drop;
    }
    if (ip4_is_frag(h) && !frag_ok(s, h, p->len))
        goto drop;
    bool bcast = ip4_is_limited_bcast(dst_be) || (ifc->addr_be && dst_be == ifc->bcast_be);
    if (bcast || dst_be == ifc->addr_be || net_addr_is_local(s, dst_be)) {
        if (ip4_is_frag(h))
            reasm_input4(s, p, now_ns);
        else
            deliver_pkt(s, p, ip4_hdr_len(h), bcast, now_ns);
        return;
    }
    if (ip4_is_mcast(dst_be)) {
        s->ctr.ip4_mcast++;
        goto drop;
    }
    if (p->user & (NET_PKT_L2_BCAST | NET_PKT_L2_MCAST)) {
        s->ctr.ip4_l2_bcast++;
        goto drop;
    }
    if (s->forward) {
        s->forward(s->forward_ctx, s, p, now_ns);
        return;
    }
    s->ctr.ip4_not_for_us++;
drop:
    pkt_free(p);
}

/* The first octets bad_source and bad_dest reject (RFC 1812 5.3.7: 0/8,
 * 127/8, 240/4, and 224/4 as a source), one load an address. 255 is marked
 * as a destination too: 255.255.255.255 is not usual either. */
enum { MARTIAN_SRC = 1, MARTIAN_DST = 2 };
static const uint8_t martian_octet[256] = {
    [0] = MARTIAN_SRC | MARTIAN_DST,
    [127] = MARTIAN_SRC | MARTIAN_DST,
    [224 ... 239] = MARTIAN_SRC,
    [240 ... 255] = MARTIAN_SRC | MARTIAN_DST,
};

/* The datagram most of input is: one input_full would deliver as it is,
 * unicast, to this port's address, with a 20-byte header (right version,
 * checksum and length), addresses that pass 5.3.7, not a fragment. False
 * decides nothing: input_full looks again. */
static inline bool is_usual(const struct net_stack *s, const struct net_iface *ifc, const struct pkt *p)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
    const uint8_t *src = (const uint8_t *)&h->src_be, *dst = (const uint8_t *)&h->dst_be;
    uint32_t tot;

    if (p->len < IP4_HDR_LEN || h->ver_ihl != 0x45)
        return false;
    tot = net_ntohs(h->len_be);
    if (tot - IP4_HDR_LEN > p->len - IP4_HDR_LEN) /* tot < 20 wraps */
        return false;
    if (!(p->flags & PKT_RX_IP_CSUM_OK) && !ip4_hdr20_sum_ok(h))
        return false;
    if (ip4_is_frag(h))
        return false;
    if (h->dst_be != ifc->addr_be || h->dst_be == ifc->bcast_be) /* 255.255.255.255 fails below */
        return false;
    if ((martian_octet[src[0]] & MARTIAN_SRC) | (martian_octet[dst[0]] & MARTIAN_DST))
        return false;
    return h->src_be != ifc->bcast_be && !net_addr_is_local(s, h->src_be);
}

void ip4_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    s->ctr.ip4_rx++;
    if (NET_LIKELY(is_usual(s, ifc, p))) {
        const struct ip4_hdr *h = (const struct ip4_hdr *)p->data;
        p->len = net_ntohs(h->len_be); /* trims link padding */
        deliver_pkt(s, p, IP4_HDR_LEN, false, now_ns);
    } else
        input_full(s, ifc, p, now_ns);
}
