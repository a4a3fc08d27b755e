/* SPDX-License-Identifier: MIT */
/* tests/unit/lib/spsc.c: lib/spsc.h, single-threaded edge cases and
 * then real concurrency: a producer and a consumer thread per ring, and a
 * full mesh of threads (one ring per ordered pair, as kernel/msg.c uses
 * them), checking every message arrives once, in order. */
#include <pthread.h>
#include <stdlib.h>

#include "lib/spsc.h"
#include "tests/unit/check.h"

static struct spsc_ring *ring_new(uint32_t cap)
{
    void *p = aligned_alloc(SPSC_CACHE_LINE, (spsc_bytes(cap) + SPSC_CACHE_LINE - 1) / SPSC_CACHE_LINE * SPSC_CACHE_LINE);
    spsc_init(p, cap);
    return p;
}

static void nop(void *arg) {}

TEST(spsc_full_empty_wrap)
{
    struct spsc_ring *r = ring_new(4);
    struct spsc_msg m;
    CHECK(!spsc_pop(r, &m));
    for (uintptr_t round = 0; round < 1000; round++) { /* many laps around the ring */
        for (uintptr_t i = 0; i < 4; i++)
            CHECK(spsc_push(r, (struct spsc_msg){nop, (void *)(round * 4 + i)}));
        CHECK(!spsc_push(r, (struct spsc_msg){nop, 0}));
        CHECK_EQ(spsc_count(r), 4);
        for (uintptr_t i = 0; i < 4; i++) {
            CHECK(spsc_pop(r, &m));
            CHECK_EQ((uintptr_t)m.arg, round * 4 + i);
        }
        CHECK(!spsc_pop(r, &m));
    }
    free(r);
}

TEST(spsc_index_wraparound)
{
    struct spsc_ring *r = ring_new(8);
    atomic_store(&r->head, 0xfffffffcu); /* start just below the 32-bit wrap */
    atomic_store(&r->tail, 0xfffffffcu);
    r->tail_seen = r->head_seen = 0xfffffffcu;
    struct spsc_msg m;
    for (uintptr_t i = 0; i < 8; i++)
        CHECK(spsc_push(r, (struct spsc_msg){nop, (void *)i}));
    CHECK(!spsc_push(r, (struct spsc_msg){nop, 0}));
    for (uintptr_t i = 0; i < 8; i++) {
        CHECK(spsc_pop(r, &m));
        CHECK_EQ((uintptr_t)m.arg, i);
    }
    CHECK(!spsc_pop(r, &m));
    free(r);
}

#define MESH 4
#define PER_PAIR 40000

static struct spsc_ring *mesh[MESH][MESH]; /* [from][to] */
static _Atomic int bad_order, received_total;

static void *mesh_thread(void *arg)
{
    int me = (int)(intptr_t)arg;
    uintptr_t sent[MESH] = {0}, expect[MESH] = {0};
    int done_sending = 0, done_receiving = 0, received = 0;
    while (!done_sending || !done_receiving) {
        done_sending = 1;
        for (int to = 0; to < MESH; to++) {
            /* a burst, then move on: rings fill and drain concurrently */
            for (int k = 0; k < 16 && sent[to] < PER_PAIR; k++) {
                if (!spsc_push(mesh[me][to], (struct spsc_msg){nop, (void *)sent[to]}))
                    break;
                sent[to]++;
            }
            if (sent[to] < PER_PAIR)
                done_sending = 0;
        }
        done_receiving = 1;
        for (int from = 0; from < MESH; from++) {
            struct spsc_msg m;
            while (spsc_pop(mesh[from][me], &m)) {
                if ((uintptr_t)m.arg != expect[from])
                    atomic_fetch_add(&bad_order, 1);
                expect[from] = (uintptr_t)m.arg + 1;
                received++;
            }
            if (expect[from] < PER_PAIR)
                done_receiving = 0;
        }
    }
    atomic_fetch_add(&received_total, received);
    return 0;
}

TEST(spsc_threads_full_mesh_no_loss_no_dup)
{
    pthread_t th[MESH];
    for (int a = 0; a < MESH; a++)
        for (int b = 0; b < MESH; b++)
            mesh[a][b] = ring_new(64);
    atomic_store(&bad_order, 0);
    atomic_store(&received_total, 0);
    for (int i = 0; i < MESH; i++)
        pthread_create(&th[i], 0, mesh_thread, (void *)(intptr_t)i);
    for (int i = 0; i < MESH; i++)
        pthread_join(th[i], 0);
    CHECK_EQ(atomic_load(&bad_order), 0);
    CHECK_EQ(atomic_load(&received_total), MESH * MESH * PER_PAIR);
    for (int a = 0; a < MESH; a++)
        for (int b = 0; b < MESH; b++) {
            CHECK_EQ(spsc_count(mesh[a][b]), 0);
            free(mesh[a][b]);
        }
}

/* Payloads bigger than a word must arrive whole: the slot is written before
 * head is published. The consumer checks fn and arg agree. */
static void tag_a(void *arg) {}
static void tag_b(void *arg) {}
static struct spsc_ring *pair;
static _Atomic int torn;

static void *producer(void *arg)
{
    for (uintptr_t i = 0; i < 1000000;) {
        struct spsc_msg m = {(i & 1) ? tag_b : tag_a, (void *)i};
        if (spsc_push(pair, m))
            i++;
    }
    return 0;
}

TEST(spsc_threads_messages_arrive_whole)
{
    pair = ring_new(16);
    atomic_store(&torn, 0);
    pthread_t th;
    pthread_create(&th, 0, producer, 0);
    uintptr_t next = 0;
    while (next < 1000000) {
        struct spsc_msg m;
        if (!spsc_pop(pair, &m))
            continue;
        if ((uintptr_t)m.arg != next || m.fn != ((next & 1) ? tag_b : tag_a))
            atomic_fetch_add(&torn, 1);
        next++;
    }
    pthread_join(th, 0);
    CHECK_EQ(atomic_load(&torn), 0);
    free(pair);
}
