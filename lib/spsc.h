/* SPDX-License-Identifier: MIT */
/* lib/spsc.h: a lock-free single-producer single-consumer ring of
 * messages (a function and its argument), for core-to-core requests
 * (kernel/msg.c). Portable C11 atomics; host-tested with pthreads.
 *
 * Lamport's ring with free-running 32-bit indices: head - tail is the fill
 * (it wraps correctly because the capacity is a power of two). The producer
 * owns head and a cached copy of tail, the consumer owns tail and a cached
 * copy of head, each pair on its own cache line, so neither side reads the
 * other's line until its cached view says the ring is full or empty. A slot
 * is written before head is published (release) and read after head is
 * observed (acquire); tail is published after the slot was copied out, so
 * the producer never overwrites a message still being read. */
#ifndef LIB_SPSC_H
#define LIB_SPSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPSC_CACHE_LINE 64

struct spsc_msg {
    void (*fn)(void *arg);
    void *arg;
};

struct spsc_ring {
    _Alignas(SPSC_CACHE_LINE) _Atomic uint32_t head; /* producer: next slot to fill */
    uint32_t tail_seen;                              /* producer's view of tail */
    _Alignas(SPSC_CACHE_LINE) _Atomic uint32_t tail; /* consumer: next slot to read */
    uint32_t head_seen;                              /* consumer's view of head */
    _Alignas(SPSC_CACHE_LINE) uint32_t mask;         /* capacity - 1, read-only */
    struct spsc_msg slot[];
};

/* Bytes to allocate for a ring of cap slots (cap a power of two). */
static inline size_t spsc_bytes(uint32_t cap) { return sizeof(struct spsc_ring) + cap * sizeof(struct spsc_msg); }

/* r points to spsc_bytes(cap) bytes, SPSC_CACHE_LINE-aligned. */
static inline void spsc_init(struct spsc_ring *r, uint32_t cap)
{
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    r->tail_seen = 0;
    r->head_seen = 0;
    r->mask = cap - 1;
}

/* Producer only. Returns false (and stores nothing) when the ring is full. */
static inline bool spsc_push(struct spsc_ring *r, struct spsc_msg m)
{
    uint32_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    if (h - r->tail_seen > r->mask) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (h - r->tail_seen > r->mask)
            return false;
    }
    r->slot[h & r->mask] = m;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return true;
}

/* Consumer only. Returns false when the ring is empty. */
static inline bool spsc_pop(struct spsc_ring *r, struct spsc_msg *out)
{
    uint32_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    if (t == r->head_seen) {
        r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
        if (t == r->head_seen)
            return false;
    }
    *out = r->slot[t & r->mask];
    atomic_store_explicit(&r->tail, t + 1, memory_order_release);
    return true;
}

/* Either side: a snapshot of how many messages are queued. */
static inline uint32_t spsc_count(struct spsc_ring *r)
{
    return atomic_load_explicit(&r->head, memory_order_acquire) - atomic_load_explicit(&r->tail, memory_order_acquire);
}

#endif
