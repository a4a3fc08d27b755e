/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_send_queue.c: the send queue (net/tcp/tcp_output.c sends from it): tcp_send
 * (zero-copy: the application's buffer becomes a slot; a small payload is
 * appended to the open last slot, or its buffer becomes one), tcp_write
 * (copied into TCP's own buffers, small writes packed into the open last
 * slot),
 * the release of what the peer acknowledged (tcp_sq_ack, inline in
 * net/tcp/tcp_impl.h), and the send buffer's autotuning (snd_tune).
 *
 * The queue is a ring of slots (struct tcp_seg), each one buffer holding at
 * most one segment's payload: the connection's own in the arena, or, once
 * its buffer outgrows it, one of the core's large rings (sq_enlarge),
 * given back whenever everything sent is acknowledged and nothing waits
 * (tcp_sq_shrink): the few large rings go to the connections sending
 * now, not to the idle keep-alive ones that once sent much. */
#include "core/env.h"
#include "net.h"
#include "tcp_impl.h"

/* Data may still be queued: before our FIN (RFC 9293 3.10.2 SEND). */
static bool can_queue(const struct tcp_conn *c)
{
    return (c->state == TCP_ESTABLISHED || c->state == TCP_CLOSE_WAIT || c->state == TCP_SYN_SENT ||
            c->state == TCP_SYN_RECEIVED) &&
           !(c->flags & TCP_CF_FIN_QUEUED);
}

void tcp_sq_shrink(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (c->sq_cap == t->cfg.sq_slots || c->sq_n) /* (the flag is new_ack's quick test) */
        return;
    t->sq_large[t->nsq_large++] = c->sq;
    c->sq = t->sq_small + (size_t)(c - t->conns) * t->cfg.sq_slots;
    c->sq_cap = t->cfg.sq_slots;
    c->sq_head = c->sq_nxt = 0;
    c->flags &= ~(uint32_t)TCP_CF_SQ_LARGE;
    t->s->ctr.tcp_snd_queue_returned++;
}

void tcp_sq_free(struct tcp_conn *c)
{
    for (uint32_t i = 0; i < c->sq_n; i++)
        tcp_sq_slot_free(c, tcp_sq_at(c, i));
    c->sq_n = c->sq_head = c->sq_nxt = 0;
    c->nmarked = 0;
    c->snd_queued = 0;
    tcp_sq_shrink(c); /* a large queue goes back to the core */
}

/* Move c's queue into one of the core's large ones, in order from slot 0. */
static bool sq_enlarge(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (t->nsq_large == 0 || c->sq_cap != t->cfg.sq_slots)
        return false;
    struct tcp_seg *q = t->sq_large[--t->nsq_large];
    for (uint32_t i = 0; i < c->sq_n; i++)
        q[i] = *tcp_sq_at(c, i);
    c->sq = q;
    c->sq_head = 0;
    c->sq_cap = t->sq_large_cap;
    c->flags |= TCP_CF_SQ_LARGE;
    return true;
}

bool tcp_pool_roomy(const struct tcp_stack *t) { return t->s->pool->nfree > t->s->pool->total / 2; }

/* Send-buffer autotuning: the application found the queue full. Where the
 * full queue is what holds the flight back (the congestion window would let
 * all of it out, the peer's window takes more) the buffer doubles, up to
 * cfg.sndbuf_max, in one of the core's large queues once it outgrows its
 * slots (a slot a KB). The congestion window then limits, and grows, and
 * the buffer ends near twice it, as Linux keeps it. Sends smaller than a
 * KB run out of slots before bytes: their queue moves into a large one
 * too. Not while the pool is half used, as the receive window
 * (tcp_rcv_tune). */
static __attribute__((noinline, cold)) void snd_tune(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    uint32_t queued = c->snd_end - c->snd_una;
    if (c->state != TCP_ESTABLISHED || queued > c->cwnd + c->seg_size || queued + c->seg_size > c->snd_wnd ||
        !tcp_pool_roomy(t))
        return; /* cwnd or the peer's window limit */
    if (c->snd_queued + c->seg_size <= c->sndbuf) { /* room for bytes, not slots */
        /* A buffer grown past the small ring before (its large queue went
         * back while idle) takes one again; small sends only while half
         * of them stay for buffers that grow. */
        bool grown = (c->sndbuf >> 10) > t->cfg.sq_slots;
        if (c->sq_n == c->sq_cap && (grown || 2 * t->nsq_large > t->cfg.sq_large) && sq_enlarge(c))
            t->s->ctr.tcp_snd_buffer_grown++;
        return;
    }
    if (c->sndbuf >= t->cfg.sndbuf_max)
        return;
    uint32_t want = c->sndbuf > t->cfg.sndbuf_max / 2 ? t->cfg.sndbuf_max : 2 * c->sndbuf;
    if ((want >> 10) > c->sq_cap && !sq_enlarge(c))
        return;
    c->sndbuf = want;
    t->s->ctr.tcp_snd_buffer_grown++;
}

/* len more bytes find the queue full: autotuning's moment. */
static inline void tune_if_full(struct tcp_conn *c, uint32_t len)
{
    if (NET_UNLIKELY(c->snd_queued + len > c->sndbuf || c->sq_n == c->sq_cap))
        snd_tune(c);
}

