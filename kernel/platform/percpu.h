/* SPDX-License-Identifier: MIT */
/* kernel/platform/percpu.h: per-core data, reached through the GS base (each core
 * points MSR_GS_BASE at its own struct percpu; nothing else uses GS).
 * Cores are numbered densely from 0, the bootstrap core, in MADT order.
 * Counters are written only by their own core; other cores (the console)
 * may read them at any time and see a recent value. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/arch/x86_64/cpu.h"

#define MAX_CPUS 256

struct cpu_tables;
struct loop_core;

struct percpu {
    struct percpu *self; /* first: percpu_self() reads %gs:0 */
    uint32_t index;      /* 0 .. cpu_count() - 1 */
    uint32_t apic_id;
    uint64_t tsc_base;   /* this core's TSC at boot time: time_now_ns() */
    struct cpu_tables *tables;
    struct loop_core *loop;
    uint64_t stack_top;
    /* Start-up (kernel/platform/smp.c, kernel/platform/tsc_sync.c). */
    uint64_t start_ns;              /* STARTUP to running C, this core */
    uint64_t sync_ns;               /* then measuring its TSC */
    int64_t tsc_skew_lo, tsc_skew_hi; /* TSC minus core 0's lies within, ticks */
    /* Counters of the run loop (kernel/loop.c) and interrupts. */
    uint64_t loop_passes, work_passes;
    uint64_t loop_start_tsc, busy_tsc; /* TSC ticks in passes that did work */
    uint64_t irqs, timer_irqs, wake_irqs, halts;
    uint64_t msgs_handled, msgs_sent, msgs_ring_full;
    uint64_t calls, calls_busy, calls_timeout; /* msg_call from this core */
    uint64_t timers_fired;
    uint32_t work; /* work reported in the running pass */
    /* Read by other cores. */
    _Alignas(64) _Atomic uint64_t qs_epoch; /* quiescent: epoch seen at the last pass */
    _Atomic uint32_t sleeping;              /* halted, wants a wake-up IPI */
};

static inline struct percpu *percpu_self(void) { return (struct percpu *)(uintptr_t)gs_load64(0); }
static inline unsigned cpu_index(void) { return gs_load32_const(offsetof(struct percpu, index)); }
unsigned cpu_count(void);
struct percpu *percpu_at(unsigned index); /* NULL past cpu_count() */

/* The bootstrap core's, static: usable from the first line of kernel_main64. */
void percpu_init_bsp(void);
/* Installs p on this core (GS base); p->self is set here. */
void percpu_install(struct percpu *p);
/* Makes p, a started core, visible as percpu_at(p->index). */
void percpu_publish(struct percpu *p);

#endif
