/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_receive.c: received data (RFC 9293 section 3.10.7.4, seventh and
 * eighth steps): trimming to the window, in-order delivery to the
 * application in the buffer the data came in (zero-copy), the bounded
 * out-of-order queue, the SACK blocks it yields (RFC 2018 section 4), the
 * peer's FIN, the delayed-ACK decision (RFC 1122 4.2.3.2, RFC 5681 4.2),
 * and the receive window's autotuning (tcp_rcv_tune).
 *
 * Out-of-order buffers are kept sorted by sequence number (in pkt.user),
 * linked through pkt.next, trimmed so that none overlap. */
#include "core/env.h"
#include "net.h"
#include "tcp_impl.h"

#define OOO_SEQ(p) ((p)->user)

void tcp_ooo_free(struct tcp_conn *c)
{
    while (c->ooo) {
        struct pkt *p = c->ooo;
        c->ooo = p->next;
        p->next = NULL;
        pkt_free(p);
    }
    c->ooo_n = 0;
    c->ooo_bytes = 0;
}

/* Queue p ([seq, seq + p->len)) out of order, trimmed against its
 * neighbours; takes p. */
static void ooo_insert(struct tcp_conn *c, struct pkt *p, uint32_t seq)
{
    struct net_stack *s = c->t->s;
    uint32_t seq0 = seq, len0 = p->len; /* a duplicate is reported whole (RFC 2883 4) */
    struct pkt *prev = NULL, *cur = c->ooo;
    while (cur && SEQ_LEQ(OOO_SEQ(cur), seq)) {
        prev = cur;
        cur = cur->next;
    }
    if (prev) {
        uint32_t pend = OOO_SEQ(prev) + prev->len;
        if (SEQ_GEQ(pend, seq + p->len)) {
            s->ctr.tcp_rcv_dup++;
            tcp_dsack_note(c, seq0, len0);
            pkt_free(p);
            return;
        }
        if (SEQ_GT(pend, seq)) {
            pkt_pull(p, pend - seq);
            seq = pend;
        }
    }
    bool replaces = false; /* p takes the place of what it covers: no more buffers held */
    while (cur && SEQ_LEQ(OOO_SEQ(cur) + cur->len, seq + p->len)) {
        struct pkt *next = cur->next; /* wholly covered by p */
        c->ooo_n--;
        c->ooo_bytes -= cur->len;
        cur->next = NULL;
        pkt_free(cur);
        cur = next;
        replaces = true;
    }
    if (cur && SEQ_LT(OOO_SEQ(cur), seq + p->len))
        p->len = (uint16_t)(OOO_SEQ(cur) - seq);
    if (p->len == 0 || (!replaces && (c->ooo_n >= c->ooo_max || s->pool->nfree <= c->t->rx_reserve / 2))) {
        /* Nothing new between the neighbours, or no room (in the queue, or
         * in a pool the NIC needs to receive into: the peer sends it
         * again). */
        if (p->len) {
            s->ctr.tcp_ooo_drop++;
        } else {
            s->ctr.tcp_rcv_dup++;
            tcp_dsack_note(c, seq0, len0);
        }
        pkt_free(p);
        if (prev)
            prev->next = cur;
        else
            c->ooo = cur;
        return;
    }
    OOO_SEQ(p) = seq;
    p->next = cur;
    if (prev)
        prev->next = p;
    else
        c->ooo = p;
    c->ooo_n++;
    c->ooo_bytes += p->len;
    c->ooo_last = seq;
    s->ctr.tcp_ooo_queued++;
}

/* What became in order after rcv_nxt moved; false if the connection died
 * in a callback. */
