/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_bridge.c: the PCI-to-PCI bridges (PCIe root and switch
 * ports) the bus walk passed, and placing BARs that firmware left
 * unassigned (SR-IOV VF BARs) where every bridge above their device
 * routes them: SeaBIOS sizes a bridge's windows for the BARs it saw, never
 * for VF BARs, so the windows may have to grow (drivers/pci/pci_window.c
 * decides where; here they are read and programmed). Windows: PCI-to-PCI
 * Bridge Architecture 1.2 3.2.5.8 (memory), 3.2.5.9-3.2.5.10 (prefetchable,
 * with its upper 32 bits when bits 3:0 of its base read 1). */
#include "pci.h"

#include "pci_window.h"
#include "kernel/console/console.h"

static struct pci_bridge bridges[PCI_MAX_BRIDGES];
static int nbridges;

/* What pci_place_region gave out: busy for the next placements, which
 * cannot see it in any BAR until the VFs are added. */
#define MAX_GRANTS 32
struct grant {
    struct pci_span span;
    uint8_t up; /* as in pci_dev: the bridge above the device it went to */
};
static struct grant grants[MAX_GRANTS];
static int ngrants;

int pci_bridge_count(void) { return nbridges; }
const struct pci_bridge *pci_bridge_at(int i) { return i >= 0 && i < nbridges ? &bridges[i] : 0; }

static struct pci_dev cfg_of(const struct pci_bridge *b)
{
    return (struct pci_dev){.bus = b->bus, .dev = b->dev, .fn = b->fn};
}

uint8_t pci_bridge_add(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t up)
{
    if (nbridges == PCI_MAX_BRIDGES) {
        kprintf("pci %02x:%02x.%x: bridge table full\n", bus, dev, fn);
        return 0;
    }
    struct pci_bridge *b = &bridges[nbridges];
    *b = (struct pci_bridge){.bus = bus, .dev = dev, .fn = fn, .up = up};
    struct pci_dev cfg = cfg_of(b);
    b->secondary = pci_read8(&cfg, PCI_SECONDARY_BUS);
    b->subordinate = pci_read8(&cfg, PCI_SUBORDINATE_BUS);
    /* The prefetchable window is optional: its base reads 0 when absent,
     * and a writable one takes (and we put back) a test value (3.2.5.9). */
    uint16_t pref = pci_read16(&cfg, PCI_PREF_BASE);
    if (pref == 0) {
        pci_write16(&cfg, PCI_PREF_BASE, 0xfff0);
        pref = pci_read16(&cfg, PCI_PREF_BASE);
        pci_write16(&cfg, PCI_PREF_BASE, 0);
    }
    b->has_pref = pref != 0;
    b->pref64 = (pref & 0xf) == 1;
    struct pci_dev bars = cfg;
    pci_size_bars(&bars, 2); /* a type 1 header has two (3.2.5.1) */
    b->bar[0] = bars.bar[0];
    b->bar[1] = bars.bar[1];
    b->rom_phys = bars.rom_phys;
    b->rom_size = bars.rom_size;
    return (uint8_t)(++nbridges);
}

bool pci_bridge_ari_forward(const struct pci_dev *d)
{
    if (d->up == 0 || d->up > nbridges)
        return false;
    struct pci_dev cfg = cfg_of(&bridges[d->up - 1]);
    uint8_t pcie = pci_find_cap(&cfg, PCI_CAP_PCIE, 0);
    if (!pcie || !(pci_read32(&cfg, (uint16_t)(pcie + PCIE_DEVCAP2)) & PCIE_DEVCAP2_ARI_FWD))
        return false;
    uint16_t ctl = pci_read16(&cfg, (uint16_t)(pcie + PCIE_DEVCTL2));
    if (!(ctl & PCIE_DEVCTL2_ARI_FWD)) {
        pci_write16(&cfg, (uint16_t)(pcie + PCIE_DEVCTL2), (uint16_t)(ctl | PCIE_DEVCTL2_ARI_FWD));
        kprintf("pci %02x:%02x.%x: ARI forwarding on for %02x:%02x.%x\n", cfg.bus, cfg.dev, cfg.fn, d->bus, d->dev,
                d->fn);
    }
    return true;
}

enum { WIN_MEM, WIN_PREF };

