/* SPDX-License-Identifier: MIT */
/* apps/iperf3.c: the iperf3 server application (apps/iperf3.h;
 * protocol of esnet/iperf src/iperf_server_api.c and iperf_api.c).
 *
 * Every connection to the port opens with a 37-byte cookie. If a test in
 * its stream-joining phase has that cookie, the connection is one of its
 * data streams; otherwise it is a new test's control connection. RSS puts
 * a test's connections on any cores, so a test lives in a static table
 * (iperf3_tests[]) shared by all of them, lock-free:
 *   - state (enum test_state) and refs are atomics; the control's core
 *     writes the state, the streams' cores read it;
 *   - a stream's core claims a stream slot (atomic joined), owns that slot
 *     from then on and publishes its byte counts with atomic stores;
 *   - everything else in a test is the control core's;
 *   - the control connection and each stream hold a reference; the last
 *     one dropped frees the test.
 * Nothing waits: the control side and each stream run a loop timer on
 * their own core (1 ms while waiting on another core, else 100 ms) that
 * checks for what other cores did and for deadlines.
 *
 * The control side, by phase:
 *   PARAMS   read the parameters; refuse SCTP or more than
 *            IPERF3_MAX_PARALLEL (SERVER_ERROR); send CREATE_STREAMS
 *   JOIN     every stream joined: TEST_START, TEST_RUNNING
 *   RUNNING  until the client's TEST_END; the streams that are ours to
 *            send (all of them in reverse mode, the second half of the
 *            streams with --bidir, as iperf_run_server counts them) send
 *   ENDING   reverse: until what the streams sent is acknowledged (the
 *            client drains until EXCHANGE_RESULTS), then EXCHANGE_RESULTS
 *            (--bidir: at once, its client drains nothing)
 *   RESULTS  read the client's results
 *   DRAIN    until we have received what the client says it sent
 *            (bounded), then our results and DISPLAY_RESULTS (UDP: at
 *            once, what came after TEST_END does not count)
 *   DONE     the client's IPERF_DONE, or its FIN: close.
 *
 * A UDP test's streams (-u) are datagrams, not connections: iperf3_udp.c;
 * what the two sides share is iperf3_impl.h. */
#include "iperf3_impl.h"

#include <stdatomic.h>

#include "kernel/app.h"
#include "net/core/core.h"
#include "net/net.h"

#define JOIN_TIMEOUT_NS (10 * SEC)
#define DRAIN_TIMEOUT_NS (3 * SEC)
#define ACK_GRACE_NS (50 * MS)      /* reverse: the client reads what was acknowledged */
#define RUN_SLACK_NS (30 * SEC)     /* past -t and --omit before we give up */
#define IDLE_TIMEOUT_NS (30 * SEC)  /* a control connection that says nothing */
#define PENDING_TIMEOUT_NS (10 * SEC) /* a connection that sends no cookie */

/* A connection until its cookie is complete: in one pool buffer. */
struct pending {
    struct pkt *self;
    struct tcp_conn *c;
    struct app_timer timer;         /* PENDING_TIMEOUT_NS to say who it is */
    uint8_t have;
    uint8_t cookie[IPERF3_COOKIE_LEN];
};

struct iperf3_test iperf3_tests[IPERF3_MAX_TESTS];
static _Atomic uint64_t stat_tests, stat_refused, stat_bad, stat_streams;
static _Atomic int64_t stat_open; /* connections we hold, every core */
static uint8_t pattern[PKT_DATA_ROOM];
static bool cli_done, udp_refused; /* a core could not bind the UDP port */

static const struct tcp_callbacks pending_cb, ctl_cb, stream_cb, drop_cb;

void iperf3_test_put(struct iperf3_test *t)
{
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
        return;
    atomic_store_explicit(&t->joined, 0, memory_order_relaxed);
    for (int i = 0; i < IPERF3_MAX_STREAMS; i++)
        atomic_store_explicit(&t->streams[i].ready, false, memory_order_relaxed);
    atomic_store_explicit(&t->state, T_FREE, memory_order_release);
}

/* ---- refusing and closing ---- */