static bool ooo_drain(struct tcp_conn *c, uint64_t now_ns)
{
    while (c->ooo && SEQ_LEQ(OOO_SEQ(c->ooo), c->rcv_nxt)) {
        struct pkt *p = c->ooo;
        c->ooo = p->next;
        c->ooo_n--;
        c->ooo_bytes -= p->len;
        uint32_t seq = OOO_SEQ(p);
        if (SEQ_LEQ(seq + p->len, c->rcv_nxt)) {
            p->next = NULL;
            pkt_free(p);
            continue;
        }
        pkt_pull(p, c->rcv_nxt - seq);
        tcp_deliver(c, p, now_ns);
        if (c->flags & TCP_CF_DEAD)
            return false;
    }
    return true;
}

uint32_t tcp_sack_blocks(const struct tcp_conn *c, uint32_t (*blocks)[2], uint32_t max)
{
    uint32_t n = 0, first = 0;
    bool have_first = false;
    if (max == 0)
        return 0;
    /* Contiguous runs of the queue; the one holding the latest arrival
     * goes first (RFC 2018 section 4), the rest in order after it. */
    for (const struct pkt *p = c->ooo; p;) {
        uint32_t l = OOO_SEQ(p), r = l + p->len;
        for (p = p->next; p && OOO_SEQ(p) == r; p = p->next)
            r += p->len;
        bool latest = SEQ_LEQ(l, c->ooo_last) && SEQ_LT(c->ooo_last, r);
        if (latest && !have_first) {
            have_first = true;
            first = n < max ? n : max - 1;
        }
        if (n < max) {
            blocks[n][0] = l;
            blocks[n][1] = r;
            n++;
        } else if (latest) {
            blocks[max - 1][0] = l;
            blocks[max - 1][1] = r;
        }
    }
    if (have_first && first) {
        uint32_t l = blocks[first][0], r = blocks[first][1];
        for (uint32_t i = first; i > 0; i--) {
            blocks[i][0] = blocks[i - 1][0];
            blocks[i][1] = blocks[i - 1][1];
        }
        blocks[0][0] = l;
        blocks[0][1] = r;
    }
    return n;
}

void tcp_dsack_note(struct tcp_conn *c, uint32_t seq, uint32_t len)
{
    if (!(c->flags & TCP_CF_SACK))
        return;
    c->dsack[0] = seq;
    c->dsack[1] = seq + len;
    c->flags |= TCP_CF_DSACK;
}

/* The peer's FIN at rcv_nxt (RFC 9293 3.10.7.4, eighth). */
static void rcv_fin(struct tcp_conn *c, uint64_t now_ns)
{
    c->rcv_nxt++;
    c->flags |= TCP_CF_ACK_NOW | TCP_CF_PEER_FIN;
    c->flags &= ~(uint32_t)TCP_CF_FIN_OOO;
    switch (c->state) {
    case TCP_SYN_RECEIVED:
    case TCP_ESTABLISHED:
        c->state = TCP_CLOSE_WAIT;
        break;
    case TCP_FIN_WAIT_1:
        /* Our FIN not yet acknowledged (else we would be in FIN-WAIT-2). */
        c->state = TCP_CLOSING;
        break;
    case TCP_FIN_WAIT_2:
        tcp_send_ack(c, now_ns);
        tcp_enter_time_wait(c, now_ns);
        return;
    default:
        return;
    }
    if ((c->flags & (TCP_CF_APP_SEEN | TCP_CF_APP_CLOSED)) == TCP_CF_APP_SEEN && c->cb &&
        c->cb->peer_fin)
        c->cb->peer_fin(c->ctx, c, now_ns);
}

