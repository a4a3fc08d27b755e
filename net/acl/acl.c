/* SPDX-License-Identifier: MIT */
/* net/acl/acl.c: access-list rules, the datagram's key, and the compiled
 * bit-vector classifier (net/acl/acl.h has the design). */
#include "acl.h"

#include "core/env.h"
#include "core/pkt.h"
#include "core/text.h"
#include "core/wire.h"
#include "route/route4.h"
#include "route/route6.h"

typedef unsigned __int128 u128;

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, FIELDS };

#define CHILD 0x8000u     /* a table entry: a child node's index, else a class */
#define ENTRY_MAX 0x7fffu /* nodes and classes a field may have */
#define ALLOCS 64

/* One field of one family: its value as bytes (proto 1, ports 2, IPv4 4,
 * IPv6 16) walks root[first one or two bytes], then a node a byte while
 * the entry is a child; the class's rules are bits[class * words ...]. */
struct field {
    uint16_t *root;
    uint16_t (*node)[256];
    uint64_t *bits;
    uint32_t nnodes, nclasses;
    /* At most 63 rules (words 1): the same tables with each class's
     * bitmap in the entry itself, a child as NODE64 | index: one load a
     * byte, none for the bitmap. */
    uint64_t *root64;
    uint64_t (*node64)[256];
};

#define NODE64 (1ull << 63)

