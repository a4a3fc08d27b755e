/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_bgp.c: the BGP wire codec (bgp/bgp_msg.c,
 * bgp_update.c, bgp_attr.c, bgp_update_enc.c) from any bytes, framed as a
 * stream (bgp_msg_frame); and the whole input as one message of the type
 * its header names, marker and length made right, so that mutations need
 * not keep them so. Each message goes to its parser (an UPDATE four
 * times: 2- and 4-byte ASNs, eBGP and iBGP). Nothing may read past the
 * message (an exact-size copy: ASan). A parse fails with an error of its
 * kind or gives values within their bounds: every NLRI field of an UPDATE
 * iterates to its very end; the attributes and prefixes of an accepted
 * one, built again (bgp_ub_*: as many messages as it takes, none over
 * 4096 bytes), parse back accepted with the same prefixes in order and,
 * with 4-byte ASNs, the same attributes; withdrawals likewise. OPEN,
 * NOTIFICATION and ROUTE-REFRESH encode back to what was parsed.
 * libFuzzer: -max_len=4200 */
#include <stdlib.h>
#include <string.h>

#include "bgp/bgp_msg.h"

static struct bgp_update u[4], back;
static uint8_t out[BGP_MSG_MAX];

static void check_attrs(const struct bgp_attrs *a)
{
    unsigned k = 0, len = 0;
    if (a->nsegs > 64 || a->nasns > BGP_AS_PATH_MAX || a->other_len > BGP_OTHER_ATTRS_MAX || a->origin > 2)
        abort();
    for (unsigned s = 0; s < a->nsegs; s++) {
        const struct bgp_as_seg *g = &a->segs[s];
        if (g->type < 1 || g->type > 4 || g->count == 0)
            abort();
        k += g->count;
        len += g->type == 2 ? g->count : g->type == 1;
    }
    if (k != a->nasns || len != a->path_len)
        abort();
    for (unsigned i = 0; i < a->nasns; i++)
        if (a->asns[i] == 0)
            abort();
}

/* A field of prefixes within [m, m + len) that iterates to its end. */
static void check_field(const uint8_t *m, uint16_t len, const uint8_t *f, uint16_t fl, uint8_t afi)
{
    if (!f) {
        if (fl)
            abort();
        return;
    }
    if (f < m || f + fl > m + len || (afi != BGP_AFI_IPV4 && afi != BGP_AFI_IPV6))
        abort();
    const uint8_t *p = f;
    struct bgp_prefix x;
    while (bgp_nlri_next(&p, f + fl, afi, &x))
        if (x.afi != afi || x.len > (afi == BGP_AFI_IPV4 ? 32 : 128))
            abort();
    if (p != f + fl)
        abort();
}

static bool same_attrs(const struct bgp_attrs *a, const struct bgp_attrs *b)
{
    uint32_t mask = BGP_HAS_ORIGIN | BGP_HAS_AS_PATH | BGP_HAS_MED | BGP_HAS_LOCAL_PREF | BGP_HAS_ATOMIC_AGGREGATE |
                    BGP_HAS_AGGREGATOR | BGP_HAS_COMMUNITIES;
    return (a->has & mask) == (b->has & mask) && a->origin == b->origin && a->nsegs == b->nsegs &&
           a->nasns == b->nasns && memcmp(a->segs, b->segs, a->nsegs * sizeof a->segs[0]) == 0 &&
           memcmp(a->asns, b->asns, a->nasns * sizeof a->asns[0]) == 0 &&
           (!(a->has & BGP_HAS_MED) || a->med == b->med) &&
           (!(a->has & BGP_HAS_LOCAL_PREF) || a->local_pref == b->local_pref) &&
           (!(a->has & BGP_HAS_AGGREGATOR) ||
            (a->aggregator_as == b->aggregator_as && memcmp(a->aggregator_id, b->aggregator_id, 4) == 0)) &&
           a->other_len == b->other_len && memcmp(a->other, b->other, a->other_len) == 0;
}

/* The builder's message: frames whole, parses accepted, and holds the
 * next b->count prefixes of the original field (at *q) in order. */
