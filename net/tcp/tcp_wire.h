/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_wire.h: the TCP header and options on the wire.
 *
 * Header: RFC 9293 section 3.1. Options: end and no-op, MSS (RFC 9293
 * 3.2), window scale and timestamps (RFC 7323 sections 2.2 and 3.2),
 * SACK-permitted and SACK (RFC 2018 sections 2 and 3). Multi-byte fields are
 * in network byte order (_be); the checksum is as on the wire (net/core/csum.h). */
#ifndef NET_TCP_WIRE_H
#define NET_TCP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define TCP_HDR_LEN 20          /* without options */
#define TCP_MAX_HDR_LEN 60
#define TCP_MAX_OPT_LEN 40

/* Control bits (struct tcp_hdr.flags). */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_URG 0x20
#define TCP_ECE 0x40
#define TCP_CWR 0x80

struct tcp_hdr {
    uint16_t sport_be;
    uint16_t dport_be;
    uint32_t seq_be;
    uint32_t ack_be;
    uint8_t off;                /* data offset in words << 4 */
    uint8_t flags;              /* TCP_FIN ... TCP_CWR */
    uint16_t win_be;
    uint16_t csum;
    uint16_t urg_be;
} __attribute__((packed));
_Static_assert(sizeof(struct tcp_hdr) == TCP_HDR_LEN, "tcp_hdr size");
_Static_assert(offsetof(struct tcp_hdr, seq_be) == 4, "tcp seq offset");
_Static_assert(offsetof(struct tcp_hdr, ack_be) == 8, "tcp ack offset");
_Static_assert(offsetof(struct tcp_hdr, off) == 12, "tcp offset offset");
_Static_assert(offsetof(struct tcp_hdr, flags) == 13, "tcp flags offset");
_Static_assert(offsetof(struct tcp_hdr, win_be) == 14, "tcp window offset");
_Static_assert(offsetof(struct tcp_hdr, csum) == 16, "tcp csum offset");
_Static_assert(offsetof(struct tcp_hdr, urg_be) == 18, "tcp urgent offset");

/* Option kinds and their lengths. */
#define TCP_OPT_EOL 0
#define TCP_OPT_NOP 1
#define TCP_OPT_MSS 2
#define TCP_OPT_MSS_LEN 4
#define TCP_OPT_WS 3
#define TCP_OPT_WS_LEN 3
#define TCP_OPT_SACK_PERM 4
#define TCP_OPT_SACK_PERM_LEN 2
#define TCP_OPT_SACK 5          /* 2 + 8 per block */
#define TCP_OPT_TS 8
#define TCP_OPT_TS_LEN 10

#define TCP_WS_MAX 14           /* RFC 7323 2.3 */
#define TCP_SACK_MAX_BLOCKS 4   /* what fits in 40 bytes */

/* What we put on data segments: NOP NOP TS (12 bytes, aligned). */
#define TCP_TS_ALIGNED_LEN 12

#endif
