/* SPDX-License-Identifier: MIT */
/* net/core/wire.h: on-the-wire formats the stack below TCP parses and builds, and
 * byte order.
 *
 * Ethernet II and IEEE 802.1Q tags, ARP (RFC 826), IPv4 (RFC 791), ICMP
 * (RFC 792), UDP (RFC 768). The structs are packed (alignment 1) because
 * headers sit at any offset in a buffer (IPv4 after a 14-byte Ethernet header
 * is only 2-byte aligned); multi-byte fields are in network byte order and
 * named _be. Checksum fields hold the checksum exactly as it appears on the
 * wire (see net/core/csum.h): they are neither _be nor host order. */
#ifndef NET_WIRE_H
#define NET_WIRE_H

#include <stddef.h>
#include <stdint.h>

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
static inline uint16_t net_htons(uint16_t x) { return x; }
static inline uint32_t net_htonl(uint32_t x) { return x; }
#else
static inline uint16_t net_htons(uint16_t x) { return __builtin_bswap16(x); }
static inline uint32_t net_htonl(uint32_t x) { return __builtin_bswap32(x); }
#endif
static inline uint16_t net_ntohs(uint16_t x) { return net_htons(x); }
static inline uint32_t net_ntohl(uint32_t x) { return net_htonl(x); }

/* a.b.c.d as a network-order address (a constant expression). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NET_IP4(a, b, c, d) \
    (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))
#else
#define NET_IP4(a, b, c, d) \
    (((uint32_t)(d) << 24) | ((uint32_t)(c) << 16) | ((uint32_t)(b) << 8) | (uint32_t)(a))
#endif

/* ---- Ethernet II, IEEE 802.1Q ---- */
#define ETH_ALEN 6
#define ETH_HDR_LEN 14
#define ETH_VLAN_LEN 4
#define ETH_MIN_LEN 60          /* shortest frame, FCS excluded */
#define ETH_TYPE_IP4 0x0800
#define ETH_TYPE_ARP 0x0806
#define ETH_TYPE_IP6 0x86dd
#define ETH_TYPE_VLAN 0x8100    /* 802.1Q C-tag */
#define ETH_TYPE_QINQ 0x88a8    /* 802.1ad S-tag */
#define ETH_VID_MASK 0x0fff

struct eth_hdr {
    uint8_t dst[ETH_ALEN];
    uint8_t src[ETH_ALEN];
    uint16_t type_be;
} __attribute__((packed));
_Static_assert(sizeof(struct eth_hdr) == ETH_HDR_LEN, "eth_hdr size");
_Static_assert(offsetof(struct eth_hdr, type_be) == 12, "eth_hdr type offset");

/* Follows the source address when type_be is a tag type. */
struct eth_vlan {
    uint16_t tci_be;            /* PCP(3) DEI(1) VID(12) */
    uint16_t type_be;           /* the inner EtherType */
} __attribute__((packed));
_Static_assert(sizeof(struct eth_vlan) == ETH_VLAN_LEN, "eth_vlan size");

/* ---- ARP for IPv4 over Ethernet (RFC 826) ---- */
#define ARP_HTYPE_ETH 1
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2
#define ARP_LEN 28

struct arp_hdr {
    uint16_t htype_be;
    uint16_t ptype_be;
    uint8_t hlen;
    uint8_t plen;
    uint16_t op_be;
    uint8_t sha[ETH_ALEN];      /* sender hardware address */
    uint32_t spa_be;            /* sender protocol address */
    uint8_t tha[ETH_ALEN];
    uint32_t tpa_be;
} __attribute__((packed));
_Static_assert(sizeof(struct arp_hdr) == ARP_LEN, "arp_hdr size");
_Static_assert(offsetof(struct arp_hdr, op_be) == 6, "arp op offset");
_Static_assert(offsetof(struct arp_hdr, spa_be) == 14, "arp spa offset");
_Static_assert(offsetof(struct arp_hdr, tpa_be) == 24, "arp tpa offset");

/* ---- IPv4 (RFC 791) ---- */
#define IP4_HDR_LEN 20          /* without options */
#define IP4_MAX_HDR_LEN 60
#define IP4_MAX_LEN 65535
#define IP4_DF 0x4000           /* in host-order frag field */
#define IP4_MF 0x2000
#define IP4_OFF_MASK 0x1fff     /* offset in 8-byte units */
#define IP4_PROTO_ICMP 1
#define IP4_PROTO_TCP 6
#define IP4_PROTO_UDP 17
#define IP4_OPT_EOL 0
#define IP4_OPT_NOP 1

