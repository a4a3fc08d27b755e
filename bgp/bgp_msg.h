/* SPDX-License-Identifier: MIT */
/* bgp/bgp_msg.h: the BGP-4 wire codec. Framing a byte stream into
 * messages (RFC 4271 4.1, 6.1); OPEN with capabilities (RFC 4271 4.2,
 * RFC 5492, RFC 4760 8, RFC 2918, RFC 6793, RFC 9072); KEEPALIVE;
 * NOTIFICATION; ROUTE-REFRESH; the UPDATE parser with RFC 7606's error
 * handling (bgp_update.c, bgp_attr.c) and a builder packing prefixes that
 * share attributes into UPDATEs (bgp_update_enc.c). Every parser reads
 * only within the length it is given. */
#ifndef BGP_BGP_MSG_H
#define BGP_BGP_MSG_H

#include "bgp.h"

enum bgp_msg_type { BGP_OPEN = 1, BGP_UPDATE = 2, BGP_NOTIFICATION = 3, BGP_KEEPALIVE = 4, BGP_ROUTE_REFRESH = 5 };

/* RFC 4271 4.5 error codes (RFC 7313 5 the seventh). */
enum {
    BGP_ERR_HEADER = 1,
    BGP_ERR_OPEN = 2,
    BGP_ERR_UPDATE = 3,
    BGP_ERR_HOLD = 4,
    BGP_ERR_FSM = 5,
    BGP_ERR_CEASE = 6,
    BGP_ERR_ROUTE_REFRESH = 7,
};

/* RFC 4271 4.2, 6793: the 2-byte AS a speaker with a 4-byte one puts in
 * OPEN's My AS, AS_PATH and AGGREGATOR for speakers without AS4. */
#define BGP_AS_TRANS 23456

/* A NOTIFICATION's content. */
#define BGP_ERR_DATA_MAX 64
struct bgp_error {
    uint8_t code, subcode;
    uint16_t data_len;
    uint8_t data[BGP_ERR_DATA_MAX];
};

/* Framing (RFC 4271 4.1, 6.1). Returns 0 and *len, *type when a whole
 * message starts at buf; 1 when more bytes are needed (avail < 19, or
 * less than its length); -1 and err when the header is bad: 1/1 marker
 * not all ones; 1/2 length < 19, > 4096 or wrong for its type (KEEPALIVE
 * != 19, OPEN < 29, UPDATE < 23, NOTIFICATION < 21, ROUTE-REFRESH != 23),
 * data the length field; 1/3 unknown type, data the type. A bad header
 * is reported as soon as its 19 bytes are there, before the rest. */
int bgp_msg_frame(const uint8_t *buf, size_t avail, uint16_t *len, uint8_t *type, struct bgp_error *err);

struct bgp_open {
    uint8_t version;  /* 4 */
    uint32_t as;      /* the 4-byte AS capability's value when present, else the My AS field */
    uint16_t hold;    /* seconds */
    uint32_t id;      /* BGP Identifier, host order */
    bool cap_mp_v4, cap_mp_v6, cap_route_refresh, cap_as4;
    bool caps;        /* any Capabilities optional parameter seen (parse); unused by encode */
};

/* The whole OPEN, header included. 0, or -1 and err: 1/2 length < 29;
 * 2/1 version != 4 (data: 0x00 0x04, the version we speak); 2/2 My AS or
 * the AS4 capability 0 (RFC 7607 2); 2/3 identifier 0; 2/6 hold time 1
 * or 2; 2/4 an optional parameter other than Capabilities (RFC 5492: 2);
 * 2/0 optional parameter or capability lengths inconsistent. RFC 9072's
 * extended optional parameters are read. My AS 23456 (AS_TRANS) with no
 * AS4 capability is fine; unknown or malformed capabilities are ignored
 * (RFC 5492 5). Checking the AS against configuration (2/2) and the
 * identifier against ours is the caller's. */
int bgp_open_parse(const uint8_t *msg, uint16_t len, struct bgp_open *o, struct bgp_error *err);

/* OPEN with one Capabilities parameter: multiprotocol (1) for each
 * cap_mp_*, route refresh (2) when cap_route_refresh, 4-byte AS (65) with
 * o->as when cap_as4; My AS is o->as when < 65536, else AS_TRANS. The
 * length, or 0 when cap is too small (64 bytes always do). */
size_t bgp_open_encode(uint8_t *out, size_t cap, const struct bgp_open *o);

/* The 19 bytes of a KEEPALIVE; returns 19. */
size_t bgp_keepalive_encode(uint8_t *out);

/* NOTIFICATION with e's data (at most 64 bytes); the length, or 0 when
 * cap is too small. */
