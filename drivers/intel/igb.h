/* drivers/intel/igb.h: the Intel 82576 (igb) physical function as a
 * netdev, polled (docs/igb.md). */
#ifndef DRIVERS_INTEL_IGB_H
#define DRIVERS_INTEL_IGB_H

#include "drivers/pci/pci.h"
#include "net/core/netdev.h"

#define IGB_VENDOR_INTEL 0x8086
#define IGB_DEVICE_82576 0x10c9 /* copper; QEMU's -device igb */

#define IGB_SRIOV_MAX_VFS 7 /* of the 82576's 8 pools, one stays the PF's */

bool igb_match(const struct pci_dev *pci);
/* Resets and brings up the device with up to max_pairs queue pairs (RSS
 * across them when more than one); queue q refills from pools[q]. With
 * nvfs, it offers that many SR-IOV virtual functions (at most
 * IGB_SRIOV_MAX_VFS), added to the PCI functions for igbvf_probe, and
 * keeps one queue pair. Returns the netdev (named by the caller) or NULL. */
struct netdev *igb_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools, uint8_t nvfs);
/* Answers the mailbox messages of every PF's VFs: from the PF's status
 * poll, and from a VF of this kernel's waiting for an answer. */
void igb_sriov_serve(void);

#endif
