/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_frame_check.h: the TCP tests' frame checker
 * (tcp_frame_check.c): each frame a stack hands its NIC parsed and every
 * header field checked byte by byte against fake_csum, independently of
 * net/core/csum.c; a tap that checks and drops chosen segments; a link
 * built around it. For tests/unit/tcp/header_template.c, congestion_window.c
 * and peer_window.c. */
#ifndef TESTS_SUPPORT_TCP_FRAME_CHECK_H
#define TESTS_SUPPORT_TCP_FRAME_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/support/tcp_app.h"

struct fr {
    uint32_t l2;                /* 14, or 18 with a VLAN tag */
    uint16_t vid;
    const uint8_t *ip, *tcp;
    uint32_t tot, hlen;         /* IPv4 total length, TCP header length */
    uint32_t seq, ack, len;     /* len: payload */
    uint8_t flags;
    uint16_t wnd;
    struct tcp_opts opt;
};

/* A TCP/IPv4 frame (tagged or not) parsed into f, else false. */
bool fr_parse(const struct pkt *p, struct fr *f);

/* What the frames seen so far were, and what was wrong with them. */
struct chk {
    uint16_t vid;               /* the tag every frame must carry (0: none) */
    int ts;                     /* 1: timestamps on every segment, 0: on none, -1: either */
    int frames, bad, padded, sacks, data_sacks, rsts, offloaded, tso, ts_seen;
};

/* Check one frame a stack hands its NIC: every header field the template,
 * the SACK blocks and the patching make. */
void chk_frame(struct chk *k, const struct pkt *p);

/* Taps: check every frame; drop chosen first transmissions of side 0's
 * data (offsets from base), so that side 1 sends SACK blocks. */
struct tapctx {
    struct chk k;
    uint32_t base;
    uint32_t drop[8];
    bool dropped[8];
    int ndrop;
    bool drop_all[2];
};

/* A tl tap over struct tapctx ctx: checks every frame, drops as it says. */
bool chk_tap(void *ctx, struct tl *l, int from, struct pkt *p);
/* tl_run stops over struct ta a[2]: both ends open; side 1 has all of
 * side 0's tx_total. */
bool both_open(void *ctx);
bool got_all(void *ctx);
/* A link whose two ports carry vid (0: untagged), with cfg on both sides,
 * checking every frame. */
struct tl *link_new(struct tapctx *t, uint16_t vid, const struct tcp_config *cfg, uint32_t offloads);

#endif
