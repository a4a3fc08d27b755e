/* SPDX-License-Identifier: MIT */
/* tests/unit/route/route6.c: the IPv6 route table (net/route/route6.h) against a
 * linear scan on small random tables, and its text parser. */
#include <pthread.h>
#include <stdlib.h>

#include "net/route/route6.h"
#include "tests/unit/check.h"
#include "tests/support/route_alloc.h"

#define REF6_MAX 3000

struct ref6 {
    struct route6_prefix p[REF6_MAX];
    unsigned n;
};

static void mask6(uint8_t a[16], unsigned len)
{
    for (unsigned i = 0; i < 16; i++) {
        unsigned keep = len >= 8 * (i + 1) ? 8 : len > 8 * i ? len - 8 * i : 0;
        a[i] &= (uint8_t)(0xff00u >> keep);
    }
}

static int in6(const uint8_t a[16], const struct route6_prefix *p)
{
    uint8_t m[16];
    memcpy(m, a, 16);
    mask6(m, p->len);
    return memcmp(m, p->addr, 16) == 0;
}

static uint32_t ref6_lookup(const struct ref6 *r, const uint8_t a[16])
{
    int best = -1;
    uint32_t nh = 0;
    for (unsigned i = 0; i < r->n; i++)
        if ((int)r->p[i].len > best && in6(a, &r->p[i])) {
            best = (int)r->p[i].len;
            nh = r->p[i].nh;
        }
    return nh;
}

static void ref6_set(struct ref6 *r, const uint8_t a[16], unsigned len, uint32_t nh)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->p[i].len == len && memcmp(r->p[i].addr, a, 16) == 0) {
            if (nh)
                r->p[i].nh = nh;
            else
                r->p[i] = r->p[--r->n];
            return;
        }
    if (nh && r->n < REF6_MAX) {
        memcpy(r->p[r->n].addr, a, 16);
        r->p[r->n].len = len;
        r->p[r->n++].nh = nh;
    }
}

/* Prefixes under 2001:db8::/32 and 2a00::/12 with real-world lengths. */
static void rand_prefix6(uint64_t *s, uint8_t a[16], unsigned *len)
{
    static const unsigned lens[] = {0, 3, 16, 19, 24, 29, 32, 36, 40, 44, 47, 48, 48, 56, 63, 64, 65, 96, 127, 128};
    uint64_t x = test_rand(s), y = test_rand(s);
    *len = lens[x % (sizeof(lens) / sizeof(lens[0]))];
    for (unsigned i = 0; i < 8; i++) {
        a[i] = (uint8_t)(y >> (8 * i));
        a[8 + i] = (uint8_t)(x >> (8 * i));
    }
    if ((x >> 40) & 1) {
        a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8;
        a[4] &= 0x0f;
    } else {
        a[0] = 0x2a, a[1] &= 0x0f;
    }
    if ((x >> 41) & 1)
        memset(a + 8, 0, 7);
    mask6(a, *len);
}

static void rand_addr6(uint64_t *s, const struct ref6 *r, uint8_t a[16])
{
    uint64_t x = test_rand(s), y = test_rand(s);
    for (unsigned i = 0; i < 8; i++) {
        a[i] = (uint8_t)(x >> (8 * i));
        a[8 + i] = (uint8_t)(y >> (8 * i));
    }
    if (r->n && (x & 3)) { /* most inside a prefix of the table */
        const struct route6_prefix *p = &r->p[y % r->n];
        for (unsigned i = 0; i < 16; i++) {
            unsigned keep = p->len >= 8 * (i + 1) ? 8 : p->len > 8 * i ? p->len - 8 * i : 0;
            uint8_t m = (uint8_t)(0xff00u >> keep);
            a[i] = (uint8_t)((p->addr[i] & m) | (a[i] & ~m));
        }
    }
}

static int check6(const struct route6 *t, const struct ref6 *r, uint64_t *s, unsigned nrand)
{
    int bad = 0;
    uint8_t a[32][16];
    for (unsigned i = 0; i < r->n; i++)
        bad += route6_lookup(t, r->p[i].addr) != ref6_lookup(r, r->p[i].addr);
    for (unsigned i = 0; i < nrand; i += 32) {
        for (unsigned j = 0; j < 32; j++)
            rand_addr6(s, r, a[j]);
        unsigned m = 32 - (i / 32) % 17; /* 16..32: partial vectors too */
        const uint8_t(*in)[16] = test_guarded(a, m * 16, 0);
        uint32_t *out = test_guarded(NULL, m * 4, 1);
        route6_lookup_burst(t, in, out, m);
        for (unsigned j = 0; j < m; j++)
            bad += out[j] != ref6_lookup(r, a[j]);
    }
    return bad;
}

