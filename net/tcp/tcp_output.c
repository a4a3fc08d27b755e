/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_output.c: TCP output (RFC 9293 sections 3.8.6 and 3.10.2 SEND):
 * segment building, zero-copy transmission, the choice of
 * what to send next (lost segments first, then new data, within the
 * congestion and peer windows: RFC 5681, RFC 6675 NextSeg), Nagle, sender
 * silly-window avoidance, and RST / ACK segments.
 *
 * A send-queue slot (net/tcp/tcp_send_queue.c) from tcp_send is the application's
 * buffer: when it is sent whole and nobody else holds the
 * buffer, the headers are written in front of the payload and the buffer
 * itself goes to the NIC, with a reference kept for retransmission. Anything
 * else (part of a slot, a buffer still on a NIC ring) is copied into a fresh
 * buffer. Slots from tcp_write, and small ones from tcp_send, are TCP's
 * own (TCP_SEG_COPY), appended to until they are sent; a short segment of
 * one waits while cwnd's worth of slots are out (short_may_go), so that
 * small writes join.
 *
 * IPv6 connections take the same paths: their template holds an IPv6
 * header (RFC 8200 section 3: payload length patched per segment, no
 * header checksum, flow label 0), the pseudo-header sum is section 8.1's,
 * and TSO asks for NETDEV_OFF_TSO6. */
#include "link/arp.h"
#include "core/csum.h"
#include "core/env.h"
#include "link/eth.h"
#include "ip/ip4.h"
#include "ip/ip6.h"
#include "link/nd6.h"
#include "net.h"
#include "tcp_impl.h"
#include "core/wire.h"

#define TCP_TSO_SLOTS 44        /* buffers in one TSO frame (a NIC ring takes them all) */
#define TCP_TSO_MAX (65535u - IP4_HDR_LEN - 60u) /* payload of one: IPv4's total length */

/* The window field for a segment: never shrinks the right edge already
 * offered, and opens it only by a worthwhile amount (receiver SWS
 * avoidance, RFC 9293 3.8.6.2.2). */
static uint16_t window_field(struct tcp_conn *c)
{
    uint32_t space = tcp_rcv_window(c);
    uint32_t right = c->rcv_nxt + space;
    if (SEQ_LEQ(right, c->rcv_adv) || right - c->rcv_adv < tcp_rcv_step(c))
        right = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv : c->rcv_nxt;
    uint32_t wnd = right - c->rcv_nxt;
    uint32_t shift = (c->flags & TCP_CF_WS) ? c->rcv_wscale : 0;
    uint32_t field = wnd >> shift;
    if (field > 0xffff)
        field = 0xffff;
    uint32_t adv = c->rcv_nxt + (field << shift);
    if (SEQ_GT(adv, c->rcv_adv))
        c->rcv_adv = adv;
    return (uint16_t)field;
}

/* Where a segment that leaves through ip4_output / ip6_output goes: IPv4
 * addresses, or (src6 set) IPv6 ones and the port of a link-local peer. */
struct seg_addrs {
    uint32_t src_be, dst_be;
    const uint8_t *src6, *dst6;
    uint16_t port;
};

static struct seg_addrs conn_addrs(const struct tcp_conn *c)
{
    if (tcp_conn_is6(c))
        return (struct seg_addrs){.src6 = c->laddr6, .dst6 = c->raddr6, .port = c->port6};
    return (struct seg_addrs){.src_be = c->laddr_be, .dst_be = c->raddr_be};
}

/* The pseudo-header's sum for len bytes of TCP (RFC 9293 3.1, RFC 8200 8.1). */
static uint32_t pseudo_sum(const struct seg_addrs *a, uint32_t len)
{
    if (a->src6 == NULL)
        return csum_pseudo4(a->src_be, a->dst_be, IP4_PROTO_TCP, (uint16_t)len);
    uint32_t sum = csum_partial(a->dst6, 16, csum_partial(a->src6, 16, 0));
    return csum_add(sum, net_htons((uint16_t)len) + net_htons(IP4_PROTO_TCP));
}

/* A TCP header at p->data, for the segments that leave through ip4_output
 * or ip6_output (SYNs, RSTs, anything while the next hop is not cached);
 * the checksum field holds the pseudo-header's sum for the NIC or
 * ip_out to finish. */
static void fill_hdr(struct pkt *p, const struct seg_addrs *a, uint16_t sport, uint16_t dport,
                     uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd, uint32_t hdr_len)
{
    struct tcp_hdr *h = (struct tcp_hdr *)p->data;
    h->sport_be = net_htons(sport);
    h->dport_be = net_htons(dport);
    h->seq_be = net_htonl(seq);
    h->ack_be = (flags & TCP_ACK) ? net_htonl(ack) : 0;
    h->off = (uint8_t)((hdr_len / 4) << 4);
    h->flags = flags;
    h->win_be = net_htons(wnd);
    h->urg_be = 0;
    h->csum = csum_fold(pseudo_sum(a, p->len));
    p->flags = PKT_TX_L4_CSUM;
    p->csum_start = 0;
    p->csum_offset = (uint16_t)offsetof(struct tcp_hdr, csum);
    p->tso_mss = 0;
}

/* IPv6: the checksum is summed here (these few segments do not know
 * their port's offloads), the header pushed, ip6_output routes and
 * resolves. */
