/* SPDX-License-Identifier: MIT */
/* tests/unit/route/route4.c: the IPv4 route table (net/route/route4.h) against a
 * linear scan, on small random tables, under ASan/UBSan. The all-2^32 and
 * full-table differential tests are tests/route/ (optimised build). */
#include <pthread.h>
#include <stdlib.h>

#include "net/route/route4.h"
#include "net/route/route_fib.h"
#include "net/route/route_rib.h"
#include "tests/unit/check.h"
#include "tests/support/route_alloc.h"

#define REF_MAX 4096

struct ref4 {
    struct route4_prefix p[REF_MAX];
    unsigned n;
};

static uint32_t mask4(unsigned len)
{
    return len ? ~0u << (32 - len) : 0;
}

static uint32_t ref4_lookup(const struct ref4 *r, uint32_t a)
{
    int best = -1;
    uint32_t nh = 0;
    for (unsigned i = 0; i < r->n; i++)
        if ((a & mask4(r->p[i].len)) == r->p[i].addr && (int)r->p[i].len > best) {
            best = (int)r->p[i].len;
            nh = r->p[i].nh;
        }
    return nh;
}

static void ref4_set(struct ref4 *r, uint32_t addr, unsigned len, uint32_t nh)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->p[i].addr == addr && r->p[i].len == len) {
            if (nh)
                r->p[i].nh = nh;
            else
                r->p[i] = r->p[--r->n];
            return;
        }
    if (nh && r->n < REF_MAX)
        r->p[r->n++] = (struct route4_prefix){addr, len, nh};
}

/* Prefixes clustered under a few /8s so that they nest and share nodes. */
static void rand_prefix4(uint64_t *s, uint32_t *addr, unsigned *len)
{
    uint64_t x = test_rand(s);
    static const unsigned lens[] = {0, 8, 12, 16, 18, 19, 20, 22, 23, 24, 24, 24, 25, 28, 30, 31, 32};
    *len = lens[x % (sizeof(lens) / sizeof(lens[0]))];
    uint32_t a = (uint32_t)(x >> 32);
    a = (a & 0x00ffffff) | ((uint32_t)(10 + (x >> 8) % 3) << 24);
    if ((x >> 12) % 4 == 0)
        a &= 0xffff0fff;
    *addr = a & mask4(*len);
}

/* Check random addresses and the edges of every prefix in the reference. */
static int check_against(const struct route4 *t, const struct ref4 *r, uint64_t *s, unsigned nrand)
{
    int bad = 0;
    uint32_t a[64];
    for (unsigned i = 0; i < r->n; i++) {
        uint32_t lo = r->p[i].addr, hi = lo | ~mask4(r->p[i].len);
        uint32_t probes[4] = {lo, hi, lo - 1, hi + 1};
        for (unsigned j = 0; j < 4; j++)
            bad += route4_lookup(t, probes[j]) != ref4_lookup(r, probes[j]);
    }
    for (unsigned i = 0; i < nrand; i += 64) {
        for (unsigned j = 0; j < 64; j++) {
            uint32_t x = (uint32_t)test_rand(s);
            a[j] = j & 1 ? x : (x & 0x03ffffff) | 0x08000000; /* half near the clusters */
        }
        unsigned m = 64 - (i / 64) % 49; /* 16..64: partial vectors too */
        uint32_t *in = test_guarded(a, m * 4, 0), *out = test_guarded(NULL, m * 4, 1);
        route4_lookup_burst(t, in, out, m);
        for (unsigned j = 0; j < m; j++)
            bad += out[j] != ref4_lookup(r, a[j]);
    }
    return bad;
}