static struct pci_span window(const struct pci_bridge *b, int type)
{
    struct pci_dev cfg = cfg_of(b);
    if (type == WIN_PREF && !b->has_pref)
        return (struct pci_span){0, 0};
    uint16_t off = type == WIN_PREF ? PCI_PREF_BASE : PCI_MEMORY_BASE;
    /* Bits 15:4 are address bits 31:20; the limit's bits 19:0 read as ones. */
    uint64_t base = (uint64_t)(pci_read16(&cfg, off) & 0xfff0) << 16;
    uint64_t limit = ((uint64_t)(pci_read16(&cfg, (uint16_t)(off + 2)) & 0xfff0) << 16) | 0xfffff;
    if (type == WIN_PREF && b->pref64) {
        base |= (uint64_t)pci_read32(&cfg, PCI_PREF_BASE_UPPER) << 32;
        limit |= (uint64_t)pci_read32(&cfg, PCI_PREF_LIMIT_UPPER) << 32;
    }
    /* Closed when the base is above the limit; a base of 0 is a window
     * firmware never opened (registers as reset), not one over RAM. */
    if (base > limit || base == 0)
        return (struct pci_span){0, 0};
    return (struct pci_span){base, limit + 1};
}

bool pci_bridge_window(const struct pci_bridge *b, bool pref, uint64_t *base, uint64_t *end)
{
    struct pci_span w = window(b, pref ? WIN_PREF : WIN_MEM);
    *base = w.base;
    *end = w.end;
    return w.base < w.end;
}

static void set_window(const struct pci_bridge *b, int type, struct pci_span w)
{
    struct pci_dev cfg = cfg_of(b);
    uint16_t off = type == WIN_PREF ? PCI_PREF_BASE : PCI_MEMORY_BASE;
    uint64_t limit = w.end - 1;
    if (type == WIN_PREF && b->pref64) {
        pci_write32(&cfg, PCI_PREF_BASE_UPPER, (uint32_t)(w.base >> 32));
        pci_write32(&cfg, PCI_PREF_LIMIT_UPPER, (uint32_t)(limit >> 32));
    }
    pci_write16(&cfg, off, (uint16_t)((w.base >> 16) & 0xfff0));
    pci_write16(&cfg, (uint16_t)(off + 2), (uint16_t)((limit >> 16) & 0xfff0));
    /* Memory Space Enable: without it a bridge forwards no memory access
     * downstream (3.2.5.3, PCI 3.0 6.2.2). */
    uint16_t cmd = pci_read16(&cfg, PCI_COMMAND);
    if (!(cmd & PCI_CMD_MEMORY))
        pci_write16(&cfg, PCI_COMMAND, (uint16_t)(cmd | PCI_CMD_MEMORY));
}

/* The bridges above up (pci_dev's encoding), the nearest first. */
static int chain_of(uint8_t up, int *chain)
{
    int n = 0;
    for (int i = up - 1; i >= 0 && i < nbridges && n < PCI_WINDOW_MAX_CHAIN; i = bridges[i].up - 1)
        chain[n++] = i;
    return n;
}

/* The first bridge of chain that has behind it what sits below up; n when none. */
static int inside_of(uint8_t up, const int *chain, int n)
{
    for (int i = up - 1, guard = 0; i >= 0 && i < nbridges && guard < PCI_WINDOW_MAX_CHAIN;
         i = bridges[i].up - 1, guard++)
        for (int j = 0; j < n; j++)
            if (chain[j] == i)
                return j;
    return n;
}

#define MAX_BUSY (PCI_MAX_DEVICES * 7 + PCI_MAX_BRIDGES * 5 + MAX_GRANTS + 1)
static struct pci_busy busy[MAX_BUSY]; /* rebuilt each time (boot, the CLI): one caller at a time */

static void add_busy(int *nb, uint64_t base, uint64_t size, int inside)
{
    if (size && base && *nb < MAX_BUSY)
        busy[(*nb)++] = (struct pci_busy){{base, base + size}, inside};
}

static void add_bars(int *nb, const struct pci_bar *bar, int nbars, int inside)
{
    for (int k = 0; k < nbars; k++)
        if (!bar[k].io)
            add_busy(nb, bar[k].phys, bar[k].size, inside);
}

