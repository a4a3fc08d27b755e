/* SPDX-License-Identifier: MIT */
/* kernel/platform/acpi_madt.c: the MADT (ACPI 6.5, 5.2.12). After the 36-byte
 * header come the local APIC address (u32) and flags (u32), then entries
 * of (type u8, length u8, ...). We read:
 *   type 0, Processor Local APIC (5.2.12.2): uid u8, APIC id u8, flags u32;
 *   type 5, Local APIC Address Override (5.2.12.8): reserved u16, addr u64;
 *   type 9, Processor Local x2APIC (5.2.12.12): reserved u16, x2APIC id
 *           u32, flags u32, uid u32.
 * Local APIC flags (Table 5.23): bit 0 Enabled, bit 1 Online Capable (the
 * processor may be added later; not started at boot). A processor may be
 * listed as both type 0 and type 9: it is counted once. */
#include "acpi_madt.h"

#include "kernel/lib.h"

enum { MADT_HEADER = 36 + 8, ENT_LAPIC = 0, ENT_LAPIC_OVERRIDE = 5, ENT_X2APIC = 9 };
enum { LAPIC_ENABLED = 1u << 0, LAPIC_ONLINE_CAPABLE = 1u << 1 };

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void add_cpu(struct acpi_madt *m, uint32_t apic_id, uint32_t flags)
{
    if (!(flags & LAPIC_ENABLED)) {
        if (flags & LAPIC_ONLINE_CAPABLE)
            m->online_capable++;
        else
            m->disabled++;
        return;
    }
    for (unsigned i = 0; i < m->ncpus; i++)
        if (m->apic_id[i] == apic_id) {
            m->duplicates++;
            return;
        }
    if (m->ncpus == ACPI_MADT_MAX_CPUS) {
        m->dropped++;
        return;
    }
    m->apic_id[m->ncpus++] = apic_id;
}

int acpi_madt_parse(const void *table, uint32_t len, struct acpi_madt *m)
{
    const uint8_t *t = table;
    memset(m, 0, sizeof *m);
    if (len < MADT_HEADER || memcmp(t, "APIC", 4) != 0)
        return -1;
    m->lapic_phys = rd32(t + 36);
    m->flags = rd32(t + 40);
    for (uint32_t off = MADT_HEADER; off + 2 <= len;) {
        uint8_t type = t[off], elen = t[off + 1];
        if (elen < 2 || off + elen > len) {
            m->bad_entries++;
            break;
        }
        const uint8_t *e = t + off;
        if (type == ENT_LAPIC && elen >= 8)
            add_cpu(m, e[3], rd32(e + 4));
        else if (type == ENT_X2APIC && elen >= 16)
            add_cpu(m, rd32(e + 4), rd32(e + 8));
        else if (type == ENT_LAPIC_OVERRIDE && elen >= 12)
            memcpy(&m->lapic_phys, e + 4, 8);
        off += elen;
    }
    return 0;
}
