/* SPDX-License-Identifier: MIT */
/* tests/unit/drivers/pci_bridge.c: drivers/pci/pci_bridge.c against a
 * fake configuration space: root ports whose windows SeaBIOS sized for the
 * PF alone, then VF regions that need more. Checks what is written to the
 * bridges (PCI-to-PCI Bridge Architecture 1.2 3.2.5.8-3.2.5.10 encodings,
 * Memory Space Enable), the boot lines, and that nothing is moved when the
 * region fits. The file under test is compiled in here, with the config
 * accessors and kprintf it calls provided below. */
#include <stdarg.h>
#include <stdio.h>

#define kprintf test_bridge_kprintf
#include "drivers/pci/pci_bridge.c"
#include "tests/unit/check.h"

static uint8_t cfg[2][32][4096]; /* buses 0 and 1, function 0 only */
static struct pci_dev fake_devs[4];
static int fake_ndevs;
static char said[1024];

static uint8_t *at(const struct pci_dev *d, uint16_t off) { return &cfg[d->bus][d->dev][off]; }
uint8_t pci_read8(const struct pci_dev *d, uint16_t off) { return *at(d, off); }
uint16_t pci_read16(const struct pci_dev *d, uint16_t off) { return (uint16_t)(*at(d, off) | *at(d, off + 1) << 8); }
uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
    return pci_read16(d, off) | (uint32_t)pci_read16(d, (uint16_t)(off + 2)) << 16;
}
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    if (off == PCI_MEMORY_BASE || off == PCI_MEMORY_LIMIT || off == PCI_PREF_BASE || off == PCI_PREF_LIMIT)
        v = (uint16_t)((v & 0xfff0) | (pci_read16(d, off) & 0xf)); /* bits 3:0 read-only */
    *at(d, off) = (uint8_t)v;
    *at(d, off + 1) = (uint8_t)(v >> 8);
}
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
    pci_write16(d, off, (uint16_t)v);
    pci_write16(d, (uint16_t)(off + 2), (uint16_t)(v >> 16));
}
void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v) { *at(d, off) = v; }
uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint8_t after) { return 0; }
void pci_size_bars(struct pci_dev *d, int nbars) {} /* these bridges have no BARs */
int pci_count(void) { return fake_ndevs; }
struct pci_dev *pci_at(int i) { return i >= 0 && i < fake_ndevs ? &fake_devs[i] : 0; }
void pci_ecam_span(uint64_t *base, uint64_t *end)
{
    *base = 0xb0000000;
    *end = 0xc0000000;
}
int test_bridge_kprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = strlen(said);
    int r = vsnprintf(said + n, sizeof said - n, fmt, ap);
    va_end(ap);
    return r;
}

/* A root port at 00:dev.0 to bus `sec`, memory window [mem, mem_end),
 * prefetchable (64-bit capable) closed. */
static void fake_root_port(uint8_t dev, uint8_t sec, uint32_t mem, uint32_t mem_end)
{
    struct pci_dev d = {.bus = 0, .dev = dev};
    memset(cfg[0][dev], 0, 4096);
    pci_write8(&d, PCI_SECONDARY_BUS, sec);
    pci_write8(&d, PCI_SUBORDINATE_BUS, sec);
    pci_write16(&d, PCI_MEMORY_BASE, (uint16_t)(mem >> 16));
    pci_write16(&d, PCI_MEMORY_LIMIT, (uint16_t)((mem_end - 1) >> 16));
    *at(&d, PCI_PREF_BASE) = 0x01; /* the 64-bit flag, read-only */
    *at(&d, PCI_PREF_LIMIT) = 0x01;
    pci_write16(&d, PCI_PREF_BASE, 0xfff0); /* closed: base above limit */
    pci_write16(&d, PCI_PREF_LIMIT, 0x0000);
}

static struct pci_dev *setup(void)
{
    nbridges = ngrants = fake_ndevs = 0;
    said[0] = 0;
    fake_root_port(2, 1, 0xfe800000, 0xfe900000); /* the PF's: 1 MiB */
    fake_root_port(3, 2, 0xfe900000, 0xfea00000); /* a neighbour's, right above */
    CHECK(pci_bridge_add(0, 2, 0, 0) == 1);
    CHECK(pci_bridge_add(0, 3, 0, 0) == 2);
    CHECK(bridges[0].has_pref && bridges[0].pref64);
    fake_devs[fake_ndevs++] = (struct pci_dev){.bus = 0, .dev = 1, .bar = {{.phys = 0xfd000000, .size = 0x1000000}}};
    struct pci_dev *pf = &fake_devs[fake_ndevs++];
    *pf = (struct pci_dev){.bus = 1, .dev = 0, .up = 1,
                           .bar = {{.phys = 0xfe800000, .size = 0x80000}, {.phys = 0xfe880000, .size = 0x4000}}};
    return pf;
}

