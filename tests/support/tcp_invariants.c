/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_invariants.c: see tcp_invariants.h. */
#include "tests/support/tcp_invariants.h"

#include <stdio.h>
#include <stdlib.h>

#include "net/tcp/tcp_impl.h"

static void check_send_queue(struct tcp_conn *c)
{
    if (c->sq_n > c->sq_cap || c->sq_nxt > c->sq_n || SEQ_GT(c->snd_una, c->snd_nxt) ||
        c->snd_queued > c->sndbuf + 2048)
        abort();
    uint32_t marked = 0, seq = 0;
    for (uint32_t k = 0; k < c->sq_n; k++) {
        struct tcp_seg *sg = tcp_sq_at(c, k);
        if (k && sg->seq != seq)
            abort(); /* slots are contiguous */
        seq = sg->seq + sg->len;
        marked += (sg->flags & (TCP_SEG_SACKED | TCP_SEG_LOST)) != 0;
    }
    if (marked != c->nmarked || (c->sq_n && seq != c->snd_end))
        abort();
}

static void check_ooo(struct tcp_conn *c)
{
    uint32_t n = 0, bytes = 0;
    if (c->ooo_n > c->ooo_max)
        abort();
    for (struct pkt *p = c->ooo; p; p = p->next) {
        if (p->next && SEQ_GT(p->user + p->len, p->next->user)) {
            if (getenv("FUZZ_TCP_DEBUG"))
                for (struct pkt *q = c->ooo; q; q = q->next)
                    fprintf(stderr, "ooo %u+%u (rcv_nxt %u)\n", q->user, q->len, c->rcv_nxt);
            abort(); /* sorted, no overlap */
        }
        if (p->len == 0)
            abort();
        bytes += p->len;
        n++;
    }
    if (n != c->ooo_n || bytes != c->ooo_bytes)
        abort();
}

void tcp_check_invariants(struct tcp_stack *t)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < t->nconns; i++) {
        struct tcp_conn *c = &t->conns[i];
        if (c->state == TCP_CLOSED)
            continue;
        used++;
        check_send_queue(c);
        check_ooo(c);
    }
    if (used + t->nfree != t->nconns)
        abort();
}
