/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_sack.c: the sender's scoreboard (RFC 2018 section 5, RFC 6675
 * sections 3 and 4): which slots of the send queue the peer holds (SACKED),
 * which are taken for lost (LOST, by IsLost, RACK or a timeout) and have
 * been sent again (RETX), and "pipe", the bytes still thought to be in the
 * network. Slots are marked only when a SACK block covers them whole.
 *
 * IsLost only counts what was SACKed above a hole: it needs DupThresh
 * segments there, and cannot see a retransmission lost in its turn. RACK
 * (RFC 8985 6.2) judges by the time each slot was last sent: one sent
 * before a slot the peer has since SACKed (or, in recovery, a partial ACK
 * delivered: tcp_rack_acked), by more than the reordering window, was
 * lost (a whole burst lost but its last segment, which the tail loss
 * probe cannot repair once a SACK is in). A slot still inside
 * the window waits for the reordering timer. Unlike the RFC, a first
 * transmission is left to IsLost while DupThresh slots sent after the
 * latest delivered are still out (docs/tcp.md, RACK for first
 * transmissions). Once the path has reordered, RACK alone judges (no
 * DupThresh), and D-SACKs widen its window; a D-SACK for each copy a
 * recovery sent undoes it (RFC 3708: tcp_dsack_input). Recovery begins
 * here too (tcp_enter_recovery, tcp_rack_lost): the window cut once, the
 * slots IsLost finds marked. */
#include "net.h"
#include "tcp_impl.h"

static void set_flags(struct tcp_conn *c, struct tcp_seg *sg, uint8_t flags)
{
    bool was = (sg->flags & (TCP_SEG_SACKED | TCP_SEG_LOST)) != 0;
    bool is = (flags & (TCP_SEG_SACKED | TCP_SEG_LOST)) != 0;
    sg->flags = flags;
    if (was != is) {
        if (is)
            c->nmarked++;
        else
            c->nmarked--;
    }
}

/* sg, just SACKed, was sent after the latest delivered so far (RFC 8985
 * 6.2 step 2): sent later, or at the same time but further on. A
 * retransmission reported sooner than an RTT after it went is taken for
 * its original's delivery, whose time is not known. */
static void rack_note(struct tcp_conn *c, const struct tcp_seg *sg, uint8_t was, uint32_t now_t)
{
    if ((was & TCP_SEG_RETX) && (int32_t)(now_t - sg->sent_t) < (int32_t)(c->min_rtt_t & INT32_MAX))
        return;
    int32_t d = (int32_t)(sg->sent_t - c->rack_sent_t);
    if (d > 0 || (d == 0 && SEQ_GT(sg->seq + sg->len, c->rack_end))) {
        c->rack_sent_t = sg->sent_t;
        c->rack_end = sg->seq + sg->len;
    }
}

/* RACK's reordering window (RFC 8985 6.2 step 4), in tcp_clock units:
 * none while the peer has not reordered and a loss is certain anyway (in
 * recovery, or DupThresh slots SACKed); else a quarter of the smallest
 * RTT, times 1 + reo_steps (one more for each round trip with D-SACKs),
 * at most SRTT (no sample yet: endless, IsLost decides). */
static int32_t rack_reo_wnd(const struct tcp_conn *c, uint32_t sacked_slots)
{
    if (!c->rack_reord && ((c->flags & TCP_CF_IN_RECOVERY) || sacked_slots >= TCP_DUPTHRESH))
        return 0;
    if (c->min_rtt_t == UINT32_MAX)
        return INT32_MAX;
    uint64_t reo = (uint64_t)(c->min_rtt_t / 4) * (1u + c->reo_steps), srtt = c->srtt_ns >> 10;
    return (int32_t)(reo < srtt ? reo : srtt);
}

/* How long before the latest delivered sg was sent (RFC 8985's
 * RACK_sent_after, the other way round), in tcp_clock units; -1 when it
 * was not sent before it. */
static int32_t rack_age(const struct tcp_conn *c, const struct tcp_seg *sg)
{
    int32_t d = (int32_t)(c->rack_sent_t - sg->sent_t);
    return d < 0 || (d == 0 && !SEQ_LT(sg->seq + sg->len, c->rack_end)) ? -1 : d;
}