struct ip4_hdr {
    uint8_t ver_ihl;            /* version 4 << 4 | header length in words */
    uint8_t tos;
    uint16_t len_be;            /* total length, header included */
    uint16_t id_be;
    uint16_t frag_be;           /* flags(3) offset(13) */
    uint8_t ttl;
    uint8_t proto;
    uint16_t csum;
    uint32_t src_be;
    uint32_t dst_be;
} __attribute__((packed));
_Static_assert(sizeof(struct ip4_hdr) == IP4_HDR_LEN, "ip4_hdr size");
_Static_assert(offsetof(struct ip4_hdr, frag_be) == 6, "ip4 frag offset");
_Static_assert(offsetof(struct ip4_hdr, ttl) == 8, "ip4 ttl offset");
_Static_assert(offsetof(struct ip4_hdr, csum) == 10, "ip4 csum offset");
_Static_assert(offsetof(struct ip4_hdr, src_be) == 12, "ip4 src offset");
_Static_assert(offsetof(struct ip4_hdr, dst_be) == 16, "ip4 dst offset");

/* ---- ICMP for IPv4 (RFC 792) ---- */
#define ICMP4_HDR_LEN 8
#define ICMP4_ECHO_REPLY 0
#define ICMP4_UNREACH 3
#define ICMP4_SOURCE_QUENCH 4
#define ICMP4_REDIRECT 5
#define ICMP4_ECHO 8
#define ICMP4_TIME_EXCEEDED 11
#define ICMP4_PARAM_PROBLEM 12
#define ICMP4_UNREACH_NET 0
#define ICMP4_UNREACH_HOST 1
#define ICMP4_UNREACH_PROTO 2
#define ICMP4_UNREACH_PORT 3
#define ICMP4_UNREACH_NEEDFRAG 4 /* rest: next-hop MTU (RFC 1191) */
#define ICMP4_EXC_TTL 0
#define ICMP4_EXC_REASM 1
#define ICMP4_ERR_QUOTE_MAX 576 /* RFC 1812 4.3.2.3: whole error datagram */

struct icmp4_hdr {
    uint8_t type;
    uint8_t code;
    uint16_t csum;
    uint32_t rest_be;           /* id/seq, unused, MTU or pointer by type */
} __attribute__((packed));
_Static_assert(sizeof(struct icmp4_hdr) == ICMP4_HDR_LEN, "icmp4_hdr size");
_Static_assert(offsetof(struct icmp4_hdr, csum) == 2, "icmp4 csum offset");

/* ---- IPv6 (RFC 8200), ICMPv6 (RFC 4443), neighbour discovery (RFC 4861) ---- */
#define IP6_HDR_LEN 40
#define IP6_DEFAULT_HLIM 64 /* what we send with (RFC 8200 3; as IPv4's TTL) */
#define IP6_MIN_MTU 1280
#define IP6_PROTO_ICMP6 58
#define IP6_PROTO_FRAG 44
#define IP6_FRAG_HDR_LEN 8      /* next, reserved, offset (13 bits, in 8s) and M, id (RFC 8200 4.5) */
#define IP6_NO_NEXT 59
#define ICMP6_HDR_LEN 8
#define ICMP6_UNREACH 1         /* codes: 0 no route, 3 address, 4 port */
#define ICMP6_TOO_BIG 2         /* rest: MTU */
#define ICMP6_TIME_EXCEEDED 3
#define ICMP6_PARAM_PROBLEM 4   /* rest: pointer; code 1: unknown next header */
#define ICMP6_ECHO 128
#define ICMP6_ECHO_REPLY 129
#define ND6_RS 133              /* router solicitation */
#define ND6_RA 134              /* router advertisement */
#define ND6_NS 135
#define ND6_NA 136
#define ND6_REDIRECT 137
#define ND6_OPT_SLLA 1          /* source link-layer address */
#define ND6_OPT_TLLA 2          /* target link-layer address */
#define ND6_OPT_PREFIX 3        /* prefix information */
#define ND6_OPT_MTU 5
#define ND6_NA_ROUTER 0x80      /* flags byte of a neighbour advertisement */
#define ND6_NA_SOLICITED 0x40
#define ND6_NA_OVERRIDE 0x20

struct ip6_hdr {
    uint32_t vtf_be;            /* version(4) traffic class(8) flow label(20) */
    uint16_t plen_be;           /* payload length, header excluded */
    uint8_t next;
    uint8_t hlim;
    uint8_t src[16];
    uint8_t dst[16];
} __attribute__((packed));
_Static_assert(sizeof(struct ip6_hdr) == IP6_HDR_LEN, "ip6_hdr size");

/* An ICMPv6 message is struct icmp4_hdr's shape: type, code, checksum, a
 * word. Neighbour solicitations and advertisements follow it with the
 * target address, then options (type, length in 8-byte units, data). */

/* ---- UDP (RFC 768) ---- */
#define UDP_HDR_LEN 8

struct udp_hdr {
    uint16_t sport_be;
    uint16_t dport_be;
    uint16_t len_be;            /* header included */
    uint16_t csum;              /* 0: none sent (IPv4 only) */
} __attribute__((packed));
_Static_assert(sizeof(struct udp_hdr) == UDP_HDR_LEN, "udp_hdr size");
_Static_assert(offsetof(struct udp_hdr, csum) == 6, "udp csum offset");

#endif
