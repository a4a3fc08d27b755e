/* SPDX-License-Identifier: MIT */
/* kernel/arch/x86_64/lapic.h: the local APIC: identity, inter-processor
 * interrupts (INIT, STARTUP, wake-ups) and the one-shot timer a core arms
 * only when it chooses to sleep. No periodic interrupt, ever. */
#ifndef KERNEL_ARCH_LAPIC_H
#define KERNEL_ARCH_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

enum { LAPIC_TIMER_VECTOR = 0xf0, LAPIC_WAKE_VECTOR = 0xf1, LAPIC_SPURIOUS_VECTOR = 0xff };

/* Bootstrap core, once: x2APIC mode when CPUID has it, else xAPIC at
 * mmio_phys (the MADT's address; 0 means the MSR's). Masks the 8259s and
 * installs the timer, wake-up and spurious handlers. Then lapic_init_cpu. */
void lapic_init(uint64_t mmio_phys);
void lapic_init_cpu(void);           /* every core: enable, LVTs masked */
void lapic_calibrate_timer(void);    /* bootstrap core, after time_init */
uint32_t lapic_id(void);
bool lapic_is_x2apic(void);
const char *lapic_mode(void);        /* "x2apic" or "xapic" */
bool lapic_can_address(uint32_t apic_id);

/* Each returns 0, or -1 when the APIC did not accept it in time. */
int lapic_send_init(uint32_t apic_id);
int lapic_send_startup(uint32_t apic_id, uint64_t page_phys);
int lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_eoi(void);

/* One interrupt (LAPIC_TIMER_VECTOR) ns from now: TSC-deadline mode when
 * the CPU has it, else the calibrated one-shot count. At most 1 s. */
void lapic_timer_arm_ns(uint64_t ns);
void lapic_timer_stop(void);
const char *lapic_timer_mode(void);  /* "tsc-deadline" or "one-shot" */
uint64_t lapic_timer_hz(void);       /* one-shot count rate; 0: TSC-deadline */

#endif
