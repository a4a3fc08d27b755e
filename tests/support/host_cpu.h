/* SPDX-License-Identifier: MIT */
/* tests/support/host_cpu.h: what the host's CPU offers the host builds
 * (unit tests, route differential tests, benchmarks). */
#ifndef TESTS_SUPPORT_HOST_CPU_H
#define TESTS_SUPPORT_HOST_CPU_H

#include <stdbool.h>

/* route_cfg.avx512 here (the host OS has the state on): the CPU has
 * AVX-512 F, VL, DQ and BW, and ROUTE_NO_AVX512 is not in the environment
 * (a run of the AVX2 path; with ROUTE_NO_AVX2 too, of the scalar one).
 * The kernel asks CPUID and XCR0 (kernel/netsvc/netsvc_lookups.c). */
bool route_host_avx512(void);
/* route_cfg.avx2: the CPU has AVX2 and ROUTE_NO_AVX2 is not in the
 * environment (the scalar path where AVX-512 is off too). */
bool route_host_avx2(void);

#endif
