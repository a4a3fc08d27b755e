/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_lookups.c: which path the route tables' bursts
 * take (route_cfg's popcnt, avx2, avx512; docs/route.md). At boot, for
 * IPv4 and IPv6 apart, the fastest of those the CPU has, timed on a table
 * of random prefixes: a gather is slow on some cores (Intel's with the
 * Downfall microcode fix, AMD's before Zen 4), and there the scalar path
 * can win. Under QEMU's TCG, whose timing says nothing about a CPU, the
 * CPU's best untimed. The `lookups` statement names a path; the boot log
 * and `show route summary` say which is in use. */
#include "netsvc_impl.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/arch/x86_64/fpu.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"
#include "lib/fmt.h"

#define PICK_PREFIXES 16384
#define PICK_ADDRS 4096
#define PICK_PASSES 8
#define PICK_TRIALS 3

/* The paths, slowest first. */
static const char *const path_names[] = {"portable", "popcnt", "avx2", "avx512"};
static unsigned cpu_level; /* the fastest the CPU has */
const char *netsvc_route_lookups = "portable", *netsvc_route_lookups6 = "portable";

/* route_cfg.avx512: AVX-512 F, DQ, BW and VL (CPUID.(7,0):EBX bits 16,
 * 17, 30, 31) and their state on (fpu.c: XCR0's AVX, opmask, ZMM_Hi256
 * and Hi16_ZMM). */
static bool has_avx512(void)
{
    uint32_t ebx = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);
    return (fpu_xcr0() & 0xe4) == 0xe4 && (cpuid(7, 0).ebx & ebx) == ebx;
}

/* route_cfg.avx2: AVX2 (CPUID.(7,0):EBX bit 5) and its state on (XCR0's
 * SSE and AVX). */
static bool has_avx2(void)
{
    return (fpu_xcr0() & 0x6) == 0x6 && (cpuid(7, 0).ebx & (1u << 5));
}

/* QEMU's TCG says so in the hypervisor leaf (target/i386/cpu.c). */
static bool under_tcg(void)
{
    struct cpuid_regs h = cpuid(0x40000000, 0);
    return h.ebx == 0x54474354 && h.ecx == 0x43544743 && h.edx == 0x47435447; /* "TCGTCGTCGTCG" */
}

static void use_level(struct route_cfg *cfg, unsigned level)
{
    cfg->popcnt = level >= 1;
    cfg->avx2 = level >= 2;
    cfg->avx512 = level >= 3;
}

static uint64_t pick_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The families, each timed on a table of its own: the paths' costs differ
 * between them (on a Xeon with AVX-512, IPv4's AVX2 bursts are about as
 * fast as its AVX-512 ones, IPv6's 1.4x slower: docs/route.md). */
enum family { V4, V6 };

/* What one family's timing works on: its table and the addresses. */
struct pick_rig {
    struct route4 *t4;
    struct route6 *t6;
    void *prefixes, *addrs;
    uint32_t *nh;
};

/* IPv4: most /24, the rest /16 to /23, as in the Internet's table. */
static bool fill4(struct pick_rig *g, const struct route_cfg *cfg, uint64_t *s)
{
    struct route4_prefix *p = g->prefixes;
    uint32_t *a = g->addrs;
    if ((g->t4 = route4_create(cfg)) == NULL)
        return false;
    for (unsigned i = 0; i < PICK_PREFIXES; i++) {
        uint64_t r = pick_rand(s);
        uint32_t len = r % 10 < 6 ? 24 : 16 + (uint32_t)(r >> 8) % 8;
        p[i] = (struct route4_prefix){(uint32_t)(r >> 32) & ~(~0u >> len), len, 1 + (uint32_t)(r >> 16) % 64};
    }
    if (route4_add_bulk(g->t4, p, PICK_PREFIXES, NULL) != ROUTE_OK)
        return false;
    for (unsigned i = 0; i < PICK_ADDRS; i++) {
        const struct route4_prefix *q = &p[pick_rand(s) % PICK_PREFIXES];
        a[i] = q->addr | ((uint32_t)pick_rand(s) & (~0u >> q->len));
    }
    return true;
}

/* The host bits of a 64-bit half under a prefix of len (0..64). */
static uint64_t host64(uint32_t len) { return len >= 64 ? 0 : ~0ull >> len; }

static void put_be64(uint8_t *b, uint64_t x)
{
    for (int i = 7; i >= 0; i--, x >>= 8)
        b[i] = (uint8_t)x;
}

/* IPv6: half /48, a fifth /32, the rest /29 to /64, in a few /12s as the
 * Internet's table is (2000::/12, 2400::/12, 2600::/12, 2800::/12,
 * 2a00::/12, 2c00::/12). */
static bool fill6(struct pick_rig *g, const struct route_cfg *cfg, uint64_t *s)
{
    static const uint64_t region[] = {0x200, 0x240, 0x260, 0x280, 0x2a0, 0x2c0};
    struct route6_prefix *p = g->prefixes;
    uint8_t(*a)[16] = g->addrs;
    if ((g->t6 = route6_create(cfg)) == NULL)
        return false;
    for (unsigned i = 0; i < PICK_PREFIXES; i++) {
        uint64_t r = pick_rand(s);
        uint32_t len = r % 10 < 5 ? 48 : r % 10 < 7 ? 32 : 29 + (uint32_t)(r >> 8) % 36;
        uint64_t x = region[(r >> 16) % 6] << 52 | (pick_rand(s) >> 12);
        p[i] = (struct route6_prefix){.len = len, .nh = 1 + (uint32_t)(r >> 24) % 64};
        put_be64(p[i].addr, x & ~host64(len));
    }
    if (route6_add_bulk(g->t6, p, PICK_PREFIXES, NULL) != ROUTE_OK)
        return false;
    for (unsigned i = 0; i < PICK_ADDRS; i++) {
        const struct route6_prefix *q = &p[pick_rand(s) % PICK_PREFIXES];
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x = x << 8 | q->addr[b];
        put_be64(a[i], x | (pick_rand(s) & host64(q->len)));
        put_be64(a[i] + 8, pick_rand(s));
    }
    return true;
}

/* One pass of bursts of 32 over the addresses. */
static void pass(const struct pick_rig *g, enum family fam)
{
    for (unsigned i = 0; i < PICK_ADDRS; i += 32) {
        if (fam == V4)
            route4_lookup_burst(g->t4, (const uint32_t *)g->addrs + i, g->nh + i, 32);
        else
            route6_lookup_burst(g->t6, (const uint8_t(*)[16])g->addrs + i, g->nh + i, 32);
    }
}

/* Each path's time for PICK_PASSES passes of bursts of 32 over addresses
 * inside PICK_PREFIXES random prefixes of fam, the best of PICK_TRIALS,
 * paths interleaved. Returns the fastest level, or cpu_level when memory
 * is short. */
static unsigned measure(const struct route_alloc *al, enum family fam, uint64_t ns[4])
{
    struct route_cfg cfg = {.alloc = *al};
    size_t psize = PICK_PREFIXES * (fam == V4 ? sizeof(struct route4_prefix) : sizeof(struct route6_prefix));
    size_t asize = PICK_ADDRS * (fam == V4 ? 4u : 16u), nsize = PICK_ADDRS * 4u;
    struct pick_rig g = {NULL, NULL, al->alloc(al->ctx, psize, 64), al->alloc(al->ctx, asize, 64),
                         al->alloc(al->ctx, nsize, 64)};
    unsigned best = cpu_level;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    if (!g.prefixes || !g.addrs || !g.nh || !(fam == V4 ? fill4(&g, &cfg, &s) : fill6(&g, &cfg, &s)))
        goto out;
    for (unsigned l = 0; l <= cpu_level; l++)
        ns[l] = UINT64_MAX;
    for (unsigned trial = 0; trial < PICK_TRIALS; trial++)
        for (unsigned l = 0; l <= cpu_level; l++) {
            use_level(&cfg, l);
            if (fam == V4)
                route4_set_paths(g.t4, &cfg);
            else
                route6_set_paths(g.t6, &cfg);
            pass(&g, fam); /* warm */
            uint64_t t0 = time_now_ns();
            for (unsigned k = 0; k < PICK_PASSES; k++)
                pass(&g, fam);
            uint64_t dt = time_now_ns() - t0;
            ns[l] = dt < ns[l] ? dt : ns[l];
        }
    best = 0;
    for (unsigned l = 1; l <= cpu_level; l++)
        best = ns[l] < ns[best] ? l : best;
out:
    if (g.nh)
        al->free(al->ctx, g.nh, nsize);
    if (g.addrs)
        al->free(al->ctx, g.addrs, asize);
    if (g.prefixes)
        al->free(al->ctx, g.prefixes, psize);
    route4_destroy(g.t4);
    route6_destroy(g.t6);
    return best;
}

/* lookups [ipv4|ipv6] auto|portable|popcnt|avx2|avx512: that path from
 * now on, for both families or the one named (auto: each family's
 * fastest, measured at boot), at most what the CPU has. */
static unsigned auto_level[2];

static void set_level(enum family fam, unsigned level)
{
    struct route_cfg cfg = {0};
    use_level(&cfg, level);
    if (fam == V4) {
        route4_set_paths(netsvc.rt4, &cfg);
        netsvc_route_lookups = path_names[level];
    } else {
        netsvc6_set_paths(&cfg);
        netsvc_route_lookups6 = path_names[level];
    }
}

static int stmt_lookups(int argc, char **argv, char *err, size_t errlen)
{
    bool v4 = argc == 2 || (argc == 3 && strcmp(argv[1], "ipv4") == 0);
    bool v6 = argc == 2 || (argc == 3 && strcmp(argv[1], "ipv6") == 0);
    const char *name = argv[argc - 1];
    unsigned level = 4;
    for (unsigned i = 0; (v4 || v6) && i < 4 && level == 4; i++)
        if (strcmp(name, path_names[i]) == 0)
            level = i;
    if (level == 4 && (!(v4 || v6) || strcmp(name, "auto") != 0)) {
        fmt_snprintf(err, errlen, "usage: lookups [ipv4|ipv6] auto|portable|popcnt|avx2|avx512");
        return -1;
    }
    if (level != 4 && level > cpu_level) {
        fmt_snprintf(err, errlen, "this CPU's lookups go up to %s, not %s", path_names[cpu_level], name);
        return -1;
    }
    if (v4)
        set_level(V4, level == 4 ? auto_level[V4] : level);
    if (v6)
        set_level(V6, level == 4 ? auto_level[V6] : level);
    return 0;
}

/* The boot line of fam's timing: each path's ns a lookup. */
static void report(enum family fam, const uint64_t ns[4])
{
    char line[128];
    size_t n = 0;
    for (unsigned l = 0; l <= cpu_level; l++)
        n += (size_t)fmt_snprintf(line + n, sizeof(line) - n, "%s%s %lu.%lu", l ? ", " : "", path_names[l],
                                  ns[l] / (PICK_PASSES * PICK_ADDRS), ns[l] * 10 / (PICK_PASSES * PICK_ADDRS) % 10);
    kprintf("route: %s lookups %s, the fastest on this CPU (ns a lookup, %u random prefixes: %s)\n",
            fam == V4 ? "IPv4" : "IPv6", path_names[auto_level[fam]], PICK_PREFIXES, line);
}

void netsvc_lookups_init(struct route_cfg *cfg4, struct route_cfg *cfg6)
{
    bool popcnt = (cpuid(1, 0).ecx >> 23) & 1;
    /* each level implies the ones below: AVX2 cores have POPCNT */
    cpu_level = has_avx512() && popcnt ? 3 : has_avx2() && popcnt ? 2 : popcnt ? 1 : 0;
    if (under_tcg() || cpu_level == 0) {
        auto_level[V4] = auto_level[V6] = cpu_level;
        kprintf("route: lookups %s (the CPU's best; %s)\n", path_names[cpu_level],
                cpu_level ? "under TCG, not timed" : "nothing else to time");
    } else {
        for (enum family fam = V4; fam <= V6; fam++) {
            uint64_t ns[4] = {0};
            auto_level[fam] = measure(&cfg4->alloc, fam, ns);
            report(fam, ns);
        }
    }
    use_level(cfg4, auto_level[V4]);
    use_level(cfg6, auto_level[V6]);
    netsvc_route_lookups = path_names[auto_level[V4]];
    netsvc_route_lookups6 = path_names[auto_level[V6]];
    config_register("lookups", stmt_lookups);
}
