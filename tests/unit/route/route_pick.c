/* SPDX-License-Identifier: MIT */
/* tests/unit/route/route_pick.c: the lookup paths timed and checked
 * (net/route/route_pick.h), as the kernel does at boot: every path the
 * host has answers as the portable code does, the fastest is taken (a
 * clock of our own decides which is) or a later one as fast, and a
 * shortage of memory leaves the CPU's best and nothing allocated. */
#include "net/route/route.h"
#include "tests/unit/check.h"
#include "tests/support/route_alloc.h"

TEST(route_pick_every_path_answers_right)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    unsigned max = route_host_best();
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++) {
        struct route_pick pk;
        unsigned best = route_pick_path(&cfg.alloc, fam, max, route_host_now_ns, &pk);
        CHECK_EQ(best, pk.best);
        CHECK(best <= max);
        CHECK_EQ(pk.wrong, 0);
        for (unsigned p = 0; p < ROUTE_PATHS; p++)
            CHECK(p <= max ? pk.ns[p] > 0 : pk.ns[p] == 0);
        CHECK_EQ(al.live_bytes, 0);
    }
}

/* A clock under which path p's passes take path_ns[p]: calls come in
 * pairs (before and after a path's passes), paths 0..clock_max in turn. */
static unsigned clock_calls, clock_max;
static uint64_t path_ns[ROUTE_PATHS];

static uint64_t fake_ns(void)
{
    unsigned c = clock_calls++, path = (c / 2) % (clock_max + 1);
    uint64_t base = (uint64_t)(c / 2) * 10000;
    return c % 2 == 0 ? base : base + path_ns[path];
}

static unsigned pick_under(const struct route_alloc *al, enum route_family fam, struct route_pick *pk)
{
    clock_calls = 0;
    unsigned best = route_pick_path(al, fam, clock_max, fake_ns, pk);
    CHECK_EQ(clock_calls, 2 * 3 * (clock_max + 1)); /* three trials */
    return best;
}

TEST(route_pick_takes_the_fastest)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    clock_max = route_host_best();
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++)
        for (unsigned fast = 0; fast <= clock_max; fast++) {
            struct route_pick pk;
            for (unsigned p = 0; p < ROUTE_PATHS; p++)
                path_ns[p] = p == fast ? 100 : 1000;
            CHECK_EQ(pick_under(&cfg.alloc, fam, &pk), fast);
            CHECK_EQ(pk.ns[fast], 100);
            CHECK_EQ(pk.ns[fast ? 0 : clock_max], 1000);
        }
    CHECK_EQ(al.live_bytes, 0);
}

/* A later path within 5% of the fastest is taken, one further off not. */
TEST(route_pick_ties_go_to_the_later_path)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    clock_max = route_host_best();
    if (clock_max == ROUTE_PATH_PORTABLE)
        return;
    for (enum route_family fam = ROUTE_V4; fam <= ROUTE_V6; fam++) {
        struct route_pick pk;
        for (unsigned p = 0; p < ROUTE_PATHS; p++)
            path_ns[p] = p == 0 ? 100 : 1000;
        path_ns[clock_max] = 105;
        CHECK_EQ(pick_under(&cfg.alloc, fam, &pk), clock_max);
        path_ns[clock_max] = 106;
        CHECK_EQ(pick_under(&cfg.alloc, fam, &pk), 0);
        path_ns[clock_max] = 100; /* the one before it fastest by 1% */
        path_ns[clock_max - 1] = 99;
        CHECK_EQ(pick_under(&cfg.alloc, fam, &pk), clock_max);
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
        route_pick_path(&cfg.alloc, fam, max, route_host_now_ns, &pk);
        long calls = al.calls;
        CHECK(calls > 3);
        /* Every allocation failing in turn (a sample of 64 where there are more). */
        for (long k = 0; k < calls; k += calls > 64 ? calls / 64 : 1) {
            al.calls = 0;
            al.fail_after = k;
            CHECK_EQ(route_pick_path(&cfg.alloc, fam, max, route_host_now_ns, &pk), max);
            for (unsigned p = 0; p < ROUTE_PATHS; p++)
                CHECK_EQ(pk.ns[p], 0);
            CHECK_EQ(al.live_bytes, 0);
            al.fail_after = -1;
        }
    }
}