uint32_t tcp_sndbuf(struct tcp_conn *c)
{
    if (!can_queue(c))
        return 0;
    tune_if_full(c, c->seg_size); /* less room than a segment: full enough */
    if (c->snd_queued >= c->sndbuf || tcp_buf_wait(c))
        return 0;
    uint32_t room = c->sndbuf - c->snd_queued, slots = (uint32_t)(c->sq_cap - c->sq_n) * c->seg_size;
    return room < slots ? room : slots;
}

static struct tcp_seg *sq_last(struct tcp_conn *c) { return c->sq_n ? tcp_sq_at(c, c->sq_n - 1u) : NULL; }

/* Room to append to the last slot: TCP's own, nothing of it sent yet, up
 * to a segment and the buffer's end. */
static uint32_t append_room(struct tcp_conn *c)
{
    struct tcp_seg *sg = sq_last(c);
    if (sg == NULL || !(sg->flags & TCP_SEG_COPY) || SEQ_LT(sg->seq, c->snd_nxt) || pkt_shared(sg->p))
        return 0;
    uint32_t room = sg->len < c->seg_size ? c->seg_size - sg->len : 0;
    uint32_t space = (uint32_t)(pkt_buf_end(sg->p) - pkt_buf_start(sg->p)) - sg->off - sg->len;
    return room < space ? room : space;
}

static struct tcp_seg *slot_add(struct tcp_conn *c, struct pkt *p, uint16_t off, uint16_t len,
                                uint8_t flags)
{
    struct tcp_seg *sg = tcp_sq_at(c, c->sq_n);
    c->sq_n++;
    *sg = (struct tcp_seg){.p = p, .seq = c->snd_end, .off = off, .len = len, .flags = flags};
    c->snd_end += len;
    c->snd_queued += len;
    return sg;
}

/* Copy len bytes in: the open last slot first, then new slots. Returns how
 * many were taken (less when slots, buffers or sndbuf run out). */
static uint32_t copy_in(struct tcp_conn *c, const uint8_t *data, uint32_t len)
{
    uint32_t done = 0;
    uint32_t room = append_room(c);
    if (room && len) {
        struct tcp_seg *sg = sq_last(c);
        uint32_t n = len < room ? len : room;
        net_memcpy(pkt_buf_start(sg->p) + sg->off + sg->len, data, n);
        sg->len = (uint16_t)(sg->len + n);
        c->snd_end += n;
        c->snd_queued += n;
        done = n;
    }
    while (done < len && c->sq_n < c->sq_cap && c->snd_queued < c->sndbuf) {
        struct pkt *p = pkt_alloc(c->t->s->pool);
        if (p == NULL) {
            c->t->s->ctr.tcp_no_buf++;
            break;
        }
        uint32_t n = len - done;
        if (n > c->seg_size)
            n = c->seg_size;
        net_memcpy(p->data, data + done, n);
        slot_add(c, p, (uint16_t)(p->data - pkt_buf_start(p)), (uint16_t)n, TCP_SEG_COPY);
        done += n;
    }
    return done;
}

static void kick(struct tcp_conn *c, uint64_t now_ns)
{
    if (!(c->flags & TCP_CF_BUSY) && tcp_can_send_data(c->state)) {
        tcp_output(c, now_ns);
        tcp_timer_update(c);
    }
}

uint32_t tcp_write(struct tcp_conn *c, const void *data, uint32_t len, uint64_t now_ns)
{
    c->t->now_ns = now_ns;
    if (!can_queue(c))
        return 0;
    tune_if_full(c, len);
    uint32_t room = c->sndbuf > c->snd_queued ? c->sndbuf - c->snd_queued : 0;
    uint32_t n = copy_in(c, data, len < room ? len : room);
    if (n)
        kick(c, now_ns);
    return n;
}

int tcp_send(struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    c->t->now_ns = now_ns;
    if (!can_queue(c))
        return -1;
    if (NET_UNLIKELY(c->snd_queued + p->len > c->sndbuf)) {
        snd_tune(c);
        if (c->snd_queued + p->len > c->sndbuf)
            return -1;
    }
    if (p->len == 0) {
        pkt_free(p);
        return 0;
    }
    bool small = p->len <= TCP_COPY_MAX;
    if (small && append_room(c) >= p->len) {
        copy_in(c, p->data, p->len);
    } else if (p->len <= c->seg_size) {
        if (NET_UNLIKELY(c->sq_n == c->sq_cap)) {
            snd_tune(c);
            if (c->sq_n == c->sq_cap)
                return -1;
        }
        /* A small payload's buffer becomes TCP's, open for appending: the
         * small sends after it, while it waits (Nagle, cwnd), join it
         * rather than each going as a segment of its own. */
        slot_add(c, p, (uint16_t)(p->data - pkt_buf_start(p)), p->len,
                 small && !pkt_shared(p) ? TCP_SEG_COPY : 0);
        kick(c, now_ns);
        return 0;
    } else {
        /* Larger than a segment: copied, all or nothing. */
        uint32_t need = (p->len + c->seg_size - 1u) / c->seg_size;
        if (c->sq_cap - c->sq_n < need || c->t->s->pool->nfree < need)
            return -1;
        copy_in(c, p->data, p->len);
    }
    pkt_free(p);
    kick(c, now_ns);
    return 0;
}
