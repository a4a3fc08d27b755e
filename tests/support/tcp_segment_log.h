/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_segment_log.h: small pieces the TCP state-machine
 * tests share (tcp_segment_log.c): a tap that records the segments a side
 * sends, a segment injected into side 1, and a stop for both ends closed. */
#ifndef TESTS_SUPPORT_TCP_SEGMENT_LOG_H
#define TESTS_SUPPORT_TCP_SEGMENT_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/support/tcp_app.h"

/* Records the segments a side sends. */
struct rec {
    int from;
    int n;
    struct ta_seg s[64];
    bool drop_all;
};

/* A tl tap over struct rec ctx: records r->from's segments (the first 64),
 * drops them when r->drop_all. */
bool rec_tap(void *ctx, struct tl *l, int from, struct pkt *p);
/* Inject a segment to side 1's connection as if from side 0. */
void to_side1(struct tl *l, struct tcp_conn *c, uint32_t seq, uint32_t ack, uint8_t flags,
              const void *data, uint32_t len);
/* A tl_run stop over struct ta a[2]: both ends closed. */
bool closed2(void *ctx);

#endif
