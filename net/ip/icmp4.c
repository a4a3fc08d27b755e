/* SPDX-License-Identifier: MIT */
/* net/ip/icmp4.c: ICMP for IPv4: echo (RFC 792), errors with the RFC 1812
 * 4.3.2 rules (what to quote, when never to send, rate limit)
 * (net/ip/icmp4.h). */
#include "icmp4.h"

#include "core/csum.h"
#include "core/env.h"
#include "ip4.h"
#include "net.h"
#include "tcp/tcp.h"
#include "core/wire.h"

bool icmp_limit_take(struct icmp4_limit *l, uint64_t now_ns)
{
    if (l->rate_per_s == 0)
        return false;
    uint64_t cost = 1000000000ull / l->rate_per_s, cap = cost * l->burst;
    uint64_t gained = now_ns > l->last_ns ? now_ns - l->last_ns : 0;
    l->last_ns = now_ns;
    if (gained >= cap || l->credit_ns + gained >= cap)
        l->credit_ns = cap;
    else
        l->credit_ns += gained;
    if (l->credit_ns < cost)
        return false;
    l->credit_ns -= cost;
    return true;
}

static bool is_error(uint8_t type)
{
    return type == ICMP4_UNREACH || type == ICMP4_SOURCE_QUENCH || type == ICMP4_REDIRECT ||
           type == ICMP4_TIME_EXCEEDED || type == ICMP4_PARAM_PROBLEM;
}

/* Types known not to be errors; unknown ones are treated as errors. */
static bool is_query(uint8_t type)
{
    return type == ICMP4_ECHO_REPLY || type == ICMP4_ECHO || (type >= 9 && type <= 10) ||
           (type >= 13 && type <= 18);
}

/* RFC 1812 4.3.2.7: datagrams an error must not be sent about. */
static bool must_not_answer(const struct net_stack *s, const uint8_t *iph, uint32_t avail,
                            uint32_t l2_flags)
{
    const struct ip4_hdr *h = (const struct ip4_hdr *)iph;
    if (avail < IP4_HDR_LEN || ip4_hdr_len(h) < IP4_HDR_LEN || ip4_hdr_len(h) > avail)
        return true;
    uint32_t hlen = ip4_hdr_len(h), src = h->src_be, dst = h->dst_be;
    if (l2_flags & (NET_PKT_L2_BCAST | NET_PKT_L2_MCAST))
        return true;
    if (ip4_is_mcast(dst) || net_addr_is_bcast(s, dst))
        return true;
    if (ip4_is_zeronet(src) || ip4_is_loopback(src) || ip4_is_mcast(src) || ip4_is_class_e(src) ||
        net_addr_is_bcast(s, src))
        return true;
    if (ip4_frag_off(h) != 0)
        return true;
    return h->proto == IP4_PROTO_ICMP && (avail <= hlen || !is_query(iph[hlen]));
}

int icmp4_send_error(struct net_stack *s, const uint8_t *iph, uint32_t avail, uint16_t in_port,
                     uint32_t l2_flags, uint8_t type, uint8_t code, uint32_t rest_be,
                     uint64_t now_ns)
{
    if (must_not_answer(s, iph, avail, l2_flags)) {
        s->ctr.icmp4_error_suppressed++;
        return -1;
    }
    if (!icmp_limit_take(&s->icmp_limit, now_ns)) {
        s->ctr.icmp4_rate_limited++;
        return -1;
    }
    const struct ip4_hdr *h = (const struct ip4_hdr *)iph;
    /* RFC 1812 4.3.2.3: as much as fits in 576 bytes, never past the datagram. */
    uint32_t quote = ICMP4_ERR_QUOTE_MAX - IP4_HDR_LEN - ICMP4_HDR_LEN;
    uint32_t tot = net_ntohs(h->len_be);
    if (tot >= ip4_hdr_len(h) && tot < quote)
        quote = tot;
    if (avail < quote)
        quote = avail;
    struct icmp4_hdr ih = {.type = type, .code = code, .csum = 0, .rest_be = rest_be};
    ih.csum = csum_finish(csum_partial(iph, quote, csum_partial(&ih, sizeof(ih), 0)));
    const struct net_iface *in = net_iface_get(s, in_port);
    struct ip4_out o = {
        .src_be = in ? in->addr_be : 0, /* 4.3.2.4: the address the datagram met */
        .dst_be = h->src_be,
        .proto = IP4_PROTO_ICMP,
        .tos = h->tos & 0xfc,
    };
    if (ip4_output_copy(s, &ih, sizeof(ih), iph, quote, &o, now_ns) < 0)
        return -1;
    if (type == ICMP4_UNREACH)
        s->ctr.icmp4_tx_unreach++;
    else if (type == ICMP4_TIME_EXCEEDED)
        s->ctr.icmp4_tx_time_exceeded++;
    else if (type == ICMP4_PARAM_PROBLEM)
        s->ctr.icmp4_tx_param_problem++;
    return 0;
}

