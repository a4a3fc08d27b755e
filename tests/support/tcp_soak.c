/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_soak.c: the seeded randomized soak of the TCP stack
 * (tcp_soak.h), run by the unit test tcp_soak on fixed seeds
 * (tests/unit/tcp/soak.c) and over any range by make soak
 * (tests/soak/tcp_soak_hunt.c).
 *
 * Each seed draws a link (loss, duplication, reordering, delay, a rate
 * limit with a small queue or TX ring, offloads, MTU), a tcp_config per
 * side (SACK, timestamps, window scaling, buffer sizes, Nagle, CUBIC or
 * NewReno, a small out-of-order queue) and a script: a few connections,
 * IPv4 or IPv6, each end sending a seeded byte stream in random writes
 * (tcp_write and zero-copy tcp_send mixed, sometimes paced), reading with
 * the manual window and holding what it got for a while (zero windows),
 * half-closing after its data, sometimes only once the peer's FIN came,
 * now and then aborting. It checks that every byte arrives once and in
 * order, that both ends close for the expected reason within a bound of
 * simulated time (no hang), that no open connection sends a RST, and
 * that once TIME-WAIT is over every buffer is back in its pool. */
#include "tests/support/tcp_soak.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/support/tcp_app.h"
#include "tests/support/tcp_soak_impl.h"

#include "net/core/counter.h"
#include "net/core/wire.h"

/* Byte i of the stream named key: a change of one byte's place shows. */
static uint8_t soak_byte(uint64_t key, uint64_t i) { return (uint8_t)(mix(key + (i >> 3)) >> ((i & 7) * 8)); }

static void fill(uint8_t *to, uint64_t key, uint64_t from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        to[i] = soak_byte(key, from + i);
}

/* An end whose peer aborted before it opened may never open. */
static bool end_done(const struct end *e) { return e->closed || e->aborted || (e->peer_aborted && !e->opened); }

static void release_held(struct end *e, uint64_t now_ns, bool recved)
{
    uint32_t n = e->held_bytes;
    ta_free_list(&e->held);
    e->held_bytes = 0;
    e->release_at = 0;
    if (recved && n && e->c)
        tcp_recved(e->c, n, now_ns);
}

static void do_abort(struct end *e, uint64_t now_ns)
{
    struct tcp_conn *c = e->c;
    e->aborted = true;
    peer_of(e)->peer_aborted = true;
    e->c = NULL;
    release_held(e, now_ns, false);
    tcp_abort(c, now_ns);
}

static void do_close(struct end *e, uint64_t now_ns)
{
    if (e->close_called || !e->c)
        return;
    e->close_called = true;
    if (tcp_close(e->c, now_ns) != 0)
        SOAK_FAIL(e->s, "conn %d side %d: tcp_close refused in state %s", e->idx, e->side,
                  tcp_state_name(tcp_conn_state(e->c)));
}

/* All of the stream is queued: what the close plan says next. */
static void sent_all(struct end *e, uint64_t now_ns)
{
    if (e->close_called || e->close_at)
        return;
    if (e->close_mode == CLOSE_WHEN_SENT || (e->close_mode == CLOSE_AFTER_FIN && e->peer_fin))
        do_close(e, now_ns);
    else if (e->close_mode == CLOSE_LATER)
        e->close_at = now_ns + e->close_delay_ns;
}

