/* net/tcp_in.c: TCP input (RFC 9293 section 3.10.7, SEGMENT ARRIVES):
 * header and checksum checks, the way to LISTEN and SYN-SENT (tcp_open.c),
 * and the synchronized states: sequence acceptability with PAWS
 * (RFC 7323 section 5), RST and SYN handling with challenge ACKs (RFC 5961
 * sections 3, 4 and 7), ACK processing with the acceptable-ACK check
 * (5961 section 5), duplicate ACKs, fast retransmit and recovery (RFC 5681
 * 3.2, RFC 6582, RFC 6675), a timeout undone when the timestamps show it
 * spurious (Eifel, RFC 3522), and the state changes a FIN brings.
 *
 * IPv4 segments come through tcp_input, IPv6 ones through tcp_input6 (the
 * RFC 8200 8.1 pseudo-header); both take the same state machine, and an
 * established connection's usual segment takes header prediction
 * (fast_path) with the new-ACK work inline. A connection's usual IPv4
 * frame comes straight from eth_input (tcp_input_frame4), IP's and TCP's
 * checks done at once, those its connection makes needless skipped.
 *
 * Every segment dropped as malformed increments one named counter (see
 * net/counter.h, TCP_COUNTERS). */
#include "csum.h"
#include "env.h"
#include "ip4.h"
#include "ip6.h"
#include "net.h"
#include "tcp_impl.h"
#include "wire.h"

static void challenge_ack(struct tcp_conn *c, uint64_t now_ns)
{
    struct tcp_stack *t = c->t;
    uint64_t sec = now_ns >> 30;
    if (sec != t->challenge_sec) {
        t->challenge_sec = sec;
        t->challenge_count = 0;
    }
    if (t->challenge_count >= t->cfg.challenge_per_s) {
        t->s->ctr.tcp_challenge_limited++;
        return;
    }
    t->challenge_count++;
    t->s->ctr.tcp_challenge_ack++;
    c->flags |= TCP_CF_ACK_NOW;
}

/* An ACK for an unacceptable segment: at most one each 500 ms for a pure
 * ACK (Linux's tcp_oow_rate_limited), which two ends out of step would
 * otherwise bounce for ever; data and FINs are always answered. */
static void oow_ack(struct tcp_conn *c, const struct tcp_in *seg, uint64_t now_ns)
{
    if (seg->len == 0 && !(seg->flags & (TCP_SYN | TCP_FIN))) {
        if (c->oow_ack_ns && now_ns - c->oow_ack_ns < 500000000ull) {
            c->t->s->ctr.tcp_oow_ack_limited++;
            return;
        }
        c->oow_ack_ns = now_ns;
    }
    c->flags |= TCP_CF_ACK_NOW;
}

/* RFC 9293 3.10.7.4 first check, with PAWS. */
static bool acceptable(struct tcp_conn *c, const struct tcp_in *seg)
{
    uint32_t len = seg->len + ((seg->flags & TCP_SYN) ? 1 : 0) + ((seg->flags & TCP_FIN) ? 1 : 0);
    uint32_t wnd = SEQ_GT(c->rcv_adv, c->rcv_nxt) ? c->rcv_adv - c->rcv_nxt : 0;
    uint32_t space = tcp_rcv_window(c);
    if (space > wnd)
        wnd = space;
    /* A shut window takes no data, "but special allowance should be made
     * to accept valid ACKs, URGs, and RSTs": a segment at RCV.NXT (a
     * probe's byte) goes on, its data trimmed off (tcp_rcv_data). */
    if (wnd == 0)
        return seg->seq == c->rcv_nxt;
    if (len == 0)
        return SEQ_LEQ(c->rcv_nxt, seg->seq) && SEQ_LT(seg->seq, c->rcv_nxt + wnd);
    return (SEQ_LEQ(c->rcv_nxt, seg->seq) && SEQ_LT(seg->seq, c->rcv_nxt + wnd)) ||
           (SEQ_LEQ(c->rcv_nxt, seg->seq + len - 1) && SEQ_LT(seg->seq + len - 1, c->rcv_nxt + wnd));
}

/* SND.UNA moves to ack (RFC 9293 3.10.7.4 fifth check): the send queue,
 * RTT, congestion control, the timer, the application. False when the
 * connection died in the acked callback. */