static int ip6_out(struct net_stack *s, struct pkt *p, const struct seg_addrs *a, uint64_t now_ns)
{
    csum_pkt_finish(p);
    struct ip6_hdr *h = (struct ip6_hdr *)(void *)pkt_push(p, IP6_HDR_LEN);
    if (h == NULL) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return -1;
    }
    h->vtf_be = net_htonl(6u << 28);
    h->plen_be = net_htons((uint16_t)(p->len - IP6_HDR_LEN));
    h->next = IP4_PROTO_TCP;
    h->hlim = IP6_DEFAULT_HLIM;
    net_memcpy(h->src, a->src6, 16);
    net_memcpy(h->dst, a->dst6, 16);
    struct net_iface *ifc = ip6_is_linklocal(a->dst6) ? net_iface_get(s, a->port) : NULL;
    return ip6_output(s, ifc, NULL, p, now_ns);
}

static int ip_out(struct net_stack *s, struct pkt *p, const struct seg_addrs *a, uint64_t now_ns)
{
    s->ctr.tcp_tx++;
    if (a->src6)
        return ip6_out(s, p, a, now_ns);
    struct ip4_out o = {.src_be = a->src_be, .dst_be = a->dst_be, .proto = IP4_PROTO_TCP, .df = true};
    return ip4_output(s, p, &o, now_ns);
}

/* Chains the payload of the nchain slots after sg behind p, the head of a
 * TSO frame (zero copy: each slot's own buffer, one more reference).
 * Returns the bytes chained. */
static uint32_t chain_slots(struct tcp_conn *c, struct pkt *p, struct tcp_seg *sg, uint32_t nchain)
{
    uint32_t idx = (uint32_t)(sg - c->sq), more = 0;
    for (uint32_t k = 1; k <= nchain; k++) {
        uint32_t i = idx + k;
        struct tcp_seg *e = &c->sq[i >= c->sq_cap ? i - c->sq_cap : i];
        e->sent_t = sg->sent_t;
        struct pkt *q = pkt_ref(e->p);
        q->data = pkt_buf_start(q) + e->off;
        q->len = e->len;
        q->flags = 0;
        p->next = q;
        p->flags |= PKT_F_CHAIN;
        p = q;
        more += e->len;
    }
    return more;
}

/* The segment carries SACK blocks: the peer's data has a hole, or a
 * duplicate came to report (D-SACK is only noted with SACK on); never on
 * a RST. */
static inline bool has_sack(const struct tcp_conn *c, uint8_t flags)
{
    return (((c->flags & TCP_CF_SACK) && c->ooo) || (c->flags & TCP_CF_DSACK)) && !(flags & TCP_RST);
}

/* SACK blocks for a segment carrying len bytes, within the MSS (RFC 6691):
 * the option at o, its length returned. */
static __attribute__((noinline)) uint32_t sack_opt(struct tcp_conn *c, uint8_t *o, uint32_t optlen, uint32_t len)
{
    uint32_t blocks[TCP_SACK_MAX_BLOCKS][2];
    uint32_t max = (TCP_MAX_OPT_LEN - optlen - 4) / 8;
    if (len) {
        uint32_t room = c->mss > len + optlen + 4 ? c->mss - len - optlen - 4 : 0;
        if (room / 8 < max)
            max = room / 8;
    }
    uint32_t n = 0;
    if ((c->flags & TCP_CF_DSACK) && max) { /* a duplicate we got: first (RFC 2883 4) */
        blocks[0][0] = c->dsack[0];
        blocks[0][1] = c->dsack[1];
        n = 1;
    }
    c->flags &= ~(uint32_t)TCP_CF_DSACK;
    n += tcp_sack_blocks(c, blocks + n, max - n);
    return n ? tcp_opt_sack(o, (const uint32_t(*)[2])blocks, n) : 0;
}

/* The buffer for [seq, seq + len) of slot sg with hl bytes of headers in
 * front: the slot's own when it goes whole and nobody else holds it (zero
 * copy), else a fresh one with the payload copied. NULL: no buffer. */
static inline __attribute__((always_inline)) struct pkt *seg_buffer(struct tcp_conn *c, struct tcp_seg *sg,
                                                                    uint32_t seq, uint32_t len, uint32_t hl,
                                                                    uint32_t tcp_hl)
{
    struct pkt *p;
    /* (and room behind the payload for pad when the frame is short) */
    if (sg && len == sg->len && seq == sg->seq && !pkt_shared(sg->p) && sg->off >= tcp_hl + TCP_LINK_RESERVE &&
        (hl + len >= ETH_MIN_LEN ||
         pkt_buf_end(sg->p) - (pkt_buf_start(sg->p) + sg->off + len) >= ETH_MIN_LEN - hl - len)) {
        p = pkt_ref(sg->p);
        p->data = pkt_buf_start(p) + sg->off - hl;
    } else {
        p = pkt_alloc(c->t->s->pool);
        if (p == NULL) {
            c->t->s->ctr.tcp_no_buf++;
            return NULL;
        }
        if (len)
            net_memcpy(p->data + hl, pkt_buf_start(sg->p) + sg->off + (seq - sg->seq), len);
    }
    p->len = (uint16_t)(hl + len);
    return p;
}

