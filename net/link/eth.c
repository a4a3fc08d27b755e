/* SPDX-License-Identifier: MIT */
/* net/link/eth.c: Ethernet II input and output, IEEE 802.1Q / 802.1ad tags
 * (net/link/eth.h). Input passes the usual frame (untagged IPv4 or IPv6 to our
 * MAC) to TCP's frame path (tcp_input_frame4, 6: a connection's usual
 * segment, all layers' checks at once), else IPv4 to ip4_input, after a
 * few side-effect-free tests; anything else takes input_full, which parses
 * tags and picks the drop counter. */
#include "eth.h"

#include "arp.h"
#include "core/env.h"
#include "ip/ip4.h"
#include "ip/ip6.h"
#include "net.h"
#include "tcp/tcp.h"
#include "core/wire.h"

const uint8_t eth_bcast_addr[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static bool is_tag_be(uint16_t type_be)
{
    return type_be == net_htons(ETH_TYPE_VLAN) || type_be == net_htons(ETH_TYPE_QINQ);
}

/* eth_input for every frame: the link header's length, its VLAN (the port's,
 * one tag at most), the source unicast, the destination ours or broadcast
 * or multicast (p->user says which). Takes p. */
static __attribute__((noinline)) void input_full(struct net_stack *s, struct net_iface *ifc,
                                                 struct pkt *p, uint64_t now_ns)
{
    const struct eth_hdr *eh = (const struct eth_hdr *)p->data;
    uint32_t hlen = ETH_HDR_LEN;
    uint16_t type_be, vid = 0;

    if (p->len < ETH_HDR_LEN) {
        s->ctr.eth_runt++;
        goto drop;
    }
    if (ifc->subifs && net_subif_demux(s, p)) { /* one of its VLANs': untagged now, that port's */
        ifc = &s->iface[p->port];
        eh = (const struct eth_hdr *)p->data;
    }
    type_be = eh->type_be;
    if (is_tag_be(type_be)) {
        if (p->len < ETH_HDR_LEN + ETH_VLAN_LEN) {
            s->ctr.eth_runt++;
            goto drop;
        }
        const struct eth_vlan *v = (const struct eth_vlan *)(p->data + ETH_HDR_LEN);
        vid = net_ntohs(v->tci_be) & ETH_VID_MASK;
        type_be = v->type_be;
        hlen += ETH_VLAN_LEN;
        if (is_tag_be(type_be)) { /* stacked tags: no port is configured for them */
            s->ctr.eth_vlan_drop++;
            goto drop;
        }
    }
    if (vid != ifc->vlan_id) {
        s->ctr.eth_vlan_drop++;
        goto drop;
    }
    if (eth_is_mcast(eh->src)) {
        s->ctr.eth_bad_src++;
        goto drop;
    }
    if (eth_is_mcast(eh->dst))
        p->user = eth_is_bcast(eh->dst) ? NET_PKT_L2_BCAST : NET_PKT_L2_MCAST;
    else if (net_memcmp(eh->dst, ifc->dev->mac, ETH_ALEN) != 0) {
        s->ctr.eth_not_for_us++;
        goto drop;
    } else
        p->user = 0;
    pkt_pull_l2(p, hlen);
    p->l3_off = 0;
    if (type_be == net_htons(ETH_TYPE_IP4))
        ip4_input(s, ifc, p, now_ns);
    else if (type_be == net_htons(ETH_TYPE_ARP))
        arp_input(s, ifc, p, now_ns);
    else if (type_be == net_htons(ETH_TYPE_IP6))
        ip6_input(s, ifc, p, now_ns);
    else {
        s->ctr.eth_unknown_type++;
        goto drop;
    }
    return;
drop:
    pkt_free(p);
}

/* The frame most of input is: one input_full would pass as it is to the
 * layer above (type_be: IPv4's or IPv6's), untagged on an untagged port,
 * from a unicast source (the I/G bit of the first octet clear) to our MAC.
 * False decides nothing. */
static inline bool is_usual(const struct net_iface *ifc, const struct pkt *p, uint16_t type_be)
{
    const struct eth_hdr *eh = (const struct eth_hdr *)p->data;

    return p->len >= ETH_HDR_LEN && eh->type_be == type_be && ifc->vlan_id == 0 &&
           ((eh->src[0] | eh->dst[0]) & 1) == 0 && net_memcmp(eh->dst, ifc->dev->mac, ETH_ALEN) == 0;
}

void eth_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    s->ctr.eth_rx++;
    if (NET_UNLIKELY(ifc == NULL)) {
        s->ctr.eth_no_iface++;
        pkt_free(p);
    } else if (NET_LIKELY(is_usual(ifc, p, net_htons(ETH_TYPE_IP4)))) {
        if (tcp_input_frame4(s, ifc, p, now_ns))
            return;
        p->user = 0;
        pkt_pull_l2(p, ETH_HDR_LEN);
        p->l3_off = 0;
        ip4_input(s, ifc, p, now_ns);
    } else if (!(is_usual(ifc, p, net_htons(ETH_TYPE_IP6)) && tcp_input_frame6(s, ifc, p, now_ns))) {
        input_full(s, ifc, p, now_ns);
    }
}

uint32_t eth_hdr_write(uint8_t *h, const struct net_iface *ifc, const uint8_t *dst, uint16_t type)
{
    uint32_t hlen = ETH_HDR_LEN;
    uint16_t type_be = net_htons(type);
    net_memcpy(h, dst, ETH_ALEN);
    net_memcpy(h + ETH_ALEN, ifc->dev->mac, ETH_ALEN);
    if (ifc->vlan_id) {
        uint16_t tpid_be = net_htons(ETH_TYPE_VLAN), tci_be = net_htons(ifc->vlan_id);
        net_memcpy(h + 12, &tpid_be, 2);
        net_memcpy(h + 14, &tci_be, 2);
        hlen += ETH_VLAN_LEN;
    }
    if (ifc->ntags) { /* a sub-interface's */
        net_memcpy(h + 12, ifc->tags, 4u * ifc->ntags);
        hlen += 4u * ifc->ntags;
    }
    net_memcpy(h + hlen - 2, &type_be, 2);
    return hlen;
}

/* The header eth_hdr_write writes for ifc: its length. */
static inline uint32_t hdr_len(const struct net_iface *ifc)
{
    return ETH_HDR_LEN + (ifc->vlan_id ? ETH_VLAN_LEN : 0) + 4u * ifc->ntags;
}

void eth_output(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, uint16_t type,
                struct pkt *p)
{
    uint32_t hlen = hdr_len(ifc);
    uint8_t *h = pkt_push(p, hlen);

    if (h == NULL || (p->len < ETH_MIN_LEN && pkt_tailroom(p) < ETH_MIN_LEN - p->len)) {
        s->ctr.eth_tx_no_room++;
        pkt_free_frame(p);
        return;
    }
    if (p->flags & PKT_TX_L4_CSUM)
        p->csum_start = (uint16_t)(p->csum_start + hlen);
    eth_hdr_write(h, ifc, dst, type);
    if (p->len < ETH_MIN_LEN) {
        net_memset(p->data + p->len, 0, ETH_MIN_LEN - p->len);
        p->len = ETH_MIN_LEN;
    }
    net_tx(s, ifc, p);
}

uint32_t eth_output_list(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, uint16_t type,
                         struct pkt *list)
{
    uint32_t n = 0;
    for (struct pkt *next; list; list = next, n++) {
        next = list->next;
        list->next = NULL;
        eth_output(s, ifc, dst, type, list);
    }
    return n;
}
