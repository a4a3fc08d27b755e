/* SPDX-License-Identifier: MIT */
/* tests/unit/kernel/acpi_madt.c: kernel/platform/acpi_madt.c on hand-built tables. */
#include "kernel/platform/acpi_madt.h"
#include "tests/unit/check.h"

static uint8_t tab[256];
static uint32_t len;

static void put(const void *p, uint32_t n)
{
    memcpy(tab + len, p, n);
    len += n;
}
static void put32(uint32_t v) { put(&v, 4); }

static void header(void)
{
    memset(tab, 0, sizeof tab);
    len = 0;
    put("APIC", 4);
    len = 36;
    put32(0xfee00000u);
    put32(1);
}

static void lapic(uint8_t uid, uint8_t id, uint32_t flags)
{
    uint8_t e[4] = {0, 8, uid, id};
    put(e, 4);
    put32(flags);
}

static void x2apic(uint32_t id, uint32_t flags)
{
    uint8_t e[4] = {9, 16, 0, 0};
    put(e, 4);
    put32(id);
    put32(flags);
    put32(id); /* uid */
}

TEST(madt_cpus_flags_and_duplicates)
{
    struct acpi_madt m;
    header();
    lapic(0, 0, 1);
    lapic(1, 1, 1);
    lapic(2, 2, 2); /* online capable: not started */
    lapic(3, 3, 0); /* disabled */
    x2apic(1, 1);   /* the same processor again */
    x2apic(300, 1); /* beyond 8-bit ids */
    uint8_t io[12] = {1, 12}; /* an I/O APIC: skipped */
    put(io, 12);
    CHECK_EQ(acpi_madt_parse(tab, len, &m), 0);
    CHECK_EQ(m.lapic_phys, 0xfee00000u);
    CHECK_EQ(m.flags, 1);
    CHECK_EQ(m.ncpus, 3);
    CHECK_EQ(m.apic_id[0], 0);
    CHECK_EQ(m.apic_id[1], 1);
    CHECK_EQ(m.apic_id[2], 300);
    CHECK_EQ(m.online_capable, 1);
    CHECK_EQ(m.disabled, 1);
    CHECK_EQ(m.duplicates, 1);
    CHECK_EQ(m.bad_entries, 0);
}

TEST(madt_override_and_bad_entries)
{
    struct acpi_madt m;
    header();
    lapic(0, 0, 1);
    uint8_t ov[12] = {5, 12};
    uint64_t addr = 0x1234567000ull;
    memcpy(ov + 4, &addr, 8);
    put(ov, 12);
    uint8_t bad[2] = {0, 0}; /* length 0 would loop forever */
    put(bad, 2);
    lapic(1, 1, 1); /* after the bad entry: not reached */
    CHECK_EQ(acpi_madt_parse(tab, len, &m), 0);
    CHECK_EQ(m.lapic_phys, 0x1234567000ull);
    CHECK_EQ(m.ncpus, 1);
    CHECK_EQ(m.bad_entries, 1);
    /* an entry running past the end */
    header();
    lapic(0, 0, 1);
    uint8_t cut[2] = {0, 8};
    put(cut, 2);
    CHECK_EQ(acpi_madt_parse(tab, len, &m), 0);
    CHECK_EQ(m.ncpus, 1);
    CHECK_EQ(m.bad_entries, 1);
    CHECK_EQ(acpi_madt_parse(tab, 40, &m), -1);
    memcpy(tab, "FACP", 4);
    CHECK_EQ(acpi_madt_parse(tab, len, &m), -1);
}
