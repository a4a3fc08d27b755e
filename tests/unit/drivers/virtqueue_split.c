/* SPDX-License-Identifier: MIT */
/* tests/unit/drivers/virtqueue_split.c: split-ring logic (drivers/virtio/virtqueue.c)
 * against an in-memory device that follows virtio 1.2, 2.7: it takes
 * buffers from the avail ring, returns them on the used ring, and under
 * EVENT_IDX asks to be notified only when it has run dry. */
#include <stdlib.h>

#include "drivers/virtio/virtqueue.h"
#include "tests/unit/check.h"

struct model {
    struct virtqueue vq;
    void *ring;
    struct pkt *slot[VQ_MAX_SIZE];
    uint16_t ids[VQ_MAX_SIZE];
    uint16_t doorbell;
    uint16_t dev_avail; /* device's next avail entry */
    uint16_t dev_used;  /* device's used index */
    struct pkt fake[VQ_MAX_SIZE * 4];
};

static struct model *model_new(uint16_t size, bool event_idx)
{
    struct model *m = calloc(1, sizeof *m);
    m->ring = aligned_alloc(4096, vq_ring_bytes(size, false));
    memset(m->ring, 0, vq_ring_bytes(size, false));
    vq_init(&m->vq, m->ring, size, m->slot, m->ids, event_idx);
    m->vq.notify = &m->doorbell;
    m->vq.notify_value = 7;
    return m;
}

/* What the driver's burst loop does: one look at the used index, one buffer. */
static struct pkt *used_one(struct virtqueue *vq, uint32_t *len)
{
    vq_used_begin(vq);
    return vq_next_used(vq, len);
}

static void model_free(struct model *m)
{
    free(m->ring);
    free(m);
}

/* The device consumes up to n published buffers; under EVENT_IDX, when it
 * runs out it asks to hear about the next one (avail_event = its index). */
static int device_run(struct model *m, int n)
{
    struct virtqueue *vq = &m->vq;
    uint16_t avail = *vq->avail_idx;
    int done = 0;
    while (done < n && m->dev_avail != avail) {
        uint16_t id = vq->avail_ring[m->dev_avail & vq->mask];
        uint32_t len = 0;
        for (uint16_t d = id;; d = vq->desc[d].next) {
            len += vq->desc[d].len;
            if (!(vq->desc[d].flags & VRING_DESC_F_NEXT))
                break;
        }
        vq->used_ring[m->dev_used & vq->mask].id = id;
        vq->used_ring[m->dev_used & vq->mask].len = len;
        m->dev_avail++;
        m->dev_used++;
        done++;
    }
    __atomic_store_n(vq->used_idx, m->dev_used, __ATOMIC_RELEASE);
    if (m->dev_avail == avail)
        *vq->avail_event = m->dev_avail;
    return done;
}

TEST(virtqueue_wraps_and_keeps_order)
{
    struct model *m = model_new(8, true);
    unsigned next_in = 0, next_out = 0;
    for (int round = 0; round < 40000; round++) {
        int burst = 1 + round % 11;
        for (int i = 0; i < burst; i++) {
            if (!vq_add(&m->vq, &m->fake[next_in % 32], next_in, 100 + next_in % 7, false))
                break;
            next_in++;
        }
        vq_kick(&m->vq);
        device_run(m, 1 + round % 5);
        uint32_t len;
        struct pkt *p;
        vq_used_begin(&m->vq);
        while ((p = vq_next_used(&m->vq, &len)) != NULL) {
            CHECK(p == &m->fake[next_out % 32]);
            CHECK_EQ(len, 100 + next_out % 7);
            next_out++;
        }
    }
    device_run(m, 100);
    uint32_t len;
    while (used_one(&m->vq, &len))
        next_out++;
    CHECK_EQ(next_out, next_in);
    CHECK(next_in > 65536); /* the 16-bit indices wrapped */
    CHECK_EQ(m->vq.nfree, 8);
    CHECK_EQ(m->vq.bad_used, 0);
    model_free(m);
}

