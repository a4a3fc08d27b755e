/* SPDX-License-Identifier: MIT */
/* tests/fuzz/fuzz_tcp_conn.c: one TCP connection, whose peer the input
 * plays, driven by operations: segments with sequence and acknowledgment
 * numbers relative to the connection, time moving, and the application
 * writing, closing, holding what it receives. So the deep states come
 * within reach: SACK recovery (RFC 6675), RACK-TLP (RFC 8985), zero
 * windows both ways and window probes, FIN-WAIT-2 with a hole, TIME-WAIT
 * and its reuse by a SYN (RFC 6191), timeouts, keepalive, RST and
 * challenge ACKs (RFC 5961), PAWS (RFC 7323), option negotiation.
 *
 * Input: [start] [operation]... start % 5 picks the state the input
 * begins in (each built once in a stack of its own, every input restored
 * from its snapshot, tests/support/snapshot.h):
 *   0 ESTABLISHED, passive; the peer offered MSS 1460, SACK, timestamps
 *     and window scale 7;
 *   1 ESTABLISHED, passive; the peer offered MSS 1000 only (no SACK:
 *     NewReno's recovery, no timestamps);
 *   2 SYN-SENT, our SYN out (the peer's SYN-ACK negotiates);
 *   3 as 0, the application holding what it receives (the window closes);
 *   4 a listener and no connection (the peer's SYN opens it).
 * The peer is 10.0.0.2:5000, we are 10.0.0.1:80 (start 2: our port 40000
 * to its 9000). An operation's first byte's low nibble says which:
 *   0-7  the peer sends a segment, 14 bytes:
 *        [op][flags][seq][ack][win][opt][len][ts][sack: 6 bytes]
 *        op: bits 0-1 seq's unit (1, 100, a segment, 65536 bytes); bit 2
 *          ack from snd_nxt (else snd_una); bit 4 ack's unit a segment
 *          (else 1); bits 5 and 6 both: checksum wrong; bit 7 the NIC's
 *          verdict given (PKT_RX_L4_CSUM_OK, or _BAD when wrong).
 *        flags: the control bits as they are.
 *        seq: signed, in its unit, from our rcv_nxt (before there is one:
 *          from the peer's ISN; a SYN sets that).
 *        ack: signed, in its unit, from snd_una or snd_nxt.
 *        win: bits 6-7 a class of v = bits 0-5: 0 zero; 1 v; 2 (v + 1)
 *          times 2 KB, scaled by the peer's shift; 3 65535 - v.
 *        opt: bit 0 timestamps; 1 SACK blocks (1 + bits 6-7 of them, at
 *          most 3); 2 MSS; 3 window scale; 4 SACK-permitted; 5 four raw
 *          bytes of options (sack's last four); bits 6-7 pick the MSS
 *          (1460, 536, 64, 8960) and the shift (7, 0, 14, 15).
 *        len: the payload, bits 6-7 a class of v = bits 0-5: 0 v bytes;
 *          1 a segment less v; 2 32 v; 3 a segment and 8 v (past the MSS).
 *          It is the peer's stream: byte i after its ISN is pattern(i).
 *        ts: the peer's TSval moves by bits 0-5 (signed), times 2^24 with
 *          bit 7; bit 6: TSecr wrong (else our latest TSval).
 *        sack: blocks [left][size]: left a signed count of segments from
 *          snd_una; size (bits 0-3) + 1 segments, less 100 bytes times
 *          bits 4-7.
 *   Two bytes, [op][n]:
 *   8    time advances (1 + n % 16) << (n / 16) ms (up to 9 minutes) and
 *        TCP's timers run;
 *   9    the application writes (n + 1) * 256 bytes of its stream (what
 *        does not fit it writes as the peer acknowledges);
 *   10   the application closes (n odd: aborts);
 *   11   n >= 128: the application holds what it receives (manual
 *        window); else it hands back n * 512 bytes of it (0: all, and
 *        stops holding);
 *   12   the peer acknowledges everything sent (seq rcv_nxt, ack snd_nxt,
 *        its timestamps right), window as win above from n;
 *   13   the peer sends its next data in order, length as len above from
 *        n, its last window;
 *   14   keepalive: n 0 off, else idle n / 4 s, 1 + n % 4 probes a
 *        second apart;
 *   15   n bit 0: NewReno (else CUBIC); bit 1: Nagle; bits 2-7: a send
 *        timeout of that many seconds (0: none).
 * An operation cut short by the input's end is not done. The peer's
 * segments are 100 us apart. Every state named above is a few dozen
 * bytes away (tests/fuzz/seeds.py); longer inputs only cost time, each
 * operation running the stack (a 10-minute run let them grow to 1.6 KB
 * and fell from 10,900 to 2,800 inputs a second), so
 * libFuzzer: -max_len=256
 *
 * After every operation: the stack's invariants (tests/support/
 * tcp_invariants.h) and the connection's (snd_una <= snd_nxt <= snd_end
 * and the FIN, its queue's accounting and flight, the out-of-order queue
 * after rcv_nxt); what the application received is the peer's stream in
 * order, each byte once, and every segment we sent carries our stream's
 * bytes at its sequence number, in the MTU and the MSS. At the end the
 * stack is released: every buffer and connection back, or abort().
 * With FUZZ_TCP_CONN_STATS set in the environment the run ends with
 * what the inputs reached (tests/support/tcp_reach.h): for each state,
 * condition (recovery, RACK's timer, a probe out, a shut window, ...) and
 * TCP counter, how many inputs; with FUZZ_TCP_CONN_TRACE, a line for
 * each operation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/core/csum.h"
#include "net/tcp/tcp_impl.h"
#include "tests/support/fake_netdev.h"
#include "tests/support/snapshot.h"
#include "tests/support/tcp_invariants.h"
#include "tests/support/tcp_reach.h"

#define NSTART 5
#define NCONNS 4
#define PEER_PORT 5000
#define PEER_ACTIVE_PORT 9000
#define OUR_ACTIVE_PORT 40000
#define PEER_ISN 1000000u
#define PEER_TSVAL 5000u
#define PAT_MASK 0xffffu
#define MS 1000000ull
#define SEC 1000000000ull
#define SEG_OP_LEN 14
/* The harness's own code gives libFuzzer no coverage feedback: what its
 * checks and builders do is not the stack's behaviour (only noise in the
 * corpus), and the hooks on its comparisons were half the time an input
 * took. */
