/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_lookups.c: which path the route tables' bursts
 * take (route_cfg's popcnt, avx2, avx512; docs/route.md). At boot, the
 * fastest of those the CPU has, timed on a table of random prefixes: a
 * gather is slow on some cores (Intel's with the Downfall microcode fix,
 * AMD's before Zen 4), and there the scalar path can win. Under QEMU's
 * TCG, whose timing says nothing about a CPU, the CPU's best untimed. The
 * `lookups` statement names a path; the boot log and `show route
 * summary` say which is in use. */
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
const char *netsvc_route_lookups = "portable";

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
    netsvc_route_lookups = path_names[level];
}

static uint64_t pick_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Each path's time for PICK_PASSES passes of bursts of 32 over addresses
 * inside PICK_PREFIXES random prefixes (most /24, the rest /16 to /23, as
 * in the Internet's table), the best of PICK_TRIALS, paths interleaved.
 * Returns the fastest level, or cpu_level when memory is short. */
static unsigned measure(const struct route_alloc *al, uint64_t ns[4])
{
    struct route_cfg cfg = {.alloc = *al};
    size_t psize = PICK_PREFIXES * sizeof(struct route4_prefix), asize = PICK_ADDRS * 4u;
    struct route4 *t = route4_create(&cfg);
    struct route4_prefix *p = al->alloc(al->ctx, psize, 64);
    uint32_t *a = al->alloc(al->ctx, asize, 64), *nh = al->alloc(al->ctx, asize, 64);
    unsigned best = cpu_level;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    if (!t || !p || !a || !nh)
        goto out;
    for (unsigned i = 0; i < PICK_PREFIXES; i++) {
        uint64_t r = pick_rand(&s);
        uint32_t len = r % 10 < 6 ? 24 : 16 + (uint32_t)(r >> 8) % 8;
        p[i] = (struct route4_prefix){(uint32_t)(r >> 32) & ~(~0u >> len), len, 1 + (uint32_t)(r >> 16) % 64};
    }
    if (route4_add_bulk(t, p, PICK_PREFIXES, NULL) != ROUTE_OK)
        goto out;
    for (unsigned i = 0; i < PICK_ADDRS; i++) {
        const struct route4_prefix *q = &p[pick_rand(&s) % PICK_PREFIXES];
        a[i] = q->addr | ((uint32_t)pick_rand(&s) & (~0u >> q->len));
    }
    for (unsigned l = 0; l <= cpu_level; l++)
        ns[l] = UINT64_MAX;
    for (unsigned trial = 0; trial < PICK_TRIALS; trial++)
        for (unsigned l = 0; l <= cpu_level; l++) {
            use_level(&cfg, l);
            route4_set_paths(t, &cfg);
            route4_lookup_burst(t, a, nh, PICK_ADDRS); /* warm */
            uint64_t t0 = time_now_ns();
            for (unsigned pass = 0; pass < PICK_PASSES; pass++)
                for (unsigned i = 0; i < PICK_ADDRS; i += 32)
                    route4_lookup_burst(t, a + i, nh + i, 32);
            uint64_t dt = time_now_ns() - t0;
            ns[l] = dt < ns[l] ? dt : ns[l];
        }
    best = 0;
    for (unsigned l = 1; l <= cpu_level; l++)
        best = ns[l] < ns[best] ? l : best;
out:
    if (nh)
        al->free(al->ctx, nh, asize);
    if (a)
        al->free(al->ctx, a, asize);
    if (p)
        al->free(al->ctx, p, psize);
    route4_destroy(t);
    return best;
}

/* lookups auto|portable|popcnt|avx2|avx512: that path from now on (auto:
 * the CPU's fastest, measured at boot), at most what the CPU has. */
static unsigned auto_level;

static int stmt_lookups(int argc, char **argv, char *err, size_t errlen)
{
    unsigned level = argc == 2 && strcmp(argv[1], "auto") == 0 ? auto_level : 4;
    for (unsigned i = 0; argc == 2 && i < 4 && level == 4; i++)
        if (strcmp(argv[1], path_names[i]) == 0)
            level = i;
    if (level == 4) {
        fmt_snprintf(err, errlen, "usage: lookups auto|portable|popcnt|avx2|avx512");
        return -1;
    }
    if (level > cpu_level) {
        fmt_snprintf(err, errlen, "this CPU's lookups go up to %s, not %s", path_names[cpu_level], argv[1]);
        return -1;
    }
    struct route_cfg cfg = {0};
    use_level(&cfg, level);
    route4_set_paths(netsvc.rt4, &cfg);
    netsvc6_set_paths(&cfg);
    return 0;
}

void netsvc_lookups_init(struct route_cfg *cfg)
{
    bool popcnt = (cpuid(1, 0).ecx >> 23) & 1;
    /* each level implies the ones below: AVX2 cores have POPCNT */
    cpu_level = has_avx512() && popcnt ? 3 : has_avx2() && popcnt ? 2 : popcnt ? 1 : 0;
    uint64_t ns[4] = {0};
    if (under_tcg() || cpu_level == 0) {
        auto_level = cpu_level;
        kprintf("route: lookups %s (the CPU's best; %s)\n", path_names[cpu_level],
                cpu_level ? "under TCG, not timed" : "nothing else to time");
    } else {
        auto_level = measure(&cfg->alloc, ns);
        char line[128];
        size_t n = 0;
        for (unsigned l = 0; l <= cpu_level; l++)
            n += (size_t)fmt_snprintf(line + n, sizeof(line) - n, "%s%s %lu.%lu", l ? ", " : "", path_names[l],
                                      ns[l] / (PICK_PASSES * PICK_ADDRS),
                                      ns[l] * 10 / (PICK_PASSES * PICK_ADDRS) % 10);
        kprintf("route: lookups %s, the fastest on this CPU (ns a lookup, %u random prefixes: %s)\n",
                path_names[auto_level], PICK_PREFIXES, line);
    }
    use_level(cfg, auto_level);
    config_register("lookups", stmt_lookups);
}
