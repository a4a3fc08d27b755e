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

#include "net/core/counter.h"
#include "net/core/wire.h"

#define SOAK_CONNS 6
#define SOAK_PORT 6000
#define MS 1000000ull
#define SEC 1000000000ull

struct soak;

enum { CLOSE_WHEN_SENT, CLOSE_AFTER_FIN, CLOSE_LATER };
enum { ABORT_NONE, ABORT_AT_TIME, ABORT_IN_RECV };

/* One end of one connection. */
struct end {
    struct soak *s;
    struct tcp_conn *c;
    int side, idx;
    uint16_t lport, rport;
    uint64_t key_tx, key_rx;            /* the byte streams (soak_byte) */
    uint64_t tx_total, tx_queued, acked;
    uint64_t rx_expect, rx_bytes, rx_first_bad; /* rx_first_bad: offset + 1 */
    uint32_t max_write;
    uint8_t zc_pct;                     /* of writes that are tcp_send */
    uint64_t pace_ns, pace_at;          /* a write a pace_ns, else all at once */
    bool blocked;                       /* no room: until acked */
    bool manual;
    uint64_t hold_ns, release_at;
    struct pkt *held;
    uint32_t held_bytes;
    int close_mode;
    uint64_t close_delay_ns, close_at;
    bool close_called;
    int abort_mode;
    uint64_t abort_at;                  /* time, or received bytes */
    bool aborted, peer_aborted;
    int opened, peer_fin, closed, reason;
};

struct sconn {
    struct end e[2];
    int client;
    bool v6;
    uint64_t start_at;
    bool started;
};

struct soak {
    uint64_t seed, rng;
    bool verbose;
    int failed;
    struct tl *l;
    struct tl_opts o;
    struct tcp_config cfg[2];
    uint16_t mtu[2];
    int nconns;
    struct sconn conn[SOAK_CONNS];
    uint64_t rst_seen, rst_open;
    uint16_t trace;                     /* SOAK_TRACE: print this port's segments */
    uint32_t min_write;                 /* bytes a write at least (SOAK_MIN_WRITE) */
    char desc[512];
};

#define SOAK_FAIL(s, ...)                                                  \
    do {                                                                   \
        if (!(s)->failed++)                                                \
            fprintf(stderr, "  soak seed %llu: %s\n",                      \
                    (unsigned long long)(s)->seed, (s)->desc);             \
        fprintf(stderr, "  soak seed %llu: ", (unsigned long long)(s)->seed); \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
    } while (0)

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rnd(struct soak *s) { return mix(s->rng += 0x9e3779b97f4a7c15ull); }
static uint64_t below(struct soak *s, uint64_t n) { return n ? rnd(s) % n : 0; }
static bool pct(struct soak *s, unsigned p) { return below(s, 100) < p; }
/* Log-uniform in [lo, hi] (lo > 0): as many small values as large ones. */
static uint64_t logu(struct soak *s, uint64_t lo, uint64_t hi)
{
    int steps = 0;
    while ((lo << (steps + 1)) <= hi)
        steps++;
    uint64_t v = lo << below(s, (uint64_t)steps + 1);
    v += below(s, v);
    return v > hi ? hi : v;
}

/* Byte i of the stream named key: a change of one byte's place shows. */
static uint8_t soak_byte(uint64_t key, uint64_t i) { return (uint8_t)(mix(key + (i >> 3)) >> ((i & 7) * 8)); }

static void fill(uint8_t *to, uint64_t key, uint64_t from, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        to[i] = soak_byte(key, from + i);
}

static struct end *peer_of(struct end *e) { return &e->s->conn[e->idx].e[!e->side]; }
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

/* ---- The draw ---- */

static void draw_cfg(struct soak *s, struct tcp_config *cfg)
{
    tcp_config_default(cfg);
    cfg->sack = pct(s, 75);
    cfg->timestamps = pct(s, 75);
    cfg->wscale = pct(s, 75);
    cfg->nagle = pct(s, 30);
    cfg->cc = pct(s, 50) ? TCP_CC_CUBIC : TCP_CC_NEWRENO;
    if (pct(s, 40)) {
        cfg->sndbuf = (uint32_t)logu(s, 4096, 131072);
        cfg->sndbuf_max = pct(s, 50) ? cfg->sndbuf : 4u << 20;
    }
    if (pct(s, 40)) {
        cfg->rcvbuf = (uint32_t)logu(s, 4096, 131072);
        cfg->rcvbuf_max = pct(s, 50) ? cfg->rcvbuf : 4u << 20;
    }
    if (pct(s, 25))
        cfg->ooo_max = (uint16_t)logu(s, 4, 64);
    if (pct(s, 25))
        cfg->sq_slots = (uint16_t)logu(s, 16, 128);
    if (pct(s, 30))
        cfg->delack_ns = logu(s, 1 * MS, 200 * MS);
    cfg->time_wait_ns = logu(s, 30 * SEC, 60 * SEC);
}

