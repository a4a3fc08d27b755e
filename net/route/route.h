/* SPDX-License-Identifier: MIT */
/* net/route/route.h: the route room's public header: the IPv4 and IPv6
 * longest-prefix-match tables (route4.h, route6.h) and what they share
 * (route_common.h). */
#ifndef NET_ROUTE_H
#define NET_ROUTE_H

#include "route4.h"
#include "route6.h"

#endif
