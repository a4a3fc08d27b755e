/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_congestion.c: congestion control, chosen per connection, and the undo
 * of a reduction found needless (tcp_cc_undo, RFC 3708 and RFC 4015).
 *
 * Common: initial window (RFC 6928), slow start with appropriate byte
 * counting, L = 2 (RFC 5681 3.1, RFC 3465), the window after a timeout
 * (one segment, RFC 5681 3.1). During fast recovery the window is managed
 * by tcp_input.c (RFC 6582 for NewReno without SACK, RFC 6675 with it).
 *
 * NewReno: congestion avoidance adds one segment per window acknowledged;
 * ssthresh = max(FlightSize / 2, 2 SMSS) (RFC 5681 eq. 4).
 *
 * CUBIC (RFC 9438): beta 0.7, C 0.4, fast convergence, the Reno-friendly
 * estimate W_est, and the window growing towards W_cubic(t + RTT) by
 * (target - cwnd) / cwnd per ACK. Integer arithmetic only (net/ runs in the
 * kernel without the FPU's state saved): times in ms, windows in bytes. */
#include "tcp_impl.h"

#define CUBIC_BETA_X1024 717u   /* 0.7 */
#define CUBIC_ALPHA_X1024 542u  /* 3 (1 - beta) / (1 + beta) = 0.529 */
#define CWND_MAX (1u << 30)

static uint32_t smss(const struct tcp_conn *c) { return c->seg_size; }

static uint32_t flight(const struct tcp_conn *c) { return c->snd_nxt - c->snd_una; }

void tcp_cc_init(struct tcp_conn *c)
{
    uint32_t m = smss(c);
    uint32_t iw = 14600 > 2 * m ? 14600 : 2 * m;
    c->cwnd = TCP_IW_SEGS * m < iw ? TCP_IW_SEGS * m : iw;
    c->ssthresh = CWND_MAX;
    c->cwnd_acc = 0;
    c->recover = c->snd_una;
    c->cubic_epoch_ns = 0;
    c->cubic_wmax = 0;
}

/* Integer cube root (floor). */
static uint64_t cbrt64(uint64_t x)
{
    uint64_t r = 0;
    for (int s = 63; s >= 0; s -= 3) {
        r <<= 1;
        uint64_t b = 3 * r * (r + 1) + 1;
        if ((x >> s) >= b) {
            x -= b << s;
            r++;
        }
    }
    return r;
}

static void cubic_start_epoch(struct tcp_conn *c, uint64_t now_ns)
{
    c->cubic_epoch_ns = now_ns ? now_ns : 1;
    c->cubic_west = c->cwnd;
    c->cwnd_acc = 0;
    if (c->cwnd < c->cubic_wmax) {
        /* K = cbrt((W_max - cwnd) / C) s; in segments and ms:
         * K^3 ms^3 = diff_segs * 1e9 / 0.4 = diff_segs * 2.5e9. */
        uint64_t diff_x1024 = (uint64_t)(c->cubic_wmax - c->cwnd) * 1024 / smss(c);
        c->cubic_k_ms = (uint32_t)cbrt64(diff_x1024 * 2441406ull); /* 2.5e9 / 1024 */
        c->cubic_origin = c->cubic_wmax;
    } else {
        c->cubic_k_ms = 0;
        c->cubic_origin = c->cwnd;
    }
}

/* W_cubic(t) in bytes, t in ms since the epoch (RFC 9438 eq. 1). */
static uint64_t cubic_w(const struct tcp_conn *c, int64_t t_ms)
{
    int64_t d = t_ms - (int64_t)c->cubic_k_ms;
    if (d > 100000)
        d = 100000;
    if (d < -100000)
        d = -100000;
    /* 0.4 * d^3 / 1e9 segments = d^3 * 2048 / 5e9 in 1/1024 segments. */
    int64_t segs_x1024 = d * d * d * 2048 / 5000000000ll;
    int64_t w = (int64_t)c->cubic_origin + segs_x1024 * (int64_t)smss(c) / 1024;
    return w < (int64_t)smss(c) ? smss(c) : (uint64_t)w;
}

static void cubic_ack(struct tcp_conn *c, uint32_t acked, uint64_t now_ns)
{
    uint32_t m = smss(c);
    if (c->cubic_epoch_ns == 0)
        cubic_start_epoch(c, now_ns);
    c->cubic_ack_ns = now_ns;
    int64_t t_ms = (int64_t)((now_ns - c->cubic_epoch_ns + c->srtt_ns) / 1000000u);
    uint64_t target = cubic_w(c, t_ms);
    if (target > c->cwnd + c->cwnd / 2)
        target = c->cwnd + c->cwnd / 2;
    /* Reno-friendly region (RFC 9438 4.3). */
    uint32_t alpha = c->cubic_west >= c->cubic_wmax ? 1024u : CUBIC_ALPHA_X1024;
    c->cubic_west += (uint32_t)((uint64_t)alpha * acked / 1024 * m / c->cwnd);
    if (target < c->cubic_west) {
        if (c->cubic_west > c->cwnd)
            c->cwnd = c->cubic_west;
        return;
    }
    if (target > c->cwnd) {
        /* (target - cwnd) / cwnd segments per segment acked. */
        c->cwnd_acc += (uint32_t)((target - c->cwnd) * acked / c->cwnd);
        if (c->cwnd_acc >= m) {
            c->cwnd += c->cwnd_acc / m * m;
            c->cwnd_acc %= m;
        }
    }
}

void tcp_cc_ack(struct tcp_conn *c, uint32_t acked, uint64_t now_ns)
{
    uint32_t m = smss(c);
    if (c->cwnd < c->ssthresh) {
        c->cwnd += acked < 2 * m ? acked : 2 * m;
        if (c->cwnd > c->ssthresh && c->ssthresh != CWND_MAX)
            c->cwnd = c->ssthresh;
    } else if (c->cc_algo == TCP_CC_CUBIC) {
        cubic_ack(c, acked, now_ns);
    } else {
        c->cwnd_acc += acked;
        if (c->cwnd_acc >= c->cwnd) {
            c->cwnd_acc -= c->cwnd;
            c->cwnd += m;
        }
    }
    if (c->cwnd > CWND_MAX)
        c->cwnd = CWND_MAX;
}

void tcp_cc_app_limited(struct tcp_conn *c, uint64_t now_ns)
{
    /* RFC 9438 5.8: t of W_cubic(t) leaves out the time the application
     * held the flow back (Linux moves the epoch on, bictcp_cwnd_event). */
    if (c->cc_algo == TCP_CC_CUBIC && c->cubic_epoch_ns) {
        c->cubic_epoch_ns += now_ns - c->cubic_ack_ns;
        c->cubic_ack_ns = now_ns;
    }
}

/* ssthresh on a congestion event, and CUBIC's W_max. */
static void reduce(struct tcp_conn *c)
{
    uint32_t m = smss(c), f = flight(c);
    if (c->cc_algo == TCP_CC_CUBIC) {
        /* Fast convergence (RFC 9438 4.7). */
        if (c->cwnd < c->cubic_wmax)
            c->cubic_wmax = (uint32_t)((uint64_t)c->cwnd * (1024 + CUBIC_BETA_X1024) / 2048);
        else
            c->cubic_wmax = c->cwnd;
        c->ssthresh = (uint32_t)((uint64_t)f * CUBIC_BETA_X1024 / 1024);
        c->cubic_epoch_ns = 0;
    } else {
        c->ssthresh = f / 2;
    }
    if (c->ssthresh < 2 * m)
        c->ssthresh = 2 * m;
    c->cwnd_acc = 0;
}

/* What tcp_cc_undo restores, kept before a reduction. */
static void undo_save(struct tcp_conn *c)
{
    c->undo_cwnd = c->cwnd;
    c->undo_ssthresh = c->ssthresh;
    c->undo_wmax = c->cubic_wmax;
}

void tcp_cc_loss(struct tcp_conn *c, uint64_t now_ns)
{
    /* Undone if D-SACKs show every retransmission of the episode
     * needless (RFC 3708 2). */
    undo_save(c);
    tcp_undo_arm(c);
    reduce(c);
    /* RFC 6675 5 step 4.2 / RFC 6582 3.2 step 3 (inflated by the three
     * duplicates that left the network). */
    c->cwnd = (c->flags & TCP_CF_SACK) ? c->ssthresh : c->ssthresh + TCP_DUPTHRESH * smss(c);
}

void tcp_cc_rto(struct tcp_conn *c, uint64_t now_ns)
{
    /* The first timeout keeps what tcp_cc_undo restores should the next
     * ACK show it spurious (tcp_input.c, RFC 3522), and its retransmission's
     * TSval: later echoes time retransmissions (ack_input). */
    c->undo_on = false;
    c->rto_eifel = c->retries == 1 && (c->flags & TCP_CF_TS);
    if (c->rto_eifel) {
        undo_save(c);
        c->rto_tsval = tcp_ts_now(now_ns) + c->ts_offset;
    }
    if (!(c->flags & TCP_CF_IN_RECOVERY) && c->retries <= 1)
        reduce(c);
    c->cwnd = smss(c);
    c->cubic_epoch_ns = 0;
    /* RFC 9438 4.8: the first congestion avoidance after a timeout has K =
     * 0 and W_max = cwnd at its start (cubic_start_epoch with no W_max),
     * not a concave climb back to the window of before the timeout. */
    c->cubic_wmax = 0;
}

void tcp_cc_undo(struct tcp_conn *c)
{
    c->undo_on = false;
    if (c->cwnd < c->undo_cwnd)
        c->cwnd = c->undo_cwnd;
    if (c->ssthresh < c->undo_ssthresh)
        c->ssthresh = c->undo_ssthresh;
    if (c->cubic_wmax < c->undo_wmax)
        c->cubic_wmax = c->undo_wmax;
    c->cwnd_acc = 0;
    c->cubic_epoch_ns = 0;
}

void tcp_cc_recovery_end(struct tcp_conn *c, uint64_t now_ns)
{
    uint32_t m = smss(c), f = flight(c);
    uint32_t w = (f > m ? f : m) + m;
    c->cwnd = c->ssthresh < w ? c->ssthresh : w; /* RFC 6582 3.2 step 6 */
    c->cwnd_acc = 0;
    c->cubic_epoch_ns = 0;
}