TEST(route6_parse)
{
    uint8_t a[16];
    unsigned l;
    static const uint8_t want[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(route6_parse("2001:db8::/32", 13, a, &l) && l == 32 && !memcmp(a, want, 16));
    CHECK(route6_parse("2001:DB8:0:0:0:0:0:0/32", 23, a, &l) && !memcmp(a, want, 16));
    CHECK(route6_parse("::/0", 4, a, &l) && l == 0 && a[0] == 0 && a[15] == 0);
    CHECK(route6_parse_addr("::1", 3, a) && a[15] == 1 && a[14] == 0 && a[0] == 0);
    CHECK(route6_parse_addr("::ffff:10.1.2.3", 15, a) && a[10] == 0xff && a[12] == 10 &&
          a[15] == 3);
    CHECK(route6_parse_addr("1:2:3:4:5:6:7:8", 15, a) && a[1] == 1 && a[15] == 8);
    CHECK(route6_parse_addr("1::8", 4, a) && a[1] == 1 && a[15] == 8 && a[2] == 0);
    CHECK(route6_parse("2001:db8::1/128", 15, a, &l) && l == 128 && a[15] == 1);
    const char *bad[] = {"2001:db8::1/64", "2001:db8::/129", "2001:db8:::/32", "2001::db8::/32",
                         "2001:db8/32", ":2001:db8::/32", "2001:db8:/32", "12345::/16",
                         "1:2:3:4:5:6:7:8:9/128", "1:2:3:4:5:6:7::8/128", "g::/16", "::/",
                         "::/01", "::1.2.3/128", "1:2:3:4:5:6:7:1.2.3.4/128", "::", ""};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(!route6_parse(bad[i], strlen(bad[i]), a, &l));
}

TEST(route6_random_churn)
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
        struct route6 *t = route6_create(&cfg);
        static struct ref6 r;
        r.n = 0;
        uint64_t s = 7 + (uint64_t)popcnt;
        for (unsigned round = 0; round < 5; round++) {
            for (unsigned i = 0; i < 300; i++) {
                uint8_t a[16];
                unsigned l;
                rand_prefix6(&s, a, &l);
                uint32_t nh = (uint32_t)(test_rand(&s) % 4);
                int want = route6_get(t, a, l) ? ROUTE_OK : ROUTE_ENOENT;
                if (nh)
                    CHECK_EQ(route6_add(t, a, l, nh), ROUTE_OK);
                else
                    CHECK_EQ(route6_del(t, a, l), want);
                ref6_set(&r, a, l, nh);
                if (i % 50 == 0)
                    route6_reclaim(t, route6_epoch(t));
            }
            CHECK_EQ(check6(t, &r, &s, 2048), 0);
            if (round == 2) {
                CHECK_EQ(route6_compact(t), ROUTE_OK);
                CHECK_EQ(check6(t, &r, &s, 2048), 0);
            }
        }
        route6_destroy(t);
        CHECK_EQ(al.live_bytes, 0);
    }
}

TEST(route6_load_text)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route6 *t = route6_create(&cfg);
    static const char text[] = "2001:db8::/32\r\n"
                               "# comment\n"
                               "2001:db8:1::/48 # more specific\n"
                               "2001:db8::1/32\n" /* host bits */
                               "2001:db8::/32/\n"
                               "zz::/16\n"
                               "::/0\n";
    struct route_load_stats st;
    CHECK_EQ(route6_load_text(t, text, sizeof(text) - 1, 9, &st, NULL, NULL), ROUTE_OK);
    CHECK_EQ(st.lines, 7);
    CHECK_EQ(st.added, 3);
    CHECK_EQ(st.bad, 3);
    CHECK_EQ(st.first_bad_line, 4);
    uint8_t a[16];
    unsigned l;
    CHECK(route6_parse_addr("2001:db8:1::5", 13, a));
    CHECK_EQ(route6_lookup(t, a), 9);
    CHECK_EQ(route6_match(t, a, &l), 9);
    CHECK_EQ(l, 48);
    CHECK(route6_parse_addr("2001:db8:2::5", 13, a));
    CHECK_EQ(route6_match(t, a, &l), 9);
    CHECK_EQ(l, 32);
    CHECK(route6_parse_addr("2001:db8::", 10, a));
    CHECK_EQ(route6_get(t, a, 32), 9);
    CHECK_EQ(route6_del(t, a, 32), ROUTE_OK);
    CHECK_EQ(route6_get(t, a, 32), 0);
    CHECK_EQ(route6_match(t, a, &l), 9);
    CHECK_EQ(l, 0);
    struct route_stats rs;
    route6_stats(t, &rs);
    CHECK_EQ(rs.prefixes, 2);
    route6_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

