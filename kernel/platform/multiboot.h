/* SPDX-License-Identifier: MIT */
/* kernel/platform/multiboot.h: what the kernel keeps from the multiboot2 boot
 * information (Multiboot2 spec, 3.6): memory map, command line, modules,
 * ACPI RSDP. Copied out early so the original can be reused. */
#ifndef KERNEL_MULTIBOOT_H
#define KERNEL_MULTIBOOT_H

#include <stdint.h>

#define BOOT_MAX_MMAP 128
#define BOOT_MAX_MODULES 32

enum { MMAP_RAM = 1, MMAP_ACPI_RECLAIM = 3, MMAP_NVS = 4, MMAP_BAD = 5 };

struct boot_mmap_entry {
    uint64_t base, len;
    uint32_t type;
};

struct boot_module {
    uint64_t start, end; /* physical, end exclusive */
    char name[64];       /* the module string: the file's base name */
};

struct boot_info {
    uint64_t mbi_phys, mbi_size;
    char cmdline[256];
    char loader[64];
    struct boot_mmap_entry mmap[BOOT_MAX_MMAP];
    uint32_t nmmap;
    struct boot_module modules[BOOT_MAX_MODULES];
    uint32_t nmodules;
    uint8_t rsdp[36]; /* ACPI RSDP as given (v1: 20 bytes, v2: 36) */
    uint32_t rsdp_len;
};

extern struct boot_info boot_info;

/* Parses the information at mbi_phys (reached through the early direct
 * map). Returns 0, or -1 when it is malformed. */
int multiboot_parse(uint64_t mbi_phys);
const struct boot_module *multiboot_module(const char *name);

#endif