/* Close c, dropping whatever still comes in. */
static void drop_conn(struct tcp_conn *c, uint64_t now_ns)
{
    atomic_fetch_add(&stat_open, 1);
    tcp_set_ctx(c, &drop_cb, NULL);
    tcp_close(c, now_ns);
}

static void drop_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns) { pkt_free(p); }
static void drop_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    atomic_fetch_sub(&stat_open, 1);
}
static const struct tcp_callbacks drop_cb = {.recv = drop_recv, .closed = drop_closed};

static void send_state(struct tcp_conn *c, int8_t state, uint64_t now_ns)
{
    uint8_t b = (uint8_t)state;
    tcp_write(c, &b, 1, now_ns);
}

/* SERVER_ERROR, then i_errno and errno (iperf_exchange_parameters). */
static void send_server_error(struct tcp_conn *c, uint32_t i_errno, uint64_t now_ns)
{
    uint8_t m[9] = {(uint8_t)IPERF3_SERVER_ERROR, (uint8_t)(i_errno >> 24), (uint8_t)(i_errno >> 16),
                    (uint8_t)(i_errno >> 8), (uint8_t)i_errno, 0, 0, 0, 0};
    tcp_write(c, m, sizeof(m), now_ns);
}

/* The control side is done with the test (end T_DONE or T_DEAD): the
 * streams see it on their next tick. t may be freed: false, for callers to
 * return with. */
static bool ctl_end(struct iperf3_test *t, enum test_state end, uint64_t now_ns)
{
    atomic_store_explicit(&t->state, end, memory_order_release);
    app_timer_cancel(&t->timer);
    struct tcp_conn *c = t->ctl;
    t->ctl = NULL;
    drop_conn(c, now_ns);
    atomic_fetch_sub(&stat_open, 1); /* drop_conn counted it again */
    iperf3_test_put(t);
    return false;
}

static bool ctl_refuse(struct iperf3_test *t, uint64_t now_ns)
{
    atomic_fetch_add(&stat_refused, 1);
    send_server_error(t->ctl, IPERF3_IEUNIMP, now_ns);
    return ctl_end(t, T_DEAD, now_ns);
}

static bool ctl_bad(struct iperf3_test *t, uint64_t now_ns)
{
    atomic_fetch_add(&stat_bad, 1);
    return ctl_end(t, T_DEAD, now_ns);
}

/* ---- the control side ---- */

static void ctl_arm(struct iperf3_test *t, uint64_t now_ns)
{
    bool waiting = t->phase == PH_JOIN || t->phase == PH_ENDING || t->phase == PH_DRAIN;
    uint64_t at = now_ns + (waiting ? 1 * MS : 100 * MS);
    app_timer_arm(&t->timer, at < t->deadline_ns ? at : t->deadline_ns);
}

static void ctl_phase(struct iperf3_test *t, enum phase ph, uint64_t timeout_ns, uint64_t now_ns)
{
    t->phase = (uint8_t)ph;
    t->deadline_ns = now_ns + timeout_ns;
    t->rx_len = 0;
    ctl_arm(t, now_ns);
}

static bool ctl_params(struct iperf3_test *t, uint64_t now_ns)
{
    struct iperf3_params *p = &t->params;
    if (iperf3_parse_params(t->rx + 4, t->json_len, p) != 0)
        return ctl_bad(t, now_ns);
    if (p->sctp || p->parallel == 0 || p->parallel > IPERF3_MAX_PARALLEL ||
        (p->udp && (udp_refused || p->len < iperf3_udp_hdr_len(p->udp_counters_64bit) || p->len > IPERF3_UDP_MAX_LEN)))
        return ctl_refuse(t, now_ns);
    t->udp = p->udp;
    t->c64 = p->udp_counters_64bit;
    t->len = (uint32_t)p->len;
    t->rate = p->bandwidth;
    tcp_get_info(t->ctl, &t->ctl_info);
    t->bidir = p->bidir; /* over reverse, as iperf_set_test_bidirectional */
    t->reverse = p->reverse && !p->bidir;
    t->parallel = p->parallel;
    t->nstreams = p->bidir ? 2 * p->parallel : p->parallel;
    atomic_store_explicit(&t->state, T_JOIN, memory_order_release);
    send_state(t->ctl, IPERF3_CREATE_STREAMS, now_ns);
    ctl_phase(t, PH_JOIN, JOIN_TIMEOUT_NS, now_ns);
    return true;
}

