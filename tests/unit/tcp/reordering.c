/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/reordering.c: TCP on a path that reorders: reordering
 * taken for loss and undone (RFC 3708, DSACK), then tolerated; bulk
 * through reordering; real loss not undone; a spurious timeout undone
 * (net/tcp/tcp_sack.c, tcp_input.c, tcp_timer.c). */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_transfer.h"

#include "net/core/csum.h"
#include "net/core/wire.h"

/* Holds chosen data segments of side 0 back by extra_ns, the first time
 * they are sent: the path reorders them, nothing is lost. */
struct delayer {
    uint32_t base;              /* side 0's ISN + 1 */
    uint32_t at[2];             /* offsets from base */
    bool done[2];
    uint64_t extra_ns;
    struct xfer *x;
    uint32_t ssthresh[2];       /* side 0's when each was held back */
};

static bool delay_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct delayer *d = ctx;
    struct ta_seg s;
    if (from != 0 || !ta_parse(p, &s) || s.len == 0)
        return true;
    for (int i = 0; i < 2; i++)
        if (s.seq - d->base == d->at[i] && !d->done[i]) {
            d->done[i] = true;
            d->ssthresh[i] = d->x->a[0].c->ssthresh;
            l->tap_delay_ns = d->extra_ns;
        }
    return true;
}

/* A segment arrives 300 us after the three behind it (a 2 ms round trip):
 * DupThresh takes it for lost, and it is sent again. The D-SACK of that
 * copy shows the reduction needless: it is undone (RFC 3708), the path
 * counts as reordering, and from then on RACK alone judges losses, with a
 * window of min_rtt / 4 times 2 (RFC 8985 6.2): the same delay later
 * costs nothing. Before, every such delay was a recovery, and 2% of
 * segments so delayed made a transfer ten times slower. */
TEST(tcp_reordering_undone_then_tolerated)
{
    struct xfer *x = calloc(1, sizeof(*x));
    struct delayer d = {.at = {12 * 1448, 200 * 1448}, .extra_ns = 300000, .x = x};
    uint64_t ns;
    struct tl *l = tapped_transfer(x, delay_tap, &d, &d.base, &ns);
    CHECK(d.done[0] && d.done[1]);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-dsack-rx"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-undo"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
    CHECK_EQ(d.ssthresh[1], d.ssthresh[0]); /* slow start went on */
    free(x);
    CHECK(tl_free(l));
}

/* Bulk over a 1 Gbit/s bottleneck with 2% of segments 200 us late (a
 * tenth of the round trip), nothing lost: a recovery or two before the
 * path counts as reordering, none after (0.19 s simulated, as with no
 * reordering). Before, 117 recoveries, 138 needless retransmissions and
 * 1.9 s. */
TEST(tcp_bulk_through_reordering)
{
    struct tl_opts o = {.reorder_ppm = 20000, .reorder_ns = 200000, .delay_ns = 1000000,
                        .rate_bps = 1000000000ull, .queue_max = 100000, .seed = 5};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    transfer(l, x, 20u << 20, true, TCP_CC_CUBIC);
    no_malformed(l);
    CHECK(l->reordered > 400 && l->lost == 0 && l->overflow == 0);
    CHECK(tl_ctr(l, 0, "tcp-undo") >= 1);
    CHECK(tl_ctr(l, 0, "tcp-fast-recovery") <= 3);
    CHECK(tl_ctr(l, 0, "tcp-retransmit") <= 3);
    free(x);
    CHECK(tl_free(l));
}

/* Loss alone: every retransmission was needed, nothing is undone. */
TEST(tcp_loss_without_reordering_not_undone)
{
    struct tl_opts o = {.loss_ppm = 10000, .delay_ns = 1000000, .rate_bps = 1000000000ull, .seed = 9};
    struct tl *l = tl_new(&o);
    struct xfer *x = calloc(1, sizeof(*x));
    transfer(l, x, 8u << 20, true, TCP_CC_CUBIC);
    no_malformed(l);
    CHECK(l->lost > 50 && l->reordered == 0 && l->duped == 0);
    CHECK(tl_ctr(l, 0, "tcp-fast-recovery") > 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-undo"), 0);
    free(x);
    CHECK(tl_free(l));
}

/* Without timestamps and with the SYN sent twice there is no RTT sample
 * when segment 0 of the first flight is lost and segment 1 comes late
 * (reordering seen): RACK's window has no size yet, so DupThresh still
 * decides and fast retransmit repairs it, not the RTO. */
struct first_flight {
    uint32_t base;
    int syns;                   /* side 0's SYNs seen */
    bool dropped, delayed;
};

static bool first_flight_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct first_flight *f = ctx;
    struct ta_seg s;
    if (from != 0 || !ta_parse(p, &s))
        return true;
    if (s.flags & TCP_SYN)
        return ++f->syns > 1;
    if (s.len && s.seq == f->base && !f->dropped)
        return !(f->dropped = true);
    if (s.len && s.seq == f->base + 1460 && !f->delayed) { /* (no timestamps: 1460 a segment) */
        f->delayed = true;
        l->tap_delay_ns = 15000;
    }
    return true;
}

TEST(tcp_reordering_before_an_rtt_sample)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.timestamps = false;
    struct tl_opts o = {.delay_ns = 1000000, .rate_bps = 1000000000ull, .cfg = {&cfg, &cfg}};
    struct xfer *x = calloc(1, sizeof(*x));
    struct first_flight f = {0};
    uint64_t ns;
    struct tl *l = tapped_transfer_on(&o, x, first_flight_tap, &f, &f.base, &ns);
    CHECK(f.dropped && f.delayed && f.syns == 2);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0); /* (the SYN's is not counted there) */
    free(x);
    CHECK(tl_free(l));
}

