/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_timer.c: TCP's timers on one hashed timing wheel (Varghese and
 * Lauck): 1024 slots of 2^20 ns (~1.05 ms). A connection sits in one slot,
 * that of its earliest deadline; a deadline that moves later leaves it
 * where it is (it is put back when the slot comes round), so the hot path,
 * restarting the retransmission timer on every ACK, costs a compare.
 *
 * The timers: retransmission (RFC 6298; backed off, and giving up after
 * cfg.data_retries), the SYN and SYN-ACK retransmissions, persist with
 * zero-window probes (RFC 9293 3.8.6.1), delayed ACK, keepalive (RFC 9293
 * 3.8.4, idle connections only), FIN-WAIT-2 (waiting on while data is
 * held behind a hole) and TIME-WAIT (2 MSL). tcp_poll runs them from
 * net_poll; TCP asks for earlier calls with net_timer_at. */
#include "net.h"
#include "tcp_impl.h"

#define SLOT_MASK (TCP_WHEEL_SLOTS - 1u)
#define SLOT_LIMBO 0xffffu      /* taken off its slot by tcp_poll, not yet run */

void tcp_timer_remove(struct tcp_conn *c)
{
    struct tcp_stack *t = c->t;
    if (c->timer_at == 0)
        return;
    struct tcp_conn **head = c->wslot == SLOT_LIMBO ? &t->limbo : &t->wheel[c->wslot];
    if (c->wprev)
        c->wprev->wnext = c->wnext;
    else
        *head = c->wnext;
    if (c->wnext)
        c->wnext->wprev = c->wprev;
    if (c->wslot != SLOT_LIMBO && *head == NULL)
        t->wheel_bits[c->wslot / 64] &= ~(1ull << (c->wslot % 64));
    c->wprev = c->wnext = NULL;
    c->timer_at = 0;
    t->wheel_n--;
}

static void insert(struct tcp_conn *c, uint64_t at)
{
    struct tcp_stack *t = c->t;
    uint64_t tick = at >> TCP_TICK_SHIFT;
    if (tick < t->wheel_tick)
        tick = t->wheel_tick;
    uint32_t slot = (uint32_t)tick & SLOT_MASK;
    c->wslot = (uint16_t)slot;
    c->wprev = NULL;
    c->wnext = t->wheel[slot];
    if (c->wnext)
        c->wnext->wprev = c;
    t->wheel[slot] = c;
    t->wheel_bits[slot / 64] |= 1ull << (slot % 64);
    c->timer_at = at;
    t->wheel_n++;
}

void tcp_timer_move(struct tcp_conn *c, uint64_t want)
{
    if (want == 0) {
        tcp_timer_remove(c);
        return;
    }
    tcp_timer_remove(c);
    insert(c, want);
    net_timer_at(c->t->s, want);
}

uint64_t tcp_rto_backed_off(const struct tcp_conn *c)
{
    uint64_t r = c->rto_ns * 2;
    return r < c->t->cfg.rto_max_ns ? r : c->t->cfg.rto_max_ns;
}

void tcp_keepalive_touch(struct tcp_conn *c, uint64_t now_ns)
{
    c->ka_sent = 0;
    c->ka_at = ((c->flags & TCP_CF_KEEPALIVE) && tcp_synchronized(c->state)) ? now_ns + c->ka_idle_ns : 0;
}

static void give_up(struct tcp_conn *c, uint64_t now_ns)
{
    c->t->s->ctr.tcp_timeout++;
    if (tcp_synchronized(c->state))
        tcp_send_rst(c, now_ns);
    tcp_conn_close(c, TCP_CLOSE_TIMEOUT, now_ns);
}

static void backoff(struct tcp_conn *c, uint64_t now_ns)
{
    c->rto_ns = tcp_rto_backed_off(c);
    tcp_rto_arm(c, now_ns);
}

