/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtqueue.h: virtqueues, split (virtio 1.2, 2.7) or
 * packed (2.8, virtqueue_packed.c), the ring logic only: no PCI, no MMIO
 * but the doorbell pointer, so host tests run it against an in-memory
 * device (tests/unit/drivers/virtqueue_split.c).
 *
 * Lesson 1 of docs/design.md lives here: the driver never reads a device
 * register on the hot path (used->idx, or a packed descriptor's flags, is
 * in RAM), fills many descriptors, publishes them with one store (the
 * split ring's avail->idx; the packed ring's first new descriptor's
 * flags, held back until then), and rings the doorbell once, and only
 * when the device asked for it (EVENT_IDX's avail_event, 2.7.10, the
 * NO_NOTIFY flag, 2.7.7, or the packed ring's device event suppression,
 * 2.8.10). */
#ifndef DRIVERS_VIRTIO_VIRTQUEUE_H
#define DRIVERS_VIRTIO_VIRTQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/core/core.h"

struct vring_desc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags;
    uint16_t next;
};
_Static_assert(sizeof(struct vring_desc) == 16, "virtio 2.7.5");

/* Packed ring descriptor (2.8.13): the driver's available ones and the
 * device's used ones share the ring. */
struct vring_packed_desc {
    uint64_t addr;
    uint32_t len;
    uint16_t id;
    uint16_t flags;
};
_Static_assert(sizeof(struct vring_packed_desc) == 16, "virtio 2.8.13");

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
    VRING_DESC_F_INDIRECT = 4,
    VRING_PACKED_F_AVAIL = 1 << 7,  /* 2.8.1: AVAIL != USED: available; equal: used */
    VRING_PACKED_F_USED = 1 << 15,
    VRING_EVENT_F_DISABLE = 1,      /* 2.8.10 event suppression flags */
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
    uint16_t used_snap;         /* split: used->idx as vq_used_begin read it */
    /* Packed (VIRTIO_F_RING_PACKED): desc is a ring of vring_packed_desc;
     * next_avail and last_used are positions in it, nfree its free
     * descriptors, free_ids[0..nids) the buffer ids not in use. */
    bool packed;
    bool held;                  /* a descriptor at held_pos waits for vq_publish */
    uint16_t held_pos, held_flags;
    uint16_t avail_wrap, used_wrap; /* the ring wrap counters (2.8.1), 1 at first */
    uint16_t nids;
    uint16_t *chain_len;        /* descriptors buffer id took */
    volatile uint16_t *dev_event_flags; /* the device's wish (Device Area, 2.8.10) */
};

/* Bytes of ring memory for size entries, 4 KiB aligned: split, the desc
 * table, avail ring and used ring, each aligned as 2.7 requires; packed,
 * the descriptor ring and the two event suppression structures. */
size_t vq_ring_bytes(uint16_t size, bool packed);
/* ring: zeroed vq_ring_bytes(size) bytes; slot/free_ids: size entries each.
 * size must be a power of two <= VQ_MAX_SIZE. */
void vq_init(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids, bool event_idx);
/* What both layouts set up: the descriptors' ids, slots and indices. */
void vq_init_common(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids);
/* The same for a packed ring; chain_len: size entries. */
void vq_init_packed(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids,
                    uint16_t *chain_len);
/* Offsets of the driver and device areas within ring (for the device). */
size_t vq_driver_offset(uint16_t size, bool packed);
size_t vq_device_offset(uint16_t size, bool packed);

/* virtqueue_packed.c: what vq_add, vq_publish, vq_add_chain and
 * vq_next_used do on a packed ring. */
bool vqp_add_chain(struct virtqueue *vq, struct pkt *token, const uint64_t *addr, const uint32_t *len, uint16_t n,
                   uint16_t n_write);
bool vqp_publish(struct virtqueue *vq);
struct pkt *vqp_next_used(struct virtqueue *vq, uint32_t *len);

/* A packed ring's one buffer, one descriptor: the first of a batch is held
 * back (its flags unwritten) until vq_publish, so the device, which reads
 * the ring in order, sees the batch at once (2.8.6). */
static inline bool vqp_add(struct virtqueue *vq, struct pkt *p, uint64_t addr, uint32_t len, bool device_writes)
{
    if (vq->nfree == 0)
        return false;
    uint16_t id = vq->free_ids[--vq->nids], pos = vq->next_avail;
    volatile struct vring_packed_desc *d = (volatile struct vring_packed_desc *)vq->desc + pos;
    uint16_t flags = (uint16_t)((device_writes ? VRING_DESC_F_WRITE : 0) |
                                (vq->avail_wrap ? VRING_PACKED_F_AVAIL : VRING_PACKED_F_USED));
    d->addr = addr;
    d->len = len;
    d->id = id;
    vq->slot[id] = p;
    vq->chain_len[id] = 1;
    vq->nfree--;
    if (vq->held) {
        __atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
    } else {
        vq->held = true;
        vq->held_pos = pos;
        vq->held_flags = flags;
    }
    if (++pos == vq->size) {
        pos = 0;
        vq->avail_wrap ^= 1;
    }
    vq->next_avail = pos;
    return true;
}

/* Queues one buffer as a single descriptor; the ring takes p until it comes
 * back from vq_next_used. Not visible to the device before vq_publish. */
static inline bool vq_add(struct virtqueue *vq, struct pkt *p, uint64_t addr, uint32_t len, bool device_writes)
{
    if (vq->packed)
        return vqp_add(vq, p, addr, len, device_writes);
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

/* Takes a look at what the device has used: the split ring's used->idx,
 * read once a burst (acquire: the entries before it are complete); the
 * packed ring reads each descriptor's flags instead. */
static inline void vq_used_begin(struct virtqueue *vq)
{
    if (!vq->packed)
        vq->used_snap = __atomic_load_n(vq->used_idx, __ATOMIC_ACQUIRE);
}

/* The next buffer the device is done with (its written length in *len), or
 * NULL when there is none (split: before vq_used_begin's index). Ownership
 * passes back to the caller. An entry naming no buffer of ours (a device
 * bug) is skipped and counted in bad_used. */
static inline struct pkt *vq_next_used(struct virtqueue *vq, uint32_t *len)
{
    if (vq->packed)
        return vqp_next_used(vq, len);
    while (vq->last_used != vq->used_snap) {
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

/* 2.7.10: does moving the index from old to new cross the event index? */
static inline bool vq_need_event(uint16_t event, uint16_t new_idx, uint16_t old_idx)
{
    return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old_idx);
}

#endif
