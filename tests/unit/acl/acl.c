/* SPDX-License-Identifier: MIT */
/* tests/unit/acl/acl.c: access lists (net/acl/acl.h). The rule words, good
 * and bad, and their format read back; keys read from wire bytes (ports,
 * ICMP, fragments, truncation, IPv6 extension headers); the compiled
 * classifier against a linear first-match, and acl_rule_matches against a
 * model written here from the header, on random lists of overlapping
 * rules and keys at their edges; hit counting; acl_build's limits and its
 * memory: an allocation refused part way leaves nothing behind, and
 * acl_free gives back exactly what was taken. */
#include <stdlib.h>

#include "net/acl/acl.h"
#include "tests/unit/check.h"

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint32_t rnd_below(uint32_t n)
{
    return (uint32_t)(rnd() % n);
}

static char last_err[128];

/* acl_rule_parse on a line split at spaces; the message in last_err. */
static int parse(struct acl_rule *r, const char *line)
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

static bool rule_eq(const struct acl_rule *a, const struct acl_rule *b)
{
    return a->permit == b->permit && a->family == b->family && a->proto == b->proto && a->src_len == b->src_len &&
           a->dst_len == b->dst_len && !memcmp(a->src, b->src, 16) && !memcmp(a->dst, b->dst, 16) &&
           a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi && a->dport_lo == b->dport_lo &&
           a->dport_hi == b->dport_hi;
}

static void rule_print(const char *what, const struct acl_rule *r)
{
    char buf[256];
    acl_rule_format(r, buf, sizeof buf);
    fprintf(stderr, "  %s: \"%s\" (family %u proto %d lens %u/%u ports %u-%u %u-%u)\n", what, buf, r->family,
            r->proto, r->src_len, r->dst_len, r->sport_lo, r->sport_hi, r->dport_lo, r->dport_hi);
}

/* A rule with no conditions, as parse gives "permit". */
static struct acl_rule any_rule(bool permit)
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
static bool prefix_has(const uint8_t *net, uint8_t len, const uint8_t *a)
{
    for (uint32_t i = 0; i < len; i++) {
        uint32_t byte = i / 8, bit = 7 - i % 8;
        if (((net[byte] >> bit) & 1) != ((a[byte] >> bit) & 1))
            return false;
    }
    return true;
}

/* What acl.h says a rule matches, written from the header alone. */
static bool model_matches(const struct acl_rule *r, const struct acl_key *k)
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

static uint32_t linear(const struct acl_rule *rules, uint32_t n, const struct acl_key *k)
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

static void *track_alloc(void *ctx, size_t size)
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

static void track_free(void *ctx, void *p, size_t size)
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

static struct acl_mem track_mem(struct mem_track *t)
{
    memset(t, 0, sizeof *t);
    t->fail_from = t->fail_only = UINT32_MAX;
    return (struct acl_mem){track_alloc, track_free, t};
}

static void track_done(struct mem_track *t)
{
    while (t->nblk) /* a leak: already failed; do not leak on into ASan */
        free(t->blk[--t->nblk].p);
    free(t->blk);
    t->blk = NULL;
    t->cap = 0;
}

static void *plain_alloc(void *ctx, size_t size)
{
    return aligned_alloc(64, (size + 63) / 64 * 64 + (size == 0 ? 64 : 0));
}

static void plain_free(void *ctx, void *p, size_t size)
{
    free(p);
}

static const struct acl_mem plain_mem = {plain_alloc, plain_free, NULL};

/* ---- rule words --------------------------------------------------------- */