/* Zeros up to the Ethernet minimum; false (p freed, counted) without room. */
static bool pad(struct net_stack *s, struct pkt *p)
{
    if (pkt_tailroom(p) < ETH_MIN_LEN - p->len) {
        s->ctr.eth_tx_no_room++;
        pkt_free(p);
        return false;
    }
    net_memset(p->data + p->len, 0, ETH_MIN_LEN - p->len);
    p->len = ETH_MIN_LEN;
    return true;
}

/* What every segment sent says of the receive side: our ACK went out. */
static void acked_now(struct tcp_conn *c)
{
    c->flags &= ~(uint32_t)TCP_CF_ACK_NOW;
    c->delack_segs = 0;
    c->delack_at = 0;
    c->last_ack_sent = c->rcv_nxt;
}

/* xmit while the next hop is not cached: a TCP header only, through
 * ip4_output (which resolves it). */
static int xmit_unrouted(struct tcp_conn *c, struct tcp_seg *sg, uint32_t seq, uint32_t len, uint8_t flags,
                         uint64_t now_ns)
{
    uint32_t optlen = (c->flags & TCP_CF_TS) ? TCP_TS_ALIGNED_LEN : 0;
    uint8_t sack[TCP_MAX_OPT_LEN];
    uint32_t sacklen = 0;
    if (has_sack(c, flags))
        sacklen = sack_opt(c, sack, optlen, len);
    uint32_t hl = TCP_HDR_LEN + optlen + sacklen;
    struct pkt *p = seg_buffer(c, sg, seq, len, hl, hl + (tcp_conn_is6(c) ? IP6_HDR_LEN - IP4_HDR_LEN : 0));
    if (p == NULL)
        return -1;
    if (sg)
        sg->sent_t = tcp_sent_stamp(c, now_ns);
    if (optlen)
        tcp_opt_ts(p->data + TCP_HDR_LEN, tcp_ts_now(now_ns) + c->ts_offset, c->ts_recent);
    if (sacklen)
        net_memcpy(p->data + TCP_HDR_LEN + optlen, sack, sacklen);
    struct seg_addrs a = conn_addrs(c);
    fill_hdr(p, &a, c->lport, c->rport, seq, c->rcv_nxt, flags, window_field(c), hl);
    acked_now(c);
    return ip_out(c->t->s, p, &a, now_ns);
}

/* The port's ring is full: hold data back rather than lose it at our own
 * NIC (whose drops, every connection's at once, would come back as
 * retransmission timeouts in step). True when c waits (tcp_tx_wait). */
static __attribute__((noinline)) bool port_full(struct tcp_conn *c, struct net_iface *ifc, uint32_t len)
{
    if (ifc->ntx >= NET_TX_DATA_MAX)
        net_flush_port(c->t->s, ifc); /* room for this one, or the ring is full */
    if (len == 0 || (!ifc->tx_busy && ifc->ntx < NET_TX_DATA_MAX)) /* (an ACK goes if there is room) */
        return false;
    tcp_tx_wait(c);
    return true;
}

/* Send [seq, seq + len) of slot sg (NULL: no payload) with flags; with
 * nchain, also the whole slots after it, as one TSO frame (tso_gather has
 * checked them). The headers come from the connection's template
 * (tcp_route_fill) and go straight onto the port's burst: what ip4_output,
 * arp_output and eth_output would do, without their lookups. v6 is a
 * constant: each family gets its own copy. */
static int xmit6(struct tcp_conn *c, struct tcp_seg *sg, uint32_t seq, uint32_t len, uint8_t flags,
                 uint64_t now_ns, uint32_t nchain);

