/* SPDX-License-Identifier: MIT */
/* drivers/intel/igb.h: the Intel 82576 (igb) physical function as a
 * netdev, polled (docs/igb.md): one entry of the driver table
 * (drivers/nic_drivers.c). */
#ifndef DRIVERS_INTEL_IGB_H
#define DRIVERS_INTEL_IGB_H

#include "drivers/driver.h"

#define IGB_VENDOR_INTEL 0x8086
#define IGB_DEVICE_82576 0x10c9 /* copper; QEMU's -device igb */

#define IGB_SRIOV_MAX_VFS 7 /* of the 82576's 8 pools, one stays the PF's */

/* Probes with up to max_pairs queue pairs (RSS across them when more than
 * one); with nvfs it offers that many SR-IOV virtual functions (at most
 * IGB_SRIOV_MAX_VFS), added to the PCI functions for igbvf, and keeps one
 * queue pair. Commands: `show igb`, `debug igb-reset PORT`. */
extern const struct nic_driver igb_driver;

#endif