/* Queue what the plan allows: one write when paced, else all that fits. */
static void pump(struct end *e, uint64_t now_ns)
{
    static uint8_t buf[65536];
    struct tcp_conn *c = e->c;
    if (c == NULL || e->aborted || !e->opened) /* (tcp_close in SYN-SENT aborts) */
        return;
    if (e->pace_ns && now_ns < e->pace_at)
        return;
    e->blocked = true; /* unless a write goes in */
    while (e->tx_queued < e->tx_total) {
        uint64_t left = e->tx_total - e->tx_queued;
        uint32_t room = tcp_sndbuf(c);
        uint32_t n = (uint32_t)logu(e->s, e->s->min_write, e->max_write);
        if (n > left)
            n = (uint32_t)left;
        if (pct(e->s, e->zc_pct)) {
            /* Zero-copy a segment or less; now and then more (copied). */
            uint32_t mss = tcp_mss(c), cap = pct(e->s, 10) ? PKT_DATA_ROOM : mss;
            if (n > cap)
                n = cap;
            if (room < n)
                break;
            struct pkt *p = pkt_alloc(tcp_conn_stack(c)->pool);
            if (p == NULL)
                break;
            fill(p->data, e->key_tx, e->tx_queued, n);
            p->len = (uint16_t)n;
            if (tcp_send(c, p, now_ns) < 0) {
                pkt_free(p);
                break;
            }
        } else {
            if (n > room)
                n = room;
            if (n == 0)
                break;
            fill(buf, e->key_tx, e->tx_queued, n);
            n = tcp_write(c, buf, n, now_ns);
            if (n == 0)
                break;
        }
        e->tx_queued += n;
        e->blocked = false;
        if (e->pace_ns) {
            e->pace_at = now_ns + e->pace_ns;
            break;
        }
    }
    if (e->tx_queued == e->tx_total)
        sent_all(e, now_ns);
}

static void opened(struct end *e, struct tcp_conn *c, uint64_t now_ns)
{
    if (e->opened++)
        SOAK_FAIL(e->s, "conn %d side %d: opened twice", e->idx, e->side);
    e->c = c;
    e->lport = c->lport;
    e->rport = c->rport;
    if (e->manual)
        tcp_set_manual_window(c, true);
    if (pct(e->s, 15))
        tcp_set_keepalive(c, 500 * MS, 200 * MS, 9);
    pump(e, now_ns);
}

static void s_accepted(void *ctx, struct tcp_conn *c, uint64_t now_ns) { opened(ctx, c, now_ns); }

static void s_connected(void *ctx, struct tcp_conn *c, uint64_t now_ns) { opened(ctx, c, now_ns); }

static void s_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct end *e = ctx;
    if (e->peer_fin || c != e->c)
        SOAK_FAIL(e->s, "conn %d side %d: %u bytes after the FIN or to another connection", e->idx,
                  e->side, p->len);
    for (uint32_t i = 0; i < p->len && !e->rx_first_bad; i++)
        if (p->data[i] != soak_byte(e->key_rx, e->rx_bytes + i))
            e->rx_first_bad = e->rx_bytes + i + 1;
    e->rx_bytes += p->len;
    if (e->rx_bytes > e->rx_expect)
        SOAK_FAIL(e->s, "conn %d side %d: %llu bytes in, %llu sent", e->idx, e->side,
                  (unsigned long long)e->rx_bytes, (unsigned long long)e->rx_expect);
    if (e->manual) {
        p->next = e->held;
        e->held = p;
        e->held_bytes += p->len;
        if (!e->release_at)
            e->release_at = now_ns + e->hold_ns;
    } else {
        pkt_free(p);
    }
    if (e->abort_mode == ABORT_IN_RECV && e->rx_bytes >= e->abort_at)
        do_abort(e, now_ns);
}

static void s_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    struct end *e = ctx;
    e->acked += bytes;
    e->blocked = false;
    if (e->acked > e->tx_queued)
        SOAK_FAIL(e->s, "conn %d side %d: %llu acked of %llu queued", e->idx, e->side,
                  (unsigned long long)e->acked, (unsigned long long)e->tx_queued);
    pump(e, now_ns);
}

static void s_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct end *e = ctx;
    if (e->peer_fin++ || e->rx_bytes != e->rx_expect)
        SOAK_FAIL(e->s, "conn %d side %d: FIN %d with %llu of %llu bytes in", e->idx, e->side,
                  e->peer_fin, (unsigned long long)e->rx_bytes, (unsigned long long)e->rx_expect);
    if (e->close_mode == CLOSE_AFTER_FIN && e->tx_queued == e->tx_total)
        do_close(e, now_ns);
}

