/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/state_machine.c: the TCP state machine (RFC 9293 3.10),
 * opening and closing: simultaneous open and close, RST and SYN in and out
 * of the window with challenge ACKs (RFC 5961), refused and unanswered
 * connections, TIME-WAIT and its reuse, keepalive, the retransmission
 * backoff's end (net/tcp/tcp_input.c, tcp_conn.c, tcp_timer.c). The states
 * with data and windows are state_with_data.c. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_segment_log.h"

#define SEC 1000000000ull

TEST(tcp_simultaneous_open)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    /* Each side opens to the other's port before either SYN arrives. */
    a[0].c = tcp_connect_from(l->s[0], 4000, TL_ADDR1, 5000, &ta_cb, &a[0], l->now_ns);
    a[1].c = tcp_connect_from(l->s[1], 5000, TL_ADDR0, 4000, &ta_cb, &a[1], l->now_ns);
    CHECK(a[0].c && a[1].c);
    a[0].tx_total = a[1].tx_total = 10000;
    a[0].close_when_sent = a[1].close_when_sent = true;
    CHECK(tl_run(l, closed2, a, 10 * SEC));
    CHECK_EQ(a[0].connected, 1);
    CHECK_EQ(a[1].connected, 1);
    CHECK_EQ(a[0].rx_bytes, 10000);
    CHECK_EQ(a[1].rx_bytes, 10000);
    CHECK_EQ(a[0].rx_bad + a[1].rx_bad, 0);
    /* Both closed at once: CLOSING, then both in TIME-WAIT. */
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns - 1);
    CHECK_EQ(l->t[1]->nfree, l->t[1]->nconns - 1);
    tl_advance(l, 61 * SEC);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns);
    CHECK_EQ(l->t[1]->nfree, l->t[1]->nconns);
    CHECK(tl_free(l));
}

TEST(tcp_simultaneous_close)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {.delay_ns = 5000000};
    struct tl *l = ta_pair(a, &o);
    tcp_close(a[0].c, l->now_ns);
    tcp_close(a[1].c, l->now_ns);
    CHECK_EQ(a[0].c->state, TCP_FIN_WAIT_1);
    CHECK_EQ(a[1].c->state, TCP_FIN_WAIT_1);
    tl_run(l, NULL, NULL, 6000000ull); /* the FINs cross */
    CHECK_EQ(a[0].c->state, TCP_CLOSING);
    CHECK_EQ(a[1].c->state, TCP_CLOSING);
    CHECK(tl_run(l, closed2, a, SEC));
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(a[0].peer_fin + a[1].peer_fin, 2);
    CHECK(tl_free(l));
}

TEST(tcp_rst_and_syn_handling)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    struct rec r = {.from = 1};
    l->tap = rec_tap;
    l->tap_ctx = &r;

    /* RST out of the window: ignored, nothing sent. */
    to_side1(l, c, c->rcv_nxt + 10000000, 0, TCP_RST, NULL, 0);
    CHECK_EQ(r.n, 0);
    /* RST in the window but not at RCV.NXT: a challenge ACK. */
    to_side1(l, c, c->rcv_nxt + 100, 0, TCP_RST, NULL, 0);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].flags, TCP_ACK);
    CHECK_EQ(r.s[0].ack, c->rcv_nxt);
    /* SYN in the window: a challenge ACK, the connection stays. */
    to_side1(l, c, c->rcv_nxt, 0, TCP_SYN, NULL, 0);
    CHECK_EQ(r.n, 2);
    CHECK_EQ(r.s[1].flags, TCP_ACK);
    CHECK_EQ(c->state, TCP_ESTABLISHED);
    /* Data with an ACK of what was never sent: ACK, dropped. */
    to_side1(l, c, c->rcv_nxt, c->snd_nxt + 1000, TCP_ACK, "x", 1);
    CHECK_EQ(r.n, 3);
    CHECK_EQ(a[1].rx_bytes, 0);
    /* Data out of the window: ACK, dropped. */
    to_side1(l, c, c->rcv_nxt + 0x40000000, c->snd_nxt, TCP_ACK, "x", 1);
    CHECK_EQ(r.n, 4);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rst-ignored"), 2);
    CHECK_EQ(tl_ctr(l, 1, "tcp-challenge-ack"), 2);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ack-unsent"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-out-of-window"), 1);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a[0].closed + a[1].closed, 0);
    /* RST exactly at RCV.NXT: the connection is reset. */
    l->tap = NULL;
    to_side1(l, c, c->rcv_nxt, 0, TCP_RST, NULL, 0);
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rst-rx"), 1);
    /* Side 0 still thinks it is open: its next segment draws a RST. */
    tcp_write(a[0].c, "hello", 5, l->now_ns);
    CHECK(tl_run(l, closed2, a, 10 * SEC));
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_RESET);
    CHECK_EQ(tl_ctr(l, 1, "tcp-listen-drop"), 1); /* an ACK to the listener: RST */
    CHECK(tl_free(l));
}