/* The i-th stream to join is ours to send on: iperf_run_server takes the
 * streams it receives on first. */
static bool stream_sends(const struct iperf3_test *t, uint32_t i)
{
    return t->reverse || (t->bidir && i >= t->parallel);
}

/* Bytes of the streams we send on (sends) or receive on: received or
 * queued, or acknowledged. */
static uint64_t sum_bytes(struct iperf3_test *t, bool sends, bool acked)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->nstreams; i++)
        if (stream_sends(t, i) == sends)
            n += atomic_load_explicit(acked ? &t->streams[i].acked : &t->streams[i].bytes, memory_order_acquire);
    return n;
}

/* What the client says it sent: its results list its streams in the order
 * they joined. */
static uint64_t peer_sent(const struct iperf3_test *t)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < t->peer.nstreams && i < t->nstreams; i++)
        if (!stream_sends(t, i))
            n += t->peer.bytes[i];
    return n;
}

/* A stream's counts as the results report them: --bidir's sending TCP
 * streams stopped with data queued, so what arrived. */
static struct omit stream_counts(struct iperf3_test *t, uint32_t i)
{
    struct stream *st = &t->streams[i];
    bool acked = t->bidir && stream_sends(t, i) && !t->udp;
    return (struct omit){atomic_load_explicit(acked ? &st->acked : &st->bytes, memory_order_acquire),
                         atomic_load_explicit(&st->packets, memory_order_acquire),
                         atomic_load_explicit(&st->lost, memory_order_acquire),
                         atomic_load_explicit(&st->retransmits, memory_order_acquire)};
}

static bool ctl_send_results(struct iperf3_test *t, uint64_t now_ns)
{
    struct iperf3_report r = {.bidir = t->bidir, .udp = t->udp, .nstreams = t->nstreams,
                              .server_output = t->params.get_server_output};
    r.duration_us = (t->end_ns - t->start_ns) / 1000;
    for (uint32_t i = 0; i < t->nstreams; i++) {
        struct omit now = stream_counts(t, i);
        r.id[i] = i < t->peer.nstreams ? t->peer.id[i] : iperf3_stream_id(i);
        r.sends[i] = stream_sends(t, i);
        r.bytes[i] = now.bytes - t->omit[i].bytes;
        r.packets[i] = now.packets - t->omit[i].packets;
        r.lost[i] = now.lost > t->omit[i].lost ? now.lost - t->omit[i].lost : 0; /* late ones take back */
        r.retransmits[i] = now.retransmits - t->omit[i].retransmits;
        r.jitter_ns[i] = atomic_load_explicit(&t->streams[i].jitter_ns, memory_order_acquire);
    }
    size_t n = iperf3_format_results(t->rx + 4, IPERF3_JSON_MAX, &r);
    if (n == 0)
        return ctl_bad(t, now_ns);
    uint8_t *h = (uint8_t *)t->rx;
    h[0] = (uint8_t)(n >> 24), h[1] = (uint8_t)(n >> 16), h[2] = (uint8_t)(n >> 8), h[3] = (uint8_t)n;
    tcp_write(t->ctl, t->rx, (uint32_t)n + 4, now_ns);
    send_state(t->ctl, IPERF3_DISPLAY_RESULTS, now_ns);
    ctl_phase(t, PH_DONE, IDLE_TIMEOUT_NS, now_ns);
    return true;
}

