/* SPDX-License-Identifier: MIT */
/* tests/route/diff.c: differential tests of the IPv4 route table
 * (net/route/route4.h) on the real tables, built optimised without sanitizers
 * (tests/route/run): every one of the 2^32 addresses against a flattened
 * reference (diff.h) for 10,000 sampled and for all 901,899 prefixes, the
 * table built prefix by prefix, the LINX update trace replayed with checks
 * after every batch, and lookups on another thread during updates. The
 * IPv6 tests are in diff6.c. Prints "N passed, N failed".
 *
 *   route-diff DATA_DIR */
#include <pthread.h>

#include "net/route/route4.h"
#include "diff.h"

void diff6_run(const char *dir);

#define SCAN_THREADS 2

static struct dprefix *v4_read(const char *dir, size_t *n)
{
    char path[4096];
    size_t len;
    snprintf(path, sizeof(path), "%s/rib-v4-2024.txt.gz", dir);
    char *text = diff_read_gz(path, &len);
    if (text == NULL)
        return NULL;
    struct dprefix *p = malloc((len / 8 + 1) * sizeof(*p));
    uint64_t s = 99;
    *n = 0;
    for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n")) {
        uint32_t a;
        unsigned plen;
        if (route4_parse(l, strlen(l), &a, &plen))
            p[(*n)++] = (struct dprefix){(u128)a << 96, plen, 1 + (uint32_t)(diff_rand(&s) % 65535)};
    }
    free(text);
    return p;
}

static struct route4 *v4_build(const struct dprefix *p, size_t n, int one_by_one)
{
    struct route_cfg cfg = diff_cfg();
    struct route4 *t = route4_create(&cfg);
    struct route4_prefix *q = malloc(n * sizeof(*q));
    for (size_t i = 0; i < n; i++)
        q[i] = (struct route4_prefix){(uint32_t)(p[i].key >> 96), p[i].len, p[i].nh};
    if (one_by_one) {
        for (size_t i = 0; i < n; i++)
            if (route4_add(t, q[i].addr, q[i].len, q[i].nh) != ROUTE_OK)
                printf("  route4_add failed at %zu\n", i);
    } else if (route4_add_bulk(t, q, n, NULL) != ROUTE_OK) {
        printf("  route4_add_bulk failed\n");
    }
    route4_reclaim(t, route4_epoch(t));
    free(q);
    return t;
}

struct scan {
    const struct route4 *t;
    const struct dref *ref;
    size_t first, end; /* ranges */
    long bad;
    uint64_t seen;
};

/* Every address of ranges [first, end), in bursts of 64. */
static void *scan_ranges(void *arg)
{
    struct scan *sc = arg;
    uint32_t a[64], got[64];
    for (size_t i = sc->first; i < sc->end; i++) {
        const struct drange *r = &sc->ref->r[i];
        uint64_t lo = (uint64_t)(r->lo >> 96), hi = (uint64_t)(r->hi >> 96);
        for (uint64_t x = lo; x <= hi; x += 64) {
            unsigned n = hi - x + 1 < 64 ? (unsigned)(hi - x + 1) : 64;
            for (unsigned j = 0; j < n; j++)
                a[j] = (uint32_t)(x + j);
            route4_lookup_burst(sc->t, a, got, n);
            for (unsigned j = 0; j < n; j++)
                sc->bad += got[j] != r->nh;
            sc->seen += n;
        }
    }
    return NULL;
}

static long scan_all(const struct route4 *t, const struct dref *ref)
{
    struct scan sc[SCAN_THREADS];
    pthread_t th[SCAN_THREADS];
    size_t split = 0;
    while (split < ref->n && ref->r[split].lo < ((u128)1 << 127))
        split++;
    for (int i = 0; i < SCAN_THREADS; i++) {
        sc[i] = (struct scan){t, ref, i ? split : 0, i ? ref->n : split, 0, 0};
        pthread_create(&th[i], NULL, scan_ranges, &sc[i]);
    }
    long bad = 0;
    uint64_t seen = 0;
    for (int i = 0; i < SCAN_THREADS; i++) {
        pthread_join(th[i], NULL);
        bad += sc[i].bad;
        seen += sc[i].seen;
    }
    if (seen != 1ull << 32)
        printf("  scanned %llu addresses, not 2^32\n", (unsigned long long)seen);
    return bad + (seen != 1ull << 32);
}

