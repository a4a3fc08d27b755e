/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_open.c: opening a connection (RFC 9293 3.5 and 3.10.7.2-3):
 * a listener's SYNs (past the backlog, SYN cookies; their ACK makes the
 * connection), the options both ends offered (MSS, window scale, SACK,
 * timestamps: RFC 7323, RFC 2018), SYN-SENT's answer, and the move to
 * ESTABLISHED. tcp_input.c hands segments here. */
#include "net.h"
#include "tcp_impl.h"

static void negotiate(struct tcp_conn *c, const struct tcp_opts *o, bool offered_by_us)
{
    const struct tcp_config *cfg = &c->t->cfg;
    uint32_t keep = 0;
    if (o->sack_ok && cfg->sack && (!offered_by_us || (c->flags & TCP_CF_SACK)))
        keep |= TCP_CF_SACK;
    if (o->has_ts && cfg->timestamps && (!offered_by_us || (c->flags & TCP_CF_TS))) {
        keep |= TCP_CF_TS;
        c->ts_recent = o->tsval;
    }
    if (o->has_ws && cfg->wscale && (!offered_by_us || (c->flags & TCP_CF_WS))) {
        keep |= TCP_CF_WS;
        c->snd_wscale = o->wscale;
    } else {
        c->snd_wscale = 0;
        c->rcv_wscale = 0;
        c->rcv_max = c->rcv_buf; /* the field says 64 KB at most: no autotuning */
    }
    c->flags = (c->flags & ~(uint32_t)(TCP_CF_SACK | TCP_CF_TS | TCP_CF_WS)) | keep;
    c->route_until_ns = c->route6_until_ns = 0; /* the header template has the options agreed */
    tcp_conn_set_mss(c, o->has_mss ? o->mss : tcp_conn_is6(c) ? TCP_DEFAULT_MSS6 : TCP_DEFAULT_MSS);
}

/* A new connection from a SYN (or a SYN cookie's ACK) to listener l. */
static struct tcp_conn *passive_open(struct tcp_stack *t, struct tcp_listener *l, const struct tcp_in *seg,
                                     const struct tcp_opts *o, uint32_t irs, bool cookie, uint64_t now_ns)
{
    struct tcp_conn *c = tcp_in_is6(seg)
                             ? tcp_conn_alloc6(t, seg->dst6, seg->src6, seg->dport, seg->sport, seg->port, cookie, now_ns)
                             : tcp_conn_alloc(t, seg->dst_be, seg->src_be, seg->dport, seg->sport, cookie, now_ns);
    if (c == NULL)
        return NULL;
    c->cb = l->cb;
    c->ctx = l->ctx;
    c->irs = irs;
    c->rcv_nxt = irs + 1;
    c->rcv_adv = c->rcv_nxt;
    negotiate(c, o, false);
    c->snd_wnd = c->max_snd_wnd = seg->wnd; /* never scaled in a SYN */
    c->snd_wl1 = irs;
    if (l->idle_ns) {
        tcp_set_idle_timeout(c, l->idle_ns);
        tcp_set_send_timeout(c, l->idle_ns);
    }
    return c;
}

