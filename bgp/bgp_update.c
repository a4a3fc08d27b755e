/* SPDX-License-Identifier: MIT */
/* bgp/bgp_update.c: the UPDATE parser's frame (RFC 4271 4.3, 6.3 with
 * RFC 7606's revisions): the withdrawn routes, attribute and NLRI fields
 * located and checked, MP_REACH_NLRI and MP_UNREACH_NLRI (RFC 4760 3-4)
 * parsed before any other attribute wherever they sit (RFC 7606 5.1),
 * then the rest, one by one (bgp_attr.c). */
#include "bgp_wire.h"

static const char *const reason_names[BGP_R_COUNT] = {
    [BGP_R_NONE] = "bgp_upd_ok",
    [BGP_R_LENGTHS] = "bgp_upd_lengths_bad",
    [BGP_R_NLRI_MALFORMED] = "bgp_upd_nlri_malformed",
    [BGP_R_MP_MALFORMED] = "bgp_upd_mp_malformed",
    [BGP_R_MP_DUPLICATE] = "bgp_upd_mp_duplicate",
    [BGP_R_UNKNOWN_WELLKNOWN] = "bgp_upd_unknown_wellknown",
    [BGP_R_ATTR_OVERRUN] = "bgp_upd_attr_overrun",
    [BGP_R_ATTR_FLAGS] = "bgp_upd_attr_flags",
    [BGP_R_ORIGIN_BAD] = "bgp_upd_origin_bad",
    [BGP_R_AS_PATH_MALFORMED] = "bgp_upd_as_path_malformed",
    [BGP_R_AS_PATH_TOO_LONG] = "bgp_upd_as_path_too_long",
    [BGP_R_AS_PATH_AS0] = "bgp_upd_as_path_as0",
    [BGP_R_AS_PATH_CONFED] = "bgp_upd_as_path_confed",
    [BGP_R_FIRST_AS] = "bgp_upd_first_as",
    [BGP_R_NEXTHOP_BAD] = "bgp_upd_nexthop_bad",
    [BGP_R_MED_BAD] = "bgp_upd_med_bad",
    [BGP_R_LOCAL_PREF_BAD] = "bgp_upd_local_pref_bad",
    [BGP_R_COMMUNITIES_BAD] = "bgp_upd_communities_bad",
    [BGP_R_EXT_COMMUNITIES_BAD] = "bgp_upd_ext_communities_bad",
    [BGP_R_LARGE_COMMUNITIES_BAD] = "bgp_upd_large_communities_bad",
    [BGP_R_MISSING_WELLKNOWN] = "bgp_upd_missing_wellknown",
    [BGP_R_DUPLICATE_ATTR] = "bgp_upd_duplicate_attr",
    [BGP_R_LOCAL_PREF_EBGP] = "bgp_upd_local_pref_ebgp",
    [BGP_R_ATOMIC_AGG_BAD] = "bgp_upd_atomic_aggregate_bad",
    [BGP_R_AGGREGATOR_BAD] = "bgp_upd_aggregator_bad",
    [BGP_R_AS4_DISCARDED] = "bgp_upd_as4_discarded",
    [BGP_R_AS4_PATH_BAD] = "bgp_upd_as4_path_bad",
    [BGP_R_AS4_AGGREGATOR_BAD] = "bgp_upd_as4_aggregator_bad",
    [BGP_R_OTHER_FULL] = "bgp_upd_other_full",
    [BGP_R_MP_AFI_UNSUPPORTED] = "bgp_upd_mp_afi_unsupported",
};

const char *bgp_upd_reason_name(unsigned r)
{
    return r < BGP_R_COUNT ? reason_names[r] : "bgp_upd_unknown";
}

void bgpw_note(struct bgpw_parse *st, int sev, unsigned reason)
{
    if (sev == BGPW_SEV_DISCARD)
        st->u->discarded++;
    if (sev > st->sev) {
        st->sev = sev;
        st->u->reason = (uint16_t)reason;
        if (sev == BGPW_SEV_WITHDRAW)
            st->u->verdict = BGP_UPD_WITHDRAW;
    } else if (st->u->reason == BGP_R_NONE) {
        st->u->reason = (uint16_t)reason;
    }
}

void bgpw_reset(struct bgpw_parse *st, unsigned reason, uint8_t code, uint8_t subcode, const uint8_t *data,
                size_t dlen)
{
    if (st->sev == BGPW_SEV_RESET)
        return; /* the first reset is the one sent */
    bgpw_note(st, BGPW_SEV_RESET, reason);
    struct bgp_error *e = &st->u->err;
    e->code = code;
    e->subcode = subcode;
    if (dlen > BGP_ERR_DATA_MAX)
        dlen = BGP_ERR_DATA_MAX;
    e->data_len = (uint16_t)dlen;
    if (dlen)
        __builtin_memcpy(e->data, data, dlen);
    st->u->verdict = BGP_UPD_RESET;
}

