/* SPDX-License-Identifier: MIT */
/* tests/unit/drivers/pci_window.c: where drivers/pci/pci_window.c puts
 * SR-IOV VF BARs, and how it grows the bridges' windows above them: the
 * address maps are those SeaBIOS leaves on QEMU q35 (a root port's
 * windows at 0xfe000000 up, VGA's 16 MiB below), then tighter ones. */
#include "drivers/pci/pci_window.h"
#include "tests/unit/check.h"

#define LO 0xc0000000ull
#define HI 0xfec00000ull
#define MIB 0x100000ull

static bool within(struct pci_span in, struct pci_span out)
{
    return out.base <= in.base && in.end <= out.end;
}

/* What every placement must hold: aligned, free, routed by the whole chain,
 * each grown window on the 1 MiB grain, holding the one below and its old
 * self, in the hole unless unchanged, clear of what lies outside it. */
static void check_placement(const struct pci_busy *busy, int nb, const struct pci_span *chain, int n,
                            uint64_t size, uint64_t base, const struct pci_span *grown)
{
    struct pci_span r = {base, base + size};
    CHECK(base != 0 && base % size == 0);
    for (int b = 0; b < nb; b++)
        CHECK(!pci_span_overlap(r, busy[b].span));
    struct pci_span below = r;
    for (int i = 0; i < n; i++) {
        CHECK(within(below, grown[i]));
        CHECK(grown[i].base % MIB == 0 && grown[i].end % MIB == 0);
        if (chain[i].base < chain[i].end)
            CHECK(within(chain[i], grown[i]));
        if (grown[i].base != chain[i].base || grown[i].end != chain[i].end)
            CHECK(grown[i].base >= LO && grown[i].end <= HI);
        for (int b = 0; b < nb; b++)
            if (busy[b].inside > i)
                CHECK(!pci_span_overlap(grown[i], busy[b].span));
        below = grown[i];
    }
}

TEST(pci_window_flat_takes_the_highest_free_slot)
{
    /* No bridge: anywhere in the hole that nothing decodes. */
    struct pci_busy busy[] = {{{0xfd000000, 0xfe000000}, 0}, {{0xfe000000, 0xfec00000}, 0}};
    struct pci_span grown[1];
    uint64_t base = pci_window_place(busy, 2, 0, 0, 0x8000, LO, HI, grown);
    CHECK(base == 0xfcff8000);
    check_placement(busy, 2, 0, 0, 0x8000, base, grown);
}

TEST(pci_window_fits_inside_the_root_port)
{
    /* QEMU q35 + SeaBIOS: the root port's prefetchable window is 2 MiB with
     * the PF's 64-bit BAR3 elsewhere: seven igb VFs' 16 KiB BARs (region
     * 128 KiB) go at its top, nothing grows. */
    struct pci_span chain[] = {{0xfe000000, 0xfe200000}};
    struct pci_busy busy[] = {{{0xfd000000, 0xfe000000}, 1},  /* VGA, on the root bus */
                              {{0xfe800000, 0xfea00000}, 1},  /* the port's memory window */
                              {{0xfe000000, 0xfe004000}, 0}}; /* something behind the port */
    struct pci_span grown[1];
    uint64_t base = pci_window_place(busy, 3, chain, 1, 0x20000, LO, HI, grown);
    CHECK(base == 0xfe1e0000);
    CHECK(grown[0].base == chain[0].base && grown[0].end == chain[0].end);
    check_placement(busy, 3, chain, 1, 0x20000, base, grown);
}

TEST(pci_window_grows_away_from_a_neighbour)
{
    /* A full 1 MiB window with another root port's window right above it:
     * it must grow down, by exactly what the region needs. */
    struct pci_span chain[] = {{0xfe800000, 0xfe900000}};
    struct pci_busy busy[] = {{{0xfe800000, 0xfe900000}, 0},  /* the PF's BARs fill it */
                              {{0xfe900000, 0xfea00000}, 1},  /* the neighbour's window */
                              {{0xfd000000, 0xfe000000}, 1}}; /* VGA */
    struct pci_span grown[1];
    uint64_t base = pci_window_place(busy, 3, chain, 1, 2 * MIB, LO, HI, grown);
    CHECK(base == 0xfe600000);
    CHECK(grown[0].base == 0xfe600000 && grown[0].end == 0xfe900000);
    check_placement(busy, 3, chain, 1, 2 * MIB, base, grown);
}

TEST(pci_window_opens_a_closed_window)
{
    /* No prefetchable window yet: it opens on the 1 MiB grain around the
     * region, clear of the BARs on the root bus. */
    struct pci_span chain[] = {{0, 0}};
    struct pci_busy busy[] = {{{0xfe000000, 0xfec00000}, 1}};
    struct pci_span grown[1];
    uint64_t base = pci_window_place(busy, 1, chain, 1, 0x4000, LO, HI, grown);
    CHECK(base == 0xfdffc000);
    CHECK(grown[0].base == 0xfdf00000 && grown[0].end == 0xfe000000);
    check_placement(busy, 1, chain, 1, 0x4000, base, grown);
}