TEST(tcp_challenge_ack_rate_limit)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.challenge_per_s = 5;
    struct ta a[2] = {{0}};
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = ta_pair(a, &o);
    for (int i = 0; i < 20; i++)
        to_side1(l, a[1].c, a[1].c->rcv_nxt, 0, TCP_SYN, NULL, 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-challenge-ack"), 5);
    CHECK_EQ(tl_ctr(l, 1, "tcp-challenge-limited"), 15);
    tl_advance(l, 2 * SEC);
    to_side1(l, a[1].c, a[1].c->rcv_nxt, 0, TCP_SYN, NULL, 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-challenge-ack"), 6);
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    CHECK(tl_free(l));
}

TEST(tcp_refused_and_unanswered)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta a = {0};
    ta_connect(l, 0, 81, &a); /* nobody listens */
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a.closed, 1);
    CHECK_EQ(a.close_reason, TCP_CLOSE_REFUSED);
    CHECK_EQ(a.connected, 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-no-port"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rst-tx"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rst-rx"), 1);
    /* SYNs into the void: 1 + 5 retries, backing off, then given up. */
    struct rec r = {.from = 0, .drop_all = true};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    struct ta b = {0};
    ta_connect(l, 0, 81, &b);
    tl_run(l, NULL, NULL, 200 * SEC);
    CHECK_EQ(b.closed, 1);
    CHECK_EQ(b.close_reason, TCP_CLOSE_TIMEOUT);
    CHECK_EQ(r.n, 6);
    CHECK_EQ(tl_ctr(l, 0, "tcp-timeout"), 1);
    CHECK(tl_free(l));
}

TEST(tcp_time_wait_answers_a_repeated_fin)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c0 = a[0].c;
    tcp_close(a[0].c, l->now_ns);
    a[1].close_on_fin = true;
    CHECK(tl_run(l, closed2, a, SEC));
    CHECK_EQ(c0->state, TCP_TIME_WAIT);
    /* The peer's FIN again (its ACK was lost): ACKed from TIME-WAIT. */
    struct rec r = {.from = 0};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    uint8_t f[128];
    size_t n = ta_frame(f, 0, c0->rport, c0->lport, c0->rcv_nxt - 1, c0->snd_nxt, TCP_FIN | TCP_ACK, 65535,
                        NULL, 0, NULL, 0);
    tl_inject(l, 0, f, n);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].ack, c0->rcv_nxt);
    CHECK_EQ(c0->state, TCP_TIME_WAIT);
    tl_advance(l, 61 * SEC);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns);
    CHECK(tl_free(l));
}

/* A client reusing its port while the server holds TIME-WAIT, with a
 * lower ISN (as often as not: ISNs are random). With timestamps the
 * newer TSval lets the SYN in (RFC 6191); without, the SYN gets an ACK,
 * the client's reset ends TIME-WAIT, and its next SYN gets in: no wait of
 * 2 MSL (60 s), which a client's connect would not survive. */
