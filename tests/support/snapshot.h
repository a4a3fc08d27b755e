/* SPDX-License-Identifier: MIT */
/* tests/support/snapshot.h: copies of memory regions taken once and
 * written back, so a fuzz target builds its stacks, pools and connections
 * once and starts every input from exactly that state (in place: every
 * pointer inside the regions stays valid). What the regions point to
 * outside them must not change between inputs, or must be in a region too. */
#ifndef TESTS_SUPPORT_SNAPSHOT_H
#define TESTS_SUPPORT_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "net/net.h"
#include "net/core/pkt.h"

#define SNAP_REGIONS 32

struct snap {
    struct {
        void *at;
        void *copy;
        size_t len;
    } r[SNAP_REGIONS];
    unsigned n;
};

/* Copy len bytes at at now; aborts when the table is full. */
void snap_add(struct snap *sn, void *at, size_t len);
/* A stack: everything but its unused ports (from nports on) and
 * reassembly's scratch buffer (written whole before it is read). */
void snap_add_stack(struct snap *sn, struct net_stack *s);
/* A pool's free list, taken full (aborts if not: clear what the fake
 * netdevs hold first). The buffers' contents are not kept: a free buffer
 * holds nothing that is read before it is written. */
void snap_add_pool(struct snap *sn, struct pkt_pool *pool);
/* Write every region back. */
void snap_restore(const struct snap *sn);

/* n bytes at a and b are equal: for a target's checks of long payloads,
 * built without coverage (tests/support/), so libFuzzer's memcmp hook does
 * not take every byte compared for a value to try. */
bool snap_bytes_equal(const void *a, const void *b, size_t n);

#endif
