/* SPDX-License-Identifier: MIT */
/* tests/support/route_alloc.h: what the route-table tests share: a counting
 * allocator that can be told to fail, a small random generator, and
 * burst arrays that end at an unmapped page. */
#ifndef TESTS_SUPPORT_ROUTE_ALLOC_H
#define TESTS_SUPPORT_ROUTE_ALLOC_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "net/route/route.h"
#include "tests/support/host_cpu.h"

struct test_alloc {
    _Atomic long live_bytes;
    _Atomic long calls;
    long fail_after; /* fail every call after this many; < 0: never */
};

static inline void *test_alloc_fn(void *ctx, size_t size, size_t align)
{
    struct test_alloc *a = ctx;
    long n = atomic_fetch_add(&a->calls, 1);
    if (a->fail_after >= 0 && n >= a->fail_after)
        return NULL;
    void *p = aligned_alloc(align, (size + align - 1) / align * align);
    if (p)
        atomic_fetch_add(&a->live_bytes, (long)size);
    return p;
}

static inline void test_free_fn(void *ctx, void *p, size_t size)
{
    struct test_alloc *a = ctx;
    atomic_fetch_sub(&a->live_bytes, (long)size);
    free(p);
}

static inline struct route_cfg test_route_cfg(struct test_alloc *a)
{
    a->live_bytes = 0;
    a->calls = 0;
    a->fail_after = -1;
    struct route_cfg c = {{test_alloc_fn, test_free_fn, a}, NULL, true, route_host_avx512(), route_host_avx2()};
    return c;
}

static inline uint64_t test_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A copy of bytes bytes (at most a page) that ends where an unmapped page
 * begins, and the same for a result array of out bytes: a burst that
 * reads or writes past its n lanes faults (ASan does not see the vector
 * gathers and masked moves). Each call reuses its page pair. */
static inline void *test_guarded(const void *src, size_t bytes, int which)
{
    static uint8_t *pages[2];
    if (pages[which] == NULL) {
        pages[which] = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pages[which] == MAP_FAILED || mprotect(pages[which] + 4096, 4096, PROT_NONE) != 0)
            abort();
    }
    uint8_t *p = pages[which] + 4096 - bytes;
    if (src)
        memcpy(p, src, bytes);
    return p;
}

#endif
