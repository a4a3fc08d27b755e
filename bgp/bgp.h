/* SPDX-License-Identifier: MIT */
/* bgp/bgp.h: what the BGP speaker's parts share: address families,
 * prefixes, a path's attributes as parsed, the memory the embedder hands
 * over. The wire codec (bgp_msg.h), the routing tables and decision
 * process (bgp_rib.h) and the session state machine (bgp_fsm.h) build on
 * these; none of them sees the kernel (bgp/README.md). */
#ifndef BGP_BGP_H
#define BGP_BGP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* RFC 4760 3: the address families this speaker carries (unicast only). */
#define BGP_AFI_IPV4 1
#define BGP_AFI_IPV6 2
#define BGP_SAFI_UNICAST 1

/* RFC 4271 4.1: no message is longer (RFC 8654's extended messages are not
 * offered). */
#define BGP_MSG_MAX 4096
#define BGP_HDR_LEN 19
#define BGP_PORT 179

/* A prefix: addr in network order, bits past len zero; IPv4 in addr[0..3]. */
struct bgp_prefix {
    uint8_t afi; /* BGP_AFI_IPV4 or BGP_AFI_IPV6 */
    uint8_t len; /* 0..32 or 0..128 */
    uint8_t addr[16];
};

enum bgp_origin { BGP_ORIGIN_IGP = 0, BGP_ORIGIN_EGP = 1, BGP_ORIGIN_INCOMPLETE = 2 };

/* Which of struct bgp_attrs's fields an UPDATE carried. */
enum {
    BGP_HAS_ORIGIN = 1u << 0,
    BGP_HAS_AS_PATH = 1u << 1,
    BGP_HAS_NEXT_HOP = 1u << 2,      /* nh4, from NEXT_HOP (type 3) */
    BGP_HAS_MED = 1u << 3,
    BGP_HAS_LOCAL_PREF = 1u << 4,
    BGP_HAS_ATOMIC_AGGREGATE = 1u << 5,
    BGP_HAS_AGGREGATOR = 1u << 6,
    BGP_HAS_MP_NH6 = 1u << 7,        /* nh6 from MP_REACH_NLRI (IPv6) */
    BGP_HAS_MP_NH6_LL = 1u << 8,     /* nh6_ll too (RFC 2545 3: 32-byte next hop) */
    BGP_HAS_MP_NH4 = 1u << 9,        /* an IPv4 next hop given in MP_REACH_NLRI */
    BGP_HAS_COMMUNITIES = 1u << 10,
};

/* AS_PATH as 4-byte ASNs whatever the session spoke (RFC 6793 4.2.3:
 * AS4_PATH merged in by the parser): segments of type (1 AS_SET, 2
 * AS_SEQUENCE, 3/4 the confederation ones), count, then count ASNs. */
#define BGP_AS_PATH_MAX 1024 /* ASNs in all segments; longer paths are malformed here */
struct bgp_as_seg {
    uint8_t type, count;
};

/* A path's attributes (RFC 4271 5), the parsed form the codec fills and
 * the RIB interns. Optional transitive attributes this speaker does not
 * read are kept as they came (their Partial bit set, RFC 4271 5) in
 * other[] for re-advertisement; COMMUNITIES (RFC 1997) is among them. */
#define BGP_OTHER_ATTRS_MAX 1024
struct bgp_attrs {
    uint32_t has;         /* BGP_HAS_* */
    uint8_t origin;       /* enum bgp_origin */
    uint32_t med, local_pref;
    uint8_t nh4[4];
    uint8_t nh6[16], nh6_ll[16];
    uint32_t aggregator_as;
    uint8_t aggregator_id[4];
    /* AS_PATH: nsegs segments, the ASNs of all of them in asns[] in order */
    uint16_t nsegs, nasns;
    struct bgp_as_seg segs[64];
    uint32_t asns[BGP_AS_PATH_MAX];
    /* RFC 4271 9.1.2.2 a): the path's length for the decision, an AS_SET
     * counting one, confederation segments nothing */
    uint16_t path_len;
    uint16_t other_len;
    uint8_t other[BGP_OTHER_ATTRS_MAX];
};

/* Memory from the embedder: alloc returns size bytes (zeroed, 16-byte
 * aligned) or NULL; free gets the size back. */
struct bgp_alloc {
    void *(*alloc)(void *ctx, size_t size);
    void (*free)(void *ctx, void *p, size_t size);
    void *ctx;
};

/* RFC 1997's well-known communities. */
#define BGP_NO_EXPORT 0xffffff01u
#define BGP_NO_ADVERTISE 0xffffff02u
#define BGP_NO_EXPORT_SUBCONFED 0xffffff03u

/* Whether attributes kept raw (bgp_attrs.other: flags, type, length,
 * value each) hold a COMMUNITIES attribute (type 8) with community c. */
bool bgp_has_community(const uint8_t *other, uint16_t len, uint32_t c);
/* The well-known ones among them, in one pass: bit k set for 0xffffff01 + k
 * (BGP_NO_EXPORT bit 0, BGP_NO_ADVERTISE bit 1, BGP_NO_EXPORT_SUBCONFED bit 2). */
unsigned bgp_well_known_communities(const uint8_t *other, uint16_t len);

/* Prefixes equal (family, length and the address bits within it). */
bool bgp_prefix_eq(const struct bgp_prefix *a, const struct bgp_prefix *b);

#endif
