/* SPDX-License-Identifier: MIT */
/* net/route/route_simd.h: what the vector bursts share (route4.c,
 * route6.c; route_cfg.avx512 and .avx2): the targets they are compiled
 * for, a 64-bit lane's bit count, lane masks and the store of a vector's
 * next hops (route_store8). With AVX-512, IPv6 walks 8 lanes of
 * 64 bits in 512-bit vectors, IPv4 8 lanes of 32 bits in 256-bit ones
 * (with AVX-512 VL's masked gathers); with AVX2 alone, IPv4 the same 8
 * lanes and IPv6 4 lanes of 64 bits, with AVX2's gathers. */
#ifndef NET_ROUTE_ROUTE_SIMD_H
#define NET_ROUTE_ROUTE_SIMD_H

#include <stdint.h>

#if defined(__x86_64__)
/* The compiler's vector types (vector_size), its operators on them (+, &,
 * <<, > ...) and its x86 builtins: no header (DESIGN.md, Boundaries). A
 * lane mask is an AVX-512 mask register (uint8_t, a bit a lane) or, for
 * AVX2, a vector whose lanes are all ones or all zeros. */
typedef int vi32x4 __attribute__((vector_size(16)));
typedef unsigned vu32x4 __attribute__((vector_size(16)));
typedef int vi32x8 __attribute__((vector_size(32)));
typedef unsigned vu32x8 __attribute__((vector_size(32)));
typedef long long vi64x4 __attribute__((vector_size(32)));
typedef unsigned long long vu64x4 __attribute__((vector_size(32)));
typedef long long vi64x8 __attribute__((vector_size(64)));
typedef unsigned long long vu64x8 __attribute__((vector_size(64)));
typedef char vc8x32 __attribute__((vector_size(32)));
typedef char vc8x64 __attribute__((vector_size(64)));
typedef float vf32x8 __attribute__((vector_size(32)));
typedef double vf64x4 __attribute__((vector_size(32)));

/* The bursts take the vector path from this many addresses on. Below it
 * the gathers cost a forwarded packet more than they save (fwd_bench on a
 * Xeon VM, AVX-512 and AVX2, ns a packet against the scalar path's:
 * IPv4 at bursts of 16 43-46 against 40, 24 37-40 against 35-37, 32
 * 35-36.5 against 37.5-39; IPv6 at 16 54-60 against 54, 24 43-50 against
 * 49-51, 32 44-46 against 51). The lookups alone gain from smaller
 * bursts (route_bench --burst: 12 in IPv4, 8 in IPv6), the pipeline
 * around them does not. */
#define ROUTE4_SIMD_MIN_BURST 32
#define ROUTE6_SIMD_MIN_BURST 24

/* F, VL, DQ and BW: every AVX-512 server core since Skylake-SP, and Zen 4. */
#define ROUTE_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,popcnt")))
/* Haswell on, and every AMD core since Zen (Zen 1-3 and Intel's client
 * cores have no AVX-512). A subset of ROUTE_AVX512: what it marks
 * inlines into both. */
#define ROUTE_AVX2 __attribute__((target("avx2,popcnt")))
#define ROUTE_INLINE static inline __attribute__((always_inline))

/* Each nibble's bit count, for VPSHUFB (a 16-byte table a 128-bit lane). */
#define ROUTE_NIBBLE_BITS 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4

/* Each 64-bit lane's bit count from AVX-512 BW alone (VPOPCNTQ came only
 * with Ice Lake): each byte's two nibbles counted through a 16-entry
 * table (VPSHUFB), the bytes summed per lane (VPSADBW). */
ROUTE_AVX512 ROUTE_INLINE vu64x8 route_popcnt64(vu64x8 x)
{
    const vc8x64 table = {ROUTE_NIBBLE_BITS, ROUTE_NIBBLE_BITS, ROUTE_NIBBLE_BITS, ROUTE_NIBBLE_BITS};
    vc8x64 lo = __builtin_ia32_pshufb512(table, (vc8x64)x & 0x0f);
    vc8x64 hi = __builtin_ia32_pshufb512(table, (vc8x64)(x >> 4) & 0x0f);
    return (vu64x8)__builtin_ia32_psadbw512(lo + hi, (vc8x64){0});
}

/* The same for the four lanes of a 256-bit vector (the IPv4 bursts', and
 * IPv6's with AVX2), in AVX2 alone. */
ROUTE_AVX2 ROUTE_INLINE vu64x4 route_popcnt64_256(vu64x4 x)
{
    const vc8x32 table = {ROUTE_NIBBLE_BITS, ROUTE_NIBBLE_BITS};
    vc8x32 lo = __builtin_ia32_pshufb256(table, (vc8x32)x & 0x0f);
    vc8x32 hi = __builtin_ia32_pshufb256(table, (vc8x32)(x >> 4) & 0x0f);
    return (vu64x4)__builtin_ia32_psadbw256(lo + hi, (vc8x32){0});
}

/* AVX-512 lane masks from the lanes' sign bits (VPMOVD2M, VPMOVQ2M). */
ROUTE_AVX512 ROUTE_INLINE uint8_t route_signs8(vu32x8 v) { return __builtin_ia32_cvtd2mask256((vi32x8)v); }
ROUTE_AVX512 ROUTE_INLINE uint8_t route_signs8q(vu64x8 v) { return __builtin_ia32_cvtq2mask512((vi64x8)v); }

/* A vector's 8 next hops to out: a plain store where every lane is live
 * (on Zen 5 faster than a masked one, as a plain load is: docs/route.md,
 * "AVX-512"), else the live lanes alone, nothing past the burst. */
ROUTE_AVX512 ROUTE_INLINE void route_store8(uint32_t *out, vu32x8 v, uint8_t live)
{
    if (live == 0xff)
        __builtin_memcpy(out, &v, sizeof(v));
    else
        __builtin_ia32_storedqusi256_mask((vi32x8 *)out, (vi32x8)v, live);
}

/* AVX2: a where the lane mask m is set, else b. */
ROUTE_AVX2 ROUTE_INLINE vu64x4 route_pick4(vi64x4 m, vu64x4 a, vu64x4 b)
{
    return (a & (vu64x4)m) | (b & ~(vu64x4)m);
}
#endif

#endif
