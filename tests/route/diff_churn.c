/* SPDX-License-Identifier: MIT */
/* tests/route/diff_churn.c: the IPv4 table under change (diff.c): the LINX
 * update trace replayed onto the full table, checked after every batch
 * against a reference that probes a hash set per prefix length; and a
 * reader thread looking up while the writer updates and reclaims. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "net/route/route4.h"
#include "diff.h"

void diff4_churn(const char *dir, const struct dprefix *p, size_t n);
void diff4_concurrent(const struct dprefix *p, size_t n);

#define HBITS 22
#define HEMPTY UINT64_MAX
#define HTOMB (UINT64_MAX - 1)

/* The reference: open addressing on (addr << 8 | len). */
struct href {
    uint64_t key[1u << HBITS];
    uint32_t nh[1u << HBITS];
};

static size_t hslot(const struct href *h, uint64_t key, int for_insert)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - HBITS)), tomb = SIZE_MAX;
    for (;; i = (i + 1) & ((1u << HBITS) - 1)) {
        if (h->key[i] == key)
            return i;
        if (h->key[i] == HTOMB && tomb == SIZE_MAX)
            tomb = i;
        if (h->key[i] == HEMPTY)
            return for_insert && tomb != SIZE_MAX ? tomb : i;
    }
}

static void href_set(struct href *h, uint32_t a, unsigned len, uint32_t nh)
{
    uint64_t key = (uint64_t)a << 8 | len;
    size_t i = hslot(h, key, nh != 0);
    if (nh) {
        h->key[i] = key;
        h->nh[i] = nh;
    } else if (h->key[i] == key) {
        h->key[i] = HTOMB;
    }
}

static uint32_t href_lookup(const struct href *h, uint32_t a)
{
    for (int len = 32; len >= 0; len--) {
        uint32_t m = len ? ~0u << (32 - len) : 0;
        uint64_t key = (uint64_t)(a & m) << 8 | (unsigned)len;
        size_t i = hslot(h, key, 0);
        if (h->key[i] == key)
            return h->nh[i];
    }
    return 0;
}

static long check_prefix(const struct route4 *t, const struct href *h, uint32_t a, unsigned len,
                         uint64_t *s)
{
    uint32_t last = a | (len ? ~(~0u << (32 - len)) : ~0u);
    uint32_t probe[6] = {a, last, a - 1, last + 1, a | ((uint32_t)diff_rand(s) & (last - a)),
                         (uint32_t)diff_rand(s)};
    long bad = 0;
    for (unsigned i = 0; i < 6; i++)
        bad += route4_lookup(t, probe[i]) != href_lookup(h, probe[i]);
    return bad;
}

/* Trace lines "time a|w prefix next-hop"; next hops numbered as met. */
void diff4_churn(const char *dir, const struct dprefix *p, size_t n)
{
    char path[4096], hops[1024][40];
    size_t len, nhops = 0, nupd = 0, nbatch = 0;
    snprintf(path, sizeof(path), "%s/linx-update-v4-20141217.txt.gz", dir);
    char *text = diff_read_gz(path, &len);
    if (text == NULL) {
        printf("skip v4 LINX replay: cannot read %s\n", path);
        return;
    }
    struct href *h = malloc(sizeof(*h));
    memset(h->key, 0xff, sizeof(h->key));
    struct route_cfg cfg = diff_cfg();
    struct route4 *t = route4_create(&cfg);
    struct route4_prefix *q = malloc(n * sizeof(*q));
    for (size_t i = 0; i < n; i++) {
        q[i] = (struct route4_prefix){(uint32_t)(p[i].key >> 96), p[i].len, p[i].nh};
        href_set(h, q[i].addr, q[i].len, q[i].nh);
    }
    route4_add_bulk(t, q, n, NULL);
    long bad = 0, errs = 0;
    uint64_t s = 17;
    char prev_time[32] = "";
    size_t batch_start = 0;
    struct { uint32_t a; unsigned len; } touched[4096];
    for (char *l = strtok(text, "\r\n"); l; l = strtok(NULL, "\r\n")) {
        char tm[32], op[4], pfx[64], hop[40];
        uint32_t a;
        unsigned plen;
        size_t k;
        if (sscanf(l, "%31s %3s %63s %39s", tm, op, pfx, hop) != 4 ||
            !route4_parse(pfx, strlen(pfx), &a, &plen))
            continue;
        if (strcmp(tm, prev_time)) { /* a new batch: check the last one */
            for (size_t i = 0; i < batch_start; i++)
                bad += check_prefix(t, h, touched[i].a, touched[i].len, &s);
            route4_reclaim(t, route4_epoch(t));
            batch_start = 0;
            nbatch++;
            strcpy(prev_time, tm);
        }
        for (k = 0; k < nhops && strcmp(hops[k], hop); k++)
            ;
        if (k == nhops && nhops < 1024)
            strcpy(hops[nhops++], hop);
        uint32_t nh = op[0] == 'w' ? 0 : 1 + (uint32_t)k;
        int rc = nh ? route4_add(t, a, plen, nh) : route4_del(t, a, plen);
        errs += rc != ROUTE_OK && rc != ROUTE_ENOENT;
        href_set(h, a, plen, nh);
        if (batch_start < 4096)
            touched[batch_start++] = (typeof(touched[0])){a, plen};
        nupd++;
    }
    for (size_t i = 0; i < batch_start; i++)
        bad += check_prefix(t, h, touched[i].a, touched[i].len, &s);
    printf("     LINX: %zu updates in %zu batches\n", nupd, nbatch);
    diff_result("v4 LINX replay on the full table, checked after every batch", bad + errs);
    /* All 2^32 at the end, as ranges sampled from the reference. */
    bad = 0;
    for (uint64_t x = 0; x < (1ull << 32); x += 1 + diff_rand(&s) % 512)
        bad += route4_lookup(t, (uint32_t)x) != href_lookup(h, (uint32_t)x);
    diff_result("v4 LINX replay, then 16M addresses across the space", bad);
    route4_destroy(t);
    free(q);
    free(h);
    free(text);
}

