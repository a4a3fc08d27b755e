/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/state_corner_cases.c: corner cases of the TCP state machine that
 * a Linux peer or an RFC-minded tester meets (net/tcp/tcp_input.c, tcp_receive.c,
 * tcp_open.c, tcp_output.c). */
#include <stdlib.h>
#include <string.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"

#define SEC 1000000000ull

/* Records the segments a side sends. */
struct rec {
    int from;
    int n;
    struct ta_seg s[64];
};

static bool rec_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct rec *r = ctx;
    struct ta_seg s;
    if (from != r->from || !ta_parse(p, &s))
        return true;
    if (r->n < 64)
        r->s[r->n] = s;
    r->n++;
    return true;
}

/* A segment to side's connection c as if from its peer. */
static void to_conn(struct tl *l, int side, struct tcp_conn *c, uint32_t seq, uint32_t ack, uint8_t flags,
                    uint16_t wnd, const void *data, uint32_t len)
{
    uint8_t f[1600];
    size_t n = ta_frame(f, side, c->rport, c->lport, seq, ack, flags, wnd, NULL, 0, data, len);
    tl_inject(l, side, f, n);
}

/* The server's SYN-ACK again (our ACK of it was lost): its window field is
 * not scaled (RFC 7323 2.2), so it must not be taken shifted by the
 * scale the handshake agreed, nor lose its low bits (100 read as 0 at
 * scale 7: data waited for a window probe). */
TEST(tcp_review_synack_again_window_not_scaled)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[0].c;
    CHECK(c->flags & TCP_CF_WS);
    CHECK(c->snd_wscale > 0);
    to_conn(l, 0, c, c->irs, c->snd_nxt, TCP_SYN | TCP_ACK, 100, NULL, 0);
    CHECK_EQ(c->state, TCP_ESTABLISHED);
    CHECK_EQ(c->snd_wnd, 100);
    CHECK(tl_free(l));
}

/* Simultaneous open: the SYN-ACK that crosses ours carries an unscaled
 * window too. */
TEST(tcp_review_simultaneous_open_synack_window_not_scaled)
{
    struct tl_opts o = {.delay_ns = 1000000};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    a[0].c = tcp_connect_from(l->s[0], 4000, TL_ADDR1, 5000, &ta_cb, &a[0], l->now_ns);
    a[1].c = tcp_connect_from(l->s[1], 5000, TL_ADDR0, 4000, &ta_cb, &a[1], l->now_ns);
    CHECK(a[0].c && a[1].c);
    /* The SYNs cross (1 ms), each side answers with a SYN-ACK that arrives
     * 1 ms later: just after it, before the ACK behind it. */
    tl_advance(l, 2000000 + 1000);
    CHECK_EQ(a[0].c->state, TCP_ESTABLISHED);
    CHECK(a[0].c->snd_wscale > 0);
    CHECK(a[0].c->snd_wnd <= 0xffff);
    tl_run(l, NULL, NULL, SEC);
    CHECK(tl_free(l));
}

static bool drop_from_0(void *ctx, struct tl *l, int from, struct pkt *p) { return from != 0; }

/* Our window is shut; the peer probes it with a byte at RCV.NXT (as BSD
 * and Windows do) whose ACK covers data we sent. RFC 9293 3.10.7.4: with
 * RCV.WND zero no data is acceptable, "but special allowance should be
 * made to accept valid ACKs, URGs, and RSTs": the byte is not taken, the
 * ACK is, and the probe is answered. */
