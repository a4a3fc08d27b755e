/* SPDX-License-Identifier: MIT */
/* tester/rfc2544.c: the searches of an RFC 2544 run (rfc2544.h). */
#include "rfc2544.h"

/* 802.3: 7 bytes of preamble, the start delimiter, 12 of gap. */
#define WIRE_OVERHEAD 20u

uint64_t rfc2544_line_rate(uint64_t bits_per_s, uint32_t size)
{
    return bits_per_s / ((uint64_t)(size + WIRE_OVERHEAD) * 8u);
}

uint32_t rfc2544_loss_ppm(uint64_t sent, uint64_t received)
{
    if (sent == 0 || received >= sent)
        return 0;
    uint64_t lost = sent - received;
    /* Round up: one frame lost of many is still a loss. */
    return (uint32_t)((lost * 1000000u + sent - 1) / sent);
}

void rfc2544_search_start(struct rfc2544_search *s, uint64_t max, uint64_t step, uint32_t tolerance_ppm)
{
    *s = (struct rfc2544_search){.lo = 0, .hi = max + 1, .max = max, .step = step ? step : 1,
                                 .tolerance_ppm = tolerance_ppm, .trying = max, .done = max == 0};
}

uint64_t rfc2544_search_next(const struct rfc2544_search *s) { return s->trying; }

/* Closes the bracket, or picks its middle to try next. */
static void narrow(struct rfc2544_search *s)
{
    if (s->hi - s->lo <= s->step || s->lo == s->max) {
        s->done = true;
        return;
    }
    s->trying = s->lo + (s->hi - s->lo) / 2;
}

void rfc2544_search_floor(struct rfc2544_search *s, uint64_t lo)
{
    if (lo <= s->lo)
        return;
    s->lo = lo < s->max ? lo : s->max;
    narrow(s);
}

void rfc2544_search_result(struct rfc2544_search *s, uint64_t sent, uint64_t received)
{
    s->trials++;
    bool lossless = sent > 0 && rfc2544_loss_ppm(sent, received) <= s->tolerance_ppm;
    /* A trial that could not send is a failure: nothing was shown to pass. */
    if (lossless)
        s->lo = s->trying;
    else
        s->hi = s->trying;
    narrow(s);
}

void rfc2544_loss_start(struct rfc2544_loss_curve *c) { *c = (struct rfc2544_loss_curve){.pct = 100}; }

void rfc2544_loss_result(struct rfc2544_loss_curve *c, uint64_t sent, uint64_t received)
{
    c->clean_steps = sent > 0 && received >= sent ? c->clean_steps + 1 : 0;
    if (c->clean_steps == 2 || c->pct <= 10) {
        c->done = true;
        return;
    }
    c->pct -= 10;
}

void rfc2544_tally_add(struct rfc2544_tally *t, uint64_t v)
{
    t->min = t->n == 0 || v < t->min ? v : t->min;
    t->max = t->n == 0 || v > t->max ? v : t->max;
    t->sum += v;
    t->n++;
}

uint64_t rfc2544_tally_mean(const struct rfc2544_tally *t) { return t->n ? (t->sum + t->n / 2) / t->n : 0; }
