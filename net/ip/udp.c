/* SPDX-License-Identifier: MIT */
/* net/ip/udp.c: UDP (RFC 768): port bindings with callbacks, input checks,
 * output with checksum offload where the NIC has it, over IPv4 and IPv6
 * (RFC 8200 8.1) (net/ip/udp.h). */
#include "udp.h"

#include "core/csum.h"
#include "core/env.h"
#include "icmp4.h"
#include "icmp6.h"
#include "ip4.h"
#include "ip6.h"
#include "net.h"
#include "core/wire.h"

#define UDP_MAX_PAYLOAD (IP4_MAX_LEN - IP4_HDR_LEN - UDP_HDR_LEN)

static struct udp_bind *find(struct net_stack *s, uint16_t port)
{
    for (uint16_t i = 0; i < s->udp.n; i++)
        if (s->udp.b[i].port == port)
            return &s->udp.b[i];
    return NULL;
}

int udp_bind(struct net_stack *s, uint16_t port, udp_recv_fn fn, void *ctx)
{
    if (port == 0 || fn == NULL || find(s, port) || s->udp.n == UDP_MAX_BINDS)
        return -1;
    s->udp.b[s->udp.n++] = (struct udp_bind){.port = port, .fn = fn, .ctx = ctx};
    return 0;
}

int udp_unbind(struct net_stack *s, uint16_t port)
{
    struct udp_bind *b = find(s, port);
    if (b == NULL)
        return -1;
    *b = s->udp.b[--s->udp.n];
    return 0;
}

void udp_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    const struct udp_hdr *u = (const struct udp_hdr *)rx->l4;
    uint32_t ulen = 0;
    int verdict = ip4_rx_l4_csum(rx);

    s->ctr.udp_rx++;
    if (rx->l4_len < UDP_HDR_LEN) {
        s->ctr.udp_runt++;
        goto drop;
    }
    ulen = net_ntohs(u->len_be);
    if (ulen < UDP_HDR_LEN || ulen > rx->l4_len) {
        s->ctr.udp_bad_length++;
        goto drop;
    }
    if (u->csum != 0 &&
        (verdict < 0 ||
         (verdict == 0 &&
          csum_fold(csum_partial(u, ulen, csum_pseudo4(rx->src_be, rx->dst_be, IP4_PROTO_UDP, (uint16_t)ulen))) !=
              0xffff))) {
        s->ctr.udp_bad_checksum++;
        goto drop;
    }
    struct udp_bind *b = find(s, net_ntohs(u->dport_be));
    if (b == NULL) {
        s->ctr.udp_no_port++;
        icmp4_send_error(s, rx->iph, (uint32_t)(rx->l4 - rx->iph) + rx->l4_len, rx->port, rx->l2_flags,
                         ICMP4_UNREACH, ICMP4_UNREACH_PORT, 0, now_ns);
        goto drop;
    }
    struct udp_meta m = {
        .src_be = rx->src_be,
        .dst_be = rx->dst_be,
        .sport = net_ntohs(u->sport_be),
        .dport = net_ntohs(u->dport_be),
        .port = rx->port,
        .bcast = rx->bcast,
    };
    const uint8_t *data = rx->l4 + UDP_HDR_LEN;
    uint16_t len = (uint16_t)(ulen - UDP_HDR_LEN);
    struct pkt *p = rx->pkt;
    if (p) {
        pkt_pull(p, (uint32_t)(data - p->data));
        p->len = len;
        p->flags = 0;
    }
    b->fn(b->ctx, s, &m, data, len, p, now_ns);
    return;
drop:
    if (rx->pkt)
        pkt_free(rx->pkt);
}

static struct udp_hdr make_hdr(uint16_t sport, uint16_t dport, uint32_t ulen)
{
    return (struct udp_hdr){
        .sport_be = net_htons(sport),
        .dport_be = net_htons(dport),
        .len_be = net_htons((uint16_t)ulen),
        .csum = 0,
    };
}