static void ctl_tick(void *arg, uint64_t now_ns)
{
    struct iperf3_test *t = arg;
    if (t->phase == PH_JOIN) {
        uint32_t ready = 0;
        for (uint32_t i = 0; i < t->nstreams; i++)
            ready += atomic_load_explicit(&t->streams[i].ready, memory_order_acquire);
        if (ready == t->nstreams) {
            send_state(t->ctl, IPERF3_TEST_START, now_ns);
            send_state(t->ctl, IPERF3_TEST_RUNNING, now_ns);
            t->start_ns = now_ns;
            t->omitted = t->params.omit_s == 0;
            net_memset(t->omit, 0, sizeof t->omit);
            atomic_store_explicit(&t->state, T_RUNNING, memory_order_release);
            uint64_t run = ((uint64_t)t->params.time_s + t->params.omit_s) * SEC + RUN_SLACK_NS;
            ctl_phase(t, PH_RUNNING, t->params.time_s ? run : IDLE_TIMEOUT_NS, now_ns);
            return;
        }
    } else if (t->phase == PH_ENDING) {
        if (sum_bytes(t, true, true) == sum_bytes(t, true, false)) {
            if (t->acked_ns == 0)
                t->acked_ns = now_ns;
            if (now_ns - t->acked_ns >= ACK_GRACE_NS) {
                send_state(t->ctl, IPERF3_EXCHANGE_RESULTS, now_ns);
                ctl_phase(t, PH_RESULTS, IDLE_TIMEOUT_NS, now_ns);
                return;
            }
        }
    } else if (t->phase == PH_RUNNING && !t->omitted && now_ns >= t->start_ns + t->params.omit_s * SEC) {
        /* -O: the first seconds are not counted (iperf3 resets its counts). */
        for (uint32_t i = 0; i < t->nstreams; i++)
            t->omit[i] = stream_counts(t, i);
        t->start_ns = now_ns;
        t->omitted = true;
    } else if (t->phase == PH_DRAIN) {
        uint64_t omitted = 0; /* the client's counts leave -O's seconds out too */
        for (uint32_t i = 0; i < t->nstreams; i++)
            omitted += stream_sends(t, i) ? 0 : t->omit[i].bytes;
        if (sum_bytes(t, false, false) - omitted >= peer_sent(t) || now_ns >= t->deadline_ns) {
            ctl_send_results(t, now_ns);
            return;
        }
    }
    if (t->phase == PH_RUNNING && t->params.time_s == 0) {
        /* -n, -k, -t 0: the client says when it ends, however long; a test
         * whose streams stop moving for IDLE_TIMEOUT_NS is gone. */
        uint64_t moved = sum_bytes(t, false, false) + sum_bytes(t, true, false);
        if (moved != t->moved) {
            t->moved = moved;
            t->deadline_ns = now_ns + IDLE_TIMEOUT_NS;
        }
    }
    if (now_ns >= t->deadline_ns) {
        if (t->phase == PH_ENDING) { /* the client stopped reading: report what we have */
            send_state(t->ctl, IPERF3_EXCHANGE_RESULTS, now_ns);
            ctl_phase(t, PH_RESULTS, IDLE_TIMEOUT_NS, now_ns);
            return;
        }
        ctl_bad(t, now_ns);
        return;
    }
    ctl_arm(t, now_ns);
}

static void ctl_test_end(struct iperf3_test *t, uint64_t now_ns)
{
    t->end_ns = now_ns;
    atomic_store_explicit(&t->state, T_ENDED, memory_order_release);
    if (t->reverse && !t->udp) {
        t->acked_ns = 0;
        ctl_phase(t, PH_ENDING, DRAIN_TIMEOUT_NS, now_ns);
    } else {
        send_state(t->ctl, IPERF3_EXCHANGE_RESULTS, now_ns);
        ctl_phase(t, PH_RESULTS, IDLE_TIMEOUT_NS, now_ns);
    }
}

/* A length-prefixed JSON message is whole in t->rx: its handler. */
static bool ctl_json(struct iperf3_test *t, uint64_t now_ns)
{
    if (t->phase == PH_PARAMS)
        return ctl_params(t, now_ns);
    if (iperf3_parse_results(t->rx + 4, t->json_len, &t->peer) != 0)
        return ctl_bad(t, now_ns);
    if (t->reverse || t->udp)
        return ctl_send_results(t, now_ns);
    ctl_phase(t, PH_DRAIN, DRAIN_TIMEOUT_NS, now_ns);
    return true;
}