size_t bgp_notification_encode(uint8_t *out, size_t cap, const struct bgp_error *e);
/* 0 and e, data beyond 64 bytes truncated (data_len says what is kept);
 * -1 when len < 21. */
int bgp_notification_parse(const uint8_t *msg, uint16_t len, struct bgp_error *e);

/* RFC 2918 3: ROUTE-REFRESH for afi/safi; returns 23. */
size_t bgp_route_refresh_encode(uint8_t *out, uint16_t afi, uint8_t safi);
/* 0 and afi, safi; -1 and err 1/2 (data the length) when len != 23. The
 * reserved byte (RFC 7313's subtype, not negotiated here) is ignored as
 * RFC 2918 3 says. Whether afi/safi was negotiated is the caller's. */
int bgp_route_refresh_parse(const uint8_t *msg, uint16_t len, uint16_t *afi, uint8_t *safi, struct bgp_error *err);

/* "hold timer expired", "cease/administrative reset", "update/malformed
 * AS_PATH", ...: for logs and show. Never NULL. */
const char *bgp_error_name(uint8_t code, uint8_t subcode);

/* UPDATE parsing (RFC 4271 4.3, 6.3; RFC 4760; RFC 6793; RFC 7606). */

/* Session facts the parse needs. peer_as 0 skips the eBGP first-AS check
 * (a route server's clients, RFC 7947 2.2). */
struct bgp_update_ctx {
    bool as4;         /* both sides sent the 4-byte AS capability */
    bool ebgp;
    uint32_t peer_as;
};

enum bgp_update_verdict {
    BGP_UPD_OK,
    BGP_UPD_WITHDRAW, /* RFC 7606 2 treat-as-withdraw: every NLRI of it, announced or not, is withdrawn */
    BGP_UPD_RESET,    /* session reset: err is the NOTIFICATION to send */
};

/* Why an UPDATE was not taken as it came: one counter each. */
enum bgp_upd_reason {
    BGP_R_NONE,
    BGP_R_LENGTHS,            /* reset: withdrawn or attribute lengths past the message */
    BGP_R_NLRI_MALFORMED,     /* reset: body withdrawn routes or NLRI unparseable */
    BGP_R_MP_MALFORMED,       /* reset: MP_REACH/MP_UNREACH unparseable */
    BGP_R_MP_DUPLICATE,       /* reset: MP_REACH or MP_UNREACH twice */
    BGP_R_UNKNOWN_WELLKNOWN,  /* reset: a well-known type we do not know */
    BGP_R_ATTR_OVERRUN,       /* withdraw: an attribute running past the attributes */
    BGP_R_ATTR_FLAGS,         /* withdraw: Optional/Transitive bits wrong for a known type */
    BGP_R_ORIGIN_BAD,         /* withdraw */
    BGP_R_AS_PATH_MALFORMED,  /* withdraw */
    BGP_R_AS_PATH_TOO_LONG,   /* withdraw: more than BGP_AS_PATH_MAX ASNs or 64 segments */
    BGP_R_AS_PATH_AS0,        /* withdraw: AS 0 in AS_PATH (RFC 7607 2) */
    BGP_R_AS_PATH_CONFED,     /* withdraw: confederation segments from an eBGP peer */
    BGP_R_FIRST_AS,           /* withdraw: eBGP first AS is not the peer's */
    BGP_R_NEXTHOP_BAD,        /* withdraw: NEXT_HOP or MP next hop malformed or unusable */
    BGP_R_MED_BAD,            /* withdraw */
    BGP_R_LOCAL_PREF_BAD,     /* withdraw (iBGP) */
    BGP_R_COMMUNITIES_BAD,    /* withdraw */
    BGP_R_EXT_COMMUNITIES_BAD,   /* withdraw */
    BGP_R_LARGE_COMMUNITIES_BAD, /* withdraw */
    BGP_R_MISSING_WELLKNOWN,  /* withdraw: ORIGIN, AS_PATH or NEXT_HOP absent with NLRI */
    BGP_R_DUPLICATE_ATTR,     /* discard: the second of a type */
    BGP_R_LOCAL_PREF_EBGP,    /* discard: LOCAL_PREF from an eBGP peer */
    BGP_R_ATOMIC_AGG_BAD,     /* discard */
    BGP_R_AGGREGATOR_BAD,     /* discard */
    BGP_R_AS4_DISCARDED,      /* discard: AS4_PATH/AS4_AGGREGATOR from a 4-byte AS speaker */
    BGP_R_AS4_PATH_BAD,       /* discard */
    BGP_R_AS4_AGGREGATOR_BAD, /* discard */
    BGP_R_OTHER_FULL,         /* discard: no room left in bgp_attrs.other */
    BGP_R_MP_AFI_UNSUPPORTED, /* ignored: MP_REACH/MP_UNREACH of another AFI/SAFI */
    BGP_R_COUNT,
};

