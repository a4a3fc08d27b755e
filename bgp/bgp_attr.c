/* SPDX-License-Identifier: MIT */
/* bgp/bgp_attr.c: the path attributes of an UPDATE other than
 * MP_REACH_NLRI/MP_UNREACH_NLRI (RFC 4271 4.3, 5), each checked as RFC
 * 7606 3 and 7 say: treat-as-withdraw for what the route depends on,
 * attribute-discard for what it does not; AS4_PATH and AS4_AGGREGATOR
 * merged for a session without 4-byte ASNs (RFC 6793 4.2.3). */
#include "bgp_wire.h"

bool bgpw_nh4_ok(const uint8_t *a)
{
    if ((a[0] & 0xf0) == 0xe0) /* 224/4 multicast */
        return false;
    uint32_t x = bgpw_get32(a);
    return x != 0 && x != 0xffffffffu;
}

uint16_t bgpw_path_len(const struct bgp_attrs *a)
{
    unsigned len = 0;
    for (unsigned i = 0; i < a->nsegs; i++)
        if (a->segs[i].type == BGPW_AS_SEQUENCE)
            len += a->segs[i].count;
        else if (a->segs[i].type == BGPW_AS_SET)
            len++;
    return (uint16_t)len;
}

/* AS_PATH (RFC 4271 4.3) of asn-byte ASNs into a; 0 or the reason it is
 * malformed (RFC 7606 7.2: a segment type unknown, of length 0, or
 * running past the attribute; RFC 7607 2: AS 0). */
static unsigned as_path_parse(const uint8_t *v, uint16_t n, unsigned asn, struct bgp_attrs *a)
{
    a->nsegs = a->nasns = 0;
    while (n) {
        if (n < 2)
            return BGP_R_AS_PATH_MALFORMED;
        uint8_t type = v[0], cnt = v[1];
        if (type < BGPW_AS_SET || type > BGPW_AS_CONFED_SET || cnt == 0 || 2u + cnt * asn > n)
            return BGP_R_AS_PATH_MALFORMED;
        if (a->nsegs == sizeof a->segs / sizeof a->segs[0] || a->nasns + cnt > BGP_AS_PATH_MAX)
            return BGP_R_AS_PATH_TOO_LONG;
        a->segs[a->nsegs].type = type;
        a->segs[a->nsegs++].count = cnt;
        for (unsigned i = 0; i < cnt; i++) {
            uint32_t as = asn == 4 ? bgpw_get32(v + 2 + 4 * i) : bgpw_get16(v + 2 + 2 * i);
            if (as == 0)
                return BGP_R_AS_PATH_AS0;
            a->asns[a->nasns++] = as;
        }
        v += 2 + cnt * asn;
        n = (uint16_t)(n - 2 - cnt * asn);
    }
    a->path_len = bgpw_path_len(a);
    return 0;
}

/* AS4_PATH (RFC 6793 3): like AS_PATH with 4-byte ASNs, but no
 * confederation segments (6793 3 and 6); its length as RFC 4271
 * 9.1.2.2 counts, or -1 when malformed (then discarded, 6793 6, 7606 7.7). */
static int as4_path_check(const uint8_t *v, uint16_t n, unsigned *nsegs, unsigned *nasns)
{
    int len = 0;
    *nsegs = *nasns = 0;
    while (n) {
        if (n < 2)
            return -1;
        uint8_t type = v[0], cnt = v[1];
        if ((type != BGPW_AS_SET && type != BGPW_AS_SEQUENCE) || cnt == 0 || 2u + 4u * cnt > n)
            return -1;
        for (unsigned i = 0; i < cnt; i++)
            if (bgpw_get32(v + 2 + 4 * i) == 0) /* RFC 7607 2 */
                return -1;
        len += type == BGPW_AS_SET ? 1 : cnt;
        ++*nsegs;
        *nasns += cnt;
        v += 2 + 4u * cnt;
        n = (uint16_t)(n - 2 - 4u * cnt);
    }
    return len;
}

/* RFC 6793 4.2.3: the leading ASNs of AS_PATH, as many as it counts more
 * than AS4_PATH (confederation segments kept, counting nothing), then
 * AS4_PATH. AS4_PATH longer than AS_PATH is ignored. False when the
 * result would not fit. */