static void s_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct end *e = ctx;
    if (e->closed++ || e->aborted)
        SOAK_FAIL(e->s, "conn %d side %d: closed again, or after the abort", e->idx, e->side);
    e->reason = reason;
    e->c = NULL;
    release_held(e, now_ns, false);
}

static const struct tcp_callbacks soak_cb = {
    .accepted = s_accepted,
    .connected = s_connected,
    .recv = s_recv,
    .acked = s_acked,
    .peer_fin = s_peer_fin,
    .closed = s_closed,
};

/* A RST from a side whose connection the application still has open is
 * one no script asked for (late segments of a closed one may get one). */
static bool rst_tap(void *ctx, struct tl *l, int from, struct pkt *p)
{
    struct soak *s = ctx;
    struct ta_seg g;
    if (!ta_parse(p, &g))
        return true;
    if (s->trace && (g.sport == s->trace || g.dport == s->trace))
        fprintf(stderr, "    %10.6f %d> %s%s%s%s seq %u ack %u len %u wnd %u sack %u\n",
                (l->now_ns - 1000000000ull) / 1e9, from, g.flags & TCP_SYN ? "S" : "", g.flags & TCP_FIN ? "F" : "",
                g.flags & TCP_RST ? "R" : "", g.flags & TCP_ACK ? "." : "", g.seq, g.ack, g.len, g.wnd, g.opt.nsack);
    if (!(g.flags & TCP_RST))
        return true;
    s->rst_seen++;
    for (int i = 0; i < s->nconns; i++) {
        struct end *e = &s->conn[i].e[from];
        if (e->c && e->lport == g.sport && e->rport == g.dport) {
            s->rst_open++;
            SOAK_FAIL(s, "conn %d side %d: RST sent in %s (seq %u ack %u) at %llu ms", i, from,
                      tcp_state_name(tcp_conn_state(e->c)), g.seq, g.ack,
                      (unsigned long long)(l->now_ns / MS));
        }
    }
    return true;
}

/* ---- The run ---- */

static void start(struct soak *s, int i, uint64_t now_ns)
{
    struct sconn *k = &s->conn[i];
    struct end *cl = &k->e[k->client];
    int server = !k->client;
    uint16_t port = (uint16_t)(SOAK_PORT + i);
    k->started = true;
    if (tcp_listen(s->l->s[server], port, &soak_cb, &k->e[server]) != 0)
        SOAK_FAIL(s, "conn %d: listen", i);
    struct tcp_conn *c =
        k->v6 ? tcp_connect6_from(s->l->s[k->client], 0, tl_addr6[server], port, &soak_cb, cl, now_ns)
              : tcp_connect(s->l->s[k->client], server ? TL_ADDR1 : TL_ADDR0, port, &soak_cb, cl, now_ns);
    if (c == NULL) {
        SOAK_FAIL(s, "conn %d: connect", i);
        return;
    }
    /* Known now, for the RST tap and an abort in SYN-SENT. */
    cl->c = c;
    cl->lport = c->lport;
    cl->rport = c->rport;
    if (cl->manual)
        tcp_set_manual_window(c, true);
}

/* The earliest time the script wants to act (UINT64_MAX: none). */
static uint64_t app_next(struct soak *s)
{
    uint64_t next = UINT64_MAX;
#define AT(t) do { if ((t) && (t) < next) next = (t); } while (0)
    for (int i = 0; i < s->nconns; i++) {
        struct sconn *k = &s->conn[i];
        if (!k->started) {
            AT(k->start_at);
            continue;
        }
        for (int d = 0; d < 2; d++) {
            struct end *e = &k->e[d];
            if (e->c == NULL)
                continue;
            AT(e->release_at);
            AT(e->close_called ? 0 : e->close_at);
            if (e->abort_mode == ABORT_AT_TIME)
                AT(e->abort_at);
            if (e->pace_ns && e->opened && e->tx_queued < e->tx_total && !e->blocked)
                AT(e->pace_at ? e->pace_at : 1);
        }
    }
#undef AT
    return next;
}