TEST(route4_parse)
{
    uint32_t a;
    unsigned l;
    CHECK(route4_parse("10.1.2.0/24", 11, &a, &l));
    CHECK_EQ(a, 0x0a010200);
    CHECK_EQ(l, 24);
    CHECK(route4_parse("0.0.0.0/0", 9, &a, &l) && a == 0 && l == 0);
    CHECK(route4_parse("255.255.255.255/32", 18, &a, &l) && a == 0xffffffff && l == 32);
    const char *bad[] = {"10.1.2.1/24", "10.1.2.0/33", "256.1.2.0/24", "10.1.2/24", "10.1.2.0",
                         "10.1.2.0/", "10.1.2.0/24x", " 10.1.2.0/24", "10.01.2.0/24", "1.2.3.4/024",
                         "10..2.0/24", "10.1.2.0/-1", "1234.1.1.1/32", ""};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!route4_parse(bad[i], strlen(bad[i]), &a, &l));
    CHECK(!route4_parse("10.1.2.0/24", 10, &a, &l)); /* length bounds the input */
}

TEST(route4_basic)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    CHECK_EQ(route4_lookup(t, 0x01020304), ROUTE_NH_NONE);
    CHECK_EQ(route4_add(t, 0, 0, 7), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0x0a000000, 8, 1), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0x0a010200, 24, 2), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0x0a010203, 32, 3), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0x0a010201, 24, 3), ROUTE_EINVAL);
    CHECK_EQ(route4_add(t, 0x0a010200, 24, 0), ROUTE_EINVAL);
    CHECK_EQ(route4_add(t, 0x0a010200, 24, ROUTE_NH_MAX + 1), ROUTE_EINVAL);
    CHECK_EQ(route4_lookup(t, 0x01020304), 7);
    CHECK_EQ(route4_lookup(t, 0x0a7f0000), 1);
    CHECK_EQ(route4_lookup(t, 0x0a0102ff), 2);
    CHECK_EQ(route4_lookup(t, 0x0a010203), 3);
    unsigned len;
    CHECK_EQ(route4_match(t, 0x0a010204, &len), 2);
    CHECK_EQ(len, 24);
    CHECK_EQ(route4_get(t, 0x0a010200, 24), 2);
    CHECK_EQ(route4_get(t, 0x0a010000, 16), 0);
    CHECK_EQ(route4_del(t, 0x0a010000, 16), ROUTE_ENOENT);
    CHECK_EQ(route4_del(t, 0x0a010200, 24), ROUTE_OK);
    CHECK_EQ(route4_lookup(t, 0x0a0102ff), 1);
    CHECK_EQ(route4_lookup(t, 0x0a010203), 3);
    CHECK_EQ(route4_del(t, 0, 0), ROUTE_OK);
    CHECK_EQ(route4_lookup(t, 0x01020304), 0);
    struct route_stats st;
    route4_stats(t, &st);
    CHECK_EQ(st.prefixes, 2);
    CHECK(st.retired_bytes > 0);
    route4_reclaim(t, route4_epoch(t));
    route4_stats(t, &st);
    CHECK_EQ(st.retired_bytes, 0);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

/* The RIB's subtree summaries (route_rib.h) against a recount. */
static uint32_t summary_of(const struct route_rib *r, uint32_t i, bool *covered)
{
    uint32_t nh = 0;
    *covered = r->n[i].child[0] && r->n[i].child[1];
    for (unsigned b = 0; b < 2; b++) {
        uint32_t c = r->n[i].child[b];
        if (!c)
            continue;
        bool cc;
        uint32_t below = summary_of(r, c, &cc), mine = r->n[c].nh;
        uint32_t all = !mine ? below : !below || below == mine ? mine : ROUTE_RIB_MIXED;
        nh = !nh ? all : !all || all == nh ? nh : ROUTE_RIB_MIXED;
        if (!mine && !cc)
            *covered = false;
    }
    return nh;
}

static int summaries_wrong(const struct route_rib *r, uint32_t i)
{
    bool cov;
    uint32_t nh = summary_of(r, i, &cov);
    int bad = r->n[i].sub != (nh | (cov ? ROUTE_RIB_COVERED : 0));
    for (unsigned b = 0; b < 2; b++)
        if (r->n[i].child[b])
            bad += summaries_wrong(r, r->n[i].child[b]);
    return bad;
}