/* Allocations failing in turn through updates that create and drop direct
 * blocks and rebuild (prefixes shorter than /12): the table answers as
 * before each failed call. */
TEST(route6_enomem)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route6 *t = route6_create(&cfg);
    static struct ref6 r;
    r.n = 0;
    uint64_t s = 77;
    unsigned failures = 0;
    for (long k = 0; k < 120; k++) {
        uint8_t a[16];
        unsigned l;
        rand_prefix6(&s, a, &l);
        uint32_t nh = (uint32_t)(test_rand(&s) % 3);
        if (k % 2)
            al.fail_after = al.calls + (k / 2) % 6;
        int rc = nh ? route6_add(t, a, l, nh) : route6_del(t, a, l);
        al.fail_after = -1;
        failures += rc == ROUTE_ENOMEM;
        if (rc == ROUTE_OK)
            ref6_set(&r, a, l, nh);
        CHECK(rc == ROUTE_OK || rc == ROUTE_ENOMEM || (rc == ROUTE_ENOENT && !nh));
        if (k % 8 == 0)
            CHECK_EQ(check6(t, &r, &s, 128), 0);
        route6_reclaim(t, route6_epoch(t));
    }
    CHECK(failures > 0);
    CHECK_EQ(check6(t, &r, &s, 1024), 0);
    route6_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}

struct conc6 {
    const struct route6 *t;
    _Atomic uint64_t qs;
    _Atomic int done;
    long bad, rounds;
};

/* 2001:db8:i::/48 toggles 1 <-> 2 or goes (leaving 2001:db8::/32, 3);
 * 2400::/12 (one L1 entry) and 2400::/16 (a block, dropped again by each
 * compaction) come and go under 2400:1::. */
static void addr6(uint8_t a[16], unsigned i)
{
    memset(a, 0, 16);
    a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8, a[5] = (uint8_t)i;
}

static void *conc6_reader(void *arg)
{
    struct conc6 *c = arg;
    uint8_t a[33][16];
    uint32_t got[33];
    for (unsigned i = 0; i < 32; i++)
        addr6(a[i], i);
    memset(a[32], 0, 16);
    a[32][0] = 0x24, a[32][3] = 0x01;
    while (!atomic_load(&c->done)) {
        route6_lookup_burst(c->t, (const uint8_t(*)[16])a, got, 33);
        for (unsigned i = 0; i < 32; i++)
            c->bad += got[i] < 1 || got[i] > 3;
        c->bad += got[32] != 0 && got[32] != 5 && got[32] != 6;
        c->rounds++;
        atomic_store_explicit(&c->qs, route6_epoch(c->t), memory_order_release);
    }
    atomic_store_explicit(&c->qs, UINT64_MAX, memory_order_release);
    return NULL;
}

TEST(route6_concurrent_readers)
{
    struct test_alloc al;
    struct route_cfg cfg = test_route_cfg(&al);
    struct route6 *t = route6_create(&cfg);
    struct conc6 c = {t, 0, 0, 0, 0};
    uint8_t a[16], b[16] = {0x24, 0};
    addr6(a, 0);
    route6_add(t, a, 32, 3);
    for (unsigned i = 0; i < 32; i++) {
        addr6(a, i);
        route6_add(t, a, 48, 1);
    }
    pthread_t th;
    pthread_create(&th, NULL, conc6_reader, &c);
    uint64_t s = 5;
    for (unsigned round = 0; round < 300 || c.rounds < 100; round++) {
        for (unsigned i = 0; i < 32; i++) {
            uint32_t r = (uint32_t)test_rand(&s) % 3;
            addr6(a, i);
            if (r == 2)
                route6_del(t, a, 48);
            else
                route6_add(t, a, 48, 1 + r);
        }
        if (round % 2)
            route6_add(t, b, 12, 5);
        else
            route6_del(t, b, 12);
        if (round % 3)
            route6_add(t, b, 16, 6);
        else
            route6_del(t, b, 16);
        if (round % 64 == 0)
            route6_compact(t);
        route6_reclaim(t, atomic_load_explicit(&c.qs, memory_order_acquire));
    }
    atomic_store(&c.done, 1);
    pthread_join(th, NULL);
    CHECK_EQ(c.bad, 0);
    route6_destroy(t);
    CHECK_EQ(al.live_bytes, 0);
}
