/* SPDX-License-Identifier: MIT */
/* net/tcp/tcp.h: TCP (RFC 9293) in the iip style: run to completion, one
 * instance per core, no loop, clock or memory of its own.
 *
 * The embedder hands tcp_init a struct tcp_stack and an arena; every
 * connection, send queue and hash bucket is carved from that arena, and
 * every segment lives in a buffer of the stack's packet pool. Input comes
 * through net_input (ip4_deliver calls tcp_input, ip6.c tcp_input6), timers through net_poll
 * (which calls tcp_poll; TCP asks for its deadlines with net_timer_at), and
 * output leaves through ip4_output / ip6_output into the port bursts that net_flush
 * hands to the drivers. See docs/tcp.md.
 *
 * The application is a set of callbacks that run in the core's loop:
 * accepted / connected, recv (in-order data, zero-copy: the buffer it came
 * in), acked (bytes the peer acknowledged, so more can be queued), peer_fin
 * (end of the peer's data) and closed (the connection is gone for the
 * application). Callbacks may call any tcp_* function, on their own
 * connection or another; nothing here calls back from inside a tcp_* call
 * the application made.
 *
 * Sending is zero-copy: tcp_send takes a buffer whose payload is at
 * p->data (with the headroom pkt_alloc leaves), keeps it until the peer
 * acknowledges it, writes the headers in front of the payload and hands the
 * very buffer to the NIC each time it is (re)sent, holding a reference
 * (pkt_ref) across. It frees the buffer once acknowledged: it goes back to
 * the head of the pool, so the application's next pkt_alloc gets the same
 * cache-hot buffer back. tcp_write copies small payloads instead, packing
 * them into TCP's own buffers (iip: below a few hundred bytes a copy is
 * cheaper than anything else).
 *
 * IPv6 (RFC 8200 8.1 for the checksum) goes through the same state
 * machine: a listener takes both families; an IPv6 connection has
 * laddr_be = raddr_be = 0 and TCP_CF_IP6, its addresses in laddr6/raddr6
 * (a cold line), so the IPv4 lookup never matches it.
 *
 * Path MTU discovery (RFC 1191, RFC 8201) lowers a connection's segment
 * size when an ICMP error says a link on the way is narrower, or when
 * full-sized segments keep timing out with no error at all (a black hole,
 * RFC 2923 2.1) (net/tcp/tcp_icmp.c). Not here yet: urgent data (URG is ignored: the data is
 * delivered in line). */
#ifndef NET_TCP_H
#define NET_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/pkt.h"

struct net_stack;
struct net_iface;
struct ip4_rx;
struct tcp_conn;
struct tcp_stack;

enum tcp_state {
    TCP_CLOSED,
    TCP_LISTEN,                 /* not used by connections: listeners are a table */
    TCP_SYN_SENT,
    TCP_SYN_RECEIVED,
    TCP_ESTABLISHED,
    TCP_FIN_WAIT_1,
    TCP_FIN_WAIT_2,
    TCP_CLOSE_WAIT,
    TCP_CLOSING,
    TCP_LAST_ACK,
    TCP_TIME_WAIT,
};

enum tcp_cc_algo {
    TCP_CC_NEWRENO,             /* RFC 5681, RFC 6582 */
    TCP_CC_CUBIC,               /* RFC 9438 */
};

/* Why a connection ended (the closed callback). */
enum tcp_close_reason {
    TCP_CLOSE_NORMAL,           /* both FINs exchanged */
    TCP_CLOSE_RESET,            /* the peer reset it */
    TCP_CLOSE_REFUSED,          /* reset in answer to our SYN */
    TCP_CLOSE_TIMEOUT,          /* retransmissions or keepalives unanswered */
    TCP_CLOSE_RELEASED,         /* tcp_release: the stack went away */
};

/* The application's side. ctx is what tcp_listen / tcp_connect were given,
 * or what tcp_set_ctx set since. Any callback may be NULL. */
