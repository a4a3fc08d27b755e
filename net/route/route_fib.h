/* SPDX-License-Identifier: MIT */
/* net/route/route_fib.h: the lookup structure behind route4.h and route6.h, a
 * Poptrie (Asai & Ohara, "Poptrie: A Compressed Trie with Population Count
 * for Fast and Scalable Software IP Routing Table Lookup", SIGCOMM 2015):
 * a direct-pointing array indexed by the top direct_bits of the key, then
 * 64-way nodes whose children and leaves are found by counting bits.
 *
 * A node covers 6 key bits. Slot j of a node is a child node if bit j of vec
 * is set, else a leaf. Children are contiguous at nodes[base_node ...];
 * equal neighbouring leaves are stored once (leaf compression), so leaf slot
 * j's next hop is leaves[base_leaf + popcount(leafvec & bits 0..j) - 1].
 * Bit 0 of leafvec is always set (a dummy leaf when slot 0 is a child), so
 * that no slot's rank is 0 and a lookup may read "its" leaf unchecked.
 *
 * Everything readers reach hangs off one root. Nodes and leaves are never
 * changed once reachable: an update builds new ones and publishes them with
 * one release store (a direct entry, or the root when the pools grow); the
 * old ones are retired and freed by route_fib_reclaim. See route.h for the
 * epoch rule and docs/route.md for the design. */
#ifndef NET_ROUTE_FIB_H
#define NET_ROUTE_FIB_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route_common.h"
#include "route_rib.h"

struct route_fib_node {
    uint64_t vec;       /* bit j: slot j is a child node */
    uint64_t leafvec;   /* bit j: slot j is a leaf that starts a new run */
    uint32_t base_leaf; /* first leaf in the leaf pool */
    uint32_t base_node; /* first child in the node pool */
};
_Static_assert(sizeof(struct route_fib_node) == 24, "Poptrie node is 24 bytes");

/* A direct entry is a node index, or a next hop with this bit set. */
#define ROUTE_FIB_LEAF 0x80000000u
#define ROUTE_FIB_MAX_LEVELS 20 /* (128 - 18) / 6 rounded up, and one spare */

/* With l1_records (IPv4) the node a direct entry points to is a record:
 * the node and its leaves together, in 8-byte units from recs[], so that
 * the leaf sits on the node's cache line or the next: one dependent miss
 * fewer than node, then leaf; a record never crosses a line it need not
 * (route_fib_run_alloc). A node without children (nearly all) is a
 * short record, just leafvec and the leaves; one with children is a long
 * record, flagged in the direct entry, and its children are plain nodes. */
struct route_fib_srec {
    uint64_t leafvec;
    uint16_t leaf[]; /* popcount(leafvec) next hops */
};
struct route_fib_rec {
    uint64_t vec;
    uint64_t leafvec;
    uint32_t base_node;
    uint16_t leaf[];
};
_Static_assert(__builtin_offsetof(struct route_fib_srec, leaf) == 8, "short record leaves at 8");
_Static_assert(__builtin_offsetof(struct route_fib_rec, leaf) == 20, "long record leaves at 20");
#define ROUTE_FIB_SREC_UNITS(nleaf) ((8u + 2u * (nleaf) + 7u) / 8u)
#define ROUTE_FIB_REC_UNITS(nleaf) ((20u + 2u * (nleaf) + 7u) / 8u)
#define ROUTE_FIB_REC_LONG 0x40000000u /* in a direct entry: a long record */

/* With l1_records a direct leaf is a record too, so that a lookup reads
 * every short entry alike, with no select between leaf and record: next
 * hop nh's is the shared one-leaf record (leafvec 1, leaf nh) at recs[-2
 * (nh + 1)], in a region in front of the pool for the next hops below the
 * root's `shared` (grown, behind a new root, when a larger one comes: 64
 * at first, 1,024 for the kernel's next-hop slots, 16 bytes each), and
 * its entry that index as a negative int32 (the sign bit is still
 * ROUTE_FIB_LEAF; nh is ~e >> 1). So entries order as int32: leaves <
 * short records < long ones. */
#define ROUTE_FIB_SHARED_MIN 64u
static inline uint32_t route_fib_shared_leaf(uint32_t nh) { return ~(2u * nh + 1u); }

/* The pools: nodes, leaves, direct blocks (two-level arrays only), records
 * (l1_records only). */
enum { ROUTE_FIB_NODES, ROUTE_FIB_LEAVES, ROUTE_FIB_BLOCKS, ROUTE_FIB_RECS, ROUTE_FIB_POOLS };

/* What readers reach. The direct array is flat (1 << direct_bits entries)
 * or, with l1_bits, two-level: direct has 1 << l1_bits entries, each a
 * next hop for its whole region or the index of a block of the remaining
 * 1 << (direct_bits - l1_bits) direct entries (IPv6: 12 + 12 bits, as only
 * a few /12s hold routes). Block 0 is a dummy a reader may read. */
struct route_fib_root {
    _Atomic uint32_t *direct;
    _Atomic uint32_t *blocks;
    const struct route_fib_node *nodes;
    const uint16_t *leaves;
    const uint64_t *recs;
    uint32_t cap[ROUTE_FIB_POOLS]; /* for the writer */
    uint32_t shared;               /* next hops with a shared leaf record (l1_records) */
};

/* Free runs of one length, a stack of pool indices. */
struct route_fib_stack {
    uint32_t *idx;
    uint32_t len, cap;
};