static inline __attribute__((always_inline)) int xmit_ip(struct tcp_conn *c, struct tcp_seg *sg, uint32_t seq,
                                                         uint32_t len, uint8_t flags, uint64_t now_ns,
                                                         uint32_t nchain, bool v6)
{
    struct net_stack *s = c->t->s;
    const uint32_t iphl = v6 ? IP6_HDR_LEN : IP4_HDR_LEN;
    if (NET_UNLIKELY(now_ns >= (v6 ? c->route6_until_ns : c->route_until_ns))) {
        if (!v6 && (c->flags & TCP_CF_IP6)) /* (its route_until_ns is 0) */
            return xmit6(c, sg, seq, len, flags, now_ns, nchain);
        if (!tcp_route_fill(c, now_ns))
            return nchain ? -1 : xmit_unrouted(c, sg, seq, len, flags, now_ns);
    }
    struct net_iface *ifc = &s->iface[c->route_port];
    if (NET_UNLIKELY(ifc->tx_busy || ifc->ntx >= NET_TX_DATA_MAX) && port_full(c, ifc, len | (flags & TCP_FIN)))
        return -1; /* the data stays queued; net_flush brings us back */
    uint32_t l2 = c->hdr_l2_len, tl = c->hdr_len; /* template: headers with timestamps, no SACK */
    uint8_t sack[TCP_MAX_OPT_LEN];
    uint32_t sacklen = 0;
    if (NET_UNLIKELY(has_sack(c, flags)))
        sacklen = sack_opt(c, sack, tl - l2 - iphl - TCP_HDR_LEN, len);
    uint32_t hl = tl + sacklen, tcp_hl = hl - l2 - iphl;
    /* (IPv6's 20 more bytes of header count against the link's reserve) */
    struct pkt *p = seg_buffer(c, sg, seq, len, hl, tcp_hl + (v6 ? IP6_HDR_LEN - IP4_HDR_LEN : 0));
    if (p == NULL)
        return -1;
    if (NET_UNLIKELY(nchain && p != sg->p)) { /* (tso_gather has ruled this out) */
        pkt_free(p);
        return -1;
    }
    uint8_t *h = p->data;
    /* What the template holds but the timestamps' values (written below):
     * 54 to 62 bytes, one cache line (IPv6: 74 to 82), in two fixed-size
     * copies that overlap. */
    uint32_t fixed = c->hdr_fixed_len;
    net_memcpy(h, c->hdr, v6 ? 64 : 48);
    net_memcpy(h + fixed - 32, c->hdr + fixed - 32, 32);
    if (sacklen)
        net_memcpy(h + tl, sack, sacklen);
    if (sg)
        sg->sent_t = tcp_sent_stamp(c, now_ns);
    uint32_t more = nchain ? chain_slots(c, p, sg, nchain) : 0;

    if (v6) {
        uint16_t plen_be = net_htons((uint16_t)(p->len + more - l2 - IP6_HDR_LEN));
        net_memcpy(h + l2 + 4, &plen_be, 2);
    } else {
        struct ip4_hdr *ip = (struct ip4_hdr *)(void *)(h + l2);
        uint16_t tot_be = net_htons((uint16_t)(p->len + more - l2)), id_be = net_htons(s->ip_id++);
        ip->len_be = tot_be;
        ip->id_be = id_be;
        ip->csum = csum_finish(csum_add(c->route_sum, (uint32_t)tot_be + id_be));
    }

    uint8_t *t = h + l2 + iphl;
    uint32_t seq_be = net_htonl(seq), ack_be = (flags & TCP_ACK) ? net_htonl(c->rcv_nxt) : 0;
    uint16_t off_flags = net_htons((uint16_t)((tcp_hl / 4) << 12 | flags)); /* bytes 12, 13 */
    uint16_t wnd_be = net_htons(window_field(c));
    uint16_t sum = csum_fold(csum_add(c->pseudo_sum, net_htons((uint16_t)(hl - l2 - iphl + len + more))));
    net_memcpy(t + 4, &seq_be, 4);
    net_memcpy(t + 8, &ack_be, 4);
    net_memcpy(t + 12, &off_flags, 2);
    net_memcpy(t + 14, &wnd_be, 2);
    net_memcpy(t + 16, &sum, 2);
    if (c->flags & TCP_CF_TS) {
        uint32_t v = net_htonl(tcp_ts_now(now_ns) + c->ts_offset), e = net_htonl(c->ts_recent);
        net_memcpy(t + TCP_HDR_LEN + 4, &v, 4);
        net_memcpy(t + TCP_HDR_LEN + 8, &e, 4);
    }
    acked_now(c);

    p->flags = PKT_TX_L4_CSUM;
    p->csum_start = (uint16_t)(l2 + iphl);
    p->csum_offset = (uint16_t)offsetof(struct tcp_hdr, csum);
    p->tso_mss = 0;
    uint32_t segs = 1;
    if (NET_UNLIKELY(more)) {
        p->flags = PKT_TX_L4_CSUM | (v6 ? PKT_TX_TSO6 : PKT_TX_TSO4) | PKT_F_CHAIN;
        p->tso_mss = c->seg_size;
        segs = (len + more + c->seg_size - 1u) / c->seg_size; /* as the NIC cuts it */
        s->ctr.tcp_tso++;
    } else if (NET_UNLIKELY(p->len < ETH_MIN_LEN) && !pad(s, p)) {
        return -1; /* (a TSO frame is longer: padding its head would add data) */
    }
    if (NET_UNLIKELY(c->hdr_sw_csum))
        csum_pkt_finish(p);
    s->ctr.tcp_tx += segs;
    if (v6)
        s->ctr.ip6_tx += segs;
    else
        s->ctr.ip4_tx += segs;
    net_tx(s, ifc, p);
    return 0;
}

static __attribute__((noinline)) int xmit6(struct tcp_conn *c, struct tcp_seg *sg, uint32_t seq, uint32_t len,
                                           uint8_t flags, uint64_t now_ns, uint32_t nchain)
{
    return xmit_ip(c, sg, seq, len, flags, now_ns, nchain, true);
}

/* IPv4's copy; an IPv6 connection, whose route_until_ns is always 0,
 * goes on to xmit6 from the template check, costing IPv4 nothing. */
static int xmit(struct tcp_conn *c, struct tcp_seg *sg, uint32_t seq, uint32_t len, uint8_t flags,
                uint64_t now_ns, uint32_t nchain)
{
    return xmit_ip(c, sg, seq, len, flags, now_ns, nchain, false);
}