TEST(acl_rule_parse_good_lines)
{
    struct acl_rule r;
    CHECK_EQ(parse(&r, "permit"), 0);
    struct acl_rule want = any_rule(true);
    CHECK(rule_eq(&r, &want));
    CHECK_EQ(parse(&r, "deny"), 0);
    want = any_rule(false);
    CHECK(rule_eq(&r, &want));

    CHECK_EQ(parse(&r, "permit proto tcp"), 0);
    CHECK(r.permit && r.proto == 6 && r.family == (ACL_V4 | ACL_V6) && r.src_len == 0 && r.dst_len == 0);
    CHECK_EQ(parse(&r, "deny proto udp"), 0);
    CHECK(!r.permit && r.proto == 17 && r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "permit proto icmp"), 0);
    CHECK(r.proto == 1 && r.family == ACL_V4);
    CHECK_EQ(parse(&r, "permit proto icmp6"), 0);
    CHECK(r.proto == 58 && r.family == ACL_V6);
    CHECK_EQ(parse(&r, "deny proto 47"), 0);
    CHECK(r.proto == 47 && r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "deny proto 0"), 0);
    CHECK(r.proto == 0);
    CHECK_EQ(parse(&r, "deny proto 255"), 0);
    CHECK(r.proto == 255);

    CHECK_EQ(parse(&r, "deny src 10.0.0.0/8"), 0);
    CHECK(r.family == ACL_V4 && r.src_len == 8 && r.src[0] == 10 && r.dst_len == 0 && r.proto == -1);
    CHECK(r.sport_lo == 0 && r.sport_hi == 65535 && r.dport_lo == 0 && r.dport_hi == 65535);
    CHECK_EQ(parse(&r, "permit dst 192.0.2.7"), 0); /* one host */
    CHECK(r.family == ACL_V4 && r.dst_len == 32 && r.src_len == 0);
    CHECK(r.dst[0] == 192 && r.dst[1] == 0 && r.dst[2] == 2 && r.dst[3] == 7);
    CHECK_EQ(parse(&r, "permit src 0.0.0.0/0"), 0);
    CHECK(r.src_len == 0 && r.family == ACL_V4); /* a /0 is "any IPv4" */
    CHECK_EQ(parse(&r, "permit src 198.51.100.0/24 dst 203.0.113.128/25"), 0);
    CHECK(r.family == ACL_V4 && r.src_len == 24 && r.dst_len == 25 && r.dst[3] == 128);

    CHECK_EQ(parse(&r, "permit src 2001:db8::/32"), 0);
    CHECK(r.family == ACL_V6 && r.src_len == 32 && r.src[0] == 0x20 && r.src[1] == 0x01 && r.src[2] == 0x0d &&
          r.src[3] == 0xb8);
    CHECK_EQ(parse(&r, "deny dst 2001:db8::1"), 0);
    CHECK(r.family == ACL_V6 && r.dst_len == 128 && r.dst[15] == 1);
    CHECK_EQ(parse(&r, "permit src fe80::/10 dst ff02::1"), 0);
    CHECK(r.family == ACL_V6 && r.src_len == 10 && r.dst_len == 128 && r.src[0] == 0xfe && r.src[1] == 0x80);
    CHECK_EQ(parse(&r, "permit proto icmp6 src 2001:db8::/48"), 0);
    CHECK(r.family == ACL_V6 && r.proto == 58);
    CHECK_EQ(parse(&r, "permit proto icmp dst 10.0.0.0/8"), 0);
    CHECK(r.family == ACL_V4 && r.proto == 1);

    CHECK_EQ(parse(&r, "permit proto tcp dport 80"), 0);
    CHECK(r.proto == 6 && r.dport_lo == 80 && r.dport_hi == 80 && r.sport_lo == 0 && r.sport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto udp sport 1024-65535 dport 53"), 0);
    CHECK(r.proto == 17 && r.sport_lo == 1024 && r.sport_hi == 65535 && r.dport_lo == 53 && r.dport_hi == 53);
    CHECK(r.family == (ACL_V4 | ACL_V6));
    CHECK_EQ(parse(&r, "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139"), 0);
    CHECK(!r.permit && r.family == ACL_V4 && r.proto == 6 && r.src_len == 24 && r.dst_len == 16);
    CHECK(r.sport_lo == 0 && r.sport_hi == 1023 && r.dport_lo == 135 && r.dport_hi == 139);
    CHECK_EQ(parse(&r, "permit proto tcp dst 2001:db8::80 dport 443"), 0);
    CHECK(r.family == ACL_V6 && r.dport_lo == 443);
    CHECK_EQ(parse(&r, "permit proto udp dport 0"), 0);
    CHECK(r.dport_lo == 0 && r.dport_hi == 0);
    CHECK_EQ(parse(&r, "permit proto udp dport 65535"), 0);
    CHECK(r.dport_lo == 65535 && r.dport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto tcp sport 7-7"), 0);
    CHECK(r.sport_lo == 7 && r.sport_hi == 7);
    CHECK_EQ(parse(&r, "permit proto tcp sport 0-65535"), 0); /* the whole range: any */
    CHECK(r.sport_lo == 0 && r.sport_hi == 65535);
    CHECK_EQ(parse(&r, "permit proto 6 dport 22"), 0); /* tcp by number */
    CHECK(r.proto == 6 && r.dport_lo == 22);
    CHECK_EQ(parse(&r, "permit proto 17 sport 53"), 0);
    CHECK(r.proto == 17 && r.sport_lo == 53);
}

TEST(acl_rule_parse_bad_lines)
{
    const char *bad[] = {
        "",                                           /* no action */
        "allow",                                      /* unknown action */
        "permit frob 1",                              /* unknown word */
        "permit permit",                              /* the action twice */
        "permit dport 80",                            /* ports without tcp or udp */
        "permit sport 1-2",
        "permit proto icmp dport 80",
        "permit proto 47 sport 1",
        "permit proto icmp6 sport 1",
        "permit src 10.0.0.0/8 dst 2001:db8::/32",    /* two families */
        "permit src 2001:db8::/32 dst 10.0.0.1",
        "permit proto icmp src 2001:db8::/32",        /* icmp is IPv4's */
        "permit proto icmp dst 2001:db8::1",
        "permit proto icmp6 dst 10.0.0.1",            /* icmp6 is IPv6's */
        "permit proto icmp6 src 10.0.0.0/8",
        "permit proto tcp dport 90-80",               /* lo > hi */
        "permit proto tcp sport 2-1",
        "permit proto tcp dport 65536",               /* past 65535 */
        "permit proto udp sport 1-65536",
        "permit proto udp dport 99999999999",
        "permit proto tcp dport -80",
        "permit proto tcp dport 80-",
        "permit proto tcp dport 8o",
        "permit proto tcp dport 1--2",
        "permit proto tcp proto udp",                 /* a word twice */
        "permit proto tcp proto tcp",
        "permit src 10.0.0.0/8 src 11.0.0.0/8",
        "permit dst 10.0.0.1 dst 10.0.0.1",
        "permit proto tcp dport 1 dport 2",
        "permit proto tcp sport 1 sport 1",
        "permit src",                                 /* a word without its value */
        "permit dst",
        "permit proto",
        "permit proto tcp dport",
        "permit proto udp sport",
        "permit proto xyz",                           /* bad values */
        "permit proto 256",
        "permit proto -1",
        "permit src 10.0.0",
        "permit src 10.0.0.0/33",
        "permit src 10.0.0.0/",
        "permit src 10.0.0.256",
        "permit src 2001:db8::/129",
        "permit dst 2001:db8:::1",
        "permit dst any",
        "deny proto tcp src 10.0.0.0/8 dst 2001:db8::1 dport 1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct acl_rule r;
        int rc = parse(&r, bad[i]);
        if (rc != -1)
            fprintf(stderr, "  \"%s\" taken\n", bad[i]);
        CHECK_EQ(rc, -1);
        if (rc == -1 && last_err[0] == 0)
            fprintf(stderr, "  \"%s\": no message\n", bad[i]);
        CHECK(rc != -1 || last_err[0] != 0);
    }
}

/* Host bits past the length: the rule stores the prefix masked (or the
 * line is refused). Either way what is stored never has them. */
TEST(acl_rule_parse_host_bits)
{
    struct acl_rule r;
    static const struct {
        const char *line;
        bool dst;
    } lines[] = {{"permit src 10.1.2.3/8", false},         {"permit dst 192.168.255.255/17", true},
                 {"permit src 2001:db8::1/32", false},     {"permit dst 2001:db8:ffff:ffff::/33", true},
                 {"permit src 1.2.3.4/0", false},          {"permit proto tcp dst ::1/127 dport 9", true}};
    int taken = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (parse(&r, lines[i].line) != 0)
            continue;
        taken++;
        const uint8_t *a = lines[i].dst ? r.dst : r.src;
        uint8_t len = lines[i].dst ? r.dst_len : r.src_len;
        for (uint32_t bit = len; bit < 128; bit++)
            if ((a[bit / 8] >> (7 - bit % 8)) & 1) {
                fprintf(stderr, "  \"%s\": bit %u set past /%u\n", lines[i].line, bit, len);
                CHECK(0);
                break;
            }
    }
    /* The two behaviours must not mix: all taken or none. */
    CHECK(taken == 0 || taken == (int)(sizeof lines / sizeof lines[0]));
    if (taken) {
        CHECK_EQ(parse(&r, "permit src 10.1.2.3/8"), 0);
        struct acl_rule m;
        CHECK_EQ(parse(&m, "permit src 10.0.0.0/8"), 0);
        CHECK(rule_eq(&r, &m));
        CHECK_EQ(parse(&r, "permit dst 2001:db8:ffff:ffff::/33"), 0);
        CHECK_EQ(parse(&m, "permit dst 2001:db8:8000::/33"), 0);
        CHECK(rule_eq(&r, &m));
    }
    /* The unused bytes of an IPv4 rule's addresses are zero too. */
    CHECK_EQ(parse(&r, "permit src 10.1.2.3 dst 10.4.5.6"), 0);
    for (int i = 4; i < 16; i++)
        CHECK(r.src[i] == 0 && r.dst[i] == 0);
}

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