static bool as4_merge(struct bgp_attrs *a, const uint8_t *v, uint16_t n)
{
    unsigned segs4, asns4;
    int len4 = as4_path_check(v, n, &segs4, &asns4);
    if (len4 < 0 || a->path_len < len4)
        return true;
    unsigned keep = a->path_len - (unsigned)len4, s = 0, m = 0;
    for (; s < a->nsegs; s++) {
        struct bgp_as_seg *g = &a->segs[s];
        if (g->type == BGPW_AS_CONFED_SEQUENCE || g->type == BGPW_AS_CONFED_SET) {
            m += g->count;
            continue;
        }
        if (keep == 0)
            break;
        if (g->type == BGPW_AS_SET) {
            m += g->count;
            keep--;
            continue;
        }
        if (g->count > keep) { /* cut short: what follows is not contiguous */
            g->count = (uint8_t)keep;
            m += keep;
            s++;
            break;
        }
        m += g->count;
        keep -= g->count;
    }
    if (s + segs4 > sizeof a->segs / sizeof a->segs[0] || m + asns4 > BGP_AS_PATH_MAX)
        return false;
    a->nsegs = (uint16_t)s;
    a->nasns = (uint16_t)m;
    for (bool first = true; n; first = false) {
        uint8_t cnt = v[1];
        struct bgp_as_seg *last = a->nsegs ? &a->segs[a->nsegs - 1] : 0;
        if (first && last && last->type == BGPW_AS_SEQUENCE && v[0] == BGPW_AS_SEQUENCE && last->count + cnt <= 255) {
            last->count = (uint8_t)(last->count + cnt); /* one sequence, as it was before the split */
        } else {
            a->segs[a->nsegs].type = v[0];
            a->segs[a->nsegs++].count = cnt;
        }
        for (unsigned i = 0; i < cnt; i++)
            a->asns[a->nasns++] = bgpw_get32(v + 2 + 4 * i);
        v += 2 + 4u * cnt;
        n = (uint16_t)(n - 2 - 4u * cnt);
    }
    a->path_len = bgpw_path_len(a);
    return true;
}

/* An optional transitive attribute kept as it came for re-advertisement
 * in other[]: the Extended Length bit only when needed, in order of type
 * (one path's attributes are the same bytes however they came, and go
 * out in the order RFC 4271 5 asks). */
static void keep_other(struct bgpw_parse *st, uint8_t flags, uint8_t type, const uint8_t *v, uint16_t n)
{
    struct bgp_attrs *a = &st->u->attrs;
    size_t hl = n > 255 ? 4 : 3, at = 0;
    if (a->other_len + hl + n > sizeof a->other) {
        bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_OTHER_FULL);
        return;
    }
    while (at < a->other_len && a->other[at + 1] < type) /* other[] is ours: well formed */
        at += (a->other[at] & BGPW_F_EXTLEN ? 4u + bgpw_get16(a->other + at + 2) : 3u + a->other[at + 2]);
    __builtin_memmove(a->other + at + hl + n, a->other + at, a->other_len - at);
    uint8_t *o = a->other + at;
    o[0] = (uint8_t)((flags & (BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE | BGPW_F_PARTIAL)) | (hl == 4 ? BGPW_F_EXTLEN : 0));
    o[1] = type;
    if (hl == 4)
        bgpw_put16(o + 2, n);
    else
        o[2] = (uint8_t)n;
    if (n)
        __builtin_memcpy(o + hl, v, n);
    a->other_len = (uint16_t)(a->other_len + hl + n);
}

/* The Optional and Transitive bits a type must have (RFC 4271 5, RFC 1997,
 * 4360, 6793, 8092), -1 for a type not known here. */
static int flags_of(uint8_t type)
{
    switch (type) {
    case BGPW_ORIGIN:
    case BGPW_AS_PATH:
    case BGPW_NEXT_HOP:
    case BGPW_LOCAL_PREF:
    case BGPW_ATOMIC_AGGREGATE:
        return BGPW_F_TRANSITIVE; /* 4.3: well-known ones are transitive */
    case BGPW_MED:
        return BGPW_F_OPTIONAL;
    case BGPW_AGGREGATOR:
    case BGPW_COMMUNITIES:
    case BGPW_EXT_COMMUNITIES:
    case BGPW_AS4_PATH:
    case BGPW_AS4_AGGREGATOR:
    case BGPW_LARGE_COMMUNITIES:
        return BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE;
    default:
        return -1;
    }
}

