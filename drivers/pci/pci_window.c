/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_window.c: placing a region where every bridge above its
 * device routes it (see pci_window.h). A bridge forwards a memory access
 * downstream when the address lies in its memory or prefetchable window
 * (PCI-to-PCI Bridge Architecture 1.2 4.3), so the region must lie in a
 * window of each bridge of the chain, and a window grown for it must not
 * take an address that something outside that bridge decodes. */
#include "pci_window.h"

static bool span_within(struct pci_span in, struct pci_span out)
{
    return out.base < out.end && out.base <= in.base && in.end <= out.end;
}

/* The growth of every window when the region is at r; UINT64_MAX when it
 * cannot be there. */
static uint64_t cost_at(const struct pci_busy *busy, int nbusy, const struct pci_span *chain, int n,
                        struct pci_span r, uint64_t lo, uint64_t hi, struct pci_span *grown)
{
    for (int b = 0; b < nbusy; b++)
        if (pci_span_overlap(r, busy[b].span))
            return UINT64_MAX;
    uint64_t cost = 0;
    struct pci_span below = r;
    for (int i = 0; i < n; i++) {
        struct pci_span w = chain[i];
        if (span_within(below, w)) {
            grown[i] = w; /* it routes what is below already */
            below = w;
            continue;
        }
        struct pci_span g = below;
        if (w.base < w.end) {
            g.base = w.base < g.base ? w.base : g.base;
            g.end = w.end > g.end ? w.end : g.end;
        }
        g.base &= ~(PCI_WINDOW_GRAIN - 1);
        g.end = (g.end + PCI_WINDOW_GRAIN - 1) & ~(PCI_WINDOW_GRAIN - 1);
        if (g.base < lo || g.end > hi)
            return UINT64_MAX; /* grown windows stay in the host bridge's hole */
        for (int b = 0; b < nbusy; b++)
            if (busy[b].inside > i && pci_span_overlap(g, busy[b].span))
                return UINT64_MAX;
        cost += (g.end - g.base) - (w.base < w.end ? w.end - w.base : 0);
        grown[i] = g;
        below = g;
    }
    return cost;
}

uint64_t pci_window_place(const struct pci_busy *busy, int nbusy, const struct pci_span *chain, int n,
                          uint64_t size, uint64_t lo, uint64_t hi, struct pci_span *grown)
{
    if (size == 0 || (size & (size - 1)) || n < 0 || n > PCI_WINDOW_MAX_CHAIN)
        return 0;
    struct pci_span try[PCI_WINDOW_MAX_CHAIN];
    /* Inside the device's bridge's window first, from its top: nothing
     * grows, and it may lie anywhere firmware put it (above 4 GiB too). */
    if (n > 0 && chain[0].end - chain[0].base >= size) {
        for (uint64_t a = (chain[0].end - size) & ~(size - 1); a >= chain[0].base && a != 0; a -= size) {
            struct pci_span r = {a, a + size};
            if (cost_at(busy, nbusy, chain, n, r, lo, hi, try) == 0) {
                for (int i = 0; i < n; i++)
                    grown[i] = try[i];
                return a;
            }
            if (a < size)
                break;
        }
    }
    /* Anywhere in the hole, the least growth winning, the highest address
     * among equals (firmware packs BARs down from the top). */
    uint64_t best = 0, best_cost = UINT64_MAX;
    if (hi < size || lo >= hi)
        return 0;
    for (uint64_t a = (hi - size) & ~(size - 1); a >= lo && a != 0; a -= size) {
        struct pci_span r = {a, a + size};
        uint64_t c = cost_at(busy, nbusy, chain, n, r, lo, hi, try);
        if (c < best_cost) {
            best = a;
            best_cost = c;
            for (int i = 0; i < n; i++)
                grown[i] = try[i];
            if (c == 0)
                break;
        }
        if (a < size)
            break;
    }
    return best_cost == UINT64_MAX ? 0 : best;
}
