/* SPDX-License-Identifier: MIT */
/* tests/support/tcp_soak_draw.c: what one seed of the TCP soak draws
 * (tcp_soak.c runs it): the link, each side's tcp_config, and the script
 * of connections, each end's writes, reads, closes and aborts. */
#include "tests/support/tcp_soak_impl.h"

static void draw_cfg(struct soak *s, struct tcp_config *cfg)
{
    tcp_config_default(cfg);
    cfg->sack = pct(s, 75);
    cfg->timestamps = pct(s, 75);
    cfg->wscale = pct(s, 75);
    cfg->nagle = pct(s, 30);
    cfg->cc = pct(s, 50) ? TCP_CC_CUBIC : TCP_CC_NEWRENO;
    if (pct(s, 40)) {
        cfg->sndbuf = (uint32_t)logu(s, 4096, 131072);
        cfg->sndbuf_max = pct(s, 50) ? cfg->sndbuf : 4u << 20;
    }
    if (pct(s, 40)) {
        cfg->rcvbuf = (uint32_t)logu(s, 4096, 131072);
        cfg->rcvbuf_max = pct(s, 50) ? cfg->rcvbuf : 4u << 20;
    }
    if (pct(s, 25))
        cfg->ooo_max = (uint16_t)logu(s, 4, 64);
    if (pct(s, 25))
        cfg->sq_slots = (uint16_t)logu(s, 16, 128);
    if (pct(s, 30))
        cfg->delack_ns = logu(s, 1 * MS, 200 * MS);
    cfg->time_wait_ns = logu(s, 30 * SEC, 60 * SEC);
}

static void draw_end(struct soak *s, struct end *e, int idx, int side)
{
    e->s = s;
    e->idx = idx;
    e->side = side;
    e->key_tx = rnd(s);
    uint64_t r = below(s, 100);
    e->tx_total = r < 15 ? 0 : r < 45 ? logu(s, 1, 16384) : logu(s, 16384, 3u << 20);
    e->max_write = (uint32_t)logu(s, s->min_write, 65536);
    e->zc_pct = (uint8_t)(pct(s, 30) ? 0 : pct(s, 40) ? 100 : 50);
    e->pace_ns = pct(s, 20) ? logu(s, 100000, 20 * MS) : 0;
    if (e->pace_ns && e->tx_total > (uint64_t)e->max_write * 200) /* a minute of writes at most */
        e->tx_total = (uint64_t)e->max_write * 200;
    e->manual = pct(s, 35);
    e->hold_ns = logu(s, 10000, 300 * MS);
    e->close_mode = (int)below(s, 3);
    e->close_delay_ns = logu(s, 10000, 500 * MS);
}

void soak_draw(struct soak *s)
{
    struct tl_opts *o = &s->o;
    o->seed = s->seed;
    o->loss_ppm = pct(s, 40) ? 0 : (uint32_t)logu(s, 100, 30000);
    o->dup_ppm = pct(s, 50) ? 0 : (uint32_t)logu(s, 100, 20000);
    o->reorder_ppm = pct(s, 50) ? 0 : (uint32_t)logu(s, 100, 30000);
    o->delay_ns = logu(s, 10000, 50 * MS);
    if (pct(s, 30))
        o->reorder_ns = logu(s, 1000, 4 * o->delay_ns);
    if (pct(s, 40)) {
        o->rate_bps = logu(s, 10000000, 10000000000ull);
        o->queue_max = (uint32_t)logu(s, 16, 512);
        if (pct(s, 40))
            o->tx_ring = (uint32_t)logu(s, 4, 64);
    }
    if (pct(s, 50))
        o->offloads |= NETDEV_OFF_RX_CSUM;
    if (pct(s, 60)) {
        o->offloads |= NETDEV_OFF_TX_CSUM;
        if (pct(s, 60))
            o->offloads |= NETDEV_OFF_TSO4;
        if (pct(s, 60))
            o->offloads |= NETDEV_OFF_TSO6;
    }
    if (pct(s, 20))
        o->nbufs = (uint32_t)logu(s, 1024, 4096);
    s->nconns = 1 + (int)below(s, SOAK_CONNS);
    bool any_v6 = false;
    for (int i = 0; i < s->nconns; i++) {
        struct sconn *k = &s->conn[i];
        k->client = (int)below(s, 2);
        k->v6 = pct(s, 30);
        any_v6 |= k->v6;
        k->start_at = below(s, 4) ? 0 : logu(s, 1000, 200 * MS);
        for (int d = 0; d < 2; d++)
            draw_end(s, &k->e[d], i, d);
        /* Both waiting for the other's FIN would never close. */
        if (k->e[0].close_mode == CLOSE_AFTER_FIN && k->e[1].close_mode == CLOSE_AFTER_FIN)
            k->e[below(s, 2)].close_mode = CLOSE_WHEN_SENT;
        if (pct(s, 10)) {
            struct end *e = &k->e[below(s, 2)];
            e->abort_mode = pct(s, 50) ? ABORT_AT_TIME : ABORT_IN_RECV;
            e->abort_at = e->abort_mode == ABORT_AT_TIME ? logu(s, 1 * MS, 2 * SEC) : below(s, peer_of(e)->tx_total + 1);
        }
        for (int d = 0; d < 2; d++) {
            k->e[d].key_rx = k->e[!d].key_tx;
            k->e[d].rx_expect = k->e[!d].tx_total;
        }
    }
    for (int i = 0; i < 2; i++) {
        draw_cfg(s, &s->cfg[i]);
        o->cfg[i] = &s->cfg[i];
        s->mtu[i] = pct(s, 70) ? 1500 : (uint16_t)((any_v6 ? 1280 : 576) + below(s, 1500 - (any_v6 ? 1280 : 576)));
    }
    int n = snprintf(s->desc, sizeof(s->desc),
                     "loss %u dup %u reo %u ppm, delay %llu us, rate %llu, ring %u, off %#x, bufs %u, mtu %u/%u,",
                     o->loss_ppm, o->dup_ppm, o->reorder_ppm, (unsigned long long)(o->delay_ns / 1000),
                     (unsigned long long)o->rate_bps, o->tx_ring, o->offloads, o->nbufs, s->mtu[0], s->mtu[1]);
    for (int i = 0; i < 2 && n < (int)sizeof(s->desc); i++)
        n += snprintf(s->desc + n, sizeof(s->desc) - (size_t)n, " side%d %s%s%s%s %s snd %u/%u rcv %u/%u ooo %u sq %u;", i,
                      s->cfg[i].sack ? "S" : "-", s->cfg[i].timestamps ? "T" : "-",
                      s->cfg[i].wscale ? "W" : "-", s->cfg[i].nagle ? "N" : "-",
                      s->cfg[i].cc == TCP_CC_CUBIC ? "cubic" : "reno", s->cfg[i].sndbuf, s->cfg[i].sndbuf_max,
                      s->cfg[i].rcvbuf, s->cfg[i].rcvbuf_max, s->cfg[i].ooo_max, s->cfg[i].sq_slots);
    if (n < (int)sizeof(s->desc))
        snprintf(s->desc + n, sizeof(s->desc) - (size_t)n, " %d conns", s->nconns);
}
