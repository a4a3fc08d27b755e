/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci.h: PCI enumeration and configuration access.
 * PCI Local Bus 3.0 (configuration header, capabilities), PCIe Base 4.0
 * 7.2.2 (ECAM), PCI Firmware 3.2 4.1.2 (MCFG). */
#ifndef DRIVERS_PCI_PCI_H
#define DRIVERS_PCI_PCI_H

#include <stdbool.h>
#include <stdint.h>

#define PCI_MAX_DEVICES 192 /* room for two 82599 ports' 63 VFs each */
#define PCI_MAX_BRIDGES 32

enum {
    PCI_VENDOR_ID = 0x00,
    PCI_DEVICE_ID = 0x02,
    PCI_COMMAND = 0x04,
    PCI_STATUS = 0x06,
    PCI_REVISION = 0x08,
    PCI_HEADER_TYPE = 0x0e,
    PCI_BAR0 = 0x10,
    PCI_PRIMARY_BUS = 0x18,
    PCI_SECONDARY_BUS = 0x19,
    PCI_SUBORDINATE_BUS = 0x1a,
    PCI_MEMORY_BASE = 0x20,    /* type 1 header, PCI-to-PCI Bridge 1.2 3.2.5.8 */
    PCI_MEMORY_LIMIT = 0x22,
    PCI_PREF_BASE = 0x24,      /* 3.2.5.9 */
    PCI_PREF_LIMIT = 0x26,
    PCI_PREF_BASE_UPPER = 0x28, /* 3.2.5.10 */
    PCI_PREF_LIMIT_UPPER = 0x2c,
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
    PCIE_DEVCAP2 = 0x24,           /* from the PCIe capability, PCIe Base 4.0 7.5.3.15 */
    PCIE_DEVCAP2_ARI_FWD = 1 << 5, /* ARI Forwarding Supported (a downstream port) */
    PCIE_DEVCTL2 = 0x28,           /* 7.5.3.16 */
    PCIE_DEVCTL2_ARI_FWD = 1 << 5, /* ARI Forwarding Enable */
    PCI_EXT_CAP_ARI = 0x000e,      /* 7.8.7 */
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
    uint32_t rom_phys, rom_size; /* its expansion ROM BAR where firmware assigned one */
    bool claimed; /* a driver owns it */
    uint8_t up;   /* 1 + pci_bridge_at index of the bridge above it; 0: on the root bus */
};

/* A PCI-to-PCI bridge (a PCIe root or switch port) the bus walk passed. */
struct pci_bridge {
    uint8_t bus, dev, fn; /* its own address, on its primary bus */
    uint8_t secondary, subordinate;
    uint8_t up;           /* as in pci_dev */
    bool has_pref;        /* it has a prefetchable window (3.2.5.9: optional) */
    bool pref64;          /* ... with the upper 32 bits (3.2.5.10) */
    struct pci_bar bar[2];
    uint32_t rom_phys, rom_size;
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
/* pci_bridge.c: physical address space for BARs firmware left unassigned
 * (SR-IOV VF BARs: firmware without SR-IOV support sizes none) below
 * device d: size bytes, a power of two, naturally aligned, free, and
 * routed by every bridge above d: inside their windows, or with the
 * windows grown (and reprogrammed, with a boot line each) within the
 * 32-bit hole [PCI_MMIO_FLOOR, PCI_MMIO_CEILING) and above ECAM. A
 * prefetchable BAR may use the prefetchable windows; a 32-bit one stays
 * below 4 GiB. what names it in the boot lines ("VFs"). 0 when there is
 * no room. */
#define PCI_MMIO_FLOOR 0xc0000000ull
#define PCI_MMIO_CEILING 0xfec00000ull /* the I/O APIC, then LAPIC and flash */
uint64_t pci_place_region(const struct pci_dev *d, uint64_t size, bool prefetch, bool is64, const char *what);
/* Turns on ARI forwarding in the bridge right above d (a downstream port:
 * without it a port passes configuration requests to device 0 only, PCIe
 * Base 4.0 7.5.3.16, and an ARI device's functions past 7, SR-IOV VFs at
 * device 16 and up, stay unreachable). false when d is on the root bus or
 * the port cannot. */
bool pci_bridge_ari_forward(const struct pci_dev *d);
int pci_bridge_count(void);
const struct pci_bridge *pci_bridge_at(int i);
/* A bridge's memory (pref false) or prefetchable window as programmed
 * now: [*base, *end); false (and 0, 0) when closed or absent. */
bool pci_bridge_window(const struct pci_bridge *b, bool pref, uint64_t *base, uint64_t *end);
/* For the bus walk: records the bridge at bus:dev.fn below bridge up
 * (same encoding); returns its own up value for what is behind it, 0
 * when the table is full. */
uint8_t pci_bridge_add(uint8_t bus, uint8_t dev, uint8_t fn, uint8_t up);
/* pci.c, for pci_bridge.c: sizes the first nbars BARs (2 for a bridge);
 * the ECAM window's physical span (0, 0 without ECAM). */
void pci_size_bars(struct pci_dev *d, int nbars);
void pci_ecam_span(uint64_t *base, uint64_t *end);
/* Appends a function the bus walk could not find (an SR-IOV VF, whose
 * IDs read as all ones); returns it, or NULL when the table is full. */
struct pci_dev *pci_add(const struct pci_dev *d);
/* pci_sriov.c: enables up to nvfs virtual functions of pf (no more than
 * its TotalVFs or PCI_SRIOV_MAX_VFS), each added to the device list with
 * its BARs (placed when firmware left them unassigned) and stored in out.
 * Returns how many; 0 when pf has no SR-IOV capability. */
#define PCI_SRIOV_MAX_VFS 63 /* an 82599 port: 64 pools, the PF's and 63 VFs' */
int pci_sriov_enable(struct pci_dev *pf, int nvfs, struct pci_dev **out);
/* Memory decoding and bus mastering on, INTx off (hayate polls). */
void pci_enable(struct pci_dev *d);
/* Function-level reset (PCIe Base 6.6.2): the config header saved,
 * Initiate FLR, 100 ms, the header restored. false when the function does
 * not advertise FLR (Device Capabilities bit 28): nothing done. */
bool pci_flr(struct pci_dev *d);
/* Maps a memory BAR (uncached); returns its virtual address or NULL. */
void *pci_map_bar(struct pci_dev *d, int bar);

#endif
