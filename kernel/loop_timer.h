/* SPDX-License-Identifier: MIT */
/* kernel/loop_timer.h: timers on a core's run loop (kernel/loop.c), apart
 * from the rest of kernel/loop.h so that the app interface (kernel/app.h)
 * can hold them by value without seeing the loop. */
#ifndef KERNEL_LOOP_TIMER_H
#define KERNEL_LOOP_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/timerwheel.h"

typedef void (*loop_fn)(void *arg, uint64_t now_ns);

/* Timers on the calling core's wheel (lib/timerwheel.h): O(1), exact,
 * never early, in deadline order. A timer stays on the core that armed it
 * until it fires or is cancelled; only that core may cancel or re-arm it. */
struct loop_timer {
    struct timerwheel_timer tw;
    unsigned cpu;
};
void loop_timer_init(struct loop_timer *t, loop_fn fn, void *arg);
void loop_timer_arm(struct loop_timer *t, uint64_t deadline_ns);
void loop_timer_cancel(struct loop_timer *t);
bool loop_timer_pending(const struct loop_timer *t);

#endif
