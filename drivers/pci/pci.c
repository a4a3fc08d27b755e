/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci.c: configuration access through ECAM (the MCFG table's
 * first segment) with legacy port I/O (0xcf8/0xcfc, PCI 3.0 3.2.2.3.2) as
 * the fallback, then a walk from bus 0 down through every bridge, each
 * recorded (pci_bridge.c) and named as `up` of what lies behind it. BARs
 * are sized (write all ones, read back; PCI 3.0 6.2.5.1) with decoding off. */
#include "pci.h"

#include "kernel/platform/acpi.h"
#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/vm.h"
#include "kernel/time.h"

struct mcfg_alloc {
    uint64_t base;
    uint16_t segment;
    uint8_t start_bus, end_bus;
    uint32_t reserved;
} __attribute__((packed));
_Static_assert(sizeof(struct mcfg_alloc) == 16, "PCI Firmware 3.2 table 4-3");

static struct pci_dev devs[PCI_MAX_DEVICES];
static int ndevs;
static uint8_t *ecam;
static uint8_t ecam_start_bus, ecam_end_bus;
static uint64_t ecam_phys, ecam_phys_end;

const char *pci_access_method(void) { return ecam ? "ecam" : "port-io"; }

static volatile void *ecam_addr(const struct pci_dev *d, uint16_t off)
{
    uint64_t o = ((uint64_t)(d->bus - ecam_start_bus) << 20) | ((uint64_t)d->dev << 15) | ((uint64_t)d->fn << 12) | off;
    return ecam + o;
}

static void port_select(const struct pci_dev *d, uint16_t off)
{
    outl(0xcf8, 0x80000000u | ((uint32_t)d->bus << 16) | ((uint32_t)d->dev << 11) | ((uint32_t)d->fn << 8) | (off & 0xfc));
}

uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
    if (ecam)
        return *(volatile uint32_t *)ecam_addr(d, off);
    port_select(d, off);
    return inl(0xcfc);
}

uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
    if (ecam)
        return *(volatile uint16_t *)ecam_addr(d, off);
    port_select(d, off);
    return inw((uint16_t)(0xcfc + (off & 2)));
}

uint8_t pci_read8(const struct pci_dev *d, uint16_t off)
{
    if (ecam)
        return *(volatile uint8_t *)ecam_addr(d, off);
    port_select(d, off);
    return inb((uint16_t)(0xcfc + (off & 3)));
}

void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
    if (ecam) {
        *(volatile uint32_t *)ecam_addr(d, off) = v;
        return;
    }
    port_select(d, off);
    outl(0xcfc, v);
}

void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
    if (ecam) {
        *(volatile uint16_t *)ecam_addr(d, off) = v;
        return;
    }
    port_select(d, off);
    outw((uint16_t)(0xcfc + (off & 2)), v);
}

void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v)
{
    if (ecam) {
        *(volatile uint8_t *)ecam_addr(d, off) = v;
        return;
    }
    port_select(d, off);
    outb((uint16_t)(0xcfc + (off & 3)), v);
}

uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint8_t after)
{
    if (!(pci_read16(d, PCI_STATUS) & PCI_STATUS_CAP_LIST))
        return 0;
    uint8_t off = after ? pci_read8(d, (uint16_t)(after + 1)) : pci_read8(d, PCI_CAP_PTR);
    for (int guard = 0; off >= 0x40 && guard < 48; guard++) { /* a looped list must end */
        off &= 0xfc;
        if (pci_read8(d, off) == id)
            return off;
        off = pci_read8(d, (uint16_t)(off + 1));
    }
    return 0;
}

