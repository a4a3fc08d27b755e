/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/state_with_data.c: the TCP state machine (RFC 9293 3.10)
 * with data in the way: FIN-WAIT-2 waiting for data and holes, a FIN kept
 * for later, closing in SYN-RECEIVED, the listen and send timeouts, window
 * scaling, the zero window and persist probes, sequence numbers wrapping,
 * Nagle, abort, the bounded out-of-order queue (net/tcp/tcp_input.c,
 * tcp_receive.c, tcp_conn.c, tcp_timer.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_segment_log.h"

#define SEC 1000000000ull

/* A half-closed receiver (FIN-WAIT-2) with a hole before data it holds
 * waits for the peer's retransmission past the FIN-WAIT-2 timeout: the
 * peer backs off up to a minute too. Here the first data segment and all
 * after the fifth are lost for 70 s. Found by the soak (tcp_soak). */
struct hole_tap {
    int data_segs;
    bool on;
};

static bool hole_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct hole_tap *h = ctx;
    struct ta_seg s;
    if (!h->on || from != 0 || !ta_parse(p, &s) || s.len == 0)
        return true;
    h->data_segs++;
    return h->data_segs >= 2 && h->data_segs <= 5;
}

/* The same with nothing but the peer's FIN behind the hole (its data
 * lost, its FIN not): FIN_OOO, no buffer held. */
static bool drop_data_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct ta_seg s;
    return !*(bool *)ctx || from != 0 || !ta_parse(p, &s) || s.len == 0;
}

TEST(tcp_fin_wait_2_waits_for_data_before_a_fin)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    CHECK_EQ(tcp_close(a[1].c, l->now_ns), 0);
    tl_advance(l, SEC / 10);
    CHECK_EQ(a[1].c->state, TCP_FIN_WAIT_2);
    bool drop = true;
    l->tap = drop_data_tap;
    l->tap_ctx = &drop;
    a[0].tx_total = 1000;
    a[0].close_when_sent = true;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 70 * SEC);
    CHECK(a[1].closed == 0 && (a[1].c->flags & TCP_CF_FIN_OOO) && a[1].c->ooo == NULL);
    drop = false;
    CHECK(tl_run(l, closed2, a, 200 * SEC));
    CHECK_EQ(a[1].rx_bytes, 1000);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK(tl_free(l));
}

/* A payload of a few bytes at its buffer's very end, without timestamps:
 * the frame is under Ethernet's minimum, and the padding needs room the
 * buffer lacks. It goes in a copy instead of never (the persist timer
 * retrying the failed pad for 15 minutes). Found in review. */
TEST(tcp_tiny_payload_at_its_buffer_end_goes)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct ta a[2] = {{0}};
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = ta_pair(a, &o);
    struct pkt *p = pkt_alloc(&l->pool[0]);
    p->data = pkt_buf_end(p) - 3;
    p->len = 3;
    for (int i = 0; i < 3; i++)
        p->data[i] = ta_byte((uint64_t)i);
    CHECK_EQ(tcp_send(a[0].c, p, l->now_ns), 0);
    tl_advance(l, SEC);
    CHECK_EQ(a[1].rx_bytes, 3);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(tl_ctr(l, 0, "eth-tx-no-room"), 0);
    CHECK(tl_free(l));
}

TEST(tcp_fin_wait_2_waits_while_a_hole_is_open)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    CHECK_EQ(tcp_close(a[1].c, l->now_ns), 0); /* side 1 only receives from now on */
    tl_advance(l, SEC / 10);
    CHECK_EQ(a[1].c->state, TCP_FIN_WAIT_2);
    struct hole_tap h = {.on = true};
    l->tap = hole_tap;
    l->tap_ctx = &h;
    a[0].tx_total = 100000;
    a[0].close_when_sent = true;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 70 * SEC);
    CHECK(a[1].closed == 0 && a[1].c->ooo != NULL);
    h.on = false;
    CHECK(tl_run(l, closed2, a, 200 * SEC));
    CHECK_EQ(a[1].rx_bytes, 100000);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK(tl_free(l));
}

