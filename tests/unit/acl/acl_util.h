/* SPDX-License-Identifier: MIT */
/* tests/unit/acl/acl_util.h: what the access-list tests share (acl_rule.c,
 * acl_key.c, acl_classify.c): a seeded generator, rule parsing and
 * comparison, the first-match model written here from net/acl/acl.h, an
 * allocator that counts and refuses, random rules and keys at their edges,
 * and IPv4/IPv6 datagrams put together byte by byte. */
#ifndef TESTS_UNIT_ACL_ACL_UTIL_H
#define TESTS_UNIT_ACL_ACL_UTIL_H

#include <stdlib.h>

#include "net/acl/acl.h"
#include "tests/unit/check.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state;

static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

static char last_err[128];

/* acl_rule_parse on a line split at spaces; the message in last_err. */
static inline int parse(struct acl_rule *r, const char *line)
{
    char buf[512], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok(buf, " "); t && argc < 64; t = strtok(NULL, " "))
        argv[argc++] = t;
    last_err[0] = 0;
    memset(r, 0xa5, sizeof *r); /* nothing may be left from before */
    return acl_rule_parse(r, argc, argv, last_err, sizeof last_err);
}

static inline bool rule_eq(const struct acl_rule *a, const struct acl_rule *b)
{
    return a->permit == b->permit && a->family == b->family && a->proto == b->proto && a->src_len == b->src_len &&
           a->dst_len == b->dst_len && !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16) &&
           a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi && a->dport_lo == b->dport_lo &&
           a->dport_hi == b->dport_hi;
}

static inline void rule_print(const char *what, const struct acl_rule *r)
{
    char buf[256];
    acl_rule_format(r, buf, sizeof buf);
    fprintf(stderr, "  %s: \"%s\" (family %u proto %d lens %u/%u ports %u-%u %u-%u)\n", what, buf, r->family,
            r->proto, r->src_len, r->dst_len, r->sport_lo, r->sport_hi, r->dport_lo, r->dport_hi);
}

/* A rule with no conditions, as parse gives "permit". */
static inline struct acl_rule any_rule(bool permit)
{
    struct acl_rule r;
    memset(&r, 0, sizeof r);
    r.permit = permit;
    r.family = ACL_V4 | ACL_V6;
    r.proto = -1;
    r.sport_hi = r.dport_hi = 65535;
    return r;
}

/* Bits [0, len) of a and b equal (network order). */
static inline bool prefix_has(const uint8_t *net, uint8_t len, const uint8_t *a)
{
    for (uint32_t i = 0; i < len; i++) {
        uint32_t byte = i / 8, bit = 7 - i % 8;
        if (((net[byte] >> bit) & 1) != ((a[byte] >> bit) & 1))
            return false;
    }
    return true;
}

/* What acl.h says a rule matches, written from the header alone. */
static inline bool model_matches(const struct acl_rule *r, const struct acl_key *k)
{
    if (!(r->family & k->family))
        return false;
    if (r->proto >= 0 && r->proto != k->proto)
        return false;
    if (!prefix_has(r->src, r->src_len, k->src) || !prefix_has(r->dst, r->dst_len, k->dst))
        return false;
    bool sany = r->sport_lo == 0 && r->sport_hi == 65535, dany = r->dport_lo == 0 && r->dport_hi == 65535;
    if (sany && dany)
        return true;
    if (!k->has_ports)
        return false;
    return k->sport >= r->sport_lo && k->sport <= r->sport_hi && k->dport >= r->dport_lo && k->dport <= r->dport_hi;
}

static inline uint32_t linear(const struct acl_rule *rules, uint32_t n, const struct acl_key *k)
{
    for (uint32_t i = 0; i < n; i++)
        if (acl_rule_matches(&rules[i], k))
            return i;
    return n;
}

/* ---- memory ------------------------------------------------------------- */

/* An acl_mem that keeps every block it gave, refuses the calls from
 * fail_from on (or only call fail_only), and checks each free against what
 * it gave (the same pointer, the same size). */
struct mem_track {
    struct {
        void *p;
        size_t size;
    } *blk;
    size_t nblk, cap;
    size_t live_bytes, alloc_bytes, freed_bytes;
    uint32_t calls, refused, bad_free, misaligned;
    uint32_t fail_from, fail_only; /* UINT32_MAX: never */
};