/* RFC 4271 4.3 and RFC 4760 5: a field of prefixes, each a length in
 * bits and as many bytes as it needs, wholly within the field. */
static bool nlri_ok(const uint8_t *p, size_t n, uint8_t afi)
{
    unsigned max = afi == BGP_AFI_IPV4 ? 32 : 128;
    while (n) {
        unsigned bits = p[0], bytes = (bits + 7) / 8;
        if (bits > max || 1 + bytes > n)
            return false;
        p += 1 + bytes;
        n -= 1 + bytes;
    }
    return true;
}

bool bgp_nlri_next(const uint8_t **p, const uint8_t *end, uint8_t afi, struct bgp_prefix *out)
{
    const uint8_t *q = *p;
    if (q >= end)
        return false;
    unsigned bits = q[0], bytes = (bits + 7) / 8;
    if (bits > (afi == BGP_AFI_IPV4 ? 32u : 128u) || (size_t)(end - q) < 1 + bytes)
        return false;
    __builtin_memset(out, 0, sizeof *out);
    out->afi = afi;
    out->len = (uint8_t)bits;
    if (bytes)
        __builtin_memcpy(out->addr, q + 1, bytes);
    if (bits % 8) /* RFC 4271 4.3: trailing bits are irrelevant; ours are zero */
        out->addr[bytes - 1] &= (uint8_t)(0xff00u >> (bits % 8));
    *p = q + 1 + bytes;
    return true;
}

static uint8_t afi_of(uint16_t afi, uint8_t safi)
{
    if (safi != BGP_SAFI_UNICAST)
        return 0;
    return afi == BGP_AFI_IPV4 || afi == BGP_AFI_IPV6 ? (uint8_t)afi : 0;
}

/* An IPv6 next hop can be used: not ::, not multicast. */
static bool nh6_ok(const uint8_t *a)
{
    static const uint8_t zero[16];
    return a[0] != 0xff && __builtin_memcmp(a, zero, 16) != 0;
}

/* RFC 4760 3: AFI, SAFI, next hop length and address, reserved, NLRI.
 * Unparseable: session reset (RFC 7606 7.11, 5.3; RFC 4760 7's Optional
 * Attribute Error). Flags wrong but parseable: treat-as-withdraw (7606
 * 3.c), its NLRI found. */
static void mp_reach(struct bgpw_parse *st, uint8_t flags, const uint8_t *v, uint16_t n, const uint8_t *raw,
                     size_t rawlen)
{
    struct bgp_update *u = st->u;
    struct bgp_attrs *a = &u->attrs;
    if (n < 5 || 4u + v[3] + 1 > n) {
        bgpw_reset(st, BGP_R_MP_MALFORMED, BGP_ERR_UPDATE, 9, raw, rawlen);
        return;
    }
    uint8_t afi = afi_of(bgpw_get16(v), v[2]), nhl = v[3];
    const uint8_t *nh = v + 4, *nlri = v + 5 + nhl;
    uint16_t nlen = (uint16_t)(n - 5 - nhl);
    if (!afi) {
        bgpw_note(st, 0, BGP_R_MP_AFI_UNSUPPORTED);
        return;
    }
    /* RFC 4760 3 (IPv4: 4 bytes), RFC 2545 3 (IPv6: 16, or 32 with the
     * link-local); the reserved byte is ignored (4760 3). */
    bool nh_len_ok = afi == BGP_AFI_IPV4 ? nhl == 4 : nhl == 16 || nhl == 32;
    if (!nh_len_ok || !nlri_ok(nlri, nlen, afi)) {
        bgpw_reset(st, BGP_R_MP_MALFORMED, BGP_ERR_UPDATE, 9, raw, rawlen);
        return;
    }
    u->mp_reach_afi = afi;
    u->mp_reach_nlri = nlri;
    u->mp_reach_len = nlen;
    if ((flags & (BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE)) != BGPW_F_OPTIONAL)
        bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_ATTR_FLAGS);
    if (afi == BGP_AFI_IPV4) {
        __builtin_memcpy(a->nh4, nh, 4);
        a->has |= BGP_HAS_MP_NH4;
        if (nlen && !bgpw_nh4_ok(nh))
            bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_NEXTHOP_BAD);
        return;
    }
    __builtin_memcpy(a->nh6, nh, 16);
    a->has |= BGP_HAS_MP_NH6;
    /* RFC 2545 3: the second address is link-local; an empty (zero) or
     * other one is no link-local and ignored. */
    if (nhl == 32 && nh[16] == 0xfe && (nh[17] & 0xc0) == 0x80) {
        __builtin_memcpy(a->nh6_ll, nh + 16, 16);
        a->has |= BGP_HAS_MP_NH6_LL;
    }
    if (nlen && !nh6_ok(nh))
        bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_NEXTHOP_BAD);
}

