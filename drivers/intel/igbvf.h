/* SPDX-License-Identifier: MIT */
/* drivers/intel/igbvf.h: the Intel 82576 SR-IOV virtual function (igbvf)
 * as a netdev, polled (docs/igb.md): one entry of the driver table
 * (drivers/nic_drivers.c). */
#ifndef DRIVERS_INTEL_IGBVF_H
#define DRIVERS_INTEL_IGBVF_H

#include "drivers/driver.h"

#define IGB_DEVICE_82576_VF 0x10ca

/* Probes by resetting the VF and taking its MAC from the PF through the
 * mailbox; one queue pair, refilled from pools[0]. No probe when the PF
 * does not answer. Command: `show igb`. */
extern const struct nic_driver igbvf_driver;

#endif
