/* SPDX-License-Identifier: MIT */
/* kernel/mem/pmm.h: the physical page allocator. */
#ifndef KERNEL_PMM_H
#define KERNEL_PMM_H

#include <stdint.h>

void pmm_init(void); /* from boot_info's memory map, modules and the kernel */
/* n contiguous 4 KiB pages aligned to align_pages; returns the physical
 * address or 0 when none is left. */
uint64_t pmm_alloc(uint64_t n, uint64_t align_pages);
void pmm_free(uint64_t phys, uint64_t n);
uint64_t pmm_free_pages(void);
uint64_t pmm_total_pages(void);
uint64_t pmm_ram_top(void); /* one past the highest RAM byte */

#endif