int udp_send(struct net_stack *s, struct pkt *p, uint32_t src_be, uint32_t dst_be, uint16_t sport,
             uint16_t dport, uint64_t now_ns)
{
    if (p->len > UDP_MAX_PAYLOAD) {
        s->ctr.udp_tx_too_big++;
        pkt_free(p);
        return -1;
    }
    uint8_t *u = pkt_push(p, UDP_HDR_LEN);
    if (u == NULL) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return -1;
    }
    if (src_be == 0)
        src_be = ip4_select_src(s, dst_be);
    struct udp_hdr h = make_hdr(sport, dport, p->len);
    /* The NIC (or ip4_output, when it cannot) sums the rest. */
    h.csum = csum_fold(csum_pseudo4(src_be, dst_be, IP4_PROTO_UDP, p->len));
    net_memcpy(u, &h, sizeof(h));
    p->flags = PKT_TX_L4_CSUM;
    p->csum_start = 0;
    p->csum_offset = (uint16_t)offsetof(struct udp_hdr, csum);
    p->tso_mss = 0;
    struct ip4_out o = {.src_be = src_be, .dst_be = dst_be, .proto = IP4_PROTO_UDP};
    if (ip4_output(s, p, &o, now_ns) < 0)
        return -1;
    s->ctr.udp_tx++;
    return 0;
}

int udp_send_copy(struct net_stack *s, const void *data, uint16_t len, uint32_t src_be,
                  uint32_t dst_be, uint16_t sport, uint16_t dport, uint64_t now_ns)
{
    if (len > UDP_MAX_PAYLOAD) {
        s->ctr.udp_tx_too_big++;
        return -1;
    }
    if (src_be == 0)
        src_be = ip4_select_src(s, dst_be);
    uint32_t ulen = UDP_HDR_LEN + (uint32_t)len;
    struct udp_hdr h = make_hdr(sport, dport, ulen);
    uint32_t sum = csum_pseudo4(src_be, dst_be, IP4_PROTO_UDP, (uint16_t)ulen);
    h.csum = csum_finish(csum_partial(data, len, csum_partial(&h, sizeof(h), sum)));
    if (h.csum == 0)
        h.csum = 0xffff; /* RFC 768: 0 means none */
    struct ip4_out o = {.src_be = src_be, .dst_be = dst_be, .proto = IP4_PROTO_UDP};
    if (ip4_output_copy(s, &h, sizeof(h), data, len, &o, now_ns) < 0)
        return -1;
    s->ctr.udp_tx++;
    return 0;
}

/* ---- IPv6 ---- */

/* The datagram at d (len bytes: the IPv6 header, then UDP) in p, or (p
 * NULL) reassembled in the stack's scratch area. True when p was taken. */
static bool input6(struct net_stack *s, struct net_iface *ifc, const uint8_t *d, uint32_t len, struct pkt *p,
                   uint32_t l2_flags, uint64_t now_ns)
{
    const struct ip6_hdr *ip = (const struct ip6_hdr *)d;
    const struct udp_hdr *u = (const struct udp_hdr *)(d + IP6_HDR_LEN);
    uint32_t n = len - IP6_HDR_LEN, ulen;
    uint16_t flags = p ? p->flags : 0;

    s->ctr.udp_rx++;
    if (n < UDP_HDR_LEN) {
        s->ctr.udp_runt++;
        return false;
    }
    ulen = net_ntohs(u->len_be);
    if (ulen < UDP_HDR_LEN || ulen > n) {
        s->ctr.udp_bad_length++;
        return false;
    }
    /* Never optional over IPv6: a zero checksum is a bad one. */
    if (u->csum == 0 || (flags & PKT_RX_L4_CSUM_BAD) ||
        (!(flags & PKT_RX_L4_CSUM_OK) && ip6_l4_csum(ip->src, ip->dst, IP4_PROTO_UDP, (const uint8_t *)u, ulen))) {
        s->ctr.udp_bad_checksum++;
        return false;
    }
    struct udp_bind *b = find(s, net_ntohs(u->dport_be));
    if (b == NULL) {
        s->ctr.udp_no_port++;
        /* (what the error quotes of a reassembled one: a view, never freed) */
        struct pkt view = {.data = (uint8_t *)d, .len = (uint16_t)(len < IP6_MIN_MTU ? len : IP6_MIN_MTU),
                           .user = l2_flags};
        icmp6_send_error(s, ifc, p ? p : &view, ICMP6_UNREACH, 4, 0, now_ns); /* RFC 4443 3.1: port */
        return false;
    }
    struct udp_meta m = {
        .sport = net_ntohs(u->sport_be),
        .dport = net_ntohs(u->dport_be),
        .port = ifc->port,
        .bcast = ip6_is_mcast(ip->dst),
        .v6 = true,
    };
    net_memcpy(m.src6, ip->src, 16);
    net_memcpy(m.dst6, ip->dst, 16);
    uint16_t data_len = (uint16_t)(ulen - UDP_HDR_LEN);
    const uint8_t *data = d + IP6_HDR_LEN + UDP_HDR_LEN;
    if (p) {
        pkt_pull(p, IP6_HDR_LEN + UDP_HDR_LEN);
        p->len = data_len;
        p->flags = 0;
        data = p->data;
    }
    b->fn(b->ctx, s, &m, data, data_len, p, now_ns);
    return true;
}