/* RFC 4760 4: AFI, SAFI, withdrawn routes. */
static void mp_unreach(struct bgpw_parse *st, uint8_t flags, const uint8_t *v, uint16_t n, const uint8_t *raw,
                       size_t rawlen)
{
    struct bgp_update *u = st->u;
    if (n < 3) {
        bgpw_reset(st, BGP_R_MP_MALFORMED, BGP_ERR_UPDATE, 9, raw, rawlen);
        return;
    }
    uint8_t afi = afi_of(bgpw_get16(v), v[2]);
    if (!afi) {
        bgpw_note(st, 0, BGP_R_MP_AFI_UNSUPPORTED);
        return;
    }
    if (!nlri_ok(v + 3, n - 3u, afi)) {
        bgpw_reset(st, BGP_R_MP_MALFORMED, BGP_ERR_UPDATE, 9, raw, rawlen);
        return;
    }
    u->mp_unreach_afi = afi;
    u->mp_unreach_nlri = v + 3;
    u->mp_unreach_len = (uint16_t)(n - 3);
    if ((flags & (BGPW_F_OPTIONAL | BGPW_F_TRANSITIVE)) != BGPW_F_OPTIONAL)
        bgpw_note(st, BGPW_SEV_WITHDRAW, BGP_R_ATTR_FLAGS);
}

/* One attribute's header at p within [p, end): false when it runs past
 * end (RFC 7606 4: fewer than 3 or 4 bytes left, or its length past). */
static bool attr_at(const uint8_t *p, const uint8_t *end, uint8_t *flags, uint8_t *type, const uint8_t **v,
                    uint16_t *n)
{
    size_t left = (size_t)(end - p);
    if (left < 3)
        return false;
    size_t hl = p[0] & BGPW_F_EXTLEN ? 4 : 3;
    if (left < hl)
        return false;
    *flags = p[0];
    *type = p[1];
    *n = hl == 4 ? bgpw_get16(p + 2) : p[2];
    *v = p + hl;
    return *n <= left - hl;
}

/* u zeroed but for its attributes' arrays (5 KB: clearing them took 5% of
 * a full table's ingest), which are read only up to their counts. */
_Static_assert(offsetof(struct bgp_attrs, nasns) < offsetof(struct bgp_attrs, segs) &&
                   offsetof(struct bgp_attrs, segs) < offsetof(struct bgp_attrs, path_len) &&
                   offsetof(struct bgp_attrs, other_len) < offsetof(struct bgp_attrs, other) &&
                   offsetof(struct bgp_update, attrs) + sizeof(struct bgp_attrs) <= offsetof(struct bgp_update, wd4),
               "update_clear: the counts before the arrays, the arrays last in attrs, attrs before wd4");

static void update_clear(struct bgp_update *u)
{
    __builtin_memset(u, 0, offsetof(struct bgp_update, attrs.segs));
    u->attrs.path_len = u->attrs.other_len = 0;
    size_t tail = offsetof(struct bgp_update, wd4);
    __builtin_memset((uint8_t *)u + tail, 0, sizeof *u - tail);
}

