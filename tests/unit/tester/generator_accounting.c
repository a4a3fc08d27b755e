/* SPDX-License-Identifier: MIT */
/* tests/unit/tester/generator_accounting.c: the traffic generator's
 * receiving side (tester/gen_rx.c, tester/lat_hist.c): a link model that
 * drops, duplicates and reorders known frames must be reported exactly,
 * and a known delay within the histogram's resolution. */
#include <stdlib.h>

#include "tester/gen_rx.h"
#include "tester/lat_hist.h"
#include "tests/unit/check.h"

TEST(lat_buckets_hold_their_values_within_a_32nd)
{
    uint64_t vals[] = {0, 1, 31, 32, 33, 63, 64, 65, 1000, 4095, 4096, 123456789, (1ull << 40) - 1};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint64_t lo, hi, v = vals[i];
        unsigned b = lat_bucket_of(v);
        CHECK(b < LAT_BUCKETS);
        lat_bucket_range(b, &lo, &hi);
        CHECK(lo <= v && v <= hi);
        CHECK((hi - lo) * 32 <= v);
    }
    /* Buckets are consecutive: each starts one past the last one's end. */
    for (unsigned b = 1; b < LAT_BUCKETS; b++) {
        uint64_t lo, hi, plo, phi;
        lat_bucket_range(b - 1, &plo, &phi);
        lat_bucket_range(b, &lo, &hi);
        CHECK_EQ(lo, phi + 1);
    }
    CHECK_EQ(lat_bucket_of(1ull << 50), LAT_BUCKETS - 1);
}

TEST(lat_one_known_delay_is_reported_exactly)
{
    static struct lat_hist h;
    lat_hist_clear(&h);
    for (int i = 0; i < 1000; i++)
        lat_hist_add(&h, 37123);
    CHECK_EQ(h.min_ns, 37123);
    CHECK_EQ(h.max_ns, 37123);
    CHECK_EQ(lat_hist_mean(&h), 37123);
    unsigned pm[] = {500, 900, 990, 999, 1000};
    for (int i = 0; i < 5; i++)
        CHECK_EQ(lat_hist_percentile(&h, pm[i]), 37123);
}

TEST(lat_percentiles_of_a_uniform_spread)
{
    static struct lat_hist h, a, b;
    lat_hist_clear(&a);
    lat_hist_clear(&b);
    for (uint64_t us = 1; us <= 1000; us++)
        lat_hist_add(us % 2 ? &a : &b, us * 1000); /* two cores' halves */
    lat_hist_clear(&h);
    lat_hist_merge(&h, &a);
    lat_hist_merge(&h, &b);
    CHECK_EQ(h.count, 1000);
    CHECK_EQ(h.min_ns, 1000);
    CHECK_EQ(h.max_ns, 1000000);
    CHECK_EQ(lat_hist_mean(&h), 500500);
    struct { unsigned pm; uint64_t want; } cases[] = {{500, 500000}, {900, 900000}, {990, 990000}, {999, 999000}};
    for (int i = 0; i < 4; i++) {
        uint64_t got = lat_hist_percentile(&h, cases[i].pm);
        CHECK(got * 32 >= cases[i].want * 31 && got * 31 <= cases[i].want * 32);
    }
    CHECK_EQ(lat_hist_percentile(&h, 1000), 1000000);
    static struct lat_hist empty;
    lat_hist_clear(&empty);
    CHECK_EQ(lat_hist_percentile(&empty, 500), 0);
}

/* The link model: frames 0..n-1 offered in order; the link drops those
 * with drop(i), sends dup(i) twice, and swaps each pair (i, i+1) with
 * swap(i) (i even). What arrives is accounted as the receiver does. */
struct link_case {
    uint32_t first, n;
    int (*drop)(uint32_t), (*dup)(uint32_t), (*swap)(uint32_t);
};
static int every_97th(uint32_t i) { return i % 97 == 5; }
static int every_31st(uint32_t i) { return i % 31 == 7; }
static int every_50th_pair(uint32_t i) { return i % 100 == 10; }
static int none(uint32_t i) { return 0; }

