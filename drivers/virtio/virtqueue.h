/* drivers/virtio/virtqueue.h: split virtqueues (virtio 1.2, 2.7), the ring
 * logic only: no PCI, no MMIO but the doorbell pointer, so host tests run it
 * against an in-memory device (tests/unit/test_virtqueue.c).
 *
 * Lesson 1 of DESIGN.md lives here: the driver never reads a device
 * register on the hot path (used->idx is in RAM), fills many descriptors,
 * publishes them with one avail->idx store, and rings the doorbell once, and
 * only when the device asked for it (EVENT_IDX's avail_event, 2.7.10, or
 * the NO_NOTIFY flag, 2.7.7). */
#ifndef DRIVERS_VIRTIO_VIRTQUEUE_H
#define DRIVERS_VIRTIO_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/pkt.h"

struct vring_desc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags;
    uint16_t next;
};
_Static_assert(sizeof(struct vring_desc) == 16, "virtio 2.7.5");

struct vring_used_elem {
    uint32_t id;
    uint32_t len;
};
_Static_assert(sizeof(struct vring_used_elem) == 8, "virtio 2.7.8");

enum {
    VRING_DESC_F_NEXT = 1,
    VRING_DESC_F_WRITE = 2,
    VRING_AVAIL_F_NO_INTERRUPT = 1,
    VRING_USED_F_NO_NOTIFY = 1,
    VQ_MAX_SIZE = 1024,
};

/* One queue, owned by one core. Hot fields first. */
struct virtqueue {
    struct vring_desc *desc;
    volatile uint16_t *avail_flags, *avail_idx, *avail_ring, *used_event;
    volatile uint16_t *used_flags, *used_idx, *avail_event;
    volatile struct vring_used_elem *used_ring;
    struct pkt **slot;          /* descriptor id -> buffer it carries */
    uint16_t *free_ids;         /* stack of unused descriptor ids */
    uint16_t nfree;
    uint16_t size, mask;
    uint16_t next_avail;        /* our shadow of avail->idx */
    uint16_t last_used;         /* next used entry to consume */
    uint16_t kicked_avail;      /* next_avail when we last decided on a kick */
    bool event_idx;
    volatile uint16_t *notify;  /* doorbell register; notify_value written */
    uint16_t notify_value;
    uint64_t doorbells;
    uint64_t bad_used;
};

/* Bytes of ring memory for size entries, and its alignment: desc table,
 * avail ring, used ring, each aligned as 2.7 requires. */
size_t vq_ring_bytes(uint16_t size);
/* ring: zeroed vq_ring_bytes(size) bytes; slot/free_ids: size entries each.
 * size must be a power of two <= VQ_MAX_SIZE. */
void vq_init(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids, bool event_idx);
/* Offsets of the driver and device areas within ring (for the device). */
size_t vq_avail_offset(uint16_t size);
size_t vq_used_offset(uint16_t size);

/* Queues one buffer as a single descriptor; the ring takes p until it comes
 * back from vq_get_used. Not visible to the device before vq_publish. */
static inline bool vq_add(struct virtqueue *vq, struct pkt *p, uint64_t addr, uint32_t len, bool device_writes)
{
    if (vq->nfree == 0)
        return false;
    uint16_t id = vq->free_ids[--vq->nfree];
    struct vring_desc *d = &vq->desc[id];
    d->addr = addr;
    d->len = len;
    d->flags = device_writes ? VRING_DESC_F_WRITE : 0;
    vq->slot[id] = p;
    vq->avail_ring[vq->next_avail & vq->mask] = id;
    vq->next_avail++;
    return true;
}

/* Makes everything added visible with one store; returns whether the
 * device wants a notification for it. */
bool vq_publish(struct virtqueue *vq);
/* vq_publish, then the doorbell when wanted. Returns 1 if it rang. */
int vq_kick(struct virtqueue *vq);

/* Queues a chain of n descriptors (the last n_write of them written by the
 * device) carrying token; false when fewer than n are free. */
bool vq_add_chain(struct virtqueue *vq, struct pkt *token, const uint64_t *addr, const uint32_t *len, uint16_t n,
                  uint16_t n_write);

/* Returns the descriptors of a chain that follows id to the free stack. */
void vq_free_chain(struct virtqueue *vq, uint16_t id);

/* The next buffer the device is done with (its written length in *len), or
 * NULL when there is none before used_idx. Ownership passes back to the
 * caller. An entry naming no buffer of ours (a device bug) is skipped and
 * counted in bad_used. */
static inline struct pkt *vq_get_used(struct virtqueue *vq, uint32_t *len, uint16_t used_idx)
{
    while (vq->last_used != used_idx) {
        volatile struct vring_used_elem *e = &vq->used_ring[vq->last_used & vq->mask];
        uint32_t id = e->id;
        *len = e->len;
        vq->last_used++;
        if (id >= vq->size || !vq->slot[id]) {
            vq->bad_used++;
            continue;
        }
        struct pkt *p = vq->slot[id];
        vq->slot[id] = NULL;
        if (vq->desc[id].flags & VRING_DESC_F_NEXT)
            vq_free_chain(vq, (uint16_t)id);
        else
            vq->free_ids[vq->nfree++] = (uint16_t)id;
        return p;
    }
    return NULL;
}

/* The device's used index, read once per burst (acquire: the entries
 * before it are complete). */
static inline uint16_t vq_used_idx(const struct virtqueue *vq)
{
    return __atomic_load_n(vq->used_idx, __ATOMIC_ACQUIRE);
}

/* 2.7.10: does moving the index from old to new cross the event index? */
static inline bool vq_need_event(uint16_t event, uint16_t new_idx, uint16_t old_idx)
{
    return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

#endif
