/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp_impl.h: what the files of TCP share and nothing else includes.
 *
 * tcp_conn.c   connections: arena, lookup, listeners, the API's open/close
 * tcp_input.c     segment input: checks, LISTEN, SYN-SENT, the state machine
 * tcp_receive.c    received data: trimming, out-of-order queue, SACK blocks
 * tcp_output.c    segment output, RST and ACK
 * tcp_send_queue.c     the send queue: tcp_send, tcp_write
 * tcp_sack.c   the sender's SACK scoreboard and loss marking (RFC 6675)
 * tcp_congestion.c     congestion control: NewReno and CUBIC
 * tcp_timer.c  the timer wheel, RTO (RFC 6298), persist, keepalive
 * tcp_options.c    option parsing and building
 * tcp_isn.c    SipHash, ISNs (RFC 6528)
 * tcp_syncookie.c  SYN cookies
 * tcp_rss.c    Toeplitz hash */
#ifndef NET_TCP_IMPL_H
#define NET_TCP_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/env.h"
#include "tcp.h"
#include "tcp_wire.h"
#include "core/wire.h"

/* Sequence arithmetic modulo 2^32 (RFC 9293 3.4). */
#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) SEQ_LT(b, a)
#define SEQ_GEQ(a, b) SEQ_LEQ(b, a)

#define TCP_DEFAULT_MSS 536             /* RFC 9293 3.7.1: no MSS option */
#define TCP_DEFAULT_MSS6 1220           /* the same over IPv6 (1280 - 60) */
#define TCP_LINK_RESERVE 64             /* headroom below TCP: IPv4, Ethernet, VLAN, driver */
#define TCP_LINK_RESERVE6 (TCP_LINK_RESERVE + 20) /* the same with IPv6's 40-byte header */
#define TCP_IW_SEGS 10                  /* RFC 6928 */
#define TCP_TICK_SHIFT 20               /* timer wheel and timestamp tick, ~1.05 ms */
#define TCP_EPHEMERAL_LO 49152u         /* RFC 6335 */
#define TCP_DUPTHRESH 3
#define TCP_SYNACK_MIN_RTO_NS 1000000000ull
#define TCP_TLP_SLACK_NS 2000000ull     /* a probe's 2 SRTT plus an ACK's slack (Linux's) */

/* A segment as parsed from the wire. */
struct tcp_opts {
    uint16_t mss;
    uint8_t wscale;
    uint8_t nsack;
    bool has_mss, has_ws, sack_ok, has_ts;
    uint32_t tsval, tsecr;
    uint32_t sack[TCP_SACK_MAX_BLOCKS][2];     /* [left, right) host order */
};

struct tcp_in {
    uint32_t src_be, dst_be;            /* IPv4; both 0 for IPv6 (tcp_in_is6) */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint32_t len;                       /* payload bytes */
    uint32_t wnd;                       /* raw window field */
    uint8_t flags;
    uint16_t port;                      /* input interface */
    struct pkt *p;                      /* the payload (p->data, p->len == len), or NULL */
    struct tcp_opts opt;
    uint8_t src6[16], dst6[16];         /* IPv6 */
};

/* An IPv6 segment: an IPv4 one always comes to one of our addresses,
 * never 0, so the family costs the IPv4 path no field to set. */
static inline bool tcp_in_is6(const struct tcp_in *seg) { return seg->dst_be == 0; }
static inline bool tcp_conn_is6(const struct tcp_conn *c) { return (c->flags & TCP_CF_IP6) != 0; }

/* tcp_options.c */
int tcp_opt_parse(const uint8_t *opt, uint32_t len, struct tcp_opts *o);
/* MSS, then SACK-permitted, timestamps and window scale (wscale < 0: none)
 * as asked; returns the bytes written (at most 20, a multiple of 4). */
uint32_t tcp_opt_syn(uint8_t *buf, uint16_t mss, bool sack, bool ts, int wscale, uint32_t tsval,
                     uint32_t tsecr);
/* NOP NOP TS: the 12 bytes on every segment of a connection with
 * timestamps (RFC 7323 appendix A). */
static inline uint32_t tcp_opt_ts(uint8_t *buf, uint32_t tsval, uint32_t tsecr)
{
    static const uint8_t head[4] = {TCP_OPT_NOP, TCP_OPT_NOP, TCP_OPT_TS, TCP_OPT_TS_LEN};
    uint32_t v = net_htonl(tsval), e = net_htonl(tsecr);
    net_memcpy(buf, head, 4);
    net_memcpy(buf + 4, &v, 4);
    net_memcpy(buf + 8, &e, 4);
    return TCP_TS_ALIGNED_LEN;
}
uint32_t tcp_opt_sack(uint8_t *buf, const uint32_t (*blocks)[2], uint32_t n);