static void mask(uint8_t *a, uint32_t len, uint32_t alen)
{
    for (uint32_t bit = len; bit < alen * 8; bit++)
        a[bit / 8] &= (uint8_t)~(1u << (7 - bit % 8));
    for (uint32_t i = alen; i < 16; i++)
        a[i] = 0;
}

/* A random address near an anchor: a few of its bits flipped. */
static void near_anchor(uint8_t *a, bool v6)
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
static uint8_t random_len(bool v6)
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

static void random_range(uint16_t *lo, uint16_t *hi)
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
static struct acl_rule random_rule(void)
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

static void add_to(uint8_t *a, uint32_t alen, int delta)
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
static void edge_addr(uint8_t *a, const uint8_t *net, uint8_t len, uint32_t alen)
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

static uint16_t edge_port(uint16_t lo, uint16_t hi)
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
static struct acl_key random_key(const struct acl_rule *rules, uint32_t n)
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

static void key_print(const struct acl_key *k)
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

/* Lines that parse, format and parse back to the same rule; random rules
 * through format and parse come back the same. */
TEST(acl_rule_format_round_trip)
{
    const char *lines[] = {
        "permit",
        "deny",
        "permit proto tcp",
        "deny proto udp",
        "permit proto icmp",
        "permit proto icmp6",
        "deny proto 47",
        "deny proto 0",
        "deny src 10.0.0.0/8",
        "permit dst 192.0.2.7",
        "permit src 198.51.100.0/24 dst 203.0.113.128/25",
        "permit src 2001:db8::/32",
        "deny dst 2001:db8::1",
        "permit src fe80::/10 dst ff02::1",
        "permit proto tcp dport 80",
        "permit proto udp sport 1024-65535 dport 53",
        "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139",
        "permit proto tcp dst 2001:db8::80 dport 443",
        "permit proto udp dport 0",
        "permit proto udp dport 65535",
        "permit proto icmp src 0.0.0.0/1",
        "permit proto icmp6 dst ::/1",
        "permit src 255.255.255.255 dst 0.0.0.0/32",
        "permit src ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff dst ::",
        "deny proto 6 src 2001:db8:0:1::/64 dport 1-2",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct acl_rule r, back;
        char buf[256];
        CHECK_EQ(parse(&r, lines[i]), 0);
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        CHECK_EQ(rc, 0);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\" formats as \"%s\" (%s)\n", lines[i], buf, last_err);
            CHECK(0);
        }
    }
    rng_state = 11;
    for (int i = 0; i < 5000; i++) {
        struct acl_rule r = random_rule(), back;
        char buf[256];
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\": %s\n", buf, rc ? last_err : "parsed back differently");
            rule_print("rule", &r);
            if (rc == 0)
                rule_print("back", &back);
            CHECK(0);
            break;
        }
    }
    /* A buffer too short is cut, terminated, and not overrun. */
    struct acl_rule r;
    CHECK_EQ(parse(&r, "deny proto tcp src 10.1.2.0/24 dst 10.9.0.0/16 sport 0-1023 dport 135-139"), 0);
    char small[12];
    memset(small, 'x', sizeof small);
    acl_rule_format(&r, small, 8);
    CHECK(memchr(small, 0, 8) != NULL);
    CHECK(small[8] == 'x' && small[11] == 'x');
}

