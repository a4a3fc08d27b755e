/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/rib_random.c: 100k random announces, withdraws, peer
 * downs, next-hop and peer-fact changes over 8 peers and 2k prefixes,
 * checked every 1000 operations against a model that recomputes each
 * prefix's best from scratch by RFC 4271 9.1 as written; the best_changed
 * calls must replay into exactly the RIB's bests, each one a change. Also
 * a timing print (no assertion on it). */
#include <time.h>

#include "tests/unit/bgp/rib_fixture.h"

#define R_PREFIXES 2000
#define R_PEERS 8
#define R_SETS 48
#define R_NH 6

struct rset {
    struct sd d;
    const struct bgp_aset *s;
};

struct rmodel {
    struct fx f;
    struct rset set[R_SETS];
    int16_t path[R_PREFIXES][R_PEERS]; /* set index or -1 */
    bool ebgp[R_PEERS];
    uint32_t rid[R_PEERS];
    /* what the best_changed calls said: peer (-1 none) and set */
    int fib_peer[R_PREFIXES];
    const struct bgp_aset *fib_set[R_PREFIXES];
    unsigned bad_calls;
    unsigned won_by[BGP_WHY_PEER_ADDR + 1]; /* what decided the bests seen */
};

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static struct bgp_prefix r_prefix(unsigned i)
{
    if (i < 1500)
        return fx_p4(100, (uint8_t)(i >> 8), (uint8_t)i, 0, 24);
    return fx_p6(0x2001, 0xdb8, (uint16_t)i, 48);
}

static unsigned r_index(const struct bgp_prefix *p)
{
    if (p->afi == BGP_AFI_IPV4)
        return (unsigned)p->addr[1] << 8 | p->addr[2];
    return (unsigned)p->addr[4] << 8 | p->addr[5];
}

static void r_changed(struct fx *f, const struct bgp_route *r, const struct bgp_path *best,
                      const struct bgp_path *old)
{
    struct rmodel *m = f->user;
    unsigned i = r_index(&r->p);
    int bp = best ? best->peer : -1, op = old ? old->peer : -1;
    const struct bgp_aset *bs = best ? best->a : NULL, *os = old ? old->a : NULL;
    /* old is what was said last; best is a change from it */
    if (op != m->fib_peer[i] || os != m->fib_set[i] || (bp == op && bs == os))
        m->bad_calls++;
    m->fib_peer[i] = bp;
    m->fib_set[i] = bs;
}

static bool r_reachable(const struct rmodel *m, unsigned peer, const struct sd *d)
{
    return peer == 0 || !m->f.unreachable[d->nh];
}

static uint32_t r_cost(const struct rmodel *m, unsigned peer, const struct sd *d)
{
    return peer == 0 ? 0 : m->f.cost[d->nh];
}

/* The model's best for prefix i: RFC 4271 9.1 over the whole set. */
static int r_best(const struct rmodel *m, unsigned i)
{
    bool in[R_PEERS];
    int n = 0;
    for (unsigned p = 0; p < R_PEERS; p++) {
        in[p] = false;
        int k = m->path[i][p];
        if (k < 0)
            continue;
        const struct sd *d = &m->set[k].d;
        bool loop = false;
        for (unsigned j = 0; j < d->nas; j++)
            loop |= d->as[j] == FX_LOCAL_AS;
        in[p] = !loop && r_reachable(m, p, d);
        n += in[p];
    }
    if (n == 0)
        return -1;
    if (in[0])
        return 0;
    for (int step = 0; step < 8; step++) {
        uint64_t key[R_PEERS], low = UINT64_MAX;
        bool drop[R_PEERS] = {false};
        for (unsigned p = 0; p < R_PEERS; p++) {
            if (!in[p])
                continue;
            const struct sd *d = &m->set[m->path[i][p]].d;
            switch (step) {
            case 0: key[p] = 0xffffffffu - (d->has_lp ? d->lp : 100); break;
            case 1: key[p] = d->nas; break;
            case 2: key[p] = d->origin; break;
            case 3: /* MED: beaten by any same-first-AS path with a lower one */
                key[p] = 0;
                for (unsigned q = 0; q < R_PEERS; q++) {
                    if (!in[q])
                        continue;
                    const struct sd *e = &m->set[m->path[i][q]].d;
                    if (e->as[0] == d->as[0] && (e->has_med ? e->med : 0) < (d->has_med ? d->med : 0))
                        drop[p] = true;
                }
                break;
            case 4: key[p] = m->ebgp[p] ? 0 : 1; break;
            case 5: key[p] = r_cost(m, p, d); break;
            case 6: key[p] = m->rid[p]; break;
            default: key[p] = p; break; /* addresses are 192.0.2.PEER */
            }
            if (step != 3 && key[p] < low)
                low = key[p];
        }
        for (unsigned p = 0; p < R_PEERS; p++)
            if (in[p] && (step == 3 ? drop[p] : key[p] != low))
                in[p] = false;
    }
    for (unsigned p = 0; p < R_PEERS; p++)
        if (in[p])
            return (int)p;
    return -2;
}