/* Few next hops, many the same: regions the FIB finds uniform from the
 * summaries alone, and the summaries right after every add and delete. */
TEST(route_rib_summaries_under_churn)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    struct route_rib rib; /* the same prefixes, for its summaries */
    CHECK_EQ(route_rib_init(&rib, &cfg.alloc), ROUTE_OK);
    static struct ref4 r;
    r.n = 0;
    uint64_t s = 7;
    for (unsigned i = 0; i < 3000; i++) {
        uint32_t a, old;
        unsigned l;
        rand_prefix4(&s, &a, &l);
        uint32_t nh = (uint32_t)(test_rand(&s) % 4); /* 0: delete; 1 half the time */
        nh = nh > 2 ? 1 : nh;
        struct route_key k = {(uint64_t)a << 32, 0};
        if (nh) {
            CHECK_EQ(route4_add(t, a, l, nh), ROUTE_OK);
            CHECK_EQ(route_rib_set(&rib, &k, l, nh, &old), ROUTE_OK);
        } else {
            (void)route4_del(t, a, l);
            (void)route_rib_del(&rib, &k, l, &old);
        }
        ref4_set(&r, a, l, nh);
        if (i % 100 == 0)
            CHECK_EQ(summaries_wrong(&rib, ROUTE_RIB_ROOT), 0);
    }
    CHECK_EQ(summaries_wrong(&rib, ROUTE_RIB_ROOT), 0);
    CHECK_EQ(check_against(t, &r, &s, 8192), 0);
    route_rib_fini(&rib);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

TEST(route4_random_churn)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    bool avx512 = cfg.avx512, avx2 = cfg.avx2;
    /* 0 portable, 1 POPCNT, then the AVX2 and the AVX-512 bursts where the
     * CPU has them */
    for (int popcnt = 0; popcnt < 4; popcnt++) {
        if ((popcnt == 2 && !avx2) || (popcnt == 3 && !avx512))
            continue;
        cfg.popcnt = popcnt != 0;
        cfg.avx2 = popcnt == 2;
        cfg.avx512 = popcnt == 3;
        struct route4 *t = route4_create(&cfg);
        static struct ref4 r;
        r.n = 0;
        uint64_t s = 42 + (uint64_t)popcnt;
        for (unsigned round = 0; round < 6; round++) {
            for (unsigned i = 0; i < 400; i++) {
                uint32_t a;
                unsigned l;
                rand_prefix4(&s, &a, &l);
                /* 0: delete; next hops each side of the first shared leaf
                 * records' end and beyond (the region grows: route_fib.h) */
                static const uint32_t nhs[] = {0, 1, 2, ROUTE_FIB_SHARED_MIN - 1, ROUTE_FIB_SHARED_MIN, 1024,
                                               ROUTE_NH_MAX};
                uint32_t nh = nhs[test_rand(&s) % 7];
                if (nh) {
                    CHECK_EQ(route4_add(t, a, l, nh), ROUTE_OK);
                } else {
                    int want = route4_get(t, a, l) ? ROUTE_OK : ROUTE_ENOENT;
                    CHECK_EQ(route4_del(t, a, l), want);
                }
                ref4_set(&r, a, l, nh);
                if (i % 97 == 0)
                    route4_reclaim(t, route4_epoch(t) - 1);
            }
            CHECK_EQ(check_against(t, &r, &s, 4096), 0);
            if (round == 3) {
                CHECK_EQ(route4_compact(t), ROUTE_OK);
                CHECK_EQ(check_against(t, &r, &s, 4096), 0);
            }
        }
        struct route_stats st;
        route4_stats(t, &st);
        CHECK_EQ(st.prefixes, r.n);
        route4_destroy(t);
        CHECK_EQ(al.live_bytes, 0);
    }
}