#define HARNESS __attribute__((no_sanitize("coverage")))

/* A stack with the one connection of a starting point. */
struct world {
    struct fake_net fn;
    struct tcp_stack tcp;
    void *arena;
    struct snap snap;
    uint64_t now_ns;
    uint16_t lport, rport;
    bool hold;
    uint32_t tsecr;             /* our TSval in the handshake */
    struct net_counters base;   /* the counters at the snapshot */
};

/* The application: its connection (between accepted or connected and
 * closed), the streams both ways as far as they went. */
struct app {
    struct tcp_conn *c;
    uint32_t delivered;         /* bytes received, in order */
    uint32_t written;           /* bytes tcp_write took */
    uint32_t pending;           /* bytes to write as room comes */
    uint32_t held;              /* received and not handed back (manual window) */
};

/* What the peer remembers of its side. */
struct peer {
    uint32_t isn, tsval, tsecr;
    uint16_t win;
    uint8_t wscale;
};

static struct world worlds[NSTART];
static struct world *w;
static struct app app;
static struct peer peer;
static uint8_t pat[2 * (PAT_MASK + 1) + PKT_DATA_ROOM]; /* pattern(i & PAT_MASK) */
/* pat_sum[i + 2] = pat_sum[i] + the big-endian word at pat + i: the
 * checksum of any stretch of the pattern in two loads, not a loop a
 * byte (instrumented, it was most of the time a segment took). */
static uint64_t pat_sum[sizeof(pat) + 2];
static bool stats, trace;
HARNESS static void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

HARNESS static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v);
}

HARNESS static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
HARNESS static uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }

/* The connection on the world's 4-tuple, in whatever state. */
HARNESS static struct tcp_conn *conn(void)
{
    return tcp_conn_lookup(&w->tcp, FAKE_ADDR0, FAKE_PEER, w->lport, w->rport);
}

/* ---- The application ---- */

HARNESS static void app_write_pending(struct tcp_conn *c, uint64_t now_ns)
{
    while (app.pending) {
        uint32_t want = app.pending < PAT_MASK + 1 ? app.pending : PAT_MASK + 1; /* (one call: whole segments) */
        uint32_t n = tcp_write(c, pat + (app.written & PAT_MASK), want, now_ns);
        app.written += n;
        app.pending -= n;
        if (n < want)
            return;
    }
}

