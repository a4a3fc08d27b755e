/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/send_corner_cases.c: the sending side of TCP against the
 * RFCs a Linux peer, a lossy path or an RFC-minded tester holds it to
 * (net/tcp/tcp_output.c, tcp_timer.c, tcp_congestion.c, tcp_input.c's ACK processing). */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull
#define MS 1000000ull

/* Drops side 0's data segments numbered in drop (1-based, first
 * transmissions and all: the n-th data segment side 0 sends). */
struct drop_nth {
    int n;
    int drop[4];
    uint64_t until_ns;          /* and every data segment of side 0 before this */
    bool bare_fin;              /* and side 0's first FIN without data */
};

static bool drop_nth_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct drop_nth *d = ctx;
    struct ta_seg s;
    if (from != 0 || !ta_parse(p, &s))
        return true;
    if (s.len == 0 && (s.flags & TCP_FIN) && d->bare_fin) {
        d->bare_fin = false;
        return false;
    }
    if (s.len == 0)
        return true;
    if (l->now_ns < d->until_ns)
        return false;
    d->n++;
    for (int i = 0; i < 4; i++)
        if (d->drop[i] == d->n)
            return false;
    return true;
}

static bool closed2(void *ctx)
{
    struct ta *a = ctx;
    return a[0].closed && a[1].closed;
}

/* The zero-window probes back off (RFC 9293 3.8.6.1), but that is the
 * persist timer's: once the window opens, a segment lost is sent again
 * after the RTO the path has, as Linux's probe0 backoff leaves icsk_rto
 * alone. The probes' doubling was kept in rto_ns: after 30 s of a shut
 * window the first flight lost after it waited some 25 s. */
TEST(tcp_review_tx_persist_backoff_leaves_the_rto)
{
    struct tcp_config small;
    tcp_config_default(&small);
    small.sack = false; /* no probe of the tail: the RTO repairs */
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair_held(a, &small, 100000); /* the window closes */
    tl_advance(l, 30 * SEC);
    CHECK_EQ(a[0].c->snd_wnd, 0);
    CHECK(tl_ctr(l, 0, "tcp-window-probe") >= 4);
    /* The window opens; the first flight after it is lost. */
    struct drop_nth d = {.until_ns = l->now_ns + 10 * MS};
    l->tap = drop_nth_tap;
    l->tap_ctx = &d;
    a[1].hold = false;
    ta_release(&a[1], l->now_ns);
    tcp_set_manual_window(a[1].c, false);
    tl_advance(l, 3 * SEC);
    CHECK_EQ(a[1].rx_bytes, 100000);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK(tl_ctr(l, 0, "tcp-rto") >= 1);
    l->tap = NULL;
    CHECK(tl_free(l));
}

/* Six segments, the FIN on the last; the first and the last are lost. A
 * retransmission of the last segment carries the FIN again, as the
 * original did (Linux's retransmits the skb, FIN and all): without it the
 * peer acknowledged the data, the FIN stayed out, and only the RTO sent
 * it. Without SACK (NewReno, RFC 6582 3.2 step 5) the partial ACK sends
 * the last segment again. */
static void fin_tail_lost(bool sack)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.sack = sack;
    struct tl_opts o = {.cfg = {NULL, &cfg}};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    ta_listen(l, 1, 80, &a[1]);
    a[1].close_on_fin = true;
    a[0].tx_total = 6 * 1448; /* data and FIN queued at once: the FIN rides on the sixth */
    a[0].close_when_sent = true;
    struct drop_nth d = {.drop = {1, 6}};
    l->tap = drop_nth_tap;
    l->tap_ctx = &d;
    uint64_t t0 = l->now_ns;
    ta_connect(l, 0, 80, &a[0]);
    CHECK(tl_run(l, closed2, a, 5 * SEC));
    CHECK_EQ(a[1].rx_bytes, 6 * 1448);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK(l->now_ns - t0 < 150 * MS); /* no timeout (200 ms at least) */
    l->tap = NULL;
    CHECK(tl_free(l));
}

TEST(tcp_review_tx_fin_sent_again_with_the_last_segment_newreno)
{
    fin_tail_lost(false);
}

/* With SACK: after the first segment's retransmission is acknowledged
 * nothing is SACKed above the last, so IsLost never marks it. The partial
 * ACK delivers that retransmission, sent after the last segment: RACK
 * (RFC 8985 6.2) takes the last for lost, and it goes again with the FIN
 * it carried. It waited for the RTO. */
TEST(tcp_review_tx_fin_sent_again_with_the_last_segment_sack)
{
    fin_tail_lost(true);
}

/* All the data out, then the FIN alone (an HTTP server's response, then
 * its close); the second segment and the FIN are lost. Recovery repairs
 * the data, and the ACK of all of it is a partial one (the recovery point
 * lies past the FIN): the FIN, first unacknowledged, goes again at once,
 * as the head segment would. It waited for the RTO. */
static void bare_fin_lost(bool sack)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.sack = sack;
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair(a, &o);
    a[1].close_on_fin = true;
    a[0].tx_total = 8 * 1448;
    struct drop_nth d = {.drop = {2}, .bare_fin = true};
    l->tap = drop_nth_tap;
    l->tap_ctx = &d;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 10000); /* 10 us: the data is out, none acknowledged */
    CHECK_EQ(a[0].c->snd_nxt, a[0].c->snd_end);
    uint64_t t0 = l->now_ns;
    tcp_close(a[0].c, l->now_ns);
    CHECK(tl_run(l, closed2, a, 5 * SEC));
    CHECK(!d.bare_fin);
    CHECK_EQ(a[1].rx_bytes, 8 * 1448);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK(l->now_ns - t0 < 150 * MS);
    l->tap = NULL;
    CHECK(tl_free(l));
}

TEST(tcp_review_tx_bare_fin_lost_with_data_sack) { bare_fin_lost(true); }

TEST(tcp_review_tx_bare_fin_lost_with_data_newreno) { bare_fin_lost(false); }

/* RFC 9438 4.8: after a timeout, the first congestion avoidance takes K =
 * 0 and W_max = cwnd at its start (and W_est from there): it grows from
 * where slow start left it, not concave towards the W_max of before the
 * timeout (Linux's cubictcp_state resets it on TCP_CA_Loss). */
TEST(tcp_review_tx_cubic_after_timeout_starts_at_k_zero)
{
    struct tcp_conn c;
    memset(&c, 0, sizeof c);
    c.cc_algo = TCP_CC_CUBIC;
    c.seg_size = 1000;
    c.flags = TCP_CF_SACK;
    tcp_cc_init(&c);
    c.cwnd = 100000;
    c.ssthresh = 200000;
    c.snd_una = 1;
    c.snd_nxt = 1 + 100000;
    c.srtt_ns = 10 * MS;
    c.retries = 1;
    tcp_cc_rto(&c, SEC);
    CHECK_EQ(c.cwnd, 1000);
    CHECK_EQ(c.ssthresh, 100000u * 717 / 1024); /* flight * 0.7 */
    uint64_t now = SEC;
    while (c.cwnd < c.ssthresh) {
        now += MS;
        tcp_cc_ack(&c, 1000, now);
    }
    uint32_t start = c.cwnd;
    now += MS;
    tcp_cc_ack(&c, 1000, now); /* the epoch begins */
    CHECK(c.cubic_epoch_ns != 0);
    CHECK_EQ(c.cubic_k_ms, 0);
    CHECK_EQ(c.cubic_origin, start);
    CHECK(c.cwnd <= start + 1000);
}
