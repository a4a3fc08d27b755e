/* SPDX-License-Identifier: MIT */
/* bgp/bgp_update_enc.c: UPDATEs for export. The path attributes from a
 * struct bgp_attrs (RFC 4271 4.3, 5; AS4_PATH and AS4_AGGREGATOR for a
 * speaker without 4-byte ASNs, RFC 6793 4.2.2), and a builder packing as
 * many prefixes as fit in 4096 bytes under them: IPv4 in the body, IPv6
 * in MP_REACH_NLRI/MP_UNREACH_NLRI (RFC 4760 3-4), first among the
 * attributes (RFC 7606 5.1). */
#include "bgp_wire.h"

/* A bounded writer: once something did not fit, ok stays false. */
struct wbuf {
    uint8_t *p;
    size_t n, cap;
    bool ok;
};

static uint8_t *take(struct wbuf *w, size_t k)
{
    if (!w->ok || w->cap - w->n < k) {
        w->ok = false;
        return 0;
    }
    uint8_t *r = w->p + w->n;
    w->n += k;
    return r;
}

/* An attribute's header for a value of n bytes, Extended Length only
 * when needed (RFC 4271 4.3); where its value goes, or NULL. */
static uint8_t *attr(struct wbuf *w, uint8_t flags, uint8_t type, size_t n)
{
    size_t hl = n > 255 ? 4 : 3;
    uint8_t *h = take(w, hl + n);
    if (!h)
        return 0;
    h[0] = (uint8_t)(flags | (hl == 4 ? BGPW_F_EXTLEN : 0));
    h[1] = type;
    if (hl == 4)
        bgpw_put16(h + 2, (uint16_t)n);
    else
        h[2] = (uint8_t)n;
    return h + hl;
}

static bool is_confed(uint8_t type)
{
    return type == BGPW_AS_CONFED_SEQUENCE || type == BGPW_AS_CONFED_SET;
}

/* AS_PATH with asn-byte ASNs (4-byte ones above 65535 as AS_TRANS when
 * 2: RFC 6793 4.2.2), or AS4_PATH (as4path: no confederation segments). */
static void put_path(struct wbuf *w, const struct bgp_attrs *a, unsigned asn, bool as4path)
{
    size_t n = 0;
    unsigned k = 0;
    for (unsigned s = 0; s < a->nsegs; k += a->segs[s++].count)
        if (!as4path || !is_confed(a->segs[s].type))
            n += 2 + (size_t)a->segs[s].count * asn;
    uint8_t *v = as4path ? attr(w, BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE, BGPW_AS4_PATH, n)
                         : attr(w, BGPW_F_TRANSITIVE, BGPW_AS_PATH, n);
    if (!v)
        return;
    k = 0;
    for (unsigned s = 0; s < a->nsegs; k += a->segs[s++].count) {
        if (as4path && is_confed(a->segs[s].type))
            continue;
        *v++ = a->segs[s].type;
        *v++ = a->segs[s].count;
        for (unsigned i = 0; i < a->segs[s].count; i++) {
            uint32_t as = a->asns[k + i];
            if (asn == 4) {
                bgpw_put32(v, as);
            } else {
                bgpw_put16(v, as > 0xffff ? BGP_AS_TRANS : (uint16_t)as);
            }
            v += asn;
        }
    }
}

/* other[]'s attributes whose type is within [lo, hi], as they are. */
static void put_other(struct wbuf *w, const struct bgp_attrs *a, unsigned lo, unsigned hi)
{
    size_t i = 0, end = a->other_len < sizeof a->other ? a->other_len : sizeof a->other;
    while (end - i >= 3) {
        size_t hl = a->other[i] & BGPW_F_EXTLEN ? 4 : 3;
        if (end - i < hl)
            return;
        size_t n = hl == 4 ? bgpw_get16(a->other + i + 2) : a->other[i + 2];
        if (n > end - i - hl)
            return;
        uint8_t type = a->other[i + 1];
        if (type >= lo && type <= hi) {
            uint8_t *o = take(w, hl + n);
            if (o)
                __builtin_memcpy(o, a->other + i, hl + n);
        }
        i += hl + n;
    }
}

