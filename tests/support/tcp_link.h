/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_link.h: two stack instances on an in-memory link,
 * run in simulated time, for the TCP tests and the TCP benchmark.
 *
 * Side 0 is 10.0.0.1 and 2001:db8::1, side 1 is 10.0.0.2 and 2001:db8::2,
 * both on eth0 (/24, /64) with TCP attached (ARP resolved, ND not yet). Frames sent by one side travel for delay_ns and are copied into
 * a buffer of the other side's pool (as a NIC would); the sender's buffer is
 * held until then (as a TX ring holds it until the doorbell's work is
 * done), so a retransmission while it is "on the wire" meets a shared
 * buffer. TCP segments (not ARP) can be lost, duplicated and reordered with
 * seeded randomness, or filtered by a tap. With NETDEV_OFF_TSO4 (TSO6) the
 * sending side cuts TSO frames into segments first, as a NIC would.
 *
 * Nothing here depends on check.h: tools/bench/tcp builds it too. */
#ifndef TESTS_SUPPORT_TCP_LINK_H
#define TESTS_SUPPORT_TCP_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"
#include "net/core/netdev.h"
#include "net/core/pkt.h"
#include "net/tcp/tcp.h"
#include "tests/support/snapshot.h"

#define TL_ADDR0 NET_IP4(10, 0, 0, 1)
#define TL_ADDR1 NET_IP4(10, 0, 0, 2)
extern const uint8_t tl_addr6[2][16];   /* 2001:db8::1, 2001:db8::2 */

struct tl;

/* Sees every frame a side sends (Ethernet header at p->data) before the
 * impairments; false drops it. */
typedef bool (*tl_tap_fn)(void *ctx, struct tl *l, int from, struct pkt *p);

struct tl_opts {
    uint32_t nbufs;             /* per side (default 4096) */
    uint32_t nconns;            /* per side (default 64) */
    uint64_t delay_ns;          /* one way (default 50 us) */
    uint32_t loss_ppm, dup_ppm, reorder_ppm; /* of TCP segments, each way */
    uint64_t reorder_ns;        /* extra delay of a reordered one (default 3 * delay) */
    uint64_t rate_bps;          /* 0: infinite */
    uint32_t queue_max;         /* frames waiting for the rate (default 256) */
    uint32_t tx_ring;           /* with rate_bps: a NIC ring of this many frames;
                                 * tx_burst takes no more (0: no limit) */
    uint32_t offloads;          /* NETDEV_OFF_* of both netdevs */
    uint64_t seed;
    const struct tcp_config *cfg[2]; /* NULL: tcp_config_default */
};

struct tl_frame {
    uint64_t at_ns, order;
    struct pkt *p;              /* the sender's buffer */
    int to;
};

struct tl_dev {
    struct netdev dev;
    struct tl *l;
    int side;
};

struct tl {
    struct tl_opts o;
    uint64_t now_ns;
    struct pkt_pool pool[2];
    void *mem[2];
    struct net_stack *s[2];
    struct tcp_stack *t[2];
    void *arena[2];
    struct tl_dev nd[2];
    struct tl_frame *heap;      /* frames in flight, by time then order */
    uint32_t nheap, heap_cap;
    uint64_t order;
    uint64_t rng;
    uint64_t busy_until[2];     /* serialization at rate_bps */
    uint32_t queued[2];
    tl_tap_fn tap;
    void *tap_ctx;
    uint64_t tap_delay_ns;      /* a tap may set it: this frame travels that much longer */
    bool heap_pinned;           /* snapshotted (tl_snap_add): the heap may not move */
    /* What the wire did. */
    uint64_t frames, lost, duped, reordered, overflow, no_buf;
    uint64_t tso_frames;        /* cut into segments by the sending "NIC" */
};

struct tl *tl_new(const struct tl_opts *o);
/* Release both stacks (TCP's queues), drain the wire; true when every
 * buffer of both pools is back. Then free everything. */
bool tl_free(struct tl *l);
/* Drop every connection of both stacks and every frame on the wire (and
 * what waits on ARP or ND, only when something does: a whole release walks
 * every cache entry); true when every buffer of both pools is back. The
 * link is usable again only after a snapshot restore (tl_snap_add). */
bool tl_release(struct tl *l);
/* net_flush both sides. */
void tl_flush(struct tl *l);
/* Run the simulation: deliver frames, run timers, advance time, until
 * done(ctx) holds (checked after every step), nothing is left to happen,
 * or max_ns of simulated time passed. Returns done(ctx) (true when done is
 * NULL and it went idle). */
bool tl_run(struct tl *l, bool (*done)(void *ctx), void *ctx, uint64_t max_ns);
/* Run for ns of simulated time (all that happens in it). */
void tl_advance(struct tl *l, uint64_t ns);
/* Hand a raw frame (Ethernet header first) to side's stack, as received. */
void tl_inject(struct tl *l, int side, const void *frame, size_t len);
/* Buffers out of both pools now. */
uint32_t tl_in_use(const struct tl *l);
uint64_t tl_rand(struct tl *l);
/* Add everything of l that a run changes to sn (tests/support/snapshot.h):
 * l itself, its frames in flight, both stacks, pools, TCP stacks and
 * arenas, and the contents of every buffer in use now (a connection's
 * application state may live in one). The heap of frames gets room for
 * every buffer of both pools, so it never moves again. Not the
 * applications' own state outside the pools: the caller adds that. */
void tl_snap_add(struct snap *sn, struct tl *l);

#endif
