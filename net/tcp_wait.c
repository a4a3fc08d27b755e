/* net/tcp_wait.c: connections waiting for room, and their wake-up.
 *
 * Two waits, both instead of a loss: a port whose TX ring is full
 * (TCP_CF_TX_WAIT: xmit holds the data back, net/net.c keeps what the
 * driver refused) and a buffer pool down to the reserve the NIC needs to
 * receive ACKs into (TCP_CF_BUF_WAIT: tcp_sndbuf says 0). net_flush calls
 * tcp_wake while any wait, and those whose room is back go on, round
 * robin: the first by sending, the second by their acked callback with 0
 * bytes. */
#include "net.h"
#include "tcp_impl.h"

void tcp_tx_wait(struct tcp_conn *c)
{
    if (!(c->flags & TCP_CF_TX_WAIT)) {
        c->flags |= TCP_CF_TX_WAIT;
        c->t->nblocked++;
        c->t->s->ctr.tcp_tx_wait++;
    }
}

void tcp_wait_forget(struct tcp_conn *c)
{
    if (c->flags & TCP_CF_TX_WAIT)
        c->t->nblocked--;
    if (c->flags & TCP_CF_BUF_WAIT)
        c->t->nbuf_wait--;
    c->flags &= ~(uint32_t)(TCP_CF_TX_WAIT | TCP_CF_BUF_WAIT);
}

bool tcp_buf_wait(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (NET_LIKELY(t->s->pool->nfree > t->rx_reserve))
        return false;
    if (!(c->flags & TCP_CF_BUF_WAIT)) {
        c->flags |= TCP_CF_BUF_WAIT;
        t->nbuf_wait++;
        t->s->ctr.tcp_buf_wait++;
    }
    return true;
}

bool tcp_wake(struct tcp_stack *t)
{
    bool any = false;
    uint32_t i = t->wake_from;
    for (uint32_t k = 0; k < t->nconns && (t->nblocked | t->nbuf_wait); k++, i = i + 1 == t->nconns ? 0 : i + 1) {
        struct tcp_conn *c = &t->conns[i];
        uint32_t f = c->flags;
        if (!(f & (TCP_CF_TX_WAIT | TCP_CF_BUF_WAIT)) || (f & TCP_CF_BUSY))
            continue;
        bool port_ok = (f & TCP_CF_TX_WAIT) && !t->s->iface[c->route_port].tx_busy;
        bool bufs_ok = (f & TCP_CF_BUF_WAIT) && t->s->pool->nfree > t->rx_reserve;
        if (!port_ok && !bufs_ok)
            continue;
        c->flags |= TCP_CF_BUSY;
        if (port_ok) {
            c->flags &= ~(uint32_t)TCP_CF_TX_WAIT;
            t->nblocked--;
        }
        if (bufs_ok) {
            c->flags &= ~(uint32_t)TCP_CF_BUF_WAIT;
            t->nbuf_wait--;
            if (c->cb && c->cb->acked && !(c->flags & TCP_CF_APP_CLOSED))
                c->cb->acked(c->ctx, c, 0, t->now_ns);
        }
        tcp_conn_unbusy(c, t->now_ns); /* sends what waited */
        t->wake_from = i + 1 == t->nconns ? 0 : i + 1; /* the next one first, next time */
        any = true;
    }
    return any;
}
