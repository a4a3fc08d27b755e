/* SPDX-License-Identifier: MIT */
/* kernel/msg.h: core-to-core messages (kernel/msg.c): one lock-free
 * single-producer single-consumer ring (lib/spsc.h) per ordered pair of
 * cores, so a core can ask another to run a function (read counters, apply
 * a route update) with no lock on the data path. The target runs it in its
 * loop, between pollers, in the order sent. Send from loop context only
 * (pollers, timers, message handlers, kernel_main64), never from an
 * interrupt handler. */
#ifndef KERNEL_MSG_H
#define KERNEL_MSG_H

#include <stdbool.h>
#include <stdint.h>

#define MSG_RING_SLOTS 64
#define MSG_BURST 32                       /* per ring per pass */
#define MSG_CALL_TIMEOUT_NS 2000000000ull

typedef void (*msg_fn)(void *arg);

void msg_init(void); /* kernel/loop.c's loop_init */
/* Queues fn(arg) to run on core to_cpu. Returns 0, or -1 when there is no
 * such core or its ring from this core is full (counted: msgs_ring_full). */
int msg_send(unsigned to_cpu, msg_fn fn, void *arg);
/* Runs fn(arg) on core cpu and waits for it, running this core's loop
 * meanwhile (a full ring is retried). Returns 0 once it ran; -1 if it was
 * not queued and started within MSG_CALL_TIMEOUT_NS (it then never runs),
 * or an earlier call from here to there timed out and is still queued. */
int msg_call(unsigned cpu, msg_fn fn, void *arg);

/* For kernel/loop.c: handle what is waiting for this core (returns how
 * many), and whether anything is. */
unsigned msg_poll(void);
bool msg_pending(void);

#endif
