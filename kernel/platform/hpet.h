/* SPDX-License-Identifier: MIT */
/* kernel/platform/hpet.h: the HPET main counter, used only to measure the TSC. */
#ifndef KERNEL_HPET_H
#define KERNEL_HPET_H

#include <stdbool.h>
#include <stdint.h>

int hpet_init(void);          /* 0 when the ACPI HPET table names a usable one */
bool hpet_present(void);
uint64_t hpet_read(void);     /* main counter; 32 or 64 bits wide */
uint64_t hpet_mask(void);     /* the counter's width as a mask */
uint64_t hpet_period_fs(void);

#endif
