/* SPDX-License-Identifier: MIT */
/* net/ip/ip6.c: IPv6 input, forwarding and output, fragments addressed to us
 * (to net/ip/reasm.c) and of ours when longer than the MTU (RFC 8200 4.5;
 * net/ip/ip6.h). */
#include "ip6.h"

#include "core/csum.h"
#include "core/env.h"
#include "icmp6.h"
#include "link/nd6.h"
#include "net.h"
#include "reasm.h"
#include "tcp/tcp.h"
#include "udp.h"
#include "core/wire.h"

void ip6_linklocal_from_mac(const uint8_t *mac, uint8_t *a)
{
    static const uint8_t prefix[8] = {0xfe, 0x80};
    net_memcpy(a, prefix, 8);
    a[8] = mac[0] ^ 0x02; /* the universal/local bit, inverted (RFC 4291 appendix A) */
    a[9] = mac[1];
    a[10] = mac[2];
    a[11] = 0xff;
    a[12] = 0xfe;
    a[13] = mac[3];
    a[14] = mac[4];
    a[15] = mac[5];
}

void ip6_iface_set(struct net_iface *ifc, const uint8_t *addr, uint8_t plen)
{
    ifc->has6 = addr != NULL;
    ifc->plen6 = addr ? plen : 0;
    if (addr)
        net_memcpy(ifc->addr6, addr, 16);
    else
        net_memset(ifc->addr6, 0, 16);
    /* RFC 4291 2.6.1: a router's for each subnet it is on; none on a /127
     * (RFC 6164 6: it would be the other end's address) or a /128. */
    net_memset(ifc->sra6, 0, 16);
    if (addr && plen < 127)
        ip6_prefix_of(addr, plen, ifc->sra6);
}

bool ip6_prefix_eq(const uint8_t *a, const uint8_t *b, unsigned plen)
{
    unsigned bytes = plen / 8, bits = plen % 8;
    if (net_memcmp(a, b, bytes) != 0)
        return false;
    return bits == 0 || ((a[bytes] ^ b[bytes]) & (0xff00u >> bits) & 0xff) == 0;
}

void ip6_prefix_of(const uint8_t *a, unsigned plen, uint8_t *net)
{
    net_memset(net, 0, 16);
    net_memcpy(net, a, plen / 8);
    if (plen % 8)
        net[plen / 8] = (uint8_t)(a[plen / 8] & (0xff00u >> (plen % 8)));
}

bool ip6_on_link(const struct net_iface *ifc, const uint8_t *addr)
{
    return ip6_is_linklocal(addr) || (ifc->has6 && ip6_prefix_eq(addr, ifc->addr6, ifc->plen6));
}

uint32_t ip6_pseudo_sum(const uint8_t *src, const uint8_t *dst, uint8_t next, uint32_t len)
{
    uint32_t sum = csum_partial(src, 16, 0);
    sum = csum_partial(dst, 16, sum);
    sum = csum_add(sum, net_htons((uint16_t)(len >> 16)));
    sum = csum_add(sum, net_htons((uint16_t)len));
    return csum_add(sum, net_htons(next));
}

uint16_t ip6_l4_csum(const uint8_t *src, const uint8_t *dst, uint8_t next, const uint8_t *l4, uint32_t len)
{
    return csum_finish(csum_partial(l4, len, ip6_pseudo_sum(src, dst, next, len)));
}

/* ip6_route for the datagram at hdr (NULL: one of ours). */
static bool route_for(struct net_stack *s, const uint8_t *dst, const uint8_t *hdr, struct net_iface **out,
                      uint8_t *nh)
{
    if (s->route6) {
        uint16_t port;
        uint8_t gw[16];
        if (!s->route6(s->route6_ctx, dst, hdr, &port, gw) || (*out = net_iface_get(s, port)) == NULL)
            return false;
        net_memcpy(nh, ip6_is_unspec(gw) ? dst : gw, 16);
        return true;
    }
    struct net_iface *best = NULL;
    for (uint16_t i = 0; i < s->nports; i++) {
        struct net_iface *ifc = &s->iface[i];
        if (ifc->dev && ifc->has6 && ip6_prefix_eq(dst, ifc->addr6, ifc->plen6) &&
            (best == NULL || ifc->plen6 > best->plen6))
            best = ifc;
    }
    if (best == NULL)
        return false;
    *out = best;
    net_memcpy(nh, dst, 16);
    return true;
}

