/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/loss_recovery.c: TCP data transfer over a lossy, reordering,
 * duplicating link: retransmission, SACK and NewReno recovery, both
 * congestion controls, offloads (net/tcp/tcp_output.c, tcp_input.c, tcp_sack.c,
 * tcp_congestion.c, tcp_timer.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_transfer.h"

#include "net/core/csum.h"
#include "net/core/wire.h"

TEST(tcp_loss_reorder_dup_4mb)
{
    struct tl_opts o = {.loss_ppm = 10000, .reorder_ppm = 10000, .dup_ppm = 5000, .seed = 42};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    uint64_t ns = transfer(l, x, 4u << 20, true, TCP_CC_CUBIC);
    no_malformed(l);
    CHECK(tl_ctr(l, 0, "tcp-retransmit") > 0);
    CHECK(tl_ctr(l, 0, "tcp-fast-recovery") > 0);
    CHECK(l->lost > 0 && l->duped > 0 && l->reordered > 0);
    fprintf(stderr, "  4 MB in %.3f s simulated, %lu lost, rtx %lu, rto %lu, fr %lu\n", ns / 1e9,
            (unsigned long)l->lost, (unsigned long)tl_ctr(l, 0, "tcp-retransmit"),
            (unsigned long)tl_ctr(l, 0, "tcp-rto"), (unsigned long)tl_ctr(l, 0, "tcp-fast-recovery"));
    free(x);
    CHECK(tl_free(l));
}

TEST(tcp_100mb_at_1pct_loss)
{
    struct tl_opts o = {.loss_ppm = 10000, .reorder_ppm = 5000, .dup_ppm = 2000, .seed = 7};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    uint64_t ns = transfer(l, x, 100u << 20, true, TCP_CC_CUBIC);
    no_malformed(l);
    CHECK(l->lost > 500);
    fprintf(stderr, "  100 MB: %.2f s simulated, %lu frames, %lu lost, %lu reordered, %lu duplicated, "
            "%lu retransmitted\n", ns / 1e9, (unsigned long)l->frames, (unsigned long)l->lost,
            (unsigned long)l->reordered, (unsigned long)l->duped, (unsigned long)tl_ctr(l, 0, "tcp-retransmit"));
    free(x);
    CHECK(tl_free(l));
}

TEST(tcp_newreno_without_sack)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.sack = false;
    cfg.cc = TCP_CC_NEWRENO;
    struct tl_opts o = {.loss_ppm = 20000, .seed = 3, .cfg = {&cfg, &cfg}};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    transfer(l, x, 2u << 20, false, TCP_CC_NEWRENO);
    no_malformed(l);
    CHECK(tl_ctr(l, 0, "tcp-fast-recovery") > 0);
    free(x);
    CHECK(tl_free(l));
}
/* Three holes in one flight, recovered by SACK in one round; with_window:
 * while the receiver's window moves in every ACK, as Linux's does early
 * on. RFC 6675 2: an ACK with new SACK information is a duplicate
 * whatever its window (RFC 5681's unchanged-window rule is for ACKs
 * without SACK). */
static void sack_three_holes(bool with_window)
{
    struct xfer *x = calloc(1, sizeof(*x));
    /* Three holes in the second flight: SACK recovers all in one round. */
    uint32_t mss = 1448;
    struct dropper d = {.ndrop = 3, .drop = {12 * mss, 14 * mss, 17 * mss}, .grow_window = with_window};
    uint64_t ns;
    struct tl *l = dropped_transfer(x, &d, &ns);
    CHECK(d.dropped[0] && d.dropped[1] && d.dropped[2]);
    CHECK(d.sack_acks >= 3);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 3);
    CHECK_EQ(tl_ctr(l, 0, "tcp-lost-retransmit"), 0);
    CHECK_EQ(tl_ctr(l, 1, "tcp-ooo-queued") > 0, 1);
    free(x);
    CHECK(tl_free(l));
}

TEST(tcp_sack_recovery_without_timeout) { sack_three_holes(false); }

