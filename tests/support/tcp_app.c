/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_app.c: the TCP tests' application and frame helpers
 * (tests/support/tcp_app.h). */
#include "tests/support/tcp_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/core/counter.h"
#include "net/core/wire.h"
#include "tests/support/fake_netdev.h"

void ta_pump(struct ta *a, uint64_t now_ns)
{
    struct tcp_conn *c = a->c;
    if (c == NULL)
        return;
    while (a->tx_queued < a->tx_total) {
        uint64_t left = a->tx_total - a->tx_queued;
        if (a->zero_copy) {
            uint32_t n = a->chunk ? a->chunk : tcp_mss(c);
            if (n > left)
                n = (uint32_t)left;
            if (tcp_sndbuf(c) < n)
                break;
            struct pkt *p = pkt_alloc(c->t->s->pool);
            if (p == NULL)
                break;
            for (uint32_t i = 0; i < n; i++)
                p->data[i] = ta_byte(a->tx_queued + i);
            p->len = (uint16_t)n;
            if (tcp_send(c, p, now_ns) < 0) {
                pkt_free(p);
                break;
            }
            a->tx_queued += n;
        } else {
            uint8_t buf[4096];
            uint32_t n = left < sizeof(buf) ? (uint32_t)left : sizeof(buf);
            for (uint32_t i = 0; i < n; i++)
                buf[i] = ta_byte(a->tx_queued + i);
            uint32_t took = tcp_write(c, buf, n, now_ns);
            a->tx_queued += took;
            if (took < n)
                break;
        }
    }
    if (a->close_when_sent && a->tx_queued == a->tx_total && a->c) {
        a->close_when_sent = false;
        tcp_close(a->c, now_ns);
    }
}

void ta_free_list(struct pkt **list)
{
    while (*list) {
        struct pkt *p = *list;
        *list = p->next;
        p->next = NULL;
        pkt_free(p);
    }
}

void ta_release(struct ta *a, uint64_t now_ns)
{
    uint32_t n = a->held_bytes;
    ta_free_list(&a->held);
    a->held_bytes = 0;
    if (a->c && n)
        tcp_recved(a->c, n, now_ns);
}

static void ta_accepted(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct ta *a = ctx;
    while (a->accepted && a->next)
        a = a->next;
    tcp_set_ctx(c, &ta_cb, a);
    a->accepted++;
    a->c = c;
    if (a->hold)
        tcp_set_manual_window(c, true);
    ta_pump(a, now_ns);
}

static void ta_connected(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct ta *a = ctx;
    a->connected++;
    a->c = c;
    if (a->hold)
        tcp_set_manual_window(c, true);
    ta_pump(a, now_ns);
}

static void ta_recv(void *ctx, struct tcp_conn *c, struct pkt *p, uint64_t now_ns)
{
    struct ta *a = ctx;
    uint32_t i = 0;
    if (a->rx_copy && a->rx_bytes < a->rx_cap) {
        i = a->rx_cap - a->rx_bytes < p->len ? (uint32_t)(a->rx_cap - a->rx_bytes) : p->len;
        memcpy(a->rx_copy + a->rx_bytes, p->data, i);
    }
    for (; i < p->len; i++)
        if (p->data[i] != ta_byte(a->rx_bytes + i))
            a->rx_bad++;
    a->rx_bytes += p->len;
    a->rx_calls++;
    if (a->hold) {
        a->held_bytes += p->len;
        p->next = a->held;
        a->held = p;
        return;
    }
    pkt_free(p);
}

static void ta_acked(void *ctx, struct tcp_conn *c, uint32_t bytes, uint64_t now_ns)
{
    struct ta *a = ctx;
    a->acked += bytes;
    ta_pump(a, now_ns);
}

static void ta_peer_fin(void *ctx, struct tcp_conn *c, uint64_t now_ns)
{
    struct ta *a = ctx;
    a->peer_fin++;
    if (a->close_on_fin)
        tcp_close(c, now_ns);
}

static void ta_closed(void *ctx, struct tcp_conn *c, int reason, uint64_t now_ns)
{
    struct ta *a = ctx;
    a->closed++;
    a->close_reason = reason;
    a->retransmits = tcp_conn_retransmits(c);
    a->c = NULL;
    ta_free_list(&a->held);
    a->held_bytes = 0;
}

const struct tcp_callbacks ta_cb = {
    .accepted = ta_accepted,
    .connected = ta_connected,
    .recv = ta_recv,
    .acked = ta_acked,
    .peer_fin = ta_peer_fin,
    .closed = ta_closed,
};