/* Pool runs to free later (retired) or to take back if an update fails. */
struct route_fib_log {
    struct route_fib_logent {
        uint64_t epoch;
        struct route_fib_root *mem; /* a whole old root, or NULL for a run */
        size_t bytes;
        uint32_t idx, len;          /* a run: len elements from idx */
        uint32_t pool;              /* ROUTE_FIB_NODES, ... */
    } *e;
    uint32_t len, cap;
};

/* One node's 64 slots while it is built. */
struct route_fib_slots {
    uint64_t internal; /* bit j: slot j becomes a child */
    uint32_t nh[64];   /* leaf next hop, or the inherited one below a child */
    uint32_t rib[64];  /* RIB node of a child slot */
};

struct route_fib {
    /* Read by lookups, on a line of its own. */
    _Atomic(struct route_fib_root *) root;
    bool popcnt;                           /* route_cfg.popcnt */
    bool avx512;                           /* route_cfg.avx512 */
    bool avx2;                             /* route_cfg.avx2 */
    /* Writer only from here. */
    _Alignas(64) struct route_fib_root *cur; /* == root but while a rebuild
                                                fills a new one */
    const struct route_rib *rib;
    struct route_alloc alloc;
    _Atomic uint64_t *epoch;
    _Atomic uint64_t own_epoch;
    unsigned direct_bits, l1_bits, key_bits;
    bool l1_records;
    uint32_t shared;                       /* a new root's shared leaf records */
    uint32_t top[ROUTE_FIB_POOLS];         /* never-used tails of the pools */
    uint32_t used[ROUTE_FIB_POOLS];
    uint32_t nrecs;                        /* records in use (runs of RECS) */
    bool log_fresh;                        /* log allocations (off in rebuilds) */
    struct route_fib_stack free_runs[3][65], free_blocks; /* nodes, leaves, records */
    struct route_fib_log retired;          /* [0, staged): tagged; after: this update's */
    uint32_t staged;
    struct route_fib_log fresh;            /* this update's allocations */
    size_t retired_bytes;
    struct route_fib_slots scratch[ROUTE_FIB_MAX_LEVELS];
    bool defer;                            /* route_fib_defer: changes reach the RIB only */
    uint32_t deferred;                     /* changes since, not in the structure yet */
};

/* l1_bits: 0 for a flat direct array, else the two-level split;
 * l1_records: first-level nodes as records (route_fib_rec). */
int route_fib_init(struct route_fib *f, const struct route_rib *rib,
                   const struct route_cfg *cfg, unsigned direct_bits,
                   unsigned l1_bits, bool l1_records, unsigned key_bits);
/* Frees everything, retired memory included: no reader may be left. */
void route_fib_fini(struct route_fib *f);
/* cfg's lookup paths (route4_set_paths). */
void route_fib_set_paths(struct route_fib *f, const struct route_cfg *cfg);
/* Rebuild the whole structure from the RIB into fresh memory and publish
 * it (bulk loads, compaction). On failure the old one stays. */
int route_fib_rebuild(struct route_fib *f);
/* The RIB changed at prefix k/len: rebuild what that touches and publish.
 * On failure nothing is published: undo the RIB change and call again. */
int route_fib_update(struct route_fib *f, const struct route_key *k, unsigned len);
/* Set k/len to nh in rib (nh == 0: delete it) and update to match; on
 * failure both are as they were. */
int route_fib_change(struct route_fib *f, struct route_rib *rib, const struct route_key *k,
                     unsigned len, uint32_t nh);
/* While deferring, route_fib_change changes the RIB only: lookups keep
 * the structure as it was (exact-match reads of the RIB see the change).
 * Ending it rebuilds once when anything changed: many changes at once (a
 * routing protocol's whole table) cost one rebuild, not an update each. */
int route_fib_defer(struct route_fib *f, bool on);
uint64_t route_fib_epoch(const struct route_fib *f);
/* Free what was retired in epochs <= safe_epoch. */
void route_fib_reclaim(struct route_fib *f, uint64_t safe_epoch);
void route_fib_stats(const struct route_fib *f, struct route_stats *st);

/* Internal to route_fib.c and route_fib_mem.c (pools, roots, logs). */
struct route_fib_root *route_fib_root_new(struct route_fib *f, const uint32_t cap[]);
struct route_fib_root *route_fib_root_copy(struct route_fib *f, const uint32_t cap[]);
void route_fib_root_free(struct route_fib *f, struct route_fib_root *r);
size_t route_fib_root_bytes(const struct route_fib *f, const struct route_fib_root *r);
uint32_t route_fib_direct_get(const struct route_fib *f, uint32_t d);
int route_fib_run_alloc(struct route_fib *f, unsigned pool, uint32_t len, uint32_t *idx);
int route_fib_shared_room(struct route_fib *f, uint32_t nh); /* nh's shared leaf record in cur */
void route_fib_run_free(struct route_fib *f, unsigned pool, uint32_t idx, uint32_t len);
int route_fib_run_retire(struct route_fib *f, unsigned pool, uint32_t idx, uint32_t len);
int route_fib_retire_room(struct route_fib *f); /* before publishing a root that retires one */
int route_fib_retire_root(struct route_fib *f, struct route_fib_root *old);
int route_fib_publish_rebuilt(struct route_fib *f, struct route_fib_root *old);
void route_fib_commit(struct route_fib *f);
void route_fib_abort(struct route_fib *f);

static inline const struct route_fib_root *route_fib_root(const struct route_fib *f)
{
    return atomic_load_explicit(&f->root, memory_order_acquire);
}

#endif