uint32_t tcp_rack_detect(struct tcp_conn *c, bool expired, uint64_t now_ns)
{
    uint32_t n = tcp_sent_slots(c), sacked = 0, later = 0, lost = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct tcp_seg *sg = tcp_sq_at(c, i);
        sacked += (sg->flags & TCP_SEG_SACKED) != 0;
        later += !(sg->flags & TCP_SEG_SACKED) && rack_age(c, sg) < 0;
    }
    int32_t reo = expired ? 0 : rack_reo_wnd(c, sacked), wait = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        uint8_t f = sg->flags;
        if ((f & TCP_SEG_SACKED) || (f & (TCP_SEG_LOST | TCP_SEG_RETX)) == TCP_SEG_LOST ||
            SEQ_LEQ(sg->seq + sg->len, c->snd_una))
            continue;
        int32_t d = rack_age(c, sg);
        if (d < 0)
            continue;
        if (!(f & TCP_SEG_RETX) && later >= TCP_DUPTHRESH && !tcp_rack_only(c))
            continue; /* the duplicate ACKs still to come tell (IsLost) */
        if (d < reo) {
            wait = reo - d > wait ? reo - d : wait;
            continue;
        }
        if (f & TCP_SEG_RETX) { /* stays LOST: send_lost's again */
            sg->flags = (uint8_t)(f & ~TCP_SEG_RETX);
            c->t->s->ctr.tcp_lost_retransmit++;
        } else {
            set_flags(c, sg, (uint8_t)(f | TCP_SEG_LOST));
        }
        lost++;
    }
    if (wait)
        tcp_reo_timer_arm(c, now_ns, (uint64_t)wait << 10);
    return lost;
}

uint32_t tcp_sack_update(struct tcp_conn *c, const struct tcp_opts *o, uint32_t ack)
{
    uint32_t marked = 0, now_t = tcp_clock(c->t->now_ns);
    /* Outside the flight it is stale: 0 from the start (ahead of an ISN
     * in the upper half of the space, by sequence arithmetic), or left
     * behind by more than 2 GB sent without a SACK (ahead again). */
    if (SEQ_LT(c->sack_high, c->snd_una) || SEQ_GT(c->sack_high, c->snd_nxt))
        c->sack_high = c->snd_una;
    uint32_t high = c->sack_high; /* what earlier ACKs reported */
    uint32_t n = tcp_sent_slots(c);
    if (n && c->nmarked == 0) { /* a new episode: delivered so far, nothing later than the oldest */
        c->rack_sent_t = tcp_sq_at(c, 0)->sent_t;
        c->rack_end = c->snd_una;
    }
    for (uint32_t b = 0; b < o->nsack; b++) {
        uint32_t l = o->sack[b][0], r = o->sack[b][1];
        /* Only blocks within what is outstanding (D-SACKs and nonsense
         * are ignored). */
        if (!SEQ_LT(l, r) || SEQ_LT(l, c->snd_una) || SEQ_GT(r, c->snd_nxt))
            continue;
        if (SEQ_GT(r, c->sack_high))
            c->sack_high = r;
        for (uint32_t i = 0; i < n; i++) {
            struct tcp_seg *sg = tcp_sq_at(c, i);
            if (SEQ_GEQ(sg->seq, r))
                break;
            if (SEQ_LEQ(l, sg->seq) && SEQ_LEQ(sg->seq + sg->len, r) && !(sg->flags & TCP_SEG_SACKED)) {
                uint8_t was = sg->flags;
                set_flags(c, sg, (uint8_t)((sg->flags & TCP_SEG_KEEP) | TCP_SEG_SACKED));
                marked++;
                rack_note(c, sg, was, now_t);
                /* Sent once and filling in below what was SACKed before:
                 * reordering (RFC 8985 6.2 step 3). */
                if (!(was & TCP_SEG_RETX) && SEQ_LT(sg->seq + sg->len, high))
                    c->rack_reord = true;
            }
        }
    }
    return marked;
}