/* tcp_isn.c */
uint64_t tcp_siphash(const uint64_t key[2], const void *data, uint32_t len);
uint32_t tcp_isn(const struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be, uint16_t lport,
                 uint16_t rport, uint64_t now_ns);
uint32_t tcp_ts_offset(const struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be);
uint32_t tcp_isn6(const struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr, uint16_t lport,
                  uint16_t rport, uint64_t now_ns);
uint32_t tcp_ts_offset6(const struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr);
static inline uint32_t tcp_ts_now(uint64_t now_ns) { return (uint32_t)(now_ns >> TCP_TICK_SHIFT); }
/* A time or duration in units of 1024 ns, wrapping every 73 minutes:
 * when send queue slots went out (RACK's order, RFC 8985 6.2). */
static inline uint32_t tcp_clock(uint64_t ns) { return (uint32_t)(ns >> 10); }
/* The stamp of a send: tcp_clock, but later than every earlier one of
 * c's, so that "sent after" is exact even among sends in the same
 * microsecond (the slots of one TSO frame share one, in sequence order). */
static inline uint32_t tcp_sent_stamp(struct tcp_conn *c, uint64_t now_ns)
{
    uint32_t t = tcp_clock(now_ns), next = c->sent_last_t + 1u;
    t = (uint32_t)(next - t) - 1u < (1u << 20) ? next : t; /* behind by under ~1 s: not a wrap after idling */
    c->sent_last_t = t;
    return t;
}

/* tcp_syncookie.c */
/* The ISS that encodes seg's options; *mss_out: the MSS our SYN-ACK offers. */
uint32_t tcp_cookie_make(const struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns,
                         uint16_t *mss_out);
/* True when ack - 1 is a cookie we made for seg's tuple lately; fills the
 * options it encoded. */
bool tcp_cookie_check(const struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns,
                      struct tcp_opts *syn);

/* tcp_conn.c */
/* The hash chain of a 4-tuple: multiply-shift hashing (Dietzfelbinger et
 * al.) under tcp_init's random keys, so that nobody can aim many
 * connections at one chain. */
static inline uint32_t tcp_conn_bucket(const struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be,
                                       uint16_t lport, uint16_t rport)
{
    uint64_t x = ((uint64_t)raddr_be << 32 | (uint32_t)rport << 16 | lport) + (uint64_t)laddr_be * t->hash_key;
    return (uint32_t)((x * t->hash_mul) >> t->hash_shift);
}
static inline __attribute__((always_inline)) struct tcp_conn *tcp_conn_lookup(struct tcp_stack *t, uint32_t laddr_be,
                                                                              uint32_t raddr_be, uint16_t lport,
                                                                              uint16_t rport)
{
    struct tcp_conn *c = t->hash[tcp_conn_bucket(t, laddr_be, raddr_be, lport, rport)];
    for (; c; c = c->hnext)
        if (c->lport == lport && c->rport == rport && c->raddr_be == raddr_be && c->laddr_be == laddr_be)
            return c;
    return NULL;
}
/* The same for IPv6: a multilinear hash (Lemire and Kaser, 2016) of the
 * nine 32-bit words of the tuple under random 64-bit keys, top bits. IPv6
 * connections share the table; their laddr_be of 0 keeps the IPv4 lookup
 * from matching them. */
static inline uint32_t tcp_conn_bucket6(const struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr,
                                        uint16_t lport, uint16_t rport)
{
    const uint64_t *k = t->hash6_key;
    uint64_t x = k[0] + ((uint64_t)rport << 16 | lport) * k[1];
    for (int i = 0; i < 4; i++) {
        uint32_t a, b;
        net_memcpy(&a, laddr + 4 * i, 4);
        net_memcpy(&b, raddr + 4 * i, 4);
        x += a * k[2 + i] + b * k[6 + i];
    }
    return (uint32_t)(x >> t->hash_shift);
}
static inline struct tcp_conn *tcp_conn_lookup6(struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr,
                                                uint16_t lport, uint16_t rport)
{
    struct tcp_conn *c = t->hash[tcp_conn_bucket6(t, laddr, raddr, lport, rport)];
    for (; c; c = c->hnext)
        if (c->lport == lport && c->rport == rport && (c->flags & TCP_CF_IP6) && net_memcmp(c->raddr6, raddr, 16) == 0 &&
            net_memcmp(c->laddr6, laddr, 16) == 0)
            return c;
    return NULL;
}
struct tcp_listener *tcp_listener_find(struct tcp_stack *t, uint16_t port);
/* A connection in the hash, from the free list, else reusing a TIME-WAIT
 * one, else (evict_half_open) a SYN-RECEIVED one; NULL (counted) if none. */
