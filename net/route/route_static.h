/* SPDX-License-Identifier: MIT */
/* net/route/route_static.h: the routes configured by hand (`route P via G`,
 * `route add`), kept beside the tables lookups read so that a route a
 * protocol learned can be told from them: BGP resolves its next hops over
 * them (RFC 4271 5.1.3, 9.1.2.1) and never replaces one of the same prefix
 * (a static route's administrative distance is the lower). Both families:
 * an IPv4 address in addr[0..3], network order, the rest zero.
 *
 * A list, searched linearly: a router has tens of static routes, and BGP
 * asks once per distinct next hop (kernel/netsvc/netsvc_bgp.c caches). */
#ifndef NET_ROUTE_STATIC_H
#define NET_ROUTE_STATIC_H

#include "route_common.h"

#define ROUTE_STATIC_GWS 16 /* gateways of one route (equal-cost paths) */

struct route_static {
    uint8_t addr[16];
    uint8_t gw[ROUTE_STATIC_GWS][16]; /* gw[0..ngw) */
    uint8_t len, ngw;
    bool v6;
};

struct route_statics {
    struct route_alloc al;
    struct route_static *r;
    uint32_t n, cap;
};

void route_statics_init(struct route_statics *s, const struct route_alloc *al);
void route_statics_fini(struct route_statics *s);
/* Adds addr/len via gw, or changes its gateway: ROUTE_OK, ROUTE_ENOMEM, or
 * ROUTE_EINVAL for a bad length or host bits set. */
int route_statics_set(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len, const uint8_t *gw);
/* The same via n (1..ROUTE_STATIC_GWS) gateways, each 4 or 16 bytes at gws. */
int route_statics_set_gws(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len, const uint8_t *gws,
                          unsigned n);
/* ROUTE_OK, or ROUTE_ENOENT when there was none. */
int route_statics_unset(struct route_statics *s, bool v6, const uint8_t *addr, unsigned len);
/* The route of exactly addr/len, or NULL. */
const struct route_static *route_statics_find(const struct route_statics *s, bool v6, const uint8_t *addr,
                                              unsigned len);
/* The longest route holding addr, or NULL. */
const struct route_static *route_statics_match(const struct route_statics *s, bool v6, const uint8_t *addr);

#endif