int tcp_send_syn(struct tcp_conn *c, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.tcp_no_buf++;
        return -1;
    }
    bool synack = c->state == TCP_SYN_RECEIVED;
    uint32_t optlen = tcp_opt_syn(p->data + TCP_HDR_LEN, tcp_conn_our_mss(c),
                                  (c->flags & TCP_CF_SACK) != 0, (c->flags & TCP_CF_TS) != 0,
                                  (c->flags & TCP_CF_WS) ? c->rcv_wscale : -1,
                                  tcp_ts_now(now_ns) + c->ts_offset, synack ? c->ts_recent : 0);
    uint32_t wnd = tcp_rcv_window(c);
    p->len = (uint16_t)(TCP_HDR_LEN + optlen);
    struct seg_addrs a = conn_addrs(c);
    fill_hdr(p, &a, c->lport, c->rport, c->iss, c->rcv_nxt,
             synack ? TCP_SYN | TCP_ACK : TCP_SYN, (uint16_t)(wnd > 0xffff ? 0xffff : wnd),
             TCP_HDR_LEN + optlen);
    if (synack) {
        c->rcv_adv = c->rcv_nxt + (wnd > 0xffff ? 0xffff : wnd);
        c->last_ack_sent = c->rcv_nxt;
        c->flags &= ~(uint32_t)TCP_CF_ACK_NOW; /* the SYN-ACK acknowledges the SYN */
    }
    return ip_out(s, p, &a, now_ns);
}

void tcp_send_ack(struct tcp_conn *c, uint64_t now_ns)
{
    xmit(c, NULL, c->snd_nxt, 0, TCP_ACK, now_ns, 0);
}

void tcp_send_probe(struct tcp_conn *c, uint64_t now_ns)
{
    /* One already acknowledged: the peer answers with its window. */
    xmit(c, NULL, c->snd_una - 1, 0, TCP_ACK, now_ns, 0);
}

void tcp_send_rst(struct tcp_conn *c, uint64_t now_ns)
{
    c->t->s->ctr.tcp_rst_tx++;
    xmit(c, NULL, c->snd_nxt, 0, TCP_RST | TCP_ACK, now_ns, 0);
}

static void send_raw(struct tcp_stack *t, const struct tcp_in *seg, uint32_t seq, uint32_t ack,
                     uint8_t flags, const uint8_t *opt, uint32_t optlen, uint16_t wnd, uint64_t now_ns)
{
    struct net_stack *s = t->s;
    struct pkt *p = pkt_alloc(s->pool);
    if (p == NULL) {
        s->ctr.tcp_no_buf++;
        return;
    }
    net_memcpy(p->data + TCP_HDR_LEN, opt, optlen);
    p->len = (uint16_t)(TCP_HDR_LEN + optlen);
    struct seg_addrs a = {.src_be = seg->dst_be, .dst_be = seg->src_be, .port = seg->port};
    if (tcp_in_is6(seg)) {
        a.src6 = seg->dst6;
        a.dst6 = seg->src6;
    }
    fill_hdr(p, &a, seg->dport, seg->sport, seq, ack, flags, wnd, TCP_HDR_LEN + optlen);
    ip_out(s, p, &a, now_ns);
}

void tcp_reply_rst(struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns)
{
    if (seg->flags & TCP_RST)
        return;
    t->s->ctr.tcp_rst_tx++;
    if (seg->flags & TCP_ACK) {
        send_raw(t, seg, seg->ack, 0, TCP_RST, NULL, 0, 0, now_ns);
        return;
    }
    uint32_t ack = seg->seq + seg->len + ((seg->flags & TCP_SYN) ? 1 : 0) + ((seg->flags & TCP_FIN) ? 1 : 0);
    send_raw(t, seg, 0, ack, TCP_RST | TCP_ACK, NULL, 0, 0, now_ns);
}

void tcp_send_cookie_synack(struct tcp_stack *t, const struct tcp_in *seg, uint32_t iss,
                            uint16_t mss, uint64_t now_ns)
{
    uint8_t opt[TCP_MAX_OPT_LEN];
    int ws = -1;
    if (seg->opt.has_ws && t->cfg.wscale)
        ws = (int)tcp_wscale_for(tcp_cfg_rcv_max(&t->cfg));
    bool ts = seg->opt.has_ts && t->cfg.timestamps;
    uint32_t optlen = tcp_opt_syn(opt, mss, seg->opt.sack_ok && t->cfg.sack, ts, ws,
                                  tcp_ts_now(now_ns) + (tcp_in_is6(seg) ? tcp_ts_offset6(t, seg->dst6, seg->src6)
                                                                        : tcp_ts_offset(t, seg->dst_be, seg->src_be)),
                                  seg->opt.tsval);
    uint32_t wnd = t->cfg.rcvbuf > 0xffff ? 0xffff : t->cfg.rcvbuf;
    send_raw(t, seg, iss, seg->seq + 1, TCP_SYN | TCP_ACK, opt, optlen, (uint16_t)wnd, now_ns);
}

/* ---- Choosing what to send ---- */

/* Send [from, to) of slot sg again in segments; false when a buffer ran
 * out. The end of the data takes our FIN again when it has gone: the
 * segment that carried it (or was followed by it) is being repaired, and
 * the peer holds neither (Linux resends the skb, FIN and all). */
static bool send_range(struct tcp_conn *c, struct tcp_seg *sg, uint32_t from, uint32_t to, uint64_t now_ns)
{
    uint8_t extra = (c->flags & TCP_CF_FIN_SENT) && to == c->snd_end ? TCP_FIN : 0;
    while (SEQ_LT(from, to)) {
        uint32_t n = to - from < c->seg_size ? to - from : c->seg_size;
        uint8_t fl = TCP_ACK | (from + n == to ? extra : 0);
        if (xmit(c, sg, from, n, fl, now_ns, 0) < 0)
            return false;
        sg->flags |= TCP_SEG_AGAIN;
        from += n;
    }
    return true;
}

