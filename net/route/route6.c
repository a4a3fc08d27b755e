/* SPDX-License-Identifier: MIT */
/* net/route/route6.c: the IPv6 route table (route6.h): the RIB and Poptrie glue,
 * the text parser (RFC 4291 section 2.2) and the lookups (Asai & Ohara,
 * SIGCOMM 2015: a 24-bit direct array, then 6-bit nodes from bit 24);
 * bursts in AVX-512 vectors where the CPU has them (route_cfg.avx512). */
#include "route6.h"

#include "core/env.h"
#include "route4.h"
#include "route_simd.h"
#include "route_fib.h"
#include "route_rib.h"
#include "route_text.h"

/* A 24-bit direct array in two levels of 12 bits (route_fib.h): /48, the
 * commonest length, ends in the fourth node. */
#define R6_DIRECT_BITS 24
#define R6_L1_BITS 12

struct route6 {
    struct route_fib fib; /* first: the readers' line */
    struct route_rib rib;
    struct route_alloc alloc;
};

/* One load and a byte swap (a byte-by-byte loop is not combined). */
static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;
    net_memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static struct route_key r6_key(const uint8_t a[16])
{
    return (struct route_key){load_be64(a), load_be64(a + 8)};
}

static bool r6_valid(const struct route_key *k, unsigned len)
{
    return len <= 128 && route_key_is_masked(k, len);
}

struct route6 *route6_create(const struct route_cfg *cfg)
{
    struct route6 *t = cfg->alloc.alloc(cfg->alloc.ctx, sizeof(*t), 64);
    if (t == NULL)
        return NULL;
    net_memset(t, 0, sizeof(*t));
    t->alloc = cfg->alloc;
    if (route_rib_init_jump(&t->rib, &cfg->alloc, ROUTE_RIB_JUMP_BITS6) != ROUTE_OK) {
        t->alloc.free(t->alloc.ctx, t, sizeof(*t));
        return NULL;
    }
    if (route_fib_init(&t->fib, &t->rib, cfg, R6_DIRECT_BITS, R6_L1_BITS, false, 128) != ROUTE_OK) {
        route_rib_fini(&t->rib);
        t->alloc.free(t->alloc.ctx, t, sizeof(*t));
        return NULL;
    }
    return t;
}

void route6_destroy(struct route6 *t)
{
    if (t == NULL)
        return;
    route_fib_fini(&t->fib);
    route_rib_fini(&t->rib);
    t->alloc.free(t->alloc.ctx, t, sizeof(*t));
}

void route6_set_paths(struct route6 *t, const struct route_cfg *cfg) { route_fib_set_paths(&t->fib, cfg); }

int route6_add(struct route6 *t, const uint8_t addr[16], unsigned len, uint32_t nh)
{
    struct route_key k = r6_key(addr);
    if (!r6_valid(&k, len) || nh == ROUTE_NH_NONE || nh > ROUTE_NH_MAX)
        return ROUTE_EINVAL;
    return route_fib_change(&t->fib, &t->rib, &k, len, nh);
}

int route6_del(struct route6 *t, const uint8_t addr[16], unsigned len)
{
    struct route_key k = r6_key(addr);
    if (!r6_valid(&k, len))
        return ROUTE_EINVAL;
    return route_fib_change(&t->fib, &t->rib, &k, len, ROUTE_NH_NONE);
}

int route6_add_bulk(struct route6 *t, const struct route6_prefix *p, size_t n, uint32_t *bad)
{
    uint32_t nbad = 0, old;
    int err = ROUTE_OK;
    for (size_t i = 0; i < n && err == ROUTE_OK; i++) {
        struct route_key k = r6_key(p[i].addr);
        if (!r6_valid(&k, p[i].len) || p[i].nh == ROUTE_NH_NONE || p[i].nh > ROUTE_NH_MAX) {
            nbad++;
            continue;
        }
        err = route_rib_set(&t->rib, &k, p[i].len, p[i].nh, &old);
    }
    if (bad)
        *bad = nbad;
    int rerr = route_fib_rebuild(&t->fib);
    return err ? err : rerr;
}

