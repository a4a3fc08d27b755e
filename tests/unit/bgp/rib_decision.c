/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/rib_decision.c: RFC 4271 9.1's decision (bgp/bgp_decide.c)
 * through the RIB: each step deciding alone, in either announce order,
 * with its why; MED's elimination over the set where a pairwise order
 * would cycle; loops and unreachable next hops; exactly one best_changed
 * per change of the best. */
#include "tests/unit/bgp/rib_fixture.h"

struct step_case {
    enum bgp_why why;
    struct sd win, lose;
    bool win_ebgp, lose_ebgp;
    uint32_t win_rid, lose_rid; /* 0: 10.0.0.PEER */
    uint8_t win_addr, lose_addr; /* 192.0.2.X; 0: the peer's number */
};

static const struct step_case step_cases[] = {
    /* 9.1.1: LOCAL_PREF first, whatever the rest says. */
    {.why = BGP_WHY_LOCAL_PREF,
     .win = {.has_lp = true, .lp = 200, .nas = 3, .as = {100, 101, 102}, .origin = 2},
     .lose = {.nas = 1, .as = {200}},
     .lose_ebgp = true},
    /* a) the shorter path, though its origin is worse. */
    {.why = BGP_WHY_AS_PATH, .win = {.nas = 1, .as = {100}, .origin = 2}, .lose = {.nas = 2, .as = {200, 201}}},
    /* an AS_SET counts one */
    {.why = BGP_WHY_AS_PATH,
     .win = {.nas = 4, .as = {100, 101, 102, 103}, .as_set = true},
     .lose = {.nas = 2, .as = {200, 201}}},
    /* b) the lower origin, though its MED is higher. */
    {.why = BGP_WHY_ORIGIN,
     .win = {.nas = 1, .as = {100}, .has_med = true, .med = 50},
     .lose = {.nas = 1, .as = {100}, .origin = 1}},
    /* c) the lower MED from the same neighbour AS, though iBGP against eBGP. */
    {.why = BGP_WHY_MED,
     .win = {.nas = 2, .as = {100, 7}, .has_med = true, .med = 5},
     .lose = {.nas = 2, .as = {100, 8}, .has_med = true, .med = 10},
     .lose_ebgp = true},
    /* d) eBGP, though its next hop costs more. */
    {.why = BGP_WHY_EBGP, .win = {.nas = 1, .as = {100}, .nh = 3}, .lose = {.nas = 1, .as = {200}, .nh = 2},
     .win_ebgp = true},
    /* e) the cheaper next hop, though its router ID is higher. */
    {.why = BGP_WHY_IGP_COST, .win = {.nas = 1, .as = {100}, .nh = 2}, .lose = {.nas = 1, .as = {200}, .nh = 3},
     .win_rid = 0x0b000000, .lose_rid = 0x01000000},
    /* f) the lower router ID, though its address is higher. */
    {.why = BGP_WHY_ROUTER_ID, .win = {.nas = 1, .as = {100}}, .lose = {.nas = 1, .as = {200}},
     .win_rid = 0x01010101, .lose_rid = 0x02020202, .win_addr = 200, .lose_addr = 3},
    /* g) the lower peer address. */
    {.why = BGP_WHY_PEER_ADDR, .win = {.nas = 1, .as = {100}}, .lose = {.nas = 1, .as = {200}},
     .win_rid = 0x05050505, .lose_rid = 0x05050505, .win_addr = 4, .lose_addr = 5},
};

static void facts(struct fx *f, uint16_t peer, bool ebgp, uint32_t rid, uint8_t addr)
{
    struct bgp_peer_facts pf = {.as = ebgp ? 64500u + peer : FX_LOCAL_AS,
                                .router_id = rid ? rid : 0x0a000000u + peer,
                                .ebgp = ebgp,
                                .afi = BGP_AFI_IPV4,
                                .addr = {192, 0, 2, addr ? addr : (uint8_t)peer}};
    bgp_rib_set_peer(&f->rib, peer, &pf);
}

