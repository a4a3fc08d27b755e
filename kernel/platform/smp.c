/* SPDX-License-Identifier: MIT */
/* kernel/platform/smp.c: starts the application cores.
 *
 * Intel SDM vol. 3, 9.4.4.1 (and MP Specification 1.4, B.4): INIT, wait
 * 10 ms, STARTUP, wait 200 us, a second STARTUP only if the first was not
 * taken. We INIT every core at once and wait the 10 ms once (calibrating
 * the local APIC timer meanwhile), then start
 * the cores one by one, since they share the trampoline's parameter block:
 * each says it is alive from real mode (ap_boot_params.alive), then claims
 * its struct percpu (`starting`) once in C. After the second STARTUP we
 * wait long (READY_WAIT_NS), as a virtual CPU may not be scheduled for
 * milliseconds. A core that misses that is abandoned: its claim is
 * withdrawn first, so if it runs later after all it finds nothing to
 * claim and halts, and it is sent INIT to keep it parked. The trampoline
 * and its page tables: kernel/mem/memmap.h and boot/ap_trampoline.asm. */
#include "smp.h"

#include "acpi.h"
#include "acpi_madt.h"
#include "kernel/arch/x86_64/fpu.h"
#include "kernel/arch/x86_64/lapic.h"
#include "kernel/arch/x86_64/trap.h"
#include "kernel/console/console.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/mem/memmap.h"
#include "multiboot.h"
#include "percpu.h"
#include "kernel/time.h"
#include "tsc_sync.h"
#include "kernel/mem/vm.h"

#define PARAMS_OFFSET 0xf00
#define INIT_WAIT_US 10000
#define SIPI_WAIT_US 200
#define READY_WAIT_NS 3000000000ull /* generous: TCG on a busy host */

/* Shared with boot/ap_trampoline.asm (its P_* offsets). */
struct ap_boot_params {
    uint64_t boot_cr3, efer, kernel_cr3, entry, stack_top, arg;
    uint32_t alive;
};
_Static_assert(__builtin_offsetof(struct ap_boot_params, arg) == 0x28, "ap_trampoline.asm P_ARG");
_Static_assert(__builtin_offsetof(struct ap_boot_params, alive) == 0x30, "ap_trampoline.asm P_ALIVE");

extern const uint8_t ap_trampoline[], ap_trampoline_end[];
void ap_entry64(void);
__attribute__((noreturn)) void smp_ap_main(struct percpu *self);

static struct acpi_madt madt;
static _Atomic(struct percpu *) starting; /* the core being started, until it claims */
static uint64_t start_ns;

uint64_t smp_start_ns(void) { return start_ns; }

/* The trampoline page and its tables must be RAM that nothing else uses. */
static bool low_pages_free(uint64_t start, uint64_t end)
{
    bool ram = false;
    for (uint32_t i = 0; i < boot_info.nmmap; i++) {
        const struct boot_mmap_entry *m = &boot_info.mmap[i];
        if (m->type == MMAP_RAM && m->base <= start && m->base + m->len >= end)
            ram = true;
    }
    if (!ram || (boot_info.mbi_phys < end && boot_info.mbi_phys + boot_info.mbi_size > start))
        return false;
    for (uint32_t i = 0; i < boot_info.nmodules; i++)
        if (boot_info.modules[i].start < end && boot_info.modules[i].end > start)
            return false;
    return true;
}

/* Word stores, not memcpy's byte stores: the boot loader ran code in these
 * pages, and under TCG every store to such a page takes a slow path (this
 * cut the copy from 16-35 ms to 4-13 ms there). src NULL: zeroes. */
static void copy_words(volatile uint64_t *dst, const uint64_t *src, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        dst[i] = src ? src[i] : 0;
}

