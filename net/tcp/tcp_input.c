/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_input.c: TCP input (RFC 9293 section 3.10.7, SEGMENT ARRIVES):
 * header and checksum checks, the way to LISTEN and SYN-SENT (tcp_open.c),
 * header prediction for the synchronized states, and their full checks
 * for the rest (tcp_input_synced.c).
 *
 * IPv4 segments come through tcp_input, IPv6 ones through tcp_input6 (the
 * RFC 8200 8.1 pseudo-header); both take the same state machine, and an
 * established connection's usual segment takes header prediction
 * (fast_path) with the new-ACK work inline. A connection's usual IPv4 or
 * IPv6 frame comes straight from eth_input (tcp_input_frame4, _frame6),
 * IP's and TCP's checks done at once, those its connection makes needless
 * skipped.
 *
 * Every segment dropped as malformed increments one named counter (see
 * net/core/counter.h, TCP_COUNTERS). */
#include "core/csum.h"
#include "core/env.h"
#include "ip/ip4.h"
#include "ip/ip6.h"
#include "net.h"
#include "tcp_impl.h"
#include "core/wire.h"

/* Header prediction (Van Jacobson's, as in 4.4BSD): on an established
 * connection with nothing unusual going on, a segment that is next in
 * sequence, carries at most ACK and PSH (and timestamps), and either
 * acknowledges new data or brings data that fits the window takes the
 * short way through the checks of RFC 9293 3.10.7.4; the outcome is what
 * the full path would do. Unlike 4.4BSD's, a new window is taken here too
 * (a receiver that scales its window moves the field every few bytes it
 * reads) when the update rule of 3.10.7.4 allows. True when handled. */
