/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtio_pci.c: the modern PCI transport (virtio 1.2, 4.1.4
 * capabilities; 3.1.1 initialisation order). Everything here is slow path:
 * set-up and status; the hot path touches only the rings and the doorbell. */
#include "virtio_pci.h"

#include "kernel/arch/x86_64/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib.h"
#include "kernel/mem/memmap.h"

enum {
    CAP_COMMON = 1,
    CAP_NOTIFY = 2,
    CAP_ISR = 3,
    CAP_DEVICE = 4,
    RESET_SPIN_LIMIT = 1000000,
    NO_VECTOR = 0xffff,
};

/* The capability's window in its BAR, *len bytes long; 0 if it lies outside. */
static volatile uint8_t *cap_window(struct pci_dev *pci, uint8_t cap, uint32_t *len)
{
    uint8_t bar = pci_read8(pci, (uint16_t)(cap + 4));
    uint32_t off = pci_read32(pci, (uint16_t)(cap + 8));
    *len = pci_read32(pci, (uint16_t)(cap + 12));
    if (bar > 5 || pci->bar[bar].io || (uint64_t)off + *len > pci->bar[bar].size)
        return 0;
    uint8_t *base = pci_map_bar(pci, bar);
    return base ? base + off : 0;
}

int virtio_pci_open(struct virtio_pci *v, struct pci_dev *pci)
{
    memset(v, 0, sizeof *v);
    v->pci = pci;
    uint8_t cap = pci_find_cap(pci, PCI_CAP_VENDOR, 0);
    /* (bounded: a looped capability list must end) */
    for (int seen = 0; cap && seen < 48; seen++, cap = pci_find_cap(pci, PCI_CAP_VENDOR, cap)) {
        uint8_t type = pci_read8(pci, (uint16_t)(cap + 3));
        uint32_t len;
        volatile uint8_t *w = cap_window(pci, cap, &len);
        if (!w)
            continue;
        /* The first capability of each type is the preferred one (4.1.4). */
        if (type == CAP_COMMON && !v->common)
            v->common = (volatile struct virtio_pci_common_cfg *)w;
        else if (type == CAP_NOTIFY && !v->notify_base) {
            v->notify_base = w;
            v->notify_len = len;
            v->notify_mul = pci_read32(pci, (uint16_t)(cap + 16));
        } else if (type == CAP_ISR && !v->isr)
            v->isr = w;
        else if (type == CAP_DEVICE && !v->device_cfg)
            v->device_cfg = w;
    }
    if (!v->common || !v->notify_base || !v->device_cfg)
        return -1; /* legacy-only device: not supported */
    pci_enable(pci);
    virtio_pci_reset(v);
    return 0;
}

void virtio_pci_reset(struct virtio_pci *v)
{
    v->common->device_status = 0;
    for (int i = 0; i < RESET_SPIN_LIMIT && v->common->device_status != 0; i++)
        cpu_pause();
}

uint8_t virtio_pci_status(struct virtio_pci *v) { return v->common->device_status; }

void virtio_pci_set_status(struct virtio_pci *v, uint8_t bits)
{
    v->common->device_status = (uint8_t)(v->common->device_status | bits);
}

uint64_t virtio_pci_device_features(struct virtio_pci *v)
{
    v->common->device_feature_select = 0;
    uint64_t lo = v->common->device_feature;
    v->common->device_feature_select = 1;
    uint64_t hi = v->common->device_feature;
    return hi << 32 | lo;
}

int virtio_pci_negotiate(struct virtio_pci *v, uint64_t wanted)
{
    virtio_pci_set_status(v, VIRTIO_STATUS_ACKNOWLEDGE);
    virtio_pci_set_status(v, VIRTIO_STATUS_DRIVER);
    uint64_t f = virtio_pci_device_features(v) & wanted;
    if (!(f & VIRTIO_F_VERSION_1))
        return -1;
    v->common->driver_feature_select = 0;
    v->common->driver_feature = (uint32_t)f;
    v->common->driver_feature_select = 1;
    v->common->driver_feature = (uint32_t)(f >> 32);
    virtio_pci_set_status(v, VIRTIO_STATUS_FEATURES_OK);
    if (!(virtio_pci_status(v) & VIRTIO_STATUS_FEATURES_OK))
        return -1;
    v->features = f;
    return 0;
}

uint16_t virtio_pci_queue_max(struct virtio_pci *v, uint16_t index)
{
    v->common->queue_select = index;
    return v->common->queue_size;
}

int virtio_pci_queue_enable(struct virtio_pci *v, uint16_t index, struct virtqueue *vq, uint64_t ring_phys)
{
    volatile struct virtio_pci_common_cfg *c = v->common;
    c->queue_select = index;
    /* The doorbell must lie inside the notify window (4.1.4.4): a device
     * that says otherwise would have us write elsewhere in its BAR. */
    uint64_t at = (uint64_t)c->queue_notify_off * v->notify_mul;
    if (at + 2 > v->notify_len)
        return -1;
    c->queue_size = vq->size;
    c->queue_msix_vector = NO_VECTOR; /* polled: never interrupt */
    c->queue_desc = ring_phys;
    c->queue_driver = ring_phys + vq_driver_offset(vq->size, vq->packed);
    c->queue_device = ring_phys + vq_device_offset(vq->size, vq->packed);
    vq->notify = (volatile uint16_t *)(v->notify_base + at);
    vq->notify_value = index;
    c->queue_enable = 1;
    return 0;
}

void virtio_pci_read_cfg(struct virtio_pci *v, uint32_t off, void *buf, uint32_t len)
{
    for (int tries = 0; tries < 100; tries++) { /* bounded: a broken device must not hang us */
        uint8_t gen = v->common->config_generation;
        volatile uint8_t *at = v->device_cfg + off;
        /* Each field at its own width (4.1.3.1): a 16- or 32-bit one in one
         * access; byte arrays (the MAC) a byte at a time. */
        if (len == 2) {
            uint16_t x = *(volatile uint16_t *)at;
            memcpy(buf, &x, 2);
        } else if (len == 4) {
            uint32_t x = *(volatile uint32_t *)at;
            memcpy(buf, &x, 4);
        } else {
            for (uint32_t i = 0; i < len; i++)
                ((uint8_t *)buf)[i] = at[i];
        }
        if (gen == v->common->config_generation)
            return;
    }
}