static bool all_done(struct soak *s)
{
    for (int i = 0; i < s->nconns; i++)
        if (!s->conn[i].started || !end_done(&s->conn[i].e[0]) || !end_done(&s->conn[i].e[1]))
            return false;
    return true;
}

static bool app_due(void *ctx)
{
    struct soak *s = ctx;
    return app_next(s) <= s->l->now_ns || all_done(s);
}

static void app_tick(struct soak *s)
{
    uint64_t now = s->l->now_ns;
    for (int i = 0; i < s->nconns; i++) {
        struct sconn *k = &s->conn[i];
        if (!k->started) {
            if (k->start_at <= now)
                start(s, i, now);
            continue;
        }
        for (int d = 0; d < 2; d++) {
            struct end *e = &k->e[d];
            if (e->c && e->abort_mode == ABORT_AT_TIME && e->abort_at <= now) {
                do_abort(e, now);
                continue;
            }
            if (e->c && e->release_at && e->release_at <= now)
                release_held(e, now, true);
            if (e->c && !e->close_called && e->close_at && e->close_at <= now)
                do_close(e, now);
            if (e->c && e->pace_ns)
                pump(e, now);
            /* The peer is gone (its RST may be lost): our FIN finds out. */
            if (e->c && e->opened && e->peer_aborted && e->tx_queued == e->tx_total)
                do_close(e, now);
        }
    }
    tl_flush(s->l);
}

static void dump(struct soak *s)
{
    uint64_t now = s->l->now_ns;
    for (int i = 0; i < s->nconns; i++)
        for (int d = 0; d < 2; d++) {
            struct end *e = &s->conn[i].e[d];
            fprintf(stderr, "    conn %d side %d%s: tx %llu/%llu acked %llu rx %llu/%llu fin %d closed %d "
                    "reason %d aborted %d close_mode %d called %d held %u write %u zc %u%% pace %llu us manual %d", i, d,
                    s->conn[i].v6 ? " v6" : "",
                    (unsigned long long)e->tx_queued, (unsigned long long)e->tx_total,
                    (unsigned long long)e->acked, (unsigned long long)e->rx_bytes,
                    (unsigned long long)e->rx_expect, e->peer_fin, e->closed, e->reason, e->aborted,
                    e->close_mode, e->close_called, e->held_bytes, e->max_write, e->zc_pct,
                    (unsigned long long)(e->pace_ns / 1000), e->manual);
            struct tcp_conn *c = e->c;
            if (c)
                fprintf(stderr, "\n      %s una %u nxt %u end %u sq_n %u wnd %u cwnd %u rcv_wnd %u flags %#x "
                        "rto_at %+lld ms timer_at %+lld ms sndbuf %u",
                        tcp_state_name(c->state), c->snd_una - c->iss, c->snd_nxt - c->iss,
                        c->snd_end - c->iss, c->sq_n, c->snd_wnd, c->cwnd, tcp_rcv_window(c), c->flags,
                        c->rto_at ? (long long)(c->rto_at - now) / (long long)MS : 0,
                        c->timer_at ? (long long)(c->timer_at - now) / (long long)MS : 0, tcp_sndbuf(c));
            fprintf(stderr, "\n");
        }
    for (int i = 0; i < 2; i++)
        fprintf(stderr, "    side %d: rst-tx %llu no-port %llu rto %llu timeout %llu buf-wait %llu free %u/%u\n", i,
                (unsigned long long)tl_ctr(s->l, i, "tcp-rst-tx"), (unsigned long long)tl_ctr(s->l, i, "tcp-no-port"),
                (unsigned long long)tl_ctr(s->l, i, "tcp-rto"), (unsigned long long)tl_ctr(s->l, i, "tcp-timeout"),
                (unsigned long long)tl_ctr(s->l, i, "tcp-buf-wait"), s->l->pool[i].nfree, s->l->pool[i].total);
}

