/* SPDX-License-Identifier: MIT */
/* apps/iperf3_impl.h: the iperf3 server's shared state, between the
 * test and TCP side (iperf3.c) and the UDP streams (iperf3_udp.c): the
 * table of tests every core reads, their streams, and what each side
 * calls of the other. The rules for who writes what are iperf3.c's. */
#ifndef HAYATE_USERLAND_IPERF3_IMPL_H
#define HAYATE_USERLAND_IPERF3_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "iperf3.h"
#include "kernel/app.h"
#include "net/tcp/tcp.h"
#include "net/ip/ip.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* T_DONE: finished, streams close; T_DEAD: given up, streams reset. */
enum test_state { T_FREE, T_SETUP, T_JOIN, T_RUNNING, T_ENDED, T_DONE, T_DEAD };
enum phase { PH_PARAMS, PH_JOIN, PH_RUNNING, PH_ENDING, PH_RESULTS, PH_DRAIN, PH_DONE };

struct udp_core; /* iperf3_udp.c's: a core's UDP side */

struct stream {
    struct iperf3_test *t;
    struct tcp_conn *c;             /* the owning core's */
    struct app_timer timer;
    _Atomic uint64_t bytes;         /* received, or queued (UDP: sent) */
    _Atomic uint64_t acked;         /* sending: acknowledged */
    _Atomic uint64_t retransmits;   /* sending: the connection's, as of the latest ACK */
    _Atomic bool ready;             /* joined and counting */
    bool sends;                     /* ours to send on (stream_sends) */
    /* UDP: uc's core's, but peer (set before ready) and rx (rx_core's). */
    struct udp_core *uc;            /* NULL: a TCP stream */
    struct udp_meta peer;           /* the client's connect datagram */
    _Atomic(struct udp_core *) rx_core;
    struct iperf3_udp_rx rx;
    uint64_t next_ns;               /* sending: the next datagram's or segment's time (-b) */
    _Atomic uint64_t packets, lost, jitter_ns; /* published for the results */
};

struct iperf3_test {
    _Atomic uint32_t state;         /* enum test_state */
    _Atomic uint32_t refs;
    _Atomic uint32_t joined;        /* stream slots claimed */
    uint8_t cookie[IPERF3_COOKIE_LEN];
    bool reverse, bidir;            /* set before T_JOIN is published */
    uint32_t parallel;              /* -P */
    uint32_t nstreams;              /* parallel, twice that with --bidir */
    bool udp, c64;                  /* -u; udp_counters_64bit */
    uint32_t len;                   /* UDP: datagram size */
    uint64_t rate;                  /* -b: bits/s a sending stream; 0: no limit */
    struct tcp_info ctl_info;       /* UDP: the client's address */
    /* The control core's. */
    struct tcp_conn *ctl;
    struct app_timer timer;
    uint8_t phase;
    uint64_t deadline_ns, start_ns, end_ns, acked_ns;
    uint64_t moved;             /* a test without -t: its bytes at the last tick */
    bool omitted;                   /* -O's seconds are over: counts from here */
    struct omit {                   /* each stream's counts then */
        uint64_t bytes, packets, lost, retransmits;
    } omit[IPERF3_MAX_STREAMS];
    uint32_t rx_len, json_len;
    struct iperf3_params params;
    struct iperf3_peer_results peer;
    char rx[IPERF3_JSON_MAX + 4];
    struct stream streams[IPERF3_MAX_STREAMS];
};

extern struct iperf3_test iperf3_tests[IPERF3_MAX_TESTS];

static inline uint32_t tstate(struct iperf3_test *t) { return atomic_load_explicit(&t->state, memory_order_acquire); }

/* iperf3.c */
/* Drop a reference to t; the last frees it. */
void iperf3_test_put(struct iperf3_test *t);
/* A stream slot of t, which was joining: it holds a reference to t. NULL
 * (none held) when t has moved on, has every stream it announced (counted
 * bad), or (cookie not NULL) is now another test. */
struct stream *iperf3_slot_claim(struct iperf3_test *t, const uint8_t *cookie);
/* The stream joined: counting from now. */
void iperf3_stream_ready(struct stream *st, uint64_t now_ns);

/* iperf3_udp.c */
/* Take the UDP port on s's core (its out buffer, app_alloc'd); false when
 * it is taken. */
bool iperf3_udp_bind(struct net_stack *s, uint16_t port);
/* Send what -b allows by now on a sending stream; when to come back. */
uint64_t iperf3_udp_pump(struct stream *st, uint64_t now_ns);
/* Datagrams to the port that were in no test, or short. */
uint64_t iperf3_udp_strays(void);

#endif
