/* SPDX-License-Identifier: MIT */
/* net/route/route4.c: the IPv4 route table (route4.h): the RIB and Poptrie glue,
 * the text parser, and the lookups (Asai & Ohara, SIGCOMM 2015, section 3:
 * an 18-bit direct array, then 6-bit nodes at bits 18, 24 and 30; the
 * first level as records, node and leaves together: route_fib.h);
 * bursts in AVX-512 vectors where the CPU has them (route_cfg.avx512). */
#include "route4.h"

#include "core/env.h"
#include "route_simd.h"
#include "route_fib.h"
#include "route_rib.h"
#include "route_text.h"

#define R4_DIRECT_BITS 18

struct route4 {
    struct route_fib fib; /* first: the readers' line */
    struct route_rib rib;
    struct route_alloc alloc;
};

static struct route_key r4_key(uint32_t addr)
{
    return (struct route_key){(uint64_t)addr << 32, 0};
}

static bool r4_valid(uint32_t addr, unsigned len)
{
    struct route_key k = r4_key(addr);
    return len <= 32 && route_key_is_masked(&k, len);
}

struct route4 *route4_create(const struct route_cfg *cfg)
{
    struct route4 *t = cfg->alloc.alloc(cfg->alloc.ctx, sizeof(*t), 64);
    if (t == NULL)
        return NULL;
    net_memset(t, 0, sizeof(*t));
    t->alloc = cfg->alloc;
    if (route_rib_init(&t->rib, &cfg->alloc) != ROUTE_OK) {
        t->alloc.free(t->alloc.ctx, t, sizeof(*t));
        return NULL;
    }
    if (route_fib_init(&t->fib, &t->rib, cfg, R4_DIRECT_BITS, 0, true, 32) != ROUTE_OK) {
        route_rib_fini(&t->rib);
        t->alloc.free(t->alloc.ctx, t, sizeof(*t));
        return NULL;
    }
    return t;
}

void route4_destroy(struct route4 *t)
{
    if (t == NULL)
        return;
    route_fib_fini(&t->fib);
    route_rib_fini(&t->rib);
    t->alloc.free(t->alloc.ctx, t, sizeof(*t));
}

void route4_set_paths(struct route4 *t, const struct route_cfg *cfg) { route_fib_set_paths(&t->fib, cfg); }

int route4_add(struct route4 *t, uint32_t addr, unsigned len, uint32_t nh)
{
    if (!r4_valid(addr, len) || nh == ROUTE_NH_NONE || nh > ROUTE_NH_MAX)
        return ROUTE_EINVAL;
    struct route_key k = r4_key(addr);
    return route_fib_change(&t->fib, &t->rib, &k, len, nh);
}

int route4_del(struct route4 *t, uint32_t addr, unsigned len)
{
    if (!r4_valid(addr, len))
        return ROUTE_EINVAL;
    struct route_key k = r4_key(addr);
    return route_fib_change(&t->fib, &t->rib, &k, len, ROUTE_NH_NONE);
}

int route4_add_bulk(struct route4 *t, const struct route4_prefix *p, size_t n, uint32_t *bad)
{
    uint32_t nbad = 0, old;
    int err = ROUTE_OK;
    for (size_t i = 0; i < n && err == ROUTE_OK; i++) {
        if (!r4_valid(p[i].addr, p[i].len) || p[i].nh == ROUTE_NH_NONE || p[i].nh > ROUTE_NH_MAX) {
            nbad++;
            continue;
        }
        struct route_key k = r4_key(p[i].addr);
        err = route_rib_set(&t->rib, &k, p[i].len, p[i].nh, &old);
    }
    if (bad)
        *bad = nbad;
    int rerr = route_fib_rebuild(&t->fib);
    return err ? err : rerr;
}

