/* SPDX-License-Identifier: MIT */
/* apps/pingpong.h: a request-response benchmark in the spirit of
 * bench-iip: clients send a small message (1 byte by default) on each of
 * their connections, the server sends it back, the client sends the next
 * one on receiving the reply. Transactions per second is the figure. */
#ifndef USERLAND_PINGPONG_H
#define USERLAND_PINGPONG_H

#include <stdint.h>

struct net_stack;

/* The server (`app pingpong port N`): every byte back, zero-copy. 0, or -1
 * (no TCP on s, port taken, listener table full). */
int pingpong_server_start(struct net_stack *s, uint16_t port);

/* A client's state, the caller's memory (one per core). Each connection
 * keeps payload bytes in flight: what comes back is sent out again, so
 * transactions = rx_bytes / payload. */
struct pingpong_client {
    uint64_t rx_bytes;
    uint32_t payload;           /* bytes per message (1..256) */
    uint32_t open;              /* connections established */
    uint32_t closed;            /* connections that ended */
};

static inline uint64_t pingpong_transactions(const struct pingpong_client *pc)
{
    return pc->payload ? pc->rx_bytes / pc->payload : 0;
}

/* Open nconns connections from s to dst_be:port and keep one message in
 * flight on each. pc must stay valid while they run. 0, or -1 if none could
 * be opened. */
int pingpong_client_start(struct net_stack *s, struct pingpong_client *pc, uint32_t dst_be, uint16_t port,
                          uint32_t nconns, uint32_t payload, uint64_t now_ns);

#endif
