/* drivers/intel/igbvf.h: the Intel 82576 SR-IOV virtual function (igbvf)
 * as a netdev, polled (docs/igb.md). */
#ifndef DRIVERS_INTEL_IGBVF_H
#define DRIVERS_INTEL_IGBVF_H

#include "drivers/pci/pci.h"
#include "net/core/netdev.h"

#define IGB_DEVICE_82576_VF 0x10ca

bool igbvf_match(const struct pci_dev *pci);
/* Resets the VF, takes its MAC from the PF through the mailbox, and brings
 * up its one queue pair, refilled from pools[0]. Returns the netdev (named
 * by the caller) or NULL when the PF does not answer. */
struct netdev *igbvf_probe(struct pci_dev *pci, struct pkt_pool **pools);

#endif