static inline __attribute__((always_inline)) bool fast_path(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
{
    const uint32_t unusual = TCP_CF_IN_RECOVERY | TCP_CF_FIN_QUEUED | TCP_CF_PEER_FIN | TCP_CF_PERSIST |
                             TCP_CF_FIN_OOO | TCP_CF_TLP;
    uint32_t ack = seg->ack;
    if (c->state != TCP_ESTABLISHED || (seg->flags & (uint8_t)~TCP_PSH) != TCP_ACK || seg->seq != c->rcv_nxt ||
        (c->flags & unusual) || c->ooo || c->nmarked || seg->opt.nsack || SEQ_LT(ack, c->snd_una) ||
        SEQ_GT(ack, c->snd_nxt))
        return false;
    uint32_t wnd = seg->wnd << c->snd_wscale;
    bool update = SEQ_LT(c->snd_wl1, seg->seq) || (c->snd_wl1 == seg->seq && SEQ_LEQ(c->snd_wl2, ack));
    if (wnd != c->snd_wnd && !update)
        return false;
    if ((c->flags & TCP_CF_TS) && (!seg->opt.has_ts || SEQ_LT(seg->opt.tsval, c->ts_recent)))
        return false;
    if (seg->len) {
        uint32_t rwnd = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
        if (seg->len > rwnd)
            return false;
    } else if (ack == c->snd_una) {
        return false; /* a duplicate ACK or a probe */
    }
    /* RFC 7323 4.3: only up to Last.ACK.sent, so that a delayed ACK echoes
     * the earliest segment it acknowledges (the peer's RTT has the delay). */
    if ((c->flags & TCP_CF_TS) && SEQ_LEQ(seg->seq, c->last_ack_sent))
        c->ts_recent = seg->opt.tsval;
    if (c->flags & TCP_CF_KEEPALIVE)
        tcp_keepalive_touch(c, now_ns);
    if (update) {
        tcp_snd_wnd_set(c, wnd);
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = ack;
    }
    if (SEQ_GT(ack, c->snd_una) && !tcp_new_ack(c, ack, now_ns))
        return true;
    if (seg->len)
        tcp_rcv_in_order(c, seg, now_ns);
    return true;
}

/* A SYN for a connection in TIME-WAIT opens a new incarnation (RFC 6191
 * 2): when both use timestamps, by a newer TSval (or the same and a later
 * sequence: Linux's offsets are per address pair, so its TSvals go on
 * rising across connections); else by a later sequence (RFC 9293
 * 3.10.7.4). */
static __attribute__((noinline)) bool tw_new_incarnation(const struct tcp_conn *c, const struct tcp_in *seg)
{
    if ((seg->flags & (TCP_SYN | TCP_ACK | TCP_RST)) != TCP_SYN || (c->flags & TCP_CF_BUSY))
        return false;
    if ((c->flags & TCP_CF_TS) && seg->opt.has_ts)
        return SEQ_GT(seg->opt.tsval, c->ts_recent) ||
               (seg->opt.tsval == c->ts_recent && SEQ_GT(seg->seq, c->rcv_nxt));
    return SEQ_GT(seg->seq, c->rcv_nxt);
}

 /* seg to its connection c (NULL: none, LISTEN). */
static inline __attribute__((always_inline)) void segment_to(struct tcp_stack *t, struct tcp_conn *c, struct tcp_in *seg,
                                                             uint64_t now_ns)
{
    if (c && c->state == TCP_TIME_WAIT && tw_new_incarnation(c, seg)) {
        t->s->ctr.tcp_tw_recycled++;
        tcp_conn_free(c);
        c = NULL;
    }
    if (c == NULL) {
        tcp_listen_input(t, seg, now_ns);
    } else {
        c->flags |= TCP_CF_BUSY;
        if (c->state == TCP_SYN_SENT)
            tcp_syn_sent_input(c, seg, now_ns);
        else if (!fast_path(c, seg, now_ns))
            tcp_synced_input(c, seg, now_ns);
        tcp_conn_unbusy(c, now_ns);
    }
    if (seg->p) {
        pkt_free(seg->p);
        seg->p = NULL;
    }
}

static inline __attribute__((always_inline)) void tcp_input_segment(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns)
{
    segment_to(t, tcp_conn_lookup(t, seg->dst_be, seg->src_be, seg->dport, seg->sport), seg, now_ns);
}

static __attribute__((noinline)) void tcp_input_segment6(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns)
{
    segment_to(t, tcp_conn_lookup6(t, seg->dst6, seg->src6, seg->dport, seg->sport), seg, now_ns);
}

void tcp_input_again(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns)
{
    if (tcp_in_is6(seg))
        tcp_input_segment6(t, seg, now_ns);
    else
        tcp_input_segment(t, seg, now_ns);
}

/* The control bits (no SYN with FIN or RST, one of SYN, RST, ACK) and
 * the ports (not 0) of either family's segment; false when dropped
 * (counted). */
static inline bool flags_ports_ok(struct net_stack *s, const struct tcp_hdr *h)
{
    uint8_t f = h->flags;
    if ((f & (TCP_SYN | TCP_FIN)) == (TCP_SYN | TCP_FIN) || (f & (TCP_SYN | TCP_RST)) == (TCP_SYN | TCP_RST) ||
        !(f & (TCP_SYN | TCP_RST | TCP_ACK)))
        s->ctr.tcp_bad_flags++;
    else if (h->sport_be == 0 || h->dport_be == 0)
        s->ctr.tcp_bad_port++;
    else
        return true;
    return false;
}

/* Header checks; false when the segment is to be dropped (counted). */
static bool header_ok(struct net_stack *s, const struct ip4_rx *rx, uint32_t *hlen)
{
    const struct tcp_hdr *h = (const struct tcp_hdr *)rx->l4;
    uint32_t n = rx->l4_len;
    int verdict = ip4_rx_l4_csum(rx);

    if (n < TCP_HDR_LEN) {
        s->ctr.tcp_runt++;
        return false;
    }
    *hlen = (uint32_t)(h->off >> 4) * 4;
    if (*hlen < TCP_HDR_LEN || *hlen > n)
        s->ctr.tcp_bad_offset++;
    else if (verdict < 0 ||
             (verdict == 0 &&
              csum_fold(csum_partial(h, n, csum_pseudo4(rx->src_be, rx->dst_be, IP4_PROTO_TCP, (uint16_t)n))) !=
                  0xffff))
        s->ctr.tcp_bad_checksum++;
    else if (!flags_ports_ok(s, h))
        return false; /* counted there */
    else if (rx->src_be == rx->dst_be && h->sport_be == h->dport_be)
        s->ctr.tcp_land++;
    else if (rx->bcast || ip4_is_mcast(rx->dst_be))
        s->ctr.tcp_bcast++;
    else
        return true;
    return false;
}

/* The usual options of an established connection: none, or NOP NOP TS
 * (RFC 7323 appendix A's layout). True when that is all there is. */
static inline __attribute__((always_inline)) bool opts_ts_only(const uint8_t *opt, uint32_t len, struct tcp_opts *o)
{
    if (len == 0) {
        o->has_ts = false;
    } else if (len == TCP_TS_ALIGNED_LEN && opt[0] == TCP_OPT_NOP && opt[1] == TCP_OPT_NOP &&
               opt[2] == TCP_OPT_TS && opt[3] == TCP_OPT_TS_LEN) {
        uint32_t v, e;
        net_memcpy(&v, opt + 4, 4);
        net_memcpy(&e, opt + 8, 4);
        o->has_ts = true;
        o->tsval = net_ntohl(v);
        o->tsecr = net_ntohl(e);
    } else {
        return false;
    }
    o->has_mss = o->has_ws = o->sack_ok = false;
    o->nsack = 0;
    return true;
}

/* The header's fields into seg, but for the addresses and options; len:
 * of the payload. */
static inline __attribute__((always_inline)) void seg_hdr(struct tcp_in *seg, const struct tcp_hdr *h, uint16_t port,
                                                          uint32_t len)
{
    seg->sport = net_ntohs(h->sport_be);
    seg->dport = net_ntohs(h->dport_be);
    seg->seq = net_ntohl(h->seq_be);
    seg->ack = net_ntohl(h->ack_be);
    seg->wnd = net_ntohs(h->win_be);
    seg->flags = h->flags;
    seg->port = port;
    seg->len = len;
    seg->p = NULL;
}

/* The options and fields of the segment at l4 (n bytes, hlen of header)
 * into seg, but for the addresses; false on a bad option (counted). */
static inline __attribute__((always_inline)) bool seg_fields(struct net_stack *s, const uint8_t *l4, uint32_t n,
                                                             uint32_t hlen, uint16_t port, struct tcp_in *seg)
{
    if (!opts_ts_only(l4 + TCP_HDR_LEN, hlen - TCP_HDR_LEN, &seg->opt)) {
        net_memset(&seg->opt, 0, sizeof(seg->opt));
        if (tcp_opt_parse(l4 + TCP_HDR_LEN, hlen - TCP_HDR_LEN, &seg->opt) < 0) {
            s->ctr.tcp_bad_option++;
            return false;
        }
    }
    seg_hdr(seg, (const struct tcp_hdr *)l4, port, n - hlen);
    return true;
}

/* The payload stays where it is, in p (from payload on): the application
 * gets this buffer. Takes p. */
static inline __attribute__((always_inline)) void seg_payload(struct tcp_in *seg, struct pkt *p, const uint8_t *payload)
{
    pkt_pull(p, (uint32_t)(payload - p->data));
    p->len = (uint16_t)seg->len;
    p->flags = 0;
    p->user = 0; /* (what eth_input leaves: the frame path skips it) */
    p->next = NULL;
    if (seg->len)
        seg->p = p;
    else
        pkt_free(p);
}

/* A segment reassembled in the stack's scratch area: what fits a buffer
 * copied into one, the FIN left for the rest, which the peer sends again.
 * False when there is no buffer (counted). */
static __attribute__((noinline, cold)) bool reassembled_payload(struct net_stack *s, const uint8_t *data,
                                                                struct tcp_in *seg)
{
    struct pkt *q = pkt_alloc(s->pool);
    if (q == NULL) {
        s->ctr.tcp_no_buf++;
        return false;
    }
    if (seg->len > PKT_DATA_ROOM) {
        seg->len = PKT_DATA_ROOM;
        seg->flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
    }
    net_memcpy(q->data, data, seg->len);
    q->len = (uint16_t)seg->len;
    seg->p = q;
    return true;
}

void tcp_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    struct pkt *p = rx->pkt;
    uint32_t hlen = 0;
    struct tcp_in seg;

    s->ctr.tcp_rx++;
    t->now_ns = now_ns;
    if (!header_ok(s, rx, &hlen))
        goto drop;
    if (!seg_fields(s, rx->l4, rx->l4_len, hlen, rx->port, &seg))
        goto drop;
    seg.src_be = rx->src_be;
    seg.dst_be = rx->dst_be;
    if (p) {
        seg_payload(&seg, p, rx->l4 + hlen);
        p = NULL;
    } else if (seg.len && !reassembled_payload(s, rx->l4 + hlen, &seg)) {
        return;
    }
    tcp_input_segment(t, &seg, now_ns);
    return;
drop:
    if (p)
        pkt_free(p);
}

