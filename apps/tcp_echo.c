/* SPDX-License-Identifier: MIT */
/* apps/tcp_echo.c: TCP echo service (RFC 862), zero-copy
 * (apps/tcp_echo.h).
 *
 * A connection's only state is the list of received buffers not yet
 * queued for sending (linked through pkt.next), kept as its ctx. */
#include "tcp_echo.h"

#include <stddef.h>

#include "net/net.h"
#include "net/tcp/tcp.h"

static const struct tcp_callbacks echo_cb;

/* Queue what waits, in order; returns what still waits. */
static struct pkt *drain(struct tcp_conn *c, struct pkt *q, uint64_t now_ns)
{
    while (q) {
        struct pkt *next = q->next;
        uint16_t n = q->len;
        q->next = NULL;
        if (tcp_send(c, q, now_ns) < 0) {
            q->next = next;
            break;
        }
        tcp_recved(c, n, now_ns); /* queued: the window may reopen */
        q = next;
    }
    return q;
}

static void accepted(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    tcp_set_manual_window(c, true);
    tcp_set_ctx(c, &echo_cb, NULL);
}

static void recv_data(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct pkt *q = ctx;
    p->next = NULL;
    if (q == NULL) {
        q = p;
    } else {
        struct pkt *tail = q;
        while (tail->next)
            tail = tail->next;
        tail->next = p;
    }
    tcp_set_ctx(c, &echo_cb, drain(c, q, now_ns));
}

static void acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    if (ctx == NULL)
        return;
    struct pkt *q = drain(c, ctx, now_ns);
    tcp_set_ctx(c, &echo_cb, q);
    if (q == NULL && tcp_conn_state(c) == TCP_CLOSE_WAIT)
        tcp_close(c, now_ns);
}

static void peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    if (ctx == NULL)
        tcp_close(c, now_ns);
}

static void closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    for (struct pkt *q = ctx, *next; q; q = next) {
        next = q->next;
        q->next = NULL;
        pkt_free(q);
    }
}

static const struct tcp_callbacks echo_cb = {
    .accepted = accepted,
    .recv = recv_data,
    .acked = acked,
    .peer_fin = peer_fin,
    .closed = closed,
};

int tcp_echo_start(struct net_stack *s, uint16_t port)
{
    return tcp_listen(s, port, &echo_cb, NULL);
}
