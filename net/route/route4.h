/* SPDX-License-Identifier: MIT */
/* net/route/route4.h: the IPv4 route table: longest-prefix match (RFC 1812,
 * section 5.2.4.3) over a Poptrie (route_fib.h) with an 18-bit direct array,
 * updated by one writer while other cores look up (route.h has the rules).
 *
 * Addresses are host-order uint32_t: 10.1.2.3 is 0x0a010203. Next hops are
 * indices 1..ROUTE_NH_MAX into the embedder's next-hop table; lookups
 * answer ROUTE_NH_NONE (0) where no prefix matches. */
#ifndef NET_ROUTE4_H
#define NET_ROUTE4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route_common.h"

struct route4;

struct route4_prefix {
    uint32_t addr; /* host order, host bits zero */
    uint32_t len;  /* 0..32 */
    uint32_t nh;   /* 1..ROUTE_NH_MAX */
};

/* NULL when the allocator fails. */
struct route4 *route4_create(const struct route_cfg *cfg);
/* No reader may be left. */
void route4_destroy(struct route4 *t);
/* The lookup paths from now on: cfg's popcnt, avx2 and avx512 (the rest of
 * cfg is not read). Before readers start: an embedder's choice, such as a
 * configuration statement, among what the CPU offers. */
void route4_set_paths(struct route4 *t, const struct route_cfg *cfg);

/* Add or replace addr/len. ROUTE_EINVAL for a bad length, host bits set,
 * or nh out of 1..ROUTE_NH_MAX; ROUTE_ENOMEM leaves the table unchanged. */
int route4_add(struct route4 *t, uint32_t addr, unsigned len, uint32_t nh);
/* Remove addr/len; ROUTE_ENOENT if it is not there. */
int route4_del(struct route4 *t, uint32_t addr, unsigned len);
/* Deferring (on): add and del change the table's RIB only (route4_get
 * and route4_match see them), lookups the table as it was; off rebuilds
 * once (route_fib.h's route_fib_defer). A routing protocol's burst of
 * thousands of changes costs a rebuild, not an update each. */
int route4_defer(struct route4 *t, bool on);
uint32_t route4_deferred(const struct route4 *t); /* changes not in lookups yet */
/* Add many at once with one rebuild at the end (far faster than route4_add
 * each). Invalid entries are skipped and counted in *bad (may be NULL). */
int route4_add_bulk(struct route4 *t, const struct route4_prefix *p, size_t n, uint32_t *bad);
/* Bulk-add the prefixes of a text, one "a.b.c.d/len" a line, all with next
 * hop nh. Blank lines and '#' comments are skipped; lines that do not parse
 * are counted in st and skipped. The text is untrusted. set_fn (NULL: none)
 * is told each prefix set, with the next hop it had (route.h). */
int route4_load_text(struct route4 *t, const char *text, size_t text_len, uint32_t nh,
                     struct route_load_stats *st, route_set_fn set_fn, void *set_ctx);
/* Rebuild the lookup structure into fresh, packed memory. */
int route4_compact(struct route4 *t);

/* Control plane (the writer's side): the next hop of exactly addr/len (0 if
 * absent), and the longest match for addr with its length. */
uint32_t route4_get(const struct route4 *t, uint32_t addr, unsigned len);
uint32_t route4_match(const struct route4 *t, uint32_t addr, unsigned *len);

/* Readers: any core, lock-free. */
uint32_t route4_lookup(const struct route4 *t, uint32_t addr);
/* nh[i] = route4_lookup(t, addr[i]) for i < n, batched with prefetching;
 * bursts of 16 to 64 work best. */
void route4_lookup_burst(const struct route4 *t, const uint32_t *addr, uint32_t *nh,
                         size_t n);

/* Epochs and reclamation (route.h). */
uint64_t route4_epoch(const struct route4 *t);
void route4_reclaim(struct route4 *t, uint64_t safe_epoch);
void route4_stats(const struct route4 *t, struct route_stats *st);

/* Parse "a.b.c.d" (exactly s_len bytes). */
bool route4_parse_addr(const char *s, size_t s_len, uint32_t *addr);
/* Parse "a.b.c.d/len" (exactly s_len bytes, no spaces); host bits must be
 * zero. */
bool route4_parse(const char *s, size_t s_len, uint32_t *addr, unsigned *len);

#endif