void bgpw_attr(struct bgpw_parse *st, uint8_t flags, uint8_t type, const uint8_t *v, uint16_t n, const uint8_t *raw,
               size_t rawlen)
{
    struct bgp_attrs *a = &st->u->attrs;
    const struct bgp_update_ctx *ctx = st->ctx;
    if (st->seen[type / 8] & (1u << type % 8)) { /* RFC 7606 3.g: the first one counts */
        bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_DUPLICATE_ATTR);
        return;
    }
    st->seen[type / 8] |= (uint8_t)(1u << type % 8);
    int want = flags_of(type);
    if (want < 0) {
        if (!(flags & BGPW_F_OPTIONAL)) /* RFC 4271 6.3: Unrecognized Well-known Attribute */
            bgpw_reset(st, BGP_R_UNKNOWN_WELLKNOWN, BGP_ERR_UPDATE, 2, raw, rawlen);
        else if (flags & BGPW_F_TRANSITIVE) /* RFC 4271 5: passed on, Partial set */
            keep_other(st, flags | BGPW_F_PARTIAL, type, v, n);
        /* RFC 4271 5: unrecognized non-transitive ones are quietly ignored */
        return;
    }
    if (type == BGPW_NEXT_HOP && !st->has_nlri4)
        return; /* RFC 4760 3: with no NLRI in the body it is ignored */
    if (type == BGPW_LOCAL_PREF && ctx->ebgp) { /* RFC 4271 5.1.5, RFC 7606 7.5 */
        bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_LOCAL_PREF_EBGP);
        return;
    }
    if ((type == BGPW_AS4_PATH || type == BGPW_AS4_AGGREGATOR) && ctx->as4) {
        bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_AS4_DISCARDED); /* RFC 6793 4.1: only for speakers without AS4 */
        return;
    }
    if ((flags & (BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE)) != want) { /* RFC 7606 3.c */
        bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_ATTR_FLAGS);
        return;
    }
    unsigned r;
    switch (type) {
    case BGPW_ORIGIN: /* RFC 7606 7.1 */
        if (n != 1 || v[0] > BGP_ORIGIN_INCOMPLETE) {
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_ORIGIN_BAD);
            return;
        }
        a->origin = v[0];
        a->has |= BGP_HAS_ORIGIN;
        return;
    case BGPW_AS_PATH: /* RFC 7606 7.2 */
        r = as_path_parse(v, n, ctx->as4 ? 4 : 2, a);
        if (r) {
            a->nsegs = a->nasns = 0;
            bgpw_note(st, BGPW_SEV_WITHDRAW, r);
            return;
        }
        a->has |= BGP_HAS_AS_PATH;
        for (unsigned i = 0; ctx->ebgp && i < a->nsegs; i++)
            if (a->segs[i].type == BGPW_AS_CONFED_SEQUENCE || a->segs[i].type == BGPW_AS_CONFED_SET) {
                /* RFC 5065 5: confederation segments never cross to
                 * another AS (no confederations here) */
                bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_AS_PATH_CONFED);
                return;
            }
        return;
    case BGPW_NEXT_HOP: /* RFC 7606 7.3 */
        if (n != 4 || !bgpw_nh4_ok(v)) {
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_NEXTHOP_BAD);
            return;
        }
        st->nh_body = true;
        __builtin_memcpy(st->nh_body_addr, v, 4);
        return;
    case BGPW_MED: /* RFC 7606 7.4 */
        if (n != 4) {
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_MED_BAD);
            return;
        }
        a->med = bgpw_get32(v);
        a->has |= BGP_HAS_MED;
        return;
    case BGPW_LOCAL_PREF: /* RFC 7606 7.5 (iBGP here) */
        if (n != 4) {
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_LOCAL_PREF_BAD);
            return;
        }
        a->local_pref = bgpw_get32(v);
        a->has |= BGP_HAS_LOCAL_PREF;
        return;
    case BGPW_ATOMIC_AGGREGATE: /* RFC 7606 7.6 */
        if (n != 0) {
            bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_ATOMIC_AGG_BAD);
            return;
        }
        a->has |= BGP_HAS_ATOMIC_AGGREGATE;
        return;
    case BGPW_AGGREGATOR: { /* RFC 7606 7.7, RFC 7607 2 */
        unsigned asn = ctx->as4 ? 4 : 2;
        uint32_t as = n == asn + 4 ? (asn == 4 ? bgpw_get32(v) : bgpw_get16(v)) : 0;
        if (as == 0) {
            bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_AGGREGATOR_BAD);
            return;
        }
        a->aggregator_as = as;
        __builtin_memcpy(a->aggregator_id, v + asn, 4);
        a->has |= BGP_HAS_AGGREGATOR;
        return;
    }
    case BGPW_COMMUNITIES: /* RFC 7606 7.8 */
    case BGPW_EXT_COMMUNITIES: /* RFC 7606 7.14 */
    case BGPW_LARGE_COMMUNITIES: { /* RFC 8092 6 */
        unsigned unit = type == BGPW_COMMUNITIES ? 4 : type == BGPW_EXT_COMMUNITIES ? 8 : 12;
        if (n == 0 || n % unit) {
            r = type == BGPW_COMMUNITIES       ? BGP_R_COMMUNITIES_BAD
                : type == BGPW_EXT_COMMUNITIES ? BGP_R_EXT_COMMUNITIES_BAD
                                               : BGP_R_LARGE_COMMUNITIES_BAD;
            bgpw_note(st, BGPW_SEV_WITHDRAW, r);
            return;
        }
        if (type == BGPW_COMMUNITIES)
            a->has |= BGP_HAS_COMMUNITIES;
        keep_other(st, flags, type, v, n);
        return;
    }
    case BGPW_AS4_PATH: { /* RFC 6793 6, RFC 7606 7.7 */
        unsigned s, m;
        if (as4_path_check(v, n, &s, &m) < 0) {
            bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_AS4_PATH_BAD);
            return;
        }
        st->as4_path = v;
        st->as4_path_len = n;
        return;
    }
    case BGPW_AS4_AGGREGATOR: /* RFC 6793 6, RFC 7606 7.7, RFC 7607 2 */
        if (n != 8 || bgpw_get32(v) == 0) {
            bgpw_note(st, BGPW_SEV_DISCARD, BGP_R_AS4_AGGREGATOR_BAD);
            return;
        }
        st->as4_agg = true;
        st->as4_agg_as = bgpw_get32(v);
        __builtin_memcpy(st->as4_agg_id, v + 4, 4);
        return;
    default:
        return;
    }
}

