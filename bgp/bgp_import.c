/* SPDX-License-Identifier: MIT */
/* bgp/bgp_import.c: an UPDATE into the RIB (bgp_import.h). */
#include "bgp_import.h"

/* Every prefix of an NLRI field: announced with set, or withdrawn (set
 * NULL). Returns how many. */
static uint64_t apply(struct bgp_rib *r, uint16_t peer, const uint8_t *f, uint16_t len, uint8_t afi,
                      const struct bgp_aset *set, struct bgp_import_counts *n)
{
    const uint8_t *end = f + len;
    struct bgp_prefix x;
    uint64_t k = 0;
    while (f && bgp_nlri_next(&f, end, afi, &x)) {
        k++;
        if (!set)
            bgp_rib_withdraw(r, peer, &x);
        else if (bgp_rib_announce(r, peer, &x, set) != 0)
            n->nomem++;
    }
    return k;
}

/* An NLRI field of announcements: taken with set, or denied by policy
 * (!take), or withdrawn (a treat-as-withdraw UPDATE, !ok; our own next
 * hop, loop); counted as which. */
static void announce(struct bgp_rib *r, uint16_t peer, const uint8_t *f, uint16_t len, uint8_t afi, bool ok,
                     bool take, bool loop, const struct bgp_aset *set, struct bgp_import_counts *n)
{
    uint64_t k = apply(r, peer, f, len, afi, loop ? 0 : set, n);
    if (ok && !take)
        n->denied += k;
    else if (set && loop)
        n->nexthop_self += k;
    else if (set)
        n->announced += k;
}

void bgp_import(struct bgp_rib *r, uint16_t peer, const struct bgp_update *u, bool take, const uint8_t *self4,
                const uint8_t *self6, struct bgp_import_counts *n)
{
    n->withdrawn += apply(r, peer, u->wd4, u->wd4_len, BGP_AFI_IPV4, NULL, n);
    if (u->mp_unreach_afi)
        n->withdrawn += apply(r, peer, u->mp_unreach_nlri, u->mp_unreach_len, u->mp_unreach_afi, NULL, n);
    const struct bgp_attrs *a = &u->attrs;
    bool ok = u->verdict == BGP_UPD_OK;
    bool loop4 = (a->has & (BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH4)) && __builtin_memcmp(a->nh4, self4, 4) == 0;
    bool loop6 = (a->has & BGP_HAS_MP_NH6) && __builtin_memcmp(a->nh6, self6, 16) == 0;
    const struct bgp_aset *set = ok && take ? bgp_aset_intern(r, a) : 0;
    if (ok && take && !set)
        n->nomem++;
    announce(r, peer, u->nlri4, u->nlri4_len, BGP_AFI_IPV4, ok, take, loop4, set, n);
    if (u->mp_reach_afi)
        announce(r, peer, u->mp_reach_nlri, u->mp_reach_len, u->mp_reach_afi, ok, take,
                 u->mp_reach_afi == BGP_AFI_IPV4 ? loop4 : loop6, set, n);
    if (set)
        bgp_aset_put(r, set);
}

enum bgp_fib_act bgp_fib_pace(struct bgp_fib_pace *p, uint64_t changes, uint64_t deferred, uint64_t prefixes)
{
    uint64_t n = changes - p->seen;
    p->seen = changes;
    if (!p->deferring) {
        if (deferred)
            return BGP_FIB_REBUILD; /* the last one failed */
        if (n < BGP_FIB_BURST)
            return BGP_FIB_KEEP;
        p->deferring = true;
        p->idle = p->ticks = 0;
        return BGP_FIB_DEFER;
    }
    p->idle = n < BGP_FIB_TRICKLE ? p->idle + 1 : 0;
    p->ticks++;
    if (p->idle < BGP_FIB_IDLE && p->ticks < BGP_FIB_MAX &&
        deferred < (prefixes > BGP_FIB_BURST ? prefixes : BGP_FIB_BURST))
        return BGP_FIB_KEEP;
    p->deferring = false;
    return BGP_FIB_REBUILD;
}
