/* SPDX-License-Identifier: MIT */
/* kernel/platform/acpi_madt.h: the MADT, the table of interrupt controllers
 * (ACPI 6.5, 5.2.12): which processors exist and where their local APIC
 * is. Portable: parses a table already checksum-verified by kernel/platform/acpi.c. */
#ifndef KERNEL_ACPI_MADT_H
#define KERNEL_ACPI_MADT_H

#include <stdbool.h>
#include <stdint.h>

#define ACPI_MADT_MAX_CPUS 256

struct acpi_madt {
    uint64_t lapic_phys;   /* the local APIC's MMIO base (xAPIC mode) */
    uint32_t flags;        /* bit 0: PCAT_COMPAT, dual 8259s present */
    unsigned ncpus;        /* enabled processors, in table order */
    uint32_t apic_id[ACPI_MADT_MAX_CPUS];
    unsigned online_capable; /* listed as not enabled but hot-pluggable */
    unsigned disabled;       /* neither enabled nor online-capable */
    unsigned duplicates;     /* the same APIC id listed twice */
    unsigned dropped;        /* enabled beyond ACPI_MADT_MAX_CPUS */
    unsigned bad_entries;    /* a length that does not fit: parsing stopped */
};

/* table is the whole MADT (header included), len its length. Returns 0, or
 * -1 when it is too short to be a MADT. */
int acpi_madt_parse(const void *table, uint32_t len, struct acpi_madt *out);

#endif
