/* kernel/time.c: TSC frequency and the nanosecond clock.
 *
 * Frequency, in order of trust: CPUID 0x15 (crystal ratio; Intel SDM vol. 3,
 * 20.7.3), the hypervisor's timing leaf 0x40000010 (TSC kHz, as KVM/VMware
 * publish it), else measured against the PIT (8254 channel 2 one-shot,
 * gated by port 0x61) over 10 ms. No interrupt is ever used. */
#include "time.h"

#include "kernel/arch/x86_64/cpu.h"

static uint64_t tsc_hz, tsc_boot;
static uint64_t mult; /* ns per tick, 32.32 fixed point */
static const char *source = "none";

static uint64_t from_cpuid(void)
{
    if (cpuid(0, 0).eax >= 0x15) {
        struct cpuid_regs r = cpuid(0x15, 0);
        if (r.eax && r.ebx && r.ecx) {
            source = "cpuid-15h";
            return (uint64_t)r.ecx * r.ebx / r.eax;
        }
    }
    if (cpuid(1, 0).ecx & (1u << 31)) { /* running under a hypervisor */
        struct cpuid_regs h = cpuid(0x40000000, 0);
        if (h.eax >= 0x40000010) {
            struct cpuid_regs t = cpuid(0x40000010, 0);
            if (t.eax) {
                source = "hypervisor";
                return (uint64_t)t.eax * 1000;
            }
        }
    }
    return 0;
}

static uint64_t from_pit(void)
{
    const uint32_t pit_hz = 1193182, ms = 10;
    uint16_t count = (uint16_t)(pit_hz * ms / 1000);
    outb(0x61, (uint8_t)((inb(0x61) & ~0x02) | 0x01)); /* gate on, speaker off */
    outb(0x43, 0xb0);                                  /* ch2, lo/hi, mode 0 */
    outb(0x42, (uint8_t)count);
    outb(0x42, (uint8_t)(count >> 8));
    uint64_t t0 = rdtsc();
    for (uint64_t spins = 0; !(inb(0x61) & 0x20); spins++) /* OUT2 goes high at 0 */
        if (spins > 100000000)
            return 0;
    uint64_t t1 = rdtsc();
    source = "pit";
    return (t1 - t0) * 1000 / ms;
}

void time_init(void)
{
    tsc_boot = rdtsc();
    tsc_hz = from_cpuid();
    if (!tsc_hz)
        tsc_hz = from_pit();
    if (!tsc_hz) {
        tsc_hz = 1000000000; /* a guess beats no clock */
        source = "guess";
    }
    mult = (1000000000ull << 32) / tsc_hz;
}

uint64_t time_tsc_to_ns(uint64_t ticks) { return (uint64_t)(((unsigned __int128)ticks * mult) >> 32); }
uint64_t time_now_ns(void) { return time_tsc_to_ns(rdtsc() - tsc_boot); }
uint64_t time_tsc_hz(void) { return tsc_hz; }
const char *time_tsc_source(void) { return source; }

void time_delay_us(uint64_t us)
{
    uint64_t end = time_now_ns() + us * 1000;
    while (time_now_ns() < end)
        cpu_pause();
}
