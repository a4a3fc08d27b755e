/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_sriov.c: a physical function's virtual functions
 * through its SR-IOV extended capability (PCIe Base 4.0 9.3.3).
 *
 * A VF has no BAR registers of its own: VF n's BAR k lies at the
 * capability's VF BARk plus n times its size (9.3.3.14), which firmware
 * without SR-IOV support (SeaBIOS) leaves unassigned, so we place them
 * (drivers/pci/pci_bridge.c: inside the windows of the bridges above).
 * A VF's vendor and device IDs read as all ones (9.3.4.1.1): the bus walk
 * cannot find it, so each VF is added to the device list here, with the
 * capability's VF device ID. */
#include "pci.h"

#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/time.h"

enum {
    SRIOV_CAP_ID = 0x0010,
    SRIOV_CTRL = 0x08,        /* 16 bits */
    SRIOV_CTRL_VFE = 1 << 0,  /* VF Enable */
    SRIOV_CTRL_MSE = 1 << 3,  /* VF Memory Space Enable */
    SRIOV_CTRL_ARI = 1 << 4,  /* ARI Capable Hierarchy (9.3.3.3.5) */
    SRIOV_TOTAL_VFS = 0x0e,
    SRIOV_NUM_VFS = 0x10,
    SRIOV_VF_OFFSET = 0x14,   /* first VF's routing ID, from the PF's */
    SRIOV_VF_STRIDE = 0x16,
    SRIOV_VF_DEVICE = 0x1a,
    SRIOV_VF_BAR0 = 0x24,
};

/* Sizes VF BARk (all ones written, read back, PCI 3.0 6.2.5.1), places it
 * when unassigned, and fills vf's bar[k] for VF n. Returns the registers
 * it took (2 for a 64-bit BAR), 1 for an absent or I/O one. */
static int vf_bar(struct pci_dev *pf, uint16_t cap, int k, int nvfs, struct pci_dev *vfs)
{
    uint16_t off = (uint16_t)(cap + SRIOV_VF_BAR0 + 4 * k);
    uint32_t orig = pci_read32(pf, off);
    pci_write32(pf, off, 0xffffffffu);
    uint32_t mask = pci_read32(pf, off);
    pci_write32(pf, off, orig);
    if (mask == 0 || (orig & 1))
        return 1;
    bool is64 = ((orig >> 1) & 3) == 2 && k < 5;
    uint64_t base = orig & ~0xfull, size = (uint32_t)~(mask & ~0xfu) + 1u;
    if (is64)
        base |= (uint64_t)pci_read32(pf, (uint16_t)(off + 4)) << 32;
    if (base == 0) {
        uint64_t region = size; /* every VF's, a power of two for pci_place_region */
        while (region < size * (uint64_t)nvfs)
            region <<= 1;
        /* Where every bridge above the PF routes it: the VFs sit behind
         * the same bridges (same bus, or buses behind the same port). */
        base = pci_place_region(pf, region, (orig & 8) != 0, is64, "VFs");
        if (!base) {
            kprintf("pci %02x:%02x.%x: no address space for VF BAR%d\n", pf->bus, pf->dev, pf->fn, k);
            return -1;
        }
        pci_write32(pf, off, (uint32_t)base | (orig & 0xf));
        if (is64)
            pci_write32(pf, (uint16_t)(off + 4), (uint32_t)(base >> 32));
        kprintf("pci %02x:%02x.%x: VF BAR%d at 0x%llx: %d x %llu KiB\n", pf->bus, pf->dev, pf->fn, k,
                (unsigned long long)base, nvfs, (unsigned long long)(size >> 10));
    }
    for (int n = 0; n < nvfs; n++)
        vfs[n].bar[k] = (struct pci_bar){.phys = base + (uint64_t)n * size, .size = size, .is64 = is64,
                                         .prefetch = (orig & 8) != 0};
    return is64 ? 2 : 1;
}

int pci_sriov_enable(struct pci_dev *pf, int nvfs, struct pci_dev **out)
{
    uint16_t cap = pci_find_ext_cap(pf, SRIOV_CAP_ID);
    if (!cap || nvfs <= 0)
        return 0;
    uint16_t total = pci_read16(pf, (uint16_t)(cap + SRIOV_TOTAL_VFS));
    if (nvfs > total)
        nvfs = total;
    if (nvfs > PCI_SRIOV_MAX_VFS)
        nvfs = PCI_SRIOV_MAX_VFS;
    /* Behind a port that forwards ARI, VFs may use device numbers past 0
     * (an 82576's or 82599's from 16 up): the port must forward them and
     * the PF be told, which may change its VF offset and stride
     * (9.3.3.3.5: set in the lowest-numbered PF, read-only in the others). */
    uint16_t ari = pci_read16(pf, (uint16_t)(cap + SRIOV_CTRL)) & SRIOV_CTRL_ARI;
    if (pci_find_ext_cap(pf, PCI_EXT_CAP_ARI) && pci_bridge_ari_forward(pf) && pf->fn == 0)
        ari = SRIOV_CTRL_ARI;
    /* NumVFs first: it is read-only once VF Enable is set (9.3.3.7). */
    pci_write16(pf, (uint16_t)(cap + SRIOV_CTRL), ari);
    pci_write16(pf, (uint16_t)(cap + SRIOV_NUM_VFS), (uint16_t)nvfs);
    uint16_t first = pci_read16(pf, (uint16_t)(cap + SRIOV_VF_OFFSET));
    uint16_t stride = pci_read16(pf, (uint16_t)(cap + SRIOV_VF_STRIDE));
    static struct pci_dev vfs[PCI_SRIOV_MAX_VFS]; /* too big for a stack; one caller at a time (boot, the CLI) */
    memset(vfs, 0, sizeof vfs);
    for (int n = 0; n < nvfs; n++) {
        /* Routing ID = bus << 8 | devfn; VFs on another bus need ARI or a
         * bus number we do not assign. */
        uint32_t rid = ((uint32_t)pf->bus << 8 | (uint32_t)pf->dev << 3 | pf->fn) + first + (uint32_t)n * stride;
        if ((rid >> 8) != pf->bus) {
            kprintf("pci %02x:%02x.%x: VF %d would be on bus %u\n", pf->bus, pf->dev, pf->fn, n, rid >> 8);
            return 0;
        }
        vfs[n] = (struct pci_dev){.seg = pf->seg, .bus = pf->bus, .dev = (uint8_t)((rid >> 3) & 31),
                                  .fn = (uint8_t)(rid & 7), .up = pf->up, .vendor = pf->vendor,
                                  .device = pci_read16(pf, (uint16_t)(cap + SRIOV_VF_DEVICE)),
                                  .class_code = pf->class_code, .subclass = pf->subclass, .prog_if = pf->prog_if};
    }
    for (int k = 0; k < 6;) {
        int took = vf_bar(pf, cap, k, nvfs, vfs);
        if (took < 0)
            return 0;
        k += took;
    }
    pci_write16(pf, (uint16_t)(cap + SRIOV_CTRL), (uint16_t)(ari | SRIOV_CTRL_VFE | SRIOV_CTRL_MSE));
    time_delay_us(100000); /* VFs may be accessed 100 ms after VF Enable (9.3.3.3.1) */
    int added = 0;
    for (int n = 0; n < nvfs; n++) {
        struct pci_dev *d = pci_add(&vfs[n]);
        if (!d)
            break;
        out[added++] = d;
    }
    return added;
}