struct tcp_conn *tcp_conn_alloc(struct tcp_stack *t, uint32_t laddr_be, uint32_t raddr_be,
                                uint16_t lport, uint16_t rport, bool evict_half_open, uint64_t now_ns);
/* The same over IPv6; port: where a link-local peer is. */
struct tcp_conn *tcp_conn_alloc6(struct tcp_stack *t, const uint8_t *laddr, const uint8_t *raddr, uint16_t lport,
                                 uint16_t rport, uint16_t port, bool evict_half_open, uint64_t now_ns);
void tcp_conn_free(struct tcp_conn *c);
/* The end for the application: closed callback (once), then free unless busy. */
void tcp_conn_close(struct tcp_conn *c, int reason, uint64_t now_ns);
/* Enter TIME-WAIT: buffers freed, closed callback, timer armed. */
void tcp_enter_time_wait(struct tcp_conn *c, uint64_t now_ns);
/* TIME-WAIT's 2 MSL from now (again: the peer's FIN again), last in line for reuse. */
void tcp_time_wait_restart(struct tcp_conn *c, uint64_t now_ns);
/* Sizes from the MSS and options agreed. */
void tcp_conn_set_mss(struct tcp_conn *c, uint16_t peer_mss);
/* tcp_icmp.c: c's timeouts in a row have reached TCP_BLACKHOLE_RTOS; its
 * segments come down to a size every path carries when it is their size
 * that may be dropped. */
#define TCP_BLACKHOLE_RTOS 3 /* Linux's tcp_retries1 */
void tcp_pmtu_blackhole(struct tcp_conn *c, uint64_t now_ns);
/* pmtu_probe_at has come: the size before the cut, again. */
void tcp_pmtu_probe(struct tcp_conn *c);
uint16_t tcp_our_mss(struct tcp_stack *t, uint32_t raddr_be);
/* IPv6: the MTU towards raddr less 60 bytes of headers. */
uint16_t tcp_our_mss6(struct tcp_stack *t, const uint8_t *raddr);
static inline uint16_t tcp_conn_our_mss(struct tcp_conn *c)
{
    return tcp_conn_is6(c) ? tcp_our_mss6(c->t, c->raddr6) : tcp_our_mss(c->t, c->raddr_be);
}

/* tcp_open.c */
/* A segment no connection has: for a listener (SYN, a SYN cookie's ACK),
 * else RST (RFC 9293 3.10.7.1-2). */
void tcp_listen_input(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns);
void tcp_syn_sent_input(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns);
/* The handshake is done: congestion control starts, timers reset. */
void tcp_established(struct tcp_conn *c, uint64_t now_ns);
/* tcp_input.c: seg once more, after the listener made its connection. */
void tcp_input_again(struct tcp_stack *t, struct tcp_in *seg, uint64_t now_ns);

/* tcp_receive.c */
/* In-window data (and FIN) of an acceptable segment; takes seg->p. */
void tcp_rcv_data(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns);
/* What the receive window may grow to (tcp_rcv_tune). */
static inline uint32_t tcp_cfg_rcv_max(const struct tcp_config *cfg)
{
    return cfg->rcvbuf_max > cfg->rcvbuf ? cfg->rcvbuf_max : cfg->rcvbuf;
}
/* tcp_send_queue.c: autotuning grows no buffer while the core's pool is half used. */
bool tcp_pool_roomy(const struct tcp_stack *t);
/* The window shift that lets the field say max (RFC 7323 2.3). */
static inline uint8_t tcp_wscale_for(uint32_t max)
{
    uint8_t ws = 0;
    while (ws < TCP_WS_MAX && (max >> ws) > 0xffff)
        ws++;
    return ws;
}
static inline uint32_t tcp_rcv_window(const struct tcp_conn *c)
{
    return c->rcv_held < c->rcv_buf ? c->rcv_buf - c->rcv_held : 0;
}
/* The least the advertised right edge moves by (RFC 9293 3.8.6.2.2:
 * min(RCV.BUFF / 2, Eff.snd.MSS)): smaller openings are withheld. */