static void reuse_from_time_wait(bool timestamps)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = timestamps;
    struct ta a[2] = {{0}};
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c1 = a[1].c;
    tcp_close(a[1].c, l->now_ns); /* the server closes first */
    a[0].close_on_fin = true;
    CHECK(tl_run(l, closed2, a, SEC));
    CHECK_EQ(c1->state, TCP_TIME_WAIT);
    uint32_t ts_recent = c1->ts_recent, seq = c1->rcv_nxt - 100000;
    uint16_t cport = c1->rport;
    struct rec r = {.from = 1, .drop_all = true};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    uint8_t f[128], ts[12] = {1, 1, 8, 10};
    uint32_t tsv = net_htonl(ts_recent + 5);
    memcpy(ts + 4, &tsv, 4);
    size_t n = ta_frame(f, 1, cport, 80, seq, 0, TCP_SYN, 65535, timestamps ? ts : NULL, timestamps ? 12 : 0, NULL, 0);
    tl_inject(l, 1, f, n);
    if (!timestamps) { /* an ACK; the client's reset (seq: that ACK's); the SYN again */
        CHECK(r.n == 1 && r.s[0].flags == TCP_ACK);
        size_t m = ta_frame(f, 1, cport, 80, r.s[0].ack, 0, TCP_RST, 0, NULL, 0, NULL, 0);
        tl_inject(l, 1, f, m);
        CHECK_EQ(l->t[1]->nfree, l->t[1]->nconns); /* TIME-WAIT is gone */
        n = ta_frame(f, 1, cport, 80, seq, 0, TCP_SYN, 65535, NULL, 0, NULL, 0);
        tl_inject(l, 1, f, n);
    }
    CHECK(r.n >= 1 && r.s[r.n - 1].flags == (TCP_SYN | TCP_ACK) && r.s[r.n - 1].ack == seq + 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-tw-recycled"), 1);
    CHECK(tl_free(l));
}

TEST(tcp_time_wait_reuse_with_timestamps) { reuse_from_time_wait(true); }

TEST(tcp_time_wait_reuse_without_timestamps) { reuse_from_time_wait(false); }

/* A server that closes first (HTTP) fills its arena with TIME-WAIT: a new
 * client's SYN then takes the oldest one's slot, with the options it
 * offered, rather than a SYN cookie. */
TEST(tcp_full_arena_of_time_wait_takes_a_syn)
{
    enum { N = 8 };
    struct tl_opts o = {.nconns = N};
    struct tl *l = tl_new(&o);
    struct ta srv[N + 1] = {{0}}, cli[N + 1] = {{0}};
    for (int i = 0; i < N; i++)
        srv[i].next = &srv[i + 1];
    ta_listen(l, 1, 80, &srv[0]);
    for (int i = 0; i < N; i++) {
        ta_connect(l, 0, 80, &cli[i]);
        cli[i].close_on_fin = true;
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(srv[i].accepted, 1);
        tcp_close(srv[i].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(cli[i].closed, 1);
        CHECK_EQ(l->t[1]->tw_tail ? l->t[1]->tw_tail->state : 0, TCP_TIME_WAIT);
    }
    CHECK_EQ(l->t[1]->nfree, 0);
    struct tcp_conn *oldest = l->t[1]->tw_head;
    ta_connect(l, 0, 80, &cli[N]);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(srv[N].accepted, 1);
    CHECK(srv[N].c == oldest);
    CHECK(srv[N].c->flags & TCP_CF_WS); /* negotiated, not from a cookie */
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-tw-recycled"), 1);
    tl_advance(l, 61 * SEC); /* the others' 2 MSL: the list empties as the wheel frees them */
    CHECK(l->t[1]->tw_head == NULL && l->t[1]->tw_tail == NULL);
    CHECK_EQ(l->t[1]->nfree, N - 1);
    CHECK(tl_free(l));
}

TEST(tcp_keepalive)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    tcp_set_keepalive(a[0].c, 10 * SEC, 2 * SEC, 3);
    tl_advance(l, 35 * SEC); /* answered: probes at 10, 20, 30 s */
    CHECK_EQ(tl_ctr(l, 0, "tcp-keepalive-tx"), 3);
    CHECK_EQ(a[0].closed, 0);
    struct rec r = {.from = 1, .drop_all = true}; /* the peer is gone */
    l->tap = rec_tap;
    l->tap_ctx = &r;
    tl_advance(l, 30 * SEC);
    CHECK_EQ(a[0].closed, 1);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_TIMEOUT);
    CHECK_EQ(tl_ctr(l, 0, "tcp-keepalive-tx"), 6);
    CHECK_EQ(tl_ctr(l, 0, "tcp-timeout"), 1);
    l->tap = NULL;
    tl_run(l, closed2, a, SEC);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    CHECK(tl_free(l));
}

