/* SPDX-License-Identifier: MIT */
/* tests/support/host_cpu.h: what the host's CPU offers the host builds
 * (unit tests, route differential tests, benchmarks). */
#ifndef TESTS_SUPPORT_HOST_CPU_H
#define TESTS_SUPPORT_HOST_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "net/route/route.h"

/* route_cfg.avx512 here (the host OS has the state on): the CPU has
 * AVX-512 F, VL, DQ and BW, and ROUTE_NO_AVX512 is not in the environment
 * (a run of the AVX2 path; with ROUTE_NO_AVX2 too, of the scalar one).
 * The kernel asks CPUID and XCR0 (kernel/netsvc/netsvc_lookups.c). */
bool route_host_avx512(void);
/* route_cfg.avx2: the CPU has AVX2 and ROUTE_NO_AVX2 is not in the
 * environment (the scalar path where AVX-512 is off too). */
bool route_host_avx2(void);
/* CLOCK_MONOTONIC in ns: route_pick_path's clock on the host. */
uint64_t route_host_now_ns(void);
/* The fastest lookup path those allow (ROUTE_PATH_*). */
unsigned route_host_best(void);
/* The path the kernel would take here for fam: route_pick_path's pick,
 * timed once a process with al's memory and said on stderr; where
 * ROUTE_NO_AVX512 or ROUTE_NO_AVX2 names a path, route_host_best untimed.
 * What the benchmarks' tables use (bench_route_cfg). */
unsigned route_host_path(enum route_family fam, const struct route_alloc *al);

#endif
