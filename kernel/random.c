/* SPDX-License-Identifier: MIT */
/* kernel/random.c: random_bytes (kernel/random.h). RDSEED and RDRAND can
 * fail transiently (CF=0): retry a bounded number of times (Intel's DRNG
 * guide suggests 10 for RDRAND). */
#include "random.h"

#include <stdbool.h>
#include <stdint.h>

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"

static bool rdseed64(uint64_t *v)
{
    for (int i = 0; i < 100; i++) {
        uint8_t ok;
        __asm__ volatile("rdseed %0; setc %1" : "=r"(*v), "=qm"(ok));
        if (ok)
            return true;
        cpu_pause();
    }
    return false;
}

static bool rdrand64(uint64_t *v)
{
    for (int i = 0; i < 10; i++) {
        uint8_t ok;
        __asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok));
        if (ok)
            return true;
    }
    return false;
}

/* Last resort: TSC jitter across port reads, folded by a 64-bit mixer
 * (SplitMix64's finaliser). */
static uint64_t jitter64(void)
{
    uint64_t h = rdtsc();
    for (int i = 0; i < 64; i++) {
        (void)inb(0x80);
        h ^= rdtsc();
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
    }
    return h;
}

void random_bytes(void *buf, size_t n)
{
    bool has_rdseed = (cpuid(7, 0).ebx >> 18) & 1, has_rdrand = (cpuid(1, 0).ecx >> 30) & 1;
    static bool warned;
    uint8_t *out = buf;
    while (n) {
        uint64_t v;
        if (!(has_rdseed && rdseed64(&v)) && !(has_rdrand && rdrand64(&v))) {
            if (!warned) {
                kprintf("random: no RDSEED/RDRAND; secrets come from TSC jitter\n");
                warned = true;
            }
            v = jitter64();
        }
        size_t k = n < 8 ? n : 8;
        memcpy(out, &v, k);
        out += k;
        n -= k;
    }
}
