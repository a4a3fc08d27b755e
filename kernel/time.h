/* SPDX-License-Identifier: MIT */
/* kernel/time.h: the monotonic clock (TSC-based, nanoseconds since boot,
 * the same on every core: kernel/time.c). */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdbool.h>
#include <stdint.h>

void time_init(void); /* after acpi_init: it may calibrate against the HPET */
uint64_t time_now_ns(void);
uint64_t time_ns_at(uint64_t tsc); /* a TSC value read on this core, in ns */
uint64_t time_tsc_hz(void);
uint64_t time_tsc_boot(void);      /* core 0's TSC at time 0 */
const char *time_tsc_source(void); /* how the frequency was found */
bool time_tsc_invariant(void);     /* constant rate in every power state */
uint64_t time_tsc_to_ns(uint64_t ticks);
int64_t time_ticks_signed_ns(int64_t ticks); /* a TSC difference, either sign */
void time_delay_us(uint64_t us);

#endif
