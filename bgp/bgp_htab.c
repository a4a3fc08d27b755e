/* SPDX-License-Identifier: MIT */
/* bgp/bgp_htab.c: the open-addressed tables of the RIB (its prefixes, its
 * attribute sets): linear probing, doubled past 3/4 full, deletion by
 * moving entries back rather than tombstones. A slot keeps its object's
 * hash, so probing reads an object (a cache miss in a full table) only on
 * a hash match, and growing reads none. The lookups, which compare keys,
 * are the users'. */
#include "bgp_rib_impl.h"

#define HTAB_SLOTS_MIN 256u

int bgp_htab_init(struct bgp_rib *r, struct bgp_htab *t)
{
    t->s = r->al.alloc(r->al.ctx, HTAB_SLOTS_MIN * sizeof *t->s);
    if (!t->s)
        return -1;
    r->bytes += HTAB_SLOTS_MIN * sizeof *t->s;
    t->mask = HTAB_SLOTS_MIN - 1;
    t->count = 0;
    return 0;
}

void bgp_htab_fini(struct bgp_rib *r, struct bgp_htab *t)
{
    if (!t->s)
        return;
    r->al.free(r->al.ctx, t->s, (t->mask + 1) * sizeof *t->s);
    r->bytes -= (uint64_t)(t->mask + 1) * sizeof *t->s;
    t->s = NULL;
    t->count = 0;
}

/* Doubles the slots: the old ones read in order, no object touched. */
static void htab_grow(struct bgp_rib *r, struct bgp_htab *t)
{
    uint32_t n = (t->mask + 1) * 2;
    if (n == 0)
        return;
    struct bgp_hslot *ns = r->al.alloc(r->al.ctx, n * sizeof *ns);
    if (!ns)
        return;
    for (uint32_t i = 0; i <= t->mask; i++) {
        if (!t->s[i].o)
            continue;
        uint32_t j = t->s[i].hash & (n - 1);
        while (ns[j].o)
            j = (j + 1) & (n - 1);
        ns[j] = t->s[i];
    }
    r->al.free(r->al.ctx, t->s, (t->mask + 1) * sizeof *ns);
    r->bytes += (uint64_t)(n - (t->mask + 1)) * sizeof *ns;
    t->s = ns;
    t->mask = n - 1;
}

bool bgp_htab_room(struct bgp_rib *r, struct bgp_htab *t)
{
    if ((t->count + 1) * 4ull > (t->mask + 1) * 3ull)
        htab_grow(r, t);
    return t->count + 2 <= t->mask + 1; /* one slot stays empty: searches end */
}

void bgp_htab_put(struct bgp_htab *t, void *o, uint32_t hash)
{
    uint32_t i = hash & t->mask;
    while (t->s[i].o)
        i = (i + 1) & t->mask;
    t->s[i].o = o;
    t->s[i].hash = hash;
    t->count++;
}

/* Empties slot i, moving back each later entry of the probe run that may
 * sit there (its home at or before the hole), so no search stops short. */
void bgp_htab_remove(struct bgp_htab *t, uint32_t i)
{
    t->s[i].o = NULL;
    for (uint32_t j = (i + 1) & t->mask; t->s[j].o; j = (j + 1) & t->mask) {
        uint32_t home = t->s[j].hash & t->mask;
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->s[i] = t->s[j];
            t->s[j].o = NULL;
            i = j;
        }
    }
    t->count--;
}