void tcp_count_retransmit(struct tcp_conn *c, uint32_t from, uint32_t to)
{
    c->t->s->ctr.tcp_retransmit++;
    c->retransmits++;
    if (c->undo_on && (c->flags & TCP_CF_IN_RECOVERY)) /* (a probe after it is not the episode's) */
        tcp_undo_note(c, from, to);
}

void tcp_retransmit_first(struct tcp_conn *c, uint64_t now_ns)
{
    if (tcp_sent_slots(c) == 0) {
        /* Only our FIN is out: it is the first unacknowledged (send_lost sends it). */
        if ((c->flags & TCP_CF_FIN_SENT) && c->snd_una == c->snd_end)
            c->flags |= TCP_CF_FIN_LOST;
        return;
    }
    struct tcp_seg *sg = tcp_sq_at(c, 0);
    uint32_t from = SEQ_GT(c->snd_una, sg->seq) ? c->snd_una : sg->seq;
    uint32_t to = sg->seq + sg->len;
    if (SEQ_GT(to, c->snd_nxt))
        to = c->snd_nxt;
    if (!(sg->flags & (TCP_SEG_LOST | TCP_SEG_SACKED)))
        c->nmarked++;
    sg->flags = (uint8_t)((sg->flags & ~TCP_SEG_SACKED) | TCP_SEG_LOST | TCP_SEG_RETX);
    c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING; /* Karn */
    if (send_range(c, sg, from, to, now_ns))
        tcp_count_retransmit(c, from, to);
    else
        sg->flags &= (uint8_t)~TCP_SEG_RETX; /* still to send: send_lost's */
}

/* Lost slots go first (RFC 6675 NextSeg rule 1), as the window allows. */
static uint32_t send_lost(struct tcp_conn *c, uint32_t pipe, uint64_t now_ns)
{
    uint32_t n = tcp_sent_slots(c);
    for (uint32_t i = 0; i < n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        if ((sg->flags & (TCP_SEG_LOST | TCP_SEG_RETX | TCP_SEG_SACKED)) != TCP_SEG_LOST)
            continue;
        if (pipe >= c->cwnd)
            break;
        uint32_t from = SEQ_GT(c->snd_una, sg->seq) ? c->snd_una : sg->seq;
        uint32_t to = sg->seq + sg->len;
        if (SEQ_GT(to, c->snd_nxt))
            to = c->snd_nxt;
        sg->flags |= TCP_SEG_RETX;
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
        uint32_t fin_lost = to == c->snd_end ? c->flags & TCP_CF_FIN_LOST : 0; /* send_range sends it */
        c->flags &= ~fin_lost;
        if (!send_range(c, sg, from, to, now_ns)) {
            sg->flags &= (uint8_t)~TCP_SEG_RETX; /* no buffer, or the port is full: again later */
            c->flags |= fin_lost;
            break;
        }
        tcp_count_retransmit(c, from, to);
        pipe += to - from;
    }
    if ((c->flags & TCP_CF_FIN_LOST) && c->snd_una == c->snd_end && pipe < c->cwnd) {
        c->flags &= ~(uint32_t)TCP_CF_FIN_LOST;
        tcp_count_retransmit(c, c->snd_end, c->snd_end + 1u);
        xmit(c, NULL, c->snd_end, 0, TCP_ACK | TCP_FIN, now_ns, 0);
        pipe++;
    }
    return pipe;
}

/* With TSO (NETDEV_OFF_TSO4, or TSO6, and TX checksums): how many whole, unshared
 * slots from sq_nxt on go out as one frame within room bytes, the first
 * with headroom for the headers; their payload in *bytes. Under 2: send
 * plain segments. Not while SACK blocks ride on our segments. */
static uint32_t tso_gather(struct tcp_conn *c, uint32_t room, uint64_t now_ns, uint32_t *bytes)
{
    const struct netdev *dev = c->t->s->iface[c->route_port].dev;
    bool v6 = tcp_conn_is6(c);
    uint32_t want = (v6 ? NETDEV_OFF_TSO6 : NETDEV_OFF_TSO4) | NETDEV_OFF_TX_CSUM;
    if (dev == NULL || (dev->offloads & want) != want || now_ns >= (v6 ? c->route6_until_ns : c->route_until_ns) ||
        ((c->flags & TCP_CF_SACK) && c->ooo))
        return 0;
    uint32_t hdr_len = TCP_HDR_LEN + ((c->flags & TCP_CF_TS) ? TCP_TS_ALIGNED_LEN : 0);
    const struct tcp_seg *sg = tcp_sq_at(c, c->sq_nxt);
    if (sg->seq != c->snd_nxt || sg->off < hdr_len + (v6 ? TCP_LINK_RESERVE6 : TCP_LINK_RESERVE))
        return 0;
    if (room > TCP_TSO_MAX)
        room = TCP_TSO_MAX;
    uint32_t n = 0, sum = 0;
    for (uint32_t i = c->sq_nxt; i < c->sq_n && n < TCP_TSO_SLOTS; i++, n++) {
        const struct tcp_seg *e = tcp_sq_at(c, i);
        if (pkt_shared(e->p) || sum + e->len > room)
            break;
        sum += e->len;
    }
    *bytes = sum;
    return n;
}

