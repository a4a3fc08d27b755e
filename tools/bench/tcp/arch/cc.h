/* SPDX-License-Identifier: MIT */
/* tools/bench/tcp/arch/cc.h: lwIP's compiler and platform glue for the
 * host benchmark build (x86-64, little endian, byte swaps by builtin, as
 * hayate's). */
#ifndef BENCH_ARCH_CC_H
#define BENCH_ARCH_CC_H

#include <stdio.h>
#include <stdlib.h>

#define BYTE_ORDER LITTLE_ENDIAN
#define LWIP_PLATFORM_DIAG(x) do { printf x; } while (0)
#define LWIP_PLATFORM_ASSERT(x) do { fprintf(stderr, "lwip: %s\n", x); abort(); } while (0)
#define LWIP_RAND() ((u32_t)rand())
#define lwip_htons(x) __builtin_bswap16(x)
#define lwip_htonl(x) __builtin_bswap32(x)

#endif
