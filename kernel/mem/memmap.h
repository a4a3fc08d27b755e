/* SPDX-License-Identifier: MIT */
/* kernel/mem/memmap.h: every fixed address in one place.
 *
 * Virtual layout (4-level paging, 48-bit):
 *   0x0000000000000000 ..        unmapped after boot (NULL faults)
 *   0xffff800000000000 ..        DIRECT_MAP: all physical memory, phys + base;
 *                                RAM write-back, MMIO uncached (kernel/mem/vm.c)
 *   0xffffc00000000000 ..        STACK_REGION: one STACK_SLOT per core (index
 *                                order): an unmapped guard page, then
 *                                CPU_STACK_SIZE of 4 KiB pages; the rest of
 *                                the slot unmapped. Overflow faults (#PF
 *                                runs on its own IST stack and reports it).
 *   0xffffffff80000000 ..        KERNEL_VMA: the kernel image (phys + base)
 * Physical layout:
 *   0x00000000 .. 0x000fffff     BIOS, real-mode area. Application cores
 *                                start here (kernel/platform/smp.c):
 *     0x8000 AP_TRAMPOLINE_PHYS  boot/ap_trampoline.asm and its parameters:
 *                                real mode needs a page below 1 MiB, and the
 *                                STARTUP IPI names it by page number (0x08)
 *     0x9000 .. 0xbfff           AP_BOOT_TABLES_PHYS: the trampoline's own
 *                                page tables, PML4 -> PDPT -> PD: a copy of
 *                                the kernel's PML4 (direct map, kernel
 *                                image, stacks) plus an identity map of the
 *                                first 2 MiB, which the kernel's tables lack,
 *                                for the instructions that turn paging on.
 *                                Below 4 GiB so 32-bit code can load CR3.
 *                                The core leaves them for the kernel's
 *                                tables at its first higher-half instruction.
 *   0x00100000 ..                .boot (multiboot2 entry, early tables),
 *                                then the kernel image up to kernel_phys_end
 *   GRUB places the boot information and modules after the kernel; the
 *   physical allocator (kernel/mem/pmm.c) keeps them reserved. */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include <stdint.h>

#define DIRECT_MAP_BASE 0xffff800000000000ull
#define KERNEL_VMA 0xffffffff80000000ull
#define AP_TRAMPOLINE_PHYS 0x8000ull
#define AP_BOOT_TABLES_PHYS 0x9000ull /* PML4, PDPT, PD: 3 pages */
#define STACK_REGION 0xffffc00000000000ull
#define STACK_SLOT (1ull << 20)
#define CPU_STACK_SIZE (64 * 1024ull)
#define PAGE_SIZE 4096ull
#define HUGE_PAGE_SIZE (2ull << 20)

static inline void *phys_to_virt(uint64_t phys) { return (void *)(uintptr_t)(phys + DIRECT_MAP_BASE); }

/* O(1) for both the direct map and the kernel image. */
static inline uint64_t virt_to_phys(const void *va)
{
    uint64_t v = (uint64_t)(uintptr_t)va;
    return v >= KERNEL_VMA ? v - KERNEL_VMA : v - DIRECT_MAP_BASE;
}

extern char kernel_phys_start[], kernel_phys_end[], kernel_end[];

#endif
