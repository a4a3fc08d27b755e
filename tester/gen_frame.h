/* SPDX-License-Identifier: MIT */
/* tester/gen_frame.h: the generator's frames: Ethernet, IPv4 or IPv6, UDP,
 * and a stamp (stream, sequence number, send time) first in the payload.
 *
 * A template holds a whole frame of one size with its flow fields and
 * stamp zero, and the checksum sums over it; gen_tmpl_write copies it and
 * fills in one flow's source address and ports and the stamp, the
 * checksums updated from those few words (RFC 1624), so a frame costs a
 * copy and a handful of stores whatever its size.
 *
 * Flows: flow k of a template's N has the source address's last 16 bits
 * raised by k, stepping over last bytes 0 and 255 (a /24's network and
 * broadcast addresses, which a router drops as sources), and pseudorandom
 * ports (RFC 4814 section 4.5: source port
 * in 1024-65535, destination in 1-49151), the same for the same k, so a
 * DUT's RSS spreads the flows and each flow keeps one path. */
#ifndef TESTER_GEN_FRAME_H
#define TESTER_GEN_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#define GEN_STAMP_MAGIC 0x4e47u /* "GN" */
#define GEN_STAMP_LEN 16u
#define GEN_FCS_LEN 4u
/* With the FCS: a 9216-byte MTU's frame (net/core/netdev.h NETDEV_MTU_MAX),
 * Ethernet header and FCS; past a buffer it is sent as a chain. */
#define GEN_MAX_FRAME 9234u
/* The bytes gen_tmpl_write changes all lie in a frame's first this many
 * (Ethernet, IPv6, UDP, the stamp): a buffer of any size holds them. */
#define GEN_VARIABLE_END 78u

/* Sizes here are RFC 2544's: the frame on the wire, FCS included. */
#define GEN_MIN_FRAME4 64u /* 14 + 20 + 8 + 16 = 58 bytes, padded to 60 */
#define GEN_MIN_FRAME6 82u /* 14 + 40 + 8 + 16 = 78 bytes */

/* What the stamp holds, little-endian (both ends are ours). */
struct gen_stamp {
    uint16_t magic;
    uint16_t stream;
    uint32_t seq;
    uint64_t ticks; /* the sender's clock: ns since boot in the kernel (time_ns_at) */
} __attribute__((packed));
_Static_assert(sizeof(struct gen_stamp) == GEN_STAMP_LEN, "stamp size");

struct gen_flow_spec {
    bool ip6;
    uint8_t src_mac[6], dst_mac[6];
    uint8_t src[16], dst[16]; /* IPv4: the first 4 bytes */
    uint32_t flows;           /* at least 1, at most 65536 */
    uint32_t seed;            /* of the port sequence */
};

struct gen_tmpl {
    uint16_t len;                /* bytes written, FCS excluded */
    uint16_t l4_off, stamp_off;  /* UDP header, stamp */
    uint16_t src_low_off;        /* the source address's last 16 bits */
    uint16_t ip4_csum_off;       /* 0 for IPv6 */
    uint32_t flows, seed;
    uint32_t udp_sum, ip4_sum;   /* partial sums with the variable words zero */
    uint16_t src_low;            /* the spec's last 16 bits, host order */
    uint8_t frame[GEN_MAX_FRAME];
};

/* A template for frames of frame_size bytes on the wire; -1 when the size
 * is below the protocol's minimum or above GEN_MAX_FRAME, or flows is 0
 * or above 65536. */
int gen_tmpl_build(struct gen_tmpl *t, const struct gen_flow_spec *f, uint16_t frame_size);

/* Flow flow's source address's last 16 bits, from the spec's base. */
uint16_t gen_flow_src_low(uint16_t base, uint32_t flow);
/* Flow flow's ports (RFC 4814 4.5), host order. */
void gen_flow_ports(uint32_t seed, uint32_t flow, uint16_t *sport, uint16_t *dport);

/* Writes the frame of flow (taken modulo the template's flows) stamped
 * with stream, seq and ticks at dst: its first min(t->len, room) bytes,
 * room at least GEN_VARIABLE_END. The rest of a longer frame is the
 * template's own bytes from room on (t->frame + room), the same for
 * every flow and stamp. */
void gen_tmpl_write(const struct gen_tmpl *t, uint8_t *dst, uint32_t room, uint32_t flow, uint16_t stream,
                    uint32_t seq, uint64_t ticks);

/* The stamp of a received frame, when it is one of ours: Ethernet (one
 * 802.1Q tag allowed), IPv4 (any header length, not a fragment) or IPv6
 * (UDP next), UDP long enough for a stamp, the magic. false otherwise;
 * nothing past len is read. */
bool gen_stamp_parse(const uint8_t *frame, uint32_t len, struct gen_stamp *out);

/* IMIX (7:4:1 of 64, 570 and 1518 bytes) as a repeating pattern of 12,
 * the big frames spread out: the size of frame i. */
uint16_t gen_imix_size(uint64_t i);
#define GEN_IMIX_PERIOD 12u
/* The mean frame size of one IMIX period, in bytes on the wire. */
#define GEN_IMIX_MEAN_X12 (7u * 64u + 4u * 570u + 1518u)

#endif