static inline uint32_t tcp_rcv_step(const struct tcp_conn *c)
{
    return c->rcv_buf / 2 < c->seg_size ? c->rcv_buf / 2 : c->seg_size;
}
uint32_t tcp_sack_blocks(const struct tcp_conn *c, uint32_t (*blocks)[2], uint32_t max);
void tcp_ooo_free(struct tcp_conn *c);

/* tcp_header_template.c */
/* Fill c's header template for its next hop, cached for a second; false
 * while the next hop is not resolved (ARP, neighbour discovery) or there
 * is no route: such segments take ip4_output / ip6_output, which queue. */
bool tcp_route_fill(struct tcp_conn *c, uint64_t now_ns);

/* tcp_output.c */
void tcp_output(struct tcp_conn *c, uint64_t now_ns);
int tcp_send_syn(struct tcp_conn *c, uint64_t now_ns);
void tcp_send_ack(struct tcp_conn *c, uint64_t now_ns);
void tcp_send_probe(struct tcp_conn *c, uint64_t now_ns);
void tcp_send_rst(struct tcp_conn *c, uint64_t now_ns);
/* RST answering seg (no connection for it), RFC 9293 3.10.7.1. */
void tcp_reply_rst(struct tcp_stack *t, const struct tcp_in *seg, uint64_t now_ns);
/* SYN-ACK for a SYN cookie: no connection state. */
void tcp_send_cookie_synack(struct tcp_stack *t, const struct tcp_in *seg, uint32_t iss,
                            uint16_t mss, uint64_t now_ns);
void tcp_sq_free(struct tcp_conn *c);
/* An empty queue in a large ring goes back to the core's (tcp_send_queue.c). */
void tcp_sq_shrink(struct tcp_conn *c);
/* Retransmit the first unacknowledged slot now. */
void tcp_retransmit_first(struct tcp_conn *c, uint64_t now_ns);
/* A segment went again: the stack's count and the connection's. */
void tcp_count_retransmit(struct tcp_conn *c, uint32_t from, uint32_t to); /* what went again */
/* The tail loss probe (RFC 8985 7.3): one new segment if the peer's
 * window takes it, else the last segment sent (and the FIN) again. */
void tcp_send_tlp(struct tcp_conn *c, uint64_t now_ns);
static inline struct tcp_seg *tcp_sq_at(struct tcp_conn *c, uint32_t i)
{
    uint32_t k = c->sq_head + i;
    return &c->sq[k >= c->sq_cap ? k - c->sq_cap : k];
}

/* Slots sent so far: those before sq_nxt, and the one holding snd_nxt when
 * part of it went out. */
static inline uint32_t tcp_sent_slots(struct tcp_conn *c)
{
    uint32_t n = c->sq_nxt;
    if (n < c->sq_n && SEQ_LT(tcp_sq_at(c, n)->seq, c->snd_nxt))
        n++;
    return n;
}

/* tcp_sack.c */
/* The SACK blocks of an ACK for ack onto the scoreboard; returns the
 * slots newly SACKed (and notes the latest sent of them for RACK). */
uint32_t tcp_sack_update(struct tcp_conn *c, const struct tcp_opts *o, uint32_t ack);
/* Before a cumulative ACK up to ack frees them: the slots it delivers
 * that no SACK did, noted for RACK as well (RFC 8985 6.2 step 2). */
void tcp_rack_acked(struct tcp_conn *c, uint32_t ack);
/* RACK (RFC 8985 6.2): slots sent before the latest SACKed, by more than
 * the reordering window (expired: the reordering timer fired, by any
 * time), marked lost (a retransmission: to be sent again); the others
 * inside the window arm the reordering timer. Returns the slots marked. */
uint32_t tcp_rack_detect(struct tcp_conn *c, bool expired, uint64_t now_ns);
/* A D-SACK in o (RFC 2883 4: the first block, below ack or inside the
 * second): RACK's window widens, and when it reports the last of a
 * recovery's retransmissions, the recovery is undone (tcp_cc_undo). */
void tcp_dsack_input(struct tcp_conn *c, const struct tcp_opts *o, uint32_t ack);
/* The path has reordered: with SACK, RACK's window alone says what is
 * lost, DupThresh no longer (RFC 8985 6.2; Linux does the same); not
 * before an RTT sample gives the window a size. */
