/* SPDX-License-Identifier: MIT */
/* net/route/route_rib.h: the control-plane side of the route tables: every prefix
 * with its next hop in a plain binary trie (one node per prefix bit), keyed
 * by up to 128 bits. route_fib.c builds the lookup structure from it and
 * rebuilds the part an update touches. Writer only: readers never see it. */
#ifndef NET_ROUTE_RIB_H
#define NET_ROUTE_RIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "route_common.h"

/* A key: bit 0 is the most significant bit of hi. IPv4 keys use the top 32
 * bits of hi (host-order address << 32) and lo == 0. */
struct route_key {
    uint64_t hi, lo;
};

/* Node 0 is "none"; node 1 is the root (the zero-length prefix). */
struct route_rib_node {
    uint32_t child[2];
    uint32_t nh;  /* ROUTE_NH_NONE: no prefix ends here */
    uint32_t sub; /* what lies strictly below: route_rib_sub_nh, ROUTE_RIB_COVERED */
};

/* A node's summary of the prefixes strictly below it, kept by set and del,
 * so that the FIB learns whether a region maps to one next hop without
 * walking it (a table whose routes share one next hop would make every
 * update walk whole subtrees): the next hop they all have (ROUTE_NH_NONE:
 * no prefix below; ROUTE_RIB_MIXED: not all the same), and whether they
 * cover the node's whole region. */
#define ROUTE_RIB_MIXED 0x7fffffffu
#define ROUTE_RIB_COVERED 0x80000000u
static inline uint32_t route_rib_sub_nh(uint32_t sub) { return sub & ~ROUTE_RIB_COVERED; }

/* The nodes at depth jump_bits by the key's top jump_bits bits
 * (route_rib_jump.c): route_rib_set starts there instead of walking that
 * many nodes from the root, a dependent load each, many of them cache
 * misses in a full table. IPv4 jumps 16 bits, IPv6 32 (its prefixes
 * start alike: 2001:..., 2a0x:...; 22 nodes walked an insert past bit
 * 16 in a full table, 8 past bit 32). */
#define ROUTE_RIB_JUMP_BITS 16u
#define ROUTE_RIB_JUMP_BITS6 32u
struct route_rib_jump {
    uint32_t key, node; /* node 0: empty */
};

struct route_rib {
    struct route_alloc alloc;
    struct route_rib_node *n;
    struct route_rib_jump *jump;
    uint32_t jump_mask, jump_count;
    unsigned jump_bits; /* 1..32 */
    uint32_t cap;       /* nodes allocated */
    uint32_t top;       /* next never-used node */
    uint32_t free_head; /* freed nodes, linked through child[0] */
    uint32_t used;      /* nodes in the trie, root included */
    uint32_t prefixes;
};

#define ROUTE_RIB_ROOT 1u

static inline unsigned route_key_bit(const struct route_key *k, unsigned i)
{
    return i < 64 ? (unsigned)(k->hi >> (63 - i)) & 1u
                  : (unsigned)(k->lo >> (127 - i)) & 1u;
}

/* The 6 key bits at off..off+5, zeros past bit 127. */
static inline unsigned route_key_bits6(const struct route_key *k, unsigned off)
{
    uint64_t w;
    if (off == 0)
        w = k->hi;
    else if (off < 64)
        w = k->hi << off | k->lo >> (64 - off);
    else if (off < 128)
        w = k->lo << (off - 64);
    else
        w = 0;
    return (unsigned)(w >> 58);
}

/* The top `bits` bits of the key (bits <= 32). */
static inline uint32_t route_key_top(const struct route_key *k, unsigned bits)
{
    return bits ? (uint32_t)(k->hi >> (64 - bits)) : 0;
}

/* True when no bit at or past len is set. */
bool route_key_is_masked(const struct route_key *k, unsigned len);

/* With the jump at ROUTE_RIB_JUMP_BITS, or at jump_bits (1..32). */
int route_rib_init(struct route_rib *r, const struct route_alloc *a);
int route_rib_init_jump(struct route_rib *r, const struct route_alloc *a, unsigned jump_bits);
void route_rib_fini(struct route_rib *r);
/* Insert or replace; *old_nh gets the previous next hop (0 if new). */
int route_rib_set(struct route_rib *r, const struct route_key *k, unsigned len,
                  uint32_t nh, uint32_t *old_nh);
/* Remove; ROUTE_ENOENT if absent. Frees the nodes on k's path that are
 * left with no prefix at or below them, absent or not. */
int route_rib_del(struct route_rib *r, const struct route_key *k, unsigned len,
                  uint32_t *old_nh);
/* The node for the first `depth` bits of k, or 0; *best gets the next hop
 * of the longest prefix on the way (length <= depth), 0 if none. */
uint32_t route_rib_descend(const struct route_rib *r, const struct route_key *k,
                           unsigned depth, uint32_t *best);
/* Longest match of at most max_len bits: next hop, and its length. */
uint32_t route_rib_match(const struct route_rib *r, const struct route_key *k,
                         unsigned max_len, unsigned *len);
size_t route_rib_bytes(const struct route_rib *r);

/* route_rib_jump.c, for route_rib.c: the node at depth jump_bits for a
 * key's top bits, or 0; add may leave one out for want of memory. */
int route_rib_jump_init(struct route_rib *r);
void route_rib_jump_fini(struct route_rib *r);
uint32_t route_rib_jump_find(const struct route_rib *r, uint32_t key);
void route_rib_jump_add(struct route_rib *r, uint32_t key, uint32_t node);
void route_rib_jump_del(struct route_rib *r, uint32_t key);
size_t route_rib_jump_bytes(const struct route_rib *r);

#endif