/* What the words say of the family survives format and parse: ICMP by
 * number, and a /0 prefix, which says "this family, any address". */
TEST(acl_rule_format_keeps_the_family)
{
    const char *lines[] = {
        "permit proto 1",
        "deny proto 58",
        "permit proto 1 src 2001:db8::/32",
        "permit proto 58 dst 10.0.0.0/8",
        "permit src 0.0.0.0/0",
        "deny dst ::/0",
        "permit proto tcp src 0.0.0.0/0 dport 80",
        "deny proto udp src ::/0 dst ::/0",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct acl_rule r, back;
        char buf[256];
        if (parse(&r, lines[i]) != 0)
            continue; /* refusing the line is consistent too */
        acl_rule_format(&r, buf, sizeof buf);
        int rc = parse(&back, buf);
        if (rc != 0 || !rule_eq(&r, &back)) {
            fprintf(stderr, "  \"%s\" (family %u) formats as \"%s\": %s\n", lines[i], r.family, buf,
                    rc ? last_err : "");
            if (rc == 0)
                rule_print("parsed back", &back);
            CHECK(0);
        }
    }
}

/* ---- keys from the wire ------------------------------------------------- */

/* acl_key4 and acl_key6 on a copy of exactly len bytes: a read past them is
 * ASan's to see. */
static void key4(struct acl_key *k, const uint8_t *b, uint32_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, b, len);
    acl_key4(k, copy, len);
    free(copy);
}

static void key6(struct acl_key *k, const uint8_t *b, uint32_t len)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, b, len);
    acl_key6(k, copy, len);
    free(copy);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* An IPv4 header (ihl words, options NOPs) then l4 bytes; returns the
 * length. frag: the flags and offset field, host order. */
static uint32_t v4(uint8_t *b, uint8_t ihl, uint8_t proto, uint16_t frag, const uint8_t *l4, uint32_t l4len)
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
static uint32_t l4hdr(uint8_t *b, uint8_t proto, uint16_t sport, uint16_t dport)
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

TEST(acl_key4_from_the_wire)
{
    uint8_t b[128], l4[64];
    struct acl_key k;
    const uint8_t src[4] = {192, 0, 2, 10}, dst[4] = {198, 51, 100, 20};

    uint32_t n = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 40000, 443));
    memset(&k, 0xee, sizeof k);
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 6 && k.has_ports && k.sport == 40000 && k.dport == 443);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));

    n = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 5353, 53));
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 17 && k.has_ports && k.sport == 5353 && k.dport == 53);

    /* Options before UDP: the ports are past them. */
    n = v4(b, 15, 17, 0, l4, l4hdr(l4, 17, 1, 65535));
    key4(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 1 && k.dport == 65535);

    /* ICMP, other protocols: no ports, whatever follows. */
    memset(l4, 0x55, 8);
    l4[0] = 8;
    n = v4(b, 5, 1, 0, l4, 8);
    key4(&k, b, n);
    CHECK(k.family == ACL_V4 && k.proto == 1 && !k.has_ports);
    n = v4(b, 5, 47, 0, l4, 8);
    key4(&k, b, n);
    CHECK(k.proto == 47 && !k.has_ports);

    /* Fragments: the first (MF, offset 0) has the ports, a later one
     * (with MF or not) has none. */
    n = v4(b, 5, 17, 0x2000, l4, l4hdr(l4, 17, 1000, 2000));
    key4(&k, b, n);
    CHECK(k.has_ports && k.sport == 1000 && k.dport == 2000);
    n = v4(b, 5, 17, 0x4000, l4, l4hdr(l4, 17, 1000, 2000)); /* DF alone: not a fragment */
    key4(&k, b, n);
    CHECK(k.has_ports && k.sport == 1000);
    n = v4(b, 5, 17, 0x2000 | 185, l4, l4hdr(l4, 17, 1000, 2000));
    key4(&k, b, n);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v4(b, 5, 6, 1, l4, l4hdr(l4, 6, 1000, 2000)); /* last fragment, offset 8 bytes */
    key4(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));

    /* Truncated: nothing past the header, or less than the two ports. */
    n = v4(b, 5, 6, 0, l4, 0);
    key4(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);
    n = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 7, 9));
    key4(&k, b, 20 + 3);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v4(b, 6, 6, 0, l4, l4hdr(l4, 6, 7, 9));
    key4(&k, b, 24 + 2);
    CHECK(!k.has_ports);
    CHECK(!memcmp(k.src, src, 4) && !memcmp(k.dst, dst, 4));
}

/* An IPv6 header, next header nh, from 2001:db8::a to 2001:db8:1::14. */
static uint32_t v6(uint8_t *b, uint8_t nh, uint32_t plen)
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
static uint32_t ext(uint8_t *b, uint8_t next, uint8_t units)
{
    uint32_t n = 8u * (1u + units);
    memset(b, 0, n);
    b[0] = next;
    b[1] = units;
    b[2] = 1; /* PadN */
    b[3] = (uint8_t)(n - 4);
    return n;
}

static uint32_t frag6(uint8_t *b, uint8_t next, uint16_t off8, bool more)
{
    memset(b, 0, 8);
    b[0] = next;
    put16(b + 2, (uint16_t)(off8 << 3 | (more ? 1 : 0)));
    b[4] = 0xde, b[5] = 0xad, b[6] = 0xbe, b[7] = 0xef;
    return 8;
}

