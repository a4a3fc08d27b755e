/* SPDX-License-Identifier: MIT */
/* kernel/platform/percpu.c: the table of started cores (kernel/platform/percpu.h). Only the
 * bootstrap core adds cores, during kernel/platform/smp.c's start-up. */
#include "percpu.h"

static struct percpu bsp;
static struct percpu *table[MAX_CPUS];
static _Atomic unsigned ncpus;

unsigned cpu_count(void) { return atomic_load_explicit(&ncpus, memory_order_acquire); }

struct percpu *percpu_at(unsigned index) { return index < cpu_count() ? table[index] : 0; }

void percpu_install(struct percpu *p)
{
    p->self = p;
    wrmsr(MSR_GS_BASE, (uint64_t)(uintptr_t)p);
}

void percpu_init_bsp(void)
{
    bsp.index = 0;
    percpu_install(&bsp);
    percpu_publish(&bsp);
}

void percpu_publish(struct percpu *p)
{
    table[p->index] = p;
    atomic_store_explicit(&ncpus, p->index + 1, memory_order_release);
}