bool ip6_route(struct net_stack *s, const uint8_t *dst, struct net_iface **out, uint8_t *nh)
{
    return route_for(s, dst, NULL, out, nh);
}

/* The port and next hop toward the datagram at d: false when none
 * (counted). */
static bool next_hop(struct net_stack *s, struct net_iface **ifc, const uint8_t **nh, uint8_t *hop,
                     const uint8_t *d)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)d;
    if (ip6_is_linklocal(h->dst) || ip6_is_mcast(h->dst)) {
        *nh = h->dst; /* never leaves the link it is about */
    } else if (*nh == NULL) {
        if (!ip6_route(s, h->dst, ifc, hop)) {
            s->ctr.ip6_no_route++;
            return false;
        }
        *nh = hop;
    }
    if (*ifc == NULL) {
        s->ctr.ip6_no_route++;
        return false;
    }
    return true;
}

/* A buffer holding a's fixed header, fh bytes of room after it, then
 * bytes [off, off + n) of what follows the fixed header in a|b. */
static struct pkt *piece(struct net_stack *s, const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t fh,
                         uint32_t off, uint32_t n)
{
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.ip6_out_no_buf++;
        return NULL;
    }
    uint8_t *to = p->data + IP6_HDR_LEN + fh;
    uint32_t rest_a = alen - IP6_HDR_LEN, from_a = off < rest_a ? (rest_a - off < n ? rest_a - off : n) : 0;
    net_memcpy(p->data, a, IP6_HDR_LEN);
    net_memcpy(to, a + IP6_HDR_LEN + off, from_a);
    if (n > from_a)
        net_memcpy(to + from_a, b + (off + from_a - rest_a), n - from_a);
    p->len = (uint16_t)(IP6_HDR_LEN + fh + n);
    return p;
}

/* The datagram a|b (a: the fixed header and maybe more, b: the rest) out
 * of ifc to nh: one packet when it fits the MTU, else fragments that fit
 * it and a buffer (RFC 8200 4.5), each the fixed header, a Fragment
 * header and a multiple of 8 bytes of the rest, the last excepted. */
static int send_parts(struct net_stack *s, struct net_iface *ifc, const uint8_t *nh, const uint8_t *a, uint32_t alen,
                      const uint8_t *b, uint32_t blen, uint64_t now_ns)
{
    uint32_t mtu = ifc->mtu < PKT_DATA_ROOM ? ifc->mtu : PKT_DATA_ROOM;
    uint32_t body = alen + blen - IP6_HDR_LEN;
    if (alen + blen <= mtu) {
        struct pkt *p = piece(s, a, alen, b, 0, 0, body);
        return p ? nd6_output(s, ifc, nh, p, now_ns) : -1;
    }
    uint32_t step = (mtu - IP6_HDR_LEN - IP6_FRAG_HDR_LEN) & ~7u, id_be = net_htonl(++s->ip6_frag_id);
    for (uint32_t off = 0; off < body; off += step) {
        uint32_t n = body - off < step ? body - off : step;
        struct pkt *p = piece(s, a, alen, b, IP6_FRAG_HDR_LEN, off, n);
        if (p == NULL)
            return -1;
        struct ip6_hdr *h = (struct ip6_hdr *)p->data;
        uint8_t *fr = p->data + IP6_HDR_LEN;
        uint16_t offlg_be = net_htons((uint16_t)(off | (off + n < body ? 1u : 0u)));
        h->next = IP6_PROTO_FRAG;
        h->plen_be = net_htons((uint16_t)(IP6_FRAG_HDR_LEN + n));
        fr[0] = ((const struct ip6_hdr *)a)->next;
        fr[1] = 0;
        net_memcpy(fr + 2, &offlg_be, 2);
        net_memcpy(fr + 4, &id_be, 4);
        s->ctr.ip6_frag_tx++;
        nd6_output(s, ifc, nh, p, now_ns);
    }
    return 0;
}