/* Every attribute but MP_REACH_NLRI, in order of type (RFC 4271 5:
 * SHOULD); NEXT_HOP when nexthop. */
static void put_attrs(struct wbuf *w, const struct bgp_attrs *a, bool as4, bool nexthop)
{
    uint8_t *v;
    unsigned k = 0;
    for (unsigned s = 0; s < a->nsegs && s < sizeof a->segs / sizeof a->segs[0]; s++)
        k += a->segs[s].count;
    if (a->nsegs > sizeof a->segs / sizeof a->segs[0] || k != a->nasns || k > BGP_AS_PATH_MAX) {
        w->ok = false; /* not a path: nothing is sent */
        return;
    }
    bool wide_path = false, wide_agg = (a->has & BGP_HAS_AGGREGATOR) && a->aggregator_as > 0xffff;
    for (unsigned i = 0; i < a->nasns; i++)
        wide_path |= a->asns[i] > 0xffff;
    if ((a->has & BGP_HAS_ORIGIN) && (v = attr(w, BGPW_F_TRANSITIVE, BGPW_ORIGIN, 1)))
        v[0] = a->origin;
    if (a->has & BGP_HAS_AS_PATH)
        put_path(w, a, as4 ? 4 : 2, false);
    if (nexthop && (a->has & (BGP_HAS_NEXT_HOP | BGP_HAS_MP_NH4)) && (v = attr(w, BGPW_F_TRANSITIVE, BGPW_NEXT_HOP, 4)))
        __builtin_memcpy(v, a->nh4, 4);
    if ((a->has & BGP_HAS_MED) && (v = attr(w, BGPW_F_OPTIONAL, BGPW_MED, 4)))
        bgpw_put32(v, a->med);
    if ((a->has & BGP_HAS_LOCAL_PREF) && (v = attr(w, BGPW_F_TRANSITIVE, BGPW_LOCAL_PREF, 4)))
        bgpw_put32(v, a->local_pref);
    if (a->has & BGP_HAS_ATOMIC_AGGREGATE)
        attr(w, BGPW_F_TRANSITIVE, BGPW_ATOMIC_AGGREGATE, 0);
    if ((a->has & BGP_HAS_AGGREGATOR) && (v = attr(w, BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE, BGPW_AGGREGATOR,
                                                    as4 ? 8 : 6))) {
        if (as4)
            bgpw_put32(v, a->aggregator_as);
        else
            bgpw_put16(v, wide_agg ? BGP_AS_TRANS : (uint16_t)a->aggregator_as);
        __builtin_memcpy(v + (as4 ? 4 : 2), a->aggregator_id, 4);
    }
    put_other(w, a, 0, BGPW_AS4_PATH - 1);
    /* RFC 6793 4.2.2: the 4-byte path and aggregator beside the 2-byte
     * ones, only when some ASN does not fit 2 bytes */
    if (!as4 && wide_path && (a->has & BGP_HAS_AS_PATH))
        put_path(w, a, 4, true);
    if (!as4 && wide_agg && (v = attr(w, BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE, BGPW_AS4_AGGREGATOR, 8))) {
        bgpw_put32(v, a->aggregator_as);
        __builtin_memcpy(v + 4, a->aggregator_id, 4);
    }
    put_other(w, a, BGPW_AS4_PATH, 255);
}

/* Offsets within the message (RFC 4271 4.3): withdrawn routes length,
 * total path attribute length, the first attribute; for IPv6 that is
 * MP_(UN)REACH_NLRI with a 2-byte length, then its AFI. */
enum { WDL_AT = 19, TPAL_AT = 21, ATTRS_AT = 23, MP_LEN_AT = 25, MP_VAL_AT = 27 };

