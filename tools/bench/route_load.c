/* SPDX-License-Identifier: MIT */
/* tools/bench/route_load.c: the route benchmarks' tables (route_load.h):
 * the real tables in ../shared/data read into prefixes, the address arrays
 * the lookups take, and the same prefixes loaded into our route4/route6 and
 * into DPDK rte_lpm/rte_lpm6. route_bench and fwd_bench both build from
 * here, so they measure the same tables the same way. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <sched.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>

#include "tools/bench/route_load.h"
#include "tools/bench/bench_util.h"

int bench_huge;

void eal_lcore_here(char *buf, size_t len)
{
    cpu_set_t cpus;
    int cpu = 0;
    if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
        while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &cpus))
            cpu++;
    snprintf(buf, len, "0@%d", cpu);
}

/* Route-file lines to prefixes; next hops are per-prefix pseudo-random
 * (1..65535), the case where leaf compression helps least. */
struct route4_prefix *read_v4(const char *path, size_t *n)
{
    size_t len;
    char *text = bench_read_gz(path, &len);
    if (text == NULL)
        return NULL;
    size_t cap = 1 << 20;
    struct route4_prefix *p = malloc(cap * sizeof(*p));
    uint64_t s = 1;
    *n = 0;
    for (char *line = strtok(text, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        uint32_t a;
        unsigned l;
        if (!route4_parse(line, strlen(line), &a, &l))
            continue;
        if (*n == cap)
            p = realloc(p, (cap *= 2) * sizeof(*p));
        p[(*n)++] = (struct route4_prefix){a, l, 1 + (uint32_t)(bench_rand(&s) % 65535)};
    }
    free(text);
    return p;
}

void v4_addresses(const struct route4_prefix *p, size_t n, uint32_t *uni, uint32_t *in)
{
    uint64_t s = 7;
    for (uint32_t i = 0; i < NADDR; i++) {
        uni[i] = (uint32_t)bench_rand(&s);
        const struct route4_prefix *q = &p[bench_rand(&s) % n];
        uint32_t host = q->len == 32 ? 0 : (uint32_t)bench_rand(&s) & (~0u >> q->len);
        in[i] = q->addr | host;
    }
}

void v4_shuffle_first(struct route4_prefix *p, size_t n, size_t k)
{
    uint64_t s = 11;
    for (size_t i = 0; i < k && i + 1 < n; i++) {
        size_t j = i + bench_rand(&s) % (n - i);
        struct route4_prefix x = p[i];
        p[i] = p[j];
        p[j] = x;
    }
}

struct route4 *load_v4(const struct route4_prefix *p, size_t n, double *secs)
{
    struct route_cfg cfg = bench_route_cfg(ROUTE_V4);
    struct route4 *t = route4_create(&cfg);
    double t0 = bench_now();
    if (route4_add_bulk(t, p, n, NULL) != ROUTE_OK) {
        fprintf(stderr, "route_bench: route4_add_bulk failed\n");
        exit(1);
    }
    *secs = bench_now() - t0;
    return t;
}

struct rte_lpm *load_lpm(const struct route4_prefix *p, size_t n, double *secs)
{
    struct rte_lpm_config c = {.max_rules = LPM_RULES, .number_tbl8s = LPM_TBL8S};
    struct rte_lpm *l = rte_lpm_create("bench4", 0, &c);
    if (l == NULL) {
        fprintf(stderr, "route_bench: rte_lpm_create: %s\n", rte_strerror(rte_errno));
        exit(1);
    }
    double t0 = bench_now();
    for (size_t i = 0; i < n; i++)
        if (rte_lpm_add(l, p[i].addr, (uint8_t)p[i].len, p[i].nh) < 0) {
            fprintf(stderr, "route_bench: rte_lpm_add failed at %zu\n", i);
            exit(1);
        }
    *secs = bench_now() - t0;
    return l;
}

struct route6_prefix *read_v6(const char *path, size_t *n)
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
void v6_addresses(const struct route6_prefix *p, size_t n, uint8_t (*uni)[16],
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

struct route6 *load_v6(const struct route6_prefix *p, size_t n, double *secs)
{
    struct route_cfg cfg = bench_route_cfg(ROUTE_V6);
    struct route6 *t = route6_create(&cfg);
    double t0 = bench_now();
    if (route6_add_bulk(t, p, n, NULL) != ROUTE_OK) {
        fprintf(stderr, "route_bench: route6_add_bulk failed\n");
        exit(1);
    }
    *secs = bench_now() - t0;
    return t;
}

struct rte_lpm6 *load_lpm6(const struct route6_prefix *p, size_t n, double *secs)
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
