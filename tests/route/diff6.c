/* SPDX-License-Identifier: MIT */
/* tests/route/diff6.c: differential tests of the IPv6 route table
 * (net/route/route6.h) against the flattened reference (diff.h) on rib-v6-2024
 * and the LINX IPv6 RIB: random addresses inside table prefixes, uniform
 * ones, every prefix's edges; bulk-built, built one by one, and after
 * deleting half. Called from diff.c. */
#include "net/route/route6.h"
#include "diff.h"

void diff6_run(const char *dir);

static void to_bytes(u128 k, uint8_t a[16])
{
    for (int i = 15; i >= 0; i--, k >>= 8)
        a[i] = (uint8_t)k;
}

static u128 from_bytes(const uint8_t a[16])
{
    u128 k = 0;
    for (int i = 0; i < 16; i++)
        k = k << 8 | a[i];
    return k;
}

/* First field of each line (the rest, a LINX next hop, is ignored). */
static struct dprefix *v6_read(const char *path, size_t *n)
{
    size_t len;
    char *text = diff_read_gz(path, &len);
    if (text == NULL)
        return NULL;
    struct dprefix *p = malloc((len / 8 + 1) * sizeof(*p));
    uint64_t s = 31;
    *n = 0;
    for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n")) {
        uint8_t a[16];
        unsigned plen;
        size_t tok = strcspn(l, " \t");
        if (route6_parse(l, tok, a, &plen))
            p[(*n)++] = (struct dprefix){from_bytes(a), plen, 1 + (uint32_t)(diff_rand(&s) % 65535)};
    }
    free(text);
    /* Drop repeats (the LINX RIB lists some prefixes twice). */
    struct dref tmp = {0};
    diff_flatten(p, *n, 128, &tmp);
    free(tmp.r);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (m == 0 || p[m - 1].key != p[i].key || p[m - 1].len != p[i].len)
            p[m++] = p[i];
    *n = m;
    return p;
}

static struct route6 *v6_build(const struct dprefix *p, size_t n, int one_by_one)
{
    struct route_cfg cfg = diff_cfg();
    struct route6 *t = route6_create(&cfg);
    struct route6_prefix *q = malloc(n * sizeof(*q));
    for (size_t i = 0; i < n; i++) {
        to_bytes(p[i].key, q[i].addr);
        q[i].len = p[i].len;
        q[i].nh = p[i].nh;
        if (one_by_one && route6_add(t, q[i].addr, q[i].len, q[i].nh) != ROUTE_OK)
            printf("  route6_add failed at %zu\n", i);
    }
    if (!one_by_one && route6_add_bulk(t, q, n, NULL) != ROUTE_OK)
        printf("  route6_add_bulk failed\n");
    route6_reclaim(t, route6_epoch(t));
    free(q);
    return t;
}

static long check_keys(const struct route6 *t, const struct dref *ref, const u128 *k, size_t n)
{
    uint8_t a[32][16];
    uint32_t got[32];
    long bad = 0;
    for (size_t i = 0; i < n; i += 32) {
        size_t b = n - i < 32 ? n - i : 32;
        for (size_t j = 0; j < b; j++)
            to_bytes(k[i + j], a[j]);
        route6_lookup_burst(t, (const uint8_t(*)[16])a, got, b);
        for (size_t j = 0; j < b; j++) {
            bad += got[j] != diff_find(ref, k[i + j])->nh;
            bad += route6_lookup(t, a[j]) != got[j];
        }
    }
    return bad;
}

/* n random keys: a third each inside prefixes, in 2000::/3, anywhere. */
static long random_check6(const struct route6 *t, const struct dref *ref, const struct dprefix *p,
                          size_t np, size_t n, uint64_t seed)
{
    size_t chunk = 1 << 16;
    u128 *k = malloc(chunk * sizeof(*k));
    long bad = 0;
    for (size_t done = 0; done < n; done += chunk) {
        for (size_t i = 0; i < chunk; i++) {
            u128 x = (u128)diff_rand(&seed) << 64 | diff_rand(&seed);
            if (i % 3 == 0) {
                const struct dprefix *q = &p[diff_rand(&seed) % np];
                x = q->key | (q->len == 128 ? 0 : q->len == 0 ? x : x >> q->len);
            } else if (i % 3 == 1) {
                x = (x >> 3) | ((u128)1 << 125);
            }
            k[i] = x;
        }
        bad += check_keys(t, ref, k, chunk);
    }
    free(k);
    return bad;
}

/* The first and last key of every prefix and their neighbours. */
static long edge_check6(const struct route6 *t, const struct dref *ref, const struct dprefix *p,
                        size_t np)
{
    u128 *k = malloc(4 * np * sizeof(*k));
    for (size_t i = 0; i < np; i++) {
        u128 last = diff_last(&p[i], 128);
        k[4 * i] = p[i].key;
        k[4 * i + 1] = last;
        k[4 * i + 2] = p[i].key - 1;
        k[4 * i + 3] = last + 1;
    }
    long bad = check_keys(t, ref, k, 4 * np);
    free(k);
    return bad;
}

static void table6(const char *dir, const char *file, const char *name, int deep)
{
    char path[4096], title[256];
    size_t n;
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    struct dprefix *p = v6_read(path, &n);
    if (p == NULL) {
        printf("skip %s: cannot read %s\n", name, path);
        return;
    }
    struct dref ref = {0};
    diff_flatten(p, n, 128, &ref);
    struct route6 *t = v6_build(p, n, 0);
    snprintf(title, sizeof(title), "%s (%zu prefixes), 10M random addresses and all edges", name, n);
    diff_result(title, random_check6(t, &ref, p, n, 10000000, 3) + edge_check6(t, &ref, p, n));
    route6_destroy(t);
    if (deep && route_host_avx512() && route_host_avx2()) { /* as diff.c's test_full_table */
        diff_avx2_only = true;
        t = v6_build(p, n, 0);
        snprintf(title, sizeof(title), "%s, AVX2 bursts, 10M random addresses and all edges", name);
        diff_result(title, random_check6(t, &ref, p, n, 10000000, 3) + edge_check6(t, &ref, p, n));
        route6_destroy(t);
        diff_avx2_only = false;
    }
    if (!deep) {
        free(ref.r);
        free(p);
        return;
    }
    t = v6_build(p, n, 1);
    snprintf(title, sizeof(title), "%s added one by one, 2M random and all edges", name);
    diff_result(title, random_check6(t, &ref, p, n, 2000000, 4) + edge_check6(t, &ref, p, n));
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t a[16];
        to_bytes(p[i].key, a);
        if (i % 2 && route6_del(t, a, p[i].len) != ROUTE_OK)
            printf("  route6_del failed\n");
        else if (i % 2 == 0)
            p[m++] = p[i];
    }
    route6_reclaim(t, route6_epoch(t));
    diff_flatten(p, m, 128, &ref);
    snprintf(title, sizeof(title), "%s less every other prefix, 2M random and all edges", name);
    diff_result(title, random_check6(t, &ref, p, m, 2000000, 5) + edge_check6(t, &ref, p, m));
    route6_destroy(t);
    free(ref.r);
    free(p);
}

void diff6_run(const char *dir)
{
    table6(dir, "rib-v6-2024.txt.gz", "v6 full table", 1);
    table6(dir, "linx-rib-v6-20141225.txt.gz", "v6 LINX RIB", 0);
}
