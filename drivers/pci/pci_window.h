/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_window.h: where a new memory region (SR-IOV VF BARs)
 * can go so that every PCI-to-PCI bridge above its device routes it, and
 * how far each of those bridges' windows must grow for that. Pure
 * arithmetic over address ranges (host unit tested); drivers/pci/
 * pci_bridge.c reads and programs the bridges. */
#ifndef DRIVERS_PCI_PCI_WINDOW_H
#define DRIVERS_PCI_PCI_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

/* A bridge's memory windows open and close on 1 MiB boundaries (PCI-to-PCI
 * Bridge Architecture 1.2 3.2.5.8: address bits 19:0 of the base read as 0,
 * of the limit as 1). */
#define PCI_WINDOW_GRAIN 0x100000ull
#define PCI_WINDOW_MAX_CHAIN 16

/* [base, end): end exclusive; base == end: empty (a closed window). */
struct pci_span {
    uint64_t base, end;
};

/* Something already in the address space: a BAR, another bridge's window,
 * ECAM. inside: the first bridge of the chain (0 = the one right above the
 * new region's device) that has it behind it; the chain's length when none
 * does. Bridge i's window may cover only what has inside <= i. */
struct pci_busy {
    struct pci_span span;
    int inside;
};

/* The region: size bytes (a power of two), naturally aligned, overlapping
 * nothing in busy. chain[0..n) are the bridges' current windows of one type,
 * from the device's bridge up to the one on the root bus; n may be 0 (the
 * device on the root bus). The region goes inside chain[0] when there is
 * room there; else each window grows (to the 1 MiB grain) to hold the one
 * below it, within [lo, hi) (the host bridge's hole), as little as can be.
 * Returns the region's base and fills grown[0..n) with the new windows;
 * 0 when nothing fits. */
uint64_t pci_window_place(const struct pci_busy *busy, int nbusy, const struct pci_span *chain, int n,
                          uint64_t size, uint64_t lo, uint64_t hi, struct pci_span *grown);

static inline bool pci_span_overlap(struct pci_span a, struct pci_span b)
{
    return a.base < a.end && b.base < b.end && a.base < b.end && b.base < a.end;
}

#endif
