/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/lapic.c: the local APIC in x2APIC or xAPIC mode.
 * Intel SDM vol. 3: 11.4 (IA32_APIC_BASE, enabling), 11.5.1 (LVT),
 * 11.5.4 and 11.5.4.1 (timer: one-shot, TSC-deadline), 11.6.1 (ICR),
 * 11.8.5 (EOI), 11.9 (spurious vector), 11.12 (x2APIC: MSR 0x800 +
 * offset / 16, 64-bit ICR, no delivery-status bit). Intel 8259A datasheet
 * (OCW1) to mask the legacy PICs, which we never use. */
#include "lapic.h"

#include "cpu.h"
#include "kernel/arch/x86_64/trap.h"
#include "kernel/console/console.h"
#include "kernel/platform/percpu.h"
#include "kernel/time.h"
#include "kernel/mem/vm.h"

enum {
    REG_ID = 0x20, REG_TPR = 0x80, REG_EOI = 0xb0, REG_SVR = 0xf0, REG_ESR = 0x280,
    REG_ICR_LO = 0x300, REG_ICR_HI = 0x310, REG_LVT_TIMER = 0x320, REG_LVT_LINT0 = 0x350,
    REG_LVT_ERROR = 0x370, REG_TIMER_INIT = 0x380, REG_TIMER_CUR = 0x390, REG_TIMER_DIV = 0x3e0,
};
enum { APIC_BASE_EXTD = 1 << 10, APIC_BASE_EN = 1 << 11, SVR_ENABLE = 1 << 8, LVT_MASKED = 1 << 16 };
enum { LVT_TIMER_DEADLINE = 2 << 17, TIMER_DIV_1 = 0xb, ICR_PENDING = 1 << 12 };
enum { ICR_FIXED = 0 << 8, ICR_INIT = 5 << 8, ICR_STARTUP = 6 << 8, ICR_ASSERT = 1 << 14 };
#define ICR_SPINS 1000000 /* delivery normally takes well under a microsecond */
#define MAX_ARM_NS 1000000000ull

static bool x2apic, deadline_mode;
static volatile uint32_t *mmio;
static uint64_t timer_hz;

static uint32_t rd(uint32_t reg)
{
    if (x2apic)
        return (uint32_t)rdmsr(0x800 + (reg >> 4));
    return mmio[reg / 4];
}

static void wr(uint32_t reg, uint32_t v)
{
    if (x2apic)
        wrmsr(0x800 + (reg >> 4), v);
    else
        mmio[reg / 4] = v;
}

static void on_timer(struct trap_frame *f)
{
    percpu_self()->timer_irqs++;
    lapic_eoi();
}

static void on_wake(struct trap_frame *f)
{
    percpu_self()->wake_irqs++;
    lapic_eoi();
}

static void on_spurious(struct trap_frame *f) {} /* no EOI for a spurious vector */

void lapic_init(uint64_t mmio_phys)
{
    x2apic = (cpuid(1, 0).ecx & (1u << 21)) != 0;
    deadline_mode = (cpuid(1, 0).ecx & (1u << 24)) != 0;
    if (!x2apic) {
        if (!mmio_phys)
            mmio_phys = rdmsr(MSR_APIC_BASE) & ~0xfffull;
        mmio = vm_map_mmio(mmio_phys, 4096);
    }
    outb(0x21, 0xff); /* 8259 OCW1: mask every line of both */
    outb(0xa1, 0xff);
    trap_set_handler(LAPIC_TIMER_VECTOR, on_timer);
    trap_set_handler(LAPIC_WAKE_VECTOR, on_wake);
    trap_set_handler(LAPIC_SPURIOUS_VECTOR, on_spurious);
    lapic_init_cpu();
}