static inline void *track_alloc(void *ctx, size_t size)
{
    struct mem_track *t = ctx;
    uint32_t call = t->calls++;
    if (call >= t->fail_from || call == t->fail_only) {
        t->refused++;
        return NULL;
    }
    void *p = aligned_alloc(64, (size + 63) / 64 * 64 + (size == 0 ? 64 : 0));
    if (p == NULL)
        return NULL;
    if ((uintptr_t)p % 64)
        t->misaligned++;
    memset(p, 0xcd, size); /* the caller may not count on zeroed memory */
    if (t->nblk == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->blk = realloc(t->blk, t->cap * sizeof(*t->blk));
    }
    t->blk[t->nblk].p = p;
    t->blk[t->nblk++].size = size;
    t->live_bytes += size;
    t->alloc_bytes += size;
    return p;
}

static inline void track_free(void *ctx, void *p, size_t size)
{
    struct mem_track *t = ctx;
    for (size_t i = 0; i < t->nblk; i++)
        if (t->blk[i].p == p) {
            if (t->blk[i].size != size)
                t->bad_free++;
            t->live_bytes -= t->blk[i].size;
            t->freed_bytes += t->blk[i].size;
            t->blk[i] = t->blk[--t->nblk];
            free(p);
            return;
        }
    t->bad_free++; /* not ours, or twice */
}

static inline struct acl_mem track_mem(struct mem_track *t)
{
    memset(t, 0, sizeof *t);
    t->fail_from = t->fail_only = UINT32_MAX;
    return (struct acl_mem){track_alloc, track_free, t};
}

static inline void track_done(struct mem_track *t)
{
    while (t->nblk) /* a leak: already failed; do not leak on into ASan */
        free(t->blk[--t->nblk].p);
    free(t->blk);
    t->blk = NULL;
    t->cap = 0;
}

static inline void *plain_alloc(void *ctx, size_t size)
{
    return aligned_alloc(64, (size + 63) / 64 * 64 + (size == 0 ? 64 : 0));
}

static inline void plain_free(void *ctx, void *p, size_t size)
{
    free(p);
}

static const struct acl_mem plain_mem = {plain_alloc, plain_free, NULL};

/* ---- random rules ------------------------------------------------------- */

/* Anchors the random prefixes cluster around, so that they overlap. */
static const uint8_t anchor4[][4] = {{10, 0, 0, 0}, {10, 0, 128, 0}, {192, 168, 1, 0}, {198, 18, 0, 0}, {0, 0, 0, 0},
                                     {255, 255, 255, 0}};
