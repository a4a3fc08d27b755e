/* SPDX-License-Identifier: MIT */
/* drivers/pci/pci_cmds.h: console commands for PCI. */
#ifndef DRIVERS_PCI_PCI_CMDS_H
#define DRIVERS_PCI_PCI_CMDS_H

void pci_cmds_init(void);

#endif