/* A listener's idle limit (tcp_listen_idle): a connection whose peer
 * sends nothing for 5 s is reset, however alive; traffic restarts the
 * clock, and a fast-path segment counts as much as a slow one. */
TEST(tcp_listen_idle_resets_a_silent_peer)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    ta_listen(l, 1, 80, &a[1]);
    CHECK_EQ(tcp_listen_idle(l->s[1], 80, 5 * SEC), 0);
    CHECK_EQ(tcp_listen_idle(l->s[1], 81, 5 * SEC), -1); /* nothing listens there */
    ta_connect(l, 0, 80, &a[0]);
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a[1].accepted, 1);
    for (int i = 0; i < 4; i++) { /* 1 KB every 4 s for 16 s */
        a[0].tx_total += 1024;
        ta_pump(&a[0], l->now_ns);
        tl_advance(l, 4 * SEC);
    }
    CHECK_EQ(a[1].rx_bytes, 4096);
    CHECK_EQ(a[1].closed, 0);
    tl_advance(l, 2 * SEC); /* 6 s since the last segment from side 0 */
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_TIMEOUT);
    CHECK_EQ(tl_ctr(l, 1, "tcp-idle-timeout"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-timeout"), 1);
    CHECK_EQ(tl_ctr(l, 1, "tcp-keepalive-tx"), 0); /* no probes */
    tl_run(l, closed2, a, SEC);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_RESET);
    CHECK(tl_free(l));
}

TEST(tcp_window_scaling)
{
    struct tcp_config big;
    tcp_config_default(&big);
    big.rcvbuf = 4u << 20;
    big.sndbuf = 4u << 20;
    big.sq_slots = 4096;
    struct ta a[2] = {{0}};
    struct rec r = {.from = 1};
    struct tl_opts o = {.delay_ns = 10000000, .nbufs = 8192, .cfg = {&big, &big}};
    struct tl *l = tl_new(&o);
    l->tap = rec_tap;
    l->tap_ctx = &r;
    ta_listen(l, 1, 80, &a[1]);
    ta_connect(l, 0, 80, &a[0]);
    tl_run(l, NULL, NULL, SEC);
    /* SYN-ACK: scale 7 (4 MiB >> 7 < 65536), window unscaled. */
    CHECK(r.s[0].flags == (TCP_SYN | TCP_ACK));
    CHECK(r.s[0].opt.has_ws);
    CHECK_EQ(r.s[0].opt.wscale, 7);
    CHECK_EQ(r.s[0].wnd, 65535);
    CHECK_EQ(a[0].c->snd_wscale, 7);
    CHECK_EQ(a[0].c->snd_wnd, 65535); /* a SYN's window is never scaled */
    /* 20 ms RTT: 16 MB goes in well under what a 64 KB window allows
     * (64 KB / 20 ms = 3.2 MB/s: 5 s). */
    a[0].tx_total = 16u << 20;
    a[0].zero_copy = true;
    a[0].close_when_sent = true;
    a[1].close_on_fin = true;
    uint64_t t0 = l->now_ns;
    ta_pump(&a[0], l->now_ns);
    CHECK(tl_run(l, closed2, a, 60 * SEC));
    CHECK_EQ(a[1].rx_bytes, 16u << 20);
    CHECK(l->now_ns - t0 < 2 * SEC);
    CHECK_EQ(r.s[1].wnd, (4u << 20) >> 7); /* the first ACK: scaled */
    CHECK(tl_free(l));
}

