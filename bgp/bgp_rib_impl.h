/* SPDX-License-Identifier: MIT */
/* bgp/bgp_rib_impl.h: what the RIB's files (bgp_rib.c, bgp_aset.c,
 * bgp_decide.c, bgp_pool.c) share and nobody else sees. */
#ifndef BGP_BGP_RIB_IMPL_H
#define BGP_BGP_RIB_IMPL_H

#include "bgp_rib.h"

/* A 64-bit xor-shift-multiply finaliser: every input bit moves every
 * output bit, so the low bits a power-of-two table takes are good. */
static inline uint64_t bgp_mix64(uint64_t x)
{
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    x *= 0xd6e8feb86659fd93ull;
    x ^= x >> 32;
    return x;
}

static inline bool bgp_path_eligible(const struct bgp_path *p)
{
    return p->reachable && !p->a->loop;
}

/* bgp_pool.c: a zeroed object of pl->size bytes, or NULL. */
void *bgp_pool_get(struct bgp_rib *r, struct bgp_pool *pl);
void bgp_pool_put(struct bgp_pool *pl, void *o);
void bgp_pool_fini(struct bgp_rib *r, struct bgp_pool *pl);

/* bgp_htab.c. Room for one more entry (grown if need be), false if none;
 * put adds an entry known to be absent. */
int bgp_htab_init(struct bgp_rib *r, struct bgp_htab *t);
void bgp_htab_fini(struct bgp_rib *r, struct bgp_htab *t);
bool bgp_htab_room(struct bgp_rib *r, struct bgp_htab *t);
void bgp_htab_put(struct bgp_htab *t, void *o, uint32_t hash);
void bgp_htab_remove(struct bgp_htab *t, uint32_t i);

/* bgp_aset.c */
void bgp_aset_table_fini(struct bgp_rib *r);
/* Resolves s's next hop for a path of family afi, once per set until the
 * next bgp_rib_nexthops_changed (r->nh_gen). */
bool bgp_aset_resolve(struct bgp_rib *r, const struct bgp_aset *s, uint8_t afi, uint32_t *cost);

/* bgp_decide.c: RFC 4271 9.1.2's choice among rt's paths. why_track (if
 * not NULL) gets the step that removed track, why_won the step that left
 * the best alone. */
struct bgp_path *bgp_decide(const struct bgp_rib *r, const struct bgp_route *rt, const struct bgp_path *track,
                            enum bgp_why *why_track, enum bgp_why *why_won);
/* The same, with the paths tied with the best through 9.1.2.2 e) from its
 * neighbouring AS in multi (the best first, at most r->multipath): how
 * many in *nmulti. */
struct bgp_path *bgp_decide_multi(const struct bgp_rib *r, const struct bgp_route *rt,
                                  const struct bgp_path **multi, unsigned *nmulti);

#endif