int ta_listen(struct tl *l, int side, uint16_t port, struct ta *a)
{
    return tcp_listen(l->s[side], port, &ta_cb, a);
}

struct tcp_conn *ta_connect(struct tl *l, int side, uint16_t port, struct ta *a)
{
    a->c = tcp_connect(l->s[side], side ? TL_ADDR0 : TL_ADDR1, port, &ta_cb, a, l->now_ns);
    tl_flush(l);
    return a->c;
}

struct tcp_conn *ta_connect6(struct tl *l, int side, uint16_t port, struct ta *a)
{
    a->c = tcp_connect6_from(l->s[side], 0, tl_addr6[!side], port, &ta_cb, a, l->now_ns);
    tl_flush(l);
    return a->c;
}

uint64_t tl_ctr(struct tl *l, int side, const char *name)
{
    const struct net_counter_desc *d = net_counter_find(name);
    if (d == NULL) {
        fprintf(stderr, "  no counter %s\n", name);
        abort();
    }
    return net_counter_get(&l->s[side]->ctr, d);
}

bool ta_parse(const struct pkt *p, struct ta_seg *out)
{
    const uint8_t *f = p->data;
    const uint8_t *ip = f + 14;
    uint32_t ihl, tot;
    if (p->len >= 74 && f[12] == 0x86 && f[13] == 0xdd && f[20] == IP4_PROTO_TCP) {
        ihl = 40;
        tot = 40 + (uint32_t)(ip[4] << 8 | ip[5]);
    } else if (p->len >= 54 && f[12] == 0x08 && f[13] == 0x00 && f[23] == IP4_PROTO_TCP) {
        ihl = (uint32_t)(ip[0] & 0xf) * 4;
        tot = (uint32_t)(ip[2] << 8 | ip[3]);
    } else {
        return false;
    }
    const uint8_t *t = ip + ihl;
    memset(out, 0, sizeof(*out));
    out->sport = (uint16_t)(t[0] << 8 | t[1]);
    out->dport = (uint16_t)(t[2] << 8 | t[3]);
    out->seq = (uint32_t)t[4] << 24 | (uint32_t)t[5] << 16 | (uint32_t)t[6] << 8 | t[7];
    out->ack = (uint32_t)t[8] << 24 | (uint32_t)t[9] << 16 | (uint32_t)t[10] << 8 | t[11];
    out->hlen = (uint32_t)(t[12] >> 4) * 4;
    out->flags = t[13];
    out->wnd = (uint16_t)(t[14] << 8 | t[15]);
    out->len = tot - ihl - out->hlen;
    tcp_opt_parse(t + 20, out->hlen - 20, &out->opt);
    return true;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}

size_t ta_frame(uint8_t *buf, int to_side, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
                uint8_t flags, uint16_t wnd, const void *opt, uint32_t optlen, const void *data,
                uint32_t len)
{
    static const uint8_t mac[2][6] = {{0x02, 0, 0, 0, 0x10, 0x01}, {0x02, 0, 0, 0, 0x10, 0x02}};
    uint8_t seg[1600];
    uint32_t hlen = 20 + optlen;
    memset(seg, 0, 20);
    put16(seg, sport);
    put16(seg + 2, dport);
    put32(seg + 4, seq);
    put32(seg + 8, ack);
    seg[12] = (uint8_t)((hlen / 4) << 4);
    seg[13] = flags;
    put16(seg + 14, wnd);
    if (optlen)
        memcpy(seg + 20, opt, optlen);
    if (len)
        memcpy(seg + hlen, data, len);
    uint32_t src = to_side ? TL_ADDR0 : TL_ADDR1, dst = to_side ? TL_ADDR1 : TL_ADDR0;
    uint8_t ph[12];
    memcpy(ph, &src, 4);
    memcpy(ph + 4, &dst, 4);
    ph[8] = 0;
    ph[9] = IP4_PROTO_TCP;
    put16(ph + 10, (uint16_t)(hlen + len));
    uint32_t sum = 0;
    for (int i = 0; i < 12; i += 2)
        sum += (uint32_t)(ph[i] << 8 | ph[i + 1]);
    put16(seg + 16, fake_csum(seg, hlen + len, sum));
    size_t n = fake_eth(buf, mac[to_side], mac[!to_side], ETH_TYPE_IP4);
    n += fake_ip4(buf + n, src, dst, IP4_PROTO_TCP, 1, 0x4000, seg, hlen + len);
    return n;
}
