/* SPDX-License-Identifier: MIT */
/* tests/unit/bgp/msg_util.h: what the BGP codec's tests share: UPDATEs
 * put together from their fields, and parses from an exact-size heap
 * copy so that ASan sees any read past the message. */
#ifndef TESTS_UNIT_BGP_MSG_UTIL_H
#define TESTS_UNIT_BGP_MSG_UTIL_H

#include <stdlib.h>

#include "bgp/bgp_msg.h"
#include "tests/unit/check.h"

/* An UPDATE of withdrawn routes wd, attributes at and NLRI nlri (RFC 4271
 * 4.3); its length. */
static inline uint16_t mk_update(uint8_t *m, const uint8_t *wd, size_t wdl, const uint8_t *at, size_t al,
                                 const uint8_t *nlri, size_t nl)
{
    size_t len = 19 + 2 + wdl + 2 + al + nl;
    memset(m, 0xff, 16);
    m[16] = (uint8_t)(len >> 8);
    m[17] = (uint8_t)len;
    m[18] = BGP_UPDATE;
    uint8_t *p = m + 19;
    *p++ = (uint8_t)(wdl >> 8);
    *p++ = (uint8_t)wdl;
    if (wdl)
        memcpy(p, wd, wdl);
    p += wdl;
    *p++ = (uint8_t)(al >> 8);
    *p++ = (uint8_t)al;
    if (al)
        memcpy(p, at, al);
    p += al;
    if (nl)
        memcpy(p, nlri, nl);
    return (uint16_t)len;
}

/* bgp_update_parse on an exact-size copy; its return. BGP_DEBUG=1 in the
 * environment prints each verdict. */
static inline int parse_exact(const uint8_t *m, uint16_t len, const struct bgp_update_ctx *ctx, struct bgp_update *u)
{
    uint8_t *c = malloc(len);
    memcpy(c, m, len);
    int r = bgp_update_parse(c, len, ctx, u);
    /* The NLRI pointers point into the copy: move them to m. */
    const uint8_t **fields[] = {&u->wd4, &u->nlri4, &u->mp_reach_nlri, &u->mp_unreach_nlri};
    for (int i = 0; i < 4; i++)
        if (*fields[i])
            *fields[i] = m + (*fields[i] - c);
    free(c);
    if (getenv("BGP_DEBUG"))
        fprintf(stderr, "  parse: verdict %d reason %s err %d/%d\n", u->verdict, bgp_upd_reason_name(u->reason),
                u->err.code, u->err.subcode);
    return r;
}

/* The prefixes of an NLRI field, up to max; how many. */
static inline int nlri_list(const uint8_t *p, uint16_t len, uint8_t afi, struct bgp_prefix *out, int max)
{
    if (!p)
        return 0;
    const uint8_t *end = p + len;
    int n = 0;
    struct bgp_prefix x;
    while (n < max && bgp_nlri_next(&p, end, afi, &x))
        out[n++] = x;
    return n;
}

static inline struct bgp_prefix pfx4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t len)
{
    struct bgp_prefix p = {.afi = BGP_AFI_IPV4, .len = len, .addr = {a, b, c, d}};
    return p;
}

#endif