/* The frame most input is, taken from Ethernet up in one go rather than
 * through ip4_input and tcp_input: IPv4 with a 20-byte header to this
 * port's address, not a fragment, its checksum right; TCP with ACK and
 * neither SYN nor RST, the NIC's checksum verdict good; for a connection
 * past SYN-SENT. The rest of what those layers check holds for it: that
 * connection's segments passed them once, from the same addresses and
 * ports (no martian or local source, no port 0). A segment to itself
 * (land) goes the long way, to be dropped. False: not such a frame,
 * nothing done (eth_input takes it up the layers). */
bool tcp_input_frame4(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    const struct ip4_hdr *ip = (const struct ip4_hdr *)(const void *)(p->data + ETH_HDR_LEN);
    const uint8_t *l4 = p->data + ETH_HDR_LEN + IP4_HDR_LEN;
    const struct tcp_hdr *h = (const struct tcp_hdr *)(const void *)l4;
    if (t == NULL || p->len < ETH_HDR_LEN + IP4_HDR_LEN + TCP_HDR_LEN || ip->ver_ihl != 0x45 ||
        ip->proto != IP4_PROTO_TCP || (h->flags & (TCP_SYN | TCP_RST | TCP_ACK)) != TCP_ACK ||
        (p->flags & (PKT_RX_L4_CSUM_OK | PKT_RX_L4_CSUM_BAD)) != PKT_RX_L4_CSUM_OK)
        return false;
    uint32_t tot = net_ntohs(ip->len_be), hlen = (uint32_t)(h->off >> 4) * 4u;
    if (tot > p->len - ETH_HDR_LEN || hlen < TCP_HDR_LEN || tot < IP4_HDR_LEN + hlen || ip4_is_frag(ip) ||
        ip->dst_be != ifc->addr_be || ip->dst_be == ifc->bcast_be || ip->src_be == ip->dst_be ||
        (!(p->flags & PKT_RX_IP_CSUM_OK) && !ip4_hdr20_sum_ok(ip)))
        return false;
    struct tcp_in seg;
    if (!opts_ts_only(l4 + TCP_HDR_LEN, hlen - TCP_HDR_LEN, &seg.opt)) /* (SACK blocks: the long way) */
        return false;
    struct tcp_conn *c = tcp_conn_lookup(t, ip->dst_be, ip->src_be, net_ntohs(h->dport_be), net_ntohs(h->sport_be));
    if (c == NULL || c->state == TCP_SYN_SENT)
        return false;
    s->ctr.ip4_rx++;
    s->ctr.ip4_local++;
    s->ctr.tcp_rx++;
    t->now_ns = now_ns;
    seg_hdr(&seg, h, p->port, tot - IP4_HDR_LEN - hlen);
    seg.src_be = ip->src_be;
    seg.dst_be = ip->dst_be;
    seg_payload(&seg, p, l4 + hlen);
    segment_to(t, c, &seg, now_ns);
    return true;
}

