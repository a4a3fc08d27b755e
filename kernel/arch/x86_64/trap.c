/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/trap.c: GDT/TSS per core, the IDT, and exception
 * reports. Intel SDM vol. 3: 3.4.5 (descriptors), 6.11 (IDT gates),
 * 7.7 (64-bit TSS), 6.15 (exception classes).
 *
 * An exception prints its name, error code, the registers and a stack trace,
 * then halts the core. The report itself must never fault: it touches only
 * the frame, reads memory only after checking it is mapped, and a fault
 * inside a report halts at once. */
#include "trap.h"

#include <stdatomic.h>

#include "cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "kernel/platform/percpu.h"
#include "kernel/mem/vm.h"

struct idt_gate {
    uint16_t off_lo, selector;
    uint8_t ist, type;
    uint16_t off_mid;
    uint32_t off_hi, zero;
};
_Static_assert(sizeof(struct idt_gate) == 16, "SDM 6.14.1");

struct desc_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

enum { SEL_CODE = 0x08, SEL_DATA = 0x10, SEL_TSS = 0x28, TSS_RSP0 = 4, TSS_IST1 = 36, TSS_IOMAP = 102 };

extern const uint64_t isr_table[256];
static struct idt_gate idt[256];
static trap_handler_fn handlers[256];
static _Atomic uint64_t counts[256];
static _Atomic int reporting;

static const char *const exception_names[32] = {
    "#DE divide error", "#DB debug", "NMI", "#BP breakpoint", "#OF overflow", "#BR bound range",
    "#UD invalid opcode", "#NM device not available", "#DF double fault", "coprocessor overrun",
    "#TS invalid TSS", "#NP segment not present", "#SS stack fault", "#GP general protection",
    "#PF page fault", "reserved 15", "#MF x87 error", "#AC alignment check", "#MC machine check",
    "#XM SIMD exception", "#VE virtualization", "#CP control protection", "reserved 22",
    "reserved 23", "reserved 24", "reserved 25", "reserved 26", "reserved 27", "#HV hypervisor injection",
    "#VC VMM communication", "#SX security", "reserved 31",
};

static void set_gate(uint8_t v, uint64_t handler, uint8_t ist)
{
    idt[v] = (struct idt_gate){
        .off_lo = (uint16_t)handler,
        .selector = SEL_CODE,
        .ist = ist,
        .type = 0x8e, /* present, DPL 0, 64-bit interrupt gate: IF cleared */
        .off_mid = (uint16_t)(handler >> 16),
        .off_hi = (uint32_t)(handler >> 32),
    };
}

void trap_init(void)
{
    for (int v = 0; v < 256; v++)
        set_gate((uint8_t)v, isr_table[v], 0);
    idt[8].ist = IST_DOUBLE_FAULT;
    idt[2].ist = IST_NMI;
    idt[18].ist = IST_MACHINE_CHECK;
    idt[14].ist = IST_PAGE_FAULT; /* survives a kernel stack overflow */
}

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