struct table {
    uint32_t n;               /* rules of this family */
    uint32_t words;           /* bitmap words: (n + 63) / 64 */
    struct field f[FIELDS];
    uint64_t *ported;         /* rules that test ports */
    uint16_t *rule;           /* bit i: rule rule[i] of the list */
    /* At most 63 rules: the bitmap words in the tables' entries
     * (field.root64), and the permits as a word; bit 63 stands for no
     * match (the implicit deny: rule63 is the list's n, never permits). */
    uint64_t permit;
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

/* ---- Rules ------------------------------------------------------------ */


static void err_set(char *err, size_t errlen, const char *a, const char *b)
{
    size_t o = 0;
    for (const char *s = a; s && *s && o + 1 < errlen; s++)
        err[o++] = *s;
    for (const char *s = b; s && *s && o + 1 < errlen; s++)
        err[o++] = *s;
    if (errlen)
        err[o] = 0;
}

/* "A.B.C.D[/LEN]" or "X:X::X[/LEN]": the family's bit, 0 when bad. Host
 * bits are cleared. */
static uint8_t parse_prefix(const char *s, uint8_t *addr, uint8_t *len)
{
    size_t n = net_str_len(s), a = 0;
    while (a < n && s[a] != '/')
        a++;
    bool v6 = false;
    for (size_t i = 0; i < a; i++)
        v6 |= s[i] == ':';
    uint32_t l = v6 ? 128 : 32;
    if (a < n && !net_decimal(s + a + 1, n - a - 1, l, &l))
        return 0;
    net_memset(addr, 0, 16);
    uint32_t h = 0;
    if (v6 ? !route6_parse_addr(s, a, addr) : !route4_parse_addr(s, a, &h))
        return 0;
    if (!v6)
        addr[0] = (uint8_t)(h >> 24), addr[1] = (uint8_t)(h >> 16), addr[2] = (uint8_t)(h >> 8), addr[3] = (uint8_t)h;
    for (uint32_t i = l; i < 128; i++)
        addr[i / 8] &= (uint8_t)~(0x80u >> (i % 8));
    *len = (uint8_t)l;
    return v6 ? ACL_V6 : ACL_V4;
}

/* "N" or "N-M", N <= M. */
static bool parse_range(const char *s, uint16_t *lo, uint16_t *hi)
{
    size_t n = net_str_len(s), d = 0;
    while (d < n && s[d] != '-')
        d++;
    uint32_t a, b;
    if (!net_decimal(s, d, 65535, &a))
        return false;
    b = a;
    if (d < n && !net_decimal(s + d + 1, n - d - 1, 65535, &b))
        return false;
    *lo = (uint16_t)a;
    *hi = (uint16_t)b;
    return a <= b;
}

static const struct {
    const char *name;
    uint8_t proto, family;
} protos[] = {
    {"tcp", IP4_PROTO_TCP, ACL_V4 | ACL_V6},
    {"udp", IP4_PROTO_UDP, ACL_V4 | ACL_V6},
    {"icmp", IP4_PROTO_ICMP, ACL_V4},
    {"icmp6", IP6_PROTO_ICMP6, ACL_V6},
};

int acl_rule_parse(struct acl_rule *r, int argc, char **argv, char *err, size_t errlen)
{
    net_memset(r, 0, sizeof(*r));
    r->family = ACL_V4 | ACL_V6;
    r->proto = -1;
    r->sport_hi = r->dport_hi = 65535;
    if (argc < 1 || !(net_str_eq(argv[0], "permit") || net_str_eq(argv[0], "deny"))) {
        err_set(err, errlen, "permit or deny first", NULL);
        return -1;
    }
    r->permit = net_str_eq(argv[0], "permit");
    unsigned seen = 0;
    static const char *const words[] = {"proto", "src", "dst", "sport", "dport"};
    for (int i = 1; i < argc; i += 2) {
        unsigned w = 0;
        while (w < 5 && !net_str_eq(argv[i], words[w]))
            w++;
        if (w == 5 || i + 1 >= argc || (seen >> w) & 1) {
            err_set(err, errlen, w == 5 ? "unknown word " : (seen >> w) & 1 ? "twice: " : "no value for ", argv[i]);
            return -1;
        }
        seen |= 1u << w;
        const char *v = argv[i + 1];
        uint8_t fam = ACL_V4 | ACL_V6;
        bool ok = true;
        if (w == 0) {
            uint32_t p;
            size_t k = 0;
            while (k < sizeof protos / sizeof protos[0] && !net_str_eq(v, protos[k].name))
                k++;
            if (k < sizeof protos / sizeof protos[0]) {
                r->proto = protos[k].proto;
                fam = protos[k].family;
            } else if ((ok = net_decimal(v, net_str_len(v), 255, &p))) {
                r->proto = (int16_t)p;
                fam = p == IP4_PROTO_ICMP ? ACL_V4 : p == IP6_PROTO_ICMP6 ? ACL_V6 : fam; /* as their names */
            }
        } else if (w == 1) {
            ok = (fam = parse_prefix(v, r->src, &r->src_len)) != 0;
        } else if (w == 2) {
            ok = (fam = parse_prefix(v, r->dst, &r->dst_len)) != 0;
        } else if (w == 3) {
            ok = parse_range(v, &r->sport_lo, &r->sport_hi);
        } else {
            ok = parse_range(v, &r->dport_lo, &r->dport_hi);
        }
        if (!ok) {
            err_set(err, errlen, "bad value: ", v);
            return -1;
        }
        if (!(r->family & fam)) {
            err_set(err, errlen, "IPv4 and IPv6 in one rule: ", v);
            return -1;
        }
        r->family &= fam;
    }
    if ((seen & (3u << 3)) && r->proto != IP4_PROTO_TCP && r->proto != IP4_PROTO_UDP) {
        err_set(err, errlen, "ports need proto tcp or udp", NULL);
        return -1;
    }
    return 0;
}

/* A bounded string writer for acl_rule_format. */
struct out {
    char *b;
    size_t n, o;
};

static void put(struct out *w, const char *s)
{
    for (; *s; s++)
        if (w->o + 1 < w->n)
            w->b[w->o++] = *s;
    if (w->n)
        w->b[w->o < w->n ? w->o : w->n - 1] = 0;
}

static void put_num(struct out *w, uint32_t v, unsigned base)
{
    char t[12];
    int i = 11;
    t[i] = 0;
    do {
        t[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    put(w, t + i);
}

/* RFC 5952 for IPv6 (the longest run of two or more zero groups as "::"). */
static void put_prefix(struct out *w, bool v6, const uint8_t *a, uint8_t len)
{
    if (!v6) {
        for (int i = 0; i < 4; i++) {
            put_num(w, a[i], 10);
            put(w, i < 3 ? "." : "");
        }
    } else {
        int best = -1, best_len = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && (a[2 * j] | a[2 * j + 1]) == 0)
                j++;
            if (j - i > best_len)
                best = i, best_len = j - i;
            i = j > i ? j : i + 1;
        }
        for (int i = 0; i < 8; i++) {
            if (i == best) {
                put(w, "::");
                i += best_len - 1;
                continue;
            }
            if (i && i != best + best_len)
                put(w, ":");
            put_num(w, (uint32_t)a[2 * i] << 8 | a[2 * i + 1], 16);
        }
    }
    put(w, "/");
    put_num(w, len, 10);
}

static void put_range(struct out *w, const char *word, uint16_t lo, uint16_t hi)
{
    if (lo == 0 && hi == 65535)
        return;
    put(w, word);
    put_num(w, lo, 10);
    if (hi != lo) {
        put(w, "-");
        put_num(w, hi, 10);
    }
}

void acl_rule_format(const struct acl_rule *r, char *buf, size_t n)
{
    struct out w = {buf, n, 0};
    put(&w, r->permit ? "permit" : "deny");
    if (r->proto >= 0) {
        put(&w, " proto ");
        size_t k = 0;
        while (k < sizeof protos / sizeof protos[0] && protos[k].proto != r->proto)
            k++;
        if (k < sizeof protos / sizeof protos[0])
            put(&w, protos[k].name);
        else
            put_num(&w, (uint32_t)r->proto, 10);
    }
    bool v6 = r->family == ACL_V6;
    bool proto_says = r->proto == IP4_PROTO_ICMP || r->proto == IP6_PROTO_ICMP6;
    if (r->src_len || (r->family != (ACL_V4 | ACL_V6) && !r->dst_len && !proto_says)) {
        /* A rule for one family with nothing else to say so: "src 0.0.0.0/0". */
        put(&w, " src ");
        put_prefix(&w, v6, r->src, r->src_len);
    }
    if (r->dst_len) {
        put(&w, " dst ");
        put_prefix(&w, v6, r->dst, r->dst_len);
    }
    put_range(&w, " sport ", r->sport_lo, r->sport_hi);
    put_range(&w, " dport ", r->dport_lo, r->dport_hi);
}

/* ---- A datagram's key ------------------------------------------------- */

static void ports_at(struct acl_key *k, const uint8_t *l4, uint32_t left)
{
    if ((k->proto == IP4_PROTO_TCP || k->proto == IP4_PROTO_UDP) && left >= 4) {
        k->has_ports = true;
        k->sport = (uint16_t)(l4[0] << 8 | l4[1]);
        k->dport = (uint16_t)(l4[2] << 8 | l4[3]);
    }
}

void acl_key4(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    net_memset(k, 0, sizeof(*k));
    k->family = ACL_V4;
    k->proto = ip[9];
    net_memcpy(k->src, ip + 12, 4);
    net_memcpy(k->dst, ip + 16, 4);
    uint32_t hl = (ip[0] & 15u) * 4, tot = (uint32_t)ip[2] << 8 | ip[3];
    len = tot < len ? tot : len; /* link padding is no header */
    if (((ip[6] & 0x1fu) | ip[7]) == 0 && len > hl) /* the first fragment, or the whole datagram */
        ports_at(k, ip + hl, len - hl);
}

void acl_key6(struct acl_key *k, const uint8_t *ip, uint32_t len)
{
    net_memset(k, 0, sizeof(*k));
    k->family = ACL_V6;
    if (len < IP6_HDR_LEN)
        return; /* proto 0, no ports: the caller checked the header, so never */
    uint32_t tot = IP6_HDR_LEN + ((uint32_t)ip[4] << 8 | ip[5]);
    len = tot < len ? tot : len; /* link padding is no header */
    net_memcpy(k->src, ip + 8, 16);
    net_memcpy(k->dst, ip + 24, 16);
    uint8_t next = ip[6];
    uint32_t off = IP6_HDR_LEN;
    for (int i = 0; i < 8; i++) {
        uint32_t hl;
        if (next == 0 || next == 43 || next == 60) /* hop-by-hop, routing, destination options: RFC 8200 4.3-4.6 */
            hl = off + 2 <= len ? (ip[off + 1] + 1u) * 8 : 0;
        else if (next == 51) /* authentication header, RFC 4302 2.2: in 4-byte words, less 2 */
            hl = off + 2 <= len ? (ip[off + 1] + 2u) * 4 : 0;
        else if (next == IP6_PROTO_FRAG)
            hl = off + 8 <= len ? 8 : 0;
        else
            break;
        if (hl == 0 || off + hl > len) {
            k->proto = next; /* cut short: no upper layer to see */
            return;
        }
        bool later = next == IP6_PROTO_FRAG && ((ip[off + 2] << 8 | ip[off + 3]) & 0xfff8) != 0;
        next = ip[off];
        off += hl;
        if (later) { /* RFC 8200 4.5: only the first fragment has the upper-layer header */
            k->proto = next;
            return;
        }
    }
    k->proto = next;
    if (off < len)
        ports_at(k, ip + off, len - off);
}

static bool prefix_holds(const uint8_t *p, uint8_t plen, const uint8_t *a)
{
    for (uint32_t i = 0; i < plen; i++)
        if (((p[i / 8] ^ a[i / 8]) >> (7 - i % 8)) & 1)
            return false;
    return true;
}

/* The rule tests a port: only a datagram with ports can match it. */
static bool ported(const struct acl_rule *r)
{
    return r->sport_lo || r->sport_hi != 65535 || r->dport_lo || r->dport_hi != 65535;
}

bool acl_rule_matches(const struct acl_rule *r, const struct acl_key *k)
{
    if (!(r->family & k->family) || (r->proto >= 0 && r->proto != k->proto))
        return false;
    if (!prefix_holds(r->src, r->src_len, k->src) || !prefix_holds(r->dst, r->dst_len, k->dst))
        return false;
    if (!ported(r))
        return true;
    return k->has_ports && k->sport >= r->sport_lo && k->sport <= r->sport_hi && k->dport >= r->dport_lo &&
           k->dport <= r->dport_hi;
}

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
        err_set(b->err, b->errlen, "no memory for the access list", NULL);
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
        err_set(b->err, b->errlen, "no memory to build the access list", NULL);
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
            err_set(b->err, b->errlen, "access list too large to compile", NULL);
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
            ok = (f->root64 = take(b, 256 * sizeof(uint64_t))) != NULL &&
                 (f->nnodes == 0 || (f->node64 = take(b, (size_t)f->nnodes * 256 * sizeof(uint64_t))) != NULL);
            for (uint32_t i = 0; ok && i < (f->nnodes + 1) * 256; i++) {
                uint16_t e = i < 256 ? f->root[i] : f->node[i / 256 - 1][i % 256];
                uint64_t v = e & CHILD ? NODE64 | (e & ENTRY_MAX) : f->bits[e];
                *(i < 256 ? &f->root64[i] : &f->node64[i / 256 - 1][i % 256]) = v;
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
        if (ported(&a->rules[i]))
            t->ported[j / 64] |= 1ull << (j % 64);
        if (a->rules[i].permit && j < 63)
            t->permit |= 1ull << j;
        t->rule[j++] = (uint16_t)i;
    }
    for (int fi = 0; fi < FIELDS; fi++)
        if (!build_field(b, t, fi, t->rule, abytes))
            return false;
    return true;
}

