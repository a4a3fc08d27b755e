/* tools/bench/route_bench6.c: the IPv6 half of route_bench (route_bench.c):
 * net/route/route6.h against DPDK rte_lpm6 on rib-v6-2024. */
#include <rte_errno.h>
#include <rte_lpm6.h>

#include "net/route/route6.h"
#include "bench_util.h"

#define BURST 32
#define NADDR6 (1u << 21)
#define LPM6_TBL8S (1u << 16) /* the smallest power of two that takes rib-v6-2024 */

void bench_v6(const char *dir, int lookups_only, int hayate_only, int nreps, const char *label);

static struct route6_prefix *read_v6(const char *path, size_t *n)
{
    size_t len;
    char *text = bench_read_gz(path, &len);
    if (text == NULL)
        return NULL;
    size_t cap = 1 << 18;
    struct route6_prefix *p = malloc(cap * sizeof(*p));
    uint64_t s = 3;
    *n = 0;
    for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        struct route6_prefix q;
        unsigned l;
        if (!route6_parse(line, strlen(line), q.addr, &l))
            continue;
        q.len = l;
        q.nh = 1 + (uint32_t)(bench_rand(&s) % 65535);
        if (*n == cap)
            p = realloc(p, (cap *= 2) * sizeof(*p));
        p[(*n)++] = q;
    }
    free(text);
    return p;
}

/* Uniform over 2000::/3 (global unicast), and inside random prefixes. */
static void v6_addresses(const struct route6_prefix *p, size_t n, uint8_t (*uni)[16],
                         uint8_t (*in)[16])
{
    uint64_t s = 11;
    for (uint32_t i = 0; i < NADDR6; i++) {
        for (unsigned b = 0; b < 16; b += 8) {
            uint64_t x = bench_rand(&s), y = bench_rand(&s);
            memcpy(uni[i] + b, &x, 8);
            memcpy(in[i] + b, &y, 8);
        }
        uni[i][0] = (uint8_t)(0x20 | (uni[i][0] & 0x1f));
        const struct route6_prefix *q = &p[bench_rand(&s) % n];
        for (unsigned b = 0; b < 16; b++) {
            unsigned keep = q->len >= 8 * (b + 1) ? 8 : q->len > 8 * b ? q->len - 8 * b : 0;
            uint8_t m = (uint8_t)(0xff00u >> keep);
            in[i][b] = (uint8_t)((q->addr[b] & m) | (in[i][b] & ~m));
        }
    }
}

static struct route6 *load_v6(const struct route6_prefix *p, size_t n, double *secs)
{
    struct route_cfg cfg = bench_route_cfg();
    struct route6 *t = route6_create(&cfg);
    double t0 = bench_now();
    if (route6_add_bulk(t, p, n, NULL) != ROUTE_OK) {
        fprintf(stderr, "route_bench: route6_add_bulk failed\n");
        exit(1);
    }
    *secs = bench_now() - t0;
    return t;
}

static struct rte_lpm6 *load_lpm6(const struct route6_prefix *p, size_t n, double *secs)
{
    struct rte_lpm6_config c = {.max_rules = (uint32_t)n + 1024, .number_tbl8s = LPM6_TBL8S};
    struct rte_lpm6 *l = rte_lpm6_create("bench6", 0, &c);
    if (l == NULL) {
        fprintf(stderr, "route_bench: rte_lpm6_create: %s\n", rte_strerror(rte_errno));
        exit(1);
    }
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++)
        if (rte_lpm6_add(l, p[i].addr, (uint8_t)p[i].len, p[i].nh) < 0) {
            fprintf(stderr, "route_bench: rte_lpm6_add failed at %zu\n", i);
            exit(1);
        }
    *secs = bench_now() - t0;
    return l;
}

static double time_v6_hayate(const struct route6 *t, uint8_t (*a)[16], uint32_t *out, uint32_t n)
{
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += BURST)
        route6_lookup_burst(t, (const uint8_t(*)[16])(a + i), out + i, BURST);
    return n / (bench_now() - t0) / 1e6;
}

static double time_v6_lpm(struct rte_lpm6 *l, uint8_t (*a)[16], int32_t *out, uint32_t n)
{
    double t0 = bench_now();
    for (uint32_t i = 0; i < n; i += BURST)
        rte_lpm6_lookup_bulk_func(l, a + i, out + i, BURST);
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
