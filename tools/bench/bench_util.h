/* SPDX-License-Identifier: MIT */
/* tools/bench/bench_util.h: what the host benchmark programs share: time,
 * medians, reading gzip'd data files, the JSON-lines output that
 * tools/bench.py collects, and an allocator for net/ tables. */
#ifndef TOOLS_BENCH_UTIL_H
#define TOOLS_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "net/route/route.h"
#include "tests/support/host_cpu.h"

/* Each lookup figure: reps x BENCH_SLICES timed passes a side over slices of
 * the address array, interleaved, alternating which side goes first. A
 * slice must be long (a full pass here): the two sides evict each other's
 * tables from the caches, and rte_lpm's are 25 to 50 times bigger. */
#define BENCH_SLICES 1
/* And each timed pass follows an untimed one over its first 1/BENCH_WARM,
 * on the same side: a pass starts with its own table in the caches, as on
 * a router's core, not with the other side's (which cost the smaller
 * table up to 15% in IPv4 lookups in table prefixes on a Xeon VM). */
#define BENCH_WARM 16

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline uint64_t bench_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The whole decompressed file, NUL-terminated; NULL if it cannot be read. */
static inline char *bench_read_gz(const char *path, size_t *len)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n + 65536 + 1 > cap)
            buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, 65536, f);
        if (got == 0)
            break;
        n += got;
    }
    int rc = pclose(f);
    if (rc != 0 || n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* One result line for tools/bench.py; ratio is value / reference_value. */
static inline void bench_emit(const char *name, const char *unit, double value, const char *ref,
                              double ref_value)
{
    printf("{\"name\": \"%s\", \"unit\": \"%s\", \"value\": %.6g, \"reference\": \"%s\", "
           "\"reference_value\": %.6g, \"ratio\": %.4g}\n",
           name, unit, value, ref, ref_value, ref_value ? value / ref_value : 0.0);
    fflush(stdout);
}

/* Set by --huge: big tables on 2 MiB pages, as in the kernel. */
extern int bench_huge;

static void *bench_alloc(void *ctx, size_t size, size_t align)
{
    (void)ctx;
    if (bench_huge && size >= (1u << 20)) {
        size_t huge = 2u << 20, len = (size + huge - 1) / huge * huge;
        void *p = aligned_alloc(huge, len);
        if (p)
            madvise(p, len, MADV_HUGEPAGE);
        return p;
    }
    return aligned_alloc(align, (size + align - 1) / align * align);
}

static void bench_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    (void)size;
    free(p);
}

/* The lookup path of fam's tables, as the kernel takes it
 * (route_host_path: timed once a process, said on stderr). */
static inline struct route_cfg bench_route_cfg(enum route_family fam)
{
    struct route_cfg c = {{bench_alloc, bench_free, NULL}, NULL, true, false, false};
    route_cfg_path(&c, route_host_path(fam, &c.alloc));
    return c;
}

#endif