static inline __attribute__((always_inline)) bool new_ack(struct tcp_conn *c, uint32_t ack, uint64_t now_ns)
{
    uint32_t acked = ack - c->snd_una, flight = c->snd_nxt - c->snd_una;
    uint32_t queued_before = c->snd_queued;
    if ((c->flags & TCP_CF_RTT_TIMING) && SEQ_GEQ(ack, c->rtt_seq)) {
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
        tcp_rtt_sample(c, now_ns - c->rtt_start_ns);
    }
    c->snd_una = ack;
    tcp_sq_ack(c, ack);
    uint32_t start = SEQ_GT(ack, c->iss + 1) ? ack : c->iss + 1;
    c->snd_queued = SEQ_GT(c->snd_end, start) ? c->snd_end - start : 0;
    c->retries = 0;
    if (c->flags & TCP_CF_IN_RECOVERY) {
        if (SEQ_GEQ(ack, c->recover)) {
            c->flags &= ~(uint32_t)TCP_CF_IN_RECOVERY;
            tcp_marks_clear(c);
            tcp_cc_recovery_end(c, now_ns);
            c->dupacks = 0;
            if (c->reo_persist && --c->reo_persist == 0)
                c->reo_steps = 0; /* RFC 8985 6.2 step 4 */
            if (c->undo_on && c->undo_n == 0)
                tcp_undo(c); /* nothing was sent again: the originals all got there */
        } else if (c->flags & TCP_CF_SACK) {
            if (!tcp_rack_only(c))
                tcp_sack_mark_lost(c); /* RFC 6675: the loop in tcp_output sends */
            if ((c->flags & TCP_CF_FIN_SENT) && ack == c->snd_end)
                c->flags |= TCP_CF_FIN_LOST; /* all data in, the FIN (sent before the repair) not */
        } else {
            /* RFC 6582 3.2 step 5: partial ACK. */
            tcp_retransmit_first(c, now_ns);
            c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
            c->cwnd += c->seg_size;
        }
    } else {
        c->dupacks = 0;
        if (SEQ_GT(ack, c->recover)) /* kept within 2 GB of snd_una, for SEQ_GEQ */
            c->recover = ack;
        if (tcp_cwnd_limited(c, flight))
            tcp_cc_ack(c, acked, now_ns);
        else if (c->cwnd >= c->ssthresh)
            tcp_cc_app_limited(c, now_ns);
    }
    if (c->snd_una == c->snd_nxt) {
        tcp_rto_stop(c);
        if (NET_UNLIKELY(c->flags & TCP_CF_SQ_LARGE) && c->sq_n == 0)
            tcp_sq_shrink(c);
    } else {
        c->flags &= ~(uint32_t)TCP_CF_PERSIST;
        tcp_loss_timer_arm(c, now_ns);
    }
    uint32_t done = queued_before - c->snd_queued;
    if (done && c->cb && c->cb->acked && !(c->flags & TCP_CF_APP_CLOSED)) {
        c->cb->acked(c->ctx, c, done, now_ns);
        if (c->flags & TCP_CF_DEAD)
            return false;
    }
    return true;
}

/* An ACK reached the end of the tail loss probe's episode (RFC 8985 7.4).
 * A probe of new data is answered. One that sent data again is answered
 * by a duplicate's report (D-SACK, RFC 2883: a first block at or below
 * the ACK) or a plain duplicate ACK at its end: the original arrived too,
 * no loss. An ACK beyond its end with neither says the probe repaired a
 * loss, which calls for the congestion response fast recovery would have
 * made. An ACK up to its end may be the late original's, the duplicate's
 * report still to come: the episode waits on (as Linux's does). */
static void tlp_answered(struct tcp_conn *c, const struct tcp_in *seg, bool sacked_new, uint64_t now_ns)
{
    if (c->flags & TCP_CF_TLP_RETX) {
        uint32_t ack = seg->ack;
        bool dsack = seg->opt.nsack && SEQ_LEQ(seg->opt.sack[0][1], ack);
        bool dup = ack == c->snd_una && seg->len == 0 && !sacked_new;
        if (!dsack && !dup) {
            if (ack == c->tlp_end)
                return;
            if (!(c->flags & TCP_CF_IN_RECOVERY)) {
                c->t->s->ctr.tcp_tlp_loss++;
                tcp_cc_loss(c, now_ns);
            }
        }
    }
    c->flags &= ~(uint32_t)(TCP_CF_TLP | TCP_CF_TLP_RETX);
}

