/* SPDX-License-Identifier: MIT */
/* drivers/nic_drivers.c: the NIC driver table (drivers/driver.h), in the
 * order kernel/ports.c asks the drivers about each PCI function. A new
 * driver is one line here and one header naming its entry. */
#include "drivers/driver.h"

#include "drivers/intel/igb.h"
#include "drivers/intel/igbvf.h"
#include "drivers/intel/ixgbe.h"
#include "drivers/intel/ixgbevf.h"
#include "drivers/mlx5/mlx5.h"
#include "drivers/virtio/virtio_net.h"

const struct nic_driver *const nic_drivers[] = {
    &virtio_net_driver,
    &igb_driver,
    &igbvf_driver,
    &ixgbe_driver,
    &ixgbevf_driver,
    &mlx5_driver,
};
const int nic_driver_count = (int)(sizeof nic_drivers / sizeof nic_drivers[0]);

const uint8_t nic_rss_key[NETDEV_RSS_KEY_LEN] = {
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
    0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};
