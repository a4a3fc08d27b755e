/* SPDX-License-Identifier: MIT */
/* tools/bench/bgp_bench.c: BGP UPDATE ingest on one core. A recorded
 * session (every byte a daemon sent: tools/bgp/probe.c, BGP_PROBE_RECORD)
 * replayed from memory through what the kernel's speaker does with each
 * UPDATE: framing, parsing and RFC 7606's checks (bgp/bgp_update.c),
 * Adj-RIB-In, the decision and the Loc-RIB (bgp/bgp_import.c,
 * bgp/bgp_rib.c), and each best path into the IPv4 or IPv6 FIB (net/route,
 * the kernel's tables). TCP receive is not in it (tools/bench/tcp measures
 * hayate's TCP). Prints prefixes a second, the median of --reps runs each
 * on fresh tables, beside the reference the caller measured (BIRD taking
 * the same table from another BIRD: tools/bench/bgp_ref.py).
 *
 *   bgp_bench STREAM [--reps N] [--huge] [--ref NAME PREFIXES_PER_S] [--tag TEXT] */
#include <malloc.h>

#include "bench_util.h"

#include "bgp/bgp_import.h"

int bench_huge;

static struct route4 *fib4;
static struct route6 *fib6;
static uint64_t fib_ops;

static void *b_alloc(void *ctx, size_t size) { return calloc(1, size); }
static void b_free(void *ctx, void *p, size_t size) { free(p); }

static uint32_t host32(const uint8_t *a) { return (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | a[2] << 8 | a[3]; }

/* As the kernel: a best path into the FIB (one next hop here), none out. */
static void best_changed(void *ctx, const struct bgp_route *r, const struct bgp_path *best,
                         const struct bgp_path *old)
{
    fib_ops++;
    if (r->p.afi == BGP_AFI_IPV4)
        best ? route4_add(fib4, host32(r->p.addr), r->p.len, 1) : route4_del(fib4, host32(r->p.addr), r->p.len);
    else
        best ? route6_add(fib6, r->p.addr, r->p.len, 1) : route6_del(fib6, r->p.addr, r->p.len);
}

static void pace_fib(struct bgp_fib_pace *pace)
{
    struct route_stats s4, s6;
    route4_stats(fib4, &s4);
    route6_stats(fib6, &s6);
    uint32_t deferred = route4_deferred(fib4) + route6_deferred(fib6);
    switch (bgp_fib_pace(pace, fib_ops, deferred, (uint64_t)s4.prefixes + s6.prefixes)) {
    case BGP_FIB_DEFER:
        route4_defer(fib4, true);
        route6_defer(fib6, true);
        break;
    case BGP_FIB_REBUILD:
        route4_defer(fib4, false);
        route6_defer(fib6, false);
        break;
    default:
        break;
    }
}

/* As the kernel's heap, mapped before any clock starts (on 2 MiB pages with
 * --huge): every allocation from the brk heap, which keeps what is freed,
 * so that replays do not time the host's page faults on fresh memory. */
static void premap_heap(size_t bytes)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    uint8_t *p = bench_alloc(NULL, bytes, 64); /* 2 MiB pages with --huge */
    if (!p)
        return;
    for (size_t i = 0; i < bytes; i += 4096)
        ((volatile uint8_t *)p)[i] = 1; /* a memset before free would be optimised away */
    free(p);
}

