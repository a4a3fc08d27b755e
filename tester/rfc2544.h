/* SPDX-License-Identifier: MIT */
/* tester/rfc2544.h: the decisions of an RFC 2544 run, apart from the
 * trials themselves (which take seconds of the generator's time, so the
 * runner asks what to try next and is told how each trial went):
 *
 * - throughput (26.1): a binary search between 0 and the line rate for
 *   the highest rate whose loss is at most a tolerance (0: the no-drop
 *   rate, NDR; RFC 9004's partial-drop rate, PDR, with e.g. 0.5%), ended
 *   when the bracket is narrower than a precision;
 * - back-to-back (26.4): the same search over the length of a burst sent
 *   at line rate, for the longest with no loss;
 * - frame loss rate (26.3): from 100% of line rate down in 10% steps
 *   until two steps in a row lose nothing;
 * - repetitions: each figure the mean of the runs that measured it.
 * Rates are frames a second; a frame's time on the wire is its size plus
 * 20 bytes of preamble and inter-frame gap (IEEE 802.3). */
#ifndef TESTER_RFC2544_H
#define TESTER_RFC2544_H

#include <stdbool.h>
#include <stdint.h>

/* Frames a second at bits_per_s for frames of size bytes (FCS included). */
uint64_t rfc2544_line_rate(uint64_t bits_per_s, uint32_t size);

/* Loss in millionths: (sent - received) / sent; 0 when nothing was sent
 * or more arrived than left. */
uint32_t rfc2544_loss_ppm(uint64_t sent, uint64_t received);

struct rfc2544_search {
    uint64_t lo, hi;      /* lo passed (or 0), hi failed (or max + 1) */
    uint64_t max, step;   /* the largest value, the precision */
    uint32_t tolerance_ppm;
    uint64_t trying;      /* the value of the trial under way */
    uint32_t trials;
    bool done;
};

/* A search over [0, max] to within step (at least 1), passing a trial
 * that lost at most tolerance_ppm. The first trial is max itself. */
void rfc2544_search_start(struct rfc2544_search *s, uint64_t max, uint64_t step, uint32_t tolerance_ppm);
/* Values up to lo are known to pass (a PDR search above the NDR): the
 * search goes on above lo, or is done when nothing is left between. */
void rfc2544_search_floor(struct rfc2544_search *s, uint64_t lo);
/* The value to try next (s->trying); meaningless once done. */
uint64_t rfc2544_search_next(const struct rfc2544_search *s);
/* How the trial of s->trying went; sets done when the bracket is closed. */
void rfc2544_search_result(struct rfc2544_search *s, uint64_t sent, uint64_t received);
/* The answer once done: the highest value that passed (0: none did). */
static inline uint64_t rfc2544_search_answer(const struct rfc2544_search *s) { return s->lo; }

struct rfc2544_loss_curve {
    uint32_t pct;         /* the step under way, 100, 90, ... 10 */
    uint32_t clean_steps; /* in a row that lost nothing */
    bool done;
};

void rfc2544_loss_start(struct rfc2544_loss_curve *c);
/* The step's result; done after two clean steps in a row or after 10%. */
void rfc2544_loss_result(struct rfc2544_loss_curve *c, uint64_t sent, uint64_t received);

/* A figure over repetitions of a test (26.2 and 26.4 ask for the mean
 * of 20 and of 50): count, sum, least and most. */
struct rfc2544_tally {
    uint32_t n;
    uint64_t sum, min, max;
};

void rfc2544_tally_add(struct rfc2544_tally *t, uint64_t v);
/* The mean, rounded to nearest; 0 when empty. */
uint64_t rfc2544_tally_mean(const struct rfc2544_tally *t);

#endif