static int send_about(struct net_stack *s, const struct pkt *p, uint8_t type, uint8_t code,
                      uint32_t rest_be, uint64_t now_ns)
{
    uint32_t avail = p->len > p->l3_off ? (uint32_t)(p->len - p->l3_off) : 0;
    return icmp4_send_error(s, p->data + p->l3_off, avail, p->port, p->user, type, code, rest_be, now_ns);
}

int icmp4_send_unreach(struct net_stack *s, const struct pkt *p, uint8_t code, uint64_t now_ns)
{
    return send_about(s, p, ICMP4_UNREACH, code, 0, now_ns);
}

int icmp4_send_time_exceeded(struct net_stack *s, const struct pkt *p, uint64_t now_ns)
{
    return send_about(s, p, ICMP4_TIME_EXCEEDED, ICMP4_EXC_TTL, 0, now_ns);
}

int icmp4_send_frag_needed(struct net_stack *s, const struct pkt *p, uint16_t mtu, uint64_t now_ns)
{
    return send_about(s, p, ICMP4_UNREACH, ICMP4_UNREACH_NEEDFRAG, net_htonl(mtu), now_ns);
}

int icmp4_send_param_problem(struct net_stack *s, const struct pkt *p, uint8_t ptr, uint64_t now_ns)
{
    return send_about(s, p, ICMP4_PARAM_PROBLEM, 0, net_htonl((uint32_t)ptr << 24), now_ns);
}

/* Turn the request into the reply: type 0, checksum updated (RFC 1624),
 * in its own buffer when it has one. */
static void echo_reply(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    struct icmp4_hdr ih;
    uint16_t old_word, new_word;
    int rc;

    net_memcpy(&ih, rx->l4, sizeof(ih));
    net_memcpy(&old_word, &ih, 2);
    ih.type = ICMP4_ECHO_REPLY;
    net_memcpy(&new_word, &ih, 2);
    ih.csum = csum_update16(ih.csum, old_word, new_word);
    struct ip4_out o = {
        .src_be = rx->dst_be,
        .dst_be = rx->src_be,
        .proto = IP4_PROTO_ICMP,
        .tos = ((const struct ip4_hdr *)rx->iph)->tos,
    };
    if (rx->pkt) {
        struct pkt *p = rx->pkt;
        pkt_pull(p, (uint32_t)(rx->l4 - rx->iph));
        net_memcpy(p->data, &ih, sizeof(ih));
        p->flags = 0;
        rc = ip4_output(s, p, &o, now_ns);
    } else
        rc = ip4_output_copy(s, &ih, sizeof(ih), rx->l4 + sizeof(ih), rx->l4_len - sizeof(ih), &o, now_ns);
    if (rc == 0)
        s->ctr.icmp4_tx_echo_reply++;
}

void icmp4_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    s->ctr.icmp4_rx++;
    int verdict = ip4_rx_l4_csum(rx);
    if (rx->l4_len < ICMP4_HDR_LEN)
        s->ctr.icmp4_runt++;
    else if (verdict < 0 || (verdict == 0 && csum_fold(csum_partial(rx->l4, rx->l4_len, 0)) != 0xffff))
        s->ctr.icmp4_bad_checksum++;
    else if (rx->l4[0] == ICMP4_ECHO) {
        s->ctr.icmp4_rx_echo++;
        if (!rx->bcast && !ip4_is_mcast(rx->dst_be)) {
            echo_reply(s, rx, now_ns); /* takes rx->pkt */
            return;
        }
        s->ctr.icmp4_bcast_echo++; /* like Linux's icmp_echo_ignore_broadcasts */
    } else if (is_error(rx->l4[0])) {
        s->ctr.icmp4_rx_error++;
        const struct icmp4_hdr *ih = (const struct icmp4_hdr *)rx->l4;
        if (s->tcp)
            tcp_icmp4(s, rx->l4 + ICMP4_HDR_LEN, rx->l4_len - ICMP4_HDR_LEN, ih->type, ih->code, ih->rest_be,
                      now_ns);
    } else {
        s->ctr.icmp4_rx_other++;
    }
    if (rx->pkt)
        pkt_free(rx->pkt);
}