void tcp_dsack_input(struct tcp_conn *c, const struct tcp_opts *o, uint32_t ack)
{
    uint32_t l = o->sack[0][0], r = o->sack[0][1];
    if (!SEQ_LT(l, r) ||
        !(SEQ_LEQ(r, ack) || (o->nsack > 1 && SEQ_LEQ(o->sack[1][0], l) && SEQ_LEQ(r, o->sack[1][1]))))
        return;
    c->t->s->ctr.tcp_dsack_rx++;
    /* RFC 8985 6.2 step 4: once a round trip, for the next 16 recoveries;
     * not for a tail loss probe's copy, which says nothing of reordering
     * (Linux's FLAG_DSACK_TLP). */
    bool probe = (c->flags & TCP_CF_TLP_RETX) && SEQ_LEQ(r, c->tlp_end);
    if (!probe && (c->reo_persist == 0 || SEQ_GEQ(c->snd_una, c->dsack_round))) {
        if (c->reo_steps < UINT8_MAX)
            c->reo_steps++;
        c->dsack_round = c->snd_nxt;
        c->reo_persist = 16;
    }
    /* RFC 3708 2: the last of the episode's retransmissions reported
     * duplicate: each original arrived, the path reordered them. Only
     * what we sent again counts (the network may duplicate an original
     * too), block by block from where each began: a copy sent as two
     * segments needs both reported, one block may report two copies. */
    bool any = false;
    while (c->undo_on && SEQ_LT(l, r)) {
        uint32_t i = 0;
        while (i < c->undo_n && c->undo_seq[i][0] != l)
            i++;
        if (i == c->undo_n)
            break;
        any = true;
        if (SEQ_LT(r, c->undo_seq[i][1])) {
            c->undo_seq[i][0] = r;
            break;
        }
        l = c->undo_seq[i][1];
        c->undo_n--;
        c->undo_seq[i][0] = c->undo_seq[c->undo_n][0];
        c->undo_seq[i][1] = c->undo_seq[c->undo_n][1];
    }
    if (any && c->undo_n == 0)
        tcp_undo(c);
}

void tcp_undo(struct tcp_conn *c)
{
    c->t->s->ctr.tcp_undo++;
    tcp_cc_undo(c);
    c->rack_reord = true;
    if (c->flags & TCP_CF_IN_RECOVERY) {
        c->flags &= ~(uint32_t)TCP_CF_IN_RECOVERY;
        tcp_marks_clear(c); /* RACK finds again what is lost after all */
        c->dupacks = 0;
    }
    c->recover = c->snd_una; /* no reduction to keep a second one from */
}

void tcp_undo_note(struct tcp_conn *c, uint32_t from, uint32_t to)
{
    if (c->undo_n == sizeof(c->undo_seq) / sizeof(c->undo_seq[0])) {
        c->undo_on = false; /* too many to tell: a loss, most likely */
        return;
    }
    c->undo_seq[c->undo_n][0] = from;
    c->undo_seq[c->undo_n][1] = to;
    c->undo_n++;
}

void tcp_undo_arm(struct tcp_conn *c)
{
    uint32_t n = tcp_sent_slots(c);
    c->undo_on = true;
    c->undo_n = 0;
    for (uint32_t i = 0; i < n && c->undo_on; i++) {
        const struct tcp_seg *sg = tcp_sq_at(c, i);
        if (!(sg->flags & TCP_SEG_AGAIN))
            continue;
        uint32_t to = SEQ_LT(c->snd_nxt, sg->seq + sg->len) ? c->snd_nxt : sg->seq + sg->len;
        tcp_undo_note(c, SEQ_GT(c->snd_una, sg->seq) ? c->snd_una : sg->seq, to);
    }
}

void tcp_rack_acked(struct tcp_conn *c, uint32_t ack)
{
    uint32_t now_t = tcp_clock(c->t->now_ns), n = tcp_sent_slots(c);
    for (uint32_t i = 0; i < n; i++) {
        const struct tcp_seg *sg = tcp_sq_at(c, i);
        if (SEQ_GT(sg->seq + sg->len, ack))
            break;
        if (!(sg->flags & TCP_SEG_SACKED))
            rack_note(c, sg, sg->flags, now_t);
    }
}

/* RFC 6675 IsLost: more than DupThresh - 1 segments' worth (or DupThresh
 * segments) SACKed above it. */
static bool lost_rule(const struct tcp_conn *c, uint32_t sacked_bytes, uint32_t sacked_slots)
{
    return sacked_slots >= TCP_DUPTHRESH || sacked_bytes > (TCP_DUPTHRESH - 1u) * c->seg_size;
}

void tcp_sack_mark_lost(struct tcp_conn *c)
{
    uint32_t bytes = 0, slots = 0;
    for (uint32_t i = tcp_sent_slots(c); i-- > 0;) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        if (sg->flags & TCP_SEG_SACKED) {
            bytes += sg->len;
            slots++;
        } else if (SEQ_LT(sg->seq, c->sack_high) && !(sg->flags & TCP_SEG_LOST) &&
                   lost_rule(c, bytes, slots)) {
            set_flags(c, sg, (uint8_t)((sg->flags & TCP_SEG_KEEP) | TCP_SEG_LOST));
        }
    }
}