HARNESS static void on_open(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    if (c != app.c) /* (connected keeps what was written in SYN-SENT) */
        app = (struct app){.c = c};
    if (w->hold)
        tcp_set_manual_window(c, true);
}

HARNESS static void on_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    /* tcp_deliver moved rcv_nxt past p first. (memcmp, not
     * snap_bytes_equal's byte loop, three times slower under ASan:
     * libFuzzer's hook takes only unequal bytes, and those abort.) */
    uint32_t off = c->rcv_nxt - p->len - c->irs - 1u;
    if (c != app.c || off != app.delivered || memcmp(p->data, pat + (off & PAT_MASK), p->len) != 0)
        abort(); /* not the peer's stream in order, or twice */
    app.delivered += p->len;
    if (c->flags & TCP_CF_MANUAL_WND)
        app.held += p->len;
    pkt_free(p);
}

HARNESS static void on_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    if (c == app.c)
        app_write_pending(c, now_ns);
}

HARNESS static void on_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    if (c == app.c)
        app.c = NULL;
}

static const struct tcp_callbacks cb = {
    .accepted = on_open, .connected = on_open, .recv = on_recv, .acked = on_acked, .closed = on_closed};

/* ---- The peer ---- */

/* A window field of class win >> 6 (the input's format). */
HARNESS static uint16_t window_class(uint8_t win, const struct tcp_conn *c)
{
    uint32_t v = win & 63u, shift = c && c->state >= TCP_ESTABLISHED ? c->snd_wscale : peer.wscale;
    switch (win >> 6) {
    case 0:
        return 0;
    case 1:
        return (uint16_t)v;
    case 2: {
        uint32_t f = ((v + 1u) << 11) >> shift;
        return (uint16_t)(f > 0xffff ? 0xffff : f);
    }
    default:
        return (uint16_t)(0xffff - v);
    }
}

HARNESS static uint32_t length_class(uint8_t len, uint32_t seg)
{
    uint32_t v = len & 63u;
    switch (len >> 6) {
    case 0:
        return v;
    case 1:
        return seg > v ? seg - v : 0;
    case 2:
        return 32 * v;
    default:
        return seg + 8 * v;
    }
}

/* Options as opt (the input's format) asks, as many as fit in 40 bytes;
 * returns their length, padded to a multiple of 4. */
HARNESS static uint32_t peer_options(uint8_t *o, uint8_t opt, uint8_t ts, const uint8_t *sack, const struct tcp_conn *c,
                             uint32_t seg)
{
    static const uint16_t mss[4] = {1460, 536, 64, 8960};
    static const uint8_t ws[4] = {7, 0, 14, 15};
    uint32_t n = 0, pick = opt >> 6;
    if (opt & 4) {
        o[n++] = TCP_OPT_MSS;
        o[n++] = TCP_OPT_MSS_LEN;
        put16(o + n, mss[pick]);
        n += 2;
    }
    if (opt & 8) {
        o[n++] = TCP_OPT_NOP;
        o[n++] = TCP_OPT_WS;
        o[n++] = TCP_OPT_WS_LEN;
        o[n++] = ws[pick];
        peer.wscale = ws[pick] > 14 ? 14 : ws[pick];
    }
    if (opt & 16) {
        o[n++] = TCP_OPT_NOP;
        o[n++] = TCP_OPT_NOP;
        o[n++] = TCP_OPT_SACK_PERM;
        o[n++] = TCP_OPT_SACK_PERM_LEN;
    }
    if ((opt & 1) && n + 12 <= TCP_MAX_OPT_LEN) {
        int32_t step = (int32_t)((uint32_t)(ts & 63u) << 26) >> 26; /* signed 6 bits */
        peer.tsval += (uint32_t)step << ((ts & 128) ? 24 : 0);
        n += tcp_opt_ts(o + n, peer.tsval, (ts & 64) ? peer.tsecr ^ 0x40000000u : peer.tsecr);
    }
    if ((opt & 2) && n + 12 <= TCP_MAX_OPT_LEN) {
        uint32_t una = c ? c->snd_una : 0, k = 1 + pick;
        uint32_t room = (TCP_MAX_OPT_LEN - n - 4) / 8;
        if (k > 3)
            k = 3;
        if (k > room)
            k = room;
        o[n++] = TCP_OPT_NOP;
        o[n++] = TCP_OPT_NOP;
        o[n++] = TCP_OPT_SACK;
        o[n++] = (uint8_t)(2 + 8 * k);
        for (uint32_t i = 0; i < k; i++) {
            uint32_t left = una + (uint32_t)(int8_t)sack[2 * i] * seg;
            uint32_t right = left + ((sack[2 * i + 1] & 15u) + 1u) * seg - (sack[2 * i + 1] >> 4) * 100u;
            put32(o + n, left);
            put32(o + n + 4, right);
            n += 8;
        }
    }
    if ((opt & 32) && n + 4 <= TCP_MAX_OPT_LEN) {
        memcpy(o + n, sack + 2, 4);
        n += 4;
    }
    while (n % 4)
        o[n++] = TCP_OPT_NOP;
    return n;
}