TEST(bgp_rib_decision_each_step_alone)
{
    for (size_t c = 0; c < sizeof step_cases / sizeof step_cases[0]; c++) {
        const struct step_case *k = &step_cases[c];
        /* winner peer 1 or 2, announced first or second */
        for (int v = 0; v < 4; v++) {
            static struct fx f;
            fx_init(&f);
            f.cost[2] = 5, f.cost[3] = 10;
            uint16_t w = v & 1 ? 2 : 1, l = 3 - w;
            facts(&f, w, k->win_ebgp, k->win_rid, k->win_addr);
            facts(&f, l, k->lose_ebgp, k->lose_rid, k->lose_addr);
            const struct bgp_aset *sw = fx_set(&f, k->win), *sl = fx_set(&f, k->lose);
            struct bgp_prefix p = fx_p4(198, 51, 100, 0, 24);
            bool win_first = v & 2;
            CHECK_EQ(bgp_rib_announce(&f.rib, win_first ? w : l, &p, win_first ? sw : sl), 0);
            CHECK_EQ(bgp_rib_announce(&f.rib, win_first ? l : w, &p, win_first ? sl : sw), 0);
            if (fx_best(&f, p) != w || fx_why(&f, p, w) != k->why || fx_why(&f, p, l) != k->why)
                fprintf(stderr, "  case %zu (%s) variant %d: best %d, why %s / %s\n", c, bgp_why_name(k->why), v,
                        fx_best(&f, p), bgp_why_name(fx_why(&f, p, w)), bgp_why_name(fx_why(&f, p, l)));
            CHECK_EQ(fx_best(&f, p), w);
            CHECK_EQ(fx_why(&f, p, w), k->why);
            CHECK_EQ(fx_why(&f, p, l), k->why);
            /* one call for the first path, another only if the winner came second */
            CHECK_EQ(f.calls, win_first ? 1 : 2);
            bgp_aset_put(&f.rib, sw);
            bgp_aset_put(&f.rib, sl);
            fx_fini(&f);
        }
    }
}

TEST(bgp_rib_decision_missing_local_pref_is_100)
{
    static struct fx f;
    fx_init(&f);
    for (uint16_t n = 1; n <= 3; n++)
        fx_peer(&f, n, false, 0);
    const struct bgp_aset *none = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    const struct bgp_aset *hi = fx_set(&f, (struct sd){.has_lp = true, .lp = 101, .nas = 1, .as = {100}});
    const struct bgp_aset *lo = fx_set(&f, (struct sd){.has_lp = true, .lp = 99, .nas = 1, .as = {100}});
    struct bgp_prefix p = fx_p4(10, 1, 0, 0, 16);
    bgp_rib_announce(&f.rib, 3, &p, lo);
    bgp_rib_announce(&f.rib, 1, &p, none);
    bgp_rib_announce(&f.rib, 2, &p, hi);
    CHECK_EQ(fx_best(&f, p), 2);
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_LOCAL_PREF);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 2, &p), 0);
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_why(&f, p, 3), BGP_WHY_LOCAL_PREF);
    CHECK_EQ(f.calls, 4); /* lo, none (100 > 99), hi, none again */
    bgp_aset_put(&f.rib, none);
    bgp_aset_put(&f.rib, hi);
    bgp_aset_put(&f.rib, lo);
    fx_fini(&f);
}

TEST(bgp_rib_decision_missing_med_is_lowest)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, false, 0);
    fx_peer(&f, 2, false, 0);
    /* peer 2's lower router ID would win if MED did not decide */
    const struct bgp_aset *none = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    const struct bgp_aset *one = fx_set(&f, (struct sd){.has_med = true, .med = 1, .nas = 1, .as = {100}});
    const struct bgp_aset *zero = fx_set(&f, (struct sd){.has_med = true, .med = 0, .nas = 1, .as = {100}});
    CHECK(none != zero); /* present and 0 is another set, though it ranks the same */
    struct bgp_prefix p = fx_p4(10, 2, 0, 0, 16);
    bgp_rib_announce(&f.rib, 2, &p, one);
    bgp_rib_announce(&f.rib, 1, &p, none);
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_why(&f, p, 2), BGP_WHY_MED);
    bgp_rib_announce(&f.rib, 2, &p, zero); /* now equal MEDs: router ID decides */
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_why(&f, p, 2), BGP_WHY_ROUTER_ID);
    /* Another neighbour AS: MEDs are not compared at all. */
    const struct bgp_aset *other = fx_set(&f, (struct sd){.has_med = true, .med = 1000, .nas = 1, .as = {300}});
    fx_peer(&f, 3, false, 0x01000000);
    bgp_rib_announce(&f.rib, 3, &p, other);
    CHECK_EQ(fx_best(&f, p), 3);
    CHECK_EQ(fx_why(&f, p, 3), BGP_WHY_ROUTER_ID);
    bgp_aset_put(&f.rib, none);
    bgp_aset_put(&f.rib, one);
    bgp_aset_put(&f.rib, zero);
    bgp_aset_put(&f.rib, other);
    fx_fini(&f);
}