struct acl *acl_build(const char *name, const struct acl_rule *rules, uint32_t n, const struct acl_mem *m,
                      char *err, size_t errlen)
{
    if (n > ACL_RULES_MAX) {
        err_set(err, errlen, "too many rules in one access list", NULL);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        if (ported(&rules[i]) && rules[i].proto != IP4_PROTO_TCP && rules[i].proto != IP4_PROTO_UDP) {
            err_set(err, errlen, "a rule with ports is not TCP or UDP", NULL); /* acl_use_pass4_burst counts on it */
            return NULL;
        }
    struct acl *a = m->alloc(m->ctx, (sizeof(struct acl) + 63) & ~(size_t)63);
    if (a == NULL) {
        err_set(err, errlen, "no memory for the access list", NULL);
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

/* A list of at most 63 rules as one IPv4 burst loop wants it in registers. */
struct small4 {
    const uint64_t *root[FIELDS];
    const uint64_t (*node[FIELDS])[256];
    uint64_t ported;
};

static __attribute__((noinline)) uint64_t walk64(const uint64_t (*node)[256], uint64_t e, const uint8_t *key)
{
    for (uint32_t i = 1; e & NODE64; i++)
        e = node[(uint32_t)e][key[i]];
    return e;
}

/* The field's bitmap: its first byte's entry, deeper (walk64) only where
 * some rule cuts inside that byte's range. */
static inline uint64_t word_of(const struct small4 *sm, int fi, const uint8_t *key)
{
    uint64_t e = sm->root[fi][key[0]];
    return NET_LIKELY(!(e & NODE64)) ? e : walk64(sm->node[fi], e, key);
}

static inline struct small4 small4_of(const struct table *t)
{
    struct small4 sm;
    for (int fi = 0; fi < FIELDS; fi++) {
        sm.root[fi] = t->f[fi].root64;
        sm.node[fi] = (const uint64_t(*)[256])t->f[fi].node64;
    }
    sm.ported = t->ported[0];
    return sm;
}

/* The bit of the first rule matching the IPv4 datagram at ip (len bytes),
 * 63 for none. */
static inline __attribute__((always_inline)) uint32_t small4_bit(const struct small4 *sm, const uint8_t *ip,
                                                                  uint32_t len)
{
    static const uint8_t none[4];
    uint32_t hl = (ip[0] & 15u) * 4, tot = (uint32_t)ip[2] << 8 | ip[3];
    len = tot < len ? tot : len;
    bool ported = (ip[9] == IP4_PROTO_TCP || ip[9] == IP4_PROTO_UDP) && ((ip[6] & 0x1fu) | ip[7]) == 0 &&
                  len >= hl + 4;
    const uint8_t *l4 = ported ? ip + hl : none;
    uint64_t m = word_of(sm, F_PROTO, ip + 9) & word_of(sm, F_SRC, ip + 12) & word_of(sm, F_DST, ip + 16) &
                 word_of(sm, F_SPORT, l4) & word_of(sm, F_DPORT, l4 + 2) & ~(ported ? 0 : sm->ported);
    return (uint32_t)__builtin_ctzll(m | 1ull << 63);
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
    if (t->n < 64) {
        struct small4 sm = small4_of(t);
        return rule_of_bit(a, t, small4_bit(&sm, ip, len));
    }
    static const uint8_t none[4];
    uint32_t W = t->words, hl = (ip[0] & 15u) * 4, tot = (uint32_t)ip[2] << 8 | ip[3];
    len = tot < len ? tot : len;
    bool ported = (ip[9] == IP4_PROTO_TCP || ip[9] == IP4_PROTO_UDP) && ((ip[6] & 0x1fu) | ip[7]) == 0 &&
                  len >= hl + 4;
    const uint8_t *l4 = ported ? ip + hl : none;
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

/* The bitmap of field fi past a child entry e (small lists). */
static __attribute__((noinline)) uint64_t deeper(const struct table *t, int fi, uint64_t e, const uint8_t *key)
{
    for (uint32_t i = 1; e & NODE64; i++)
        e = t->f[fi].node64[(uint32_t)e][key[i]];
    return e;
}

/* The entry of byte b in a root table; deeper() when it is a child. */
#define WORD(fi, root, b, key) (NET_LIKELY(!((root)[b] & NODE64)) ? (root)[b] : deeper(t, fi, (root)[b], key))

static inline uint64_t le64(const uint8_t *p)
{
    uint64_t v;
    net_memcpy(&v, p, 8);
    return v;
}

uint64_t acl_use_pass4_burst(const struct acl_use *u, struct pkt *const *p, uint32_t n, uint32_t off)
{
    const struct acl *a = u->acl;
    const struct table *t = &a->t[0];
    uint64_t deny = 0;
    if (t->n == 0 || t->n >= 64) {
        for (uint32_t i = 0; i < n; i++)
            deny |= (uint64_t)!acl_use_pass4(u, p[i]->data + off, p[i]->len - off) << i;
        return deny;
    }
    const uint64_t *rp = t->f[F_PROTO].root64, *rs = t->f[F_SRC].root64, *rd = t->f[F_DST].root64;
    const uint64_t *rsp = t->f[F_SPORT].root64, *rdp = t->f[F_DPORT].root64;
    uint64_t permit = t->permit;
    uint32_t last = 63, run = 0; /* a run of one rule counted at its end: no chain through hits[] */
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *ip = p[i]->data + off;
        /* Three loads for the header's bytes (as on the wire: little-endian
         * words, byte k at bits 8k). */
        uint64_t w0 = le64(ip), w1 = le64(ip + 8), w2 = le64(ip + 16), bit;
        uint32_t tot = (uint32_t)(w0 >> 8 & 0xff00) | (uint32_t)(w0 >> 24 & 0xff);
        /* The usual datagram: a 20-byte header, no fragment, four bytes past
         * it within the datagram and the frame. Then its ports are read as
         * they lie, whatever its protocol: a rule with ports is a TCP or UDP
         * rule (acl_build), which the protocol's bitmap leaves out for
         * others, and a rule without matches every port. */
        if (NET_LIKELY((w0 & 0xff) == 0x45 && (w0 >> 48 & 0xff3f) == 0 && tot >= 24 && tot <= p[i]->len - off)) {
            uint64_t m = WORD(F_PROTO, rp, w1 >> 8 & 0xff, ip + 9) & WORD(F_SRC, rs, w1 >> 32 & 0xff, ip + 12) &
                         WORD(F_DST, rd, w2 & 0xff, ip + 16) & WORD(F_SPORT, rsp, w2 >> 32 & 0xff, ip + 20) &
                         WORD(F_DPORT, rdp, w2 >> 48 & 0xff, ip + 22);
            bit = (uint64_t)__builtin_ctzll(m | 1ull << 63);
        } else {
            struct small4 sm = small4_of(t);
            bit = small4_bit(&sm, ip, p[i]->len - off);
        }
        if (bit != last) {
            if (run)
                u->hits[rule_of_bit(a, t, (uint32_t)last)] += run;
            last = (uint32_t)bit;
            run = 0;
        }
        run++;
        deny |= (~permit >> bit & 1) << i;
    }
    if (run)
        u->hits[rule_of_bit(a, t, last)] += run;
    return deny;
}
