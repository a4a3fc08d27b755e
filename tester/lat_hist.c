/* SPDX-License-Identifier: MIT */
/* tester/lat_hist.c: the log-spaced latency histogram (lat_hist.h). */
#include "lat_hist.h"

void lat_hist_clear(struct lat_hist *h)
{
    *h = (struct lat_hist){.min_ns = UINT64_MAX};
}

unsigned lat_bucket_of(uint64_t ns)
{
    if (ns < LAT_SUB)
        return (unsigned)ns;
    unsigned e = 63u - (unsigned)__builtin_clzll(ns); /* ns in [2^e, 2^(e+1)) */
    if (e >= LAT_MAX_BITS)
        return LAT_BUCKETS - 1;
    unsigned sub = (unsigned)(ns >> (e - LAT_SUB_BITS)) & (LAT_SUB - 1);
    return LAT_SUB + (e - LAT_SUB_BITS) * LAT_SUB + sub;
}

void lat_bucket_range(unsigned b, uint64_t *lo, uint64_t *hi)
{
    if (b < LAT_SUB) {
        *lo = *hi = b;
        return;
    }
    unsigned e = (b - LAT_SUB) / LAT_SUB + LAT_SUB_BITS, sub = (b - LAT_SUB) % LAT_SUB;
    uint64_t width = 1ull << (e - LAT_SUB_BITS);
    *lo = (1ull << e) + sub * width;
    *hi = *lo + width - 1;
}

void lat_hist_add(struct lat_hist *h, uint64_t ns)
{
    h->count++;
    h->sum_ns += ns;
    if (ns < h->min_ns)
        h->min_ns = ns;
    if (ns > h->max_ns)
        h->max_ns = ns;
    h->bucket[lat_bucket_of(ns)]++;
}

void lat_hist_merge(struct lat_hist *h, const struct lat_hist *o)
{
    if (!o->count)
        return;
    h->count += o->count;
    h->sum_ns += o->sum_ns;
    if (o->min_ns < h->min_ns)
        h->min_ns = o->min_ns;
    if (o->max_ns > h->max_ns)
        h->max_ns = o->max_ns;
    for (unsigned i = 0; i < LAT_BUCKETS; i++)
        h->bucket[i] += o->bucket[i];
}

uint64_t lat_hist_percentile(const struct lat_hist *h, unsigned per_mille)
{
    if (!h->count)
        return 0;
    /* The rank of the sample wanted, 1-based, rounded up. */
    uint64_t rank = (h->count * per_mille + 999) / 1000, seen = 0;
    if (rank == 0)
        rank = 1;
    for (unsigned b = 0; b < LAT_BUCKETS; b++) {
        seen += h->bucket[b];
        if (seen < rank)
            continue;
        uint64_t lo, hi;
        lat_bucket_range(b, &lo, &hi);
        uint64_t mid = lo + (hi - lo) / 2;
        return mid < h->min_ns ? h->min_ns : mid > h->max_ns ? h->max_ns : mid;
    }
    return h->max_ns;
}

uint64_t lat_hist_mean(const struct lat_hist *h)
{
    return h->count ? h->sum_ns / h->count : 0;
}
