/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/netsvc_lookups.c: which path the route tables' bursts
 * take (route_cfg's popcnt, avx2, avx512; docs/route.md). At boot, for
 * IPv4 and IPv6 apart, the fastest of those the CPU has, timed
 * (net/route/route_pick.h). Under QEMU's TCG, whose timing says nothing
 * about a CPU, the CPU's best untimed. The `lookups` statement names a
 * path; the boot log and `show route summary` say which is in use. */
#include "netsvc_impl.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/arch/x86_64/fpu.h"
#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"
#include "lib/fmt.h"

static unsigned cpu_level; /* the fastest path the CPU has */
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

/* lookups [ipv4|ipv6] auto|portable|popcnt|avx2|avx512: that path from
 * now on, for both families or the one named (auto: each family's
 * fastest, measured at boot), at most what the CPU has. */
static unsigned auto_level[2];

static void set_level(enum route_family fam, unsigned level)
{
    struct route_cfg cfg = {0};
    route_cfg_path(&cfg, level);
    if (fam == ROUTE_V4) {
        route4_set_paths(netsvc.rt4, &cfg);
        netsvc_route_lookups = route_path_names[level];
    } else {
        netsvc6_set_paths(&cfg);
        netsvc_route_lookups6 = route_path_names[level];
    }
}

static int stmt_lookups(int argc, char **argv, char *err, size_t errlen)
{
    bool v4 = argc == 2 || (argc == 3 && strcmp(argv[1], "ipv4") == 0);
    bool v6 = argc == 2 || (argc == 3 && strcmp(argv[1], "ipv6") == 0);
    const char *name = argv[argc - 1];
    unsigned level = ROUTE_PATHS;
    for (unsigned i = 0; (v4 || v6) && i < ROUTE_PATHS && level == ROUTE_PATHS; i++)
        if (strcmp(name, route_path_names[i]) == 0)
            level = i;
    if (level == ROUTE_PATHS && (!(v4 || v6) || strcmp(name, "auto") != 0)) {
        fmt_snprintf(err, errlen, "usage: lookups [ipv4|ipv6] auto|portable|popcnt|avx2|avx512");
        return -1;
    }
    if (level != ROUTE_PATHS && level > cpu_level) {
        fmt_snprintf(err, errlen, "this CPU's lookups go up to %s, not %s", route_path_names[cpu_level], name);
        return -1;
    }
    if (v4)
        set_level(ROUTE_V4, level == ROUTE_PATHS ? auto_level[ROUTE_V4] : level);
    if (v6)
        set_level(ROUTE_V6, level == ROUTE_PATHS ? auto_level[ROUTE_V6] : level);
    return 0;
}

/* The boot line of fam's timing: each path's ns a lookup, and any path
 * whose answers were wrong (a fault of ours or of the CPU's: not taken). */
static void report(enum route_family fam, const struct route_pick *pk)
{
    char line[160];
    size_t n = 0;
    for (unsigned l = 0; l <= cpu_level; l++)
        n += (size_t)fmt_snprintf(line + n, sizeof(line) - n, "%s%s %lu.%lu%s", l ? ", " : "", route_path_names[l],
                                  pk->ns[l] / ROUTE_PICK_LOOKUPS, pk->ns[l] * 10 / ROUTE_PICK_LOOKUPS % 10,
                                  (pk->wrong >> l) & 1 ? " (WRONG ANSWERS)" : "");
    kprintf("route: %s lookups %s, timed on this CPU (ns a lookup, %u random prefixes: %s)\n",
            fam == ROUTE_V4 ? "IPv4" : "IPv6", route_path_names[pk->best], ROUTE_PICK_PREFIXES, line);
}

void netsvc_lookups_init(struct route_cfg *cfg4, struct route_cfg *cfg6)
{
    bool popcnt = (cpuid(1, 0).ecx >> 23) & 1;
    /* each level implies the ones below: AVX2 cores have POPCNT */
    cpu_level = has_avx512() && popcnt ? ROUTE_PATH_AVX512
                : has_avx2() && popcnt ? ROUTE_PATH_AVX2
                : popcnt               ? ROUTE_PATH_POPCNT
                                       : ROUTE_PATH_PORTABLE;
    if (under_tcg() || cpu_level == ROUTE_PATH_PORTABLE) {
        auto_level[ROUTE_V4] = auto_level[ROUTE_V6] = cpu_level;
        kprintf("route: lookups %s (the CPU's best; %s)\n", route_path_names[cpu_level],
                cpu_level ? "under TCG, not timed" : "nothing else to time");
    } else {
        for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++) {
            struct route_pick pk;
            auto_level[fam] = route_pick_path(&cfg4->alloc, fam, cpu_level, time_now_ns, &pk);
            report(fam, &pk);
        }
    }
    route_cfg_path(cfg4, auto_level[ROUTE_V4]);
    route_cfg_path(cfg6, auto_level[ROUTE_V6]);
    netsvc_route_lookups = route_path_names[auto_level[ROUTE_V4]];
    netsvc_route_lookups6 = route_path_names[auto_level[ROUTE_V6]];
    config_register("lookups", stmt_lookups);
}
