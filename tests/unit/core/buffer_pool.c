/* SPDX-License-Identifier: MIT */
/* tests/unit/core/buffer_pool.c: buffer pools (net/core/pkt.h). */
#include <stdlib.h>

#include "net/core/pkt.h"
#include "tests/unit/check.h"

TEST(pkt_pool_lifo_and_counts)
{
    size_t bytes = 17 * PKT_BUF_SIZE; /* 16 buffers, their stride and the stack */
    void *mem = aligned_alloc(PKT_BUF_SIZE, bytes);
    struct pkt_pool pool;
    CHECK_EQ(pkt_pool_init(&pool, mem, 0x100000, bytes), 16);
    CHECK_EQ(pool.nfree, 16);
    struct pkt *a = pkt_alloc(&pool);
    CHECK(a != NULL);
    CHECK(a == (struct pkt *)((char *)mem + 128)); /* after 16 stack slots */
    CHECK_EQ(a->phys, 0x100000 + 128);
    CHECK_EQ(pkt_data_phys(a), 0x100000 + 128 + PKT_META_SIZE + PKT_HEADROOM);
    struct pkt *b = pkt_alloc(&pool);
    CHECK_EQ(b->phys - a->phys, PKT_BUF_STRIDE);
    pkt_free(b);
    pkt_free(a);
    CHECK(pkt_alloc(&pool) == a); /* LIFO: the cache-hot one comes back */
    struct pkt *all[32];
    all[0] = a;
    CHECK_EQ(pkt_alloc_bulk(&pool, all + 1, 20), 15);
    CHECK(pkt_alloc(&pool) == NULL);
    CHECK_EQ(pool.alloc_fail, 2); /* the bulk call's miss and this one */
    pkt_free_bulk(all, 16);
    CHECK_EQ(pool.nfree, pool.total);
    free(mem);
}

TEST(pkt_push_pull_bounds)
{
    void *mem = aligned_alloc(PKT_BUF_SIZE, 2 * PKT_BUF_SIZE);
    struct pkt_pool pool;
    CHECK_EQ(pkt_pool_init(&pool, mem, 0, 2 * PKT_BUF_SIZE), 1);
    struct pkt *p = pkt_alloc(&pool);
    p->len = 100;
    CHECK(pkt_push(p, PKT_HEADROOM) != NULL);
    CHECK(pkt_push(p, 1) == NULL);
    CHECK_EQ(p->len, 100 + PKT_HEADROOM);
    CHECK(pkt_pull(p, p->len + 1) == NULL);
    CHECK(pkt_pull(p, 14) != NULL);
    CHECK_EQ(pkt_tailroom(p), PKT_BUF_SIZE - PKT_META_SIZE - 14 - p->len);
    pkt_free(p);
    CHECK_EQ(pool.nfree, 1);
    free(mem);
}
