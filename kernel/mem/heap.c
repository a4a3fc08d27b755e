/* SPDX-License-Identifier: MIT */
/* kernel/mem/heap.c: size classes of 16 B to 2 KiB carved from 64 KiB slabs,
 * each with a LIFO free list; anything larger is whole pages from the
 * physical allocator. Free takes the size back (as the route table's
 * allocator interface does), so blocks carry no header. A spinlock makes it
 * safe from any core; it is used on the control path only. */
#include "heap.h"

#include <stdatomic.h>

#include "kernel/arch/x86_64/cpu.h"
#include "memmap.h"
#include "pmm.h"

#define MIN_SHIFT 4
#define MAX_SHIFT 11
#define SLAB_PAGES 16

struct free_block {
    struct free_block *next;
};

static struct free_block *classes[MAX_SHIFT + 1];
static atomic_flag lock = ATOMIC_FLAG_INIT;
static uint64_t in_use;

static void acquire(void)
{
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        cpu_pause();
}

static void release(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

/* The class for size bytes: blocks of 2^k bytes, 2^k-aligned within
 * page-aligned slabs. */
static unsigned class_of(size_t size)
{
    unsigned k = MIN_SHIFT;
    while (((size_t)1 << k) < size)
        k++;
    return k;
}

static int refill(unsigned k)
{
    uint64_t pa = pmm_alloc(SLAB_PAGES, 1);
    if (!pa)
        return -1;
    uint8_t *slab = phys_to_virt(pa);
    size_t bsize = (size_t)1 << k;
    for (size_t off = 0; off + bsize <= SLAB_PAGES * PAGE_SIZE; off += bsize) {
        struct free_block *b = (struct free_block *)(slab + off);
        b->next = classes[k];
        classes[k] = b;
    }
    return 0;
}

void *heap_alloc(size_t size)
{
    if (size == 0)
        size = 1;
    void *p = 0;
    acquire();
    if (size <= ((size_t)1 << MAX_SHIFT)) {
        unsigned k = class_of(size);
        if (classes[k] || refill(k) == 0) {
            struct free_block *b = classes[k];
            classes[k] = b->next;
            p = b;
            in_use += (uint64_t)1 << k;
        }
    } else {
        uint64_t pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
        uint64_t pa = pmm_alloc(pages, 1);
        if (pa) {
            p = phys_to_virt(pa);
            in_use += pages * PAGE_SIZE;
        }
    }
    release();
    return p;
}

void heap_free(void *p, size_t size)
{
    if (!p)
        return;
    if (size == 0)
        size = 1;
    acquire();
    if (size <= ((size_t)1 << MAX_SHIFT)) {
        unsigned k = class_of(size);
        struct free_block *b = p;
        b->next = classes[k];
        classes[k] = b;
        in_use -= (uint64_t)1 << k;
    } else {
        uint64_t pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
        pmm_free(virt_to_phys(p), pages);
        in_use -= pages * PAGE_SIZE;
    }
    release();
}

uint64_t heap_bytes_in_use(void) { return in_use; }