static void rto_fire(struct tcp_conn *c, uint64_t now_ns)
{
    struct tcp_stack *t = c->t;
    switch (c->state) {
    case TCP_TIME_WAIT:
        tcp_conn_close(c, TCP_CLOSE_NORMAL, now_ns);
        return;
    case TCP_FIN_WAIT_2:
        if (c->snd_una == c->snd_nxt) {
            /* A hole before data (or a FIN) held out of order: the peer
             * has data out to us, its RTO backing off up to a minute (as
             * this timer): wait on, for as many silences in a row as a
             * sender would retry (any segment starts the count again). */
            if ((c->ooo || (c->flags & TCP_CF_FIN_OOO)) && ++c->retries <= t->cfg.data_retries) {
                c->rto_at = now_ns + t->cfg.time_wait_ns;
                return;
            }
            tcp_conn_close(c, TCP_CLOSE_TIMEOUT, now_ns);
            return;
        }
        break;
    case TCP_SYN_SENT:
    case TCP_SYN_RECEIVED:
        if (++c->retries > t->cfg.syn_retries) {
            give_up(c, now_ns);
            return;
        }
        tcp_count_retransmit(c, c->iss, c->iss + 1u);
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
        tcp_send_syn(c, now_ns);
        backoff(c, now_ns);
        return;
    default:
        break;
    }
    if (c->flags & TCP_CF_REO) { /* the reordering window is over: lost (RFC 8985 6.3) */
        c->flags &= ~(uint32_t)TCP_CF_REO;
        if (c->snd_una != c->snd_nxt && tcp_rack_detect(c, true, now_ns))
            tcp_rack_lost(c, now_ns);
        tcp_loss_timer_arm(c, now_ns); /* tcp_output sends what was marked */
        return;
    }
    if (c->flags & TCP_CF_PTO) {
        c->flags &= ~(uint32_t)TCP_CF_PTO;
        if (c->snd_una != c->snd_nxt && tcp_can_send_data(c->state))
            tcp_send_tlp(c, now_ns);
        return;
    }
    if (c->flags & TCP_CF_PERSIST) {
        if (c->sq_nxt >= c->sq_n && c->snd_nxt == c->snd_una) {
            c->flags &= ~(uint32_t)TCP_CF_PERSIST;
            return;
        }
        bool shut_too_long = c->send_timeout_ns && now_ns - c->persist_since_ns >= c->send_timeout_ns;
        if (++c->retries > t->cfg.data_retries || shut_too_long) {
            t->s->ctr.tcp_send_timeout += shut_too_long;
            give_up(c, now_ns);
            return;
        }
        t->s->ctr.tcp_window_probe++;
        if (c->snd_wnd == 0)
            tcp_send_probe(c, now_ns);
        else
            c->flags |= TCP_CF_FORCE; /* a window too small for SWS rules: send anyway */
        /* The probes back off on their own count, not in rto_ns: once the
         * window opens, a loss waits the path's RTO, not the probes' (as
         * Linux's icsk_backoff, reset by the probe's answer). */
        uint64_t wait = c->rto_ns << c->persist_shift;
        if (wait < t->cfg.rto_max_ns) {
            c->persist_shift++;
            wait *= 2;
        }
        tcp_rto_arm(c, now_ns);
        c->rto_at = now_ns + (wait < t->cfg.rto_max_ns ? wait : t->cfg.rto_max_ns);
        return;
    }
    if (c->snd_una == c->snd_nxt)
        return;
    if (++c->retries > t->cfg.data_retries) {
        give_up(c, now_ns);
        return;
    }
    t->s->ctr.tcp_rto++;
    if (c->retries == TCP_BLACKHOLE_RTOS)
        tcp_pmtu_blackhole(c, now_ns);
    tcp_cc_rto(c, now_ns);
    tcp_mark_all_lost(c);
    c->flags &= ~(uint32_t)(TCP_CF_IN_RECOVERY | TCP_CF_RTT_TIMING | TCP_CF_TLP | TCP_CF_TLP_RETX);
    c->recover = c->snd_nxt;
    c->dupacks = 0;
    c->rto_ns = tcp_rto_backed_off(c);
    c->rto_at = 0; /* tcp_output sends again and re-arms */
}

static void keepalive_fire(struct tcp_conn *c, uint64_t now_ns)
{
    if (!(c->flags & TCP_CF_KEEPALIVE) || !tcp_synchronized(c->state) || c->state == TCP_TIME_WAIT) {
        c->ka_at = 0;
        return;
    }
    if (c->ka_count && (c->snd_una != c->snd_nxt || c->sq_nxt < c->sq_n)) {
        /* Data out or waiting: the RTO, or the persist timer, watches the
         * peer (RFC 1122 4.2.3.6: probes only on an idle connection, as
         * Linux). An idle limit (count 0) counts the peer's silence. */
        tcp_keepalive_touch(c, now_ns);
        return;
    }
    if (c->ka_sent >= c->ka_count) {
        if (c->ka_count == 0)
            c->t->s->ctr.tcp_idle_timeout++;
        give_up(c, now_ns);
        return;
    }
    c->ka_sent++;
    c->t->s->ctr.tcp_keepalive_tx++;
    tcp_send_probe(c, now_ns);
    c->ka_at = now_ns + c->ka_intvl_ns;
}

