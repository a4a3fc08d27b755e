/* kernel/time.h: the monotonic clock (TSC-based, nanoseconds since boot). */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <stdint.h>

void time_init(void);
uint64_t time_now_ns(void);
uint64_t time_tsc_hz(void);
const char *time_tsc_source(void); /* how the frequency was found */
uint64_t time_tsc_to_ns(uint64_t ticks);
void time_delay_us(uint64_t us);

#endif
