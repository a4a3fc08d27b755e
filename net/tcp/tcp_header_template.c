/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_header_template.c: the header template of a connection (struct tcp_conn's
 * hdr): the Ethernet (and VLAN) header to the next hop, the IPv4 or IPv6
 * header and the TCP header with its ports and, when the connection uses
 * them, the timestamps option's first bytes, with the partial checksums
 * that go with them. tcp_output.c's xmit copies it in front of every segment
 * and patches lengths, sequence numbers and sums: what ip4_output,
 * arp_output and eth_output would do, without their lookups. */
#include "link/arp.h"
#include "core/csum.h"
#include "link/eth.h"
#include "ip/ip4.h"
#include "ip/ip6.h"
#include "link/nd6.h"
#include "net.h"
#include "tcp_impl.h"
#include "core/wire.h"

#define TCP_ROUTE_CACHE_NS 1000000000ull /* how long a cached next hop's MAC is used */

/* The template's Ethernet (and VLAN) header to mac, of type; its length. */
static uint32_t tmpl_l2(struct tcp_conn *c, const struct net_iface *ifc, const uint8_t *mac, uint16_t type)
{
    net_memset(c->hdr, 0, sizeof(c->hdr));
    return eth_hdr_write(c->hdr, ifc, mac, type);
}

/* The template's TCP header after l2 + iphl bytes, and what goes with it. */
static void tmpl_finish(struct tcp_conn *c, const struct net_iface *ifc, uint32_t l2, uint32_t iphl, uint64_t now_ns)
{
    uint8_t *h = c->hdr;
    struct tcp_hdr *th = (struct tcp_hdr *)(void *)(h + l2 + iphl);
    th->sport_be = net_htons(c->lport);
    th->dport_be = net_htons(c->rport);
    uint32_t len = l2 + iphl + TCP_HDR_LEN;
    c->hdr_fixed_len = (uint8_t)len;
    if (c->flags & TCP_CF_TS) {
        tcp_opt_ts(h + len, 0, 0);
        len += TCP_TS_ALIGNED_LEN;
        c->hdr_fixed_len = (uint8_t)(len - 8);
    }
    c->hdr_l2_len = (uint8_t)l2;
    c->hdr_len = (uint8_t)len;
    c->hdr_sw_csum = !(ifc->dev->offloads & NETDEV_OFF_TX_CSUM);
    c->route_port = ifc->port;
    if (tcp_conn_is6(c))
        c->route6_until_ns = now_ns + TCP_ROUTE_CACHE_NS;
    else
        c->route_until_ns = now_ns + TCP_ROUTE_CACHE_NS;
}

/* route_fill for IPv6: the route table or the link-local peer's port, the
 * neighbour cache (nd6_lookup), an IPv6 header. */
static bool route_fill6(struct tcp_conn *c, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    struct net_iface *ifc = NULL;
    uint8_t nh[16];
    if (ip6_is_linklocal(c->raddr6)) {
        ifc = net_iface_get(s, c->port6);
        net_memcpy(nh, c->raddr6, 16);
    } else if (!ip6_route(s, c->raddr6, &ifc, nh)) {
        return false;
    }
    if (ifc == NULL || ifc->dev == NULL || ip6_is_ours(s, c->raddr6) || !ip6_is_ours(s, c->laddr6))
        return false;
    const uint8_t *mac = nd6_lookup(s, ifc, nh, now_ns);
    if (mac == NULL)
        return false;
    uint32_t l2 = tmpl_l2(c, ifc, mac, ETH_TYPE_IP6);
    struct ip6_hdr ip = {.vtf_be = net_htonl(6u << 28), .next = IP4_PROTO_TCP, .hlim = IP6_DEFAULT_HLIM};
    net_memcpy(ip.src, c->laddr6, 16);
    net_memcpy(ip.dst, c->raddr6, 16);
    net_memcpy(c->hdr + l2, &ip, sizeof(ip));
    c->route_sum = 0;
    c->pseudo_sum = csum_add(csum_partial(c->raddr6, 16, csum_partial(c->laddr6, 16, 0)), net_htons(IP4_PROTO_TCP));
    tmpl_finish(c, ifc, l2, IP6_HDR_LEN, now_ns);
    return true;
}

bool tcp_route_fill(struct tcp_conn *c, uint64_t now_ns)
{
    if (tcp_conn_is6(c))
        return route_fill6(c, now_ns);
    struct net_stack *s = c->t->s;
    uint16_t port = 0;
    uint32_t nh_be;
    if (!net_route(s, c->raddr_be, &port, &nh_be) || net_addr_is_local(s, c->raddr_be))
        return false;
    struct net_iface *ifc = &s->iface[port];
    const uint8_t *mac = arp_lookup(s, port, nh_be, now_ns);
    if (mac == NULL || eth_is_mcast(mac) || ifc->dev == NULL ||
        (c->laddr_be != ifc->addr_be && !net_addr_is_local(s, c->laddr_be)))
        return false;
    uint32_t l2 = tmpl_l2(c, ifc, mac, ETH_TYPE_IP4);
    struct ip4_hdr ip = {
        .ver_ihl = 0x45,
        .frag_be = net_htons(IP4_DF),
        .ttl = IP4_DEFAULT_TTL,
        .proto = IP4_PROTO_TCP,
        .src_be = c->laddr_be,
        .dst_be = c->raddr_be,
    };
    net_memcpy(c->hdr + l2, &ip, sizeof(ip));
    c->route_sum = csum_partial(&ip, sizeof(ip), 0);
    c->pseudo_sum = csum_add(csum_add(c->laddr_be, c->raddr_be), net_htons(IP4_PROTO_TCP));
    tmpl_finish(c, ifc, l2, IP4_HDR_LEN, now_ns);
    return true;
}