TEST(tcp_zero_window_and_persist)
{
    struct tcp_config small;
    tcp_config_default(&small);
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair_held(a, &small, 100000); /* the window closes */
    tl_advance(l, 30 * SEC);
    CHECK_EQ(a[1].rx_bytes, 16384);
    CHECK_EQ(tcp_rcv_window(a[1].c), 0);
    CHECK_EQ(a[0].c->snd_wnd, 0);
    CHECK(tl_ctr(l, 0, "tcp-window-probe") >= 4); /* backed off */
    CHECK_EQ(tl_ctr(l, 0, "tcp-timeout"), 0);
    CHECK_EQ(a[0].closed, 0);
    /* The application reads: the window opens and the rest flows. */
    a[1].hold = false;
    ta_release(&a[1], l->now_ns);
    tcp_set_manual_window(a[1].c, false);
    tl_advance(l, 10 * SEC);
    CHECK_EQ(a[1].rx_bytes, 100000);
    CHECK_EQ(a[1].rx_bad, 0);
    tcp_close(a[0].c, l->now_ns);
    a[1].close_on_fin = false;
    tcp_close(a[1].c, l->now_ns);
    CHECK(tl_run(l, closed2, a, 5 * SEC));
    CHECK(tl_free(l));
}

static bool drop_from_0(void *ctx, struct tl *l, int from, struct pkt *p) { return from != 0; }
static bool drop_from_1(void *ctx, struct tl *l, int from, struct pkt *p) { return from != 1; }

/* A receiver that keeps its window shut for 20 minutes but answers every
 * probe keeps the connection (RFC 9293 3.8.6.1: MUST stay open); once it
 * stops answering, the sender gives up after its retries. */
TEST(tcp_persist_lasts_while_probes_are_answered)
{
    struct tcp_config small;
    tcp_config_default(&small);
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair_held(a, &small, 100000); /* the window closes */
    tl_advance(l, 1200 * SEC);
    uint64_t probes = tl_ctr(l, 0, "tcp-window-probe");
    CHECK(probes > small.data_retries); /* more than it would give up after */
    CHECK_EQ(tl_ctr(l, 0, "tcp-timeout"), 0);
    CHECK_EQ(a[0].closed, 0);
    l->tap = drop_from_1; /* the receiver goes silent */
    tl_advance(l, 1200 * SEC);
    CHECK_EQ(a[0].closed, 1);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_TIMEOUT);
    CHECK_EQ(tl_ctr(l, 0, "tcp-window-probe") - probes, small.data_retries);
    fprintf(stderr, "  %lu probes answered in 20 min; then %u unanswered and a timeout\n", (unsigned long)probes,
            small.data_retries);
    l->tap = NULL;
    CHECK(tl_free(l));
}

/* tcp_set_send_timeout (a server's, from tcp_listen_idle): a reader that
 * answers every probe but never reads is reset once its window has stayed
 * shut that long (RFC 6429), and every buffer comes back. */
TEST(tcp_send_timeout_resets_a_reader_that_never_reads)
{
    struct tcp_config small;
    tcp_config_default(&small);
    small.rcvbuf = 16384;
    small.rcvbuf_max = 0;
    struct ta a[2] = {{0}};
    a[1].hold = true;
    struct tl_opts o = {.cfg = {NULL, &small}};
    struct tl *l = ta_pair(a, &o);
    tcp_set_send_timeout(a[0].c, 60 * SEC);
    a[0].tx_total = 100000;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 50 * SEC);
    CHECK_EQ(a[0].closed, 0);
    CHECK(tl_ctr(l, 0, "tcp-window-probe") > 0);
    tl_advance(l, 60 * SEC);
    CHECK_EQ(a[0].closed, 1);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_TIMEOUT);
    CHECK_EQ(tl_ctr(l, 0, "tcp-send-timeout"), 1);
    CHECK(tl_free(l));
}

/* The 3,000 bytes and FIN of one segment in two IPv4 fragments: what fits
 * a buffer is taken and the FIN is not (it comes again with the rest),
 * so the stream is not cut short at the buffer's end. */
