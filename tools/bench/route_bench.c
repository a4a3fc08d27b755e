/* SPDX-License-Identifier: MIT */
/* tools/bench/route_bench.c: the route tables (net/route/route4.h, net/route/route6.h)
 * against DPDK rte_lpm / rte_lpm6 on the real tables in ../shared/data,
 * in one process: the same prefixes, next hops and address arrays for both,
 * lookups in bursts of 32, sides interleaved, medians of repeats. Prints
 * JSON lines (bench_util.h) for tools/bench.py.
 *
 *   route_bench DATA_DIR [--reps N] [--only v4|v6] [--lookups-only]
 *               [--hayate-only] [--huge] [--working-set] [--avx2] [--burst N]
 *               [--tag TEXT]
 *
 * --working-set: IPv4 lookups also in only 1,000, 10,000 and 100,000 of
 * the table's prefixes (drawn at random; the full table loaded): how each
 * side's rate falls as the lines it touches outgrow the caches.
 * --huge: 2 MiB pages for both sides (the system has them reserved);
 * --hayate-only: our lookups alone, no DPDK (for the kernel-flags build).
 * --avx2: our AVX2 bursts even where the CPU has AVX-512 (what a CPU
 * with AVX2 alone runs: route_host_avx512 sees ROUTE_NO_AVX512).
 * --burst N: lookups in bursts of N (1 to 64) on both sides, not 32 (where
 * the vector bursts stop paying: ROUTE4_SIMD_MIN_BURST). */
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "net/route/route4.h"
#include "net/route/route6.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/route_load.h"

uint32_t route_bench_burst = 32;

static int reps = 7;
static const char *tag = "";

struct opts {
    const char *dir;
    int v4, v6, lookups_only, hayate_only, working_set;
};

static double time_v4_hayate(const struct route4 *t, const uint32_t *a, uint32_t *out,
                             uint32_t n)
{
    const uint32_t b = route_bench_burst;
    for (uint32_t i = 0; i + b <= n / BENCH_WARM; i += b) /* untimed */
        route4_lookup_burst(t, a + i, out + i, b);
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += b)
        route4_lookup_burst(t, a + i, out + i, n - i < b ? n - i : b);
    return n / (bench_now() - t0) / 1e6;
}

static double time_v4_lpm(const struct rte_lpm *l, const uint32_t *a, uint32_t *out, uint32_t n)
{
    const uint32_t b = route_bench_burst;
    for (uint32_t i = 0; i + b <= n / BENCH_WARM; i += b) /* untimed */
        rte_lpm_lookup_bulk(l, a + i, out + i, b);
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += b)
        rte_lpm_lookup_bulk(l, a + i, out + i, n - i < b ? n - i : b);
    return n / (bench_now() - t0) / 1e6;
}


/* Lookups on both sides, interleaved; checks that they agree. Without l
 * (--hayate-only) just ours. */
static void v4_lookups(const struct route4 *t, const struct rte_lpm *l, const uint32_t *a,
                       const char *name)
{
    uint32_t *o1 = malloc(NADDR * 4), *o2 = malloc(NADDR * 4);
    double h[BENCH_SLICES * 64], r[BENCH_SLICES * 64] = {0};
    int n = reps * BENCH_SLICES;
    time_v4_hayate(t, a, o1, NADDR);
    if (l)
        time_v4_lpm(l, a, o2, NADDR);
    size_t diff = 0;
    for (uint32_t i = 0; i < NADDR && l; i++) /* rte_lpm flags a hit in bit 24 */
        diff += o1[i] != (o2[i] & RTE_LPM_LOOKUP_SUCCESS ? o2[i] & 0xffffffu : 0);
    /* Alternating which side goes first (bench_util.h, BENCH_SLICES). */
    for (int i = 0; i < n; i++) {
        uint32_t w = NADDR / BENCH_SLICES, off = (uint32_t)(i % BENCH_SLICES) * w;
        if (i % 2 == 0)
            h[i] = time_v4_hayate(t, a + off, o1 + off, w);
        if (l)
            r[i] = time_v4_lpm(l, a + off, o2 + off, w);
        if (i % 2)
            h[i] = time_v4_hayate(t, a + off, o1 + off, w);
    }
    if (diff)
        fprintf(stderr, "route_bench: %s: %zu results differ from rte_lpm\n", name, diff);
    char full[128];
    snprintf(full, sizeof(full), "%s%s", name, tag);
    bench_emit(full, "Mlookups/s", bench_median(h, n), l ? "rte_lpm" : "", bench_median(r, n));
    free(o1);
    free(o2);
}

