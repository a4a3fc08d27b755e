/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbe.h: the Intel 82599 10 GbE controller (X520, ixgbe)
 * physical function as a netdev, polled (docs/ixgbe.md): one entry of the
 * driver table (drivers/nic_drivers.c). */
#ifndef DRIVERS_INTEL_IXGBE_H
#define DRIVERS_INTEL_IXGBE_H

#include "drivers/driver.h"

#define IXGBE_DEVICE_82599_SFP 0x10fb /* X520-DA2/SR2/LR1: the SFP+ part; QEMU's -device ixgbe */

/* Probes an 82599 SFP+ port (the device IDs in ixgbe.c) with up to
 * max_pairs queue pairs, RSS across them when more than one. Commands:
 * `show ixgbe [json]`, the hardware canary (ixgbe_cmds.c). */
extern const struct nic_driver ixgbe_driver;

#endif