TEST(pci_bridge_fits_without_moving_anything)
{
    /* 2 x 16 KiB fits in the memory window's free half: nothing written. */
    struct pci_dev *pf = setup();
    struct pci_dev port = {.bus = 0, .dev = 2};
    uint64_t base = pci_place_region(pf, 0x8000, false, false, "VFs");
    CHECK(base >= 0xfe884000 && base + 0x8000 <= 0xfe900000);
    CHECK(said[0] == 0);
    CHECK(pci_read16(&port, PCI_MEMORY_BASE) == 0xfe80 && pci_read16(&port, PCI_MEMORY_LIMIT) == 0xfe80);
    /* The next one does not take the same place. */
    uint64_t next = pci_place_region(pf, 0x8000, false, false, "VFs");
    CHECK(next && (next + 0x8000 <= base || base + 0x8000 <= next));
}

TEST(pci_bridge_opens_the_prefetchable_window)
{
    /* 63 82599 VFs' BAR0 (1 MiB, 64-bit prefetchable): growing the memory
     * window or opening the prefetchable one cost 1 MiB each; the
     * prefetchable one wins the tie, at the top of the hole's free space. */
    struct pci_dev *pf = setup();
    struct pci_dev port = {.bus = 0, .dev = 2};
    uint64_t base = pci_place_region(pf, 0x100000, true, true, "VFs");
    CHECK(base == 0xfeb00000);
    CHECK(pci_read16(&port, PCI_PREF_BASE) == 0xfeb1 && pci_read16(&port, PCI_PREF_LIMIT) == 0xfeb1);
    CHECK(pci_read32(&port, PCI_PREF_BASE_UPPER) == 0 && pci_read32(&port, PCI_PREF_LIMIT_UPPER) == 0);
    CHECK(pci_read16(&port, PCI_COMMAND) & PCI_CMD_MEMORY);
    CHECK(strstr(said, "pci 00:02.0: prefetchable window opened to 0xfeb00000-0xfebfffff for VFs of 01:00.0\n"));
    /* BAR3's region: the prefetchable window grows down (up is the hole's end). */
    said[0] = 0;
    uint64_t bar3 = pci_place_region(pf, 0x100000, true, true, "VFs");
    CHECK(bar3 == 0xfea00000);
    CHECK(pci_read16(&port, PCI_PREF_BASE) == 0xfea1 && pci_read16(&port, PCI_PREF_LIMIT) == 0xfeb1);
    CHECK(strstr(said, "prefetchable window grown to 0xfea00000-0xfebfffff"));
}

TEST(pci_bridge_grows_the_memory_window_down)
{
    /* A 32-bit non-prefetchable 2 MiB region: only the memory window may
     * take it, and the neighbour's window above leaves only down. */
    struct pci_dev *pf = setup();
    struct pci_dev port = {.bus = 0, .dev = 2}, next = {.bus = 0, .dev = 3};
    uint64_t base = pci_place_region(pf, 0x200000, false, false, "VFs");
    CHECK(base == 0xfe600000);
    CHECK(pci_read16(&port, PCI_MEMORY_BASE) == 0xfe60 && pci_read16(&port, PCI_MEMORY_LIMIT) == 0xfe80);
    CHECK(pci_read16(&next, PCI_MEMORY_BASE) == 0xfe90 && pci_read16(&next, PCI_MEMORY_LIMIT) == 0xfe90);
    CHECK(strstr(said, "pci 00:02.0: memory window grown to 0xfe600000-0xfe8fffff for VFs of 01:00.0\n"));
}

TEST(pci_bridge_on_the_root_bus_goes_below_everything)
{
    /* No bridge above: below the lowest BAR or window (VGA at 0xfd000000). */
    struct pci_dev *pf = setup();
    pf->up = 0;
    pf->bus = 0;
    CHECK(pci_place_region(pf, 0x8000, true, true, "VFs") == 0xfcff8000);
    CHECK(pci_place_region(pf, 0x8000, true, true, "VFs") == 0xfcff0000);
    CHECK(said[0] == 0);
}

TEST(pci_bridge_opens_a_window_firmware_never_set)
{
    /* Base and limit registers as reset (0): read as [0, 1 MiB) by the
     * letter of 3.2.5.8, but no firmware routes RAM's first megabyte to a
     * port: treated as closed and opened where the region goes. */
    struct pci_dev *pf = setup();
    struct pci_dev port = {.bus = 0, .dev = 2};
    pci_write16(&port, PCI_MEMORY_BASE, 0);
    pci_write16(&port, PCI_MEMORY_LIMIT, 0);
    pf->bar[0] = pf->bar[1] = (struct pci_bar){0};
    uint64_t base = pci_place_region(pf, 0x4000, false, false, "VFs");
    CHECK(base == 0xfebfc000);
    CHECK(pci_read16(&port, PCI_MEMORY_BASE) == 0xfeb0 && pci_read16(&port, PCI_MEMORY_LIMIT) == 0xfeb0);
    CHECK(strstr(said, "pci 00:02.0: memory window opened to 0xfeb00000-0xfebfffff for VFs of 01:00.0\n"));
}