void tcp_rcv_data(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    struct pkt *p = seg->p;
    uint32_t seq = seg->seq, len = seg->len;
    bool fin = (seg->flags & TCP_FIN) != 0;
    seg->p = NULL;

    if (c->flags & TCP_CF_PEER_FIN) {
        /* Nothing more after the peer's FIN (CLOSE-WAIT, CLOSING, ...). */
        if (len)
            s->ctr.tcp_rcv_after_fin++;
        if (p)
            pkt_free(p);
        c->flags |= TCP_CF_ACK_NOW;
        return;
    }
    if (SEQ_LT(seq, c->rcv_nxt)) {
        uint32_t d = c->rcv_nxt - seq;
        if (d >= len) {
            if (len) {
                s->ctr.tcp_rcv_dup++;
                tcp_dsack_note(c, seq, len);
            }
            if (p)
                pkt_free(p);
            p = NULL;
            len = 0;
            seq = c->rcv_nxt;
            if (fin && d > seg->len)
                fin = false; /* a FIN we had already */
            if (!fin) {
                c->flags |= TCP_CF_ACK_NOW;
                return;
            }
        } else {
            pkt_pull(p, d);
            seq = c->rcv_nxt;
            len -= d;
        }
    }
    uint32_t wnd = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t space = tcp_rcv_window(c);
    if (space > wnd)
        wnd = space;
    if (len && SEQ_GT(seq + len, c->rcv_nxt + wnd)) {
        uint32_t cut = seq + len - (c->rcv_nxt + wnd);
        len -= cut;
        fin = false;
        c->flags |= TCP_CF_ACK_NOW; /* what lay past the window is to come again: say where it ends */
        if (len == 0) {
            pkt_free(p);
            p = NULL;
        } else {
            p->len = (uint16_t)len;
        }
    }
    if (seq != c->rcv_nxt) {
        if (p)
            ooo_insert(c, p, seq);
        if (fin) {
            c->flags |= TCP_CF_FIN_OOO;
            c->fin_seq = seq + len;
        }
        c->flags |= TCP_CF_ACK_NOW; /* a duplicate ACK, with SACK blocks */
        return;
    }
    bool had_ooo = c->ooo != NULL;
    if (p)
        tcp_deliver(c, p, now_ns);
    if (c->flags & TCP_CF_DEAD)
        return;
    if (had_ooo) {
        if (!ooo_drain(c, now_ns))
            return;
        c->flags |= TCP_CF_ACK_NOW; /* a hole filled: tell the sender now */
    }
    if ((c->flags & TCP_CF_FIN_OOO) && c->fin_seq == c->rcv_nxt)
        fin = true;
    if (fin) {
        rcv_fin(c, now_ns);
        return;
    }
    if (len)
        tcp_rcv_ack_due(c, now_ns);
}

/* Receive-window autotuning, after Linux's dynamic right-sizing: once a
 * round trip, what the application took in it. A sender that used more
 * than half the window may be held back by it: the window becomes four
 * times that intake (twice, and as much again for a sender in slow start,
 * whose window doubles each round trip), up to rcv_max. A window the
 * sender does not fill stays as it is. Not while the pool is half used:
 * out-of-order data holds buffers, up to a window's worth. (Without
 * window scaling rcv_max is rcv_buf: tcp_open.c.) */
void tcp_rcv_tune(struct tcp_conn *c, uint64_t now_ns)
{
    uint32_t taken = c->rcv_nxt - c->rcv_held;
    uint64_t ns = now_ns - c->rcv_tune_ns;
    if (c->srtt_ns == 0)
        return; /* no round trip to measure by (tcp_rtt_sample_ts) */
    if (c->rcv_tune_ns && ns && tcp_pool_roomy(c->t)) {
        uint64_t got = (uint64_t)(taken - c->rcv_tune_seq) * c->srtt_ns / ns, want = 4 * got;
        if (2 * got > c->rcv_buf) {
            c->rcv_buf = want < c->rcv_max ? (uint32_t)want : c->rcv_max;
            uint32_t ooo = c->rcv_buf >> 10; /* a buffer a KB, as `tcp window` gives */
            if (ooo > c->ooo_max)
                c->ooo_max = ooo > 0xffff ? 0xffff : (uint16_t)ooo;
            c->t->s->ctr.tcp_rcv_window_grown++;
        }
    }
    c->rcv_tune_seq = taken;
    c->rcv_tune_ns = now_ns;
}
