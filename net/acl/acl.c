/* SPDX-License-Identifier: MIT */
/* net/acl/acl.c: the bit-vector classifier access lists compile into
 * (net/acl/acl.h has the design; the rules themselves are acl_rule.c). */
#include "acl_impl.h"

#include "core/env.h"
#include "core/pkt.h"

typedef unsigned __int128 u128;

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, FIELDS };

#define CHILD 0x8000u     /* a table entry: a child node's index, else a class */
#define ENTRY_MAX 0x7fffu /* nodes and classes a field may have */
#define ALLOCS 64

/* One field of one family: its value as bytes (proto 1, ports 2, IPv4 4,
 * IPv6 16) walks root[first byte], then a node a byte while the entry is
 * a child; the class's rules are bits[class * words ...]. */
struct field {
    uint16_t *root;
    uint16_t (*node)[256];
    uint64_t *bits;
    uint32_t nnodes, nclasses;
    /* At most 63 rules (words 1): the same tables with each class's
     * bitmap in the entry itself, one load a byte and none for the
     * bitmap. The nodes follow the root (node i at root64 + 256 (i + 1)),
     * and a child is NODE64 | its byte offset from the root: the walk
     * needs no pointer but the root's. */
    uint64_t *root64;
};

#define NODE64 ACL_FAST4_CHILD

struct table {
    uint32_t n;               /* rules of this family */
    uint32_t words;           /* bitmap words: (n + 63) / 64 */
    struct field f[FIELDS];
    uint64_t *ported;         /* rules that test ports */
    uint16_t *rule;           /* bit i: rule rule[i] of the list */
    /* At most 63 rules: the bitmap words in the tables' entries
     * (field.root64), and the permits as a word; bit 63 stands for no
     * match (the implicit deny: never set here). */
    uint64_t permit;
    struct acl_fast4 fast;    /* each field's root64, ported[0] */
};

struct acl {
    char name[ACL_NAME_MAX];
    uint32_t n;
    struct acl_rule *rules;
    struct table t[2];        /* IPv4, IPv6 */
    size_t bytes;
    uint32_t nallocs;
    struct {
        void *p;
        size_t size;
    } alloc[ALLOCS];
};

/* ---- Building --------------------------------------------------------- */

struct build {
    struct acl *a;
    const struct acl_mem *m;
    char *err;
    size_t errlen;
    /* One field's pieces: cut[i] starts piece i, cls[i] its class. */
    u128 *cut;
    uint16_t *cls;
    uint32_t ncut;
    struct field *f;
    unsigned width;          /* the field's bits */
    bool counting;           /* fill counts nodes, writes nothing */
    uint32_t nodes;
};

static void *take(struct build *b, size_t size)
{
    struct acl *a = b->a;
    size = (size + 63) & ~(size_t)63;
    void *p = a->nallocs < ALLOCS ? b->m->alloc(b->m->ctx, size) : NULL;
    if (p == NULL) {
        acl_err(b->err, b->errlen, "no memory for the access list", NULL);
        return NULL;
    }
    net_memset(p, 0, size);
    a->alloc[a->nallocs].p = p;
    a->alloc[a->nallocs++].size = size;
    a->bytes += size;
    return p;
}

/* Scratch for the build, freed at its end (not counted in bytes). */
static void *scratch(struct build *b, size_t size)
{
    void *p = b->m->alloc(b->m->ctx, (size + 63) & ~(size_t)63);
    if (p == NULL)
        acl_err(b->err, b->errlen, "no memory to build the access list", NULL);
    return p;
}

static void scratch_free(struct build *b, void *p, size_t size)
{
    if (p)
        b->m->free(b->m->ctx, p, (size + 63) & ~(size_t)63);
}

static u128 key_max(unsigned width) { return width == 128 ? ~(u128)0 : ((u128)1 << width) - 1; }