struct tcp_callbacks {
    /* A connection to a listener completed its handshake. c inherits the
     * listener's callbacks and ctx; tcp_set_ctx gives it its own. */
    void (*accepted)(void *ctx, struct tcp_conn *c, uint64_t now_ns);
    /* tcp_connect's handshake completed. */
    void (*connected)(void *ctx, struct tcp_conn *c, uint64_t now_ns);
    /* New in-order data: p->data, p->len bytes. The callback owns p (free
     * it, keep it, send it back with tcp_send). The receive window reopens
     * when the callback returns, or, with tcp_set_manual_window, when the
     * application calls tcp_recved. Without a recv callback data is
     * dropped (acknowledged). */
    void (*recv)(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns);
    /* bytes of what was queued were acknowledged (and their buffers freed);
     * 0: buffers are free again after tcp_sndbuf said 0 for want of them. */
    void (*acked)(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns);
    /* The peer closed its side: no more data will come. Not when both
     * sides are then closed (our FIN acknowledged, FIN-WAIT-2): closed
     * comes instead, with TCP_CLOSE_NORMAL. */
    void (*peer_fin)(void *ctx, struct tcp_conn *c, uint64_t now_ns);
    /* The connection is over for the application (enum tcp_close_reason);
     * c must not be used after this returns. Not called after tcp_abort. */
    void (*closed)(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns);
};

/* Which core's receive queue a packet with this 4-tuple (as received: src
 * is the peer) lands on; the kernel answers from its RSS key and
 * indirection table (tcp_rss_reta_core does it the usual way). */
typedef uint32_t (*tcp_rss_fn)(void *ctx, uint32_t src_be, uint32_t dst_be, uint16_t sport,
                               uint16_t dport);
/* The same for IPv6 (addresses of 16 bytes). */
typedef uint32_t (*tcp_rss6_fn)(void *ctx, const uint8_t *src, const uint8_t *dst, uint16_t sport, uint16_t dport);

#define TCP_MAX_LISTEN 16
#define TCP_SQ_LARGE_MAX 64     /* cfg.sq_large at most */
#define TCP_WHEEL_SLOTS 1024    /* timer wheel: 1024 ticks of 2^20 ns */
#define TCP_HASH_MIN 64

/* Per-stack settings; tcp_config_default fills the defaults. */
struct tcp_config {
    uint8_t secret[16];         /* boot-time random: ISNs (RFC 6528), SYN cookies */
    uint32_t sndbuf;            /* bytes queued per connection, at first (256 KiB) */
    uint32_t sndbuf_max;        /* what autotuning may grow it to (4 MiB; <= sndbuf: fixed) */
    uint32_t rcvbuf;            /* receive window per connection, at first (256 KiB) */
    uint32_t rcvbuf_max;        /* what autotuning may grow it to (4 MiB; <= rcvbuf: fixed) */
    uint16_t sq_slots;          /* buffers per send queue (256) */
    uint16_t sq_large;          /* queues of a slot a KB of sndbuf_max, a core, for the
                                 * connections whose buffer grows past sq_slots (16) */
    uint16_t ooo_max;           /* out-of-order buffers per connection (256) */
    uint16_t backlog;           /* half-open per listener before SYN cookies (128) */
    uint8_t cc;                 /* enum tcp_cc_algo for new connections (CUBIC) */
    bool nagle;                 /* Nagle's algorithm for new connections (off) */
    bool sack, timestamps, wscale, syncookies; /* offered / used (all on) */
    uint8_t syn_retries;        /* SYN and SYN-ACK retransmissions (5) */
    uint8_t data_retries;       /* RTO in a row before giving up (15) */
    uint32_t challenge_per_s;   /* RFC 5961 challenge ACKs per second (1000) */
    uint64_t delack_ns;         /* delayed ACK (40 ms) */
    uint64_t rto_init_ns;       /* RFC 6298 (1 s) */
    uint64_t rto_min_ns;        /* (200 ms) */
    uint64_t rto_max_ns;        /* (60 s) */
    uint64_t time_wait_ns;      /* 2 MSL (60 s) */
    uint64_t pmtu_probe_ns;     /* after a black-hole cut, the old size is tried again (10 min) */
    tcp_rss_fn rss;             /* NULL: every port is ours */
    void *rss_ctx;
    tcp_rss6_fn rss6;           /* the same for IPv6 */
    void *rss6_ctx;
};

