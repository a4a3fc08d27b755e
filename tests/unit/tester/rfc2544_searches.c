/* SPDX-License-Identifier: MIT */
/* tests/unit/tester/rfc2544_searches.c: the RFC 2544 searches
 * (tester/rfc2544.c) against DUT models of known capacity: the answer is
 * the capacity to within the search's precision, never above it. */
#include "tester/rfc2544.h"
#include "tests/unit/check.h"

/* A DUT that forwards up to capacity frames a second and drops the rest. */
static uint64_t forwarded(uint64_t capacity, uint64_t rate) { return rate < capacity ? rate : capacity; }

static uint64_t search(uint64_t max, uint64_t step, uint32_t tol, uint64_t capacity, uint32_t *trials)
{
    struct rfc2544_search s;
    rfc2544_search_start(&s, max, step, tol);
    while (!s.done) {
        uint64_t r = rfc2544_search_next(&s);
        rfc2544_search_result(&s, r, forwarded(capacity, r));
    }
    *trials = s.trials;
    return rfc2544_search_answer(&s);
}

TEST(rfc2544_line_rates)
{
    CHECK_EQ(rfc2544_line_rate(10000000000ull, 64), 14880952);
    CHECK_EQ(rfc2544_line_rate(10000000000ull, 1518), 812743);
    CHECK_EQ(rfc2544_line_rate(1000000000ull, 64), 1488095);
    CHECK_EQ(rfc2544_loss_ppm(1000000, 999999), 1);
    CHECK_EQ(rfc2544_loss_ppm(3, 2), 333334);
    CHECK_EQ(rfc2544_loss_ppm(0, 0), 0);
    CHECK_EQ(rfc2544_loss_ppm(10, 11), 0);
}

TEST(rfc2544_ndr_found_within_its_precision)
{
    uint64_t line = rfc2544_line_rate(10000000000ull, 64), step = line / 1000;
    uint64_t caps[] = {1, 1000, 3456789, line / 2, line - 1, line, line * 2};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        uint32_t trials;
        uint64_t ndr = search(line, step, 0, caps[i], &trials);
        uint64_t want = caps[i] < line ? caps[i] : line;
        CHECK(ndr <= want);
        CHECK(want - ndr <= step);
        CHECK(trials <= 12); /* log2(1000) + the first at line rate */
    }
    uint32_t trials;
    CHECK_EQ(search(line, step, 0, line, &trials), line);
    CHECK_EQ(trials, 1);
    CHECK_EQ(search(line, step, 0, 0, &trials), 0);
}

TEST(rfc2544_pdr_takes_its_tolerance)
{
    /* At rate r a DUT of capacity c loses (r - c) / r: 0.5% tolerated
     * means rates up to c / 0.995 pass. */
    uint64_t line = 1000000, cap = 600000, pdr_cap = cap * 1000 / 995;
    struct rfc2544_search s;
    rfc2544_search_start(&s, line, 100, 5000);
    while (!s.done) {
        uint64_t r = rfc2544_search_next(&s);
        rfc2544_search_result(&s, r, forwarded(cap, r));
    }
    uint64_t pdr = rfc2544_search_answer(&s);
    CHECK(pdr <= pdr_cap + 1 && pdr_cap - pdr <= 100);
}

TEST(rfc2544_back_to_back_burst_search)
{
    /* A DUT with a buffer of 5000 frames behind a slower path loses
     * nothing in bursts up to that many. */
    struct rfc2544_search s;
    rfc2544_search_start(&s, 1000000, 1, 0);
    while (!s.done) {
        uint64_t burst = rfc2544_search_next(&s);
        rfc2544_search_result(&s, burst, burst <= 5000 ? burst : 5000);
    }
    CHECK_EQ(rfc2544_search_answer(&s), 5000);
}

TEST(rfc2544_loss_curve_stops_after_two_clean_steps)
{
    struct rfc2544_loss_curve c;
    rfc2544_loss_start(&c);
    uint32_t steps[12], n = 0;
    uint64_t cap = 650; /* of a line of 1000 */
    while (!c.done) {
        steps[n++] = c.pct;
        uint64_t sent = c.pct * 10u;
        rfc2544_loss_result(&c, sent, sent < cap ? sent : cap);
    }
    /* 100..70 lose, 60 and 50 do not. */
    CHECK_EQ(n, 6);
    CHECK_EQ(steps[n - 1], 50);
    rfc2544_loss_start(&c);
    n = 0;
    while (!c.done) {
        n++;
        rfc2544_loss_result(&c, 10, 9); /* always losing: down to 10% */
    }
    CHECK_EQ(n, 10);
}

TEST(rfc2544_search_above_a_known_floor)
{
    /* A PDR search above an NDR of 590,000 on a line of 1,000,000: every
     * trial lies above the floor, and the answer never falls below it. */
    struct rfc2544_search s;
    rfc2544_search_start(&s, 1000000, 100, 5000);
    rfc2544_search_floor(&s, 590000);
    CHECK(!s.done);
    while (!s.done) {
        uint64_t r = rfc2544_search_next(&s);
        CHECK(r > 590000);
        rfc2544_search_result(&s, r, r < 600000 ? r : 600000);
    }
    CHECK(rfc2544_search_answer(&s) >= 590000 && rfc2544_search_answer(&s) <= 603015);
    /* A floor at the line rate leaves nothing to search. */
    rfc2544_search_start(&s, 1000, 10, 0);
    rfc2544_search_floor(&s, 1000);
    CHECK(s.done);
    CHECK_EQ(rfc2544_search_answer(&s), 1000);
}

TEST(rfc2544_repetitions_tallied)
{
    struct rfc2544_tally t = {0};
    CHECK_EQ(rfc2544_tally_mean(&t), 0);
    rfc2544_tally_add(&t, 500);
    CHECK(t.n == 1 && t.min == 500 && t.max == 500 && rfc2544_tally_mean(&t) == 500);
    rfc2544_tally_add(&t, 470);
    rfc2544_tally_add(&t, 531);
    CHECK(t.n == 3 && t.min == 470 && t.max == 531);
    CHECK_EQ(rfc2544_tally_mean(&t), 500); /* 1501 / 3, rounded */
    rfc2544_tally_add(&t, 0); /* a repetition that passed nothing counts */
    CHECK(t.min == 0 && rfc2544_tally_mean(&t) == 375);
}
