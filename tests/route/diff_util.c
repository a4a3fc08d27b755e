/* SPDX-License-Identifier: MIT */
/* tests/route/diff_util.c: the reference and helpers of diff.h. */
#include "diff.h"

int diff_passed, diff_failed;

void diff_result(const char *name, long bad)
{
    if (bad) {
        printf("FAIL %s: %ld wrong\n", name, bad);
        diff_failed++;
    } else {
        printf("ok   %s\n", name);
        diff_passed++;
    }
    fflush(stdout);
}

char *diff_read_gz(const char *path, size_t *len)
{
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "gzip -dc '%s' 2>/dev/null", path);
    FILE *f = popen(cmd, "r");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0)
        if ((n += got) + 1 == cap)
            buf = realloc(buf, cap *= 2);
    if (pclose(f) != 0 || buf == NULL || n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static void *diff_alloc(void *ctx, size_t size, size_t align)
{
    (void)ctx;
    return aligned_alloc(align, (size + align - 1) / align * align);
}

static void diff_free(void *ctx, void *p, size_t size)
{
    (void)ctx;
    memset(p, 0xa5, size); /* a reader still using freed memory gets garbage */
    free(p);
}

bool diff_avx2_only;

struct route_cfg diff_cfg(void)
{
    struct route_cfg c = {{diff_alloc, diff_free, NULL}, NULL, true, route_host_avx512() && !diff_avx2_only,
                          route_host_avx2()};
    return c;
}

uint64_t diff_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_prefix(const void *a, const void *b)
{
    const struct dprefix *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (int)x->len - (int)y->len;
}

/* Last key of a prefix (bits-wide space, left-aligned in 128 bits). */
u128 diff_last(const struct dprefix *p, unsigned bits)
{
    u128 span = p->len == 0 ? ~(u128)0 : ((u128)1 << (128 - p->len)) - 1;
    u128 room = bits == 128 ? 0 : ((u128)1 << (128 - bits)) - 1;
    return p->key | (span & ~room);
}

static void emit(struct dref *ref, u128 lo, u128 hi, uint32_t nh)
{
    if (ref->n == ref->cap) {
        ref->cap = ref->cap ? ref->cap * 2 : 1024;
        ref->r = realloc(ref->r, ref->cap * sizeof(*ref->r));
    }
    ref->r[ref->n++] = (struct drange){lo, hi, nh};
}

void diff_flatten(struct dprefix *p, size_t n, unsigned bits, struct dref *ref)
{
    struct dprefix *stack[130];
    int top = 0;
    u128 cur = 0, step = bits == 128 ? 1 : (u128)1 << (128 - bits);
    int done = 0; /* cur wrapped past the end */
    ref->n = 0;
    qsort(p, n, sizeof(*p), cmp_prefix);
    for (size_t i = 0; i <= n && !done; i++) {
        /* Close the enclosing prefixes that end before p[i] starts. */
        while (top && (i == n || diff_last(stack[top - 1], bits) < p[i].key)) {
            u128 last = diff_last(stack[top - 1], bits);
            if (cur <= last && !done) {
                emit(ref, cur, last, stack[top - 1]->nh);
                cur = last + step;
                done = cur == 0;
            }
            top--;
        }
        if (i == n)
            break;
        if (cur < p[i].key) {
            emit(ref, cur, p[i].key - step, top ? stack[top - 1]->nh : 0);
            cur = p[i].key;
        }
        stack[top++] = &p[i];
    }
    if (!done) {
        u128 end = bits == 128 ? ~(u128)0 : ~(u128)0 << (128 - bits);
        emit(ref, cur, end, 0);
    }
}

const struct drange *diff_find(const struct dref *ref, u128 key)
{
    size_t lo = 0, hi = ref->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (ref->r[mid].lo <= key)
            lo = mid;
        else
            hi = mid;
    }
    return &ref->r[lo];
}