/* Consume n bytes of the control stream; false once the test is gone. */
static bool ctl_input(struct iperf3_test *t, const uint8_t *d, uint32_t n, uint64_t now_ns)
{
    while (n) {
        if (t->phase == PH_PARAMS || t->phase == PH_RESULTS) {
            uint32_t want = t->rx_len < 4 ? 4 : 4 + t->json_len;
            uint32_t k = want - t->rx_len < n ? want - t->rx_len : n;
            net_memcpy(t->rx + t->rx_len, d, k);
            t->rx_len += k, d += k, n -= k;
            if (t->rx_len == 4) {
                const uint8_t *h = (const uint8_t *)t->rx;
                uint32_t len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 | (uint32_t)h[2] << 8 | h[3];
                if (len == 0 || len > IPERF3_JSON_MAX)
                    return ctl_bad(t, now_ns);
                t->json_len = len;
            } else if (t->rx_len == 4 + t->json_len && !ctl_json(t, now_ns)) {
                return false;
            }
            continue;
        }
        int8_t b = (int8_t)*d++;
        n--;
        if (b == IPERF3_TEST_END && t->phase == PH_RUNNING) {
            ctl_test_end(t, now_ns);
        } else if (b == IPERF3_IPERF_DONE && t->phase == PH_DONE) {
            return ctl_end(t, T_DONE, now_ns);
        } else {
            if (b != IPERF3_CLIENT_TERMINATE)
                atomic_fetch_add(&stat_bad, 1);
            return ctl_end(t, T_DEAD, now_ns);
        }
    }
    return true;
}

static void ctl_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    ctl_input(ctx, p->data, p->len, now_ns);
    pkt_free(p);
}

static void ctl_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct iperf3_test *t = ctx;
    ctl_end(t, t->phase == PH_DONE ? T_DONE : T_DEAD, now_ns);
}

/* Reset by the peer, or timed out: the test is over. */
static void ctl_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct iperf3_test *t = ctx;
    atomic_fetch_sub(&stat_open, 1);
    atomic_store_explicit(&t->state, T_DEAD, memory_order_release);
    app_timer_cancel(&t->timer);
    t->ctl = NULL;
    iperf3_test_put(t);
}

static const struct tcp_callbacks ctl_cb = {.recv = ctl_recv, .peer_fin = ctl_peer_fin, .closed = ctl_closed};

/* A cookie no joining test has: a new test, or ACCESS_DENIED. */
static void ctl_open(struct tcp_conn *c, const uint8_t *cookie, const uint8_t *rest, uint32_t n, uint64_t now_ns)
{
    struct iperf3_test *t = NULL;
    for (int i = 0; i < IPERF3_MAX_TESTS && !t; i++) {
        uint32_t free_state = T_FREE;
        if (atomic_compare_exchange_strong(&iperf3_tests[i].state, &free_state, T_SETUP))
            t = &iperf3_tests[i];
    }
    if (t == NULL) {
        atomic_fetch_add(&stat_refused, 1);
        send_state(c, IPERF3_ACCESS_DENIED, now_ns);
        drop_conn(c, now_ns);
        return;
    }
    atomic_fetch_add(&stat_tests, 1);
    atomic_fetch_add(&stat_open, 1);
    atomic_store(&t->refs, 1);
    net_memcpy(t->cookie, cookie, IPERF3_COOKIE_LEN);
    t->ctl = c;
    t->parallel = t->nstreams = 0;
    t->reverse = t->bidir = t->udp = false;
    t->start_ns = t->end_ns = now_ns;
    net_memset(&t->peer, 0, sizeof(t->peer));
    app_timer_init(&t->timer, ctl_tick, t);
    tcp_set_ctx(c, &ctl_cb, t);
    send_state(c, IPERF3_PARAM_EXCHANGE, now_ns);
    ctl_phase(t, PH_PARAMS, IDLE_TIMEOUT_NS, now_ns);
    ctl_input(t, rest, n, now_ns);
}

/* ---- data streams ---- */

/* Queue what the send buffer takes, and with -b (t->rate, per stream as
 * iperf3 applies it) no faster than that on average: a stream held back
 * catches up, as iperf3's throttle lets it. Returns when to come back for
 * the rate (UINT64_MAX: the next ACK brings us back). */