/* Eifel detection (RFC 3522): the first ACK of new data after a timeout
 * echoes a timestamp older than the retransmission's, so the original
 * got there and the timeout was a delay. RFC 4015's response: the window
 * of before comes back, and what the timeout marked lost is not sent
 * again (Linux's F-RTO and undo spare it alike). */
static void eifel(struct tcp_conn *c, const struct tcp_in *seg)
{
    c->rto_eifel = false;
    if (!seg->opt.has_ts || !SEQ_LT(seg->opt.tsecr, c->rto_tsval))
        return;
    c->t->s->ctr.tcp_undo++;
    tcp_cc_undo(c);
    tcp_marks_clear(c);
    c->flags &= ~(uint32_t)TCP_CF_FIN_LOST;
    c->recover = c->snd_una;
}

/* RFC 9293 3.10.7.4 fifth check, for an acceptable ACK: new data
 * acknowledged, duplicate ACKs and recovery, the peer's window. */
static void ack_input(struct tcp_conn *c, const struct tcp_in *seg, uint32_t wnd, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    uint32_t ack = seg->ack;
    bool sacked_new = false;

    if ((c->flags & TCP_CF_SACK) && seg->opt.nsack) {
        tcp_dsack_input(c, &seg->opt, ack);
        sacked_new = tcp_sack_update(c, &seg->opt, ack) != 0;
    }
    /* RFC 9293 3.8.6.1: while the peer answers the window probes the
     * connection MUST stay open (the probes still back off: persist_shift). */
    if (c->flags & TCP_CF_PERSIST)
        c->retries = 0;
    if ((c->flags & TCP_CF_TLP) && SEQ_GEQ(ack, c->tlp_end))
        tlp_answered(c, seg, sacked_new, now_ns);
    const uint32_t sack_recovery = TCP_CF_IN_RECOVERY | TCP_CF_SACK;
    bool acked_new = SEQ_GT(ack, c->snd_una), rack_run = false;
    if (acked_new) {
        if (c->rto_eifel)
            eifel(c, seg);
        /* Before new_ack frees them, what the ACK delivers is noted for
         * RACK, in SACK recovery and wherever RACK alone judges a
         * scoreboard: its detection runs below, which also re-arms the
         * reordering timer new_ack has replaced by the RTO (neither
         * takes the fast path). */
        rack_run = (c->flags & sack_recovery) == sack_recovery || (tcp_rack_only(c) && c->nmarked);
        if (rack_run)
            tcp_rack_acked(c, ack);
        /* After a timeout only retransmissions are out, which the RTT
         * timer leaves alone (Karn): the timestamp's echo times them
         * (RFC 7323 4.1) and ends the backoff, as in Linux, before
         * new_ack arms the timer with it. Without it the RTO stays
         * doubled, up to a minute, until data sent once is acknowledged.
         * An echo older than the first timeout's retransmission times an
         * original whose ACKs were lost: the outage, not the path; not
         * taken. */
        if (c->retries && !((c->flags & TCP_CF_RTT_TIMING) && SEQ_GEQ(ack, c->rtt_seq)) && seg->opt.has_ts &&
            !SEQ_LT(seg->opt.tsecr, c->rto_tsval))
            tcp_rtt_sample_ts(c, seg, now_ns);
        if (!new_ack(c, ack, now_ns))
            return;
    } else if (ack == c->snd_una && !(seg->flags & (TCP_SYN | TCP_FIN)) && c->snd_nxt != c->snd_una &&
               ((seg->len == 0 && wnd == c->snd_wnd) || sacked_new)) {
        /* A duplicate: RFC 5681 2's, or (RFC 6675 2) any ACK with new SACK
         * information, whatever its window or payload. */
        s->ctr.tcp_dup_ack++;
        c->dupacks++;
        if (c->flags & TCP_CF_IN_RECOVERY) {
            if (!(c->flags & TCP_CF_SACK))
                c->cwnd += c->seg_size; /* RFC 5681 3.2 step 4 */
            else if (!tcp_rack_only(c))
                tcp_sack_mark_lost(c);
        } else if (!tcp_rack_only(c) && SEQ_GEQ(c->snd_una, c->recover) &&
                   (c->dupacks == TCP_DUPTHRESH ||
                    ((c->flags & TCP_CF_SACK) && sacked_new && tcp_sack_first_lost(c)))) {
            tcp_enter_recovery(c, now_ns);
        }
    }
    /* RACK, once the ACK has taken what it covers and recovery has begun
     * or ended: what the new blocks show lost, and what an ACK noted
     * above delivers (tcp_rack_acked): a retransmission delivered shows
     * what was sent before it and is still out, such as a tail lost with
     * the recovery that no SACK above it will ever mark. */
    bool partial = rack_run && c->snd_una != c->snd_nxt;
    if ((sacked_new || partial) && tcp_rack_detect(c, false, now_ns))
        tcp_rack_lost(c, now_ns);
    /* SND.UNA =< SEG.ACK: an older ACK says nothing of the window now. */
    if (SEQ_GEQ(ack, c->snd_una) &&
        (SEQ_LT(c->snd_wl1, seg->seq) || (c->snd_wl1 == seg->seq && SEQ_LEQ(c->snd_wl2, ack)))) {
        bool opened = wnd > c->snd_wnd;
        tcp_snd_wnd_set(c, wnd);
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = ack;
        if (opened && (c->flags & TCP_CF_PERSIST)) {
            c->flags &= ~(uint32_t)TCP_CF_PERSIST;
            c->rto_at = 0;
            c->retries = 0;
        }
    }
}

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
    if (SEQ_GT(ack, c->snd_una) && !new_ack(c, ack, now_ns))
        return true;
    if (seg->len)
        tcp_rcv_in_order(c, seg, now_ns);
    return true;
}

