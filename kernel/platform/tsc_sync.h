/* SPDX-License-Identifier: MIT */
/* kernel/platform/tsc_sync.h: a starting core's TSC measured against core 0's
 * (kernel/platform/tsc_sync.c). The two sides run at once, during kernel/platform/smp.c's
 * start-up of that core. */
#ifndef KERNEL_TSC_SYNC_H
#define KERNEL_TSC_SYNC_H

#include "percpu.h"

void tsc_sync_init(void);              /* core 0, before any start */
void tsc_sync_bsp(struct percpu *ap);  /* core 0: sets ap->tsc_base, tsc_skew_* */
void tsc_sync_ap(struct percpu *self); /* the starting core */

#endif
