/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_app.h: a test application for the TCP tests: a
 * connection end that records what it gets and sends a pattern or a
 * script, with hooks for tests to watch the wire. */
#ifndef TESTS_SUPPORT_TCP_APP_H
#define TESTS_SUPPORT_TCP_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "net/tcp/tcp.h"
#include "net/tcp/tcp_impl.h"
#include "tests/unit/check.h"
#include "tests/support/tcp_link.h"

/* One end: what it received, what it has to send. */
struct ta {
    struct tcp_conn *c;
    int accepted, connected, peer_fin, closed, close_reason;
    uint32_t retransmits;               /* the connection's, when it closed */
    uint64_t rx_bytes, rx_calls;
    uint64_t rx_bad;            /* bytes that differ from the pattern */
    uint8_t *rx_copy;           /* keep up to rx_cap bytes when set */
    uint64_t rx_cap;
    uint64_t tx_total, tx_queued, acked;
    bool zero_copy;             /* send with tcp_send, else tcp_write */
    uint16_t chunk;             /* zero_copy: bytes a tcp_send (0: the MSS) */
    bool close_when_sent;
    bool close_on_fin;
    bool hold;                  /* manual window: keep buffers in held */
    struct pkt *held;
    uint32_t held_bytes;
    struct ta *next;            /* a listener's: who takes the next accepted */
};

/* Byte i of a transfer. */
static inline uint8_t ta_byte(uint64_t i) { return (uint8_t)(i % 251); }

extern const struct tcp_callbacks ta_cb;
/* Queue as much of the pattern as fits. */
void ta_pump(struct ta *a, uint64_t now_ns);
/* Free a list of buffers linked by next; *list becomes NULL. */
void ta_free_list(struct pkt **list);
/* Give held buffers back and reopen the window. */
void ta_release(struct ta *a, uint64_t now_ns);
int ta_listen(struct tl *l, int side, uint16_t port, struct ta *a);
struct tcp_conn *ta_connect(struct tl *l, int side, uint16_t port, struct ta *a);
/* The same over IPv6 (tl_addr6). */
struct tcp_conn *ta_connect6(struct tl *l, int side, uint16_t port, struct ta *a);
/* A new link with an established pair on port 80: a[0] on side 0
 * connected to a[1] on side 1 (checked: unit tests only, where CHECK
 * counts). */
static inline struct tl *ta_pair(struct ta *a, const struct tl_opts *o)
{
    struct tl *l = tl_new(o);
    ta_listen(l, 1, 80, &a[1]);
    ta_connect(l, 0, 80, &a[0]);
    tl_run(l, NULL, NULL, 1000000000ull);
    CHECK_EQ(a[0].connected, 1);
    CHECK_EQ(a[1].accepted, 1);
    return l;
}

/* ta_pair whose side 1 keeps every buffer it receives (hold) in a fixed
 * window of 16 KiB (cfg: side 1's config, that window set here) and whose
 * side 0 has queued tx_total bytes: the window closes. */
static inline struct tl *ta_pair_held(struct ta *a, struct tcp_config *cfg, uint64_t tx_total)
{
    cfg->rcvbuf = 16384;
    cfg->rcvbuf_max = 0; /* fixed */
    a[1].hold = true;
    struct tl_opts o = {.cfg = {NULL, cfg}};
    struct tl *l = ta_pair(a, &o);
    a[0].tx_total = tx_total;
    ta_pump(&a[0], l->now_ns);
    return l;
}

/* Counter by name on a side. */
uint64_t tl_ctr(struct tl *l, int side, const char *name);

/* A parsed copy of a TCP segment in an Ethernet frame, IPv4 or IPv6 (false
 * if none). */
struct ta_seg {
    uint32_t seq, ack;
    uint16_t sport, dport, wnd;
    uint8_t flags;
    uint32_t len;               /* payload */
    uint32_t hlen;
    struct tcp_opts opt;
};
bool ta_parse(const struct pkt *p, struct ta_seg *out);

/* Build a frame from side's peer to side: Ethernet, IPv4 and TCP with
 * options opt (optlen bytes) and payload; a correct checksum. */
size_t ta_frame(uint8_t *buf, int to_side, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
                uint8_t flags, uint16_t wnd, const void *opt, uint32_t optlen, const void *data,
                uint32_t len);

#endif