/* Our FIN is acknowledged: the state changes of RFC 9293 3.10.7.4. */
static bool fin_acked(struct tcp_conn *c, uint64_t now_ns)
{
    if (!(c->flags & TCP_CF_FIN_SENT) || SEQ_LT(c->snd_una, c->snd_end + 1))
        return true;
    switch (c->state) {
    case TCP_FIN_WAIT_1:
        c->state = TCP_FIN_WAIT_2;
        /* Not forever: a peer that never closes (Linux tcp_fin_timeout). */
        c->rto_at = now_ns + c->t->cfg.time_wait_ns;
        return true;
    case TCP_CLOSING:
        tcp_enter_time_wait(c, now_ns);
        return false;
    case TCP_LAST_ACK:
        tcp_conn_close(c, TCP_CLOSE_NORMAL, now_ns);
        return false;
    default:
        return true;
    }
}

/* Every check of RFC 9293 3.10.7.4 for a segment header prediction did
 * not take (kept out of line: inlined, it costs the fast path 7
 * instructions a segment in register pressure). */
static __attribute__((noinline)) void synced_input(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
{
    struct net_stack *s = c->t->s;
    const struct tcp_opts *o = &seg->opt;
    uint32_t wnd = seg->wnd << c->snd_wscale; /* the peer's window, bytes */

    if (c->state == TCP_TIME_WAIT && (seg->flags & TCP_SYN))
        c->flags |= TCP_CF_TW_SYN; /* answered by an ACK below, which a new client resets */
    if (c->state == TCP_SYN_RECEIVED && (seg->flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN &&
        seg->seq == c->irs) {
        tcp_send_syn(c, now_ns); /* our SYN-ACK was lost: the SYN came again */
        return;
    }
    if ((seg->flags & (TCP_SYN | TCP_RST)) == TCP_SYN && seg->seq == c->irs) {
        /* The peer's SYN again (a SYN-ACK crossing ours in a simultaneous
         * open, or one whose ACK was lost): drop the SYN, keep the rest,
         * and acknowledge. */
        seg->flags &= (uint8_t)~TCP_SYN;
        seg->seq++;
        wnd = seg->wnd; /* a SYN's window is never scaled (RFC 7323 2.2) */
        c->flags |= TCP_CF_ACK_NOW;
    }
    if ((c->flags & TCP_CF_TS) && o->has_ts && !(seg->flags & TCP_RST) && SEQ_LT(o->tsval, c->ts_recent)) {
        s->ctr.tcp_paws_drop++;
        oow_ack(c, seg, now_ns);
        return;
    }
    if (!acceptable(c, seg)) {
        if (!(seg->flags & TCP_RST)) {
            s->ctr.tcp_out_of_window++;
            oow_ack(c, seg, now_ns);
            if (seg->len && SEQ_LEQ(seg->seq + seg->len, c->rcv_nxt))
                tcp_dsack_note(c, seg->seq, seg->len); /* data we had: a resend */
            if (c->state == TCP_TIME_WAIT && (seg->flags & TCP_FIN) && seg->seq + seg->len + 1 == c->rcv_nxt)
                tcp_time_wait_restart(c, now_ns); /* the peer's FIN again: 2 MSL again (3.10.7.4) */
        } else {
            s->ctr.tcp_rst_ignored++;
        }
        return;
    }
    if (seg->flags & TCP_RST) {
        if (seg->seq != c->rcv_nxt) {
            s->ctr.tcp_rst_ignored++;
            challenge_ack(c, now_ns);
        } else if (c->state == TCP_TIME_WAIT && !(c->flags & TCP_CF_TW_SYN)) {
            s->ctr.tcp_rst_ignored++; /* RFC 1337: no TIME-WAIT assassination */
        } else if (c->state == TCP_TIME_WAIT) {
            /* The reset of a client whose SYN we could not take for a new
             * incarnation (no timestamps, a lower ISN): it wants the port
             * pair now, not after 2 MSL, as Linux lets it. */
            s->ctr.tcp_tw_recycled++;
            tcp_conn_close(c, TCP_CLOSE_NORMAL, now_ns);
        } else {
            s->ctr.tcp_rst_rx++;
            tcp_conn_close(c, TCP_CLOSE_RESET, now_ns);
        }
        return;
    }
    if (seg->flags & TCP_SYN) {
        challenge_ack(c, now_ns);
        return;
    }
    if (!(seg->flags & TCP_ACK)) {
        s->ctr.tcp_no_ack++;
        return;
    }
    if (o->has_ts && (c->flags & TCP_CF_TS) && SEQ_LEQ(seg->seq, c->last_ack_sent) &&
        SEQ_GEQ(o->tsval, c->ts_recent))
        c->ts_recent = o->tsval;
    if (c->flags & TCP_CF_KEEPALIVE)
        tcp_keepalive_touch(c, now_ns);
    if (c->state == TCP_FIN_WAIT_2) {
        c->rto_at = now_ns + c->t->cfg.time_wait_ns;
        c->retries = 0; /* (the silences rto_fire waits out behind a hole: in a row) */
    }
    if (c->state == TCP_SYN_RECEIVED) {
        if (SEQ_LEQ(seg->ack, c->snd_una) || SEQ_GT(seg->ack, c->snd_nxt)) {
            tcp_reply_rst(c->t, seg, now_ns);
            return;
        }
        if (c->listener && c->listener->pending)
            c->listener->pending--;
        c->listener = NULL;
        if ((c->flags & TCP_CF_RTT_TIMING) && c->retries == 0)
            tcp_rtt_sample(c, now_ns - c->rtt_start_ns);
        else
            tcp_rtt_sample_ts(c, seg, now_ns);
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
        c->snd_una = seg->ack;
        tcp_snd_wnd_set(c, wnd);
        c->snd_wl1 = seg->seq;
        c->snd_wl2 = seg->ack;
        c->state = (c->flags & TCP_CF_FIN_QUEUED) ? TCP_FIN_WAIT_1 : TCP_ESTABLISHED;
        tcp_established(c, now_ns);
        if (c->flags & TCP_CF_ACTIVE) { /* simultaneous open */
            s->ctr.tcp_connected++;
            if (c->cb && c->cb->connected)
                c->cb->connected(c->ctx, c, now_ns);
        } else {
            s->ctr.tcp_accepted++;
            if (c->cb && c->cb->accepted)
                c->cb->accepted(c->ctx, c, now_ns);
        }
        if (c->flags & TCP_CF_DEAD)
            return;
    } else {
        if (SEQ_GT(seg->ack, c->snd_nxt)) {
            s->ctr.tcp_ack_unsent++;
            oow_ack(c, seg, now_ns);
            return;
        }
        if (SEQ_LT(seg->ack, c->snd_una - c->max_snd_wnd)) {
            s->ctr.tcp_ack_old++;
            oow_ack(c, seg, now_ns);
            return;
        }
        ack_input(c, seg, wnd, now_ns);
        if ((c->flags & TCP_CF_DEAD) || !fin_acked(c, now_ns))
            return;
    }
    if (c->state == TCP_TIME_WAIT) {
        if (seg->flags & TCP_FIN) { /* the peer's FIN again: ACK, restart 2 MSL */
            c->flags |= TCP_CF_ACK_NOW;
            tcp_time_wait_restart(c, now_ns);
        }
        return;
    }
    if (seg->len || (seg->flags & TCP_FIN))
        tcp_rcv_data(c, seg, now_ns);
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
            synced_input(c, seg, now_ns);
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
