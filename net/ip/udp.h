/* SPDX-License-Identifier: MIT */
/* net/ip/udp.h: UDP (RFC 768) with an iip-style interface, over IPv4 and
 * IPv6.
 *
 * An application binds a port and a callback; the callback runs in the
 * core's loop, inside net_input, for each datagram to that port, of either
 * family. It may send from there. Checksums: a zero checksum is accepted
 * over IPv4 and dropped over IPv6 (RFC 8200 8.1); otherwise the NIC's
 * verdict is used when it gave one, else the sum is checked here. */
#ifndef NET_UDP_H
#define NET_UDP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"

#define UDP_MAX_BINDS 16

struct net_stack;
struct net_iface;
struct ip4_rx;

/* Where a datagram came from and went to (ports in host order). */
struct udp_meta {
    uint32_t src_be, dst_be;    /* IPv4 */
    uint16_t sport, dport;
    uint16_t port;              /* input port (interface) */
    bool bcast;                 /* to a broadcast address (IPv6: a multicast group) */
    bool v6;                    /* IPv6: src6, dst6 */
    uint8_t src6[16], dst6[16];
};

/* data/len: the payload. p: the buffer holding it (p->data == data,
 * p->len == len), which the callback now owns and must send or free; or
 * NULL when the datagram was reassembled from fragments, in which case data
 * lives in the stack's scratch area and is valid only during the call. */
typedef void (*udp_recv_fn)(void *ctx, struct net_stack *s, const struct udp_meta *m,
                            const uint8_t *data, uint16_t len, struct pkt *p, uint64_t now_ns);

struct udp_bind {
    uint16_t port;
    udp_recv_fn fn;
    void *ctx;
};

struct udp_table {
    struct udp_bind b[UDP_MAX_BINDS];
    uint16_t n;
};

/* 0, or -1 when the port is taken or the table is full. */
int udp_bind(struct net_stack *s, uint16_t port, udp_recv_fn fn, void *ctx);
int udp_unbind(struct net_stack *s, uint16_t port);

/* Send p's data (p->len bytes of payload; the UDP, IPv4 and Ethernet headers
 * go into its headroom: pkt_alloc leaves enough) from sport to dst_be:dport.
 * src_be 0: the outgoing port's address. Takes p. 0 sent or queued, -1
 * dropped (counted). */
int udp_send(struct net_stack *s, struct pkt *p, uint32_t src_be, uint32_t dst_be, uint16_t sport,
             uint16_t dport, uint64_t now_ns);

/* The same, copying len bytes from data; any size up to 65,507 bytes. */
int udp_send_copy(struct net_stack *s, const void *data, uint16_t len, uint32_t src_be,
                  uint32_t dst_be, uint16_t sport, uint16_t dport, uint64_t now_ns);

/* udp_send over IPv6 (fragmented when longer than the MTU). src6 NULL:
 * the address of port (the input port of what is answered) for dst6's
 * scope. The checksum is summed here. */
int udp_send6(struct net_stack *s, struct pkt *p, const uint8_t *src6, const uint8_t *dst6, uint16_t sport,
              uint16_t dport, uint16_t port, uint64_t now_ns);

/* The same, copying len bytes from data; any size up to 65,527 bytes. */
int udp_send6_copy(struct net_stack *s, const void *data, uint16_t len, const uint8_t *src6, const uint8_t *dst6,
                   uint16_t sport, uint16_t dport, uint16_t port, uint64_t now_ns);

/* A UDP datagram for us; takes rx->pkt. */
void udp_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns);
/* The same over IPv6: p->data at the IPv6 header, from ifc. Takes p. */
void udp_input6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);
/* The same for one reassembled at d (len bytes, the IPv6 header first). */
void udp_input6_flat(struct net_stack *s, struct net_iface *ifc, const uint8_t *d, uint32_t len, uint32_t l2_flags,
                     uint64_t now_ns);

#endif
