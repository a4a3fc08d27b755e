/* SPDX-License-Identifier: MIT */
/* net/core/csum.h: the Internet checksum (RFC 1071) and its incremental update
 * (RFC 1624).
 *
 * Sums are taken over 16-bit words read in the host's own byte order; the
 * one's complement sum is independent of byte order (RFC 1071 section 2(B)),
 * so a result stored back in host order lands on the wire in the right
 * order, and checksum fields are read and written without swapping. A
 * partial sum is a uint32_t that can be added to with csum_add and folded at
 * the end. A sum over a buffer starts at an even offset of the covered data.
 *
 * Software sums are for what the NIC did not do: the stack skips them when a
 * received buffer says PKT_RX_L4_CSUM_OK, and leaves a transmit checksum to
 * the NIC (PKT_TX_L4_CSUM) when the port's netdev offers NETDEV_OFF_TX_CSUM. */
#ifndef NET_CSUM_H
#define NET_CSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

/* Add len bytes at buf to the partial sum (64-bit accumulation). */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);

/* The partial sum of the IPv4 pseudo-header (RFC 768, RFC 793). */
uint32_t csum_pseudo4(uint32_t src_be, uint32_t dst_be, uint8_t proto, uint16_t len);

/* RFC 1624 eqn. 3: the checksum after one 16-bit word of the covered data
 * changed from old to new (all three as read from the packet). */
uint16_t csum_update16(uint16_t csum, uint16_t old, uint16_t new_word);

/* The same for a 32-bit field (an address). */
uint16_t csum_update32(uint16_t csum, uint32_t old, uint32_t new_word);

/* Resolve a PKT_TX_L4_CSUM request in software: the field at csum_start +
 * csum_offset holds the folded pseudo-header sum; replace it by the checksum
 * of everything from csum_start to the end of the frame (0 is sent as
 * 0xffff), and clear the flag. p stays the caller's. */
void csum_pkt_finish(struct pkt *p);

static inline uint32_t csum_add(uint32_t a, uint32_t b)
{
    uint32_t r = a + b;
    return r + (r < b);
}

/* Fold to 16 bits: 0xffff means the covered data checks out. */
static inline uint16_t csum_fold(uint32_t sum)
{
    sum = (sum & 0xffffu) + (sum >> 16);
    sum = (sum & 0xffffu) + (sum >> 16);
    return (uint16_t)sum;
}

/* A 20-byte IPv4 header's checksum checks out: five 32-bit words summed in
 * 64 bits and folded (RFC 1071 section 2), no loop. */
static inline bool csum_ip4_hdr20_ok(const void *h)
{
    uint32_t w[5];
    __builtin_memcpy(w, h, 20);
    uint64_t sum = (uint64_t)w[0] + w[1] + w[2] + w[3] + w[4];
    sum = (sum & 0xffffffffu) + (sum >> 32);
    sum = (sum & 0xffffffffu) + (sum >> 32);
    return csum_fold((uint32_t)sum) == 0xffff;
}

/* The value to store in a checksum field that was zero while summing. */
static inline uint16_t csum_finish(uint32_t sum)
{
    return (uint16_t)~csum_fold(sum);
}

#endif
