/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_wait.c: connections waiting for room, and their wake-up.
 *
 * Two waits, both instead of a loss: a port whose TX ring is full
 * (TCP_CF_TX_WAIT: xmit holds the data back, net/net.c keeps what the
 * driver refused) and a buffer pool down to the reserve the NIC needs to
 * receive ACKs into (TCP_CF_BUF_WAIT: tcp_sndbuf says 0). A waiting
 * connection is on the core's wait queue (tcp_stack.wait_head), in the
 * order it began to wait. net_flush calls tcp_wake while any wait, and
 * those whose room is back go on in that order: the first kind by sending,
 * the second by their acked callback with 0 bytes. The work is the
 * queue's length, not the number of connections a core holds. */
#include "net.h"
#include "tcp_impl.h"

static void enqueue(struct tcp_stack *t, struct tcp_conn *c)
{
    c->wait_next = NULL;
    c->wait_prev = t->wait_tail;
    if (t->wait_tail)
        t->wait_tail->wait_next = c;
    else
        t->wait_head = c;
    t->wait_tail = c;
}

static void dequeue(struct tcp_stack *t, struct tcp_conn *c)
{
    if (c->wait_prev)
        c->wait_prev->wait_next = c->wait_next;
    else
        t->wait_head = c->wait_next;
    if (c->wait_next)
        c->wait_next->wait_prev = c->wait_prev;
    else
        t->wait_tail = c->wait_prev;
    c->wait_next = c->wait_prev = NULL;
}

/* c begins to wait for f (TCP_CF_TX_WAIT or TCP_CF_BUF_WAIT). */
static void wait_on(struct tcp_conn *c, uint32_t f)
{
    struct tcp_stack *t = c->t;
    if (!(c->flags & (TCP_CF_TX_WAIT | TCP_CF_BUF_WAIT)))
        enqueue(t, c);
    c->flags |= f;
    if (f == TCP_CF_TX_WAIT) {
        t->nblocked++;
        t->s->ctr.tcp_tx_wait++;
    } else {
        t->nbuf_wait++;
        t->s->ctr.tcp_buf_wait++;
    }
}

/* c stops waiting for f; off the queue when it waits for nothing more. */
static void wait_off(struct tcp_conn *c, uint32_t f)
{
    struct tcp_stack *t = c->t;
    if (!(c->flags & f))
        return;
    c->flags &= ~f;
    if (f == TCP_CF_TX_WAIT)
        t->nblocked--;
    else
        t->nbuf_wait--;
    if (!(c->flags & (TCP_CF_TX_WAIT | TCP_CF_BUF_WAIT)))
        dequeue(t, c);
}

void tcp_tx_wait(struct tcp_conn *c)
{
    if (!(c->flags & TCP_CF_TX_WAIT))
        wait_on(c, TCP_CF_TX_WAIT);
}

void tcp_wait_forget(struct tcp_conn *c)
{
    wait_off(c, TCP_CF_TX_WAIT);
    wait_off(c, TCP_CF_BUF_WAIT);
}

bool tcp_buf_wait(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (NET_LIKELY(t->s->pool->nfree > t->rx_reserve))
        return false;
    if (!(c->flags & TCP_CF_BUF_WAIT))
        wait_on(c, TCP_CF_BUF_WAIT);
    return true;
}

/* Some port has room (a waiter's, likely), or the pool has. */
static bool room_back(const struct tcp_stack *t)
{
    if (t->nbuf_wait && t->s->pool->nfree > t->rx_reserve)
        return true;
    for (uint16_t i = 0; t->nblocked && i < t->s->nports; i++)
        if (!t->s->iface[i].tx_busy)
            return true;
    return false;
}

bool tcp_wake(struct tcp_stack *t)
{
    bool any = false;
    if (!room_back(t))
        return false;
    /* Each waiter once, from the head: those that cannot go on yet, and
     * any that wait again after going on, end up behind the rest. */
    for (uint32_t n = t->nblocked + t->nbuf_wait; n && t->wait_head; n--) {
        struct tcp_conn *c = t->wait_head;
        uint32_t f = c->flags;
        bool port_ok = (f & TCP_CF_TX_WAIT) && !t->s->iface[c->route_port].tx_busy;
        bool bufs_ok = (f & TCP_CF_BUF_WAIT) && t->s->pool->nfree > t->rx_reserve;
        dequeue(t, c);
        enqueue(t, c);
        if ((f & TCP_CF_BUSY) || (!port_ok && !bufs_ok))
            continue;
        c->flags |= TCP_CF_BUSY;
        if (port_ok)
            wait_off(c, TCP_CF_TX_WAIT);
        if (bufs_ok) {
            wait_off(c, TCP_CF_BUF_WAIT);
            if (c->cb && c->cb->acked && !(c->flags & TCP_CF_APP_CLOSED))
                c->cb->acked(c->ctx, c, 0, t->now_ns);
        }
        tcp_conn_unbusy(c, t->now_ns); /* sends what waited */
        any = true;
    }
    return any;
}
