/* SPDX-License-Identifier: MIT */
/* net/route/route_pick.h: which lookup path is the fastest on this CPU,
 * timed on a small table of each family: a gather is slow on some cores
 * (Intel's with the Downfall microcode fix, AMD's before Zen 4), and
 * there the scalar path can win; IPv4's and IPv6's vector paths gain
 * differently (docs/route.md, "Which path the kernel takes"). The kernel
 * picks at boot (kernel/netsvc/netsvc_lookups.c), the host benchmarks
 * the same way (route_host_path, tests/support/host_cpu.c). */
#ifndef NET_ROUTE_PICK_H
#define NET_ROUTE_PICK_H

#include <stdint.h>

#include "route_common.h"

/* The paths, slowest first; each implies the ones below (AVX2 cores have
 * POPCNT, AVX-512 ones AVX2). */
enum route_path { ROUTE_PATH_PORTABLE, ROUTE_PATH_POPCNT, ROUTE_PATH_AVX2, ROUTE_PATH_AVX512, ROUTE_PATHS };
extern const char *const route_path_names[ROUTE_PATHS];

/* cfg's popcnt, avx2 and avx512 for path. */
void route_cfg_path(struct route_cfg *cfg, unsigned path);

enum route_family { ROUTE_V4, ROUTE_V6 };

#define ROUTE_PICK_PREFIXES 16384
#define ROUTE_PICK_ADDRS 4096
#define ROUTE_PICK_PASSES 8
#define ROUTE_PICK_LOOKUPS (ROUTE_PICK_PASSES * ROUTE_PICK_ADDRS) /* timed in each ns[] */

/* What route_pick_path saw. */
struct route_pick {
    uint64_t ns[ROUTE_PATHS]; /* path p's ns for ROUTE_PICK_LOOKUPS lookups; 0: not timed */
    unsigned wrong;           /* bit p: path p answered otherwise than the portable code (never taken) */
    unsigned best;            /* the path taken: the fastest that answered right, or a later one as fast */
};

/* Each path up to max timed on fam: a table of ROUTE_PICK_PREFIXES random
 * prefixes built with al (IPv4 most /24; IPv6 half /48 and a fifth /32,
 * in six of the /12s the Internet's table uses), ROUTE_PICK_PASSES passes
 * of bursts of 32 over addresses inside them, best of three, paths
 * interleaved, each path's answers checked against the portable code's.
 * Where memory is short, best is max and nothing is timed. The tables stay
 * in the caches: this times the paths' work, not a full table's misses,
 * which only shrink the differences. A later path (wider vectors) within
 * 5% of the fastest is taken instead, so that noise does not flip the
 * pick between boots. Returns best. */
unsigned route_pick_path(const struct route_alloc *al, enum route_family fam, unsigned max, uint64_t (*now_ns)(void),
                         struct route_pick *out);

#endif