/* Everything in the memory space but the chain's own windows of type. */
static int collect_busy(const int *chain, int n, int type)
{
    int nb = 0;
    uint64_t ecam_base, ecam_end;
    pci_ecam_span(&ecam_base, &ecam_end);
    add_busy(&nb, ecam_base, ecam_end - ecam_base, n);
    for (int i = 0; i < pci_count(); i++) {
        const struct pci_dev *d = pci_at(i);
        add_bars(&nb, d->bar, 6, inside_of(d->up, chain, n));
        add_busy(&nb, d->rom_phys, d->rom_size, inside_of(d->up, chain, n));
    }
    for (int i = 0; i < nbridges; i++) {
        const struct pci_bridge *b = &bridges[i];
        int in = inside_of(b->up, chain, n);
        add_bars(&nb, b->bar, 2, in);
        add_busy(&nb, b->rom_phys, b->rom_size, in);
        for (int t = WIN_MEM; t <= WIN_PREF; t++) {
            bool mine = false;
            for (int j = 0; j < n; j++)
                mine |= chain[j] == i && t == type;
            struct pci_span w = window(b, t);
            if (!mine)
                add_busy(&nb, w.base, w.end - w.base, in);
        }
    }
    for (int g = 0; g < ngrants; g++)
        add_busy(&nb, grants[g].span.base, grants[g].span.end - grants[g].span.base,
                 inside_of(grants[g].up, chain, n));
    return nb;
}

/* Where the region goes with windows of type; its growth in *cost. */
static uint64_t try_type(const int *chain, int n, int type, uint64_t size, bool is64, struct pci_span *grown,
                         uint64_t *cost)
{
    struct pci_span cur[PCI_WINDOW_MAX_CHAIN];
    for (int i = 0; i < n; i++) {
        if (type == WIN_PREF && !bridges[chain[i]].has_pref)
            return 0;
        cur[i] = window(&bridges[chain[i]], type);
    }
    if (n > 0 && !is64 && cur[0].end > (1ull << 32))
        return 0; /* a 32-bit BAR cannot reach a window above 4 GiB */
    uint64_t ecam_base, lo;
    pci_ecam_span(&ecam_base, &lo);
    if (lo < PCI_MMIO_FLOOR)
        lo = PCI_MMIO_FLOOR;
    int nb = collect_busy(chain, n, type);
    uint64_t hi = PCI_MMIO_CEILING;
    if (n == 0) {
        /* On the root bus, below everything firmware assigned, as before
         * bridges were known: gaps between its BARs may hold chipset
         * registers no BAR shows. */
        for (int b = 0; b < nb; b++)
            if (busy[b].span.base >= lo && busy[b].span.base < hi)
                hi = busy[b].span.base;
    }
    uint64_t base = pci_window_place(busy, nb, cur, n, size, lo, hi, grown);
    *cost = 0;
    for (int i = 0; base && i < n; i++)
        *cost += (grown[i].end - grown[i].base) - (cur[i].end - cur[i].base);
    return base;
}

uint64_t pci_place_region(const struct pci_dev *d, uint64_t size, bool prefetch, bool is64, const char *what)
{
    int chain[PCI_WINDOW_MAX_CHAIN];
    int n = chain_of(d->up, chain);
    struct pci_span grown[PCI_WINDOW_MAX_CHAIN], g2[PCI_WINDOW_MAX_CHAIN];
    uint64_t cost = 0, cost2 = 0;
    int type = WIN_MEM;
    uint64_t base = try_type(chain, n, WIN_MEM, size, is64, grown, &cost);
    if (prefetch && n > 0) { /* a prefetchable BAR may use either window (3.2.5.9) */
        uint64_t b2 = try_type(chain, n, WIN_PREF, size, is64, g2, &cost2);
        if (b2 && (!base || cost2 <= cost)) {
            base = b2;
            type = WIN_PREF;
            for (int i = 0; i < n; i++)
                grown[i] = g2[i];
        }
    }
    if (!base)
        return 0;
    /* Outermost first: a window never opens outside its parent's. */
    for (int i = n - 1; i >= 0; i--) {
        const struct pci_bridge *b = &bridges[chain[i]];
        struct pci_span cur = window(b, type);
        if (cur.base == grown[i].base && cur.end == grown[i].end)
            continue;
        set_window(b, type, grown[i]);
        kprintf("pci %02x:%02x.%x: %s window %s to 0x%llx-0x%llx for %s of %02x:%02x.%x\n", b->bus, b->dev, b->fn,
                type == WIN_PREF ? "prefetchable" : "memory", cur.base < cur.end ? "grown" : "opened",
                (unsigned long long)grown[i].base, (unsigned long long)(grown[i].end - 1), what, d->bus, d->dev,
                d->fn);
    }
    if (ngrants < MAX_GRANTS)
        grants[ngrants++] = (struct grant){{base, base + size}, d->up};
    return base;
}