/* The LINX trace as operations: len 0xff marks a withdraw. */
struct update4 {
    uint32_t addr;
    uint8_t len, withdraw;
    uint16_t nh;
};

static struct update4 *read_updates(const char *path, size_t *n)
{
    size_t len;
    char *text = bench_read_gz(path, &len);
    if (text == NULL)
        return NULL;
    struct update4 *u = malloc((len / 16 + 1) * sizeof(*u));
    char hops[512][40];
    unsigned nhops = 0;
    *n = 0;
    for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        char op[4], pfx[64], hop[40];
        uint32_t a;
        unsigned l, h;
        if (sscanf(line, "%*s %3s %63s %39s", op, pfx, hop) != 3 ||
            !route4_parse(pfx, strlen(pfx), &a, &l))
            continue;
        for (h = 0; h < nhops && strcmp(hops[h], hop); h++)
            ;
        if (h == nhops && nhops < 512)
            strcpy(hops[nhops++], hop);
        u[(*n)++] = (struct update4){a, (uint8_t)l, op[0] == 'w', (uint16_t)(1 + h % 512)};
    }
    free(text);
    return u;
}

static double replay_hayate(struct route4 *t, const struct update4 *u, size_t n)
{
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++) {
        if (u[i].withdraw)
            route4_del(t, u[i].addr, u[i].len);
        else
            route4_add(t, u[i].addr, u[i].len, u[i].nh);
        route4_reclaim(t, route4_epoch(t));
    }
    return (bench_now() - t0) / (double)n * 1e6;
}

static double replay_lpm(struct rte_lpm *l, const struct update4 *u, size_t n)
{
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++) {
        if (u[i].withdraw)
            rte_lpm_delete(l, u[i].addr, u[i].len);
        else
            rte_lpm_add(l, u[i].addr, u[i].len, u[i].nh);
    }
    return (bench_now() - t0) / (double)n * 1e6;
}

