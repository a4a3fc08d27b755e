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