/* A segment's worth of queued data: payload at pkt_buf_start(p) + off. */
struct tcp_seg {
    struct pkt *p;
    uint32_t seq;               /* of the first byte */
    uint16_t off;
    uint16_t len;
    uint8_t flags;              /* TCP_SEG_* */
    uint32_t sent_t;            /* when last sent (tcp_sent_stamp): RACK's order */
};

enum {
    TCP_SEG_SACKED = 1u << 0,   /* the peer holds it (RFC 2018) */
    TCP_SEG_LOST = 1u << 1,     /* to be retransmitted */
    TCP_SEG_RETX = 1u << 2,     /* retransmitted since marked lost */
    TCP_SEG_COPY = 1u << 3,     /* TCP's own buffer, open for appending */
    TCP_SEG_AGAIN = 1u << 4,    /* ever sent again: a D-SACK may yet report it (undo) */
    TCP_SEG_KEEP = TCP_SEG_COPY | TCP_SEG_AGAIN, /* what the scoreboard's marks leave */
};

struct tcp_listener {
    uint16_t port;              /* 0: free entry */
    uint16_t pending;           /* connections in SYN-RECEIVED */
    uint16_t backlog;
    const struct tcp_callbacks *cb;
    void *ctx;
    uint64_t idle_ns;           /* tcp_listen_idle: for each connection */
};

/* Laid out by use: what every segment touches comes first, in as few
 * cache lines as it fits (a core keeps thousands of these; iip's lesson
 * that the working set decides), the rest after. */
struct tcp_conn {
    /* Line 0: lookup, and the sequence state of every segment. */
    struct tcp_conn *hnext;             /* hash chain / free list */
    uint32_t laddr_be, raddr_be;
    uint16_t lport, rport;              /* host order */
    uint8_t state;                      /* enum tcp_state */
    uint8_t cc_algo;
    uint8_t snd_wscale, rcv_wscale;
    uint32_t flags;                     /* TCP_CF_* */
    uint32_t snd_una;                   /* RFC 9293 3.3.1 names */
    uint32_t snd_nxt;                   /* after the highest byte ever sent */
    uint32_t snd_wnd;
    uint32_t snd_wl1, snd_wl2;
    uint32_t rcv_nxt, rcv_adv;          /* rcv_adv: right edge advertised */
    uint32_t ts_recent;                 /* RFC 7323 */
    uint16_t nmarked;                   /* slots with SACKED or LOST set */
    uint8_t delack_segs;                /* segments not yet acknowledged */
    uint8_t dupacks;

    /* Line 1: the application, the queues. */
    struct tcp_stack *t;
    const struct tcp_callbacks *cb;
    void *ctx;
    struct pkt *ooo;                    /* sorted by seq (pkt.user), linked by next */
    struct tcp_seg *sq;                 /* ring of sq_cap */
    uint16_t sq_cap, sq_head, sq_n;
    uint16_t sq_nxt;                    /* index of the slot holding snd_nxt */
    uint32_t snd_end;                   /* after the last byte queued */
    uint32_t snd_queued;                /* bytes queued, snd_una on */
    uint32_t iss;
    uint16_t seg_size;                  /* payload of a full segment */

    /* Line 2: congestion control and timers. */
    uint32_t cwnd, ssthresh, recover;
    uint32_t cwnd_acc;                  /* bytes acked towards the next increase */
    uint64_t rto_ns;
    uint64_t rto_at, delack_at, timer_at; /* deadlines, 0 = off; the wheel's: earliest */
    uint64_t rtt_start_ns;
    uint32_t rtt_seq;                   /* timing the segment ending here */
    uint32_t ts_offset;