/* X and Y from neighbour AS 100 (X's MED lower), Z from AS 200. Pairwise,
 * X beats Y (MED), Y beats Z (eBGP), Z beats X (IGP cost): a cycle, so
 * comparing the paths two at a time gives whichever came last or first.
 * RFC 4271 9.1.2.2 c) removes Y in the MED step over the whole set, then Z
 * beats X on cost: Z, in every order. */
struct med3 {
    struct fx f;
    const struct bgp_aset *x, *y, *z;
};

static void med3_init(struct med3 *m)
{
    fx_init(&m->f);
    m->f.cost[1] = 10, m->f.cost[2] = 10, m->f.cost[3] = 1;
    fx_peer(&m->f, 1, false, 0);
    fx_peer(&m->f, 2, true, 0);
    fx_peer(&m->f, 3, false, 0);
    m->x = fx_set(&m->f, (struct sd){.has_med = true, .med = 0, .nas = 1, .as = {100}, .nh = 1});
    m->y = fx_set(&m->f, (struct sd){.has_med = true, .med = 5, .nas = 1, .as = {100}, .nh = 2});
    m->z = fx_set(&m->f, (struct sd){.nas = 1, .as = {200}, .nh = 3});
}

static void med3_fini(struct med3 *m)
{
    bgp_aset_put(&m->f.rib, m->x);
    bgp_aset_put(&m->f.rib, m->y);
    bgp_aset_put(&m->f.rib, m->z);
    fx_fini(&m->f);
}

TEST(bgp_rib_decision_med_is_elimination_not_pairwise)
{
    static struct med3 m;
    struct bgp_prefix p = fx_p4(203, 0, 113, 0, 24);
    /* The pairs alone: a cycle. */
    static const struct { uint16_t a, b, win; enum bgp_why why; } pairs[] = {
        {1, 2, 1, BGP_WHY_MED}, {2, 3, 2, BGP_WHY_EBGP}, {3, 1, 3, BGP_WHY_IGP_COST}};
    for (int i = 0; i < 3; i++) {
        med3_init(&m);
        const struct bgp_aset *set[4] = {NULL, m.x, m.y, m.z};
        bgp_rib_announce(&m.f.rib, pairs[i].a, &p, set[pairs[i].a]);
        bgp_rib_announce(&m.f.rib, pairs[i].b, &p, set[pairs[i].b]);
        CHECK_EQ(fx_best(&m.f, p), pairs[i].win);
        CHECK_EQ(fx_why(&m.f, p, pairs[i].win), pairs[i].why);
        med3_fini(&m);
    }
    /* All three, in each of the six orders. */
    static const uint16_t orders[6][3] = {{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}};
    for (int o = 0; o < 6; o++) {
        med3_init(&m);
        const struct bgp_aset *set[4] = {NULL, m.x, m.y, m.z};
        for (int i = 0; i < 3; i++)
            bgp_rib_announce(&m.f.rib, orders[o][i], &p, set[orders[o][i]]);
        CHECK_EQ(fx_best(&m.f, p), 3);
        CHECK_EQ(fx_why(&m.f, p, 3), BGP_WHY_IGP_COST);
        CHECK_EQ(fx_why(&m.f, p, 1), BGP_WHY_IGP_COST);
        CHECK_EQ(fx_why(&m.f, p, 2), BGP_WHY_MED);
        /* Withdrawing X, which was not best, frees Y from the MED step:
         * Y is best now, and that is one best_changed. */
        unsigned calls = m.f.calls;
        CHECK_EQ(bgp_rib_withdraw(&m.f.rib, 1, &p), 0);
        CHECK_EQ(fx_best(&m.f, p), 2);
        CHECK_EQ(m.f.calls, calls + 1);
        CHECK_EQ(m.f.old_peer, 3);
        med3_fini(&m);
    }
}

