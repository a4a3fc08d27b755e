/* SPDX-License-Identifier: MIT */
/* kernel/mem/vm.h: the kernel's page tables (memory map: kernel/mem/memmap.h). */
#ifndef KERNEL_VM_H
#define KERNEL_VM_H

#include <stdbool.h>
#include <stdint.h>

#include "memmap.h"

void vm_init(void);                              /* final tables; drops the identity map */
void *vm_map_mmio(uint64_t phys, uint64_t size); /* uncached, in the direct map */
/* n 4 KiB write-back pages at va (outside the direct map: the per-core
 * stacks, STACK_REGION in kernel/mem/memmap.h). Boot-time, bootstrap core. */
void vm_map_pages(uint64_t va, uint64_t phys, uint64_t n);
bool vm_is_mapped(uintptr_t va);
uint64_t vm_kernel_cr3(void);

#endif