void pci_size_bars(struct pci_dev *d, int nbars)
{
    uint16_t cmd = pci_read16(d, PCI_COMMAND);
    pci_write16(d, PCI_COMMAND, (uint16_t)(cmd & ~(PCI_CMD_IO | PCI_CMD_MEMORY)));
    for (int i = 0; i < nbars; i++) {
        uint16_t off = (uint16_t)(PCI_BAR0 + 4 * i);
        uint32_t orig = pci_read32(d, off);
        pci_write32(d, off, 0xffffffffu);
        uint32_t mask = pci_read32(d, off);
        pci_write32(d, off, orig);
        struct pci_bar *b = &d->bar[i];
        if (mask == 0 || mask == 0xffffffffu)
            continue;
        if (orig & 1) {
            b->io = true;
            b->phys = orig & ~3u;
            b->size = (uint16_t)~(mask & ~3u) + 1u;
            continue;
        }
        b->prefetch = orig & 8;
        b->is64 = ((orig >> 1) & 3) == 2;
        uint64_t base = orig & ~0xfull, m = mask & ~0xfull;
        if (b->is64 && i < nbars - 1) {
            uint16_t hi = (uint16_t)(off + 4);
            uint32_t orig_hi = pci_read32(d, hi);
            pci_write32(d, hi, 0xffffffffu);
            uint32_t mask_hi = pci_read32(d, hi);
            pci_write32(d, hi, orig_hi);
            base |= (uint64_t)orig_hi << 32;
            m |= (uint64_t)mask_hi << 32;
        } else {
            m |= 0xffffffff00000000ull;
        }
        b->phys = base;
        b->size = ~m + 1;
        if (b->is64)
            i++; /* the upper half is not a BAR of its own */
    }
    /* The expansion ROM BAR (PCI 3.0 6.2.5.2; 0x38 in a bridge's header):
     * firmware may leave one assigned, and nothing else may go there.
     * Address bits 31:11, bit 0 its decode enable, written back as found. */
    uint16_t rom = nbars == 6 ? 0x30 : 0x38;
    uint32_t orig = pci_read32(d, rom);
    pci_write32(d, rom, 0xfffff800u);
    uint32_t mask = pci_read32(d, rom) & 0xfffff800u;
    pci_write32(d, rom, orig);
    if (mask && (orig & 0xfffff800u)) {
        d->rom_phys = orig & 0xfffff800u;
        d->rom_size = ~mask + 1;
    }
    pci_write16(d, PCI_COMMAND, cmd);
}

static void scan_bus(uint8_t bus, int depth, uint8_t up);

static void scan_function(uint8_t bus, uint8_t dev, uint8_t fn, int depth, uint8_t up)
{
    struct pci_dev probe = {.bus = bus, .dev = dev, .fn = fn};
    uint16_t vendor = pci_read16(&probe, PCI_VENDOR_ID);
    if (vendor == 0xffff)
        return;
    uint32_t class_rev = pci_read32(&probe, PCI_REVISION);
    uint8_t htype = pci_read8(&probe, PCI_HEADER_TYPE) & 0x7f;
    if (htype == 1) { /* PCI-to-PCI bridge: walk what is behind it */
        uint8_t sec = pci_read8(&probe, PCI_SECONDARY_BUS);
        uint8_t below = pci_bridge_add(bus, dev, fn, up);
        if (sec > bus && depth < 16) /* when the table is full, still found (as if on the root bus) */
            scan_bus(sec, depth + 1, below);
        return;
    }
    if (htype != 0 || ndevs == PCI_MAX_DEVICES)
        return;
    struct pci_dev *d = &devs[ndevs++];
    *d = probe;
    d->up = up;
    d->vendor = vendor;
    d->device = pci_read16(&probe, PCI_DEVICE_ID);
    d->revision = (uint8_t)class_rev;
    d->prog_if = (uint8_t)(class_rev >> 8);
    d->subclass = (uint8_t)(class_rev >> 16);
    d->class_code = (uint8_t)(class_rev >> 24);
    pci_size_bars(d, 6);
}

