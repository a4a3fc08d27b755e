/* SPDX-License-Identifier: MIT */
/* net/fwd/nexthop_group.h: equal-cost multipath. A route's next hop may be a
 * group of paths (`route P via A via B`): each is a next-hop slot of the
 * family's table (nexthop.h, nexthop6.h), and a flow keeps to one of them
 * by a hash of its addresses, protocol and ports (RFC 2992's hash-threshold
 * for the choice among n; RFC 6438's flow label joins the IPv6 hash).
 *
 * A group's paths are fixed while any route uses it; what changes is which
 * are live (the control plane takes a path out when its link is down or its
 * neighbour stops answering, and puts it back when it returns): one atomic
 * word, read per packet. A flow on a live path stays there whatever
 * happens to the others; a flow whose path went is spread over those left.
 * With none live, every path is used as if live (the neighbour lookup then
 * decides), rather than dropping all.
 *
 * One writer (the control plane), readers on every core, as the tables. A
 * group is freed with its next-hop slot (nexthop_ref.h: once no core can
 * still read it). */
#ifndef NET_NEXTHOP_GROUP_H
#define NET_NEXTHOP_GROUP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define NH_GROUP_PATHS 16 /* paths a group */
#define NH_GROUP_MAX 128  /* groups a family */

struct nh_group {
    uint16_t path[NH_GROUP_PATHS]; /* next-hop slots, ascending */
    uint8_t n;                     /* paths; 0: the group is free */
    _Atomic uint16_t live;         /* bit i: path[i] usable */
};

struct nh_groups {
    struct nh_group g[NH_GROUP_MAX];
    /* Bumped (release) after any path goes or comes back: a reader that
     * keeps which paths are live (IPv4's adjacencies, nexthop.h) checks it
     * once a burst. */
    _Atomic uint32_t live_gen;
};

/* Writer. The group of exactly these paths (n from 2 to NH_GROUP_PATHS,
 * distinct slots, any order: they are sorted), made with every path live
 * if new (*made true); -1 when all NH_GROUP_MAX are in use or the paths are
 * bad. */
int nh_group_get(struct nh_groups *t, const uint32_t *paths, unsigned n, bool *made);
void nh_group_free(struct nh_groups *t, unsigned g);
/* Path i of group g up or down; true when that changed it. */
bool nh_group_set_live(struct nh_groups *t, unsigned g, unsigned i, bool up);

/* Reader: the path of group g for a flow of this hash (hash-threshold: the
 * hash's top bits cut [0, 2^32) into n equal regions). */
static inline uint32_t nh_group_pick(const struct nh_group *g, uint32_t hash)
{
    uint32_t n = g->n, i = (uint32_t)(((uint64_t)hash * n) >> 32);
    uint32_t live = atomic_load_explicit(&g->live, memory_order_relaxed);
    if (__builtin_expect((live >> i) & 1, 1) || live == 0)
        return g->path[i];
    /* i is down: one of the live paths, by another part of the hash */
    uint32_t count = 0;
    for (uint32_t m = live; m; m &= m - 1)
        count++;
    uint32_t k = (uint32_t)(((uint64_t)(hash * 0x9e3779b1u) * count) >> 32);
    for (; k; k--)
        live &= live - 1;
    return g->path[__builtin_ctz(live)];
}

/* Two multiplies: the top bits, which the pick uses, depend on every
 * input bit. */
static inline uint32_t nh_hash_mix(uint64_t a, uint64_t b)
{
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull) ^ (b >> 29)) * 0xc2b2ae3d27d4eb4full;
    return (uint32_t)(h >> 32) ^ (uint32_t)(h >> 7);
}

/* The flow of an IPv4 datagram (ip: its header, read as far as the
 * transport's ports, which the buffer always holds): addresses, protocol,
 * and the ports of TCP, UDP and SCTP when it is not a fragment (a
 * fragment's flow is its addresses and protocol alone, so all of a
 * datagram's pieces go one way). Per packet on the fast path, so one
 * multiply (Fibonacci hashing): the ports and the protocol XORed into the
 * addresses' word, whose product's top bits, which the pick uses, depend
 * on every bit of it. Sequences of ports or addresses spread evenly. */
static inline uint32_t nh_flow_hash4(const uint8_t *ip)
{
    uint64_t addrs;
    uint32_t ports = 0, proto = ip[9];
    __builtin_memcpy(&addrs, ip + 12, 8);
    if ((proto == 6 || proto == 17 || proto == 132) && ((ip[6] & 0x3f) | ip[7]) == 0)
        __builtin_memcpy(&ports, ip + (ip[0] & 15) * 4, 4);
    uint64_t x = addrs ^ (uint64_t)ports << 16 ^ (uint64_t)proto << 56;
    return (uint32_t)((x * 0x9e3779b97f4a7c15ull) >> 32);
}

/* The flow of an IPv6 packet: addresses, flow label (RFC 6438), next
 * header, and the ports of TCP, UDP and SCTP directly after the fixed
 * header. */
static inline uint32_t nh_flow_hash6(const uint8_t *ip)
{
    uint64_t s0, s1, d0, d1;
    uint32_t ports = 0, label = ((uint32_t)ip[1] & 15) << 16 | (uint32_t)ip[2] << 8 | ip[3];
    __builtin_memcpy(&s0, ip + 8, 8);
    __builtin_memcpy(&s1, ip + 16, 8);
    __builtin_memcpy(&d0, ip + 24, 8);
    __builtin_memcpy(&d1, ip + 32, 8);
    uint8_t next = ip[6];
    if (next == 6 || next == 17 || next == 132)
        __builtin_memcpy(&ports, ip + 40, 4);
    return nh_hash_mix(s0 ^ (s1 << 1) ^ ((uint64_t)label << 40), d0 ^ (d1 << 1) ^ ((uint64_t)ports << 8 | next));
}

/* A locally sent packet's flow, before it has a header: its destination. */
static inline uint32_t nh_flow_hash_dst(const uint8_t *dst, unsigned len)
{
    uint64_t a = 0, b = 0;
    __builtin_memcpy(&a, dst, len < 8 ? len : 8);
    if (len > 8)
        __builtin_memcpy(&b, dst + 8, len - 8);
    return nh_hash_mix(a, b);
}

#endif
