/* SPDX-License-Identifier: MIT */
/* bgp/bgp.c: helpers on bgp.h's types. */
#include "bgp.h"

bool bgp_prefix_eq(const struct bgp_prefix *a, const struct bgp_prefix *b)
{
    if (a->afi != b->afi || a->len != b->len)
        return false;
    unsigned full = a->len / 8u, rest = a->len % 8u;
    for (unsigned i = 0; i < full; i++)
        if (a->addr[i] != b->addr[i])
            return false;
    uint8_t mask = (uint8_t)(0xffu << (8 - rest));
    return rest == 0 || ((a->addr[full] ^ b->addr[full]) & mask) == 0;
}

/* Calls fn for each community of other[]'s COMMUNITIES (RFC 1997: 4
 * bytes each) until it returns true; true then. Malformed lengths end the
 * walk. */
static bool each_community(const uint8_t *other, uint16_t len, bool (*fn)(void *ctx, uint32_t c), void *ctx)
{
    for (uint32_t at = 0; at + 3 <= len;) {
        uint8_t flags = other[at], type = other[at + 1];
        bool ext = flags & 0x10; /* RFC 4271 4.3: Extended Length, a 2-byte length */
        uint32_t hdr = ext ? 4u : 3u;
        if (at + hdr > len)
            return false;
        uint32_t alen = ext ? (uint32_t)other[at + 2] << 8 | other[at + 3] : other[at + 2];
        if (at + hdr + alen > len)
            return false;
        if (type == 8)
            for (uint32_t i = 0; i + 4 <= alen; i += 4) {
                const uint8_t *v = other + at + hdr + i;
                if (fn(ctx, (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3]))
                    return true;
            }
        at += hdr + alen;
    }
    return false;
}

static bool is_c(void *ctx, uint32_t c) { return c == *(const uint32_t *)ctx; }

bool bgp_has_community(const uint8_t *other, uint16_t len, uint32_t c)
{
    return each_community(other, len, is_c, &c);
}

static bool mark_well_known(void *ctx, uint32_t c)
{
    if (c >= BGP_NO_EXPORT && c <= BGP_NO_EXPORT_SUBCONFED)
        *(unsigned *)ctx |= 1u << (c - BGP_NO_EXPORT);
    return false;
}

unsigned bgp_well_known_communities(const uint8_t *other, uint16_t len)
{
    unsigned bits = 0;
    each_community(other, len, mark_well_known, &bits);
    return bits;
}
