/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_reach.h: what a TCP fuzz target's inputs reached, to
 * show that its seeds and campaigns get where they should: for each
 * connection state, each deeper condition (recovery, RACK's reordering
 * timer, a tail loss probe out, probing a shut window, our window shut,
 * FIN-WAIT-2 behind a hole, ...) and each TCP counter, how many inputs
 * reached it. A target notes a connection after each operation and the
 * counters at the end of each input; tcp_reach_print writes the table to
 * stderr (tests/fuzz/fuzz_tcp_conn.c does so at exit with
 * FUZZ_TCP_CONN_STATS set). */
#ifndef TESTS_SUPPORT_TCP_REACH_H
#define TESTS_SUPPORT_TCP_REACH_H

#include "net/core/counter.h"
#include "net/tcp/tcp.h"

/* c as it is now (NULL: none). */
void tcp_reach_note(const struct tcp_conn *c);
/* An input ended: its counters now, against those it started from. */
void tcp_reach_input_end(const struct net_counters *now, const struct net_counters *start);
void tcp_reach_print(const char *target);

#endif