/* The TCP checksum of a segment from the peer: hl bytes of header at t,
 * len of the pattern from off (big-endian words, as fake_csum sums). */
HARNESS static uint16_t tcp_sum(const uint8_t *t, uint32_t hl, uint32_t off, uint32_t len)
{
    uint64_t sum = pat_sum[off + (len & ~1u)] - pat_sum[off];
    if (len & 1)
        sum += (uint32_t)pat[off + len - 1] << 8;
    for (uint32_t i = 0; i < hl; i += 2)
        sum += get16(t + i);
    const uint8_t *src = (const uint8_t *)&(uint32_t){FAKE_PEER}, *dst = (const uint8_t *)&(uint32_t){FAKE_ADDR0};
    sum += get16(src) + get16(src + 2) + get16(dst) + get16(dst + 2) + IP4_PROTO_TCP + hl + len;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* The peer's segment onto the wire, and into the stack. csum: 0 right, 1
 * wrong; nic: the NIC's verdict is given. */
HARNESS static void peer_send(uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win, const uint8_t *opts,
                              uint32_t optlen, uint32_t len, uint32_t stream_off, bool bad_csum, bool nic)
{
    struct fake_net *fn = &w->fn;
    struct pkt *p = pkt_alloc(&fn->pool);
    if (p == NULL)
        abort();
    uint8_t *f = p->data, *ip = f + ETH_HDR_LEN, *t = ip + IP4_HDR_LEN;
    uint32_t hl = TCP_HDR_LEN + optlen, room = PKT_DATA_ROOM - ETH_HDR_LEN - IP4_HDR_LEN - hl;
    if (len > room)
        len = room;
    /* Ethernet and IPv4 (DF) from the peer, written straight into the
     * buffer the stack gets (no frame built elsewhere and copied). */
    memcpy(f, fake_mac0, 6);
    memcpy(f + 6, fake_peer_mac, 6);
    put16(f + 12, ETH_TYPE_IP4);
    const uint32_t src = FAKE_PEER, dst = FAKE_ADDR0;
    put32(ip, 0x45000000u | (IP4_HDR_LEN + hl + len));
    put32(ip + 4, 0x00014000u);
    put32(ip + 8, 64u << 24 | IP4_PROTO_TCP << 16);
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < IP4_HDR_LEN; i += 2)
        sum += get16(ip + i);
    put16(ip + 10, ~(sum + (sum >> 16)) & 0xffffu); /* (20 bytes: one carry fold is enough) */
    put16(t, w->rport);
    put16(t + 2, w->lport);
    put32(t + 4, seq);
    put32(t + 8, ack);
    t[12] = (uint8_t)(hl / 4 << 4);
    t[13] = flags;
    put16(t + 14, win);
    put32(t + 16, 0);
    memcpy(t + TCP_HDR_LEN, opts, optlen);
    memcpy(t + hl, pat + (stream_off & PAT_MASK), len);
    put16(t + 16, tcp_sum(t, hl, stream_off & PAT_MASK, len));
    if (bad_csum)
        t[17] ^= 0x5a;
    p->len = (uint16_t)(ETH_HDR_LEN + IP4_HDR_LEN + hl + len);
    p->port = 0;
    p->flags = nic ? (bad_csum ? PKT_RX_L4_CSUM_BAD : PKT_RX_L4_CSUM_OK) : 0;
    peer.win = win;
    w->now_ns += 100000;
    net_input(fn->s, &p, 1, w->now_ns);
}

