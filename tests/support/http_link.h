/* SPDX-License-Identifier: MIT */
/* tests/support/http_link.h: the HTTP fuzz targets' fixture: the HTTP
 * server (apps/http.c) on side 1 of a tcp_link, port 80, and a test client
 * (struct ta, manual window) connected to it from side 0, built once and
 * snapshotted (tl_snap_add, the client and the server's counters), and the
 * checks every input ends with. */
#ifndef TESTS_SUPPORT_HTTP_LINK_H
#define TESTS_SUPPORT_HTTP_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "tests/support/snapshot.h"
#include "tests/support/tcp_app.h"
#include "tests/support/tcp_link.h"

/* Build the link with a client of this receive window, keeping what it
 * receives in rx (rx_cap bytes), connected; sn gets all of it. Aborts if
 * anything fails. */
struct tl *http_link_new(struct ta *a, uint32_t client_window, uint8_t *rx, size_t rx_cap, struct snap *sn);
/* The client resets the connection (if it is still open); then the
 * server's connection must be gone, no checksum bad either way, and, both
 * stacks released, every buffer back: aborts otherwise. */
void http_link_finish(struct tl *l, struct ta *a);

#endif
