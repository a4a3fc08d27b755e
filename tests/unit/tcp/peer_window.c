/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/peer_window.c: the peer's window through header
 * prediction and the full checks (RFC 9293 3.10.7.4, SND.WL1 and SND.WL2):
 * window updates, a zero window then persist, no window from an old ACK,
 * and CUBIC's application-limited period kept out of its t
 * (net/tcp/tcp_input.c, tcp_input_synced.c, tcp_congestion.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_frame_check.h"

#define SEC 1000000000ull

/* Inject to side 1's connection c as if from its peer, no options. */
static void inj(struct tl *l, struct tcp_conn *c, uint32_t seq, uint32_t ack, uint16_t wnd, const void *data,
                uint32_t len)
{
    uint8_t f[1600];
    size_t n = ta_frame(f, 1, c->rport, c->lport, seq, ack, TCP_ACK, wnd, NULL, 0, data, len);
    tl_inject(l, 1, f, n);
}

/* An established pair without timestamps (injected segments need none)
 * whose wire then carries nothing: side 1 sees only what the test injects. */
static struct tl *quiet_pair(struct ta *a, struct tapctx *t)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = tl_new(&o);
    t->k.ts = 0;
    l->tap = chk_tap;
    l->tap_ctx = t;
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    t->drop_all[0] = t->drop_all[1] = true;
    return l;
}

