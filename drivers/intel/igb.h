/* drivers/intel/igb.h: the Intel 82576 (igb) physical function as a
 * netdev, polled (docs/igb.md). */
#ifndef DRIVERS_INTEL_IGB_H
#define DRIVERS_INTEL_IGB_H

#include "drivers/pci/pci.h"
#include "net/netdev.h"

#define IGB_VENDOR_INTEL 0x8086
#define IGB_DEVICE_82576 0x10c9 /* copper; QEMU's -device igb */

bool igb_match(const struct pci_dev *pci);
/* Resets and brings up the device with up to max_pairs queue pairs (RSS
 * across them when more than one); queue q refills from pools[q]. Returns
 * the netdev (named by the caller) or NULL. */
struct netdev *igb_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools);

#endif
