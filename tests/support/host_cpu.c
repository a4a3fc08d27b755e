/* SPDX-License-Identifier: MIT */
/* tests/support/host_cpu.c: tests/support/host_cpu.h. */
#include "tests/support/host_cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

bool route_host_avx512(void)
{
    return getenv("ROUTE_NO_AVX512") == NULL && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw");
}

bool route_host_avx2(void)
{
    return getenv("ROUTE_NO_AVX2") == NULL && __builtin_cpu_supports("avx2");
}

unsigned route_host_best(void)
{
    return route_host_avx512() ? ROUTE_PATH_AVX512 : route_host_avx2() ? ROUTE_PATH_AVX2 : ROUTE_PATH_POPCNT;
}

uint64_t route_host_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

unsigned route_host_path(enum route_family fam, const struct route_alloc *al)
{
    static int picked[2] = {-1, -1};
    unsigned max = route_host_best();
    if (getenv("ROUTE_NO_AVX512") || getenv("ROUTE_NO_AVX2"))
        return max;
    if (picked[fam] < 0) {
        struct route_pick pk;
        picked[fam] = (int)route_pick_path(al, fam, max, route_host_now_ns, &pk);
        fprintf(stderr, "bench: %s lookups %s, as the kernel would pick it (ns a lookup:",
                fam == ROUTE_V4 ? "IPv4" : "IPv6", route_path_names[picked[fam]]);
        for (unsigned p = 0; p <= max; p++)
            fprintf(stderr, " %s %.1f%s", route_path_names[p], (double)pk.ns[p] / ROUTE_PICK_LOOKUPS,
                    (pk.wrong >> p) & 1 ? " (WRONG ANSWERS)" : "");
        fprintf(stderr, ")\n");
    }
    return (unsigned)picked[fam];
}