/* len new bytes (and the FIN) went out at snd_nxt. */
static void sent_new(struct tcp_conn *c, uint32_t len, bool fin, uint64_t now_ns)
{
    c->flags &= ~(uint32_t)TCP_CF_FORCE;
    if (!(c->flags & TCP_CF_RTT_TIMING)) {
        c->flags |= TCP_CF_RTT_TIMING;
        c->rtt_seq = c->snd_nxt + len;
        c->rtt_start_ns = now_ns;
    }
    c->snd_nxt += len;
    if (fin) {
        c->flags |= TCP_CF_FIN_SENT;
        c->snd_nxt++;
    }
}

/* A short segment of slot sg may go: from one of TCP's own slots
 * (TCP_SEG_COPY, which small writes join while it is last and unsent)
 * only while fewer slots than cwnd holds full segments are out. cwnd counts bytes, and the flight of tiny segments it
 * would let out (thousands a window) overruns queues and the peer's
 * out-of-order buffers at the first loss. Held back, the small writes
 * join in the open slot (tcp_send, tcp_write): as in Linux, whose cwnd
 * counts segments. */
static inline bool short_may_go(const struct tcp_conn *c, const struct tcp_seg *sg)
{
    return !(sg->flags & TCP_SEG_COPY) || (uint32_t)c->sq_nxt * c->seg_size < c->cwnd;
}

/* New data from snd_nxt on, as the peer's window and cwnd allow. A short
 * segment waits for Nagle (RFC 9293 3.7.4) when that is on, and while
 * short_may_go says no; one cut short by the window goes only when it is
 * at least half the largest window the peer offered (sender SWS
 * avoidance, 3.8.6.2.1) or the persist timer fired. */
static void send_new(struct tcp_conn *c, uint32_t pipe, uint64_t now_ns)
{
    if (c->sq_nxt + 1u == c->sq_n) {
        /* Request and response: the one slot queued goes whole, in one
         * segment both windows take, full or with nothing else out (Nagle
         * and short_may_go let it; no TSO, SWS or partial slot to
         * decide): what the loop below would do, sooner. */
        struct tcp_seg *sg = tcp_sq_at(c, c->sq_nxt);
        uint32_t len = sg->len;
        if (sg->seq == c->snd_nxt && len <= c->seg_size && SEQ_LEQ(c->snd_nxt + len, c->snd_una + c->snd_wnd) &&
            pipe + len <= c->cwnd && (len == c->seg_size || c->sq_nxt == 0)) {
            bool fin = (c->flags & (TCP_CF_FIN_QUEUED | TCP_CF_FIN_SENT)) == TCP_CF_FIN_QUEUED;
            if (xmit(c, sg, c->snd_nxt, len, TCP_ACK | TCP_PSH | (fin ? TCP_FIN : 0), now_ns, 0) == 0) {
                sent_new(c, len, fin, now_ns);
                c->sq_nxt++;
            }
            return;
        }
    }
    while (c->sq_nxt < c->sq_n) {
        struct tcp_seg *sg = tcp_sq_at(c, c->sq_nxt);
        uint32_t off = c->snd_nxt - sg->seq;
        uint32_t avail = sg->len - off;
        if (avail > c->seg_size)
            avail = c->seg_size;
        uint32_t wnd_edge = c->snd_una + c->snd_wnd;
        uint32_t wroom = SEQ_GT(wnd_edge, c->snd_nxt) ? wnd_edge - c->snd_nxt : 0;
        uint32_t croom = c->cwnd > pipe ? c->cwnd - pipe : 0;
        uint32_t len = avail;
        if (len > wroom)
            len = wroom;
        if (len > croom)
            len = croom;
        bool force = (c->flags & TCP_CF_FORCE) != 0;
        if (len == 0)
            break;
        uint32_t bytes, nslots = 0;
        if (off == 0 && c->sq_nxt + 1u < c->sq_n) /* two whole slots at least */
            nslots = tso_gather(c, wroom < croom ? wroom : croom, now_ns, &bytes);
        while (nslots >= 2 && (c->flags & TCP_CF_NAGLE) && c->snd_nxt != c->snd_una && bytes % c->seg_size) {
            /* Nagle (RFC 9293 3.7.4): a short segment at the end waits. */
            bytes -= tcp_sq_at(c, c->sq_nxt + nslots - 1u)->len;
            nslots--;
        }
        if (nslots >= 2) {
            bool last = c->sq_nxt + nslots == c->sq_n;
            bool fin = last && (c->flags & TCP_CF_FIN_QUEUED) && !(c->flags & TCP_CF_FIN_SENT);
            uint8_t fl = TCP_ACK | (last ? TCP_PSH : 0) | (fin ? TCP_FIN : 0);
            if (xmit(c, sg, c->snd_nxt, sg->len, fl, now_ns, nslots - 1u) < 0)
                break;
            sent_new(c, bytes, fin, now_ns);
            pipe += bytes;
            c->sq_nxt = (uint16_t)(c->sq_nxt + nslots);
            continue;
        }
        if (len < avail) {
            if (!force && len < c->max_snd_wnd / 2)
                break;
        } else if (len < c->seg_size && !force &&
                   (((c->flags & TCP_CF_NAGLE) && c->snd_nxt != c->snd_una) || !short_may_go(c, sg))) {
            break;
        }
        bool last = len == avail && c->sq_nxt + 1u == c->sq_n && off + len == sg->len;
        bool fin = last && (c->flags & TCP_CF_FIN_QUEUED) && !(c->flags & TCP_CF_FIN_SENT);
        uint8_t fl = TCP_ACK | (last ? TCP_PSH : 0) | (fin ? TCP_FIN : 0);
        if (xmit(c, sg, c->snd_nxt, len, fl, now_ns, 0) < 0)
            break;
        sent_new(c, len, fin, now_ns);
        pipe += len;
        if (SEQ_GEQ(c->snd_nxt, sg->seq + sg->len))
            c->sq_nxt++;
    }
}