int ip6_output(struct net_stack *s, struct net_iface *ifc, const uint8_t *nh, struct pkt *p, uint64_t now_ns)
{
    uint8_t hop[16];
    if (!next_hop(s, &ifc, &nh, hop, p->data)) {
        pkt_free(p);
        return -1;
    }
    if (p->len > ifc->mtu) { /* only our own get here: forward() sends Packet Too Big */
        if (p->flags & PKT_TX_L4_CSUM) /* a NIC cannot sum across fragments */
            csum_pkt_finish(p);
        int rc = send_parts(s, ifc, nh, p->data, p->len, NULL, 0, now_ns);
        pkt_free(p);
        return rc;
    }
    return nd6_output(s, ifc, nh, p, now_ns);
}

int ip6_output_parts(struct net_stack *s, struct net_iface *ifc, const uint8_t *a, uint32_t alen, const uint8_t *b,
                     uint32_t blen, uint64_t now_ns)
{
    const uint8_t *nh = NULL;
    uint8_t hop[16];
    if (!next_hop(s, &ifc, &nh, hop, a))
        return -1;
    return send_parts(s, ifc, nh, a, alen, b, blen, now_ns);
}

bool ip6_is_ours(const struct net_stack *s, const uint8_t *a)
{
    for (uint16_t i = 0; i < s->nports; i++) {
        const struct net_iface *ifc = &s->iface[i];
        if (ifc->dev && ((ifc->has6 && ip6_eq(a, ifc->addr6)) || ip6_eq(a, ifc->ll6)))
            return true;
    }
    return false;
}

bool ip6_is_anycast(const struct net_stack *s, const uint8_t *a)
{
    for (uint16_t i = 0; i < s->nports; i++) {
        const struct net_iface *ifc = &s->iface[i];
        if (ifc->dev && ifc->has6 && !ip6_is_unspec(ifc->sra6) && ip6_eq(a, ifc->sra6))
            return true;
    }
    return false;
}

/* A group ifc listens to: all nodes, all routers where it advertises
 * (router solicitations go there, RFC 4861 6.1.1), or the solicited-node
 * group of one of its addresses, the anycast one included. */
static bool in_group(const struct net_iface *ifc, const uint8_t *g)
{
    static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1}, all_routers[16] = {0xff, 0x02, [15] = 2};
    uint8_t sn[16];
    if (ip6_eq(g, all_nodes) || (ifc->ra.on && ip6_eq(g, all_routers)))
        return true;
    ip6_solicited_node(ifc->ll6, sn);
    if (ip6_eq(g, sn))
        return true;
    if (!ifc->has6)
        return false;
    ip6_solicited_node(ifc->addr6, sn);
    if (ip6_eq(g, sn))
        return true;
    ip6_solicited_node(ifc->sra6, sn);
    return !ip6_is_unspec(ifc->sra6) && ip6_eq(g, sn);
}

/* An upper layer (next, n bytes at m) that is a neighbour discovery message. */
static bool nd_message(uint8_t next, const uint8_t *m, uint32_t n)
{
    return next == IP6_PROTO_ICMP6 && n > 0 && m[0] >= ND6_RS && m[0] <= ND6_REDIRECT;
}

/* The upper layer of a datagram for us. */
static void upper(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)p->data;
    /* Neighbour discovery passes `acl control`: without it the link is gone. */
    if (!nd_message(h->next, p->data + IP6_HDR_LEN, p->len - IP6_HDR_LEN) &&
        !net_acl_local_ok(s, p->data, p->len, true)) {
        net_tap_drop(s, ifc->port, p, "acl-control-deny");
        pkt_free(p);
        return;
    }
    if (h->next == IP6_PROTO_ICMP6) {
        icmp6_input(s, ifc, p, now_ns);
        return;
    }
    if (h->next == IP4_PROTO_TCP && s->tcp) {
        tcp_input6(s, ifc, p, now_ns);
        return;
    }
    if (h->next == IP4_PROTO_UDP) {
        udp_input6(s, ifc, p, now_ns);
        return;
    }
    /* No other IPv6 transport here: port unreachable for TCP without TCP
     * attached (RFC 4443 3.1 code 4); nothing for "no next header", which
     * is known; else an unknown next header (4.4 code 1, pointer 6). */
    s->ctr.ip6_unknown_next++;
    if (h->next == IP6_NO_NEXT)
        ;
    else if (h->next == IP4_PROTO_TCP)
        icmp6_send_error(s, ifc, p, ICMP6_UNREACH, 4, 0, now_ns);
    else
        icmp6_send_error(s, ifc, p, ICMP6_PARAM_PROBLEM, 1, 6, now_ns);
    pkt_free(p);
}