TEST(tcp_review_zero_window_probe_ack_is_taken)
{
    struct tcp_config small;
    tcp_config_default(&small);
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair_held(a, &small, 100000); /* the window closes */
    tl_advance(l, SEC);
    struct tcp_conn *c = a[1].c;
    CHECK_EQ(tcp_rcv_window(c), 0);
    CHECK_EQ(c->rcv_adv, c->rcv_nxt);
    /* Side 1 sends; nothing of side 0's comes back. */
    l->tap = drop_from_0;
    CHECK_EQ(tcp_write(c, "hello", 5, l->now_ns), 5);
    tl_advance(l, 1000000);
    CHECK_EQ(c->snd_nxt - c->snd_una, 5);
    struct rec r = {.from = 1};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    uint32_t rcv_nxt = c->rcv_nxt;
    uint64_t rx = a[1].rx_bytes;
    to_conn(l, 1, c, c->rcv_nxt, c->snd_nxt, TCP_ACK, 65535, "x", 1);
    CHECK_EQ(c->snd_una, c->snd_nxt);   /* the ACK taken */
    CHECK_EQ(c->rcv_nxt, rcv_nxt);      /* the byte not */
    CHECK_EQ(a[1].rx_bytes, rx);
    CHECK_EQ(r.n, 1);                   /* answered: ACK, window 0 */
    CHECK_EQ(r.s[0].ack, rcv_nxt);
    CHECK_EQ(r.s[0].wnd, 0);
    /* A RST at RCV.NXT with a payload (RFC 9293 3.5.3 allows one) resets. */
    to_conn(l, 1, c, c->rcv_nxt, 0, TCP_RST, 0, "bye", 3);
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    l->tap = NULL;
    tcp_abort(a[0].c, l->now_ns);
    ta_release(&a[1], l->now_ns);
    CHECK(tl_free(l));
}

/* The peer's FIN again in TIME-WAIT (our ACK of it was lost): answered,
 * and 2 MSL start again (RFC 9293 3.10.7.4, eighth step), as Linux does:
 * the peer is still in LAST-ACK, and its next FIN must find us there. */
TEST(tcp_review_time_wait_restarts_on_the_fin_again)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c0 = a[0].c;
    tcp_close(a[0].c, l->now_ns);
    a[1].close_on_fin = true;
    CHECK(tl_run(l, NULL, NULL, SEC));
    CHECK_EQ(c0->state, TCP_TIME_WAIT);
    tl_advance(l, 30 * SEC);
    struct rec r = {.from = 0};
    l->tap = rec_tap;
    l->tap_ctx = &r;
    uint8_t f[128];
    size_t n = ta_frame(f, 0, c0->rport, c0->lport, c0->rcv_nxt - 1, c0->snd_nxt, TCP_FIN | TCP_ACK, 65535,
                        NULL, 0, NULL, 0);
    tl_inject(l, 0, f, n);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].ack, c0->rcv_nxt);
    tl_advance(l, 40 * SEC); /* 70 s after it began, 40 after the FIN */
    CHECK_EQ(c0->state, TCP_TIME_WAIT);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns - 1);
    tl_advance(l, 21 * SEC);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns);
    CHECK(tl_free(l));
}

/* Takes the MSS option out of side 0's IPv6 SYNs (NOPs in its place, the
 * checksum mended as RFC 1624 does it). */
static bool strip_mss6_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    uint8_t *f = p->data, *t = f + 14 + 40, *o = t + 20;
    if (from != 0 || p->len < 14 + 40 + 24 || f[12] != 0x86 || f[13] != 0xdd || f[20] != 6 ||
        (t[13] & (TCP_SYN | TCP_ACK)) != TCP_SYN || o[0] != TCP_OPT_MSS || o[1] != TCP_OPT_MSS_LEN)
        return true;
    uint32_t sum = (uint16_t) ~(t[16] << 8 | t[17]);
    sum += (uint16_t) ~(o[0] << 8 | o[1]) + (uint16_t) ~(o[2] << 8 | o[3]) + 2u * 0x0101u;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    o[0] = o[1] = o[2] = o[3] = TCP_OPT_NOP;
    t[16] = (uint8_t)(~sum >> 8);
    t[17] = (uint8_t)~sum;
    (*(int *)ctx)++;
    return true;
}

/* An IPv6 SYN without the MSS option: RFC 9293 3.7.1 (MUST-15) has the
 * sender assume 1220 bytes (1280 - 60), not IPv4's 536; so does a SYN
 * cookie made for it. */