TEST(tcp_sack_recovery_while_the_window_moves) { sack_three_holes(true); }

/* A hole whose retransmission is lost too, and one whose retransmission
 * arrives: the data sent after the lost one comes back SACKed, and RACK
 * (RFC 8985 6.2) sends it a third time without waiting for the RTO
 * (200 ms, against an RTT of 2 ms). */
TEST(tcp_lost_retransmission_without_timeout)
{
    struct xfer *x = calloc(1, sizeof(*x));
    uint32_t mss = 1448;
    struct dropper d = {.ndrop = 2, .drop = {12 * mss, 15 * mss}, .times = {2, 1}};
    uint64_t ns;
    struct tl *l = dropped_transfer(x, &d, &ns);
    CHECK(d.dropped[0] && d.dropped[1]);
    CHECK_EQ(d.ndropped[0], 2);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-lost-retransmit"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 3);
    CHECK_EQ(x->a[0].closed, 1);
    CHECK_EQ(x->a[0].retransmits, 3); /* the connection's own count */
    CHECK_EQ(x->a[1].retransmits, 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK(ns < 100000000ull); /* simulated: well under one RTO */
    free(x);
    CHECK(tl_free(l));
}

/* The ACK for the end of a flight lost (the receiver delays the one for
 * the last segment): nothing comes back, with three segments out. The
 * tail loss probe (RFC 8985 7) sends the last one again after 2 SRTT
 * instead of waiting 200 ms for the RTO. The receiver had it: its answer
 * reports the duplicate (D-SACK, RFC 2883), so the probe repaired no loss
 * and cwnd stays. */
static bool drop_late_acks(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct dropper *d = ctx;
    struct ta_seg s;
    if (from != 1 || !ta_parse(p, &s) || s.len || (s.flags & (TCP_SYN | TCP_FIN)) || d->ndrop == 0)
        return true;
    if (s.ack - d->base > 4 * 1448u && d->sack_acks < 1) {
        d->sack_acks++; /* (counts the ACKs dropped here) */
        return false;
    }
    if (s.opt.nsack && s.opt.sack[0][0] - d->base == 6 * 1448u && s.opt.sack[0][1] - d->base == 7 * 1448u)
        d->data_segs++; /* (counts D-SACKs of the last segment) */
    return true;
}

/* Side 0 connects to side 1 to send 7 segments through tap (d: its
 * dropper, base set here). */
static void seven_segments(struct tl *l, struct xfer *x, struct dropper *d,
                           bool (*tap)(void *, struct tl *, int, struct pkt *))
{
    l->tap = tap;
    l->tap_ctx = d;
    x->want = 1448 * 7;
    x->a[0].tx_total = 1448 * 7;
    ta_listen(l, 1, 9, &x->a[1]);
    ta_connect(l, 0, 9, &x->a[0]);
    d->base = x->a[0].c->iss + 1;
}

/* Seven segments over 1 ms each way, the ACK of the sixth dropped. */
static struct tl *late_ack_pair(struct xfer *x, struct dropper *d)
{
    struct tl_opts o = {.delay_ns = 1000000};
    struct tl *l = tl_new(&o);
    *d = (struct dropper){.ndrop = 1};
    seven_segments(l, x, d, drop_late_acks);
    return l;
}

TEST(tcp_tail_loss_probe)
{
    struct xfer *x = calloc(1, sizeof(*x));
    struct dropper d;
    struct tl *l = late_ack_pair(x, &d);
    uint64_t t0 = l->now_ns;
    while (x->a[0].c->snd_una != d.base + 1448 * 7 && l->now_ns - t0 < 1000000000ull)
        tl_advance(l, 100000);
    CHECK_EQ(x->a[1].rx_bytes, 1448 * 7);
    CHECK_EQ(d.sack_acks, 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tlp"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 1);
    CHECK_EQ(d.data_segs, 1);                   /* the answer: a D-SACK of the probe */
    CHECK_EQ(tl_ctr(l, 0, "tcp-tlp-loss"), 0);  /* so no loss was repaired */
    CHECK(l->now_ns - t0 < 50000000ull); /* simulated: long before a 200 ms RTO */
    CHECK_EQ(x->a[0].c->flags & (TCP_CF_TLP | TCP_CF_PTO), 0);
    CHECK(tl_free(l)); /* (the connections are open: their closed callbacks write to x) */
    free(x);
}

/* The same probe, its original only late: the original's ACK (up to the
 * probe's end, no D-SACK; injected) comes first, then the D-SACK of the
 * probe. The first cannot tell (Linux waits on it too); the second ends
 * the episode: no loss was repaired, ssthresh stays. */
TEST(tcp_tail_loss_probe_original_acked_first)
{
    struct xfer *x = calloc(1, sizeof(*x));
    struct dropper d;
    struct tl *l = late_ack_pair(x, &d);
    uint64_t t0 = l->now_ns;
    while (tl_ctr(l, 0, "tcp-tlp") == 0 && l->now_ns - t0 < 1000000000ull)
        tl_advance(l, 100000);
    struct tcp_conn *c = x->a[0].c, *r = x->a[1].c;
    uint32_t ssthresh = c->ssthresh, end = d.base + 1448 * 7;
    CHECK_EQ(c->tlp_end, end);
    uint8_t f[128], ts[12] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, TCP_OPT_TS_LEN};
    uint32_t tsval = net_htonl(c->ts_recent), tsecr = net_htonl(r->ts_recent); /* as side 1's last */
    memcpy(ts + 4, &tsval, 4);
    memcpy(ts + 8, &tsecr, 4);
    size_t n = ta_frame(f, 0, r->lport, r->rport, r->snd_nxt, end, TCP_ACK,
                        (uint16_t)(tcp_rcv_window(r) >> r->rcv_wscale), ts, sizeof ts, NULL, 0);
    tl_inject(l, 0, f, n);
    tl_flush(l);
    CHECK_EQ(c->snd_una, end);
    CHECK(c->flags & TCP_CF_TLP); /* the answer is still to come */
    while (d.data_segs == 0 && l->now_ns - t0 < 1000000000ull)
        tl_advance(l, 100000);
    CHECK_EQ(d.data_segs, 1); /* the D-SACK of the probe, sent */
    tl_advance(l, 2000000);   /* and arrived */
    CHECK_EQ(c->flags & TCP_CF_TLP, 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tlp-loss"), 0);
    CHECK_EQ(c->ssthresh, ssthresh);
    CHECK_EQ(tl_ctr(l, 0, "tcp-dsack-rx"), 1);
    CHECK_EQ(c->reo_steps, 0); /* a probe's copy says nothing of reordering */
    CHECK(tl_free(l));
    free(x);
}

/* What side 1 last answered, the wire otherwise cut: side 1 sees only
 * the frames a test injects. */
struct last_ack {
    struct ta_seg s;
    int n;
};

static bool record_acks(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct last_ack *a = ctx;
    if (from == 1 && ta_parse(p, &a->s))
        a->n++;
    return false;
}

/* A duplicate of data held out of order is reported too (RFC 2883 4: a
 * D-SACK block first, then the block it lies in), so the peer can tell a
 * retransmission it did not need. */
TEST(tcp_dsack_for_out_of_order_duplicate)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false; /* (injected segments carry none) */
    struct tl_opts o = {.cfg = {&cfg, &cfg}};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    ta_listen(l, 1, 9, &x->a[1]);
    ta_connect(l, 0, 9, &x->a[0]);
    tl_run(l, NULL, NULL, 1000000000ull);
    struct tcp_conn *c = x->a[1].c;
    CHECK(c != NULL && x->a[0].connected);
    struct last_ack a = {0};
    l->tap = record_acks;
    l->tap_ctx = &a;
    uint8_t f[1600], data[100] = {0};
    uint32_t at = c->rcv_nxt + 1000;
    for (int i = 0; i < 2; i++) {
        size_t n = ta_frame(f, 1, c->rport, c->lport, at, c->snd_nxt, TCP_ACK, 1000, NULL, 0, data, sizeof data);
        tl_inject(l, 1, f, n);
        tl_flush(l);
    }
    CHECK_EQ(a.n, 2);
    CHECK_EQ(a.s.opt.nsack, 2);
    CHECK(a.s.opt.sack[0][0] == at && a.s.opt.sack[0][1] == at + 100); /* the duplicate */
    CHECK(a.s.opt.sack[1][0] == at && a.s.opt.sack[1][1] == at + 100); /* what is held */
    CHECK_EQ(tl_ctr(l, 1, "tcp-rcv-dup"), 1);
    CHECK(tl_free(l));
    free(x);
}
/* The last two of 7 segments lost, then the FIN: no duplicate ACKs to
 * speak of. The tail loss probe sends the 7th again; its SACK shows the
 * 6th, sent before it, lost (RACK, RFC 8985 7.1's design), and fast
 * recovery repairs it: no RTO. */
TEST(tcp_tail_loss_repaired_by_probe_and_rack)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    struct dropper d = {.ndrop = 2, .drop = {1448 * 5, 1448 * 6}}; /* the last two of 7 */
    x->a[0].close_when_sent = true;
    x->a[1].close_on_fin = true;
    seven_segments(l, x, &d, drop_tap);
    uint64_t t0 = l->now_ns;
    CHECK(tl_run(l, xfer_done, x, 10000000000ull));
    CHECK_EQ(x->a[1].rx_bytes, 1448 * 7);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tlp"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 2);
    CHECK(l->now_ns - t0 < 100000000ull); /* simulated: well before the 200 ms RTO */
    free(x);
    CHECK(tl_free(l));
}