/* A fragment for us (RFC 8200 4.5), its Fragment header right after the
 * fixed one (any other header first is an unknown next header here). */
static void fragment_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    if (p->len < IP6_HDR_LEN + IP6_FRAG_HDR_LEN) {
        s->ctr.ip6_frag_bad++;
        pkt_free(p);
        return;
    }
    uint16_t offlg_be;
    net_memcpy(&offlg_be, p->data + IP6_HDR_LEN + 2, 2);
    uint32_t offlg = net_ntohs(offlg_be), off = offlg & 0xfff8u, n = p->len - IP6_HDR_LEN - IP6_FRAG_HDR_LEN;
    bool more = offlg & 1;
    if (off == 0 && nd_message(p->data[IP6_HDR_LEN], p->data + IP6_HDR_LEN + IP6_FRAG_HDR_LEN, n)) {
        s->ctr.ip6_frag_bad++; /* neighbour discovery is never fragmented (RFC 6980 5) */
        pkt_free(p);
        return;
    }
    if (off == 0 && !more) { /* an atomic fragment (RFC 6946): the datagram itself */
        uint8_t fixed[IP6_HDR_LEN], next = p->data[IP6_HDR_LEN];
        net_memcpy(fixed, p->data, IP6_HDR_LEN);
        pkt_pull(p, IP6_FRAG_HDR_LEN);
        struct ip6_hdr *h = (struct ip6_hdr *)p->data;
        net_memcpy(h, fixed, IP6_HDR_LEN);
        h->next = next;
        h->plen_be = net_htons((uint16_t)n);
        p->flags &= (uint16_t)~PKT_RX_L4_CSUM_OK;
        upper(s, ifc, p, now_ns);
        return;
    }
    /* Not a multiple of 8 but the last, or ending past 65535: parameter
     * problem, pointing at the payload length or the offset. */
    if ((more && (n % 8 || n == 0)) || off + n > 0xffff) {
        s->ctr.ip6_frag_bad++;
        icmp6_send_error(s, ifc, p, ICMP6_PARAM_PROBLEM, 0, off + n > 0xffff ? IP6_HDR_LEN + 2 : 4, now_ns);
        pkt_free(p);
        return;
    }
    reasm_input6(s, p, now_ns);
}

static void deliver(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    s->ctr.ip6_local++;
    if (p->data[6] == IP6_PROTO_FRAG)
        fragment_input(s, ifc, p, now_ns);
    else
        upper(s, ifc, p, now_ns);
}

void ip6_deliver_flat(struct net_stack *s, struct net_iface *ifc, uint8_t *d, uint32_t len, uint32_t l2_flags,
                      uint64_t now_ns)
{
    if (nd_message(d[6], d + IP6_HDR_LEN, len - IP6_HDR_LEN)) {
        s->ctr.ip6_frag_bad++; /* neighbour discovery is never fragmented (RFC 6980 5) */
        return;
    }
    if (len > PKT_DATA_ROOM) { /* upper() checks `acl control` on the rest */
        if (!net_acl_local_ok(s, d, len, true))
            return;
        if (d[6] == IP4_PROTO_UDP)
            udp_input6_flat(s, ifc, d, len, l2_flags, now_ns);
        else if (!(d[6] == IP6_PROTO_ICMP6 && icmp6_echo_flat(s, ifc, d, len, now_ns)))
            s->ctr.ip6_reasm_too_big++;
        return;
    }
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.ip6_out_no_buf++;
        return;
    }
    net_memcpy(p->data, d, len);
    p->len = (uint16_t)len;
    p->port = ifc->port;
    p->user = l2_flags;
    p->flags = 0;
    upper(s, ifc, p, now_ns);
}