HARNESS static void peer_segment(const uint8_t *b)
{
    static const uint32_t seq_unit[4] = {1, 100, 0, 65536};
    struct tcp_conn *c = conn();
    uint32_t seg = c ? c->seg_size : 1448;
    uint32_t su = seq_unit[b[0] & 3] ? seq_unit[b[0] & 3] : seg;
    bool synced = c && c->state >= TCP_SYN_RECEIVED;
    uint32_t seq = (synced ? c->rcv_nxt : peer.isn) + (uint32_t)(int8_t)b[2] * su;
    uint32_t ack = (c ? ((b[0] & 4) ? c->snd_nxt : c->snd_una) : 0) + (uint32_t)(int8_t)b[3] * ((b[0] & 16) ? seg : 1);
    uint8_t flags = b[1], o[TCP_MAX_OPT_LEN + 4];
    uint32_t optlen = peer_options(o, b[5], b[7], b + 8, c, seg);
    bool opens = (flags & TCP_SYN) && (!synced || c->state == TCP_TIME_WAIT);
    if (opens)
        peer.isn = seq; /* a new incarnation's stream */
    /* The payload: the peer's stream from its ISN, after the SYN's number. */
    uint32_t off = seq + ((flags & TCP_SYN) ? 1u : 0u) - (synced && !opens ? c->irs : peer.isn) - 1u;
    peer_send(seq, ack, flags, window_class(b[4], c), o, optlen, length_class(b[6], seg), off, (b[0] & 0x60) == 0x60,
              (b[0] & 0x80) != 0);
}

/* The peer's plain ACK or in-order data, its timestamps right. */
HARNESS static void peer_simple(uint32_t len, uint16_t win, bool all)
{
    struct tcp_conn *c = conn();
    if (c == NULL || c->state < TCP_SYN_RECEIVED)
        return;
    uint8_t o[12];
    uint32_t optlen = 0;
    if (c->flags & TCP_CF_TS)
        optlen = tcp_opt_ts(o, ++peer.tsval, peer.tsecr);
    peer_send(c->rcv_nxt, all ? c->snd_nxt : c->snd_una, TCP_ACK | (len ? TCP_PSH : 0), win, o, optlen, len,
              c->rcv_nxt - c->irs - 1u, false, true);
}

/* ---- The application's operations ---- */

HARNESS static void app_op(uint8_t op, uint8_t n)
{
    struct tcp_conn *c = app.c;
    uint64_t now = w->now_ns;
    switch (op) {
    case 9:
        app.pending += (n + 1u) * 256u;
        if (c)
            app_write_pending(c, now);
        break;
    case 10:
        if (c && ((n & 1) || c->state == TCP_SYN_SENT)) {
            app.c = NULL; /* no closed callback after an abort (tcp_close's in SYN-SENT) */
            tcp_abort(c, now);
        } else if (c) {
            tcp_close(c, now);
        }
        break;
    case 11:
        if (c == NULL)
            break;
        if (n >= 128) {
            tcp_set_manual_window(c, true);
        } else {
            uint32_t give = n ? n * 512u : app.held;
            if (give > app.held)
                give = app.held;
            app.held -= give;
            tcp_recved(c, give, now);
            if (n == 0 && app.c == c) {
                tcp_set_manual_window(c, false);
                app.held = 0;
            }
        }
        break;
    case 14:
        if (c)
            tcp_set_keepalive(c, n ? n * SEC / 4 : 0, (1u + n % 4) * SEC, (uint8_t)(1 + n % 4));
        break;
    case 15:
        if (c) {
            tcp_set_cc(c, (n & 1) ? TCP_CC_NEWRENO : TCP_CC_CUBIC);
            tcp_set_nagle(c, (n & 2) != 0);
            tcp_set_send_timeout(c, (uint64_t)(n >> 2) * SEC);
        }
        break;
    }
}

/* ---- Checks ---- */

/* What we sent: our stream's bytes at their sequence numbers, within the
 * MTU and the peer's MSS; the latest TSval for the peer to echo. True
 * when an ARP request was among it. */
