/* SPDX-License-Identifier: MIT */
/* net/ip/ip_jumbo.c: a jumbo frame for the router itself (net/ip/ip_jumbo.h). */
#include "ip_jumbo.h"

#include "core/csum.h"
#include "core/env.h"
#include "ip4.h"
#include "ip6.h"
#include "net.h"

/* The IPv4 datagram at d (len bytes) is one ip4_input would deliver as it
 * is: a 20-byte header, right sum and length, unicast to one of ours from
 * a source a host may have (RFC 1812 5.3.7), not a fragment. */
static bool usual4(const struct net_stack *s, const uint8_t *d, uint32_t len, bool sum_ok)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)d;
    return h->ver_ihl == 0x45 && net_ntohs(h->len_be) == len && (sum_ok || csum_ip4_hdr20_ok(h)) &&
           !ip4_is_frag(h) && net_addr_is_local(s, h->dst_be) && !net_addr_is_bcast(s, h->dst_be) &&
           !ip4_is_zeronet(h->src_be) && !ip4_is_loopback(h->src_be) && !ip4_is_mcast(h->src_be) &&
           !ip4_is_class_e(h->src_be) && !net_addr_is_local(s, h->src_be);
}

/* The same for IPv6 (RFC 8200 4: no hop-by-hop options, nor a fragment:
 * those are the stack's per-packet path's). */
static bool usual6(const struct net_stack *s, const uint8_t *d, uint32_t len)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)d;
    return (d[0] >> 4) == 6 && IP6_HDR_LEN + net_ntohs(h->plen_be) == len && h->next != 0 &&
           h->next != IP6_PROTO_FRAG && !ip6_is_mcast(h->dst) && ip6_is_ours(s, h->dst) && !ip6_is_mcast(h->src) &&
           !ip6_is_unspec(h->src);
}

void ip_jumbo_input(struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, p->port);
    const uint8_t *d = p->data;
    uint32_t len = pkt_frame_len(p), type = (uint32_t)(d[12] << 8 | d[13]);
    bool v4 = false, v6 = false;
    if (ifc && ifc->vlan_id == 0 && p->len >= ETH_HDR_LEN + IP6_HDR_LEN && len <= sizeof s->reasm.buf &&
        net_memcmp(d, ifc->dev->mac, ETH_ALEN) == 0) {
        v4 = type == ETH_TYPE_IP4 && usual4(s, d + ETH_HDR_LEN, len - ETH_HDR_LEN, p->flags & PKT_RX_IP_CSUM_OK);
        v6 = type == ETH_TYPE_IP6 && ifc->has6 && usual6(s, d + ETH_HDR_LEN, len - ETH_HDR_LEN);
    }
    if (!v4 && !v6) {
        s->ctr.eth_jumbo_drop++;
        net_tap(s, p->port, CAP_DROP, &p, 1, "eth-jumbo-drop");
        pkt_free_frame(p);
        return;
    }
    uint8_t *ip = s->reasm.buf; /* no datagram is being put together now: the area is free */
    uint16_t port = p->port;
    len -= ETH_HDR_LEN;
    pkt_frame_read(p, ETH_HDR_LEN, ip, len);
    pkt_free_frame(p);
    s->ctr.eth_rx++;
    if (v6) {
        s->ctr.ip6_rx++;
        ip6_deliver_flat(s, ifc, ip, len, 0, now_ns);
        return;
    }
    const struct ip4_hdr *h = (const struct ip4_hdr *)ip;
    struct ip4_rx rx = {
        .iph = ip,
        .l4 = ip + IP4_HDR_LEN,
        .l4_len = (uint16_t)(len - IP4_HDR_LEN),
        .port = port,
        .src_be = h->src_be,
        .dst_be = h->dst_be,
        .proto = h->proto,
        .reasm = true, /* the NIC's checksum flags were the first buffer's */
    };
    s->ctr.ip4_rx++;
    ip4_deliver(s, &rx, now_ns);
}
