/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_segment_log.c: the TCP state-machine tests' shared
 * pieces (tcp_segment_log.h). */
#include "tests/support/tcp_segment_log.h"

bool rec_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct rec *r = ctx;
    struct ta_seg s;
    if (from != r->from || !ta_parse(p, &s))
        return true;
    if (r->n < 64)
        r->s[r->n] = s;
    r->n++;
    return !r->drop_all;
}

void to_side1(struct tl *l, struct tcp_conn *c, uint32_t seq, uint32_t ack, uint8_t flags,
              const void *data, uint32_t len)
{
    uint8_t f[1600];
    size_t n = ta_frame(f, 1, c->rport, c->lport, seq, ack, flags, 65535, NULL, 0, data, len);
    tl_inject(l, 1, f, n);
}

bool closed2(void *ctx)
{
    struct ta *a = ctx;
    return a[0].closed && a[1].closed;
}