TEST(virtqueue_event_idx_arithmetic)
{
    CHECK(vq_need_event(0, 1, 0));          /* moved onto the event */
    CHECK(!vq_need_event(5, 3, 0));         /* not reached yet */
    CHECK(vq_need_event(5, 10, 0));         /* passed it in one batch */
    CHECK(!vq_need_event(5, 10, 6));        /* passed it before */
    CHECK(vq_need_event(65535, 2, 65534));  /* across the 16-bit wrap */
    CHECK(vq_need_event(0, 1, 65535));      /* crossed event 0 at the wrap */
    CHECK(!vq_need_event(1, 1, 65535));     /* entry 1 not published yet */
    CHECK(!vq_need_event(100, 65535, 65500));
}

TEST(virtqueue_doorbell_only_when_device_waits)
{
    struct model *m = model_new(256, true);
    /* Fresh device: avail_event 0, so the first publish notifies. */
    for (int i = 0; i < 16; i++)
        vq_add(&m->vq, &m->fake[i], i, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 1);
    CHECK_EQ(m->doorbell, 7);
    /* The device is busy (has not drained): further bursts ring nothing. */
    device_run(m, 4);
    for (int b = 0; b < 10; b++) {
        for (int i = 0; i < 16; i++)
            vq_add(&m->vq, &m->fake[16 + (b * 16 + i) % 200], i, 64, false);
        CHECK_EQ(vq_kick(&m->vq), 0);
        uint32_t len;
        while (used_one(&m->vq, &len))
            ;
    }
    /* It drains and asks to be told: the next burst rings once. */
    device_run(m, 1000);
    uint32_t len;
    while (used_one(&m->vq, &len))
        ;
    vq_add(&m->vq, &m->fake[0], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 1);
    CHECK_EQ(m->vq.doorbells, 2);
    CHECK_EQ(vq_kick(&m->vq), 0); /* nothing new: no publish, no ring */
    model_free(m);
}

TEST(virtqueue_no_notify_flag_without_event_idx)
{
    struct model *m = model_new(16, false);
    vq_add(&m->vq, &m->fake[0], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 1);
    *m->vq.used_flags = VRING_USED_F_NO_NOTIFY;
    vq_add(&m->vq, &m->fake[1], 0, 64, false);
    CHECK_EQ(vq_kick(&m->vq), 0);
    CHECK_EQ(*m->vq.avail_idx, 2);
    CHECK_EQ(*m->vq.avail_flags, VRING_AVAIL_F_NO_INTERRUPT);
    model_free(m);
}

TEST(virtqueue_partial_bursts_and_chains)
{
    struct model *m = model_new(4, true);
    for (int i = 0; i < 3; i++)
        CHECK(vq_add(&m->vq, &m->fake[i], i, 10, true));
    uint64_t addr[2] = {1, 2};
    uint32_t lens[2] = {5, 1};
    CHECK(!vq_add_chain(&m->vq, &m->fake[9], addr, lens, 2, 1)); /* one slot left */
    CHECK(vq_add(&m->vq, &m->fake[3], 3, 10, true));
    CHECK(!vq_add(&m->vq, &m->fake[4], 4, 10, true)); /* full */
    vq_kick(&m->vq);
    device_run(m, 4);
    uint32_t len;
    int got = 0;
    while (used_one(&m->vq, &len))
        got++;
    CHECK_EQ(got, 4);
    CHECK(vq_add_chain(&m->vq, &m->fake[9], addr, lens, 2, 1));
    CHECK_EQ(m->vq.nfree, 2);
    vq_kick(&m->vq);
    device_run(m, 1);
    CHECK(used_one(&m->vq, &len) == &m->fake[9]);
    CHECK_EQ(len, 6);
    CHECK_EQ(m->vq.nfree, 4); /* the whole chain came back */
    /* A used entry naming nothing of ours is skipped and counted. */
    m->vq.used_ring[m->dev_used & m->vq.mask].id = 3;
    __atomic_store_n(m->vq.used_idx, ++m->dev_used, __ATOMIC_RELEASE);
    CHECK(used_one(&m->vq, &len) == NULL);
    CHECK_EQ(m->vq.bad_used, 1);
    model_free(m);
}
