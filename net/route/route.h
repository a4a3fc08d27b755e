/* SPDX-License-Identifier: MIT */
/* net/route/route.h: the route room's public header: the IPv4 and IPv6
 * longest-prefix-match tables (route4.h, route6.h), what they share
 * (route_common.h), and the list of static routes (route_static.h). */
#ifndef NET_ROUTE_H
#define NET_ROUTE_H

#include "route4.h"
#include "route6.h"
#include "route_static.h"

#endif