static uint64_t stream_pump(struct stream *st, uint64_t now_ns)
{
    struct tcp_conn *c = st->c;
    uint64_t rate = st->t->rate;
    uint32_t mss = tcp_mss(c);
    if (mss > sizeof(pattern))
        mss = sizeof(pattern);
    if (rate && st->next_ns == 0)
        st->next_ns = now_ns;
    uint64_t queued = atomic_load_explicit(&st->bytes, memory_order_relaxed);
    while (tstate(st->t) == T_RUNNING && tcp_sndbuf(c) >= mss && (rate == 0 || st->next_ns <= now_ns)) {
        struct pkt *p = pkt_alloc(tcp_conn_stack(c)->pool);
        if (p == NULL)
            break; /* the timer tries again */
        net_memcpy(p->data, pattern, mss);
        p->len = (uint16_t)mss;
        if (tcp_send(c, p, now_ns) < 0) {
            pkt_free(p);
            break;
        }
        queued += mss;
        if (rate)
            st->next_ns += (uint64_t)mss * 8 * SEC / rate;
    }
    atomic_store_explicit(&st->bytes, queued, memory_order_release);
    return rate && st->next_ns > now_ns ? st->next_ns : UINT64_MAX;
}

/* Leave the test (the connection is gone or going; a UDP stream: its
 * test ended). */
static void stream_leave(struct stream *st)
{
    app_timer_cancel(&st->timer);
    if (st->uc == NULL)
        atomic_fetch_sub(&stat_open, 1);
    st->c = NULL;
    st->uc = NULL;
    iperf3_test_put(st->t);
}

/* The test was given up: reset the stream and leave (true). Ended: close
 * our side, after what is queued, as iperf3's server does on TEST_END (a
 * reverse-mode client reads whole blocks until it sees the FIN); a UDP
 * stream leaves. */
static bool stream_dead(struct stream *st, uint64_t now_ns)
{
    uint32_t s = tstate(st->t);
    if (st->uc && (s == T_ENDED || s == T_DONE || s == T_DEAD)) {
        stream_leave(st);
        return true;
    }
    if (s == T_ENDED || s == T_DONE)
        tcp_close(st->c, now_ns); /* -1 when already closing: fine */
    if (s != T_DEAD)
        return false;
    tcp_abort(st->c, now_ns);
    stream_leave(st);
    return true;
}

static void stream_tick(void *arg, uint64_t now_ns)
{
    struct stream *st = arg;
    if (stream_dead(st, now_ns))
        return;
    uint32_t s = tstate(st->t);
    uint64_t period = st->sends && s == T_JOIN ? 1 * MS /* to start sending */
                      : s == T_RUNNING              ? 10 * MS
                                                    : 100 * MS;
    uint64_t at = now_ns + period;
    if (st->sends && s == T_RUNNING && st->uc) {
        uint64_t due = iperf3_udp_pump(st, now_ns);
        at = due < at ? due : at;
    } else if (st->sends && s == T_RUNNING) {
        uint64_t due = stream_pump(st, now_ns);
        at = due < at ? due : at;
    }
    app_timer_arm(&st->timer, at);
}

static void stream_count(struct stream *st, uint32_t n)
{
    uint64_t b = atomic_load_explicit(&st->bytes, memory_order_relaxed);
    atomic_store_explicit(&st->bytes, b + n, memory_order_release);
}

static void stream_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct stream *st = ctx;
    if (!st->sends)
        stream_count(st, p->len);
    pkt_free(p);
    stream_dead(st, now_ns);
}

static void stream_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    struct stream *st = ctx;
    uint64_t a = atomic_load_explicit(&st->acked, memory_order_relaxed);
    atomic_store_explicit(&st->acked, a + bytes, memory_order_release);
    atomic_store_explicit(&st->retransmits, tcp_conn_retransmits(c), memory_order_relaxed);
    if (!stream_dead(st, now_ns) && st->sends) {
        uint64_t due = stream_pump(st, now_ns);
        if (due != UINT64_MAX) /* -b holds the rest back: come back for it (within the tick's 10 ms) */
            app_timer_arm(&st->timer, due < now_ns + 10 * MS ? due : now_ns + 10 * MS);
    }
}

