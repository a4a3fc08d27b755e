/* SPDX-License-Identifier: MIT */
/* net/route/route_common.h: what the IPv4 and IPv6 route tables (route4.h, route6.h)
 * share: next-hop values, the allocator the embedder hands over, error codes,
 * statistics and the epoch rule for freeing memory. docs/route.md has the
 * design (a Poptrie-style multiway trie, Asai & Ohara, SIGCOMM 2015).
 *
 * Concurrency: one writer (add, del, load, compact, reclaim) and any number
 * of lock-free readers (lookups) on other cores. A reader sees, per lookup,
 * the table before or after each update, never a mix. Memory an update
 * unlinks is tagged with the epoch it was unlinked in and freed only by
 * reclaim(t, safe_epoch) once every reader has passed a quiescent point after
 * that epoch:
 *
 *   reader core c, between bursts:   qs[c] = route4_epoch(t)  (release store)
 *   writer, now and then:            reclaim(t, min over c of qs[c])
 *
 * An idle core stores UINT64_MAX in its slot. */
#ifndef NET_ROUTE_COMMON_H
#define NET_ROUTE_COMMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A next hop is an index into the embedder's next-hop table; 0 is "no
 * route", so a table answers 0 for an address no prefix covers. */
#define ROUTE_NH_NONE 0u
#define ROUTE_NH_MAX 0xffffu

enum route_err {
    ROUTE_OK = 0,
    ROUTE_ENOMEM = -1, /* the allocator failed; the table is unchanged */
    ROUTE_EINVAL = -2, /* bad prefix length, host bits set, or nh out of range */
    ROUTE_ENOENT = -3, /* delete of a prefix that is not there */
};

/* Memory comes from the embedder. alloc returns size bytes aligned to align
 * (a power of two, at most 64), or NULL; free gets the same size back. */
struct route_alloc {
    void *(*alloc)(void *ctx, size_t size, size_t align);
    void (*free)(void *ctx, void *p, size_t size);
    void *ctx;
};

struct route_cfg {
    struct route_alloc alloc;
    /* Epoch counter, or NULL for the table's own. Tables that share one
     * counter (v4 and v6) share one set of per-core quiescent slots. */
    _Atomic uint64_t *epoch;
    /* The CPU has POPCNT: lookups use the instruction (the embedder checks
     * CPUID). Without it they use a portable bit count. */
    bool popcnt;
    /* The CPU has AVX-512 F, VL, DQ and BW and the embedder has their
     * state enabled (XCR0): bursts look up 16 (IPv4) or 8 (IPv6)
     * addresses a vector, each step's loads one gather (route_simd.h). */
    bool avx512;
    /* The CPU has AVX2 and its state is on: without avx512, bursts look
     * up 8 (IPv4) or 4 (IPv6) addresses a vector with AVX2's gathers. */
    bool avx2;
};

/* Sizes, for `show` commands and the benchmark. */
struct route_stats {
    uint32_t prefixes;     /* routes in the table */
    uint32_t nodes;        /* trie nodes in use (IPv4 first-level records included) */
    uint32_t leaves;       /* compressed leaves in the leaf pool (records hold their own) */
    size_t fib_bytes;      /* lookup structure: direct table, node and leaf pools */
    size_t rib_bytes;      /* control plane: the binary trie of prefixes */
    size_t retired_bytes;  /* unlinked, waiting for reclaim */
};

/* Bulk text loads call it, when given, for each prefix they set: its next
 * hop now and before (ROUTE_NH_NONE: the prefix is new; prev_nh == nh: it
 * was there already), so that an embedder can count the routes through each
 * of its next hops (net/fwd/nexthop_ref.h). */
typedef void (*route_set_fn)(void *ctx, uint32_t nh, uint32_t prev_nh);

/* Bulk text loads: lines that did not parse are counted and skipped. */
struct route_load_stats {
    uint32_t lines;        /* lines seen, blank and comment lines included */
    uint32_t added;        /* prefixes added or replaced */
    uint32_t bad;          /* lines skipped */
    uint32_t first_bad_line; /* 1-based, 0 if none */
    bool published;        /* the table was rebuilt: readers see the load */
};

#endif