void lapic_init_cpu(void)
{
    uint64_t base = rdmsr(MSR_APIC_BASE);
    if (!(base & APIC_BASE_EN))
        wrmsr(MSR_APIC_BASE, base |= APIC_BASE_EN);
    if (x2apic && !(base & APIC_BASE_EXTD)) /* xAPIC -> x2APIC (11.12.5) */
        wrmsr(MSR_APIC_BASE, base | APIC_BASE_EXTD);
    wr(REG_SVR, SVR_ENABLE | LAPIC_SPURIOUS_VECTOR);
    wr(REG_TPR, 0);
    wr(REG_LVT_LINT0, LVT_MASKED); /* the 8259's ExtINT: never */
    wr(REG_LVT_ERROR, LVT_MASKED);
    wr(REG_TIMER_INIT, 0);
    wr(REG_TIMER_DIV, TIMER_DIV_1);
    /* Armed, never counting: an interrupt needs a count or a deadline. */
    wr(REG_LVT_TIMER, LAPIC_TIMER_VECTOR | (deadline_mode ? LVT_TIMER_DEADLINE : 0));
    if (deadline_mode) {
        __asm__ volatile("mfence" ::: "memory"); /* LVT write before the MSR (11.5.4.1) */
        wrmsr(MSR_TSC_DEADLINE, 0);
    }
    wr(REG_ESR, 0);
    wr(REG_ESR, 0);
}

void lapic_calibrate_timer(void)
{
    if (deadline_mode)
        return;
    wr(REG_LVT_TIMER, LAPIC_TIMER_VECTOR | LVT_MASKED);
    wr(REG_TIMER_INIT, 0xffffffffu);
    uint64_t t0 = time_now_ns();
    time_delay_us(10000);
    uint32_t left = rd(REG_TIMER_CUR);
    uint64_t t1 = time_now_ns();
    wr(REG_TIMER_INIT, 0);
    wr(REG_LVT_TIMER, LAPIC_TIMER_VECTOR);
    timer_hz = (0xffffffffull - left) * 1000000000ull / (t1 - t0 ? t1 - t0 : 1);
}

uint32_t lapic_id(void) { return x2apic ? rd(REG_ID) : rd(REG_ID) >> 24; }
bool lapic_is_x2apic(void) { return x2apic; }
const char *lapic_mode(void) { return x2apic ? "x2apic" : "xapic"; }
bool lapic_can_address(uint32_t apic_id) { return x2apic || apic_id < 0xff; }
void lapic_eoi(void) { wr(REG_EOI, 0); }

static int send(uint32_t apic_id, uint32_t low)
{
    if (x2apic) { /* one MSR write; no delivery status to wait for */
        wrmsr(0x830, (uint64_t)apic_id << 32 | low);
        return 0;
    }
    wr(REG_ICR_HI, apic_id << 24);
    wr(REG_ICR_LO, low);
    for (int i = 0; i < ICR_SPINS; i++) {
        if (!(rd(REG_ICR_LO) & ICR_PENDING))
            return 0;
        cpu_pause();
    }
    return -1;
}

int lapic_send_init(uint32_t apic_id) { return send(apic_id, ICR_INIT | ICR_ASSERT); }

int lapic_send_startup(uint32_t apic_id, uint64_t page_phys)
{
    return send(apic_id, ICR_STARTUP | ICR_ASSERT | (uint32_t)(page_phys >> 12));
}

int lapic_send_ipi(uint32_t apic_id, uint8_t vector) { return send(apic_id, ICR_FIXED | ICR_ASSERT | vector); }

void lapic_timer_arm_ns(uint64_t ns)
{
    if (ns > MAX_ARM_NS) /* keeps ns * Hz below 2^64 */
        ns = MAX_ARM_NS;
    if (deadline_mode) {
        wrmsr(MSR_TSC_DEADLINE, rdtsc() + ns * time_tsc_hz() / 1000000000u + 1);
        return;
    }
    uint64_t count = ns * timer_hz / 1000000000u;
    wr(REG_TIMER_INIT, count == 0 ? 1 : count > 0xffffffffu ? 0xffffffffu : (uint32_t)count);
}

void lapic_timer_stop(void)
{
    if (deadline_mode)
        wrmsr(MSR_TSC_DEADLINE, 0);
    else
        wr(REG_TIMER_INIT, 0);
}

const char *lapic_timer_mode(void) { return deadline_mode ? "tsc-deadline" : "one-shot"; }
uint64_t lapic_timer_hz(void) { return timer_hz; }
