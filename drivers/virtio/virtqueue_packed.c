/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtqueue_packed.c: packed virtqueues (virtio 1.2, 2.8),
 * VIRTIO_F_RING_PACKED: one ring of descriptors that the driver makes
 * available and the device writes back as used, in place of the split
 * ring's three arrays, so a buffer's descriptor, its availability and its
 * completion share one cache line.
 *
 * A descriptor is available when its AVAIL flag equals the driver's wrap
 * counter and USED does not, used when both equal the device's (2.8.1);
 * each side's counter starts at 1 and flips as its position wraps. A
 * chain takes consecutive descriptors, NEXT on all but the last, which
 * holds the buffer id (2.8.6); the device writes one used descriptor for
 * it and both sides skip the rest, so the driver keeps each id's chain
 * length. The device may complete buffers out of order (2.8): ids come
 * from a free stack, as the split ring's descriptors do.
 *
 * Batching: the first descriptor added since the last publish keeps its
 * flags back; vq_publish writes them (release), and the device, reading
 * the ring in order, then finds the whole batch (2.8.21.1). Whether to
 * ring the doorbell is the device event suppression's flags (2.8.10): any
 * value but DISABLE asks for one. The driver event suppression says
 * DISABLE: we poll. */
#include "virtqueue.h"

static volatile struct vring_packed_desc *pdesc(struct virtqueue *vq, uint16_t pos)
{
    return (volatile struct vring_packed_desc *)vq->desc + pos;
}

void vq_init_packed(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids,
                    uint16_t *chain_len)
{
    vq_init_common(vq, ring, size, slot, free_ids);
    uint8_t *base = ring;
    /* We poll: no used buffer notifications (the driver event suppression). */
    volatile uint16_t *drv = (volatile uint16_t *)(base + vq_driver_offset(size, true));
    drv[1] = VRING_EVENT_F_DISABLE;
    vq->dev_event_flags = (volatile uint16_t *)(base + vq_device_offset(size, true) + 2);
    vq->packed = true;
    vq->held = false;
    vq->avail_wrap = vq->used_wrap = 1;
    vq->nids = size;
    vq->chain_len = chain_len;
}

bool vqp_publish(struct virtqueue *vq)
{
    if (!vq->held)
        return false;
    __atomic_store_n(&pdesc(vq, vq->held_pos)->flags, vq->held_flags, __ATOMIC_RELEASE);
    vq->held = false;
    /* The flags must be visible before we read the device's wish (2.8.21.3). */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return (*vq->dev_event_flags & 3) != VRING_EVENT_F_DISABLE;
}

bool vqp_add_chain(struct virtqueue *vq, struct pkt *token, const uint64_t *addr, const uint32_t *len, uint16_t n,
                   uint16_t n_write)
{
    if (n == 0 || vq->nfree < n)
        return false;
    uint16_t id = vq->free_ids[--vq->nids], first = vq->next_avail, first_flags = 0;
    for (uint16_t i = 0; i < n; i++) {
        uint16_t pos = vq->next_avail;
        volatile struct vring_packed_desc *d = pdesc(vq, pos);
        uint16_t flags = (uint16_t)((i >= n - n_write ? VRING_DESC_F_WRITE : 0) | (i + 1 < n ? VRING_DESC_F_NEXT : 0) |
                                    (vq->avail_wrap ? VRING_PACKED_F_AVAIL : VRING_PACKED_F_USED));
        d->addr = addr[i];
        d->len = len[i];
        d->id = id; /* the last one's counts (2.8.6); the others' are ignored */
        if (i == 0)
            first_flags = flags;
        else
            __atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
        if (++pos == vq->size) {
            pos = 0;
            vq->avail_wrap ^= 1;
        }
        vq->next_avail = pos;
    }
    vq->slot[id] = token;
    vq->chain_len[id] = n;
    vq->nfree = (uint16_t)(vq->nfree - n);
    if (vq->held) /* an earlier descriptor holds the device back: this chain may show */
        __atomic_store_n(&pdesc(vq, first)->flags, first_flags, __ATOMIC_RELEASE);
    else {
        vq->held = true;
        vq->held_pos = first;
        vq->held_flags = first_flags;
    }
    return true;
}

struct pkt *vqp_next_used(struct virtqueue *vq, uint32_t *len)
{
    for (;;) {
        volatile struct vring_packed_desc *d = pdesc(vq, vq->last_used);
        uint16_t flags = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);
        uint16_t want = vq->used_wrap ? (VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED) : 0;
        if ((flags & (VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED)) != want)
            return NULL;
        uint16_t id = d->id;
        *len = d->len;
        bool ours = id < vq->size && vq->slot[id];
        uint16_t n = ours ? vq->chain_len[id] : 1;
        uint32_t pos = (uint32_t)vq->last_used + n;
        if (pos >= vq->size) {
            pos -= vq->size;
            vq->used_wrap ^= 1;
        }
        vq->last_used = (uint16_t)pos;
        if (!ours) {
            vq->bad_used++; /* names no buffer of ours: skipped */
            continue;
        }
        struct pkt *p = vq->slot[id];
        vq->slot[id] = NULL;
        vq->free_ids[vq->nids++] = id;
        vq->nfree = (uint16_t)(vq->nfree + n);
        return p;
    }
}