    /* Line 3: RTT, windows, the way out (tcp_output.c caches the Ethernet
     * (and VLAN) and IPv4 headers every segment starts with, valid until
     * route_until_ns). */
    uint64_t srtt_ns, rttvar_ns;        /* RFC 6298, in ns */
    uint32_t last_ack_sent;
    uint32_t rcv_buf, rcv_held;         /* rcv_held: manual window, not yet recved */
    uint32_t sndbuf;
    uint32_t route_sum;                 /* IPv4 header's partial sum, length and id 0 */
    uint32_t pseudo_sum;                /* TCP pseudo-header's, length 0 */
    uint32_t sent_last_t;               /* the latest tcp_seg.sent_t given */
    uint32_t min_rtt_t;                 /* smallest RTT sample, tcp_clock() units (none: max) */
    uint16_t route_port;
    uint8_t hdr_l2_len, hdr_len;        /* of hdr: Ethernet; all of it */
    uint8_t hdr_sw_csum;                /* the port sums nothing: csum_pkt_finish */
    uint8_t retries;                    /* RTO / probes in a row */
    uint8_t hdr_fixed_len;              /* of hdr: all but the timestamps' values */
    uint64_t route_until_ns;

    /* Line 4: the template. What an IPv4 segment copies of it (all but
     * the timestamps' values, at most 62 bytes) is this one line. */
    uint8_t hdr[18 + 40 + 20 + 12] __attribute__((aligned(64))); /* Ethernet, VLAN, IP, TCP, timestamps */

    /* Less often. */
    uint32_t max_snd_wnd;               /* never below snd_wnd: read when it grows */
    uint16_t mss;                       /* the peer's MSS, capped by our MTU */
    uint16_t wslot;                     /* timer wheel slot */
    uint16_t ooo_n, ooo_max;
    uint32_t rcv_max;                   /* rcv_buf's ceiling (tcp_rcv_tune) */
    uint32_t rcv_tune_seq;              /* what the application had taken at rcv_tune_ns */
    uint64_t rcv_tune_ns;
    struct tcp_conn *wprev, *wnext;
    struct tcp_conn *tw_prev, *tw_next; /* TIME-WAIT, oldest first (tcp_stack.tw_head) */
    struct tcp_conn *wait_prev, *wait_next; /* tcp_stack.wait_head's queue */
    struct tcp_listener *listener;      /* while SYN-RECEIVED from one */
    uint32_t irs;
    uint32_t ooo_bytes;
    uint32_t ooo_last;                  /* seq of the latest arrival: first SACK block */
    uint32_t fin_seq;                   /* the peer's FIN, when it came out of order */
    uint32_t sack_high;                 /* highest SACKed sequence + 1 */
    uint32_t cubic_wmax, cubic_origin, cubic_west;
    uint32_t cubic_k_ms;
    uint64_t cubic_epoch_ns;
    uint64_t cubic_ack_ns;              /* the latest ACK congestion control saw */
    uint64_t ka_at, ka_idle_ns, ka_intvl_ns;
    uint64_t persist_since_ns, send_timeout_ns; /* tcp_set_send_timeout */
    uint64_t oow_ack_ns;                /* the last ACK to an unacceptable pure ACK */
    uint8_t ka_count, ka_sent;
    uint8_t persist_shift;              /* the persist timer's backoff: rto_ns << it */
    uint16_t port6;                     /* IPv6: the port a link-local peer is on */
    uint8_t laddr6[16], raddr6[16];     /* IPv6 (TCP_CF_IP6) */
    uint64_t route6_until_ns;           /* IPv6's template: route_until_ns stays 0 */
    uint32_t tlp_end;                   /* snd_nxt when the probe went */
    uint32_t dsack[2];                  /* a duplicate received: [left, right) */
    uint32_t rack_sent_t, rack_end;     /* RACK (RFC 8985): the latest sent of what was delivered */
    bool rack_reord;                    /* the path reordered: RACK alone finds losses */
    uint8_t reo_steps;                  /* RACK's window is (1 + it) min_rtt / 4 (RFC 8985 6.2 step 4) */
    uint8_t reo_persist;                /* recoveries before reo_steps goes back to 0 */
    uint32_t dsack_round;               /* snd_nxt when reo_steps last grew: once a round trip */
    /* Undo (RFC 3708): the congestion state before the latest reduction,
     * and what of its episode's retransmissions the peer has not yet
     * reported duplicate (D-SACK), [from, to); at none, the reduction was
     * for reordering. More than it holds: undo_on is off. */
    uint32_t undo_cwnd, undo_ssthresh, undo_wmax;
    uint32_t undo_seq[4][2];
    uint8_t undo_n;
    bool undo_on;
    bool rto_eifel;                     /* a first timeout's ACK to judge (RFC 3522) */
    uint32_t rto_tsval;                 /* the TSval its retransmission carried */
    uint32_t retransmits;               /* segments sent again (tcp_count_retransmit) */
    uint16_t mss_probe;                 /* MSS before a black-hole cut (0: none): tried again */
    uint64_t pmtu_probe_at;             /* when (0: not due) */
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct tcp_conn, hdr) == 4 * 64, "a segment's state in four lines, then the template");

