/* SPDX-License-Identifier: MIT */
/* apps/udp_echo.c: UDP echo service (RFC 862) on net/'s UDP interface
 * (apps/udp_echo.h). */
#include "udp_echo.h"

#include "net/net.h"
#include "net/ip/ip.h"

/* A datagram in its own buffer goes back in that buffer (no copy); one that
 * was reassembled is copied out of the stack's scratch area. */
static void echo(void *ctx, struct net_stack *s, const struct udp_meta *m, const uint8_t *data,
                 uint16_t len, struct pkt *p, uint64_t now_ns)
{
    /* Port 0 wants no answer (RFC 768); an echo port's datagram would be
     * echoed back and forth between two servers for ever. */
    if (m->sport == 0 || m->sport == m->dport) {
        s->ctr.udp_echo_refused++;
        if (p)
            pkt_free(p);
        return;
    }
    if (m->v6) {
        const uint8_t *src6 = m->bcast ? NULL : m->dst6;
        if (p)
            udp_send6(s, p, src6, m->src6, m->dport, m->sport, m->port, now_ns);
        else
            udp_send6_copy(s, data, len, src6, m->src6, m->dport, m->sport, m->port, now_ns);
        return;
    }
    uint32_t src_be = m->bcast ? 0 : m->dst_be; /* never answer from a broadcast address */
    if (p)
        udp_send(s, p, src_be, m->src_be, m->dport, m->sport, now_ns);
    else
        udp_send_copy(s, data, len, src_be, m->src_be, m->dport, m->sport, now_ns);
}

int udp_echo_start(struct net_stack *s, uint16_t port)
{
    return udp_bind(s, port, echo, NULL);
}
