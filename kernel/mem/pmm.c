/* SPDX-License-Identifier: MIT */
/* kernel/mem/pmm.c: physical page allocator: one bit per 4 KiB page up to the
 * top of RAM, set = in use. Reserved from the start: everything that is not
 * RAM in the multiboot2 memory map, the first 1 MiB (BIOS data, the AP
 * trampoline), the kernel image, the boot information, the modules, and the
 * bitmap itself. First fit with a moving cursor: allocation is boot-time
 * and rare, so simplicity wins. */
#include "pmm.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "memmap.h"
#include "kernel/platform/multiboot.h"

static uint64_t *bitmap;
static uint64_t npages, nfree, nram, cursor;

static int test_bit(uint64_t i) { return (int)(bitmap[i / 64] >> (i % 64) & 1); }
static void set_bit(uint64_t i) { bitmap[i / 64] |= 1ull << (i % 64); }
static void clear_bit(uint64_t i) { bitmap[i / 64] &= ~(1ull << (i % 64)); }

static void mark(uint64_t start, uint64_t end, int used)
{
    uint64_t first = start / PAGE_SIZE, last = (end + PAGE_SIZE - 1) / PAGE_SIZE;
    if (!used) { /* only whole pages become free */
        first = (start + PAGE_SIZE - 1) / PAGE_SIZE;
        last = end / PAGE_SIZE;
    }
    for (uint64_t i = first; i < last && i < npages; i++) {
        if (used && !test_bit(i)) {
            set_bit(i);
            nfree--;
        } else if (!used && test_bit(i)) {
            clear_bit(i);
            nfree++;
        }
    }
}

/* Where the bitmap can go: RAM above 1 MiB that overlaps nothing reserved. */
static int overlaps_reserved(uint64_t s, uint64_t e)
{
    uint64_t ks = (uint64_t)(uintptr_t)kernel_phys_start, ke = (uint64_t)(uintptr_t)kernel_phys_end;
    if (s < ke && e > ks)
        return 1;
    if (s < boot_info.mbi_phys + boot_info.mbi_size && e > boot_info.mbi_phys)
        return 1;
    for (uint32_t i = 0; i < boot_info.nmodules; i++)
        if (s < boot_info.modules[i].end && e > boot_info.modules[i].start)
            return 1;
    return 0;
}

static uint64_t place_bitmap(uint64_t bytes)
{
    for (uint32_t i = 0; i < boot_info.nmmap; i++) {
        const struct boot_mmap_entry *m = &boot_info.mmap[i];
        if (m->type != MMAP_RAM)
            continue;
        for (uint64_t s = (m->base + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1); s + bytes <= m->base + m->len; s += PAGE_SIZE) {
            if (s >= (1ull << 20) && s + bytes <= (4ull << 30) && !overlaps_reserved(s, s + bytes))
                return s;
        }
    }
    panic("pmm: no room for the page bitmap");
}

void pmm_init(void)
{
    uint64_t top = 0;
    for (uint32_t i = 0; i < boot_info.nmmap; i++)
        if (boot_info.mmap[i].type == MMAP_RAM && boot_info.mmap[i].base + boot_info.mmap[i].len > top)
            top = boot_info.mmap[i].base + boot_info.mmap[i].len;
    npages = top / PAGE_SIZE;
    uint64_t bytes = ((npages + 63) / 64) * 8;
    uint64_t bm_phys = place_bitmap(bytes);
    bitmap = phys_to_virt(bm_phys);
    memset(bitmap, 0xff, bytes);
    nfree = 0;
    for (uint32_t i = 0; i < boot_info.nmmap; i++)
        if (boot_info.mmap[i].type == MMAP_RAM)
            mark(boot_info.mmap[i].base, boot_info.mmap[i].base + boot_info.mmap[i].len, 0);
    nram = nfree;
    mark(0, 1ull << 20, 1);
    mark((uint64_t)(uintptr_t)kernel_phys_start, (uint64_t)(uintptr_t)kernel_phys_end, 1);
    mark(boot_info.mbi_phys, boot_info.mbi_phys + boot_info.mbi_size, 1);
    for (uint32_t i = 0; i < boot_info.nmodules; i++)
        mark(boot_info.modules[i].start, boot_info.modules[i].end, 1);
    mark(bm_phys, bm_phys + bytes, 1);
    cursor = (1ull << 20) / PAGE_SIZE;
}

uint64_t pmm_alloc(uint64_t n, uint64_t align_pages)
{
    if (n == 0 || n > nfree)
        return 0;
    if (align_pages == 0)
        align_pages = 1;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t i = (pass == 0 ? cursor : 0);
        i = (i + align_pages - 1) / align_pages * align_pages;
        uint64_t end = pass == 0 ? npages : cursor + n;
        for (; i + n <= npages && i < end; i += align_pages) {
            uint64_t j = 0;
            while (j < n && !test_bit(i + j))
                j++;
            if (j == n) {
                mark(i * PAGE_SIZE, (i + n) * PAGE_SIZE, 1);
                cursor = i + n;
                return i * PAGE_SIZE;
            }
        }
    }
    return 0;
}

void pmm_free(uint64_t phys, uint64_t n) { mark(phys, phys + n * PAGE_SIZE, 0); }
uint64_t pmm_free_pages(void) { return nfree; }
uint64_t pmm_total_pages(void) { return nram; }
uint64_t pmm_ram_top(void) { return npages * PAGE_SIZE; }