static volatile struct ap_boot_params *prepare_trampoline(void)
{
    uint64_t size = (uint64_t)(ap_trampoline_end - ap_trampoline);
    if (size > PARAMS_OFFSET || !low_pages_free(AP_TRAMPOLINE_PHYS, AP_BOOT_TABLES_PHYS + 3 * PAGE_SIZE)) {
        kprintf("smp: pages %llx-%llx not free RAM: one core\n", AP_TRAMPOLINE_PHYS,
                AP_BOOT_TABLES_PHYS + 3 * PAGE_SIZE);
        return 0;
    }
    copy_words(phys_to_virt(AP_TRAMPOLINE_PHYS), (const uint64_t *)(const void *)ap_trampoline, (size + 7) / 8);
    uint64_t *pml4 = phys_to_virt(AP_BOOT_TABLES_PHYS), *pdpt = pml4 + 512, *pd = pdpt + 512;
    copy_words(pml4, phys_to_virt(vm_kernel_cr3()), 512);
    copy_words(pdpt, 0, 2 * 512);
    pml4[0] = (AP_BOOT_TABLES_PHYS + PAGE_SIZE) | 3;     /* present, writable */
    pdpt[0] = (AP_BOOT_TABLES_PHYS + 2 * PAGE_SIZE) | 3;
    pd[0] = 0 | 3 | 0x80;                                /* 2 MiB page at 0 */
    volatile struct ap_boot_params *p = phys_to_virt(AP_TRAMPOLINE_PHYS + PARAMS_OFFSET);
    p->boot_cr3 = AP_BOOT_TABLES_PHYS;
    p->efer = rdmsr(MSR_EFER) & ~(1ull << 10); /* LMA is the CPU's to set */
    p->kernel_cr3 = vm_kernel_cr3();
    p->entry = (uint64_t)(uintptr_t)ap_entry64;
    return p;
}

/* A stack in STACK_REGION with an unmapped guard page below it. */
static uint64_t map_stack(unsigned index)
{
    uint64_t pages = CPU_STACK_SIZE / PAGE_SIZE;
    uint64_t phys = virt_to_phys(kalloc_pages(pages, 1));
    uint64_t va = STACK_REGION + index * STACK_SLOT + PAGE_SIZE;
    vm_map_pages(va, phys, pages);
    return va + CPU_STACK_SIZE;
}

static bool wait_alive(volatile struct ap_boot_params *bp, uint64_t ns)
{
    uint64_t end = time_now_ns() + ns;
    while (!bp->alive && time_now_ns() < end)
        cpu_pause();
    return bp->alive != 0;
}

/* Until the core claims p or the time is up; then nobody can claim it.
 * Returns whether the core did. */
static bool wait_claimed(struct percpu *p, uint64_t end_ns)
{
    while (atomic_load(&starting) == p && time_now_ns() < end_ns)
        cpu_pause();
    struct percpu *expect = p;
    return !atomic_compare_exchange_strong(&starting, &expect, (struct percpu *)0);
}

static int start_one(volatile struct ap_boot_params *bp, uint32_t apic_id)
{
    struct percpu *p = kalloc(sizeof *p);
    p->index = cpu_count();
    p->apic_id = apic_id;
    p->tables = kalloc(sizeof *p->tables);
    p->stack_top = map_stack(p->index);
    bp->stack_top = p->stack_top;
    bp->arg = (uint64_t)(uintptr_t)p;
    bp->alive = 0;
    atomic_store(&starting, p);
    uint64_t t0 = time_now_ns();
    int sent = lapic_send_startup(apic_id, AP_TRAMPOLINE_PHYS);
    if (sent == 0 && !wait_alive(bp, SIPI_WAIT_US * 1000))
        sent = lapic_send_startup(apic_id, AP_TRAMPOLINE_PHYS);
    if (!wait_claimed(p, sent == 0 ? t0 + READY_WAIT_NS : 0)) {
        kprintf("smp: apic %u: %s; parked\n", apic_id,
                sent ? "STARTUP not accepted" : bp->alive ? "stopped before C" : "no answer to STARTUP");
        lapic_send_init(apic_id);
        return -1;
    }
    p->start_ns = time_now_ns() - t0;
    tsc_sync_bsp(p);
    p->sync_ns = time_now_ns() - t0 - p->start_ns;
    percpu_publish(p);
    return 0;
}