/* A burst lost but for its last segment, and nothing more to send: one
 * SACKed segment is not DupThresh, and with a SACK in the probe waits.
 * RACK takes the five for lost, sent before the one delivered, once the
 * reordering window (a quarter of the smallest RTT) is over: the
 * reordering timer, not the RTO. Without drop_first, the burst's first
 * segment arrives: the SACK comes with an ACK that moves snd_una. */
static void burst_lost_but_its_last(bool drop_first)
{
    struct tl_opts o = {.delay_ns = 1000000};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    struct dropper d = {.ndrop = drop_first ? 6 : 5};
    for (int i = 0; i < d.ndrop; i++)
        d.drop[i] = 1448u * (uint32_t)(i + !drop_first);
    seven_segments(l, x, &d, drop_tap);
    uint64_t t0 = l->now_ns;
    while (x->a[1].rx_bytes < 1448 * 7 && l->now_ns - t0 < 1000000000ull)
        tl_advance(l, 100000);
    CHECK_EQ(x->a[1].rx_bytes, 1448 * 7);
    CHECK_EQ(x->a[1].rx_bad, 0);
    CHECK(d.sack_acks >= 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-tlp"), 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), (uint64_t)d.ndrop);
    CHECK(l->now_ns - t0 < 20000000ull); /* simulated: a few round trips, not the 200 ms RTO */
    CHECK(tl_free(l)); /* (the connections are open: their closed callbacks write to x) */
    free(x);
}

TEST(tcp_rack_burst_lost_but_its_last) { burst_lost_but_its_last(true); }

TEST(tcp_rack_burst_lost_after_its_first) { burst_lost_but_its_last(false); }

TEST(tcp_zero_copy_send_uses_the_buffer)
{
    struct tl_opts o = {0};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    struct dropper d = {0};
    l->tap = drop_tap;
    l->tap_ctx = &d;
    struct ta *a = &x->a[0];
    ta_listen(l, 1, 9, &x->a[1]);
    ta_connect(l, 0, 9, a);
    tl_run(l, NULL, NULL, 1000000000ull);
    CHECK_EQ(a->connected, 1);
    struct pkt *p = pkt_alloc(&l->pool[0]);
    memcpy(p->data, "zero-copy", 9);
    p->len = 9;
    CHECK_EQ(tcp_send(a->c, p, l->now_ns), 0);
    tl_flush(l);
    CHECK(d.first == p); /* the very buffer went to the NIC */
    tl_run(l, NULL, NULL, 1000000000ull);
    CHECK_EQ(x->a[1].rx_bytes, 9);
    tcp_close(a->c, l->now_ns);
    tcp_close(x->a[1].c, l->now_ns);
    tl_run(l, NULL, NULL, 1000000000ull);
    free(x);
    CHECK(tl_free(l));
}

static bool csum_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    int *n = ctx;
    struct ta_seg s;
    if (ta_parse(p, &s) && (p->flags & PKT_TX_L4_CSUM))
        (*n)++;
    return true;
}