bool tcp_sack_first_lost(struct tcp_conn *c)
{
    uint32_t n = tcp_sent_slots(c), bytes = 0, slots = 0;
    if (n == 0 || (tcp_sq_at(c, 0)->flags & TCP_SEG_SACKED))
        return false;
    for (uint32_t i = 1; i < n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        if (sg->flags & TCP_SEG_SACKED) {
            bytes += sg->len;
            slots++;
        }
    }
    return lost_rule(c, bytes, slots);
}

uint32_t tcp_pipe(struct tcp_conn *c)
{
    if (c->nmarked == 0 && !(c->flags & TCP_CF_FIN_LOST))
        return c->snd_nxt - c->snd_una;
    uint32_t pipe = 0, n = tcp_sent_slots(c);
    for (uint32_t i = 0; i < n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        uint32_t from = SEQ_GT(c->snd_una, sg->seq) ? c->snd_una : sg->seq;
        uint32_t to = SEQ_LT(c->snd_nxt, sg->seq + sg->len) ? c->snd_nxt : sg->seq + sg->len;
        if (!SEQ_LT(from, to) || (sg->flags & TCP_SEG_SACKED))
            continue;
        if ((sg->flags & (TCP_SEG_LOST | TCP_SEG_RETX)) == TCP_SEG_LOST)
            continue;
        pipe += to - from;
    }
    if ((c->flags & (TCP_CF_FIN_SENT | TCP_CF_FIN_LOST)) == TCP_CF_FIN_SENT && SEQ_LEQ(c->snd_una, c->snd_end))
        pipe++;
    return pipe;
}

void tcp_marks_clear(struct tcp_conn *c)
{
    for (uint32_t i = 0; i < c->sq_n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        set_flags(c, sg, (uint8_t)(sg->flags & (TCP_SEG_KEEP | TCP_SEG_SACKED)));
    }
}

void tcp_mark_all_lost(struct tcp_conn *c)
{
    uint32_t n = tcp_sent_slots(c);
    for (uint32_t i = 0; i < c->sq_n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        set_flags(c, sg, (uint8_t)((sg->flags & TCP_SEG_KEEP) | (i < n ? TCP_SEG_LOST : 0)));
    }
    c->sack_high = c->snd_una;
    if ((c->flags & TCP_CF_FIN_SENT) && SEQ_LEQ(c->snd_una, c->snd_end))
        c->flags |= TCP_CF_FIN_LOST;
}

bool tcp_sack_mark_oversize(struct tcp_conn *c, uint32_t size)
{
    bool any = false;
    uint32_t n = tcp_sent_slots(c);
    for (uint32_t i = 0; i < n; i++) {
        struct tcp_seg *sg = tcp_sq_at(c, i);
        if (sg->len > size && !(sg->flags & TCP_SEG_SACKED)) {
            set_flags(c, sg, (uint8_t)((sg->flags & ~TCP_SEG_RETX) | TCP_SEG_LOST));
            any = true;
        }
    }
    return any;
}

/* Recovery begins, the window reduced once for the flight out. */
static void begin_recovery(struct tcp_conn *c, uint64_t now_ns)
{
    c->t->s->ctr.tcp_fast_recovery++;
    c->flags = (c->flags & ~(uint32_t)(TCP_CF_TLP | TCP_CF_TLP_RETX)) | TCP_CF_IN_RECOVERY;
    c->recover = c->snd_nxt;
    if (c->flags & TCP_CF_PTO) /* no probe in recovery (RFC 8985 7.2) */
        tcp_rto_arm(c, now_ns);
    tcp_cc_loss(c, now_ns);
    if ((c->flags & TCP_CF_SACK) && !tcp_rack_only(c))
        tcp_sack_mark_lost(c);
}

void tcp_enter_recovery(struct tcp_conn *c, uint64_t now_ns)
{
    begin_recovery(c, now_ns);
    tcp_retransmit_first(c, now_ns);
}

void tcp_rack_lost(struct tcp_conn *c, uint64_t now_ns)
{
    if ((c->flags & TCP_CF_IN_RECOVERY) || SEQ_LT(c->snd_una, c->recover) || c->snd_una == c->snd_nxt)
        return;
    /* A loss anywhere in the flight calls for the congestion response
     * (RFC 8985 6.2 step 5 with RFC 6675's recovery); a slot other than
     * the first goes out from tcp_output's send_lost, with the others
     * marked. */
    if (tcp_sq_at(c, 0)->flags & TCP_SEG_LOST)
        tcp_enter_recovery(c, now_ns);
    else
        begin_recovery(c, now_ns);
}
