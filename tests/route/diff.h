/* SPDX-License-Identifier: MIT */
/* tests/route/diff.h: what the optimised differential route-table tests
 * (diff.c, diff6.c) share: results, data files, an allocator, and the
 * reference: a table's prefixes flattened into disjoint address ranges,
 * each with the next hop of its longest match (a sweep over the sorted
 * prefixes with a stack of the enclosing ones). */
#ifndef TESTS_ROUTE_DIFF_H
#define TESTS_ROUTE_DIFF_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/route/route.h"
#include "tests/support/host_cpu.h"

typedef unsigned __int128 u128;

/* One prefix of either family: key left-aligned in 128 bits. */
struct dprefix {
    u128 key;
    unsigned len;
    uint32_t nh;
};

/* Next hop nh for keys lo..hi (inclusive). */
struct drange {
    u128 lo, hi;
    uint32_t nh;
};

struct dref {
    struct drange *r;
    size_t n, cap;
};

extern int diff_passed, diff_failed;

void diff_result(const char *name, long bad);
char *diff_read_gz(const char *path, size_t *len);
struct route_cfg diff_cfg(void);
/* Set: tables built from here on take the AVX2 bursts where the host has
 * AVX-512 too (the path of a CPU with AVX2 alone). */
extern bool diff_avx2_only;
uint64_t diff_rand(uint64_t *s);
u128 diff_last(const struct dprefix *p, unsigned bits);
/* Sorts p (n entries, no duplicates) and flattens it over a bits-wide key
 * space into ref. */
void diff_flatten(struct dprefix *p, size_t n, unsigned bits, struct dref *ref);
/* The range holding key (binary search). */
const struct drange *diff_find(const struct dref *ref, u128 key);

#endif
