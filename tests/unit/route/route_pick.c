/* SPDX-License-Identifier: MIT */
/* tests/unit/route/route_pick.c: the lookup paths timed and checked
 * (net/route/route_pick.h), as the kernel does at boot: every path the
 * host has answers as the portable code does, the fastest is taken (a
 * clock of our own decides which is), and a shortage of memory leaves
 * the CPU's best and nothing allocated. */
#include <time.h>

#include "net/route/route.h"
#include "tests/unit/check.h"
#include "tests/support/route_alloc.h"

static uint64_t host_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

TEST(route_pick_every_path_answers_right)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    unsigned max = route_host_best();
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++) {
        struct route_pick pk;
        unsigned best = route_pick_path(&cfg.alloc, fam, max, host_ns, &pk);
        CHECK_EQ(best, pk.best);
        CHECK(best <= max);
        CHECK_EQ(pk.wrong, 0);
        for (unsigned p = 0; p < ROUTE_PATHS; p++)
            CHECK(p <= max ? pk.ns[p] > 0 : pk.ns[p] == 0);
        CHECK_EQ(al.live_bytes, 0);
    }
}

/* A clock under which path fast_path's passes take 1 ns and every other
 * path's 1000: calls come in pairs (before and after a path's passes),
 * paths 0..clock_max in turn. */
static unsigned clock_calls, clock_max, fast_path;

static uint64_t fake_ns(void)
{
    unsigned c = clock_calls++, path = (c / 2) % (clock_max + 1);
    uint64_t base = (uint64_t)(c / 2) * 10000;
    return c % 2 == 0 ? base : base + (path == fast_path ? 1 : 1000);
}

TEST(route_pick_takes_the_fastest)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    clock_max = route_host_best();
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++)
        for (fast_path = 0; fast_path <= clock_max; fast_path++) {
            struct route_pick pk;
            clock_calls = 0;
            CHECK_EQ(route_pick_path(&cfg.alloc, fam, clock_max, fake_ns, &pk), fast_path);
            CHECK_EQ(pk.ns[fast_path], 1);
            CHECK_EQ(pk.ns[fast_path ? 0 : clock_max], 1000);
            CHECK_EQ(clock_calls, 2 * 3 * (clock_max + 1)); /* three trials */
        }
    CHECK_EQ(al.live_bytes, 0);
}

TEST(route_pick_short_of_memory)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    unsigned max = route_host_best();
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++) {
        struct route_pick pk;
        al.calls = 0;
        route_pick_path(&cfg.alloc, fam, max, host_ns, &pk);
        long calls = al.calls;
        CHECK(calls > 3);
        /* Every allocation failing in turn (a sample of 64 where there are more). */
        for (long k = 0; k < calls; k += calls > 64 ? calls / 64 : 1) {
            al.calls = 0;
            al.fail_after = k;
            CHECK_EQ(route_pick_path(&cfg.alloc, fam, max, host_ns, &pk), max);
            for (unsigned p = 0; p < ROUTE_PATHS; p++)
                CHECK_EQ(pk.ns[p], 0);
            CHECK_EQ(al.live_bytes, 0);
            al.fail_after = -1;
        }
    }
}