static void scan_bus(uint8_t bus, int depth, uint8_t up)
{
    if (ecam && (bus < ecam_start_bus || bus > ecam_end_bus))
        return;
    for (uint8_t dev = 0; dev < 32; dev++) {
        struct pci_dev probe = {.bus = bus, .dev = dev};
        if (pci_read16(&probe, PCI_VENDOR_ID) == 0xffff)
            continue;
        bool multi = pci_read8(&probe, PCI_HEADER_TYPE) & 0x80;
        for (uint8_t fn = 0; fn < (multi ? 8 : 1); fn++)
            scan_function(bus, dev, fn, depth, up);
    }
}

static void find_ecam(void)
{
    const struct acpi_header *mcfg = acpi_find("MCFG", 0);
    if (!mcfg || mcfg->length < sizeof *mcfg + 8 + sizeof(struct mcfg_alloc))
        return;
    const struct mcfg_alloc *a = (const void *)((const uint8_t *)mcfg + sizeof *mcfg + 8);
    uint64_t size = ((uint64_t)(a->end_bus - a->start_bus) + 1) << 20;
    if (a->segment != 0 || a->end_bus < a->start_bus)
        return;
    ecam_start_bus = a->start_bus;
    ecam_end_bus = a->end_bus;
    ecam = vm_map_mmio(a->base, size);
    ecam_phys = a->base;
    ecam_phys_end = a->base + size;
}

void pci_ecam_span(uint64_t *base, uint64_t *end)
{
    *base = ecam_phys;
    *end = ecam_phys_end;
}

void pci_init(void)
{
    find_ecam();
    scan_bus(ecam ? ecam_start_bus : 0, 0, 0);
}

uint16_t pci_find_ext_cap(const struct pci_dev *d, uint16_t id)
{
    if (!ecam)
        return 0; /* port I/O reaches only the first 256 bytes */
    uint16_t off = 0x100;
    for (int n = 0; off >= 0x100 && n < 64; n++) { /* bounded: a broken list must not loop */
        uint32_t h = pci_read32(d, off);
        if (h == 0 || h == 0xffffffffu)
            return 0;
        if ((h & 0xffff) == id)
            return off;
        off = (uint16_t)((h >> 20) & 0xffc);
    }
    return 0;
}

struct pci_dev *pci_add(const struct pci_dev *d)
{
    if (ndevs == PCI_MAX_DEVICES)
        return 0;
    devs[ndevs] = *d;
    return &devs[ndevs++];
}

int pci_count(void) { return ndevs; }
struct pci_dev *pci_at(int i) { return i >= 0 && i < ndevs ? &devs[i] : 0; }

void pci_enable(struct pci_dev *d)
{
    uint16_t cmd = pci_read16(d, PCI_COMMAND);
    pci_write16(d, PCI_COMMAND, (uint16_t)(cmd | PCI_CMD_MEMORY | PCI_CMD_IO | PCI_CMD_BUS_MASTER | PCI_CMD_INTX_DISABLE));
}

bool pci_flr(struct pci_dev *d)
{
    uint8_t cap = pci_find_cap(d, 0x10, 0); /* PCI Express */
    if (!cap || !(pci_read32(d, (uint16_t)(cap + 4)) & (1u << 28)))
        return false;
    uint32_t saved[16];
    for (int i = 0; i < 16; i++)
        saved[i] = pci_read32(d, (uint16_t)(4 * i));
    pci_write16(d, (uint16_t)(cap + 8), (uint16_t)(pci_read16(d, (uint16_t)(cap + 8)) | 0x8000)); /* Initiate FLR */
    time_delay_us(100000); /* 6.6.2: 100 ms before the function is touched again */
    for (int i = 15; i >= 1; i--) /* the command register last */
        pci_write32(d, (uint16_t)(4 * i), saved[i]);
    return true;
}

void *pci_map_bar(struct pci_dev *d, int i)
{
    struct pci_bar *b = &d->bar[i];
    if (i < 0 || i > 5 || b->io || !b->size || !b->phys)
        return 0;
    if (!b->virt)
        b->virt = vm_map_mmio(b->phys, b->size);
    return b->virt;
}