static void run_link(const struct link_case *c, struct gen_rx_stream *s, uint64_t *drops, uint64_t *dups,
                     uint64_t *swaps)
{
    uint32_t *out = malloc(sizeof *out * c->n * 2);
    size_t k = 0;
    *drops = *dups = *swaps = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        uint32_t seq = c->first + i;
        /* A pair is swapped only when neither is dropped or doubled. */
        if (i % 2 == 0 && i + 1 < c->n && c->swap(i) && !c->drop(i) && !c->drop(i + 1) && !c->dup(i) &&
            !c->dup(i + 1)) {
            out[k++] = seq + 1;
            out[k++] = seq;
            (*swaps)++;
            i++;
            continue;
        }
        if (c->drop(i)) {
            (*drops)++;
            continue;
        }
        out[k++] = seq;
        if (c->dup(i)) {
            out[k++] = seq;
            (*dups)++;
        }
    }
    gen_rx_stream_clear(s);
    for (size_t j = 0; j < k; j++)
        gen_rx_account(s, out[j], 1000 + j);
    free(out);
}

TEST(gen_rx_counts_exactly_what_the_link_did)
{
    static struct gen_rx_stream s;
    struct link_case cases[] = {
        {0, 10000, every_97th, none, none},
        {0, 10000, none, every_31st, none},
        {0, 10000, none, none, every_50th_pair},
        {100, 10000, every_97th, every_31st, every_50th_pair},
        {0xffffff00u, 10000, every_97th, every_31st, every_50th_pair}, /* across the wrap */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t drops, dups, swaps;
        run_link(&cases[i], &s, &drops, &dups, &swaps);
        CHECK(drops + dups + swaps > 0);
        CHECK_EQ(gen_rx_lost(cases[i].n, &s), drops);
        CHECK_EQ(s.dup, dups);
        CHECK_EQ(s.reordered, swaps);
        CHECK_EQ(s.too_late, 0);
        CHECK_EQ(s.rx, cases[i].n - drops + dups);
        CHECK_EQ(s.lat.count, s.rx);
    }
}

TEST(gen_rx_a_frame_older_than_the_window_is_late_not_a_duplicate)
{
    static struct gen_rx_stream s;
    gen_rx_stream_clear(&s);
    for (uint32_t i = 0; i < 3 * GEN_RX_WINDOW; i++)
        if (i != 5)
            gen_rx_account(&s, i, 0);
    gen_rx_account(&s, 5, 0);
    CHECK_EQ(s.too_late, 1);
    CHECK_EQ(s.reordered, 1);
    CHECK_EQ(s.dup, 0);
    CHECK_EQ(gen_rx_lost(3 * GEN_RX_WINDOW, &s), 0);
    /* One just inside the window is still told apart. */
    gen_rx_account(&s, 3 * GEN_RX_WINDOW - GEN_RX_WINDOW, 0);
    CHECK_EQ(s.dup, 1);
    /* A jump ahead by more than the window forgets what was seen. */
    gen_rx_account(&s, 10 * GEN_RX_WINDOW, 0);
    gen_rx_account(&s, 10 * GEN_RX_WINDOW - 1, 0);
    CHECK_EQ(s.dup, 1);
    CHECK_EQ(s.reordered, 2);
}

TEST(gen_rx_cores_summed)
{
    static struct gen_rx_stream a, b, sum;
    gen_rx_stream_clear(&a);
    gen_rx_stream_clear(&b);
    gen_rx_stream_clear(&sum);
    /* One stream spread over two cores by flow: each core's part in order. */
    for (uint32_t i = 0; i < 1000; i++)
        if (i != 500)
            gen_rx_account(i % 3 ? &a : &b, i, 10);
    gen_rx_merge(&sum, &a);
    gen_rx_merge(&sum, &b);
    CHECK_EQ(sum.rx, 999);
    CHECK_EQ(sum.reordered + sum.dup, 0);
    CHECK_EQ(gen_rx_lost(1000, &sum), 1);
    CHECK_EQ(sum.lat.count, 999);
}