static inline bool tcp_rack_only(const struct tcp_conn *c)
{
    return c->rack_reord && (c->flags & TCP_CF_SACK) && c->min_rtt_t != UINT32_MAX;
}
void tcp_sack_mark_lost(struct tcp_conn *c);
bool tcp_sack_first_lost(struct tcp_conn *c);
uint32_t tcp_pipe(struct tcp_conn *c);
/* An episode begins that tcp_dsack_input may undo: the retransmissions
 * still out count for it too (a copy that repaired a loss before is not
 * needless now; Linux counts its retrans_out alike). */
void tcp_undo_arm(struct tcp_conn *c);
/* A retransmission of [from, to), for the episode's count. */
void tcp_undo_note(struct tcp_conn *c, uint32_t from, uint32_t to);
/* The episode's reduction was needless: undone (tcp_cc_undo), recovery
 * over, and the path counts as reordering. */
void tcp_undo(struct tcp_conn *c);
void tcp_marks_clear(struct tcp_conn *c);
/* A timeout: every slot sent is lost, SACK information dropped (RFC 6675 5.1). */
void tcp_mark_all_lost(struct tcp_conn *c);
/* The path narrowed: every slot sent, not SACKed and longer than size is
 * lost (and not yet sent again). True when there was one. */
bool tcp_sack_mark_oversize(struct tcp_conn *c, uint32_t size);

/* tcp_congestion.c */
void tcp_cc_init(struct tcp_conn *c);
void tcp_cc_ack(struct tcp_conn *c, uint32_t acked, uint64_t now_ns);
/* An ACK of a flight the window did not limit, in congestion avoidance. */
void tcp_cc_app_limited(struct tcp_conn *c, uint64_t now_ns);
/* The window was what held the sender back, with flight bytes out when an
 * ACK came: only then may it grow (RFC 9438 5.8, RFC 7661; Linux's
 * tcp_is_cwnd_limited). A request-response flow leaves it as it is. In
 * slow start half a window out is enough, as the window doubles. */
static inline bool tcp_cwnd_limited(const struct tcp_conn *c, uint32_t flight)
{
    return c->cwnd < c->ssthresh ? 2 * flight >= c->cwnd : flight + c->seg_size > c->cwnd;
}
void tcp_cc_loss(struct tcp_conn *c, uint64_t now_ns);
/* tcp_sack.c: fast recovery begins (RFC 6675 5 step 4, RFC 6582 3.2 step 2). */
void tcp_enter_recovery(struct tcp_conn *c, uint64_t now_ns);
/* RACK marked slots lost: recovery, unless one is on or RFC 6582's
 * recover point says these belong to the last. */
void tcp_rack_lost(struct tcp_conn *c, uint64_t now_ns);
void tcp_cc_rto(struct tcp_conn *c, uint64_t now_ns);
/* The reduction of tcp_cc_loss was needless: the window and threshold of
 * before come back (RFC 3708 5's response, as Linux's undo does). */
void tcp_cc_undo(struct tcp_conn *c);
void tcp_cc_recovery_end(struct tcp_conn *c, uint64_t now_ns);

/* tcp_timer.c */
/* Put c on the wheel slot of its earliest deadline (want; 0: off the
 * wheel). */
void tcp_timer_move(struct tcp_conn *c, uint64_t want);
/* After any deadline changed: a deadline that moved later leaves c where
 * it is (tcp_poll finds nothing due and puts it back), so the usual case,
 * the RTO restarted by an ACK, costs a few compares. */
static inline uint64_t tcp_timer_earliest(const struct tcp_conn *c)
{
    /* d - 1 makes "off" (0) the largest: one compare per deadline. */
    uint64_t w = c->rto_at, d = c->delack_at;
    if (d - 1 < w - 1)
        w = d;
    if ((c->flags & TCP_CF_KEEPALIVE) && c->ka_at - 1 < w - 1)
        w = c->ka_at;
    return w;
}
static inline void tcp_timer_update(struct tcp_conn *c)
{
    uint64_t want = tcp_timer_earliest(c);
    if (c->timer_at - 1 < want) /* on the wheel, due no later than want */
        return;
    tcp_timer_move(c, want);
}
void tcp_timer_remove(struct tcp_conn *c);
static inline void tcp_rto_arm(struct tcp_conn *c, uint64_t now_ns)
{
    c->rto_at = now_ns + c->rto_ns;
    c->flags &= ~(uint32_t)(TCP_CF_PTO | TCP_CF_REO);
}
/* RACK's reordering timer (RFC 8985 6.3): rto_at, when sooner. */
static inline void tcp_reo_timer_arm(struct tcp_conn *c, uint64_t now_ns, uint64_t wait_ns)
{
    if (!(c->flags & TCP_CF_PERSIST) && (c->rto_at == 0 || now_ns + wait_ns < c->rto_at)) {
        c->rto_at = now_ns + wait_ns;
        c->flags = (c->flags & ~(uint32_t)TCP_CF_PTO) | TCP_CF_REO;
    }
}
/* With data out: the retransmission timer, or the tail loss probe's (RFC
 * 8985 7.2: 2 SRTT, never later than the RTO) when SACK is on, more than
 * a segment is out, nothing is taken for lost and no probe is out. With
 * one segment out RFC 8985 adds the peer's delayed ACK (200 ms), which
 * leaves the probe hardly sooner than the RTO: that case keeps the RTO
 * (and request-response traffic pays one compare). tcp_pto_arm: the
 * probe's deadline alone, when sooner (a second segment joined the one
 * the RTO was armed for). */