void bgpw_attrs_finish(struct bgpw_parse *st)
{
    struct bgp_attrs *a = &st->u->attrs;
    const struct bgp_update_ctx *ctx = st->ctx;
    /* RFC 4271 6.3 (and 7606 7.2: treat-as-withdraw): from an external
     * peer the path starts with its AS, as it sent it (before the merge;
     * a peer without AS4 and a 4-byte AS shows AS_TRANS). */
    if (ctx->ebgp && ctx->peer_as && (a->has & BGP_HAS_AS_PATH)) {
        uint32_t want = !ctx->as4 && ctx->peer_as > 0xffff ? BGP_AS_TRANS : ctx->peer_as;
        if (a->nsegs == 0 || a->segs[0].type != BGPW_AS_SEQUENCE || a->asns[0] != want)
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_FIRST_AS);
    }
    if (!ctx->as4) {
        /* RFC 6793 4.2.3: AS4_AGGREGATOR stands in for an AGGREGATOR of
         * AS_TRANS; beside any other AGGREGATOR both AS4 attributes are
         * ignored, and alone it is. */
        bool use_as4_path = true;
        if (st->as4_agg && (a->has & BGP_HAS_AGGREGATOR)) {
            if (a->aggregator_as == BGP_AS_TRANS) {
                a->aggregator_as = st->as4_agg_as;
                __builtin_memcpy(a->aggregator_id, st->as4_agg_id, 4);
            } else {
                use_as4_path = false;
            }
        }
        if (use_as4_path && st->as4_path && (a->has & BGP_HAS_AS_PATH) &&
            !as4_merge(a, st->as4_path, st->as4_path_len))
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_AS_PATH_TOO_LONG);
    }
    /* The body's NLRI go by NEXT_HOP; an IPv4 MP_REACH_NLRI beside them
     * must agree, attrs.nh4 serving both. */
    if (st->nh_body) {
        if ((a->has & BGP_HAS_MP_NH4) && __builtin_memcmp(a->nh4, st->nh_body_addr, 4) != 0) {
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_NEXTHOP_BAD);
            return;
        }
        __builtin_memcpy(a->nh4, st->nh_body_addr, 4);
        a->has |= BGP_HAS_NEXT_HOP;
    }
}