static void flush(struct bgp_update_builder *b, const struct bgp_attrs *a, bool as4, const uint8_t **q,
                  const uint8_t *qend)
{
    uint8_t afi = b->afi;
    bool withdraw = b->withdraw;
    uint16_t count = b->count, len = (uint16_t)bgp_ub_finish(b), flen;
    uint8_t type;
    struct bgp_error e;
    if (len == 0 || len > BGP_MSG_MAX || bgp_msg_frame(out, len, &flen, &type, &e) != 0 || flen != len ||
        type != BGP_UPDATE)
        abort();
    uint8_t *copy = malloc(len);
    memcpy(copy, out, len);
    const struct bgp_update_ctx ctx = {.as4 = as4};
    if (bgp_update_parse(copy, len, &ctx, &back) != 0 || back.verdict != BGP_UPD_OK)
        abort();
    const uint8_t *f = afi == BGP_AFI_IPV4 ? (withdraw ? back.wd4 : back.nlri4)
                                           : (withdraw ? back.mp_unreach_nlri : back.mp_reach_nlri);
    uint16_t fl = afi == BGP_AFI_IPV4 ? (withdraw ? back.wd4_len : back.nlri4_len)
                                      : (withdraw ? back.mp_unreach_len : back.mp_reach_len);
    if (afi == BGP_AFI_IPV6 && (withdraw ? back.mp_unreach_afi : back.mp_reach_afi) != BGP_AFI_IPV6)
        abort();
    if (count == 0 && withdraw && !back.end_of_rib)
        abort();
    const uint8_t *p = f;
    struct bgp_prefix x, want;
    for (uint16_t i = 0; i < count; i++)
        if (!bgp_nlri_next(&p, f + fl, afi, &x) || !bgp_nlri_next(q, qend, afi, &want) || !bgp_prefix_eq(&x, &want))
            abort();
    if (fl && p != f + fl)
        abort();
    /* 4-byte ASNs: what went out comes back (the MP and NEXT_HOP bits
     * aside: they follow the family) */
    if (!withdraw && as4 && !same_attrs(a, &back.attrs))
        abort();
    free(copy);
}

/* Every prefix of field f built into UPDATEs (announced under a, or
 * withdrawn) and parsed back. */
static void rebuild(const uint8_t *f, uint16_t fl, uint8_t afi, const struct bgp_attrs *a, bool as4, bool withdraw)
{
    if (!f || (afi != BGP_AFI_IPV4 && afi != BGP_AFI_IPV6) || (fl == 0 && !withdraw))
        return;
    struct bgp_update_builder b;
    if (!bgp_ub_begin(&b, out, sizeof out, afi, a, as4, withdraw)) {
        if (withdraw)
            abort();
        return; /* the attributes alone take more than a message as we send them */
    }
    const uint8_t *p = f, *q = f, *end = f + fl;
    struct bgp_prefix x;
    while (bgp_nlri_next(&p, end, afi, &x)) {
        if (bgp_ub_add(&b, &x))
            continue;
        if (b.count == 0) {
            if (withdraw)
                abort();
            return;
        }
        flush(&b, a, as4, &q, end);
        if (!bgp_ub_begin(&b, out, sizeof out, afi, a, as4, withdraw) || !bgp_ub_add(&b, &x))
            abort();
    }
    flush(&b, a, as4, &q, end);
    if (q != end)
        abort();
}

static void update(const uint8_t *m, uint16_t len)
{
    for (int i = 0; i < 4; i++) {
        struct bgp_update *v = &u[i];
        bool as4 = i & 1;
        const struct bgp_update_ctx ctx = {.as4 = as4, .ebgp = i & 2, .peer_as = 65000};
        int r = bgp_update_parse(m, len, &ctx, v);
        if ((r == -1) != (v->verdict == BGP_UPD_RESET) || (r != 0 && r != -1) || v->reason >= BGP_R_COUNT)
            abort();
        (void)bgp_upd_reason_name(v->reason);
        if (v->verdict == BGP_UPD_RESET) {
            if ((v->err.code != BGP_ERR_UPDATE && v->err.code != BGP_ERR_HEADER) || v->err.data_len > 64 ||
                v->reason == BGP_R_NONE)
                abort();
            continue;
        }
        if ((v->verdict == BGP_UPD_WITHDRAW) != (v->reason != BGP_R_NONE && v->reason < BGP_R_DUPLICATE_ATTR))
            abort();
        check_attrs(&v->attrs);
        check_field(m, len, v->wd4, v->wd4_len, BGP_AFI_IPV4);
        check_field(m, len, v->nlri4, v->nlri4_len, BGP_AFI_IPV4);
        if (v->mp_reach_afi)
            check_field(m, len, v->mp_reach_nlri, v->mp_reach_len, v->mp_reach_afi);
        if (v->mp_unreach_afi && v->mp_unreach_nlri)
            check_field(m, len, v->mp_unreach_nlri, v->mp_unreach_len, v->mp_unreach_afi);
        bool ok = v->verdict == BGP_UPD_OK;
        rebuild(v->wd4, v->wd4_len, BGP_AFI_IPV4, &v->attrs, as4, true);
        rebuild(v->mp_unreach_nlri, v->mp_unreach_len, v->mp_unreach_afi, &v->attrs, as4, true);
        rebuild(v->nlri4, v->nlri4_len, BGP_AFI_IPV4, &v->attrs, as4, !ok);
        rebuild(v->mp_reach_nlri, v->mp_reach_len, v->mp_reach_afi, &v->attrs, as4, !ok);
    }
}