HARNESS static bool check_sent(void)
{
    bool arp = false;
    struct fake_netdev *nd = &w->fn.nd[0];
    struct tcp_conn *c = conn();
    for (uint32_t i = 0; i < nd->nsent; i++) {
        const struct pkt *p = nd->sent[i];
        const uint8_t *f = p->data, *ip = f + ETH_HDR_LEN;
        arp |= p->len >= ETH_HDR_LEN && get16(f + 12) == ETH_TYPE_ARP;
        if (p->len < ETH_HDR_LEN + IP4_HDR_LEN + TCP_HDR_LEN || get16(f + 12) != ETH_TYPE_IP4 || ip[9] != IP4_PROTO_TCP)
            continue;
        uint32_t ihl = (ip[0] & 15u) * 4, tot = get16(ip + 2);
        const uint8_t *t = ip + ihl;
        uint32_t hl = (t[12] >> 4) * 4u, seq = get32(t + 4);
        if (tot > 1500 || tot < ihl + hl || (PKT_F_CHAIN & p->flags))
            abort();
        uint32_t len = tot - ihl - hl;
        for (uint32_t k = TCP_HDR_LEN; k < hl;) {
            uint8_t kind = t[k];
            if (kind == TCP_OPT_EOL)
                break;
            if (kind == TCP_OPT_NOP) {
                k++;
                continue;
            }
            if (kind == TCP_OPT_TS && k + TCP_OPT_TS_LEN <= hl)
                peer.tsecr = get32(t + k + 2);
            k += t[k + 1] ? t[k + 1] : hl;
        }
        if (len == 0 || c == NULL || get16(t) != w->lport || get16(t + 2) != w->rport)
            continue;
        uint32_t mss = c->mss > c->mss_probe ? c->mss : c->mss_probe;
        /* (options and payload within the MSS: RFC 6691) */
        if (SEQ_GT(seq + len, c->snd_end) || len + hl - TCP_HDR_LEN > mss ||
            memcmp(t + hl, pat + ((seq - c->iss - 1u) & PAT_MASK), len) != 0)
            abort();
    }
    return arp;
}

/* Our segments out and checked. An ARP request (the peer's entry went
 * stale while time moved) is answered, and what waited on it checked. */
HARNESS static void flush_and_check(void)
{
    for (int round = 0; round < 2; round++) {
        net_flush(w->fn.s);
        bool arp = check_sent();
        fake_netdev_clear(&w->fn.nd[0]);
        if (!arp)
            return;
        uint8_t f[64];
        size_t n = fake_eth(f, fake_mac0, fake_peer_mac, ETH_TYPE_ARP);
        n += fake_arp(f + n, ARP_OP_REPLY, fake_peer_mac, FAKE_PEER, fake_mac0, FAKE_ADDR0);
        struct pkt *p = fake_net_rx(&w->fn, 0, f, n);
        if (p == NULL)
            abort();
        net_input(w->fn.s, &p, 1, w->now_ns);
    }
}

/* The one connection's invariants, and the application's streams. */
HARNESS static void check_conn(void)
{
    struct tcp_conn *c = conn();
    if (c == NULL || !tcp_synchronized(c->state) || c->state == TCP_TIME_WAIT)
        return;
    uint32_t fin = (c->flags & TCP_CF_FIN_SENT) ? 1 : 0;
    if (SEQ_GT(c->snd_nxt, c->snd_end + fin) || SEQ_LT(c->snd_una, c->iss + 1))
        abort();
    uint32_t start = SEQ_GT(c->snd_una, c->iss + 1) ? c->snd_una : c->iss + 1;
    if (c->snd_queued != (SEQ_GT(c->snd_end, start) ? c->snd_end - start : 0))
        abort();
    if (c->sq_n) {
        const struct tcp_seg *sg = tcp_sq_at(c, 0);
        if (SEQ_GT(sg->seq, c->snd_una) || SEQ_LEQ(sg->seq + sg->len, c->snd_una))
            abort(); /* what is acknowledged is freed, nothing more */
    }
    /* (without marks the flight is snd_nxt - snd_una by definition: the
     * stack's own code, instrumented, only where there is a sum to check) */
    if ((c->nmarked || (c->flags & TCP_CF_FIN_LOST)) && tcp_pipe(c) > c->snd_nxt - c->snd_una)
        abort();
    /* What became in order was delivered (what a peer sent past its own
     * FIN stays queued, never delivered, until the end). */
    if (c->ooo && SEQ_LEQ(c->ooo->user, c->rcv_nxt) && !(c->flags & TCP_CF_PEER_FIN))
        abort();
    if (c == app.c) {
        uint32_t peer_fin = (c->flags & TCP_CF_PEER_FIN) ? 1 : 0;
        if (app.written != c->snd_end - c->iss - 1u || app.delivered != c->rcv_nxt - c->irs - 1u - peer_fin)
            abort();
        if ((c->flags & TCP_CF_MANUAL_WND) && c->rcv_held != app.held)
            abort();
    }
}

