/* SPDX-License-Identifier: MIT */
/* tests/unit/tcp/soak.c: the TCP soak (tests/support/tcp_soak.c) on fixed
 * seeds, and the regression tests of its first find, tiny writes. */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_soak.h"

#define SEC 1000000000ull

/* ---- Tiny writes (the soak's first find, a regression test) ---- */

struct tiny {
    struct ta a[2];
};

static bool tiny_done(void *ctx)
{
    struct tiny *x = ctx;
    return x->a[0].closed && x->a[1].closed;
}

/* Writes of one byte, zero-copy, queued from the callbacks: they join in
 * one open slot (tcp_send makes a small payload's buffer appendable)
 * rather than each going as a segment of its own, which took seconds
 * to minutes at 0.2% loss and, with Nagle, one byte a round trip. */
static void tiny_writes(uint32_t bytes, uint32_t loss_ppm, bool nagle)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.nagle = nagle;
    struct tl_opts o = {.loss_ppm = loss_ppm, .seed = 5, .cfg = {&cfg, &cfg}};
    struct tiny *x = calloc(1, sizeof(*x));
    struct tl *l = tl_new(&o);
    x->a[0].zero_copy = true;
    x->a[0].chunk = 1;
    x->a[0].tx_total = bytes;
    x->a[0].close_when_sent = true;
    x->a[1].close_on_fin = true;
    ta_listen(l, 1, 80, &x->a[1]);
    ta_connect(l, 0, 80, &x->a[0]);
    uint64_t t0 = l->now_ns;
    CHECK(tl_run(l, tiny_done, x, 60 * SEC));
    fprintf(stderr, "  %u one-byte sends, loss %u ppm, nagle %d: %.3f s simulated, %llu frames, %llu RTOs\n", bytes,
            loss_ppm, nagle, (l->now_ns - t0) / 1e9, (unsigned long long)l->frames,
            (unsigned long long)tl_ctr(l, 0, "tcp-rto"));
    CHECK_EQ(x->a[1].rx_bytes, bytes);
    CHECK_EQ(x->a[1].rx_bad, 0);
    CHECK(l->frames < 100);
    CHECK(tl_free(l));
    free(x);
}

TEST(tcp_tiny_writes_join)
{
    tiny_writes(20000, 0, false);
    tiny_writes(20000, 2000, false);
    tiny_writes(2000, 0, true);
}

/* One-byte sends from outside any callback on an open connection, each
 * free to go at once: cwnd (bytes) would let thousands of one-byte
 * segments out; as many as cwnd holds full ones go (short_may_go), the
 * rest join in the open slot behind them and go as full segments. With
 * Nagle, one short one goes. */
struct tiny_count {
    uint32_t short_segs, full_segs, seg_size;
};

static bool tiny_count_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct tiny_count *n = ctx;
    struct ta_seg sg;
    if (from == 0 && ta_parse(p, &sg) && sg.len) {
        if (sg.len < n->seg_size)
            n->short_segs++;
        else
            n->full_segs++;
    }
    return true;
}

static void tiny_sends_now(bool nagle)
{
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    cfg.nagle = nagle;
    struct tl_opts o = {.seed = 6, .cfg = {&cfg, &cfg}};
    struct tiny *x = calloc(1, sizeof(*x));
    struct tl *l = ta_pair(x->a, &o);
    struct tiny_count n = {.seg_size = tcp_mss(x->a[0].c)};
    l->tap = tiny_count_tap;
    l->tap_ctx = &n;
    const uint32_t bytes = 5000;
    for (uint32_t i = 0; i < bytes; i++) {
        struct pkt *p = pkt_alloc(&l->pool[0]);
        CHECK(p != NULL);
        p->data[0] = ta_byte(i);
        p->len = 1;
        CHECK_EQ(tcp_send(x->a[0].c, p, l->now_ns), 0);
    }
    tcp_close(x->a[0].c, l->now_ns);
    x->a[1].close_on_fin = true;
    CHECK(tl_run(l, tiny_done, x, 10 * SEC));
    fprintf(stderr, "  %u one-byte sends at once, nagle %d: %u short and %u full segments\n", bytes, nagle,
            n.short_segs, n.full_segs);
    CHECK_EQ(x->a[1].rx_bytes, bytes);
    CHECK_EQ(x->a[1].rx_bad, 0);
    uint32_t first = nagle ? 1 : TCP_IW_SEGS; /* one-byte segments before the rest joins */
    CHECK_EQ(n.short_segs, first + 1);       /* and the tail */
    CHECK_EQ(n.full_segs, (bytes - first) / n.seg_size);
    CHECK(tl_free(l));
    free(x);
}

TEST(tcp_tiny_sends_held_back_join)
{
    tiny_sends_now(false);
    tiny_sends_now(true);
}

/* The default run: 160 seeds. 34 of seeds 1000 to 3999 failed when this
 * file came (small sends each a segment, the RTO kept backed off, keepalive
 * judging a connection with data out); none does since. make soak
 * SOAK=FROM:COUNT runs any range (tests/soak/tcp_soak_hunt.c). */
#define SOAK_FIRST 1000
#define SOAK_SEEDS 160

/* And seeds beyond those that failed on the way to today's code: the
 * FIN-WAIT-2 timeout closing on a peer still retrying (2119, 3280, 4256)
 * and an early cut of small sends (2863). */
static const uint64_t soak_once_failed[] = {2119, 2863, 3280, 4256};

TEST(tcp_soak)
{
    for (uint64_t seed = SOAK_FIRST; seed < SOAK_FIRST + SOAK_SEEDS; seed++)
        CHECK(soak_run(seed, false, SOAK_MIN_WRITE));
    for (size_t i = 0; i < sizeof(soak_once_failed) / sizeof(soak_once_failed[0]); i++)
        CHECK(soak_run(soak_once_failed[i], false, SOAK_MIN_WRITE));
}
