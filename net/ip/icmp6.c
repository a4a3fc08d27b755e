/* SPDX-License-Identifier: MIT */
/* net/ip/icmp6.c: ICMPv6 echo (a reassembled one longer than a buffer too)
 * and errors (RFC 4443; net/ip/icmp6.h). */
#include "icmp6.h"

#include "core/env.h"
#include "icmp4.h"
#include "ip6.h"
#include "link/nd6.h"
#include "link/ra6.h"
#include "net.h"
#include "tcp/tcp.h"
#include "core/wire.h"

#define QUOTE_MAX (IP6_MIN_MTU - IP6_HDR_LEN - ICMP6_HDR_LEN) /* 2.4(c) */

/* An echo request (RFC 4443 4.1) turned into its reply (4.2), the
 * message len bytes at m. */
static void echo_reply_in_place(const struct net_stack *s, const struct net_iface *ifc, struct ip6_hdr *h,
                                uint8_t *m, uint32_t len)
{
    /* 4.2, 2.2(b): the reply to a multicast or anycast request comes from
     * our unicast address. */
    uint8_t src[16];
    bool group = ip6_is_mcast(h->dst) || ip6_is_anycast(s, h->dst);
    net_memcpy(src, group ? (ifc->has6 ? ifc->addr6 : ifc->ll6) : h->dst, 16);
    net_memcpy(h->dst, h->src, 16);
    net_memcpy(h->src, src, 16);
    h->hlim = IP6_DEFAULT_HLIM;
    m[0] = ICMP6_ECHO_REPLY;
    net_memset(m + 2, 0, 2);
    uint16_t c = ip6_l4_csum(h->src, h->dst, IP6_PROTO_ICMP6, m, len);
    net_memcpy(m + 2, &c, 2);
}

void icmp6_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    struct ip6_hdr *h = (struct ip6_hdr *)p->data;
    uint8_t *m = p->data + IP6_HDR_LEN;
    uint32_t len = p->len - IP6_HDR_LEN;
    s->ctr.icmp6_rx++;
    if (len < ICMP6_HDR_LEN) {
        s->ctr.icmp6_runt++;
        goto drop;
    }
    if (ip6_l4_csum(h->src, h->dst, IP6_PROTO_ICMP6, m, len) != 0) { /* the sum over it all checks out */
        s->ctr.icmp6_bad_checksum++;
        goto drop;
    }
    if (m[0] == ND6_NS || m[0] == ND6_NA) {
        nd6_input(s, ifc, h->src, h->dst, h->hlim, m, len, now_ns);
        goto drop;
    }
    if (m[0] == ND6_RS) {
        ra6_input(s, ifc, h->src, h->hlim, m, len, now_ns);
        goto drop;
    }
    if (m[0] < 128) { /* an error: TCP's, if it quotes one of its segments */
        uint32_t rest_be;
        net_memcpy(&rest_be, m + 4, 4);
        s->ctr.icmp6_rx_other++;
        if (s->tcp)
            tcp_icmp6(s, m + ICMP6_HDR_LEN, len - ICMP6_HDR_LEN, m[0], net_ntohl(rest_be), now_ns);
        goto drop;
    }
    if (m[0] != ICMP6_ECHO || m[1] != 0 || ip6_is_unspec(h->src)) {
        s->ctr.icmp6_rx_other++; /* errors and replies to us: nothing asked for them */
        goto drop;
    }
    s->ctr.icmp6_rx_echo++;
    echo_reply_in_place(s, ifc, h, m, len);
    p->flags = 0;
    s->ctr.icmp6_tx_echo_reply++;
    ip6_output(s, ifc, NULL, p, now_ns);
    return;
drop:
    pkt_free(p);
}