/* Every short record of up to 64 bytes lies within one cache line and a
 * longer one starts a line (route_fib_run_alloc), after a bulk load and
 * after churn: one prefetch a lane covers most leaves (route4.c). struct
 * route4 has its fib first. */
static unsigned records_crossing_lines(const struct route4 *t)
{
    const struct route_fib *f = (const struct route_fib *)(const void *)t;
    const struct route_fib_root *r = route_fib_root(f);
    unsigned bad = 0;
    for (uint32_t d = 0; d < (1u << f->direct_bits); d++) {
        int32_t e = (int32_t)atomic_load_explicit(&r->direct[d], memory_order_relaxed);
        if (e <= 0 || e >= (int32_t)ROUTE_FIB_REC_LONG)
            continue; /* a direct leaf's shared record, or a long one */
        uintptr_t a = (uintptr_t)&r->recs[e];
        size_t bytes = 8 + 2 * (size_t)__builtin_popcountll(r->recs[e]);
        bad += bytes <= 64 ? a / 64 != (a + bytes - 1) / 64 : a % 64 != 0;
    }
    return bad;
}

TEST(route4_records_within_lines)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    static struct route4_prefix p[4100];
    uint64_t s = 5;
    unsigned n = 0;
    for (uint32_t j = 0; j < 200; j++) /* /18 j holds 1 to 40 /24s or /22s: records of 1 to 40 leaves */
        for (unsigned k = 0; k <= j % 40; k++) {
            unsigned len = k % 4 ? 24 : 22;
            uint32_t a = 0x0a000000u | j << 14 | (uint32_t)(test_rand(&s) % 64) << 8;
            p[n++] = (struct route4_prefix){a & mask4(len), len, 1 + (uint32_t)(test_rand(&s) % 1000)};
        }
    CHECK_EQ(route4_add_bulk(t, p, n, NULL), ROUTE_OK);
    CHECK(route_fib_root((const struct route_fib *)(const void *)t)->recs != NULL);
    CHECK_EQ(records_crossing_lines(t), 0);
    for (unsigned i = 0; i < 3000; i++) {
        const struct route4_prefix *q = &p[test_rand(&s) % n];
        if (i % 3)
            CHECK_EQ(route4_add(t, q->addr, q->len, 1 + (uint32_t)(test_rand(&s) % 1000)), ROUTE_OK);
        else
            (void)route4_del(t, q->addr, q->len);
    }
    CHECK_EQ(records_crossing_lines(t), 0);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

TEST(route4_load_text)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    static const char text[] = "# a routes file\n"
                               "10.0.0.0/8\r\n"
                               "  10.1.0.0/16   # trailing comment\n"
                               "\n"
                               "10.1.2.3/16\n"          /* host bits */
                               "10.2.0.0/16 extra\n"    /* junk after */
                               "300.1.1.1/32\n"
                               "\x01\xff\x80garbage/\n"
                               "192.168.0.0/33\n"
                               "0.0.0.0/0";             /* no final newline */
    struct route_load_stats st;
    CHECK_EQ(route4_load_text(t, text, sizeof(text) - 1, 5, &st, NULL, NULL), ROUTE_OK);
    CHECK_EQ(st.lines, 10);
    CHECK_EQ(st.added, 3);
    CHECK_EQ(st.bad, 5);
    CHECK_EQ(st.first_bad_line, 5);
    CHECK_EQ(route4_lookup(t, 0x0a010101), 5);
    CHECK_EQ(route4_lookup(t, 0x08080808), 5);
    CHECK_EQ(route4_load_text(t, text, sizeof(text) - 1, 0, &st, NULL, NULL), ROUTE_EINVAL);
    /* A long line without a newline, and an empty text. */
    static char junk[100000];
    memset(junk, '1', sizeof(junk));
    CHECK_EQ(route4_load_text(t, junk, sizeof(junk), 5, &st, NULL, NULL), ROUTE_OK);
    CHECK_EQ(st.bad, 1);
    CHECK_EQ(route4_load_text(t, junk, 0, 5, &st, NULL, NULL), ROUTE_OK);
    CHECK_EQ(st.lines, 0);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