static void r_check(struct rmodel *m, unsigned op)
{
    unsigned bad = 0, prefixes = 0, paths = 0;
    struct bgp_rib_peer_counts want[R_PEERS] = {{0}};
    for (unsigned i = 0; i < R_PREFIXES; i++) {
        struct bgp_prefix p = r_prefix(i);
        const struct bgp_route *rt = bgp_rib_find(&m->f.rib, &p);
        int b = r_best(m, i), got = rt && rt->best ? rt->best->peer : -1;
        bool any = false;
        for (unsigned q = 0; q < R_PEERS; q++) {
            int k = m->path[i][q];
            if (k < 0)
                continue;
            any = true;
            paths++;
            want[q].received++;
            bool loop = false;
            for (unsigned j = 0; j < m->set[k].d.nas; j++)
                loop |= m->set[k].d.as[j] == FX_LOCAL_AS;
            want[q].accepted += !loop && r_reachable(m, q, &m->set[k].d);
        }
        prefixes += any;
        if (b >= 0)
            want[b].best++;
        if (rt && rt->best)
            m->won_by[bgp_rib_why(&m->f.rib, rt, rt->best)]++;
        if (got != b || (b >= 0 && rt->best->a != m->set[m->path[i][b]].s) || m->fib_peer[i] != b ||
            (b >= 0 && m->fib_set[i] != rt->best->a) || (rt != NULL) != any) {
            if (bad++ < 3)
                fprintf(stderr, "  op %u prefix %u: model %d, rib %d, told %d\n", op, i, b, got, m->fib_peer[i]);
        }
    }
    CHECK_EQ(bad, 0);
    struct bgp_rib_stats st;
    bgp_rib_stats(&m->f.rib, &st);
    CHECK_EQ(st.prefixes, prefixes);
    CHECK_EQ(st.paths, paths);
    for (unsigned q = 0; q < R_PEERS; q++) {
        struct bgp_rib_peer_counts c;
        bgp_rib_peer_counts(&m->f.rib, (uint16_t)q, &c);
        CHECK(c.received == want[q].received && c.accepted == want[q].accepted && c.best == want[q].best);
    }
    CHECK_EQ(m->bad_calls, 0);
}

