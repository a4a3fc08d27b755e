/* SPDX-License-Identifier: MIT */
/* kernel/platform/acpi.h: ACPI tables (ACPI 6.5 spec, chapter 5.2). */
#ifndef KERNEL_ACPI_H
#define KERNEL_ACPI_H

#include <stdbool.h>
#include <stdint.h>

struct acpi_header {
    char signature[4];
    uint32_t length;
    uint8_t revision, checksum;
    char oem_id[6], oem_table_id[8];
    uint32_t oem_revision, creator_id, creator_revision;
} __attribute__((packed));
_Static_assert(sizeof(struct acpi_header) == 36, "ACPI 5.2.6");

/* Finds the RSDP and the root table; reports bad tables and skips them. */
void acpi_init(void);
/* The index-th table with this signature whose checksum is good, or NULL. */
const struct acpi_header *acpi_find(const char sig[4], int index);
/* Powers off through the FADT (S5). Returns only if that failed. */
void acpi_poweroff(void);
uint8_t acpi_revision(void);
bool acpi_checksum_ok(const void *p, uint32_t len);

#endif