/* n random addresses: uniform, or inside random prefixes of p. */
static long random_check(const struct route4 *t, const struct dref *ref, const struct dprefix *p,
                         size_t np, size_t n, uint64_t seed)
{
    uint32_t a[32], got[32];
    long bad = 0;
    for (size_t i = 0; i < n; i += 32) {
        for (unsigned j = 0; j < 32; j++) {
            uint32_t x = (uint32_t)diff_rand(&seed);
            if (j & 1) {
                const struct dprefix *q = &p[diff_rand(&seed) % np];
                x = (uint32_t)(q->key >> 96) | (q->len == 32 ? 0 : x >> q->len);
            }
            a[j] = x;
        }
        route4_lookup_burst(t, a, got, 32);
        for (unsigned j = 0; j < 32; j++)
            bad += got[j] != diff_find(ref, (u128)a[j] << 96)->nh;
    }
    return bad;
}

static void test_sampled_all_addresses(const struct dprefix *all, size_t n)
{
    size_t ns = 10000;
    struct dprefix *p = malloc(ns * sizeof(*p));
    uint64_t s = 5;
    for (size_t i = 0; i < ns; i++)
        p[i] = all[(i * (n / ns)) + diff_rand(&s) % (n / ns)];
    p[0] = (struct dprefix){0, 0, 4242}; /* and a default route */
    struct dref ref = {0};
    diff_flatten(p, ns, 32, &ref);
    struct route4 *t = v4_build(p, ns, 0);
    diff_result("v4 10,000 sampled prefixes, all 2^32 addresses", scan_all(t, &ref));
    route4_destroy(t);
    t = v4_build(p, ns, 1);
    diff_result("v4 10,000 sampled prefixes added one by one, all 2^32", scan_all(t, &ref));
    route4_destroy(t);
    free(ref.r);
    free(p);
}

static void test_full_table(struct dprefix *p, size_t n)
{
    struct dref ref = {0};
    diff_flatten(p, n, 32, &ref);
    struct route4 *t = v4_build(p, n, 0);
    struct route_stats st;
    route4_stats(t, &st);
    printf("     v4 full table: %u prefixes, %zu ranges, %.2f MiB\n", st.prefixes, ref.n,
           st.fib_bytes / 1048576.0);
    diff_result("v4 full table, 10M random addresses", random_check(t, &ref, p, n, 10000000, 1));
    diff_result("v4 full table, all 2^32 addresses", scan_all(t, &ref));
    route4_destroy(t);
    if (route_host_avx512() && route_host_avx2()) { /* else the runs above took it, or none has it */
        diff_avx2_only = true;
        t = v4_build(p, n, 0);
        diff_result("v4 full table, AVX2 bursts, 10M random and all 2^32",
                    random_check(t, &ref, p, n, 10000000, 1) + scan_all(t, &ref));
        route4_destroy(t);
        diff_avx2_only = false;
    }
    t = v4_build(p, n, 1);
    diff_result("v4 full table added one by one, 10M random",
                random_check(t, &ref, p, n, 10000000, 2));
    /* Delete every other prefix, then check against the rest. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 2 && route4_del(t, (uint32_t)(p[i].key >> 96), p[i].len) != ROUTE_OK)
            printf("  route4_del failed\n");
        else if (i % 2 == 0)
            p[m++] = p[i];
    }
    route4_reclaim(t, route4_epoch(t));
    diff_flatten(p, m, 32, &ref);
    diff_result("v4 full table less every other prefix, all 2^32", scan_all(t, &ref));
    route4_destroy(t);
    free(ref.r);
}

void diff4_churn(const char *dir, const struct dprefix *p, size_t n);
void diff4_concurrent(const struct dprefix *p, size_t n);

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: route-diff DATA_DIR\n");
        return 2;
    }
    size_t n;
    struct dprefix *p = v4_read(argv[1], &n);
    if (p == NULL) {
        printf("route-diff: cannot read %s/rib-v4-2024.txt.gz\n", argv[1]);
        return 1;
    }
    test_sampled_all_addresses(p, n);
    diff4_churn(argv[1], p, n);
    diff4_concurrent(p, n);
    test_full_table(p, n);
    diff6_run(argv[1]);
    printf("%d passed, %d failed\n", diff_passed, diff_failed);
    return diff_failed ? 1 : 0;
}
