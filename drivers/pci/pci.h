/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci.h: PCI enumeration and configuration access.
 * PCI Local Bus 3.0 (configuration header, capabilities), PCIe Base 4.0
 * 7.2.2 (ECAM), PCI Firmware 3.2 4.1.2 (MCFG). */
#ifndef DRIVERS_PCI_PCI_H
#define DRIVERS_PCI_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_MAX_DEVICES 96

enum {
    PCI_VENDOR_ID = 0x00,
    PCI_DEVICE_ID = 0x02,
    PCI_COMMAND = 0x04,
    PCI_STATUS = 0x06,
    PCI_REVISION = 0x08,
    PCI_HEADER_TYPE = 0x0e,
    PCI_BAR0 = 0x10,
    PCI_SECONDARY_BUS = 0x19,
    PCI_CAP_PTR = 0x34,
    PCI_INTERRUPT_LINE = 0x3c,
    PCI_CMD_IO = 1 << 0,
    PCI_CMD_MEMORY = 1 << 1,
    PCI_CMD_BUS_MASTER = 1 << 2,
    PCI_CMD_INTX_DISABLE = 1 << 10,
    PCI_STATUS_CAP_LIST = 1 << 4,
    PCI_CAP_MSIX = 0x11,
    PCI_CAP_VENDOR = 0x09,
    PCI_CAP_PCIE = 0x10,
};

struct pci_bar {
    uint64_t phys, size;
    bool io, is64, prefetch;
    void *virt; /* mapped (uncached) when memory, NULL for I/O */
};

struct pci_dev {
    uint16_t seg;
    uint8_t bus, dev, fn;
    uint16_t vendor, device;
    uint8_t class_code, subclass, prog_if, revision;
    struct pci_bar bar[6];
    bool claimed; /* a driver owns it */
};

void pci_init(void);           /* MCFG (ECAM) or port I/O; enumerates everything */
int pci_count(void);
struct pci_dev *pci_at(int i); /* in bus/device/function order */
const char *pci_access_method(void);

uint32_t pci_read32(const struct pci_dev *d, uint16_t off);
uint16_t pci_read16(const struct pci_dev *d, uint16_t off);
uint8_t pci_read8(const struct pci_dev *d, uint16_t off);
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v);
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v);
void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v);

/* Offset of the next capability with this id after `after` (0: the first);
 * 0 when none. */
uint8_t pci_find_cap(const struct pci_dev *d, uint8_t id, uint8_t after);
/* Offset of the PCIe extended capability with this id (PCIe Base 4.0
 * 7.6), 0 when none or the configuration space past 256 bytes is out of
 * reach (no ECAM). */
uint16_t pci_find_ext_cap(const struct pci_dev *d, uint16_t id);
/* Physical address space for BARs firmware left unassigned (SR-IOV VF
 * BARs: firmware without SR-IOV support sizes none): size bytes, a power
 * of two, naturally aligned, just below the lowest BAR assigned under
 * 4 GiB and above both the ECAM window and PCI_MMIO_FLOOR, where firmware
 * (SeaBIOS packs BARs down from the top of the hole) leaves it unused.
 * 0 when there is no room. */
#define PCI_MMIO_FLOOR 0xc0000000ull
uint64_t pci_mmio_alloc(uint64_t size);
/* Appends a function the bus walk could not find (an SR-IOV VF, whose
 * IDs read as all ones); returns it, or NULL when the table is full. */
struct pci_dev *pci_add(const struct pci_dev *d);
/* pci_sriov.c: enables up to nvfs virtual functions of pf (no more than
 * its TotalVFs or PCI_SRIOV_MAX_VFS), each added to the device list with
 * its BARs (placed when firmware left them unassigned) and stored in out.
 * Returns how many; 0 when pf has no SR-IOV capability. */
#define PCI_SRIOV_MAX_VFS 8
int pci_sriov_enable(struct pci_dev *pf, int nvfs, struct pci_dev **out);
/* Memory decoding and bus mastering on, INTx off (hayate polls). */
void pci_enable(struct pci_dev *d);
/* Maps a memory BAR (uncached); returns its virtual address or NULL. */
void *pci_map_bar(struct pci_dev *d, int bar);

#endif
