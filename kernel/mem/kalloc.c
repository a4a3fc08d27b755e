/* SPDX-License-Identifier: MIT */
/* kernel/mem/kalloc.c: a bump allocator over pages from the physical allocator,
 * for structures made once at boot (per-core state, rings, tables). */
#include "kalloc.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "memmap.h"
#include "pmm.h"

#define CHUNK_PAGES 16

static uint8_t *cur, *end;
static uint64_t used;

void *kalloc_pages_try(uint64_t n, uint64_t align_pages)
{
    uint64_t pa = pmm_alloc(n, align_pages);
    if (!pa)
        return NULL;
    void *va = phys_to_virt(pa);
    memset(va, 0, n * PAGE_SIZE);
    used += n * PAGE_SIZE;
    return va;
}

void *kalloc_pages(uint64_t n, uint64_t align_pages)
{
    void *va = kalloc_pages_try(n, align_pages);
    if (!va)
        panic("kalloc: out of memory (%lu pages)", n);
    return va;
}

void *kalloc_huge(uint64_t n2m) { return kalloc_pages(n2m * (HUGE_PAGE_SIZE / PAGE_SIZE), HUGE_PAGE_SIZE / PAGE_SIZE); }

void *kalloc(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    if (size > CHUNK_PAGES * PAGE_SIZE / 2)
        return kalloc_pages((size + PAGE_SIZE - 1) / PAGE_SIZE, 1);
    if (!cur || (size_t)(end - cur) < size) {
        cur = kalloc_pages(CHUNK_PAGES, 1);
        end = cur + CHUNK_PAGES * PAGE_SIZE;
    }
    void *p = cur;
    cur += size;
    return p;
}

uint64_t kalloc_used_bytes(void) { return used; }