int bgp_update_parse(const uint8_t *msg, uint16_t len, const struct bgp_update_ctx *ctx, struct bgp_update *u)
{
    update_clear(u);
    struct bgpw_parse st = {.u = u, .ctx = ctx};
    if (len < 23) {
        uint8_t l[2];
        bgpw_put16(l, len);
        bgpw_reset(&st, BGP_R_LENGTHS, BGP_ERR_HEADER, 2, l, 2);
        return -1;
    }
    const uint8_t *b = msg + BGP_HDR_LEN, *bend = msg + len;
    size_t blen = len - BGP_HDR_LEN;
    /* RFC 4271 6.3: the withdrawn and attribute lengths must fit the
     * message (7606 keeps this a reset: nothing after can be located). */
    size_t wdl = bgpw_get16(b);
    if (2 + wdl + 2 > blen) {
        bgpw_reset(&st, BGP_R_LENGTHS, BGP_ERR_UPDATE, 1, 0, 0);
        return -1;
    }
    const uint8_t *attrs = b + 4 + wdl;
    size_t al = bgpw_get16(b + 2 + wdl);
    if (4 + wdl + al > blen) {
        bgpw_reset(&st, BGP_R_LENGTHS, BGP_ERR_UPDATE, 1, 0, 0);
        return -1;
    }
    u->wd4 = b + 2;
    u->wd4_len = (uint16_t)wdl;
    u->nlri4 = attrs + al;
    u->nlri4_len = (uint16_t)(bend - u->nlri4);
    st.has_nlri4 = u->nlri4_len > 0;
    /* 6.3: Invalid Network Field (7606 5.3: a reset still) */
    if (!nlri_ok(u->wd4, wdl, BGP_AFI_IPV4) || !nlri_ok(u->nlri4, u->nlri4_len, BGP_AFI_IPV4)) {
        bgpw_reset(&st, BGP_R_NLRI_MALFORMED, BGP_ERR_UPDATE, 10, 0, 0);
        return -1;
    }
    /* RFC 7606 5.1: MP_REACH_NLRI and MP_UNREACH_NLRI first, wherever they
     * are, so that treat-as-withdraw knows all of the NLRI. The walk ends
     * at an attribute running past the rest (7606 4: treat-as-withdraw,
     * the NLRI found by the Total Path Attribute Length). */
    const uint8_t *p = attrs, *aend = attrs + al;
    const uint8_t *reach = 0, *unreach = 0;
    unsigned nattrs = 0;
    uint8_t flags, type;
    const uint8_t *v;
    uint16_t n;
    while (p < aend) {
        if (!attr_at(p, aend, &flags, &type, &v, &n)) {
            if ((size_t)(aend - p) >= 2 && (p[1] == BGPW_MP_REACH || p[1] == BGPW_MP_UNREACH)) {
                /* 7606 5.3: its NLRI cannot be located */
                bgpw_reset(&st, BGP_R_MP_MALFORMED, BGP_ERR_UPDATE, 1, 0, 0);
                return -1;
            }
            bgpw_note(&st, BGPW_SEV_WITHDRAW, BGP_R_ATTR_OVERRUN);
            aend = p;
            break;
        }
        if (type == BGPW_MP_REACH || type == BGPW_MP_UNREACH) {
            const uint8_t **seen = type == BGPW_MP_REACH ? &reach : &unreach;
            if (*seen) { /* RFC 7606 3.g: Malformed Attribute List */
                bgpw_reset(&st, BGP_R_MP_DUPLICATE, BGP_ERR_UPDATE, 1, 0, 0);
                return -1;
            }
            *seen = p;
        }
        nattrs++;
        p = v + n;
    }
    if (reach) {
        attr_at(reach, aend, &flags, &type, &v, &n);
        mp_reach(&st, flags, v, n, reach, (size_t)(v + n - reach));
    }
    if (unreach) {
        attr_at(unreach, aend, &flags, &type, &v, &n);
        mp_unreach(&st, flags, v, n, unreach, (size_t)(v + n - unreach));
    }
    if (st.sev == BGPW_SEV_RESET)
        return -1;
    for (p = attrs; p < aend; p = v + n) {
        attr_at(p, aend, &flags, &type, &v, &n);
        if (type != BGPW_MP_REACH && type != BGPW_MP_UNREACH)
            bgpw_attr(&st, flags, type, v, n, p, (size_t)(v + n - p));
        if (st.sev == BGPW_SEV_RESET)
            return -1;
    }
    bgpw_attrs_finish(&st);
    /* RFC 4271 5, RFC 4760 3, RFC 7606 3.d: with NLRI, ORIGIN and AS_PATH
     * must be there, NEXT_HOP too for the body's (LOCAL_PREF is no
     * well-known mandatory attribute: 4271 6.3 names only these three). */
    uint32_t has = u->attrs.has;
    bool nlri = u->nlri4_len || u->mp_reach_len;
    if (nlri && (!(has & BGP_HAS_ORIGIN) || !(has & BGP_HAS_AS_PATH)))
        bgpw_note(&st, BGPW_SEV_WITHDRAW, BGP_R_MISSING_WELLKNOWN);
    if (u->nlri4_len && !(has & BGP_HAS_NEXT_HOP))
        bgpw_note(&st, BGPW_SEV_WITHDRAW, BGP_R_MISSING_WELLKNOWN);
    /* RFC 4724 2: End-of-RIB, an UPDATE with nothing, or with only an
     * empty MP_UNREACH_NLRI */
    if (len == 23) {
        u->end_of_rib = true;
        u->mp_unreach_afi = BGP_AFI_IPV4;
    } else if (wdl == 0 && !u->nlri4_len && nattrs == 1 && unreach && u->mp_unreach_afi && !u->mp_unreach_len) {
        u->end_of_rib = true;
    }
    return 0;
}