/* One replay on fresh tables: seconds, and the prefixes it carried. */
static double replay(const uint8_t *s, size_t len, uint64_t *prefixes, uint64_t *updates)
{
    struct route_cfg cfg4 = bench_route_cfg(ROUTE_V4), cfg6 = bench_route_cfg(ROUTE_V6);
    fib4 = route4_create(&cfg4);
    fib6 = route6_create(&cfg6);
    static const struct bgp_alloc al = {.alloc = b_alloc, .free = b_free};
    static const struct bgp_rib_ops ops = {.best_changed = best_changed};
    static struct bgp_rib rib;
    static struct bgp_update u;
    bgp_rib_init(&rib, &al, &ops, 65001, 0x0a000001);
    struct bgp_peer_facts f = {.as = 65002, .router_id = 0x0a000002, .ebgp = true, .afi = BGP_AFI_IPV4};
    bgp_rib_set_peer(&rib, 1, &f);
    struct bgp_update_ctx ctx = {.as4 = true, .ebgp = true, .peer_as = 65002};
    struct bgp_import_counts n = {0};
    static const uint8_t self4[4], self6[16];
    *updates = 0;
    struct bgp_fib_pace pace = {0};
    size_t next_tick = 0;
    double t0 = bench_now();
    for (size_t off = 0; off < len;) {
        if (off >= next_tick) { /* the kernel paces the FIB once a tick (10 ms): here every 256 KB */
            next_tick = off + (256u << 10);
            pace_fib(&pace);
        }
        uint16_t mlen;
        uint8_t type;
        struct bgp_error err;
        if (bgp_msg_frame(s + off, len - off, &mlen, &type, &err) != 0)
            break;
        if (type == BGP_UPDATE) {
            bgp_update_parse(s + off, mlen, &ctx, &u);
            bgp_import(&rib, 1, &u, true, self4, self6, &n);
            (*updates)++;
        }
        off += mlen;
    }
    route4_defer(fib4, false); /* the stream has ended: what waits goes in */
    route6_defer(fib6, false);
    double t = bench_now() - t0;
    *prefixes = n.announced + n.withdrawn;
    /* every best path in the FIB, and lookups see it (not only the RIB) */
    struct route_stats s4, s6;
    struct bgp_rib_stats rs;
    route4_stats(fib4, &s4);
    route6_stats(fib6, &s6);
    bgp_rib_stats(&rib, &rs);
    if ((uint64_t)s4.prefixes + s6.prefixes != rs.prefixes || route4_deferred(fib4) || route6_deferred(fib6)) {
        fprintf(stderr, "bgp_bench: the FIB holds %u + %u prefixes, the RIB %llu\n", s4.prefixes, s6.prefixes,
                (unsigned long long)rs.prefixes);
        exit(1);
    }
    bgp_rib_fini(&rib);
    route4_destroy(fib4);
    route6_destroy(fib6);
    return t;
}

int main(int argc, char **argv)
{
    int reps = 5;
    const char *ref_name = "", *tag = "";
    double ref = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: bgp_bench STREAM [--reps N] [--huge] [--ref NAME PREFIXES_PER_S] [--tag TEXT]\n");
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--huge"))
            bench_huge = 1;
        else if (!strcmp(argv[i], "--ref") && i + 2 < argc) {
            ref_name = argv[++i];
            ref = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--tag") && i + 1 < argc)
            tag = argv[++i];
    }
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) {
        fprintf(stderr, "bgp_bench: cannot read %s\n", argv[1]);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    size_t len = (size_t)ftell(fp);
    rewind(fp);
    uint8_t *s = malloc(len ? len : 1);
    if (fread(s, 1, len, fp) != len)
        return 1;
    fclose(fp);
    premap_heap((size_t)1 << 30);
    double t[64];
    uint64_t prefixes = 0, updates = 0;
    if (reps < 1 || reps > 64)
        reps = 5;
    for (int r = 0; r < reps; r++)
        t[r] = replay(s, len, &prefixes, &updates);
    double med = bench_median(t, reps);
    fprintf(stderr, "bgp_bench: %llu prefixes in %llu UPDATEs (%zu bytes): median %.3f s, %.0f ns a prefix\n",
            (unsigned long long)prefixes, (unsigned long long)updates, len, med, med * 1e9 / (double)prefixes);
    char name[160];
    snprintf(name, sizeof name, "BGP UPDATE ingest, full table (parse, RIB, FIB)%s", tag);
    bench_emit(name, "prefixes/s", (double)prefixes / med, ref_name, ref);
    free(s);
    return 0;
}
