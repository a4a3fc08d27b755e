/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_transfer.h: what the TCP transfer tests share
 * (tests/unit/tcp/loss_recovery.c, windows_buffers_and_rings.c,
 * reordering.c): a one-way transfer that closes, the counters a clean run
 * leaves at zero, and a tap that drops chosen segments. Unit tests only:
 * these CHECK as they go. */
#ifndef TESTS_SUPPORT_TCP_TRANSFER_H
#define TESTS_SUPPORT_TCP_TRANSFER_H

#include <stdbool.h>
#include <stdint.h>

#include "tests/support/tcp_app.h"

struct xfer {
    struct ta a[2];
    uint64_t want;
};

/* Done: side 1 has x->want bytes and both ends closed (a tl_run stop). */
bool xfer_done(void *ctx);
/* Send bytes from side 0 to side 1 and close (zero-copy in sends of
 * x->a[0].chunk where set); returns the simulated ns. */
uint64_t transfer(struct tl *l, struct xfer *x, uint64_t bytes, bool zero_copy, int cc);
/* No malformed segment, timeout, buffer shortage or RST on either side. */
void no_malformed(struct tl *l);

/* Drops chosen data segments from side 0 the first time they are sent
 * (or the first times[i] times), and keeps what side 1 acknowledged with
 * SACK blocks. */
struct dropper {
    uint32_t base;              /* side 0's ISN + 1 */
    uint32_t drop[8];           /* offsets from base */
    uint8_t times[8];           /* 0: once */
    bool dropped[8];            /* as often as asked */
    uint8_t ndropped[8];
    int ndrop;
    int sack_acks;              /* ACKs from side 1 with SACK blocks */
    int data_segs;
    struct pkt *first;          /* the first data segment's buffer */
    bool grow_window;           /* side 1's window field one more in every ACK */
    uint16_t grown;
};

/* A tl tap: drops and records as struct dropper ctx says. */
bool drop_tap(void *ctx, struct tl *l, int from, struct pkt *p);
/* 400,000 bytes from side 0 through tap (on link options o; else a 2 ms
 * round trip), all of them arriving intact; *base: side 0's ISN + 1.
 * Returns the link (x and the counters still to check), the simulated ns
 * taken in *ns. */
struct tl *tapped_transfer_on(const struct tl_opts *o, struct xfer *x, tl_tap_fn tap, void *ctx,
                              uint32_t *base, uint64_t *ns);
struct tl *tapped_transfer(struct xfer *x, tl_tap_fn tap, void *ctx, uint32_t *base, uint64_t *ns);
/* tapped_transfer through d's drops. */
struct tl *dropped_transfer(struct xfer *x, struct dropper *d, uint64_t *ns);

#endif
