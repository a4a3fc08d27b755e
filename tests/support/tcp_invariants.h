/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_invariants.h: what must hold of a TCP stack's
 * connections between any two calls into it, checked by the fuzz targets
 * (tests/fuzz/fuzz_tcp.c, fuzz_tcp_conn.c) after every record or
 * operation: each send queue's slots contiguous and its marks counted,
 * snd_una <= snd_nxt, each out-of-order queue sorted, without overlap or
 * empty buffers and counted, and every connection either in use or free.
 * A broken one aborts (with FUZZ_TCP_DEBUG set in the environment the
 * out-of-order queue is printed first). */
#ifndef TESTS_SUPPORT_TCP_INVARIANTS_H
#define TESTS_SUPPORT_TCP_INVARIANTS_H

#include "net/tcp/tcp.h"

void tcp_check_invariants(struct tcp_stack *t);

#endif