TEST(acl_key6_from_the_wire)
{
    uint8_t b[512];
    struct acl_key k;
    const uint8_t src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 0x0a}, dst[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 1, [15] = 0x14};

    uint32_t n = v6(b, 6, 20);
    n += l4hdr(b + n, 6, 50000, 22);
    memset(&k, 0xee, sizeof k);
    key6(&k, b, n);
    CHECK(k.family == ACL_V6 && k.proto == 6 && k.has_ports && k.sport == 50000 && k.dport == 22);
    CHECK(!memcmp(k.src, src, 16) && !memcmp(k.dst, dst, 16));

    n = v6(b, 17, 8);
    n += l4hdr(b + n, 17, 546, 547);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 546 && k.dport == 547);

    n = v6(b, 58, 8);
    memset(b + n, 0, 8);
    b[n] = 128;
    n += 8;
    key6(&k, b, n);
    CHECK(k.family == ACL_V6 && k.proto == 58 && !k.has_ports);

    /* Hop-by-hop, then destination options (16 bytes), then TCP. */
    n = v6(b, 0, 8 + 16 + 20);
    n += ext(b + n, 60, 0);
    n += ext(b + n, 6, 1);
    n += l4hdr(b + n, 6, 1234, 80);
    key6(&k, b, n);
    CHECK(k.proto == 6 && k.has_ports && k.sport == 1234 && k.dport == 80);
    CHECK(!memcmp(k.src, src, 16) && !memcmp(k.dst, dst, 16));

    /* Hop-by-hop, routing, destination options, then UDP. */
    n = v6(b, 0, 8 + 24 + 8 + 8);
    n += ext(b + n, 43, 0);
    n += ext(b + n, 60, 2);
    n += ext(b + n, 17, 0);
    n += l4hdr(b + n, 17, 9, 10);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 9 && k.dport == 10);

    /* A fragment header: offset 0 (M set) has the ports, a later one none. */
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 0, true);
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 4000 && k.dport == 5000);
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 0, false); /* an atomic fragment (RFC 6946) */
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && k.has_ports && k.sport == 4000);
    n = v6(b, 44, 8 + 8);
    n += frag6(b + n, 17, 181, true);
    n += l4hdr(b + n, 17, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 17 && !k.has_ports);
    n = v6(b, 0, 8 + 8 + 20);
    n += ext(b + n, 44, 0);
    n += frag6(b + n, 6, 1, false);
    n += l4hdr(b + n, 6, 4000, 5000);
    key6(&k, b, n);
    CHECK(k.proto == 6 && !k.has_ports);

    /* Truncated: the TCP header cut before its ports. */
    n = v6(b, 0, 8 + 20);
    n += ext(b + n, 6, 0);
    n += l4hdr(b + n, 6, 1234, 80);
    key6(&k, b, 48 + 3);
    CHECK(k.proto == 6 && !k.has_ports);
    key6(&k, b, 48);
    CHECK(k.proto == 6 && !k.has_ports);
    key6(&k, b, 40);
    CHECK(k.family == ACL_V6 && !k.has_ports && !memcmp(k.src, src, 16));
}

/* A walk past the 8 extension headers it takes, or into one cut short,
 * never reads past len nor claims ports it did not see. */
TEST(acl_key6_long_or_cut_chains)
{
    uint8_t b[512];
    struct acl_key k;
    for (uint32_t hdrs = 1; hdrs <= 12; hdrs++) {
        uint32_t n = v6(b, 60, 0);
        for (uint32_t i = 0; i < hdrs; i++)
            n += ext(b + n, i + 1 < hdrs ? 60 : 17, 0);
        n += l4hdr(b + n, 17, 111, 222);
        put16(b + 4, (uint16_t)(n - 40));
        for (uint32_t cut = 40; cut <= n; cut++) {
            key6(&k, b, cut); /* exactly cut bytes: ASan sees a read past */
            CHECK(k.family == ACL_V6);
            if (k.has_ports) {
                CHECK(cut >= n - 8 + 4 && k.proto == 17 && k.sport == 111 && k.dport == 222);
                CHECK(hdrs <= 8);
            }
        }
        key6(&k, b, n);
        CHECK_EQ(k.has_ports, hdrs <= 8);
    }
}

/* ---- the classifier ----------------------------------------------------- */

/* Build rules[0..n), check acl_rule_at and the rest, then nkeys random keys:
 * acl_classify equals the linear first match, acl_rule_matches the model,
 * acl_permits the rule's. Returns the failures. */
static int differential(const struct acl_rule *rules, uint32_t n, uint32_t nkeys, const char *what)
{
    char err[128] = "";
    struct acl *a = acl_build("diff", rules, n, &plain_mem, err, sizeof err);
    if (a == NULL) {
        fprintf(stderr, "  %s: acl_build: %s\n", what, err);
        return 1;
    }
    int bad = 0;
    if (acl_nrules(a) != n || strcmp(acl_name(a), "diff") != 0)
        bad++;
    for (uint32_t i = 0; i < n; i++)
        if (!rule_eq(acl_rule_at(a, i), &rules[i]))
            bad++;
    if (acl_permits(a, n))
        bad++;
    uint32_t *hits = calloc(n + 1, sizeof(uint32_t));
    for (uint32_t j = 0; j < nkeys && bad < 5; j++) {
        struct acl_key k = random_key(rules, n);
        uint32_t want = linear(rules, n, &k), got = acl_classify(a, &k);
        for (uint32_t i = 0; i < n; i++)
            if (acl_rule_matches(&rules[i], &k) != model_matches(&rules[i], &k)) {
                fprintf(stderr, "  %s: acl_rule_matches says %d\n", what, acl_rule_matches(&rules[i], &k));
                rule_print("rule", &rules[i]);
                key_print(&k);
                bad++;
                break;
            }
        if (got != want) {
            fprintf(stderr, "  %s: key %u: acl_classify %u, first match %u\n", what, j, got, want);
            key_print(&k);
            if (want < n)
                rule_print("first match", &rules[want]);
            if (got < n)
                rule_print("classify's", &rules[got]);
            bad++;
        }
        if (acl_permits(a, got) != (got < n && rules[got].permit))
            bad++;
        hits[want]++;
    }
    /* The keys must reach the rules, not only the implicit deny
     * (ACL_STATS=1 in the environment prints how many did). */
    uint32_t reached = 0;
    for (uint32_t i = 0; i < n; i++)
        reached += hits[i] != 0;
    if (getenv("ACL_STATS"))
        fprintf(stderr, "  %s: %u of %u rules decided\n", what, reached, n);
    if (n >= 5 && reached < (n < 50 ? 2 : n / 20)) {
        fprintf(stderr, "  %s: only %u of %u rules ever decided\n", what, reached, n);
        bad++;
    }
    free(hits);
    acl_free(a, &plain_mem);
    return bad;
}

