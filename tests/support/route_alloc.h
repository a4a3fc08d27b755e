/* SPDX-License-Identifier: MIT */
/* tests/support/route_alloc.h: what the route-table tests share: a counting
 * allocator that can be told to fail, and a small random generator. */
#ifndef TESTS_SUPPORT_ROUTE_ALLOC_H
#define TESTS_SUPPORT_ROUTE_ALLOC_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

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

#endif
