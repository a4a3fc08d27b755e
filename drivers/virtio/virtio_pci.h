/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_pci.h: the virtio 1.x modern PCI transport
 * (virtio 1.2, 4.1): capabilities, status, features, queue set-up. */
#ifndef DRIVERS_VIRTIO_VIRTIO_PCI_H
#define DRIVERS_VIRTIO_VIRTIO_PCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "drivers/pci/pci.h"
#include "drivers/virtio/virtqueue.h"

enum {
    VIRTIO_STATUS_ACKNOWLEDGE = 1,
    VIRTIO_STATUS_DRIVER = 2,
    VIRTIO_STATUS_DRIVER_OK = 4,
    VIRTIO_STATUS_FEATURES_OK = 8,
    VIRTIO_STATUS_NEEDS_RESET = 64,
    VIRTIO_STATUS_FAILED = 128,
};

#define VIRTIO_F_RING_INDIRECT_DESC (1ull << 28)
#define VIRTIO_F_RING_EVENT_IDX (1ull << 29)
#define VIRTIO_F_VERSION_1 (1ull << 32)
#define VIRTIO_F_ACCESS_PLATFORM (1ull << 33)
#define VIRTIO_F_RING_PACKED (1ull << 34)

/* 4.1.4.3: the common configuration structure. */
struct virtio_pci_common_cfg {
    uint32_t device_feature_select, device_feature;
    uint32_t driver_feature_select, driver_feature;
    uint16_t config_msix_vector, num_queues;
    uint8_t device_status, config_generation;
    uint16_t queue_select, queue_size, queue_msix_vector, queue_enable, queue_notify_off;
    uint64_t queue_desc, queue_driver, queue_device;
    uint16_t queue_notify_data, queue_reset;
};
_Static_assert(offsetof(struct virtio_pci_common_cfg, queue_desc) == 32, "virtio 4.1.4.3");
_Static_assert(offsetof(struct virtio_pci_common_cfg, queue_reset) == 58, "virtio 4.1.4.3");

struct virtio_pci {
    struct pci_dev *pci;
    volatile struct virtio_pci_common_cfg *common;
    volatile uint8_t *notify_base;
    uint32_t notify_len, notify_mul;
    volatile uint8_t *isr;
    volatile uint8_t *device_cfg;
    uint64_t features; /* negotiated */
};

/* Finds the capabilities and resets the device. 0 or -1. */
int virtio_pci_open(struct virtio_pci *v, struct pci_dev *pci);
void virtio_pci_reset(struct virtio_pci *v);
uint8_t virtio_pci_status(struct virtio_pci *v);
void virtio_pci_set_status(struct virtio_pci *v, uint8_t bits);
uint64_t virtio_pci_device_features(struct virtio_pci *v);
/* Writes wanted & offered and sets FEATURES_OK; 0, or -1 if refused. */
int virtio_pci_negotiate(struct virtio_pci *v, uint64_t wanted);
uint16_t virtio_pci_queue_max(struct virtio_pci *v, uint16_t index);
/* Hands the ring (physical address ring_phys) to the device and enables
 * the queue; sets vq->notify. -1: its doorbell lies outside the notify
 * window (the queue stays off). */
int virtio_pci_queue_enable(struct virtio_pci *v, uint16_t index, struct virtqueue *vq, uint64_t ring_phys);
/* Device-specific configuration, read consistently (4.1.4.3.1,
 * config_generation). */
void virtio_pci_read_cfg(struct virtio_pci *v, uint32_t off, void *buf, uint32_t len);

#endif