/* struct tcp_conn.flags */
enum {
    TCP_CF_SACK = 1u << 0,              /* SACK permitted both ways */
    TCP_CF_TS = 1u << 1,                /* timestamps on every segment */
    TCP_CF_WS = 1u << 2,                /* window scaling */
    TCP_CF_NAGLE = 1u << 3,
    TCP_CF_MANUAL_WND = 1u << 4,        /* tcp_recved reopens the window */
    TCP_CF_FIN_QUEUED = 1u << 5,        /* tcp_close: FIN after the data */
    TCP_CF_FIN_SENT = 1u << 6,
    TCP_CF_ACK_NOW = 1u << 7,
    TCP_CF_BUSY = 1u << 8,              /* inside input or a timer: output later */
    TCP_CF_DEAD = 1u << 9,              /* aborted from a callback: free later */
    TCP_CF_IN_RECOVERY = 1u << 10,
    TCP_CF_APP_SEEN = 1u << 11,         /* accepted / connected was called */
    TCP_CF_APP_CLOSED = 1u << 12,       /* closed was called */
    TCP_CF_PEER_FIN = 1u << 13,
    TCP_CF_KEEPALIVE = 1u << 14,
    TCP_CF_RTT_TIMING = 1u << 15,
    TCP_CF_FIN_LOST = 1u << 16,         /* our FIN to be sent again */
    TCP_CF_PERSIST = 1u << 17,          /* rto_at is the persist timer */
    TCP_CF_FORCE = 1u << 18,            /* persist fired: send despite SWS */
    TCP_CF_COOKIE = 1u << 19,           /* made from a SYN cookie */
    TCP_CF_FIN_OOO = 1u << 20,          /* fin_seq holds the peer's FIN */
    TCP_CF_ACTIVE = 1u << 21,           /* opened by tcp_connect */
    TCP_CF_IP6 = 1u << 22,              /* over IPv6: laddr6, raddr6 */
    TCP_CF_TX_WAIT = 1u << 23,          /* data held back: the port's ring was full */
    TCP_CF_BUF_WAIT = 1u << 24,         /* told tcp_sndbuf 0: the pool was at its reserve */
    TCP_CF_PTO = 1u << 25,              /* rto_at is the tail loss probe's (RFC 8985 7) */
    TCP_CF_TLP = 1u << 26,              /* a probe is out: until tlp_end is acked */
    TCP_CF_TLP_RETX = 1u << 27,         /* it sent data again (not new data) */
    TCP_CF_DSACK = 1u << 28,            /* the next ACK reports dsack (RFC 2883) */
    TCP_CF_TW_SYN = 1u << 29,           /* TIME-WAIT answered a SYN: its reset ends it */
    TCP_CF_REO = 1u << 30,              /* rto_at is RACK's reordering timer (RFC 8985 6.3) */
    TCP_CF_SQ_LARGE = 1u << 31,         /* sq is one of the core's large queues */
};