/* One line a operation, to follow an input (FUZZ_TCP_CONN_TRACE). */
HARNESS static void trace_op(uint8_t op)
{
    struct tcp_conn *c = conn();
    fprintf(stderr, "op %2u t=%.4fs", op, (double)(w->now_ns - 1000 * SEC) / 1e9);
    if (c)
        fprintf(stderr, " %s iss %x una+%u nxt+%u end+%u cwnd %u ssthresh %u wnd %u marked %u flags %x rcv+%u rwnd %u",
                tcp_state_name(c->state), c->iss, c->snd_una - c->iss - 1, c->snd_nxt - c->iss - 1, c->snd_end - c->iss - 1,
                c->cwnd, c->ssthresh, c->snd_wnd, c->nmarked, c->flags, c->rcv_nxt - c->irs - 1, tcp_rcv_window(c));
    fprintf(stderr, "\n");
}

/* ---- Setup ---- */

HARNESS static void world_input(struct world *x, uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *opts, uint32_t optlen)
{
    w = x;
    peer_send(seq, ack, flags, 0xffff, opts, optlen, 0, 0, false, false);
    flush_and_check();
}

/* A passive open from the peer with opts in its SYN, to ESTABLISHED. */
HARNESS static void handshake(struct world *x, const uint8_t *opts, uint32_t optlen)
{
    world_input(x, PEER_ISN, 0, TCP_SYN, opts, optlen);
    struct tcp_conn *c = conn();
    uint8_t ts[12];
    uint32_t tslen = (c->flags & TCP_CF_TS) ? tcp_opt_ts(ts, PEER_TSVAL + 1, peer.tsecr) : 0;
    world_input(x, PEER_ISN + 1, c->iss + 1, TCP_ACK, ts, tslen);
    if (conn()->state != TCP_ESTABLISHED)
        abort();
}

HARNESS static void world_init(struct world *x, int start)
{
    static const uint8_t full[] = {TCP_OPT_MSS, 4, 0x05, 0xb4, TCP_OPT_NOP, TCP_OPT_WS, 3, 7,
                                   TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_SACK_PERM, 2,
                                   TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, 10, 0, 0, 0x13, 0x88, 0, 0, 0, 0};
    static const uint8_t mss1000[] = {TCP_OPT_MSS, 4, 0x03, 0xe8};
    struct fake_net *fn = &x->fn;
    w = x;
    fake_net_init(fn, 512);
    /* One port (the second's state would be snapshot for nothing), whose
     * NIC sums what we send (no checksum loop a segment). */
    net_stack_init(fn->s, &fn->pool, 0);
    fn->nd[0].dev.offloads = NETDEV_OFF_TX_CSUM;
    net_iface_add(fn->s, &fn->nd[0].dev, 0, FAKE_ADDR0, 24);
    net_poll(fn->s, fn->now_ns);
    fn->now_ns = x->now_ns = 1000 * SEC;
    struct tcp_config cfg;
    tcp_config_default(&cfg);
    /* Flights of 11 segments (22 once the buffer grows): enough to lose
     * some and recover, few to send, free and check (the most of the
     * time an input takes). */
    cfg.sq_slots = 16;
    cfg.sq_large = 2;
    cfg.sndbuf = 16 << 10;
    cfg.sndbuf_max = 32 << 10;
    cfg.rcvbuf = 16 << 10;
    cfg.rcvbuf_max = 32 << 10;
    cfg.ooo_max = 8;
    cfg.backlog = 2;
    size_t bytes = tcp_arena_size(&cfg, NCONNS);
    x->arena = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (x->arena == NULL || tcp_init(fn->s, &x->tcp, x->arena, bytes, &cfg) != NCONNS)
        abort();
    tcp_listen(fn->s, 80, &cb, NULL);
    fake_net_learn_peer(fn);
    x->lport = 80;
    x->rport = PEER_PORT;
    x->hold = start == 3;
    peer = (struct peer){.isn = PEER_ISN, .tsval = PEER_TSVAL, .wscale = 7};
    switch (start) {
    case 0:
    case 3:
        handshake(x, full, sizeof(full));
        break;
    case 1:
        handshake(x, mss1000, sizeof(mss1000));
        break;
    case 2:
        x->lport = OUR_ACTIVE_PORT;
        x->rport = PEER_ACTIVE_PORT;
        app.c = tcp_connect_from(fn->s, OUR_ACTIVE_PORT, FAKE_PEER, PEER_ACTIVE_PORT, &cb, NULL, x->now_ns);
        flush_and_check();
        break;
    }
    x->tsecr = peer.tsecr;
    x->base = fn->s->ctr;
    if (!fake_net_all_free(fn))
        abort();
    /* The stack but its reassembly table: no fragment ever comes here. */
    snap_add(&x->snap, fn->s, offsetof(struct net_stack, iface) + sizeof(fn->s->iface[0]));
    snap_add_pool(&x->snap, &fn->pool);
    snap_add(&x->snap, &x->tcp, sizeof x->tcp);
    snap_add(&x->snap, x->arena, bytes);
}