/* ---- IPv6 ---- */

/* header_ok for IPv6: the checksum over the pseudo-header of RFC 8200 8.1
 * unless the NIC checked it; no land, no multicast destination. */
static bool header6_ok(struct net_stack *s, const struct pkt *p, const struct ip6_hdr *ip, const uint8_t *l4,
                       uint32_t n, uint32_t *hlen)
{
    const struct tcp_hdr *h = (const struct tcp_hdr *)l4;
    if (n < TCP_HDR_LEN) {
        s->ctr.tcp_runt++;
        return false;
    }
    *hlen = (uint32_t)(h->off >> 4) * 4;
    if (*hlen < TCP_HDR_LEN || *hlen > n)
        s->ctr.tcp_bad_offset++;
    else if ((p->flags & PKT_RX_L4_CSUM_BAD) ||
             (!(p->flags & PKT_RX_L4_CSUM_OK) && ip6_l4_csum(ip->src, ip->dst, IP4_PROTO_TCP, l4, n) != 0))
        s->ctr.tcp_bad_checksum++;
    else if (!flags_ports_ok(s, h))
        return false; /* counted there */
    else if (ip6_eq(ip->src, ip->dst) && h->sport_be == h->dport_be)
        s->ctr.tcp_land++;
    else if (ip6_is_mcast(ip->dst))
        s->ctr.tcp_bcast++;
    else
        return true;
    return false;
}

