/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_soak.h: the TCP soak (tcp_soak.c): one seed draws a
 * link, two stacks' configurations and a script of connections, runs them
 * on the in-memory link and checks every byte and every close. */
#ifndef TESTS_SUPPORT_TCP_SOAK_H
#define TESTS_SUPPORT_TCP_SOAK_H

#include <stdbool.h>
#include <stdint.h>

/* Writes are at least this big by default; the hunt (make soak
 * SOAK_MIN_WRITE=1) can draw tiny ones too (see also tcp_tiny_writes_join). */
#define SOAK_MIN_WRITE 64

/* One seed; true when every invariant held. verbose: a line per seed;
 * failures are printed in any case. SOAK_TRACE=PORT in the environment
 * prints that port's segments. */
bool soak_run(uint64_t seed, bool verbose, uint32_t min_write);

#endif