TEST(tcp_reassembled_segment_cut_to_a_buffer_keeps_its_fin_for_later)
{
    struct ta a[2] = {{0}};
    struct tl *l = ta_pair(a, &(struct tl_opts){0});
    struct tcp_conn *c = a[0].c;
    enum { N = 3000 };
    static uint8_t seg[20 + N], f[1600];
    uint8_t one[64];
    size_t hn = ta_frame(one, 1, c->lport, c->rport, c->snd_nxt, c->rcv_nxt, TCP_ACK | TCP_PSH | TCP_FIN, 1000, NULL,
                         0, NULL, 0);
    memcpy(seg, one + hn - 20, 20); /* ta_frame's TCP header, its checksum then redone over the payload */
    for (uint32_t i = 0; i < N; i++)
        seg[20 + i] = ta_byte(i);
    uint32_t src = TL_ADDR0, dst = TL_ADDR1, sum = 0;
    uint8_t ph[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, IP4_PROTO_TCP, (20 + N) >> 8, (20 + N) & 255};
    memcpy(ph, &src, 4);
    memcpy(ph + 4, &dst, 4);
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
    seg[16] = seg[17] = 0;
    uint16_t cs = fake_csum(seg, sizeof seg, sum);
    seg[16] = (uint8_t)(cs >> 8);
    seg[17] = (uint8_t)cs;
    for (uint32_t off = 0; off < sizeof seg; off += 1480) {
        uint32_t n = sizeof seg - off < 1480 ? (uint32_t)(sizeof seg - off) : 1480;
        size_t k = fake_eth(f, one, one + 6, ETH_TYPE_IP4);
        k += fake_ip4(f + k, src, dst, IP4_PROTO_TCP, 77, (uint16_t)((off + n < sizeof seg ? IP4_MF : 0) | off / 8),
                      seg + off, n);
        tl_inject(l, 1, f, k);
    }
    tl_advance(l, SEC / 10);
    CHECK_EQ(tl_ctr(l, 1, "ip4-reasm-ok"), 1);
    CHECK_EQ(a[1].rx_bytes, PKT_DATA_ROOM);
    CHECK_EQ(a[1].peer_fin, 0);
    CHECK(a[1].c && a[1].c->state == TCP_ESTABLISHED);
    CHECK(tl_free(l));
}

/* tcp_close in SYN-RECEIVED (a simultaneous open closed at once): the FIN
 * waits for the handshake, which sets up congestion control first (CUBIC
 * divided by a zero window before). */
