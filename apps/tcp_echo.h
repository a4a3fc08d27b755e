/* SPDX-License-Identifier: MIT */
/* apps/tcp_echo.h: TCP echo service (RFC 862) on net/'s TCP API.
 *
 * Every byte received goes back on the same connection, in the buffer it
 * came in (zero-copy). The receive window is held (tcp_set_manual_window)
 * until the echoed bytes are queued, so a peer that does not read its
 * echoes is slowed down rather than buffered without bound. The
 * connection closes when the peer's side is closed and all is echoed. */
#ifndef USERLAND_TCP_ECHO_H
#define USERLAND_TCP_ECHO_H

#include <stdint.h>

struct net_stack;

/* Serve port on s (once per core's stack). 0, or -1 (no TCP on s, port
 * taken, listener table full). */
int tcp_echo_start(struct net_stack *s, uint16_t port);

#endif