void tcp_input6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    const struct ip6_hdr *ip = (const struct ip6_hdr *)p->data;
    const uint8_t *l4 = p->data + IP6_HDR_LEN;
    uint32_t n = p->len - IP6_HDR_LEN, hlen = 0;
    struct tcp_in seg;

    s->ctr.tcp_rx++;
    t->now_ns = now_ns;
    if (!header6_ok(s, p, ip, l4, n, &hlen) || !seg_fields(s, l4, n, hlen, ifc->port, &seg)) {
        pkt_free(p);
        return;
    }
    seg.src_be = seg.dst_be = 0; /* tcp_in_is6 */
    net_memcpy(seg.src6, ip->src, 16);
    net_memcpy(seg.dst6, ip->dst, 16);
    seg_payload(&seg, p, l4 + hlen);
    tcp_input_segment6(t, &seg, now_ns);
}

/* tcp_input_frame4 for IPv6: no extension header, to this port's address
 * or its link-local one (ip6_input's checks of the source, and the rest
 * of header6_ok's, that connection's segments passed); the counters
 * ip6_input and tcp_input6 keep. */
bool tcp_input_frame6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns)
{
    struct tcp_stack *t = s->tcp;
    const struct ip6_hdr *ip = (const struct ip6_hdr *)(const void *)(p->data + ETH_HDR_LEN);
    const uint8_t *l4 = p->data + ETH_HDR_LEN + IP6_HDR_LEN;
    const struct tcp_hdr *h = (const struct tcp_hdr *)(const void *)l4;
    if (t == NULL || !ifc->has6 || p->len < ETH_HDR_LEN + IP6_HDR_LEN + TCP_HDR_LEN || (p->data[ETH_HDR_LEN] >> 4) != 6 ||
        ip->next != IP4_PROTO_TCP || (h->flags & (TCP_SYN | TCP_RST | TCP_ACK)) != TCP_ACK ||
        (p->flags & (PKT_RX_L4_CSUM_OK | PKT_RX_L4_CSUM_BAD)) != PKT_RX_L4_CSUM_OK)
        return false;
    uint32_t n = net_ntohs(ip->plen_be), hlen = (uint32_t)(h->off >> 4) * 4u;
    if (n > p->len - ETH_HDR_LEN - IP6_HDR_LEN || hlen < TCP_HDR_LEN || hlen > n || ip6_eq(ip->src, ip->dst) ||
        !(ip6_eq(ip->dst, ifc->addr6) || ip6_eq(ip->dst, ifc->ll6)))
        return false;
    struct tcp_in seg;
    if (!opts_ts_only(l4 + TCP_HDR_LEN, hlen - TCP_HDR_LEN, &seg.opt))
        return false;
    struct tcp_conn *c = tcp_conn_lookup6(t, ip->dst, ip->src, net_ntohs(h->dport_be), net_ntohs(h->sport_be));
    if (c == NULL || c->state == TCP_SYN_SENT)
        return false;
    s->ctr.ip6_rx++;
    s->ctr.ip6_local++;
    s->ctr.tcp_rx++;
    t->now_ns = now_ns;
    seg_hdr(&seg, h, ifc->port, n - hlen);
    seg.src_be = seg.dst_be = 0; /* tcp_in_is6 */
    net_memcpy(seg.src6, ip->src, 16);
    net_memcpy(seg.dst6, ip->dst, 16);
    seg_payload(&seg, p, l4 + hlen);
    segment_to(t, c, &seg, now_ns);
    return true;
}