TEST(bgp_rib_random_against_a_model)
{
    static struct rmodel m;
    memset(&m, 0, sizeof m);
    fx_init(&m.f);
    m.f.also = r_changed;
    m.f.user = &m;
    uint64_t seed = 0x5eed0fb69ull;
    for (unsigned p = 0; p < R_PEERS; p++) {
        m.ebgp[p] = p % 2 == 1;
        m.rid[p] = 0x0a000000u + (uint32_t)(rng(&seed) % 3);
        fx_peer(&m.f, (uint16_t)p, m.ebgp[p], m.rid[p]);
    }
    for (unsigned i = 0; i < R_PREFIXES; i++) {
        m.fib_peer[i] = -1;
        for (unsigned p = 0; p < R_PEERS; p++)
            m.path[i][p] = -1;
    }
    for (unsigned nh = 1; nh <= R_NH; nh++)
        m.f.cost[nh] = (uint32_t)(rng(&seed) % 3) * 10;
    /* Small domains, so that every step has ties to break. */
    static const uint32_t ases[] = {100, 200, 300, FX_LOCAL_AS};
    for (unsigned k = 0; k < R_SETS; k++) {
        struct sd *d = &m.set[k].d;
        uint64_t x = rng(&seed);
        d->has_lp = x % 4 != 0;
        d->lp = 90 + (uint32_t)(x >> 2) % 3 * 10;
        d->has_med = (x >> 8) % 3 != 0;
        d->med = (uint32_t)(x >> 10) % 3;
        d->origin = (uint8_t)((x >> 14) % 3);
        d->nh = (uint8_t)(1 + (x >> 16) % R_NH);
        d->nas = (uint8_t)(1 + (x >> 20) % 3);
        for (unsigned j = 0; j < d->nas; j++)
            d->as[j] = ases[(x >> (24 + 3 * j)) % (j ? 4 : 3)]; /* a loop only past the first AS */
        d->tag = k + 1; /* every set distinct */
        m.set[k].s = fx_set(&m.f, *d);
    }
    for (unsigned op = 1; op <= 100000; op++) {
        uint64_t x = rng(&seed);
        unsigned what = (unsigned)(x % 1000), i = (unsigned)(x >> 10) % R_PREFIXES;
        /* peer 0 rarely: it wins wherever it is */
        unsigned peer = (x >> 32) % 64 == 0 ? 0 : 1 + (unsigned)(x >> 40) % (R_PEERS - 1);
        struct bgp_prefix p = r_prefix(i);
        if (what < 650) {
            int k = (int)((x >> 48) % R_SETS);
            CHECK_EQ(bgp_rib_announce(&m.f.rib, (uint16_t)peer, &p, m.set[k].s), 0);
            m.path[i][peer] = (int16_t)k;
        } else if (what < 995) {
            CHECK_EQ(bgp_rib_withdraw(&m.f.rib, (uint16_t)peer, &p), m.path[i][peer] < 0 ? 1 : 0);
            m.path[i][peer] = -1;
        } else if (what < 997) {
            uint32_t want = 0;
            for (unsigned j = 0; j < R_PREFIXES; j++) {
                want += m.path[j][peer] >= 0;
                m.path[j][peer] = -1;
            }
            CHECK_EQ(bgp_rib_peer_down(&m.f.rib, (uint16_t)peer), want);
        } else if (what < 999) {
            unsigned nh = 1 + (unsigned)(x >> 48) % R_NH;
            if ((x >> 56) % 2)
                m.f.unreachable[nh] = !m.f.unreachable[nh];
            else
                m.f.cost[nh] = (uint32_t)((x >> 57) % 3) * 10;
            bgp_rib_nexthops_changed(&m.f.rib);
        } else {
            m.rid[peer] = 0x0a000000u + (uint32_t)((x >> 48) % 3);
            m.ebgp[peer] = peer && (x >> 56) % 2;
            fx_peer(&m.f, (uint16_t)peer, m.ebgp[peer], m.rid[peer]);
        }
        if (op % 1000 == 0) {
            r_check(&m, op);
            if (unit_failures)
                break;
        }
    }
    /* The model was asked about every step. */
    for (int w = BGP_WHY_ONLY; w <= BGP_WHY_PEER_ADDR; w++)
        if (w != BGP_WHY_AS_LOOP && w != BGP_WHY_UNREACHABLE && m.won_by[w] == 0) {
            fprintf(stderr, "  no best won by %s\n", bgp_why_name((enum bgp_why)w));
            unit_failures++;
        }
    for (unsigned k = 0; k < R_SETS; k++)
        bgp_aset_put(&m.f.rib, m.set[k].s);
    fx_fini(&m.f);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* 200k random IPv4 prefixes over 1k sets, then a second peer, then down:
 * the times go to stdout (this build has sanitizers: no claim on them). */
TEST(bgp_rib_timing_print)
{
    static struct fx f;
    static const struct bgp_aset *sets[1000];
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    fx_peer(&f, 2, true, 0);
    for (uint32_t k = 0; k < 1000; k++)
        sets[k] = fx_set(&f, (struct sd){.nas = 3, .as = {k % 50 + 1, k, 7}, .tag = k + 1});
    uint64_t seed = 12345;
    const unsigned n = 200000;
    double t0 = now_ns();
    for (unsigned i = 0; i < n; i++) {
        uint32_t a = (uint32_t)rng(&seed);
        struct bgp_prefix p = fx_p4((uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8), 0, 24);
        bgp_rib_announce(&f.rib, 1, &p, sets[i % 1000]);
    }
    double t1 = now_ns();
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    uint32_t down = bgp_rib_peer_down(&f.rib, 1);
    double t2 = now_ns();
    printf("     %u announces: %.0f ns each, %llu prefixes, %.1f bytes each; peer down %.0f ns per path\n", n,
           (t1 - t0) / n, (unsigned long long)st.prefixes, (double)st.bytes / (double)st.prefixes,
           (t2 - t1) / down);
    CHECK_EQ(down, st.prefixes);
    for (unsigned k = 0; k < 1000; k++)
        bgp_aset_put(&f.rib, sets[k]);
    fx_fini(&f);
}
