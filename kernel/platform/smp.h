/* SPDX-License-Identifier: MIT */
/* kernel/platform/smp.h: every core up (kernel/platform/smp.c). */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include <stdint.h>

/* After acpi_init and time_init, on the bootstrap core: its local APIC,
 * then every enabled core the MADT lists, each on its own stack, GDT/TSS,
 * per-core data, vector state and APIC. They wait for loop_start_all. */
void smp_init(void);
uint64_t smp_start_ns(void); /* how long smp_init took to start them all */

#endif