TEST(tcp_review_ipv6_default_mss_is_1220)
{
    for (int cookie = 0; cookie < 2; cookie++) {
        struct tcp_config cfg;
        tcp_config_default(&cfg);
        if (cookie)
            cfg.backlog = 0;
        struct tl_opts o = {.cfg = {NULL, &cfg}};
        struct tl *l = tl_new(&o);
        int stripped = 0;
        l->tap = strip_mss6_tap;
        l->tap_ctx = &stripped;
        struct ta a[2] = {{0}};
        ta_listen(l, 1, 80, &a[1]);
        CHECK(ta_connect6(l, 0, 80, &a[0]) != NULL);
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(stripped, 1);
        CHECK_EQ(a[1].accepted, 1);
        CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-ok"), (uint64_t)cookie);
        CHECK_EQ(a[1].c->mss, 1220);
        CHECK_EQ(a[0].c->mss, 1440); /* what the SYN-ACK offered: ours, a cookie's too */
        tcp_abort(a[0].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        CHECK(tl_free(l));
    }
}

static bool drop_from_1(void *ctx, struct tl *l, int from, struct pkt *p) { return from != 1; }

/* A FIN out of order (with data, bare, and under data that comes in
 * overlapping it) waits for the hole to fill: then the data, then the FIN
 * (RFC 9293 3.10.7.4, eighth: only once all before it is in). */
TEST(tcp_review_fin_out_of_order)
{
    for (int v = 0; v < 3; v++) {
        struct ta a[2] = {{0}};
        a[1].rx_copy = calloc(1, 64);
        a[1].rx_cap = 64;
        struct tl_opts o = {0};
        struct tl *l = ta_pair(a, &o);
        l->tap = drop_from_1; /* side 0 plays its part by hand */
        struct tcp_conn *c = a[1].c;
        uint32_t r = c->rcv_nxt;
        to_conn(l, 1, c, r + 4, c->snd_nxt, TCP_ACK | TCP_FIN, 65535, v == 1 ? NULL : "bbbb", v == 1 ? 0 : 4);
        CHECK_EQ(c->state, TCP_ESTABLISHED);
        CHECK_EQ(a[1].peer_fin, 0);
        to_conn(l, 1, c, r, c->snd_nxt, TCP_ACK, 65535, "aaaabb", v == 2 ? 6 : 4);
        CHECK_EQ(c->state, TCP_CLOSE_WAIT);
        CHECK_EQ(a[1].peer_fin, 1);
        CHECK_EQ(a[1].rx_bytes, v == 1 ? 4u : 8u);
        CHECK(memcmp(a[1].rx_copy, "aaaabbbb", a[1].rx_bytes) == 0);
        CHECK_EQ(c->rcv_nxt, r + (v == 1 ? 5 : 9));
        l->tap = NULL;
        tcp_abort(a[0].c, l->now_ns);
        tcp_abort(c, l->now_ns);
        free(a[1].rx_copy);
        CHECK(tl_free(l));
    }
}

static bool rec_drop_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    rec_tap(ctx, l, from, p);
    return from != ((struct rec *)ctx)->from;
}

/* Two segments in order and one ACK for both (delayed ACK): the ACK
 * echoes the first one's TSval, the earliest not yet acknowledged, as RFC
 * 7323 4.3 updates TS.Recent only from a segment at or before
 * Last.ACK.sent; so the peer's RTT sample includes the delay, as its RTO
 * must. */
