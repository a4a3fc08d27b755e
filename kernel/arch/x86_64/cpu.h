/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/cpu.h: x86-64 instructions the kernel uses, as inline
 * functions (port I/O, MSRs, control registers, CPUID, TSC). Intel SDM
 * vol. 2 for each instruction. */
#ifndef KERNEL_ARCH_CPU_H
#define KERNEL_ARCH_CPU_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outw(uint16_t port, uint16_t v) { __asm__ volatile("outw %0, %1" ::"a"(v), "Nd"(port)); }
static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint16_t inw(uint16_t port)
{
    uint16_t v;
    __asm__ volatile("inw %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}
static inline uint32_t inl(uint16_t port)
{
    uint32_t v;
    __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    __asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return ((uint64_t)hi << 32) | lo;
}
static inline void wrmsr(uint32_t msr, uint64_t v)
{
    __asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* rdtsc after every earlier load has completed (LFENCE orders it; SDM
 * vol. 2, RDTSC), for measuring against another core's published value. */
static inline uint64_t rdtsc_ordered(void)
{
    uint32_t lo, hi;
    __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

struct cpuid_regs {
    uint32_t eax, ebx, ecx, edx;
};
static inline struct cpuid_regs cpuid(uint32_t leaf, uint32_t subleaf)
{
    struct cpuid_regs r;
    __asm__ volatile("cpuid" : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx) : "a"(leaf), "c"(subleaf));
    return r;
}

#define DEFINE_CR(n)                                                           \
    static inline uint64_t read_cr##n(void)                                    \
    {                                                                          \
        uint64_t v;                                                            \
        __asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));                      \
        return v;                                                              \
    }                                                                          \
    static inline void write_cr##n(uint64_t v) { __asm__ volatile("mov %0, %%cr" #n ::"r"(v) : "memory"); }
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void cpu_pause(void) { __asm__ volatile("pause"); }
static inline void cpu_halt(void) { __asm__ volatile("hlt"); }
static inline void cpu_cli(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void cpu_sti(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void cpu_invlpg(uintptr_t va) { __asm__ volatile("invlpg (%0)" ::"r"(va) : "memory"); }

__attribute__((noreturn)) static inline void cpu_halt_forever(void)
{
    for (;;) {
        cpu_cli();
        cpu_halt();
    }
}

/* sti's one-instruction shadow puts hlt in place before any interrupt is
 * taken, so a wake-up that arrives between the two is not lost (SDM vol. 2,
 * STI). */
static inline void cpu_sti_hlt(void) { __asm__ volatile("sti; hlt" ::: "memory"); }

static inline void cpu_xsetbv(uint32_t reg, uint64_t v)
{
    __asm__ volatile("xsetbv" ::"c"(reg), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

/* Per-core data lives at the GS base (kernel/platform/percpu.h). */
static inline uint64_t gs_load64(uint32_t off)
{
    uint64_t v;
    __asm__ volatile("movq %%gs:(%1), %0" : "=r"(v) : "r"((uint64_t)off));
    return v;
}
/* The same, for a value that never changes on a core (the compiler may
 * reuse it). */
static inline uint32_t gs_load32_const(uint32_t off)
{
    uint32_t v;
    __asm__("movl %%gs:(%1), %0" : "=r"(v) : "r"((uint64_t)off));
    return v;
}

#define MSR_APIC_BASE 0x1bu
#define MSR_TSC_ADJUST 0x3bu
#define MSR_TSC_DEADLINE 0x6e0u
#define MSR_EFER 0xc0000080u
#define MSR_FS_BASE 0xc0000100u
#define MSR_GS_BASE 0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u

#endif
