/* SPDX-License-Identifier: MIT */
/* kernel/platform/hpet.c: the High Precision Event Timer's main counter.
 * IA-PC HPET Specification 1.0a: 3.2.4 (the ACPI "HPET" table: the base
 * address is a Generic Address Structure at byte 40, its 64-bit address at
 * byte 44), 2.3.9.2.1 (General Capabilities: COUNTER_CLK_PERIOD in bits
 * 63:32, femtoseconds, at most 100 ns; COUNT_SIZE_CAP bit 13), 2.3.9.2.2
 * (General Configuration: ENABLE_CNF bit 0), main counter at 0xf0.
 * Only read, never used for interrupts. */
#include "hpet.h"

#include "acpi.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/vm.h"

enum { REG_CAP = 0x00 / 8, REG_CONFIG = 0x10 / 8, REG_COUNTER = 0xf0 / 8 };
#define MAX_PERIOD_FS 100000000ull

static volatile uint64_t *regs;
static uint64_t period_fs, mask;

int hpet_init(void)
{
    const struct acpi_header *t = acpi_find("HPET", 0);
    if (!t || t->length < 56)
        return -1;
    const uint8_t *b = (const uint8_t *)t;
    uint64_t phys;
    memcpy(&phys, b + 44, 8);
    if (b[40] != 0 || phys == 0 || (phys & 7)) { /* GAS space 0: memory */
        kprintf("hpet: base %lx in address space %u: not usable\n", phys, b[40]);
        return -1;
    }
    volatile uint64_t *r = vm_map_mmio(phys, 1024);
    uint64_t cap = r[REG_CAP];
    period_fs = cap >> 32;
    if (period_fs == 0 || period_fs > MAX_PERIOD_FS) {
        kprintf("hpet: period %lu fs out of range\n", period_fs);
        return -1;
    }
    mask = (cap & (1u << 13)) ? ~0ull : 0xffffffffull;
    r[REG_CONFIG] |= 1; /* count */
    regs = r;
    return 0;
}

bool hpet_present(void) { return regs != 0; }
uint64_t hpet_read(void) { return regs[REG_COUNTER] & mask; }
uint64_t hpet_mask(void) { return mask; }
uint64_t hpet_period_fs(void) { return period_fs; }