TEST(tcp_review_delayed_ack_echoes_the_earlier_timestamp)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    CHECK(c->flags & TCP_CF_TS);
    struct rec r = {.from = 1};
    l->tap = rec_drop_tap; /* side 0 is played below */
    l->tap_ctx = &r;
    uint8_t f[1600], data[100] = {0}, ts[12] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, TCP_OPT_TS_LEN};
    uint32_t t1 = c->ts_recent + 10, seq = c->rcv_nxt;
    for (uint32_t i = 0; i < 2; i++) {
        uint32_t tsval = net_htonl(t1 + 5 * i);
        memcpy(ts + 4, &tsval, 4);
        size_t n = ta_frame(f, 1, c->rport, c->lport, seq + 100 * i, c->snd_nxt, TCP_ACK | TCP_PSH, 65535, ts,
                            sizeof ts, data, sizeof data);
        tl_inject(l, 1, f, n);
        CHECK_EQ(r.n, (int)i); /* the first waits: an ACK every second segment */
    }
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].ack, seq + 200);
    CHECK(r.s[0].opt.has_ts && r.s[0].opt.tsecr == t1);
    l->tap = NULL;
    CHECK(tl_free(l));
}

/* With the pool low, a segment out of order that covers one already
 * queued replaces it: it holds no more buffers than before. It was
 * dropped after the one it covered had been freed, so data the peer had
 * been told of in SACK blocks was lost (reneging, RFC 2018 8). */
TEST(tcp_review_low_pool_keeps_out_of_order_data_it_covers)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    struct rec r = {.from = 1};
    l->tap = rec_drop_tap; /* side 0 is played below */
    l->tap_ctx = &r;
    uint8_t data[300];
    for (uint32_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i % 251); /* what ta checks */
    uint32_t rcv = c->rcv_nxt;
    to_conn(l, 1, c, rcv + 100, c->snd_nxt, TCP_ACK, 65535, data + 100, 100);
    CHECK_EQ(c->ooo_n, 1);
    struct pkt_pool *pool = &l->pool[1];
    static struct pkt *held[8192];
    uint32_t nheld = 0;
    while (pool->nfree > c->t->rx_reserve / 2 && nheld < 8192)
        held[nheld++] = pkt_alloc(pool);
    to_conn(l, 1, c, rcv + 50, c->snd_nxt, TCP_ACK, 65535, data + 50, 200); /* covers the first */
    CHECK_EQ(c->ooo_n, 1);
    CHECK_EQ(c->ooo_bytes, 200);
    while (nheld)
        pkt_free(held[--nheld]);
    to_conn(l, 1, c, rcv, c->snd_nxt, TCP_ACK, 65535, data, 50);
    CHECK_EQ(a[1].rx_bytes, 250);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(c->ooo_n, 0);
    l->tap = NULL;
    CHECK(tl_free(l));
}

/* Segments sent by both sides in the 100 ms after something made them
 * disagree (below). */
static uint64_t segments_in_100ms(struct tl *l)
{
    uint64_t tx0 = tl_ctr(l, 0, "tcp-tx") + tl_ctr(l, 1, "tcp-tx");
    tl_advance(l, 100 * 1000000ull);
    return tl_ctr(l, 0, "tcp-tx") + tl_ctr(l, 1, "tcp-tx") - tx0;
}

/* A tester injects 10 bytes at side 1's RCV.NXT: side 1 now acknowledges
 * data side 0 never sent, side 0 answers that ACK (RFC 5961 5.2) and side
 * 1 the answer, whose sequence lies behind it. Each pure ACK that is out
 * of step is answered at most once in 500 ms (Linux's
 * tcp_oow_rate_limited): they bounced at the round trip's pace for ever. */
TEST(tcp_review_out_of_step_acks_do_not_storm)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    to_conn(l, 1, c, c->rcv_nxt, c->snd_nxt, TCP_ACK | TCP_PSH, 65535, "0123456789", 10);
    CHECK(segments_in_100ms(l) < 20); /* 1,201 before */
    CHECK(tl_ctr(l, 0, "tcp-ack-unsent") >= 1);
    CHECK(tl_ctr(l, 0, "tcp-oow-ack-limited") + tl_ctr(l, 1, "tcp-oow-ack-limited") >= 1);
    tcp_abort(a[0].c, l->now_ns);
    tcp_abort(a[1].c, l->now_ns);
    CHECK(tl_free(l));
}

