/* SPDX-License-Identifier: MIT */
/* kernel/app_runner.h: the kernel's side of kernel/app.h: the `app`
 * statement and starting the configured apps on each core's stack, for
 * the network service (kernel/netsvc/). */
#ifndef KERNEL_APP_RUNNER_H
#define KERNEL_APP_RUNNER_H

#include <stdbool.h>

struct net_stack;

void app_init(void);        /* registers app_table and the `app` statement */
bool app_configured(void);  /* some `app` statement applied */
/* Starts every configured app on s, the stack of core cpu. */
void app_start_all(struct net_stack *s, unsigned cpu);

#endif