void udp_input6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    if (!input6(s, ifc, p->data, p->len, p, p->user, now_ns))
        pkt_free(p);
}

void udp_input6_flat(struct net_stack *s, struct net_iface *ifc, const uint8_t *d, uint32_t len, uint32_t l2_flags,
                     uint64_t now_ns)
{
    input6(s, ifc, d, len, NULL, l2_flags, now_ns);
}

/* The IPv6 and UDP headers of a datagram of ulen bytes (UDP's header
 * included) from src6 (NULL: the port's) to dst6; false without a port. */
static bool hdrs6(struct net_stack *s, uint8_t *h, const uint8_t *src6, const uint8_t *dst6, uint16_t sport,
                  uint16_t dport, uint16_t port, uint32_t ulen)
{
    struct net_iface *ifc = net_iface_get(s, port);
    if (src6 == NULL && ifc == NULL)
        return false;
    struct ip6_hdr ip = {.vtf_be = net_htonl(6u << 28), .plen_be = net_htons((uint16_t)ulen),
                         .next = IP4_PROTO_UDP, .hlim = IP6_DEFAULT_HLIM};
    if (src6 == NULL) /* the port's own address, link-local for a link-local peer */
        src6 = ifc->has6 && !ip6_is_linklocal(dst6) ? ifc->addr6 : ifc->ll6;
    net_memcpy(ip.src, src6, 16);
    net_memcpy(ip.dst, dst6, 16);
    net_memcpy(h, &ip, sizeof(ip));
    struct udp_hdr u = make_hdr(sport, dport, ulen);
    net_memcpy(h + IP6_HDR_LEN, &u, sizeof(u));
    return true;
}

int udp_send6_copy(struct net_stack *s, const void *data, uint16_t len, const uint8_t *src6, const uint8_t *dst6,
                   uint16_t sport, uint16_t dport, uint16_t port, uint64_t now_ns)
{
    uint8_t h[IP6_HDR_LEN + UDP_HDR_LEN];
    if (len > 0xffff - UDP_HDR_LEN || !hdrs6(s, h, src6, dst6, sport, dport, port, UDP_HDR_LEN + (uint32_t)len)) {
        s->ctr.udp_tx_too_big++; /* (or no port to take an address from) */
        return -1;
    }
    const struct ip6_hdr *ip = (const struct ip6_hdr *)h;
    uint32_t sum = ip6_pseudo_sum(ip->src, ip->dst, IP4_PROTO_UDP, UDP_HDR_LEN + (uint32_t)len);
    uint16_t csum = csum_finish(csum_partial(data, len, csum_partial(h + IP6_HDR_LEN, UDP_HDR_LEN, sum)));
    if (csum == 0)
        csum = 0xffff; /* (0 would say none) */
    net_memcpy(h + IP6_HDR_LEN + offsetof(struct udp_hdr, csum), &csum, 2);
    if (ip6_output_parts(s, net_iface_get(s, port), h, sizeof(h), data, len, now_ns) < 0)
        return -1;
    s->ctr.udp_tx++;
    return 0;
}

int udp_send6(struct net_stack *s, struct pkt *p, const uint8_t *src6, const uint8_t *dst6, uint16_t sport,
              uint16_t dport, uint16_t port, uint64_t now_ns)
{
    if (p->len > 0xffff - UDP_HDR_LEN) {
        s->ctr.udp_tx_too_big++;
        pkt_free(p);
        return -1;
    }
    uint8_t *h = pkt_push(p, IP6_HDR_LEN + UDP_HDR_LEN);
    if (h == NULL) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return -1;
    }
    uint32_t ulen = p->len - IP6_HDR_LEN;
    if (!hdrs6(s, h, src6, dst6, sport, dport, port, ulen)) {
        s->ctr.udp_tx_too_big++; /* (no port to take an address from) */
        pkt_free(p);
        return -1;
    }
    const struct ip6_hdr *ip = (const struct ip6_hdr *)h;
    uint16_t csum = ip6_l4_csum(ip->src, ip->dst, IP4_PROTO_UDP, h + IP6_HDR_LEN, ulen);
    if (csum == 0)
        csum = 0xffff; /* (0 would say none) */
    net_memcpy(h + IP6_HDR_LEN + offsetof(struct udp_hdr, csum), &csum, 2);
    p->flags = 0;
    if (ip6_output(s, net_iface_get(s, port), NULL, p, now_ns) < 0)
        return -1;
    s->ctr.udp_tx++;
    return 0;
}