TEST(pci_window_grows_a_switch_and_its_root_port)
{
    /* A switch's downstream port (chain[0]) behind a root port (chain[1]),
     * beside a sibling downstream port (inside 1) and another root port
     * (inside 2): both windows grow, the outer one holding the inner. */
    struct pci_span chain[] = {{0xfe400000, 0xfe500000}, {0xfe400000, 0xfe600000}};
    struct pci_busy busy[] = {{{0xfe400000, 0xfe500000}, 0},  /* the PF's BARs */
                              {{0xfe500000, 0xfe600000}, 1},  /* sibling downstream port */
                              {{0xfe600000, 0xfec00000}, 2},  /* the rest of the root bus */
                              {{0xfd000000, 0xfe000000}, 2}};
    struct pci_span grown[2];
    uint64_t base = pci_window_place(busy, 4, chain, 2, MIB, LO, HI, grown);
    CHECK(base == 0xfe300000);
    CHECK(grown[0].base == 0xfe300000 && grown[0].end == 0xfe500000);
    CHECK(grown[1].base == 0xfe300000 && grown[1].end == 0xfe600000);
    check_placement(busy, 4, chain, 2, MIB, base, grown);
}

TEST(pci_window_fits_63_82599_vfs)
{
    /* 82599: up to 63 VFs a port, VF BAR0 and BAR3 16 KiB each: two 1 MiB
     * regions (63 x 16 KiB, to a power of two) behind a root port whose
     * windows SeaBIOS sized for the PF alone. */
    struct pci_span chain[] = {{0xfe000000, 0xfe100000}};
    struct pci_busy busy[] = {{{0xfe000000, 0xfe084000}, 0},  /* PF BAR0 512 KiB, BAR3 16 KiB */
                              {{0xfe400000, 0xfe600000}, 1},  /* the next port's window */
                              {{0xfd000000, 0xfe000000}, 1}}; /* VGA: it must grow up */
    struct pci_span grown[1];
    uint64_t bar0 = pci_window_place(busy, 3, chain, 1, MIB, LO, HI, grown);
    check_placement(busy, 3, chain, 1, MIB, bar0, grown);
    /* The second region sees the first and the grown window. */
    struct pci_busy busy2[4] = {busy[0], busy[1], busy[2], {{bar0, bar0 + MIB}, 0}};
    struct pci_span chain2[] = {grown[0]};
    struct pci_span grown2[1];
    uint64_t bar3 = pci_window_place(busy2, 4, chain2, 1, MIB, LO, HI, grown2);
    check_placement(busy2, 4, chain2, 1, MIB, bar3, grown2);
    CHECK(bar0 != bar3 && within((struct pci_span){bar3, bar3 + MIB}, grown2[0]));
    CHECK(bar0 == 0xfe100000 && bar3 == 0xfe200000);
    CHECK(grown2[0].base == 0xfe000000 && grown2[0].end == 0xfe300000);
}

TEST(pci_window_stays_in_the_hole)
{
    /* A window at the hole's top cannot grow past it; a full hole gives
     * nothing; a window firmware put above 4 GiB takes the region when it
     * has room (it is routed already) but never grows there. */
    struct pci_span chain[] = {{HI - MIB, HI}};
    struct pci_busy busy[] = {{{HI - MIB, HI}, 0}, {{LO, HI - 4 * MIB}, 1}};
    struct pci_span grown[1];
    uint64_t base = pci_window_place(busy, 2, chain, 1, MIB, LO, HI, grown);
    CHECK(base == HI - 2 * MIB);
    CHECK(grown[0].base == HI - 2 * MIB && grown[0].end == HI);
    check_placement(busy, 2, chain, 1, MIB, base, grown);

    struct pci_busy all[] = {{{LO, HI}, 1}};
    CHECK(pci_window_place(all, 1, 0, 0, 0x4000, LO, HI, grown) == 0);
    CHECK(pci_window_place(all, 1, chain, 1, 0x4000, LO, HI, grown) == 0);

    struct pci_span high[] = {{0x800000000ull, 0x800200000ull}};
    struct pci_busy pf[] = {{{0x800000000ull, 0x800100000ull}, 0}, {{LO, HI}, 1}};
    base = pci_window_place(pf, 2, high, 1, MIB, LO, HI, grown);
    CHECK(base == 0x800100000ull && grown[0].end == high[0].end);
    CHECK(pci_window_place(pf, 2, high, 1, 2 * MIB, LO, HI, grown) == 0);
}

TEST(pci_window_refuses_bad_sizes)
{
    struct pci_span grown[1];
    CHECK(pci_window_place(0, 0, 0, 0, 0, LO, HI, grown) == 0);
    CHECK(pci_window_place(0, 0, 0, 0, 0x3000, LO, HI, grown) == 0);
    CHECK(pci_window_place(0, 0, 0, 0, 0x4000, LO, HI, grown) == HI - 0x4000);
}
