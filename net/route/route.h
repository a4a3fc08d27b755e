/* SPDX-License-Identifier: MIT */
/* net/route/route.h: the route room's public header: the IPv4 and IPv6
 * longest-prefix-match tables (route4.h, route6.h), what they share
 * (route_common.h), the list of static routes (route_static.h), and which
 * lookup path is the CPU's fastest (route_pick.h). */
#ifndef NET_ROUTE_H
#define NET_ROUTE_H

#include "route4.h"
#include "route6.h"
#include "route_pick.h"
#include "route_static.h"

#endif
