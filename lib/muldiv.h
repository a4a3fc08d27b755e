/* SPDX-License-Identifier: MIT */
/* lib/muldiv.h: a * b / c in 64 bits, for rates and clocks (the kernel
 * links no 128-bit division). Exact while (a % c) * b fits in 64 bits;
 * past that the remainder's part loses its low bits, never the quotient's. */
#ifndef LIB_MULDIV_H
#define LIB_MULDIV_H

#include <stdint.h>

static inline uint64_t muldiv64(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t q = a / c, r = a % c, rb;
    unsigned shift = 0;
    while (__builtin_mul_overflow(r >> shift, b, &rb))
        shift++;
    uint64_t cs = c >> shift;
    return q * b + (cs ? rb / cs : 0);
}

#endif