static void fire(struct tcp_conn *c, uint64_t now_ns)
{
    c->flags |= TCP_CF_BUSY;
    if (c->delack_at && c->delack_at <= now_ns) {
        c->delack_at = 0;
        if (tcp_synchronized(c->state))
            c->flags |= TCP_CF_ACK_NOW;
    }
    if (c->ka_at && c->ka_at <= now_ns)
        keepalive_fire(c, now_ns);
    if (c->rto_at && c->rto_at <= now_ns && !(c->flags & TCP_CF_DEAD)) {
        c->rto_at = 0;
        rto_fire(c, now_ns);
    }
    tcp_conn_unbusy(c, now_ns);
}

/* The next deadline: the earliest of the current tick's slot (whose
 * connections may be due a turn of the wheel or more from now) and the
 * start of the next occupied slot after it. */
static uint64_t next_deadline(const struct tcp_stack *t)
{
    if (t->wheel_n == 0)
        return UINT64_MAX;
    uint64_t best = UINT64_MAX;
    for (const struct tcp_conn *c = t->wheel[t->wheel_tick & SLOT_MASK]; c; c = c->wnext)
        if (c->timer_at < best)
            best = c->timer_at;
    for (uint32_t d = 1; d < TCP_WHEEL_SLOTS; d++) {
        uint32_t slot = (uint32_t)(t->wheel_tick + d) & SLOT_MASK;
        uint64_t bits = t->wheel_bits[slot / 64] >> (slot % 64);
        if (bits == 0) {
            d += 63 - slot % 64; /* the rest of this word is empty */
            continue;
        }
        if (bits & 1) {
            uint64_t start = (t->wheel_tick + d) << TCP_TICK_SHIFT;
            return start < best ? start : best;
        }
    }
    return best;
}

uint64_t tcp_poll(struct tcp_stack *t, uint64_t now_ns)
{
    t->now_ns = now_ns;
    uint64_t now_tick = now_ns >> TCP_TICK_SHIFT;
    uint64_t start = t->wheel_tick;
    if (t->wheel_n == 0 || now_tick < start) {
        if (t->wheel_n == 0)
            t->wheel_tick = now_tick;
        return next_deadline(t);
    }
    uint64_t nslots = now_tick - start + 1;
    if (nslots > TCP_WHEEL_SLOTS)
        nslots = TCP_WHEEL_SLOTS;
    t->wheel_tick = now_tick;
    for (uint64_t i = 0; i < nslots && t->wheel_n; i++) {
        /* The slot's connections move to limbo first: a callback may take
         * any of them off (tcp_timer_remove knows limbo), and one put back
         * for a later turn of the wheel must not be seen again now. */
        uint32_t slot = (uint32_t)(start + i) & SLOT_MASK;
        uint64_t bits = t->wheel_bits[slot / 64] >> (slot % 64);
        if (!(bits & 1)) { /* on to the next occupied slot: after a long sleep most are empty */
            i += (bits ? (uint64_t)__builtin_ctzll(bits) : 64 - slot % 64) - 1;
            continue;
        }
        t->limbo = t->wheel[slot];
        t->wheel[slot] = NULL;
        t->wheel_bits[slot / 64] &= ~(1ull << (slot % 64));
        for (struct tcp_conn *c = t->limbo; c; c = c->wnext)
            c->wslot = SLOT_LIMBO;
        while (t->limbo) {
            struct tcp_conn *c = t->limbo;
            tcp_timer_remove(c);
            if (NET_UNLIKELY(c->pmtu_probe_at) && c->pmtu_probe_at <= now_ns)
                tcp_pmtu_probe(c); /* checked as the wheel comes by: about once an RTO while sending */
            uint64_t e = tcp_timer_earliest(c);
            if (e && e <= now_ns)
                fire(c, now_ns);
            else
                tcp_timer_update(c);
        }
    }
    return next_deadline(t);
}