TEST(bgp_rib_decision_local_routes_win_when_eligible)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    const struct bgp_aset *mine = fx_set(&f, (struct sd){.has_lp = true, .lp = 1, .origin = 2, .nh = 9});
    const struct bgp_aset *theirs = fx_set(&f, (struct sd){.has_lp = true, .lp = 500, .nas = 1, .as = {100}});
    f.unreachable[9] = true; /* peer 0's next hop is not resolved at all */
    struct bgp_prefix p = fx_p6(0x2001, 0xdb8, 0x10, 48);
    bgp_rib_announce(&f.rib, 1, &p, theirs);
    bgp_rib_announce(&f.rib, 0, &p, mine);
    CHECK_EQ(fx_best(&f, p), 0);
    CHECK_EQ(fx_why(&f, p, 0), BGP_WHY_LOCAL);
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_LOCAL);
    CHECK_EQ(f.calls, 2);
    bgp_rib_withdraw(&f.rib, 0, &p);
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_ONLY);
    CHECK_EQ(f.calls, 3);
    bgp_aset_put(&f.rib, mine);
    bgp_aset_put(&f.rib, theirs);
    fx_fini(&f);
}

TEST(bgp_rib_decision_loops_are_kept_never_chosen)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, true, 0);
    fx_peer(&f, 2, true, 0);
    fx_peer(&f, 3, true, 0);
    const struct bgp_aset *seq = fx_set(&f, (struct sd){.has_lp = true, .lp = 900, .nas = 2, .as = {100, FX_LOCAL_AS}});
    const struct bgp_aset *set = fx_set(&f, (struct sd){.nas = 2, .as = {FX_LOCAL_AS, 7}, .as_set = true});
    const struct bgp_aset *ok = fx_set(&f, (struct sd){.nas = 3, .as = {100, 200, 300}});
    CHECK(seq->loop && set->loop && !ok->loop);
    struct bgp_prefix p = fx_p4(192, 0, 2, 0, 24);
    bgp_rib_announce(&f.rib, 1, &p, seq);
    bgp_rib_announce(&f.rib, 2, &p, set);
    CHECK_EQ(fx_best(&f, p), -1);
    CHECK_EQ(f.calls, 0);
    CHECK(bgp_rib_find(&f.rib, &p) != NULL); /* kept in Adj-RIB-In */
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_AS_LOOP);
    struct bgp_rib_peer_counts c;
    bgp_rib_peer_counts(&f.rib, 1, &c);
    CHECK_EQ(c.received, 1);
    CHECK_EQ(c.accepted, 0);
    CHECK_EQ(c.best, 0);
    bgp_rib_announce(&f.rib, 3, &p, ok);
    CHECK_EQ(fx_best(&f, p), 3);
    CHECK_EQ(fx_why(&f, p, 3), BGP_WHY_ONLY);
    CHECK_EQ(f.calls, 1);
    bgp_rib_peer_counts(&f.rib, 3, &c);
    CHECK_EQ(c.received, 1);
    CHECK_EQ(c.accepted, 1);
    CHECK_EQ(c.best, 1);
    bgp_aset_put(&f.rib, seq);
    bgp_aset_put(&f.rib, set);
    bgp_aset_put(&f.rib, ok);
    fx_fini(&f);
}

TEST(bgp_rib_decision_unreachable_next_hops_and_their_return)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, false, 0);
    fx_peer(&f, 2, false, 0);
    f.unreachable[5] = true;
    f.cost[6] = 100;
    const struct bgp_aset *a = fx_set(&f, (struct sd){.nas = 1, .as = {100}, .nh = 5});
    const struct bgp_aset *b = fx_set(&f, (struct sd){.nas = 1, .as = {200}, .nh = 6});
    struct bgp_prefix p = fx_p6(0x2001, 0xdb8, 0, 32), q = fx_p4(10, 9, 0, 0, 16);
    bgp_rib_announce(&f.rib, 1, &p, a);
    bgp_rib_announce(&f.rib, 1, &q, a);
    CHECK_EQ(fx_best(&f, p), -1);
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_UNREACHABLE);
    CHECK_EQ(f.calls, 0);
    bgp_rib_announce(&f.rib, 2, &p, b);
    CHECK_EQ(fx_best(&f, p), 2);
    CHECK_EQ(f.calls, 1);
    /* The next hop comes back, cheaper: peer 1 wins on cost. */
    f.unreachable[5] = false;
    f.cost[5] = 1;
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_best(&f, q), 1);
    CHECK_EQ(fx_why(&f, p, 2), BGP_WHY_IGP_COST);
    CHECK_EQ(f.calls, 3);
    bgp_rib_nexthops_changed(&f.rib); /* nothing changed: no call */
    CHECK_EQ(f.calls, 3);
    f.cost[5] = 1000; /* dearer than peer 2's: p moves, q has no other path */
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(fx_best(&f, p), 2);
    CHECK_EQ(f.calls, 4);
    f.unreachable[6] = true;
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(f.calls, 5);
    f.unreachable[5] = true;
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(fx_best(&f, p), -1);
    CHECK_EQ(fx_best(&f, q), -1);
    CHECK_EQ(f.calls, 7);
    CHECK_EQ(f.best_peer, -1);
    struct bgp_rib_peer_counts c;
    bgp_rib_peer_counts(&f.rib, 1, &c);
    CHECK_EQ(c.received, 2);
    CHECK_EQ(c.accepted, 0);
    CHECK_EQ(c.best, 0);
    bgp_aset_put(&f.rib, a);
    bgp_aset_put(&f.rib, b);
    fx_fini(&f);
}