TEST(route4_epochs)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    _Atomic uint64_t shared = 100;
    cfg.epoch = &shared;
    struct route4 *t = route4_create(&cfg);
    CHECK_EQ(route4_epoch(t), 100);
    CHECK_EQ(route4_add(t, 0x0a000000, 24, 1), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0x0a000000, 24, 2), ROUTE_OK); /* retires the old node */
    CHECK_EQ(route4_add(t, 0x0a000000, 24, 3), ROUTE_OK); /* and again */
    uint64_t e = route4_epoch(t);
    CHECK(e > 101);
    struct route_stats st;
    route4_stats(t, &st);
    size_t pending = st.retired_bytes;
    CHECK(pending > 0);
    route4_reclaim(t, e - 1); /* a core still before the last update */
    route4_stats(t, &st);
    CHECK(st.retired_bytes > 0 && st.retired_bytes < pending);
    route4_reclaim(t, e);
    route4_stats(t, &st);
    CHECK_EQ(st.retired_bytes, 0);
    CHECK_EQ(route4_lookup(t, 0x0a000001), 3);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

/* Every allocation that can fail, failing in turn: the call reports
 * ROUTE_ENOMEM and the table answers as before. */
TEST(route4_enomem)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    static struct ref4 r;
    r.n = 0;
    uint64_t s = 9;
    for (unsigned i = 0; i < 300; i++) {
        uint32_t a;
        unsigned l;
        rand_prefix4(&s, &a, &l);
        route4_add(t, a, l, 1 + i % 7);
        ref4_set(&r, a, l, 1 + i % 7);
    }
    unsigned failures = 0;
    for (long k = 0; k < 40; k++) {
        uint32_t a;
        unsigned l;
        rand_prefix4(&s, &a, &l);
        uint32_t nh = (uint32_t)k % 3; /* 0: delete */
        al.fail_after = al.calls + k % 8;
        int rc = nh ? route4_add(t, a, l, nh) : route4_del(t, a, l);
        al.fail_after = -1;
        if (rc == ROUTE_ENOMEM)
            failures++;
        else if (rc == ROUTE_OK)
            ref4_set(&r, a, l, nh);
        CHECK(rc == ROUTE_OK || rc == ROUTE_ENOMEM || (rc == ROUTE_ENOENT && !nh));
        CHECK_EQ(check_against(t, &r, &s, 256), 0);
        route4_reclaim(t, route4_epoch(t));
    }
    CHECK(failures > 0);
    al.fail_after = al.calls; /* a rebuild that cannot start */
    CHECK_EQ(route4_compact(t), ROUTE_ENOMEM);
    al.fail_after = -1;
    CHECK_EQ(check_against(t, &r, &s, 1024), 0);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
    al.fail_after = 0;
    CHECK(route4_create(&cfg) == NULL);
    al.fail_after = 2;
    CHECK(route4_create(&cfg) == NULL);
    CHECK_EQ(al.live_bytes, 0);
}

/* A reader thread looks up while this thread updates and reclaims on the
 * reader's quiescent epoch; ASan catches a reader touching freed memory. */
struct conc4 {
    const struct route4 *t;
    _Atomic uint64_t qs;
    _Atomic int done;
    long bad, rounds;
};

