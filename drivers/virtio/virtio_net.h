/* drivers/virtio/virtio_net.h: virtio-net (virtio 1.2, 5.1) as a netdev. */
#ifndef DRIVERS_VIRTIO_VIRTIO_NET_H
#define DRIVERS_VIRTIO_VIRTIO_NET_H

#include "drivers/pci/pci.h"
#include "net/core/netdev.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_NET_DEVICE_MODERN 0x1041
#define VIRTIO_NET_DEVICE_TRANSITIONAL 0x1000

bool virtio_net_match(const struct pci_dev *pci);
/* Brings the device up with up to max_pairs queue pairs; queue q refills
 * from pools[q]. Returns the netdev (named by the caller) or NULL. */
struct netdev *virtio_net_probe(struct pci_dev *pci, uint16_t max_pairs, struct pkt_pool **pools);
/* Corrupts queue 0's TX ring so the device asks for a reset (tests the
 * recovery; console core only). */
void virtio_net_break(struct netdev *dev);
/* Feature bits negotiated, for `show interfaces`. */
uint64_t virtio_net_features(const struct netdev *dev);

#endif