void tcp_output(struct tcp_conn *c, uint64_t now_ns)
{
    if (c->state == TCP_SYN_SENT || c->state == TCP_CLOSED)
        return;
    /* SYN-RECEIVED sends no data yet, but does answer (RFC 5961 challenge
     * ACKs, segments out of the window): SEQ = ISS + 1, ACK = RCV.NXT. */
    if (c->state == TCP_SYN_RECEIVED || c->state == TCP_TIME_WAIT || !tcp_can_send_data(c->state)) {
        if (c->flags & TCP_CF_ACK_NOW)
            tcp_send_ack(c, now_ns);
        return;
    }
    uint32_t pipe = c->snd_nxt - c->snd_una;
    if (NET_UNLIKELY(c->nmarked || (c->flags & TCP_CF_FIN_LOST)))
        pipe = send_lost(c, tcp_pipe(c), now_ns);
    send_new(c, pipe, now_ns);
    if ((c->flags & TCP_CF_FIN_QUEUED) && !(c->flags & TCP_CF_FIN_SENT) && c->snd_nxt == c->snd_end &&
        c->sq_nxt == c->sq_n) {
        /* Sent or not (no buffer), it is in flight: the RTO resends it;
         * but a FIN the full port holds back waits, like data, for room. */
        if (xmit(c, NULL, c->snd_nxt, 0, TCP_ACK | TCP_FIN, now_ns, 0) == 0 || !(c->flags & TCP_CF_TX_WAIT)) {
            c->flags |= TCP_CF_FIN_SENT;
            c->snd_nxt++;
        }
    }
    if (c->flags & TCP_CF_ACK_NOW)
        tcp_send_ack(c, now_ns);
    if (c->snd_nxt != c->snd_una) {
        if (c->rto_at == 0 || (c->flags & TCP_CF_PERSIST)) {
            c->flags &= ~(uint32_t)TCP_CF_PERSIST;
            tcp_loss_timer_arm(c, now_ns);
        } else if (!(c->flags & (TCP_CF_PTO | TCP_CF_REO))) {
            tcp_pto_arm(c, now_ns);
        }
    } else if (c->sq_nxt < c->sq_n && c->rto_at == 0) {
        /* Data waits on the peer's window: probe it (RFC 9293 3.8.6.1). */
        c->flags |= TCP_CF_PERSIST;
        c->persist_since_ns = now_ns;
        c->persist_shift = 0;
        tcp_rto_arm(c, now_ns);
    }
}

void tcp_send_tlp(struct tcp_conn *c, uint64_t now_ns)
{
    uint32_t before = c->snd_nxt, cwnd = c->cwnd;
    c->flags = (c->flags & ~(uint32_t)TCP_CF_TLP_RETX) | TCP_CF_TLP;
    c->cwnd = c->snd_nxt - c->snd_una + c->seg_size; /* room for one segment, whatever cwnd says */
    tcp_output(c, now_ns);
    c->cwnd = cwnd;
    if (c->snd_nxt == before) { /* nothing new to send, or no window: the last segment again */
        uint32_t n = tcp_sent_slots(c), end = c->snd_nxt;
        bool fin = (c->flags & TCP_CF_FIN_SENT) && end == c->snd_end + 1;
        if (fin)
            end--;
        struct tcp_seg *sg = n ? tcp_sq_at(c, n - 1) : NULL;
        uint32_t from = end - c->seg_size;
        if (sg == NULL || SEQ_LEQ(end, sg->seq)) { /* the FIN alone */
            if (fin)
                xmit(c, NULL, end, 0, TCP_ACK | TCP_FIN, now_ns, 0);
        } else {
            if (SEQ_LT(from, sg->seq))
                from = sg->seq;
            if (SEQ_LT(from, c->snd_una))
                from = c->snd_una;
            send_range(c, sg, from, end, now_ns); /* (the FIN with it) */
        }
        c->flags |= TCP_CF_TLP_RETX;
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING; /* Karn */
        tcp_count_retransmit(c, sg == NULL || SEQ_LEQ(end, sg->seq) ? end : from, c->snd_nxt);
    }
    c->tlp_end = c->snd_nxt;
    c->t->s->ctr.tcp_tlp++;
    tcp_rto_arm(c, now_ns); /* the probe's answer, or the RTO */
}
