/* SPDX-License-Identifier: MIT */
/* kernel/platform/acpi.c: RSDP, RSDT/XSDT, and the FADT for power-off.
 * ACPI 6.5: 5.2.5 (RSDP), 5.2.7/5.2.8 (RSDT/XSDT), 5.2.9 (FADT),
 * 7.4.2 (\_S5 sleep type), 4.8.3.2.1 (PM1 control: SLP_TYP, SLP_EN).
 * Every table's checksum is verified; a bad one is reported and skipped. */
#include "acpi.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"
#include "multiboot.h"

#define MAX_TABLES 64

static const struct acpi_header *tables[MAX_TABLES];
static int ntables;
static uint8_t revision;

bool acpi_checksum_ok(const void *p, uint32_t len)
{
    const uint8_t *b = p;
    uint8_t sum = 0;
    for (uint32_t i = 0; i < len; i++)
        sum += b[i];
    return sum == 0;
}

static const uint8_t *find_rsdp(void)
{
    if (boot_info.rsdp_len >= 20)
        return boot_info.rsdp;
    /* No tag: the BIOS areas (5.2.5.1): EBDA's first KiB, then E0000-FFFFF. */
    uint64_t ebda = (uint64_t)*(const uint16_t *)phys_to_virt(0x40e) << 4;
    uint64_t ranges[2][2] = {{ebda, ebda + 1024}, {0xe0000, 0x100000}};
    for (int r = 0; r < 2; r++)
        for (uint64_t a = ranges[r][0]; a + 20 <= ranges[r][1]; a += 16) {
            const uint8_t *p = phys_to_virt(a);
            if (memcmp(p, "RSD PTR ", 8) == 0 && acpi_checksum_ok(p, 20))
                return p;
        }
    return 0;
}

static void add_table(uint64_t phys)
{
    const struct acpi_header *h = phys_to_virt(phys);
    if (phys == 0 || h->length < sizeof *h || h->length > (16u << 20)) {
        kprintf("acpi: table at %lx: bad length, skipped\n", phys);
        return;
    }
    if (!acpi_checksum_ok(h, h->length)) {
        kprintf("acpi: %.4s at %lx: bad checksum, skipped\n", h->signature, phys);
        return;
    }
    if (ntables < MAX_TABLES)
        tables[ntables++] = h;
}

void acpi_init(void)
{
    const uint8_t *rsdp = find_rsdp();
    if (!rsdp || memcmp(rsdp, "RSD PTR ", 8) != 0 || !acpi_checksum_ok(rsdp, 20)) {
        kprintf("acpi: no valid RSDP\n");
        return;
    }
    revision = rsdp[15];
    uint64_t xsdt = 0;
    uint32_t rsdt;
    memcpy(&rsdt, rsdp + 16, 4);
    if (revision >= 2 && boot_info.rsdp_len >= 36 && acpi_checksum_ok(rsdp, 36))
        memcpy(&xsdt, rsdp + 24, 8);
    uint64_t root = xsdt ? xsdt : rsdt;
    unsigned entry = xsdt ? 8 : 4;
    const struct acpi_header *h = phys_to_virt(root);
    if (!root || h->length < sizeof *h || !acpi_checksum_ok(h, h->length)) {
        kprintf("acpi: root table %s bad, no ACPI\n", xsdt ? "XSDT" : "RSDT");
        return;
    }
    const uint8_t *ents = (const uint8_t *)h + sizeof *h;
    for (uint32_t off = 0; off + entry <= h->length - sizeof *h; off += entry) {
        uint64_t phys = 0;
        memcpy(&phys, ents + off, entry);
        add_table(phys);
    }
    const struct acpi_header *fadt = acpi_find("FACP", 0);
    if (fadt) { /* the DSDT is reached through the FADT only */
        uint32_t dsdt32 = 0;
        uint64_t dsdt64 = 0;
        memcpy(&dsdt32, (const uint8_t *)fadt + 40, 4);
        if (fadt->length >= 148)
            memcpy(&dsdt64, (const uint8_t *)fadt + 140, 8);
        add_table(dsdt64 ? dsdt64 : dsdt32);
    }
}

const struct acpi_header *acpi_find(const char sig[4], int index)
{
    for (int i = 0; i < ntables; i++)
        if (memcmp(tables[i]->signature, sig, 4) == 0 && index-- == 0)
            return tables[i];
    return 0;
}

uint8_t acpi_revision(void) { return revision; }

/* \_S5 in the DSDT's AML: NameOp "_S5_" PackageOp PkgLength NumElements
 * then SLP_TYPa as ZeroOp, OneOp, or BytePrefix value (ACPI 20.2). */
static int s5_sleep_type(const struct acpi_header *dsdt, uint16_t *typ_a, uint16_t *typ_b)
{
    const uint8_t *p = (const uint8_t *)dsdt + sizeof *dsdt, *end = (const uint8_t *)dsdt + dsdt->length;
    for (; p + 8 < end; p++) {
        if (memcmp(p, "_S5_", 4) != 0 || p[4] != 0x12)
            continue;
        const uint8_t *q = p + 5;
        q += ((*q >> 6) & 3) + 1; /* PkgLength: lead byte + 0..3 more */
        q++;                      /* NumElements */
        uint16_t v[2];
        for (int i = 0; i < 2; i++) {
            if (q >= end)
                return -1;
            if (*q == 0x0a && q + 1 < end) {
                v[i] = q[1];
                q += 2;
            } else if (*q == 0x00 || *q == 0x01) {
                v[i] = *q++;
            } else {
                return -1;
            }
        }
        *typ_a = v[0];
        *typ_b = v[1];
        return 0;
    }
    return -1;
}

void acpi_poweroff(void)
{
    const struct acpi_header *fadt = acpi_find("FACP", 0), *dsdt = acpi_find("DSDT", 0);
    if (!fadt || !dsdt || fadt->length < 76) {
        kprintf("acpi: no FADT/DSDT, cannot power off through ACPI\n");
        return;
    }
    const uint8_t *f = (const uint8_t *)fadt;
    uint32_t smi_cmd, pm1a, pm1b;
    memcpy(&smi_cmd, f + 48, 4);
    memcpy(&pm1a, f + 64, 4);
    memcpy(&pm1b, f + 68, 4);
    uint16_t typ_a, typ_b;
    if (!pm1a || s5_sleep_type(dsdt, &typ_a, &typ_b) != 0) {
        kprintf("acpi: no \\_S5 sleep type, cannot power off through ACPI\n");
        return;
    }
    /* Switch to ACPI mode if firmware left us in legacy mode (4.8.2.1.1). */
    if (!(inw((uint16_t)pm1a) & 1) && smi_cmd && f[52]) {
        outb((uint16_t)smi_cmd, f[52]);
        for (int i = 0; i < 1000000 && !(inw((uint16_t)pm1a) & 1); i++)
            cpu_pause();
    }
    outw((uint16_t)pm1a, (uint16_t)((typ_a << 10) | (1 << 13)));
    if (pm1b)
        outw((uint16_t)pm1b, (uint16_t)((typ_b << 10) | (1 << 13)));
    for (int i = 0; i < 10000000; i++)
        cpu_pause();
    kprintf("acpi: S5 did not take effect\n");
}
