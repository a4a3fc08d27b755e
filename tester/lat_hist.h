/* SPDX-License-Identifier: MIT */
/* tester/lat_hist.h: a latency histogram with log-spaced buckets (as HDR
 * histograms are): values below 32 ns exact, above that 32 buckets per
 * power of two, so every value lands in a bucket at most 1/32 (3.1%)
 * wide. min, max and the sum are exact; a percentile is its bucket's
 * middle, kept inside [min, max] (one delay only: reported exactly).
 * Values past 2^40 ns (18 minutes) count in the last bucket. */
#ifndef TESTER_LAT_HIST_H
#define TESTER_LAT_HIST_H

#include <stdint.h>

#define LAT_SUB_BITS 5
#define LAT_SUB (1u << LAT_SUB_BITS)
#define LAT_MAX_BITS 40
#define LAT_BUCKETS (LAT_SUB + LAT_SUB * (LAT_MAX_BITS - LAT_SUB_BITS))

struct lat_hist {
    uint64_t count, sum_ns, min_ns, max_ns;
    uint64_t bucket[LAT_BUCKETS];
};

void lat_hist_clear(struct lat_hist *h);
void lat_hist_add(struct lat_hist *h, uint64_t ns);
/* h += o: per-core histograms summed for a report. */
void lat_hist_merge(struct lat_hist *h, const struct lat_hist *o);
/* The value at or below which per_mille thousandths of the samples lie
 * (500: the median, 999: P99.9); 0 when empty. */
uint64_t lat_hist_percentile(const struct lat_hist *h, unsigned per_mille);
uint64_t lat_hist_mean(const struct lat_hist *h);

/* Bucket arithmetic, for tests: the bucket of a value, and the values
 * [lo, hi] a bucket holds. */
unsigned lat_bucket_of(uint64_t ns);
void lat_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi);

#endif