static bool drop_rst_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct ta_seg s;
    return !(ta_parse(p, &s) && (s.flags & TCP_RST));
}

/* Side 1 lost its connection (and its RST); a SYN spoofed with side 0's
 * address and ports makes a SYN-RECEIVED one there, whose SYN-ACK side 0's
 * established connection answers as out of window, and so on: 2,001
 * segments in 100 ms, until the SYN-RECEIVED one gave up. */
TEST(tcp_review_syn_received_and_established_do_not_storm)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c0 = a[0].c;
    l->tap = drop_rst_tap;
    tcp_abort(a[1].c, l->now_ns);
    tl_advance(l, 1000000);
    l->tap = NULL;
    uint8_t f[200];
    size_t n = ta_frame(f, 1, c0->lport, c0->rport, 12345, 0, TCP_SYN, 65535, NULL, 0, NULL, 0);
    tl_inject(l, 1, f, n);
    CHECK(segments_in_100ms(l) < 20);
    tcp_abort(a[0].c, l->now_ns);
    tl_advance(l, 100 * SEC);
    CHECK(tl_free(l));
}

/* A connection made from a SYN cookie's ACK has Last.ACK.sent where the
 * SYN-ACK left it (RCV.NXT), so the client's request right after the ACK
 * gives TS.Recent its TSval (RFC 7323 4.3). Last.ACK.sent stayed 0: for
 * an ISN up to 2 GB past 0 the request's TSval was not taken, and our
 * answer echoed the ACK's, an older one. */
TEST(tcp_review_syn_cookie_connection_takes_the_requests_timestamp)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.backlog = 0; /* every SYN gets a cookie */
    struct tl_opts o = {.cfg = {NULL, &cfg}};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    ta_listen(l, 1, 80, &a[1]);
    struct rec r = {.from = 1};
    l->tap = rec_drop_tap; /* side 0 is played here */
    l->tap_ctx = &r;
    uint8_t f[200];
    uint8_t syn_opt[20] = {TCP_OPT_MSS, 4, 0x05, 0xb4, TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, TCP_OPT_TS_LEN,
                           0, 0, 0, 100, 0, 0, 0, 0, TCP_OPT_NOP, TCP_OPT_WS, 3, 7};
    uint32_t isn = 0x10000000u; /* SEQ_GT(isn + 1, 0) */
    size_t n = ta_frame(f, 1, 40000, 80, isn, 0, TCP_SYN, 65535, syn_opt, sizeof syn_opt, NULL, 0);
    tl_inject(l, 1, f, n);
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].flags, TCP_SYN | TCP_ACK);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-tx"), 1);
    uint8_t ts[12] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, TCP_OPT_TS_LEN, 0, 0, 0, 200};
    uint32_t tsecr = net_htonl(r.s[0].opt.tsval);
    memcpy(ts + 8, &tsecr, 4);
    n = ta_frame(f, 1, 40000, 80, isn + 1, r.s[0].seq + 1, TCP_ACK, 512, ts, sizeof ts, NULL, 0);
    tl_inject(l, 1, f, n);
    CHECK_EQ(tl_ctr(l, 1, "tcp-syncookie-ok"), 1);
    CHECK(a[1].c != NULL && (a[1].c->flags & TCP_CF_TS));
    if (a[1].c)
        CHECK_EQ(a[1].c->ts_recent, 200);
    ts[7] = 44; /* TSval 300 */
    ts[6] = 1;
    n = ta_frame(f, 1, 40000, 80, isn + 1, r.s[0].seq + 1, TCP_ACK | TCP_PSH, 512, ts, sizeof ts, "GET", 3);
    tl_inject(l, 1, f, n);
    if (a[1].c)
        CHECK_EQ(a[1].c->ts_recent, 300);
    l->tap = NULL;
    tcp_abort(a[1].c, l->now_ns);
    CHECK(tl_free(l));
}