/* Every counter not 0, both sides. */
static void dump_counters(struct soak *s)
{
    for (int i = 0; i < 2; i++) {
        fprintf(stderr, "    side %d:", i);
        const struct net_counter_desc *d;
        for (size_t k = 0; (d = net_counter_at(k)) != NULL; k++) {
            uint64_t v = net_counter_get(&s->l->s[i]->ctr, d);
            if (v)
                fprintf(stderr, " %s %llu", d->name, (unsigned long long)v);
        }
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "    wire: %llu frames, %llu lost, %llu duplicated, %llu reordered, %llu overflow, %llu no buffer\n",
            (unsigned long long)s->l->frames, (unsigned long long)s->l->lost, (unsigned long long)s->l->duped,
            (unsigned long long)s->l->reordered, (unsigned long long)s->l->overflow, (unsigned long long)s->l->no_buf);
}

static void check_end(struct soak *s, struct end *e)
{
    const char *who = e->side ? "side 1" : "side 0";
    if (e->aborted || (e->peer_aborted && !e->opened))
        return;
    if (!e->closed)
        SOAK_FAIL(s, "conn %d %s: never closed", e->idx, who);
    if (e->rx_first_bad)
        SOAK_FAIL(s, "conn %d %s: byte %llu wrong", e->idx, who, (unsigned long long)(e->rx_first_bad - 1));
    if (e->peer_aborted) {
        if (e->reason != TCP_CLOSE_RESET && e->reason != TCP_CLOSE_NORMAL && e->reason != TCP_CLOSE_TIMEOUT)
            SOAK_FAIL(s, "conn %d %s: reason %d after the peer's abort", e->idx, who, e->reason);
        return;
    }
    if (e->reason != TCP_CLOSE_NORMAL)
        SOAK_FAIL(s, "conn %d %s: closed with reason %d", e->idx, who, e->reason);
    /* No peer_fin in FIN-WAIT-2: the FIN goes straight to closed (TIME-WAIT). */
    if (e->rx_bytes != e->rx_expect || e->peer_fin > 1 || (!e->peer_fin && !e->close_called))
        SOAK_FAIL(s, "conn %d %s: %llu of %llu bytes, fin %d", e->idx, who, (unsigned long long)e->rx_bytes,
                  (unsigned long long)e->rx_expect, e->peer_fin);
    if (e->tx_queued != e->tx_total || (e->reason == TCP_CLOSE_NORMAL && e->acked != e->tx_total))
        SOAK_FAIL(s, "conn %d %s: queued %llu acked %llu of %llu", e->idx, who, (unsigned long long)e->tx_queued,
                  (unsigned long long)e->acked, (unsigned long long)e->tx_total);
}

