/* kernel/memmap.h: every fixed address in one place.
 *
 * Virtual layout (4-level paging, 48-bit):
 *   0x0000000000000000 ..        unmapped after boot (NULL faults)
 *   0xffff800000000000 ..        DIRECT_MAP: all physical memory, phys + base;
 *                                RAM write-back, MMIO uncached (kernel/vm.c)
 *   0xffffffff80000000 ..        KERNEL_VMA: the kernel image (phys + base)
 * Physical layout:
 *   0x00000000 .. 0x000fffff     BIOS, real-mode area; AP trampoline page
 *                                (issue 3) at AP_TRAMPOLINE_PHYS
 *   0x00100000 ..                .boot (multiboot2 entry, early tables),
 *                                then the kernel image up to kernel_phys_end
 *   GRUB places the boot information and modules after the kernel; the
 *   physical allocator (kernel/pmm.c) keeps them reserved. */
#ifndef KERNEL_MEMMAP_H
#define KERNEL_MEMMAP_H

#include <stdint.h>

#define DIRECT_MAP_BASE 0xffff800000000000ull
#define KERNEL_VMA 0xffffffff80000000ull
#define AP_TRAMPOLINE_PHYS 0x8000ull
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