void tcp_listen_input(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns)
{
    struct net_stack *s = t->s;
    struct tcp_listener *l = tcp_listener_find(t, seg->dport);
    if (l == NULL) {
        s->ctr.tcp_no_port++;
        tcp_reply_rst(t, seg, now_ns);
        return;
    }
    if (seg->flags & TCP_RST) {
        s->ctr.tcp_listen_drop++;
        return;
    }
    if (seg->flags & TCP_ACK) {
        /* No connection: a SYN cookie's ACK, or a stray (RFC 9293: RST). */
        struct tcp_opts syn;
        if (!(seg->flags & TCP_SYN) && t->cfg.syncookies && tcp_cookie_check(t, seg, now_ns, &syn)) {
            struct tcp_conn *c = passive_open(t, l, seg, &syn, seg->seq - 1, true, now_ns);
            if (c == NULL) { /* every slot an open connection (counted): say so, not hang the peer */
                tcp_reply_rst(t, seg, now_ns);
                return;
            }
            s->ctr.tcp_syncookie_ok++;
            c->flags |= TCP_CF_COOKIE;
            c->iss = seg->ack - 1;
            c->snd_una = c->iss;
            c->snd_nxt = c->snd_end = c->iss + 1;
            c->last_ack_sent = c->rcv_nxt; /* the cookie's SYN-ACK acknowledged the SYN */
            c->state = TCP_SYN_RECEIVED;
            c->snd_wl1 = seg->seq - 1; /* this ACK's window is taken below */
            tcp_input_again(t, seg, now_ns);
            return;
        }
        if (t->cookie_ns && now_ns - t->cookie_ns < 2ull << 36)
            s->ctr.tcp_syncookie_bad++;
        else
            s->ctr.tcp_listen_drop++;
        tcp_reply_rst(t, seg, now_ns);
        return;
    }
    if (!(seg->flags & TCP_SYN)) {
        s->ctr.tcp_listen_drop++;
        return;
    }
    struct tcp_conn *c = NULL;
    if (l->pending < l->backlog && (t->nfree || t->tw_head || !t->cfg.syncookies))
        c = passive_open(t, l, seg, &seg->opt, seg->seq, false, now_ns);
    if (c == NULL) {
        if (!t->cfg.syncookies)
            return;
        uint16_t mss;
        uint32_t iss = tcp_cookie_make(t, seg, now_ns, &mss);
        s->ctr.tcp_syncookie_tx++;
        t->cookie_ns = now_ns;
        tcp_send_cookie_synack(t, seg, iss, mss, now_ns);
        return;
    }
    /* Data in a SYN is not kept: the peer sends it again. */
    c->listener = l;
    l->pending++;
    c->state = TCP_SYN_RECEIVED;
    c->iss = tcp_conn_is6(c) ? tcp_isn6(t, c->laddr6, c->raddr6, c->lport, c->rport, now_ns)
                             : tcp_isn(t, c->laddr_be, c->raddr_be, c->lport, c->rport, now_ns);
    c->snd_una = c->iss;
    c->snd_nxt = c->snd_end = c->iss + 1;
    tcp_send_syn(c, now_ns);
    c->flags |= TCP_CF_RTT_TIMING;
    c->rtt_seq = c->iss + 1;
    c->rtt_start_ns = now_ns;
    if (c->rto_ns < TCP_SYNACK_MIN_RTO_NS)
        c->rto_ns = TCP_SYNACK_MIN_RTO_NS;
    tcp_rto_arm(c, now_ns);
    tcp_timer_update(c);
}

void tcp_established(struct tcp_conn *c, uint64_t now_ns)
{
    tcp_cc_init(c);
    c->retries = 0;
    c->rto_at = 0;
    c->flags |= TCP_CF_APP_SEEN;
    tcp_keepalive_touch(c, now_ns);
}

/* RFC 9293 3.10.7.3. */
void tcp_syn_sent_input(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    bool ack_ok = false;
    if (seg->flags & TCP_ACK) {
        if (SEQ_LEQ(seg->ack, c->iss) || SEQ_GT(seg->ack, c->snd_nxt)) {
            s->ctr.tcp_bad_synack++;
            tcp_reply_rst(c->t, seg, now_ns);
            return;
        }
        ack_ok = true;
    }
    if (seg->flags & TCP_RST) {
        if (ack_ok) {
            s->ctr.tcp_rst_rx++;
            tcp_conn_close(c, TCP_CLOSE_REFUSED, now_ns);
        } else {
            s->ctr.tcp_rst_ignored++;
        }
        return;
    }
    if (!(seg->flags & TCP_SYN))
        return;
    c->irs = seg->seq;
    c->rcv_nxt = seg->seq + 1;
    c->rcv_adv = c->rcv_nxt;
    negotiate(c, &seg->opt, true);
    c->snd_wnd = c->max_snd_wnd = seg->wnd;
    c->snd_wl1 = seg->seq;
    c->snd_wl2 = seg->ack;
    c->flags |= TCP_CF_ACK_NOW;
    if (!ack_ok) {
        /* Simultaneous open (RFC 9293 3.5, figure 8). */
        c->state = TCP_SYN_RECEIVED;
        tcp_send_syn(c, now_ns);
        return;
    }
    c->snd_una = seg->ack;
    if (c->retries == 0)
        tcp_rtt_sample(c, now_ns - c->rtt_start_ns);
    else
        tcp_rtt_sample_ts(c, seg, now_ns);
    c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
    c->state = TCP_ESTABLISHED;
    tcp_established(c, now_ns);
    s->ctr.tcp_connected++;
    if (c->cb && c->cb->connected)
        c->cb->connected(c->ctx, c, now_ns);
    if (c->flags & TCP_CF_DEAD)
        return;
    seg->seq++;
    seg->flags &= (uint8_t)~TCP_SYN;
    if (seg->len || (seg->flags & TCP_FIN))
        tcp_rcv_data(c, seg, now_ns);
}