static const uint8_t anchor6[][16] = {
    {0x20, 0x01, 0x0d, 0xb8},
    {0x20, 0x01, 0x0d, 0xb8, 0, 1},
    {0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    {0xfe, 0x80},
    {0},
    {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
};

static inline void mask(uint8_t *a, uint32_t len, uint32_t alen)
{
    for (uint32_t bit = len; bit < alen * 8; bit++)
        a[bit / 8] &= (uint8_t)~(1u << (7 - bit % 8));
    for (uint32_t i = alen; i < 16; i++)
        a[i] = 0;
}

/* A random address near an anchor: a few of its bits flipped. */
static inline void near_anchor(uint8_t *a, bool v6)
{
    uint32_t alen = v6 ? 16 : 4;
    memset(a, 0, 16);
    memcpy(a, v6 ? anchor6[rnd_below(6)] : anchor4[rnd_below(6)], alen);
    uint32_t flips = rnd_below(4);
    for (uint32_t i = 0; i < flips; i++) {
        uint32_t bit = rnd_below(8) < 6 ? alen * 8 / 2 + rnd_below(alen * 8 / 2) : rnd_below(alen * 8);
        a[bit / 8] ^= (uint8_t)(1u << (7 - bit % 8));
    }
    if (rnd_below(8) == 0) /* now and then anywhere */
        for (uint32_t i = 0; i < alen; i++)
            a[i] = (uint8_t)rnd();
}

/* Mostly long prefixes (few rules that take in everything), some of any
 * length. */
static inline uint8_t random_len(bool v6)
{
    uint32_t max = v6 ? 128 : 32;
    switch (rnd_below(10)) {
    case 0:
    case 1:
        return (uint8_t)max;
    case 2:
        return (uint8_t)(1 + rnd_below(max));
    default:
        return (uint8_t)(max / 2 + rnd_below(max / 2 + 1));
    }
}

static const uint16_t port_points[] = {0, 1, 22, 53, 80, 443, 1023, 1024, 8080, 32768, 65534, 65535};

static inline void random_range(uint16_t *lo, uint16_t *hi)
{
    uint32_t a = port_points[rnd_below(12)], b;
    if (rnd_below(3) == 0)
        a = (uint32_t)(a + rnd_below(5)) % 65536;
    switch (rnd_below(4)) {
    case 0:
        b = a;
        break;
    case 1:
        b = port_points[rnd_below(12)];
        break;
    default:
        b = a + rnd_below(rnd_below(2) ? 16 : 4096);
        break;
    }
    if (b > 65535)
        b = 65535;
    if (b < a) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
}

/* A random rule, valid as acl_rule_parse would give it: prefixes of one
 * family, masked; icmp for IPv4 and icmp6 for IPv6; ports with tcp or udp. */
static inline struct acl_rule random_rule(void)
{
    struct acl_rule r = any_rule(rnd_below(2));
    uint32_t fam = rnd_below(5); /* 0-1 IPv4, 2-3 IPv6, 4 either */
    bool v6 = fam >= 2 && fam <= 3, prefixes = fam < 4;
    uint32_t p = rnd_below(20);
    if (p < 5)
        r.proto = 6;
    else if (p < 10)
        r.proto = 17;
    else if (p == 10)
        r.proto = fam == 4 ? 47 : v6 ? 58 : 1;
    else if (p == 11)
        r.proto = (int16_t)(rnd_below(256));
    if (r.proto == 1 || r.proto == 58) { /* as the words give them: icmp, icmp6 */
        v6 = r.proto == 58;
        prefixes = true;
    }
    bool ports = false;
    if (fam == 4 && (p < 10 || p > 11)) { /* for both families: ports, or one other protocol */
        r.proto = rnd_below(2) ? 6 : 17;
        ports = true;
    }
    if (prefixes) {
        uint32_t which = 1 + rnd_below(3); /* 1 src, 2 dst, 3 both */
        if (which & 1) {
            near_anchor(r.src, v6);
            r.src_len = random_len(v6);
            mask(r.src, r.src_len, v6 ? 16 : 4);
        }
        if (which & 2) {
            near_anchor(r.dst, v6);
            r.dst_len = random_len(v6);
            mask(r.dst, r.dst_len, v6 ? 16 : 4);
        }
        r.family = v6 ? ACL_V6 : ACL_V4;
    }
    if (r.proto == 6 || r.proto == 17) {
        uint32_t which = ports ? 1 + rnd_below(3) : rnd_below(4);
        if (which & 1)
            random_range(&r.sport_lo, &r.sport_hi);
        if (which & 2)
            random_range(&r.dport_lo, &r.dport_hi);
    }
    return r;
}

static inline void add_to(uint8_t *a, uint32_t alen, int delta)
{
    for (int i = (int)alen - 1; i >= 0; i--) {
        int v = a[i] + delta;
        a[i] = (uint8_t)v;
        if (v >= 0 && v <= 255)
            return;
        /* carry or borrow onward */
    }
}

/* An address at an edge of prefix (net, len): its first or last address,
 * or one past either, or inside at random. */
static inline void edge_addr(uint8_t *a, const uint8_t *net, uint8_t len, uint32_t alen)
{
    memcpy(a, net, 16);
    uint32_t how = rnd_below(5);
    if (how == 1 || how == 3 || how == 4) /* fill the host part: last, or random */
        for (uint32_t bit = len; bit < alen * 8; bit++)
            if (how != 4 || rnd_below(2))
                a[bit / 8] |= (uint8_t)(1u << (7 - bit % 8));
    if (how == 2)
        add_to(a, alen, -1);
    if (how == 3)
        add_to(a, alen, 1);
    for (uint32_t i = alen; i < 16; i++)
        a[i] = 0;
}

static inline uint16_t edge_port(uint16_t lo, uint16_t hi)
{
    switch (rnd_below(6)) {
    case 0:
        return lo;
    case 1:
        return hi;
    case 2:
        return (uint16_t)(lo - 1);
    case 3:
        return (uint16_t)(hi + 1);
    case 4:
        return (uint16_t)(lo + rnd_below((uint32_t)(hi - lo) + 1));
    default:
        return port_points[rnd_below(12)];
    }
}

/* A key as the wire parsers would give one: ports only with TCP or UDP
 * (and not always: a later fragment), each field near the edges of the
 * rules. */
static inline struct acl_key random_key(const struct acl_rule *rules, uint32_t n)
{
    struct acl_key k;
    memset(&k, 0, sizeof k);
    k.family = rnd_below(2) ? ACL_V4 : ACL_V6;
    uint32_t alen = k.family == ACL_V4 ? 4 : 16;
    const struct acl_rule *r = &rules[rnd_below(n)], *r2 = rnd_below(2) ? r : &rules[rnd_below(n)];
    if ((r->family & k.family) && (r->src_len || rnd_below(2)))
        edge_addr(k.src, r->src, r->src_len, alen);
    else
        near_anchor(k.src, alen == 16);
    if ((r2->family & k.family) && (r2->dst_len || rnd_below(2)))
        edge_addr(k.dst, r2->dst, r2->dst_len, alen);
    else
        near_anchor(k.dst, alen == 16);
    uint32_t p = rnd_below(10);
    if (p < 5 && r->proto >= 0)
        k.proto = (uint8_t)r->proto;
    else
        k.proto = (const uint8_t[]){6, 17, 6, 17, 1, 58, 47, 0, 255, 6}[p];
    if ((k.proto == 6 || k.proto == 17) && rnd_below(8)) {
        k.has_ports = true;
        k.sport = rnd_below(2) ? edge_port(r->sport_lo, r->sport_hi) : edge_port(r2->sport_lo, r2->sport_hi);
        k.dport = rnd_below(2) ? edge_port(r->dport_lo, r->dport_hi) : edge_port(r2->dport_lo, r2->dport_hi);
    }
    return k;
}

static inline void key_print(const struct acl_key *k)
{
    fprintf(stderr, "  key: family %u proto %u ports %d %u->%u src", k->family, k->proto, k->has_ports, k->sport,
            k->dport);
    for (int i = 0; i < (k->family == ACL_V4 ? 4 : 16); i++)
        fprintf(stderr, "%s%02x", i ? ":" : " ", k->src[i]);
    fprintf(stderr, " dst");
    for (int i = 0; i < (k->family == ACL_V4 ? 4 : 16); i++)
        fprintf(stderr, "%s%02x", i ? ":" : " ", k->dst[i]);
    fprintf(stderr, "\n");
}

/* ---- datagrams from bytes ---------------------------------------------- */

/* acl_key4 and acl_key6 on a copy of exactly len bytes: a read past them is
 * ASan's to see. */
static inline void key4(struct acl_key *k, const uint8_t *b, uint32_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, b, len);
    acl_key4(k, copy, len);
    free(copy);
}

static inline void key6(struct acl_key *k, const uint8_t *b, uint32_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, b, len);
    acl_key6(k, copy, len);
    free(copy);
}