TEST(tcp_fast_path_window_updates)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    CHECK_EQ(sh, 7); /* side 0's window may grow to 4 MiB: 4194304 >> 6 is still 65536 */
    static uint8_t data[200];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    CHECK_EQ(c->snd_nxt, una + 100);

    /* New data acknowledged, a new window: taken. */
    inj(l, c, seq, una + 40, 1000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 40);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK_EQ(c->snd_wl1, seq);
    CHECK_EQ(c->snd_wl2, una + 40);
    /* An older ACK at the same SEQ (SND.WL2 > SEG.ACK): not taken. */
    inj(l, c, seq, una + 30, 2000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 40);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK_EQ(c->snd_wl2, una + 40);
    /* A shrinking window with new data acknowledged: taken. */
    inj(l, c, seq, una + 50, 10, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 10u << sh);
    /* Data, the same ACK, a new window: delivered and taken. */
    inj(l, c, seq, una + 50, 3000, "abc", 3);
    CHECK_EQ(a[1].rx_bytes, 3);
    CHECK_EQ(c->rcv_nxt, seq + 3);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    CHECK_EQ(c->snd_wl1, seq);
    seq += 3;
    /* A pure ACK ahead of RCV.NXT (acceptable) moves SND.WL1 ahead ... */
    uint32_t ahead = seq + 500;
    inj(l, c, ahead, una + 50, 5000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    CHECK_EQ(c->rcv_nxt, seq);
    /* ... so in-sequence segments behind it (SEG.SEQ < SND.WL1) move
     * SND.UNA but not the window, with or without data. */
    inj(l, c, seq, una + 60, 6000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 60);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    inj(l, c, seq, una + 70, 5000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 70);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    inj(l, c, seq, una + 80, 7000, "de", 2);
    CHECK_EQ(c->snd_una, una + 80);
    CHECK_EQ(a[1].rx_bytes, 5);
    CHECK_EQ(c->snd_wnd, 5000u << sh);
    CHECK_EQ(c->snd_wl1, ahead);
    seq += 2;
    /* Past SND.WL1 again: taken. */
    inj(l, c, ahead + 1, una + 80, 4000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 4000u << sh);
    CHECK_EQ(c->snd_wl1, ahead + 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-dup-ack"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ack-old"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-out-of-window"), 0);
    CHECK_EQ(t->k.bad, 0);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* A window closed by an ACK the fast path takes: persist starts, and the
 * update that reopens it (a pure window update, the full checks) stops it
 * and lets the data go. */
TEST(tcp_fast_path_zero_window_then_persist)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    static uint8_t data[300];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    inj(l, c, seq, una + 100, 0, NULL, 0); /* everything acknowledged, window 0 */
    CHECK_EQ(c->snd_una, una + 100);
    CHECK_EQ(c->snd_wnd, 0);
    CHECK_EQ(tcp_write(c, data, 200, l->now_ns), 200);
    CHECK_EQ(c->snd_nxt, una + 100); /* held */
    CHECK(c->flags & TCP_CF_PERSIST);
    CHECK(c->rto_at != 0);
    inj(l, c, seq, una + 100, 1000, NULL, 0);
    CHECK_EQ(c->snd_wnd, 1000u << sh);
    CHECK(!(c->flags & TCP_CF_PERSIST));
    CHECK_EQ(c->snd_nxt, una + 300);
    CHECK_EQ(tl_ctr(l, 1, "tcp-window-probe"), 0);
    CHECK_EQ(t->k.bad, 0);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* RFC 9293 3.10.7.4: the window is taken from an ACK only when
 * SND.UNA =< SEG.ACK =< SND.NXT; an older ACK ("a duplicate, it can be
 * ignored") does not move it, whatever its SEQ. */
TEST(tcp_window_not_taken_from_an_old_ack)
{
    struct ta a[2] = {{0}};
    struct tapctx *t = calloc(1, sizeof(*t));
    struct tl *l = quiet_pair(a, t);
    struct tcp_conn *c = a[1].c;
    uint32_t sh = c->snd_wscale;
    static uint8_t data[100];
    CHECK_EQ(tcp_write(c, data, 100, l->now_ns), 100);
    uint32_t una = c->snd_una, seq = c->rcv_nxt;
    inj(l, c, seq, una + 50, 3000, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    /* A later SEQ (acceptable: a pure ACK in the window) but an ACK below
     * SND.UNA. */
    inj(l, c, seq + 10, una + 20, 9, NULL, 0);
    CHECK_EQ(c->snd_una, una + 50);
    CHECK_EQ(c->snd_wnd, 3000u << sh);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(t);
    CHECK(tl_free(l));
}

/* RFC 9438 5.8: with the window held while the application limits the
 * flow, the time since the epoch (t of W_cubic(t)) must not count the
 * application-limited period either, else W_cubic(t) is far ahead when the
 * flow fills the window again and the window jumps (Linux shifts the epoch
 * by the time spent so, tcp_cubic.c bictcp_cwnd_event). Here: congestion
 * avoidance at 20 segments, 10 s of one byte every 100 ms (under the RTO:
 * no restart after idle, RFC 5681 4.1), then three round trips of bulk. */
TEST(tcp_cubic_app_limited_period_not_in_t)
{
    struct tl_opts o = {.delay_ns = 10000000};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct tcp_conn *c = a[0].c;
    uint32_t m = tcp_mss(c);
    CHECK_EQ(c->cc_algo, TCP_CC_CUBIC);
    c->cwnd = c->ssthresh = 20 * m; /* congestion avoidance, the plateau here */
    c->cubic_wmax = 20 * m;
    c->cubic_epoch_ns = 0;
    a[0].tx_total = 200000;
    a[0].zero_copy = true;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, got_all, a, 10 * SEC));
    CHECK(c->cubic_epoch_ns != 0);
    uint32_t w = c->cwnd;
    CHECK(w >= 20 * m && w <= 30 * m);
    /* Application limited: the window is left as it is ... */
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(tcp_write(c, "x", 1, l->now_ns), 1);
        tl_advance(l, 100000000);
    }
    CHECK_EQ(c->cwnd, w);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    /* ... and grows from there, as if those 10 s had not been: about one
     * segment a round trip (Reno-friendly region), not half the window. */
    a[0].tx_total = a[0].tx_queued + (4u << 20);
    a[0].zero_copy = false;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 3 * 20000000ull + 1000000);
    CHECK(c->cwnd <= w + 6 * m);
    fprintf(stderr, "  cwnd %u segments before, %u three round trips later\n", w / m, c->cwnd / m);
    tcp_abort(c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}