struct tcp_stack {
    struct net_stack *s;
    struct tcp_config cfg;
    struct tcp_conn *conns;             /* the arena's */
    uint32_t nconns, nfree;
    struct tcp_conn *free_list;
    struct tcp_conn *tw_head, *tw_tail; /* TIME-WAIT in order of their end: the next to reuse */
    struct tcp_conn **hash;
    uint32_t hash_shift;                /* 64 - log2(buckets) */
    uint64_t hash_key, hash_mul;        /* random; hash_mul odd */
    uint64_t sip_key[2], cookie_key[2];
    struct tcp_listener listen[TCP_MAX_LISTEN];
    uint16_t port_next;                 /* ephemeral port cursor */
    uint64_t now_ns;                    /* latest time seen */
    uint64_t cookie_ns;                 /* last SYN cookie sent */
    uint64_t challenge_sec;             /* RFC 5961 7: window and count */
    uint32_t challenge_count;
    uint64_t wheel_tick;                /* next tick to run */
    uint32_t wheel_n;                   /* connections on the wheel */
    struct tcp_conn *limbo;             /* the slot tcp_poll is running */
    uint32_t nblocked;                  /* connections with TCP_CF_TX_WAIT */
    uint32_t nbuf_wait;                 /* connections with TCP_CF_BUF_WAIT */
    struct tcp_conn *wait_head, *wait_tail; /* TCP_CF_TX_WAIT or BUF_WAIT, oldest first */
    uint32_t rx_reserve;                /* pool buffers send queues leave alone */
    struct tcp_conn *wheel[TCP_WHEEL_SLOTS];
    uint64_t wheel_bits[TCP_WHEEL_SLOTS / 64];
    uint64_t hash6_key[10];             /* IPv6 tuples: multilinear hash keys */
    struct tcp_seg *sq_small;           /* conns[i]'s queue: sq_small + i * cfg.sq_slots */
    struct tcp_seg *sq_large[TCP_SQ_LARGE_MAX]; /* free large queues: [0, nsq_large) */
    uint16_t nsq_large, sq_large_cap;
};

/* What `show tcp` and tests read about a connection. */
struct tcp_info {
    uint32_t laddr_be, raddr_be;        /* IPv4 */
    bool v6;                            /* IPv6: laddr6, raddr6 instead */
    uint8_t laddr6[16], raddr6[16];
    uint16_t lport, rport;
    uint8_t state;
    uint8_t cc_algo;
    bool sack, timestamps, wscale;
    uint16_t mss;
    uint32_t cwnd, ssthresh, snd_wnd, rcv_wnd, snd_queued;
    uint32_t snd_buf, rcv_buf;          /* as autotuning left them */
    uint64_t srtt_ns, rto_ns;
    uint32_t retransmits;               /* segments sent again, as Linux's tcpi_total_retrans */
};

/* ---- Setup (the embedder) ---- */

void tcp_config_default(struct tcp_config *cfg);

/* Arena bytes for n connections with cfg's send queues. */
size_t tcp_arena_size(const struct tcp_config *cfg, uint32_t nconns);

/* Attach t to s (s->tcp) with the connections that fit in arena (bytes
 * long, 8-byte aligned; stays the embedder's). cfg NULL: defaults (then
 * the secret is all zeros: tests only). Returns how many connections fit
 * (0: too small, nothing attached). */
uint32_t tcp_init(struct net_stack *s, struct tcp_stack *t, void *arena, size_t bytes,
                  const struct tcp_config *cfg);

/* Drop every connection (closed callbacks with TCP_CLOSE_RELEASED, no
 * segments sent) and free every buffer they held. */
void tcp_release(struct tcp_stack *t);

/* Timers; returns the next deadline (UINT64_MAX: none). net_poll calls it. */
uint64_t tcp_poll(struct tcp_stack *t, uint64_t now_ns);

/* A TCP segment for us (ip4_deliver calls it); takes rx->pkt. */
void tcp_input(struct net_stack *s, const struct ip4_rx *rx, uint64_t now_ns);
/* eth_input's first try for a usual IPv4 (IPv6) frame: true when TCP took it. */
bool tcp_input_frame4(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);
bool tcp_input_frame6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* The same over IPv6 (ip6.c calls it): p->data at the IPv6 header, whose
 * next header is TCP, p->len its checked length; from ifc. Takes p. */
