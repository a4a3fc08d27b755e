/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_soak_impl.h: the soak's inside (tcp_soak.c runs a
 * seed, tcp_soak_draw.c draws it): one seed's state, its random numbers
 * and how a failure is reported. */
#ifndef TESTS_SUPPORT_TCP_SOAK_IMPL_H
#define TESTS_SUPPORT_TCP_SOAK_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tests/support/tcp_app.h"

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

static inline uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t rnd(struct soak *s) { return mix(s->rng += 0x9e3779b97f4a7c15ull); }
static inline uint64_t below(struct soak *s, uint64_t n) { return n ? rnd(s) % n : 0; }
static inline bool pct(struct soak *s, unsigned p) { return below(s, 100) < p; }
/* Log-uniform in [lo, hi] (lo > 0): as many small values as large ones. */
static inline uint64_t logu(struct soak *s, uint64_t lo, uint64_t hi)
{
    int steps = 0;
    while ((lo << (steps + 1)) <= hi)
        steps++;
    uint64_t v = lo << below(s, (uint64_t)steps + 1);
    v += below(s, v);
    return v > hi ? hi : v;
}

static inline struct end *peer_of(struct end *e) { return &e->s->conn[e->idx].e[!e->side]; }

/* Draw seed s->seed's link, configurations and script into s. */
void soak_draw(struct soak *s);

#endif