/* rules[0..n) at random, the same for the same seed. */
static void random_list(struct acl_rule *rules, uint32_t n, uint64_t seed)
{
    rng_state = seed;
    for (uint32_t i = 0; i < n; i++)
        rules[i] = random_rule();
}

TEST(acl_classify_equals_first_match_on_random_lists)
{
    static const uint32_t sizes[] = {1, 5, 50, 64, 65, 200, 1000, ACL_RULES_MAX};
    static struct acl_rule rules[ACL_RULES_MAX];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 4; seed++) {
            uint32_t n = sizes[si];
            random_list(rules, n, seed * 1000003u + n);
            if (seed == 2) /* a catch-all part way: everything after it unreachable */
                rules[n / 2] = any_rule(true);
            if (seed == 3) /* one family only */
                for (uint32_t i = 0; i < n; i++)
                    while (rules[i].family != ACL_V6)
                        rules[i] = random_rule();
            char what[64];
            snprintf(what, sizeof what, "%u rules, seed %llu", n, (unsigned long long)seed);
            int bad = differential(rules, n, n >= 1000 ? 8000 : 20000, what);
            CHECK_EQ(bad, 0);
        }
}

/* Rules built to cut the fields at every kind of boundary: nested
 * prefixes of every length along one address, port ranges that touch. */
TEST(acl_classify_nested_prefixes_and_touching_ranges)
{
    static struct acl_rule rules[400];
    uint32_t n = 0;
    const uint8_t base4[4] = {10, 20, 30, 40};
    const uint8_t base6[16] = {0x20, 0x01, 0x0d, 0xb8, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4};
    for (int len = 32; len >= 1; len--) {
        struct acl_rule r = any_rule(len & 1);
        memcpy(r.src, base4, 4);
        r.src_len = (uint8_t)len;
        mask(r.src, (uint32_t)len, 4);
        r.family = ACL_V4;
        rules[n++] = r;
        memcpy(r.dst, r.src, 16);
        r.dst_len = r.src_len;
        r.src_len = 0;
        memset(r.src, 0, 16);
        rules[n++] = r;
    }
    for (int len = 128; len >= 1; len -= 3) {
        struct acl_rule r = any_rule(len & 1);
        memcpy(r.dst, base6, 16);
        r.dst_len = (uint8_t)len;
        mask(r.dst, (uint32_t)len, 16);
        r.family = ACL_V6;
        rules[n++] = r;
    }
    for (uint32_t lo = 0; lo < 65536 && n < 380; lo += 1000) {
        struct acl_rule r = any_rule(lo & 1000);
        r.proto = (lo / 1000) & 1 ? 6 : 17;
        r.dport_lo = (uint16_t)lo;
        r.dport_hi = (uint16_t)(lo + 999 > 65535 ? 65535 : lo + 999);
        r.sport_lo = (uint16_t)(lo / 2);
        r.sport_hi = 65535;
        rules[n++] = r;
    }
    rng_state = 77;
    CHECK_EQ(differential(rules, n, 50000, "nested"), 0);
    /* The same reversed: the widest first, the narrow ones unreachable. */
    for (uint32_t i = 0; i < n / 2; i++) {
        struct acl_rule t = rules[i];
        rules[i] = rules[n - 1 - i];
        rules[n - 1 - i] = t;
    }
    CHECK_EQ(differential(rules, n, 50000, "nested, reversed"), 0);
}

/* Keys read from wire bytes decide as the rules say. */
TEST(acl_classify_wire_datagrams)
{
    const char *lines[] = {
        "deny src 192.0.2.0/24 proto tcp dport 23",
        "permit proto tcp dport 443",
        "deny proto udp dst 198.51.100.0/24 dport 5000-5999",
        "permit proto icmp",
        "permit proto icmp6",
        "permit proto udp src 2001:db8::/32 sport 4000",
        "deny proto udp",
    };
    struct acl_rule rules[8];
    uint32_t n = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        CHECK_EQ(parse(&rules[n++], lines[i]), 0);
    char err[128];
    struct acl *a = acl_build("edge", rules, n, &plain_mem, err, sizeof err);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    uint8_t b[256], l4[64];
    struct acl_key k;
    key4(&k, b, v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 23)));
    CHECK_EQ(acl_classify(a, &k), 0);
    key4(&k, b, v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 443)));
    CHECK_EQ(acl_classify(a, &k), 1);
    CHECK(acl_permits(a, 1));
    key4(&k, b, v4(b, 5, 6, 0x2000 | 3, l4, l4hdr(l4, 6, 1000, 443))); /* a later fragment: no ports */
    CHECK_EQ(acl_classify(a, &k), n);
    key4(&k, b, v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1, 5999)));
    CHECK_EQ(acl_classify(a, &k), 2);
    key4(&k, b, v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1, 6000)));
    CHECK_EQ(acl_classify(a, &k), 6);
    CHECK(!acl_permits(a, 6));
    key4(&k, b, v4(b, 5, 1, 0, l4, 8));
    CHECK_EQ(acl_classify(a, &k), 3);
    uint32_t m = v6(b, 58, 8);
    memset(b + m, 0, 8);
    key6(&k, b, m + 8);
    CHECK_EQ(acl_classify(a, &k), 4);
    m = v6(b, 0, 8 + 8 + 8);
    m += ext(b + m, 44, 0);
    m += frag6(b + m, 17, 0, true);
    m += l4hdr(b + m, 17, 4000, 53);
    key6(&k, b, m);
    CHECK_EQ(acl_classify(a, &k), 5);
    acl_free(a, &plain_mem);
}