int route6_load_text(struct route6 *t, const char *text, size_t text_len, uint32_t nh,
                     struct route_load_stats *st, route_set_fn set_fn, void *set_ctx)
{
    const char *p = text, *end = text + text_len, *tok;
    size_t tok_len;
    uint8_t addr[16];
    uint32_t old;
    unsigned len;
    int err = ROUTE_OK;
    net_memset(st, 0, sizeof(*st));
    if (nh == ROUTE_NH_NONE || nh > ROUTE_NH_MAX)
        return ROUTE_EINVAL;
    while (err == ROUTE_OK && route_text_line(&p, end, &tok, &tok_len)) {
        st->lines++;
        if (tok_len == 0)
            continue;
        if (!route6_parse(tok, tok_len, addr, &len)) {
            st->bad++;
            if (st->first_bad_line == 0)
                st->first_bad_line = st->lines;
            continue;
        }
        struct route_key k = r6_key(addr);
        err = route_rib_set(&t->rib, &k, len, nh, &old);
        if (err == ROUTE_OK) {
            st->added++;
            if (set_fn)
                set_fn(set_ctx, nh, old);
        }
    }
    int rerr = route_fib_rebuild(&t->fib);
    st->published = rerr == ROUTE_OK;
    return err ? err : rerr;
}

int route6_compact(struct route6 *t)
{
    return route_fib_rebuild(&t->fib);
}

uint32_t route6_get(const struct route6 *t, const uint8_t addr[16], unsigned len)
{
    struct route_key k = r6_key(addr);
    if (!r6_valid(&k, len))
        return ROUTE_NH_NONE;
    unsigned got;
    uint32_t nh = route_rib_match(&t->rib, &k, len, &got);
    return got == len ? nh : ROUTE_NH_NONE;
}

uint32_t route6_match(const struct route6 *t, const uint8_t addr[16], unsigned *len)
{
    struct route_key k = r6_key(addr);
    return route_rib_match(&t->rib, &k, 128, len);
}

uint64_t route6_epoch(const struct route6 *t)
{
    return route_fib_epoch(&t->fib);
}

void route6_reclaim(struct route6 *t, uint64_t safe_epoch)
{
    route_fib_reclaim(&t->fib, safe_epoch);
}