static void forward(struct net_stack *s, struct net_iface *in, struct pkt *p, uint64_t now_ns)
{
    struct ip6_hdr *h = (struct ip6_hdr *)p->data;
    struct net_iface *out;
    uint8_t nh[16];
    const char *why;
    if (s->route6 == NULL) {
        s->ctr.ip6_no_forward++;
        why = "ip6-no-forward";
        goto drop;
    }
    if ((why = net_acl_forward(s, in->port, NET_ACL_SKIP, p->data, p->len, true)) != NULL)
        goto drop;
    if (ip6_is_linklocal(h->src)) { /* RFC 4291 2.5.6: never beyond the link */
        icmp6_send_error(s, in, p, ICMP6_UNREACH, 2, 0, now_ns);
        s->ctr.ip6_no_route++;
        why = "ip6-no-route";
        goto drop;
    }
    if (h->hlim <= 1) {
        s->ctr.ip6_hop_limit++;
        why = "ip6-hop-limit";
        icmp6_send_error(s, in, p, ICMP6_TIME_EXCEEDED, 0, 0, now_ns);
        goto drop;
    }
    if (!route_for(s, h->dst, p->data, &out, nh)) {
        s->ctr.ip6_no_route++;
        why = "ip6-no-route";
        icmp6_send_error(s, in, p, ICMP6_UNREACH, 0, 0, now_ns);
        goto drop;
    }
    if ((why = net_acl_forward(s, NET_ACL_SKIP, out->port, p->data, p->len, true)) != NULL)
        goto drop;
    if (p->len > out->mtu) {
        s->ctr.ip6_too_big++;
        why = "ip6-too-big";
        icmp6_send_error(s, in, p, ICMP6_TOO_BIG, 0, out->mtu, now_ns);
        goto drop;
    }
    h->hlim--;
    p->flags &= PKT_TX_L4_CSUM; /* a partial checksum from the NIC is still the next one's to fill */
    s->ctr.ip6_forwarded++;
    nd6_output(s, out, nh, p, now_ns);
    return;
drop:
    net_tap_drop(s, in->port, p, why);
    pkt_free(p);
}

void ip6_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)p->data;
    s->ctr.ip6_rx++;
    if (!ifc->has6) { /* IPv6 is on where a port has an IPv6 address */
        s->ctr.ip6_disabled++;
        goto drop;
    }
    if (p->len < IP6_HDR_LEN) {
        s->ctr.ip6_runt++;
        goto drop;
    }
    if ((p->data[0] >> 4) != 6) {
        s->ctr.ip6_bad_version++;
        goto drop;
    }
    uint32_t tot = IP6_HDR_LEN + net_ntohs(h->plen_be);
    if (tot > p->len) { /* (a payload length of 0 is a jumbogram: not on Ethernet) */
        s->ctr.ip6_bad_length++;
        goto drop;
    }
    p->len = (uint16_t)tot; /* link padding */
    if (ip6_is_mcast(h->src) || ip6_is_loopback(h->src) || (!ip6_is_unspec(h->src) && ip6_is_ours(s, h->src))) {
        s->ctr.ip6_bad_src++;
        goto drop;
    }
    if (ip6_is_unspec(h->dst) || ip6_is_loopback(h->dst)) {
        s->ctr.ip6_bad_dst++;
        goto drop;
    }
    if (ip6_is_mcast(h->dst)) {
        if (!in_group(ifc, h->dst)) {
            s->ctr.ip6_not_for_us++;
            goto drop;
        }
        deliver(s, ifc, p, now_ns);
        return;
    }
    if (ip6_is_unspec(h->src)) { /* only duplicate address detection, to a group */
        s->ctr.ip6_bad_src++;
        goto drop;
    }
    if (ip6_is_ours(s, h->dst)) {
        deliver(s, ifc, p, now_ns);
        return;
    }
    if (ip6_is_anycast(s, h->dst)) { /* a subnet's anycast: we answer its pings, and serve nothing on it */
        if (h->next != IP6_PROTO_ICMP6) {
            s->ctr.ip6_not_for_us++;
            goto drop;
        }
        deliver(s, ifc, p, now_ns);
        return;
    }
    if (ip6_is_linklocal(h->dst) || (p->user & (NET_PKT_L2_BCAST | NET_PKT_L2_MCAST))) {
        s->ctr.ip6_not_for_us++; /* another link's, or sent to a group at the link layer */
        goto drop;
    }
    forward(s, ifc, p, now_ns);
    return;
drop:
    pkt_free(p);
}