TEST(bgp_rib_decision_next_hop_resolved_once_per_set)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, false, 0);
    const struct bgp_aset *a = fx_set(&f, (struct sd){.nas = 1, .as = {100}, .nh = 4});
    for (unsigned i = 0; i < 1000; i++) {
        struct bgp_prefix p4 = fx_p4(10, (uint8_t)(i >> 8), (uint8_t)i, 0, 24);
        struct bgp_prefix p6 = fx_p6(0x2001, 0xdb8, (uint16_t)i, 48);
        bgp_rib_announce(&f.rib, 1, &p4, a);
        bgp_rib_announce(&f.rib, 1, &p6, a);
    }
    CHECK_EQ(f.resolves, 2); /* one per family */
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(f.resolves, 4);
    CHECK_EQ(f.calls, 2000);
    bgp_aset_put(&f.rib, a);
    fx_fini(&f);
}

TEST(bgp_rib_decision_best_changed_exactly)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, false, 0);
    fx_peer(&f, 2, false, 0);
    const struct bgp_aset *s200 = fx_set(&f, (struct sd){.has_lp = true, .lp = 200});
    const struct bgp_aset *s300 = fx_set(&f, (struct sd){.has_lp = true, .lp = 300});
    const struct bgp_aset *s100 = fx_set(&f, (struct sd){.has_lp = true, .lp = 100});
    const struct bgp_aset *s90 = fx_set(&f, (struct sd){.has_lp = true, .lp = 90});
    const struct bgp_aset *s50 = fx_set(&f, (struct sd){.has_lp = true, .lp = 50});
    struct bgp_prefix p = fx_p4(172, 16, 0, 0, 12), other = fx_p4(172, 32, 0, 0, 12);
    bgp_rib_announce(&f.rib, 1, &p, s200);
    bgp_rib_announce(&f.rib, 2, &p, s100);
    CHECK_EQ(f.calls, 1);
    CHECK_EQ(f.best_peer, 1);
    CHECK_EQ(f.old_peer, -1);
    bgp_rib_announce(&f.rib, 2, &p, s90); /* a loser replaced by a loser */
    bgp_rib_announce(&f.rib, 2, &p, s90); /* the same again */
    bgp_rib_announce(&f.rib, 1, &p, s200);
    CHECK_EQ(f.calls, 1);
    bgp_rib_announce(&f.rib, 1, &p, s300); /* the best, other attributes */
    CHECK_EQ(f.calls, 2);
    CHECK_EQ(f.best_peer, 1);
    CHECK_EQ(f.old_peer, 1);
    CHECK(f.best_set == s300 && f.old_set == s200);
    bgp_rib_announce(&f.rib, 1, &p, s50); /* now it loses */
    CHECK_EQ(f.calls, 3);
    CHECK_EQ(f.best_peer, 2);
    CHECK_EQ(f.old_peer, 1);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &p), 0); /* not the best */
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 1, &p), 1);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 2, &other), 1);
    CHECK_EQ(f.calls, 3);
    struct bgp_rib_stats st;
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 1);
    CHECK_EQ(st.paths, 1);
    CHECK_EQ(st.best_changes, 3);
    CHECK_EQ(st.withdraws, 1);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 2, &p), 0);
    CHECK_EQ(f.calls, 4);
    CHECK_EQ(f.best_peer, -1);
    CHECK_EQ(f.old_peer, 2);
    CHECK(bgp_rib_find(&f.rib, &p) == NULL);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.prefixes, 0);
    CHECK_EQ(st.paths, 0);
    const struct bgp_aset *all[] = {s200, s300, s100, s90, s50};
    for (int i = 0; i < 5; i++)
        bgp_aset_put(&f.rib, all[i]);
    bgp_rib_stats(&f.rib, &st);
    CHECK_EQ(st.asets, 0);
    fx_fini(&f);
}