/* The IPv4 datagram of key k (family ACL_V4) on the wire: a plain
 * 20-byte header, then its ports when it has them, else (for TCP or UDP)
 * a datagram too short for them; 24 bytes always readable after b. */
static uint32_t wire4(uint8_t *b, const struct acl_key *k)
{
    memset(b, 0, 64);
    uint32_t len = k->has_ports ? 28 : 20 + rnd_below(4);
    b[0] = 0x45;
    put16(b + 2, (uint16_t)len);
    b[8] = 64;
    b[9] = k->proto;
    memcpy(b + 12, k->src, 4);
    memcpy(b + 16, k->dst, 4);
    if (k->has_ports) {
        put16(b + 20, k->sport);
        put16(b + 22, k->dport);
    } else {
        for (uint32_t i = len; i < 24; i++)
            b[i] = (uint8_t)rnd(); /* what lies past a short datagram: not ports */
    }
    return len;
}

/* The inline IPv4 classifier (acl_fast4_bits, acl_use_count4) against the
 * linear first match on random lists of up to 63 rules: each datagram's
 * rule, and bursts of one rule and of many counted and decided as
 * acl_use_pass4 does one at a time. */
TEST(acl_fast4_equals_first_match)
{
    static const uint32_t sizes[] = {1, 7, 40, 63};
    static struct acl_rule rules[63];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint32_t n = sizes[si];
            random_list(rules, n, seed * 7919u + n);
            char err[128];
            struct acl *a = acl_build("fast4", rules, n, &plain_mem, err, sizeof err);
            CHECK(a != NULL);
            if (a == NULL)
                continue;
            const struct acl_fast4 *t = acl_fast4(a);
            uint32_t n4 = 0, idx4[63]; /* bit j: the list's j-th IPv4 rule */
            for (uint32_t i = 0; i < n; i++)
                if (rules[i].family & ACL_V4)
                    idx4[n4++] = i;
            CHECK_EQ(t == NULL, n4 == 0);
            if (t == NULL) {
                acl_free(a, &plain_mem);
                continue;
            }
            uint64_t *hits = calloc(n + 1, 8), *want_hits = calloc(n + 1, 8);
            struct acl_use u = {a, hits}, w = {a, want_hits};
            static uint8_t b[64][64];
            uint64_t m[64];
            for (int burst = 0; burst < 200; burst++) {
                uint32_t len[64], cnt = 1 + rnd_below(64);
                bool same = burst & 1; /* every datagram the first: one rule throughout */
                uint64_t want_deny = 0;
                for (uint32_t i = 0; i < cnt; i++) {
                    struct acl_key k;
                    do
                        k = random_key(rules, n);
                    while (k.family != ACL_V4);
                    if (same && i > 0) {
                        memcpy(b[i], b[0], 64);
                        len[i] = len[0];
                    } else {
                        len[i] = wire4(b[i], &k);
                    }
                    struct acl_key wk;
                    acl_key4(&wk, b[i], len[i]);
                    uint32_t want = linear(rules, n, &wk);
                    m[i] = acl_fast4_bits(t, b[i]);
                    uint32_t bit = (uint32_t)__builtin_ctzll(m[i] | 1ull << 63);
                    CHECK_EQ(bit < 63 ? idx4[bit] : n, want);
                    CHECK_EQ(acl_classify4(a, b[i], len[i]), want);
                    want_deny |= (uint64_t)!acl_use_pass4(&w, b[i], len[i]) << i;
                }
                CHECK_EQ(acl_use_count4(&u, m, cnt), want_deny);
            }
            CHECK_EQ(memcmp(hits, want_hits, (n + 1) * 8), 0);
            free(hits);
            free(want_hits);
            acl_free(a, &plain_mem);
        }
}

/* An empty list denies everything (the implicit rule alone). */
TEST(acl_build_empty_list)
{
    char err[128] = "";
    struct acl *a = acl_build("none", NULL, 0, &plain_mem, err, sizeof err);
    if (a == NULL) { /* refusing it is fine too, with a message */
        CHECK(err[0] != 0);
        return;
    }
    CHECK_EQ(acl_nrules(a), 0);
    CHECK(!acl_permits(a, 0));
    rng_state = 5;
    struct acl_rule any = any_rule(true);
    for (int i = 0; i < 1000; i++) {
        struct acl_key k = random_key(&any, 1);
        CHECK_EQ(acl_classify(a, &k), 0);
    }
    acl_free(a, &plain_mem);
}

/* ---- counting ----------------------------------------------------------- */