bool bgp_ub_begin(struct bgp_update_builder *b, uint8_t *out, size_t cap, uint8_t afi, const struct bgp_attrs *a,
                  bool as4, bool withdraw)
{
    __builtin_memset(b, 0, sizeof *b);
    b->out = out;
    b->afi = afi;
    b->withdraw = withdraw;
    size_t limit = cap < BGP_MSG_MAX ? cap : BGP_MSG_MAX;
    if (limit < MP_VAL_AT + 3 || (afi != BGP_AFI_IPV4 && afi != BGP_AFI_IPV6))
        return false;
    if (afi == BGP_AFI_IPV4) {
        b->pos = withdraw ? TPAL_AT : ATTRS_AT;
        if (!withdraw) {
            struct wbuf w = {out + ATTRS_AT, 0, limit - ATTRS_AT, true};
            put_attrs(&w, a, as4, true);
            if (!w.ok)
                return false;
            b->pos += w.n;
        }
        b->nlri_at = b->pos;
    } else {
        out[ATTRS_AT] = BGPW_F_OPTIONAL | BGPW_F_EXTLEN;
        out[ATTRS_AT + 1] = withdraw ? BGPW_MP_UNREACH : BGPW_MP_REACH;
        uint8_t *v = out + MP_VAL_AT;
        bgpw_put16(v, BGP_AFI_IPV6);
        v[2] = BGP_SAFI_UNICAST;
        b->pos = MP_VAL_AT + 3;
        if (!withdraw) {
            /* RFC 2545 3: global, then link-local when there is one;
             * RFC 4760 3: a reserved byte before the NLRI */
            bool ll = (a->has & BGP_HAS_MP_NH6_LL) != 0;
            if (limit < b->pos + 2 + (ll ? 32 : 16))
                return false;
            v[3] = ll ? 32 : 16;
            __builtin_memcpy(v + 4, a->nh6, 16);
            if (ll)
                __builtin_memcpy(v + 20, a->nh6_ll, 16);
            v[4 + v[3]] = 0;
            b->pos += 2u + v[3];
            /* The rest of the attributes wait at the end until finish. */
            struct wbuf w = {out + b->pos, 0, limit - b->pos, true};
            put_attrs(&w, a, as4, false);
            if (!w.ok)
                return false;
            b->tail = w.n;
            __builtin_memmove(out + limit - w.n, out + b->pos, w.n);
        }
    }
    b->limit = limit;
    return true;
}

bool bgp_ub_add(struct bgp_update_builder *b, const struct bgp_prefix *p)
{
    unsigned max = b->afi == BGP_AFI_IPV4 ? 32 : 128;
    if (!b->limit || p->afi != b->afi || p->len > max)
        return false;
    size_t bytes = (p->len + 7u) / 8, reserve = b->tail + (b->afi == BGP_AFI_IPV4 && b->withdraw ? 2 : 0);
    if (b->pos + 1 + bytes + reserve > b->limit)
        return false;
    uint8_t *o = b->out + b->pos;
    o[0] = p->len;
    if (bytes) {
        __builtin_memcpy(o + 1, p->addr, bytes);
        if (p->len % 8) /* RFC 4271 4.3: trailing bits irrelevant; send zeros */
            o[bytes] &= (uint8_t)(0xff00u >> (p->len % 8));
    }
    b->pos += 1 + bytes;
    b->count++;
    return true;
}

size_t bgp_ub_finish(struct bgp_update_builder *b)
{
    if (!b->limit)
        return 0;
    uint8_t *o = b->out;
    size_t end = b->pos;
    if (b->afi == BGP_AFI_IPV4 && b->withdraw) {
        bgpw_put16(o + WDL_AT, (uint16_t)(b->pos - TPAL_AT));
        bgpw_put16(o + b->pos, 0);
        end += 2;
    } else {
        if (b->tail)
            __builtin_memmove(o + b->pos, o + b->limit - b->tail, b->tail);
        end += b->tail;
        bgpw_put16(o + WDL_AT, 0);
        bgpw_put16(o + TPAL_AT, (uint16_t)((b->afi == BGP_AFI_IPV4 ? b->nlri_at : end) - ATTRS_AT));
        if (b->afi == BGP_AFI_IPV6)
            bgpw_put16(o + MP_LEN_AT, (uint16_t)(b->pos - MP_VAL_AT));
    }
    bgpw_header(o, (uint16_t)end, BGP_UPDATE);
    b->limit = 0; /* once */
    return end;
}