/* The concurrency test: the writer flips, deletes and re-adds toggled /24s
 * and adds and deletes prefixes under 240.0.0.0/4 (to grow the pools and
 * swap the root), reclaiming on the reader's quiescent epoch; the reader
 * checks that a toggled prefix answers one of its values and that other
 * addresses never change. */
#define NTOG 256
#define NSTABLE 256

struct conc {
    const struct route4 *t;
    uint32_t tog[NTOG], allowed[NTOG][3];
    uint32_t stable[NSTABLE], stable_nh[NSTABLE];
    _Atomic uint64_t qs;
    _Atomic int done;
    long bad, lookups;
};

static void *conc_reader(void *arg)
{
    struct conc *c = arg;
    uint32_t got[NTOG], sgot[NSTABLE];
    while (!atomic_load(&c->done)) {
        route4_lookup_burst(c->t, c->tog, got, NTOG);
        route4_lookup_burst(c->t, c->stable, sgot, NSTABLE);
        for (unsigned i = 0; i < NTOG; i++)
            c->bad += got[i] != c->allowed[i][0] && got[i] != c->allowed[i][1] &&
                      got[i] != c->allowed[i][2];
        for (unsigned i = 0; i < NSTABLE; i++)
            c->bad += sgot[i] != c->stable_nh[i];
        c->lookups += NTOG + NSTABLE;
        atomic_store_explicit(&c->qs, route4_epoch(c->t), memory_order_release);
    }
    atomic_store_explicit(&c->qs, UINT64_MAX, memory_order_release);
    return NULL;
}

void diff4_concurrent(const struct dprefix *p, size_t n)
{
    struct route_cfg cfg = diff_cfg();
    struct route4 *t = route4_create(&cfg);
    struct route4_prefix *q = malloc(n * sizeof(*q));
    struct conc *c = calloc(1, sizeof(*c));
    uint32_t tog_len[NTOG];
    for (size_t i = 0; i < n; i++)
        q[i] = (struct route4_prefix){(uint32_t)(p[i].key >> 96), p[i].len, p[i].nh};
    route4_add_bulk(t, q, n, NULL);
    uint64_t s = 23;
    c->t = t;
    for (unsigned i = 0; i < NTOG;) { /* /24s with nothing more specific */
        const struct route4_prefix *r = &q[diff_rand(&s) % n];
        unsigned l;
        if (r->len != 24 || route4_match(t, r->addr | 255, &l) != r->nh || l != 24)
            continue;
        c->tog[i] = r->addr | (uint32_t)(diff_rand(&s) & 255);
        route4_del(t, r->addr, 24);
        c->allowed[i][2] = route4_lookup(t, r->addr);
        route4_add(t, r->addr, 24, r->nh);
        c->allowed[i][0] = r->nh;
        c->allowed[i][1] = 1 + (r->nh % 65535);
        tog_len[i++] = 24;
    }
    for (unsigned i = 0; i < NSTABLE; i++) {
        uint32_t a = (uint32_t)diff_rand(&s) & 0xefffffff; /* not in 240/4 */
        c->stable[i] = a;
        c->stable_nh[i] = route4_lookup(t, a);
        for (unsigned j = 0; j < NTOG; j++)
            if ((a >> 8) == (c->tog[j] >> 8))
                c->stable_nh[i] = c->allowed[j][0], c->stable[i] = c->tog[j];
    }
    pthread_t th;
    pthread_create(&th, NULL, conc_reader, c);
    long updates = 0, errs = 0;
    double end = (double)time(NULL) + 3;
    for (unsigned round = 0; (double)time(NULL) < end; round++) {
        for (unsigned i = 0; i < NTOG; i++) {
            uint32_t a = c->tog[i] & ~255u, r = (uint32_t)diff_rand(&s) % 4;
            int rc = r == 3 ? route4_del(t, a, tog_len[i])
                            : route4_add(t, a, tog_len[i], c->allowed[i][r & 1]);
            errs += rc != ROUTE_OK && rc != ROUTE_ENOENT;
            updates++;
        }
        for (unsigned i = 0; i < 2000; i++, updates++) {
            uint32_t a = 0xf0000000u | ((uint32_t)diff_rand(&s) & 0x0ffffff0u);
            errs += (round % 2 ? route4_del(t, a, 28) : route4_add(t, a, 28, 9)) == ROUTE_EINVAL;
        }
        route4_reclaim(t, atomic_load_explicit(&c->qs, memory_order_acquire));
    }
    for (unsigned i = 0; i < NTOG; i++) /* restore, so the stable probes hold */
        route4_add(t, c->tog[i] & ~255u, 24, c->allowed[i][0]);
    atomic_store(&c->done, 1);
    pthread_join(th, NULL);
    printf("     concurrent: %ld updates, %ld lookups\n", updates, c->lookups);
    diff_result("v4 lookups on another thread during updates and reclaim", c->bad + errs);
    route4_destroy(t);
    free(q);
    free(c);
}
