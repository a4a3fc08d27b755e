/* SPDX-License-Identifier: MIT */
/* kernel/mem/pktmem.c: per-core packet buffer pools (kernel/mem/pktmem.h).
 * Each core gets a quarter of free memory divided by the core count,
 * between 8 and 64 MiB (4,096 to 32,768 buffers): enough for its RX rings
 * and what is in flight, small enough to stay cache-friendly (lesson 4).
 * Where many cores share little memory, pools take half of it at most. */
#include "pktmem.h"

#include "kernel/console/cli.h"
#include "kernel/console/console.h"
#include "kalloc.h"
#include "memmap.h"
#include "pmm.h"

#define PKTMEM_MAX_CPUS 64
#define MIN_BYTES (8ull << 20)
#define MAX_BYTES (64ull << 20)

static struct pkt_pool *pools[PKTMEM_MAX_CPUS];
static unsigned npools;
static uint64_t per_core;

/* Counts read from another core are recent, not exact. */
static void cmd_show_buffers(const struct cli_args *a)
{
    struct json j;
    if (a->json) {
        cli_json_begin(&j);
        json_obj_begin(&j, 0);
        json_u64(&j, "buffer_bytes", PKT_BUF_SIZE);
        json_arr_begin(&j, "pools");
    }
    for (unsigned c = 0; c < npools; c++) {
        const struct pkt_pool *p = pools[c];
        if (a->json) {
            json_obj_begin(&j, 0);
            json_u64(&j, "core", c);
            json_u64(&j, "total", p->total);
            json_u64(&j, "free", p->nfree);
            json_u64(&j, "alloc-fail", p->alloc_fail);
            json_obj_end(&j);
        } else {
            kprintf("core %u: %u of %u buffers free, %lu allocations failed\n", c, p->nfree, p->total, p->alloc_fail);
        }
    }
    if (a->json) {
        json_arr_end(&j);
        json_obj_end(&j);
        cli_json_end(&j);
    }
}

void pktmem_init(unsigned ncpus)
{
    if (ncpus > PKTMEM_MAX_CPUS)
        ncpus = PKTMEM_MAX_CPUS;
    uint64_t free = pmm_free_pages() * PAGE_SIZE, most = free / 2 / ncpus; /* the rest: TCP, tables */
    per_core = free / 4 / ncpus;
    per_core = per_core < MIN_BYTES ? MIN_BYTES : per_core > MAX_BYTES ? MAX_BYTES : per_core;
    if (per_core > most) { /* many cores, little memory: smaller pools rather than no boot */
        per_core = most;
        kprintf("pktmem: %lu KiB of buffers a core, under %llu MiB: more memory would suit %u cores\n",
                most >> 10, MIN_BYTES >> 20, ncpus);
    }
    per_core &= ~(HUGE_PAGE_SIZE - 1);
    if (per_core == 0)
        panic("pktmem: not %u MiB of memory for %u cores' packet buffers", ncpus * 4, ncpus);
    for (unsigned c = 0; c < ncpus; c++) {
        void *mem = kalloc_huge(per_core / HUGE_PAGE_SIZE);
        pools[c] = kalloc(sizeof *pools[c]);
        pkt_pool_init(pools[c], mem, virt_to_phys(mem), per_core);
    }
    npools = ncpus;
    cli_register("show buffers", "show buffers [json]", "packet buffer pools, per core", cmd_show_buffers);
}

struct pkt_pool *pktmem_pool(unsigned cpu) { return cpu < PKTMEM_MAX_CPUS ? pools[cpu] : 0; }
uint64_t pktmem_bytes_per_core(void) { return per_core; }