TEST(tcp_close_in_syn_received_sends_its_fin_after_the_handshake)
{
    struct tl *l = tl_new(&(struct tl_opts){0});
    struct ta a = {0};
    l->tap = drop_from_0; /* our SYN, SYN-ACK and FIN go nowhere: the peer is played below */
    struct tcp_conn *c = ta_connect(l, 0, 9999, &a);
    uint8_t f[200];
    const uint32_t irs = 5000;
    tl_inject(l, 0, f, ta_frame(f, 0, 9999, c->lport, irs, 0, TCP_SYN, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(c->state, TCP_SYN_RECEIVED);
    CHECK_EQ(tcp_close(c, l->now_ns), 0);
    tl_inject(l, 0, f, ta_frame(f, 0, 9999, c->lport, irs + 1, c->iss + 1, TCP_ACK, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(c->state, TCP_FIN_WAIT_1);
    CHECK(c->cwnd > 0 && c->flags & TCP_CF_FIN_SENT);
    tl_inject(l, 0, f, ta_frame(f, 0, 9999, c->lport, irs + 1, c->iss + 2, TCP_ACK, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(c->state, TCP_FIN_WAIT_2);
    l->tap = NULL;
    CHECK(tl_free(l));
}

TEST(tcp_sequence_numbers_wrap)
{
    struct tl_opts o = {.loss_ppm = 5000, .seed = 11};
    struct tl *l = tl_new(&o);
    struct ta a[2] = {{0}};
    ta_listen(l, 1, 80, &a[1]);
    /* Pick the clock so that side 0's ISN lands 100 KB short of 2^32. */
    uint32_t h = tcp_isn(l->t[0], TL_ADDR0, TL_ADDR1, 40000, 80, 0);
    uint32_t m = (uint32_t)(0u - 100000u - h);
    l->now_ns = (uint64_t)m << 12;
    l->t[0]->wheel_tick = l->t[1]->wheel_tick = 0;
    a[0].c = tcp_connect_from(l->s[0], 40000, TL_ADDR1, 80, &ta_cb, &a[0], l->now_ns);
    CHECK(a[0].c != NULL);
    CHECK(a[0].c->iss > 0xfffe0000u);
    a[0].tx_total = 1u << 20;
    a[0].close_when_sent = true;
    a[1].close_on_fin = true;
    CHECK(tl_run(l, closed2, a, 60 * SEC));
    CHECK_EQ(a[1].rx_bytes, 1u << 20);
    CHECK_EQ(a[1].rx_bad, 0);
    CHECK_EQ(a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK(tl_free(l));
}

/* Counts data segments side 0 sends. */
static bool count_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    int *n = ctx;
    struct ta_seg s;
    if (from == 0 && ta_parse(p, &s) && s.len)
        (*n)++;
    return true;
}

TEST(tcp_nagle)
{
    for (int nagle = 0; nagle < 2; nagle++) {
        struct ta a[2] = {{0}};
        struct tl_opts o = {.delay_ns = 1000000};
        struct tl *l = ta_pair(a, &o);
        tcp_set_nagle(a[0].c, nagle);
        int segs = 0;
        l->tap = count_tap;
        l->tap_ctx = &segs;
        /* Ten small writes while the first is unacknowledged. */
        for (int i = 0; i < 10; i++) {
            CHECK_EQ(tcp_write(a[0].c, "0123456789", 10, l->now_ns), 10);
            tl_flush(l);
        }
        tl_run(l, NULL, NULL, SEC);
        CHECK_EQ(a[1].rx_bytes, 100);
        /* Off: each write goes at once. On: the first, then the other
         * nine together once it is acknowledged. */
        CHECK_EQ(segs, nagle ? 2 : 10);
        tcp_abort(a[0].c, l->now_ns);
        tl_run(l, NULL, NULL, SEC);
        CHECK(tl_free(l));
    }
}

TEST(tcp_abort_resets_the_peer)
{
    struct ta a[2] = {{0}};
    struct tl_opts o = {0};
    struct tl *l = ta_pair(a, &o);
    a[0].tx_total = 1u << 20;
    ta_pump(&a[0], l->now_ns);
    tl_advance(l, 1000000);
    tcp_abort(a[0].c, l->now_ns);
    CHECK_EQ(a[0].closed, 0); /* no callback after abort */
    tl_run(l, NULL, NULL, SEC);
    CHECK_EQ(a[1].closed, 1);
    CHECK_EQ(a[1].close_reason, TCP_CLOSE_RESET);
    CHECK_EQ(l->t[0]->nfree, l->t[0]->nconns);
    CHECK_EQ(l->t[1]->nfree, l->t[1]->nconns);
    CHECK(tl_free(l));
}

TEST(tcp_out_of_order_queue_is_bounded)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.ooo_max = 4;
    struct ta a[2] = {{0}};
    struct tl_opts o = {.cfg = {NULL, &cfg}};
    struct tl *l = ta_pair(a, &o);
    struct tcp_conn *c = a[1].c;
    uint32_t base = c->rcv_nxt;
    /* Ten segments past a hole: four are kept, six dropped. */
    for (int i = 0; i < 10; i++)
        to_side1(l, c, base + 100 + 10 * (uint32_t)i, c->snd_nxt, TCP_ACK, "abcdefghij", 10);
    CHECK_EQ(c->ooo_n, 4);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ooo-queued"), 4);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ooo-drop"), 6);
    /* Overlapping and duplicate pieces are trimmed, not stored twice. */
    to_side1(l, c, base + 105, c->snd_nxt, TCP_ACK, "fghijabcde", 10);
    CHECK_EQ(c->ooo_bytes, 40);
    CHECK_EQ(c->ooo_n, 4);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rcv-dup"), 1);
    /* New bytes before the first piece, but the queue is full. */
    to_side1(l, c, base + 95, c->snd_nxt, TCP_ACK, "0123456789", 10);
    CHECK_EQ(c->ooo_bytes, 40);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ooo-drop"), 7);
    /* The hole filled: everything up to the queue's end is delivered. */
    to_side1(l, c, base, c->snd_nxt, TCP_ACK, "0123456789", 10);
    char fill[90];
    memset(fill, 'z', sizeof(fill));
    to_side1(l, c, base + 10, c->snd_nxt, TCP_ACK, fill, sizeof(fill));
    CHECK_EQ(c->ooo_n, 0);
    CHECK_EQ(a[1].rx_bytes, 140);
    CHECK_EQ(c->rcv_nxt, base + 140);
    tcp_abort(a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, SEC);
    CHECK(tl_free(l));
}

/* RFC 5961 in SYN-RECEIVED too: a RST in the window but not at RCV.NXT, or
 * a SYN of another sequence number, draws a challenge ACK (SEQ = ISS + 1,
 * ACK = RCV.NXT) and the handshake goes on; the peer's first SYN again
 * draws the SYN-ACK again. */
TEST(tcp_syn_received_answers_rst_and_syn_with_a_challenge_ack)
{
    struct tl *l = tl_new(&(struct tl_opts){0});
    struct ta a = {0};
    ta_listen(l, 1, 80, &a);
    struct rec r = {.from = 1, .drop_all = true}; /* side 0 is played below */
    l->tap = rec_tap;
    l->tap_ctx = &r;
    uint8_t f[200];
    const uint32_t irs = 7000;
    tl_inject(l, 1, f, ta_frame(f, 1, 4321, 80, irs, 0, TCP_SYN, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(r.n, 1);
    CHECK_EQ(r.s[0].flags, TCP_SYN | TCP_ACK);
    uint32_t iss = r.s[0].seq;
    tl_inject(l, 1, f, ta_frame(f, 1, 4321, 80, irs + 100, 0, TCP_RST, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(r.n, 2);
    CHECK_EQ(r.s[1].flags, TCP_ACK);
    CHECK_EQ(r.s[1].seq, iss + 1);
    CHECK_EQ(r.s[1].ack, irs + 1);
    tl_inject(l, 1, f, ta_frame(f, 1, 4321, 80, irs + 50, 0, TCP_SYN, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(r.n, 3);
    CHECK_EQ(r.s[2].flags, TCP_ACK);
    CHECK_EQ(r.s[2].ack, irs + 1);
    tl_inject(l, 1, f, ta_frame(f, 1, 4321, 80, irs, 0, TCP_SYN, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(r.n, 4);
    CHECK_EQ(r.s[3].flags, TCP_SYN | TCP_ACK);
    CHECK_EQ(tl_ctr(l, 1, "tcp-challenge-ack"), 2);
    CHECK_EQ(tl_ctr(l, 1, "tcp-rst-ignored"), 1);
    tl_inject(l, 1, f, ta_frame(f, 1, 4321, 80, irs + 1, iss + 1, TCP_ACK, 8192, NULL, 0, NULL, 0));
    CHECK_EQ(a.accepted, 1);
    CHECK_EQ(r.n, 4); /* the handshake's last ACK is not answered */
    tcp_abort(a.c, l->now_ns);
    l->tap = NULL;
    CHECK(tl_free(l));
}