void route6_stats(const struct route6 *t, struct route_stats *st)
{
    route_fib_stats(&t->fib, st);
    st->prefixes = t->rib.prefixes;
    st->rib_bytes = route_rib_bytes(&t->rib);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Groups g[0..*n) before and after the "::" (at *gap, -1 if none). */
static bool parse_groups(const char *s, const char *end, uint16_t g[8], int *n, int *gap)
{
    *n = 0;
    *gap = -1;
    if (end - s >= 2 && s[0] == ':' && s[1] == ':') {
        *gap = 0;
        s += 2;
    }
    while (s < end) {
        const char *start = s;
        unsigned v = 0, digits = 0;
        for (; s < end && hexval(*s) >= 0 && digits < 5; s++, digits++)
            v = v << 4 | (unsigned)hexval(*s);
        if (s < end && *s == '.') { /* dotted-quad tail: the last 32 bits */
            uint32_t a4;
            if (*n > 6 || !route4_parse_addr(start, (size_t)(end - start), &a4))
                return false;
            g[(*n)++] = (uint16_t)(a4 >> 16);
            g[(*n)++] = (uint16_t)a4;
            return true;
        }
        if (digits == 0 || digits > 4 || *n == 8)
            return false;
        g[(*n)++] = (uint16_t)v;
        if (s == end)
            break;
        if (*s++ != ':' || s == end)
            return false;
        if (*s == ':') {
            if (*gap >= 0)
                return false;
            *gap = *n;
            s++;
        }
    }
    return true;
}

bool route6_parse_addr(const char *s, size_t s_len, uint8_t addr[16])
{
    uint16_t g[8], out[8] = {0};
    int n, gap;
    if (!parse_groups(s, s + s_len, g, &n, &gap))
        return false;
    if (gap < 0 ? n != 8 : n > 7)
        return false;
    int tail = gap < 0 ? 0 : n - gap;
    for (int i = 0; i < n - tail; i++)
        out[i] = g[i];
    for (int i = 0; i < tail; i++)
        out[8 - tail + i] = g[n - tail + i];
    for (int i = 0; i < 8; i++) {
        addr[2 * i] = (uint8_t)(out[i] >> 8);
        addr[2 * i + 1] = (uint8_t)out[i];
    }
    return true;
}

bool route6_parse(const char *s, size_t s_len, uint8_t addr[16], unsigned *len)
{
    const char *end = s + s_len, *slash = s;
    while (slash < end && *slash != '/')
        slash++;
    if (slash == end || !route6_parse_addr(s, (size_t)(slash - s), addr))
        return false;
    const char *p = slash + 1;
    unsigned v = 0, digits = 0;
    for (; p < end && *p >= '0' && *p <= '9' && digits < 4; p++, digits++)
        v = v * 10 + (unsigned)(*p - '0');
    if (p != end || digits == 0 || (digits > 1 && slash[1] == '0') || v > 128)
        return false;
    struct route_key k = r6_key(addr);
    if (!route_key_is_masked(&k, v))
        return false;
    *len = v;
    return true;
}

/* The lookups: as in route4.c, a node level tests and counts slot v with
 * one shift of vec by 63 - v, the top 6 bits of the inverted key shifted
 * left by the level's offset. */
static inline __attribute__((always_inline)) uint32_t
r6_walk(const struct route_fib_root *r, uint32_t e, uint64_t hi, uint64_t lo, unsigned off)
{
    const struct route_fib_node *n = &r->nodes[e];
    uint64_t kh = off < 64 ? ~hi << off | ~lo >> (64 - off) : ~lo << (off - 64);
    uint64_t kl = off < 64 ? ~lo << off : 0;
    for (;;) {
        unsigned sh = (unsigned)(kh >> 58);
        uint64_t m = n->vec << sh;
        if ((int64_t)m >= 0)
            return r->leaves[n->base_leaf + (uint32_t)__builtin_popcountll(n->leafvec << sh) - 1];
        n = &r->nodes[n->base_node + (uint32_t)__builtin_popcountll(m) - 1];
        kh = kh << 6 | kl >> 58;
        kl <<= 6;
    }
}

/* The direct entry for the top 24 bits of hi: the L1 entry, or the entry
 * in its block (block 0, a dummy, when L1 holds the answer: no branch). */
static inline __attribute__((always_inline)) uint32_t
r6_direct(_Atomic uint32_t *l1, _Atomic uint32_t *blocks, uint64_t hi)
{
    uint32_t e1 = atomic_load_explicit(&l1[hi >> (64 - R6_L1_BITS)], memory_order_acquire);
    size_t i = (size_t)e1 << (R6_DIRECT_BITS - R6_L1_BITS) |
               ((hi >> (64 - R6_DIRECT_BITS)) & ((1u << (R6_DIRECT_BITS - R6_L1_BITS)) - 1));
    i = e1 & ROUTE_FIB_LEAF ? 0 : i;
    uint32_t e2 = atomic_load_explicit(&blocks[i], memory_order_acquire);
    return e1 & ROUTE_FIB_LEAF ? e1 : e2;
}

static inline __attribute__((always_inline)) uint32_t
r6_lookup1(const struct route_fib_root *r, const uint8_t a[16])
{
    uint64_t hi = load_be64(a);
    uint32_t e = r6_direct(r->direct, r->blocks, hi);
    if (e & ROUTE_FIB_LEAF)
        return e & ROUTE_NH_MAX;
    return r6_walk(r, e, hi, load_be64(a + 8), R6_DIRECT_BITS);
}

/* A node is 24 bytes: one in four straddles two cache lines, with its
 * base_node (and maybe leafvec) on the second: fetch both. */
static inline __attribute__((always_inline)) void r6_prefetch_node(const struct route_fib_node *n)
{
    __builtin_prefetch(n);
    __builtin_prefetch((const char *)n + sizeof(*n) - 1);
}

/* Level by level over up to 32 addresses: every round moves each walk
 * still in a node one level down (all at the same key offset) and
 * prefetches the next node, so the misses of all the walks overlap. A walk
 * that reaches a leaf drops off the active list, branch-free; the leaves
 * are read in a last pass over the lanes that entered a node (those still
 * walking read a leaf of their node, valid, and overwrite it). Rounds cover
 * the high 64 bits; the rare walks that go deeper finish one by one. */
static inline __attribute__((always_inline)) void
r6_burst32(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh, unsigned b)
{
    _Atomic uint32_t *l1 = r->direct, *blocks = r->blocks; /* once: acquire loads follow */
    const struct route_fib_node *nodes = r->nodes;
    uint64_t kh[32];
    uint32_t node[32];
    uint8_t sh[32], act[32], walked[32];
    unsigned na = 0, off = R6_DIRECT_BITS;
    for (unsigned i = 0; i < b; i++) {
        uint64_t hi = load_be64(a[i]);
        uint32_t e = r6_direct(l1, blocks, hi);
        kh[i] = ~hi;
        node[i] = e;
        nh[i] = e & ROUTE_NH_MAX;
        r6_prefetch_node(&nodes[e & ROUTE_FIB_LEAF ? 0 : e]);
        act[na] = walked[na] = (uint8_t)i;
        na += !(e & ROUTE_FIB_LEAF);
    }
    unsigned nw = na;
    for (; na && off <= 58; off += 6) {
        unsigned nn = 0;
        for (unsigned k = 0; k < na; k++) {
            unsigned i = act[k];
            const struct route_fib_node *n = &nodes[node[i]];
            unsigned s = (unsigned)((kh[i] << off) >> 58);
            uint64_t m = n->vec << s;
            uint32_t child = n->base_node + (uint32_t)__builtin_popcountll(m) - 1;
            bool down = (int64_t)m < 0;
            r6_prefetch_node(&nodes[child]);
            node[i] = down ? child : node[i];
            sh[i] = (uint8_t)s;
            act[nn] = (uint8_t)i;
            nn += down;
        }
        na = nn;
    }
    for (unsigned k = 0; k < nw; k++) {
        unsigned i = walked[k];
        const struct route_fib_node *n = &nodes[node[i]];
        nh[i] = r->leaves[n->base_leaf + (uint32_t)__builtin_popcountll(n->leafvec << sh[i]) - 1];
    }
    for (unsigned k = 0; k < na; k++) {
        unsigned i = act[k];
        nh[i] = r6_walk(r, node[i], load_be64(a[i]), load_be64(a[i] + 8), off);
    }
}

static inline __attribute__((always_inline)) void
r6_burst(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh, size_t n)
{
    while (n) {
        unsigned b = n < 32 ? (unsigned)n : 32;
        r6_burst32(r, a, nh, b);
        a += b;
        nh += b;
        n -= b;
    }
}

__attribute__((target("popcnt"))) static uint32_t r6_lookup_popcnt(const struct route_fib_root *r,
                                                                   const uint8_t a[16])
{
    return r6_lookup1(r, a);
}

static uint32_t r6_lookup_soft(const struct route_fib_root *r, const uint8_t a[16])
{
    return r6_lookup1(r, a);
}

__attribute__((target("popcnt"))) static void
r6_burst_popcnt(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh, size_t n)
{
    r6_burst(r, a, nh, n);
}

static void r6_burst_soft(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh,
                          size_t n)
{
    r6_burst(r, a, nh, n);
}

uint32_t route6_lookup(const struct route6 *t, const uint8_t addr[16])
{
    const struct route_fib_root *r = route_fib_root(&t->fib);
    return t->fib.popcnt ? r6_lookup_popcnt(r, addr) : r6_lookup_soft(r, addr);
}

/* ---- AVX-512 bursts (route_cfg.avx512) ---- */
#if defined(__x86_64__)

/* r6_burst32's walk, 8 addresses a vector (their high 64 bits a lane) and
 * up to four vectors a round, each step's gathers for every vector before
 * the next step: the high halves (r6_high_halves, byte-swapped), the direct
 * entries (the L1 entry, then the block's: a lane whose L1 entry answers
 * loads no block), then a node level a round for the lanes still walking
 * (its vec, and base_leaf with base_node: two gathers), and for the lanes
 * that stopped in a node its leafvec and the leaf (the 32 bits ending with it:
 * leaf 0, a dummy, is never a node's, so nothing before the pool is read).
 * Walks past the high 64 bits (rare) finish one by one, as r6_burst32's
 * do. Masked-off lanes load nothing. Gathers are plain loads, each an
 * acquire on x86, and each index comes from the load that published it. */
/* Node indices to byte offsets: 24 bytes a node (VPMULLQ is slow). The
 * walk reads base_leaf and base_node as one little-endian qword. */
_Static_assert(__builtin_offsetof(struct route_fib_node, base_leaf) == 16 &&
                   __builtin_offsetof(struct route_fib_node, base_node) == 20,
               "base_leaf, then base_node, at 16");
ROUTE_AVX512 ROUTE_INLINE vu64x8 node_bytes(vu64x8 node)
{
    _Static_assert(sizeof(struct route_fib_node) == 24, "16 + 8");
    return (node << 4) + (node << 3);
}
ROUTE_AVX2 ROUTE_INLINE vu64x4 node_bytes4(vu64x4 node) { return (node << 4) + (node << 3); }

/* Each 64-bit lane's bytes reversed (the address's high half, big-endian),
 * a 128-bit lane's worth of VPSHUFB indices. */
#define R6_BSWAP 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8
/* The high half's bits for the L1 index, and for the block's within it. */
#define R6_L1_SHIFT (64 - R6_L1_BITS)
#define R6_BLOCK_SHIFT (64 - R6_DIRECT_BITS)
#define R6_BLOCK_MASK ((1 << (R6_DIRECT_BITS - R6_L1_BITS)) - 1)

/* The first 8 bytes of each of 8 addresses (lanes live), as they lie in
 * memory: for a full vector two plain loads of four addresses and a
 * shuffle. Loaded by a gather, on machine E (Zen 5), a caller's addresses
 * walked through in memory were waited on every burst, as if the gather
 * did not start the core's stream prefetcher, and the bursts ran at half
 * to two thirds of the rate (docs/route.md, "AVX-512"). A partial vector,
 * the rare last one of a burst, is gathered: it loads no address past it. */
ROUTE_AVX512 ROUTE_INLINE vu64x8 r6_high_halves(const uint8_t (*a)[16], uint8_t live)
{
    if (live != 0xff) {
        const vi64x8 off = {0, 16, 32, 48, 64, 80, 96, 112};
        return (vu64x8)__builtin_ia32_gatherdiv8di((vi64x8){0}, a[0], off, live, 1);
    }
    vu64x8 q0, q1;
    __builtin_memcpy(&q0, a[0], 64);
    __builtin_memcpy(&q1, a[4], 64);
    return __builtin_shufflevector(q0, q1, 0, 2, 4, 6, 8, 10, 12, 14);
}

ROUTE_AVX512 static void r6_burst_avx512(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh,
                                      size_t n)
{
    const void *l1 = (const void *)r->direct, *blocks = (const void *)r->blocks;
    const void *nodes = (const void *)r->nodes, *leaves = (const void *)r->leaves;
    const vi64x8 zero = {0};
    const vc8x64 bswap = {R6_BSWAP, R6_BSWAP, R6_BSWAP, R6_BSWAP};
    for (size_t i = 0; i < n; i += 32) {
        size_t left = n - i;
        unsigned nv = left >= 32 ? 4 : (unsigned)((left + 7) / 8);
        vu64x8 kh[4], node[4], sh[4], bl[4];
        vu32x8 res[4];
        uint8_t live[4], walk[4], act[4];
        for (unsigned v = 0; v < nv; v++) {
            size_t lv = left - 8 * v;
            live[v] = (uint8_t)(lv >= 8 ? 0xffu : (1u << lv) - 1);
            vu64x8 hi = r6_high_halves(a + i + 8 * v, live[v]);
            hi = (vu64x8)__builtin_ia32_pshufb512((vc8x64)hi, bswap);
            kh[v] = ~hi;
            vu32x8 e1 = (vu32x8)__builtin_ia32_gatherdiv16si((vi32x8){0}, l1, (vi64x8)(hi >> R6_L1_SHIFT), live[v], 4);
            uint8_t l1leaf = live[v] & route_signs8(e1);
            vu64x8 bi = __builtin_convertvector(e1, vu64x8) << (R6_DIRECT_BITS - R6_L1_BITS) |
                        (hi >> R6_BLOCK_SHIFT & R6_BLOCK_MASK);
            vu32x8 e = (vu32x8)__builtin_ia32_gatherdiv16si((vi32x8)e1, blocks, (vi64x8)bi, live[v] & (uint8_t)~l1leaf, 4);
            res[v] = e & ROUTE_NH_MAX;
            walk[v] = act[v] = live[v] & (uint8_t)~route_signs8(e);
            node[v] = __builtin_convertvector(e, vu64x8);
            sh[v] = bl[v] = (vu64x8)zero;
        }
        unsigned off = R6_DIRECT_BITS;
        for (; off <= 58; off += 6) {
            unsigned any = 0;
            for (unsigned v = 0; v < nv; v++)
                any |= act[v];
            if (!any)
                break;
            for (unsigned v = 0; v < nv; v++) {
                if (!act[v])
                    continue;
                vu64x8 s = kh[v] << off >> 58;
                vu64x8 nb = node_bytes(node[v]);
                vu64x8 vec = (vu64x8)__builtin_ia32_gatherdiv8di(zero, nodes, (vi64x8)nb, act[v], 1);
                /* base_leaf and base_node, one 64-bit load: base_leaf kept for where the walk stops */
                vu64x8 bases = (vu64x8)__builtin_ia32_gatherdiv8di(zero, nodes, (vi64x8)(nb + 16), act[v], 1);
                vu64x8 m = vec << s;
                uint8_t down = route_signs8q(m) & act[v];
                vu64x8 child = (bases >> 32) + route_popcnt64(m) - 1;
                node[v] = (vu64x8)__builtin_ia32_selectq_512(down, (vi64x8)child, (vi64x8)node[v]);
                sh[v] = (vu64x8)__builtin_ia32_selectq_512(act[v], (vi64x8)s, (vi64x8)sh[v]);
                bl[v] = (vu64x8)__builtin_ia32_selectq_512(act[v], (vi64x8)(bases & 0xffffffff), (vi64x8)bl[v]);
                act[v] = down;
            }
        }
        for (unsigned v = 0; v < nv; v++) {
            uint8_t stop = walk[v] & (uint8_t)~act[v];
            if (stop) {
                vu64x8 lvec = (vu64x8)__builtin_ia32_gatherdiv8di(zero, nodes, (vi64x8)(node_bytes(node[v]) + 8), stop, 1);
                vu64x8 rank = route_popcnt64(lvec << sh[v]);
                /* leaves[base_leaf + rank - 1], as the 32 bits from two bytes before it */
                vu64x8 at = ((bl[v] + rank) << 1) - 4;
                vu32x8 lf = (vu32x8)__builtin_ia32_gatherdiv16si((vi32x8){0}, leaves, (vi64x8)at, stop, 1);
                res[v] = (vu32x8)__builtin_ia32_selectd_256(stop, (vi32x8)(lf >> 16), (vi32x8)res[v]);
            }
            route_store8(nh + i + 8 * v, res[v], live[v]);
            for (unsigned m = act[v]; NET_UNLIKELY(m); m &= m - 1) { /* past the high 64 bits */
                unsigned j = (unsigned)__builtin_ctz(m), k = (unsigned)(i + 8 * v + j);
                nh[k] = r6_walk(r, (uint32_t)node[v][j], load_be64(a[k]), load_be64(a[k] + 8), off);
            }
        }
    }
}

/* ---- AVX2 bursts (route_cfg.avx2, where AVX-512 is not) ---- */

/* A vector's 64-bit lane masks as 32-bit ones (each lane's mask is all
 * ones or all zeros, so either half serves). */
ROUTE_AVX2 ROUTE_INLINE vi32x4 r6_mask32(vi64x4 m) { return __builtin_shufflevector((vi32x8)m, (vi32x8)m, 0, 2, 4, 6); }

/* Which lanes of a 64-bit lane mask are set, a bit each. */
ROUTE_AVX2 ROUTE_INLINE unsigned r6_lanes(vi64x4 m) { return (unsigned)__builtin_ia32_movmskpd256((vf64x4)m); }

/* r6_high_halves for 4 addresses (a lane's sign bit in live: it is live). */
ROUTE_AVX2 ROUTE_INLINE vu64x4 r6_high_halves4(const uint8_t (*a)[16], vi64x4 live)
{
    if (live[3] >= 0) {
        const vi64x4 off = {0, 16, 32, 48};
        return (vu64x4)__builtin_ia32_gatherq_q256((vi64x4){0}, (const long long *)a[0], off, live, 1);
    }
    vu64x4 q0, q1;
    __builtin_memcpy(&q0, a[0], 32);
    __builtin_memcpy(&q1, a[2], 32);
    return __builtin_shufflevector(q0, q1, 0, 2, 4, 6);
}

/* r6_burst_avx512's steps and order in AVX2: 4 lanes of 64 bits a vector,
 * up to eight vectors a round; lane masks are vectors (a lane's sign bit)
 * and AVX2's gathers load only where it is set. */
ROUTE_AVX2 static void r6_burst_avx2(const struct route_fib_root *r, const uint8_t (*a)[16], uint32_t *nh,
                                    size_t n)
{
    const int *l1 = (const int *)r->direct, *blocks = (const int *)r->blocks;
    const long long *nodes = (const long long *)r->nodes;
    const int *leaves = (const int *)r->leaves;
    const vi64x4 zero = {0}, lane = {0, 1, 2, 3};
    const vc8x32 bswap = {R6_BSWAP, R6_BSWAP};
    for (size_t i = 0; i < n; i += 32) {
        size_t left = n - i;
        unsigned nv = left >= 32 ? 8 : (unsigned)((left + 3) / 4);
        vu64x4 kh[8], node[8], sh[8], bl[8];
        vi64x4 live[8], walk[8], act[8];
        vu32x4 res[8];
        for (unsigned v = 0; v < nv; v++) {
            size_t lv = left - 4 * v;
            live[v] = zero + (lv >= 4 ? 4 : (long long)lv) > lane;
            vu64x4 hi = r6_high_halves4(a + i + 4 * v, live[v]);
            hi = (vu64x4)__builtin_ia32_pshufb256((vc8x32)hi, bswap);
            kh[v] = ~hi;
            vi32x4 live4 = r6_mask32(live[v]);
            vu32x4 e1 = (vu32x4)__builtin_ia32_gatherq_d256((vi32x4){0}, l1, (vi64x4)(hi >> R6_L1_SHIFT), live4, 4);
            vu64x4 bi = __builtin_convertvector(e1, vu64x4) << (R6_DIRECT_BITS - R6_L1_BITS) |
                        (hi >> R6_BLOCK_SHIFT & R6_BLOCK_MASK);
            /* a lane whose L1 entry is a leaf (its sign bit) keeps it */
            vu32x4 e = (vu32x4)__builtin_ia32_gatherq_d256((vi32x4)e1, blocks, (vi64x4)bi, live4 & ~((vi32x4)e1 >> 31), 4);
            res[v] = e & ROUTE_NH_MAX;
            walk[v] = act[v] = live[v] & ~__builtin_convertvector((vi32x4)e >> 31, vi64x4);
            node[v] = __builtin_convertvector(e, vu64x4);
            sh[v] = bl[v] = (vu64x4)zero;
        }
        unsigned off = R6_DIRECT_BITS;
        for (; off <= 58; off += 6) {
            unsigned any = 0;
            for (unsigned v = 0; v < nv; v++)
                any |= r6_lanes(act[v]);
            if (!any)
                break;
            for (unsigned v = 0; v < nv; v++) {
                if (!r6_lanes(act[v]))
                    continue;
                vu64x4 s = kh[v] << off >> 58;
                vu64x4 nb = node_bytes4(node[v]);
                vu64x4 vec = (vu64x4)__builtin_ia32_gatherq_q256(zero, nodes, (vi64x4)nb, act[v], 1);
                vu64x4 bases = (vu64x4)__builtin_ia32_gatherq_q256(zero, nodes, (vi64x4)(nb + 16), act[v], 1);
                vu64x4 m = vec << s;
                vi64x4 down = ((vi64x4)m < 0) & act[v];
                vu64x4 child = (bases >> 32) + route_popcnt64_256(m) - 1;
                node[v] = route_pick4(down, child, node[v]);
                sh[v] = route_pick4(act[v], s, sh[v]);
                bl[v] = route_pick4(act[v], bases & 0xffffffff, bl[v]);
                act[v] = down;
            }
        }
        for (unsigned v = 0; v < nv; v++) {
            vi64x4 stop = walk[v] & ~act[v];
            if (r6_lanes(stop)) {
                vu64x4 lvec = (vu64x4)__builtin_ia32_gatherq_q256(zero, nodes, (vi64x4)(node_bytes4(node[v]) + 8), stop, 1);
                vu64x4 rank = route_popcnt64_256(lvec << sh[v]);
                /* leaves[base_leaf + rank - 1], as the 32 bits from two bytes before it */
                vu64x4 at = ((bl[v] + rank) << 1) - 4;
                vi32x4 stop4 = r6_mask32(stop);
                vu32x4 lf = (vu32x4)__builtin_ia32_gatherq_d256((vi32x4){0}, leaves, (vi64x4)at, stop4, 1);
                res[v] = (lf >> 16 & (vu32x4)stop4) | (res[v] & ~(vu32x4)stop4);
            }
            if (live[v][3] < 0) /* all live: as route_store8 */
                __builtin_memcpy(nh + i + 4 * v, &res[v], sizeof(res[v]));
            else
                __builtin_ia32_maskstored((vi32x4 *)(nh + i + 4 * v), r6_mask32(live[v]), (vi32x4)res[v]);
            for (unsigned m = r6_lanes(act[v]); NET_UNLIKELY(m); m &= m - 1) { /* past the high 64 bits */
                unsigned j = (unsigned)__builtin_ctz(m), k = (unsigned)(i + 4 * v + j);
                nh[k] = r6_walk(r, (uint32_t)node[v][j], load_be64(a[k]), load_be64(a[k] + 8), off);
            }
        }
    }
}
#endif

void route6_lookup_burst(const struct route6 *t, const uint8_t (*addr)[16], uint32_t *nh,
                         size_t n)
{
    const struct route_fib_root *r = route_fib_root(&t->fib);
#if defined(__x86_64__)
    if (t->fib.avx512 && n >= ROUTE6_SIMD_MIN_BURST) {
        r6_burst_avx512(r, addr, nh, n);
        return;
    }
    if (t->fib.avx2 && n >= ROUTE6_SIMD_MIN_BURST) {
        r6_burst_avx2(r, addr, nh, n);
        return;
    }
#endif
    if (t->fib.popcnt)
        r6_burst_popcnt(r, addr, nh, n);
    else
        r6_burst_soft(r, addr, nh, n);
}

int route6_defer(struct route6 *t, bool on) { return route_fib_defer(&t->fib, on); }
uint32_t route6_deferred(const struct route6 *t) { return t->fib.deferred; }
