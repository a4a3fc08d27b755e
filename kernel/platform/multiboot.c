/* SPDX-License-Identifier: MIT */
/* kernel/platform/multiboot.c: reads the multiboot2 boot information (Multiboot2
 * spec, 3.6: a u32 total size, a u32 reserved, then 8-byte-aligned tags). */
#include "multiboot.h"

#include "kernel/lib.h"
#include "kernel/mem/memmap.h"

enum {
    TAG_END = 0,
    TAG_CMDLINE = 1,
    TAG_LOADER = 2,
    TAG_MODULE = 3,
    TAG_MMAP = 6,
    TAG_ACPI_OLD = 14,
    TAG_ACPI_NEW = 15,
};

struct boot_info boot_info;

static void copy_str(char *dst, size_t cap, const char *src, uint32_t max)
{
    size_t i = 0;
    for (; i + 1 < cap && i < max && src[i]; i++)
        dst[i] = src[i];
    dst[i] = 0;
}

/* Strip directories: GRUB passes the string we gave module2, but a loader
 * may pass a path. */
static void copy_basename(char *dst, size_t cap, const char *src, uint32_t max)
{
    const char *base = src;
    for (uint32_t i = 0; i < max && src[i]; i++)
        if (src[i] == '/')
            base = src + i + 1;
    copy_str(dst, cap, base, max - (uint32_t)(base - src));
}

static void parse_mmap(const uint8_t *tag, uint32_t size)
{
    uint32_t esize = *(const uint32_t *)(tag + 8);
    if (esize < 24)
        return;
    for (uint32_t off = 16; off + esize <= size && boot_info.nmmap < BOOT_MAX_MMAP; off += esize) {
        const uint8_t *e = tag + off;
        struct boot_mmap_entry *m = &boot_info.mmap[boot_info.nmmap++];
        memcpy(&m->base, e, 8);
        memcpy(&m->len, e + 8, 8);
        memcpy(&m->type, e + 16, 4);
    }
}

int multiboot_parse(uint64_t mbi_phys)
{
    const uint8_t *mbi = phys_to_virt(mbi_phys);
    uint32_t total = *(const uint32_t *)mbi;
    if (total < 16 || total > (16u << 20))
        return -1;
    boot_info.mbi_phys = mbi_phys;
    boot_info.mbi_size = total;
    for (uint32_t off = 8; off + 8 <= total;) {
        const uint8_t *tag = mbi + off;
        uint32_t type = *(const uint32_t *)tag, size = *(const uint32_t *)(tag + 4);
        if (type == TAG_END)
            break;
        if (size < 8 || off + size > total)
            return -1;
        if (type == TAG_CMDLINE)
            copy_str(boot_info.cmdline, sizeof boot_info.cmdline, (const char *)tag + 8, size - 8);
        else if (type == TAG_LOADER)
            copy_str(boot_info.loader, sizeof boot_info.loader, (const char *)tag + 8, size - 8);
        else if (type == TAG_MMAP && size >= 16)
            parse_mmap(tag, size);
        else if (type == TAG_MODULE && size >= 16 && boot_info.nmodules < BOOT_MAX_MODULES) {
            struct boot_module *m = &boot_info.modules[boot_info.nmodules++];
            m->start = *(const uint32_t *)(tag + 8);
            m->end = *(const uint32_t *)(tag + 12);
            copy_basename(m->name, sizeof m->name, (const char *)tag + 16, size - 16);
        } else if ((type == TAG_ACPI_OLD || type == TAG_ACPI_NEW) && size > 8) {
            uint32_t n = size - 8 < sizeof boot_info.rsdp ? size - 8 : sizeof boot_info.rsdp;
            /* Prefer the ACPI 2.0 RSDP when both are given. */
            if (type == TAG_ACPI_NEW || boot_info.rsdp_len == 0) {
                memcpy(boot_info.rsdp, tag + 8, n);
                boot_info.rsdp_len = n;
            }
        }
        off += (size + 7) & ~7u;
    }
    return 0;
}

const struct boot_module *multiboot_module(const char *name)
{
    for (uint32_t i = 0; i < boot_info.nmodules; i++)
        if (strcmp(boot_info.modules[i].name, name) == 0)
            return &boot_info.modules[i];
    return 0;
}