void trap_init_cpu(struct cpu_tables *t)
{
    memset(t->tss, 0, sizeof t->tss);
    for (int i = 0; i < IST_COUNT; i++)
        put64(t->tss + TSS_IST1 + 8 * i, (uint64_t)(uintptr_t)t->ist_stack[i] + IST_STACK_SIZE);
    t->tss[TSS_IOMAP] = sizeof t->tss; /* no I/O bitmap */
    uint64_t base = (uint64_t)(uintptr_t)t->tss, limit = sizeof t->tss - 1;
    t->gdt[0] = 0;
    t->gdt[1] = 0x00af9a000000ffffull; /* 64-bit code, DPL 0 */
    t->gdt[2] = 0x00cf92000000ffffull; /* data */
    t->gdt[3] = 0;
    t->gdt[4] = 0;
    t->gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (0x89ull << 40) |
                ((limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56); /* available 64-bit TSS */
    t->gdt[6] = base >> 32;
    struct desc_ptr gp = {sizeof t->gdt - 1, (uint64_t)(uintptr_t)t->gdt};
    struct desc_ptr ip = {sizeof idt - 1, (uint64_t)(uintptr_t)idt};
    __asm__ volatile("lgdt %0\n\t"
                     "pushq %1\n\t"
                     "leaq 1f(%%rip), %%rax\n\t"
                     "pushq %%rax\n\t"
                     "lretq\n"
                     "1:\n\t"
                     "movw %w2, %%ds\n\t"
                     "movw %w2, %%es\n\t"
                     "movw %w2, %%ss\n\t"
                     "ltr %w3\n\t"
                     "lidt %4"
                     :
                     : "m"(gp), "i"(SEL_CODE), "r"(SEL_DATA), "r"(SEL_TSS), "m"(ip)
                     : "rax", "memory");
}

void trap_set_handler(uint8_t vector, trap_handler_fn fn) { handlers[vector] = fn; }

uint64_t trap_count(uint8_t vector) { return atomic_load_explicit(&counts[vector], memory_order_relaxed); }

void trap_print_backtrace(void *rbp)
{
    kprintf("stack trace:\n");
    uint64_t *fp = rbp;
    for (int depth = 0; depth < 32 && fp; depth++) {
        /* Check both words of the frame before reading them. */
        if (((uintptr_t)fp & 7) || !vm_is_mapped((uintptr_t)fp) || !vm_is_mapped((uintptr_t)(fp + 1)))
            break;
        uint64_t ret = fp[1];
        if (ret < KERNEL_VMA)
            break;
        kprintf("  #%d %016lx\n", depth, ret);
        if (fp[0] <= (uint64_t)(uintptr_t)fp) /* frames go up the stack */
            break;
        fp = (uint64_t *)(uintptr_t)fp[0];
    }
}

static void report(struct trap_frame *f)
{
    uint64_t cr2 = read_cr2();
    const char *name = f->vector < 32 ? exception_names[f->vector] : "interrupt";
    kprintf("\nEXCEPTION %s (vector %lu) error 0x%lx\n", name, f->vector, f->error);
    kprintf("RIP=%016lx CS=%04lx RFLAGS=%016lx\n", f->rip, f->cs, f->rflags);
    kprintf("RSP=%016lx SS=%04lx CR2=%016lx CR3=%016lx\n", f->rsp, f->ss, cr2, read_cr3());
    kprintf("RAX=%016lx RBX=%016lx RCX=%016lx RDX=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
    kprintf("RSI=%016lx RDI=%016lx RBP=%016lx R8 =%016lx\n", f->rsi, f->rdi, f->rbp, f->r8);
    kprintf("R9 =%016lx R10=%016lx R11=%016lx R12=%016lx\n", f->r9, f->r10, f->r11, f->r12);
    kprintf("R13=%016lx R14=%016lx R15=%016lx\n", f->r13, f->r14, f->r15);
    if (f->vector == 14)
        kprintf("page fault: %s %s at %016lx%s\n", f->error & 2 ? "write" : "read",
                f->error & 1 ? "protection violation" : "not-present page", cr2,
                f->error & 16 ? " (instruction fetch)" : "");
    kprintf("  #-1 %016lx (faulting instruction)\n", f->rip);
    trap_print_backtrace((void *)(uintptr_t)f->rbp);
}

void trap_dispatch(struct trap_frame *f);
void trap_dispatch(struct trap_frame *f)
{
    uint8_t v = (uint8_t)f->vector;
    atomic_fetch_add_explicit(&counts[v], 1, memory_order_relaxed);
    if (v >= 32) /* only once a core's GS is set can it take one */
        percpu_self()->irqs++;
    if (v >= 32 && handlers[v]) {
        handlers[v](f);
        return;
    }
    if (atomic_exchange(&reporting, 1)) {
        /* A fault while reporting (or on another core at once): say so
         * with the fewest instructions and stop. */
        console_write("\nEXCEPTION during exception report; system halted\n");
        cpu_halt_forever();
    }
    report(f);
    console_write("system halted\n");
    cpu_halt_forever();
}
