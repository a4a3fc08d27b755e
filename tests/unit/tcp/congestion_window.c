/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/congestion_window.c: the congestion window grows only
 * when it limits (RFC 9438 5.8, RFC 7661): request-response and
 * application-limited flights leave it alone, bulk transfer grows it; the
 * empty send queue starts again at slot 0 (net/tcp/tcp_congestion.c,
 * tcp_send_queue.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_frame_check.h"

#define SEC 1000000000ull

struct pp {
    int n, target;
    bool client;
    uint64_t rx;
};

static void pp_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct pp *x = ctx;
    x->rx += p->len;
    pkt_free(p);
    if (!x->client)
        tcp_write(c, "r", 1, now_ns);
    else if (++x->n < x->target)
        tcp_write(c, "q", 1, now_ns);
}

static const struct tcp_callbacks pp_cb = {.recv = pp_recv};

static bool pp_done(void *ctx)
{
    struct pp *x = ctx;
    return x[0].n >= x[0].target;
}

TEST(tcp_request_response_leaves_cwnd_alone)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct pp x[2] = {{.target = 1000, .client = true}, {0}};
    for (int i = 0; i < 2; i++)
        tcp_set_ctx(a[i].c, &pp_cb, &x[i]);
    struct tcp_info before[2], after[2];
    for (int i = 0; i < 2; i++)
        tcp_get_info(a[i].c, &before[i]);
    uint64_t frames0 = l->frames;
    CHECK_EQ(tcp_write(a[0].c, "q", 1, l->now_ns), 1);
    CHECK(tl_run(l, pp_done, x, 10 * SEC));
    tl_run(l, NULL, NULL, SEC); /* the last response's delayed ACK */
    CHECK_EQ(x[0].rx, 1000);
    CHECK_EQ(x[1].rx, 1000);
    /* One segment each way per exchange, the ACKs riding on the data, and
     * the delayed ACK of the last response. */
    CHECK_EQ(l->frames - frames0, 2001);
    for (int i = 0; i < 2; i++) {
        tcp_get_info(a[i].c, &after[i]);
        CHECK_EQ(before[i].cwnd, 10 * tcp_mss(a[i].c));
        CHECK_EQ(after[i].cwnd, before[i].cwnd);
        CHECK_EQ(after[i].ssthresh, before[i].ssthresh);
        CHECK_EQ(after[i].snd_queued, 0);
        /* The empty send queue starts again at slot 0. */
        CHECK_EQ(a[i].c->sq_head, 0);
        CHECK_EQ(a[i].c->sq_n, 0);
        CHECK_EQ(a[i].c->sq_nxt, 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-retransmit"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-dup-ack"), 0);
    }
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}

TEST(tcp_bulk_transfer_grows_cwnd)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    struct tcp_info before, after;
    tcp_get_info(a[0].c, &before);
    a[0].tx_total = 1u << 20;
    a[0].zero_copy = true;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, got_all, a, 10 * SEC));
    CHECK_EQ(a[1].rx_bytes, 1u << 20);
    tcp_get_info(a[0].c, &after);
    CHECK_EQ(before.cwnd, 10 * tcp_mss(a[0].c));
    /* No loss: slow start all the way, well past the send buffer. */
    CHECK(after.cwnd >= 4 * before.cwnd);
    CHECK_EQ(after.ssthresh, before.ssthresh);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}

/* Slow start stops growing once the flight is the application's, not the
 * window's: a sender that keeps under half the window leaves it. */
TEST(tcp_app_limited_flight_leaves_cwnd)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    CHECK_EQ(ta_listen(l, 1, 80, &a[1]), 0);
    CHECK(ta_connect(l, 0, 80, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, SEC));
    uint32_t cwnd0 = a[0].c->cwnd, mss = tcp_mss(a[0].c);
    static uint8_t buf[8192];
    uint64_t sent = 0;
    for (int round = 0; round < 50; round++) {
        /* Four segments out of a ten-segment window, then wait. */
        CHECK_EQ(tcp_write(a[0].c, buf, 4 * mss, l->now_ns), 4 * mss);
        sent += 4 * mss;
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(a[1].rx_bytes, sent);
    }
    CHECK_EQ(a[0].c->cwnd, cwnd0);
    /* Five out of ten is half: that limits it in slow start. */
    CHECK_EQ(tcp_write(a[0].c, buf, 4 * mss, l->now_ns), 4 * mss);
    CHECK_EQ(tcp_write(a[0].c, buf, mss, l->now_ns), mss);
    tl_run(l, NULL, NULL, SEC);
    CHECK(a[0].c->cwnd > cwnd0);
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    free(a);
    CHECK(tl_free(l));
}
