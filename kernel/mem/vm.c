/* SPDX-License-Identifier: MIT */
/* kernel/mem/vm.c: builds the kernel's page tables (Intel SDM vol. 3, 4.5).
 *
 * The direct map covers physical memory up to the top of RAM or 4 GiB,
 * whichever is higher, in 2 MiB pages: write-back where a page holds RAM,
 * uncached (PCD|PWT, PAT entry 3 = UC at reset) elsewhere, so the MMIO hole
 * below 4 GiB is safe to touch. MMIO above that is added on demand by
 * vm_map_mmio. The kernel image is mapped at KERNEL_VMA. Nothing is mapped
 * at low addresses, so a NULL dereference faults. */
#include "vm.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/platform/multiboot.h"
#include "pmm.h"

enum {
    PTE_P = 1 << 0,
    PTE_W = 1 << 1,
    PTE_PWT = 1 << 3,
    PTE_PCD = 1 << 4,
    PTE_PS = 1 << 7,
    PTE_G = 1 << 8,
};
#define PTE_ADDR 0x000ffffffffff000ull
#define PTE_UC (PTE_PCD | PTE_PWT)

static uint64_t pml4_phys;

static uint64_t *table_at(uint64_t phys) { return phys_to_virt(phys); }

static uint64_t new_table(void)
{
    uint64_t p = pmm_alloc(1, 1);
    if (!p)
        panic("vm: out of memory for page tables");
    memset(table_at(p), 0, PAGE_SIZE);
    return p;
}

/* The page-directory entry slot for va, creating the upper levels. */
static uint64_t *pde_slot(uint64_t va)
{
    uint64_t *t = table_at(pml4_phys);
    for (int shift = 39; shift > 21; shift -= 9) {
        uint64_t *e = &t[(va >> shift) & 511];
        if (!(*e & PTE_P))
            *e = new_table() | PTE_P | PTE_W;
        t = table_at(*e & PTE_ADDR);
    }
    return &t[(va >> 21) & 511];
}

static bool range_has_ram(uint64_t s, uint64_t e)
{
    for (uint32_t i = 0; i < boot_info.nmmap; i++) {
        const struct boot_mmap_entry *m = &boot_info.mmap[i];
        if (m->type == MMAP_RAM && s < m->base + m->len && e > m->base)
            return true;
    }
    return false;
}

void vm_init(void)
{
    pml4_phys = new_table();
    uint64_t top = pmm_ram_top();
    if (top < (4ull << 30))
        top = 4ull << 30;
    for (uint64_t pa = 0; pa < top; pa += HUGE_PAGE_SIZE) {
        uint64_t attr = range_has_ram(pa, pa + HUGE_PAGE_SIZE) ? 0 : PTE_UC;
        *pde_slot(DIRECT_MAP_BASE + pa) = pa | PTE_P | PTE_W | PTE_PS | PTE_G | attr;
    }
    uint64_t kend = ((uint64_t)(uintptr_t)kernel_phys_end + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1);
    for (uint64_t pa = 0; pa < kend; pa += HUGE_PAGE_SIZE)
        *pde_slot(KERNEL_VMA + pa) = pa | PTE_P | PTE_W | PTE_PS | PTE_G;
    write_cr4(read_cr4() | (1 << 7)); /* PGE: global kernel pages */
    write_cr3(pml4_phys);
}

/* The 4 KiB page-table entry slot for va, creating every level above. */
static uint64_t *pte_slot(uint64_t va)
{
    uint64_t *pde = pde_slot(va);
    if (*pde & PTE_PS)
        panic("vm: %lx lies in a 2 MiB page", va);
    if (!(*pde & PTE_P))
        *pde = new_table() | PTE_P | PTE_W;
    return &table_at(*pde & PTE_ADDR)[(va >> 12) & 511];
}

void vm_map_pages(uint64_t va, uint64_t phys, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        *pte_slot(va + i * PAGE_SIZE) = (phys + i * PAGE_SIZE) | PTE_P | PTE_W | PTE_G;
}

void *vm_map_mmio(uint64_t phys, uint64_t size)
{
    uint64_t start = phys & ~(HUGE_PAGE_SIZE - 1);
    for (uint64_t pa = start; pa < phys + size; pa += HUGE_PAGE_SIZE) {
        uint64_t *e = pde_slot(DIRECT_MAP_BASE + pa);
        if (!(*e & PTE_P)) {
            *e = pa | PTE_P | PTE_W | PTE_PS | PTE_G | PTE_UC;
            cpu_invlpg((uintptr_t)(DIRECT_MAP_BASE + pa));
        }
    }
    return phys_to_virt(phys);
}

bool vm_is_mapped(uintptr_t va)
{
    uint64_t *t = table_at(read_cr3() & PTE_ADDR);
    for (int shift = 39; shift >= 12; shift -= 9) {
        uint64_t e = t[(va >> shift) & 511];
        if (!(e & PTE_P))
            return false;
        if ((e & PTE_PS) || shift == 12)
            return true;
        t = table_at(e & PTE_ADDR);
    }
    return true;
}

uint64_t vm_kernel_cr3(void) { return pml4_phys; }