/* Loss and reordering together, seeds where a hole inside RACK's window
 * waited for the RTO: an ACK that moved SND.UNA (ending recovery) put the
 * RTO in the place of the reordering timer, and nothing armed it again. */
TEST(tcp_loss_and_reordering_without_timeouts)
{
    static const struct {
        uint32_t dup_ppm;
        uint64_t seed;
    } runs[] = {{0, 24}, {0, 25}, {0, 39}, {5000, 7}};
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        struct tl_opts o = {.loss_ppm = 5000, .reorder_ppm = 20000, .dup_ppm = runs[i].dup_ppm,
                            .reorder_ns = 200000, .delay_ns = 1000000, .rate_bps = 1000000000ull,
                            .queue_max = 100000, .seed = runs[i].seed};
        struct tl *l = tl_new(&o);
        struct xfer *x = calloc(1, sizeof(*x));
        transfer(l, x, 4u << 20, true, TCP_CC_CUBIC);
        no_malformed(l);
        CHECK(l->lost > 0 && l->reordered > 0);
        CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 0);
        free(x);
        CHECK(tl_free(l));
    }
}

/* The link from side 0 stalls for stall_ns from its from_seg-th data
 * segment on: what is sent meanwhile arrives in order when it ends. */
struct stall {
    int data_segs, from_seg;
    uint64_t start_ns, stall_ns;
    struct xfer *x;
    uint32_t ssthresh[2];       /* side 0's when the stall began, and at its first data after it */
};

static bool stall_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct stall *k = ctx;
    struct ta_seg s;
    if (from != 0 || !ta_parse(p, &s))
        return true;
    if (s.len && ++k->data_segs == k->from_seg) {
        k->start_ns = l->now_ns;
        k->ssthresh[0] = k->x->a[0].c->ssthresh;
    }
    if (k->start_ns && l->now_ns - k->start_ns < k->stall_ns)
        l->tap_delay_ns = k->start_ns + k->stall_ns - l->now_ns;
    else if (k->start_ns && !k->ssthresh[1] && s.len && k->x->a[0].c)
        k->ssthresh[1] = k->x->a[0].c->ssthresh;
    return true;
}

/* A 300 ms stall outlasts the RTO (200 ms): the timeout sends the first
 * segment again, and the ACK of the originals, which arrive first, echoes
 * an older timestamp than that copy carried. The timeout was spurious
 * (Eifel, RFC 3522): the window of before comes back (RFC 4015), slow
 * start goes on, and nothing more is sent again. */
TEST(tcp_spurious_timeout_undone)
{
    struct xfer *x = calloc(1, sizeof(*x));
    struct stall k = {.from_seg = 30, .stall_ns = 300000000, .x = x};
    uint32_t base;
    uint64_t ns;
    struct tl *l = tapped_transfer(x, stall_tap, &k, &base, &ns);
    CHECK(k.start_ns != 0);
    CHECK_EQ(tl_ctr(l, 0, "tcp-rto"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-undo"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 0);
    CHECK(k.ssthresh[1] != 0);
    CHECK_EQ(k.ssthresh[1], k.ssthresh[0]);
    free(x);
    CHECK(tl_free(l));
}

/* A segment lost, nothing reordered, from a connection whose ISN is in
 * the upper half of the sequence space: the SACKs that follow are in
 * order, so the path must not count as reordering, and DupThresh starts
 * the recovery at once. The highest SACKed sequence began at 0, which
 * sequence arithmetic put ahead of such an ISN for ever: the first SACK
 * then looked like a hole filled below it, and RACK alone judged losses
 * from then on (its reordering window waited before each recovery). */
/* drop_tap, watching whether side 0 ever takes the path for reordering. */
struct reord_watch {
    struct dropper d;
    struct xfer *x;
    bool seen;
};

static bool reord_watch_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct reord_watch *r = ctx;
    if (r->x->a[0].c && r->x->a[0].c->rack_reord)
        r->seen = true;
    return drop_tap(&r->d, l, from, p);
}

TEST(tcp_in_order_sacks_not_reordering_at_any_isn)
{
    struct tl *l = tl_new(&(struct tl_opts){.delay_ns = 1000000});
    struct xfer *x = calloc(1, sizeof(*x));
    struct reord_watch r = {.d = {.ndrop = 1, .drop = {12 * 1448}}, .x = x};
    l->tap = reord_watch_tap;
    l->tap_ctx = &r;
    uint16_t lport = 40000;
    while (tcp_isn(l->s[0]->tcp, TL_ADDR0, TL_ADDR1, lport, 9, l->now_ns) < 0x80000000u)
        lport++;
    x->want = x->a[0].tx_total = 400000;
    x->a[0].zero_copy = x->a[0].close_when_sent = x->a[1].close_on_fin = true;
    ta_listen(l, 1, 9, &x->a[1]);
    x->a[0].c = tcp_connect_from(l->s[0], lport, TL_ADDR1, 9, &ta_cb, &x->a[0], l->now_ns);
    CHECK(x->a[0].c != NULL && x->a[0].c->iss >= 0x80000000u);
    r.d.base = x->a[0].c->iss + 1;
    tl_flush(l);
    CHECK(tl_run(l, xfer_done, x, 10000000000ull));
    CHECK_EQ(x->a[1].rx_bytes, 400000);
    CHECK(r.d.dropped[0]);
    CHECK(!r.seen);
    CHECK_EQ(tl_ctr(l, 0, "tcp-fast-recovery"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-retransmit"), 1);
    CHECK_EQ(tl_ctr(l, 0, "tcp-undo"), 0);
    free(x);
    CHECK(tl_free(l));
}
