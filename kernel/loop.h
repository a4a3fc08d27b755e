/* SPDX-License-Identifier: MIT */
/* kernel/loop.h: one run-to-completion loop per core (kernel/loop.c).
 *
 * Each pass on a core: handle the messages other cores sent it
 * (kernel/msg.h), fire its due timers, then run each of its pollers once;
 * then, if nothing did any work, pause (idle "poll", the default) or, under
 * idle "halt", sleep until its next timer (at most LOOP_HALT_MAX_NS) with
 * the local APIC's one-shot timer. Interrupts stay off otherwise: with the
 * default policy a core takes no interrupt at all.
 *
 * Everything here is per core and lock-free; a poller, timer or message
 * handler runs on one core only, to completion, and must not block. */
#ifndef KERNEL_LOOP_H
#define KERNEL_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/loop_timer.h" /* loop_fn, the timers */

#define LOOP_MAX_POLLERS 16
#define LOOP_HALT_MAX_NS 1000000ull /* halted cores still poll every 1 ms */


/* After smp_init, on core 0: one loop, timer wheel and set of message
 * rings per started core. */
void loop_init(void);
/* Runs fn(arg, now_ns) once per pass on core cpu, in the order added.
 * At boot before loop_start_all, or on the calling core itself. Returns 0,
 * or -1 (no such core, table full, or another core's running loop). */
int loop_add_poller(unsigned cpu, const char *name, loop_fn fn, void *arg);
/* End of kernel_main64: lets every other core into its loop (they wait
 * halted; one wake-up IPI each), then runs core 0's. */
__attribute__((noreturn)) void loop_start_all(void);
__attribute__((noreturn)) void loop_run_ap(void); /* kernel/platform/smp.c */
bool loop_started(void);

/* A poller says it did n units of work this pass (for busy share, and to
 * keep the core from going idle). Timers and messages count themselves. */
void loop_note_work(unsigned n);

/* Runs this core's loop (messages, timers, the other pollers) until
 * done(arg) or timeout_ns pass: for a console command that must wait for
 * other cores. Returns 0, or -1 on timeout. Nests at most twice. */
int loop_run_until(bool (*done)(void *arg), void *arg, uint64_t timeout_ns);

/* Quiescent states for safe reclamation of shared read-mostly data (the
 * route table): every outer loop pass is a quiescent point, where a core
 * holds no reference to such data. A writer unpublishes an object, takes
 * e = loop_quiescent_epoch(), and may free it once loop_quiescent_since(e)
 * (every other core has passed a quiescent point since). The calling core
 * itself must hold no reference. loop_wait_quiescent does both, running
 * the caller's loop meanwhile (bounded: 1 s; -1 on timeout). */
uint64_t loop_quiescent_epoch(void);
bool loop_quiescent_since(uint64_t epoch);
int loop_wait_quiescent(void);

enum loop_idle { LOOP_IDLE_POLL, LOOP_IDLE_HALT };
void loop_set_idle(enum loop_idle policy);
const char *loop_idle_name(void);

unsigned loop_poller_count(unsigned cpu);
const char *loop_poller_name(unsigned cpu, unsigned i);
size_t loop_timers_pending(void); /* on the calling core */

#endif
