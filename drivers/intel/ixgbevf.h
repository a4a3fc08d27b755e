/* SPDX-License-Identifier: MIT */
/* drivers/intel/ixgbevf.h: the Intel 82599 SR-IOV virtual function
 * (ixgbevf) as a netdev, polled (docs/ixgbe.md): one entry of the driver
 * table (drivers/nic_drivers.c). */
#ifndef DRIVERS_INTEL_IXGBEVF_H
#define DRIVERS_INTEL_IXGBEVF_H

#include "drivers/driver.h"

#define IXGBE_DEVICE_82599_VF 0x10ed

/* Probes by resetting the VF and taking its MAC from the PF through the
 * mailbox (Linux ixgbe's protocol, API 1.3 down to 1.0); one queue pair,
 * refilled from pools[0]. No probe when the PF does not answer. Command:
 * `show igb` (the Intel ring code's counters and the mailbox). */
extern const struct nic_driver ixgbevf_driver;

#endif