TEST(acl_use_pass_counts_hits)
{
    struct acl_rule rules[3];
    CHECK_EQ(parse(&rules[0], "deny proto tcp dport 23"), 0);
    CHECK_EQ(parse(&rules[1], "permit proto tcp"), 0);
    CHECK_EQ(parse(&rules[2], "permit proto udp src 10.0.0.0/8"), 0);
    char err[128];
    struct acl *a = acl_build("count", rules, 3, &plain_mem, err, sizeof err);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    uint64_t hits[4] = {0};
    struct acl_use u = {a, hits};
    uint8_t b[256], l4[64];
    uint32_t telnet = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 23));
    for (int i = 0; i < 3; i++)
        CHECK(!acl_use_pass4(&u, b, telnet));
    uint32_t web = v4(b, 5, 6, 0, l4, l4hdr(l4, 6, 1000, 80));
    for (int i = 0; i < 5; i++)
        CHECK(acl_use_pass4(&u, b, web));
    uint32_t udp = v4(b, 5, 17, 0, l4, l4hdr(l4, 17, 1000, 80)); /* from 192.0.2.10: none matches */
    for (int i = 0; i < 7; i++)
        CHECK(!acl_use_pass4(&u, b, udp));
    uint32_t tcp6 = v6(b, 6, 20);
    tcp6 += l4hdr(b + tcp6, 6, 5, 80);
    struct acl_key k6;
    acl_key6(&k6, b, tcp6);
    CHECK(acl_use_pass(&u, &k6));
    CHECK(hits[0] == 3 && hits[1] == 6 && hits[2] == 0 && hits[3] == 7);
    struct acl_key k;
    memset(&k, 0, sizeof k);
    k.family = ACL_V4;
    k.proto = 17;
    k.src[0] = 10;
    CHECK(acl_use_pass(&u, &k));
    CHECK_EQ(hits[2], 1);
    acl_free(a, &plain_mem);
}

/* ---- limits and memory -------------------------------------------------- */

TEST(acl_build_too_many_rules)
{
    static struct acl_rule rules[ACL_RULES_MAX + 1];
    for (uint32_t i = 0; i <= ACL_RULES_MAX; i++)
        rules[i] = any_rule(i & 1);
    struct mem_track t;
    struct acl_mem m = track_mem(&t);
    char err[128] = "";
    CHECK(acl_build("big", rules, ACL_RULES_MAX + 1, &m, err, sizeof err) == NULL);
    CHECK(err[0] != 0);
    CHECK_EQ(t.live_bytes, 0);
    CHECK(acl_build("huge", rules, UINT32_MAX, &m, err, sizeof err) == NULL);
    CHECK_EQ(t.live_bytes, 0);
    /* The most it takes builds. */
    struct acl *a = acl_build("max", rules, ACL_RULES_MAX, &m, err, sizeof err);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(acl_nrules(a), ACL_RULES_MAX);
        acl_free(a, &m);
    }
    CHECK_EQ(t.live_bytes, 0);
    CHECK_EQ(t.bad_free, 0);
    track_done(&t);
}

/* A long name is cut, not overrun. */
TEST(acl_build_long_name)
{
    char name[ACL_NAME_MAX * 3], err[128];
    memset(name, 'n', sizeof name - 1);
    name[sizeof name - 1] = 0;
    struct acl_rule r = any_rule(true);
    struct acl *a = acl_build(name, &r, 1, &plain_mem, err, sizeof err);
    if (a == NULL) {
        CHECK(err[0] != 0);
        return;
    }
    CHECK(strlen(acl_name(a)) < ACL_NAME_MAX);
    CHECK(strncmp(acl_name(a), name, strlen(acl_name(a))) == 0);
    acl_free(a, &plain_mem);
}

/* Every allocation refused in turn (and all after it, or only that one):
 * NULL with a message and nothing left allocated. Then a build that
 * succeeds: acl_free gives back exactly the blocks acl_build took, with
 * their sizes, and acl_bytes is within them. */
TEST(acl_build_memory_exact)
{
    static struct acl_rule rules[300];
    rng_state = 99;
    for (uint32_t i = 0; i < 300; i++)
        rules[i] = random_rule();
    const uint32_t sizes[] = {1, 64, 65, 300};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        uint32_t n = sizes[si];
        struct mem_track t;
        struct acl_mem m = track_mem(&t);
        char err[128] = "";
        struct acl *a = acl_build("mem", rules, n, &m, err, sizeof err);
        CHECK(a != NULL);
        if (a == NULL) {
            track_done(&t);
            continue;
        }
        uint32_t calls = t.calls;
        size_t taken = t.alloc_bytes, kept = t.live_bytes; /* scratch already back */
        CHECK(calls >= 1);
        CHECK_EQ(t.misaligned, 0);
        CHECK(acl_bytes(a) > 0 && acl_bytes(a) <= kept && kept - acl_bytes(a) <= 4096);
        acl_free(a, &m);
        CHECK_EQ(t.live_bytes, 0);
        CHECK_EQ(t.freed_bytes, taken);
        CHECK_EQ(t.nblk, 0);
        CHECK_EQ(t.bad_free, 0);
        track_done(&t);
        /* The same list again takes the same. */
        m = track_mem(&t);
        a = acl_build("mem", rules, n, &m, err, sizeof err);
        CHECK(a != NULL && t.calls == calls && t.alloc_bytes == taken);
        if (a)
            acl_free(a, &m);
        CHECK_EQ(t.live_bytes, 0);
        track_done(&t);
        for (uint32_t fail = 0; fail < calls; fail++)
            for (int only = 0; only < 2; only++) {
                m = track_mem(&t);
                if (only)
                    t.fail_only = fail;
                else
                    t.fail_from = fail;
                err[0] = 0;
                a = acl_build("mem", rules, n, &m, err, sizeof err);
                CHECK(a == NULL);
                if (a)
                    acl_free(a, &m);
                CHECK(err[0] != 0);
                CHECK_EQ(t.refused >= 1, 1);
                CHECK_EQ(t.live_bytes, 0);
                CHECK_EQ(t.nblk, 0);
                CHECK_EQ(t.bad_free, 0);
                track_done(&t);
            }
    }
}
