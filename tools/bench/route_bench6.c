/* SPDX-License-Identifier: MIT */
/* tools/bench/route_bench6.c: the IPv6 half of route_bench (route_bench.c):
 * net/route/route6.h against DPDK rte_lpm6 on rib-v6-2024. */
#include <rte_errno.h>
#include <rte_lpm6.h>

#include "net/route/route6.h"
#include "tools/bench/bench_util.h"
#include "tools/bench/route_load.h"

void bench_v6(const char *dir, int lookups_only, int hayate_only, int nreps, const char *label);

static double time_v6_hayate(const struct route6 *t, uint8_t (*a)[16], uint32_t *out, uint32_t n)
{
    const uint32_t b = route_bench_burst;
    for (uint32_t i = 0; i + b <= n / BENCH_WARM; i += b) /* untimed */
        route6_lookup_burst(t, (const uint8_t(*)[16])(a + i), out + i, b);
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += b)
        route6_lookup_burst(t, (const uint8_t(*)[16])(a + i), out + i, n - i < b ? n - i : b);
    return n / (bench_now() - t0) / 1e6;
}

static double time_v6_lpm(struct rte_lpm6 *l, uint8_t (*a)[16], int32_t *out, uint32_t n)
{
    const uint32_t b = route_bench_burst;
    for (uint32_t i = 0; i + b <= n / BENCH_WARM; i += b) /* untimed */
        rte_lpm6_lookup_bulk_func(l, a + i, out + i, b);
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += b)
        rte_lpm6_lookup_bulk_func(l, a + i, out + i, n - i < b ? n - i : b);
    return n / (bench_now() - t0) / 1e6;
}

/* As v4_lookups in route_bench.c: checked, then interleaved slices. */
static void v6_lookups(const struct route6 *t, struct rte_lpm6 *l, uint8_t (*a)[16], int nreps,
                       const char *name)
{
    uint32_t *o1 = malloc(NADDR6 * 4);
    int32_t *o2 = malloc(NADDR6 * 4);
    double h[BENCH_SLICES * 64], r[BENCH_SLICES * 64] = {0};
    int n = nreps * BENCH_SLICES;
    time_v6_hayate(t, a, o1, NADDR6);
    if (l)
        time_v6_lpm(l, a, o2, NADDR6);
    size_t diff = 0;
    for (uint32_t i = 0; i < NADDR6 && l; i++)
        diff += o1[i] != (o2[i] < 0 ? 0u : (uint32_t)o2[i]);
    if (diff)
        fprintf(stderr, "route_bench: %s: %zu results differ from rte_lpm6\n", name, diff);
    for (int i = 0; i < n; i++) {
        uint32_t w = NADDR6 / BENCH_SLICES, off = (uint32_t)(i % BENCH_SLICES) * w;
        if (i % 2 == 0)
            h[i] = time_v6_hayate(t, a + off, o1 + off, w);
        if (l)
            r[i] = time_v6_lpm(l, a + off, o2 + off, w);
        if (i % 2)
            h[i] = time_v6_hayate(t, a + off, o1 + off, w);
    }
    bench_emit(name, "Mlookups/s", bench_median(h, n), l ? "rte_lpm6" : "", bench_median(r, n));
    free(o1);
    free(o2);
}

void bench_v6(const char *dir, int lookups_only, int hayate_only, int nreps, const char *label)
{
    char path[4096], name[128];
    size_t n;
    snprintf(path, sizeof(path), "%s/rib-v6-2024.txt.gz", dir);
    struct route6_prefix *p = read_v6(path, &n);
    if (p == NULL) {
        fprintf(stderr, "route_bench: cannot read %s\n", path);
        exit(1);
    }
    fprintf(stderr, "route_bench: v6: %zu prefixes\n", n);
    uint8_t(*uni)[16] = malloc(NADDR6 * 16), (*in)[16] = malloc(NADDR6 * 16);
    v6_addresses(p, n, uni, in);
    double loads[64], lpm_load = 0;
    struct route6 *t = NULL;
    for (int i = 0; i < nreps; i++) {
        route6_destroy(t);
        t = load_v6(p, n, &loads[i]);
    }
    struct rte_lpm6 *l = hayate_only ? NULL : load_lpm6(p, n, &lpm_load);
    snprintf(name, sizeof(name), "v6 lookups, addresses in table prefixes%s", label);
    v6_lookups(t, l, in, nreps, name);
    snprintf(name, sizeof(name), "v6 lookups, uniform random in 2000::/3%s", label);
    v6_lookups(t, l, uni, nreps, name);
    if (!lookups_only) {
        struct route_stats st;
        route6_stats(t, &st);
        double lpm_bytes = (double)(1u << 24) * 4 + (double)LPM6_TBL8S * 256 * 4;
        bench_emit("v6 table memory", "MiB", (double)st.fib_bytes / 1048576,
                   "rte_lpm6 tbl24+tbl8", lpm_bytes / 1048576);
        bench_emit("v6 load full table", "s", bench_median(loads, nreps), "rte_lpm6", lpm_load);
    }
    route6_destroy(t);
    if (l)
        rte_lpm6_free(l);
    free(uni);
    free(in);
    free(p);
}
