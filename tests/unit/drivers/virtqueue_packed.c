/* SPDX-License-Identifier: MIT */
/* tests/unit/drivers/virtqueue_packed.c: packed-ring logic
 * (drivers/virtio/virtqueue_packed.c) against an in-memory device that
 * follows virtio 1.2, 2.8: it reads the ring in order while it finds
 * descriptors available under its wrap counter, writes one used
 * descriptor a buffer (chains included) in the order it completes them,
 * which may not be the order it took them, and asks for a doorbell only
 * once it has run dry. */
#include <stdlib.h>

#include "drivers/virtio/virtqueue.h"
#include "tests/unit/check.h"

struct pmodel {
    struct virtqueue vq;
    void *ring;
    struct pkt *slot[VQ_MAX_SIZE];
    uint16_t ids[VQ_MAX_SIZE], chain[VQ_MAX_SIZE];
    uint16_t doorbell;
    uint16_t dev_pos, dev_wrap;   /* next descriptor to read; its counter */
    uint16_t used_pos, used_wrap; /* next used descriptor to write; its counter */
    struct { uint16_t id, n; uint32_t len; } taken[VQ_MAX_SIZE]; /* read, not yet used */
    uint32_t ntaken;
    struct pkt fake[VQ_MAX_SIZE * 4];
};

static volatile struct vring_packed_desc *pd(struct pmodel *m, uint16_t pos)
{
    return (volatile struct vring_packed_desc *)m->vq.desc + pos;
}

static volatile uint16_t *dev_event_flags(struct pmodel *m)
{
    return (volatile uint16_t *)((uint8_t *)m->ring + vq_device_offset(m->vq.size, true) + 2);
}

static struct pmodel *pmodel_new(uint16_t size)
{
    struct pmodel *m = calloc(1, sizeof *m);
    m->ring = aligned_alloc(4096, vq_ring_bytes(size, true));
    memset(m->ring, 0, vq_ring_bytes(size, true));
    vq_init_packed(&m->vq, m->ring, size, m->slot, m->ids, m->chain);
    m->vq.notify = &m->doorbell;
    m->vq.notify_value = 7;
    m->dev_wrap = m->used_wrap = 1;
    return m;
}

static void pmodel_free(struct pmodel *m)
{
    free(m->ring);
    free(m);
}

static bool dev_available(struct pmodel *m, uint16_t pos)
{
    uint16_t f = __atomic_load_n(&pd(m, pos)->flags, __ATOMIC_ACQUIRE);
    return !!(f & VRING_PACKED_F_AVAIL) == !!m->dev_wrap && !!(f & VRING_PACKED_F_USED) != !!m->dev_wrap;
}

static void dev_advance(struct pmodel *m, uint16_t *pos, uint16_t *wrap, uint16_t n)
{
    for (uint16_t i = 0; i < n; i++)
        if (++*pos == m->vq.size) {
            *pos = 0;
            *wrap ^= 1;
        }
}

/* Reads up to n buffers (chains whole): their id, length and descriptors. */
static uint32_t dev_take(struct pmodel *m, uint32_t n)
{
    uint32_t got = 0;
    while (got < n && dev_available(m, m->dev_pos)) {
        uint16_t pos = m->dev_pos, wrap = m->dev_wrap, count = 0;
        uint32_t len = 0;
        for (;;) {
            volatile struct vring_packed_desc *d = pd(m, pos);
            len += d->len;
            count++;
            uint16_t f = d->flags, id = d->id;
            dev_advance(m, &pos, &wrap, 1);
            if (!(f & VRING_DESC_F_NEXT)) {
                m->taken[m->ntaken].id = id; /* the last descriptor's (2.8.6) */
                break;
            }
            CHECK(dev_available(m, pos) || wrap != m->dev_wrap); /* the rest is out already */
        }
        m->taken[m->ntaken].n = count;
        m->taken[m->ntaken++].len = len;
        m->dev_pos = pos;
        m->dev_wrap = wrap;
        got++;
    }
    return got;
}

/* Completes what it took, newest first when reverse; a used descriptor
 * each, the position moving on by the buffer's descriptors. Asks for a
 * doorbell once it has nothing left to read. */
static void dev_complete(struct pmodel *m, bool reverse)
{
    for (uint32_t k = 0; k < m->ntaken; k++) {
        uint32_t i = reverse ? m->ntaken - 1 - k : k;
        volatile struct vring_packed_desc *d = pd(m, m->used_pos);
        d->id = m->taken[i].id;
        d->len = m->taken[i].len;
        uint16_t f = m->used_wrap ? (VRING_PACKED_F_AVAIL | VRING_PACKED_F_USED) : 0;
        __atomic_store_n(&d->flags, f, __ATOMIC_RELEASE);
        dev_advance(m, &m->used_pos, &m->used_wrap, m->taken[i].n);
    }
    m->ntaken = 0;
    *dev_event_flags(m) = dev_available(m, m->dev_pos) ? VRING_EVENT_F_DISABLE : 0;
}