void tcp_input6(struct net_stack *s, struct net_iface *ifc, struct pkt *p, uint64_t now_ns);

/* Connections whose wait is over go on, oldest wait first: those that held data
 * back from a full ring send it where there is room again, those refused
 * buffers get acked(0) when the pool is above its reserve. net_flush calls
 * it when any wait; true when any went on. */
bool tcp_wake(struct tcp_stack *t);

/* An ICMP error that may quote one of our segments (net/tcp/tcp_icmp.c; the
 * stack has TCP): q is the
 * quoted IP header, avail bytes of it and what follows. IPv4: type, code
 * and the header's rest field (network order); IPv6: type and the MTU of a
 * packet too big. */
void tcp_icmp4(struct net_stack *s, const uint8_t *q, uint32_t avail, uint8_t type, uint8_t code,
               uint32_t rest_be, uint64_t now_ns);
void tcp_icmp6(struct net_stack *s, const uint8_t *q, uint32_t avail, uint8_t type, uint32_t mtu,
               uint64_t now_ns);

/* ---- The application's interface ---- */

/* Accept connections to port on every address: 0, or -1 (taken, table
 * full, port 0). cb must outlive the listener. */
int tcp_listen(struct net_stack *s, uint16_t port, const struct tcp_callbacks *cb, void *ctx);
/* Every connection port accepts from now on gets tcp_set_idle_timeout and
 * tcp_set_send_timeout (idle_ns): a client that sends nothing, or reads
 * nothing, for that long is reset. 0, or -1 when nothing listens there. */
int tcp_listen_idle(struct net_stack *s, uint16_t port, uint64_t idle_ns);
int tcp_unlisten(struct net_stack *s, uint16_t port);

/* Open a connection to dst_be:dport from an ephemeral port whose RSS hash
 * lands on this core. The connected (or closed) callback follows. NULL: no
 * route, no connection or no port free. */
struct tcp_conn *tcp_connect(struct net_stack *s, uint32_t dst_be, uint16_t dport,
                             const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns);

/* The same from source port lport (0: ephemeral), which must be free for
 * the pair; no RSS check. */
struct tcp_conn *tcp_connect_from(struct net_stack *s, uint16_t lport, uint32_t dst_be, uint16_t dport,
                                  const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns);

/* tcp_connect_from over IPv6 to dst (16 bytes; lport 0: ephemeral, one
 * whose replies cfg.rss6 puts on this core): the source is the outgoing
 * port's address (its link-local one for a link-local dst, on the first
 * port with IPv6). */
struct tcp_conn *tcp_connect6_from(struct net_stack *s, uint16_t lport, const uint8_t *dst, uint16_t dport,
                                   const struct tcp_callbacks *cb, void *ctx, uint64_t now_ns);

/* Queue p's payload (p->data, p->len; any length) behind what is queued.
 * Takes p and returns 0; or returns -1 and p stays the caller's (send
 * queue full: wait for acked; or the connection cannot send any more).
 * For zero-copy p->len should be at most tcp_mss(c) and p should have the
 * headroom pkt_alloc leaves; otherwise (or while another owner holds p) the
 * payload is copied when sent. */
int tcp_send(struct tcp_conn *c, struct pkt *p, uint64_t now_ns);

/* Copy up to len bytes into the send queue; returns how many were taken. */
uint32_t tcp_write(struct tcp_conn *c, const void *data, uint32_t len, uint64_t now_ns);

/* Bytes tcp_send / tcp_write can take now: within the send buffer, and a
 * segment's worth for each free slot of the send queue (so many small
 * sends run out of slots first). 0 also while the core's
 * buffer pool is down to its reserve for receiving (a quarter of it):
 * send queues must not take the buffers ACKs come in. acked is called
 * with 0 bytes when there are buffers again. */
uint32_t tcp_sndbuf(struct tcp_conn *c);

/* Payload bytes of a full segment. */
uint32_t tcp_mss(const struct tcp_conn *c);

/* Close our side: a FIN follows the queued data. The connection lives on
 * (recv still delivers the peer's data) until closed is called. In
 * SYN-SENT this is tcp_abort. 0, or -1 when already closing. */
