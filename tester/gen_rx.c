/* SPDX-License-Identifier: MIT */
/* tester/gen_rx.c: per-stream receive accounting (gen_rx.h). */
#include "gen_rx.h"

void gen_rx_stream_clear(struct gen_rx_stream *s)
{
    *s = (struct gen_rx_stream){0};
    lat_hist_clear(&s->lat);
}

static bool test_and_set(struct gen_rx_stream *s, uint32_t seq)
{
    uint32_t bit = seq % GEN_RX_WINDOW;
    uint64_t mask = 1ull << (bit % 64), *w = &s->seen[bit / 64];
    bool was = (*w & mask) != 0;
    *w |= mask;
    return was;
}

/* next moves up to seq + 1: the bits of the numbers it passes are those
 * of numbers a window older, no longer wanted. */
static void advance(struct gen_rx_stream *s, uint32_t seq)
{
    uint32_t gap = seq - s->next + 1;
    if (gap >= GEN_RX_WINDOW) {
        for (unsigned i = 0; i < GEN_RX_WINDOW / 64; i++)
            s->seen[i] = 0;
    } else {
        for (uint32_t n = s->next; n != seq + 1; n++)
            s->seen[(n % GEN_RX_WINDOW) / 64] &= ~(1ull << (n % 64));
    }
    s->next = seq + 1;
}

void gen_rx_account(struct gen_rx_stream *s, uint32_t seq, uint64_t latency_ns)
{
    s->rx++;
    lat_hist_add(&s->lat, latency_ns);
    /* Serial-number arithmetic: sequence numbers wrap at 2^32. */
    int32_t ahead = (int32_t)(seq - s->next);
    if (!s->started || ahead >= 0) {
        if (!s->started) {
            s->started = true;
            s->next = seq;
        }
        advance(s, seq);
        test_and_set(s, seq);
        return;
    }
    if ((uint32_t)-ahead > GEN_RX_WINDOW) {
        s->too_late++;
        s->reordered++;
        return;
    }
    if (test_and_set(s, seq))
        s->dup++;
    else
        s->reordered++;
}

void gen_rx_merge(struct gen_rx_stream *into, const struct gen_rx_stream *s)
{
    into->rx += s->rx;
    into->dup += s->dup;
    into->reordered += s->reordered;
    into->too_late += s->too_late;
    lat_hist_merge(&into->lat, &s->lat);
}

int64_t gen_rx_lost(uint64_t sent, const struct gen_rx_stream *s)
{
    return (int64_t)sent - (int64_t)(s->rx - s->dup);
}
