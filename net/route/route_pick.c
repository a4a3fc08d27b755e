/* SPDX-License-Identifier: MIT */
/* net/route/route_pick.c: the lookup paths timed (route_pick.h). */
#include "route_pick.h"

#include "route4.h"
#include "route6.h"

#define PICK_TRIALS 3
/* A later path within this share of the fastest is taken instead: such
 * ties are the timing's noise (machine D: IPv4's AVX2 and AVX-512 bursts
 * 1.3-1.4 ns a lookup each, either fastest from one run to the next), and
 * on a full table the later path is as fast in table prefixes and faster
 * on uniform addresses (232 against 207 M/s). So the pick stays the same
 * from one boot to the next. */
#define PICK_TIE_PCT 5

const char *const route_path_names[ROUTE_PATHS] = {"portable", "popcnt", "avx2", "avx512"};

void route_cfg_path(struct route_cfg *cfg, unsigned path)
{
    cfg->popcnt = path >= ROUTE_PATH_POPCNT;
    cfg->avx2 = path >= ROUTE_PATH_AVX2;
    cfg->avx512 = path >= ROUTE_PATH_AVX512;
}

static uint64_t pick_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* What one family's timing works on: its table and the addresses. */
struct pick_rig {
    struct route4 *t4;
    struct route6 *t6;
    void *prefixes, *addrs;
    uint32_t *nh;
};

/* IPv4: most /24, the rest /16 to /23, as in the Internet's table. */
static bool fill4(struct pick_rig *g, const struct route_cfg *cfg, uint64_t *s)
{
    struct route4_prefix *p = g->prefixes;
    uint32_t *a = g->addrs;
    if ((g->t4 = route4_create(cfg)) == NULL)
        return false;
    for (unsigned i = 0; i < ROUTE_PICK_PREFIXES; i++) {
        uint64_t r = pick_rand(s);
        uint32_t len = r % 10 < 6 ? 24 : 16 + (uint32_t)(r >> 8) % 8;
        p[i] = (struct route4_prefix){(uint32_t)(r >> 32) & ~(~0u >> len), len, 1 + (uint32_t)(r >> 16) % 64};
    }
    if (route4_add_bulk(g->t4, p, ROUTE_PICK_PREFIXES, NULL) != ROUTE_OK)
        return false;
    for (unsigned i = 0; i < ROUTE_PICK_ADDRS; i++) {
        const struct route4_prefix *q = &p[pick_rand(s) % ROUTE_PICK_PREFIXES];
        a[i] = q->addr | ((uint32_t)pick_rand(s) & (~0u >> q->len));
    }
    return true;
}

/* The host bits of a 64-bit half under a prefix of len (0..64). */
static uint64_t host64(uint32_t len) { return len >= 64 ? 0 : ~0ull >> len; }

static void put_be64(uint8_t *b, uint64_t x)
{
    for (int i = 7; i >= 0; i--, x >>= 8)
        b[i] = (uint8_t)x;
}

/* IPv6: half /48, a fifth /32, the rest /29 to /64, in 2000::/12,
 * 2400::/12, 2600::/12, 2800::/12, 2a00::/12 and 2c00::/12. */
static bool fill6(struct pick_rig *g, const struct route_cfg *cfg, uint64_t *s)
{
    static const uint64_t region[] = {0x200, 0x240, 0x260, 0x280, 0x2a0, 0x2c0};
    struct route6_prefix *p = g->prefixes;
    uint8_t(*a)[16] = g->addrs;
    if ((g->t6 = route6_create(cfg)) == NULL)
        return false;
    for (unsigned i = 0; i < ROUTE_PICK_PREFIXES; i++) {
        uint64_t r = pick_rand(s);
        uint32_t len = r % 10 < 5 ? 48 : r % 10 < 7 ? 32 : 29 + (uint32_t)(r >> 8) % 36;
        uint64_t x = region[(r >> 16) % 6] << 52 | (pick_rand(s) >> 12);
        p[i] = (struct route6_prefix){.len = len, .nh = 1 + (uint32_t)(r >> 24) % 64};
        put_be64(p[i].addr, x & ~host64(len));
    }
    if (route6_add_bulk(g->t6, p, ROUTE_PICK_PREFIXES, NULL) != ROUTE_OK)
        return false;
    for (unsigned i = 0; i < ROUTE_PICK_ADDRS; i++) {
        const struct route6_prefix *q = &p[pick_rand(s) % ROUTE_PICK_PREFIXES];
        uint64_t x = 0;
        for (int b = 0; b < 8; b++)
            x = x << 8 | q->addr[b];
        put_be64(a[i], x | (pick_rand(s) & host64(q->len)));
        put_be64(a[i] + 8, pick_rand(s));
    }
    return true;
}

