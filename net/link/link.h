/* SPDX-License-Identifier: MIT */
/* net/link/link.h: the link room's public header: Ethernet and 802.1Q
 * (eth.h), ARP (arp.h), IPv6 neighbour discovery (nd6.h) and router
 * advertisements (ra6.h). */
#ifndef NET_LINK_H
#define NET_LINK_H

#include "arp.h"
#include "eth.h"
#include "nd6.h"
#include "ra6.h"

#endif
