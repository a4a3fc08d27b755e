/* SPDX-License-Identifier: MIT */
/* kernel/time.c: TSC frequency and the nanosecond clock.
 *
 * Frequency, in order of trust: CPUID 0x15 (crystal ratio; Intel SDM vol. 3,
 * 20.7.3), the hypervisor's timing leaf 0x40000010 (TSC kHz, as KVM/VMware
 * publish it), else measured over 10 ms against the HPET's main counter
 * when ACPI lists one (kernel/platform/hpet.c), else against the PIT (8254 channel 2
 * one-shot, gated by port 0x61). No interrupt is ever used.
 *
 * The clock is rdtsc() minus this core's tsc_base (kernel/platform/percpu.h): core
 * 0's TSC at boot plus the offset kernel/platform/tsc_sync.c measured when the core
 * started, so all cores agree. It is monotonic on a core; across cores only
 * if the TSC is invariant (CPUID 0x80000007 EDX bit 8, SDM vol. 3, 20.17.1),
 * which time_tsc_invariant() reports. */
#include "time.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/platform/hpet.h"
#include "kernel/platform/percpu.h"

#define CALIBRATE_MS 10

static uint64_t tsc_hz, tsc_boot;
static uint64_t mult; /* ns per tick, 32.32 fixed point */
static const char *source = "none";
static bool invariant;

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
        if (h.eax >= 0x40000010 && h.eax < 0x40000100) {
            struct cpuid_regs t = cpuid(0x40000010, 0);
            if (t.eax) {
                source = "hypervisor";
                return (uint64_t)t.eax * 1000;
            }
        }
    }
    return 0;
}

static uint64_t from_hpet(void)
{
    if (hpet_init() != 0)
        return 0;
    uint64_t ticks = (uint64_t)CALIBRATE_MS * 1000000000000ull / hpet_period_fs();
    uint64_t h0 = hpet_read(), t0 = rdtsc(), h1 = h0;
    for (uint64_t spins = 0; ((h1 - h0) & hpet_mask()) < ticks; spins++) {
        if (spins > 100000000)
            return 0;
        h1 = hpet_read();
    }
    uint64_t t1 = rdtsc();
    uint64_t ns = ((h1 - h0) & hpet_mask()) * hpet_period_fs() / 1000000;
    source = "hpet";
    return (t1 - t0) * 1000000000ull / ns; /* no overflow below ~1800 GHz */
}

static uint64_t from_pit(void)
{
    const uint32_t pit_hz = 1193182, ms = CALIBRATE_MS;
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
    percpu_self()->tsc_base = tsc_boot;
    invariant = cpuid(0x80000000, 0).eax >= 0x80000007 && (cpuid(0x80000007, 0).edx & (1u << 8));
    tsc_hz = from_cpuid();
    if (!tsc_hz)
        tsc_hz = from_hpet();
    if (!tsc_hz)
        tsc_hz = from_pit();
    if (!tsc_hz) {
        tsc_hz = 1000000000; /* a guess beats no clock */
        source = "guess";
    }
    mult = (1000000000ull << 32) / tsc_hz;
}

uint64_t time_tsc_to_ns(uint64_t ticks) { return (uint64_t)(((unsigned __int128)ticks * mult) >> 32); }
int64_t time_ticks_signed_ns(int64_t ticks)
{
    return ticks < 0 ? -(int64_t)time_tsc_to_ns(-(uint64_t)ticks) : (int64_t)time_tsc_to_ns((uint64_t)ticks);
}

uint64_t time_ns_at(uint64_t tsc) { return time_tsc_to_ns(tsc - percpu_self()->tsc_base); }
uint64_t time_now_ns(void) { return time_ns_at(rdtsc()); }
uint64_t time_tsc_hz(void) { return tsc_hz; }
uint64_t time_tsc_boot(void) { return tsc_boot; }
const char *time_tsc_source(void) { return source; }
bool time_tsc_invariant(void) { return invariant; }

void time_delay_us(uint64_t us)
{
    uint64_t end = time_now_ns() + us * 1000;
    while (time_now_ns() < end)
        cpu_pause();
}