static void open_msg(const uint8_t *m, uint16_t len)
{
    struct bgp_open o, p;
    struct bgp_error e;
    if (bgp_open_parse(m, len, &o, &e) != 0) {
        if ((e.code != BGP_ERR_OPEN && e.code != BGP_ERR_HEADER) || e.data_len > 64)
            abort();
        (void)bgp_error_name(e.code, e.subcode);
        return;
    }
    if (o.version != 4 || o.hold == 1 || o.hold == 2 || o.id == 0 || o.as == 0)
        abort();
    uint8_t enc[64];
    size_t n = bgp_open_encode(enc, sizeof enc, &o);
    if (n < 29 || n > sizeof enc || bgp_open_parse(enc, (uint16_t)n, &p, &e) != 0 || p.as != o.as ||
        p.hold != o.hold || p.id != o.id || p.cap_as4 != o.cap_as4 || p.cap_mp_v4 != o.cap_mp_v4 ||
        p.cap_mp_v6 != o.cap_mp_v6 || p.cap_route_refresh != o.cap_route_refresh)
        abort();
}

static void message(const uint8_t *m, uint16_t len, uint8_t type)
{
    struct bgp_error e, f;
    uint8_t enc[128];
    switch (type) {
    case BGP_OPEN:
        open_msg(m, len);
        return;
    case BGP_UPDATE:
        update(m, len);
        return;
    case BGP_NOTIFICATION: {
        if (bgp_notification_parse(m, len, &e) != 0 || e.data_len > 64)
            abort();
        (void)bgp_error_name(e.code, e.subcode);
        size_t n = bgp_notification_encode(enc, sizeof enc, &e);
        if (n != 21u + e.data_len || bgp_notification_parse(enc, (uint16_t)n, &f) != 0 ||
            memcmp(&e, &f, 4 + e.data_len) != 0)
            abort();
        return;
    }
    case BGP_ROUTE_REFRESH: {
        uint16_t afi, afi2;
        uint8_t safi, safi2;
        if (bgp_route_refresh_parse(m, len, &afi, &safi, &e) != 0 ||
            bgp_route_refresh_parse(enc, (uint16_t)bgp_route_refresh_encode(enc, afi, safi), &afi2, &safi2, &e) != 0 ||
            afi2 != afi || safi2 != safi)
            abort();
        return;
    }
    default:
        return;
    }
}

/* bgp_msg_frame over m[0..n); each message framed, from its own copy. */
static void stream(const uint8_t *m, size_t n)
{
    size_t off = 0;
    while (off < n) {
        uint16_t len = 0;
        uint8_t type = 0;
        struct bgp_error e = {0};
        int r = bgp_msg_frame(m + off, n - off, &len, &type, &e);
        if (r == 1)
            return;
        if (r == -1) {
            if (e.code != BGP_ERR_HEADER || e.subcode < 1 || e.subcode > 3)
                abort();
            return;
        }
        if (r != 0 || len < BGP_HDR_LEN || len > BGP_MSG_MAX || len > n - off)
            abort();
        uint8_t *c = malloc(len);
        memcpy(c, m + off, len);
        message(c, len, type);
        free(c);
        off += len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    stream(data, size);
    if (size >= BGP_HDR_LEN && size <= BGP_MSG_MAX) {
        uint8_t *c = malloc(size);
        memcpy(c, data, size);
        memset(c, 0xff, 16);
        c[16] = (uint8_t)(size >> 8);
        c[17] = (uint8_t)size;
        uint16_t len;
        uint8_t type;
        struct bgp_error e;
        if (bgp_msg_frame(c, size, &len, &type, &e) == 0)
            message(c, len, type);
        free(c);
    }
    return 0;
}