static inline void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* An IPv4 header (ihl words, options NOPs) then l4 bytes; returns the
 * length. frag: the flags and offset field, host order. */
static inline uint32_t v4(uint8_t *b, uint8_t ihl, uint8_t proto, uint16_t frag, const uint8_t *l4, uint32_t l4len)
{
    uint32_t h = ihl * 4u;
    memset(b, 0, h);
    b[0] = (uint8_t)(0x40 | ihl);
    put16(b + 2, (uint16_t)(h + l4len));
    put16(b + 4, 0x1234);
    put16(b + 6, frag);
    b[8] = 64;
    b[9] = proto;
    const uint8_t src[4] = {192, 0, 2, 10}, dst[4] = {198, 51, 100, 20};
    memcpy(b + 12, src, 4);
    memcpy(b + 16, dst, 4);
    for (uint32_t i = 20; i < h; i++)
        b[i] = 1; /* NOP */
    uint32_t sum = 0;
    for (uint32_t i = 0; i < h; i += 2)
        sum += (uint32_t)b[i] << 8 | b[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(b + 10, (uint16_t)~sum);
    memcpy(b + h, l4, l4len);
    return h + l4len;
}

/* The first bytes of a TCP (20) or UDP (8) header with these ports. */
static inline uint32_t l4hdr(uint8_t *b, uint8_t proto, uint16_t sport, uint16_t dport)
{
    uint32_t n = proto == 6 ? 20 : 8;
    memset(b, 0, n);
    put16(b, sport);
    put16(b + 2, dport);
    if (proto == 6)
        b[12] = 5 << 4;
    else
        put16(b + 4, 8);
    return n;
}

/* An IPv6 header, next header nh, from 2001:db8::a to 2001:db8:1::14. */
static inline uint32_t v6(uint8_t *b, uint8_t nh, uint32_t plen)
{
    memset(b, 0, 40);
    b[0] = 0x60;
    put16(b + 4, (uint16_t)plen);
    b[6] = nh;
    b[7] = 64;
    const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a}, dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x14};
    memcpy(b + 8, src, 16);
    memcpy(b + 24, dst, 16);
    return 40;
}

/* An extension header of 8 * (1 + units) bytes (hop-by-hop, destination
 * options or routing: PadN inside). */
static inline uint32_t ext(uint8_t *b, uint8_t next, uint8_t units)
{
    uint32_t n = 8u * (1u + units);
    memset(b, 0, n);
    b[0] = next;
    b[1] = units;
    b[2] = 1; /* PadN */
    b[3] = (uint8_t)(n - 4);
    return n;
}

static inline uint32_t frag6(uint8_t *b, uint8_t next, uint16_t off8, bool more)
{
    memset(b, 0, 8);
    b[0] = next;
    put16(b + 2, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
    b[4] = 0xde, b[5] = 0xad, b[6] = 0xbe, b[7] = 0xef;
    return 8;
}

#endif