int tcp_close(struct tcp_conn *c, uint64_t now_ns);

/* Reset and forget the connection now; no closed callback; buffers freed. */
void tcp_abort(struct tcp_conn *c, uint64_t now_ns);

/* With tcp_set_manual_window: n bytes delivered by recv are consumed. */
void tcp_recved(struct tcp_conn *c, uint32_t n, uint64_t now_ns);

void tcp_set_ctx(struct tcp_conn *c, const struct tcp_callbacks *cb, void *ctx);
void tcp_set_nagle(struct tcp_conn *c, bool on);
/* On: the window closes as recv delivers and reopens by tcp_recved. Off
 * (the default): it reopens as each recv returns; turning it off forgets
 * what was held. */
void tcp_set_manual_window(struct tcp_conn *c, bool on);
int tcp_set_cc(struct tcp_conn *c, enum tcp_cc_algo algo);
/* Probes after idle_ns without a segment from the peer, every intvl_ns,
 * count of them unanswered resets the connection. idle_ns 0: off. */
void tcp_set_keepalive(struct tcp_conn *c, uint64_t idle_ns, uint64_t intvl_ns, uint8_t count);
/* Reset the connection after idle_ns without a segment from the peer, no
 * probes (a server's idle limit: a live peer that sends nothing is gone
 * too; counted in tcp-idle-timeout). Replaces keepalive. 0: off. */
void tcp_set_idle_timeout(struct tcp_conn *c, uint64_t idle_ns);
/* Reset the connection once data has waited on a closed window for
 * timeout_ns, the peer answering the probes but reading nothing (RFC 6429:
 * a server's resources; nginx's send_timeout). Counted in
 * tcp-send-timeout. 0: off (RFC 9293 3.8.6.1's default: wait for ever). */
void tcp_set_send_timeout(struct tcp_conn *c, uint64_t timeout_ns);

void tcp_get_info(const struct tcp_conn *c, struct tcp_info *out);

/* The stack a connection belongs to (its pool: tcp_conn_stack(c)->pool). */
static inline struct net_stack *tcp_conn_stack(const struct tcp_conn *c);
/* enum tcp_state. */
static inline uint8_t tcp_conn_state(const struct tcp_conn *c) { return c->state; }
/* Nothing queued to send, nor sent and unacknowledged. */
static inline bool tcp_conn_sq_empty(const struct tcp_conn *c) { return c->sq_n == 0; }
/* Segments sent again so far (tcp_info.retransmits without the copy). */
static inline uint32_t tcp_conn_retransmits(const struct tcp_conn *c) { return c->retransmits; }
const char *tcp_state_name(uint8_t state);

/* Walk the connections: start with *idx = 0; NULL after the last. */
struct tcp_conn *tcp_conn_next(struct tcp_stack *t, uint32_t *idx);

static inline struct net_stack *tcp_conn_stack(const struct tcp_conn *c) { return c->t->s; }

/* ---- RSS (tcp_rss.c) ---- */

/* The Toeplitz hash (Microsoft RSS) of in[0..len) under key (key_len >=
 * len + 4). */
uint32_t tcp_toeplitz(const uint8_t *key, uint32_t key_len, const uint8_t *in, uint32_t len);

/* A tcp_rss_fn over a key and indirection table: queue reta[hash % n]. */
struct tcp_rss_reta {
    const uint8_t *key;         /* 40 bytes usually */
    uint32_t key_len;
    const uint16_t *reta;       /* queue (= core) per hash bucket */
    uint32_t reta_size;
};
uint32_t tcp_rss_reta_core(void *reta_ctx, uint32_t src_be, uint32_t dst_be, uint16_t sport,
                           uint16_t dport);
/* The tcp_rss6_fn: the hash over both addresses and ports (RSS's TCP/IPv6
 * input without extension headers). */
uint32_t tcp_rss6_reta_core(void *reta_ctx, const uint8_t *src, const uint8_t *dst, uint16_t sport, uint16_t dport);

#endif
