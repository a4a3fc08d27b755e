/* SPDX-License-Identifier: MIT */
/* net/ip/ip.h: the ip room's public header: IPv4 (ip4.h) and IPv6
 * (ip6.h), their ICMPs (icmp4.h, icmp6.h), reassembly (reasm.h), UDP
 * (udp.h) and jumbo frames for the router itself (ip_jumbo.h). */
#ifndef NET_IP_H
#define NET_IP_H

#include "icmp4.h"
#include "icmp6.h"
#include "ip4.h"
#include "ip6.h"
#include "ip_jumbo.h"
#include "reasm.h"
#include "udp.h"

#endif
