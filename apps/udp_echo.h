/* SPDX-License-Identifier: MIT */
/* apps/udp_echo.h: UDP echo service (RFC 862), the first application.
 *
 * Runs in the core's loop through net/'s public API only: every datagram to
 * the port goes back to its sender, from the address it was sent to. */
#ifndef USERLAND_UDP_ECHO_H
#define USERLAND_UDP_ECHO_H

#include <stdint.h>

struct net_stack;

/* Serve port on s (call once per core's stack). 0, or -1 if the port is
 * taken or the stack's UDP table is full. */
int udp_echo_start(struct net_stack *s, uint16_t port);

#endif