static void draw_end(struct soak *s, struct end *e, int idx, int side)
{
    e->s = s;
    e->idx = idx;
    e->side = side;
    e->key_tx = rnd(s);
    uint64_t r = below(s, 100);
    e->tx_total = r < 15 ? 0 : r < 45 ? logu(s, 1, 16384) : logu(s, 16384, 3u << 20);
    e->max_write = (uint32_t)logu(s, s->min_write, 65536);
    e->zc_pct = (uint8_t)(pct(s, 30) ? 0 : pct(s, 40) ? 100 : 50);
    e->pace_ns = pct(s, 20) ? logu(s, 100000, 20 * MS) : 0;
    if (e->pace_ns && e->tx_total > (uint64_t)e->max_write * 200) /* a minute of writes at most */
        e->tx_total = (uint64_t)e->max_write * 200;
    e->manual = pct(s, 35);
    e->hold_ns = logu(s, 10000, 300 * MS);
    e->close_mode = (int)below(s, 3);
    e->close_delay_ns = logu(s, 10000, 500 * MS);
}

static void draw(struct soak *s)
{
    struct tl_opts *o = &s->o;
    o->seed = s->seed;
    o->loss_ppm = pct(s, 40) ? 0 : (uint32_t)logu(s, 100, 30000);
    o->dup_ppm = pct(s, 50) ? 0 : (uint32_t)logu(s, 100, 20000);
    o->reorder_ppm = pct(s, 50) ? 0 : (uint32_t)logu(s, 100, 30000);
    o->delay_ns = logu(s, 10000, 50 * MS);
    if (pct(s, 30))
        o->reorder_ns = logu(s, 1000, 4 * o->delay_ns);
    if (pct(s, 40)) {
        o->rate_bps = logu(s, 10000000, 10000000000ull);
        o->queue_max = (uint32_t)logu(s, 16, 512);
        if (pct(s, 40))
            o->tx_ring = (uint32_t)logu(s, 4, 64);
    }
    if (pct(s, 50))
        o->offloads |= NETDEV_OFF_RX_CSUM;
    if (pct(s, 60)) {
        o->offloads |= NETDEV_OFF_TX_CSUM;
        if (pct(s, 60))
            o->offloads |= NETDEV_OFF_TSO4;
        if (pct(s, 60))
            o->offloads |= NETDEV_OFF_TSO6;
    }
    if (pct(s, 20))
        o->nbufs = (uint32_t)logu(s, 1024, 4096);
    s->nconns = 1 + (int)below(s, SOAK_CONNS);
    bool any_v6 = false;
    for (int i = 0; i < s->nconns; i++) {
        struct sconn *k = &s->conn[i];
        k->client = (int)below(s, 2);
        k->v6 = pct(s, 30);
        any_v6 |= k->v6;
        k->start_at = below(s, 4) ? 0 : logu(s, 1000, 200 * MS);
        for (int d = 0; d < 2; d++)
            draw_end(s, &k->e[d], i, d);
        /* Both waiting for the other's FIN would never close. */
        if (k->e[0].close_mode == CLOSE_AFTER_FIN && k->e[1].close_mode == CLOSE_AFTER_FIN)
            k->e[below(s, 2)].close_mode = CLOSE_WHEN_SENT;
        if (pct(s, 10)) {
            struct end *e = &k->e[below(s, 2)];
            e->abort_mode = pct(s, 50) ? ABORT_AT_TIME : ABORT_IN_RECV;
            e->abort_at = e->abort_mode == ABORT_AT_TIME ? logu(s, 1 * MS, 2 * SEC) : below(s, peer_of(e)->tx_total + 1);
        }
        for (int d = 0; d < 2; d++) {
            k->e[d].key_rx = k->e[!d].key_tx;
            k->e[d].rx_expect = k->e[!d].tx_total;
        }
    }
    for (int i = 0; i < 2; i++) {
        draw_cfg(s, &s->cfg[i]);
        o->cfg[i] = &s->cfg[i];
        s->mtu[i] = pct(s, 70) ? 1500 : (uint16_t)((any_v6 ? 1280 : 576) + below(s, 1500 - (any_v6 ? 1280 : 576)));
    }
    int n = snprintf(s->desc, sizeof(s->desc),
                     "loss %u dup %u reo %u ppm, delay %llu us, rate %llu, ring %u, off %#x, bufs %u, mtu %u/%u,",
                     o->loss_ppm, o->dup_ppm, o->reorder_ppm, (unsigned long long)(o->delay_ns / 1000),
                     (unsigned long long)o->rate_bps, o->tx_ring, o->offloads, o->nbufs, s->mtu[0], s->mtu[1]);
    for (int i = 0; i < 2 && n < (int)sizeof(s->desc); i++)
        n += snprintf(s->desc + n, sizeof(s->desc) - (size_t)n, " side%d %s%s%s%s %s snd %u/%u rcv %u/%u ooo %u sq %u;", i,
                      s->cfg[i].sack ? "S" : "-", s->cfg[i].timestamps ? "T" : "-",
                      s->cfg[i].wscale ? "W" : "-", s->cfg[i].nagle ? "N" : "-",
                      s->cfg[i].cc == TCP_CC_CUBIC ? "cubic" : "reno", s->cfg[i].sndbuf, s->cfg[i].sndbuf_max,
                      s->cfg[i].rcvbuf, s->cfg[i].rcvbuf_max, s->cfg[i].ooo_max, s->cfg[i].sq_slots);
    if (n < (int)sizeof(s->desc))
        snprintf(s->desc + n, sizeof(s->desc) - (size_t)n, " %d conns", s->nconns);
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
    draw(s);
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