/* Keepalive does not judge a connection with data out: its probes would
 * declare dead (here after 1.1 s of silence) a peer the RTO is still
 * retrying (RFC 1122 4.2.3.6: probes only on an idle connection). Found
 * by the soak (tcp_soak). */
TEST(tcp_keepalive_leaves_data_in_flight_to_the_rto)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    tcp_set_keepalive(a[0].c, SEC / 2, SEC / 5, 3);
    struct rec r = {.from = 1, .drop_all = true}; /* 3 s of silence from the peer */
    l->tap = rec_tap;
    l->tap_ctx = &r;
    a[0].tx_total = 100000;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 3 * SEC);
    CHECK_EQ(a[0].closed, 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-keepalive-tx"), 0);
    CHECK(tl_ctr(l, 0, "tcp-rto") >= 3);
    l->tap = NULL;
    tl_advance(l, 10 * SEC);
    CHECK_EQ(a[1].rx_bytes, 100000);
    CHECK_EQ(a[0].closed, 0);
    tl_advance(l, SEC); /* idle now: probed, answered */
    CHECK(tl_ctr(l, 0, "tcp-keepalive-tx") >= 1);
    CHECK_EQ(a[0].closed, 0);
    CHECK(tl_free(l));
}

/* After timeouts, the first ACK of what was sent again is timed by its
 * timestamp echo (RFC 7323 4.1), as Linux does: the RTO is the measured
 * one at once, not the backed-off one (which grows to a minute) until
 * data sent only once is acknowledged. Found by the soak (tcp_soak).
 * When the ACKs were lost instead (the data arrived), the echo is of the
 * original, older than the timeout: the outage is no RTT sample. */
static void backoff_ends(int silent)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {.delay_ns = 1000000, .rate_bps = 100000000};
    struct tl *l = ta_pair(a, &o);
    CHECK(a[0].c->flags & TCP_CF_TS);
    a[0].tx_total = 4 << 20; /* 0.34 s at 100 Mb/s */
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, SEC / 10);
    struct rec r = {.from = silent, .drop_all = true};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    tl_advance(l, 3 * SEC); /* timeouts at about 0.2, 0.6, 1.4 s: 1.6 s backed off */
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 3);
    CHECK_EQ(a[0].c->rto_ns, 1600000000ull);
    l->tap = NULL;
    uint64_t acked = a[0].acked;
    for (int i = 0; i < 100000 && a[0].acked == acked; i++)
        tl_advance(l, 100000); /* to the first ACK of the retransmission */
    CHECK(a[0].acked > acked);
    if (silent == 0) {
        CHECK(a[0].c->rto_ns < 400000000ull); /* rto_min and a round trip */
        CHECK(a[0].c->rto_at - l->now_ns <= a[0].c->rto_ns); /* armed with it, not the backed-off one */
    }
    CHECK(a[0].c->srtt_ns < 100000000ull);
    tl_advance(l, 20 * SEC);
    CHECK_EQ(a[1].rx_bytes, 4u << 20);
    CHECK(tl_free(l));
}

TEST(tcp_backoff_ends_at_the_first_ack_with_timestamps) { backoff_ends(0); }

TEST(tcp_backoff_not_timed_by_an_outage_of_acks) { backoff_ends(1); }
