/* SPDX-License-Identifier: MIT */
/* tools/bench/route_load.h: what the route and forwarding benchmarks
 * share (route_load.c): reading rib-v4-2024 and rib-v6-2024 into prefixes
 * with per-prefix pseudo-random next hops, the destination arrays, and
 * loading the same prefixes into our tables and DPDK's. Each exits the
 * program on failure. */
#ifndef TOOLS_BENCH_ROUTE_LOAD_H
#define TOOLS_BENCH_ROUTE_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "net/route/route4.h"
#include "net/route/route6.h"

#define NADDR (1u << 22)  /* IPv4 destinations in each array */
#define NADDR6 (1u << 21) /* IPv6 destinations in each array */
/* rte_lpm's footprint: tbl24, the tbl8 groups configured, the rules. */
#define LPM_TBL8S 4096u /* rib-v4-2024 needs under 1000; room for the churn */
#define LPM_RULES (1u << 20)
#define LPM6_TBL8S (1u << 16) /* the smallest power of two that takes rib-v6-2024 */

struct rte_lpm;
struct rte_lpm6;

/* route_bench's lookups a burst, both sides (--burst; 32 unless told). */
extern uint32_t route_bench_burst;

/* EAL's --lcores value that keeps lcore 0 on the first CPU this process
 * may run on (taskset): without it EAL pins lcore 0 to CPU 0. */
void eal_lcore_here(char *buf, size_t len);
/* Route-file lines (gzip'd) to prefixes, *n of them; NULL if unreadable. */
struct route4_prefix *read_v4(const char *path, size_t *n);
struct route6_prefix *read_v6(const char *path, size_t *n);
/* NADDR destinations: uni uniform over all addresses, in inside random
 * prefixes of p. */
void v4_addresses(const struct route4_prefix *p, size_t n, uint32_t *uni, uint32_t *in);
/* The first k of p a random draw of its n (a partial shuffle, always the
 * same draw): the prefixes a working set's traffic goes to. */
void v4_shuffle_first(struct route4_prefix *p, size_t n, size_t k);
/* NADDR6 destinations: uni uniform over 2000::/3, in inside random
 * prefixes of p. */
void v6_addresses(const struct route6_prefix *p, size_t n, uint8_t (*uni)[16], uint8_t (*in)[16]);
/* p into a new table of ours or DPDK's; *secs: how long the load took. */
struct route4 *load_v4(const struct route4_prefix *p, size_t n, double *secs);
struct route6 *load_v6(const struct route6_prefix *p, size_t n, double *secs);
struct rte_lpm *load_lpm(const struct route4_prefix *p, size_t n, double *secs);
struct rte_lpm6 *load_lpm6(const struct route6_prefix *p, size_t n, double *secs);

#endif
