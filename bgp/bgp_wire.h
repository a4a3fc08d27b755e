/* SPDX-License-Identifier: MIT */
/* bgp/bgp_wire.h: the codec's own helpers (bgp_msg.c, bgp_update.c,
 * bgp_attr.c, bgp_update_enc.c), not for the rest of bgp/: network-order
 * loads and stores, attribute flags and type codes, and the attribute
 * parsers bgp_update.c drives. */
#ifndef BGP_BGP_WIRE_H
#define BGP_BGP_WIRE_H

#include "bgp_msg.h"

static inline uint16_t bgpw_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t bgpw_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline void bgpw_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void bgpw_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The 19-byte header: marker, length, type (RFC 4271 4.1). */
void bgpw_header(uint8_t *out, uint16_t len, uint8_t type);

/* RFC 4271 4.3: Attribute Flags. */
#define BGPW_F_OPTIONAL 0x80
#define BGPW_F_TRANSITIVE 0x40
#define BGPW_F_PARTIAL 0x20
#define BGPW_F_EXTLEN 0x10

/* Attribute type codes (RFC 4271 5, 1997, 4360, 4760, 6793, 8092). */
enum {
    BGPW_ORIGIN = 1,
    BGPW_AS_PATH = 2,
    BGPW_NEXT_HOP = 3,
    BGPW_MED = 4,
    BGPW_LOCAL_PREF = 5,
    BGPW_ATOMIC_AGGREGATE = 6,
    BGPW_AGGREGATOR = 7,
    BGPW_COMMUNITIES = 8,
    BGPW_MP_REACH = 14,
    BGPW_MP_UNREACH = 15,
    BGPW_EXT_COMMUNITIES = 16,
    BGPW_AS4_PATH = 17,
    BGPW_AS4_AGGREGATOR = 18,
    BGPW_LARGE_COMMUNITIES = 32,
};

/* AS_PATH segment types (RFC 4271 4.3, RFC 5065 3). */
enum { BGPW_AS_SET = 1, BGPW_AS_SEQUENCE = 2, BGPW_AS_CONFED_SEQUENCE = 3, BGPW_AS_CONFED_SET = 4 };

/* The parse in progress: what bgp_update.c and bgp_attr.c share. sev
 * orders the outcomes (0 clean, 1 discard, 2 withdraw, 3 reset) so that
 * reason is the first error of the worst kind. */
struct bgpw_parse {
    struct bgp_update *u;
    const struct bgp_update_ctx *ctx;
    int sev;
    uint8_t seen[32];        /* attribute types met, for RFC 7606 3.g */
    bool has_nlri4;          /* the body carries IPv4 NLRI */
    bool nh_body;            /* NEXT_HOP seen (its value in nh_body_addr) */
    uint8_t nh_body_addr[4];
    const uint8_t *as4_path; /* AS4_PATH kept for the merge (!as4), validated */
    uint16_t as4_path_len;
    bool as4_agg;            /* AS4_AGGREGATOR kept for the merge */
    uint32_t as4_agg_as;
    uint8_t as4_agg_id[4];
};

enum { BGPW_SEV_DISCARD = 1, BGPW_SEV_WITHDRAW = 2, BGPW_SEV_RESET = 3 };

/* Note an error of severity sev (a discard counts one attribute). */
void bgpw_note(struct bgpw_parse *st, int sev, unsigned reason);
/* Note a reset: the NOTIFICATION code/subcode and up to 64 bytes of data. */
void bgpw_reset(struct bgpw_parse *st, unsigned reason, uint8_t code, uint8_t subcode, const uint8_t *data,
                size_t dlen);

/* One path attribute (not MP_REACH/MP_UNREACH), flags and type as
 * received, v its value of n bytes, raw the whole attribute (header
 * too, rawlen bytes). Notes what it finds in st. */
void bgpw_attr(struct bgpw_parse *st, uint8_t flags, uint8_t type, const uint8_t *v, uint16_t n, const uint8_t *raw,
               size_t rawlen);
/* After every attribute: the AS4 merge (RFC 6793 4.2.3), the first-AS
 * check, the next hop for the body's NLRI. */
void bgpw_attrs_finish(struct bgpw_parse *st);

/* Whether an IPv4 next hop can be used (RFC 7606 7.3): not 0.0.0.0, not
 * multicast, not the limited broadcast address. */
bool bgpw_nh4_ok(const uint8_t *a);

/* AS_PATH length for the decision (RFC 4271 9.1.2.2 a, RFC 5065 5): a
 * sequence its ASNs, a set one, confederation segments nothing. */
uint16_t bgpw_path_len(const struct bgp_attrs *a);

#endif