static void bench_v4(const struct opts *o)
{
    char path[4096];
    size_t n, nu = 0;
    snprintf(path, sizeof(path), "%s/rib-v4-2024.txt.gz", o->dir);
    struct route4_prefix *p = read_v4(path, &n);
    if (p == NULL) {
        fprintf(stderr, "route_bench: cannot read %s\n", path);
        exit(1);
    }
    fprintf(stderr, "route_bench: v4: %zu prefixes\n", n);
    uint32_t *uni = malloc(NADDR * 4), *in = malloc(NADDR * 4);
    v4_addresses(p, n, uni, in);
    double loads[64], lpm_load = 0;
    struct route4 *t = NULL;
    for (int i = 0; i < reps; i++) {
        route4_destroy(t);
        t = load_v4(p, n, &loads[i]);
    }
    struct rte_lpm *l = NULL;
    if (!o->hayate_only) {
        fprintf(stderr, "route_bench: rte_lpm: adding %zu prefixes (slow)\n", n);
        l = load_lpm(p, n, &lpm_load);
    }
    v4_lookups(t, l, uni, "v4 lookups, uniform random addresses");
    v4_lookups(t, l, in, "v4 lookups, addresses in table prefixes");
    if (o->working_set) {
        struct route4_prefix *sub = malloc(n * sizeof(*sub));
        memcpy(sub, p, n * sizeof(*sub));
        v4_shuffle_first(sub, n, 100000);
        for (size_t k = 1000; k <= 100000 && k <= n; k *= 10) {
            char name[96];
            snprintf(name, sizeof(name), "v4 lookups, addresses in %zu of the table's prefixes", k);
            v4_addresses(sub, k, uni, in);
            v4_lookups(t, l, in, name);
        }
        free(sub);
    }
    if (!o->lookups_only) {
        struct route_stats st;
        route4_stats(t, &st);
        double lpm_bytes = (double)(1u << 24) * 4 + (double)LPM_TBL8S * 256 * 4;
        bench_emit("v4 table memory", "MiB", (double)st.fib_bytes / 1048576, "rte_lpm tbl24+tbl8",
                   lpm_bytes / 1048576);
        bench_emit("v4 control-plane memory", "MiB", (double)st.rib_bytes / 1048576,
                   "rte_lpm rules", (double)LPM_RULES * 8 / 1048576);
        bench_emit("v4 load full table", "s", bench_median(loads, reps), "rte_lpm", lpm_load);
        snprintf(path, sizeof(path), "%s/linx-update-v4-20141217.txt.gz", o->dir);
        struct update4 *u = read_updates(path, &nu);
        if (u) {
            double us[64], lpm_us = replay_lpm(l, u, nu);
            for (int i = 0; i < reps; i++) {
                double s;
                route4_destroy(t);
                t = load_v4(p, n, &s);
                us[i] = replay_hayate(t, u, nu);
            }
            bench_emit("v4 update, LINX replay", "us/update", bench_median(us, reps), "rte_lpm",
                       lpm_us);
            free(u);
        }
    }
    route4_destroy(t);
    if (l)
        rte_lpm_free(l);
    free(uni);
    free(in);
    free(p);
}

void bench_v6(const char *dir, int lookups_only, int hayate_only, int nreps, const char *label);

int main(int argc, char **argv)
{
    struct opts o = {NULL, 1, 1, 0, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            o.v4 = !(o.v6 = !strcmp(argv[++i], "v6"));
        else if (!strcmp(argv[i], "--lookups-only"))
            o.lookups_only = 1;
        else if (!strcmp(argv[i], "--hayate-only"))
            o.hayate_only = o.lookups_only = 1;
        else if (!strcmp(argv[i], "--huge"))
            bench_huge = 1;
        else if (!strcmp(argv[i], "--working-set"))
            o.working_set = 1;
        else if (!strcmp(argv[i], "--avx2") && route_host_avx2())
            setenv("ROUTE_NO_AVX512", "1", 1);
        else if (!strcmp(argv[i], "--avx2")) {
            fprintf(stderr, "route_bench: --avx2: this CPU has no AVX2 (or ROUTE_NO_AVX2 is set)\n");
            return 2;
        }
        else if (!strcmp(argv[i], "--burst") && i + 1 < argc)
            route_bench_burst = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
            tag = argv[++i];
        else
            o.dir = argv[i];
    }
    if (o.dir == NULL || reps < 1 || reps > 64 || route_bench_burst < 1 || route_bench_burst > 64) {
        fprintf(stderr, "usage: route_bench DATA_DIR [--reps N] [--only v4|v6] [--lookups-only]\n");
        return 2;
    }
    /* 2 MiB pages for rte_lpm where the system has them reserved, as for
     * our tables (bench_util.h), else 4 KiB pages for both. */
    char lcores[32];
    eal_lcore_here(lcores, sizeof(lcores));
    char *eal[] = {"route_bench", "--no-pci", "--no-shconf", "--log-level=error", "--lcores", lcores,
                   "-m", "1024", "--no-huge"};
    int neal = bench_huge ? 6 : 9;
    fprintf(stderr, "route_bench: %s pages for both sides\n", bench_huge ? "2 MiB" : "4 KiB");
    if (!o.hayate_only && rte_eal_init(neal, eal) < 0) {
        fprintf(stderr, "route_bench: rte_eal_init: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    if (o.v4)
        bench_v4(&o);
    if (o.v6)
        bench_v6(o.dir, o.lookups_only, o.hayate_only, reps, tag);
    if (!o.hayate_only)
        rte_eal_cleanup();
    return 0;
}