static inline void tcp_pto_arm(struct tcp_conn *c, uint64_t now_ns)
{
    if (c->snd_nxt - c->snd_una <= c->seg_size ||
        (c->flags & (TCP_CF_SACK | TCP_CF_IN_RECOVERY | TCP_CF_TLP)) != TCP_CF_SACK || c->nmarked || !c->srtt_ns)
        return;
    uint64_t at = now_ns + 2 * c->srtt_ns + TCP_TLP_SLACK_NS;
    if (at < c->rto_at) {
        c->rto_at = at;
        c->flags |= TCP_CF_PTO;
    }
}
static inline void tcp_loss_timer_arm(struct tcp_conn *c, uint64_t now_ns)
{
    tcp_rto_arm(c, now_ns);
    tcp_pto_arm(c, now_ns);
}
static inline void tcp_rto_stop(struct tcp_conn *c)
{
    c->rto_at = 0;
    c->flags &= ~(uint32_t)(TCP_CF_PERSIST | TCP_CF_PTO | TCP_CF_REO);
}
static inline void tcp_delack_arm(struct tcp_conn *c, uint64_t now_ns)
{
    if (c->delack_at == 0)
        c->delack_at = now_ns + c->t->cfg.delack_ns;
}
void tcp_keepalive_touch(struct tcp_conn *c, uint64_t now_ns);
uint64_t tcp_rto_backed_off(const struct tcp_conn *c);

static inline bool tcp_synchronized(uint8_t state) { return state >= TCP_ESTABLISHED; }

/* States in which queued data may go out. */
static inline bool tcp_can_send_data(uint8_t state)
{
    return state == TCP_ESTABLISHED || state == TCP_CLOSE_WAIT || state == TCP_FIN_WAIT_1 ||
           state == TCP_CLOSING || state == TCP_LAST_ACK;
}

/* Hand p (p->len bytes at rcv_nxt) to the application. */
static inline void tcp_deliver(struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    c->rcv_nxt += p->len;
    p->next = NULL;
    p->flags = 0;
    if ((c->flags & TCP_CF_APP_CLOSED) || c->cb == NULL || c->cb->recv == NULL) {
        pkt_free(p);
        return;
    }
    if (c->flags & TCP_CF_MANUAL_WND)
        c->rcv_held += p->len;
    c->cb->recv(c->ctx, c, p, now_ns);
}

/* tcp_receive.c: a round trip since the last look: the receive window may grow. */
void tcp_rcv_tune(struct tcp_conn *c, uint64_t now_ns);

/* In-order data came: an ACK at least every second full segment (RFC
 * 5681 4.2), else soon; where one is due, a look at the window's size. */
static inline void tcp_rcv_ack_due(struct tcp_conn *c, uint64_t now_ns)
{
    if (++c->delack_segs < 2) {
        tcp_delack_arm(c, now_ns);
        return;
    }
    c->flags |= TCP_CF_ACK_NOW;
    if (c->rcv_buf < c->rcv_max && now_ns - c->rcv_tune_ns >= c->srtt_ns)
        tcp_rcv_tune(c, now_ns);
}

/* seg's data is next in sequence, fits the window, nothing is out of
 * order (the header-prediction case): delivered and acknowledged; takes
 * seg->p. */
static inline void tcp_rcv_in_order(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns)
{
    struct pkt *p = seg->p;
    seg->p = NULL;
    tcp_deliver(c, p, now_ns);
    if (c->flags & TCP_CF_DEAD)
        return;
    tcp_rcv_ack_due(c, now_ns);
}

