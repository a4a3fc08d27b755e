/* SPDX-License-Identifier: MIT */
/* net/ip/ip4.h: IPv4 input (RFC 1812 section 5.2.2 checks, local delivery) and
 * output (routing to a next hop, fragmentation of what we originate: RFC 791
 * section 3.2). ip4.c is input, ip4_output.c output. */
#ifndef NET_IP4_H
#define NET_IP4_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"
#include "core/wire.h"

struct net_stack;
struct net_iface;

/* A datagram for us, as the protocols above see it. */
struct ip4_rx {
    struct pkt *pkt;            /* the one buffer holding it (data at the IPv4
                                 * header), or NULL when it was reassembled
                                 * into the stack's scratch area */
    const uint8_t *iph;         /* IPv4 header */
    const uint8_t *l4;          /* payload */
    uint16_t l4_len;
    uint16_t port;              /* where it came in */
    uint32_t src_be, dst_be;
    uint32_t l2_flags;          /* NET_PKT_L2_* of the frame */
    uint8_t proto;
    bool bcast;                 /* sent to a broadcast address */
    bool reasm;                 /* reassembled: NIC checksum flags do not hold */
};

/* How to send a datagram we originate. */
struct ip4_out {
    uint32_t src_be;            /* 0: the outgoing port's address */
    uint32_t dst_be;
    uint8_t proto;
    uint8_t ttl;                /* 0: IP4_DEFAULT_TTL */
    uint8_t tos;
    bool df;                    /* never fragment: too big is dropped */
};

#define IP4_DEFAULT_TTL 64

/* A frame's IPv4 header at p->data (Ethernet header stripped), from ifc's
 * port. Takes p: delivered, reassembled, forwarded (net_set_forward) or
 * dropped and counted. */
void ip4_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* Hand a datagram for us to ICMP, UDP, ...; takes rx->pkt. */
void ip4_deliver(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns);

/* Send p's data (a transport header and payload) as an IPv4 datagram: the
 * header is pushed in front (p needs 20 bytes of headroom plus the link's),
 * fragments are made when it exceeds the MTU, and PKT_TX_L4_CSUM is left to
 * the NIC only when the outgoing netdev offers it. Takes p. Returns 0 sent
 * or queued, -1 dropped (counted). */
int ip4_output(struct net_stack *s, struct pkt *p, const struct ip4_out *o, uint64_t now_ns);

/* The same from memory: hdr then body (either may be empty) are copied into
 * new buffers, fragmented as needed, so the datagram may be larger than one
 * buffer. Nothing is taken. */
int ip4_output_copy(struct net_stack *s, const void *hdr, uint32_t hdr_len, const void *body,
                    uint32_t body_len, const struct ip4_out *o, uint64_t now_ns);

/* The source address a datagram to dst_be would leave with (0: no route). */
uint32_t ip4_select_src(struct net_stack *s, uint32_t dst_be);

/* What the NIC said about the transport checksum: 1 verified good, -1
 * bad, 0 not checked (or reassembled: flags of one buffer do not count). */
static inline int ip4_rx_l4_csum(const struct ip4_rx *rx)
{
    if (rx->pkt == NULL || rx->reasm)
        return 0;
    if (rx->pkt->flags & PKT_RX_L4_CSUM_BAD)
        return -1;
    return (rx->pkt->flags & PKT_RX_L4_CSUM_OK) ? 1 : 0;
}

/* Address classes (network order). */
static inline bool ip4_is_mcast(uint32_t a_be) { return (net_ntohl(a_be) >> 28) == 0xe; }
static inline bool ip4_is_class_e(uint32_t a_be) { return (net_ntohl(a_be) >> 28) == 0xf; }
static inline bool ip4_is_loopback(uint32_t a_be) { return (net_ntohl(a_be) >> 24) == 127; }
static inline bool ip4_is_zeronet(uint32_t a_be) { return (net_ntohl(a_be) >> 24) == 0; }
static inline bool ip4_is_limited_bcast(uint32_t a_be) { return a_be == 0xffffffffu; }

/* Header fields that are not whole bytes. */
static inline uint32_t ip4_hdr_len(const struct ip4_hdr *h) { return (uint32_t)(h->ver_ihl & 0xf) * 4; }
static inline uint32_t ip4_frag_off(const struct ip4_hdr *h)
{
    return (uint32_t)(net_ntohs(h->frag_be) & IP4_OFF_MASK) * 8;
}
static inline bool ip4_more_frags(const struct ip4_hdr *h) { return (net_ntohs(h->frag_be) & IP4_MF) != 0; }
static inline bool ip4_is_frag(const struct ip4_hdr *h)
{
    return (net_ntohs(h->frag_be) & (IP4_MF | IP4_OFF_MASK)) != 0;
}

/* The Internet checksum of a 20-byte header is right when its 16-bit words
 * sum to 0xffff with end-around carry (RFC 1071), that is when their plain
 * sum is a nonzero multiple of 0xffff. As x * 2^16 + y = x + y (mod 0xffff),
 * the five 32-bit words may be summed instead, and as a byte swap multiplies
 * by 2^8 (mod 0xffff), in host order too; one multiply then decides it (a
 * divisibility test). Nonzero: the caller saw ver_ihl 0x45. */
static inline bool ip4_hdr20_sum_ok(const struct ip4_hdr *h)
{
    uint32_t w[5];
    __builtin_memcpy(w, h, sizeof(w));
    return ((uint64_t)w[0] + w[1] + w[2] + w[3] + w[4]) % 0xffff == 0;
}

#endif