HARNESS static void print_reach(void) { tcp_reach_print("fuzz_tcp_conn"); }

HARNESS static void setup(void)
{
    for (uint32_t i = 0; i < sizeof(pat); i++) {
        uint32_t k = i & PAT_MASK;
        pat[i] = (uint8_t)(k * 167u + (k >> 8) * 29u + (k >> 13));
    }
    for (uint32_t i = 0; i + 1 < sizeof(pat); i++)
        pat_sum[i + 2] = pat_sum[i] + get16(pat + i);
    for (int i = 0; i < NSTART; i++)
        world_init(&worlds[i], i);
    stats = getenv("FUZZ_TCP_CONN_STATS") != NULL;
    trace = getenv("FUZZ_TCP_CONN_TRACE") != NULL;
    if (stats)
        atexit(print_reach);
}

HARNESS int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (worlds[0].snap.n == 0)
        setup();
    if (size == 0)
        return 0;
    int start = data[0] % NSTART;
    w = &worlds[start];
    snap_restore(&w->snap);
    struct fake_net *fn = &w->fn;
    w->now_ns = fn->now_ns = 1000 * SEC;
    peer = (struct peer){.isn = PEER_ISN, .tsval = PEER_TSVAL + 1, .tsecr = w->tsecr, .win = 0xffff, .wscale = 7};
    app = (struct app){.c = conn()};
    data++;
    size--;
    while (size) {
        uint8_t op = data[0] & 15;
        size_t need = op < 8 ? SEG_OP_LEN : 2;
        if (size < need)
            break;
        if (op < 8) {
            peer_segment(data);
        } else if (op == 8) {
            /* TCP's timers alone: the rest of net_poll (ARP's, ND's)
             * is not what this target tests, and its walks cost. */
            w->now_ns += ((1ull + (data[1] & 15)) << (data[1] >> 4)) * MS;
            tcp_poll(&w->tcp, w->now_ns);
        } else if (op == 12) {
            peer_simple(0, window_class(data[1], conn()), true);
        } else if (op == 13) {
            struct tcp_conn *c = conn();
            peer_simple(length_class(data[1], c ? c->seg_size : 1448), peer.win, false);
        } else {
            app_op(op, data[1]);
        }
        data += need;
        size -= need;
        fn->now_ns = w->now_ns;
        flush_and_check();
        tcp_check_invariants(&w->tcp);
        check_conn();
        if (stats)
            tcp_reach_note(conn());
        if (trace)
            trace_op(op);
    }
    if (stats)
        tcp_reach_input_end(&fn->s->ctr, &w->base);
    tcp_release(&w->tcp);
    if (fn->s->arp_queued)
        net_stack_release(fn->s);
    net_flush(fn->s);
    fake_netdev_clear(&fn->nd[0]);
    if (fn->pool.nfree != fn->pool.total || w->tcp.nfree != NCONNS)
        abort();
    return 0;
}