/* tcp_receive.c: [seq, seq + len) came again; the next ACK says so first in
 * its SACK blocks (D-SACK, RFC 2883), so the sender can tell a needless
 * resend (a tail loss probe, a spurious timeout) from a repair. */
void tcp_dsack_note(struct tcp_conn *c, uint32_t seq, uint32_t len);

/* tcp_wait.c */
/* The pool is down to the receive reserve: c waits for acked(0)
 * (tcp_wake) instead of queueing more (tcp-buf-wait). */
bool tcp_buf_wait(struct tcp_conn *c);
/* c's port refused its data: c waits for tcp_wake (tcp-tx-wait). */
void tcp_tx_wait(struct tcp_conn *c);
/* c is freed: no longer counted as waiting. */
void tcp_wait_forget(struct tcp_conn *c);

/* Release the BUSY hold: output what is pending, free if it died. */
static inline void tcp_conn_unbusy(struct tcp_conn *c, uint64_t now_ns)
{
    c->flags &= ~(uint32_t)TCP_CF_BUSY;
    if (c->flags & TCP_CF_DEAD) {
        tcp_conn_free(c);
        return;
    }
    if (c->state != TCP_CLOSED)
        tcp_output(c, now_ns);
    tcp_timer_update(c);
}

static inline void tcp_sq_slot_free(struct tcp_conn *c, struct tcp_seg *sg)
{
    if (sg->flags & (TCP_SEG_SACKED | TCP_SEG_LOST))
        c->nmarked--;
    pkt_free(sg->p);
    sg->p = NULL;
}

/* Payloads this small tcp_send makes appendable (TCP_SEG_COPY) or appends:
 * held back by short_may_go (tcp_output.c), small writes join. */
#define TCP_COPY_MAX 256

/* The peer's window. max_snd_wnd, never below it, is read only when the
 * window grows: its line stays cold on the fast path. */
static inline void tcp_snd_wnd_set(struct tcp_conn *c, uint32_t wnd)
{
    if (wnd > c->snd_wnd && wnd > c->max_snd_wnd)
        c->max_snd_wnd = wnd;
    c->snd_wnd = wnd;
}

/* Free the slots acked up to ack; returns how many. An empty queue starts
 * again at slot 0: request and response reuse one slot, its line warm. */
static inline uint32_t tcp_sq_ack(struct tcp_conn *c, uint32_t ack)
{
    uint32_t n = 0, head = c->sq_head, left = c->sq_n;
    for (; left; left--, n++) {
        struct tcp_seg *sg = &c->sq[head];
        if (SEQ_GT(sg->seq + sg->len, ack))
            break;
        tcp_sq_slot_free(c, sg);
        head = head + 1 == c->sq_cap ? 0 : head + 1;
    }
    c->sq_head = (uint16_t)(left ? head : 0);
    c->sq_n = (uint16_t)left;
    c->sq_nxt = (uint16_t)(c->sq_nxt > n ? c->sq_nxt - n : 0);
    return n;
}

/* A round-trip time measured (RFC 6298 2.2, 2.3; the clock granularity
 * G is the timer tick), and the RTO from it. */
static inline void tcp_rtt_sample(struct tcp_conn *c, uint64_t r)
{
    const struct tcp_config *cfg = &c->t->cfg;
    if (r == 0)
        r = 1;
    if (tcp_clock(r) < c->min_rtt_t)
        c->min_rtt_t = tcp_clock(r);
    if (c->srtt_ns == 0) {
        c->srtt_ns = r;
        c->rttvar_ns = r / 2;
    } else {
        uint64_t d = c->srtt_ns > r ? c->srtt_ns - r : r - c->srtt_ns;
        c->rttvar_ns = c->rttvar_ns - c->rttvar_ns / 4 + d / 4;
        c->srtt_ns = c->srtt_ns - c->srtt_ns / 8 + r / 8;
    }
    uint64_t var = 4 * c->rttvar_ns;
    uint64_t g = 1ull << TCP_TICK_SHIFT;
    uint64_t rto = c->srtt_ns + (var > g ? var : g);
    if (rto < cfg->rto_min_ns)
        rto = cfg->rto_min_ns;
    if (rto > cfg->rto_max_ns)
        rto = cfg->rto_max_ns;
    c->rto_ns = rto;
}
/* An RTT sample from the peer's echo of our timestamp (RFC 7323 4.1),
 * for a handshake the RTT timer could not time (a SYN-ACK sent again, or
 * a SYN cookie's): to the timestamp's tick, its middle. Without it a
 * connection that only receives would have no RTT (tcp_rcv_tune). */