bool icmp6_echo_flat(struct net_stack *s, struct net_iface *ifc, uint8_t *d, uint32_t len, uint64_t now_ns)
{
    struct ip6_hdr *h = (struct ip6_hdr *)d;
    uint8_t *m = d + IP6_HDR_LEN;
    uint32_t n = len - IP6_HDR_LEN;
    if (m[0] != ICMP6_ECHO || m[1] != 0 || ip6_is_unspec(h->src))
        return false;
    s->ctr.icmp6_rx++;
    if (ip6_l4_csum(h->src, h->dst, IP6_PROTO_ICMP6, m, n) != 0) {
        s->ctr.icmp6_bad_checksum++;
        return true;
    }
    s->ctr.icmp6_rx_echo++;
    echo_reply_in_place(s, ifc, h, m, n);
    if (ip6_output_parts(s, ifc, d, len, NULL, 0, now_ns) == 0)
        s->ctr.icmp6_tx_echo_reply++;
    return true;
}

/* 2.4(e): packets an error must not be sent about. */
static bool must_not_answer(const struct ip6_hdr *h, const uint8_t *after, uint32_t avail, uint8_t type,
                            uint32_t l2_flags)
{
    if (ip6_is_unspec(h->src) || ip6_is_mcast(h->src) || ip6_is_loopback(h->src))
        return true;
    if ((ip6_is_mcast(h->dst) || (l2_flags & (NET_PKT_L2_MCAST | NET_PKT_L2_BCAST))) && type != ICMP6_TOO_BIG)
        return true;
    /* An ICMPv6 error (types under 128), or one we cannot tell; also as
     * the first fragment of one (a reassembly timeout's, a hop limit's). */
    uint8_t next = h->next;
    if (next == IP6_PROTO_FRAG && avail >= 8 && (after[2] << 8 | after[3]) >> 3 == 0) {
        next = after[0];
        after += 8;
        avail -= 8;
    }
    return next == IP6_PROTO_ICMP6 && (avail < 1 || after[0] < 128);
}

int icmp6_send_error(struct net_stack *s, struct net_iface *ifc, const struct pkt *p, uint8_t type, uint8_t code,
                     uint32_t rest, uint64_t now_ns)
{
    const struct ip6_hdr *h = (const struct ip6_hdr *)p->data;
    if (p->len < IP6_HDR_LEN ||
        must_not_answer(h, p->data + IP6_HDR_LEN, p->len - IP6_HDR_LEN, type, p->user)) {
        s->ctr.icmp6_error_suppressed++;
        return -1;
    }
    if (!icmp_limit_take(&s->icmp_limit, now_ns)) {
        s->ctr.icmp6_rate_limited++;
        return -1;
    }
    struct pkt *e = pkt_alloc(s->pool);
    if (e == NULL) {
        s->ctr.ip6_out_no_buf++;
        return -1;
    }
    uint32_t quote = p->len < QUOTE_MAX ? p->len : QUOTE_MAX;
    struct ip6_hdr *eh = (struct ip6_hdr *)e->data;
    uint8_t *m = e->data + IP6_HDR_LEN;
    eh->vtf_be = net_htonl(6u << 28);
    eh->plen_be = net_htons((uint16_t)(ICMP6_HDR_LEN + quote));
    eh->next = IP6_PROTO_ICMP6;
    eh->hlim = IP6_DEFAULT_HLIM;
    /* 2.2: from the address it was sent to when that is ours, else the
     * input port's, of the offender's scope. */
    const uint8_t *src = ifc->has6 && !ip6_is_linklocal(h->src) ? ifc->addr6 : ifc->ll6;
    if (!ip6_is_mcast(h->dst) && ip6_is_ours(s, h->dst))
        src = h->dst;
    net_memcpy(eh->src, src, 16);
    net_memcpy(eh->dst, h->src, 16);
    m[0] = type;
    m[1] = code;
    m[2] = m[3] = 0;
    uint32_t rest_be = net_htonl(rest);
    net_memcpy(m + 4, &rest_be, 4);
    net_memcpy(m + ICMP6_HDR_LEN, p->data, quote);
    uint16_t c = ip6_l4_csum(eh->src, eh->dst, IP6_PROTO_ICMP6, m, ICMP6_HDR_LEN + quote);
    net_memcpy(m + 2, &c, 2);
    e->len = (uint16_t)(IP6_HDR_LEN + ICMP6_HDR_LEN + quote);
    s->ctr.icmp6_tx_error++;
    /* Back where it came from: the source's next hop, by the routes. */
    return ip6_output(s, ifc, NULL, e, now_ns) < 0 ? -1 : 0;
}