static void stream_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns) { tcp_close(c, now_ns); }

static void stream_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns) { stream_leave(ctx); }

static const struct tcp_callbacks stream_cb = {
    .recv = stream_recv,
    .acked = stream_acked,
    .peer_fin = stream_peer_fin,
    .closed = stream_closed,
};

struct stream *iperf3_slot_claim(struct iperf3_test *t, const uint8_t *cookie)
{
    uint32_t r = atomic_load(&t->refs);
    do {
        if (r == 0)
            return NULL;
    } while (!atomic_compare_exchange_weak(&t->refs, &r, r + 1));
    if (tstate(t) != T_JOIN || (cookie && net_memcmp(t->cookie, cookie, IPERF3_COOKIE_LEN) != 0)) {
        iperf3_test_put(t); /* recycled meanwhile */
        return NULL;
    }
    uint32_t idx = atomic_fetch_add(&t->joined, 1);
    if (idx >= t->nstreams) { /* more streams than announced */
        atomic_fetch_add(&stat_bad, 1);
        iperf3_test_put(t);
        return NULL;
    }
    struct stream *st = &t->streams[idx];
    st->t = t;
    st->c = NULL;
    st->uc = NULL;
    st->sends = stream_sends(t, idx);
    st->next_ns = 0;
    net_memset(&st->rx, 0, sizeof st->rx);
    atomic_store_explicit(&st->rx_core, NULL, memory_order_relaxed);
    atomic_store_explicit(&st->bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&st->acked, 0, memory_order_relaxed);
    atomic_store_explicit(&st->retransmits, 0, memory_order_relaxed);
    atomic_store_explicit(&st->packets, 0, memory_order_relaxed);
    atomic_store_explicit(&st->lost, 0, memory_order_relaxed);
    atomic_store_explicit(&st->jitter_ns, 0, memory_order_relaxed);
    app_timer_init(&st->timer, stream_tick, st);
    return st;
}

void iperf3_stream_ready(struct stream *st, uint64_t now_ns)
{
    atomic_store_explicit(&st->ready, true, memory_order_release);
    atomic_fetch_add(&stat_streams, 1);
    stream_tick(st, now_ns);
}

/* Join the TCP test that is waiting for streams with this cookie: false
 * when none is. */
static bool stream_join(struct tcp_conn *c, const uint8_t *cookie, uint32_t rest, uint64_t now_ns)
{
    for (int i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        if (tstate(t) != T_JOIN || t->udp || net_memcmp(t->cookie, cookie, IPERF3_COOKIE_LEN) != 0)
            continue;
        struct stream *st = iperf3_slot_claim(t, cookie);
        if (st == NULL) {
            drop_conn(c, now_ns);
            return true;
        }
        atomic_fetch_add(&stat_open, 1);
        st->c = c;
        if (!st->sends)
            atomic_store_explicit(&st->bytes, rest, memory_order_relaxed);
        tcp_set_ctx(c, &stream_cb, st);
        iperf3_stream_ready(st, now_ns);
        return true;
    }
    return false;
}

/* ---- every connection: the cookie first ---- */

/* No cookie in time: give the connection and its buffer back. */
static void pending_timeout(void *arg, uint64_t now_ns)
{
    struct pending *pd = arg;
    struct tcp_conn *c = pd->c;
    atomic_fetch_add(&stat_bad, 1);
    atomic_fetch_sub(&stat_open, 1);
    pkt_free(pd->self);
    tcp_abort(c, now_ns); /* no callback follows */
}

static void accepted(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct pkt *b = pkt_alloc(tcp_conn_stack(c)->pool);
    if (b == NULL) {
        tcp_abort(c, now_ns);
        return;
    }
    struct pending *pd = (struct pending *)(void *)pkt_buf_start(b);
    pd->self = b;
    pd->c = c;
    pd->have = 0;
    app_timer_init(&pd->timer, pending_timeout, pd);
    app_timer_arm(&pd->timer, now_ns + PENDING_TIMEOUT_NS);
    atomic_fetch_add(&stat_open, 1);
    tcp_set_ctx(c, &pending_cb, pd);
}

