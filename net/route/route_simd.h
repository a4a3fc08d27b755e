/* SPDX-License-Identifier: MIT */
/* net/route/route_simd.h: what the vector bursts share (route4.c,
 * route6.c; route_cfg.avx512 and .avx2): the targets they are compiled
 * for, and a 64-bit lane's bit count. With AVX-512, IPv6 walks 8 lanes of
 * 64 bits in 512-bit vectors, IPv4 8 lanes of 32 bits in 256-bit ones
 * (with AVX-512 VL's masked gathers); with AVX2 alone, IPv4 the same 8
 * lanes and IPv6 4 lanes of 64 bits, with AVX2's gathers. */
#ifndef NET_ROUTE_ROUTE_SIMD_H
#define NET_ROUTE_ROUTE_SIMD_H

#if defined(__x86_64__)
/* The compiler's own header, as <stdatomic.h> is elsewhere in net/: the
 * intrinsics are builtins, nothing outside net/ is called, and it builds
 * under -ffreestanding -nostdlibinc (the kernel). */
#include <immintrin.h>

/* The bursts take the vector path from this many addresses on: a gather
 * costs more than its loads until enough lanes share it (fwd_bench, Xeon,
 * AVX-512: bursts of 1 and 8 forwarded 1.2-1.5x slower through it, 32 and
 * 256 as fast or faster; the AVX2 paths take the same bound, unmeasured
 * below 32). */
#define ROUTE_SIMD_MIN_BURST 16

/* F, VL, DQ and BW: every AVX-512 server core since Skylake-SP, and Zen 4. */
#define ROUTE_AVX512 __attribute__((target("avx512f,avx512vl,avx512dq,avx512bw,popcnt")))
/* Haswell on, and every AMD core since Zen (Zen 1-3 and Intel's client
 * cores have no AVX-512). A subset of ROUTE_AVX512: what it marks
 * inlines into both. */
#define ROUTE_AVX2 __attribute__((target("avx2,popcnt")))

/* Each 64-bit lane's bit count from AVX-512 BW alone (VPOPCNTQ came only
 * with Ice Lake): each byte's two nibbles counted through a 16-entry
 * table (VPSHUFB), the bytes summed per lane (VPSADBW). */
ROUTE_AVX512 static inline __attribute__((always_inline)) __m512i route_popcnt64(__m512i x)
{
    const __m512i table = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i nibble = _mm512_set1_epi8(0x0f);
    __m512i lo = _mm512_shuffle_epi8(table, _mm512_and_si512(x, nibble));
    __m512i hi = _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi64(x, 4), nibble));
    return _mm512_sad_epu8(_mm512_add_epi8(lo, hi), _mm512_setzero_si512());
}

/* The same for the four lanes of a 256-bit vector (the IPv4 bursts', and
 * IPv6's with AVX2), in AVX2 alone. */
ROUTE_AVX2 static inline __attribute__((always_inline)) __m256i route_popcnt64_256(__m256i x)
{
    const __m256i table = _mm256_broadcastsi128_si256(_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    __m256i lo = _mm256_shuffle_epi8(table, _mm256_and_si256(x, nibble));
    __m256i hi = _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi64(x, 4), nibble));
    return _mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256());
}
#endif

#endif