static inline void tcp_rtt_sample_ts(struct tcp_conn *c, const struct tcp_in *seg, uint64_t now_ns)
{
    uint32_t ticks = tcp_ts_now(now_ns) + c->ts_offset - seg->opt.tsecr;
    if ((c->flags & TCP_CF_TS) && seg->opt.has_ts && seg->opt.tsecr && ticks < (1u << 20))
        tcp_rtt_sample(c, ((uint64_t)ticks << TCP_TICK_SHIFT) + (1ull << (TCP_TICK_SHIFT - 1)));
}

/* tcp_input.c, tcp_input_synced.c: SND.UNA moves to ack (RFC 9293 3.10.7.4 fifth
 * check): the send queue,
 * RTT, congestion control, the timer, the application. False when the
 * connection died in the acked callback. */
static inline __attribute__((always_inline)) bool tcp_new_ack(struct tcp_conn *c, uint32_t ack, uint64_t now_ns)
{
    uint32_t acked = ack - c->snd_una, flight = c->snd_nxt - c->snd_una;
    uint32_t queued_before = c->snd_queued;
    if ((c->flags & TCP_CF_RTT_TIMING) && SEQ_GEQ(ack, c->rtt_seq)) {
        c->flags &= ~(uint32_t)TCP_CF_RTT_TIMING;
        tcp_rtt_sample(c, now_ns - c->rtt_start_ns);
    }
    c->snd_una = ack;
    tcp_sq_ack(c, ack);
    uint32_t start = SEQ_GT(ack, c->iss + 1) ? ack : c->iss + 1;
    c->snd_queued = SEQ_GT(c->snd_end, start) ? c->snd_end - start : 0;
    c->retries = 0;
    if (c->flags & TCP_CF_IN_RECOVERY) {
        if (SEQ_GEQ(ack, c->recover)) {
            c->flags &= ~(uint32_t)TCP_CF_IN_RECOVERY;
            tcp_marks_clear(c);
            tcp_cc_recovery_end(c, now_ns);
            c->dupacks = 0;
            if (c->reo_persist && --c->reo_persist == 0)
                c->reo_steps = 0; /* RFC 8985 6.2 step 4 */
            if (c->undo_on && c->undo_n == 0)
                tcp_undo(c); /* nothing was sent again: the originals all got there */
        } else if (c->flags & TCP_CF_SACK) {
            if (!tcp_rack_only(c))
                tcp_sack_mark_lost(c); /* RFC 6675: the loop in tcp_output sends */
            if ((c->flags & TCP_CF_FIN_SENT) && ack == c->snd_end)
                c->flags |= TCP_CF_FIN_LOST; /* all data in, the FIN (sent before the repair) not */
        } else {
            /* RFC 6582 3.2 step 5: partial ACK. */
            tcp_retransmit_first(c, now_ns);
            c->cwnd = c->cwnd > acked ? c->cwnd - acked : 0;
            c->cwnd += c->seg_size;
        }
    } else {
        c->dupacks = 0;
        if (SEQ_GT(ack, c->recover)) /* kept within 2 GB of snd_una, for SEQ_GEQ */
            c->recover = ack;
        if (tcp_cwnd_limited(c, flight))
            tcp_cc_ack(c, acked, now_ns);
        else if (c->cwnd >= c->ssthresh)
            tcp_cc_app_limited(c, now_ns);
    }
    if (c->snd_una == c->snd_nxt) {
        tcp_rto_stop(c);
        if (NET_UNLIKELY(c->flags & TCP_CF_SQ_LARGE) && c->sq_n == 0)
            tcp_sq_shrink(c);
    } else {
        c->flags &= ~(uint32_t)TCP_CF_PERSIST;
        tcp_loss_timer_arm(c, now_ns);
    }
    uint32_t done = queued_before - c->snd_queued;
    if (done && c->cb && c->cb->acked && !(c->flags & TCP_CF_APP_CLOSED)) {
        c->cb->acked(c->ctx, c, done, now_ns);
        if (c->flags & TCP_CF_DEAD)
            return false;
    }
    return true;
}

/* tcp_input_synced.c: every check of RFC 9293 3.10.7.4 for a synchronized
 * connection's segment that header prediction (tcp_input.c) did not take. */
void tcp_synced_input(struct tcp_conn *c, struct tcp_in *seg, uint64_t now_ns);

#endif