TEST(tcp_checksum_offload)
{
    struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM, .loss_ppm = 5000, .seed = 9};
    struct tl *l = tl_new(&o);
    int offloaded = 0;
    l->tap = csum_tap;
    l->tap_ctx = &offloaded;
    struct xfer *x = calloc(1, sizeof(*x));
    transfer(l, x, 1u << 20, true, TCP_CC_CUBIC);
    CHECK(offloaded > 700);
    no_malformed(l);
    free(x);
    CHECK(tl_free(l));
}

/* TSO: whole slots go out as one frame over their own buffers, cut by the
 * "NIC"; intact through loss, for zero-copy slots and tcp_write's. */
TEST(tcp_tso_frames_at_loss)
{
    for (int zc = 0; zc < 2; zc++) {
        struct tl_opts o = {.offloads = NETDEV_OFF_TX_CSUM | NETDEV_OFF_RX_CSUM | NETDEV_OFF_TSO4,
                            .loss_ppm = 10000, .reorder_ppm = 5000, .dup_ppm = 2000, .seed = 21 + (uint64_t)zc};
        struct tl *l = tl_new(&o);
        struct xfer *x = calloc(1, sizeof(*x));
        transfer(l, x, 16u << 20, zc, TCP_CC_CUBIC);
        no_malformed(l);
        uint64_t tso = tl_ctr(l, 0, "tcp-tso");
        CHECK(tso > 0);
        CHECK_EQ(l->tso_frames, tso);
        CHECK(tl_ctr(l, 0, "tcp-tx") >= 2 * tso); /* two slots a frame at least */
        CHECK(tl_ctr(l, 0, "tcp-retransmit") > 0);
        fprintf(stderr, "  16 MB (%s): %lu TSO frames for %lu segments\n", zc ? "tcp_send" : "tcp_write",
                (unsigned long)tso, (unsigned long)tl_ctr(l, 0, "tcp-tx"));
        free(x);
        CHECK(tl_free(l));
    }
}

TEST(tcp_congestion_control_per_connection)
{
    /* A 100 Mb/s bottleneck with a 64-frame queue: drops come from
     * congestion, and each algorithm backs off by its own factor. */
    for (int cc = TCP_CC_NEWRENO; cc <= TCP_CC_CUBIC; cc++) {
        struct tl_opts o = {.rate_bps = 100000000, .queue_max = 64, .delay_ns = 2000000};
        struct tl *l = tl_new(&o);
        struct xfer *x = calloc(1, sizeof(*x));
        uint64_t ns = transfer(l, x, 8u << 20, true, cc);
        CHECK(l->overflow > 0);
        CHECK(tl_ctr(l, 0, "tcp-fast-recovery") > 0);
        /* 8 MB at 100 Mb/s is 0.67 s: within 2x of the line rate. */
        CHECK(ns < 1400000000ull);
        fprintf(stderr, "  %s: %.3f s, %lu overflow drops, %lu recoveries\n", cc ? "cubic" : "newreno", ns / 1e9,
                (unsigned long)l->overflow, (unsigned long)tl_ctr(l, 0, "tcp-fast-recovery"));
        free(x);
        CHECK(tl_free(l));
    }
}