static void *conc4_reader(void *arg)
{
    struct conc4 *c = arg;
    uint32_t a[64], got[64];
    for (unsigned i = 0; i < 64; i++)
        a[i] = 0x0a000000u | i << 8 | i; /* 10.0.i.0/24 toggles 1 <-> 2 */
    while (!atomic_load(&c->done)) {
        route4_lookup_burst(c->t, a, got, 64);
        for (unsigned i = 0; i < 64; i++)
            c->bad += got[i] != 1 && got[i] != 2 && got[i] != 3; /* 3: the /16 */
        c->bad += route4_lookup(c->t, 0x0b000001) != 4;
        c->rounds++;
        atomic_store_explicit(&c->qs, route4_epoch(c->t), memory_order_release);
    }
    atomic_store_explicit(&c->qs, UINT64_MAX, memory_order_release);
    return NULL;
}

TEST(route4_concurrent_readers)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    struct conc4 c = {t, 0, 0, 0, 0};
    route4_add(t, 0x0a000000, 16, 3);
    route4_add(t, 0x0b000000, 8, 4);
    for (unsigned i = 0; i < 64; i++)
        route4_add(t, 0x0a000000u | i << 8, 24, 1);
    pthread_t th;
    pthread_create(&th, NULL, conc4_reader, &c);
    uint64_t s = 3;
    for (unsigned round = 0; round < 400 || c.rounds < 100; round++) {
        for (unsigned i = 0; i < 64; i++) {
            uint32_t r = (uint32_t)test_rand(&s) % 3;
            if (r == 2)
                route4_del(t, 0x0a000000u | i << 8, 24);
            else
                route4_add(t, 0x0a000000u | i << 8, 24, 1 + r);
        }
        for (unsigned i = 0; i < 64; i++) /* grow and shrink elsewhere */
            route4_add(t, 0xf0000000u | (uint32_t)(test_rand(&s) & 0x0ffff0) << 4, 28, 7);
        if (round % 50 == 0)
            route4_compact(t);
        route4_reclaim(t, atomic_load_explicit(&c.qs, memory_order_acquire));
    }
    atomic_store(&c.done, 1);
    pthread_join(th, NULL);
    CHECK_EQ(c.bad, 0);
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

/* route4_defer: changes reach lookups only when deferring ends, all at
 * once, and then exactly as if each had been made alone. */
TEST(route4_defer_then_rebuild)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route4 *t = route4_create(&cfg);
    static struct ref4 r;
    r.n = 0;
    uint64_t s = 11;
    for (unsigned i = 0; i < 500; i++) { /* a table before */
        uint32_t a;
        unsigned l;
        rand_prefix4(&s, &a, &l);
        CHECK_EQ(route4_add(t, a, l, 1 + i % 3), ROUTE_OK);
        ref4_set(&r, a, l, 1 + i % 3);
    }
    CHECK_EQ(route4_defer(t, true), ROUTE_OK);
    CHECK_EQ(route4_add(t, 0xc6120000u, 24, 7), ROUTE_OK); /* 198.18.0.0/24 */
    CHECK_EQ(route4_get(t, 0xc6120000u, 24), 7);            /* the RIB has it */
    CHECK(route4_lookup(t, 0xc6120001u) != 7);              /* lookups not yet */
    ref4_set(&r, 0xc6120000u, 24, 7);
    for (unsigned i = 0; i < 2000; i++) {
        uint32_t a;
        unsigned l;
        rand_prefix4(&s, &a, &l);
        uint32_t nh = (uint32_t)(test_rand(&s) % 4);
        if (nh)
            CHECK_EQ(route4_add(t, a, l, nh), ROUTE_OK);
        else
            (void)route4_del(t, a, l);
        ref4_set(&r, a, l, nh);
    }
    CHECK(route4_deferred(t) > 1000);
    CHECK_EQ(route4_defer(t, false), ROUTE_OK);
    CHECK_EQ(route4_deferred(t), 0);
    CHECK_EQ(route4_lookup(t, 0xc6120001u), 7);
    CHECK_EQ(check_against(t, &r, &s, 8192), 0);
    route4_reclaim(t, route4_epoch(t));
    route4_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}