bool soak_run(uint64_t seed, bool verbose, uint32_t min_write)
{
    struct soak *s = calloc(1, sizeof(*s));
    s->seed = seed;
    s->min_write = min_write;
    s->rng = seed * 0x2545f4914f6cdd1dull + 1;
    s->verbose = verbose;
    if (getenv("SOAK_TRACE"))
        s->trace = (uint16_t)atoi(getenv("SOAK_TRACE"));
    soak_draw(s);
    struct tl *l = s->l = tl_new(&s->o);
    for (int i = 0; i < 2; i++) {
        l->s[i]->iface[0].mtu = s->mtu[i];
        l->nd[i].dev.mtu = s->mtu[i];
    }
    l->tap = rst_tap;
    l->tap_ctx = s;
    bool clean = !s->o.loss_ppm && !s->o.dup_ppm && !s->o.reorder_ppm && !s->o.rate_bps;
    bool aborts = false;
    for (int i = 0; i < s->nconns; i++)
        aborts |= s->conn[i].e[0].abort_mode || s->conn[i].e[1].abort_mode;
    uint64_t t0 = l->now_ns, limit = t0 + 1500 * SEC, last = 0;
    for (int i = 0; i < s->nconns; i++) {
        s->conn[i].start_at += t0;
        for (int d = 0; d < 2; d++)
            if (s->conn[i].e[d].abort_mode == ABORT_AT_TIME)
                s->conn[i].e[d].abort_at += t0;
    }
    uint32_t spins = 0;
    while (!all_done(s) && l->now_ns < limit && s->failed < 10) {
        uint64_t before = l->now_ns;
        uint64_t target = app_next(s);
        if (target > l->now_ns + 50 * MS)
            target = l->now_ns + 50 * MS;
        if (target > l->now_ns) {
            tl_run(l, app_due, s, target - l->now_ns);
            if (!app_due(s) && l->now_ns < target)
                l->now_ns = target;
        }
        app_tick(s);
        spins = l->now_ns == before ? spins + 1 : 0;
        if (spins > 100000) {
            SOAK_FAIL(s, "the script spins at %llu ms", (unsigned long long)((l->now_ns - t0) / MS));
            break;
        }
        if (verbose && (l->now_ns - t0) / (10 * SEC) != last / (10 * SEC)) {
            fprintf(stderr, "  at %llu s\n", (unsigned long long)((l->now_ns - t0) / SEC));
            dump(s);
        }
        last = l->now_ns - t0;
    }
    if (!all_done(s)) {
        SOAK_FAIL(s, "not done after %llu s simulated", (unsigned long long)((l->now_ns - t0) / SEC));
        dump(s);
    }
    uint64_t done_ns = l->now_ns - t0;
    for (int i = 0; i < s->nconns; i++)
        for (int d = 0; d < 2; d++)
            check_end(s, &s->conn[i].e[d]);
    /* TIME-WAIT ends, late frames drain: nothing left, every buffer back. */
    tl_advance(l, 61 * SEC);
    for (int i = 0; i < 2; i++) {
        uint32_t idx = 0;
        struct tcp_conn *c = tcp_conn_next(l->t[i], &idx);
        if (c)
            SOAK_FAIL(s, "side %d: a connection left in %s", i, tcp_state_name(c->state));
        for (int k = 0; k < s->nconns; k++)
            tcp_unlisten(l->s[i], (uint16_t)(SOAK_PORT + k));
    }
    if (tl_in_use(l) != 0)
        SOAK_FAIL(s, "%u buffers in use after the end", tl_in_use(l));
    for (int i = 0; i < 2; i++) {
        if (tl_ctr(l, i, "tcp-bad-checksum") || tl_ctr(l, i, "tcp-bad-option") || tl_ctr(l, i, "tcp-bad-offset"))
            SOAK_FAIL(s, "side %d: malformed segments", i);
        if (clean && !aborts && tl_ctr(l, i, "tcp-rst-tx"))
            SOAK_FAIL(s, "side %d: %llu RSTs on a clean link", i, (unsigned long long)tl_ctr(l, i, "tcp-rst-tx"));
    }
    if (s->failed) {
        dump(s);
        dump_counters(s);
    }
    if (verbose || s->failed)
        fprintf(stderr, "  soak seed %llu: %d conns, %.3f s simulated, %llu frames, %llu lost, %llu RSTs%s\n",
                (unsigned long long)seed, s->nconns, done_ns / 1e9, (unsigned long long)l->frames,
                (unsigned long long)l->lost, (unsigned long long)s->rst_seen, s->failed ? " FAILED" : "");
    if (!tl_free(l))
        SOAK_FAIL(s, "tl_free: buffers left");
    bool ok = !s->failed;
    free(s);
    return ok;
}