int route4_load_text(struct route4 *t, const char *text, size_t text_len, uint32_t nh,
                     struct route_load_stats *st, route_set_fn set_fn, void *set_ctx)
{
    const char *p = text, *end = text + text_len, *tok;
    size_t tok_len;
    uint32_t addr, old;
    unsigned len;
    int err = ROUTE_OK;
    net_memset(st, 0, sizeof(*st));
    if (nh == ROUTE_NH_NONE || nh > ROUTE_NH_MAX)
        return ROUTE_EINVAL;
    while (err == ROUTE_OK && route_text_line(&p, end, &tok, &tok_len)) {
        st->lines++;
        if (tok_len == 0)
            continue;
        if (!route4_parse(tok, tok_len, &addr, &len)) {
            st->bad++;
            if (st->first_bad_line == 0)
                st->first_bad_line = st->lines;
            continue;
        }
        struct route_key k = r4_key(addr);
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

int route4_compact(struct route4 *t)
{
    return route_fib_rebuild(&t->fib);
}

uint32_t route4_get(const struct route4 *t, uint32_t addr, unsigned len)
{
    if (!r4_valid(addr, len))
        return ROUTE_NH_NONE;
    struct route_key k = r4_key(addr);
    unsigned got;
    uint32_t nh = route_rib_match(&t->rib, &k, len, &got);
    return got == len ? nh : ROUTE_NH_NONE;
}

uint32_t route4_match(const struct route4 *t, uint32_t addr, unsigned *len)
{
    struct route_key k = r4_key(addr);
    return route_rib_match(&t->rib, &k, 32, len);
}

uint64_t route4_epoch(const struct route4 *t)
{
    return route_fib_epoch(&t->fib);
}

void route4_reclaim(struct route4 *t, uint64_t safe_epoch)
{
    route_fib_reclaim(&t->fib, safe_epoch);
}

void route4_stats(const struct route4 *t, struct route_stats *st)
{
    route_fib_stats(&t->fib, st);
    st->prefixes = t->rib.prefixes;
    st->rib_bytes = route_rib_bytes(&t->rib);
}

/* Up to max decimal digits with a value of at most lim. */
static bool parse_dec(const char **s, const char *end, unsigned max, uint32_t lim, uint32_t *v)
{
    uint32_t x = 0;
    unsigned n = 0;
    const char *first = *s;
    while (*s < end && **s >= '0' && **s <= '9' && n < max) {
        x = x * 10 + (uint32_t)(**s - '0');
        (*s)++;
        n++;
    }
    *v = x;
    return n > 0 && x <= lim && !(n > 1 && *first == '0'); /* no leading zeros */
}

/* A dotted quad at *s, leaving *s after it. */
static bool parse_quad(const char **s, const char *end, uint32_t *addr)
{
    uint32_t a = 0, v;
    for (unsigned i = 0; i < 4; i++) {
        if (i && (*s == end || *(*s)++ != '.'))
            return false;
        if (!parse_dec(s, end, 3, 255, &v))
            return false;
        a = a << 8 | v;
    }
    *addr = a;
    return true;
}

bool route4_parse_addr(const char *s, size_t s_len, uint32_t *addr)
{
    const char *end = s + s_len;
    return parse_quad(&s, end, addr) && s == end;
}

bool route4_parse(const char *s, size_t s_len, uint32_t *addr, unsigned *len)
{
    const char *end = s + s_len;
    uint32_t a, v;
    if (!parse_quad(&s, end, &a))
        return false;
    if (s == end || *s++ != '/' || !parse_dec(&s, end, 2, 32, &v) || s != end)
        return false;
    if (!r4_valid(a, v))
        return false;
    *addr = a;
    *len = v;
    return true;
}

/* The lookups. A node's slot for 6 key bits v is tested and counted with
 * one shift by 63 - v: bit 63 of vec << (63 - v) is slot v, and its
 * popcount is the slot's rank. 63 - v are the top bits of the inverted key
 * shifted left by the node's offset (Poptrie pads past bit 32 with zeros,
 * we with ones: the same leaf either way, as no prefix reaches there).
 * First-level nodes are records (route_fib.h): their leaves follow them. */
static inline __attribute__((always_inline)) uint32_t
r4_walk(const struct route_fib_root *r, uint32_t node, uint32_t addr, unsigned off)
{
    const struct route_fib_node *n = &r->nodes[node];
    uint64_t nkey = ~((uint64_t)addr << 32) << off;
    for (;;) {
        unsigned sh = (unsigned)(nkey >> 58);
        uint64_t m = n->vec << sh;
        if ((int64_t)m >= 0)
            return r->leaves[n->base_leaf + (uint32_t)__builtin_popcountll(n->leafvec << sh) - 1];
        n = &r->nodes[n->base_node + (uint32_t)__builtin_popcountll(m) - 1];
        nkey <<= 6;
    }
}

/* The 6 key bits after the direct array's 18, as a shift: 63 - v. */
static inline __attribute__((always_inline)) unsigned r4_shift1(uint32_t addr)
{
    return (~addr >> (32 - R4_DIRECT_BITS - 6)) & 63;
}

/* From a long record (a first-level node with children). */
static inline __attribute__((always_inline)) uint32_t
r4_long(const struct route_fib_root *r, uint32_t e, uint32_t addr)
{
    const struct route_fib_rec *rc =
        (const struct route_fib_rec *)&r->recs[e & ~ROUTE_FIB_REC_LONG];
    unsigned s = r4_shift1(addr);
    uint64_t m = rc->vec << s;
    if ((int64_t)m >= 0)
        return rc->leaf[__builtin_popcountll(rc->leafvec << s) - 1];
    return r4_walk(r, rc->base_node + (uint32_t)__builtin_popcountll(m) - 1, addr,
                   R4_DIRECT_BITS + 6);
}

/* From a short record (no children: every slot a leaf), a direct leaf's
 * shared one among them (its entry negative: route_fib.h). */
static inline __attribute__((always_inline)) uint32_t
r4_short(const struct route_fib_srec *sr, uint32_t addr)
{
    return sr->leaf[__builtin_popcountll(sr->leafvec << r4_shift1(addr)) - 1];
}

/* A direct leaf's next hop (ROUTE_FIB_LEAF set). */
static inline __attribute__((always_inline)) uint32_t r4_leaf(uint32_t e) { return (~e >> 1) & ROUTE_NH_MAX; }

static inline __attribute__((always_inline)) uint32_t
r4_lookup1(const struct route_fib_root *r, uint32_t addr)
{
    uint32_t e = atomic_load_explicit(&r->direct[addr >> (32 - R4_DIRECT_BITS)],
                                      memory_order_acquire);
    if (e & ROUTE_FIB_LEAF)
        return r4_leaf(e);
    if (e & ROUTE_FIB_REC_LONG)
        return r4_long(r, e, addr);
    return r4_short((const struct route_fib_srec *)&r->recs[(int32_t)e], addr);
}

/* Up to 32 addresses in two passes, each over independent loads so that
 * their misses overlap (one pass doing it all is slower: the out-of-order
 * window does not reach far enough): load every direct entry, keep the
 * address of the record it names and prefetch its first line, which holds
 * the leaf for most lookups (route_fib_run_alloc; a second line's prefetch
 * cost more than it saved: docs/route.md); then read each leaf from its
 * short record, a direct leaf's shared one too (route_fib.h), so that no
 * lane selects between the two (a branch there mispredicts on uniform
 * traffic). Long records (/25../32 below) are rare: a predictable branch.
 * Their entries' addresses lie past the pool, at or above `lng`
 * (route_fib_root_new keeps that from wrapping); only prefetched, never
 * read. Keeping addresses, not entries, leaves the second pass one load,
 * shift and count a lane. */
typedef uint32_t r4_long_fn(const struct route_fib_root *r, uint32_t e, uint32_t addr);

static inline __attribute__((always_inline)) void
r4_burst32(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh, unsigned b,
           r4_long_fn *long_fn)
{
    _Atomic uint32_t *direct = r->direct; /* once: acquire loads follow */
    uintptr_t recs = (uintptr_t)r->recs;
    uintptr_t lng = recs + 8 * (uintptr_t)ROUTE_FIB_REC_LONG;
    uintptr_t rec[32];
    for (unsigned i = 0; i < b; i++) {
        int32_t e = (int32_t)atomic_load_explicit(&direct[addr[i] >> (32 - R4_DIRECT_BITS)],
                                                  memory_order_acquire);
        rec[i] = recs + 8 * (uintptr_t)(intptr_t)e;
        __builtin_prefetch((const char *)rec[i]);
    }
    for (unsigned i = 0; i < b; i++) {
        if (NET_UNLIKELY(rec[i] >= lng)) {
            nh[i] = long_fn(r, (uint32_t)((rec[i] - recs) / 8), addr[i]);
            continue;
        }
        nh[i] = r4_short((const struct route_fib_srec *)rec[i], addr[i]);
    }
}

/* Full bursts with the count known, so that the passes unroll with fixed
 * offsets; the long path out of line, so that the short lanes' code is
 * not merged with its. */
static inline __attribute__((always_inline)) void
r4_burst(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh, size_t n,
         r4_long_fn *long_fn)
{
    for (; n >= 32; addr += 32, nh += 32, n -= 32)
        r4_burst32(r, addr, nh, 32, long_fn);
    if (n)
        r4_burst32(r, addr, nh, (unsigned)n, long_fn);
}

__attribute__((target("popcnt"), noinline)) static uint32_t
r4_long_popcnt(const struct route_fib_root *r, uint32_t e, uint32_t addr)
{
    return r4_long(r, e, addr);
}

__attribute__((noinline)) static uint32_t r4_long_soft(const struct route_fib_root *r, uint32_t e,
                                                       uint32_t addr)
{
    return r4_long(r, e, addr);
}

__attribute__((target("popcnt"))) static uint32_t r4_lookup_popcnt(const struct route_fib_root *r,
                                                                   uint32_t addr)
{
    return r4_lookup1(r, addr);
}

static uint32_t r4_lookup_soft(const struct route_fib_root *r, uint32_t addr)
{
    return r4_lookup1(r, addr);
}

__attribute__((target("popcnt"))) static void
r4_burst_popcnt(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh, size_t n)
{
    r4_burst(r, addr, nh, n, r4_long_popcnt);
}

static void r4_burst_soft(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh,
                          size_t n)
{
    r4_burst(r, addr, nh, n, r4_long_soft);
}

uint32_t route4_lookup(const struct route4 *t, uint32_t addr)
{
    const struct route_fib_root *r = route_fib_root(&t->fib);
    return t->fib.popcnt ? r4_lookup_popcnt(r, addr) : r4_lookup_soft(r, addr);
}

/* ---- Vector bursts: AVX-512 (route_cfg.avx512), then AVX2 ---- */
#if defined(__x86_64__)

/* A vector's lanes on long records (bits of m; e their direct entries),
 * one by one, in both: they are rare. */
ROUTE_AVX2 static void r4_long_lanes(const struct route_fib_root *r, vu32x8 e, unsigned m, const uint32_t *addr,
                                     uint32_t *nh)
{
    for (; m; m &= m - 1) {
        unsigned j = (unsigned)__builtin_ctz(m);
        nh[j] = r4_long(r, e[j], addr[j]);
    }
}

/* The low and high four lanes of a vector of 8. */
#define R4_LO(v) __builtin_shufflevector((v), (v), 0, 1, 2, 3)
#define R4_HI(v) __builtin_shufflevector((v), (v), 4, 5, 6, 7)

/* Where a short-record lane's leaf lies in the record pool: e the direct
 * entries (record indices), a the addresses, lv0 and lv1 the records'
 * leafvecs (lanes 0-3, 4-7). The slot's rank is the bit count of leafvec
 * shifted by 63 - slot; the offset is of the 32 bits ending with the leaf
 * (leaf rank - 1 at byte 8 + 2 (rank - 1) of the record). */
ROUTE_AVX2 ROUTE_INLINE vi32x8 r4_leaf_at(vu32x8 a, vu32x8 e, vu64x4 lv0, vu64x4 lv1)
{
    vu32x8 s = (~a >> (32 - R4_DIRECT_BITS - 6)) & 63;
    vu64x4 pc0 = route_popcnt64_256(lv0 << __builtin_convertvector(R4_LO(s), vu64x4));
    vu64x4 pc1 = route_popcnt64_256(lv1 << __builtin_convertvector(R4_HI(s), vu64x4));
    /* each rank is the low half of its qword */
    vu32x8 pc = __builtin_shufflevector((vu32x8)pc0, (vu32x8)pc1, 0, 2, 4, 6, 8, 10, 12, 14);
    return (vi32x8)((e << 3) + (pc << 1) + 4);
}

/* One vector's second step: e its 8 direct entries, a their addresses;
 * the next hops of the short-record lanes (shrt) and the direct leaves
 * (leaf). A gather is plain loads, each an acquire on x86, and the
 * record's index comes from the direct entry: no record is read before
 * the entry that published it. */
ROUTE_AVX512 ROUTE_INLINE vu32x8 r4_avx512_leaves(const void *recs, vu32x8 a, vu32x8 e, uint8_t shrt, uint8_t leaf)
{
    vu64x4 lv0 = (vu64x4)__builtin_ia32_gather3siv4di((vi64x4){0}, recs, R4_LO((vi32x8)e), shrt & 15, 8);
    vu64x4 lv1 = (vu64x4)__builtin_ia32_gather3siv4di((vi64x4){0}, recs, R4_HI((vi32x8)e), shrt >> 4, 8);
    vu32x8 lf = (vu32x8)__builtin_ia32_gather3siv8si((vi32x8){0}, recs, r4_leaf_at(a, e, lv0, lv1), shrt, 1) >> 16;
    return (vu32x8)__builtin_ia32_selectd_256(leaf, (vi32x8)((~e >> 1) & ROUTE_NH_MAX), (vi32x8)lf);
}

/* 8 addresses, a plain load where all are live: with a masked load the
 * bursts waited on their addresses (route6.c, r6_high_halves). */
ROUTE_AVX512 ROUTE_INLINE vu32x8 r4_addresses(const uint32_t *addr, uint8_t live)
{
    vu32x8 a;
    if (live == 0xff)
        __builtin_memcpy(&a, addr, sizeof(a));
    else
        a = (vu32x8)__builtin_ia32_loaddqusi256_mask((const vi32x8 *)addr, (vi32x8){0}, live);
    return a;
}

/* Up to 32 addresses a round as four vectors of 8 (a partial one
 * masked), in r4_burst32's two steps, each step's loads for every vector
 * before the next step: the direct entries (one gather a vector); then for
 * the lanes on a short record its leafvec (two 64-bit gathers), the slot's
 * rank (route_popcnt64_256) and the leaf (one gather, of the 32 bits ending
 * with it: the two bytes before a leaf are the record's own, so nothing
 * past a record is read); direct leaves masked in; long records (rare)
 * one by one. Masked-off lanes load nothing. 256-bit vectors, not 512:
 * with 16 lanes the lookups alone ran faster (1.3x rte_lpm in table
 * against 1.1-1.15x) but the forwarding pipeline around them 3-5% slower
 * than on the scalar path, which 8 lanes are not (docs/route.md). */
ROUTE_AVX512 static void r4_burst_avx512(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh,
                                      size_t n)
{
    const void *direct = (const void *)r->direct, *recs = (const void *)r->recs;
    for (size_t i = 0; i < n; i += 32) {
        size_t left = n - i;
        vu32x8 a[4], e[4];
        uint8_t live[4], lng[4];
        for (int k = 0; k < 4; k++) {
            size_t lanes = left > 8u * (unsigned)k ? left - 8u * (unsigned)k : 0;
            live[k] = (uint8_t)(lanes >= 8 ? 0xffu : (1u << lanes) - 1);
            a[k] = r4_addresses(addr + i + 8 * k, live[k]);
            e[k] = (vu32x8)__builtin_ia32_gather3siv8si((vi32x8){0}, direct, (vi32x8)(a[k] >> (32 - R4_DIRECT_BITS)),
                                                        live[k], 4);
        }
        for (int k = 0; k < 4; k++) {
            /* ROUTE_FIB_LEAF is the sign bit, ROUTE_FIB_REC_LONG the next */
            uint8_t leaf = live[k] & route_signs8(e[k]);
            lng[k] = live[k] & (uint8_t)~leaf & route_signs8(e[k] << 1);
            vu32x8 res = r4_avx512_leaves(recs, a[k], e[k], live[k] & (uint8_t)~(leaf | lng[k]), leaf);
            route_store8(nh + i + 8 * k, res, live[k]);
        }
        for (int k = 0; k < 4; k++)
            if (NET_UNLIKELY(lng[k]))
                r4_long_lanes(r, e[k], lng[k], addr + i + 8 * k, nh + i + 8 * k);
    }
}

/* ---- AVX2 bursts (route_cfg.avx2, where AVX-512 is not) ---- */

/* r4_avx512_leaves in AVX2: lane masks are vectors (a lane's sign bit). */
ROUTE_AVX2 ROUTE_INLINE vu32x8 r4_avx2_leaves(const void *recs, vu32x8 a, vu32x8 e, vi32x8 shrt, vi32x8 leaf)
{
    const long long *rq = (const long long *)recs;
    vu64x4 lv0 = (vu64x4)__builtin_ia32_gatherd_q256((vi64x4){0}, rq, R4_LO((vi32x8)e),
                                                     __builtin_convertvector(R4_LO(shrt), vi64x4), 8);
    vu64x4 lv1 = (vu64x4)__builtin_ia32_gatherd_q256((vi64x4){0}, rq, R4_HI((vi32x8)e),
                                                     __builtin_convertvector(R4_HI(shrt), vi64x4), 8);
    vu32x8 lf = (vu32x8)__builtin_ia32_gatherd_d256((vi32x8){0}, (const int *)recs, r4_leaf_at(a, e, lv0, lv1), shrt,
                                                    1) >> 16;
    return ((~e >> 1) & ROUTE_NH_MAX & (vu32x8)leaf) | (lf & ~(vu32x8)leaf);
}

/* r4_addresses in AVX2 (a lane's sign bit in live: it is live). */
ROUTE_AVX2 ROUTE_INLINE vu32x8 r4_addresses2(const uint32_t *addr, vi32x8 live)
{
    vu32x8 a;
    if (live[7] < 0)
        __builtin_memcpy(&a, addr, sizeof(a));
    else
        a = (vu32x8)__builtin_ia32_maskloadd256((const vi32x8 *)addr, live);
    return a;
}

/* r4_burst_avx512's steps and order, 8 lanes a vector, with AVX2's
 * gathers (a lane loads where its mask's sign bit is set) and masked
 * loads and stores (VPMASKMOV: masked-off lanes touch no memory). */
ROUTE_AVX2 static void r4_burst_avx2(const struct route_fib_root *r, const uint32_t *addr, uint32_t *nh, size_t n)
{
    const int *direct = (const int *)r->direct;
    const void *recs = (const void *)r->recs;
    const vi32x8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
    for (size_t i = 0; i < n; i += 32) {
        size_t left = n - i;
        vu32x8 a[4], e[4];
        vi32x8 live[4];
        unsigned lng[4];
        for (int k = 0; k < 4; k++) {
            size_t lanes = left > 8u * (unsigned)k ? left - 8u * (unsigned)k : 0;
            live[k] = (vi32x8){0} + (lanes >= 8 ? 8 : (int)lanes) > lane;
            a[k] = r4_addresses2(addr + i + 8 * k, live[k]);
            e[k] = (vu32x8)__builtin_ia32_gatherd_d256((vi32x8){0}, direct, (vi32x8)(a[k] >> (32 - R4_DIRECT_BITS)),
                                                       live[k], 4);
        }
        for (int k = 0; k < 4; k++) {
            /* a masked-off lane's entry is 0: neither leaf nor long */
            vi32x8 leaf = (vi32x8)e[k] >> 31, lmask = ~leaf & ((vi32x8)e[k] << 1 >> 31);
            vi32x8 shrt = live[k] & ~(leaf | lmask);
            vu32x8 res = r4_avx2_leaves(recs, a[k], e[k], shrt, leaf);
            if (live[k][7] < 0) /* all live: as route_store8 */
                __builtin_memcpy(nh + i + 8 * k, &res, sizeof(res));
            else
                __builtin_ia32_maskstored256((vi32x8 *)(nh + i + 8 * k), live[k], (vi32x8)res);
            lng[k] = (unsigned)__builtin_ia32_movmskps256((vf32x8)lmask);
        }
        for (int k = 0; k < 4; k++)
            if (NET_UNLIKELY(lng[k]))
                r4_long_lanes(r, e[k], lng[k], addr + i + 8 * k, nh + i + 8 * k);
    }
}
#endif

void route4_lookup_burst(const struct route4 *t, const uint32_t *addr, uint32_t *nh, size_t n)
{
    const struct route_fib_root *r = route_fib_root(&t->fib);
#if defined(__x86_64__)
    if (t->fib.avx512 && n >= ROUTE4_SIMD_MIN_BURST) {
        r4_burst_avx512(r, addr, nh, n);
        return;
    }
    if (t->fib.avx2 && n >= ROUTE4_SIMD_MIN_BURST) {
        r4_burst_avx2(r, addr, nh, n);
        return;
    }
#endif
    if (t->fib.popcnt)
        r4_burst_popcnt(r, addr, nh, n);
    else
        r4_burst_soft(r, addr, nh, n);
}

int route4_defer(struct route4 *t, bool on) { return route_fib_defer(&t->fib, on); }
uint32_t route4_deferred(const struct route4 *t) { return t->fib.deferred; }
