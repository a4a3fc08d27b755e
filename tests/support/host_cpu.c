/* SPDX-License-Identifier: MIT */
/* tests/support/host_cpu.c: tests/support/host_cpu.h. */
#include "tests/support/host_cpu.h"

#include <stdlib.h>

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