/* One pass of bursts of 32 over the addresses. */
static void pass(const struct pick_rig *g, enum route_family fam)
{
    for (unsigned i = 0; i < ROUTE_PICK_ADDRS; i += 32) {
        if (fam == ROUTE_V4)
            route4_lookup_burst(g->t4, (const uint32_t *)g->addrs + i, g->nh + i, 32);
        else
            route6_lookup_burst(g->t6, (const uint8_t(*)[16])g->addrs + i, g->nh + i, 32);
    }
}

unsigned route_pick_path(const struct route_alloc *al, enum route_family fam, unsigned max, uint64_t (*now_ns)(void),
                         struct route_pick *out)
{
    struct route_cfg cfg = {.alloc = *al};
    size_t psize = ROUTE_PICK_PREFIXES * (fam == ROUTE_V4 ? sizeof(struct route4_prefix) : sizeof(struct route6_prefix));
    size_t asize = ROUTE_PICK_ADDRS * (fam == ROUTE_V4 ? 4u : 16u), nsize = 2 * ROUTE_PICK_ADDRS * 4u;
    struct pick_rig g = {NULL, NULL, al->alloc(al->ctx, psize, 64), al->alloc(al->ctx, asize, 64),
                         al->alloc(al->ctx, nsize, 64)};
    uint64_t s = 0x9e3779b97f4a7c15ull;
    if (max >= ROUTE_PATHS)
        max = ROUTE_PATHS - 1;
    *out = (struct route_pick){.best = max};
    if (!g.prefixes || !g.addrs || !g.nh || !(fam == ROUTE_V4 ? fill4(&g, &cfg, &s) : fill6(&g, &cfg, &s)))
        goto out;
    uint32_t *want = g.nh + ROUTE_PICK_ADDRS; /* the portable code's answers */
    for (unsigned p = 0; p <= max; p++)
        out->ns[p] = UINT64_MAX;
    for (unsigned trial = 0; trial < PICK_TRIALS; trial++)
        for (unsigned p = 0; p <= max; p++) {
            route_cfg_path(&cfg, p);
            if (fam == ROUTE_V4)
                route4_set_paths(g.t4, &cfg);
            else
                route6_set_paths(g.t6, &cfg);
            pass(&g, fam); /* warm */
            uint64_t t0 = now_ns();
            for (unsigned k = 0; k < ROUTE_PICK_PASSES; k++)
                pass(&g, fam);
            uint64_t dt = now_ns() - t0;
            out->ns[p] = dt < out->ns[p] ? dt : out->ns[p];
            for (unsigned i = 0; i < ROUTE_PICK_ADDRS; i++) {
                if (p == ROUTE_PATH_PORTABLE)
                    want[i] = g.nh[i];
                else if (g.nh[i] != want[i])
                    out->wrong |= 1u << p;
            }
        }
    unsigned fastest = ROUTE_PATH_PORTABLE;
    for (unsigned p = 1; p <= max; p++)
        if (!((out->wrong >> p) & 1) && out->ns[p] < out->ns[fastest])
            fastest = p;
    out->best = fastest;
    for (unsigned p = fastest + 1; p <= max; p++)
        if (!((out->wrong >> p) & 1) && out->ns[p] * 100 <= out->ns[fastest] * (100 + PICK_TIE_PCT))
            out->best = p;
out:
    if (g.nh)
        al->free(al->ctx, g.nh, nsize);
    if (g.addrs)
        al->free(al->ctx, g.addrs, asize);
    if (g.prefixes)
        al->free(al->ctx, g.prefixes, psize);
    route4_destroy(g.t4);
    route6_destroy(g.t6);
    return out->best;
}