/* "bgp_upd_origin_bad", ...: counter names; "bgp_upd_unknown" past the end. */
const char *bgp_upd_reason_name(unsigned r);

struct bgp_update {
    enum bgp_update_verdict verdict;
    uint16_t reason;        /* enum bgp_upd_reason: the first error of the worst kind seen, BGP_R_NONE if none */
    uint16_t discarded;     /* attributes dropped (RFC 7606 attribute-discard, duplicates) */
    struct bgp_error err;   /* BGP_UPD_RESET */
    struct bgp_attrs attrs; /* as parsed (AS4_PATH/AS4_AGGREGATOR merged per RFC 6793 4.2.3 when !as4) */
    /* The NLRI fields, validated so that iterating them cannot fail: the
     * body's withdrawn routes and NLRI (IPv4), MP_REACH_NLRI's NLRI and
     * MP_UNREACH_NLRI's withdrawn routes (family mp_*_afi). Not set on
     * BGP_UPD_RESET. */
    const uint8_t *wd4, *nlri4, *mp_reach_nlri, *mp_unreach_nlri;
    uint16_t wd4_len, nlri4_len, mp_reach_len, mp_unreach_len;
    uint8_t mp_reach_afi, mp_unreach_afi; /* BGP_AFI_*, 0 when absent or another AFI/SAFI (skipped) */
    /* RFC 4724 2: an empty UPDATE (IPv4), or one holding only an empty
     * MP_UNREACH_NLRI; the family in mp_unreach_afi. */
    bool end_of_rib;
};

/* Parse an UPDATE (the whole message, header included). Returns 0 with
 * verdict BGP_UPD_OK or BGP_UPD_WITHDRAW, -1 with BGP_UPD_RESET and err.
 * Next hops are checked (RFC 7606 7.3 and the MP ones alike), nothing
 * else about them: a next hop of ours or off-link is the caller's. A
 * NEXT_HOP with no IPv4 NLRI in the body is ignored (RFC 4760 3); when
 * both body NLRI and an IPv4 MP_REACH_NLRI come, their next hops must be
 * the same (attrs.nh4 serves both). LOCAL_PREF from an eBGP peer is
 * dropped (RFC 7606 7.5). */
int bgp_update_parse(const uint8_t *msg, uint16_t len, const struct bgp_update_ctx *ctx, struct bgp_update *u);

/* The next prefix of an NLRI field of family afi (*p moves past it);
 * false at the end or at bytes that are not a prefix. */
bool bgp_nlri_next(const uint8_t **p, const uint8_t *end, uint8_t afi, struct bgp_prefix *out);

/* UPDATE encoding, for export: a builder packing prefixes that share
 * attributes into UPDATEs of at most 4096 bytes. IPv4 goes in the body
 * (NEXT_HOP from nh4), IPv6 in MP_REACH_NLRI (nh6, and nh6_ll when
 * BGP_HAS_MP_NH6_LL: RFC 2545 3), put first among the attributes (RFC
 * 7606 5.1); withdrawals in the body or MP_UNREACH_NLRI. The attributes
 * go as given (the caller prepends its AS, drops LOCAL_PREF for eBGP...);
 * with !as4, 4-byte ASNs become AS_TRANS with AS4_PATH/AS4_AGGREGATOR
 * (RFC 6793 4.2.2). A withdraw builder finished empty is End-of-RIB. */
struct bgp_update_builder {
    uint8_t *out;
    size_t limit;    /* min(cap, 4096); 0 when the attributes do not fit */
    size_t pos;      /* where the next prefix goes */
    size_t nlri_at;  /* IPv4 announce: where the body's NLRI start (the attributes end) */
    size_t tail;     /* IPv6 announce: the attributes after MP_REACH_NLRI, parked at out[limit - tail] */
    uint8_t afi;
    bool withdraw;
    uint16_t count;  /* prefixes in this message */
};
/* False (and every add false) when the attributes alone do not fit. */
bool bgp_ub_begin(struct bgp_update_builder *b, uint8_t *out, size_t cap, uint8_t afi, const struct bgp_attrs *a,
                  bool as4, bool withdraw);
/* False when p does not fit: finish, send, begin again (false into an
 * empty message: it never will). */
bool bgp_ub_add(struct bgp_update_builder *b, const struct bgp_prefix *p);
/* The message's length, header and lengths filled; 0 after a failed begin. */
size_t bgp_ub_finish(struct bgp_update_builder *b);

#endif