TEST(bgp_rib_decision_peer_facts_change_reruns)
{
    static struct fx f;
    fx_init(&f);
    fx_peer(&f, 1, false, 0x0a000009);
    fx_peer(&f, 2, false, 0x0a000005);
    const struct bgp_aset *a = fx_set(&f, (struct sd){.nas = 1, .as = {100}});
    struct bgp_prefix p = fx_p4(10, 0, 0, 0, 8);
    bgp_rib_announce(&f.rib, 1, &p, a);
    bgp_rib_announce(&f.rib, 2, &p, a);
    CHECK_EQ(fx_best(&f, p), 2);
    fx_peer(&f, 1, true, 0x0a000009); /* now eBGP */
    CHECK_EQ(fx_best(&f, p), 1);
    CHECK_EQ(fx_why(&f, p, 1), BGP_WHY_EBGP);
    CHECK_EQ(f.calls, 3);
    bgp_aset_put(&f.rib, a);
    fx_fini(&f);
}

TEST(bgp_rib_decision_why_names)
{
    CHECK_STR(bgp_why_name(BGP_WHY_MED), "MED");
    CHECK_STR(bgp_why_name(BGP_WHY_PEER_ADDR), "peer address");
    CHECK_STR(bgp_why_name((enum bgp_why)99), "?");
    for (int w = BGP_WHY_NONE; w <= BGP_WHY_PEER_ADDR; w++)
        CHECK(strcmp(bgp_why_name((enum bgp_why)w), "?") != 0);
}

/* Multipath: the paths that tie with the best through the IGP cost, from
 * its neighbouring AS, at most the configured number; the embedder hears
 * when that set changes under an unchanged best. */
TEST(bgp_rib_multipath_ties_through_igp_cost)
{
    static struct fx f;
    fx_init(&f);
    bgp_rib_set_multipath(&f.rib, 3);
    for (uint16_t n = 1; n <= 5; n++)
        fx_peer(&f, n, true, 0);
    const struct bgp_aset *s[6];
    for (uint8_t n = 1; n <= 5; n++) /* neighbour AS 65001 but peer 4's (65004); each its own next hop */
        s[n] = fx_set(&f, (struct sd){.nh = n, .nas = 2, .as = {n == 4 ? 65004u : 65001u, 65100}});
    f.cost[5] = 7; /* peer 5's next hop is further away */
    struct bgp_prefix p = fx_p4(198, 51, 100, 0, 24);
    const struct bgp_path *m[BGP_MULTIPATH_MAX];
    bgp_rib_announce(&f.rib, 1, &p, s[1]);
    const struct bgp_route *rt = bgp_rib_find(&f.rib, &p);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 1);
    CHECK_EQ(f.mp_calls, 0);
    bgp_rib_announce(&f.rib, 2, &p, s[2]);
    CHECK_EQ(f.calls, 1); /* the best (peer 1: the lower router ID) stays */
    CHECK_EQ(f.mp_calls, 1);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 2);
    CHECK(m[0] == rt->best && m[0]->peer == 1 && m[1]->peer == 2);
    bgp_rib_announce(&f.rib, 4, &p, s[4]); /* another neighbouring AS: not a path of the set */
    bgp_rib_announce(&f.rib, 5, &p, s[5]); /* a higher IGP cost: neither */
    CHECK_EQ(f.mp_calls, 1);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 2);
    bgp_rib_announce(&f.rib, 3, &p, s[3]);
    CHECK_EQ(f.mp_calls, 2);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 3);
    f.cost[5] = 0; /* now it ties too, but the set is full */
    bgp_rib_nexthops_changed(&f.rib);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 3);
    CHECK_EQ(bgp_rib_withdraw(&f.rib, 2, &p), 0);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 3); /* peer 5 takes its place */
    CHECK(m[0]->peer == 1 && m[1]->peer != 2 && m[2]->peer != 2);
    CHECK_EQ(f.calls, 1);
    bgp_rib_set_multipath(&f.rib, 1);
    CHECK_EQ(bgp_rib_multipath(&f.rib, rt, m), 1);
    for (uint16_t n = 1; n <= 5; n++)
        bgp_rib_withdraw(&f.rib, n, &p);
    for (int n = 1; n <= 5; n++)
        bgp_aset_put(&f.rib, s[n]);
    fx_fini(&f);
}