TEST(virtqueue_packed_wraps_and_keeps_order)
{
    struct pmodel *m = pmodel_new(8);
    unsigned next_in = 0, next_out = 0;
    for (int round = 0; round < 40000; round++) {
        for (int i = 0; i < 1 + round % 11; i++) {
            if (!vq_add(&m->vq, &m->fake[next_in % 32], next_in, 100 + next_in % 7, false))
                break;
            next_in++;
        }
        vq_kick(&m->vq);
        dev_take(m, 1 + round % 5);
        dev_complete(m, false);
        uint32_t len;
        struct pkt *p;
        vq_used_begin(&m->vq);
        while ((p = vq_next_used(&m->vq, &len)) != NULL) {
            CHECK(p == &m->fake[next_out % 32]);
            CHECK_EQ(len, 100 + next_out % 7);
            next_out++;
        }
    }
    dev_take(m, 100);
    dev_complete(m, false);
    uint32_t len;
    while (vq_next_used(&m->vq, &len))
        next_out++;
    CHECK_EQ(next_out, next_in);
    CHECK_EQ(m->vq.nfree, 8);
    CHECK_EQ(m->vq.nids, 8);
    CHECK_EQ(m->vq.bad_used, 0);
    pmodel_free(m);
}

/* Chains of 1 to 3 descriptors, completed out of order: every buffer
 * comes back once, with its length, and the ring and ids all return. */
TEST(virtqueue_packed_chains_out_of_order)
{
    struct pmodel *m = pmodel_new(16);
    uint32_t in = 0, out = 0;
    bool out_there[64] = {false}; /* token k: added, not yet back */
    for (int round = 0; round < 20000; round++) {
        for (int i = 0; i < 1 + round % 4; i++) {
            uint16_t n = (uint16_t)(1 + (in + (uint32_t)round) % 3);
            uint64_t addr[3] = {1, 2, 3};
            uint32_t lens[3] = {in % 200, 10, 1};
            uint32_t k = in % 64;
            if (out_there[k] || !vq_add_chain(&m->vq, &m->fake[k], addr, lens, n, 1))
                break;
            out_there[k] = true;
            in++;
        }
        vq_kick(&m->vq);
        dev_take(m, 1 + (uint32_t)round % 6);
        dev_complete(m, round % 3 != 0);
        uint32_t len;
        struct pkt *p;
        while ((p = vq_next_used(&m->vq, &len)) != NULL) {
            uint32_t k = (uint32_t)(p - m->fake);
            CHECK(k < 64 && out_there[k]);
            out_there[k] = false;
            out++;
        }
    }
    dev_take(m, 1000);
    dev_complete(m, true);
    uint32_t len;
    while (vq_next_used(&m->vq, &len))
        out++;
    CHECK_EQ(out, in);
    CHECK(in > 20000);
    CHECK_EQ(m->vq.nfree, 16);
    CHECK_EQ(m->vq.nids, 16);
    CHECK_EQ(m->vq.bad_used, 0);
    pmodel_free(m);
}

/* The first descriptor of a batch waits for vq_publish: until then the
 * device, reading in order, finds nothing; then the whole batch. */
TEST(virtqueue_packed_batch_shows_at_publish)
{
    struct pmodel *m = pmodel_new(16);
    for (int i = 0; i < 3; i++)
        CHECK(vq_add(&m->vq, &m->fake[i], i, 64, false));
    uint64_t addr[2] = {1, 2};
    uint32_t lens[2] = {5, 1};
    CHECK(vq_add_chain(&m->vq, &m->fake[3], addr, lens, 2, 1));
    CHECK_EQ(dev_take(m, 100), 0);
    CHECK(vq_publish(&m->vq)); /* a fresh device asks for doorbells */
    CHECK_EQ(dev_take(m, 100), 4);
    CHECK_EQ(m->taken[3].n, 2);
    CHECK_EQ(m->taken[3].len, 6);
    CHECK(!vq_publish(&m->vq)); /* nothing new */
    pmodel_free(m);
}

/* The doorbell only when the device event suppression allows it; the
 * driver's own structure says it wants no interrupts. */
TEST(virtqueue_packed_doorbell_by_event_suppression)
{
    struct pmodel *m = pmodel_new(16);
    vq_add(&m->vq, &m->fake[0], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 1);
    CHECK_EQ(m->doorbell, 7);
    *dev_event_flags(m) = VRING_EVENT_F_DISABLE;
    vq_add(&m->vq, &m->fake[1], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 0);
    *dev_event_flags(m) = 2; /* a descriptor-specific event: asked for, rung */
    vq_add(&m->vq, &m->fake[2], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 1);
    CHECK_EQ(m->vq.doorbells, 2);
    volatile uint16_t *drv = (volatile uint16_t *)((uint8_t *)m->ring + vq_driver_offset(16, true));
    CHECK_EQ(drv[1], VRING_EVENT_F_DISABLE);
    pmodel_free(m);
}

/* A used descriptor naming no buffer of ours is skipped and counted. */
TEST(virtqueue_packed_bad_used_id)
{
    struct pmodel *m = pmodel_new(4);
    vq_add(&m->vq, &m->fake[0], 0, 64, false);
    vq_kick(&m->vq);
    dev_take(m, 1);
    m->taken[0].id = 3; /* not in flight */
    m->taken[1].id = 0;
    m->taken[1].n = 1;
    m->taken[1].len = 64;
    m->ntaken = 2;
    dev_complete(m, false);
    uint32_t len;
    CHECK(vq_next_used(&m->vq, &len) == &m->fake[0]);
    CHECK_EQ(m->vq.bad_used, 1);
    CHECK(vq_next_used(&m->vq, &len) == NULL);
    pmodel_free(m);
}