static void report_madt(void)
{
    if (madt.online_capable || madt.disabled || madt.duplicates || madt.dropped || madt.bad_entries)
        kprintf("smp: MADT: %u enabled, %u online-capable (not started), %u disabled, %u listed twice, "
                "%u over %u, %u bad entries\n",
                madt.ncpus, madt.online_capable, madt.disabled, madt.duplicates, madt.dropped,
                ACPI_MADT_MAX_CPUS, madt.bad_entries);
}

static void start_all(uint32_t self_id)
{
    volatile struct ap_boot_params *bp = prepare_trampoline();
    if (!bp) {
        lapic_calibrate_timer();
        return;
    }
    uint32_t ids[ACPI_MADT_MAX_CPUS];
    unsigned n = 0;
    for (unsigned i = 0; i < madt.ncpus; i++) {
        uint32_t id = madt.apic_id[i];
        if (id == self_id)
            continue;
        if (!lapic_can_address(id) || cpu_count() + n >= MAX_CPUS)
            kprintf("smp: apic %u: not addressable or over %u cores; skipped\n", id, MAX_CPUS);
        else if (lapic_send_init(id) != 0)
            kprintf("smp: apic %u: INIT not accepted\n", id);
        else
            ids[n++] = id;
    }
    uint64_t t_init = time_now_ns();
    lapic_calibrate_timer(); /* about as long as the wait: overlap them */
    while (n && time_now_ns() - t_init < INIT_WAIT_US * 1000)
        cpu_pause();
    for (unsigned i = 0; i < n; i++)
        start_one(bp, ids[i]);
}

void smp_init(void)
{
    uint64_t t0 = time_now_ns();
    const struct acpi_header *h = acpi_find("APIC", 0);
    bool have = h && acpi_madt_parse(h, h->length, &madt) == 0;
    lapic_init(have ? madt.lapic_phys : 0);
    struct percpu *self = percpu_self();
    self->apic_id = lapic_id();
    tsc_sync_init();
    if (have) {
        report_madt();
        start_all(self->apic_id);
    } else {
        kprintf("smp: no MADT: one core\n");
        lapic_calibrate_timer();
    }
    start_ns = time_now_ns() - t0;
    for (unsigned i = 1; i < cpu_count(); i++) {
        struct percpu *p = percpu_at(i);
        int64_t lo = p->tsc_skew_lo, hi = p->tsc_skew_hi;
        if (lo == INT64_MIN)
            kprintf("smp: cpu %u (apic %u) up in %lu us; TSC skew not measured\n", i, p->apic_id,
                    p->start_ns / 1000);
        else
            kprintf("smp: cpu %u (apic %u) up in %lu us; TSC offset within [%ld, %ld] ns%s (%lu us)\n", i,
                    p->apic_id, p->start_ns / 1000, time_ticks_signed_ns(lo), time_ticks_signed_ns(hi),
                    (lo > 0 || hi < 0) ? ", corrected" : "", p->sync_ns / 1000);
    }
    kprintf("smp: %u cores up in %lu us (%s, timer %s); TSC %s; vector state %s\n", cpu_count(),
            start_ns / 1000, lapic_mode(), lapic_timer_mode(),
            time_tsc_invariant() ? "invariant" : "not invariant", fpu_describe());
}

void smp_ap_main(struct percpu *self)
{
    struct percpu *expect = self;
    if (!atomic_compare_exchange_strong(&starting, &expect, (struct percpu *)0))
        cpu_halt_forever(); /* abandoned, or a late duplicate: touch nothing */
    percpu_install(self);
    write_cr4(read_cr4() | (1 << 7)); /* PGE, as vm_init set it on core 0 */
    trap_init_cpu(self->tables);
    fpu_init_cpu();
    lapic_init_cpu();
    self->apic_id = lapic_id();
    tsc_sync_ap(self);
    loop_run_ap();
}
