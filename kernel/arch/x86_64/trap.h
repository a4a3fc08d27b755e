/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/trap.h: exceptions and interrupts (IDT, GDT/TSS).
 * Exceptions print the machine state and halt; vectors 32+ go to handlers
 * registered with trap_set_handler (the LAPIC timer, issue 3). */
#ifndef KERNEL_ARCH_TRAP_H
#define KERNEL_ARCH_TRAP_H

#include <stdint.h>

/* Pushed by kernel/arch/x86_64/isr.asm, lowest address first. */
struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error;
    uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};
_Static_assert(sizeof(struct trap_frame) == 22 * 8, "matches isr.asm");

/* Interrupt stack table slots (Intel SDM vol. 3, 6.14.5). */
enum { IST_DOUBLE_FAULT = 1, IST_NMI = 2, IST_MACHINE_CHECK = 3, IST_PAGE_FAULT = 4, IST_COUNT = 4 };
#define IST_STACK_SIZE 8192

/* One per core: its GDT, TSS and the IST stacks. */
struct cpu_tables {
    uint64_t gdt[7]; /* null, code, data, user code/data unused, TSS (2 slots) */
    uint8_t tss[104];
    uint8_t ist_stack[IST_COUNT][IST_STACK_SIZE] __attribute__((aligned(16)));
};

void trap_init_cpu(struct cpu_tables *t); /* GDT, TSS and IDT on this core */
void trap_init(void);                      /* builds the IDT once */
typedef void (*trap_handler_fn)(struct trap_frame *f);
void trap_set_handler(uint8_t vector, trap_handler_fn fn);
void trap_print_backtrace(void *rbp);
uint64_t trap_count(uint8_t vector);      /* interrupts taken on all cores */

#endif
