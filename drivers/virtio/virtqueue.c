/* SPDX-License-Identifier: MIT */
/* drivers/virtio/virtqueue.c: ring layouts; the split ring's publication
 * and notification decision (drivers/virtio/virtqueue.h; the packed ring's
 * are in virtqueue_packed.c). */
#include "virtqueue.h"

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

/* Split layout: desc table (16-byte aligned), avail ring (flags, idx,
 * ring[size], used_event), used ring on its own 4 KiB page (flags, idx,
 * ring[size], avail_event). Packed: the descriptor ring, then the driver's
 * and the device's event suppression structures (4 bytes each, 2.8.11),
 * a cache line apart. Separate cache lines for what the driver and the
 * device write. */
size_t vq_driver_offset(uint16_t size, bool packed) { return (size_t)size * sizeof(struct vring_desc); }
size_t vq_device_offset(uint16_t size, bool packed)
{
    return packed ? vq_driver_offset(size, true) + 64 : align_up(vq_driver_offset(size, false) + 6 + 2u * size, 4096);
}
size_t vq_ring_bytes(uint16_t size, bool packed)
{
    return align_up(vq_device_offset(size, packed) + (packed ? 4 : 6 + 8u * size), 4096);
}

void vq_init_common(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids)
{
    vq->desc = ring;
    vq->avail_flags = vq->avail_idx = vq->avail_ring = vq->used_event = NULL;
    vq->used_flags = vq->used_idx = vq->avail_event = NULL;
    vq->used_ring = NULL;
    vq->slot = slot;
    vq->free_ids = free_ids;
    vq->size = size;
    vq->mask = (uint16_t)(size - 1);
    vq->nfree = size;
    for (uint16_t i = 0; i < size; i++) {
        free_ids[i] = (uint16_t)(size - 1 - i); /* hand out id 0 first */
        slot[i] = NULL;
    }
    vq->next_avail = vq->last_used = vq->kicked_avail = 0;
    vq->event_idx = false;
    vq->doorbells = 0;
    vq->bad_used = 0;
    vq->used_snap = 0;
    vq->packed = false;
}

void vq_init(struct virtqueue *vq, void *ring, uint16_t size, struct pkt **slot, uint16_t *free_ids, bool event_idx)
{
    uint8_t *base = ring;
    uint8_t *avail = base + vq_driver_offset(size, false), *used = base + vq_device_offset(size, false);
    vq_init_common(vq, ring, size, slot, free_ids);
    vq->avail_flags = (volatile uint16_t *)avail;
    vq->avail_idx = (volatile uint16_t *)(avail + 2);
    vq->avail_ring = (volatile uint16_t *)(avail + 4);
    vq->used_event = (volatile uint16_t *)(avail + 4 + 2u * size);
    vq->used_flags = (volatile uint16_t *)used;
    vq->used_idx = (volatile uint16_t *)(used + 2);
    vq->used_ring = (volatile struct vring_used_elem *)(used + 4);
    vq->avail_event = (volatile uint16_t *)(used + 4 + 8u * size);
    vq->event_idx = event_idx;
    /* We poll: ask for no interrupts (2.7.7; ignored under EVENT_IDX, where
     * used_event stays behind and interrupts stay masked at the PCI level). */
    *vq->avail_flags = VRING_AVAIL_F_NO_INTERRUPT;
}

bool vq_publish(struct virtqueue *vq)
{
    if (vq->packed)
        return vqp_publish(vq);
    uint16_t old = vq->kicked_avail, now = vq->next_avail;
    if (old == now)
        return false;
    /* Descriptors and ring entries before the index (2.7.13.3). */
    __atomic_store_n(vq->avail_idx, now, __ATOMIC_RELEASE);
    vq->kicked_avail = now;
    /* The index store must be visible before we read the device's wish
     * (2.7.13.4): a full fence, or we may miss a device going to sleep. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (vq->event_idx)
        return vq_need_event(*vq->avail_event, now, old);
    return !(*vq->used_flags & VRING_USED_F_NO_NOTIFY);
}

int vq_kick(struct virtqueue *vq)
{
    if (!vq_publish(vq))
        return 0;
    *vq->notify = vq->notify_value;
    vq->doorbells++;
    return 1;
}

bool vq_add_chain(struct virtqueue *vq, struct pkt *token, const uint64_t *addr, const uint32_t *len, uint16_t n,
                  uint16_t n_write)
{
    if (vq->packed)
        return vqp_add_chain(vq, token, addr, len, n, n_write);
    if (n == 0 || vq->nfree < n)
        return false;
    uint16_t next = 0;
    for (uint16_t i = n; i-- > 0;) { /* build from the tail so each knows its next */
        uint16_t id = vq->free_ids[--vq->nfree];
        struct vring_desc *d = &vq->desc[id];
        d->addr = addr[i];
        d->len = len[i];
        d->flags = (uint16_t)((i >= n - n_write ? VRING_DESC_F_WRITE : 0) | (i + 1 < n ? VRING_DESC_F_NEXT : 0));
        d->next = next;
        next = id;
    }
    vq->slot[next] = token;
    vq->avail_ring[vq->next_avail & vq->mask] = next;
    vq->next_avail++;
    return true;
}

void vq_free_chain(struct virtqueue *vq, uint16_t id)
{
    for (uint16_t hops = 0; hops < vq->size; hops++) { /* bounded: a loop in the chain ends here */
        uint16_t flags = vq->desc[id].flags, next = vq->desc[id].next;
        vq->free_ids[vq->nfree++] = id;
        if (!(flags & VRING_DESC_F_NEXT) || next >= vq->size)
            return;
        id = next;
    }
}
