/* SPDX-License-Identifier: MIT */
/* kernel/netsvc/xconnect.c: `xconnect ethX ethY` moves every frame received on
 * one port out of the other, both ways, untouched. Zero-copy: the RX
 * buffer itself goes to the other port's TX ring. Core c serves queue pair
 * c of both ports, so no queue is shared; a burst is whatever arrived
 * since the last pass (up to XC_BURST), and each TX burst rings at most one
 * doorbell. Both ports take every frame, whatever its destination MAC
 * (netdev_promiscuous): a cross-connect is a wire. The standard baseline
 * forwarding benchmark. The TX driver
 * counts frames its full ring refused (tx-full); xconnect keeps and
 * retries them, so a slower output port slows the input instead of losing
 * frames. */
#include "xconnect.h"

#include "kernel/console/config.h"
#include "kernel/console/console.h"
#include "lib/fmt.h"
#include "kernel/mem/kalloc.h"
#include "kernel/lib.h"
#include "kernel/loop.h"
#include "kernel/platform/percpu.h"
#include "kernel/ports.h"

#define XC_BURST 256

/* One direction of one queue pair. Frames the other port's TX ring could
 * not take wait here and go first on the next pass; while any wait, the
 * RX ring is left alone, so the device (and behind it the link) holds the
 * rest: back-pressure instead of tail drops. */
struct xc_dir {
    struct netdev *from, *to;
    uint16_t queue, npending;
    struct pkt *pending[XC_BURST];
};

struct xc_lane {
    struct xc_dir ab, ba;
};

static void forward(struct xc_dir *d)
{
    struct pkt **pkts = d->pending;
    uint16_t n = d->npending;
    if (n == 0) {
        n = netdev_rx_burst(d->from, d->queue, pkts, XC_BURST);
        if (n == 0)
            return;
        loop_note_work(n);
    }
    uint16_t sent = netdev_tx_burst(d->to, d->queue, pkts, n);
    d->npending = (uint16_t)(n - sent);
    if (sent && d->npending)
        memmove(pkts, pkts + sent, d->npending * sizeof *pkts);
}

static void xc_poll(void *arg, uint64_t now_ns)
{
    struct xc_lane *l = arg;
    forward(&l->ab);
    forward(&l->ba);
}

static int stmt_xconnect(int argc, char **argv, char *err, size_t errlen)
{
    if (argc != 3) {
        fmt_snprintf(err, errlen, "usage: xconnect PORT PORT");
        return -1;
    }
    struct netdev *a, *b;
    if (ports_claim_pair("xconnect", "an xconnect", argv[1], argv[2], &a, &b, err, errlen) != 0)
        return -1;
    uint16_t lanes = a->nqueues < b->nqueues ? a->nqueues : b->nqueues;
    if (a->nqueues != b->nqueues)
        kprintf("xconnect: %s has %u queues, %s %u: using %u\n", a->name, a->nqueues, b->name, b->nqueues, lanes);
    for (uint16_t q = 0; q < lanes; q++) {
        struct xc_lane *l = kalloc(sizeof *l);
        l->ab = (struct xc_dir){.from = a, .to = b, .queue = q};
        l->ba = (struct xc_dir){.from = b, .to = a, .queue = q};
        char *name = kalloc(32);
        fmt_snprintf(name, 32, "xconnect %s-%s q%u", a->name, b->name, q);
        if (loop_add_poller(q, name, xc_poll, l) != 0) {
            fmt_snprintf(err, errlen, "xconnect: no room for a poller on core %u", q);
            return -1;
        }
    }
    return 0;
}

void xconnect_init(void) { config_register("xconnect", stmt_xconnect); }
