/* SPDX-License-Identifier: MIT */
/* apps/iperf3_udp.c: the iperf3 server's UDP streams (-u; esnet/iperf
 * src/iperf_udp.c). A UDP test has no stream connections: each stream is
 * the client's 4-byte datagram to the test's port from the control
 * connection's address (iperf_udp_connect), answered from there, and then
 * that address and port. The core that takes the connect datagram runs
 * the stream's timer and, for a stream we send on, sends, paced to -b;
 * the core that takes its first datagram of data (not always the same:
 * RSS hashes fragments by their addresses only) counts what it receives. */
#include "iperf3_impl.h"

#include "kernel/app.h"
#include "net/core/core.h"
#include "net/net.h"

#define UDP_BURST 32                /* datagrams a stream sends a loop pass */

/* A core's stack, and the datagram it is sending. */
struct udp_core {
    struct net_stack *s;
    uint8_t out[IPERF3_UDP_MAX_LEN];
};

static _Atomic uint64_t stat_udp_stray;

/* The datagram in st->uc->out, of the test's length, to the client. */
static int udp_out(struct stream *st, uint64_t now_ns)
{
    const struct udp_meta *m = &st->peer;
    struct udp_core *uc = st->uc;
    uint16_t len = (uint16_t)st->t->len;
    if (m->v6)
        return udp_send6_copy(uc->s, uc->out, len, m->dst6, m->src6, m->dport, m->sport, m->port, now_ns);
    return udp_send_copy(uc->s, uc->out, len, m->dst_be, m->src_be, m->dport, m->sport, now_ns);
}

/* Send what -b allows by now, a burst at most, while the port's ring has
 * room (as a Linux sender blocks: what we would drop ourselves waits
 * instead); when to come back. */
uint64_t iperf3_udp_pump(struct stream *st, uint64_t now_ns)
{
    struct iperf3_test *t = st->t;
    struct net_iface *ifc = net_iface_get(st->uc->s, st->peer.port);
    uint32_t frames = t->len / 1024 + 1; /* at most, at an MTU of 1280 or more */
    uint64_t bytes = atomic_load_explicit(&st->bytes, memory_order_relaxed);
    uint64_t n = atomic_load_explicit(&st->packets, memory_order_relaxed);
    if (st->next_ns == 0)
        st->next_ns = now_ns;
    for (int i = 0; i < UDP_BURST && (t->rate == 0 || st->next_ns <= now_ns); i++) {
        if (ifc == NULL || ifc->tx_busy || (ifc->ntx && ifc->ntx + frames > NET_TX_BURST))
            break;
        iperf3_udp_header(st->uc->out, now_ns, n + 1, t->c64);
        if (udp_out(st, now_ns) < 0)
            break;
        n++;
        bytes += t->len;
        if (t->rate)
            st->next_ns += (uint64_t)t->len * 8 * SEC / t->rate;
    }
    atomic_store_explicit(&st->bytes, bytes, memory_order_release);
    atomic_store_explicit(&st->packets, n, memory_order_release);
    return t->rate == 0 || st->next_ns < now_ns ? now_ns : st->next_ns;
}

static bool udp_same_peer(const struct udp_meta *a, const struct udp_meta *b)
{
    return a->v6 == b->v6 && a->sport == b->sport && a->dport == b->dport &&
           (a->v6 ? net_memcmp(a->src6, b->src6, 16) == 0 : a->src_be == b->src_be);
}

/* From the UDP test's client (the control connection's address). */
static bool udp_from_client(const struct iperf3_test *t, const struct udp_meta *m)
{
    const struct tcp_info *c = &t->ctl_info;
    return c->v6 == m->v6 && (m->v6 ? net_memcmp(c->raddr6, m->src6, 16) == 0 : c->raddr_be == m->src_be);
}

/* The UDP stream of m's address and port, in a test from joining to done;
 * NULL when there is none. (A slot's peer is set before it is ready.) */
static struct stream *udp_find(const struct udp_meta *m)
{
    for (int i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        uint32_t state = tstate(t);
        if (state < T_JOIN || state > T_DONE || !t->udp)
            continue;
        uint32_t n = atomic_load(&t->joined);
        for (uint32_t j = 0; j < n && j < t->nstreams; j++) {
            struct stream *st = &t->streams[j];
            if (atomic_load_explicit(&st->ready, memory_order_acquire) && udp_same_peer(&st->peer, m))
                return st;
        }
    }
    return NULL;
}

/* A connect datagram: the stream of the UDP test this client is joining,
 * answered; false when there is none. */
static bool udp_join(struct udp_core *uc, const struct udp_meta *m, uint64_t now_ns)
{
    for (int i = 0; i < IPERF3_MAX_TESTS; i++) {
        struct iperf3_test *t = &iperf3_tests[i];
        if (tstate(t) != T_JOIN || !t->udp || !udp_from_client(t, m))
            continue;
        struct stream *st = iperf3_slot_claim(t, NULL);
        if (st == NULL)
            continue; /* that test has its streams: another of this client's may be joining */
        st->uc = uc;
        st->peer = *m;
        if (m->v6)
            udp_send6_copy(uc->s, IPERF3_UDP_REPLY, 4, m->dst6, m->src6, m->dport, m->sport, m->port, now_ns);
        else
            udp_send_copy(uc->s, IPERF3_UDP_REPLY, 4, m->dst_be, m->src_be, m->dport, m->sport, now_ns);
        iperf3_stream_ready(st, now_ns);
        return true;
    }
    return false;
}

/* Count a datagram of data, on the one core that counts the stream's. */
static bool udp_count(struct udp_core *uc, struct stream *st, const uint8_t *data, uint16_t len, uint64_t now_ns)
{
    struct udp_core *owner = NULL;
    if (!atomic_compare_exchange_strong(&st->rx_core, &owner, uc) && owner != uc)
        return false;
    if (!iperf3_udp_account(&st->rx, data, len, st->t->c64, now_ns))
        return false;
    atomic_store_explicit(&st->bytes, st->rx.bytes, memory_order_release);
    atomic_store_explicit(&st->packets, st->rx.packets, memory_order_release);
    atomic_store_explicit(&st->lost, st->rx.lost, memory_order_release);
    atomic_store_explicit(&st->jitter_ns, st->rx.jitter_ns, memory_order_release);
    return true;
}

/* Every datagram to the port on this core: a stream's (counted while the
 * test runs, as iperf_udp_recv), or a new stream's. */
static void udp_recv(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data, uint16_t len,
                     struct pkt *p, uint64_t now_ns)
{
    struct udp_core *uc = ctx;
    struct stream *st = udp_find(m);
    bool ok;
    if (st)
        ok = st->sends || tstate(st->t) != T_RUNNING || udp_count(uc, st, data, len, now_ns);
    else
        ok = !m->bcast && len == IPERF3_UDP_CONNECT_LEN && udp_join(uc, m, now_ns);
    if (!ok)
        atomic_fetch_add(&stat_udp_stray, 1); /* in no test, or short */
    if (p)
        pkt_free(p);
}

uint64_t iperf3_udp_strays(void) { return atomic_load(&stat_udp_stray); }

bool iperf3_udp_bind(struct net_stack *s, uint16_t port)
{
    struct udp_core *uc = app_alloc(sizeof *uc);
    uc->s = s;
    for (uint32_t i = 0; i < sizeof uc->out; i++)
        uc->out[i] = (uint8_t)i;
    return udp_bind(s, port, udp_recv, uc) == 0;
}
