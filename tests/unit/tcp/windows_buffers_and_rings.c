/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/windows_buffers_and_rings.c: TCP's windows and buffers
 * sized to the path (autotuning on a long path, fixed buffers, the send
 * queue for small sends, the receive reserve), a full TX ring held back
 * without loss, short TSO heads, timers sharing a wheel slot
 * (net/tcp/tcp_output.c, tcp_receive.c, tcp_send_queue.c, tcp_timer.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_transfer.h"

#include "net/core/csum.h"
#include "net/core/wire.h"

/* A long fat path, 1 Gb/s with 40 ms of round trip (5 MB in flight to
 * fill it): the default 256 KB buffers allow about 50 Mb/s; 4 MB ones
 * (`tcp window 4096`: a send-queue slot and an out-of-order buffer a KB)
 * ten times that. Simulated time: the figures are exact. */
/* A buffer fixed at kb KB: no autotuning. */
static void fixed(struct tcp_config *cfg, uint32_t kb)
{
    cfg->sndbuf = cfg->rcvbuf = kb << 10;
    cfg->sndbuf_max = cfg->rcvbuf_max = 0;
    cfg->sq_slots = cfg->ooo_max = (uint16_t)kb;
}

/* 32 MB from side 0 to side 1 over 1 Gb/s and a 40 ms round trip (20 us:
 * 100 us); returns the simulated ns, grown[i] how often side i's buffer
 * grew (the send buffer on 0, the receive window on 1). */
static uint64_t long_path(const struct tcp_config *snd, const struct tcp_config *rcv, uint64_t delay_ns,
                          uint64_t grown[2])
{
    struct tl_opts o = {.rate_bps = 1000000000, .queue_max = 4096, .delay_ns = delay_ns, .nbufs = 16384,
                        .cfg = {snd, rcv}};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    uint64_t ns = transfer(l, x, 32u << 20, true, TCP_CC_CUBIC);
    no_malformed(l);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    grown[0] = tl_ctr(l, 0, "tcp-snd-buffer-grown");
    grown[1] = tl_ctr(l, 1, "tcp-rcv-window-grown");
    CHECK_EQ(tl_ctr(l, 1, "tcp-snd-buffer-grown"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rcv-window-grown"), 0);
    CHECK_EQ(l->s[0]->tcp->nsq_large, snd->sq_large && snd->sndbuf_max > snd->sndbuf ? snd->sq_large : 0);
    fprintf(stderr, "  send buffer %u KB (up to %u), window %u KB (up to %u), %.1f ms: 32 MB in %.2f s, %.0f Mb/s, "
            "grown %llu and %llu times\n", snd->sndbuf >> 10, snd->sndbuf_max >> 10, rcv->rcvbuf >> 10,
            rcv->rcvbuf_max >> 10, 2 * delay_ns / 1e6, ns / 1e9, (32u << 20) * 8e3 / (double)ns,
            (unsigned long long)grown[0], (unsigned long long)grown[1]);
    free(x);
    CHECK(tl_free(l));
    return ns;
}

#define LONG_PATH_NS 20000000ull

TEST(tcp_window_fills_a_long_path)
{
    struct tcp_config small, big;
    tcp_config_default(&small);
    tcp_config_default(&big);
    fixed(&small, 256);
    fixed(&big, 4096);
    uint64_t grown[2];
    uint64_t slow = long_path(&small, &small, LONG_PATH_NS, grown);
    uint64_t fast = long_path(&big, &big, LONG_PATH_NS, grown);
    CHECK(slow > 4900000000ull);            /* 256 KB a 40 ms round trip: under 55 Mb/s */
    CHECK(fast < slow / 5 && fast < 800000000ull); /* over 330 Mb/s, with slow start */
    CHECK(grown[0] == 0 && grown[1] == 0);
}

/* A receiver with the default window (256 KB, up to 4 MB) and a sender
 * with 4 MB: autotuning grows the window and the path fills as with 4 MB
 * fixed; kept at 256 KB, it takes seven times as long. */
TEST(tcp_rcv_window_grows_on_a_long_path)
{
    struct tcp_config snd, rcv, rcv_fixed;
    tcp_config_default(&snd);
    tcp_config_default(&rcv);
    tcp_config_default(&rcv_fixed);
    fixed(&snd, 4096);
    fixed(&rcv_fixed, 256);
    uint64_t grown[2], fixed_grown[2];
    uint64_t tuned = long_path(&snd, &rcv, LONG_PATH_NS, grown);
    uint64_t kept = long_path(&snd, &rcv_fixed, LONG_PATH_NS, fixed_grown);
    CHECK(tuned < 800000000ull && tuned * 6 < kept);
    CHECK(grown[1] >= 2 && grown[1] <= 8); /* 256 KB to 4 MB: a few steps, one a round trip at most */
    CHECK_EQ(fixed_grown[1], 0);
    /* A receiver whose handshake the RTT timer did not time (a SYN
     * cookie's) takes its RTT from the timestamp echo. */
    rcv.backlog = 0;
    uint64_t cookie = long_path(&snd, &rcv, LONG_PATH_NS, grown);
    CHECK(cookie < 800000000ull && grown[1] >= 2);
}

static bool a0_connected(void *ctx) { return ((struct ta *)ctx)->connected; }

/* One large write into an idle connection fills the queue, and the
 * congestion window, not the buffer, holds the flight back: the buffer
 * stays, and the core's large queues with it. */
TEST(tcp_snd_buffer_not_grown_by_a_large_write)
{
    struct tl_opts o = {.delay_ns = LONG_PATH_NS};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    CHECK_EQ(ta_listen(l, 1, 5001, &x->a[1]), 0);
    CHECK(ta_connect(l, 0, 5001, &x->a[0]) != NULL);
    CHECK(tl_run(l, a0_connected, &x->a[0], 1000000000ull));
    struct tcp_conn *c = x->a[0].c;
    static uint8_t mb[1 << 20];
    CHECK_EQ(tcp_write(c, mb, sizeof mb, l->now_ns), 256u << 10);
    CHECK_EQ(tcp_write(c, mb, sizeof mb, l->now_ns), 0);
    CHECK_EQ(tcp_sndbuf(c), 0);
    CHECK_EQ(c->sndbuf, 256u << 10);
    CHECK_EQ(l->s[0]->tcp->nsq_large, 16);
    CHECK_EQ(tl_ctr(l, 0, "tcp-snd-buffer-grown"), 0);
    CHECK(tl_free(l));
    free(x);
}

/* The same for the send buffer (256 KB, up to 4 MB in one of the core's
 * large queues, given back at the close): to a 4 MB receiver, and with
 * the defaults on both sides. */
TEST(tcp_snd_buffer_grows_on_a_long_path)
{
    struct tcp_config snd, rcv;
    tcp_config_default(&snd);
    tcp_config_default(&rcv);
    fixed(&rcv, 4096);
    uint64_t grown[2];
    uint64_t tuned = long_path(&snd, &rcv, LONG_PATH_NS, grown);
    CHECK(tuned < 800000000ull);
    CHECK(grown[0] >= 4 && grown[0] <= 12); /* 256 KB doubles four times */
    tcp_config_default(&rcv);
    uint64_t both = long_path(&snd, &rcv, LONG_PATH_NS, grown);
    CHECK(both < 900000000ull && grown[0] >= 4 && grown[1] >= 2);
    snd.sq_large = 0; /* no large queue: 256 slots */
    uint64_t kept = long_path(&snd, &rcv, LONG_PATH_NS, grown);
    CHECK(kept > 4900000000ull && grown[0] == 0);
}

/* 600-byte zero-copy sends (each a slot of its own) over the long path:
 * the 256 slots run out at 150 KB, before the 256 KB of bytes, and the
 * queue moves into a large one all the same. */
TEST(tcp_snd_queue_grows_for_small_sends)
{
    struct tcp_config snd, rcv;
    tcp_config_default(&snd);
    tcp_config_default(&rcv);
    fixed(&rcv, 4096);
    uint64_t ns[2], grown[2];
    for (int k = 0; k < 2; k++) {
        snd.sq_large = k ? 16 : 0;
        struct tl_opts o = {.rate_bps = 1000000000, .queue_max = 4096, .delay_ns = LONG_PATH_NS, .nbufs = 16384,
                            .cfg = {&snd, &rcv}};
        struct tl *l = tl_new(&o);
        struct xfer *x = calloc(1, sizeof(*x));
        x->a[0].chunk = 600;
        ns[k] = transfer(l, x, 8u << 20, true, TCP_CC_CUBIC);
        no_malformed(l);
        grown[k] = tl_ctr(l, 0, "tcp-snd-buffer-grown");
        CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
        CHECK_EQ(l->s[0]->tcp->nsq_large, snd.sq_large); /* given back at the close */
        free(x);
        CHECK(tl_free(l));
    }
    fprintf(stderr, "  8 MB in 600-byte sends, 40 ms: %.2f s in 256 slots, %.2f s grown (%llu times)\n", ns[0] / 1e9,
            ns[1] / 1e9, (unsigned long long)grown[1]);
    CHECK(grown[0] == 0 && grown[1] >= 1);
    CHECK(ns[1] < ns[0] / 3);
}

/* 1 Gb/s with 100 us of round trip needs 12.5 KB: neither buffer grows
 * however much comes. (The RTT the receiver goes by is its handshake's:
 * the queue the sender builds at the bottleneck, 2 ms of it here, is no
 * reason to offer more.) */
TEST(tcp_buffers_stay_on_a_short_path)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    uint64_t grown[2];
    long_path(&cfg, &cfg, 50000, grown);
    CHECK(grown[0] == 0 && grown[1] == 0);
}

static bool both_open(void *ctx)
{
    struct ta *a = ctx;
    return a[0].connected && a[1].accepted;
}

static bool got_2003(void *ctx) { return ((struct ta *)ctx)[1].rx_bytes >= 2003; }

/* TSO with a first slot too short for a minimum frame (no timestamps: a
 * 3-byte slot makes a 57-byte head): the frame is not padded (the padding
 * would be stream data), and Nagle holds a short tail while data is out. */
TEST(tcp_tso_short_head_not_padded)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM | NETDEV_OFF_TSO4, .seed = 1,
                        .cfg = {&cfg, &cfg}};
    struct tl *l = tl_new(&o);
    struct ta *a = calloc(2, sizeof(*a));
    static uint8_t copy[4096];
    a[1].rx_copy = copy;
    a[1].rx_cap = sizeof copy;
    CHECK_EQ(ta_listen(l, 1, 5001, &a[1]), 0);
    CHECK(ta_connect(l, 0, 5001, &a[0]) != NULL);
    CHECK(tl_run(l, both_open, a, 1000000000ull));
    struct tcp_conn *c = a[0].c;
    tcp_set_nagle(c, true);
    struct pkt *p1 = pkt_alloc(&l->pool[0]);
    memset(p1->data, 'A', 1000);
    p1->len = 1000;
    CHECK_EQ(tcp_send(c, p1, l->now_ns), 0);
    CHECK_EQ(tcp_write(c, "xyz", 3, l->now_ns), 3);
    struct pkt *p2 = pkt_alloc(&l->pool[0]);
    memset(p2->data, 'B', 1000);
    p2->len = 1000;
    CHECK_EQ(tcp_send(c, p2, l->now_ns), 0);
    tl_flush(l);
    CHECK(tl_run(l, got_2003, a, 2000000000ull));
    CHECK_EQ(a[1].rx_bytes, 2003);
    CHECK(memcmp(copy + 1000, "xyzBBB", 6) == 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tso"), 1); /* xyz and the B's, once the A's were acknowledged */
    tcp_abort(a[0].c, l->now_ns);
    tl_run(l, NULL, NULL, 1000000000ull);
    free(a);
    CHECK(tl_free(l));
}

struct many {
    struct ta a[2][16];
};

static bool many_done(void *ctx)
{
    struct many *m = ctx;
    for (int i = 0; i < 16; i++)
        if (!m->a[0][i].closed || !m->a[1][i].closed)
            return false;
    return true;
}

/* bytes on each of 16 connections from side 0 at once, all closed; every
 * byte checks out. */
static void many_transfer(struct tl *l, struct many *m, uint32_t bytes)
{
    for (int i = 0; i < 16; i++) {
        m->a[0][i].tx_total = bytes;
        m->a[0][i].zero_copy = true;
        m->a[0][i].close_when_sent = m->a[1][i].close_on_fin = true;
        m->a[1][i].next = i < 15 ? &m->a[1][i + 1] : NULL;
    }
    CHECK_EQ(ta_listen(l, 1, 5001, &m->a[1][0]), 0);
    for (int i = 0; i < 16; i++)
        CHECK(ta_connect(l, 0, 5001, &m->a[0][i]) != NULL);
    CHECK(tl_run(l, many_done, m, 60000000000ull));
    for (int i = 0; i < 16; i++) {
        CHECK_EQ(m->a[1][i].rx_bytes, bytes);
        CHECK_EQ(m->a[1][i].rx_bad, 0);
    }
}

/* 16 connections sending at once through a NIC whose ring holds 32
 * frames: what does not fit waits in the stack (eth-tx-busy, tcp-tx-wait)
 * and nothing is lost at our own port, so no timeout and no drop. */
TEST(tcp_full_tx_ring_holds_back_without_loss)
{
    struct tl_opts o = {.rate_bps = 1000000000ull, .queue_max = 4096, .tx_ring = 32, .seed = 5};
    struct tl *l = tl_new(&o);
    struct many *m = calloc(1, sizeof(*m));
    many_transfer(l, m, 1u << 20);
    CHECK(tl_ctr(l, 0, "eth-tx-busy") > 0);
    CHECK(tl_ctr(l, 0, "tcp-tx-wait") > 0);
    CHECK_EQ(tl_ctr(l, 0, "eth-tx-drop"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 0);
    CHECK_EQ(l->overflow + l->lost, 0);
    CHECK_EQ(l->s[0]->tcp->nblocked, 0);
    CHECK(l->s[0]->tcp->wait_head == NULL);
    fprintf(stderr, "  16 x 1 MB through a 32-frame ring: ring full %lu times, %lu waits\n",
            (unsigned long)tl_ctr(l, 0, "eth-tx-busy"), (unsigned long)tl_ctr(l, 0, "tcp-tx-wait"));
    free(m);
    CHECK(tl_free(l));
}

static bool all_connected(void *ctx)
{
    struct ta *b = ctx;
    for (int i = 0; i < 16; i++)
        if (!b[i].connected)
            return false;
    return true;
}

/* While those 16 fill the ring, 16 more connect to side 0: their SYN-ACKs
 * take the places of the burst data leaves free, so none is dropped and
 * none waits for a retransmission. */
TEST(tcp_full_tx_ring_leaves_room_for_handshakes)
{
    struct tl_opts o = {.rate_bps = 1000000000ull, .queue_max = 4096, .tx_ring = 32, .seed = 5};
    struct tl *l = tl_new(&o);
    struct many *m = calloc(1, sizeof(*m));
    struct ta *b = calloc(32, sizeof(*b));
    for (int i = 0; i < 16; i++) {
        m->a[0][i].tx_total = 4u << 20;
        m->a[0][i].zero_copy = true;
        m->a[1][i].next = i < 15 ? &m->a[1][i + 1] : NULL;
        b[i].next = i < 15 ? &b[i + 1] : NULL;
    }
    CHECK_EQ(ta_listen(l, 1, 5001, &m->a[1][0]), 0);
    CHECK_EQ(ta_listen(l, 0, 7000, &b[0]), 0);
    for (int i = 0; i < 16; i++)
        CHECK(ta_connect(l, 0, 5001, &m->a[0][i]) != NULL);
    tl_advance(l, 20000000); /* the senders fill the ring */
    uint64_t busy = tl_ctr(l, 0, "eth-tx-busy"), t0 = l->now_ns;
    CHECK(busy > 0);
    for (int i = 0; i < 16; i++)
        CHECK(ta_connect(l, 1, 7000, &b[16 + i]) != NULL);
    CHECK(tl_run(l, all_connected, b + 16, 10000000000ull));
    CHECK(tl_ctr(l, 0, "eth-tx-busy") > busy); /* still full meanwhile */
    CHECK(l->now_ns - t0 < 100000000ull);      /* no 1 s SYN-ACK timeout */
    CHECK_EQ(tl_ctr(l, 0, "eth-tx-drop"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rto"), 0);
    CHECK(tl_free(l)); /* (open connections: their closed callbacks write to m and b) */
    free(m);
    free(b);
}

/* 16 connections whose send buffers together want more than side 0's
 * whole pool (16 x 256 KB of queue, 1,024 buffers): tcp_sndbuf says 0
 * once the pool is down to its receive reserve, so ACKs still find
 * buffers to arrive in, and acked(0) wakes the senders when it refills. */
TEST(tcp_send_queues_leave_the_receive_reserve)
{
    struct tl_opts o = {.nbufs = 1024, .seed = 9};
    struct tl *l = tl_new(&o);
    struct many *m = calloc(1, sizeof(*m));
    many_transfer(l, m, 2u << 20);
    CHECK(tl_ctr(l, 0, "tcp-buf-wait") > 0);
    CHECK_EQ(l->no_buf, 0); /* every ACK found a buffer */
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(l->s[0]->tcp->nbuf_wait, 0);
    CHECK(l->s[0]->tcp->wait_head == NULL);
    fprintf(stderr, "  16 x 2 MB from a 1,024-buffer pool: %lu waits for buffers\n",
            (unsigned long)tl_ctr(l, 0, "tcp-buf-wait"));
    free(m);
    CHECK(tl_free(l));
}

static bool got_1000(void *ctx) { return ((struct ta *)ctx)[1].rx_bytes >= 1000; }

/* A connection whose only deadline is a turn of the timer wheel or more
 * away sits in the slot of the tick it was put back at; it must not hide
 * another connection's retransmission due sooner (found with iperf3 -R
 * at 3% loss: a stream's RTO waited behind the control connection's
 * TIME-WAIT, seconds). */
TEST(tcp_timer_not_hidden_by_a_later_one_in_its_slot)
{
    struct tl_opts o = {.delay_ns = 1000000};
    struct tl *l = tl_new(&o);
    struct ta idle[2] = {0}, d[2] = {0};
    CHECK_EQ(ta_listen(l, 1, 10, &idle[1]), 0);
    CHECK_EQ(ta_listen(l, 1, 9, &d[1]), 0);
    ta_connect(l, 0, 10, &idle[0]);
    ta_connect(l, 0, 9, &d[0]);
    CHECK(tl_run(l, both_open, idle, 1000000000ull) && tl_run(l, both_open, d, 1000000000ull));
    tl_advance(l, 500000000ull); /* every timer run: nothing on the wheels */
    struct dropper dr = {.ndrop = 1, .base = d[0].c->snd_nxt}; /* d's first segment, once */
    l->tap = drop_tap;
    l->tap_ctx = &dr;
    d[0].tx_total = 1000;
    ta_pump(&d[0], l->now_ns);
    tl_flush(l);
    CHECK(dr.dropped[0]);
    uint64_t t0 = l->now_ns;
    /* The idle connection's keepalive two turns of the wheel from now (its
     * slot: this tick's); then polls in this tick (other timers of the
     * stack due), the wheel brought up to date by the first. */
    tcp_set_keepalive(idle[0].c, 2ull << (TCP_TICK_SHIFT + 10), 1000000000ull, 3);
    for (int i = 0; i < 2; i++) {
        net_timer_at(l->s[0], l->now_ns);
        net_poll(l->s[0], l->now_ns);
    }
    CHECK(tl_run(l, got_1000, d, 10000000000ull));
    CHECK(l->now_ns - t0 < 2 * d[0].c->rto_ns); /* not at the keepalive's 2.1 s */
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 1);
    CHECK(tl_free(l));
}

static bool all_acked(void *ctx)
{
    struct xfer *x = ctx;
    struct tcp_conn *c = x->a[0].c;
    return x->a[1].rx_bytes == x->want && c && c->snd_una == c->snd_end;
}

/* The core's few large queues go to the connections sending now: one
 * lent for small sends, or for a grown buffer, comes back once everything
 * sent is acknowledged, the connection still open (a keep-alive server
 * between responses), and is taken again by its next burst, which still
 * runs at the grown buffer's pace. */
TEST(tcp_snd_large_queue_back_when_idle)
{
    struct tcp_config snd, rcv;
    tcp_config_default(&snd);
    tcp_config_default(&rcv);
    fixed(&rcv, 4096);
    struct tl_opts o = {.rate_bps = 1000000000, .queue_max = 4096, .delay_ns = LONG_PATH_NS, .nbufs = 16384,
                        .cfg = {&snd, &rcv}};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    struct tcp_stack *t = l->s[0]->tcp;
    CHECK_EQ(ta_listen(l, 1, 5001, &x->a[1]), 0);
    x->a[0].zero_copy = true;
    x->a[0].chunk = 600;
    CHECK(ta_connect(l, 0, 5001, &x->a[0]) != NULL);
    CHECK(tl_run(l, a0_connected, &x->a[0], 1000000000ull));
    struct tcp_conn *c = x->a[0].c;
    uint64_t took[2];
    for (int round = 0; round < 2; round++) {
        uint64_t grown = tl_ctr(l, 0, "tcp-snd-buffer-grown"), t0 = l->now_ns;
        x->want += 8u << 20;
        x->a[0].tx_total = x->want;
        ta_pump(&x->a[0], l->now_ns);
        CHECK(tl_run(l, all_acked, x, 60000000000ull));
        took[round] = l->now_ns - t0;
        CHECK(tl_ctr(l, 0, "tcp-snd-buffer-grown") > grown); /* took a large queue */
        CHECK(!(c->flags & TCP_CF_SQ_LARGE) && c->sq_cap == snd.sq_slots);
        CHECK_EQ(t->nsq_large, snd.sq_large); /* and gave it back, still open */
        CHECK_EQ(tl_ctr(l, 0, "tcp-snd-queue-returned"), (uint64_t)round + 1);
    }
    CHECK_EQ(x->a[1].rx_bytes, x->want);
    CHECK_EQ(x->a[1].rx_bad, 0);
    CHECK(took[1] <= took[0]); /* the second burst starts from the grown buffer */
    fprintf(stderr, "  8 MB in 600-byte sends, twice: %.2f s, then %.2f s; the large queue back between\n",
            took[0] / 1e9, took[1] / 1e9);
    tcp_abort(c, l->now_ns);
    CHECK(tl_free(l));
    free(x); /* after: the peer's connection closes in tl_free */
}
