/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_input_synced.c: the full checks of RFC 9293 section 3.10.7.4 for a
 * synchronized connection's segment that header prediction (tcp_input.c) did
 * not take: sequence acceptability with PAWS (RFC 7323 section 5), RST
 * and SYN handling with challenge ACKs (RFC 5961 sections 3, 4 and 7),
 * ACK processing with the acceptable-ACK check (5961 section 5), duplicate
 * ACKs, fast retransmit and recovery (RFC 5681 3.2, RFC 6582, RFC 6675),
 * the tail loss probe's answer (RFC 8985 7.4), a timeout undone when the
 * timestamps show it spurious (Eifel, RFC 3522), and the state changes a
 * FIN brings. */
#include "core/env.h"
#include "net.h"
#include "tcp_impl.h"

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
        if (!tcp_new_ack(c, ack, now_ns))
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

/* (Out of tcp_input.c's line: inlined, it cost the fast path 7 instructions
 * a segment in register pressure.) */
void tcp_synced_input(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
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
