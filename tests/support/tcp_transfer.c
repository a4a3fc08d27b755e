/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_transfer.c: transfers over the TCP tests' in-memory
 * link (tcp_transfer.h), checked as they go (tests/unit/check.h). */
#include "tests/support/tcp_transfer.h"

#include <string.h>

#include "tests/unit/check.h"

#include "net/core/csum.h"
#include "net/core/wire.h"

bool xfer_done(void *ctx)
{
    struct xfer *x = ctx;
    return x->a[1].rx_bytes >= x->want && x->a[0].closed && x->a[1].closed;
}

uint64_t transfer(struct tl *l, struct xfer *x, uint64_t bytes, bool zero_copy, int cc)
{
    uint16_t chunk = x->a[0].chunk;
    memset(x, 0, sizeof(*x));
    x->a[0].chunk = chunk;
    x->want = bytes;
    x->a[0].tx_total = bytes;
    x->a[0].zero_copy = zero_copy;
    x->a[0].close_when_sent = true;
    x->a[1].close_on_fin = true;
    CHECK_EQ(ta_listen(l, 1, 5001, &x->a[1]), 0);
    uint64_t t0 = l->now_ns;
    CHECK(ta_connect(l, 0, 5001, &x->a[0]) != NULL);
    if (x->a[0].c)
        tcp_set_cc(x->a[0].c, (enum tcp_cc_algo)cc);
    CHECK(tl_run(l, xfer_done, x, 600000000000ull));
    CHECK_EQ(x->a[1].rx_bytes, bytes);
    CHECK_EQ(x->a[1].rx_bad, 0);
    CHECK_EQ(x->a[0].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(x->a[1].close_reason, TCP_CLOSE_NORMAL);
    CHECK_EQ(tcp_unlisten(l->s[1], 5001), 0);
    return l->now_ns - t0;
}

void no_malformed(struct tl *l)
{
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-checksum"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-option"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-bad-offset"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-timeout"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-no-buf"), 0);
        CHECK_EQ(tl_ctr(l, i, "tcp-rst-tx"), 0);
    }
}

bool drop_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct dropper *d = ctx;
    struct ta_seg s;
    if (!ta_parse(p, &s))
        return true;
    if (from == 1) {
        if (s.opt.nsack)
            d->sack_acks++;
        if (d->grow_window && !(s.flags & TCP_SYN)) {
            /* As Linux's early in a connection: a new window in every ACK. */
            uint8_t *w = p->data + ETH_HDR_LEN + IP4_HDR_LEN + 14, *sum = w + 2;
            uint16_t old, nw, cs;
            memcpy(&old, w, 2);
            nw = net_htons((uint16_t)(net_ntohs(old) - 64 + ++d->grown % 64));
            memcpy(&cs, sum, 2);
            cs = csum_update16(cs, old, nw);
            memcpy(w, &nw, 2);
            memcpy(sum, &cs, 2);
        }
        return true;
    }
    if ((s.flags & TCP_SYN) || s.len == 0)
        return true;
    if (d->data_segs++ == 0)
        d->first = p;
    for (int i = 0; i < d->ndrop; i++)
        if (s.seq - d->base == d->drop[i] && !d->dropped[i]) {
            d->dropped[i] = ++d->ndropped[i] >= (d->times[i] ? d->times[i] : 1);
            return false;
        }
    return true;
}

struct tl *tapped_transfer_on(const struct tl_opts *o, struct xfer *x, tl_tap_fn tap, void *ctx,
                                     uint32_t *base, uint64_t *ns)
{
    struct tl *l = tl_new(o);
    l->tap = tap;
    l->tap_ctx = ctx;
    x->want = 400000;
    x->a[0].tx_total = 400000;
    x->a[0].zero_copy = true;
    x->a[0].close_when_sent = true;
    x->a[1].close_on_fin = true;
    ta_listen(l, 1, 9, &x->a[1]);
    ta_connect(l, 0, 9, &x->a[0]);
    *base = x->a[0].c->iss + 1;
    uint64_t t0 = l->now_ns;
    CHECK(tl_run(l, xfer_done, x, 10000000000ull));
    *ns = l->now_ns - t0;
    CHECK_EQ(x->a[1].rx_bytes, 400000);
    CHECK_EQ(x->a[1].rx_bad, 0);
    return l;
}

struct tl *tapped_transfer(struct xfer *x, tl_tap_fn tap, void *ctx, uint32_t *base, uint64_t *ns)
{
    return tapped_transfer_on(&(struct tl_opts){.delay_ns = 1000000}, x, tap, ctx, base, ns);
}

struct tl *dropped_transfer(struct xfer *x, struct dropper *d, uint64_t *ns)
{
    return tapped_transfer(x, drop_tap, d, &d->base, ns);
}
