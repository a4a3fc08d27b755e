/* SPDX-License-Identifier: MIT */
/* net/ip/ip4_output.c: IPv4 output of datagrams we originate: next hop, header,
 * checksum offload decision, fragmentation (RFC 791 section 3.2, RFC 1812
 * 4.2.2.7) (net/ip/ip4.h). */
#include "link/arp.h"
#include "core/csum.h"
#include "core/env.h"
#include "ip4.h"
#include "net.h"

struct route {
    struct net_iface *ifc;
    uint32_t nh_be;
    uint32_t src_be;
    uint32_t frag_mtu;          /* largest datagram in one new buffer */
};

static bool route_out(struct net_stack *s, const struct ip4_out *o, struct route *r)
{
    uint16_t port = 0;
    if (net_addr_is_local(s, o->dst_be)) {
        s->ctr.ip4_out_to_self++;
        return false;
    }
    if (!net_route(s, o->dst_be, &port, &r->nh_be)) {
        s->ctr.ip4_out_no_route++;
        return false;
    }
    r->ifc = &s->iface[port];
    r->src_be = o->src_be ? o->src_be : r->ifc->addr_be;
    r->frag_mtu = r->ifc->mtu < PKT_DATA_ROOM ? r->ifc->mtu : PKT_DATA_ROOM;
    return true;
}

static void fill_hdr(uint8_t *buf, const struct ip4_out *o, const struct route *r, uint32_t tot,
                     uint16_t id, uint16_t frag)
{
    struct ip4_hdr *h = (struct ip4_hdr *)buf;
    h->ver_ihl = 0x45;
    h->tos = o->tos;
    h->len_be = net_htons((uint16_t)tot);
    h->id_be = net_htons(id);
    h->frag_be = net_htons(frag);
    h->ttl = o->ttl ? o->ttl : IP4_DEFAULT_TTL;
    h->proto = o->proto;
    h->csum = 0;
    h->src_be = r->src_be;
    h->dst_be = o->dst_be;
    h->csum = csum_finish(csum_partial(h, IP4_HDR_LEN, 0));
}

/* p's data fits the MTU: push the header and send. Takes p. */
static int send_one(struct net_stack *s, const struct route *r, const struct ip4_out *o, struct pkt *p,
                    uint64_t now_ns)
{
    if ((p->flags & PKT_TX_L4_CSUM) && !(r->ifc->dev->offloads & NETDEV_OFF_TX_CSUM))
        csum_pkt_finish(p);
    uint8_t *h = pkt_push(p, IP4_HDR_LEN);
    if (h == NULL) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return -1;
    }
    if (p->flags & PKT_TX_L4_CSUM)
        p->csum_start = (uint16_t)(p->csum_start + IP4_HDR_LEN);
    fill_hdr(h, o, r, p->len, s->ip_id++, o->df ? IP4_DF : 0);
    s->ctr.ip4_tx++;
    return arp_output(s, r->ifc->port, r->nh_be, p, now_ns) < 0 ? -1 : 0;
}

/* Copy [off, off + len) of the concatenation a|b to dst. */
static void gather(uint8_t *dst, const uint8_t *a, uint32_t a_len, const uint8_t *b, uint32_t off,
                   uint32_t len)
{
    if (off < a_len) {
        uint32_t n = a_len - off < len ? a_len - off : len;
        net_memcpy(dst, a + off, n);
        dst += n;
        len -= n;
        off = a_len;
    }
    if (len)
        net_memcpy(dst, b + (off - a_len), len);
}

/* Send a|b as fragments of at most frag_mtu bytes; nothing is taken. */
static int fragment(struct net_stack *s, const struct route *r, const struct ip4_out *o, const uint8_t *a,
                    uint32_t a_len, const uint8_t *b, uint32_t b_len, uint64_t now_ns)
{
    uint32_t total = a_len + b_len, step = (r->frag_mtu - IP4_HDR_LEN) & ~7u, n;
    uint16_t id = s->ip_id++;
    int rc = 0;

    for (uint32_t off = 0; off < total; off += n) {
        n = total - off < step ? total - off : step;
        struct pkt *p = pkt_alloc(s->pool);
        if (p == NULL) {
            s->ctr.ip4_out_no_buf++;
            return -1;
        }
        gather(p->data + IP4_HDR_LEN, a, a_len, b, off, n);
        p->len = (uint16_t)(IP4_HDR_LEN + n);
        fill_hdr(p->data, o, r, p->len, id, (uint16_t)((off + n < total ? IP4_MF : 0) | (off / 8)));
        s->ctr.ip4_frag_tx++;
        if (arp_output(s, r->ifc->port, r->nh_be, p, now_ns) < 0)
            rc = -1;
    }
    s->ctr.ip4_tx++;
    return rc;
}

int ip4_output(struct net_stack *s, struct pkt *p, const struct ip4_out *o, uint64_t now_ns)
{
    struct route r;
    uint32_t tot = IP4_HDR_LEN + (uint32_t)p->len;
    int rc;

    if (!route_out(s, o, &r)) {
        pkt_free(p);
        return -1;
    }
    if (tot <= r.ifc->mtu)
        return send_one(s, &r, o, p, now_ns);
    if (o->df || tot > IP4_MAX_LEN) {
        s->ctr.ip4_out_too_big++;
        pkt_free(p);
        return -1;
    }
    if (p->flags & PKT_TX_L4_CSUM) /* a NIC cannot sum across fragments */
        csum_pkt_finish(p);
    rc = fragment(s, &r, o, p->data, p->len, NULL, 0, now_ns);
    pkt_free(p);
    return rc;
}

int ip4_output_copy(struct net_stack *s, const void *hdr, uint32_t hdr_len, const void *body,
                    uint32_t body_len, const struct ip4_out *o, uint64_t now_ns)
{
    struct route r;
    uint32_t tot = IP4_HDR_LEN + hdr_len + body_len;

    if (!route_out(s, o, &r))
        return -1;
    if (tot > IP4_MAX_LEN || (o->df && tot > r.frag_mtu)) {
        s->ctr.ip4_out_too_big++;
        return -1;
    }
    if (tot > r.frag_mtu)
        return fragment(s, &r, o, hdr, hdr_len, body, body_len, now_ns);
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.ip4_out_no_buf++;
        return -1;
    }
    gather(p->data, hdr, hdr_len, body, 0, hdr_len + body_len);
    p->len = (uint16_t)(hdr_len + body_len);
    return send_one(s, &r, o, p, now_ns);
}

uint32_t ip4_select_src(struct net_stack *s, uint32_t dst_be)
{
    uint16_t port = 0;
    uint32_t nh_be;
    return net_route(s, dst_be, &port, &nh_be) ? s->iface[port].addr_be : 0;
}