static u128 bytes_be(const uint8_t *p, unsigned n)
{
    u128 v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Rule r's range in field fi of a family whose addresses are abytes long. */
static void rule_range(const struct acl_rule *r, int fi, unsigned abytes, u128 *lo, u128 *hi)
{
    unsigned width = abytes * 8;
    switch (fi) {
    case F_PROTO:
        *lo = r->proto < 0 ? 0 : (u128)r->proto;
        *hi = r->proto < 0 ? 255 : (u128)r->proto;
        return;
    case F_SRC:
    case F_DST: {
        uint8_t plen = fi == F_SRC ? r->src_len : r->dst_len;
        u128 host = plen >= width ? 0 : key_max(width - plen);
        *lo = bytes_be(fi == F_SRC ? r->src : r->dst, abytes);
        *hi = *lo | host;
        return;
    }
    case F_SPORT:
        *lo = r->sport_lo, *hi = r->sport_hi;
        return;
    default:
        *lo = r->dport_lo, *hi = r->dport_hi;
        return;
    }
}

static void sort_unique(u128 *v, uint32_t *n)
{
    /* Shell sort: at most 2 * ACL_RULES_MAX + 1 values, once a build. */
    static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        for (uint32_t i = gaps[g]; i < *n; i++) {
            u128 x = v[i];
            uint32_t j = i;
            for (; j >= gaps[g] && v[j - gaps[g]] > x; j -= gaps[g])
                v[j] = v[j - gaps[g]];
            v[j] = x;
        }
    uint32_t o = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (o == 0 || v[o - 1] != v[i])
            v[o++] = v[i];
    *n = o;
}

/* The piece that holds x: the last cut at or below it. */
static uint32_t piece_of(const struct build *b, u128 x)
{
    uint32_t lo = 0, hi = b->ncut; /* cut[0] == 0 <= x */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (b->cut[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Entries slots[0..2^bits) for keys base + (i << rem): a class where the
 * slot's keys lie in one piece, else a child node of 256 below it. */
static bool fill(struct build *b, uint16_t *slots, unsigned bits, u128 base, unsigned rem)
{
    for (u128 i = 0; i < ((u128)1 << bits); i++) {
        u128 start = base | i << rem, end = start | (rem ? key_max(rem) : 0);
        uint32_t p = piece_of(b, start);
        if (p + 1 >= b->ncut || b->cut[p + 1] > end) {
            if (!b->counting)
                slots[i] = b->cls[p];
            continue;
        }
        if (b->nodes >= ENTRY_MAX) {
            acl_err(b->err, b->errlen, "access list too large to compile", NULL);
            return false;
        }
        uint32_t child = b->nodes++;
        if (!b->counting)
            slots[i] = (uint16_t)(CHILD | child);
        if (!fill(b, b->counting ? NULL : b->f->node[child], 8, start, rem - 8))
            return false;
    }
    return true;
}

/* Field fi of table t over the family's rules (idx[0..t->n)). */
static bool build_field(struct build *b, struct table *t, int fi, const uint16_t *idx, unsigned abytes)
{
    static const unsigned field_bytes[FIELDS] = {1, 0, 0, 2, 2};
    unsigned nb = field_bytes[fi] ? field_bytes[fi] : abytes;
    struct field *f = &t->f[fi];
    uint32_t W = t->words, ncut = 0, cap = 2 * t->n + 1;
    size_t cut_sz = cap * sizeof(u128), cls_sz = cap * sizeof(uint16_t), set_sz = (size_t)cap * W * 8;
    size_t hash_n = 1;
    while (hash_n < 2 * (size_t)cap)
        hash_n <<= 1;
    size_t hash_sz = hash_n * sizeof(uint32_t);
    u128 *cut = scratch(b, cut_sz);
    uint16_t *cls = scratch(b, cls_sz);
    uint64_t *sets = scratch(b, set_sz);
    uint32_t *hash = scratch(b, hash_sz);
    bool ok = cut && cls && sets && hash;
    if (ok) {
        cut[ncut++] = 0;
        for (uint32_t r = 0; r < t->n; r++) {
            u128 lo, hi;
            rule_range(&b->a->rules[idx[r]], fi, abytes, &lo, &hi);
            cut[ncut++] = lo;
            if (hi != key_max(nb * 8))
                cut[ncut++] = hi + 1;
        }
        sort_unique(cut, &ncut);
        /* Each piece's rules, and the distinct sets as classes. */
        net_memset(hash, 0xff, hash_sz);
        net_memset(sets, 0, set_sz);
        uint32_t nclass = 0;
        for (uint32_t p = 0; p < ncut && ok; p++) {
            uint64_t *s = &sets[(size_t)nclass * W];
            uint64_t h = 0;
            for (uint32_t r = 0; r < t->n; r++) {
                u128 lo, hi;
                rule_range(&b->a->rules[idx[r]], fi, abytes, &lo, &hi);
                if (lo <= cut[p] && cut[p] <= hi)
                    s[r / 64] |= 1ull << (r % 64);
            }
            for (uint32_t w = 0; w < W; w++)
                h = (h ^ s[w]) * 0x9e3779b97f4a7c15ull;
            size_t slot = (size_t)(h >> 40) & (hash_n - 1);
            while (hash[slot] != 0xffffffffu && net_memcmp(&sets[(size_t)hash[slot] * W], s, W * 8) != 0)
                slot = (slot + 1) & (hash_n - 1);
            if (hash[slot] == 0xffffffffu) {
                hash[slot] = nclass++;
            } else {
                net_memset(s, 0, W * 8);
            }
            cls[p] = (uint16_t)hash[slot];
        }
        f->nclasses = nclass;
        b->cut = cut, b->cls = cls, b->ncut = ncut, b->f = f, b->width = nb * 8;
        unsigned root_bits = 8, rem = b->width - root_bits;
        /* Count the nodes, then fill them. */
        b->counting = true;
        b->nodes = 0;
        ok = fill(b, NULL, root_bits, 0, rem);
        f->nnodes = b->nodes;
        ok = ok && (f->root = take(b, ((size_t)1 << root_bits) * sizeof(uint16_t))) != NULL;
        ok = ok && (f->nnodes == 0 || (f->node = take(b, (size_t)f->nnodes * 256 * sizeof(uint16_t))) != NULL);
        ok = ok && (f->bits = take(b, (size_t)nclass * W * 8)) != NULL;
        if (ok) {
            net_memcpy(f->bits, sets, (size_t)nclass * W * 8);
            b->counting = false;
            b->nodes = 0;
            ok = fill(b, f->root, root_bits, 0, rem);
        }
        if (ok && t->n < 64) {
            ok = (f->root64 = take(b, (size_t)(f->nnodes + 1) * 256 * sizeof(uint64_t))) != NULL;
            for (uint32_t i = 0; ok && i < (f->nnodes + 1) * 256; i++) {
                uint16_t e = i < 256 ? f->root[i] : f->node[i / 256 - 1][i % 256];
                f->root64[i] = e & CHILD ? NODE64 | ((uint64_t)(e & ENTRY_MAX) + 1) * 256 * 8 : f->bits[e];
            }
        }
    }
    scratch_free(b, cut, cut_sz);
    scratch_free(b, cls, cls_sz);
    scratch_free(b, sets, set_sz);
    scratch_free(b, hash, hash_sz);
    return ok;
}

static bool build_table(struct build *b, struct table *t, uint8_t family)
{
    struct acl *a = b->a;
    unsigned abytes = family == ACL_V4 ? 4 : 16;
    t->n = 0;
    for (uint32_t i = 0; i < a->n; i++)
        t->n += (a->rules[i].family & family) != 0;
    t->words = (t->n + 63) / 64;
    if (t->n == 0)
        return true; /* nothing of this family: the implicit deny */
    if ((t->rule = take(b, t->n * sizeof(uint16_t))) == NULL || (t->ported = take(b, t->words * 8)) == NULL)
        return false;
    for (uint32_t i = 0, j = 0; i < a->n; i++) {
        if (!(a->rules[i].family & family))
            continue;
        if (acl_rule_ported(&a->rules[i]))
            t->ported[j / 64] |= 1ull << (j % 64);
        if (a->rules[i].permit && j < 63)
            t->permit |= 1ull << j;
        t->rule[j++] = (uint16_t)i;
    }
    for (int fi = 0; fi < FIELDS; fi++) {
        if (!build_field(b, t, fi, t->rule, abytes))
            return false;
        t->fast.root[fi] = t->f[fi].root64;
    }
    t->fast.ported = t->ported[0];
    return true;
}

struct acl *acl_build(const char *name, const struct acl_rule *rules, uint32_t n, const struct acl_mem *m,
                      char *err, size_t errlen)
{
    if (n > ACL_RULES_MAX) {
        acl_err(err, errlen, "too many rules in one access list", NULL);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        if (acl_rule_ported(&rules[i]) && rules[i].proto != IP4_PROTO_TCP && rules[i].proto != IP4_PROTO_UDP) {
            acl_err(err, errlen, "a rule with ports is not TCP or UDP", NULL); /* acl_use_pass4_burst counts on it */
            return NULL;
        }
    struct acl *a = m->alloc(m->ctx, (sizeof(struct acl) + 63) & ~(size_t)63);
    if (a == NULL) {
        acl_err(err, errlen, "no memory for the access list", NULL);
        return NULL;
    }
    net_memset(a, 0, sizeof(*a));
    size_t i = 0;
    for (; name[i] && i + 1 < ACL_NAME_MAX; i++)
        a->name[i] = name[i];
    a->n = n;
    struct build b = {.a = a, .m = m, .err = err, .errlen = errlen};
    bool ok = (a->rules = take(&b, (n ? n : 1) * sizeof(struct acl_rule))) != NULL;
    if (ok) {
        net_memcpy(a->rules, rules, n * sizeof(struct acl_rule));
        ok = build_table(&b, &a->t[0], ACL_V4) && build_table(&b, &a->t[1], ACL_V6);
    }
    if (!ok) {
        acl_free(a, m);
        return NULL;
    }
    return a;
}

void acl_free(struct acl *a, const struct acl_mem *m)
{
    if (a == NULL)
        return;
    for (uint32_t i = 0; i < a->nallocs; i++)
        m->free(m->ctx, a->alloc[i].p, a->alloc[i].size);
    m->free(m->ctx, a, (sizeof(struct acl) + 63) & ~(size_t)63);
}

const char *acl_name(const struct acl *a) { return a->name; }
uint32_t acl_nrules(const struct acl *a) { return a->n; }
const struct acl_rule *acl_rule_at(const struct acl *a, uint32_t i) { return i < a->n ? &a->rules[i] : NULL; }
size_t acl_bytes(const struct acl *a) { return a->bytes; }
bool acl_permits(const struct acl *a, uint32_t i) { return i < a->n && a->rules[i].permit; }

/* ---- Matching --------------------------------------------------------- */

/* The class of key (the field's bytes) as the bits of its rules: the
 * first byte's entry, then a node a byte while the entry is a child. */
static inline const uint64_t *class_bits(const struct field *f, const uint8_t *key, uint32_t words)
{
    uint32_t e = f->root[key[0]];
    for (uint32_t i = 1; NET_UNLIKELY(e & CHILD); i++)
        e = f->node[e & ENTRY_MAX][key[i]];
    return f->bits + (size_t)e * words;
}

/* The first rule set in all five class bitmaps; ported rules only with
 * ports. */
static inline uint32_t first_rule(const struct acl *a, const struct table *t, const uint64_t *p, const uint64_t *s,
                                  const uint64_t *d, const uint64_t *sb, const uint64_t *db, bool has_ports)
{
    uint64_t noport = has_ports ? 0 : ~0ull;
    for (uint32_t w = 0; w < t->words; w++) {
        uint64_t m = p[w] & s[w] & d[w] & sb[w] & db[w] & ~(t->ported[w] & noport);
        if (m)
            return t->rule[w * 64 + (uint32_t)__builtin_ctzll(m)];
    }
    return a->n;
}

const struct acl_fast4 *acl_fast4(const struct acl *a)
{
    const struct table *t = &a->t[0];
    return t->n && t->n < 64 ? &t->fast : NULL;
}

/* The ports of a datagram without them: a key of zeros, as acl_key4's. */
static const uint8_t no_ports[4];

#define FIELD(t, fi, key) acl_fast4_field(t, fi, (key)[0], key)

/* The rules matching the IPv4 datagram at ip (len bytes, its header
 * checked; any, where acl_fast4_bits wants a plain one), ANDed. */
static uint64_t fast4_any(const struct acl_fast4 *t, const uint8_t *ip, uint32_t len)
{
    const uint8_t *l4 = acl_ports4(ip, len);
    bool ported = l4 != NULL;
    l4 = ported ? l4 : no_ports;
    return t->root[F_PROTO][ip[9]] & FIELD(t, F_SRC, ip + 12) & FIELD(t, F_DST, ip + 16) & FIELD(t, F_SPORT, l4) &
           FIELD(t, F_DPORT, l4 + 2) & ~(ported ? 0 : t->ported);
}

static uint32_t rule_of_bit(const struct acl *a, const struct table *t, uint32_t bit)
{
    return bit < 63 ? t->rule[bit] : a->n;
}

uint32_t acl_classify4(const struct acl *a, const uint8_t *ip, uint32_t len)
{
    const struct table *t = &a->t[0];
    if (t->n == 0)
        return a->n;
    if (t->n < 64)
        return rule_of_bit(a, t, (uint32_t)__builtin_ctzll(fast4_any(&t->fast, ip, len) | 1ull << 63));
    uint32_t W = t->words;
    const uint8_t *l4 = acl_ports4(ip, len);
    bool ported = l4 != NULL;
    l4 = ported ? l4 : no_ports;
    const struct field *f = t->f;
    return first_rule(a, t, class_bits(&f[F_PROTO], ip + 9, W), class_bits(&f[F_SRC], ip + 12, W),
                      class_bits(&f[F_DST], ip + 16, W), class_bits(&f[F_SPORT], l4, W),
                      class_bits(&f[F_DPORT], l4 + 2, W), ported);
}

uint32_t acl_classify(const struct acl *a, const struct acl_key *k)
{
    const struct table *t = &a->t[k->family == ACL_V6];
    if (t->n == 0)
        return a->n;
    uint32_t W = t->words;
    uint8_t sp[2] = {(uint8_t)(k->sport >> 8), (uint8_t)k->sport};
    uint8_t dp[2] = {(uint8_t)(k->dport >> 8), (uint8_t)k->dport};
    return first_rule(a, t, class_bits(&t->f[F_PROTO], &k->proto, W), class_bits(&t->f[F_SRC], k->src, W),
                      class_bits(&t->f[F_DST], k->dst, W), class_bits(&t->f[F_SPORT], sp, W),
                      class_bits(&t->f[F_DPORT], dp, W), k->has_ports);
}

bool acl_use_pass(const struct acl_use *u, const struct acl_key *k)
{
    uint32_t r = acl_classify(u->acl, k);
    u->hits[r]++;
    return r < u->acl->n && u->acl->rules[r].permit;
}

bool acl_use_pass4(const struct acl_use *u, const uint8_t *ip, uint32_t len)
{
    uint32_t r = acl_classify4(u->acl, ip, len);
    u->hits[r]++;
    return r < u->acl->n && u->acl->rules[r].permit;
}

uint64_t acl_use_count4(const struct acl_use *u, const uint64_t *m, uint32_t n)
{
    const struct acl *a = u->acl;
    const struct table *t = &a->t[0];
    uint64_t deny = 0, permit = t->permit;
    if (n == 0)
        return 0;
    /* The usual burst: every datagram on the first one's rule (its bit the
     * lowest set in each), a test the compiler makes a few words an
     * instruction; then one count. */
    uint64_t first = m[0] | 1ull << 63, upto, diff = 0;
    first &= -first;
    upto = first | (first - 1);
    for (uint32_t i = 0; i < n; i++)
        diff |= ((m[i] | 1ull << 63) & upto) ^ first;
    if (NET_LIKELY(diff == 0)) {
        uint32_t bit = (uint32_t)__builtin_ctzll(first);
        u->hits[rule_of_bit(a, t, bit)] += n;
        return permit >> bit & 1 ? 0 : ~0ull >> (64 - n);
    }
    uint32_t last = 63, run = 0; /* a run of one rule counted at its end: no chain through hits[] */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t bit = (uint32_t)__builtin_ctzll(m[i] | 1ull << 63);
        if (bit != last) {
            if (run)
                u->hits[rule_of_bit(a, t, last)] += run;
            last = bit;
            run = 0;
        }
        run++;
        deny |= (~permit >> bit & 1) << i;
    }
    if (run)
        u->hits[rule_of_bit(a, t, last)] += run;
    return deny;
}

uint64_t acl_use_pass4_burst(const struct acl_use *u, struct pkt *const *p, uint32_t n, uint32_t off)
{
    const struct acl_fast4 *fast = acl_fast4(u->acl);
    uint64_t deny = 0, m[64];
    if (fast == NULL) {
        for (uint32_t i = 0; i < n; i++)
            deny |= (uint64_t)!acl_use_pass4(u, p[i]->data + off, p[i]->len - off) << i;
        return deny;
    }
    uint64_t odd = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *ip = p[i]->data + off;
        uint64_t w0;
        net_memcpy(&w0, ip, 8); /* byte k at bits 8k, as acl_fast4_bits reads it */
        uint32_t tot = (uint32_t)(w0 >> 8 & 0xff00) | (uint32_t)(w0 >> 24 & 0xff);
        /* The usual datagram here, the rest (options, a fragment, a
         * length past the frame) below: nothing called in this loop. */
        if (NET_UNLIKELY((w0 & 0xff) != 0x45 || (w0 >> 48 & 0xff3f) != 0 || tot > p[i]->len - off)) {
            odd |= 1ull << i;
            continue;
        }
        m[i] = acl_fast4_bits(fast, ip);
    }
    for (; odd; odd &= odd - 1) {
        uint32_t i = (uint32_t)__builtin_ctzll(odd);
        m[i] = fast4_any(fast, p[i]->data + off, p[i]->len - off);
    }
    return acl_use_count4(u, m, n);
}
