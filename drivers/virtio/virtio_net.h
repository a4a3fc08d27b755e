/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_net.h: virtio-net (virtio 1.2, 5.1) as a netdev,
 * one entry of the driver table (drivers/nic_drivers.c). */
#ifndef DRIVERS_VIRTIO_VIRTIO_NET_H
#define DRIVERS_VIRTIO_VIRTIO_NET_H

#include "drivers/driver.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_NET_DEVICE_MODERN 0x1041
#define VIRTIO_NET_DEVICE_TRANSITIONAL 0x1000

/* Probes with up to max_pairs queue pairs, RSS over them where the device
 * offers it; `debug virtio-break PORT` forces a device reset (the recovery's
 * test); `show interfaces` tells the ring layout negotiated. */
extern const struct nic_driver virtio_net_driver;

#endif