static void pending_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct pending *pd = ctx;
    uint32_t k = IPERF3_COOKIE_LEN - pd->have;
    if (k > p->len)
        k = p->len;
    net_memcpy(pd->cookie + pd->have, p->data, k);
    pd->have = (uint8_t)(pd->have + k);
    if (pd->have < IPERF3_COOKIE_LEN) {
        pkt_free(p);
        return;
    }
    uint8_t cookie[IPERF3_COOKIE_LEN];
    net_memcpy(cookie, pd->cookie, sizeof(cookie));
    app_timer_cancel(&pd->timer);
    pkt_free(pd->self);
    atomic_fetch_sub(&stat_open, 1); /* counted again by what it becomes */
    if (!iperf3_cookie_ok(cookie)) {
        atomic_fetch_add(&stat_bad, 1);
        drop_conn(c, now_ns);
    } else if (!stream_join(c, cookie, p->len - k, now_ns)) {
        ctl_open(c, cookie, p->data + k, p->len - k, now_ns);
    }
    pkt_free(p);
}

static void pending_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns) { tcp_close(c, now_ns); }

static void pending_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct pending *pd = ctx;
    app_timer_cancel(&pd->timer);
    atomic_fetch_sub(&stat_open, 1);
    pkt_free(pd->self);
}

static const struct tcp_callbacks pending_cb = {
    .recv = pending_recv,
    .peer_fin = pending_peer_fin,
    .closed = pending_closed,
};

static const struct tcp_callbacks listen_cb = {.accepted = accepted};

/* ---- `show iperf3` ---- */

static void cmd_show(const struct cli_args *a)
{
    uint32_t active = 0;
    for (int i = 0; i < IPERF3_MAX_TESTS; i++)
        active += tstate(&iperf3_tests[i]) != T_FREE;
    uint64_t nt = atomic_load(&stat_tests), nr = atomic_load(&stat_refused), nb = atomic_load(&stat_bad);
    uint64_t ns = atomic_load(&stat_streams), stray = iperf3_udp_strays();
    int64_t open = atomic_load(&stat_open);
    if (a->json) {
        struct json j;
        app_json_begin(&j);
        json_obj_begin(&j, NULL);
        json_u64(&j, "tests", nt);
        json_u64(&j, "streams", ns);
        json_u64(&j, "refused", nr);
        json_u64(&j, "bad", nb);
        json_u64(&j, "udp-stray", stray);
        json_u64(&j, "active", active);
        json_i64(&j, "connections", open);
        json_obj_end(&j);
        app_json_end(&j);
    } else {
        app_printf("iperf3: %lu tests, %lu streams, %lu refused, %lu bad, %lu stray UDP datagrams; %u active, %ld "
                "connections open\n",
                nt, ns, nr, nb, stray, active, (long)open);
        for (int i = 0; i < IPERF3_MAX_TESTS; i++) {
            struct iperf3_test *t = &iperf3_tests[i];
            uint32_t st = tstate(t);
            if (st == T_FREE)
                continue;
            app_printf("  test %d: state %u phase %u, %u %s streams%s, %lu bytes received, %lu sent, %lu acknowledged\n",
                    i, st, t->phase, t->nstreams, t->udp ? "UDP" : "TCP",
                    t->reverse ? " (reverse)" : t->bidir ? " (bidir)" : "",
                    sum_bytes(t, false, false), sum_bytes(t, true, false), sum_bytes(t, true, true));
        }
    }
}

int iperf3_start(struct net_stack *s, uint16_t port)
{
    for (uint32_t i = 0; i < sizeof(pattern); i++)
        pattern[i] = (uint8_t)i;
    if (!cli_done) {
        cli_done = true;
        app_command("show iperf3", "show iperf3 [json]", "iperf3 server: tests, streams, open connections",
                     cmd_show);
    }
    if (!iperf3_udp_bind(s, port)) {
        app_printf("iperf3: UDP port %u taken: -u is refused\n", port);
        udp_refused = true;
    }
    return tcp_listen(s, port, &listen_cb, NULL);
}
