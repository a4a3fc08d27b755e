/* SPDX-License-Identifier: MIT */
/* net/link/eth.h: Ethernet II framing with IEEE 802.1Q / 802.1ad tags.
 *
 * A port is untagged (vlan_id 0) or carries one VLAN: frames with any other
 * tag, or more than one, are dropped; priority-tagged frames (VID 0) count as
 * untagged. Output tags frames with the port's VLAN. A port may also have
 * VLAN sub-interfaces (net.h's net_subif_add): their frames are taken off
 * the port untagged, and tagged with their own VLAN as they leave. */
#ifndef NET_ETH_H
#define NET_ETH_H

#include <stdbool.h>
#include <stdint.h>

#include "core/pkt.h"

struct net_stack;
struct net_iface;

/* One received frame at p->data from port p->port, whose interface is ifc
 * (NULL: the port was not added; counted and dropped). Takes p. */
void eth_input(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* eth_output each of list (linked through next: a resolved entry's queue);
 * returns how many. */
uint32_t eth_output_list(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, uint16_t type,
                         struct pkt *list);
/* The Ethernet (and, on a VLAN port, 802.1Q) header from ifc to dst, of
 * type, at h; its length. */
uint32_t eth_hdr_write(uint8_t *h, const struct net_iface *ifc, const uint8_t *dst, uint16_t type);
/* Prepend an Ethernet header (dst, the port's MAC, type; the port's VLAN
 * tag) to p, pad it to the minimum frame and put it on the port's burst.
 * Takes p. */
void eth_output(struct net_stack *s, struct net_iface *ifc, const uint8_t *dst, uint16_t type,
                struct pkt *p);

static inline bool eth_is_mcast(const uint8_t *mac) { return (mac[0] & 1) != 0; } /* bcast too */
static inline bool eth_is_bcast(const uint8_t *mac)
{
    return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xff;
}

extern const uint8_t eth_bcast_addr[6];

#endif
