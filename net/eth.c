/* net/eth.c: Ethernet II input and output, IEEE 802.1Q / 802.1ad tags
 * (net/eth.h). */
#include "eth.h"

#include "arp.h"
#include "env.h"
#include "ip4.h"
#include "ip6.h"
#include "net.h"
#include "wire.h"

const uint8_t eth_bcast_addr[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static bool is_tag(uint16_t type)
{
    return type == ETH_TYPE_VLAN || type == ETH_TYPE_QINQ;
}

/* Parse the link header: its length, or 0 when p is dropped (counted). */
static uint32_t parse(struct net_stack *s, const struct net_iface *ifc, struct pkt *p,
                      uint16_t *type)
{
    const struct eth_hdr *eh = (const struct eth_hdr *)p->data;
    uint32_t hlen = ETH_HDR_LEN;
    uint16_t vid = 0;

    if (p->len < ETH_HDR_LEN) {
        s->ctr.eth_runt++;
        return 0;
    }
    *type = net_ntohs(eh->type_be);
    if (is_tag(*type)) {
        if (p->len < ETH_HDR_LEN + ETH_VLAN_LEN) {
            s->ctr.eth_runt++;
            return 0;
        }
        const struct eth_vlan *v = (const struct eth_vlan *)(p->data + ETH_HDR_LEN);
        vid = net_ntohs(v->tci_be) & ETH_VID_MASK;
        *type = net_ntohs(v->type_be);
        hlen += ETH_VLAN_LEN;
        if (is_tag(*type)) { /* stacked tags: no port is configured for them */
            s->ctr.eth_vlan_drop++;
            return 0;
        }
    }
    if (vid != ifc->vlan_id) {
        s->ctr.eth_vlan_drop++;
        return 0;
    }
    if (eth_is_mcast(eh->src)) {
        s->ctr.eth_bad_src++;
        return 0;
    }
    if (eth_is_mcast(eh->dst))
        p->user = eth_is_bcast(eh->dst) ? NET_PKT_L2_BCAST : NET_PKT_L2_MCAST;
    else if (net_memcmp(eh->dst, ifc->dev->mac, ETH_ALEN) != 0) {
        s->ctr.eth_not_for_us++;
        return 0;
    } else
        p->user = 0;
    return hlen;
}

void eth_input(struct net_stack *s, struct pkt *p, uint64_t now_ns)
{
    struct net_iface *ifc = net_iface_get(s, p->port);
    uint16_t type = 0;
    uint32_t hlen;

    s->ctr.eth_rx++;
    if (NET_UNLIKELY(ifc == NULL)) {
        s->ctr.eth_no_iface++;
        pkt_free(p);
        return;
    }
    hlen = parse(s, ifc, p, &type);
    if (hlen == 0) {
        pkt_free(p);
        return;
    }
    pkt_pull_l2(p, hlen);
    p->l3_off = 0;
    if (NET_LIKELY(type == ETH_TYPE_IP4))
        ip4_input(s, ifc, p, now_ns);
    else if (type == ETH_TYPE_ARP)
        arp_input(s, ifc, p, now_ns);
    else if (type == ETH_TYPE_IP6)
        ip6_input(s, ifc, p, now_ns);
    else {
        s->ctr.eth_unknown_type++;
        pkt_free(p);
    }
}

void eth_output(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, uint16_t type,
                struct pkt *p)
{
    uint32_t hlen = ifc->vlan_id ? ETH_HDR_LEN + ETH_VLAN_LEN : ETH_HDR_LEN;
    uint8_t *h = pkt_push(p, hlen);
    uint16_t type_be = net_htons(type);

    if (h == NULL || (p->len < ETH_MIN_LEN && pkt_tailroom(p) < ETH_MIN_LEN - p->len)) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return;
    }
    if (p->flags & PKT_TX_L4_CSUM)
        p->csum_start = (uint16_t)(p->csum_start + hlen);
    net_memcpy(h, dst, ETH_ALEN);
    net_memcpy(h + ETH_ALEN, ifc->dev->mac, ETH_ALEN);
    if (ifc->vlan_id) {
        uint16_t tpid_be = net_htons(ETH_TYPE_VLAN), tci_be = net_htons(ifc->vlan_id);
        net_memcpy(h + 12, &tpid_be, 2);
        net_memcpy(h + 14, &tci_be, 2);
        net_memcpy(h + 16, &type_be, 2);
    } else
        net_memcpy(h + 12, &type_be, 2);
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
