/* SPDX-License-Identifier: MIT */
/* net/route/route6.h: the IPv6 route table: longest-prefix match (RFC 4291,
 * section 2.5; RFC 8200) over a Poptrie (route_fib.h) with a 24-bit direct
 * array in two 12-bit levels, updated by one writer while other cores look
 * up (route.h).
 *
 * Addresses are 16 bytes in network order, as in the packet. Next hops are
 * indices 1..ROUTE_NH_MAX; lookups answer ROUTE_NH_NONE (0) on no match. */
#ifndef NET_ROUTE6_H
#define NET_ROUTE6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route_common.h"

struct route6;

struct route6_prefix {
    uint8_t addr[16]; /* host bits zero */
    uint32_t len;     /* 0..128 */
    uint32_t nh;      /* 1..ROUTE_NH_MAX */
};

struct route6 *route6_create(const struct route_cfg *cfg);
void route6_destroy(struct route6 *t);
/* As route4_set_paths. */
void route6_set_paths(struct route6 *t, const struct route_cfg *cfg);

/* As route4_add and friends (route4.h). */
int route6_add(struct route6 *t, const uint8_t addr[16], unsigned len, uint32_t nh);
int route6_del(struct route6 *t, const uint8_t addr[16], unsigned len);
int route6_defer(struct route6 *t, bool on);
uint32_t route6_deferred(const struct route6 *t);
int route6_add_bulk(struct route6 *t, const struct route6_prefix *p, size_t n, uint32_t *bad);
/* One "prefix/len" a line (RFC 4291 text form, RFC 5952 or not). */
int route6_load_text(struct route6 *t, const char *text, size_t text_len, uint32_t nh,
                     struct route_load_stats *st, route_set_fn set_fn, void *set_ctx);
int route6_compact(struct route6 *t);

uint32_t route6_get(const struct route6 *t, const uint8_t addr[16], unsigned len);
uint32_t route6_match(const struct route6 *t, const uint8_t addr[16], unsigned *len);

uint32_t route6_lookup(const struct route6 *t, const uint8_t addr[16]);
/* nh[i] = route6_lookup(t, addr[i]) for i < n, batched with prefetching. */
void route6_lookup_burst(const struct route6 *t, const uint8_t (*addr)[16], uint32_t *nh,
                         size_t n);

uint64_t route6_epoch(const struct route6 *t);
void route6_reclaim(struct route6 *t, uint64_t safe_epoch);
void route6_stats(const struct route6 *t, struct route_stats *st);

/* Parse an address (RFC 4291 section 2.2: hex groups, one "::", an
 * optional dotted-quad tail), exactly s_len bytes. */
bool route6_parse_addr(const char *s, size_t s_len, uint8_t addr[16]);
/* Parse "address/len"; host bits must be zero. */
bool route6_parse(const char *s, size_t s_len, uint8_t addr[16], unsigned *len);

#endif
