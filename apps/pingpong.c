/* SPDX-License-Identifier: MIT */
/* apps/pingpong.c: the ping-pong benchmark's server and client
 * (apps/pingpong.h).
 *
 * Both ends hand each received buffer straight back to tcp_send: the
 * reply's headers go where the request's were, no buffer is allocated and
 * nothing is copied. The client's first message is copied in with
 * tcp_write (small payloads are cheapest copied). */
#include "pingpong.h"

#include <stdbool.h>

#include "net/net.h"
#include "net/core/core.h"
#include "net/tcp/tcp.h"

#define PINGPONG_MAX_PAYLOAD 256

static void srv_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    if (tcp_send(c, p, now_ns) < 0)
        pkt_free(p); /* a client that does not read its replies loses them */
}

static void srv_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns) { tcp_close(c, now_ns); }

static const struct tcp_callbacks srv_cb = {.recv = srv_recv, .peer_fin = srv_fin};

int pingpong_server_start(struct net_stack *s, uint16_t port)
{
    return tcp_listen(s, port, &srv_cb, NULL);
}

static void send_msg(struct pingpong_client *pc, struct tcp_conn *c, uint64_t now_ns)
{
    static const uint8_t msg[PINGPONG_MAX_PAYLOAD] = {'p'};
    tcp_write(c, msg, pc->payload, now_ns);
}

static void cli_connected(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct pingpong_client *pc = ctx;
    pc->open++;
    tcp_set_nagle(c, false);
    send_msg(pc, c, now_ns);
}

/* The reply goes out again as the next message, in the same buffer. */
static void cli_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct pingpong_client *pc = ctx;
    pc->rx_bytes += p->len;
    if (tcp_send(c, p, now_ns) < 0)
        pkt_free(p);
}

static void cli_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct pingpong_client *pc = ctx;
    pc->closed++;
}

static const struct tcp_callbacks cli_cb = {.connected = cli_connected, .recv = cli_recv, .closed = cli_closed};

int pingpong_client_start(struct net_stack *s, struct pingpong_client *pc, uint32_t dst_be, uint16_t port,
                          uint32_t nconns, uint32_t payload, uint64_t now_ns)
{
    pc->payload = payload == 0 ? 1 : payload > PINGPONG_MAX_PAYLOAD ? PINGPONG_MAX_PAYLOAD : payload;
    uint32_t opened = 0;
    for (uint32_t i = 0; i < nconns; i++)
        if (tcp_connect(s, dst_be, port, &cli_cb, pc, now_ns))
            opened++;
    return opened ? 0 : -1;
}
